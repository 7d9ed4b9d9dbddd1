"""A real S3 server for Shiplane's S3 tests: moto's server (PyPI) on 127.0.0.1 with request
signatures checked.

moto checks a request's Signature Version 4 once its first INITIAL_NO_AUTH_ACTION_COUNT actions
have been served without checking. This script sets that count to exactly the IAM calls it makes
itself (a user, an inline policy allowing every S3 action, an access key), so every request after
them — each of the tests' — is authenticated against that key's secret, and a request signed with
another secret is answered 403 SignatureDoesNotMatch.

Prints "READY <port> <access key id> <secret access key>" once it listens and runs until its
standard input closes. --bucket names buckets to create (through the signed API). --part-delay
SECONDS holds each UploadPart's answer that long after the part is stored, so that a test can kill
its client while a multipart upload is partly held (moto itself answers in milliseconds).
--hold-create FILE appends a line to FILE for every CreateMultipartUpload once moto has made the
upload, and holds the first one's answer until FILE.release exists (or 300 seconds pass): moto has
the upload and the client has not heard its id, so a test can kill the client in that window.
"""
import argparse
import json
import os
import socket
import sys
import time

SETUP_ACTIONS = 3  # CreateUser, PutUserPolicy, CreateAccessKey
os.environ["INITIAL_NO_AUTH_ACTION_COUNT"] = str(SETUP_ACTIONS)
os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")

import boto3  # noqa: E402  (moto[server] brings it)
from moto.server import ThreadedMotoServer  # noqa: E402
from moto.moto_server import threaded_moto_server  # noqa: E402


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bucket", action="append", default=[])
    parser.add_argument("--part-delay", type=float, default=0)
    parser.add_argument("--hold-create")
    arguments = parser.parse_args()
    if arguments.hold_create:
        application = threaded_moto_server.DomainDispatcherApplication
        created = application.__call__

        def holding(self, environ, start_response):
            body = created(self, environ, start_response)
            query = environ.get("QUERY_STRING", "").split("&")
            if environ.get("REQUEST_METHOD") == "POST" and ("uploads" in query or "uploads=" in query):
                body = list(body)  # moto has made the upload: its answer is ready, and not sent yet
                with open(arguments.hold_create, "a") as log:
                    log.write("create\n")
                with open(arguments.hold_create) as log:
                    first = log.read().count("\n") == 1
                deadline = time.time() + 300
                while first and not os.path.exists(arguments.hold_create + ".release") and time.time() < deadline:
                    time.sleep(0.05)
            return body

        application.__call__ = holding
    if arguments.part_delay > 0:
        application = threaded_moto_server.DomainDispatcherApplication
        answer = application.__call__

        def slowly(self, environ, start_response):
            body = answer(self, environ, start_response)
            if environ.get("REQUEST_METHOD") == "PUT" and "partNumber=" in environ.get("QUERY_STRING", ""):
                time.sleep(arguments.part_delay)
            return body

        application.__call__ = slowly
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    endpoint = "http://127.0.0.1:%d" % port
    setup = dict(endpoint_url=endpoint, region_name="us-east-1",
                 aws_access_key_id="AKIASETUPSETUPSETUP0", aws_secret_access_key="setup")
    iam = boto3.client("iam", **setup)
    iam.create_user(UserName="release-bot")
    iam.put_user_policy(UserName="release-bot", PolicyName="s3", PolicyDocument=json.dumps({
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": ["s3:*"], "Resource": "*"}],
    }))
    key = iam.create_access_key(UserName="release-bot")["AccessKey"]
    s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                      aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"])
    for bucket in arguments.bucket:
        s3.create_bucket(Bucket=bucket)
    print("READY %d %s %s" % (port, key["AccessKeyId"], key["SecretAccessKey"]), flush=True)
    sys.stdin.read()
    server.stop()


if __name__ == "__main__":
    main()

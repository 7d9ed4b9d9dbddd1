"""Downloads every object of a bucket through boto3 (an S3 client that is not Shiplane's) into a
folder, each at its key's path, and prints JSON: by key, its size, SHA-256 and LastModified (a
PUT of the same bytes changes LastModified). Usage: s3_download.py ENDPOINT ACCESS_KEY SECRET BUCKET FOLDER"""
import hashlib
import json
import os
import sys

import boto3

endpoint, key_id, secret, bucket, folder = sys.argv[1:6]
s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                  aws_access_key_id=key_id, aws_secret_access_key=secret)
listed = {}
for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
    for item in page.get("Contents", []):
        body = s3.get_object(Bucket=bucket, Key=item["Key"])["Body"].read()
        path = os.path.join(folder, item["Key"])
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as out:
            out.write(body)
        listed[item["Key"]] = {"size": item["Size"], "sha256": hashlib.sha256(body).hexdigest(),
                               "modified": item["LastModified"].isoformat()}
print(json.dumps(listed, sort_keys=True))

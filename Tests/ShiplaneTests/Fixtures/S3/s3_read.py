"""Reads a bucket back through boto3 (an S3 client that is not Shiplane's): prints JSON with every
object (size, SHA-256 of its bytes, the sha256 metadata, whether AllUsers may read it) and every
multipart upload still open, with the number of parts they hold. Usage: s3_read.py ENDPOINT ACCESS_KEY SECRET BUCKET"""
import hashlib
import json
import sys

import boto3

endpoint, key_id, secret, bucket = sys.argv[1:5]
s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                  aws_access_key_id=key_id, aws_secret_access_key=secret)
objects = {}
for item in s3.list_objects_v2(Bucket=bucket).get("Contents", []):
    got = s3.get_object(Bucket=bucket, Key=item["Key"])
    grants = s3.get_object_acl(Bucket=bucket, Key=item["Key"])["Grants"]
    objects[item["Key"]] = {
        "size": item["Size"],
        "sha256": hashlib.sha256(got["Body"].read()).hexdigest(),
        "meta_sha256": got["Metadata"].get("sha256"),
        "public": any(g["Grantee"].get("URI", "").endswith("/AllUsers") and g["Permission"] == "READ" for g in grants),
    }
open_uploads = s3.list_multipart_uploads(Bucket=bucket).get("Uploads", [])
uploads = [u["Key"] for u in open_uploads]
parts = sum(len(s3.list_parts(Bucket=bucket, Key=u["Key"], UploadId=u["UploadId"]).get("Parts", [])) for u in open_uploads)
print(json.dumps({"objects": objects, "uploads": uploads, "parts": parts}))

"""The Google Cloud Storage emulator from PyPI (gcp-storage-emulator) for the match store tests.

    gcs_emulator.py serve BUCKET          starts it in memory on a free port with BUCKET made;
                                          prints "READY PORT" and runs until stdin closes
    gcs_emulator.py download URL BUCKET FOLDER
                                          every object of BUCKET (objects.list, alt=media) into
                                          FOLDER; prints {name: {"sha256", "generation"}} as JSON

The download uses only Python's standard library against the JSON API, independent of Shiplane's
client. The emulator ignores ifGenerationMatch and pagination (maxResults, pageToken): those are
checked against the stand-in written from Google's description (FakeGCS).
"""
import hashlib
import json
import logging
import os
import sys
import urllib.parse
import urllib.request


def serve(bucket):
    logging.disable(logging.CRITICAL)
    from gcp_storage_emulator.server import create_server

    server = create_server("127.0.0.1", 0, in_memory=True, default_bucket=bucket)
    server.start()
    port = server._api._httpd.server_address[1]
    print("READY %d" % port, flush=True)
    try:
        sys.stdin.read()
    finally:
        server.stop()


def download(url, bucket, folder):
    quoted = urllib.parse.quote(bucket, safe="")
    with urllib.request.urlopen("%s/storage/v1/b/%s/o" % (url, quoted)) as response:
        listing = json.load(response)
    found = {}
    for item in listing.get("items", []):
        name = item["name"]
        media = "%s/storage/v1/b/%s/o/%s?alt=media" % (url, quoted, urllib.parse.quote(name, safe=""))
        with urllib.request.urlopen(media) as response:
            data = response.read()
        path = os.path.join(folder, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as out:
            out.write(data)
        found[name] = {"sha256": hashlib.sha256(data).hexdigest(), "generation": item.get("generation")}
    print(json.dumps(found, sort_keys=True))


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve(sys.argv[2])
    else:
        download(sys.argv[2], sys.argv[3], sys.argv[4])

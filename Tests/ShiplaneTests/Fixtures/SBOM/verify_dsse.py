"""Verifies a DSSE envelope with securesystemslib (an implementation independent of Shiplane's).

Usage: verify_dsse.py ENVELOPE PUBLIC_KEY_HEX KEYID
Exit 0 and print the payload when one signature by the Ed25519 key verifies; 1 otherwise.
"""
import json
import sys

from securesystemslib.dsse import Envelope
from securesystemslib.signer import SSlibKey

with open(sys.argv[1], encoding="utf-8") as handle:
    envelope = Envelope.from_dict(json.load(handle))
key = SSlibKey(sys.argv[3], "ed25519", "ed25519", {"public": sys.argv[2]})
try:
    envelope.verify([key], 1)
except Exception as error:  # VerificationError: the signature does not verify
    print(f"not verified: {error}")
    sys.exit(1)
print(envelope.payload.decode("utf-8"))

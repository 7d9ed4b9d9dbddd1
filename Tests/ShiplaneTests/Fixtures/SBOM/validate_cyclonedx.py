"""Validates CycloneDX 1.6 JSON documents with cyclonedx-python-lib's strict JSON validator.

Usage: validate_cyclonedx.py FILE...   Exit 0 when every file is valid, 1 (with the errors) otherwise.
"""
import sys

from cyclonedx.schema import SchemaVersion
from cyclonedx.validation.json import JsonStrictValidator

validator = JsonStrictValidator(SchemaVersion.V1_6)
failed = False
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as handle:
        error = validator.validate_str(handle.read())
    if error is not None:
        failed = True
        print(f"{path}: invalid: {error}")
    else:
        print(f"{path}: valid CycloneDX 1.6")
sys.exit(1 if failed else 0)

#!/usr/bin/env python3
"""check_schema.py DRIVER SCHEMA [REPORT...]: every given report, the same
report saved again by report_save, and the in-code full fixture (hostile
strings) must validate against adapters/report.schema.json."""
import json
import os
import subprocess
import sys
import tempfile

import jsonschema

driver, schema_path, reports = sys.argv[1], sys.argv[2], sys.argv[3:]
schema = json.load(open(schema_path))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
with tempfile.TemporaryDirectory() as tmp:
    docs = []
    full = os.path.join(tmp, "full.json")
    subprocess.run([driver, "--full", full], check=True)
    docs.append(full)
    for i, path in enumerate(reports):
        out = os.path.join(tmp, "resaved%d.json" % i)
        subprocess.run([driver, "--resave", path, out], check=True)
        docs += [path, out]
    failed = 0
    for path in docs:
        errors = list(validator.iter_errors(json.load(open(path))))
        for e in errors[:10]:
            print("%s: %s: %s" % (path, "/".join(map(str, e.absolute_path)), e.message))
        failed |= bool(errors)
    print("validated %d documents" % len(docs))
    sys.exit(1 if failed else 0)

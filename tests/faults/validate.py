#!/usr/bin/env python3
"""validate.py SCHEMA REPORT...: every report validates against the schema."""
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
validator = jsonschema.Draft202012Validator(schema)
failed = 0
for path in sys.argv[2:]:
    for e in list(validator.iter_errors(json.load(open(path))))[:10]:
        print("%s: %s: %s" % (path, "/".join(map(str, e.absolute_path)), e.message))
        failed = 1
sys.exit(failed)

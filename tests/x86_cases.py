#!/usr/bin/env python3
"""x86_cases.py CTEST BUILD: fails unless every CTest case of BUILD whose name
ends in _x86 has SKIP_RETURN_CODE 77 and MG_X86_CHECK in its environment
(mg_x86_cases, tests/CMakeLists.txt), so that it skips, not fails, where the
kernel refuses 32-bit programs; and unless there is at least one."""
import json
import subprocess
import sys

ctest, build = sys.argv[1:3]
out = subprocess.run([ctest, "--test-dir", build, "--show-only=json-v1"],
                     check=True, capture_output=True, text=True).stdout
cases = [t for t in json.loads(out)["tests"] if t["name"].endswith("_x86")]
bad = []
for t in cases:
    props = {p["name"]: p["value"] for p in t.get("properties", [])}
    env = props.get("ENVIRONMENT", [])
    if props.get("SKIP_RETURN_CODE") != 77 or not any(
            e.startswith("MG_X86_CHECK=/") for e in env):
        bad.append(t["name"])
if not cases:
    sys.exit(f"no _x86 case in {build}")
if bad:
    sys.exit("_x86 cases that would fail, not skip, where the kernel refuses "
             "32-bit programs (call mg_x86_cases() in their directory):\n  "
             + "\n  ".join(bad))
print(f"{len(cases)} _x86 cases, each skips where 32-bit programs cannot run")

#!/usr/bin/env python3
"""check_junit_schemas.py - what two JUnit schemas that readers validate
with require of a document, checked without the schema files (which this
repository does not ship):

  junit-10   Jenkins xunit plugin, src/main/resources/org/jenkinsci/plugins/
             xunit/types/model/xsd/junit-10.xsd (MIT)
  windyroad  windyroad/JUnit-Schema, JUnit.xsd (Apache-2.0)

Each rule below restates a content model or attribute list of that schema
(see tests/adapters/schemas/README.md). With --xsd PATH the real schema is
also run through xmllint (PATH must exist; CMake passes it only then).

Usage: check_junit_schemas.py SCHEMA FILE [--xsd PATH --xmllint XMLLINT]
Exit 0: valid; 1: violations, one a line on stdout; 2: usage.
"""
import datetime
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

SUREFIRE_TIME = re.compile(r"(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]*)?")
XS_INT = re.compile(r"[+-]?[0-9]+")
XS_DECIMAL = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)")
ISO8601 = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}")


def collapse(v):
    return " ".join(v.split())


def any_string(v):
    return None


def surefire_time(v):
    return None if SUREFIRE_TIME.fullmatch(v) else "not a SUREFIRE_TIME"


def xs_int(v):
    v = collapse(v)
    if not XS_INT.fullmatch(v) or not -(2**31) <= int(v) < 2**31:
        return "not an xs:int"
    return None


def xs_decimal(v):
    return None if XS_DECIMAL.fullmatch(collapse(v)) else "not an xs:decimal"


def token1(v):
    return None if collapse(v) else "an empty xs:token (minLength 1)"


def iso8601(v):
    v = collapse(v)
    if not ISO8601.fullmatch(v):
        return "not ISO8601_DATETIME_PATTERN (no zone, no fraction)"
    try:
        datetime.datetime.strptime(v, "%Y-%m-%dT%H:%M:%S")
    except ValueError:
        return "not an xs:dateTime"
    return None


class Checker:
    def __init__(self):
        self.faults = []

    def fault(self, el, what):
        self.faults.append("<%s>: %s" % (el.tag, what))

    def attrs(self, el, required, optional):
        """required/optional: {name: check}; any other attribute is a fault."""
        for name in el.attrib:
            if name not in required and name not in optional:
                self.fault(el, "attribute '%s' is not allowed" % name)
        for name, check in list(required.items()) + list(optional.items()):
            if name not in el.attrib:
                if name in required:
                    self.fault(el, "attribute '%s' is required" % name)
                continue
            why = check(el.attrib[name])
            if why:
                self.fault(el, "attribute %s=%r: %s" % (name, el.attrib[name], why))

    def no_text(self, el):
        """Element-only content: whitespace between children only."""
        if el.text and el.text.strip():
            self.fault(el, "text is not allowed here")
        for child in el:
            if child.tail and child.tail.strip():
                self.fault(el, "text is not allowed here")

    def text_only(self, el):
        for child in el:
            self.fault(el, "element '%s' is not expected (text only)" % child.tag)

    def children(self, el, allowed):
        for child in el:
            if child.tag not in allowed:
                self.fault(el, "element '%s' is not expected" % child.tag)


# ---- junit-10.xsd -----------------------------------------------------------

J10_OUTCOME = {"skipped", "error", "failure"}
J10_RERUN = {"rerunFailure", "rerunError", "flakyFailure", "flakyError"}


def j10_properties(c, el):
    c.attrs(el, {}, {})
    c.no_text(el)
    c.children(el, {"property"})
    for p in el:
        if p.tag == "property":
            c.attrs(p, {"name": any_string, "value": any_string}, {})
            c.no_text(p)
            c.children(p, set())


def j10_testcase(c, el):
    c.attrs(el, {"name": any_string},
            {"time": any_string, "classname": any_string, "group": any_string})
    c.no_text(el)
    c.children(el, J10_OUTCOME | J10_RERUN | {"system-out", "system-err"})
    for child in el:
        if child.tag in J10_OUTCOME:
            c.attrs(child, {}, {"type": any_string, "message": any_string})
            c.text_only(child)
        elif child.tag in J10_RERUN:
            c.attrs(child, {"type": any_string}, {"message": any_string})
            c.children(child, {"stackTrace", "system-out", "system-err"})
        elif child.tag in ("system-out", "system-err"):
            c.attrs(child, {}, {})
            c.text_only(child)


def j10_testsuite(c, el):
    opt = {name: any_string for name in
           ("group", "skipped", "timestamp", "hostname", "id", "package", "file", "log", "url")}
    opt["time"] = surefire_time
    c.attrs(el, {"name": any_string, "tests": any_string, "failures": any_string,
                 "errors": any_string}, opt)
    c.no_text(el)
    c.children(el, {"testsuite", "properties", "testcase", "system-out", "system-err"})
    for child in el:
        if child.tag == "testsuite":
            j10_testsuite(c, child)
        elif child.tag == "properties":
            j10_properties(c, child)
        elif child.tag == "testcase":
            j10_testcase(c, child)
        elif child.tag in ("system-out", "system-err"):
            c.attrs(child, {}, {})
            c.text_only(child)


def junit10(c, root):
    if root.tag == "testsuite":
        return j10_testsuite(c, root)
    if root.tag != "testsuites":
        return c.fault(root, "not a testsuites or testsuite root")
    c.attrs(root, {}, {"name": any_string, "time": surefire_time, "tests": any_string,
                       "failures": any_string, "errors": any_string})
    c.no_text(root)
    c.children(root, {"testsuite"})
    for child in root:
        if child.tag == "testsuite":
            j10_testsuite(c, child)


# ---- windyroad JUnit.xsd ----------------------------------------------------

def wr_sequence(c, el, model):
    """model: [(tag, min, max)] in order (max None: unbounded)."""
    kids = list(el)
    i = 0
    for tag, lo, hi in model:
        n = 0
        while i < len(kids) and kids[i].tag == tag and (hi is None or n < hi):
            i += 1
            n += 1
        if n < lo:
            got = kids[i].tag if i < len(kids) else "the end"
            c.fault(el, "expected '%s', found %s" % (tag, got))
            return
    if i < len(kids):
        c.fault(el, "element '%s' is not expected" % kids[i].tag)


def wr_testcase(c, el):
    c.attrs(el, {"name": any_string, "classname": any_string, "time": xs_decimal}, {})
    c.no_text(el)
    kids = list(el)
    if len(kids) > 1:
        c.fault(el, "element '%s' is not expected (one of skipped, error, failure at most)"
                % kids[1].tag)
    for child in kids:
        if child.tag == "skipped":
            continue  # xs:anyType
        if child.tag in ("error", "failure"):
            c.attrs(child, {"type": any_string}, {"message": any_string})
            c.text_only(child)
        else:
            c.fault(el, "element '%s' is not expected" % child.tag)


def wr_testsuite(c, el, aggregated):
    req = {"name": token1, "timestamp": iso8601, "hostname": token1, "tests": xs_int,
           "failures": xs_int, "errors": xs_int, "time": xs_decimal}
    if aggregated:
        req.update({"package": any_string, "id": xs_int})
    c.attrs(el, req, {"skipped": xs_int})
    c.no_text(el)
    wr_sequence(c, el, [("properties", 1, 1), ("testcase", 0, None), ("system-out", 1, 1),
                        ("system-err", 1, 1)])
    for child in el:
        if child.tag == "properties":
            c.attrs(child, {}, {})
            c.no_text(child)
            c.children(child, {"property"})
            for p in child:
                if p.tag == "property":
                    c.attrs(p, {"name": token1, "value": any_string}, {})
                    c.no_text(p)
                    c.children(p, set())
        elif child.tag == "testcase":
            wr_testcase(c, child)
        elif child.tag in ("system-out", "system-err"):
            c.attrs(child, {}, {})
            c.text_only(child)


def windyroad(c, root):
    if root.tag == "testsuite":
        return wr_testsuite(c, root, False)
    if root.tag != "testsuites":
        return c.fault(root, "not a testsuites or testsuite root")
    c.attrs(root, {}, {})
    c.no_text(root)
    c.children(root, {"testsuite"})
    for child in root:
        if child.tag == "testsuite":
            wr_testsuite(c, child, True)


SCHEMAS = {"junit-10": junit10, "windyroad": windyroad}


def main(argv):
    if len(argv) not in (3, 7) or argv[1] not in SCHEMAS:
        print(__doc__, file=sys.stderr)
        return 2
    schema, path = argv[1], argv[2]
    c = Checker()
    try:
        SCHEMAS[schema](c, ET.parse(path).getroot())
    except ET.ParseError as e:
        c.faults.append("not well-formed XML: %s" % e)
    for f in c.faults[:50]:
        print("%s: %s: %s" % (path, schema, f))
    if len(c.faults) > 50:
        print("%s: %s: ... %d more" % (path, schema, len(c.faults) - 50))
    rc = 1 if c.faults else 0
    if len(argv) == 7:
        xsd, xmllint = argv[4], argv[6]
        if subprocess.call([xmllint, "--noout", "--schema", xsd, path]) != 0:
            rc = 1
    if rc == 0:
        print("%s: valid by the %s rules" % (path, schema))
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/bin/sh
# junit_identity.sh MEMGUARD GTEST_SAMPLE [CATCH2_LEAKS]: memguard's JUnit
# names each test as the framework's own XML of the same binary does
# (classname, name): GoogleTest's --gtest_output=xml ("Basic" + "Adds",
# "Small/Square" + "Works/0", "Typed/0" + "Works") and Catch2's --reporter
# junit ("catch2_leaks.global" + "step 0"), and CTest's --output-junit of a
# project made here ("beta/x" + "beta/x"). GoogleTest's own run leaves out
# the two tests that crash the program (Crash.Segv, After.Crash), which
# memguard runs too: its set is GoogleTest's and two more.
set -u
mg=$1
gt=$2
c2=${3:-}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# ids FILE: "classname<TAB>name" of every testcase, sorted
ids() {
	python3 - "$1" <<'PY' | LC_ALL=C sort
import sys, xml.etree.ElementTree as ET
for tc in ET.parse(sys.argv[1]).iter("testcase"):
    print(tc.get("classname") + "\t" + tc.get("name"))
PY
}
cd "$d" || exit 1
"$gt" --gtest_filter='-Crash.*:After.*' --gtest_output=xml:"$d/gtest.xml" >/dev/null 2>&1
[ -s gtest.xml ] || fail "no GoogleTest XML"
"$mg" run -q --adapter junit="$d/mg.xml" -- "$gt" >/dev/null 2>&1
[ $? -eq 1 ] || fail "memguard run of gtest_sample: not exit 1 (its failing tests)"
ids gtest.xml >gtest.ids
ids mg.xml >mg.ids
extra=$(LC_ALL=C comm -13 gtest.ids mg.ids)
missing=$(LC_ALL=C comm -23 gtest.ids mg.ids)
[ -z "$missing" ] || fail "GoogleTest's ids memguard lacks: $missing (memguard: $(head -5 mg.ids))"
[ "$extra" = "$(printf 'After\tCrash\nCrash\tSegv')" ] || fail "memguard's other ids: $extra"
grep -q "$(printf '^Small/Square\tWorks/0$')" mg.ids || fail "no Small/Square Works/0"
echo "ok: gtest: $(wc -l <gtest.ids) ids equal to GoogleTest's own XML"
# CTest's --output-junit: classname and name both the test's whole name
mkdir ct
cat >ct/CMakeLists.txt <<'EOF'
cmake_minimum_required(VERSION 3.21)
project(ids NONE)
enable_testing()
add_test(NAME alpha COMMAND true)
add_test(NAME beta/x COMMAND false)
add_test(NAME "Suite.with space" COMMAND true)
add_test(NAME skipped COMMAND sh -c "exit 77")
set_tests_properties(skipped PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME off COMMAND true)
set_tests_properties(off PROPERTIES DISABLED ON)
add_test(NAME needs COMMAND true)
set_tests_properties(needs PROPERTIES REQUIRED_FILES /nonexistent/mg-file)
add_test(NAME slow COMMAND sleep 3)
set_tests_properties(slow PROPERTIES TIMEOUT 1)
EOF
cmake -S ct -B ct/b >/dev/null 2>&1 || fail "configuring the CTest project"
(cd ct/b && ctest --output-junit "$d/ctest.xml" >/dev/null 2>&1)
[ -s ctest.xml ] || fail "no CTest JUnit XML"
(cd ct/b && "$mg" run -q --driver ctest --adapter junit="$d/mg3.xml" -- ctest >/dev/null 2>&1)
[ $? -eq 1 ] || fail "memguard run of the CTest project: not exit 1 (beta/x fails)"
ids ctest.xml >ct.ids
ids mg3.xml >mg3.ids
cmp -s ct.ids mg3.ids || fail "CTest's ids and memguard's differ: $(diff ct.ids mg3.ids | head -5)"
echo "ok: ctest: $(wc -l <ct.ids) ids equal to CTest's own JUnit XML"
# ctest's own --output-junit, which memguard writes in ctest's shape: its
# root a <testsuite>, each testcase's ids and status ctest's, valid under
# the project's junit.xsd (before: Catch2's shape, classname ctest.global,
# status "run" for a failure, a timestamp with a Z the schema refuses)
# the suite's name: DartConfiguration.tcl's last BuildName, as ctest
# cleans it (CRLF lines, spaces at its ends, \ : * ? " < > | dropped)
printf 'BuildName: first\r\nBuildName:  Linux<g++>:1 \r\n' >ct/b/DartConfiguration.tcl
(cd ct/b && ctest --output-junit "$d/ctest.xml" >/dev/null 2>&1)
(cd ct/b && "$mg" run -q -- ctest --output-junit "$d/mg4.xml" >/dev/null 2>&1)
[ $? -eq 1 ] || fail "memguard run -- ctest --output-junit: not exit 1"
python3 - "$d/ctest.xml" "$d/mg4.xml" <<'PY' || fail "ctest's --output-junit shape differs"
import sys, xml.etree.ElementTree as ET
def shape(path):
    root = ET.parse(path).getroot()
    cases = sorted((tc.get("classname"), tc.get("name"), tc.get("status"),
                    tuple(c.tag for c in tc)) for tc in root.iter("testcase"))
    counts = tuple(root.get(k) for k in ("tests", "failures", "disabled", "skipped"))
    return root.tag, root.get("name"), counts, cases
a, b = shape(sys.argv[1]), shape(sys.argv[2])
if a != b:
    print("ctest:    %s\nmemguard: %s" % (a, b), file=sys.stderr)
    sys.exit(1)
PY
xmllint --noout --schema "$(dirname "$0")/../../adapters/junit.xsd" mg4.xml 2>&1 ||
	fail "memguard's ctest --output-junit file fails adapters/junit.xsd"
echo "ok: ctest --output-junit: ctest's shape, statuses and counts"
# --stop-on-failure: ctest's file has only the tests that ran (alpha, and
# beta/x that failed); so has memguard's (before: the others too, notrun)
(cd ct/b && ctest --stop-on-failure --output-junit "$d/ctest.xml" >/dev/null 2>&1)
(cd ct/b && "$mg" run -q -j 1 -- ctest --stop-on-failure --output-junit "$d/mg5.xml" >/dev/null 2>&1)
[ $? -eq 1 ] || fail "memguard run -- ctest --stop-on-failure: not exit 1"
python3 - "$d/ctest.xml" "$d/mg5.xml" <<'PY' || fail "ctest's --stop-on-failure file differs"
import sys, xml.etree.ElementTree as ET
def shape(path):
    root = ET.parse(path).getroot()
    cases = [(tc.get("name"), tc.get("status")) for tc in root.iter("testcase")]
    return tuple(root.get(k) for k in ("tests", "failures", "skipped")), cases
a, b = shape(sys.argv[1]), shape(sys.argv[2])
if a != b or len(a[1]) != 2:
    print("ctest:    %s\nmemguard: %s" % (a, b), file=sys.stderr)
    sys.exit(1)
PY
echo "ok: ctest --stop-on-failure --output-junit: the tests that ran, as ctest's"
[ -n "$c2" ] || exit 0
"$c2" --reporter junit --out "$d/catch2.xml" >/dev/null 2>&1
[ -s catch2.xml ] || fail "no Catch2 XML"
"$mg" run -q --adapter junit="$d/mg2.xml" -- "$c2" >/dev/null 2>&1 || fail "memguard run of catch2_leaks"
ids catch2.xml >c2.ids
ids mg2.xml >mg2.ids
cmp -s c2.ids mg2.ids || fail "Catch2's ids and memguard's differ: $(diff c2.ids mg2.ids | head -5)"
echo "ok: catch2: $(wc -l <c2.ids) ids equal to Catch2's own JUnit XML"

#!/bin/sh
# junit_lazy.sh MEMGUARD HOST: libxml2 is loaded only by a run that writes
# XML (adapters/junit.c, xml_load): the runner followed with strace (the
# runner only, not its hosts) opens no libxml2 without JUnit output, and
# opens it once with --adapter junit=FILE, whose file is then well-formed
# XML with the run's tests (xmllint). A libxml2 that cannot be loaded (a
# file of junk first in LD_LIBRARY_PATH): exit 3 naming it, no XML file,
# the report written. Skipped (77) without strace or
# xmllint (ci/setup --test installs both). run__junit_lazy.
set -eu
mg=$1 host=$2
command -v xmllint >/dev/null 2>&1 || { echo "SKIP: no xmllint"; exit 77; }
. "$(dirname "$0")/lazy_lib.sh"

rc=0
strace -qq -o plain.trace -e trace=openat,open "$mg" run -q -j 1 -- "$host" >out 2>&1 || rc=$?
[ "$rc" = 0 ] || fail "memguard run exited $rc: $(tail -5 out)"
! grep -q 'libxml2' plain.trace || fail "a run without XML opened libxml2: $(grep libxml2 plain.trace)"

rc=0
strace -qq -o junit.trace -e trace=openat,open "$mg" run -q -j 1 --adapter junit=out.xml \
	-- "$host" >out 2>&1 || rc=$?
[ "$rc" = 0 ] || fail "memguard run --adapter junit exited $rc: $(tail -5 out)"
n=$(grep -c 'libxml2[.]so.* = [0-9]' junit.trace || true)
[ "$n" = 1 ] || fail "libxml2 opened $n times by a run writing JUnit: $(cat junit.trace)"
xmllint --noout out.xml || fail "out.xml is not well-formed"
t=$(grep -c '<testcase ' out.xml || true)
[ "$t" -gt 0 ] || fail "out.xml has no testcase: $(head -20 out.xml)"

mkdir bad
echo junk >bad/libxml2.so.2
rc=0
LD_LIBRARY_PATH="$d/bad" "$mg" run -q -j 1 --adapter junit=bad.xml --report bad.json \
	-- "$host" >out 2>&1 || rc=$?
[ "$rc" = 3 ] || fail "with no loadable libxml2: exit $rc, not 3: $(tail -5 out)"
grep -q 'cannot load libxml2' out || fail "the error does not name libxml2: $(cat out)"
[ ! -e bad.xml ] || fail "bad.xml was written"
[ -s bad.json ] || fail "no report with an unloadable libxml2"
echo "junit_lazy: ok ($t testcases)"

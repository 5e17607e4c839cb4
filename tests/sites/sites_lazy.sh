#!/bin/sh
# sites_lazy.sh MEMGUARD PLAIN_HOST SITES_HOST: libdw is loaded only by a
# run that symbolizes allocation sites (runner/sites.c, dw_load): the
# runner followed with strace (the runner only, not its hosts) opens no
# libdw for a run whose tests leave nothing, and opens it once for the
# sites host's leaks, whose frames then name their functions. A libdw that
# cannot be loaded (a file of junk first in LD_LIBRARY_PATH): the run's
# verdict as before (exit 1: its nomem test fails), a line naming libdw,
# the report written with the frames as module and offset. Skipped (77)
# without strace (ci/setup --test installs it). sites__lazy.
set -eu
mg=$1 plain=$2 sites=$3
. "$(dirname "$0")/../integration/lazy_lib.sh"
# the report's frames: "F" for each frame naming a function, "-" for each not
frames() {
	python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
def walk(x):
    if isinstance(x, dict):
        if "offset" in x and "module" in x:
            yield "F" if x.get("function") else "-"
        for v in x.values():
            yield from walk(v)
    elif isinstance(x, list):
        for v in x:
            yield from walk(v)
print("".join(sorted(walk(r))))' "$1"
}

rc=0
strace -qq -o plain.trace -e trace=openat,open "$mg" run -q -j 1 -- "$plain" >out 2>&1 || rc=$?
[ "$rc" = 0 ] || fail "memguard run exited $rc: $(tail -5 out)"
! grep -q 'libdw' plain.trace || fail "a run without sites opened libdw: $(grep libdw plain.trace)"

rc=0
strace -qq -o sites.trace -e trace=openat,open "$mg" run -q -j 1 --report sites.json \
	-- "$sites" >out 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "memguard run of the sites host exited $rc, not 1: $(tail -5 out)"
n=$(grep -c 'libdw[.]so.* = [0-9]' sites.trace || true)
[ "$n" = 1 ] || fail "libdw opened $n times by a run with sites: $(grep libdw sites.trace)"
f=$(frames sites.json)
case $f in F*) ;; *) fail "no frame names its function: '$f'" ;; esac

mkdir bad
echo junk >bad/libdw.so.1
rc=0
LD_LIBRARY_PATH="$d/bad" "$mg" run -q -j 1 --report bad.json -- "$sites" >out 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "with no loadable libdw: exit $rc, not 1 (the run's own): $(tail -5 out)"
grep -q 'cannot load libdw' out || fail "no line names libdw: $(cat out)"
[ "$(grep -c 'cannot load libdw' out)" = 1 ] || fail "said more than once: $(cat out)"
[ -s bad.json ] || fail "no report with an unloadable libdw"
b=$(frames bad.json)
[ -n "$b" ] || fail "no frames in the report with an unloadable libdw"
case $b in *F*) fail "a frame named a function without libdw: '$b'" ;; esac
echo "sites_lazy: ok (${#f} frames)"

#!/bin/sh
# tool_check_test.sh TOOL_CHECK DRIVER CASE_DIR - tool_check.sh skips (77)
# with the reason when a tool is missing, and fails (1) when the tool finds a
# fault: a validator can be absent, but never quietly pass.
set -u
check=$1 driver=$2 case=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

expect() { # expect RC REASON_OR_EMPTY -- ARGS...
	want=$1 reason=$2
	shift 3
	sh "$check" "$@" >"$tmp/out" 2>&1
	rc=$?
	if [ "$rc" != "$want" ]; then
		echo "FAIL: tool_check.sh $* exited $rc, not $want:"; cat "$tmp/out"; fail=1
	elif [ -n "$reason" ] && ! grep -q "$reason" "$tmp/out"; then
		echo "FAIL: tool_check.sh $* did not say '$reason':"; cat "$tmp/out"; fail=1
	fi
}

expect 77 "SKIP: /nonexistent/xmllint not found" -- xsd /nonexistent/xmllint "$driver" "$case" "$tmp/x" /dev/null
expect 77 "SKIP: /nonexistent/promtool not found" -- promtool /nonexistent/promtool "$driver" "$case" "$tmp/p"
expect 77 "SKIP: /nonexistent/python3 not found" -- schema /nonexistent/python3 x.py "$driver" s.json
expect 77 "has no jsonschema module" -- schema false x.py "$driver" s.json
expect 1 "" -- xsd false "$driver" "$case" "$tmp/x" /dev/null
expect 1 "" -- promtool false "$driver" "$case" "$tmp/p"
[ $fail = 0 ] && echo "ok: missing tools skip with a reason, failing tools fail"
exit $fail

#!/bin/sh
# cli.sh MEMGUARD FAULT_HOST CASE: the command line as a new user meets it.
#   help             'memguard help V' prints what 'memguard V --help' does, for
#                    every command; one spelling, "usage:", everywhere
#   config_missing   a missing config file: one clean line, exit 2 (no ":-1")
#   adapter_unwritable  a failing run whose adapter file cannot be written:
#                    exit 3 (infrastructure), the message on stderr, the table
#                    still on stdout
set -u
mg=$1 host=$2 case=$3
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

case $case in
help)
	"$mg" help >"$d/top" || fail "memguard help exited $?"
	for v in run list bisect report merge note show compare log notes-merge version; do
		"$mg" help "$v" >"$d/h" 2>&1 || fail "memguard help $v exited $?"
		head -n 1 "$d/h" | grep -q "^usage: memguard " || fail "help $v: $(head -n 1 "$d/h")"
		grep -q "memguard $v" "$d/h" || fail "help $v does not name $v"
		cmp -s "$d/h" "$d/top" && fail "help $v prints the top-level help"
		if [ "$v" != version ]; then
			"$mg" "$v" --help >"$d/h2" 2>&1
			cmp -s "$d/h" "$d/h2" || fail "help $v differs from $v --help"
		fi
		grep -q "Usage:" "$d/h" && fail "help $v spells 'Usage:'"
	done
	grep -q "Usage:" "$d/top" && fail "top-level help spells 'Usage:'"
	rc=0
	"$mg" help bogus >/dev/null 2>"$d/err" || rc=$?
	[ $rc = 2 ] || fail "help bogus exited $rc, not 2"
	echo "ok: memguard help V for every command"
	;;
config_missing)
	rc=0
	"$mg" run --config "$d/none.json" -- "$host" >"$d/out" 2>"$d/err" || rc=$?
	[ $rc = 2 ] || fail "exit $rc, not 2"
	want="memguard run: config $d/none.json: No such file or directory"
	[ "$(cat "$d/err")" = "$want" ] || fail "stderr: '$(cat "$d/err")', not '$want'"
	echo "ok: $want"
	;;
adapter_unwritable)
	rc=0
	MG_FAULT=fail@2 "$mg" run --adapter "junit=$d/no/such/dir/j.xml" -- "$host" \
		>"$d/out" 2>"$d/err" || rc=$?
	[ $rc = 3 ] || { cat "$d/err" >&2; fail "exit $rc, not 3"; }
	grep -q "^memguard run: adapter junit=$d/no/such/dir/j.xml: " "$d/err" ||
		{ cat "$d/err" >&2; fail "no message naming the adapter"; }
	grep -q "fault/t002" "$d/out" || fail "the job log lost the failing test"
	echo "ok: exit 3: $(cat "$d/err")"
	;;
*) fail "unknown case $case" ;;
esac

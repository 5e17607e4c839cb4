#!/bin/sh
# cli.sh MEMGUARD FAULT_HOST CASE: the command line as a new user meets it.
#   help             'memguard help V' prints what 'memguard V --help' does, for
#                    every command; one spelling, "usage:", everywhere
#   config_missing   a missing config file: one clean line, exit 2 (no ":-1")
#   adapter_unwritable  an adapter file in a directory that is not there:
#                    refused before the suite runs (before: after it), exit 3
#                    (infrastructure), the message naming the adapter and the
#                    directory on stderr; so is a --report path
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
	grep -q "^memguard run: adapter junit=$d/no/such/dir/j.xml: .*its directory $d/no/such/dir: No such file or directory" "$d/err" ||
		{ cat "$d/err" >&2; fail "no message naming the adapter and its directory"; }
	grep -q "fault/t00" "$d/out" && fail "the suite ran for an adapter it could not write"
	echo "ok: exit 3: $(cat "$d/err")"
	rc=0
	"$mg" run --report "$d/no/r.json" -- sh -c "touch '$d/ran'" >"$d/out" 2>"$d/err" || rc=$?
	[ $rc = 3 ] || { cat "$d/err" >&2; fail "--report: exit $rc, not 3"; }
	grep -q "its directory $d/no: No such file or directory: not written" "$d/err" ||
		{ cat "$d/err" >&2; fail "--report: no message naming its directory"; }
	[ -e "$d/ran" ] && fail "--report: the suite ran for a report it could not write"
	echo "ok: exit 3: $(cat "$d/err")"
	# what the check lets through: stdout (-), and gitlab's folder to make,
	# named with its trailing slash
	rc=0
	(cd "$d" && "$mg" run -q --adapter junit=- --adapter "gitlab=gl/" -- "$host") \
		>"$d/out" 2>"$d/err" || rc=$?
	[ $rc = 0 ] || { cat "$d/err" >&2; fail "junit=- gitlab=gl/: exit $rc, not 0"; }
	grep -q "<testsuites" "$d/out" || fail "junit=-: no JUnit on stdout"
	[ -f "$d/gl/junit.xml" ] || fail "gitlab=gl/: no gl/junit.xml"
	echo "ok: junit=- and gitlab=gl/ written"
	# github=-: its summary on stdout (the help's "PATH - is stdout"), no
	# file named -; gitlab=-: refused before the run, a folder is no stream
	rc=0
	(cd "$d" && GITHUB_STEP_SUMMARY= "$mg" run -q --adapter github=- -- "$host") \
		>"$d/out" 2>"$d/err" || rc=$?
	[ $rc = 0 ] || { cat "$d/err" >&2; fail "github=-: exit $rc, not 0"; }
	grep -q "^### memguard: node 1 of 1" "$d/out" || fail "github=-: no summary on stdout"
	[ -e "$d/-" ] && fail "github=-: wrote a file named -"
	rc=0
	(cd "$d" && "$mg" run -q --adapter gitlab=- -- sh -c "touch '$d/ran'") \
		>"$d/out" 2>"$d/err" || rc=$?
	[ $rc = 2 ] || { cat "$d/err" >&2; fail "gitlab=-: exit $rc, not 2"; }
	grep -q "adapter 'gitlab' writes a folder" "$d/err" ||
		{ cat "$d/err" >&2; fail "gitlab=-: no message naming the adapter"; }
	[ -e "$d/-" ] && fail "gitlab=-: made a folder named -"
	[ -e "$d/ran" ] && fail "gitlab=-: the suite ran"
	echo "ok: github=- on stdout; gitlab=- refused: $(cat "$d/err")"
	;;
*) fail "unknown case $case" ;;
esac

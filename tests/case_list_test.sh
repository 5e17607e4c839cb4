#!/bin/sh
# case_list_test.sh CMAKE CASE_LIST_CMAKE PROGRAM - case_list.cmake passes on
# PROGRAM's own list and fails, naming the case, when CMake's list lacks one,
# has one the program does not, or has one twice.
set -u
cmake=$1 script=$2 program=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
all=$("$program" --cases | tr '\n' ' ') || exit 1
first=${all%% *}
rest=${all#* }

check() { # check WANT(pass|fail) WHAT CASES
	"$cmake" -DPROGRAM="$program" -DCASES="$3" -P "$script" >"$tmp/out" 2>&1
	rc=$?
	if [ "$1" = pass ] && [ $rc != 0 ]; then
		echo "FAIL: the program's own list does not pass:"; cat "$tmp/out"; fail=1
	elif [ "$1" = fail ] && { [ $rc = 0 ] || ! grep -q "$2" "$tmp/out"; }; then
		echo "FAIL: expected a failure naming \"$2\" (exit $rc):"; cat "$tmp/out"; fail=1
	fi
}

check pass "" "$all"
check fail "'$first' is in the program's table but not registered" "$rest"
check fail "'no_such_case' is registered in CMake but not in the program's table" "$all no_such_case"
check fail "'$first' is listed twice" "$all $first"
[ $fail = 0 ] && echo "ok: a case missing from either list fails"
exit $fail

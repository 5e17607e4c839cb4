#!/bin/sh
# golden_strict.sh GOLDEN CASE_DIR - the golden driver cannot be fooled by a
# case folder: with an expected file deleted, or one named for no adapter,
# it fails and names the file; the untouched copy passes (the control).
set -u
golden=$1 case=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

copy() { rm -rf "$tmp/case" && cp -R "$case" "$tmp/case"; }

copy
if ! "$golden" "$tmp/case" >"$tmp/out" 2>&1; then
	echo "FAIL: the untouched copy of $case does not pass:"; cat "$tmp/out"; fail=1
fi

copy
rm "$tmp/case/expected.junit"
if "$golden" "$tmp/case" >"$tmp/out" 2>&1; then
	echo "FAIL: a case without expected.junit passed"; fail=1
elif ! grep -q 'expected.junit: missing' "$tmp/out"; then
	echo "FAIL: the missing expected.junit is not named:"; cat "$tmp/out"; fail=1
fi

copy
cp "$tmp/case/expected.console" "$tmp/case/expected.consol"
if "$golden" "$tmp/case" >"$tmp/out" 2>&1; then
	echo "FAIL: a case with expected.consol (no such adapter) passed"; fail=1
elif ! grep -q "no adapter named 'consol'" "$tmp/out"; then
	echo "FAIL: the stray expected.consol is not named:"; cat "$tmp/out"; fail=1
fi

[ $fail = 0 ] && echo "ok: missing and stray expected files fail the case"
exit $fail

#!/bin/sh
# gtest_pipe_reads.sh MEMGUARD GTEST_BENCH: the gtest shim reads the probe's
# pipe only for a test whose allocation sites went there. The probe's end
# line in the stream says so (SITES, runner/probe/README.md); the shim used
# to try the pipe at every test's end and got EAGAIN, a system call a test.
# 2,000 tests (none leaves sites) followed with strace -ff: the shim
# (memguard-driver running the tests) has fewer than 100 reads that found
# nothing; it had one a test. Not a timed test: a count of system calls.
# Skipped (77) without strace (ci/setup --test installs it).
set -u
mg=$1
prog=$2
command -v strace >/dev/null 2>&1 || { echo "SKIP: no strace"; exit 77; }
dir=$(mktemp -d /tmp/mg-pipereads-XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$dir" || exit 1
# LeakSanitizer cannot run under ptrace (an ASan build of memguard would
# exit 1 with its fatal error): the leak check is every other test's
ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0"
export ASAN_OPTIONS
MG_BENCH_TESTS=2000 strace -ff -qq -o "$dir/t" "$mg" run -q -j 1 --driver gtest -- "$prog" \
	>"$dir/out" 2>&1
rc=$?
[ "$rc" -eq 0 ] || fail "memguard run exited $rc: $(tail -5 "$dir/out")"
grep -q '2000 *2000 *0 *0' "$dir/out" || fail "not 2000 passed: $(cat "$dir/out")"
# the shim that ran the tests: a memguard-driver whose program was not
# started to list (the most system calls of them)
shim= most=0
for f in "$dir"/t.*; do
	grep -m1 '^execve(' "$f" | grep -q 'memguard-driver' || continue
	n=$(wc -l <"$f")
	[ "$n" -gt "$most" ] && most=$n shim=$f
done
[ -n "$shim" ] || fail "no memguard-driver process traced"
empty=$(grep -c 'EAGAIN' "$shim")
echo "shim: $most system calls, $empty reads that found nothing, for 2000 tests"
[ "$empty" -lt 100 ] || fail "the shim read an empty pipe $empty times for 2000 tests"

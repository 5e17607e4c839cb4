#!/bin/sh
# spawn_vfork.sh MEMGUARD GTEST_BENCH: the runner starts its hosts with
# vfork, not fork (runner/spawn.c): a fork copies the parent's page tables.
# memguard run --driver gtest (a listing host and a lane's host) followed
# with strace -f: the runner creates processes only by vfork (clone with
# CLONE_VM|CLONE_VFORK), one a host. A shim starts the program whose tests
# it runs with a fork (SPAWN_FORK, its spawner: the program's ru_maxrss is
# a figure there, and a vfork'd child's would be all of the shim's peak
# RSS): a lane's shim forks (its spawner) and never vforks; the spawner,
# small, starts each test program by a clone with CLONE_VM|CLONE_VFORK
# (its memory until the exec, whose ru_maxrss counts the spawner's peak as
# a fork's copy of it would: no address space built and torn down); the listing
# host's shim vforks its listing (no test's figures: the child execs the
# program with --gtest_list_tests) and forks nothing (it starts no
# spawner). A static shim (no PT_INTERP: memguard-driver linked -static)
# is its own spawner, a fork that execs nothing; a dynamic one (a
# sanitized build) execs memguard-spawner in it, once a lane's host.
# --contain none: the PID namespace's init is forked (once a run,
# not a spawn) and namespaced pids would not match strace's.
# Skipped (77) without strace (ci/setup --test installs it).
set -u
mg=$1
prog=$2
command -v strace >/dev/null 2>&1 || { echo "SKIP: no strace"; exit 77; }
dir=$(mktemp -d /tmp/mg-vfork-XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$dir" || exit 1
# LeakSanitizer cannot run under ptrace (an ASan build of memguard would
# exit 1 with its fatal error): the leak check is every other test's
ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0"
export ASAN_OPTIONS
MG_BENCH_TESTS=50 strace -f -qq -o "$dir/t" -e trace=execve,fork,vfork,clone,clone3 \
	"$mg" run -q -j 1 --contain none --driver gtest -- "$prog" >"$dir/out" 2>&1
rc=$?
[ "$rc" -eq 0 ] || fail "memguard run exited $rc: $(tail -5 "$dir/out")"
grep -q '50 *50 *0 *0' "$dir/out" || fail "not 50 passed: $(cat "$dir/out")"
runner=$(awk 'NR == 1 { print $1 }' "$dir/t")
shims=$(awk '/execve\(".*memguard-driver"/ && !/= -1/ { print $1 }' "$dir/t")
[ -n "$shims" ] || fail "no memguard-driver process traced"
v=$(awk -v p="$runner" '$1 == p && / vfork\(/' "$dir/t" | wc -l)
# (a thread is no process: the commit's identity is read in one, run.c)
other=$(awk -v p="$runner" '$1 == p && /(^| )(fork|clone|clone3)\(/ && !/CLONE_THREAD/' "$dir/t")
echo "runner $runner: $v vfork"
[ "$v" -ge 2 ] || fail "the runner started $v hosts by vfork: $(grep "^$runner " "$dir/t")"
[ -z "$other" ] || fail "the runner created a process another way: $other"
listings=0
for p in $shims; do
	v=$(awk -v p="$p" '$1 == p && / vfork\(/' "$dir/t" | wc -l)
	f=$(awk -v p="$p" '$1 == p && /(^| )(fork|clone)\(/' "$dir/t" | wc -l)
	echo "shim $p: $f fork, $v vfork"
	{ [ "$v" -eq 0 ] && [ "$f" -ge 1 ]; } || { [ "$v" -eq 1 ] && [ "$f" -eq 0 ]; } ||
		fail "shim $p: $f forks, $v vforks"
	# the children of its vforks: "vfork() = C" or "<... vfork resumed>) = C"
	for c in $(awk -v p="$p" '$1 == p && /vfork/ && /= [0-9]+$/ { print $NF }' "$dir/t"); do
		e=$(awk -v c="$c" '$1 == c && /execve\(/ && !/= -1/' "$dir/t")
		echo "$e" | grep -q -- '--gtest_list_tests' ||
			fail "shim $p vforked $c, which is no listing: $e"
		listings=$((listings + 1))
	done
done
[ "$listings" -eq 1 ] || fail "$listings listings by vfork, not 1"
# the spawner's exec: none from a static shim, one a lane's host otherwise
# (an exec whose result strace printed on a line of its own is counted by
# its first half, which names the file)
drv=$(dirname "$mg")/memguard-driver
spawners=$(grep -c 'execve("[^"]*memguard-spawner"' "$dir/t")
if LC_ALL=C readelf -l "$drv" | grep -q 'INTERP'; then
	want=$(($(echo "$shims" | wc -w) - 1))
else
	want=0
fi
echo "memguard-spawner execs: $spawners (want $want)"
[ "$spawners" -eq "$want" ] || fail "$spawners execs of memguard-spawner, not $want"
# each program that runs tests: cloned by a spawner (no shim) sharing its
# memory until its exec. The flags are on the clone's first line ("clone(
# ... <unfinished ...>" when its end, "= PID", came on a line of its own).
progs=$(awk -v p="\"$prog\"" '/execve\(/ && index($0, p) && !/--gtest_list_tests/ && !/= -1/ { print $1 }' "$dir/t")
[ -n "$progs" ] || fail "no test program's exec traced"
for c in $progs; do
	made=$(awk -v c="$c" '/(^| )(clone|clone3|fork|vfork)\(/ { last[$1] = $0 }
		/(clone|fork).* = [0-9]+$/ && $NF == c { print last[$1]; exit }' "$dir/t")
	by=${made%% *}
	echo "program $c: $made"
	case " $shims $runner " in *" $by "*) fail "program $c made by $by, a shim or the runner, not a spawner" ;; esac
	case $made in *CLONE_VM*CLONE_VFORK*) ;; *) fail "program $c not cloned with CLONE_VM|CLONE_VFORK: $made" ;; esac
done

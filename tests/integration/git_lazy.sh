#!/bin/sh
# git_lazy.sh MEMGUARD HOST: libgit2 is loaded when ci/ first needs it
# (ci/git_lazy.c), not linked: memguard starts without it (strace: no
# libgit2 opened by `memguard --version`), a run in a repository loads it
# once and records the commit, and a libgit2 that cannot be loaded (a file
# of junk first in LD_LIBRARY_PATH) costs a run nothing but its commit (the
# run's own exit, the report written, its commit's note naming libgit2) and
# is a git command's infrastructure error (`memguard show`: exit 3 naming
# libgit2). Skipped (77) without strace (ci/setup --test installs it).
# run__git_lazy.
set -eu
mg=$1 host=$2
. "$(dirname "$0")/lazy_lib.sh"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
git init -q -b main repo
cd repo
git -c user.email=t@example.invalid -c user.name=t commit -q --allow-empty -m c
sha=$(git rev-parse HEAD)

strace -f -qq -o "$d/version.trace" -e trace=openat,open "$mg" --version >/dev/null
! grep -q 'libgit2' "$d/version.trace" || fail "memguard --version opened libgit2"

# -ff, a file a process: with -f one file interleaves the runner's
# threads, and an open split into "<unfinished ...>" and its "resumed"
# half has its path and its result on two lines.
rc=0
strace -ff -qq -o "$d/run.trace" -e trace=openat,open "$mg" run -q -j 1 --report "$d/r.json" \
	-- "$host" >"$d/out" 2>&1 || rc=$?
[ "$rc" = 0 ] || fail "memguard run exited $rc: $(tail -5 "$d/out")"
n=$(cat "$d"/run.trace.* | grep -c 'libgit2[.]so.* = [0-9]' || true)
[ "$n" = 1 ] || fail "libgit2 opened $n times by a run: $(cat "$d"/run.trace.* | grep libgit2)"
grep -q "\"sha\": *\"$sha\"" "$d/r.json" || fail "the report does not name HEAD $sha"

mkdir "$d/bad"
for so in $(ldconfig -p | awk '/libgit2[.]so[.]/{print $1}'); do echo junk >"$d/bad/$so"; done
rc=0
LD_LIBRARY_PATH="$d/bad" "$mg" run -q -j 1 --report "$d/bad.json" -- "$host" >"$d/out" 2>&1 ||
	rc=$?
[ "$rc" = 0 ] || fail "with no loadable libgit2 the run exited $rc, not its own 0: $(tail -5 "$d/out")"
[ -s "$d/bad.json" ] || fail "no report with an unloadable libgit2"
grep -q '"note": *"cannot load libgit2' "$d/bad.json" ||
	fail "the report's commit note does not name libgit2: $(grep -o '"commit"[^}]*' "$d/bad.json")"
! grep -q "\"sha\": *\"$sha\"" "$d/bad.json" || fail "a sha without libgit2"
rc=0
LD_LIBRARY_PATH="$d/bad" "$mg" show >"$d/out" 2>&1 || rc=$?
[ "$rc" = 3 ] || fail "memguard show with no loadable libgit2: exit $rc, not 3: $(cat "$d/out")"
grep -q 'cannot load libgit2' "$d/out" || fail "show does not name libgit2: $(cat "$d/out")"
echo "git_lazy: ok"

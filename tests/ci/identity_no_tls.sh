#!/bin/sh
# identity_no_tls.sh MEMGUARD HOST: `memguard run` in a git repository
# records the commit (sha, branch, dirty) through libgit2 without reading a
# CA bundle (ci/tls_off.c): libgit2's init used to parse every certificate of
# /etc/ssl/certs/ca-certificates.crt (56 M instructions a run) for a tool
# that opens no connection. Followed with strace -f: no file under
# /etc/ssl and no .crt or .pem is opened, and the report names HEAD.
# Skipped (77) without strace (ci/setup --test installs it).
set -u
mg=$1
host=$2
command -v strace >/dev/null 2>&1 || { echo "SKIP: no strace"; exit 77; }
dir=$(mktemp -d /tmp/mg-notls-XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
git init -q -b main "$dir/repo" && cd "$dir/repo" || exit 1
git -c user.email=t@example.invalid -c user.name=t commit -q --allow-empty -m c || fail "commit"
# LeakSanitizer cannot run under ptrace (an ASan build of memguard would
# exit 1 with its fatal error): the leak check is every other test's
ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0"
export ASAN_OPTIONS
MG_BENCH_TESTS=20 strace -f -qq -e trace=open,openat -o "$dir/trace" \
	"$mg" run -q -j 1 --report "$dir/r.json" -- "$host" >/dev/null
rc=$?
[ "$rc" -eq 0 ] || fail "memguard run exited $rc"
grep -q 'bench_host' "$dir/trace" || fail "strace saw no host start: $(head -3 "$dir/trace")"
opened=$(grep -E '"/etc/ssl/|\.(crt|pem)"' "$dir/trace")
[ -z "$opened" ] || fail "a CA bundle was read: $opened"
sha=$(git rev-parse HEAD)
grep -q "\"sha\": *\"$sha\"" "$dir/r.json" || fail "the report does not name HEAD $sha"
grep -q '"branch": *"main"' "$dir/r.json" || fail "the report does not name branch main"
echo "PASS: commit $sha recorded, no CA bundle opened"

#!/bin/sh
# identity.sh MEMGUARD HOST: `memguard run` in a git repository records the
# commit it ran on (sha, branch, dirty) in its report, read while the tests
# run (run.c, identity_start); also in the report of a run whose listing
# failed, and a tracked file changed makes it dirty (an untracked one does
# not). run__identity.
set -eu
mg=$1 host=$2
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
cd "$d"
unset GITHUB_HEAD_REF GITHUB_REF_NAME CI_COMMIT_REF_NAME BUILD_SOURCEBRANCHNAME \
	BUILDKITE_BRANCH BRANCH_NAME || true
git init -q -b trunk .
echo one >tracked.txt
git add tracked.txt
git -c user.email=t@example.invalid -c user.name=t commit -q -m one
sha=$(git rev-parse HEAD)

run() { # expected-exit report args...
	want=$1 rep=$2
	shift 2
	rc=0
	"$mg" run -q --report "$rep" "$@" >"$d/log" 2>"$d/err" || rc=$?
	if [ "$rc" != "$want" ]; then
		echo "FAIL: memguard run $* exited $rc, not $want" >&2
		cat "$d/log" "$d/err" >&2
		exit 1
	fi
}
commit() { # report: "sha branch dirty"
	python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))["commit"]
print(c.get("sha"), c.get("branch"), str(c.get("dirty")).lower())' "$1"
}
expect() { # report want
	got=$(commit "$1")
	[ "$got" = "$2" ] || { echo "FAIL: $1's commit is '$got', not '$2'" >&2; exit 1; }
}

echo untracked >new.txt
run 0 clean.json -j 2 -- "$host"
expect clean.json "$sha trunk false"

echo two >tracked.txt
run 0 dirty.json -j 2 -- "$host"
expect dirty.json "$sha trunk true"

# the listing fails (not a memguard host): exit 3, the commit all the same
run 3 nohost.json --driver native -- /bin/true
expect nohost.json "$sha trunk true"
echo "identity: ok"

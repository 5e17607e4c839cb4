#!/bin/sh
# job_log.sh MEMGUARD FAULT_HOST CI: a failing run with --adapter auto under
# CI's environment (github, gitlab, jenkins) prints the per-shard table and
# the failing tests on stdout, the job log; with every test failing the list
# is bounded (20, then "... and N more"); -q leaves stdout to the adapters.
set -eu
mg=$1 host=$2 ci=$3
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
cd "$d"
unset GITHUB_ACTIONS GITLAB_CI TF_BUILD TEAMCITY_VERSION BUILDKITE JENKINS_URL CIRCLECI \
	GITHUB_STEP_SUMMARY GITHUB_OUTPUT CI_NODE_INDEX CI_NODE_TOTAL || true
case $ci in
github) export GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY="$d/summary.md" GITHUB_OUTPUT="$d/out" ;;
gitlab) export GITLAB_CI=true ;;
jenkins) export JENKINS_URL=http://jenkins.invalid/ ;;
*) echo "job_log.sh: unknown CI '$ci'" >&2; exit 2 ;;
esac

run() { # expected-exit args...: stdout into $d/log
	want=$1
	shift
	rc=0
	"$mg" run "$@" -- "$host" >"$d/log" 2>"$d/err" || rc=$?
	if [ "$rc" != "$want" ]; then
		echo "FAIL: memguard run $* exited $rc, not $want" >&2
		cat "$d/log" "$d/err" >&2
		exit 1
	fi
}
has() {
	grep -q -- "$1" "$d/log" || { echo "FAIL ($ci): job log lacks '$1':" >&2; cat "$d/log" >&2; exit 1; }
}

# one lane: which of two lanes gets the tests depends on the load (no total row with one shard)
MG_FAULT=fail@2 run 1 -j 1 --adapter auto
has '^shard arch tests passed failed'
has '^0  *x64  *40  *39  *1 '
has '^not passing:'
has '^  fail  *fault/t002: planted failure$'

# every test failing: 20 listed, the rest counted
MG_FAULT='fail@*' run 1 --adapter auto
has '^  \.\.\. and 20 more$'
[ "$(grep -c '^  fail  *fault/t' "$d/log")" = 20 ] || { echo "FAIL: not 20 tests listed" >&2; cat "$d/log" >&2; exit 1; }

# an explicit adapter writing elsewhere keeps the table too
MG_FAULT=fail@2 run 1 --adapter "junit=$d/j.xml"
has '^  fail  *fault/t002'

# -q: no table when adapters are given
MG_FAULT=fail@2 run 1 -q --adapter "junit=$d/j.xml"
if grep -q '^shard arch' "$d/log"; then
	echo "FAIL: -q still printed the table" >&2
	exit 1
fi
# console given explicitly: the table once, not twice
MG_FAULT=fail@2 run 1 --adapter console
[ "$(grep -c '^shard arch' "$d/log")" = 1 ] || { echo "FAIL: table not printed once" >&2; cat "$d/log" >&2; exit 1; }
echo "ok: $ci job log holds the table and the failing tests"

#!/bin/sh
# compare.sh REPORT OUT.md: the pull request's report against its base
# ($MG_BASE, e.g. origin/main; the notes fetched from origin, the report
# noted locally, never pushed) with the gate $MG_MAX_GROWTH, as Markdown in
# OUT.md and the job summary; the step's output rc is compare's exit code
# (0 within the gate, 1 no baseline, 4 a regression: the gate step fails on
# 4). Other codes (2, 3) fail this step.
set -u
report=$1
out=$2
git fetch -q origin '+refs/notes/memguard:refs/notes/memguard' 2>/dev/null ||
	echo "memguard: no notes on origin yet"
memguard note "$report" >/dev/null || exit $?
memguard compare --max-growth "${MG_MAX_GROWTH:-va=5%,rss=10%,test=8M}" --format markdown \
	"$MG_BASE" HEAD >"$out"
rc=$?
[ -z "${GITHUB_STEP_SUMMARY:-}" ] || cat "$out" >>"$GITHUB_STEP_SUMMARY"
echo "rc=$rc" >>"${GITHUB_OUTPUT:-/dev/null}"
case $rc in
0 | 4) exit 0 ;;
1)
	echo "::warning::memguard: no baseline on $MG_BASE to compare with"
	exit 0
	;;
*) exit $rc ;;
esac

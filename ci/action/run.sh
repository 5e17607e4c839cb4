#!/bin/sh
# run.sh: memguard run of $MG_COMMAND (a shell word list) with the action's
# limits ($MG_RECYCLE_AT, $MG_KILL_AT), adapters ($MG_ADAPTERS), history
# ($MG_HISTORY: none, the default; auto fetches origin's notes and plans
# from the nearest noted ancestor's report; or a report file) and options
# ($MG_ARGS); the report in mem.json; the exit code as the step's output
# rc (the gate step exits with it, after the report is published).
set -u
[ -n "${MG_COMMAND:-}" ] || { echo "::error::memguard action: 'command' is empty"; exit 2; }
set --
for a in ${MG_ADAPTERS:-auto}; do set -- "$@" --adapter "$a"; done
[ -z "${MG_RECYCLE_AT:-}" ] || set -- "$@" --recycle-at "$MG_RECYCLE_AT"
[ -z "${MG_KILL_AT:-}" ] || set -- "$@" --kill-at "$MG_KILL_AT"
case ${MG_HISTORY:-none} in
'' | none) ;;
auto)
	# the notes this run plans from (none yet: the run says so and plans
	# without): compare.sh and notes.sh fetch them again, as they were
	git fetch -q origin '+refs/notes/memguard:refs/notes/memguard' 2>/dev/null || true
	set -- "$@" --history auto
	;;
*) set -- "$@" --history "$MG_HISTORY" ;;
esac
# the options and the command: word-split as a shell command line would be
eval "set -- \"\$@\" ${MG_ARGS:-} --report mem.json -- $MG_COMMAND"
memguard run "$@"
rc=$?
echo "rc=$rc" >>"${GITHUB_OUTPUT:-/dev/null}"
exit 0

#!/bin/sh
# A host (protocol v1) that, in the first host only (a marker file in the
# working directory), starts its first test, closes its reply pipe and keeps
# running (run__closed_reply_pipe).
echo "hello 1 x64 $$ 1000 1000" >&4
while read -r cmd name <&3; do
	case $cmd in
	list) printf 'test a/t0\ntest a/t1\ntest a/t2\nend 3\n' >&4 ;;
	run)
		printf 'start %s\n' "$name" >&4
		if [ -n "$MARK" ] && [ ! -e "$MARK" ]; then
			: > "$MARK"
			exec 4>&-
			sleep 60
		fi
		printf 'pass 10 1000 1000\n' >&4 ;;
	quit) echo 'bye 1000 1000' >&4; exit 0 ;;
	esac
done

#!/bin/sh
# A protocol host in sh that says version MG_HELLO (4 unless set) and logs
# every command it is sent to MG_CMD_LOG: which form of expect the runner
# sends a host of each version (known__runner_forms). Three tests, each
# rising 200 MB above its start (peak) and keeping nothing. As a version 3
# host library does, it refuses an expect with more than two figures
# (exit 3, a command outside its grammar).
v=${MG_HELLO:-4}
echo "hello $v x64 $$ 100000000 1000" >&4
while read -r cmd rest <&3; do
	printf '%s %s\n' "$cmd" "$rest" >>"$MG_CMD_LOG"
	case $cmd in
	list) printf 'test a/t0\ntest a/t1\ntest a/t2\nend 3\n' >&4 ;;
	expect)
		set -- $rest
		if [ $# -ne 2 ] && [ "$v" -lt 4 ]; then
			echo "memguard host: not a protocol command: 'expect $rest'" >&2
			exit 3
		fi
		;;
	run) printf 'start %s\npeak 300000000\npass 2000 100000000 1000\n' "$rest" >&4 ;;
	quit)
		echo "bye 300000000 1000" >&4
		exit 0
		;;
	esac
done

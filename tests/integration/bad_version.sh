#!/bin/sh
# A host greeting in protocol version 9, which no memguard speaks: refused
# at listing (run__unknown_hello_version). With LATE set, version 1 while
# listing (a marker file in the working directory) and 9 in the lanes.
v=9
[ -n "$LATE" ] && [ ! -e listed ] && v=1
echo "hello $v x64 $$ 1000 1000" >&4
while read -r cmd name <&3; do
	case $cmd in
	list) : > listed; printf 'test a/t0\nend 1\n' >&4 ;;
	run) printf 'start %s\npass 10 1000 1000\n' "$name" >&4 ;;
	quit) echo 'bye 1000 1000' >&4; exit 0 ;;
	esac
done

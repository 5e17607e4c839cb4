#!/bin/sh
# A host (protocol v1) that answers each run line with two results: a
# protocol break between tests (run__protocol_break_between_tests).
echo "hello 1 x64 $$ 1000 1000" >&4
while read -r cmd name <&3; do
	case $cmd in
	list) printf 'test a/t0\ntest a/t1\ntest a/t2\nend 3\n' >&4 ;;
	run) printf 'start %s\npass 10 1000 1000\npass 10 1000 1000\n' "$name" >&4 ;;
	quit) exit 0 ;;
	esac
done

#!/bin/sh
# A host (protocol v1, unmarked output) that prints between its tests and
# after its last one, when no test is in flight (run__v1_output_between).
echo "hello 1 x64 $$ 1000 1000" >&4
while read -r cmd name <&3; do
	case $cmd in
	list) printf 'test a/t0\ntest a/t1\nend 2\n' >&4 ;;
	run) echo "inside $name"
		printf 'start %s\npass 10 1000 1000\n' "$name" >&4 ;;
	quit) echo "farewell text"
		exit 0 ;;
	esac
done

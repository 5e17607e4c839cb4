#!/bin/sh
# A host (protocol v1) listing a/t1 twice: refused at listing
# (run__duplicate_names).
echo "hello 1 x64 $$ 1000 1000" >&4
while read -r cmd name <&3; do
	case $cmd in
	list) printf 'test a/t0\ntest a/t1\ntest a/t2\ntest a/t1\nend 4\n' >&4 ;;
	run) printf 'start %s\npass 10 1000 1000\n' "$name" >&4 ;;
	quit) echo 'bye 1000 1000' >&4; exit 0 ;;
	esac
done

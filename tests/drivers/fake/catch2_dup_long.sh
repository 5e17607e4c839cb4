#!/bin/sh
# A Catch2 v2 look-alike (its listing, its XML reporter): the test case
# "big test" runs twice under one name (as Catch2 v3 runs a name registered
# twice), each run failing three CHECKs of 3,000-byte texts, so that each
# run's message is over 8 KiB.
list='' none=''
for a in "$@"; do
	case $a in
	--list-test-names-only) list=1 ;;
	*exclude:*) none=1 ;;
	esac
done
if [ -n "$list" ]; then
	[ -n "$none" ] && exit 0
	echo "big test"
	exit 1
fi
o=$(head -c 3000 /dev/zero | tr '\0' o)
e=$(head -c 3000 /dev/zero | tr '\0' e)
printf '<?xml version="1.0" encoding="UTF-8"?>\n<Catch name="fake">\n  <Group name="fake">\n'
for _ in 1 2; do
	printf '    <TestCase name="big test" filename="f.cpp" line="1">\n'
	for k in 1 2 3; do
		printf '      <Expression success="false" type="CHECK" filename="f.cpp" line="%s">\n' "$k"
		printf '        <Original>\n          %s\n        </Original>\n' "$o"
		printf '        <Expanded>\n          %s\n        </Expanded>\n' "$e"
		printf '      </Expression>\n'
	done
	printf '      <OverallResult success="false"/>\n    </TestCase>\n'
done
printf '    <OverallResults successes="0" failures="2" expectedFailures="0"/>\n  </Group>\n'
printf '  <OverallResults successes="0" failures="2" expectedFailures="0"/>\n</Catch>\n'
exit 2

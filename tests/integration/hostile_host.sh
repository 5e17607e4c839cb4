#!/bin/sh
# A host (protocol v1) whose test names and failure messages carry every CI
# log scanner's command marker (Azure ##vso[, TeamCity ##teamcity[, GitHub
# ::cmd:: and ##[), in the middle of a line and at the start of a message's
# lines (run__joblog_*). Each test fails with a multi-line message.
echo "hello 1 x64 $$ 1000 1000" >&4
while read -r cmd name <&3; do
	case $cmd in
	list)
		printf '%s\n' 'test h/x ##vso[task.setvariable variable=pwned]1' \
			'test h/##vso[task.complete result=Failed]done' \
			"test h/##teamcity[buildStatus text='pwned']" \
			'test ::error::pwned' 'test h/##[error]pwned' \
			'test h/##VSO[task.complete result=Failed]upper' 'end 6' >&4
		;;
	run)
		printf 'start %s\n' "$name" >&4
		printf '%s\n' 'out ::error::from output\n##vso[task.complete result=Failed]' >&4
		printf '%s\n' 'fail 10 1000 1000 Expected equality of these values:\n  ::error file=x::pwned\n##vso[task.logissue type=error]pwned\n  ##teamcity[buildProblem description='"'pwned'"']\n::add-mask::x' >&4
		;;
	quit) exit 0 ;;
	esac
done

#!/bin/sh
# log_suites.sh CI_TOOL: `memguard log`'s text footer draws one sparkline per
# (arch, suite), each on its own scale, with a blank where a commit did not
# run the suite (a single line of the largest mixed x86 my_tests' 3 GiB with
# x64 big's 1 GiB). 11 noted commits (ci_tool trend 0-4 and 28-33: x64 big
# from 30 on); the second run, from the log cache, prints the same.
set -u
tool=$1
dir=$(mktemp -d /tmp/mg-logsuites-XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
unset MEMGUARD_NOTES_REF
git init -q "$dir/repo" && cd "$dir/repo" || exit 1
git config user.email t@example.invalid && git config user.name t
for i in 0 1 2 3 4 28 29 30 31 32 33; do
	echo "$i" >f
	git add f && git commit -qm "c$i" || fail "commit $i"
	"$tool" trend "$i" "$dir/r.json" && "$tool" note "$dir/r.json" >/dev/null || fail "note $i"
done
"$tool" log >"$dir/first" || fail "log"
"$tool" log >"$dir/second" || fail "log, cached"
cmp -s "$dir/first" "$dir/second" || fail "the cached log differs: $(diff "$dir/first" "$dir/second")"
grep -q '^peak VA, oldest to newest' "$dir/first" && fail "one sparkline for two suites"
x86=$(sed -n 's/^peak VA of x86 my_tests, oldest to newest: //p' "$dir/first")
x64=$(sed -n 's/^peak VA of x64 big, oldest to newest: //p' "$dir/first")
[ "$(printf '%s' "$x86" | wc -m)" -eq 11 ] || fail "x86 my_tests: '$x86'"
rest=${x64#"       "}
case $rest in *" "*) fail "x64 big: '$x64' (7 blanks, then 4 bars)" ;; esac
[ "$rest" != "$x64" ] && [ "$(printf '%s' "$rest" | wc -m)" -eq 4 ] ||
	fail "x64 big: '$x64' (7 blanks, then 4 bars)"
# each on its own scale: both reach the lowest and the highest bar
for l in "$x86" "$x64"; do
	case $l in *▁*█* | *█*▁*) ;; *) fail "not on its own scale: '$l'" ;; esac
done
echo "ok: one sparkline per suite: x86 '$x86', x64 '$x64'"

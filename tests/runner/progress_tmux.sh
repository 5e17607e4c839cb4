#!/bin/sh
# progress_tmux.sh MEMGUARD WIDTH: `memguard run -j 8` of 64 tests in a tmux
# pane WIDTH columns wide; when it has ended, the pane's whole scrollback
# holds no live line left behind (no status, this one's or the older
# "memguard: N/M tests | 0: VA (peak P)", no "lane N: VA" line: every redraw
# overwrote the last) and no line wider than the pane (-J joins a wrapped
# one).
# Skips (77) without tmux (ci/setup --test installs it).
set -u
mg=$1
w=$2
command -v tmux >/dev/null || { echo "SKIP: tmux not installed"; exit 77; }
d=$(mktemp -d)
s=mgprog$$
trap 'tmux kill-session -t $s 2>/dev/null; rm -rf "$d"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
printf '#!/bin/sh\nsleep 0.05\n' >"$d/t.sh"
chmod +x "$d/t.sh"
cat >"$d/run.sh" <<EOS
#!/bin/sh
unset CI
cd "$d" && "$mg" run -j 8 --driver exec --list-cmd 'seq -f s/t%02g 64' -- "$d/t.sh" {}
echo \$? >"$d/rc"
EOS
tmux -f /dev/null new-session -d -s $s -x "$w" -y 30 "TERM=xterm sh $d/run.sh; sleep 600" ||
	fail "tmux new-session"
i=0
while [ ! -s "$d/rc" ]; do # bounded: 600 polls of 0.1 s; the run's own pace decides
	i=$((i + 1))
	[ $i -le 600 ] || fail "the run did not end"
	sleep 0.1
done
[ "$(cat "$d/rc")" = 0 ] || fail "memguard run exit $(cat "$d/rc")"
tmux capture-pane -p -J -S - -t $s >"$d/pane" # -J: a wrapped line as one
grep -q '^total  *64  *64 ' "$d/pane" || fail "no table: $(cat "$d/pane")"
n=$(grep -Ec 'memguard( \[|: [0-9]+/[0-9]+ tests)|lane [0-9]+: VA|\(peak ' "$d/pane")
[ "$n" -eq 0 ] || { cat "$d/pane" >&2; fail "$n live lines left in the scrollback"; }
long=$(awk -v w="$w" 'length > w' "$d/pane" | head -3)
[ -z "$long" ] || fail "lines over $w columns: $long"
echo "ok: $w columns: no live line left behind"

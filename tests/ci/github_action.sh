#!/bin/sh
# github_action.sh MEMGUARD SOURCE_DIR NPM_DIR: the composite action in
# ci/action/.
#   1. action.yml: a composite action whose every ${{ inputs.X }} is
#      declared, every steps.ID it reads is a step, every script it runs
#      exists and parses (sh -n); ci/action/example-workflow.yml, which uses
#      it, parses with GitHub's own workflow parser (skipped without
#      node and @actions/workflow-parser in NPM_DIR).
#   2. Its scripts against a real repository with a bare origin: on main,
#      run.sh runs a test program under memguard and notes.sh pushes the
#      note (no history: the action's default); on a pull request branch,
#      two pushes, each run.sh (history: auto, planned from main's note,
#      fetched from origin), compare.sh
#      (exit 0, the table in compare.md) and comment.sh against a fake
#      GitHub API (fake_github.py): the first push makes the comment (GET,
#      POST), the second edits the same one (GET, PATCH): one comment, the
#      second push's table in it; a pull request from a fork makes no call
#      and says why; MG_DRY_RUN=1 prints the calls; a third push holding
#      64 MiB more fails the gate (rc 4, a limit marked).
set -u
mg=$1
src=$2
npm_dir=$3
here=$(cd "$(dirname "$0")" && pwd)
act=$src/ci/action
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v python3 >/dev/null && command -v jq >/dev/null && command -v curl >/dev/null ||
	{ echo "SKIP: python3, jq or curl missing"; exit 77; }
d=$(mktemp -d /tmp/mg-action.XXXXXX) || exit 1
srv=
trap '[ -n "$srv" ] && kill "$srv" 2>/dev/null; rm -rf "$d"' EXIT

# 1. the action's metadata
python3 - "$act/action.yml" <<'PY' || fail "action.yml"
import os, re, sys, yaml
path = sys.argv[1]
a = yaml.safe_load(open(path))
text = open(path).read()
bad = []
if a.get("runs", {}).get("using") != "composite":
    bad.append("not a composite action")
inputs = set(a.get("inputs", {}))
for name in set(re.findall(r"inputs\.([A-Za-z0-9_-]+)", text)):
    if name not in inputs:
        bad.append("undeclared input " + name)
ids = {s.get("id") for s in a["runs"]["steps"] if s.get("id")}
for sid in set(re.findall(r"steps\.([A-Za-z0-9_-]+)\.", text)):
    if sid not in ids:
        bad.append("no step " + sid)
for script in set(re.findall(r'\$GITHUB_ACTION_PATH/([a-z_-]+\.sh)', text)):
    p = os.path.join(os.path.dirname(path), script)
    if not os.path.exists(p):
        bad.append("no script " + script)
    elif os.system("sh -n '%s'" % p) != 0:
        bad.append("script does not parse: " + script)
for s in a["runs"]["steps"]:
    if "run" in s and "shell" not in s:
        bad.append("a run step without shell: " + s.get("name", "?"))
print("\n".join(bad) or "action.yml: %d inputs, %d steps" % (len(inputs), len(a["runs"]["steps"])))
sys.exit(1 if bad else 0)
PY
if command -v node >/dev/null && [ -f "$npm_dir/node_modules/@actions/workflow-parser/package.json" ]; then
	node "$here/workflow_parse.mjs" "$npm_dir" "$act/example-workflow.yml" ||
		fail "example-workflow.yml does not parse"
else
	echo "note: GitHub's workflow parser not installed: example-workflow.yml not parsed"
fi

# 2. the scripts, in a real repository
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$d/gitconfig" HOME="$d/home"
mkdir "$d/home" "$d/bin"
git config --global user.name "memguard test"
git config --global user.email test@example.invalid
git config --global init.defaultBranch main
unset MEMGUARD_NOTES_REF CI GITHUB_ACTIONS GITLAB_CI TF_BUILD TEAMCITY_VERSION
ln -s "$mg" "$d/bin/memguard"
export PATH="$d/bin:$PATH"
git init -q --bare "$d/origin.git"
git init -q "$d/repo"
cd "$d/repo" || exit 1
git remote add origin "$d/origin.git"
printf '#!/bin/sh\necho "a test"\n' >tests.sh
chmod +x tests.sh
git add tests.sh && git commit -qm base && git push -q origin main
history= # the action's history input
step() { # SCRIPT ARGS...: with the action's environment; its outputs in $d/out
	script=$1
	shift
	: >"$d/out"
	# the gate in sizes: the suite is a shell of ~1 ms, which wrap
	# measures by sampling (1 ms), so its peaks move by more than 5 or
	# 10% from run to run (VA 2.40 -> 2.53 MiB, RSS 1.82 -> 2.00 MiB
	# seen); the third push below grows by far more than 8 MiB
	GITHUB_OUTPUT="$d/out" GITHUB_STEP_SUMMARY="$d/summary" MG_COMMAND=./tests.sh MG_HISTORY=$history \
		MG_ADAPTERS=console MG_BASE=origin/main MG_MAX_GROWTH=va=8M,rss=8M,test=8M \
		sh "$act/$script" "$@"
}
out() { sed -n "s/^$1=//p" "$d/out"; }
# history: auto where origin has no notes yet: a line, and a run without
history=auto
step run.sh >/dev/null 2>"$d/run.err" || fail "run.sh, auto, no notes"
[ "$(out rc)" = 0 ] || fail "run.sh, auto, no notes: rc $(out rc)"
grep -q "^memguard: history: no memguard notes in this repository.*; planning without it\$" "$d/run.err" ||
	fail "run.sh, auto, no notes on origin yet: $(cat "$d/run.err")"
history= # the action's default: none
step run.sh >/dev/null 2>"$d/run.err" || fail "run.sh on main"
[ "$(out rc)" = 0 ] || fail "run.sh: rc $(out rc)"
! grep -q "history" "$d/run.err" || fail "run.sh on main, history none: $(cat "$d/run.err")"
jq -e 'has("history") | not' mem.json >/dev/null || fail "run.sh on main: a history in the report"
step notes.sh mem.json || fail "notes.sh"
git --git-dir="$d/origin.git" notes --ref=memguard show main >/dev/null ||
	fail "origin has no note on main"

python3 "$here/fake_github.py" "$d/api.log" "$d/port" &
srv=$!
i=0
while [ ! -s "$d/port" ]; do
	i=$((i + 1))
	[ $i -le 100 ] || fail "the fake API did not start"
	sleep 0.1
done
export GITHUB_API_URL="http://127.0.0.1:$(cat "$d/port")" GITHUB_REPOSITORY=o/r \
	GITHUB_TOKEN=test-token MG_PR=7 MG_HEAD_REPO=o/r MG_TREND_URL=https://o.github.io/r/
git checkout -q -b feature
git update-ref -d refs/notes/memguard # a pull request's fresh checkout has no notes
history=auto
for push in 1 2; do
	echo "$push" >change
	git add change && git commit -qm "push $push"
	step run.sh >/dev/null 2>"$d/run.err" || fail "run.sh, push $push"
	# planned from main's note, fetched from origin
	grep -q "^memguard: history: 1 of 1 tests known from the nearest noted ancestor\$" "$d/run.err" ||
		fail "run.sh, push $push: not planned from main's note: $(cat "$d/run.err")"
	jq -e '.history.known == 1' mem.json >/dev/null || fail "run.sh, push $push: the report has no history"
	step compare.sh mem.json compare.md || fail "compare.sh, push $push"
	[ "$(out rc)" = 0 ] || fail "compare.sh: rc $(out rc): $(cat compare.md)"
	grep -q '|' compare.md || fail "no table in compare.md"
	cp compare.md "$d/compare-$push.md"
	step comment.sh compare.md || fail "comment.sh, push $push"
done
calls=$(cut -d'?' -f1 "$d/api.log" | tr '\n' ' ')
[ "$calls" = "GET /repos/o/r/issues/7/comments POST /repos/o/r/issues/7/comments GET /repos/o/r/issues/7/comments PATCH /repos/o/r/issues/comments/1000 " ] ||
	fail "API calls: $calls"
python3 - "$d/api.log.json" "$d/compare-2.md" <<'PY' || fail "the comment"
import json, sys
cs = json.load(open(sys.argv[1]))
want = open(sys.argv[2]).read().strip()
ok = len(cs) == 1 and cs[0]["body"].startswith("<!-- memguard:compare -->") \
    and want in cs[0]["body"] and "https://o.github.io/r/" in cs[0]["body"]
print("comments: %d; comment %s holds push 2's table: %s" % (len(cs), cs[0]["id"] if cs else "-", ok))
sys.exit(0 if ok else 1)
PY
n=$(wc -l <"$d/api.log")
MG_HEAD_REPO=someone/fork step comment.sh compare.md >"$d/fork" || fail "comment.sh, fork"
grep -q "fork someone/fork: its token cannot write" "$d/fork" || fail "fork: $(cat "$d/fork")"
[ "$(wc -l <"$d/api.log")" = "$n" ] || fail "a fork's pull request made API calls"
MG_DRY_RUN=1 step comment.sh compare.md 2>"$d/dry" >/dev/null || fail "dry run"
grep -q "dry run: GET $GITHUB_API_URL/repos/o/r/issues/7/comments" "$d/dry" || fail "dry run: $(cat "$d/dry")"
[ "$(wc -l <"$d/api.log")" = "$n" ] || fail "a dry run made API calls"
# a third push that holds 64 MiB for a while: the gate says regression
printf '#!/bin/sh\necho "a test"\nexec python3 -c "import time; b = bytearray(64 << 20); time.sleep(0.2)"\n' >tests.sh
git commit -qam "push 3: 64 MiB more"
step run.sh >/dev/null || fail "run.sh, push 3"
step compare.sh mem.json compare.md || fail "compare.sh, push 3"
[ "$(out rc)" = 4 ] || fail "compare.sh, 64 MiB more: rc $(out rc), not 4: $(cat compare.md)"
grep -q ':x:' compare.md || fail "compare.md marks no limit: $(cat compare.md)"
echo "ok: one comment, made then updated in place: $calls; 64 MiB more: rc 4"

#!/bin/sh
# Four CI nodes note the same commit and push refs/notes/memguard at once,
# with the retry loop of ci/templates (fetch into memguard-remote, note,
# notes-merge, push; 8 tries with jitter). Every node's shard must arrive.
# Usage: push_race.sh CI_TOOL   (a memguard stand-in: ci_tool CMD ...)
set -eu
tool=$1
dir=$(mktemp -d /tmp/mg-ci-race.XXXXXX)
trap 'rm -rf "$dir"' EXIT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
mkdir "$dir/bin"
ln -s "$tool" "$dir/bin/memguard"
PATH="$dir/bin:$PATH"
cd "$dir"

git init -q --bare origin.git
git init -q -b main seed
git -C seed -c user.name=t -c user.email=t@e commit -q --allow-empty -m first
git -C seed push -q ../origin.git main

# The notes step of ci/templates/*.
cat > notes_step.sh <<'STEP'
set -e
git config user.name "memguard CI"
git config user.email "memguard-ci@example.invalid"
fetch_notes() {
  git fetch -q origin '+refs/notes/memguard:refs/notes/memguard-remote' 2>/dev/null ||
    echo "no memguard notes on origin yet"
}
fetch_notes
memguard note mem.json
memguard notes-merge refs/notes/memguard-remote
for try in 1 2 3 4 5 6 7 8; do
  git push -q origin refs/notes/memguard 2>/dev/null && exit 0
  echo "notes push rejected: merging again ($try/8)"
  r=$(od -An -N2 -tu2 /dev/urandom) # jitter in tenths: nodes finish together
  sleep "$((try * 2 + r % 5)).$((r / 5 % 10))"
  fetch_notes
  memguard notes-merge refs/notes/memguard-remote
done
exit 1
STEP

for i in 1 2 3 4; do
	git clone -q -b main origin.git "node$i"
	memguard fixture "$i" "node$i/mem.json"
done
pids=
for i in 1 2 3 4; do
	(cd "node$i" && sh ../notes_step.sh >"../log$i" 2>&1) &
	pids="$pids $!"
done
fail=0
for p in $pids; do wait "$p" || fail=1; done
cat log1 log2 log3 log4
[ "$fail" = 0 ] || { echo "FAIL: a node could not push its note"; exit 1; }

git clone -q -b main origin.git check
cd check
git fetch -q origin 'refs/notes/memguard:refs/notes/memguard'
git notes --ref=memguard show HEAD >note.json
memguard nodes note.json | sort >nodes.txt
printf '1\n2\n3\n4\n' | cmp -s - nodes.txt || {
	echo "FAIL: the note has the shards of nodes $(tr '\n' ' ' <nodes.txt), not 1 2 3 4"
	exit 1
}
memguard show >show.txt
echo "PASS: all four nodes' shards are in the pushed note"

#!/bin/sh
# gitlab_ci_local.sh MEMGUARD SOURCE_DIR NPM_DIR: ci/templates/gitlab-ci.yml,
# unchanged, run end to end by gitlab-ci-local (NPM_DIR, installed by
# `ci/setup --test`) with the shell executor, in a temporary project: a real
# git repository whose origin is a local bare repository, memguard's tracked
# sources in ./memguard (as the template assumes; copied, not a submodule)
# and a small host of 8 tests built -m32 by the template's own lines into
# ./build32/my_tests. MEMGUARD_BIN_DIR points the template at this build's
# memguard (4 nodes building memguard would take minutes) and
# MEMGUARD_PUSH_URL at the bare repository.
#   1. the pipeline lists memguard: [1/4] .. [4/4];
#   2. a push pipeline on main: the 4 nodes run memguard, note, notes-merge
#      and push; the bare repository's refs/notes/memguard (git CLI) has
#      main's commit, with the shards of nodes 1-4;
#   3. a merge request pipeline of a harmless change: each node's compare
#      gate exits 0 and the pipeline passes;
#   4. a merge request pipeline of a planted regression (one test keeps
#      64 MiB): the node that runs it exits 4 (the gate), the others pass.
# Exit 77 (skip) without Node.js, gitlab-ci-local, rsync (its shell
# isolation copies each job's folder with it) or a kernel that runs -m32.
# Not an _x86 case, though it runs -m32 programs: in tests/x86vm's VM under
# TCG the 4 pipelines took over its 300 s (the push pipeline alone 2 min),
# and that VM counts a skip as a failure.
set -u
memguard=$1
src=$2
npm_dir=$3
glcl=$npm_dir/node_modules/.bin/gitlab-ci-local

command -v node >/dev/null 2>&1 || { echo "SKIP: node is not installed"; exit 77; }
[ -x "$glcl" ] || { echo "SKIP: gitlab-ci-local is not installed in $npm_dir (ci/setup --test runs npm ci there)"; exit 77; }
command -v rsync >/dev/null 2>&1 || { echo "SKIP: rsync is not installed (gitlab-ci-local needs it)"; exit 77; }
dir=$(mktemp -d /tmp/mg-glcl.XXXXXX) || exit 1
trap '[ -n "${MG_GLCL_KEEP:-}" ] && echo "kept $dir" || rm -rf "$dir"' EXIT
printf '#include <stdio.h>\nint main(void) { puts("x86"); return 0; }\n' >"$dir/hello.c"
if ! gcc -m32 -static -o "$dir/hello" "$dir/hello.c" 2>/dev/null || [ "$("$dir/hello" 2>&1)" != x86 ]; then
	echo "SKIP: this kernel does not run -m32 programs (the template builds the tests -m32)"
	exit 77
fi

export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$dir/gitconfig" HOME="$dir/home"
mkdir "$dir/home"
git config --global user.name "memguard test"
git config --global user.email test@example.invalid
git config --global init.defaultBranch main
unset MEMGUARD_NOTES_REF CI GITLAB_CI GITHUB_ACTIONS JENKINS_URL CI_NODE_INDEX CI_NODE_TOTAL

fail() {
	echo "FAIL: $*"
	exit 1
}

git init -q --bare "$dir/origin.git" || fail "git init --bare"
proj=$dir/proj
git init -q "$proj" || fail "git init"
cd "$proj" || exit 1
mkdir memguard
(cd "$src" && git ls-files -z | xargs -0 tar cf -) | tar -C memguard -xf - || fail "copying the sources"
cp "$src/ci/templates/gitlab-ci.yml" .gitlab-ci.yml
cat >CMakeLists.txt <<'EOF'
cmake_minimum_required(VERSION 3.25)
project(my_tests LANGUAGES C)
set(host memguard/runner/host)
# the host library's sources, whatever files it has (not a list to keep)
file(GLOB host_src ${host}/memguard_host.c ${host}/mg_*.c)
add_executable(my_tests my_tests.c ${host_src})
set_source_files_properties(${host_src} PROPERTIES COMPILE_OPTIONS "-fno-omit-frame-pointer;-fexceptions")
target_include_directories(my_tests PRIVATE ${host})
EOF
cat >my_tests.c <<'EOF'
/* 8 tests of 16 MiB touched and freed; my_tests/keep keeps KEEP_MIB. */
#include "memguard_host.h"
#include <stdlib.h>
#include <string.h>

#define KEEP_MIB 0

static mg_result churn(void)
{
	char *p = malloc(16u << 20);
	if (!p)
		return MG_FAIL;
	memset(p, 1, 16u << 20);
	free(p);
	return MG_PASS;
}

static mg_result keep(void)
{
	static char *kept;
	if (KEEP_MIB && !(kept = malloc((size_t)KEEP_MIB << 20)))
		return MG_FAIL;
	if (kept)
		memset(kept, 1, (size_t)KEEP_MIB << 20);
	return MG_PASS;
}

int main(int argc, char **argv)
{
	static const mg_test tests[] = {
	    {"my_tests/a", churn}, {"my_tests/b", churn}, {"my_tests/c", churn},
	    {"my_tests/d", churn}, {"my_tests/e", churn}, {"my_tests/f", churn},
	    {"my_tests/g", churn}, {"my_tests/keep", keep}};
	return mg_host_main(tests, sizeof tests / sizeof tests[0], argc, argv);
}
EOF
printf '/build32/\n/mem.json\n/compare.md\n/memguard-gitlab/\n/.gitlab-ci-local/\n' >.gitignore
git add -A && git commit -q -m "my tests" || fail "commit"
git remote add origin "$dir/origin.git"
git push -q origin main || fail "push main"
git fetch -q origin

bindir=$(dirname "$memguard")
# pipeline LOG [ARGS]: the template's pipeline in this project; its exit code.
pipeline() {
	log=$1
	shift
	"$glcl" --force-shell-executor --shell-isolation --no-color \
		--variable "MEMGUARD_BIN_DIR=$bindir" --variable "MEMGUARD_PUSH_URL=$dir/origin.git" \
		"$@" >"$dir/$log" 2>&1
}
# show LOG: print a pipeline's log (on a failure).
show() {
	echo "---- $1"
	cat "$dir/$1"
	echo "----"
}

# 1. listed
pipeline list.log --list || { show list.log; fail "gitlab-ci-local --list"; }
for k in 1 2 3 4; do
	grep -q "memguard: \[$k/4\]" "$dir/list.log" || { show list.log; fail "memguard: [$k/4] is not listed"; }
done
echo "ok: the pipeline lists memguard: [1/4] .. [4/4]"

# 2. push pipeline on main: notes pushed to the bare repository
start=$(date +%s)
pipeline push.log || { show push.log; fail "the push pipeline on main failed"; }
for k in 1 2 3 4; do
	grep -q "PASS  *memguard: \[$k/4\]" "$dir/push.log" || { show push.log; fail "memguard: [$k/4] did not pass"; }
done
main_sha=$(git rev-parse HEAD)
git --git-dir="$dir/origin.git" notes --ref=memguard list >"$dir/notes.txt" || { show push.log; fail "no refs/notes/memguard in the bare repository"; }
grep -q " $main_sha\$" "$dir/notes.txt" || { show push.log; fail "the bare repository has no note on main ($main_sha)"; }
git --git-dir="$dir/origin.git" notes --ref=memguard show "$main_sha" >"$dir/note.json"
# each shard starts {"node":K,
nodes=$(grep -o '{"node":[0-9]*,' "$dir/note.json" | tr -dc '0-9\n' | sort -u | tr '\n' ' ')
[ "$nodes" = "1 2 3 4 " ] || { show push.log; fail "the pushed note has the shards of nodes $nodes, not 1 2 3 4"; }
echo "ok: push pipeline: 4 nodes passed, the bare repository's note on main has nodes 1-4 ($(($(date +%s) - start)) s)"

# 3. merge request of a harmless change: every gate passes
mr() {
	pipeline "$1" --ignore-predefined-vars CI_PIPELINE_SOURCE \
		--variable CI_PIPELINE_SOURCE=merge_request_event \
		--variable CI_MERGE_REQUEST_TARGET_BRANCH_NAME=main
}
git checkout -q -b harmless main
echo "a README" >README
git add README && git commit -q -m "a README" || fail "commit"
start=$(date +%s)
mr harmless.log || { show harmless.log; fail "the merge request pipeline of a harmless change failed"; }
for k in 1 2 3 4; do
	grep -q "PASS  *memguard: \[$k/4\]" "$dir/harmless.log" || { show harmless.log; fail "memguard: [$k/4] did not pass"; }
done
for k in 1 2 3 4; do
	grep -q "memguard: \[$k/4\] > ### memguard: memory unchanged within limits" "$dir/harmless.log" ||
		{ show harmless.log; fail "node $k's compare gate did not say: memory unchanged within limits"; }
done
echo "ok: harmless merge request: the 4 gates passed ($(($(date +%s) - start)) s)"

# 4. merge request of a planted regression: the gate of the node with
# my_tests/keep exits 4
git checkout -q -b regression main
sed -i 's/#define KEEP_MIB 0/#define KEEP_MIB 64/' my_tests.c
git commit -q -am "keep 64 MiB" || fail "commit"
start=$(date +%s)
if mr regression.log; then
	show regression.log
	fail "the merge request pipeline of a 64 MiB regression passed"
fi
failed=$(grep -c "FAIL  *memguard: \[[1-4]/4\]" "$dir/regression.log")
[ "$failed" = 1 ] || { show regression.log; fail "$failed node jobs failed, not 1 (the node with my_tests/keep)"; }
knode=$(sed -n 's/.*FAIL  *memguard: \[\([1-4]\)\/4\].*/\1/p' "$dir/regression.log" | head -n 1)
grep -q "memguard: \[$knode/4\] > .*64.0 MiB  my_tests/keep" "$dir/regression.log" ||
	{ show regression.log; fail "node $knode failed, but my_tests/keep did not run there"; }
grep -q "memguard: \[$knode/4\] > ### memguard: memory regression" "$dir/regression.log" ||
	{ show regression.log; fail "node $knode's gate did not report a memory regression"; }
grep -q "memguard: \[$knode/4\] finished in .* FAIL 4 *\$" "$dir/regression.log" ||
	{ show regression.log; fail "node $knode's job did not exit 4 (the gate's regression code)"; }
echo "ok: regression merge request: node $knode's gate failed (exit 4), the other 3 passed ($(($(date +%s) - start)) s)"
echo "PASS: gitlab-ci.yml ran in gitlab-ci-local: listed, notes pushed, gate 0 and 4"

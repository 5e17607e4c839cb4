#!/bin/sh
# gitlab_component.sh SOURCE_DIR NPM_DIR: ci/templates/gitlab-component.yml
# included with inputs, read by gitlab-ci-local (NPM_DIR): parallel: 2
# lists memguard: [1/2] and [2/2]; pages: true adds the pages job on the
# default branch, the default (false) does not; the jobs' script carries the
# inputs (command, args, max-growth, history: none by default, a
# report file given); parallel: two (type: number) is
# refused. (gitlab-ci-local accepts an input the spec does not declare;
# GitLab refuses it.) Exit 77 (skip) without Node.js or gitlab-ci-local.
set -u
src=$1
npm_dir=$2
glcl=$npm_dir/node_modules/.bin/gitlab-ci-local
command -v node >/dev/null 2>&1 || { echo "SKIP: node is not installed"; exit 77; }
[ -x "$glcl" ] || { echo "SKIP: gitlab-ci-local is not installed in $npm_dir"; exit 77; }
dir=$(mktemp -d /tmp/mg-glcomp.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; [ -f "$dir/log" ] && cat "$dir/log"; exit 1; }
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$dir/gitconfig" HOME="$dir/home"
mkdir "$dir/home" "$dir/proj"
git config --global user.name t && git config --global user.email t@example.invalid
git config --global init.defaultBranch main
unset CI GITLAB_CI
cd "$dir/proj" && git init -q . || exit 1
mkdir -p memguard/ci/templates
cp "$src/ci/templates/gitlab-component.yml" memguard/ci/templates/
# ci YAML with the given inputs block
ci() {
	printf 'include:\n  - local: memguard/ci/templates/gitlab-component.yml\n    inputs:\n%s\n' "$1" >.gitlab-ci.yml
	git add -A && git commit -qm ci --allow-empty
}
ci '      command: ./t --x
      parallel: 2
      args: --adapter console -j 3
      max-growth: none
      history: old.json
      pages: true'
"$glcl" --list --no-color >"$dir/log" 2>&1 || fail "--list"
grep -q 'memguard: \[1/2\]' "$dir/log" && grep -q 'memguard: \[2/2\]' "$dir/log" ||
	fail "parallel: 2 not listed as [1/2], [2/2]"
grep -q '^pages ' "$dir/log" || fail "pages: true lists no pages job"
"$glcl" --preview --no-color >"$dir/preview" 2>&1 || fail "--preview"
# shellcheck disable=SC2016 # the script's own words, unexpanded
grep -q 'memguard run ${mg_history:+--history "$mg_history"} --adapter console -j 3 --report mem.json -- ./t --x' "$dir/preview" ||
	fail "command and args not in the script: $(grep 'memguard run' "$dir/preview")"
grep -q -- '--max-growth "none"' "$dir/preview" || fail "max-growth not in the script"
grep -q 'mg_history="old.json"' "$dir/preview" || fail "history not in the script"
ci '      command: ./t'
"$glcl" --list --no-color >"$dir/log" 2>&1 || fail "--list, defaults"
grep -q 'memguard: \[4/4\]' "$dir/log" || fail "default parallel is not 4"
! grep -q '^pages ' "$dir/log" || fail "pages listed without pages: true"
"$glcl" --preview --no-color >"$dir/preview" 2>&1 || fail "--preview, defaults"
grep -q 'mg_history="none"' "$dir/preview" || fail "the default history is not none"
ci '      command: ./t
      parallel: two'
if "$glcl" --list --no-color >"$dir/log" 2>&1; then fail "parallel: two was accepted"; fi
grep -q 'parallel' "$dir/log" || fail "the error does not name the input"
echo "ok: the component's inputs: parallel, pages, command, args, max-growth, history; a number input that is not one refused"

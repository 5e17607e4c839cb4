#!/bin/sh
# workflow_parser.sh TEMPLATE NPM_DIR: the GitHub template as GitHub's own
# parser reads it (workflow_parse.mjs, @actions/workflow-parser from
# NPM_DIR, installed by `ci/setup --test`): no error; and copies with a key
# misspelt or an expression broken must each report it, so this test can fail.
# Exit 77 (skip) without Node.js or the package.
set -u
tpl=$1
npm_dir=$2
here=$(dirname "$0")
command -v node >/dev/null 2>&1 || { echo "SKIP: node is not installed"; exit 77; }
[ -f "$npm_dir/node_modules/@actions/workflow-parser/package.json" ] ||
	{ echo "SKIP: @actions/workflow-parser is not installed in $npm_dir (ci/setup --test runs npm ci there)"; exit 77; }
dir=$(mktemp -d /tmp/mg-wfp.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT

node "$here/workflow_parse.mjs" "$npm_dir" "$tpl" || { echo "FAIL: $tpl does not parse"; exit 1; }

# broken TAG SED_EXPR EXPECTED: a copy edited by SED_EXPR must exit 1 naming EXPECTED.
broken() {
	sed -e "$2" "$tpl" >"$dir/$1.yml"
	cmp -s "$tpl" "$dir/$1.yml" && { echo "FAIL: the $1 edit changed nothing"; exit 1; }
	node "$here/workflow_parse.mjs" "$npm_dir" "$dir/$1.yml" >"$dir/$1.out" 2>&1
	rc=$?
	cat "$dir/$1.out"
	[ "$rc" = 1 ] || { echo "FAIL: the $1 copy exited $rc, not 1"; exit 1; }
	grep -qF "$3" "$dir/$1.out" || { echo "FAIL: the $1 copy did not report: $3"; exit 1; }
}
broken key 's/runs-on:/runs-onn:/' "Unexpected value 'runs-onn'"
broken expression 's/if: always() && github.event_name/if: always( \&\& github.event_name/' "Unexpected symbol: '&&'"
echo "PASS: $tpl parses; copies with a misspelt key or a broken expression report it"

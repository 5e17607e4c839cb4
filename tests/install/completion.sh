#!/bin/sh
# completion.sh MEMGUARD SRC_DIR: the bash completion (runner/man/memguard.bash)
# completes commands, a command's options and --adapter's names from this
# memguard's own help: "ru" -> run, "help comp" -> compare, "run --recy" ->
# --recycle-at, "report --adapter ju" -> junit, "compare --max" ->
# --max-growth; the zsh one parses (zsh -n) where zsh is installed.
set -u
mg=$1
src=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
ln -s "$mg" "$d/memguard"
# complete WORDS...: what _memguard offers for the last word
complete_words() {
	PATH="$d:$PATH" bash -c '
		. "$0"
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		_memguard
		printf "%s\n" "${COMPREPLY[@]}"' "$src/runner/man/memguard.bash" "$@"
}
check() {
	want=$1
	shift
	got=$(complete_words "$@")
	printf '%s\n' "$got" | grep -qx -- "$want" || fail "'$*' completes to '$got', not $want"
}
check run memguard ru
check compare memguard help comp
check --recycle-at memguard run --recy
check --max-growth memguard compare --max
check junit memguard report --adapter ju
check teamcity memguard run --adapter tea
[ "$(complete_words memguard ru | wc -l)" -eq 1 ] || fail "'ru' offers more than run"
if command -v zsh >/dev/null; then
	zsh -n "$src/runner/man/_memguard" || fail "zsh -n _memguard"
fi
echo "ok: bash completion from memguard help"

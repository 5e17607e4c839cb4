#!/bin/sh
# help2man.sh MEMGUARD VERSION OUTDIR: the man pages, made at build time from
# what `memguard help` and `memguard help COMMAND` print (the one source of
# every command's text): memguard.1 and memguard-COMMAND.1 for each command
# the overview lists, gzip -9n'd (OUTDIR/memguard*.1.gz). The text goes into
# the page as it is (no-fill), roff's special characters escaped; NAME is
# the overview's summary of the command, SYNOPSIS its usage lines.
set -eu
mg=$1
version=$2
out=$3
mkdir -p "$out"

# roff-safe: backslashes as \e, a leading . or ' behind \&, - as \- in
# option names (so they copy and search as ASCII hyphens)
esc() {
	sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/" -e 's/-/\\-/g'
}

# page NAME SUMMARY SEEALSO < help text
page() {
	name=$1
	summary=$2
	seealso=$3
	upper=$(printf '%s' "$name" | tr 'a-z' 'A-Z')
	t=$(mktemp)
	cat >"$t"
	{
		printf '.TH %s 1 "" "memguard %s" "memguard manual"\n' "$upper" "$version"
		printf '.nh\n.ad l\n'
		printf '.SH NAME\n%s \\- %s\n' "$(printf '%s' "$name" | esc)" "$(printf '%s' "$summary" | esc)"
		printf '.SH SYNOPSIS\n.nf\n'
		# the usage lines: from the first to the first that is not one
		awk '/^usage: /{u=1; sub(/^usage: /, ""); print; next}
		     u && /^       [^ ]/{sub(/^       /, ""); print; next}
		     u && /^                    +[^ ]/{sub(/^ +/, "    "); print; next}
		     {exit}' "$t" | esc
		printf '.fi\n.SH DESCRIPTION\n.nf\n'
		awk 'NR==1 && /^usage: /{u=1; next}
		     u && (/^       [^ ]/ || /^                    +[^ ]/){next}
		     {u=0; print}' "$t" | esc
		printf '.fi\n'
		printf '.SH SEE ALSO\n%s\n' "$seealso"
	} >"$out/$name.1"
	rm -f "$t"
	gzip -9nf "$out/$name.1"
}

overview=$("$mg" help)
cmds=$(printf '%s\n' "$overview" | awk '/^  [a-z]/{print $1}')
seealso=
for c in $cmds; do
	seealso="$seealso${seealso:+,
}.BR memguard\\-$(printf '%s' "$c" | sed 's/-/\\-/g') (1)"
done
printf '%s\n' "$overview" | page memguard "runs test shards under a memory guard and reports memory per test to CI" "$seealso"
for c in $cmds; do
	# the summary: after two spaces on the command's line, or on the next
	summary=$(printf '%s\n' "$overview" | awk -v c="$c" '
		f {sub(/^ +/, ""); print; exit}
		$1 == c && /^  [a-z]/ {
			line = substr($0, 3)
			i = index(line, "  ")
			if (i) {s = substr(line, i); sub(/^ +/, "", s); print s; exit}
			f = 1
		}')
	"$mg" help "$c" | page "memguard-$c" "$summary" ".BR memguard (1)"
done

#!/bin/sh
# html_chromium.sh MEMGUARD DIAG_FIXTURE: renders the fixture report with
# `memguard report --adapter html=PAGE`, then loads the page in headless
# Chromium: it must write a non-empty PNG, and the DOM it rendered must hold
# one <svg> per lane with a VA and an RSS line per host generation. Exit 77 (skip) when Chromium is missing.
set -u
mg=$1
fixture=$2
dir=$(mktemp -d /tmp/mg-chromium-XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT

"$fixture" "$dir/report.json" || { echo "FAIL: diag_fixture"; exit 1; }
"$mg" report --adapter "html=$dir/page.html" "$dir/report.json" ||
	{ echo "FAIL: memguard report --adapter html"; exit 1; }
[ -s "$dir/page.html" ] || { echo "FAIL: no page written"; exit 1; }

browser=
for b in chromium chromium-browser google-chrome; do
	if command -v "$b" >/dev/null 2>&1; then
		browser=$b
		break
	fi
done
if [ -z "$browser" ]; then
	echo "SKIP: chromium is not installed"
	exit 77
fi

run() {
	profile=$1
	shift
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --user-data-dir="$dir/profile-$profile" "$@" 2>>"$dir/log"
}

run shot --screenshot="$dir/page.png" --window-size=1200,1600 "file://$dir/page.html" \
	>/dev/null
if [ ! -s "$dir/page.png" ]; then
	echo "FAIL: no screenshot"
	tail -20 "$dir/log"
	exit 1
fi
magic=$(head -c 4 "$dir/page.png" | tail -c 3)
[ "$magic" = "PNG" ] || { echo "FAIL: screenshot is not a PNG"; exit 1; }
echo "screenshot: $(wc -c <"$dir/page.png") bytes"

run dom --dump-dom "file://$dir/page.html" >"$dir/dom.html"
svgs=$(grep -o '<svg' "$dir/dom.html" | wc -l)
lines=$(grep -o '<polyline' "$dir/dom.html" | wc -l)
echo "rendered DOM: $svgs svg, $lines polyline"
[ "$svgs" -eq 2 ] || { echo "FAIL: expected 2 <svg>"; exit 1; }
# VA and RSS per host generation: 2 lanes x 3 generations x 2
[ "$lines" -eq 12 ] || { echo "FAIL: expected 12 <polyline>"; exit 1; }
if grep -q '<script' "$dir/dom.html"; then
	echo "FAIL: a script element in the rendered DOM"
	exit 1
fi
exit 0

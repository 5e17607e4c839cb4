#!/bin/sh
# log_html_chromium.sh CI_TOOL: the trend page of a real repository. Builds a
# temporary repository of 100 commits with the git CLI, notes a report on
# each (ci_tool trend I: what each commit holds is listed there), writes
# `log --format html` and `log --format html --test my_tests/leaky`, then
# loads both in headless Chromium: the rendered DOM must hold the points,
# lines, recycle and kill marks and links the notes imply, every link must
# reach a commit's section, and Chromium's network log must show no request
# made by the page (a control page with one <img src=http://...> proves the
# check sees one). MG_TREND_SCREENSHOT=FILE keeps the page's screenshot.
# Exit 77 (skip) without Chromium or python3.
set -u
tool=$1
dir=$(mktemp -d /tmp/mg-trend-XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT

browser=
for b in chromium chromium-browser google-chrome; do
	if command -v "$b" >/dev/null 2>&1; then
		browser=$b
		break
	fi
done
[ -n "$browser" ] || { echo "SKIP: chromium is not installed"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 is not installed"; exit 77; }

export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
unset MEMGUARD_NOTES_REF
repo=$dir/repo
git init -q "$repo" && cd "$repo" || exit 1
git config user.email trend@example.invalid && git config user.name trend || exit 1
i=0
while [ $i -lt 100 ]; do
	echo "$i" >file
	git add file && git commit -q -m "change $i" || { echo "FAIL: git commit $i"; exit 1; }
	"$tool" trend $i "$dir/r.json" || { echo "FAIL: ci_tool trend $i"; exit 1; }
	"$tool" note "$dir/r.json" >/dev/null || { echo "FAIL: note $i"; exit 1; }
	i=$((i + 1))
done
"$tool" log --format html -n 100 -o "$dir/page.html" || { echo "FAIL: log --format html"; exit 1; }
"$tool" log --format html --test my_tests/leaky -o "$dir/test.html" ||
	{ echo "FAIL: log --format html --test"; exit 1; }
sed 's|</body>|<img src="http://example.invalid/x.png" alt=""/></body>|' "$dir/page.html" \
	>"$dir/control.html"

run() {
	name=$1
	shift
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --user-data-dir="$dir/profile-$name" \
		--log-net-log="$dir/net-$name.json" "$@" 2>>"$dir/log"
}

for p in page test control; do
	run "$p" --dump-dom "file://$dir/$p.html" >"$dir/dom-$p.html"
	[ -s "$dir/dom-$p.html" ] || { echo "FAIL: no DOM for $p"; tail -20 "$dir/log"; exit 1; }
done
# headless Chromium's --screenshot now and then never returns on a loaded
# machine (the DOM dumps above did): a second try, with a profile of its own,
# before calling it a failure
for try in 1 2; do
	run "shot$try" --hide-scrollbars --screenshot="$dir/page.png" --window-size=1200,900 \
		"file://$dir/page.html" >/dev/null
	st=$?
	[ "$(head -c 4 "$dir/page.png" 2>/dev/null | tail -c 3)" = "PNG" ] && break
	echo "screenshot try $try gave no PNG (chromium's exit $st; 124: timeout)" >&2
	rm -f "$dir/page.png"
done
[ "$(head -c 4 "$dir/page.png" 2>/dev/null | tail -c 3)" = "PNG" ] ||
	{ echo "FAIL: no screenshot"; tail -20 "$dir/log"; exit 1; }
if [ -n "${MG_TREND_SCREENSHOT:-}" ]; then
	cp "$dir/page.png" "$MG_TREND_SCREENSHOT" || exit 1
fi

python3 - "$dir" <<'EOF'
import json, re, sys
d = sys.argv[1]
bad = []

def check(what, got, want):
    print("%-44s %5s (want %s)" % (what, got, want))
    if got != want:
        bad.append(what)

def page_requests(name):
    """URLs the page itself asked for: requests keyed by the file:// page.
    Chromium's own background requests (null or google keys) are not the page's."""
    log = json.load(open("%s/net-%s.json" % (d, name)))
    types = {v: k for k, v in log["constants"]["logEventTypes"].items()}
    urls = set()
    for e in log["events"]:
        p = e.get("params", {})
        if types.get(e["type"]) == "URL_REQUEST_START_JOB" and \
                "file://" in p.get("network_isolation_key", ""):
            urls.add(p.get("url"))
    return sorted(urls)

def tags(dom, name):
    return re.findall(r"<%s\b[^>]*>" % name, dom)

page = open(d + "/dom-page.html").read()
test = open(d + "/dom-test.html").read()

check("control page: requests seen", page_requests("control"), ["http://example.invalid/x.png"])
check("trend page: requests", page_requests("page"), [])
check("test page: requests", page_requests("test"), [])
for name, dom in (("trend", page), ("test", test)):
    check(name + ": script/link/img/iframe elements",
          sum(len(tags(dom, t)) for t in ("script", "link", "img", "iframe", "object")), 0)
    refs = re.findall(r'(?:href|src)="([^"#][^"]*)"', dom) + re.findall(r"url\(", dom)
    check(name + ": references outside the page", refs, [])

# the trend page: my_tests on 100 commits, big on the last 70; VA and RSS
# each a chart of its own scale, per suite
check("trend: charts", len(re.findall(r'<svg class="trend"', page)), 4)
check("trend: VA points", len(re.findall(r'<circle class="pt va"', page)), 170)
check("trend: RSS points", len(re.findall(r'<circle class="pt rss"', page)), 170)
check("trend: VA lines", len(re.findall(r'<polyline class="va"', page)), 2)
check("trend: RSS lines", len(re.findall(r'<polyline class="rss"', page)), 2)
# the report's limits: recycle and kill VA limits, in both suites' VA charts
check("trend: recycle limit lines", len(re.findall(r'<polyline class="lim-soft"', page)), 2)
check("trend: kill limit lines", len(re.findall(r'<polyline class="lim-hard"', page)), 2)
# compare's gate over each commit before: 99 + 99 (x86), 69 + 69 (x64)
check("trend: gate thresholds", len(re.findall(r'<line class="gate"', page)), 336)
# commit 80's VA and commit 90's RSS are past it
regress = re.findall(r'<circle class="regress"[^>]*><title>([^<]*)', page)
check("trend: regressions marked", len(regress), 2)
check("trend: the regressions' reasons",
      [("peak VA" in regress[0], "%" in regress[0]), ("peak RSS" in regress[1],)],
      [(True, True), (True,)])
check("trend: recycle marks (i % 7 == 0), both charts",
      len(re.findall(r'class="m-recycle"', page)), 30)
check("trend: kill marks (i % 25 == 24), both charts",
      len(re.findall(r'class="m-kill-mark"', page)), 8)
links = re.findall(r'<a href="#(c-[0-9a-f]{7})"', page)
check("trend: links in the charts", len(links), 170 * 2 + 30 + 8 + 2)
ids = re.findall(r'<section class="commit" id="(c-[0-9a-f]{7})"', page)
check("trend: commit sections", len(ids), 100)
check("trend: commits linked", len(set(links)), 100)
check("trend: links to no section", sorted(set(links) - set(ids)), [])
# the newest commit (99) was killed: its section says so
newest = page[page.index('id="%s"' % ids[0]):]
newest = newest[:newest.index("</section>")]
check("trend: newest commit's summary", "change 99" in newest and "x86 my_tests" in newest, True)

# the test page: one suite, retained memory (VA, RSS) and duration
check("test: charts", len(re.findall(r'<svg class="trend"', test)), 2)
check("test: VA retained points", len(re.findall(r'<circle class="pt va"', test)), 100)
check("test: RSS retained points", len(re.findall(r'<circle class="pt rss"', test)), 100)
check("test: duration points", len(re.findall(r'<circle class="pt dur"', test)), 100)
check("test: newest retained 100 MiB", "100 MiB</td>" in test, True)
sys.exit(1 if bad else 0)
EOF
rc=$?
[ $rc -eq 0 ] || echo "FAIL: the rendered pages"
exit $rc

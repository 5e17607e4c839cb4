/*
 * log_html.c - "memguard log --format html": one self-contained page of the
 * memory trend (inline SVG and CSS; no script, font, image or request of any
 * kind): per (arch, suite) peak VA and peak RSS per commit, recycles and
 * kills marked, every point linked to its commit's section on the page; or,
 * with --test, one test's retained memory and duration over the history.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "adapters.h"
#include "ci_int.h"

#define W      1000.0
#define H      300.0
#define LEFT   78.0
#define RIGHT  985.0
#define TOP    28.0
#define BOTTOM 240.0

static const char css[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;"
    "color:#1f2328;background:#fff;margin:0 auto;padding:16px 24px;max-width:1180px}"
    "h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:26px 0 8px;"
    "border-bottom:1px solid #d0d7de;padding-bottom:4px}h3{font-size:14px;margin:14px 0 4px}"
    ".meta{color:#57606a;margin:0 0 4px}"
    "table{border-collapse:collapse;margin:4px 0;font-variant-numeric:tabular-nums}"
    "th,td{border:1px solid #d0d7de;padding:2px 8px;text-align:left}"
    "th{background:#f6f8fa;font-weight:600}td.n{text-align:right;white-space:nowrap}"
    "td.bad{color:#cf222e;font-weight:600}"
    "svg.trend{width:100%;height:auto;display:block;border:1px solid #d0d7de;"
    "border-radius:6px;background:#fff}"
    "svg text{font:11px system-ui,sans-serif;fill:#57606a}"
    "svg .axis{stroke:#8c959f;stroke-width:1}svg .grid{stroke:#eaeef2;stroke-width:1}"
    "svg .zero{stroke:#8c959f;stroke-width:1;stroke-dasharray:3 3}"
    "svg polyline{fill:none;stroke-width:1.5;stroke-linejoin:round}"
    "svg polyline.va{stroke:#0969da}svg polyline.rss{stroke:#1a7f37}"
    "svg polyline.dur{stroke:#8250df}"
    "svg circle.va{fill:#0969da}svg circle.rss{fill:#1a7f37}svg circle.dur{fill:#8250df}"
    "svg a:hover circle{stroke:#1f2328;stroke-width:2}"
    "svg .lim-soft{fill:none;stroke:#bf8700;stroke-width:1.2;stroke-dasharray:6 4}"
    "svg .lim-hard{fill:none;stroke:#cf222e;stroke-width:1.2;stroke-dasharray:6 4}"
    "svg .gate{fill:none;stroke:#8c959f;stroke-width:1;stroke-dasharray:2 3}"
    "svg circle.regress{fill:none;stroke:#cf222e;stroke-width:2}"
    "svg .m-recycle{fill:#bf8700}svg .m-kill{stroke:#cf222e;stroke-width:1.5;"
    "stroke-dasharray:4 3}svg .m-killcap{fill:#cf222e}"
    ".legend{margin:4px 0 0;color:#57606a;font-size:13px}.legend span{margin-right:14px}"
    ".sw{display:inline-block;width:18px;height:0;vertical-align:middle;margin-right:4px;"
    "border-top:3px solid}"
    "section.commit{border-top:1px solid #eaeef2;padding:2px 0 6px}"
    "section.commit:target{background:#fff8c5}"
    "code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}";

#define TEXT_MAX_LEN 400 /* bytes of a text shown */

static void put_text(FILE *f, const char *s)
{
	adapters_put_html(f, s, TEXT_MAX_LEN);
}

static void put_size(FILE *f, uint64_t v)
{
	char buf[32];
	report_format_size(buf, sizeof(buf), v);
	fputs(buf, f);
}

static void put_ssize(FILE *f, int64_t v)
{
	char buf[32];
	report_format_size_signed(buf, sizeof(buf), v);
	fputs(buf, f);
}

static void put_dur(FILE *f, double s)
{
	char buf[32];
	report_format_duration(buf, sizeof(buf), s);
	fputs(buf, f);
}

static void put_date(FILE *f, git_time_t when)
{
	char buf[32];
	time_t t = (time_t)when;
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M", &tm);
	fputs(buf, f);
}

/* ---- what one commit says about one suite, or one test ---- */

typedef struct cell {
	int present;
	report_totals t;
	double wall;
	/* --test: the test summed over the suite's shards */
	int has_test;
	int64_t va_delta, rss_delta;
	double duration;
	test_state state;
} cell;

static cell cell_of(const report *r, const ci_suite *k, const char *test)
{
	cell c;
	memset(&c, 0, sizeof(c));
	c.present = ci_suite_sum(r, k, &c.t, &c.wall);
	for (size_t i = 0; test && r && i < r->nshards; i++) {
		const report_shard *s = &r->shards[i];
		if (!ci_suite_has(k, s))
			continue;
		for (size_t t = 0; t < s->ntests; t++) {
			const report_test *rt = &s->tests[t];
			if (!rt->name || strcmp(rt->name, test) != 0)
				continue;
			if (!c.has_test || report_state_failed(rt->state))
				c.state = rt->state;
			c.has_test = 1;
			c.va_delta += rt->va_delta;
			c.rss_delta += rt->rss_delta;
			c.duration += rt->duration;
		}
	}
	return c;
}

/* With --test: only the suites that ran the test. */
static int ran_test(const report *r, const ci_suite *k, void *test)
{
	return cell_of(r, k, test).has_test;
}

static size_t collect_suites(ci_suite **out, const log_commit *v, size_t n, const char *test)
{
	size_t ns = 0, cap = 0;
	ci_suite *ks = NULL;
	for (size_t k = n; k-- > 0;) /* oldest first */
		ci_suites_add(&ks, &ns, &cap, v[k].r, test ? ran_test : NULL, (void *)test);
	*out = ks;
	return ns;
}

/* ---- charts ---- */

/* One series of a chart: a value per commit (oldest first), has[i] 0 where the commit lacks it. */
typedef struct series {
	const char *cls;  /* "va", "rss", "dur" */
	const char *name; /* "peak VA" */
	int kind;         /* 0 size, 1 signed size, 2 seconds */
	double *y;
	int *has;
	/* a peak series: each commit's recycle (soft) and kill (hard) limit
	 * for it, 0 where none (NULL: not drawn), and compare's gate on it
	 * (gate NULL: none): its threshold over the commit before drawn, a
	 * commit over it ringed as a regression */
	const double *soft, *hard;
	const growth_limits *gate;
	growth_metric metric;
} series;

static double px(size_t i, size_t n)
{
	return LEFT + (RIGHT - LEFT) * ((double)i + 0.5) / (double)n;
}

static void put_value(FILE *f, int kind, double v)
{
	if (kind == 0)
		put_size(f, v <= 0 ? 0 : (uint64_t)v);
	else if (kind == 1)
		put_ssize(f, (int64_t)v);
	else
		put_dur(f, v);
}

/* compare's threshold for commit i over commit i-1 (the gate: the lower
 * of base * (1 + N%) and base + SIZE, as growth_exceeded judges a head);
 * 0 where there is none (no gate, no base, a relative limit over 0). */
static double gate_at(const series *s, size_t i)
{
	if (!s->gate || !i || !s->has[i - 1] || !s->has[i])
		return 0;
	double base = s->y[i - 1], t = 0;
	if (s->gate->has_pct[s->metric] && base > 0)
		t = base * (1 + s->gate->pct[s->metric] / 100);
	if (s->gate->has_abs[s->metric]) {
		double a = base + (double)s->gate->abs[s->metric];
		t = t > 0 && t < a ? t : a;
	}
	return t;
}

/* A limit as a step line through the commits that have one, broken where
 * a commit has none. */
static void limit_line(FILE *f, const double *lim, size_t n, const char *cls, const char *what,
                       double lo, double hi)
{
	int open = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i == n || lim[i] <= 0) {
			if (open)
				fprintf(f, "\"><title>%s</title></polyline>\n", what);
			open = 0;
			continue;
		}
		double y = BOTTOM - (BOTTOM - TOP) * ((lim[i] - lo) / (hi - lo));
		double x0 = LEFT + (RIGHT - LEFT) * (double)i / (double)n;
		double x1 = LEFT + (RIGHT - LEFT) * (double)(i + 1) / (double)n;
		if (!open)
			fprintf(f, "<polyline class=\"%s\" points=\"", cls);
		fprintf(f, "%s%.1f,%.1f %.1f,%.1f", open ? " " : "", x0, y, x1, y);
		open = 1;
	}
}

/*
 * An SVG chart of the series over the n commits (v newest first, drawn
 * oldest left). Each point is a circle inside a link to the commit's
 * section; a line is broken where a commit lacks the value. marks: the
 * commits' recycles and kills of suite k, or NULL.
 */
static void chart(FILE *f, const log_commit *v, size_t n, const series *ss, size_t nss,
                  const char *label, const cell *marks)
{
	double lo = 0, hi = 0;
	for (size_t s = 0; s < nss; s++)
		for (size_t i = 0; i < n; i++) {
			if (ss[s].has[i]) {
				lo = ss[s].y[i] < lo ? ss[s].y[i] : lo;
				hi = ss[s].y[i] > hi ? ss[s].y[i] : hi;
			}
			double g = i ? gate_at(&ss[s], i) : 0;
			hi = g > hi ? g : hi;
			hi = ss[s].soft && ss[s].soft[i] > hi ? ss[s].soft[i] : hi;
			hi = ss[s].hard && ss[s].hard[i] > hi ? ss[s].hard[i] : hi;
		}
	if (hi <= lo)
		hi = lo + 1;
	double span = (hi - lo) * 1.08;
	lo = lo < 0 ? lo - (hi - lo) * 0.04 : 0;
	hi = lo + span;
#define PY(val) (BOTTOM - (BOTTOM - TOP) * (((val)-lo) / (hi - lo)))
	fprintf(
	    f,
	    "<svg class=\"trend\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" "
	    "role=\"img\" aria-label=\"",
	    W, H);
	put_text(f, label);
	fputs("\">\n", f);
	/* horizontal grid at round values: sizes in powers of two, seconds 1-2-5 */
	double step = ss[0].kind == 2 ? 0.001 : 4096;
	for (int k = 0; (hi - lo) / step > 6 && k < 80; k++)
		step *= ss[0].kind != 2 ? 2 : k % 3 == 1 ? 2.5 : 2;
	for (double val = step * ceil(lo / step); val <= hi; val += step) {
		double y = PY(val);
		fprintf(f,
		        "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
		        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
		        LEFT, y, RIGHT, y, LEFT - 6, y + 4);
		put_value(f, ss[0].kind, fabs(val) < step / 2 ? 0 : val);
		fputs("</text>\n", f);
	}
	if (lo < 0)
		fprintf(f,
		        "<line class=\"zero\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
		        LEFT, PY(0.0), RIGHT, PY(0.0));
	fprintf(f,
	        "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
	        "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
	        LEFT, TOP, LEFT, BOTTOM, LEFT, BOTTOM, RIGHT, BOTTOM);
	/* commit labels: about eight, oldest and newest always */
	size_t every = n > 8 ? (n + 7) / 8 : 1;
	char sha[16];
	for (size_t i = 0; i < n; i++) {
		if (i % every && i + 1 != n)
			continue;
		if (i + 1 == n && i % every && i % every < every / 2)
			continue;               /* too close to the previous label */
		int last = n > 1 && i + 1 == n; /* right-aligned: not cut at the edge */
		fprintf(f,
		        "<text class=\"commit\" x=\"%.1f\" y=\"%.1f\" "
		        "text-anchor=\"%s\">%s</text>\n",
		        last ? px(i, n) + 4 : px(i, n), BOTTOM + 16, last ? "end" : "middle",
		        store_short(sha, &v[n - 1 - i].commit));
	}
	fprintf(f,
	        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">oldest to newest commit</text>\n",
	        RIGHT, H - 8);
	/* recycles (triangles under the axis) and kills (a dashed line) */
	for (size_t i = 0; marks && i < n; i++) {
		const cell *c = &marks[i];
		double x = px(i, n);
		store_short(sha, &v[n - 1 - i].commit);
		if (c->present && c->t.recycles)
			fprintf(f,
			        "<a href=\"#c-%s\"><path class=\"m-recycle\" d=\"M%.1f,%.1f "
			        "l-4.5,9 h9 z\">"
			        "<title>%s: %llu recycle%s</title></path></a>\n",
			        sha, x, BOTTOM + 22, sha, (unsigned long long)c->t.recycles,
			        c->t.recycles == 1 ? "" : "s");
		if (c->present && c->t.kills)
			fprintf(
			    f,
			    "<a href=\"#c-%s\"><g class=\"m-kill-mark\"><title>%s: %llu "
			    "kill%s</title>"
			    "<line class=\"m-kill\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			    "y2=\"%.1f\"/>"
			    "<path class=\"m-killcap\" d=\"M%.1f,%.1f l-5,-8 h10 z\"/></g></a>\n",
			    sha, sha, (unsigned long long)c->t.kills, c->t.kills == 1 ? "" : "s", x,
			    TOP, x, BOTTOM, x, TOP);
	}
	for (size_t s = 0; s < nss; s++) {
		const series *se = &ss[s];
		if (se->soft)
			limit_line(f, se->soft, n, "lim-soft", "recycle limit", lo, hi);
		if (se->hard)
			limit_line(f, se->hard, n, "lim-hard", "kill limit", lo, hi);
		/* the gate: compare's threshold over the commit before each */
		for (size_t i = 1; se->gate && i < n; i++) {
			double g = gate_at(se, i);
			if (g <= 0)
				continue;
			fprintf(f,
			        "<line class=\"gate\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			        "y2=\"%.1f\"><title>",
			        px(i, n) - (RIGHT - LEFT) / (double)n / 2, PY(g),
			        px(i, n) + (RIGHT - LEFT) / (double)n / 2, PY(g));
			fprintf(f, "gate for %s: ", se->name);
			put_value(f, se->kind, g);
			fputs("</title></line>\n", f);
		}
	}
	for (size_t s = 0; s < nss; s++) {
		/* the line, in runs of commits that have the value */
		for (size_t i = 0; i < n;) {
			if (!ss[s].has[i]) {
				i++;
				continue;
			}
			size_t end = i;
			while (end < n && ss[s].has[end])
				end++;
			if (end - i > 1) {
				fprintf(f, "<polyline class=\"%s\" points=\"", ss[s].cls);
				for (size_t k = i; k < end; k++)
					fprintf(f, "%s%.1f,%.1f", k > i ? " " : "", px(k, n),
					        PY(ss[s].y[k]));
				fputs("\"/>\n", f);
			}
			i = end;
		}
		for (size_t i = 0; i < n; i++) {
			if (!ss[s].has[i])
				continue;
			const log_commit *lc = &v[n - 1 - i];
			store_short(sha, &lc->commit);
			fprintf(f,
			        "<a href=\"#c-%s\"><circle class=\"pt %s\" cx=\"%.1f\" cy=\"%.1f\" "
			        "r=\"3\"><title>%s ",
			        sha, ss[s].cls, px(i, n), PY(ss[s].y[i]), sha);
			put_text(f, lc->summary);
			fprintf(f, ": %s ", ss[s].name);
			put_value(f, ss[s].kind, ss[s].y[i]);
			fputs("</title></circle></a>\n", f);
			char why[128];
			if (ss[s].gate && i && ss[s].has[i - 1] &&
			    growth_exceeded(ss[s].gate, ss[s].metric, (int64_t)ss[s].y[i - 1],
			                    (int64_t)ss[s].y[i], why, sizeof(why)))
				fprintf(f,
				        "<a href=\"#c-%s\"><circle class=\"regress\" cx=\"%.1f\" "
				        "cy=\"%.1f\" r=\"7\"><title>%s: regression of %s: %s"
				        "</title></circle></a>\n",
				        sha, px(i, n), PY(ss[s].y[i]), sha, ss[s].name, why);
		}
	}
	fputs("</svg>\n", f);
#undef PY
}

static void legend(FILE *f, const series *ss, size_t nss, int marks)
{
	static const struct {
		const char *cls, *color;
	} colors[] = {{"va", "#0969da"}, {"rss", "#1a7f37"}, {"dur", "#8250df"}};
	fputs("<p class=\"legend\">", f);
	for (size_t s = 0; s < nss; s++)
		for (size_t c = 0; c < 3; c++)
			if (!strcmp(ss[s].cls, colors[c].cls))
				fprintf(
				    f,
				    "<span><i class=\"sw\" style=\"border-color:%s\"></i>%s</span>",
				    colors[c].color, ss[s].name);
	if (marks)
		fputs("<span style=\"color:#9a6700\">&#9650; recycles</span>"
		      "<span style=\"color:#cf222e\">&#9660; kills</span>",
		      f);
	if (nss && ss[0].soft)
		fputs("<span><i class=\"sw\" style=\"border-top:2px dashed #bf8700\"></i>recycle "
		      "limit</span><span><i class=\"sw\" style=\"border-top:2px dashed "
		      "#cf222e\"></i>kill limit</span>",
		      f);
	if (nss && ss[0].gate) {
		char pct[32] = "";
		if (ss[0].gate->has_pct[ss[0].metric])
			snprintf(pct, sizeof(pct), " (+%g%%)", ss[0].gate->pct[ss[0].metric]);
		fprintf(f,
		        "<span><i class=\"sw\" style=\"border-top:2px dotted #8c959f\"></i>"
		        "compare's gate over the commit before%s</span>"
		        "<span style=\"color:#cf222e\">&#9711; over it: a regression</span>",
		        pct);
	}
	fputs("<span>each point links to its commit below</span></p>\n", f);
}

/* ---- the page ---- */

/* Under a --test row: the test's allocation sites in the suite's shards
 * (who allocated what it left, the blocks it holds); nothing without. */
static void test_sites(FILE *f, const report *r, const ci_suite *k, const char *test)
{
	adapters_html_list list = {0, TEXT_MAX_LEN};
	int any = 0;
	for (size_t i = 0; r && i < r->nshards; i++) {
		const report_shard *s = &r->shards[i];
		if (!ci_suite_has(k, s))
			continue;
		for (size_t t = 0; t < s->ntests; t++) {
			const report_test_sites *ts = report_shard_test_sites(s, t);
			if (!ts || !s->tests[t].name || strcmp(s->tests[t].name, test) != 0)
				continue;
			if (!any++)
				fputs("<tr><td></td><td colspan=\"4\"><ul>", f);
			adapters_site_lines(f, ts, adapters_html_site_item, &list);
		}
	}
	if (any)
		fputs(list.open ? "</li></ul></td></tr>\n" : "</ul></td></tr>\n", f);
}

static void commit_section(FILE *f, const log_commit *lc, const ci_suite *ks, size_t ns,
                           const char *test)
{
	char sha[16];
	store_short(sha, &lc->commit);
	fprintf(f, "<section class=\"commit\" id=\"c-%s\"><h3><code>%s</code> ", sha, sha);
	put_date(f, lc->when);
	fputs(" &#183; ", f);
	put_text(f, lc->summary);
	fprintf(f, " &#183; %s</h3>\n<table>", lc->result);
	if (test)
		fputs("<tr><th>suite</th><th>state</th><th>VA retained</th><th>RSS retained</th>"
		      "<th>duration</th></tr>\n",
		      f);
	else
		fputs("<tr><th>suite</th><th>peak VA</th><th>peak RSS</th><th>tests run</th>"
		      "<th>pass</th><th>fail</th><th>other</th><th>recycles</th><th>kills</th>"
		      "<th>wall</th></tr>\n",
		      f);
	for (size_t k = 0; k < ns; k++) {
		cell c = cell_of(lc->r, &ks[k], test);
		fputs("<tr><td>", f);
		put_text(f, ks[k].arch);
		fputc(' ', f);
		put_text(f, ks[k].suite);
		fputs("</td>", f);
		if (test) {
			if (!c.has_test) {
				fputs("<td colspan=\"4\">not run in this commit</td></tr>\n", f);
				continue;
			}
			fprintf(f, "<td%s>%s</td><td class=\"n\">",
			        report_state_failed(c.state) ? " class=\"bad\"" : "",
			        report_state_name(c.state));
			put_ssize(f, c.va_delta);
			fputs("</td><td class=\"n\">", f);
			put_ssize(f, c.rss_delta);
			fputs("</td><td class=\"n\">", f);
			put_dur(f, c.duration);
			fputs("</td></tr>\n", f);
			test_sites(f, lc->r, &ks[k], test);
			continue;
		}
		if (!c.present) {
			fputs("<td colspan=\"9\">not run in this commit</td></tr>\n", f);
			continue;
		}
		fputs("<td class=\"n\">", f);
		put_size(f, c.t.peak_va);
		fputs("</td><td class=\"n\">", f);
		put_size(f, c.t.peak_rss);
		fprintf(
		    f,
		    "</td><td class=\"n\">%llu/%llu</td><td class=\"n\">%llu</td>"
		    "<td class=\"n%s\">%llu</td><td class=\"n\">%llu</td><td class=\"n\">%llu</td>"
		    "<td class=\"n%s\">%llu</td><td class=\"n\">",
		    (unsigned long long)(c.t.tests - c.t.counts[TEST_NOTRUN]),
		    (unsigned long long)c.t.tests, (unsigned long long)c.t.counts[TEST_PASS],
		    c.t.failed ? " bad" : "", (unsigned long long)c.t.failed,
		    (unsigned long long)c.t.other, (unsigned long long)c.t.recycles,
		    c.t.kills ? " bad" : "", (unsigned long long)c.t.kills);
		put_dur(f, c.wall);
		fputs("</td></tr>\n", f);
	}
	fputs("</table></section>\n", f);
}

void log_html_write(FILE *f, const log_commit *v, size_t n, const char *ref, const char *test)
{
	ci_suite *ks = NULL;
	size_t ns = collect_suites(&ks, v, n, test);
	double *y = calloc(3 * (n ? n : 1), sizeof(double));
	int *has = calloc(3 * (n ? n : 1), sizeof(int));
	cell *cells = calloc(n ? n : 1, sizeof(cell));
	double *lim = calloc(4 * (n ? n : 1), sizeof(double));
	growth_limits gate;
	growth_defaults(&gate); /* compare's own default: the gate a PR meets */
	if (!y || !has || !cells || !lim)
		abort();
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>"
	      "<meta name=\"viewport\" content=\"width=device-width\"/><title>memguard trend",
	      f);
	if (test) {
		fputs(": ", f);
		put_text(f, test);
	}
	fprintf(f, "</title><style>%s</style></head><body>\n<h1>memguard: memory over history",
	        css);
	if (test) {
		fputs(" of <code>", f);
		put_text(f, test);
		fputs("</code>", f);
	}
	fputs("</h1>\n<p class=\"meta\">", f);
	fprintf(f, "%zu commit%s with a note in <code>", n, n == 1 ? "" : "s");
	put_text(f, ref);
	fputs("</code>", f);
	if (n) {
		char a[16], b[16];
		fprintf(f, ", <code>%s</code> (", store_short(a, &v[n - 1].commit));
		put_date(f, v[n - 1].when);
		fprintf(f, ") to <code>%s</code> (", store_short(b, &v[0].commit));
		put_date(f, v[0].when);
		fputs(")", f);
	}
	fputs("; first parents, oldest left.</p>\n", f);
	if (!ns)
		fprintf(f, "<p>%s</p>\n",
		        test ? "No commit shown ran this test." : "No commit shown has a shard.");
	for (size_t k = 0; k < ns; k++) {
		fputs("<h2>", f);
		put_text(f, ks[k].arch);
		fputc(' ', f);
		put_text(f, ks[k].suite);
		fputs("</h2>\n", f);
		for (size_t i = 0; i < n; i++) {
			cells[i] = cell_of(v[n - 1 - i].r, &ks[k], test);
			const cell *c = &cells[i];
			if (test) {
				has[i] = has[n + i] = has[2 * n + i] = c->has_test;
				y[i] = (double)c->va_delta;
				y[n + i] = (double)c->rss_delta;
				y[2 * n + i] = c->duration;
			} else {
				const report *r = v[n - 1 - i].r;
				int lb = c->present && r->has_limit_bytes;
				has[i] = has[n + i] = c->present;
				y[i] = (double)c->t.peak_va;
				y[n + i] = (double)c->t.peak_rss;
				lim[i] = lb ? (double)r->soft.va : 0;
				lim[n + i] = lb ? (double)r->hard.va : 0;
				lim[2 * n + i] = lb ? (double)r->soft.rss : 0;
				lim[3 * n + i] = lb ? (double)r->hard.rss : 0;
			}
		}
		char label[512];
		if (test) {
			series mem[2] = {
			    {"va", "VA retained", 1, y, has, NULL, NULL, NULL, GROWTH_VA},
			    {"rss", "RSS retained", 1, y + n, has + n, NULL, NULL, NULL,
			     GROWTH_RSS}};
			series dur[1] = {{"dur", "duration", 2, y + 2 * n, has + 2 * n, NULL, NULL,
			                  NULL, GROWTH_VA}};
			snprintf(label, sizeof(label), "memory %s %s retained per commit",
			         ks[k].arch, ks[k].suite);
			fputs("<h3>memory retained (after minus before the test)</h3>\n", f);
			chart(f, v, n, mem, 2, label, NULL);
			legend(f, mem, 2, 0);
			snprintf(label, sizeof(label), "duration in %s %s per commit", ks[k].arch,
			         ks[k].suite);
			fputs("<h3>duration</h3>\n", f);
			chart(f, v, n, dur, 1, label, NULL);
			legend(f, dur, 1, 0);
		} else {
			/* VA and RSS each on a scale of its own (a 3 GiB VA
			 * flattened a 40 MiB RSS to 0), with its limits and the gate */
			series va = {"va", "peak VA", 0, y, has, lim, lim + n, &gate, GROWTH_VA};
			series rss = {"rss",       "peak RSS",  0,     y + n,     has + n,
			              lim + 2 * n, lim + 3 * n, &gate, GROWTH_RSS};
			snprintf(label, sizeof(label), "peak VA of %s %s per commit", ks[k].arch,
			         ks[k].suite);
			fputs("<h3>peak VA</h3>\n", f);
			chart(f, v, n, &va, 1, label, cells);
			legend(f, &va, 1, 1);
			snprintf(label, sizeof(label), "peak RSS of %s %s per commit", ks[k].arch,
			         ks[k].suite);
			fputs("<h3>peak RSS</h3>\n", f);
			chart(f, v, n, &rss, 1, label, cells);
			legend(f, &rss, 1, 1);
		}
	}
	fputs("<h2>Commits, newest first</h2>\n", f);
	for (size_t i = 0; i < n; i++)
		commit_section(f, &v[i], ks, ns, test);
	fputs("</body></html>\n", f);
	free(ks);
	free(y);
	free(has);
	free(cells);
	free(lim);
}

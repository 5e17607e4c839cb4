/*
 * html.c - the html adapter: one self-contained page (inline CSS and SVG, no
 * script, nothing fetched) with the per-shard table, each lane's VA and RSS
 * over time with limits, recycles and kills, the breakdowns at recycle and
 * kill, the suspects and the tests that did not pass. Report text never
 * reaches the page unescaped, and no report string becomes a tag, attribute
 * name, class or URL. The page is also well-formed XML (polyglot), so XML
 * tools can check it.
 * Over 800 lines on purpose: the page is one document (style, charts and
 * tables in the order the page shows them).
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "adapters.h"

#define DEFAULT_PATH   "memguard-report.html"
#define MAX_ROWS       50   /* per table; then a "N more" line */
#define MAX_MARKS      2000 /* generations drawn per lane; then a note */
#define MAX_BREAKDOWN  20   /* breakdowns shown per lane */
#define MAX_GROUPS     6    /* mapping groups shown per breakdown */
#define NAME_MAX_LEN   300  /* bytes of a name shown */
#define MSG_MAX_LEN    300
#define OUTPUT_MAX_LEN 4096 /* a generation's last output (2 KiB of stderr and how it ended) */
#define SITE_MAX_LEN   512  /* bytes of a site's line shown */

/* The chart's coordinate system (the SVG scales to the page width). */
#define CW      1000.0
#define CH      330.0
#define CLEFT   70.0
#define CRIGHT  865.0
#define CTOP    58.0
#define CBOTTOM 300.0
#define LROWS   3 /* rows of marker labels above the plot */

static const char css[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;"
    "color:#1f2328;background:#fff;margin:0 auto;padding:16px 24px;max-width:1180px}"
    "h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;"
    "border-bottom:1px solid #d0d7de;padding-bottom:4px}h3{font-size:15px;margin:18px 0 6px}"
    ".meta{color:#57606a;margin:0 0 4px}.meta b{color:#1f2328;font-weight:600}"
    ".badge{display:inline-block;padding:1px 8px;border-radius:10px;font-weight:600;"
    "color:#fff;margin-right:6px}.ok{background:#1a7f37}.bad{background:#cf222e}"
    ".warn{background:#9a6700}"
    "table{border-collapse:collapse;margin:6px 0;font-variant-numeric:tabular-nums}"
    "th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}"
    "th{background:#f6f8fa;font-weight:600}td.n,th.n{text-align:right;white-space:nowrap}"
    "tr.total td{font-weight:600;background:#f6f8fa}td.name{word-break:break-all;"
    "font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}"
    ".more{color:#57606a;font-style:italic;margin:2px 0 10px}"
    "pre.out{margin:4px 0 0;white-space:pre-wrap;word-break:break-all;font-size:12px;"
    "font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;max-height:16em;"
    "overflow:auto}"
    "svg.chart{width:100%;height:auto;display:block;border:1px solid #d0d7de;"
    "border-radius:6px;background:#fff}"
    "svg text{font:11px system-ui,sans-serif;fill:#57606a}"
    "svg .axis{stroke:#8c959f;stroke-width:1}svg .grid{stroke:#eaeef2;stroke-width:1}"
    "svg .g0{fill:#eaf1fb}svg .g1{fill:#f6f4ee}"
    "svg .va{fill:none;stroke:#0969da;stroke-width:1.6;stroke-linejoin:round}"
    "svg .peak{fill:#0969da;stroke:#fff;stroke-width:1}"
    "svg .rss{fill:none;stroke:#1a7f37;stroke-width:1.4;stroke-linejoin:round}"
    "svg .soft{stroke:#bf8700;stroke-width:1.3;stroke-dasharray:7 4}"
    "svg .hard{stroke:#cf222e;stroke-width:1.3;stroke-dasharray:7 4}"
    "svg .rsslim{stroke:#1a7f37;stroke-width:1;stroke-dasharray:2 3}"
    "svg text.soft{fill:#9a6700;stroke:none}svg text.hard{fill:#cf222e;stroke:none}"
    "svg text.rsslim{fill:#1a7f37;stroke:none}"
    "svg .m-recycle line{stroke:#bf8700;stroke-width:1.4}"
    "svg .m-recycle text{fill:#9a6700;font-weight:600}"
    "svg .m-kill line{stroke:#cf222e;stroke-width:2}svg .m-kill text{fill:#cf222e;"
    "font-weight:600}svg .m-crash line{stroke:#8250df;stroke-width:2}"
    "svg .m-crash text{fill:#8250df;font-weight:600}"
    "svg .m-other line{stroke:#57606a;stroke-width:1.4}svg .m-other text{fill:#57606a}"
    "svg text.gen{fill:#8c959f;font-size:10px}"
    ".legend{margin:4px 0 0;color:#57606a;font-size:13px}.legend span{margin-right:14px;"
    "white-space:nowrap}.sw{display:inline-block;width:18px;height:0;vertical-align:middle;"
    "margin-right:4px;border-top:3px solid}.box{display:inline-block;width:12px;"
    "height:12px;vertical-align:middle;margin-right:4px;border:1px solid #d0d7de}"
    ".stack{display:flex;height:22px;border:1px solid #d0d7de;border-radius:4px;"
    "overflow:hidden;max-width:900px;background:#fff}.stack span{display:block;height:100%}"
    ".bd{margin:10px 0 14px}.bd p{margin:2px 0}.bd ul{margin:4px 0 0;padding-left:20px}"
    ".c0{background:#0969da}.c1{background:#54aeff}.c2{background:#bf8700}"
    ".c3{background:#8250df}.c4{background:#1a7f37}.c5{background:#6e7781}"
    ".c6{background:#d0d7de}.c7{background:#cf222e}.c8{background:#e16f24}"
    ".nav{margin:8px 0 0;font-size:13px}.nav a{color:#0969da;text-decoration:none}"
    "code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}";

/* ---- text ------------------------------------------------------------------ */

/* s cleaned (invalid UTF-8 -> U+FFFD, control bytes -> \xNN, at most max
 * bytes) and escaped for HTML text and quoted attribute values alike. */
static void put_text(FILE *f, const char *s, size_t max)
{
	adapters_put_html(f, s, max);
}

static void put_size(FILE *f, uint64_t bytes)
{
	char buf[32];
	report_format_size(buf, sizeof(buf), bytes);
	fputs(buf, f);
}

static void put_signed_size(FILE *f, int64_t bytes)
{
	if (bytes < 0)
		fputs("\xe2\x88\x92", f); /* U+2212 minus */
	put_size(f, bytes < 0 ? (uint64_t)0 - (uint64_t)bytes : (uint64_t)bytes);
}

static void put_duration(FILE *f, double seconds)
{
	char buf[32];
	report_format_duration(buf, sizeof(buf), seconds);
	fputs(buf, f);
}

static void put_more(FILE *f, size_t shown, size_t total, const char *what)
{
	if (total > shown)
		fprintf(f, "<p class=\"more\">%zu more %s not shown</p>\n", total - shown, what);
}

/* ---- limits ---------------------------------------------------------------- */

/* For reports without the limits in bytes: the bytes of key= in a limits
 * text as limits_format writes it
 * ("va=3.50GiB,rss=6.00GiB (address space capped at 4.00 GiB)"); 0 when the
 * key is absent, a percentage or unreadable. */
static uint64_t limit_value(const char *text, const char *key)
{
	size_t klen = strlen(key);
	if (!text)
		return 0;
	for (const char *p = text; (p = strstr(p, key)) != NULL; p += klen) {
		if ((p != text && p[-1] != ',' && p[-1] != ' ') || p[klen] != '=')
			continue;
		char *end;
		double v = strtod(p + klen + 1, &end);
		if (end == p + klen + 1 || !(v >= 0) || v > 1e20)
			return 0;
		while (*end == ' ')
			end++;
		double mul = 1;
		switch (toupper((unsigned char)*end)) {
		case 'K':
			mul = 1024.0;
			break;
		case 'M':
			mul = 1024.0 * 1024;
			break;
		case 'G':
			mul = 1024.0 * 1024 * 1024;
			break;
		case 'T':
			mul = 1024.0 * 1024 * 1024 * 1024;
			break;
		case '%':
			return 0;
		default:
			break;
		}
		return (uint64_t)(v * mul + 0.5);
	}
	return 0;
}

/* ---- the chart --------------------------------------------------------------- */

typedef struct scale {
	double tmax;
	double ymax;
} scale;

static double sx(const scale *s, double t)
{
	double x = CLEFT + (CRIGHT - CLEFT) * (t / s->tmax);
	return x < CLEFT ? CLEFT : x > CRIGHT ? CRIGHT : x;
}

static double sy(const scale *s, uint64_t v)
{
	return CBOTTOM - (CBOTTOM - CTOP) * ((double)v / s->ymax);
}

static const char *mark_class(report_end end)
{
	switch (end) {
	case REPORT_END_RECYCLE:
		return "m-recycle";
	case REPORT_END_KILL:
		return "m-kill";
	case REPORT_END_CRASH:
	case REPORT_END_TIMEOUT:
	case REPORT_END_ERROR:
		return "m-crash";
	case REPORT_END_INTERRUPTED:
		return "m-other";
	default:
		return NULL; /* quit, exit: the lane simply ended; running: not ended */
	}
}

/* A limit is drawn on the scale unless it dwarfs what was measured (a 128
 * TiB x64 address-space limit would flatten the lines to nothing). */
static int on_scale(uint64_t limit, uint64_t data_max)
{
	return limit && (data_max == 0 || limit <= 4 * data_max);
}

static void limit_line(FILE *f, const scale *s, uint64_t v, const char *cls, const char *label,
                       double *last_y)
{
	double y = sy(s, v);
	double ty = y + 4;
	/* keep labels of close limits apart */
	if (*last_y - ty < 13 && *last_y > 0)
		ty = *last_y - 13;
	*last_y = ty;
	fprintf(f,
	        "<line class=\"%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
	        "<text class=\"%s\" x=\"%.1f\" y=\"%.1f\">%s ",
	        cls, CLEFT, y, CRIGHT, y, cls, CRIGHT + 6, ty, label);
	put_size(f, v);
	fputs("</text>\n", f);
}

/* The generation g of sh, or NULL when the shard does not list it. */
static const report_generation *gen_of(const report_shard *sh, uint32_t g)
{
	for (size_t i = 0; i < sh->ngens; i++)
		if (sh->gens[i].index == g)
			return &sh->gens[i];
	return NULL;
}

/*
 * One polyline per host generation: a line between the last sample of one
 * host and the first of the next would draw memory no process held. The
 * timeline is downsampled, so a fast peak can fall between its points: the
 * highest VA point of each generation is drawn at the generation's recorded
 * peak_va when that is higher, and marked (circle.peak) at that value.
 */
static void polylines(FILE *f, const scale *s, const report_shard *sh, int rss)
{
	for (size_t i = 0; i < sh->ntimeline;) {
		size_t end = i, top = i;
		while (end < sh->ntimeline &&
		       sh->timeline[end].generation == sh->timeline[i].generation) {
			if (sh->timeline[end].va > sh->timeline[top].va)
				top = end;
			end++;
		}
		const report_generation *g = gen_of(sh, sh->timeline[i].generation);
		uint64_t peak =
		    g && g->peak_va > sh->timeline[top].va ? g->peak_va : sh->timeline[top].va;
		fprintf(f, "<polyline class=\"%s\" data-gen=\"%u\" points=\"", rss ? "rss" : "va",
		        sh->timeline[i].generation);
		for (size_t k = i; k < end; k++) {
			const report_point *p = &sh->timeline[k];
			uint64_t v = rss ? p->rss : k == top ? peak : p->va;
			fprintf(f, "%s%.1f,%.1f", k > i ? " " : "", sx(s, p->t), sy(s, v));
		}
		fprintf(f, "\"><title>%s, host %u</title></polyline>\n", rss ? "RSS" : "VA",
		        sh->timeline[i].generation);
		if (!rss && g) {
			fprintf(
			    f,
			    "<circle class=\"peak\" data-gen=\"%u\" data-va=\"%llu\" cx=\"%.1f\" "
			    "cy=\"%.1f\" r=\"3\"><title>host %u peak VA ",
			    g->index, (unsigned long long)peak, sx(s, sh->timeline[top].t),
			    sy(s, peak), g->index);
			put_size(f, peak);
			fputs("</title></circle>\n", f);
		}
		i = end;
	}
}

/* The recorded peak of each drawn generation that has no sample in the
 * timeline (a host that lived less than one sampling interval), at its end. */
static void lone_peaks(FILE *f, const scale *s, const report_shard *sh, size_t ndraw)
{
	unsigned char *seen = calloc(ndraw ? ndraw : 1, 1);
	if (!seen)
		abort();
	size_t last = 0; /* points come in generation order: usually the same as before */
	for (size_t i = 0; i < sh->ntimeline && ndraw; i++) {
		if (sh->gens[last].index == sh->timeline[i].generation)
			continue;
		for (size_t g = 0; g < ndraw; g++)
			if (sh->gens[g].index == sh->timeline[i].generation) {
				seen[g] = 1;
				last = g;
				break;
			}
	}
	if (ndraw && sh->ntimeline && sh->gens[0].index == sh->timeline[0].generation)
		seen[0] = 1;
	for (size_t g = 0; g < ndraw; g++) {
		const report_generation *gen = &sh->gens[g];
		if (seen[g] || !gen->peak_va)
			continue;
		fprintf(f,
		        "<circle class=\"peak\" data-gen=\"%u\" data-va=\"%llu\" cx=\"%.1f\" "
		        "cy=\"%.1f\" r=\"3\"><title>host %u peak VA ",
		        gen->index, (unsigned long long)gen->peak_va, sx(s, gen->start + gen->wall),
		        sy(s, gen->peak_va), gen->index);
		put_size(f, gen->peak_va);
		fputs(" (no samples)</title></circle>\n", f);
	}
	free(seen);
}

static void chart(FILE *f, const report *r, const report_shard *sh, const char *label)
{
	/* the limits as numbers; a report from before they were written has
	 * only the display strings, read back */
	uint64_t soft = r->has_limit_bytes ? r->soft.va : limit_value(r->limits_soft, "va");
	uint64_t hard = r->has_limit_bytes ? r->hard.va : limit_value(r->limits_hard, "va");
	uint64_t soft_rss = r->has_limit_bytes ? r->soft.rss : limit_value(r->limits_soft, "rss");
	uint64_t hard_rss = r->has_limit_bytes ? r->hard.rss : limit_value(r->limits_hard, "rss");
	/* an rss budget is shared by the lanes: each chart draws its lane's part */
	if (sh->rss_soft || sh->rss_hard) {
		soft_rss = sh->rss_soft;
		hard_rss = sh->rss_hard;
	}
	uint64_t data = sh->peak_va > sh->peak_rss ? sh->peak_va : sh->peak_rss;
	double tmax = 0;
	for (size_t i = 0; i < sh->ntimeline; i++) {
		const report_point *p = &sh->timeline[i];
		data = p->va > data ? p->va : data;
		data = p->rss > data ? p->rss : data;
		tmax = p->t > tmax ? p->t : tmax;
	}
	for (size_t i = 0; i < sh->ngens; i++) {
		double e = sh->gens[i].start + sh->gens[i].wall;
		data = sh->gens[i].peak_va > data ? sh->gens[i].peak_va : data;
		tmax = e > tmax ? e : tmax;
	}
	uint64_t top = data;
	const uint64_t lims[4] = {soft, hard, soft_rss, hard_rss};
	for (int i = 0; i < 4; i++)
		if (on_scale(lims[i], data) && lims[i] > top)
			top = lims[i];
	scale s = {tmax > 0 ? tmax : 1.0, top ? (double)top * 1.06 : 1048576.0};

	fprintf(f,
	        "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f "
	        "%.0f\" data-ymax=\"%.0f\" role=\"img\" aria-label=\"VA and RSS over time, lane "
	        "%s\">\n",
	        CW, CH, s.ymax, label);

	/* host generations, shaded alternately */
	size_t ndraw = sh->ngens < MAX_MARKS ? sh->ngens : MAX_MARKS;
	for (size_t i = 0; i < ndraw; i++) {
		const report_generation *g = &sh->gens[i];
		double x0 = sx(&s, g->start), x1 = sx(&s, g->start + g->wall);
		fprintf(f,
		        "<rect class=\"g%zu\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		        "height=\"%.1f\"><title>host %u (pid %ld): ",
		        i % 2, x0, CTOP, x1 - x0 > 0.3 ? x1 - x0 : 0.3, CBOTTOM - CTOP, g->index,
		        g->pid);
		fprintf(f, "%u test%s, peak VA ", g->tests_run, g->tests_run == 1 ? "" : "s");
		put_size(f, g->peak_va);
		fputs("</title></rect>\n", f);
		if (ndraw <= 40 && x1 - x0 > 24)
			fprintf(f, "<text class=\"gen\" x=\"%.1f\" y=\"%.1f\">host %u</text>\n",
			        x0 + 3, CBOTTOM - 4, g->index);
	}

	/* grid and axes */
	double ystep = 4096;
	while (s.ymax / ystep > 8)
		ystep *= 2;
	for (double v = 0; v <= s.ymax; v += ystep) {
		double y = sy(&s, (uint64_t)v);
		fprintf(f,
		        "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
		        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
		        CLEFT, y, CRIGHT, y, CLEFT - 6, y + 4);
		put_size(f, (uint64_t)v);
		fputs("</text>\n", f);
	}
	static const double tsteps[] = {0.01, 0.02, 0.05, 0.1,  0.2,   0.5,   1,     2,
	                                5,    10,   15,   30,   60,    120,   300,   600,
	                                900,  1800, 3600, 7200, 10800, 21600, 43200, 86400};
	double tstep = tsteps[sizeof(tsteps) / sizeof(tsteps[0]) - 1];
	for (size_t i = 0; i < sizeof(tsteps) / sizeof(tsteps[0]); i++)
		if (s.tmax / tsteps[i] <= 10) {
			tstep = tsteps[i];
			break;
		}
	for (int k = 0; k * tstep <= s.tmax * 1.0001 && k < 200; k++) {
		double x = sx(&s, k * tstep);
		fprintf(f,
		        "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
		        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
		        x, CBOTTOM, x, CBOTTOM + 4, x, CBOTTOM + 17);
		put_duration(f, k * tstep);
		fputs("</text>\n", f);
	}
	fprintf(f,
	        "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
	        "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
	        CLEFT, CTOP, CLEFT, CBOTTOM, CLEFT, CBOTTOM, CRIGHT, CBOTTOM);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">time since start</text>\n",
	        CRIGHT, CH - 4);

	/* limits, highest label first so close ones stack upward */
	double last_y = 0;
	if (on_scale(soft_rss, data))
		limit_line(f, &s, soft_rss, "rsslim", "RSS recycle", &last_y);
	if (on_scale(hard_rss, data))
		limit_line(f, &s, hard_rss, "rsslim", "RSS kill", &last_y);
	last_y = 0;
	if (on_scale(soft, data))
		limit_line(f, &s, soft, "soft", "recycle", &last_y);
	if (on_scale(hard, data))
		limit_line(f, &s, hard, "hard", "kill", &last_y);

	if (sh->ntimeline) {
		polylines(f, &s, sh, 1);
		polylines(f, &s, sh, 0);
		lone_peaks(f, &s, sh, ndraw);
	} else {
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">no samples</text>\n",
		        (CLEFT + CRIGHT) / 2, (CTOP + CBOTTOM) / 2);
		lone_peaks(f, &s, sh, ndraw);
	}

	/* recycles and kills: a line at the generation's end, a label above
	 * the plot in the first row where it does not overlap another */
	double row_end[LROWS];
	for (int k = 0; k < LROWS; k++)
		row_end[k] = -1e9;
	unsigned nrec = 0, nkill = 0;
	for (size_t i = 0; i < ndraw; i++) {
		const report_generation *g = &sh->gens[i];
		const char *cls = mark_class(g->end);
		if (!cls)
			continue;
		char text[48];
		if (g->end == REPORT_END_RECYCLE)
			snprintf(text, sizeof(text), "recycle %u", ++nrec);
		else if (g->end == REPORT_END_KILL)
			snprintf(text, sizeof(text), "kill %u", ++nkill);
		else
			snprintf(text, sizeof(text), "%.20s", report_end_name(g->end));
		double x = sx(&s, g->start + g->wall);
		fprintf(f, "<g class=\"%s\"><title>host %u (pid %ld) ended by %s after %u test%s",
		        cls, g->index, g->pid, cls + 2, g->tests_run, g->tests_run == 1 ? "" : "s");
		if (g->reason) {
			fputs(": ", f);
			put_text(f, g->reason, MSG_MAX_LEN);
		}
		fprintf(f, "</title><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x,
		        CTOP - 8, x, CBOTTOM);
		double w = 6.2 * (double)strlen(text) + 8;
		double lx = x - w / 2;
		lx = lx < CLEFT - 30 ? CLEFT - 30 : lx + w > CW - 2 ? CW - 2 - w : lx;
		for (int k = 0; k < LROWS; k++)
			if (lx >= row_end[k]) {
				row_end[k] = lx + w;
				fprintf(
				    f,
				    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>",
				    lx + w / 2, CTOP - 12 - 13.0 * k, text);
				break;
			}
		fputs("</g>\n", f);
	}
	fputs("</svg>\n", f);
	fputs("<p class=\"legend\"><span><i class=\"sw\" style=\"border-color:#0969da\"></i>VA "
	      "(highest per interval)</span><span><i class=\"sw\" "
	      "style=\"border-color:#1a7f37\"></i>RSS</span>",
	      f);
	if (on_scale(soft, data))
		fputs(
		    "<span><i class=\"sw\" style=\"border-top-style:dashed;border-color:#bf8700\">"
		    "</i>recycle limit (VA)</span>",
		    f);
	if (on_scale(hard, data))
		fputs(
		    "<span><i class=\"sw\" style=\"border-top-style:dashed;border-color:#cf222e\">"
		    "</i>kill limit (VA)</span>",
		    f);
	fputs("<span><i class=\"box\" style=\"background:#eaf1fb\"></i><i class=\"box\" "
	      "style=\"background:#f6f4ee\"></i>host "
	      "generations</span></p>\n",
	      f);
	if (sh->ngens > ndraw)
		fprintf(f, "<p class=\"more\">%zu more host generations not drawn</p>\n",
		        sh->ngens - ndraw);
	if ((soft && !on_scale(soft, data)) || (hard && !on_scale(hard, data))) {
		fputs("<p class=\"more\">VA limits off the scale:", f);
		if (soft && !on_scale(soft, data)) {
			fputs(" recycle ", f);
			put_size(f, soft);
		}
		if (hard && !on_scale(hard, data)) {
			fputs(" kill ", f);
			put_size(f, hard);
		}
		fputs("</p>\n", f);
	}
}

/* ---- tables ---------------------------------------------------------------- */

static void shard_row(FILE *f, const char *label, const char *arch, const report_totals *t,
                      double wall, int total)
{
	fprintf(f, "<tr%s><td>", total ? " class=\"total\"" : "");
	put_text(f, label, 64);
	fputs("</td><td>", f);
	put_text(f, arch, 32);
	fprintf(f,
	        "</td><td class=\"n\">%llu</td><td class=\"n\">%llu</td><td class=\"n\">%llu</td>"
	        "<td class=\"n\">%llu</td><td class=\"n\">",
	        (unsigned long long)t->tests, (unsigned long long)t->counts[TEST_PASS],
	        (unsigned long long)t->failed, (unsigned long long)t->other);
	put_size(f, t->peak_va);
	fputs("</td><td class=\"n\">", f);
	put_size(f, t->peak_rss);
	fprintf(f, "</td><td class=\"n\">%llu</td><td class=\"n\">%llu</td><td class=\"n\">",
	        (unsigned long long)t->recycles, (unsigned long long)t->kills);
	put_duration(f, wall);
	fputs("</td></tr>\n", f);
}

static void shard_table(FILE *f, const report *r)
{
	fputs("<h2 id=\"shards\">Shards</h2>\n<table class=\"shards\">\n<tr><th>shard</th>"
	      "<th>arch</th><th class=\"n\">tests</th><th class=\"n\">passed</th>"
	      "<th class=\"n\">failed</th><th class=\"n\">other</th><th class=\"n\">peak VA</th>"
	      "<th class=\"n\">peak RSS</th><th class=\"n\">recycles</th><th "
	      "class=\"n\">kills</th><th class=\"n\">wall</th></tr>\n",
	      f);
	size_t shown = r->nshards < MAX_ROWS ? r->nshards : MAX_ROWS;
	for (size_t i = 0; i < shown; i++) {
		const report_shard *s = &r->shards[i];
		char label[32];
		adapters_shard_label(r, s, label, sizeof(label));
		report_totals t = adapters_shard_totals(s);
		shard_row(f, label, s->arch ? s->arch : "?", &t, s->wall, 0);
	}
	if (r->nshards > 1)
		shard_row(f, "total", "", &r->totals, r->wall, 1);
	fputs("</table>\n", f);
	put_more(f, shown, r->nshards, "shards");
}

/* Under a suspect's row: where it allocated what it left (its top sites,
 * each with the items that pin it, and the later tests holding its
 * blocks); nothing when it has no sites. */
static void suspect_sites(FILE *f, const report *r, const char *name)
{
	if (!report_find_test_sites(r, name, NULL))
		return;
	adapters_html_list list = {0, SITE_MAX_LEN};
	fputs("<tr><td></td><td colspan=\"4\" class=\"name\"><ul>", f);
	adapters_suspect_site_lines(f, r, name, adapters_html_site_item, &list);
	fputs(list.open ? "</li></ul></td></tr>\n" : "</ul></td></tr>\n", f);
}

static void suspect_rows(FILE *f, const report *r, int memlimit, size_t *shown, size_t *total)
{
	*shown = *total = 0;
	for (size_t i = 0; i < r->nsuspects; i++) {
		const report_suspect *s = &r->suspects[i];
		if (!!s->alone_over_hard != memlimit)
			continue;
		if ((*total)++ >= MAX_ROWS)
			continue;
		(*shown)++;
		fprintf(f, "<tr><td class=\"n\">%zu</td><td class=\"name\">", *shown);
		put_text(f, s->name, NAME_MAX_LEN);
		fputs("</td><td class=\"n\">", f);
		put_signed_size(f, s->va_retained);
		fputs("</td><td class=\"n\">", f);
		put_signed_size(f, s->rss_retained);
		fprintf(f, "</td><td class=\"n\">%u / %u</td></tr>\n", s->grew, s->runs);
		suspect_sites(f, r, s->name);
	}
}

static void suspects(FILE *f, const report *r)
{
	static const char head[] =
	    "<tr><th class=\"n\">#</th><th>test</th><th class=\"n\">VA retained</th>"
	    "<th class=\"n\">RSS retained</th><th class=\"n\">grew / runs</th></tr>\n";
	size_t shown, total;
	fputs("<h2 id=\"suspects\">Suspects</h2>\n", f);
	if (!r->nsuspects) {
		fputs("<p>No test left memory behind.</p>\n", f);
		return;
	}
	size_t nmemlimit = 0;
	for (size_t i = 0; i < r->nsuspects; i++)
		nmemlimit += !!r->suspects[i].alone_over_hard;
	if (nmemlimit) {
		fprintf(f,
		        "<h3>Broke the hard limit alone in a fresh host (memory-limit)</h3>\n"
		        "<table class=\"suspects memlimit\">\n%s",
		        head);
		suspect_rows(f, r, 1, &shown, &total);
		fputs("</table>\n", f);
		put_more(f, shown, total, "memory-limit tests");
	}
	fprintf(f,
	        "<h3>Left memory behind (VA summed over runs)</h3>\n"
	        "<table class=\"suspects\">\n%s",
	        head);
	suspect_rows(f, r, 0, &shown, &total);
	fputs("</table>\n", f);
	put_more(f, shown, total, "suspects");
}

static int has_failures(const report *r)
{
	for (size_t i = 0; i < r->nshards; i++)
		for (size_t k = 0; k < r->shards[i].ntests; k++)
			if (r->shards[i].tests[k].state != TEST_PASS &&
			    r->shards[i].tests[k].state != TEST_SKIP)
				return 1;
	return 0;
}

static void not_passing(FILE *f, const report *r)
{
	size_t total = 0, shown = 0;
	for (size_t i = 0; i < r->nshards; i++)
		for (size_t k = 0; k < r->shards[i].ntests; k++) {
			test_state st = r->shards[i].tests[k].state;
			total += st != TEST_PASS && st != TEST_SKIP;
		}
	if (!total)
		return;
	fputs("<h2 id=\"failures\">Tests that did not pass</h2>\n<table class=\"failures\">\n"
	      "<tr><th>shard</th><th>test</th><th>state</th><th class=\"n\">host</th>"
	      "<th class=\"n\">VA after</th><th>message</th></tr>\n",
	      f);
	for (size_t i = 0; i < r->nshards && shown < MAX_ROWS; i++) {
		const report_shard *s = &r->shards[i];
		char label[32];
		adapters_shard_label(r, s, label, sizeof(label));
		for (size_t k = 0; k < s->ntests && shown < MAX_ROWS; k++) {
			const report_test *t = &s->tests[k];
			if (t->state == TEST_PASS || t->state == TEST_SKIP)
				continue;
			shown++;
			fprintf(f, "<tr><td>%s</td><td class=\"name\">", label);
			put_text(f, t->name, NAME_MAX_LEN);
			fprintf(f, "</td><td>%s%s</td><td class=\"n\">%u</td><td class=\"n\">",
			        report_state_name(t->state), t->attempts > 1 ? " (retried)" : "",
			        t->generation);
			put_size(f, t->va_after);
			fputs("</td><td>", f);
			put_text(f, t->message, MSG_MAX_LEN);
			fputs("</td></tr>\n", f);
		}
	}
	fputs("</table>\n", f);
	put_more(f, shown, total, "tests");
}

/* ---- per lane ---------------------------------------------------------------- */

static int category_class(const char *name)
{
	static const char *const known[] = {"heap", "anon", "stack",    "shm",
	                                    "file", "code", "reserved", NULL};
	for (int i = 0; name && known[i]; i++)
		if (!strcmp(name, known[i]))
			return i;
	return 8;
}

/* Under a recycle's or kill's breakdown: where the tests its host ran
 * allocated what they left (the tests with the most, each with its top
 * sites); nothing without sites. */
static void breakdown_sites(FILE *f, const report_shard *s, const report_generation *g,
                            const report_breakdown *b)
{
	const report_test_sites *top[REPORT_SITES_SHOWN];
	uint64_t bytes[REPORT_SITES_SHOWN];
	if (!b->when || !strcmp(b->when, "peak"))
		return;
	static const char *const head[] = {
	    "<p>allocated by the tests it ran:</p>\n<ul>",
	    "<p>earlier tests' blocks held by the items of:</p>\n<ul>"};
	for (int held = 0; held < 2; held++) {
		report_sites_which which = held ? REPORT_SITES_HELD : REPORT_SITES_OWN;
		size_t n = adapters_generation_sites(s, g, which, top, bytes, REPORT_SITES_SHOWN);
		if (!n)
			continue;
		fputs(head[held], f);
		for (size_t i = 0; i < n; i++) {
			adapters_html_list list = {0, SITE_MAX_LEN};
			fputs("<li>", f);
			put_size(f, bytes[i]);
			fputs(" in ", f);
			put_text(f, s->tests[top[i]->test].name, NAME_MAX_LEN);
			fputs("<ul>", f);
			adapters_site_lines_of(f, top[i], which, adapters_html_site_item, &list);
			fputs(list.open ? "</li></ul></li>" : "</ul></li>", f);
		}
		fputs("</ul>\n", f);
	}
}

/* gap: show the largest free gap (it only matters in a 32-bit space). */
static void breakdown(FILE *f, const report_generation *g, const report_breakdown *b, int gap)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < b->ncategories; i++)
		sum += b->categories[i].va;
	uint64_t whole = b->va > sum ? b->va : sum;
	fprintf(f, "<div class=\"bd\"><p><b>host %u</b> (pid %ld) at ", g->index, g->pid);
	put_text(f, b->when, 32);
	fputs(": VA ", f);
	put_size(f, b->va);
	if (gap && b->largest_gap) {
		fputs(", largest free gap ", f);
		put_size(f, b->largest_gap);
	}
	if (g->reason && b->when && strcmp(b->when, "peak")) {
		fputs(" \xe2\x80\x94 ", f);
		put_text(f, g->reason, MSG_MAX_LEN);
	}
	fputs("</p>\n<div class=\"stack\">", f);
	for (size_t i = 0; i < b->ncategories && whole; i++) {
		const report_category *c = &b->categories[i];
		double pct = 100.0 * (double)c->va / (double)whole;
		if (pct <= 0)
			continue;
		fprintf(f, "<span class=\"c%d\" style=\"width:%.2f%%\" title=\"",
		        category_class(c->name), pct);
		put_text(f, c->name, 64);
		fputc(' ', f);
		put_size(f, c->va);
		fputs("\"></span>", f);
	}
	fputs("</div>\n<p class=\"legend\">", f);
	for (size_t i = 0; i < b->ncategories; i++) {
		const report_category *c = &b->categories[i];
		if (!c->va)
			continue;
		fprintf(f, "<span><i class=\"box c%d\"></i>", category_class(c->name));
		put_text(f, c->name, 64);
		fputc(' ', f);
		put_size(f, c->va);
		if (c->rss) {
			fputs(" (RSS ", f);
			put_size(f, c->rss);
			fputc(')', f);
		}
		fputs("</span>", f);
	}
	fputs("</p>\n", f);
	if (b->ngroups) {
		/* the groups that matter: repeated mappings or a sizeable share */
		size_t n = 0;
		fputs("<ul class=\"groups\">", f);
		for (size_t i = 0; i < b->ngroups && n < MAX_GROUPS; i++) {
			const report_group *gr = &b->groups[i];
			if (i && gr->count < 2 && gr->total < whole / 100)
				continue;
			n++;
			fprintf(f, "<li><code>%llu \xc3\x97 ", (unsigned long long)gr->count);
			put_size(f, gr->size);
			fputc(' ', f);
			put_text(f, gr->name, NAME_MAX_LEN);
			fputs("</code> = ", f);
			put_size(f, gr->total);
			fputs("</li>", f);
		}
		fputs("</ul>\n", f);
		put_more(f, n, b->ngroups, "smaller mapping groups");
	}
	fputs("</div>\n", f);
}

/* A generation the table lists: a recycle, kill or crash, or one that
 * kept its program's last output (a gtest/catch2 program that died before
 * its first test: its tests passed in a fresh host, its death is here). */
static int gen_listed(const report_generation *g)
{
	return mark_class(g->end) != NULL || g->last_output != NULL;
}

static void generations(FILE *f, const report_shard *s)
{
	size_t total = 0, shown = 0;
	for (size_t i = 0; i < s->ngens; i++)
		total += gen_listed(&s->gens[i]);
	if (!total)
		return;
	fputs("<h3>Recycles and kills</h3>\n<table class=\"generations\">\n<tr><th "
	      "class=\"n\">host</th><th class=\"n\">pid</th><th>ended by</th><th "
	      "class=\"n\">at</th><th class=\"n\">tests</th><th class=\"n\">peak VA</th>"
	      "<th class=\"n\">peak RSS</th><th>why</th></tr>\n",
	      f);
	for (size_t i = 0; i < s->ngens && shown < MAX_ROWS; i++) {
		const report_generation *g = &s->gens[i];
		if (!gen_listed(g))
			continue;
		shown++;
		fprintf(f, "<tr><td class=\"n\">%u</td><td class=\"n\">%ld</td><td>", g->index,
		        g->pid);
		put_text(f, report_end_name(g->end), 32);
		fputs("</td><td class=\"n\">", f);
		put_duration(f, g->start + g->wall);
		fprintf(f, "</td><td class=\"n\">%u</td><td class=\"n\">", g->tests_run);
		put_size(f, g->peak_va);
		fputs("</td><td class=\"n\">", f);
		put_size(f, g->peak_rss);
		fputs("</td><td>", f);
		put_text(f, g->reason, MSG_MAX_LEN);
		if (g->last_output) { /* how it ended and its last words, as lines */
			fputs("<pre class=\"out\">", f);
			adapters_put_html_lines(f, g->last_output, OUTPUT_MAX_LEN);
			fputs("</pre>", f);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	put_more(f, shown, total, "recycles and kills");

	size_t nb = 0, bshown = 0;
	for (size_t i = 0; i < s->ngens; i++)
		nb += s->gens[i].nbreakdowns;
	if (!nb)
		return;
	fputs("<h3>What held the memory</h3>\n", f);
	for (size_t i = 0; i < s->ngens && bshown < MAX_BREAKDOWN; i++)
		for (size_t k = 0; k < s->gens[i].nbreakdowns && bshown < MAX_BREAKDOWN; k++) {
			breakdown(f, &s->gens[i], &s->gens[i].breakdowns[k],
			          s->arch && !strcmp(s->arch, "x86"));
			breakdown_sites(f, s, &s->gens[i], &s->gens[i].breakdowns[k]);
			bshown++;
		}
	put_more(f, bshown, nb, "breakdowns");
}

static void lane(FILE *f, const report *r, const report_shard *s)
{
	char label[32];
	adapters_shard_label(r, s, label, sizeof(label));
	fprintf(f, "<section class=\"lane\" id=\"lane-%s\">\n<h2>Lane %s \xe2\x80\x94 ", label,
	        label);
	put_text(f, s->suite, 120);
	fputs(" <small>(", f);
	put_text(f, s->arch, 32);
	fputs(", ", f);
	put_text(f, s->driver, 32);
	fprintf(f,
	        ")</small></h2>\n<p class=\"meta\"><b>%llu</b> tests, <b>%u</b> recycles, "
	        "<b>%u</b> kills, peak VA <b>",
	        (unsigned long long)adapters_shard_totals(s).tests, s->recycles, s->kills);
	put_size(f, s->peak_va);
	fputs("</b>, peak RSS <b>", f);
	put_size(f, s->peak_rss);
	fputs("</b>, wall ", f);
	put_duration(f, s->wall);
	fputs("; <code>", f);
	put_text(f, s->command, 400);
	fputs("</code></p>\n", f);
	chart(f, r, s, label);
	generations(f, s);
	fputs("</section>\n", f);
}

/* ---- the page ---------------------------------------------------------------- */

static void header(FILE *f, const report *r)
{
	const report_totals *tot = &r->totals;
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
	      "<title>memguard report",
	      f);
	if (r->nshards) {
		fputs(" \xe2\x80\x94 ", f);
		put_text(f, r->shards[0].suite, 80);
	}
	fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>memguard report", css);
	if (r->nshards) {
		fputs(": ", f);
		put_text(f, r->shards[0].suite, 120);
	}
	fputs("</h1>\n<p class=\"meta\">", f);
	if (r->interrupted)
		fputs("<span class=\"badge warn\">interrupted</span>", f);
	fprintf(f, "<span class=\"badge %s\">%s</span>", tot->failed ? "bad" : "ok",
	        tot->failed ? "failures" : "all passed");
	fprintf(f,
	        "<b>%llu</b> tests: <b>%llu</b> passed, <b>%llu</b> failed, <b>%llu</b> other; "
	        "<b>%llu</b> recycles, <b>%llu</b> kills; exit code <b>%d</b></p>\n",
	        (unsigned long long)tot->tests, (unsigned long long)tot->counts[TEST_PASS],
	        (unsigned long long)tot->failed, (unsigned long long)tot->other,
	        (unsigned long long)tot->recycles, (unsigned long long)tot->kills, r->exit_code);
	adapters_approximate_lines(
	    r, f, "<p class=\"meta\"><span class=\"badge warn\">approximate</span>", "</p>\n",
	    adapters_put_html);
	fputs("<p class=\"meta\">", f);
	if (r->sha) {
		char sha[13];
		snprintf(sha, sizeof(sha), "%.12s", r->sha);
		fputs("commit <code>", f);
		put_text(f, sha, 0);
		fputs("</code>", f);
		if (r->branch) {
			fputs(" on <code>", f);
			put_text(f, r->branch, 120);
			fputs("</code>", f);
		}
		if (r->dirty)
			fputs(" (uncommitted changes)", f);
	} else {
		put_text(f, r->repo_note ? r->repo_note : "no commit", 120);
	}
	char when[64];
	if (report_format_time(when, sizeof(when), r->start_time, "%Y-%m-%d %H:%M:%S UTC") < 0)
		snprintf(when, sizeof(when), "?");
	fprintf(f, "; node %u/%u; started %s; wall ", r->node_index, r->node_total, when);
	put_duration(f, r->wall);
	fputs("; memguard ", f);
	put_text(f, r->tool_version, 32);
	fputs("</p>\n<p class=\"meta\">limits: recycle at <code>", f);
	put_text(f, r->limits_soft ? r->limits_soft : "-", 200);
	fputs("</code>, kill at <code>", f);
	put_text(f, r->limits_hard ? r->limits_hard : "-", 200);
	fputs("</code></p>\n", f);
}

static void page(FILE *f, const report *r)
{
	size_t shown = r->nshards < MAX_ROWS ? r->nshards : MAX_ROWS;
	header(f, r);
	/* in-page links only */
	fputs("<p class=\"nav\"><a href=\"#shards\">shards</a>", f);
	for (size_t i = 0; i < shown; i++) {
		char label[32];
		adapters_shard_label(r, &r->shards[i], label, sizeof(label));
		fprintf(f, " \xc2\xb7 <a href=\"#lane-%s\">lane %s</a>", label, label);
	}
	fputs(" \xc2\xb7 <a href=\"#suspects\">suspects</a>", f);
	if (has_failures(r))
		fputs(" \xc2\xb7 <a href=\"#failures\">tests that did not pass</a>", f);
	fputs("</p>\n", f);
	shard_table(f, r);
	for (size_t i = 0; i < shown; i++)
		lane(f, r, &r->shards[i]);
	put_more(f, shown, r->nshards, "lanes");
	suspects(f, r);
	not_passing(f, r);
	fputs("</body>\n</html>\n", f);
}

/* path NULL: memguard-report.html in the current directory; "-": stdout. */
int html_render(const report *r, const char *path, mg_err *err)
{
	adapters_out o;
	int rc = adapters_out_open(&o, path ? path : DEFAULT_PATH, err);
	if (rc)
		return rc;
	page(o.f, r);
	return adapters_out_close(&o, 1, err);
}

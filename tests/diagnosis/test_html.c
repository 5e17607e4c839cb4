/*
 * test_html.c - the html adapter: the page parses as HTML (libxml2's HTML
 * parser) and as XML, holds one chart per lane with its lines, limits and
 * markers, the tables and suspects, fetches nothing, escapes every name and
 * stays bounded for a run of 100,000 tests.
 */
#include <dirent.h>
#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "adapters.h"
#include "fixture.h"
#include "mg_test.h"

typedef struct page {
	char path[64];
	char *text;
	size_t len;
	xmlDocPtr xml; /* the page read as XML (it is written polyglot) */
	xmlXPathContextPtr xp;
} page;

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	size_t got = fread(buf, 1, (size_t)n, f);
	buf[got] = '\0';
	fclose(f);
	*len = got;
	return buf;
}

/* How many names the directory of path holds besides . and ..: 1 when the
 * page is there and no temporary was left behind. */
static int dir_entries(const char *path)
{
	char dir[128];
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	DIR *d = opendir(dir);
	int n = 0;
	if (!d)
		return -1;
	for (struct dirent *e; (e = readdir(d)) != NULL;)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

static void render(page *p, report *r)
{
	mg_err err = {0};
	char dir[] = "/tmp/mg-html-XXXXXX";
	memset(p, 0, sizeof(*p));
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(p->path, sizeof(p->path), "%s/page.html", dir);
	char spec[96];
	snprintf(spec, sizeof(spec), "html=%s", p->path);
	int rc = adapters_render(r, spec, &err);
	if (rc)
		fprintf(stderr, "render: %s\n", err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	report_free(r);
	p->text = slurp(p->path, &p->len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p->text);
	p->xml = xmlReadMemory(p->text, (int)p->len, p->path, "UTF-8", XML_PARSE_NONET);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p->xml);
	p->xp = xmlXPathNewContext(p->xml);
	xmlXPathRegisterNs(p->xp, BAD_CAST "svg", BAD_CAST "http://www.w3.org/2000/svg");
}

static void done(page *p)
{
	CU_ASSERT_EQUAL(dir_entries(p->path), 1); /* no temporary left behind */
	xmlXPathFreeContext(p->xp);
	xmlFreeDoc(p->xml);
	unlink(p->path);
	*strrchr(p->path, '/') = '\0';
	rmdir(p->path);
	free(p->text);
}

/* The number of nodes an XPath expression selects. */
static int count(page *p, const char *expr)
{
	xmlXPathObjectPtr o = xmlXPathEvalExpression(BAD_CAST expr, p->xp);
	if (!o) {
		fprintf(stderr, "bad xpath %s\n", expr);
		return -1;
	}
	int n = o->nodesetval ? o->nodesetval->nodeNr : 0;
	xmlXPathFreeObject(o);
	return n;
}

/* The string value of an XPath expression (malloc'd). */
static char *value(page *p, const char *expr)
{
	xmlXPathObjectPtr o = xmlXPathEvalExpression(BAD_CAST expr, p->xp);
	xmlChar *s = o ? xmlXPathCastToString(o) : NULL;
	char *out = strdup(s ? (const char *)s : "");
	xmlFree(s);
	xmlXPathFreeObject(o);
	return out;
}

/* The cells of the rows expr selects, joined by single spaces (malloc'd). */
static char *cells(page *p, const char *expr)
{
	char buf[1024] = "";
	char full[512];
	snprintf(full, sizeof(full), "%s/*[local-name()='td' or local-name()='th']", expr);
	xmlXPathObjectPtr o = xmlXPathEvalExpression(BAD_CAST full, p->xp);
	for (int i = 0; o && o->nodesetval && i < o->nodesetval->nodeNr; i++) {
		xmlChar *s = xmlNodeGetContent(o->nodesetval->nodeTab[i]);
		size_t len = strlen(buf);
		snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? " " : "", (const char *)s);
		xmlFree(s);
	}
	xmlXPathFreeObject(o);
	return strdup(buf);
}

static int contains(page *p, const char *needle)
{
	return strstr(p->text, needle) != NULL;
}

/* ---- cases ------------------------------------------------------------------- */

static int html_errors;

static void on_html_error(void *ctx, xmlErrorPtr e)
{
	(void)ctx;
	/* libxml2's HTML parser (HTML 4) does not know HTML5 and SVG tags */
	if (e->code == XML_HTML_UNKNOWN_TAG)
		return;
	fprintf(stderr, "HTML error %d at line %d: %s", e->code, e->line, e->message);
	html_errors++;
}

static void html_parses(void)
{
	page p;
	render(&p, diag_fixture_report());
	html_errors = 0;
	xmlSetStructuredErrorFunc(NULL, on_html_error);
	htmlDocPtr h = htmlReadMemory(p.text, (int)p.len, p.path, "UTF-8", HTML_PARSE_NONET);
	xmlSetStructuredErrorFunc(NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL(h);
	CU_ASSERT_EQUAL(html_errors, 0);
	xmlFreeDoc(h);
	CU_ASSERT(strncmp(p.text, "<!DOCTYPE html>\n", 16) == 0);
	CU_ASSERT_EQUAL(count(&p, "/*[local-name()='html']/*[local-name()='head']/"
	                          "*[local-name()='meta'][@charset='utf-8']"),
	                1);
	/* the whole page is valid UTF-8 */
	for (size_t i = 0; i < p.len;) {
		size_t n = report_utf8_valid_len((const unsigned char *)p.text + i, p.len - i);
		CU_ASSERT_FATAL(n > 0);
		i += n;
	}
	done(&p);
}

static void html_svg_per_shard(void)
{
	page p;
	render(&p, diag_fixture_report());
	CU_ASSERT_EQUAL(count(&p, "//svg:svg"), 2);
	/* one line per host generation: three per lane, none across a boundary */
	CU_ASSERT_EQUAL(count(&p, "//svg:svg/svg:polyline[@class='va']"), 6);
	CU_ASSERT_EQUAL(count(&p, "//svg:svg/svg:polyline[@class='rss']"), 6);
	/* 300 points in the lane, every one a pair of numbers inside the view
	 * box, each line's x range inside its generation's */
	int n = 0;
	double last_x = -1;
	for (int g = 1; g <= 3; g++) {
		char xpath[96];
		snprintf(xpath, sizeof(xpath),
		         "(//svg:svg)[1]/svg:polyline[@class='va'][%d]/@points", g);
		char *pts = value(&p, xpath);
		double first_x = -1;
		for (char *save = NULL, *tok = strtok_r(pts, " ", &save); tok;
		     tok = strtok_r(NULL, " ", &save), n++) {
			double x, y;
			CU_ASSERT_EQUAL(sscanf(tok, "%lf,%lf", &x, &y), 2);
			CU_ASSERT(x >= 0 && x <= 1000 && y >= 0 && y <= 330);
			if (first_x < 0)
				first_x = x;
			CU_ASSERT(x >= last_x);
			last_x = x;
		}
		CU_ASSERT(first_x >= 0);
		free(pts);
	}
	CU_ASSERT_EQUAL(n, 300);
	/* three host generations per lane, shaded alternately */
	CU_ASSERT_EQUAL(count(&p, "(//svg:svg)[1]/svg:rect[@class='g0']"), 2);
	CU_ASSERT_EQUAL(count(&p, "(//svg:svg)[1]/svg:rect[@class='g1']"), 1);
	done(&p);
}

static void html_limits(void)
{
	page p;
	render(&p, diag_fixture_report());
	/* va= of limits_soft and limits_hard, one line each per chart */
	CU_ASSERT_EQUAL(count(&p, "//svg:line[@class='soft']"), 2);
	CU_ASSERT_EQUAL(count(&p, "//svg:line[@class='hard']"), 2);
	CU_ASSERT_EQUAL(count(&p, "//svg:text[@class='soft'][.='recycle 3.50 GiB']"), 2);
	CU_ASSERT_EQUAL(count(&p, "//svg:text[@class='hard'][.='kill 3.75 GiB']"), 2);
	/* the soft line lies below the hard one (SVG y grows downward) */
	char *ys = value(&p, "(//svg:line[@class='soft'])[1]/@y1");
	char *yh = value(&p, "(//svg:line[@class='hard'])[1]/@y1");
	CU_ASSERT(atof(ys) > atof(yh));
	free(ys);
	free(yh);
	done(&p);
}

static void html_markers(void)
{
	page p;
	render(&p, diag_fixture_report());
	CU_ASSERT_EQUAL(count(&p, "//svg:g[@class='m-recycle']/svg:line"), 2);
	CU_ASSERT_EQUAL(count(&p, "//svg:g[@class='m-recycle']/svg:text[.='recycle 1']"), 2);
	CU_ASSERT_EQUAL(count(&p, "(//svg:svg)[1]/svg:g[@class='m-kill']/svg:text[.='kill 1']"), 1);
	CU_ASSERT_EQUAL(count(&p, "(//svg:svg)[2]/svg:g[@class='m-crash']/svg:text[.='crash']"), 1);
	/* the reason travels in the marker's tooltip, escaped */
	CU_ASSERT_EQUAL(count(&p, "//svg:g[@class='m-kill']/svg:title[contains(., "
	                          "'va 3.80 GiB >= kill 3.75 GiB')]"),
	                1);
	CU_ASSERT_EQUAL(count(&p, "//svg:g[@class='m-recycle']/svg:title[contains(., "
	                          "'<script>')]"),
	                2);
	/* the lane that simply ran out of tests has no marker */
	CU_ASSERT_EQUAL(count(&p, "//svg:g[starts-with(@class, 'm-')]"), 4);
	/* the marker sits where the generation ends: start 0.1 + wall 10 of 30 s */
	char *x = value(&p, "(//svg:g[@class='m-recycle'])[1]/svg:line/@x1");
	CU_ASSERT_DOUBLE_EQUAL(atof(x), 70 + 795 * (10.1 / 30), 0.2);
	free(x);
	done(&p);
}

static void html_tables(void)
{
	page p;
	render(&p, diag_fixture_report());
	/* per shard: header, two shards, total */
	CU_ASSERT_EQUAL(
	    count(&p, "//*[local-name()='table'][@class='shards']/*[local-name()='tr']"), 4);
	char *row = cells(&p, "//*[local-name()='table'][@class='shards']/*[local-name()='tr'][2]");
	CU_ASSERT_STRING_EQUAL(row, "0 x64 62 61 1 0 3.42 GiB 175 MiB 1 1 30.0s");
	free(row);
	row = cells(&p, "//*[local-name()='tr'][@class='total']");
	CU_ASSERT_STRING_EQUAL(row, "total  124 122 2 0 3.42 GiB 175 MiB 2 1 30.0s");
	free(row);
	/* recycles and kills per lane, with the reason */
	CU_ASSERT_EQUAL(count(&p, "//*[local-name()='table'][@class='generations']"), 2);
	CU_ASSERT_EQUAL(count(&p, "//*[local-name()='table'][@class='generations']/"
	                          "*[local-name()='tr'][contains(., 'kill')]"),
	                1);
	/* a stacked bar per breakdown (recycle and kill/crash in each lane),
	 * one segment per category with VA */
	CU_ASSERT_EQUAL(count(&p, "//*[@class='stack']"), 4);
	CU_ASSERT_EQUAL(count(&p, "(//*[@class='stack'])[1]/*[local-name()='span']"), 7);
	CU_ASSERT(contains(&p, "525 \xc3\x97 8.00 MiB /memfd:blocks</code> = 4.10 GiB"));
	/* tests that did not pass */
	CU_ASSERT_EQUAL(count(&p, "//*[local-name()='table'][@class='failures']/"
	                          "*[local-name()='tr']"),
	                3);
	done(&p);
}

static void html_suspects(void)
{
	page p;
	render(&p, diag_fixture_report());
	/* memory-limit tests apart from the ones that only left memory behind */
	CU_ASSERT_EQUAL(count(&p, "//*[local-name()='table'][@class='suspects memlimit']/"
	                          "*[local-name()='tr']"),
	                2);
	CU_ASSERT_EQUAL(count(&p, "//*[local-name()='table'][@class='suspects memlimit']//"
	                          "*[local-name()='td'][.='core/too_big_alone']"),
	                1);
	char *first =
	    cells(&p, "//*[local-name()='table'][@class='suspects']/*[local-name()='tr'][2]");
	CU_ASSERT_PTR_NOT_NULL(strstr(first, "700 MiB"));
	CU_ASSERT_PTR_NOT_NULL(strstr(first, "1 / 1"));
	free(first);
	/* the hostile suspect is there, escaped, invalid bytes as U+FFFD */
	CU_ASSERT_EQUAL(count(&p, "//*[local-name()='table'][@class='suspects']//"
	                          "*[local-name()='td'][starts-with(., 'suite/<script>')]"),
	                1);
	CU_ASSERT_EQUAL(count(&p, "//*[local-name()='table'][@class='suspects']/"
	                          "*[local-name()='tr']"),
	                1 + 2 + 6);
	done(&p);
}

static void html_no_network(void)
{
	page p;
	render(&p, diag_fixture_report());
	static const char *const banned[] = {
	    "<script", "<link",  "<img",  "<iframe", "<object",         "src=", "url(", "@import",
	    "http:",   "https:", "//cdn", "<base",   "<meta http-equiv"};
	for (size_t i = 0; i < sizeof(banned) / sizeof(banned[0]); i++) {
		/* the one namespace URI of inline SVG is not a fetch */
		char *copy = strdup(p.text), *s;
		while ((s = strstr(copy, "xmlns=\"http://www.w3.org/2000/svg\"")))
			memset(s, ' ', strlen("xmlns=\"http://www.w3.org/2000/svg\""));
		if (strstr(copy, banned[i]))
			fprintf(stderr, "page holds '%s'\n", banned[i]);
		CU_ASSERT_PTR_NULL(strstr(copy, banned[i]));
		free(copy);
	}
	/* links stay in the page */
	for (const char *h = p.text; (h = strstr(h, "href=")) != NULL; h++)
		CU_ASSERT(strncmp(h, "href=\"#", 7) == 0);
	CU_ASSERT_EQUAL(count(&p, "//*[local-name()='a'][@href='#suspects']"), 1);
	CU_ASSERT_EQUAL(count(&p, "//*[local-name()='a'][@href='#lane-1']"), 1);
	CU_ASSERT_EQUAL(count(&p, "//*[@id='lane-1']"), 1);
	done(&p);
}

static void html_escaped(void)
{
	page p;
	render(&p, diag_fixture_report());
	CU_ASSERT_PTR_NULL(strstr(p.text, "<script"));
	CU_ASSERT_PTR_NULL(strstr(p.text, "\xef\xbf\xbd<b>"));
	CU_ASSERT_PTR_NULL(strstr(p.text, "\"x\""));
	CU_ASSERT(contains(&p, "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &#39;q&#39; "
	                       "&amp; \xef\xbf\xbd\xef\xbf\xbd&lt;b&gt;"));
	/* in the title, the headings, a tooltip and a table cell alike */
	CU_ASSERT_EQUAL(count(&p, "//*[local-name()='title'][contains(., '<script>')]"), 2);
	CU_ASSERT_EQUAL(count(&p, "//*[local-name()='h2'][contains(., 'suite <script>')]"), 1);
	CU_ASSERT_EQUAL(count(&p, "//*[@class='stack']/*[contains(@title, 'heap')]"), 4);
	CU_ASSERT_EQUAL(count(&p, "//*[local-name()='li'][contains(., '/memfd:<script>')]"), 4);
	done(&p);
}

/*
 * A generation whose program died before its first test (its tests passed
 * in a fresh host) keeps how it ended and its last words (last_output):
 * listed with the recycles and kills, the text in a <pre>, its lines kept,
 * escaped; the page still parses as HTML and as XML. Before, a generation
 * that ended "exit" was not listed and its last output not shown.
 */
static void html_last_output(void)
{
	page p;
	report *r = diag_fixture_report();
	report_generation *g = &r->shards[0].gens[2];
	g->end = REPORT_END_EXIT;
	free(g->reason);
	g->reason = report_strdup("host exited with status 1 before its first test: 3 of its "
	                          "tests run again in a fresh host");
	g->last_output = report_strdup("the program exited with status 1 before its first test:\n"
	                               "<script>alert(\"x\")</script> & 'q'\n"
	                               "second line\n");
	render(&p, r);
	html_errors = 0;
	xmlSetStructuredErrorFunc(NULL, on_html_error);
	htmlDocPtr h = htmlReadMemory(p.text, (int)p.len, p.path, "UTF-8", HTML_PARSE_NONET);
	xmlSetStructuredErrorFunc(NULL, NULL);
	CU_ASSERT_PTR_NOT_NULL(h);
	CU_ASSERT_EQUAL(html_errors, 0);
	xmlFreeDoc(h);
	CU_ASSERT_EQUAL(count(&p, "(//*[local-name()='table'][@class='generations'])[1]/"
	                          "*[local-name()='tr'][contains(., 'exit')]"),
	                1);
	char *out = value(&p, "(//*[local-name()='table'][@class='generations'])[1]//"
	                      "*[local-name()='pre'][@class='out']");
	CU_ASSERT_STRING_EQUAL(out, "the program exited with status 1 before its first test:\n"
	                            "<script>alert(\"x\")</script> & 'q'\nsecond line\n");
	free(out);
	CU_ASSERT_PTR_NULL(strstr(p.text, "<script>alert"));
	CU_ASSERT(contains(&p,
	                   "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39;\n"
	                   "second line"));
	done(&p);
}

/*
 * The timeline is downsampled: a generation's recorded peak_va may fall
 * between its points. The chart draws it at the recorded value: a circle
 * per generation whose y is the recorded peak on the chart's scale, and
 * the line reaches it.
 */
static void html_peak_recorded(void)
{
	page p;
	report *r = diag_fixture_report();
	report_shard *s = &r->shards[0];
	uint64_t top = 0;
	for (size_t i = 0; i < s->ntimeline; i++)
		if (s->timeline[i].generation == 1 && s->timeline[i].va > top)
			top = s->timeline[i].va;
	const uint64_t peak = 3584ull << 20; /* 3.50 GiB: above every sample of host 1 */
	CU_ASSERT_FATAL(top < peak - (64ull << 20));
	s->gens[1].peak_va = peak;
	render(&p, r);
	char *va = value(&p, "(//svg:svg)[1]/svg:circle[@class='peak'][@data-gen='1']/@data-va");
	char *cy = value(&p, "(//svg:svg)[1]/svg:circle[@class='peak'][@data-gen='1']/@cy");
	char *ymax = value(&p, "(//svg:svg)[1]/@data-ymax");
	CU_ASSERT_EQUAL(strtoull(va, NULL, 10), peak);
	/* the plot spans y 300 (0 bytes) to 58 (ymax) */
	double want = 300.0 - (300.0 - 58.0) * (double)peak / atof(ymax);
	CU_ASSERT(atof(cy) > want - 0.11 && atof(cy) < want + 0.11);
	/* host 1's line reaches the peak: its highest point is the circle's y */
	char *pts = value(&p, "(//svg:svg)[1]/svg:polyline[@class='va'][@data-gen='1']/@points");
	double miny = 1e9;
	for (char *save = NULL, *tok = strtok_r(pts, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		double x, y;
		CU_ASSERT_EQUAL(sscanf(tok, "%lf,%lf", &x, &y), 2);
		miny = y < miny ? y : miny;
	}
	CU_ASSERT(miny > atof(cy) - 0.01 && miny < atof(cy) + 0.01);
	CU_ASSERT_EQUAL(count(&p, "(//svg:svg)[1]/svg:circle[@class='peak']"), 3);
	free(va);
	free(cy);
	free(ymax);
	free(pts);
	done(&p);
}

static void html_large(void)
{
	page p;
	render(&p, diag_fixture_large(100000, 4));
	CU_ASSERT(p.len < 2u << 20);
	CU_ASSERT_EQUAL(count(&p, "//svg:svg"), 4);
	/* 63 host generations per lane, one line each */
	CU_ASSERT_EQUAL(count(&p, "//svg:polyline[@class='va']"), 4 * 63);
	/* every table at most 50 rows (+ header), then a "N more" line */
	CU_ASSERT_EQUAL(count(&p, "//*[local-name()='table'][count(*[local-name()='tr']) > 51]"),
	                0);
	CU_ASSERT_EQUAL(count(&p, "//*[local-name()='table'][@class='suspects']/"
	                          "*[local-name()='tr']"),
	                51);
	CU_ASSERT(contains(&p, "150 more suspects not shown"));
	CU_ASSERT(contains(&p, "50 more tests not shown"));
	CU_ASSERT(contains(&p, "12 more recycles and kills not shown"));
	/* 62 recycles per lane: each marked; labels only where they fit */
	CU_ASSERT_EQUAL(count(&p, "(//svg:svg)[1]/svg:g[@class='m-recycle']"), 62);
	int labels = count(&p, "(//svg:svg)[1]/svg:g[@class='m-recycle']/svg:text");
	CU_ASSERT(labels > 5 && labels < 62);
	done(&p);
}

static void html_empty(void)
{
	page p;
	report *r = report_new();
	render(&p, r);
	CU_ASSERT_EQUAL(count(&p, "//svg:svg"), 0);
	CU_ASSERT(contains(&p, "No test left memory behind."));
	done(&p);
}

static void html_no_samples(void)
{
	page p;
	report *r = diag_fixture_report();
	for (size_t i = 0; i < r->nshards; i++)
		r->shards[i].ntimeline = 0;
	free(r->limits_soft);
	r->limits_soft = NULL;
	free(r->limits_hard);
	r->limits_hard = report_strdup("va=90%,rss=128TiB");
	render(&p, r);
	CU_ASSERT_EQUAL(count(&p, "//svg:svg"), 2);
	CU_ASSERT_EQUAL(count(&p, "//svg:text[.='no samples']"), 2);
	/* each generation's recorded peak still drawn: 3 hosts per lane */
	CU_ASSERT_EQUAL(count(&p, "//svg:circle[@class='peak']"), 6);
	CU_ASSERT_EQUAL(count(&p, "//svg:circle[@class='peak'][@data-va='3670016000']"), 6);
	CU_ASSERT_EQUAL(count(&p, "//svg:line[@class='soft' or @class='hard' or "
	                          "@class='rsslim']"),
	                0);
	done(&p);
}

/* Each chart draws its own lane's share of an rss budget (the report holds
 * the limits in bytes, and each shard its share), not the whole budget. */
static void html_lane_share(void)
{
	page p;
	report *r = diag_fixture_report();
	r->soft = (report_limits){7ull << 29, 6ull << 30, 0, 0};
	r->hard = (report_limits){15ull << 28, 8ull << 30, 0, 0};
	r->has_limit_bytes = 1;
	for (size_t i = 0; i < r->nshards; i++) {
		r->shards[i].rss_soft = 3ull << 30;
		r->shards[i].rss_hard = 4ull << 30;
	}
	render(&p, r);
	CU_ASSERT_EQUAL(count(&p, "//svg:text[@class='rsslim'][.='RSS kill 4.00 GiB']"), 2);
	CU_ASSERT_EQUAL(count(&p, "//svg:text[@class='rsslim'][.='RSS recycle 3.00 GiB']"), 2);
	CU_ASSERT_EQUAL(count(&p, "//svg:text[@class='rsslim'][.='RSS kill 8.00 GiB']"), 0);
	/* the va lines come from the numbers too */
	CU_ASSERT_EQUAL(count(&p, "//svg:text[@class='hard'][.='kill 3.75 GiB']"), 2);
	done(&p);
}

static void html_atomic(void)
{
	mg_err err = {0};
	char dir[] = "/tmp/mg-html-XXXXXX", path[64];
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/page.html", dir);
	FILE *f = fopen(path, "w");
	fputs("old", f);
	fclose(f);
	char spec[96];
	snprintf(spec, sizeof(spec), "html=%s", path);
	report *r = diag_fixture_report();
	CU_ASSERT_EQUAL(adapters_render(r, spec, &err), 0);
	size_t len;
	char *text = slurp(path, &len);
	CU_ASSERT(len > 1000 && strstr(text, "</html>\n") == text + len - 8);
	free(text);
	CU_ASSERT_EQUAL(dir_entries(path), 1);
	/* a directory that does not exist: an error naming the file */
	snprintf(spec, sizeof(spec), "html=%s/missing/page.html", dir);
	CU_ASSERT(adapters_render(r, spec, &err) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "missing/page.html: cannot create a temporary"));
	report_free(r);
	unlink(path);
	rmdir(dir);
}

static const mg_case cases[] = {
    {"html_parses", html_parses},
    {"html_svg_per_shard", html_svg_per_shard},
    {"html_limits", html_limits},
    {"html_markers", html_markers},
    {"html_tables", html_tables},
    {"html_suspects", html_suspects},
    {"html_no_network", html_no_network},
    {"html_escaped", html_escaped},
    {"html_large", html_large},
    {"html_empty", html_empty},
    {"html_no_samples", html_no_samples},
    {"html_atomic", html_atomic},
    {"html_lane_share", html_lane_share},
    {"html_peak_recorded", html_peak_recorded},
    {"html_last_output", html_last_output},
};

MG_TEST_MAIN("diagnosis", cases)

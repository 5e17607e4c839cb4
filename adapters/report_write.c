/*
 * report_write.c - the report's JSON form, out: the whole tree
 * (report_to_json, for small reports and tests) and the stream writer
 * (report_write) that dumps each test as it goes, so a million tests never
 * become one tree. Jansson only; no hand-built JSON.
 */
#include "report_int.h"

#include "atomic.h"
#include "mg_exit.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- to JSON --------------------------------------------------------------- */

/* A JSON string (invalid UTF-8 replaced by U+FFFD), or null for NULL. */
/* 1 when s (len bytes) is all valid UTF-8: then it needs no clean copy. */
static int utf8_valid(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < len;) {
		size_t n = u[i] < 0x80 ? 1 : report_utf8_valid_len(u + i, len - i);
		if (n == 0)
			return 0;
		i += n;
	}
	return 1;
}

/* A JSON string of len bytes at s (NUL kept: Jansson writes \u0000). */
static json_t *jstrn(const char *s, size_t len)
{
	if (utf8_valid(s, len))
		return json_stringn_nocheck(s, len);
	char *clean = report_utf8_sanitize_n(s, len, &len);
	json_t *j = json_stringn_nocheck(clean, len);
	free(clean);
	return j;
}

static json_t *jstr(const char *s)
{
	return s ? jstrn(s, strlen(s)) : json_null();
}

static json_t *juint(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

static json_t *jreal(double v)
{
	return json_real(isfinite(v) ? v : 0.0);
}

/* Unix seconds t as "2026-09-21T14:13:20Z" in buf, or "" when t is not a
 * time from 1970 to 9999. */
static void iso_time(char *buf, size_t size, double t)
{
	report_format_time(buf, size, t, "%Y-%m-%dT%H:%M:%SZ");
}

void report_write_set(json_t *o, const char *key, json_t *v)
{
	if (!v || json_object_set_new(o, key, v) != 0) {
		fputs("memguard: out of memory\n", stderr);
		abort();
	}
}

static void push(json_t *a, json_t *v)
{
	if (!v || json_array_append_new(a, v) != 0) {
		fputs("memguard: out of memory\n", stderr);
		abort();
	}
}

static json_t *breakdown_to_json(const report_breakdown *b)
{
	json_t *o = json_object();
	report_write_set(o, "when", jstr(b->when ? b->when : ""));
	report_write_set(o, "va", juint(b->va));
	report_write_set(o, "largest_gap", juint(b->largest_gap));
	json_t *cats = json_array();
	for (size_t i = 0; i < b->ncategories; i++) {
		json_t *c = json_object();
		report_write_set(c, "name",
		                 jstr(b->categories[i].name ? b->categories[i].name : ""));
		report_write_set(c, "va", juint(b->categories[i].va));
		report_write_set(c, "rss", juint(b->categories[i].rss));
		push(cats, c);
	}
	report_write_set(o, "categories", cats);
	json_t *groups = json_array();
	for (size_t i = 0; i < b->ngroups; i++) {
		json_t *g = json_object();
		report_write_set(g, "name", jstr(b->groups[i].name ? b->groups[i].name : ""));
		report_write_set(g, "count", juint(b->groups[i].count));
		report_write_set(g, "size", juint(b->groups[i].size));
		report_write_set(g, "total", juint(b->groups[i].total));
		push(groups, g);
	}
	report_write_set(o, "groups", groups);
	return o;
}

static json_t *generation_to_json(const report_generation *g)
{
	json_t *o = json_object();
	report_write_set(o, "index", juint(g->index));
	report_write_set(o, "pid", json_integer(g->pid));
	report_write_set(o, "tests_run", juint(g->tests_run));
	report_write_set(o, "peak_va", juint(g->peak_va));
	report_write_set(o, "peak_rss", juint(g->peak_rss));
	report_write_set(o, "end", json_string(report_end_name(g->end)));
	if (g->reason)
		report_write_set(o, "reason", jstr(g->reason));
	if (g->warning)
		report_write_set(o, "warning", jstr(g->warning));
	if (g->last_output)
		report_write_set(o, "last_output", jstr(g->last_output));
	report_write_set(o, "start", jreal(g->start));
	report_write_set(o, "wall", jreal(g->wall));
	json_t *bds = json_array();
	for (size_t i = 0; i < g->nbreakdowns; i++)
		push(bds, breakdown_to_json(&g->breakdowns[i]));
	report_write_set(o, "breakdowns", bds);
	return o;
}

/*
 * The fewest significant digits (1..9) that read back as the float f (and
 * that decimal in *decimal): a
 * test's only real is its duration, held as a float, and "1e-06" is shorter
 * than the float's exact "9.99999997e-07" while reading back the same float.
 */
static int real_precision(float f, double *decimal)
{
	char buf[40];
	int p = 1;
	for (; p < 9; p++) {
		snprintf(buf, sizeof(buf), "%.*g", p, (double)f);
		if (strtof(buf, NULL) == f)
			break;
	}
	snprintf(buf, sizeof(buf), "%.*g", p, (double)f);
	*decimal = strtod(buf, NULL);
	return p;
}

/*
 * One test in the compact form of memguard-report/2: short keys, and a field
 * at its default is left out (state pass, no message or output, generation
 * 0, attempts 1, duration and every figure 0). A passing test of a flat
 * suite is its name and two sizes: ~50 bytes, against ~150 in /1.
 */
/* Frames as JSON: [{"function", "file", "line", "module", "build_id",
 * "offset"}], unknown fields left out. */
static json_t *frames_to_json(const report_frame *fr, size_t n)
{
	json_t *frames = json_array();
	for (size_t f = 0; f < n; f++) {
		json_t *fo = json_object();
		if (fr[f].function)
			report_write_set(fo, "function", jstr(fr[f].function));
		if (fr[f].file)
			report_write_set(fo, "file", jstr(fr[f].file));
		if (fr[f].line)
			report_write_set(fo, "line", juint(fr[f].line));
		if (fr[f].module)
			report_write_set(fo, "module", jstr(fr[f].module));
		if (fr[f].build_id)
			report_write_set(fo, "build_id", jstr(fr[f].build_id));
		if (fr[f].offset)
			report_write_set(fo, "offset", juint(fr[f].offset));
		push(frames, fo);
	}
	return frames;
}

/* A test's allocation sites: [{"kind", "bytes", "count", "frames": [...],
 * "pins": [...]}], a held block with "items", "in" and "by": [...] too; an
 * empty pins, by and an unknown in are left out. */
static json_t *sites_to_json(const report_test_sites *ts)
{
	json_t *a = json_array();
	for (size_t k = 0; k < ts->nsites; k++) {
		const report_site *site = &ts->sites[k];
		json_t *o = json_object();
		report_write_set(o, "kind", jstr(site->kind ? site->kind : ""));
		report_write_set(o, "bytes", juint(site->bytes));
		report_write_set(o, "count", juint(site->count));
		report_write_set(o, "frames", frames_to_json(site->frames, site->nframes));
		if (site->items) {
			report_write_set(o, "items", juint(site->items));
			if (site->in)
				report_write_set(o, "in", jstr(site->in));
			if (site->nby)
				report_write_set(o, "by", frames_to_json(site->by, site->nby));
		}
		if (site->npins) {
			json_t *pins = json_array();
			for (size_t p = 0; p < site->npins; p++)
				push(pins, jstr(site->pins[p] ? site->pins[p] : ""));
			report_write_set(o, "pins", pins);
		}
		push(a, o);
	}
	return a;
}

/* precision: the digits its duration is written with (0: none written).
 * sites: its allocation sites (NULL or none: no "sites"). */
static json_t *test_to_json(const report_test *t, uint64_t va_peak, const report_test_sites *sites,
                            int *precision)
{
	json_t *o = json_object();
	report_write_set(o, "n", jstr(t->name ? t->name : ""));
	if (t->state != TEST_PASS)
		report_write_set(o, "s", json_string(report_state_name(t->state)));
	if (t->message)
		report_write_set(o, "m", jstr(t->message));
	if (t->output)
		report_write_set(o, "o", jstrn(t->output->data, t->output->len));
	if (t->generation)
		report_write_set(o, "g", juint(t->generation));
	if (t->attempts != 1)
		report_write_set(o, "a", juint(t->attempts));
	if (t->near_ceiling)
		report_write_set(o, "nc", json_true());
	*precision = 0;
	if (t->duration != 0 && isfinite(t->duration)) {
		double d; /* the decimal the float reads back from */
		*precision = real_precision(t->duration, &d);
		report_write_set(o, "d", jreal(d));
	}
	if (t->va_after)
		report_write_set(o, "va", juint(t->va_after));
	if (t->rss_after)
		report_write_set(o, "rss", juint(t->rss_after));
	if (t->va_delta)
		report_write_set(o, "dva", json_integer(t->va_delta));
	if (t->rss_delta)
		report_write_set(o, "drss", json_integer(t->rss_delta));
	if (va_peak)
		report_write_set(o, "pk", juint(va_peak));
	if (sites && sites->nsites)
		report_write_set(o, "sites", sites_to_json(sites));
	return o;
}

static json_t *limits_to_json(const report_limits *l)
{
	json_t *o = json_object();
	report_write_set(o, "va", juint(l->va));
	report_write_set(o, "rss", juint(l->rss));
	report_write_set(o, "cgroup", juint(l->cgroup));
	report_write_set(o, "gap", juint(l->gap));
	return o;
}

/* A shard without its tests (they are written, or added, after it). */
static json_t *shard_head_to_json(const report_shard *s)
{
	json_t *o = json_object();
	report_write_set(o, "node", juint(s->node));
	report_write_set(o, "start_time", jreal(s->start_time));
	report_write_set(o, "index", juint(s->index));
	report_write_set(o, "suite", jstr(s->suite ? s->suite : ""));
	report_write_set(o, "arch", jstr(s->arch ? s->arch : ""));
	report_write_set(o, "driver", jstr(s->driver ? s->driver : ""));
	report_write_set(o, "command", jstr(s->command ? s->command : ""));
	if (s->approximate)
		report_write_set(o, "approximate", jstr(s->approximate));
	json_t *counts = json_object();
	for (int i = 0; i < TEST_STATE_COUNT; i++)
		report_write_set(counts, report_state_names[i], juint(s->counts[i]));
	report_write_set(o, "counts", counts);
	report_write_set(o, "peak_va", juint(s->peak_va));
	report_write_set(o, "peak_rss", juint(s->peak_rss));
	if (s->rss_soft || s->rss_hard) {
		report_write_set(o, "rss_soft", juint(s->rss_soft));
		report_write_set(o, "rss_hard", juint(s->rss_hard));
	}
	report_write_set(o, "recycles", juint(s->recycles));
	report_write_set(o, "kills", juint(s->kills));
	report_write_set(o, "wall", jreal(s->wall));
	report_write_set(o, "user", jreal(s->user));
	report_write_set(o, "sys", jreal(s->sys));
	json_t *gens = json_array();
	for (size_t i = 0; i < s->ngens; i++)
		push(gens, generation_to_json(&s->gens[i]));
	report_write_set(o, "generations", gens);
	json_t *tl = json_array();
	for (size_t i = 0; i < s->ntimeline; i++) {
		const report_point *p = &s->timeline[i];
		json_t *a = json_array();
		push(a, jreal(p->t));
		push(a, juint(p->va));
		push(a, juint(p->rss));
		push(a, juint(p->generation));
		push(tl, a);
	}
	report_write_set(o, "timeline", tl);
	return o;
}

/* The report without its shards: everything but the tests is small. */
static json_t *report_head_to_json(const report *r)
{
	json_t *o = json_object();
	report_write_set(o, "schema", json_string(REPORT_SCHEMA));
	report_write_set(o, "tool_version", jstr(r->tool_version ? r->tool_version : ""));
	json_t *commit = json_object();
	if (r->sha) {
		report_write_set(commit, "sha", jstr(r->sha));
		report_write_set(commit, "branch", jstr(r->branch));
		report_write_set(commit, "dirty", json_boolean(r->dirty));
	} else {
		report_write_set(commit, "note",
		                 jstr(r->repo_note ? r->repo_note : "not a git repository"));
	}
	report_write_set(o, "commit", commit);
	json_t *node = json_object();
	report_write_set(node, "index", juint(r->node_index));
	report_write_set(node, "total", juint(r->node_total));
	report_write_set(o, "node", node);
	if (r->nnodes_present) {
		json_t *present = json_array();
		for (size_t i = 0; i < r->nnodes_present; i++)
			json_array_append_new(present, juint(r->nodes_present[i]));
		report_write_set(o, "nodes_present", present);
	}
	json_t *limits = json_object();
	report_write_set(limits, "soft", jstr(r->limits_soft));
	report_write_set(limits, "hard", jstr(r->limits_hard));
	if (r->has_limit_bytes) {
		report_write_set(limits, "soft_bytes", limits_to_json(&r->soft));
		report_write_set(limits, "hard_bytes", limits_to_json(&r->hard));
	}
	report_write_set(o, "limits", limits);
	report_write_set(o, "start_time", jreal(r->start_time));
	char iso[64] = "";
	iso_time(iso, sizeof(iso), r->start_time);
	report_write_set(o, "start_time_iso", json_string(iso));
	report_write_set(o, "wall", jreal(r->wall));
	if (r->expected_wall > 0)
		report_write_set(o, "expected_wall", jreal(r->expected_wall));
	report_write_set(o, "interrupted", json_boolean(r->interrupted));
	report_write_set(o, "exit_code", json_integer(r->exit_code));
	if (r->containment)
		report_write_set(o, "containment", jstr(r->containment));
	if (r->seed)
		report_write_set(o, "seed", jstr(r->seed));
	json_t *sus = json_array();
	for (size_t i = 0; i < r->nsuspects; i++) {
		const report_suspect *s = &r->suspects[i];
		json_t *j = json_object();
		report_write_set(j, "name", jstr(s->name ? s->name : ""));
		report_write_set(j, "va_retained", json_integer(s->va_retained));
		report_write_set(j, "rss_retained", json_integer(s->rss_retained));
		report_write_set(j, "grew", juint(s->grew));
		report_write_set(j, "runs", juint(s->runs));
		report_write_set(j, "alone_over_hard", json_boolean(s->alone_over_hard));
		push(sus, j);
	}
	report_write_set(o, "suspects", sus);
	if (r->history.source) {
		const report_history *h = &r->history;
		json_t *ho = json_object(), *alone = json_array(), *grew = json_array();
		report_write_set(ho, "source", jstr(h->source));
		report_write_set(ho, "known", juint(h->known));
		report_write_set(ho, "avoided", juint(h->avoided));
		for (size_t i = 0; i < h->nalone; i++)
			push(alone, jstr(h->alone[i]));
		report_write_set(ho, "alone", alone);
		for (size_t i = 0; i < h->ngrew; i++) {
			json_t *g = json_object();
			report_write_set(g, "name", jstr(h->grew[i].name));
			report_write_set(g, "then", juint(h->grew[i].then));
			report_write_set(g, "now", juint(h->grew[i].now));
			push(grew, g);
		}
		report_write_set(ho, "grew", grew);
		report_write_set(o, "history", ho);
	}
	return o;
}

void *report_to_json(const report *r)
{
	json_t *o = report_head_to_json(r);
	json_t *shards = json_array();
	for (size_t i = 0; i < r->nshards; i++) {
		const report_shard *sh = &r->shards[i];
		json_t *so = shard_head_to_json(sh), *tests = json_array();
		for (size_t t = 0; t < sh->ntests; t++) {
			int precision;
			push(tests, test_to_json(&sh->tests[t], report_shard_test_peak(sh, t),
			                         report_shard_test_sites(sh, t), &precision));
		}
		report_write_set(so, "tests", tests);
		push(shards, so);
	}
	report_write_set(o, "shards", shards);
	return o;
}

/* Dumps o compactly without its braces (JSON_EMBED) and frees it. */
static int dump_embedded(FILE *f, json_t *o)
{
	int rc = json_dumpf(o, f, JSON_COMPACT | JSON_EMBED);
	json_decref(o);
	return rc;
}

/*
 * The document in pieces: the report's fields (one small Jansson object),
 * then per shard its fields and its tests one object at a time, each built,
 * dumped and freed. The braces and brackets between the pieces are the only
 * text written here; Jansson writes every key and value. The shards come
 * last in the report and the tests last in a shard, so the pieces join.
 */
/*
 * One test object reused for the tests of a shard: while a test has the
 * same fields as the one before (a mask of test_to_json's optional keys),
 * its values are set in place, in the same key order, rather than a new
 * object of four or five allocations built and freed per test (report_write
 * of a million bench tests: 0.40 s of CPU, 0.54 s before).
 */
enum { TW_NFIELDS = 13 };
static const char *const tw_keys[TW_NFIELDS] = {"n",  "s",   "m",   "o",    "g",  "a", "d",
                                                "va", "rss", "dva", "drss", "pk", "nc"};

/* A mask no test has: the object holds sites and is never reused. */
#define TW_FRESH (~0u)

typedef struct test_writer {
	json_t *o;                /* NULL: none yet */
	unsigned mask;            /* which of tw_keys o holds */
	json_t *vals[TW_NFIELDS]; /* o's values, borrowed */
} test_writer;

static unsigned test_mask(const report_test *t, uint64_t va_peak)
{
	return 1u | (t->state != TEST_PASS) << 1 | !!t->message << 2 | !!t->output << 3 |
	       !!t->generation << 4 | (t->attempts != 1) << 5 |
	       (t->duration != 0 && isfinite(t->duration)) << 6 | !!t->va_after << 7 |
	       !!t->rss_after << 8 | !!t->va_delta << 9 | !!t->rss_delta << 10 | !!va_peak << 11 |
	       (unsigned)t->near_ceiling << 12;
}

static void string_setn(json_t *v, const char *s, size_t len)
{
	if (utf8_valid(s, len)) {
		json_string_setn_nocheck(v, s, len);
		return;
	}
	char *clean = report_utf8_sanitize_n(s, len, &len);
	json_string_setn_nocheck(v, clean, len);
	free(clean);
}

static void string_set(json_t *v, const char *s)
{
	string_setn(v, s, strlen(s));
}

static void int_set(json_t *v, uint64_t u)
{
	json_integer_set(v, u > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)u);
}

/* The object of test t (owned by w, valid until the next call). A test with
 * sites (few have any) is always built anew, and the next one too. */
static json_t *test_writer_json(test_writer *w, const report_test *t, uint64_t va_peak,
                                const report_test_sites *sites, int *precision)
{
	unsigned mask = sites && sites->nsites ? TW_FRESH : test_mask(t, va_peak);
	if (!w->o || mask != w->mask || mask == TW_FRESH) {
		json_decref(w->o);
		w->o = test_to_json(t, va_peak, sites, precision);
		w->mask = mask;
		for (int k = 0; k < TW_NFIELDS; k++)
			w->vals[k] = json_object_get(w->o, tw_keys[k]);
		return w->o;
	}
	json_t *const *v = w->vals;
	string_set(v[0], t->name ? t->name : "");
	if (v[1])
		json_string_set_nocheck(v[1], report_state_name(t->state));
	if (v[2])
		string_set(v[2], t->message);
	if (v[3])
		string_setn(v[3], t->output->data, t->output->len);
	if (v[4])
		json_integer_set(v[4], t->generation);
	if (v[5])
		json_integer_set(v[5], t->attempts);
	*precision = 0;
	if (v[6]) {
		double d;
		*precision = real_precision(t->duration, &d);
		json_real_set(v[6], d);
	}
	if (v[7])
		int_set(v[7], t->va_after);
	if (v[8])
		int_set(v[8], t->rss_after);
	if (v[9])
		json_integer_set(v[9], t->va_delta);
	if (v[10])
		json_integer_set(v[10], t->rss_delta);
	if (v[11])
		int_set(v[11], va_peak);
	return w->o;
}

int report_write(const report *r, FILE *f)
{
	int bad = fputc('{', f) == EOF || dump_embedded(f, report_head_to_json(r)) != 0 ||
	          fputs(",\"shards\":[", f) == EOF;
	for (size_t i = 0; i < r->nshards && !bad; i++) {
		const report_shard *sh = &r->shards[i];
		bad = fputs(i ? ",{" : "{", f) == EOF ||
		      dump_embedded(f, shard_head_to_json(sh)) != 0 ||
		      fputs(",\"tests\":[", f) == EOF;
		test_writer w = {0};
		for (size_t t = 0; t < sh->ntests && !bad; t++) {
			int precision;
			json_t *o =
			    test_writer_json(&w, &sh->tests[t], report_shard_test_peak(sh, t),
			                     report_shard_test_sites(sh, t), &precision);
			size_t flags = JSON_COMPACT;
			if (precision)
				flags |= JSON_REAL_PRECISION(precision);
			/* into a buffer first: json_dumpf would make an fwrite a token */
			char buf[1024];
			buf[0] = ',';
			size_t n = json_dumpb(o, buf + 1, sizeof(buf) - 1, flags);
			if (n == 0)
				bad = 1;
			else if (n < sizeof(buf))
				bad = fwrite(buf + !t, 1, n + !!t, f) != n + !!t;
			else
				bad = (t && fputc(',', f) == EOF) || json_dumpf(o, f, flags) != 0;
		}
		json_decref(w.o);
		bad = bad || fputs("]}", f) == EOF;
	}
	bad = bad || fputs("]}\n", f) == EOF || ferror(f);
	return bad ? MG_ERROR : 0;
}

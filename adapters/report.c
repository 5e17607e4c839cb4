/*
 * report.c - the run report model: building (shards, tests, generations),
 * finishing (totals, suspects), deep copies and the shard key. Plain data
 * every adapter and ci can use; never calls runner or guard code. Its JSON
 * form is in report_write.c (out) and report_read.c / report_parse.c (in).
 */
#include "report_int.h"

#include "atomic.h"
#include "mg_bulk.h"
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

#ifndef MEMGUARD_VERSION
#define MEMGUARD_VERSION "0.0.0"
#endif

const char *const report_state_names[TEST_STATE_COUNT] = {
    "pass", "fail", "skip", "crash", "timeout", "memory-limit", "error", "not-run",
};

const char *report_state_name(test_state s)
{
	if ((unsigned)s >= TEST_STATE_COUNT)
		return "unknown";
	return report_state_names[s];
}

int report_state_parse(const char *name)
{
	for (int i = 0; name && i < TEST_STATE_COUNT; i++)
		if (strcmp(name, report_state_names[i]) == 0)
			return i;
	return -1;
}

int report_state_failed(test_state s)
{
	return s == TEST_FAIL || s == TEST_CRASH || s == TEST_TIMEOUT || s == TEST_MEMLIMIT ||
	       s == TEST_ERROR;
}

static const char *const end_names[REPORT_END_COUNT] = {
    "running", "quit", "recycle", "kill", "timeout", "error", "crash", "exit", "interrupted",
};

const char *report_end_name(report_end e)
{
	if ((unsigned)e >= REPORT_END_COUNT)
		return "unknown";
	return end_names[e];
}

int report_end_parse(const char *name)
{
	if (name && !*name)
		return REPORT_END_RUNNING;
	for (int i = 0; name && i < REPORT_END_COUNT; i++)
		if (strcmp(name, end_names[i]) == 0)
			return i;
	return -1;
}

int report_end_abnormal(report_end e)
{
	return e == REPORT_END_CRASH || e == REPORT_END_KILL || e == REPORT_END_TIMEOUT ||
	       e == REPORT_END_ERROR;
}

int report_load_exit(int rc)
{
	return rc == MG_ENOTFOUND ? MG_EXIT_USAGE : MG_EXIT_INFRA;
}

/* ---- memory ---------------------------------------------------------------- */

report_bytes *report_bytes_new(const char *p, size_t len)
{
	report_bytes *b = mg_xrealloc(NULL, sizeof(*b) + len + 1);
	b->len = len;
	if (len)
		memcpy(b->data, p, len);
	b->data[len] = '\0';
	return b;
}

char *report_strdup(const char *s)
{
	return s ? report_strndup(s, strlen(s)) : NULL;
}

char *report_strndup(const char *s, size_t len)
{
	if (!s)
		return NULL;
	char *d = mg_xrealloc(NULL, len + 1);
	memcpy(d, s, len);
	d[len] = '\0';
	return d;
}

/*
 * Every array of the model has room for the next power of two >= its count,
 * so an append only reallocates when the count is 0 or a power of two. This
 * is why arrays must only be allocated here (array_alloc, array_append).
 */
static size_t array_capacity(size_t n)
{
	size_t cap = 1;
	while (cap < n)
		cap <<= 1;
	return cap;
}

void *report_array_alloc(size_t n, size_t elem)
{
	size_t cap = array_capacity(n);
	void *p = mg_xrealloc(NULL, cap * elem);
	memset(p, 0, cap * elem);
	return p;
}

static void *array_append(void *arrp, size_t *n, size_t elem)
{
	void **arr = arrp;
	if (*n == 0 || (*n & (*n - 1)) == 0)
		*arr = mg_xrealloc(*arr, (*n ? *n * 2 : 1) * elem);
	char *slot = (char *)*arr + *n * elem;
	memset(slot, 0, elem);
	(*n)++;
	return slot;
}

/*
 * Test names of a shard (read in pieces, or recorded by the runner), and
 * the runner's listing, packed in blocks that double from
 * 4 KiB to 1 MiB: a million names of ~14 bytes take 14 MB, not the 32 MB of
 * a malloc each, and a shard of a few tests costs 4 KiB, not 1 MiB (the
 * report fuzz harness spent most of its time mapping and faulting in those
 * megabytes). A block list is a singly linked list, newest first.
 */
#define NAMES_BLOCK       ((size_t)1 << 20)
#define NAMES_BLOCK_FIRST ((size_t)4096)
struct report_names {
	struct report_names *next;
	size_t used, size;
	char text[];
};

/* A copy of s (len bytes, NUL-terminated) in s's shard's blocks. */
char *report_names_add(report_names **list, const char *s, size_t len)
{
	report_names *b = *list;
	if (!b || b->size - b->used < len + 1) {
		size_t size = !b                      ? NAMES_BLOCK_FIRST
		              : b->size < NAMES_BLOCK ? b->size * 2
		                                      : NAMES_BLOCK;
		if (size < len + 1)
			size = len + 1;
		b = mg_xrealloc(NULL, sizeof(*b) + size);
		b->next = *list;
		b->used = 0;
		b->size = size;
		*list = b;
	}
	char *d = b->text + b->used;
	memcpy(d, s, len);
	d[len] = '\0';
	b->used += len + 1;
	return d;
}

/* 1 when p points into one of list's blocks. */
static int names_hold(const report_names *list, const char *p)
{
	for (; list; list = list->next)
		if (p >= list->text && p < list->text + list->size)
			return 1;
	return 0;
}

void report_names_free(report_names *list)
{
	while (list) {
		report_names *next = list->next;
		free(list);
		list = next;
	}
}

report *report_new(void)
{
	report *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->tool_version = report_strdup(MEMGUARD_VERSION);
	r->node_index = 1;
	r->node_total = 1;
	return r;
}

static void breakdown_clear(report_breakdown *b)
{
	free(b->when);
	for (size_t i = 0; i < b->ncategories; i++)
		free(b->categories[i].name);
	free(b->categories);
	for (size_t i = 0; i < b->ngroups; i++)
		free(b->groups[i].name);
	free(b->groups);
}

static void frames_free(report_frame *fr, size_t n)
{
	for (size_t f = 0; f < n; f++) {
		free(fr[f].function);
		free(fr[f].file);
		free(fr[f].module);
		free(fr[f].build_id);
	}
	free(fr);
}

void report_test_sites_clear(report_test_sites *ts)
{
	for (size_t k = 0; k < ts->nsites; k++) {
		report_site *site = &ts->sites[k];
		free(site->kind);
		frames_free(site->frames, site->nframes);
		frames_free(site->by, site->nby);
		free(site->in);
		for (size_t p = 0; p < site->npins; p++)
			free(site->pins[p]);
		free(site->pins);
	}
	free(ts->sites);
	memset(ts, 0, sizeof(*ts));
}

void report_shard_drop_sites(report_shard *s)
{
	for (size_t k = 0; k < s->nsites; k++)
		report_test_sites_clear(&s->sites[k]);
	free(s->sites);
	s->sites = NULL;
	s->nsites = 0;
}

/* Frees the shard's tests, their names, peaks and sites; the rest (counts
 * too) stays. */
static void shard_drop_tests(report_shard *s)
{
	for (size_t t = 0; t < s->ntests; t++) {
		if (!s->names || !names_hold(s->names, s->tests[t].name))
			free(s->tests[t].name);
		free(s->tests[t].message);
		free(s->tests[t].output);
	}
	mg_bulk_free(s->tests, s->tests_cap * sizeof(report_test));
	free(s->peaks);
	report_shard_drop_sites(s);
	report_names_free(s->names);
	s->tests = NULL;
	s->tests_cap = 0;
	s->peaks = NULL;
	s->sites = NULL;
	s->names = NULL;
	s->ntests = s->npeaks = s->nsites = 0;
}

void report_drop_tests(report *r)
{
	for (size_t i = 0; i < r->nshards; i++)
		shard_drop_tests(&r->shards[i]);
}

static void shard_clear(report_shard *s)
{
	free(s->suite);
	free(s->arch);
	free(s->driver);
	free(s->command);
	free(s->approximate);
	for (size_t g = 0; g < s->ngens; g++) {
		report_generation *gen = &s->gens[g];
		free(gen->reason);
		free(gen->warning);
		free(gen->last_output);
		for (size_t b = 0; b < gen->nbreakdowns; b++)
			breakdown_clear(&gen->breakdowns[b]);
		free(gen->breakdowns);
	}
	free(s->gens);
	shard_drop_tests(s);
	free(s->timeline);
	memset(s, 0, sizeof(*s));
}

static void suspects_clear(report *r)
{
	for (size_t i = 0; i < r->nsuspects; i++)
		free(r->suspects[i].name);
	free(r->suspects);
	r->suspects = NULL;
	r->nsuspects = 0;
}

static void history_clear(report_history *h)
{
	free(h->source);
	for (size_t i = 0; i < h->nalone; i++)
		free(h->alone[i]);
	free(h->alone);
	for (size_t i = 0; i < h->ngrew; i++)
		free(h->grew[i].name);
	free(h->grew);
	memset(h, 0, sizeof(*h));
}

void report_free(report *r)
{
	if (!r)
		return;
	history_clear(&r->history);
	free(r->tool_version);
	free(r->sha);
	free(r->branch);
	free(r->repo_note);
	free(r->containment);
	free(r->seed);
	free(r->nodes_present);
	free(r->limits_soft);
	free(r->limits_hard);
	for (size_t i = 0; i < r->nshards; i++)
		shard_clear(&r->shards[i]);
	free(r->shards);
	suspects_clear(r);
	free(r);
}

report_shard *report_add_shard(report *r)
{
	return array_append(&r->shards, &r->nshards, sizeof(report_shard));
}

void report_remove_shard(report *r, size_t i)
{
	shard_clear(&r->shards[i]);
	memmove(&r->shards[i], &r->shards[i + 1], (r->nshards - i - 1) * sizeof(report_shard));
	r->nshards--;
}

/* The tests array is the one of a test each, as large as the run: it grows as
 * array_append's do, in mg_bulk blocks (huge pages from 1 MiB, 16,384
 * tests), whose size s->tests_cap keeps. */
static void tests_grow(report_shard *s, size_t n)
{
	size_t cap = array_capacity(n), e = sizeof(report_test);
	s->tests = mg_bulk_realloc(s->tests, s->tests_cap * e, cap * e);
	s->tests_cap = cap;
}

void report_shard_tests_alloc(report_shard *s, size_t n)
{
	if (n > s->tests_cap) /* room only ever grows: the tests held stay */
		tests_grow(s, n);
	memset(s->tests + s->ntests, 0, (s->tests_cap - s->ntests) * sizeof(report_test));
}

report_test *report_shard_add_test(report_shard *s)
{
	if (s->ntests == s->tests_cap)
		tests_grow(s, s->ntests + 1);
	report_test *t = &s->tests[s->ntests++];
	memset(t, 0, sizeof(*t));
	t->attempts = 1;
	return t;
}

_Static_assert(TEST_STATE_COUNT <= 8, "report_test.state is 3 bits");
_Static_assert(sizeof(report_test) <= 64, "a test is 64 bytes");

static size_t peak_find(const report_shard *s, size_t i)
{
	size_t lo = 0, hi = s->npeaks;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->peaks[mid].test < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint64_t report_shard_test_peak(const report_shard *s, size_t i)
{
	size_t k = peak_find(s, i);
	return k < s->npeaks && s->peaks[k].test == i ? s->peaks[k].va_peak : 0;
}

void report_shard_set_test_peak(report_shard *s, size_t i, uint64_t va_peak)
{
	size_t k = peak_find(s, i);
	int have = k < s->npeaks && s->peaks[k].test == i;
	if (have && va_peak) {
		s->peaks[k].va_peak = va_peak;
	} else if (have) {
		memmove(&s->peaks[k], &s->peaks[k + 1], (s->npeaks - k - 1) * sizeof(report_peak));
		s->npeaks--;
	} else if (va_peak) {
		array_append(&s->peaks, &s->npeaks, sizeof(report_peak));
		memmove(&s->peaks[k + 1], &s->peaks[k], (s->npeaks - k - 1) * sizeof(report_peak));
		s->peaks[k] = (report_peak){i, va_peak};
	}
}

static size_t sites_find(const report_shard *s, size_t i)
{
	size_t lo = 0, hi = s->nsites;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->sites[mid].test < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const report_test_sites *report_shard_test_sites(const report_shard *s, size_t i)
{
	size_t k = sites_find(s, i);
	return k < s->nsites && s->sites[k].test == i ? &s->sites[k] : NULL;
}

report_test_sites *report_shard_add_test_sites(report_shard *s, size_t i)
{
	size_t k = sites_find(s, i);
	if (k < s->nsites && s->sites[k].test == i)
		return &s->sites[k];
	array_append(&s->sites, &s->nsites, sizeof(report_test_sites));
	memmove(&s->sites[k + 1], &s->sites[k], (s->nsites - k - 1) * sizeof(report_test_sites));
	s->sites[k] = (report_test_sites){.test = i};
	return &s->sites[k];
}

static uint64_t sites_bytes(const report_test_sites *ts)
{
	uint64_t sum = 0;
	for (size_t k = 0; k < ts->nsites; k++)
		sum = ts->sites[k].bytes > UINT64_MAX - sum ? UINT64_MAX : sum + ts->sites[k].bytes;
	return sum;
}

const report_test_sites *report_find_test_sites(const report *r, const char *name,
                                                const report_shard **shard)
{
	const report_test_sites *best = NULL;
	uint64_t best_bytes = 0;
	for (size_t i = 0; name && i < r->nshards; i++) {
		const report_shard *s = &r->shards[i];
		for (size_t k = 0; k < s->nsites; k++) {
			const report_test_sites *ts = &s->sites[k];
			if (ts->test >= s->ntests || !ts->nsites || !s->tests[ts->test].name ||
			    strcmp(s->tests[ts->test].name, name) != 0)
				continue;
			uint64_t b = sites_bytes(ts);
			if (!best || b > best_bytes) {
				best = ts;
				best_bytes = b;
				if (shard)
					*shard = s;
			}
		}
	}
	return best;
}

size_t report_test_sites_top(const report_test_sites *ts, report_sites_which which,
                             const report_site **out, size_t max)
{
	size_t n = 0;
	for (size_t k = 0; ts && k < ts->nsites && max; k++) {
		const report_site *site = &ts->sites[k];
		if ((which == REPORT_SITES_OWN && site->items) ||
		    (which == REPORT_SITES_HELD && !site->items))
			continue;
		if (n == max && site->bytes <= out[n - 1]->bytes)
			continue;
		size_t at = n < max ? n++ : n - 1;
		while (at > 0 && out[at - 1]->bytes < site->bytes) {
			out[at] = out[at - 1];
			at--;
		}
		out[at] = site;
	}
	return n;
}

report_site *report_test_sites_add(report_test_sites *ts)
{
	return array_append(&ts->sites, &ts->nsites, sizeof(report_site));
}

report_frame *report_site_add_frame(report_site *site)
{
	return array_append(&site->frames, &site->nframes, sizeof(report_frame));
}

report_frame *report_site_add_by(report_site *site)
{
	return array_append(&site->by, &site->nby, sizeof(report_frame));
}

void report_site_add_pin(report_site *site, const char *pin)
{
	char **p = array_append(&site->pins, &site->npins, sizeof(char *));
	*p = report_strdup(pin);
}

void report_shard_count_ends(report_shard *s)
{
	uint32_t recycles = 0, kills = 0;
	for (size_t g = 0; g < s->ngens; g++) {
		recycles += s->gens[g].end == REPORT_END_RECYCLE;
		kills += s->gens[g].end == REPORT_END_KILL;
	}
	s->recycles = recycles;
	s->kills = kills;
}

report_generation *report_shard_add_generation(report_shard *s)
{
	return array_append(&s->gens, &s->ngens, sizeof(report_generation));
}

report_point *report_shard_add_point(report_shard *s)
{
	return array_append(&s->timeline, &s->ntimeline, sizeof(report_point));
}

report_breakdown *report_generation_add_breakdown(report_generation *g)
{
	return array_append(&g->breakdowns, &g->nbreakdowns, sizeof(report_breakdown));
}

report_category *report_breakdown_add_category(report_breakdown *b)
{
	return array_append(&b->categories, &b->ncategories, sizeof(report_category));
}

report_group *report_breakdown_add_group(report_breakdown *b)
{
	return array_append(&b->groups, &b->ngroups, sizeof(report_group));
}

/* ---- deep copy (merge) ----------------------------------------------------- */

static void breakdown_copy(report_breakdown *d, const report_breakdown *s)
{
	*d = *s;
	d->when = report_strdup(s->when);
	d->categories = report_array_alloc(s->ncategories, sizeof(report_category));
	for (size_t i = 0; i < s->ncategories; i++) {
		d->categories[i] = s->categories[i];
		d->categories[i].name = report_strdup(s->categories[i].name);
	}
	d->groups = report_array_alloc(s->ngroups, sizeof(report_group));
	for (size_t i = 0; i < s->ngroups; i++) {
		d->groups[i] = s->groups[i];
		d->groups[i].name = report_strdup(s->groups[i].name);
	}
}

static report_frame *frames_copy(const report_frame *s, size_t n)
{
	report_frame *d = report_array_alloc(n, sizeof(report_frame));
	for (size_t f = 0; f < n; f++) {
		d[f] = s[f];
		d[f].function = report_strdup(s[f].function);
		d[f].file = report_strdup(s[f].file);
		d[f].module = report_strdup(s[f].module);
		d[f].build_id = report_strdup(s[f].build_id);
	}
	return d;
}

void report_test_sites_copy(report_test_sites *d, const report_test_sites *s)
{
	if (!s) {
		memset(d, 0, sizeof(*d));
		return;
	}
	d->test = s->test;
	d->nsites = s->nsites;
	d->sites = report_array_alloc(s->nsites, sizeof(report_site));
	for (size_t k = 0; k < s->nsites; k++) {
		report_site *ds = &d->sites[k];
		const report_site *ss = &s->sites[k];
		*ds = *ss;
		ds->kind = report_strdup(ss->kind);
		ds->in = report_strdup(ss->in);
		ds->frames = frames_copy(ss->frames, ss->nframes);
		ds->by = frames_copy(ss->by, ss->nby);
		ds->pins = report_array_alloc(ss->npins, sizeof(char *));
		for (size_t p = 0; p < ss->npins; p++)
			ds->pins[p] = report_strdup(ss->pins[p]);
	}
}

void report_shard_copy(report_shard *d, const report_shard *s)
{
	*d = *s;
	d->names = NULL; /* the copy's names are its own, packed in its blocks below */
	d->suite = report_strdup(s->suite);
	d->arch = report_strdup(s->arch);
	d->driver = report_strdup(s->driver);
	d->command = report_strdup(s->command);
	d->approximate = report_strdup(s->approximate);
	d->gens = report_array_alloc(s->ngens, sizeof(report_generation));
	for (size_t g = 0; g < s->ngens; g++) {
		report_generation *dg = &d->gens[g];
		const report_generation *sg = &s->gens[g];
		*dg = *sg;
		dg->end = sg->end;
		dg->reason = report_strdup(sg->reason);
		dg->warning = report_strdup(sg->warning);
		dg->last_output = report_strdup(sg->last_output);
		dg->breakdowns = report_array_alloc(sg->nbreakdowns, sizeof(report_breakdown));
		for (size_t b = 0; b < sg->nbreakdowns; b++)
			breakdown_copy(&dg->breakdowns[b], &sg->breakdowns[b]);
	}
	d->tests = NULL; /* s's, by the copy above */
	d->ntests = d->tests_cap = 0;
	report_shard_tests_alloc(d, s->ntests);
	d->ntests = s->ntests;
	for (size_t t = 0; t < s->ntests; t++) {
		d->tests[t] = s->tests[t];
		const char *name = s->tests[t].name;
		d->tests[t].name = name ? report_names_add(&d->names, name, strlen(name)) : NULL;
		d->tests[t].message = report_strdup(s->tests[t].message);
		const report_bytes *o = s->tests[t].output;
		d->tests[t].output = o ? report_bytes_new(o->data, o->len) : NULL;
	}
	d->peaks = report_array_alloc(s->npeaks, sizeof(report_peak));
	if (s->npeaks)
		memcpy(d->peaks, s->peaks, s->npeaks * sizeof(report_peak));
	d->sites = report_array_alloc(s->nsites, sizeof(report_test_sites));
	for (size_t k = 0; k < s->nsites; k++)
		report_test_sites_copy(&d->sites[k], &s->sites[k]);
	d->timeline = report_array_alloc(s->ntimeline, sizeof(report_point));
	if (s->ntimeline)
		memcpy(d->timeline, s->timeline, s->ntimeline * sizeof(report_point));
}

/* ---- finish: counts and suspects ------------------------------------------- */

static int cmp_test_name(const void *a, const void *b)
{
	const report_test *x = *(const report_test *const *)a;
	const report_test *y = *(const report_test *const *)b;
	return strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

static int cmp_suspect(const void *a, const void *b)
{
	const report_suspect *x = a, *y = b;
	if (x->va_retained != y->va_retained)
		return x->va_retained > y->va_retained ? -1 : 1;
	if (x->alone_over_hard != y->alone_over_hard)
		return x->alone_over_hard ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* a + b, clamped to the int64 range (a hostile report must not wrap). */
static int64_t sat_add(int64_t a, int64_t b)
{
	int64_t r;
	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

/* a + b, UINT64_MAX when it does not fit. */
static uint64_t sat_addu(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void report_totals_add(report_totals *t, const report_shard *s)
{
	for (int st = 0; st < TEST_STATE_COUNT; st++) {
		uint64_t n = s->counts[st];
		t->counts[st] = sat_addu(t->counts[st], n);
		t->tests = sat_addu(t->tests, n);
		if (report_state_failed((test_state)st))
			t->failed = sat_addu(t->failed, n);
		else if (st != TEST_PASS)
			t->other = sat_addu(t->other, n);
	}
	if (s->peak_va > t->peak_va)
		t->peak_va = s->peak_va;
	if (s->peak_rss > t->peak_rss)
		t->peak_rss = s->peak_rss;
	t->recycles = sat_addu(t->recycles, s->recycles);
	t->kills = sat_addu(t->kills, s->kills);
}

/* The report's totals from its shards' counts (as they are: a report read
 * from JSON keeps the counts it was saved with). */
void report_totals_compute(report *r)
{
	memset(&r->totals, 0, sizeof(r->totals));
	for (size_t i = 0; i < r->nshards; i++)
		report_totals_add(&r->totals, &r->shards[i]);
}

/* NULL as "" */
static const char *test_name(const report_test *t)
{
	return t->name ? t->name : "";
}

static int cmp_suspect_name(const void *key, const void *elem)
{
	return strcmp(key, ((const report_suspect *)elem)->name);
}

/*
 * A suspect is a test name (summed over every shard that ran it) whose VA
 * deltas add up to more than zero, or that ended memory-limit. Only a name
 * with a run that grew or ended memory-limit can be one, so those names are
 * found first (sorted, K of them), then every test adds to its name's sums
 * by binary search: O(tests log K) time, memory for K names only (a million
 * flat tests do not need a million pointers).
 */
void report_finish(report *r, size_t max_suspects)
{
	for (size_t i = 0; i < r->nshards; i++) {
		report_shard *s = &r->shards[i];
		memset(s->counts, 0, sizeof(s->counts));
		for (size_t t = 0; t < s->ntests; t++) /* 3 bits: always a state */
			s->counts[s->tests[t].state]++;
	}
	report_totals_compute(r);
	suspects_clear(r);
	if (max_suspects == 0)
		return;

	report_test **grew = NULL;
	size_t ngrew = 0;
	for (size_t i = 0; i < r->nshards; i++)
		for (size_t t = 0; t < r->shards[i].ntests; t++) {
			report_test *x = &r->shards[i].tests[t];
			if (x->va_delta > 0 || x->state == TEST_MEMLIMIT)
				*(report_test **)array_append(&grew, &ngrew, sizeof(x)) = x;
		}
	if (ngrew == 0) {
		free(grew);
		return;
	}
	qsort(grew, ngrew, sizeof(*grew), cmp_test_name);
	report_suspect *cand = NULL;
	size_t ncand = 0;
	for (size_t i = 0; i < ngrew; i++)
		if (i == 0 || cmp_test_name(&grew[i - 1], &grew[i]) != 0)
			((report_suspect *)array_append(&cand, &ncand, sizeof(*cand)))->name =
			    (char *)test_name(grew[i]);
	free(grew);
	for (size_t i = 0; i < r->nshards; i++)
		for (size_t t = 0; t < r->shards[i].ntests; t++) {
			const report_test *x = &r->shards[i].tests[t];
			report_suspect *sus =
			    bsearch(test_name(x), cand, ncand, sizeof(*cand), cmp_suspect_name);
			if (!sus)
				continue;
			sus->va_retained = sat_add(sus->va_retained, x->va_delta);
			sus->rss_retained = sat_add(sus->rss_retained, x->rss_delta);
			sus->grew += x->va_delta > 0;
			sus->runs++;
			if (x->state == TEST_MEMLIMIT)
				sus->alone_over_hard = 1;
		}
	size_t n = 0;
	for (size_t i = 0; i < ncand; i++)
		if (cand[i].va_retained > 0 || cand[i].alone_over_hard)
			cand[n++] = cand[i];
	if (n)
		qsort(cand, n, sizeof(*cand), cmp_suspect);
	if (n > max_suspects)
		n = max_suspects;
	r->suspects = report_array_alloc(n, sizeof(report_suspect));
	for (size_t i = 0; i < n; i++) {
		r->suspects[i] = cand[i];
		r->suspects[i].name = report_strdup(cand[i].name);
	}
	r->nsuspects = n;
	free(cand);
}

/* ---- the shard key --------------------------------------------------------- */

static int str_cmp(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

/* By node (when with_node), arch, then suite. */
static int key_cmp(const report_shard *a, const report_shard *b, int with_node)
{
	int c;
	if (with_node && a->node != b->node)
		return a->node < b->node ? -1 : 1;
	if ((c = str_cmp(a->arch, b->arch)) != 0 || (c = str_cmp(a->suite, b->suite)) != 0)
		return c;
	return 0;
}

int report_shard_cmp(const report_shard *a, const report_shard *b)
{
	int c = key_cmp(a, b, 1);
	if (c != 0)
		return c;
	if (a->index != b->index)
		return a->index < b->index ? -1 : 1;
	return 0;
}

int report_shard_same_run(const report_shard *a, const report_shard *b)
{
	return key_cmp(a, b, 1) == 0;
}

int report_shard_same_suite(const report_shard *a, const report_shard *b)
{
	return key_cmp(a, b, 0) == 0;
}

int report_shard_own_process(const report_shard *s)
{
	static const char *const drivers[] = {"exec", "ctest", "wrap"};
	for (size_t i = 0; s->driver && i < sizeof(drivers) / sizeof(drivers[0]); i++)
		if (!strcmp(s->driver, drivers[i]))
			return 1;
	return 0;
}

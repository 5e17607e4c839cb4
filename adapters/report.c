/*
 * report.c - the run report model: building, finishing, merging, and its JSON
 * form (Jansson only; no hand-built JSON), written and read in pieces so that
 * a million tests never become one tree. Must never call runner or guard
 * code: the model is plain data every adapter and ci can use on its own.
 * Over 800 lines on purpose: a field of the model, its writer and its reader
 * change together, and here they are side by side.
 */
#include "report.h"

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

#ifndef MEMGUARD_VERSION
#define MEMGUARD_VERSION "0.0.0"
#endif

#define ISO_TIME_END 253402300800.0 /* 10000-01-01T00:00:00Z */

static const char *const state_names[TEST_STATE_COUNT] = {
    "pass", "fail", "skip", "crash", "timeout", "memory-limit", "error", "not-run",
};

const char *report_state_name(test_state s)
{
	if ((unsigned)s >= TEST_STATE_COUNT)
		return "unknown";
	return state_names[s];
}

int report_state_parse(const char *name)
{
	for (int i = 0; name && i < TEST_STATE_COUNT; i++)
		if (strcmp(name, state_names[i]) == 0)
			return i;
	return -1;
}

int report_state_failed(test_state s)
{
	return s == TEST_FAIL || s == TEST_CRASH || s == TEST_TIMEOUT || s == TEST_MEMLIMIT ||
	       s == TEST_ERROR;
}

/* ---- memory ---------------------------------------------------------------- */

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q) {
		fputs("memguard: out of memory\n", stderr);
		abort();
	}
	return q;
}

char *report_strdup(const char *s)
{
	return s ? report_strndup(s, strlen(s)) : NULL;
}

char *report_strndup(const char *s, size_t len)
{
	if (!s)
		return NULL;
	char *d = xrealloc(NULL, len + 1);
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

static void *array_alloc(size_t n, size_t elem)
{
	size_t cap = array_capacity(n);
	void *p = xrealloc(NULL, cap * elem);
	memset(p, 0, cap * elem);
	return p;
}

static void *array_append(void *arrp, size_t *n, size_t elem)
{
	void **arr = arrp;
	if (*n == 0 || (*n & (*n - 1)) == 0)
		*arr = xrealloc(*arr, (*n ? *n * 2 : 1) * elem);
	char *slot = (char *)*arr + *n * elem;
	memset(slot, 0, elem);
	(*n)++;
	return slot;
}

/*
 * Test names of a shard read in pieces, packed in blocks that double from
 * 4 KiB to 1 MiB: a million names of ~14 bytes take 14 MB, not the 32 MB of
 * a malloc each, and a shard of a few tests costs 4 KiB, not 1 MiB (the
 * report fuzz harness spent most of its time mapping and faulting in those
 * megabytes). A block list is a singly linked list, newest first.
 */
#define NAMES_BLOCK       ((size_t)1 << 20)
#define NAMES_BLOCK_FIRST ((size_t)4096)
typedef struct report_names {
	struct report_names *next;
	size_t used, size;
	char text[];
} report_names;

/* A copy of s (len bytes, NUL-terminated) in s's shard's blocks. */
static char *names_add(report_names **list, const char *s, size_t len)
{
	report_names *b = *list;
	if (!b || b->size - b->used < len + 1) {
		size_t size = !b                      ? NAMES_BLOCK_FIRST
		              : b->size < NAMES_BLOCK ? b->size * 2
		                                      : NAMES_BLOCK;
		if (size < len + 1)
			size = len + 1;
		b = xrealloc(NULL, sizeof(*b) + size);
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

static void names_free(report_names *list)
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

/* Frees the shard's tests, their names and peaks; the rest (counts too) stays. */
static void shard_drop_tests(report_shard *s)
{
	for (size_t t = 0; t < s->ntests; t++) {
		if (!s->names || !names_hold(s->names, s->tests[t].name))
			free(s->tests[t].name);
		free(s->tests[t].message);
		free(s->tests[t].output);
	}
	free(s->tests);
	free(s->peaks);
	names_free(s->names);
	s->tests = NULL;
	s->peaks = NULL;
	s->names = NULL;
	s->ntests = s->npeaks = 0;
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
	for (size_t g = 0; g < s->ngens; g++) {
		report_generation *gen = &s->gens[g];
		free(gen->end);
		free(gen->reason);
		free(gen->warning);
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

report_test *report_shard_add_test(report_shard *s)
{
	report_test *t = array_append(&s->tests, &s->ntests, sizeof(report_test));
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
	d->categories = array_alloc(s->ncategories, sizeof(report_category));
	for (size_t i = 0; i < s->ncategories; i++) {
		d->categories[i] = s->categories[i];
		d->categories[i].name = report_strdup(s->categories[i].name);
	}
	d->groups = array_alloc(s->ngroups, sizeof(report_group));
	for (size_t i = 0; i < s->ngroups; i++) {
		d->groups[i] = s->groups[i];
		d->groups[i].name = report_strdup(s->groups[i].name);
	}
}

static void shard_copy(report_shard *d, const report_shard *s)
{
	*d = *s;
	d->names = NULL; /* the copy's names are its own, packed in its blocks below */
	d->suite = report_strdup(s->suite);
	d->arch = report_strdup(s->arch);
	d->driver = report_strdup(s->driver);
	d->command = report_strdup(s->command);
	d->gens = array_alloc(s->ngens, sizeof(report_generation));
	for (size_t g = 0; g < s->ngens; g++) {
		report_generation *dg = &d->gens[g];
		const report_generation *sg = &s->gens[g];
		*dg = *sg;
		dg->end = report_strdup(sg->end);
		dg->reason = report_strdup(sg->reason);
		dg->warning = report_strdup(sg->warning);
		dg->breakdowns = array_alloc(sg->nbreakdowns, sizeof(report_breakdown));
		for (size_t b = 0; b < sg->nbreakdowns; b++)
			breakdown_copy(&dg->breakdowns[b], &sg->breakdowns[b]);
	}
	d->tests = array_alloc(s->ntests, sizeof(report_test));
	for (size_t t = 0; t < s->ntests; t++) {
		d->tests[t] = s->tests[t];
		const char *name = s->tests[t].name;
		d->tests[t].name = name ? names_add(&d->names, name, strlen(name)) : NULL;
		d->tests[t].message = report_strdup(s->tests[t].message);
		d->tests[t].output = report_strdup(s->tests[t].output);
	}
	d->peaks = array_alloc(s->npeaks, sizeof(report_peak));
	if (s->npeaks)
		memcpy(d->peaks, s->peaks, s->npeaks * sizeof(report_peak));
	d->timeline = array_alloc(s->ntimeline, sizeof(report_point));
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
static void totals_compute(report *r)
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
	totals_compute(r);
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
	r->suspects = array_alloc(n, sizeof(report_suspect));
	for (size_t i = 0; i < n; i++) {
		r->suspects[i] = cand[i];
		r->suspects[i].name = report_strdup(cand[i].name);
	}
	r->nsuspects = n;
	free(cand);
}

/* ---- formatting ------------------------------------------------------------ */

/*
 * Binary units, 3 significant digits ("3.49 GiB", "212 MiB"), except KiB
 * which shows at most one decimal ("4.0 KiB"): nobody reads the hundredths
 * of a KiB. A value that would round to 1024 moves to the next unit.
 */
void report_format_size(char *buf, size_t size, uint64_t bytes)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	if (bytes < 1024) {
		snprintf(buf, size, "%u B", (unsigned)bytes);
		return;
	}
	double v = (double)bytes;
	int u = 0;
	while (v >= 1023.5 && u < 6) {
		v /= 1024.0;
		u++;
	}
	int dec;
	if (v < 9.995)
		dec = u == 1 ? 1 : 2;
	else if (v < 99.95)
		dec = 1;
	else
		dec = 0;
	if (u == 1 && v >= 9.95 && v < 99.95)
		dec = 1;
	snprintf(buf, size, "%.*f %s", dec, v, units[u]);
}

void report_format_size_signed(char *buf, size_t size, int64_t bytes)
{
	if (size == 0)
		return;
	size_t sign = bytes < 0 && size > 1;
	buf[0] = '-';
	/* 0 - (uint64_t)v is |v| for every v, INT64_MIN included. */
	report_format_size(buf + sign, size - sign,
	                   bytes < 0 ? 0 - (uint64_t)bytes : (uint64_t)bytes);
}

/* "850ms", "12.3s", "4m12s", "1h02m"; negative or not finite shows "-". */
void report_format_duration(char *buf, size_t size, double seconds)
{
	if (!isfinite(seconds) || seconds < 0) {
		snprintf(buf, size, "-");
		return;
	}
	if (seconds < 0.9995) {
		snprintf(buf, size, "%dms", (int)lround(seconds * 1000.0));
		return;
	}
	if (seconds < 59.95) {
		snprintf(buf, size, "%.1fs", seconds);
		return;
	}
	/* lround of a value past LONG_MAX is unspecified: such a span shows in
	 * whole hours (a year is 8766h, so these never fit the format anyway). */
	if (seconds >= 1e12) {
		snprintf(buf, size, "%.0fh", seconds / 3600);
		return;
	}
	long s = lround(seconds);
	if (s < 3600) {
		snprintf(buf, size, "%ldm%02lds", s / 60, s % 60);
		return;
	}
	long m = (s + 30) / 60;
	snprintf(buf, size, "%ldh%02ldm", m / 60, m % 60);
}

/* ---- UTF-8 ----------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s (strict: no overlongs, no
 * surrogates, nothing above U+10FFFF), or 0 if it is not valid. */
size_t report_utf8_valid_len(const unsigned char *s, size_t avail)
{
	unsigned c = s[0];
	size_t n;
	unsigned cp;
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF) {
		n = 2;
		cp = c & 0x1F;
	} else if (c >= 0xE0 && c <= 0xEF) {
		n = 3;
		cp = c & 0x0F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (avail < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF ||
	    (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return n;
}

char *report_utf8_sanitize(const char *s, size_t *len_out)
{
	if (!s)
		return NULL;
	size_t len = strlen(s);
	/* worst case: every byte becomes the 3-byte U+FFFD */
	char *d = xrealloc(NULL, len * 3 + 1);
	size_t o = 0;
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < len;) {
		size_t n = report_utf8_valid_len(u + i, len - i);
		if (n == 0) {
			memcpy(d + o, "\xEF\xBF\xBD", 3);
			o += 3;
			i++;
		} else {
			memcpy(d + o, u + i, n);
			o += n;
			i += n;
		}
	}
	d[o] = '\0';
	if (len_out)
		*len_out = o;
	return d;
}

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

static json_t *jstr(const char *s)
{
	if (!s)
		return json_null();
	size_t len = strlen(s);
	if (utf8_valid(s, len))
		return json_stringn_nocheck(s, len);
	char *clean = report_utf8_sanitize(s, &len);
	json_t *j = json_stringn_nocheck(clean, len);
	free(clean);
	return j;
}

static json_t *juint(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

static json_t *jreal(double v)
{
	return json_real(isfinite(v) ? v : 0.0);
}

int report_format_time(char *buf, size_t size, double t, const char *fmt)
{
	if (size)
		buf[0] = 0;
	/* not finite, negative, or so large that casting it to time_t would be
	 * undefined: a report read back may hold any number */
	if (!isfinite(t) || t < 0 || t >= ISO_TIME_END)
		return -1;
	time_t whole = (time_t)floor(t);
	struct tm tm;
	if (!gmtime_r(&whole, &tm) || strftime(buf, size, fmt, &tm) == 0) {
		if (size)
			buf[0] = 0;
		return -1;
	}
	return 0;
}

/* Unix seconds t as "2026-09-21T14:13:20Z" in buf, or "" when t is not a
 * time from 1970 to 9999. */
static void iso_time(char *buf, size_t size, double t)
{
	report_format_time(buf, size, t, "%Y-%m-%dT%H:%M:%SZ");
}

static void set(json_t *o, const char *key, json_t *v)
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
	set(o, "when", jstr(b->when ? b->when : ""));
	set(o, "va", juint(b->va));
	set(o, "largest_gap", juint(b->largest_gap));
	json_t *cats = json_array();
	for (size_t i = 0; i < b->ncategories; i++) {
		json_t *c = json_object();
		set(c, "name", jstr(b->categories[i].name ? b->categories[i].name : ""));
		set(c, "va", juint(b->categories[i].va));
		set(c, "rss", juint(b->categories[i].rss));
		push(cats, c);
	}
	set(o, "categories", cats);
	json_t *groups = json_array();
	for (size_t i = 0; i < b->ngroups; i++) {
		json_t *g = json_object();
		set(g, "name", jstr(b->groups[i].name ? b->groups[i].name : ""));
		set(g, "count", juint(b->groups[i].count));
		set(g, "size", juint(b->groups[i].size));
		set(g, "total", juint(b->groups[i].total));
		push(groups, g);
	}
	set(o, "groups", groups);
	return o;
}

static json_t *generation_to_json(const report_generation *g)
{
	json_t *o = json_object();
	set(o, "index", juint(g->index));
	set(o, "pid", json_integer(g->pid));
	set(o, "tests_run", juint(g->tests_run));
	set(o, "peak_va", juint(g->peak_va));
	set(o, "peak_rss", juint(g->peak_rss));
	set(o, "end", jstr(g->end ? g->end : ""));
	if (g->reason)
		set(o, "reason", jstr(g->reason));
	if (g->warning)
		set(o, "warning", jstr(g->warning));
	set(o, "start", jreal(g->start));
	set(o, "wall", jreal(g->wall));
	json_t *bds = json_array();
	for (size_t i = 0; i < g->nbreakdowns; i++)
		push(bds, breakdown_to_json(&g->breakdowns[i]));
	set(o, "breakdowns", bds);
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
/* precision: the digits its duration is written with (0: none written). */
static json_t *test_to_json(const report_test *t, uint64_t va_peak, int *precision)
{
	json_t *o = json_object();
	set(o, "n", jstr(t->name ? t->name : ""));
	if (t->state != TEST_PASS)
		set(o, "s", json_string(report_state_name(t->state)));
	if (t->message)
		set(o, "m", jstr(t->message));
	if (t->output)
		set(o, "o", jstr(t->output));
	if (t->generation)
		set(o, "g", juint(t->generation));
	if (t->attempts != 1)
		set(o, "a", juint(t->attempts));
	*precision = 0;
	if (t->duration != 0 && isfinite(t->duration)) {
		double d; /* the decimal the float reads back from */
		*precision = real_precision(t->duration, &d);
		set(o, "d", jreal(d));
	}
	if (t->va_after)
		set(o, "va", juint(t->va_after));
	if (t->rss_after)
		set(o, "rss", juint(t->rss_after));
	if (t->va_delta)
		set(o, "dva", json_integer(t->va_delta));
	if (t->rss_delta)
		set(o, "drss", json_integer(t->rss_delta));
	if (va_peak)
		set(o, "pk", juint(va_peak));
	return o;
}

static json_t *limits_to_json(const report_limits *l)
{
	json_t *o = json_object();
	set(o, "va", juint(l->va));
	set(o, "rss", juint(l->rss));
	set(o, "cgroup", juint(l->cgroup));
	set(o, "gap", juint(l->gap));
	return o;
}

/* A shard without its tests (they are written, or added, after it). */
static json_t *shard_head_to_json(const report_shard *s)
{
	json_t *o = json_object();
	set(o, "node", juint(s->node));
	set(o, "start_time", jreal(s->start_time));
	set(o, "index", juint(s->index));
	set(o, "suite", jstr(s->suite ? s->suite : ""));
	set(o, "arch", jstr(s->arch ? s->arch : ""));
	set(o, "driver", jstr(s->driver ? s->driver : ""));
	set(o, "command", jstr(s->command ? s->command : ""));
	json_t *counts = json_object();
	for (int i = 0; i < TEST_STATE_COUNT; i++)
		set(counts, state_names[i], juint(s->counts[i]));
	set(o, "counts", counts);
	set(o, "peak_va", juint(s->peak_va));
	set(o, "peak_rss", juint(s->peak_rss));
	if (s->rss_soft || s->rss_hard) {
		set(o, "rss_soft", juint(s->rss_soft));
		set(o, "rss_hard", juint(s->rss_hard));
	}
	set(o, "recycles", juint(s->recycles));
	set(o, "kills", juint(s->kills));
	set(o, "wall", jreal(s->wall));
	set(o, "user", jreal(s->user));
	set(o, "sys", jreal(s->sys));
	json_t *gens = json_array();
	for (size_t i = 0; i < s->ngens; i++)
		push(gens, generation_to_json(&s->gens[i]));
	set(o, "generations", gens);
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
	set(o, "timeline", tl);
	return o;
}

/* The report without its shards: everything but the tests is small. */
static json_t *report_head_to_json(const report *r)
{
	json_t *o = json_object();
	set(o, "schema", json_string(REPORT_SCHEMA));
	set(o, "tool_version", jstr(r->tool_version ? r->tool_version : ""));
	json_t *commit = json_object();
	if (r->sha) {
		set(commit, "sha", jstr(r->sha));
		set(commit, "branch", jstr(r->branch));
		set(commit, "dirty", json_boolean(r->dirty));
	} else {
		set(commit, "note", jstr(r->repo_note ? r->repo_note : "not a git repository"));
	}
	set(o, "commit", commit);
	json_t *node = json_object();
	set(node, "index", juint(r->node_index));
	set(node, "total", juint(r->node_total));
	set(o, "node", node);
	if (r->nnodes_present) {
		json_t *present = json_array();
		for (size_t i = 0; i < r->nnodes_present; i++)
			json_array_append_new(present, juint(r->nodes_present[i]));
		set(o, "nodes_present", present);
	}
	json_t *limits = json_object();
	set(limits, "soft", jstr(r->limits_soft));
	set(limits, "hard", jstr(r->limits_hard));
	if (r->has_limit_bytes) {
		set(limits, "soft_bytes", limits_to_json(&r->soft));
		set(limits, "hard_bytes", limits_to_json(&r->hard));
	}
	set(o, "limits", limits);
	set(o, "start_time", jreal(r->start_time));
	char iso[64] = "";
	iso_time(iso, sizeof(iso), r->start_time);
	set(o, "start_time_iso", json_string(iso));
	set(o, "wall", jreal(r->wall));
	if (r->expected_wall > 0)
		set(o, "expected_wall", jreal(r->expected_wall));
	set(o, "interrupted", json_boolean(r->interrupted));
	set(o, "exit_code", json_integer(r->exit_code));
	if (r->containment)
		set(o, "containment", jstr(r->containment));
	json_t *sus = json_array();
	for (size_t i = 0; i < r->nsuspects; i++) {
		const report_suspect *s = &r->suspects[i];
		json_t *j = json_object();
		set(j, "name", jstr(s->name ? s->name : ""));
		set(j, "va_retained", json_integer(s->va_retained));
		set(j, "rss_retained", json_integer(s->rss_retained));
		set(j, "grew", juint(s->grew));
		set(j, "runs", juint(s->runs));
		set(j, "alone_over_hard", json_boolean(s->alone_over_hard));
		push(sus, j);
	}
	set(o, "suspects", sus);
	if (r->history.source) {
		const report_history *h = &r->history;
		json_t *ho = json_object(), *alone = json_array(), *grew = json_array();
		set(ho, "source", jstr(h->source));
		set(ho, "known", juint(h->known));
		set(ho, "avoided", juint(h->avoided));
		for (size_t i = 0; i < h->nalone; i++)
			push(alone, jstr(h->alone[i]));
		set(ho, "alone", alone);
		for (size_t i = 0; i < h->ngrew; i++) {
			json_t *g = json_object();
			set(g, "name", jstr(h->grew[i].name));
			set(g, "then", juint(h->grew[i].then));
			set(g, "now", juint(h->grew[i].now));
			push(grew, g);
		}
		set(ho, "grew", grew);
		set(o, "history", ho);
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
			                         &precision));
		}
		set(so, "tests", tests);
		push(shards, so);
	}
	set(o, "shards", shards);
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
enum { TW_NFIELDS = 12 };
static const char *const tw_keys[TW_NFIELDS] = {"n", "s",  "m",   "o",   "g",    "a",
                                                "d", "va", "rss", "dva", "drss", "pk"};

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
	       !!t->rss_after << 8 | !!t->va_delta << 9 | !!t->rss_delta << 10 | !!va_peak << 11;
}

static void string_set(json_t *v, const char *s)
{
	size_t len = strlen(s);
	if (utf8_valid(s, len)) {
		json_string_setn_nocheck(v, s, len);
		return;
	}
	char *clean = report_utf8_sanitize(s, &len);
	json_string_setn_nocheck(v, clean, len);
	free(clean);
}

static void int_set(json_t *v, uint64_t u)
{
	json_integer_set(v, u > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)u);
}

/* The object of test t (owned by w, valid until the next call). */
static json_t *test_writer_json(test_writer *w, const report_test *t, uint64_t va_peak,
                                int *precision)
{
	unsigned mask = test_mask(t, va_peak);
	if (!w->o || mask != w->mask) {
		json_decref(w->o);
		w->o = test_to_json(t, va_peak, precision);
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
		string_set(v[3], t->output);
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
			json_t *o = test_writer_json(&w, &sh->tests[t],
			                             report_shard_test_peak(sh, t), &precision);
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

/* ---- from JSON ------------------------------------------------------------- */

/* Field lookups that name the bad field: "shards[2].tests[5].state: ...". */
enum { OPT = 1, NULLABLE = 2 };

static json_t *field(json_t *o, const char *path, const char *key, int flags, mg_err *err, int *rc)
{
	json_t *v = json_object_get(o, key);
	if (!v && !(flags & OPT))
		*rc = mg_err_set(err, MG_EINVAL, "%s%s%s: missing", path, *path ? "." : "", key);
	return v;
}

static int bad_type(mg_err *err, const char *path, const char *key, const char *want)
{
	return mg_err_set(err, MG_EINVAL, "%s%s%s: expected %s", path, *path ? "." : "", key, want);
}

static int get_str(json_t *o, const char *path, const char *key, int flags, char **out, mg_err *err)
{
	int rc = 0;
	json_t *v = field(o, path, key, flags, err, &rc);
	if (rc)
		return rc;
	if (!v || (json_is_null(v) && (flags & NULLABLE))) {
		*out = NULL;
		return 0;
	}
	if (!json_is_string(v))
		return bad_type(err, path, key,
		                (flags & NULLABLE) ? "a string or null" : "a string");
	*out = report_strndup(json_string_value(v), json_string_length(v));
	return 0;
}

static int get_int(json_t *o, const char *path, const char *key, int64_t min, int64_t max,
                   int64_t *out, mg_err *err)
{
	int rc = 0;
	json_t *v = field(o, path, key, 0, err, &rc);
	if (rc)
		return rc;
	if (!json_is_integer(v))
		return bad_type(err, path, key, "an integer");
	json_int_t i = json_integer_value(v);
	if (i < min || i > max)
		return mg_err_set(err, MG_EINVAL, "%s%s%s: %lld out of range", path,
		                  *path ? "." : "", key, (long long)i);
	*out = i;
	return 0;
}

static int get_u64(json_t *o, const char *path, const char *key, uint64_t *out, mg_err *err)
{
	int64_t v = 0;
	int rc = get_int(o, path, key, 0, INT64_MAX, &v, err);
	*out = (uint64_t)v;
	return rc;
}

static int get_u32(json_t *o, const char *path, const char *key, uint32_t *out, mg_err *err)
{
	int64_t v = 0;
	int rc = get_int(o, path, key, 0, UINT32_MAX, &v, err);
	*out = (uint32_t)v;
	return rc;
}

static int get_real(json_t *o, const char *path, const char *key, double *out, mg_err *err)
{
	int rc = 0;
	json_t *v = field(o, path, key, 0, err, &rc);
	if (rc)
		return rc;
	if (!json_is_number(v))
		return bad_type(err, path, key, "a number");
	*out = json_number_value(v);
	return 0;
}

static int get_bool(json_t *o, const char *path, const char *key, int *out, mg_err *err)
{
	int rc = 0;
	json_t *v = field(o, path, key, 0, err, &rc);
	if (rc)
		return rc;
	if (!json_is_boolean(v))
		return bad_type(err, path, key, "a boolean");
	*out = json_is_true(v);
	return 0;
}

static int get_obj(json_t *o, const char *path, const char *key, json_t **out, mg_err *err)
{
	int rc = 0;
	json_t *v = field(o, path, key, 0, err, &rc);
	if (rc)
		return rc;
	if (!json_is_object(v))
		return bad_type(err, path, key, "an object");
	*out = v;
	return 0;
}

static int get_arr(json_t *o, const char *path, const char *key, json_t **out, mg_err *err)
{
	int rc = 0;
	json_t *v = field(o, path, key, 0, err, &rc);
	if (rc)
		return rc;
	if (!json_is_array(v))
		return bad_type(err, path, key, "an array");
	*out = v;
	return 0;
}

static int limits_from_json(json_t *o, const char *path, report_limits *l, mg_err *err)
{
	int rc;
	if ((rc = get_u64(o, path, "va", &l->va, err)) < 0 ||
	    (rc = get_u64(o, path, "rss", &l->rss, err)) < 0 ||
	    (rc = get_u64(o, path, "cgroup", &l->cgroup, err)) < 0 ||
	    (rc = get_u64(o, path, "gap", &l->gap, err)) < 0)
		return rc;
	return 0;
}

/* snprintf for field paths: truncating a long path is fine. */
static void pathf(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void pathf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

/* path of element i of array key under path, and checks it is an object */
static int elem(json_t *arr, size_t i, const char *path, const char *key, char *sub, size_t subsize,
                json_t **out, mg_err *err)
{
	pathf(sub, subsize, "%s%s%s[%zu]", path, *path ? "." : "", key, i);
	*out = json_array_get(arr, i);
	if (!json_is_object(*out))
		return mg_err_set(err, MG_EINVAL, "%s: expected an object", sub);
	return 0;
}

#define TRY(x)                                                                                     \
	do {                                                                                       \
		if ((rc = (x)) != 0)                                                               \
			return rc;                                                                 \
	} while (0)

static int breakdown_from_json(report_breakdown *b, json_t *o, const char *p, mg_err *err)
{
	int rc;
	json_t *arr, *e;
	char sub[256];
	TRY(get_str(o, p, "when", 0, &b->when, err));
	TRY(get_u64(o, p, "va", &b->va, err));
	TRY(get_u64(o, p, "largest_gap", &b->largest_gap, err));
	TRY(get_arr(o, p, "categories", &arr, err));
	b->categories = array_alloc(json_array_size(arr), sizeof(report_category));
	for (size_t i = 0; i < json_array_size(arr); i++) {
		report_category *c = &b->categories[b->ncategories++];
		TRY(elem(arr, i, p, "categories", sub, sizeof(sub), &e, err));
		TRY(get_str(e, sub, "name", 0, &c->name, err));
		TRY(get_u64(e, sub, "va", &c->va, err));
		TRY(get_u64(e, sub, "rss", &c->rss, err));
	}
	TRY(get_arr(o, p, "groups", &arr, err));
	b->groups = array_alloc(json_array_size(arr), sizeof(report_group));
	for (size_t i = 0; i < json_array_size(arr); i++) {
		report_group *g = &b->groups[b->ngroups++];
		TRY(elem(arr, i, p, "groups", sub, sizeof(sub), &e, err));
		TRY(get_str(e, sub, "name", 0, &g->name, err));
		TRY(get_u64(e, sub, "count", &g->count, err));
		TRY(get_u64(e, sub, "size", &g->size, err));
		TRY(get_u64(e, sub, "total", &g->total, err));
	}
	return 0;
}

static int generation_from_json(report_generation *g, json_t *o, const char *p, mg_err *err)
{
	int rc;
	int64_t pid;
	json_t *arr, *e;
	char sub[256];
	TRY(get_u32(o, p, "index", &g->index, err));
	TRY(get_int(o, p, "pid", INT32_MIN, INT32_MAX, &pid, err));
	g->pid = (long)pid;
	TRY(get_u32(o, p, "tests_run", &g->tests_run, err));
	TRY(get_u64(o, p, "peak_va", &g->peak_va, err));
	TRY(get_u64(o, p, "peak_rss", &g->peak_rss, err));
	TRY(get_str(o, p, "end", 0, &g->end, err));
	TRY(get_str(o, p, "reason", OPT | NULLABLE, &g->reason, err));
	TRY(get_str(o, p, "warning", OPT | NULLABLE, &g->warning, err));
	TRY(get_real(o, p, "start", &g->start, err));
	TRY(get_real(o, p, "wall", &g->wall, err));
	TRY(get_arr(o, p, "breakdowns", &arr, err));
	g->breakdowns = array_alloc(json_array_size(arr), sizeof(report_breakdown));
	for (size_t i = 0; i < json_array_size(arr); i++) {
		TRY(elem(arr, i, p, "breakdowns", sub, sizeof(sub), &e, err));
		TRY(breakdown_from_json(&g->breakdowns[g->nbreakdowns++], e, sub, err));
	}
	return 0;
}

/* A test of memguard-report/1: long keys, every figure present. */
/* What a test's JSON holds beyond its strings, read at full width and then
 * stored (test_store): a report whose attempts or generation do not fit a
 * report_test is refused, naming the field, rather than cut. */
typedef struct test_wide {
	uint32_t generation, attempts;
	double duration;
	uint64_t va_peak;
} test_wide;

static int test_store(report_shard *s, size_t i, const test_wide *w, const char *p,
                      const char *gkey, const char *akey, mg_err *err)
{
	report_test *t = &s->tests[i];
	if (w->generation > REPORT_MAX_GENERATION)
		return mg_err_set(err, MG_EINVAL, "%s.%s: %lu out of range (at most %u)", p, gkey,
		                  (unsigned long)w->generation, REPORT_MAX_GENERATION);
	if (w->attempts > REPORT_MAX_ATTEMPTS)
		return mg_err_set(err, MG_EINVAL, "%s.%s: %lu out of range (at most %u)", p, akey,
		                  (unsigned long)w->attempts, REPORT_MAX_ATTEMPTS);
	t->generation = w->generation;
	t->attempts = w->attempts;
	t->duration = (float)w->duration;
	report_shard_set_test_peak(s, i, w->va_peak);
	return 0;
}

static int test_from_json_v1(report_shard *sh, size_t i, json_t *o, const char *p, mg_err *err)
{
	int rc;
	report_test *t = &sh->tests[i];
	test_wide w = {0};
	char *state = NULL;
	TRY(get_str(o, p, "name", 0, &t->name, err));
	TRY(get_str(o, p, "state", 0, &state, err));
	int s = report_state_parse(state);
	if (s < 0) {
		rc = mg_err_set(err, MG_EINVAL, "%s.state: unknown state '%.64s'", p, state);
		free(state);
		return rc;
	}
	free(state);
	t->state = (unsigned)s;
	TRY(get_str(o, p, "message", OPT | NULLABLE, &t->message, err));
	TRY(get_str(o, p, "output", OPT | NULLABLE, &t->output, err));
	TRY(get_u32(o, p, "generation", &w.generation, err));
	TRY(get_u32(o, p, "attempts", &w.attempts, err));
	TRY(get_real(o, p, "duration", &w.duration, err));
	TRY(get_u64(o, p, "va_after", &t->va_after, err));
	TRY(get_u64(o, p, "rss_after", &t->rss_after, err));
	TRY(get_int(o, p, "va_delta", INT64_MIN, INT64_MAX, &t->va_delta, err));
	TRY(get_int(o, p, "rss_delta", INT64_MIN, INT64_MAX, &t->rss_delta, err));
	if (json_object_get(o, "va_peak"))
		TRY(get_u64(o, p, "va_peak", &w.va_peak, err));
	return test_store(sh, i, &w, p, "generation", "attempts", err);
}

/* The optional fields of /2: absent means the default (test_to_json). */
#define IF_SET(o, key, x)                                                                          \
	do {                                                                                       \
		if (json_object_get(o, key))                                                       \
			TRY(x);                                                                    \
	} while (0)

/* A test of memguard-report/2 (test_to_json): short keys, defaults left out. */
static int test_from_json_v2(report_shard *sh, size_t i, json_t *o, const char *p, mg_err *err)
{
	int rc;
	report_test *t = &sh->tests[i];
	test_wide w = {.attempts = 1};
	char *state = NULL;
	TRY(get_str(o, p, "n", 0, &t->name, err));
	TRY(get_str(o, p, "s", OPT, &state, err));
	int s = state ? report_state_parse(state) : TEST_PASS;
	if (s < 0) {
		rc = mg_err_set(err, MG_EINVAL, "%s.s: unknown state '%.64s'", p, state);
		free(state);
		return rc;
	}
	free(state);
	t->state = (unsigned)s;
	TRY(get_str(o, p, "m", OPT | NULLABLE, &t->message, err));
	TRY(get_str(o, p, "o", OPT | NULLABLE, &t->output, err));
	IF_SET(o, "g", get_u32(o, p, "g", &w.generation, err));
	IF_SET(o, "a", get_u32(o, p, "a", &w.attempts, err));
	IF_SET(o, "d", get_real(o, p, "d", &w.duration, err));
	IF_SET(o, "va", get_u64(o, p, "va", &t->va_after, err));
	IF_SET(o, "rss", get_u64(o, p, "rss", &t->rss_after, err));
	IF_SET(o, "dva", get_int(o, p, "dva", INT64_MIN, INT64_MAX, &t->va_delta, err));
	IF_SET(o, "drss", get_int(o, p, "drss", INT64_MIN, INT64_MAX, &t->rss_delta, err));
	IF_SET(o, "pk", get_u64(o, p, "pk", &w.va_peak, err));
	return test_store(sh, i, &w, p, "g", "a", err);
}

/* Test i of shard s (already appended) from o. version: 1 or 2 (the
 * schema); 0 when the schema was not read yet (a document with its shards
 * before it): then by the keys the test has. */
static int test_from_json(report_shard *s, size_t i, json_t *o, int version, const char *p,
                          mg_err *err)
{
	if (version == 0)
		version = json_object_get(o, "name") ? 1 : 2;
	return version == 1 ? test_from_json_v1(s, i, o, p, err)
	                    : test_from_json_v2(s, i, o, p, err);
}

static int point_from_json(report_point *pt, json_t *a, const char *p, mg_err *err)
{
	if (!json_is_array(a) || json_array_size(a) != 4)
		return mg_err_set(err, MG_EINVAL, "%s: expected [t, va, rss, generation]", p);
	json_t *t = json_array_get(a, 0), *va = json_array_get(a, 1), *rss = json_array_get(a, 2),
	       *gen = json_array_get(a, 3);
	if (!json_is_number(t) || !json_is_integer(va) || json_integer_value(va) < 0 ||
	    !json_is_integer(rss) || json_integer_value(rss) < 0 || !json_is_integer(gen) ||
	    json_integer_value(gen) < 0 || json_integer_value(gen) > UINT32_MAX)
		return mg_err_set(err, MG_EINVAL,
		                  "%s: expected [t, va, rss, generation] of numbers >= 0", p);
	pt->t = json_number_value(t);
	pt->va = (uint64_t)json_integer_value(va);
	pt->rss = (uint64_t)json_integer_value(rss);
	pt->generation = (uint32_t)json_integer_value(gen);
	return 0;
}

/* version as test_from_json; with_tests 0: the tests were read in pieces
 * (report_parse) and o holds no "tests". */
static int shard_from_json(report_shard *s, json_t *o, int version, int with_tests, const char *p,
                           mg_err *err)
{
	int rc;
	json_t *counts, *arr, *e;
	char sub[256];
	TRY(get_u32(o, p, "node", &s->node, err));
	if (json_object_get(o, "start_time")) /* absent in reports before it existed */
		TRY(get_real(o, p, "start_time", &s->start_time, err));
	TRY(get_u32(o, p, "index", &s->index, err));
	TRY(get_str(o, p, "suite", 0, &s->suite, err));
	TRY(get_str(o, p, "arch", 0, &s->arch, err));
	TRY(get_str(o, p, "driver", 0, &s->driver, err));
	TRY(get_str(o, p, "command", 0, &s->command, err));
	TRY(get_obj(o, p, "counts", &counts, err));
	pathf(sub, sizeof(sub), "%s.counts", p);
	const char *key;
	json_t *v;
	json_object_foreach(counts, key, v)
	{
		if (report_state_parse(key) < 0)
			return mg_err_set(err, MG_EINVAL, "%s: unknown state '%.64s'", sub, key);
	}
	for (int i = 0; i < TEST_STATE_COUNT; i++)
		if (json_object_get(counts, state_names[i]))
			TRY(get_u64(counts, sub, state_names[i], &s->counts[i], err));
	TRY(get_u64(o, p, "peak_va", &s->peak_va, err));
	TRY(get_u64(o, p, "peak_rss", &s->peak_rss, err));
	if (json_object_get(o, "rss_soft") || json_object_get(o, "rss_hard")) {
		TRY(get_u64(o, p, "rss_soft", &s->rss_soft, err));
		TRY(get_u64(o, p, "rss_hard", &s->rss_hard, err));
	}
	TRY(get_u32(o, p, "recycles", &s->recycles, err));
	TRY(get_u32(o, p, "kills", &s->kills, err));
	TRY(get_real(o, p, "wall", &s->wall, err));
	TRY(get_real(o, p, "user", &s->user, err));
	TRY(get_real(o, p, "sys", &s->sys, err));
	TRY(get_arr(o, p, "generations", &arr, err));
	s->gens = array_alloc(json_array_size(arr), sizeof(report_generation));
	for (size_t i = 0; i < json_array_size(arr); i++) {
		TRY(elem(arr, i, p, "generations", sub, sizeof(sub), &e, err));
		TRY(generation_from_json(&s->gens[s->ngens++], e, sub, err));
	}
	if (with_tests) {
		TRY(get_arr(o, p, "tests", &arr, err));
		s->tests = array_alloc(json_array_size(arr), sizeof(report_test));
		for (size_t i = 0; i < json_array_size(arr); i++) {
			TRY(elem(arr, i, p, "tests", sub, sizeof(sub), &e, err));
			s->ntests++;
			TRY(test_from_json(s, s->ntests - 1, e, version, sub, err));
		}
	}
	TRY(get_arr(o, p, "timeline", &arr, err));
	s->timeline = array_alloc(json_array_size(arr), sizeof(report_point));
	for (size_t i = 0; i < json_array_size(arr); i++) {
		pathf(sub, sizeof(sub), "%s.timeline[%zu]", p, i);
		TRY(point_from_json(&s->timeline[s->ntimeline++], json_array_get(arr, i), sub,
		                    err));
	}
	return 0;
}

/* 1 or 2 for the schemas this reader knows, 0 for any other. */
static int schema_version(json_t *o)
{
	const char *s = json_string_value(json_object_get(o, "schema"));
	return !s                                 ? 0
	       : strcmp(s, REPORT_SCHEMA_V1) == 0 ? 1
	       : strcmp(s, REPORT_SCHEMA) == 0    ? 2
	                                          : 0;
}

/* with_shards 0: the shards were read in pieces into r (report_parse) and o
 * holds no "shards". */
static int from_json(report *r, json_t *o, int with_shards, mg_err *err)
{
	int rc;
	json_t *commit, *node, *limits, *arr, *e;
	char *schema = NULL;
	char sub[256];
	int64_t exit_code;
	if (!json_is_object(o))
		return mg_err_set(err, MG_EINVAL, "report: expected a JSON object");
	TRY(get_str(o, "", "schema", 0, &schema, err));
	int version = schema_version(o);
	if (version == 0) {
		rc = mg_err_set(err, MG_EINVAL, "schema: '%.64s' is not '%s' (nor '%s')", schema,
		                REPORT_SCHEMA, REPORT_SCHEMA_V1);
		free(schema);
		return rc;
	}
	free(schema);
	free(r->tool_version);
	r->tool_version = NULL;
	TRY(get_str(o, "", "tool_version", 0, &r->tool_version, err));
	TRY(get_obj(o, "", "commit", &commit, err));
	if (json_object_get(commit, "sha")) {
		TRY(get_str(commit, "commit", "sha", 0, &r->sha, err));
		TRY(get_str(commit, "commit", "branch", OPT | NULLABLE, &r->branch, err));
		TRY(get_bool(commit, "commit", "dirty", &r->dirty, err));
	} else {
		TRY(get_str(commit, "commit", "note", NULLABLE, &r->repo_note, err));
	}
	TRY(get_obj(o, "", "node", &node, err));
	TRY(get_u32(node, "node", "index", &r->node_index, err));
	TRY(get_u32(node, "node", "total", &r->node_total, err));
	if (json_object_get(o, "nodes_present")) {
		json_t *present, *v;
		size_t i;
		TRY(get_arr(o, "", "nodes_present", &present, err));
		r->nodes_present = calloc(json_array_size(present) + 1, sizeof(uint32_t));
		if (!r->nodes_present)
			abort();
		json_array_foreach(present, i, v)
		{
			json_int_t n = json_integer_value(v);
			if (!json_is_integer(v) || n < 0 || n > UINT32_MAX)
				return bad_type(err, "", "nodes_present",
				                "an array of node numbers");
			r->nodes_present[r->nnodes_present++] = (uint32_t)n;
		}
	}
	TRY(get_obj(o, "", "limits", &limits, err));
	TRY(get_str(limits, "limits", "soft", NULLABLE, &r->limits_soft, err));
	TRY(get_str(limits, "limits", "hard", NULLABLE, &r->limits_hard, err));
	json_t *lb;
	if (json_object_get(limits, "soft_bytes") || json_object_get(limits, "hard_bytes")) {
		TRY(get_obj(limits, "limits", "soft_bytes", &lb, err));
		TRY(limits_from_json(lb, "limits.soft_bytes", &r->soft, err));
		TRY(get_obj(limits, "limits", "hard_bytes", &lb, err));
		TRY(limits_from_json(lb, "limits.hard_bytes", &r->hard, err));
		r->has_limit_bytes = 1;
	}
	TRY(get_real(o, "", "start_time", &r->start_time, err));
	TRY(get_real(o, "", "wall", &r->wall, err));
	if (json_object_get(o, "expected_wall"))
		TRY(get_real(o, "", "expected_wall", &r->expected_wall, err));
	TRY(get_bool(o, "", "interrupted", &r->interrupted, err));
	TRY(get_int(o, "", "exit_code", INT32_MIN, INT32_MAX, &exit_code, err));
	r->exit_code = (int)exit_code;
	if (json_object_get(o, "containment"))
		TRY(get_str(o, "", "containment", 0, &r->containment, err));
	if (with_shards) {
		TRY(get_arr(o, "", "shards", &arr, err));
		r->shards = array_alloc(json_array_size(arr), sizeof(report_shard));
		for (size_t i = 0; i < json_array_size(arr); i++) {
			TRY(elem(arr, i, "", "shards", sub, sizeof(sub), &e, err));
			TRY(shard_from_json(&r->shards[r->nshards++], e, version, 1, sub, err));
		}
	}
	TRY(get_arr(o, "", "suspects", &arr, err));
	r->suspects = array_alloc(json_array_size(arr), sizeof(report_suspect));
	for (size_t i = 0; i < json_array_size(arr); i++) {
		report_suspect *s = &r->suspects[r->nsuspects++];
		TRY(elem(arr, i, "", "suspects", sub, sizeof(sub), &e, err));
		TRY(get_str(e, sub, "name", 0, &s->name, err));
		TRY(get_int(e, sub, "va_retained", INT64_MIN, INT64_MAX, &s->va_retained, err));
		TRY(get_int(e, sub, "rss_retained", INT64_MIN, INT64_MAX, &s->rss_retained, err));
		TRY(get_u32(e, sub, "grew", &s->grew, err));
		TRY(get_u32(e, sub, "runs", &s->runs, err));
		TRY(get_bool(e, sub, "alone_over_hard", &s->alone_over_hard, err));
	}
	json_t *ho;
	if (json_object_get(o, "history")) {
		report_history *h = &r->history;
		TRY(get_obj(o, "", "history", &ho, err));
		TRY(get_str(ho, "history", "source", 0, &h->source, err));
		TRY(get_u32(ho, "history", "known", &h->known, err));
		TRY(get_u32(ho, "history", "avoided", &h->avoided, err));
		TRY(get_arr(ho, "history", "alone", &arr, err));
		h->alone = array_alloc(json_array_size(arr), sizeof(char *));
		for (size_t i = 0; i < json_array_size(arr); i++) {
			if (!json_is_string(json_array_get(arr, i)))
				return mg_err_set(err, MG_EINVAL,
				                  "history.alone[%zu]: not a string", i);
			h->alone[h->nalone++] =
			    report_strdup(json_string_value(json_array_get(arr, i)));
		}
		TRY(get_arr(ho, "history", "grew", &arr, err));
		h->grew = array_alloc(json_array_size(arr), sizeof(report_history_test));
		for (size_t i = 0; i < json_array_size(arr); i++) {
			report_history_test *g = &h->grew[h->ngrew++];
			TRY(elem(arr, i, "history", "grew", sub, sizeof(sub), &e, err));
			TRY(get_str(e, sub, "name", 0, &g->name, err));
			TRY(get_u64(e, sub, "then", &g->then, err));
			TRY(get_u64(e, sub, "now", &g->now, err));
		}
	}
	return 0;
}

int report_from_json(report **out, void *json, mg_err *err)
{
	*out = NULL;
	report *r = report_new();
	if (!r)
		return mg_err_set(err, MG_ERROR, "out of memory");
	int rc = from_json(r, json, 1, err);
	if (rc) {
		report_free(r);
		return rc;
	}
	totals_compute(r);
	*out = r;
	return 0;
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

/* ---- merge ----------------------------------------------------------------- */

/* How bad an exit code is, for a merge: 0, then 5 (no tests ran on that
 * node), then the others by value. */
static int exit_rank(int code)
{
	return code == 0 ? 0 : code == MG_EXIT_NO_TESTS ? 1 : 2 + code;
}

/* The latest start_time of r's shards in a's group; -1 when r has none. */
static double group_start(const report *r, const report_shard *a)
{
	double t = -1;
	for (size_t i = 0; i < r->nshards; i++)
		if (report_shard_same_run(&r->shards[i], a) && r->shards[i].start_time > t)
			t = r->shards[i].start_time;
	return t;
}

/* The nodes r holds: the recorded set, else its own node. */
static size_t nodes_of(const report *r, const uint32_t **v, uint32_t *own)
{
	if (r->nnodes_present) {
		*v = r->nodes_present;
		return r->nnodes_present;
	}
	*own = r->node_index;
	*v = own;
	return 1;
}

/* into->nodes_present becomes the sorted union of both sides' nodes; two
 * reports of one node that record none stay without (a re-noted run). */
static void report_nodes_union(report *into, const report *from)
{
	if (!into->nnodes_present && !from->nnodes_present && into->node_index == from->node_index)
		return;
	const uint32_t *a, *b;
	uint32_t own_a, own_b;
	size_t na = nodes_of(into, &a, &own_a), nb = nodes_of(from, &b, &own_b), n = 0;
	uint32_t *u = malloc((na + nb) * sizeof(*u));
	if (!u)
		abort();
	for (size_t i = 0, j = 0; i < na || j < nb;) {
		uint32_t x = j >= nb || (i < na && a[i] <= b[j]) ? a[i] : b[j];
		if (!n || u[n - 1] != x)
			u[n++] = x;
		i += i < na && a[i] == x;
		j += j < nb && b[j] == x;
	}
	free(into->nodes_present);
	into->nodes_present = u;
	into->nnodes_present = n;
}

int report_merge_replaces(const report *into, const report *from, size_t j)
{
	const report_shard *s = &into->shards[j];
	for (size_t i = 0; i < from->nshards; i++)
		if (report_shard_same_run(&from->shards[i], s))
			return group_start(into, s) <= group_start(from, &from->shards[i]);
	return 0;
}

/* report_merge; take: from's shards are moved, not copied (from is left
 * with empty shards), else from is not changed. */
static int merge(report *into, report *from, int take, mg_err *err)
{
	if (into == from)
		return mg_err_set(err, MG_EINVAL, "merge: a report cannot be merged into itself");
	size_t n0 = into->nshards; /* shards appended below are from's: not compared */
	for (size_t i = 0; i < from->nshards; i++) {
		const report_shard *f = &from->shards[i];
		int first = 1; /* the first of its group in from */
		for (size_t k = 0; k < i && first; k++)
			first = !report_shard_same_run(&from->shards[k], f);
		if (!first)
			continue;
		double mine = -1;
		for (size_t j = 0; j < n0; j++)
			if (report_shard_same_run(&into->shards[j], f) &&
			    into->shards[j].start_time > mine)
				mine = into->shards[j].start_time;
		if (mine > group_start(from, f))
			continue; /* into holds a later run of this group */
		for (size_t j = n0; j-- > 0;)
			if (report_shard_same_run(&into->shards[j], f)) {
				report_remove_shard(into, j);
				n0--;
			}
		for (size_t k = i; k < from->nshards; k++)
			if (report_shard_same_run(&from->shards[k], f)) {
				report_shard *d = report_add_shard(into);
				if (!take) {
					shard_copy(d, &from->shards[k]);
					continue;
				}
				*d = from->shards[k];
				memset(&from->shards[k], 0, sizeof(from->shards[k]));
				/* an emptied shard still names its group for the rest */
				from->shards[k].node = d->node;
				from->shards[k].arch = report_strdup(d->arch);
				from->shards[k].suite = report_strdup(d->suite);
				from->shards[k].start_time = d->start_time;
			}
	}
	if (!into->sha && from->sha) {
		free(into->repo_note);
		into->repo_note = NULL;
		into->sha = report_strdup(from->sha);
		into->branch = report_strdup(from->branch);
		into->dirty = from->dirty;
	}
	if (!into->tool_version)
		into->tool_version = report_strdup(from->tool_version);
	if (!into->limits_soft)
		into->limits_soft = report_strdup(from->limits_soft);
	if (!into->limits_hard)
		into->limits_hard = report_strdup(from->limits_hard);
	if (!into->has_limit_bytes && from->has_limit_bytes) {
		into->soft = from->soft;
		into->hard = from->hard;
		into->has_limit_bytes = 1;
	}
	if (from->start_time < into->start_time)
		into->start_time = from->start_time;
	if (from->wall > into->wall)
		into->wall = from->wall;
	if (from->node_total > into->node_total)
		into->node_total = from->node_total;
	report_nodes_union(into, from);
	into->interrupted = into->interrupted || from->interrupted;
	/* the weaker guarantee of the two holds for the whole */
	if (from->containment &&
	    (!into->containment || !strcmp(from->containment, "process-group"))) {
		free(into->containment);
		into->containment = report_strdup(from->containment);
	}
	/* the worse exit code: any nonzero beats 0, "no tests ran" (5) beats
	 * only 0, then the larger */
	if (exit_rank(from->exit_code) > exit_rank(into->exit_code))
		into->exit_code = from->exit_code;
	report_finish(into, REPORT_MAX_SUSPECTS);
	/* a node that ran nothing beside nodes that ran tests: tests ran */
	if (into->exit_code == MG_EXIT_NO_TESTS && into->totals.tests > 0)
		into->exit_code = MG_EXIT_OK;
	return 0;
}

int report_merge(report *into, const report *from, mg_err *err)
{
	return merge(into, (report *)from, 0, err);
}

int report_merge_take(report *into, report *from, mg_err *err)
{
	return merge(into, from, 1, err);
}

/* ---- reading in pieces ---------------------------------------------------- */

/*
 * report_parse reads a document without a tree of it: the objects of the
 * report and of each shard are read key by key, each value with Jansson
 * (json_loadb with JSON_DISABLE_EOF_CHECK; error.position says where it
 * stopped), except the shards and the tests arrays, which are read one
 * element at a time: a test becomes a report_test and its Jansson object is
 * freed before the next is read. Peak memory is the model plus the input.
 */
typedef struct pieces {
	const char *data;
	size_t len, pos;
	size_t released; /* with mapped: bytes before this are given back */
	int mapped;      /* data is a private file mapping (report_load) */
	int version;     /* the schema once read; 0 before */
	report *r;
	mg_err *err;
	int json_error;                  /* the error is in the JSON, not in the model */
	report_keep_tests_fn keep_tests; /* NULL: every shard's tests are kept */
	void *keep_ctx;
	report_test_fn each; /* with keep_tests: given each test not kept */
	void *each_ctx;
} pieces;

static void pieces_ws(pieces *pc)
{
	while (pc->pos < pc->len && (pc->data[pc->pos] == ' ' || pc->data[pc->pos] == '\t' ||
	                             pc->data[pc->pos] == '\n' || pc->data[pc->pos] == '\r'))
		pc->pos++;
}

/* "not valid JSON" at byte offset at, as line:column (1-based) like Jansson. */
static int pieces_syntax(pieces *pc, size_t at, const char *text)
{
	/* memchr: a fuzzed input is mostly errors, each counted from the start */
	int line = 1;
	size_t col0 = 0, upto = at < pc->len ? at : pc->len;
	const char *nl;
	while (col0 < upto && (nl = memchr(pc->data + col0, '\n', upto - col0)) != NULL) {
		line++;
		col0 = (size_t)(nl - pc->data) + 1;
	}
	pc->json_error = 1;
	return mg_err_set(pc->err, MG_EINVAL, "%d:%d: not valid JSON: %s", line,
	                  (int)(at - col0 + 1), text);
}

/* A file mapping's pages already read are dropped every 1 MiB (at most 2 MiB
 * of it resident), so a large
 * report is never resident twice (the model and its text). */
static void pieces_release(pieces *pc)
{
	const size_t step = (size_t)1 << 20;
	if (!pc->mapped || pc->pos - pc->released < 2 * step)
		return;
	size_t upto = (pc->pos - step) & ~(step - 1);
	if (upto > pc->released) {
		madvise((char *)pc->data + pc->released, upto - pc->released, MADV_DONTNEED);
		pc->released = upto;
	}
}

/*
 * The scalars a report is mostly made of, read without Jansson (a json_loadb
 * per value cost more than the value): a string of printable ASCII without
 * escapes, an integer of at most 18 digits (no leading zero, no fraction or
 * exponent after it), true, false, null. Exactly the value Jansson would
 * give and the bytes it would take; NULL, pos unmoved, for anything else,
 * which Jansson then reads (and judges).
 */
static json_t *pieces_plain_scalar(pieces *pc)
{
	const char *d = pc->data + pc->pos, *end = pc->data + pc->len;
	size_t n = 0;
	if (d >= end)
		return NULL;
	if (*d == '"') {
		while (d + 1 + n < end && d[1 + n] >= 0x20 && d[1 + n] < 0x7f && d[1 + n] != '"' &&
		       d[1 + n] != '\\')
			n++;
		if (d + 1 + n >= end || d[1 + n] != '"')
			return NULL;
		pc->pos += n + 2;
		return json_stringn_nocheck(d + 1, n);
	}
	if (*d == '-' || (*d >= '0' && *d <= '9')) {
		size_t sign = *d == '-';
		while (d + sign + n < end && d[sign + n] >= '0' && d[sign + n] <= '9')
			n++;
		const char *after = d + sign + n;
		if (n == 0 || n > 18 || (n > 1 && d[sign] == '0') ||
		    (after < end && (*after == '.' || *after == 'e' || *after == 'E')))
			return NULL;
		json_int_t v = 0;
		for (size_t i = 0; i < n; i++)
			v = v * 10 + (d[sign + i] - '0');
		pc->pos += sign + n;
		return json_integer(sign ? -v : v);
	}
	static const char *const words[] = {"true", "false", "null"};
	for (int w = 0; w < 3; w++) {
		size_t len = strlen(words[w]);
		if ((size_t)(end - d) >= len && !memcmp(d, words[w], len) &&
		    !(d + len < end &&
		      ((d[len] >= 'a' && d[len] <= 'z') || (d[len] >= 'A' && d[len] <= 'Z')))) {
			pc->pos += len;
			return w == 0 ? json_true() : w == 1 ? json_false() : json_null();
		}
	}
	return NULL;
}

/* The value at pos (any JSON value), read with Jansson; NULL with the error set. */
static json_t *pieces_value(pieces *pc)
{
	json_error_t jerr;
	pieces_ws(pc);
	json_t *plain = pieces_plain_scalar(pc);
	if (plain)
		return plain;
	json_t *v = json_loadb(pc->data + pc->pos, pc->len - pc->pos,
	                       JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK, &jerr);
	if (!v) {
		pieces_syntax(pc, pc->pos + (jerr.position > 0 ? (size_t)jerr.position : 0),
		              jerr.text);
		return NULL;
	}
	pc->pos += (size_t)jerr.position;
	return v;
}

/* Expects the byte c at pos (after white space) and steps over it. */
static int pieces_expect(pieces *pc, char c)
{
	pieces_ws(pc);
	if (pc->pos >= pc->len || pc->data[pc->pos] != c) {
		char text[64];
		snprintf(text, sizeof(text), "'%c' expected", c);
		return pieces_syntax(pc, pc->pos, text);
	}
	pc->pos++;
	return 0;
}

/* 1 when the next byte (after white space) is c, which is then stepped over. */
static int pieces_next_is(pieces *pc, char c)
{
	pieces_ws(pc);
	if (pc->pos < pc->len && pc->data[pc->pos] == c) {
		pc->pos++;
		return 1;
	}
	return 0;
}

/*
 * A key at pos (its opening quote) of printable ASCII without escapes, as
 * every key memguard writes is: copied into buf (size bytes) and stepped
 * over, with no Jansson call (a json_loadb per key was half the cost of a
 * small report's read). NULL, pos unmoved, for any other key: Jansson reads
 * it, so what is accepted and how it reads stays Jansson's.
 */
static const char *pieces_plain_key(pieces *pc, char *buf, size_t size)
{
	size_t i = pc->pos + 1;
	while (i < pc->len && i - pc->pos - 1 < size - 1 && pc->data[i] >= 0x20 &&
	       pc->data[i] < 0x7f && pc->data[i] != '"' && pc->data[i] != '\\')
		i++;
	if (i >= pc->len || pc->data[i] != '"' || i - pc->pos - 1 >= size)
		return NULL;
	memcpy(buf, pc->data + pc->pos + 1, i - pc->pos - 1);
	buf[i - pc->pos - 1] = 0;
	pc->pos = i + 1;
	return buf;
}

/* so_far: the object's keys read before the piece. */
typedef int (*pieces_fn)(pieces *pc, void *ctx, const char *path, json_t *so_far);

/*
 * The object at pos into *out, key by key; the value of the key named piece
 * is not read into it but handed to on_piece (pos at the value; at most once:
 * a repeated piece key is an error). path names the object in errors.
 */
static int pieces_object(pieces *pc, const char *path, const char *piece, pieces_fn on_piece,
                         void *ctx, int *seen, json_t **out)
{
	int rc = 0;
	json_t *o = json_object(), *k = NULL, *v = NULL;
	char plain[64];
	*out = NULL;
	pieces_ws(pc);
	if (pc->pos >= pc->len || pc->data[pc->pos] != '{') {
		rc = mg_err_set(pc->err, MG_EINVAL, "%s: expected an object",
		                *path ? path : "report");
		goto out;
	}
	pc->pos++;
	if (pieces_next_is(pc, '}'))
		goto done;
	for (;;) {
		pieces_ws(pc);
		if (pc->pos >= pc->len || pc->data[pc->pos] != '"') {
			rc = pieces_syntax(pc, pc->pos, "string or '}' expected");
			goto out;
		}
		const char *key = pieces_plain_key(pc, plain, sizeof(plain));
		if (!key) {
			if (!(k = pieces_value(pc))) {
				rc = MG_EINVAL;
				goto out;
			}
			key = json_string_value(k);
		}
		if ((rc = pieces_expect(pc, ':')) != 0)
			goto out;
		if (piece && strcmp(key, piece) == 0) {
			if ((*seen)++) {
				rc = mg_err_set(pc->err, MG_EINVAL, "%s%s%s: given twice", path,
				                *path ? "." : "", piece);
				goto out;
			}
			pieces_ws(pc);
			if ((rc = on_piece(pc, ctx, path, o)) != 0)
				goto out;
		} else {
			if (!(v = pieces_value(pc))) {
				rc = MG_EINVAL;
				goto out;
			}
			set(o, key, v);
			v = NULL;
		}
		json_decref(k);
		k = NULL;
		if (pieces_next_is(pc, '}'))
			break;
		if ((rc = pieces_expect(pc, ',')) != 0)
			goto out;
	}
done:
	*out = o;
	o = NULL;
out:
	json_decref(k);
	json_decref(o);
	return rc;
}

/* The array at pos, one element at a time: on_elem(pc, ctx, index). */
static int pieces_array(pieces *pc, const char *what, int (*on_elem)(pieces *, void *, size_t),
                        void *ctx)
{
	int rc;
	pieces_ws(pc);
	if (pc->pos >= pc->len || pc->data[pc->pos] != '[')
		return mg_err_set(pc->err, MG_EINVAL, "%s: expected an array", what);
	pc->pos++;
	if (pieces_next_is(pc, ']'))
		return 0;
	for (size_t i = 0;; i++) {
		if ((rc = on_elem(pc, ctx, i)) != 0)
			return rc;
		pieces_release(pc);
		if (pieces_next_is(pc, ']'))
			return 0;
		if ((rc = pieces_expect(pc, ',')) != 0)
			return rc;
	}
}

typedef struct shard_ctx {
	report_shard *s;
	size_t index;         /* its place in the document's shards */
	const char *path;     /* "shards[3]" */
	int drop;             /* its tests are read (and checked) into scratch, then dropped */
	report_shard scratch; /* one test at a time */
} shard_ctx;

static int piece_test(pieces *pc, void *ctx, size_t i)
{
	shard_ctx *sc = ctx;
	char sub[256];
	pathf(sub, sizeof(sub), "%s.tests[%zu]", sc->path, i);
	json_t *o = pieces_value(pc);
	if (!o)
		return MG_EINVAL;
	report_test *t = NULL;
	report_shard *into = sc->drop ? &sc->scratch : sc->s;
	int rc = json_is_object(o)
	             ? (t = report_shard_add_test(into),
	                test_from_json(into, into->ntests - 1, o, pc->version, sub, pc->err))
	             : mg_err_set(pc->err, MG_EINVAL, "%s: expected an object", sub);
	if (t && sc->drop) {
		if (rc == 0 && pc->each)
			rc = pc->each(sc->index, t, pc->each_ctx, pc->err);
		free(t->name);
		free(t->message);
		free(t->output);
		into->ntests = into->npeaks = 0;
	} else if (t && t->name) { /* into the shard's blocks */
		char *packed = names_add(&sc->s->names, t->name, strlen(t->name));
		free(t->name);
		t->name = packed;
	}
	json_decref(o);
	return rc;
}

static int piece_tests(pieces *pc, void *ctx, const char *path, json_t *so_far)
{
	(void)so_far;
	char what[256];
	pathf(what, sizeof(what), "%s.tests", path);
	return pieces_array(pc, what, piece_test, ctx);
}

static int piece_shard(pieces *pc, void *ctx, size_t i)
{
	(void)ctx;
	char sub[256];
	json_t *o = NULL;
	int seen = 0;
	pathf(sub, sizeof(sub), "shards[%zu]", i);
	report_shard *s = report_add_shard(pc->r);
	shard_ctx sc = {s, i, sub, pc->keep_tests && !pc->keep_tests(i, pc->keep_ctx), {0}};
	int rc = pieces_object(pc, sub, "tests", piece_tests, &sc, &seen, &o);
	free(sc.scratch.tests);
	free(sc.scratch.peaks);
	if (rc == 0 && !seen)
		rc = mg_err_set(pc->err, MG_EINVAL, "%s.tests: missing", sub);
	if (rc == 0)
		rc = shard_from_json(s, o, pc->version, 0, sub, pc->err);
	json_decref(o);
	return rc;
}

static int piece_shards(pieces *pc, void *ctx, const char *path, json_t *so_far)
{
	(void)path;
	(void)ctx;
	pc->version = schema_version(so_far); /* 0 when the schema comes later */
	return pieces_array(pc, "shards", piece_shard, NULL);
}

static int parse_pieces(report *r, pieces *pc)
{
	int seen = 0, rc;
	pieces_ws(pc);
	if (pc->pos >= pc->len || pc->data[pc->pos] != '{') {
		/* not an object: Jansson says what it is, or why it is not JSON */
		json_error_t jerr;
		json_t *j = json_loadb(pc->data, pc->len, JSON_DECODE_ANY, &jerr);
		if (!j)
			return pieces_syntax(pc, jerr.position > 0 ? (size_t)jerr.position : 0,
			                     jerr.text);
		json_decref(j);
		return mg_err_set(pc->err, MG_EINVAL, "report: expected a JSON object");
	}
	json_t *o = NULL;
	rc = pieces_object(pc, "", "shards", piece_shards, NULL, &seen, &o);
	if (rc == 0) {
		pieces_ws(pc);
		if (pc->pos != pc->len)
			rc = pieces_syntax(pc, pc->pos, "end of file expected");
	}
	if (rc == 0 && !seen)
		rc = mg_err_set(pc->err, MG_EINVAL, "shards: missing");
	if (rc == 0)
		rc = from_json(r, o, 0, pc->err);
	json_decref(o);
	return rc;
}

static int parse_into(report **out, pieces *pc)
{
	*out = NULL;
	report *r = report_new();
	if (!r)
		return mg_err_set(pc->err, MG_ERROR, "out of memory");
	pc->r = r;
	int rc = parse_pieces(r, pc);
	if (rc) {
		report_free(r);
		return rc;
	}
	totals_compute(r);
	*out = r;
	return 0;
}

int report_parse(report **out, const char *data, size_t len, mg_err *err)
{
	return report_parse_some(out, data, len, NULL, NULL, err);
}

int report_parse_some(report **out, const char *data, size_t len, report_keep_tests_fn keep,
                      void *ctx, mg_err *err)
{
	pieces pc = {.data = data, .len = len, .err = err, .keep_tests = keep, .keep_ctx = ctx};
	return parse_into(out, &pc);
}

static int keep_no_tests(size_t shard, void *ctx)
{
	(void)shard;
	(void)ctx;
	return 0;
}

int report_parse_tests(report **out, const char *data, size_t len, report_test_fn fn, void *ctx,
                       mg_err *err)
{
	pieces pc = {.data = data,
	             .len = len,
	             .err = err,
	             .keep_tests = keep_no_tests,
	             .each = fn,
	             .each_ctx = ctx};
	return parse_into(out, &pc);
}

/* ---- files ----------------------------------------------------------------- */

/* Through atomic_open: a temporary next to PATH, fsynced, renamed over it;
 * on any failure PATH is untouched. */
int report_save(const report *r, const char *path, mg_err *err)
{
	atomic_file *a = NULL;
	int rc = atomic_open(&a, path, err);
	if (rc < 0)
		return rc;
	int ok = report_write(r, atomic_stream(a)) == 0;
	if (!ok)
		mg_err_set(err, MG_ERROR, "%s: write failed: %s", path, strerror(errno));
	return atomic_close(a, ok, ok ? err : NULL);
}

/* The file at path read through pc (its data, len, mapped and err are set
 * here): a regular file is mapped (and its pages dropped as they are read);
 * any other file (a FIFO, /dev/stdin) is read into memory. */
static int load_pieces(report **out, const char *path, pieces *pc, mg_err *err)
{
	*out = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return mg_err_set(err, errno == ENOENT ? MG_ENOTFOUND : MG_ERROR, "%s: %s", path,
		                  strerror(errno));
	struct stat st;
	char *data = NULL;
	size_t len = 0, cap = 0;
	int mapped = 0, rc;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		len = (size_t)st.st_size;
		data = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
		mapped = data != MAP_FAILED;
		if (!mapped)
			data = NULL;
	}
	if (!mapped) {
		len = 0;
		for (;;) {
			if (len == cap)
				data = xrealloc(data, cap = cap ? cap * 2 : 65536);
			ssize_t n = read(fd, data + len, cap - len);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				rc = mg_err_set(err, MG_ERROR, "%s: %s", path, strerror(errno));
				free(data);
				close(fd);
				return rc;
			}
			if (n == 0)
				break;
			len += (size_t)n;
		}
	}
	close(fd);
	mg_err inner = {{0}};
	pc->data = data ? data : "";
	pc->len = len;
	pc->mapped = mapped;
	pc->err = &inner;
	rc = parse_into(out, pc);
	if (mapped)
		munmap(data, len);
	else
		free(data);
	if (rc)
		return mg_err_set(err, rc, pc->json_error ? "%s:%s" : "%s: %s", path, inner.msg);
	return 0;
}

int report_load(report **out, const char *path, mg_err *err)
{
	pieces pc = {0};
	return load_pieces(out, path, &pc, err);
}

int report_load_tests(report **out, const char *path, report_test_fn fn, void *ctx, mg_err *err)
{
	pieces pc = {.keep_tests = keep_no_tests, .each = fn, .each_ctx = ctx};
	return load_pieces(out, path, &pc, err);
}

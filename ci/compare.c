/*
 * compare.c - "memguard compare BASE HEAD": matches the shards and tests of
 * two reports (from notes or files), shows peak VA, peak RSS, recycles and
 * the tests whose retained VA grew most, and fails with exit 4 when a
 * --max-growth limit was exceeded. Never exits 0 without having compared.
 * The output forms are compare_out.c's; the row table both share is in
 * compare_int.h.
 */
#include <assert.h>
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "adapters.h"
#include "compare_int.h"
#include "defuse.h"

#define CMD "compare"

static row *rows_add(rows *rs)
{
	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? rs->cap * 2 : 32;
		rs->v = realloc(rs->v, rs->cap * sizeof(*rs->v));
		if (!rs->v)
			abort();
	}
	memset(&rs->v[rs->n], 0, sizeof(row));
	return &rs->v[rs->n++];
}

static const char *str(const char *s)
{
	return s ? s : "?";
}

/* Cuts buf (a NUL-terminated string) to fewer than size bytes without splitting a
 * UTF-8 character: a label cut in the middle of one is not valid UTF-8, and
 * Jansson refuses it (json_string returns NULL and the field vanishes). */
static void cut_utf8(char *buf, size_t size)
{
	size_t len = strlen(buf);
	if (len < size)
		return;
	len = size - 1;
	/* Back to the start of the character at the cut... */
	size_t start = len;
	while (start > 0 && ((unsigned char)buf[start] & 0xC0) == 0x80)
		start--;
	/* ...which stays if it ends before the cut. */
	size_t clen = report_utf8_valid_len((const unsigned char *)buf + start, len - start);
	buf[clen && start + clen == len ? len : start] = '\0';
}

/* snprintf into a label, cut on a character boundary. */
void compare_label_fmt(char *buf, size_t size, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	cut_utf8(tmp, size);
	memcpy(buf, tmp, strlen(tmp) + 1);
}

/* A JSON string of s; invalid UTF-8 (from a hand-made report) replaced, never dropped. */
json_t *compare_jstr(const char *s)
{
	json_t *j = json_string(s);
	if (j)
		return j;
	char *clean = report_utf8_sanitize(s, NULL);
	j = json_string(clean ? clean : "?");
	free(clean);
	return j;
}

/* a + b, and (int64_t)u, clamped to the int64_t range: sums of deltas
 * from a report are not trusted to fit. */
static int64_t sat_add(int64_t a, int64_t b)
{
	if (b > 0 && a > INT64_MAX - b)
		return INT64_MAX;
	if (b < 0 && a < INT64_MIN - b)
		return INT64_MIN;
	return a + b;
}

size_t compare_count_exceeded(const rows *rs)
{
	size_t n = 0;
	for (size_t i = 0; i < rs->n; i++)
		n += rs->v[i].exceeded[0] != '\0';
	return n;
}

int64_t compare_sat_sub(int64_t a, int64_t b)
{
	if (b == INT64_MIN)
		return a >= 0 ? INT64_MAX : a - b;
	return sat_add(a, -b);
}

static int64_t sat_i64(uint64_t u)
{
	return u > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)u;
}

/* ---- tests, matched by (arch, name, suite), retained VA summed over shards ---- */

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return p;
	size_t c = *cap ? *cap : 4096;
	while (c < need)
		c *= 2;
	if (!(p = realloc(p, c * size)))
		abort();
	*cap = c;
	return p;
}

static void site_line_keep(FILE *f, int level, const char *text, void *ctx)
{
	(void)ctx;
	char *clean = adapters_clean(text, 512, ADAPTERS_ONELINE, NULL);
	fprintf(f, "%d%s\n", level, clean);
	free(clean);
}

/* The test just added (its name at offset name) has sites: their lines. */
static void ctests_keep_sites(ctests *c, uint32_t name, const report_test_sites *ts)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		abort();
	adapters_site_lines(m, ts, site_line_keep, NULL);
	if (fclose(m) != 0)
		abort();
	uint64_t bytes = 0;
	for (size_t k = 0; k < ts->nsites; k++)
		bytes = ts->sites[k].bytes > UINT64_MAX - bytes ? UINT64_MAX
		                                                : bytes + ts->sites[k].bytes;
	c->sites = grow(c->sites, &c->sites_cap, c->nsites + 1, sizeof(*c->sites));
	c->sites[c->nsites++] = (csites){name, bytes, buf};
}

/* The sites of the test whose name is at offset name; NULL: none. */
static const csites *ctests_sites(const ctests *c, uint32_t name)
{
	size_t lo = 0, hi = c->nsites;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->sites[mid].name < name)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->nsites && c->sites[lo].name == name ? &c->sites[lo] : NULL;
}

/* report_test_fn: the test into the table. */
static int ctests_add(size_t shard, const report_test *t, uint64_t va_peak,
                      const report_test_sites *sites, void *ctx, mg_err *err)
{
	ctests *c = ctx;
	const char *name = t->name ? t->name : "";
	size_t len = strlen(name) + 1;
	if (c->len + len > UINT32_MAX || shard >= (1u << 30))
		return mg_err_set(err, MG_ERROR,
		                  "too many tests to compare: their names pass 4 GiB at '%.64s'",
		                  name);
	c->names = grow(c->names, &c->names_cap, c->len + len, 1);
	memcpy(c->names + c->len, name, len);
	c->v = grow(c->v, &c->cap, c->n + 1, sizeof(*c->v));
	int own = t->va_delta == 0 && t->va_after <= INT64_MAX;
	uint64_t start = t->va_after - (uint64_t)t->va_delta;
	int64_t rise = va_peak > start ? sat_i64(va_peak - start) : 0;
	if (t->va_delta > rise)
		rise = t->va_delta;
	/* own: a process of its own is compared by its peak (its VA at the end
	 * when no peak was read) */
	c->v[c->n++] =
	    (ctest){(uint32_t)shard,
	            (uint32_t)own,
	            t->near_ceiling,
	            (uint32_t)c->len,
	            own ? sat_i64(va_peak > t->va_after ? va_peak : t->va_after) : t->va_delta,
	            own ? sat_i64(t->rss_after) : t->rss_delta,
	            rise};
	if (sites && sites->nsites)
		ctests_keep_sites(c, (uint32_t)c->len, sites);
	c->len += len;
	return 0;
}

static void ctests_free(ctests *c)
{
	free(c->v);
	free(c->names);
	for (size_t i = 0; i < c->nsites; i++)
		free(c->sites[i].lines);
	free(c->sites);
}

/* One side's tests: its report (for the shards' arch and suite) and table. */
typedef struct tside {
	const report *r;
	const ctests *c;
} tside;

static const char *ct_arch(tside s, const ctest *t)
{
	return str(s.r->shards[t->shard].arch);
}

static const char *ct_suite(tside s, const ctest *t)
{
	return str(s.r->shards[t->shard].suite);
}

static const char *ct_name(tside s, const ctest *t)
{
	return s.c->names + t->name;
}

/* By arch, then name, then suite: the same name in two suites sits side by
 * side. x of side a, y of side b. */
static int ct_cmp_name(tside a, const ctest *x, tside b, const ctest *y)
{
	int c = strcmp(ct_arch(a, x), ct_arch(b, y));
	return c ? c : strcmp(ct_name(a, x), ct_name(b, y));
}

static int ct_cmp2(tside a, const ctest *x, tside b, const ctest *y)
{
	int c = ct_cmp_name(a, x, b, y);
	return c ? c : strcmp(ct_suite(a, x), ct_suite(b, y));
}

/* qsort has no context: the side being sorted (compare is single-threaded). */
static tside sorting;

static int ct_cmp(const void *a, const void *b)
{
	return ct_cmp2(sorting, a, sorting, b);
}

/* The table sorted by key; duplicates stay, side by side (ct_sum). */
static void ct_sort(tside s)
{
	if (!s.c->n) /* v is NULL: a report without tests */
		return;
	sorting = s;
	qsort(s.c->v, s.c->n, sizeof(*s.c->v), ct_cmp);
	sorting = (tside){0};
}

/* 1 when the shard's tests are processes of their own (exec, ctest, wrap):
 * they leave nothing behind, and are compared by their own VA. */
static int own_process(tside s, const ctest *t)
{
	return report_shard_own_process(&s.r->shards[t->shard]);
}

/* What a test is compared by, over its duplicates (its runs in the suite's
 * shards): VA and RSS it left behind, summed, and its largest rise; a
 * process of its own, its largest VA and RSS. */
typedef struct csum {
	int64_t va, rss, rise;
	int near_ceiling;
} csum;

/* The sums of the test at v[*i]; *i moves past its duplicates. */
static csum ct_sum(tside s, size_t *i)
{
	const ctest *v = s.c->v;
	csum r = {0, 0, 0, 0};
	size_t j = *i;
	do {
		if (!own_process(s, &v[j])) {
			r.va = sat_add(r.va, v[j].own ? 0 : v[j].va);
			r.rss = sat_add(r.rss, v[j].own ? 0 : v[j].rss);
		} else if (v[j].own) {
			r.va = v[j].va > r.va ? v[j].va : r.va;
			r.rss = v[j].rss > r.rss ? v[j].rss : r.rss;
		}
		if (v[j].rise > r.rise)
			r.rise = v[j].rise;
		r.near_ceiling |= v[j].near_ceiling;
		j++;
	} while (j < s.c->n && ct_cmp2(s, &v[*i], s, &v[j]) == 0);
	*i = j;
	return r;
}

/* ---- shards, matched by what they are: (node, arch, suite) ---- */

/* What one side's group of shards (one run of a suite on one node, all its
 * lanes) is judged by: figures that do not depend on which lane ran which
 * test (the tests' retained VA summed, the largest rise, a process-per-test
 * driver's tests' peaks), and the lanes' own, shown. */
typedef struct group {
	int present, own;
	size_t lanes;
	report_totals lane; /* peak VA, peak RSS and recycles of its lanes */
	int64_t retained, rise, test_va, test_rss;
} group;

static void group_of(group *g, tside s, const report_shard *key)
{
	memset(g, 0, sizeof(*g));
	for (size_t i = 0; i < s.r->nshards; i++) {
		const report_shard *sh = &s.r->shards[i];
		if (!report_shard_same_run(sh, key))
			continue;
		g->present = 1;
		g->lanes++;
		g->own |= report_shard_own_process(sh);
		report_totals_add(&g->lane, sh);
	}
	for (size_t i = 0; g->present && i < s.c->n; i++) {
		const ctest *t = &s.c->v[i];
		if (!report_shard_same_run(&s.r->shards[t->shard], key))
			continue;
		if (!own_process(s, t)) {
			g->retained = sat_add(g->retained, t->own ? 0 : t->va);
		} else if (t->own) {
			g->test_va = t->va > g->test_va ? t->va : g->test_va;
			g->test_rss = t->rss > g->test_rss ? t->rss : g->test_rss;
		}
		if (t->rise > g->rise)
			g->rise = t->rise;
	}
}

static void add_row(rows *rs, const char *label, const char *metric, growth_metric m,
                    const group *b, const group *h, int64_t bv, int64_t hv, int shown_only,
                    const growth_limits *lim)
{
	row *w = rows_add(rs);
	compare_label_fmt(w->label, sizeof(w->label), "%s", label);
	w->metric = metric;
	w->m = m;
	w->has_base = b->present;
	w->has_head = h->present;
	w->base = bv;
	w->head = hv;
	w->shown_only = shown_only;
	if (b->present && h->present && !shown_only)
		growth_exceeded(lim, m, bv, hv, w->exceeded, sizeof(w->exceeded));
}

/* The rows of one group. The lanes' peaks and recycles are judged only when
 * each side ran it in one lane (lanes share one queue: which lane got which
 * test differs run to run); a process-per-test driver's lanes are memguard's
 * own shim and listing: its tests' peaks stand in for them. */
static void group_rows(rows *rs, const char *label, const group *b, const group *h,
                       const growth_limits *lim)
{
	int own = (b->present && b->own) || (h->present && h->own);
	if (own) {
		add_row(rs, label, "tests' peak VA", GROWTH_VA, b, h, b->test_va, h->test_va, 0,
		        lim);
		add_row(rs, label, "tests' peak RSS", GROWTH_RSS, b, h, b->test_rss, h->test_rss, 1,
		        lim);
		return;
	}
	int lanes_differ = !(b->lanes == 1 && h->lanes == 1);
	add_row(rs, label, "retained VA", GROWTH_RETAINED, b, h, b->retained, h->retained, 0, lim);
	add_row(rs, label, "largest rise", GROWTH_RISE, b, h, b->rise, h->rise, 0, lim);
	add_row(rs, label, "peak VA", GROWTH_VA, b, h, sat_i64(b->lane.peak_va),
	        sat_i64(h->lane.peak_va), lanes_differ, lim);
	add_row(rs, label, "peak RSS", GROWTH_RSS, b, h, sat_i64(b->lane.peak_rss),
	        sat_i64(h->lane.peak_rss), lanes_differ, lim);
	add_row(rs, label, "recycles", GROWTH_RECYCLES, b, h, sat_i64(b->lane.recycles),
	        sat_i64(h->lane.recycles), lanes_differ, lim);
}

/* Groups in order of first appearance, head first; a group only in base is
 * another node's when head ran on fewer nodes (counted in left_out, shards),
 * else shown as gone. */
static void compare_shards(rows *rs, tside base, tside head, const growth_limits *lim,
                           size_t *left_out)
{
	char label[160];
	int head_nodes_all = 1; /* head ran every node base did */
	for (size_t i = 0; i < base.r->nshards && head_nodes_all; i++) {
		int found = 0;
		for (size_t j = 0; j < head.r->nshards && !found; j++)
			found = head.r->shards[j].node == base.r->shards[i].node;
		head_nodes_all = found;
	}
	const tside sides[2] = {head, base};
	for (int sd = 0; sd < 2; sd++) {
		const report *r = sides[sd].r;
		for (size_t i = 0; i < r->nshards; i++) {
			const report_shard *g = &r->shards[i];
			int seen = 0;
			for (size_t j = 0; j < i && !seen; j++)
				seen = report_shard_same_run(&r->shards[j], g);
			for (size_t j = 0; sd == 1 && j < head.r->nshards && !seen; j++)
				seen = report_shard_same_run(&head.r->shards[j], g);
			if (seen)
				continue;
			group b, h;
			group_of(&b, base, g);
			group_of(&h, head, g);
			if (sd == 1 && !head_nodes_all) {
				*left_out += b.lanes;
				continue;
			}
			compare_label_fmt(label, sizeof(label), "%s %s node %u", str(g->arch),
			                  str(g->suite), g->node);
			group_rows(rs, label, &b, &h, lim);
		}
	}
}

static int by_growth(const void *a, const void *b)
{
	const row *x = a, *y = b;
	int64_t gx = compare_sat_sub(x->head, x->base), gy = compare_sat_sub(y->head, y->base);
	if (gx != gy)
		return gx > gy ? -1 : 1;
	return strcmp(x->label, y->label);
}

/* A row of a test whose figure grew (new tests count from 0); NULL when it
 * did not grow. */
static row *test_row(rows *rs, const char *label, const char *metric, growth_metric m, int has_base,
                     int64_t bv, int64_t hv, const growth_limits *lim)
{
	if (hv <= bv)
		return NULL;
	row *w = rows_add(rs);
	compare_label_fmt(w->label, sizeof(w->label), "%s", label);
	w->metric = metric;
	w->m = m;
	w->has_base = has_base;
	w->has_head = 1;
	w->base = bv;
	w->head = hv;
	growth_exceeded(lim, m, bv, hv, w->exceeded, sizeof(w->exceeded));
	return w;
}

/* The sites of the head test h[first..end): its run whose sites hold the
 * most bytes; NULL: none. */
static const char *head_sites(tside head, size_t first, size_t end)
{
	const csites *best = NULL;
	for (size_t k = first; k < end; k++) {
		const csites *cs = ctests_sites(head.c, head.c->v[k].name);
		if (cs && (!best || cs->bytes > best->bytes))
			best = cs;
	}
	return best ? best->lines : NULL;
}

/* Tests whose retained VA or RSS, or rise, grew, most growth first; new
 * tests count from 0. A test that was a process of its own by its peak VA,
 * where both sides know it and ran it so. Both tables are sorted (ct_sort). */
static void compare_tests(rows *rs, tside base, tside head, int multi_arch,
                          const growth_limits *lim, nearlist *near)
{
	size_t nb = base.c->n, nh = head.c->n, i = 0, j = 0;
	const ctest *b = base.c->v, *h = head.c->v;
	size_t prev = SIZE_MAX; /* the head test before h[j] (its first duplicate) */
	while (j < nh) {
		int c = i < nb ? ct_cmp2(base, &b[i], head, &h[j]) : 1;
		if (c < 0) {
			ct_sum(base, &i);
			continue;
		}
		size_t bfirst = i, first = j;
		csum bv = {0, 0, 0, 0};
		if (c == 0)
			bv = ct_sum(base, &i);
		csum hv = ct_sum(head, &j);
		/* The suite, when another suite has a test of the same name. */
		int dup = (prev != SIZE_MAX && ct_cmp_name(head, &h[prev], head, &h[first]) == 0) ||
		          (j < nh && ct_cmp_name(head, &h[j], head, &h[first]) == 0);
		char suite[256] = "", label[160];
		const char *name = ct_name(head, &h[first]);
		if (dup)
			snprintf(suite, sizeof(suite), " (%s)", ct_suite(head, &h[first]));
		if (multi_arch)
			compare_label_fmt(label, sizeof(label), "%s%s [%s]", name, suite,
			                  ct_arch(head, &h[first]));
		else
			compare_label_fmt(label, sizeof(label), "%s%s", name, suite);
		if (hv.near_ceiling && near->n++ < TOP_TESTS)
			snprintf(near->names[near->n - 1], sizeof(near->names[0]), "%s", label);
		int own = own_process(head, &h[first]);
		int mixed = c == 0 && own != own_process(base, &b[bfirst]);
		prev = first;
		if (mixed)
			continue; /* a peak is no VA left behind */
		if (own) {
			/* a new test's or an unknown peak is no growth */
			if (c == 0 && bv.va > 0)
				test_row(rs, label, "peak VA", GROWTH_TEST, 1, bv.va, hv.va, lim);
			continue;
		}
		row *w = test_row(rs, label, "retained VA", GROWTH_TEST, c == 0, bv.va, hv.va, lim);
		if (w)
			w->sites = head_sites(head, first, j);
		test_row(rs, label, "retained RSS", GROWTH_TEST, c == 0, bv.rss, hv.rss, lim);
		test_row(rs, label, "rise", GROWTH_RISE, c == 0, bv.rise, hv.rise, lim);
	}
	if (rs->n)
		qsort(rs->v, rs->n, sizeof(*rs->v), by_growth);
}

static int multi_arch(const report *a, const report *b)
{
	const report *rs[2] = {a, b};
	const char *first = NULL;
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < rs[k]->nshards; i++) {
			const char *arch = str(rs[k]->shards[i].arch);
			if (!first)
				first = arch;
			else if (strcmp(first, arch) != 0)
				return 1;
		}
	return 0;
}

/* ---- loading the two sides ---- */

static int is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/*
 * 1 when base is head or on head's first-parent line. The walk stops
 * quietly where the history does (a shallow clone's boundary, the root).
 * Used in a shallow clone, where git_merge_base fails past the graft.
 */
static int first_parent_reaches(git_repository *repo, const git_oid *head, const git_oid *base)
{
	git_commit *c = NULL;
	int found = git_oid_equal(head, base);
	if (found || git_commit_lookup(&c, repo, head) < 0)
		return found;
	while (!found) {
		git_commit *p = NULL;
		if (git_commit_parentcount(c) == 0 || git_commit_parent(&p, c, 0) < 0)
			break;
		git_commit_free(c);
		c = p;
		found = git_oid_equal(git_commit_id(c), base);
	}
	git_commit_free(c);
	git_error_clear();
	return found;
}

/* ---- --history N: the band of each figure over the base branch ---- */

static int row_key_cmp(const void *a, const void *b)
{
	const row *x = a, *y = b;
	int c = strcmp(x->label, y->label);
	return c ? c : strcmp(x->metric, y->metric);
}

/*
 * Widens each row's band by what an earlier base commit (its rows against
 * the same head: hist, sorted by row_key_cmp) had. A test row missing there
 * did not grow against it: that commit's figure was at least head's.
 * O(rows log hist).
 */
static void band_add(rows *rs, const rows *hist, int tests)
{
	for (size_t i = 0; i < rs->n; i++) {
		row *w = &rs->v[i];
		const row *f =
		    hist->n ? bsearch(w, hist->v, hist->n, sizeof(*w), row_key_cmp) : NULL;
		int64_t v;
		if (f && f->has_base)
			v = f->base;
		else if (!f && tests)
			v = w->head;
		else
			continue;
		if (!w->band_n) {
			if (!w->has_base)
				continue;
			w->lo = w->hi = w->base;
			w->band_n = 1;
		}
		w->lo = v < w->lo ? v : w->lo;
		w->hi = v > w->hi ? v : w->hi;
		w->band_n++;
	}
}

/* Judges every row again, against the top of its band (widened by the limit). */
static void band_judge(rows *rs, const growth_limits *lim)
{
	for (size_t i = 0; i < rs->n; i++) {
		row *w = &rs->v[i];
		if (w->band_n < 2 || w->shown_only || !w->has_head)
			continue;
		char why[64];
		w->exceeded[0] = '\0';
		if (growth_exceeded(lim, w->m, w->hi, w->head, why, sizeof(why)))
			snprintf(w->exceeded, sizeof(w->exceeded), "%s over the band", why);
	}
}

/*
 * The bands of the rows over up to n noted commits of BASE's first-parent
 * line (BASE itself included, and counted): each earlier note is compared
 * with HEAD as BASE was, one at a time. Returns how many commits the bands
 * span (0: none but BASE), or a negative code (err).
 */
static int band_build(rows *shards, rows *tests, store *s, const notes *n, const git_oid *base,
                      tside head, long want, int multi, const growth_limits *lim, mg_err *err)
{
	git_commit *c = NULL;
	int found = 1, rc = 0;
	if (git_commit_lookup(&c, s->repo, base) < 0)
		return 0;
	for (int steps = 0; found < want && steps < 10 * want + 100; steps++) {
		git_commit *p = NULL;
		if (git_commit_parentcount(c) == 0 || git_commit_parent(&p, c, 0) < 0)
			break;
		git_commit_free(c);
		c = p;
		side h = {0};
		rc = store_read_note_tests(&h.r, s, n, git_commit_id(c), ctests_add, &h.t, err);
		if (rc == MG_ENOTFOUND) {
			rc = 0;
			continue;
		}
		if (rc < 0) {
			ctests_free(&h.t);
			break;
		}
		tside ht = {h.r, &h.t};
		ct_sort(ht);
		rows hs = {0}, htests = {0};
		nearlist none = {.n = 0};
		size_t left = 0;
		compare_shards(&hs, ht, head, lim, &left);
		compare_tests(&htests, ht, head, multi, lim, &none);
		if (hs.n)
			qsort(hs.v, hs.n, sizeof(row), row_key_cmp);
		if (htests.n)
			qsort(htests.v, htests.n, sizeof(row), row_key_cmp);
		band_add(shards, &hs, 0);
		band_add(tests, &htests, 1);
		free(hs.v);
		free(htests.v);
		report_free(h.r);
		ctests_free(&h.t);
		found++;
	}
	git_commit_free(c);
	git_error_clear();
	if (rc < 0)
		return rc;
	band_judge(shards, lim);
	band_judge(tests, lim);
	return found;
}

static int open_store(store *s, const char *ref, mg_err *err)
{
	if (s->repo)
		return 0;
	return store_open(s, ref, err);
}

int compare_main(int argc, char **argv)
{
	const char *ref = NULL, *limits = NULL, *format = "text", *pos[2] = {NULL, NULL},
	           *history = NULL;
	int npos = 0, fmt, rc, o;
	growth_limits lim;
	store s = {0};
	notes n = {0};
	side sd[2];
	rows shards = {0}, tests = {0};
	mg_err err;
	char sha[16], base_what[256] = "";
	size_t left_out = 0;
	nearlist near = {.n = 0};

	memset(sd, 0, sizeof(sd));
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--table") == 0)
			return compare_table_main(argc, argv);
	for (int i = 1; i < argc; i++) {
		if (ci_is_help(argv[i]))
			return ci_cmd_usage(CMD, stdout, MG_EXIT_OK);
		if ((o = ci_opt(CMD, argc, argv, &i, "--ref", &ref)) ||
		    (o = ci_opt(CMD, argc, argv, &i, "--max-growth", &limits)) ||
		    (o = ci_opt(CMD, argc, argv, &i, "--format", &format)) ||
		    (o = ci_opt(CMD, argc, argv, &i, "--history", &history))) {
			if (o < 0)
				return -o;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			ci_unknown_option(CMD, argv[i]);
			return ci_cmd_usage(CMD, stderr, MG_EXIT_USAGE);
		} else if (npos == 2) {
			return ci_fail(CMD, MG_EXIT_USAGE, "too many arguments ('%s')", argv[i]);
		} else {
			pos[npos++] = argv[i];
		}
	}
	if (npos != 2) {
		ci_fail(CMD, MG_EXIT_USAGE, "needs BASE and HEAD");
		return ci_cmd_usage(CMD, stderr, MG_EXIT_USAGE);
	}
	if (strcmp(format, "text") == 0)
		fmt = FMT_TEXT;
	else if (strcmp(format, "markdown") == 0 || strcmp(format, "md") == 0)
		fmt = FMT_MARKDOWN;
	else if (strcmp(format, "json") == 0)
		fmt = FMT_JSON;
	else
		return ci_fail(CMD, MG_EXIT_USAGE, "unknown format '%s' (text, markdown, json)",
		               format);
	long hist_n = 0;
	if (history) {
		char *end;
		errno = 0;
		hist_n = strtol(history, &end, 10);
		if (errno || end == history || *end || hist_n < 1 || hist_n > 1000)
			return ci_fail(CMD, MG_EXIT_USAGE,
			               "--history: '%s' is not a number of commits (1 to 1000)",
			               history);
	}
	if (!limits)
		growth_defaults(&lim);
	else if (growth_parse(&lim, limits, &err) < 0)
		return ci_fail(CMD, MG_EXIT_USAGE, "--max-growth: %s", err.msg);

	/* Resolve both sides first: BASE becomes the merge base only when both are revisions. */
	for (int k = 0; k < 2; k++) {
		sd[k].arg = pos[k];
		if (is_file(pos[k])) {
			sd[k].is_file = 1;
			continue;
		}
		if ((rc = open_store(&s, ref, &err)) < 0) {
			rc = ci_fail(CMD, rc == MG_EINVAL ? MG_EXIT_USAGE : MG_EXIT_INFRA,
			             "'%s' is not a file, and %s", pos[k], err.msg);
			goto out;
		}
		if ((rc = store_resolve(&sd[k].commit, &s, pos[k], &err)) < 0) {
			rc = ci_fail(CMD, rc == MG_ENOTFOUND ? MG_EXIT_USAGE : MG_EXIT_INFRA,
			             "'%s' is neither a report file nor a revision (%s)", pos[k],
			             err.msg);
			goto out;
		}
	}
	if (!sd[0].is_file && !sd[1].is_file) {
		git_oid mb;
		int grc = git_merge_base(&mb, s.repo, &sd[0].commit, &sd[1].commit);
		if (grc < 0 && git_repository_is_shallow(s.repo) == 1 &&
		    first_parent_reaches(s.repo, &sd[1].commit, &sd[0].commit)) {
			git_oid_cpy(&mb, &sd[0].commit); /* BASE is HEAD's ancestor: itself */
			grc = 0;
		}
		if (grc < 0 && git_repository_is_shallow(s.repo) == 1) {
			/* A shallow clone has no history past its graft: the walk fails. */
			rc = ci_fail(CMD, MG_EXIT_FAILED,
			             "no baseline: the merge base of %s and %s is not in this "
			             "shallow clone; fetch more history (git fetch --deepen=100 "
			             "origin, or --unshallow) and compare again",
			             pos[0], pos[1]);
			goto out;
		}
		if (grc == GIT_ENOTFOUND) {
			rc = ci_fail(CMD, MG_EXIT_FAILED,
			             "no baseline: %s and %s have no common history", pos[0],
			             pos[1]);
			goto out;
		}
		if (grc < 0) {
			store_git_fail(&err, "merge base");
			rc = ci_fail(CMD, MG_EXIT_INFRA, "%s", err.msg);
			goto out;
		}
		if (!git_oid_equal(&mb, &sd[0].commit))
			snprintf(base_what, sizeof(base_what), "merge-base of %s and %s", pos[0],
			         pos[1]);
		else
			snprintf(base_what, sizeof(base_what), "%s", pos[0]);
		git_oid_cpy(&sd[0].commit, &mb);
	}
	if (s.repo && (rc = notes_load(&n, s.repo, s.ref, &err)) < 0) {
		rc = ci_fail(CMD, MG_EXIT_INFRA, "%s", err.msg);
		goto out;
	}
	for (int k = 0; k < 2; k++) {
		const char *which = k ? "HEAD" : "BASE";
		if (sd[k].is_file) {
			rc = report_load_tests(&sd[k].r, sd[k].arg, ctests_add, &sd[k].t, &err);
			if (rc < 0) {
				rc = ci_fail(CMD, report_load_exit(rc), "%s: %s", which, err.msg);
				goto out;
			}
			ct_sort((tside){sd[k].r, &sd[k].t});
			continue;
		}
		rc = store_read_note_tests(&sd[k].r, &s, &n, &sd[k].commit, ctests_add, &sd[k].t,
		                           &err);
		if (rc == MG_ENOTFOUND) {
			int shallow = git_repository_is_shallow(s.repo) == 1;
			rc = ci_fail(CMD, MG_EXIT_FAILED,
			             "no memguard note on %s %s (%s) in %s: nothing to compare "
			             "with. Was the notes ref fetched (git fetch origin "
			             "+%s:%s)?%s",
			             which, store_short(sha, &sd[k].commit),
			             k == 0 && base_what[0] ? base_what : sd[k].arg, s.ref, s.ref,
			             s.ref, shallow ? " This clone is shallow." : "");
			goto out;
		}
		if (rc < 0) {
			rc = ci_fail(CMD, MG_EXIT_INFRA, "%s", err.msg);
			goto out;
		}
		ct_sort((tside){sd[k].r, &sd[k].t});
	}
	tside bt = {sd[0].r, &sd[0].t}, ht = {sd[1].r, &sd[1].t};
	int multi = multi_arch(sd[0].r, sd[1].r);
	compare_shards(&shards, bt, ht, &lim, &left_out);
	compare_tests(&tests, bt, ht, multi, &lim, &near);
	int band = 0;
	if (hist_n > 1 && sd[0].is_file) {
		rc = ci_fail(CMD, MG_EXIT_USAGE,
		             "--history needs BASE as a revision: its notes are the band");
		goto out;
	}
	if (hist_n > 1 && (band = band_build(&shards, &tests, &s, &n, &sd[0].commit, ht, hist_n,
	                                     multi, &lim, &err)) < 0) {
		rc = ci_fail(CMD, MG_EXIT_INFRA, "%s", err.msg);
		goto out;
	}
	compare_out_print(fmt, &sd[0], &sd[1], base_what[0] ? base_what : NULL, &shards, &tests,
	                  &lim, left_out, &near, band > 1 ? (size_t)band : 0);
	rc = compare_count_exceeded(&shards) + compare_count_exceeded(&tests) ? MG_EXIT_REGRESSION
	                                                                      : MG_EXIT_OK;
out:
	free(shards.v);
	free(tests.v);
	for (int k = 0; k < 2; k++) {
		report_free(sd[k].r);
		ctests_free(&sd[k].t);
	}
	notes_free(&n);
	store_close(&s);
	return rc;
}

/*
 * gtest_filter.c - the gtest driver's filter compiler: the batch's names as
 * the shortest --gtest_filter GoogleTest's syntax allows (by prefix, or the
 * user's filter less what is not given), and the file a filter too long for
 * the environment is handed over in (the probe gives it to GoogleTest).
 * Builds strings only; starts nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gtest_driver.h"
#include "mg_bulk.h"

static int sname_cmp(const void *a, const void *b)
{
	const sname *x = a, *y = b;
	int c = memcmp(x->p, y->p, x->len < y->len ? x->len : y->len);
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

void gtest_filter_sort(gtest *g)
{
	g->sort_due = 1;
}

/* g->sorted for g->list (out of memory aborts, as mg_bulk.h's blocks do;
 * nsorted 0 when the batch's marks cannot be had). A listing in
 * name order already (GoogleTest lists in registration order, which often
 * is) is only checked: a merge sort compares (N/2) log N times even then. */
static void filter_sort_now(gtest *g)
{
	size_t n = shim_names_count(g->list);
	mg_bulk_free(g->sorted, g->sorted_room * sizeof(sname));
	mg_bulk_free(g->want_before, g->sorted_room * sizeof(size_t));
	free(g->mark);
	/* huge pages once large, as the listing's names (mg_bulk.h) */
	g->sorted_room = n + 1;
	g->sorted = mg_bulk_realloc(NULL, 0, g->sorted_room * sizeof(sname));
	g->want_before = mg_bulk_realloc(NULL, 0, g->sorted_room * sizeof(size_t));
	g->mark = calloc(n + 1, 1);
	g->nsorted = 0;
	if (!g->mark)
		return;
	for (size_t i = 0; i < n; i++) {
		g->sorted[i].p = shim_names_at(g->list, i, &g->sorted[i].len);
		g->sorted[i].idx = i;
	}
	size_t i = 1;
	while (i < n && sname_cmp(&g->sorted[i - 1], &g->sorted[i]) <= 0)
		i++;
	if (i < n)
		qsort(g->sorted, n, sizeof(sname), sname_cmp);
	g->nsorted = n;
}

/* The filter file is gone (the probe removes it once read; this is for a
 * program that never read it). */
void gtest_filter_remove(gtest *g)
{
	if (g->filter_path[0])
		unlink(g->filter_path);
	g->filter_path[0] = 0;
}

/* Writes text to a new file of its own (created exclusively, mode 0600) in
 * the run's directory (MG_ENV_RUN_DIR: the runner removes it at its end,
 * whatever ended this shim), else $TMPDIR or /tmp; 0 and its path in
 * g->filter_path, or -1. */
int gtest_filter_write(gtest *g, const char *text, size_t len)
{
	const char *run = getenv(MG_ENV_RUN_DIR), *dir = getenv("TMPDIR");
	if (run && *run)
		snprintf(g->filter_path, sizeof(g->filter_path), "%s/gtest-filter-XXXXXX", run);
	else
		snprintf(g->filter_path, sizeof(g->filter_path), "%s/memguard-gtest-filter-XXXXXX",
		         dir && *dir ? dir : "/tmp");
	int fd = mkstemp(g->filter_path);
	size_t done = 0;
	if (fd < 0 && strcmp(g->filter_path, "/tmp")) { /* an unusable TMPDIR */
		snprintf(g->filter_path, sizeof(g->filter_path),
		         "/tmp/memguard-gtest-filter-XXXXXX");
		fd = mkstemp(g->filter_path);
	}
	if (fd < 0) {
		g->filter_path[0] = 0;
		return -1;
	}
	while (done < len) {
		ssize_t w = write(fd, text + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		done += (size_t)w;
	}
	if (close(fd) < 0 || done < len) {
		gtest_filter_remove(g);
		return -1;
	}
	return 0;
}

/* "PREFIX" and the first k queued names joined by ':' (malloc'd, NUL-
 * terminated, *len bytes), or NULL. */
char *gtest_filter_build(shim *s, size_t k, const char *prefix, size_t *len)
{
	size_t n, total = strlen(prefix) + 1;
	for (size_t i = 0; i < k; i++)
		total += (shim_queue_name(s, i, &n), n) + 1;
	char *f = malloc(total);
	if (!f)
		return NULL;
	char *p = f + strlen(prefix);
	memcpy(f, prefix, strlen(prefix));
	for (size_t i = 0; i < k; i++) {
		const char *name = shim_queue_name(s, i, &n);
		if (i)
			*p++ = ':';
		memcpy(p, name, n);
		p += n;
	}
	*p = 0;
	*len = (size_t)(p - f);
	return f;
}

/* The user's own filter: the last --gtest_filter= of the command, else
 * GTEST_FILTER, else NULL (GoogleTest's own precedence). */
const char *gtest_filter_user(shim *s)
{
	int ncmd;
	char **cmd = shim_cmd(s, &ncmd);
	const char *f = NULL;
	for (int i = 1; i < ncmd; i++)
		if (!strncmp(cmd[i], FILTER_OPT, sizeof(FILTER_OPT) - 1))
			f = cmd[i] + sizeof(FILTER_OPT) - 1;
	if (!f)
		f = getenv("GTEST_FILTER");
	return f;
}

void gtest_filter_add(fbuf *b, const char *p, size_t n)
{
	if (b->bad)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = 2 * (b->len + n + 1) + 256;
		char *q = realloc(b->p, cap);
		if (!q) {
			b->bad = 1;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = 0;
}

/* Adds one pattern, after a ':' unless first; star: "P*" (a prefix). */
static void fb_pattern(fbuf *b, int *first, const char *p, size_t n, int star)
{
	if (!*first)
		gtest_filter_add(b, ":", 1);
	*first = 0;
	gtest_filter_add(b, p, n);
	if (star)
		gtest_filter_add(b, "*", 1);
}

/*
 * Patterns for the names of g->sorted[lo, hi) whose mark is want: the
 * range is every listed name starting with its first depth bytes. With
 * prefixes, a range all wanted is "PREFIX*" (one name: the name), else
 * it is split by the next byte; without, the names themselves. O(length of
 * the names) at most, ~O(patterns) when they compress.
 */
static void cover(gtest *g, fbuf *b, int *first, size_t lo, size_t hi, size_t depth, int want,
                  int prefixes)
{
	const sname *v = g->sorted;
	size_t wanted = g->want_before[hi] - g->want_before[lo];
	if (!want)
		wanted = (hi - lo) - wanted;
	if (!wanted)
		return;
	if (prefixes && wanted == hi - lo) {
		if (hi - lo == 1)
			fb_pattern(b, first, v[lo].p, v[lo].len, 0);
		else
			fb_pattern(b, first, v[lo].p, depth, 1);
		return;
	}
	size_t i = lo;
	if (!prefixes) {
		for (; i < hi; i++)
			if (g->mark[v[i].idx] == want)
				fb_pattern(b, first, v[i].p, v[i].len, 0);
		return;
	}
	for (; i < hi && v[i].len == depth; i++) /* the name that is the prefix itself */
		if (g->mark[v[i].idx] == want)
			fb_pattern(b, first, v[i].p, v[i].len, 0);
	while (i < hi) {
		size_t j = i;
		while (j < hi && v[j].p[depth] == v[i].p[depth])
			j++;
		cover(g, b, first, i, j, depth + 1, want, prefixes);
		i = j;
	}
}

/*
 * The filter for the first k queued names (the batch, in list order) as
 * short as GoogleTest's filter syntax allows: every Test object copies the
 * filter flag twice (its flag saver), so a filter of every name costs each
 * test its length in copies. Two forms, the shorter wins:
 *   the names themselves, a prefix whose every listed name is in the batch
 *   as "PREFIX*" (only without a user filter: the list is then every test);
 *   the user's filter P-N (none: "*") with the listed names not in the
 *   batch added to its negatives, by prefix too (safe: what the user's
 *   filter did not list it excludes anyway; not under GoogleTest's
 *   sharding, where the list is the shard's: the names alone then).
 * user is the user's filter or NULL. NULL when memory is short.
 */
char *gtest_filter_compose(shim *s, gtest *g, size_t k, const char *user, size_t *len)
{
	size_t nl = g->nsorted, n;
	fbuf a = {0}, b = {0};
	int first = 1;
	if (g->sort_due) {
		g->sort_due = 0;
		filter_sort_now(g);
		nl = g->nsorted;
	}
	if (!nl)
		return gtest_filter_build(s, k, "", len);
	memset(g->mark, 0, nl);
	for (size_t i = 0; i < k; i++) {
		if (i < g->bidx_n) { /* batch_len looked it up */
			g->mark[g->bidx[i]] = 1;
			continue;
		}
		const char *name = shim_queue_name(s, i, &n);
		g->mark[shim_names_find(g->list, name, n)] = 1;
	}
	g->bidx_n = 0;
	g->want_before[0] = 0;
	for (size_t i = 0; i < nl; i++)
		g->want_before[i + 1] = g->want_before[i] + g->mark[g->sorted[i].idx];
	/* a: the batch, by prefix when the list is every test (not under the
	 * user's filter, nor GoogleTest's sharding: the other shards' tests are
	 * not listed, and "P*" or "*-X" would run them) */
	cover(g, &a, &first, 0, nl, 0, 1, !user && !g->sharded);
	if (g->sharded) {
		if (a.bad || !a.p) {
			free(a.p);
			return gtest_filter_build(s, k, "", len);
		}
		*len = a.len;
		return a.p;
	}
	/* b: the user's filter less what is listed but not in the batch */
	const char *f = user ? user : "*";
	const char *dash = strchr(f, '-');
	gtest_filter_add(&b, f, strlen(f));
	if (k < nl && !dash)
		gtest_filter_add(&b, "-", 1); /* "P" becomes "P-X" ("P-N": "P-N:X") */
	first = !dash || !dash[1];
	cover(g, &b, &first, 0, nl, 0, 0, 1);
	if (a.bad || b.bad || !a.p) {
		free(a.p);
		free(b.p);
		return gtest_filter_build(s, k, "", len);
	}
	fbuf *win = b.len < a.len ? &b : &a, *lose = win == &a ? &b : &a;
	free(lose->p);
	*len = win->len;
	return win->p;
}

/*
 * gtest_order.c - the order a GoogleTest program runs its tests in: the
 * user's --gtest_shuffle and --gtest_random_seed as gtest.cc reads them
 * (gtest_order_read, for driver_order_of), and the listing put in the order
 * GoogleTest shuffles to with the run's seed (gtest_order_shuffle: its own
 * generator, gtest.cc's UnitTestImpl::ShuffleTests and
 * gtest-internal-inl.h's ShuffleRange), so that a batch taken from the
 * queue's head is in the order its program runs it. Reads the listing;
 * runs a program only for a second listing (the user's filter).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gtest_driver.h"

/* GoogleTest's Int32 flag or variable as gtest-port.cc's ParseInt32 reads
 * it: a whole decimal number within 32 bits; 0 and *out untouched else. */
static int gtest_int32(const char *v, long *out)
{
	char *end;
	errno = 0;
	long n = strtol(v, &end, 10);
	if (*end || errno || n < INT32_MIN || n > INT32_MAX)
		return 0;
	*out = n;
	return 1;
}

void gtest_order_read(driver_order *out, char *const *cmd, int ncmd)
{
	static const char shuffle[] = "--gtest_shuffle", seed_opt[] = "--gtest_random_seed=";
	const char *env = getenv("GTEST_SHUFFLE"), *senv = getenv("GTEST_RANDOM_SEED");
	long seed = 0;
	memset(out, 0, sizeof(*out));
	out->shuffled = env && strcmp(env, "0") != 0;
	if (out->shuffled)
		snprintf(out->opt, sizeof(out->opt), "GTEST_SHUFFLE=%.40s", env);
	if (senv)
		gtest_int32(senv, &seed);
	for (int i = 1; i < ncmd; i++) {
		const char *a = cmd[i];
		size_t n = sizeof(shuffle) - 1;
		if (!strncmp(a, shuffle, n) && (!a[n] || a[n] == '=')) {
			const char *v = a[n] ? a + n + 1 : "";
			out->shuffled = !(*v == '0' || *v == 'f' || *v == 'F');
			snprintf(out->opt, sizeof(out->opt), "%.60s", a);
		} else if (!strncmp(a, seed_opt, sizeof(seed_opt) - 1)) {
			gtest_int32(a + sizeof(seed_opt) - 1, &seed);
		}
	}
	if (!out->shuffled) {
		out->opt[0] = 0;
		return;
	}
	/* gtest-internal-inl.h's GetRandomSeedFromFlag: 0 is the time's */
	out->draws = seed == 0;
	if (seed)
		out->seed = ((unsigned)(int32_t)seed - 1u) % 99999u + 1;
}

/* A listing's structure: its names in order, each with its suite. */
typedef struct gt_suites {
	shim_names *names; /* in the listing's order (a name's second listing: a stand-in) */
	size_t *first;     /* suite i's tests: names first[i] .. first[i + 1] - 1 */
	size_t nsuites, cap, ndeath;
	int bad;
} gt_suites;

static void gt_suite_at(void *ctx, const char *name, size_t n)
{
	gt_suites *t = ctx;
	if (t->nsuites + 2 > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		size_t *f = realloc(t->first, cap * sizeof(size_t));
		if (!f) {
			t->bad = 1;
			return;
		}
		t->first = f;
		t->cap = cap;
	}
	/* kDeathTestSuiteFilter: a name ending in DeathTest, or with
	 * DeathTest/ in it; GoogleTest keeps such suites first (GetTestSuite)
	 * and shuffles them apart */
	if ((n >= 9 && !memcmp(name + n - 9, "DeathTest", 9)) || memmem(name, n, "DeathTest/", 10))
		t->ndeath++;
	t->first[t->nsuites++] = shim_names_count(t->names);
}

static void gt_suite_test(void *ctx, const char *name, size_t n)
{
	gt_suites *t = ctx;
	/* a name listed twice (two fixtures of one name) runs where it
	 * first comes: the tests after it keep their places */
	if (shim_names_add(t->names, name, n) < 0) {
		char twin[32]; /* a stand-in for its place: no listed name starts with \1 */
		int k = snprintf(twin, sizeof(twin), "\1%zu", shim_names_count(t->names));
		shim_names_add(t->names, twin, (size_t)k);
	}
}

/* GoogleTest's Random: glibc's rand(3) constants, modulo 2^31. */
static uint32_t gt_random(uint32_t *state, uint32_t range)
{
	*state = (uint32_t)((1103515245ull * *state + 12345u) % (1u << 31));
	return *state % range;
}

/* ShuffleRange: Fisher-Yates over v[begin, end), from the end. */
static void gt_shuffle_range(uint32_t *state, size_t *v, size_t begin, size_t end)
{
	for (size_t w = end - begin; w >= 2; w--) {
		size_t last = begin + w - 1, sel = begin + gt_random(state, (uint32_t)w);
		size_t x = v[sel];
		v[sel] = v[last];
		v[last] = x;
	}
}

/* A name's place in the shuffled order (for qsort). */
typedef struct gt_rank {
	size_t rank, pos;
} gt_rank;

static int gt_rank_cmp(const void *a, const void *b)
{
	const gt_rank *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/*
 * g->list in the order GoogleTest runs it with --gtest_shuffle and
 * --gtest_random_seed=g->seed (UnitTestImpl::ShuffleTests): the random
 * state reseeded with the seed; the death test suites shuffled among
 * themselves, then the others; then each suite's tests, suite by suite in
 * registration order. Every registered test takes part, whatever the
 * filter or shard runs, so a program given a part of the list runs it in
 * this order too. full: a listing of every test (the program's own with
 * --gtest_filter=* when the user's filter left tests out). O(N log N).
 * On failure (memory) g->list stays as listed.
 */
static int gt_shuffle_list(gtest *g, const char *full, size_t len)
{
	int rc = -1;
	gt_suites t = {.names = shim_names_new()};
	size_t nl = shim_names_count(g->list);
	size_t *sidx = NULL, *tidx = NULL;
	gt_rank *rank = NULL;
	shim_names *order = NULL, *sorted = NULL;
	gtest_parse_suites(full, len, gt_suite_test, gt_suite_at, &t);
	size_t nt = shim_names_count(t.names);
	if (t.bad || !t.nsuites)
		goto out;
	t.first[t.nsuites] = nt;
	sidx = malloc(t.nsuites * sizeof(size_t));
	tidx = malloc((nt ? nt : 1) * sizeof(size_t));
	rank = malloc((nl ? nl : 1) * sizeof(gt_rank));
	order = shim_names_new();
	sorted = shim_names_new();
	if (!sidx || !tidx || !rank)
		goto out;
	uint32_t state = (uint32_t)g->seed;
	for (size_t i = 0; i < t.nsuites; i++)
		sidx[i] = i;
	gt_shuffle_range(&state, sidx, 0, t.ndeath);
	gt_shuffle_range(&state, sidx, t.ndeath, t.nsuites);
	for (size_t i = 0; i < t.nsuites; i++) {
		for (size_t k = t.first[i]; k < t.first[i + 1]; k++)
			tidx[k] = k;
		gt_shuffle_range(&state, tidx, t.first[i], t.first[i + 1]);
	}
	for (size_t j = 0; j < t.nsuites; j++)
		for (size_t k = t.first[sidx[j]]; k < t.first[sidx[j] + 1]; k++) {
			size_t n;
			const char *name = shim_names_at(t.names, tidx[k], &n);
			shim_names_add(order, name, n);
		}
	for (size_t i = 0; i < nl; i++) {
		size_t n;
		const char *name = shim_names_at(g->list, i, &n);
		long r = shim_names_find(order, name, n);
		rank[i] = (gt_rank){.rank = r < 0 ? (size_t)-1 : (size_t)r, .pos = i};
	}
	qsort(rank, nl, sizeof(gt_rank), gt_rank_cmp);
	for (size_t i = 0; i < nl; i++) {
		size_t n;
		const char *name = shim_names_at(g->list, rank[i].pos, &n);
		shim_names_add(sorted, name, n);
	}
	shim_names_free(g->list);
	g->list = sorted;
	sorted = NULL;
	rc = 0;
out:
	shim_names_free(sorted);
	shim_names_free(order);
	shim_names_free(t.names);
	free(t.first);
	free(sidx);
	free(tidx);
	free(rank);
	return rc;
}

int gtest_order_shuffle(shim *s, gtest *g, char **argv, int nlist, const char *out, size_t len)
{
	char *all = NULL;
	size_t alen = 0;
	mg_exit_end status;
	int rc = -1;
	if (!gtest_filter_user(s)) {
		rc = gt_shuffle_list(g, out, len);
	} else {
		argv[nlist + 1] = "--gtest_filter=*";
		argv[nlist + 2] = NULL;
		if (shim_capture(s, argv, &all, &alen, &status) == 0 && all && !status.signo)
			rc = gt_shuffle_list(g, all, alen);
		argv[nlist + 1] = NULL;
		free(all);
	}
	static int said; /* the shim lists at its hello and again for the runner */
	if (rc < 0 && !said++)
		fprintf(stderr,
		        "memguard: cannot work out the order --gtest_shuffle runs the tests in "
		        "(%s --gtest_list_tests --gtest_filter=*, the whole program's listing "
		        "it needs, failed, or memory ran out): no test is run\n",
		        argv[0]);
	return rc;
}

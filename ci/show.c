/*
 * show.c - "memguard show": the per-shard table of the report noted on a
 * commit (rendered by the console adapter), and with --tests the tests that
 * left the most memory behind. Read only.
 */
#include <stdlib.h>
#include <string.h>

#include "adapters.h"
#include "ci_int.h"

#define CMD       "show"
#define TOP_TESTS 10

/*
 * What show keeps of a note's tests as they are read (the note's text is
 * inflated whole by libgit2: the model of a million tests beside it would
 * be 2.7x the note): what it prints and nothing else. Every test that did
 * not pass (the console lists them), and of each shard the TOP_TESTS
 * largest by VA after (the console's largest tests of processes of their
 * own) and by VA left behind (--tests without suspects).
 */
typedef struct kept {
	size_t shard, index;
	report_test t;           /* its strings ours */
	report_test_sites sites; /* its allocation sites, ours (none: empty) */
} kept;

typedef struct keeper {
	kept *v; /* not passing */
	size_t n, cap;
	size_t shard, index; /* where the read is */
	kept top_va[TOP_TESTS], top_delta[TOP_TESTS];
	size_t ntop_va, ntop_delta;
	/* the tops of shards already read */
	kept *done;
	size_t ndone, done_cap;
} keeper;

static kept kept_of(const keeper *k, const report_test *t, const report_test_sites *sites)
{
	kept x = {k->shard, k->index, *t, {0}};
	x.t.name = report_strdup(t->name);
	x.t.message = report_strdup(t->message);
	x.t.output = NULL;
	report_test_sites_copy(&x.sites, sites);
	return x;
}

static void kept_free(kept *x)
{
	free(x->t.name);
	free(x->t.message);
	report_test_sites_clear(&x->sites);
}

static void push(kept **v, size_t *n, size_t *cap, kept x)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		if (!(*v = realloc(*v, *cap * sizeof(**v))))
			abort();
	}
	(*v)[(*n)++] = x;
}

/* Into top (largest first, at most TOP_TESTS) by key; what falls out is freed. */
static void top_add(keeper *k, kept *top, size_t *n, const report_test *t,
                    const report_test_sites *sites, int64_t (*key)(const report_test *))
{
	if (key(t) <= 0 || (*n == TOP_TESTS && key(t) <= key(&top[*n - 1].t)))
		return;
	if (*n == TOP_TESTS)
		kept_free(&top[--*n]);
	size_t i = (*n)++;
	for (; i > 0 && key(&top[i - 1].t) < key(t); i--)
		top[i] = top[i - 1];
	top[i] = kept_of(k, t, sites);
}

static int64_t key_va(const report_test *t)
{
	return t->va_after > INT64_MAX ? INT64_MAX : (int64_t)t->va_after;
}

static int64_t key_delta(const report_test *t)
{
	return t->va_delta;
}

/* The shard's tops join the kept ones (a shard's tests come together). */
static void tops_done(keeper *k)
{
	for (size_t i = 0; i < k->ntop_va; i++)
		push(&k->done, &k->ndone, &k->done_cap, k->top_va[i]);
	for (size_t i = 0; i < k->ntop_delta; i++)
		push(&k->done, &k->ndone, &k->done_cap, k->top_delta[i]);
	k->ntop_va = k->ntop_delta = 0;
}

static int keep_test(size_t shard, const report_test *t, uint64_t va_peak,
                     const report_test_sites *sites, void *ctx, mg_err *err)
{
	(void)va_peak;
	keeper *k = ctx;
	(void)err;
	if (shard != k->shard) {
		tops_done(k);
		k->shard = shard;
		k->index = 0;
	}
	if (t->state != TEST_PASS)
		push(&k->v, &k->n, &k->cap, kept_of(k, t, sites));
	top_add(k, k->top_va, &k->ntop_va, t, sites, key_va);
	top_add(k, k->top_delta, &k->ntop_delta, t, sites, key_delta);
	k->index++;
	return 0;
}

static int by_place(const void *a, const void *b)
{
	const kept *x = a, *y = b;
	if (x->shard != y->shard)
		return x->shard < y->shard ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* The kept tests into r's shards, in their order, each once (r NULL: they
 * are freed); k is emptied. */
static void keeper_install(keeper *k, report *r)
{
	tops_done(k);
	for (size_t i = 0; i < k->ndone; i++)
		push(&k->v, &k->n, &k->cap, k->done[i]);
	free(k->done);
	if (k->n)
		qsort(k->v, k->n, sizeof(*k->v), by_place);
	for (size_t i = 0; i < k->n; i++) {
		kept *x = &k->v[i];
		if (!r || x->shard >= r->nshards || (i && by_place(x, x - 1) == 0)) {
			kept_free(x); /* a test both failed and large: once */
			continue;
		}
		report_shard *s = &r->shards[x->shard];
		*report_shard_add_test(s) = x->t;
		if (x->sites.nsites) { /* its sites move in, at its place here */
			report_test_sites *d = report_shard_add_test_sites(s, s->ntests - 1);
			*d = x->sites;
			d->test = s->ntests - 1;
		} else {
			report_test_sites_clear(&x->sites);
		}
	}
	free(k->v);
	memset(k, 0, sizeof(*k));
}

static int by_delta(const void *a, const void *b)
{
	const report_test *x = *(report_test *const *)a, *y = *(report_test *const *)b;
	if (x->va_delta != y->va_delta)
		return x->va_delta > y->va_delta ? -1 : 1;
	return strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

/* The suspects, or when the report has none, the tests ranked by VA left behind. */
static void print_tests(const report *r)
{
	char va[32], rss[32];
	printf("\nTests that left the most memory behind:\n");
	if (r->nsuspects) {
		printf("  %-48s %12s %12s %9s\n", "test", "VA retained", "RSS retained",
		       "grew/runs");
		for (size_t i = 0; i < r->nsuspects && i < TOP_TESTS; i++) {
			const report_suspect *s = &r->suspects[i];
			report_format_size_signed(va, sizeof(va), s->va_retained);
			report_format_size_signed(rss, sizeof(rss), s->rss_retained);
			printf("  %-48s %12s %12s %4u/%-4u%s\n", s->name ? s->name : "?", va, rss,
			       s->grew, s->runs, s->alone_over_hard ? " memory-limit" : "");
		}
		return;
	}
	size_t n = 0, k = 0;
	for (size_t i = 0; i < r->nshards; i++)
		n += r->shards[i].ntests;
	const report_test **v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		abort();
	for (size_t i = 0; i < r->nshards; i++)
		for (size_t t = 0; t < r->shards[i].ntests; t++)
			if (r->shards[i].tests[t].va_delta > 0)
				v[k++] = &r->shards[i].tests[t];
	qsort(v, k, sizeof(*v), by_delta);
	if (k == 0)
		printf("  (none: no test left VA behind)\n");
	for (size_t i = 0; i < k && i < TOP_TESTS; i++) {
		report_format_size_signed(va, sizeof(va), v[i]->va_delta);
		report_format_size_signed(rss, sizeof(rss), v[i]->rss_delta);
		printf("  %-48s %12s %12s\n", v[i]->name ? v[i]->name : "?", va, rss);
	}
	free(v);
}

int show_main(int argc, char **argv)
{
	const char *ref = NULL, *rev = NULL;
	int tests = 0, rc, o;
	store s = {0};
	notes n = {0};
	report *r = NULL;
	mg_err err;
	git_oid target;
	char sha[GIT_OID_HEXSZ + 1];

	for (int i = 1; i < argc; i++) {
		if (ci_is_help(argv[i]))
			return ci_cmd_usage(CMD, stdout, MG_EXIT_OK);
		if ((o = ci_opt(CMD, argc, argv, &i, "--ref", &ref))) {
			if (o < 0)
				return -o;
		} else if (strcmp(argv[i], "--tests") == 0) {
			tests = 1;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			ci_unknown_option(CMD, argv[i]);
			return ci_cmd_usage(CMD, stderr, MG_EXIT_USAGE);
		} else if (rev) {
			return ci_fail(CMD, MG_EXIT_USAGE, "one revision at a time ('%s')",
			               argv[i]);
		} else {
			rev = argv[i];
		}
	}
	if ((rc = store_open(&s, ref, &err)) < 0)
		return ci_fail(CMD, rc == MG_EINVAL ? MG_EXIT_USAGE : MG_EXIT_INFRA, "%s", err.msg);
	if ((rc = store_resolve(&target, &s, rev ? rev : "HEAD", &err)) < 0) {
		rc =
		    ci_fail(CMD, rc == MG_ENOTFOUND ? MG_EXIT_USAGE : MG_EXIT_INFRA, "%s", err.msg);
		goto out;
	}
	if ((rc = notes_load(&n, s.repo, s.ref, &err)) < 0) {
		rc = ci_fail(CMD, MG_EXIT_INFRA, "%s", err.msg);
		goto out;
	}
	keeper k = {0};
	rc = store_read_note_tests(&r, &s, &n, &target, keep_test, &k, &err);
	if (rc == 0)
		keeper_install(&k, r);
	else
		keeper_install(&k, NULL);
	if (rc == MG_ENOTFOUND) {
		rc = ci_fail(CMD, MG_EXIT_FAILED, "no memguard note on %s (%s) in %s",
		             rev ? rev : "HEAD", store_short(sha, &target), s.ref);
		goto out;
	}
	if (rc < 0) {
		rc = ci_fail(CMD, MG_EXIT_INFRA, "%s", err.msg);
		goto out;
	}
	git_oid_tostr(sha, sizeof(sha), &target);
	printf("commit %s", sha);
	if (r->branch)
		printf(" (%s%s)", r->branch, r->dirty ? ", dirty" : "");
	else if (r->dirty)
		printf(" (dirty)");
	printf("\n");
	fflush(stdout);
	if (adapters_render(r, "console", &err) < 0) {
		rc = ci_fail(CMD, MG_EXIT_INFRA, "%s", err.msg);
		goto out;
	}
	fflush(stdout);
	if (tests)
		print_tests(r);
	rc = MG_EXIT_OK;
out:
	report_free(r);
	notes_free(&n);
	store_close(&s);
	return rc;
}

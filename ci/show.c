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
			ci_fail(CMD, MG_EXIT_USAGE, "unknown option '%s'", argv[i]);
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
	rc = store_read_note(&r, &s, &n, &target, &err);
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

/*
 * test_report_merge.c - merging reports: counts, replaced shards, exit
 * codes, reruns, suspects, and parsing only the tests a merge keeps.
 */
#include "adapters.h"
#include "fixture.h"
#include "mg_test.h"
#include "report.h"
#include "test_report.h"
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

void test_merge_counts(void)
{
	report *a = node_report(1, 2, 3), *b = node_report(2, 2, 4);
	a->sha = report_strdup("abc");
	mg_err err = {{0}};
	CU_ASSERT_EQUAL_FATAL(report_merge(a, b, &err), 0);
	CU_ASSERT_EQUAL(a->nshards, 4);
	uint64_t pass = 0, fail = 0;
	for (size_t i = 0; i < a->nshards; i++) {
		pass += a->shards[i].counts[TEST_PASS];
		fail += a->shards[i].counts[TEST_FAIL];
	}
	CU_ASSERT_EQUAL(pass, 2 * 3 + 2 * 3);
	CU_ASSERT_EQUAL(fail, 2);
	CU_ASSERT_STRING_EQUAL(a->sha, "abc");
	CU_ASSERT(a->start_time == 1001);
	CU_ASSERT(a->wall == 20.0);
	CU_ASSERT_EQUAL(a->exit_code, 1);
	/* suspects are recomputed over both nodes: core/t0 ran in 4 shards */
	CU_ASSERT_FATAL(a->nsuspects > 0);
	CU_ASSERT_STRING_EQUAL(a->suspects[0].name, "core/t0");
	CU_ASSERT_EQUAL(a->suspects[0].runs, 4);
	CU_ASSERT_EQUAL(a->suspects[0].va_retained, 400);
	report_free(a);
	report_free(b);
}

void test_merge_replace(void)
{
	report *a = node_report(1, 2, 3), *b = node_report(1, 2, 5);
	mg_err err = {{0}};
	b->sha = report_strdup("def");
	CU_ASSERT_EQUAL_FATAL(report_merge(a, b, &err), 0);
	CU_ASSERT_EQUAL(a->nshards, 2);
	CU_ASSERT_EQUAL(a->shards[0].ntests, 5);
	CU_ASSERT_EQUAL(a->shards[1].counts[TEST_PASS], 5);
	CU_ASSERT_STRING_EQUAL(a->sha, "def");
	/* a different arch is a different group: b's x64 shard is added, and
	 * its one x86 shard replaces a's whole x86 group (two lanes) */
	free(b->shards[0].arch);
	b->shards[0].arch = report_strdup("x64");
	CU_ASSERT_EQUAL(report_merge(a, b, &err), 0);
	CU_ASSERT_EQUAL(a->nshards, 2);
	report_free(a);
	report_free(b);
}

typedef struct merge_view {
	const report *heads, *from;
} merge_view;

static int keep_unless_replaced(size_t i, void *ctx)
{
	const merge_view *v = ctx;
	return !report_merge_replaces(v->heads, v->from, i);
}

static int keep_no_tests(size_t i, void *ctx)
{
	(void)i;
	(void)ctx;
	return 0;
}

/* A note read for a merge (report_parse_some without the tests the merge
 * replaces) merges into the same document as the note read whole; a group
 * of a later run than from's is kept with its tests. */
void test_parse_some_merging(void)
{
	report *a = node_report(1, 2, 3), *b = node_report(2, 2, 4);
	mg_err err = {{0}};
	CU_ASSERT_EQUAL_FATAL(report_merge(a, b, &err), 0);
	for (int later = 0; later < 2; later++) {
		report *from = node_report(1, 2, 5);
		if (later) /* node 1's shards in a are from a later run: kept */
			for (size_t i = 0; i < from->nshards; i++)
				from->shards[i].start_time = -1;
		else
			for (size_t i = 0; i < from->nshards; i++)
				from->shards[i].start_time = 5000;
		size_t len = 0;
		char *doc = readback_mem(a, &len);
		report *heads = NULL, *part = NULL, *whole = NULL;
		CU_ASSERT_EQUAL_FATAL(
		    report_parse_some(&heads, doc, len, keep_no_tests, NULL, &err), 0);
		CU_ASSERT_EQUAL_FATAL(heads->nshards, 4);
		merge_view v = {heads, from};
		CU_ASSERT_EQUAL_FATAL(
		    report_parse_some(&part, doc, len, keep_unless_replaced, &v, &err), 0);
		CU_ASSERT_EQUAL_FATAL(report_parse(&whole, doc, len, &err), 0);
		size_t dropped = 0;
		for (size_t i = 0; i < part->nshards; i++) {
			CU_ASSERT_EQUAL(heads->shards[i].ntests, 0);
			int replaced = report_merge_replaces(heads, from, i);
			CU_ASSERT_EQUAL(replaced, !later && part->shards[i].node == 1);
			CU_ASSERT_EQUAL(part->shards[i].ntests,
			                replaced ? 0 : whole->shards[i].ntests);
			dropped += replaced;
		}
		CU_ASSERT_EQUAL(dropped, later ? 0 : 2);
		/* the same merge taking from's shards over (from read back: a
		 * second from to give away) */
		size_t lf = 0;
		char *df = readback_mem(from, &lf);
		report *taken = NULL, *given = NULL;
		CU_ASSERT_EQUAL_FATAL(
		    report_parse_some(&taken, doc, len, keep_unless_replaced, &v, &err), 0);
		CU_ASSERT_EQUAL_FATAL(report_parse(&given, df, lf, &err), 0);
		CU_ASSERT_EQUAL_FATAL(report_merge(part, from, &err), 0);
		CU_ASSERT_EQUAL_FATAL(report_merge(whole, from, &err), 0);
		CU_ASSERT_EQUAL_FATAL(report_merge_take(taken, given, &err), 0);
		for (size_t i = 0; i < given->nshards; i++) /* moved, not copied */
			CU_ASSERT_EQUAL(given->shards[i].ntests,
			                later ? from->shards[i].ntests : 0);
		size_t lp = 0, lw = 0, lt = 0;
		char *dp = readback_mem(part, &lp), *dw = readback_mem(whole, &lw),
		     *dt = readback_mem(taken, &lt);
		CU_ASSERT(lp == lw && memcmp(dp, dw, lp) == 0);
		CU_ASSERT(lt == lw && memcmp(dt, dw, lt) == 0);
		report_free(taken);
		report_free(given);
		free(df);
		free(dt);
		free(dp);
		free(dw);
		free(doc);
		report_free(heads);
		report_free(part);
		report_free(whole);
		report_free(from);
	}
	report_free(a);
	report_free(b);
}

/* The weaker containment holds for a merged run: a namespace, then the
 * reaper, then process groups; a node that did not say leaves it said. */
void test_merge_containment(void)
{
	static const struct {
		const char *a, *b, *merged;
	} rows[] = {{"pid-namespace", "reaper", "reaper"},
	            {"reaper", "pid-namespace", "reaper"},
	            {"reaper", "process-group", "process-group"},
	            {"process-group", "reaper", "process-group"},
	            {"user-namespace", "pid-namespace", "user-namespace"},
	            {NULL, "reaper", "reaper"},
	            {"reaper", NULL, "reaper"}};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		report *a = node_report(1, 2, 3), *b = node_report(2, 2, 3);
		mg_err err = {{0}};
		a->containment = rows[i].a ? report_strdup(rows[i].a) : NULL;
		b->containment = rows[i].b ? report_strdup(rows[i].b) : NULL;
		CU_ASSERT_EQUAL_FATAL(report_merge(a, b, &err), 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(a->containment);
		if (strcmp(a->containment, rows[i].merged))
			fprintf(stderr, "\n  %s + %s: %s (wanted %s)", rows[i].a ? rows[i].a : "-",
			        rows[i].b ? rows[i].b : "-", a->containment, rows[i].merged);
		CU_ASSERT_STRING_EQUAL(a->containment, rows[i].merged);
		report_free(a);
		report_free(b);
	}
}

/* Exit codes of nodes: a node that ran no test (5) is worse only than 0,
 * and beside a node that ran tests the merged run did run tests. */
void test_merge_exit_codes(void)
{
	static const struct {
		int a, b, merged;
	} rows[] = {{0, 0, 0}, {1, 0, 1}, {0, 3, 3}, {1, 3, 3}, {5, 1, 1},
	            {1, 5, 1}, {3, 5, 3}, {5, 0, 0}, {0, 5, 0}};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		report *a = node_report(1, 2, 3), *b = node_report(2, 2, 3);
		mg_err err = {{0}};
		a->exit_code = rows[i].a;
		b->exit_code = rows[i].b;
		CU_ASSERT_EQUAL_FATAL(report_merge(a, b, &err), 0);
		if (a->exit_code != rows[i].merged)
			fprintf(stderr, "\n  %d + %d: %d (wanted %d)", rows[i].a, rows[i].b,
			        a->exit_code, rows[i].merged);
		CU_ASSERT_EQUAL(a->exit_code, rows[i].merged);
		report_free(a);
		report_free(b);
	}
	/* no node ran a test: still 5 */
	report *a = report_new(), *b = report_new();
	mg_err err = {{0}};
	a->exit_code = b->exit_code = 5;
	CU_ASSERT_EQUAL_FATAL(report_merge(a, b, &err), 0);
	CU_ASSERT_EQUAL(a->exit_code, 5);
	report_free(a);
	report_free(b);
}

/* A re-run with fewer lanes leaves no stale lane behind; an older run
 * merged in later does not replace a newer one. The re-run's header is the
 * whole's: its commit state, limits, start and verdict (before: the
 * interrupted first run's exit 130, dirty flag and limits stayed), and the
 * older run merged in later changes none of it. */
void test_merge_rerun(void)
{
	report *old = node_report(1, 1, 3), *rerun = node_report(1, 1, 4);
	mg_err err = {{0}};
	report_remove_shard(rerun, 1); /* the re-run used one lane, not two */
	for (size_t i = 0; i < old->nshards; i++)
		old->shards[i].start_time = 1000;
	rerun->shards[0].start_time = 2000;
	old->exit_code = 130;
	old->interrupted = 1;
	old->dirty = 1;
	old->start_time = 1000;
	old->limits_soft = report_strdup("rss=1.00GiB");
	rerun->exit_code = 0;
	rerun->dirty = 0;
	rerun->start_time = 2000;
	rerun->limits_soft = report_strdup("rss=2.00GiB");
	CU_ASSERT_EQUAL_FATAL(report_merge(old, rerun, &err), 0);
	CU_ASSERT_EQUAL(old->nshards, 1);
	CU_ASSERT_EQUAL(old->shards[0].ntests, 4);
	CU_ASSERT_EQUAL(old->exit_code, 0);
	CU_ASSERT_EQUAL(old->interrupted, 0);
	CU_ASSERT_EQUAL(old->dirty, 0);
	CU_ASSERT(old->start_time == 2000);
	CU_ASSERT(old->limits_soft && !strcmp(old->limits_soft, "rss=2.00GiB"));

	report *older = node_report(1, 1, 3);
	for (size_t i = 0; i < older->nshards; i++)
		older->shards[i].start_time = 500;
	older->exit_code = 130;
	older->dirty = 1;
	CU_ASSERT_EQUAL_FATAL(report_merge(old, older, &err), 0);
	CU_ASSERT_EQUAL(old->nshards, 1);
	CU_ASSERT_EQUAL(old->shards[0].ntests, 4);
	CU_ASSERT_EQUAL(old->shards[0].start_time, 2000);
	CU_ASSERT_EQUAL(old->exit_code, 0);
	CU_ASSERT_EQUAL(old->dirty, 0);
	report_free(old);
	report_free(rerun);
	report_free(older);
}

/* A report with n leaking tests named PREFIX/0.. on its own node. */
static report *leaky_report(uint32_t node, const char *prefix, int n)
{
	report *r = report_new();
	report_shard *s = report_add_shard(r);
	s->node = node;
	s->arch = report_strdup("x64");
	s->suite = report_strdup(prefix);
	for (int i = 0; i < n; i++) {
		char name[64];
		report_test *t = report_shard_add_test(s);
		snprintf(name, sizeof(name), "%s/%d", prefix, i);
		t->name = report_strdup(name);
		t->va_delta = 1000 + i;
	}
	report_finish(r, REPORT_MAX_SUSPECTS);
	return r;
}

/* A merge keeps as many suspects as a run does: not the larger side's count
 * (3 + 3 leaking tests kept 3), not 10 (a run keeps 20). */
void test_merge_suspects(void)
{
	mg_err err = {{0}};
	report *a = leaky_report(1, "a", 3), *b = leaky_report(2, "b", 3);
	CU_ASSERT_EQUAL(a->nsuspects, 3);
	CU_ASSERT_EQUAL_FATAL(report_merge(a, b, &err), 0);
	CU_ASSERT_EQUAL(a->nsuspects, 6);
	report_free(a);
	report_free(b);
	a = leaky_report(1, "a", 15), b = leaky_report(2, "b", 15);
	CU_ASSERT_EQUAL(a->nsuspects, 15);
	CU_ASSERT_EQUAL_FATAL(report_merge(a, b, &err), 0);
	CU_ASSERT_EQUAL(a->nsuspects, REPORT_MAX_SUSPECTS);
	CU_ASSERT_EQUAL(a->totals.tests, 30);
	report_free(a);
	report_free(b);
	a = leaky_report(1, "a", 30);
	CU_ASSERT_EQUAL(a->nsuspects, REPORT_MAX_SUSPECTS);
	report_free(a);
}

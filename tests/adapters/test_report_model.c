/*
 * test_report_model.c - the model's derived facts (finish: totals,
 * suspects, saturation; failed states; the shard key) and its text
 * formatting (sizes, durations).
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

/* A shard as large as a big run's: its tests array grows past 1 MiB into
 * mg_bulk's huge pages (16,384 tests), and every test added stays. A merge
 * copies the shard (arrays of its own), one that takes it moves them, and
 * each is freed as what it is (a munmap'd block given to free(), or a
 * malloc'd one to munmap, would abort or leak). */
void test_many_tests(void)
{
	enum { N = 40000 };
	char name[32];
	report *r = report_new();
	report_shard *s = report_add_shard(r);
	s->suite = report_strdup("big");
	for (size_t i = 0; i < N; i++) {
		report_test *t = report_shard_add_test(s);
		CU_ASSERT_EQUAL(t->attempts, 1);
		CU_ASSERT_PTR_NULL(t->message);
		snprintf(name, sizeof(name), "big/t%zu", i);
		t->name = report_strdup(name);
		t->va_delta = (int64_t)i;
	}
	CU_ASSERT_EQUAL_FATAL(s->ntests, N);
	CU_ASSERT(s->tests_cap >= N);
	report *c = report_new(), *m = report_new();
	mg_err err;
	CU_ASSERT_EQUAL(report_merge(c, r, &err), 0);      /* a copy */
	CU_ASSERT_EQUAL(report_merge_take(m, r, &err), 0); /* a move */
	report_free(r); /* its shard was taken: m's arrays are the ones it built */
	const report_shard *cs = &c->shards[0], *ms = &m->shards[0];
	CU_ASSERT_EQUAL_FATAL(cs->ntests, N);
	CU_ASSERT_EQUAL_FATAL(ms->ntests, N);
	CU_ASSERT_PTR_NOT_EQUAL(cs->tests, ms->tests);
	int same = 1;
	for (size_t i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "big/t%zu", i);
		same = same && !strcmp(cs->tests[i].name, name) &&
		       !strcmp(ms->tests[i].name, name) && cs->tests[i].va_delta == (int64_t)i &&
		       ms->tests[i].va_delta == (int64_t)i;
	}
	CU_ASSERT(same);
	report_drop_tests(c);
	CU_ASSERT_PTR_NULL(c->shards[0].tests);
	CU_ASSERT_EQUAL(c->shards[0].tests_cap, 0);
	/* a dropped shard takes tests again */
	report_shard_add_test(&c->shards[0])->name = report_strdup("big/again");
	CU_ASSERT_EQUAL(c->shards[0].ntests, 1);
	report_free(c);
	report_free(m);
}

/* A hostile report's deltas do not wrap when summed. */
void test_finish_saturates(void)
{
	report *r = report_new();
	report_shard *s = report_add_shard(r);
	for (int i = 0; i < 2; i++) {
		report_test *t = report_shard_add_test(s);
		t->name = report_strdup("a/huge");
		t->va_delta = INT64_MAX;
		t->rss_delta = INT64_MIN;
	}
	report_finish(r, 10);
	CU_ASSERT_EQUAL_FATAL(r->nsuspects, 1);
	CU_ASSERT_EQUAL(r->suspects[0].va_retained, INT64_MAX);
	CU_ASSERT_EQUAL(r->suspects[0].rss_retained, INT64_MIN);
	report_free(r);
}

void test_finish_suspects(void)
{
	report *r = report_new();
	report_shard *s = report_add_shard(r);
	const char *names[] = {"a/leak", "a/fine", "a/leak", "a/limit", "a/shrink"};
	int64_t deltas[] = {100, 0, 50, -10, -5};
	test_state states[] = {TEST_PASS, TEST_PASS, TEST_FAIL, TEST_MEMLIMIT, TEST_PASS};
	for (int i = 0; i < 5; i++) {
		report_test *t = report_shard_add_test(s);
		t->name = report_strdup(names[i]);
		t->va_delta = deltas[i];
		t->state = states[i];
	}
	report_finish(r, 10);
	CU_ASSERT_EQUAL(s->counts[TEST_PASS], 3);
	CU_ASSERT_EQUAL(s->counts[TEST_FAIL], 1);
	CU_ASSERT_EQUAL(s->counts[TEST_MEMLIMIT], 1);
	CU_ASSERT_EQUAL_FATAL(r->nsuspects, 2);
	CU_ASSERT_STRING_EQUAL(r->suspects[0].name, "a/leak");
	CU_ASSERT_EQUAL(r->suspects[0].va_retained, 150);
	CU_ASSERT_EQUAL(r->suspects[0].grew, 2);
	CU_ASSERT_EQUAL(r->suspects[0].runs, 2);
	CU_ASSERT_STRING_EQUAL(r->suspects[1].name, "a/limit");
	CU_ASSERT(r->suspects[1].alone_over_hard);
	report_finish(r, 1);
	CU_ASSERT_EQUAL(r->nsuspects, 1);
	report_free(r);
}

/* The one definition of a failure, state by state. */
void test_state_failed(void)
{
	static const struct {
		test_state s;
		int failed;
	} want[] = {
	    {TEST_PASS, 0},    {TEST_FAIL, 1},     {TEST_SKIP, 0},  {TEST_CRASH, 1},
	    {TEST_TIMEOUT, 1}, {TEST_MEMLIMIT, 1}, {TEST_ERROR, 1}, {TEST_NOTRUN, 0},
	};
	CU_ASSERT_EQUAL(sizeof(want) / sizeof(want[0]), TEST_STATE_COUNT);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		if (report_state_failed(want[i].s) != want[i].failed)
			fprintf(stderr, "%s: failed should be %d\n", report_state_name(want[i].s),
			        want[i].failed);
		CU_ASSERT_EQUAL(report_state_failed(want[i].s), want[i].failed);
	}
}

/* report_finish sums the shards once; a loaded report has the same totals. */
void test_finish_totals(void)
{
	report *r = report_new();
	static const test_state states[] = {TEST_PASS,  TEST_PASS,    TEST_FAIL,
	                                    TEST_CRASH, TEST_TIMEOUT, TEST_MEMLIMIT,
	                                    TEST_ERROR, TEST_SKIP,    TEST_NOTRUN};
	for (uint32_t k = 0; k < 2; k++) {
		report_shard *s = report_add_shard(r);
		s->node = 1;
		s->index = k;
		s->arch = report_strdup("x64");
		s->suite = report_strdup("core");
		s->driver = report_strdup("native");
		s->command = report_strdup("./t");
		s->peak_va = k ? 300 : 700;
		s->peak_rss = k ? 90 : 40;
		s->recycles = 2 + k;
		s->kills = k;
		for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
			report_test *t = report_shard_add_test(s);
			t->name = report_strdup("core/t");
			t->state = states[i];
		}
	}
	report_finish(r, REPORT_MAX_SUSPECTS);
	const report_totals *t = &r->totals;
	CU_ASSERT_EQUAL(t->tests, 18);
	CU_ASSERT_EQUAL(t->counts[TEST_PASS], 4);
	CU_ASSERT_EQUAL(t->failed, 10);
	CU_ASSERT_EQUAL(t->other, 4);
	CU_ASSERT_EQUAL(t->peak_va, 700);
	CU_ASSERT_EQUAL(t->peak_rss, 90);
	CU_ASSERT_EQUAL(t->recycles, 5);
	CU_ASSERT_EQUAL(t->kills, 1);
	report_totals one = adapters_shard_totals(&r->shards[1]);
	CU_ASSERT_EQUAL(one.tests, 9);
	CU_ASSERT_EQUAL(one.failed, 5);
	CU_ASSERT_EQUAL(one.peak_va, 300);

	make_tmpdir();
	char path[512];
	path_in(path, sizeof(path), "r.json");
	mg_err err = {{0}};
	report *back = NULL;
	CU_ASSERT_EQUAL_FATAL(report_save(r, path, &err), 0);
	CU_ASSERT_EQUAL_FATAL(report_load(&back, path, &err), 0);
	CU_ASSERT_EQUAL(memcmp(&back->totals, &r->totals, sizeof(r->totals)), 0);
	report_free(back);
	cleanup_tmpdir();

	/* Sums saturate instead of wrapping. */
	r->shards[0].counts[TEST_FAIL] = UINT64_MAX;
	r->shards[0].recycles = UINT32_MAX;
	report_totals sat = {0};
	report_totals_add(&sat, &r->shards[0]);
	report_totals_add(&sat, &r->shards[1]);
	CU_ASSERT_EQUAL(sat.failed, UINT64_MAX);
	CU_ASSERT_EQUAL(sat.tests, UINT64_MAX);
	CU_ASSERT_EQUAL(sat.recycles, (uint64_t)UINT32_MAX + 3);
	report_free(r);
}

/* The shard key (node, arch, suite, index): one order, two groupings. */
void test_shard_key(void)
{
	report_shard a = {.node = 1, .index = 0, .arch = "x64", .suite = "core"};
	report_shard b = a, c = a, d = a, e = a;
	b.index = 1;
	c.node = 2;
	d.arch = "x86";
	e.suite = NULL; /* as "" */
	CU_ASSERT_EQUAL(report_shard_cmp(&a, &a), 0);
	CU_ASSERT(report_shard_cmp(&a, &b) < 0 && report_shard_cmp(&b, &a) > 0);
	CU_ASSERT(report_shard_cmp(&b, &c) < 0); /* node before index */
	CU_ASSERT(report_shard_cmp(&c, &d) > 0); /* node before arch */
	CU_ASSERT(report_shard_cmp(&e, &a) < 0);
	CU_ASSERT(report_shard_same_run(&a, &b));
	CU_ASSERT(!report_shard_same_run(&a, &c));
	CU_ASSERT(!report_shard_same_run(&a, &d));
	CU_ASSERT(report_shard_same_suite(&a, &c));
	CU_ASSERT(!report_shard_same_suite(&a, &d));
	CU_ASSERT(!report_shard_same_suite(&a, &e));
}

static void expect_size(uint64_t bytes, const char *want)
{
	char buf[32];
	report_format_size(buf, sizeof(buf), bytes);
	if (strcmp(buf, want) != 0)
		fprintf(stderr, "%llu: '%s' != '%s'\n", (unsigned long long)bytes, buf, want);
	CU_ASSERT_STRING_EQUAL(buf, want);
}

void test_format_size(void)
{
	expect_size(0, "0 B");
	expect_size(12, "12 B");
	expect_size(1023, "1023 B");
	expect_size(4096, "4.0 KiB");
	expect_size(1536, "1.5 KiB");
	expect_size(222298112, "212 MiB");
	expect_size(3747563520ull, "3.49 GiB");
	expect_size(3758096384ull, "3.50 GiB");
	expect_size(10ull << 20, "10.0 MiB");
	expect_size((1ull << 30) - 1, "1.00 GiB");
	expect_size(UINT64_MAX, "16.0 EiB");
	/* The signed form, shared by show and compare. */
	char buf[32];
	report_format_size_signed(buf, sizeof(buf), -222298112);
	CU_ASSERT_STRING_EQUAL(buf, "-212 MiB");
	report_format_size_signed(buf, sizeof(buf), 4096);
	CU_ASSERT_STRING_EQUAL(buf, "4.0 KiB");
	report_format_size_signed(buf, sizeof(buf), INT64_MIN);
	CU_ASSERT_STRING_EQUAL(buf, "-8.00 EiB");
}

static void expect_duration(double s, const char *want)
{
	char buf[32];
	report_format_duration(buf, sizeof(buf), s);
	if (strcmp(buf, want) != 0)
		fprintf(stderr, "%g: '%s' != '%s'\n", s, buf, want);
	CU_ASSERT_STRING_EQUAL(buf, want);
}

void test_format_duration(void)
{
	expect_duration(0.85, "850ms");
	expect_duration(0, "0ms");
	expect_duration(12.34, "12.3s");
	expect_duration(252, "4m12s");
	expect_duration(3720, "1h02m");
	expect_duration(59.99, "1m00s");
	expect_duration(-1, "-");
}

/*
 * test_gate.c - compare as a gate that fires only on real change (issue
 * 23, item 4): shards matched by (node, arch, suite), never by lane index;
 * a process-per-test driver judged by its tests' peaks, never memguard's
 * shim's; the band of each figure over the base branch's notes
 * (--history N) in a real git repository; the tests that failed near the
 * memory ceiling listed.
 */
#include "adapters.h"
#include "ci.h"
#include "ci_int.h"
#include "mg_test.h"
#include "test_ci.h"
#include <git2.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A two-lane run of suite s saved as name: lane 0's peak VA p0, lane 1's p1
 * (each lane's tests are mk_report's three, renamed per lane). */
static const char *two_lanes(const char *dir, const char *name, uint64_t p0, uint64_t p1)
{
	report *r = mk_report(1, "x64", "s", 0, p0, 100 * MIB, 0, MIB);
	const char *path = save_report(r, dir, name);
	json_t *j = json_load_file(path, 0, NULL);
	CU_ASSERT_FATAL(j != NULL);
	json_t *shards = json_object_get(j, "shards");
	json_t *lane1 = json_deep_copy(json_array_get(shards, 0));
	json_object_set_new(lane1, "index", json_integer(1));
	json_object_set_new(lane1, "peak_va", json_integer((json_int_t)p1));
	size_t i;
	json_t *t;
	json_array_foreach(json_object_get(lane1, "tests"), i, t)
	{
		char n[32];
		snprintf(n, sizeof(n), "s/u%zu", i);
		json_object_set_new(t, "n", json_string(n));
	}
	json_array_append_new(shards, lane1);
	CU_ASSERT_FATAL(json_dump_file(j, path, 0) == 0);
	json_decref(j);
	return path;
}

/* The big test ran in lane 0 on the base and in lane 1 on head: the same
 * run. Matched by lane index that was +100% on lane 1 (exit 4). */
void gate_lanes_by_key(void)
{
	const char *dir = setup();
	const char *a = two_lanes(dir, "a.json", 2 * GIB, GIB);
	const char *b = two_lanes(dir, "b.json", GIB, 2 * GIB);
	run *r = run_in(dir, "compare", a, b, NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "x64 s node 1 "));
	CU_ASSERT_PTR_NULL(strstr(r->out, "#1"));
	/* a lane's peak that rose is shown, never judged with two lanes */
	const char *c = two_lanes(dir, "c.json", GIB, 3 * GIB);
	r = run_in(dir, "compare", a, c, NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "lanes: not judged"));
	cleanup();
}

/* A ctest run: the shard's peak is memguard's shim's (68.7 MiB, then
 * 100 MiB: not the tests'), its tests peak at 3.4 and 3.6 MiB. */
static const char *ctest_run(const char *dir, const char *name, uint64_t shim, uint64_t t1)
{
	report *r = mk_report(1, "x64", "ct", 0, shim, 12 * MIB, 0, 0);
	report_shard *s = &r->shards[0];
	free(s->driver);
	s->driver = report_strdup("ctest");
	const uint64_t va[3] = {3400 * 1024, t1, 3600 * 1024};
	for (size_t i = 0; i < s->ntests; i++) {
		s->tests[i].va_after = va[i];
		s->tests[i].rss_after = MIB;
		s->tests[i].va_delta = s->tests[i].rss_delta = 0;
	}
	return save_report(r, dir, name);
}

void gate_process_peaks(void)
{
	const char *dir = setup();
	const char *a = ctest_run(dir, "a.json", 68 * MIB + 700 * 1024, 3500 * 1024);
	const char *b = ctest_run(dir, "b.json", 100 * MIB, 3500 * 1024);
	run *r = run_in(dir, "compare", a, b, NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_PTR_NULL(strstr(r->out, "68.7 MiB"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "tests' peak VA"));
	/* a test growing from 3.4 to 43 MiB fails the gate */
	const char *c = ctest_run(dir, "c.json", 68 * MIB + 700 * 1024, 43 * MIB);
	r = run_in(dir, "compare", a, c, NULL);
	CU_ASSERT_EQUAL(r->rc, 4);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "ct/t1 peak VA: +"));
	cleanup();
}

/*
 * Five noted commits on the base line whose test ct/t0 kept 104, 112, 100,
 * 108 and 100 MiB (the last is BASE), HEAD's 110 MiB: +10 MiB over BASE
 * fails the default gate, within the band over 5 commits it passes; 120 MiB
 * is over the band's top by more than the limit.
 */
void gate_history_band(void)
{
	const char *dir = setup();
	const char *rd = path_in(dir, "repo");
	git_repository *repo = mk_repo(rd);
	git_oid c[7];
	commits(repo, 7, c);
	static const int leak[5] = {104, 112, 100, 108, 100};
	for (int i = 0; i < 5; i++) {
		char name[32], rev[16];
		snprintf(name, sizeof(name), "b%d.json", i);
		snprintf(rev, sizeof(rev), "HEAD~%d", 6 - i);
		const char *p = save_report(
		    mk_report(1, "x64", "s", 0, GIB, 100 * MIB, 0, (int64_t)leak[i] * MIB), dir,
		    name);
		CU_ASSERT_EQUAL(run_in(rd, "note", "--commit", rev, p, NULL)->rc, 0);
	}
	const char *h =
	    save_report(mk_report(1, "x64", "s", 0, GIB, 100 * MIB, 0, 110 * MIB), dir, "h.json");
	CU_ASSERT_EQUAL(run_in(rd, "note", "--commit", "HEAD~1", h, NULL)->rc, 0);
	const char *h2 =
	    save_report(mk_report(1, "x64", "s", 0, GIB, 100 * MIB, 0, 120 * MIB), dir, "h2.json");
	CU_ASSERT_EQUAL(run_in(rd, "note", "--commit", "HEAD", h2, NULL)->rc, 0);
	run *r = run_in(rd, "compare", "HEAD~2", "HEAD~1", NULL);
	CU_ASSERT_EQUAL(r->rc, 4);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "s/t0 retained VA: +10.0 MiB > 4.00 MiB"));
	r = run_in(rd, "compare", "--history", "5", "HEAD~2", "HEAD~1", NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "100 MiB..112 MiB (5)"));
	r = run_in(rd, "compare", "--history", "5", "--format", "markdown", "HEAD~2", "HEAD~1",
	           NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "| base band (commits) |"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "over the 5 noted base commits"));
	/* 120 MiB: 8 MiB over the band's top */
	r = run_in(rd, "compare", "--history", "5", "HEAD~2", "HEAD", NULL);
	CU_ASSERT_EQUAL(r->rc, 4);
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(r->out, "s/t0 retained VA: +8.00 MiB > 4.00 MiB over the band"));
	/* a band of fewer commits than asked: what the line has */
	r = run_in(rd, "compare", "--history", "50", "--format", "json", "HEAD~2", "HEAD~1", NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	json_t *j = json_loads(r->out, 0, NULL);
	CU_ASSERT_FATAL(j != NULL);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(j, "history_commits")), 5);
	json_decref(j);
	/* bad counts, and a file BASE, are usage errors naming the token */
	r = run_in(rd, "compare", "--history", "0x5", "HEAD~2", "HEAD~1", NULL);
	CU_ASSERT_EQUAL(r->rc, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->err, "'0x5'"));
	CU_ASSERT_EQUAL(run_in(rd, "compare", "--history", "5", h, h2, NULL)->rc, 2);
	git_repository_free(repo);
	cleanup();
}

/* A test that passed only alone in a fresh host is named by compare. */
void gate_near_ceiling(void)
{
	const char *dir = setup();
	const char *a = save_report(mk_report(1, "x86", "s", 0, GIB, MIB, 0, 0), dir, "a.json");
	report *hr = mk_report(1, "x86", "s", 0, GIB, MIB, 0, 0);
	hr->shards[0].tests[1].attempts = 2;
	hr->shards[0].tests[1].near_ceiling = 1;
	const char *b = save_report(hr, dir, "b.json");
	run *r = run_in(dir, "compare", a, b, NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(r->out, "1 test failed near the memory ceiling in head and ran again alone"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "  s/t1\n"));
	r = run_in(dir, "compare", "--format", "json", a, b, NULL);
	json_t *j = json_loads(r->out, 0, NULL);
	CU_ASSERT_FATAL(j != NULL);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(j, "near_ceiling_count")), 1);
	json_decref(j);
	cleanup();
}

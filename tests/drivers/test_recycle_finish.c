/*
 * test_recycle_finish.c - a recycled GoogleTest or Catch2 program finishes
 * as its framework would: the programs of test_fidelity.c (failures outside
 * their test bodies) run under the real memguard with a recycle at every
 * test boundary (--recycle-at va=1M: each program is over it, so the probe
 * stops every generation after one test). What the framework does after a
 * generation's last test (a suite's TearDownTestSuite, a name run again, a
 * LeakSanitizer check, the global environment's TearDown and the exit
 * status) still reaches the report and the exit code, once, as in the
 * direct run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mg_run.h"

#define OUTSIDE(n) GTEST_OUTSIDE_DIR "/gtest_outside" #n

/* A failed TearDownTestSuite, the stop at the suite's last test: the
 * stopped program runs the tear-down before it ends. */
static void recycle_teardown_suite(void)
{
	CU_ASSERT_EQUAL(mg_direct_status(OUTSIDE(1)), 1);
	outcome o;
	mg_driver_run(&o, "gtest", OUTSIDE(1), "1", "va=1M", NULL);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT(shard_sum(o.report, "recycles") >= 2);
	expect_state(o.report, "Suite.First", "pass");
	expect_state(o.report, "Suite.Second", "pass");
	expect_state(o.report, "Other.Passes", "pass");
	expect_state(o.report, "Suite.TearDownTestSuite", "fail");
	expect_message(o.report, "Suite.TearDownTestSuite", "the suite's tear-down failed");
	CU_ASSERT_EQUAL(count(o.report, "fail"), 1);
	done(&o);
}

/* A global environment whose TearDown fails: it runs once a process, and
 * only the last generation gets there (the others end at their next test),
 * so the direct run's one failure is one entry. Its SetUp runs in every
 * generation (a failure there would be one entry by name too). */
static void recycle_global_env(void)
{
	CU_ASSERT_EQUAL(mg_direct_status(OUTSIDE(3)), 1);
	outcome o;
	mg_driver_run(&o, "gtest", OUTSIDE(3), "1", "va=1M", NULL);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT(shard_sum(o.report, "recycles") >= 2);
	expect_state(o.report, "Suite.First", "pass");
	expect_state(o.report, "Other.Passes", "pass");
	expect_state(o.report, "<global environment>", "fail");
	expect_message(o.report, "<global environment>",
	               "the global environment's tear-down failed");
	CU_ASSERT_EQUAL(count(o.report, "fail"), 1);
	done(&o);
}

/* Two fixtures of one name: GoogleTest runs Fixture.Same twice and fails
 * the second run. A stop after the first does not keep the second from
 * running (it is the framework's, in the same suite, not a further test). */
static void recycle_same_fixture(void)
{
	CU_ASSERT_EQUAL(mg_direct_status(OUTSIDE(4)), 1);
	outcome o;
	mg_driver_run(&o, "gtest", OUTSIDE(4), "1", "va=1M", NULL);
	CU_ASSERT(exited_with(&o, 1));
	expect_state(o.report, "Fixture.Same", "pass");
	expect_state(o.report, "Fixture.Same#2", "fail");
	expect_message(o.report, "Fixture.Same#2", "two different test fixture classes");
	expect_state(o.report, "Other.Passes", "pass");
	CU_ASSERT_EQUAL(count(o.report, "fail"), 1);
	done(&o);
}

/* An ASan build whose second test leaks: the generation that ran it is not
 * the last, and it ends where its next test would start, with
 * LeakSanitizer's check there: an error entry with its summary, exit 3.
 * The check's report is no later generation's test's output (before: a
 * test sent to that program but run in the next one got it; now the last
 * test that program ran may hold it, as a v1 host's farewell). */
static void recycle_asan_leak(void)
{
	CU_ASSERT_EQUAL(mg_direct_status(OUTSIDE(5)), 1);
	outcome o;
	mg_driver_run(&o, "gtest", OUTSIDE(5), "1", "va=1M", NULL);
	CU_ASSERT(exited_with(&o, 3));
	CU_ASSERT(shard_sum(o.report, "recycles") >= 2);
	expect_state(o.report, "Suite.First", "pass");
	expect_state(o.report, "Suite.Second", "pass");
	expect_state(o.report, "Other.Passes", "pass");
	expect_state(o.report, "<program exit>", "error");
	expect_message(o.report, "<program exit>", "4096 byte(s) leaked");
	CU_ASSERT_EQUAL(count(o.report, "error"), 1);
	json_t *t = find_test(o.report, "Other.Passes");
	const char *out = t ? json_string_value(json_object_get(t, "output")) : NULL;
	if (out && strstr(out, "LeakSanitizer"))
		fprintf(stderr, "Other.Passes's output holds the leak report: %s\n", out);
	CU_ASSERT(!out || !strstr(out, "LeakSanitizer"));
	done(&o);
}

/* A TearDownTestSuite that exits 3 after a stop at the suite's last test:
 * the program's exit is judged, exit 3 as directly (Other.Passes, which the
 * direct run never reaches, runs in the next generation here). */
static void recycle_exit_between(void)
{
	CU_ASSERT_EQUAL(mg_direct_status(OUTSIDE(6)), 3);
	outcome o;
	mg_driver_run(&o, "gtest", OUTSIDE(6), "1", "va=1M", NULL);
	CU_ASSERT(exited_with(&o, 3)); /* an error entry: exit 3, as every error */
	expect_state(o.report, "Suite.First", "pass");
	expect_state(o.report, "Suite.Second", "pass");
	expect_state(o.report, "<program exit>", "error");
	expect_message(o.report, "<program exit>", "exited with status 3");
	done(&o);
}

/* The generations the runner recycled for RSS ("rss 53.1 MiB >= recycle
 * 32.0 MiB"): its verdict on the host's tree, not the probe's. */
static long rss_recycles(json_t *report)
{
	long n = 0;
	size_t i, g;
	json_t *sh, *gen;
	json_array_foreach(json_object_get(report, "shards"), i, sh)
	    json_array_foreach(json_object_get(sh, "generations"), g, gen)
	{
		const char *why = json_string_value(json_object_get(gen, "reason"));
		n += why && !strncmp(why, "rss ", 4) && strstr(why, ">= recycle 32.0 MiB");
	}
	return n;
}

/* A recycle the runner decides itself (the host's tree over the rss
 * limit: a helper process of the suite's fixture holds 48 MiB, the
 * program's own RSS is under the limit, so its probe never stops it): the
 * program is asked at quit to end at its next test, and first finishes
 * the suite, whose TearDownTestSuite fails, as in the direct run. Before,
 * it was killed at its next boundary and the run passed. */
static void recycle_runner_rss(void)
{
	CU_ASSERT_EQUAL(mg_direct_status(OUTSIDE(7)), 1);
	outcome o;
	mg_driver_run(&o, "gtest", OUTSIDE(7), "1", "rss=32M", NULL);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT(rss_recycles(o.report) >= 1);
	expect_state(o.report, "Suite.First", "pass");
	expect_state(o.report, "Suite.Second", "pass");
	expect_state(o.report, "Other.Passes", "pass");
	expect_state(o.report, "Suite.TearDownTestSuite", "fail");
	expect_message(o.report, "Suite.TearDownTestSuite", "the suite's tear-down failed");
	CU_ASSERT_EQUAL(count(o.report, "fail"), 1);
	done(&o);
}

/* A stopped program's finish that takes longer than the old 5 s quit
 * deadline (a TearDownTestSuite that waits 6 s, then fails): the suite's
 * own time, waited for; its failure is the run's, as directly. */
static void recycle_slow_finish(void)
{
	CU_ASSERT_EQUAL(mg_direct_status(OUTSIDE(8)), 1);
	outcome o;
	mg_driver_run(&o, "gtest", OUTSIDE(8), "1", "va=1M", ENV("MG_TEARDOWN_WAIT=6"));
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT(shard_sum(o.report, "recycles") >= 2);
	expect_state(o.report, "Suite.First", "pass");
	expect_state(o.report, "Suite.Second", "pass");
	expect_state(o.report, "Other.Passes", "pass");
	expect_state(o.report, "Suite.TearDownTestSuite", "fail");
	CU_ASSERT_EQUAL(count(o.report, "fail"), 1);
	CU_ASSERT_EQUAL(count(o.report, "timeout"), 0);
	done(&o);
}

/* A hung finish (a TearDownTestSuite that never returns) does not hang the
 * run: the --no-progress rule ends it as it ends a test, and the lost
 * finish is an entry of its own, `<program exit>` timeout, exit 1 (the
 * direct run would hang its job: never green). */
static void recycle_hung_finish(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "1", "--driver", "gtest", "--recycle-at", "va=1M", "--no-progress",
	        "1s", "--report", "report.json", "--", OUTSIDE(8)),
	   ENV("MG_TEARDOWN_WAIT=-1"), 0);
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT(exited_with(&o, 1));
	expect_state(o.report, "Suite.First", "pass");
	expect_state(o.report, "Suite.Second", "pass");
	expect_state(o.report, "Other.Passes", "pass");
	expect_state(o.report, "<program exit>", "timeout");
	expect_message(o.report, "<program exit>", "after its last test (--no-progress)");
	done(&o);
}

/* A generation that leaks and fails nothing, another that fails: the
 * direct run is one program, whose failure explains its exit (status 1,
 * LeakSanitizer's summary printed); recycled, the run exits 1 too, never 3
 * (the leak is kept, a `fail` entry). */
static void recycle_leak_then_fail(void)
{
	CU_ASSERT_EQUAL(mg_direct_status(OUTSIDE(9)), 1);
	outcome o;
	mg_driver_run(&o, "gtest", OUTSIDE(9), "1", "va=1M", NULL);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT(shard_sum(o.report, "recycles") >= 2);
	expect_state(o.report, "Suite.Second", "pass");
	expect_state(o.report, "Other.Fails", "fail");
	expect_state(o.report, "<program exit>", "fail");
	expect_message(o.report, "<program exit>", "4096 byte(s) leaked");
	CU_ASSERT_EQUAL(count(o.report, "error"), 0);
	done(&o);
}

#ifdef CATCH2_LEAKS
/* Catch2 with a recycle at every boundary: every test case runs once, in
 * order, and the run's verdict is the program's (a stopped generation
 * ends at its next test case, the last one finishes). */
static void recycle_catch2(void)
{
	int direct = mg_direct_status(CATCH2_LEAKS);
	outcome o;
	mg_driver_run(&o, "catch2", CATCH2_LEAKS, "1", "va=1M", NULL);
	CU_ASSERT(exited_with(&o, direct ? 1 : 0));
	CU_ASSERT(shard_sum(o.report, "recycles") >= 1);
	CU_ASSERT_EQUAL(count(o.report, "error"), 0);
	CU_ASSERT_EQUAL(count(o.report, "skip"), 0);
	done(&o);
}
#endif

static const mg_case cases[] = {
    {"recycle_teardown_suite", recycle_teardown_suite},
    {"recycle_global_env", recycle_global_env},
    {"recycle_same_fixture", recycle_same_fixture},
    {"recycle_asan_leak", recycle_asan_leak},
    {"recycle_exit_between", recycle_exit_between},
    {"recycle_runner_rss", recycle_runner_rss},
    {"recycle_slow_finish", recycle_slow_finish},
    {"recycle_hung_finish", recycle_hung_finish},
    {"recycle_leak_then_fail", recycle_leak_then_fail},
#ifdef CATCH2_LEAKS
    {"recycle_catch2", recycle_catch2},
#endif
};

MG_TEST_MAIN("drivers_recycle_finish", cases)

/*
 * test_failfast.c - the user's fail-fast is the run's, not each program's:
 * Catch2's -x N and GoogleTest's --gtest_fail_fast (and GTEST_FAIL_FAST)
 * under the real memguard with a recycle at every test (--recycle-at
 * va=1M: every generation runs one test) in one lane and in two. The
 * direct run stops after the N-th failure; before, each generation and
 * each lane counted its own, so every test ran (a failure per test where
 * all fail). Now the run counts in the order it records results: the tests
 * not run are skip naming the option, the exit is 1 as every failing run's.
 * In two lanes a test another lane is running when the limit is reached
 * still ends as it does (README: a failure more per other lane at most).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mg_run.h"

/* memguard run -j lanes --recycle-at va=1M --driver driver -- prog a... */
static void run(outcome *o, const char *lanes, const char *driver, const char *prog, const char *a1,
                const char *a2, const char *a3, const char *const *env)
{
	const char *argv[20] = {MEMGUARD_BIN,   "run",         "-j",       lanes,
	                        "--recycle-at", "va=1M",       "--driver", driver,
	                        "--report",     "report.json", "--",       prog};
	int k = 12;
	if (a1)
		argv[k++] = a1;
	if (a2)
		argv[k++] = a2;
	if (a3)
		argv[k++] = a3;
	argv[k] = NULL;
	mg(o, argv, env, 0);
	CU_ASSERT_FATAL(o->report != NULL);
}

/* Every test of names is fail or skip (skip naming why), at least min and
 * at most max of them fail. */
static void expect_fail_or_skip(json_t *report, const char *const *names, size_t n, long min,
                                long max, const char *why)
{
	long fails = 0;
	for (size_t i = 0; i < n; i++) {
		const char *st = state_of(report, names[i]);
		if (!strcmp(st, "fail")) {
			fails++;
			continue;
		}
		expect_state(report, names[i], "skip");
		expect_message(report, names[i], why);
	}
	if (fails < min || fails > max)
		fprintf(stderr, "%ld failures, wanted %ld to %ld\n", fails, min, max);
	CU_ASSERT(fails >= min && fails <= max);
	CU_ASSERT_EQUAL(count(report, "fail"), fails);
	CU_ASSERT_EQUAL(count(report, "skip"), (json_int_t)n - fails);
	CU_ASSERT_EQUAL(count(report, "pass"), 0);
	CU_ASSERT_EQUAL(count(report, "error"), 0);
}

#ifdef CATCH2_FAILFAST
/* Catch2 -x 2 in one lane, a generation a test: as the direct run, which
 * runs a to d and stops (exit 2, its failed assertions); e was run by its
 * own generation, which had seen no failure. */
static void failfast_catch2_generations(void)
{
	CU_ASSERT_EQUAL(
	    mg_direct_argv(CATCH2_FAILFAST, (const char *[]){"-x", "2", "[mixed]", NULL}, NULL), 2);
	outcome o;
	run(&o, "1", "catch2", CATCH2_FAILFAST, "-x", "2", "[mixed]", NULL);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT(shard_sum(o.report, "recycles") >= 3);
	expect_state(o.report, "a passes", "pass");
	expect_state(o.report, "b fails", "fail");
	expect_state(o.report, "c passes", "pass");
	expect_state(o.report, "d fails", "fail");
	expect_state(o.report, "e passes", "skip");
	expect_message(o.report, "e passes",
	               "not run: Catch2 aborted the run after its failures, as -x 2 asks");
	CU_ASSERT_EQUAL(count(o.report, "fail"), 2);
	CU_ASSERT_EQUAL(count(o.report, "skip"), 1);
	CU_ASSERT_EQUAL(count(o.report, "error"), 0);
	done(&o);
}

#endif

/* --gtest_fail_fast (and GTEST_FAIL_FAST=1) in one lane, a generation a
 * test: GoogleTest stops after B, reporting C, D and E skipped (exit 1). */
static void failfast_gtest_generations(void)
{
	for (int env = 0; env < 2; env++) {
		const char *var = env ? "GTEST_FAIL_FAST=1" : NULL;
		const char *flag = env ? NULL : "--gtest_fail_fast";
		CU_ASSERT_EQUAL(
		    mg_direct_argv(GTEST_FAILFAST,
		                   (const char *[]){"--gtest_filter=Mixed.*", flag, NULL}, var),
		    1);
		outcome o;
		run(&o, "1", "gtest", GTEST_FAILFAST, "--gtest_filter=Mixed.*", flag, NULL,
		    env ? (const char *[]){var, NULL} : NULL);
		CU_ASSERT(exited_with(&o, 1));
		CU_ASSERT(shard_sum(o.report, "recycles") >= 1);
		expect_state(o.report, "Mixed.A", "pass");
		expect_state(o.report, "Mixed.B", "fail");
		const char *rest[] = {"Mixed.C", "Mixed.D", "Mixed.E"};
		for (int i = 0; i < 3; i++) {
			expect_state(o.report, rest[i], "skip");
			expect_message(
			    o.report, rest[i],
			    env ? "stopped the run after a failure, as GTEST_FAIL_FAST=1 asks"
			        : "stopped the run after a failure, as --gtest_fail_fast asks");
		}
		CU_ASSERT_EQUAL(count(o.report, "fail"), 1);
		CU_ASSERT_EQUAL(count(o.report, "skip"), 3);
		CU_ASSERT_EQUAL(count(o.report, "error"), 0);
		done(&o);
	}
}

#ifdef CATCH2_FAILFAST
/* Catch2 -x 2 in two lanes, every test failing: the direct run fails two
 * and runs no more; here two, or three when the other lane was running a
 * test that then failed, and the rest skip (before: all eight failed). */
static void failfast_catch2_lanes(void)
{
	static const char *const names[] = {"f1 fails", "f2 fails", "f3 fails", "f4 fails",
	                                    "f5 fails", "f6 fails", "f7 fails", "f8 fails"};
	CU_ASSERT_EQUAL(
	    mg_direct_argv(CATCH2_FAILFAST, (const char *[]){"-x", "2", "[allfail]", NULL}, NULL),
	    2);
	outcome o;
	run(&o, "2", "catch2", CATCH2_FAILFAST, "-x", "2", "[allfail]", NULL);
	CU_ASSERT(exited_with(&o, 1));
	expect_fail_or_skip(o.report, names, 8, 2, 3,
	                    "aborted the run after its failures, as -x 2 asks");
	done(&o);
}

#endif

#ifdef CATCH2_FAILFAST
/* Catch2 -x 3 in one lane, two tests a program (--pipeline 2): the second
 * program is given what the run has left (--abortx 1), so Catch2 itself
 * stops after f3, as the direct run does (before: each program counted to
 * 3 of its own and all eight failed). */
static void failfast_catch2_batches(void)
{
	static const char *const names[] = {"f4 fails", "f5 fails", "f6 fails", "f7 fails",
	                                    "f8 fails"};
	CU_ASSERT_EQUAL(
	    mg_direct_argv(CATCH2_FAILFAST, (const char *[]){"-x", "3", "[allfail]", NULL}, NULL),
	    3);
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "1", "--pipeline", "2", "--driver", "catch2", "--report",
	        "report.json", "--", CATCH2_FAILFAST, "-x", "3", "[allfail]"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	expect_state(o.report, "f1 fails", "fail");
	expect_state(o.report, "f2 fails", "fail");
	expect_state(o.report, "f3 fails", "fail");
	for (size_t i = 0; i < 5; i++) {
		expect_state(o.report, names[i], "skip");
		expect_message(o.report, names[i],
		               "aborted the run after its failures, as -x 3 asks");
	}
	CU_ASSERT_EQUAL(count(o.report, "fail"), 3);
	CU_ASSERT_EQUAL(count(o.report, "error"), 0);
	done(&o);
}
#endif

/* --gtest_fail_fast in two lanes, every test failing: one failure (two
 * when the other lane's running test failed too), the rest skip. */
static void failfast_gtest_lanes(void)
{
	static const char *const names[] = {"AllFail.F1", "AllFail.F2", "AllFail.F3", "AllFail.F4",
	                                    "AllFail.F5", "AllFail.F6", "AllFail.F7", "AllFail.F8"};
	CU_ASSERT_EQUAL(
	    mg_direct_argv(GTEST_FAILFAST,
	                   (const char *[]){"--gtest_filter=AllFail.*", "--gtest_fail_fast", NULL},
	                   NULL),
	    1);
	outcome o;
	run(&o, "2", "gtest", GTEST_FAILFAST, "--gtest_filter=AllFail.*", "--gtest_fail_fast", NULL,
	    NULL);
	CU_ASSERT(exited_with(&o, 1));
	expect_fail_or_skip(o.report, names, 8, 1, 2, "as --gtest_fail_fast asks");
	done(&o);
}

static const mg_case cases[] = {
    {"failfast_gtest_generations", failfast_gtest_generations},
    {"failfast_gtest_lanes", failfast_gtest_lanes},
#ifdef CATCH2_FAILFAST
    {"failfast_catch2_generations", failfast_catch2_generations},
    {"failfast_catch2_lanes", failfast_catch2_lanes},
    {"failfast_catch2_batches", failfast_catch2_batches},
#endif
};

MG_TEST_MAIN("drivers_failfast", cases)

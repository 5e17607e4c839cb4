/*
 * test_midexit.c - a GoogleTest program whose test exits (gtest_exits): the
 * test is a fail naming the exit, and the tests after it run in a fresh
 * program, as after a crash: their own states, and the run's exit code is
 * the direct run's (1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mg_run.h"

/* Before: the tests after the exit were errors "GoogleTest did not run
 * it: the program exited with status 1 before it", and the run exited 3
 * (infrastructure) where the program run directly exits 1. */
static void gtest_exit_mid_test(void)
{
	CU_ASSERT_EQUAL(mg_direct_status(GTEST_EXITS), 1);
	outcome o;
	mg_driver_run(&o, "gtest", GTEST_EXITS, "1", NULL, NULL);
	CU_ASSERT(exited_with(&o, 1));
	expect_state(o.report, "Exits.First", "pass");
	expect_state(o.report, "Exits.Leaves", "fail");
	const char *m = message_of(o.report, "Exits.Leaves");
	CU_ASSERT(m && strstr(m, "exited with status 1 during the test"));
	expect_state(o.report, "Exits.After", "pass");
	expect_state(o.report, "Exits.FailsAfter", "fail");
	CU_ASSERT_EQUAL(count(o.report, "error"), 0);
	done(&o);
}

/* exit(0) mid-test: directly the run passes (exit 0), so that test is a
 * pass, never harsher; its output says how it ended. The tests after it
 * run in a fresh program, as after exit(1). Before: a fail "exited with
 * status 0 during the test", and the run exited 1. */
static void gtest_exit0_mid_test(void)
{
	setenv("MG_EXITS_STATUS", "0", 1);
	CU_ASSERT_EQUAL(mg_direct_status(GTEST_EXITS), 0);
	outcome o;
	mg_driver_run(&o, "gtest", GTEST_EXITS, "1", NULL, NULL);
	CU_ASSERT(exited_with(&o, 1)); /* Exits.FailsAfter, which the direct run never ran */
	expect_state(o.report, "Exits.First", "pass");
	expect_state(o.report, "Exits.Leaves", "pass");
	const char *out = output_of(o.report, "Exits.Leaves");
	CU_ASSERT(strstr(out, "leaving\n") &&
	          strstr(out, "memguard: the program exited with status 0 during this test"));
	expect_state(o.report, "Exits.After", "pass");
	expect_state(o.report, "Exits.FailsAfter", "fail");
	CU_ASSERT_EQUAL(count(o.report, "error"), 0);
	done(&o);
	/* without the failing test after it, the run passes, as directly */
	setenv("GTEST_FILTER", "-Exits.FailsAfter", 1);
	mg_driver_run(&o, "gtest", GTEST_EXITS, "1", NULL, NULL);
	CU_ASSERT(exited_with(&o, 0));
	expect_state(o.report, "Exits.Leaves", "pass");
	CU_ASSERT_EQUAL(count(o.report, "fail"), 0);
	done(&o);
	unsetenv("GTEST_FILTER");
	unsetenv("MG_EXITS_STATUS");
}

/* A suite's TearDownTestSuite that hangs: the timeout is an entry of its
 * own between the suite's last test and the next, and the next test,
 * which never started, runs in a fresh program and passes. Before: the
 * next test was the timeout ("did not start within"), never run. */
static void gtest_hang_between(void)
{
	setenv("MG_EXITS_HANG", "1", 1);
	setenv("GTEST_FILTER", "Between.*:Tail.*", 1);
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "1", "--driver", "gtest", "--timeout", "2s", "--report", "report.json",
	        "--", GTEST_EXITS),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	expect_state(o.report, "Between.One", "pass");
	expect_state(o.report, "Tail.Last", "pass");
	expect_state(o.report, "<between Between.One and Tail.Last>", "timeout");
	const char *m = message_of(o.report, "<between Between.One and Tail.Last>");
	CU_ASSERT(m && strstr(m, "no test started within 2s after Between.One ended"));
	CU_ASSERT_EQUAL(count(o.report, "timeout"), 1);
	done(&o);
	unsetenv("GTEST_FILTER");
	unsetenv("MG_EXITS_HANG");
}

/* exit(N) in a suite's TearDownTestSuite: the direct run ends there with
 * N, the tests after it never run. Under memguard the tear-down is an
 * entry of its own, fail for 3 (the run fails, as directly), skip for 0
 * (the run passes, as directly), and the test after it runs in a fresh
 * program. Before: that test was an error "GoogleTest did not run it",
 * exit 3 for both. */
static void gtest_exit_between(void)
{
	static const char *const st[] = {"3", "0"};
	setenv("GTEST_FILTER", "Between.*:Tail.*", 1);
	for (int i = 0; i < 2; i++) {
		setenv("MG_EXITS_TEARDOWN", st[i], 1);
		CU_ASSERT_EQUAL(mg_direct_status(GTEST_EXITS), atoi(st[i]));
		outcome o;
		mg_driver_run(&o, "gtest", GTEST_EXITS, "1", NULL, NULL);
		CU_ASSERT(exited_with(&o, i ? 0 : 1));
		expect_state(o.report, "Between.One", "pass");
		expect_state(o.report, "Between.TearDownTestSuite", i ? "skip" : "fail");
		const char *m = message_of(o.report, "Between.TearDownTestSuite");
		CU_ASSERT(m && strstr(m, i ? "exited with status 0 between tests"
		                           : "exited with status 3 between tests"));
		expect_state(o.report, "Tail.Last", "pass");
		CU_ASSERT_EQUAL(count(o.report, "error"), 0);
		done(&o);
	}
	unsetenv("MG_EXITS_TEARDOWN");
	unsetenv("GTEST_FILTER");
}

static const mg_case cases[] = {
    {"gtest_exit_mid_test", gtest_exit_mid_test},
    {"gtest_exit0_mid_test", gtest_exit0_mid_test},
    {"gtest_hang_between", gtest_hang_between},
    {"gtest_exit_between", gtest_exit_between},
};

MG_TEST_MAIN("drivers_midexit", cases)

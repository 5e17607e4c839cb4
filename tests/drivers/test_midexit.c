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

static const mg_case cases[] = {
    {"gtest_exit_mid_test", gtest_exit_mid_test},
};

MG_TEST_MAIN("drivers_midexit", cases)

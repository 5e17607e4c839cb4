/*
 * test_gtestflags.c - the user's GoogleTest flags that would reorder or
 * hide the lines the driver follows (--gtest_shuffle, --gtest_brief=1 in
 * the command, as fmt's tests are run): the verdict stays the program's own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mg_run.h"

/* The program's own verdict on its Basic.* and Square.* tests: exit 1,
 * Basic.Fails failed, the rest passed or skipped, no error. */
static void expect_sample(outcome *o)
{
	CU_ASSERT(exited_with(o, 1));
	CU_ASSERT_FATAL(o->report != NULL);
	expect_state(o->report, "Basic.Adds", "pass");
	expect_state(o->report, "Basic.Prints", "pass");
	expect_state(o->report, "Basic.Fails", "fail");
	expect_state(o->report, "Basic.Skips", "skip");
	expect_state(o->report, "Small/Square.Works/0", "pass");
	expect_state(o->report, "Small/Square.Works/2", "pass");
	CU_ASSERT_EQUAL(count(o->report, "error"), 0);
}

/* Before: the tests gtest ran out of list order were errors "GoogleTest
 * did not run it", exit 3, where the program itself exits 1. */
static void gtest_flag_shuffle(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "1", "--driver", "gtest", "--report", "report.json", "--",
	        GTEST_SAMPLE, "--gtest_filter=Basic.*:Small/Square.*", "--gtest_shuffle",
	        "--gtest_random_seed=7"),
	   NULL, 0);
	expect_sample(&o);
	done(&o);
}

/* Before: with --gtest_brief=1 gtest prints no line for a passing test,
 * and every test that passed was an error, exit 3. */
static void gtest_flag_brief(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "2", "--driver", "gtest", "--report", "report.json", "--",
	        GTEST_SAMPLE, "--gtest_filter=Basic.*:Small/Square.*", "--gtest_brief=1"),
	   NULL, 0);
	expect_sample(&o);
	done(&o);
}

static const mg_case cases[] = {
    {"gtest_flag_shuffle", gtest_flag_shuffle},
    {"gtest_flag_brief", gtest_flag_brief},
};

MG_TEST_MAIN("drivers_gtestflags", cases)

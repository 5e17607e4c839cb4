/*
 * test_gtestflags.c - the user's GoogleTest flags that would reorder or
 * hide the lines the driver follows (--gtest_shuffle, --gtest_brief=1 in
 * the command, as fmt's tests are run): the verdict stays the program's own.
 * A repeat count other than 1 (--gtest_repeat=N, in the command or a flag
 * file, GTEST_REPEAT) is refused, and so is --gtest_list_tests.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mg_run.h"

#define REPEAT_ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

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

/* Before: memguard set the repeat off and ran each test once, so a test
 * that fails only when run again passed: exit 0 where the program run
 * directly with --gtest_repeat=2 exits 1 (yaml-cpp's suite with such a
 * test planted did the same). Now the count is refused, exit 2 naming it,
 * with the driver found (auto) or given; a count of 1, or the flag's 1 over
 * the variable's 2 (GoogleTest reads the flag last), runs as before. */
static void gtest_flag_repeat(void)
{
	CU_ASSERT_EQUAL(mg_direct_argv(GTEST_REPEAT_PROG, REPEAT_ARGS("--gtest_repeat=2"), NULL),
	                1);
	CU_ASSERT_EQUAL(mg_direct_argv(GTEST_REPEAT_PROG, REPEAT_ARGS("--gtest_repeat=1"), NULL),
	                0);
	CU_ASSERT_EQUAL(
	    mg_direct_argv(GTEST_REPEAT_PROG, REPEAT_ARGS("--gtest_filter=*"), "GTEST_REPEAT=2"),
	    1);
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "1", "--report", "report.json", "--", GTEST_REPEAT_PROG,
	        "--gtest_repeat=2"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 2));
	CU_ASSERT_PTR_NOT_NULL(strstr(o.err, "GoogleTest's --gtest_repeat=2: memguard runs each "
	                                     "test once"));
	CU_ASSERT_PTR_NOT_NULL(strstr(o.err, "run the list 2 times"));
	CU_ASSERT(o.report == NULL);
	done(&o);
	mg(&o,
	   ARGV("run", "-j", "2", "--driver", "gtest", "--report", "report.json", "--",
	        GTEST_REPEAT_PROG, "--gtest_repeat=-1"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 2));
	CU_ASSERT_PTR_NOT_NULL(strstr(o.err, "--gtest_repeat=-1"));
	CU_ASSERT_PTR_NOT_NULL(strstr(o.err, "for ever"));
	CU_ASSERT(o.report == NULL);
	done(&o);
	char flagfile[] = "/tmp/mg-repeat-XXXXXX", arg[64];
	int fd = mkstemp(flagfile);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(write(fd, "--gtest_repeat=3\n", 17) == 17);
	close(fd);
	snprintf(arg, sizeof(arg), "--gtest_flagfile=%s", flagfile);
	CU_ASSERT_EQUAL(mg_direct_argv(GTEST_REPEAT_PROG, REPEAT_ARGS(arg), NULL), 1);
	mg(&o, ARGV("run", "-j", "1", "--report", "report.json", "--", GTEST_REPEAT_PROG, arg),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 2));
	CU_ASSERT_PTR_NOT_NULL(strstr(o.err, "GoogleTest's --gtest_repeat=3"));
	CU_ASSERT(o.report == NULL);
	done(&o);
	unlink(flagfile);
	mg(&o, ARGV("run", "-j", "1", "--report", "report.json", "--", GTEST_REPEAT_PROG),
	   ENV("GTEST_REPEAT=2"), 0);
	CU_ASSERT(exited_with(&o, 2));
	CU_ASSERT_PTR_NOT_NULL(strstr(o.err, "GoogleTest's GTEST_REPEAT=2"));
	CU_ASSERT(o.report == NULL);
	done(&o);
	mg(&o,
	   ARGV("run", "-j", "1", "--report", "report.json", "--", GTEST_REPEAT_PROG,
	        "--gtest_repeat=1"),
	   ENV("GTEST_REPEAT=2"), 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	expect_state(o.report, "Repeat.Passes", "pass");
	expect_state(o.report, "Repeat.FailsWhenRunAgain", "pass");
	done(&o);
}

/* GoogleTest's --gtest_list_tests lists and runs no test (the direct run
 * exits 0): refused, exit 2 naming it, no report, as ctest's -N; also in a
 * flag file; =0 (false, as GoogleTest reads it) runs as without it, and so
 * does GTEST_LIST_TESTS=1, which GoogleTest does not read (its direct run
 * runs the tests). Before: every test an error "saw no result of it", exit
 * 3 (rapidjson's unittest). */
static void gtest_flag_list(void)
{
	CU_ASSERT_EQUAL(
	    mg_direct_argv(GTEST_SAMPLE, REPEAT_ARGS("--gtest_list_tests"), "GTEST_BRIEF=0"), 0);
	CU_ASSERT_EQUAL(mg_direct_argv(GTEST_SAMPLE, REPEAT_ARGS("--gtest_filter=Basic.*"),
	                               "GTEST_LIST_TESTS=1"),
	                1);
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "2", "--report", "report.json", "--", GTEST_SAMPLE,
	        "--gtest_list_tests"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 2));
	CU_ASSERT_PTR_NOT_NULL(strstr(o.err, "GoogleTest's --gtest_list_tests lists the tests and "
	                                     "runs none: 'memguard list' lists them"));
	CU_ASSERT(o.report == NULL);
	done(&o);
	char flagfile[] = "/tmp/mg-list-XXXXXX", arg[64];
	int fd = mkstemp(flagfile);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(write(fd, "--gtest_list_tests\n", 19) == 19);
	close(fd);
	snprintf(arg, sizeof(arg), "--gtest_flagfile=%s", flagfile);
	mg(&o, ARGV("run", "-j", "1", "--report", "report.json", "--", GTEST_SAMPLE, arg), NULL, 0);
	CU_ASSERT(exited_with(&o, 2));
	CU_ASSERT_PTR_NOT_NULL(strstr(o.err, "GoogleTest's --gtest_list_tests lists"));
	CU_ASSERT(o.report == NULL);
	done(&o);
	unlink(flagfile);
	mg(&o,
	   ARGV("run", "-j", "1", "--driver", "gtest", "--report", "report.json", "--",
	        GTEST_SAMPLE, "--gtest_filter=Basic.*:Small/Square.*", "--gtest_list_tests=0"),
	   NULL, 0);
	expect_sample(&o);
	done(&o);
	mg(&o,
	   ARGV("run", "-j", "1", "--driver", "gtest", "--report", "report.json", "--",
	        GTEST_SAMPLE, "--gtest_filter=Basic.*:Small/Square.*"),
	   ENV("GTEST_LIST_TESTS=1"), 0);
	expect_sample(&o);
	done(&o);
}

static const mg_case cases[] = {
    {"gtest_flag_shuffle", gtest_flag_shuffle},
    {"gtest_flag_brief", gtest_flag_brief},
    {"gtest_flag_repeat", gtest_flag_repeat},
    {"gtest_flag_list", gtest_flag_list},
};

MG_TEST_MAIN("drivers_gtestflags", cases)

/*
 * test_fake.c - gtest_fake, a GoogleTest program whose tests print
 * look-alikes of GoogleTest's result lines: each test's verdict is
 * GoogleTest's, the lines it printed are its output, no entry is made up,
 * and the run exits as directly (1); also with stdout line-buffered, where
 * the probe sees no end and every result line waits for the next line of
 * GoogleTest's. And with a printer of its own in place of GoogleTest's
 * (MG_FAKE_OWN_PRINTER), or a main that runs none (MG_FAKE_RUN_NONE).
 */
#include <stdio.h>
#include <string.h>

#include "mg_run.h"

/* One test of gtest_fake under memguard, one lane, the direct run of it
 * exiting direct. */
static void run_alone(outcome *o, const char *name, int direct)
{
	setenv("GTEST_FILTER", name, 1);
	CU_ASSERT_EQUAL(mg_direct_status(GTEST_FAKE), direct);
	mg_driver_run(o, "gtest", GTEST_FAKE, "1", NULL, NULL);
	unsetenv("GTEST_FILTER");
}

/* Before: Fake.Failed was a fail with an empty message (the run's exit 1
 * though it passes directly), Fake.Ok a pass whose failure became a made-up
 * entry Fake.TearDownTestSuite, Fake.Other a skip. At -j 1 and 2, stdout
 * fully buffered (the probe's end in front of GoogleTest's line) and
 * line-buffered (no end of the probe's: GoogleTest's line is the last). */
static void gtest_fake_result(void)
{
	CU_ASSERT_EQUAL(mg_direct_status(GTEST_FAKE), 1);
	for (int k = 0; k < 4; k++) {
		if (k >= 2)
			setenv("MG_FAKE_LINEBUF", "1", 1);
		outcome o;
		mg_driver_run(&o, "gtest", GTEST_FAKE, k % 2 ? "2" : "1", NULL, NULL);
		CU_ASSERT(exited_with(&o, 1));
		expect_state(o.report, "Fake.Failed", "pass");
		expect_state(o.report, "Fake.Ok", "fail");
		expect_message(o.report, "Fake.Ok", "Fake.Ok's real failure");
		expect_state(o.report, "Fake.Other", "pass");
		expect_state(o.report, "Fake.Last", "pass");
		expect_state(o.report, "Fake.ExitZero", "pass");
		expect_state(o.report, "Fake.Long", "pass");
		CU_ASSERT_EQUAL(count(o.report, "pass") + count(o.report, "fail"), 6);
		CU_ASSERT_EQUAL(count(o.report, "skip"), 0);
		CU_ASSERT(strstr(output_of(o.report, "Fake.Failed"),
		                 "[  FAILED  ] Fake.Failed (0 ms)\n") != NULL);
		CU_ASSERT(strstr(output_of(o.report, "Fake.Ok"), "[       OK ] Fake.Ok (0 ms)\n") !=
		          NULL);
		CU_ASSERT(
		    strstr(output_of(o.report, "Fake.Other"),
		           "[  FAILED  ] Other.Name (0 ms)\n[  SKIPPED ] Fake.Other (0 ms)\n") !=
		    NULL);
		/* GoogleTest's own result lines are no test's output */
		CU_ASSERT(strstr(output_of(o.report, "Fake.Failed"), "[       OK ]") == NULL);
		CU_ASSERT(strstr(output_of(o.report, "Fake.Last"), "[       OK ]") == NULL);
		done(&o);
	}
	/* Fake.ExitZero prints its look-alike, then exits 0 in the test: the
	 * program's exit ends it, not the look-alike (a pass, said in its
	 * output), and Fake.Last runs in a fresh program. Before: the
	 * look-alike ended it (C++'s flush of cout at exit went through the
	 * probe as a boundary), and Fake.Last was an error "GoogleTest did not
	 * run it", exit 3 where the direct run exits 0. A failed look-alike
	 * after an end the probe marked (Fake.Other's); a passed one, stdout
	 * fully and line-buffered */
	static const char *const fake_exit[][3] = {
	    {"ok", "Fake.ExitZero:Fake.Last", "[       OK ]"},
	    {"ok", "Fake.ExitZero:Fake.Last", "[       OK ]"},
	    {"failed", "Fake.Other:Fake.ExitZero:Fake.Last", "[  FAILED  ]"},
	};
	for (int k = 0; k < 3; k++) {
		setenv("MG_FAKE_EXIT", fake_exit[k][0], 1);
		setenv("GTEST_FILTER", fake_exit[k][1], 1);
		if (k == 1)
			setenv("MG_FAKE_LINEBUF", "1", 1);
		else
			unsetenv("MG_FAKE_LINEBUF");
		CU_ASSERT_EQUAL(mg_direct_status(GTEST_FAKE), 0);
		outcome o;
		mg_driver_run(&o, "gtest", GTEST_FAKE, "1", NULL, NULL);
		CU_ASSERT(exited_with(&o, 0));
		expect_state(o.report, "Fake.ExitZero", "pass");
		expect_state(o.report, "Fake.Last", "pass");
		char said[160];
		snprintf(said, sizeof(said),
		         "%s Fake.ExitZero (0 ms)\nmemguard: the program exited with status 0 "
		         "during this test",
		         fake_exit[k][2]);
		CU_ASSERT(strstr(output_of(o.report, "Fake.ExitZero"), said) != NULL);
		done(&o);
	}
	unsetenv("GTEST_FILTER");
	unsetenv("MG_FAKE_EXIT");
	unsetenv("MG_FAKE_LINEBUF");
	/* Fake.Failed alone: directly it passes, so does the run */
	outcome o;
	run_alone(&o, "Fake.Failed", 0);
	CU_ASSERT(exited_with(&o, 0));
	expect_state(o.report, "Fake.Failed", "pass");
	done(&o);
}

/* A failure's message of 20,000 bytes: the report's message is its first
 * 8 KiB and says it is cut there (before: cut silently), the test's output
 * has all of it. */
static void gtest_long_message(void)
{
	setenv("MG_FAKE_LONG", "1", 1);
	outcome o;
	run_alone(&o, "Fake.Long", 1);
	CU_ASSERT(exited_with(&o, 1));
	expect_state(o.report, "Fake.Long", "fail");
	const char *m = message_of(o.report, "Fake.Long");
	CU_ASSERT_FATAL(m != NULL);
	CU_ASSERT(strlen(m) <= 8192);
	CU_ASSERT(strstr(m, "Failure\nFailed\nxxx") != NULL);
	CU_ASSERT(strstr(m, "the message is cut here, at 8 KiB") != NULL);
	CU_ASSERT(strstr(m, "the-tail.") == NULL);
	CU_ASSERT(strstr(output_of(o.report, "Fake.Long"), "xxxthe-tail.\n") != NULL);
	done(&o);
	unsetenv("MG_FAKE_LONG");
}

/* Fake.Last run alone with the variable env set: an error (exit 3) whose
 * message says each of said and not unsaid. */
static void error_alone(const char *env, const char *const *said, const char *unsaid)
{
	setenv(env, "1", 1);
	outcome o;
	run_alone(&o, "Fake.Last", 0);
	CU_ASSERT(exited_with(&o, 3));
	expect_state(o.report, "Fake.Last", "error");
	for (; *said; said++)
		expect_message(o.report, "Fake.Last", *said);
	const char *m = message_of(o.report, "Fake.Last");
	CU_ASSERT(m && !strstr(m, unsaid));
	done(&o);
	unsetenv(env);
}

/* A printer of the program's own in place of GoogleTest's: memguard sees no
 * test start or end, and says so (error, exit 3: it cannot tell the
 * verdicts), never that GoogleTest did not run the tests (before: "GoogleTest
 * did not run it: the program exited with status 0 before it"). */
static void gtest_own_printer(void)
{
	error_alone("MG_FAKE_OWN_PRINTER",
	            (const char *const[]){"memguard saw no result of it",
	                                  "printed no \"[ RUN      ]\" line", NULL},
	            "did not run");
}

/* GoogleTest's own printer, but a main that runs none of the tests it
 * lists (a filter of its own): GoogleTest printed its summary of 0 tests, so
 * it did not run the test, as memguard says; it is not a printer memguard
 * cannot read (before: "memguard saw no result of it"). */
static void gtest_runs_none(void)
{
	error_alone(
	    "MG_FAKE_RUN_NONE",
	    (const char *const[]){
	        "GoogleTest did not run it: the program exited with status 0 before it", NULL},
	    "saw no result");
}

static const mg_case cases[] = {
    {"gtest_fake_result", gtest_fake_result},
    {"gtest_long_message", gtest_long_message},
    {"gtest_own_printer", gtest_own_printer},
    {"gtest_runs_none", gtest_runs_none},
};

MG_TEST_MAIN("drivers_fake", cases)

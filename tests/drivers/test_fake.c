/*
 * test_fake.c - gtest_fake, a GoogleTest program whose tests print
 * look-alikes of GoogleTest's result lines, with a printer of its own in
 * place of GoogleTest's (MG_FAKE_OWN_PRINTER). The case that checked each
 * look-alike keeps GoogleTest's verdict went with the driver's check it
 * needed (withdrawn in stop 50's review: it dropped real result lines).
 */
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
    {"gtest_own_printer", gtest_own_printer},
    {"gtest_runs_none", gtest_runs_none},
};

MG_TEST_MAIN("drivers_fake", cases)

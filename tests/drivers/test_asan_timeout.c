/*
 * test_asan_timeout.c - a GoogleTest ASan build whose host is killed for a
 * test's timeout never reaches its exit either, where LeakSanitizer checks
 * what the tests it ran left: said as for a kill at a hard limit
 * (test_asan_kill.c), in the generation's reason and on the console;
 * before, a timeout's kill said nothing of it. The verdict is unchanged,
 * and the same program without ASan says nothing of the kind.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mg_run.h"

static const char note[] = "LeakSanitizer's check at exit was not run for 7 tests of this "
                           "host (an ASan build, killed before its exit)";

/* Runs prog's tests 30..39, test 37 never ending, under --timeout 2s, one
 * lane: the first host is killed in test 37 after 7 tests; 38 and 39 run
 * in a fresh host. */
static void run_timed_out(outcome *o, const char *prog)
{
	mg(o,
	   ARGV("run", "-j", "1", "--driver", "gtest", "--timeout", "2s", "--report", "report.json",
	        "--", prog, "--gtest_filter=*/3?"),
	   (const char *[]){"MG_GT_HANG=Leaks/Step.Run/37", NULL}, 0);
	CU_ASSERT(exited_with(o, 1)); /* 37: timeout, a failure */
	CU_ASSERT_FATAL(o->report != NULL);
	expect_state(o->report, "Leaks/Step.Run/37", "timeout");
	CU_ASSERT_EQUAL(count(o->report, "pass"), 9);
	CU_ASSERT_EQUAL(count(o->report, "timeout"), 1);
}

static void asan_timeout_leak_check(void)
{
	outcome o;
	run_timed_out(&o, GTEST_LEAKS_ASAN);
	const char *why = mg_gen_reason(o.report, 0);
	if (!why || !strstr(why, note))
		fprintf(stderr, "generation 0's reason: %s\n", why ? why : "(none)");
	CU_ASSERT(why && strstr(why, note));
	CU_ASSERT(strstr(o.err, note) != NULL); /* the console's line */
	/* the fresh host ran to its exit: its check ran, nothing said */
	why = mg_gen_reason(o.report, 1);
	CU_ASSERT(!why || !strstr(why, "LeakSanitizer"));
	done(&o);
}

static void plain_timeout_no_note(void)
{
	outcome o;
	run_timed_out(&o, GTEST_LEAKS);
	const char *why = mg_gen_reason(o.report, 0);
	CU_ASSERT(why && !strstr(why, "LeakSanitizer"));
	CU_ASSERT(strstr(o.err, "LeakSanitizer") == NULL);
	done(&o);
}

static const mg_case cases[] = {
    {"asan_timeout_leak_check", asan_timeout_leak_check},
    {"plain_timeout_no_note", plain_timeout_no_note},
};

MG_TEST_MAIN("drivers_asan_timeout", cases)

/*
 * test_asan_kill.c - a GoogleTest ASan build killed mid-test at a hard
 * limit never reaches its exit, where LeakSanitizer checks what the tests
 * it ran left: not fixable by running them again, so the real memguard
 * binary says it, on the console and in the killed generation's reason,
 * naming how many tests lost the check; the verdict is unchanged. The
 * same program without ASan (gtest_leaks) says nothing of the kind.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mg_run.h"

static const char note[] = "LeakSanitizer's check at exit was not run for 7 tests of this "
                           "host (an ASan build, killed before its exit)";

/* Runs prog's tests 30..39 (37 keeps 64 MiB touched) under a 48 MiB RSS
 * kill limit, one lane: the first host is killed in test 37 after 7 tests. */
static void run_killed(outcome *o, const char *prog)
{
	mg(o,
	   ARGV("run", "-j", "1", "--driver", "gtest", "--kill-at", "rss=48M", "--report",
	        "report.json", "--", prog, "--gtest_filter=*/3?"),
	   NULL, 0);
	CU_ASSERT(exited_with(o, 1)); /* 37: memory-limit, as without ASan */
	CU_ASSERT_FATAL(o->report != NULL);
	expect_state(o->report, "Leaks/Step.Run/37", "memory-limit");
	CU_ASSERT_EQUAL(count(o->report, "pass"), 9);
}

static void asan_kill_leak_check(void)
{
	outcome o;
	run_killed(&o, GTEST_LEAKS_ASAN);
	const char *why = mg_gen_reason(o.report, 0);
	CU_ASSERT(why && strstr(why, ">= kill 48.0 MiB; ") && strstr(why, note));
	CU_ASSERT(strstr(o.err, note) != NULL); /* the console's kill line */
	/* the retry's host ran no test before its kill: nothing lost, nothing said */
	why = mg_gen_reason(o.report, 1);
	CU_ASSERT(why && !strstr(why, "LeakSanitizer"));
	done(&o);
}

static void plain_kill_no_note(void)
{
	outcome o;
	run_killed(&o, GTEST_LEAKS);
	const char *why = mg_gen_reason(o.report, 0);
	CU_ASSERT(why && strstr(why, ">= kill 48.0 MiB") && !strstr(why, "LeakSanitizer"));
	CU_ASSERT(strstr(o.err, "LeakSanitizer") == NULL);
	done(&o);
}

static const mg_case cases[] = {
    {"asan_kill_leak_check", asan_kill_leak_check},
    {"plain_kill_no_note", plain_kill_no_note},
};

MG_TEST_MAIN("drivers_asan_kill", cases)

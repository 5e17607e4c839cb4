/*
 * test_measure.c - what a process-per-test driver (exec, ctest) measures
 * of a test: its peak is never lost to a sample the machine's load made
 * late. The real memguard binary, the real hog program.
 */
#include <stdio.h>
#include <string.h>

#include "mg_run.h"

/* A test whose 64 MiB come and go while the shim cannot sample (the hog
 * stops its parent meanwhile: a loaded machine that runs the shim late,
 * made certain): its VA and RSS are still at least that, from the
 * kernel's peak RSS of the child. Before, both were the few MiB sampled
 * before the peak (drivers__ctest_states failed so under load 20). */
static void exec_unseen_peak(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "1", "--driver", "exec", "--list-cmd", "echo 64", "--report",
	        "report.json", "--", HOG, "{}", "0"),
	   ENV("HOG_MODE=unseen"), 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	json_t *t = find_test(o.report, "64");
	CU_ASSERT_FATAL(t != NULL);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(t, "state")), "pass");
	json_int_t va = json_integer_value(json_object_get(t, "va_after"));
	json_int_t rss = json_integer_value(json_object_get(t, "rss_after"));
	if (va < 64 << 20 || rss < 64 << 20)
		fprintf(stderr, "\n  va %lld, rss %lld\n", (long long)va, (long long)rss);
	CU_ASSERT(va >= 64 << 20 && va < 96 << 20);
	CU_ASSERT(rss >= 64 << 20 && rss < 96 << 20);
	done(&o);
}

static const mg_case cases[] = {
    {"exec_unseen_peak", exec_unseen_peak},
};

MG_TEST_MAIN("drivers_measure", cases)

/*
 * test_stderr.c - what a GoogleTest or Catch2 test writes on stderr is its
 * own output in the report (gtest_stderr.cc, catch2_stderr.cpp: quick tests
 * among which a few write on stderr, by fputs, write, two fprintf calls, a
 * test that waits past the driver's grace, one that exits, one that
 * writes on stdout and stderr in turn). Once the program's stderr was a
 * pipe of its own, read apart from its stdout, which carries the tests'
 * ends: its bytes went to the test the runner had in front when it read
 * them, often one several tests earlier (spdlog's stderr_st's lines were
 * in dup_filter_test4's output). Now a GoogleTest
 * program's stderr is the pipe of its stdout (its bytes in order with the
 * ends, and with its stdout: t34); a Catch2 program's is marked by the
 * probe at the end of a test that wrote, and the driver gives the bytes in
 * front of the mark to that test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mg_run.h"

/* Each line is in its test's output and in no other test's. */
static void stderr_own(const char *prog, const char *suite, const char *lanes)
{
	static const char *const own[][2] = {
	    {"t05", "t05 by fputs\n"},
	    {"t06", "t06 by write\n"},
	    {"t08", "t08 by fprintf, in two writes\n"},
	    {"t20", "t20 before its wait\nt20 after its wait\n"},
	    {"t30", "t30 before its exit\n"},
	    {"t32", "t32 by fputs\n"},
	    {"t34", "t34 out first\nt34 err second\nt34 out third\n"},
	    {"t36", "t36 log line 000, filling the test's output\n"},
	    {"t38", "t38 noise\036"},
	};
	int gtest = strcmp(suite, "") != 0;
	outcome o;
	mg_driver_run(&o, gtest ? "gtest" : "catch2", prog, lanes, NULL, NULL);
	CU_ASSERT(exited_with(&o, 1)); /* t30's exit and t36's failure, as directly */
	for (int t = 0; t < 40; t++) {
		char name[32];
		snprintf(name, sizeof(name), "%st%02d", suite, t);
		const char *out = output_of(o.report, name);
		const char *want = "";
		for (size_t k = 0; k < sizeof(own) / sizeof(own[0]); k++)
			if (!strcmp(name + strlen(suite), own[k][0]))
				want = own[k][1];
		/* its own lines, whole and in order (GoogleTest's stdout and
		 * stderr are one pipe: in the order written; Catch2's stderr is
		 * a pipe apart, its bytes given before the test's result); nobody
		 * else's */
		int ok = *want ? strstr(out, want) != NULL : strstr(out, " by ") == NULL;
		if (!gtest && !strcmp(name, "t34"))
			ok = strstr(out, "t34 out first\n") && strstr(out, "t34 err second\n") &&
			     strstr(out, "t34 out third\n");
		if (!ok)
			fprintf(stderr, "%s (-j %s): output '%s', wanted '%s'\n", name, lanes, out,
			        want);
		CU_ASSERT(ok);
		for (size_t k = 0; k < sizeof(own) / sizeof(own[0]); k++)
			if (strcmp(name + strlen(suite), own[k][0]))
				CU_ASSERT(strstr(out, own[k][0]) == NULL);
	}
	/* t30's exit(1) is its fail, as the direct run's exit 1 says; Catch2
	 * v2 under -r xml (as the driver runs it) then dies of SIGSEGV in the
	 * exit (its redirect of std::cout), which the probe's called-exit line
	 * tells apart (before: a crash, which the direct run never shows) */
	expect_state(o.report, gtest ? "Stderr.t30" : "t30", "fail");
	/* t36's message is its failure, not the 13 KiB it logged before it */
	const char *t36 = gtest ? "Stderr.t36" : "t36";
	expect_state(o.report, t36, "fail");
	expect_message(o.report, t36, "t36 the real failure");
	const char *m = message_of(o.report, t36);
	CU_ASSERT(m && !strstr(m, "t36 log line"));
	CU_ASSERT(strstr(output_of(o.report, t36),
	                 "t36 log line 299, filling the test's output\n") != NULL);
	/* t38's own 0x1e is output; the probe's line after it is no test's */
	/* a program's first words (gtest_main's "Running main() from") are
	 * the first test's it runs, t00 and, after t30's exit, t31 (-j 1):
	 * they come in the reply stream after its start, not on stdout,
	 * which the runner read after later results under load (they were
	 * t20's or t39's output) */
	if (gtest && !strcmp(lanes, "1"))
		for (int t = 0; t < 40; t++) {
			char name[32];
			snprintf(name, sizeof(name), "Stderr.t%02d", t);
			const char *out = output_of(o.report, name);
			int first = t == 0 || t == 31;
			if ((strstr(out, "Running main() from") != NULL) != first)
				fprintf(stderr, "%s (-j 1): output '%s'\n", name, out);
			CU_ASSERT((strstr(out, "Running main() from") != NULL) == first);
		}
	const char *t38 = gtest ? "Stderr.t38" : "t38";
	expect_state(o.report, t38, "pass");
	const char *out38 = output_of(o.report, t38);
	CU_ASSERT(!strstr(out38, "\036\036") && !strstr(out38, " end ") &&
	          !strstr(out38, "\036mg"));
	done(&o);
}

static void gtest_stderr_own(void)
{
	CU_ASSERT_EQUAL(mg_direct_status(GTEST_STDERR), 1);
	stderr_own(GTEST_STDERR, "Stderr.", "1");
	stderr_own(GTEST_STDERR, "Stderr.", "2");
}

static void catch2_stderr_own(void)
{
	CU_ASSERT_EQUAL(mg_direct_status(CATCH2_STDERR), 1);
	stderr_own(CATCH2_STDERR, "", "1");
	stderr_own(CATCH2_STDERR, "", "2");
}

static const mg_case cases[] = {
    {"gtest_stderr_own", gtest_stderr_own},
    {"catch2_stderr_own", catch2_stderr_own},
};

MG_TEST_MAIN("drivers_stderr", cases)

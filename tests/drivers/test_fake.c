/*
 * test_fake.c - gtest_fake, a GoogleTest program whose tests print
 * look-alikes of GoogleTest's result lines: each test's verdict is
 * GoogleTest's, the lines it printed are its output, no entry is made up,
 * and the run exits as directly (1). A result line the probe did not see
 * whole (it crossed stdout's buffer) keeps its verdict when the program
 * then ends; with stdout line-buffered (the probe sees no line) a result is
 * taken as it comes, not held. A failure's message over 8 KiB. And a
 * printer of its own in place of GoogleTest's (MG_FAKE_OWN_PRINTER), or a
 * main that runs none (MG_FAKE_RUN_NONE).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
 * entry Fake.TearDownTestSuite, Fake.Other a skip. At -j 1 and 2: the
 * probe's end comes in front of GoogleTest's own line, and a result line
 * with none in front of it waits for the next line. */
static void gtest_fake_result(void)
{
	CU_ASSERT_EQUAL(mg_direct_status(GTEST_FAKE), 1);
	for (int k = 0; k < 2; k++) {
		outcome o;
		mg_driver_run(&o, "gtest", GTEST_FAKE, k ? "2" : "1", NULL, NULL);
		CU_ASSERT(exited_with(&o, 1));
		expect_state(o.report, "Fake.Failed", "pass");
		expect_state(o.report, "Fake.Ok", "fail");
		expect_message(o.report, "Fake.Ok", "Fake.Ok's real failure");
		/* from GoogleTest's header on, as its XML: not the colour reset
		 * the test left on that line (it is in the output) */
		const char *m = message_of(o.report, "Fake.Ok");
		CU_ASSERT(m && !strchr(m, 0x1b) && strstr(m, "gtest_fake.cc:"));
		CU_ASSERT(strstr(output_of(o.report, "Fake.Ok"), "\033[0m") != NULL);
		expect_state(o.report, "Fake.Other", "pass");
		expect_state(o.report, "Fake.Last", "pass");
		expect_state(o.report, "Fake.Long", "pass");
		expect_state(o.report, "Tail.Print", "pass");
		expect_state(o.report, "Fake.ExitZero", "pass");
		CU_ASSERT_EQUAL(count(o.report, "pass") + count(o.report, "fail"), 7);
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
	/* Fake.Failed alone: directly it passes, so does the run */
	outcome o;
	run_alone(&o, "Fake.Failed", 0);
	CU_ASSERT(exited_with(&o, 0));
	expect_state(o.report, "Fake.Failed", "pass");
	done(&o);
}

/* Fake.ExitZero prints a look-alike of its own result line, then exits
 * mid-test: the exit ends the test, not the look-alike (its output), and
 * Fake.Last runs in a fresh program, as the exit of any test: exit 0 a
 * pass said in its output (the run exits 0, as directly), exit 1 a fail
 * "exited with status 1" (exits 1, as directly). Before: the look-alike
 * was its verdict (C++'s flush of cout at exit reads to the probe as the
 * test's end), and Fake.Last an error "GoogleTest did not run it", exit 3. */
static void gtest_lookalike_exit(void)
{
	static const char *const v[][4] = {
	    /* look-alike, a line after it, exit status, the test's state */
	    {"ok", NULL, "0", "pass"},
	    {"failed", "1", "0", "pass"},
	    {"ok", "1", "1", "fail"},
	};
	setenv("GTEST_FILTER", "Fake.ExitZero:Fake.Last", 1);
	for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
		setenv("MG_FAKE_EXIT", v[k][0], 1);
		if (v[k][1])
			setenv("MG_FAKE_EXIT_MORE", v[k][1], 1);
		else
			unsetenv("MG_FAKE_EXIT_MORE");
		setenv("MG_FAKE_EXIT_CODE", v[k][2], 1);
		int code = atoi(v[k][2]);
		CU_ASSERT_EQUAL(mg_direct_status(GTEST_FAKE), code);
		outcome o;
		mg_driver_run(&o, "gtest", GTEST_FAKE, "1", NULL, NULL);
		CU_ASSERT(exited_with(&o, code));
		expect_state(o.report, "Fake.ExitZero", v[k][3]);
		expect_state(o.report, "Fake.Last", "pass");
		const char *out = output_of(o.report, "Fake.ExitZero");
		CU_ASSERT(strstr(out, " Fake.ExitZero (0 ms)\n") != NULL);
		if (code)
			expect_message(o.report, "Fake.ExitZero",
			               "exited with status 1 during the test");
		else
			CU_ASSERT(strstr(out,
			                 "memguard: the program exited with status 0 during this "
			                 "test") != NULL);
		done(&o);
	}
	unsetenv("MG_FAKE_EXIT");
	unsetenv("MG_FAKE_EXIT_MORE");
	unsetenv("MG_FAKE_EXIT_CODE");
	unsetenv("GTEST_FILTER");
}

/* After Fake.Last (whose end the probe marked), Tail.Print prints 4,085
 * bytes, so its result line crosses stdout's 4 KiB
 * buffer (the probe sees no whole line, puts no end in front of it: the
 * line is held), then the suite's tear-down exits 1 (directly: the test
 * passed, exit 1). The held line is GoogleTest's: a pass, and the exit an
 * entry of its own. Before (the hold's first cut): the test failed, "exited
 * with status 1 during the test". */
static void gtest_held_then_exit(void)
{
	setenv("MG_FAKE_TAIL", "4085", 1);
	setenv("MG_FAKE_TEARDOWN", "exit1", 1);
	outcome o;
	run_alone(&o, "Fake.Last:Tail.Print", 1);
	CU_ASSERT(o.status != 0);
	expect_state(o.report, "Fake.Last", "pass");
	expect_state(o.report, "Tail.Print", "pass");
	CU_ASSERT(strstr(output_of(o.report, "Tail.Print"), "yyyy\n") != NULL);
	CU_ASSERT(strstr(output_of(o.report, "Tail.Print"), "[       OK ]") == NULL);
	done(&o);
	unsetenv("MG_FAKE_TEARDOWN");
	unsetenv("MG_FAKE_TAIL");
}

/* stdout line-buffered: each line leaves as it is printed, the probe sees
 * none, so no result is held: Tail.Print's pass is taken at its line, and
 * the suite's tear-down (3 s) is no part of it under --timeout 2s (the
 * program's finish is, as after any last test: <program exit>). Before
 * (the hold's first cut): held until the next line, after the tear-down,
 * the test a timeout. */
static void gtest_linebuf_not_held(void)
{
	setenv("MG_FAKE_LINEBUF", "1", 1);
	setenv("MG_FAKE_TAIL", "2", 1);
	setenv("MG_FAKE_TEARDOWN", "sleep3", 1);
	setenv("GTEST_FILTER", "Tail.Print", 1);
	outcome o;
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--driver", "gtest", "--timeout", "2s", "--report",
	        "report.json", "--", GTEST_FAKE),
	   NULL, 0);
	CU_ASSERT(o.status != 0); /* the tear-down over --timeout: */
	expect_state(o.report, "<program exit>", "timeout");
	expect_state(o.report, "Tail.Print", "pass");
	done(&o);
	unsetenv("GTEST_FILTER");
	unsetenv("MG_FAKE_TEARDOWN");
	unsetenv("MG_FAKE_TAIL");
	unsetenv("MG_FAKE_LINEBUF");
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

/* A run that fails on the lanes -j defaults to (the CPUs, where there are
 * two or more) says under its table that copies of the program ran side
 * by side and what --lane-tmpdir does: a fail that comes only at -j 2 (two
 * lanes meeting at a fixed path) would look like memguard's. Not with -j
 * given, --lane-tmpdir, -q, or one lane (nor where one lane ran every
 * test); with the user's TEST_TMPDIR without the option, which then does
 * nothing. The exit is 1 every way. */
static void lanes_hint(void)
{
	static const char hint[] = "lanes side by side (-j defaults to the CPUs)";
	static const struct {
		const char *arg[3];
		const char *env;
		int said;
	} runs[] = {{{"-j", "2", NULL}, NULL, 0},
	            {{"--lane-tmpdir", NULL, NULL}, NULL, 0},
	            {{"-q", NULL, NULL}, NULL, 0},
	            {{"--allow-no-tests", NULL, NULL}, NULL, 1},
	            {{"--allow-no-tests", NULL, NULL}, "TEST_TMPDIR=/tmp", 1}};
	int lanes = sysconf(_SC_NPROCESSORS_ONLN) >= 2;
	for (size_t k = 0; k < sizeof(runs) / sizeof(runs[0]); k++) {
		outcome o;
		const char *argv[14] = {MEMGUARD_BIN, "run",      "--driver",
		                        "gtest",      "--report", "report.json"};
		int n = 6;
		for (int i = 0; runs[k].arg[i]; i++)
			argv[n++] = runs[k].arg[i];
		argv[n++] = "--";
		argv[n++] = GTEST_FAKE;
		mg(&o, argv, ENV(runs[k].env), 0);
		CU_ASSERT(exited_with(&o, 1));
		CU_ASSERT_FATAL(o.report != NULL);
		/* said where two lanes ran tests (on a loaded machine the first
		 * lane can run all six before the second has started: then no
		 * copies met, and it is not said) */
		size_t i, ran = 0;
		json_t *sh;
		json_array_foreach(json_object_get(o.report, "shards"), i, sh) ran +=
		    json_array_size(json_object_get(sh, "tests")) > 0;
		int want = lanes && runs[k].said && ran >= 2;
		CU_ASSERT_EQUAL(strstr(o.err, hint) != NULL, want);
		if (want) {
			CU_ASSERT(strstr(o.err, "memguard run: 1 test failed with ") != NULL);
			CU_ASSERT_EQUAL(strstr(o.err, "--lane-tmpdir gives each lane") != NULL,
			                runs[k].env == NULL);
		}
		done(&o);
	}
}

static const mg_case cases[] = {
    {"gtest_fake_result", gtest_fake_result},
    {"gtest_held_then_exit", gtest_held_then_exit},
    {"gtest_lookalike_exit", gtest_lookalike_exit},
    {"gtest_linebuf_not_held", gtest_linebuf_not_held},
    {"gtest_long_message", gtest_long_message},
    {"gtest_own_printer", gtest_own_printer},
    {"gtest_runs_none", gtest_runs_none},
    {"lanes_hint", lanes_hint},
};

MG_TEST_MAIN("drivers_fake", cases)

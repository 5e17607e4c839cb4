/*
 * test_no_tests.c - a run in which no test ran exits as the framework's own
 * direct run does (README "Exit codes"): GoogleTest (a program with no
 * TEST, a filter of none) and Catch2 v2 (no TEST_CASE, a spec of none)
 * exit 0, so memguard does (before: 5); Catch2 v2's -w NoTests fails a
 * spec of none (exit 2), memguard says 5; --fail-no-tests asks 5 of every
 * such run, --allow-no-tests 0, both together are a usage error. The
 * console says no test ran either way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mg_run.h"

/* memguard run [flags] -- prog [args]: exit code want, "no tests ran" said
 * on stderr (unless --allow-no-tests), the report's exit_code want and no
 * entry in it. */
static void no_test_run(const char *const *argv, int want)
{
	outcome o;
	mg(&o, argv, NULL, 0);
	CU_ASSERT(exited_with(&o, want));
	CU_ASSERT(strstr(o.err, "memguard run: no tests ran") != NULL);
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(o.report, "exit_code")), want);
	CU_ASSERT_EQUAL(count(o.report, "pass") + count(o.report, "fail") +
	                    count(o.report, "error") + count(o.report, "skip"),
	                0);
	done(&o);
}

/* A GoogleTest program with no TEST: exit 0 directly ("[  PASSED  ] 0
 * tests."), so under memguard, auto or --driver gtest; 5 with
 * --fail-no-tests. */
static void no_tests_gtest_empty(void)
{
	CU_ASSERT_EQUAL(mg_direct_argv(GTEST_EMPTY, (const char *[]){NULL}, NULL), 0);
	no_test_run(ARGV("run", "--report", "report.json", "--", GTEST_EMPTY), 0);
	no_test_run(ARGV("run", "--driver", "gtest", "--report", "report.json", "--", GTEST_EMPTY),
	            0);
	no_test_run(ARGV("run", "--fail-no-tests", "--report", "report.json", "--", GTEST_EMPTY),
	            5);
}

/* memguard's --filter matching none of a GoogleTest program's tests: as
 * --gtest_filter matching none (and an empty shard), exit 0; the config
 * key fail_no_tests makes it 5. */
static void no_tests_gtest_filter(void)
{
	CU_ASSERT_EQUAL(
	    mg_direct_argv(GTEST_SAMPLE, (const char *[]){"--gtest_filter=nomatch*", NULL}, NULL),
	    0);
	no_test_run(ARGV("run", "-q", "--filter", "nomatch*", "--report", "report.json", "--",
	                 GTEST_SAMPLE),
	            0);
	outcome o;
	mg(&o,
	   (const char *const[]){"/bin/sh", "-c",
	                         "echo '{\"fail_no_tests\": true}' > memguard.json && exec \"$MG\" "
	                         "run -q --filter 'nomatch*' -- \"$HOST\"",
	                         NULL},
	   (const char *const[]){"MG=" MEMGUARD_BIN, "HOST=" GTEST_SAMPLE, NULL}, 0);
	CU_ASSERT(exited_with(&o, 5));
	done(&o);
	/* the flag overrides the config file's other key */
	mg(&o,
	   (const char *const[]){"/bin/sh", "-c",
	                         "echo '{\"fail_no_tests\": true}' > memguard.json && exec \"$MG\" "
	                         "run -q --allow-no-tests --filter 'nomatch*' -- \"$HOST\"",
	                         NULL},
	   (const char *const[]){"MG=" MEMGUARD_BIN, "HOST=" GTEST_SAMPLE, NULL}, 0);
	CU_ASSERT(exited_with(&o, 0));
	done(&o);
}

/* Catch2 v2: a program with no TEST_CASE and a spec matching none exit 0
 * ("No tests ran"), so memguard does; -w NoTests fails the spec of none
 * (exit 2): memguard's filter of none is 5 then, the program of none
 * (no spec) still 0. */
static void no_tests_catch2v2(void)
{
	CU_ASSERT_EQUAL(mg_direct_argv(CATCH2_EMPTY, (const char *[]){NULL}, NULL), 0);
	CU_ASSERT_EQUAL(mg_direct_argv(CATCH2_EMPTY, (const char *[]){"-w", "NoTests", NULL}, NULL),
	                0);
	CU_ASSERT_EQUAL(mg_direct_argv(CATCH2_HASH, (const char *[]){"nomatch", NULL}, NULL), 0);
	CU_ASSERT_EQUAL(
	    mg_direct_argv(CATCH2_HASH, (const char *[]){"-w", "NoTests", "nomatch", NULL}, NULL),
	    2);
	no_test_run(ARGV("run", "--report", "report.json", "--", CATCH2_EMPTY), 0);
	no_test_run(ARGV("run", "--report", "report.json", "--", CATCH2_EMPTY, "-w", "NoTests"), 0);
	no_test_run(
	    ARGV("run", "-q", "--filter", "nomatch", "--report", "report.json", "--", CATCH2_HASH),
	    0);
	no_test_run(ARGV("run", "-q", "--filter", "nomatch", "--report", "report.json", "--",
	                 CATCH2_HASH, "--warn", "NoTests"),
	            5);
}

/* A GoogleTest program listing no test whose main then fails (exit 3
 * directly, after "[  PASSED  ] 0 tests."): memguard runs it once as
 * given and its exit is the entry <program exit>, error, with the
 * program's last words; the run fails (3), never 0 (before: 0). */
static void no_tests_gtest_bad_exit(void)
{
	CU_ASSERT_EQUAL(mg_direct_argv(GTEST_EMPTY_EXIT, (const char *[]){NULL}, NULL), 3);
	outcome o;
	mg(&o, ARGV("run", "--report", "report.json", "--", GTEST_EMPTY_EXIT), NULL, 0);
	CU_ASSERT(exited_with(&o, 3));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "<program exit>"), "error");
	const char *m = message_of(o.report, "<program exit>");
	CU_ASSERT(m && strstr(m, "exited with status 3"));
	CU_ASSERT(m && strstr(m, "teardown check failed: 1 handle left open"));
	CU_ASSERT(strstr(o.err, "memguard run: no tests ran") == NULL);
	done(&o);
	/* the clean program of no test is still not flagged */
	no_test_run(ARGV("run", "--report", "report.json", "--", GTEST_EMPTY), 0);
}

/* That one run of the program is the run's like any host: held to
 * --timeout (killed, the entry says so, exit 3) and ended by a stop signal
 * (memguard ends by SIGTERM at once, nothing left). Before, memguard
 * waited for the program to end (bounded here by timeout(1): 124, and by
 * the shell's SIGKILL after 5 s: 137). */
static void no_tests_gtest_hang(void)
{
	outcome o;
	mg(&o,
	   (const char *const[]){
	       "/bin/sh", "-c",
	       "MG_EMPTY_HANG=$PWD/hang.started exec timeout -s KILL 30 \"$MG\" run "
	       "--timeout 1s --report report.json -- \"$HOST\"",
	       NULL},
	   (const char *const[]){"MG=" MEMGUARD_BIN, "HOST=" GTEST_EMPTY_EXIT, NULL}, 0);
	CU_ASSERT(exited_with(&o, 3));
	CU_ASSERT_FATAL(o.report != NULL);
	expect_state(o.report, "<program exit>", "error");
	expect_message(o.report, "<program exit>", "did not end within 1s (--timeout");
	done(&o);
	char tag[64], t[32];
	snprintf(tag, sizeof(tag), "MG_NO_TESTS_TAG=%ld", (long)getpid());
	snprintf(t, sizeof(t), "T=%ld", (long)getpid());
	/* the tag in memguard's environment only, not the shell's or its timer's */
	mg(&o,
	   (const char *const[]){
	       "/bin/sh", "-c",
	       "MG_EMPTY_HANG=$PWD/hang.started MG_NO_TESTS_TAG=$T \"$MG\" run -- "
	       "\"$HOST\" & pid=$!; i=0; while [ ! -e hang.started ] && "
	       "[ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done; "
	       "kill -TERM $pid; (sleep 5; kill -KILL $pid 2>/dev/null) & "
	       "timer=$!; wait $pid; rc=$?; kill $timer; exit $rc",
	       NULL},
	   (const char *const[]){"MG=" MEMGUARD_BIN, "HOST=" GTEST_EMPTY_EXIT, t, NULL}, 0);
	CU_ASSERT(exited_with(&o, 143));
	CU_ASSERT(strstr(o.err, "no tests ran (exit 0") == NULL);
	CU_ASSERT_EQUAL(mg_tagged_left(tag, NULL, 0), 0);
	done(&o);
}

/* --allow-no-tests and --fail-no-tests together: a usage error naming
 * both (exit 2), before anything runs; so are both config keys. */
static void no_tests_flags(void)
{
	outcome o;
	mg(&o, ARGV("run", "--allow-no-tests", "--fail-no-tests", "--", GTEST_EMPTY), NULL, 0);
	CU_ASSERT(exited_with(&o, 2));
	CU_ASSERT(strstr(o.err, "--allow-no-tests and --fail-no-tests contradict") != NULL);
	done(&o);
	mg(&o,
	   (const char *const[]){"/bin/sh", "-c",
	                         "echo '{\"fail_no_tests\": true, \"allow_no_tests\": true}' > "
	                         "memguard.json && exec \"$MG\" run -q -- \"$HOST\"",
	                         NULL},
	   (const char *const[]){"MG=" MEMGUARD_BIN, "HOST=" GTEST_EMPTY, NULL}, 0);
	CU_ASSERT(exited_with(&o, 2));
	CU_ASSERT(strstr(o.err, "contradict each other") != NULL);
	done(&o);
}

static const mg_case cases[] = {
    {"no_tests_gtest_empty", no_tests_gtest_empty},
    {"no_tests_gtest_filter", no_tests_gtest_filter},
    {"no_tests_catch2v2", no_tests_catch2v2},
    {"no_tests_flags", no_tests_flags},
    {"no_tests_gtest_bad_exit", no_tests_gtest_bad_exit},
    {"no_tests_gtest_hang", no_tests_gtest_hang},
};

MG_TEST_MAIN("drivers_no_tests", cases)

/*
 * test_fidelity.c - the framework's verdict is the floor: GoogleTest and
 * Catch2 programs that fail outside their test bodies (a suite's set-up or
 * tear-down, a global environment, a fixture name clash, a LeakSanitizer
 * report at exit, an exit between suites), run directly and under the real
 * memguard binary: the program's failure is an entry of the report and the
 * run's exit code, never a pass. Also an explicit --driver that contradicts
 * the binary (exit 2, naming what it is).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mg_run.h"

#define OUTSIDE(n) GTEST_OUTSIDE_DIR "/gtest_outside" #n

/* A failed TearDownTestSuite: GoogleTest exits 1 though every test passed. */
static void teardown_suite(void)
{
	CU_ASSERT_EQUAL(mg_direct_status(OUTSIDE(1)), 1);
	const char *lanes[] = {"1", "2"};
	for (int i = 0; i < 2; i++) {
		outcome o;
		mg_driver_run(&o, "gtest", OUTSIDE(1), lanes[i], NULL, NULL);
		CU_ASSERT(exited_with(&o, 1));
		expect_state(o.report, "Suite.First", "pass");
		expect_state(o.report, "Suite.Second", "pass");
		expect_state(o.report, "Other.Passes", "pass");
		expect_state(o.report, "Suite.TearDownTestSuite", "fail");
		expect_message(o.report, "Suite.TearDownTestSuite", "the suite's tear-down failed");
		CU_ASSERT_EQUAL(count(o.report, "fail"), 1); /* once, whatever ran it twice */
		done(&o);
	}
}

/* A failed SetUpTestSuite: GoogleTest skips the suite's tests and exits 1. */
static void setup_suite(void)
{
	CU_ASSERT_EQUAL(mg_direct_status(OUTSIDE(2)), 1);
	outcome o;
	mg_driver_run(&o, "gtest", OUTSIDE(2), "1", NULL, NULL);
	CU_ASSERT(exited_with(&o, 1));
	expect_state(o.report, "Suite.First", "skip");
	expect_state(o.report, "Suite.Second", "skip");
	expect_state(o.report, "Other.Passes", "pass");
	expect_state(o.report, "Suite.SetUpTestSuite", "fail");
	expect_message(o.report, "Suite.SetUpTestSuite", "the suite's set-up failed");
	done(&o);
}

/* A global environment's TearDown that fails. */
static void global_env(void)
{
	CU_ASSERT_EQUAL(mg_direct_status(OUTSIDE(3)), 1);
	outcome o;
	mg_driver_run(&o, "gtest", OUTSIDE(3), "1", NULL, NULL);
	CU_ASSERT(exited_with(&o, 1));
	expect_state(o.report, "Suite.First", "pass");
	expect_state(o.report, "Other.Passes", "pass");
	expect_state(o.report, "<global environment>", "fail");
	expect_message(o.report, "<global environment>",
	               "the global environment's tear-down failed");
	done(&o);
}

/* Two fixtures named Fixture in two namespaces, each with a test named
 * Same: GoogleTest lists and runs the name twice and fails the second (the
 * first test it registered decides). The second run is an entry of its
 * own, "Fixture.Same#2", with one lane or two. */
static void same_fixture(void)
{
	CU_ASSERT_EQUAL(mg_direct_status(OUTSIDE(4)), 1);
	const char *lanes[] = {"1", "2"};
	for (int i = 0; i < 2; i++) {
		outcome o;
		mg_driver_run(&o, "gtest", OUTSIDE(4), lanes[i], NULL, NULL);
		CU_ASSERT(exited_with(&o, 1));
		expect_state(o.report, "Fixture.Same", "pass");
		expect_state(o.report, "Fixture.Same#2", "fail");
		expect_message(o.report, "Fixture.Same#2", "two different test fixture classes");
		expect_state(o.report, "Other.Passes", "pass");
		done(&o);
	}
}

/* An ASan build that leaks: its LeakSanitizer exits 1 after the last test. */
static void asan_leak(void)
{
	CU_ASSERT_EQUAL(mg_direct_status(OUTSIDE(5)), 1);
	outcome o;
	mg_driver_run(&o, "gtest", OUTSIDE(5), "1", NULL, NULL);
	CU_ASSERT(exited_with(&o, 3)); /* an error entry: exit 3, as every error */
	expect_state(o.report, "Suite.First", "pass");
	expect_state(o.report, "Suite.Second", "pass");
	expect_state(o.report, "<program exit>", "error");
	expect_message(o.report, "<program exit>",
	               "SUMMARY: AddressSanitizer: 4096 byte(s) leaked");
	done(&o);
}

/* A TearDownTestSuite that exits 3: directly the suite after it never
 * runs and the run fails. Under memguard the tear-down is the failing
 * entry, named, and the suite after it runs in a fresh program (as after
 * a signal there): exit 1. Before: that suite was an error "did not run
 * it", exit 3 (drivers__gtest_exit_between has exit 0 too). */
static void exit_between(void)
{
	CU_ASSERT_EQUAL(mg_direct_status(OUTSIDE(6)), 3);
	outcome o;
	mg_driver_run(&o, "gtest", OUTSIDE(6), "1", NULL, NULL);
	CU_ASSERT(exited_with(&o, 1));
	expect_state(o.report, "Suite.First", "pass");
	expect_state(o.report, "Suite.Second", "pass");
	expect_state(o.report, "Suite.TearDownTestSuite", "fail");
	expect_message(o.report, "Suite.TearDownTestSuite", "exited with status 3 between tests");
	expect_state(o.report, "Other.Passes", "pass");
	CU_ASSERT_EQUAL(count(o.report, "error"), 0);
	done(&o);
}

/* GoogleTest's sharding variables: the shard's tests only, each run (not
 * the others reported as not run), as GoogleTest itself runs them; the
 * status file touched. */
static void gtest_shards(void)
{
	static const char *const want[2][3] = {{"pass", "(missing)", "pass"},
	                                       {"(missing)", "pass", "(missing)"}};
	static const char *const names[3] = {"Suite.First", "Suite.Second", "Other.Passes"};
	for (int i = 0; i < 2; i++) {
		outcome o;
		char path[128];
		mg(&o,
		   ARGV("run", "-j", "1", "--driver", "gtest", "--report", "report.json", "--",
		        OUTSIDE(1)),
		   ENV("GTEST_TOTAL_SHARDS=2", i ? "GTEST_SHARD_INDEX=1" : "GTEST_SHARD_INDEX=0",
		       "GTEST_SHARD_STATUS_FILE=shard.status"),
		   0);
		CU_ASSERT(exited_with(&o, 1)); /* the suite's tear-down fails in both */
		CU_ASSERT_FATAL(o.report != NULL);
		for (int k = 0; k < 3; k++)
			expect_state(o.report, names[k], want[i][k]);
		expect_state(o.report, "Suite.TearDownTestSuite", "fail");
		snprintf(path, sizeof(path), "%s/shard.status", o.dir);
		CU_ASSERT(access(path, F_OK) == 0);
		done(&o);
	}
}

/* --driver gtest on a program that is not one: exit 2, naming what it is. */
static void not_gtest_driver(void)
{
	outcome o;
	mg(&o, ARGV("run", "--driver", "gtest", "--report", "report.json", "--", HOG), NULL, 0);
	CU_ASSERT(exited_with(&o, 2));
	CU_ASSERT(strstr(o.err, "neither a GoogleTest nor a Catch2 program") != NULL);
	CU_ASSERT(o.report == NULL);
	done(&o);
#ifdef CATCH2_LEAKS
	mg(&o, ARGV("run", "--driver", "gtest", "--report", "report.json", "--", CATCH2_LEAKS),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 2));
	CU_ASSERT(strstr(o.err, "a Catch2 program (--driver catch2)") != NULL);
	done(&o);
#endif
	/* --driver ctest or native on a GoogleTest program: refused before it
	 * runs (before: its whole suite ran for each listing, GoogleTest
	 * ignoring --show-only=json-v1, and the run ended in exit 3) */
	static const char *const other[] = {"ctest", "native"};
	for (size_t i = 0; i < 2; i++) {
		mg(&o,
		   ARGV("run", "--driver", other[i], "--report", "report.json", "--", GTEST_SAMPLE),
		   NULL, 0);
		CU_ASSERT(exited_with(&o, 2));
		CU_ASSERT(strstr(o.err, "a GoogleTest program (--driver gtest)") != NULL);
		CU_ASSERT(strstr(o.out, "[ RUN      ]") == NULL &&
		          strstr(o.err, "[ RUN      ]") == NULL);
		CU_ASSERT(o.report == NULL);
		done(&o);
	}
}

#ifdef CATCH2_HASH
/* Catch2 v2 lists "#..." names in quotes: the failing one runs and fails;
 * names that end in white space are reported trimmed by Catch2's XML
 * reporter and are still the tests queued. */
static void catch2_hash_names(void)
{
	CU_ASSERT_EQUAL(mg_direct_status(CATCH2_HASH), 2); /* Catch2: its failures */
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "1", "--driver", "catch2", "--report", "report.json", "--",
	        CATCH2_HASH),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	expect_state(o.report, "#1234 fails", "fail");
	expect_state(o.report, "#12 passes", "pass");
	expect_state(o.report, "plain passes", "pass");
	CU_ASSERT(find_test(o.report, "\"#1234 fails\"") == NULL);
	/* before: both "error: Catch2 did not run it", the reporter's trimmed
	 * name matching no queued one */
	expect_state(o.report, "ends in a space ", "pass");
	expect_state(o.report, "fails, ends in a tab\t", "fail");
	CU_ASSERT_EQUAL(count(o.report, "error"), 0);
	done(&o);
}

/* --driver catch2 on a GoogleTest program: exit 2, naming what it is. */
static void not_catch2_driver(void)
{
	outcome o;
	mg(&o, ARGV("run", "--driver", "catch2", "--report", "report.json", "--", GTEST_SAMPLE),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 2));
	CU_ASSERT(strstr(o.err, "a GoogleTest program (--driver gtest)") != NULL);
	CU_ASSERT(o.report == NULL);
	done(&o);
}
#endif

static const mg_case cases[] = {
    {"teardown_suite", teardown_suite},
    {"setup_suite", setup_suite},
    {"global_env", global_env},
    {"same_fixture", same_fixture},
    {"asan_leak", asan_leak},
    {"exit_between", exit_between},
    {"gtest_shards", gtest_shards},
    {"not_gtest_driver", not_gtest_driver},
#ifdef CATCH2_HASH
    {"catch2_hash_names", catch2_hash_names},
    {"not_catch2_driver", not_catch2_driver},
#endif
};

MG_TEST_MAIN("drivers_fidelity", cases)

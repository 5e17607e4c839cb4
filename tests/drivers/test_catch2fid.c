/*
 * test_catch2fid.c - a Catch2 program's verdict and output are its own
 * under the real memguard binary (catch2_abort.cpp is the program): the
 * user's -a / -x N make Catch2 abort its run after that many failures, so
 * the failures stay fail, the tests it then does not run are skip naming
 * the option (never error), and memguard exits 1 where the direct run
 * exits non-zero; text the program prints outside every test case (a
 * static constructor's, a listener's) is kept in the report, not dropped,
 * and the static constructor's line in its listing is not taken for a test
 * (before: an error "Catch2 did not run it", exit 3); a batch that is
 * the whole listing is given no --input-file (catch2_argv.cpp).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <signal.h>

#include "mg_run.h"

/* The program run directly with args (NULL-terminated): its exit status. */
static int direct(const char *const *args)
{
	return mg_direct_argv(CATCH2_ABORT, args, NULL);
}

/* Every test's output in the report, joined (the text between two test
 * cases goes to the test in front as the shim's output is read). */
static void all_output(json_t *report, char *out, size_t cap)
{
	size_t i, k, len = 0;
	json_t *s, *t;
	out[0] = 0;
	json_array_foreach(json_object_get(report, "shards"), i, s)
	{
		json_array_foreach(json_object_get(s, "tests"), k, t)
		{
			const char *o = json_string_value(json_object_get(t, "output"));
			if (o && len + strlen(o) < cap) {
				memcpy(out + len, o, strlen(o) + 1);
				len += strlen(o);
			}
		}
	}
}

/*
 * A Catch2 test that calls exit(): the run ends as the direct run does
 * (exit 0: the test a pass, said in its output; exit 3: its fail, "exited
 * with status 3 during the test", exit 1), never a SIGSEGV crash, which
 * is the XML reporter's the driver runs the program with (before: crash,
 * exit 1 where the direct run exits 0). The tests after it run in a fresh
 * program, as after a crash, given as an --input-file: "exclude:me" among
 * them runs alone, not as every test but "me".
 */
static void catch2_exit_mid_test(void)
{
	static const char *const codes[] = {"MG_C2_EXIT=0", "MG_C2_EXIT=3"};
	/* the reporter's own death, which the driver must not take for the
	 * test's: run directly with -r xml, the program dies of SIGSEGV */
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "MG_C2_EXIT=0 '%s' -r xml >/dev/null 2>&1", CATCH2_EXITS);
	int st = system(cmd);
	CU_ASSERT(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 128 + SIGSEGV);
	for (int i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL(mg_direct_argv(CATCH2_EXITS, (const char *[]){NULL}, codes[i]),
		                3 * i);
		outcome o;
		mg(&o,
		   ARGV("run", "-j", "1", "--driver", "catch2", "--report", "report.json", "--",
		        CATCH2_EXITS),
		   (const char *const[]){codes[i], NULL}, 0);
		CU_ASSERT(exited_with(&o, i));
		CU_ASSERT_FATAL(o.report != NULL);
		expect_state(o.report, "a first", "pass");
		expect_state(o.report, "b exits midway", i ? "fail" : "pass");
		expect_state(o.report, "c after", "pass");
		/* in the fresh program's --input-file: that test alone (before: it
		 * ran every test but "me", the exit again among them) */
		expect_state(o.report, "exclude:me", "pass");
		CU_ASSERT_EQUAL(count(o.report, "pass") + count(o.report, "fail"), 4);
		CU_ASSERT_EQUAL(count(o.report, "crash") + count(o.report, "error"), 0);
		json_t *t = find_test(o.report, "b exits midway");
		const char *out = json_string_value(json_object_get(t, "output"));
		CU_ASSERT(out && strstr(out, i ? "memguard: the test called exit(3)"
		                               : "memguard: the test called exit(0)"));
		if (i)
			expect_message(o.report, "b exits midway",
			               "exited with status 3 during the test");
		done(&o);
	}
}

/* -a: Catch2 stops after the first failure; the rest is skip. */
static void catch2_abort(void)
{
	CU_ASSERT_EQUAL(direct((const char *[]){"-a", NULL}), 1);
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "1", "--driver", "catch2", "--report", "report.json", "--",
	        CATCH2_ABORT, "-a"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	expect_state(o.report, "a passes", "pass");
	expect_state(o.report, "b fails", "fail");
	expect_state(o.report, "c passes", "skip");
	expect_state(o.report, "d fails", "skip");
	expect_state(o.report, "e passes", "skip");
	expect_message(o.report, "c passes", "aborted the run after its failure, as -a asks");
	expect_message(o.report, "e passes", "as -a asks");
	CU_ASSERT_EQUAL(count(o.report, "error"), 0);
	done(&o);
}

/* -x 2 (and --abortx=2): Catch2 stops after its second failure. */
static void catch2_abortx(void)
{
	const char *forms[][2] = {{"-x", "2"}, {"--abortx=2", NULL}};
	for (int i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL(direct((const char *[]){forms[i][0], forms[i][1], NULL}), 2);
		outcome o;
		if (forms[i][1])
			mg(&o,
			   ARGV("run", "-j", "1", "--driver", "catch2", "--report", "report.json",
			        "--", CATCH2_ABORT, forms[i][0], forms[i][1]),
			   NULL, 0);
		else
			mg(&o,
			   ARGV("run", "-j", "1", "--driver", "catch2", "--report", "report.json",
			        "--", CATCH2_ABORT, forms[i][0]),
			   NULL, 0);
		CU_ASSERT(exited_with(&o, 1));
		CU_ASSERT_FATAL(o.report != NULL);
		expect_state(o.report, "a passes", "pass");
		expect_state(o.report, "b fails", "fail");
		expect_state(o.report, "c passes", "pass");
		expect_state(o.report, "d fails", "fail");
		expect_state(o.report, "e passes", "skip");
		expect_message(o.report, "e passes", i ? "as --abortx=2 asks" : "as -x 2 asks");
		CU_ASSERT_EQUAL(count(o.report, "error"), 0);
		done(&o);
	}
}

/* Without -a/-x every test runs; the text outside the test cases is kept. */
static void catch2_between_output(void)
{
	static char joined[1 << 16];
	CU_ASSERT_EQUAL(direct((const char *[]){NULL}), 2);
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "1", "--driver", "catch2", "--report", "report.json", "--",
	        CATCH2_ABORT),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	expect_state(o.report, "c passes", "pass");
	expect_state(o.report, "e passes", "pass");
	CU_ASSERT_EQUAL(count(o.report, "fail"), 2);
	all_output(o.report, joined, sizeof(joined));
	CU_ASSERT(strstr(joined, "static constructor says hello\n") != NULL);
	static const char *const names[] = {"a passes", "b fails", "c passes", "d fails",
	                                    "e passes"};
	for (size_t i = 0; i < 5; i++) {
		char line[64];
		snprintf(line, sizeof(line), "listener: starting %s\n", names[i]);
		if (!strstr(joined, line))
			fprintf(stderr, "missing '%s' in:\n%s\n", line, joined);
		CU_ASSERT(strstr(joined, line) != NULL);
	}
	CU_ASSERT(strstr(joined, "<Group") == NULL); /* the reporter's XML is not output */
	done(&o);
}

/* Catch2 v2 (no sharding of its own): a batch that is the whole listing
 * (-j 1, the user's spec kept) runs with the listing's own arguments, not
 * an --input-file of its names, which Catch2 matches every test case
 * against (tests x names; before: every batch was one); a lane's share at
 * -j 2, and what is left after a recycle, still are. The states are the
 * direct run's (catch2_argv.cpp: "b fails" fails). */
static void catch2_no_input_file(void)
{
	CU_ASSERT_EQUAL(mg_direct_argv(CATCH2_ARGV, (const char *[]){NULL}, NULL), 1);
	CU_ASSERT_EQUAL(mg_direct_argv(CATCH2_ARGV, (const char *[]){"~[e]", NULL}, NULL), 1);
	static const struct {
		const char *lanes, *recycle, *spec;
		size_t tests;
		int file; /* -1: the first program none, 1: every program one */
	} runs[] = {{"1", NULL, NULL, 5, 0},
	            {"1", NULL, "~[e]", 4, 0},
	            {"2", NULL, NULL, 5, 1},
	            {"1", "va=1M", NULL, 5, -1}};
	for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		outcome o;
		mg_catch2_argv_run(&o, CATCH2_ARGV, runs[r].lanes, runs[r].recycle, runs[r].spec,
		                   runs[r].tests);
		char buf[8192];
		const char *line[16];
		size_t n = mg_argv_log(&o, buf, sizeof(buf), line, 16);
		CU_ASSERT(runs[r].recycle ? n >= runs[r].tests : n == runs[r].tests);
		for (size_t i = 0; i < n; i++) {
			int file = strstr(line[i], "--input-file") != NULL;
			if (runs[r].file >= 0)
				CU_ASSERT_EQUAL(file, runs[r].file);
			if (runs[r].spec)
				CU_ASSERT_PTR_NOT_NULL(strstr(line[i], " ~[e] "));
		}
		if (runs[r].file < 0 && n)
			CU_ASSERT_PTR_NULL(strstr(line[0], "--input-file"));
		done(&o);
	}
}

/* Catch2's options that list or describe and run no test (v2: the direct
 * run exits with the count listed, or 0): refused, exit 2 naming the
 * option, no report, as ctest's -N, among other options. Before: the whole suite ran, exit 0 where
 * the direct run of --list-test-names-only exits with its count, and -h's lines were each an error,
 * exit 3 (libkainjow-mustache's tests). */
static void catch2_lists_none(void)
{
	static const char *const opts[] = {
	    "--list-test-names-only", "-l", "--list-tests", "-t",     "--list-tags",
	    "--list-reporters",       "-h", "-?",           "--help", "--libidentify"};
	CU_ASSERT(mg_direct_argv(CATCH2_ABORT, (const char *[]){"--list-test-names-only", NULL},
	                         NULL) > 0);
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		outcome o;
		char said[64];
		mg(&o,
		   ARGV("run", "-j", "2", "--report", "report.json", "--", CATCH2_ABORT, "--order",
		        "decl", opts[i]),
		   NULL, 0);
		CU_ASSERT(exited_with(&o, 2));
		snprintf(said, sizeof(said), "Catch2's '%s' lists or describes and runs no test",
		         opts[i]);
		CU_ASSERT_PTR_NOT_NULL(strstr(o.err, said));
		CU_ASSERT(o.report == NULL);
		done(&o);
	}
}

/* A test case with no assertion under Catch2's -w NoAssertions fails
 * (Catch2's console: "No assertions in test case ..."; its XML has only a
 * failed OverallResult): memguard's message says why, at one lane and two
 * (before: an empty message, and JUnit's message=""). */
static void catch2_no_assertions(void)
{
	CU_ASSERT(mg_direct_argv(CATCH2_BENCH, (const char *[]){"-w", "NoAssertions", NULL},
	                         "MG_BENCH_TESTS=3") != 0);
	for (int lanes = 1; lanes <= 2; lanes++) {
		outcome o;
		mg(&o,
		   ARGV("run", "-j", lanes == 1 ? "1" : "2", "--report", "report.json", "--",
		        CATCH2_BENCH, "-w", "NoAssertions"),
		   ENV("MG_BENCH_TESTS=3"), 0);
		CU_ASSERT(exited_with(&o, 1));
		CU_ASSERT_FATAL(o.report != NULL);
		CU_ASSERT_EQUAL(count(o.report, "fail"), 3);
		json_t *t = find_test(o.report, "Bench t00001");
		const char *m = t ? json_string_value(json_object_get(t, "message")) : NULL;
		CU_ASSERT(m && !strncmp(m, "no assertion failed: under -w NoAssertions", 42));
		done(&o);
	}
	/* without it, each passes */
	outcome o;
	mg(&o, ARGV("run", "-j", "1", "--report", "report.json", "--", CATCH2_BENCH),
	   ENV("MG_BENCH_TESTS=3"), 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT(o.report && count(o.report, "pass") == 3);
	done(&o);
}

/* A run ended by SIGTERM while each lane's Catch2 v2 program runs a batch
 * given as an --input-file (a recycle after every test: each batch after
 * the first is one): the file goes with the run, in the run's directory,
 * which the runner removes once every host has ended (before: in TMPDIR
 * itself, where the shim the runner ended left it). */
static void catch2_interrupt_files(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-q", "-j", "2", "--recycle-at", "rss=1M", "--driver", "catch2", "--report",
	        "report.json", "--", CATCH2_BENCH),
	   ENV("MG_BENCH_TESTS=400", "MG_BENCH_SLOW_MS=20"), 2000);
	CU_ASSERT(killed_by(&o, SIGTERM));
	CU_ASSERT_FATAL(o.report != NULL);
	/* ended in the middle: some passed, some not run */
	CU_ASSERT(count(o.report, "pass") > 0);
	CU_ASSERT(count(o.report, "not-run") > 0);
	CU_ASSERT_EQUAL(mg_dir_count(o.dir, "memguard-"), 0);
	done(&o);
}

/* A Catch2 program's first test grows from that program's own reading as
 * it starts (the probe's base line on its pipe), not from the listing
 * program's end (before: 1.7 MiB of VA and 1.2 MiB of RSS at 5,000 tests
 * of catch2_bench, whose tests allocate nothing), and the shard's peak is
 * its program's, not the listing's in huge pages. */
static void catch2_base(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--driver", "catch2", "--report", "report.json", "--",
	        CATCH2_BENCH),
	   ENV("MG_BENCH_TESTS=5000"), 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 5000);
	json_t *t = find_test(o.report, "Bench t00000");
	json_int_t dva = t ? json_integer_value(json_object_get(t, "va_delta")) : -1;
	json_int_t drss = t ? json_integer_value(json_object_get(t, "rss_delta")) : -1;
	json_int_t va = t ? json_integer_value(json_object_get(t, "va_after")) : 0;
	json_int_t rss = t ? json_integer_value(json_object_get(t, "rss_after")) : 0;
	CU_ASSERT(dva >= 0 && dva < 64 << 10);
	CU_ASSERT(drss >= 0 && drss < 256 << 10);
	CU_ASSERT(shard_max(o.report, "peak_va") < va + (256 << 10));
	CU_ASSERT(shard_max(o.report, "peak_rss") < rss + (512 << 10));
	if (dva < 0 || dva >= 64 << 10 || drss < 0 || drss >= 256 << 10)
		fprintf(stderr, "Bench t00000: va_delta %lld, rss_delta %lld\n", (long long)dva,
		        (long long)drss);
	done(&o);
}

static const mg_case cases[] = {
    {"catch2_base", catch2_base},
    {"catch2_interrupt_files", catch2_interrupt_files},
    {"catch2_lists_none", catch2_lists_none},
    {"catch2_no_assertions", catch2_no_assertions},
    {"catch2_abort", catch2_abort},
    {"catch2_abortx", catch2_abortx},
    {"catch2_between_output", catch2_between_output},
    {"catch2_no_input_file", catch2_no_input_file},
    {"catch2_exit_mid_test", catch2_exit_mid_test},
};

MG_TEST_MAIN("drivers_catch2fid", cases)

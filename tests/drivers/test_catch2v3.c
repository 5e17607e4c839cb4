/*
 * test_catch2v3.c - a Catch2 v3 program (catch2v3_basic.cpp, built from
 * Catch2 3.7.1's amalgamated files: fetch-catch2v3.cmake) under the real
 * memguard binary: the auto driver knows it for Catch2 (v3 has no
 * --list-test-names-only; before: run whole by wrap), its quoted '#' name
 * is the test's (before: an error "Catch2 did not run it", exit 3), SKIP()
 * is skip (before: pass), a program given only skipped tests (a batch, a
 * recycle) is no error (Catch2 v3 exits 4 then: before, an error
 * <program exit>, exit 3); memguard exits 1 where the program exits 42
 * or 4 (every test skipped), 5 (no tests) where it exits 2, 0 with the
 * user's --allow-running-no-tests;
 * one name registered twice (catch2v3_dup.cpp) is followed in both runs;
 * the user's v3 shard is what runs; the user's -r junit::out=FILE is
 * written; the same program built -m32 is an x86 shard, the same states;
 * linked against Catch2 as a shared library, auto still knows it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mg_run.h"

/* The states Catch2 itself gives catch2v3_basic's tests ([.] f not run;
 * g's failure [!mayfail] lets pass is Catch2's "failed as expected"). */
static void expect_basic(json_t *report)
{
	expect_state(report, "a passes", "pass");
	expect_state(report, "b fails", "fail");
	expect_state(report, "c skips", "skip");
	expect_state(report, "#d hash name", "pass");
	expect_state(report, "e skips after a check", "skip");
	expect_state(report, "g may fail then skips", "pass");
	expect_state(report, "h passes", "pass");
	CU_ASSERT_PTR_NULL(find_test(report, "f hidden"));
	CU_ASSERT_EQUAL(count(report, "error"), 0);
	CU_ASSERT_EQUAL(count(report, "pass") + count(report, "fail") + count(report, "skip"), 7);
}

/* memguard run -- PROG: the auto driver, one lane. */
static void catch2v3_auto(void)
{
	CU_ASSERT_EQUAL(mg_direct_argv(CATCH2V3_BASIC, (const char *[]){NULL}, NULL), 42);
	outcome o;
	mg(&o, ARGV("run", "--report", "report.json", "--", CATCH2V3_BASIC), NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	expect_basic(o.report);
	expect_message(o.report, "c skips", "not here");
	done(&o);
}

/* --driver catch2 with two lanes and a recycle at every boundary: each
 * test in a program of its own, the skipped ones too. */
static void catch2v3_recycle(void)
{
	outcome o;
	mg_driver_run(&o, "catch2", CATCH2V3_BASIC, "2", "va=1M", NULL);
	CU_ASSERT(exited_with(&o, 1));
	expect_basic(o.report);
	done(&o);
}

/* The user's spec naming skipped tests only, one program: it is given
 * them as Catch2 would run them; the tests are skip, not an error. */
static void catch2v3_skipped_batch(void)
{
	CU_ASSERT_EQUAL(mg_direct_argv(CATCH2V3_BASIC, (const char *[]){"[b]~f*", NULL}, NULL), 4);
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "1", "--driver", "catch2", "--report", "report.json", "--",
	        CATCH2V3_BASIC, "[b]~f*"),
	   NULL, 0);
	/* Catch2 v3 fails a run whose every test skipped (4): memguard's
	 * <program exit> fail, exit 1 (listing_all_skipped) */
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	expect_state(o.report, "c skips", "skip");
	expect_state(o.report, "e skips after a check", "skip");
	CU_ASSERT_EQUAL(count(o.report, "error"), 0);
	CU_ASSERT_EQUAL(count(o.report, "skip"), 2);
	done(&o);
}

/* A spec that matches no test (Catch2 v3: exit 2) is memguard's no-tests
 * exit 5; with the user's --allow-running-no-tests Catch2 exits 0 and so
 * does memguard, for no test and for skipped tests only (before: 5, and 1
 * for the skipped ones, a <program exit> fail). */
static void catch2v3_no_tests(void)
{
	static const char *const specs[] = {"no such test", "[b]~f*"};
	CU_ASSERT_EQUAL(mg_direct_argv(CATCH2V3_BASIC, (const char *[]){specs[0], NULL}, NULL), 2);
	outcome o;
	mg(&o, ARGV("run", "--driver", "catch2", "--", CATCH2V3_BASIC, specs[0]), NULL, 0);
	CU_ASSERT(exited_with(&o, 5));
	done(&o);
	for (int i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL(
		    mg_direct_argv(CATCH2V3_BASIC,
		                   (const char *[]){specs[i], "--allow-running-no-tests", NULL},
		                   NULL),
		    0);
		mg(&o,
		   ARGV("run", "-j", "2", "--driver", "catch2", "--report", "report.json", "--",
		        CATCH2V3_BASIC, specs[i], "--allow-running-no-tests"),
		   NULL, 0);
		CU_ASSERT(exited_with(&o, 0));
		CU_ASSERT_FATAL(o.report != NULL);
		CU_ASSERT_EQUAL(count(o.report, "skip"), i ? 2 : 0);
		CU_ASSERT_EQUAL(count(o.report, "error"), 0);
		done(&o);
	}
}

/* An option Catch2 refuses (the direct run exits 1, "Error(s) in input:"
 * on stderr): memguard's usage error, exit 2, Catch2's words once and
 * memguard's line under them (and not the seed it drew), with --allow-no-tests too (before: "no
 * tests ran", exit 5, and 0 with --allow-no-tests: a pass where the
 * direct run fails). */
static void catch2v3_bad_option(void)
{
	CU_ASSERT_EQUAL(mg_direct_argv(CATCH2V3_BASIC, (const char *[]){"--bogus-opt", NULL}, NULL),
	                1);
	for (int allow = 0; allow < 2; allow++) {
		outcome o;
		mg(&o,
		   allow ? ARGV("run", "--allow-no-tests", "--driver", "catch2", "--",
		                CATCH2V3_BASIC, "--bogus-opt")
		         : ARGV("run", "--driver", "catch2", "--", CATCH2V3_BASIC, "--bogus-opt"),
		   NULL, 0);
		CU_ASSERT(exited_with(&o, 2));
		const char *w = strstr(o.err, "Unrecognised token: --bogus-opt");
		CU_ASSERT(w != NULL && strstr(w + 1, "Unrecognised token: --bogus-opt") == NULL);
		CU_ASSERT(strstr(o.err, "memguard run: Catch2 refused its command line") != NULL);
		CU_ASSERT(strstr(o.err, "no tests ran") == NULL);
		/* nothing ran: no word of the seed the run drew for it */
		CU_ASSERT(strstr(o.err, "random seed is") == NULL);
		done(&o);
	}
}

/* One name registered twice, the second fails: one lane and two, the
 * second run's failure is "NAME#2", fail, as GoogleTest's name run again
 * (before: not followed, the program's exit an error <program exit>, exit
 * 3 where Catch2 exits 42). */
static void catch2v3_same_name(void)
{
	CU_ASSERT_EQUAL(mg_direct_argv(CATCH2V3_DUP, (const char *[]){NULL}, NULL), 42);
	/* 1 lane, 2, and 1 with a recycle at every boundary: the probe lets
	 * the second case of the name run before it parks */
	for (int i = 0; i < 3; i++) {
		outcome o;
		mg_driver_run(&o, "catch2", CATCH2V3_DUP, i == 1 ? "2" : "1",
		              i == 2 ? "va=1M" : NULL, NULL);
		CU_ASSERT(exited_with(&o, 1));
		expect_state(o.report, "a passes", "pass");
		expect_state(o.report, "b same name", "pass");
		expect_state(o.report, "b same name#2", "fail");
		expect_state(o.report, "c passes", "pass");
		/* a [!shouldfail] test that passes fails, and says why (before:
		 * an empty message); one that fails passes */
		expect_state(o.report, "d should fail but passes", "fail");
		expect_message(o.report, "d should fail but passes", "tagged [!shouldfail]");
		expect_state(o.report, "e should fail and does", "pass");
		/* the test's own message (a WARN) after the reason */
		expect_state(o.report, "f should fail but warns", "fail");
		expect_message(o.report, "f should fail but warns", "tagged [!shouldfail]");
		expect_message(o.report, "f should fail but warns", "careful here");
		CU_ASSERT_EQUAL(count(o.report, "error"), 0);
		done(&o);
	}
}

/* The user's v3 shard (--shard-count 2 --shard-index N): memguard runs
 * the tests the shard lists, each program given its batch whole (before:
 * the batch was sharded again, half of it an error "Catch2 did not run
 * it", exit 3). */
static void catch2v3_shard(void)
{
	const char *const want[2][4] = {
	    {"a passes", "b fails", "c skips", "#d hash name"},
	    {"e skips after a check", "g may fail then skips", "h passes", NULL}};
	const char *const state[2][4] = {{"pass", "fail", "skip", "pass"},
	                                 {"skip", "pass", "pass", NULL}};
	for (int i = 0; i < 2; i++) {
		const char *idx = i ? "--shard-index=1" : "--shard-index=0";
		CU_ASSERT_EQUAL(mg_direct_argv(CATCH2V3_BASIC,
		                               (const char *[]){"--shard-count", "2", idx, NULL},
		                               NULL),
		                i ? 0 : 42);
		outcome o;
		mg(&o,
		   ARGV("run", "-j", "2", "--driver", "catch2", "--report", "report.json", "--",
		        CATCH2V3_BASIC, "--shard-count", "2", idx),
		   NULL, 0);
		CU_ASSERT(exited_with(&o, i ? 0 : 1));
		CU_ASSERT_FATAL(o.report != NULL);
		for (int k = 0; k < 4 && want[i][k]; k++)
			expect_state(o.report, want[i][k], state[i][k]);
		CU_ASSERT_EQUAL(count(o.report, "error"), 0);
		CU_ASSERT_EQUAL(count(o.report, "pass") + count(o.report, "fail") +
		                    count(o.report, "skip"),
		                i ? 3 : 4);
		done(&o);
	}
}

/* v3's reporter spec -r junit::out=FILE (beside a console reporter, and
 * as --reporter=junit::out=FILE::colour-mode=none): memguard writes the
 * user's JUnit file whole, the tests in Catch2's states (before: not
 * written at all, nothing said), its suite with the attributes of
 * Catch2's own (v3's skipped count, a timestamp with a Z: before, neither). */
static void catch2v3_junit_out(void)
{
	char dir[] = "/tmp/mg-c2v3-XXXXXX", path[64], spec[160], buf[16384];
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	/* Catch2's own file's suite: its attributes, which memguard's has */
	char direct[64], dattrs[160], dstamp[32], mattrs[160], mstamp[32];
	snprintf(direct, sizeof(direct), "%s/direct.xml", dir);
	snprintf(spec, sizeof(spec), "junit::out=%s", direct);
	CU_ASSERT(mg_direct_argv(CATCH2V3_BASIC, (const char *[]){"-r", spec, NULL}, NULL) != 0);
	CU_ASSERT_EQUAL_FATAL(mg_junit_suite_attrs(direct, dattrs, sizeof(dattrs), dstamp), 0);
	CU_ASSERT_STRING_EQUAL(dattrs,
	                       "name errors failures skipped tests hostname time timestamp");
	CU_ASSERT(strlen(dstamp) == 20 && dstamp[19] == 'Z');
	CU_ASSERT_EQUAL(unlink(direct), 0);
	snprintf(path, sizeof(path), "%s/user.xml", dir);
	for (int form = 0; form < 2; form++) {
		outcome o;
		if (form == 0) {
			snprintf(spec, sizeof(spec), "junit::out=%s", path);
			mg(&o,
			   ARGV("run", "-j", "2", "--driver", "catch2", "--report", "report.json",
			        "--", CATCH2V3_BASIC, "-r", "console", "-r", spec),
			   NULL, 0);
		} else {
			snprintf(spec, sizeof(spec), "--reporter=junit::out=%s::colour-mode=none",
			         path);
			mg(&o,
			   ARGV("run", "-j", "2", "--driver", "catch2", "--report", "report.json",
			        "--", CATCH2V3_BASIC, spec),
			   NULL, 0);
		}
		CU_ASSERT(exited_with(&o, 1));
		CU_ASSERT_FATAL(slurp(path, buf, sizeof(buf)) != NULL);
		const char *c = strstr(buf, "name=\"c skips\""),
		           *b = strstr(buf, "name=\"b fails\"");
		CU_ASSERT(c && strstr(c, "<skipped") &&
		          strstr(c, "<skipped") < strstr(c, "</testcase>"));
		CU_ASSERT(b && strstr(b, "<failure") &&
		          strstr(b, "<failure") < strstr(b, "</testcase>"));
		CU_ASSERT(strstr(buf, "name=\"#d hash name\"") != NULL);
		CU_ASSERT_EQUAL(mg_junit_suite_attrs(path, mattrs, sizeof(mattrs), mstamp), 0);
		CU_ASSERT_STRING_EQUAL(mattrs, dattrs);
		CU_ASSERT(strlen(mstamp) == 20 && mstamp[19] == 'Z');
		CU_ASSERT_EQUAL(unlink(path), 0);
		done(&o);
	}
	/* stdout as v3 spells it ("-", ::out=-, %stdout), and a name in another
	 * case (v3 matches any): refused before the run, as a bare -r junit
	 * (found by review: they went through, the XML amid memguard's table) */
	const char *spelt[][3] = {{"junit", "-o", "-"},
	                          {"junit::out=-", NULL, NULL},
	                          {"JUnit", NULL, NULL},
	                          {"XML", "-o", "%stdout"}};
	for (size_t i = 0; i < 4; i++) {
		outcome o;
		if (spelt[i][1])
			mg(&o,
			   ARGV("run", "--driver", "catch2", "--report", "report.json", "--",
			        CATCH2V3_BASIC, "-r", spelt[i][0], spelt[i][1], spelt[i][2]),
			   NULL, 0);
		else
			mg(&o,
			   ARGV("run", "--driver", "catch2", "--report", "report.json", "--",
			        CATCH2V3_BASIC, "-r", spelt[i][0]),
			   NULL, 0);
		CU_ASSERT(exited_with(&o, 2));
		CU_ASSERT_PTR_NOT_NULL(strstr(o.err, "writes its report to stdout"));
		done(&o);
	}
	/* -r JUnit -o F is junit's file in v3 (before: "not written") */
	{
		outcome o;
		mg(&o,
		   ARGV("run", "-j", "2", "--driver", "catch2", "--report", "report.json", "--",
		        CATCH2V3_BASIC, "-r", "JUnit", "-o", path),
		   NULL, 0);
		CU_ASSERT(exited_with(&o, 1));
		CU_ASSERT_FATAL(slurp(path, buf, sizeof(buf)) != NULL);
		CU_ASSERT(strstr(buf, "name=\"b fails\"") != NULL);
		CU_ASSERT_EQUAL(unlink(path), 0);
		done(&o);
	}
	CU_ASSERT_EQUAL(rmdir(dir), 0);
}

/* catch2v3_basic.cpp linked against the amalgamated library built shared:
 * Catch2's marker is in libmg_catch2v3_shared.so, which the program needs
 * (found through its RUNPATH; for a program without one, through
 * LD_LIBRARY_PATH, as the loader finds it): the auto driver takes it for
 * Catch2, run and list (before: wrap, one entry for the whole program),
 * and --driver catch2 takes it (before: refused, exit 2). */
static void catch2v3_shared_lib(void)
{
	static const char ld[] = "LD_LIBRARY_PATH=" CATCH2V3_SHARED_DIR;
	CU_ASSERT_EQUAL(mg_direct_argv(CATCH2V3_SHARED, (const char *[]){NULL}, NULL), 42);
	CU_ASSERT_EQUAL(mg_direct_argv(CATCH2V3_SHARED_NORPATH, (const char *[]){NULL}, ld), 42);
	outcome o;
	mg(&o, ARGV("run", "--report", "report.json", "--", CATCH2V3_SHARED), NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	expect_basic(o.report);
	CU_ASSERT(strstr(o.err, "--driver wrap") == NULL);
	done(&o);
	mg(&o, ARGV("run", "-j", "2", "--report", "report.json", "--", CATCH2V3_SHARED_NORPATH),
	   ENV(ld), 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	expect_basic(o.report);
	done(&o);
	/* --driver catch2: the program is what it says (before: refused, "is
	 * neither a GoogleTest nor a Catch2 program", exit 2) */
	mg_driver_run(&o, "catch2", CATCH2V3_SHARED, "1", NULL, NULL);
	CU_ASSERT(exited_with(&o, 1));
	expect_basic(o.report);
	done(&o);
	/* memguard list: the program's names, as its own listing */
	mg(&o, ARGV("list", "--", CATCH2V3_SHARED), NULL, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT(strstr(o.out, "a passes\n") != NULL);
	CU_ASSERT(strstr(o.out, "#d hash name\n") != NULL);
	done(&o);
}

#ifdef CATCH2V3_BASIC32
/* catch2v3_basic built -m32 against the amalgamated library built -m32:
 * an x86 shard, the auto driver, the states Catch2 gives and exit 1 where
 * the direct run exits 42; with 2 lanes and with a recycle at every
 * boundary (a program a test). Exit 77 where this kernel cannot execute
 * 32-bit programs: tests/run runs it in the x86 VM then. */
static void catch2v3_x86(void)
{
	char line[256];
	FILE *p = popen("'" CATCH2V3_BASIC32 "' --list-tests --verbosity quiet 2>&1", "r");
	CU_ASSERT_FATAL(p != NULL);
	int exec_refused = 0;
	while (fgets(line, sizeof(line), p))
		exec_refused |= strstr(line, "Exec format error") != NULL ||
		                strstr(line, "cannot execute") != NULL;
	int st = pclose(p);
	if (exec_refused || (WIFEXITED(st) && WEXITSTATUS(st) == 126)) {
		fprintf(stderr, "\n  skipped: this kernel cannot execute %s\n", CATCH2V3_BASIC32);
		fflush(NULL);
		_exit(77);
	}
	CU_ASSERT_EQUAL(mg_direct_argv(CATCH2V3_BASIC32, (const char *[]){NULL}, NULL), 42);
	outcome o;
	mg(&o, ARGV("run", "--report", "report.json", "--", CATCH2V3_BASIC32), NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT(mg_shards_arch(o.report, "x86"));
	expect_basic(o.report);
	expect_message(o.report, "c skips", "not here");
	done(&o);
	for (int recycle = 0; recycle < 2; recycle++) {
		mg_driver_run(&o, "catch2", CATCH2V3_BASIC32, "2", recycle ? "va=1M" : NULL, NULL);
		CU_ASSERT(exited_with(&o, 1));
		CU_ASSERT(mg_shards_arch(o.report, "x86"));
		expect_basic(o.report);
		/* a program a test: a recycle after each but a lane's last */
		json_int_t recycles = shard_sum(o.report, "recycles");
		CU_ASSERT(recycle ? recycles >= 5 : recycles == 0);
		done(&o);
	}
}
#endif

/* A batch that is the whole listing runs with the listing's arguments
 * (-j 1, the user's spec kept), one that is a chunk of v3's sharding
 * with --shard-count/--shard-index (-j 2: 3 and 2 tests; -j 3: 2, 2, 1),
 * never as an --input-file, which Catch2 matches every test case against
 * name by name (tests x names; before: every batch was one); after a
 * recycle the rest is one again. The states are the direct run's. The
 * program is listed twice a run (the listing host's listing and its
 * listing of no test), never by a lane's shim checking that the program
 * lists the list: the listing host said so (its end line; before, each
 * lane's shim listed once more). */
static void catch2v3_no_input_file(void)
{
	CU_ASSERT_EQUAL(mg_direct_argv(CATCH2V3_ARGV, (const char *[]){NULL}, NULL), 42);
	CU_ASSERT_EQUAL(mg_direct_argv(CATCH2V3_ARGV, (const char *[]){"~[e]", NULL}, NULL), 42);
	static const struct {
		const char *lanes, *recycle, *spec, *want; /* want: in every line */
		size_t tests;
	} runs[] = {{"1", NULL, NULL, "--reporter xml", 5},
	            {"1", NULL, "~[e]", " ~[e] ", 4},
	            {"2", NULL, NULL, "--shard-count 2 --shard-index ", 5},
	            {"3", NULL, NULL, "--shard-count 3 --shard-index ", 5},
	            {"1", "va=1M", NULL, "--reporter xml", 5},
	            {"2", "va=1M", NULL, "--reporter xml", 5}};
	for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		outcome o;
		mg_catch2_argv_run(&o, CATCH2V3_ARGV, runs[r].lanes, runs[r].recycle, runs[r].spec,
		                   runs[r].tests);
		char buf[8192];
		const char *line[16];
		size_t n = mg_argv_log(&o, buf, sizeof(buf), line, 16);
		/* each test ran once, in a program given no --input-file; after a
		 * recycle what is left may be one (and the failure of a program
		 * recycled at its end runs again in a fresh one, as before) */
		CU_ASSERT(runs[r].recycle ? n >= runs[r].tests : n == runs[r].tests);
		char path[256];
		snprintf(path, sizeof(path), "%s/list.log", o.dir);
		CU_ASSERT_EQUAL(mg_lines_in(path, "listed"), 2);
		for (size_t i = 0; i < n; i++) {
			CU_ASSERT_PTR_NOT_NULL(strstr(line[i], runs[r].want));
			if (!runs[r].recycle || i == 0)
				CU_ASSERT_PTR_NULL(strstr(line[i], "--input-file"));
		}
		done(&o);
	}
}

/* A static constructor's line on stdout comes in front of v3's listing
 * too: the listing of no test (exclude:*) prints it as well, so it is not
 * taken for a test (it would run as one and be an error); the run is the
 * direct run's. v3 lists quietly (three writes) and twice: by its XML
 * reporter it would list once, but that writes a line at a time (5,451
 * writes for UsageTests' 248 tests, ~17 ms more a run than the second
 * listing costs). */
static void catch2v3_noise(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "2", "--driver", "catch2", "--report", "report.json", "--",
	        CATCH2V3_ARGV),
	   ENV("C2_NOISE=1", "C2_LIST_LOG=list.log"), 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 4);
	CU_ASSERT_EQUAL(count(o.report, "fail"), 1);
	CU_ASSERT_EQUAL(count(o.report, "error"), 0);
	CU_ASSERT_PTR_NULL(find_test(o.report, "catch2_argv: a static constructor's line"));
	char path[256];
	snprintf(path, sizeof(path), "%s/list.log", o.dir);
	CU_ASSERT_EQUAL(mg_lines_in(path, "listed"), 2);
	done(&o);
}

static const mg_case cases[] = {
    {"catch2v3_auto", catch2v3_auto},
    {"catch2v3_noise", catch2v3_noise},
    {"catch2v3_recycle", catch2v3_recycle},
    {"catch2v3_skipped_batch", catch2v3_skipped_batch},
    {"catch2v3_no_tests", catch2v3_no_tests},
    {"catch2v3_bad_option", catch2v3_bad_option},
    {"catch2v3_same_name", catch2v3_same_name},
    {"catch2v3_shard", catch2v3_shard},
    {"catch2v3_junit_out", catch2v3_junit_out},
    {"catch2v3_shared_lib", catch2v3_shared_lib},
    {"catch2v3_no_input_file", catch2v3_no_input_file},
#ifdef CATCH2V3_BASIC32
    {"catch2v3_x86", catch2v3_x86},
#endif
};

MG_TEST_MAIN("drivers_catch2v3", cases)

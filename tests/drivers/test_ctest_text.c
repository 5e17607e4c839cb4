/*
 * test_ctest_text.c - what ctest reads as a CTest project's text: the
 * listing amid the output of CTestCustom.cmake's pre- and post-test
 * commands (CLI11's project prints its build information there), and a
 * test's output judged by its regular expressions as ctest judges it:
 * stdout and stderr in one stream, in CMake's regular expression syntax;
 * and the order CTest's fixtures and DEPENDS give the tests.
 * Each test's verdict is checked against ctest's own on the same project.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mg_run.h"

/* A CTest project by hand (ctest needs no build): DIR gets its
 * CTestTestfile.cmake (tests) and, when custom is set, CTestCustom.cmake. */
static void project_in(const char *dir, const char *tests, const char *custom)
{
	char p[256];
	snprintf(p, sizeof(p), "%s/CTestTestfile.cmake", dir);
	FILE *f = fopen(p, "w");
	CU_ASSERT_FATAL(f && fputs(tests, f) >= 0 && fclose(f) == 0);
	if (!custom)
		return;
	snprintf(p, sizeof(p), "%s/CTestCustom.cmake", dir);
	f = fopen(p, "w");
	CU_ASSERT_FATAL(f && fputs(custom, f) >= 0 && fclose(f) == 0);
}

static void project(char *dir, size_t size, const char *tests, const char *custom)
{
	snprintf(dir, size, "/tmp/mg-ctt-XXXXXX");
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	project_in(dir, tests, custom);
}

static void project_free(const char *dir)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CU_ASSERT(system(cmd) == 0);
}

/* ctest's own verdict of one test: 1 passed, 0 failed. */
static int ctest_passes(const char *dir, const char *name)
{
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "'%s' --test-dir '%s' -R '^%s$' >/dev/null 2>&1", CTEST_BIN, dir,
	         name);
	int st = system(cmd);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* The tests ctest reports failed ("The following tests FAILED:" lines
 * "N - NAME (Failed|Not Run)") in a -j 2 run, into buf. */
static const char *ctest_failures(const char *dir, char *buf, size_t cap)
{
	char cmd[512], line[512];
	size_t n = 0;
	snprintf(cmd, sizeof(cmd), "'%s' --test-dir '%s' -j 2 2>&1", CTEST_BIN, dir);
	FILE *p = popen(cmd, "r");
	buf[0] = 0;
	CU_ASSERT_FATAL(p != NULL);
	while (fgets(line, sizeof(line), p)) {
		const char *dash = strstr(line, " - "), *paren = strrchr(line, '(');
		if (dash && paren && paren > dash && n + (size_t)(paren - dash) + 2 < cap) {
			size_t len = (size_t)(paren - 1 - (dash + 3));
			buf[n++] = '|';
			memcpy(buf + n, dash + 3, len);
			n += len;
			buf[n++] = '|';
			buf[n] = 0;
		}
	}
	pclose(p);
	return buf;
}

typedef struct verdict {
	const char *name;
	int passes;
} verdict;

/* Each test's verdict is want's in ctest's own -j 2 run, and in memguard's
 * with jobs lanes, which exits 1 (some fail): o is that run's. */
static void same_verdicts(outcome *o, const char *dir, const verdict *want, size_t n,
                          const char *jobs)
{
	char failed[1024];
	ctest_failures(dir, failed, sizeof(failed));
	for (size_t i = 0; i < n; i++) {
		char bar[64];
		snprintf(bar, sizeof(bar), "|%s|", want[i].name);
		if ((strstr(failed, bar) == NULL) != want[i].passes) {
			fprintf(stderr, "\n  ctest itself: %s (failed: %s)\n", want[i].name,
			        failed);
			CU_FAIL("ctest's own verdict is not the expected one");
		}
	}
	mg(o,
	   ARGV("run", "-q", "-j", jobs, "--driver", "ctest", "--report", "report.json", "--",
	        CTEST_BIN, "--test-dir", dir),
	   NULL, 0);
	CU_ASSERT(exited_with(o, 1));
	CU_ASSERT_FATAL(o->report != NULL);
	for (size_t i = 0; i < n; i++)
		expect_state(o->report, want[i].name, want[i].passes ? "pass" : "fail");
}

/* Before: "ctest --show-only=json-v1 gave no test list: '[' or '{'
 * expected near 'pre'", exit 3, no test run. The commands' text is passed
 * on; a line of it that opens a brace is not taken for the listing. */
static void ctest_custom_text(void)
{
	char dir[64];
	outcome o;
	project(dir, sizeof(dir),
	        "add_test(first \"/bin/true\")\n"
	        "add_test(second \"/bin/true\")\n",
	        "set(CTEST_CUSTOM_PRE_TEST \"/bin/sh -c \\\"echo pre text; echo {; echo "
	        "'{\\\\\\\"kind\\\\\\\": 1}'\\\"\")\n"
	        "set(CTEST_CUSTOM_POST_TEST \"/bin/echo post text\")\n");
	CU_ASSERT(ctest_passes(dir, "first"));
	mg(&o,
	   ARGV("run", "-q", "--driver", "ctest", "--report", "report.json", "--", CTEST_BIN,
	        "--test-dir", dir),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 2);
	CU_ASSERT(strstr(o.err, "pre text") != NULL);
	CU_ASSERT(strstr(o.err, "post text") != NULL);
	CU_ASSERT(strstr(o.err, "no test list") == NULL);
	done(&o);
	project_free(dir);
}

/* Before: the regexes saw stdout alone and read braces as POSIX intervals
 * and "\w" as a word character: stderr_pass and braces_literal failed, and
 * braces_interval, backslash_w and stderr_fail passed, each against ctest. */
static void ctest_regex_output(void)
{
	static const verdict want[] = {
	    {"stderr_pass", 1},    {"braces_literal", 1}, {"braces_interval", 0},
	    {"across_streams", 1}, {"stderr_fail", 0},    {"backslash_w", 0},
	    {"backslash_dot", 1},
	};
	char dir[64];
	outcome o;
	project(dir, sizeof(dir),
	        "add_test(stderr_pass \"/bin/sh\" \"-c\" \"echo hello >&2; exit 1\")\n"
	        "set_tests_properties(stderr_pass PROPERTIES PASS_REGULAR_EXPRESSION \"hel+o\")\n"
	        "add_test(braces_literal \"/bin/sh\" \"-c\" \"echo a3{3}b\")\n"
	        "set_tests_properties(braces_literal PROPERTIES PASS_REGULAR_EXPRESSION "
	        "\"a3{3}b\")\n"
	        "add_test(braces_interval \"/bin/sh\" \"-c\" \"echo a333b\")\n"
	        "set_tests_properties(braces_interval PROPERTIES PASS_REGULAR_EXPRESSION "
	        "\"a3{3}b\")\n"
	        "add_test(across_streams \"/bin/sh\" \"-c\" \"echo out; echo err >&2\")\n"
	        "set_tests_properties(across_streams PROPERTIES PASS_REGULAR_EXPRESSION "
	        "\"^out.err\")\n"
	        "add_test(stderr_fail \"/bin/sh\" \"-c\" \"echo an ERROR >&2\")\n"
	        "set_tests_properties(stderr_fail PROPERTIES FAIL_REGULAR_EXPRESSION \"ERROR\")\n"
	        "add_test(backslash_w \"/bin/sh\" \"-c\" \"echo xy\")\n"
	        "set_tests_properties(backslash_w PROPERTIES PASS_REGULAR_EXPRESSION \"\\\\wy\")\n"
	        "add_test(backslash_dot \"/bin/sh\" \"-c\" \"echo x.y\")\n"
	        "set_tests_properties(backslash_dot PROPERTIES PASS_REGULAR_EXPRESSION "
	        "\"x\\\\.y\")\n",
	        NULL);
	same_verdicts(&o, dir, want, sizeof(want) / sizeof(want[0]), "1");
	done(&o);
	project_free(dir);
}

/* The number of lanes (shards) of report that ran a test. */
static int lanes_used(json_t *report)
{
	size_t i;
	json_t *s;
	int n = 0;
	json_array_foreach(json_object_get(report, "shards"), i, s) n +=
	    json_array_size(json_object_get(s, "tests")) > 0;
	return n;
}

/* CTest's fixtures and DEPENDS, listed in an order that breaks them, at
 * -j 2: before, memguard ran them in list order across lanes, so the tests
 * needing the fixture ran before its setup (or after its cleanup) and
 * failed where ctest passes them, and a test whose fixture's setup failed
 * ran (ctest: Not Run, failed). Then one lane. Now both lanes: a test
 * waits, in whichever lane, until what it needs ended; each test's verdict
 * ctest's own. */
static void ctest_fixtures(void)
{
	static const verdict want[] = {
	    {"cleanup", 1}, {"uses_one", 1}, {"uses_two", 1},  {"setup", 1},
	    {"dep_b", 1},   {"dep_a", 1},    {"bad_setup", 0}, {"needs_bad", 0},
	};
	char dir[64], tests[4096];
	outcome o;
	snprintf(dir, sizeof(dir), "/tmp/mg-ctt-XXXXXX");
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(tests, sizeof(tests),
	         "add_test(cleanup \"/bin/sh\" \"-c\" \"sleep 0.2; rm %s/fx\")\n"
	         "set_tests_properties(cleanup PROPERTIES FIXTURES_CLEANUP F)\n"
	         "add_test(uses_one \"/bin/sh\" \"-c\" \"test -f %s/fx\")\n"
	         "set_tests_properties(uses_one PROPERTIES FIXTURES_REQUIRED F)\n"
	         "add_test(uses_two \"/bin/sh\" \"-c\" \"test -f %s/fx\")\n"
	         "set_tests_properties(uses_two PROPERTIES FIXTURES_REQUIRED F)\n"
	         "add_test(setup \"/bin/sh\" \"-c\" \"sleep 0.3; touch %s/fx\")\n"
	         "set_tests_properties(setup PROPERTIES FIXTURES_SETUP F)\n"
	         "add_test(dep_b \"/bin/sh\" \"-c\" \"rm %s/a.done\")\n"
	         "set_tests_properties(dep_b PROPERTIES DEPENDS \"dep_a;not_listed\")\n"
	         "add_test(dep_a \"/bin/sh\" \"-c\" \"sleep 0.2; touch %s/a.done\")\n"
	         "add_test(bad_setup \"/bin/false\")\n"
	         "set_tests_properties(bad_setup PROPERTIES FIXTURES_SETUP G)\n"
	         "add_test(needs_bad \"/bin/true\")\n"
	         "set_tests_properties(needs_bad PROPERTIES FIXTURES_REQUIRED G)\n",
	         dir, dir, dir, dir, dir, dir);
	project_in(dir, tests, NULL);
	same_verdicts(&o, dir, want, sizeof(want) / sizeof(want[0]), "2");
	expect_message(o.report, "needs_bad", "not run: failed test dependencies: bad_setup");
	CU_ASSERT(strstr(o.err, "one lane") == NULL);
	CU_ASSERT_EQUAL(lanes_used(o.report), 2);
	done(&o);
	project_free(dir);
}

/* A fixture's failed setup, then a host killed (memguard's --timeout on
 * the test between): the fresh host's shim does not know the setup
 * failed, the runner does. Before, needs_bad ran in the fresh shim and
 * passed; ctest does not run it (Not Run, a failure). */
static void ctest_fixture_after_kill(void)
{
	char dir[64];
	outcome o;
	project(dir, sizeof(dir),
	        "add_test(bad_setup \"/bin/false\")\n"
	        "set_tests_properties(bad_setup PROPERTIES FIXTURES_SETUP G)\n"
	        "add_test(hangs \"/bin/sleep\" \"30\")\n"
	        "set_tests_properties(hangs PROPERTIES DEPENDS bad_setup)\n"
	        "add_test(needs_bad \"/bin/true\")\n"
	        "set_tests_properties(needs_bad PROPERTIES FIXTURES_REQUIRED G DEPENDS hangs)\n",
	        NULL);
	CU_ASSERT(!ctest_passes(dir, "needs_bad")); /* ctest adds its fixture's setup */
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--timeout", "1s", "--driver", "ctest", "--report",
	        "report.json", "--", CTEST_BIN, "--test-dir", dir),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	expect_state(o.report, "bad_setup", "fail");
	expect_state(o.report, "hangs", "timeout");
	expect_state(o.report, "needs_bad", "fail");
	expect_message(o.report, "needs_bad", "not run: failed test dependencies: bad_setup");
	done(&o);
	project_free(dir);
}

/* memguard's run of node's share (I/N) of dir's tests in two lanes, which
 * passes (exit 0). */
static void node_run(outcome *o, const char *dir, const char *node)
{
	mg(o,
	   ARGV("run", "-q", "-j", "2", "--node", node, "--driver", "ctest", "--report",
	        "report.json", "--", CTEST_BIN, "--test-dir", dir),
	   NULL, 0);
	CU_ASSERT(exited_with(o, 0));
	CU_ASSERT_FATAL(o->report != NULL);
}

/* --node I/N deals a fixture's setup and its users to one node: before,
 * round-robin by position put the users on node 2 and the setup on node
 * 1, and node 2 failed both where ctest passes them. Node 2 runs first,
 * so no file a node 1 run left can hide that. */
static void ctest_fixture_nodes(void)
{
	char dir[64], tests[2048];
	outcome o;
	snprintf(dir, sizeof(dir), "/tmp/mg-ctt-XXXXXX");
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(tests, sizeof(tests),
	         "add_test(setup \"/bin/touch\" \"%s/fx\")\n"
	         "set_tests_properties(setup PROPERTIES FIXTURES_SETUP F)\n"
	         "add_test(uses_one \"/bin/test\" \"-f\" \"%s/fx\")\n"
	         "set_tests_properties(uses_one PROPERTIES FIXTURES_REQUIRED F)\n"
	         "add_test(alone_x \"/bin/true\")\n"
	         "add_test(uses_two \"/bin/test\" \"-f\" \"%s/fx\")\n"
	         "set_tests_properties(uses_two PROPERTIES FIXTURES_REQUIRED F)\n"
	         "add_test(alone_y \"/bin/true\")\n",
	         dir, dir, dir);
	project_in(dir, tests, NULL);
	node_run(&o, dir, "2/2");
	CU_ASSERT_EQUAL(count(o.report, "pass"), 1);
	expect_state(o.report, "alone_x", "pass");
	done(&o);
	node_run(&o, dir, "1/2");
	CU_ASSERT_EQUAL(count(o.report, "pass"), 4);
	expect_state(o.report, "setup", "pass");
	expect_state(o.report, "uses_one", "pass");
	expect_state(o.report, "uses_two", "pass");
	expect_state(o.report, "alone_y", "pass");
	done(&o);
	project_free(dir);
}

/* DEPENDS in a cycle: ctest says so and runs no test; before, memguard ran
 * them all (and exited 0, where one could fail that ctest never runs).
 * Now none runs, said on stderr, and no test ran is exit 0, as ctest's
 * (before: 5, where ctest exits 0); with ctest's --no-tests=error (ctest
 * exits 8), 5. */
static void ctest_cycle(void)
{
	char dir[64], cmd[256], line[512];
	outcome o;
	int said = 0;
	project(dir, sizeof(dir),
	        "add_test(a \"/bin/false\")\n"
	        "set_tests_properties(a PROPERTIES DEPENDS b)\n"
	        "add_test(b \"/bin/true\")\n"
	        "set_tests_properties(b PROPERTIES DEPENDS a)\n"
	        "add_test(c \"/bin/true\")\n",
	        NULL);
	snprintf(cmd, sizeof(cmd), "'%s' --test-dir '%s' 2>&1", CTEST_BIN, dir);
	FILE *p = popen(cmd, "r");
	CU_ASSERT_FATAL(p != NULL);
	while (fgets(line, sizeof(line), p))
		said |= strstr(line, "a cycle exists") != NULL;
	CU_ASSERT_EQUAL(pclose(p), 0); /* ctest: no test, exit 0 */
	CU_ASSERT(said);
	mg(&o,
	   ARGV("run", "-q", "--driver", "ctest", "--report", "report.json", "--", CTEST_BIN,
	        "--test-dir", dir),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT(strstr(o.err, "a cycle exists in the test dependency graph") != NULL);
	CU_ASSERT(strstr(o.err, "memguard run: no tests ran (exit 0, as ctest exits then") != NULL);
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass") + count(o.report, "fail"), 0);
	done(&o);
	snprintf(cmd, sizeof(cmd), "'%s' --test-dir '%s' --no-tests=error >/dev/null 2>&1",
	         CTEST_BIN, dir);
	int st = system(cmd);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 8);
	mg(&o,
	   ARGV("run", "-q", "--driver", "ctest", "--report", "report.json", "--", CTEST_BIN,
	        "--test-dir", dir, "--no-tests=error"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 5));
	CU_ASSERT(strstr(o.err, "memguard run: no tests ran (--allow-no-tests") != NULL);
	done(&o);
	project_free(dir);
}

/* A project whose test of PROCESSORS P must run beside no more than
 * lanes - P others: "heavy" fails when another test ran while it did, the
 * others fail when heavy was running (markers in dir). */
static void processors_project(char *dir, size_t size, int processors)
{
	char tests[4096];
	size_t n = 0;
	snprintf(dir, size, "/tmp/mg-ctt-XXXXXX");
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	n += (size_t)snprintf(tests + n, sizeof(tests) - n,
	                      "add_test(heavy \"/bin/sh\" \"-c\" \"touch %s/heavy.on; sleep 1; "
	                      "ls %s | grep -q busy; r=$?; rm %s/heavy.on; test $r = 1\")\n"
	                      "set_tests_properties(heavy PROPERTIES PROCESSORS %d)\n",
	                      dir, dir, dir, processors);
	for (char t = 'a'; t <= 'e'; t++)
		n += (size_t)snprintf(
		    tests + n, sizeof(tests) - n,
		    "add_test(%c \"/bin/sh\" \"-c\" \"touch %s/busy.%c; sleep 0.3; "
		    "test ! -e %s/heavy.on; r=$?; rm %s/busy.%c; exit $r\")\n",
		    t, dir, t, dir, dir, t);
	CU_ASSERT_FATAL(n < sizeof(tests));
	project_in(dir, tests, NULL);
}

/* PROCESSORS: ctest -j counts processors, so with -j 2 a test of
 * PROCESSORS 2 runs alone (and one of PROCESSORS 8 with -j 3: ctest caps
 * it at -j). Before, memguard ran it beside the other lane's tests, and
 * heavy and a test beside it failed where ctest passes all; now each
 * test holds its lane's slot and heavy every lane's. The other tests
 * still run in both lanes. */
static void ctest_processors(void)
{
	static const struct {
		int processors;
		const char *jobs;
	} runs[] = {{2, "2"}, {8, "3"}};
	for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		char dir[64], cmd[256];
		outcome o;
		processors_project(dir, sizeof(dir), runs[r].processors);
		snprintf(cmd, sizeof(cmd), "'%s' --test-dir '%s' -j %s >/dev/null 2>&1", CTEST_BIN,
		         dir, runs[r].jobs);
		int st = system(cmd);
		CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0); /* ctest: all pass */
		mg(&o,
		   ARGV("run", "-q", "-j", runs[r].jobs, "--driver", "ctest", "--report",
		        "report.json", "--", CTEST_BIN, "--test-dir", dir),
		   NULL, 0);
		CU_ASSERT(exited_with(&o, 0));
		CU_ASSERT_FATAL(o.report != NULL);
		CU_ASSERT_EQUAL(count(o.report, "pass"), 6);
		expect_state(o.report, "heavy", "pass");
		CU_ASSERT(lanes_used(o.report) >= 2);
		done(&o);
		project_free(dir);
	}
}

/* In the sanitizer build, ASan's quarantine keeps freed memory from being
 * used again (and its data counts in VmData); off for the one run that
 * measures the shim's growth. Harmless in the plain build. */
static const char mg_asan_options[] =
    "ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:quarantine_size_mb=0";

/* The shim's VmData, as a test (its child) wrote it to dir/NAME; -1: none. */
static long parent_data_kib(const char *dir, const char *name)
{
	char path[128], buf[256];
	long kib = -1;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (slurp(path, buf, sizeof(buf)) && sscanf(buf, "VmData: %ld", &kib) != 1)
		kib = -1;
	return kib;
}

/* A ctest shim sets each test's environment and puts its own back after:
 * the strings it replaced were kept until it ended. 100 tests each append
 * to a 100,000-byte variable of memguard's (ENVIRONMENT_MODIFICATION, so
 * the listing stays small): before, the shim's data grew by ~19 MiB from
 * the 5th test to the 100th (two such strings a test); now it stays. The
 * 5th and 100th tests write their parent's (the shim's) VmData. */
static void ctest_env_no_growth(void)
{
	char dir[64], tests[16384];
	size_t n = 0;
	outcome o;
	snprintf(dir, sizeof(dir), "/tmp/mg-ctt-XXXXXX");
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	for (int i = 1; i <= 100; i++) {
		if (i == 5 || i == 100)
			n += (size_t)snprintf(tests + n, sizeof(tests) - n,
			                      "add_test(t%d \"/bin/sh\" \"-c\" \"grep VmData "
			                      "/proc/$PPID/status > %s/data%d\")\n",
			                      i, dir, i);
		else
			n += (size_t)snprintf(tests + n, sizeof(tests) - n,
			                      "add_test(t%d /bin/true)\n", i);
		n +=
		    (size_t)snprintf(tests + n, sizeof(tests) - n,
		                     "set_tests_properties(t%d PROPERTIES ENVIRONMENT_MODIFICATION "
		                     "\"MG_BIG=string_append:%d\")\n",
		                     i, i);
	}
	CU_ASSERT_FATAL(n < sizeof(tests));
	project_in(dir, tests, NULL);
	static char big[7 + 100000 + 1];
	memcpy(big, "MG_BIG=", 7);
	memset(big + 7, 'x', 100000);
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--driver", "ctest", "--report", "report.json", "--",
	        CTEST_BIN, "--test-dir", dir),
	   ENV(big, mg_asan_options), 0);
	CU_ASSERT(exited_with(&o, 0));
	long first = parent_data_kib(dir, "data5"), last = parent_data_kib(dir, "data100");
	CU_ASSERT(first > 0 && last > 0);
	if (last - first >= 4096)
		fprintf(stderr, "\n  the shim's VmData: %ld kB at test 5, %ld kB at test 100\n",
		        first, last);
	CU_ASSERT(last - first < 4096);
	done(&o);
	project_free(dir);
}

static const mg_case cases[] = {
    {"ctest_custom_text", ctest_custom_text},
    {"ctest_regex_output", ctest_regex_output},
    {"ctest_fixtures", ctest_fixtures},
    {"ctest_fixture_after_kill", ctest_fixture_after_kill},
    {"ctest_fixture_nodes", ctest_fixture_nodes},
    {"ctest_cycle", ctest_cycle},
    {"ctest_processors", ctest_processors},
    {"ctest_env_no_growth", ctest_env_no_growth},
};

MG_TEST_MAIN("drivers_ctest_text", cases)

/*
 * test_ctest_props.c - the CTest test properties that decide a verdict or
 * whether a test runs, under memguard's ctest driver and under ctest itself
 * on the same hand-written project: ENVIRONMENT_MODIFICATION (and
 * ENVIRONMENT's unset), REQUIRED_FILES, TIMEOUT_AFTER_MATCH,
 * SKIP_REGULAR_EXPRESSION, RESOURCE_GROUPS with a resource specification;
 * and CTestCustom.cmake's pre- and post-test commands, run once each.
 * Each case asserts, test by test, that memguard's state is ctest's own
 * (ctest's console line read back), and that the exit codes agree.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mg_run.h"

/* A CTest project by hand (ctest needs no build) in a new directory dir. */
static void project(char *dir, size_t size, const char *tests)
{
	char p[256];
	snprintf(dir, size, "/tmp/mg-ctp-XXXXXX");
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(p, sizeof(p), "%s/CTestTestfile.cmake", dir);
	FILE *f = fopen(p, "w");
	CU_ASSERT_FATAL(f && fputs(tests, f) >= 0 && fclose(f) == 0);
}

static void project_free(const char *dir)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CU_ASSERT(system(cmd) == 0);
}

/* What memguard records for ctest's word on a test's console line. */
static const char *state_for(const char *ctest_word)
{
	static const struct {
		const char *word, *state;
	} map[] = {
	    {"Passed", "pass"},        {"***Failed", "fail"},  {"***Not Run (Disabled)", "skip"},
	    {"***Skipped", "skip"},    {"***Not Run", "fail"}, {"***Timeout", "timeout"},
	    {"***Exception", "crash"},
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strncmp(ctest_word, map[i].word, strlen(map[i].word)))
			return map[i].state;
	return "(unknown)";
}

typedef struct ct_seen {
	char name[64];
	char state[16];
} ct_seen;

/*
 * ctest's own run of dir (-j 1, its whole output read): each test's state
 * (as memguard names it) into seen, and its exit status. Returns how many.
 */
static size_t ctest_run_with(const char *dir, const char *timeout, ct_seen *seen, size_t cap,
                             int *status)
{
	char cmd[512], line[1024];
	size_t n = 0;
	snprintf(cmd, sizeof(cmd), "'%s' --test-dir '%s' %s%s 2>&1", CTEST_BIN, dir,
	         timeout ? "--timeout " : "", timeout ? timeout : "");
	FILE *p = popen(cmd, "r");
	CU_ASSERT_FATAL(p != NULL);
	while (fgets(line, sizeof(line), p)) {
		/* "1/4 Test #1: name ....***Failed  0.02 sec" */
		char *hash = strstr(line, " Test #"), *colon = hash ? strstr(hash, ": ") : NULL;
		if (!colon || n == cap)
			continue;
		char *name = colon + 2, *end = name;
		while (*end && *end != ' ')
			end++;
		char *word = end;
		while (*word == ' ' || *word == '.')
			word++;
		snprintf(seen[n].name, sizeof(seen[n].name), "%.*s", (int)(end - name), name);
		snprintf(seen[n].state, sizeof(seen[n].state), "%s", state_for(word));
		n++;
	}
	*status = pclose(p);
	return n;
}

static size_t ctest_run(const char *dir, ct_seen *seen, size_t cap, int *status)
{
	return ctest_run_with(dir, NULL, seen, cap, status);
}

/*
 * ctest and memguard (jobs lanes) on dir: the same tests, each in the same
 * state, and the exit codes agree (ctest 0 / memguard 0, ctest 8 /
 * memguard 1). want: the states ctest is expected to give, "name=state"
 * (checks the project does what the case means). o is memguard's run.
 */
static void same_states_with(outcome *o, const char *dir, const char *const *want, const char *jobs,
                             const char *timeout)
{
	ct_seen seen[32];
	int st;
	size_t n = ctest_run_with(dir, timeout, seen, 32, &st), nwant = 0;
	while (want[nwant])
		nwant++;
	CU_ASSERT_EQUAL(n, nwant);
	for (size_t i = 0; i < nwant; i++) {
		char is[128];
		snprintf(is, sizeof(is), "%.63s=%.15s", i < n ? seen[i].name : "?",
		         i < n ? seen[i].state : "?");
		if (strcmp(is, want[i])) {
			fprintf(stderr, "\n  ctest itself: %s, expected %s\n", is, want[i]);
			CU_FAIL("ctest's own state is not the expected one");
		}
	}
	if (timeout)
		mg(o,
		   ARGV("run", "-q", "-j", jobs, "--driver", "ctest", "--report", "report.json",
		        "--", CTEST_BIN, "--test-dir", dir, "--timeout", timeout),
		   NULL, 0);
	else
		mg(o,
		   ARGV("run", "-q", "-j", jobs, "--driver", "ctest", "--report", "report.json",
		        "--", CTEST_BIN, "--test-dir", dir),
		   NULL, 0);
	CU_ASSERT_FATAL(o->report != NULL);
	int failed = 0;
	for (size_t i = 0; i < n; i++) {
		const char *got = state_of(o->report, seen[i].name);
		failed |= strcmp(seen[i].state, "pass") && strcmp(seen[i].state, "skip");
		if (strcmp(got, seen[i].state)) {
			fprintf(stderr, "\n  %s: ctest %s, memguard %s (%s)\n", seen[i].name,
			        seen[i].state, got,
			        message_of(o->report, seen[i].name)
			            ? message_of(o->report, seen[i].name)
			            : "");
			CU_FAIL("memguard's state is not ctest's");
		}
	}
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == (failed ? 8 : 0));
	CU_ASSERT(exited_with(o, failed ? 1 : 0));
}

static void same_states(outcome *o, const char *dir, const char *const *want, const char *jobs)
{
	same_states_with(o, dir, want, jobs, NULL);
}

/* Before: ENVIRONMENT_MODIFICATION was ignored and ENVIRONMENT's "NAME"
 * (no '=') did not unset: every env_* test but env_plain failed where
 * ctest passes it, and env_bad ran (and passed) where ctest does not run
 * it. Each test checks its whole expected environment itself. */
static void ctest_env_modification(void)
{
	static const char *const want[] = {
	    "env_plain=pass",  "env_unset_outer=pass",  "env_ops=pass",
	    "env_reset=pass",  "env_unset_append=pass", "env_lists=pass",
	    "env_bad_op=fail", "env_no_colon=fail",     NULL};
	char dir[64];
	outcome o;
	setenv("MGX_OUTER", "outer", 1);
	setenv("MGX_PATH", "/a:/b", 1);
	unsetenv("MGX_NONE");
	project(dir, sizeof(dir),
	        "add_test(env_plain /bin/sh -c \"test \\\"$MGX_A\\\" = 1\")\n"
	        "set_tests_properties(env_plain PROPERTIES ENVIRONMENT \"MGX_A=1\")\n"
	        "add_test(env_unset_outer /bin/sh -c \"test \\\"\\${MGX_OUTER-gone}\\\" = gone\")\n"
	        "set_tests_properties(env_unset_outer PROPERTIES ENVIRONMENT \"MGX_OUTER\")\n"
	        "add_test(env_ops /bin/sh -c \"test "
	        "\\\"$MGX_S|$MGX_PATH|\\${MGX_OUTER-gone}|$MGX_P\\\" "
	        "= 'pre-x-post|/c:/a:/b:/d|gone|'\")\n"
	        "set_tests_properties(env_ops PROPERTIES ENVIRONMENT_MODIFICATION "
	        "\"MGX_S=set:x;MGX_S=string_append:-post;MGX_S=string_prepend:pre-;"
	        "MGX_PATH=path_list_prepend:/c;MGX_PATH=path_list_append:/d;MGX_OUTER=unset:;"
	        "MGX_P=set:\")\n"
	        "add_test(env_reset /bin/sh -c \"test \\\"$MGX_A|$MGX_OUTER\\\" = '1|outer'\")\n"
	        "set_tests_properties(env_reset PROPERTIES ENVIRONMENT \"MGX_A=1\" "
	        "ENVIRONMENT_MODIFICATION \"MGX_A=set:2;MGX_A=reset:;MGX_OUTER=set:3;"
	        "MGX_OUTER=reset:\")\n"
	        /* ctest's own rule: after an unset, an append extends the value
	         * the environment has (here ENVIRONMENT's), not an empty one */
	        "add_test(env_unset_append /bin/sh -c \"test \\\"$MGX_A|$MGX_OUTER\\\" = "
	        "'1y|outerz'\")\n"
	        "set_tests_properties(env_unset_append PROPERTIES ENVIRONMENT \"MGX_A=1\" "
	        "ENVIRONMENT_MODIFICATION \"MGX_A=unset:;MGX_A=string_append:y;MGX_OUTER=unset:;"
	        "MGX_OUTER=string_append:z\")\n"
	        /* ';' in the command as \073 (tr's octal) */
	        "add_test(env_lists /bin/sh -c \"test \\\"$(echo \\\"$MGX_L|$MGX_NONE|$MGX_E\\\" "
	        "| tr '\\\\073' ,)\\\" = 'b,a,c|n|=x:y'\")\n"
	        "set_tests_properties(env_lists PROPERTIES ENVIRONMENT \"MGX_L=a\" "
	        "ENVIRONMENT_MODIFICATION \"MGX_L=cmake_list_prepend:b;MGX_L=cmake_list_append:c;"
	        "MGX_NONE=path_list_append:n;MGX_E=set:=x:y\")\n"
	        "add_test(env_bad_op /bin/true)\n"
	        "set_tests_properties(env_bad_op PROPERTIES ENVIRONMENT_MODIFICATION "
	        "\"MGX_A=bogus:1\")\n"
	        "add_test(env_no_colon /bin/true)\n"
	        "set_tests_properties(env_no_colon PROPERTIES ENVIRONMENT_MODIFICATION "
	        "\"MGX_A=set\")\n");
	same_states(&o, dir, want, "2");
	expect_message(o.report, "env_bad_op",
	               "Unrecognized environment manipulation argument: bogus");
	expect_message(o.report, "env_no_colon", "Missing `:` after the operation");
	done(&o);
	project_free(dir);
	unsetenv("MGX_OUTER");
	unsetenv("MGX_PATH");
}

/* Before: REQUIRED_FILES was ignored: req_missing, req_rel_missing and
 * req_will_fail ran (and passed) where ctest does not run them (Not Run,
 * counted failed), and the run exited 0 where ctest exits 8. */
static void ctest_required_files(void)
{
	static const char *const want[] = {"req_missing=fail",  "req_present=pass",
	                                   "req_rel=pass",      "req_rel_missing=fail",
	                                   "req_disabled=skip", "req_will_fail=fail",
	                                   "req_made=pass",     "req_needs_made=pass",
	                                   "skip_re=skip",      NULL};
	char dir[64], tests[4096];
	outcome o;
	snprintf(dir, sizeof(dir), "/tmp/mg-ctp-XXXXXX");
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	char sub[128], file[160];
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	CU_ASSERT_FATAL(mkdir(sub, 0700) == 0);
	snprintf(file, sizeof(file), "%s/here", sub);
	FILE *f = fopen(file, "w");
	CU_ASSERT_FATAL(f && fclose(f) == 0);
	snprintf(tests, sizeof(tests),
	         "add_test(req_missing /bin/true)\n"
	         "set_tests_properties(req_missing PROPERTIES REQUIRED_FILES %s/nowhere)\n"
	         "add_test(req_present /bin/true)\n"
	         "set_tests_properties(req_present PROPERTIES REQUIRED_FILES \"/bin/true;%s\")\n"
	         "add_test(req_rel /bin/true)\n"
	         "set_tests_properties(req_rel PROPERTIES REQUIRED_FILES here WORKING_DIRECTORY "
	         "%s)\n"
	         "add_test(req_rel_missing /bin/true)\n"
	         "set_tests_properties(req_rel_missing PROPERTIES REQUIRED_FILES sub/here "
	         "WORKING_DIRECTORY %s)\n"
	         "add_test(req_disabled /bin/true)\n"
	         "set_tests_properties(req_disabled PROPERTIES REQUIRED_FILES /nowhere DISABLED "
	         "ON)\n"
	         "add_test(req_will_fail /bin/false)\n"
	         "set_tests_properties(req_will_fail PROPERTIES REQUIRED_FILES /nowhere WILL_FAIL "
	         "ON)\n"
	         "add_test(req_made /bin/sh -c \"touch %s/made\")\n"
	         "add_test(req_needs_made /bin/true)\n"
	         "set_tests_properties(req_needs_made PROPERTIES REQUIRED_FILES %s/made DEPENDS "
	         "req_made)\n"
	         "add_test(skip_re /bin/sh -c \"echo not here; exit 1\")\n"
	         "set_tests_properties(skip_re PROPERTIES SKIP_REGULAR_EXPRESSION \"not h.re\")\n",
	         dir, sub, sub, sub, dir, dir);
	FILE *t;
	char p[128];
	snprintf(p, sizeof(p), "%s/CTestTestfile.cmake", dir);
	t = fopen(p, "w");
	CU_ASSERT_FATAL(t && fputs(tests, t) >= 0 && fclose(t) == 0);
	same_states(&o, dir, want, "1");
	expect_message(o.report, "req_missing", "unable to find required file");
	done(&o);
	project_free(dir);
}

/* Before: TIMEOUT_AFTER_MATCH was ignored: tam_shorter passed (ctest: its
 * timeout after "ready" is 1 s, Timeout) and tam_longer and tam_streams
 * timed out at their TIMEOUT of 1 s (ctest: 20 s from the match, Passed).
 * ctest matches the output so far after each line (stdout and stderr in one
 * stream, each line with its newline): "^" is the output's start, so
 * tam_no_match's "^go" never matches, and "$" its end, so tam_dollar's
 * "^ready$" does not either (a matcher line by line passes both). */
static void ctest_timeout_after_match(void)
{
	static const char *const want[] = {"tam_shorter=timeout",  "tam_longer=pass",
	                                   "tam_streams=pass",     "tam_dollar=timeout",
	                                   "tam_no_match=timeout", NULL};
	char dir[64];
	outcome o;
	project(dir, sizeof(dir),
	        "add_test(tam_shorter /bin/sh -c \"echo ready; exec sleep 6\")\n"
	        "set_tests_properties(tam_shorter PROPERTIES TIMEOUT 60 TIMEOUT_AFTER_MATCH "
	        "\"1;^rea.y.$\")\n"
	        "add_test(tam_longer /bin/sh -c \"echo go; exec sleep 3\")\n"
	        "set_tests_properties(tam_longer PROPERTIES TIMEOUT 1 TIMEOUT_AFTER_MATCH "
	        "\"20;^go\")\n"
	        "add_test(tam_streams /bin/sh -c \"echo x; echo go >&2; exec sleep 3\")\n"
	        "set_tests_properties(tam_streams PROPERTIES TIMEOUT 1 TIMEOUT_AFTER_MATCH "
	        "\"20;^x.go\")\n"
	        "add_test(tam_dollar /bin/sh -c \"echo ready; exec sleep 3\")\n"
	        "set_tests_properties(tam_dollar PROPERTIES TIMEOUT 1 TIMEOUT_AFTER_MATCH "
	        "\"20;^ready$\")\n"
	        "add_test(tam_no_match /bin/sh -c \"echo no go; exec sleep 3\")\n"
	        "set_tests_properties(tam_no_match PROPERTIES TIMEOUT 1 TIMEOUT_AFTER_MATCH "
	        "\"20;^go\")\n");
	same_states(&o, dir, want, "2");
	done(&o);
	project_free(dir);
}

/* Before: a test without TIMEOUT had none: ctest's --timeout was dropped
 * and DartConfiguration.tcl's TimeOut (1500 s from CTest's configure) not
 * read, so dflt passed where ctest times it out at TimeOut's 1 s, and
 * zero_long (TIMEOUT 0) passed where ctest times it out at --timeout's 3 s.
 * ctest's own rule: --timeout, else TimeOut, for a test without TIMEOUT;
 * --timeout (not TimeOut) for one with TIMEOUT 0. */
static void ctest_default_timeout(void)
{
	static const char *const dart[] = {"dflt=timeout", "prop=pass", "zero_long=pass", NULL};
	static const char *const cli[] = {"dflt=pass", "prop=pass", "zero_long=timeout", NULL};
	char dir[64], p[128];
	outcome o;
	project(dir, sizeof(dir),
	        "add_test(dflt /bin/sleep 2)\n"
	        "add_test(prop /bin/sleep 2)\n"
	        "set_tests_properties(prop PROPERTIES TIMEOUT 10)\n"
	        "add_test(zero_long /bin/sleep 4)\n"
	        "set_tests_properties(zero_long PROPERTIES TIMEOUT 0)\n");
	snprintf(p, sizeof(p), "%s/DartConfiguration.tcl", dir);
	FILE *f = fopen(p, "w");
	CU_ASSERT_FATAL(f && fputs("# as CTest writes it\nTimeOut: 1\n", f) >= 0 && fclose(f) == 0);
	same_states(&o, dir, dart, "2");
	expect_message(o.report, "dflt", "DartConfiguration.tcl's TimeOut of 1 s");
	done(&o);
	same_states_with(&o, dir, cli, "2", "3");
	expect_message(o.report, "zero_long", "ctest's --timeout of 3 s");
	done(&o);
	project_free(dir);
}

/* Before: --resource-spec-file was dropped without a word and the tests
 * ran without the CTEST_RESOURCE_GROUP_* variables ctest gives them (here
 * rg_uses passed, exit 0, where ctest passes it only with its share).
 * Now memguard refuses such a run, naming the test; without the
 * specification ctest ignores RESOURCE_GROUPS, and memguard's states are
 * its own. */
static void ctest_resource_groups(void)
{
	static const char *const want[] = {"rg_uses=fail", "rg_plain=pass", NULL};
	char dir[64], spec[128];
	outcome o;
	project(dir, sizeof(dir),
	        "add_test(rg_uses /bin/sh -c \"test -n \\\"$CTEST_RESOURCE_GROUP_COUNT\\\"\")\n"
	        "set_tests_properties(rg_uses PROPERTIES RESOURCE_GROUPS \"gpus:1\")\n"
	        "add_test(rg_plain /bin/true)\n");
	same_states(&o, dir, want, "1");
	done(&o);
	snprintf(spec, sizeof(spec), "%s/spec.json", dir);
	FILE *f = fopen(spec, "w");
	CU_ASSERT_FATAL(f &&
	                fputs("{\"version\": {\"major\": 1, \"minor\": 0}, \"local\": [{\"gpus\": "
	                      "[{\"id\": \"0\", \"slots\": 1}]}]}\n",
	                      f) >= 0 &&
	                fclose(f) == 0);
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "'%s' --test-dir '%s' --resource-spec-file '%s' >/dev/null 2>&1",
	         CTEST_BIN, dir, spec);
	CU_ASSERT(system(cmd) == 0); /* ctest passes both with the specification */
	mg(&o,
	   ARGV("run", "-q", "--driver", "ctest", "--report", "report.json", "--", CTEST_BIN,
	        "--test-dir", dir, "--resource-spec-file", spec),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 3)); /* the listing refused: no test ran */
	CU_ASSERT(strstr(o.err, "RESOURCE_GROUPS ('rg_uses')") != NULL);
	CU_ASSERT(o.report == NULL || count(o.report, "pass") == 0);
	done(&o);
	project_free(dir);
}

/* A run ended by SIGTERM while its tests run (each holds the serial lock
 * shared): the lock files go with the run, in the run's directory, which
 * the runner removes once every host has ended (before: in
 * TMPDIR/memguard-ctest-UID, where the shims the runner ended left them). */
static void ctest_interrupt_locks(void)
{
	char dir[64];
	outcome o;
	project(dir, sizeof(dir),
	        "add_test(slow_a /bin/sleep 20)\n"
	        "add_test(slow_b /bin/sleep 20)\n");
	mg(&o,
	   ARGV("run", "-q", "-j", "2", "--driver", "ctest", "--report", "report.json", "--",
	        CTEST_BIN, "--test-dir", dir),
	   NULL, 1500);
	CU_ASSERT(killed_by(&o, SIGTERM));
	CU_ASSERT_EQUAL(mg_dir_count(o.dir, "memguard-"), 0);
	done(&o);
	project_free(dir);
}

/* What ctest puts in every test's environment: CTEST_INTERACTIVE_DEBUG_MODE=1
 * in its interactive mode, else (a dashboard's run, -M or -D DASHBOARD, or
 * --interactive-debug-mode 0; the last of them counts) DART_TEST_FROM_DART=1
 * and DASHBOARD_TEST_FROM_CTEST, its version; and no
 * CTEST_RESOURCE_GROUP_COUNT where it allocated none (a run under a ctest
 * that did, as tests/run's own). Before, memguard passed its environment on
 * as it was: these tests failed where ctest passes them, or the reverse.
 * The outer values are this case's own, as when CTest runs it with a
 * resource spec. */
static void ctest_env_ctest_sets(void)
{
	static const char *const want[] = {"rg_count=pass", "debug_mode=pass", "dart=fail", NULL};
	/* the modes, and whether debug_mode and dart pass in each */
	static const struct {
		const char *args[7];
		int debug, dart;
	} modes[] = {
	    {{"-M", "Experimental", "-T", "Test", NULL}, 0, 1},
	    {{"-D", "ExperimentalTest", NULL}, 0, 1},
	    {{"--interactive-debug-mode", "0", NULL}, 0, 1},
	    {{"-M", "Experimental", "-T", "Test", "--interactive-debug-mode", "1", NULL}, 1, 0},
	    {{"-T", "Test", NULL}, 1, 0},
	};
	char dir[64], cmd[512];
	outcome o;
	setenv("CTEST_RESOURCE_GROUP_COUNT", "2", 1);
	unsetenv("CTEST_INTERACTIVE_DEBUG_MODE");
	unsetenv("DART_TEST_FROM_DART");
	unsetenv("DASHBOARD_TEST_FROM_CTEST");
	project(
	    dir, sizeof(dir),
	    "add_test(rg_count /bin/sh -c \"test -z \\\"$CTEST_RESOURCE_GROUP_COUNT\\\"\")\n"
	    "add_test(debug_mode /bin/sh -c \"test \\\"$CTEST_INTERACTIVE_DEBUG_MODE\\\" = 1\")\n"
	    "add_test(dart /bin/sh -c \"test \\\"$DART_TEST_FROM_DART\\\" = 1 && "
	    "expr \\\"$DASHBOARD_TEST_FROM_CTEST\\\" : '[0-9]*\\\\.[0-9]' >/dev/null\")\n");
	same_states(&o, dir, want, "1");
	done(&o);
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		char extra[256] = "";
		const char *argv[32] = {MEMGUARD_BIN, "run",         "-q", "--driver", "ctest",
		                        "--report",   "report.json", "--", CTEST_BIN,  "--test-dir",
		                        dir};
		size_t k = 11;
		for (size_t a = 0; modes[m].args[a]; a++) {
			argv[k++] = modes[m].args[a];
			strcat(strcat(extra, " "), modes[m].args[a]);
		}
		argv[k++] = "-R";
		argv[k++] = "debug_mode|dart";
		argv[k] = NULL;
		/* ctest's own, test by test */
		static const char *const names[] = {"debug_mode", "dart"};
		for (int t = 0; t < 2; t++) {
			snprintf(cmd, sizeof(cmd),
			         "'%s' --test-dir '%s'%s -R '^%s$' >/dev/null 2>&1", CTEST_BIN, dir,
			         extra, names[t]);
			int st = system(cmd), pass = t ? modes[m].dart : modes[m].debug;
			CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == (pass ? 0 : 8));
		}
		mg(&o, argv, NULL, 0);
		CU_ASSERT(exited_with(&o, 1));
		CU_ASSERT_FATAL(o.report != NULL);
		CU_ASSERT_STRING_EQUAL(state_of(o.report, "debug_mode"),
		                       modes[m].debug ? "pass" : "fail");
		CU_ASSERT_STRING_EQUAL(state_of(o.report, "dart"), modes[m].dart ? "pass" : "fail");
		done(&o);
	}
	unsetenv("CTEST_RESOURCE_GROUP_COUNT");
	project_free(dir);
}

/* A file's text (a log the commands append to) into buf; "" when none. */
static const char *text_of(const char *dir, const char *name, char *buf, size_t cap)
{
	char p[256];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return slurp(p, buf, cap);
}

static size_t lines_like(const char *text, const char *prefix)
{
	size_t n = 0;
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		n += strncmp(l, prefix, strlen(prefix)) == 0;
	return n;
}

/* The project of the CTestCustom cases: the commands append to DIR/log, the
 * pre-test ones make the program t_made runs (ctest lists after them). */
static void custom_project(char *dir, size_t size, const char *pre, const char *post)
{
	char tests[2048], p[256];
	snprintf(dir, size, "/tmp/mg-ctp-XXXXXX");
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(tests, sizeof(tests),
	         "add_test(t_one /bin/sh -c \"echo t_one >> %s/log\")\n"
	         "add_test(t_two /bin/sh -c \"echo t_two >> %s/log\")\n"
	         "add_test(t_ignored /bin/sh -c \"echo t_ignored >> %s/log\")\n"
	         "add_test(t_made %s/made)\n",
	         dir, dir, dir, dir);
	snprintf(p, sizeof(p), "%s/CTestTestfile.cmake", dir);
	FILE *f = fopen(p, "w");
	CU_ASSERT_FATAL(f && fputs(tests, f) >= 0 && fclose(f) == 0);
	snprintf(p, sizeof(p), "%s/CTestCustom.cmake", dir);
	f = fopen(p, "w");
	CU_ASSERT_FATAL(f != NULL);
	fprintf(f,
	        "set(CTEST_CUSTOM_PRE_TEST \"/bin/sh -c \\\"echo pre $PWD >> log\\\"\" "
	        "\"/bin/cp /bin/true made\" %s)\n"
	        "set(CTEST_CUSTOM_POST_TEST \"/bin/sh -c \\\"echo post >> log\\\"\" %s)\n"
	        "set(CTEST_CUSTOM_TESTS_IGNORE t_ignored)\n",
	        pre, post);
	CU_ASSERT_FATAL(fclose(f) == 0);
}

/* ctest's run, then the project cleaned (log, the made program) for
 * memguard's. Returns how many tests ctest reported; its log into log. */
static size_t custom_ctest(const char *dir, ct_seen *seen, int *st, char *log, size_t cap)
{
	char p[256];
	size_t n = ctest_run(dir, seen, 16, st);
	text_of(dir, "log", log, cap);
	snprintf(p, sizeof(p), "%s/log", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/made", dir);
	unlink(p);
	return n;
}

/* memguard's run of dir (-j 2): exit code code, and each of ctest's n
 * tests in seen in ctest's state. */
static void custom_memguard(outcome *o, const char *dir, const ct_seen *seen, size_t n, int code)
{
	mg(o,
	   ARGV("run", "-q", "-j", "2", "--driver", "ctest", "--report", "report.json", "--",
	        CTEST_BIN, "--test-dir", dir),
	   NULL, 0);
	CU_ASSERT(exited_with(o, code));
	if (!n)
		return;
	CU_ASSERT_FATAL(o->report != NULL);
	for (size_t i = 0; i < n; i++)
		expect_state(o->report, seen[i].name, seen[i].state);
}

/* Before: the commands ran at each listing (the listing host's and each
 * lane's: three times at -j 2), all before the tests, post-test ones
 * included, and never after them. Now as ctest: the pre-test commands once,
 * in the test directory, before the listing (t_made's program is theirs),
 * the post-test ones once after the last test, CTEST_CUSTOM_TESTS_IGNORE
 * kept. */
static void ctest_custom_once(void)
{
	char dir[64], want[4096], got[4096], pre[128];
	ct_seen seen[16];
	int st;
	outcome o;
	custom_project(dir, sizeof(dir), "", "");
	size_t n = custom_ctest(dir, seen, &st, want, sizeof(want));
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CU_ASSERT_EQUAL(n, 3); /* t_ignored is not run */
	snprintf(pre, sizeof(pre), "pre %s\n", dir);
	CU_ASSERT(!strncmp(want, pre, strlen(pre)));
	custom_memguard(&o, dir, seen, n, 0);
	CU_ASSERT(find_test(o.report, "t_ignored") == NULL);
	text_of(dir, "log", got, sizeof(got));
	/* ctest's log and memguard's: pre once first (in the test directory),
	 * post once last, each test once between */
	CU_ASSERT(!strncmp(got, pre, strlen(pre)));
	CU_ASSERT_EQUAL(lines_like(got, "pre "), 1);
	CU_ASSERT_EQUAL(lines_like(got, "post"), 1);
	CU_ASSERT(strlen(got) >= 5 && !strcmp(got + strlen(got) - 5, "post\n"));
	CU_ASSERT_EQUAL(lines_like(got, "t_one"), 1);
	CU_ASSERT_EQUAL(lines_like(got, "t_two"), 1);
	CU_ASSERT_EQUAL(lines_like(got, "t_ignored"), 0);
	CU_ASSERT_EQUAL(strlen(got), strlen(want));
	if (strlen(got) != strlen(want))
		fprintf(stderr, "\n  ctest's log:\n%s  memguard's:\n%s", want, got);
	done(&o);
	project_free(dir);
}

/* Before: ctest's listing ran the failing pre-test command too, exited 8,
 * and memguard stopped at "cannot list" (exit 3). Now as ctest: no test
 * runs, nor the post-test commands; ctest's words on stderr; exit 1 (ctest
 * 8). */
static void ctest_custom_pre_fails(void)
{
	char dir[64], want[4096], got[4096];
	ct_seen seen[16];
	int st;
	outcome o;
	custom_project(dir, sizeof(dir), "\"/bin/sh -c \\\"exit 4\\\"\"", "");
	size_t n = custom_ctest(dir, seen, &st, want, sizeof(want));
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 8);
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_EQUAL(lines_like(want, "t_"), 0);
	CU_ASSERT_EQUAL(lines_like(want, "post"), 0);
	custom_memguard(&o, dir, seen, n, 1);
	CU_ASSERT(strstr(o.err, "Problem running command: /bin/sh -c \"exit 4\"") != NULL);
	CU_ASSERT(strstr(o.err, "Problem executing pre-test command(s).") != NULL);
	text_of(dir, "log", got, sizeof(got));
	CU_ASSERT_STRING_EQUAL(got, want); /* "pre DIR" alone */
	CU_ASSERT(o.report == NULL || count(o.report, "pass") == 0);
	done(&o);
	project_free(dir);
}

/* Before: as above, the listing failed (exit 3) and no test ran. Now as
 * ctest: the tests run and keep their states, and the failing post-test
 * command fails the run (exit 1; ctest 8), an entry of its own. */
static void ctest_custom_post_fails(void)
{
	char dir[64], want[4096];
	ct_seen seen[16];
	int st;
	outcome o;
	custom_project(dir, sizeof(dir), "", "\"/bin/false\"");
	size_t n = custom_ctest(dir, seen, &st, want, sizeof(want));
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 8);
	CU_ASSERT_EQUAL(n, 3);
	custom_memguard(&o, dir, seen, n, 1);
	expect_state(o.report, "<CTEST_CUSTOM_POST_TEST>", "fail");
	expect_message(o.report, "<CTEST_CUSTOM_POST_TEST>", "/bin/false");
	CU_ASSERT(strstr(o.err, "Problem executing post-test command(s).") != NULL);
	done(&o);
	project_free(dir);
}

/* A --test-dir that is no build tree: ctest's listing exits 1 and prints
 * nothing; memguard says so once, with where to look, and exits 3 (before:
 * the failed listing said twice, the arch check's and the listing's, and no
 * hint). */
static void ctest_no_build_tree(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-q", "--driver", "ctest", "--", CTEST_BIN, "--test-dir", "/nonexistent"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 3));
	const char *said = "'" CTEST_BIN " --show-only=json-v1' exited with status 1";
	const char *first = strstr(o.err, said);
	CU_ASSERT(first && !strstr(first + 1, said));
	CU_ASSERT(strstr(o.err, "ctest printed no listing: is the directory it runs in (its "
	                        "--test-dir) a CTest build tree?") != NULL);
	done(&o);
}

/* A process a test leaves running, holding its output: ctest reads the
 * output to its end. held_late's marker comes a second after its shell
 * exited (pass); held_open's process outlives its TIMEOUT (ctest: Timeout,
 * though the test exited 0), and so does held_plain's, which no regex
 * judges. Before: memguard ended the test at its exit, so held_late failed
 * (no PASS_REGULAR_EXPRESSION found) and held_open and held_plain passed.
 * held_big's process's 60 MB are the test's memory. The process memguard's
 * run left is gone at its end. */
static void ctest_output_held(void)
{
	static const char *const want[] = {"held_late=pass", "held_open=timeout",
	                                   "held_plain=timeout", "held_big=pass", NULL};
	char dir[64], cmd[160];
	outcome o;
	project(dir, sizeof(dir),
	        "add_test(held_late /bin/sh -c \"(sleep 1; echo late-marker) & echo started\")\n"
	        "set_tests_properties(held_late PROPERTIES PASS_REGULAR_EXPRESSION "
	        "late-marker)\n"
	        "add_test(held_open /bin/sh -c \"(sleep 6; echo late) & echo started\" "
	        "mg-held-open)\n"
	        "set_tests_properties(held_open PROPERTIES PASS_REGULAR_EXPRESSION started "
	        "TIMEOUT 2)\n"
	        "add_test(held_plain /bin/sh -c \"(sleep 6; echo late) & echo started\" "
	        "mg-held-open)\n"
	        "set_tests_properties(held_plain PROPERTIES TIMEOUT 2)\n"
	        "add_test(held_big /bin/sh -c \"(x=$(yes aaaaaaaaaaaaaaaaaaaa | head -c 60000000); "
	        "sleep 1; echo late) & echo started\")\n");
	same_states(&o, dir, want, "1");
	expect_message(o.report, "held_open", "held its output open");
	/* the test's memory is its tree's while it holds the test: held_big's
	 * process held 60 MB after its shell exited (before: ~1.5 MiB) */
	json_t *big = find_test(o.report, "held_big");
	CU_ASSERT(big && json_integer_value(json_object_get(big, "rss_after")) >= (50 << 20));
	done(&o);
	/* ctest's own run leaves its copy for up to 6 s: wait it out, then
	 * memguard's run again: nothing of it is left once memguard exits */
	snprintf(cmd, sizeof(cmd), "while pgrep -f mg-held-ope[n] >/dev/null; do sleep 0.2; done");
	CU_ASSERT(system(cmd) == 0);
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--driver", "ctest", "--report", "report.json", "--",
	        CTEST_BIN, "--test-dir", dir, "-R", "held_open"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT(system("pgrep -f mg-held-ope[n] >/dev/null") != 0);
	done(&o);
	project_free(dir);
}

/* A test over its TIMEOUT whose processes hold its output: ctest kills its
 * tree (kwsys) and stops reading at once. Before: memguard killed the shell
 * alone and read on until the shell's sleeping grandchild let go (40 s
 * here; a day's sleep: the --no-progress limit), and after_hold (which
 * waits for tree_hold) found its processes still there. tree_escape's process
 * left the tree (setsid, its parent gone): ctest leaves it running and
 * stops reading; memguard too, and it is gone when memguard exits. */
static void ctest_timeout_tree(void)
{
	static const char *const want[] = {"tree_hold=timeout", "after_hold=pass",
	                                   "tree_escape=timeout", NULL};
	char dir[64];
	outcome o;
	project(dir, sizeof(dir),
	        "add_test(tree_hold /bin/sh -c \"echo started; /bin/sh -c 'sleep 40 & wait' "
	        "mg-tree-hold\")\n"
	        "set_tests_properties(tree_hold PROPERTIES TIMEOUT 2)\n"
	        /* the kill took tree_hold's processes: none left when it ended */
	        "add_test(after_hold /bin/sh -c \"! pgrep -f mg-tree-hol[d]\")\n"
	        "set_tests_properties(after_hold PROPERTIES DEPENDS tree_hold)\n"
	        "add_test(tree_escape /bin/sh -c \"echo started; (setsid /bin/sh -c 'sleep 40 & "
	        "wait' mg-tree-escape &); sleep 40\")\n"
	        "set_tests_properties(tree_escape PROPERTIES TIMEOUT 2)\n");
	same_states(&o, dir, want, "1");
	/* both kills took tree_hold's processes (tree_escape's, of ctest's run,
	 * are still there: ctest leaves them) */
	CU_ASSERT(system("pgrep -f mg-tree-hol[d] >/dev/null") != 0);
	for (size_t i = 0; i < 2; i++) {
		const char *name = i ? "tree_escape" : "tree_hold";
		json_t *t = find_test(o.report, name);
		double d = t ? json_number_value(json_object_get(t, "duration")) : -1;
		if (!(d >= 2 && d < 30))
			fprintf(stderr, "\n  %s: duration %g s, wanted its TIMEOUT's 2 s\n", name,
			        d);
		CU_ASSERT(d >= 2 && d < 30);
	}
	expect_message(o.report, "tree_hold", "over its TIMEOUT of 2 s (killed)");
	done(&o);
	CU_ASSERT(system("pkill -f mg-tree-escap[e]; true") == 0); /* ctest's run's */
	project_free(dir);
}

/* Another memguard run of the same test directory holding a RUN_SERIAL
 * test (two lanes, two tests: a run of one lane takes no locks): ctest's
 * locks hold among one ctest's own tests, so a second ctest runs its tests
 * at once. Before: memguard's locks held across runs, and the second run
 * waited for the first's serial test (8 s), its wait timed against
 * --timeout: "did not start within 3s", a timeout, exit 1. */
static void ctest_locks_per_run(void)
{
	char dir[64], marker[128], cmd[256], tmpdir[96];
	outcome o;
	project(dir, sizeof(dir),
	        "add_test(lock_hold /bin/sh -c \"touch started; sleep 8\" mg-lock-hold)\n"
	        "set_tests_properties(lock_hold PROPERTIES RUN_SERIAL 1)\n"
	        "add_test(lock_other /bin/true)\n"
	        "add_test(quick_a /bin/true)\n"
	        "add_test(quick_b /bin/true)\n");
	snprintf(marker, sizeof(marker), "%s/started", dir);
	/* both runs' TMPDIR the same (where the locks are) */
	snprintf(tmpdir, sizeof(tmpdir), "TMPDIR=%s", dir);
	pid_t first = fork();
	CU_ASSERT_FATAL(first >= 0);
	if (first == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(null, 2);
		setenv("TMPDIR", dir, 1);
		execl(MEMGUARD_BIN, MEMGUARD_BIN, "run", "-q", "-j", "2", "--driver", "ctest", "--",
		      CTEST_BIN, "--test-dir", dir, "-R", "lock_", (char *)NULL);
		_exit(127);
	}
	/* the first run's serial test holds its lock once it has started */
	for (int i = 0; i < 300 && access(marker, F_OK) != 0; i++)
		usleep(100 * 1000);
	CU_ASSERT_FATAL(access(marker, F_OK) == 0);
	mg(&o,
	   ARGV("run", "-q", "-j", "2", "--timeout", "3", "--driver", "ctest", "--report",
	        "report.json", "--", CTEST_BIN, "--test-dir", dir, "-R", "quick"),
	   ENV(tmpdir), 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	expect_state(o.report, "quick_a", "pass");
	expect_state(o.report, "quick_b", "pass");
	done(&o);
	int st;
	CU_ASSERT(waitpid(first, &st, 0) == first && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	snprintf(cmd, sizeof(cmd), "pgrep -f mg-lock-hol[d] >/dev/null");
	CU_ASSERT(system(cmd) != 0);
	project_free(dir);
}

/* a test's command that waits (up to 30 s) for ff_hold's mark */
#define WAIT_HELD                                                                                  \
	"i=0; while [ ! -e ${CMAKE_CURRENT_LIST_DIR}/held ] && [ $i -lt 600 ]; do sleep 0.05; "    \
	"i=$((i+1)); done"

/* A test that waits for a RESOURCE_LOCK another lane's test holds: ctest
 * starts it once the lock is free and times it from there. Before: the
 * wait was memguard's --timeout's, "did not start within 3.5s" (and, with
 * a result of the lane's test before it still buffered in the shim, that
 * test's own timeout). lk_*: three lanes (one test in flight each), one
 * lock, 2 s each: the last waits ~4 s; then two lanes of the three tests
 * (a lane's second waits while its first's result is the shim's); then a
 * test started after a wait is timed again: hang_* (each 30 s) both
 * timeout at memguard's 3 s from their own starts; ff_wait, waiting for
 * ff_hold's lock when ff_fail fails under --stop-on-failure, is not run. */
static void ctest_lock_wait(void)
{
	static const char *const lk[] = {"lk_a", "lk_b", "lk_c"};
	char dir[64];
	outcome o;
	int st;
	project(dir, sizeof(dir),
	        "add_test(lk_a /bin/sh -c \"sleep 2\")\n"
	        "set_tests_properties(lk_a PROPERTIES RESOURCE_LOCK mg_lw)\n"
	        "add_test(lk_b /bin/sh -c \"sleep 2\")\n"
	        "set_tests_properties(lk_b PROPERTIES RESOURCE_LOCK mg_lw)\n"
	        "add_test(lk_c /bin/sh -c \"sleep 2\")\n"
	        "set_tests_properties(lk_c PROPERTIES RESOURCE_LOCK mg_lw)\n"
	        "add_test(hang_a /bin/sh -c \"sleep 30\" ${CMAKE_CURRENT_LIST_DIR}/mg-lock-hang)\n"
	        "set_tests_properties(hang_a PROPERTIES RESOURCE_LOCK mg_lh)\n"
	        "add_test(hang_b /bin/sh -c \"sleep 30\" ${CMAKE_CURRENT_LIST_DIR}/mg-lock-hang)\n"
	        "set_tests_properties(hang_b PROPERTIES RESOURCE_LOCK mg_lh)\n"
	        /* ff_hold has the lock once its mark is there; ff_pre ends
	         * then, and ff_wait (after it) waits; ff_fail fails a second
	         * later, a test of no lock */
	        "add_test(ff_hold /bin/sh -c \"touch ${CMAKE_CURRENT_LIST_DIR}/held; sleep 3\")\n"
	        "set_tests_properties(ff_hold PROPERTIES RESOURCE_LOCK mg_lf)\n"
	        "add_test(ff_pre /bin/sh -c \"" WAIT_HELD "\")\n"
	        "add_test(ff_fail /bin/sh -c \"" WAIT_HELD "; sleep 1; exit 1\")\n"
	        "add_test(ff_wait /bin/true)\n"
	        "set_tests_properties(ff_wait PROPERTIES RESOURCE_LOCK mg_lf DEPENDS ff_pre)\n");
	/* ctest -j 3: the lock's tests one after another, all passed */
	size_t n = 0;
	{
		char cmd[256], line[512];
		snprintf(cmd, sizeof(cmd), "'%s' --test-dir '%s' -j3 -R lk_ 2>&1", CTEST_BIN, dir);
		FILE *p = popen(cmd, "r");
		CU_ASSERT_FATAL(p != NULL);
		while (fgets(line, sizeof(line), p))
			n += strstr(line, " Passed ") != NULL;
		st = pclose(p);
	}
	CU_ASSERT(n == 3 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 0)
			mg(&o,
			   ARGV("run", "-q", "-j", "3", "--pipeline", "1", "--timeout", "3.5",
			        "--driver", "ctest", "--report", "report.json", "--", CTEST_BIN,
			        "--test-dir", dir, "-R", "lk_"),
			   NULL, 0);
		else
			mg(&o,
			   ARGV("run", "-q", "-j", "2", "--timeout", "3.5", "--driver", "ctest",
			        "--report", "report.json", "--", CTEST_BIN, "--test-dir", dir, "-R",
			        "lk_"),
			   NULL, 0);
		CU_ASSERT(exited_with(&o, 0));
		CU_ASSERT_FATAL(o.report != NULL);
		for (size_t i = 0; i < 3; i++) {
			const char *name = lk[i];
			if (strcmp(state_of(o.report, name), "pass"))
				fprintf(stderr, "\n  %s: %s (%s)\n", name, state_of(o.report, name),
				        message_of(o.report, name) ? message_of(o.report, name)
				                                   : "");
			expect_state(o.report, name, "pass");
		}
		done(&o);
	}
	mg(&o,
	   ARGV("run", "-q", "-j", "2", "--pipeline", "1", "--timeout", "3", "--driver", "ctest",
	        "--report", "report.json", "--", CTEST_BIN, "--test-dir", dir, "-R", "hang_"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	for (size_t i = 0; i < 2; i++) {
		const char *name = i ? "hang_b" : "hang_a";
		json_t *t = find_test(o.report, name);
		double d = t ? json_number_value(json_object_get(t, "duration")) : -1;
		if (!(d >= 2.9 && d < 10))
			fprintf(stderr, "\n  %s: duration %g s, wanted --timeout's 3 s\n", name, d);
		CU_ASSERT(d >= 2.9 && d < 10);
		expect_state(o.report, name, "timeout");
	}
	done(&o);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "pgrep -f %s/mg-lock-han[g] >/dev/null", dir);
	CU_ASSERT(system(cmd) != 0);
	/* --stop-on-failure: ctest starts no test after ff_fail failed, and
	 * the lane waiting for ff_hold's lock (ff_wait is given a lane once
	 * ff_pre ended, ff_hold holding it by then) does not start ff_wait once
	 * it has it; ff_hold runs on, as ctest lets it
	 * (before: it ran, and passed) */
	mg(&o,
	   ARGV("run", "-q", "-j", "3", "--pipeline", "1", "--driver", "ctest", "--report",
	        "report.json", "--", CTEST_BIN, "--test-dir", dir, "-R", "ff_",
	        "--stop-on-failure"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	expect_state(o.report, "ff_pre", "pass");
	expect_state(o.report, "ff_fail", "fail");
	expect_state(o.report, "ff_hold", "pass");
	expect_state(o.report, "ff_wait", "skip");
	expect_message(o.report, "ff_wait", "not run");
	done(&o);
	project_free(dir);
}

static const mg_case cases[] = {
    {"ctest_env_modification", ctest_env_modification},
    {"ctest_required_files", ctest_required_files},
    {"ctest_timeout_after_match", ctest_timeout_after_match},
    {"ctest_default_timeout", ctest_default_timeout},
    {"ctest_resource_groups", ctest_resource_groups},
    {"ctest_env_ctest_sets", ctest_env_ctest_sets},
    {"ctest_interrupt_locks", ctest_interrupt_locks},
    {"ctest_custom_once", ctest_custom_once},
    {"ctest_custom_pre_fails", ctest_custom_pre_fails},
    {"ctest_custom_post_fails", ctest_custom_post_fails},
    {"ctest_no_build_tree", ctest_no_build_tree},
    {"ctest_timeout_tree", ctest_timeout_tree},
    {"ctest_locks_per_run", ctest_locks_per_run},
    {"ctest_lock_wait", ctest_lock_wait},
    {"ctest_output_held", ctest_output_held},
};

MG_TEST_MAIN("drivers_ctest_props", cases)

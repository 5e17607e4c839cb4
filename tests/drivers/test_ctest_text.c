/*
 * test_ctest_text.c - what ctest reads as a CTest project's text: the
 * listing amid the output of CTestCustom.cmake's pre- and post-test
 * commands (CLI11's project prints its build information there), and a
 * test's output judged by its regular expressions as ctest judges it:
 * stdout and stderr in one stream, in CMake's regular expression syntax.
 * Each test's verdict is checked against ctest's own on the same project.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mg_run.h"

/* A CTest project by hand (ctest needs no build): DIR gets its
 * CTestTestfile.cmake (tests) and, when custom is set, CTestCustom.cmake. */
static void project(char *dir, size_t size, const char *tests, const char *custom)
{
	char p[256];
	snprintf(dir, size, "/tmp/mg-ctt-XXXXXX");
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(p, sizeof(p), "%s/CTestTestfile.cmake", dir);
	FILE *f = fopen(p, "w");
	CU_ASSERT_FATAL(f && fputs(tests, f) >= 0 && fclose(f) == 0);
	if (!custom)
		return;
	snprintf(p, sizeof(p), "%s/CTestCustom.cmake", dir);
	f = fopen(p, "w");
	CU_ASSERT_FATAL(f && fputs(custom, f) >= 0 && fclose(f) == 0);
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
	static const struct {
		const char *name;
		int passes;
	} want[] = {
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
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (ctest_passes(dir, want[i].name) != want[i].passes) {
			fprintf(stderr, "\n  ctest itself: %s %s\n", want[i].name,
			        want[i].passes ? "fails" : "passes");
			CU_FAIL("ctest's own verdict is not the expected one");
		}
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--driver", "ctest", "--report", "report.json", "--",
	        CTEST_BIN, "--test-dir", dir),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		expect_state(o.report, want[i].name, want[i].passes ? "pass" : "fail");
	done(&o);
	project_free(dir);
}

static const mg_case cases[] = {
    {"ctest_custom_text", ctest_custom_text},
    {"ctest_regex_output", ctest_regex_output},
};

MG_TEST_MAIN("drivers_ctest_text", cases)

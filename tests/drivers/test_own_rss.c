/*
 * test_own_rss.c - a process-per-test driver's RSS figure for a test is the
 * test's own (issue #23): the exec and ctest drivers fork each test, and the
 * kernel counts in the ru_maxrss they read the peak of the memory the test
 * had before its exec, a copy of its forker's. The program (own_rss, x64
 * and x86) writes its own peak (VmHWM); the report's figure must be within
 * 512 KiB of it, for a first test and for one that follows a test whose
 * output the shim kept (16 MiB of it, when it had grown). And a CTest suite
 * whose programs are all 32-bit is an x86 run (x86's limits), whatever
 * ctest itself is; a mixed one keeps ctest's arch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mg_run.h"

#define SLACK_KIB 512 /* what starting a test may cost it besides its own pages */

/* The peak dir/NAME.hwm holds (KiB), -1 when there is none. */
static long own_kib(const char *dir, const char *name)
{
	char path[256];
	long kib = -1;
	snprintf(path, sizeof(path), "%s/%s.hwm", dir, name);
	FILE *f = fopen(path, "r");
	if (f && fscanf(f, "%ld", &kib) != 1)
		kib = -1;
	if (f)
		fclose(f);
	return kib;
}

/* prog NAME [kib] run directly in dir from a static forker of a few pages
 * (maxrss.c): the peak wait4 gives (KiB), -1 when it did not run. */
static long direct_kib(const char *dir, const char *prog, const char *name, const char *kib)
{
	char cmd[1024];
	long peak = -1;
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' '%s' '%s' %s", dir, MAXRSS, prog, name,
	         kib ? kib : "");
	FILE *p = popen(cmd, "r");
	if (p && fscanf(p, "%ld", &peak) != 1)
		peak = -1;
	if (p && pclose(p) != 0)
		peak = -1;
	return peak;
}

/* name (prog NAME [kib]) passed, and its report figure is its own peak,
 * to SLACK_KIB: its VmHWM, or the peak of a direct run (where the kernel's
 * per-task counts leave VmHWM low; never above what memguard's own pages
 * would add, which the old code did: 2 MiB and more). */
static void expect_own(json_t *report, const char *dir, const char *name, const char *prog,
                       const char *kib)
{
	expect_state(report, name, "pass");
	long own = own_kib(dir, name), direct = direct_kib(dir, prog, name, kib);
	json_t *t = find_test(report, name);
	json_int_t rss = json_integer_value(json_object_get(t, "rss_after"));
	long ref = direct > own ? direct : own;
	fprintf(stderr, "\n  %s: report %lld KiB, its own %ld KiB, run directly %ld KiB", name,
	        (long long)(rss / 1024), own, direct);
	CU_ASSERT_FATAL(own > 0);
	CU_ASSERT_FATAL(direct > 0);
	/* below too: the kernel's RSS counters are per CPU, read approximately */
	CU_ASSERT(rss / 1024 + SLACK_KIB >= own);
	CU_ASSERT(rss / 1024 <= ref + SLACK_KIB);
}

static void exec_case(const char *prog)
{
	char dir[] = "/tmp/mg-own-XXXXXX", list[64];
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(list, sizeof(list), "%s/list", dir);
	FILE *f = fopen(list, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs("own_a\n", f);
	CU_ASSERT_FATAL(fclose(f) == 0);
	outcome o;
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--driver", "exec", "--list-file", list, "--report",
	        "report.json", "--", prog),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT(!WIFSIGNALED(o.status));
	CU_ASSERT_FATAL(o.report != NULL);
	expect_own(o.report, o.dir, "own_a", prog, NULL);
	done(&o);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CU_ASSERT(system(cmd) == 0);
}

/*
 * A CTest directory (CTestTestfile.cmake, as CMake writes it) in dir: a
 * test printing 8 MiB that a PASS_REGULAR_EXPRESSION makes the shim keep,
 * then prog twice (the second touching 2 MiB), all in dir.
 */
static void ctest_dir(const char *dir, const char *prog)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/CTestTestfile.cmake", dir);
	FILE *f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fprintf(f,
	        "add_test([=[big_output]=] \"/bin/sh\" \"-c\" \"yes "
	        "0123456789012345678901234567890123456789 | head -c 8000000\")\n"
	        "set_tests_properties([=[big_output]=] PROPERTIES PASS_REGULAR_EXPRESSION "
	        "\"0123\" WORKING_DIRECTORY \"%s\")\n"
	        "add_test([=[own_a]=] \"%s\" \"own_a\")\n"
	        "set_tests_properties([=[own_a]=] PROPERTIES WORKING_DIRECTORY \"%s\")\n"
	        "add_test([=[own_b]=] \"%s\" \"own_b\" \"2048\")\n"
	        "set_tests_properties([=[own_b]=] PROPERTIES WORKING_DIRECTORY \"%s\")\n",
	        dir, prog, dir, prog, dir);
	CU_ASSERT_FATAL(fclose(f) == 0);
}

static void ctest_case(const char *prog)
{
	char dir[] = "/tmp/mg-own-XXXXXX";
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	ctest_dir(dir, prog);
	outcome o;
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--driver", "ctest", "--report", "report.json", "--",
	        CTEST_BIN, "--test-dir", dir),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT(!WIFSIGNALED(o.status));
	CU_ASSERT_FATAL(o.report != NULL);
	expect_state(o.report, "big_output", "pass");
	expect_own(o.report, dir, "own_a", prog, NULL);
	expect_own(o.report, dir, "own_b", prog, "2048");
	done(&o);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CU_ASSERT(system(cmd) == 0);
}

/* Before: 2.1 MiB (the fork copy of memguard, the shim) where the program's
 * own peak is about 1 MiB. */
static void own_rss_exec_x64(void)
{
	exec_case(OWN_RSS64);
}

static void own_rss_exec_x86(void)
{
	exec_case(OWN_RSS32);
}

/* Before: own_a and own_b at 16 MiB and more after big_output (the copy of
 * the shim holding its output), 2.1 MiB at best. */
static void own_rss_ctest_x64(void)
{
	ctest_case(OWN_RSS64);
}

static void own_rss_ctest_x86(void)
{
	ctest_case(OWN_RSS32);
}

/* A CTest directory of two tests, progs a and b, run: its shards' arch is
 * want, and its soft limit starts with soft (want's default). */
static void ctest_arch(const char *a, const char *b, const char *want, const char *soft)
{
	char dir[] = "/tmp/mg-own-XXXXXX", path[128];
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/CTestTestfile.cmake", dir);
	FILE *f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fprintf(f,
	        "add_test([=[own_a]=] \"%s\" \"own_a\")\n"
	        "set_tests_properties([=[own_a]=] PROPERTIES WORKING_DIRECTORY \"%s\")\n"
	        "add_test([=[own_b]=] \"%s\" \"own_b\")\n"
	        "set_tests_properties([=[own_b]=] PROPERTIES WORKING_DIRECTORY \"%s\")\n",
	        a, dir, b, dir);
	CU_ASSERT_FATAL(fclose(f) == 0);
	outcome o;
	mg(&o,
	   ARGV("run", "-q", "--driver", "ctest", "--report", "report.json", "--", CTEST_BIN,
	        "--test-dir", dir),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT(!WIFSIGNALED(o.status));
	CU_ASSERT_FATAL(o.report != NULL);
	expect_state(o.report, "own_a", "pass");
	expect_state(o.report, "own_b", "pass");
	size_t i;
	json_t *sh;
	CU_ASSERT(json_array_size(json_object_get(o.report, "shards")) > 0);
	json_array_foreach(json_object_get(o.report, "shards"), i, sh)
	{
		const char *arch = json_string_value(json_object_get(sh, "arch"));
		CU_ASSERT(arch && !strcmp(arch, want));
	}
	const char *got =
	    json_string_value(json_object_get(json_object_get(o.report, "limits"), "soft"));
	CU_ASSERT(got && !strncmp(got, soft, strlen(soft)));
	done(&o);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CU_ASSERT(system(cmd) == 0);
}

/* Before: x64 (ctest's arch) and x64's rss=80% for 32-bit programs. */
static void ctest_arch_x86(void)
{
	ctest_arch(OWN_RSS32, OWN_RSS32, "x86", "va=3.50GiB");
}

/* Mixed: ctest's own (x64 here). */
static void ctest_arch_mixed_x86(void)
{
	ctest_arch(OWN_RSS32, OWN_RSS64, sizeof(void *) == 8 ? "x64" : "x86",
	           sizeof(void *) == 8 ? "rss=" : "va=3.50GiB");
}

static const mg_case cases[] = {
    {"own_rss_exec_x64", own_rss_exec_x64},   {"own_rss_exec_x86", own_rss_exec_x86},
    {"own_rss_ctest_x64", own_rss_ctest_x64}, {"own_rss_ctest_x86", own_rss_ctest_x86},
    {"ctest_arch_x86", ctest_arch_x86},       {"ctest_arch_mixed_x86", ctest_arch_mixed_x86},
};

MG_TEST_MAIN("drivers_own_rss", cases)

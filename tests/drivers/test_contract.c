/*
 * test_contract.c - the boundary contract inside unchanged GoogleTest
 * programs (the probe, the gtest driver) under the real memguard binary:
 * the verdict's limits all reach the probe, the driver's and the probe's own
 * environment stays out of the tests' children, and the probe leaves no
 * trace in the program (helpers: tests/mg_run.h).
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mg_run.h"

/* Generations of the first shard that ended as end; *all_say: each one's
 * reason holds every needle. */
static int generations_saying(json_t *report, const char *end, const char *const *needles,
                              int *all_say)
{
	size_t i;
	json_t *g;
	int n = 0;
	*all_say = 1;
	json_array_foreach(
	    json_object_get(json_array_get(json_object_get(report, "shards"), 0), "generations"), i,
	    g)
	{
		if (strcmp(json_string_value(json_object_get(g, "end")), end))
			continue;
		n++;
		const char *why = json_string_value(json_object_get(g, "reason"));
		for (size_t k = 0; needles[k]; k++)
			if (!why || !strstr(why, needles[k])) {
				fprintf(stderr, "generation %zu: %s\n", i,
				        why ? why : "(no reason)");
				*all_say = 0;
				break;
			}
	}
	return n;
}

/*
 * rss-growth admission under the gtest driver: a suite keeping 2 MiB more
 * resident per test, and Run/37 64 MiB, under --kill-at rss=150M stops
 * itself at the boundary after Run/37, where RSS plus the largest growth of
 * its recent tests would reach the kill limit (the probe's verdict, as a
 * native host's), before the soft rss limit (141 MiB) would: nothing is
 * killed, every test passes in one attempt.
 */
static void probe_rssgrowth(const char *prog)
{
	static const char *const says[] = {"rss ", "expected growth", NULL};
	outcome o;
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--driver", "gtest", "--kill-at", "rss=150M", "--report",
	        "report.json", "--", prog, "--gtest_filter=*/1?:*/2?:*/3?:*/4?"),
	   ENV("MG_GT_EACH_MB=2"), 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 40);
	CU_ASSERT_EQUAL(shard_sum(o.report, "kills"), 0);
	int all_say;
	CU_ASSERT(generations_saying(o.report, "recycle", says, &all_say) >= 1);
	CU_ASSERT(all_say);
	done(&o);
}

static void gtest_probe_rssgrowth(void)
{
	probe_rssgrowth(GTEST_LEAKS);
}

#ifdef GTEST_LEAKS32
static void gtest_probe_rssgrowth_x86(void)
{
	probe_rssgrowth(GTEST_LEAKS32);
}
#endif

/* prog run directly (no memguard) with env: its exit status. */
static int direct(const char *prog, const char *filter, const char *const *env)
{
	pid_t pid = fork();
	if (pid == 0) {
		for (size_t i = 0; env && env[i]; i++)
			putenv((char *)env[i]);
		execl(prog, prog, filter, (char *)NULL);
		_exit(127);
	}
	int st = -1;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return st;
}

/*
 * A test of an unchanged GoogleTest program runs a child: the child sees
 * none of memguard's variables, no probe in LD_PRELOAD, none of the GTEST_*
 * settings the driver made for the program, and the user's own GTEST_COLOR;
 * another GoogleTest program run from a test runs all its 200 tests (not
 * the 0 a driver's GTEST_FILTER would give it). Passes run directly, so it
 * must under memguard.
 */
static void gtest_child_env(void)
{
	/* the case checks that no MEMGUARD_ variable reaches the children: the
	 * caller's own (tests/run's MEMGUARD_X86_VM=1) would, run directly */
	extern char **environ;
	for (size_t i = 0; environ[i];)
		if (!strncmp(environ[i], "MEMGUARD_", 9)) {
			char name[128];
			size_t n = strcspn(environ[i], "=");
			snprintf(name, sizeof(name), "%.*s", (int)n, environ[i]);
			unsetenv(name);
		} else {
			i++;
		}
	const char *const *env = ENV("GTEST_COLOR=yes", "MG_GC_USER_COLOR=yes",
	                             "MG_GC_CHILD=" GTEST_LEAKS, "MG_GC_CHILD_TESTS=200");
	int st = direct(GTEST_CONTRACT, "--gtest_filter=Child.*", env);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	outcome o;
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--driver", "gtest", "--report", "report.json", "--",
	        GTEST_CONTRACT, "--gtest_filter=Child.*"),
	   env, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "Child.Environment"), "pass");
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "Child.RunsAll"), "pass");
	if (strcmp(state_of(o.report, "Child.RunsAll"), "pass"))
		fprintf(stderr, "%s\n%s\n", message_of(o.report, "Child.Environment"),
		        message_of(o.report, "Child.RunsAll"));
	done(&o);
}

/*
 * The probe leaves no trace: what one test leaves (floating-point flags
 * clear, rounding upward, errno, a blocked signal, stdout's state) the
 * next finds as it was, with the probe's boundary in between.
 */
static void no_trace(const char *prog)
{
	int st = direct(prog, "--gtest_filter=Trace.*", NULL);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	outcome o;
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--driver", "gtest", "--report", "report.json", "--", prog,
	        "--gtest_filter=Trace.*"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "Trace.Set"), "pass");
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "Trace.Kept"), "pass");
	if (strcmp(state_of(o.report, "Trace.Kept"), "pass"))
		fprintf(stderr, "Trace.Kept: %s\n", message_of(o.report, "Trace.Kept"));
	done(&o);
}

static void gtest_probe_no_trace(void)
{
	no_trace(GTEST_CONTRACT);
}

#ifdef GTEST_CONTRACT32
static void gtest_probe_no_trace_x86(void)
{
	no_trace(GTEST_CONTRACT32);
}
#endif

/*
 * A process per test (exec driver; the shim marks the streams): output
 * holding the 7 bytes of a version 2 mark ("\036\037mg:7\036") stays on the
 * test that wrote it, mark bytes and all.
 */
static void exec_marks_forged(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--driver", "exec", "--list-cmd", "seq -f t%02g 0 19",
	        "--report", "report.json", "--", "sh", "-c",
	        "printf '%s-a \\036\\037mg:7\\036 %s-b\\n' $1 $1", "sh", "{}"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 20);
	int exact = 0;
	for (int i = 0; i < 20; i++) {
		char name[8], want[64];
		snprintf(name, sizeof(name), "t%02d", i);
		snprintf(want, sizeof(want), "%s-a \036\037mg:7\036 %s-b\n", name, name);
		json_t *t = find_test(o.report, name);
		json_t *out = t ? json_object_get(t, "output") : NULL;
		int ok = out && json_string_length(out) == strlen(want) &&
		         !memcmp(json_string_value(out), want, strlen(want));
		if (!ok)
			fprintf(stderr, "%s: output '%s'\n", name,
			        out ? json_string_value(out) : "");
		exact += ok;
	}
	CU_ASSERT_EQUAL(exact, 20);
	done(&o);
}

static const mg_case cases[] = {
    {"gtest_probe_rssgrowth", gtest_probe_rssgrowth},
#ifdef GTEST_LEAKS32
    {"gtest_probe_rssgrowth_x86", gtest_probe_rssgrowth_x86},
#endif
    {"gtest_child_env", gtest_child_env},
    {"exec_marks_forged", exec_marks_forged},
    {"gtest_probe_no_trace", gtest_probe_no_trace},
#ifdef GTEST_CONTRACT32
    {"gtest_probe_no_trace_x86", gtest_probe_no_trace_x86},
#endif
};

MG_TEST_MAIN("drivers_contract", cases)

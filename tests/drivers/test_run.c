/*
 * test_run.c - the drivers under the real memguard binary: an unchanged
 * GoogleTest program, one process per test, and a wrapped command tree,
 * asserting on exit codes and the JSON report (helpers: tests/mg_run.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mg_run.h"

/* ---- gtest ---- */

static const char *const gtest_states[][2] = {
    {"Basic.Adds", "pass"},           {"Basic.Prints", "pass"},
    {"Basic.Fails", "fail"},          {"Basic.Skips", "skip"},
    {"Basic.DISABLED_Off", "skip"},   {"Typed/0.Works", "pass"},
    {"Typed/1.Works", "pass"},        {"Crash.Segv", "crash"},
    {"After.Crash", "pass"},          {"Last.Passes", "pass"},
    {"Small/Square.Works/0", "pass"}, {"Small/Square.Works/1", "pass"},
    {"Small/Square.Works/2", "pass"}, {"Many/Leak.Step/0", "pass"},
    {"Many/Leak.Step/1", "pass"},     {"Many/Leak.Step/2", "pass"},
    {"Many/Leak.Step/3", "pass"},     {"Many/Leak.Step/4", "pass"},
    {"Many/Leak.Step/5", "pass"},     {"Many/Leak.Step/6", "pass"},
    {"Many/Leak.Step/7", "pass"},
};
#define NGTEST (sizeof(gtest_states) / sizeof(gtest_states[0]))

static json_int_t ntests(json_t *report)
{
	json_int_t n = 0;
	size_t i;
	json_t *s;
	json_array_foreach(json_object_get(report, "shards"), i, s) n +=
	    (json_int_t)json_array_size(json_object_get(s, "tests"));
	return n;
}

/* The shard (lane) whose tests hold NAME; -1: none. */
static long shard_of(json_t *report, const char *name)
{
	size_t i, k;
	json_t *sh, *t;
	json_array_foreach(json_object_get(report, "shards"), i, sh) json_array_foreach(
	    json_object_get(sh, "tests"), k,
	    t) if (!strcmp(json_string_value(json_object_get(t, "name")), name)) return (long)i;
	return -1;
}

/*
 * A real GoogleTest program: every test accounted for with its state, the
 * crash attributed to the test that crashed, recycles at test boundaries
 * (each leaking test keeps 100 MiB; recycle at 400 MiB), and the tests that
 * finished did so in the program's own order, each once.
 */
static void gtest_run(void)
{
	outcome o;
	char log[128], buf[8192];
	mg(&o,
	   ARGV("run", "-j", "1", "--driver", "gtest", "--recycle-at", "va=400M", "--report",
	        "report.json", "--", GTEST_SAMPLE),
	   ENV("MG_GT_LEAK_MB=100", "MG_GT_LOG=order.log"), 0);
	CU_ASSERT(exited_with(&o, 1)); /* a test failed */
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(ntests(o.report), (json_int_t)NGTEST);
	for (size_t i = 0; i < NGTEST; i++) {
		const char *st = state_of(o.report, gtest_states[i][0]);
		if (strcmp(st, gtest_states[i][1]))
			fprintf(stderr, "%s: %s, wanted %s\n", gtest_states[i][0], st,
			        gtest_states[i][1]);
		CU_ASSERT_STRING_EQUAL(st, gtest_states[i][1]);
	}
	json_t *t = find_test(o.report, "Basic.Fails");
	CU_ASSERT(t && strstr(json_string_value(json_object_get(t, "message")),
	                      "arithmetic is broken") != NULL);
	t = find_test(o.report, "Crash.Segv");
	CU_ASSERT(t && strstr(json_string_value(json_object_get(t, "message")), "SIGSEGV") != NULL);
	/* the program's output is captured and lands on the test that wrote it
	 * (the shim sends it as "out" lines, in order with start and result) */
	t = find_test(o.report, "Basic.Prints");
	json_t *out = t ? json_object_get(t, "output") : NULL;
	CU_ASSERT(out && strstr(json_string_value(out), "hello from Basic.Prints") != NULL);
	t = find_test(o.report, "Basic.Adds");
	out = t ? json_object_get(t, "output") : NULL;
	CU_ASSERT(!out || !strstr(json_string_value(out), "hello from Basic.Prints"));
	/* the leaks made it recycle, and no test paid for it */
	CU_ASSERT(shard_sum(o.report, "recycles") >= 1);
	CU_ASSERT_EQUAL(shard_sum(o.report, "kills"), 0);
	t = find_test(o.report, "Many/Leak.Step/1");
	CU_ASSERT(t && json_integer_value(json_object_get(t, "va_after")) >= 100 << 20);
	/* order: every test but the crash finished exactly once, in list order */
	snprintf(log, sizeof(log), "%s/order.log", o.dir);
	slurp(log, buf, sizeof(buf));
	char want[8192] = "";
	for (size_t i = 0; i < NGTEST; i++)
		if (strcmp(gtest_states[i][1], "crash") && !strstr(gtest_states[i][0], "DISABLED"))
			strcat(strcat(want, gtest_states[i][0]), "\n");
	/* a test the program finished just as a recycle ended it runs again in the
	 * next host: keep each name's first run */
	char firsts[8192] = "";
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		char key[128];
		snprintf(key, sizeof(key), "%s\n", line);
		size_t kl = strlen(key);
		int dup = 0;
		for (const char *f = firsts; *f; f = strchr(f, '\n') + 1)
			dup |= !strncmp(f, key, kl);
		if (!dup)
			strcat(firsts, key);
	}
	CU_ASSERT_STRING_EQUAL(firsts, want);
	done(&o);
}

/* ---- the probe (runner/probe): the boundary inside a GoogleTest program ---- */

/* The n-th suspect's name and VA retained (MiB), or NULL. */
static const char *suspect(json_t *report, size_t n, double *mib)
{
	json_t *s = json_array_get(json_object_get(report, "suspects"), n);
	*mib = s ? (double)json_integer_value(json_object_get(s, "va_retained")) / (1 << 20) : 0;
	return s ? json_string_value(json_object_get(s, "name")) : NULL;
}

/* How many lines of path start with prefix. */
static int lines_with(const char *path, const char *prefix)
{
	static char buf[1 << 16];
	int n = 0;
	slurp(path, buf, sizeof(buf));
	for (char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p)
		n += !strncmp(p, prefix, strlen(prefix));
	return n;
}

/*
 * 200 tests that allocate and free, three that keep 64, 16 and 4 MiB: the
 * top three suspects are exactly those, with their sizes (+-1 MiB), in
 * every one of runs runs; no test waits for the driver.
 * The probe was in the program (its log says so) and the shard's arch is
 * the program's.
 */
static void probe_suspects(const char *prog, const char *arch, int runs)
{
	static const char *const want[] = {"Leaks/Step.Run/37", "Leaks/Step.Run/101",
	                                   "Leaks/Step.Run/163"};
	static const double mib[] = {64, 16, 4};
	int good = 0;
	for (int run = 0; run < runs; run++) {
		outcome o;
		char log[128];
		mg(&o,
		   ARGV("run", "-q", "-j", "1", "--driver", "gtest", "--report", "report.json",
		        "--", prog),
		   ENV("MG_GT_LOG=body.log"), 0);
		CU_ASSERT(exited_with(&o, 0));
		CU_ASSERT_FATAL(o.report != NULL);
		CU_ASSERT_EQUAL(count(o.report, "pass"), 200);
		CU_ASSERT(mg_shards_arch(o.report, arch));
		snprintf(log, sizeof(log), "%s/body.log", o.dir);
		CU_ASSERT(lines_with(log, "probe yes") >= 1);
		CU_ASSERT_EQUAL(lines_with(log, "probe no"), 0);
		int ok = 1;
		for (size_t i = 0; i < 3; i++) {
			double got;
			const char *name = suspect(o.report, i, &got);
			if (!name || strcmp(name, want[i]) || got < mib[i] - 1 ||
			    got > mib[i] + 1) {
				fprintf(stderr, "run %d: suspect %zu is %s (%.2f MiB), wanted %s\n",
				        run, i, name ? name : "(none)", got, want[i]);
				ok = 0;
			}
		}
		/* the program's own memory, not the shim's: peak is the 84 MiB it keeps */
		json_t *t = find_test(o.report, "Leaks/Step.Run/199");
		json_int_t va = t ? json_integer_value(json_object_get(t, "va_after")) : 0;
		ok &= va >= 84 << 20 && va < 120 << 20;
		good += ok;
		done(&o);
	}
	CU_ASSERT_EQUAL(good, runs);
}

static void gtest_probe_suspects(void)
{
	probe_suspects(GTEST_LEAKS, "x64", 10);
}

/* The generations of shard 0 that ended with end, and whether every one's
 * reason holds needle. */
static int generations(json_t *report, const char *end, const char *needle, int *all_say)
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
		if (!why || !strstr(why, needle)) {
			fprintf(stderr, "generation %zu: %s\n", i, why ? why : "(no reason)");
			*all_say = 0;
		}
	}
	return n;
}

/* Every test body that ran is one attempt in the report, each ran once. */
static void bodies_once(json_t *report, const char *log, int ntests)
{
	CU_ASSERT_EQUAL(lines_with(log, "body "), ntests);
	size_t i, k;
	json_t *s, *t;
	json_int_t attempts = 0;
	json_array_foreach(json_object_get(report, "shards"), i, s)
	    json_array_foreach(json_object_get(s, "tests"), k, t) attempts +=
	    json_integer_value(json_object_get(t, "attempts"));
	CU_ASSERT_EQUAL(attempts, ntests);
}

/*
 * A suite keeping 8 MiB more per test, recycle at va=100M: the program
 * stops itself at the boundary over the limit (the reason says va), every
 * test passes, and every body ran once, recorded as one attempt.
 */
static void probe_recycle(const char *prog, const char *arch)
{
	outcome o;
	char log[128];
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--driver", "gtest", "--recycle-at", "va=100M", "--report",
	        "report.json", "--", prog, "--gtest_filter=*/1?:*/2?:*/4?"),
	   ENV("MG_GT_EACH_MB=8", "MG_GT_UNTOUCHED=1", "MG_GT_LOG=body.log"), 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 30);
	CU_ASSERT(mg_shards_arch(o.report, arch));
	CU_ASSERT_EQUAL(shard_sum(o.report, "kills"), 0);
	int all_say;
	CU_ASSERT(generations(o.report, "recycle", ">= recycle 100 MiB", &all_say) >= 2);
	CU_ASSERT(all_say);
	/* stopped at the boundary: never past the limit by more than one test */
	CU_ASSERT(shard_sum(o.report, "peak_va") < 120 << 20);
	snprintf(log, sizeof(log), "%s/body.log", o.dir);
	bodies_once(o.report, log, 30);
	CU_ASSERT(lines_with(log, "probe yes") >= 1);
	CU_ASSERT_EQUAL(lines_with(log, "probe no"), 0);
	/* one program per generation: recycles + 1 starts that ran tests */
	CU_ASSERT_EQUAL(lines_with(log, "start "), shard_sum(o.report, "recycles") + 1);
	done(&o);
}

static void gtest_probe_recycle(void)
{
	probe_recycle(GTEST_LEAKS, "x64");
}

#ifdef GTEST_LEAKS32
/* A kernel that cannot execute 32-bit programs (exec: ENOEXEC) skips the
 * x86 cases: CTest's skip code 77, with the reason (the VM runs them). */
static void x86_or_skip(const char *prog)
{
	int st;
	if (mg_exec_refused(prog, "--gtest_list_tests", prog, &st))
		_exit(77);
	CU_ASSERT_FATAL(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* The same two with the program built for x86 (-m32): the x86 probe.
 * Three runs, not ten: each is ~0.5 s of CPU natively, ~30 times that
 * under the x86 VM's emulation, and a case there stays under half its
 * limit (tests/x86vm/README.md). */
static void gtest_probe_suspects_x86(void)
{
	x86_or_skip(GTEST_LEAKS32);
	probe_suspects(GTEST_LEAKS32, "x86", 3);
}

static void gtest_probe_recycle_x86(void)
{
	x86_or_skip(GTEST_LEAKS32);
	probe_recycle(GTEST_LEAKS32, "x86");
}
#endif

/* Only a kill limit: the program stops itself when its VA plus the growth
 * it expects of the next test would reach it (reason: expected growth). */
static void gtest_probe_growth(void)
{
	outcome o;
	char log[128];
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--driver", "gtest", "--kill-at", "va=120M", "--report",
	        "report.json", "--", GTEST_LEAKS, "--gtest_filter=*/1?:*/2?:*/4?"),
	   ENV("MG_GT_EACH_MB=8", "MG_GT_UNTOUCHED=1", "MG_GT_LOG=body.log"), 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 30);
	CU_ASSERT_EQUAL(shard_sum(o.report, "kills"), 0);
	int all_say;
	CU_ASSERT(generations(o.report, "recycle", "expected growth", &all_say) >= 2);
	CU_ASSERT(all_say);
	snprintf(log, sizeof(log), "%s/body.log", o.dir);
	bodies_once(o.report, log, 30);
	/* read at each boundary by the probe: nothing approximate */
	json_t *sh = json_array_get(json_object_get(o.report, "shards"), 0);
	CU_ASSERT_PTR_NOT_NULL(sh);
	CU_ASSERT_PTR_NULL(json_object_get(sh, "approximate"));
	CU_ASSERT(strstr(o.out, "approximate") == NULL);
	done(&o);
}

/*
 * An ASan-built GoogleTest program (the probe is not sanitized) runs with the
 * probe: it is loaded (ASan is told not to insist on coming first, the
 * user's ASAN_OPTIONS kept), the figures are the program's own, the exit
 * status is the tests'.
 */
static void gtest_probe_asan(void)
{
	outcome o;
	char log[128];
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--driver", "gtest", "--report", "report.json", "--",
	        GTEST_LEAKS_ASAN, "--gtest_filter=*/3?"),
	   ENV("MG_GT_LOG=body.log", "ASAN_OPTIONS=detect_leaks=0"), 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 10);
	snprintf(log, sizeof(log), "%s/body.log", o.dir);
	CU_ASSERT(lines_with(log, "probe yes detect_leaks=0:verify_asan_link_order=0") >= 1);
	CU_ASSERT_EQUAL(lines_with(log, "probe no detect_leaks=0:"), 0);
	json_t *t = find_test(o.report, "Leaks/Step.Run/37");
	json_int_t d = t ? json_integer_value(json_object_get(t, "va_delta")) : 0;
	CU_ASSERT(d >= 64 << 20 && d < 72 << 20); /* 64 MiB and ASan's redzones */
	t = find_test(o.report, "Leaks/Step.Run/30");
	d = t ? json_integer_value(json_object_get(t, "va_delta")) : -1;
	CU_ASSERT(d < 16 << 20); /* the first test: from a fresh program, not the shim */
	done(&o);
	/* a failing test still fails the run */
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--driver", "gtest", "--report", "report.json", "--",
	        GTEST_LEAKS_ASAN, "--gtest_filter=*/3?"),
	   ENV("MG_GT_FAIL=Leaks/Step.Run/33", "ASAN_OPTIONS=detect_leaks=0"), 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "Leaks/Step.Run/33"), "fail");
	CU_ASSERT_EQUAL(count(o.report, "pass"), 9);
	done(&o);
}

/* A static program cannot take the probe: the driver's own readings, and
 * one line saying the boundaries are approximate; every test still runs. */
static void gtest_probe_static(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "1", "--driver", "gtest", "--report", "report.json", "--",
	        GTEST_LEAKS_STATIC),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 200);
	CU_ASSERT(strstr(o.err, "a static executable") != NULL);
	CU_ASSERT(strstr(o.err, "boundaries are approximate") != NULL);
	json_t *t = find_test(o.report, "Leaks/Step.Run/0");
	const char *out = t ? json_string_value(json_object_get(t, "output")) : NULL;
	CU_ASSERT(!out || !strstr(out, "approximate")); /* said to the user, not to a test */
	/* and in the report: the shard's figures are approximate, and why */
	json_t *sh = json_array_get(json_object_get(o.report, "shards"), 0);
	const char *why = json_string_value(json_object_get(sh, "approximate"));
	CU_ASSERT(why && strstr(why, "a static executable"));
	CU_ASSERT(strstr(o.out, "approximate: gtest_leaks_static: a static executable") != NULL);
	done(&o);
}

/* Whether the run left a filter file in its TMPDIR (the test's directory). */
static int filter_left(const outcome *o)
{
	char cmd[160];
	snprintf(cmd, sizeof(cmd), "ls '%s' | grep -q memguard-gtest-filter", o->dir);
	return system(cmd) == 0;
}

/*
 * 20,000 tests, -j 1, the defaults: one program runs them all (one start
 * that runs tests; a bug that batched or restarted would log more), every
 * test passes, each body once, one generation; the filter file is gone.
 * The first test's growth is from its own program's reading as it starts
 * (`base`), not from the listing program's end: a test that allocates
 * nothing grows by a page or two (before: 260 KiB of VA, 272 KiB of RSS,
 * the two programs' difference; with the listing in huge pages and no
 * base, 36 KiB and -100 KiB). The listing program alone gets glibc's
 * huge-page tunable, after the user's own; the program that runs the
 * tests gets the user's value as given.
 */
static void gtest_one_program(void)
{
	outcome o;
	char path[128];
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--driver", "gtest", "--report", "report.json", "--",
	        GTEST_BENCH),
	   ENV("MG_BENCH_TESTS=20000", "MG_BENCH_STARTS=starts.log", "MG_BENCH_LOG=body.log",
	       "MG_BENCH_TUNABLES=tun.log", "GLIBC_TUNABLES=glibc.malloc.perturb=0"),
	   0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 20000);
	json_t *first = find_test(o.report, "Bench.t00000");
	CU_ASSERT_FATAL(first != NULL);
	json_int_t dva = json_integer_value(json_object_get(first, "va_delta"));
	json_int_t drss = json_integer_value(json_object_get(first, "rss_delta"));
	CU_ASSERT(dva >= 0 && dva < 64 << 10);
	CU_ASSERT(drss >= 0 && drss < 64 << 10);
	if (dva < 0 || dva >= 64 << 10 || drss < 0 || drss >= 64 << 10)
		fprintf(stderr, "Bench.t00000: va_delta %lld, rss_delta %lld\n", (long long)dva,
		        (long long)drss);
	/* the shard's peak: its program's, not the listing program's in huge pages */
	json_int_t top = 0;
	size_t i;
	json_t *t;
	json_array_foreach(
	    json_object_get(json_array_get(json_object_get(o.report, "shards"), 0), "tests"), i, t)
	{
		json_int_t r = json_integer_value(json_object_get(t, "rss_after"));
		top = r > top ? r : top;
	}
	json_int_t peak = shard_max(o.report, "peak_rss");
	CU_ASSERT(top > 0 && peak >= top && peak < top + (256 << 10));
	if (!(top > 0 && peak >= top && peak < top + (256 << 10)))
		fprintf(stderr, "peak_rss %lld, the tests' largest %lld\n", (long long)peak,
		        (long long)top);
	snprintf(path, sizeof(path), "%s/tun.log", o.dir);
	CU_ASSERT(mg_lines_in(path, "list glibc.malloc.perturb=0:glibc.malloc.hugetlb=1") >= 1);
	CU_ASSERT_EQUAL(mg_lines_in(path, "run glibc.malloc.perturb=0"), 1);
	CU_ASSERT_EQUAL(mg_lines_in(path, "run "), 1);
	snprintf(path, sizeof(path), "%s/starts.log", o.dir);
	CU_ASSERT_EQUAL(mg_lines_in(path, "start "), 1);
	if (mg_lines_in(path, "start ") != 1) {
		char cmd[300];
		snprintf(cmd, sizeof(cmd), "cat '%s' >&2; ls -la '%s' >&2", path, o.dir);
		fprintf(stderr, "starts.log:\n");
		CU_ASSERT(system(cmd) == 0);
		fprintf(stderr, "stderr: %s\n", o.err);
	}
	snprintf(path, sizeof(path), "%s/body.log", o.dir);
	CU_ASSERT_EQUAL(mg_lines_in(path, "body "), 20000);
	json_t *gens =
	    json_object_get(json_array_get(json_object_get(o.report, "shards"), 0), "generations");
	CU_ASSERT_EQUAL(json_array_size(gens), 1);
	CU_ASSERT(!filter_left(&o));
	done(&o);
}

/* The first test's growth and the shard's peak from the program's own
 * base, where the base cannot ride in the seen mark (stdout's buffer too
 * full for it at the first RUN line: it goes by the probe's pipe) and where
 * the first queued test is one GoogleTest passes over (a disabled one: its
 * skip goes out after the base), and no generation's peak is the listing
 * program's. Before (review of the base change): -1.9 MiB of VA and the
 * huge-page listing's peak in both. */
static void gtest_base_ways(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--driver", "gtest", "--report", "report.json", "--",
	        GTEST_BENCH),
	   ENV("MG_BENCH_TESTS=2000", "MG_BENCH_FILL=4050"), 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 2000);
	json_t *t = find_test(o.report, "Bench.t00000");
	json_int_t dva = t ? json_integer_value(json_object_get(t, "va_delta")) : -1;
	json_int_t va = t ? json_integer_value(json_object_get(t, "va_after")) : 0;
	CU_ASSERT(dva >= 0 && dva < 64 << 10);
	CU_ASSERT(shard_max(o.report, "peak_va") < va + (256 << 10));
	done(&o);
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--driver", "gtest", "--report", "report.json", "--",
	        GTEST_SAMPLE, "--gtest_filter=Basic.DISABLED_Off:Small/Square.*"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	expect_state(o.report, "Basic.DISABLED_Off", "skip");
	t = find_test(o.report, "Basic.DISABLED_Off");
	dva = t ? json_integer_value(json_object_get(t, "va_delta")) : -1;
	va = t ? json_integer_value(json_object_get(t, "va_after")) : 0;
	/* it ran nothing: no growth, the program's base its figures (before:
	 * a reading when the shim read its line, what the tests after it had
	 * done by then; under ASan and load, more than 64 KiB) */
	CU_ASSERT_EQUAL(dva, 0);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(t, "rss_delta")), 0);
	CU_ASSERT(shard_max(o.report, "peak_va") < va + (256 << 10));
	done(&o);
	/* a recycle after each test on two lanes: a host can end with no
	 * test left for it (a generation of no test), whose peak is no
	 * listing program's (before: 1.9 MiB over every test's, the shard's
	 * peak; the sweep's google-benchmark and rapidjson programs) */
	mg(&o,
	   ARGV("run", "-q", "-j", "2", "--recycle-at", "rss=1M", "--driver", "gtest", "--report",
	        "report.json", "--", GTEST_SAMPLE, "--gtest_filter=Small/Square.*:Basic.Adds"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	json_int_t top = 0;
	size_t i, k;
	json_t *sh, *g;
	json_array_foreach(json_object_get(o.report, "shards"), i, sh)
	{
		json_array_foreach(json_object_get(sh, "tests"), k, t)
		{
			json_int_t v = json_integer_value(json_object_get(t, "va_after"));
			top = v > top ? v : top;
		}
	}
	json_array_foreach(json_object_get(o.report, "shards"), i, sh)
	{
		CU_ASSERT(json_integer_value(json_object_get(sh, "peak_va")) < top + (256 << 10));
		json_array_foreach(json_object_get(sh, "generations"), k, g)
		{
			json_int_t p = json_integer_value(json_object_get(g, "peak_va"));
			CU_ASSERT(p < top + (256 << 10));
			if (p >= top + (256 << 10))
				fprintf(stderr,
				        "shard %zu generation %zu: peak_va %lld, tests' top %lld\n",
				        i, k, (long long)p, (long long)top);
		}
	}
	done(&o);
}

/* Writes all of text to fd. */
static void put_all(int fd, const char *text)
{
	for (size_t n = strlen(text); n;) {
		ssize_t w = write(fd, text, n);
		if (w < 0 && errno == EINTR)
			continue;
		CU_ASSERT_FATAL(w > 0);
		text += w;
		n -= (size_t)w;
	}
}

/* A gtest shim over GTEST_BENCH of ntests tests started by hand, as the
 * runner would (commands on fd 3, replies on fd 4, stdout to /dev/null),
 * in dir (NULL: here) with MG_BENCH_STARTS=starts (NULL: none): its pid,
 * the write end of its commands and its replies. */
static pid_t shim_by_hand(const char *dir, const char *ntests, const char *starts, int *cmd_w,
                          FILE **replies)
{
	int cmd[2], rep[2];
	CU_ASSERT_FATAL(pipe(cmd) == 0 && pipe(rep) == 0);
	pid_t pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		if ((dir && chdir(dir) != 0) || null < 0 || dup2(cmd[0], 3) < 0 ||
		    dup2(rep[1], 4) < 0 || dup2(null, 1) < 0)
			_exit(127);
		for (int fd = 5; fd < 64; fd++)
			close(fd);
		setenv("MEMGUARD_HOST", "2", 1);
		setenv("MEMGUARD_CMD_FD", "3", 1);
		setenv("MEMGUARD_REPLY_FD", "4", 1);
		setenv("MG_BENCH_TESTS", ntests, 1);
		if (starts)
			setenv("MG_BENCH_STARTS", starts, 1);
		execl(MEMGUARD_BIN, "memguard", "__driver", "gtest", "--", GTEST_BENCH,
		      (char *)NULL);
		_exit(127);
	}
	close(cmd[0]);
	close(rep[1]);
	*cmd_w = cmd[1];
	*replies = fdopen(rep[0], "r");
	CU_ASSERT_FATAL(*replies != NULL);
	return pid;
}

/* Ends a shim_by_hand: quit, its bye, and exit 0. */
static void shim_by_hand_quit(pid_t pid, int cmd_w, FILE *replies)
{
	char line[256];
	put_all(cmd_w, "quit\n");
	int bye = 0;
	while (fgets(line, sizeof(line), replies))
		bye |= !strncmp(line, "bye ", 4);
	CU_ASSERT(bye);
	fclose(replies);
	close(cmd_w);
	int st = 0;
	CU_ASSERT_FATAL(waitpid(pid, &st, 0) == pid);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/*
 * The gtest shim starts its program once for a burst of run lines however
 * long the runner takes to write it: up to the burst's "fed" (PROTOCOL.md
 * 6b). This runner, written by hand, pauses 100 ms in the middle of one
 * (the shim once took a 2 ms pause for the end of the feed, and started a
 * second program for the rest on a loaded machine).
 */
static void gtest_fed_burst(void)
{
	char dir[] = "/tmp/mg-fed-XXXXXX", path[64], line[256];
	int cmd;
	FILE *replies;
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	pid_t pid = shim_by_hand(dir, "200", "starts.log", &cmd, &replies);
	CU_ASSERT_FATAL(fgets(line, sizeof(line), replies) && !strncmp(line, "hello 2 ", 8));
	for (int i = 0; i < 200; i++) {
		char run[32];
		snprintf(run, sizeof(run), "run Bench.t%05d\n", i);
		put_all(cmd, run);
		if (i == 99)
			nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
	}
	put_all(cmd, "fed\n");
	int results = 0, starts = 0;
	while (results < 200 && fgets(line, sizeof(line), replies)) {
		starts += !strncmp(line, "start ", 6);
		results += !strncmp(line, "pass ", 5);
	}
	/* a result that follows its start in one write implies it (PROTOCOL.md
	 * rule 3): the shim leaves such starts out, one line a silent test
	 * (some starts go out alone, where a read of the program's pipe ended
	 * between a test's two lines) */
	CU_ASSERT(starts < results);
	CU_ASSERT_EQUAL(results, 200);
	shim_by_hand_quit(pid, cmd, replies);
	snprintf(path, sizeof(path), "%s/starts.log", dir);
	CU_ASSERT_EQUAL(mg_lines_in(path, "start "), 1);
	unlink(path);
	CU_ASSERT(rmdir(dir) == 0);
}

/* utime + stime of a process, in clock ticks (/proc/PID/stat, fields 14, 15) */
static long cpu_ticks(pid_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')'); /* after the command's name */
	long ut = 0, st = 0;
	if (!p ||
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %ld %ld", &ut, &st) != 2)
		return -1;
	return ut + st;
}

/*
 * The listing host (no listing handed to it on fd 5) once closed fd 5 all
 * the same: its own SIGCHLD pipe. Its poll then watched whatever took fd 5
 * next (the quit page, always readable), and it spun while it waited for
 * the runner's next line. This runner, written by hand, lists and then
 * waits 300 ms: the host sleeps through it (a spin took all 300 ms).
 */
static void gtest_listing_host_idle(void)
{
	char line[256];
	int cmd;
	FILE *replies;
	pid_t pid = shim_by_hand(NULL, "20", NULL, &cmd, &replies);
	put_all(cmd, "list\n");
	int tests = 0, end = 0;
	while (!end && fgets(line, sizeof(line), replies)) {
		tests += !strncmp(line, "test ", 5);
		end = !strncmp(line, "end ", 4);
	}
	CU_ASSERT(end);
	CU_ASSERT_EQUAL(tests, 20);
	long before = cpu_ticks(pid);
	nanosleep(&(struct timespec){0, 300 * 1000 * 1000}, NULL);
	long after = cpu_ticks(pid);
	CU_ASSERT(before >= 0 && after >= 0);
	/* idle: a few ticks at most, where a spin takes about 30 */
	CU_ASSERT(after - before <= 5);
	shim_by_hand_quit(pid, cmd, replies);
}

/*
 * A filter far over the 128 KiB an argument may hold, and over the 1 MiB
 * the shim reads a line in: every other test of 12,000 with 200-character
 * names (--tests-from), so neither form of the filter is short (~1.2 MiB):
 * one program, exactly the tests asked for, and gtest's note of the filter
 * never on stdout nor in a test's output. The whole list with the user's
 * filter: the user's filter itself, short.
 */
static void gtest_long_filter(void)
{
	outcome o;
	char path[160], name[256], xs[200];
	char dir[] = "/tmp/mg-lf-XXXXXX";
	memset(xs, 'x', sizeof(xs) - 1);
	xs[sizeof(xs) - 1] = 0;
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/tests.txt", dir);
	FILE *f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	for (int i = 0; i < 12000; i += 2) {
		snprintf(name, sizeof(name), "t%05d", i);
		fprintf(f, "Bench.%s%.194s\n", name, xs);
	}
	fclose(f);
	const char *tests_from = path;
	mg(&o,
	   ARGV("run", "-j", "1", "--driver", "gtest", "--tests-from", tests_from, "--report",
	        "report.json", "--", GTEST_BENCH),
	   ENV("MG_BENCH_TESTS=12000", "MG_BENCH_NAME_LEN=200", "MG_BENCH_STARTS=starts.log",
	       "MG_BENCH_LOG=body.log"),
	   0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 6000);
	CU_ASSERT_EQUAL(ntests(o.report), 6000);
	CU_ASSERT(strstr(o.out, "xxxxxxxxxx:Bench") == NULL);
	CU_ASSERT(strstr(o.out, "Note:") == NULL);
	char lp[160];
	snprintf(lp, sizeof(lp), "%s/starts.log", o.dir);
	CU_ASSERT_EQUAL(mg_lines_in(lp, "start "), 1);
	snprintf(lp, sizeof(lp), "%s/body.log", o.dir);
	CU_ASSERT_EQUAL(mg_lines_in(lp, "body "), 6000);
	CU_ASSERT_EQUAL(mg_lines_in(lp, "body Bench.t00001"), 0);
	snprintf(name, sizeof(name), "Bench.t11998%.194s", xs);
	json_t *t = find_test(o.report, name);
	CU_ASSERT(t && (!json_object_get(t, "output") ||
	                !strstr(json_string_value(json_object_get(t, "output")), "Note:")));
	CU_ASSERT(!filter_left(&o));
	done(&o);
	/* through a wrapper (the probe loads into env, not into the program):
	 * the file is never read, so the same tests run in argument batches */
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--driver", "gtest", "--tests-from", tests_from, "--report",
	        "report.json", "--", "/usr/bin/env", GTEST_BENCH),
	   ENV("MG_BENCH_TESTS=12000", "MG_BENCH_NAME_LEN=200", "MG_BENCH_STARTS=starts.log",
	       "MG_BENCH_LOG=body.log"),
	   0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 6000);
	snprintf(lp, sizeof(lp), "%s/body.log", o.dir);
	CU_ASSERT_EQUAL(mg_lines_in(lp, "body "), 6000);
	snprintf(lp, sizeof(lp), "%s/starts.log", o.dir);
	CU_ASSERT(mg_lines_in(lp, "start ") >= 10); /* 120 KiB batches of 207-byte names */
	CU_ASSERT(!filter_left(&o));
	done(&o);
	/* the whole list with a user filter: that filter, short */
	mg(&o,
	   ARGV("run", "-j", "1", "--driver", "gtest", "--report", "report.json", "--", GTEST_BENCH,
	        "--gtest_filter=Bench.*"),
	   ENV("MG_BENCH_TESTS=6000", "MG_BENCH_NAME_LEN=200"), 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_EQUAL(count(o.report, "pass"), 6000);
	CU_ASSERT(strstr(o.out, "xxxxxxxxxx:Bench") == NULL);
	snprintf(name, sizeof(name), "Bench.t00000%.194s", xs);
	t = find_test(o.report, name);
	CU_ASSERT(t != NULL);
	CU_ASSERT(!t || !json_object_get(t, "output") ||
	          !strstr(json_string_value(json_object_get(t, "output")), "Note:"));
	done(&o);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	CU_ASSERT(system(path) == 0);
}

/*
 * The user's own selection, as before: --gtest_filter or GTEST_FILTER chose
 * what was listed, memguard's --filter narrows it; the program runs exactly
 * those (bodies logged), in one start, whichever way the user said it.
 */
static void gtest_user_filter(void)
{
	static const char *const how[][2] = {
	    {"--gtest_filter=Bench.t00*-Bench.t000*", "MG_BENCH_X=1"},
	    {"--gtest_also_run_disabled_tests=0", "GTEST_FILTER=Bench.t00*-Bench.t000*"},
	};
	for (size_t i = 0; i < 2; i++) {
		outcome o;
		char lp[160];
		mg(&o,
		   ARGV("run", "-q", "-j", "1", "--driver", "gtest", "--filter", "Bench.t001*",
		        "--report", "report.json", "--", GTEST_BENCH, how[i][0]),
		   ENV("MG_BENCH_TESTS=2000", "MG_BENCH_STARTS=starts.log", "MG_BENCH_LOG=body.log",
		       how[i][1]),
		   0);
		CU_ASSERT(exited_with(&o, 0));
		CU_ASSERT_FATAL(o.report != NULL);
		CU_ASSERT_EQUAL(count(o.report, "pass"), 100);
		CU_ASSERT_EQUAL(ntests(o.report), 100);
		snprintf(lp, sizeof(lp), "%s/body.log", o.dir);
		CU_ASSERT_EQUAL(mg_lines_in(lp, "body "), 100);
		CU_ASSERT_EQUAL(mg_lines_in(lp, "body Bench.t001"), 100);
		snprintf(lp, sizeof(lp), "%s/starts.log", o.dir);
		CU_ASSERT_EQUAL(mg_lines_in(lp, "start "), 1);
		done(&o);
		/* without memguard's filter: the user's 900, one start */
		mg(&o,
		   ARGV("run", "-q", "-j", "1", "--driver", "gtest", "--report", "report.json",
		        "--", GTEST_BENCH, how[i][0]),
		   ENV("MG_BENCH_TESTS=2000", "MG_BENCH_LOG=body.log", how[i][1]), 0);
		CU_ASSERT(exited_with(&o, 0));
		CU_ASSERT_EQUAL(count(o.report, "pass"), 900);
		snprintf(lp, sizeof(lp), "%s/body.log", o.dir);
		CU_ASSERT_EQUAL(mg_lines_in(lp, "body "), 900);
		done(&o);
	}
}

/*
 * Without the probe (a static program) the filter is an argument: batches
 * under 128 KiB, a start each (3,000 names of 206 bytes: 5 or 6), every
 * test passes once.
 */
static void gtest_static_batches(void)
{
	outcome o;
	char lp[160];
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--driver", "gtest", "--report", "report.json", "--",
	        GTEST_BENCH_STATIC),
	   ENV("MG_BENCH_TESTS=3000", "MG_BENCH_NAME_LEN=200", "MG_BENCH_STARTS=starts.log",
	       "MG_BENCH_LOG=body.log"),
	   0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 3000);
	snprintf(lp, sizeof(lp), "%s/starts.log", o.dir);
	long starts = mg_lines_in(lp, "start ");
	CU_ASSERT(starts >= 5 && starts <= 6);
	snprintf(lp, sizeof(lp), "%s/body.log", o.dir);
	CU_ASSERT_EQUAL(mg_lines_in(lp, "body "), 3000);
	done(&o);
}

/*
 * Filters by prefix ("Bench.t1*", and the negatives "*-Bench.t0*:..."): two
 * lanes, each given a part of the list, memguard's --filter picking every
 * test ending in 3 or 7 and all of one block: exactly those bodies, once.
 */
static void gtest_lanes_prefixes(void)
{
	static const char *const filters[] = {"Bench.t*[37]", "Bench.t1*", "*9?"};
	static const long want[] = {4000, 10000, 2000};
	for (size_t i = 0; i < 3; i++) {
		outcome o;
		char lp[160], line[256];
		mg(&o,
		   ARGV("run", "-q", "-j", "2", "--driver", "gtest", "--filter", filters[i],
		        "--report", "report.json", "--", GTEST_BENCH),
		   ENV("MG_BENCH_TESTS=20000", "MG_BENCH_LOG=body.log"), 0);
		CU_ASSERT(exited_with(&o, 0));
		CU_ASSERT_FATAL(o.report != NULL);
		CU_ASSERT_EQUAL(count(o.report, "pass"), want[i]);
		snprintf(lp, sizeof(lp), "%s/body.log", o.dir);
		CU_ASSERT_EQUAL(mg_lines_in(lp, "body "), want[i]);
		snprintf(line, sizeof(line), "sort '%s' | uniq -d | grep -q .", lp);
		CU_ASSERT(system(line) != 0); /* no body twice */
		done(&o);
	}
}

/* The "tempdir PPID DIR" lines gtest_bench wrote (MG_BENCH_TEMPDIR): DIR
 * into dirs[], PPID (the program's host) into hosts[], up to 8; how many,
 * or -1 when one says its directory was unwritable. */
static int tempdirs_read(const char *log, char dirs[][256], long *hosts)
{
	FILE *f = fopen(log, "r");
	char line[512];
	int n = 0, at = 0;
	long ppid;
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "tempdir %ld %n", &ppid, &at) != 1 || !at)
			continue;
		if (strstr(line, " unwritable"))
			n = -1;
		else if (n >= 0 && n < 8 && strlen(line + at) < 256) {
			hosts[n] = ppid;
			memcpy(dirs[n++], line + at, strlen(line + at) + 1);
		}
	}
	if (f)
		fclose(f);
	return n;
}

/* The shard (a lane's) whose generations include host pid, or -1. */
static long shard_of_host(json_t *report, long pid)
{
	size_t k, g;
	json_t *sh, *gen;
	json_array_foreach(json_object_get(report, "shards"), k, sh)
	    json_array_foreach(json_object_get(sh, "generations"), g, gen)
	{
		if (json_integer_value(json_object_get(gen, "pid")) == pid)
			return (long)k;
	}
	return -1;
}

/* Whether dir holds an entry whose name starts with prefix. */
static int dir_has(const char *dir, const char *prefix)
{
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "ls -A '%s' | grep -q '^%s'", dir, prefix);
	return system(cmd) == 0;
}

/*
 * Lanes run copies of one program side by side (leveldb's recovery_test
 * met the other lane's LOCK file in GoogleTest's TempDir(), /tmp, and a
 * green suite went red at -j 2): each lane's programs get a TEST_TMPDIR of
 * their own, lane-0 and lane-1 of one directory under TMPDIR, there and
 * writable while they run, gone after the run with what they wrote in it;
 * a symbolic link a test left there is removed, not what it points to,
 * with --lane-tmpdir. Without it (the default), with one lane, or with a
 * TEST_TMPDIR of the user's: the program's TempDir() is what it is run
 * directly.
 */
static void gtest_lane_tmpdir(void)
{
	outcome o;
	char outside[64], keep[96], link_env[96], log[160], dirs[8][256];
	long hosts[8];
	snprintf(outside, sizeof(outside), "/tmp/mg-lane-outside-%d", (int)getpid());
	snprintf(keep, sizeof(keep), "%s/keep", outside);
	snprintf(link_env, sizeof(link_env), "MG_BENCH_LINK=%s", outside);
	CU_ASSERT_FATAL(mkdir(outside, 0700) == 0);
	FILE *k = fopen(keep, "w");
	CU_ASSERT_FATAL(k != NULL);
	fclose(k);

	/* --contain none: the hosts' pids in the report are the ones the
	 * programs see as their parent's */
	mg(&o,
	   ARGV("run", "-q", "-j", "2", "--lane-tmpdir", "--contain", "none", "--driver", "gtest",
	        "--report", "report.json", "--", GTEST_BENCH),
	   ENV("MG_BENCH_TESTS=40", "MG_BENCH_TEMPDIR=tempdirs.log", link_env), 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 40);
	snprintf(log, sizeof(log), "%s/tempdirs.log", o.dir);
	int n = tempdirs_read(log, dirs, hosts);
	/* a program a lane, or more where a lane's host came late and the
	 * other lane took its tests too (timing): each in its own lane's,
	 * the lane its host's generation is in (shard K: lane-K) */
	CU_ASSERT(n >= 1);
	size_t len = strlen(o.dir);
	for (int i = 0; i < n; i++) {
		const char *d = dirs[i], *last = strrchr(d, '/');
		char want[16];
		long lane = shard_of_host(o.report, hosts[i]);
		CU_ASSERT(lane == 0 || lane == 1);
		snprintf(want, sizeof(want), "/lane-%ld", lane);
		CU_ASSERT(!strncmp(d, o.dir, len) && !strncmp(d + len, "/memguard-lanes-", 16));
		CU_ASSERT(last && !strcmp(last, want));
		CU_ASSERT(last && !strncmp(dirs[0], d, (size_t)(last - d) + 1)); /* one parent */
	}
	CU_ASSERT(!dir_has(o.dir, "memguard-lanes-")); /* removed, and what was in it */
	CU_ASSERT(access(keep, F_OK) == 0);            /* the link's target stays */
	done(&o);

	/* one lane: TMPDIR (the test's directory), as the program run alone */
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--lane-tmpdir", "--driver", "gtest", "--", GTEST_BENCH),
	   ENV("MG_BENCH_TESTS=40", "MG_BENCH_TEMPDIR=tempdirs.log"), 0);
	CU_ASSERT(exited_with(&o, 0));
	snprintf(log, sizeof(log), "%s/tempdirs.log", o.dir);
	CU_ASSERT_EQUAL(tempdirs_read(log, dirs, hosts), 1);
	CU_ASSERT_STRING_EQUAL(dirs[0], o.dir);
	done(&o);

	/* the default, two lanes: TMPDIR for both, as the program run alone */
	mg(&o, ARGV("run", "-q", "-j", "2", "--driver", "gtest", "--", GTEST_BENCH),
	   ENV("MG_BENCH_TESTS=40", "MG_BENCH_TEMPDIR=tempdirs.log"), 0);
	CU_ASSERT(exited_with(&o, 0));
	snprintf(log, sizeof(log), "%s/tempdirs.log", o.dir);
	n = tempdirs_read(log, dirs, hosts);
	CU_ASSERT(n >= 1);
	for (int i = 0; i < n; i++)
		CU_ASSERT_STRING_EQUAL(dirs[i], o.dir);
	done(&o);

	/* the user's TEST_TMPDIR: every lane's, untouched */
	char user_env[96];
	snprintf(user_env, sizeof(user_env), "TEST_TMPDIR=%s", outside);
	mg(&o,
	   ARGV("run", "-q", "-j", "2", "--lane-tmpdir", "--driver", "gtest", "--", GTEST_BENCH),
	   ENV("MG_BENCH_TESTS=40", "MG_BENCH_TEMPDIR=tempdirs.log", user_env), 0);
	CU_ASSERT(exited_with(&o, 0));
	snprintf(log, sizeof(log), "%s/tempdirs.log", o.dir);
	n = tempdirs_read(log, dirs, hosts);
	CU_ASSERT(n >= 1);
	for (int i = 0; i < n; i++)
		CU_ASSERT_STRING_EQUAL(dirs[i], outside);
	CU_ASSERT(access(keep, F_OK) == 0);
	done(&o);
	char rm[128];
	snprintf(rm, sizeof(rm), "rm -rf '%s'", outside);
	CU_ASSERT(system(rm) == 0);
}

/*
 * With a history, a gtest lane's first program takes a share of the run's
 * expected time, not of its tests: of 12 tests whose history says the last
 * two took 1 s each and the rest 1 ms, one lane runs the first 11, the
 * other the last (by count, 7 and 5: the two slow tests in one lane). A
 * program of no more tests than lanes stays one program. The two tests do
 * take time (0.5 s each: MG_BENCH_SLOW), so the first lane is still in its
 * share when the second lane's host starts on a loaded machine (before, a
 * late host left its share to the first lane in 1 sanitized run of many).
 */
static void gtest_history_shares(void)
{
	static const char *const sizes[] = {"MG_BENCH_TESTS=12", "MG_BENCH_TESTS=2"};
	for (size_t i = 0; i < 2; i++) {
		outcome o;
		char hist[64];
		snprintf(hist, sizeof(hist), "/tmp/mg-shares-%d.json", (int)getpid());
		mg(&o, ARGV("run", "-q", "-j", "2", "--report", "report.json", "--", GTEST_BENCH),
		   ENV(sizes[i]), 0);
		CU_ASSERT(exited_with(&o, 0));
		CU_ASSERT_FATAL(o.report != NULL);
		size_t k, n;
		json_t *sh, *t;
		json_array_foreach(json_object_get(o.report, "shards"), k, sh)
		    json_array_foreach(json_object_get(sh, "tests"), n, t)
		{
			const char *name = json_string_value(json_object_get(t, "name"));
			int slow = !strcmp(name, "Bench.t00010") || !strcmp(name, "Bench.t00011");
			json_object_set_new(t, "duration", json_real(slow ? 1.0 : 0.001));
		}
		CU_ASSERT_FATAL(json_dump_file(o.report, hist, 0) == 0);
		done(&o);

		mg(&o,
		   ARGV("run", "-j", "2", "--history", hist, "--report", "report.json", "--",
		        GTEST_BENCH),
		   ENV(sizes[i], "MG_BENCH_SLOW=10:500"), 0);
		CU_ASSERT(exited_with(&o, 0));
		CU_ASSERT_FATAL(o.report != NULL);
		if (i == 0) {
			CU_ASSERT_EQUAL(count(o.report, "pass"), 12);
			long first = shard_of(o.report, "Bench.t00000");
			CU_ASSERT(first >= 0);
			CU_ASSERT_EQUAL(shard_of(o.report, "Bench.t00010"), first);
			CU_ASSERT(shard_of(o.report, "Bench.t00011") == 1 - first);
			json_t *other = json_array_get(json_object_get(o.report, "shards"),
			                               (size_t)(1 - first));
			CU_ASSERT_EQUAL(json_array_size(json_object_get(other, "tests")), 1);
		} else {
			CU_ASSERT_EQUAL(count(o.report, "pass"), 2);
			CU_ASSERT_EQUAL(shard_of(o.report, "Bench.t00000"),
			                shard_of(o.report, "Bench.t00001"));
		}
		CU_ASSERT(strstr(o.err, "tests known from") != NULL);
		done(&o);
		unlink(hist);
	}
}

/*
 * With a history, a run has no more lanes than are worth their start
 * (about the listing's time): 12 tests whose history says 0.1 ms each run
 * in one lane at -j 2 (one shard, said on stderr); at 1 s each in two, as
 * without a history. Where two lanes are expected the tests do take time
 * (100 ms each: MG_BENCH_SLOW), so the second lane's host starts while the
 * first is still in its share: with tests of microseconds, a host started
 * late on a loaded machine can find its share taken by the first lane (one
 * shard), as in drivers__gtest_history_shares. The case failed twice in
 * sanitized runs beside other cases (output not kept); that is the one
 * timing it depended on.
 */
static void gtest_history_lanes(void)
{
	static const double each[] = {0.0001, 1.0};
	for (size_t i = 0; i < 2; i++) {
		outcome o;
		char hist[64];
		snprintf(hist, sizeof(hist), "/tmp/mg-lanes-%d.json", (int)getpid());
		mg(&o, ARGV("run", "-q", "-j", "2", "--report", "report.json", "--", GTEST_BENCH),
		   ENV("MG_BENCH_TESTS=12", "MG_BENCH_SLOW=0:100"), 0);
		CU_ASSERT(exited_with(&o, 0));
		CU_ASSERT_FATAL(o.report != NULL);
		CU_ASSERT_EQUAL(json_array_size(json_object_get(o.report, "shards")), 2);
		size_t k, n;
		json_t *sh, *t;
		json_array_foreach(json_object_get(o.report, "shards"), k, sh)
		    json_array_foreach(json_object_get(sh, "tests"), n, t)
		        json_object_set_new(t, "duration", json_real(each[i]));
		CU_ASSERT_FATAL(json_dump_file(o.report, hist, 0) == 0);
		done(&o);

		mg(&o,
		   ARGV("run", "-j", "2", "--history", hist, "--report", "report.json", "--",
		        GTEST_BENCH),
		   ENV("MG_BENCH_TESTS=12", i ? "MG_BENCH_SLOW=0:100" : "MG_BENCH_SLOW="), 0);
		CU_ASSERT(exited_with(&o, 0));
		CU_ASSERT_FATAL(o.report != NULL);
		CU_ASSERT_EQUAL(count(o.report, "pass"), 12);
		CU_ASSERT_EQUAL(json_array_size(json_object_get(o.report, "shards")), i ? 2 : 1);
		CU_ASSERT((strstr(o.err, "history: 1 lane, not 2: the tests took 1ms") != NULL) ==
		          (i == 0));
		done(&o);
		unlink(hist);
	}
}

/* --driver auto (the default) recognises GoogleTest without running it. */
static void gtest_auto(void)
{
	outcome o;
	mg(&o, ARGV("run", "--report", "report.json", "--", GTEST_SAMPLE, "--gtest_filter=Basic.*"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	json_t *s = json_array_get(json_object_get(o.report, "shards"), 0);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(s, "driver")), "gtest");
	CU_ASSERT(strstr(o.err, "--driver wrap") == NULL);
	/* the user's own filter chose what was listed */
	CU_ASSERT_EQUAL(ntests(o.report), 5);
	done(&o);
}

/* The user's GTEST_* settings are kept: disabled tests run when asked. */
static void gtest_env(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "--driver", "gtest", "--report", "report.json", "--", GTEST_SAMPLE,
	        "--gtest_filter=Basic.*:Typed*"),
	   ENV("GTEST_ALSO_RUN_DISABLED_TESTS=1", "GTEST_BRIEF=1", "GTEST_SHUFFLE=1"), 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "Basic.DISABLED_Off"), "pass");
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "Basic.Adds"), "pass");
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "Typed/1.Works"), "pass");
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "Basic.Fails"), "fail");
	done(&o);
}

static void gtest_list(void)
{
	outcome o;
	mg(&o, ARGV("list", "--driver", "gtest", "--", GTEST_SAMPLE), NULL, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT(strstr(o.out, "Basic.Adds\n") != NULL);
	CU_ASSERT(strstr(o.out, "\nTyped/1.Works\n") != NULL);
	CU_ASSERT(strstr(o.out, "\nSmall/Square.Works/2\n") != NULL);
	CU_ASSERT(strstr(o.out, "#") == NULL);
	int lines = 0;
	for (char *p = o.out; *p; p++)
		lines += *p == '\n';
	CU_ASSERT_EQUAL(lines, (int)NGTEST);
	done(&o);
}

/* ---- exec ---- */

static const char hostile[] = "it's a \"test\" with $HOME, `x`, \\ and  spaces";

/* A names file in a fresh directory; path gets its absolute name. */
static void names_file(char *path, size_t n, const char *names)
{
	char dir[64] = "/tmp/mg-dn-XXXXXX";
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(path, n, "%s/names.txt", dir);
	FILE *f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs(names, f);
	fclose(f);
}

static void names_done(const char *path)
{
	char cmd[200];
	snprintf(cmd, sizeof(cmd), "rm -rf \"$(dirname '%s')\"", path);
	CU_ASSERT(system(cmd) == 0);
}

/* A name with quotes, $, backquotes, a backslash and spaces arrives intact,
 * as one argument. */
static void exec_quoting(void)
{
	outcome o;
	char names[256], got[1024], path[160], list[160];
	snprintf(names, sizeof(names), "plain\n%s\n", hostile);
	names_file(list, sizeof(list), names);
	mg(&o,
	   ARGV("run", "-j", "1", "--driver", "exec", "--list-file", list, "--report",
	        "report.json", "--", "sh", "-c", "printf '%s|%s\\n' \"$#\" \"$1\" >> args.txt",
	        "sh", "{}"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, hostile), "pass");
	snprintf(path, sizeof(path), "%s/args.txt", o.dir);
	slurp(path, got, sizeof(got));
	char want[512];
	snprintf(want, sizeof(want), "1|plain\n1|%s\n", hostile);
	CU_ASSERT_STRING_EQUAL(got, want);
	CU_ASSERT(strstr(o.err, "names") == NULL); /* no name twice: nothing said */
	done(&o);
	names_done(list);
	/* a name listed twice runs once, and the run says so (before: silently) */
	names_file(list, sizeof(list), "plain\nother\nplain\n");
	mg(&o,
	   ARGV("run", "-j", "1", "--driver", "exec", "--list-file", list, "--report",
	        "report.json", "--", "true", "{}"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 2);
	CU_ASSERT(strstr(o.err, "the test list names 1 test again (the first: 'plain'): each name "
	                        "runs once") != NULL);
	done(&o);
	/* both ways of naming the tests: a usage error (before: the file's
	 * names ran and --list-cmd went unsaid) */
	mg(&o,
	   ARGV("run", "-j", "1", "--driver", "exec", "--list-file", list, "--list-cmd",
	        "echo other", "--", "true", "{}"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 2));
	CU_ASSERT(strstr(o.err, "--list-cmd and --list-file both name the tests") != NULL);
	names_done(list);
	done(&o);
}

/* A process a test (exec, ctest) keeps two run lines in flight, so the
 * lanes share a suite's slow tests however they are listed: at -j 2 the
 * four slow ones first in the list run two in each lane (before: 16 in
 * flight, and lane 0's first share, eight tests, held all four while lane
 * 1 ran the fast ones and idled; a sweep on leveldb's CTest suite). */
static void exec_lanes_share(void)
{
	outcome o;
	char list[160];
	names_file(list, sizeof(list),
	           "slow1\nslow2\nslow3\nslow4\nf1\nf2\nf3\nf4\nf5\nf6\nf7\nf8\n");
	/* each test marks its lane (--lane-tmpdir: a TEST_TMPDIR a lane), and a
	 * slow one ends only once both lanes have run a test: how the tests are
	 * shared, not how soon the second lane's host starts, decides it */
	mg(&o,
	   ARGV("run", "-q", "-j", "2", "--lane-tmpdir", "--driver", "exec", "--list-file", list,
	        "--report", "report.json", "--", "sh", "-c",
	        "mkdir -p lanes && touch \"lanes/${TEST_TMPDIR##*/}\"\n"
	        "case $1 in slow*) i=0\n"
	        "  while [ $(ls lanes | wc -l) -lt 2 ] && [ $i -lt 300 ]; do sleep 0.1; "
	        "i=$((i+1)); done\n"
	        "  sleep 0.2 ;; esac",
	        "sh", "{}"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 12);
	int in0 = 0;
	for (int i = 1; i <= 4; i++) {
		char name[8];
		snprintf(name, sizeof(name), "slow%d", i);
		in0 += shard_of(o.report, name) == 0;
	}
	CU_ASSERT_EQUAL(in0, 2);
	names_done(list);
	done(&o);
}

/*
 * Two lanes whose tests of 200 MiB each fit the kill limit of 300 MiB
 * alone but not side by side: the lanes' rss pool kills one, and its retry
 * runs with the other lane's host ended, so it passes and the run does (as
 * each test does directly). Before, the retry ran beside the other lane's
 * next test, the pool killed it again, and it was memory-limit "alone in a
 * fresh host, twice", exit 1 (a real-program sweep: stress-ng, zstd's
 * fuzzer under ctest).
 */
static void exec_pool_retry_alone(void)
{
	outcome o;
	char list[160];
	names_file(list, sizeof(list), "t1\nt2\nt3\nt4\n");
	mg(&o,
	   ARGV("run", "-j", "2", "--driver", "exec", "--list-file", list, "--kill-at", "rss=300M",
	        "--report", "report.json", "--", "python3", "-c",
	        "import time; b = bytearray(200 << 20); time.sleep(1.5)", "{}"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 4);
	CU_ASSERT_EQUAL(count(o.report, "memory-limit"), 0);
	CU_ASSERT(strstr(o.err, "another lane's retry runs alone") != NULL);
	names_done(list);
	done(&o);
}

/* A test killed by its own tree (320 MiB over a 300 MiB limit), whose
 * retry (210 MiB, in a fresh host) the shared rss pool then kills beside
 * the other lane's 100 MiB test, runs a third time with the other lanes
 * ended, and passes: it fits alone (before: memory-limit, "its retry had a
 * fresh host, but other lanes ran beside it"). Marker files tell the
 * script its first attempt, and keep the small test's memory until the
 * retry holds its own (a loaded machine's slow restart meets it still). */
static void exec_retry_pool_third(void)
{
	outcome o;
	char list[160];
	names_file(list, sizeof(list), "big\nsmall\n");
	mg(&o,
	   ARGV("run", "-j", "2", "--driver", "exec", "--list-file", list, "--kill-at", "rss=300M",
	        "--report", "report.json", "--", "python3", "-c",
	        "import os, sys, time\n"
	        "if sys.argv[1] == 'big':\n"
	        "    first = not os.path.exists('big.once')\n"
	        "    open('big.once', 'a').close()\n"
	        "    if first:\n"
	        "        b = bytearray(320 << 20); time.sleep(2)\n"
	        "    else:\n"
	        "        time.sleep(0.3); b = bytearray(210 << 20)\n"
	        "        open('big.again', 'a').close(); time.sleep(1)\n"
	        "else:\n"
	        "    time.sleep(0.6); b = bytearray(100 << 20)\n"
	        "    for i in range(200):\n"
	        "        if os.path.exists('big.again'): break\n"
	        "        time.sleep(0.05)\n"
	        "    time.sleep(1)\n",
	        "{}"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 2);
	CU_ASSERT_EQUAL(count(o.report, "memory-limit"), 0);
	json_t *t = find_test(o.report, "big");
	CU_ASSERT(t && json_integer_value(json_object_get(t, "attempts")) == 3);
	CU_ASSERT(strstr(o.err, "rss pool") != NULL);      /* its retry met the pool */
	CU_ASSERT(strstr(o.err, "after 1 tests") == NULL); /* "after 1 test" */
	names_done(list);
	done(&o);
}

/* The lanes' shared rss pool kills lane 1's one test (the larger), whose
 * retry runs alone in lane 0: lane 1 records no test, but its host's kill
 * is the run's, in its shard (before: the shard was dropped as one that
 * ran nothing, and the table and the kill tally showed no kill). */
static void exec_pool_kill_empty_lane(void)
{
	outcome o;
	char list[160];
	names_file(list, sizeof(list), "small\nbig\n");
	mg(&o,
	   ARGV("run", "-j", "2", "--pipeline", "1", "--driver", "exec", "--list-file", list,
	        "--kill-at", "rss=300M", "--report", "report.json", "--", "python3", "-c",
	        "import sys, time\n"
	        "if sys.argv[1] == 'big':\n"
	        "    time.sleep(0.5); b = bytearray(210 << 20); time.sleep(1.5)\n"
	        "else:\n"
	        "    b = bytearray(120 << 20); time.sleep(2.5)\n",
	        "{}"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 2);
	CU_ASSERT_EQUAL(shard_sum(o.report, "kills"), 1);
	CU_ASSERT_EQUAL(json_array_size(json_object_get(o.report, "shards")), 2);
	CU_ASSERT(strstr(o.out, "kills: 1 (rss: 1)") != NULL);
	names_done(list);
	done(&o);
}

/* --shell: the template is a script; the name reaches it as "$1" only. */
static void exec_shell(void)
{
	outcome o;
	char names[256], got[1024], path[160], list[160];
	snprintf(names, sizeof(names), "%s\n", hostile);
	names_file(list, sizeof(list), names);
	mg(&o,
	   ARGV("run", "--driver", "exec", "--shell", "--list-cmd",
	        strcat(strcpy(names, "cat "), list), "--report", "report.json", "--", "printf",
	        "'%s\\n'", "{}", ">>", "args.txt"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, hostile), "pass");
	snprintf(path, sizeof(path), "%s/args.txt", o.dir);
	slurp(path, got, sizeof(got));
	char want[512];
	snprintf(want, sizeof(want), "%s\n", hostile);
	CU_ASSERT_STRING_EQUAL(got, want);
	names_done(list);
	done(&o);
}

/* A test that prints without a final newline: gtest's OK line follows on
 * the same line. Its result, and every later one, still count. */
static void gtest_no_newline(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "1", "--driver", "gtest", "--report", "report.json", "--", FAKE_NONL),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "S.A"), "pass");
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "S.B"), "fail");
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "S.C"), "pass");
	json_t *t = find_test(o.report, "S.A");
	json_t *out = t ? json_object_get(t, "output") : NULL;
	CU_ASSERT(out && !strcmp(json_string_value(out), "partial"));
	done(&o);
}

/* A NUL byte in a program's output cannot cross the protocol: it arrives
 * as '?' and the run goes on. */
static void gtest_nul(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "1", "--driver", "gtest", "--report", "report.json", "--", FAKE_NUL),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	json_t *t = find_test(o.report, "S.A");
	json_t *out = t ? json_object_get(t, "output") : NULL;
	CU_ASSERT(out && strstr(json_string_value(out), "bin?ary") != NULL);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "S.B"), "pass");
	done(&o);
}

/* --shell: {} inside single or double quotes still passes the name as $1. */
static void exec_shell_quotes(void)
{
	outcome o;
	char names[256], got[1024], path[160], list[160];
	snprintf(names, sizeof(names), "%s\n", hostile);
	names_file(list, sizeof(list), names);
	mg(&o,
	   ARGV("run", "--driver", "exec", "--shell", "--list-cmd",
	        strcat(strcpy(names, "cat "), list), "--report", "report.json", "--",
	        "echo '{}' >> args.txt; echo \"<{}>\" >> args.txt"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 0));
	snprintf(path, sizeof(path), "%s/args.txt", o.dir);
	slurp(path, got, sizeof(got));
	char want[512];
	snprintf(want, sizeof(want), "%s\n<%s>\n", hostile, hostile);
	CU_ASSERT_STRING_EQUAL(got, want);
	names_done(list);
	done(&o);
}

/*
 * A directory of test programs: --list-cmd names them, ./dir/{} runs each
 * (its own program, so nothing to find before the run: before, memguard
 * looked for a file named '{}' and exited 3). A script whose child died
 * of a signal (it exits 128 + N) crashed, as with a whole-argument script;
 * a name with no program fails that test only.
 */
static void exec_program_per_test(void)
{
	static const char *const progs[][2] = {
	    {"t_pass", "#!/bin/sh\nexit 0\n"},
	    {"t_fail", "#!/bin/sh\nexit 3\n"},
	    {"t_crash", "#!/bin/sh\nsh -c 'kill -SEGV $$'\nexit $?\n"},
	};
	char dir[] = "/tmp/mg-execdir-XXXXXX", path[128], tmpl[128], cmd[160];
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, progs[i][0]);
		FILE *f = fopen(path, "w");
		CU_ASSERT_FATAL(f != NULL);
		fputs(progs[i][1], f);
		CU_ASSERT_FATAL(fclose(f) == 0);
		CU_ASSERT_FATAL(chmod(path, 0755) == 0);
	}
	snprintf(tmpl, sizeof(tmpl), "%s/{}", dir);
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "1", "--driver", "exec", "--list-cmd",
	        "printf 't_pass\nt_fail\nt_crash\nt_gone\n'", "--report", "report.json", "--",
	        tmpl),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "t_pass"), "pass");
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "t_fail"), "fail");
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "t_crash"), "crash");
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "t_gone"), "fail");
	done(&o);
	/* without --driver exec: the usage error, not "cannot run './{}'" (3) */
	mg(&o, ARGV("run", "--list-cmd", "printf 't_pass\n'", "--", tmpl), NULL, 0);
	CU_ASSERT(exited_with(&o, 2));
	CU_ASSERT(strstr(o.err, "--list-cmd and --list-file go with --driver exec") != NULL);
	done(&o);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CU_ASSERT(system(cmd) == 0);
}

/* Exit 0 passes, exit N fails with the status, a signal is that test's crash;
 * the tests after a crash still run. */
static void exec_states(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "1", "--driver", "exec", "--list-cmd",
	        "printf 'ok\\nbad\\nsegv\\nafter\\n'", "--report", "report.json", "--", "sh", "-c",
	        "case $1 in bad) exit 3;; segv) kill -SEGV $$;; esac", "sh", "{}"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "ok"), "pass");
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "bad"), "fail");
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "segv"), "crash");
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "after"), "pass");
	json_t *t = find_test(o.report, "bad");
	CU_ASSERT(t && !strcmp(json_string_value(json_object_get(t, "message")), "exit status 3"));
	t = find_test(o.report, "segv");
	CU_ASSERT(t && strstr(json_string_value(json_object_get(t, "message")), "SIGSEGV"));
	done(&o);
}

/* A runner that says "skipped" by its exit status (libuv 1.44's
 * uv_run_tests NAME exits 7 for a test it skips, automake's tests 77):
 * with --skip-code 7 (or the config's skip_code) that status is skip, any
 * other still fail; without it, fail. Before: --skip-code was unknown
 * (exit 2), and libuv's 9 skipped tests were failures. */
static void exec_skip_code(void)
{
	const char *const script = "case $1 in skipped) echo \"ok 1 - $1 # SKIP\"; exit 7;; "
	                           "bad) exit 3;; esac";
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "1", "--driver", "exec", "--skip-code", "7", "--list-cmd",
	        "printf 'ok\\nskipped\\nbad\\n'", "--report", "report.json", "--", "sh", "-c",
	        script, "sh", "{}"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "ok"), "pass");
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "skipped"), "skip");
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "bad"), "fail");
	json_t *t = find_test(o.report, "skipped");
	CU_ASSERT(t && !strcmp(json_string_value(json_object_get(t, "message")),
	                       "exit status 7 (--skip-code)"));
	done(&o);
	/* the config file's key; only ok and skipped: exit 0 */
	char cfg[] = "/tmp/mg-skipcode-XXXXXX";
	int fd = mkstemp(cfg);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(write(fd, "{\"skip_code\": 7}\n", 17) == 17);
	close(fd);
	mg(&o,
	   ARGV("run", "-j", "1", "--driver", "exec", "--config", cfg, "--list-cmd",
	        "printf 'ok\\nskipped\\n'", "--report", "report.json", "--", "sh", "-c", script,
	        "sh", "{}"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "skipped"), "skip");
	done(&o);
	unlink(cfg);
	/* without it: the exit status fails the test */
	mg(&o,
	   ARGV("run", "-j", "1", "--driver", "exec", "--list-cmd", "printf 'skipped\\n'",
	        "--report", "report.json", "--", "sh", "-c", script, "sh", "{}"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "skipped"), "fail");
	done(&o);
	/* another driver: refused, naming what it has instead */
	mg(&o, ARGV("run", "--skip-code", "7", "--report", "report.json", "--", GTEST_SAMPLE), NULL,
	   0);
	CU_ASSERT(exited_with(&o, 2));
	CU_ASSERT_PTR_NOT_NULL(strstr(o.err, "--skip-code goes with --driver exec"));
	done(&o);
}

/* Each test's output is exactly its own, on both streams, however fast
 * the tests and however the runner reads the pipes: the shim marks its
 * streams at every boundary (each piece is written apart, so a test's
 * output that landed on a neighbour would show here). */
static void exec_output_exact(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "1", "--driver", "exec", "--list-cmd", "seq -f t%03g 1 200",
	        "--report", "report.json", "--", "sh", "-c",
	        "printf '%s-a ' $1; printf '%s-b\\n' $1; printf '%s-e1 ' $1 >&2; "
	        "printf '%s-e2\\n' $1 >&2",
	        "sh", "{}"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 200);
	int exact = 0;
	for (int i = 1; i <= 200; i++) {
		char name[8], piece[4][16];
		snprintf(name, sizeof(name), "t%03d", i);
		json_t *t = find_test(o.report, name);
		const char *out = t ? json_string_value(json_object_get(t, "output")) : NULL;
		snprintf(piece[0], sizeof(piece[0]), "%s-a ", name);
		snprintf(piece[1], sizeof(piece[1]), "%s-b\n", name);
		snprintf(piece[2], sizeof(piece[2]), "%s-e1 ", name);
		snprintf(piece[3], sizeof(piece[3]), "%s-e2\n", name);
		int ok = out && strlen(out) == strlen(piece[0]) + strlen(piece[1]) +
		                                   strlen(piece[2]) + strlen(piece[3]);
		for (int k = 0; ok && k < 4; k++)
			ok = strstr(out, piece[k]) != NULL;
		if (!ok)
			fprintf(stderr, "%s: output '%s'\n", name, out ? out : "(none)");
		exact += ok;
	}
	CU_ASSERT_EQUAL(exact, 200);
	done(&o);
}

/* ---- wrap ---- */

/* script under sh -c, wrapped: it passed, the one test it is; its shard's
 * peak VA and RSS in *va and *rss; the run left in *o (the caller's done). */
static void wrap_sh(outcome *o, const char *script, json_int_t *va, json_int_t *rss)
{
	mg(o, ARGV("run", "--driver", "wrap", "--report", "report.json", "--", "sh", "-c", script),
	   NULL, 0);
	CU_ASSERT(exited_with(o, 0));
	CU_ASSERT_FATAL(o->report != NULL);
	CU_ASSERT_EQUAL(ntests(o->report), 1);
	CU_ASSERT_EQUAL(count(o->report, "pass"), 1);
	*va = shard_sum(o->report, "peak_va");
	*rss = shard_sum(o->report, "peak_rss");
}

/* The peak of a grandchild (sh runs hog, which holds 200 MiB) is reported. */
static void wrap_peak(void)
{
	outcome o;
	json_int_t va, rss;
	wrap_sh(&o, HOG " 8 50; " HOG " 200 400; true", &va, &rss);
	CU_ASSERT(rss >= 200 << 20);
	CU_ASSERT(va >= 200 << 20);
	json_t *s = json_array_get(json_object_get(o.report, "shards"), 0);
	CU_ASSERT(json_array_size(json_object_get(s, "timeline")) >= 2);
	done(&o);
}

/* Two hogs side by side: the RSS is the tree's sum, the VA the largest
 * process's (a 32-bit process's limit is its own): neither hog maps 200 MiB,
 * so a peak VA of the summed RSS would be a figure no process had. The hog
 * never sanitized: an ASan build's reserves terabytes. */
static void wrap_peak_apart(void)
{
	outcome o;
	json_int_t va, rss;
	wrap_sh(&o, HOG64 " 100 600 & " HOG64 " 100 600; wait", &va, &rss);
	CU_ASSERT(rss >= 195 << 20);
	CU_ASSERT(va >= 100 << 20);
	CU_ASSERT(va < 160 << 20);
	done(&o);
}

/* A hard limit kills the whole tree, and says so: nothing with the run's
 * tag is left (the hog would live 20 s more), and its suspect line shows
 * no VA left behind as "0 B". */
static void wrap_kill(void)
{
	outcome o;
	char pidfile[128], buf[64], script[512], tag[64];
	snprintf(pidfile, sizeof(pidfile), "/tmp/mg-dk-%ld.pid", (long)getpid());
	snprintf(tag, sizeof(tag), "MG_WRAP_KILL_TAG=%ld", (long)getpid());
	unlink(pidfile);
	snprintf(script, sizeof(script), HOG " 400 20000 %s & wait", pidfile);
	mg(&o,
	   ARGV("run", "--driver", "wrap", "--kill-at", "rss=150M", "--report", "report.json", "--",
	        "sh", "-c", script),
	   ENV(tag), 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "memory-limit"), 1);
	CU_ASSERT(shard_sum(o.report, "kills") >= 1);
	CU_ASSERT(strstr(o.err, "kill") != NULL);
	CU_ASSERT(strtol(slurp(pidfile, buf, sizeof(buf)), NULL, 10) > 0); /* the hog ran */
	CU_ASSERT_EQUAL(mg_tagged_left(tag, NULL, 0), 0);
	/* the suspect it is left nothing behind (killed, a process of its
	 * own): no "0 B" of VA left (before: "0 B  ...  (grew in 0 of 1 runs") */
	CU_ASSERT(strstr(o.out, "\n          -  ") != NULL);
	CU_ASSERT(strstr(o.out, "0 B") == NULL);
	unlink(pidfile);
	done(&o);
}

/* Any command, no other flag: auto falls back to wrap and says so in one line. */
static void wrap_auto(void)
{
	outcome o;
	mg(&o, ARGV("run", "--report", "report.json", "--", "sh", "-c", "exit 0"), NULL, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 1);
	const char *note = strstr(o.err, "--driver wrap");
	CU_ASSERT(note != NULL);
	json_t *s = json_array_get(json_object_get(o.report, "shards"), 0);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(s, "driver")), "wrap");
	done(&o);
}

/* A failing command fails its one test. */
static void wrap_fail(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "--driver", "wrap", "--report", "report.json", "--", "sh", "-c", "exit 5"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "fail"), 1);
	done(&o);
}

/* ---- ctest ---- */

/* The CTest project (ctest_project/) configured and built in a directory
 * of its own under TMPDIR; its path in dir. */
static void ctest_project(char *dir, size_t size)
{
	char cmd[8192];
	snprintf(dir, size, "/tmp/mg-ctp-XXXXXX");
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(cmd, sizeof(cmd),
	         "'%s' -S '%s' -B '%s' -DCMAKE_BUILD_TYPE=Release >/dev/null && '%s' --build '%s' "
	         ">/dev/null",
	         CMAKE_BIN, CTEST_PROJECT, dir, CMAKE_BIN, dir);
	CU_ASSERT_FATAL(system(cmd) == 0);
}

static void ctest_project_free(const char *dir)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

/*
 * CMake lets two directories add a test of one name, and ctest runs both
 * (here: a pass in a/, a fail in b/, ctest exits 8). Each is a test of the
 * run, the second named "same#2", exit 1, and the run leaves ctest's
 * LastTestsFailed.log as ctest does ("2:same"), which --rerun-failed runs
 * (before: the second was dropped at the listing, the run passed, exit 0).
 */
/* A CMake project of files (name, text; subdirectories made first, in
 * order) in a fresh dir (64 bytes), configured into dir/build. */
static void ct_tiny_project(char *dir, const char *const (*files)[2], size_t n)
{
	char path[160], cmd[512];
	snprintf(dir, 64, "/tmp/mg-cttiny-XXXXXX");
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i][0]);
		if (!files[i][1]) { /* a directory */
			CU_ASSERT_FATAL(mkdir(path, 0755) == 0);
			continue;
		}
		FILE *f = fopen(path, "w");
		CU_ASSERT_FATAL(f != NULL);
		fputs(files[i][1], f);
		CU_ASSERT_FATAL(fclose(f) == 0);
	}
	snprintf(cmd, sizeof(cmd), "'%s' -S '%s' -B '%s/build' >/dev/null", CMAKE_BIN, dir, dir);
	CU_ASSERT_FATAL(system(cmd) == 0);
}

static void ctest_dup_names(void)
{
	char dir[64], path[160];
	static char log[256];
	outcome o;
	static const char *const files[][2] = {
	    {"a", NULL},
	    {"b", NULL},
	    {"CMakeLists.txt", "cmake_minimum_required(VERSION 3.16)\nproject(dup NONE)\n"
	                       "enable_testing()\nadd_subdirectory(a)\nadd_subdirectory(b)\n"},
	    {"a/CMakeLists.txt", "add_test(NAME same COMMAND sh -c \"echo in-a\")\n"},
	    {"b/CMakeLists.txt", "add_test(NAME same COMMAND sh -c \"echo in-b; exit 1\")\n"}};
	ct_tiny_project(dir, files, 5);
	snprintf(path, sizeof(path), "%s/build", dir);
	CU_ASSERT_EQUAL(mg_direct_argv(CTEST_BIN, (const char *[]){"--test-dir", path, NULL}, NULL),
	                8);
	mg(&o, ARGV("run", "--report", "report.json", "--", CTEST_BIN, "--test-dir", path), NULL,
	   0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 1);
	CU_ASSERT_EQUAL(count(o.report, "fail"), 1);
	CU_ASSERT(state_of(o.report, "same") && !strcmp(state_of(o.report, "same"), "pass"));
	CU_ASSERT(state_of(o.report, "same#2") && !strcmp(state_of(o.report, "same#2"), "fail"));
	done(&o);
	snprintf(path, sizeof(path), "%s/build/Testing/Temporary/LastTestsFailed.log", dir);
	CU_ASSERT_STRING_EQUAL(slurp(path, log, sizeof(log)), "2:same\n");
	snprintf(path, sizeof(path), "%s/build", dir);
	mg(&o,
	   ARGV("run", "--report", "report.json", "--", CTEST_BIN, "--test-dir", path,
	        "--rerun-failed"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 0);
	CU_ASSERT_EQUAL(count(o.report, "fail"), 1);
	done(&o);
	ctest_project_free(dir);
}

/*
 * A CTest test whose program was never built is ctest's Not Run: a fail,
 * exit 1, but no word of lanes meeting at a shared path (CLI11 with its
 * unbuilt programs got it: a test that never ran met nothing). Vacuous on
 * one CPU, where -j is 1.
 */
static void ctest_not_run_hint(void)
{
	char dir[64], path[160];
	outcome o;
	static const char *const files[][2] = {
	    {"CMakeLists.txt",
	     "cmake_minimum_required(VERSION 3.16)\nproject(nr NONE)\nenable_testing()\n"
	     "add_test(NAME fine COMMAND sh -c \"exit 0\")\n"
	     "add_test(NAME fine2 COMMAND sh -c \"exit 0\")\n"
	     "add_test(NAME fine3 COMMAND sh -c \"exit 0\")\n"
	     "add_test(NAME missing COMMAND ${CMAKE_BINARY_DIR}/never_built)\n"}};
	ct_tiny_project(dir, files, 1);
	snprintf(path, sizeof(path), "%s/build", dir);
	mg(&o, ARGV("run", "--report", "report.json", "--", CTEST_BIN, "--test-dir", path), NULL,
	   0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT(state_of(o.report, "missing") && !strcmp(state_of(o.report, "missing"), "fail"));
	CU_ASSERT(message_of(o.report, "missing") &&
	          strstr(message_of(o.report, "missing"), "Not Run)"));
	CU_ASSERT(strstr(o.err, "side by side") == NULL);
	done(&o);
	ctest_project_free(dir);
}

/*
 * --rerun-failed in a project with a CTestCustom.cmake (CLI11 has one),
 * which memguard lists from a directory of its own: that directory has the
 * test directory's LastTestsFailed.log, so only the test ctest's last run
 * failed runs (before: every test, each a failure where its program was
 * not built, exit 1 where ctest passes).
 */
static void ctest_rerun_custom(void)
{
	char dir[64], path[160];
	outcome o;
	static const char *const files[][2] = {
	    {"CMakeLists.txt",
	     "cmake_minimum_required(VERSION 3.16)\nproject(rerun NONE)\nenable_testing()\n"
	     "add_test(NAME fine COMMAND sh -c \"exit 0\")\n"
	     "add_test(NAME flaky COMMAND sh -c \"test -e ../fixed\")\n"
	     "add_test(NAME broken COMMAND sh -c \"test -e ../fixed\")\n"
	     "configure_file(CTestCustom.cmake.in ${CMAKE_BINARY_DIR}/CTestCustom.cmake "
	     "COPYONLY)\n"},
	    {"CTestCustom.cmake.in", "set(CTEST_CUSTOM_MAXIMUM_PASSED_TEST_OUTPUT_SIZE 1024)\n"}};
	ct_tiny_project(dir, files, 2);
	snprintf(path, sizeof(path), "%s/build/CTestCustom.cmake", dir);
	CU_ASSERT_FATAL(access(path, R_OK) == 0);
	snprintf(path, sizeof(path), "%s/build", dir);
	/* ctest's own run: flaky and broken fail, in its LastTestsFailed.log */
	CU_ASSERT_EQUAL(mg_direct_argv(CTEST_BIN, (const char *[]){"--test-dir", path, NULL}, NULL),
	                8);
	snprintf(path, sizeof(path), "%s/fixed", dir);
	FILE *f = fopen(path, "w");
	CU_ASSERT_FATAL(f && fclose(f) == 0);
	snprintf(path, sizeof(path), "%s/build", dir);
	mg(&o,
	   ARGV("run", "--report", "report.json", "--", CTEST_BIN, "--test-dir", path,
	        "--rerun-failed"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 2);
	CU_ASSERT_PTR_NULL(find_test(o.report, "fine"));
	CU_ASSERT(state_of(o.report, "flaky") && !strcmp(state_of(o.report, "flaky"), "pass"));
	done(&o);
	ctest_project_free(dir);
}

/*
 * memguard run -- ctest --test-dir DIR (auto: the ctest driver by the
 * command's name), two lanes: every CTest test is a test of the report
 * with its state (WILL_FAIL passes by failing, DISABLED is skip, TIMEOUT is
 * timeout, a SIGSEGV is crash), the 200 MiB leaker is the top suspect, the
 * two RESOURCE_LOCK tests never overlapped, the gtest_discover_tests-like
 * test gets the hint, exit 1 (a test failed).
 */
static void ctest_states(void)
{
	static const char *const want[][2] = {
	    {"plain_one", "pass"},  {"plain_two", "pass"}, {"env_and_dir", "pass"},
	    {"will_fail", "pass"},  {"disabled", "skip"},  {"leaks_200m", "pass"},
	    {"crashes", "crash"},   {"fails", "fail"},     {"times_out", "timeout"},
	    {"serial", "pass"},     {"locked_a", "pass"},  {"locked_b", "pass"},
	    {"Suite.Case", "pass"}, {"skips", "skip"},     {"says_ok", "pass"},
	    {"says_error", "fail"}, {"says_skip", "skip"}, {"Suite.Expected", "pass"}};
	char dir[64];
	outcome o;
	double got;
	ctest_project(dir, sizeof(dir));
	mg(&o,
	   ARGV("run", "-j", "2", "--pipeline", "1", "--report", "report.json", "--", CTEST_BIN,
	        "--test-dir", dir, "-j8", "--output-on-failure"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	json_int_t total = 0;
	json_t *sh;
	size_t i;
	json_array_foreach(json_object_get(o.report, "shards"), i, sh) total +=
	    (json_int_t)json_array_size(json_object_get(sh, "tests"));
	CU_ASSERT_EQUAL(total, (json_int_t)(sizeof(want) / sizeof(want[0])));
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const char *st = state_of(o.report, want[i][0]);
		if (!st || strcmp(st, want[i][1]))
			fprintf(stderr, "%s: %s, wanted %s (%s)\n", want[i][0], st ? st : "(none)",
			        want[i][1], message_of(o.report, want[i][0]));
		CU_ASSERT(st && !strcmp(st, want[i][1]));
	}
	/* a test that is a process of its own leaves nothing behind: its VA
	 * is its own (the 200 MiB it holds), and no test is a suspect (they
	 * were when each test's VA was taken as a rise over the one before) */
	json_t *t = find_test(o.report, "leaks_200m");
	json_int_t va = t ? json_integer_value(json_object_get(t, "va_after")) : 0;
	if (va < 200 << 20 || va >= 240 << 20)
		fprintf(stderr, "\n  leaks_200m: va_after %lld\n", (long long)va);
	CU_ASSERT(va >= 200 << 20 && va < 240 << 20);
	CU_ASSERT_PTR_NULL(suspect(o.report, 0, &got));
	json_array_foreach(json_object_get(o.report, "shards"), i, sh)
	{
		json_t *x;
		size_t k;
		json_array_foreach(json_object_get(sh, "tests"), k, x)
		    CU_ASSERT_EQUAL(json_integer_value(json_object_get(x, "va_delta")), 0);
		/* the shards' peaks are their tests', not the shim's (memguard) */
		CU_ASSERT(json_integer_value(json_object_get(sh, "peak_va")) < 240 << 20);
	}
	/* Suite.Case, not Suite.Expected (WILL_FAIL: ctest's judgement) */
	CU_ASSERT(strstr(o.err, "memguard: 1 CTest test runs one GoogleTest case") != NULL);
	CU_ASSERT(strstr(o.err, "--driver gtest") != NULL);
	CU_ASSERT(strstr(o.err, "'--output-on-failure' does not choose tests") != NULL);
	done(&o);
	ctest_project_free(dir);
}

/* ctest's selecting arguments choose the tests (-R, -E, -L): only those
 * are listed and run; all pass, exit 0. The shard's peaks are its small
 * tests' (a few MiB): never the listing's (ctest --show-only: ~70 MiB of
 * VA, ~16 MiB of RSS), which the 1 ms samples would see. */
static void ctest_select(void)
{
	char dir[64];
	outcome o;
	ctest_project(dir, sizeof(dir));
	mg(&o,
	   ARGV("run", "-q", "--driver", "ctest", "--interval", "1ms", "--report", "report.json",
	        "--", CTEST_BIN, "--test-dir", dir, "-R", "plain|serial|will", "-E", "two"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 3);
	CU_ASSERT_PTR_NULL(find_test(o.report, "plain_two"));
	json_int_t peak_va = shard_max(o.report, "peak_va"),
	           peak_rss = shard_max(o.report, "peak_rss");
	if (peak_va >= 32 << 20 || peak_rss >= 8 << 20)
		fprintf(stderr, "\n  ctest_select: shard peaks %lld VA, %lld RSS\n",
		        (long long)peak_va, (long long)peak_rss);
	CU_ASSERT(peak_va > 0 && peak_va < 32 << 20);
	CU_ASSERT(peak_rss > 0 && peak_rss < 8 << 20);
	done(&o);
	mg(&o,
	   ARGV("run", "-q", "--report", "report.json", "--", CTEST_BIN, "--test-dir", dir, "-L",
	        "slow"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 1);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "serial"), "pass");
	done(&o);
	ctest_project_free(dir);
}

/*
 * ctest's own options that memguard honours or refuses, each as ctest's run
 * means it (before, each was left out, most with a note that it "does not
 * choose tests", and the whole suite ran): -N runs no test (usage error,
 * exit 2, no test run); --rerun-failed runs what ctest's last run of its
 * own failed; --stop-on-failure, with one lane, runs no test after the
 * first failure (the rest skip, saying why), and leaves ctest's
 * LastTestsFailed.log as ctest does; --output-junit FILE is
 * written in the test directory (before: no file, no word), -O FILE is
 * said not written.
 */
static void ctest_user_options(void)
{
	char dir[64], path[128];
	outcome o;
	ctest_project(dir, sizeof(dir));
	mg(&o, ARGV("run", "--report", "report.json", "--", CTEST_BIN, "--test-dir", dir, "-N"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 2));
	CU_ASSERT(strstr(o.err, "ctest's '-N' runs no test") != NULL);
	CU_ASSERT(o.report == NULL || count(o.report, "pass") == 0);
	done(&o);
	/* memguard list lists them (-N left out, as before) */
	mg(&o, ARGV("list", "--", CTEST_BIN, "--test-dir", dir, "-N"), NULL, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT(strstr(o.out, "plain_one") != NULL);
	done(&o);
	/* ctest's --repeat other than once is refused, naming it (before: said
	 * "not honoured" and ran each test once: exit 0 where ctest's until-fail
	 * exits 8 on a failure of a second run); once is what memguard does */
	const char *repeats[][2] = {{"--repeat", "until-fail:2"},
	                            {"--repeat", "until-pass:3"},
	                            {"--repeat", "after-timeout:2"},
	                            {"--repeat-until-fail", "2"}};
	for (size_t i = 0; i < sizeof(repeats) / sizeof(repeats[0]); i++) {
		char said[96];
		mg(&o,
		   ARGV("run", "-q", "--report", "report.json", "--", CTEST_BIN, "--test-dir", dir,
		        "-R", "^plain_one$", repeats[i][0], repeats[i][1]),
		   NULL, 0);
		CU_ASSERT(exited_with(&o, 2));
		snprintf(said, sizeof(said), "ctest's '%s %s': memguard runs each test once",
		         repeats[i][0], repeats[i][1]);
		CU_ASSERT(strstr(o.err, said) != NULL);
		CU_ASSERT(o.report == NULL);
		done(&o);
	}
	/* a count of 1 or less: once, as ctest runs it (found by review: 0 was
	 * refused) */
	const char *once[][2] = {{"--repeat", "until-fail:1"},
	                         {"--repeat", "until-pass:0"},
	                         {"--repeat-until-fail", "0"}};
	for (size_t i = 0; i < 3; i++) {
		mg(&o,
		   ARGV("run", "-q", "--report", "report.json", "--", CTEST_BIN, "--test-dir", dir,
		        "-R", "^plain_one$", once[i][0], once[i][1]),
		   NULL, 0);
		CU_ASSERT(exited_with(&o, 0));
		CU_ASSERT_FATAL(o.report != NULL);
		CU_ASSERT_STRING_EQUAL(state_of(o.report, "plain_one"), "pass");
		done(&o);
	}

	/* ctest's own run first: four tests fail (fails, times_out, crashes,
	 * says_error), in its Testing/Temporary/LastTestsFailed.log */
	CU_ASSERT_EQUAL(mg_direct_argv(CTEST_BIN, (const char *[]){"--test-dir", dir, NULL}, NULL),
	                8);
	mg(&o,
	   ARGV("run", "-q", "--report", "report.json", "--", CTEST_BIN, "--test-dir", dir,
	        "--rerun-failed"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass") + count(o.report, "fail") +
	                    count(o.report, "crash") + count(o.report, "timeout"),
	                4);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "fails"), "fail");
	CU_ASSERT_PTR_NULL(find_test(o.report, "plain_one"));
	CU_ASSERT(strstr(o.err, "does not choose tests") == NULL);
	done(&o);

	/* plain_one, fails, serial in ctest's order: the last is not run */
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--report", "report.json", "--", CTEST_BIN, "--test-dir",
	        dir, "-R", "^(plain_one|fails|serial)$", "--stop-on-failure"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "plain_one"), "pass");
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "fails"), "fail");
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "serial"), "skip");
	CU_ASSERT(message_of(o.report, "serial") &&
	          strstr(message_of(o.report, "serial"), "--stop-on-failure"));
	/* it never ran: no figure of the lane's (before: the running test's VA) */
	json_t *sv = find_test(o.report, "serial");
	CU_ASSERT(sv && json_integer_value(json_object_get(sv, "va")) == 0);
	done(&o);
	/* that run left ctest's LastTestsFailed.log as ctest would: its one
	 * failed test by its number in ctest's whole list (8; 2 among the
	 * chosen three), replacing the four of ctest's own run */
	static char log[256];
	char want[64] = "", line[256];
	snprintf(path, sizeof(path), "%s/Testing/Temporary/LastTestsFailed.log", dir);
	CU_ASSERT_FATAL(slurp(path, log, sizeof(log)) != NULL);
	snprintf(line, sizeof(line), "'%s' --test-dir '%s' -N -R '^fails$'", CTEST_BIN, dir);
	FILE *n = popen(line, "r");
	CU_ASSERT_FATAL(n != NULL);
	while (fgets(line, sizeof(line), n))
		if (strstr(line, "Test") && strchr(line, '#'))
			snprintf(want, sizeof(want), "%ld:fails\n",
			         strtol(strchr(line, '#') + 1, NULL, 10));
	CU_ASSERT_EQUAL(pclose(n), 0);
	CU_ASSERT_STRING_EQUAL(want, "8:fails\n");
	CU_ASSERT_STRING_EQUAL(log, want);
	/* ... which --rerun-failed runs alone */
	mg(&o,
	   ARGV("run", "-q", "--report", "report.json", "--", CTEST_BIN, "--test-dir", dir,
	        "--rerun-failed"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "fail"), 1);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 0);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "fails"), "fail");
	done(&o);
	/* a run that passes leaves it (ctest keeps it then too) */
	mg(&o, ARGV("run", "-q", "--", CTEST_BIN, "--test-dir", dir, "-R", "^plain_one$"), NULL, 0);
	CU_ASSERT(exited_with(&o, 0));
	done(&o);
	CU_ASSERT_FATAL(slurp(path, log, sizeof(log)) != NULL);
	CU_ASSERT_STRING_EQUAL(log, want);

	/* in a directory not there yet, as ctest makes it */
	snprintf(path, sizeof(path), "%s/out/junit.xml", dir);
	mg(&o,
	   ARGV("run", "-q", "--", CTEST_BIN, "--test-dir", dir, "-R", "plain|fails",
	        "--output-junit", "out/junit.xml", "-O", "ctest.log"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	static char xml[16384];
	CU_ASSERT_FATAL(slurp(path, xml, sizeof(xml)) != NULL);
	CU_ASSERT(strstr(xml, "name=\"plain_one\"") && strstr(xml, "name=\"fails\"") &&
	          strstr(xml, "<failure"));
	CU_ASSERT(strstr(o.err, "ctest's '-O ctest.log' is not written") != NULL);
	done(&o);
	ctest_project_free(dir);
}

/* The shard a test ran in, -1 when none. */
/* Two tests sharing a RESOURCE_LOCK and a RUN_SERIAL one, three lanes at
 * once (one test a lane): each holds a marker file for 300 ms and fails on
 * seeing another's (the serial one on either lock's), so all pass only if
 * the locks kept them apart. */
static void ctest_locks(void)
{
	char dir[64];
	outcome o;
	ctest_project(dir, sizeof(dir));
	mg(&o,
	   ARGV("run", "-q", "-j", "3", "--pipeline", "1", "--report", "report.json", "--",
	        CTEST_BIN, "--test-dir", dir, "-R", "locked|plain|serial"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 5);
	long a = shard_of(o.report, "locked_a"), b = shard_of(o.report, "locked_b");
	CU_ASSERT(a >= 0 && b >= 0 && a != b);
	done(&o);
	ctest_project_free(dir);
}

static int times_in(const char *hay, const char *needle);

/* A GoogleTest test whose VmPeak rose in it (it maps 64 MiB and unmaps them
 * before it ends; every test sleeps 2 ms, so the probe reads VmPeak at each
 * end) has that peak in the report, and no other test one as high: the
 * history's rise and compare's rise= see it, as a native host's (before:
 * the probe's peak went into the shard's peak only, no test had one). */
static void gtest_test_peak(void)
{
	const char *const env[] = {"MG_BENCH_TESTS=6", "MG_BENCH_SLOW=0:2",
	                           "MG_BENCH_BURST=3:67108864", NULL};
	static const char *const jobs[] = {"1", "2"};
	for (size_t j = 0; j < 2; j++) {
		outcome o;
		mg(&o,
		   ARGV("run", "-q", "-j", jobs[j], "--report", "report.json", "--", GTEST_BENCH),
		   env, 0);
		CU_ASSERT(exited_with(&o, 0));
		CU_ASSERT_FATAL(o.report != NULL);
		for (unsigned i = 0; i < 6; i++) {
			char name[32];
			snprintf(name, sizeof(name), "Bench.t%05u", i);
			json_t *t = find_test(o.report, name);
			CU_ASSERT_FATAL(t != NULL);
			uint64_t va = (uint64_t)json_integer_value(json_object_get(t, "va_after"));
			int64_t dva = json_integer_value(json_object_get(t, "va_delta"));
			uint64_t pk = (uint64_t)json_integer_value(json_object_get(t, "va_peak"));
			uint64_t start = va - (uint64_t)dva;
			if (i == 3) {
				CU_ASSERT(pk >= start + (64u << 20));
				CU_ASSERT(pk < start + (80u << 20));
			} else {
				CU_ASSERT(pk < start + (32u << 20));
			}
		}
		done(&o);
	}
}

/* GoogleTest's sharding variables (shard 1 of 3: 13 of 40 tests), one lane
 * and two: the shard's tests run and pass, as directly, each once, and the
 * program runs no other test (before: a lane's program sharded the
 * listing's shard again, and the tests it passed over were error
 * "GoogleTest did not run it", exit 3; then, where the lane's batch was
 * the whole shard, its filter was "*" or prefixes of the shard's names,
 * and the program ran the other shards' tests too: 40 bodies, their
 * output and failures on the shard's tests). */
static void gtest_shards_lanes(void)
{
	const char *const env[] = {"MG_BENCH_TESTS=40", "GTEST_TOTAL_SHARDS=3",
	                           "GTEST_SHARD_INDEX=1", "MG_BENCH_LOG=bodies.log", NULL};
	static const char *const jobs[] = {"1", "2"};
	for (size_t j = 0; j < 2; j++) {
		outcome o;
		char path[128], buf[4096];
		mg(&o,
		   ARGV("run", "-q", "-j", jobs[j], "--report", "report.json", "--", GTEST_BENCH),
		   env, 0);
		CU_ASSERT(exited_with(&o, 0));
		CU_ASSERT_FATAL(o.report != NULL);
		CU_ASSERT_EQUAL(count(o.report, "pass"), 13);
		CU_ASSERT_EQUAL(count(o.report, "error"), 0);
		CU_ASSERT_EQUAL(ntests(o.report), 13);
		snprintf(path, sizeof(path), "%s/bodies.log", o.dir);
		slurp(path, buf, sizeof(buf));
		CU_ASSERT_EQUAL(times_in(buf, "body "), 13);
		for (unsigned i = 1; i < 40; i += 3) { /* shard 1: t00001, t00004, ... */
			char line[32];
			snprintf(line, sizeof(line), "body Bench.t%05u\n", i);
			CU_ASSERT_EQUAL(times_in(buf, line), 1);
		}
		done(&o);
	}
}

/* The number of times needle is in hay. */
static int times_in(const char *hay, const char *needle)
{
	int k = 0;
	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		k++;
	return k;
}

/* A --gtest_ flag GoogleTest does not know: the direct run prints its help
 * and exits 0, running no test; under memguard too (exit 0, no test), and
 * the help is on stderr (before: not shown, the run's "no tests ran"
 * alone). */
static void gtest_bad_flag(void)
{
	outcome o;
	mg(&o, ARGV("run", "-j", "1", "--", GTEST_BENCH, "--gtest_bogus"), ENV("MG_BENCH_TESTS=3"),
	   0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_EQUAL(times_in(o.err, "This program contains tests written using Google Test"),
	                1);
	CU_ASSERT(strstr(o.err, "memguard: no test ran; ") != NULL);
	CU_ASSERT(strstr(o.err, "no tests ran (exit 0, as GoogleTest exits then") != NULL);
	done(&o);
}

/* Whether message m, of 8 KiB at most, ends saying it is cut there. */
static int cut_at_end(const char *m)
{
	static const char end[] = "\n[memguard: the message is cut here, at 8 KiB]\n";
	size_t ml = m ? strlen(m) : 0;
	return ml > sizeof(end) && ml <= 8192 && !strcmp(m + ml - (sizeof(end) - 1), end);
}

/* A Catch2 test case run twice under one name (v3 runs a name registered
 * twice), each run's message over 8 KiB: both entries, the test and its
 * second run's "#2", end saying where they are cut, within 8 KiB (before:
 * the second run's was cut without a word). */
static void catch2_dup_cut(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--driver", "catch2", "--report", "report.json", "--",
	        FAKE_C2DUP),
	   ENV(NULL), 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	expect_state(o.report, "big test", "fail");
	expect_state(o.report, "big test#2", "fail");
	CU_ASSERT(cut_at_end(message_of(o.report, "big test")));
	CU_ASSERT(cut_at_end(message_of(o.report, "big test#2")));
	done(&o);
}

/* ---- catch2 ---- */

#ifdef CATCH2_LEAKS
/* 120 Catch2 test cases that allocate and free, three that keep 64, 16
 * and 4 MiB (auto: the catch2 driver by Catch2's marker): the top three
 * suspects are exactly those, each run once, with the probe's figures. */
static void catch2_suspects_of(const char *prog, const char *arch)
{
	static const char *const want[] = {"step 17", "step 55", "step 91"};
	static const double mib[] = {64, 16, 4};
	outcome o;
	char log[128];
	mg(&o, ARGV("run", "-q", "-j", "1", "--report", "report.json", "--", prog),
	   ENV("MG_C2_LOG=body.log"), 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 121);
	CU_ASSERT(mg_shards_arch(o.report, arch));
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "odd, [name] *"), "pass");
	for (size_t i = 0; i < 3; i++) {
		double got;
		const char *name = suspect(o.report, i, &got);
		if (!name || strcmp(name, want[i]) || got < mib[i] - 1 || got > mib[i] + 3)
			fprintf(stderr, "suspect %zu is %s (%.2f MiB), wanted %s\n", i,
			        name ? name : "(none)", got, want[i]);
		CU_ASSERT(name && !strcmp(name, want[i]) && got >= mib[i] - 1 && got <= mib[i] + 3);
	}
	double fourth;
	suspect(o.report, 3, &fourth);
	CU_ASSERT(fourth < 3);
	snprintf(log, sizeof(log), "%s/body.log", o.dir);
	bodies_once(o.report, log, 121);
	done(&o);
}

/* Every test keeps 8 MiB more, recycle at va=100M: the program stops
 * itself at a boundary (the probe's "va"), more than one generation, every
 * body ran once, recorded once; a planted failure is the test's fail. */
static void catch2_recycle_of(const char *prog)
{
	outcome o;
	char log[128];
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--driver", "catch2", "--recycle-at", "va=100M", "--report",
	        "report.json", "--", prog, "step 1*,step 5"),
	   ENV("MG_C2_EACH_MB=8", "MG_C2_LOG=body.log", "MG_C2_FAIL=13"), 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 31);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "step 13"), "fail");
	CU_ASSERT_EQUAL(shard_sum(o.report, "kills"), 0);
	int all_say;
	CU_ASSERT(generations(o.report, "recycle", "va", &all_say) >= 2);
	CU_ASSERT(all_say);
	snprintf(log, sizeof(log), "%s/body.log", o.dir);
	bodies_once(o.report, log, 32);
	done(&o);
}

/* A test case dying of SIGSEGV (Catch2 reports it, closes its XML, then
 * re-raises): that test is crash, its output has Catch2's report of it
 * (where, which signal) and none of the XML Catch2 closes (before: the
 * reporter's totals and end tags, no word of Catch2's), every other one
 * runs (in a fresh program) and passes, each body once. */
static void catch2_crash(void)
{
	outcome o;
	char log[128];
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--report", "report.json", "--", CATCH2_LEAKS, "step 1*"),
	   ENV("MG_C2_CRASH=13", "MG_C2_LOG=body.log"), 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "step 13"), "crash");
	const char *out = output_of(o.report, "step 13");
	CU_ASSERT(strstr(out, "catch2_leaks.cpp:") != NULL);
	CU_ASSERT(strstr(out, "due to a fatal error condition:\n  SIGSEGV") != NULL);
	CU_ASSERT(strstr(out, "<") == NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 30);
	snprintf(log, sizeof(log), "%s/body.log", o.dir);
	bodies_once(o.report, log, 31);
	done(&o);
}

/* The same crash at a boundary that stops the program (a recycle after
 * every test: rss=1K, below its start): Catch2 reports the test from its
 * SIGSEGV handler, where the probe stopped the program for the recycle
 * and nothing continued it (the runner waits for the test's result): the
 * run waited for --no-progress, step 13 "timeout". Now crash, as in the
 * direct run, and every other step passes. */
static void catch2_crash_recycle(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--recycle-at", "rss=1K", "--no-progress", "10s",
	        "--report", "report.json", "--", CATCH2_LEAKS, "step 1*"),
	   ENV("MG_C2_CRASH=13"), 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	expect_state(o.report, "step 13", "crash");
	CU_ASSERT_EQUAL(count(o.report, "pass"), 30);
	done(&o);
	/* SIGTERM: Catch2 handles it too (on its alternate stack), where the
	 * signal is not one the probe finds blocked */
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--recycle-at", "rss=1K", "--no-progress", "10s",
	        "--report", "report.json", "--", CATCH2_LEAKS, "step 1*"),
	   ENV("MG_C2_CRASH=13", "MG_C2_SIG=15"), 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	expect_state(o.report, "step 13", "crash");
	CU_ASSERT_EQUAL(count(o.report, "pass"), 30);
	done(&o);
}

/* Steps 12 and 13 under env (and env2), step 13 failing: its message,
 * the run's report kept in o until done(). */
static const char *c2_fail13(outcome *o, const char *env, const char *env2)
{
	mg(o,
	   ARGV("run", "-q", "-j", "1", "--report", "report.json", "--", CATCH2_LEAKS,
	        "step 12,step 13"),
	   ENV(env, env2), 0);
	CU_ASSERT(exited_with(o, 1));
	CU_ASSERT_FATAL(o->report != NULL);
	expect_state(o->report, "step 12", "pass");
	expect_state(o->report, "step 13", "fail");
	return message_of(o->report, "step 13");
}

/* A FAIL() of 5,009 bytes: its message has Catch2's words and the text as
 * far as the message has room for it (before: "FILE:LINE: FAILED:" alone,
 * the text dropped whole for want of room), and says where it is cut
 * (before, it was cut without a word). A text that fits (2,039 bytes in 2
 * KiB of room) is whole, without a note: the room for one is taken back
 * only from a cut text. */
static void catch2_long_message(void)
{
	outcome o;
	const char *m = c2_fail13(&o, "MG_C2_LONG=13", NULL);
	expect_message(o.report, "step 13", "explicitly with message:\n  xxxxxxxxxxxxxxxx");
	CU_ASSERT(m && strlen(m) > 1000);
	CU_ASSERT(m && strstr(m, "xx\n  [memguard: the texts are cut here, at 2 KiB]") != NULL);
	CU_ASSERT(m && strstr(m, "the-tail.") == NULL);
	done(&o);

	m = c2_fail13(&o, "MG_C2_LONG=13", "MG_C2_LONG_LEN=2030");
	CU_ASSERT(m && strstr(m, "xxthe-tail.\n") != NULL);
	CU_ASSERT(m && strstr(m, "[memguard") == NULL);
	done(&o);
}

/* Three CHECKs whose expansions are two lines of 5,002 bytes each (Catch2
 * puts long operands on lines of their own): a line says where it is cut
 * (4 KiB), and the message, 8 KiB at most, ends saying it is cut there
 * (before: both cut without a word). */
static void catch2_long_expansion(void)
{
	outcome o;
	const char *m = c2_fail13(&o, "MG_C2_LONGEXP=13", NULL);
	expect_message(o.report, "step 13", "FAILED:\n  CHECK( a == b )\nwith expansion:\n  \"aaa");
	CU_ASSERT(m && strstr(m, "aa [memguard: the line is cut here, at 4 KiB]") != NULL);
	CU_ASSERT(cut_at_end(m));
	done(&o);
}

/* An option Catch2 refuses: the direct run exits 255 with Catch2's words
 * on stderr; under memguard it is the usage error (exit 2: "Catch2 refused
 * its command line", the report saying so) with Catch2's words once (before:
 * three times, the listing's, a second listing's and the program run as
 * given's in the table, and exit 3 with an error entry <program exit>). */
static void catch2_bad_option(void)
{
	outcome o;
	mg(&o, ARGV("run", "-j", "1", "--report", "report.json", "--", CATCH2_LEAKS, "--bogus-opt"),
	   ENV(NULL), 0);
	CU_ASSERT(exited_with(&o, 2));
	CU_ASSERT_EQUAL(times_in(o.err, "Unrecognised token: --bogus-opt"), 1);
	CU_ASSERT_EQUAL(times_in(o.out, "Unrecognised token: --bogus-opt"), 0);
	CU_ASSERT(strstr(o.err, "memguard run: Catch2 refused its command line") != NULL);
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(o.report, "exit_code")), 2);
	done(&o);
}

/* Steps 12 and 13 with env set, step 13 failing: 12 passes, 13 fails with
 * Catch2's assertion as its message, and their outputs are out12, out13. */
static void catch2_two_steps(const char *env, const char *out12, const char *out13)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--report", "report.json", "--", CATCH2_LEAKS,
	        "step 12,step 13"),
	   ENV(env, "MG_C2_FAIL=13"), 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	expect_state(o.report, "step 12", "pass");
	expect_state(o.report, "step 13", "fail");
	expect_message(o.report, "step 13", "FAILED:\n  CHECK(");
	for (int k = 12; k <= 13; k++) {
		const char *want = k == 12 ? out12 : out13;
		const char *out = output_of(o.report, k == 12 ? "step 12" : "step 13");
		CU_ASSERT(!strcmp(out, want));
		if (strcmp(out, want))
			fprintf(stderr, "%s: step %d's output: '%s'\n", env, k, out);
	}
	const char *msg = message_of(o.report, "step 13");
	CU_ASSERT(msg && !strstr(msg, "<root") && !strstr(msg, "word"));
	done(&o);
}

/* A test's printf output without a newline (in front of Catch2's next
 * element) and its std::cout (captured by Catch2 into the XML, encoded)
 * are the test's output, decoded; every test still passes. */
static void catch2_output(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--report", "report.json", "--", CATCH2_LEAKS, "step 1*"),
	   ENV("MG_C2_PRINT=1"), 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 31);
	json_t *t = find_test(o.report, "step 12");
	const char *out = t ? json_string_value(json_object_get(t, "output")) : NULL;
	CU_ASSERT(out && !strcmp(out, "no newline 12\n<&>12\n"));
	if (out && strcmp(out, "no newline 12\n<&>12\n"))
		fprintf(stderr, "output: '%s'\n", out);
	done(&o);
	/* failing after its output: the output stays the test's output, and
	 * its message is Catch2's assertion alone (before, the output was in
	 * the message too) */
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--report", "report.json", "--", CATCH2_LEAKS, "step 12"),
	   ENV("MG_C2_PRINT=1", "MG_C2_FAIL=12"), 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	t = find_test(o.report, "step 12");
	out = t ? json_string_value(json_object_get(t, "output")) : NULL;
	const char *msg = t ? json_string_value(json_object_get(t, "message")) : NULL;
	CU_ASSERT(out && !strcmp(out, "no newline 12\n<&>12\n"));
	CU_ASSERT(msg && strstr(msg, "FAILED") && !strstr(msg, "no newline") &&
	          !strstr(msg, "<&>"));
	if (msg && (strstr(msg, "no newline") || strstr(msg, "<&>")))
		fprintf(stderr, "message: '%s'\n", msg);
	done(&o);
	/* tests that print look-alikes of the reporter's verdict and end tag
	 * (the opposite of their own) keep Catch2's verdicts, and the
	 * look-alikes are their output, as is their own "<root ...>" line
	 * (before: step 12 failed and step 13 passed, as the look-alikes said,
	 * and "<root>" was dropped) */
	catch2_two_steps("MG_C2_FAKE=1",
	                 "<?xml version=\"1.0\"?>\n<OverallResult "
	                 "success=\"false\"/>\n</TestCase>\n<root a=\"1\">\n",
	                 "<?xml version=\"1.0\"?>\n<OverallResult "
	                 "success=\"true\"/>\n</TestCase>\n<root a=\"1\">\n");
	/* the reporter's element names in the program's sentences are its
	 * text, and "<b>" without its newline is cut before the reporter's
	 * element after it (before: "<Failure>" in a passing test's line made
	 * it fail and swallowed its next lines; "<b>" took the verdict along) */
	static const char words[] = "note: <Failure> is a word, <Info> too\nsecond line\n<b>\n";
	catch2_two_steps("MG_C2_WORDS=1", words, words);
}

static void catch2_suspects(void)
{
	catch2_suspects_of(CATCH2_LEAKS, "x64");
}

static void catch2_recycle(void)
{
	catch2_recycle_of(CATCH2_LEAKS);
}
#endif

#ifdef CATCH2_LEAKS32
/* The same two with the program built for x86 (header-only Catch2 v2, -m32). */
static void catch2_x86_or_skip(void)
{
	fflush(NULL);
	pid_t pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		dup2(fd, 2);
		execl(CATCH2_LEAKS32, CATCH2_LEAKS32, "--list-test-names-only", (char *)NULL);
		_exit(errno == ENOEXEC ? 126 : 127);
	}
	int st = 0;
	CU_ASSERT_FATAL(waitpid(pid, &st, 0) == pid);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 126) {
		fprintf(stderr, "\n  skipped: this kernel cannot execute %s\n", CATCH2_LEAKS32);
		fflush(NULL);
		_exit(77);
	}
}

static void catch2_suspects_x86(void)
{
	catch2_x86_or_skip();
	catch2_suspects_of(CATCH2_LEAKS32, "x86");
}

static void catch2_recycle_x86(void)
{
	catch2_x86_or_skip();
	catch2_recycle_of(CATCH2_LEAKS32);
}
#endif

static const mg_case cases[] = {
    {"gtest_run", gtest_run},
    {"gtest_auto", gtest_auto},
    {"gtest_env", gtest_env},
    {"gtest_list_cmd", gtest_list},
    {"exec_quoting", exec_quoting},
    {"exec_shell", exec_shell},
    {"gtest_no_newline", gtest_no_newline},
    {"gtest_nul", gtest_nul},
    {"exec_shell_quotes", exec_shell_quotes},
    {"exec_states", exec_states},
    {"exec_skip_code", exec_skip_code},
    {"exec_program_per_test", exec_program_per_test},
    {"exec_output_exact", exec_output_exact},
    {"wrap_peak", wrap_peak},
    {"wrap_peak_apart", wrap_peak_apart},
    {"wrap_kill", wrap_kill},
    {"wrap_auto", wrap_auto},
    {"wrap_fail", wrap_fail},
    {"gtest_probe_suspects", gtest_probe_suspects},
    {"gtest_probe_recycle", gtest_probe_recycle},
#ifdef GTEST_LEAKS32
    {"gtest_probe_suspects_x86", gtest_probe_suspects_x86},
    {"gtest_probe_recycle_x86", gtest_probe_recycle_x86},
#endif
    {"gtest_probe_growth", gtest_probe_growth},
    {"gtest_probe_asan", gtest_probe_asan},
    {"gtest_probe_static", gtest_probe_static},
    {"gtest_one_program", gtest_one_program},
    {"gtest_base_ways", gtest_base_ways},
    {"gtest_fed_burst", gtest_fed_burst},
    {"gtest_listing_host_idle", gtest_listing_host_idle},
    {"gtest_long_filter", gtest_long_filter},
    {"gtest_user_filter", gtest_user_filter},
    {"gtest_static_batches", gtest_static_batches},
    {"gtest_lanes_prefixes", gtest_lanes_prefixes},
    {"gtest_history_shares", gtest_history_shares},
    {"gtest_history_lanes", gtest_history_lanes},
    {"gtest_lane_tmpdir", gtest_lane_tmpdir},
    {"gtest_bad_flag", gtest_bad_flag},
    {"gtest_shards_lanes", gtest_shards_lanes},
    {"gtest_test_peak", gtest_test_peak},
    {"catch2_dup_cut", catch2_dup_cut},
    {"ctest_states", ctest_states},
    {"ctest_select", ctest_select},
    {"ctest_user_options", ctest_user_options},
    {"ctest_dup_names", ctest_dup_names},
    {"ctest_rerun_custom", ctest_rerun_custom},
    {"ctest_not_run_hint", ctest_not_run_hint},
    {"exec_lanes_share", exec_lanes_share},
    {"exec_pool_retry_alone", exec_pool_retry_alone},
    {"exec_retry_pool_third", exec_retry_pool_third},
    {"exec_pool_kill_empty_lane", exec_pool_kill_empty_lane},
    {"ctest_locks", ctest_locks},
#ifdef CATCH2_LEAKS
    {"catch2_suspects", catch2_suspects},
    {"catch2_recycle", catch2_recycle},
    {"catch2_crash", catch2_crash},
    {"catch2_crash_recycle", catch2_crash_recycle},
    {"catch2_long_message", catch2_long_message},
    {"catch2_long_expansion", catch2_long_expansion},
    {"catch2_bad_option", catch2_bad_option},
    {"catch2_output", catch2_output},
#endif
#ifdef CATCH2_LEAKS32
    {"catch2_suspects_x86", catch2_suspects_x86},
    {"catch2_recycle_x86", catch2_recycle_x86},
#endif
};

MG_TEST_MAIN("drivers_run", cases)

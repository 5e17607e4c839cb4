/*
 * test_start.c - a GoogleTest program that dies before its first test
 * (main before RUN_ALL_TESTS, as leveldb's db_test when two copies
 * collide) is never a test's failure: under the real memguard binary its
 * tests run again in a fresh host; when that one dies at its start too,
 * the run has a `<program start>` entry (crash for a signal, error for an
 * exit status) with the program's last words, and the tests it never ran
 * are `error`, never pass or skip. gtest_start.cc is the program.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mg_run.h"

static const char *const names[] = {"Start.One", "Start.Two", "Later.Three"};

/* The program run directly, every start dying (how: MG_START_HOW): how it
 * ended, as waitpid gives it. */
static int direct(const char *how)
{
	char dir[] = "/tmp/mg-start-XXXXXX", path[64];
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	pid_t pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		setenv("MG_START_DIR", dir, 1);
		setenv("MG_START_DIE", "all", 1);
		setenv("MG_START_HOW", how, 1);
		freopen("/dev/null", "w", stdout);
		freopen("/dev/null", "w", stderr);
		execl(GTEST_START, GTEST_START, (char *)NULL);
		_exit(127);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	for (int n = 1; n < 64; n++) {
		snprintf(path, sizeof(path), "%s/start.%d", dir, n);
		unlink(path);
	}
	rmdir(dir);
	return st;
}

/* memguard run -j LANES [EXTRA] --driver gtest on the program, its starts
 * counted in a directory of the test's own; die: MG_START_DIE, how:
 * MG_START_HOW (NULL: abort). */
static void run_start(outcome *o, const char *lanes, const char *die, const char *how,
                      const char *extra)
{
	char dir[] = "/tmp/mg-start-XXXXXX", env_dir[64], env_die[64], env_how[64];
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(env_dir, sizeof(env_dir), "MG_START_DIR=%s", dir);
	snprintf(env_die, sizeof(env_die), "MG_START_DIE=%s", die);
	snprintf(env_how, sizeof(env_how), "MG_START_HOW=%s", how ? how : "abort");
	if (extra)
		mg(o,
		   ARGV("run", "-j", lanes, "--driver", "gtest", "--recycle-at", extra, "--report",
		        "report.json", "--", GTEST_START),
		   ENV(env_dir, env_die, env_how), 0);
	else
		mg(o,
		   ARGV("run", "-j", lanes, "--driver", "gtest", "--report", "report.json", "--",
		        GTEST_START),
		   ENV(env_dir, env_die, env_how), 0);
	char path[128];
	for (int n = 1; n < 64; n++) {
		snprintf(path, sizeof(path), "%s/start.%d", dir, n);
		unlink(path);
	}
	rmdir(dir);
	CU_ASSERT_FATAL(o->report != NULL);
}

/* The first start dies: its tests run in a fresh host and pass; no test
 * is blamed, no entry is made, and the death is said on the console and
 * in the report (the generation's end). -j 1, -j 2, and a death after a
 * recycle (every program recycled at its first boundary: start 2 is the
 * program after the first recycle). */
static void start_once(void)
{
	static const struct {
		const char *lanes, *die, *recycle;
	} runs[] = {{"1", "1", NULL}, {"2", "1", NULL}, {"2", "2", NULL}, {"1", "2", "va=1M"}};
	for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		outcome o;
		run_start(&o, runs[r].lanes, runs[r].die, NULL, runs[r].recycle);
		CU_ASSERT(exited_with(&o, 0));
		for (int i = 0; i < 3; i++) {
			expect_state(o.report, names[i], "pass");
			/* the dying program's words are no test's output */
			json_t *t = find_test(o.report, names[i]);
			const char *out = json_string_value(json_object_get(t, "output"));
			CU_ASSERT(!out || !strstr(out, "dies before its tests"));
		}
		CU_ASSERT(find_test(o.report, "<program start>") == NULL);
		CU_ASSERT_EQUAL(count(o.report, "crash"), 0);
		/* said: the console line, with the program's last words */
		CU_ASSERT(strstr(o.err, "killed by signal 6 (SIGABRT) before its first test") !=
		          NULL);
		CU_ASSERT(strstr(o.err, "run again in a fresh host") != NULL);
		CU_ASSERT(strstr(o.err, "gtest_start: start ") != NULL);
		/* ... and the report: a generation that ended so */
		int found = 0;
		size_t i, k;
		json_t *s, *g;
		json_array_foreach(json_object_get(o.report, "shards"), i, s)
		{
			json_array_foreach(json_object_get(s, "generations"), k, g)
			{
				const char *why = json_string_value(json_object_get(g, "reason"));
				const char *words =
				    json_string_value(json_object_get(g, "last_output"));
				if (!why || !strstr(why, "before its first test"))
					continue;
				found++;
				/* the reason has the last line; the generation keeps
				 * how it ended and its stderr's tail, the why first */
				CU_ASSERT(!strstr(why, "cannot open its database"));
				CU_ASSERT(words && strstr(words, "killed by signal 6 (SIGABRT) "
				                                 "before its first test"));
				CU_ASSERT(words &&
				          strstr(words, "gtest_start: cannot open its "
				                        "database (locked)\ngtest_start: start "));
			}
		}
		CU_ASSERT(found > 0);
		done(&o);
	}
}

/* Two copies collide at their start (a lock, as db_test's fixed /tmp
 * path; the holder keeps it until the other has tried, then until a second
 * try or 3 s): at -j 2 one dies, and its tests start again once the other
 * copy has started its first test, so they pass. Before, the retry started
 * at once, collided again, and the run ended with a <program start> crash
 * and its tests errors (exit 3). */
static void start_collide(void)
{
	char dir[] = "/tmp/mg-start-XXXXXX", env_lock[80];
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(env_lock, sizeof(env_lock), "MG_START_LOCK=%s/lock", dir);
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "2", "--driver", "gtest", "--report", "report.json", "--",
	        GTEST_START),
	   ENV(env_lock), 0);
	char path[128];
	for (int n = 1; n < 16; n++) {
		snprintf(path, sizeof(path), "%s/lock.tried/start.%d", dir, n);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/lock.tried", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/lock", dir);
	unlink(path);
	rmdir(dir);
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT(exited_with(&o, 0));
	for (int i = 0; i < 3; i++)
		expect_state(o.report, names[i], "pass");
	CU_ASSERT(find_test(o.report, "<program start>") == NULL);
	/* they did collide: a start died (else this shows nothing) */
	CU_ASSERT(strstr(o.err, "before its first test") != NULL);
	done(&o);
}

/* Every start dies: the second death of the same tests is the run's
 * `<program start>` entry, `crash` for the signal, with the program's
 * last words; the tests it never ran are `error` naming why. memguard
 * exits 3 (an error), non-zero as the program does directly. */
static void start_always(void)
{
	int st = direct("abort");
	CU_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
	outcome o;
	run_start(&o, "1", "all", NULL, NULL);
	CU_ASSERT(exited_with(&o, 3));
	expect_state(o.report, "<program start>", "crash");
	expect_message(o.report, "<program start>",
	               "killed by signal 6 (SIGABRT) before its first test");
	expect_message(o.report, "<program start>", "gtest_start: start 2 dies before its tests");
	for (int i = 0; i < 3; i++) {
		expect_state(o.report, names[i], "error");
		expect_message(o.report, names[i], "before its first test");
	}
	CU_ASSERT_EQUAL(count(o.report, "pass"), 0);
	CU_ASSERT_EQUAL(count(o.report, "skip"), 0);
	CU_ASSERT_EQUAL(count(o.report, "crash"), 1);
	done(&o);
}

/* Every start exits 4 before its tests: the entry is `error` naming the
 * status, the tests `error`. */
static void start_exit(void)
{
	int st = direct("exit");
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 4);
	outcome o;
	run_start(&o, "1", "all", "exit", NULL);
	CU_ASSERT(exited_with(&o, 3));
	expect_state(o.report, "<program start>", "error");
	expect_message(o.report, "<program start>", "exited with status 4 before its first test");
	expect_message(o.report, "<program start>", "(exit 4)");
	for (int i = 0; i < 3; i++)
		expect_state(o.report, names[i], "error");
	CU_ASSERT_EQUAL(count(o.report, "pass"), 0);
	CU_ASSERT_EQUAL(count(o.report, "fail"), 0);
	done(&o);
}

/* The program is killed between tests (its Start suite's tear-down
 * aborts): no test is blamed; the death is the entry
 * `Start.TearDownTestSuite`, `error` naming the signal; the test after it
 * runs in a fresh host and passes. */
/* gtest_start whose Start suite's tear-down writes lines (MG_TEARDOWN_ABORT)
 * and aborts, in one lane: exit 3. */
static void run_teardown_abort(outcome *o, const char *env)
{
	mg(o,
	   ARGV("run", "-j", "1", "--driver", "gtest", "--report", "report.json", "--",
	        GTEST_START),
	   ENV(env), 0);
	CU_ASSERT_FATAL(o->report != NULL);
	CU_ASSERT(exited_with(o, 3));
}

static void between_abort(void)
{
	outcome o;
	run_teardown_abort(&o, "MG_TEARDOWN_ABORT=30");
	for (int i = 0; i < 3; i++)
		expect_state(o.report, names[i], "pass");
	expect_state(o.report, "Start.TearDownTestSuite", "error");
	expect_message(o.report, "Start.TearDownTestSuite",
	               "killed by signal 6 (SIGABRT) between tests");
	expect_message(o.report, "Start.TearDownTestSuite", "the Start suite's tear-down aborts");
	/* the last 2 KiB it wrote (all of it, here): its 31 lines of stderr
	 * after GoogleTest's stdout (one stream), and none of the probe's
	 * lines (their secret) that came between its tests' lines */
	const char *m = message_of(o.report, "Start.TearDownTestSuite");
	CU_ASSERT(m && strstr(m, "between tests:\n") &&
	          !strstr(m, "between tests:\ngtest_start: tear-down line 00 of 30, filling\n"));
	CU_ASSERT(m && strstr(m, "gtest_start: tear-down line 00 of 30, filling\n"
	                         "gtest_start: tear-down line 01 of 30, filling\n"));
	CU_ASSERT(m && strstr(m, "line 29 of 30, filling\n"
	                         "gtest_start: the Start suite's tear-down aborts\n"));
	CU_ASSERT(m && strstr(m, "[       OK ] Start.Two"));
	CU_ASSERT(m && !strchr(m, '\036') && !strstr(m, " end "));
	CU_ASSERT_EQUAL(count(o.report, "crash"), 0);
	done(&o);

	/* 61 lines, 2.6 KiB: the 2 KiB kept go round; the message has the
	 * last of them, from a line's start, the abort's last */
	run_teardown_abort(&o, "MG_TEARDOWN_ABORT=60");
	m = message_of(o.report, "Start.TearDownTestSuite");
	CU_ASSERT(m && strstr(m, "between tests:\ngtest_start: tear-down line "));
	CU_ASSERT(m && !strstr(m, "line 00 of 60") && !strstr(m, "[       OK ]"));
	CU_ASSERT(m && strstr(m, "gtest_start: tear-down line 58 of 60, filling\n"
	                         "gtest_start: tear-down line 59 of 60, filling\n"
	                         "gtest_start: the Start suite's tear-down aborts\n"));
	/* 2048 bytes from the end: the abort's 48 and 43 whole lines of 46
	 * (17 to 59), line 16's end cut off */
	size_t first = m ? (size_t)atoi(strstr(m, "between tests:\ngtest_start: tear-down line ") +
	                                sizeof("between tests:\ngtest_start: tear-down line ") - 1)
	                 : 0;
	CU_ASSERT_EQUAL(first, 17);
	done(&o);
}

#ifdef CATCH2_START
/* A Catch2 program that dies before its first test case, every start: the
 * same `<program start>` crash and `error` tests. */
static void catch2_start_always(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "1", "--driver", "catch2", "--report", "report.json", "--",
	        CATCH2_START),
	   ENV("MG_START_DIE=1"), 0);
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT(exited_with(&o, 3));
	expect_state(o.report, "<program start>", "crash");
	expect_message(o.report, "<program start>", "before its first test (Catch2 ran none)");
	expect_message(o.report, "<program start>", "catch2_start: dies before its tests");
	expect_state(o.report, "first passes", "error");
	expect_state(o.report, "second passes", "error");
	CU_ASSERT_EQUAL(count(o.report, "crash"), 1);
	done(&o);
}

/* A Catch2 v2 listing with "-v high" puts "\t@FILE:LINE" after each name,
 * so what comes before the first such line is noise (a custom main's
 * banner here, a static constructor's in catch2_abort): no second listing
 * of no test (exclude:*) to find it, one listing and one run start the
 * program, and the banner is not taken for a test. */
static void catch2_start_listings(void)
{
	outcome o;
	char log[64], env[96], buf[4096];
	snprintf(log, sizeof(log), "/tmp/mg-c2start-%ld.log", (long)getpid());
	snprintf(env, sizeof(env), "MG_START_LOG=%s", log);
	for (int banner = 0; banner < 2; banner++) {
		unlink(log);
		mg(&o,
		   ARGV("run", "-j", "1", "--driver", "catch2", "--report", "report.json", "--",
		        CATCH2_START),
		   banner ? ENV(env, "MG_START_BANNER=1") : ENV(env), 0);
		CU_ASSERT(exited_with(&o, 0));
		CU_ASSERT_FATAL(o.report != NULL);
		CU_ASSERT_EQUAL(count(o.report, "pass"), 2);
		CU_ASSERT_EQUAL(count(o.report, "pass") + count(o.report, "error") +
		                    count(o.report, "fail"),
		                2);
		CU_ASSERT_FATAL(slurp(log, buf, sizeof(buf)) != NULL);
		size_t starts = 0;
		for (const char *p = buf; (p = strchr(p, '\n')) != NULL; p++)
			starts++;
		if (starts != 2)
			fprintf(stderr, "\n  banner %d: the program's starts:\n%s", banner, buf);
		CU_ASSERT_EQUAL(starts, 2);
		CU_ASSERT(strstr(buf, "exclude:*") == NULL);
		CU_ASSERT(strstr(buf, "--list-test-names-only -v high\n") != NULL);
		done(&o);
	}
	unlink(log);
}
#endif

static const mg_case cases[] = {
    {"start_once", start_once},
    {"start_collide", start_collide},
    {"start_always", start_always},
    {"start_exit", start_exit},
    {"between_abort", between_abort},
#ifdef CATCH2_START
    {"catch2_start_always", catch2_start_always},
    {"catch2_start_listings", catch2_start_listings},
#endif
};

MG_TEST_MAIN("drivers_start", cases)

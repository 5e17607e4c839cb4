/*
 * gtest_outside.c - what the GoogleTest and Catch2 driver does with what a
 * program does OUTSIDE its tests: the output and failures of GoogleTest's
 * phases between tests (a suite's set-up or tear-down, the global
 * environment's), and the program's end when no test is running (an exit
 * status nothing explains, leaks found where it was recycled, a death
 * before its first test or between two tests). Never blames a test for
 * it; the per-test line follower is gtest.c's.
 */
#include <stdio.h>
#include <string.h>

#include "gtest_driver.h"
#include "spawn.h"

/* What failed outside tests, if anything did since the phase began: an
 * entry of its own (a failed SetUpTestSuite fails no test: GoogleTest
 * skips the suite's tests, and exits 1), which carries the phase's text;
 * a phase that did not fail passes its text on (gtest_outside_between). */
void gtest_outside_flush(shim *s, gtest *g)
{
	if (!g->outside_failed && g->outside_len)
		shim_output(s, g->outside, g->outside_len);
	if (g->outside_failed) {
		char name[1100];
		int n = g->phase == GT_PH_SUITE && g->suite_len
		            ? snprintf(name, sizeof(name), "%.*s.%s", (int)g->suite_len, g->suite,
		                       g->suite_ran ? "TearDownTestSuite" : "SetUpTestSuite")
		            : snprintf(name, sizeof(name), "<global environment>");
		shim_extra(s, MG_MSG_FAIL, name, (size_t)n, g->outside, g->outside_len);
		g->failed_any = 1;
	}
	g->outside_failed = 0;
	g->outside_len = 0;
}

/* GoogleTest's "[----------] N test(s) from SUITE[, where ...][ (T ms total)]":
 * 1 and the suite's name; *end: the suite's closing line. */
static int suite_line(const char *line, size_t len, const char **name, size_t *n, int *end)
{
	const char *p = line + 12, *e = line + len, *from;
	if (len < 14 || memcmp(line, "[----------] ", 13) || !(p[1] >= '0' && p[1] <= '9'))
		return 0;
	from = memmem(p, (size_t)(e - p), " from ", 6);
	if (!from)
		return 0;
	*name = from + 6;
	const char *q = *name;
	while (q < e && *q != ' ' && *q != ',')
		q++;
	*n = (size_t)(q - *name);
	*end = len > 10 && !memcmp(e - 10, " ms total)", 10);
	return *n > 0;
}

/* A line of GoogleTest's framing outside tests: tracks where it is, and
 * ends the phase before (an outside failure becomes its entry). */
void gtest_outside_frame(shim *s, gtest *g, const char *line, size_t len)
{
	const char *name;
	size_t n;
	int end;
	if (!strncmp(line, "[----------] Global test environment set-up.", 44)) {
		gtest_outside_flush(s, g);
		g->phase = GT_PH_ENV_SETUP;
	} else if (!strncmp(line, "[----------] Global test environment tear-down", 46)) {
		gtest_outside_flush(s, g);
		g->phase = GT_PH_ENV_TEARDOWN;
	} else if (suite_line(line, len, &name, &n, &end)) {
		int same =
		    g->phase == GT_PH_SUITE && g->suite_len == n && !memcmp(g->suite, name, n);
		/* without --gtest_print_time its closing line is its opening line */
		if (end || (same && g->suite_ran)) {
			gtest_outside_flush(s, g);
			g->phase = GT_PH_NONE;
			g->suite_len = 0;
		} else if (!same) {
			gtest_outside_flush(s, g);
			g->phase = GT_PH_SUITE;
			g->suite_len = n < sizeof(g->suite) ? n : 0;
			memcpy(g->suite, name, g->suite_len);
			g->suite_ran = 0;
		}
	} else if (!strncmp(line, "[==========]", 12) && strstr(line, " ran.")) {
		gtest_outside_flush(s, g);
		g->phase = GT_PH_NONE;
		g->summary = 1;
	}
}

/*
 * Output outside a test (nl: the line ended there). In one of GoogleTest's
 * phases (a suite's set-up or tear-down, the global environment's, a name
 * run again) it is held until the phase ends: a failure's text is then its
 * entry's message and goes to no test (the runner would give it to the
 * next one); the text of a phase that did not fail goes on then as other
 * output between tests does (to the test in front: a suite's set-up's to
 * its first test). Past FAIL_TEXT held bytes, what did not fail goes on at
 * once, and a failure's later text does too.
 */
void gtest_outside_between(shim *s, gtest *g, const char *line, size_t len, int nl)
{
	if (g->phase == GT_PH_NONE) {
		gtest_output(s, g, line, len, nl);
		return;
	}
	/* GoogleTest's failure header: "FILE:LINE: Failure", "unknown file: Failure" */
	if (nl && len >= 9 && !memcmp(line + len - 9, ": Failure", 9) && !g->dup_running)
		g->outside_failed = 1;
	/* GTEST_SKIP() in a global environment's SetUp: no test runs */
	if (nl && g->phase == GT_PH_ENV_SETUP && len >= 9 &&
	    !memcmp(line + len - 9, ": Skipped", 9))
		g->env_skipped = 1;
	size_t need = len + (size_t)nl;
	if (need > sizeof(g->outside) - g->outside_len && !g->outside_failed && !g->dup_running) {
		shim_output(s, g->outside, g->outside_len);
		g->outside_len = 0;
	}
	if (need > sizeof(g->outside) - g->outside_len) {
		gtest_output(s, g, line, len, nl);
		return;
	}
	memcpy(g->outside + g->outside_len, line, len);
	g->outside_len += len;
	if (nl)
		g->outside[g->outside_len++] = '\n';
}

/* The names left in the batch that the framework would run (not DISABLED_). */
static size_t batch_runnable(shim *s, gtest *g)
{
	size_t k = 0, n;
	for (size_t i = 0; i < g->batch && i < shim_queued(s); i++) {
		const char *name = shim_queue_name(s, i, &n);
		k += !gtest_framework_skips(g, name, n);
	}
	return k;
}

/* What a message says after how the program ended when its tail
 * (shim_stderr_tail) is empty: GoogleTest's is its one stream's. */
static const char *nothing_said(const gtest *g)
{
	return g->catch2 ? " (nothing on stderr)" : " (no output)";
}

/* A program that ended badly with nothing to show for it (no test failed,
 * none left unrun): an error entry of its own, with its last words. */
void gtest_outside_exit_unexplained(shim *s, gtest *g, mg_exit_end status)
{
	char msg[4096];
	size_t tn;
	const char *tail = shim_stderr_tail(s, &tn);
	/* Catch2 v3 exits 4 when every test it ran was skipped (its
	 * AllTestsSkippedExitCode): a batch of skipped tests ends so; whether
	 * the run's were all skipped the runner judges (listing_all_skipped) */
	int all_skipped = g->catch2_v3 && !status.signo && status.status == 4 && g->started_any &&
	                  !g->c2_unskipped;
	int bad = !mg_exit_ok(status) && !all_skipped;
	if (!bad || g->failed_any || batch_runnable(s, g))
		return;
	int n =
	    snprintf(msg, sizeof(msg), "%s %s %d after its last test%s%.*s", shim_cmd(s, NULL)[0],
	             status.signo ? "was killed by signal" : "exited with status",
	             status.signo ? status.signo : status.status, tn ? ":\n" : nothing_said(g),
	             (int)(tn < 3000 ? tn : 3000), tail + (tn < 3000 ? 0 : tn - 3000));
	static const char name[] = MG_EXTRA_PROGRAM_EXIT;
	shim_extra(s, MG_MSG_ERROR, name, sizeof(name) - 1, msg,
	           n < 0                     ? 0
	           : (size_t)n < sizeof(msg) ? (size_t)n
	                                     : sizeof(msg) - 1);
	g->failed_any = 1;
}

/* A program stopped at a boundary whose probe found leaks where it ended
 * (LeakSanitizer's check, as at its exit): the entry its exit would have
 * made, unless a failure it reported explains it (as gtest_outside_exit_unexplained). */
void gtest_outside_exit_leaked(shim *s, gtest *g)
{
	char msg[4096];
	size_t tn;
	const char *tail = shim_stderr_tail(s, &tn);
	if (g->failed_any)
		return;
	int n = snprintf(msg, sizeof(msg),
	                 "%s: LeakSanitizer found leaks of the tests it ran before memguard "
	                 "recycled it (checked where it was ended, as at its exit)%s%.*s",
	                 shim_cmd(s, NULL)[0], tn ? ":\n" : "", (int)(tn < 3000 ? tn : 3000),
	                 tail + (tn < 3000 ? 0 : tn - 3000));
	static const char name[] = MG_EXTRA_PROGRAM_EXIT;
	shim_extra(s, MG_MSG_ERROR, name, sizeof(name) - 1, msg,
	           n < 0                     ? 0
	           : (size_t)n < sizeof(msg) ? (size_t)n
	                                     : sizeof(msg) - 1);
	g->failed_any = 1;
}

/*
 * The program died (or exited non-zero) before its first test started
 * (main before RUN_ALL_TESTS, a global set-up): no test is blamed. The
 * runner is told what happened, `extra error <program start>` with its
 * last words, which it holds until this host ends; the shim then ends as
 * the program did, no test started, and the runner puts the batch's
 * tests back to run in a fresh host. A second such death of the same
 * tests makes the entry (`crash` for a signal) and the tests it never ran
 * `error` (lane.c, lane_start_died).
 */
void __attribute__((noreturn)) gtest_outside_start_died(shim *s, gtest *g, mg_exit_end status)
{
	char msg[4096], how[96];
	size_t tn;
	const char *tail = shim_stderr_tail(s, &tn);
	if (status.signo)
		snprintf(how, sizeof(how), "was killed by signal %d (%s)", status.signo,
		         spawn_signal_name(status.signo));
	else
		snprintf(how, sizeof(how), "exited with status %d", status.status);
	int n = snprintf(msg, sizeof(msg), "%s %s before its first test (%s ran none)%s%.*s",
	                 shim_cmd(s, NULL)[0], how, g->catch2 ? "Catch2" : "GoogleTest",
	                 tn ? ":\n" : nothing_said(g), (int)(tn < 3000 ? tn : 3000),
	                 tail + (tn < 3000 ? 0 : tn - 3000));
	static const char name[] = MG_EXTRA_PROGRAM_START;
	gtest_filter_remove(g);
	shim_extra(s, MG_MSG_ERROR, name, sizeof(name) - 1, msg,
	           n < 0                     ? 0
	           : (size_t)n < sizeof(msg) ? (size_t)n
	                                     : sizeof(msg) - 1);
	shim_end_as(s, status);
}

/*
 * The program was killed by a signal, or exited, between two tests (a
 * suite's set-up or tear-down, the global environment's, or code of its
 * own between them): no test is blamed. Its end is an entry named where
 * it was (as gtest_outside_flush names a failure there, `<program exit>`
 * elsewhere) with how it ended and its last words: `error` for a signal,
 * `fail` for an exit status N (the direct run fails so), `skip` for 0 (the
 * direct run passes so: said, not counted); the shim then ends as the
 * program did without `start`, so the runner puts the tests left back for
 * a fresh host (an end there before its first test is gtest_outside_start_died's).
 */
void __attribute__((noreturn)) gtest_outside_between_died(shim *s, gtest *g, mg_exit_end status)
{
	char name[1100], msg[4096], how[96];
	size_t tn;
	const char *tail = shim_stderr_tail(s, &tn);
	int nn = g->phase == GT_PH_SUITE && g->suite_len
	             ? snprintf(name, sizeof(name), "%.*s.%s", (int)g->suite_len, g->suite,
	                        g->suite_ran ? "TearDownTestSuite" : "SetUpTestSuite")
	         : g->phase == GT_PH_NONE
	             ? snprintf(name, sizeof(name), "%s", MG_EXTRA_PROGRAM_EXIT)
	             : snprintf(name, sizeof(name), "<global environment>");
	if (status.signo)
		snprintf(how, sizeof(how), "was killed by signal %d (%s)", status.signo,
		         spawn_signal_name(status.signo));
	else
		snprintf(how, sizeof(how), "exited with status %d", status.status);
	int n = snprintf(msg, sizeof(msg), "%s %s between tests%s%s%.*s", shim_cmd(s, NULL)[0], how,
	                 !status.signo && !status.status
	                     ? " (the direct run passes so; the tests after it run in a fresh "
	                       "program)"
	                     : "",
	                 tn ? ":\n" : nothing_said(g), (int)(tn < 3000 ? tn : 3000),
	                 tail + (tn < 3000 ? 0 : tn - 3000));
	shim_extra(s,
	           status.signo    ? MG_MSG_ERROR
	           : status.status ? MG_MSG_FAIL
	                           : MG_MSG_SKIP,
	           name, nn < 0 ? 0 : (size_t)nn, msg,
	           n < 0                     ? 0
	           : (size_t)n < sizeof(msg) ? (size_t)n
	                                     : sizeof(msg) - 1);
	if (status.signo)
		shim_die_of(s, status.signo);
	shim_end_as(s, status);
}

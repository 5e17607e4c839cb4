/*
 * test_matrix.c - the fault matrix: one row a case, each run against the
 * real memguard binary and a real fault host (tests/hosts/fault_host.c).
 * Every row asserts the exit code, that no test was lost (each listed test
 * is in the report exactly once), that no process of the run is left (a scan
 * of every /proc/PID/environ for the row's tag), and that the report
 * validates against adapters/report.schema.json (python3-jsonschema).
 * Rows that SIGKILL memguard get no report, and must still leave nothing:
 * every host family (a child in the host's group, a setsid double-fork
 * escapee) dies with memguard's PID namespace, or is ended by memguard's
 * reaper (--contain reaper, the default without root). One row runs
 * without either and must find the escapees: the scan can fail.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mg_run.h"

/* what the test does to memguard mid-run; RUNNER_KILL: SIGKILL to the
 * process that runs the tests, below its reaper (--contain reaper) */
enum { NONE, KILL, TERM, HUP, RUNNER_KILL };

typedef struct row {
	const char *name;
	const char *host;   /* FAULT64 or FAULT32 */
	const char *faults; /* MG_FAULT */
	int tests;          /* MG_FAULT_TESTS */
	const char *flags;  /* memguard run flags, space separated */
	int action;         /* sent once the family (3 tagged processes) is up */
	int want_exit;      /* memguard's exit status, 128 + N for a signal */
	int want_left;      /* processes left: 0, or -1 for "some" (no namespace) */
	const char *state;  /* a state some test must end in, or NULL */
} row;

static const row rows[] = {
    {"clean", FAULT64, "", 20, "", NONE, 0, 0, "pass"},
    {"family_end", FAULT64, "family@2", 20, "", NONE, 0, 0, "pass"},
    {"family_end_x86", FAULT32, "family@2", 20, "", NONE, 0, 0, "pass"},
    {"family_recycle", FAULT64, "family@%5,leak@*", 20, "--recycle-at va=300M", NONE, 0, 0, "pass"},
    {"family_no_namespace", FAULT64, "family@2", 20, "--contain none", NONE, 0, 0, "pass"},
    {"segv", FAULT64, "segv@3", 20, "", NONE, 1, 0, "crash"},
    {"abort", FAULT64, "abort@3", 20, "", NONE, 1, 0, "crash"},
    {"exit_mid_test", FAULT64, "exit@4", 20, "", NONE, 1, 0, NULL},
    {"hang", FAULT64, "hang@4", 10, "--timeout 1s", NONE, 1, 0, "timeout"},
    {"garbage", FAULT64, "garbage@3", 20, "", NONE, 3, 0, NULL},
    {"forkcrash", FAULT64, "forkcrash@2", 10, "", NONE, 1, 0, "crash"},
    {"kill_hard", FAULT64, "bigleak@5", 10, "--recycle-at va=300M --kill-at va=400M", NONE, 1, 0,
     "memory-limit"},
    {"sigterm", FAULT64, "family@1,slow@*", 40, "", TERM, 143, 0, "not-run"},
    {"sighup", FAULT64, "family@1,slow@*", 40, "-j 2", HUP, 129, 0, "not-run"},
    {"sigkill", FAULT64, "family@1,slow@*", 40, "", KILL, 137, 0, NULL},
    {"sigkill_lanes", FAULT64, "family@%7,slow@*", 40, "-j 2", KILL, 137, 0, NULL},
    {"sigkill_x86", FAULT32, "family@1,slow@*", 40, "", KILL, 137, 0, NULL},
    {"segv_x86", FAULT32, "segv@3", 20, "", NONE, 1, 0, "crash"},
    {"sigkill_user_namespace", FAULT64, "family@1,slow@*", 40, "--contain user", KILL, 137, 0,
     NULL},
    /* no namespace, a reaper: the runner SIGKILLed leaves nothing (the
     * reaper ends what came to it, and ends as the runner did); the reaper
     * SIGKILLed stops the runner as SIGTERM would (a partial report) */
    {"sigkill_runner_reaper", FAULT64, "family@1,slow@*", 40, "--contain reaper", RUNNER_KILL, 137,
     0, NULL},
    {"sigkill_runner_reaper_lanes", FAULT64, "family@%7,slow@*", 40, "--contain reaper -j 2",
     RUNNER_KILL, 137, 0, NULL},
    {"sigkill_reaper", FAULT64, "family@1,slow@*", 40, "--contain reaper", KILL, 137, 0, "not-run"},
    {"sigterm_reaper", FAULT64, "family@1,slow@*", 40, "--contain reaper", TERM, 143, 0, "not-run"},
    /* without the namespace the escapee outlives a SIGKILLed memguard:
     * what README says can escape, and proof that the scan sees it */
    {"sigkill_no_namespace", FAULT64, "family@1,slow@*", 40, "--contain none", KILL, 137, -1, NULL},
};

static pid_t start_row(const row *r, const char *dir, const char *tag)
{
	const char *argv[32];
	char flags[256];
	int n = 0;
	argv[n++] = MEMGUARD_BIN;
	argv[n++] = "run";
	argv[n++] = "-q";
	argv[n++] = "--report";
	argv[n++] = "report.json";
	snprintf(flags, sizeof(flags), "%s", r->flags);
	for (char *save, *t = strtok_r(flags, " ", &save); t; t = strtok_r(NULL, " ", &save))
		argv[n++] = t;
	argv[n++] = "--";
	argv[n++] = r->host;
	argv[n] = NULL;
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		char out[300], count[16];
		snprintf(out, sizeof(out), "%s/out", dir);
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0 || chdir(dir) < 0)
			_exit(126);
		snprintf(count, sizeof(count), "%d", r->tests);
		unsetenv("CI");
		setenv("MG_FAULT", r->faults, 1);
		setenv("MG_FAULT_TESTS", count, 1);
		putenv((char *)tag);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	return pid;
}

static int status_of(pid_t pid)
{
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Listed tests missing from the report or in it more than once; -1 if the
 * report is not there. *seen: whether a test ended in state. */
static int lost_tests(const char *path, int tests, const char *state, int *seen)
{
	json_error_t je;
	json_t *rep = json_load_file(path, 0, &je), *sh, *t;
	size_t i, j;
	if (!rep)
		return -1;
	int *times = calloc((size_t)tests, sizeof(int)), lost = 0;
	*seen = 0;
	json_array_foreach(json_object_get(rep, "shards"), i, sh)
	{
		json_array_foreach(json_object_get(sh, "tests"), j, t)
		{
			/* memguard-report/2's short keys (n, s; s absent: pass), or /1's */
			const char *name = json_string_value(json_object_get(t, "n"));
			const char *st = json_string_value(json_object_get(t, "s"));
			if (!name) {
				name = json_string_value(json_object_get(t, "name"));
				st = json_string_value(json_object_get(t, "state"));
			} else if (!st) {
				st = "pass";
			}
			int k;
			if (name && sscanf(name, "fault/t%d", &k) == 1 && k >= 0 && k < tests)
				times[k]++;
			else
				lost++; /* a name no host listed */
			if (state && st && !strcmp(st, state))
				*seen = 1;
		}
	}
	for (int k = 0; k < tests; k++)
		lost += times[k] != 1;
	free(times);
	json_decref(rep);
	return lost;
}

static int failures;

#define ROW_CHECK(r, cond, ...)                                                                    \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "row %s: ", (r)->name);                                    \
			fprintf(stderr, __VA_ARGS__);                                              \
			fputc('\n', stderr);                                                       \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

/* Whether `memguard list --contain MODE` works here (the namespace can be
 * made: root, or unprivileged user namespaces, and no policy against them). */
static int can_contain(const char *mode)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		dup2(fd, 2);
		setenv("MG_FAULT_TESTS", "1", 1);
		execl(MEMGUARD_BIN, MEMGUARD_BIN, "list", "--contain", mode, "--", FAULT64,
		      (char *)NULL);
		_exit(127);
	}
	return status_of(pid) == 0;
}

/* The child of pid among the tagged processes: the runner below its
 * reaper; -1 if none. */
static pid_t runner_below(pid_t pid, const pid_t *tagged, int n)
{
	for (int i = 0; i < n; i++) {
		char path[64], buf[512];
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)tagged[i]);
		FILE *f = fopen(path, "r");
		size_t k = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
		if (f)
			fclose(f);
		buf[k] = 0;
		char *close_paren = strrchr(buf, ')');
		int ppid = 0;
		if (close_paren && sscanf(close_paren + 1, " %*c %d", &ppid) == 1 && ppid == pid)
			return tagged[i];
	}
	return -1;
}

static void run_row(const row *r, const char *dir, char *reports, size_t size)
{
	int before = failures;
	/* no survivor of a SIGKILLed memguard is promised only where a
	 * namespace can be made; say loudly when a row cannot be held to it */
	const char *need = strstr(r->flags, "--contain user") ? "user" : "auto";
	int reaper = strstr(r->flags, "--contain reaper") != NULL;
	if (r->action == KILL && r->want_left == 0 && !reaper &&
	    !can_contain(!strcmp(need, "user") ? "user" : "pid") &&
	    (!strcmp(need, "user") || !can_contain("user"))) {
		fprintf(stderr, "row %s: NOT TESTED: this machine allows no %s namespace\n",
		        r->name, !strcmp(need, "user") ? "user" : "PID or user");
		return;
	}
	char tag[96], path[300];
	pid_t left[64];
	snprintf(tag, sizeof(tag), "MG_MATRIX_TAG=%ld-%s", (long)getpid(), r->name);
	pid_t pid = start_row(r, dir, tag);
	if (r->action != NONE) {
		/* memguard (and its reaper), the host, its child and its escapee */
		int i, want = reaper ? 5 : 4, n = 0;
		for (i = 0; i < 500 && (n = mg_tagged(tag, left, 64)) < want; i++)
			nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
		ROW_CHECK(r, i < 500, "the host family never came up");
		pid_t target = pid;
		if (r->action == RUNNER_KILL) {
			target = runner_below(pid, left, n);
			ROW_CHECK(r, target > 0, "no runner below the reaper");
		}
		if (target > 0)
			kill(target, r->action == KILL || r->action == RUNNER_KILL ? SIGKILL
			             : r->action == TERM                           ? SIGTERM
			                                                           : SIGHUP);
	}
	int code = status_of(pid);
	ROW_CHECK(r, code == r->want_exit, "exit %d, want %d", code, r->want_exit);
	int n = mg_tagged_left(tag, left, 64);
	if (r->want_left == 0)
		ROW_CHECK(r, n == 0, "%d processes of the run left (first pid %d)", n,
		          n ? (int)left[0] : 0);
	else
		ROW_CHECK(r, n > 0, "no process left: the scan cannot see escapees");
	for (int i = 0; i < n && i < 64; i++)
		kill(left[i], SIGKILL);

	snprintf(path, sizeof(path), "%s/report.json", dir);
	int seen = 0, lost = lost_tests(path, r->tests, r->state, &seen);
	if (r->action == RUNNER_KILL || (r->action == KILL && !reaper)) {
		ROW_CHECK(r, lost == -1, "a report after SIGKILL");
	} else {
		ROW_CHECK(r, lost == 0, "%d tests lost or run twice", lost);
		ROW_CHECK(r, !r->state || seen, "no test ended %s", r->state);
		char keep[400];
		snprintf(keep, sizeof(keep), "%s/%s.json", dir, r->name);
		rename(path, keep);
		size_t len = strlen(reports);
		snprintf(reports + len, size - len, " '%s'", keep);
	}
	if (failures > before) {
		char out[300], buf[4096];
		snprintf(out, sizeof(out), "%s/out", dir);
		FILE *f = fopen(out, "r");
		size_t k = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
		buf[k] = 0;
		if (f)
			fclose(f);
		fprintf(stderr, "row %s output:\n%s\n", r->name, buf);
	}
}

/* The rows of one host: x86's are their own case (rows_x86), which a
 * kernel that refuses 32-bit programs skips and tests/run runs in a VM. */
static void matrix(const char *host)
{
	char dir[] = "/tmp/mg-matrix-XXXXXX", reports[8192] = "", cmd[9000];
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int before = failures;
		if (strcmp(rows[i].host, host))
			continue;
		run_row(&rows[i], dir, reports, sizeof(reports));
		fprintf(stderr, "%-24s %s\n", rows[i].name, failures == before ? "ok" : "FAILED");
	}
	CU_ASSERT_EQUAL(failures, 0);
	snprintf(cmd, sizeof(cmd), "python3 '%s' '%s'%s", VALIDATE, SCHEMA, reports);
	CU_ASSERT_EQUAL(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

static void rows_x64(void)
{
	matrix(FAULT64);
}

static void rows_x86(void)
{
	matrix(FAULT32);
}

static const mg_case cases[] = {
    {"rows", rows_x64},
    {"rows_x86", rows_x86},
};

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "rows_x86") &&
	    mg_exec_refused(FAULT32, "--list", "fault_matrix__rows_x86", NULL))
		return 77;
	return mg_test_main("fault_matrix", cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}

/*
 * test_hostile.c - what a hostile or broken suite, or a shared /tmp, does to
 * a run: a FIFO at an output path, a host that stops itself, links planted
 * at the ctest driver's lock paths, a config with a key twice, durations too
 * long for an int of milliseconds, CRLF in --tests-from, --contain pid as a
 * user without root, a 100 KB test name, SIGTERM while a write blocks. The real memguard binary and
 * real hosts; every run is bounded by the test (SIGKILL after RUN_LIMIT s), so a hang fails the
 * case instead of hanging it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <jansson.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mg_test.h"

#define RUN_LIMIT 30 /* seconds a run may take before the case calls it a hang */

typedef struct run {
	int status; /* as waitpid gives it; -1: killed for taking too long */
	char err[1 << 16];
	json_t *report;
} run;

static char dir[64];

static void make_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/mg-hostile-XXXXXX");
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	chmod(dir, 0755);
}

static void remove_dir(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

/* Runs argv in dir (TMPDIR too) with env entries added (NULL-terminated);
 * as user uid when uid > 0. Killed (status -1) past RUN_LIMIT s. */
static void mg_run(run *r, const char *const *argv, const char *const *env, uid_t uid)
{
	char errp[128], rp[128];
	memset(r, 0, sizeof(*r));
	snprintf(errp, sizeof(errp), "%s/stderr", dir);
	fflush(NULL);
	pid_t pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		int fe = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int fo = open("/dev/null", O_WRONLY);
		if (fe < 0 || fo < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0 || chdir(dir) < 0)
			_exit(126);
		setenv("TMPDIR", dir, 1);
		unsetenv("CI");
		for (size_t i = 0; env && env[i]; i++)
			putenv((char *)env[i]);
		if (uid > 0 && (setgroups(0, NULL) < 0 || setgid(uid) < 0 || setuid(uid) < 0))
			_exit(125);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	struct timespec tick = {0, 20 * 1000 * 1000};
	int waited = 0;
	for (;;) {
		pid_t w = waitpid(pid, &r->status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			r->status = -1;
			break;
		}
		if (waited++ > RUN_LIMIT * 50) {
			fprintf(stderr, "memguard did not end within %d s: killed\n", RUN_LIMIT);
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			r->status = -1;
			break;
		}
		nanosleep(&tick, NULL);
	}
	FILE *f = fopen(errp, "r");
	if (f) {
		size_t n = fread(r->err, 1, sizeof(r->err) - 1, f);
		r->err[n] = 0;
		fclose(f);
	}
	snprintf(rp, sizeof(rp), "%s/report.json", dir);
	json_error_t je;
	r->report = json_load_file(rp, 0, &je);
}

static int exited(const run *r, int code)
{
	if (r->status < 0 || !WIFEXITED(r->status) || WEXITSTATUS(r->status) != code) {
		fprintf(stderr, "status %d (wanted exit %d); stderr:\n%s\n", r->status, code,
		        r->err);
		return 0;
	}
	return 1;
}

/* The test named name in a memguard-report/2 document, or NULL. */
static json_t *test_in(json_t *report, const char *name)
{
	size_t i, k;
	json_t *sh, *t;
	json_array_foreach(json_object_get(report, "shards"), i, sh) json_array_foreach(
	    json_object_get(sh, "tests"), k,
	    t) if (!strcmp(json_string_value(json_object_get(t, "n")), name)) return t;
	return NULL;
}

static const char *state_in(json_t *report, const char *name)
{
	json_t *t = test_in(report, name);
	const char *s = t ? json_string_value(json_object_get(t, "s")) : NULL;
	return t ? (s ? s : "pass") : NULL; /* pass is the default, left out */
}

static void write_file(const char *name, const char *text)
{
	char path[160];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
}

#define ARGV(...) ((const char *const[]){MEMGUARD_BIN, __VA_ARGS__, NULL})
#define ENV(...)  ((const char *const[]){__VA_ARGS__, NULL})

/* A FIFO with no reader at --report, then at an adapter's path: each run
 * ends at once with exit 3 and a message naming the path and what it is
 * (it used to block in open(2) for ever); the FIFO is still a FIFO. */
static void fifo_output(void)
{
	static const char *const specs[][2] = {{"--report", "out.fifo"},
	                                       {"--adapter", "junit=out.fifo"}};
	make_dir();
	char fifo[128];
	snprintf(fifo, sizeof(fifo), "%s/out.fifo", dir);
	CU_ASSERT_FATAL(mkfifo(fifo, 0600) == 0);
	for (size_t i = 0; i < 2; i++) {
		run r;
		mg_run(&r, ARGV("run", "-q", "-j", "1", specs[i][0], specs[i][1], "--", FAULT64),
		       ENV("MG_FAULT_TESTS=3"), 0);
		CU_ASSERT(exited(&r, 3));
		CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "out.fifo: a FIFO, not a regular file"));
		json_decref(r.report);
	}
	struct stat st;
	CU_ASSERT(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
	remove_dir();
}

/* A symlink at --report is neither followed nor replaced: exit 3 naming
 * it, its target untouched. */
static void symlink_report(void)
{
	make_dir();
	char link[128];
	write_file("target", "untouched\n");
	snprintf(link, sizeof(link), "%s/report.json", dir);
	CU_ASSERT_FATAL(symlink("target", link) == 0);
	run r;
	mg_run(&r, ARGV("run", "-q", "-j", "1", "--report", "report.json", "--", FAULT64),
	       ENV("MG_FAULT_TESTS=3"), 0);
	CU_ASSERT(exited(&r, 3));
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(r.err, "report.json: a symbolic link (not followed), not a regular file"));
	json_decref(r.report);
	char buf[32] = {0};
	snprintf(link, sizeof(link), "%s/target", dir);
	FILE *f = fopen(link, "r");
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT(fgets(buf, sizeof(buf), f) != NULL);
	fclose(f);
	CU_ASSERT_STRING_EQUAL(buf, "untouched\n");
	remove_dir();
}

/* A test that stops itself (SIGSTOP, T state) and no --timeout: with
 * --no-progress 2s it is ended as a timeout whose message says "stopped",
 * one line on stderr names the host and its state, and the run goes on
 * (the other tests pass): exit 1, not a hang. */
static void stopped_host(void)
{
	make_dir();
	run r;
	mg_run(&r,
	       ARGV("run", "-q", "-j", "1", "--no-progress", "2s", "--report", "report.json", "--",
	            FAULT64),
	       ENV("MG_FAULT_TESTS=4", "MG_FAULT=stop@1"), 0);
	CU_ASSERT(exited(&r, 1));
	CU_ASSERT_FATAL(r.report != NULL);
	const char *st = state_in(r.report, "fault/t001");
	CU_ASSERT(st && !strcmp(st, "timeout"));
	json_t *t = test_in(r.report, "fault/t001");
	const char *msg = t ? json_string_value(json_object_get(t, "m")) : NULL;
	CU_ASSERT(msg && !strncmp(msg, "stopped (state T)", 17));
	for (int i = 0; i < 4; i++) {
		char name[32];
		snprintf(name, sizeof(name), "fault/t%03d", i);
		if (i != 1) {
			const char *s = state_in(r.report, name);
			CU_ASSERT(s && !strcmp(s, "pass"));
		}
	}
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "is stopped (state T)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "'fault/t001'"));
	json_decref(r.report);
	remove_dir();
}

/* --no-progress refuses what is not a duration, naming it (exit 2). */
static void no_progress_usage(void)
{
	make_dir();
	run r;
	mg_run(&r, ARGV("run", "--no-progress", "soon", "--", FAULT64), NULL, 0);
	CU_ASSERT(exited(&r, 2));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "'soon'"));
	json_decref(r.report);
	remove_dir();
}

/* FNV-1a, as the ctest driver hashed its lock paths before they moved into
 * a directory of the user's own. */
static uint64_t fnv1a(const char *p)
{
	uint64_t h = 1469598103934665603ull;
	for (; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	return h;
}

static int entries(const char *path)
{
	int n = 0;
	DIR *d = opendir(path);
	struct dirent *e;
	while (d && (e = readdir(d)) != NULL)
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

/*
 * The ctest driver's locks in a shared TMPDIR where another user planted
 * links: at the old lock file names (to files root must not create) and at
 * the lock directory's name (to a directory of theirs), and took the next
 * name as a directory of their own. The run (a RUN_SERIAL test and two
 * sharing a RESOURCE_LOCK) passes, creates nothing through the links, and
 * leaves no lock directory or file of its own behind. Skipped (77) when not
 * root (the planted directories belong to nobody).
 */
static void ctest_lock_links(void)
{
	if (geteuid() != 0) {
		fprintf(stderr, "SKIP: needs root to plant another user's directory\n");
		exit(77);
	}
	make_dir();
	CU_ASSERT_FATAL(chmod(dir, 01777) == 0);
	char proj[160], real[4096], path[4300], victim[200], evil[200];
	snprintf(proj, sizeof(proj), "%s/proj", dir);
	CU_ASSERT_FATAL(mkdir(proj, 0755) == 0);
	write_file("proj/CMakeLists.txt",
	           "cmake_minimum_required(VERSION 3.16)\n"
	           "project(locks NONE)\n"
	           "enable_testing()\n"
	           "add_test(NAME serial COMMAND true)\n"
	           "set_tests_properties(serial PROPERTIES RUN_SERIAL TRUE)\n"
	           "add_test(NAME locked_a COMMAND true)\n"
	           "add_test(NAME locked_b COMMAND true)\n"
	           "set_tests_properties(locked_a locked_b PROPERTIES RESOURCE_LOCK db)\n");
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "'%s' -S '%s' -B '%s/build' >/dev/null", CMAKE_BIN, proj, proj);
	CU_ASSERT_FATAL(system(cmd) == 0);
	snprintf(path, sizeof(path), "%s/build", proj);
	CU_ASSERT_FATAL(realpath(path, real) != NULL);
	/* the old names: TMPDIR/memguard-ctest-UID-HASH(dir)-HASH(lock).lock */
	const char *locks[] = {"\001serial", "db"};
	for (int i = 0; i < 2; i++) {
		snprintf(victim, sizeof(victim), "%s/victim%d", dir, i);
		snprintf(path, sizeof(path), "%s/memguard-ctest-%ld-%016llx-%016llx.lock", dir,
		         (long)geteuid(), (unsigned long long)fnv1a(real),
		         (unsigned long long)fnv1a(locks[i]));
		CU_ASSERT_FATAL(symlink(victim, path) == 0);
	}
	/* the lock directory's name: a link to another user's directory; the
	 * next name: that user's own directory, open to all */
	snprintf(evil, sizeof(evil), "%s/evil", dir);
	CU_ASSERT_FATAL(mkdir(evil, 0777) == 0 && chmod(evil, 0777) == 0);
	CU_ASSERT_FATAL(chown(evil, 65534, 65534) == 0);
	snprintf(path, sizeof(path), "%s/memguard-ctest-%ld", dir, (long)geteuid());
	CU_ASSERT_FATAL(symlink(evil, path) == 0);
	snprintf(path, sizeof(path), "%s/memguard-ctest-%ld-1", dir, (long)geteuid());
	CU_ASSERT_FATAL(mkdir(path, 0777) == 0 && chmod(path, 0777) == 0);
	CU_ASSERT_FATAL(chown(path, 65534, 65534) == 0);

	char build[200];
	snprintf(build, sizeof(build), "%s/build", proj);
	run r;
	mg_run(&r,
	       ARGV("run", "-q", "-j", "2", "--report", "report.json", "--", CTEST_BIN,
	            "--test-dir", build),
	       NULL, 0);
	CU_ASSERT(exited(&r, 0));
	CU_ASSERT_FATAL(r.report != NULL);
	const char *names[] = {"serial", "locked_a", "locked_b"};
	for (int i = 0; i < 3; i++) {
		const char *st = state_in(r.report, names[i]);
		CU_ASSERT(st && !strcmp(st, "pass"));
	}
	json_decref(r.report);
	for (int i = 0; i < 2; i++) {
		snprintf(victim, sizeof(victim), "%s/victim%d", dir, i);
		CU_ASSERT_NOT_EQUAL(access(victim, F_OK), 0);
	}
	CU_ASSERT_EQUAL(entries(evil), 0);
	snprintf(path, sizeof(path), "%s/memguard-ctest-%ld-1", dir, (long)geteuid());
	CU_ASSERT_EQUAL(entries(path), 0);
	/* the directory it used (the next free name) is gone with its locks */
	snprintf(path, sizeof(path), "%s/memguard-ctest-%ld-2", dir, (long)geteuid());
	CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0);
	remove_dir();
}

/* memguard.json with a key twice (or as kill_at and kill-at): exit 2
 * naming the key, not the last one silently winning. */
static void config_duplicate_key(void)
{
	static const char *const configs[][2] = {
	    {"{\"timeout\": \"1s\", \"jobs\": 1, \"timeout\": \"9s\"}", "timeout"},
	    {"{\"kill_at\": \"va=3G\", \"kill-at\": \"va=2G\"}", "kill-at"}};
	make_dir();
	for (size_t i = 0; i < 2; i++) {
		write_file("memguard.json", configs[i][0]);
		run r;
		mg_run(&r, ARGV("run", "-q", "--", FAULT64), ENV("MG_FAULT_TESTS=2"), 0);
		CU_ASSERT(exited(&r, 2));
		CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "duplicate"));
		CU_ASSERT_PTR_NOT_NULL(strstr(r.err, configs[i][1]));
		json_decref(r.report);
	}
	remove_dir();
}

/* --timeout and --deadline past what an int of milliseconds holds (2,147,484
 * s and up): a plain run that passes (under UBSan too: no overflow when the
 * poll timeout is computed). */
static void huge_durations(void)
{
	make_dir();
	run r;
	mg_run(&r,
	       ARGV("run", "-q", "-j", "1", "--timeout", "2147484s", "--deadline", "100000h",
	            "--report", "report.json", "--", FAULT64),
	       ENV("MG_FAULT_TESTS=3", "MG_FAULT=slow@1"), 0);
	CU_ASSERT(exited(&r, 0));
	json_decref(r.report);
	remove_dir();
}

/* A --tests-from file with CRLF line ends (written on Windows): the names
 * are read without their CR and run. */
static void tests_from_crlf(void)
{
	make_dir();
	write_file("names.txt", "fault/t002\r\nfault/t000\r\n");
	run r;
	mg_run(&r,
	       ARGV("run", "-q", "-j", "1", "--tests-from", "names.txt", "--report", "report.json",
	            "--", FAULT64),
	       ENV("MG_FAULT_TESTS=4"), 0);
	CU_ASSERT(exited(&r, 0));
	CU_ASSERT_FATAL(r.report != NULL);
	const char *a = state_in(r.report, "fault/t002"), *b = state_in(r.report, "fault/t000");
	CU_ASSERT(a && !strcmp(a, "pass"));
	CU_ASSERT(b && !strcmp(b, "pass"));
	CU_ASSERT_PTR_NULL(test_in(r.report, "fault/t001"));
	json_decref(r.report);
	remove_dir();
}

/* memguard run with the exec driver listing list_cmd's lines, --tests-from
 * names.txt */
static void tests_from_listed(run *r, const char *list_cmd)
{
	mg_run(r,
	       ARGV("run", "-q", "-j", "1", "--driver", "exec", "--list-cmd", list_cmd,
	            "--tests-from", "names.txt", "--report", "report.json", "--", "true"),
	       NULL, 0);
}

/* A --tests-from name a listed one is but for white space at its end
 * (Catch2 lists "basic async test " and prints it trimmed everywhere): that
 * test runs, as listed; one listed twice so is refused, naming it. Before:
 * "the host does not list 'alpha'", exit 2. */
static void tests_from_trimmed(void)
{
	make_dir();
	write_file("names.txt", "alpha\n");
	run r;
	tests_from_listed(&r, "printf 'alpha \\nbeta\\n'");
	CU_ASSERT(exited(&r, 0));
	CU_ASSERT_FATAL(r.report != NULL);
	const char *a = state_in(r.report, "alpha ");
	CU_ASSERT(a && !strcmp(a, "pass"));
	CU_ASSERT_PTR_NULL(test_in(r.report, "beta"));
	json_decref(r.report);
	tests_from_listed(&r, "printf 'alpha \\n alpha\\n'");
	CU_ASSERT(exited(&r, 2));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "'alpha' is more than one listed name"));
	json_decref(r.report);
	remove_dir();
}

/* --contain pid as a user without root: exit 3 saying the PID namespace
 * was refused and what would do, not that a user namespace was (none was
 * tried). Runs as nobody (65534); skipped (77) when not root. */
static void contain_pid_unprivileged(void)
{
	if (geteuid() != 0) {
		fprintf(stderr, "SKIP: needs root to run memguard as nobody\n");
		exit(77);
	}
	make_dir();
	CU_ASSERT_FATAL(chown(dir, 65534, 65534) == 0);
	run r;
	mg_run(&r, ARGV("run", "-q", "--contain", "pid", "--", FAULT64), ENV("MG_FAULT_TESTS=2"),
	       65534);
	CU_ASSERT(exited(&r, 3));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "--contain pid: no PID namespace: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "--contain user; auto keeps a reaper"));
	CU_ASSERT_PTR_NULL(strstr(r.err, "none in a user namespace"));
	json_decref(r.report);
	remove_dir();
}

/* The default containment as nobody: a test sees the ids a plain run sees
 * (root's / owned by 0, a chown to another id refused with EPERM, not a
 * user namespace's 65534 and EINVAL: libuv's fs_chown and spawn_setuid
 * tests), and the report says the reaper held. Skipped (77) when not root. */
static void contain_auto_unprivileged(void)
{
	if (geteuid() != 0) {
		fprintf(stderr, "SKIP: needs root to run memguard as nobody\n");
		exit(77);
	}
	make_dir();
	CU_ASSERT_FATAL(chown(dir, 65534, 65534) == 0);
	char list[128];
	snprintf(list, sizeof(list), "%s/tests", dir);
	FILE *f = fopen(list, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs("ids\n", f);
	fclose(f);
	run r;
	mg_run(&r,
	       ARGV("run", "-q", "--report", "report.json", "--driver", "exec", "--list-file",
	            "tests", "--", "/bin/sh", "-c",
	            "test \"$(stat -c %u /)\" = 0 && touch f && chown 0 f 2>e; "
	            "grep -q 'not permitted' e",
	            "{}"),
	       NULL, 65534);
	CU_ASSERT(exited(&r, 0));
	CU_ASSERT_PTR_NOT_NULL_FATAL(r.report);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(r.report, "containment")),
	                       "reaper");
	json_t *t = test_in(r.report, "ids");
	CU_ASSERT_PTR_NOT_NULL(t);
	json_decref(r.report);
	remove_dir();
}

/* A host whose test name is 100 KB refuses to start and says why: the
 * run exits 3 with that line and a second one saying the host exited
 * before it started, not that it is no memguard host. */
static void long_test_name(void)
{
	make_dir();
	run r;
	mg_run(&r, ARGV("run", "-q", "--", LONG_NAME_HOST), NULL, 0);
	CU_ASSERT(exited(&r, 3));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "test 1 has an empty or over-long name"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "exited with status 3 before it started"));
	CU_ASSERT_PTR_NULL(strstr(r.err, "not a memguard host"));
	json_decref(r.report);
	remove_dir();
}

/* Output to a pipe nobody reads (a stuck CI log reader): once the pipe is
 * full memguard blocks writing its JUnit file to stdout; SIGTERM then ends
 * it at once, by that signal (the write used to restart, for ever). */
static void sigterm_blocked_stdout(void)
{
	make_dir();
	int p[2];
	CU_ASSERT_FATAL(pipe(p) == 0);
	char errp[128];
	snprintf(errp, sizeof(errp), "%s/stderr", dir);
	fflush(NULL);
	pid_t pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		int fe = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fe < 0 || dup2(p[1], 1) < 0 || dup2(fe, 2) < 0 || chdir(dir) < 0)
			_exit(126);
		close(p[0]);
		setenv("TMPDIR", dir, 1);
		setenv("MG_FAULT_TESTS", "3000", 1);
		unsetenv("CI");
		execl(MEMGUARD_BIN, MEMGUARD_BIN, "run", "-q", "-j", "1", "--adapter", "junit=-",
		      "--", FAULT64, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	/* wait for the pipe to fill (64 KiB), then a moment for the write to block */
	struct timespec tick = {0, 20 * 1000 * 1000};
	int queued = 0;
	for (int i = 0; i < RUN_LIMIT * 50 && queued < 65536; i++) {
		if (ioctl(p[0], FIONREAD, &queued) < 0)
			break;
		nanosleep(&tick, NULL);
	}
	CU_ASSERT(queued >= 65536);
	nanosleep(&(struct timespec){0, 300 * 1000 * 1000}, NULL);
	kill(pid, SIGTERM);
	int status = 0, waited = 0;
	pid_t w;
	while ((w = waitpid(pid, &status, WNOHANG)) == 0 && waited++ < RUN_LIMIT * 50)
		nanosleep(&tick, NULL);
	if (w != pid) {
		fprintf(stderr, "memguard did not end within %d s of SIGTERM: killed\n", RUN_LIMIT);
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		CU_FAIL("SIGTERM did not end a blocked write");
	} else {
		CU_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	}
	close(p[0]);
	remove_dir();
}

static const mg_case cases[] = {
    {"fifo_output", fifo_output},
    {"symlink_report", symlink_report},
    {"stopped_host", stopped_host},
    {"no_progress_usage", no_progress_usage},
    {"ctest_lock_links", ctest_lock_links},
    {"config_duplicate_key", config_duplicate_key},
    {"huge_durations", huge_durations},
    {"tests_from_crlf", tests_from_crlf},
    {"tests_from_trimmed", tests_from_trimmed},
    {"contain_pid_unprivileged", contain_pid_unprivileged},
    {"contain_auto_unprivileged", contain_auto_unprivileged},
    {"long_test_name", long_test_name},
    {"sigterm_blocked_stdout", sigterm_blocked_stdout},
};

int main(int argc, char **argv)
{
	return mg_test_main("hostile", cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}

/*
 * mg_run.h - running the real memguard binary from a CUnit test: exit
 * status, stdout/stderr and the JSON report (read back with Jansson), and
 * small queries on that report. Header only (static inline: a test program
 * uses what it needs); ARGV needs MEMGUARD_BIN, the binary under test.
 */
#ifndef MG_RUN_H
#define MG_RUN_H

#include "mg_x86.h"

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

#include "mg_test.h"

/* When set, mg() runs its command inside this cgroup (the path of its
 * cgroup.procs file): the child moves itself there before exec. */
static const char *mg_run_cgroup_procs;

/* The signal mg() sends after term_after_ms (0: SIGTERM). */
static int mg_run_signal;

/* When > 0, the signal waits first until this many of fault_host's hang
 * marks (MG_FAULT_HANG_MARK, set to the test's directory) exist: the run has
 * reached its hanging tests whatever the machine's load. */
static int mg_run_signal_marks;

/* When set, the signal is sent a second time once the report is being
 * written (its temporary file, report.json.tmp.*, is there): the same stop
 * again, as timeout(1) sends it to memguard and then to its process group. */
static int mg_run_signal_again;

/* The number of entries of dir whose name starts with prefix. */
static inline int mg_dir_count(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	while (d && (e = readdir(d)))
		n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
	if (d)
		closedir(d);
	return n;
}

/* The number of entries of dir whose name starts with "hang.". */
static inline int mg_hang_marks(const char *dir)
{
	return mg_dir_count(dir, "hang.");
}

typedef struct outcome {
	int status; /* as waitpid gives it */
	char out[1 << 16];
	char err[1 << 16];
	json_t *report; /* NULL when none was written */
	char dir[64];
} outcome;

/*
 * A memguard-report/2 document's tests (short keys, defaults left out: see
 * adapters/report.schema.json) rewritten in place with the model's long
 * names and every default filled in, so the assertions read "state",
 * "va_after", ... whatever the layout. The result is the same report in the
 * layout of memguard-report/1 (and says so): written back to a file, memguard
 * reads it as /1. A /1 document is left as it is.
 */
static inline void mg_report_expand(json_t *report)
{
	static const char *const from[] = {"n",  "s",   "m",   "o",    "g",  "a", "d",
	                                   "va", "rss", "dva", "drss", "pk", "nc"};
	static const char *const to[] = {"name",        "state",    "message",   "output",
	                                 "generation",  "attempts", "duration",  "va_after",
	                                 "rss_after",   "va_delta", "rss_delta", "va_peak",
	                                 "near_ceiling"};
	const char *schema = json_string_value(json_object_get(report, "schema"));
	size_t i, k;
	json_t *s, *t;
	if (!schema || strcmp(schema, "memguard-report/2") != 0)
		return;
	json_object_set_new(report, "schema", json_string("memguard-report/1"));
	json_array_foreach(json_object_get(report, "shards"), i, s)
	{
		json_array_foreach(json_object_get(s, "tests"), k, t)
		{
			json_t *o =
			    json_pack("{s:s,s:i,s:i,s:f,s:i,s:i,s:i,s:i}", "state", "pass",
			              "generation", 0, "attempts", 1, "duration", 0.0, "va_after",
			              0, "rss_after", 0, "va_delta", 0, "rss_delta", 0);
			for (size_t f = 0; f < sizeof(from) / sizeof(from[0]); f++)
				if (json_object_get(t, from[f]))
					json_object_set(o, to[f], json_object_get(t, from[f]));
			json_array_set_new(json_object_get(s, "tests"), k, o);
		}
	}
}

static inline char *slurp(const char *path, char *buf, size_t cap)
{
	buf[0] = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return buf;
	size_t n = fread(buf, 1, cap - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

/*
 * Runs argv with extra environment entries (NULL-terminated, may be NULL),
 * the report written to DIR/report.json. With term_after_ms > 0 the runner
 * gets SIGTERM (mg_run_signal) after that long (after mg_run_signal_marks
 * hang marks, when set).
 */
static inline void mg(outcome *o, const char *const *argv, const char *const *env,
                      int term_after_ms)
{
	char outp[128], errp[128];
	memset(o, 0, sizeof(*o));
	snprintf(o->dir, sizeof(o->dir), "/tmp/mg-it-XXXXXX");
	CU_ASSERT_FATAL(mkdtemp(o->dir) != NULL);
	snprintf(outp, sizeof(outp), "%s/stdout", o->dir);
	snprintf(errp, sizeof(errp), "%s/stderr", o->dir);
	fflush(NULL);
	pid_t pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		int fo = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int fe = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fo, 1);
		dup2(fe, 2);
		if (mg_run_cgroup_procs) {
			FILE *cg = fopen(mg_run_cgroup_procs, "w");
			if (!cg || fprintf(cg, "%d\n", (int)getpid()) < 0 || fclose(cg) != 0)
				_exit(125);
		}
		if (chdir(o->dir) < 0)
			_exit(126);
		/* what the run leaves in TMPDIR goes with the test's directory */
		setenv("TMPDIR", o->dir, 1);
		if (mg_run_signal_marks > 0)
			setenv("MG_FAULT_HANG_MARK", o->dir, 1);
		for (size_t i = 0; env && env[i]; i++)
			putenv((char *)env[i]);
		unsetenv("CI");
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	/* the marks, polled for at most 120 s (then the signal goes anyway and
	 * the test's assertions say what the run had reached) */
	for (int waited = 0;
	     term_after_ms > 0 && waited < 12000 && mg_hang_marks(o->dir) < mg_run_signal_marks;
	     waited++) {
		struct timespec tick = {0, 10 * 1000000L};
		nanosleep(&tick, NULL);
	}
	if (term_after_ms > 0) {
		struct timespec ts = {term_after_ms / 1000, (term_after_ms % 1000) * 1000000L};
		nanosleep(&ts, NULL);
		kill(pid, mg_run_signal ? mg_run_signal : SIGTERM);
		/* polled for at most 30 s, every 0.2 ms (the report of a large
		 * run takes tens of ms to write) */
		for (int waited = 0; mg_run_signal_again && waited < 150000 &&
		                     !mg_dir_count(o->dir, "report.json.tmp.");
		     waited++) {
			struct timespec tick = {0, 200 * 1000L};
			nanosleep(&tick, NULL);
		}
		if (mg_run_signal_again)
			kill(pid, mg_run_signal ? mg_run_signal : SIGTERM);
	}
	while (waitpid(pid, &o->status, 0) < 0 && errno == EINTR)
		;
	slurp(outp, o->out, sizeof(o->out));
	slurp(errp, o->err, sizeof(o->err));
	char rp[128];
	snprintf(rp, sizeof(rp), "%s/report.json", o->dir);
	json_error_t je;
	o->report = json_load_file(rp, 0, &je);
	if (o->report)
		mg_report_expand(o->report);
}

static inline void done(outcome *o)
{
	char cmd[160];
	json_decref(o->report);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", o->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", o->dir);
}

static inline int exited_with(const outcome *o, int code)
{
	if (!WIFEXITED(o->status) || WEXITSTATUS(o->status) != code) {
		fprintf(stderr, "status: %s %d (wanted exit %d)\nstdout:\n%s\nstderr:\n%s\n",
		        WIFEXITED(o->status) ? "exit" : "signal",
		        WIFEXITED(o->status) ? WEXITSTATUS(o->status) : WTERMSIG(o->status), code,
		        o->out, o->err);
		return 0;
	}
	return 1;
}

/* 1 if the run died of signal sig (memguard re-raises SIGINT/SIGTERM once
 * every host is ended and the report written). */
static inline int killed_by(const outcome *o, int sig)
{
	if (!WIFSIGNALED(o->status) || WTERMSIG(o->status) != sig) {
		fprintf(stderr, "status: %s %d (wanted signal %d)\nstdout:\n%s\nstderr:\n%s\n",
		        WIFEXITED(o->status) ? "exit" : "signal",
		        WIFEXITED(o->status) ? WEXITSTATUS(o->status) : WTERMSIG(o->status), sig,
		        o->out, o->err);
		return 0;
	}
	return 1;
}

static inline json_int_t count(json_t *report, const char *state)
{
	json_int_t n = 0;
	size_t i;
	json_t *s;
	json_array_foreach(json_object_get(report, "shards"), i, s) n +=
	    json_integer_value(json_object_get(json_object_get(s, "counts"), state));
	return n;
}

static inline json_int_t shard_sum(json_t *report, const char *field)
{
	json_int_t n = 0;
	size_t i;
	json_t *s;
	json_array_foreach(json_object_get(report, "shards"), i, s) n +=
	    json_integer_value(json_object_get(s, field));
	return n;
}

/* The largest of a shard figure over the shards. */
static inline json_int_t shard_max(json_t *report, const char *field)
{
	json_int_t n = 0;
	size_t i;
	json_t *s;
	json_array_foreach(json_object_get(report, "shards"), i, s)
	{
		json_int_t v = json_integer_value(json_object_get(s, field));
		n = v > n ? v : n;
	}
	return n;
}

/* The report's entry for test name (searching every shard). */
static inline json_t *find_test(json_t *report, const char *name)
{
	size_t i, k;
	json_t *s, *t;
	json_array_foreach(json_object_get(report, "shards"), i, s) json_array_foreach(
	    json_object_get(s, "tests"), k,
	    t) if (!strcmp(json_string_value(json_object_get(t, "name")), name)) return t;
	return NULL;
}

/* Every shard of report ran arch (the program's, from its ELF), and it has one. */
static inline int mg_shards_arch(json_t *report, const char *arch)
{
	size_t i;
	json_t *s;
	int n = 0;
	json_array_foreach(json_object_get(report, "shards"), i, s)
	{
		const char *a = json_string_value(json_object_get(s, "arch"));
		if (!a || strcmp(a, arch)) {
			fprintf(stderr, "shard %zu: arch %s, wanted %s\n", i, a ? a : "(none)",
			        arch);
			return 0;
		}
		n++;
	}
	return n > 0;
}

static inline const char *state_of(json_t *report, const char *name)
{
	json_t *t = find_test(report, name);
	return t ? json_string_value(json_object_get(t, "state")) : "(missing)";
}

/* The message of the named test in the report, or NULL. */
static inline const char *message_of(json_t *report, const char *name)
{
	json_t *t = find_test(report, name);
	return t ? json_string_value(json_object_get(t, "message")) : NULL;
}

/* The output the report kept for the named test ("" when none). */
static inline const char *output_of(json_t *report, const char *name)
{
	json_t *t = find_test(report, name);
	const char *out = t ? json_string_value(json_object_get(t, "output")) : NULL;
	return out ? out : "";
}

/* Asserts the named test's state, saying what it was when it differs. */
static inline void expect_state(json_t *report, const char *name, const char *state)
{
	const char *st = state_of(report, name);
	if (strcmp(st, state))
		fprintf(stderr, "%s: %s, wanted %s\n", name, st, state);
	CU_ASSERT_STRING_EQUAL(st, state);
}

/* Asserts the named test's message holds part, saying what it was when not. */
static inline void expect_message(json_t *report, const char *name, const char *part)
{
	const char *m = message_of(report, name);
	if (!m || !strstr(m, part))
		fprintf(stderr, "%s: message %s, wanted it to hold '%s'\n", name, m ? m : "(none)",
		        part);
	CU_ASSERT(m && strstr(m, part));
}

/*
 * The live processes whose environment holds tag ("NAME=VALUE") exactly,
 * found by a scan of every /proc/PID/environ (a zombie's reads empty); their
 * pids into out (at most cap, out may be NULL). How a test finds what a run
 * left behind without asking it: inside memguard's PID namespace a process
 * knows no pid the test could use.
 */
static inline int mg_tagged(const char *tag, pid_t *out, int cap)
{
	int n = 0;
	size_t tl = strlen(tag);
	char path[300];
	static char buf[1 << 16];
	DIR *d = opendir("/proc");
	struct dirent *e;
	while (d && (e = readdir(d)) != NULL) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/environ", e->d_name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		for (ssize_t i = 0; len > 0 && i + (ssize_t)tl <= len;) {
			if (!memcmp(buf + i, tag, tl) && (i + (ssize_t)tl == len || !buf[i + tl])) {
				if (out && n < cap)
					out[n] = (pid_t)atoi(e->d_name);
				n++;
				break;
			}
			char *z = memchr(buf + i, 0, (size_t)(len - i));
			if (!z)
				break;
			i = z - buf + 1;
		}
	}
	if (d)
		closedir(d);
	return n;
}

/* mg_tagged after up to 3 s for the kernel to end what was killed. */
static inline int mg_tagged_left(const char *tag, pid_t *out, int cap)
{
	int n = 0;
	for (int i = 0; i < 150 && (n = mg_tagged(tag, out, cap)) > 0; i++)
		nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
	return n;
}

/* The report as written (mg_report_expand keeps only the test fields it
 * knows): the caller's reference, NULL when none. */
static inline json_t *mg_raw_report(const outcome *o)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/report.json", o->dir);
	return json_load_file(path, 0, NULL);
}

/* Test `test`'s sites in a report as written (short keys: "n"), NULL when
 * it has none. */
static inline json_t *mg_sites_of(json_t *raw, const char *test)
{
	size_t i, k;
	json_t *s, *t;
	json_array_foreach(json_object_get(raw, "shards"), i, s)
	{
		json_array_foreach(json_object_get(s, "tests"), k, t)
		{
			const char *n = json_string_value(json_object_get(t, "n"));
			if (n && !strcmp(n, test))
				return json_object_get(t, "sites");
		}
	}
	return NULL;
}

/* The program's own exit status when run directly (stdout, stderr dropped). */
static inline int mg_direct_status(const char *prog)
{
	char cmd[4096];
	snprintf(cmd, sizeof(cmd), "'%s' >/dev/null 2>&1", prog);
	int st = system(cmd);
	CU_ASSERT_FATAL(st != -1 && WIFEXITED(st));
	return WEXITSTATUS(st);
}

/* prog run directly with args (NULL-terminated, at most 6) and env
 * ("NAME=VALUE" or NULL), stdout and stderr dropped: its exit status (a
 * death by a signal fails the test). */
static inline int mg_direct_argv(const char *prog, const char *const *args, const char *env)
{
	const char *argv[8] = {prog};
	for (int i = 0; args[i] && i < 6; i++)
		argv[i + 1] = args[i];
	fflush(NULL);
	pid_t pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
			_exit(126);
		if (env)
			putenv((char *)env);
		execv(prog, (char *const *)argv);
		_exit(127);
	}
	int st = -1;
	CU_ASSERT_FATAL(waitpid(pid, &st, 0) == pid);
	CU_ASSERT_FATAL(WIFEXITED(st));
	CU_ASSERT(!WIFSIGNALED(st));
	return WEXITSTATUS(st);
}

#ifdef MEMGUARD_BIN
/* memguard run -j lanes --driver catch2 [--recycle-at recycle] -- prog
 * [spec] (spec, recycle: NULL for none), prog being catch2_argv.cpp built
 * for v2 or v3 (its command line in argv.log for each test): exit 1, the
 * first tests of its list in the direct run's states ("b fails" fails,
 * every other one passes), none in error. */
static inline void mg_catch2_argv_run(outcome *o, const char *prog, const char *lanes,
                                      const char *recycle, const char *spec, size_t tests)
{
	static const char *const names[] = {"a passes", "b fails", "#c hash name", "d passes",
	                                    "e passes"};
	const char *const env[] = {"C2_ARGV_LOG=argv.log", "C2_LIST_LOG=list.log", NULL};
	const char *argv[16];
	int n = 0;
	argv[n++] = MEMGUARD_BIN;
	argv[n++] = "run";
	argv[n++] = "-j";
	argv[n++] = lanes;
	argv[n++] = "--driver";
	argv[n++] = "catch2";
	if (recycle) {
		argv[n++] = "--recycle-at";
		argv[n++] = recycle;
	}
	argv[n++] = "--report";
	argv[n++] = "report.json";
	argv[n++] = "--";
	argv[n++] = prog;
	if (spec)
		argv[n++] = spec;
	argv[n] = NULL;
	mg(o, argv, env, 0);
	CU_ASSERT(exited_with(o, 1));
	CU_ASSERT_FATAL(o->report != NULL);
	for (size_t i = 0; i < tests && i < 5; i++)
		expect_state(o->report, names[i], i == 1 ? "fail" : "pass");
	CU_ASSERT_EQUAL(count(o->report, "pass") + count(o->report, "fail"), (json_int_t)tests);
	CU_ASSERT_EQUAL(count(o->report, "error"), 0);
}
#endif

/* The lines of o's argv.log (catch2_argv.cpp: the command line of the
 * program that ran each test), NUL-separated in buf; their count. */
static inline size_t mg_argv_log(const outcome *o, char *buf, size_t cap, const char **line,
                                 size_t max)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/argv.log", o->dir);
	FILE *f = fopen(path, "r");
	CU_ASSERT_FATAL(f != NULL);
	size_t len = fread(buf, 1, cap - 1, f), n = 0;
	fclose(f);
	buf[len] = 0;
	for (char *p = buf; *p && n < max;) {
		char *nl = strchr(p, '\n');
		line[n++] = p;
		if (!nl)
			break;
		*nl = 0;
		p = nl + 1;
	}
	return n;
}

/* How many lines of path start with prefix (any size of file; 0 when
 * there is no file). */
static inline long mg_lines_in(const char *path, const char *prefix)
{
	char line[4096];
	long n = 0;
	FILE *f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		n += !strncmp(line, prefix, strlen(prefix));
	if (f)
		fclose(f);
	return n;
}

/* The reason of the first shard's generation number gen (NULL: none). */
static inline const char *mg_gen_reason(json_t *report, size_t gen)
{
	json_t *s = json_array_get(json_object_get(report, "shards"), 0);
	json_t *g = json_array_get(json_object_get(s, "generations"), gen);
	return json_string_value(json_object_get(g, "reason"));
}

/*
 * A JUnit file's first <testsuite> start tag: its attributes' names in
 * order, space-separated, into names (cap bytes); its timestamp's value
 * into stamp (32 bytes, "" without one). 0, or -1 without such a tag.
 */
static inline int mg_junit_suite_attrs(const char *path, char *names, size_t cap, char *stamp)
{
	static char buf[1 << 16];
	names[0] = stamp[0] = 0;
	const char *p = slurp(path, buf, sizeof(buf)) ? strstr(buf, "<testsuite ") : NULL;
	if (!p)
		return -1;
	size_t n = 0;
	for (p += sizeof("<testsuite ") - 1; *p && *p != '>' && *p != '/';) {
		const char *eq = strchr(p, '='),
		           *q = eq && eq[1] == '"' ? strchr(eq + 2, '"') : NULL;
		if (!q)
			return -1;
		if (n + (size_t)(eq - p) + 2 < cap)
			n += (size_t)snprintf(names + n, cap - n, "%s%.*s", n ? " " : "",
			                      (int)(eq - p), p);
		if (eq - p == 9 && !strncmp(p, "timestamp", 9))
			snprintf(stamp, 32, "%.*s", (int)(q - eq - 2), eq + 2);
		for (p = q + 1; *p == ' ' || *p == '\n'; p++)
			;
	}
	return 0;
}

/* Each of the n programs started directly (no memguard, no tables, this
 * environment, its output ours): every test passes, exit 0, no signal. */
static inline void mg_direct_passes(const char *const *progs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int st = -1;
		fflush(NULL);
		pid_t pid = fork();
		CU_ASSERT_FATAL(pid >= 0);
		if (pid == 0) {
			execl(progs[i], progs[i], (char *)NULL);
			_exit(127);
		}
		CU_ASSERT_FATAL(waitpid(pid, &st, 0) == pid);
		CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		CU_ASSERT(!WIFSIGNALED(st));
	}
}

#define ARGV(...)                                                                                  \
	(const char *const[])                                                                      \
	{                                                                                          \
		MEMGUARD_BIN, __VA_ARGS__, NULL                                                    \
	}
#define ENV(...)                                                                                   \
	(const char *const[])                                                                      \
	{                                                                                          \
		__VA_ARGS__, NULL                                                                  \
	}

#ifdef MEMGUARD_BIN
/*
 * Runs prog under memguard's driver (gtest, catch2) with lanes lanes,
 * recycle_at its --recycle-at (NULL: none) and env (may be NULL), the
 * report in o: a report must be written.
 */
static inline void mg_driver_run(outcome *o, const char *driver, const char *prog,
                                 const char *lanes, const char *recycle_at, const char *const *env)
{
	if (recycle_at)
		mg(o,
		   ARGV("run", "-j", lanes, "--driver", driver, "--recycle-at", recycle_at,
		        "--report", "report.json", "--", prog),
		   env, 0);
	else
		mg(o,
		   ARGV("run", "-j", lanes, "--driver", driver, "--report", "report.json", "--",
		        prog),
		   env, 0);
	CU_ASSERT_FATAL(o->report != NULL);
}
#endif

#endif

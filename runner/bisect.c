/*
 * bisect.c - "memguard bisect": re-runs the tests a crashed or killed host
 * had run, in fresh hosts, halving the set until the test (or the few tests)
 * that make the target fail are named. Every run is a child "memguard run"
 * (this executable) read back through its report; never runs a host itself.
 * The plan from a report (which tests a host ran) is in bisect_plan.c.
 */
#include "bisect.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atomic.h"
#include "run.h"
#include "spawn.h"

#define MAX_PASS 64 /* run options passed through */

static const char usage[] =
    "usage: memguard bisect [--report REPORT.json] [--shard N] [--generation G]\n"
    "                       [--crash NAME] [--out PATH] [run options...] -- HOST...\n"
    "\n"
    "Re-runs the tests a crashed or killed host had run, in fresh hosts (memguard run\n"
    "--tests-from, -j 1), halving the set to name the test, or the few tests, that\n"
    "make the target fail when they run before it.\n"
    "\n"
    "  --report PATH    the run's report: the tests of the host that crashed or was\n"
    "                   killed, in order, then the test it was running (and the\n"
    "                   seed memguard drew for its programs, given to each run's)\n"
    "  --shard N        that shard (N or NODE.N; default: the first with one)\n"
    "  --generation G   that host generation (default: the target's host, else the\n"
    "                   first that crashed or was killed)\n"
    "  --crash NAME     the target test; without --report every test listed before\n"
    "                   NAME is a candidate\n"
    "  --out PATH       also write the result as JSON (memguard-bisect/1)\n"
    "  --keep           keep the runs' files (tests, reports, logs)\n"
    "  --config PATH    the run's config file (default ./memguard.json if present);\n"
    "                   its adapters, report, jobs and the like are left out\n"
    "  other options before -- are passed to memguard run (limits, --timeout, ...)\n"
    "\n"
    "Exit codes: 0 found (printed), 1 not reproducible, 2 usage, 3 infrastructure.\n";

/* ---- the search ---------------------------------------------------------- */

/* Asks fn about the prefix [0, k) plus the needed tests (all >= k). */
static int ask(bisect_result *out, bisect_oracle fn, void *ctx, size_t *buf, size_t k,
               const size_t *needed, size_t nneeded)
{
	for (size_t i = 0; i < k; i++)
		buf[i] = i;
	if (nneeded)
		memcpy(buf + k, needed, nneeded * sizeof(*needed));
	out->runs++;
	return fn(ctx, buf, k + nneeded);
}

int bisect_search(bisect_result *out, size_t ncand, bisect_oracle fn, void *ctx)
{
	size_t needed[BISECT_MAX_CULPRITS];
	size_t nneeded = 0;
	size_t *buf = calloc(ncand + 1, sizeof(*buf));
	int rc;
	memset(out, 0, sizeof(*out));
	if (!buf)
		abort();
	rc = ask(out, fn, ctx, buf, ncand, NULL, 0);
	if (rc <= 0)
		goto done;
	out->reproduced = 1;
	out->prefix = ncand;
	if (ncand == 0) {
		out->alone = 1;
		goto done;
	}
	rc = ask(out, fn, ctx, buf, 0, NULL, 0);
	if (rc < 0)
		goto done;
	if (rc) {
		out->alone = 1;
		out->prefix = 0;
		goto done;
	}
	/* Invariant: prefix [0, hi) + needed fails, [0, lo) + needed does not. */
	size_t limit = ncand;
	for (;;) {
		size_t lo = 0, hi = limit;
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;
			rc = ask(out, fn, ctx, buf, mid, needed, nneeded);
			if (rc < 0)
				goto done;
			if (rc)
				hi = mid;
			else
				lo = mid;
		}
		if (nneeded == 0)
			out->prefix = hi;
		/* keep needed ascending: the new one comes before all found so far */
		memmove(needed + 1, needed, nneeded * sizeof(*needed));
		needed[0] = hi - 1;
		nneeded++;
		limit = hi - 1;
		/* prefix [0, 1) plus the needed before is the needed now: it is
		 * known to fail, no run needed to confirm it */
		if (limit == 0)
			break;
		rc = ask(out, fn, ctx, buf, 0, needed, nneeded);
		if (rc < 0)
			goto done;
		if (rc)
			break;
		if (nneeded == BISECT_MAX_CULPRITS) {
			/* the most it looks for, and they alone are not enough */
			out->cumulative = 1;
			break;
		}
	}
	memcpy(out->culprits, needed, nneeded * sizeof(*needed));
	out->nculprits = nneeded;
	rc = 0;
done:
	free(buf);
	return rc < 0 ? rc : 0;
}

/* ---- running ---------------------------------------------------------------- */

typedef struct bisect_ctx {
	const bisect_plan *plan;
	char exe[4096];
	char dir[256];
	char config[512]; /* the run's config file as bisect runs use it; "": none */
	char **pass;      /* run options passed through */
	size_t npass;
	char **host; /* after -- */
	int nhost;
	/* the report's seed (report.seed: one memguard drew for the run's
	 * programs), given to each run's program as the user's own, so that
	 * it runs the tests in the crashed host's order: "--gtest_random_seed=N"
	 * after the command, or "--rng-seed N" in place of the user's; "": none */
	char seed[64];
	unsigned run;
	int keep;
	int keep_asked;  /* --keep */
	int interrupted; /* 128 + a stop signal: a run was interrupted */
} bisect_ctx;

/* The signal (one of run_stop_signals, the list "memguard run" stops on)
 * that asked bisect to stop, and the child it is waiting for, which is told
 * the same. */
static volatile sig_atomic_t stop_signal;
static volatile pid_t running_child;

static void on_stop(int sig)
{
	int saved = errno;
	stop_signal = sig;
	pid_t pid = running_child;
	if (pid > 0)
		kill(pid, sig);
	errno = saved;
}

static void install_stop_handlers(struct sigaction old[RUN_NSTOP_SIGNALS])
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	stop_signal = 0;
	running_child = 0;
	for (size_t i = 0; i < RUN_NSTOP_SIGNALS; i++)
		sigaction(run_stop_signals[i], &sa, &old[i]);
}

static void restore_stop_handlers(const struct sigaction old[RUN_NSTOP_SIGNALS])
{
	for (size_t i = 0; i < RUN_NSTOP_SIGNALS; i++)
		sigaction(run_stop_signals[i], &old[i], NULL);
}

/* Runs argv with stdout into out_path and stderr into err_path (the same
 * file when they are equal); *status how it ended. A stop signal to
 * bisect is passed on to it (it ends its hosts) and waited for.
 * -1 when it could not be started (or bisect was told to stop before). */
static int run_child(char **argv, const char *out_path, const char *err_path, mg_exit_end *status)
{
	sigset_t block, old;
	sigemptyset(&block);
	for (size_t i = 0; i < RUN_NSTOP_SIGNALS; i++)
		sigaddset(&block, run_stop_signals[i]);
	fflush(NULL);
	/* no signal between the fork and running_child being set */
	sigprocmask(SIG_BLOCK, &block, &old);
	if (stop_signal) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		errno = EINTR;
		return -1;
	}
	int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int fe = strcmp(out_path, err_path)
	             ? open(err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)
	             : fd;
	spawn_proc *p = NULL;
	spawn_options so = SPAWN_OPTIONS_INIT;
	so.flags = 0; /* bisect's own group: a signal to it is passed on by hand */
	so.stdout_fd = fd;
	so.stderr_fd = fe;
	so.pdeathsig = SIGTERM; /* it ends its hosts and leaves if we die */
	int rc = fd >= 0 && fe >= 0 ? spawn_start(&p, argv[0], argv, &so, NULL) : -1;
	if (fe >= 0 && fe != fd)
		close(fe);
	if (fd >= 0)
		close(fd);
	if (rc < 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		return -1;
	}
	running_child = spawn_pid(p);
	sigprocmask(SIG_SETMASK, &old, NULL);
	rc = spawn_wait(p, 0, status, NULL) == 1 ? 0 : -1;
	running_child = 0;
	spawn_free(p);
	return rc;
}

static void path_in(const bisect_ctx *c, char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", c->dir, name);
}

/* The argv of "memguard CMD [fixed...] [passed options] -- HOST..." (malloc'd,
 * pointers into c and fixed). */
static char **child_argv(const bisect_ctx *c, const char *cmd, char **fixed, size_t nfixed)
{
	char **argv = calloc(4 + nfixed + c->npass + 1 + (size_t)c->nhost + 3, sizeof(*argv));
	size_t k = 0;
	if (!argv)
		abort();
	argv[k++] = (char *)c->exe;
	argv[k++] = (char *)cmd;
	if (c->config[0]) {
		argv[k++] = "--config";
		argv[k++] = (char *)c->config;
	}
	for (size_t i = 0; i < nfixed; i++)
		argv[k++] = fixed[i];
	for (size_t i = 0; i < c->npass; i++)
		argv[k++] = c->pass[i];
	argv[k++] = "--";
	int catch2_seed = !strncmp(c->seed, "--rng-seed ", 11);
	for (int i = 0; i < c->nhost; i++) {
		const char *a = c->host[i];
		if (i && catch2_seed && !strncmp(a, "--rng-seed", 10) &&
		    (!a[10] || a[10] == '=' || a[10] == ':')) {
			i += !a[10]; /* Catch2 takes the option once: the report's */
			continue;
		}
		argv[k++] = c->host[i];
	}
	if (catch2_seed) {
		argv[k++] = "--rng-seed";
		argv[k++] = (char *)c->seed + 11;
	} else if (c->seed[0]) {
		argv[k++] = (char *)c->seed;
	}
	return argv;
}

static int is_stop_signal(int sig)
{
	for (size_t i = 0; i < RUN_NSTOP_SIGNALS; i++)
		if (run_stop_signals[i] == sig)
			return 1;
	return 0;
}

/* The exit code of an interrupted bisect (128 + the stop signal: 130
 * SIGINT, 143 SIGTERM, 129 SIGHUP, ...): told to stop itself, or its child
 * was; 0: neither. */
static int interrupted_code(mg_exit_end status)
{
	if (stop_signal)
		return 128 + stop_signal;
	if (status.signo && is_stop_signal(status.signo))
		return 128 + status.signo;
	if (!status.signo && status.status > 128 && is_stop_signal(status.status - 128))
		return status.status;
	return 0;
}

/* Did the target fail the way it did before? */
static int failed_again(const report_test *t, report_end failure)
{
	int killed = t->attempts > 1 || t->state == TEST_MEMLIMIT;
	switch (failure) {
	case REPORT_END_CRASH:
	case REPORT_END_KILL:
		return killed || t->state == TEST_CRASH; /* a crash near the limit is a kill */
	case REPORT_END_TIMEOUT:
		return t->state == TEST_TIMEOUT;
	case REPORT_END_ERROR:
		return t->state == TEST_ERROR;
	default:
		return killed || t->state == TEST_CRASH || t->state == TEST_TIMEOUT ||
		       t->state == TEST_ERROR;
	}
}

static int oracle(void *ctx, const size_t *idx, size_t n)
{
	bisect_ctx *c = ctx;
	const bisect_plan *p = c->plan;
	const char *target = p->names[p->n - 1];
	char tests[512], rep[512], log[512];
	mg_err err;
	c->run++;
	path_in(c, tests, sizeof(tests), "tests.txt");
	snprintf(rep, sizeof(rep), "%s/run-%u.json", c->dir, c->run);
	snprintf(log, sizeof(log), "%s/run-%u.log", c->dir, c->run);
	FILE *f = fopen(tests, "w");
	if (!f) {
		fprintf(stderr, "memguard bisect: %s: %s\n", tests, strerror(errno));
		return -MG_EXIT_INFRA;
	}
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s\n", p->names[idx[i]]);
	fprintf(f, "%s\n", target);
	if (fclose(f) != 0) {
		fprintf(stderr, "memguard bisect: %s: %s\n", tests, strerror(errno));
		return -MG_EXIT_INFRA;
	}
	char *fixed[] = {"--node",   "1/1", "-j",           "1",  "--quiet",
	                 "--report", rep,   "--tests-from", tests};
	char **argv = child_argv(c, "run", fixed, sizeof(fixed) / sizeof(fixed[0]));
	mg_exit_end status = {0, 0, 0};
	int rc = run_child(argv, log, log, &status);
	free(argv);
	if ((c->interrupted = interrupted_code(status)) != 0) {
		fprintf(stderr, "memguard bisect: interrupted\n");
		return -MG_EXIT_INFRA;
	}
	if (rc < 0) {
		fprintf(stderr, "memguard bisect: cannot start %s: %s\n", c->exe, strerror(errno));
		return -MG_EXIT_INFRA;
	}
	if (!status.signo && status.status == 2) {
		fprintf(stderr, "memguard bisect: memguard run refused the options (see %s)\n",
		        log);
		c->keep = 1;
		return -MG_EXIT_USAGE;
	}
	report *r = NULL;
	if (report_load(&r, rep, &err) < 0) {
		fprintf(stderr, "memguard bisect: run %u wrote no report (%s; see %s)\n", c->run,
		        err.msg, log);
		c->keep = 1;
		return -MG_EXIT_INFRA;
	}
	/* exactly the tests asked for, or the runner ignored --tests-from */
	size_t seen = 0;
	const report_test *t = NULL;
	for (size_t i = 0; i < r->nshards; i++) {
		seen += r->shards[i].ntests;
		for (size_t k = 0; k < r->shards[i].ntests; k++)
			if (r->shards[i].tests[k].name &&
			    !strcmp(r->shards[i].tests[k].name, target))
				t = &r->shards[i].tests[k];
	}
	if (seen != n + 1 || !t) {
		fprintf(stderr,
		        "memguard bisect: memguard run did not run exactly the %zu tests of "
		        "--tests-from (it ran %zu%s; see %s)\n",
		        n + 1, seen, t ? "" : ", not the target", rep);
		report_free(r);
		c->keep = 1;
		return -MG_EXIT_INFRA;
	}
	int again = failed_again(t, p->failure);
	fprintf(stderr, "memguard bisect: run %u: %zu test%s, then %s: %s%s: %s\n", c->run, n,
	        n == 1 ? "" : "s", target, report_state_name(t->state),
	        t->attempts > 1 ? " (killed, retried)" : "",
	        again ? "fails again" : "does not fail");
	report_free(r);
	if (!c->keep) {
		unlink(rep);
		unlink(log);
	}
	return again;
}

/*
 * The run's config file (PATH, else ./memguard.json if there is one) minus
 * what would make a bisect run write outside its directory or change its
 * shape: adapters, report, jobs, pipeline, node, filter, tests-from. Written
 * to the bisect directory; c->config names it.
 */
static int prepare_config(bisect_ctx *c, const char *path)
{
	static const char *const dropped[] = {"adapter", "adapters",   "report",
	                                      "jobs",    "pipeline",   "node",
	                                      "filter",  "tests-from", "config"};
	json_error_t je;
	if (!path) {
		if (access("memguard.json", F_OK) != 0)
			return 0;
		path = "memguard.json";
	}
	json_t *root = json_load_file(path, 0, &je);
	if (!root || !json_is_object(root)) {
		fprintf(stderr, "memguard bisect: config %s: %s\n", path,
		        root ? "not a JSON object" : je.text);
		json_decref(root);
		return MG_EXIT_USAGE;
	}
	const char *key;
	json_t *v;
	void *iter;
	json_object_foreach_safe(root, iter, key, v)
	{
		char name[64];
		snprintf(name, sizeof(name), "%s", key);
		for (char *p = name; *p; p++)
			if (*p == '_')
				*p = '-';
		for (size_t i = 0; i < sizeof(dropped) / sizeof(dropped[0]); i++)
			if (!strcmp(name, dropped[i])) {
				json_object_del(root, key);
				break;
			}
	}
	path_in(c, c->config, sizeof(c->config), "config.json");
	int rc = json_dump_file(root, c->config, JSON_INDENT(2));
	json_decref(root);
	if (rc != 0) {
		fprintf(stderr, "memguard bisect: cannot write %s\n", c->config);
		c->config[0] = '\0';
		return MG_EXIT_INFRA;
	}
	return 0;
}

/* Without a report: the host's tests listed before target. */
static int plan_from_list(bisect_plan *p, bisect_ctx *c, const char *target)
{
	char out[512], errs[512];
	path_in(c, out, sizeof(out), "list.txt");
	path_in(c, errs, sizeof(errs), "list.err");
	char **argv = child_argv(c, "list", NULL, 0);
	mg_exit_end status = {0, 0, 0};
	int rc = run_child(argv, out, errs, &status);
	free(argv);
	if ((c->interrupted = interrupted_code(status)) != 0) {
		fprintf(stderr, "memguard bisect: interrupted\n");
		return c->interrupted;
	}
	if (rc < 0 || !mg_exit_ok(status)) {
		fprintf(stderr, "memguard bisect: memguard list failed (see %s)\n", errs);
		c->keep = 1;
		return !status.signo && status.status == 2 ? MG_EXIT_USAGE : MG_EXIT_INFRA;
	}
	FILE *f = fopen(out, "r");
	if (!f)
		return MG_EXIT_INFRA;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int found = 0;
	memset(p, 0, sizeof(*p));
	p->generation = -1;
	while (!found && (len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (!len)
			continue;
		found = !strcmp(line, target);
		if (!found)
			bisect_plan_add(p, line);
	}
	free(line);
	fclose(f);
	if (!c->keep) {
		unlink(out);
		unlink(errs);
	}
	if (!found) {
		fprintf(stderr, "memguard bisect: --crash: '%s' is not a test of the host\n",
		        target);
		bisect_plan_free(p);
		return MG_EXIT_USAGE;
	}
	bisect_plan_add(p, target);
	return 0;
}

/* ---- the result ------------------------------------------------------------ */

static const char *failed_verb(report_end failure)
{
	switch (failure) {
	case REPORT_END_KILL:
		return "is killed";
	case REPORT_END_TIMEOUT:
		return "times out";
	case REPORT_END_ERROR:
		return "breaks the protocol";
	case REPORT_END_CRASH:
		return "crashes";
	default:
		return "fails";
	}
}

static void print_result(const bisect_plan *p, const bisect_result *res)
{
	const char *target = p->names[p->n - 1];
	const char *verb = failed_verb(p->failure);
	if (res->alone) {
		printf("culprit: %s itself (it %s alone in a fresh host)\n", target, verb);
		return;
	}
	if (res->cumulative) {
		printf("no small culprit: %s %s after the first %zu tests, and more than %d of "
		       "them are needed (cumulative, e.g. memory left behind by many tests); "
		       "needed so far:",
		       target, verb, res->prefix, BISECT_MAX_CULPRITS);
		for (size_t i = 0; i < res->nculprits; i++)
			printf(" %s", p->names[res->culprits[i]]);
		printf("\n");
		return;
	}
	printf("culprit%s: ", res->nculprits > 1 ? "s" : "");
	for (size_t i = 0; i < res->nculprits; i++)
		printf("%s%s", i ? " + " : "", p->names[res->culprits[i]]);
	printf(" (with %s, %s %s)\n", res->nculprits > 1 ? "them" : "it", target, verb);
}

static int write_out(const char *path, const bisect_plan *p, const bisect_result *res)
{
	json_t *o = json_object();
	json_t *names = json_array();
	for (size_t i = 0; i < res->nculprits; i++) {
		char *s = report_utf8_sanitize(p->names[res->culprits[i]], NULL);
		json_array_append_new(names, json_string(s));
		free(s);
	}
	char *target = report_utf8_sanitize(p->names[p->n - 1], NULL);
	json_object_set_new(o, "schema", json_string("memguard-bisect/1"));
	json_object_set_new(o, "target", json_string(target));
	free(target);
	json_object_set_new(o, "failure",
	                    report_end_abnormal(p->failure)
	                        ? json_string(report_end_name(p->failure))
	                        : json_null());
	if (p->shard) {
		json_object_set_new(o, "shard", json_string(p->shard));
		json_object_set_new(o, "generation", json_integer(p->generation));
	}
	json_object_set_new(o, "candidates", json_integer((json_int_t)(p->n - 1)));
	json_object_set_new(o, "reproduced", json_boolean(res->reproduced));
	json_object_set_new(o, "alone", json_boolean(res->alone));
	json_object_set_new(o, "culprits", names);
	json_object_set_new(o, "cumulative", json_boolean(res->cumulative));
	json_object_set_new(o, "smallest_prefix", json_integer((json_int_t)res->prefix));
	json_object_set_new(o, "runs", json_integer(res->runs));

	atomic_file *af = NULL;
	mg_err err;
	int rc = atomic_open(&af, path, &err);
	if (rc == 0) {
		FILE *f = atomic_stream(af);
		int ok =
		    json_dumpf(o, f, JSON_INDENT(2) | JSON_SORT_KEYS) == 0 && fputc('\n', f) != EOF;
		rc = atomic_close(af, ok, &err);
	}
	if (rc < 0)
		fprintf(stderr, "memguard bisect: %s\n", err.msg);
	json_decref(o);
	return rc;
}

/* ---- the command ------------------------------------------------------------- */

/* Options that bisect sets for its runs itself. */
static int reserved_option(const char *a)
{
	static const char *const reserved[] = {
	    "--report", "--tests-from", "--jobs",     "--adapter",
	    "--node",   "--filter",     "--pipeline", "-j"};
	for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++) {
		size_t n = strlen(reserved[i]);
		if (!strncmp(a, reserved[i], n) && (a[n] == '\0' || a[n] == '=' || n == 2))
			return 1;
	}
	return 0;
}

static void cleanup_dir(const bisect_ctx *c)
{
	char path[512];
	if (!c->dir[0])
		return;
	if (c->keep) {
		fprintf(stderr, "memguard bisect: runs kept in %s\n", c->dir);
		return;
	}
	/* its own directory: whatever a run left (an interrupted one, its
	 * report and log) goes with it */
	DIR *d = opendir(c->dir);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d)) != NULL) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			path_in(c, path, sizeof(path), e->d_name);
			unlink(path);
		}
		closedir(d);
	}
	if (rmdir(c->dir) != 0)
		fprintf(stderr, "memguard bisect: cannot remove %s: %s\n", c->dir, strerror(errno));
}

int bisect_main(int argc, char **argv)
{
	const char *report_path = NULL, *shard = NULL, *target = NULL, *out = NULL;
	const char *config = NULL;
	long generation = -1;
	char *pass[MAX_PASS];
	bisect_ctx c;
	bisect_plan plan;
	bisect_result res;
	int i, code = MG_EXIT_USAGE;

	memset(&c, 0, sizeof(c));
	memset(&plan, 0, sizeof(plan));
	c.pass = pass;
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		const char *a = argv[i];
		const char **dst = NULL;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage, stdout);
			return 0;
		}
		if (!strcmp(a, "--keep")) {
			c.keep = c.keep_asked = 1;
			continue;
		}
		static const char *const mine[] = {"--report", "--shard",  "--crash",
		                                   "--out",    "--config", "--generation"};
		const char **dsts[] = {&report_path, &shard, &target, &out, &config, NULL};
		const char *val = NULL;
		size_t k;
		for (k = 0; k < sizeof(mine) / sizeof(mine[0]); k++) {
			size_t n = strlen(mine[k]);
			if (strncmp(a, mine[k], n) || (a[n] && a[n] != '='))
				continue;
			if (a[n] == '=') {
				val = a + n + 1;
			} else if (i + 1 < argc && strcmp(argv[i + 1], "--")) {
				val = argv[++i];
			} else {
				fprintf(stderr, "memguard bisect: option '%s' needs a value\n", a);
				return MG_EXIT_USAGE;
			}
			dst = dsts[k];
			break;
		}
		if (k < sizeof(mine) / sizeof(mine[0])) {
			if (dst) {
				*dst = val;
				continue;
			}
			char *end;
			generation = strtol(val, &end, 10);
			if (end == val || *end || generation < 0) {
				fprintf(stderr,
				        "memguard bisect: --generation: '%s' is not a number\n",
				        val);
				return MG_EXIT_USAGE;
			}
			continue;
		}
		if (reserved_option(a)) {
			fprintf(stderr,
			        "memguard bisect: '%s' is set by bisect itself (one lane, "
			        "its own report and test list)\n",
			        a);
			return MG_EXIT_USAGE;
		}
		if (c.npass == MAX_PASS) {
			fputs("memguard bisect: too many options\n", stderr);
			return MG_EXIT_USAGE;
		}
		pass[c.npass++] = argv[i];
	}
	if (i >= argc || i + 1 >= argc) {
		fprintf(stderr, "memguard bisect: no host given (... -- HOST...)\n\n%s", usage);
		return MG_EXIT_USAGE;
	}
	c.host = argv + i + 1;
	c.nhost = argc - i - 1;
	if (!report_path && !target) {
		fputs("memguard bisect: give --report REPORT.json or --crash NAME\n", stderr);
		return MG_EXIT_USAGE;
	}
	if (!report_path && (shard || generation >= 0)) {
		fputs("memguard bisect: --shard and --generation need --report\n", stderr);
		return MG_EXIT_USAGE;
	}
	ssize_t n = readlink("/proc/self/exe", c.exe, sizeof(c.exe) - 1);
	if (n <= 0) {
		fprintf(stderr, "memguard bisect: /proc/self/exe: %s\n", strerror(errno));
		return MG_EXIT_INFRA;
	}
	c.exe[n] = '\0';
	/* from here a stop signal ends the child run and the search, and the
	 * directory is removed */
	struct sigaction old_handlers[RUN_NSTOP_SIGNALS];
	install_stop_handlers(old_handlers);
	const char *tmpdir = getenv("TMPDIR");
	snprintf(c.dir, sizeof(c.dir), "%s/memguard-bisect-XXXXXX",
	         tmpdir && *tmpdir && strlen(tmpdir) < 200 ? tmpdir : "/tmp");
	if (!mkdtemp(c.dir)) {
		fprintf(stderr, "memguard bisect: %s: %s\n", c.dir, strerror(errno));
		c.dir[0] = '\0';
		code = MG_EXIT_INFRA;
		goto out;
	}

	code = prepare_config(&c, config);
	if (code)
		goto out;
	if (report_path) {
		report *r = NULL;
		mg_err err;
		int rc = report_load(&r, report_path, &err);
		if (rc < 0) {
			fprintf(stderr, "memguard bisect: %s\n", err.msg);
			code = report_load_exit(rc);
			goto out;
		}
		rc = bisect_plan_from_report(&plan, r, shard, generation, target, &err);
		if (r && r->seed && strlen(r->seed) < sizeof(c.seed))
			strcpy(c.seed, r->seed);
		report_free(r);
		if (rc < 0) {
			fprintf(stderr, "memguard bisect: %s\n", err.msg);
			code = rc == MG_ENOTFOUND ? MG_EXIT_INFRA : MG_EXIT_USAGE;
			goto out;
		}
		fprintf(
		    stderr, "memguard bisect: shard %s, host %ld: %zu tests ran before %s (%s)\n",
		    plan.shard, plan.generation, plan.n - 1, plan.names[plan.n - 1],
		    report_end_abnormal(plan.failure) ? report_end_name(plan.failure) : "failed");
	} else {
		code = plan_from_list(&plan, &c, target);
		if (code)
			goto out;
		fprintf(stderr, "memguard bisect: %zu tests listed before %s\n", plan.n - 1,
		        target);
	}

	c.plan = &plan;
	int rc = bisect_search(&res, plan.n - 1, oracle, &c);
	if (rc < 0) {
		code = c.interrupted ? c.interrupted : -rc;
		goto out;
	}
	if (!res.reproduced) {
		printf("not reproducible: %s did not fail again after the %zu tests before it "
		       "(in a fresh host)\n",
		       plan.names[plan.n - 1], plan.n - 1);
		code = MG_EXIT_FAILED;
	} else {
		print_result(&plan, &res);
		code = MG_EXIT_OK;
	}
	fprintf(stderr, "memguard bisect: %u runs\n", res.runs);
	if (out && write_out(out, &plan, &res) < 0)
		code = MG_EXIT_INFRA;
out:
	if (stop_signal) {
		code = 128 + stop_signal;
		c.keep = c.keep_asked; /* no failed run to look at: bisect was told to stop */
	}
	cleanup_dir(&c);
	bisect_plan_free(&plan);
	restore_stop_handlers(old_handlers);
	return code;
}

/*
 * run.c - "memguard run" and "memguard list" as a composition of the run's
 * rooms: options -> prepare -> listing -> policy (limits) -> plan -> lanes ->
 * supervise (the poll loop) -> record (finish) -> adapters. What happens in a
 * room is in that room's file; this one only puts them in order.
 */
#include "atomic.h"
#include "contain.h"
#include "mg_bulk.h"
#include "rm_tree.h"
#include "run_int.h"

#include <errno.h>
#include <fnmatch.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const int run_stop_signals[RUN_NSTOP_SIGNALS] = {SIGINT,  SIGTERM, SIGHUP,
                                                 SIGQUIT, SIGUSR1, SIGUSR2};

/*
 * Every shim (gtest, catch2, ctest, exec, wrap): memguard-driver
 * (driver_main.c), the shim alone, which starts without the libraries the
 * whole tool links (a recycle starts a shim; and a test the shim starts
 * counts the copy of the shim it had before its exec in its peak RSS: its
 * spawner's, a fork of memguard's relocated libraries would be 2 MiB):
 * beside this executable (the build tree), in ../lib/memguard/ (an
 * installed tree, wherever it was unpacked), or where it was installed.
 * path (memguard's own, on entry) is left as it is when there is none.
 */
static void driver_exe_find(char *path, size_t size)
{
	char dir[PATH_MAX], cand[PATH_MAX + 64];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	for (int i = 0; i < 3; i++) {
		if (i < 2)
			snprintf(cand, sizeof(cand), "%s/%smemguard-driver", dir,
			         i ? "../lib/memguard/" : "");
		else
			snprintf(cand, sizeof(cand), "%s",
			         MEMGUARD_DRIVER_INSTALL_DIR "/memguard-driver");
		if (strlen(cand) < size && access(cand, X_OK) == 0) {
			memcpy(path, cand, strlen(cand) + 1);
			return;
		}
	}
}

static int prepare(run_ctx *c, run_options *o, mg_err *err)
{
	c->o = o;
	c->t0 = now_mono();
	c->tree_interval = TREE_INTERVAL;
	if (o->host_argc < 1)
		return mg_err_set(err, MG_EINVAL,
		                  "no host command given (memguard run -- HOST ...)");
	int rc = 0;
	/* before the command is looked for: exec's ./{} is no file to find */
	if ((o->list_cmd || o->list_file) && !o->shell && strcmp(o->driver, "exec"))
		return mg_err_set(err, MG_EINVAL,
		                  "--list-cmd and --list-file go with --driver exec");
	/* with --shell the command is a script for sh -c, and exec's ./{} a
	 * program each test names: neither a file to find before they run */
	int per_test = o->shell || (!strcmp(o->driver, "exec") && strstr(o->host_argv[0], "{}"));
	if (!per_test) {
		rc = spawn_resolve(c->path, sizeof(c->path), o->host_argv[0], err);
		if (rc < 0)
			return rc == MG_EINVAL ? rc : MG_ENOTFOUND;
		/* a host the kernel cannot execute is infrastructure (3) with its
		 * reason, whichever driver would run it (a shim's failed exec
		 * was a failed test) */
		if (spawn_check_exec(c->path, err) < 0)
			return MG_ENOTFOUND;
	}
	c->argv = o->host_argv;
	c->arch = o->arch;
	mg_arch real;
	if (c->arch != MG_ARCH_UNKNOWN && !per_test && elf_arch(&real, c->path, NULL) == 0 &&
	    real != c->arch)
		fprintf(stderr,
		        "memguard: warning: --arch %s contradicts %s, a %s (%s) program: the "
		        "host's limits are %s's as asked (drop --arch to use %s's)\n",
		        limits_arch_name(c->arch), o->host_argv[0],
		        real == MG_ARCH_X86 ? "32-bit" : "64-bit", limits_arch_name(real),
		        limits_arch_name(c->arch), limits_arch_name(real));
	if (c->arch == MG_ARCH_UNKNOWN && !per_test) {
		mg_err e;
		rc = elf_arch(&c->arch, c->path, &e);
		if (rc == MG_ENOTFOUND)
			return mg_err_set(err, MG_ENOTFOUND, "%s", e.msg);
		/* not an x86/x64 ELF (a script): the host's greeting tells */
	}
	if (o->shell && !strcmp(o->driver, "auto"))
		o->driver = "exec"; /* --shell only means something to exec */
	if (!strcmp(o->driver, "auto")) {
		char note[512];
		c->driver =
		    driver_detect_command(c->path, o->host_argv, o->host_argc, note, sizeof(note));
		if (*note && !o->quiet)
			fprintf(stderr, "memguard: %s\n", note);
	} else if (driver_parse(&c->driver, o->driver, err) < 0 ||
	           (!per_test && driver_check(c->driver, c->path, o->host_argv, err) < 0)) {
		return MG_EINVAL;
	}
	/* the user's Catch2 --allow-running-no-tests: Catch2 v3 then passes a
	 * run of no test, or of skipped tests only (listing_all_skipped) */
	if (c->driver == DRIVER_CATCH2 && driver_catch2_allows_none(o->host_argv, o->host_argc))
		o->allow_no_tests = 1;
	/* gtest, catch2: one program for what the shim is given, so all of it; a
	 * host that serves the protocol itself (native, pytest): as deep as its
	 * tests' pace asks (policy_depth) */
	c->pipeline_auto = !o->pipeline && driver_serves_protocol(c->driver);
	/* exec, ctest, wrap: a process a test, whose start dwarfs a run line's
	 * round trip: two in flight, one running and the next (before: 16, so
	 * a lane's first share was up to 16 tests before any had a pace, and at
	 * -j 2 one lane took a suite's slow first half while the other idled) */
	if (!o->pipeline)
		o->pipeline = c->driver == DRIVER_GTEST || c->driver == DRIVER_CATCH2 ? 1000000
		              : c->pipeline_auto ? PIPELINE_AUTO
		                                 : 2;
	/* ctest's tests are other programs: their ELF class, when they agree, is
	 * the run's arch (the listing host's hello; ctest's own otherwise) */
	if (c->driver == DRIVER_CTEST && o->arch == MG_ARCH_UNKNOWN)
		c->arch = MG_ARCH_UNKNOWN;
	if (c->driver == DRIVER_EXEC && !o->list_cmd && !o->list_file)
		return mg_err_set(err, MG_EINVAL,
		                  "the exec driver needs --list-cmd CMD or --list-file FILE");
	if (o->list_cmd && o->list_file) /* before: --list-file's, the other unsaid */
		return mg_err_set(err, MG_EINVAL,
		                  "--list-cmd and --list-file both name the tests: give one");
	if (o->skip_code >= 0 && c->driver != DRIVER_EXEC)
		return mg_err_set(err, MG_EINVAL,
		                  "--skip-code goes with --driver exec (ctest: the test's "
		                  "SKIP_RETURN_CODE property)");
	if (driver_check_args(c->driver, o->host_argv, o->host_argc, err) < 0)
		return MG_EINVAL;
	if (c->driver == DRIVER_NATIVE)
		return 0;
	/* a seed the program would draw itself (GoogleTest's shuffle without
	 * one, Catch2's time or random device): one for every program of the
	 * run, its listing too, so they run in one order, a direct run's with
	 * that seed (driver_order_of) */
	if (c->driver == DRIVER_GTEST || c->driver == DRIVER_CATCH2) {
		driver_order ord;
		c->catch2_v3 = c->driver == DRIVER_CATCH2 && driver_catch2_v3(o->host_argv[0]);
		driver_order_of(&ord, c->driver, c->catch2_v3, o->host_argv, o->host_argc);
		if (ord.draws)
			c->seed = driver_order_seed(c->driver);
		c->seed_shuffled = ord.shuffled;
		/* GoogleTest's shuffle seed, the user's or drawn: the report's */
		c->gtest_seed = c->driver == DRIVER_GTEST && ord.shuffled
		                    ? (ord.draws ? c->seed : ord.seed)
		                    : 0;
	}

	/* A shim speaks the protocol for the program: this executable again. */
	ssize_t n = readlink("/proc/self/exe", c->path, sizeof(c->path) - 1);
	if (n < 0)
		return mg_err_set(err, MG_ERROR, "cannot find memguard's own executable: %s",
		                  strerror(errno));
	c->path[n] = 0;
	if (c->driver != DRIVER_PYTEST) /* pytest's is no shim: it execs pytest */
		driver_exe_find(c->path, sizeof(c->path));
	c->shim_argv = mg_xrealloc(NULL, ((size_t)o->host_argc + 16) * sizeof(char *));
	size_t k = 0;
	c->shim_argv[k++] = "memguard";
	c->shim_argv[k++] = "__driver";
	c->shim_argv[k++] = (char *)driver_name(c->driver);
	if (o->list_cmd) {
		c->shim_argv[k++] = "--list-cmd";
		c->shim_argv[k++] = (char *)o->list_cmd;
	}
	if (o->list_file) {
		c->shim_argv[k++] = "--list-file";
		c->shim_argv[k++] = (char *)o->list_file;
	}
	if (o->shell)
		c->shim_argv[k++] = "--shell";
	if (o->skip_code >= 0) {
		snprintf(c->skip_code, sizeof(c->skip_code), "%d", o->skip_code);
		c->shim_argv[k++] = "--skip-code";
		c->shim_argv[k++] = c->skip_code;
	}
	/* whether the program is an ASan build, read here once (the driver's
	 * detection read the file already): no shim reads it again */
	if (c->driver == DRIVER_GTEST || c->driver == DRIVER_CATCH2) {
		c->program_asan = listing_asan(c);
		c->shim_argv[k++] = "--asan";
		c->shim_argv[k++] = c->program_asan ? "1" : "0";
	}
	if (c->driver == DRIVER_CATCH2) { /* its version, as detection read it */
		c->shim_argv[k++] = "--catch2-v3";
		c->shim_argv[k++] = c->catch2_v3 ? "1" : "0";
	}
	c->shim_argv[k++] = "--";
	for (int i = 0; i < o->host_argc; i++)
		c->shim_argv[k++] = o->host_argv[i];
	c->shim_argv[k] = NULL;
	c->argv = c->shim_argv;
	/* The program under test is the shim's child: follow the tree closely
	 * (pytest's shim execs it: the host is the program). */
	if (!driver_serves_protocol(c->driver))
		c->tree_interval = 0;
	return 0;
}

static char *basename_dup(const char *p)
{
	const char *s = strrchr(p, '/');
	return report_strdup(s ? s + 1 : p);
}

/*
 * The report file the user asked the framework for (driver_output_of):
 * every program of the run would write over it with its own tests (the
 * shims keep them from it), so the whole run is written there now, in the
 * framework's shape (GoogleTest's xml or json, Catch2's junit). Not
 * writing it is an infrastructure error, as for an adapter's file.
 * Returns code.
 */
/* ctest's name for its JUnit suite: DartConfiguration.tcl's (last)
 * BuildName in the test directory dir, trimmed, without the characters
 * ctest drops (cmCTest::SafeBuildIdField: \ : * ? " < > | and tabs);
 * "(empty)" without one, as ctest; malloc'd. */
static char *ctest_build_name(const char *dir)
{
	char path[4200], line[1024], name[1024] = "";
	snprintf(path, sizeof(path), "%s/DartConfiguration.tcl", dir);
	FILE *f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "BuildName:", 10))
			continue;
		size_t k = 0;
		for (const char *v = line + 10; *v && *v != '\r' && *v != '\n'; v++)
			if (!strchr("\\:*?\"<>|\t", *v))
				name[k++] = *v;
		while (k && name[k - 1] == ' ')
			k--;
		name[k] = 0;
	}
	if (f)
		fclose(f);
	const char *v = name + strspn(name, " ");
	return strdup(*v ? v : "(empty)");
}

static int user_output(run_ctx *c, const run_options *o, driver_output uo, int code)
{
	mg_err err;
	if (uo.form == DRIVER_OUTPUT_NONE)
		return code;
	if (uo.form == DRIVER_OUTPUT_UNWRITTEN) {
		if (c->driver == DRIVER_CTEST)
			fprintf(
			    stderr,
			    "memguard run: %s: not written (a relative path under --preset: "
			    "memguard does not know the preset's test directory; give it whole)\n",
			    uo.opt);
		else
			fprintf(stderr,
			        "memguard run: %s: not written (the driver reads Catch2's xml "
			        "reporter; memguard writes -r junit's file, and --report)\n",
			        uo.opt);
		return code;
	}
	if (uo.form != DRIVER_OUTPUT_CATCH2_JUNIT) /* GoogleTest and ctest make their directories */
		for (char *p = strchr(uo.path + 1, '/'); p; p = strchr(p + 1, '/')) {
			*p = 0;
			int made = mkdir(uo.path, 0777) == 0 || errno == EEXIST;
			*p = '/';
			if (!made)
				break; /* atomic_open names what is missing */
		}
	char *prog = uo.form == DRIVER_OUTPUT_CTEST_JUNIT ? ctest_build_name(uo.dir)
	                                                  : basename_dup(o->host_argv[0]);
	junit_framework fw = uo.form == DRIVER_OUTPUT_CTEST_JUNIT ? JUNIT_CTEST
	                     : uo.form == DRIVER_OUTPUT_CATCH2_JUNIT
	                         ? (c->catch2_v3 ? JUNIT_CATCH2_V3 : JUNIT_CATCH2)
	                     : uo.form == DRIVER_OUTPUT_GTEST_JSON ? JUNIT_GTEST_JSON
	                                                           : JUNIT_GTEST;
	int rc = junit_framework_render(c->rep, uo.path, fw, prog, &err);
	free(prog);
	if (rc < 0) {
		fprintf(stderr, "memguard run: %s: %s\n", uo.opt, err.msg);
		return c->signo ? code : MG_EXIT_INFRA;
	}
	return code;
}

static char *command_line(char **argv, int argc)
{
	size_t cap = 1;
	for (int i = 0; i < argc; i++)
		cap += strlen(argv[i]) * 4 + 3;
	char *s = mg_xrealloc(NULL, cap), *p = s;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		int plain = *a != 0;
		for (const char *q = a; *q; q++)
			if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			            "_-./=:,+@%",
			            *q))
				plain = 0;
		if (i)
			*p++ = ' ';
		if (plain) {
			p += sprintf(p, "%s", a);
			continue;
		}
		*p++ = '\'';
		for (const char *q = a; *q; q++) {
			if (*q == '\'')
				p += sprintf(p, "'\\''");
			else
				*p++ = *q;
		}
		*p++ = '\'';
	}
	*p = 0;
	return s;
}

int run_list_main(int argc, char **argv)
{
	run_options o;
	run_ctx c;
	mg_err err;
	name_list nl;
	options_init(&o);
	memset(&c, 0, sizeof(c));
	memset(&nl, 0, sizeof(nl));
	c.sigfd[0] = c.sigfd[1] = -1; /* list installs no handlers */
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(options_usage(), stdout);
		return 0;
	}
	if (options_parse(&o, argc, argv, &err) < 0) {
		fprintf(stderr, "memguard list: %s\n", err.msg);
		options_free(&o);
		return MG_EXIT_USAGE;
	}
	int rc = prepare(&c, &o, &err);
	/* the names as the framework lists them: no seed is drawn for a
	 * listing alone (GoogleTest lists unshuffled; a seed the user gave
	 * still orders it, as the run's) */
	c.seed = 0;
	if (rc == 0)
		rc = contain_start(o.contain, &err);
	if (rc == 0) {
		signal(SIGPIPE, SIG_IGN);
		rc = listing_run(&c, &nl, &err);
		contain_end();
	}
	int code = 0;
	if (rc < 0) {
		fprintf(stderr, "memguard list: %s\n", err.msg);
		listing_explain(&c, &err);
		code = rc == MG_EINVAL ? MG_EXIT_USAGE : MG_EXIT_INFRA;
	} else {
		size_t shown = 0;
		for (size_t i = 0; i < nl.n; i++) {
			if (o.filter && fnmatch(o.filter, nl.names[i], 0))
				continue;
			fwrite(nl.names[i], 1, nl.lens[i], stdout);
			fputc('\n', stdout);
			shown++;
		}
		/* as for run: an empty answer is most likely a misconfigured step */
		if (!shown && !o.allow_no_tests) {
			if (o.filter && nl.n)
				fprintf(stderr,
				        "memguard list: no tests: the filter '%s' matches none of "
				        "the %zu listed (--allow-no-tests makes that exit 0)\n",
				        o.filter, nl.n);
			else
				fprintf(stderr, "memguard list: no tests: the host listed none "
				                "(--allow-no-tests makes that exit 0)\n");
			code = MG_EXIT_NO_TESTS;
		}
		/* what the listing found outside its tests (pytest's collection
		 * errors): said, and the list fails as the framework's does; a
		 * module pytest skipped at collection is said only */
		for (size_t i = 0; i < nl.nextras; i++) {
			fprintf(stderr, "memguard list: %s: %s\n", nl.extras[i].name,
			        nl.extras[i].message);
			if (nl.extras[i].state != TEST_SKIP)
				code = MG_EXIT_FAILED;
		}
	}
	plan_names_free(&nl);
	free(c.envp);
	free(c.shim_argv);
	for (int i = 0; i < ENV_SLOTS; i++)
		free(c.env_store[i]);
	options_free(&o);
	return code;
}

/*
 * The commit the report belongs to (hooks->identity: libgit2's status of
 * the worktree, a stat of every tracked file: ~50 ms for 20,000 files
 * here), read in a thread of its own while the listing and the tests run,
 * instead of before them. The thread takes no signal (they stay the main
 * thread's) and writes only the report's commit fields, which nothing
 * reads before identity_join.
 */
typedef struct identity_job {
	run_identity_fn fn;
	report *rep;
	mg_err err;
	int rc;
	int running;
	pthread_t thread;
} identity_job;

static void *identity_thread(void *arg)
{
	identity_job *j = arg;
	j->rc = j->fn(j->rep, ".", &j->err);
	return NULL;
}

/* Whether the run's commit is shown anywhere: the report file and every
 * adapter but the console table carry it. Not read when not (in a
 * repository libgit2's load, start-up and status were ~18 ms of CPU a run). */
static int identity_wanted(const run_options *o)
{
	if (o->report)
		return 1;
	for (size_t i = 0; i < o->nadapters; i++)
		if (strcmp(o->adapters[i], "console") && strncmp(o->adapters[i], "console=", 8))
			return 1;
	return 0;
}

static void identity_start(identity_job *j, const run_hooks *hooks, const run_options *o,
                           report *rep)
{
	memset(j, 0, sizeof(*j));
	if (!hooks || !hooks->identity || !identity_wanted(o))
		return;
	j->fn = hooks->identity;
	j->rep = rep;
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	j->running = pthread_create(&j->thread, NULL, identity_thread, j) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!j->running) /* no thread: read it here, as before */
		identity_thread(j);
}

/* The run's directory (MG_ENV_RUN_DIR), made 0700 by mkdtemp under TMPDIR
 * for a driver's shims and pytest's processes, given to the hosts
 * (host_conn.c) and removed with what is in it at the run's end, after
 * every host, interrupted or not: a batch's filter or input file, ctest's
 * lock files (before, in TMPDIR itself, left there by a shim the runner
 * ended at an interrupt), pytest's -x/--maxfail files (memguard_pytest.py's
 * _Shared: the failures counted, each process's running test, as
 * MEMGUARD_PYTEST_RUN; before, named after the runner in TMPDIR, the
 * count left behind). Without it each keeps to TMPDIR, as before. */
static void run_dir_make(run_ctx *c)
{
	const char *base = getenv("TMPDIR");
	char dir[4096];
	if (c->driver == DRIVER_NATIVE || c->driver == DRIVER_WRAP || c->driver == DRIVER_EXEC)
		return;
	if (!base || !*base)
		base = "/tmp";
	int n = snprintf(dir, sizeof(dir), "%s/memguard-%s-XXXXXX", base,
	                 c->driver == DRIVER_PYTEST ? "pytest" : "run");
	if (n > 0 && (size_t)n < sizeof(dir) - 64 && mkdtemp(dir))
		c->run_dir = report_strdup(dir);
}

/* Under the console's table of a run whose tests failed on lanes the user
 * did not ask for (-j defaults to the CPUs): copies of one program side by
 * side meet at fixed paths (leveldb's db_test: /tmp/leveldbtest-0), and a
 * test that fails only so would look like memguard's doing. One line, on
 * stderr; not under -q, nor with --lane-tmpdir; entries outside the listed
 * tests (a collection error, <program exit>) are not counted. */
static void lanes_hint(const run_ctx *c, const run_options *o, int code)
{
	size_t failed = 0, ran = 0;
	if (code != MG_EXIT_FAILED || c->signo || o->quiet || o->jobs || o->lane_tmpdir ||
	    c->nlanes < 2 || c->ntests < 2)
		return;
	/* the framework's verdicts (memory-limit and error are memguard's), in
	 * a run where two lanes or more ran tests */
	for (size_t i = 0; i < c->rep->nshards; i++) {
		const report_shard *s = &c->rep->shards[i];
		ran += s->ntests > 0;
		for (size_t k = 0; k < s->ntests; k++) {
			const report_test *t = &s->tests[k];
			/* a CTest test that never ran (its program missing, a failed
			 * dependency: ctest's Not Run) met nothing in another lane */
			if (c->driver == DRIVER_CTEST && t->state == TEST_FAIL && t->message &&
			    strstr(t->message, "Not Run"))
				continue;
			failed += t->state == TEST_FAIL || t->state == TEST_CRASH ||
			          t->state == TEST_TIMEOUT;
		}
	}
	if (!failed || ran < 2)
		return;
	const char *own = getenv("TEST_TMPDIR"); /* then --lane-tmpdir does nothing */
	fprintf(stderr,
	        "memguard run: %zu test%s failed with %u lanes side by side (-j defaults to the "
	        "CPUs); a test that passes with -j 1 may meet its copy in another lane at a "
	        "fixed path or in the working directory they share%s\n",
	        failed, failed == 1 ? "" : "s", c->nlanes,
	        own ? "" : " (--lane-tmpdir gives each lane its own TEST_TMPDIR)");
}

/* The report's commit fields are final from here on. */
static void identity_join(identity_job *j)
{
	if (j->running)
		pthread_join(j->thread, NULL);
	j->running = 0;
	if (j->fn && j->rc < 0 && !j->rep->repo_note)
		j->rep->repo_note = report_strdup(j->err.msg);
	j->fn = NULL;
}

int run_main(int argc, char **argv, const run_hooks *hooks)
{
	run_options o;
	run_ctx c;
	mg_err err;
	name_list nl;
	identity_job ident = {.fn = NULL};
	int code = MG_EXIT_INFRA;

	/* freed memory kept for the next arrays, never given back mid-run: a
	 * page first touched costs a fault (~15 us on a paravirtualized VM), and
	 * a run's transient arrays (the listing's hash set, the plan's orders)
	 * are as large as its tests (mg_bulk.h) */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	options_init(&o);
	memset(&c, 0, sizeof(c));
	memset(&nl, 0, sizeof(nl));
	c.sigfd[0] = c.sigfd[1] = -1;
	c.listing_fd = -1;
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(options_usage(), stdout);
		return 0;
	}
	if (options_parse(&o, argc, argv, &err) < 0) {
		fprintf(stderr, "memguard run: %s\n", err.msg);
		options_free(&o);
		return MG_EXIT_USAGE;
	}
	for (size_t i = 0; i < o.nadapters; i++)
		if (adapters_check(o.adapters[i], &err) < 0) {
			fprintf(stderr, "memguard run: %s\n", err.msg);
			options_free(&o);
			return MG_EXIT_USAGE;
		}
	/* a report path that would be refused at the end (a FIFO, a device, a
	 * link, a directory that is not there) is refused before the suite
	 * runs for nothing; so is an adapter's */
	if (o.report && atomic_check_file(o.report, &err) < 0) {
		fprintf(stderr, "memguard run: %s\n", err.msg);
		options_free(&o);
		return MG_EXIT_INFRA;
	}
	for (size_t i = 0; i < o.nadapters; i++)
		if (adapters_check_path(o.adapters[i], &err) < 0) {
			fprintf(stderr, "memguard run: adapter %s: %s\n", o.adapters[i], err.msg);
			options_free(&o);
			return MG_EXIT_INFRA;
		}
	if (!o.node_index)
		options_node_from_env(&o.node_index, &o.node_total);
	int rc = prepare(&c, &o, &err);
	if (rc == 0 && driver_runs_none(c.driver, o.host_argv, o.host_argc, &err) < 0) {
		free(c.shim_argv); /* prepare's, which succeeded */
		rc = MG_EINVAL;
	}
	if (rc < 0) {
		fprintf(stderr, "memguard run: %s\n", err.msg);
		options_free(&o);
		return rc == MG_EINVAL ? MG_EXIT_USAGE : MG_EXIT_INFRA;
	}
	/* ... and so is the file the user asked the framework for */
	driver_output uo;
	driver_output_of(&uo, c.driver, c.catch2_v3, o.host_argv, o.host_argc);
	if (uo.form == DRIVER_OUTPUT_STDOUT) { /* before: dropped, not a word */
		if (!strcmp(uo.opt, "-r junit"))
			fprintf(
			    stderr,
			    "memguard run: Catch2's '-r junit' writes its report to stdout, where "
			    "memguard writes its own: give '-r junit -o FILE' (memguard writes the "
			    "whole run's there)\n");
		else
			fprintf(stderr,
			        "memguard run: Catch2's '%s' writes its report to stdout, where "
			        "memguard writes its own, and memguard writes no report in that "
			        "form: drop it and give memguard's --report or --adapter (junit, "
			        "teamcity, ...)\n",
			        uo.opt);
		free(c.shim_argv);
		options_free(&o);
		return MG_EXIT_USAGE;
	}
	/* Catch2 makes no directory for it, as GoogleTest and ctest do: one
	 * that is not there is refused now, as Catch2 refuses it at its start
	 * (before: found once every test had run) */
	if (uo.form != DRIVER_OUTPUT_NONE && uo.form != DRIVER_OUTPUT_UNWRITTEN &&
	    (uo.form == DRIVER_OUTPUT_CATCH2_JUNIT ? atomic_check_file(uo.path, &err)
	                                           : atomic_check(uo.path, &err)) < 0) {
		fprintf(stderr, "memguard run: %s: %s\n", uo.opt, err.msg);
		free(c.shim_argv);
		options_free(&o);
		return MG_EXIT_INFRA;
	}
	supervise_install_signals(&c);
	if (contain_start(o.contain, &err) < 0) {
		fprintf(stderr, "memguard run: %s\n", err.msg);
		free(c.shim_argv);
		options_free(&o);
		return MG_EXIT_INFRA;
	}

	c.rep = report_new();
	c.rep->containment = report_strdup(contain_name());
	if (c.seed || c.gtest_seed) {
		/* in the report (GoogleTest's, the user's too: it is its XML's
		 * random_seed), and said once when drawn, as the framework's own
		 * run says it */
		char opt[48];
		driver_order_opt(c.driver, c.seed ? c.seed : c.gtest_seed, opt, sizeof(opt));
		c.rep->seed = report_strdup(opt);
	}
	c.rep->start_time = (double)time(NULL);
	c.rep->node_index = o.node_index;
	c.rep->node_total = o.node_total;
	identity_start(&ident, hooks, &o, c.rep);

	run_dir_make(&c);
	int custom = listing_custom(&c, 0, &err); /* 0, or the run's exit code */
	rc = custom ? MG_ERROR : listing_run(&c, &nl, &err);
	if (rc < 0) {
		fprintf(stderr, "memguard run: %s\n", err.msg);
		listing_explain(&c, &err);
		/* CI still gets a report saying the run could not start */
		code = custom ? custom : rc == MG_EINVAL ? MG_EXIT_USAGE : MG_EXIT_INFRA;
		c.rep->exit_code = c.signo ? 128 + c.signo : code;
		c.rep->interrupted = c.signo != 0;
		c.rep->wall = now(&c);
		identity_join(&ident);
		supervise_interruptible_writes();
		if (o.report && report_save(c.rep, o.report, &err) < 0)
			fprintf(stderr, "memguard run: %s\n", err.msg);
		goto out;
	}
	/* said once the listing ran: a command line the framework refused
	 * ran nothing with it */
	if (c.seed && !o.quiet) {
		char opt[48];
		driver_order_opt(c.driver, c.seed, opt, sizeof(opt));
		if (c.driver == DRIVER_GTEST)
			fprintf(stderr,
			        "memguard: GoogleTest shuffles the tests with seed %lu in every "
			        "program of this run (%s repeats the order)\n",
			        c.seed, opt);
		else
			fprintf(stderr,
			        "memguard: Catch2's random seed is %lu in every program of this "
			        "run%s (%s repeats it)\n",
			        c.seed, c.seed_shuffled ? ", its order rand" : "", opt);
	}
	if (c.arch == MG_ARCH_UNKNOWN && limits_arch_parse(&c.arch, nl.arch, NULL) < 0)
		c.arch = MG_ARCH_X64;
	rc = policy_resolve(&c, &err);
	if (rc < 0) {
		fprintf(stderr, "memguard run: %s\n", err.msg);
		code = MG_EXIT_USAGE;
		goto out;
	}

	{
		driver_fail_fast ff;
		driver_fail_fast_of(&ff, c.driver, o.host_argv, o.host_argc);
		c.fail_limit = ff.limit;
		if (ff.limit)
			driver_fail_fast_why(&ff, c.driver, c.fail_why, sizeof(c.fail_why));
		memcpy(c.fail_opt, ff.opt, sizeof(c.fail_opt));
	}
	c.listing_fd = listing_handoff(&c, &nl);
	c.nlisted = nl.n;
	plan_history_load(&c, hooks ? hooks->history : NULL);
	rc = plan_build(&c, &nl, &err);
	if (rc < 0) {
		fprintf(stderr, "memguard run: %s\n", err.msg);
		code = rc == MG_EINVAL ? MG_EXIT_USAGE : MG_EXIT_INFRA;
		goto out;
	}
	plan_history(&c);

	lane_init_all(&c);
	lane_tmp_make(&c);
	plan_shares(&c);
	record_limits(&c); /* after the lanes: an rss budget is their pool */
	{
		/* the user's command, not a driver's shim (this executable) */
		char *suite = o.suite   ? report_strdup(o.suite)
		              : o.shell ? report_strdup("shell")
		                        : basename_dup(o.host_argv[0]);
		char *cmdline = command_line(o.host_argv, o.host_argc);
		record_shards(&c, suite, cmdline);
		free(suite);
		free(cmdline);
	}

	c.prog = progress_new(c.nlanes, c.ntests, o.quiet);
	/* wrap: the command's output in the job log as it runs, as make's own */
	c.stream = c.driver == DRIVER_WRAP && !o.quiet;
	supervise_run(&c);
	if (c.signo || c.deadline_hit)
		supervise_stop_all(&c, END_INTERRUPTED,
		                   c.signo ? "interrupted" : "run deadline reached");
	record_unrun(&c);
	supervise_stop_all(&c, END_INTERRUPTED, "runner ended");
	record_stream_flush(&c);
	progress_end(c.prog);
	listing_custom(&c, 1, &err); /* a failing one is an entry of its own */
	listing_extras(&c, &nl);
	listing_ctest_failed(&c);
	listing_all_skipped(&c);
	listing_no_tests_run(&c);

	identity_join(&ident);
	record_finish(&c);
	code = policy_exit_code(&c);
	c.rep->exit_code = code;

	/* a stop signal from here on ends the writing: what is left unwritten
	 * stays as it was (no half-written file), then the signal is re-raised;
	 * in a run a signal stopped, the same stop repeated is not a second one
	 * (supervise_stop_again) */
	int was = c.signo;
	int stop = supervise_stop_again(&c, was);
	supervise_interruptible_writes();
	if (o.report && report_save(c.rep, o.report, &err) < 0) {
		fprintf(stderr, "memguard run: %s\n", err.msg);
		if (!c.signo)
			code = MG_EXIT_INFRA;
	}
	stop |= supervise_stop_again(&c, was);
	/* The job log always gets the table and the tests that did not pass
	 * (whatever adapters write elsewhere: a step summary, files); -q drops
	 * it only when adapters are given, else it is the run's one output. */
	int table_shown = 0;
	for (size_t i = 0; i < o.nadapters; i++)
		table_shown |= adapters_console_on_stdout(o.adapters[i]);
	if (!stop && !table_shown && (o.nadapters == 0 || !o.quiet)) {
		if (adapters_render(c.rep, "console", &err) < 0)
			fprintf(stderr, "memguard run: %s\n", err.msg);
		fflush(stdout);
		stop = supervise_stop_again(&c, was);
	}
	/* An output CI reads that could not be written is an infrastructure
	 * error (3), even when tests failed (1): the failure would go unseen. */
	for (size_t i = 0; i < o.nadapters && !stop; i++) {
		if (adapters_render(c.rep, o.adapters[i], &err) < 0) {
			fprintf(stderr, "memguard run: adapter %s: %s\n", o.adapters[i], err.msg);
			if (!c.signo)
				code = MG_EXIT_INFRA;
		}
		stop = supervise_stop_again(&c, was);
	}
	if (!stop)
		code = user_output(&c, &o, uo, code);
	if (c.protocol_breaks && !c.signo) /* under the console's table */
		fprintf(stderr,
		        "memguard run: %u host%s broke the protocol (the generations say how; "
		        "their tests ran again in fresh hosts)\n",
		        c.protocol_breaks, c.protocol_breaks == 1 ? "" : "s");
	lanes_hint(&c, &o, code);
	/* last, under the console's table: no test ran, whatever the exit */
	const char *who = NULL;
	if (code == MG_EXIT_NO_TESTS)
		fprintf(stderr,
		        "memguard run: no tests ran (--allow-no-tests makes that exit 0)\n");
	else if (code == MG_EXIT_OK && !c.signo && !o.allow_no_tests && c.rep->totals.tests == 0 &&
	         policy_no_tests_exit(&c, &who) == MG_EXIT_OK)
		fprintf(stderr,
		        "memguard run: no tests ran (exit 0, as %s exits then; --fail-no-tests "
		        "makes that exit 5)\n",
		        who ? who : "the framework");
out:
	identity_join(&ident);
	/* hosts still being torn down: killed and waited for, each by its pid
	 * (spawn_free), before the namespace ends */
	for (size_t i = 0; i < c.nreap; i++)
		spawn_free(c.reap[i].proc);
	c.nreap = 0;
	supervise_reap_orphans();
	lane_tmp_remove(&c);
	if (c.run_dir && rm_tree(c.run_dir) < 0)
		fprintf(stderr, "memguard run: cannot remove %s: %s\n", c.run_dir, strerror(errno));
	free(c.run_dir);
	for (unsigned i = 0; i < c.nlanes; i++) {
		free(c.lanes[i].h.flight);
		timeline_free(&c.lanes[i].tl);
	}
	free(c.lanes);
	for (size_t i = 0; i < c.ntests; i++) {
		free(c.tests[i].out);
		free(c.tests[i].tail);
	}
	mg_bulk_free(c.tests, c.tests_cap * sizeof(*c.tests));
	for (size_t i = 0; i < c.nnear_first; i++)
		free(c.near_first[i].msg);
	free(c.near_first);
	free(c.extras);
	free(c.q);
	free(c.rq);
	free(c.wait_first);
	free(c.wait);
	free(c.share_first);
	free(c.share_len);
	free(c.shim_argv);
	if (c.listing_fd >= 0)
		close(c.listing_fd);
	free(c.reap);
	free(c.envp);
	for (int i = 0; i < ENV_SLOTS; i++)
		free(c.env_store[i]);
	plan_names_free(&nl);
	progress_free(c.prog);
	report_free(c.rep);
	options_free(&o);
	if (c.signo) {
		/* Every host is ended and the report written: leave the way the
		 * signal would have had us leave (a shell shows 128 + N). */
		sigset_t set;
		signal(c.signo, SIG_DFL);
		sigemptyset(&set);
		sigaddset(&set, c.signo);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		raise(c.signo);
		return 128 + c.signo;
	}
	return code;
}

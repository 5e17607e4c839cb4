/*
 * test_bisect.c - memguard bisect: the search against planted oracles, the
 * plan read from reports, and the command end to end against fault_host64
 * (a culprit planted among 200 tests run in one host), exit codes included.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bisect.h"
#include "mg_test.h"

/* ---- the search --------------------------------------------------------------- */

/* Fails when every index of need[] is among the candidates run (and, with
 * threshold, when at least that many candidates ran). */
typedef struct planted {
	size_t need[4];
	size_t nneed;
	size_t threshold;
	unsigned calls;
	int error_at; /* the call that reports an infrastructure error; 0: none */
	int sorted;   /* every call got ascending indices */
} planted;

static int planted_oracle(void *ctx, const size_t *idx, size_t n)
{
	planted *p = ctx;
	p->calls++;
	if (p->error_at && (int)p->calls == p->error_at)
		return -BISECT_INFRA;
	for (size_t i = 1; i < n; i++)
		p->sorted &= idx[i - 1] < idx[i];
	if (p->threshold)
		return n >= p->threshold;
	size_t found = 0;
	for (size_t k = 0; k < p->nneed; k++)
		for (size_t i = 0; i < n; i++)
			found += idx[i] == p->need[k];
	return p->nneed && found == p->nneed;
}

static void search_single(void)
{
	for (size_t c = 0; c < 180; c += 7) {
		planted p = {.need = {c}, .nneed = 1, .sorted = 1};
		bisect_result r;
		CU_ASSERT_EQUAL(bisect_search(&r, 180, planted_oracle, &p), 0);
		CU_ASSERT(r.reproduced && !r.alone && !r.cumulative);
		CU_ASSERT_EQUAL(r.nculprits, 1);
		CU_ASSERT_EQUAL(r.culprits[0], c);
		CU_ASSERT_EQUAL(r.prefix, c + 1);
		/* all, alone, ~log2(180) halvings, the confirmation */
		CU_ASSERT(r.runs <= 2 + 8 + 1);
		CU_ASSERT_EQUAL(r.runs, p.calls);
		CU_ASSERT(p.sorted);
	}
}

static void search_pair(void)
{
	planted p = {.need = {20, 150}, .nneed = 2, .sorted = 1};
	bisect_result r;
	CU_ASSERT_EQUAL(bisect_search(&r, 180, planted_oracle, &p), 0);
	CU_ASSERT_EQUAL(r.nculprits, 2);
	CU_ASSERT_EQUAL(r.culprits[0], 20);
	CU_ASSERT_EQUAL(r.culprits[1], 150);
	CU_ASSERT_EQUAL(r.prefix, 151);
	CU_ASSERT(p.sorted);
	planted q = {.need = {0, 1, 2}, .nneed = 3, .sorted = 1};
	CU_ASSERT_EQUAL(bisect_search(&r, 3, planted_oracle, &q), 0);
	CU_ASSERT_EQUAL(r.nculprits, 3);
}

static void search_no_candidates(void)
{
	bisect_result r;
	planted never = {.need = {0}, .nneed = 1};
	CU_ASSERT_EQUAL(bisect_search(&r, 0, planted_oracle, &never), 0);
	CU_ASSERT(!r.reproduced);
	CU_ASSERT_EQUAL(r.runs, 1);
}

static int always_fails(void *ctx, const size_t *idx, size_t n)
{
	(void)ctx;
	(void)idx;
	(void)n;
	return 1;
}

static void search_target_alone(void)
{
	bisect_result r;
	CU_ASSERT_EQUAL(bisect_search(&r, 120, always_fails, NULL), 0);
	CU_ASSERT(r.reproduced && r.alone);
	CU_ASSERT_EQUAL(r.nculprits, 0);
	CU_ASSERT_EQUAL(r.runs, 2);
	CU_ASSERT_EQUAL(bisect_search(&r, 0, always_fails, NULL), 0);
	CU_ASSERT(r.reproduced && r.alone);
	CU_ASSERT_EQUAL(r.runs, 1);
}

static void search_not_reproduced(void)
{
	planted p = {.need = {500}, .nneed = 1};
	bisect_result r;
	CU_ASSERT_EQUAL(bisect_search(&r, 200, planted_oracle, &p), 0);
	CU_ASSERT(!r.reproduced);
	CU_ASSERT_EQUAL(r.runs, 1);
}

static void search_cumulative(void)
{
	/* fails once 30 tests ran before it, whichever they are */
	planted p = {.threshold = 30, .sorted = 1};
	bisect_result r;
	CU_ASSERT_EQUAL(bisect_search(&r, 200, planted_oracle, &p), 0);
	CU_ASSERT(r.reproduced && r.cumulative);
	CU_ASSERT_EQUAL(r.prefix, 30);
	CU_ASSERT_EQUAL(r.nculprits, BISECT_MAX_CULPRITS);
}

static void search_error(void)
{
	planted p = {.need = {3}, .nneed = 1, .error_at = 4};
	bisect_result r;
	CU_ASSERT_EQUAL(bisect_search(&r, 100, planted_oracle, &p), -BISECT_INFRA);
	CU_ASSERT_EQUAL(p.calls, 4);
}

/* ---- the plan ------------------------------------------------------------------ */

static report_test *add_test(report_shard *s, const char *name, test_state st, uint32_t gen,
                             uint32_t attempts)
{
	report_test *t = report_shard_add_test(s);
	t->name = report_strdup(name);
	t->state = st;
	t->generation = gen;
	t->attempts = attempts;
	return t;
}

static void add_gen(report_shard *s, const char *end)
{
	report_generation *g = report_shard_add_generation(s);
	g->index = (uint32_t)(s->ngens - 1);
	g->end = report_strdup(end);
}

/* Shard 0: host 0 recycles after a,b; host 1 ran c,d and crashed in e;
 * host 2 ran f,g and was killed in h (retried first in host 3, passed).
 * Shard 1: nothing abnormal. */
static report *plan_report(void)
{
	report *r = report_new();
	report_shard *s = report_add_shard(r);
	s->index = 0;
	add_gen(s, "recycle");
	add_gen(s, "crash");
	add_gen(s, "kill");
	add_gen(s, "quit");
	add_test(s, "a", TEST_PASS, 0, 1);
	add_test(s, "b", TEST_PASS, 0, 1);
	add_test(s, "c", TEST_PASS, 1, 1);
	add_test(s, "d", TEST_FAIL, 1, 1);
	add_test(s, "e", TEST_CRASH, 1, 1);
	add_test(s, "f", TEST_PASS, 2, 1);
	add_test(s, "g", TEST_PASS, 2, 1);
	add_test(s, "h", TEST_PASS, 3, 2);
	add_test(s, "i", TEST_PASS, 3, 1);
	s = report_add_shard(r);
	s->index = 1;
	add_gen(s, "quit");
	add_test(s, "z", TEST_PASS, 0, 1);
	return r;
}

static void plan_crash(void)
{
	report *r = plan_report();
	bisect_plan p;
	mg_err err = {0};
	CU_ASSERT_EQUAL(bisect_plan_from_report(&p, r, NULL, -1, NULL, &err), 0);
	CU_ASSERT_EQUAL(p.n, 3);
	CU_ASSERT_STRING_EQUAL(p.names[0], "c");
	CU_ASSERT_STRING_EQUAL(p.names[1], "d");
	CU_ASSERT_STRING_EQUAL(p.names[2], "e");
	CU_ASSERT_STRING_EQUAL(p.failure, "crash");
	CU_ASSERT_STRING_EQUAL(p.shard, "0");
	CU_ASSERT_EQUAL(p.generation, 1);
	bisect_plan_free(&p);
	bisect_plan_free(NULL);
	report_free(r);
}

static void plan_kill(void)
{
	report *r = plan_report();
	bisect_plan p;
	mg_err err = {0};
	CU_ASSERT_EQUAL(bisect_plan_from_report(&p, r, "0", 2, NULL, &err), 0);
	CU_ASSERT_EQUAL(p.n, 3);
	CU_ASSERT_STRING_EQUAL(p.names[0], "f");
	CU_ASSERT_STRING_EQUAL(p.names[1], "g");
	CU_ASSERT_STRING_EQUAL(p.names[2], "h");
	CU_ASSERT_STRING_EQUAL(p.failure, "kill");
	bisect_plan_free(&p);
	/* a named target in a host that ended normally */
	CU_ASSERT_EQUAL(bisect_plan_from_report(&p, r, "0", 0, "b", &err), 0);
	CU_ASSERT_EQUAL(p.n, 2);
	CU_ASSERT_STRING_EQUAL(p.names[0], "a");
	CU_ASSERT_PTR_NULL(p.failure);
	bisect_plan_free(&p);
	report_free(r);
}

/* As the runner records a kill: the tests queued behind the killed one run
 * in the next host (counted as second attempts), the killed test is retried
 * alone in the host after that. */
static void plan_kill_pipelined(void)
{
	report *r = report_new();
	report_shard *s = report_add_shard(r);
	add_gen(s, "kill");
	add_gen(s, "recycle");
	add_gen(s, "quit");
	s->gens[0].tests_run = 2;
	s->gens[1].tests_run = 2;
	s->gens[2].tests_run = 1;
	add_test(s, "a", TEST_PASS, 0, 1);
	add_test(s, "b", TEST_PASS, 0, 1);
	add_test(s, "d", TEST_PASS, 1, 2);
	add_test(s, "e", TEST_PASS, 1, 2);
	add_test(s, "c", TEST_PASS, 2, 2);
	bisect_plan p;
	mg_err err = {0};
	CU_ASSERT_EQUAL(bisect_plan_from_report(&p, r, NULL, -1, NULL, &err), 0);
	CU_ASSERT_EQUAL(p.n, 3);
	CU_ASSERT_STRING_EQUAL(p.names[2], "c");
	bisect_plan_free(&p);
	report_free(r);
}

static void plan_errors(void)
{
	report *r = plan_report();
	bisect_plan p;
	mg_err err = {0};
	CU_ASSERT_EQUAL(bisect_plan_from_report(&p, r, "1", -1, NULL, &err), MG_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no host crashed or was killed"));
	CU_ASSERT_EQUAL(bisect_plan_from_report(&p, r, "7", -1, NULL, &err), MG_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no such shard"));
	CU_ASSERT_EQUAL(bisect_plan_from_report(&p, r, "x", -1, NULL, &err), MG_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'x' is not N or NODE.N"));
	CU_ASSERT_EQUAL(bisect_plan_from_report(&p, r, "0", 9, NULL, &err), MG_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no host generation 9"));
	CU_ASSERT_EQUAL(bisect_plan_from_report(&p, r, "0", 0, NULL, &err), MG_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--crash NAME"));
	CU_ASSERT_EQUAL(bisect_plan_from_report(&p, r, NULL, -1, "nope", &err), MG_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no test 'nope'"));
	report_free(r);
}

/* ---- end to end ------------------------------------------------------------------ */

typedef struct outcome {
	int status;
	char out[1 << 14];
	char err[1 << 16];
	char dir[64];
} outcome;

static void slurp(const char *path, char *buf, size_t cap)
{
	buf[0] = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	size_t n = fread(buf, 1, cap - 1, f);
	buf[n] = 0;
	fclose(f);
}

/* Runs argv in a fresh directory with the fault plan in the environment. */
static void mg_n(outcome *o, const char *const *argv, const char *fault, const char *need,
                 const char *ntests)
{
	char outp[96], errp[96];
	memset(o, 0, sizeof(*o));
	snprintf(o->dir, sizeof(o->dir), "/tmp/mg-bisect-XXXXXX");
	CU_ASSERT_FATAL(mkdtemp(o->dir) != NULL);
	snprintf(outp, sizeof(outp), "%s/stdout", o->dir);
	snprintf(errp, sizeof(errp), "%s/stderr", o->dir);
	fflush(NULL);
	pid_t pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		int fo = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int fe = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0 || chdir(o->dir) < 0)
			_exit(126);
		setenv("MG_FAULT_TESTS", ntests, 1);
		setenv("MG_FAULT", fault, 1);
		if (need)
			setenv("MG_FAULT_POISON_NEED", need, 1);
		else
			unsetenv("MG_FAULT_POISON_NEED");
		setenv("TMPDIR", o->dir, 1);
		unsetenv("CI");
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	while (waitpid(pid, &o->status, 0) < 0 && errno == EINTR)
		;
	slurp(outp, o->out, sizeof(o->out));
	slurp(errp, o->err, sizeof(o->err));
}

static void mg(outcome *o, const char *const *argv, const char *fault, const char *need)
{
	mg_n(o, argv, fault, need, "200");
}

static void done(outcome *o)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", o->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", o->dir);
}

static int exited_with(const outcome *o, int code)
{
	if (WIFEXITED(o->status) && WEXITSTATUS(o->status) == code)
		return 1;
	fprintf(stderr, "expected exit %d, got status 0x%x\nstdout:\n%s\nstderr:\n%s\n", code,
	        o->status, o->out, o->err);
	return 0;
}

/* The runs of the runner's own: skipped when it does not honour --tests-from. */
static void skip_without_tests_from(const outcome *o)
{
	if (strstr(o->err, "did not run exactly the")) {
		printf("SKIP: memguard run ignores --tests-from in this build\n");
		exit(77);
	}
}

/* No run files left in TMPDIR (the outcome's directory). */
static int no_leftovers(const outcome *o)
{
	char cmd[160], buf[256];
	snprintf(cmd, sizeof(cmd), "ls -d %s/memguard-bisect-* 2>/dev/null", o->dir);
	FILE *p = popen(cmd, "r");
	size_t n = p ? fread(buf, 1, sizeof(buf) - 1, p) : 0;
	if (p)
		pclose(p);
	return n == 0;
}

static void bisect_report_crash(void)
{
	/* one host runs all 200 tests; t180 crashes only after t037 ran */
	const char *fault = "poison@37,crashpoisoned@180,fail@12,skip@90";
	outcome run, o;
	const char *run_argv[] = {MEMGUARD_EXE, "run",      "-j", "1",        "--quiet",
	                          "--report",   "mem.json", "--", FAULT_HOST, NULL};
	mg(&run, run_argv, fault, NULL);
	CU_ASSERT(exited_with(&run, 1));
	char report[128], out[128];
	snprintf(report, sizeof(report), "%s/mem.json", run.dir);
	snprintf(out, sizeof(out), "%s/bisect.json", run.dir);
	const char *argv[] = {MEMGUARD_EXE, "bisect", "--report", report, "--out",
	                      out,          "--",     FAULT_HOST, NULL};
	mg(&o, argv, fault, NULL);
	skip_without_tests_from(&o);
	CU_ASSERT(exited_with(&o, BISECT_FOUND));
	CU_ASSERT_STRING_EQUAL(o.out, "culprit: fault/t037 (with it, fault/t180 crashes)\n");
	CU_ASSERT_PTR_NOT_NULL(strstr(o.err, "shard 0, host 0: 180 tests ran before fault/t180"));
	CU_ASSERT(no_leftovers(&o));
	json_error_t je;
	json_t *j = json_load_file(out, 0, &je);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(j, "schema")),
	                       "memguard-bisect/1");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(j, "target")), "fault/t180");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(j, "failure")), "crash");
	json_t *c = json_object_get(j, "culprits");
	CU_ASSERT_EQUAL(json_array_size(c), 1);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_array_get(c, 0)), "fault/t037");
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(j, "candidates")), 180);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(j, "smallest_prefix")), 38);
	CU_ASSERT(json_integer_value(json_object_get(j, "runs")) <= 11);
	json_decref(j);
	done(&o);
	done(&run);
}

static void bisect_report_kill(void)
{
	/* t030 reserves 3 GiB for 2 s: alone it stays under the 3.05 GiB kill
	 * limit; after t007 leaked 64 MiB in the same host it is killed */
	const char *fault = "leak@7,reserve@30";
	outcome run, o;
	const char *run_argv[] = {MEMGUARD_EXE, "run",       "-j",       "1",
	                          "--quiet",    "--kill-at", "va=3.05G", "--report",
	                          "mem.json",   "--",        FAULT_HOST, NULL};
	mg_n(&run, run_argv, fault, NULL, "40");
	CU_ASSERT(exited_with(&run, 0));
	char report[128];
	snprintf(report, sizeof(report), "%s/mem.json", run.dir);
	const char *argv[] = {MEMGUARD_EXE, "bisect", "--report", report, "--kill-at",
	                      "va=3.05G",   "--",     FAULT_HOST, NULL};
	mg_n(&o, argv, fault, NULL, "40");
	skip_without_tests_from(&o);
	CU_ASSERT(exited_with(&o, BISECT_FOUND));
	CU_ASSERT_STRING_EQUAL(o.out, "culprit: fault/t007 (with it, fault/t030 is killed)\n");
	CU_ASSERT_PTR_NOT_NULL(strstr(o.err, "30 tests ran before fault/t030 (kill)"));
	done(&o);
	done(&run);
}

/* The run's config file is honoured, minus what would write outside the
 * bisect runs (adapters, report) or change their shape (jobs). */
static void bisect_config(void)
{
	char cfg[] = "/tmp/mg-bisect-cfg-XXXXXX";
	int fd = mkstemp(cfg);
	CU_ASSERT_FATAL(fd >= 0);
	static const char text[] = "{\"adapter\": [\"junit=junit.xml\", \"html=page.html\"], "
	                           "\"report\": \"mem.json\", \"jobs\": 4, \"timeout\": \"30s\"}";
	CU_ASSERT_EQUAL(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(fd);
	outcome o;
	const char *argv[] = {MEMGUARD_EXE, "bisect", "--config", cfg, "--crash",
	                      "fault/t180", "--",     FAULT_HOST, NULL};
	mg(&o, argv, "poison@99,crashpoisoned@180", NULL);
	skip_without_tests_from(&o);
	CU_ASSERT(exited_with(&o, BISECT_FOUND));
	CU_ASSERT_STRING_EQUAL(o.out, "culprit: fault/t099 (with it, fault/t180 fails)\n");
	char path[128];
	static const char *const never[] = {"junit.xml", "page.html", "mem.json"};
	for (size_t i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", o.dir, never[i]);
		CU_ASSERT_EQUAL(access(path, F_OK), -1);
	}
	CU_ASSERT(no_leftovers(&o));
	done(&o);
	/* a config that is not JSON is a usage error */
	FILE *f = fopen(cfg, "w");
	fputs("{not json", f);
	fclose(f);
	mg(&o, argv, "", NULL);
	CU_ASSERT(exited_with(&o, BISECT_USAGE));
	CU_ASSERT_PTR_NOT_NULL(strstr(o.err, "memguard bisect: config "));
	done(&o);
	unlink(cfg);
}

static void bisect_crash_name(void)
{
	outcome o;
	const char *argv[] = {MEMGUARD_EXE, "bisect",   "--crash", "fault/t180",
	                      "--",         FAULT_HOST, NULL};
	mg(&o, argv, "poison@137,crashpoisoned@180", NULL);
	skip_without_tests_from(&o);
	CU_ASSERT(exited_with(&o, BISECT_FOUND));
	CU_ASSERT_STRING_EQUAL(o.out, "culprit: fault/t137 (with it, fault/t180 fails)\n");
	CU_ASSERT_PTR_NOT_NULL(strstr(o.err, "180 tests listed before fault/t180"));
	CU_ASSERT(no_leftovers(&o));
	done(&o);
}

static void bisect_pair(void)
{
	outcome o;
	const char *argv[] = {MEMGUARD_EXE, "bisect",   "--crash", "fault/t199",
	                      "--",         FAULT_HOST, NULL};
	mg(&o, argv, "poison@3,poison@150,crashpoisoned@199", "2");
	skip_without_tests_from(&o);
	CU_ASSERT(exited_with(&o, BISECT_FOUND));
	CU_ASSERT_STRING_EQUAL(o.out,
	                       "culprits: fault/t003 + fault/t150 (with them, fault/t199 fails)\n");
	done(&o);
}

static void bisect_alone(void)
{
	outcome o;
	const char *argv[] = {MEMGUARD_EXE, "bisect",   "--crash", "fault/t050",
	                      "--",         FAULT_HOST, NULL};
	mg(&o, argv, "segv@50", NULL);
	skip_without_tests_from(&o);
	CU_ASSERT(exited_with(&o, BISECT_FOUND));
	CU_ASSERT_STRING_EQUAL(o.out,
	                       "culprit: fault/t050 itself (it fails alone in a fresh host)\n");
	done(&o);
}

static void bisect_not_reproducible(void)
{
	outcome o;
	const char *argv[] = {MEMGUARD_EXE, "bisect",   "--crash", "fault/t100",
	                      "--",         FAULT_HOST, NULL};
	mg(&o, argv, "poison@37,crashpoisoned@180", NULL);
	skip_without_tests_from(&o);
	CU_ASSERT(exited_with(&o, BISECT_NOT_REPRODUCED));
	CU_ASSERT_PTR_NOT_NULL(strstr(o.out, "not reproducible: fault/t100"));
	done(&o);
}

static void bisect_usage(void)
{
	static const char *const cases[][8] = {
	    {"bisect", NULL},
	    {"bisect", "--crash", "fault/t001", NULL},
	    {"bisect", "--", FAULT_HOST, NULL},
	    {"bisect", "--crash", "fault/t001", "-j", "4", "--", FAULT_HOST, NULL},
	    {"bisect", "--crash", "fault/t001", "--report=x.json", "--shard", "q", "--", NULL},
	    {"bisect", "--crash", "fault/t001", "--generation", "-1", "--", FAULT_HOST, NULL},
	    {"bisect", "--crash", "fault/t001", "--shard", "0", "--", FAULT_HOST, NULL},
	    {"bisect", "--crash", "fault/t999", "--", FAULT_HOST, NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *argv[10] = {MEMGUARD_EXE};
		for (size_t k = 0; cases[i][k]; k++)
			argv[k + 1] = cases[i][k];
		outcome o;
		mg(&o, argv, "", NULL);
		CU_ASSERT(exited_with(&o, BISECT_USAGE));
		CU_ASSERT_PTR_NOT_NULL(strstr(o.err, "memguard bisect: "));
		CU_ASSERT(no_leftovers(&o));
		done(&o);
	}
	/* a report in which nothing crashed */
	outcome run, o;
	const char *run_argv[] = {MEMGUARD_EXE, "run",      "-j", "1",        "--quiet",
	                          "--report",   "mem.json", "--", FAULT_HOST, NULL};
	mg(&run, run_argv, "", NULL);
	CU_ASSERT(exited_with(&run, 0));
	char report[128];
	snprintf(report, sizeof(report), "%s/mem.json", run.dir);
	const char *argv[] = {MEMGUARD_EXE, "bisect", "--report", report, "--", FAULT_HOST, NULL};
	mg(&o, argv, "", NULL);
	CU_ASSERT(exited_with(&o, BISECT_USAGE));
	CU_ASSERT_PTR_NOT_NULL(strstr(o.err, "no host crashed or was killed in the report"));
	done(&o);
	done(&run);
}

static void bisect_infra(void)
{
	outcome o;
	const char *missing[] = {MEMGUARD_EXE, "bisect",   "--report", "/nonexistent/mem.json",
	                         "--",         FAULT_HOST, NULL};
	mg(&o, missing, "", NULL);
	CU_ASSERT(exited_with(&o, BISECT_INFRA));
	done(&o);
	const char *nohost[] = {MEMGUARD_EXE,        "bisect", "--crash", "x", "--",
	                        "/nonexistent/host", NULL};
	mg(&o, nohost, "", NULL);
	CU_ASSERT(exited_with(&o, BISECT_INFRA));
	CU_ASSERT_PTR_NOT_NULL(strstr(o.err, "memguard list failed"));
	done(&o);
}

static const mg_case cases[] = {
    {"bisect_search_single", search_single},
    {"bisect_search_pair", search_pair},
    {"bisect_search_no_candidates", search_no_candidates},
    {"bisect_search_target_alone", search_target_alone},
    {"bisect_search_not_reproduced", search_not_reproduced},
    {"bisect_search_cumulative", search_cumulative},
    {"bisect_search_error", search_error},
    {"bisect_plan_crash", plan_crash},
    {"bisect_plan_kill", plan_kill},
    {"bisect_plan_kill_pipelined", plan_kill_pipelined},
    {"bisect_plan_errors", plan_errors},
    {"bisect_report_crash", bisect_report_crash},
    {"bisect_report_kill", bisect_report_kill},
    {"bisect_config", bisect_config},
    {"bisect_crash_name", bisect_crash_name},
    {"bisect_pair", bisect_pair},
    {"bisect_alone", bisect_alone},
    {"bisect_not_reproducible", bisect_not_reproducible},
    {"bisect_usage", bisect_usage},
    {"bisect_infra", bisect_infra},
};

MG_TEST_MAIN("diagnosis", cases)

/*
 * test_bisect.c - memguard bisect: the search against planted oracles, the
 * plan read from reports, and the command end to end against fault_host64
 * (a culprit planted among 200 tests run in one host), exit codes included.
 * Long on purpose: one case after another, each on its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bisect.h"
#include "mg_run.h"

/* ---- the search --------------------------------------------------------------- */

/* Fails when every index of need[] is among the candidates run (and, with
 * threshold, when at least that many candidates ran). */
typedef struct planted {
	size_t need[8];
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
		return -MG_EXIT_INFRA;
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

/* Remembers every set asked: none is asked twice (a set known to fail is
 * not run again to confirm it). */
typedef struct recorder {
	planted p;
	size_t sets[64][64];
	size_t lens[64];
	unsigned n;
	int repeated;
	int flaky_at; /* the call of {0} (counted from 1) that passes; 0: never */
	unsigned zero_calls;
} recorder;

static int recording_oracle(void *ctx, const size_t *idx, size_t n)
{
	recorder *r = ctx;
	for (unsigned i = 0; i < r->n; i++)
		if (r->lens[i] == n && n <= 64 && !memcmp(r->sets[i], idx, n * sizeof(*idx)))
			r->repeated = 1;
	if (r->n < 64 && n <= 64) {
		memcpy(r->sets[r->n], idx, n * sizeof(*idx));
		r->lens[r->n++] = n;
	}
	if (n == 1 && idx[0] == 0 && ++r->zero_calls == (unsigned)r->flaky_at)
		return 0;
	return planted_oracle(&r->p, idx, n);
}

static void search_known_fails(void)
{
	/* the culprit first: the halving ends on {0}, already known to fail */
	recorder rec = {.p = {.need = {0}, .nneed = 1, .sorted = 1}};
	bisect_result r;
	CU_ASSERT_EQUAL(bisect_search(&r, 180, recording_oracle, &rec), 0);
	CU_ASSERT_EQUAL(r.nculprits, 1);
	CU_ASSERT_EQUAL(r.culprits[0], 0);
	CU_ASSERT(!rec.repeated);
	CU_ASSERT_EQUAL(r.runs, 2 + 7); /* all, alone, 90 45 22 11 5 2 1 */
	for (size_t c = 0; c < 60; c++) {
		recorder q = {.p = {.need = {c}, .nneed = 1}};
		CU_ASSERT_EQUAL(bisect_search(&r, 60, recording_oracle, &q), 0);
		CU_ASSERT(!q.repeated);
		CU_ASSERT_EQUAL(r.culprits[0], c);
	}
	recorder pair = {.p = {.need = {0, 1}, .nneed = 2}};
	CU_ASSERT_EQUAL(bisect_search(&r, 40, recording_oracle, &pair), 0);
	CU_ASSERT(!pair.repeated && !r.cumulative);
	CU_ASSERT_EQUAL(r.nculprits, 2);
	/* eight needed, all found: not "more than eight" */
	planted eight = {.need = {0, 3, 9, 17, 30, 31, 35, 39}, .nneed = 8, .sorted = 1};
	CU_ASSERT_EQUAL(bisect_search(&r, 40, planted_oracle, &eight), 0);
	CU_ASSERT(!r.cumulative);
	CU_ASSERT_EQUAL(r.nculprits, 8);
	CU_ASSERT_EQUAL(r.culprits[7], 39);
	/* a flaky answer ({0} passes when asked again) is not reported as
	 * cumulative: {0} is asked once */
	recorder flaky = {.p = {.need = {0}, .nneed = 1}, .flaky_at = 2};
	CU_ASSERT_EQUAL(bisect_search(&r, 16, recording_oracle, &flaky), 0);
	CU_ASSERT(!r.cumulative);
	CU_ASSERT_EQUAL(r.nculprits, 1);
	CU_ASSERT_EQUAL(flaky.zero_calls, 1);
}

static void search_error(void)
{
	planted p = {.need = {3}, .nneed = 1, .error_at = 4};
	bisect_result r;
	CU_ASSERT_EQUAL(bisect_search(&r, 100, planted_oracle, &p), -MG_EXIT_INFRA);
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
	g->end = (report_end)report_end_parse(end);
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
	CU_ASSERT_EQUAL(p.failure, REPORT_END_CRASH);
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
	CU_ASSERT_EQUAL(p.failure, REPORT_END_KILL);
	bisect_plan_free(&p);
	/* a named target in a host that ended normally */
	CU_ASSERT_EQUAL(bisect_plan_from_report(&p, r, "0", 0, "b", &err), 0);
	CU_ASSERT_EQUAL(p.n, 2);
	CU_ASSERT_STRING_EQUAL(p.names[0], "a");
	CU_ASSERT_EQUAL(p.failure, REPORT_END_RUNNING);
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

/* --crash NAME without --generation: the target's host, and only the tests
 * it ran before the target (a named test in the middle of a host). */
static void plan_target(void)
{
	report *r = plan_report();
	bisect_plan p;
	mg_err err = {0};
	CU_ASSERT_EQUAL(bisect_plan_from_report(&p, r, NULL, -1, "d", &err), 0);
	CU_ASSERT_EQUAL(p.n, 2);
	CU_ASSERT_STRING_EQUAL(p.names[0], "c");
	CU_ASSERT_STRING_EQUAL(p.names[1], "d");
	CU_ASSERT_EQUAL(p.failure, REPORT_END_CRASH);
	CU_ASSERT_EQUAL(p.generation, 1);
	bisect_plan_free(&p);
	/* the first test of a host: no candidates, not the host's later tests */
	CU_ASSERT_EQUAL(bisect_plan_from_report(&p, r, NULL, -1, "f", &err), 0);
	CU_ASSERT_EQUAL(p.n, 1);
	CU_ASSERT_STRING_EQUAL(p.names[0], "f");
	CU_ASSERT_EQUAL(p.generation, 2);
	bisect_plan_free(&p);
	CU_ASSERT_EQUAL(bisect_plan_from_report(&p, r, "0", -1, "i", &err), 0);
	CU_ASSERT_EQUAL(p.n, 2);
	CU_ASSERT_STRING_EQUAL(p.names[0], "h");
	CU_ASSERT_EQUAL(p.generation, 3);
	CU_ASSERT_EQUAL(p.failure, REPORT_END_RUNNING);
	bisect_plan_free(&p);
	/* in another shard */
	CU_ASSERT_EQUAL(bisect_plan_from_report(&p, r, NULL, -1, "z", &err), 0);
	CU_ASSERT_STRING_EQUAL(p.shard, "1");
	CU_ASSERT_EQUAL(p.n, 1);
	bisect_plan_free(&p);
	CU_ASSERT_EQUAL(bisect_plan_from_report(&p, r, "1", -1, "e", &err), MG_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no test 'e' in that shard"));
	report_free(r);
}

static void set_gen(report_shard *s, size_t k, double start, double wall, uint32_t run)
{
	s->gens[k].start = start;
	s->gens[k].wall = wall;
	s->gens[k].tests_run = run;
}

/* Two lanes, one retry queue: the test killed in lane 0 (at 1.0 s) is
 * retried in lane 1 (1.1 s); the one killed in lane 1 (2.5 s) in lane 0
 * (3.0 s). A shard of another suite retried a test earlier. */
static report *two_lanes(void)
{
	report *r = report_new();
	report_shard *s = report_add_shard(r);
	s->node = 1;
	s->index = 0;
	s->suite = report_strdup("fault");
	add_gen(s, "kill");
	add_gen(s, "recycle");
	add_gen(s, "quit");
	set_gen(s, 0, 0, 1.0, 3);
	set_gen(s, 1, 3.0, 0.1, 1);
	set_gen(s, 2, 3.2, 0.5, 1);
	add_test(s, "a", TEST_PASS, 0, 1);
	add_test(s, "b", TEST_PASS, 0, 1);
	add_test(s, "m", TEST_PASS, 1, 2);
	add_test(s, "c", TEST_PASS, 2, 1);
	s = report_add_shard(r);
	s->node = 1;
	s->index = 1;
	s->suite = report_strdup("fault");
	add_gen(s, "recycle");
	add_gen(s, "recycle");
	add_gen(s, "kill");
	add_gen(s, "quit");
	set_gen(s, 0, 0, 0.5, 1);
	set_gen(s, 1, 1.1, 0.1, 1);
	set_gen(s, 2, 1.3, 1.2, 2);
	set_gen(s, 3, 2.6, 0.5, 1);
	add_test(s, "x", TEST_PASS, 0, 1);
	add_test(s, "k", TEST_PASS, 1, 2);
	add_test(s, "y", TEST_PASS, 2, 1);
	add_test(s, "z", TEST_PASS, 3, 1);
	s = report_add_shard(r);
	s->node = 1;
	s->index = 0;
	s->suite = report_strdup("other");
	add_gen(s, "recycle");
	add_gen(s, "quit");
	set_gen(s, 0, 1.0, 0.01, 1);
	set_gen(s, 1, 1.05, 0.1, 1);
	add_test(s, "q", TEST_PASS, 0, 2);
	add_test(s, "w", TEST_PASS, 1, 1);
	return r;
}

static void plan_kill_other_lane(void)
{
	report *r = two_lanes();
	bisect_plan p;
	mg_err err = {0};
	CU_ASSERT_EQUAL(bisect_plan_from_report(&p, r, "0", 0, NULL, &err), MG_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "several"));
	r->shards[2].node = 2;
	/* the first kill: its retry is lane 1's (not m, the later retry in its
	 * own lane, nor q, the other suite's) */
	CU_ASSERT_EQUAL(bisect_plan_from_report(&p, r, "1.0", -1, NULL, &err), 0);
	CU_ASSERT_EQUAL(p.n, 3);
	CU_ASSERT_STRING_EQUAL(p.names[0], "a");
	CU_ASSERT_STRING_EQUAL(p.names[1], "b");
	CU_ASSERT_STRING_EQUAL(p.names[2], "k");
	CU_ASSERT_EQUAL(p.failure, REPORT_END_KILL);
	CU_ASSERT_STRING_EQUAL(p.shard, "1.0");
	CU_ASSERT_EQUAL(p.generation, 0);
	bisect_plan_free(&p);
	/* lane 1's kill: its retry is lane 0's */
	CU_ASSERT_EQUAL(bisect_plan_from_report(&p, r, "1.1", -1, NULL, &err), 0);
	CU_ASSERT_EQUAL(p.n, 2);
	CU_ASSERT_STRING_EQUAL(p.names[0], "y");
	CU_ASSERT_STRING_EQUAL(p.names[1], "m");
	CU_ASSERT_EQUAL(p.generation, 2);
	bisect_plan_free(&p);
	/* named: the host it was killed in, not the one that retried it */
	CU_ASSERT_EQUAL(bisect_plan_from_report(&p, r, NULL, -1, "k", &err), 0);
	CU_ASSERT_EQUAL(p.n, 3);
	CU_ASSERT_STRING_EQUAL(p.shard, "1.0");
	CU_ASSERT_EQUAL(p.generation, 0);
	bisect_plan_free(&p);
	CU_ASSERT_EQUAL(bisect_plan_from_report(&p, r, "1.1", -1, "m", &err), 0);
	CU_ASSERT_EQUAL(p.n, 2);
	CU_ASSERT_STRING_EQUAL(p.names[0], "y");
	CU_ASSERT_EQUAL(p.generation, 2);
	bisect_plan_free(&p);
	report_free(r);
}

/* --generation G without --shard: the shard whose host G ended abnormally. */
static void plan_generation(void)
{
	report *r = report_new();
	report_shard *s = report_add_shard(r);
	s->index = 0;
	add_gen(s, "quit");
	add_test(s, "a", TEST_PASS, 0, 1);
	s = report_add_shard(r);
	s->index = 1;
	add_gen(s, "recycle");
	add_gen(s, "crash");
	add_test(s, "b", TEST_PASS, 0, 1);
	add_test(s, "c", TEST_PASS, 1, 1);
	add_test(s, "d", TEST_CRASH, 1, 1);
	s = report_add_shard(r);
	s->index = 2;
	add_gen(s, "crash");
	add_test(s, "e", TEST_CRASH, 0, 1);
	bisect_plan p;
	mg_err err = {0};
	CU_ASSERT_EQUAL(bisect_plan_from_report(&p, r, NULL, 1, NULL, &err), 0);
	CU_ASSERT_STRING_EQUAL(p.shard, "1");
	CU_ASSERT_EQUAL(p.n, 2);
	CU_ASSERT_STRING_EQUAL(p.names[1], "d");
	bisect_plan_free(&p);
	CU_ASSERT_EQUAL(bisect_plan_from_report(&p, r, NULL, 0, NULL, &err), 0);
	CU_ASSERT_STRING_EQUAL(p.shard, "2");
	CU_ASSERT_STRING_EQUAL(p.names[0], "e");
	bisect_plan_free(&p);
	/* with only normal ends, the first with G (a target named) */
	CU_ASSERT_EQUAL(bisect_plan_from_report(&p, r, NULL, 0, "a", &err), 0);
	CU_ASSERT_STRING_EQUAL(p.shard, "0");
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

/* Runs argv (in a fresh directory, which is also its TMPDIR) with the fault
 * plan in the environment: MG_FAULT, MG_FAULT_TESTS, MG_FAULT_POISON_NEED. */
static void mg_n(outcome *o, const char *const *argv, const char *fault, const char *need,
                 const char *ntests)
{
	char f[512], n[64], p[64];
	snprintf(f, sizeof(f), "MG_FAULT=%s", fault);
	snprintf(n, sizeof(n), "MG_FAULT_TESTS=%s", ntests);
	snprintf(p, sizeof(p), "MG_FAULT_POISON_NEED=%s", need ? need : "");
	mg(o, argv, (const char *const[]){f, n, p, NULL}, 0);
}

static void mg_fault(outcome *o, const char *const *argv, const char *fault, const char *need)
{
	mg_n(o, argv, fault, need, "200");
}

/* Bisect re-runs exact test lists with memguard run --tests-from: a runner
 * that ignores it is a regression these cases must fail on, never a skip. */
static void require_tests_from(const outcome *o)
{
	if (strstr(o->err, "did not run exactly the")) {
		fprintf(stderr, "memguard run ignored --tests-from:\n%s", o->err);
		CU_FAIL_FATAL("memguard run ignores --tests-from");
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
	mg_fault(&run, run_argv, fault, NULL);
	CU_ASSERT(exited_with(&run, 1));
	char report[128], out[128];
	snprintf(report, sizeof(report), "%s/mem.json", run.dir);
	snprintf(out, sizeof(out), "%s/bisect.json", run.dir);
	const char *argv[] = {MEMGUARD_EXE, "bisect", "--report", report, "--out",
	                      out,          "--",     FAULT_HOST, NULL};
	mg_fault(&o, argv, fault, NULL);
	require_tests_from(&o);
	CU_ASSERT(exited_with(&o, MG_EXIT_OK));
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
	require_tests_from(&o);
	CU_ASSERT(exited_with(&o, MG_EXIT_OK));
	CU_ASSERT_STRING_EQUAL(o.out, "culprit: fault/t007 (with it, fault/t030 is killed)\n");
	CU_ASSERT_PTR_NOT_NULL(strstr(o.err, "30 tests ran before fault/t030 (kill)"));
	done(&o);
	done(&run);
}

/* --report with --crash NAME: NAME's own host, and only the tests it ran
 * before NAME. Hosts: 0 t000-t002 (segv), 1 t003 (poison) t004 (crashes
 * poisoned), 2 t005 t006 (segv), 3 the rest. */
static void bisect_report_target(void)
{
	const char *fault = "segv@2,poison@3,crashpoisoned@4,segv@6";
	outcome run, o;
	const char *run_argv[] = {MEMGUARD_EXE, "run",      "-j", "1",        "--quiet",
	                          "--report",   "mem.json", "--", FAULT_HOST, NULL};
	mg_n(&run, run_argv, fault, NULL, "10");
	CU_ASSERT(exited_with(&run, 1));
	char report[128];
	snprintf(report, sizeof(report), "%s/mem.json", run.dir);
	const char *argv[] = {MEMGUARD_EXE, "bisect", "--report", report, "--crash",
	                      "fault/t004", "--",     FAULT_HOST, NULL};
	mg_n(&o, argv, fault, NULL, "10");
	require_tests_from(&o);
	CU_ASSERT(exited_with(&o, MG_EXIT_OK));
	CU_ASSERT_STRING_EQUAL(o.out, "culprit: fault/t003 (with it, fault/t004 crashes)\n");
	CU_ASSERT_PTR_NOT_NULL(strstr(o.err, "shard 0, host 1: 1 tests ran before fault/t004"));
	done(&o);
	/* the crash of another host named */
	argv[5] = "fault/t006";
	mg_n(&o, argv, fault, NULL, "10");
	CU_ASSERT(exited_with(&o, MG_EXIT_OK));
	CU_ASSERT_PTR_NOT_NULL(strstr(o.err, "shard 0, host 2: 1 tests ran before fault/t006"));
	CU_ASSERT_STRING_EQUAL(o.out,
	                       "culprit: fault/t006 itself (it crashes alone in a fresh host)\n");
	done(&o);
	/* the first test of a host: nothing ran before it there */
	argv[5] = "fault/t000";
	mg_n(&o, argv, fault, NULL, "10");
	CU_ASSERT(exited_with(&o, MG_EXIT_FAILED));
	CU_ASSERT_PTR_NOT_NULL(strstr(o.err, "shard 0, host 0: 0 tests ran before fault/t000"));
	done(&o);
	done(&run);
}

/* The list's stderr (a host's warning, memguard's notes) is not a test. */
static void bisect_list_stderr(void)
{
	outcome o;
	char script[160];
	const char *argv[] = {MEMGUARD_EXE, "bisect", "--crash", "fault/t005", "--driver",
	                      "native",     "--",     script,    NULL};
	char dir[] = "/tmp/mg-bisect-sh-XXXXXX";
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(script, sizeof(script), "%s/noisy.sh", dir);
	FILE *f = fopen(script, "w");
	CU_ASSERT_FATAL(f != NULL);
	fprintf(f, "#!/bin/sh\necho 'warning: a noisy host' >&2\nexec '%s' \"$@\"\n", FAULT_HOST);
	fclose(f);
	CU_ASSERT_EQUAL(chmod(script, 0755), 0);
	mg_n(&o, argv, "poison@2,crashpoisoned@5", NULL, "8");
	require_tests_from(&o);
	CU_ASSERT(exited_with(&o, MG_EXIT_OK));
	CU_ASSERT_STRING_EQUAL(o.out, "culprit: fault/t002 (with it, fault/t005 fails)\n");
	CU_ASSERT_PTR_NOT_NULL(strstr(o.err, "5 tests listed before fault/t005"));
	CU_ASSERT(no_leftovers(&o));
	done(&o);
	unlink(script);
	rmdir(dir);
}

/* More than BISECT_MAX_CULPRITS needed: says so, with the right count. */
static void bisect_cumulative(void)
{
	outcome o;
	const char *argv[] = {MEMGUARD_EXE, "bisect",   "--crash", "fault/t030",
	                      "--",         FAULT_HOST, NULL};
	mg_n(&o, argv,
	     "poison@1,poison@3,poison@5,poison@7,poison@9,poison@11,poison@13,"
	     "poison@15,poison@17,crashpoisoned@30",
	     "9", "31");
	require_tests_from(&o);
	CU_ASSERT(exited_with(&o, MG_EXIT_OK));
	CU_ASSERT_PTR_NOT_NULL(strstr(o.out, "no small culprit: fault/t030 fails after the first "
	                                     "18 tests, and more than 8 of them are needed"));
	done(&o);
}

/* Is any process left with TMPDIR=dir in its environment (bisect's child
 * run, its hosts)? Waits up to 5 s for them to go. */
static int strays(const char *dir)
{
	char want[128];
	int n = snprintf(want, sizeof(want), "TMPDIR=%s", dir) + 1;
	for (int tries = 0; tries < 50; tries++) {
		int found = 0;
		FILE *p = popen("ls /proc", "r");
		char line[64];
		while (p && fgets(line, sizeof(line), p)) {
			long pid = strtol(line, NULL, 10);
			if (pid <= 0)
				continue;
			char path[64], env[1 << 15];
			snprintf(path, sizeof(path), "/proc/%ld/environ", pid);
			int fd = open(path, O_RDONLY);
			if (fd < 0)
				continue;
			ssize_t len = read(fd, env, sizeof(env));
			close(fd);
			for (ssize_t i = 0; i + n <= len; i += (ssize_t)strlen(env + i) + 1)
				if (!memcmp(env + i, want, (size_t)n))
					found = 1;
		}
		if (p)
			pclose(p);
		if (!found)
			return 0;
		usleep(100000);
	}
	return 1;
}

/* SIGTERM (SIGINT, SIGHUP: the stop signals of memguard run) to bisect
 * during a run: the run and its hosts end, the directory goes, exit 143
 * (130, 129). */
static void bisect_signal(void)
{
	static const int sigs[] = {SIGTERM, SIGINT, SIGHUP};
	for (size_t k = 0; k < sizeof(sigs) / sizeof(sigs[0]); k++) {
		char dir[] = "/tmp/mg-bisect-sig-XXXXXX";
		CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
		char errp[96];
		snprintf(errp, sizeof(errp), "%s/stderr", dir);
		const char *argv[] = {MEMGUARD_EXE, "bisect", "--crash",  "fault/t009", "--timeout",
		                      "600s",       "--",     FAULT_HOST, NULL};
		fflush(NULL);
		pid_t pid = fork();
		CU_ASSERT_FATAL(pid >= 0);
		if (pid == 0) {
			int fe = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fe < 0 || dup2(fe, 2) < 0 || dup2(fe, 1) < 0 || chdir(dir) < 0)
				_exit(126);
			setenv("MG_FAULT_TESTS", "10", 1);
			setenv("MG_FAULT", "hang@4", 1);
			unsetenv("MG_FAULT_POISON_NEED");
			setenv("TMPDIR", dir, 1);
			execv(argv[0], (char *const *)argv);
			_exit(127);
		}
		/* until the first run's host hangs in t004 */
		char cmd[160];
		snprintf(cmd, sizeof(cmd), "ls %s/memguard-bisect-*/run-1.log >/dev/null 2>&1",
		         dir);
		for (int i = 0; i < 100 && system(cmd) != 0; i++)
			usleep(50000);
		usleep(500000);
		CU_ASSERT_EQUAL(kill(pid, sigs[k]), 0);
		int status = 0;
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		char err[4096];
		slurp(errp, err, sizeof(err));
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 128 + sigs[k])
			fprintf(stderr, "status 0x%x\n%s\n", status, err);
		CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 128 + sigs[k]);
		CU_ASSERT_PTR_NOT_NULL(strstr(err, "memguard bisect: interrupted"));
		CU_ASSERT(!strays(dir));
		snprintf(cmd, sizeof(cmd), "ls -d %s/memguard-bisect-* 2>/dev/null | grep -q .",
		         dir);
		CU_ASSERT(system(cmd) != 0);
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", dir);
	}
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
	mg_fault(&o, argv, "poison@99,crashpoisoned@180", NULL);
	require_tests_from(&o);
	CU_ASSERT(exited_with(&o, MG_EXIT_OK));
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
	mg_fault(&o, argv, "", NULL);
	CU_ASSERT(exited_with(&o, MG_EXIT_USAGE));
	CU_ASSERT_PTR_NOT_NULL(strstr(o.err, "memguard bisect: config "));
	done(&o);
	unlink(cfg);
}

static void bisect_crash_name(void)
{
	outcome o;
	const char *argv[] = {MEMGUARD_EXE, "bisect",   "--crash", "fault/t180",
	                      "--",         FAULT_HOST, NULL};
	mg_fault(&o, argv, "poison@137,crashpoisoned@180", NULL);
	require_tests_from(&o);
	CU_ASSERT(exited_with(&o, MG_EXIT_OK));
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
	mg_fault(&o, argv, "poison@3,poison@150,crashpoisoned@199", "2");
	require_tests_from(&o);
	CU_ASSERT(exited_with(&o, MG_EXIT_OK));
	CU_ASSERT_STRING_EQUAL(o.out,
	                       "culprits: fault/t003 + fault/t150 (with them, fault/t199 fails)\n");
	done(&o);
}

static void bisect_alone(void)
{
	outcome o;
	const char *argv[] = {MEMGUARD_EXE, "bisect",   "--crash", "fault/t050",
	                      "--",         FAULT_HOST, NULL};
	mg_fault(&o, argv, "segv@50", NULL);
	require_tests_from(&o);
	CU_ASSERT(exited_with(&o, MG_EXIT_OK));
	CU_ASSERT_STRING_EQUAL(o.out,
	                       "culprit: fault/t050 itself (it fails alone in a fresh host)\n");
	done(&o);
}

static void bisect_not_reproducible(void)
{
	outcome o;
	const char *argv[] = {MEMGUARD_EXE, "bisect",   "--crash", "fault/t100",
	                      "--",         FAULT_HOST, NULL};
	mg_fault(&o, argv, "poison@37,crashpoisoned@180", NULL);
	require_tests_from(&o);
	CU_ASSERT(exited_with(&o, MG_EXIT_FAILED));
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
		mg_fault(&o, argv, "", NULL);
		CU_ASSERT(exited_with(&o, MG_EXIT_USAGE));
		CU_ASSERT_PTR_NOT_NULL(strstr(o.err, "memguard bisect: "));
		CU_ASSERT(no_leftovers(&o));
		done(&o);
	}
	/* a report in which nothing crashed */
	outcome run, o;
	const char *run_argv[] = {MEMGUARD_EXE, "run",      "-j", "1",        "--quiet",
	                          "--report",   "mem.json", "--", FAULT_HOST, NULL};
	mg_fault(&run, run_argv, "", NULL);
	CU_ASSERT(exited_with(&run, 0));
	char report[128];
	snprintf(report, sizeof(report), "%s/mem.json", run.dir);
	const char *argv[] = {MEMGUARD_EXE, "bisect", "--report", report, "--", FAULT_HOST, NULL};
	mg_fault(&o, argv, "", NULL);
	CU_ASSERT(exited_with(&o, MG_EXIT_USAGE));
	CU_ASSERT_PTR_NOT_NULL(strstr(o.err, "no host crashed or was killed in the report"));
	done(&o);
	done(&run);
}

static void bisect_infra(void)
{
	outcome o;
	const char *missing[] = {MEMGUARD_EXE, "bisect",   "--report", "/nonexistent/mem.json",
	                         "--",         FAULT_HOST, NULL};
	mg_fault(&o, missing, "", NULL);
	/* a path that names no file is a bad argument, as for every command
	 * that reads a report (report_load_exit); a corrupt one is 3 */
	CU_ASSERT(exited_with(&o, MG_EXIT_USAGE));
	done(&o);
	const char *nohost[] = {MEMGUARD_EXE,        "bisect", "--crash", "x", "--",
	                        "/nonexistent/host", NULL};
	mg_fault(&o, nohost, "", NULL);
	CU_ASSERT(exited_with(&o, MG_EXIT_INFRA));
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
    {"bisect_search_known_fails", search_known_fails},
    {"bisect_plan_target", plan_target},
    {"bisect_plan_kill_other_lane", plan_kill_other_lane},
    {"bisect_plan_generation", plan_generation},
    {"bisect_report_target", bisect_report_target},
    {"bisect_list_stderr", bisect_list_stderr},
    {"bisect_cumulative", bisect_cumulative},
    {"bisect_signal", bisect_signal},
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

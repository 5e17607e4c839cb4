/*
 * test_policy.c - the runner's verdicts from tables: which limit a reading
 * reaches (host's arch and the other), how deep a lane may pipeline, the
 * sampling interval, the exit code, how a host's end is named.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mg_test.h"
#include "run_int.h"

#define MI (1024ULL * 1024)
#define GI (1024ULL * 1024 * 1024)

static run_options opts;
static run_ctx ctx;
static lane one_lane;

/* An x64 run with the given limits, one lane, nothing queued. */
static run_ctx *fresh(void)
{
	memset(&opts, 0, sizeof(opts));
	memset(&ctx, 0, sizeof(ctx));
	memset(&one_lane, 0, sizeof(one_lane));
	opts.pipeline = 16;
	opts.interval = 0.005;
	ctx.o = &opts;
	ctx.arch = MG_ARCH_X64;
	ctx.lanes = &one_lane;
	ctx.nlanes = 1;
	ctx.interval = 0.005;
	return &ctx;
}

/* The verdict's bits for a reading: which limits count in which scope. */
static void check(void)
{
	static const struct {
		policy_scope scope;
		uint64_t lim_va, lim_rss, lim_cg;
		int has_cgroup;
		uint64_t cg_usage, va, rss;
		unsigned want;
	} cases[] = {
	    /* below everything */
	    {POLICY_KILL, 3 * GI, 4 * GI, 0, 0, 0, 3 * GI - 1, 4 * GI - 1, 0},
	    /* at a limit is over it (>=) */
	    {POLICY_KILL, 3 * GI, 0, 0, 0, 0, 3 * GI, 0, LIMIT_VA},
	    {POLICY_RECYCLE, 3 * GI, 0, 0, 0, 0, 3 * GI, 0, LIMIT_VA},
	    /* a kill: a tree alone over the whole rss budget */
	    {POLICY_KILL, 0, 4 * GI, 0, 0, 0, 0, 4 * GI, LIMIT_RSS},
	    {POLICY_KILL, 0, 4 * GI, 0, 0, 0, 0, 3 * GI, 0},
	    /* the cgroup counts only where there is one to read ... */
	    {POLICY_RECYCLE, 0, 0, 1 * GI, 1, 1 * GI, 0, 0, LIMIT_CGROUP},
	    {POLICY_RECYCLE, 0, 0, 1 * GI, 0, 1 * GI, 0, 0, 0},
	    /* ... and is shared: a host's kill never says it (judged per pass) */
	    {POLICY_KILL, 0, 0, 1 * GI, 1, 1 * GI, 0, 0, 0},
	    {POLICY_CGROUP_KILL, 0, 0, 1 * GI, 1, 1 * GI, 0, 0, LIMIT_CGROUP},
	    {POLICY_CGROUP_KILL, 0, 0, 1 * GI, 1, 1 * GI - 1, 0, 0, 0},
	    {POLICY_CGROUP_KILL, 0, 0, 1 * GI, 0, 1 * GI, 0, 0, 0},
	    /* several at once */
	    {POLICY_KILL, 1 * GI, 1 * GI, 0, 0, 0, 1 * GI, 1 * GI, LIMIT_VA | LIMIT_RSS},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		run_ctx *c = fresh();
		limits lim = {cases[i].lim_va, cases[i].lim_rss, cases[i].lim_cg, 64 * MI};
		if (cases[i].scope == POLICY_RECYCLE)
			c->soft = lim;
		else
			c->hard = lim;
		c->has_cgroup = cases[i].has_cgroup;
		c->cg_usage = cases[i].cg_usage;
		host h;
		memset(&h, 0, sizeof(h));
		policy_reading r = {.va = cases[i].va, .rss = cases[i].rss};
		policy_verdict v;
		unsigned got = policy_judge(&v, c, &h, cases[i].scope, &r);
		if (got != cases[i].want)
			fprintf(stderr, "\n  case %zu: got %#x want %#x\n", i, got, cases[i].want);
		CU_ASSERT_EQUAL(got, cases[i].want);
		CU_ASSERT_EQUAL(v.bits, got);
		CU_ASSERT_EQUAL(v.why[0] != 0, got != 0); /* words exactly when a limit is */
	}
}

/* The verdict's words, as the report shows them. */
static void why(void)
{
	run_ctx *c = fresh();
	host h;
	memset(&h, 0, sizeof(h));
	policy_verdict v;
	c->hard.va = 15 * GI / 4;
	policy_reading r = {.va = 4 * GI - 1};
	CU_ASSERT_EQUAL(policy_judge(&v, c, &h, POLICY_KILL, &r), LIMIT_VA);
	CU_ASSERT_STRING_EQUAL(v.why, "va 4.00 GiB >= kill 3.75 GiB");
	/* the VmPeak a boundary read, after va and rss */
	r = (policy_reading){.va = 1 * GI, .peak = 4 * GI};
	CU_ASSERT_EQUAL(policy_judge(&v, c, &h, POLICY_KILL, &r), LIMIT_VA);
	CU_ASSERT_STRING_EQUAL(v.why, "peak va 4.00 GiB >= kill 3.75 GiB");
	r.peak = 15 * GI / 4 - 1;
	CU_ASSERT_EQUAL(policy_judge(&v, c, &h, POLICY_KILL, &r), 0);
	CU_ASSERT_STRING_EQUAL(v.why, "");
	/* one lane: its tree's rss against the whole soft budget */
	c->soft.rss = 512 * MI;
	one_lane.h.state = HOST_RUNNING;
	one_lane.h.tree_rss = 600 * MI;
	r = (policy_reading){.rss = 600 * MI};
	CU_ASSERT_EQUAL(policy_judge(&v, c, &one_lane.h, POLICY_RECYCLE, &r), LIMIT_RSS);
	CU_ASSERT_STRING_EQUAL(v.why, "rss 600 MiB >= recycle 512 MiB");
	/* the largest free block, when one was read: after every other limit */
	c->soft.rss = 0;
	c->soft.gap = 64 * MI;
	r = (policy_reading){.gap = 8 * MI, .has_gap = 1};
	CU_ASSERT_EQUAL(policy_judge(&v, c, &one_lane.h, POLICY_RECYCLE, &r), LIMIT_GAP);
	CU_ASSERT_STRING_EQUAL(v.why, "gap 8.00 MiB < recycle 64.0 MiB (largest free block)");
	r.has_gap = 0; /* not read: nothing to judge */
	CU_ASSERT_EQUAL(policy_judge(&v, c, &one_lane.h, POLICY_RECYCLE, &r), 0);
	r = (policy_reading){.gap = 64 * MI, .has_gap = 1};
	CU_ASSERT_EQUAL(policy_judge(&v, c, &one_lane.h, POLICY_RECYCLE, &r), 0);
}

/* A 32-bit process under a 64-bit host is held to x86's limit. */
static void other_arch(void)
{
	run_ctx *c = fresh();
	c->va_hard[MG_ARCH_X86] = 15 * GI / 4;
	host h;
	memset(&h, 0, sizeof(h));
	policy_reading r = {0};
	policy_verdict v;
	h.desc_va_other = 15 * GI / 4 - 1;
	h.desc_va_other_pid = 4242;
	CU_ASSERT_EQUAL(policy_judge(&v, c, &h, POLICY_KILL, &r), 0);
	h.desc_va_other = 15 * GI / 4;
	CU_ASSERT_EQUAL(policy_judge(&v, c, &h, POLICY_KILL, &r), LIMIT_VA);
	CU_ASSERT(strstr(v.why, "pid 4242") && strstr(v.why, "32-bit") &&
	          strstr(v.why, "3.75 GiB"));
	/* no limit for the other arch: nothing to reach */
	c->va_hard[MG_ARCH_X86] = 0;
	CU_ASSERT_EQUAL(policy_judge(&v, c, &h, POLICY_KILL, &r), 0);
	/* the soft limit of the other arch recycles */
	c->va_soft[MG_ARCH_X86] = 3 * GI;
	CU_ASSERT_EQUAL(policy_judge(&v, c, &h, POLICY_RECYCLE, &r), LIMIT_VA);
	CU_ASSERT(strstr(v.why, "recycle 3.00 GiB") != NULL);
	/* an x86 run's other arch is x64 */
	c->arch = MG_ARCH_X86;
	c->va_hard[MG_ARCH_X64] = 8 * GI;
	h.desc_va_other = 9 * GI;
	CU_ASSERT_EQUAL(policy_judge(&v, c, &h, POLICY_KILL, &r), LIMIT_VA);
	CU_ASSERT(strstr(v.why, "64-bit") != NULL);
}

static void depth(void)
{
	static const struct {
		unsigned pipeline, nlanes;
		size_t qlen;
		uint64_t soft_va, va_last, rss_soft, rss_last;
		double avg_duration;
		size_t want;
	} cases[] = {
	    {16, 1, 100, 0, 0, 0, 0, 0.0, 16},         /* the pipeline */
	    {16, 4, 20, 0, 0, 0, 0, 0.0, 6},           /* the lane's share: 20/4 + 1 */
	    {16, 1, 0, 0, 0, 0, 0, 0.0, 1},            /* nothing queued: share 1 */
	    {16, 1, 100, 10 * GI, 9 * GI, 0, 0, 0, 1}, /* within 10% of the soft va */
	    {16, 1, 100, 10 * GI, 9 * GI - 4096, 0, 0, 0.0, 16},
	    {16, 1, 100, 0, 0, 1 * GI, 1 * GI, 0.0, 1}, /* within 10% of the rss pool */
	    {16, 1, 100, 0, 0, 0, 0, 0.006, 2},         /* slow tests: two */
	    {16, 1, 100, 0, 0, 0, 0, 0.004, 16},
	    {1, 1, 100, 0, 0, 0, 0, 0.006, 1}, /* never more than --pipeline */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		run_ctx *c = fresh();
		opts.pipeline = cases[i].pipeline;
		lane lanes[4];
		memset(lanes, 0, sizeof(lanes));
		c->lanes = lanes;
		c->nlanes = cases[i].nlanes;
		c->qlen = cases[i].qlen;
		c->soft.va = cases[i].soft_va;
		lanes[0].h.va_last = cases[i].va_last;
		c->soft.rss = cases[i].rss_soft; /* the pool's, one lane: all of it its share */
		lanes[0].h.tree_rss = cases[i].rss_last;
		lanes[0].h.state = HOST_RUNNING;
		lanes[0].avg_duration = cases[i].avg_duration;
		c->ntests = 1000;
		size_t got = policy_depth(c, &lanes[0]);
		if (got != cases[i].want)
			fprintf(stderr, "\n  case %zu: got %zu want %zu\n", i, got, cases[i].want);
		CU_ASSERT_EQUAL(got, cases[i].want);
	}
}

/* One rss budget for all lanes: over it, the lanes at or above their
 * share recycle, the lighter go on; with one lane it is the lane's rss. */
static void rss_pool(void)
{
	run_ctx *c = fresh();
	lane lanes[2];
	memset(lanes, 0, sizeof(lanes));
	c->lanes = lanes;
	c->nlanes = 2;
	c->soft.rss = 512 * MI;
	lanes[0].h.state = lanes[1].h.state = HOST_RUNNING;
	lanes[0].h.tree_rss = 448 * MI;
	lanes[1].h.tree_rss = 32 * MI;
	policy_verdict v;
	policy_reading heavy = {.rss = 448 * MI}, light = {.rss = 64 * MI};
	CU_ASSERT_EQUAL(policy_pool_rss(c), 480 * MI);
	/* pool under: no */
	CU_ASSERT_EQUAL(policy_judge(&v, c, &lanes[0].h, POLICY_RECYCLE, &heavy), 0);
	lanes[1].h.tree_rss = 64 * MI; /* pool at 512 MiB */
	CU_ASSERT_EQUAL(policy_judge(&v, c, &lanes[0].h, POLICY_RECYCLE, &heavy), LIMIT_RSS);
	CU_ASSERT_STRING_EQUAL(v.why, "rss pool 512 MiB (this lane 448 MiB) >= recycle 512 MiB");
	/* under its share */
	CU_ASSERT_EQUAL(policy_judge(&v, c, &lanes[1].h, POLICY_RECYCLE, &light), 0);
	/* the pool over its hard limit ends the largest tree, in its words */
	c->hard.rss = 512 * MI;
	CU_ASSERT_EQUAL(policy_judge(&v, c, &lanes[0].h, POLICY_POOL_KILL, &heavy), LIMIT_RSS);
	CU_ASSERT_STRING_EQUAL(v.why, "rss pool 512 MiB (this lane 448 MiB) >= kill 512 MiB");
	c->hard.rss = 512 * MI + 1;
	CU_ASSERT_EQUAL(policy_judge(&v, c, &lanes[0].h, POLICY_POOL_KILL, &heavy), 0);
	/* a lane without a host holds nothing */
	lanes[1].h.state = HOST_NONE;
	CU_ASSERT_EQUAL(policy_pool_rss(c), 448 * MI);
	/* one lane: its own rss against the whole limit (and no pool to kill for) */
	c->nlanes = 1;
	lanes[0].h.tree_rss = 512 * MI;
	policy_reading all = {.rss = 512 * MI};
	CU_ASSERT_EQUAL(policy_judge(&v, c, &lanes[0].h, POLICY_RECYCLE, &all), LIMIT_RSS);
	c->hard.rss = 512 * MI;
	CU_ASSERT_EQUAL(policy_judge(&v, c, &lanes[0].h, POLICY_POOL_KILL, &all), 0);
	c->soft.rss = 0;
	CU_ASSERT_EQUAL(policy_judge(&v, c, &lanes[0].h, POLICY_RECYCLE, &all), 0);
	/* a death there counted as near a soft limit: va or the pool's share */
	c->soft.rss = 512 * MI;
	CU_ASSERT(policy_near_soft(c, 0, 512 * MI));
	CU_ASSERT(!policy_near_soft(c, 0, 511 * MI)); /* under its share of the pool */
	c->soft.va = 3 * GI;
	CU_ASSERT(policy_near_soft(c, 3 * GI, 0));
	lanes[0].h.tree_rss = 0;
	CU_ASSERT(!policy_near_soft(c, 3 * GI - 1, 0));
}

/* gtest: the lane's share at once, whatever the rules for slow tests and
 * soft limits say (the probe judges inside the program): of the run at the
 * start, of what is left (the queue and the other lanes' programs) after a
 * recycle, so an idle lane gets its part of what a recycle gave back */
static void depth_gtest(void)
{
	run_ctx *c = fresh();
	lane lanes[2];
	memset(lanes, 0, sizeof(lanes));
	c->lanes = lanes;
	c->nlanes = 2;
	c->driver = DRIVER_GTEST;
	opts.pipeline = 1000000;
	c->ntests = 20000;
	c->qlen = 20000; /* the start: half the run each */
	lanes[0].avg_duration = 0.5;
	c->soft.va = 1ull << 30;
	lanes[0].h.va_last = 1ull << 30;
	CU_ASSERT_EQUAL(policy_depth(c, &lanes[0]), 10001);
	c->qlen = 9999; /* the second lane, the first holding its half */
	lanes[0].h.nflight = 10001;
	CU_ASSERT_EQUAL(policy_depth(c, &lanes[1]), 10001);
	c->qlen = 3000; /* a recycle gave 3,000 back, the other lane holds 9,000 */
	lanes[1].h.nflight = 9000;
	lanes[0].h.nflight = 0;
	CU_ASSERT_EQUAL(policy_depth(c, &lanes[0]), 6001);
	lanes[1].h.nflight = 0; /* ... and it is idle: half each */
	CU_ASSERT_EQUAL(policy_depth(c, &lanes[0]), 1501);
	c->qlen = 2; /* two tests: one program (the share is + 1) */
	CU_ASSERT_EQUAL(policy_depth(c, &lanes[0]), 2);
	c->qlen = 20000;
	opts.pipeline = 1024;
	CU_ASSERT_EQUAL(policy_depth(c, &lanes[0]), 1024);
}

/* A native host without --pipeline: as deep as 4 ms of its tests' pace
 * (16 until 16 results, 16 to 4,096), but one test at a time near a soft
 * limit the runner judges, however fast the tests: a deep pipeline must not
 * carry a host past the runner's verdicts. */
static void depth_auto(void)
{
	static const struct {
		uint32_t tests_run;
		double cycle;
		size_t qlen;
		uint64_t soft_va, va_last, rss_soft, rss_last;
		size_t want;
	} cases[] = {
	    {10, 1e-6, 100000, 0, 0, 0, 0, 16},            /* pace not known yet */
	    {100, 1e-6, 100000, 0, 0, 0, 0, 4000},         /* 4 ms of 1 us tests */
	    {100, 1e-8, 100000, 0, 0, 0, 0, 4096},         /* at most 4,096 */
	    {100, 1e-3, 100000, 0, 0, 0, 0, 16},           /* at least 16 */
	    {100, 1e-6, 100, 0, 0, 0, 0, 101},             /* the lane's share */
	    {100, 1e-6, 100000, 10 * GI, 9 * GI, 0, 0, 1}, /* near the soft va */
	    {100, 1e-6, 100000, 0, 0, 1 * GI, 1 * GI, 1},  /* near the rss pool */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		run_ctx *c = fresh();
		opts.pipeline = PIPELINE_AUTO;
		c->pipeline_auto = 1;
		lane lanes[1];
		memset(lanes, 0, sizeof(lanes));
		c->lanes = lanes;
		c->nlanes = 1;
		c->qlen = cases[i].qlen;
		c->soft.va = cases[i].soft_va;
		c->soft.rss = cases[i].rss_soft;
		lanes[0].h.va_last = cases[i].va_last;
		lanes[0].h.tree_rss = cases[i].rss_last;
		lanes[0].h.state = HOST_RUNNING;
		lanes[0].h.tests_run = cases[i].tests_run;
		lanes[0].cycle = cases[i].cycle;
		c->ntests = 100000;
		size_t got = policy_depth(c, &lanes[0]);
		if (got != cases[i].want)
			fprintf(stderr, "\n  case %zu: got %zu want %zu\n", i, got, cases[i].want);
		CU_ASSERT_EQUAL(got, cases[i].want);
	}
}

static void interval(void)
{
	run_ctx *c = fresh();
	/* no va kill limit: the interval stays */
	CU_ASSERT_DOUBLE_EQUAL(policy_interval(c, 3 * GI, 1 * GI, 0.01), 0.01, 1e-12);
	c->hard.va = 4 * GI;
	/* flat: stays */
	CU_ASSERT_DOUBLE_EQUAL(policy_interval(c, 1 * GI, 1 * GI, 0.01), 0.01, 1e-12);
	/* 1 GiB per 5 ms with 2 GiB to go: 10 ms to the limit, an eighth of it */
	CU_ASSERT_DOUBLE_EQUAL(policy_interval(c, 2 * GI, 1 * GI, 0.01), 0.01 / 8, 1e-9);
	/* within 10% of the limit: at most a quarter of the base */
	CU_ASSERT_DOUBLE_EQUAL(policy_interval(c, 4 * GI - 1, 4 * GI - 1, 0.01), 0.005 / 4, 1e-12);
	/* over the limit already (the kill is elsewhere): no negative interval */
	CU_ASSERT(policy_interval(c, 5 * GI, 1 * GI, 0.01) > 0);
}

static void exit_code(void)
{
	static const struct {
		test_state state;
		int signo, deadline;
		int want;
	} cases[] = {
	    {TEST_PASS, 0, 0, MG_EXIT_OK},
	    {TEST_SKIP, 0, 0, MG_EXIT_OK},
	    {TEST_FAIL, 0, 0, MG_EXIT_FAILED},
	    {TEST_CRASH, 0, 0, MG_EXIT_FAILED},
	    {TEST_TIMEOUT, 0, 0, MG_EXIT_FAILED},
	    {TEST_MEMLIMIT, 0, 0, MG_EXIT_FAILED},
	    {TEST_NOTRUN, 0, 0, MG_EXIT_FAILED},
	    {TEST_ERROR, 0, 0, MG_EXIT_INFRA},
	    {TEST_PASS, 0, 1, MG_EXIT_INFRA},
	    {TEST_FAIL, 15, 0, 143},
	    {TEST_PASS, 2, 0, 130},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		run_ctx *c = fresh();
		report *rep = report_new();
		report_shard *s = report_add_shard(rep);
		s->counts[TEST_PASS] = 3;
		s->counts[cases[i].state]++;
		c->rep = rep;
		c->signo = cases[i].signo;
		c->deadline_hit = cases[i].deadline;
		int got = policy_exit_code(c);
		if (got != cases[i].want)
			fprintf(stderr, "\n  case %zu: got %d want %d\n", i, got, cases[i].want);
		CU_ASSERT_EQUAL(got, cases[i].want);
		report_free(rep);
	}
	/* no test ran of the tests a native host listed (a filter of none): 5,
	 * or 0 with --allow-no-tests; a signal still wins */
	for (int allow = 0; allow < 2; allow++) {
		run_ctx *c = fresh();
		c->o->allow_no_tests = allow;
		c->nlisted = 3;
		c->rep = report_new();
		report_add_shard(c->rep);
		CU_ASSERT_EQUAL(policy_exit_code(c), allow ? MG_EXIT_OK : MG_EXIT_NO_TESTS);
		c->signo = 15;
		CU_ASSERT_EQUAL(policy_exit_code(c), 143);
		report_free(c->rep);
	}
	/* no test ran: the framework's own exit then (GoogleTest, ctest, a
	 * native host listing none: 0; pytest, exec, wrap, a native host's
	 * filter of none: 5), unless the user asked 0 or 5 */
	static const struct {
		driver_kind driver;
		size_t nlisted;
		int allow, fail, want;
	} none[] = {
	    {DRIVER_GTEST, 0, 0, 0, MG_EXIT_OK},        {DRIVER_GTEST, 4, 0, 0, MG_EXIT_OK},
	    {DRIVER_GTEST, 4, 0, 1, MG_EXIT_NO_TESTS},  {DRIVER_CTEST, 0, 0, 0, MG_EXIT_OK},
	    {DRIVER_CTEST, 0, 0, 1, MG_EXIT_NO_TESTS},  {DRIVER_NATIVE, 0, 0, 0, MG_EXIT_OK},
	    {DRIVER_NATIVE, 0, 0, 1, MG_EXIT_NO_TESTS}, {DRIVER_NATIVE, 2, 0, 0, MG_EXIT_NO_TESTS},
	    {DRIVER_PYTEST, 0, 0, 0, MG_EXIT_NO_TESTS}, {DRIVER_PYTEST, 0, 1, 0, MG_EXIT_OK},
	    {DRIVER_EXEC, 0, 0, 0, MG_EXIT_NO_TESTS},   {DRIVER_EXEC, 3, 1, 0, MG_EXIT_OK},
	    {DRIVER_WRAP, 0, 0, 0, MG_EXIT_NO_TESTS},
	};
	static char *ctest_argv[] = {"ctest", NULL};
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
		run_ctx *c = fresh();
		c->driver = none[i].driver;
		c->nlisted = none[i].nlisted;
		c->o->allow_no_tests = none[i].allow;
		c->o->fail_no_tests = none[i].fail;
		c->o->host_argv = ctest_argv;
		c->o->host_argc = 1;
		c->rep = report_new();
		report_add_shard(c->rep);
		int got = policy_exit_code(c);
		if (got != none[i].want)
			fprintf(stderr, "\n  no-test case %zu: got %d want %d\n", i, got,
			        none[i].want);
		CU_ASSERT_EQUAL(got, none[i].want);
		report_free(c->rep);
	}
	/* ctest's --no-tests=error (the last one given): it fails a run of none */
	static char *no_tests_error[] = {"ctest", "--no-tests=ignore", "--no-tests=error", NULL};
	run_ctx *c = fresh();
	c->driver = DRIVER_CTEST;
	c->o->host_argv = no_tests_error;
	c->o->host_argc = 3;
	c->rep = report_new();
	report_add_shard(c->rep);
	CU_ASSERT_EQUAL(policy_exit_code(c), MG_EXIT_NO_TESTS);
	report_free(c->rep);
}

/* How a host ended is the report's vocabulary: names and parse round trip;
 * the lane's short names are the same values. */
static void end_names(void)
{
	static const char *const want[REPORT_END_COUNT] = {"running", "quit",    "recycle",
	                                                   "kill",    "timeout", "error",
	                                                   "crash",   "exit",    "interrupted"};
	for (int e = 0; e < REPORT_END_COUNT; e++) {
		CU_ASSERT_STRING_EQUAL(report_end_name((report_end)e), want[e]);
		CU_ASSERT_EQUAL(report_end_parse(want[e]), e);
	}
	CU_ASSERT_STRING_EQUAL(report_end_name(REPORT_END_COUNT), "unknown");
	CU_ASSERT_EQUAL(report_end_parse("killed"), -1);
	CU_ASSERT_EQUAL(report_end_parse(""), REPORT_END_RUNNING);
	CU_ASSERT_EQUAL(END_NONE, REPORT_END_RUNNING);
	CU_ASSERT_EQUAL(END_INTERRUPTED, REPORT_END_INTERRUPTED);
}

/* A test ended at a time limit the host keeps (ctest's TIMEOUT) is a result
 * line of its own, not a "timeout: " prefix on a fail message. */
static void timeout_line(void)
{
	char line[] = "timeout 1000000 3 4 over its TIMEOUT of 1 s (killed)";
	mg_msg m;
	CU_ASSERT_EQUAL_FATAL(mg_proto_parse(&m, line, sizeof(line) - 1), 0);
	CU_ASSERT_EQUAL(m.kind, MG_MSG_TIMEOUT);
	CU_ASSERT_EQUAL(m.usec, 1000000);
	CU_ASSERT_EQUAL(m.va, 3);
	CU_ASSERT_EQUAL(m.rss, 4);
	CU_ASSERT_EQUAL(m.text_len, strlen("over its TIMEOUT of 1 s (killed)"));
	CU_ASSERT(m.text && !memcmp(m.text, "over its TIMEOUT", 16));
}

static const mg_case cases[] = {
    {"check", check},
    {"why", why},
    {"other_arch", other_arch},
    {"depth", depth},
    {"depth_auto", depth_auto},
    {"interval", interval},
    {"exit_code", exit_code},
    {"end_names", end_names},
    {"timeout_line", timeout_line},
    {"rss_pool", rss_pool},
    {"depth_gtest", depth_gtest},
};

MG_TEST_MAIN("policy", cases)

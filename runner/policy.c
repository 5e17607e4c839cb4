/*
 * policy.c - the verdicts: the limits in force, which limit a reading
 * reaches and why, the VA a process is judged by, the exit code. Pure but for
 * the cgroup read that gives the base of rss%: no other I/O.
 */
#include "run_int.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

/* The VA ceiling that percentages, breakdowns and gaps are measured against. */
uint64_t policy_va_ceiling(const run_ctx *c)
{
	uint64_t as = c->as_cap, ceiling = limits_arch_ceiling(c->arch);
	return as && as < ceiling ? as : ceiling;
}

/* The process whose address space matters: the host, or for a driver the
 * program under it with the most VA. */
pid_t policy_va_pid(const run_ctx *c, const host *h)
{
	if (!driver_serves_protocol(c->driver)) /* the shim is ours; its program is the test */
		return h->desc_va_pid;
	return h->desc_va_pid && h->desc_va_max > h->va_last ? h->desc_va_pid : h->pid;
}

int policy_process_per_test(const run_ctx *c)
{
	return c->driver == DRIVER_EXEC || c->driver == DRIVER_CTEST || c->driver == DRIVER_WRAP;
}

/* exec and ctest run a process per test and wrap one command: ending their
 * shim at a boundary frees nothing, so a soft limit there is a warning. */
int policy_can_recycle(const run_ctx *c)
{
	return !policy_process_per_test(c);
}

int policy_program_finishes(const run_ctx *c)
{
	return c->driver == DRIVER_GTEST || c->driver == DRIVER_CATCH2;
}

/* The largest of a lane's recent growths (a window of GROWTH_WINDOW), 0 at least. */
static uint64_t window_max(const int64_t *v, size_t n)
{
	int64_t m = 0;
	for (size_t i = 0; i < n && i < GROWTH_WINDOW; i++)
		if (v[i] > m)
			m = v[i];
	return (uint64_t)m;
}

/* The expected VA growth of the next test: the largest of the recent ones. */
uint64_t policy_expected_growth(const lane *l)
{
	return window_max(l->growth, l->ngrowth);
}

static const char *limit_name(unsigned bits)
{
	if (bits & LIMIT_VA)
		return "va";
	if (bits & LIMIT_RSS)
		return "rss";
	if (bits & LIMIT_CGROUP)
		return "cgroup";
	return "gap";
}

/* "va 4.00 GiB >= kill 3.75 GiB": the first limit of bits a reading reached. */
static void limit_why(char *buf, size_t n, unsigned bits, const char *kind, uint64_t va,
                      uint64_t rss, uint64_t cg, const limits *lim, uint64_t rss_limit)
{
	char a[32], b[32];
	uint64_t have = bits & LIMIT_VA ? va : bits & LIMIT_RSS ? rss : cg;
	uint64_t lv = bits & LIMIT_VA ? lim->va : bits & LIMIT_RSS ? rss_limit : lim->cgroup;
	report_format_size(a, sizeof(a), have);
	report_format_size(b, sizeof(b), lv);
	snprintf(buf, n, "%s %s >= %s %s", limit_name(bits), a, kind, b);
}

/* The LIMIT_* bits a reading reaches; rss against this lane's share. */
static unsigned limit_check(const run_ctx *c, const limits *lim, uint64_t rss_limit, uint64_t va,
                            uint64_t rss)
{
	limits eff = *lim;
	eff.rss = rss_limit;
	eff.gap = 0;
	return limits_check(&eff, va, rss, c->cg_usage, 0) & ~(c->has_cgroup ? 0u : LIMIT_CGROUP);
}

/* The arch of the host's processes that are not of its own arch. */
static mg_arch other_arch(const run_ctx *c)
{
	return c->arch == MG_ARCH_X86 ? MG_ARCH_X64 : MG_ARCH_X86;
}

/*
 * LIMIT_VA when a descendant of the other arch reaches that arch's VA limit
 * (lim: c->va_soft or c->va_hard), with why saying which process; 0 else.
 */
static unsigned other_arch_va(const run_ctx *c, const host *h, const uint64_t *lim,
                              const char *kind, char *why, size_t n)
{
	mg_arch a = other_arch(c);
	if (!lim[a] || h->desc_va_other < lim[a])
		return 0;
	char x[32], y[32];
	report_format_size(x, sizeof(x), h->desc_va_other);
	report_format_size(y, sizeof(y), lim[a]);
	snprintf(why, n, "va %s >= %s %s (pid %d, a %s process)", x, kind, y,
	         (int)h->desc_va_other_pid, a == MG_ARCH_X86 ? "32-bit" : "64-bit");
	return LIMIT_VA;
}

/*
 * Settles the limits in force (the user's over the arch defaults) for the
 * host's arch, and the VA limits of the other arch for the processes of a
 * tree that are of it (a 32-bit program under a shell, exec or wrap), judged
 * leniently. The cgroup gives the base for rss% and cgroup%; an
 * --address-space cap is the ceiling of va%. MG_EINVAL when the user's
 * limits contradict each other or the machine.
 */
int policy_resolve(run_ctx *c, mg_err *err)
{
	limits_spec soft, hard;
	cgroup_usage u = {0, 0, 0};
	mg_err e;
	if (cgroup_find(&c->cg, 0, &e) == 0 && cgroup_read(&c->cg, &u, &e) == 0) {
		c->has_cgroup = 1;
		c->cg_found = 1;
		cgroup_oom_kills(&c->cg, &c->oom_kills, NULL);
	}
	options_limits(c->o, &soft, &hard);
	/* a run under ulimit -v: its hosts inherit the cap, which is then
	 * theirs as --address-space's would be */
	struct rlimit rl;
	c->as_cap = c->o->address_space;
	c->as_inherited = 0;
	if (!c->as_cap && getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
		c->as_cap = (uint64_t)rl.rlim_cur;
		c->as_inherited = 1;
	}
	for (mg_arch a = MG_ARCH_X86; a <= MG_ARCH_X64; a++) {
		uint64_t ceiling = limits_arch_ceiling(a), as = c->as_cap;
		int capped = as && as < ceiling
		                 ? (c->as_inherited ? LIMITS_CAP_INHERITED : LIMITS_CAP_GIVEN)
		                 : 0;
		limits_base b = {a, capped ? as : ceiling, proc_ram_bytes(), u.limit, capped};
		limits ls, lh;
		int rc = limits_settle(&ls, &lh, &soft, &hard, &b, a == c->arch ? err : NULL);
		if (rc < 0)
			return rc;
		c->va_soft[a] = ls.va;
		c->va_hard[a] = lh.va;
		if (a == c->arch) {
			c->soft = ls;
			c->hard = lh;
		}
	}
	if (!c->soft.cgroup && !c->hard.cgroup)
		c->has_cgroup = 0; /* nothing to check: no reads per sample */
	return 0;
}

int policy_exit_code(const run_ctx *c)
{
	if (c->signo)
		return 128 + c->signo;
	int code = MG_EXIT_OK;
	for (size_t s = 0; s < c->rep->nshards; s++) {
		const report_shard *sh = &c->rep->shards[s];
		if (sh->counts[TEST_ERROR])
			return MG_EXIT_INFRA;
		if (sh->counts[TEST_FAIL] || sh->counts[TEST_CRASH] || sh->counts[TEST_TIMEOUT] ||
		    sh->counts[TEST_MEMLIMIT] || sh->counts[TEST_NOTRUN])
			code = MG_EXIT_FAILED;
	}
	/* a lane that gave up left its tests in error (above) only when no
	 * other lane could run them; a host that broke the protocol between
	 * tests left none in error, but the host is broken all the same */
	if (c->deadline_hit || c->protocol_breaks)
		return MG_EXIT_INFRA;
	size_t ran = 0;
	for (size_t s = 0; s < c->rep->nshards; s++)
		for (int k = 0; k < TEST_STATE_COUNT; k++)
			ran += c->rep->shards[s].counts[k];
	/* a module pytest skipped at collection is no test that ran: pytest
	 * exits 5 when that is all there was */
	for (size_t i = 0; i < c->nextras; i++)
		ran -=
		    c->rep->shards[c->extras[2 * i]].tests[c->extras[2 * i + 1]].state == TEST_SKIP;
	if (!ran)
		return c->extras_stopped ? MG_EXIT_FAILED : policy_no_tests_exit(c, NULL);
	return code;
}

int policy_no_tests_exit(const run_ctx *c, const char **who)
{
	const char *name = NULL;
	int code = c->o->allow_no_tests ? MG_EXIT_OK
	           : c->o->fail_no_tests
	               ? MG_EXIT_NO_TESTS
	               : driver_no_tests_exit(c->driver, c->o->host_argv, c->o->host_argc,
	                                      c->nlisted > 0, &name);
	if (who)
		*who = name;
	return code;
}

int policy_fail_counts(test_state st, int extra)
{
	return extra ? st == TEST_FAIL : report_state_failed(st);
}

int policy_fail_fast_hit(const run_ctx *c)
{
	return c->fail_limit && c->failures >= c->fail_limit;
}

/*
 * How many run lines a lane may keep in its host now. At most its share of
 * what is queued, so a lane whose host starts first does not drain the
 * queue while the others start; one near a soft limit (within 10%), so a
 * host that does not check its own memory stops at the first boundary over
 * it; two behind tests slower than SLOW_TEST: pipelining pays for short
 * tests only, and behind a slow one queued tests would wait while other
 * lanes idle (or strand behind a hang). A gtest lane takes its whole share
 * (the run's tests over the lanes) in one program.
 */
size_t policy_depth(const run_ctx *c, const lane *l)
{
	const host *h = &l->h;
	/* gtest and catch2: one program takes the lane's whole share at once (each refill
	 * would be a program start, and GoogleTest pays for its suite at each);
	 * the probe judges the limits at every boundary inside the program. The
	 * share is of what is left: the queue and what the other lanes'
	 * programs still hold, over the lanes (guided self-scheduling). A
	 * program that took the whole queue after a recycle left the other
	 * lanes idle, starting programs that found nothing to run. */
	if (c->driver == DRIVER_GTEST || c->driver == DRIVER_CATCH2) {
		/* with a history, a first program's share is by time (plan_shares) */
		size_t planned = plan_share_at_front(c);
		if (planned)
			return c->o->pipeline < planned ? c->o->pipeline : planned;
		size_t held = 0;
		for (size_t i = 0; i < c->nlanes; i++)
			if (&c->lanes[i] != l)
				held += c->lanes[i].h.nflight;
		/* + 1, not rounded up: a program of two tests at -j 2 stays one
		 * program (GoogleTest's listener test judges its whole run in main) */
		size_t whole = c->ntests / c->nlanes + 1, left = (c->qlen + held) / c->nlanes + 1;
		/* Catch2 v3: a share that starts where a chunk of its own sharding
		 * at -j lanes does (createShard: ntests / nlanes each, the first
		 * ntests % nlanes one more) is that chunk, which the shim runs by
		 * --shard-count/--shard-index instead of a list of names that
		 * Catch2 matches every test case against (catch2_begin) */
		if (c->catch2_v3 && c->nlanes > 1) {
			size_t size = c->ntests / c->nlanes, extra = c->ntests % c->nlanes;
			size_t at = c->ntests - c->qlen, start = 0;
			for (size_t i = 0; i < c->nlanes && start <= at; i++) {
				size_t chunk = size + (i < extra);
				if (start == at && chunk) {
					whole = chunk;
					break;
				}
				start += chunk;
			}
		}
		if (left < whole)
			whole = left;
		return c->o->pipeline < whole ? c->o->pipeline : whole;
	}
	size_t share = c->qlen / c->nlanes + 1;
	size_t depth = c->o->pipeline < share ? c->o->pipeline : share;
	if (c->pipeline_auto) { /* PIPELINE_WORK of work, once the pace is known */
		double fit = h->tests_run < 16 || l->cycle <= 0 ? 16 : PIPELINE_WORK / l->cycle;
		size_t pace = fit < 16 ? 16 : fit > PIPELINE_AUTO ? PIPELINE_AUTO : (size_t)fit;
		depth = depth < pace ? depth : pace;
	}
	if ((c->soft.va && h->va_last >= c->soft.va / 10 * 9) ||
	    (c->soft.rss && policy_pool_rss(c) >= c->soft.rss / 10 * 9 &&
	     h->tree_rss >= c->soft.rss / c->nlanes / 10 * 9))
		return 1;
	if (l->avg_duration > SLOW_TEST && depth > 2)
		return 2;
	return depth;
}

int policy_batch_replies(const run_ctx *c, const lane *l)
{
	if (l->h.state != HOST_RUNNING ||
	    !(c->pipeline_auto || c->driver == DRIVER_GTEST || c->driver == DRIVER_CATCH2))
		return 0;
	return (double)policy_depth(c, l) * l->cycle >= 2 * REPLY_WAIT;
}

/*
 * The adaptive sampling interval: next (the interval chosen so far this
 * pass) shortened as a host's VA nears the kill limit: an eighth of the
 * time to reach it at the growth rate since the last sample (prev), and a
 * quarter of the base interval within 10% of it.
 */
double policy_interval(const run_ctx *c, uint64_t va, uint64_t prev, double next)
{
	if (!c->hard.va)
		return next;
	if (va > prev && va < c->hard.va) {
		double rate = (double)(va - prev) / (c->interval > 0 ? c->interval : 0.005);
		double ttl = (double)(c->hard.va - va) / rate;
		if (ttl / 8 < next)
			next = ttl / 8;
	}
	if (va >= c->hard.va / 10 * 9 && c->o->interval / 4 < next)
		next = c->o->interval / 4;
	return next;
}

/*
 * Why a host said it recycles, in the report's words: the reason a v2 host
 * gives (its own boundary verdict), else the soft limits it was passed,
 * which it checked against the same figures. A refusal of the next test
 * (next: NULL when none is queued on it) by its expected rise is worded by
 * where that rise came from: history's figures for that test (returns 1:
 * a kill history avoided), the largest rise this run has seen (the expect
 * the runner sent for a test history did not know), or the largest rise
 * the host saw of its own tests (MG_WHY_RISE). 0 otherwise.
 */
int policy_recycle_why(const run_ctx *c, const mg_msg *m, const rtest *next, char *why, size_t n)
{
	char a[32], b[32], k[32];
	if (m->why == MG_WHY_GROWTH) {
		report_format_size(a, sizeof(a), m->va);
		report_format_size(b, sizeof(b), m->bytes);
		report_format_size(k, sizeof(k), c->hard.va);
		snprintf(why, n, "va %s + expected growth %s would reach kill %s", a, b, k);
		return 0;
	}
	if (m->why == MG_WHY_RSSGROWTH) {
		report_format_size(a, sizeof(a), m->rss);
		report_format_size(b, sizeof(b), m->bytes);
		report_format_size(k, sizeof(k), c->hard.rss / c->nlanes);
		snprintf(why, n, "rss %s + expected growth %s would reach kill %s%s", a, b, k,
		         c->nlanes > 1 ? " (its share of the pool)" : "");
		return 0;
	}
	if (m->why == MG_WHY_PEAK || m->why == MG_WHY_RISE) {
		int by_history = m->why == MG_WHY_PEAK && next && m->bytes &&
		                 (m->bytes == next->exp_rise || m->bytes == next->exp_growth);
		report_format_size(a, sizeof(a), m->va);
		report_format_size(b, sizeof(b), m->bytes);
		report_format_size(k, sizeof(k), c->hard.va);
		if (by_history)
			snprintf(
			    why, n,
			    "history: the next test rises %s, from va %s it would reach kill %s", b,
			    a, k);
		else
			snprintf(why, n,
			         "%s largest rise %s: from va %s the next test would reach kill %s",
			         m->why == MG_WHY_PEAK ? "this run's" : "this host's", b, a, k);
		return by_history;
	}
	if (m->why == MG_WHY_GAP) {
		report_format_size(b, sizeof(b), m->bytes);
		snprintf(why, n, "gap: no free block of %s fits any more (largest free block)", b);
		return 0;
	}
	if (m->why == MG_WHY_RSS && c->nlanes > 1) { /* it judged its share of the pool */
		report_format_size(a, sizeof(a), m->rss);
		report_format_size(b, sizeof(b), c->soft.rss / c->nlanes);
		report_format_size(k, sizeof(k), c->soft.rss);
		snprintf(why, n, "rss %s >= recycle %s (its share of the pool's %s)", a, b, k);
		return 0;
	}
	unsigned bits = limit_check(c, &c->soft, c->soft.rss, m->va, m->rss);
	if (m->why == MG_WHY_VA)
		bits &= LIMIT_VA;
	else if (m->why == MG_WHY_RSS)
		bits &= LIMIT_RSS;
	if (bits)
		limit_why(why, n, bits, "recycle", m->va, m->rss, c->cg_usage, &c->soft,
		          c->soft.rss);
	else
		snprintf(why, n, "host crossed its soft limit (va %llu, rss %llu)",
		         (unsigned long long)m->va, (unsigned long long)m->rss);
	return 0;
}

/* The resident memory of the pool: every lane's host tree at its last
 * reading (boundary or sample). O(lanes). */
uint64_t policy_pool_rss(const run_ctx *c)
{
	uint64_t sum = 0;
	for (unsigned i = 0; i < c->nlanes; i++)
		if (c->lanes[i].h.state != HOST_NONE)
			sum += c->lanes[i].h.tree_rss;
	return sum;
}

/*
 * One rss budget for all lanes (lim: c->soft.rss or c->hard.rss): LIMIT_RSS
 * when the pool reached it and this lane's tree (lane_rss) holds at least
 * its share, so the heavier lanes recycle and the lighter go on. With one
 * lane: the lane's rss against the limit.
 */
static unsigned rss_pool(const run_ctx *c, uint64_t lim, uint64_t lane_rss)
{
	if (!lim)
		return 0;
	return policy_pool_rss(c) >= lim && lane_rss >= lim / c->nlanes ? LIMIT_RSS : 0;
}

/* "rss pool 530 MiB (this lane 290 MiB) >= recycle 512 MiB", or with one
 * lane the plain "rss 530 MiB >= recycle 512 MiB". */
static void pool_why(const run_ctx *c, char *buf, size_t n, const char *kind, uint64_t lane_rss,
                     uint64_t lim)
{
	char a[32], b[32], k[32];
	report_format_size(a, sizeof(a), policy_pool_rss(c));
	report_format_size(b, sizeof(b), lane_rss);
	report_format_size(k, sizeof(k), lim);
	if (c->nlanes > 1)
		snprintf(buf, n, "rss pool %s (this lane %s) >= %s %s", a, b, kind, k);
	else
		snprintf(buf, n, "rss %s >= %s %s", b, kind, k);
}

/* The rss growth of the next test: the largest of the lane's recent ones. */
uint64_t policy_expected_rss_growth(const lane *l)
{
	return window_max(l->rgrowth, l->ngrowth);
}

/*
 * Whether lane l, at a boundary with nothing in flight, may start its next
 * test under a shared rss pool: 1 yes; 0 not yet (the pool plus the growth
 * it expects would reach the kill limit, and a larger lane will recycle and
 * make room); -1 it is the largest, so it recycles itself (why says so). A
 * pool near its kill limit then makes room at boundaries instead of
 * killing a tree mid-test. In a memory cgroup, near the limit, the pool is
 * at least the cgroup's usage (two small reads): hosts still tearing down
 * hold memory that no tree counts any more.
 */
int policy_pool_admits(const run_ctx *c, const lane *l, char *why, size_t n)
{
	if (!c->hard.rss || c->nlanes < 2)
		return 1;
	uint64_t pool = policy_pool_rss(c), grow = policy_expected_rss_growth(l);
	/* the other lanes' tests under way will grow too */
	for (unsigned i = 0; i < c->nlanes; i++)
		if (&c->lanes[i] != l && c->lanes[i].h.nflight)
			pool += policy_expected_rss_growth(&c->lanes[i]);
	/* in a cgroup, hosts still tearing down hold memory no tree counts */
	if (c->cg_found && pool + grow >= c->hard.rss / 4 * 3) {
		cgroup_usage u;
		if (cgroup_read(&c->cg, &u, NULL) == 0 && u.usage > pool)
			pool = u.usage;
	}
	if (pool + grow < c->hard.rss)
		return 1;
	for (unsigned i = 0; i < c->nlanes; i++) {
		const lane *o = &c->lanes[i];
		if (o != l && o->h.state != HOST_NONE && o->h.tree_rss > l->h.tree_rss)
			return 0;
	}
	char a[32], b[32], k[32];
	report_format_size(a, sizeof(a), pool);
	report_format_size(b, sizeof(b), grow);
	report_format_size(k, sizeof(k), c->hard.rss);
	snprintf(why, n, "rss pool %s + expected growth %s would reach kill %s", a, b, k);
	return -1;
}

/*
 * The one verdict on a host's readings (see run_int.h): the LIMIT_* bits
 * of the first rule that says so, in this order, and its words in
 * out->why. A kill: the host's process VA or its tree's rss over the hard
 * limits (the tree against the whole pool: the pool and the cgroup are
 * judged once per sample pass, POLICY_POOL_KILL and POLICY_CGROUP_KILL),
 * then the VmPeak a boundary read, then a process of the other arch. A
 * recycle: VA or the cgroup over the soft limits, then the lane's share of
 * the rss pool, then a process of the other arch, then the largest free
 * block when one was read. Pure: O(lanes) for the pool.
 */
unsigned policy_judge(policy_verdict *out, const run_ctx *c, const host *h, policy_scope scope,
                      const policy_reading *r)
{
	char *why = out->why;
	size_t n = sizeof(out->why);
	unsigned bits = 0;
	why[0] = 0;
	switch (scope) {
	case POLICY_KILL:
		bits =
		    limit_check(c, &c->hard, c->hard.rss, r->va, r->rss) & ~(unsigned)LIMIT_CGROUP;
		if (bits) {
			limit_why(why, n, bits, "kill", r->va, r->rss, c->cg_usage, &c->hard,
			          c->hard.rss);
		} else if (c->hard.va && r->peak >= c->hard.va) {
			char a[32], b[32];
			report_format_size(a, sizeof(a), r->peak);
			report_format_size(b, sizeof(b), c->hard.va);
			snprintf(why, n, "peak va %s >= kill %s", a, b);
			bits = LIMIT_VA;
		} else {
			bits = other_arch_va(c, h, c->va_hard, "kill", why, n);
		}
		break;
	case POLICY_RECYCLE: {
		uint64_t gap_limit = c->soft.gap > c->hard.gap ? c->soft.gap : c->hard.gap;
		if ((bits = limit_check(c, &c->soft, 0, r->va, r->rss))) {
			limit_why(why, n, bits, "recycle", r->va, r->rss, c->cg_usage, &c->soft, 0);
		} else if ((bits = rss_pool(c, c->soft.rss, r->rss))) {
			pool_why(c, why, n, "recycle", r->rss, c->soft.rss);
		} else if ((bits = other_arch_va(c, h, c->va_soft, "recycle", why, n))) {
		} else if (r->has_gap && gap_limit && r->gap < gap_limit) {
			char a[32], b[32];
			report_format_size(a, sizeof(a), r->gap);
			report_format_size(b, sizeof(b), gap_limit);
			snprintf(why, n, "gap %s < recycle %s (largest free block)", a, b);
			bits = LIMIT_GAP;
		}
		break;
	}
	case POLICY_POOL_KILL:
		if (c->hard.rss && c->nlanes > 1 && policy_pool_rss(c) >= c->hard.rss) {
			pool_why(c, why, n, "kill", r->rss, c->hard.rss);
			bits = LIMIT_RSS;
		}
		break;
	case POLICY_CGROUP_KILL:
		if (c->has_cgroup && c->hard.cgroup && c->cg_usage >= c->hard.cgroup) {
			limit_why(why, n, LIMIT_CGROUP, "kill", 0, 0, c->cg_usage, &c->hard, 0);
			bits = LIMIT_CGROUP;
		}
		break;
	}
	out->bits = bits;
	return bits;
}

/* Whether a host that died with VA va and its tree at rss was near a soft
 * limit: its VA at or over the soft VA limit, or its tree holding its share
 * of an rss pool at its soft limit. Such a death is an out-of-memory one. */
int policy_near_soft(const run_ctx *c, uint64_t va, uint64_t rss)
{
	return policy_near_soft_why(c, va, rss, 0, 0, NULL, 0);
}

int policy_past_from_start(uint64_t lim, uint64_t hello, uint64_t now)
{
	return lim && hello >= lim && now / 2 < hello && hello / 64 < now;
}

int policy_near_soft_why(const run_ctx *c, uint64_t va, uint64_t rss, uint64_t hello_va,
                         uint64_t hello_rss, char *why, size_t n)
{
	char a[32], k[32];
	int va_past = policy_past_from_start(c->soft.va, hello_va, va);
	int rss_past = c->nlanes && policy_past_from_start(c->soft.rss / c->nlanes, hello_rss, rss);
	if (c->soft.va && va >= c->soft.va && !va_past) {
		report_format_size(a, sizeof(a), va);
		report_format_size(k, sizeof(k), c->soft.va);
		snprintf(why, n, "va %s >= recycle %s", a, k);
		return 1;
	}
	if (rss_pool(c, c->soft.rss, rss) && !rss_past) {
		pool_why(c, why, n, "recycle", rss, c->soft.rss);
		return 1;
	}
	return 0;
}

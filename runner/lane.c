/*
 * lane.c - a lane's hosts: the transition table of a host's lifecycle and
 * the actions on it (start, feed, result, recycle, kill, retry, exit). A
 * host's state changes only in lane_fire, through lane_next.
 */
#include "run_int.h"

#include "mg_bulk.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "rm_tree.h"

#define X HOST_STATE_COUNT

typedef struct edge {
	host_state next;
	host_action act;
} edge;

/* clang-format off */
#define NO      {X, ACT_NONE}
#define TO(s)   {s, ACT_NONE}
#define GONE(s) {s, ACT_DETACH} /* the host is ended: detach it */
/* clang-format on */

/* table[state][event]: the next state and what follows */
static const edge table[HOST_STATE_COUNT][EV_COUNT] = {
    /* SPAWNED, HELLO, FED, DRAINED, QUIT, RECYCLE, BYE, KILL, EOF, EXITED */
    [HOST_NONE] = {TO(HOST_STARTING), NO, NO, NO, NO, NO, NO, NO, NO, NO},
    [HOST_STARTING] = {NO, TO(HOST_READY), NO, NO, NO, NO, NO, GONE(HOST_NONE), TO(HOST_DYING), NO},
    [HOST_READY] = {NO, NO, TO(HOST_RUNNING), NO, TO(HOST_QUITTING), TO(HOST_QUITTING), NO,
                    GONE(HOST_NONE), TO(HOST_DYING), NO},
    [HOST_RUNNING] = {NO, NO, TO(HOST_RUNNING), TO(HOST_READY), TO(HOST_QUITTING),
                      TO(HOST_QUITTING), NO, GONE(HOST_NONE), TO(HOST_DYING), NO},
    [HOST_QUITTING] = {NO, NO, NO, TO(HOST_QUITTING), NO, TO(HOST_QUITTING), GONE(HOST_NONE),
                       GONE(HOST_NONE), TO(HOST_DYING), NO},
    [HOST_DYING] = {NO, NO, NO, NO, NO, NO, NO, GONE(HOST_NONE), NO, GONE(HOST_NONE)},
};

host_state lane_next(host_state s, host_event e)
{
	if ((unsigned)s >= HOST_STATE_COUNT || (unsigned)e >= EV_COUNT)
		return X;
	return table[s][e].next;
}

/* Whether event e is legal in state s: the table's word, the only one. */
static int lane_legal(host_state s, host_event e)
{
	return lane_next(s, e) != X;
}

host_action lane_action(host_state s, host_event e)
{
	if ((unsigned)s >= HOST_STATE_COUNT || (unsigned)e >= EV_COUNT)
		return ACT_NONE;
	return table[s][e].act;
}

const char *lane_state_name(host_state s)
{
	static const char *names[] = {"none", "starting", "ready", "running", "quitting", "dying"};
	return (unsigned)s < HOST_STATE_COUNT ? names[s] : "invalid";
}

const char *lane_event_name(host_event e)
{
	static const char *names[] = {"spawned", "hello", "fed",  "drained", "quit",
	                              "recycle", "bye",   "kill", "eof",     "exited"};
	return (unsigned)e < EV_COUNT ? names[e] : "invalid";
}

/* Puts every test still in flight back at the front of the queue, in order. */
void lane_requeue(run_ctx *c, lane *l)
{
	host *h = &l->h;
	for (size_t i = h->nflight; i-- > 0;)
		plan_push_front(c, flight_at(h, i, c->o->pipeline));
	h->nflight = 0;
	h->head_started = 0;
	h->head_waiting = 0;
}

/* Takes the front test out of the host's flight and returns it: the caller
 * gives it its state (or a retry). */
size_t lane_pop_head(run_ctx *c, lane *l)
{
	size_t t = flight_at(&l->h, 0, c->o->pipeline);
	conn_output_to(c, l, &c->tests[t]); /* what it wrote since the last mark */
	flight_pop(&l->h, c->o->pipeline, now(c));
	l->h.head_out_base = SIZE_MAX;
	return t;
}

/* A host that could not start (or died before its first test): counted
 * against --max-restarts, the reason kept for the lane's giving up. */
void lane_failed_start(lane *l, const char *why)
{
	l->failed_starts++;
	snprintf(l->gave_up_why, sizeof(l->gave_up_why), "%s", why);
}

/* The one place a host's state changes. */
void lane_fire(run_ctx *c, lane *l, host_event e)
{
	host_state next = lane_next(l->h.state, e);
	if (next == HOST_STATE_COUNT) {
		fprintf(stderr, "memguard: internal error: lane %u: event '%s' in state '%s'\n",
		        l->index, lane_event_name(e), lane_state_name(l->h.state));
		abort();
	}
	host_action act = lane_action(l->h.state, e);
	l->h.state = next;
	l->h.since = now(c);
	if (act == ACT_DETACH)
		lane_detach(c, l);
}

/* Detaches the host from its lane: its fds close now, the process is reaped
 * in the background (it may take a while to tear down a large one). */
void lane_detach(run_ctx *c, lane *l)
{
	host *h = &l->h;
	if (h->proc) {
		spawn_close_cmd(h->proc);
		spawn_close_reply(h->proc);
		spawn_close_out(h->proc);
		spawn_close_err(h->proc);
		if (!spawn_reaped(h->proc)) {
			if (c->nreap == c->capreap) {
				c->capreap = c->capreap ? 2 * c->capreap : 8;
				c->reap = mg_xrealloc(c->reap, c->capreap * sizeof(*c->reap));
			}
			c->reap[c->nreap++] = (reaping){h->proc, l->index, now(c)};
		} else {
			spawn_free(h->proc);
		}
	}
	proc_sampler_free(h->sampler);
	tree_free(h->kids);
	conn_ring_close(h);
	free(h->in);
	sites_head_clear(&h->sites);
	mg_bulk_free(h->outq, h->outq_cap);
	mg_bulk_free(h->outq_lines, h->outq_caplines * sizeof(*h->outq_lines));
	free(h->out_pend[0]); /* after its last test: no test's */
	free(h->out_pend[1]);
	free(h->out_pend_tail[0]);
	free(h->out_pend_tail[1]);
	free(h->sent);
	free(h->start_msg);
	size_t *flight = h->flight;
	memset(h, 0, sizeof(*h));
	h->flight = flight;
	h->state = HOST_NONE;
}

void lane_kill(run_ctx *c, lane *l, host_end end, const char *why)
{
	char said[600];
	if (end == END_KILL)
		record_breakdown(c, l, "kill");
	/* the tests it ran that are not run again (a test killed at its
	 * result is retried, as one killed mid-test; one that timed out is
	 * recorded, not counted among them) */
	uint32_t unchecked = l->h.tests_run - (l->h.killed_at_result && l->h.tests_run);
	if ((end == END_KILL || end == END_TIMEOUT) && c->program_asan && unchecked) {
		/* its exit would have run LeakSanitizer's check over what they
		 * left: not fixable by running them again, so said (no verdict) */
		snprintf(said, sizeof(said),
		         "%s; LeakSanitizer's check at exit was not run for %u tests of this "
		         "host (an ASan build, killed before its exit)",
		         why, (unsigned)unchecked);
		why = said;
	}
	spawn_signal(l->h.proc, SIGKILL);
	record_host_end(c, l, end, why);
	progress_event(c->prog, l->index, record_gen(c, l)->index, l->h.pid, end, l->h.tests_run,
	               why);
	lane_fire(c, l, EV_KILL); /* detaches it */
}

/* Test t goes to the retry queue (a fresh host, alone) unless it has had
 * its most attempts: 0 then, and the caller records how it ended. */
static int retry_upto(run_ctx *c, size_t t, unsigned most)
{
	rtest *rt = &c->tests[t];
	if (rt->attempts >= most)
		return 0;
	free(rt->out);
	free(rt->tail);
	rt->out = NULL;
	rt->tail = NULL;
	rt->out_len = rt->out_dropped = 0;
	plan_retry_push(c, t);
	return 1;
}

/* The one retry every test may have (its second attempt). */
static int retry_once(run_ctx *c, size_t t)
{
	return retry_upto(c, t, 2);
}

/* Nothing left to run anywhere: host h has no test in flight and the
 * queue and the retry queue are empty (it quits with the run). */
static int lane_run_done(const run_ctx *c, const host *h)
{
	return !h->nflight && !c->qlen && !c->rqlen;
}

/* The VA test t is expected to rise above its start: its own clean rise
 * when history knows one, else at least the largest rise this run has seen
 * of any test (every test, not a recent window: a big one every 50th
 * test is still remembered). */
static uint64_t lane_expected_rise(const run_ctx *c, size_t t)
{
	const rtest *rt = &c->tests[t];
	if (rt->rise_known)
		return rt->exp_rise;
	return rt->exp_rise > c->max_rise ? rt->exp_rise : c->max_rise;
}

/*
 * 1 when a test that failed (gracefully: an allocation that returned NULL)
 * did so within the headroom of a limit, why says which: VA (the most of
 * its start, end and peak) past the soft VA limit less the headroom (its
 * expected rise, at least the distance from the soft to the hard limit but
 * no more than an eighth of the soft), where the address space has a
 * ceiling a test can meet (x86's 4 GiB, an --address-space cap, an
 * RLIMIT_AS the run inherited: ulimit -v; a 64-bit
 * space runs out of no VA a test asks for, so a failure there beside a low
 * --recycle-at va=... is the test's own, never retried as memory's),
 * RSS past the soft RSS limit less the lane's expected RSS growth, or, in
 * a 32-bit space past its half, no free block of the gap limit. Not a VA
 * or RSS limit the host was past from its start (policy_past_from_start:
 * --recycle-at rss=1K, below a fresh program's own size, would retry
 * every failure, and a flaky one could pass). Reads the host's maps only
 * for the gap (~0.3 ms, failures only).
 */
static int lane_near_ceiling(const run_ctx *c, const lane *l, size_t t, uint64_t va, char *why,
                             size_t n)
{
	char a[32], b[32];
	uint64_t soft_va = c->soft.va ? c->soft.va : c->hard.va;
	int bounded = c->arch == MG_ARCH_X86 || policy_va_ceiling(c) < limits_arch_ceiling(c->arch);
	if (soft_va && bounded) {
		/* the headroom: its expected rise, at least the distance to the
		 * hard limit (x86's defaults: 256 MiB) up to an eighth of the soft */
		uint64_t room = lane_expected_rise(c, t), gap = 0;
		if (c->hard.va > soft_va)
			gap =
			    c->hard.va - soft_va < soft_va / 8 ? c->hard.va - soft_va : soft_va / 8;
		if (gap > room)
			room = gap;
		if (va + room >= soft_va && !policy_past_from_start(soft_va, l->h.hello_va, va)) {
			report_format_size(a, sizeof(a), va);
			report_format_size(b, sizeof(b), room);
			snprintf(why, n, "va %s within %s of the limit", a, b);
			return 1;
		}
	}
	if (c->soft.rss && l->h.tree_rss + policy_expected_rss_growth(l) >= c->soft.rss &&
	    !policy_past_from_start(c->soft.rss, l->h.hello_rss, l->h.tree_rss)) {
		report_format_size(a, sizeof(a), l->h.tree_rss);
		snprintf(why, n, "rss %s within its expected growth of the limit", a);
		return 1;
	}
	uint64_t gap_limit = c->soft.gap > c->hard.gap ? c->soft.gap : c->hard.gap, gap;
	if (sample_gap_read(c, &l->h, va, &gap) == 0 && gap < gap_limit) {
		report_format_size(a, sizeof(a), gap);
		snprintf(why, n, "largest free block %s", a);
		return 1;
	}
	return 0;
}

/* A test broke a hard limit (or crashed near one): retry it once, alone,
 * in a fresh host; the second time it is memory-limit. own: its own tree
 * broke it; 0: the lanes' shared rss pool or cgroup did, with other lanes'
 * trees in it, and its retry waits until they have ended (pool_alone,
 * lane_pool_alone); a retry the shared limit broke, where the first kill
 * was its own tree's, gets a third attempt so (its attempts say 3). */
static void lane_breach(run_ctx *c, lane *l, size_t t, const char *why, double dur, int own)
{
	/* the tests queued behind it go back first, so the retry is next in line */
	lane_requeue(c, l);
	if (c->driver == DRIVER_WRAP) {
		/* one command, no tests to isolate it from: a retry reruns it all */
		record_testf(c, l, t, TEST_MEMLIMIT, dur, "%s", why);
	} else if (retry_once(c, t)) {
		c->tests[t].pool_alone |= !own && c->nlanes > 1;
	} else if (!own && c->nlanes > 1 && !c->tests[t].pool_alone && retry_upto(c, t, 3)) {
		/* its retry (after a kill of its own tree) met the other lanes'
		 * trees in the shared limit: once more, with them ended, so a test
		 * that fits alone passes */
		c->tests[t].pool_alone = 1;
	} else {
		record_testf(c, l, t, TEST_MEMLIMIT, dur,
		             c->tests[t].attempts > 2 ? "%s (a third time, alone in a fresh host)"
		             : own || c->tests[t].pool_alone || c->nlanes == 1
		                 ? "%s (alone in a fresh host, twice)"
		                 : "%s (twice: its retry had a fresh host, but other lanes ran "
		                   "beside it)",
		             why);
	}
}

static void lane_quit(run_ctx *c, lane *l, host_end end, const char *why);

/*
 * A test the lanes' shared limit killed (lane_breach: the pool or the
 * cgroup, with other lanes' trees in it) is retried with the other lanes'
 * hosts ended: none is fed, each quits once it has nothing in flight and
 * none starts until the retry has ended, in the first lane that has not
 * given up (its owner), in a fresh host. 1 when lane l waits for it (the
 * caller returns), 0 when l goes on (the owner, or no such retry).
 */
static int lane_pool_alone(run_ctx *c, lane *l)
{
	lane *owner = NULL, *running = NULL;
	for (unsigned i = 0; i < c->nlanes; i++) {
		lane *o = &c->lanes[i];
		if (o->h.state != HOST_NONE && o->h.alone == 2)
			running = o;
		if (!owner && !o->gave_up)
			owner = o;
	}
	int pending = c->rqlen && c->tests[c->rq[c->rqhead]].pool_alone;
	if (!running && !pending)
		return 0;
	lane *keep = running ? running : owner;
	host *h = &l->h;
	if (l != keep || (pending && (h->tests_run || h->nflight))) {
		/* ended at its boundary: its memory is out of the pool */
		if ((h->state == HOST_READY || h->state == HOST_RUNNING) && !h->nflight &&
		    h->end == END_NONE)
			lane_quit(c, l, END_RECYCLE, "another lane's retry runs alone");
		return 1;
	}
	if (running)
		return 0;
	for (unsigned i = 0; i < c->nlanes; i++) /* the owner waits for the others */
		if (&c->lanes[i] != l && c->lanes[i].h.state != HOST_NONE)
			return 1;
	return 0;
}

void lane_protocol_error(run_ctx *c, lane *l, const char *why)
{
	host *h = &l->h;
	char msg[300];
	snprintf(msg, sizeof(msg), "protocol error: %s", why);
	c->protocol_breaks++; /* its tests run again elsewhere; the run still says 3 */
	if (h->nflight && h->head_started)
		record_testf(c, l, lane_pop_head(c, l), TEST_ERROR, now(c) - h->head_t0, "%s", msg);
	else if (h->tests_run == 0)
		lane_failed_start(l, msg);
	lane_requeue(c, l);
	lane_kill(c, l, END_ERROR, msg);
}

static void lane_quit(run_ctx *c, lane *l, host_end end, const char *why)
{
	host *h = &l->h;
	/* what it was not sent goes back to the front of the queue, in order (a
	 * host that does not check its own limits would run it past the limit) */
	for (size_t lines = conn_unfeed(h); lines && h->nflight; lines--) {
		plan_push_front(c, flight_at(h, --h->nflight, c->o->pipeline));
		if (h->nsent)
			h->nsent--; /* never written: no ordinal in the host */
	}
	conn_send(h, &(mg_msg){.kind = MG_CMD_QUIT});
	h->end = end;
	snprintf(h->why, sizeof(h->why), "%s", why ? why : "");
	record_breakdown(c, l, end == END_RECYCLE ? "recycle" : "peak");
	if (h->state != HOST_QUITTING) /* a host that announced its recycle is quitting */
		lane_fire(c, l, EV_QUIT);
}

static int lane_start(run_ctx *c, lane *l)
{
	host *h = &l->h;
	mg_err err;
	spawn_options so = SPAWN_OPTIONS_INIT;
	/* a native host's replies: a ring in shared memory (PROTOCOL.md),
	 * offered in its environment only when it could be made */
	int ring_fd = c->driver == DRIVER_NATIVE ? conn_ring_open(h) : -1;
	so.extra_fd = ring_fd;
	so.extra_target = MG_PROTO_RING_FD;
	conn_build_env(c, 1, l);
	so.envp = c->envp;
	so.as_limit = c->o->address_space;
	if (c->listing_fd >= 0) { /* gtest, catch2: no second listing */
		so.extra_fd = c->listing_fd;
		so.extra_target = MG_LISTING_FD;
	}
	int rc = spawn_start(&h->proc, c->path, c->argv, &so, &err);
	if (ring_fd >= 0)
		close(ring_fd); /* the host has its own; the mapping stays */
	if (rc < 0) {
		conn_ring_close(h);
		lane_failed_start(l, err.msg);
		return rc;
	}
	h->pid = spawn_proc_pid(h->proc);
	if (proc_sampler_open(&h->sampler, h->pid, &err) < 0)
		h->sampler = NULL; /* gone already: the EOF will tell */
	h->in = mg_xrealloc(NULL, 2 * MG_PROTO_LINE_MAX);
	mg_lines_init(&h->lines, h->in, 2 * MG_PROTO_LINE_MAX, MG_PROTO_LINE_MAX);
	if (tree_new(&h->kids, MAX_DESCENDANTS, &err) < 0)
		h->kids = NULL; /* out of memory: its children go unseen */
	else if (!driver_serves_protocol(c->driver)) {
		char spawner[4096];
		tree_ours(h->kids, c->path); /* a shim's child before its exec */
		if (spawn_spawner_path(spawner, sizeof(spawner), c->path) == 0)
			tree_ours(h->kids, spawner); /* and its spawner */
	}
	record_host_start(c, l);
	lane_fire(c, l, EV_SPAWNED);
	return 0;
}

/* 1 when a lane other than l has a program before its first test (its
 * host starting, or a shim's next program not yet in a test). */
static int lane_others_starting(const run_ctx *c, const lane *l)
{
	for (size_t i = 0; i < c->nlanes; i++) {
		const host *o = &c->lanes[i].h;
		if (&c->lanes[i] == l || o->head_started)
			continue;
		if ((o->state == HOST_STARTING || o->state == HOST_READY ||
		     o->state == HOST_RUNNING) &&
		    (!o->tests_run || o->fresh_program))
			return 1;
	}
	return 0;
}

/*
 * The run has had the failures the user's fail-fast allows (-x 2: its
 * second), counted in the order their results were recorded, whatever lane
 * or generation ran them: as in the direct run no test starts after it,
 * not a queued one nor a retry; each is skip "not run: ..." (c->fail_why),
 * in l's shard. A host holding tests it has not started is quit: the one
 * it is running ends as it does (a real result, so the report can hold a
 * failure more per other lane than the direct run), its program parks
 * before the next, and what it did not run comes back here as skip; one
 * whose next test waits for a lock is ended.
 */
void lane_fail_fast(run_ctx *c, lane *l)
{
	host *h = &l->h;
	char why[120];
	snprintf(why, sizeof(why), "the run had %u failures, as %s asks", c->failures, c->fail_opt);
	if (h->head_waiting && (h->state == HOST_RUNNING || h->state == HOST_QUITTING)) {
		/* its shim waits for a lock (ctest) and reads no quit meanwhile:
		 * it would start that test once it had the lock, where ctest
		 * starts none after the failure. Its tests are skip too. (One
		 * whose start was read already runs on, as any lane's running
		 * test: the failing shim sends its result before it lets its
		 * locks go, but the two pipes may still be read in lane order.) */
		lane_requeue(c, l);
		lane_kill(c, l, h->end != END_NONE ? h->end : END_QUIT, why);
	}
	while (c->qlen || c->rqlen) {
		size_t t = c->rqlen ? plan_retry_pop(c) : plan_pop(c);
		/* never started: no figures (not its host's) */
		record_test(c, l, t, TEST_SKIP, c->fail_why, strlen(c->fail_why), 0, 0, 0, 0, 0);
	}
	if ((h->state == HOST_READY || h->state == HOST_RUNNING) && h->end == END_NONE &&
	    h->nflight > (size_t)h->head_started)
		lane_quit(c, l, END_QUIT, why);
}

/* Starts hosts and feeds run lines: called for every lane each loop turn. */
void lane_schedule(run_ctx *c, lane *l)
{
	host *h = &l->h;
	size_t depth = policy_depth(c, l);

	if (policy_fail_fast_hit(c) && !c->signo && !c->deadline_hit)
		lane_fail_fast(c, l);

	if (l->gave_up || c->signo || c->deadline_hit)
		return;
	if (lane_pool_alone(c, l))
		return;
	if (h->state == HOST_NONE) {
		if (!c->qlen && !c->rqlen)
			return;
		/* tests whose program died at its start start again once no other
		 * lane's program is starting: two copies can collide there
		 * (leveldb's db_test runs benchmarks on a fixed /tmp path in main) */
		if (!c->rqlen && c->tests[plan_front(c)].start_died && lane_others_starting(c, l))
			return;
		if (l->failed_starts >= c->o->max_restarts) {
			l->gave_up = 1;
			return;
		}
		lane_start(c, l);
		return;
	}
	if (h->state != HOST_READY && h->state != HOST_RUNNING)
		return;

	size_t fed = 0;
	int per_process = policy_process_per_test(c);
	/* A fresh host takes a waiting retry first, and only that. */
	int retry = c->rqlen && !h->tests_run && !h->nflight && !h->alone;
	if (!h->nflight)
		h->head_since = now(c);
	if (retry) /* 2: the other lanes wait (lane_pool_alone) */
		h->alone = c->tests[c->rq[c->rqhead]].pool_alone ? 2 : 1;
	/* Refills come in batches: a host with over half its depth in flight has
	 * work enough, so the runner writes once per depth / 2 results, not once
	 * per result (a write is a system call on both sides). A gtest or catch2
	 * shim runs each burst in a program of its own, with what was queued
	 * when it started: its refill waits until the last burst drained, so
	 * each program's first test is known (its delta is from a fresh
	 * program's memory, not from where the last one ended). */
	int burst = c->driver == DRIVER_GTEST || c->driver == DRIVER_CATCH2;
	int drained = !h->nflight;
	int refill = burst ? drained : depth < 4 || h->nflight <= depth / 2;
	/* the lane's expected growth (the window's largest): the same for every
	 * test this feed takes, read once (a recycled gtest lane is fed all its
	 * remaining tests again) */
	uint64_t lane_growth = policy_expected_growth(l);
	while (retry || (h->nflight < depth && (refill || fed) && c->qlen && !h->alone &&
	                 !(h->soft_hit && h->tests_run))) {
		/* a test that waits for another (CTest's DEPENDS, fixtures) is
		 * passed over until that one ended, in whichever lane */
		size_t at = retry ? 0 : plan_ready(c);
		if (at == SIZE_MAX)
			break; /* woken again when a test ends (its record) */
		size_t t = retry ? c->rq[c->rqhead] : plan_at(c, at);
		rtest *rt = &c->tests[t];
		char pool_why[200];
		if (!retry && h->tests_run && !h->nflight) {
			/* the rss pool: a test that would take it to the kill limit
			 * starts only after the largest lane has recycled */
			int verdict = policy_pool_admits(c, l, pool_why, sizeof(pool_why));
			if (verdict < 0) {
				lane_quit(c, l, END_RECYCLE, pool_why);
				break;
			}
			if (verdict == 0)
				break; /* wait: a larger lane makes room */
		}
		uint64_t grow = lane_growth, rise = lane_expected_rise(c, t);
		if (!per_process && rise > grow)
			grow = rise;
		if (!retry && c->hard.va && h->tests_run && !h->nflight &&
		    h->va_last + grow >= c->hard.va) {
			/* worded by its source as a host's own refusal is (a rise
			 * history knows, the run's largest, the lane's growth), and
			 * history's counted as a kill it avoided, whichever of the
			 * runner and the host refused first */
			char why[200];
			mg_msg m = {.why = grow > lane_growth ? MG_WHY_PEAK : MG_WHY_GROWTH,
			            .va = h->va_last,
			            .bytes = grow};
			if (policy_recycle_why(c, &m, rt->rise_known ? rt : NULL, why, sizeof(why)))
				record_avoided(c);
			lane_quit(c, l, END_RECYCLE, why);
			break;
		}
		if (retry)
			plan_retry_pop(c);
		else
			plan_take(c, at);
		retry = 0;
		const char *fixture;
		size_t setup = plan_setup_failed(c, t, &fixture);
		if (setup != SIZE_MAX) { /* as ctest: not run, a failure */
			record_testf(c, l, t, TEST_FAIL, 0,
			             "not run: failed test dependencies: %.300s (the setup of its "
			             "fixture %.150s; ctest: Not Run)",
			             c->tests[setup].name, fixture);
			continue;
		}
		/* history's word and the run's largest rise, for the host's admission;
		 * to a v4 host, whether history knows the test's own rise (then it
		 * alone counts, not the largest rise the host saw: sent even when 0) */
		int known = rt->rise_known && h->version >= 4;
		if ((rise || rt->exp_growth || known) && h->version >= 2 &&
		    driver_serves_protocol(c->driver))
			conn_send(h, &(mg_msg){.kind = MG_CMD_EXPECT,
			                       .va = rise,
			                       .bytes = rt->exp_growth,
			                       .count = (uint64_t)known});
		conn_send(h, &(mg_msg){.kind = MG_CMD_RUN, .text = rt->name, .text_len = rt->len});
		if (!h->nflight)
			h->head_out_base = rt->tail ? SIZE_MAX : rt->out_len;
		h->flight[(h->fhead + h->nflight++) % c->o->pipeline] = t;
		if (h->nsent == h->capsent) {
			h->capsent = h->capsent ? 2 * h->capsent : 64;
			h->sent = mg_xrealloc(h->sent, h->capsent * sizeof(*h->sent));
		}
		h->sent[h->nsent++] = t;
		fed++;
	}
	/* a shim that gives its program all it was given waits for the burst's end */
	if (fed && burst) {
		if (h->tests_run && drained)
			h->fresh_program = 1;
		conn_send(h, &(mg_msg){.kind = MG_CMD_FED});
	}
	if (fed)
		lane_fire(c, l, EV_FED);
	if ((h->state == HOST_READY) && !h->nflight) {
		if (lane_run_done(c, h))
			lane_quit(c, l, END_QUIT, "no tests left");
		else if (h->alone)
			lane_quit(c, l, END_RECYCLE, "its retry ran alone");
		else if (c->rqlen && !c->qlen)
			lane_quit(c, l, END_RECYCLE, "a retry runs alone in a fresh host");
		else if (h->soft_hit && h->tests_run)
			lane_quit(c, l, END_RECYCLE, "over a soft limit between tests");
	}
	conn_flush(c, l);
}

/* A result line: the head test is done. */
static void lane_result(run_ctx *c, lane *l, const mg_msg *m)
{
	host *h = &l->h;
	size_t t = flight_at(h, 0, c->o->pipeline);
	test_state st = m->kind == MG_MSG_PASS      ? TEST_PASS
	                : m->kind == MG_MSG_FAIL    ? TEST_FAIL
	                : m->kind == MG_MSG_ERROR   ? TEST_ERROR
	                : m->kind == MG_MSG_TIMEOUT ? TEST_TIMEOUT /* ctest's TIMEOUT */
	                                            : TEST_SKIP;
	/* a test that was a process of its own ended with it: what it holds
	 * is its own figure, not a rise over the test before */
	int per_process = policy_process_per_test(c);
	if (h->fresh_program) { /* a later program's first test: from where programs start */
		h->fresh_program = 0;
		h->va_before = h->hello_va;
		h->rss_before = h->hello_rss;
	}
	int64_t dva = per_process ? 0 : (int64_t)m->va - (int64_t)h->va_before;
	int64_t drss = per_process ? 0 : (int64_t)m->rss - (int64_t)h->rss_before;
	h->va_before = m->va;
	h->rss_before = m->rss;
	h->va_last = m->va;
	h->rss_last = m->rss;
	if (m->va > h->peak_va)
		h->peak_va = m->va;
	if (m->rss > h->peak_rss)
		h->peak_rss = m->rss;
	h->tests_run++;
	l->failed_starts = 0;
	flight_pop(h, c->o->pipeline, now(c));
	h->head_out_base = SIZE_MAX;

	/* A host serving the protocol (native, pytest) reports its own RSS (its children come from
	 * the tree); a shim reports its program's, which the tree already holds. */
	uint64_t tree_rss = driver_serves_protocol(c->driver)   ? m->rss + h->desc_rss
	                    : m->rss > h->own_rss + h->desc_rss ? m->rss
	                                                        : h->own_rss + h->desc_rss;
	h->tree_rss = tree_rss;
	/* a tree alone over the whole rss pool is killed here; the pool and the
	 * cgroup are shared: judged once per sample pass */
	policy_reading r = {.va = m->va, .rss = tree_rss};
	policy_verdict v;
	policy_judge(&v, c, h, POLICY_KILL, &r);
	/* A reservation burst can come and go between samples; VmPeak keeps it.
	 * Read it (6-17 us) after tests of 1 ms or more, where it costs under 2%
	 * and where such a burst has time to hide; the host has already started
	 * its next test, so a peak from that one is blamed here: its retry alone
	 * clears a wrong blame. */
	uint64_t test_peak = h->head_peak; /* a v2 host said it, at its boundary: exact */
	h->head_peak = 0;
	if (!v.bits && m->usec >= 1000 && driver_serves_protocol(c->driver)) {
		/* a v2 host read it itself; for a v1 host the guard reads it */
		uint64_t vm_peak = h->version >= 2 ? test_peak : sample_vm_peak(h);
		if (vm_peak > h->vm_peak_seen) {
			h->vm_peak_seen = vm_peak;
			if (vm_peak > h->peak_va)
				h->peak_va = vm_peak;
			test_peak = vm_peak;
			r.peak = vm_peak;
			policy_judge(&v, c, h, POLICY_KILL, &r);
		}
	}
	if (v.bits) {
		lane_breach(c, l, t, v.why, (double)m->usec / 1e6, 1);
		lane_requeue(c, l);
		h->killed_at_result = 1;
		lane_kill(c, l, END_KILL, v.why);
		return;
	}
	/* a test that broke the hard limit is retried, not a growth to expect */
	l->rgrowth[l->ngrowth % GROWTH_WINDOW] = drss;
	l->growth[l->ngrowth++ % GROWTH_WINDOW] = dva;
	l->avg_duration = 0.75 * l->avg_duration + 0.25 * ((double)m->usec / 1e6);
	uint64_t start = m->va - (uint64_t)dva, top = test_peak > m->va ? test_peak : m->va;
	if (!per_process) {
		uint64_t rise = top > start ? top - start : 0;
		if (rise > c->max_rise)
			c->max_rise = rise;
	}
	/* A failure near the ceiling is retried once, alone, in a fresh host,
	 * like an out-of-memory death; this host, near its limit, recycles. */
	/* An allocation that failed during it (the host saw ENOMEM) is a
	 * failure at the ceiling wherever its VA stands. */
	char near_why[160];
	int near = 0;
	if (st == TEST_FAIL && !per_process && c->driver != DRIVER_WRAP &&
	    !c->tests[t].near_ceiling) {
		near = lane_near_ceiling(c, l, t, top > start ? top : start, near_why,
		                         sizeof(near_why));
		if (!near && h->sites.nomem) {
			snprintf(near_why, sizeof(near_why), "%llu allocation%s failed with ENOMEM",
			         (unsigned long long)h->sites.nomem, h->sites.nomem > 1 ? "s" : "");
			near = 1;
		}
	}
	if (near && retry_once(c, t)) {
		char why[220];
		c->tests[t].near_ceiling = 1;
		record_near_first(c, t, near_why, m->text, m->text_len);
		snprintf(why, sizeof(why), "a test failed near the memory ceiling (%s)", near_why);
		if (!h->nflight)
			lane_fire(c, l, EV_DRAINED);
		if (h->state != HOST_QUITTING)
			lane_quit(c, l, END_RECYCLE, why);
		return;
	}
	record_test(c, l, t, st, m->text, m->text_len, (double)m->usec / 1e6, m->va, m->rss, dva,
	            drss);
	sites_head_record(&h->sites, record_shard(c, l), record_shard(c, l)->ntests - 1);
	if (test_peak > m->va - (uint64_t)(dva > 0 ? dva : 0))
		record_test_peak(c, l, test_peak);
	if (!h->nflight)
		lane_fire(c, l, EV_DRAINED);
	if (h->state == HOST_QUITTING)
		return;
	/* Fragmentation: VA can look fine while no large block fits any more.
	 * A v2 host serving the protocol asks itself at every boundary; for a v1 host or a
	 * driver's program the runner reads its maps, late (the host runs
	 * ahead) and only past half of a 32-bit space (no maps read before). */
	if (policy_can_recycle(c))
		r.has_gap = sample_gap(c, h, m->va, &r.gap) == 0;
	if (!policy_judge(&v, c, h, POLICY_RECYCLE, &r))
		return;
	if (policy_can_recycle(c)) {
		/* nothing left to run anywhere: it quits with the run (lane_feed),
		 * no fresh host started for nothing nor a recycle counted */
		if (!lane_run_done(c, h))
			lane_quit(c, l, END_RECYCLE, v.why);
		else
			h->soft_hit = 1; /* fed no more, should a kill elsewhere put tests back */
		return;
	}
	if (!h->warning[0]) {
		snprintf(h->warning, sizeof(h->warning), "%s (the %s driver does not recycle)",
		         v.why, driver_name(c->driver));
		record_warning(c, l, h->warning);
		progress_warning(c->prog, l->index, record_gen(c, l)->index, h->pid, h->tests_run,
		                 h->warning);
	}
}

void lane_read_replies(run_ctx *c, lane *l)
{
	host *h = &l->h;
	uint32_t before = h->tests_run;
	for (;;) {
		int r = conn_fill(h);
		if (r == CONN_LONG) {
			lane_protocol_error(c, l, "line longer than the protocol allows");
			break;
		}
		if (r == CONN_EOF) {
			lane_fire(c, l, EV_EOF);
			break;
		}
		if (r == CONN_BROKEN) {
			lane_protocol_error(c, l, "its reply ring holds more than it can");
			break;
		}
		char *line;
		size_t len;
		/* a line can end the host (its buffer goes with it): check first */
		while (h->state != HOST_NONE && h->state != HOST_DYING &&
		       conn_next_line(h, &line, &len))
			lane_line(c, l, line, len);
		/* after what its ring held: the test in front is the one blamed */
		if (r == CONN_GARBAGE && h->state != HOST_NONE && h->state != HOST_DYING) {
			lane_protocol_error(c, l,
			                    "not a wake byte on the reply pipe of a ring host");
			break;
		}
		if (h->state == HOST_NONE || h->state == HOST_DYING || r == CONN_DRAINED)
			break;
	}
	/* the pace: seconds a result since the last read that brought any */
	double t = now(c);
	if (h->state != HOST_NONE && h->tests_run > before && before) {
		double each = (t - l->read_at) / (h->tests_run - before);
		l->cycle = l->cycle > 0 ? 0.75 * l->cycle + 0.25 * each : each;
	}
	if (h->tests_run > before || !before)
		l->read_at = t;
}

void lane_catch_up(run_ctx *c, lane *l)
{
	host *h = &l->h;
	if (h->reply_due == 0)
		return;
	h->reply_due = 0;
	if (h->state != HOST_NONE && h->state != HOST_DYING && spawn_reply_fd(h->proc) >= 0)
		lane_read_replies(c, l);
}

/* The test in front of host h's flight has started (its start line, or
 * a shim's result that implies it). */
static void lane_head_start(run_ctx *c, host *h)
{
	h->head_started = 1;
	h->head_waiting = 0;
	sites_head_clear(&h->sites);
	h->head_t0 = now(c);
	c->tests[flight_at(h, 0, c->o->pipeline)].attempts++;
}

void lane_line(run_ctx *c, lane *l, char *line, size_t len)
{
	host *h = &l->h;
	mg_msg m;
	char why[200];

	if (mg_proto_parse(&m, line, len) < 0) {
		snprintf(why, sizeof(why), "not a protocol line: '%.60s'", line);
		for (char *p = why; *p; p++)
			if ((unsigned char)*p < 0x20)
				*p = '?';
		lane_protocol_error(c, l, why);
		return;
	}
	switch (m.kind) {
	case MG_MSG_HELLO:
		if (!lane_legal(h->state, EV_HELLO))
			break;
		if (m.version < 1 || m.version > MG_PROTO_VERSION) {
			snprintf(why, sizeof(why),
			         "hello in protocol version %u; memguard speaks versions 1 to %d",
			         m.version, MG_PROTO_VERSION);
			lane_protocol_error(c, l, why);
			return;
		}
		h->version = m.version;
		h->va_before = h->va_last = h->hello_va = m.va;
		h->rss_before = h->rss_last = h->hello_rss = m.rss;
		/* a gtest or catch2 shim's hello has a listing program's figures
		 * (its heap in huge pages): no reading of this host, so no peak
		 * of it (a generation that runs no test had the listing's) */
		h->peak_va = driver_lists_for_hello(c->driver) ? 0 : m.va;
		h->peak_rss = driver_lists_for_hello(c->driver) ? 0 : m.rss;
		lane_fire(c, l, EV_HELLO);
		return;
	case MG_MSG_START:
		if (h->state != HOST_RUNNING && h->state != HOST_QUITTING)
			break;
		if (!h->nflight || h->head_started)
			break;
		{
			rtest *rt = &c->tests[flight_at(h, 0, c->o->pipeline)];
			if (m.text_len != rt->len || memcmp(m.text, rt->name, rt->len)) {
				snprintf(why, sizeof(why), "start of '%.60s' out of order", m.text);
				lane_protocol_error(c, l, why);
				return;
			}
		}
		lane_head_start(c, h);
		return;
	case MG_MSG_WAIT:
		/* the ctest shim's next test waits for a lock another lane of
		 * this run holds: that lane's test is timed, this wait is not
		 * (ctest starts a test once its locks are free) */
		if (c->driver != DRIVER_CTEST || !h->nflight || h->head_started ||
		    (h->state != HOST_RUNNING && h->state != HOST_QUITTING))
			break;
		h->head_waiting = 1;
		return;
	case MG_MSG_BASE:
		/* a gtest or catch2 shim's program as its first test starts:
		 * that test's growth is from here, and it is where this program
		 * started (hello has a listing program's figures, which are no
		 * reading of this host's) */
		if (!driver_lists_for_hello(c->driver) || !h->nflight || h->head_started ||
		    (h->state != HOST_RUNNING && h->state != HOST_QUITTING))
			break;
		if (m.va > h->peak_va)
			h->peak_va = m.va;
		if (m.rss > h->peak_rss)
			h->peak_rss = m.rss;
		h->va_before = h->va_last = h->hello_va = m.va;
		h->rss_before = h->rss_last = h->hello_rss = m.rss;
		return;
	case MG_MSG_OUT:
		/* a shim passes its program's output on in order with the test */
		if (!h->nflight || !h->head_started)
			break;
		record_stream(c, m.text, m.text_len);
		record_output(c, &c->tests[flight_at(h, 0, c->o->pipeline)], m.text, m.text_len);
		return;
	case MG_MSG_PASS:
	case MG_MSG_FAIL:
	case MG_MSG_SKIP:
	case MG_MSG_ERROR:
	case MG_MSG_TIMEOUT:
		if (!h->nflight || (m.kind == MG_MSG_ERROR && driver_serves_protocol(c->driver)))
			break;
		/* a shim (ours, never a host library) leaves out the start its
		 * result follows at once: the result implies it (PROTOCOL.md 3) */
		if (!h->head_started) {
			if (driver_serves_protocol(c->driver) ||
			    (h->state != HOST_RUNNING && h->state != HOST_QUITTING))
				break;
			lane_head_start(c, h);
		}
		lane_result(c, l, &m);
		return;
	case MG_MSG_EXTRA:
		/* a shim's (or the pytest plugin's) entry outside the listed
		 * tests, between two of them */
		if (h->head_started || c->driver == DRIVER_NATIVE)
			break;
		if (m.name_len == sizeof(MG_EXTRA_PROGRAM_START) - 1 &&
		    !memcmp(m.text, MG_EXTRA_PROGRAM_START, m.name_len)) {
			/* judged when the host ends (lane_start_died) */
			free(h->start_msg);
			h->start_msg_len = m.text_len - m.name_len;
			h->start_msg = mg_xrealloc(NULL, h->start_msg_len + 1);
			memcpy(h->start_msg, m.text + m.name_len, h->start_msg_len);
			h->start_msg[h->start_msg_len] = 0;
			return;
		}
		record_extra(c, l, record_extra_state(m.state), m.text, m.name_len,
		             m.text + m.name_len, m.text_len - m.name_len);
		return;
	case MG_MSG_RECYCLE:
		if (!lane_legal(h->state, EV_RECYCLE) || h->head_started)
			break;
		if (h->state == HOST_READY && lane_run_done(c, h)) {
			/* over a limit after the run's last test: it quits with the
			 * run, no recycle counted (as the runner's own boundary) */
			lane_quit(c, l, END_QUIT, "no tests left");
			return;
		}
		/* history kept a test from a host it would not fit: a kill avoided */
		if (policy_recycle_why(
		        c, &m, h->nflight ? &c->tests[flight_at(h, 0, c->o->pipeline)] : NULL,
		        h->why, sizeof(h->why)))
			record_avoided(c);
		lane_requeue(c, l);
		lane_fire(c, l, EV_RECYCLE);
		/* It waits for quit, so its memory is still there to be read. */
		if (h->end == END_NONE) {
			char why2[sizeof(h->why)];
			memcpy(why2, h->why, sizeof(why2));
			lane_quit(c, l, END_RECYCLE, why2);
		}
		conn_flush(c, l);
		return;
	case MG_MSG_PEAK:
		/* VmPeak rose during the started test (v2, tests of 1 ms or more) */
		if (!h->nflight || !h->head_started)
			break;
		h->head_peak = m.va;
		return;
	case MG_MSG_MODULE:
	case MG_MSG_SITE:
	case MG_MSG_PIN:
	case MG_MSG_HELD:
	case MG_MSG_HELDIN:
	case MG_MSG_HELDBY:
	case MG_MSG_NOMEM: {
		/* who allocated what the started test left, the items that pin it;
		 * its failed allocations */
		if (!h->nflight || !h->head_started)
			break;
		const char *bad = sites_head_line(&h->sites, &m);
		if (bad != NULL) {
			lane_protocol_error(c, l, bad);
			return;
		}
		return;
	}
	case MG_MSG_DYING:
		/* its memory at a fatal signal; its EOF and exit status follow */
		if (h->state == HOST_STARTING)
			break;
		h->death_va = m.va > m.bytes ? m.va : m.bytes;
		if (h->death_va > h->peak_va)
			h->peak_va = h->death_va;
		return;
	case MG_MSG_BYE:
		if (!lane_legal(h->state, EV_BYE) || h->head_started)
			break;
		if (m.va > h->peak_va)
			h->peak_va = m.va;
		if (m.rss > h->peak_rss)
			h->peak_rss = m.rss;
		/* it wrote its output before bye, but the pipes run apart: what is
		 * still in them is read now, before they close with the host */
		conn_read_output(c, l, 0);
		conn_read_output(c, l, 1);
		lane_requeue(c, l);
		record_host_end(c, l, h->end != END_NONE ? h->end : END_QUIT, h->why);
		if (h->end == END_RECYCLE)
			progress_event(c->prog, l->index, record_gen(c, l)->index, h->pid,
			               END_RECYCLE, h->tests_run, h->why);
		lane_fire(c, l, EV_BYE); /* detaches it */
		return;
	default:
		break;
	}
	snprintf(why, sizeof(why), "unexpected '%.40s' in state %s", line,
	         lane_state_name(h->state));
	lane_protocol_error(c, l, why);
}

/* A host that closed its reply pipe and was still running at
 * DYING_DEADLINE (killed by us): `error`, a protocol break (exit 3). The
 * test it had started is retried once in a fresh host (a second time it is
 * `error`); the tests queued behind it go back to the queue. */
static void lane_pipe_closed(run_ctx *c, lane *l)
{
	host *h = &l->h;
	static const char why[] = "protocol error: closed its reply pipe";
	c->protocol_breaks++;
	if (h->nflight && h->head_started) {
		double dur = now(c) - h->head_t0;
		size_t t = lane_pop_head(c, l);
		lane_requeue(c, l);
		if (!retry_once(c, t))
			record_testf(c, l, t, TEST_ERROR, dur, "%s (during the test, twice)", why);
	} else if (!h->tests_run) {
		lane_failed_start(l, why);
	}
	lane_requeue(c, l);
	record_host_end(c, l, END_ERROR, why);
	progress_event(c->prog, l->index, record_gen(c, l)->index, h->pid, END_ERROR, h->tests_run,
	               why);
	lane_fire(c, l, EV_EXITED); /* detaches it */
}

/*
 * A gtest/catch2 program that died before its first test: its shim said
 * so (`extra error <program start>`, held in start_msg) and ended as the
 * program did, no test started, so no test is blamed. The host's tests go
 * back to the queue for a fresh host, each marked; a test already marked
 * (its program died at the start twice) is `error`, and the run gets the
 * `<program start>` entry (`crash` for a signal, else `error`) with the
 * program's last words. Either way the death is the generation's end
 * (`exit`, its reason) and a console line, with the program's last line;
 * the generation keeps the whole message (last_output: how it ended and
 * the last 2 KiB it wrote), so a retry that passes does not lose why.
 */
static void lane_start_died(run_ctx *c, lane *l, mg_exit_end status, const char *what)
{
	host *h = &l->h;
	char why[500], first[200], last[120];
	size_t again = 0;
	const char *msg = h->start_msg, *nl = memchr(msg, '\n', h->start_msg_len);
	size_t fn = nl ? (size_t)(nl - msg) : h->start_msg_len;
	if (fn && msg[fn - 1] == ':') /* it introduced the output */
		fn--;
	snprintf(first, sizeof(first), "%.*s", (int)fn, msg);
	/* the last non-empty line of its output, for the console */
	const char *e = msg + h->start_msg_len;
	while (e > msg && e[-1] == '\n')
		e--;
	const char *b = e;
	while (b > msg && b[-1] != '\n')
		b--;
	snprintf(last, sizeof(last), "%.*s", nl && b > nl ? (int)(e - b) : 0, b);
	/* what the program wrote went to the front test as it was read (a
	 * shim's output between tests is the test in front's; lane_exited
	 * read the last of it): not that test's, which never started; the
	 * message holds its last words */
	if (h->nflight && h->head_out_base != SIZE_MAX) {
		rtest *front = &c->tests[flight_at(h, 0, c->o->pipeline)];
		if (!front->tail && front->out_len >= h->head_out_base)
			front->out_len = h->head_out_base;
	}
	for (size_t i = 0; i < h->nflight; i++) {
		size_t t = flight_at(h, i, c->o->pipeline);
		if (!c->tests[t].start_died)
			continue;
		record_testf(c, l, t, TEST_ERROR, 0,
		             "not run: %s, twice (see the <program start> entry)", first);
		again++;
	}
	size_t back = h->nflight - again;
	for (size_t i = h->nflight; i-- > 0;) {
		size_t t = flight_at(h, i, c->o->pipeline);
		if (c->tests[t].start_died)
			continue;
		c->tests[t].start_died = 1;
		plan_push_front(c, t);
	}
	h->nflight = 0;
	if (again)
		record_extra(c, l, status.signo ? TEST_CRASH : TEST_ERROR, MG_EXTRA_PROGRAM_START,
		             sizeof(MG_EXTRA_PROGRAM_START) - 1, msg, h->start_msg_len);
	snprintf(why, sizeof(why), "host %s before its first test: %zu of its tests %s%s%s", what,
	         again ? again : back,
	         again ? "not run twice (<program start>)" : "run again in a fresh host",
	         *last ? "; its last output: " : "", last);
	if (!h->tests_run)
		lane_failed_start(l, why);
	record_host_end(c, l, END_EXIT, why);
	/* the console has its last line; the report keeps why it died */
	report_generation *gen = record_gen(c, l);
	free(gen->last_output);
	gen->last_output = report_strndup(msg, h->start_msg_len);
	progress_event(c->prog, l->index, record_gen(c, l)->index, h->pid, END_EXIT, h->tests_run,
	               why);
	lane_fire(c, l, EV_EXITED); /* detaches it */
}

/* The exit status of a host that closed its pipe without bye. */
void lane_exited(run_ctx *c, lane *l, mg_exit_end status)
{
	host *h = &l->h;
	char what[128];
	/* what it wrote before it exited is read before its end is recorded:
	 * its exit can be reaped in the same turn as its last write lands,
	 * after poll looked at the pipe (a v1 host's farewell is its last
	 * test's: run__v1_output_between) */
	conn_read_output(c, l, 0);
	conn_read_output(c, l, 1);
	if (status.signo)
		snprintf(what, sizeof(what), "killed by signal %d (%s)", status.signo,
		         spawn_signal_name(status.signo));
	else
		snprintf(what, sizeof(what), "exited with status %d", status.status);

	/* near a limit by the last reading, or by what the host said as it died
	 * (a fast allocation to the ceiling that no sample saw); not a limit
	 * the host was past from its start (one below a fresh program's own
	 * size: --recycle-at rss=1M), which says nothing of why it died */
	uint64_t va_end = h->death_va > h->va_last ? h->death_va : h->va_last;
	char near_why[160];
	int near = policy_near_soft_why(c, va_end, h->tree_rss, h->hello_va, h->hello_rss, near_why,
	                                sizeof(near_why));
	/* a SIGKILL while the cgroup's OOM-kill count went up: the kernel's OOM
	 * killer, not someone else; an out-of-memory death like the others */
	int oom = status.signo == SIGKILL && sample_oom_killed(c);
	if (oom)
		snprintf(what, sizeof(what),
		         "killed by the kernel's OOM killer (SIGKILL; cgroup "
		         "oom_kill %llu)",
		         (unsigned long long)c->oom_kills);
	host_end end = END_CRASH;
	char why[448];
	if (h->pipe_closed_alive && status.signo == SIGKILL) {
		/* our own SIGKILL, DYING_DEADLINE after it closed its reply pipe: a
		 * protocol error; the test it was running gets its one retry */
		lane_pipe_closed(c, l);
		return;
	}
	if (h->start_msg && !h->head_started && !mg_exit_ok(status)) {
		lane_start_died(c, l, status, what);
		return;
	}
	if (h->nflight && h->head_started) {
		double dur = now(c) - h->head_t0;
		size_t t = lane_pop_head(c, l);
		if (oom) {
			snprintf(why, sizeof(why), "host %s: out of memory", what);
			lane_breach(c, l, t, why, dur, 1);
			end = END_KILL;
		} else if (near) {
			snprintf(why, sizeof(why), "host %s near its limit (%s): out of memory",
			         what, near_why);
			lane_breach(c, l, t, why, dur, 1);
			end = END_KILL;
		} else if (c->driver == DRIVER_PYTEST && mg_exit_ok(status)) {
			/* os._exit(0) in the test: pytest's own run ends there
			 * and passes, as it does at pytest.exit(returncode=0),
			 * which the plugin answers (a status N is still a crash,
			 * as pytest run directly fails so) */
			snprintf(why, sizeof(why),
			         "pytest exited with status 0 during the test: its run would end "
			         "here, passing; the tests after it run in a fresh host");
			record_testf(c, l, t, TEST_PASS, dur, "%s", why);
			end = END_EXIT;
		} else {
			snprintf(why, sizeof(why), "host %s during the test", what);
			record_testf(c, l, t, TEST_CRASH, dur, "%s", why);
		}
	} else {
		snprintf(why, sizeof(why), "host %s %s", what,
		         h->tests_run ? "between tests" : "before its first test");
		if (!h->tests_run)
			lane_failed_start(l, why);
		end = END_EXIT;
	}
	lane_requeue(c, l);
	record_host_end(c, l, end, why);
	progress_event(c->prog, l->index, record_gen(c, l)->index, h->pid, end, h->tests_run, why);
	lane_fire(c, l, EV_EXITED); /* detaches it */
}

/*
 * Kills a host over a hard limit: its started test is retried alone (or is
 * memory-limit), the rest go back to the queue. A fresh host already over
 * its own limit counts as a failed start, so a lane cannot spin; a shared
 * cgroup over its limit (own = 0) is not the fresh host's fault.
 */
void lane_kill_over_limit(run_ctx *c, lane *l, const char *why, double t, int own)
{
	host *h = &l->h;
	if (h->nflight && h->head_started) {
		double dur = t - h->head_t0;
		lane_breach(c, l, lane_pop_head(c, l), why, dur, own);
	} else if (!h->tests_run && own) {
		char msg[sizeof(l->gave_up_why)];
		snprintf(msg, sizeof(msg), "a fresh host is already over the kill limit (%s)", why);
		lane_failed_start(l, msg);
	}
	lane_requeue(c, l);
	lane_kill(c, l, END_KILL, why);
}

/* The lanes of the run: -j (default: CPUs), at most one per test and,
 * with a history, only as many as are worth their start (plan_lanes), each
 * with its timeline (an rss budget is their pool: policy_judge). */
void lane_init_all(run_ctx *c)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	c->nlanes = c->o->jobs ? c->o->jobs : (unsigned)(cpus > 0 ? cpus : 1);
	if (c->ntests && c->nlanes > c->ntests)
		c->nlanes = (unsigned)c->ntests;
	if (!c->nlanes)
		c->nlanes = 1;
	plan_lanes(c);
	c->lanes = calloc(c->nlanes, sizeof(*c->lanes));
	for (unsigned i = 0; i < c->nlanes; i++) {
		lane *l = &c->lanes[i];
		l->index = i;
		l->h.flight = mg_xrealloc(NULL, c->o->pipeline * sizeof(size_t));
		timeline_init(&l->tl, TIMELINE_POINTS);
	}
}

/*
 * GoogleTest's TempDir() is TEST_TMPDIR, else TMPDIR, else /tmp/ (Bazel
 * gives each test its own TEST_TMPDIR; leveldb's test directory reads it
 * too): a program run alone has it to itself, and two lanes running the
 * same program would meet in it (leveldb's recovery_test: the other
 * lane's LOCK file, a red run of a green suite). Made 0700 by mkdtemp.
 * Asked for (--lane-tmpdir), not the default: a fresh directory a lane
 * parts tests that lean on what an earlier one left in a shared one
 * (googletest-filepath-test's CreateDirectoriesFail).
 */
void lane_tmp_make(run_ctx *c)
{
	if (!c->o->lane_tmpdir || c->nlanes < 2 ||
	    getenv("TEST_TMPDIR")) /* the user's, even empty */
		return;
	const char *base = getenv("TMPDIR");
	char dir[4096];
	if (!base || !*base)
		base = "/tmp";
	int n = snprintf(dir, sizeof(dir), "%s/memguard-lanes-XXXXXX", base);
	int too_long = n < 0 || (size_t)n >= sizeof(dir) - 32; /* room for "/lane-K" */
	if (too_long || !mkdtemp(dir)) {
		fprintf(stderr,
		        "memguard run: cannot make the lanes' TEST_TMPDIR under %s: %s (the lanes "
		        "share the default)\n",
		        base, too_long ? "path too long" : strerror(errno));
		return;
	}
	c->lane_tmp = report_strdup(dir);
	for (unsigned i = 0; i < c->nlanes; i++) {
		snprintf(dir, sizeof(dir), "%s/lane-%u", c->lane_tmp, i);
		if (mkdir(dir, 0700) < 0) {
			fprintf(stderr,
			        "memguard run: cannot make %s: %s (the lanes share the default)\n",
			        dir, strerror(errno));
			lane_tmp_remove(c);
			return;
		}
	}
}

void lane_tmp_remove(run_ctx *c)
{
	if (c->lane_tmp && rm_tree(c->lane_tmp) < 0)
		fprintf(stderr, "memguard run: cannot remove %s: %s\n", c->lane_tmp,
		        strerror(errno));
	free(c->lane_tmp);
	c->lane_tmp = NULL;
}

/* The front test took too long (or never started): timeout, the rest go
 * back to the queue, the host is killed. */
void lane_timeout_between(run_ctx *c, lane *l, double timeout)
{
	host *h = &l->h;
	const rtest *a = &c->tests[h->last_ended - 1];
	const rtest *b = &c->tests[flight_at(h, 0, c->o->pipeline)];
	char *name = NULL, *why = NULL;
	int n =
	    asprintf(&name, "<between %.*s and %.*s>", (int)a->len, a->name, (int)b->len, b->name);
	int m = asprintf(&why,
	                 "no test started within %.3gs after %.*s ended: the program hung "
	                 "between the two tests (a suite's tear-down or set-up, an "
	                 "environment, a listener); %.*s runs in a fresh host",
	                 timeout, (int)a->len, a->name, (int)b->len, b->name);
	if (n < 0 || m < 0)
		abort();
	record_extra(c, l, TEST_TIMEOUT, name, (size_t)n, why, (size_t)m);
	lane_requeue(c, l);
	lane_kill(c, l, END_TIMEOUT, why);
	free(name);
	free(why);
}

void lane_timeout(run_ctx *c, lane *l, double dur, const char *why)
{
	record_testf(c, l, lane_pop_head(c, l), TEST_TIMEOUT, dur, "%s", why);
	lane_requeue(c, l);
	lane_kill(c, l, END_TIMEOUT, why);
}

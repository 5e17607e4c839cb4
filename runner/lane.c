/*
 * lane.c - a lane's hosts: the transition table of a host's lifecycle and
 * the actions on it (start, feed, result, recycle, kill, retry, exit). A
 * host's state changes only in lane_fire, through lane_next.
 */
#include "run_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

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

const char *lane_end_name(host_end e)
{
	static const char *names[] = {"running", "quit",  "recycle", "kill",       "timeout",
	                              "error",   "crash", "exit",    "interrupted"};
	return (unsigned)e < END_COUNT ? names[e] : "invalid";
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
}

/* Takes the front test out of the host's flight and returns it: the caller
 * gives it its state (or a retry). */
size_t lane_pop_head(run_ctx *c, lane *l)
{
	size_t t = flight_at(&l->h, 0, c->o->pipeline);
	flight_pop(&l->h, c->o->pipeline, now(c));
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
				c->reap = xrealloc(c->reap, c->capreap * sizeof(*c->reap));
			}
			c->reap[c->nreap++] = (reaping){h->proc, l->index, now(c)};
		} else {
			spawn_free(h->proc);
		}
	}
	proc_sampler_free(h->sampler);
	tree_free(h->kids);
	free(h->in);
	free(h->outq);
	free(h->sent);
	size_t *flight = h->flight;
	memset(h, 0, sizeof(*h));
	h->flight = flight;
	h->state = HOST_NONE;
}

void lane_kill(run_ctx *c, lane *l, host_end end, const char *why)
{
	if (end == END_KILL)
		record_breakdown(c, l, "kill");
	spawn_signal(l->h.proc, SIGKILL);
	record_host_end(c, l, end, why);
	if (end == END_KILL)
		record_shard(c, l)->kills++;
	else if (end == END_RECYCLE) /* a recycling host that missed its quit deadline */
		record_shard(c, l)->recycles++;
	progress_event(c->prog, l->index, record_gen(c, l)->index, l->h.pid, lane_end_name(end),
	               l->h.tests_run, why);
	lane_fire(c, l, EV_KILL); /* detaches it */
}

/* Test t goes to the retry queue (a fresh host, alone) unless it has had
 * its second attempt: 0 then, and the caller records how it ended. */
static int retry_once(run_ctx *c, size_t t)
{
	rtest *rt = &c->tests[t];
	if (rt->attempts >= 2)
		return 0;
	free(rt->out);
	rt->out = NULL;
	rt->out_len = rt->out_dropped = 0;
	plan_retry_push(c, t);
	return 1;
}

/* A test broke a hard limit (or crashed near one): retry it once, alone,
 * in a fresh host; the second time it is memory-limit. */
static void lane_breach(run_ctx *c, lane *l, size_t t, const char *why, double dur)
{
	/* the tests queued behind it go back first, so the retry is next in line */
	lane_requeue(c, l);
	if (c->driver == DRIVER_WRAP) {
		/* one command, no tests to isolate it from: a retry reruns it all */
		record_testf(c, l, t, TEST_MEMLIMIT, dur, "%s", why);
	} else if (!retry_once(c, t)) {
		record_testf(c, l, t, TEST_MEMLIMIT, dur, "%s (alone in a fresh host, twice)", why);
	}
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
	static const char quit[] = "quit\n";
	if (h->outq_len + sizeof(quit) > h->outq_cap) {
		h->outq_cap = h->outq_len + sizeof(quit) + 64;
		h->outq = xrealloc(h->outq, h->outq_cap);
	}
	memcpy(h->outq + h->outq_len, quit, sizeof(quit) - 1);
	h->outq_len += sizeof(quit) - 1;
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
	conn_build_env(c, 1, l);
	spawn_options so = SPAWN_OPTIONS_INIT;
	so.envp = c->envp;
	so.as_limit = c->o->address_space;
	int rc = spawn_start(&h->proc, c->path, c->argv, &so, &err);
	if (rc < 0) {
		lane_failed_start(l, err.msg);
		return rc;
	}
	h->pid = spawn_proc_pid(h->proc);
	if (proc_sampler_open(&h->sampler, h->pid, &err) < 0)
		h->sampler = NULL; /* gone already: the EOF will tell */
	h->in = xrealloc(NULL, 2 * MG_PROTO_LINE_MAX);
	mg_lines_init(&h->lines, h->in, 2 * MG_PROTO_LINE_MAX, MG_PROTO_LINE_MAX);
	if (tree_new(&h->kids, MAX_DESCENDANTS, &err) < 0)
		h->kids = NULL; /* out of memory: its children go unseen */
	report_shard *s = record_shard(c, l);
	report_generation *g = report_shard_add_generation(s);
	g->index = (uint32_t)(s->ngens - 1);
	g->pid = h->pid;
	g->start = now(c);
	g->end = report_strdup("running");
	h->gen = s->ngens - 1;
	h->t_start = g->start;
	if (s->ngens == 1)
		l->first_start = g->start;
	lane_fire(c, l, EV_SPAWNED);
	return 0;
}

/* Starts hosts and feeds run lines: called for every lane each loop turn. */
void lane_schedule(run_ctx *c, lane *l)
{
	host *h = &l->h;
	size_t depth = policy_depth(c, l);

	if (l->gave_up || c->signo || c->deadline_hit)
		return;
	if (h->state == HOST_NONE) {
		if (!c->qlen && !c->rqlen)
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
	/* A fresh host takes a waiting retry first, and only that. */
	int retry = c->rqlen && !h->tests_run && !h->nflight && !h->alone;
	if (!h->nflight)
		h->head_since = now(c);
	if (retry)
		h->alone = 1;
	while (retry ||
	       (h->nflight < depth && c->qlen && !h->alone && !(h->soft_hit && h->tests_run))) {
		size_t t = retry ? c->rq[c->rqhead] : plan_front(c);
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
		if (!retry && c->hard.va && h->tests_run && !h->nflight &&
		    h->va_last + policy_expected_growth(l) >= c->hard.va) {
			char why[200], a[32], b[32];
			report_format_size(a, sizeof(a), h->va_last);
			report_format_size(b, sizeof(b), policy_expected_growth(l));
			snprintf(why, sizeof(why),
			         "va %s + expected growth %s would reach the kill limit", a, b);
			lane_quit(c, l, END_RECYCLE, why);
			break;
		}
		if (retry)
			plan_retry_pop(c);
		else
			plan_pop(c);
		retry = 0;
		size_t need = rt->len * 2 + 56;
		if (h->outq_len + need > h->outq_cap) {
			h->outq_cap = 2 * (h->outq_len + need);
			h->outq = xrealloc(h->outq, h->outq_cap);
		}
		if ((rt->exp_rise || rt->exp_growth) && h->version >= 2 &&
		    driver_serves_protocol(
		        c->driver)) /* history's word, for the host's admission */
			h->outq_len += (size_t)snprintf(
			    h->outq + h->outq_len, h->outq_cap - h->outq_len, "expect %llu %llu\n",
			    (unsigned long long)rt->exp_rise, (unsigned long long)rt->exp_growth);
		memcpy(h->outq + h->outq_len, "run ", 4);
		h->outq_len += 4;
		h->outq_len += mg_proto_escape(h->outq + h->outq_len, h->outq_cap - h->outq_len,
		                               rt->name, rt->len);
		h->outq[h->outq_len++] = '\n';
		h->flight[(h->fhead + h->nflight++) % c->o->pipeline] = t;
		if (h->nsent == h->capsent) {
			h->capsent = h->capsent ? 2 * h->capsent : 64;
			h->sent = xrealloc(h->sent, h->capsent * sizeof(*h->sent));
		}
		h->sent[h->nsent++] = t;
		fed++;
	}
	/* a shim that gives its program all it was given waits for the burst's end */
	if (fed && (c->driver == DRIVER_GTEST || c->driver == DRIVER_CATCH2)) {
		if (h->outq_len + 4 > h->outq_cap) {
			h->outq_cap = 2 * (h->outq_len + 4);
			h->outq = xrealloc(h->outq, h->outq_cap);
		}
		memcpy(h->outq + h->outq_len, "fed\n", 4);
		h->outq_len += 4;
	}
	if (fed)
		lane_fire(c, l, EV_FED);
	if ((h->state == HOST_READY) && !h->nflight) {
		if (!c->qlen && !c->rqlen)
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
	test_state st = m->kind == MG_MSG_PASS   ? TEST_PASS
	                : m->kind == MG_MSG_FAIL ? TEST_FAIL
	                                         : TEST_SKIP;
	/* the ctest driver enforces a test's own TIMEOUT property itself */
	if (st == TEST_FAIL && c->driver == DRIVER_CTEST && m->text_len >= 9 &&
	    !memcmp(m->text, "timeout: ", 9))
		st = TEST_TIMEOUT;
	/* a test that was a process of its own ended with it: what it holds
	 * is its own figure, not a rise over the test before */
	int per_process = policy_process_per_test(c);
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

	/* A native host reports its own RSS (its children come from the tree);
	 * a shim reports its program's, which the tree already holds. */
	uint64_t tree_rss = driver_serves_protocol(c->driver)   ? m->rss + h->desc_rss
	                    : m->rss > h->own_rss + h->desc_rss ? m->rss
	                                                        : h->own_rss + h->desc_rss;
	h->tree_rss = tree_rss;
	/* a tree alone over the whole rss pool is killed here; the pool and the
	 * cgroup are shared: judged once per sample pass */
	unsigned hard =
	    policy_check(c, &c->hard, c->hard.rss, m->va, tree_rss) & ~(unsigned)LIMIT_CGROUP;
	/* A reservation burst can come and go between samples; VmPeak keeps it.
	 * Read it (6-17 us) after tests of 1 ms or more, where it costs under 2%
	 * and where such a burst has time to hide; the host has already started
	 * its next test, so a peak from that one is blamed here: its retry alone
	 * clears a wrong blame. */
	uint64_t test_peak = h->head_peak; /* a v2 host said it, at its boundary: exact */
	h->head_peak = 0;
	if (!hard && m->usec >= 1000 && driver_serves_protocol(c->driver)) {
		proc_status ps = {0};
		if (h->version >= 2) /* the host read it itself; nothing to read here */
			ps.vm_peak = test_peak;
		else if (proc_read_status(&ps, h->pid, NULL) < 0)
			ps.vm_peak = 0;
		if (ps.vm_peak > h->vm_peak_seen) {
			h->vm_peak_seen = ps.vm_peak;
			if (ps.vm_peak > h->peak_va)
				h->peak_va = ps.vm_peak;
			test_peak = ps.vm_peak;
			if (c->hard.va && ps.vm_peak >= c->hard.va) {
				char why[200], a[32], b[32];
				report_format_size(a, sizeof(a), ps.vm_peak);
				report_format_size(b, sizeof(b), c->hard.va);
				snprintf(why, sizeof(why), "peak va %s >= kill %s", a, b);
				lane_breach(c, l, t, why, (double)m->usec / 1e6);
				lane_kill(c, l, END_KILL, why);
				return;
			}
		}
	}
	if (hard) {
		char why[200];
		policy_why(why, sizeof(why), hard, "kill", m->va, tree_rss, c->cg_usage, &c->hard,
		           c->hard.rss);
		lane_breach(c, l, t, why, (double)m->usec / 1e6);
		lane_requeue(c, l);
		lane_kill(c, l, END_KILL, why);
		return;
	}
	/* a test that broke the hard limit is retried, not a growth to expect */
	l->rgrowth[l->ngrowth % GROWTH_WINDOW] = drss;
	l->growth[l->ngrowth++ % GROWTH_WINDOW] = dva;
	l->avg_duration = 0.75 * l->avg_duration + 0.25 * ((double)m->usec / 1e6);
	record_test(c, l, t, st, m->text, m->text_len, (double)m->usec / 1e6, m->va, m->rss, dva,
	            drss);
	if (test_peak > m->va - (uint64_t)(dva > 0 ? dva : 0))
		report_shard_set_test_peak(record_shard(c, l), record_shard(c, l)->ntests - 1,
		                           test_peak);
	if (!h->nflight)
		lane_fire(c, l, EV_DRAINED);
	if (h->state == HOST_QUITTING)
		return;
	unsigned soft = policy_check(c, &c->soft, 0, m->va, tree_rss);
	char why[200];
	if (soft)
		policy_why(why, sizeof(why), soft, "recycle", m->va, tree_rss, c->cg_usage,
		           &c->soft, 0);
	else if ((soft = policy_rss_pool(c, c->soft.rss, tree_rss)))
		policy_pool_why(c, why, sizeof(why), "recycle", tree_rss, c->soft.rss);
	else /* a process of the other arch, as last sampled */
		soft = policy_other_arch_va(c, h, c->va_soft, "recycle", why, sizeof(why));
	if (soft) {
		if (policy_can_recycle(c)) {
			lane_quit(c, l, END_RECYCLE, why);
			return;
		}
		if (!h->warning[0]) {
			snprintf(h->warning, sizeof(h->warning),
			         "%s (the %s driver does not recycle)", why,
			         driver_name(c->driver));
			record_gen(c, l)->warning = report_strdup(h->warning);
			progress_event(c->prog, l->index, record_gen(c, l)->index, h->pid,
			               "warning", h->tests_run, h->warning);
		}
	}
	if (!policy_can_recycle(c))
		return;
	/* Fragmentation: VA can look fine while no large block fits any more.
	 * A v2 native host asks itself at every boundary; for a v1 host or a
	 * driver's program the runner reads its maps, late (the host runs
	 * ahead) and only past half of a 32-bit space (no maps read before). */
	uint64_t gap_limit = c->soft.gap > c->hard.gap ? c->soft.gap : c->hard.gap;
	uint64_t gap;
	int host_judges = driver_serves_protocol(c->driver) && h->version >= 2;
	if (gap_limit && !host_judges && c->arch == MG_ARCH_X86 &&
	    m->va >= policy_va_ceiling(c) / 2 &&
	    maps_largest_gap(&gap, policy_va_pid(c, h), limits_arch_ceiling(c->arch), NULL) == 0 &&
	    gap < gap_limit) {
		char why[200], a[32], b[32];
		report_format_size(a, sizeof(a), gap);
		report_format_size(b, sizeof(b), gap_limit);
		snprintf(why, sizeof(why), "gap %s < recycle %s (largest free block)", a, b);
		lane_quit(c, l, END_RECYCLE, why);
	}
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
		if (h->state != HOST_STARTING)
			break;
		if (m.version < 1 || m.version > MG_PROTO_VERSION) {
			snprintf(why, sizeof(why),
			         "hello in protocol version %u; memguard speaks versions 1 to %d",
			         m.version, MG_PROTO_VERSION);
			lane_protocol_error(c, l, why);
			return;
		}
		h->version = m.version;
		h->va_before = h->va_last = m.va;
		h->rss_before = h->rss_last = m.rss;
		h->peak_va = m.va;
		h->peak_rss = m.rss;
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
		h->head_started = 1;
		h->head_t0 = now(c);
		c->tests[flight_at(h, 0, c->o->pipeline)].attempts++;
		return;
	case MG_MSG_OUT:
		/* a shim passes its program's output on in order with the test */
		if (!h->nflight || !h->head_started)
			break;
		record_output(c, &c->tests[flight_at(h, 0, c->o->pipeline)], m.text, m.text_len);
		return;
	case MG_MSG_PASS:
	case MG_MSG_FAIL:
	case MG_MSG_SKIP:
		if (!h->nflight || !h->head_started)
			break;
		lane_result(c, l, &m);
		return;
	case MG_MSG_RECYCLE:
		if (h->state != HOST_READY && h->state != HOST_RUNNING && h->state != HOST_QUITTING)
			break;
		if (h->head_started)
			break;
		policy_recycle_why(c, &m, h->why, sizeof(h->why));
		if (m.why == MG_WHY_PEAK) /* history kept a test from a host it would not fit */
			c->rep->history.avoided++;
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
	case MG_MSG_DYING:
		/* its memory at a fatal signal; its EOF and exit status follow */
		if (h->state == HOST_STARTING)
			break;
		h->death_va = m.va > m.bytes ? m.va : m.bytes;
		if (h->death_va > h->peak_va)
			h->peak_va = h->death_va;
		return;
	case MG_MSG_BYE:
		if (h->state != HOST_QUITTING || h->head_started)
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
		if (h->end == END_RECYCLE) {
			record_shard(c, l)->recycles++;
			progress_event(c->prog, l->index, record_gen(c, l)->index, h->pid,
			               "recycle", h->tests_run, h->why);
		}
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
	progress_event(c->prog, l->index, record_gen(c, l)->index, h->pid, lane_end_name(END_ERROR),
	               h->tests_run, why);
	lane_fire(c, l, EV_EXITED); /* detaches it */
}

/* The exit status of a host that closed its pipe without bye. */
void lane_exited(run_ctx *c, lane *l, int status)
{
	host *h = &l->h;
	char what[128];
	if (WIFSIGNALED(status))
		snprintf(what, sizeof(what), "killed by signal %d (%s)", WTERMSIG(status),
		         spawn_signal_name(WTERMSIG(status)));
	else
		snprintf(what, sizeof(what), "exited with status %d", WEXITSTATUS(status));

	/* near a limit by the last reading, or by what the host said as it died
	 * (a fast allocation to the ceiling that no sample saw) */
	uint64_t va_end = h->death_va > h->va_last ? h->death_va : h->va_last;
	int near =
	    (c->soft.va && va_end >= c->soft.va) || policy_rss_pool(c, c->soft.rss, h->tree_rss);
	/* a SIGKILL while the cgroup's OOM-kill count went up: the kernel's OOM
	 * killer, not someone else; an out-of-memory death like the others */
	uint64_t kills = 0;
	int oom = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL && c->cg_found &&
	          cgroup_oom_kills(&c->cg, &kills, NULL) == 0 && kills > c->oom_kills;
	if (oom) {
		c->oom_kills = kills;
		snprintf(what, sizeof(what),
		         "killed by the kernel's OOM killer (SIGKILL; cgroup "
		         "oom_kill %llu)",
		         (unsigned long long)kills);
	}
	host_end end = END_CRASH;
	char why[300];
	if (h->pipe_closed_alive && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) {
		/* our own SIGKILL, DYING_DEADLINE after it closed its reply pipe: a
		 * protocol error; the test it was running gets its one retry */
		lane_pipe_closed(c, l);
		return;
	}
	if (h->nflight && h->head_started) {
		double dur = now(c) - h->head_t0;
		size_t t = lane_pop_head(c, l);
		if (oom) {
			snprintf(why, sizeof(why), "host %s: out of memory", what);
			lane_breach(c, l, t, why, dur);
			end = END_KILL;
		} else if (near) {
			char a[32];
			report_format_size(a, sizeof(a), va_end);
			snprintf(why, sizeof(why), "host %s near its limit (va %s): out of memory",
			         what, a);
			lane_breach(c, l, t, why, dur);
			end = END_KILL;
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
	if (end == END_KILL)
		record_shard(c, l)->kills++;
	progress_event(c->prog, l->index, record_gen(c, l)->index, h->pid, lane_end_name(end),
	               h->tests_run, why);
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
		lane_breach(c, l, lane_pop_head(c, l), why, dur);
	} else if (!h->tests_run && own) {
		char msg[sizeof(l->gave_up_why)];
		snprintf(msg, sizeof(msg), "a fresh host is already over the kill limit (%s)", why);
		lane_failed_start(l, msg);
	}
	lane_requeue(c, l);
	lane_kill(c, l, END_KILL, why);
}

/* The lanes of the run: -j (default: CPUs), at most one per test, each
 * with its timeline (an rss budget is their pool: policy_rss_pool). */
void lane_init_all(run_ctx *c)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	c->nlanes = c->o->jobs ? c->o->jobs : (unsigned)(cpus > 0 ? cpus : 1);
	if (c->ntests && c->nlanes > c->ntests)
		c->nlanes = (unsigned)c->ntests;
	if (!c->nlanes)
		c->nlanes = 1;
	c->lanes = calloc(c->nlanes, sizeof(*c->lanes));
	for (unsigned i = 0; i < c->nlanes; i++) {
		lane *l = &c->lanes[i];
		l->index = i;
		l->h.flight = xrealloc(NULL, c->o->pipeline * sizeof(size_t));
		timeline_init(&l->tl, TIMELINE_POINTS);
	}
}

/* The front test took too long (or never started): timeout, the rest go
 * back to the queue, the host is killed. */
void lane_timeout(run_ctx *c, lane *l, double dur, const char *why)
{
	record_testf(c, l, lane_pop_head(c, l), TEST_TIMEOUT, dur, "%s", why);
	lane_requeue(c, l);
	lane_kill(c, l, END_TIMEOUT, why);
}

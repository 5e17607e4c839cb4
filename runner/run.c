/*
 * run.c - the run loop: one poll() for every lane's host pipes, the signal
 * self-pipe and the sampling timer (s6-style supervision). Hosts change
 * state only through host_fire(), which consults lane_next(). No thread per
 * host, no sleep in the loop, no allocation in the sampling path.
 */
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "adapters.h"
#include "cgroup.h"
#include "ci.h"
#include "driver.h"
#include "elf.h"
#include "lane.h"
#include "limits.h"
#include "maps.h"
#include "mg_proto.h"
#include "options.h"
#include "proc.h"
#include "progress.h"
#include "report.h"
#include "spawn.h"
#include "timeline.h"

#define START_DEADLINE  10.0 /* seconds from fork to hello */
#define QUIT_DEADLINE   5.0  /* seconds from quit (nothing in flight) to bye */
#define DYING_DEADLINE  2.0  /* seconds from EOF to exit status */
#define TREE_INTERVAL   0.2  /* seconds between descendant scans */
#define TIMELINE_POINTS 4096 /* per lane */
#define GROWTH_WINDOW   32   /* recent per-test growths kept per lane */
#define MAX_DESCENDANTS 64
#define SLOW_TEST       0.005 /* seconds: above it, a lane keeps only 2 tests in flight */

typedef struct rtest {
	char *name;
	size_t len;
	unsigned attempts;
	int done;
	char *out; /* captured output, bounded */
	size_t out_len;
	size_t out_dropped;
} rtest;

typedef struct host {
	spawn_proc *proc;
	proc_sampler *sampler;
	host_state state;
	pid_t pid;
	size_t gen;     /* index in the shard's generations */
	size_t *flight; /* ring of test indices, in run order */
	size_t fhead, nflight;
	int head_started;
	double head_t0;
	double head_since; /* when the front test became the front: a host that
	                    * never starts it times out too */
	double since;      /* when the current state began */
	uint64_t va_before, va_last, rss_last, peak_va, peak_rss;
	uint64_t desc_rss, desc_va_max;
	pid_t desc_va_pid; /* the descendant with the most VA (drivers: the program) */
	proc_sampler *kid[MAX_DESCENDANTS]; /* kept-open samplers of the descendants */
	pid_t kid_pid[MAX_DESCENDANTS];
	mg_arch kid_arch[MAX_DESCENDANTS];  /* read from each when it appears or execs */
	uint64_t kid_text[MAX_DESCENDANTS]; /* its code size when its arch was read */
	size_t nkids;
	/* VA limits are per process and per arch: the largest descendant of the
	 * host's arch, and of the other (a 32-bit program under a 64-bit shell) */
	uint64_t desc_va_same, desc_va_other;
	pid_t desc_va_other_pid;
	double tree_at;
	uint32_t tests_run;
	int alone;
	int soft_hit;          /* the last sample was over a soft limit: feed nothing */
	uint64_t own_rss;      /* the host process's own RSS at the last sample */
	uint64_t vm_peak_seen; /* VmPeak at the last boundary that read it */
	char warning[256];     /* a soft limit crossed where it cannot recycle */
	char *in;              /* reply bytes not yet a full line */
	size_t in_len;
	char *outq; /* run lines not yet written */
	size_t outq_len, outq_cap;
	int outq_mid; /* outq starts inside a line already partly written */
	double t_start;
	char end[16];
	char why[256];
} host;

typedef struct lane {
	unsigned index;
	host h;
	unsigned failed_starts;
	int gave_up;
	char gave_up_why[sizeof(mg_err)];
	size_t shard;
	timeline tl;
	int64_t growth[GROWTH_WINDOW];
	size_t ngrowth;
	double avg_duration;         /* of recent tests (moving average), seconds */
	uint64_t rss_soft, rss_hard; /* this lane's share of an RSS budget */
	double user, sys;
	double first_start, last_end;
} lane;

typedef struct reaping {
	spawn_proc *proc;
	size_t lane;
	double since;
} reaping;

typedef struct run_ctx {
	run_options *o;
	char path[PATH_MAX];
	char **argv;
	char **shim_argv; /* non-native drivers: memguard __driver NAME ... -- HOST */
	driver_kind driver;
	double tree_interval;
	char **envp;
	char *env_store[5];
	mg_arch arch;
	limits soft, hard; /* for the host's arch */
	/* VA limits per process arch (mg_arch): a tree may hold both kinds */
	uint64_t va_soft[3], va_hard[3];
	rtest *tests;
	size_t ntests;
	size_t *q; /* deque of test indices */
	size_t qhead, qlen;
	size_t *rq; /* retries: each runs alone in a fresh host, in this order */
	size_t rqhead, rqlen;
	size_t remaining;
	lane *lanes;
	unsigned nlanes;
	reaping *reap;
	size_t nreap, capreap;
	report *rep;
	double t0;
	int sigfd[2];
	int signo;
	int deadline_hit;
	int has_cgroup;
	cgroup_mem cg;
	uint64_t cg_usage;
	double cg_hold_until; /* no cgroup kill before this: the last one is dying */
	double next_sample;
	double interval;
	progress *prog;
} run_ctx;

static volatile sig_atomic_t sig_write_fd = -1;

static double now_mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double now(const run_ctx *c)
{
	return now_mono() - c->t0;
}

static void on_signal(int sig)
{
	int saved = errno;
	unsigned char b = (unsigned char)sig;
	if (sig_write_fd >= 0) {
		ssize_t w = write(sig_write_fd, &b, 1);
		(void)w;
	}
	errno = saved;
}

static void *xrealloc(void *p, size_t n)
{
	void *r = realloc(p, n ? n : 1);
	if (!r) {
		fputs("memguard: out of memory\n", stderr);
		abort();
	}
	return r;
}

/* ---- the test queue: a deque, retries go to the front ---- */

static void q_push_back(run_ctx *c, size_t t)
{
	c->q[(c->qhead + c->qlen++) % c->ntests] = t;
}

static void q_push_front(run_ctx *c, size_t t)
{
	c->qhead = (c->qhead + c->ntests - 1) % c->ntests;
	c->q[c->qhead] = t;
	c->qlen++;
}

static size_t q_front(const run_ctx *c)
{
	return c->q[c->qhead];
}

/* A retry waits here, not in the main queue, so the lanes whose hosts are
 * not fresh keep working while a fresh host is made for it. */
static void rq_push(run_ctx *c, size_t t)
{
	c->rq[(c->rqhead + c->rqlen++) % c->ntests] = t;
}

static size_t rq_pop(run_ctx *c)
{
	size_t t = c->rq[c->rqhead];
	c->rqhead = (c->rqhead + 1) % c->ntests;
	c->rqlen--;
	return t;
}

static size_t q_pop(run_ctx *c)
{
	size_t t = c->q[c->qhead];
	c->qhead = (c->qhead + 1) % c->ntests;
	c->qlen--;
	return t;
}

/* ---- recording results ---- */

static report_shard *lane_shard(run_ctx *c, lane *l)
{
	return &c->rep->shards[l->shard];
}

static report_generation *host_gen(run_ctx *c, lane *l)
{
	return &lane_shard(c, l)->gens[l->h.gen];
}

/* Gives test t its final state, in lane l's shard. */
static void test_finish(run_ctx *c, lane *l, size_t t, test_state st, const char *msg,
                        size_t msg_len, double duration, uint64_t va, uint64_t rss, int64_t dva,
                        int64_t drss)
{
	rtest *rt = &c->tests[t];
	report_test *r = report_shard_add_test(lane_shard(c, l));
	r->name = report_strndup(rt->name, rt->len);
	r->state = st;
	r->message = msg ? report_strndup(msg, msg_len) : NULL;
	if (rt->out_len) {
		if (rt->out_dropped) {
			char note[64];
			int n = snprintf(note, sizeof(note),
			                 "\n[memguard: %zu more bytes dropped]\n", rt->out_dropped);
			rt->out = xrealloc(rt->out, rt->out_len + (size_t)n + 1);
			memcpy(rt->out + rt->out_len, note, (size_t)n);
			rt->out_len += (size_t)n;
		}
		r->output = report_strndup(rt->out, rt->out_len);
	}
	free(rt->out);
	rt->out = NULL;
	rt->out_len = rt->out_dropped = 0;
	r->generation = l->h.state != HOST_NONE ? (uint32_t)host_gen(c, l)->index : 0;
	r->attempts = rt->attempts;
	r->duration = duration;
	r->va_after = va;
	r->rss_after = rss;
	r->va_delta = dva;
	r->rss_delta = drss;
	rt->done = 1;
	c->remaining--;
	progress_test_done(c->prog, l->index, st);
}

static void test_finishf(run_ctx *c, lane *l, size_t t, test_state st, double duration,
                         const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void test_finishf(run_ctx *c, lane *l, size_t t, test_state st, double duration,
                         const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(msg))
		n = sizeof(msg) - 1;
	test_finish(c, l, t, st, msg, (size_t)n, duration, l->h.va_last, l->h.rss_last, 0, 0);
}

static void capture(run_ctx *c, rtest *rt, const char *buf, size_t n)
{
	size_t room = c->o->output_limit > rt->out_len ? c->o->output_limit - rt->out_len : 0;
	size_t take = n < room ? n : room;
	if (take) {
		rt->out = xrealloc(rt->out, rt->out_len + take);
		memcpy(rt->out + rt->out_len, buf, take);
		rt->out_len += take;
	}
	rt->out_dropped += n - take;
}

/* ---- host lifecycle ---- */

static size_t flight_at(const host *h, size_t i, unsigned cap)
{
	return h->flight[(h->fhead + i) % cap];
}

static void flight_pop(host *h, unsigned cap, double t)
{
	h->fhead = (h->fhead + 1) % cap;
	h->nflight--;
	h->head_started = 0;
	h->head_since = t;
}

/* Puts every test still in flight back at the front of the queue, in order. */
static void requeue_flight(run_ctx *c, lane *l)
{
	host *h = &l->h;
	for (size_t i = h->nflight; i-- > 0;)
		q_push_front(c, flight_at(h, i, c->o->pipeline));
	h->nflight = 0;
	h->head_started = 0;
}

/* The one place a host's state changes. */
static void host_fire(run_ctx *c, lane *l, host_event e)
{
	host_state next = lane_next(l->h.state, e);
	if (next == HOST_STATE_COUNT) {
		fprintf(stderr, "memguard: internal error: lane %u: event '%s' in state '%s'\n",
		        l->index, lane_event_name(e), lane_state_name(l->h.state));
		abort();
	}
	l->h.state = next;
	l->h.since = now(c);
}

static void host_end_record(run_ctx *c, lane *l, const char *end, const char *why)
{
	report_generation *g = host_gen(c, l);
	host *h = &l->h;
	double t = now(c);
	free(g->end);
	free(g->reason);
	g->end = report_strdup(end);
	g->reason = why && *why ? report_strdup(why) : NULL;
	g->tests_run = h->tests_run;
	if (h->peak_va > g->peak_va)
		g->peak_va = h->peak_va;
	if (h->peak_rss > g->peak_rss)
		g->peak_rss = h->peak_rss;
	g->wall = t - g->start;
	l->last_end = t;
}

/* Detaches the host from its lane: its fds close now, the process is reaped
 * in the background (it may take a while to tear down a large one). */
static void host_detach(run_ctx *c, lane *l)
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
	for (size_t k = 0; k < h->nkids; k++)
		proc_sampler_free(h->kid[k]);
	free(h->in);
	free(h->outq);
	size_t *flight = h->flight;
	memset(h, 0, sizeof(*h));
	h->flight = flight;
	h->state = HOST_NONE;
}

/* Kills the host's group now; the test in flight is dealt with by the caller. */
/* The VA ceiling that percentages, breakdowns and gaps are measured against. */
static uint64_t va_ceiling(const run_ctx *c)
{
	uint64_t as = c->o->address_space, ceiling = limits_arch_ceiling(c->arch);
	return as && as < ceiling ? as : ceiling;
}

/* The process whose address space matters: the host, or for a driver the
 * program under it with the most VA. */
static pid_t va_pid(const run_ctx *c, const host *h)
{
	if (c->driver != DRIVER_NATIVE) /* the shim is ours; its program is the test */
		return h->desc_va_pid ? h->desc_va_pid : h->pid;
	return h->desc_va_pid && h->desc_va_max > h->va_last ? h->desc_va_pid : h->pid;
}

/* exec runs a process per test and wrap one command: ending their shim at
 * a boundary frees nothing, so a soft limit there is a warning. */
static int can_recycle(const run_ctx *c)
{
	return c->driver == DRIVER_NATIVE || c->driver == DRIVER_GTEST;
}

/*
 * Records a breakdown of the host's address space (by category, the largest
 * groups of mappings, the largest free gap) in its generation. Reads
 * /proc/PID/maps: ~0.2 ms for 500 mappings. Only at a recycle, a kill or a
 * host's end, never per sample. A host already gone leaves no breakdown.
 */
static void record_breakdown(run_ctx *c, lane *l, const char *when)
{
	maps_breakdown b;
	/* the layout's ceiling: a capped 64-bit host still maps high */
	if (maps_read(&b, va_pid(c, &l->h), limits_arch_ceiling(c->arch), NULL) < 0)
		return;
	report_breakdown *rb = report_generation_add_breakdown(host_gen(c, l));
	rb->when = report_strdup(when);
	rb->va = b.va;
	rb->largest_gap = b.largest_gap;
	for (size_t i = 0; i < b.ncats; i++) {
		report_category *rc = report_breakdown_add_category(rb);
		rc->name = report_strdup(b.cats[i].name);
		rc->va = b.cats[i].va;
		rc->rss = b.cats[i].rss;
	}
	for (size_t i = 0; i < b.ngroups; i++) {
		report_group *g = report_breakdown_add_group(rb);
		g->name = report_strdup(b.groups[i].name);
		g->count = b.groups[i].count;
		g->size = b.groups[i].size;
		g->total = b.groups[i].count * b.groups[i].size;
	}
}

static void host_kill(run_ctx *c, lane *l, const char *end, const char *why)
{
	if (!strcmp(end, "kill"))
		record_breakdown(c, l, "kill");
	spawn_signal(l->h.proc, SIGKILL);
	host_end_record(c, l, end, why);
	if (!strcmp(end, "kill"))
		lane_shard(c, l)->kills++;
	else if (!strcmp(end, "recycle")) /* a recycling host that missed its quit deadline */
		lane_shard(c, l)->recycles++;
	progress_event(c->prog, l->index, host_gen(c, l)->index, l->h.pid, end, l->h.tests_run,
	               why);
	host_fire(c, l, EV_KILL);
	host_detach(c, l);
}

/* A test broke a hard limit (or crashed near one): retry it once, alone,
 * in a fresh host; the second time it is memory-limit. */
static void breach(run_ctx *c, lane *l, size_t t, const char *why, double dur)
{
	rtest *rt = &c->tests[t];
	/* the tests queued behind it go back first, so the retry is next in line */
	requeue_flight(c, l);
	if (c->driver == DRIVER_WRAP) {
		/* one command, no tests to isolate it from: a retry reruns it all */
		test_finishf(c, l, t, TEST_MEMLIMIT, dur, "%s", why);
	} else if (rt->attempts < 2) {
		free(rt->out);
		rt->out = NULL;
		rt->out_len = rt->out_dropped = 0;
		rq_push(c, t);
	} else {
		test_finishf(c, l, t, TEST_MEMLIMIT, dur, "%s (alone in a fresh host, twice)", why);
	}
}

static void protocol_error(run_ctx *c, lane *l, const char *why)
{
	host *h = &l->h;
	char msg[300];
	snprintf(msg, sizeof(msg), "protocol error: %s", why);
	if (h->nflight && h->head_started) {
		size_t t = flight_at(h, 0, c->o->pipeline);
		flight_pop(h, c->o->pipeline, now(c));
		test_finishf(c, l, t, TEST_ERROR, now(c) - h->head_t0, "%s", msg);
	} else if (h->tests_run == 0) {
		l->failed_starts++;
		snprintf(l->gave_up_why, sizeof(l->gave_up_why), "%s", msg);
	}
	requeue_flight(c, l);
	host_kill(c, l, "error", msg);
}

/* Takes back the run lines not yet written: their tests go back to the
 * front of the queue, in order, so a host being ended runs only what it
 * was already sent (a host that does not check its own limits would
 * otherwise run them all past the limit). */
static void unfeed(run_ctx *c, lane *l)
{
	host *h = &l->h;
	size_t keep = 0, lines = 0;
	if (h->outq_mid) {
		char *nl = memchr(h->outq, '\n', h->outq_len);
		keep = nl ? (size_t)(nl - h->outq) + 1 : h->outq_len;
	}
	for (size_t i = keep; i < h->outq_len; i++)
		lines += h->outq[i] == '\n';
	for (; lines && h->nflight; lines--)
		q_push_front(c, flight_at(h, --h->nflight, c->o->pipeline));
	h->outq_len = keep;
}

static void quit_host(run_ctx *c, lane *l, const char *end, const char *why)
{
	host *h = &l->h;
	unfeed(c, l);
	static const char quit[] = "quit\n";
	if (h->outq_len + sizeof(quit) > h->outq_cap) {
		h->outq_cap = h->outq_len + sizeof(quit) + 64;
		h->outq = xrealloc(h->outq, h->outq_cap);
	}
	memcpy(h->outq + h->outq_len, quit, sizeof(quit) - 1);
	h->outq_len += sizeof(quit) - 1;
	snprintf(h->end, sizeof(h->end), "%s", end);
	snprintf(h->why, sizeof(h->why), "%s", why ? why : "");
	record_breakdown(c, l, strcmp(end, "recycle") ? "peak" : "recycle");
	if (h->state != HOST_QUITTING) /* a host that announced its recycle is quitting */
		host_fire(c, l, EV_QUIT);
}

static void set_env(run_ctx *c, size_t slot, const char *name, uint64_t value)
{
	char buf[128];
	snprintf(buf, sizeof(buf), "%s=%llu", name, (unsigned long long)value);
	free(c->env_store[slot]);
	c->env_store[slot] = report_strdup(buf);
}

/* Builds the host environment: ours without MEMGUARD_*, plus the protocol's. */
static void build_env(run_ctx *c, int with_limits, const lane *l)
{
	extern char **environ;
	size_t n = 0, k = 0;
	while (environ[n])
		n++;
	free(c->envp);
	c->envp = xrealloc(NULL, (n + 8) * sizeof(char *));
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "MEMGUARD_", 9))
			c->envp[k++] = environ[i];
	set_env(c, 0, MG_ENV_HOST, MG_PROTO_VERSION);
	set_env(c, 1, MG_ENV_CMD_FD, MG_PROTO_CMD_FD);
	set_env(c, 2, MG_ENV_REPLY_FD, MG_PROTO_REPLY_FD);
	for (size_t i = 0; i < 3; i++)
		c->envp[k++] = c->env_store[i];
	if (with_limits && c->soft.va) {
		set_env(c, 3, MG_ENV_RECYCLE_VA, c->soft.va);
		c->envp[k++] = c->env_store[3];
	}
	if (with_limits && l && l->rss_soft) {
		set_env(c, 4, MG_ENV_RECYCLE_RSS, l->rss_soft);
		c->envp[k++] = c->env_store[4];
	}
	c->envp[k] = NULL;
}

static int host_start(run_ctx *c, lane *l)
{
	host *h = &l->h;
	mg_err err;
	build_env(c, 1, l);
	int rc = spawn_start(&h->proc, c->path, c->argv, c->envp, c->o->address_space, &err);
	if (rc < 0) {
		l->failed_starts++;
		snprintf(l->gave_up_why, sizeof(l->gave_up_why), "%s", err.msg);
		return rc;
	}
	h->pid = spawn_pid(h->proc);
	if (proc_sampler_open(&h->sampler, h->pid, &err) < 0)
		h->sampler = NULL; /* gone already: the EOF will tell */
	report_shard *s = lane_shard(c, l);
	report_generation *g = report_shard_add_generation(s);
	g->index = (uint32_t)(s->ngens - 1);
	g->pid = h->pid;
	g->start = now(c);
	g->end = report_strdup("running");
	h->gen = s->ngens - 1;
	h->t_start = g->start;
	if (s->ngens == 1)
		l->first_start = g->start;
	host_fire(c, l, EV_SPAWNED);
	return 0;
}

/* The expected VA growth of the next test: the largest of the recent ones. */
static uint64_t expected_growth(const lane *l)
{
	int64_t m = 0;
	for (size_t i = 0; i < l->ngrowth && i < GROWTH_WINDOW; i++)
		if (l->growth[i] > m)
			m = l->growth[i];
	return (uint64_t)m;
}

static void flush_outq(run_ctx *c, lane *l)
{
	host *h = &l->h;
	while (h->outq_len) {
		ssize_t w = write(spawn_cmd_fd(h->proc), h->outq, h->outq_len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return;
			/* EPIPE: the host is gone; its EOF and exit status tell the rest. */
			h->outq_len = 0;
			return;
		}
		if (w > 0)
			h->outq_mid = h->outq[w - 1] != '\n';
		memmove(h->outq, h->outq + w, h->outq_len - (size_t)w);
		h->outq_len -= (size_t)w;
	}
	(void)c;
}

/* Starts hosts and feeds run lines: called for every lane each loop turn. */
static void lane_schedule(run_ctx *c, lane *l)
{
	host *h = &l->h;
	/* Each lane keeps at most its share of what is queued in flight, so a
	 * lane whose host starts first does not drain the queue while the
	 * others start. */
	size_t share = c->qlen / c->nlanes + 1;
	size_t depth = c->o->pipeline < share ? c->o->pipeline : share;
	/* Near a soft limit, one test at a time: a host that does not check its
	 * own memory then stops at the first boundary over the limit. */
	if ((c->soft.va && h->va_last >= c->soft.va / 10 * 9) ||
	    (l->rss_soft && h->rss_last + h->desc_rss >= l->rss_soft / 10 * 9))
		depth = 1;
	/* Pipelining pays for short tests only; behind a slow one, queued tests
	 * would wait while other lanes idle (or strand behind a hang). */
	else if (l->avg_duration > SLOW_TEST && depth > 2)
		depth = 2;

	if (l->gave_up || c->signo || c->deadline_hit)
		return;
	if (h->state == HOST_NONE) {
		if (!c->qlen && !c->rqlen)
			return;
		if (l->failed_starts >= c->o->max_restarts) {
			l->gave_up = 1;
			return;
		}
		host_start(c, l);
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
		size_t t = retry ? c->rq[c->rqhead] : q_front(c);
		rtest *rt = &c->tests[t];
		if (!retry && c->hard.va && h->tests_run && !h->nflight &&
		    h->va_last + expected_growth(l) >= c->hard.va) {
			char why[200], a[32], b[32];
			report_format_size(a, sizeof(a), h->va_last);
			report_format_size(b, sizeof(b), expected_growth(l));
			snprintf(why, sizeof(why),
			         "va %s + expected growth %s would reach the kill limit", a, b);
			quit_host(c, l, "recycle", why);
			break;
		}
		if (retry)
			rq_pop(c);
		else
			q_pop(c);
		retry = 0;
		size_t need = rt->len * 2 + 8;
		if (h->outq_len + need > h->outq_cap) {
			h->outq_cap = 2 * (h->outq_len + need);
			h->outq = xrealloc(h->outq, h->outq_cap);
		}
		memcpy(h->outq + h->outq_len, "run ", 4);
		h->outq_len += 4;
		h->outq_len += mg_proto_escape(h->outq + h->outq_len, h->outq_cap - h->outq_len,
		                               rt->name, rt->len);
		h->outq[h->outq_len++] = '\n';
		h->flight[(h->fhead + h->nflight++) % c->o->pipeline] = t;
		fed++;
	}
	if (fed)
		host_fire(c, l, EV_FED);
	if ((h->state == HOST_READY) && !h->nflight) {
		if (!c->qlen && !c->rqlen)
			quit_host(c, l, "quit", "no tests left");
		else if (h->alone)
			quit_host(c, l, "recycle", "its retry ran alone");
		else if (c->rqlen && !c->qlen)
			quit_host(c, l, "recycle", "a retry runs alone in a fresh host");
		else if (h->soft_hit && h->tests_run)
			quit_host(c, l, "recycle", "over a soft limit between tests");
	}
	flush_outq(c, l);
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
static unsigned check_limits(const run_ctx *c, const limits *lim, uint64_t rss_limit, uint64_t va,
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

/* A result line: the head test is done. */
static void host_result(run_ctx *c, lane *l, const mg_msg *m)
{
	host *h = &l->h;
	size_t t = flight_at(h, 0, c->o->pipeline);
	test_state st = m->kind == MG_MSG_PASS   ? TEST_PASS
	                : m->kind == MG_MSG_FAIL ? TEST_FAIL
	                                         : TEST_SKIP;
	int64_t dva = (int64_t)m->va - (int64_t)h->va_before;
	int64_t drss = (int64_t)m->rss - (int64_t)h->rss_last;
	h->va_before = m->va;
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
	uint64_t tree_rss = c->driver == DRIVER_NATIVE          ? m->rss + h->desc_rss
	                    : m->rss > h->own_rss + h->desc_rss ? m->rss
	                                                        : h->own_rss + h->desc_rss;
	unsigned hard = check_limits(c, &c->hard, l->rss_hard, m->va, tree_rss) &
	                ~(unsigned)LIMIT_CGROUP; /* shared: judged once per sample pass */
	/* A reservation burst can come and go between samples; VmPeak keeps it.
	 * Read it (6-17 us) after tests of 1 ms or more, where it costs under 2%
	 * and where such a burst has time to hide; the host has already started
	 * its next test, so a peak from that one is blamed here: its retry alone
	 * clears a wrong blame. */
	if (!hard && m->usec >= 1000 && c->driver == DRIVER_NATIVE) {
		proc_status ps;
		if (proc_read_status(&ps, h->pid, NULL) == 0 && ps.vm_peak > h->vm_peak_seen) {
			h->vm_peak_seen = ps.vm_peak;
			if (ps.vm_peak > h->peak_va)
				h->peak_va = ps.vm_peak;
			if (c->hard.va && ps.vm_peak >= c->hard.va) {
				char why[200], a[32], b[32];
				report_format_size(a, sizeof(a), ps.vm_peak);
				report_format_size(b, sizeof(b), c->hard.va);
				snprintf(why, sizeof(why), "peak va %s >= kill %s", a, b);
				breach(c, l, t, why, (double)m->usec / 1e6);
				host_kill(c, l, "kill", why);
				return;
			}
		}
	}
	if (hard) {
		char why[200];
		limit_why(why, sizeof(why), hard, "kill", m->va, tree_rss, c->cg_usage, &c->hard,
		          l->rss_hard);
		breach(c, l, t, why, (double)m->usec / 1e6);
		requeue_flight(c, l);
		host_kill(c, l, "kill", why);
		return;
	}
	/* a test that broke the hard limit is retried, not a growth to expect */
	l->growth[l->ngrowth++ % GROWTH_WINDOW] = dva;
	l->avg_duration = 0.75 * l->avg_duration + 0.25 * ((double)m->usec / 1e6);
	test_finish(c, l, t, st, m->text, m->text_len, (double)m->usec / 1e6, m->va, m->rss, dva,
	            drss);
	if (!h->nflight)
		host_fire(c, l, EV_DRAINED);
	if (h->state == HOST_QUITTING)
		return;
	unsigned soft = check_limits(c, &c->soft, l->rss_soft, m->va, tree_rss);
	char why[200];
	if (soft)
		limit_why(why, sizeof(why), soft, "recycle", m->va, tree_rss, c->cg_usage, &c->soft,
		          l->rss_soft);
	else /* a process of the other arch, as last sampled */
		soft = other_arch_va(c, h, c->va_soft, "recycle", why, sizeof(why));
	if (soft) {
		if (can_recycle(c)) {
			quit_host(c, l, "recycle", why);
			return;
		}
		if (!h->warning[0]) {
			snprintf(h->warning, sizeof(h->warning),
			         "%s (the %s driver does not recycle)", why,
			         driver_name(c->driver));
			host_gen(c, l)->warning = report_strdup(h->warning);
			progress_event(c->prog, l->index, host_gen(c, l)->index, h->pid, "warning",
			               h->tests_run, h->warning);
		}
	}
	if (!can_recycle(c))
		return;
	/* Fragmentation: VA can look fine while no large block fits any more.
	 * Only a 32-bit space fragments, and only past half of it: no maps read
	 * before then. */
	uint64_t gap_limit = c->soft.gap > c->hard.gap ? c->soft.gap : c->hard.gap;
	uint64_t gap;
	if (gap_limit && c->arch == MG_ARCH_X86 && m->va >= va_ceiling(c) / 2 &&
	    maps_largest_gap(&gap, va_pid(c, h), limits_arch_ceiling(c->arch), NULL) == 0 &&
	    gap < gap_limit) {
		char why[200], a[32], b[32];
		report_format_size(a, sizeof(a), gap);
		report_format_size(b, sizeof(b), gap_limit);
		snprintf(why, sizeof(why), "gap %s < recycle %s (largest free block)", a, b);
		quit_host(c, l, "recycle", why);
	}
}

static void host_line(run_ctx *c, lane *l, char *line, size_t len)
{
	host *h = &l->h;
	mg_msg m;
	char why[200];

	if (mg_proto_parse(&m, line, len) < 0) {
		snprintf(why, sizeof(why), "not a protocol line: '%.60s'", line);
		for (char *p = why; *p; p++)
			if ((unsigned char)*p < 0x20)
				*p = '?';
		protocol_error(c, l, why);
		return;
	}
	switch (m.kind) {
	case MG_MSG_HELLO:
		if (h->state != HOST_STARTING)
			break;
		h->va_before = h->va_last = m.va;
		h->rss_last = m.rss;
		h->peak_va = m.va;
		h->peak_rss = m.rss;
		host_fire(c, l, EV_HELLO);
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
				protocol_error(c, l, why);
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
		capture(c, &c->tests[flight_at(h, 0, c->o->pipeline)], m.text, m.text_len);
		return;
	case MG_MSG_PASS:
	case MG_MSG_FAIL:
	case MG_MSG_SKIP:
		if (!h->nflight || !h->head_started)
			break;
		host_result(c, l, &m);
		return;
	case MG_MSG_RECYCLE:
		if (h->state != HOST_READY && h->state != HOST_RUNNING && h->state != HOST_QUITTING)
			break;
		if (h->head_started)
			break;
		{
			/* the host checked the same limits we passed it: say which */
			unsigned bits = check_limits(c, &c->soft, l->rss_soft, m.va, m.rss);
			if (bits)
				limit_why(h->why, sizeof(h->why), bits, "recycle", m.va, m.rss,
				          c->cg_usage, &c->soft, l->rss_soft);
			else
				snprintf(h->why, sizeof(h->why),
				         "host crossed its soft limit (va %llu, rss %llu)",
				         (unsigned long long)m.va, (unsigned long long)m.rss);
		}
		requeue_flight(c, l);
		host_fire(c, l, EV_RECYCLE);
		/* It waits for quit, so its memory is still there to be read. */
		if (!h->end[0]) {
			char why2[sizeof(h->why)];
			memcpy(why2, h->why, sizeof(why2));
			quit_host(c, l, "recycle", why2);
		}
		flush_outq(c, l);
		return;
	case MG_MSG_BYE:
		if (h->state != HOST_QUITTING || h->head_started)
			break;
		if (m.va > h->peak_va)
			h->peak_va = m.va;
		if (m.rss > h->peak_rss)
			h->peak_rss = m.rss;
		requeue_flight(c, l);
		host_end_record(c, l, h->end[0] ? h->end : "quit", h->why);
		if (!strcmp(h->end, "recycle")) {
			lane_shard(c, l)->recycles++;
			progress_event(c->prog, l->index, host_gen(c, l)->index, h->pid, "recycle",
			               h->tests_run, h->why);
		}
		host_fire(c, l, EV_BYE);
		host_detach(c, l);
		return;
	default:
		break;
	}
	snprintf(why, sizeof(why), "unexpected '%.40s' in state %s", line,
	         lane_state_name(h->state));
	protocol_error(c, l, why);
}

/* Reads the reply pipe; returns after EOF handling or EAGAIN. */
static void host_read_replies(run_ctx *c, lane *l)
{
	host *h = &l->h;
	char buf[65536];
	for (;;) {
		ssize_t n = read(spawn_reply_fd(h->proc), buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			spawn_close_reply(h->proc);
			host_fire(c, l, EV_EOF);
			return;
		}
		h->in = xrealloc(h->in, h->in_len + (size_t)n);
		memcpy(h->in + h->in_len, buf, (size_t)n);
		h->in_len += (size_t)n;
		size_t off = 0;
		lane_shard(c, l); /* keep the shard pointer fresh */
		while (h->state != HOST_NONE && h->state != HOST_DYING) {
			char *nl = memchr(h->in + off, '\n', h->in_len - off);
			if (!nl)
				break;
			size_t len = (size_t)(nl - (h->in + off));
			*nl = 0;
			host_line(c, l, h->in + off, len);
			off += len + 1;
		}
		if (h->state == HOST_NONE || h->state == HOST_DYING)
			return;
		memmove(h->in, h->in + off, h->in_len - off);
		h->in_len -= off;
		if (h->in_len >= MG_PROTO_LINE_MAX) {
			protocol_error(c, l, "line longer than the protocol allows");
			return;
		}
	}
}

static void host_read_output(run_ctx *c, lane *l, int err_stream)
{
	host *h = &l->h;
	char buf[65536];
	for (;;) {
		int fd = err_stream ? spawn_err_fd(h->proc) : spawn_out_fd(h->proc);
		if (fd < 0)
			return;
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return;
		if (n == 0) {
			if (err_stream)
				spawn_close_err(h->proc);
			else
				spawn_close_out(h->proc);
			return;
		}
		if (h->nflight)
			capture(c, &c->tests[flight_at(h, 0, c->o->pipeline)], buf, (size_t)n);
	}
}

static const char *signal_name(int sig)
{
	switch (sig) {
	case SIGSEGV:
		return "SIGSEGV";
	case SIGABRT:
		return "SIGABRT";
	case SIGBUS:
		return "SIGBUS";
	case SIGKILL:
		return "SIGKILL";
	case SIGFPE:
		return "SIGFPE";
	case SIGILL:
		return "SIGILL";
	case SIGTERM:
		return "SIGTERM";
	default:
		return "signal";
	}
}

/* The exit status of a host that closed its pipe without bye. */
static void host_exited(run_ctx *c, lane *l, int status)
{
	host *h = &l->h;
	char what[128];
	if (WIFSIGNALED(status))
		snprintf(what, sizeof(what), "killed by signal %d (%s)", WTERMSIG(status),
		         signal_name(WTERMSIG(status)));
	else
		snprintf(what, sizeof(what), "exited with status %d", WEXITSTATUS(status));

	int near =
	    (c->soft.va && h->va_last >= c->soft.va) || (l->rss_soft && h->rss_last >= l->rss_soft);
	const char *end = "crash";
	char why[300];
	if (h->nflight && h->head_started) {
		size_t t = flight_at(h, 0, c->o->pipeline);
		double dur = now(c) - h->head_t0;
		flight_pop(h, c->o->pipeline, now(c));
		if (near) {
			char a[32];
			report_format_size(a, sizeof(a), h->va_last);
			snprintf(why, sizeof(why), "host %s near its limit (va %s): out of memory",
			         what, a);
			breach(c, l, t, why, dur);
			end = "kill";
		} else {
			snprintf(why, sizeof(why), "host %s during the test", what);
			test_finishf(c, l, t, TEST_CRASH, dur, "%s", why);
		}
	} else {
		snprintf(why, sizeof(why), "host %s %s", what,
		         h->tests_run ? "between tests" : "before its first test");
		if (!h->tests_run) {
			l->failed_starts++;
			snprintf(l->gave_up_why, sizeof(l->gave_up_why), "%s", why);
		}
		end = "exit";
	}
	requeue_flight(c, l);
	host_end_record(c, l, end, why);
	if (!strcmp(end, "kill"))
		lane_shard(c, l)->kills++;
	progress_event(c->prog, l->index, host_gen(c, l)->index, h->pid, end, h->tests_run, why);
	host_fire(c, l, EV_EXITED);
	host_detach(c, l);
}

static void account_usage(run_ctx *c, size_t lane_idx, const struct rusage *ru)
{
	lane *l = &c->lanes[lane_idx];
	l->user += (double)ru->ru_utime.tv_sec + (double)ru->ru_utime.tv_usec / 1e6;
	l->sys += (double)ru->ru_stime.tv_sec + (double)ru->ru_stime.tv_usec / 1e6;
}

/* SIGCHLD: reap what can be reaped, on specific pids only. */
static void reap_children(run_ctx *c)
{
	int st;
	struct rusage ru;
	for (unsigned i = 0; i < c->nlanes; i++) {
		lane *l = &c->lanes[i];
		if (l->h.state == HOST_DYING && spawn_wait(l->h.proc, 1, &st, &ru) == 1) {
			account_usage(c, i, &ru);
			host_exited(c, l, st);
		}
	}
	for (size_t i = 0; i < c->nreap;) {
		if (spawn_wait(c->reap[i].proc, 1, &st, &ru) == 1) {
			account_usage(c, c->reap[i].lane, &ru);
			spawn_free(c->reap[i].proc);
			c->reap[i] = c->reap[--c->nreap];
		} else {
			i++;
		}
	}
}

/* The pids of every host we know, for telling strays apart. */
static int is_host_pid(const run_ctx *c, pid_t pid)
{
	for (unsigned i = 0; i < c->nlanes; i++)
		if (c->lanes[i].h.state != HOST_NONE && c->lanes[i].h.pid == pid)
			return 1;
	for (size_t i = 0; i < c->nreap; i++)
		if (spawn_pid(c->reap[i].proc) == pid)
			return 1;
	return 0;
}

/*
 * On SIGCHLD: a host can exit while something it forked (without exec)
 * still holds its reply pipe, so no EOF comes: reap live hosts too. And as
 * a subreaper we adopt the orphans of hosts' children: reap those strays
 * (they are not hosts) so zombies do not pile up. O(hosts + children).
 */
static void reap_live(run_ctx *c)
{
	int st;
	struct rusage ru;
	for (unsigned i = 0; i < c->nlanes; i++) {
		lane *l = &c->lanes[i];
		if (l->h.state == HOST_NONE || l->h.state == HOST_DYING ||
		    spawn_wait(l->h.proc, 1, &st, &ru) != 1)
			continue;
		account_usage(c, i, &ru);
		/* what it wrote before it died still counts */
		if (spawn_reply_fd(l->h.proc) >= 0)
			host_read_replies(c, l);
		if (l->h.state == HOST_NONE)
			continue;
		if (l->h.state != HOST_DYING) {
			spawn_close_reply(l->h.proc);
			host_fire(c, l, EV_EOF);
		}
		host_exited(c, l, st);
	}
	char path[64], buf[4096];
	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	for (char *p = buf, *end; *p; p = end) {
		long pid = strtol(p, &end, 10);
		if (end == p)
			break;
		if (pid > 0 && !is_host_pid(c, (pid_t)pid))
			waitpid((pid_t)pid, &st, WNOHANG);
	}
}

/* ---- the guard: sampling ---- */

/* Forgets descendant k (it left the tree or is gone): the last takes its place. */
static void kid_drop(host *h, size_t k)
{
	proc_sampler_free(h->kid[k]);
	h->nkids--;
	h->kid[k] = h->kid[h->nkids];
	h->kid_pid[k] = h->kid_pid[h->nkids];
	h->kid_arch[k] = h->kid_arch[h->nkids];
	h->kid_text[k] = h->kid_text[h->nkids];
}

/*
 * Samples the host's descendants. Their statm fds stay open from one scan to
 * the next (host.kids), so a steady tree costs a children-file read and one
 * pread per process: files are opened or closed only when the tree changes.
 * A process's arch is read from its executable when it appears and again
 * when its code size changes (it exec'd: a shell becoming a 32-bit program).
 */
static void sample_tree(const run_ctx *c, lane *l, double t)
{
	host *h = &l->h;
	pid_t kids[MAX_DESCENDANTS];
	h->tree_at = t;
	size_t n = proc_descendants(h->pid, kids, MAX_DESCENDANTS);
	if (n > MAX_DESCENDANTS)
		n = MAX_DESCENDANTS;
	/* drop the samplers of processes that left the tree */
	for (size_t k = 0; k < h->nkids;) {
		size_t i = 0;
		while (i < n && kids[i] != h->kid_pid[k])
			i++;
		if (i < n)
			k++;
		else
			kid_drop(h, k);
	}
	/* open the new ones */
	for (size_t i = 0; i < n && h->nkids < MAX_DESCENDANTS; i++) {
		size_t k = 0;
		while (k < h->nkids && h->kid_pid[k] != kids[i])
			k++;
		if (k < h->nkids || proc_sampler_open(&h->kid[h->nkids], kids[i], NULL) < 0)
			continue;
		h->kid_arch[h->nkids] = MG_ARCH_UNKNOWN;
		h->kid_text[h->nkids] = 0;
		h->kid_pid[h->nkids++] = kids[i];
	}
	h->desc_rss = 0;
	h->desc_va_max = 0;
	h->desc_va_pid = 0;
	h->desc_va_same = 0;
	h->desc_va_other = 0;
	h->desc_va_other_pid = 0;
	for (size_t k = 0; k < h->nkids; k++) {
		uint64_t va, rss;
		if (proc_sampler_read(h->kid[k], &va, &rss) < 0) {
			/* gone (its pid may come back as another process: reopen then) */
			kid_drop(h, k--);
			continue;
		}
		uint64_t text = proc_sampler_text(h->kid[k]);
		if (text != h->kid_text[k]) {
			h->kid_text[k] = text;
			if (elf_arch_of_pid(&h->kid_arch[k], h->kid_pid[k], NULL) < 0)
				h->kid_arch[k] = MG_ARCH_UNKNOWN;
		}
		h->desc_rss += rss;
		if (va > h->desc_va_max) {
			h->desc_va_max = va;
			h->desc_va_pid = h->kid_pid[k];
		}
		if (!h->kid_arch[k] || h->kid_arch[k] == c->arch) {
			if (va > h->desc_va_same)
				h->desc_va_same = va;
		} else if (va > h->desc_va_other) {
			h->desc_va_other = va;
			h->desc_va_other_pid = h->kid_pid[k];
		}
	}
}

/*
 * Kills a host over a hard limit: its started test is retried alone (or is
 * memory-limit), the rest go back to the queue. A fresh host already over
 * its own limit counts as a failed start, so a lane cannot spin; a shared
 * cgroup over its limit (own = 0) is not the fresh host's fault.
 */
static void kill_over_limit(run_ctx *c, lane *l, const char *why, double t, int own)
{
	host *h = &l->h;
	if (h->nflight && h->head_started) {
		size_t tt = flight_at(h, 0, c->o->pipeline);
		double dur = t - h->head_t0;
		flight_pop(h, c->o->pipeline, now(c));
		breach(c, l, tt, why, dur);
	} else if (!h->tests_run && own) {
		l->failed_starts++;
		snprintf(l->gave_up_why, sizeof(l->gave_up_why),
		         "a fresh host is already over the kill limit (%s)", why);
	}
	requeue_flight(c, l);
	host_kill(c, l, "kill", why);
}

static void sample_all(run_ctx *c)
{
	double t = now(c);
	double next = c->o->interval * 2;
	lane *victim = NULL;
	uint64_t victim_rss = 0;
	if (c->has_cgroup) {
		cgroup_usage u;
		if (cgroup_read(&c->cg, &u, NULL) == 0)
			c->cg_usage = u.usage;
	}
	for (unsigned i = 0; i < c->nlanes; i++) {
		lane *l = &c->lanes[i];
		host *h = &l->h;
		uint64_t va, rss;
		if (h->state == HOST_NONE || h->state == HOST_DYING || !h->sampler)
			continue;
		if (proc_sampler_read(h->sampler, &va, &rss) < 0)
			continue; /* gone: its EOF and exit status will say how */
		if (t - h->tree_at >= c->tree_interval)
			sample_tree(c, l, t);
		if (c->driver != DRIVER_NATIVE) {
			/* a shim is memguard's own process (an ASan build of it reserves
			 * terabytes): the memory under test is its program's tree */
			va = 0;
			rss = 0;
		}
		/* VA limits are per process (and arch): the largest in the tree
		 * is the one; RSS limits are for the tree's sum */
		uint64_t va_tree = va > h->desc_va_max ? va : h->desc_va_max;
		uint64_t va_same = va > h->desc_va_same ? va : h->desc_va_same;
		uint64_t rss_tree = rss + h->desc_rss;
		uint64_t prev = h->va_last;
		h->va_last = va_tree;
		h->rss_last = rss;
		h->own_rss = rss;
		if (va_tree > h->peak_va)
			h->peak_va = va_tree;
		if (rss_tree > h->peak_rss)
			h->peak_rss = rss_tree;
		timeline_add(&l->tl, t, va_tree, rss_tree, (uint32_t)host_gen(c, l)->index);
		progress_sample(c->prog, l->index, va_tree, h->peak_va);

		/* the cgroup is shared by all lanes: handled once, below */
		unsigned hard = check_limits(c, &c->hard, l->rss_hard, va_same, rss_tree) &
		                ~(unsigned)LIMIT_CGROUP;
		char why[200];
		if (hard || other_arch_va(c, h, c->va_hard, "kill", why, sizeof(why))) {
			if (hard)
				limit_why(why, sizeof(why), hard, "kill", va_same, rss_tree,
				          c->cg_usage, &c->hard, l->rss_hard);
			kill_over_limit(c, l, why, t, 1);
			continue;
		}
		if (!victim || rss_tree > victim_rss) {
			victim = l;
			victim_rss = rss_tree;
		}
		/* Adaptive interval: sample faster as the kill limit comes near. */
		if (c->hard.va && va_tree > prev) {
			double rate =
			    (double)(va_tree - prev) / (c->interval > 0 ? c->interval : 0.005);
			double ttl = (double)(c->hard.va - va_tree) / rate;
			if (ttl / 8 < next)
				next = ttl / 8;
		}
		if (c->hard.va && va_tree >= c->hard.va / 10 * 9 && c->o->interval / 4 < next)
			next = c->o->interval / 4;
		/* Soft limits act at test boundaries (the result handler); here a
		 * crossing only stops feeding, so no further test starts in a host
		 * that is already over. */
		h->soft_hit = can_recycle(c) &&
		              (check_limits(c, &c->soft, l->rss_soft, va_same, rss_tree) != 0 ||
		               other_arch_va(c, h, c->va_soft, "recycle", why, sizeof(why)));
	}
	/* Over the cgroup's hard limit: end the largest tree only, then give
	 * the kernel a second to tear it down before judging again. */
	if (c->has_cgroup && c->hard.cgroup && c->cg_usage >= c->hard.cgroup && victim &&
	    t >= c->cg_hold_until) {
		char why[200];
		limit_why(why, sizeof(why), LIMIT_CGROUP, "kill", 0, 0, c->cg_usage, &c->hard, 0);
		kill_over_limit(c, victim, why, t, 0);
		c->cg_hold_until = t + 1.0;
	}
	if (next < 0.0005)
		next = 0.0005;
	c->interval = next;
	c->next_sample = now(c) + next;
}

/* ---- deadlines ---- */

static void check_deadlines(run_ctx *c)
{
	double t = now(c);
	for (unsigned i = 0; i < c->nlanes; i++) {
		lane *l = &c->lanes[i];
		host *h = &l->h;
		char why[200];
		switch (h->state) {
		case HOST_STARTING:
			if (t - h->since > START_DEADLINE) {
				snprintf(why, sizeof(why), "no greeting within %.0fs",
				         START_DEADLINE);
				l->failed_starts++;
				snprintf(l->gave_up_why, sizeof(l->gave_up_why), "%s", why);
				requeue_flight(c, l);
				host_kill(c, l, "error", why);
			}
			break;
		case HOST_RUNNING:
		case HOST_QUITTING:
			if (h->nflight && h->head_started && c->o->timeout > 0 &&
			    t - h->head_t0 > c->o->timeout) {
				size_t tt = flight_at(h, 0, c->o->pipeline);
				flight_pop(h, c->o->pipeline, now(c));
				snprintf(why, sizeof(why), "no result after %.3gs", c->o->timeout);
				test_finishf(c, l, tt, TEST_TIMEOUT, t - h->head_t0, "%s", why);
				requeue_flight(c, l);
				host_kill(c, l, "timeout", why);
			} else if (h->nflight && !h->head_started && c->o->timeout > 0 &&
			           t - h->head_since > c->o->timeout) {
				/* silent between tests (a hung setup): the next one never starts */
				size_t tt = flight_at(h, 0, c->o->pipeline);
				flight_pop(h, c->o->pipeline, now(c));
				snprintf(why, sizeof(why), "did not start within %.3gs",
				         c->o->timeout);
				test_finishf(c, l, tt, TEST_TIMEOUT, 0, "%s", why);
				requeue_flight(c, l);
				host_kill(c, l, "timeout", why);
			} else if (h->state == HOST_QUITTING && !h->nflight &&
			           t - h->since > QUIT_DEADLINE) {
				snprintf(why, sizeof(why), "no goodbye within %.0fs of quit",
				         QUIT_DEADLINE);
				host_kill(c, l, h->end[0] ? h->end : "quit", why);
			}
			break;
		case HOST_DYING:
			if (t - h->since > DYING_DEADLINE) {
				int st;
				struct rusage ru;
				spawn_signal(h->proc, SIGKILL);
				if (spawn_wait(h->proc, 0, &st, &ru) == 1) {
					account_usage(c, i, &ru);
					host_exited(c, l, st);
				}
			}
			break;
		default:
			break;
		}
	}
	for (size_t i = 0; i < c->nreap; i++)
		if (t - c->reap[i].since > QUIT_DEADLINE)
			spawn_signal(c->reap[i].proc, SIGKILL);
	if (c->o->deadline > 0 && t > c->o->deadline && !c->deadline_hit)
		c->deadline_hit = 1;
}

static double next_wakeup(const run_ctx *c)
{
	double t = now(c), w = c->next_sample;
	for (unsigned i = 0; i < c->nlanes; i++) {
		const host *h = &c->lanes[i].h;
		if (h->state == HOST_STARTING && h->since + START_DEADLINE < w)
			w = h->since + START_DEADLINE;
		if (h->state != HOST_DYING && h->nflight && c->o->timeout > 0) {
			double from = h->head_started ? h->head_t0 : h->head_since;
			if (from + c->o->timeout < w)
				w = from + c->o->timeout;
		}
		if (h->state == HOST_DYING && h->since + DYING_DEADLINE < w)
			w = h->since + DYING_DEADLINE;
	}
	if (c->nreap && t + 1.0 < w)
		w = t + 1.0;
	return w > t ? w - t : 0;
}

static int lanes_busy(const run_ctx *c)
{
	for (unsigned i = 0; i < c->nlanes; i++)
		if (c->lanes[i].h.state != HOST_NONE)
			return 1;
	return 0;
}

static int all_gave_up(const run_ctx *c)
{
	for (unsigned i = 0; i < c->nlanes; i++)
		if (!c->lanes[i].gave_up)
			return 0;
	return 1;
}

static void handle_signals(run_ctx *c)
{
	unsigned char b[64];
	ssize_t n;
	int child = 0;
	while ((n = read(c->sigfd[0], b, sizeof(b))) > 0)
		for (ssize_t i = 0; i < n; i++) {
			if (b[i] == SIGINT || b[i] == SIGTERM)
				c->signo = b[i];
			child |= b[i] == SIGCHLD;
		}
	reap_children(c);
	if (child)
		reap_live(c);
}

/* Ends every host now: TERM to each group, KILL after a grace period. */
static void stop_all(run_ctx *c, const char *end, const char *why)
{
	for (unsigned i = 0; i < c->nlanes; i++) {
		lane *l = &c->lanes[i];
		if (l->h.state == HOST_NONE)
			continue;
		spawn_signal(l->h.proc, SIGTERM);
		for (size_t k = 0; k < l->h.nflight; k++) {
			size_t t = flight_at(&l->h, k, c->o->pipeline);
			if (c->tests[t].done)
				continue;
			if (k == 0 && l->h.head_started) /* it did run: say how it ended */
				test_finishf(c, l, t, c->signo ? TEST_ERROR : TEST_TIMEOUT,
				             now(c) - l->h.head_t0, "%s during the test", why);
			else
				test_finishf(c, l, t, TEST_NOTRUN, 0, "%s", why);
		}
		l->h.nflight = 0;
		host_end_record(c, l, end, why);
		host_fire(c, l, EV_KILL);
		host_detach(c, l);
	}
	double until = now(c) + 1.0;
	while (c->nreap && now(c) < until) {
		reap_children(c);
		if (c->nreap) {
			/* SIGCHLD writes to the self-pipe: wake on it, not on a clock */
			struct pollfd pf = {c->sigfd[0], POLLIN, 0};
			if (poll(&pf, 1, (int)((until - now(c)) * 1000) + 1) > 0)
				handle_signals(c);
		}
	}
	for (size_t i = 0; i < c->nreap; i++)
		spawn_signal(c->reap[i].proc, SIGKILL);
	reap_children(c);
}

static void run_loop(run_ctx *c)
{
	struct pollfd *pfd = xrealloc(NULL, (1 + 4 * c->nlanes) * sizeof(*pfd));
	c->next_sample = now(c);
	c->interval = c->o->interval;
	while (!c->signo && !c->deadline_hit) {
		for (unsigned i = 0; i < c->nlanes; i++)
			lane_schedule(c, &c->lanes[i]);
		if (!lanes_busy(c) &&
		    (c->remaining == 0 || (!c->qlen && !c->rqlen) || all_gave_up(c)))
			break;
		size_t n = 0;
		pfd[n++] = (struct pollfd){c->sigfd[0], POLLIN, 0};
		for (unsigned i = 0; i < c->nlanes; i++) {
			host *h = &c->lanes[i].h;
			if (h->state == HOST_NONE)
				continue;
			if (h->state == HOST_DYING) {
				/* drain its output so it is not stuck writing while it dies */
				if (spawn_out_fd(h->proc) >= 0)
					pfd[n++] =
					    (struct pollfd){spawn_out_fd(h->proc), POLLIN, 0};
				if (spawn_err_fd(h->proc) >= 0)
					pfd[n++] =
					    (struct pollfd){spawn_err_fd(h->proc), POLLIN, 0};
				continue;
			}
			int fds[4] = {spawn_out_fd(h->proc), spawn_err_fd(h->proc),
			              spawn_reply_fd(h->proc), spawn_cmd_fd(h->proc)};
			for (int k = 0; k < 3; k++)
				if (fds[k] >= 0)
					pfd[n++] = (struct pollfd){fds[k], POLLIN, 0};
			if (fds[3] >= 0 && h->outq_len)
				pfd[n++] = (struct pollfd){fds[3], POLLOUT, 0};
		}
		int ms = (int)(next_wakeup(c) * 1000 + 0.999);
		int r = poll(pfd, n, ms);
		if (r < 0 && errno != EINTR)
			break;
		if (pfd[0].revents)
			handle_signals(c);
		for (unsigned i = 0; i < c->nlanes; i++) {
			lane *l = &c->lanes[i];
			host *h = &l->h;
			if (h->state == HOST_NONE)
				continue;
			/* A native host flushes a test's output before its result, so
			 * output is read first; a shim announces a test before
			 * passing its output on, so its replies are read first. The
			 * two pipes carry no common order: with many results in one
			 * turn, output can land on a neighbouring test. */
			int replies_first = c->driver != DRIVER_NATIVE && h->state != HOST_DYING &&
			                    spawn_reply_fd(h->proc) >= 0;
			if (replies_first)
				host_read_replies(c, l);
			if (h->state == HOST_NONE)
				continue;
			host_read_output(c, l, 0);
			host_read_output(c, l, 1);
			if (h->state == HOST_DYING)
				continue;
			if (!replies_first && spawn_reply_fd(h->proc) >= 0)
				host_read_replies(c, l);
			if (h->state != HOST_NONE && h->state != HOST_DYING && h->outq_len)
				flush_outq(c, l);
		}
		if (now(c) >= c->next_sample)
			sample_all(c);
		check_deadlines(c);
		reap_children(c);
	}
	free(pfd);
}

/* ---- listing ---- */

typedef struct name_list {
	char **names;
	size_t *lens;
	size_t n, cap;
	char arch[8];
} name_list;

/* Runs one host for "list" and collects the names. Blocking with a deadline. */
static int list_tests(run_ctx *c, name_list *out, mg_err *err)
{
	spawn_proc *p = NULL;
	char *buf = NULL;
	size_t len = 0;
	int rc = MG_ERROR, got_hello = 0;
	double deadline = now_mono() + 60;

	build_env(c, 0, NULL);
	rc = spawn_start(&p, c->path, c->argv, c->envp, c->o->address_space, err);
	if (rc < 0)
		return rc;
	rc = MG_ERROR;
	if (write(spawn_cmd_fd(p), "list\n", 5) != 5) {
		mg_err_set(err, MG_EPROTO, "host '%s' did not take the list command",
		           c->o->host_argv[0]);
		goto done;
	}
	for (;;) {
		struct pollfd pf[4] = {{spawn_reply_fd(p), POLLIN, 0},
		                       {spawn_out_fd(p), POLLIN, 0},
		                       {spawn_err_fd(p), POLLIN, 0},
		                       {c->sigfd[0], POLLIN, 0}}; /* -1 for list: ignored */
		double left = deadline - now_mono();
		if (left <= 0) {
			mg_err_set(err, MG_EPROTO, "host '%s' did not list its tests within 60s",
			           c->o->host_argv[0]);
			goto done;
		}
		if (poll(pf, 4, (int)(left * 1000)) < 0 && errno != EINTR)
			goto done;
		if (pf[3].revents) {
			handle_signals(c);
			if (c->signo) {
				mg_err_set(err, MG_ERROR, "interrupted while listing the tests");
				goto done;
			}
		}
		char tmp[65536];
		for (int k = 1; k < 3; k++) {
			/* Standalone output while listing goes to our stderr. */
			ssize_t n = pf[k].fd >= 0 ? read(pf[k].fd, tmp, sizeof(tmp)) : -1;
			if (n > 0) {
				ssize_t w = write(2, tmp, (size_t)n);
				(void)w;
			} else if (n == 0) {
				if (k == 1)
					spawn_close_out(p);
				else
					spawn_close_err(p);
			}
		}
		ssize_t n = read(spawn_reply_fd(p), tmp, sizeof(tmp));
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0) {
			int st;
			spawn_wait(p, 0, &st, NULL);
			if (!got_hello)
				mg_err_set(err, MG_EPROTO,
				           "'%s' is not a memguard host: it %s without a greeting "
				           "(link it with the host library, or use --driver)",
				           c->o->host_argv[0],
				           WIFSIGNALED(st) ? "was killed by a signal" : "exited");
			else
				mg_err_set(err, MG_EPROTO, "host '%s' ended before its list ended",
				           c->o->host_argv[0]);
			goto done;
		}
		buf = xrealloc(buf, len + (size_t)n);
		memcpy(buf + len, tmp, (size_t)n);
		len += (size_t)n;
		size_t off = 0;
		char *nl;
		while ((nl = memchr(buf + off, '\n', len - off))) {
			mg_msg m;
			size_t ll = (size_t)(nl - (buf + off));
			*nl = 0;
			if (mg_proto_parse(&m, buf + off, ll) < 0 ||
			    (!got_hello && m.kind != MG_MSG_HELLO) ||
			    (got_hello && m.kind != MG_MSG_TEST && m.kind != MG_MSG_END)) {
				mg_err_set(err, MG_EPROTO,
				           "host '%s' broke the protocol while listing: '%.60s'",
				           c->o->host_argv[0], buf + off);
				goto done;
			}
			if (m.kind == MG_MSG_HELLO) {
				got_hello = 1;
				snprintf(out->arch, sizeof(out->arch), "%s", m.arch);
			} else if (m.kind == MG_MSG_TEST) {
				if (out->n == out->cap) {
					out->cap = out->cap ? 2 * out->cap : 256;
					out->names =
					    xrealloc(out->names, out->cap * sizeof(char *));
					out->lens = xrealloc(out->lens, out->cap * sizeof(size_t));
				}
				out->names[out->n] = report_strndup(m.text, m.text_len);
				out->lens[out->n++] = m.text_len;
			} else {
				if (m.count != out->n) {
					mg_err_set(err, MG_EPROTO,
					           "host '%s' listed %zu tests but said %llu",
					           c->o->host_argv[0], out->n,
					           (unsigned long long)m.count);
					goto done;
				}
				if (write(spawn_cmd_fd(p), "quit\n", 5) < 0) {
					/* it may have gone: the wait below reaps it */
				}
				rc = 0;
				goto done;
			}
			off += ll + 1;
		}
		memmove(buf, buf + off, len - off);
		len -= off;
		if (len >= MG_PROTO_LINE_MAX) {
			mg_err_set(err, MG_EPROTO, "host '%s' sent a line over the protocol limit",
			           c->o->host_argv[0]);
			goto done;
		}
	}
done:
	if (p && rc == 0) {
		/* It says bye and exits: wait for its reply pipe to close (up to
		 * a second), then reap it; spawn_free kills what lingers. */
		spawn_close_cmd(p);
		char tmp[4096];
		struct pollfd pf = {spawn_reply_fd(p), POLLIN, 0};
		while (poll(&pf, 1, 1000) > 0 && read(pf.fd, tmp, sizeof(tmp)) > 0)
			;
		int st;
		for (int i = 0; i < 1000 && spawn_wait(p, 1, &st, NULL) == 0; i++)
			poll(NULL, 0, 1);
	}
	spawn_free(p);
	free(buf);
	return rc;
}

static void names_free(name_list *nl)
{
	for (size_t i = 0; i < nl->n; i++)
		free(nl->names[i]);
	free(nl->names);
	free(nl->lens);
}

/* ---- setup shared by run and list ---- */

static int prepare(run_ctx *c, run_options *o, mg_err *err)
{
	c->o = o;
	c->t0 = now_mono();
	c->tree_interval = TREE_INTERVAL;
	if (o->host_argc < 1)
		return mg_err_set(err, MG_EINVAL,
		                  "no host command given (memguard run -- HOST ...)");
	int rc = 0;
	/* with --shell the command is a script for sh -c, not a file to find */
	if (!o->shell) {
		rc = spawn_resolve(c->path, sizeof(c->path), o->host_argv[0], err);
		if (rc < 0)
			return rc == MG_EINVAL ? rc : MG_ENOTFOUND;
	}
	c->argv = o->host_argv;
	c->arch = o->arch;
	mg_arch real;
	if (c->arch != MG_ARCH_UNKNOWN && !o->shell && elf_arch(&real, c->path, NULL) == 0 &&
	    real != c->arch)
		fprintf(stderr,
		        "memguard: warning: --arch %s contradicts %s, a %s (%s) program: the "
		        "host's limits are %s's as asked (drop --arch to use %s's)\n",
		        limits_arch_name(c->arch), o->host_argv[0],
		        real == MG_ARCH_X86 ? "32-bit" : "64-bit", limits_arch_name(real),
		        limits_arch_name(c->arch), limits_arch_name(real));
	if (c->arch == MG_ARCH_UNKNOWN && !o->shell) {
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
		c->driver = driver_detect(c->path, note, sizeof(note));
		if (*note && !o->quiet)
			fprintf(stderr, "memguard: %s\n", note);
	} else if (driver_parse(&c->driver, o->driver, err) < 0) {
		return MG_EINVAL;
	}
	if (!o->pipeline) /* gtest runs what is queued as one batch: one start per batch */
		o->pipeline = c->driver == DRIVER_GTEST ? 1024 : 16;
	if (c->driver == DRIVER_EXEC && !o->list_cmd && !o->list_file)
		return mg_err_set(err, MG_EINVAL,
		                  "the exec driver needs --list-cmd CMD or --list-file FILE");
	if ((o->list_cmd || o->list_file) && c->driver != DRIVER_EXEC)
		return mg_err_set(err, MG_EINVAL,
		                  "--list-cmd and --list-file go with --driver exec");
	if (c->driver == DRIVER_NATIVE)
		return 0;

	/* A shim speaks the protocol for the program: this executable again. */
	ssize_t n = readlink("/proc/self/exe", c->path, sizeof(c->path) - 1);
	if (n < 0)
		return mg_err_set(err, MG_ERROR, "cannot find memguard's own executable: %s",
		                  strerror(errno));
	c->path[n] = 0;
	c->shim_argv = xrealloc(NULL, ((size_t)o->host_argc + 10) * sizeof(char *));
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
	c->shim_argv[k++] = "--";
	for (int i = 0; i < o->host_argc; i++)
		c->shim_argv[k++] = o->host_argv[i];
	c->shim_argv[k] = NULL;
	c->argv = c->shim_argv;
	/* The program under test is the shim's child: follow the tree closely. */
	c->tree_interval = 0;
	return 0;
}

static char *basename_dup(const char *p)
{
	const char *s = strrchr(p, '/');
	return report_strdup(s ? s + 1 : p);
}

static char *command_line(char **argv, int argc)
{
	size_t cap = 1;
	for (int i = 0; i < argc; i++)
		cap += strlen(argv[i]) * 4 + 3;
	char *s = xrealloc(NULL, cap), *p = s;
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

static void install_signals(run_ctx *c)
{
	struct sigaction sa;
	/* every lane holds a few pipes and /proc fds: use all the fds allowed */
	struct rlimit nofile;
	if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < nofile.rlim_max) {
		nofile.rlim_cur = nofile.rlim_max;
		setrlimit(RLIMIT_NOFILE, &nofile);
	}
	if (pipe2(c->sigfd, O_CLOEXEC | O_NONBLOCK) < 0) {
		perror("memguard: pipe");
		exit(EXIT_INFRA);
	}
	sig_write_fd = c->sigfd[1];
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	/* Orphans of our hosts come to us, so none outlives the run. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
}

/* Reaps anything reparented to us (grandchildren of dead hosts). */
static void reap_orphans(void)
{
	pid_t kids[256];
	size_t n = proc_descendants(getpid(), kids, 256);
	for (size_t i = 0; i < n && i < 256; i++)
		kill(kids[i], SIGKILL);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

/* Some kernels (no IA32 emulation, some VMs) cannot run 32-bit programs:
 * say what to do instead of only "Exec format error". */
static void explain_exec_failure(const run_ctx *c, const mg_err *err)
{
	if (c->arch == MG_ARCH_X86 && strstr(err->msg, strerror(ENOEXEC)))
		fprintf(stderr,
		        "memguard: this kernel cannot execute 32-bit programs; a 64-bit build "
		        "of the tests run with --address-space 4G fails at the same "
		        "ceiling\n");
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
		return EXIT_USAGE;
	}
	int rc = prepare(&c, &o, &err);
	if (rc == 0) {
		signal(SIGPIPE, SIG_IGN);
		rc = list_tests(&c, &nl, &err);
	}
	int code = 0;
	if (rc < 0) {
		fprintf(stderr, "memguard list: %s\n", err.msg);
		explain_exec_failure(&c, &err);
		code = rc == MG_EINVAL ? EXIT_USAGE : EXIT_INFRA;
	} else {
		for (size_t i = 0; i < nl.n; i++) {
			if (o.filter && fnmatch(o.filter, nl.names[i], 0))
				continue;
			fwrite(nl.names[i], 1, nl.lens[i], stdout);
			fputc('\n', stdout);
		}
	}
	names_free(&nl);
	free(c.envp);
	free(c.shim_argv);
	for (int i = 0; i < 5; i++)
		free(c.env_store[i]);
	options_free(&o);
	return code;
}

/*
 * Settles the limits in force (the user's over the arch defaults) for the
 * host's arch, and the VA limits of the other arch for the processes of a
 * tree that are of it (a 32-bit program under a shell, exec or wrap), judged
 * leniently. The cgroup gives the base for rss% and cgroup%; an
 * --address-space cap is the ceiling of va%. MG_EINVAL when the user's
 * limits contradict each other or the machine.
 */
static int resolve_limits(run_ctx *c, mg_err *err)
{
	limits_spec soft, hard;
	cgroup_usage u = {0, 0, 0};
	mg_err e;
	if (cgroup_find(&c->cg, 0, &e) == 0 && cgroup_read(&c->cg, &u, &e) == 0)
		c->has_cgroup = 1;
	options_limits(c->o, &soft, &hard);
	for (mg_arch a = MG_ARCH_X86; a <= MG_ARCH_X64; a++) {
		uint64_t ceiling = limits_arch_ceiling(a), as = c->o->address_space;
		int capped = as && as < ceiling;
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

static int exit_code_of(const run_ctx *c)
{
	if (c->signo)
		return 128 + c->signo;
	int code = EXIT_PASS;
	for (size_t s = 0; s < c->rep->nshards; s++) {
		const report_shard *sh = &c->rep->shards[s];
		if (sh->counts[TEST_ERROR])
			return EXIT_INFRA;
		if (sh->counts[TEST_FAIL] || sh->counts[TEST_CRASH] || sh->counts[TEST_TIMEOUT] ||
		    sh->counts[TEST_MEMLIMIT] || sh->counts[TEST_NOTRUN])
			code = EXIT_TESTS_FAILED;
	}
	/* a lane that gave up left its tests in error (above) only when no
	 * other lane could run them */
	if (c->deadline_hit)
		return EXIT_INFRA;
	return code;
}

static const name_list *sort_names; /* for the qsort/bsearch comparators */

static int cmp_name(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	size_t li = sort_names->lens[i], lj = sort_names->lens[j];
	int r = memcmp(sort_names->names[i], sort_names->names[j], li < lj ? li : lj);
	return r ? r : (li > lj) - (li < lj);
}

/*
 * Reads FILE (one test name a line) into order: indices into nl, in the
 * file's order, each at most once. A name the host did not list is a usage
 * error naming it. O(n log n).
 */
static int tests_from(size_t **order, size_t *norder, name_list *nl, const char *file, mg_err *err)
{
	FILE *f = fopen(file, "r");
	if (!f)
		return mg_err_set(err, MG_EINVAL, "--tests-from: cannot open '%s': %s", file,
		                  strerror(errno));
	size_t *idx = xrealloc(NULL, (nl->n ? nl->n : 1) * sizeof(size_t));
	char *used = calloc(nl->n ? nl->n : 1, 1);
	for (size_t i = 0; i < nl->n; i++)
		idx[i] = i;
	sort_names = nl;
	qsort(idx, nl->n, sizeof(size_t), cmp_name);
	*order = xrealloc(NULL, (nl->n ? nl->n : 1) * sizeof(size_t));
	*norder = 0;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int rc = 0;
	while ((len = getline(&line, &cap, f)) >= 0) {
		if (len && line[len - 1] == '\n')
			line[--len] = 0;
		if (!len)
			continue;
		/* bsearch by hand: the key is not an index */
		size_t lo = 0, hi = nl->n;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2, m = idx[mid];
			size_t lm = nl->lens[m];
			int r = memcmp(nl->names[m], line, lm < (size_t)len ? lm : (size_t)len);
			r = r ? r : (lm > (size_t)len) - (lm < (size_t)len);
			if (r < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == nl->n || nl->lens[idx[lo]] != (size_t)len ||
		    memcmp(nl->names[idx[lo]], line, (size_t)len)) {
			rc = mg_err_set(err, MG_EINVAL,
			                "--tests-from %s: the host does not list '%s'", file, line);
			break;
		}
		if (!used[idx[lo]]) {
			used[idx[lo]] = 1;
			(*order)[(*norder)++] = idx[lo];
		}
	}
	free(line);
	free(idx);
	free(used);
	fclose(f);
	if (rc < 0) {
		free(*order);
		*order = NULL;
	}
	return rc;
}

int run_main(int argc, char **argv)
{
	run_options o;
	run_ctx c;
	mg_err err;
	name_list nl;
	int code = EXIT_INFRA;

	options_init(&o);
	memset(&c, 0, sizeof(c));
	memset(&nl, 0, sizeof(nl));
	c.sigfd[0] = c.sigfd[1] = -1;
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(options_usage(), stdout);
		return 0;
	}
	if (options_parse(&o, argc, argv, &err) < 0) {
		fprintf(stderr, "memguard run: %s\n", err.msg);
		options_free(&o);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < o.nadapters; i++)
		if (adapters_check(o.adapters[i], &err) < 0) {
			fprintf(stderr, "memguard run: %s\n", err.msg);
			options_free(&o);
			return EXIT_USAGE;
		}
	if (!o.node_index)
		options_node_from_env(&o.node_index, &o.node_total);
	int rc = prepare(&c, &o, &err);
	if (rc < 0) {
		fprintf(stderr, "memguard run: %s\n", err.msg);
		options_free(&o);
		return rc == MG_EINVAL ? EXIT_USAGE : EXIT_INFRA;
	}
	install_signals(&c);

	c.rep = report_new();
	c.rep->start_time = (double)time(NULL);
	c.rep->node_index = o.node_index;
	c.rep->node_total = o.node_total;
	if (ci_commit_identity(c.rep, ".", &err) < 0 && !c.rep->repo_note)
		c.rep->repo_note = report_strdup(err.msg);

	rc = list_tests(&c, &nl, &err);
	if (rc < 0) {
		fprintf(stderr, "memguard run: %s\n", err.msg);
		explain_exec_failure(&c, &err);
		/* CI still gets a report saying the run could not start */
		c.rep->exit_code = c.signo ? 128 + c.signo : EXIT_INFRA;
		c.rep->interrupted = c.signo != 0;
		c.rep->wall = now(&c);
		if (o.report && report_save(c.rep, o.report, &err) < 0)
			fprintf(stderr, "memguard run: %s\n", err.msg);
		goto out;
	}
	if (c.arch == MG_ARCH_UNKNOWN && limits_arch_parse(&c.arch, nl.arch, NULL) < 0)
		c.arch = MG_ARCH_X64;
	rc = resolve_limits(&c, &err);
	if (rc < 0) {
		fprintf(stderr, "memguard run: %s\n", err.msg);
		code = EXIT_USAGE;
		goto out;
	}
	{
		char s[128], h[128];
		limits_format(s, sizeof(s), &c.soft);
		limits_format(h, sizeof(h), &c.hard);
		if (o.address_space) {
			char as[32];
			size_t hl = strlen(h);
			report_format_size(as, sizeof(as), o.address_space);
			snprintf(h + hl, sizeof(h) - hl, " (address space capped at %s)", as);
		}
		c.rep->limits_soft = report_strdup(s);
		c.rep->limits_hard = report_strdup(h);
	}

	/* Plan: the named tests (--tests-from) or all in list order, filtered,
	 * then this node's share (round-robin by position: deterministic for a
	 * list, sizes differ by at most one). */
	size_t *order = NULL, norder = 0;
	if (o.tests_from) {
		rc = tests_from(&order, &norder, &nl, o.tests_from, &err);
		if (rc < 0) {
			fprintf(stderr, "memguard run: %s\n", err.msg);
			code = rc == MG_EINVAL ? EXIT_USAGE : EXIT_INFRA;
			goto out;
		}
	} else {
		order = xrealloc(NULL, (nl.n ? nl.n : 1) * sizeof(size_t));
		for (size_t i = 0; i < nl.n; i++)
			order[norder++] = i;
	}
	c.tests = xrealloc(NULL, (norder ? norder : 1) * sizeof(*c.tests));
	for (size_t j = 0, k = 0; j < norder; j++) {
		size_t i = order[j];
		if (o.filter && fnmatch(o.filter, nl.names[i], 0))
			continue;
		if (k++ % o.node_total != o.node_index - 1)
			continue;
		c.tests[c.ntests++] = (rtest){.name = nl.names[i], .len = nl.lens[i]};
		nl.names[i] = NULL;
	}
	free(order);
	c.q = xrealloc(NULL, (c.ntests ? c.ntests : 1) * sizeof(size_t));
	c.rq = xrealloc(NULL, (c.ntests ? c.ntests : 1) * sizeof(size_t));
	for (size_t i = 0; i < c.ntests; i++)
		q_push_back(&c, i);
	c.remaining = c.ntests;

	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	c.nlanes = o.jobs ? o.jobs : (unsigned)(cpus > 0 ? cpus : 1);
	if (c.ntests && c.nlanes > c.ntests)
		c.nlanes = (unsigned)c.ntests;
	if (!c.nlanes)
		c.nlanes = 1;
	c.lanes = calloc(c.nlanes, sizeof(*c.lanes));
	char *suite = o.suite ? report_strdup(o.suite) : basename_dup(c.path);
	char *cmdline = command_line(o.host_argv, o.host_argc);
	for (unsigned i = 0; i < c.nlanes; i++) {
		lane *l = &c.lanes[i];
		l->index = i;
		l->h.flight = xrealloc(NULL, o.pipeline * sizeof(size_t));
		l->rss_soft = c.soft.rss / c.nlanes;
		l->rss_hard = c.hard.rss / c.nlanes;
		timeline_init(&l->tl, TIMELINE_POINTS);
		report_shard *s = report_add_shard(c.rep);
		l->shard = c.rep->nshards - 1;
		s->node = o.node_index;
		s->start_time = c.rep->start_time;
		s->index = i;
		s->suite = report_strdup(suite);
		s->arch = report_strdup(limits_arch_name(c.arch));
		s->driver = report_strdup(driver_name(c.driver));
		s->command = report_strdup(cmdline);
	}
	free(suite);
	free(cmdline);

	c.prog = progress_new(c.nlanes, c.ntests, o.quiet);
	run_loop(&c);
	if (c.signo || c.deadline_hit) {
		const char *why = c.signo ? "interrupted" : "run deadline reached";
		stop_all(&c, "interrupted", why);
		while (c.qlen || c.rqlen) {
			size_t t = c.rqlen ? rq_pop(&c) : q_pop(&c);
			test_finishf(&c, &c.lanes[0], t, TEST_NOTRUN, 0, "%s", why);
		}
		c.rep->interrupted = 1;
	}
	for (unsigned i = 0; i < c.nlanes; i++)
		if (c.lanes[i].gave_up) {
			fprintf(stderr,
			        "memguard run: lane %u gave up after %u failed host starts: %s\n",
			        i, c.lanes[i].failed_starts, c.lanes[i].gave_up_why);
			while (c.qlen || c.rqlen) {
				size_t t = c.rqlen ? rq_pop(&c) : q_pop(&c);
				test_finishf(&c, &c.lanes[i], t, TEST_ERROR, 0,
				             "host could not start: %s", c.lanes[i].gave_up_why);
			}
		}
	stop_all(&c, "interrupted", "runner ended");
	progress_end(c.prog);

	for (unsigned i = 0; i < c.nlanes; i++) {
		lane *l = &c.lanes[i];
		report_shard *s = lane_shard(&c, l);
		timeline_flush_to(&l->tl, s);
		for (size_t g = 0; g < s->ngens; g++) {
			if (s->gens[g].peak_va > s->peak_va)
				s->peak_va = s->gens[g].peak_va;
			if (s->gens[g].peak_rss > s->peak_rss)
				s->peak_rss = s->gens[g].peak_rss;
		}
		s->wall = l->last_end > l->first_start ? l->last_end - l->first_start : 0;
		s->user = l->user;
		s->sys = l->sys;
	}
	/* A lane whose host started after the others had taken every test ran
	 * nothing: it is not a shard of the run. */
	for (size_t i = c.rep->nshards; i-- > 0 && c.rep->nshards > 1;)
		if (!c.rep->shards[i].ntests)
			report_remove_shard(c.rep, i);
	c.rep->wall = now(&c);
	report_finish(c.rep, 20);
	code = exit_code_of(&c);
	c.rep->exit_code = code;

	if (o.report && report_save(c.rep, o.report, &err) < 0) {
		fprintf(stderr, "memguard run: %s\n", err.msg);
		if (!c.signo)
			code = EXIT_INFRA;
	}
	if (o.nadapters == 0) {
		if (adapters_render(c.rep, "console", &err) < 0)
			fprintf(stderr, "memguard run: %s\n", err.msg);
	}
	for (size_t i = 0; i < o.nadapters; i++)
		if (adapters_render(c.rep, o.adapters[i], &err) < 0) {
			fprintf(stderr, "memguard run: adapter %s: %s\n", o.adapters[i], err.msg);
			if (!c.signo && code == EXIT_PASS)
				code = EXIT_INFRA;
		}
out:
	reap_orphans();
	for (unsigned i = 0; i < c.nlanes; i++) {
		free(c.lanes[i].h.flight);
		timeline_free(&c.lanes[i].tl);
	}
	free(c.lanes);
	for (size_t i = 0; i < c.ntests; i++) {
		free(c.tests[i].name);
		free(c.tests[i].out);
	}
	free(c.tests);
	free(c.q);
	free(c.rq);
	free(c.shim_argv);
	free(c.reap);
	free(c.envp);
	for (int i = 0; i < 5; i++)
		free(c.env_store[i]);
	names_free(&nl);
	progress_free(c.prog);
	report_free(c.rep);
	options_free(&o);
	if (c.signo) {
		/* Leave the way the signal would have had us leave. */
		signal(c.signo, SIG_DFL);
		return 128 + c.signo;
	}
	return code;
}

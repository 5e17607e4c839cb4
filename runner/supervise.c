/*
 * supervise.c - the one poll loop (s6-style): every lane's host pipes,
 * the signal self-pipe and the sampling timer; reaping, deadlines, the guard's
 * samples, stop-all. No thread per host, no sleep, no allocation per sample.
 */
#include "contain.h"
#include "run_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t sig_write_fd = -1;
/* when the first and the latest stop signal came (CLOCK_MONOTONIC, ms; 0:
 * none): a repeat soon after the first is that stop again
 * (supervise_stop_again) */
static _Atomic long long sig_first_ms, sig_last_ms;
_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "a signal handler's atomics must be lock-free");

static void on_signal(int sig)
{
	int saved = errno;
	unsigned char b = (unsigned char)sig;
	if (sig != SIGCHLD) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts); /* async-signal-safe */
		long long ms = (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000, none = 0;
		atomic_compare_exchange_strong(&sig_first_ms, &none, ms);
		atomic_store(&sig_last_ms, ms);
	}
	if (sig_write_fd >= 0) {
		ssize_t w = write(sig_write_fd, &b, 1);
		(void)w;
	}
	errno = saved;
}

/* SIGCHLD: reap what can be reaped, on specific pids only. */
static void supervise_reap(run_ctx *c)
{
	mg_exit_end st;
	struct rusage ru;
	for (unsigned i = 0; i < c->nlanes; i++) {
		lane *l = &c->lanes[i];
		if (l->h.state == HOST_DYING && spawn_wait(l->h.proc, 1, &st, &ru) == 1) {
			record_usage(c, i, &ru);
			lane_exited(c, l, st);
		}
	}
	for (size_t i = 0; i < c->nreap;) {
		if (spawn_wait(c->reap[i].proc, 1, NULL, &ru) == 1) {
			record_usage(c, c->reap[i].lane, &ru);
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
		if (spawn_proc_pid(c->reap[i].proc) == pid)
			return 1;
	return 0;
}

/*
 * On SIGCHLD: a host can exit while something it forked (without exec)
 * still holds its reply pipe, so no EOF comes: reap live hosts too. And as
 * a subreaper we adopt the orphans of hosts' children: reap those strays
 * (they are not hosts) so zombies do not pile up. O(hosts + children).
 */
static void supervise_reap_live(run_ctx *c)
{
	mg_exit_end st;
	struct rusage ru;
	for (unsigned i = 0; i < c->nlanes; i++) {
		lane *l = &c->lanes[i];
		if (l->h.state == HOST_NONE || l->h.state == HOST_DYING ||
		    spawn_wait(l->h.proc, 1, &st, &ru) != 1)
			continue;
		record_usage(c, i, &ru);
		/* what it wrote before it died still counts */
		if (spawn_reply_fd(l->h.proc) >= 0)
			lane_read_replies(c, l);
		if (l->h.state == HOST_NONE)
			continue;
		if (l->h.state != HOST_DYING) {
			spawn_close_reply(l->h.proc);
			lane_fire(c, l, EV_EOF);
		}
		lane_exited(c, l, st);
	}
	if (proc_self_pid() != getpid())
		return; /* /proc's pids are not the ones we could wait for */
	pid_t kids[256];
	size_t n = proc_children(getpid(), kids, 256);
	for (size_t i = 0; i < n && i < 256; i++)
		if (!is_host_pid(c, kids[i]))
			waitpid(kids[i], NULL, WNOHANG);
}

/* ---- the guard: sampling (the readings in sample.c, the verdicts in policy.c) ---- */

static void supervise_sample(run_ctx *c)
{
	double t = now(c);
	double next = c->o->interval * 2;
	lane *victim = NULL;
	uint64_t victim_rss = 0;
	sample_cgroup(c);
	for (unsigned i = 0; i < c->nlanes; i++) {
		lane *l = &c->lanes[i];
		host *h = &l->h;
		sample_reading s;
		lane_catch_up(c, l); /* a kill blames the test the host is running */
		if (sample_host(c, h, t, &s) < 0)
			continue; /* gone: its EOF and exit status will say how */
		uint64_t prev = h->va_last;
		h->va_last = s.va_tree;
		h->rss_last = s.own_rss;
		h->own_rss = s.own_rss;
		if (s.va_tree > h->peak_va)
			h->peak_va = s.va_tree;
		if (s.rss_tree > h->peak_rss)
			h->peak_rss = s.rss_tree;
		timeline_add(&l->tl, t, s.va_tree, s.rss_tree, (uint32_t)record_gen(c, l)->index);
		progress_sample(c->prog, l->index, s.va_tree, h->peak_va);

		/* a tree alone over the whole rss pool now; the pool and the cgroup
		 * are shared by all lanes: handled once, below */
		h->tree_rss = s.rss_tree;
		policy_reading r = {.va = s.va_same, .rss = s.rss_tree};
		policy_verdict v;
		if (policy_judge(&v, c, h, POLICY_KILL, &r)) {
			lane_kill_over_limit(c, l, v.why, t, 1);
			continue;
		}
		/* the largest tree still running tests: a recycling host frees its
		 * memory at quit anyway */
		if (h->state != HOST_QUITTING && (!victim || s.rss_tree > victim_rss)) {
			victim = l;
			victim_rss = s.rss_tree;
		}
		/* Adaptive interval: sample faster as the kill limit comes near. */
		next = policy_interval(c, s.va_tree, prev, next);
		/* Soft limits act at test boundaries (the result handler); here a
		 * crossing only stops feeding, so no further test starts in a host
		 * that is already over. */
		h->soft_hit =
		    policy_can_recycle(c) && policy_judge(&v, c, h, POLICY_RECYCLE, &r) != 0;
	}
	/* The rss pool over its hard limit: end the largest tree only, then give
	 * the kernel a second to tear it down before judging again. */
	policy_reading vr = {.va = 0, .rss = victim_rss};
	policy_verdict v;
	if (victim && t >= c->pool_hold_until &&
	    policy_judge(&v, c, &victim->h, POLICY_POOL_KILL, &vr)) {
		lane_kill_over_limit(c, victim, v.why, t, 0);
		c->pool_hold_until = t + 1.0;
		victim = NULL; /* ended: the cgroup is judged again next pass */
	}
	/* Over the cgroup's hard limit: end the largest tree only, then give
	 * the kernel a second to tear it down before judging again. */
	if (victim && t >= c->cg_hold_until &&
	    policy_judge(&v, c, &victim->h, POLICY_CGROUP_KILL, &vr)) {
		lane_kill_over_limit(c, victim, v.why, t, 0);
		c->cg_hold_until = t + 1.0;
	}
	if (next < 0.0005)
		next = 0.0005;
	c->interval = next;
	c->next_sample = now(c) + next;
}

/* ---- no progress ---- */

#define NP_LOOK_EVERY 1.0 /* seconds between looks at a host's processes */
#define NP_FIRST_LOOK 0.1 /* a test's first look: a passing test costs none */

/*
 * A test that makes no progress: every process of it stopped (T state: it
 * stopped itself, or a debugger left it), or none of them used CPU time,
 * while no result came. Said once (one line naming the host and its state)
 * when it has lasted 5 s stopped or 60 s without CPU (at most half the
 * limit); ended as a timeout ("stopped", "no progress") at --no-progress.
 * The processes (sample_progress): a native host and its descendants; under
 * a driver's shim its descendants (the shim itself polls). O(processes) a
 * second per host running a test.
 */
/*
 * The no-progress watch of what key names (a test's start; a finish's
 * quit): a new key starts it afresh, looked at first NP_FIRST_LOOK later
 * (results stream in, and the head changes with each: a look is ~10 system
 * calls), then every NP_LOOK_EVERY. 1 after a look, with what it saw in *r
 * and how long the processes have used no CPU (or all been stopped) in
 * *idle; 0 when no look was due or its processes were between two.
 */
static int np_look(const run_ctx *c, host *h, double key, double t, sample_run *r, double *idle)
{
	if (h->np_test != key || h->np_pid != h->pid) {
		h->np_test = key;
		h->np_pid = h->pid;
		h->np_since = t;
		h->np_cpu = UINT64_MAX;
		h->np_said = 0;
		h->np_next = t + NP_FIRST_LOOK;
		return 0;
	}
	if (t < h->np_next)
		return 0;
	h->np_next = t + NP_LOOK_EVERY;
	if (sample_progress(c, h, r) < 0)
		return 0; /* between a shim's processes */
	/* the first look: what it does is known from here */
	if (h->np_cpu == UINT64_MAX || (r->cpu_ticks != h->np_cpu && r->stopped != r->seen)) {
		h->np_since = t;
		h->np_said = 0;
	}
	h->np_cpu = r->cpu_ticks;
	*idle = t - h->np_since;
	return 1;
}

static void supervise_progress(run_ctx *c, lane *l, double t)
{
	host *h = &l->h;
	double limit = c->o->no_progress;
	double from = h->head_started ? h->head_t0 : h->head_since;
	double idle;
	sample_run r;
	if (limit <= 0 || !h->nflight || h->head_waiting || !np_look(c, h, from, t, &r, &idle) ||
	    idle <= 0)
		return;
	char state = r.state;
	int all_stopped = r.stopped == r.seen;
	const char *name = c->tests[flight_at(h, 0, c->o->pipeline)].name;
	double say = all_stopped ? 5.0 : 60.0;
	if (say > limit / 2)
		say = limit / 2;
	char line[512];
	if (!h->np_said && idle >= say) {
		h->np_said = 1;
		snprintf(line, sizeof(line),
		         "host pid %ld %s (state %c) for %.0f s in test '%.200s'; ended as a "
		         "timeout at %.0f s (--no-progress)",
		         (long)h->pid, all_stopped ? "is stopped" : "uses no CPU", state, idle,
		         name, limit);
		progress_note(c->prog, l->index, line);
	}
	if (idle >= limit) {
		/* a batching host's replies first: a result waiting there is progress */
		lane_catch_up(c, l);
		if ((h->state != HOST_RUNNING && h->state != HOST_QUITTING) || !h->nflight ||
		    (h->head_started ? h->head_t0 : h->head_since) != from)
			return;
		snprintf(line, sizeof(line), "%s (state %c) for %.0f s, no result (--no-progress)",
		         all_stopped ? "stopped" : "no progress", state, idle);
		lane_timeout(c, l, h->head_started ? t - h->head_t0 : 0, line);
	}
}

/*
 * A quit host whose program finishes on its own (policy_program_finishes)
 * and runs no test: its tear-downs, its leak check and its exit are the
 * suite's own time, so no fixed deadline ends them; the run's rules for a
 * test do: --timeout from quit, and --no-progress (its processes all
 * stopped, or using no CPU). Ended there, the finish is an entry of its
 * own, `<program exit>` `timeout` (directly the program would hang its
 * job): what it would still have reported is not seen, and the run says so.
 */
static void supervise_finish(run_ctx *c, lane *l, double t)
{
	host *h = &l->h;
	char why[300];
	double limit = c->o->no_progress, key = -1.0 - h->since;
	int over = c->o->timeout > 0 && t - h->since > c->o->timeout;
	if (over) {
		snprintf(why, sizeof(why),
		         "%s did not end within %.3gs of its last test (--timeout): killed before "
		         "its tear-downs and exit were seen",
		         c->o->host_argv[0], c->o->timeout);
	} else if (limit > 0) {
		sample_run r;
		double idle;
		if (!np_look(c, h, key, t, &r, &idle) || idle < limit)
			return;
		snprintf(why, sizeof(why),
		         "%s %s (state %c) for %.0fs after its last test (--no-progress): killed "
		         "before its tear-downs and exit were seen",
		         c->o->host_argv[0], r.stopped == r.seen ? "was stopped" : "used no CPU",
		         r.state, idle);
	} else {
		return;
	}
	static const char name[] = MG_EXTRA_PROGRAM_EXIT;
	record_extra(c, l, TEST_TIMEOUT, name, sizeof(name) - 1, why, strlen(why));
	lane_requeue(c, l);
	lane_kill(c, l, h->end != END_NONE ? h->end : END_QUIT, why);
}

/* ---- deadlines ---- */

/* Seconds from fork to hello: START_DEADLINE, but a pytest host greets only
 * after pytest's collection, the listing's work (a big suite on a loaded
 * machine takes well over 10 s): it has the listing's time. */
static double start_deadline(const run_ctx *c)
{
	double l = c->driver == DRIVER_PYTEST ? listing_limit(c) : 0;
	return l > START_DEADLINE ? l : START_DEADLINE;
}

static void supervise_deadlines(run_ctx *c)
{
	double t = now(c);
	for (unsigned i = 0; i < c->nlanes; i++) {
		lane *l = &c->lanes[i];
		host *h = &l->h;
		char why[200];
		switch (h->state) {
		case HOST_STARTING:
			if (t - h->since > start_deadline(c)) {
				snprintf(why, sizeof(why), "no greeting within %.0fs",
				         start_deadline(c));
				lane_failed_start(l, why);
				lane_requeue(c, l);
				lane_kill(c, l, END_ERROR, why);
			}
			break;
		case HOST_RUNNING:
		case HOST_QUITTING:
			if (h->nflight && c->o->timeout > 0)
				lane_catch_up(c, l); /* its latest start and results first */
			if (h->state != HOST_RUNNING && h->state != HOST_QUITTING)
				break;
			if (h->state == HOST_QUITTING && !h->head_started &&
			    policy_program_finishes(c)) {
				/* its run lines not started are not running: it finishes */
				supervise_finish(c, l, t);
				break;
			}
			supervise_progress(c, l, t);
			if (h->state != HOST_RUNNING && h->state != HOST_QUITTING)
				break; /* ended for no progress */
			if (h->nflight && h->head_started && c->o->timeout > 0 &&
			    t - h->head_t0 > c->o->timeout) {
				snprintf(why, sizeof(why), "no result after %.3gs", c->o->timeout);
				lane_timeout(c, l, t - h->head_t0, why);
			} else if (h->nflight && !h->head_started && !h->head_waiting &&
			           c->o->timeout > 0 && t - h->head_since > c->o->timeout) {
				/* silent between tests (a hung setup): the next one never
				 * starts; after one that ended here, the hang is between
				 * the two, not the next one's */
				snprintf(why, sizeof(why), "did not start within %.3gs",
				         c->o->timeout);
				if (h->last_ended)
					lane_timeout_between(c, l, c->o->timeout);
				else
					lane_timeout(c, l, 0, why);
			} else if (h->state == HOST_QUITTING && !h->nflight &&
			           t - h->since > QUIT_DEADLINE) {
				snprintf(why, sizeof(why), "no goodbye within %.0fs of quit",
				         QUIT_DEADLINE);
				lane_kill(c, l, h->end != END_NONE ? h->end : END_QUIT, why);
			}
			break;
		case HOST_DYING:
			if (t - h->since > DYING_DEADLINE) {
				mg_exit_end st;
				struct rusage ru;
				h->pipe_closed_alive = 1;
				spawn_signal(h->proc, SIGKILL);
				if (spawn_wait(h->proc, 0, &st, &ru) == 1) {
					record_usage(c, i, &ru);
					lane_exited(c, l, st);
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
		if (h->state == HOST_STARTING && h->since + start_deadline(c) < w)
			w = h->since + start_deadline(c);
		if (h->state != HOST_DYING && h->nflight && !h->head_waiting && c->o->timeout > 0) {
			double from = h->head_started ? h->head_t0 : h->head_since;
			if (from + c->o->timeout < w)
				w = from + c->o->timeout;
		}
		if (h->state == HOST_DYING && h->since + DYING_DEADLINE < w)
			w = h->since + DYING_DEADLINE;
		if ((h->state == HOST_RUNNING || h->state == HOST_QUITTING) && h->nflight &&
		    !h->head_waiting && c->o->no_progress > 0 && h->np_next < w)
			w = h->np_next > t ? h->np_next : t;
		if (h->state != HOST_NONE && h->state != HOST_DYING && h->reply_due > t &&
		    h->reply_due < w)
			w = h->reply_due;
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

void supervise_signals(run_ctx *c)
{
	unsigned char b[64];
	ssize_t n;
	int child = 0;
	while ((n = read(c->sigfd[0], b, sizeof(b))) > 0)
		for (ssize_t i = 0; i < n; i++) {
			if (b[i] != SIGCHLD)
				c->signo = b[i]; /* one of run_stop_signals */
			child |= b[i] == SIGCHLD;
		}
	supervise_reap(c);
	if (child)
		supervise_reap_live(c);
}

/* Ends every host now: TERM to each group, KILL after a grace period. */
void supervise_stop_all(run_ctx *c, host_end end, const char *why)
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
				record_testf(c, l, t, c->signo ? TEST_ERROR : TEST_TIMEOUT,
				             now(c) - l->h.head_t0, "%s during the test", why);
			else /* never started: no figures (not its host's) */
				record_test(c, l, t, TEST_NOTRUN, why, strlen(why), 0, 0, 0, 0, 0);
		}
		l->h.nflight = 0;
		record_host_end(c, l, end, why);
		lane_fire(c, l, EV_KILL); /* detaches it */
	}
	double until = now(c) + 1.0;
	while (c->nreap && now(c) < until) {
		supervise_reap(c);
		if (c->nreap) {
			/* SIGCHLD writes to the self-pipe: wake on it, not on a clock */
			struct pollfd pf = {c->sigfd[0], POLLIN, 0};
			if (poll(&pf, 1, supervise_poll_ms(until - now(c)) + 1) > 0)
				supervise_signals(c);
		}
	}
	for (size_t i = 0; i < c->nreap; i++)
		spawn_signal(c->reap[i].proc, SIGKILL);
	supervise_reap(c);
}

void supervise_run(run_ctx *c)
{
	struct pollfd *pfd = mg_xrealloc(NULL, (1 + 4 * c->nlanes) * sizeof(*pfd));
	/* each lane's out, err and reply entries in pfd, -1 when not polled */
	int(*at)[3] = mg_xrealloc(NULL, c->nlanes * sizeof(*at));
	c->next_sample = now(c);
	c->interval = c->o->interval;
	while (!c->signo && !c->deadline_hit) {
		for (unsigned i = 0; i < c->nlanes; i++)
			lane_schedule(c, &c->lanes[i]);
		if (!lanes_busy(c) &&
		    (c->remaining == 0 || (!c->qlen && !c->rqlen) || all_gave_up(c)))
			break;
		size_t n = 0;
		int ring_waiting = 0; /* a ring holds replies: poll must not sleep */
		pfd[n++] = (struct pollfd){c->sigfd[0], POLLIN, 0};
		for (unsigned i = 0; i < c->nlanes; i++) {
			host *h = &c->lanes[i].h;
			at[i][0] = at[i][1] = at[i][2] = -1;
			if (h->state == HOST_NONE)
				continue;
			/* a dying host: its output drained so it is not stuck writing */
			int fds[4] = {spawn_out_fd(h->proc), spawn_err_fd(h->proc),
			              h->state == HOST_DYING || h->reply_due > now(c)
			                  ? -1
			                  : spawn_reply_fd(h->proc),
			              h->state == HOST_DYING ? -1 : spawn_cmd_fd(h->proc)};
			for (int k = 0; k < 3; k++)
				if (fds[k] >= 0) {
					at[i][k] = (int)n;
					pfd[n++] = (struct pollfd){fds[k], POLLIN, 0};
				}
			/* a ring host writes a wake byte only while we sleep on it */
			if (fds[2] >= 0 && conn_ring_arm(h))
				ring_waiting = 1;
			if (fds[3] >= 0 && h->outq_len)
				pfd[n++] = (struct pollfd){fds[3], POLLOUT, 0};
		}
		int ms = ring_waiting ? 0 : supervise_poll_ms(next_wakeup(c));
		int r = poll(pfd, n, ms);
		if (r < 0 && errno != EINTR)
			break;
		if (pfd[0].revents)
			supervise_signals(c);
		for (unsigned i = 0; i < c->nlanes; i++) {
			lane *l = &c->lanes[i];
			host *h = &l->h;
			if (h->state == HOST_NONE)
				continue;
			/* A host serving the protocol flushes a test's output before its result, so
			 * output is read first; a shim announces a test before
			 * passing its output on, so its replies are read first. The
			 * two pipes carry no common order: with many results in one
			 * turn, output can land on a neighbouring test. */
			int replies_first = !driver_serves_protocol(c->driver) &&
			                    h->state != HOST_DYING && spawn_reply_fd(h->proc) >= 0;
			/* Only the pipes poll found ready are read (a read that would
			 * say EAGAIN is a system call for nothing), but where output
			 * is attributed by the order of reading, not by the host's
			 * marks, output is read whenever the replies are: bytes written
			 * before a result can arrive after poll looked at their pipe. */
			int by_order = !conn_output_marked(c, h);
			conn_ring_disarm(h);
			h->reply_ready = at[i][2] >= 0 && pfd[at[i][2]].revents;
			int replies = at[i][2] >= 0 && (h->reply_ready || conn_ring_ready(h));
			int out = at[i][0] >= 0 && (pfd[at[i][0]].revents || (by_order && replies));
			int err = at[i][1] >= 0 && (pfd[at[i][1]].revents || (by_order && replies));
			if (replies_first && replies)
				lane_read_replies(c, l);
			if (h->state == HOST_NONE)
				continue;
			if (out)
				conn_read_output(c, l, 0);
			if (err)
				conn_read_output(c, l, 1);
			if (h->state == HOST_DYING)
				continue;
			if (!replies_first && replies && spawn_reply_fd(h->proc) >= 0)
				lane_read_replies(c, l);
			/* a host with work enough for twice REPLY_WAIT after the next
			 * refill is read again in REPLY_WAIT, however soon it answers */
			if (replies && policy_batch_replies(c, l))
				h->reply_due = now(c) + REPLY_WAIT;
			if (h->state != HOST_NONE && h->state != HOST_DYING && h->outq_len)
				conn_flush(c, l);
		}
		if (now(c) >= c->next_sample)
			supervise_sample(c);
		supervise_deadlines(c);
		supervise_reap(c);
	}
	free(at);
	free(pfd);
}

/* run_stop_signals (run.h) stop a run the way SIGTERM does; SIGPIPE is
 * ignored (a closed reader of our output must not lose the report). */

void supervise_install_signals(run_ctx *c)
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
		exit(MG_EXIT_INFRA);
	}
	sig_write_fd = c->sigfd[1];
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < RUN_NSTOP_SIGNALS; i++)
		sigaction(run_stop_signals[i], &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	/* Orphans of our hosts come to us, so none outlives the run. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
}

/* Once every host has ended, the outputs are written: a stop signal then
 * interrupts a write that blocks (a stuck reader of stdout, a hung network
 * file system) instead of restarting it, so it cannot keep the run from
 * ending; supervise_stop_pending says whether one came. */
void supervise_interruptible_writes(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < RUN_NSTOP_SIGNALS; i++)
		sigaction(run_stop_signals[i], &sa, NULL);
}

/* While the outputs are written: whether a stop signal came that ends the
 * writing. was: the signal the run had ended by (c->signo before the
 * writing; 0 when none). The same signal again within STOP_AGAIN_MS of the
 * first is that stop, not a second one: timeout(1) signals memguard and
 * then its process group, and on a loaded machine the second comes while
 * the report is written (before: no table and no adapter's file, now and
 * then); another signal, or a Ctrl-C pressed again later for a write that
 * hangs, still ends it. */
#define STOP_AGAIN_MS 1000
int supervise_stop_again(run_ctx *c, int was)
{
	int got = supervise_stop_pending(c);
	if (!got)
		return 0;
	return !was || got != was ||
	       atomic_load(&sig_last_ms) - atomic_load(&sig_first_ms) >= STOP_AGAIN_MS;
}

int supervise_stop_pending(run_ctx *c)
{
	unsigned char b[64];
	ssize_t n;
	int got = 0;
	while ((n = read(c->sigfd[0], b, sizeof(b))) > 0)
		for (ssize_t i = 0; i < n; i++)
			if (b[i] != SIGCHLD)
				c->signo = got = b[i];
	return got;
}

/* Ends whatever the run's hosts left: the namespace whole where there is one
 * (its init dies, and with it every process in it), else what was
 * reparented to us (grandchildren of dead hosts) and is still ours. */
void supervise_reap_orphans(void)
{
	pid_t kids[256];
	contain_end();
	/* /proc's pids are not ours to signal inside another's namespace */
	size_t n = proc_self_pid() == getpid() ? proc_descendants(getpid(), kids, 256) : 0;
	for (size_t i = 0; i < n && i < 256; i++)
		kill(kids[i], SIGKILL);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t sig_write_fd = -1;

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

/* SIGCHLD: reap what can be reaped, on specific pids only. */
static void supervise_reap(run_ctx *c)
{
	int st;
	struct rusage ru;
	for (unsigned i = 0; i < c->nlanes; i++) {
		lane *l = &c->lanes[i];
		if (l->h.state == HOST_DYING && spawn_wait(l->h.proc, 1, &st, &ru) == 1) {
			record_usage(c, i, &ru);
			lane_exited(c, l, st);
		}
	}
	for (size_t i = 0; i < c->nreap;) {
		if (spawn_wait(c->reap[i].proc, 1, &st, &ru) == 1) {
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
	int st;
	struct rusage ru;
	for (unsigned i = 0; i < c->nlanes; i++) {
		lane *l = &c->lanes[i];
		if (l->h.state == HOST_NONE || l->h.state == HOST_DYING ||
		    spawn_wait(l->h.proc, 1, &st, &ru) != 1)
			continue;
		record_usage(c, i, &ru);
		/* what it wrote before it died still counts */
		if (spawn_reply_fd(l->h.proc) >= 0)
			conn_read_replies(c, l);
		if (l->h.state == HOST_NONE)
			continue;
		if (l->h.state != HOST_DYING) {
			spawn_close_reply(l->h.proc);
			lane_fire(c, l, EV_EOF);
		}
		lane_exited(c, l, st);
	}
	char path[64], buf[4096];
	if (proc_self_pid() != getpid())
		return; /* /proc's pids are not the ones we could wait for */
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

/*
 * Samples the host's descendants (guard's tree: their statm fds stay open
 * from one scan to the next, so a steady tree costs a children-file read
 * and a pread per process). Each is judged by its own arch: the largest VA
 * of the host's arch (or not known), and of the other.
 */
static void sample_tree(const run_ctx *c, lane *l, double t)
{
	host *h = &l->h;
	tree_sample s;
	h->tree_at = t;
	if (!h->kids)
		return;
	tree_scan(h->kids, h->pid, &s);
	mg_arch other = c->arch == MG_ARCH_X86 ? MG_ARCH_X64 : MG_ARCH_X86;
	h->desc_rss = s.rss;
	h->desc_va_max = s.va_max;
	h->desc_va_pid = s.va_max_pid;
	h->desc_va_same = s.va_of[c->arch] > s.va_of[MG_ARCH_UNKNOWN] ? s.va_of[c->arch]
	                                                              : s.va_of[MG_ARCH_UNKNOWN];
	h->desc_va_other = s.va_of[other];
	h->desc_va_other_pid = s.va_of_pid[other];
}

static void supervise_sample(run_ctx *c)
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
		if (!driver_serves_protocol(c->driver)) {
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
		timeline_add(&l->tl, t, va_tree, rss_tree, (uint32_t)record_gen(c, l)->index);
		progress_sample(c->prog, l->index, va_tree, h->peak_va);

		/* the cgroup is shared by all lanes: handled once, below */
		h->tree_rss = rss_tree;
		/* a tree alone over the whole rss pool now; the pool and the cgroup
		 * are shared by all lanes: handled once, below */
		unsigned hard = policy_check(c, &c->hard, c->hard.rss, va_same, rss_tree) &
		                ~(unsigned)LIMIT_CGROUP;
		char why[200];
		if (hard || policy_other_arch_va(c, h, c->va_hard, "kill", why, sizeof(why))) {
			if (hard)
				policy_why(why, sizeof(why), hard, "kill", va_same, rss_tree,
				           c->cg_usage, &c->hard, c->hard.rss);
			lane_kill_over_limit(c, l, why, t, 1);
			continue;
		}
		/* the largest tree still running tests: a recycling host frees its
		 * memory at quit anyway */
		if (h->state != HOST_QUITTING && (!victim || rss_tree > victim_rss)) {
			victim = l;
			victim_rss = rss_tree;
		}
		/* Adaptive interval: sample faster as the kill limit comes near. */
		next = policy_interval(c, va_tree, prev, next);
		/* Soft limits act at test boundaries (the result handler); here a
		 * crossing only stops feeding, so no further test starts in a host
		 * that is already over. */
		h->soft_hit = policy_can_recycle(c) &&
		              (policy_check(c, &c->soft, 0, va_same, rss_tree) != 0 ||
		               policy_rss_pool(c, c->soft.rss, rss_tree) != 0 ||
		               policy_other_arch_va(c, h, c->va_soft, "recycle", why, sizeof(why)));
	}
	/* The rss pool over its hard limit: end the largest tree only, then give
	 * the kernel a second to tear it down before judging again. */
	if (c->hard.rss && c->nlanes > 1 && victim && t >= c->pool_hold_until &&
	    policy_pool_rss(c) >= c->hard.rss) {
		char why[200];
		policy_pool_why(c, why, sizeof(why), "kill", victim_rss, c->hard.rss);
		lane_kill_over_limit(c, victim, why, t, 0);
		c->pool_hold_until = t + 1.0;
	}
	/* Over the cgroup's hard limit: end the largest tree only, then give
	 * the kernel a second to tear it down before judging again. */
	if (c->has_cgroup && c->hard.cgroup && c->cg_usage >= c->hard.cgroup && victim &&
	    t >= c->cg_hold_until) {
		char why[200];
		policy_why(why, sizeof(why), LIMIT_CGROUP, "kill", 0, 0, c->cg_usage, &c->hard, 0);
		lane_kill_over_limit(c, victim, why, t, 0);
		c->cg_hold_until = t + 1.0;
	}
	if (next < 0.0005)
		next = 0.0005;
	c->interval = next;
	c->next_sample = now(c) + next;
}

/* ---- deadlines ---- */

static void supervise_deadlines(run_ctx *c)
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
				lane_failed_start(l, why);
				lane_requeue(c, l);
				lane_kill(c, l, END_ERROR, why);
			}
			break;
		case HOST_RUNNING:
		case HOST_QUITTING:
			if (h->nflight && h->head_started && c->o->timeout > 0 &&
			    t - h->head_t0 > c->o->timeout) {
				snprintf(why, sizeof(why), "no result after %.3gs", c->o->timeout);
				lane_timeout(c, l, t - h->head_t0, why);
			} else if (h->nflight && !h->head_started && c->o->timeout > 0 &&
			           t - h->head_since > c->o->timeout) {
				/* silent between tests (a hung setup): the next one never starts */
				snprintf(why, sizeof(why), "did not start within %.3gs",
				         c->o->timeout);
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
				int st;
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

void supervise_signals(run_ctx *c)
{
	unsigned char b[64];
	ssize_t n;
	int child = 0;
	while ((n = read(c->sigfd[0], b, sizeof(b))) > 0)
		for (ssize_t i = 0; i < n; i++) {
			if (b[i] != SIGCHLD)
				c->signo = b[i]; /* one of stop_signals */
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
			else
				record_testf(c, l, t, TEST_NOTRUN, 0, "%s", why);
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
			if (poll(&pf, 1, (int)((until - now(c)) * 1000) + 1) > 0)
				supervise_signals(c);
		}
	}
	for (size_t i = 0; i < c->nreap; i++)
		spawn_signal(c->reap[i].proc, SIGKILL);
	supervise_reap(c);
}

void supervise_run(run_ctx *c)
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
			supervise_signals(c);
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
			int replies_first = !driver_serves_protocol(c->driver) &&
			                    h->state != HOST_DYING && spawn_reply_fd(h->proc) >= 0;
			if (replies_first)
				conn_read_replies(c, l);
			if (h->state == HOST_NONE)
				continue;
			conn_read_output(c, l, 0);
			conn_read_output(c, l, 1);
			if (h->state == HOST_DYING)
				continue;
			if (!replies_first && spawn_reply_fd(h->proc) >= 0)
				conn_read_replies(c, l);
			if (h->state != HOST_NONE && h->state != HOST_DYING && h->outq_len)
				conn_flush(c, l);
		}
		if (now(c) >= c->next_sample)
			supervise_sample(c);
		supervise_deadlines(c);
		supervise_reap(c);
	}
	free(pfd);
}

/* The signals that stop a run the way SIGTERM does: every host ended, the
 * partial report written, then the signal re-raised. SIGHUP is a closed
 * terminal or a dropped ssh session; SIGPIPE is ignored (a closed reader of
 * our output must not lose the report). */
static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

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
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		sigaction(stop_signals[i], &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	/* Orphans of our hosts come to us, so none outlives the run. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
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

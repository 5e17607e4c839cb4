/*
 * sample.c - the guard's readings of the run's hosts, in one room: the
 * timer's statm sample and tree scan (supervise), the cgroup's usage and
 * OOM-kill count, and what a boundary reads from outside a host that cannot
 * read itself (VmPeak, the largest free block), and whether a test's
 * processes run at all (the no-progress check's CPU time and states). Reads and keeps figures;
 * judges nothing (policy.c does) and never allocates per sample.
 */
#include "run_int.h"

/*
 * Samples the host's descendants (guard's tree: their statm fds stay open
 * from one scan to the next, so a steady tree costs a children-file read
 * and a pread per process). Each is judged by its own arch: the largest VA
 * of the host's arch (or not known), and of the other.
 */
static void sample_tree(const run_ctx *c, host *h, double t)
{
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

int sample_host(const run_ctx *c, host *h, double t, sample_reading *out)
{
	uint64_t va, rss;
	if (h->state == HOST_NONE || h->state == HOST_DYING || !h->sampler ||
	    proc_sampler_read(h->sampler, &va, &rss) < 0)
		return MG_EGONE; /* gone: its EOF and exit status will say how */
	if (t - h->tree_at >= c->tree_interval)
		sample_tree(c, h, t);
	uint64_t text = proc_sampler_text(h->sampler);
	if (!h->own_text ||
	    tree_image_changed(text, va, h->own_text, h->own_va, h->own_ours && h->kids)) {
		/* a new image (first seen, or an exec): whether it is memguard's
		 * own (a driver shim; the pytest driver before it execs pytest),
		 * the tree's one check, then its figures again, so that they are
		 * of the image judged; an image that changed meanwhile is judged
		 * at the next reading (none of its figures count until then) */
		h->own_ours =
		    h->kids ? tree_is_ours(h->kids, h->pid) : !driver_serves_protocol(c->driver);
		if (proc_sampler_read(h->sampler, &va, &rss) < 0)
			return MG_EGONE;
		h->own_text = proc_sampler_text(h->sampler) == text ? text : 0;
		h->own_va = va;
		if (!h->own_text)
			h->own_ours = 1;
	}
	if (h->own_ours) {
		/* memguard's own process: the memory under test is its program's
		 * tree (a shim) or the program it is about to become (pytest) */
		va = 0;
		rss = 0;
	}
	if (policy_process_per_test(c) && !(h->nflight && h->head_started)) {
		/* a process per test, none started (its shim's start line read
		 * before each sample): what the shim runs then is memguard's
		 * asking (the listing: ctest --show-only, --list-cmd), not the
		 * suite's; a shard's peak is its tests' */
		h->desc_rss = h->desc_va_max = h->desc_va_same = h->desc_va_other = 0;
		h->desc_va_pid = h->desc_va_other_pid = 0;
		va = rss = 0;
	}
	/* VA limits are per process (and arch): the largest in the tree is the
	 * one; RSS limits are for the tree's sum */
	out->own_rss = rss;
	out->va_tree = va > h->desc_va_max ? va : h->desc_va_max;
	out->va_same = va > h->desc_va_same ? va : h->desc_va_same;
	out->rss_tree = rss + h->desc_rss;
	return 0;
}

void sample_cgroup(run_ctx *c)
{
	cgroup_usage u;
	if (c->has_cgroup && cgroup_read(&c->cg, &u, NULL) == 0)
		c->cg_usage = u.usage;
}

int sample_oom_killed(run_ctx *c)
{
	uint64_t kills = 0;
	if (!c->cg_found || cgroup_oom_kills(&c->cg, &kills, NULL) != 0 || kills <= c->oom_kills)
		return 0;
	c->oom_kills = kills;
	return 1;
}

uint64_t sample_vm_peak(const host *h)
{
	proc_status ps = {0};
	return proc_read_status(&ps, h->pid, NULL) == 0 ? ps.vm_peak : 0;
}

int sample_gap_read(const run_ctx *c, const host *h, uint64_t va, uint64_t *gap)
{
	uint64_t gap_limit = c->soft.gap > c->hard.gap ? c->soft.gap : c->hard.gap;
	if (!gap_limit || c->arch != MG_ARCH_X86 || va < policy_va_ceiling(c) / 2)
		return -1;
	return maps_largest_gap(gap, policy_va_pid(c, h), limits_arch_ceiling(c->arch), NULL) == 0
	           ? 0
	           : -1;
}

pid_t sample_maps_pid(const run_ctx *c, host *h, double t)
{
	/* a shim's program changes from burst to burst: which is it now */
	if (!driver_serves_protocol(c->driver) && h->state != HOST_NONE)
		sample_tree(c, h, t);
	return policy_va_pid(c, h);
}

int sample_progress(const run_ctx *c, const host *h, sample_run *out)
{
	pid_t pids[SAMPLE_RUN_PROCS];
	size_t n = 0;
	if (driver_serves_protocol(c->driver))
		pids[n++] = h->pid;
	size_t kids = proc_descendants(h->pid, pids + n, SAMPLE_RUN_PROCS - n);
	n += kids < SAMPLE_RUN_PROCS - n ? kids : SAMPLE_RUN_PROCS - n;
	*out = (sample_run){0, 0, 0, '?'};
	for (size_t i = 0; i < n; i++) {
		proc_run r;
		if (proc_read_run(pids[i], &r) < 0)
			continue; /* gone: its exit will say */
		out->seen++;
		out->cpu_ticks += r.cpu_ticks;
		out->stopped += r.state == 'T' || r.state == 't';
		if (i == 0 || r.state == 'T' || r.state == 't')
			out->state = r.state;
	}
	return out->seen ? 0 : MG_EGONE;
}

int sample_gap(const run_ctx *c, const host *h, uint64_t va, uint64_t *gap)
{
	if (driver_serves_protocol(c->driver) && h->version >= 2)
		return -1; /* the host judges its gap itself */
	return sample_gap_read(c, h, va, gap);
}

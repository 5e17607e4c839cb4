/*
 * report_merge.c - merging one report into another (nodes, arches, suites),
 * shard by shard by the shard key, never clobbering another node's shards.
 */
#include "report_int.h"

#include "atomic.h"
#include "mg_exit.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- merge ----------------------------------------------------------------- */

/* How bad an exit code is, for a merge: 0, then 5 (no tests ran on that
 * node), then the others by value. */
static int exit_rank(int code)
{
	return code == 0 ? 0 : code == MG_EXIT_NO_TESTS ? 1 : 2 + code;
}

/* The latest start_time of r's shards in a's group; -1 when r has none. */
/* How much a containment holds: a namespace, a reaper, process groups. */
static int containment_rank(const char *c)
{
	if (!strcmp(c, "process-group"))
		return 0;
	return !strcmp(c, "reaper") ? 1 : 2;
}

static double group_start(const report *r, const report_shard *a)
{
	double t = -1;
	for (size_t i = 0; i < r->nshards; i++)
		if (report_shard_same_run(&r->shards[i], a) && r->shards[i].start_time > t)
			t = r->shards[i].start_time;
	return t;
}

/* The nodes r holds: the recorded set, else its own node. */
static size_t nodes_of(const report *r, const uint32_t **v, uint32_t *own)
{
	if (r->nnodes_present) {
		*v = r->nodes_present;
		return r->nnodes_present;
	}
	*own = r->node_index;
	*v = own;
	return 1;
}

/* into->nodes_present becomes the sorted union of both sides' nodes; two
 * reports of one node that record none stay without (a re-noted run). */
static void report_nodes_union(report *into, const report *from)
{
	if (!into->nnodes_present && !from->nnodes_present && into->node_index == from->node_index)
		return;
	const uint32_t *a, *b;
	uint32_t own_a, own_b;
	size_t na = nodes_of(into, &a, &own_a), nb = nodes_of(from, &b, &own_b), n = 0;
	uint32_t *u = malloc((na + nb) * sizeof(*u));
	if (!u)
		abort();
	for (size_t i = 0, j = 0; i < na || j < nb;) {
		uint32_t x = j >= nb || (i < na && a[i] <= b[j]) ? a[i] : b[j];
		if (!n || u[n - 1] != x)
			u[n++] = x;
		i += i < na && a[i] == x;
		j += j < nb && b[j] == x;
	}
	free(into->nodes_present);
	into->nodes_present = u;
	into->nnodes_present = n;
}

int report_merge_replaces(const report *into, const report *from, size_t j)
{
	const report_shard *s = &into->shards[j];
	for (size_t i = 0; i < from->nshards; i++)
		if (report_shard_same_run(&from->shards[i], s))
			return group_start(into, s) <= group_start(from, &from->shards[i]);
	return 0;
}

/* *dst becomes a copy of src (NULL too), the old string freed. */
static void str_set(char **dst, const char *src)
{
	char *c = report_strdup(src);
	free(*dst);
	*dst = c;
}

/* into's header becomes from's: every run into held was replaced by from's
 * (a job's run noted again), so its commit state, limits, times and verdict
 * are from's, not a union with the runs that are gone (before: a re-run
 * noted over an interrupted one kept exit 130 and the first run's dirty
 * flag, limits and start). The history planned from stays into's. */
static void header_take(report *into, const report *from)
{
	str_set(&into->tool_version, from->tool_version);
	str_set(&into->sha, from->sha);
	str_set(&into->branch, from->branch);
	str_set(&into->repo_note, from->repo_note);
	str_set(&into->limits_soft, from->limits_soft);
	str_set(&into->limits_hard, from->limits_hard);
	str_set(&into->containment, from->containment);
	str_set(&into->seed, from->seed);
	into->dirty = from->dirty;
	into->node_index = from->node_index;
	into->node_total = from->node_total;
	free(into->nodes_present);
	into->nodes_present = NULL;
	into->nnodes_present = 0;
	if (from->nnodes_present) {
		into->nodes_present = malloc(from->nnodes_present * sizeof(*into->nodes_present));
		if (!into->nodes_present)
			abort();
		memcpy(into->nodes_present, from->nodes_present,
		       from->nnodes_present * sizeof(*into->nodes_present));
		into->nnodes_present = from->nnodes_present;
	}
	into->soft = from->soft;
	into->hard = from->hard;
	into->has_limit_bytes = from->has_limit_bytes;
	into->expected_wall = from->expected_wall;
	into->start_time = from->start_time;
	into->wall = from->wall;
	into->interrupted = from->interrupted;
	into->exit_code = from->exit_code;
}

/* report_merge; take: from's shards are moved, not copied (from is left
 * with empty shards), else from is not changed. */
static int merge(report *into, report *from, int take, mg_err *err)
{
	if (into == from)
		return mg_err_set(err, MG_EINVAL, "merge: a report cannot be merged into itself");
	size_t n0 = into->nshards; /* shards appended below are from's: not compared */
	int had = n0 > 0, took = 0;
	for (size_t i = 0; i < from->nshards; i++) {
		const report_shard *f = &from->shards[i];
		int first = 1; /* the first of its group in from */
		for (size_t k = 0; k < i && first; k++)
			first = !report_shard_same_run(&from->shards[k], f);
		if (!first)
			continue;
		double mine = -1;
		for (size_t j = 0; j < n0; j++)
			if (report_shard_same_run(&into->shards[j], f) &&
			    into->shards[j].start_time > mine)
				mine = into->shards[j].start_time;
		if (mine > group_start(from, f))
			continue; /* into holds a later run of this group */
		for (size_t j = n0; j-- > 0;)
			if (report_shard_same_run(&into->shards[j], f)) {
				report_remove_shard(into, j);
				n0--;
			}
		for (size_t k = i; k < from->nshards; k++)
			if (report_shard_same_run(&from->shards[k], f)) {
				took = 1;
				report_shard *d = report_add_shard(into);
				if (!take) {
					report_shard_copy(d, &from->shards[k]);
					continue;
				}
				*d = from->shards[k];
				memset(&from->shards[k], 0, sizeof(from->shards[k]));
				/* an emptied shard still names its group for the rest */
				from->shards[k].node = d->node;
				from->shards[k].arch = report_strdup(d->arch);
				from->shards[k].suite = report_strdup(d->suite);
				from->shards[k].start_time = d->start_time;
			}
	}
	if (!n0 && (took || !had)) {
		/* none of into's runs is left: the whole is from's */
		header_take(into, from);
		report_finish(into, REPORT_MAX_SUSPECTS);
		return 0;
	}
	if (!took && had)
		goto done; /* into holds a later run of every group of from's */
	if (!into->sha && from->sha) {
		free(into->repo_note);
		into->repo_note = NULL;
		into->sha = report_strdup(from->sha);
		into->branch = report_strdup(from->branch);
		into->dirty = from->dirty;
	}
	if (!into->tool_version)
		into->tool_version = report_strdup(from->tool_version);
	if (!into->limits_soft)
		into->limits_soft = report_strdup(from->limits_soft);
	if (!into->limits_hard)
		into->limits_hard = report_strdup(from->limits_hard);
	if (!into->has_limit_bytes && from->has_limit_bytes) {
		into->soft = from->soft;
		into->hard = from->hard;
		into->has_limit_bytes = 1;
	}
	if (from->start_time < into->start_time)
		into->start_time = from->start_time;
	if (from->wall > into->wall)
		into->wall = from->wall;
	if (from->node_total > into->node_total)
		into->node_total = from->node_total;
	report_nodes_union(into, from);
	into->interrupted = into->interrupted || from->interrupted;
	/* the weaker guarantee of the two holds for the whole */
	if (from->containment && (!into->containment || containment_rank(from->containment) <
	                                                    containment_rank(into->containment))) {
		free(into->containment);
		into->containment = report_strdup(from->containment);
	}
	if (from->seed && !into->seed) /* the nodes' runs: each its own */
		into->seed = report_strdup(from->seed);
	/* the worse exit code: any nonzero beats 0, "no tests ran" (5) beats
	 * only 0, then the larger */
	if (exit_rank(from->exit_code) > exit_rank(into->exit_code))
		into->exit_code = from->exit_code;
done:
	report_finish(into, REPORT_MAX_SUSPECTS);
	/* a node that ran nothing beside nodes that ran tests: tests ran */
	if (into->exit_code == MG_EXIT_NO_TESTS && into->totals.tests > 0)
		into->exit_code = MG_EXIT_OK;
	return 0;
}

int report_merge(report *into, const report *from, mg_err *err)
{
	return merge(into, (report *)from, 0, err);
}

int report_merge_take(report *into, report *from, mg_err *err)
{
	return merge(into, from, 1, err);
}

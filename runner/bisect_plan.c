/*
 * bisect_plan.c - what "memguard bisect" re-runs, reconstructed from a run's
 * report: the tests one host ran, in order, and the test it failed on (a
 * retry in another host traced back to the host where it first failed).
 * Reads the report model only; never runs anything.
 */
#include "bisect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the plan ------------------------------------------------------------- */

void bisect_plan_free(bisect_plan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++)
		free(p->names[i]);
	free(p->names);
	free(p->shard);
	memset(p, 0, sizeof(*p));
}

void bisect_plan_add(bisect_plan *p, const char *name)
{
	if ((p->n & (p->n - 1)) == 0) {
		char **names = realloc(p->names, (p->n ? 2 * p->n : 16) * sizeof(*names));
		if (!names)
			abort();
		p->names = names;
	}
	p->names[p->n++] = report_strdup(name);
}

static const report_shard *find_shard(const report *r, const char *spec, mg_err *err)
{
	const report_shard *found = NULL;
	unsigned a = 0, b = 0;
	int len = 0, dotted = 0;
	if (spec[0] >= '0' && spec[0] <= '9' && sscanf(spec, "%u.%u%n", &a, &b, &len) == 2 &&
	    !spec[len])
		dotted = 1;
	else if (!(spec[0] >= '0' && spec[0] <= '9' && sscanf(spec, "%u%n", &a, &len) == 1 &&
	           !spec[len]))
		return mg_err_set(err, MG_EINVAL, "--shard: '%s' is not N or NODE.N", spec), NULL;
	for (size_t i = 0; i < r->nshards; i++) {
		const report_shard *s = &r->shards[i];
		if (dotted ? (s->node != a || s->index != b) : s->index != a)
			continue;
		if (found)
			return mg_err_set(err, MG_EINVAL,
			                  "--shard %s: shards of several nodes; say NODE.%s", spec,
			                  spec),
			       NULL;
		found = s;
	}
	if (!found)
		mg_err_set(err, MG_EINVAL, "--shard %s: no such shard in the report", spec);
	return found;
}

static const report_generation *gen_of(const report_shard *s, uint32_t index)
{
	if (index < s->ngens && s->gens[index].index == index)
		return &s->gens[index];
	for (size_t i = 0; i < s->ngens; i++)
		if (s->gens[i].index == index)
			return &s->gens[i];
	return NULL;
}

static int same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Shards of one run (same node, suite and arch): their lanes share the
 * retry queue, so a test killed in one may be retried in another. */
static int same_run(const report_shard *a, const report_shard *b)
{
	return a->node == b->node && same_str(a->suite, b->suite) && same_str(a->arch, b->arch);
}

/* A killed test's retry: run alone in a fresh host (or memory-limit there). */
static int is_retry(const report_shard *s, const report_test *t)
{
	const report_generation *g = gen_of(s, t->generation);
	if (!t->name || !g)
		return 0;
	return (t->attempts > 1 && g->tests_run == 1) ||
	       (t->state == TEST_MEMLIMIT && t->attempts > 1);
}

typedef struct kill_ref {
	size_t shard; /* index into r->shards */
	const report_generation *g;
} kill_ref;

static double gen_end(const report_generation *g)
{
	return g->start + g->wall;
}

/* Could the retry t (of shard rs) be that of the test killed in k? */
static int retry_after(const report *r, const kill_ref *k, size_t rs, const report_test *t)
{
	const report_shard *s = &r->shards[rs];
	if (rs == k->shard)
		return t->generation > k->g->index;
	const report_generation *g = gen_of(s, t->generation);
	/* a retry starts after the kill (the report's times are rounded) */
	return g && g->start + 0.001 >= gen_end(k->g);
}

/*
 * Pairs the killed hosts of kill's run with the retries, first killed
 * first retried (one queue): returns the retry of kill's test, or NULL.
 * With want set, instead returns in *kill_of the kill whose retry is want.
 */
static const report_test *match_retry(const report *r, const kill_ref *kill,
                                      const report_test *want, kill_ref *kill_of)
{
	const report_shard *home = &r->shards[kill->shard];
	kill_ref *kills = NULL;
	const report_test **claimed = NULL;
	size_t nkills = 0, nclaimed = 0, ntests = 0;
	for (size_t i = 0; i < r->nshards; i++)
		if (same_run(&r->shards[i], home)) {
			nkills += r->shards[i].ngens;
			ntests += r->shards[i].ntests;
		}
	kills = calloc(nkills + 1, sizeof(*kills));
	claimed = calloc(ntests + 1, sizeof(*claimed));
	if (!kills || !claimed)
		abort();
	nkills = 0;
	for (size_t i = 0; i < r->nshards; i++) {
		const report_shard *s = &r->shards[i];
		if (!same_run(s, home))
			continue;
		for (size_t k = 0; k < s->ngens; k++)
			if (s->gens[k].end == REPORT_END_KILL)
				kills[nkills++] = (kill_ref){i, &s->gens[k]};
	}
	/* in the order the kills happened (insertion sort: few kills) */
	for (size_t i = 1; i < nkills; i++)
		for (size_t k = i; k > 0; k--) {
			const kill_ref *a = &kills[k - 1], *b = &kills[k];
			double ea = gen_end(a->g), eb = gen_end(b->g);
			if (ea < eb ||
			    (ea == eb && (a->shard < b->shard ||
			                  (a->shard == b->shard && a->g->index < b->g->index))))
				break;
			kill_ref tmp = *a;
			kills[k - 1] = *b;
			kills[k] = tmp;
		}
	const report_test *result = NULL;
	for (size_t i = 0; i < nkills && !result; i++) {
		const kill_ref *k = &kills[i];
		const report_test *best = NULL;
		const report_generation *bestg = NULL;
		int best_same = 0;
		for (size_t si = 0; si < r->nshards; si++) {
			const report_shard *s = &r->shards[si];
			if (!same_run(s, home))
				continue;
			for (size_t ti = 0; ti < s->ntests; ti++) {
				const report_test *t = &s->tests[ti];
				if (!is_retry(s, t) || !retry_after(r, k, si, t))
					continue;
				int taken = 0;
				for (size_t c = 0; c < nclaimed && !taken; c++)
					taken = claimed[c] == t;
				if (taken)
					continue;
				const report_generation *g = gen_of(s, t->generation);
				int same = si == k->shard;
				/* the earliest; on a tie (no times) the same lane's */
				if (!best || g->start < bestg->start ||
				    (g->start == bestg->start && same && !best_same) ||
				    (g->start == bestg->start && same == best_same &&
				     t->generation < best->generation)) {
					best = t;
					bestg = g;
					best_same = same;
				}
			}
		}
		if (!best)
			continue;
		claimed[nclaimed++] = best;
		if (want ? best == want : k->shard == kill->shard && k->g == kill->g) {
			result = best;
			if (kill_of)
				*kill_of = *k;
		}
	}
	free(kills);
	free(claimed);
	return result;
}

/* The test the host of generation g (of shard si) was running when it ended. */
static const report_test *find_target(const report *r, size_t si, const report_generation *g)
{
	const report_shard *s = &r->shards[si];
	if (g->end == REPORT_END_KILL) {
		/* not retried (--driver wrap): memory-limit in that host */
		for (size_t i = 0; i < s->ntests; i++)
			if (s->tests[i].generation == g->index &&
			    s->tests[i].state == TEST_MEMLIMIT)
				return &s->tests[i];
		/* retried alone in a fresh host after g, maybe another lane's */
		kill_ref k = {si, g};
		const report_test *t = match_retry(r, &k, NULL, NULL);
		if (t)
			return t;
		/* else the earliest retried test of the lane, else one that hit the limit */
		const report_test *retried = NULL, *limit = NULL;
		for (size_t i = 0; i < s->ntests; i++) {
			t = &s->tests[i];
			if (t->generation <= g->index)
				continue;
			if (t->attempts > 1 && (!retried || t->generation < retried->generation))
				retried = t;
			if (t->state == TEST_MEMLIMIT &&
			    (!limit || t->generation < limit->generation))
				limit = t;
		}
		return retried ? retried : limit;
	}
	test_state want = g->end == REPORT_END_CRASH     ? TEST_CRASH
	                  : g->end == REPORT_END_TIMEOUT ? TEST_TIMEOUT
	                                                 : TEST_ERROR;
	const report_test *t = NULL;
	for (size_t i = 0; i < s->ntests; i++)
		if (s->tests[i].generation == g->index && s->tests[i].state == want)
			t = &s->tests[i];
	return t;
}

/* Where the record t (of shard si) failed first: the killed host its retry
 * came from, else its own host. */
static kill_ref home_of(const report *r, size_t si, const report_test *t)
{
	kill_ref k = {si, gen_of(&r->shards[si], t->generation)};
	if (is_retry(&r->shards[si], t)) {
		kill_ref from = k;
		kill_ref any = {si, k.g};
		if (match_retry(r, &any, t, &from))
			return from;
	}
	return k;
}

int bisect_plan_from_report(bisect_plan *out, const report *r, const char *shard, long generation,
                            const char *target, mg_err *err)
{
	const report_shard *want_shard = NULL;
	size_t si = 0;
	const report_generation *g = NULL;
	const report_test *t = NULL;
	memset(out, 0, sizeof(*out));
	out->generation = -1;
	if (shard) {
		want_shard = find_shard(r, shard, err);
		if (!want_shard)
			return MG_EINVAL;
	}
	if (target) {
		/* the target's records; the best: in the host asked for, then one
		 * that ended abnormally, then the first */
		int best = -1, seen = 0;
		for (size_t i = 0; i < r->nshards; i++)
			for (size_t k = 0; k < r->shards[i].ntests; k++) {
				const report_test *c = &r->shards[i].tests[k];
				if (!c->name || strcmp(c->name, target))
					continue;
				kill_ref h = home_of(r, i, c);
				if (!h.g || (want_shard && &r->shards[h.shard] != want_shard))
					continue;
				seen = 1;
				if (generation >= 0 && h.g->index != (uint32_t)generation)
					continue;
				int score = report_end_abnormal(h.g->end) ? 1 : 0;
				if (score > best) {
					best = score;
					si = h.shard;
					g = h.g;
					t = c;
				}
			}
		if (!g && generation < 0)
			return mg_err_set(err, MG_EINVAL, "--crash: no test '%s' in %s", target,
			                  shard ? "that shard" : "the report");
		if (!g && !seen) {
			int anywhere = 0;
			for (size_t i = 0; i < r->nshards && !anywhere; i++)
				for (size_t k = 0; k < r->shards[i].ntests && !anywhere; k++)
					anywhere = r->shards[i].tests[k].name &&
					           !strcmp(r->shards[i].tests[k].name, target);
			if (!anywhere)
				return mg_err_set(err, MG_EINVAL, "--crash: no test '%s' in %s",
				                  target, shard ? "that shard" : "the report");
		}
	}
	if (!g) {
		/* the shard asked for, else the first with generation G that ended
		 * abnormally (else with G), else the first with an abnormal end */
		for (int pass = 0; pass < 2 && !g; pass++)
			for (size_t i = 0; i < r->nshards && !g; i++) {
				const report_shard *c = &r->shards[i];
				if (want_shard && c != want_shard)
					continue;
				for (size_t k = 0; k < c->ngens && !g; k++)
					if (generation >= 0
					        ? c->gens[k].index == (uint32_t)generation &&
					              (pass || report_end_abnormal(c->gens[k].end))
					        : report_end_abnormal(c->gens[k].end)) {
						g = &c->gens[k];
						si = i;
					}
			}
		t = NULL;
	}
	if (!g) {
		if (generation >= 0)
			return mg_err_set(err, MG_EINVAL, "no host generation %ld in %s",
			                  generation, shard ? "that shard" : "the report");
		return mg_err_set(err, MG_EINVAL, "no host crashed or was killed in %s",
		                  shard ? "that shard" : "the report");
	}
	const report_shard *s = &r->shards[si];
	if (!target && !report_end_abnormal(g->end))
		return mg_err_set(err, MG_EINVAL,
		                  "host %u ended by '%s', not a crash or kill: name the test "
		                  "with --crash NAME",
		                  g->index, report_end_name(g->end));
	if (!target) {
		t = find_target(r, si, g);
		if (!t)
			return mg_err_set(err, MG_EINVAL,
			                  "the report does not say which test host %u was running; "
			                  "name it with --crash NAME",
			                  g->index);
	}
	const char *name = t ? t->name : target;
	/* the tests host g ran before the target, in order: with the target's
	 * record among them, only those before it */
	size_t end = s->ntests;
	for (size_t i = 0; i < s->ntests; i++)
		if (&s->tests[i] == t && t->generation == g->index)
			end = i;
	for (size_t i = 0; i < end; i++)
		if (s->tests[i].generation == g->index && s->tests[i].name &&
		    strcmp(s->tests[i].name, name))
			bisect_plan_add(out, s->tests[i].name);
	bisect_plan_add(out, name);
	out->failure = report_end_abnormal(g->end) ? g->end : REPORT_END_RUNNING;
	char label[32];
	int nodes = 0;
	for (size_t i = 1; i < r->nshards; i++)
		nodes |= r->shards[i].node != r->shards[0].node;
	if (nodes)
		snprintf(label, sizeof(label), "%u.%u", s->node, s->index);
	else
		snprintf(label, sizeof(label), "%u", s->index);
	out->shard = report_strdup(label);
	out->generation = g->index;
	return 0;
}

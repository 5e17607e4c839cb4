/*
 * plan.c - the tests of a run and their order: the test table read from a
 * --tests-from file, the run queue (a deque: requeued tests go to the front;
 * a test that waits for another is passed over until that one ended) and
 * the retry queue. No I/O but reading the --tests-from file.
 */
#include "mg_bulk.h"
#include "run_int.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void plan_push_back(run_ctx *c, size_t t)
{
	c->q[(c->qhead + c->qlen++) % c->ntests] = t;
}

void plan_push_front(run_ctx *c, size_t t)
{
	c->wait_epoch++; /* t was ready once: it is again */
	c->qhead = (c->qhead + c->ntests - 1) % c->ntests;
	c->q[c->qhead] = t;
	c->qlen++;
}

size_t plan_front(const run_ctx *c)
{
	return c->q[c->qhead];
}

/* A retry waits here, not in the main queue, so the lanes whose hosts are
 * not fresh keep working while a fresh host is made for it. */
void plan_retry_push(run_ctx *c, size_t t)
{
	c->rq[(c->rqhead + c->rqlen++) % c->ntests] = t;
}

size_t plan_retry_pop(run_ctx *c)
{
	size_t t = c->rq[c->rqhead];
	c->rqhead = (c->rqhead + 1) % c->ntests;
	c->rqlen--;
	return t;
}

size_t plan_pop(run_ctx *c)
{
	size_t t = c->q[c->qhead];
	c->qhead = (c->qhead + 1) % c->ntests;
	c->qlen--;
	return t;
}

/* The test at position at of the queue (0: the front). */
size_t plan_at(const run_ctx *c, size_t at)
{
	return c->q[(c->qhead + at) % c->ntests];
}

/* Takes the test at position at out of the queue: the ones before it move
 * up one, so the rest keep their order. */
size_t plan_take(run_ctx *c, size_t at)
{
	for (size_t i = at; i > 0; i--)
		c->q[(c->qhead + i) % c->ntests] = c->q[(c->qhead + i - 1) % c->ntests];
	return plan_pop(c);
}

static int plan_waits(const run_ctx *c, size_t t)
{
	for (size_t k = c->wait_first[t]; k < c->wait_first[t + 1]; k++)
		if (!c->tests[c->wait[k].on].done)
			return 1;
	return 0;
}

/*
 * The position in the queue of the first test that waits for nothing (0,
 * the front, when no test waits), or SIZE_MAX when every queued test waits
 * for one that runs or is to run again. The waits point to tests listed
 * earlier, so one that nothing runs can never end: then the front, so a
 * run cannot hang.
 */
size_t plan_ready(run_ctx *c)
{
	if (!c->wait_first)
		return 0;
	if (c->blocked_epoch == c->wait_epoch + 1)
		return SIZE_MAX;
	for (size_t at = 0; at < c->qlen; at++)
		if (!plan_waits(c, plan_at(c, at)))
			return at;
	if (c->rqlen)
		goto blocked;
	for (unsigned i = 0; i < c->nlanes; i++)
		if (c->lanes[i].h.nflight)
			goto blocked;
	return 0;
blocked:
	c->blocked_epoch = c->wait_epoch + 1; /* +1: epoch 0 is not a scan's */
	return SIZE_MAX;
}

/* A setup test that t needs and that failed (ctest then does not run t),
 * with its fixture; SIZE_MAX when none. */
size_t plan_setup_failed(const run_ctx *c, size_t t, const char **fixture)
{
	if (!c->wait_first)
		return SIZE_MAX;
	for (size_t k = c->wait_first[t]; k < c->wait_first[t + 1]; k++)
		if (c->wait[k].fixture && c->tests[c->wait[k].on].failed) {
			*fixture = c->wait[k].fixture;
			return c->wait[k].on;
		}
	return SIZE_MAX;
}

void plan_names_free(name_list *nl)
{
	report_names_free(nl->text);
	mg_bulk_free(nl->names, nl->cap * sizeof(char *));
	mg_bulk_free(nl->lens, nl->cap * sizeof(size_t));
	for (size_t i = 0; i < nl->ndeps; i++)
		free(nl->deps[i].fixture);
	free(nl->deps);
	for (size_t i = 0; i < nl->nextras; i++) {
		free(nl->extras[i].name);
		free(nl->extras[i].message);
	}
	free(nl->extras);
}

static const name_list *sort_names; /* for the qsort/bsearch comparators */

static int cmp_name(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	size_t li = sort_names->lens[i], lj = sort_names->lens[j];
	int r = memcmp(sort_names->names[i], sort_names->names[j], li < lj ? li : lj);
	return r ? r : (li > lj) - (li < lj);
}

/* name's bytes without white space at its ends: [*b, *e) */
static void trim_span(const char *p, size_t n, size_t *b, size_t *e)
{
	*b = 0;
	*e = n;
	while (*b < *e && isspace((unsigned char)p[*b]))
		(*b)++;
	while (*e > *b && isspace((unsigned char)p[*e - 1]))
		(*e)--;
}

/* memcmp order of a and b, each without white space at its ends */
static int cmp_trimmed_text(const char *a, size_t an, const char *b, size_t bn)
{
	size_t ab, ae, bb, be;
	trim_span(a, an, &ab, &ae);
	trim_span(b, bn, &bb, &be);
	size_t la = ae - ab, lb = be - bb;
	int r = memcmp(a + ab, b + bb, la < lb ? la : lb);
	return r ? r : (la > lb) - (la < lb);
}

static int cmp_trimmed(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	return cmp_trimmed_text(sort_names->names[i], sort_names->lens[i], sort_names->names[j],
	                        sort_names->lens[j]);
}

/* The listed name that is name but for white space at the ends of either:
 * its index, SIZE_MAX for none, SIZE_MAX - 1 for more than one. *tidx: the
 * names sorted so, made at the first call (O(n log n)), each call then
 * O(log n). */
static size_t trimmed_match(const name_list *nl, size_t **tidx, const char *name, size_t len)
{
	if (!*tidx) {
		*tidx = mg_xrealloc(NULL, (nl->n ? nl->n : 1) * sizeof(size_t));
		for (size_t i = 0; i < nl->n; i++)
			(*tidx)[i] = i;
		sort_names = nl;
		qsort(*tidx, nl->n, sizeof(size_t), cmp_trimmed);
	}
	size_t lo = 0, hi = nl->n, *t = *tidx;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (cmp_trimmed_text(nl->names[t[mid]], nl->lens[t[mid]], name, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == nl->n || cmp_trimmed_text(nl->names[t[lo]], nl->lens[t[lo]], name, len))
		return SIZE_MAX;
	if (lo + 1 < nl->n &&
	    !cmp_trimmed_text(nl->names[t[lo + 1]], nl->lens[t[lo + 1]], name, len))
		return SIZE_MAX - 1;
	return t[lo];
}

/*
 * Reads FILE (one test name a line, LF or CRLF) into order: indices into nl,
 * in the file's order, each at most once. A name the host did not list is a usage
 * error naming it, unless one listed name is it but for white space at its
 * ends (trimmed_match). O((n + m) log n) for m lines.
 */
int plan_tests_from(size_t **order, size_t *norder, name_list *nl, const char *file, mg_err *err)
{
	FILE *f = fopen(file, "r");
	if (!f)
		return mg_err_set(err, MG_EINVAL, "--tests-from: cannot open '%s': %s", file,
		                  strerror(errno));
	size_t *idx = mg_xrealloc(NULL, (nl->n ? nl->n : 1) * sizeof(size_t));
	char *used = calloc(nl->n ? nl->n : 1, 1);
	for (size_t i = 0; i < nl->n; i++)
		idx[i] = i;
	sort_names = nl;
	qsort(idx, nl->n, sizeof(size_t), cmp_name);
	*order = mg_xrealloc(NULL, (nl->n ? nl->n : 1) * sizeof(size_t));
	*norder = 0;
	char *line = NULL;
	size_t cap = 0, *tidx = NULL;
	ssize_t len;
	int rc = 0;
	while ((len = getline(&line, &cap, f)) >= 0) {
		if (len && line[len - 1] == '\n')
			line[--len] = 0;
		if (len && line[len - 1] == '\r') /* a CRLF file (written on Windows) */
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
		size_t hit = lo < nl->n ? idx[lo] : SIZE_MAX;
		if (lo == nl->n || nl->lens[idx[lo]] != (size_t)len ||
		    memcmp(nl->names[idx[lo]], line, (size_t)len)) {
			/* the one listed name it is but for white space at its ends
			 * (Catch2 prints "basic async test " trimmed, in its console,
			 * XML and JUnit alike) */
			size_t at = trimmed_match(nl, &tidx, line, (size_t)len);
			if (at == SIZE_MAX) {
				rc = mg_err_set(err, MG_EINVAL,
				                "--tests-from %s: the host does not list '%s'",
				                file, line);
				break;
			}
			if (at == SIZE_MAX - 1) {
				rc = mg_err_set(
				    err, MG_EINVAL,
				    "--tests-from %s: '%s' is more than one listed name but "
				    "for white space at their ends: give it as listed "
				    "(memguard list)",
				    file, line);
				break;
			}
			hit = at;
		}
		if (!used[hit]) {
			used[hit] = 1;
			(*order)[(*norder)++] = hit;
		} else {
			fprintf(stderr,
			        "memguard: warning: --tests-from %s names '%s' more than "
			        "once: it runs once\n",
			        file, line);
		}
	}
	free(line);
	free(idx);
	free(tidx);
	free(used);
	fclose(f);
	if (rc < 0) {
		free(*order);
		*order = NULL;
	}
	return rc;
}

/* A test with its expected length, for sorting longest first. */
typedef struct by_length {
	double d;   /* seconds; < 0 unknown: after the known */
	size_t pos; /* list position: equal lengths keep list order */
	size_t t;
} by_length;

static int longest_first(const void *a, const void *b)
{
	const by_length *x = a, *y = b;
	if (x->d != y->d)
		return x->d > y->d ? -1 : 1;
	return (x->pos > y->pos) - (x->pos < y->pos);
}

static void node_share(const run_ctx *c, name_list *nl, const size_t *order, size_t n, char *mine,
                       double *expected);

/*
 * The waits of the run's tests from the listing's after and needs lines,
 * as a table by test (wait_first, wait); one on a test this run does not
 * have (filtered out, another node's) is left out, as ctest runs a test
 * whose DEPENDS are not selected.
 */
static void plan_waits_build(run_ctx *c, const name_list *nl, const size_t *run_of)
{
	size_t n = 0;
	c->wait_first = mg_xrealloc(NULL, (c->ntests + 1) * sizeof(size_t));
	memset(c->wait_first, 0, (c->ntests + 1) * sizeof(size_t));
	for (size_t k = 0; k < nl->ndeps; k++) {
		size_t t = run_of[nl->deps[k].test], on = run_of[nl->deps[k].on];
		if (t != SIZE_MAX && on != SIZE_MAX) {
			c->wait_first[t + 1]++;
			n++;
		}
	}
	for (size_t t = 0; t < c->ntests; t++)
		c->wait_first[t + 1] += c->wait_first[t];
	if (!n) { /* none between two tests of this run */
		free(c->wait_first);
		c->wait_first = NULL;
		return;
	}
	c->wait = mg_xrealloc(NULL, n * sizeof(rwait));
	size_t *fill = mg_xrealloc(NULL, (c->ntests ? c->ntests : 1) * sizeof(size_t));
	memcpy(fill, c->wait_first, c->ntests * sizeof(size_t));
	for (size_t k = 0; k < nl->ndeps; k++) {
		size_t t = run_of[nl->deps[k].test], on = run_of[nl->deps[k].on];
		if (t != SIZE_MAX && on != SIZE_MAX)
			c->wait[fill[t]++] = (rwait){on, nl->deps[k].fixture};
	}
	free(fill);
}

/* A test of the split by name (node_share_by_name). */
typedef struct by_name {
	const char *name;
	size_t len, j; /* j: its place in the run's order */
} by_name;

static int name_order(const void *a, const void *b)
{
	const by_name *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int d = memcmp(x->name, y->name, n);
	if (d)
		return d;
	return (x->len > y->len) - (x->len < y->len);
}

/*
 * node_share over order (n tests) into mine (by place in order). When the
 * list's order comes from a seed the runner drew (GoogleTest's shuffle,
 * Catch2's rand order: each node draws its own), the split is made over
 * the tests sorted by name, which every node lists alike, so the nodes'
 * shares still make the whole without overlap; each node then runs its
 * share in its own order. O(n log n) only then.
 */
static void node_share_by_name(run_ctx *c, name_list *nl, const size_t *order, size_t n, char *mine)
{
	if (!c->seed || !c->seed_shuffled || c->o->node_total < 2) {
		node_share(c, nl, order, n, mine, &c->expected_wall);
		return;
	}
	by_name *v = mg_xrealloc(NULL, (n ? n : 1) * sizeof(*v));
	size_t *sorted = mg_xrealloc(NULL, (n ? n : 1) * sizeof(size_t));
	char *m = mg_xrealloc(NULL, n ? n : 1);
	for (size_t j = 0; j < n; j++)
		v[j] = (by_name){nl->names[order[j]], nl->lens[order[j]], j};
	qsort(v, n, sizeof(*v), name_order);
	for (size_t k = 0; k < n; k++)
		sorted[k] = order[v[k].j];
	node_share(c, nl, sorted, n, m, &c->expected_wall);
	for (size_t k = 0; k < n; k++)
		mine[v[k].j] = m[k];
	free(m);
	free(sorted);
	free(v);
}

/*
 * Plans the run: the named tests (--tests-from) or all in list order,
 * filtered, then this node's share (node_share: by the history's durations
 * when there is one, else round-robin by position; deterministic either
 * way; by name when the order is a drawn seed's: node_share_by_name),
 * queued in list order. Its tests' names point into nl's text,
 * which the run frees at its end. MG_EINVAL names a bad --tests-from line.
 */
int plan_build(run_ctx *c, name_list *nl, mg_err *err)
{
	int rc;
	size_t *order = NULL, norder = 0;
	if (c->o->tests_from) {
		rc = plan_tests_from(&order, &norder, nl, c->o->tests_from, err);
		if (rc < 0)
			return rc;
	} else {
		order = mg_xrealloc(NULL, (nl->n ? nl->n : 1) * sizeof(size_t));
		for (size_t i = 0; i < nl->n; i++)
			order[norder++] = i;
	}
	/* the filter first, then this node's share of what is left */
	size_t kept = 0;
	for (size_t j = 0; j < norder; j++)
		if (!c->o->filter || !fnmatch(c->o->filter, nl->names[order[j]], 0))
			order[kept++] = order[j];
	char *mine = mg_xrealloc(NULL, kept ? kept : 1);
	node_share_by_name(c, nl, order, kept, mine);
	c->tests_cap = kept ? kept : 1;
	c->tests = mg_bulk_realloc(NULL, 0, c->tests_cap * sizeof(*c->tests));
	size_t *run_of = NULL; /* a listing position's test of the run, or SIZE_MAX */
	if (nl->ndeps) {
		run_of = mg_xrealloc(NULL, nl->n * sizeof(size_t));
		memset(run_of, 0xff, nl->n * sizeof(size_t));
	}
	for (size_t j = 0; j < kept; j++) {
		size_t i = order[j];
		if (!mine[j])
			continue;
		if (run_of)
			run_of[i] = c->ntests;
		c->tests[c->ntests++] =
		    (rtest){.name = nl->names[i], .len = nl->lens[i], .exp_duration = -1};
	}
	free(mine);
	free(order);
	if (run_of)
		plan_waits_build(c, nl, run_of);
	free(run_of);
	c->q = mg_xrealloc(NULL, (c->ntests ? c->ntests : 1) * sizeof(size_t));
	c->rq = mg_xrealloc(NULL, (c->ntests ? c->ntests : 1) * sizeof(size_t));
	for (size_t i = 0; i < c->ntests; i++)
		plan_push_back(c, i);
	c->remaining = c->ntests;
	return 0;
}

/* One test of the history, for the lookup by name. */
struct hist_test {
	const char *name;
	uint64_t rise, growth;
	double duration;
	int alone;
	int clean; /* it passed or was skipped: its rise is what it needs */
};

static int hist_cmp(const void *a, const void *b)
{
	return strcmp(((const hist_test *)a)->name, ((const hist_test *)b)->name);
}

/* This run's suite name, as its shards will carry it. */
static const char *suite_of(const run_ctx *c)
{
	if (c->o->suite)
		return c->o->suite;
	if (c->o->shell)
		return "shell";
	const char *p = strrchr(c->o->host_argv[0], '/');
	return p ? p + 1 : c->o->host_argv[0];
}

/*
 * --history, first half: an earlier report of this suite (a file, or with
 * "auto" the note of the nearest noted ancestor, through auto_history),
 * held as its tests sorted by name in c->hist. A history that cannot be
 * read, or holds another suite, is one line on stderr; the run goes on
 * without it. O(n log n).
 */
void plan_history_load(run_ctx *c, run_history_fn auto_history)
{
	const char *src = c->o->history;
	report *h = NULL;
	mg_err err;
	int rc;
	if (!src)
		return;
	if (!strcmp(src, "auto"))
		rc = auto_history
		         ? auto_history(&h, ".", &err)
		         : mg_err_set(&err, MG_ERROR, "no repository access in this build");
	else
		rc = report_load(&h, src, &err);
	if (rc < 0) {
		fprintf(stderr, "memguard: history: %s; planning without it\n", err.msg);
		return;
	}
	const char *suite = suite_of(c);
	size_t n = 0, cap = 0, other = 0;
	hist_test *v = NULL;
	for (size_t s = 0; s < h->nshards; s++) {
		const report_shard *sh = &h->shards[s];
		if (!sh->suite || strcmp(sh->suite, suite)) {
			other++;
			continue;
		}
		for (size_t t = 0; t < sh->ntests; t++) {
			const report_test *x = &sh->tests[t];
			if (n == cap) {
				cap = cap ? 2 * cap : 256;
				v = mg_xrealloc(v, cap * sizeof(*v));
			}
			uint64_t start = x->va_after - (uint64_t)x->va_delta;
			uint64_t peak = report_shard_test_peak(sh, t);
			/* a failed or killed attempt may have stopped short of what
			 * it needs (an allocation that failed): its rise is a floor,
			 * never taken as all the test needs */
			v[n++] = (hist_test){x->name,
			                     peak > start ? peak - start : 0,
			                     x->va_delta > 0 ? (uint64_t)x->va_delta : 0,
			                     x->duration,
			                     x->state == TEST_MEMLIMIT,
			                     x->state == TEST_PASS || x->state == TEST_SKIP};
		}
	}
	if (!n) {
		fprintf(
		    stderr,
		    "memguard: history: %s holds no test of suite '%s'%s; planning without it\n",
		    !strcmp(src, "auto") ? "the noted report" : src, suite,
		    other ? " (another suite's)" : "");
		free(v);
		report_free(h);
		return;
	}
	qsort(v, n, sizeof(*v), hist_cmp);
	c->hist = v;
	c->nhist = n;
	c->hist_report = h;
}

static const hist_test *hist_find(const run_ctx *c, const char *name)
{
	hist_test key = {name, 0, 0, 0.0, 0, 0};
	return c->nhist ? bsearch(&key, c->hist, c->nhist, sizeof(*c->hist), hist_cmp) : NULL;
}

/*
 * --history, second half: each planned test gets what it did then: how far
 * its VA rose above its start (its VmPeak), what it kept, and whether it
 * alone broke the hard limit (those start alone in a fresh host at once).
 * Frees the history.
 */
void plan_history(run_ctx *c)
{
	if (!c->nhist)
		return;
	size_t known = 0, alone = 0;
	for (size_t i = 0; i < c->ntests; i++) {
		rtest *rt = &c->tests[i];
		const hist_test *f = hist_find(c, rt->name);
		if (!f)
			continue; /* new since: this run's own estimates */
		known++;
		rt->exp_duration = f->duration;
		rt->exp_rise = f->rise;
		rt->exp_growth = f->growth;
		rt->rise_known = (unsigned)f->clean;
		rt->hist_alone = f->alone || (c->hard.va && f->rise >= c->hard.va);
		alone += rt->hist_alone;
	}
	/* --order history: where the order does not matter, the longest first
	 * (a stable sort of the queue: equal ones keep list order, and the
	 * tests new since, unknown, come after the known ones) */
	if (c->o->order_history) {
		size_t n = 0;
		by_length *v = mg_xrealloc(NULL, (c->qlen ? c->qlen : 1) * sizeof(*v));
		while (c->qlen) {
			size_t t = plan_pop(c);
			v[n] = (by_length){c->tests[t].exp_duration, n, t};
			n++;
		}
		qsort(v, n, sizeof(*v), longest_first);
		for (size_t j = 0; j < n; j++)
			plan_push_back(c, v[j].t);
		free(v);
	}
	/* the tests that alone broke the hard limit wait for a fresh host each */
	if (alone) {
		size_t len = c->qlen;
		for (size_t j = 0; j < len; j++) {
			size_t t = plan_pop(c);
			if (c->tests[t].hist_alone)
				plan_retry_push(c, t);
			else
				plan_push_back(c, t);
		}
	}
	report_history *rh = &c->rep->history;
	rh->source = report_strdup(!strcmp(c->o->history, "auto") ? "the nearest noted ancestor"
	                                                          : c->o->history);
	rh->known = (uint32_t)known;
	for (size_t i = 0; i < c->ntests && rh->nalone < 20; i++)
		if (c->tests[i].hist_alone) {
			rh->alone = mg_xrealloc(rh->alone, (rh->nalone + 1) * sizeof(char *));
			rh->alone[rh->nalone++] = report_strndup(c->tests[i].name, c->tests[i].len);
		}
	if (!c->o->quiet)
		fprintf(stderr, "memguard: history: %zu of %zu tests known from %s%s\n", known,
		        c->ntests,
		        !strcmp(c->o->history, "auto") ? "the nearest noted ancestor"
		                                       : c->o->history,
		        alone ? "; those that alone broke the hard limit start alone" : "");
	free(c->hist);
	c->hist = NULL;
	c->nhist = 0;
	report_free(c->hist_report);
	c->hist_report = NULL;
}

/*
 * With a history, no more lanes than are worth their start: a lane's
 * start costs about what the listing did (its host's start: a program's
 * for GoogleTest, Catch2, pytest and a native host, and its shim's) in
 * CPU, which is what a machine busy on every CPU pays; going from l to
 * l + 1 lanes saves at most T / l - T / (l + 1) of wall time (T: the
 * tests' expected time). So a lane is added while that is at least a
 * start: l + 1 lanes when T >= start * l * (l + 1), one at least.
 * Measured at -j 2 against -j 1 (2 CPUs, wall and CPU in ms):
 * googletest-printers-test (tests 4 ms, listing 9) 40 and 53 against 32
 * and 33; Catch2 v3's UsageTests (26, 22) 74 and 95 against 74 and 69;
 * pytest on jsonschema (1.8 s, 0.5 s) gains from its second lane: 1.8-2.4
 * s of wall against 2.7-3.4. Not for ctest, exec and wrap, whose listing
 * is not a lane's start; not when a test starts alone (history's over the
 * hard limit: a host of its own).
 */
void plan_lanes(run_ctx *c)
{
	if (c->nlanes < 2 || c->listing_wall <= 0 ||
	    !(c->driver == DRIVER_NATIVE || c->driver == DRIVER_GTEST ||
	      c->driver == DRIVER_CATCH2 || c->driver == DRIVER_PYTEST))
		return;
	double sum = 0;
	size_t known = 0;
	for (size_t i = 0; i < c->ntests; i++) {
		if (c->tests[i].hist_alone)
			return;
		if (c->tests[i].exp_duration >= 0) {
			sum += c->tests[i].exp_duration;
			known++;
		}
	}
	if (!known)
		return;
	double total = sum + sum / (double)known * (double)(c->ntests - known);
	unsigned worth = 1;
	while (worth < c->nlanes && total >= c->listing_wall * worth * (worth + 1))
		worth++;
	if (worth == c->nlanes)
		return;
	unsigned was = c->nlanes;
	c->nlanes = worth;
	if (!c->o->quiet) {
		char t[32], s[32];
		report_format_duration(t, sizeof(t), total);
		report_format_duration(s, sizeof(s), c->listing_wall);
		fprintf(stderr,
		        "memguard: history: %u lane%s, not %u: the tests took %s, too little for "
		        "another lane to save the time its start costs (about the listing's %s)\n",
		        c->nlanes, c->nlanes == 1 ? "" : "s", was, t, s);
	}
}

/* The expected seconds of the test at queue position at (unknown: mean). */
static double share_time(const run_ctx *c, size_t at, double mean)
{
	double d = c->tests[plan_at(c, at)].exp_duration;
	return d >= 0 ? d : mean;
}

/*
 * With a history, a gtest run's first programs: the queue
 * cut into as many contiguous runs as lanes, each of about the run's
 * expected time over the lanes (a test new since counting the mean of the
 * known), not of as many tests. A lane takes its whole share in one
 * program, so shares by count leave a lane idle while the other runs the
 * slow tests that sit together in the listing (yaml-cpp's: 495 tests in
 * 20 ms in one lane, 493 in 115 ms in the other). Contiguous runs stay a
 * few name prefixes in a GoogleTest filter. Not Catch2: v3 keeps its
 * chunks (policy_depth), and a v2 program matches each of its test cases
 * against each name of its --input-file at its start, so a share of many
 * quick tests costs that lane more than its tests' time (SelfTest: 4 and
 * 252 tests, 120 and 264 ms). A share after a recycle is by count, and a
 * program of no more tests than lanes stays one program (policy_depth's + 1).
 */
void plan_shares(run_ctx *c)
{
	if (c->nlanes < 2 || c->qlen <= c->nlanes || c->driver != DRIVER_GTEST)
		return;
	double sum = 0;
	size_t nknown = 0;
	for (size_t at = 0; at < c->qlen; at++) {
		double d = c->tests[plan_at(c, at)].exp_duration;
		if (d >= 0) {
			sum += d;
			nknown++;
		}
	}
	if (!nknown)
		return;
	double mean = sum / (double)nknown, total = sum + mean * (double)(c->qlen - nknown);
	c->share_first = mg_xrealloc(NULL, c->nlanes * sizeof(size_t));
	c->share_len = mg_xrealloc(NULL, c->nlanes * sizeof(size_t));
	/* share k ends where the time so far is nearest (k + 1) / nlanes of
	 * the total: a test at least each, and one left for each share after */
	size_t at = 0;
	double sofar = 0;
	for (unsigned k = 0; k < c->nlanes; k++) {
		size_t first = at, last = c->qlen - (c->nlanes - 1 - k);
		double end = total * (double)(k + 1) / (double)c->nlanes;
		sofar += share_time(c, at++, mean);
		while (at < last &&
		       (k + 1 == c->nlanes || sofar + share_time(c, at, mean) - end <= end - sofar))
			sofar += share_time(c, at++, mean);
		c->share_first[k] = plan_at(c, first);
		c->share_len[k] = at - first;
	}
	c->nshares = c->nlanes;
}

/* The share (plan_shares) that starts at the queue's front: its tests; 0
 * when none does (no history, or the front is a recycled program's rest). */
size_t plan_share_at_front(const run_ctx *c)
{
	if (!c->nshares || !c->qlen)
		return 0;
	size_t t = plan_front(c);
	for (size_t k = 0; k < c->nshares; k++)
		if (c->share_first[k] == t)
			return c->share_len[k] <= c->qlen ? c->share_len[k] : c->qlen;
	return 0;
}

static size_t unit_root(size_t *up, size_t j)
{
	while (up[j] != j)
		j = up[j] = up[up[j]];
	return j;
}

/*
 * The units the planned tests (order[0..n)) are dealt to nodes in: unit[j],
 * numbered in order of their first test; *nunits. A test alone is a unit
 * of its own; tests joined by the listing's after and needs lines are one
 * (a fixture's setup, its users and its cleanup run on one node).
 */
static size_t *node_units(const name_list *nl, const size_t *order, size_t n, size_t *nunits)
{
	size_t *unit = mg_xrealloc(NULL, (n ? n : 1) * sizeof(size_t));
	*nunits = n;
	for (size_t j = 0; j < n; j++)
		unit[j] = j;
	if (!nl->ndeps)
		return unit;
	size_t *at = mg_xrealloc(NULL, (nl->n ? nl->n : 1) * sizeof(size_t));
	memset(at, 0xff, nl->n * sizeof(size_t));
	for (size_t j = 0; j < n; j++)
		at[order[j]] = j;
	for (size_t k = 0; k < nl->ndeps; k++) { /* unit[] is the union-find's up */
		size_t a = at[nl->deps[k].test], b = at[nl->deps[k].on];
		if (a != SIZE_MAX && b != SIZE_MAX) {
			a = unit_root(unit, a);
			b = unit_root(unit, b);
			unit[a > b ? a : b] = a < b ? a : b; /* the root: its first test */
		}
	}
	size_t *num = at; /* reused: a root's unit number */
	*nunits = 0;
	for (size_t j = 0; j < n; j++) {
		size_t r = unit_root(unit, j);
		if (r == j)
			num[j] = (*nunits)++;
		unit[j] = r; /* r <= j: numbered already */
	}
	for (size_t j = 0; j < n; j++)
		unit[j] = num[unit[j]];
	free(at);
	return unit;
}

/*
 * This node's share of the planned tests (order[0..n), indices into nl),
 * dealt by units (node_units: tests that wait for one another go
 * together): with a history, the units are dealt longest first to the node
 * with the least time so far (ties to the lowest node), a test new since
 * counting the mean of the known; every node computes the same split from
 * the same history. Without one, round-robin by position. mine[j] is set
 * for the tests of this node; *expected: this node's total by the history.
 */
static void node_share(const run_ctx *c, name_list *nl, const size_t *order, size_t n, char *mine,
                       double *expected)
{
	uint32_t nodes = c->o->node_total, me = c->o->node_index - 1;
	size_t nunits, *unit = node_units(nl, order, n, &nunits);
	*expected = 0;
	if (!c->nhist || nodes < 2) {
		for (size_t j = 0; j < n; j++)
			mine[j] = unit[j] % nodes == me;
		free(unit);
		return;
	}
	double *dur = mg_xrealloc(NULL, (n ? n : 1) * sizeof(double)), sum = 0;
	size_t nknown = 0;
	for (size_t j = 0; j < n; j++) {
		const hist_test *f = hist_find(c, nl->names[order[j]]);
		dur[j] = f ? f->duration : -1;
		if (f) {
			sum += f->duration;
			nknown++;
		}
	}
	/* a unit's length: its tests', longest first; equal ones in list order */
	by_length *v = mg_xrealloc(NULL, (nunits ? nunits : 1) * sizeof(*v));
	for (size_t u = 0; u < nunits; u++)
		v[u] = (by_length){0, u, u};
	for (size_t j = 0; j < n; j++)
		v[unit[j]].d += dur[j] < 0 ? (nknown ? sum / (double)nknown : 0) : dur[j];
	qsort(v, nunits, sizeof(*v), longest_first);
	double *load = calloc(nodes, sizeof(double));
	uint32_t *node_of = mg_xrealloc(NULL, (nunits ? nunits : 1) * sizeof(uint32_t));
	for (size_t k = 0; k < nunits; k++) {
		uint32_t best = 0;
		for (uint32_t i = 1; i < nodes; i++)
			if (load[i] < load[best])
				best = i;
		load[best] += v[k].d;
		node_of[v[k].t] = best;
	}
	for (size_t j = 0; j < n; j++)
		mine[j] = node_of[unit[j]] == me;
	*expected = load[me];
	free(node_of);
	free(load);
	free(v);
	free(dur);
	free(unit);
}

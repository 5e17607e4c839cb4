/*
 * bisect.h - "memguard bisect": names the test (or the few tests) that, run
 * earlier in the same host, make a later test crash or be killed. Subsets
 * are re-run in fresh hosts by this executable's own "memguard run
 * --tests-from FILE -j 1", and each run's report says whether the target
 * failed again.
 */
#ifndef MG_BISECT_H
#define MG_BISECT_H

#include <stddef.h>
#include <stdint.h>

#include "mg_err.h"
#include "mg_exit.h"
#include "report.h"

/*
 * The question asked of each run: with the candidates idx[0..n) (ascending
 * indices, run in that order) and then the target, in one fresh host, does
 * the target fail as it did? 1 yes, 0 no, negative: an infrastructure error
 * that ends the search (the oracle has said why).
 */
typedef int (*bisect_oracle)(void *ctx, const size_t *idx, size_t n);

#define BISECT_MAX_CULPRITS 8

typedef struct bisect_result {
	int reproduced; /* the target failed with all the candidates before it */
	int alone;      /* ... and also alone in a fresh host */
	size_t culprits[BISECT_MAX_CULPRITS]; /* ascending candidate indices */
	size_t nculprits;
	int cumulative; /* more than BISECT_MAX_CULPRITS tests are needed (the
	                   BISECT_MAX_CULPRITS found alone do not fail) */
	size_t prefix;  /* the smallest failing prefix of the candidates */
	unsigned runs;  /* oracle calls made */
} bisect_result;

/*
 * Delta debugging over ncand candidates: checks that all of them make the
 * target fail and that the target alone does not; then finds by halving the
 * smallest prefix that still fails: its last test is needed. With the needed
 * tests kept, it repeats on the tests before the last one found until the
 * needed tests alone make the target fail (not asked again when that set is
 * already known to fail). Assumes that adding tests never hides the failure
 * (monotone). O(culprits * log ncand) runs.
 * Returns 0 (out says what was found) or the oracle's negative code.
 */
int bisect_search(bisect_result *out, size_t ncand, bisect_oracle fn, void *ctx);

/* What to re-run, read from a report (or from a host's test list). */
typedef struct bisect_plan {
	char **names;       /* the candidates in run order, then the target; owned */
	size_t n;           /* candidates + 1 */
	report_end failure; /* how the target's host ended: crash, kill, timeout,
	                       error; REPORT_END_RUNNING: any of them */
	char *shard;        /* "0" or "node.index"; NULL without a report */
	long generation;    /* -1 without a report */
} bisect_plan;

/*
 * Picks from r the shard (shard "N" or "NODE.N"), the host generation and the
 * test it was running; the candidates are the tests that host ran before it,
 * in report order.
 * - target NULL: the generation given (-1: the first host that crashed or was
 *   killed; without shard, preferring a shard whose host G ended so), and its
 *   test: the one that crashed, or the one retried after the kill (retries
 *   share one queue: the retry may be in another lane's shard of the same
 *   run; kills and retries are paired first killed, first retried).
 * - target given: its own host (for a retry, the host it was killed in), or
 *   host G when generation >= 0; only the tests before its record count.
 * MG_EINVAL with a message when the report does not say.
 */
int bisect_plan_from_report(bisect_plan *out, const report *r, const char *shard, long generation,
                            const char *target, mg_err *err);
void bisect_plan_free(bisect_plan *p);
/* Appends a copy of name to p's tests (aborts when out of memory). */
void bisect_plan_add(bisect_plan *p, const char *name);

/* memguard bisect [options] [run options] -- HOST...; returns the exit code. */
int bisect_main(int argc, char **argv);

#endif

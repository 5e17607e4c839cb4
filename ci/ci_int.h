/*
 * ci_int.h - what the files of ci/ share: option scanning, the notes store
 * (store.c), growth thresholds (growth.c) and one entry point per command.
 * Not installed; nothing outside ci/ includes it.
 */
#ifndef MG_CI_INT_H
#define MG_CI_INT_H

#include <git2.h>
#include <stdint.h>
#include <stdio.h>

#include "ci.h"
#include "mg_err.h"
#include "report.h"

#include <jansson.h>

/* ci/'s own files call libgit2 through the table it is loaded into */
#ifdef MG_CI_LAZY_GIT
#include "git_lazy.h"
#endif

/* ---- ci.c: options, messages, shared report summaries ---- */

/* Prints "memguard CMD: message" to stderr and returns code. */
int ci_fail(const char *cmd, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "memguard CMD: unknown option 'ARG'", with the closest option CMD's help
 * names ("; did you mean '--max-growth'?"); returns MG_EXIT_USAGE. */
int ci_unknown_option(const char *cmd, const char *arg);
/* 1 if argv[*i] is -h or --help. */
int ci_is_help(const char *arg);
/*
 * Matches option name (long "--ref", or short "-n") at argv[*i], in the
 * forms "--ref X", "--ref=X", "-n X", "-nX". Returns 1 and sets *val
 * (advancing *i past a separate value), 0 when argv[*i] is another
 * argument, or MG_EXIT_USAGE negated (-2) after printing a message when
 * the value is missing.
 */
int ci_opt(const char *cmd, int argc, char **argv, int *i, const char *name, const char **val);
/* Prints "usage: ..." text of cmd to stdout (for -h) or stderr. */
int ci_cmd_usage(const char *cmd, FILE *to, int code);

/* "pass", "fail" or "interrupted", from the model's totals (report.totals). */
const char *ci_result(int interrupted, const report_totals *t);

/* A suite as the table and the trend page group shards: by arch and suite
 * name ("?" where the report has none). The strings are the report's. */
typedef struct ci_suite {
	const char *arch, *suite;
} ci_suite;

/* Whether shard s belongs to suite k. */
int ci_suite_has(const ci_suite *k, const report_shard *s);
/*
 * Appends to the array *v (*n of them, room for *cap; malloc'd, grown here)
 * the suites of r's shards it does not hold yet, in order of first
 * appearance; keep, when not NULL, may refuse one (ctx is its). Aborts when
 * out of memory. O(shards x suites).
 */
void ci_suites_add(ci_suite **v, size_t *n, size_t *cap, const report *r,
                   int (*keep)(const report *r, const ci_suite *k, void *ctx), void *ctx);
/* Sums suite k's shards of r into *t (zeroed first) and *wall (the longest:
 * lanes run side by side); 1 when r has the suite, 0 when not. */
int ci_suite_sum(const report *r, const ci_suite *k, report_totals *t, double *wall);

/* ---- store.c: the notes ref, read and written through libgit2 ---- */

/* A ref update lost a race with another writer: re-read and retry. */
#define STORE_ERACE (-20)
/* Another writer held the ref's lock file (GIT_ELOCKED): re-read and retry. */
#define STORE_ELOCKED (-21)

/*
 * Bounded backoff between retries of a ref update: delays from 1 ms doubling
 * to 100 ms, each a random part of the current step (seeded per process, so
 * two writers started together drift apart), until about 2 s have been slept.
 */
typedef struct store_backoff {
	uint64_t seed;
	long step_us, slept_us;
	int tries;
} store_backoff;
void store_backoff_init(store_backoff *b);
/* Counts a failed try and sleeps; 0 once the budget is spent (no sleep). */
int store_backoff_wait(store_backoff *b);
/* The giving up of cmd after the retries of b on ref, last: STORE_ELOCKED
 * (the lock stayed busy) or STORE_ERACE (the ref kept moving); exit 3. */
int store_backoff_fail(const char *cmd, const char *ref, int last, const store_backoff *b);

typedef struct note_entry {
	git_oid target; /* the annotated object (a commit) */
	git_oid blob;   /* the note's content */
} note_entry;

/* An entry of a notes tree that is not a note (a README, say): git keeps
 * such entries, and so does every notes tree memguard writes. */
typedef struct notes_other {
	char *path; /* "README", or "ab/README" inside a fanout directory */
	git_oid id;
	git_filemode_t mode;
} notes_other;

/* All notes of one notes commit, sorted by target. */
typedef struct notes {
	git_oid commit; /* the notes commit they were read from */
	int exists;     /* 0: the ref does not exist yet (no notes) */
	note_entry *v;
	size_t n, cap;
	notes_other *other; /* entries that are not notes, kept as they are */
	size_t nother;
} notes;

typedef struct store {
	git_repository *repo;
	char ref[256]; /* full name, "refs/notes/memguard" */
} store;

/*
 * Opens the repository containing the current directory and resolves the
 * notes ref: ref_opt, else $MEMGUARD_NOTES_REF, else CI_NOTES_REF; a name
 * without "refs/" gets "refs/notes/" in front (as git notes --ref does).
 * MG_ENOTFOUND when not in a repository.
 */
int store_open(store *s, const char *ref_opt, mg_err *err);
void store_close(store *s);
/* Full ref name of name into buf ("memguard" -> "refs/notes/memguard"). */
void store_ref_name(char *buf, size_t size, const char *name);
/* The revision rev peeled to a commit. MG_ENOTFOUND naming rev. */
int store_resolve(git_oid *out, store *s, const char *rev, mg_err *err);
/* Short (7 hex) form of oid. */
const char *store_short(char buf[16], const git_oid *oid);
/* Sets err from libgit2's last error: "what: message". Returns MG_ERROR. */
int store_git_fail(mg_err *err, const char *what);

/*
 * Reads every note of ref in one pass over its tree (fanout or flat), so a
 * lookup costs a binary search and no object reads. A missing ref gives an
 * empty set with exists = 0. O(notes log notes). Entries whose path is not
 * a 40-hex object id go to other (git keeps them; so does store_commit).
 */
int notes_load(notes *out, git_repository *repo, const char *ref, mg_err *err);
/* The same from a notes commit given by oid. */
int notes_load_commit(notes *out, git_repository *repo, const git_oid *commit, mg_err *err);
/* NULL when target has no note. */
const note_entry *notes_find(const notes *n, const git_oid *target);
/* Inserts or replaces the note of target; keeps the set sorted. */
void notes_set(notes *n, const git_oid *target, const git_oid *blob);
/* Adds the non-note entries of from that into lacks; for a path both have,
 * the smaller object id wins (the same result whichever side is into). */
void notes_merge_other(notes *into, const notes *from);
void notes_free(notes *n);

/*
 * Parses the note blob of target as a report. MG_EINVAL, with a message
 * naming the commit, when it is not JSON or not a memguard report.
 */
/* The "schema" of the note in blob when it is a JSON object with one, into
 * buf (cut at size); "" when it has none or cannot be read. */
void store_note_schema(git_repository *repo, const git_oid *blob, char *buf, size_t size);
int store_read(report **out, git_repository *repo, const git_oid *blob, const git_oid *target,
               mg_err *err);
/* store_read through report_parse_tests: no shard keeps its tests, each is
 * given to fn (NULL: dropped). */
int store_read_tests(report **out, git_repository *repo, const git_oid *blob, const git_oid *target,
                     report_test_fn fn, void *ctx, mg_err *err);
/*
 * store_read for a note that report_merge(*out, from) will be given: the
 * tests of the shards that merge replaces are checked but not kept (read
 * twice: once for the shards' keys, once for the tests kept), so a re-note
 * holds the new report and what the merge keeps of the old, not both whole.
 */
int store_read_merging(report **out, git_repository *repo, const git_oid *blob,
                       const git_oid *target, const report *from, mg_err *err);
/* Reads the note of target in ref: MG_ENOTFOUND when there is none. */
int store_read_note(report **out, store *s, const notes *n, const git_oid *target, mg_err *err);
/* store_read_note through report_parse_tests: no shard keeps its tests, each
 * is given to fn (NULL: dropped). */
int store_read_note_tests(report **out, store *s, const notes *n, const git_oid *target,
                          report_test_fn fn, void *ctx, mg_err *err);
/* Writes r as a compact JSON blob (shards in key order). */
int store_write_blob(git_oid *out, git_repository *repo, const report *r, mg_err *err);
/*
 * Writes a notes tree holding exactly the notes n (flat layout, which git
 * and libgit2 both read) and its non-note entries at their paths, a notes commit with message and
 * parents, and moves ref to it if ref still points at expect (NULL: ref must not exist yet).
 * STORE_ERACE when another writer moved it first, STORE_ELOCKED when another
 * writer held its lock.
 */
int store_commit(git_oid *out, store *s, const notes *n, const git_oid *parents, size_t nparents,
                 const git_oid *expect, const char *message, mg_err *err);
/*
 * The keyed merge of two notes of target, independent of which side is
 * which: the two reports are ordered by their bytes, the second merged
 * into the first (report_merge), shards sorted by key. Two clones that
 * merge each other's notes therefore write the same blob. When a side is
 * not a memguard report, *out is the side that is (both corrupt: the first
 * by bytes), err says why, and the return is STORE_CORRUPT.
 */
#define STORE_CORRUPT 1
int store_merge_blobs(git_oid *out, git_repository *repo, const git_oid *target, const git_oid *a,
                      const git_oid *b, mg_err *err);
/* Sorts shards by key (report_shard_cmp) and finishes the report again
 * (totals, REPORT_MAX_SUSPECTS suspects). */
void store_canonical(report *r);
/* Drops captured test output and (unless keep_timeline) the timelines. */
void store_strip(report *r, int keep_timeline);

/* ---- logcache.c: log's per-note totals, cached by blob id ---- */

typedef struct logcache logcache;
/* Loads GITDIR/memguard/log-cache.json; an empty cache when it cannot. */
logcache *logcache_open(git_repository *repo);
/* 1 and the totals when blob is cached, else 0. */
/* suites: [[arch, suite, peak VA], ...] of the note, one per (arch, suite)
 * (get: a new reference the caller releases; put: not taken). */
int logcache_get(logcache *c, const git_oid *blob, report_totals *t, int *interrupted,
                 json_t **suites);
void logcache_put(logcache *c, const git_oid *blob, const report_totals *t, int interrupted,
                  json_t *suites);
/* Writes the cache if it changed, keeping only the blobs of n. Best effort. */
void logcache_save(logcache *c, const notes *n);
/* NULL is a no-op. */
void logcache_free(logcache *c);

/* ---- log_html.c: log --format html ---- */

/* One commit of the trend: its note parsed whole (the page needs every suite). */
typedef struct log_commit {
	git_oid commit;
	git_time_t when;
	char summary[160];  /* the first line of the commit message */
	const char *result; /* ci_result's, static */
	report *r;
} log_commit;

/*
 * Writes the trend page of v (newest first, n commits) to f: per (arch,
 * suite) an SVG chart of peak VA and RSS per commit with recycles and kills
 * marked, or, with test, that test's retained VA/RSS and duration; every
 * point links to the commit's section (id "c-SHORTSHA"). Self-contained: no
 * script and no reference to anything outside the page. O(n x shards x tests).
 */
void log_html_write(FILE *f, const log_commit *v, size_t n, const char *ref, const char *test);

/* ---- growth.c: --max-growth thresholds ---- */

typedef enum growth_metric {
	GROWTH_VA,  /* peak VA: of one lane (judged for one lane), of a process-per-test test */
	GROWTH_RSS, /* peak RSS of one lane (judged for one lane) */
	GROWTH_RECYCLES, /* recycles of one lane (judged for one lane) */
	GROWTH_TEST,     /* VA and RSS a test left behind (a process of its own: its peak VA) */
	GROWTH_RISE,     /* how far a test's VA rose above its start; a suite's largest */
	GROWTH_RETAINED, /* VA a suite's tests left behind, summed */
	GROWTH_COUNT
} growth_metric;

typedef struct growth_limits {
	int has_pct[GROWTH_COUNT];
	double pct[GROWTH_COUNT]; /* relative limit, percent of base */
	int has_abs[GROWTH_COUNT];
	uint64_t abs[GROWTH_COUNT]; /* absolute limit: bytes, or a count for recycles */
} growth_limits;

/* "va", "rss", "recycles", "test", "rise", "retained". */
const char *growth_metric_name(growth_metric m);
/* The limits used when --max-growth is not given. */
void growth_defaults(growth_limits *out);
/*
 * Parses "va=5%,rss=64M,test=8M,va=1G": each token is METRIC=N% or
 * METRIC=SIZE (limits_parse_size: K/M/G/T and KiB.. are powers of 1024,
 * KB/MB/GB/TB powers of 1000); a metric may carry one of each. "none" sets no limit.
 * MG_EINVAL naming the token.
 */
int growth_parse(growth_limits *out, const char *spec, mg_err *err);
/*
 * 1 when head grew beyond a limit of m over base (relative limits only
 * apply when base > 0); why then says which limit, e.g. "+7.1% > 5%".
 */
int growth_exceeded(const growth_limits *l, growth_metric m, int64_t base, int64_t head, char *why,
                    size_t whysize);

/* ---- one file per command ---- */
int note_main(int argc, char **argv);
int notes_merge_main(int argc, char **argv);
int show_main(int argc, char **argv);
int compare_main(int argc, char **argv);
/* compare --table (compare_table.c): compare_main hands over when it sees --table. */
int compare_table_main(int argc, char **argv);
int log_main(int argc, char **argv);
int merge_main(int argc, char **argv);

#endif

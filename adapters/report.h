/*
 * report.h - the run report: the one model every adapter renders from, and
 * its JSON form ("schema": "memguard-report/2", see report.schema.json).
 * The runner builds it; adapters and ci only read it. Strings are owned by
 * the report (copied in) and freed with it.
 */
#ifndef MG_REPORT_H
#define MG_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mg_err.h"

/* What report_save writes; report_load reads it and /1 (the layout before
 * the compact tests of /2). */
#define REPORT_SCHEMA    "memguard-report/2"
#define REPORT_SCHEMA_V1 "memguard-report/1"

typedef enum test_state {
	TEST_PASS,
	TEST_FAIL,
	TEST_SKIP,
	TEST_CRASH,
	TEST_TIMEOUT,
	TEST_MEMLIMIT, /* "memory-limit": broke the hard limit alone in a fresh host */
	TEST_ERROR,    /* protocol or infrastructure */
	TEST_NOTRUN,   /* only in an interrupted run's partial report */
	TEST_STATE_COUNT
} test_state;

/* "pass", "fail", "skip", "crash", "timeout", "memory-limit", "error", "not-run". */
const char *report_state_name(test_state s);
/* The inverse; -1 for an unknown name. */
int report_state_parse(const char *name);
/* 1 when a test that ended in s failed: fail, crash, timeout, memory-limit,
 * error. pass is not, and neither are skip and not-run (the "other" tests).
 * The one definition every adapter and ci counts "failed" by. */
int report_state_failed(test_state s);

/* How a host ended: a generation's "end" in the report. The runner's
 * host_end is this enum (runner/lane.h). */
typedef enum report_end {
	REPORT_END_RUNNING,     /* "running": not ended (or not decided yet); "" in
	                         * reports written before this enum */
	REPORT_END_QUIT,        /* "quit": said bye, no tests left */
	REPORT_END_RECYCLE,     /* "recycle": ended at a test boundary (a soft limit, or a
	                         * retry waits) */
	REPORT_END_KILL,        /* "kill": killed at a hard limit (or died near one) */
	REPORT_END_TIMEOUT,     /* "timeout": killed, a test took too long */
	REPORT_END_ERROR,       /* "error": killed, a protocol error or a failed start */
	REPORT_END_CRASH,       /* "crash": died during a test */
	REPORT_END_EXIT,        /* "exit": exited between tests or before its first */
	REPORT_END_INTERRUPTED, /* "interrupted": ended with the run (a signal, the
	                         * deadline, the end) */
	REPORT_END_COUNT
} report_end;

/* "running", "quit", "recycle", "kill", "timeout", "error", "crash", "exit",
 * "interrupted"; "unknown" for a value out of range. */
const char *report_end_name(report_end e);
/* The inverse ("" is running, as older reports wrote it); -1 for an unknown
 * name. */
int report_end_parse(const char *name);
/* 1 when a host that ended so took its test down with it: crash, kill,
 * timeout, error (what bisect looks for). */
int report_end_abnormal(report_end e);

/* The exit code of a command that could not read a report file (rc from
 * report_load): 2 (usage) when no file is there (a path that names
 * nothing), 3 (infrastructure) for every other reason: a corrupt,
 * truncated or foreign report, a file that cannot be read. One rule for
 * every command that reads a report file (report, compare, merge, note,
 * bisect; README "Exit codes"). */
int report_load_exit(int rc);

/*
 * Bytes that may hold NUL: a test's output is what the test wrote, and a
 * NUL in it is kept (the JSON form writes \u0000; outputs that cannot hold
 * it show it as \x00), never a silent cut. data[len] is a NUL after them,
 * so text with none reads as a string.
 */
typedef struct report_bytes {
	size_t len;
	char data[];
} report_bytes;

/* A malloc'd copy of len bytes at p (aborts when out of memory); free()
 * frees it. */
report_bytes *report_bytes_new(const char *p, size_t len);

/* The most suspects a report keeps: in a run, after a merge and in a note. */
#define REPORT_MAX_SUSPECTS 20

/*
 * One test: 64 bytes (a million tests are 61 MiB, names apart), so the
 * figures a few tests have live elsewhere: the VA peak in the shard's sparse
 * table (report_shard_test_peak), and state, attempts and generation share
 * one 32-bit word. report_test is built in place by the runner and by
 * report_parse and read field by field by adapters and ci.
 */
typedef struct report_test {
	char *name;           /* "suite/test"; any byte but NUL */
	char *message;        /* fail/skip message, crash signal, error reason; NULL: none */
	report_bytes *output; /* captured stdout+stderr, bounded, any byte (NUL too); NULL: none */
	uint64_t va_after;    /* bytes, sampled right after the test; 0: unknown */
	uint64_t rss_after;
	int64_t va_delta; /* VA left behind: after minus before */
	int64_t rss_delta;
	/* seconds: a float holds 24 bits, so microseconds exactly up to 16 s
	 * and within 0.25 ms at an hour; the JSON form writes the float's
	 * shortest digits */
	float duration;
	unsigned state : 3;    /* a test_state (TEST_STATE_COUNT is at most 8) */
	unsigned attempts : 4; /* 1, or 2 when it was retried in a fresh host; at most 15 */
	/* its first attempt failed near the memory ceiling; attempts says it ran again */
	unsigned near_ceiling : 1;
	unsigned generation : 24; /* the host generation that ran it last; at most
	                           * REPORT_MAX_GENERATION (the runner saturates there) */
} report_test;

/* The highest generation a test records and a report may hold: 2^24 - 1. */
#define REPORT_MAX_GENERATION 16777215u
/* The mark of a test whose first attempt failed near the memory ceiling
 * (report_test.near_ceiling), as every output words it. */
#define REPORT_NEAR_CEILING "failed near the memory ceiling"
/* The skip message of a GoogleTest test its global environment's set-up
 * skipped (the gtest driver's): GoogleTest's own XML says it completed,
 * and so does the file written in its shape (junit_framework_render). */
#define REPORT_ENV_SKIPPED "skipped by a global environment's set-up (GoogleTest counts it passed)"
/* The skip text of a test a fail-fast kept from running (driver_fail_fast_why's
 * start): ctest's --stop-on-failure and Catch2's -a/-x leave such a test out
 * of their JUnit file, so the file memguard writes in their shape does. */
#define REPORT_FAIL_FAST_CTEST  "not run: ctest stops at the first failure"
#define REPORT_FAIL_FAST_CATCH2 "not run: Catch2 aborted the run after its failure"

/* The most attempts a test records and a report may hold. */
#define REPORT_MAX_ATTEMPTS 15u

/* A test's VA peak, kept sparse (most tests have none): test index and the
 * peak in bytes, ascending by index. Use report_shard_test_peak. */
typedef struct report_peak {
	size_t test;
	uint64_t va_peak;
} report_peak;

/*
 * Allocation sites (issue 25): for a test that left memory behind, who
 * allocated what is still live, grouped by stack. Kept sparse like the VA
 * peaks (few tests have any): report_shard_test_sites.
 */
/* One frame of a site's stack; every field may be unknown (NULL or 0). */
typedef struct report_frame {
	char *function;  /* "block_new"; NULL: not symbolized */
	char *file;      /* "src/storage.c" */
	uint32_t line;   /* 0: unknown */
	char *module;    /* "/usr/lib/libitems.so" */
	char *build_id;  /* hex */
	uint64_t offset; /* in the module: the address minus its load bias (an ELF address) */
} report_frame;

/* Live allocations made during a test from one stack; or (items > 0) a
 * held block: one an earlier test allocated, kept mapped by live items
 * this test placed in it (the pinning API). */
typedef struct report_site {
	char *kind;           /* "mmap", "malloc", "new", ...: what allocated (any word) */
	uint64_t bytes;       /* still live at the test's end, summed */
	uint64_t count;       /* allocations (a held block: 1) */
	report_frame *frames; /* innermost first */
	size_t nframes;
	char **pins; /* items that pin it (the host library's pinning API) */
	size_t npins;
	uint64_t items;   /* a held block: the test's live items in it; 0: not a held block */
	char *in;         /* a held block: the test that allocated it; NULL: not known */
	report_frame *by; /* a held block: where the first of the items was placed */
	size_t nby;
} report_site;

/* The sites of test `test` of a shard, in the order recorded (outputs show
 * the largest: report_test_sites_top). */
typedef struct report_test_sites {
	size_t test;
	report_site *sites;
	size_t nsites;
} report_test_sites;

/* One category of a memory breakdown (issue: diagnosis). */
typedef struct report_category {
	char *name; /* "heap", "anon", "stack", "shm", "file", "code", "reserved" */
	uint64_t va;
	uint64_t rss; /* 0 when not measured */
} report_category;

/* A group of same-named, same-sized mappings: "525 x 8 MiB /memfd:blocks". */
typedef struct report_group {
	char *name;
	uint64_t count;
	uint64_t size; /* of one mapping */
	uint64_t total;
} report_group;

typedef struct report_breakdown {
	char *when; /* "recycle", "kill", "peak" */
	uint64_t va;
	uint64_t largest_gap;
	report_category *categories;
	size_t ncategories;
	report_group *groups;
	size_t ngroups;
} report_breakdown;

typedef struct report_generation {
	uint32_t index; /* 0, 1, 2, ... within the shard */
	long pid;
	uint32_t tests_run;
	uint64_t peak_va; /* VmPeak of the host, or the highest sample */
	uint64_t peak_rss;
	report_end end;               /* how it ended */
	char *reason;                 /* "va 3.51 GiB >= recycle 3.50 GiB"; NULL: none */
	char *warning;                /* a soft limit crossed where the driver cannot recycle
	                               * (exec, wrap): "rss 6.1 GiB >= recycle 6.0 GiB"; NULL: none */
	char *last_output;            /* a gtest/catch2 program that died before its first test:
	                               * how it ended and its stderr's last 2 KiB (the reason has
	                               * its last line only); NULL: none */
	double start;                 /* seconds since the run started */
	double wall;                  /* seconds */
	report_breakdown *breakdowns; /* at recycle, kill or peak; may be empty */
	size_t nbreakdowns;
} report_generation;

typedef struct report_point {
	double t;    /* seconds since the run started */
	uint64_t va; /* the highest VA of the interval this point stands for */
	uint64_t rss;
	uint32_t generation;
} report_point;

/* Limits in bytes (0: none): what limits_format's text shows, as numbers. */
typedef struct report_limits {
	uint64_t va, rss, cgroup, gap;
} report_limits;

/* A test whose VA rose more than its history said (memguard run --history). */
typedef struct report_history_test {
	char *name;
	uint64_t then, now; /* how far its VA rose above its start, bytes */
} report_history_test;

/* What planning from history changed; source NULL: the run had none. */
typedef struct report_history {
	char *source;     /* the report file, or "the nearest noted ancestor" */
	uint32_t known;   /* tests it knew */
	uint32_t avoided; /* recycles before a test that would not have fit by its history (kills
	                     avoided) */
	char **alone;     /* started alone: they alone broke the hard limit last time */
	size_t nalone;
	report_history_test *grew; /* the largest rises against it, most first (at most 10) */
	size_t ngrew;
} report_history;

typedef struct report_shard {
	uint32_t node;     /* 1-based CI node that ran it (report.node_index when run) */
	double start_time; /* unix seconds: when the run that made it started; 0: unknown */
	uint32_t index;    /* lane number on this node */
	char *suite;       /* what was run: basename of the host, or --suite */
	char *arch;        /* "x86", "x64" */
	char *driver;      /* "native", "gtest", "exec", "wrap" */
	char *command;     /* the host command line, shell-quoted for display */
	/* why its tests' figures are approximate: read from outside the program,
	 * at or after each test's end, not at its boundary (a GoogleTest or
	 * Catch2 program the probe cannot enter: "a static executable ...");
	 * NULL: read at each boundary */
	char *approximate;
	uint64_t counts[TEST_STATE_COUNT];
	uint64_t peak_va;
	uint64_t peak_rss;
	uint64_t rss_soft, rss_hard; /* this lane's share of an rss budget, bytes; 0: none */
	uint32_t recycles;
	uint32_t kills;
	double wall;
	double user; /* CPU seconds of all its hosts */
	double sys;
	report_generation *gens;
	size_t ngens;
	report_test *tests;
	size_t ntests;
	size_t tests_cap; /* tests has room for: an mg_bulk block (report_shard_tests_alloc) */
	/* VmPeak of the tests whose VA peak rose during them (tests of 1 ms or
	 * more), by ascending test index: report_shard_test_peak and _set */
	report_peak *peaks;
	size_t npeaks;
	/* allocation sites of the tests that have any, by ascending test
	 * index: report_shard_test_sites and _add_test_sites */
	report_test_sites *sites;
	size_t nsites;
	report_point *timeline; /* downsampled, bounded */
	size_t ntimeline;
	/* Its tests' names packed in these blocks (report_parse, and the
	 * runner's record_test: report_names_add), not one malloc each. A name
	 * inside a block is not freed on its own; any other (one set later) is. */
	struct report_names *names;
} report_shard;

/* What shards add up to: a report's totals (report.totals), or a subset's
 * (report_totals_add). Sums saturate at UINT64_MAX. */
typedef struct report_totals {
	uint64_t counts[TEST_STATE_COUNT]; /* tests by state */
	uint64_t tests;                    /* all states */
	uint64_t failed;                   /* states that are failures (report_state_failed) */
	uint64_t other;                    /* neither passed nor failed: skip, not-run */
	uint64_t peak_va;                  /* highest of the shards */
	uint64_t peak_rss;                 /* highest of the shards */
	uint64_t recycles;                 /* summed */
	uint64_t kills;                    /* summed */
} report_totals;

/* A test that left memory behind, ranked (derived from the tests). */
typedef struct report_suspect {
	char *name;
	int64_t va_retained; /* summed over its runs */
	int64_t rss_retained;
	uint32_t grew; /* runs in which VA grew */
	uint32_t runs;
	int alone_over_hard; /* ended memory-limit */
} report_suspect;

typedef struct report {
	char *tool_version;
	/* commit identity; sha NULL when not run in a repository */
	char *sha;
	char *branch; /* NULL for a detached HEAD with no CI ref */
	int dirty;
	char *repo_note;     /* "not a git repository" etc.; NULL when sha is set */
	uint32_t node_index; /* 1-based */
	uint32_t node_total;
	/* the nodes a merge holds reports of, ascending; NULL/0: not recorded
	 * (a single node's run). report_merge keeps the union. */
	uint32_t *nodes_present;
	size_t nnodes_present;
	char *limits_soft; /* as limits_format writes them */
	char *limits_hard;
	report_limits soft, hard; /* the same in bytes (rss: the whole budget) */
	int has_limit_bytes;      /* 0 in a report from before they were written */
	double expected_wall; /* this node's seconds by the history it was planned from; 0: none */
	report_history history;
	double start_time; /* unix seconds */
	double wall;
	int interrupted;
	int exit_code;
	/* what kept every process of the run from outliving it: "pid-namespace",
	 * "user-namespace", "reaper", "process-group"; NULL: not said (older
	 * reports) */
	char *containment;
	/* the seed every program of the run had, as the option that gives it:
	 * GoogleTest's shuffle seed, the user's or the one memguard drew
	 * ("--gtest_random_seed=7"; the framework file's random_seed), Catch2's
	 * when memguard drew it ("--rng-seed 7"); NULL: none */
	char *seed;
	report_shard *shards;
	size_t nshards;
	report_suspect *suspects; /* top-N, most VA retained first */
	size_t nsuspects;
	report_totals totals; /* of every shard: set by report_finish and report_from_json */
} report;

/* An empty report with tool_version set. NULL on out of memory. */
report *report_new(void);
/* NULL is a no-op. */
void report_free(report *r);

/* strdup that accepts NULL (returns NULL) and aborts on out of memory. */
char *report_strdup(const char *s);
/* Same for len bytes (the result is NUL-terminated). */
char *report_strndup(const char *s, size_t len);
/* Names packed in blocks that double from 4 KiB to 1 MiB (a shard's test
 * names, the runner's listing): a copy of s (len bytes, NUL-terminated) in
 * *list's blocks, and the blocks freed at once. */
typedef struct report_names report_names;
char *report_names_add(report_names **list, const char *s, size_t len);
void report_names_free(report_names *list);

/* The shard's recycles and kills, counted from its generations' ends: the
 * one place they are counted. */
void report_shard_count_ends(report_shard *s);

/* Appends a zeroed element (a test starts with attempts 1); the returned
 * pointer is valid until the next append to the same array. Abort on out of
 * memory. Arrays must only be grown by these functions (they keep room for
 * the next power of two). */
report_shard *report_add_shard(report *r);
report_test *report_shard_add_test(report_shard *s);
/* Room for n tests in all (s->tests_cap), those past s->ntests zeroed. */
void report_shard_tests_alloc(report_shard *s, size_t n);
/* Test i's VA peak (VmPeak when it rose during the test); 0: unknown.
 * O(log peaks). */
uint64_t report_shard_test_peak(const report_shard *s, size_t i);
/* Sets test i's VA peak (0: unknown, removes it). O(1) for the last test
 * or a later one than any with a peak, O(peaks) otherwise. Abort on out of memory. */
void report_shard_set_test_peak(report_shard *s, size_t i, uint64_t va_peak);
/* Test i's allocation sites; NULL: none. O(log tests with sites). */
const report_test_sites *report_shard_test_sites(const report_shard *s, size_t i);
/* Test i's entry in the sites table, added (empty) when it has none: the
 * returned pointer is valid until the next add to the same shard. O(1) for
 * a later test than any with sites, O(tests with sites) otherwise. Abort on
 * out of memory. */
report_test_sites *report_shard_add_test_sites(report_shard *s, size_t i);
/* Appends a zeroed site / frame; the strings are set by the caller (owned by
 * the report: malloc'd, e.g. report_strdup). */
report_site *report_test_sites_add(report_test_sites *ts);
report_frame *report_site_add_frame(report_site *site);
report_frame *report_site_add_by(report_site *site);
/* Appends a copy of pin to site's pins. */
void report_site_add_pin(report_site *site, const char *pin);

/* The sites recorded for the test named name, in any shard: those of its
 * run whose sites hold the most bytes (the first such); NULL: none, or name
 * NULL. *shard (may be NULL) gets that run's shard. O(tests with sites). */
const report_test_sites *report_find_test_sites(const report *r, const char *name,
                                                const report_shard **shard);

/* d becomes a deep copy of s (s NULL: empty); _clear frees what ts holds
 * and empties it. For a reader that keeps a test's sites past its
 * report_test_fn call. */
void report_test_sites_copy(report_test_sites *d, const report_test_sites *s);
void report_test_sites_clear(report_test_sites *ts);

/* Which of a test's sites: every one, its own allocations, the blocks of
 * earlier tests it holds (items > 0). */
typedef enum report_sites_which {
	REPORT_SITES_ALL,
	REPORT_SITES_OWN,
	REPORT_SITES_HELD,
} report_sites_which;

/* ts's largest max sites of which into out, most bytes first (recorded order
 * among equals); how many. O(sites x max). */
size_t report_test_sites_top(const report_test_sites *ts, report_sites_which which,
                             const report_site **out, size_t max);

/* Frees shard i and closes the gap (later shards move down by one). */
void report_remove_shard(report *r, size_t i);
report_generation *report_shard_add_generation(report_shard *s);
report_point *report_shard_add_point(report_shard *s);
report_breakdown *report_generation_add_breakdown(report_generation *g);
report_category *report_breakdown_add_category(report_breakdown *b);
report_group *report_breakdown_add_group(report_breakdown *b);

/* Recomputes the counts of each shard from its tests, the report's totals,
 * and the suspects (top max_suspects by VA retained; a run keeps
 * REPORT_MAX_SUSPECTS). O(tests log tests). A report changed after it was
 * finished must be finished again before it is rendered. */
void report_finish(report *r, size_t max_suspects);

/* Adds shard s to t (start from a zeroed t): counts, failed, other, peaks. */
void report_totals_add(report_totals *t, const report_shard *s);

/*
 * The shard key. A shard is one lane of one run: (node, arch, suite, index).
 * report_shard_cmp orders by it (node, arch, suite, index; NULL strings as
 * ""), 0 when a and b are the same shard; same_run: one run of one suite on
 * one node, (node, arch, suite), the unit report_merge replaces;
 * same_suite: the same (arch, suite) on any node.
 */
int report_shard_cmp(const report_shard *a, const report_shard *b);
int report_shard_same_run(const report_shard *a, const report_shard *b);
int report_shard_same_suite(const report_shard *a, const report_shard *b);
/* 1 when s's tests were processes of their own (driver exec, ctest, wrap):
 * they leave nothing behind, and a test's VA is its own peak. */
int report_shard_own_process(const report_shard *s);

/* "3.49 GiB", "212 MiB", "4.0 KiB", "12 B" into buf: binary units, three
 * significant digits (KiB at most one decimal). */
void report_format_size(char *buf, size_t size, uint64_t bytes);
/* report_format_size of a signed amount: "-212 MiB" below 0 (INT64_MIN too). */
void report_format_size_signed(char *buf, size_t size, int64_t bytes);
/* A site for people, one line, into buf (cut at size): "2 × 8.00 MiB mmap at
 * block_new (storage.c:49) ← cache_put (cache.c:115)" (UTF-8): its first
 * max_frames frames, innermost first; a file by its base name; a frame
 * without a function by its module's base name and offset
 * ("libitems.so+0x4a10"), one with nothing known "?"; "16.5 MiB in 3 ×
 * malloc" when the allocations differ in size. Function names and paths
 * are the program's: each output escapes the line its own way. The one
 * form every output shows a site in. A held block (items > 0): "8.00 MiB
 * mmap block at block_new (storage.c:49), allocated in Cache/1, held by 3
 * items this test placed at item_new (cache.c:80)". */
void report_format_site(char *buf, size_t size, const report_site *s, size_t max_frames);
/* "pinned by: item 17 (Cache/3), item 18 and 3 more" (at most max items);
 * "" when nothing pins the site. Untrusted text as report_format_site. */
void report_format_pins(char *buf, size_t size, const report_site *s, size_t max);
/* How many frames and sites a one-line form shows. */
#define REPORT_SITE_FRAMES 2
#define REPORT_SITES_SHOWN 3

/* Unix seconds t through strftime's fmt (UTC) into buf: 0, or -1 and ""
 * when t is no time from 1970 to 9999 (not finite, negative, too large for
 * time_t: a report read back may hold any number). */
int report_format_time(char *buf, size_t size, double t, const char *fmt);
/* "850ms", "12.3s", "4m12s", "1h02m" into buf; "-" for a negative value. */
void report_format_duration(char *buf, size_t size, double seconds);

/* Length of the strictly valid UTF-8 sequence at s (at most avail bytes), 0
 * if none starts there. */
size_t report_utf8_valid_len(const unsigned char *s, size_t avail);
/* A malloc'd copy of s with every byte that does not start a valid UTF-8
 * sequence replaced by U+FFFD; its length in *len_out (may be NULL). This is
 * how strings are stored in the JSON form: Jansson only takes valid UTF-8,
 * so a name or output with invalid bytes does not round-trip byte for byte. */
char *report_utf8_sanitize(const char *s, size_t *len_out);
/* The same for len bytes at s, which may hold NUL (kept: it is valid UTF-8). */
char *report_utf8_sanitize_n(const char *s, size_t len, size_t *len_out);

/* JSON form (Jansson): to_json returns a new reference (json_t *), from_json
 * checks the schema field and every type, MG_EINVAL naming the bad field.
 * Both hold the whole document as one tree (a few hundred bytes a test):
 * for small reports and tests; files and notes go through report_write and
 * report_parse, which never build one. */
void *report_to_json(const report *r);
int report_from_json(report **out, void *json, mg_err *err);

/* The JSON form written to f in pieces (one test object at a time): memory
 * does not grow with the tests. 0, or MG_ERROR when a write failed. */
int report_write(const report *r, FILE *f);
/* The JSON form read from data in pieces (report_from_json's checks and
 * messages; "LINE:COL: not valid JSON: ..." for a syntax error), without a
 * tree of the whole document: memory is the model plus data. */
int report_parse(report **out, const char *data, size_t len, mg_err *err);
/* Whether report_parse_some keeps shard i's tests (i: its place in the
 * document's shards). */
typedef int (*report_keep_tests_fn)(size_t shard, void *ctx);
/* report_parse, but a shard keep does not want gets no tests: they are read
 * and checked as ever, then dropped (its other fields stay); keep NULL
 * keeps all. For a note whose shards a merge replaces: memory is then the
 * shards it keeps. */
int report_parse_some(report **out, const char *data, size_t len, report_keep_tests_fn keep,
                      void *ctx, mg_err *err);

/* A test of shard (its place in the document's shards) as it was read, its
 * VA peak (0: none; report_shard_test_peak) and its allocation sites (NULL:
 * none; sites->test is 0): t, sites and their strings live only during the
 * call. Nonzero ends the read with it, and err (set by fn) says why. */
typedef int (*report_test_fn)(size_t shard, const report_test *t, uint64_t va_peak,
                              const report_test_sites *sites, void *ctx, mg_err *err);
/* report_parse and report_load keeping no shard's tests: each is read,
 * checked and given to fn (NULL: none), then dropped. The shards keep their
 * counts. For a reader with a form of its own of the tests (compare keeps
 * 16 bytes and the name of each): memory is that form, not the model. */
int report_parse_tests(report **out, const char *data, size_t len, report_test_fn fn, void *ctx,
                       mg_err *err);
int report_load_tests(report **out, const char *path, report_test_fn fn, void *ctx, mg_err *err);
/* Frees every shard's tests (the counts and totals stay, the suspects too). */
void report_drop_tests(report *r);

/*
 * Merges from into into, by (node, arch, suite): the shards one run of a
 * suite on one node made are one group. A group of from replaces the same
 * group of into whole (so a re-run with fewer lanes leaves no stale lane),
 * unless into's group is from a later run (start_time), which is kept;
 * on a tie from's wins. Other groups are appended.
 * into keeps its commit identity (or takes from's when it has none); start
 * is the earlier, wall the longer, node_total the larger, interrupted and
 * exit_code the worse; counts, totals and suspects are recomputed
 * (report_finish, REPORT_MAX_SUSPECTS).
 */
int report_merge(report *into, const report *from, mg_err *err);
/* report_merge, but from's shards that the merge takes are moved into into,
 * not copied (memory: one copy of them, not two). from is left with those
 * shards emptied (their keys and start times only): free it. */
int report_merge_take(report *into, report *from, mg_err *err);
/* 1 when report_merge(into, from) would replace into's shard j (drop it for
 * from's group): it reads only the shards' keys and start times, so into
 * may be a report_parse_some without tests. */
int report_merge_replaces(const report *into, const report *from, size_t j);

/* Writes through atomic_open (a private temporary next to PATH, fsynced,
 * renamed over it; a device or FIFO in place): never a half-written file. */
int report_save(const report *r, const char *path, mg_err *err);
/* MG_ENOTFOUND if the file is missing, MG_EINVAL if not a valid report. */
int report_load(report **out, const char *path, mg_err *err);

#endif

/*
 * gtest_driver.h - what the GoogleTest and Catch2 drivers share inside the
 * shim (gtest.c, gtest_outside.c, catch2.c, gtest_filter.c, gtest_order.c): the driver's state and
 * the functions one file calls in another. Private to runner/drivers/; the runner sees only shim.h.
 */
#ifndef MG_GTEST_DRIVER_H
#define MG_GTEST_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#include "driver.h"
#include "mg_contract.h"
#include "mg_proto.h"
#include "shim.h"

/* An argv element or a variable is limited to 128 KiB (MAX_ARG_STRLEN):
 * without the probe, batches keep the filter below. With it a longer filter
 * is a file the probe gives GoogleTest as GTEST_FILTER (the names as in
 * ../probe/memguard_probe.c). */
#define FILTER_MAX       (120 * 1024)
#define ENV_PROBE_FILTER "MEMGUARD_PROBE_FILTER"
#define FILTER_UNREAD    "-*"
#define FILTER_OPT       "--gtest_filter="
#define FAIL_TEXT        (8 * 1024)
#define HOLD_MAX         (64 * 1024) /* a held result line and the lines after it */

/* The probe pipe: the child's fd, and the longest line it writes. */
#define PROBE_TARGET_FD 3
#define PROBE_QUIT_FD   4 /* the shared quit word's page (MG_PROBE_ENV_QUIT) */
#define PROBE_LINE      (8 * 1024)

/* Where a GoogleTest program is when no test runs (its framing lines). */
enum { GT_PH_NONE, GT_PH_ENV_SETUP, GT_PH_SUITE, GT_PH_ENV_TEARDOWN };

typedef struct sname {
	const char *p;
	size_t len, idx; /* idx: in the list */
} sname;

typedef struct gtest {
	int catch2;           /* a Catch2 program (catch2_main) */
	int catch2_v3;        /* ... without v2's --list-test-names-only */
	int c2_ok;            /* the running test case's OverallResult success */
	size_t c2_indent;     /* ... its start tag's indentation (its children's less 2) */
	int c2_skipped;       /* ... its skips (v3's SKIP()) */
	int c2_assert_failed; /* ... an assertion of it failed (maybe as expected) */
	int c2_shouldfail;    /* ... it is tagged [!shouldfail] */
	int c2_unskipped;     /* this program ended a test case that was not skipped */
	int c2_fatal;         /* ... it hit a FatalErrorCondition (a signal Catch2 caught) */
	int c2_closed;        /* ... and its end tag came: the reporter closes its XML */
	/* ... its XML of an assertion, as Catch2's console says it (c2_tag):
	 * where the XML is (C2_IN_*; the text of an assertion is the message,
	 * not output), what of a failed Expression was said (C2_EXPR_*) */
	int c2_in;
	unsigned c2_expr;
	char c2_macro[64];  /* its type: REQUIRE, CHECK_THAT, ... ("": none) */
	size_t c2_orig[2];  /* its Original's text in text[]: [from, to) */
	size_t c2_expanded; /* where text[] had "with expansion:" added */
	size_t c2_exp_from; /* ... and where the Expanded text begins */
	char c2_msgs[2048]; /* its INFOs and its own text, "  TEXT\n" each, */
	size_t c2_msgs_len; /* said after its label (c2_said) */
	unsigned c2_nmsgs;
	int c2_msgs_cut; /* ... not all of them had room: c2_said says so */
	int c2_cut;      /* the message (text[]) had no room for all: said at its end */
	/* v3 lists g->list itself, each name once: its shards are the list's
	 * chunks (catch2_begin); 0 not known yet, -1 no */
	int c2_shardable;
	/* v3: MG_LIST_CLEAN or MG_LIST_UNCLEAN when a listing said so (its
	 * own, load_list; the run's, listing_take); 0 not known */
	unsigned c2_listed;
	char c2_enc[4096]; /* its name as the XML has it (the probe's end line) */
	/* the program aborted its run as the user's -a/-x asked (catch2_aborted):
	 * why the tests it and this shim's later programs do not run are skip */
	char c2_abort[160];
	/* under a fail-fast (MG_ENV_FAIL_LEFT): the failures the run had left
	 * when this shim started (0: no fail-fast), and the fail lines it sent */
	unsigned fail_left, fails_sent;
	size_t c2_enc_len;
	shim_names *list;   /* NULL until listed; gives each name its gtest order */
	int sharded;        /* the list is GoogleTest's shard's, not every test (shard_select) */
	unsigned long seed; /* GoogleTest's shuffle seed (1..99999); 0: not shuffled */
	int list_status;    /* the listing program's exit status (not 0: said once) */
	int list_refused;   /* Catch2 refused the listing's command line (load_list) */
	size_t batch;       /* queue entries (from the head) the running program was given */
	int started_any;    /* a test of this batch has started */
	int saw_run;        /* a "[ RUN      ]" line, of this batch's tests or not */
	int unseen;  /* not_run: its program printed no test's start (a printer of its own) */
	int summary; /* past "[==========] N tests ... ran.": the rest is gtest's recap */
	char text[FAIL_TEXT];
	size_t text_len; /* the running test's output: a failure's message */
	int text_header; /* text starts at GoogleTest's first Failure/Skipped header */

	int probe_state; /* 0: not looked for yet, 1: found, -1: none */
	int asan;        /* -1 until known: the program is an ASan build */
	int listed;      /* the list came from the runner (listing_take) */
	uint64_t listed_va, listed_rss;
	driver_noprobe probe_no;      /* why there is none, found before the program ran */
	char probe_preload[8192];     /* LD_PRELOAD for the program: the probe first */
	int probe_rd;                 /* the probe pipe's read end, -1 when none */
	int probe_seen;               /* the running program's probe said hello */
	volatile uint32_t *quit_word; /* shared with the probe: 1 at the runner's quit */
	char probe_in[2 * PROBE_LINE];
	mg_lines probe_lines;
	char stop_why[64]; /* a "stop" for the result being handled */
	/* the probe's module, site and nomem lines before an end line: the
	 * runner's, passed on with that test's result (PROTOCOL.md 6d) */
	char sites[4 * PROBE_LINE];
	size_t sites_len;
	/* its "sites NAME" was read: the block is NAME's (a later test's when
	 * the driver reads past the test it handles: kept until NAME's end) */
	int sites_ready;
	char sites_name[MG_PROBE_NAME_MAX + 1];
	size_t sites_name_len;
	/* GoogleTest: the probe puts a test's end in the program's stdout, in
	 * front of its end tag (MG_PROBE_MARK + this shim's secret), not in the
	 * pipe: the figures of the end line that follows, and its stop */
	char smark[32];
	size_t smark_len; /* 0: the pipe only */
	int fig_err;      /* the probe marked the ending test's stderr */
	int fig_pending;
	uint64_t fig[4];
	int fig_sites; /* the stream's end said a sites block is in the pipe */
	char fig_why[64];
	/* A result line of the running test's with no probe end in front of it,
	 * where the probe puts its ends in the stream: held (its kind + 1) until
	 * the program's next line shows whose it was (g_hold_line): GoogleTest's
	 * next framing line, and it was the verdict; the probe's end (in front
	 * of GoogleTest's own line) or another result line of the test's, and it
	 * was a look-alike the test printed, its output. hold: the held line,
	 * then the lines after it, each a uint32_t length and its bytes. */
	int held;
	int ends_marked; /* the probe said this program's ends come in its stream */
	int own_next;    /* the probe said the next result line is the test's own */
	/* the probe's reading as the program's first test starts (its seen
	 * mark), sent as `base` before that test's start: the base of its
	 * growth, where hello has a listing program's */
	int base_pending;
	uint64_t base_va, base_rss;
	size_t hold_len;
	char hold[HOLD_MAX];

	/* Outside tests: what the program said between them, and whether it
	 * was a failure (GoogleTest's "FILE:LINE: Failure" of a SetUpTestSuite,
	 * a TearDownTestSuite, a global environment). */
	int phase;          /* GT_PH_*: where the framework is when no test runs */
	char suite[1024];   /* the test suite in GT_PH_SUITE */
	size_t suite_len;   /* its length; 0: none */
	int suite_ran;      /* a test of it has started (later output: its tear-down) */
	int outside_failed; /* the output since the phase began holds a failure */
	char outside[FAIL_TEXT];
	size_t outside_len;
	int failed_any;  /* this program reported a failure: its exit status is explained */
	int env_skipped; /* a global environment's set-up skipped every test */
	/* A listed name GoogleTest runs again (two fixtures of one name in two
	 * namespaces register one test name twice): its nth run, whose failure
	 * is an entry "NAME#nth" of its own. */
	int dup_running;
	unsigned dup_nth;
	char dup[1024];
	size_t dup_len;

	int by_file;            /* the running program has its filter from a file (the probe) */
	char filter_path[4096]; /* that file until removed, "" when none */
	int in_note;            /* in the pieces of gtest's long "Note: ... filter" line */

	/* The list sorted by name, for filters by prefix ("Suite.*", "Suite.t1*");
	 * nsorted 0 when memory was short (then names only). Sorted at the
	 * first filter a listing needs (sort_due), not at the listing: the
	 * listing host composes none. */
	struct sname *sorted;
	size_t nsorted;
	size_t sorted_room; /* names sorted and want_before were made for (mg_bulk.h) */
	int sort_due;
	size_t *want_before; /* sorted index -> wanted names before it (scratch) */
	unsigned char *mark; /* list index -> in the batch (scratch) */
	/* batch_len's list index of the first bidx_n queued names, for the
	 * filter composed right after it (gtest_filter_compose): each name
	 * looked up once (scratch) */
	long *bidx;
	size_t bidx_n, bidx_cap;
} gtest;

/* A growing string (the filter). */
typedef struct fbuf {
	char *p;
	size_t len, cap;
	int bad; /* out of memory */
} fbuf;

/* ---- gtest_filter.c: the filter compiler and the filter file ---- */

/* Appends n bytes of p (b->bad set when memory is short). */
void gtest_filter_add(fbuf *b, const char *p, size_t n);
/* g->list changed: g->sorted is made again by the next filter (O(N log N),
 * O(N) for a listing already in order, once per listing). */
void gtest_filter_sort(gtest *g);
/* The filter file is gone (the probe removes it once read; this is for a
 * program that never read it). */
void gtest_filter_remove(gtest *g);
/* Writes text to a new file of its own (mode 0600) in $TMPDIR or /tmp; 0
 * and its path in g->filter_path, or -1. */
int gtest_filter_write(gtest *g, const char *text, size_t len);
/* "PREFIX" and the first k queued names joined by ':' (malloc'd), or NULL. */
char *gtest_filter_build(shim *s, size_t k, const char *prefix, size_t *len);
/* The user's own filter: the last --gtest_filter= of the command, else
 * GTEST_FILTER, else NULL. */
const char *gtest_filter_user(shim *s);
/* The filter for the first k queued names as short as GoogleTest's syntax
 * allows (gtest_filter.c says how); NULL when memory is short. */
char *gtest_filter_compose(shim *s, gtest *g, size_t k, const char *user, size_t *len);

/* ---- gtest.c: the machinery both frameworks use ---- */

/* Starts the program for a batch of k names; shim_spawn_fd's result. */
int gtest_batch_spawn(shim *s, gtest *g, char **argv, size_t k, int by_file);
/* The program of a batch did not start: its head fails saying so. */
void gtest_batch_failed(shim *s, gtest *g, const char *prog);
/* The framework started name: the tests of the batch before it did not run. */
void gtest_on_run(shim *s, gtest *g, const char *name, size_t n);
/* The running test's output (kept for a failure's message); nl: a whole line. */
void gtest_output(shim *s, gtest *g, const char *line, size_t len, int nl);
/* The head's result, with the probe's figures; may not return. */
void gtest_end(shim *s, gtest *g, mg_msg_kind kind, const char *msg, size_t len);
/* The shim for a gtest (catch2 0) or Catch2 program (catch2 1, v3: no
 * --list-test-names-only). */
int gtest_run(const shim_args *a, int catch2, int catch2_v3);

/* MG_EINVAL when the command or GTEST_REPEAT asks GoogleTest to repeat the
 * tests (a count other than 1): each test runs once here, so a test that
 * fails only when run again would pass (driver_check_args). */
int gtest_check_args(char *const *cmd, int ncmd, mg_err *err);
/* --gtest_list_tests (in cmd; GoogleTest reads no variable for it):
 * MG_EINVAL (driver_runs_none). */
int gtest_runs_none(char *const *cmd, int ncmd, mg_err *err);
/* Catch2's options that list or describe and run no test (-l, --list-*,
 * -h, --libidentify): MG_EINVAL naming it (driver_runs_none). */
int catch2_runs_none(char *const *cmd, int ncmd, mg_err *err);
/* GoogleTest's --gtest_fail_fast and its variables (driver_fail_fast_of). */
void gtest_fail_fast(driver_fail_fast *out, char *const *cmd, int ncmd);

/* gtest_parse_list, and suite_at (when not NULL) called at each suite's
 * line with its name (without the '.'), before its tests. */
size_t gtest_parse_suites(const char *buf, size_t len,
                          void (*add)(void *ctx, const char *name, size_t n),
                          void (*suite_at)(void *ctx, const char *name, size_t n), void *ctx);

/* ---- gtest_order.c ---- */

/* GoogleTest's --gtest_shuffle and --gtest_random_seed and their variables
 * (driver_order_of); cmd has its flag files read in place. */
void gtest_order_read(driver_order *out, char *const *cmd, int ncmd);
/* g->list (as listed, its shard selected) put in the order GoogleTest
 * shuffles to with g->seed: from out (len bytes, the listing) when the
 * user's filter left no test out, else from the program's own listing
 * with --gtest_filter=* (argv: the listing's, its listing flag at nlist,
 * room for two more). -1 when that order cannot be worked out (the
 * second listing failed, memory ran out), said on stderr: the listing
 * fails (a program that ran a batch in another order than the list's
 * would leave tests behind). */
int gtest_order_shuffle(shim *s, gtest *g, char **argv, int nlist, const char *out, size_t len);

/* 1 when the framework itself leaves name out (GoogleTest's DISABLED_
 * tests; it reports them as such): a skip, not an error. */
int gtest_framework_skips(const gtest *g, const char *name, size_t n);

/* ---- gtest_outside.c: what the program does outside its tests ---- */

/* What failed outside tests since the phase began: an entry of its own
 * (extra fail, named after the phase); a phase that did not fail passes
 * its held text on as output. */
void gtest_outside_flush(shim *s, gtest *g);
/* A line of GoogleTest's framing outside tests ("[----------] ..."): tracks
 * the phase, and ends the phase before (gtest_outside_flush). */
void gtest_outside_frame(shim *s, gtest *g, const char *line, size_t len);
/* Output outside a test (nl: the line ended there): held in a phase until
 * it ends, else passed on as the output between tests. */
void gtest_outside_between(shim *s, gtest *g, const char *line, size_t len, int nl);
/* The program ended badly with nothing to show for it: extra error
 * <program exit> with its status and last words. */
void gtest_outside_exit_unexplained(shim *s, gtest *g, mg_exit_end status);
/* A program recycled at a boundary whose probe found leaks where it ended:
 * extra error <program exit>, unless a failure it reported explains it. */
void gtest_outside_exit_leaked(shim *s, gtest *g);
/* The program died before its first test: extra error <program start>,
 * then the shim ends as the program did (the runner retries once). */
void __attribute__((noreturn)) gtest_outside_start_died(shim *s, gtest *g, mg_exit_end status);
/* The program was killed by a signal (extra error) or exited (extra fail;
 * skip for 0) between two tests, the entry named where it was, then the
 * shim ends as it did without start. */
void __attribute__((noreturn)) gtest_outside_between_died(shim *s, gtest *g, mg_exit_end status);

/* ---- catch2.c ---- */

/* The Catch2 program's argv into out (room for ncmd + 10); listing: the
 * listing options added (returns the listing flag's index), else the count. */
int catch2_args(char **cmd, int ncmd, char **out, int listing, int v3);
/* catch2_args's runs of the listing's own selection (no --input-file) */
#define CATCH2_RUN_LISTED 3
#define CATCH2_RUN_SPECS  4
/* The bytes of noise at the start of a listing's out that ended listed
 * (catch2.c). */
size_t catch2_list_noise(shim *s, int v3, const char *out, size_t len, mg_exit_end listed);
/* Catch2's name listing: one name a line (v3's quiet listing too); the
 * quotes around a name starting with '#' removed. */
void catch2_parse_list(const char *buf, size_t len, int v3,
                       void (*add)(void *ctx, const char *name, size_t n), void *ctx);
/* A test started of a listed name the batch has answered already:
 * GoogleTest runs a name twice when two fixtures of one name register it,
 * Catch2 v3 every test case of a name its spec names (two of one name,
 * told apart by their tags). 1 when it is one: dup_running, its failure
 * the entry "NAME#nth" (gtest.c's dup_end, catch2.c's c2_dup_line). */
int gtest_dup_run(shim *s, gtest *g, const char *name, size_t n);
/* Starts the program for the first k queued names. */
void catch2_begin(shim *s, gtest *g, size_t k);
/* Catch2 v3's --shard-index I of --shard-count n whose chunk of t tests
 * is [from, from + k): 1 and *i; 0 when none is (n < 2: no shards). */
int catch2_chunk_of(size_t t, size_t n, size_t from, size_t k, size_t *i);
/* 1 when a listing's output is exactly g->list, one name a line, each
 * once (v3: Catch2's shards are then the list's chunks). */
int catch2_out_is_list(const gtest *g, const char *out, size_t len);
/* The program ended its run itself (its XML's totals written), with
 * failures, exiting non-zero (not by a signal), before the end of its batch: when the user
 * gave -a/--abort or -x/--abortx N, that is Catch2 aborting the run as
 * asked, and g->c2_abort says so (the rest of the batch is skip, as
 * GoogleTest's --gtest_fail_fast reports it). 1 when it is. */
int catch2_aborted(shim *s, gtest *g, mg_exit_end status);
/* The program died in the running test case: Catch2's report of a signal
 * it caught goes to the test's output. */
void catch2_died(shim *s, gtest *g, mg_exit_end status);
/* Catch2's -a/-x (driver_fail_fast_of). */
void catch2_fail_fast(driver_fail_fast *out, char *const *cmd, int ncmd);
/* Catch2's --order and --rng-seed (driver_order_of). */
void catch2_order(driver_order *out, int v3, char *const *cmd, int ncmd);
/* 1 when the user's Catch2 command line asks -w/--warn NoTests (v2 then
 * exits 2 where a test spec matched nothing); *spec: it has a test spec
 * (a name or tag expression, or -f/--input-file). */
int catch2_warns_no_tests(char *const *cmd, int ncmd, int *spec);
/* One line of Catch2's XML reporter. */
void catch2_line(shim *s, gtest *g, char *line, size_t len);

#endif

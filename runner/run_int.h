/*
 * run_int.h - what the rooms of "memguard run" share: the run's context,
 * its lanes and hosts, and the functions one room offers the others (each
 * prefixed with its file's name). Internal to runner/: not for the CLI.
 */
#ifndef MG_RUN_INT_H
#define MG_RUN_INT_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <time.h>

#include "adapters.h"
#include "cgroup.h"
#include "driver.h"
#include "lane.h"
#include "maps.h"
#include "mg_elf.h"
#include "mg_limits.h"
#include "mg_proto.h"
#include "options.h"
#include "proc.h"
#include "progress.h"
#include "report.h"
#include "run.h"
#include "sites.h"
#include "spawn.h"
#include "timeline.h"
#include "tree.h"

#define START_DEADLINE 10.0 /* seconds from fork to hello */
#define QUIT_DEADLINE                                                                              \
	5.0                  /* seconds from quit (nothing in flight) to bye; a                    \
	                      * finishing program's: policy_program_finishes */
#define LISTING_TIMEOUT 60.0 /* seconds for a host to list its tests, without --timeout */
#define DYING_DEADLINE  2.0  /* seconds from EOF to exit status */
#define TREE_INTERVAL   0.2  /* seconds between descendant scans */
#define TIMELINE_POINTS 4096 /* per lane */
#define GROWTH_WINDOW   32   /* recent per-test growths kept per lane */
#define MAX_DESCENDANTS 64
#define ENV_SLOTS       17    /* MEMGUARD_* variables (and TEST_TMPDIR) a host gets */
#define SLOW_TEST       0.005 /* seconds: above it, a lane keeps only 2 tests in flight */
/* A native or pytest host without --pipeline holds as many run lines as take it
 * PIPELINE_WORK (16 to PIPELINE_AUTO), and while it holds more than twice
 * REPLY_WAIT of work the runner reads its replies every REPLY_WAIT, not at
 * every result: short tests stream in batches, with no wakeup per test. */
#define PIPELINE_AUTO 4096
#define PIPELINE_WORK 0.004 /* seconds of work a host holds */
#define REPLY_WAIT    0.001 /* seconds between reads of a busy host's replies */

/* The end of a test's output past its head: a ring of cap bytes. */
typedef struct rtail {
	size_t cap, len, at; /* len bytes held; the next byte goes to at */
	char buf[];
} rtail;

typedef struct rtest {
	char *name; /* the listing's copy (its name_list's text, freed at the run's end) */
	size_t len;
	unsigned attempts;
	unsigned done : 1;
	unsigned recorded : 1;   /* in the report: its output is attached there at the end */
	unsigned hist_alone : 1; /* from --history: it alone broke the hard limit (runs alone) */
	/* killed by the lanes' shared rss pool or cgroup: its retry runs with
	 * every other lane's host ended (lane_pool_alone) */
	unsigned pool_alone : 1;
	/* exp_rise is a clean attempt's (history's pass or skip, or this run's):
	 * without it the largest rise of the run is expected too */
	unsigned rise_known : 1;
	unsigned near_ceiling : 1; /* its first attempt failed near the memory ceiling */
	unsigned start_died : 1; /* a host given it died before its first test (lane_start_died) */
	unsigned failed : 1;     /* done, neither pass nor skip (what a fixture's users ask) */
	unsigned fw_failed : 1;  /* done fail, crash or timeout: the framework's verdict */
	/* (the 4-byte fields together: 96 bytes a test, not 112) */
	char *out; /* captured output: its head, up to output_head bytes */
	size_t out_len;
	size_t out_dropped; /* bytes cut between the head and the tail */
	struct rtail *tail; /* past the head: the last bytes (NULL: none yet) */
	size_t rec_shard;   /* where it is recorded: the shard ... */
	size_t rec_index;   /* ... and its position among the shard's tests */
	/* from --history: how far above its start its VA rose, what it kept */
	uint64_t exp_rise, exp_growth;
	double exp_duration; /* seconds; < 0: unknown */
} rtest;

typedef struct host {
	spawn_proc *proc;
	proc_sampler *sampler;
	host_state state;
	pid_t pid;
	size_t gen;     /* index in the shard's generations */
	size_t *flight; /* ring of test indices, in run order */
	size_t fhead, nflight;
	int head_started;
	size_t last_ended; /* the test that ended last in this host, + 1; 0: none */
	double head_t0;
	double head_since; /* when the front test became the front: a host that
	                    * never starts it times out too */
	int head_waiting;  /* its shim said the front test waits for a lock another
	                    * lane holds (PROTOCOL.md 6e): not timed until it starts */
	double since;      /* when the current state began */
	/* the host's own figures at its last boundary (the base of a test's
	 * deltas: samples never move them), and at the last reading of either */
	uint64_t va_before, rss_before;
	uint64_t va_last, rss_last, peak_va, peak_rss;
	/* a gtest or catch2 shim: a fresh program's memory (its hello), and
	 * whether the next result is the first of a program started for a
	 * later burst (its delta is from a fresh program, not the last one's end) */
	uint64_t hello_va, hello_rss;
	int fresh_program;
	unsigned version; /* of the protocol, from its hello */
	/* a shim's `extra error <program start>` (its program died before its
	 * first test): the message, held until the host ends (lane_start_died) */
	char *start_msg;
	size_t start_msg_len;
	/* the front test's captured output when it became the front of an
	 * empty flight (SIZE_MAX: unknown, a result came since): what this
	 * host wrote to it before a death at its start is taken back */
	size_t head_out_base;
	int pipe_closed_alive; /* still running DYING_DEADLINE after its reply pipe
	                        * closed: we killed it; an error, not a crash */
	uint64_t death_va;     /* VmPeak it reported at a fatal signal (v2 "dying"); 0: none */
	uint64_t head_peak;    /* VmPeak the started test rose to (v2 "peak"); 0: not said */
	sites_head sites;      /* the started test's allocation sites and failed allocations */
	uint64_t tree_rss;     /* the resident memory of its tree at the last reading */
	uint64_t desc_rss, desc_va_max;
	pid_t desc_va_pid; /* the descendant with the most VA (drivers: the program) */
	tree *kids;        /* kept-open samplers of the descendants */
	/* its own image (sample_host): the text size (and VA) when last judged, and
	 * whether it is memguard's (a shim; a pytest host before its exec),
	 * whose figures are not the suite's (an ASan build reserves terabytes) */
	uint64_t own_text, own_va;
	int own_ours;
	/* VA limits are per process and per arch: the largest descendant of the
	 * host's arch, and of the other (a 32-bit program under a 64-bit shell) */
	uint64_t desc_va_same, desc_va_other;
	pid_t desc_va_other_pid;
	double tree_at;
	uint32_t tests_run;
	int killed_at_result; /* killed over a limit its last result showed: that test, counted
	                       * in tests_run, runs again (lane_kill) */
	int alone;
	int soft_hit;          /* the last sample was over a soft limit: feed nothing */
	uint64_t own_rss;      /* the host process's own RSS at the last sample */
	uint64_t vm_peak_seen; /* VmPeak at the last boundary that read it */
	char warning[256];     /* a soft limit crossed where it cannot recycle */
	char *in;              /* 2 protocol lines of replies not yet read as lines */
	mg_lines lines;        /* over in */
	/* a native host's reply ring (mapped; NULL: none offered), whether the
	 * host took it (its replies come there, its pipe brings wake bytes),
	 * and whether poll found the pipe readable */
	mg_ring *ring;
	int ring_on, reply_ready;
	/* v2 output attribution: the tests in the order their run lines were
	 * queued (ordinal sent_base is sent[0]); per stream (stdout, stderr)
	 * the ordinal its bytes belong to now, and a mark split across reads */
	size_t *sent;
	size_t nsent, capsent;
	uint64_t sent_base;
	uint64_t out_seq[2];
	char mark_pend[2][MG_MARK_MAX];
	size_t mark_npend[2];
	/* per stream, the bytes since its last mark: the next mark's test's (a
	 * host marks only tests that wrote), or the test the host ends in */
	char *out_pend[2];
	size_t out_npend[2], out_cappend[2];
	rtail *out_pend_tail[2]; /* past output_head: the last bytes (record_tail_keep) */
	uint64_t out_pend_dropped[2];
	double reply_due; /* its replies are not polled before: it has work enough */
	/* host_conn's: the command lines not yet written (conn_send), and where
	 * each ends and whether it is a run line (conn_unfeed takes them back) */
	char *outq;
	size_t outq_len, outq_cap;
	int outq_mid; /* outq starts inside a line already partly written */
	struct outq_line {
		size_t end;
		int run;
	} * outq_lines;
	size_t outq_nlines, outq_caplines;
	double t_start;
	host_end end; /* decided before the host is gone (a quit sent): END_NONE until then */
	char why[256];
	/* no progress (supervise_progress): the front test these are about (its
	 * start time), the CPU ticks of its processes at the last look, since
	 * when they have not moved, when to look next, and whether it was said */
	double np_test;
	pid_t np_pid; /* 0: not looked at yet */
	uint64_t np_cpu;
	double np_since, np_next;
	int np_said;
} host;

typedef struct lane {
	unsigned index;
	host h;
	unsigned failed_starts;
	int gave_up;
	char gave_up_why[sizeof(mg_err)];
	size_t shard;
	timeline tl;
	int64_t growth[GROWTH_WINDOW];  /* recent per-test VA growths */
	int64_t rgrowth[GROWTH_WINDOW]; /* and rss growths */
	size_t ngrowth;
	double avg_duration; /* of recent tests (moving average), seconds */
	double cycle;        /* seconds a result, as the runner reads them (moving average) */
	double read_at;      /* when the runner last read results */
	double user, sys;
	double first_start, last_end;
} lane;

typedef struct reaping {
	spawn_proc *proc;
	size_t lane;
	double since;
} reaping;

typedef struct hist_test hist_test;

typedef struct run_ctx {
	run_options *o;
	char path[PATH_MAX];
	char **argv;
	char **shim_argv;    /* non-native drivers: memguard __driver NAME ... -- HOST */
	char skip_code[12];  /* --skip-code's value for the exec shim */
	int listing_fd;      /* gtest, catch2: the listing handed to every host, or -1 */
	double listing_wall; /* seconds from the listing host's start to its list */
	/* gtest, catch2: why the probe cannot enter the program (the listing
	 * host's word, driver_noprobe_why), so each shard's boundaries are
	 * approximate; NULL: it can */
	const char *approx_why;
	/* gtest, catch2: the program is an ASan build (listing_asan), whose exit
	 * runs LeakSanitizer's check: a host killed loses it (lane_kill says so) */
	int program_asan;
	/* gtest, catch2: the user's fail-fast (-a, -x N, --gtest_fail_fast;
	 * driver_fail_fast_of): after fail_limit failures of the run (policy_fail_counts,
	 * in the order the runner records them) no test starts, the tests not
	 * run are skip with fail_why (lane_fail_fast); 0: none */
	unsigned fail_limit, failures;
	char fail_why[200];
	char fail_opt[48]; /* as the user gave it ("-x 2") */
	/* gtest, catch2: the seed drawn for every program of the run when the
	 * program would draw its own (driver_order_of; MG_ENV_SEED); 0: none.
	 * seed_shuffled: its order depends on it (--gtest_shuffle, --order rand) */
	unsigned long seed;
	int seed_shuffled;
	/* a Catch2 v3 program: its lanes' shares are its --shard-count chunks
	 * (policy_depth), which its shim runs as such (catch2_begin) */
	int catch2_v3;
	unsigned long
	    gtest_seed; /* GoogleTest's shuffle seed, the user's or drawn; 0: unshuffled */
	/* what the tests wait for (CTest's DEPENDS, fixtures: the listing's
	 * after and needs lines): test t's waits are wait[wait_first[t]] ...
	 * wait[wait_first[t + 1] - 1]; wait_first NULL when no test waits */
	size_t *wait_first;
	struct rwait *wait;
	/* bumped when a test is done or requeued (a waiting test may be
	 * ready); a scan of the queue that found none ready at blocked_epoch
	 * is not made again before it moves */
	uint64_t wait_epoch, blocked_epoch;
	driver_kind driver;
	int pipeline_auto; /* no --pipeline: depth follows the tests' pace (policy_depth) */
	double tree_interval;
	char **envp;
	char *env_store[ENV_SLOTS]; /* the MEMGUARD_* entries of envp */
	char *lane_tmp;             /* the lanes' TEST_TMPDIRs' parent (lane_tmp_make), or NULL */
	char *run_dir;              /* the shims' files (MG_ENV_RUN_DIR; pytest's, -x's), or NULL */
	char mark_secret[MG_MARK_SECRET_LEN + 1]; /* v3: in every host's marks, chosen once */
	mg_arch arch;
	limits soft, hard; /* for the host's arch */
	/* VA limits per process arch (mg_arch): a tree may hold both kinds */
	uint64_t va_soft[3], va_hard[3];
	/* the cap on a host's address space: --address-space, else the
	 * RLIMIT_AS the run inherited (ulimit -v: as_inherited); 0: none */
	uint64_t as_cap;
	int as_inherited;
	rtest *tests; /* mg_bulk: tests_cap of them */
	size_t ntests, tests_cap;
	size_t nlisted; /* the names the host listed, before --filter, --tests-from, --node */
	/* a node after the first of a --node split whose listing had entries
	 * outside its tests (node 1's to record: listing_extras) and no test: a
	 * collection error stopped the framework's run, so this node fails too
	 * (pytest exits 2 on every node), --allow-no-tests or not */
	int extras_stopped;
	size_t *q; /* deque of test indices */
	size_t qhead, qlen;
	size_t *rq; /* retries: each runs alone in a fresh host, in this order */
	size_t rqhead, rqlen;
	size_t remaining;
	lane *lanes;
	unsigned nlanes;
	reaping *reap;
	size_t nreap, capreap;
	report *rep;
	double t0;
	int sigfd[2];
	int signo;
	int deadline_hit;
	unsigned protocol_breaks; /* hosts ended for a protocol error (exit 3) */
	int has_cgroup;           /* its usage is judged against a cgroup limit */
	int cg_found;             /* the runner is in a memory cgroup (its OOM kills are counted) */
	uint64_t oom_kills;       /* the cgroup's OOM-kill count when last read */
	cgroup_mem cg;
	uint64_t cg_usage;
	double cg_hold_until;   /* no cgroup kill before this: the last one is dying */
	double pool_hold_until; /* no rss pool kill before this */
	double next_sample;
	double interval;
	progress *prog;
	/* wrap: the command's output to the job log as it runs; a line not
	 * yet ended waits here (at most STREAM_LINE bytes) */
	int stream;
	char stream_pend[4096];
	size_t stream_npend;
	/* --history, while the run is planned */
	hist_test *hist; /* its tests, by name */
	size_t nhist;
	report *hist_report;  /* owns their names */
	double expected_wall; /* this node's seconds by the history (0: none) */
	/* with a history, a gtest lane's first program: the queue
	 * cut into nlanes runs of about equal expected time (plan_shares); a
	 * lane whose queue front is share_first[k] takes share_len[k] tests */
	size_t *share_first, *share_len;
	size_t nshares;
	/* the largest rise (VmPeak above its start, or VA kept) of any test this
	 * run has seen: what a test of unknown rise is expected to need, O(1) a test */
	uint64_t max_rise;
	/* the first attempt's failure of each test retried for failing near
	 * the memory ceiling (record_near_first): a retry that passes says it */
	struct near_first {
		size_t t;
		char *msg;
	} * near_first;
	size_t nnear_first;
	/* the entries record_extra made, (shard, index) pairs: an extra is
	 * recorded once per run by name, apart from the listed tests (pytest
	 * names a teardown error after the test it follows) */
	size_t *extras;
	size_t nextras;
} run_ctx;

typedef struct name_list {
	char **names; /* into text: no malloc a name (the listing of a million tests) */
	size_t *lens;
	report_names *text;
	size_t n, cap;
	char arch[8];
	uint64_t va, rss;      /* the listing host's hello */
	uint64_t list_flags;   /* its end line's MG_LIST_* (a shim's word on its listing) */
	struct list_dep *deps; /* its after and needs lines */
	size_t ndeps, capdeps;
	/* its extra lines (6c): entries outside the listed tests the listing
	 * found (pytest's collection errors under --continue-on-collection-errors),
	 * recorded once the run's report exists (listing_extras) */
	struct list_extra *extras;
	size_t nextras;
} name_list;

typedef struct list_extra {
	test_state state;
	char *name, *message;
} list_extra;

/* A listing's "after" line (fixture NULL) or "needs" line: the test at
 * listing position test runs after the one at position on (an earlier one)
 * ended; with a fixture, on is its setup and test does not run when on
 * failed. */
typedef struct list_dep {
	size_t test, on;
	char *fixture;
} list_dep;

/* A test's wait: the test (run index) it waits for; fixture as list_dep's
 * (the name_list's copy). */
typedef struct rwait {
	size_t on;
	const char *fixture;
} rwait;

static inline double now_mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline double now(const run_ctx *c)
{
	return now_mono() - c->t0;
}

/* The tests in flight in a host, in run order: a ring of --pipeline slots. */

static inline size_t flight_at(const host *h, size_t i, unsigned cap)
{
	return h->flight[(h->fhead + i) % cap];
}

static inline void flight_pop(host *h, unsigned cap, double t)
{
	h->last_ended = flight_at(h, 0, cap) + 1;
	h->fhead = (h->fhead + 1) % cap;
	h->nflight--;
	h->head_started = 0;
	h->head_waiting = 0;
	h->head_since = t;
}

/* plan.c */
void plan_push_back(run_ctx *c, size_t t);
void plan_push_front(run_ctx *c, size_t t);
size_t plan_front(const run_ctx *c);
void plan_retry_push(run_ctx *c, size_t t);
size_t plan_retry_pop(run_ctx *c);
size_t plan_pop(run_ctx *c);
size_t plan_at(const run_ctx *c, size_t at);
size_t plan_ready(run_ctx *c);
size_t plan_take(run_ctx *c, size_t at);
size_t plan_setup_failed(const run_ctx *c, size_t t, const char **fixture);
void plan_names_free(name_list *nl);
int plan_tests_from(size_t **order, size_t *norder, name_list *nl, const char *file, mg_err *err);
int plan_build(run_ctx *c, name_list *nl, mg_err *err);
void plan_history_load(run_ctx *c, run_history_fn auto_history);
void plan_history(run_ctx *c);
void plan_lanes(run_ctx *c);
void plan_shares(run_ctx *c);
size_t plan_share_at_front(const run_ctx *c);

/* record.c */
report_shard *record_shard(run_ctx *c, lane *l);
report_generation *record_gen(run_ctx *c, lane *l);
void record_test(run_ctx *c, lane *l, size_t t, test_state st, const char *msg, size_t msg_len,
                 double duration, uint64_t va, uint64_t rss, int64_t dva, int64_t drss);
void record_testf(run_ctx *c, lane *l, size_t t, test_state st, double duration, const char *fmt,
                  ...) __attribute__((format(printf, 6, 7)));
/* Keeps test t's first attempt's failure, which failed near the memory
 * ceiling (why), for the message of its retry should that pass. */
void record_near_first(run_ctx *c, size_t t, const char *why, const char *msg, size_t msg_len);
/* Keeps n more bytes of rt's output (head, then the tail's ring); the
 * caller streams them first (record_stream): bytes held for a mark are
 * streamed as read, kept when their test is known. */
void record_output(run_ctx *c, rtest *rt, const char *buf, size_t n);
/* wrap's streamed output (nothing unless c->stream): bytes as read. */
void record_stream(run_ctx *c, const char *buf, size_t n);
/* Bytes past an output's head into the ring *tail (made at the first,
 * output_limit - output_head bytes); returns how many fell out. */
size_t record_tail_keep(const run_ctx *c, rtail **tail, const char *buf, size_t n);
/* The ring's bytes in order: two pieces, the second possibly empty. */
void record_tail_pieces(const rtail *t, const char **p0, size_t *n0, const char **p1, size_t *n1);
/* wrap's streamed output: the line still waiting for its end, now. */
void record_stream_flush(run_ctx *c);
void record_test_peak(run_ctx *c, lane *l, uint64_t va_peak);
void record_avoided(run_ctx *c);
void record_host_start(run_ctx *c, lane *l);
void record_warning(run_ctx *c, lane *l, const char *warning);
void record_extra(run_ctx *c, lane *l, test_state st, const char *name, size_t nlen,
                  const char *msg, size_t mlen);
/* An extra line's state word (PROTOCOL.md 6c) as the entry's state. */
static inline test_state record_extra_state(mg_msg_kind state)
{
	return state == MG_MSG_ERROR ? TEST_ERROR : state == MG_MSG_SKIP ? TEST_SKIP : TEST_FAIL;
}
void record_host_end(run_ctx *c, lane *l, host_end end, const char *why);
void record_breakdown(run_ctx *c, lane *l, const char *when);
void record_usage(run_ctx *c, size_t lane_idx, const struct rusage *ru);
void record_limits(run_ctx *c);
void record_shards(run_ctx *c, const char *suite, const char *cmdline);
void record_unrun(run_ctx *c);
void record_finish(run_ctx *c);

/* policy.c */
uint64_t policy_va_ceiling(const run_ctx *c);
pid_t policy_va_pid(const run_ctx *c, const host *h);
int policy_can_recycle(const run_ctx *c);
/* gtest, catch2: after quit the host's program finishes on its own (its
 * tear-downs, its leak check, its exit), bounded by the run's --timeout and
 * --no-progress, not by the quit deadline. */
int policy_program_finishes(const run_ctx *c);
/* exec and ctest run a process per test, wrap one for its command: a test's
 * figures are its own process's, it leaves nothing behind in a host, and
 * the shim marks its streams at each boundary. */
int policy_process_per_test(const run_ctx *c);
uint64_t policy_expected_growth(const lane *l);
uint64_t policy_expected_rss_growth(const lane *l);
int policy_pool_admits(const run_ctx *c, const lane *l, char *why, size_t n);
int policy_resolve(run_ctx *c, mg_err *err);
int policy_exit_code(const run_ctx *c);
/* The exit of a run in which no test ran: the user's --allow-no-tests (0)
 * or --fail-no-tests (MG_EXIT_NO_TESTS), else the framework's own
 * (driver_no_tests_exit), *who (when who is not NULL) naming it. */
int policy_no_tests_exit(const run_ctx *c, const char **who);
/* Whether an entry recorded in state st counts toward the user's
 * fail-fast (c->fail_limit): a listed test that failed
 * (report_state_failed), an extra entry only when it is a framework's
 * failure (fail: a suite's tear-down), not memguard's word on a program's
 * start or exit (error). */
int policy_fail_counts(test_state st, int extra);
/* 1 once the run has had the failures its fail-fast allows. */
int policy_fail_fast_hit(const run_ctx *c);
uint64_t policy_pool_rss(const run_ctx *c);

/* What a verdict judges a host by (policy_judge). */
typedef enum policy_scope {
	POLICY_KILL,        /* its hard limits: kill it now */
	POLICY_RECYCLE,     /* its soft limits: recycle it at the next boundary */
	POLICY_POOL_KILL,   /* the lanes' shared rss pool over its hard limit (-j > 1) */
	POLICY_CGROUP_KILL, /* the cgroup over its hard limit */
} policy_scope;

/* A host's readings as a verdict sees them. */
typedef struct policy_reading {
	uint64_t va;   /* the largest VA of a process of the host's arch */
	uint64_t rss;  /* the resident memory of the host's tree */
	uint64_t peak; /* POLICY_KILL: the VmPeak read at a boundary; 0: none */
	uint64_t gap;  /* POLICY_RECYCLE: the largest free block, when has_gap */
	int has_gap;
} policy_reading;

typedef struct policy_verdict {
	unsigned bits; /* the LIMIT_* reached; 0: none */
	char why[200]; /* the report's words for it ("va 4.00 GiB >= kill 3.75 GiB"); "" if none */
} policy_verdict;

/* The verdict on host h's readings r in scope: out->bits (also returned)
 * and out->why. Pure; the caller reads /proc (sample.c). */
unsigned policy_judge(policy_verdict *out, const run_ctx *c, const host *h, policy_scope scope,
                      const policy_reading *r);
/* Whether a host was past limit lim from its hello (hello: its figure
 * then, 0 unknown) and is so still at its death or a test's failure
 * (now): a limit below a fresh program's own size (--recycle-at rss=1M)
 * says nothing of why it died or the test failed while it had not grown
 * to twice its hello's figure (a test that
 * did may have died of it; the last reading may be an early one, below
 * the hello); a hello 64 times the death's is not this process's (the
 * shim's, an ASan build's terabytes of VA, where the probe is not loaded) */
int policy_past_from_start(uint64_t lim, uint64_t hello, uint64_t now);
int policy_near_soft(const run_ctx *c, uint64_t va, uint64_t rss);
/* Whether a host that died at va, rss (its tree) was near a recycle limit,
 * and which in why (n bytes; "rss 4.01 MiB >= recycle 1.00 MiB"); not a
 * limit its hello (hello_va, hello_rss: 0 when unknown) was past already
 * and it did not grow to twice that */
int policy_near_soft_why(const run_ctx *c, uint64_t va, uint64_t rss, uint64_t hello_va,
                         uint64_t hello_rss, char *why, size_t n);
int policy_recycle_why(const run_ctx *c, const mg_msg *m, const rtest *next, char *why, size_t n);
size_t policy_depth(const run_ctx *c, const lane *l);
/* Whether l's host has work enough (twice REPLY_WAIT of it, at its pace)
 * that its replies can wait REPLY_WAIT: a native host of paced depth, or a
 * gtest or Catch2 program (its shim sends everything on the reply pipe). */
int policy_batch_replies(const run_ctx *c, const lane *l);
double policy_interval(const run_ctx *c, uint64_t va, uint64_t prev, double next);

/* sample.c */
typedef struct sample_reading {
	uint64_t own_rss;  /* the host's own process (0 for a shim: its program is the test) */
	uint64_t va_tree;  /* the largest VA in the tree, of any arch */
	uint64_t va_same;  /* the largest VA of a process of the host's arch (or not known) */
	uint64_t rss_tree; /* the resident memory of the whole tree */
} sample_reading;

/* The timer's reading of host h: a pread of its statm, and a scan of its
 * tree when the last is older than c->tree_interval (which updates h's
 * desc_* figures). MG_EGONE when it has no live process to read. */
int sample_host(const run_ctx *c, host *h, double t, sample_reading *out);
/* The cgroup's usage into c->cg_usage, when a cgroup limit is judged. */
void sample_cgroup(run_ctx *c);
/* 1 when the cgroup's OOM-kill count rose since it was last read (kept in
 * c->oom_kills): the kernel's OOM killer struck; 0 else (or no cgroup). */
int sample_oom_killed(run_ctx *c);
/* The VmPeak of host h's process (/proc/PID/status, 6-17 us); 0 when gone. */
uint64_t sample_vm_peak(const host *h);
/* The largest free block of the address space host h is judged by (its
 * /proc/PID/maps, ~0.3 ms), read only where the runner judges gaps for it:
 * a gap limit, an x86 run, a host that does not judge itself (v1, or a
 * driver's program), VA past half the ceiling. 0 and *gap when read; -1
 * when not read. */
int sample_gap(const run_ctx *c, const host *h, uint64_t va, uint64_t *gap);
/* Whether host h's test makes progress (the no-progress check, once a
 * second): the processes of its test (a native host and its descendants; a
 * shim's descendants, the shim itself polls), at most SAMPLE_RUN_PROCS. */
#define SAMPLE_RUN_PROCS 64
typedef struct sample_run {
	uint64_t cpu_ticks; /* their CPU time (user + system), summed */
	size_t seen;        /* the processes read */
	size_t stopped;     /* of them, stopped (T or t) */
	char state;         /* a stopped one's state, else the first's */
} sample_run;
/* Reads /proc/PID/stat of each: 0, or MG_EGONE when none could be read. */
int sample_progress(const run_ctx *c, const host *h, sample_run *out);
/* The same read for any host, one that judges itself too (a failure near
 * the ceiling asks it once). */
int sample_gap_read(const run_ctx *c, const host *h, uint64_t va, uint64_t *gap);
/* The process whose maps describe host h's memory (policy_va_pid); a
 * shim's tree is scanned now, as its program may have changed since the
 * last scan. 0 when there is none (a shim between programs: never the
 * shim's own maps). */
pid_t sample_maps_pid(const run_ctx *c, host *h, double t);

/* host_conn.c */
void conn_build_env(run_ctx *c, int with_limits, const lane *l);
void conn_send(host *h, const mg_msg *m);
void conn_flush(run_ctx *c, lane *l);
size_t conn_unfeed(host *h);
/* Reads the reply pipe (a ring host: its ring) once into h's line buffer:
 * CONN_MORE (the read was full: there may be more), CONN_DRAINED (the pipe
 * is empty now), CONN_EOF (closed: the reply fd is closed too), CONN_LONG
 * (a line over the protocol's limit), and for a ring host CONN_BROKEN (the
 * ring says it holds more than it can) or CONN_GARBAGE (its pipe brought
 * other bytes than wake bytes). The lane takes the lines (conn_next_line). */
enum { CONN_MORE, CONN_DRAINED, CONN_EOF, CONN_LONG, CONN_BROKEN, CONN_GARBAGE };
int conn_fill(host *h);
/* A native host's reply ring: a shared memory file of MG_RING_MAP bytes,
 * mapped at h->ring; its fd (for the host to get as MG_PROTO_RING_FD, then
 * closed), or -1 when none could be made (the host uses its pipe). */
int conn_ring_open(host *h);
/* Unmaps it (the host is gone). */
void conn_ring_close(host *h);
/* Before poll sleeps on h's reply pipe: asks a ring host for a wake byte at
 * its next publish; 1 when its ring already holds replies (do not sleep). */
int conn_ring_arm(host *h);
/* After poll: no wake byte is wanted while the runner is awake. */
void conn_ring_disarm(host *h);
/* Whether a ring host has replies waiting in its ring. */
int conn_ring_ready(const host *h);
/* The next whole reply line read, 1; 0 when none is. */
int conn_next_line(host *h, char **line, size_t *len);
void conn_read_output(run_ctx *c, lane *l, int err_stream);
/* Whether h's output is split at its stream marks (v2 hosts serving it: native, pytest; and the
 * process-per-test shims), not given to the test in front when read. */
int conn_output_marked(const run_ctx *c, const host *h);
/* Gives rt (NULL: no test, they are dropped) the bytes the host wrote since
 * its last marks, reading what its output pipes still hold first: at the end
 * of a test the host did not end itself (a crash, a kill, a timeout). */
void conn_output_to(run_ctx *c, lane *l, rtest *rt);

/* lane.c */
void lane_requeue(run_ctx *c, lane *l);
void lane_fire(run_ctx *c, lane *l, host_event e);
void lane_detach(run_ctx *c, lane *l);
void lane_kill(run_ctx *c, lane *l, host_end end, const char *why);
void lane_protocol_error(run_ctx *c, lane *l, const char *why);
void lane_schedule(run_ctx *c, lane *l);
void lane_line(run_ctx *c, lane *l, char *line, size_t len);
/* Reads the host's replies and acts on each line, until the pipe is empty,
 * closed or the host ended; measures the pace of its results. */
void lane_read_replies(run_ctx *c, lane *l);
/* Reads the replies of a host whose reads wait for REPLY_WAIT now: before a
 * verdict that names the test it is running (a kill, a timeout). */
void lane_catch_up(run_ctx *c, lane *l);
void lane_exited(run_ctx *c, lane *l, mg_exit_end end);
void lane_kill_over_limit(run_ctx *c, lane *l, const char *why, double t, int own);
void lane_init_all(run_ctx *c);
/* Lanes run copies of one program side by side: with --lane-tmpdir, a
 * directory under TMPDIR with one a lane (lane-K), each lane's TEST_TMPDIR
 * (conn_build_env); none with one lane or where the user set TEST_TMPDIR.
 * lane_tmp_remove removes it and what the tests left in it once every host
 * has ended. */
void lane_tmp_make(run_ctx *c);
void lane_tmp_remove(run_ctx *c);
size_t lane_pop_head(run_ctx *c, lane *l);
/* The user's fail-fast reached (policy_fail_fast_hit): the tests not handed
 * out are skip (in l's shard), l's host is quit if it holds tests it has not
 * started (the one it runs finishes: its result is real). */
void lane_fail_fast(run_ctx *c, lane *l);
void lane_failed_start(lane *l, const char *why);
void lane_timeout(run_ctx *c, lane *l, double dur, const char *why);
/* No test started within timeout after one ended in l's host: the program
 * hung between the two (a suite's tear-down or set-up). Their entry of
 * its own, "<between A and B>", timeout; B, which never started, runs in
 * a fresh host. */
void lane_timeout_between(run_ctx *c, lane *l, double timeout);

/* supervise.c */
/* A poll(2) timeout for a wait of seconds (>= 0), rounded up: clamped to a
 * day, so no --timeout or --deadline can overflow an int (the loop wakes
 * and waits again). */
static inline int supervise_poll_ms(double seconds)
{
	if (!(seconds > 0))
		return 0;
	if (seconds > 86400.0)
		return 86400000;
	return (int)(seconds * 1000 + 0.999);
}

void supervise_signals(run_ctx *c);
void supervise_stop_all(run_ctx *c, host_end end, const char *why);
void supervise_run(run_ctx *c);
void supervise_install_signals(run_ctx *c);
void supervise_interruptible_writes(void);
int supervise_stop_pending(run_ctx *c);
int supervise_stop_again(run_ctx *c, int was);
void supervise_reap_orphans(void);

/* listing.c */
int listing_run(run_ctx *c, name_list *out, mg_err *err);
/* A host's time to list its tests: --timeout if given, else LISTING_TIMEOUT
 * (the run's --deadline aside). */
double listing_limit(const run_ctx *c);
/* gtest, catch2: the listing for the hosts (driver.h, MG_LISTING_FD): a
 * sealed memfd, or -1 (each host then lists for itself). */
int listing_handoff(const run_ctx *c, const name_list *nl);
/* 1 when the gtest/catch2 program is an ASan build (__asan_init in it):
 * scans the whole executable, once a run. 0 for other drivers. */
int listing_asan(const run_ctx *c);
/* catch2: a Catch2 v3 program whose every test of the run was skipped
 * exits 4 directly (a failure): the entry <program exit>, fail, that says
 * so. Nothing for v2 (exit 0 then) and every other driver. */
void listing_all_skipped(run_ctx *c);
/* gtest, catch2: a run of no test that would pass runs the program once as
 * given; a bad exit is the entry <program exit>, error (listing.c). */
void listing_no_tests_run(run_ctx *c);
void listing_explain(const run_ctx *c, const mg_err *err);
/* ctest: CTestCustom.cmake's pre-test commands (post 0: before the listing;
 * one that fails runs no test: MG_EXIT_FAILED, as ctest's exit 8, or
 * MG_EXIT_INFRA when ctest could not run them, err says which) or post-test
 * ones (post 1: after the lanes, not in an interrupted run; one that fails
 * is the entry <CTEST_CUSTOM_POST_TEST>, fail). 0 otherwise, and for every
 * other driver. */
int listing_custom(run_ctx *c, int post, mg_err *err);
/* ctest: a run with failed tests writes ctest's LastTestsFailed.log, as
 * ctest would, for a later --rerun-failed (ctest_failed_log); not in an
 * interrupted run. Nothing for every other driver. */
void listing_ctest_failed(run_ctx *c);
/* The listing's extra lines as entries of the run (record_extra: once per
 * run by name, a lane's host may report the same), after the lanes. */
void listing_extras(run_ctx *c, const name_list *nl);

#endif

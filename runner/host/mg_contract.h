/*
 * mg_contract.h - the boundary contract's shared facts, one definition for
 * every process that judges its own memory (the host library, the probe) and
 * for the driver that starts the probe: the verdict's environment (one list),
 * the self-readings (statm, status) and the probe's side channel. libc only,
 * built for x86 and x64; never allocates; the readings are
 * async-signal-safe (the host library's `dying` uses them).
 */
#ifndef MG_CONTRACT_H
#define MG_CONTRACT_H

#include <stddef.h>
#include <stdint.h>

#include "mg_proto.h"
#include "mg_verdict.h"

/*
 * The verdict's environment: every limit the runner gives a process for its
 * own boundary verdict, the field of mg_verdict it fills, and the protocol
 * version that brought it. The host library and the probe read them with
 * mg_contract_read_limits; the gtest driver passes each one to its program.
 * A limit added here reaches all three.
 */
typedef struct mg_contract_limit {
	const char *env;
	size_t field; /* offsetof(mg_verdict, ...) */
	unsigned version;
} mg_contract_limit;

static const mg_contract_limit mg_contract_limits[] = {
    {MG_ENV_RECYCLE_VA, offsetof(mg_verdict, recycle_va), 1},
    {MG_ENV_RECYCLE_RSS, offsetof(mg_verdict, recycle_rss), 1},
    {MG_ENV_KILL_VA, offsetof(mg_verdict, kill_va), 2},
    {MG_ENV_KILL_RSS, offsetof(mg_verdict, kill_rss), 2},
    {MG_ENV_RECYCLE_GAP, offsetof(mg_verdict, gap_limit), 2},
    {MG_ENV_SITES, offsetof(mg_verdict, sites), 3},
    {MG_ENV_SITES_MIN, offsetof(mg_verdict, sites_min), 3},
};
#define MG_CONTRACT_NLIMITS (sizeof(mg_contract_limits) / sizeof(mg_contract_limits[0]))

/* A decimal value of the environment: 1 and *out, 0 when absent or empty
 * (*out untouched), -1 when not a number (one line on stderr names it). */
int mg_contract_env_u64(const char *name, uint64_t *out);

/*
 * Fills v's limits from the environment, those of protocol version or
 * below: a variable absent or empty is no limit; one that is not a decimal
 * number is no limit either, and one line on stderr names it. A gap larger
 * than half this arch's address space is no limit (no such block exists).
 */
void mg_contract_read_limits(mg_verdict *v, unsigned version);

/* The page size statm counts in (sysconf, 4096 when it will not say). */
uint64_t mg_contract_page(void);

/*
 * VmSize and VmRSS in bytes from one pread of a kept-open /proc/self/statm
 * (~1.5 us). 0, or -1 with both zero when it cannot be read.
 * Async-signal-safe.
 */
int mg_contract_statm(int fd, uint64_t page, uint64_t *va, uint64_t *rss);

/*
 * VmPeak and VmHWM in bytes from /proc/self/status (6-9 us): a pread of fd
 * when it is open, else the file opened, read and closed. 0, or -1 with
 * both zero when it cannot be read. Async-signal-safe (a stack buffer).
 */
int mg_contract_status(int fd, uint64_t *peak_va, uint64_t *peak_rss);

/*
 * Whether the test just ended made a write call (to any file, itself or by
 * a child it reaped), for the stream marks: the kernel's syscw in a
 * kept-open /proc/self/io (fd) rose by more than the writes the caller
 * counts as its own (own, a running count) since the last reading. One
 * pread (~2.4 us); 1 when it cannot be read. Only calls that wrote are to
 * be counted as the caller's, so a miscount errs towards a mark too many,
 * never a missing one. The first call sets the base.
 */
typedef struct mg_wrote {
	int fd;
	uint64_t syscw_base, own_base;
} mg_wrote;
int mg_contract_wrote(mg_wrote *w, uint64_t own);

/*
 * The probe's side channel (../probe/memguard_probe.c writes it, the gtest
 * driver reads it): the environment the driver gives the program, and the
 * lines the probe writes to MG_PROBE_ENV_FD. Every variable the driver set
 * or removed for the program (GTEST_*, LD_PRELOAD, ASAN_OPTIONS) is named in
 * MG_PROBE_ENV_SET, with the user's own value in MG_PROBE_ENV_USER NAME:
 * the program reads the driver's values (through the probe's getenv, until
 * its first test starts), its children inherit the user's, and none of
 * MEMGUARD_* (the probe removes them at load). The lines:
 *   "probe 1"                          at load: the driver knows it is there
 *   "stop WHY [BYTES]"                 a verdict ends the program's run of tests at this
 *                                      end: it stops itself (SIGSTOP) until the driver
 *                                      continues it, then finishes up to its next test
 *   "err"                              the test's end that follows marked stderr
 *   "end VA RSS PEAKVA PEAKRSS NAME"   a test's end, its figures (peaks 0: not read)
 *   "module ...", "site ...", "nomem N", then "sites NAME"
 *                                      a test's allocation sites (PROTOCOL.md 6d),
 *                                      before its end (in the pipe or the stream)
 *   "park LEAKED"                      where a stopped program ended (LEAKED 1:
 *                                      LeakSanitizer found leaks), or one the driver
 *                                      asked to end (its quit word, below)
 *   "exit VA RSS"                      as the program ends (the listing run)
 * With MG_PROBE_ENV_SECRET (GoogleTest), stop and end (without NAME: the
 * end tag's line that follows names it, "end VA RSS PEAKVA PEAKRSS SITES
 * ERR") come in the program's stdout instead, each line with MG_PROBE_MARK
 * SECRET " " in front, put in the buffer before the end tag (no write of
 * the probe's own: the flush carries them); the pipe when the buffer has
 * no room. With the secret, in a Catch2 program (GoogleTest's stderr is the
 * pipe of its stdout, its bytes in order with the ends: no mark), a test
 * that wrote gets MG_PROBE_MARK SECRET " err" on stderr at its end, before
 * the end is written: the stderr bytes in front of it, since the last such
 * mark, are its own (a test that wrote nothing has none; the end says
 * which: ERR 1, or "err" before it in the pipe). With the secret, in a
 * GoogleTest program, MG_PROBE_MARK SECRET " seen VA RSS" in front of the first
 * "[ RUN      ]" line the probe sees in a flush: its ends come in the
 * stream, and VA RSS are the program's as that test starts (the driver's
 * `base`) (a result line with none in front of it may be the test's own
 * look-alike: the driver holds it until it knows); and " own" in front of
 * each result line still in stdout's buffer when a test calls exit (the
 * test's look-alike: GoogleTest flushes its own at once).
 * WHY is protocol v2's word of `recycle` (mg_proto_why_word).
 */
#define MG_PROBE_ENV_FD     "MEMGUARD_PROBE_FD"     /* the pipe's fd in the program */
#define MG_PROBE_ENV_FORMAT "MEMGUARD_PROBE_FORMAT" /* "catch2": Catch2's XML boundaries */
#define MG_PROBE_ENV_SECRET "MEMGUARD_PROBE_SECRET" /* 16 hex digits: ends in the stream */
/* the fd of a shared page whose first 32-bit word the driver sets to 1 at
 * the runner's quit (a recycle or end it decided): the program then ends
 * where its next test would start, as after a stop (park) */
#define MG_PROBE_ENV_QUIT      "MEMGUARD_PROBE_QUIT"
#define MG_PROBE_MARK          "\x1emg" /* + SECRET: a stop or end line in the stream */
#define MG_PROBE_ENV_FILTER    "MEMGUARD_PROBE_FILTER" /* a file holding GTEST_FILTER */
#define MG_PROBE_ENV_SET       "MEMGUARD_PROBE_SET"    /* NAME:NAME: what the driver set */
#define MG_PROBE_ENV_USER      "MEMGUARD_PROBE_USER_"  /* + NAME: the user's own value */
#define MG_PROBE_FD            3
#define MG_PROBE_FILTER_UNREAD "-*" /* GTEST_FILTER when the filter is a file */
#define MG_PROBE_HELLO         "probe 1\n"
#define MG_PROBE_STOP          "stop "
#define MG_PROBE_END           "end "
#define MG_PROBE_SEEN          "seen"
#define MG_PROBE_OWN           "own"    /* the result line after it is the test's output */
#define MG_PROBE_ERR           "err"    /* stderr's mark, and the pipe's line before an end */
#define MG_PROBE_SITES         "sites " /* + NAME: the test's module/site/nomem lines end */
#define MG_PROBE_EXIT          "exit "
#define MG_PROBE_BASE          "base "        /* + VA RSS: Catch2's first test starts (the pipe) */
#define MG_PROBE_CALLED_EXIT   "called-exit " /* + STATUS: exit() during a Catch2 test */
#define MG_PROBE_PARK          "park "        /* + "0\n" or "1\n": leaks found */
#define MG_PROBE_NAME_MAX      4000 /* longer names are cut (the driver compares the prefix) */

#endif

/*
 * mg_sites.h - allocation sites: who allocated what a test left behind. One
 * implementation, compiled into the host library and the probe (x86, x64):
 * it interposes mmap/munmap/mremap, the malloc family and C++ operator
 * new/delete, records every mapping and every allocation of
 * MG_SITES_LARGE or more with its frame-pointer stack, samples the smaller
 * ones (one per MG_SITES_LARGE bytes allocated, per thread), and at a test's
 * end groups the test's still-live records by stack into `module` and
 * `site` lines (PROTOCOL.md). libc only; the allocation path takes no lock
 * and never allocates. Until mg_sites_init it only passes calls through.
 */
#ifndef MG_SITES_H
#define MG_SITES_H

#include <stddef.h>
#include <stdint.h>

#define MG_SITES_LARGE    (512 * 1024)  /* recorded always; the mean sampling interval */
#define MG_SITES_DEPTH    16            /* frames kept per stack */
#define MG_SITES_TOP      8             /* sites sent per test */
#define MG_SITES_MIN      (1024 * 1024) /* a test leaving less sends none (MEMGUARD_SITES_MIN) */
#define MG_SITES_PIN_TEXT 128           /* bytes of a pin's text: "LABEL (TEST)", cut to fit */

/* The levels of MEMGUARD_SITES (--sites): off, default (sampled), all. */
enum { MG_SITES_OFF = 0, MG_SITES_DEFAULT = 1, MG_SITES_ALL = 2 };

/*
 * Starts tracking at level (MG_SITES_DEFAULT or MG_SITES_ALL; MG_SITES_OFF
 * does nothing): maps the tables (once), takes the calling thread's stack
 * bounds (call it from the main thread, outside malloc). Tests whose live
 * records sum to min bytes or more get sites (0: MG_SITES_MIN).
 */
void mg_sites_init(unsigned level, uint64_t min);

/* A test starts: what is allocated from now on is its; name (len bytes, may
 * be NULL) is what memguard_pin appends to the labels of the items placed
 * during it. */
void mg_sites_test_start(const char *name, size_t len);

/* Allocations that failed (NULL or MAP_FAILED with ENOMEM, a throwing
 * operator new) since the test started. */
uint64_t mg_sites_nomem(void);

/*
 * The `module` and `site` lines of the test that just ended (its records
 * still live, grouped by stack, the MG_SITES_TOP largest), each site
 * followed by a `pin` line for each live item pinned (memguard_pin) in a
 * block the site allocated (the MG_PROTO_PINS_MAX placed first); then the
 * `held` lines (with `heldin`, `heldby`, `pin`) of the blocks earlier tests
 * allocated that its live items hold, at most MG_SITES_TOP; at dst: their
 * length (0: none, the test left less than min and holds nothing, or
 * tracking is off). Lines that do not fit in cap are left out whole.
 * Costs a scan of the table only when the test left min bytes or more, a
 * scan of the pins only when it placed an item still live.
 */
size_t mg_sites_put(char *dst, size_t cap);

#endif

/*
 * mg_verdict.h - the boundary verdict, one implementation for the host
 * library and the GoogleTest probe: after each test, from the process's own
 * memory, whether it may start another (soft limits, the growth it expects
 * against the kill limits, the free block of the gap limit). libc only,
 * built for x86 and x64; no allocation.
 */
#ifndef MG_VERDICT_H
#define MG_VERDICT_H

#include <stddef.h>
#include <stdint.h>

#include "mg_proto.h"

#define MG_VERDICT_WINDOW 32 /* recent tests whose growth the next is expected to repeat */

typedef struct mg_verdict {
	/* the limits, bytes; 0: none (from MEMGUARD_RECYCLE_*, MEMGUARD_KILL_*) */
	uint64_t recycle_va, recycle_rss, kill_va, kill_rss, gap_limit;
	/* not limits: the allocation sites' level and threshold (MEMGUARD_SITES,
	 * MEMGUARD_SITES_MIN; mg_sites.h), carried in the same list so that the
	 * gtest driver passes them too */
	uint64_t sites, sites_min;
	/* private */
	int64_t growth[MG_VERDICT_WINDOW], rgrowth[MG_VERDICT_WINDOW];
	size_t n;
	uint64_t va_start, rss_start; /* at the start of the running test */
	uint64_t gap_ok_va;           /* VA when a gap-sized block last fitted; 0: not asked */
} mg_verdict;

/* The memory the next test starts from (after hello, after each verdict). */
void mg_verdict_start(mg_verdict *v, uint64_t va, uint64_t rss);

/* The largest VA (rss: RSS) growth of the recent tests. O(window). */
uint64_t mg_verdict_growth(const mg_verdict *v, int rss);

/*
 * At a test's end, with the memory it left (va, rss): counts its growth,
 * then judges, in this order, the recycle limits (MG_WHY_VA, MG_WHY_RSS),
 * VA and RSS plus the growth expected of the next test against the kill
 * limits (MG_WHY_GROWTH, MG_WHY_RSSGROWTH: *bytes the growth), and, when VA
 * grew since a gap-sized block last fitted, whether one still maps (one
 * untouched mmap and its munmap, ~2 us: MG_WHY_GAP, *bytes the limit).
 * MG_WHY_NONE: the next test may start. Makes va, rss the next start.
 */
mg_why mg_verdict_end(mg_verdict *v, uint64_t va, uint64_t rss, uint64_t *bytes);

/*
 * The admission before a test (PROTOCOL.md 6a), from the memory va the host
 * stands at: history's word on it (expect RISE GROWTH; 0 0 when none came),
 * whether history knows the test's own rise (known: expect's v4 "known")
 * and the largest rise above a boundary a test of this host made (its
 * VmPeak). The need is the larger of RISE and GROWTH; unless known, the
 * host's largest rise when that is larger (a test history does not know may
 * rise as much as any seen). When va plus the need reaches the kill VA
 * limit, *bytes is it and the answer its source: MG_WHY_PEAK (the runner's
 * expect) or MG_WHY_RISE (this host's own); the test goes to a fresh host.
 * MG_WHY_NONE: it may start here. The host library and the pytest plugin
 * (ctypes) both ask it.
 */
mg_why mg_verdict_admit(const mg_verdict *v, uint64_t va, uint64_t rise, uint64_t growth, int known,
                        uint64_t max_rise, uint64_t *bytes);

/* The numbers both sides read and write without stdio. mg_parse_u64 skips
 * blanks, reads decimal digits and leaves *p after them; mg_put_u64 writes v
 * in decimal at p and returns the end (async-signal-safe). */
uint64_t mg_parse_u64(const char **p);
char *mg_put_u64(char *p, uint64_t v);

#endif

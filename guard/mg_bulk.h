/*
 * mg_bulk.h - the arrays of a test each (the runner's tests, its output
 * queue to a host and its listing; a report shard's tests; a shim's name
 * table, queue and line buffers), in huge pages once they are large. On
 * this machine class the first touch of a 4 KiB page is a fault of ~15 us
 * (a paravirtualized VM's shadow page tables), and a 4 KiB page's share of
 * a 2 MiB one ~0.4 us: at 20,000 tests the runner's test table and a
 * shard's tests were ~700 of the runner's ~1,150 faults that grow with the
 * tests, over a us a test (README, "Cost: huge pages for a run's arrays").
 *
 * A block of MG_BULK_MIN (256 KiB) or more is a mapping of its own, whole
 * 2 MiB pages on a 2 MiB boundary, advised MADV_HUGEPAGE (taken where
 * transparent huge pages are "always" or "madvise", Debian's default;
 * elsewhere 4 KiB pages, as malloc's); a smaller block is malloc's. From
 * 256 KiB (64 faults) one 2 MiB page is the cheaper: memguard's own
 * processes are a few MiB larger for it at ~20,000 tests (not a figure of
 * any test: a shim makes its blocks after it forked its spawner). Which
 * one a block is follows from its size, so every call names the size the
 * block has (its capacity: what it was last given), as munmap needs. Header
 * only and libc only, like mg_err.h: the folders that may include only
 * guard's headers (adapters) use it too. Out of memory aborts, as
 * mg_xrealloc does.
 */
#ifndef MG_BULK_H
#define MG_BULK_H

#include "mg_err.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define MG_BULK_MIN  ((size_t)256 << 10)
#define MG_BULK_PAGE ((size_t)2 << 20)

/* n rounded up to whole 2 MiB pages: a mapped block's length */
static inline size_t mg_bulk_len(size_t n)
{
	return (n + MG_BULK_PAGE - 1) & ~(MG_BULK_PAGE - 1);
}

/* A fresh mapping of len bytes (whole 2 MiB pages) on a 2 MiB boundary: a
 * page more is mapped and what lies outside the boundaries unmapped. */
static inline void *mg_bulk_map(size_t len)
{
	char *m = mmap(NULL, len + MG_BULK_PAGE, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		fputs("memguard: out of memory\n", stderr);
		abort();
	}
	uintptr_t at = ((uintptr_t)m + MG_BULK_PAGE - 1) & ~(uintptr_t)(MG_BULK_PAGE - 1);
	size_t head = at - (uintptr_t)m;
	if (head)
		munmap(m, head);
	if (MG_BULK_PAGE - head)
		munmap((char *)at + len, MG_BULK_PAGE - head);
	/* advice: where huge pages are off it is refused, and 4 KiB pages serve */
	madvise((void *)at, len, MADV_HUGEPAGE);
	return (void *)at;
}

/* Frees p, a block of size bytes (NULL: nothing). */
static inline void mg_bulk_free(void *p, size_t size)
{
	if (p && size >= MG_BULK_MIN)
		munmap(p, mg_bulk_len(size));
	else
		free(p);
}

/* p (NULL, or a block of old bytes) as a block of size bytes, its first
 * min(old, size) bytes kept; what lies beyond them is undefined (a fresh
 * mapping's zeros, or malloc's). Never NULL. */
static inline void *mg_bulk_realloc(void *p, size_t old, size_t size)
{
	int was = p && old >= MG_BULK_MIN, big = size >= MG_BULK_MIN;
	if (!was && !big)
		return mg_xrealloc(p, size);
	if (was && big && mg_bulk_len(old) == mg_bulk_len(size))
		return p;
	void *q = big ? mg_bulk_map(mg_bulk_len(size)) : mg_xrealloc(NULL, size);
	if (p) {
		memcpy(q, p, old < size ? old : size);
		mg_bulk_free(p, old);
	}
	return q;
}

#endif

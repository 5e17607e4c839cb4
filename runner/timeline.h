/*
 * timeline.h - a bounded, downsampled VA/RSS timeline per lane. When it is
 * full, neighbouring points are merged pairwise (keeping the maxima) and the
 * stride doubles, so a million samples still fit in a fixed number of
 * points and no peak is lost. O(1) amortised per sample, no allocation
 * after timeline_init.
 */
#ifndef MG_TIMELINE_H
#define MG_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "report.h"

typedef struct timeline {
	report_point *pts;
	size_t n, cap;
	uint64_t stride;  /* samples per point */
	uint64_t pending; /* samples folded into acc so far */
	report_point acc;
} timeline;

/* cap: the most points kept (even, >= 2). -1 on out of memory. */
int timeline_init(timeline *tl, size_t cap);
void timeline_add(timeline *tl, double t, uint64_t va, uint64_t rss, uint32_t generation);
/* Flushes the partial point and appends all points to the shard. */
void timeline_flush_to(timeline *tl, report_shard *s);
void timeline_free(timeline *tl);

#endif

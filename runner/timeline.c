/*
 * timeline.c - bounded downsampling of a lane's samples (see timeline.h).
 * Called on every sample: no allocation, no I/O.
 */
#include "timeline.h"

#include <stdlib.h>

int timeline_init(timeline *tl, size_t cap)
{
	/* written before read (push): untouched pages stay unmapped */
	tl->pts = malloc(cap * sizeof(*tl->pts));
	tl->n = 0;
	tl->cap = cap;
	tl->stride = 1;
	tl->pending = 0;
	return tl->pts ? 0 : -1;
}

static void fold(report_point *into, const report_point *p)
{
	if (p->va > into->va) {
		into->va = p->va;
		into->generation = p->generation;
	}
	if (p->rss > into->rss)
		into->rss = p->rss;
}

static void push(timeline *tl, const report_point *p)
{
	if (tl->n == tl->cap) {
		for (size_t i = 0; i < tl->cap / 2; i++) {
			tl->pts[i] = tl->pts[2 * i];
			fold(&tl->pts[i], &tl->pts[2 * i + 1]);
		}
		tl->n = tl->cap / 2;
		tl->stride *= 2;
	}
	tl->pts[tl->n++] = *p;
}

void timeline_add(timeline *tl, double t, uint64_t va, uint64_t rss, uint32_t generation)
{
	report_point p = {t, va, rss, generation};
	if (tl->pending == 0)
		tl->acc = p;
	else
		fold(&tl->acc, &p);
	if (++tl->pending >= tl->stride) {
		push(tl, &tl->acc);
		tl->pending = 0;
	}
}

void timeline_flush_to(timeline *tl, report_shard *s)
{
	if (tl->pending) {
		push(tl, &tl->acc);
		tl->pending = 0;
	}
	for (size_t i = 0; i < tl->n; i++)
		*report_shard_add_point(s) = tl->pts[i];
}

void timeline_free(timeline *tl)
{
	free(tl->pts);
	tl->pts = NULL;
}

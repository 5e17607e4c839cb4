/*
 * mg_verdict.c - the boundary verdict (see mg_verdict.h): the same code in
 * every process that judges its own memory. libc only, no allocation: it
 * runs in a process near its limit.
 */
#include "mg_verdict.h"

#include <sys/mman.h>

void mg_verdict_start(mg_verdict *v, uint64_t va, uint64_t rss)
{
	v->va_start = va;
	v->rss_start = rss;
}

uint64_t mg_verdict_growth(const mg_verdict *v, int rss)
{
	int64_t g = 0;
	for (size_t i = 0; i < v->n && i < MG_VERDICT_WINDOW; i++) {
		int64_t x = rss ? v->rgrowth[i] : v->growth[i];
		if (x > g)
			g = x;
	}
	return (uint64_t)g;
}

/* 1 when a block of the gap limit still maps; asked again only when VA grew
 * since it last did (cheap when flat, exact when not). */
static int gap_fits(mg_verdict *v, uint64_t va)
{
	if (v->gap_ok_va && va <= v->gap_ok_va)
		return 1;
	void *p = mmap(NULL, (size_t)v->gap_limit, PROT_NONE,
	               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return 0;
	munmap(p, (size_t)v->gap_limit);
	v->gap_ok_va = va;
	return 1;
}

mg_why mg_verdict_end(mg_verdict *v, uint64_t va, uint64_t rss, uint64_t *bytes)
{
	v->growth[v->n % MG_VERDICT_WINDOW] = (int64_t)va - (int64_t)v->va_start;
	v->rgrowth[v->n % MG_VERDICT_WINDOW] = (int64_t)rss - (int64_t)v->rss_start;
	v->n++;
	mg_verdict_start(v, va, rss);
	if (v->recycle_va && va >= v->recycle_va)
		return MG_WHY_VA;
	if (v->recycle_rss && rss >= v->recycle_rss)
		return MG_WHY_RSS;
	if (v->kill_va && va + mg_verdict_growth(v, 0) >= v->kill_va) {
		*bytes = mg_verdict_growth(v, 0);
		return MG_WHY_GROWTH;
	}
	if (v->kill_rss && rss + mg_verdict_growth(v, 1) >= v->kill_rss) {
		*bytes = mg_verdict_growth(v, 1);
		return MG_WHY_RSSGROWTH;
	}
	if (v->gap_limit && (size_t)v->gap_limit == v->gap_limit && !gap_fits(v, va)) {
		*bytes = v->gap_limit;
		return MG_WHY_GAP;
	}
	return MG_WHY_NONE;
}

mg_why mg_verdict_admit(const mg_verdict *v, uint64_t va, uint64_t rise, uint64_t growth, int known,
                        uint64_t max_rise, uint64_t *bytes)
{
	uint64_t need = rise > growth ? rise : growth;
	mg_why why = MG_WHY_PEAK; /* the runner's word, else this host's own */
	if (!known && max_rise > need) {
		need = max_rise;
		why = MG_WHY_RISE;
	}
	if (!need || !v->kill_va || va + need < v->kill_va)
		return MG_WHY_NONE;
	*bytes = need;
	return why;
}

uint64_t mg_parse_u64(const char **p)
{
	uint64_t v = 0;
	while (**p == ' ' || **p == '\t')
		(*p)++;
	while (**p >= '0' && **p <= '9')
		v = v * 10 + (uint64_t)(*(*p)++ - '0');
	return v;
}

char *mg_put_u64(char *p, uint64_t v)
{
	char tmp[24];
	int n = 0;
	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (n > 0)
		*p++ = tmp[--n];
	return p;
}

/* fuzz_report.c - the report readers (adapters/report.h): the input read in
 * pieces (report_parse, as report_load and notes read it) and as one
 * Jansson tree (report_from_json); a report either accepts is written back
 * (report_write, report_to_json), and when both accept they must hold the
 * same report (the same text written). The read that hands each test to a
 * callback (report_parse_tests, as compare reads) must accept exactly what
 * report_parse does, and hand over every test it holds, each in its shard
 * with its allocation sites. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/asan_interface.h>
#endif
#endif
#ifndef ASAN_POISON_MEMORY_REGION
#define ASAN_POISON_MEMORY_REGION(a, n)   ((void)(a), (void)(n))
#define ASAN_UNPOISON_MEMORY_REGION(a, n) ((void)(a), (void)(n))
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Jansson's allocations come from an arena reset after every input: a
 * report of 2 KB is hundreds of small Jansson objects, and under ASan each
 * malloc and free (stack depot, quarantine) cost more than the parsing
 * (3,000-4,000 executions a CPU second, short of 10 M in 15 minutes). The
 * arena keeps ASan's checks where they can fire (Jansson itself is not
 * instrumented; our code reading its strings is): only the blocks handed
 * out are unpoisoned, so at least 8 poisoned bytes follow each, a block is
 * poisoned again when freed (a use after free is caught until the input
 * ends). Each block is preceded by its size. Past the arena's end blocks
 * fall back to malloc.
 */
#define ARENA_SIZE ((size_t)32 << 20)
#define ALIGN      16

static unsigned char *arena;
static size_t arena_used;

static void *arena_malloc(size_t n)
{
	/* [size][block][>= 8 poisoned], 16-aligned */
	size_t need = ALIGN + ((n + 8 + ALIGN - 1) / ALIGN) * ALIGN;
	if (!arena || arena_used + need > ARENA_SIZE)
		return malloc(n);
	unsigned char *p = arena + arena_used + ALIGN;
	ASAN_UNPOISON_MEMORY_REGION(p - sizeof(size_t), sizeof(size_t) + n);
	((size_t *)p)[-1] = n;
	arena_used += need;
	return p;
}

static void arena_free(void *ptr)
{
	unsigned char *p = ptr;
	if (!p)
		return;
	if (!arena || p < arena || p >= arena + ARENA_SIZE) {
		free(p);
		return;
	}
	ASAN_POISON_MEMORY_REGION(p, ((size_t *)p)[-1]);
}

/* Every Jansson value of the input is freed by now: the arena starts over. */
static void arena_reset(void)
{
	ASAN_POISON_MEMORY_REGION(arena, arena_used);
	arena_used = 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	arena = malloc(ARENA_SIZE);
	if (!arena)
		abort();
	ASAN_POISON_MEMORY_REGION(arena, ARENA_SIZE);
	json_set_alloc_funcs(arena_malloc, arena_free);
	return 0;
}

/* The report as report_write writes it (malloc'd; *len its length). */
static char *written(const report *r, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	if (!f)
		abort();
	if (report_write(r, f) != 0)
		abort();
	fclose(f);
	return buf;
}

typedef struct seen {
	const report *whole;
	size_t shard, test, n;
} seen;

static int see(size_t shard, const report_test *t, uint64_t va_peak, const report_test_sites *sites,
               void *ctx, mg_err *err)
{
	(void)va_peak;
	seen *s = ctx;
	(void)err;
	if (shard != s->shard) {
		s->shard = shard;
		s->test = 0;
	}
	if (s->whole) { /* the same test, at the same place */
		if (shard >= s->whole->nshards || s->test >= s->whole->shards[shard].ntests)
			abort();
		const report_test *w = &s->whole->shards[shard].tests[s->test];
		if (strcmp(w->name ? w->name : "", t->name ? t->name : "") ||
		    w->va_delta != t->va_delta || w->va_after != t->va_after)
			abort();
		/* its sites with it: as many, of the same sizes */
		const report_test_sites *ws =
		    report_shard_test_sites(&s->whole->shards[shard], s->test);
		if (!ws != !sites || (ws && (ws->nsites != sites->nsites || sites->test != 0)))
			abort();
		for (size_t k = 0; ws && k < ws->nsites; k++)
			if (ws->sites[k].bytes != sites->sites[k].bytes ||
			    ws->sites[k].nframes != sites->sites[k].nframes ||
			    ws->sites[k].npins != sites->sites[k].npins)
				abort();
	}
	s->test++;
	s->n++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	mg_err err;
	report *pieces = NULL, *tree = NULL;
	report_parse(&pieces, (const char *)data, size, &err);
	report *heads = NULL;
	seen sn = {pieces, 0, 0, 0};
	report_parse_tests(&heads, (const char *)data, size, see, &sn, &err);
	if (!heads != !pieces)
		abort(); /* the two piecewise reads disagree */
	if (heads) {
		size_t total = 0;
		for (size_t i = 0; i < pieces->nshards; i++)
			total += pieces->shards[i].ntests;
		if (sn.n != total || heads->nshards != pieces->nshards)
			abort();
		report_free(heads);
	}
	json_error_t jerr;
	json_t *doc = json_loadb((const char *)data, size, 0, &jerr);
	if (doc && report_from_json(&tree, doc, &err) == 0)
		json_decref(report_to_json(tree));
	if (pieces && tree) {
		size_t la, lb;
		char *a = written(pieces, &la), *b = written(tree, &lb);
		if (la != lb || memcmp(a, b, la) != 0)
			abort(); /* the two readers disagree */
		free(a);
		free(b);
	}
	report_free(pieces);
	report_free(tree);
	json_decref(doc);
	arena_reset();
	return 0;
}

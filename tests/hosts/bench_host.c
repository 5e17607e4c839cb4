/*
 * bench_host.c - 10,000 short leak-free tests bench/t00000.. (~1 us of work
 * each) to measure what memguard adds per test. MG_BENCH_TESTS sets the
 * count; MG_BENCH_MAPPINGS=N makes N separate mappings first (a host with a
 * busy address space, for the gap check's cost); MG_BENCH_GROW=1 makes every
 * test keep one more page (VA grows at every boundary); MG_BENCH_ALLOCS=N
 * makes every test malloc and free N small blocks (16 B to 1 KiB, as a
 * GoogleTest test's strings do: the allocation sites' cost). Plain C: built
 * for x86 and x64.
 */
#include "memguard_host.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define NAME_LEN 32

static size_t count = 10000;
static int grow;
static unsigned allocs;
static char (*names)[NAME_LEN];

static size_t ops_count(void *ctx)
{
	(void)ctx;
	return count;
}

static const char *ops_name(void *ctx, size_t i)
{
	(void)ctx;
	return names[i];
}

static mg_result ops_run(void *ctx, size_t i, char *msg, size_t cap)
{
	(void)ctx;
	(void)msg;
	(void)cap;
	volatile unsigned acc = (unsigned)i;
	for (unsigned k = 0; k < 400; k++)
		acc = acc * 2654435761u + k;
	for (unsigned k = 0; k < allocs; k++) {
		void *volatile p = malloc(16 + (k * 37 + i) % 1009);
		free(p);
	}
	if (grow && mmap(NULL, 4096, i % 2 ? PROT_READ : PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
	                 0) == MAP_FAILED)
		return MG_FAIL;
	return MG_PASS;
}

int main(int argc, char **argv)
{
	const char *n = getenv("MG_BENCH_TESTS");
	if (n != NULL && *n != '\0')
		count = (size_t)strtoul(n, NULL, 10);
	grow = getenv("MG_BENCH_GROW") != NULL;
	const char *a = getenv("MG_BENCH_ALLOCS");
	allocs = a ? (unsigned)strtoul(a, NULL, 10) : 0;
	const char *maps = getenv("MG_BENCH_MAPPINGS");
	for (size_t k = 0, n_maps = maps ? strtoul(maps, NULL, 10) : 0; k < n_maps; k++)
		/* alternate protections so that neighbours never merge */
		if (mmap(NULL, 4096, k % 2 ? PROT_READ : PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		         0) == MAP_FAILED)
			return 3;
	names = calloc(count ? count : 1, sizeof(*names));
	if (names == NULL)
		return 3;
	for (size_t i = 0; i < count; i++)
		snprintf(names[i], NAME_LEN, "bench/t%05zu", i);
	static const mg_host_ops ops = {ops_count, ops_name, ops_run};
	int status = mg_host_serve(&ops, NULL, argc, argv);
	free(names);
	return status;
}

/*
 * bench_host.c - 10,000 short leak-free tests bench/t00000.. (~1 us of work
 * each) to measure what memguard adds per test. MG_BENCH_TESTS sets the
 * count. Plain C: built for x86 and x64.
 */
#include "memguard_host.h"

#include <stdio.h>
#include <stdlib.h>

#define NAME_LEN 32

static size_t count = 10000;
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
	return MG_PASS;
}

int main(int argc, char **argv)
{
	const char *n = getenv("MG_BENCH_TESTS");
	if (n != NULL && *n != '\0')
		count = (size_t)strtoul(n, NULL, 10);
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

/*
 * ceiling_host.c - a suite that fails gracefully near the memory ceiling:
 * tests ceil/t000.. (MG_CEIL_TESTS, 1000) each keep MG_CEIL_LEAK_MB (8) of
 * address space; every MG_CEIL_EVERY-th (50) also maps MG_CEIL_TRANSIENT_MB
 * (600) as one block for 20 ms and gives it back, and fails (no crash) when
 * the block does not map: an allocation that returns NULL, the shape of a
 * managed runtime's OutOfMemoryException. Plain C: built for x86 and x64.
 */
#include "memguard_host.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#define NAME_LEN 32

typedef struct suite {
	size_t count, every;
	size_t leak_mb, transient_mb;
	char (*names)[NAME_LEN];
} suite;

static size_t env_size(const char *name, size_t def)
{
	const char *v = getenv(name);
	return v && *v ? (size_t)strtoul(v, NULL, 10) : def;
}

static size_t ops_count(void *ctx)
{
	return ((suite *)ctx)->count;
}

static const char *ops_name(void *ctx, size_t i)
{
	return ((suite *)ctx)->names[i];
}

static mg_result ops_run(void *ctx, size_t i, char *msg, size_t cap)
{
	suite *s = ctx;
	(void)msg;
	(void)cap;
	if (s->leak_mb) {
		void *keep = mmap(NULL, s->leak_mb << 20, PROT_NONE,
		                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		(void)keep; /* kept on purpose: the suite's leak */
	}
	if (s->every && i % s->every == s->every - 1) {
		size_t len = s->transient_mb << 20;
		void *p =
		    mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED) {
			mg_message("could not allocate %zu MiB in one block\nmmap: out of memory",
			           s->transient_mb);
			return MG_FAIL;
		}
		struct timespec ts = {0, 20 * 1000000L};
		while (nanosleep(&ts, &ts) != 0)
			;
		munmap(p, len);
	}
	return MG_PASS;
}

int main(int argc, char **argv)
{
	suite s = {env_size("MG_CEIL_TESTS", 1000), env_size("MG_CEIL_EVERY", 50),
	           env_size("MG_CEIL_LEAK_MB", 8), env_size("MG_CEIL_TRANSIENT_MB", 600), NULL};
	s.names = calloc(s.count ? s.count : 1, sizeof(*s.names));
	if (!s.names)
		return 3;
	for (size_t i = 0; i < s.count; i++)
		snprintf(s.names[i], NAME_LEN, "ceil/t%03zu", i);
	static const mg_host_ops ops = {ops_count, ops_name, ops_run};
	int status = mg_host_serve(&ops, &s, argc, argv);
	free(s.names);
	return status;
}

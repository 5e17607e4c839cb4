/*
 * leak_host.c - a suite with three planted leaks of distinct kinds among
 * clean tests: leak/shm_blocks keeps 32 x 8 MiB memfd blocks mapped,
 * leak/heap keeps 64 MiB of small malloc'd chunks (the brk heap),
 * leak/threads leaves 4 threads blocked forever (their stacks stay mapped).
 * Every other test allocates and frees. Plain C; built for x86 and x64.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "memguard_host.h"

#define BLOCK (8u << 20)

static mg_result shm_blocks(void)
{
	for (int i = 0; i < 32; i++) {
		int fd = memfd_create("blocks", 0);
		if (fd < 0 || ftruncate(fd, BLOCK) < 0) {
			mg_message("memfd: %m");
			return MG_FAIL;
		}
		char *p = mmap(NULL, BLOCK, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
		if (p == MAP_FAILED) {
			mg_message("mmap: %m");
			return MG_FAIL;
		}
		p[0] = 1; /* kept: the mapping is never unmapped */
	}
	return MG_PASS;
}

static void *kept[2048];

static mg_result heap(void)
{
	/* 32 KiB chunks stay below glibc's mmap threshold: they come from brk */
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		kept[i] = malloc(32 << 10);
		if (!kept[i])
			return MG_FAIL;
		memset(kept[i], 1, 64);
	}
	return MG_PASS;
}

static void *block_forever(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static mg_result threads(void)
{
	for (int i = 0; i < 4; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, block_forever, NULL) != 0)
			return MG_FAIL;
		pthread_detach(t);
	}
	return MG_PASS;
}

static mg_result clean(void)
{
	void *p = malloc(1 << 20);
	char *q = mmap(NULL, BLOCK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!p || q == MAP_FAILED)
		return MG_FAIL;
	memset(p, 2, 1 << 20);
	q[0] = 1;
	munmap(q, BLOCK);
	free(p);
	return MG_PASS;
}

#define N 40
static char names[N][32];
static mg_test tests[N];

int main(int argc, char **argv)
{
	for (int i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "leak/clean_%02d", i);
		tests[i] = (mg_test){names[i], clean};
	}
	tests[7] = (mg_test){"leak/shm_blocks", shm_blocks};
	tests[19] = (mg_test){"leak/heap", heap};
	tests[31] = (mg_test){"leak/threads", threads};
	return mg_host_main(tests, N, argc, argv);
}

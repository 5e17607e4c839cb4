/*
 * sites_host.c - a host library program with planted leaks, for allocation
 * sites (tests/sites/test_sites.c): each leak/ test leaves memory behind
 * through one allocator on a line marked SITE:<kind>, which the test finds
 * in this file and expects in the report; the others must name nothing, must
 * not deadlock (threads), must not carry the interposer into a child (fork,
 * exec), and one fails on an allocation that failed (ENOMEM).
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "memguard_host.h"

static void *volatile keep[1 << 14];
static size_t nkeep;

__attribute__((noinline)) static void leak_mmap(void)
{
	int prot = PROT_READ | PROT_WRITE, flags = MAP_PRIVATE | MAP_ANONYMOUS;
	void *p = mmap(NULL, 8u << 20, prot, flags, -1, 0); /* SITE:mmap */
	keep[nkeep++] = p;
}

__attribute__((noinline)) static void leak_malloc(void)
{
	void *p = malloc(3u << 20); /* SITE:malloc */
	keep[nkeep++] = p;
}

__attribute__((noinline)) static void leak_small(void)
{
	for (int i = 0; i < 4096; i++) {
		void *p = malloc(1024); /* SITE:small */
		keep[nkeep++] = p;
	}
}

static mg_result t_mmap(void)
{
	leak_mmap();
	return MG_PASS;
}

static mg_result t_malloc(void)
{
	leak_malloc();
	return MG_PASS;
}

static mg_result t_small(void)
{
	leak_small();
	return MG_PASS;
}

/* Allocates and frees 16 MiB: leaves nothing, so names nothing. */
static mg_result t_freed(void)
{
	void *a = malloc(8u << 20);
	void *b = mmap(NULL, 8u << 20, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	free(a);
	munmap(b, 8u << 20);
	return MG_PASS;
}

static void *churn(void *arg)
{
	(void)arg;
	for (int i = 0; i < 500; i++) {
		void *p = malloc((size_t)(i % 50 == 0 ? 600 << 10 : 64 + i % 512));
		void *q = calloc(1, 256);
		p = realloc(p, 128);
		free(q);
		free(p);
	}
	return NULL;
}

/* 4 threads allocating and freeing at once, 100 times over: no deadlock. */
static mg_result t_threads(void)
{
	for (int round = 0; round < 100; round++) {
		pthread_t t[4];
		for (int i = 0; i < 4; i++)
			if (pthread_create(&t[i], NULL, churn, NULL) != 0)
				return MG_FAIL;
		for (int i = 0; i < 4; i++)
			pthread_join(t[i], NULL);
	}
	return MG_PASS;
}

/* A forked child allocates and leaves; an exec'd one sees no MEMGUARD_SITES. */
static mg_result t_fork(void)
{
	for (int round = 0; round < 20; round++) {
		pid_t pid = fork();
		if (pid < 0)
			return MG_FAIL;
		if (pid == 0) {
			void *p = malloc(2u << 20);
			_exit(p == NULL);
		}
		int st;
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			return MG_FAIL;
	}
	pid_t pid = fork();
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", "test -z \"$MEMGUARD_SITES$MEMGUARD_SITES_MIN\"",
		      (char *)NULL);
		_exit(127);
	}
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		mg_message("the child saw MEMGUARD_SITES");
		return MG_FAIL;
	}
	return MG_PASS;
}

/* An allocation that fails: the test fails of it. */
static mg_result t_nomem(void)
{
	volatile size_t huge = SIZE_MAX - 65536; /* no arch maps this */
	void *volatile p = malloc(huge);
	if (p == NULL) {
		mg_message("malloc: %s", strerror(errno));
		return MG_FAIL;
	}
	free(p);
	return MG_PASS;
}

static const mg_test tests[] = {
    {"leak/mmap", t_mmap},  {"leak/malloc", t_malloc}, {"leak/small", t_small}, {"freed", t_freed},
    {"threads", t_threads}, {"fork", t_fork},          {"nomem", t_nomem},
};

int main(int argc, char **argv)
{
	return mg_host_main(tests, sizeof(tests) / sizeof(tests[0]), argc, argv);
}

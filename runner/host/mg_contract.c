/*
 * mg_contract.c - the boundary contract's reading of the limits and of the
 * process's own memory (see mg_contract.h), compiled into the host library
 * and the probe. libc only, never allocates: it runs in a process near its
 * limit, and the readings in a fatal-signal handler.
 */
#include "mg_contract.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int mg_contract_env_u64(const char *name, uint64_t *out)
{
	const char *s = getenv(name);
	if (s == NULL || *s == '\0')
		return 0;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (*end != '\0' || errno != 0 || *s < '0' || *s > '9') {
		fprintf(stderr, "memguard host: ignoring %s='%s' (not a number)\n", name, s);
		return -1;
	}
	*out = (uint64_t)v;
	return 1;
}

void mg_contract_read_limits(mg_verdict *v, unsigned version)
{
	for (size_t i = 0; i < MG_CONTRACT_NLIMITS; i++) {
		uint64_t *field = (uint64_t *)(void *)((char *)v + mg_contract_limits[i].field);
		*field = 0;
		if (mg_contract_limits[i].version <= version)
			mg_contract_env_u64(mg_contract_limits[i].env, field);
	}
	if (v->gap_limit > SIZE_MAX / 2)
		v->gap_limit = 0; /* no block that large on this arch */
}

uint64_t mg_contract_page(void)
{
	long page = sysconf(_SC_PAGESIZE);
	return page > 0 ? (uint64_t)page : 4096;
}

int mg_contract_statm(int fd, uint64_t page, uint64_t *va, uint64_t *rss)
{
	char buf[160];
	ssize_t n = fd < 0 ? -1 : pread(fd, buf, sizeof(buf) - 1, 0);
	*va = *rss = 0;
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	const char *p = buf;
	*va = mg_parse_u64(&p) * page;
	*rss = mg_parse_u64(&p) * page;
	return 0;
}

/* The value of "\nKEY" in status text, kB, as bytes; 0 when absent. */
static uint64_t status_kb(const char *text, const char *key, size_t keylen)
{
	const char *p = strstr(text, key);
	if (p == NULL)
		return 0;
	p += keylen;
	return mg_parse_u64(&p) * 1024;
}

int mg_contract_wrote(mg_wrote *w, uint64_t own)
{
	char buf[256];
	ssize_t n = w->fd < 0 ? -1 : pread(w->fd, buf, sizeof(buf) - 1, 0);
	const char *p = NULL;
	if (n > 0) {
		buf[n] = '\0';
		p = strstr(buf, "syscw: ");
	}
	if (p == NULL)
		return 1;
	p += 7;
	uint64_t syscw = mg_parse_u64(&p);
	int wrote = syscw - w->syscw_base > own - w->own_base;
	w->syscw_base = syscw;
	w->own_base = own;
	return wrote;
}

int mg_contract_status(int fd, uint64_t *peak_va, uint64_t *peak_rss)
{
	char buf[4096];
	ssize_t n;
	*peak_va = *peak_rss = 0;
	if (fd >= 0) {
		n = pread(fd, buf, sizeof(buf) - 1, 0);
	} else {
		int own = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
		n = own < 0 ? -1 : read(own, buf, sizeof(buf) - 1);
		if (own >= 0)
			close(own);
	}
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	*peak_va = status_kb(buf, "\nVmPeak:", 8);
	*peak_rss = status_kb(buf, "\nVmHWM:", 7);
	return 0;
}

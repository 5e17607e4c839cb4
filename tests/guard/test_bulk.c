/*
 * test_bulk.c - mg_bulk.h's blocks: what they hold survives every growth and
 * shrink across the MG_BULK_MIN line (256 KiB), a large block is a mapping of whole 2 MiB
 * pages on a 2 MiB boundary that asks for huge pages (its VmFlags in
 * /proc/self/smaps say "hg"), and a freed or moved one is unmapped.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mg_bulk.h"
#include "mg_test.h"

/* Fills n bytes of p with a pattern of seed; checks it. */
static void fill(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 31 + seed);
}

static int holds(const unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != (unsigned char)(i * 31 + seed))
			return 0;
	return 1;
}

/* Whether [p, p + len) is mapped: mincore fails with ENOMEM on a hole. */
static int mapped(const void *p, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *vec = malloc(len / (size_t)page + 1);
	int rc = mincore((void *)p, len, vec);
	int e = errno;
	free(vec);
	return rc == 0 ? 1 : e == ENOMEM ? 0 : -1;
}

/* The VmFlags of the mapping holding p, from /proc/self/smaps; "" when none
 * holds it. Also the mapping's bounds. */
static void vm_flags(const void *p, char *flags, size_t cap, uintptr_t *lo, uintptr_t *hi)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	int in = 0;
	flags[0] = 0;
	*lo = *hi = 0;
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long a, b;
		if (sscanf(line, "%lx-%lx ", &a, &b) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			in = (uintptr_t)p >= a && (uintptr_t)p < b;
			if (in) {
				*lo = a;
				*hi = b;
			}
		} else if (in && !strncmp(line, "VmFlags:", 8)) {
			snprintf(flags, cap, "%.200s", line + 8);
			break;
		}
	}
	fclose(f);
}

/* Asserts p is a large block of size bytes: aligned, mapped whole, advised. */
static void is_large(const void *p, size_t size)
{
	char flags[256];
	uintptr_t lo, hi;
	CU_ASSERT_EQUAL((uintptr_t)p % MG_BULK_PAGE, 0);
	CU_ASSERT_EQUAL(mapped(p, mg_bulk_len(size)), 1);
	vm_flags(p, flags, sizeof(flags), &lo, &hi);
	CU_ASSERT(lo <= (uintptr_t)p && hi >= (uintptr_t)p + mg_bulk_len(size));
	/* the advice is taken wherever the kernel has transparent huge pages */
	if (access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) == 0) {
		if (!strstr(flags, " hg"))
			fprintf(stderr, "\n  VmFlags of the block:%s", flags);
		CU_ASSERT_PTR_NOT_NULL(strstr(flags, " hg"));
	}
}

/* From nothing to 8 MiB and back to 100 bytes: each size keeps what the
 * smaller of the two held, large blocks are large, and each large block
 * left behind is unmapped. */
void test_bulk_grow_shrink(void)
{
	static const size_t sizes[] = {64,      512 << 10, MG_BULK_MIN - 1, MG_BULK_MIN, 3 << 20,
	                               8 << 20, 5 << 20,   MG_BULK_MIN,     100 << 10,   100};
	unsigned char *p = NULL;
	size_t have = 0;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t size = sizes[i], keep = have < size ? have : size;
		unsigned char *q = mg_bulk_realloc(p, have, size);
		CU_ASSERT_PTR_NOT_NULL_FATAL(q);
		CU_ASSERT(holds(q, keep, (unsigned)i));
		if (p && p != q && have >= MG_BULK_MIN)
			CU_ASSERT_EQUAL(mapped(p, mg_bulk_len(have)), 0);
		if (size >= MG_BULK_MIN)
			is_large(q, size);
		fill(q, size, (unsigned)i + 1);
		p = q;
		have = size;
	}
	mg_bulk_free(p, have);
}

/* A large block grown within its 2 MiB pages stays where it is; one freed
 * is gone. */
void test_bulk_same_pages_and_free(void)
{
	unsigned char *p = mg_bulk_realloc(NULL, 0, MG_BULK_MIN);
	fill(p, MG_BULK_MIN, 7);
	unsigned char *q = mg_bulk_realloc(p, MG_BULK_MIN, MG_BULK_PAGE);
	CU_ASSERT_PTR_EQUAL(q, p);
	CU_ASSERT(holds(q, MG_BULK_MIN, 7));
	is_large(q, MG_BULK_PAGE);
	mg_bulk_free(q, MG_BULK_PAGE);
	CU_ASSERT_EQUAL(mapped(q, MG_BULK_PAGE), 0);
	mg_bulk_free(NULL, MG_BULK_PAGE); /* nothing */
	mg_bulk_free(NULL, 0);
}

/*
 * memguard_demo.c - the real failure, reproduced: a bump allocator packs
 * items into shared 8 MiB memfd blocks; every test leaves one long-lived item
 * behind, so no block is ever unmapped and the address space fills up.
 * Started directly it aborts ("out of memory") well before its 1,200th test;
 * under memguard (recycle at 3.5 GiB) every test passes. The x64 build caps
 * its address space at 4 GiB (RLIMIT_AS) to fail like the x86 one;
 * MG_DEMO_NO_RLIMIT=1 lifts the cap. The allocator says where each item
 * went (memguard_pin) and when it is freed (memguard_unpin), so memguard's
 * report names the item that pins each block a test left behind. Plain C,
 * x86 and x64.
 */
#include "memguard_host.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#define BLOCK_SIZE  ((size_t)8 << 20)
#define TEST_COUNT  1200
#define SMALL_ITEMS 200
#define SMALL_SIZE  1024
#define LARGE_ITEMS 8
#define LARGE_SIZE  ((size_t)1000 << 10)
#define KEPT_SIZE   256
#define NAME_LEN    32

typedef struct block {
	char *base;
	size_t used;
	size_t live; /* items not yet freed; the block is unmapped at 0 */
	struct block *next;
} block;

typedef struct item {
	block *owner;
	size_t size;
} item;

static block *current;
static size_t blocks_mapped;

static block *block_new(void)
{
	int fd = memfd_create("blocks", MFD_CLOEXEC);
	void *p = MAP_FAILED;
	if (fd >= 0 && ftruncate(fd, (off_t)BLOCK_SIZE) == 0)
		p = mmap(NULL, BLOCK_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (fd >= 0)
		close(fd);
	block *b = p == MAP_FAILED ? NULL : malloc(sizeof(*b));
	if (b == NULL) {
		fprintf(stderr, "out of memory: mmap of 8 MiB block failed after %zu blocks\n",
		        blocks_mapped);
		abort();
	}
	b->base = p;
	b->used = 0;
	b->live = 0;
	b->next = NULL;
	blocks_mapped++;
	return b;
}

/* Bump allocation; only the item header is touched, so RSS stays small.
 * label: what memguard's report calls the item while it pins its block. */
static item *item_alloc(size_t size, const char *label)
{
	size_t need = (sizeof(item) + size + 15) & ~(size_t)15;
	if (current == NULL || current->used + need > BLOCK_SIZE) {
		block *old = current;
		current = block_new();
		if (old != NULL && old->live == 0) {
			munmap(old->base, BLOCK_SIZE);
			free(old);
			blocks_mapped--;
		}
	}
	item *it = (item *)(current->base + current->used);
	current->used += need;
	current->live++;
	it->owner = current;
	it->size = size;
	memguard_pin(current->base, it, label);
	return it;
}

static void item_free(item *it)
{
	block *b = it->owner;
	memguard_unpin(b->base, it);
	if (--b->live == 0 && b != current) {
		munmap(b->base, BLOCK_SIZE);
		free(b);
		blocks_mapped--;
	}
}

static item *kept; /* the long-lived items, chained through their payload */

static mg_result demo_test(void)
{
	item *small[SMALL_ITEMS], *large[LARGE_ITEMS];
	for (int i = 0; i < SMALL_ITEMS; i++) {
		small[i] = item_alloc(SMALL_SIZE, "small item");
		memset(small[i] + 1, i, 16);
		if (i == SMALL_ITEMS / 2) {
			/* the one item this test keeps: it pins its block forever */
			item *k = item_alloc(KEPT_SIZE, "kept item");
			unsigned char *payload =
			    (unsigned char *)(k + 1); /* holds the chain's pointer */
			memcpy(payload, &kept, sizeof(kept));
			kept = k;
		}
	}
	for (int i = 0; i < LARGE_ITEMS; i++) {
		large[i] = item_alloc(LARGE_SIZE, "large item");
		memset(large[i] + 1, i, 64);
	}
	int bad = 0;
	for (int i = 0; i < SMALL_ITEMS; i++)
		bad |= ((unsigned char *)(small[i] + 1))[15] != (unsigned char)i;
	for (int i = 0; i < LARGE_ITEMS; i++)
		item_free(large[i]);
	for (int i = 0; i < SMALL_ITEMS; i++)
		item_free(small[i]);
	if (bad) {
		mg_message("item contents corrupted (%zu blocks mapped)", blocks_mapped);
		return MG_FAIL;
	}
	return MG_PASS;
}

int main(int argc, char **argv)
{
	if (sizeof(void *) == 8 && getenv("MG_DEMO_NO_RLIMIT") == NULL) {
		struct rlimit as = {(rlim_t)4 << 30, (rlim_t)4 << 30};
		if (setrlimit(RLIMIT_AS, &as) != 0)
			perror("memguard_demo: setrlimit(RLIMIT_AS)");
	}
	static char names[TEST_COUNT][NAME_LEN];
	static mg_test tests[TEST_COUNT];
	for (int i = 0; i < TEST_COUNT; i++) {
		snprintf(names[i], NAME_LEN, "demo/item_%04d", i + 1);
		tests[i].name = names[i];
		tests[i].fn = demo_test;
	}
	return mg_host_main(tests, TEST_COUNT, argc, argv);
}

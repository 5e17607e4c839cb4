/*
 * pins_host.c - a host library program with a bump allocator that packs
 * items into 8 MiB mapped blocks and says where each item went
 * (memguard_pin) and when it is freed (memguard_unpin), for the pinning API
 * (tests/sites/test_pins.c). Cache/1 fills most of a block and keeps one
 * entry in it; Cache/2's first item no longer fits, so it maps a new block,
 * where it keeps its entry: each block's site must name its own test's
 * entry and nothing freed. Cache/3 maps a block and frees its only item:
 * nothing pins it. Started directly or with sites off, the calls do nothing
 * and every test passes.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "memguard_host.h"

#define BLOCK_SIZE ((size_t)8 << 20)

typedef struct block {
	char *base;
	size_t used, live;
} block;

typedef struct item {
	block *owner;
	size_t size;
} item;

static block blocks[8];
static size_t nblocks;
static block *current;

__attribute__((noinline)) static block *block_new(void)
{
	void *p =
	    mmap(NULL, BLOCK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || nblocks == sizeof(blocks) / sizeof(blocks[0]))
		return NULL;
	block *b = &blocks[nblocks++];
	b->base = p;
	b->used = b->live = 0;
	return b;
}

/* Bump allocation into the current block, a new one when it does not fit;
 * a block is unmapped when its last item is freed and it is not current. */
static item *item_alloc(size_t size, const char *label)
{
	size_t need = (sizeof(item) + size + 15) & ~(size_t)15;
	if (current == NULL || current->used + need > BLOCK_SIZE) {
		block *b = block_new();
		if (b == NULL)
			return NULL;
		current = b;
	}
	item *it = (item *)(void *)(current->base + current->used);
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
	if (--b->live == 0 && b != current)
		munmap(b->base, BLOCK_SIZE);
}

static item *kept[2];

static mg_result cache_1(void)
{
	item *t[3];
	for (int i = 0; i < 3; i++) {
		char label[32];
		snprintf(label, sizeof(label), "scratch %d", i);
		t[i] = item_alloc(2u << 20, label);
	}
	kept[0] = item_alloc(64, "entry 1");
	for (int i = 0; i < 3; i++)
		if (t[i])
			item_free(t[i]);
	return kept[0] ? MG_PASS : MG_FAIL;
}

static mg_result cache_2(void)
{
	item *t = item_alloc(3u << 20, "scratch 3"); /* does not fit: a new block */
	kept[1] = item_alloc(64, "entry 2");
	if (t)
		item_free(t);
	return kept[1] && kept[1]->owner != kept[0]->owner ? MG_PASS : MG_FAIL;
}

static mg_result cache_3(void)
{
	current = NULL; /* a fresh block, whose only item is freed */
	item *t = item_alloc(64, NULL);
	if (t == NULL)
		return MG_FAIL;
	item_free(t);
	/* harmless whatever the state: a block or item never pinned */
	memguard_unpin(t->owner->base, kept);
	memguard_unpin(NULL, NULL);
	memguard_pin(NULL, t, "no block");
	return MG_PASS;
}

int main(int argc, char **argv)
{
	static const mg_test tests[] = {
	    {"Cache/1", cache_1},
	    {"Cache/2", cache_2},
	    {"Cache/3", cache_3},
	};
	return mg_host_main(tests, sizeof(tests) / sizeof(tests[0]), argc, argv);
}

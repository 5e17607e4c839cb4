/*
 * held_host.c - the original crash case in small, for held blocks (issue
 * 25; tests/sites/test_held.c): a bump allocator packs items into 8 MiB
 * mapped blocks and says where each went (memguard_pin, memguard_unpin).
 * Cache/1 maps a block and frees what it placed there; Cache/2, /3 and /4
 * place transient items into that block (allocated in Cache/1), free most
 * and keep 1, 2 and 3: each keeps Cache/1's block mapped. Cache/5 maps a
 * block of its own and keeps one item there; Cache/6 keeps 3 items in it
 * (a block allocated in Cache/5); Cache/7 places items and frees them all.
 * Started directly every test passes.
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
	if (nblocks == sizeof(blocks) / sizeof(blocks[0]))
		return NULL;
	void *p =
	    mmap(NULL, BLOCK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	block *b = &blocks[nblocks++];
	b->base = p;
	b->used = b->live = 0;
	return b;
}

/* Bump allocation into the current block, a new one when it does not fit. */
__attribute__((noinline)) static item *item_new(size_t size, const char *label)
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

/* A block is unmapped when its last item is freed and it is not current. */
static void item_free(item *it)
{
	block *b = it->owner;
	memguard_unpin(b->base, it);
	if (--b->live == 0 && b != current)
		munmap(b->base, BLOCK_SIZE);
}

static item *kept[16];
static size_t nkept;

/* Places 10 items into the current block, frees all but `keep` of them. */
static mg_result transient(int keep, const char *test)
{
	item *t[10];
	for (int i = 0; i < 10; i++) {
		char label[32];
		snprintf(label, sizeof(label), "%s item %d", test, i);
		t[i] = item_new(256, label);
		if (t[i] == NULL)
			return MG_FAIL;
	}
	for (int i = 0; i < 10; i++) {
		if (i < keep && nkept < sizeof(kept) / sizeof(kept[0]))
			kept[nkept++] = t[i];
		else
			item_free(t[i]);
	}
	return MG_PASS;
}

static mg_result cache_1(void)
{
	return transient(0, "c1");
}

static mg_result cache_2(void)
{
	return transient(1, "c2");
}

static mg_result cache_3(void)
{
	return transient(2, "c3");
}

static mg_result cache_4(void)
{
	return transient(3, "c4");
}

static mg_result cache_5(void)
{
	current = NULL; /* a block of its own */
	return transient(1, "c5");
}

static mg_result cache_6(void)
{
	return transient(3, "c6");
}

static mg_result cache_7(void)
{
	return transient(0, "c7");
}

int main(int argc, char **argv)
{
	static const mg_test tests[] = {
	    {"Cache/1", cache_1}, {"Cache/2", cache_2}, {"Cache/3", cache_3}, {"Cache/4", cache_4},
	    {"Cache/5", cache_5}, {"Cache/6", cache_6}, {"Cache/7", cache_7},
	};
	return mg_host_main(tests, sizeof(tests) / sizeof(tests[0]), argc, argv);
}

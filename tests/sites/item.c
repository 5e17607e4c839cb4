/*
 * item.c - the fixtures' bump allocator (item.h). Its frames are what the
 * sites tests read: a block's site is at block_new, the items holding it
 * placed by item_new (both kept out of line).
 */
#include "item.h"

#include <sys/mman.h>

#include "memguard_host.h"

static item_block blocks[8];
static size_t nblocks;
static item_block *current;

__attribute__((noinline)) static item_block *block_new(void)
{
	if (nblocks == sizeof(blocks) / sizeof(blocks[0]))
		return NULL;
	void *p =
	    mmap(NULL, ITEM_BLOCK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	item_block *b = &blocks[nblocks++];
	b->base = p;
	b->used = b->live = 0;
	return b;
}

__attribute__((noinline)) item *item_new(size_t size, const char *label)
{
	size_t need = (sizeof(item) + size + 15) & ~(size_t)15;
	if (current == NULL || current->used + need > ITEM_BLOCK_SIZE) {
		item_block *b = block_new();
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

void item_free(item *it)
{
	item_block *b = it->owner;
	memguard_unpin(b->base, it);
	if (--b->live == 0 && b != current)
		munmap(b->base, ITEM_BLOCK_SIZE);
}

void item_fresh_block(void)
{
	current = NULL;
}

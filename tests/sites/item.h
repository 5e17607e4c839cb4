/*
 * item.h - the bump allocator of the held-block and pinning fixtures
 * (held_host.c, pins_host.c; item.c): items packed into 8 MiB mapped
 * blocks, each placement and free said to memguard (memguard_pin,
 * memguard_unpin), so a block's site names the live items in it.
 */
#ifndef MG_TEST_ITEM_H
#define MG_TEST_ITEM_H

#include <stddef.h>

#define ITEM_BLOCK_SIZE ((size_t)8 << 20)

typedef struct item_block {
	char *base;
	size_t used, live;
} item_block;

typedef struct item {
	item_block *owner;
	size_t size;
} item;

/* size bytes in the current block, a new one (block_new, at most 8) when
 * they do not fit; pinned with label (may be NULL). NULL when no block. */
item *item_new(size_t size, const char *label);
/* Unpinned; its block is unmapped when its last item is freed and it is not
 * the current one. */
void item_free(item *it);
/* The next item goes into a block of its own. */
void item_fresh_block(void);

#endif

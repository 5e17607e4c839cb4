/*
 * pins_host.c - a host library program with a bump allocator that packs
 * items into 8 MiB mapped blocks and says where each item went
 * (memguard_pin) and when it is freed (memguard_unpin), for the pinning API
 * (tests/sites/test_pins.c). Cache/1 fills most of a block and keeps one
 * entry in it; Cache/2's first item no longer fits, so it maps a new block,
 * where it keeps its entry: each block's site must name its own test's
 * entry and nothing freed. Cache/3 maps a block and frees its only item:
 * nothing pins it. Started directly or with sites off, the calls do nothing
 * and every test passes. The allocator is item.c, shared with held_host.c.
 */
#include <stdio.h>

#include "item.h"
#include "memguard_host.h"

static item *kept[2];

static mg_result cache_1(void)
{
	item *t[3];
	for (int i = 0; i < 3; i++) {
		char label[32];
		snprintf(label, sizeof(label), "scratch %d", i);
		t[i] = item_new(2u << 20, label);
	}
	kept[0] = item_new(64, "entry 1");
	for (int i = 0; i < 3; i++)
		if (t[i])
			item_free(t[i]);
	return kept[0] ? MG_PASS : MG_FAIL;
}

static mg_result cache_2(void)
{
	item *t = item_new(3u << 20, "scratch 3"); /* does not fit: a new block */
	kept[1] = item_new(64, "entry 2");
	if (t)
		item_free(t);
	return kept[1] && kept[1]->owner != kept[0]->owner ? MG_PASS : MG_FAIL;
}

static mg_result cache_3(void)
{
	item_fresh_block(); /* a fresh block, whose only item is freed */
	item *t = item_new(64, NULL);
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

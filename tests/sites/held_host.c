/*
 * held_host.c - the original crash case in small, for held blocks (issue
 * 25; tests/sites/test_held.c): a bump allocator packs items into 8 MiB
 * mapped blocks and says where each went (memguard_pin, memguard_unpin).
 * Cache/1 maps a block and frees what it placed there; Cache/2, /3 and /4
 * place transient items into that block (allocated in Cache/1), free most
 * and keep 1, 2 and 3: each keeps Cache/1's block mapped. Cache/5 maps a
 * block of its own and keeps one item there; Cache/6 keeps 3 items in it
 * (a block allocated in Cache/5); Cache/7 places items and frees them all.
 * Started directly every test passes. The allocator is item.c, shared
 * with pins_host.c.
 */
#include <stdio.h>

#include "item.h"
#include "memguard_host.h"

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
	item_fresh_block(); /* a block of its own */
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

/*
 * far_host.c - memguard's own memory and long-held blocks (issue 25;
 * tests/sites/test_held.c): Far/map maps an 8 MiB block and pins nothing
 * (before the program's first pin); Far/pin maps one of its own and keeps an
 * item pinned there (the first test that pins: its VA left behind must be
 * its 8 MiB, none of memguard's tables); FAR_FILL tests that each keep a
 * page the next one unmaps (more tests owning a live record at their end
 * than names are kept: the dead ones' names must go, not Far/map's); then
 * Far/hold places an item in Far/map's block and keeps it (a
 * block allocated more than 4,096 tests earlier, held: the allocating
 * test's name still known). Started directly every test passes.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "memguard_host.h"

#define BLOCK_SIZE ((size_t)8 << 20)
#define FAR_FILL   5000

static char *first, *second;

__attribute__((noinline)) static char *block_map(void)
{
	void *p =
	    mmap(NULL, BLOCK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static mg_result far_map(void)
{
	first = block_map();
	return first ? MG_PASS : MG_FAIL;
}

static mg_result far_pin(void)
{
	second = block_map();
	if (second == NULL)
		return MG_FAIL;
	memguard_pin(second, second + 64, "kept in its own block");
	return MG_PASS;
}

/* Unmaps the page the last one mapped, maps one it keeps: each ends owning
 * a live mapping that the next frees (names kept, then dropped as dead). */
static mg_result far_fill(void)
{
	static void *page;
	if (page != NULL)
		munmap(page, 4096);
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return page != MAP_FAILED ? MG_PASS : MG_FAIL;
}

__attribute__((noinline)) static mg_result far_hold(void)
{
	if (first == NULL)
		return MG_FAIL;
	memguard_pin(first, first + 64, "kept in the first block");
	return MG_PASS;
}

int main(int argc, char **argv)
{
	static mg_test tests[FAR_FILL + 3];
	static char names[FAR_FILL][24];
	tests[0] = (mg_test){"Far/map", far_map};
	tests[1] = (mg_test){"Far/pin", far_pin};
	for (int i = 0; i < FAR_FILL; i++) {
		snprintf(names[i], sizeof(names[i]), "Far/fill_%04d", i + 1);
		tests[2 + i] = (mg_test){names[i], far_fill};
	}
	tests[FAR_FILL + 2] = (mg_test){"Far/hold", far_hold};
	return mg_host_main(tests, FAR_FILL + 3, argc, argv);
}

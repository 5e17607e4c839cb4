/*
 * driver_main.c - memguard-driver: the shims (gtest, catch2, ctest, exec,
 * wrap: drivers/driver.c's driver_main) in an executable of their own,
 * linked with only what a shim needs. A recycle starts a new shim: memguard
 * itself would load every library the whole tool links (libgit2, libxml2
 * and theirs), which costs several times a test program's own start, and a
 * fork of it holds 2 MiB of their relocated data, which a test it starts
 * counts in its peak RSS. Started by the
 * runner as "memguard __driver NAME ... -- PROGRAM..." (run.c), like memguard.
 */
#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include "driver.h"

int main(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "__driver")) {
		fputs("memguard-driver: started by memguard run only\n", stderr);
		return 2;
	}
	/* freed memory kept for the next arrays (as the runner keeps its, run.c) */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	return driver_main(argc - 1, argv + 1);
}

/*
 * own_rss.c - a test program for the per-test RSS figures (test_own_rss.c):
 * own_rss NAME [KIB] touches KIB KiB of the heap (default 0), writes its own
 * peak RSS in KiB to NAME.hwm in its working directory and exits 0. Its own:
 * VmHWM of /proc/self/status, the high-water mark of the memory it has had
 * since its exec, not the copy of its forker that it had before (which the
 * kernel counts in the ru_maxrss its parent reads). Plain C: built for x64
 * and x86.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs("usage: own_rss NAME [KIB]\n", stderr);
		return 2;
	}
	size_t kib = argc > 2 ? strtoul(argv[2], NULL, 10) : 0;
	char *p = kib ? malloc(kib << 10) : NULL;
	if (kib && !p)
		return 3;
	if (p)
		memset(p, 1, kib << 10);
	char line[256], path[4096];
	long hwm = -1;
	FILE *st = fopen("/proc/self/status", "r");
	while (st && fgets(line, sizeof(line), st))
		if (sscanf(line, "VmHWM: %ld kB", &hwm) == 1)
			break;
	if (st)
		fclose(st);
	snprintf(path, sizeof(path), "%s.hwm", argv[1]);
	FILE *out = fopen(path, "w");
	if (hwm < 0 || !out || fprintf(out, "%ld\n", hwm) < 0 || fclose(out) != 0)
		return 4;
	free(p);
	return 0;
}

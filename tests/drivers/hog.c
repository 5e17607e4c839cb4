/*
 * hog.c - holds memory for the wrap driver's tests: hog MB [MS [PIDFILE]]
 * allocates and touches MB MiB, writes its pid to PIDFILE, sleeps MS
 * milliseconds (default 300), exits 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs("usage: hog MB [MS [PIDFILE]]\n", stderr);
		return 2;
	}
	size_t n = strtoul(argv[1], NULL, 10) << 20;
	long ms = argc > 2 ? strtol(argv[2], NULL, 10) : 300;
	if (argc > 3) {
		FILE *f = fopen(argv[3], "w");
		if (!f)
			return 3;
		fprintf(f, "%ld\n", (long)getpid());
		fclose(f);
	}
	char *p = malloc(n ? n : 1);
	if (!p)
		return 4;
	for (size_t i = 0; i < n; i += 4096)
		p[i] = 1;
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
	free(p);
	return 0;
}

/*
 * hog.c - holds memory for the driver tests: hog MB [MS [PIDFILE]]
 * allocates and touches MB MiB, writes its pid to PIDFILE, sleeps MS
 * milliseconds (default 300), exits 0. HOG_MODE=reserve maps MB MiB of
 * address space instead, untouched, in pieces as a 32-bit program must
 * (64 MiB, then smaller where no larger piece fits); HOG_MODE=segv dies of
 * SIGSEGV after the sleep. Plain C: built for x64 and x86.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* Maps mb MiB of untouched address space; returns how many MiB it got. */
static size_t reserve(size_t mb)
{
	size_t got = 0, piece = 64;
	while (got < mb && piece > 0) {
		size_t want = piece < mb - got ? piece : mb - got;
		if (mmap(NULL, want << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		         -1, 0) == MAP_FAILED)
			piece /= 2;
		else
			got += want;
	}
	return got;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs("usage: hog MB [MS [PIDFILE]]\n", stderr);
		return 2;
	}
	const char *mode = getenv("HOG_MODE");
	size_t mb = strtoul(argv[1], NULL, 10);
	long ms = argc > 2 ? strtol(argv[2], NULL, 10) : 300;
	if (argc > 3) {
		FILE *f = fopen(argv[3], "w");
		if (!f)
			return 3;
		fprintf(f, "%ld\n", (long)getpid());
		fclose(f);
	}
	char *p = NULL;
	if (mode && !strcmp(mode, "reserve")) {
		size_t got = reserve(mb);
		if (got < mb)
			fprintf(stderr, "hog: reserved %zu of %zu MiB\n", got, mb);
	} else {
		size_t n = mb << 20;
		p = malloc(n ? n : 1);
		if (!p)
			return 4;
		for (size_t i = 0; i < n; i += 4096)
			p[i] = 1;
	}
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
	if (mode && !strcmp(mode, "segv"))
		raise(SIGSEGV);
	free(p);
	return 0;
}

/* The CTest project's one program: what it does is its first argument. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "pass";
	if (!strcmp(what, "fail"))
		return 3;
	if (!strcmp(what, "exit") && argc > 2)
		return atoi(argv[2]);
	if (!strcmp(what, "say") && argc > 3) { /* prints TEXT, exits CODE */
		printf("%s\n", argv[2]);
		return atoi(argv[3]);
	}
	if (!strcmp(what, "crash"))
		raise(SIGSEGV);
	if (!strcmp(what, "sleep"))
		sleep(30);
	if (!strcmp(what, "env")) {
		const char *v = getenv("MG_CT_VALUE");
		/* its working directory is the source dir, which has prog.c */
		return v && !strcmp(v, "42") && access("prog.c", R_OK) == 0 ? 0 : 4;
	}
	/* lock: holds db.marker 300 ms (RESOURCE_LOCK db); serial: holds
	 * serial.marker 300 ms (RUN_SERIAL); either fails on seeing the other's */
	if (!strcmp(what, "lock") || !strcmp(what, "serial")) {
		int serial = what[0] == 's';
		const char *mine = serial ? "serial.marker" : "db.marker";
		const char *other = serial ? "db.marker" : "serial.marker";
		int fd = open(mine, O_CREAT | O_EXCL | O_WRONLY, 0600);
		if (fd < 0 || access(other, F_OK) == 0)
			return 6;
		usleep(300000);
		int clash = access(other, F_OK) == 0;
		close(fd);
		unlink(mine);
		return clash ? 7 : 0;
	}
	if (!strcmp(what, "leak")) {
		size_t n = 200u << 20;
		char *p = malloc(n);
		if (!p)
			return 5;
		/* touched, and read back: unread, the compiler drops the memset and
		 * the 200 MiB are never resident (no peak RSS; VA only while a
		 * sample happens to land in these few ms) */
		memset(p, 1, n);
		usleep(20000);
		printf("held %zu bytes (%d)\n", n, p[n / 2] + p[n - 1]);
	}
	return 0;
}

/*
 * maxrss.c - maxrss PROG ARGS...: runs PROG from a static process of a few
 * pages and prints the peak RSS in KiB that wait4 gives for it, as
 * /usr/bin/time -f %M would: a direct run's figure, which counts the few
 * pages of this forker's copy the program had before its exec. The
 * reference of test_own_rss.c beside the program's own VmHWM, which reads
 * low on kernels that keep RSS counts per task until they sync them (Debian
 * 12's 6.1: SPLIT_RSS_COUNTING): wait4's figure is taken after the sync at
 * the program's exit. Exits with PROG's status (127: not run).
 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs("usage: maxrss PROG [ARGS...]\n", stderr);
		return 2;
	}
	pid_t pid = fork();
	if (pid < 0)
		return 127;
	if (pid == 0) {
		execv(argv[1], argv + 1);
		_exit(127);
	}
	struct rusage ru;
	int st;
	if (wait4(pid, &st, 0, &ru) != pid)
		return 127;
	printf("%ld\n", ru.ru_maxrss);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 127;
}

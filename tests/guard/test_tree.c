/* test_tree.c - a real process tree: descendants found and read, and a
 * process judged by its arch after it execs (a shell becoming x86). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guard_test.h"
#include "tree.h"

#define MI (1024ULL * 1024)

/* 0 when this kernel cannot execute prog (no IA32 emulation). */
static int can_exec(const char *prog)
{
	pid_t pid = fork();
	if (pid == 0) {
		execl(prog, prog, (char *)NULL);
		_exit(errno == ENOEXEC ? 126 : 127);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	return !(WIFEXITED(st) && WEXITSTATUS(st) == 126);
}

/*
 * A shell, our child, waits for a line, then execs the tiny program of
 * arch, which maps 80 MiB and says "r". Before: one x64 process; after,
 * without a new scan: the same pid read again, now of arch, the 80 MiB in
 * its VA.
 */
static void check_exec(const char *prog, mg_arch arch)
{
	if (!can_exec(prog)) {
		fprintf(stderr, "\n  skipped: this kernel cannot execute %s\n", prog);
		fflush(NULL);
		_exit(77);
	}
	int in[2], out[2];
	char script[512];
	snprintf(script, sizeof(script), "read line; exec '%s' blocks", prog);
	pid_t pid = gt_fork_piped(in, out);
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", script, (char *)NULL);
		_exit(127);
	}
	tree *t = NULL;
	CU_ASSERT_EQUAL_FATAL(tree_new(&t, 8, NULL), 0);
	tree_sample s;
	/* the shell may still be our fork, or sh: x64 either way */
	for (int i = 0; i < 100; i++) {
		tree_scan(t, getpid(), &s);
		if (s.n == 1 && s.va_of[MG_ARCH_X64])
			break;
		usleep(10000);
	}
	CU_ASSERT_EQUAL(s.n, 1);
	CU_ASSERT_EQUAL(s.va_max_pid, pid);
	CU_ASSERT(s.va_of[MG_ARCH_X64] > 0);
	CU_ASSERT_EQUAL(s.va_of[MG_ARCH_X86], 0);
	CU_ASSERT(s.rss > 0);

	CU_ASSERT_FATAL(write(in[1], "go\n", 3) == 3);
	char c = 0;
	CU_ASSERT_FATAL(read(out[0], &c, 1) == 1 && c == 'r');
	tree_read(t, &s); /* no new scan: the same process, now another program */
	CU_ASSERT_EQUAL(s.n, 1);
	CU_ASSERT(s.va_of[arch] >= 80 * MI);
	CU_ASSERT_EQUAL(s.va_of_pid[arch], pid);
	if (arch == MG_ARCH_X86)
		CU_ASSERT_EQUAL(s.va_of[MG_ARCH_X64], 0);
	CU_ASSERT(s.rss >= 80 * MI);

	close(in[1]);
	int st = 0;
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(out[0]);
	tree_read(t, &s); /* reaped: gone from the tree */
	CU_ASSERT_EQUAL(s.n, 0);
	CU_ASSERT_EQUAL(s.va_max, 0);
	tree_free(t);
	tree_free(NULL);
}

void test_tree_exec_x86(void)
{
	check_exec(GUARD_TINY_X86, MG_ARCH_X86);
}

void test_tree_exec_x64(void)
{
	check_exec(GUARD_TINY_X64, MG_ARCH_X64);
}

/*
 * Our fork that has not exec'd runs our own executable (as a driver shim's
 * child does between fork and exec): not in the tree, though it maps
 * 256 MiB. Once it execs a shell, the same pid is read, without a new scan.
 */
void test_tree_fork_not_ours(void)
{
	int in[2], out[2];
	pid_t pid = gt_fork_piped(in, out);
	if (pid == 0) {
		void *p = mmap(NULL, 256 * MI, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		               -1, 0);
		char c;
		if (p == MAP_FAILED || write(1, "m", 1) != 1 || read(0, &c, 1) != 1)
			_exit(1);
		execl("/bin/sh", "sh", "-c", "echo r; read line; exit 0", (char *)NULL);
		_exit(127);
	}
	char c = 0;
	CU_ASSERT_FATAL(read(out[0], &c, 1) == 1 && c == 'm');
	tree *t = NULL;
	CU_ASSERT_EQUAL_FATAL(tree_new(&t, 8, NULL), 0);
	tree_sample s;
	tree_scan(t, getpid(), &s);
	CU_ASSERT_EQUAL(s.n, 0);
	CU_ASSERT_EQUAL(s.va_max, 0);
	CU_ASSERT_EQUAL(s.rss, 0);

	CU_ASSERT_FATAL(write(in[1], "g", 1) == 1);
	CU_ASSERT_FATAL(read(out[0], &c, 1) == 1 && c == 'r');
	tree_read(t, &s);
	CU_ASSERT_EQUAL(s.n, 1);
	CU_ASSERT_EQUAL(s.va_max_pid, pid);
	CU_ASSERT(s.va_max > 0 && s.va_max < 256 * MI);

	close(in[1]);
	int st = 0;
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(out[0]);
	tree_free(t);
}

/*
 * A tree keeps a process's children files only in the lower half of the
 * fd table: under a limit of 24 fds, a shell with 8 children is still
 * read whole (the rest by proc_children, which keeps nothing), and no
 * kept children file or task directory sits at fd 12 or above. Run in a
 * child, whose limit it lowers; its exit code says what failed.
 */
void test_tree_fd_cap(void)
{
	pid_t pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		pid_t sh = fork();
		if (sh == 0) {
			setpgid(0, 0);
			execl("/bin/sh", "sh", "-c",
			      "for i in 1 2 3 4 5 6 7 8; do sleep 5 & done; wait", (char *)NULL);
			_exit(127);
		}
		struct rlimit lim = {24, 24};
		if (setrlimit(RLIMIT_NOFILE, &lim) != 0)
			_exit(10);
		tree *t = NULL;
		if (tree_new(&t, 16, NULL) < 0)
			_exit(11);
		tree_sample s = {0};
		for (int i = 0; i < 300 && s.n < 9; i++, usleep(10000))
			tree_scan(t, getpid(), &s);
		int rc = s.n == 9 ? 0 : 12; /* the shell and its 8 sleeps */
		for (int fd = 12; fd < 24 && !rc; fd++) {
			char link[64], target[128];
			snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
			ssize_t n = readlink(link, target, sizeof(target) - 1);
			if (n > 0) {
				target[n] = 0;
				if (strstr(target, "/task"))
					rc = 13;
			}
		}
		tree_free(t);
		kill(-sh, SIGKILL);
		waitpid(sh, NULL, 0);
		_exit(rc);
	}
	int st = 0;
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	CU_ASSERT(WIFEXITED(st));
	CU_ASSERT_EQUAL(WEXITSTATUS(st), 0);
}

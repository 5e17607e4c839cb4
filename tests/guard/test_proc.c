/* test_proc.c - statm/status/stat parsers, the sampler on a real child, the
 * process tree, RAM and page size. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guard_test.h"
#include "proc.h"

#define MI (1024ULL * 1024)

void test_proc_statm_parse(void)
{
	uint64_t size = 1, res = 1;
	const char good[] = "123456 7890 321 12 0 4567 0\n";
	CU_ASSERT_EQUAL(proc_parse_statm(good, strlen(good), &size, &res), 0);
	CU_ASSERT_EQUAL(size, 123456);
	CU_ASSERT_EQUAL(res, 7890);
	/* Only the bytes given count: no NUL needed. */
	CU_ASSERT_EQUAL(proc_parse_statm("10 20", 5, &size, &res), 0);
	CU_ASSERT_EQUAL(res, 20);
	CU_ASSERT_EQUAL(proc_parse_statm("10 20", 4, &size, &res), 0);
	CU_ASSERT_EQUAL(res, 2);
	static const char *const bad[] = {
	    "",      "\n",   "12",    "12 ",    "a 1 2",
	    "1 b 2", " 1 2", "1,2 3", "1 2x 3", "99999999999999999999 1 2"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size = res = 77;
		int rc = proc_parse_statm(bad[i], strlen(bad[i]), &size, &res);
		if (rc != -1)
			fprintf(stderr, "\n  accepted '%s'\n", bad[i]);
		CU_ASSERT_EQUAL(rc, -1);
		CU_ASSERT_EQUAL(size, 77);
	}
}

static const char status_text[] = "Name:\tmy host\n"
                                  "Umask:\t0022\n"
                                  "State:\tS (sleeping)\n"
                                  "Tgid:\t4242\n"
                                  "Pid:\t4242\n"
                                  "PPid:\t17\n"
                                  "VmPeak:\t 3670016 kB\n"
                                  "VmSize:\t 3145728 kB\n"
                                  "VmLck:\t       0 kB\n"
                                  "VmHWM:\t  524288 kB\n"
                                  "VmRSS:\t  262144 kB\n"
                                  "Threads:\t3\n";

void test_proc_status_parse(void)
{
	proc_status st;
	CU_ASSERT_EQUAL_FATAL(proc_parse_status(status_text, strlen(status_text), &st), 0);
	CU_ASSERT_EQUAL(st.vm_peak, 3670016ULL * 1024);
	CU_ASSERT_EQUAL(st.vm_size, 3ULL << 30);
	CU_ASSERT_EQUAL(st.vm_hwm, 512 * MI);
	CU_ASSERT_EQUAL(st.vm_rss, 256 * MI);
	CU_ASSERT_EQUAL(st.ppid, 17);
	/* A zombie or kernel thread has no Vm lines: fields stay 0. */
	const char zombie[] = "Name:\tz\nState:\tZ (zombie)\nPPid:\t1\nThreads:\t1\n";
	CU_ASSERT_EQUAL(proc_parse_status(zombie, strlen(zombie), &st), 0);
	CU_ASSERT_EQUAL(st.vm_peak, 0);
	CU_ASSERT_EQUAL(st.vm_size, 0);
	CU_ASSERT_EQUAL(st.ppid, 1);
	/* No final newline. */
	CU_ASSERT_EQUAL(proc_parse_status("VmSize:\t4 kB", strlen("VmSize:\t4 kB"), &st), 0);
	CU_ASSERT_EQUAL(st.vm_size, 4096);
}

void test_proc_status_malformed(void)
{
	static const char *const bad[] = {
	    "",
	    "VmSize:\t abc kB\n",
	    "VmSize:\t 12 MB\n",
	    "VmSize:\t 12\n",
	    "VmPeak:\t 12 kB extra\n",
	    "VmRSS:\t -5 kB\n",
	    "VmHWM:\t 99999999999999999999 kB\n",
	    "PPid:\tx\n",
	    "PPid:\t99999999999\n",
	    "Name:\tok\nthis line has no colon\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		proc_status st = {.vm_size = 5};
		int rc = proc_parse_status(bad[i], strlen(bad[i]), &st);
		if (rc != -1)
			fprintf(stderr, "\n  accepted '%s'\n", bad[i]);
		CU_ASSERT_EQUAL(rc, -1);
		CU_ASSERT_EQUAL(st.vm_size, 5);
	}
}

void test_proc_stat_ppid(void)
{
	pid_t ppid = 0;
	const char plain[] = "4242 (host) S 17 4242 4242 0 -1 4194560 ...";
	CU_ASSERT_EQUAL(proc_parse_stat_ppid(plain, strlen(plain), &ppid), 0);
	CU_ASSERT_EQUAL(ppid, 17);
	/* A name holding ") " and digits must not fool the parser. */
	const char evil[] = "4242 (a) S 99 (b) R 23 4242 0 -1";
	CU_ASSERT_EQUAL(proc_parse_stat_ppid(evil, strlen(evil), &ppid), 0);
	CU_ASSERT_EQUAL(ppid, 23);
	static const char *const bad[] = {"", "4242 host S 17", "4242 (host)", "4242 (host) S x",
	                                  "4242 (host) S"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ppid = 5;
		CU_ASSERT_EQUAL(proc_parse_stat_ppid(bad[i], strlen(bad[i]), &ppid), -1);
		CU_ASSERT_EQUAL(ppid, 5);
	}
}

void test_proc_read_status_self(void)
{
	proc_status st = {0};
	mg_err err = {{0}};
	CU_ASSERT_EQUAL_FATAL(proc_read_status(&st, getpid(), &err), 0);
	CU_ASSERT(st.vm_size > 0);
	CU_ASSERT(st.vm_peak >= st.vm_size);
	CU_ASSERT(st.vm_rss > 0);
	CU_ASSERT_EQUAL(st.ppid, getppid());
	proc_status self = {0};
	CU_ASSERT_EQUAL(proc_read_status(&self, 0, &err), 0);
	CU_ASSERT_EQUAL(self.ppid, getppid());
}

/* A child that was reaped: its pid is gone (reuse within the test is
 * vanishingly unlikely). */
static pid_t dead_pid(void)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	CU_ASSERT_FATAL(pid > 0);
	CU_ASSERT_EQUAL(waitpid(pid, NULL, 0), pid);
	return pid;
}

void test_proc_read_status_gone(void)
{
	proc_status st;
	mg_err err = {{0}};
	pid_t pid = dead_pid();
	CU_ASSERT_EQUAL(proc_read_status(&st, pid, &err), MG_EGONE);
	GT_ASSERT_CONTAINS(err.msg, "/proc/");
	proc_sampler *s = (proc_sampler *)1;
	CU_ASSERT_EQUAL(proc_sampler_open(&s, pid, &err), MG_EGONE);
	CU_ASSERT_PTR_NULL(s);
	proc_sampler_free(NULL); /* a no-op */
}

static void write_byte(int fd, char c)
{
	CU_ASSERT_EQUAL(write(fd, &c, 1), 1);
}

static char read_byte(int fd)
{
	char c = 0;
	CU_ASSERT_EQUAL(read(fd, &c, 1), 1);
	return c;
}

/*
 * The child waits for a command byte: 'a' maps and touches 64 MiB, 'q'
 * exits 7. It answers each command with one byte.
 */
static void child_loop(int cmd, int reply)
{
	char c;
	while (read(cmd, &c, 1) == 1) {
		if (c == 'a') {
			size_t len = 64 * MI;
			char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (p == MAP_FAILED)
				_exit(3);
			for (size_t i = 0; i < len; i += 4096)
				p[i] = 1;
		} else if (c == 'q') {
			_exit(7);
		}
		if (write(reply, &c, 1) != 1)
			_exit(4);
	}
	_exit(5);
}

void test_proc_sampler_child(void)
{
	int to[2], from[2];
	mg_err err = {{0}};
	CU_ASSERT_FATAL(pipe(to) == 0 && pipe(from) == 0);
	fflush(NULL);
	pid_t pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		close(to[1]);
		close(from[0]);
		child_loop(to[0], from[1]);
	}
	close(to[0]);
	close(from[1]);
	proc_sampler *s = NULL;
	CU_ASSERT_EQUAL_FATAL(proc_sampler_open(&s, pid, &err), 0);
	uint64_t va0 = 0, rss0 = 0, va1 = 0, rss1 = 0;
	CU_ASSERT_EQUAL(proc_sampler_read(s, &va0, &rss0), 0);
	CU_ASSERT(va0 > 0);
	CU_ASSERT(rss0 > 0);
	write_byte(to[1], 'a');
	CU_ASSERT_EQUAL(read_byte(from[0]), 'a');
	CU_ASSERT_EQUAL(proc_sampler_read(s, &va1, &rss1), 0);
	CU_ASSERT(va1 >= va0 + 64 * MI);
	CU_ASSERT(va1 < va0 + 80 * MI);
	CU_ASSERT(rss1 >= rss0 + 60 * MI);
	/* The cost claimed in proc.h: a sample is a few microseconds. */
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < 1000; i++)
		CU_ASSERT_EQUAL(proc_sampler_read(s, &va1, &rss1), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double us = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) /
	            1000 / 1000;
	fprintf(stderr, "\n  sampler: %.2f us per read\n", us);
	CU_ASSERT(us < 100.0);
	write_byte(to[1], 'q');
	/* Exited but not reaped: a zombie still reads as gone, never as 0. */
	CU_ASSERT_EQUAL(read(from[0], &(char){0}, 1), 0);
	for (int i = 0; i < 1000; i++) {
		siginfo_t si = {0};
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) == 0 && si.si_pid == pid)
			break;
	}
	uint64_t va = 99, rss = 99;
	CU_ASSERT_EQUAL(proc_sampler_read(s, &va, &rss), MG_EGONE);
	int status = 0;
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status));
	CU_ASSERT_EQUAL(WEXITSTATUS(status), 7);
	CU_ASSERT_EQUAL(proc_sampler_read(s, &va, &rss), MG_EGONE);
	CU_ASSERT_EQUAL(va, 99);
	proc_sampler_free(s);
	close(to[1]);
	close(from[0]);
}

static int pid_in(pid_t pid, const pid_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == pid)
			return 1;
	return 0;
}

/* Starts `sh -c script` in its own process group. */
static pid_t start_sh(const char *script)
{
	fflush(NULL);
	pid_t pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		setpgid(0, 0);
		execl("/bin/sh", "sh", "-c", script, (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid);
	return pid;
}

static void stop_sh(pid_t pid)
{
	int status = 0;
	CU_ASSERT_EQUAL(kill(-pid, SIGKILL), 0);
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFSIGNALED(status));
	CU_ASSERT_EQUAL(WTERMSIG(status), SIGKILL);
}

/* Waits up to 3 s until the tree below pid has want processes. */
static size_t wait_tree(size_t (*fn)(pid_t, pid_t *, size_t), pid_t pid, pid_t *out, size_t cap,
                        size_t want)
{
	size_t n = 0;
	for (int i = 0; i < 300; i++) {
		n = fn(pid, out, cap);
		if (n >= want)
			break;
		usleep(10000);
	}
	return n;
}

/* fn found the two children of sh (n of them in out), and with room for
 * one it still counts both. */
static void check_two_children(size_t (*fn)(pid_t, pid_t *, size_t), pid_t sh, const pid_t *out,
                               size_t n)
{
	CU_ASSERT_EQUAL(n, 2);
	for (size_t i = 0; i < n && i < 16; i++) {
		proc_status st = {0};
		CU_ASSERT_EQUAL(proc_read_status(&st, out[i], NULL), 0);
		CU_ASSERT_EQUAL(st.ppid, sh);
	}
	pid_t one[1] = {0};
	CU_ASSERT_EQUAL(fn(sh, one, 1), 2);
	CU_ASSERT(pid_in(one[0], out, 2));
	CU_ASSERT_FALSE(pid_in(sh, out, n));
}

static void check_tree(size_t (*fn)(pid_t, pid_t *, size_t))
{
	pid_t out[16];
	pid_t sh = start_sh("sleep 5 & sleep 5 & wait");
	size_t n = wait_tree(fn, sh, out, 16, 2);
	check_two_children(fn, sh, out, n);
	stop_sh(sh);

	/* Grandchildren: the subshell forks its sleep (the "; true" keeps it
	 * from exec'ing in place). */
	sh = start_sh("(sleep 5; true) & sleep 5 & wait");
	n = wait_tree(fn, sh, out, 16, 3);
	CU_ASSERT_EQUAL(n, 3);
	size_t grandchildren = 0;
	for (size_t i = 0; i < n && i < 16; i++) {
		proc_status st = {0};
		CU_ASSERT_EQUAL(proc_read_status(&st, out[i], NULL), 0);
		if (st.ppid != sh && pid_in(st.ppid, out, n))
			grandchildren++;
	}
	CU_ASSERT_EQUAL(grandchildren, 1);
	stop_sh(sh);
}

void test_proc_descendants(void)
{
	check_tree(proc_descendants);
}

void test_proc_descendants_scan(void)
{
	check_tree(proc_descendants_scan);
}

/* Only the direct children: a grandchild is not one. */
void test_proc_children(void)
{
	pid_t out[16];
	pid_t sh = start_sh("(sleep 5; true) & sleep 5 & wait");
	CU_ASSERT_EQUAL(wait_tree(proc_descendants, sh, out, 16, 3), 3);
	check_two_children(proc_children, sh, out, proc_children(sh, out, 16));
	stop_sh(sh);
	CU_ASSERT_EQUAL(proc_children(dead_pid(), out, 16), 0);
}

/* A thread that forks a child sleeping until killed, says its pid on
 * fds[1] and stays until fds[2] reads EOF: the child is in this thread's
 * children file, not the main thread's. */
static void *fork_and_stay(void *arg)
{
	int *fds = arg;
	char c;
	pid_t pid = fork();
	if (pid == 0) {
		pause();
		_exit(0);
	}
	if (write(fds[1], &pid, sizeof(pid)) != sizeof(pid))
		return NULL;
	while (read(fds[2], &c, 1) > 0)
		;
	return NULL;
}

/*
 * Kept-open children files (tree.c's scan): the same proc_kids read again
 * says what is there now (two children, then the one started after they
 * ended); a child of a thread other than the main one is found (the
 * fast path reads the main thread's file only); a process
 * that is gone has none.
 */
void test_proc_kids(void)
{
	pid_t out[16], first[2];
	proc_kids k;
	pid_t sh = start_sh("sleep 0.3 & sleep 0.3 & wait; sleep 5");
	CU_ASSERT_EQUAL_FATAL(proc_kids_open(&k, sh), 0);
	size_t n = 0;
	for (int i = 0; i < 300 && n != 2; i++, usleep(5000))
		n = proc_kids_read(&k, out, 16);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	memcpy(first, out, sizeof(first));
	for (int i = 0; i < 5; i++) {
		proc_status st = {0};
		CU_ASSERT_EQUAL(proc_read_status(&st, out[i % 2], NULL), 0);
		CU_ASSERT_EQUAL(st.ppid, sh);
	}
	pid_t one[1] = {0};
	CU_ASSERT_EQUAL(proc_kids_read(&k, one, 1), 2); /* counted past cap */
	for (int i = 0; i < 300 && !(n == 1 && !pid_in(out[0], first, 2)); i++, usleep(10000))
		n = proc_kids_read(&k, out, 16);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_FALSE(pid_in(out[0], first, 2));
	stop_sh(sh);
	proc_kids_close(&k);
	CU_ASSERT_EQUAL(k.task_fd, -1);

	/* fds: [0] [1] the pid's pipe, [2] [3] the stay pipe */
	int fds[4];
	pid_t child = 0;
	pthread_t th;
	CU_ASSERT_EQUAL_FATAL(pipe(fds), 0);
	CU_ASSERT_EQUAL_FATAL(pipe(fds + 2), 0);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, fork_and_stay, fds), 0);
	CU_ASSERT_EQUAL(read(fds[0], &child, sizeof(child)), (ssize_t)sizeof(child));
	CU_ASSERT_FATAL(child > 0);
	CU_ASSERT_EQUAL(proc_kids_open(&k, getpid()), 0);
	n = proc_kids_read(&k, out, 16);
	CU_ASSERT(pid_in(child, out, n < 16 ? n : 16));
	proc_kids_close(&k);
	kill(child, SIGKILL); /* it holds the stay pipe's write end too */
	waitpid(child, NULL, 0);
	close(fds[3]);
	pthread_join(th, NULL);
	for (int i = 0; i < 3; i++)
		close(fds[i]);

	CU_ASSERT_EQUAL(proc_kids_open(&k, dead_pid()), -1);
	CU_ASSERT_EQUAL(proc_kids_read(&k, out, 16), 0);
}

void test_proc_descendants_none(void)
{
	pid_t out[4];
	CU_ASSERT_EQUAL(proc_descendants(dead_pid(), out, 4), 0);
	CU_ASSERT_EQUAL(proc_descendants_scan(dead_pid(), out, 4), 0);
}

void test_proc_ram_page(void)
{
	CU_ASSERT_EQUAL(proc_page_size(), (uint64_t)sysconf(_SC_PAGESIZE));
	CU_ASSERT(proc_ram_bytes() >= 256 * MI);
	CU_ASSERT_EQUAL(proc_ram_bytes() % proc_page_size(), 0);
}

void test_proc_nspid_parse(void)
{
	static const char two[] = "Name:\tx\nNSpid:\t4321\t2\nNSpgid:\t4321\t2\n";
	static const char one[] = "Pid:\t7\nNSpid:\t7\n";
	static const char bad[] = "NSpid:\t12x\t3\n";
	pid_t v[4];
	CU_ASSERT_EQUAL(proc_parse_nspid(two, sizeof(two) - 1, v, 4), 2);
	CU_ASSERT(v[0] == 4321 && v[1] == 2);
	CU_ASSERT_EQUAL(proc_parse_nspid(one, sizeof(one) - 1, v, 4), 1);
	CU_ASSERT_EQUAL(v[0], 7);
	CU_ASSERT_EQUAL(proc_parse_nspid(two, sizeof(two) - 1, v, 1), 2); /* only v[0] written */
	CU_ASSERT_EQUAL(proc_parse_nspid(bad, sizeof(bad) - 1, v, 4), 0);
	CU_ASSERT_EQUAL(proc_parse_nspid("Pid:\t1\n", 7, v, 4), 0);
	/* outside a namespace of our own, a child's pid is /proc's */
	CU_ASSERT_EQUAL(proc_self_pid(), getpid());
	CU_ASSERT_EQUAL(proc_child_pid(1234), 1234);
}

/*
 * In a PID namespace whose /proc is the outer one (a contained run's host):
 * its init (pid 1 inside) forks a child that writes readlink("/proc/self"),
 * the truth; proc_self_pid and proc_child_pid must give /proc's numbers.
 * Skipped (no assertion fails) where no namespace can be made.
 */
void test_proc_namespace_pids(void)
{
	pid_t a = fork();
	if (a == 0) {
		if (unshare(CLONE_NEWPID) < 0 && unshare(CLONE_NEWUSER | CLONE_NEWPID) < 0)
			_exit(77);
		pid_t init = fork();
		if (init == 0) {
			int p[2];
			if (pipe(p) < 0)
				_exit(10);
			pid_t c = fork();
			if (c == 0) {
				char buf[32] = "";
				ssize_t n = readlink("/proc/self", buf, sizeof(buf) - 1);
				if (n <= 0 || write(p[1], buf, (size_t)n) != n)
					_exit(1);
				_exit(0);
			}
			char buf[32] = "";
			close(p[1]);
			if (read(p[0], buf, sizeof(buf) - 1) <= 0)
				_exit(11);
			pid_t truth = (pid_t)atoi(buf), got = proc_child_pid(c);
			char self[32] = "";
			if (readlink("/proc/self", self, sizeof(self) - 1) <= 0)
				_exit(12);
			int rc = getpid() != 1                       ? 13
			         : proc_self_pid() != atoi(self)     ? 14
			         : truth <= 1 || c == truth          ? 15
			         : got != truth                      ? 16
			         : proc_child_pid(c + 1000000) != -1 ? 17
			                                             : 0;
			waitpid(c, NULL, 0);
			_exit(rc);
		}
		int st = 0;
		waitpid(init, &st, 0);
		_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 99);
	}
	int st = 0;
	waitpid(a, &st, 0);
	CU_ASSERT_FATAL(WIFEXITED(st));
	if (WEXITSTATUS(st) == 77) {
		fprintf(stderr, "proc_namespace_pids: no PID namespace here, not tested\n");
		return;
	}
	CU_ASSERT_EQUAL(WEXITSTATUS(st), 0);
}

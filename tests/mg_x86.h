/*
 * mg_x86.h - a case that executes 32-bit programs (its CTest name ends in
 * _x86) skips where this kernel refuses them, and only there: CTest gives
 * every such case MG_X86_CHECK, a static -m32 program that exits 0
 * (tests/x86_check.c), and SKIP_RETURN_CODE 77 (mg_x86_cases,
 * tests/CMakeLists.txt). tests/run then runs those cases in the x86 VM.
 */
#ifndef MG_X86_H
#define MG_X86_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * 1 when this kernel refuses to execute prog (exec fails with ENOEXEC: no
 * 32-bit support), after a line "SKIP what: the reason" on stdout: the x86
 * cases then exit 77, CTest's skip code (tests/run runs them in a VM). prog
 * runs with arg (something quick, such as its listing) where it can; its
 * wait status in *status (may be NULL).
 */
static inline int mg_exec_refused(const char *prog, const char *arg, const char *what, int *status)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		dup2(fd, 2);
		execl(prog, prog, arg, (char *)NULL);
		_exit(errno == ENOEXEC ? 126 : 127);
	}
	int st = 0;
	while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (status)
		*status = pid > 0 ? st : -1;
	if (pid < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 126)
		return 0;
	printf("SKIP %s: this kernel cannot execute 32-bit programs (exec of %s: %s)\n", what, prog,
	       strerror(ENOEXEC));
	fflush(NULL);
	return 1;
}

/* mg_exec_refused of MG_X86_CHECK, when CTest set it: a case whose check
 * runs, or fails otherwise, does not skip (it runs and says why it fails). */
static inline int mg_x86_refused(const char *what)
{
	const char *check = getenv("MG_X86_CHECK");
	return check && *check && mg_exec_refused(check, NULL, what, NULL);
}

#endif

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
 * 1 after a line "SKIP what: the reason" on stdout when MG_X86_CHECK is set
 * and this kernel refuses to execute it (ENOEXEC), else 0: a check that
 * runs, or fails otherwise, does not skip (the case runs and says why it
 * fails).
 */
static inline int mg_x86_refused(const char *what)
{
	const char *check = getenv("MG_X86_CHECK");
	if (!check || !*check)
		return 0;
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		execl(check, check, (char *)NULL);
		_exit(errno == ENOEXEC ? 126 : 127);
	}
	int st = 0;
	while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (pid < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 126)
		return 0;
	printf("SKIP %s: this kernel cannot execute 32-bit programs (exec of %s: %s)\n", what,
	       check, strerror(ENOEXEC));
	fflush(NULL);
	return 1;
}

#endif

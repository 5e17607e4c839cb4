/*
 * test_exit.c - mg_exit.h's decoder of how a child ended, on real children:
 * an exit status, a signal, and a core dump only where one was allowed.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mg_exit.h"
#include "mg_test.h"

/* Forks a child that ends as how says, and decodes its end. */
static mg_exit_end child_end(int how)
{
	pid_t pid = fork();
	if (pid == 0) {
		struct rlimit no_core = {0, 0};
		setrlimit(RLIMIT_CORE, &no_core);
		if (how >= 0)
			_exit(how);
		signal(-how, SIG_DFL);
		raise(-how);
		_exit(99);
	}
	int st = 0;
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	return mg_exit_decode(st);
}

void test_exit_decode(void)
{
	mg_exit_end e = child_end(0);
	CU_ASSERT(e.status == 0 && e.signo == 0 && e.core == 0);
	CU_ASSERT(mg_exit_ok(e));
	CU_ASSERT_EQUAL(mg_exit_shell(e), 0);
	e = child_end(3);
	CU_ASSERT(e.status == 3 && e.signo == 0 && e.core == 0);
	CU_ASSERT(!mg_exit_ok(e));
	CU_ASSERT_EQUAL(mg_exit_shell(e), 3);
	e = child_end(255);
	CU_ASSERT(e.status == 255 && e.signo == 0);
	e = child_end(-SIGTERM);
	CU_ASSERT(e.status == 0 && e.signo == SIGTERM && e.core == 0);
	CU_ASSERT(!mg_exit_ok(e));
	CU_ASSERT_EQUAL(mg_exit_shell(e), 128 + SIGTERM);
	/* a signal that would dump core, with no core allowed: no core */
	e = child_end(-SIGSEGV);
	CU_ASSERT(e.status == 0 && e.signo == SIGSEGV && e.core == 0);
	/* a signal whose number is also a plausible exit status is still one */
	e = child_end(-SIGKILL);
	CU_ASSERT(e.signo == SIGKILL && e.status == 0);
	/* the raw status the kernel gives for a core dump sets core */
	CU_ASSERT_EQUAL(mg_exit_decode(SIGABRT | 0x80).core, 1);
	CU_ASSERT_EQUAL(mg_exit_decode(SIGABRT | 0x80).signo, SIGABRT);
}

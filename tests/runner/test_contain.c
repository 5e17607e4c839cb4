/*
 * test_contain.c - the PID namespace's end (runner/contain.c): contain_end
 * returns, with a child of the runner still alive in the namespace (a host
 * being torn down when a run ends), instead of waiting for an init that
 * waits for that child to be reaped.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "contain.h"
#include "mg_test.h"

/* In a child of the test (a hang must fail, not hang the test): a PID
 * namespace, a child in it that lives until killed, then contain_end. */
static void end_with_live_child(void)
{
	pid_t runner = fork();
	CU_ASSERT_FATAL(runner >= 0);
	if (runner == 0) {
		mg_err err;
		if (contain_start("pid", &err) < 0)
			_exit(77); /* no PID namespace here (not root) */
		contain_fork_begin();
		pid_t host = fork();
		if (host == 0) {
			for (;;)
				pause();
		}
		contain_fork_end();
		if (host < 0)
			_exit(3);
		contain_end();
		/* the namespace is gone, its process with it, and reaped */
		_exit(kill(host, 0) < 0 && errno == ESRCH ? 0 : 4);
	}
	int st = 0;
	for (int i = 0; i < 200; i++) { /* 10 s */
		pid_t p = waitpid(runner, &st, WNOHANG);
		if (p == runner)
			break;
		usleep(50000);
	}
	if (waitpid(runner, &st, WNOHANG) == 0) {
		kill(runner, SIGKILL);
		waitpid(runner, &st, 0);
		CU_FAIL("contain_end did not return within 10 s");
		return;
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 77) {
		fprintf(stderr, "\n  no PID namespace here (not root): skipped\n");
		exit(77); /* CTest's skip */
	}
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CU_ASSERT(!WIFSIGNALED(st));
}

static const mg_case cases[] = {
    {"end_with_live_child", end_with_live_child},
};

MG_TEST_MAIN("contain", cases)

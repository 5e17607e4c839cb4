/*
 * mg_exit.h - memguard's exit codes: one set for every command (README
 * "Exit codes"); and how a child ended, decoded once where waitpid returns.
 * Header only: any folder may include it.
 */
#ifndef MG_EXIT_H
#define MG_EXIT_H

#include <sys/wait.h>

enum {
	/* run: every test passed (or was skipped); bisect: the culprit was found;
	 * note, show, compare, log, merge: done */
	MG_EXIT_OK = 0,
	/* run: a test failed, crashed, timed out or hit the memory limit;
	 * bisect: the target did not fail again; show: no note on the commit;
	 * compare: no baseline */
	MG_EXIT_FAILED = 1,
	/* a bad flag, config key, argument or token (the message names it) */
	MG_EXIT_USAGE = 2,
	/* infrastructure: a host could not start, broke the protocol or did not
	 * list its tests in time, the run deadline passed, a file could not be
	 * written, not a repository */
	MG_EXIT_INFRA = 3,
	/* compare: a --max-growth threshold was exceeded */
	MG_EXIT_REGRESSION = 4,
	/* run: no test ran (a filter matching nothing, a host listing none)
	 * where the framework's own run of no test fails too (Catch2 v3,
	 * pytest) or has no word on it (exec, wrap): driver_no_tests_exit;
	 * list: no name printed;
	 * --allow-no-tests makes that 0, --fail-no-tests always 5 */
	MG_EXIT_NO_TESTS = 5,
};

/*
 * How a child ended (STYLE.md 14): it exited with status, or a signal
 * killed it (signo, and core when that dumped core). Decoded once, where
 * waitpid returns (mg_exit_decode); callers never see a raw wait status.
 */
typedef struct mg_exit_end {
	int status; /* its exit status (0-255) when it exited; 0 when signalled */
	int signo;  /* the signal that killed it; 0 when it exited */
	int core;   /* 1 when that signal dumped core */
} mg_exit_end;

/* A raw waitpid status (of a child that ended, not one stopped) decoded. */
static inline mg_exit_end mg_exit_decode(int wait_status)
{
	mg_exit_end e = {0, 0, 0};
	if (WIFSIGNALED(wait_status)) {
		e.signo = WTERMSIG(wait_status);
#ifdef WCOREDUMP
		e.core = WCOREDUMP(wait_status) ? 1 : 0;
#endif
	} else {
		e.status = WEXITSTATUS(wait_status);
	}
	return e;
}

/* 1 when it exited with status 0. */
static inline int mg_exit_ok(mg_exit_end e)
{
	return !e.signo && !e.status;
}

/* The shell's $? for it: the exit status, or 128 + the signal. */
static inline int mg_exit_shell(mg_exit_end e)
{
	return e.signo ? 128 + e.signo : e.status;
}

#endif

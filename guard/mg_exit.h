/*
 * mg_exit.h - memguard's exit codes: one set for every command (README
 * "Exit codes"). Header only, no code: any folder may include it.
 */
#ifndef MG_EXIT_H
#define MG_EXIT_H

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
	/* run: no test ran (a filter matching nothing, a host listing none);
	 * list: no name printed;
	 * --allow-no-tests makes that 0 (pytest's convention) */
	MG_EXIT_NO_TESTS = 5,
};

#endif

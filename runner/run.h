/*
 * run.h - "memguard run" and "memguard list": list the host's tests, plan
 * them into lanes, run the lanes in one poll loop while the guard samples
 * every host, recycle and retry as the limits say, write the report.
 */
#ifndef MG_RUN_H
#define MG_RUN_H

/* Exit codes (README "Exit codes"). */
enum {
	EXIT_PASS = 0,
	EXIT_TESTS_FAILED = 1,
	EXIT_USAGE = 2,
	EXIT_INFRA = 3,
	EXIT_REGRESSION = 4,
};

/* argv[0] is "run" / "list". Return the process exit code. */
int run_main(int argc, char **argv);
int run_list_main(int argc, char **argv);

#endif

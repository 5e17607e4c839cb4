/*
 * run.h - "memguard run" and "memguard list": list the host's tests, plan
 * them into lanes, run the lanes in one poll loop while the guard samples
 * every host, recycle and retry as the limits say, write the report.
 */
#ifndef MG_RUN_H
#define MG_RUN_H

#include "mg_exit.h"

struct report;
struct mg_err;

/* Fills in the commit a run is of (sha, branch, dirty) for the report's
 * header, from the repository at dir; <0 with err set when there is none.
 * The CLI passes ci's (libgit2), so the runner itself never touches git. */
typedef int (*run_identity_fn)(struct report *rep, const char *dir, struct mg_err *err);

/* Loads the report noted on the nearest noted ancestor of HEAD in the
 * repository at dir (--history auto); <0 with err set when there is none.
 * The CLI passes ci's; NULL: auto is not available. */
typedef int (*run_history_fn)(struct report **out, const char *dir, struct mg_err *err);

/* What the CLI gives the run from outside the runner (git, through ci). */
typedef struct run_hooks {
	run_identity_fn identity;
	run_history_fn history;
} run_hooks;

/*
 * argv[0] is "run" / "list". Returns the process exit code; after SIGINT
 * or SIGTERM (every host ended, the partial report written) it re-raises
 * the signal with its default action, so the caller sees the signal.
 * hooks may be NULL (the report then says "not a git repository", and
 * --history auto has no history to read).
 */
int run_main(int argc, char **argv, const run_hooks *hooks);

/* The signals that stop memguard the way SIGTERM does, in run (every host
 * ended, the partial report written, the signal re-raised) and in bisect
 * (passed on to its child run, its directory removed): SIGINT, SIGTERM,
 * SIGHUP (a closed terminal or a dropped ssh session), SIGQUIT, SIGUSR1,
 * SIGUSR2. One list for both; RUN_NSTOP_SIGNALS of them. */
#define RUN_NSTOP_SIGNALS 6
extern const int run_stop_signals[RUN_NSTOP_SIGNALS];
int run_list_main(int argc, char **argv);

#endif

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

/*
 * argv[0] is "run" / "list". Returns the process exit code; after SIGINT
 * or SIGTERM (every host ended, the partial report written) it re-raises
 * the signal with its default action, so the caller sees the signal.
 * identity may be NULL (the report then says "not a git repository").
 */
int run_main(int argc, char **argv, run_identity_fn identity);
int run_list_main(int argc, char **argv);

#endif

/*
 * ci.h - per-commit memory reports in git notes (refs/notes/memguard), read
 * and written only through libgit2: note, show, compare, log, notes-merge
 * and merge. The runner's main.c dispatches these subcommands to ci_main.
 */
#ifndef MG_CI_H
#define MG_CI_H

#include "mg_err.h"
#include "mg_exit.h"
#include "report.h"

/* The default notes ref; --ref or $MEMGUARD_NOTES_REF override it. */
#define CI_NOTES_REF "refs/notes/memguard"

/*
 * Runs one subcommand: cmd is "note", "show", "compare", "log", "notes-merge"
 * or "merge"; argv[0] is cmd. Writes results to stdout, messages to stderr
 * prefixed "memguard CMD: ", and returns the process exit code (CI_EXIT_*).
 * Safe to call repeatedly in one process (no getopt state); the repository
 * is discovered from the current directory.
 */
int ci_main(const char *cmd, int argc, char **argv);

/*
 * Fills r->sha, r->branch and r->dirty from the repository containing dir
 * (discovered upwards). A detached HEAD takes its branch from the CI's
 * environment (GITHUB_HEAD_REF, GITHUB_REF_NAME, CI_COMMIT_REF_NAME,
 * BUILD_SOURCEBRANCHNAME, BUILDKITE_BRANCH, BRANCH_NAME), else NULL.
 * dirty is 1 when a tracked file differs from HEAD in the index or the
 * worktree; untracked files are ignored. Outside a repository (or on an
 * unborn HEAD) sets r->repo_note and returns 0: a report is still written.
 * Other libgit2 failures return MG_ERROR with err set.
 */
int ci_commit_identity(report *r, const char *dir, mg_err *err);

/*
 * The report noted on the nearest noted ancestor of HEAD (HEAD first, then
 * its first parents, at most 1,000) — on a pull request (the CI's
 * GITHUB_BASE_REF, CI_MERGE_REQUEST_TARGET_BRANCH_NAME, ...) of the
 * merge-base with its target branch: what "memguard run --history auto"
 * plans from. MG_ENOTFOUND when no commit within reach has a note; the
 * caller frees *out with report_free.
 */
int ci_history(report **out, const char *dir, mg_err *err);

/* The help text for these subcommands (static storage). */
const char *ci_usage(void);

#endif

/*
 * history.c - "memguard run --history auto": the report noted on the
 * nearest noted ancestor of HEAD (HEAD itself first), walking first parents
 * (a merge's history is its mainline's); on a pull request, of the
 * merge-base with its target branch. Reads only; never writes a note.
 */
#include "ci_int.h"

#include <stdlib.h>
#include <string.h>

#define HISTORY_DEPTH 1000 /* ancestors looked at before giving up */

/* The target branch of a pull request, from the CI's environment; NULL
 * when this is no pull request. */
static const char *pr_target(void)
{
	static const char *const vars[] = {"GITHUB_BASE_REF", "CI_MERGE_REQUEST_TARGET_BRANCH_NAME",
	                                   "SYSTEM_PULLREQUEST_TARGETBRANCH",
	                                   "BUILDKITE_PULL_REQUEST_BASE_BRANCH", "CHANGE_TARGET"};
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);
		if (v && *v && strcmp(v, "false")) /* Buildkite says "false" when none */
			return v;
	}
	return NULL;
}

/* On a pull request, where its history starts: the merge-base of HEAD with
 * the target branch (origin/NAME, else NAME); HEAD otherwise, or when the
 * branch is not here (a shallow clone). */
static void history_start(git_oid *start, store *s, const git_oid *head)
{
	const char *target = pr_target();
	char rev[300];
	git_oid base, mb;
	*start = *head;
	if (!target)
		return;
	if (!strncmp(target, "refs/heads/", 11)) /* Azure gives the full ref */
		target += 11;
	snprintf(rev, sizeof(rev), "origin/%s", target);
	if (store_resolve(&base, s, rev, NULL) < 0 && store_resolve(&base, s, target, NULL) < 0)
		return;
	if (git_merge_base(&mb, s->repo, head, &base) == 0)
		*start = mb;
}

/* Called from "memguard run" (outside ci_main), so it holds libgit2 itself:
 * without init, libgit2's per-thread error state is never freed. */
static int history_find(report **out, mg_err *err)
{
	store s;
	notes n;
	git_oid head, id;
	git_revwalk *walk = NULL;
	int rc, steps = 0;
	memset(&n, 0, sizeof(n));
	if ((rc = store_open(&s, NULL, err)) < 0)
		return rc;
	if ((rc = notes_load(&n, s.repo, s.ref, err)) < 0 ||
	    (rc = store_resolve(&head, &s, "HEAD", err)) < 0)
		goto done;
	if (!n.exists) {
		rc = mg_err_set(err, MG_ENOTFOUND, "no memguard notes in this repository (%s)",
		                s.ref);
		goto done;
	}
	git_oid start;
	history_start(&start, &s, &head);
	if (git_revwalk_new(&walk, s.repo) < 0 || git_revwalk_push(walk, &start) < 0) {
		rc = store_git_fail(err, "walking the history");
		goto done;
	}
	git_revwalk_simplify_first_parent(walk);
	/* a shallow clone ends the walk early: what it has is looked at */
	while (steps < HISTORY_DEPTH && git_revwalk_next(&id, walk) == 0) {
		steps++;
		if (notes_find(&n, &id)) {
			rc = store_read_note(out, &s, &n, &id, err);
			goto done;
		}
	}
	rc = mg_err_set(err, MG_ENOTFOUND, "no noted commit among the %d commits from HEAD", steps);
done:
	git_revwalk_free(walk);
	notes_free(&n);
	store_close(&s);
	return rc;
}

int ci_history(report **out, const char *dir, mg_err *err)
{
	(void)dir; /* the repository is found from the current directory */
	if (ci_git_load(err) < 0)
		return MG_ERROR;
	if (git_libgit2_init() < 0)
		return mg_err_set(err, MG_ERROR, "cannot initialise libgit2");
	int rc = history_find(out, err);
	git_libgit2_shutdown();
	return rc;
}

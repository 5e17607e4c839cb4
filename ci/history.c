/*
 * history.c - "memguard run --history auto": the report noted on the
 * nearest noted ancestor of HEAD (HEAD itself first), walking first parents
 * (a merge's history is its mainline's). Reads only; never writes a note.
 */
#include "ci_int.h"

#include <string.h>

#define HISTORY_DEPTH 1000 /* ancestors looked at before giving up */

int ci_history(report **out, const char *dir, mg_err *err)
{
	store s;
	notes n;
	git_oid head, id;
	git_revwalk *walk = NULL;
	int rc, steps = 0;
	(void)dir; /* the repository is found from the current directory */
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
	if (git_revwalk_new(&walk, s.repo) < 0 || git_revwalk_push(walk, &head) < 0) {
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

/*
 * notes_merge.c - "memguard notes-merge": libgit2 has no notes merge, so
 * this merges two notes refs note by note with the keyed report merge. The
 * merge of two notes does not depend on which side is ours, so two clones
 * that merge each other's ref converge to the same notes tree.
 */
#include <string.h>

#include "ci_int.h"

#define CMD   "notes-merge"
#define TRIES 5

/* Resolves OTHER_REF as a ref (short names under refs/notes/) or a revision. */
static int resolve_other(git_oid *out, store *s, const char *other, mg_err *err)
{
	char full[256];
	store_ref_name(full, sizeof(full), other);
	int rc = git_reference_name_to_id(out, s->repo, full);
	if (rc == 0)
		return 0;
	if (rc != GIT_ENOTFOUND && rc != GIT_EINVALIDSPEC)
		return store_git_fail(err, full);
	return store_resolve(out, s, other, err);
}

/* Moves the ref to to (fast-forward or first creation), by compare-and-swap. */
static int move_ref(store *s, const notes *ours, const git_oid *to, mg_err *err)
{
	git_reference *ref = NULL;
	int rc = ours->exists
	             ? git_reference_create_matching(&ref, s->repo, s->ref, to, 1, &ours->commit,
	                                             "memguard: notes fast-forward")
	             : git_reference_create(&ref, s->repo, s->ref, to, 0,
	                                    "memguard: notes from another ref");
	git_reference_free(ref);
	if (rc == GIT_EMODIFIED || rc == GIT_EEXISTS)
		return mg_err_set(err, STORE_ERACE, "%s was updated by another writer", s->ref);
	if (rc < 0)
		return store_git_fail(err, s->ref);
	return 0;
}

/* One attempt; *what says what happened, for the summary line. */
static int merge_once(store *s, const git_oid *theirs_id, const char *other, char *what,
                      size_t whatsize, mg_err *err)
{
	notes ours, theirs = {0};
	size_t added = 0, merged = 0;
	int rc = notes_load(&ours, s->repo, s->ref, err);
	if (rc < 0)
		return rc;
	if (!ours.exists) {
		rc = move_ref(s, &ours, theirs_id, err);
		snprintf(what, whatsize, "%s created from %s", s->ref, other);
		goto out;
	}
	if (git_oid_equal(&ours.commit, theirs_id) ||
	    git_graph_descendant_of(s->repo, &ours.commit, theirs_id) == 1) {
		snprintf(what, whatsize, "%s already contains %s", s->ref, other);
		goto out;
	}
	if (git_graph_descendant_of(s->repo, theirs_id, &ours.commit) == 1) {
		rc = move_ref(s, &ours, theirs_id, err);
		snprintf(what, whatsize, "%s fast-forwarded to %s", s->ref, other);
		goto out;
	}
	if ((rc = notes_load_commit(&theirs, s->repo, theirs_id, err)) < 0)
		goto out;
	for (size_t i = 0; i < theirs.n; i++) {
		const note_entry *t = &theirs.v[i];
		const note_entry *o = notes_find(&ours, &t->target);
		git_oid blob;
		if (!o) {
			notes_set(&ours, &t->target, &t->blob);
			added++;
		} else if (!git_oid_equal(&o->blob, &t->blob)) {
			if ((rc = store_merge_blobs(&blob, s->repo, &t->target, &o->blob, &t->blob,
			                            err)) < 0)
				goto out;
			notes_set(&ours, &t->target, &blob);
			merged++;
		}
	}
	char msg[512];
	snprintf(msg, sizeof(msg),
	         "memguard: notes-merge %s into %s\n\n%zu note%s merged by shard key, %zu taken "
	         "from %s\n",
	         other, s->ref, merged, merged == 1 ? "" : "s", added, other);
	git_oid parents[2], commit;
	git_oid_cpy(&parents[0], &ours.commit);
	git_oid_cpy(&parents[1], theirs_id);
	rc = store_commit(&commit, s, &ours, parents, 2, &ours.commit, msg, err);
	snprintf(what, whatsize, "%s: %zu note%s merged, %zu taken from %s", s->ref, merged,
	         merged == 1 ? "" : "s", added, other);
out:
	notes_free(&ours);
	notes_free(&theirs);
	return rc;
}

int notes_merge_main(int argc, char **argv)
{
	const char *ref = NULL, *other = NULL;
	store s = {0};
	mg_err err;
	git_oid theirs;
	char what[512];
	int rc, o;

	for (int i = 1; i < argc; i++) {
		if (ci_is_help(argv[i]))
			return ci_cmd_usage(CMD, stdout, CI_EXIT_OK);
		if ((o = ci_opt(CMD, argc, argv, &i, "--ref", &ref))) {
			if (o < 0)
				return -o;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			ci_fail(CMD, CI_EXIT_USAGE, "unknown option '%s'", argv[i]);
			return ci_cmd_usage(CMD, stderr, CI_EXIT_USAGE);
		} else if (other) {
			return ci_fail(CMD, CI_EXIT_USAGE, "one ref at a time ('%s')", argv[i]);
		} else {
			other = argv[i];
		}
	}
	if (!other) {
		ci_fail(CMD, CI_EXIT_USAGE, "which ref? (OTHER_REF)");
		return ci_cmd_usage(CMD, stderr, CI_EXIT_USAGE);
	}
	if ((rc = store_open(&s, ref, &err)) < 0)
		return ci_fail(CMD, rc == MG_EINVAL ? CI_EXIT_USAGE : CI_EXIT_INFRA, "%s", err.msg);
	rc = resolve_other(&theirs, &s, other, &err);
	if (rc == MG_ENOTFOUND) {
		fprintf(stderr, "memguard " CMD ": %s does not exist: nothing to merge\n", other);
		rc = CI_EXIT_OK;
		goto out;
	}
	if (rc < 0) {
		rc = ci_fail(CMD, CI_EXIT_INFRA, "%s", err.msg);
		goto out;
	}
	for (int t = 0; t < TRIES; t++) {
		rc = merge_once(&s, &theirs, other, what, sizeof(what), &err);
		if (rc == STORE_ERACE)
			continue;
		if (rc < 0) {
			rc = ci_fail(CMD, CI_EXIT_INFRA, "%s", err.msg);
			goto out;
		}
		printf("%s\n", what);
		rc = CI_EXIT_OK;
		goto out;
	}
	rc = ci_fail(CMD, CI_EXIT_INFRA, "%s kept moving: gave up after %d tries", s.ref, TRIES);
out:
	store_close(&s);
	return rc;
}

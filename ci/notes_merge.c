/*
 * notes_merge.c - "memguard notes-merge": libgit2 has no notes merge, so
 * this merges two notes refs note by note with the keyed report merge. The
 * merge of two notes does not depend on which side is ours, so two clones
 * that merge each other's ref converge to the same notes tree.
 */
#include <stdlib.h>
#include <string.h>

#include "ci_int.h"

#define CMD "notes-merge"

/*
 * Resolves OTHER_REF: only a ref under refs/notes/ ("memguard-remote" is
 * short for refs/notes/memguard-remote) that points at a commit. Anything
 * else (a branch, a revision) would move the notes ref onto code history.
 * MG_ENOTFOUND when no such ref exists (the first CI run: nothing to merge),
 * MG_EINVAL, naming the argument, when other is not a notes ref.
 */
static int resolve_other(git_oid *out, store *s, const char *other, mg_err *err)
{
	char full[256];
	git_reference *ref = NULL;
	git_object *obj = NULL;
	store_ref_name(full, sizeof(full), other);
	if (strncmp(full, "refs/notes/", 11) != 0 || !git_reference_is_valid_name(full))
		return mg_err_set(err, MG_EINVAL,
		                  "'%s' is not a notes ref (refs/notes/NAME, or NAME for short)",
		                  other);
	int rc = git_reference_lookup(&ref, s->repo, full);
	if (rc == GIT_ENOTFOUND) {
		/* "main", "HEAD", a sha: a revision, not a notes ref that is missing. */
		if (git_revparse_single(&obj, s->repo, other) == 0) {
			git_object_free(obj);
			return mg_err_set(err, MG_EINVAL,
			                  "'%s' is a revision, not a notes ref (%s does not exist)",
			                  other, full);
		}
		git_error_clear();
		return mg_err_set(err, MG_ENOTFOUND, "%s does not exist", other);
	}
	if (rc < 0)
		return store_git_fail(err, full);
	rc = git_reference_peel(&obj, ref, GIT_OBJECT_COMMIT);
	git_reference_free(ref);
	if (rc < 0)
		return mg_err_set(err, MG_EINVAL, "'%s' (%s) does not point at a notes commit",
		                  other, full);
	git_oid_cpy(out, git_object_id(obj));
	git_object_free(obj);
	return 0;
}

/* A commit whose tree holds entries but not one note is code, not notes. */
static int check_notes_commit(store *s, const git_oid *id, const char *other, mg_err *err)
{
	notes n;
	int rc = notes_load_commit(&n, s->repo, id, err);
	if (rc == 0 && n.n == 0 && n.nother > 0)
		rc = mg_err_set(err, MG_EINVAL,
		                "'%s' is not a notes ref: its tree holds files, not notes", other);
	notes_free(&n);
	return rc;
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
	if (rc == GIT_ELOCKED)
		return mg_err_set(err, STORE_ELOCKED, "%s is locked by another writer", s->ref);
	if (rc == GIT_EMODIFIED || rc == GIT_EEXISTS)
		return mg_err_set(err, STORE_ERACE, "%s was updated by another writer", s->ref);
	if (rc < 0)
		return store_git_fail(err, s->ref);
	return 0;
}

/*
 * Whether blob is a memguard report: 1, 0 (not one: err says why), or < 0
 * when it cannot be read.
 */
static int is_report(store *s, const note_entry *e, mg_err *err)
{
	report *r = NULL;
	int rc = store_read(&r, s->repo, &e->blob, &e->target, err);
	report_free(r);
	return rc == 0 ? 1 : rc == MG_EINVAL ? 0 : rc;
}

/* Says which note of the two was no report (why) and that the other was kept. */
static void warn_kept(const mg_err *why, const git_oid *target)
{
	char sha[GIT_OID_HEXSZ + 1];
	git_oid_tostr(sha, sizeof(sha), target);
	fprintf(stderr,
	        "memguard " CMD ": warning: %s (commit %s); kept the side that is a report\n",
	        why->msg, sha);
}

/* 1 when blob is a JSON object whose schema is a later memguard's report
 * ("memguard-report/3": one this memguard does not read, but must not
 * write over at a fast-forward); 0 for this memguard's own version or an
 * older one (such a note that it cannot read is no report). */
static int memguard_schema(store *s, const note_entry *e)
{
	static const char prefix[] = "memguard-report/";
	const size_t plen = sizeof(prefix) - 1;
	const char *own = REPORT_SCHEMA;
	char schema[128];
	store_note_schema(s->repo, &e->blob, schema, sizeof(schema));
	const char *v = schema + plen;
	return !strncmp(schema, prefix, plen) && *v >= '1' && *v <= '9' &&
	       strspn(v, "0123456789") == strlen(v) &&
	       strtoul(v, NULL, 10) > strtoul(own + plen, NULL, 10);
}

/*
 * A fast-forward to theirs would put a note that is no report where ours
 * is one (another clone wrote over it): as in a merge, the side that is a
 * report is kept, with a warning naming the commit. A later memguard's
 * report (a schema this one does not read) is theirs, not garbage: taken.
 * The kept notes go into theirs; *kept counts them.
 */
static int keep_reports(store *s, const notes *ours, notes *theirs, size_t *kept, mg_err *err)
{
	*kept = 0;
	for (size_t i = 0; i < ours->n; i++) {
		const note_entry *o = &ours->v[i], *t = notes_find(theirs, &o->target);
		if (!t || git_oid_equal(&o->blob, &t->blob))
			continue;
		mg_err why;
		int rt = is_report(s, t, &why);
		if (rt < 0) {
			*err = why;
			return rt;
		}
		if (rt || memguard_schema(s, t))
			continue;
		int ro = is_report(s, o, err);
		if (ro < 0)
			return ro;
		if (!ro)
			continue; /* neither is one: theirs, the newer */
		warn_kept(&why, &o->target);
		notes_set(theirs, &o->target, &o->blob);
		(*kept)++;
	}
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
		size_t kept;
		if ((rc = notes_load_commit(&theirs, s->repo, theirs_id, err)) < 0 ||
		    (rc = keep_reports(s, &ours, &theirs, &kept, err)) < 0)
			goto out;
		if (!kept) {
			rc = move_ref(s, &ours, theirs_id, err);
			snprintf(what, whatsize, "%s fast-forwarded to %s", s->ref, other);
			goto out;
		}
		/* theirs, but for the reports kept: a merge commit of both */
		char msg[512];
		snprintf(msg, sizeof(msg),
		         "memguard: notes-merge %s into %s\n\n%zu note%s kept: %s's is not a "
		         "memguard report\n",
		         other, s->ref, kept, kept == 1 ? "" : "s", other);
		git_oid parents[2], commit;
		git_oid_cpy(&parents[0], &ours.commit);
		git_oid_cpy(&parents[1], theirs_id);
		rc = store_commit(&commit, s, &theirs, parents, 2, &ours.commit, msg, err);
		snprintf(what, whatsize,
		         "%s: %s taken, but for %zu note%s that is no report there (ours kept)",
		         s->ref, other, kept, kept == 1 ? "" : "s");
		goto out;
	}
	if ((rc = notes_load_commit(&theirs, s->repo, theirs_id, err)) < 0)
		goto out;
	notes_merge_other(&ours, &theirs);
	for (size_t i = 0; i < theirs.n; i++) {
		const note_entry *t = &theirs.v[i];
		const note_entry *o = notes_find(&ours, &t->target);
		git_oid blob;
		if (!o) {
			notes_set(&ours, &t->target, &t->blob);
			added++;
		} else if (!git_oid_equal(&o->blob, &t->blob)) {
			mg_err merr;
			int mrc = store_merge_blobs(&blob, s->repo, &t->target, &o->blob, &t->blob,
			                            &merr);
			if (mrc == STORE_CORRUPT) {
				warn_kept(&merr, &t->target);
			} else if (mrc < 0) {
				*err = merr;
				rc = mrc;
				goto out;
			}
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
			return ci_cmd_usage(CMD, stdout, MG_EXIT_OK);
		if ((o = ci_opt(CMD, argc, argv, &i, "--ref", &ref))) {
			if (o < 0)
				return -o;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			ci_unknown_option(CMD, argv[i]);
			return ci_cmd_usage(CMD, stderr, MG_EXIT_USAGE);
		} else if (other) {
			return ci_fail(CMD, MG_EXIT_USAGE, "one ref at a time ('%s')", argv[i]);
		} else {
			other = argv[i];
		}
	}
	if (!other) {
		ci_fail(CMD, MG_EXIT_USAGE, "which ref? (OTHER_REF)");
		return ci_cmd_usage(CMD, stderr, MG_EXIT_USAGE);
	}
	if ((rc = store_open(&s, ref, &err)) < 0)
		return ci_fail(CMD, rc == MG_EINVAL ? MG_EXIT_USAGE : MG_EXIT_INFRA, "%s", err.msg);
	rc = resolve_other(&theirs, &s, other, &err);
	if (rc == 0)
		rc = check_notes_commit(&s, &theirs, other, &err);
	if (rc == MG_EINVAL) {
		rc = ci_fail(CMD, MG_EXIT_USAGE, "%s", err.msg);
		goto out;
	}
	if (rc == MG_ENOTFOUND) {
		fprintf(stderr, "memguard " CMD ": %s does not exist: nothing to merge\n", other);
		rc = MG_EXIT_OK;
		goto out;
	}
	if (rc < 0) {
		rc = ci_fail(CMD, MG_EXIT_INFRA, "%s", err.msg);
		goto out;
	}
	/* A lost race or a busy ref lock (parallel jobs) retries as note does:
	 * store_backoff's bounded, jittered delays, re-reading each time. */
	store_backoff b;
	store_backoff_init(&b);
	do {
		rc = merge_once(&s, &theirs, other, what, sizeof(what), &err);
		if (rc == STORE_ERACE || rc == STORE_ELOCKED)
			continue;
		if (rc < 0) {
			rc = ci_fail(CMD, MG_EXIT_INFRA, "%s", err.msg);
			goto out;
		}
		printf("%s\n", what);
		rc = MG_EXIT_OK;
		goto out;
	} while (store_backoff_wait(&b));
	rc = store_backoff_fail(CMD, s.ref, rc, &b);
out:
	store_close(&s);
	return rc;
}

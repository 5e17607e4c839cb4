/*
 * store.c - the memguard notes ref through libgit2: open the repository,
 * read all notes of a ref in one pass, parse a note as a report, write notes
 * trees and commits, and the order-independent keyed merge of two notes.
 * Never shells out to git, never writes a ref without compare-and-swap.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "ci_int.h"

int store_git_fail(mg_err *err, const char *what)
{
	const git_error *e = git_error_last();
	return mg_err_set(err, MG_ERROR, "%s: %s", what,
	                  e && e->message ? e->message : "libgit2 error");
}

void store_ref_name(char *buf, size_t size, const char *name)
{
	if (strncmp(name, "refs/", 5) == 0)
		snprintf(buf, size, "%s", name);
	else
		snprintf(buf, size, "refs/notes/%s", name);
}

int store_open(store *s, const char *ref_opt, mg_err *err)
{
	const char *env = getenv("MEMGUARD_NOTES_REF");
	const char *ref = ref_opt ? ref_opt : env && *env ? env : CI_NOTES_REF;
	memset(s, 0, sizeof(*s));
	store_ref_name(s->ref, sizeof(s->ref), ref);
	if (!git_reference_is_valid_name(s->ref))
		return mg_err_set(err, MG_EINVAL, "'%s' is not a valid ref name", ref);
	int rc = git_repository_open_ext(&s->repo, ".", 0, NULL);
	if (rc == GIT_ENOTFOUND)
		return mg_err_set(err, MG_ENOTFOUND, "not a git repository (or any parent)");
	if (rc < 0)
		return store_git_fail(err, "cannot open the repository");
	return 0;
}

void store_close(store *s)
{
	git_repository_free(s->repo);
	s->repo = NULL;
}

const char *store_short(char buf[16], const git_oid *oid)
{
	git_oid_tostr(buf, 8, oid);
	return buf;
}

int store_resolve(git_oid *out, store *s, const char *rev, mg_err *err)
{
	git_object *obj = NULL, *commit = NULL;
	int rc = git_revparse_single(&obj, s->repo, rev);
	if (rc == GIT_ENOTFOUND || rc == GIT_EAMBIGUOUS || rc == GIT_EINVALIDSPEC)
		return mg_err_set(err, MG_ENOTFOUND, "unknown revision '%s'", rev);
	if (rc < 0)
		return store_git_fail(err, rev);
	rc = git_object_peel(&commit, obj, GIT_OBJECT_COMMIT);
	if (rc < 0) {
		git_object_free(obj);
		return mg_err_set(err, MG_ENOTFOUND, "'%s' is not a commit", rev);
	}
	git_oid_cpy(out, git_object_id(commit));
	git_object_free(commit);
	git_object_free(obj);
	return 0;
}

/* ---- the set of notes of one notes commit ---- */

static int entry_cmp(const void *a, const void *b)
{
	return git_oid_cmp(&((const note_entry *)a)->target, &((const note_entry *)b)->target);
}

static void notes_push(notes *n, const git_oid *target, const git_oid *blob)
{
	if (n->n == n->cap) {
		n->cap = n->cap ? n->cap * 2 : 64;
		n->v = realloc(n->v, n->cap * sizeof(*n->v));
		if (!n->v)
			abort();
	}
	git_oid_cpy(&n->v[n->n].target, target);
	git_oid_cpy(&n->v[n->n].blob, blob);
	n->n++;
}

int notes_load_commit(notes *out, git_repository *repo, const git_oid *commit_id, mg_err *err)
{
	git_commit *commit = NULL;
	git_note_iterator *it = NULL;
	git_oid blob, target;
	int rc;
	memset(out, 0, sizeof(*out));
	if (git_commit_lookup(&commit, repo, commit_id) < 0) {
		rc = store_git_fail(err, "cannot read the notes commit");
		goto out;
	}
	git_oid_cpy(&out->commit, commit_id);
	out->exists = 1;
	rc = git_note_commit_iterator_new(&it, commit);
	if (rc == GIT_ENOTFOUND) { /* an empty notes tree */
		rc = 0;
		goto out;
	}
	if (rc < 0) {
		rc = store_git_fail(err, "cannot read the notes tree");
		goto out;
	}
	while ((rc = git_note_next(&blob, &target, it)) == 0)
		notes_push(out, &target, &blob);
	if (rc != GIT_ITEROVER) {
		rc = store_git_fail(err, "cannot read the notes tree");
		goto out;
	}
	rc = 0;
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), entry_cmp);
out:
	git_note_iterator_free(it);
	git_commit_free(commit);
	return rc;
}

int notes_load(notes *out, git_repository *repo, const char *ref, mg_err *err)
{
	git_oid id;
	memset(out, 0, sizeof(*out));
	int rc = git_reference_name_to_id(&id, repo, ref);
	if (rc == GIT_ENOTFOUND)
		return 0;
	if (rc < 0)
		return store_git_fail(err, ref);
	return notes_load_commit(out, repo, &id, err);
}

const note_entry *notes_find(const notes *n, const git_oid *target)
{
	note_entry key;
	if (n->n == 0)
		return NULL;
	git_oid_cpy(&key.target, target);
	return bsearch(&key, n->v, n->n, sizeof(*n->v), entry_cmp);
}

void notes_set(notes *n, const git_oid *target, const git_oid *blob)
{
	note_entry *e = (note_entry *)notes_find(n, target);
	if (e) {
		git_oid_cpy(&e->blob, blob);
		return;
	}
	notes_push(n, target, blob);
	qsort(n->v, n->n, sizeof(*n->v), entry_cmp); /* nearly sorted: cheap enough */
}

void notes_free(notes *n)
{
	free(n->v);
	memset(n, 0, sizeof(*n));
}

/* ---- reports in blobs ---- */

static int parse_report(report **out, const char *data, size_t len, const char *what, mg_err *err)
{
	json_error_t jerr;
	mg_err rerr;
	json_t *j = json_loadb(data, len, 0, &jerr);
	if (!j)
		return mg_err_set(err, MG_EINVAL, "%s is not JSON (line %d: %s)", what, jerr.line,
		                  jerr.text);
	int rc = report_from_json(out, j, &rerr);
	json_decref(j);
	if (rc < 0)
		return mg_err_set(err, MG_EINVAL, "%s is not a memguard report: %s", what,
		                  rerr.msg);
	return 0;
}

int store_read(report **out, git_repository *repo, const git_oid *blob_id, const git_oid *target,
               mg_err *err)
{
	git_blob *blob = NULL;
	char sha[16], what[64];
	*out = NULL;
	snprintf(what, sizeof(what), "the memguard note on commit %s", store_short(sha, target));
	if (git_blob_lookup(&blob, repo, blob_id) < 0)
		return store_git_fail(err, what);
	int rc =
	    parse_report(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob), what, err);
	git_blob_free(blob);
	return rc;
}

int store_read_note(report **out, store *s, const notes *n, const git_oid *target, mg_err *err)
{
	char sha[16];
	const note_entry *e = notes_find(n, target);
	*out = NULL;
	if (!e)
		return mg_err_set(err, MG_ENOTFOUND, "no memguard note on commit %s",
		                  store_short(sha, target));
	return store_read(out, s->repo, &e->blob, target, err);
}

int store_write_blob(git_oid *out, git_repository *repo, const report *r, mg_err *err)
{
	json_t *j = report_to_json(r);
	char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
	int rc = 0;
	json_decref(j);
	if (!text)
		return mg_err_set(err, MG_ERROR, "cannot serialise the report");
	/* A trailing newline, as git notes add writes it. */
	size_t len = strlen(text);
	char *buf = malloc(len + 2);
	if (!buf)
		abort();
	memcpy(buf, text, len);
	buf[len] = '\n';
	if (git_blob_create_from_buffer(out, repo, buf, len + 1) < 0)
		rc = store_git_fail(err, "cannot write the note");
	free(buf);
	free(text);
	return rc;
}

static int signature(git_signature **out, git_repository *repo)
{
	if (git_signature_default(out, repo) == 0)
		return 0;
	return git_signature_now(out, "memguard", "memguard@localhost");
}

int store_commit(git_oid *out, store *s, const notes *n, const git_oid *parent_ids, size_t nparents,
                 const git_oid *expect, const char *message, mg_err *err)
{
	git_treebuilder *tb = NULL;
	git_tree *tree = NULL;
	git_signature *sig = NULL;
	git_reference *ref = NULL;
	git_commit *parents[2] = {NULL, NULL};
	git_oid tree_id;
	char name[GIT_OID_HEXSZ + 1];
	int rc = MG_ERROR;

	if (nparents > 2)
		return mg_err_set(err, MG_ERROR, "a notes commit has at most two parents");
	if (git_treebuilder_new(&tb, s->repo, NULL) < 0) {
		store_git_fail(err, "cannot build the notes tree");
		goto out;
	}
	for (size_t i = 0; i < n->n; i++) {
		git_oid_tostr(name, sizeof(name), &n->v[i].target);
		if (git_treebuilder_insert(NULL, tb, name, &n->v[i].blob, GIT_FILEMODE_BLOB) < 0) {
			store_git_fail(err, "cannot build the notes tree");
			goto out;
		}
	}
	if (git_treebuilder_write(&tree_id, tb) < 0 ||
	    git_tree_lookup(&tree, s->repo, &tree_id) < 0) {
		store_git_fail(err, "cannot write the notes tree");
		goto out;
	}
	for (size_t i = 0; i < nparents; i++)
		if (git_commit_lookup(&parents[i], s->repo, &parent_ids[i]) < 0) {
			store_git_fail(err, "cannot read a notes parent commit");
			goto out;
		}
	if (signature(&sig, s->repo) < 0) {
		store_git_fail(err, "cannot make a signature");
		goto out;
	}
	if (git_commit_create(out, s->repo, NULL, sig, sig, NULL, message, tree, nparents,
	                      (const git_commit **)parents) < 0) {
		store_git_fail(err, "cannot write the notes commit");
		goto out;
	}
	int grc =
	    expect ? git_reference_create_matching(&ref, s->repo, s->ref, out, 1, expect,
	                                           "memguard: notes updated")
	           : git_reference_create(&ref, s->repo, s->ref, out, 0, "memguard: notes created");
	if (grc == GIT_EMODIFIED || grc == GIT_EEXISTS) {
		rc = mg_err_set(err, STORE_ERACE, "%s was updated by another writer", s->ref);
		goto out;
	}
	if (grc < 0) {
		store_git_fail(err, s->ref);
		goto out;
	}
	rc = 0;
out:
	git_reference_free(ref);
	git_signature_free(sig);
	git_commit_free(parents[0]);
	git_commit_free(parents[1]);
	git_tree_free(tree);
	git_treebuilder_free(tb);
	return rc;
}

/* ---- canonical form and the keyed merge ---- */

static int shard_cmp(const void *a, const void *b)
{
	const report_shard *x = a, *y = b;
	int c;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if ((c = strcmp(x->arch ? x->arch : "", y->arch ? y->arch : "")) != 0)
		return c;
	if ((c = strcmp(x->suite ? x->suite : "", y->suite ? y->suite : "")) != 0)
		return c;
	if (x->index != y->index)
		return x->index < y->index ? -1 : 1;
	return 0;
}

void store_canonical(report *r, size_t max_suspects)
{
	if (r->nshards)
		qsort(r->shards, r->nshards, sizeof(*r->shards), shard_cmp);
	report_finish(r, max_suspects ? max_suspects : 10); /* 10: as report_merge */
}

void store_strip(report *r, int keep_timeline)
{
	for (size_t i = 0; i < r->nshards; i++) {
		report_shard *s = &r->shards[i];
		for (size_t t = 0; t < s->ntests; t++) {
			free(s->tests[t].output);
			s->tests[t].output = NULL;
		}
		if (!keep_timeline) {
			free(s->timeline);
			s->timeline = NULL;
			s->ntimeline = 0;
		}
	}
}

int store_merge_blobs(git_oid *out, git_repository *repo, const git_oid *target, const git_oid *a,
                      const git_oid *b, mg_err *err)
{
	git_blob *ba = NULL, *bb = NULL;
	report *into = NULL, *from = NULL;
	char sha[16], what[64];
	int rc;

	if (git_oid_equal(a, b)) {
		git_oid_cpy(out, a);
		return 0;
	}
	snprintf(what, sizeof(what), "the memguard note on commit %s", store_short(sha, target));
	if (git_blob_lookup(&ba, repo, a) < 0 || git_blob_lookup(&bb, repo, b) < 0) {
		rc = store_git_fail(err, what);
		goto out;
	}
	/* Order the two sides by content so that merge(a, b) == merge(b, a). */
	size_t la = (size_t)git_blob_rawsize(ba), lb = (size_t)git_blob_rawsize(bb);
	int c = memcmp(git_blob_rawcontent(ba), git_blob_rawcontent(bb), la < lb ? la : lb);
	if (c > 0 || (c == 0 && la > lb)) {
		git_blob *t = ba;
		ba = bb;
		bb = t;
		la = (size_t)git_blob_rawsize(ba);
		lb = (size_t)git_blob_rawsize(bb);
	}
	if ((rc = parse_report(&into, git_blob_rawcontent(ba), la, what, err)) < 0 ||
	    (rc = parse_report(&from, git_blob_rawcontent(bb), lb, what, err)) < 0)
		goto out;
	size_t nsus = into->nsuspects > from->nsuspects ? into->nsuspects : from->nsuspects;
	store_canonical(into, nsus);
	store_canonical(from, nsus);
	if ((rc = report_merge(into, from, err)) < 0)
		goto out;
	store_canonical(into, nsus);
	rc = store_write_blob(out, repo, into, err);
out:
	report_free(into);
	report_free(from);
	git_blob_free(ba);
	git_blob_free(bb);
	return rc;
}

/*
 * store.c - the memguard notes ref through libgit2: open the repository,
 * read all notes of a ref in one pass, parse a note as a report, write notes
 * trees and commits, and the order-independent keyed merge of two notes.
 * Never shells out to git, never writes a ref without compare-and-swap.
 */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ci_int.h"

int store_git_fail(mg_err *err, const char *what)
{
	/* libgit2 may leave an empty message (a lock it could not take): never
	 * end the line with a bare colon. */
	const git_error *e = git_error_last();
	return mg_err_set(err, MG_ERROR, "%s: %s", what,
	                  e && e->message && *e->message ? e->message : "libgit2 error");
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
	/* a shallow clone's note of a commit it does not hold (its notes
	 * fetched whole): named by its full id, the note is still there */
	if (rc == GIT_ENOTFOUND && strlen(rev) == GIT_OID_HEXSZ &&
	    strspn(rev, "0123456789abcdef") == GIT_OID_HEXSZ &&
	    git_repository_is_shallow(s->repo) == 1 && git_oid_fromstr(out, rev) == 0)
		return 0;
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

static void other_push(notes *n, const char *path, const git_oid *id, git_filemode_t mode)
{
	n->other = realloc(n->other, (n->nother + 1) * sizeof(*n->other));
	char *p = strdup(path);
	if (!n->other || !p)
		abort();
	n->other[n->nother].path = p;
	git_oid_cpy(&n->other[n->nother].id, id);
	n->other[n->nother].mode = mode;
	n->nother++;
}

static int is_hex(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') ||
		      (s[i] >= 'A' && s[i] <= 'F')))
			return 0;
	return 1;
}

/*
 * The entries of a notes (sub)tree: hex is the object id so far (the fanout
 * directories above), dir their path. A blob whose hex path makes 40 digits
 * is a note; a directory of 2 hex digits is fanout; anything else is kept
 * as it is (git_note_next skips such entries without saying so, which left
 * its id unwritten).
 */
static int load_tree(notes *out, git_repository *repo, const git_tree *tree, const char *hex,
                     const char *dir, int depth, mg_err *err)
{
	size_t count = git_tree_entrycount(tree), hl = strlen(hex);
	for (size_t i = 0; i < count; i++) {
		const git_tree_entry *te = git_tree_entry_byindex(tree, i);
		const char *name = git_tree_entry_name(te);
		size_t nl = strlen(name);
		git_filemode_t mode = git_tree_entry_filemode(te);
		char path[GIT_OID_HEXSZ * 2 + 256], id[GIT_OID_HEXSZ + 1];
		snprintf(path, sizeof(path), "%s%s%s", dir, *dir ? "/" : "", name);
		if (hl + nl <= GIT_OID_HEXSZ && is_hex(name, nl)) {
			memcpy(id, hex, hl);
			memcpy(id + hl, name, nl + 1);
			git_oid target;
			if (hl + nl == GIT_OID_HEXSZ && mode != GIT_FILEMODE_TREE &&
			    git_tree_entry_type(te) == GIT_OBJECT_BLOB &&
			    git_oid_fromstr(&target, id) == 0) {
				notes_push(out, &target, git_tree_entry_id(te));
				continue;
			}
			if (nl == 2 && mode == GIT_FILEMODE_TREE && depth < GIT_OID_HEXSZ / 2) {
				git_tree *sub = NULL;
				if (git_tree_lookup(&sub, repo, git_tree_entry_id(te)) < 0)
					return store_git_fail(err, "cannot read the notes tree");
				int rc = load_tree(out, repo, sub, id, path, depth + 1, err);
				git_tree_free(sub);
				if (rc < 0)
					return rc;
				continue;
			}
		}
		other_push(out, path, git_tree_entry_id(te), mode);
	}
	return 0;
}

int notes_load_commit(notes *out, git_repository *repo, const git_oid *commit_id, mg_err *err)
{
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	int rc;
	memset(out, 0, sizeof(*out));
	if (git_commit_lookup(&commit, repo, commit_id) < 0) {
		rc = store_git_fail(err, "cannot read the notes commit");
		goto out;
	}
	git_oid_cpy(&out->commit, commit_id);
	out->exists = 1;
	if (git_commit_tree(&tree, commit) < 0) {
		rc = store_git_fail(err, "cannot read the notes tree");
		goto out;
	}
	if ((rc = load_tree(out, repo, tree, "", "", 0, err)) < 0)
		goto out;
	if (out->n) {
		/* The same commit noted twice (flat and fanout): keep one, as git does. */
		qsort(out->v, out->n, sizeof(*out->v), entry_cmp);
		size_t k = 0;
		for (size_t i = 0; i < out->n; i++)
			if (!k || !git_oid_equal(&out->v[k - 1].target, &out->v[i].target))
				out->v[k++] = out->v[i];
		out->n = k;
	}
out:
	git_tree_free(tree);
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

void notes_merge_other(notes *into, const notes *from)
{
	for (size_t i = 0; i < from->nother; i++) {
		const notes_other *f = &from->other[i];
		size_t j = 0;
		while (j < into->nother && strcmp(into->other[j].path, f->path) != 0)
			j++;
		if (j == into->nother)
			other_push(into, f->path, &f->id, f->mode);
		else if (git_oid_cmp(&f->id, &into->other[j].id) < 0) {
			git_oid_cpy(&into->other[j].id, &f->id);
			into->other[j].mode = f->mode;
		}
	}
}

void notes_free(notes *n)
{
	for (size_t i = 0; i < n->nother; i++)
		free(n->other[i].path);
	free(n->other);
	free(n->v);
	memset(n, 0, sizeof(*n));
}

/* ---- reports in blobs ---- */

/* In pieces, straight from the blob: no tree of the whole note. With
 * tests, through report_parse_tests (each test given to fn, none kept). */
static int parse_report(report **out, const char *data, size_t len, const char *what, int tests,
                        report_test_fn fn, void *ctx, mg_err *err)
{
	mg_err rerr;
	int rc = tests ? report_parse_tests(out, data, len, fn, ctx, &rerr)
	               : report_parse(out, data, len, &rerr);
	if (rc < 0)
		return mg_err_set(err, MG_EINVAL, "%s is not a memguard report: %s", what,
		                  rerr.msg);
	return 0;
}

static int read_blob(report **out, git_repository *repo, const git_oid *blob_id,
                     const git_oid *target, int tests, report_test_fn fn, void *ctx, mg_err *err)
{
	git_blob *blob = NULL;
	char sha[16], what[64];
	*out = NULL;
	snprintf(what, sizeof(what), "the memguard note on commit %s", store_short(sha, target));
	if (git_blob_lookup(&blob, repo, blob_id) < 0)
		return store_git_fail(err, what);
	int rc = parse_report(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob), what,
	                      tests, fn, ctx, err);
	git_blob_free(blob);
	return rc;
}

void store_note_schema(git_repository *repo, const git_oid *blob_id, char *buf, size_t size)
{
	git_blob *blob = NULL;
	json_t *j = NULL;
	if (git_blob_lookup(&blob, repo, blob_id) == 0)
		j = json_loadb(git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob), 0, NULL);
	const char *schema = json_string_value(json_object_get(j, "schema"));
	snprintf(buf, size, "%s", schema ? schema : "");
	json_decref(j);
	git_blob_free(blob);
}

int store_read(report **out, git_repository *repo, const git_oid *blob_id, const git_oid *target,
               mg_err *err)
{
	return read_blob(out, repo, blob_id, target, 0, NULL, NULL, err);
}

typedef struct replaced {
	const report *heads, *from;
} replaced;

static int keep_none(size_t shard, void *ctx)
{
	(void)shard;
	(void)ctx;
	return 0;
}

static int keep_unreplaced(size_t shard, void *ctx)
{
	const replaced *rp = ctx;
	return shard >= rp->heads->nshards || !report_merge_replaces(rp->heads, rp->from, shard);
}

int store_read_merging(report **out, git_repository *repo, const git_oid *blob_id,
                       const git_oid *target, const report *from, mg_err *err)
{
	git_blob *blob = NULL;
	report *heads = NULL;
	char sha[16], what[64];
	*out = NULL;
	snprintf(what, sizeof(what), "the memguard note on commit %s", store_short(sha, target));
	if (git_blob_lookup(&blob, repo, blob_id) < 0)
		return store_git_fail(err, what);
	const char *data = git_blob_rawcontent(blob);
	size_t len = (size_t)git_blob_rawsize(blob);
	mg_err rerr;
	/* first its shards without tests, to learn which the merge replaces;
	 * then the tests of the others only */
	int rc = report_parse_some(&heads, data, len, keep_none, NULL, &rerr);
	if (rc == 0) {
		replaced rp = {heads, from};
		rc = report_parse_some(out, data, len, keep_unreplaced, &rp, &rerr);
	}
	if (rc < 0)
		rc = mg_err_set(err, MG_EINVAL, "%s is not a memguard report: %s", what, rerr.msg);
	report_free(heads);
	git_blob_free(blob);
	return rc;
}

int store_read_tests(report **out, git_repository *repo, const git_oid *blob_id,
                     const git_oid *target, report_test_fn fn, void *ctx, mg_err *err)
{
	return read_blob(out, repo, blob_id, target, 1, fn, ctx, err);
}

static const note_entry *note_of(const notes *n, const git_oid *target, mg_err *err)
{
	char sha[16];
	const note_entry *e = notes_find(n, target);
	if (!e)
		mg_err_set(err, MG_ENOTFOUND, "no memguard note on commit %s",
		           store_short(sha, target));
	return e;
}

int store_read_note(report **out, store *s, const notes *n, const git_oid *target, mg_err *err)
{
	const note_entry *e = note_of(n, target, err);
	*out = NULL;
	return e ? read_blob(out, s->repo, &e->blob, target, 0, NULL, NULL, err) : MG_ENOTFOUND;
}

int store_read_note_tests(report **out, store *s, const notes *n, const git_oid *target,
                          report_test_fn fn, void *ctx, mg_err *err)
{
	const note_entry *e = note_of(n, target, err);
	*out = NULL;
	return e ? read_blob(out, s->repo, &e->blob, target, 1, fn, ctx, err) : MG_ENOTFOUND;
}

/* fopencookie's write: into libgit2's blob stream. */
static ssize_t blob_stream_write(void *cookie, const char *buf, size_t size)
{
	git_writestream *w = cookie;
	return w->write(w, buf, size) < 0 ? -1 : (ssize_t)size;
}

int store_write_blob(git_oid *out, git_repository *repo, const report *r, mg_err *err)
{
	/* Written in pieces (report_write) through stdio into libgit2's blob
	 * stream: the note's text is never whole in memory. It ends in a
	 * newline, as git notes add writes it. */
	git_writestream *w = NULL;
	if (git_blob_create_from_stream(&w, repo, NULL) < 0)
		return store_git_fail(err, "cannot write the note");
	cookie_io_functions_t io = {.write = blob_stream_write};
	FILE *f = fopencookie(w, "w", io);
	if (!f) {
		w->free(w);
		return mg_err_set(err, MG_ERROR, "cannot write the note: %s", strerror(errno));
	}
	int bad = report_write(r, f) != 0;
	bad |= fclose(f) != 0;
	if (bad) {
		w->free(w);
		return mg_err_set(err, MG_ERROR, "cannot write the note: serialising failed");
	}
	if (git_blob_create_from_stream_commit(out, w) < 0) /* frees w */
		return store_git_fail(err, "cannot write the note");
	return 0;
}

static int signature(git_signature **out, git_repository *repo)
{
	if (git_signature_default(out, repo) == 0)
		return 0;
	return git_signature_now(out, "memguard", "memguard@localhost");
}

/*
 * The index in n->other of a non-note inside the deepest fanout directory
 * whose digits start hex (the note's 40 digits), or -1.
 */
static int fanout_dir(const notes *n, const char *hex)
{
	int best = -1;
	size_t best_len = 0;
	for (size_t i = 0; i < n->nother; i++) {
		const char *p = n->other[i].path, *slash = strrchr(p, '/');
		size_t h = 0, ok = slash != NULL;
		for (const char *c = p; ok && c < slash; c++)
			if (*c != '/')
				ok = hex[h++] == *c;
		if (ok && h > best_len) {
			best = (int)i;
			best_len = h;
		}
	}
	return best;
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
	size_t nested = 0;
	for (size_t i = 0; i < n->n; i++) {
		git_oid_tostr(name, sizeof(name), &n->v[i].target);
		if (fanout_dir(n, name) >= 0) {
			nested++;
			continue;
		}
		if (git_treebuilder_insert(NULL, tb, name, &n->v[i].blob, GIT_FILEMODE_BLOB) < 0) {
			store_git_fail(err, "cannot build the notes tree");
			goto out;
		}
	}
	for (size_t i = 0; i < n->nother; i++) {
		const notes_other *o = &n->other[i];
		if (strchr(o->path, '/')) {
			nested++;
			continue;
		}
		if (git_treebuilder_insert(NULL, tb, o->path, &o->id, o->mode) < 0) {
			store_git_fail(err, "cannot build the notes tree");
			goto out;
		}
	}
	if (git_treebuilder_write(&tree_id, tb) < 0 ||
	    git_tree_lookup(&tree, s->repo, &tree_id) < 0) {
		store_git_fail(err, "cannot write the notes tree");
		goto out;
	}
	if (nested) { /* non-notes inside fanout directories: at their paths */
		git_tree_update *up = calloc(nested, sizeof(*up));
		char(*paths)[2 * GIT_OID_HEXSZ] = calloc(n->n ? n->n : 1, sizeof(*paths));
		size_t k = 0;
		if (!up || !paths)
			abort();
		/* A note that a fanout directory would hide from libgit2 (it looks only
		 * there once the directory exists) goes in it, as git would put it. */
		for (size_t i = 0; i < n->n; i++) {
			git_oid_tostr(name, sizeof(name), &n->v[i].target);
			int d = fanout_dir(n, name);
			if (d < 0)
				continue;
			const char *dir = n->other[d].path;
			size_t dl = (size_t)(strrchr(dir, '/') - dir), hl = 0;
			for (size_t c = 0; c < dl; c++)
				hl += dir[c] != '/';
			snprintf(paths[i], sizeof(paths[i]), "%.*s/%s", (int)dl, dir, name + hl);
			up[k].action = GIT_TREE_UPDATE_UPSERT;
			git_oid_cpy(&up[k].id, &n->v[i].blob);
			up[k].filemode = GIT_FILEMODE_BLOB;
			up[k++].path = paths[i];
		}
		for (size_t i = 0; i < n->nother; i++)
			if (strchr(n->other[i].path, '/')) {
				up[k].action = GIT_TREE_UPDATE_UPSERT;
				git_oid_cpy(&up[k].id, &n->other[i].id);
				up[k].filemode = n->other[i].mode;
				up[k++].path = n->other[i].path;
			}
		int urc = git_tree_create_updated(&tree_id, s->repo, tree, k, up);
		free(up);
		free(paths);
		git_tree_free(tree);
		tree = NULL;
		if (urc < 0 || git_tree_lookup(&tree, s->repo, &tree_id) < 0) {
			store_git_fail(err, "cannot write the notes tree");
			goto out;
		}
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
	/* "Must not exist yet" is a zero expected id, compared under the ref's
	 * lock: git_reference_create with force 0 checks before taking the lock,
	 * and two first writers both won (one note lost). */
	git_oid none;
	memset(&none, 0, sizeof(none));
	int grc = git_reference_create_matching(
	    &ref, s->repo, s->ref, out, 1, expect ? expect : &none,
	    expect ? "memguard: notes updated" : "memguard: notes created");
	if (grc == GIT_ELOCKED) {
		rc = mg_err_set(err, STORE_ELOCKED, "%s is locked by another writer", s->ref);
		goto out;
	}
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

/* ---- retrying a ref update ---- */

#define BACKOFF_FIRST_US  1000
#define BACKOFF_MAX_US    100000
#define BACKOFF_BUDGET_US 2000000

void store_backoff_init(store_backoff *b)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	b->seed = ((uint64_t)getpid() << 32) ^ (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec;
	if (!b->seed)
		b->seed = 1;
	b->step_us = BACKOFF_FIRST_US;
	b->slept_us = 0;
	b->tries = 0;
}

int store_backoff_fail(const char *cmd, const char *ref, int last, const store_backoff *b)
{
	if (last == STORE_ELOCKED)
		return ci_fail(cmd, MG_EXIT_INFRA,
		               "the lock of %s was busy: gave up after %d tries", ref, b->tries);
	return ci_fail(cmd, MG_EXIT_INFRA, "%s kept moving: gave up after %d tries", ref, b->tries);
}

int store_backoff_wait(store_backoff *b)
{
	b->tries++;
	if (b->slept_us >= BACKOFF_BUDGET_US)
		return 0;
	b->seed ^= b->seed << 13; /* xorshift64 */
	b->seed ^= b->seed >> 7;
	b->seed ^= b->seed << 17;
	/* Half the step, plus up to the other half at random. */
	long us = b->step_us / 2 + (long)(b->seed % (uint64_t)(b->step_us / 2 + 1));
	if (us > BACKOFF_BUDGET_US - b->slept_us)
		us = BACKOFF_BUDGET_US - b->slept_us;
	struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
	b->slept_us += us;
	if ((b->step_us *= 2) > BACKOFF_MAX_US)
		b->step_us = BACKOFF_MAX_US;
	return 1;
}

/* ---- canonical form and the keyed merge ---- */

static int shard_cmp(const void *a, const void *b)
{
	return report_shard_cmp(a, b);
}

void store_canonical(report *r)
{
	if (r->nshards)
		qsort(r->shards, r->nshards, sizeof(*r->shards), shard_cmp);
	report_finish(r, REPORT_MAX_SUSPECTS);
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
	mg_err ferr;
	git_oid ida, idb;
	git_oid_cpy(&ida, git_blob_id(ba));
	git_oid_cpy(&idb, git_blob_id(bb));
	/* each text is freed once read: never both texts beside both models */
	int ia = parse_report(&into, git_blob_rawcontent(ba), la, what, 0, NULL, NULL, err);
	git_blob_free(ba);
	ba = NULL;
	int ib = parse_report(&from, git_blob_rawcontent(bb), lb, what, 0, NULL, NULL,
	                      ia < 0 ? &ferr : err);
	git_blob_free(bb);
	bb = NULL;
	if (ia < 0 || ib < 0) {
		/* Keep the side that is a report (both corrupt: the first by bytes). */
		git_oid_cpy(out, ia < 0 && ib == 0 ? &idb : &ida);
		rc = STORE_CORRUPT;
		goto out;
	}
	store_canonical(into);
	store_canonical(from);
	if ((rc = report_merge_take(into, from, err)) < 0)
		goto out;
	store_canonical(into);
	rc = store_write_blob(out, repo, into, err);
out:
	report_free(into);
	report_free(from);
	git_blob_free(ba);
	git_blob_free(bb);
	return rc;
}

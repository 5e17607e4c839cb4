/*
 * note.c - "memguard note": attach a report to a commit as a git note,
 * merged by shard key with what other jobs already attached. The ref moves
 * only by compare-and-swap; a lost race or a busy ref lock re-reads and
 * merges again after a backoff. Never replaces a note that is not ours.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ci_int.h"

#define CMD "note"

/* "memguard: note on abc1234: 2 shards added, 1 replaced" and one line per shard. */
static char *message_for(const git_oid *target, const report *old, const report *added)
{
	char sha[16];
	size_t nrepl = 0, cap = 256 + added->nshards * 160, len;
	char *msg = malloc(cap);
	if (!msg)
		abort();
	for (size_t i = 0; i < added->nshards; i++)
		for (size_t j = 0; old && j < old->nshards; j++)
			if (report_shard_cmp(&added->shards[i], &old->shards[j]) == 0) {
				nrepl++;
				break;
			}
	len =
	    (size_t)snprintf(msg, cap, "memguard: note on %s: %zu shard%s added, %zu replaced\n\n",
	                     store_short(sha, target), added->nshards - nrepl,
	                     added->nshards - nrepl == 1 ? "" : "s", nrepl);
	for (size_t i = 0; i < added->nshards && len < cap; i++) {
		const report_shard *s = &added->shards[i];
		int repl = 0;
		for (size_t j = 0; old && j < old->nshards; j++)
			repl |= report_shard_cmp(s, &old->shards[j]) == 0;
		len += (size_t)snprintf(
		    msg + len, cap - len, "%s: node %u %s %s #%u\n", repl ? "replaced" : "added",
		    s->node, s->arch ? s->arch : "?", s->suite ? s->suite : "?", s->index);
	}
	return msg;
}

/* The commit to note: --commit, else the report's own commit if present, else HEAD. */
static int pick_target(git_oid *out, store *s, const char *rev, const report *r, mg_err *err)
{
	if (rev)
		return store_resolve(out, s, rev, err);
	if (r->sha) {
		git_oid id;
		git_commit *c = NULL;
		if (git_oid_fromstr(&id, r->sha) == 0 && git_commit_lookup(&c, s->repo, &id) == 0) {
			git_commit_free(c);
			git_oid_cpy(out, &id);
			return 0;
		}
		fprintf(stderr,
		        "memguard " CMD ": the report's commit %.12s is not in this repository; "
		        "noting HEAD\n",
		        r->sha);
	}
	return store_resolve(out, s, "HEAD", err);
}

/*
 * The error for a note of target that is not a memguard report: it names
 * the note's schema when it is a JSON object with one, else says it is not
 * a memguard report. Always MG_EINVAL.
 */
static int foreign_note(git_repository *repo, const git_oid *blob_id, const git_oid *target,
                        mg_err *err)
{
	char schema[128], sha[16];
	store_note_schema(repo, blob_id, schema, sizeof(schema));
	if (*schema && strcmp(schema, REPORT_SCHEMA) != 0 && strcmp(schema, REPORT_SCHEMA_V1) != 0)
		return mg_err_set(
		    err, MG_EINVAL,
		    "the note on commit %s has schema '%.64s', not '%s': left as it is",
		    store_short(sha, target), schema, REPORT_SCHEMA);
	return mg_err_set(err, MG_EINVAL,
	                  "the note on commit %s is not a memguard report: left as it is",
	                  store_short(sha, target));
}

/*
 * The report being noted. Its blob (written once for all attempts) is the
 * note when there is none, and a note that is that very blob holds exactly
 * it: unchanged, read never. Over another note, the old note is read while
 * r holds the shards' keys only (a report file's tests are dropped once the
 * blob is written), and the tests are read again from the file for the
 * merge, which takes them over: one copy of the new report's tests at a
 * time, never beside the old note's text or a copy of themselves.
 */
typedef struct fresh {
	const char *path;
	int keep_timeline;
	report *r;      /* whole, or without tests (dropped) */
	int dropped;    /* r's tests are to be read again from path */
	struct stat st; /* path when read: it must not change */
	git_oid blob;
} fresh;

static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* The report as it is noted: read, its output dropped (and timelines
 * unless kept), in canonical order. */
static int fresh_read(report **out, const fresh *f, mg_err *err)
{
	int rc = report_load(out, f->path, err);
	if (rc < 0)
		return rc;
	store_strip(*out, f->keep_timeline);
	store_canonical(*out);
	return 0;
}

/* old with f's report merged in: the report read again when its tests were dropped. */
static int merge_fresh(report *old, const fresh *f, mg_err *err)
{
	if (!f->dropped)
		return report_merge(old, f->r, err);
	report *full = NULL;
	struct stat st;
	int rc = fresh_read(&full, f, err);
	if (rc == 0 && (stat(f->path, &st) != 0 || !same_file(&st, &f->st)))
		rc = mg_err_set(err, MG_ERROR, "%s changed while it was being noted", f->path);
	if (rc == 0)
		rc = report_merge_take(old, full, err);
	report_free(full);
	return rc;
}

/* One attempt: read the current note, merge, write, move the ref. A note
 * that becomes no other blob is unchanged. */
static int note_once(store *s, const git_oid *target, const fresh *f, int *unchanged, mg_err *err)
{
	notes n;
	report *old = NULL;
	git_oid blob, commit;
	char *msg = NULL;
	int rc = notes_load(&n, s->repo, s->ref, err);
	if (rc < 0)
		return rc;
	const note_entry *e = notes_find(&n, target);
	if (e && git_oid_equal(&e->blob, &f->blob)) {
		*unchanged = 1;
		goto out;
	}
	if (e &&
	    (rc = store_read_merging(&old, s->repo, &e->blob, target, f->r, err)) == MG_EINVAL) {
		/* Another tool's note, or one written by hand: never replaced. */
		rc = foreign_note(s->repo, &e->blob, target, err);
		goto out;
	} else if (rc < 0) {
		goto out;
	}
	/* the message names old's shards, so it is made before old becomes
	 * the merge (one copy of the old note in memory, not two) */
	msg = message_for(target, old, f->r);
	if (old) {
		if ((rc = merge_fresh(old, f, err)) < 0)
			goto out;
		store_canonical(old);
		rc = store_write_blob(&blob, s->repo, old, err);
	} else {
		git_oid_cpy(&blob, &f->blob);
	}
	if (rc < 0)
		goto out;
	if (e && git_oid_equal(&e->blob, &blob)) {
		*unchanged = 1;
		goto out;
	}
	notes_set(&n, target, &blob);
	rc = store_commit(&commit, s, &n, &n.commit, n.exists ? 1 : 0, n.exists ? &n.commit : NULL,
	                  msg, err);
out:
	free(msg);
	report_free(old);
	notes_free(&n);
	return rc;
}

int note_main(int argc, char **argv)
{
	const char *ref = NULL, *rev = NULL;
	int rc, o;
	fresh f = {0};
	store s = {0};
	mg_err err;
	git_oid target;
	char sha[16];

	for (int i = 1; i < argc; i++) {
		if (ci_is_help(argv[i]))
			return ci_cmd_usage(CMD, stdout, MG_EXIT_OK);
		if ((o = ci_opt(CMD, argc, argv, &i, "--ref", &ref)) ||
		    (o = ci_opt(CMD, argc, argv, &i, "--commit", &rev))) {
			if (o < 0)
				return -o;
		} else if (strcmp(argv[i], "--keep-timeline") == 0) {
			f.keep_timeline = 1;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			ci_unknown_option(CMD, argv[i]);
			return ci_cmd_usage(CMD, stderr, MG_EXIT_USAGE);
		} else if (f.path) {
			return ci_fail(CMD, MG_EXIT_USAGE, "one report at a time ('%s')", argv[i]);
		} else {
			f.path = argv[i];
		}
	}
	if (!f.path) {
		ci_fail(CMD, MG_EXIT_USAGE, "which report? (REPORT.json)");
		return ci_cmd_usage(CMD, stderr, MG_EXIT_USAGE);
	}
	/* a regular file can be read again: its tests need not be held meanwhile */
	int again = stat(f.path, &f.st) == 0 && S_ISREG(f.st.st_mode);
	rc = fresh_read(&f.r, &f, &err);
	if (rc < 0)
		return ci_fail(CMD, report_load_exit(rc), "%s", err.msg);
	if ((rc = store_open(&s, ref, &err)) < 0) {
		rc = ci_fail(CMD, rc == MG_EINVAL ? MG_EXIT_USAGE : MG_EXIT_INFRA, "%s", err.msg);
		goto out;
	}
	if ((rc = pick_target(&target, &s, rev, f.r, &err)) < 0) {
		rc = ci_fail(CMD, rc == MG_ENOTFOUND && rev ? MG_EXIT_USAGE : MG_EXIT_INFRA, "%s",
		             err.msg);
		goto out;
	}
	if ((rc = store_write_blob(&f.blob, s.repo, f.r, &err)) < 0) {
		rc = ci_fail(CMD, MG_EXIT_INFRA, "%s", err.msg);
		goto out;
	}
	if (again) {
		report_drop_tests(f.r);
		f.dropped = 1;
	}
	store_backoff b;
	store_backoff_init(&b);
	do {
		int unchanged = 0;
		rc = note_once(&s, &target, &f, &unchanged, &err);
		if (rc == STORE_ERACE || rc == STORE_ELOCKED)
			continue;
		if (rc < 0) {
			rc = ci_fail(CMD, MG_EXIT_INFRA, "%s", err.msg);
			goto out;
		}
		printf("%s %s on %s (%zu shard%s)\n", unchanged ? "unchanged:" : "noted:", s.ref,
		       store_short(sha, &target), f.r->nshards, f.r->nshards == 1 ? "" : "s");
		rc = MG_EXIT_OK;
		goto out;
	} while (store_backoff_wait(&b));
	rc = store_backoff_fail(CMD, s.ref, rc, &b);
out:
	store_close(&s);
	report_free(f.r);
	return rc;
}

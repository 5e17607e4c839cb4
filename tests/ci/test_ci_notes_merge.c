/*
 * test_ci_notes_merge.c - notes-merge and the notes tree: converging,
 * locks, missing refs, fan-out, entries that are not notes, corrupt notes.
 */
#include "adapters.h"
#include "ci.h"
#include "ci_int.h"
#include "mg_test.h"
#include "test_ci.h"
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <git2.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* notes-merge retries a busy ref lock with note's backoff, then gives up
 * saying so (it failed at once with libgit2's error before). */
void notes_merge_lock_busy(void)
{
	const char *dir = setup();
	const char *rd = path_in(dir, "repo");
	git_repository *repo = mk_repo(rd);
	git_oid c[1];
	commits(repo, 1, c);
	const char *rep = save_report(mk_report(1, "x64", "s", 0, GIB, MIB, 0, 0), dir, "m.json");
	const char *rep2 = save_report(mk_report(2, "x64", "s", 0, GIB, MIB, 0, 0), dir, "n.json");
	CU_ASSERT_EQUAL_FATAL(run_in(rd, "note", rep, NULL)->rc, 0);
	CU_ASSERT_FATAL(sh("git -C %s update-ref refs/notes/old refs/notes/memguard", rd) == 0);
	CU_ASSERT_EQUAL_FATAL(run_in(rd, "note", rep2, NULL)->rc, 0);
	/* the remote is one note ahead: merging it moves the ref, under its lock */
	CU_ASSERT_FATAL(sh("git -C %s update-ref refs/notes/memguard-remote refs/notes/memguard &&"
	                   " git -C %s update-ref refs/notes/memguard refs/notes/old",
	                   rd, rd) == 0);
	write_file(path_in(rd, ".git/refs/notes/memguard.lock"), "");
	run *r = run_in(rd, "notes-merge", "refs/notes/memguard-remote", NULL);
	CU_ASSERT_EQUAL(r->rc, 3);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->err, "was busy: gave up after"));
	git_repository_free(repo);
	cleanup();
}

static int notes_tree(git_repository *repo, git_oid *tree)
{
	git_oid id;
	git_commit *c = NULL;
	if (git_reference_name_to_id(&id, repo, REF) < 0 || git_commit_lookup(&c, repo, &id) < 0)
		return -1;
	git_oid_cpy(tree, git_commit_tree_id(c));
	git_commit_free(c);
	return 0;
}

void notes_merge_converge(void)
{
	const char *dir = setup();
	const char *da = path_in(dir, "a"), *db = path_in(dir, "b");
	git_repository *a = mk_repo(da), *b = NULL;
	git_oid c[3], ta, tb;
	commits(a, 3, c);
	/* git clone, not git_clone: libgit2 1.5's remotes leak pcre2 data (sanitizer build). */
	CU_ASSERT_FATAL(sh("git clone -q %s %s", da, db) == 0);
	CU_ASSERT_FATAL(git_repository_open(&b, db) == 0);
	/* A is node 1 on c2 and c1; B is node 2 on c2 and c0. */
	const char *a1 =
	    save_report(mk_report(1, "x64", "s", 0, 2 * GIB, MIB, 1, 0), dir, "a1.json");
	const char *b1 =
	    save_report(mk_report(2, "x64", "s", 0, 3 * GIB, MIB, 2, 0), dir, "b1.json");
	CU_ASSERT_EQUAL(run_in(da, "note", a1, NULL)->rc, 0);
	CU_ASSERT_EQUAL(run_in(da, "note", "--commit", "HEAD~1", a1, NULL)->rc, 0);
	CU_ASSERT_EQUAL(run_in(db, "note", b1, NULL)->rc, 0);
	CU_ASSERT_EQUAL(run_in(db, "note", "--commit", "HEAD~2", b1, NULL)->rc, 0);
	/* Each fetches the other's notes as they were, then merges. */
	CU_ASSERT_EQUAL_FATAL(fetch_notes(da, db, "refs/notes/memguard-remote"), 0);
	CU_ASSERT_EQUAL_FATAL(fetch_notes(db, da, "refs/notes/memguard-remote"), 0);
	run *r = run_in(da, "notes-merge", "refs/notes/memguard-remote", NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_EQUAL(run_in(db, "notes-merge", "memguard-remote", NULL)->rc, 0);
	CU_ASSERT_FATAL(notes_tree(a, &ta) == 0 && notes_tree(b, &tb) == 0);
	CU_ASSERT(git_oid_equal(&ta, &tb)); /* converged, byte for byte */
	report *n = read_note(a, REF, &c[2]);
	CU_ASSERT_PTR_NOT_NULL_FATAL(n);
	CU_ASSERT_EQUAL(n->nshards, 2);
	CU_ASSERT(note_has_shard(n, 1, "x64", 2 * GIB) && note_has_shard(n, 2, "x64", 3 * GIB));
	report_free(n);
	n = read_note(a, REF, &c[0]);
	CU_ASSERT(n && n->nshards == 1 && note_has_shard(n, 2, "x64", 0));
	report_free(n);
	n = read_note(b, REF, &c[1]);
	CU_ASSERT(n && n->nshards == 1 && note_has_shard(n, 1, "x64", 0));
	report_free(n);
	/* The merge commit has both parents; git reads the merged notes. */
	git_oid head;
	git_commit *mc = NULL;
	CU_ASSERT_FATAL(git_reference_name_to_id(&head, a, REF) == 0 &&
	                git_commit_lookup(&mc, a, &head) == 0);
	CU_ASSERT_EQUAL(git_commit_parentcount(mc), 2);
	git_commit_free(mc);
	CU_ASSERT_EQUAL(sh("git --git-dir=%s/.git notes --ref=memguard show HEAD~2 >/dev/null", da),
	                0);
	/* A fetches B's merge: same content, no new merge needed beyond that. */
	CU_ASSERT_EQUAL_FATAL(fetch_notes(da, db, "refs/notes/memguard-remote"), 0);
	CU_ASSERT_EQUAL(run_in(da, "notes-merge", "refs/notes/memguard-remote", NULL)->rc, 0);
	CU_ASSERT_FATAL(notes_tree(a, &ta) == 0);
	CU_ASSERT(git_oid_equal(&ta, &tb));
	/* B fast-forwards to A's latest. */
	CU_ASSERT_EQUAL_FATAL(fetch_notes(db, da, "refs/notes/memguard-remote"), 0);
	r = run_in(db, "notes-merge", "refs/notes/memguard-remote", NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "fast-forward"));
	git_repository_free(a);
	git_repository_free(b);
	cleanup();
}

void notes_merge_missing_ref(void)
{
	const char *dir = setup();
	const char *rd = path_in(dir, "repo");
	git_repository *repo = mk_repo(rd);
	git_oid c[1];
	commits(repo, 1, c);
	run *r = run_in(rd, "notes-merge", "refs/notes/memguard-remote", NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->err, "nothing to merge"));
	/* Into a repository without notes: the ref is created from the other. */
	const char *rep = save_report(mk_report(1, "x64", "s", 0, GIB, MIB, 0, 0), dir, "m.json");
	CU_ASSERT_EQUAL(run_in(rd, "note", "--ref", "refs/notes/other", rep, NULL)->rc, 0);
	CU_ASSERT_EQUAL(run_in(rd, "notes-merge", "refs/notes/other", NULL)->rc, 0);
	report *n = read_note(repo, REF, &c[0]);
	CU_ASSERT_PTR_NOT_NULL(n);
	report_free(n);
	CU_ASSERT_EQUAL(run_in(rd, "notes-merge", NULL)->rc, 2);
	git_repository_free(repo);
	cleanup();
}

/* A fanned-out notes tree ("ab/cdef..."), as git writes it for many notes:
 * read by log and show, and kept whole when note adds to it. */
void notes_fanout(void)
{
	const char *dir = setup();
	const char *rd = path_in(dir, "repo");
	git_repository *repo = mk_repo(rd);
	git_oid c[3], blob, tree_id, sub_id, commit_id;
	git_treebuilder *top = NULL;
	git_signature *sig = NULL;
	git_tree *tree = NULL;
	char hex[41];
	commits(repo, 3, c);
	const char *rep = save_report(mk_report(1, "x64", "fan", 0, GIB, MIB, 0, 0), dir, "f.json");
	/* The blob, from memguard's own note on a scratch ref. */
	CU_ASSERT_EQUAL_FATAL(
	    run_in(rd, "note", "--ref", "scratch", "--commit", "HEAD", rep, NULL)->rc, 0);
	git_note *note = NULL;
	CU_ASSERT_FATAL(git_note_read(&note, repo, "refs/notes/scratch", &c[2]) == 0);
	git_oid_cpy(&blob, git_note_id(note));
	git_note_free(note);
	CU_ASSERT_FATAL(git_treebuilder_new(&top, repo, NULL) == 0);
	for (int i = 0; i < 2; i++) { /* c[0], c[1] under fanout; c[2] has no note */
		git_treebuilder *sub = NULL;
		git_oid_tostr(hex, sizeof(hex), &c[i]);
		CU_ASSERT_FATAL(git_treebuilder_new(&sub, repo, NULL) == 0);
		CU_ASSERT_FATAL(
		    git_treebuilder_insert(NULL, sub, hex + 2, &blob, GIT_FILEMODE_BLOB) == 0);
		CU_ASSERT_FATAL(git_treebuilder_write(&sub_id, sub) == 0);
		git_treebuilder_free(sub);
		hex[2] = '\0';
		const git_tree_entry *existing = git_treebuilder_get(top, hex);
		CU_ASSERT_FATAL(existing == NULL); /* distinct first bytes (else rerun) */
		CU_ASSERT_FATAL(
		    git_treebuilder_insert(NULL, top, hex, &sub_id, GIT_FILEMODE_TREE) == 0);
	}
	CU_ASSERT_FATAL(git_treebuilder_write(&tree_id, top) == 0);
	git_treebuilder_free(top);
	CU_ASSERT_FATAL(git_tree_lookup(&tree, repo, &tree_id) == 0);
	git_signature_now(&sig, "Test", "test@example.com");
	CU_ASSERT_FATAL(git_commit_create(&commit_id, repo, REF, sig, sig, NULL, "fanout notes",
	                                  tree, 0, NULL) == 0);
	git_signature_free(sig);
	git_tree_free(tree);

	run *r = run_in(rd, "log", NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_EQUAL(count_lines_with(r->out, "  VA "), 2);
	CU_ASSERT_EQUAL(run_in(rd, "show", "HEAD~2", NULL)->rc, 0);
	CU_ASSERT_EQUAL(run_in(rd, "note", "--commit", "HEAD", rep, NULL)->rc, 0);
	for (int i = 0; i < 3; i++) {
		report *n = read_note(repo, REF, &c[i]);
		CU_ASSERT_PTR_NOT_NULL(n);
		report_free(n);
	}
	CU_ASSERT_EQUAL(
	    sh("git --git-dir=%s/.git notes --ref=memguard list | wc -l | grep -qx 3", rd), 0);
	git_repository_free(repo);
	cleanup();
}

/* Adds blob content at path ("README" or "ab/README") to the notes tree of
 * REF, as a hand edit or another tool would: git keeps such entries. */
static void notes_add_file(git_repository *repo, const char *path, const char *content)
{
	git_oid head, blob, tree_id, commit_id;
	git_commit *parent = NULL;
	git_tree *tree = NULL, *nt = NULL;
	git_signature *sig = NULL;
	git_tree_update up;
	CU_ASSERT_FATAL(git_reference_name_to_id(&head, repo, REF) == 0);
	CU_ASSERT_FATAL(git_commit_lookup(&parent, repo, &head) == 0);
	CU_ASSERT_FATAL(git_commit_tree(&tree, parent) == 0);
	CU_ASSERT_FATAL(git_blob_create_from_buffer(&blob, repo, content, strlen(content)) == 0);
	memset(&up, 0, sizeof(up));
	up.action = GIT_TREE_UPDATE_UPSERT;
	git_oid_cpy(&up.id, &blob);
	up.filemode = GIT_FILEMODE_BLOB;
	up.path = path;
	CU_ASSERT_FATAL(git_tree_create_updated(&tree_id, repo, tree, 1, &up) == 0);
	CU_ASSERT_FATAL(git_tree_lookup(&nt, repo, &tree_id) == 0);
	git_signature_now(&sig, "Test", "test@example.com");
	CU_ASSERT_FATAL(git_commit_create(&commit_id, repo, REF, sig, sig, NULL, "a file", nt, 1,
	                                  (const git_commit **)&parent) == 0);
	git_signature_free(sig);
	git_tree_free(nt);
	git_tree_free(tree);
	git_commit_free(parent);
}

/* 1 when the notes tree of REF has content at path. */
static int notes_has_file(git_repository *repo, const char *path, const char *content)
{
	git_oid head;
	git_commit *c = NULL;
	git_tree *t = NULL;
	git_tree_entry *e = NULL;
	git_blob *b = NULL;
	int ok = git_reference_name_to_id(&head, repo, REF) == 0 &&
	         git_commit_lookup(&c, repo, &head) == 0 && git_commit_tree(&t, c) == 0 &&
	         git_tree_entry_bypath(&e, t, path) == 0 &&
	         git_blob_lookup(&b, repo, git_tree_entry_id(e)) == 0 &&
	         (size_t)git_blob_rawsize(b) == strlen(content) &&
	         memcmp(git_blob_rawcontent(b), content, strlen(content)) == 0;
	git_blob_free(b);
	git_tree_entry_free(e);
	git_tree_free(t);
	git_commit_free(c);
	return ok;
}

/* A README in the notes tree (top level and inside a fanout directory) is
 * not a note: it neither clobbers a note nor makes one for a garbage commit,
 * and every notes tree memguard writes keeps it. */
void notes_non_note_entries(void)
{
	const char *dir = setup();
	const char *rd = path_in(dir, "repo");
	git_repository *repo = mk_repo(rd);
	git_oid c[3];
	char hex[41], nested[64];
	commits(repo, 3, c);
	const char *r1 = save_report(mk_report(1, "x64", "s", 0, GIB, MIB, 0, 0), dir, "1.json");
	const char *r2 =
	    save_report(mk_report(2, "x64", "s", 0, 2 * GIB, MIB, 0, 0), dir, "2.json");
	CU_ASSERT_EQUAL(run_in(rd, "note", "--commit", "HEAD~2", r1, NULL)->rc, 0);
	notes_add_file(repo, "README", "notes of memguard\n");
	sha_of(hex, &c[1]);
	snprintf(nested, sizeof(nested), "%.2s/README", hex);
	notes_add_file(repo, nested, "nested\n");
	/* A note after the README: the entry the iterator used to reuse. */
	CU_ASSERT_EQUAL(run_in(rd, "note", "--commit", "HEAD", r1, NULL)->rc, 0);
	CU_ASSERT_EQUAL(run_in(rd, "note", "--commit", "HEAD~1", r2, NULL)->rc, 0);
	CU_ASSERT(notes_has_file(repo, "README", "notes of memguard\n"));
	CU_ASSERT(notes_has_file(repo, nested, "nested\n"));
	for (int i = 0; i < 3; i++) {
		report *n = read_note(repo, REF, &c[i]);
		CU_ASSERT(n && n->nshards == 1 &&
		          note_has_shard(n, i == 1 ? 2 : 1, "x64", i == 1 ? 2 * GIB : GIB));
		report_free(n);
	}
	run *r = run_in(rd, "log", NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_EQUAL(count_lines_with(r->out, "  VA "), 3);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "3 commits with a note"));
	/* git sees three notes, on the three commits, and the files as they were. */
	CU_ASSERT_EQUAL(
	    sh("git --git-dir=%s/.git notes --ref=memguard list | wc -l | grep -qx 3", rd), 0);
	notes n;
	mg_err err;
	CU_ASSERT_EQUAL_FATAL(notes_load(&n, repo, REF, &err), 0);
	CU_ASSERT_EQUAL(n.n, 3);
	CU_ASSERT_EQUAL(n.nother, 2);
	notes_free(&n);
	git_repository_free(repo);
	cleanup();
}

/* notes-merge takes only a notes ref: a branch or a revision would move the
 * notes ref onto the code's history. */
void notes_merge_rejects_code(void)
{
	const char *dir = setup();
	const char *rd = path_in(dir, "repo");
	git_repository *repo = mk_repo(rd);
	git_oid c[2], before, after;
	commits(repo, 2, c);
	const char *rep = save_report(mk_report(1, "x64", "s", 0, GIB, MIB, 0, 0), dir, "m.json");
	CU_ASSERT_EQUAL(run_in(rd, "note", rep, NULL)->rc, 0);
	CU_ASSERT_FATAL(git_reference_name_to_id(&before, repo, REF) == 0);
	static const char *const bad[] = {"refs/heads/main", "HEAD", "HEAD~1", "main",
	                                  "refs/tags/none"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		run *r = run_in(rd, "notes-merge", bad[i], NULL);
		CU_ASSERT_EQUAL(r->rc, 2);
		CU_ASSERT_PTR_NOT_NULL(strstr(r->err, bad[i]));
	}
	/* A name that is neither a notes ref nor a revision: nothing to merge yet. */
	run *r = run_in(rd, "notes-merge", "nosuch", NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->err, "nothing to merge"));
	/* A ref under refs/notes/ that points at code. */
	git_reference *ref = NULL;
	CU_ASSERT_FATAL(git_reference_create(&ref, repo, "refs/notes/code", &c[1], 0, "test") == 0);
	git_reference_free(ref);
	r = run_in(rd, "notes-merge", "refs/notes/code", NULL);
	CU_ASSERT_EQUAL(r->rc, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->err, "refs/notes/code"));
	CU_ASSERT_FATAL(git_reference_name_to_id(&after, repo, REF) == 0);
	CU_ASSERT(git_oid_equal(&before, &after));
	git_repository_free(repo);
	cleanup();
}

/* The other clone wrote over a report with something that is none, after
 * it had ours (its notes descend from ours): a fast-forward would have put
 * it in place without a word (before: exit 0, no warning, the note garbage).
 * As in a merge, the report is kept with a warning naming the commit; a
 * later memguard's report it wrote over another is taken (not garbage);
 * its own later merge of ours converges. */
void notes_merge_ff_corrupt(void)
{
	const char *dir = setup();
	const char *da = path_in(dir, "a"), *db = path_in(dir, "b");
	git_repository *a = mk_repo(da), *b = NULL;
	git_oid c[3], ta, tb, note_id;
	char sha[41];
	commits(a, 3, c);
	const char *a1 =
	    save_report(mk_report(1, "x64", "s", 0, 2 * GIB, MIB, 1, 0), dir, "a1.json");
	const char *b1 =
	    save_report(mk_report(2, "x64", "s", 0, 3 * GIB, MIB, 2, 0), dir, "b1.json");
	static const char later[] = "{\"schema\": \"memguard-report/3\", \"later\": 1}\n";
	CU_ASSERT_EQUAL(run_in(da, "note", a1, NULL)->rc, 0); /* on c[2], HEAD */
	CU_ASSERT_EQUAL(run_in(da, "note", "--commit", "HEAD~1", a1, NULL)->rc, 0);
	CU_ASSERT_FATAL(sh("git clone -q %s %s", da, db) == 0);
	CU_ASSERT_EQUAL_FATAL(fetch_notes(db, da, REF), 0);
	CU_ASSERT_FATAL(git_repository_open(&b, db) == 0);
	/* B writes garbage over c[2]'s report (this memguard's schema, but no
	 * report), a later memguard's report (a schema this one does not read)
	 * over c[1]'s, a report on c[0] */
	git_signature *sig = NULL;
	git_signature_now(&sig, "Test", "test@example.com");
	CU_ASSERT_FATAL(git_note_create(&note_id, b, REF, sig, sig, &c[2],
	                                "{\"schema\": \"memguard-report/2\", \"junk\": 1}\n",
	                                1) == 0);
	CU_ASSERT_FATAL(git_note_create(&note_id, b, REF, sig, sig, &c[1], later, 1) == 0);
	git_signature_free(sig);
	run *r = run_in(db, "note", "--commit", "HEAD~2", b1, NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_EQUAL_FATAL(fetch_notes(da, db, "refs/notes/memguard-remote"), 0);
	sha_of(sha, &c[2]);
	r = run_in(da, "notes-merge", "memguard-remote", NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->err, "warning"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->err, sha));
	report *n = read_note(a, REF, &c[2]); /* A's report, not B's garbage */
	CU_ASSERT(n && n->nshards == 1 && note_has_shard(n, 1, "x64", 2 * GIB));
	report_free(n);
	n = read_note(a, REF, &c[0]); /* B's new report taken */
	CU_ASSERT(n && n->nshards == 1 && note_has_shard(n, 2, "x64", 3 * GIB));
	report_free(n);
	/* the later memguard's note taken, without a word of it */
	git_note *ln = NULL;
	CU_ASSERT_FATAL(git_note_read(&ln, a, REF, &c[1]) == 0);
	CU_ASSERT(ln && !strcmp(git_note_message(ln), later));
	git_note_free(ln);
	CU_ASSERT_PTR_NULL(strstr(r->err, "memguard-report/3"));
	/* B merges A's: A's notes descend from B's now, and B takes them */
	CU_ASSERT_EQUAL_FATAL(fetch_notes(db, da, "refs/notes/memguard-remote"), 0);
	r = run_in(db, "notes-merge", "memguard-remote", NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_PTR_NULL(strstr(r->err, "warning"));
	CU_ASSERT_FATAL(notes_tree(a, &ta) == 0 && notes_tree(b, &tb) == 0);
	CU_ASSERT(git_oid_equal(&ta, &tb));
	git_repository_free(a);
	git_repository_free(b);
	cleanup();
}

/* A corrupt note on one side does not block the merge: the side that is a
 * report is kept, with a warning naming the commit, and both clones still
 * converge. */
void notes_merge_corrupt(void)
{
	const char *dir = setup();
	const char *da = path_in(dir, "a"), *db = path_in(dir, "b");
	git_repository *a = mk_repo(da), *b = NULL;
	git_oid c[2], ta, tb, note_id;
	char sha[41];
	commits(a, 2, c);
	CU_ASSERT_FATAL(sh("git clone -q %s %s", da, db) == 0);
	CU_ASSERT_FATAL(git_repository_open(&b, db) == 0);
	const char *a1 =
	    save_report(mk_report(1, "x64", "s", 0, 2 * GIB, MIB, 1, 0), dir, "a1.json");
	const char *b1 =
	    save_report(mk_report(2, "x64", "s", 0, 3 * GIB, MIB, 2, 0), dir, "b1.json");
	CU_ASSERT_EQUAL(run_in(da, "note", a1, NULL)->rc, 0);
	CU_ASSERT_EQUAL(run_in(da, "note", "--commit", "HEAD~1", a1, NULL)->rc, 0);
	git_signature *sig = NULL;
	git_signature_now(&sig, "Test", "test@example.com");
	CU_ASSERT_FATAL(git_note_create(&note_id, b, REF, sig, sig, &c[1], "not a report\n", 0) ==
	                0);
	git_signature_free(sig);
	CU_ASSERT_EQUAL(run_in(db, "note", "--commit", "HEAD~1", b1, NULL)->rc, 0);
	CU_ASSERT_EQUAL_FATAL(fetch_notes(da, db, "refs/notes/memguard-remote"), 0);
	CU_ASSERT_EQUAL_FATAL(fetch_notes(db, da, "refs/notes/memguard-remote"), 0);
	sha_of(sha, &c[1]);
	run *r = run_in(da, "notes-merge", "memguard-remote", NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->err, "warning"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->err, sha));
	r = run_in(db, "notes-merge", "memguard-remote", NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->err, sha));
	CU_ASSERT_FATAL(notes_tree(a, &ta) == 0 && notes_tree(b, &tb) == 0);
	CU_ASSERT(git_oid_equal(&ta, &tb));
	report *n = read_note(a, REF, &c[1]); /* A's report, not the corrupt note */
	CU_ASSERT(n && n->nshards == 1 && note_has_shard(n, 1, "x64", 2 * GIB));
	report_free(n);
	n = read_note(a, REF, &c[0]); /* merged as usual */
	CU_ASSERT(n && n->nshards == 2);
	report_free(n);
	git_repository_free(a);
	git_repository_free(b);
	cleanup();
}

/*
 * test_ci_note.c - note and show: round trips, git CLI interoperability,
 * nodes, concurrent writers, foreign notes, locks.
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

void note_show_roundtrip(void)
{
	const char *dir = setup();
	const char *rd = path_in(dir, "repo");
	git_repository *repo = mk_repo(rd);
	git_oid c[1];
	char sh7[16];
	commits(repo, 1, c);
	const char *rep = save_report(
	    mk_report(1, "x64", "my_tests", 0, 3 * GIB, 200 * MIB, 2, 6 * MIB), dir, "mem.json");
	run *r = run_in(rd, "note", rep, NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	short_of(sh7, &c[0]);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, sh7));

	report *n = read_note(repo, REF, &c[0]);
	CU_ASSERT_PTR_NOT_NULL_FATAL(n);
	CU_ASSERT_EQUAL(n->nshards, 1);
	CU_ASSERT_EQUAL(n->shards[0].counts[TEST_PASS], 3);
	CU_ASSERT_EQUAL(n->shards[0].peak_va, 3 * GIB);
	CU_ASSERT_EQUAL(n->shards[0].recycles, 2);
	CU_ASSERT_EQUAL(n->shards[0].ntests, 3);
	report_free(n);

	r = run_in(rd, "show", NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "x64"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "my_tests"));
	r = run_in(rd, "show", "--tests", "HEAD", NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "my_tests/t0"));
	/* Noting the same report again changes nothing. */
	r = run_in(rd, "note", rep, NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "unchanged"));
	/* Another ref, by option and by environment. */
	r = run_in(rd, "note", "--ref", "other", rep, NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	report *o = read_note(repo, "refs/notes/other", &c[0]);
	CU_ASSERT_PTR_NOT_NULL(o);
	report_free(o);
	setenv("MEMGUARD_NOTES_REF", "refs/notes/fromenv", 1);
	r = run_in(rd, "note", rep, NULL);
	unsetenv("MEMGUARD_NOTES_REF");
	CU_ASSERT_EQUAL(r->rc, 0);
	o = read_note(repo, "refs/notes/fromenv", &c[0]);
	CU_ASSERT_PTR_NOT_NULL(o);
	report_free(o);
	git_repository_free(repo);
	cleanup();
}

/* show keeps of a note's tests only what it prints (the failures, each
 * shard's largest): its output is the console's of the whole note, to the
 * byte, for a note of many passing tests, 28 failures (over the console's
 * 20) and a ctest shard whose largest tests are listed. */
void show_as_console(void)
{
	const char *dir = setup();
	const char *rd = path_in(dir, "repo");
	git_repository *repo = mk_repo(rd);
	git_oid c[1];
	commits(repo, 1, c);
	report *m = mk_report(1, "x64", "host", 0, 3 * GIB, 200 * MIB, 1, 6 * MIB);
	const char *drivers[2] = {"native", "ctest"};
	for (int k = 0; k < 2; k++) {
		report_shard *s = k ? report_add_shard(m) : &m->shards[0];
		if (k) {
			s->node = 1;
			s->index = 1;
			s->arch = report_strdup("x64");
			s->suite = report_strdup("ct");
		}
		free(s->driver);
		s->driver = report_strdup(drivers[k]);
		for (unsigned i = 0; i < (k ? 40u : 300u); i++) {
			report_test *t = report_shard_add_test(s);
			char name[32];
			snprintf(name, sizeof(name), "%s/n%03u", k ? "ct" : "host", i);
			t->name = report_strdup(name);
			t->state = i % (k ? 13 : 12) == 5 ? TEST_FAIL : TEST_PASS;
			if (t->state == TEST_FAIL)
				t->message = report_strdup("expected 1, got 2");
			t->va_after = (uint64_t)((i * 7919u) % 1000u + 1) * MIB;
		}
	}
	report_finish(m, 10);
	const char *rep = save_report(m, dir, "mem.json");
	CU_ASSERT_EQUAL(run_in(rd, "note", rep, NULL)->rc, 0);
	report *n = read_note(repo, REF, &c[0]);
	CU_ASSERT_PTR_NOT_NULL_FATAL(n);
	char *want = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&want, &len);
	CU_ASSERT_FATAL(f != NULL);
	char sha[GIT_OID_HEXSZ + 1];
	sha_of(sha, &c[0]);
	fprintf(f, "commit %s\n", sha);
	CU_ASSERT_EQUAL(console_write(n, f), 0);
	fclose(f);
	run *r = run_in(rd, "show", NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_STRING_EQUAL(r->out, want);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "largest tests"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "... and 8 more"));
	free(want);
	report_free(n);
	git_repository_free(repo);
	cleanup();
}

void note_git_cli_reads(void)
{
	const char *dir = setup();
	const char *rd = path_in(dir, "repo");
	git_repository *repo = mk_repo(rd);
	git_oid c[2];
	mg_err err;
	commits(repo, 2, c);
	const char *rep =
	    save_report(mk_report(1, "x86", "core", 0, 2 * GIB, 100 * MIB, 1, 0), dir, "a.json");
	CU_ASSERT_EQUAL(run_in(rd, "note", rep, NULL)->rc, 0);
	CU_ASSERT_EQUAL(
	    sh("git --git-dir=%s/.git notes --ref=memguard show HEAD > %s/cli.json", rd, dir), 0);
	report *r = NULL;
	CU_ASSERT_EQUAL_FATAL(report_load(&r, path_in(dir, "cli.json"), &err), 0);
	CU_ASSERT_EQUAL(r->nshards, 1);
	CU_ASSERT_EQUAL(r->shards[0].counts[TEST_PASS], 3);
	CU_ASSERT_EQUAL(r->shards[0].peak_va, 2 * GIB);
	report_free(r);
	/* git lists it, and git can append another commit's note to the same ref. */
	CU_ASSERT_EQUAL(sh("git --git-dir=%s/.git notes --ref=memguard list HEAD >/dev/null", rd),
	                0);
	CU_ASSERT_EQUAL(sh("git --git-dir=%s/.git notes --ref=memguard add -m '{}' HEAD~1", rd), 0);
	CU_ASSERT_EQUAL(sh("git --git-dir=%s/.git notes --ref=memguard show HEAD >/dev/null", rd),
	                0);
	git_repository_free(repo);
	cleanup();
}

void note_git_cli_writes(void)
{
	const char *dir = setup();
	const char *rd = path_in(dir, "repo");
	git_repository *repo = mk_repo(rd);
	git_oid c[1];
	commits(repo, 1, c);
	const char *rep =
	    save_report(mk_report(2, "x64", "cli_suite", 0, GIB, 50 * MIB, 0, 0), dir, "cli.json");
	CU_ASSERT_EQUAL(sh("cd %s && git notes --ref=memguard add -F %s HEAD", rd, rep), 0);
	run *r = run_in(rd, "show", NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "cli_suite"));
	/* memguard merges into the note git wrote. */
	const char *rep2 =
	    save_report(mk_report(1, "x64", "cli_suite", 0, GIB, 50 * MIB, 0, 0), dir, "b.json");
	CU_ASSERT_EQUAL(run_in(rd, "note", rep2, NULL)->rc, 0);
	report *n = read_note(repo, REF, &c[0]);
	CU_ASSERT_PTR_NOT_NULL_FATAL(n);
	CU_ASSERT_EQUAL(n->nshards, 2);
	report_free(n);
	/* A pretty-printed note (as a person might add by hand) reads as well. */
	CU_ASSERT_EQUAL(sh("cd %s && python3 -m json.tool %s > %s/pretty.json && git notes "
	                   "--ref=memguard add -f -F %s/pretty.json HEAD",
	                   rd, rep, dir, dir),
	                0);
	CU_ASSERT_EQUAL(run_in(rd, "show", NULL)->rc, 0);
	git_repository_free(repo);
	cleanup();
}

void note_two_nodes(void)
{
	const char *dir = setup();
	const char *rd = path_in(dir, "repo");
	git_repository *repo = mk_repo(rd);
	git_oid c[1];
	commits(repo, 1, c);
	const char *n1 =
	    save_report(mk_report(1, "x86", "core", 0, 2 * GIB, 100 * MIB, 1, 0), dir, "n1.json");
	const char *n2 =
	    save_report(mk_report(2, "x86", "core", 0, 3 * GIB, 100 * MIB, 4, 0), dir, "n2.json");
	const char *n1b =
	    save_report(mk_report(1, "x86", "core", 0, GIB, 100 * MIB, 0, 0), dir, "n1b.json");
	CU_ASSERT_EQUAL(run_in(rd, "note", n1, NULL)->rc, 0);
	CU_ASSERT_EQUAL(run_in(rd, "note", n2, NULL)->rc, 0);
	report *n = read_note(repo, REF, &c[0]);
	CU_ASSERT_PTR_NOT_NULL_FATAL(n);
	CU_ASSERT_EQUAL(n->nshards, 2);
	CU_ASSERT(note_has_shard(n, 1, "x86", 2 * GIB));
	CU_ASSERT(note_has_shard(n, 2, "x86", 3 * GIB));
	report_free(n);
	/* Node 1 again: its shard is replaced, node 2's kept. */
	CU_ASSERT_EQUAL(run_in(rd, "note", n1b, NULL)->rc, 0);
	n = read_note(repo, REF, &c[0]);
	CU_ASSERT_PTR_NOT_NULL_FATAL(n);
	CU_ASSERT_EQUAL(n->nshards, 2);
	CU_ASSERT(note_has_shard(n, 1, "x86", GIB));
	CU_ASSERT(note_has_shard(n, 2, "x86", 3 * GIB));
	report_free(n);
	/* The notes commits say what was added and replaced. */
	git_oid head;
	git_commit *nc = NULL;
	CU_ASSERT_FATAL(git_reference_name_to_id(&head, repo, REF) == 0);
	CU_ASSERT_FATAL(git_commit_lookup(&nc, repo, &head) == 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(git_commit_message(nc), "replaced: node 1 x86 core #0"));
	CU_ASSERT_EQUAL(git_commit_parentcount(nc), 1);
	git_commit_free(nc);
	git_repository_free(repo);
	cleanup();
}

/* The note of target's blob id into out; 0 when there is one. */
static int note_blob(git_repository *repo, const char *ref, const git_oid *target, git_oid *out)
{
	git_note *note = NULL;
	if (git_note_read(&note, repo, ref, target) < 0)
		return -1;
	git_oid_cpy(out, git_note_id(note));
	git_note_free(note);
	return 0;
}

/* A report noted over another node's note is read again from its file for
 * the merge (its tests are not held while the old note is read): the merged
 * note has every test of both nodes, is stripped as the report was, and is
 * the very blob that noting the same report from a FIFO (read once, held)
 * makes. */
void note_over_note_reread(void)
{
	const char *dir = setup();
	const char *rd = path_in(dir, "repo");
	git_repository *repo = mk_repo(rd);
	git_oid c[1], from_file, from_fifo;
	commits(repo, 1, c);
	const char *n1 =
	    save_report(mk_report(1, "x86", "core", 0, 2 * GIB, 100 * MIB, 1, 0), dir, "n1.json");
	const char *n2 = save_report(mk_report(2, "x86", "core", 0, 3 * GIB, 100 * MIB, 4, 8192),
	                             dir, "n2.json");
	const char *fifo = path_in(dir, "n2.fifo");
	CU_ASSERT_FATAL(mkfifo(fifo, 0600) == 0);
	const char *refs[2] = {"refs/notes/file", "refs/notes/fifo"};
	for (int k = 0; k < 2; k++) {
		CU_ASSERT_EQUAL(run_in(rd, "note", "--ref", refs[k], n1, NULL)->rc, 0);
		pid_t pid = 0;
		if (k == 1) { /* a writer into the FIFO: cat's exit is checked */
			pid = fork();
			CU_ASSERT_FATAL(pid >= 0);
			if (pid == 0)
				_exit(sh("cat '%s' > '%s'", n2, fifo));
		}
		CU_ASSERT_EQUAL(run_in(rd, "note", "--ref", refs[k], k ? fifo : n2, NULL)->rc, 0);
		if (k == 1) {
			int st = 0;
			CU_ASSERT_FATAL(waitpid(pid, &st, 0) == pid);
			CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		}
	}
	CU_ASSERT_FATAL(note_blob(repo, refs[0], &c[0], &from_file) == 0);
	CU_ASSERT_FATAL(note_blob(repo, refs[1], &c[0], &from_fifo) == 0);
	CU_ASSERT(git_oid_equal(&from_file, &from_fifo));
	report *n = read_note(repo, refs[0], &c[0]);
	CU_ASSERT_PTR_NOT_NULL_FATAL(n);
	CU_ASSERT_EQUAL_FATAL(n->nshards, 2);
	CU_ASSERT(note_has_shard(n, 1, "x86", 2 * GIB));
	CU_ASSERT(note_has_shard(n, 2, "x86", 3 * GIB));
	for (size_t i = 0; i < n->nshards; i++) {
		const report_shard *s = &n->shards[i];
		CU_ASSERT_EQUAL(s->ntests, 3);
		CU_ASSERT_EQUAL(s->ntimeline, 0);
		for (size_t t = 0; t < s->ntests; t++)
			CU_ASSERT_PTR_NULL(s->tests[t].output);
		if (s->node == 2 && s->ntests == 3)
			CU_ASSERT_EQUAL(s->tests[0].va_delta, 8192);
	}
	report_free(n);
	git_repository_free(repo);
	cleanup();
}

void note_strips_timeline(void)
{
	const char *dir = setup();
	const char *rd = path_in(dir, "repo");
	git_repository *repo = mk_repo(rd);
	git_oid c[1];
	commits(repo, 1, c);
	const char *rep = save_report(mk_report(1, "x64", "s", 0, GIB, MIB, 0, 0), dir, "mem.json");
	CU_ASSERT_EQUAL(run_in(rd, "note", rep, NULL)->rc, 0);
	report *n = read_note(repo, REF, &c[0]);
	CU_ASSERT_PTR_NOT_NULL_FATAL(n);
	CU_ASSERT_EQUAL(n->shards[0].ntimeline, 0);
	for (size_t t = 0; t < n->shards[0].ntests; t++)
		CU_ASSERT_PTR_NULL(n->shards[0].tests[t].output);
	report_free(n);
	CU_ASSERT_EQUAL(run_in(rd, "note", "--keep-timeline", "--ref", "tl", rep, NULL)->rc, 0);
	n = read_note(repo, "refs/notes/tl", &c[0]);
	CU_ASSERT_PTR_NOT_NULL_FATAL(n);
	CU_ASSERT_EQUAL(n->shards[0].ntimeline, 3);
	report_free(n);
	git_repository_free(repo);
	cleanup();
}

void note_report_sha(void)
{
	const char *dir = setup();
	const char *rd = path_in(dir, "repo");
	git_repository *repo = mk_repo(rd);
	git_oid c[2];
	char sha[41];
	commits(repo, 2, c);
	report *rp = mk_report(1, "x64", "s", 0, GIB, MIB, 0, 0);
	sha_of(sha, &c[0]);
	rp->sha = report_strdup(sha);
	const char *rep = save_report(rp, dir, "mem.json");
	CU_ASSERT_EQUAL(run_in(rd, "note", rep, NULL)->rc, 0);
	report *n = read_note(repo, REF, &c[0]);
	CU_ASSERT_PTR_NOT_NULL(n);
	report_free(n);
	CU_ASSERT_PTR_NULL(read_note(repo, REF, &c[1]));
	CU_ASSERT_EQUAL(run_in(rd, "note", "--commit", "HEAD", rep, NULL)->rc, 0);
	n = read_note(repo, REF, &c[1]);
	CU_ASSERT_PTR_NOT_NULL(n);
	report_free(n);
	/* A sha this repository does not have: HEAD, with a word on stderr. */
	rp = mk_report(1, "x64", "s", 0, GIB, MIB, 0, 0);
	rp->sha = report_strdup("0123456789abcdef0123456789abcdef01234567");
	rep = save_report(rp, dir, "foreign.json");
	run *r = run_in(rd, "note", "--ref", "f", rep, NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->err, "not in this repository"));
	n = read_note(repo, "refs/notes/f", &c[1]);
	CU_ASSERT_PTR_NOT_NULL(n);
	report_free(n);
	/* Errors: a missing report, an unknown revision, outside a repository. */
	CU_ASSERT_EQUAL(run_in(rd, "note", path_in(dir, "nope.json"), NULL)->rc, 2);
	CU_ASSERT_EQUAL(run_in(rd, "note", "--commit", "nosuchrev", rep, NULL)->rc, 2);
	CU_ASSERT_EQUAL(run_in(dir, "note", rep, NULL)->rc, 3);
	write_file(path_in(dir, "bad.json"), "{\"schema\": \"memguard-report/1\"");
	CU_ASSERT_EQUAL(run_in(rd, "note", path_in(dir, "bad.json"), NULL)->rc, 3);
	git_repository_free(repo);
	cleanup();
}

/* Runs "note --commit SHA REPORT" in a child once go[1] is closed (the
 * child closes its own copy); its stderr goes to errpath. Returns the pid. */
static pid_t note_child(const char *dir, const char *sha, const char *rep, const int go[2],
                        const char *errpath)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	char b;
	close(go[1]);
	int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600),
	    nul = open("/dev/null", O_WRONLY);
	if (fd < 0 || nul < 0 || dup2(nul, 1) < 0 || dup2(fd, 2) < 0 || chdir(dir) != 0)
		_exit(99);
	if (read(go[0], &b, 1) < 0)
		_exit(98);
	char *argv[] = {"note", "--commit", (char *)sha, (char *)rep, NULL};
	int rc = ci_main("note", 4, argv);
	fflush(NULL);
	_exit(rc);
}

#define PAIRS 200

/*
 * PAIRS times, two writers note two different shards on the same commit at
 * the same moment (released together through a pipe): every note is stored
 * and holds both shards. The notes ref lock and the compare-and-swap are
 * both contended.
 */
void note_concurrent_pairs(void)
{
	const char *dir = setup();
	const char *rd = path_in(dir, "repo");
	git_repository *repo = mk_repo(rd);
	static git_oid c[PAIRS];
	char sha[GIT_OID_HEXSZ + 1], errp[2][300], line[512];
	int failed = 0;
	commits(repo, PAIRS, c);
	const char *rep[2] = {
	    save_report(mk_report(1, "x64", "core", 0, 2 * GIB, 100 * MIB, 1, 0), dir, "p1.json"),
	    save_report(mk_report(2, "x64", "core", 0, 3 * GIB, 100 * MIB, 2, 0), dir, "p2.json")};
	for (int w = 0; w < 2; w++)
		snprintf(errp[w], sizeof(errp[w]), "%s/.pair%d.err", root, w);
	for (int p = 0; p < PAIRS; p++) {
		int go[2];
		pid_t pid[2];
		CU_ASSERT_FATAL(pipe(go) == 0);
		sha_of(sha, &c[p]);
		for (int w = 0; w < 2; w++)
			pid[w] = note_child(rd, sha, rep[w], go, errp[w]);
		close(go[0]);
		close(go[1]); /* both children read EOF: go */
		for (int w = 0; w < 2; w++) {
			int st = 0;
			CU_ASSERT_FATAL(pid[w] > 0 && waitpid(pid[w], &st, 0) == pid[w]);
			CU_ASSERT(WIFEXITED(st));
			if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
				continue;
			FILE *f = fopen(errp[w], "r");
			if (f && fgets(line, sizeof(line), f) && failed < 5)
				fprintf(stderr, "pair %d writer %d: exit %d: %s", p, w,
				        WIFEXITED(st) ? WEXITSTATUS(st) : -1, line);
			if (f)
				fclose(f);
			failed++;
		}
	}
	fprintf(stderr, "note_concurrent_pairs: %d of %d writers failed\n", failed, 2 * PAIRS);
	CU_ASSERT_EQUAL(failed, 0);
	int both = 0;
	for (int p = 0; p < PAIRS; p++) {
		report *n = read_note(repo, REF, &c[p]);
		both += n && n->nshards == 2 && note_has_shard(n, 1, "x64", 2 * GIB) &&
		        note_has_shard(n, 2, "x64", 3 * GIB);
		report_free(n);
	}
	fprintf(stderr, "note_concurrent_pairs: %d of %d notes hold both shards\n", both, PAIRS);
	CU_ASSERT_EQUAL(both, PAIRS);
	git_repository_free(repo);
	cleanup();
}

/* A ref lock that stays taken (a writer that died holding it): note gives up
 * after its ~2 s of backoff, exit 3, saying the lock was busy. */
void note_lock_busy(void)
{
	const char *dir = setup();
	const char *rd = path_in(dir, "repo");
	git_repository *repo = mk_repo(rd);
	git_oid c[1];
	commits(repo, 1, c);
	const char *rep = save_report(mk_report(1, "x64", "s", 0, GIB, MIB, 0, 0), dir, "m.json");
	CU_ASSERT_EQUAL_FATAL(run_in(rd, "note", rep, NULL)->rc, 0);
	write_file(path_in(rd, ".git/refs/notes/memguard.lock"), "");
	const char *rep2 = save_report(mk_report(2, "x64", "s", 0, GIB, MIB, 0, 0), dir, "n.json");
	run *r = run_in(rd, "note", rep2, NULL);
	CU_ASSERT_EQUAL(r->rc, 3);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->err, "was busy: gave up after"));
	report *n = read_note(repo, REF, &c[0]);
	CU_ASSERT(n && n->nshards == 1);
	report_free(n);
	git_repository_free(repo);
	cleanup();
}

/* A note that is not a memguard report, added with the git CLI, is left as it
 * is: note exits 3 naming what it is and the commit. */
static void foreign_case(const char *content, const char *named)
{
	const char *dir = setup();
	const char *rd = path_in(dir, "repo");
	git_repository *repo = mk_repo(rd);
	git_oid c[1];
	char sh7[16];
	commits(repo, 1, c);
	short_of(sh7, &c[0]);
	write_file(path_in(dir, "foreign.txt"), content);
	CU_ASSERT_FATAL(
	    sh("cd %s && git notes --ref=memguard add -F %s/foreign.txt HEAD", rd, dir) == 0);
	CU_ASSERT_FATAL(
	    sh("cd %s && git notes --ref=memguard show HEAD > %s/before.txt", rd, dir) == 0);
	const char *rep = save_report(mk_report(1, "x64", "s", 0, GIB, MIB, 0, 0), dir, "m.json");
	run *r = run_in(rd, "note", rep, NULL);
	CU_ASSERT_EQUAL(r->rc, 3);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->err, named));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->err, sh7));
	CU_ASSERT_PTR_NULL(strstr(r->out, "noted"));
	CU_ASSERT_FATAL(sh("cd %s && git notes --ref=memguard show HEAD > %s/after.txt", rd, dir) ==
	                0);
	CU_ASSERT_EQUAL(sh("cmp -s %s/before.txt %s/after.txt", dir, dir), 0);
	git_repository_free(repo);
	cleanup();
}

void note_keeps_other_schema(void)
{
	foreign_case("{\"schema\":\"memguard-report/3\",\"shards\":[{\"node\":1}]}\n",
	             "'memguard-report/3'");
}

void note_keeps_plain_text(void)
{
	foreign_case("reviewed by hand: looks fine\n", "not a memguard report");
}

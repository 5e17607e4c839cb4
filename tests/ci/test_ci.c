/*
 * test_ci.c - the ci commands against real temporary repositories built
 * with libgit2 under a mkdtemp directory; the git CLI is used only to check
 * that git itself reads and writes the same notes. Commands run through
 * ci_main with stdout and stderr captured.
 * Long on purpose: one case after another, each on its own.
 */
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

#include "adapters.h"
#include "ci.h"
#include "ci_int.h"
#include "mg_test.h"

#define REF "refs/notes/memguard"
#define GIB (1024ull * 1024 * 1024)
#define MIB (1024ull * 1024)

/* ---- temporary directories, each case's own ---- */

static char root[256];
static char home_cwd[4096];

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void cleanup(void)
{
	if (home_cwd[0] && chdir(home_cwd) != 0)
		perror("chdir");
	if (root[0])
		nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	root[0] = '\0';
	git_libgit2_shutdown();
}

/* A fresh root directory; every path below lives in it. */
static const char *setup(void)
{
	static const char *const vars[] = {
	    "MEMGUARD_NOTES_REF",     "GITHUB_HEAD_REF",  "GITHUB_REF_NAME", "CI_COMMIT_REF_NAME",
	    "BUILD_SOURCEBRANCHNAME", "BUILDKITE_BRANCH", "BRANCH_NAME"};
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
	/* The git CLI must not read the user's config. */
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	if (!home_cwd[0] && !getcwd(home_cwd, sizeof(home_cwd)))
		abort();
	snprintf(root, sizeof(root), "/tmp/mg-ci-test.XXXXXX");
	if (!mkdtemp(root))
		abort();
	git_libgit2_init();
	return root;
}

static char *path_in(const char *dir, const char *name)
{
	static char buf[64][512]; /* a ring: a case keeps at most 64 paths alive */
	static int next;
	char tmp[512];
	char *p = buf[next++ % 64];
	snprintf(tmp, sizeof(tmp), "%s/%s", dir, name); /* dir may be an older slot */
	memcpy(p, tmp, sizeof(tmp));
	return p;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
}

/* ---- repositories ---- */

static git_time_t clock_now = 1790000000;

static git_repository *mk_repo(const char *dir)
{
	git_repository *repo = NULL;
	git_repository_init_options o;
	git_config *cfg = NULL;
	git_repository_init_options_init(&o, GIT_REPOSITORY_INIT_OPTIONS_VERSION);
	o.flags = GIT_REPOSITORY_INIT_MKPATH;
	o.initial_head = "main";
	CU_ASSERT_FATAL(git_repository_init_ext(&repo, dir, &o) == 0);
	CU_ASSERT_FATAL(git_repository_config(&cfg, repo) == 0);
	git_config_set_string(cfg, "user.name", "Test");
	git_config_set_string(cfg, "user.email", "test@example.com");
	git_config_free(cfg);
	return repo;
}

/* A commit of the current index, on update_ref (may be NULL) with parents. */
static void commit_index(git_repository *repo, const char *update_ref, const git_oid *parent_ids,
                         size_t np, const char *msg, git_oid *out)
{
	git_index *idx = NULL;
	git_oid tree_id;
	git_tree *tree = NULL;
	git_signature *sig = NULL;
	git_commit *parents[2] = {NULL, NULL};
	CU_ASSERT_FATAL(git_repository_index(&idx, repo) == 0);
	CU_ASSERT_FATAL(git_index_write_tree(&tree_id, idx) == 0);
	CU_ASSERT_FATAL(git_tree_lookup(&tree, repo, &tree_id) == 0);
	CU_ASSERT_FATAL(git_signature_new(&sig, "Test", "test@example.com", clock_now++, 0) == 0);
	for (size_t i = 0; i < np; i++)
		CU_ASSERT_FATAL(git_commit_lookup(&parents[i], repo, &parent_ids[i]) == 0);
	CU_ASSERT_FATAL(git_commit_create(out, repo, update_ref, sig, sig, NULL, msg, tree, np,
	                                  (const git_commit **)parents) == 0);
	git_commit_free(parents[0]);
	git_commit_free(parents[1]);
	git_signature_free(sig);
	git_tree_free(tree);
	git_index_free(idx);
}

/* Writes name in the worktree, stages it and commits on HEAD. */
static void commit_file(git_repository *repo, const char *name, const char *content, git_oid *out)
{
	git_index *idx = NULL;
	git_oid head;
	char path[1024];
	int has_head = git_reference_name_to_id(&head, repo, "HEAD") == 0;
	snprintf(path, sizeof(path), "%s/%s", git_repository_workdir(repo), name);
	write_file(path, content);
	CU_ASSERT_FATAL(git_repository_index(&idx, repo) == 0);
	CU_ASSERT_FATAL(git_index_add_bypath(idx, name) == 0);
	CU_ASSERT_FATAL(git_index_write(idx) == 0);
	git_index_free(idx);
	commit_index(repo, "HEAD", &head, has_head ? 1 : 0, content, out);
}

static void commits(git_repository *repo, int n, git_oid *out)
{
	char content[64];
	for (int i = 0; i < n; i++) {
		snprintf(content, sizeof(content), "change %d\n", i);
		commit_file(repo, "file.txt", content, &out[i]);
	}
}

static void sha_of(char buf[GIT_OID_HEXSZ + 1], const git_oid *id)
{
	git_oid_tostr(buf, GIT_OID_HEXSZ + 1, id);
}

static void short_of(char buf[16], const git_oid *id)
{
	git_oid_tostr(buf, 8, id);
}

/* ---- reports ---- */

/* One shard with three tests; suite/t0 leaves leak bytes of VA behind. */
static report *mk_report(uint32_t node, const char *arch, const char *suite, uint32_t index,
                         uint64_t peak_va, uint64_t peak_rss, uint32_t recycles, int64_t leak)
{
	report *r = report_new();
	char name[128];
	r->node_index = node;
	r->node_total = 2;
	r->start_time = 1790000000;
	r->wall = 10;
	report_shard *s = report_add_shard(r);
	s->node = node;
	s->index = index;
	s->arch = report_strdup(arch);
	s->suite = report_strdup(suite);
	s->driver = report_strdup("native");
	s->command = report_strdup("./my_tests");
	s->peak_va = peak_va;
	s->peak_rss = peak_rss;
	s->recycles = recycles;
	s->wall = 10;
	for (int t = 0; t < 3; t++) {
		report_test *rt = report_shard_add_test(s);
		snprintf(name, sizeof(name), "%s/t%d", suite, t);
		rt->name = report_strdup(name);
		rt->state = TEST_PASS;
		rt->attempts = 1;
		rt->duration = 0.5;
		rt->va_after = peak_va / 2;
		rt->rss_after = peak_rss / 2;
		rt->va_delta = t == 0 ? leak : 4096;
		rt->rss_delta = 4096;
		rt->output = report_strdup("captured output that notes must drop");
	}
	for (int p = 0; p < 3; p++) {
		report_point *pt = report_shard_add_point(s);
		pt->t = p;
		pt->va = peak_va / (uint64_t)(3 - p);
		pt->rss = peak_rss / 2;
	}
	report_finish(r, 10);
	return r;
}

static const char *save_report(report *r, const char *dir, const char *name)
{
	mg_err err;
	const char *p = path_in(dir, name);
	int rc = report_save(r, p, &err);
	if (rc)
		fprintf(stderr, "report_save: %s\n", err.msg);
	CU_ASSERT_FATAL(rc == 0);
	report_free(r);
	return p;
}

/* The note of target parsed as a report, or NULL. */
static report *read_note(git_repository *repo, const char *ref, const git_oid *target)
{
	git_note *note = NULL;
	report *r = NULL;
	mg_err err;
	if (git_note_read(&note, repo, ref, target) < 0)
		return NULL;
	json_t *j = json_loads(git_note_message(note), 0, NULL);
	git_note_free(note);
	if (!j)
		return NULL;
	if (report_from_json(&r, j, &err) < 0)
		r = NULL;
	json_decref(j);
	return r;
}

static int note_has_shard(const report *r, uint32_t node, const char *arch, uint64_t peak_va)
{
	for (size_t i = 0; r && i < r->nshards; i++)
		if (r->shards[i].node == node && strcmp(r->shards[i].arch, arch) == 0 &&
		    (peak_va == 0 || r->shards[i].peak_va == peak_va))
			return 1;
	return 0;
}

/* ---- running commands ---- */

typedef struct run {
	int rc;
	char out[1 << 16];
	char err[1 << 14];
} run;

static void slurp(int fd, char *buf, size_t size)
{
	ssize_t n = pread(fd, buf, size - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
}

/* ci_main(cmd, argv = {cmd, args..., NULL}) in dir with stdout/stderr captured. */
static run *run_in(const char *dir, const char *cmd, ...)
{
	static run result;
	char *argv[32];
	int argc = 0;
	va_list ap;
	argv[argc++] = (char *)cmd;
	va_start(ap, cmd);
	for (const char *a; (a = va_arg(ap, const char *)) != NULL && argc < 31;)
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;

	char outp[300], errp[300];
	snprintf(outp, sizeof(outp), "%s/.stdout.XXXXXX", root);
	snprintf(errp, sizeof(errp), "%s/.stderr.XXXXXX", root);
	int fo = mkstemp(outp), fe = mkstemp(errp);
	CU_ASSERT_FATAL(fo >= 0 && fe >= 0);
	fflush(NULL);
	int so = dup(1), se = dup(2);
	dup2(fo, 1);
	dup2(fe, 2);
	/* No fatal assert while stdout is redirected: CUnit would report into the file. */
	char cwd[4096];
	int moved = getcwd(cwd, sizeof(cwd)) != NULL && chdir(dir) == 0;
	result.rc = moved ? ci_main(cmd, argc, argv) : -1;
	fflush(NULL);
	if (moved && chdir(cwd) != 0)
		moved = 0;
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	slurp(fo, result.out, sizeof(result.out));
	slurp(fe, result.err, sizeof(result.err));
	close(fo);
	close(fe);
	unlink(outp);
	unlink(errp);
	CU_ASSERT_FATAL(moved);
	if (getenv("MG_TEST_VERBOSE"))
		fprintf(stderr, "---- %s -> %d\n%s%s", cmd, result.rc, result.out, result.err);
	return &result;
}

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	fflush(NULL);
	int st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static size_t count_lines_with(const char *text, const char *needle)
{
	size_t n = 0;
	for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

/* ---- identity ---- */

static void identity_plain(void)
{
	const char *dir = setup();
	git_repository *repo = mk_repo(path_in(dir, "repo"));
	git_oid c[2];
	char sha[41];
	mg_err err;
	commits(repo, 2, c);
	write_file(path_in(dir, "repo/untracked.txt"), "not tracked\n");
	report *r = report_new();
	CU_ASSERT_EQUAL(ci_commit_identity(r, path_in(dir, "repo"), &err), 0);
	sha_of(sha, &c[1]);
	CU_ASSERT_STRING_EQUAL(r->sha ? r->sha : "", sha);
	CU_ASSERT_STRING_EQUAL(r->branch ? r->branch : "", "main");
	CU_ASSERT_EQUAL(r->dirty, 0); /* untracked files do not count */
	CU_ASSERT_PTR_NULL(r->repo_note);
	report_free(r);
	git_repository_free(repo);
	cleanup();
}

static void identity_detached(void)
{
	const char *dir = setup();
	git_repository *repo = mk_repo(path_in(dir, "repo"));
	git_oid c[2];
	char sha[41];
	mg_err err;
	commits(repo, 2, c);
	CU_ASSERT_FATAL(git_repository_set_head_detached(repo, &c[0]) == 0);
	report *r = report_new();
	CU_ASSERT_EQUAL(ci_commit_identity(r, path_in(dir, "repo"), &err), 0);
	sha_of(sha, &c[0]);
	CU_ASSERT_STRING_EQUAL(r->sha ? r->sha : "", sha);
	CU_ASSERT_PTR_NULL(r->branch);
	/* The CI's variable names the branch of a detached checkout. */
	setenv("GITHUB_REF_NAME", "", 1); /* empty: ignored */
	setenv("BUILDKITE_BRANCH", "feature/x", 1);
	CU_ASSERT_EQUAL(ci_commit_identity(r, path_in(dir, "repo"), &err), 0);
	CU_ASSERT_STRING_EQUAL(r->branch ? r->branch : "", "feature/x");
	setenv("CI_COMMIT_REF_NAME", "gitlab-branch", 1);
	CU_ASSERT_EQUAL(ci_commit_identity(r, path_in(dir, "repo"), &err), 0);
	CU_ASSERT_STRING_EQUAL(r->branch ? r->branch : "", "gitlab-branch");
	/* A subdirectory finds the repository upwards. */
	mkdir(path_in(dir, "repo/sub"), 0755);
	CU_ASSERT_EQUAL(ci_commit_identity(r, path_in(dir, "repo/sub"), &err), 0);
	CU_ASSERT_STRING_EQUAL(r->sha ? r->sha : "", sha);
	report_free(r);
	git_repository_free(repo);
	cleanup();
}

static void identity_dirty(void)
{
	const char *dir = setup();
	git_repository *repo = mk_repo(path_in(dir, "repo"));
	git_oid c[1];
	mg_err err;
	commits(repo, 1, c);
	report *r = report_new();
	write_file(path_in(dir, "repo/file.txt"), "edited\n");
	CU_ASSERT_EQUAL(ci_commit_identity(r, path_in(dir, "repo"), &err), 0);
	CU_ASSERT_EQUAL(r->dirty, 1);
	write_file(path_in(dir, "repo/file.txt"), "change 0\n");
	CU_ASSERT_EQUAL(ci_commit_identity(r, path_in(dir, "repo"), &err), 0);
	CU_ASSERT_EQUAL(r->dirty, 0);
	/* A staged new file is a tracked change. */
	git_index *idx = NULL;
	write_file(path_in(dir, "repo/new.txt"), "new\n");
	CU_ASSERT_FATAL(git_repository_index(&idx, repo) == 0);
	CU_ASSERT_FATAL(git_index_add_bypath(idx, "new.txt") == 0);
	CU_ASSERT_FATAL(git_index_write(idx) == 0);
	git_index_free(idx);
	CU_ASSERT_EQUAL(ci_commit_identity(r, path_in(dir, "repo"), &err), 0);
	CU_ASSERT_EQUAL(r->dirty, 1);
	report_free(r);
	git_repository_free(repo);
	cleanup();
}

static void identity_not_repo(void)
{
	const char *dir = setup();
	mg_err err;
	report *r = report_new();
	r->sha = report_strdup("stale");
	CU_ASSERT_EQUAL(ci_commit_identity(r, dir, &err), 0);
	CU_ASSERT_PTR_NULL(r->sha);
	CU_ASSERT_PTR_NULL(r->branch);
	CU_ASSERT_STRING_EQUAL(r->repo_note ? r->repo_note : "", "not a git repository");
	/* An empty repository: no commit to name yet, still no failure. */
	git_repository *repo = mk_repo(path_in(dir, "empty"));
	CU_ASSERT_EQUAL(ci_commit_identity(r, path_in(dir, "empty"), &err), 0);
	CU_ASSERT_PTR_NULL(r->sha);
	CU_ASSERT_PTR_NOT_NULL(r->repo_note);
	git_repository_free(repo);
	report_free(r);
	cleanup();
}

/* ---- note and show ---- */

static void note_show_roundtrip(void)
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
static void show_as_console(void)
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

static void note_git_cli_reads(void)
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

static void note_git_cli_writes(void)
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

static void note_two_nodes(void)
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
static void note_over_note_reread(void)
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

static void note_strips_timeline(void)
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

static void note_report_sha(void)
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

/* ---- concurrent writers, foreign notes ---- */

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
static void note_concurrent_pairs(void)
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
static void note_lock_busy(void)
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

/* notes-merge retries a busy ref lock with note's backoff, then gives up
 * saying so (it failed at once with libgit2's error before). */
static void notes_merge_lock_busy(void)
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

static void note_keeps_other_schema(void)
{
	foreign_case("{\"schema\":\"memguard-report/3\",\"shards\":[{\"node\":1}]}\n",
	             "'memguard-report/3'");
}

static void note_keeps_plain_text(void)
{
	foreign_case("reviewed by hand: looks fine\n", "not a memguard report");
}

/* ---- notes-merge ---- */

/* The git CLI fetches, as the CI templates do (libgit2 1.5's anonymous remote
 * leaks pcre2 match data, which would fail the sanitizer build). */
static int fetch_notes(const char *into_dir, const char *from_dir, const char *dst_ref)
{
	return sh("git -C %s fetch -q %s +" REF ":%s", into_dir, from_dir, dst_ref);
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

static void notes_merge_converge(void)
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

static void notes_merge_missing_ref(void)
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
static void notes_fanout(void)
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

/* ---- show errors ---- */

static void show_missing(void)
{
	const char *dir = setup();
	const char *rd = path_in(dir, "repo");
	git_repository *repo = mk_repo(rd);
	git_oid c[1];
	char sh7[16];
	commits(repo, 1, c);
	run *r = run_in(rd, "show", NULL);
	CU_ASSERT_EQUAL(r->rc, 1);
	short_of(sh7, &c[0]);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->err, "no memguard note on"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->err, sh7));
	CU_ASSERT_EQUAL(run_in(rd, "show", "nosuchrev", NULL)->rc, 2);
	CU_ASSERT_EQUAL(run_in(dir, "show", NULL)->rc, 3); /* not a repository */
	git_repository_free(repo);
	cleanup();
}

static void corrupt_case(const char *content)
{
	const char *dir = setup();
	const char *rd = path_in(dir, "repo");
	git_repository *repo = mk_repo(rd);
	git_oid c[2], note_id;
	git_signature *sig = NULL;
	char sh7[16];
	commits(repo, 2, c);
	git_signature_now(&sig, "Test", "test@example.com");
	CU_ASSERT_FATAL(git_note_create(&note_id, repo, REF, sig, sig, &c[0], content, 0) == 0);
	git_signature_free(sig);
	short_of(sh7, &c[0]);
	run *r = run_in(rd, "show", "HEAD~1", NULL);
	CU_ASSERT_EQUAL(r->rc, 3);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->err, sh7));
	/* compare and log say the same; note refuses to merge into it. */
	const char *rep = save_report(mk_report(1, "x64", "s", 0, GIB, MIB, 0, 0), dir, "m.json");
	CU_ASSERT_EQUAL(run_in(rd, "note", "--commit", "HEAD", rep, NULL)->rc, 0);
	r = run_in(rd, "compare", "HEAD~1", "HEAD", NULL);
	CU_ASSERT_EQUAL(r->rc, 3);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->err, sh7));
	r = run_in(rd, "log", NULL);
	CU_ASSERT_EQUAL(r->rc, 3);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->err, sh7));
	/* note leaves the note that is not a report as it is, naming the commit. */
	r = run_in(rd, "note", "--commit", "HEAD~1", rep, NULL);
	CU_ASSERT_EQUAL(r->rc, 3);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->err, sh7));
	CU_ASSERT_PTR_NULL(strstr(r->err, "(null)"));
	git_note *gn = NULL;
	CU_ASSERT_FATAL(git_note_read(&gn, repo, REF, &c[0]) == 0);
	CU_ASSERT_STRING_EQUAL(git_note_message(gn), content);
	git_note_free(gn);
	CU_ASSERT_EQUAL(run_in(rd, "show", "HEAD~1", NULL)->rc, 3);
	git_repository_free(repo);
	cleanup();
}

static void show_corrupt_json(void)
{
	corrupt_case("this is not JSON\n");
}

static void show_corrupt_schema(void)
{
	corrupt_case("{\"schema\": \"someone-else/2\", \"shards\": []}\n");
}

/* ---- compare ---- */

/* Two commits noted with the given reports; returns the repo dir. */
static const char *two_noted(git_repository **repo_out, report *base, report *head)
{
	const char *dir = root;
	const char *rd = path_in(dir, "repo");
	git_repository *repo = mk_repo(rd);
	git_oid c[2];
	commits(repo, 2, c);
	const char *bp = save_report(base, dir, "base.json");
	CU_ASSERT_EQUAL(run_in(rd, "note", "--commit", "HEAD~1", bp, NULL)->rc, 0);
	const char *hp = save_report(head, dir, "head.json");
	CU_ASSERT_EQUAL(run_in(rd, "note", "--commit", "HEAD", hp, NULL)->rc, 0);
	*repo_out = repo;
	return rd;
}

static void compare_regression(void)
{
	git_repository *repo;
	setup();
	const char *rd =
	    two_noted(&repo, mk_report(1, "x86", "core", 0, 3 * GIB, 200 * MIB, 1, MIB),
	              mk_report(1, "x86", "core", 0, 3 * GIB + 400 * MIB, 200 * MIB, 1, MIB));
	run *r = run_in(rd, "compare", "HEAD~1", "HEAD", NULL);
	CU_ASSERT_EQUAL(r->rc, 4);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "REGRESSION"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "peak VA"));
	/* Within a looser limit it passes. */
	r = run_in(rd, "compare", "--max-growth", "va=20%", "HEAD~1", "HEAD", NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	/* An absolute limit fails it again, and json says so. */
	r = run_in(rd, "compare", "--max-growth", "va=20%,va=256M", "--format", "json", "HEAD~1",
	           "HEAD", NULL);
	CU_ASSERT_EQUAL(r->rc, 4);
	json_t *j = json_loads(r->out, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(j, "result")), "regression");
	CU_ASSERT_EQUAL(json_array_size(json_object_get(j, "exceeded")), 1);
	json_decref(j);
	git_repository_free(repo);
	cleanup();

	/* A planted per-test leak: one test now keeps 40 MiB. */
	setup();
	rd = two_noted(&repo, mk_report(1, "x64", "core", 0, GIB, 100 * MIB, 0, MIB),
	               mk_report(1, "x64", "core", 0, GIB, 100 * MIB, 0, 41 * MIB));
	r = run_in(rd, "compare", "HEAD~1", "HEAD", NULL);
	CU_ASSERT_EQUAL(r->rc, 4);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "core/t0"));
	r = run_in(rd, "compare", "--max-growth", "test=64M", "HEAD~1", "HEAD", NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	git_repository_free(repo);
	cleanup();
}

/* --max-growth sizes are run's sizes: 1MB is 1,000,000 bytes, 1MiB 1,048,576. */
static void compare_size_units(void)
{
	const char *dir = setup();
	const char *a = save_report(mk_report(1, "x64", "s", 0, GIB, GIB, 0, 0), dir, "a.json");
	const char *b =
	    save_report(mk_report(1, "x64", "s", 0, GIB, GIB + 1000001, 0, 0), dir, "b.json");
	const char *c =
	    save_report(mk_report(1, "x64", "s", 0, GIB, GIB + 1000000, 0, 0), dir, "c.json");
	const char *d =
	    save_report(mk_report(1, "x64", "s", 0, GIB, GIB + MIB + 1, 0, 0), dir, "d.json");
	static const char *const units[][2] = {{"rss=1MB", "rss=1mb"}, {"rss=1MiB", "rss=1M"}};
	for (int i = 0; i < 2; i++) {
		for (int j = 0; j < 2; j++) {
			const char *lim = units[i][j];
			/* +1,000,001 bytes: over 1MB, within 1MiB. */
			CU_ASSERT_EQUAL(run_in(dir, "compare", "--max-growth", lim, a, b, NULL)->rc,
			                i == 0 ? 4 : 0);
			/* +1,000,000 bytes: within both (a limit is exceeded above it). */
			CU_ASSERT_EQUAL(run_in(dir, "compare", "--max-growth", lim, a, c, NULL)->rc,
			                0);
			/* +1,048,577 bytes: over both. */
			CU_ASSERT_EQUAL(run_in(dir, "compare", "--max-growth", lim, a, d, NULL)->rc,
			                4);
		}
	}
	cleanup();
}

static void compare_unchanged(void)
{
	git_repository *repo;
	setup();
	const char *rd =
	    two_noted(&repo, mk_report(1, "x86", "core", 0, 3 * GIB, 200 * MIB, 1, MIB),
	              mk_report(1, "x86", "core", 0, 3 * GIB, 200 * MIB, 1, MIB));
	run *r = run_in(rd, "compare", "HEAD~1", "HEAD", NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "OK"));
	/* Smaller is never a regression. */
	git_repository_free(repo);
	cleanup();
	setup();
	rd = two_noted(&repo, mk_report(1, "x86", "core", 0, 3 * GIB, 200 * MIB, 3, 9 * MIB),
	               mk_report(1, "x86", "core", 0, 2 * GIB, 100 * MIB, 1, 0));
	CU_ASSERT_EQUAL(run_in(rd, "compare", "--max-growth", "va=0%,rss=0%,recycles=0,test=0",
	                       "HEAD~1", "HEAD", NULL)
	                    ->rc,
	                0);
	git_repository_free(repo);
	cleanup();
}

/* A report of tests that were processes of their own (ctest): each test's
 * figure is its peak VA (va_after), none is left behind. */
static report *own_report(const uint64_t *mib, size_t n)
{
	report *r = mk_report(1, "x64", "ct", 0, GIB, MIB, 0, 0);
	report_shard *s = &r->shards[0];
	free(s->driver);
	s->driver = report_strdup("ctest");
	for (size_t t = 0; t < s->ntests; t++) { /* mk_report's three, replaced */
		free(s->tests[t].name);
		free(s->tests[t].output);
	}
	s->ntests = 0;
	for (size_t i = 0; i < n; i++) {
		report_test *t = report_shard_add_test(s);
		char name[32];
		snprintf(name, sizeof(name), "ct/t%zu", i);
		t->name = report_strdup(name);
		t->state = TEST_PASS;
		t->va_after = mib[i] * MIB;
	}
	report_finish(r, 10);
	return r;
}

/* compare shows a process-per-test test by its peak VA where both sides
 * know it (t0 +100 MiB), never the one whose base is unknown (t1) nor a
 * new one (t3), and judges none of them: a sampled peak is not exact. */
static void compare_own_process(void)
{
	const char *dir = setup();
	static const uint64_t base[] = {10, 0, 20}, head[] = {110, 50, 20, 300};
	const char *a = save_report(own_report(base, 3), dir, "a.json");
	const char *b = save_report(own_report(head, 4), dir, "b.json");
	run *r = run_in(dir, "compare", a, b, NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "ct/t0"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "peak VA "));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "10.0 MiB     110 MiB  +100 MiB"));
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(r->out, "each a process of its own: its peak, shown, not judged"));
	CU_ASSERT_PTR_NULL(strstr(r->out, "ct/t1"));
	CU_ASSERT_PTR_NULL(strstr(r->out, "ct/t3"));
	CU_ASSERT_PTR_NULL(strstr(r->out, "EXCEEDED"));
	CU_ASSERT_EQUAL(run_in(dir, "compare", "--max-growth", "test=0", a, b, NULL)->rc, 0);
	/* against a base that ran them in a host (ct/t1 left 4 KiB behind
	 * there): a peak is no VA left behind, nothing to show */
	const char *host = save_report(mk_report(1, "x64", "ct", 0, GIB, MIB, 0, 0), dir, "h.json");
	r = run_in(dir, "compare", host, b, NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_PTR_NULL(strstr(r->out, "ct/t1"));
	cleanup();
}

/* A report of n lanes of one suite; lane bump's peak VA is 1 GiB higher. */
static report *lanes_report(uint32_t n, uint32_t bump)
{
	report *r = report_new();
	r->node_index = r->node_total = 1;
	for (uint32_t i = 0; i < n; i++) {
		report_shard *s = report_add_shard(r);
		s->node = 1;
		s->index = i;
		s->arch = report_strdup("x64");
		s->suite = report_strdup("wide");
		s->driver = report_strdup("native");
		s->peak_va = (i == bump ? 2 : 1) * GIB;
		s->peak_rss = 100 * MIB;
	}
	report_finish(r, 10);
	return r;
}

/* The shard table of a wide run stays readable: 60 rows at most, the
 * exceeded ones always among them (lane 35's, past the first 60 rows),
 * and how many were left out; --format json has them all. */
static void compare_shards_bounded(void)
{
	const char *dir = setup();
	const char *a = save_report(lanes_report(40, UINT32_MAX), dir, "a.json");
	const char *b = save_report(lanes_report(40, 35), dir, "b.json");
	run *r = run_in(dir, "compare", a, b, NULL);
	CU_ASSERT_EQUAL(r->rc, 4);
	/* 60 rows, and lane 35's line in the list of exceeded limits */
	CU_ASSERT_EQUAL(count_lines_with(r->out, "x64 wide node 1 #"), 61);
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(r->out, "x64 wide node 1 #35                          peak VA"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "(60 more not shown)"));
	CU_ASSERT_PTR_NULL(strstr(r->out, "x64 wide node 1 #34 "));
	r = run_in(dir, "compare", "--format", "json", a, b, NULL);
	CU_ASSERT_EQUAL(r->rc, 4);
	CU_ASSERT_EQUAL(count_lines_with(r->out, "\"name\": \"x64 wide node 1 #"), 120);
	cleanup();
}

static void compare_missing_base(void)
{
	const char *dir = setup();
	const char *rd = path_in(dir, "repo");
	git_repository *repo = mk_repo(rd);
	git_oid c[2];
	char sh7[16];
	commits(repo, 2, c);
	const char *rep = save_report(mk_report(1, "x64", "s", 0, GIB, MIB, 0, 0), dir, "m.json");
	CU_ASSERT_EQUAL(run_in(rd, "note", rep, NULL)->rc, 0);
	run *r = run_in(rd, "compare", "HEAD~1", "HEAD", NULL);
	CU_ASSERT_EQUAL(r->rc, 1);
	short_of(sh7, &c[0]);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->err, "no memguard note on BASE"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->err, sh7));
	CU_ASSERT_STRING_EQUAL(r->out, ""); /* no table pretending a comparison */
	/* and a missing HEAD note */
	r = run_in(rd, "compare", "HEAD", "HEAD~1", NULL);
	CU_ASSERT_EQUAL(r->rc, 1);
	git_repository_free(repo);

	/* A shallow clone without the merge base says so. */
	const char *side = path_in(dir, "side");
	CU_ASSERT_EQUAL_FATAL(sh("cd %s && git checkout -q -b side HEAD~1 && "
	                         "git commit -q --allow-empty -m side && git checkout -q main && "
	                         "git clone -q --depth 1 --no-single-branch file://%s %s",
	                         rd, rd, side),
	                      0);
	r = run_in(side, "compare", "origin/side", "origin/main", NULL);
	CU_ASSERT_EQUAL(r->rc, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->err, "shallow"));
	cleanup();
}

static void compare_files(void)
{
	const char *dir = setup();
	const char *a = save_report(mk_report(1, "x64", "s", 0, GIB, MIB, 0, 0), dir, "a.json");
	const char *b = save_report(mk_report(1, "x64", "s", 0, 2 * GIB, MIB, 0, 0), dir, "b.json");
	run *r = run_in(dir, "compare", a, b, NULL);
	CU_ASSERT_EQUAL(r->rc, 4);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "a.json"));
	CU_ASSERT_EQUAL(run_in(dir, "compare", b, a, NULL)->rc, 0);
	CU_ASSERT_EQUAL(run_in(dir, "compare", a, a, NULL)->rc, 0);
	/* Different sharding: node 1 of 1 against nodes 1 and 2 of 2 -> (arch, suite) totals. */
	report *two = mk_report(1, "x64", "s", 0, GIB, MIB, 0, 0);
	report *other = mk_report(2, "x64", "s", 0, GIB + 10 * MIB, MIB, 0, 0);
	mg_err err;
	CU_ASSERT_FATAL(report_merge(two, other, &err) == 0);
	report_free(other);
	const char *t = save_report(two, dir, "two.json");
	r = run_in(dir, "compare", a, t, NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "all shards"));
	/* One node compares alone against both nodes of the base: shard by shard. */
	const char *n2 =
	    save_report(mk_report(2, "x64", "s", 0, 2 * GIB, MIB, 0, 0), dir, "n2.json");
	r = run_in(dir, "compare", t, n2, NULL);
	CU_ASSERT_EQUAL(r->rc, 4); /* node 2: 1.01 GiB -> 2 GiB */
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "s node 2 #0"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "1 base shard that head did not run"));
	/* Neither a file nor a revision. */
	r = run_in(dir, "compare", a, path_in(dir, "missing.json"), NULL);
	CU_ASSERT_EQUAL(r->rc, 3); /* not a repository: cannot resolve it */
	cleanup();
}

static void compare_bad_threshold(void)
{
	const char *dir = setup();
	const char *a = save_report(mk_report(1, "x64", "s", 0, GIB, MIB, 0, 0), dir, "a.json");
	static const char *const bad[] = {
	    "va=5x", "va=5%%", "heap=5%", "va", "va=", "va=-1M", "va=5%,,rss=1M", "va=1Q", "=5%"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		run *r = run_in(dir, "compare", "--max-growth", bad[i], a, a, NULL);
		CU_ASSERT_EQUAL(r->rc, 2);
		if (strcmp(bad[i], "va=5%,,rss=1M") != 0)
			CU_ASSERT_PTR_NOT_NULL(strstr(r->err, bad[i]));
	}
	CU_ASSERT_EQUAL(run_in(dir, "compare", "--format", "xml", a, a, NULL)->rc, 2);
	CU_ASSERT_EQUAL(run_in(dir, "compare", a, NULL)->rc, 2);
	CU_ASSERT_EQUAL(run_in(dir, "compare", "--max-growth", NULL)->rc, 2);
	cleanup();
}

static void compare_markdown(void)
{
	git_repository *repo;
	setup();
	const char *rd =
	    two_noted(&repo, mk_report(1, "x86", "core", 0, 3 * GIB, 200 * MIB, 1, MIB),
	              mk_report(1, "x86", "core", 0, 3 * GIB + 400 * MIB, 200 * MIB, 1, MIB));
	run *r = run_in(rd, "compare", "--format", "markdown", "HEAD~1", "HEAD", NULL);
	CU_ASSERT_EQUAL(r->rc, 4);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "| shard | metric | base | head |"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "| --- |"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "### memguard"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, ":x:"));
	git_repository_free(repo);
	cleanup();
}

static void compare_merge_base(void)
{
	const char *dir = setup();
	const char *rd = path_in(dir, "repo");
	git_repository *repo = mk_repo(rd);
	git_oid c[2], f1;
	char sh7[16];
	commits(repo, 2, c); /* main: c0 - c1 */
	/* feature: c0 - f1 */
	commit_index(repo, "refs/heads/feature", &c[0], 1, "feature work", &f1);
	const char *base = save_report(mk_report(1, "x64", "s", 0, GIB, MIB, 0, 0), dir, "b.json");
	const char *big =
	    save_report(mk_report(1, "x64", "s", 0, 5 * GIB, MIB, 0, 0), dir, "big.json");
	CU_ASSERT_EQUAL(run_in(rd, "note", "--commit", "HEAD~1", base, NULL)->rc, 0);
	CU_ASSERT_EQUAL(run_in(rd, "note", "--commit", "main", big, NULL)->rc, 0);
	CU_ASSERT_EQUAL(run_in(rd, "note", "--commit", "feature", base, NULL)->rc, 0);
	/* compare main feature: the base is c0 (merge base), not main's 5 GiB. */
	run *r = run_in(rd, "compare", "main", "feature", NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	short_of(sh7, &c[0]);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "merge-base of main and feature"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, sh7));
	git_repository_free(repo);
	cleanup();
}

/* How many names dir holds besides . and ..; -1 when it cannot be read. */
static int dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	if (!d)
		return -1;
	for (struct dirent *e; (e = readdir(d)) != NULL;)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

static void growth_parse_case(void)
{
	growth_limits l;
	mg_err err;
	CU_ASSERT_EQUAL(growth_parse(&l, "va=5%,rss=64M,test=8M,recycles=2,va=1G", &err), 0);
	CU_ASSERT(l.has_pct[GROWTH_VA] && l.pct[GROWTH_VA] == 5);
	CU_ASSERT(l.has_abs[GROWTH_VA] && l.abs[GROWTH_VA] == GIB);
	CU_ASSERT(l.has_abs[GROWTH_RSS] && l.abs[GROWTH_RSS] == 64 * MIB);
	CU_ASSERT(!l.has_pct[GROWTH_RSS]);
	CU_ASSERT(l.has_abs[GROWTH_RECYCLES] && l.abs[GROWTH_RECYCLES] == 2);
	CU_ASSERT_EQUAL(growth_parse(&l, "none", &err), 0);
	CU_ASSERT(!l.has_pct[GROWTH_VA] && !l.has_abs[GROWTH_TEST]);
	/* Sizes are guard's grammar (limits_parse_size), as in run's limits. */
	CU_ASSERT(growth_parse(&l, "rss=1.5GiB", &err) == 0 && l.abs[GROWTH_RSS] == GIB + GIB / 2);
	CU_ASSERT(growth_parse(&l, "rss=512k", &err) == 0 && l.abs[GROWTH_RSS] == 512 * 1024);
	CU_ASSERT(growth_parse(&l, "rss=4096", &err) == 0 && l.abs[GROWTH_RSS] == 4096);
	CU_ASSERT(growth_parse(&l, "rss=8MB", &err) == 0 && l.abs[GROWTH_RSS] == 8000000);
	CU_ASSERT(growth_parse(&l, "rss=8MiB", &err) == 0 && l.abs[GROWTH_RSS] == 8 * MIB);
	CU_ASSERT(growth_parse(&l, "rss=2T", &err) == 0 && l.abs[GROWTH_RSS] == 2048 * GIB);
	CU_ASSERT(growth_parse(&l, "rss=2TB", &err) == 0 && l.abs[GROWTH_RSS] == 2000000000000ull);
	CU_ASSERT_EQUAL(growth_parse(&l, "rss=M", &err), MG_EINVAL);
	CU_ASSERT_EQUAL(growth_parse(&l, "rss=1e400", &err), MG_EINVAL);
	CU_ASSERT_EQUAL(growth_parse(&l, "rss=99999999999T", &err), MG_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "rss=99999999999T"));
	CU_ASSERT_EQUAL(growth_parse(&l, "rss=12Z", &err), MG_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "rss=12Z"));
	/* Exceeded: relative only above a base of 0, either limit fails. */
	char why[96];
	growth_parse(&l, "va=5%,test=8M", &err);
	CU_ASSERT_EQUAL(growth_exceeded(&l, GROWTH_VA, 100, 105, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(growth_exceeded(&l, GROWTH_VA, 100, 106, why, sizeof(why)), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "5%"));
	CU_ASSERT_EQUAL(growth_exceeded(&l, GROWTH_VA, 0, 1000, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(growth_exceeded(&l, GROWTH_TEST, 0, 9 * MIB, why, sizeof(why)), 1);
	CU_ASSERT_EQUAL(growth_exceeded(&l, GROWTH_TEST, 0, 8 * MIB, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(growth_exceeded(&l, GROWTH_RSS, 1, 1000000, why, sizeof(why)), 0);
}

/* ---- log ---- */

static void log_first_parent(void)
{
	const char *dir = setup();
	const char *rd = path_in(dir, "repo");
	git_repository *repo = mk_repo(rd);
	git_oid c[24], side, merge;
	char rev[32], sh7[16];
	const char *rep[3];
	for (int k = 0; k < 3; k++) {
		char name[32];
		snprintf(name, sizeof(name), "r%d.json", k);
		rep[k] = save_report(
		    mk_report(1, "x64", "s", 0, (uint64_t)(k + 1) * GIB, MIB, 0, 0), dir, name);
	}
	commits(repo, 22, c);
	/* A side branch off c[10], noted, merged into main as c[22]. */
	commit_index(repo, NULL, &c[10], 1, "side", &side);
	git_oid parents[2] = {c[21], side};
	commit_index(repo, "HEAD", parents, 2, "merge side", &merge);
	c[22] = merge;
	commits(repo, 1, &c[23]);
	/* Notes on 20 first-parent commits (not c[3], c[7]) and on the side commit. */
	int noted = 0;
	for (int i = 0; i < 24 && noted < 20; i++) {
		if (i == 3 || i == 7)
			continue;
		snprintf(rev, sizeof(rev), "HEAD~%d", 23 - i);
		CU_ASSERT_EQUAL(run_in(rd, "note", "--commit", rev, rep[i % 3], NULL)->rc, 0);
		noted++;
	}
	char side_sha[41];
	sha_of(side_sha, &side);
	CU_ASSERT_EQUAL(run_in(rd, "note", "--commit", side_sha, rep[0], NULL)->rc, 0);
	/* noted: c[0..23] minus c3, c7 and (limit 20) c[0], c[1]? No: from oldest, so c0..c21
	 * minus 3,7 = 20 commits: c0-2, c4-6, c8-21. c22 (merge) and c23 are not noted. */
	run *r = run_in(rd, "log", "-n", "20", NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_EQUAL(count_lines_with(r->out, "  VA "), 20);
	short_of(sh7, &side);
	CU_ASSERT_PTR_NULL(strstr(r->out, sh7)); /* not on the first-parent line */
	/* newest first along first parents */
	const char *prev = r->out;
	for (int i = 21; i >= 0; i--) {
		if (i == 3 || i == 7)
			continue;
		short_of(sh7, &c[i]);
		const char *at = strstr(r->out, sh7);
		CU_ASSERT_PTR_NOT_NULL(at);
		CU_ASSERT(at >= prev);
		prev = at ? at : prev;
	}
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "4 without a note skipped")); /* c23, c22, c7, c3 */
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "▁"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "█"));
	/* -n limits the lines. */
	r = run_in(rd, "log", "-n5", NULL);
	CU_ASSERT_EQUAL(count_lines_with(r->out, "  VA "), 5);
	/* A range: the noted commits after c[15] on the first-parent line: c16..c21. */
	char range[64];
	sha_of(range, &c[15]);
	strcat(range, "..HEAD");
	r = run_in(rd, "log", range, NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_EQUAL(count_lines_with(r->out, "  VA "), 6);
	CU_ASSERT_EQUAL(run_in(rd, "log", "nosuch..HEAD", NULL)->rc, 2);
	CU_ASSERT_EQUAL(run_in(rd, "log", "-n", "0", NULL)->rc, 2);
	CU_ASSERT_EQUAL(run_in(rd, "log", "-n", NULL)->rc, 2);
	git_repository_free(repo);
	cleanup();
}

static size_t count_of(const char *s, const char *what)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, what)) != NULL; p += strlen(what))
		n++;
	return n;
}

/* log --format html: a point per noted commit linked to its section, the
 * test's chart with --test, escaped names; the options it alone takes. */
static void log_html(void)
{
	const char *dir = setup();
	const char *rd = path_in(dir, "repo");
	git_repository *repo = mk_repo(rd);
	git_oid c[3];
	char sh[16], want[64];
	commits(repo, 3, c);
	report *m = mk_report(1, "x64", "<s&>", 0, GIB, MIB, 2, 3 * MIB);
	const char *rep = save_report(m, dir, "m.json");
	CU_ASSERT_EQUAL(run_in(rd, "note", "--commit", "HEAD", rep, NULL)->rc, 0);
	CU_ASSERT_EQUAL(run_in(rd, "note", "--commit", "HEAD~2", rep, NULL)->rc, 0);
	run *r = run_in(rd, "log", "--format", "html", NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_EQUAL(count_of(r->out, "<circle class=\"pt va\""), 2);
	CU_ASSERT_EQUAL(count_of(r->out, "<section class=\"commit\""), 2);
	CU_ASSERT_EQUAL(count_of(r->out, "class=\"m-recycle\""), 4); /* VA and RSS charts */
	short_of(sh, &c[2]);
	snprintf(want, sizeof(want), "<a href=\"#c-%s\"><circle", sh);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, want));
	snprintf(want, sizeof(want), "id=\"c-%s\"", sh);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, want));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "&lt;s&amp;&gt;"));
	CU_ASSERT_PTR_NULL(strstr(r->out, "<s&>"));
	CU_ASSERT_PTR_NULL(strstr(r->out, "<script"));
	r = run_in(rd, "log", "--format", "html", "--test", "<s&>/t0", "-o", "t.html", NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	int fd = open(path_in(rd, "t.html"), O_RDONLY);
	CU_ASSERT_FATAL(fd >= 0);
	static char page[1 << 16];
	ssize_t got = read(fd, page, sizeof(page) - 1);
	close(fd);
	CU_ASSERT_FATAL(got > 0);
	page[got] = '\0';
	CU_ASSERT_EQUAL(count_of(page, "<circle class=\"pt dur\""), 2);
	CU_ASSERT_EQUAL(count_of(page, "<circle class=\"pt va\""), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(page, "3.00 MiB</td>"));
	CU_ASSERT_EQUAL(run_in(rd, "log", "--test", "x", NULL)->rc, 2);
	CU_ASSERT_EQUAL(run_in(rd, "log", "-o", "x.html", NULL)->rc, 2);
	CU_ASSERT_EQUAL(
	    run_in(rd, "log", "--format", "html", "-o", path_in(dir, "no/such/p.html"), NULL)->rc,
	    2);
	git_repository_free(repo);
	cleanup();
}

static void log_formats(void)
{
	const char *dir = setup();
	const char *rd = path_in(dir, "repo");
	git_repository *repo = mk_repo(rd);
	git_oid c[3];
	commits(repo, 3, c);
	const char *rep = save_report(mk_report(1, "x64", "s", 0, GIB, MIB, 2, 0), dir, "m.json");
	CU_ASSERT_EQUAL(run_in(rd, "note", "--commit", "HEAD", rep, NULL)->rc, 0);
	CU_ASSERT_EQUAL(run_in(rd, "note", "--commit", "HEAD~2", rep, NULL)->rc, 0);
	run *r = run_in(rd, "log", "--format", "csv", NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_EQUAL(count_lines_with(r->out, "\n"), 3);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, ",1073741824,1048576,2,3,pass"));
	r = run_in(rd, "log", "--format=json", "HEAD", NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	json_t *j = json_loads(r->out, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	CU_ASSERT_EQUAL(json_array_size(json_object_get(j, "commits")), 2);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(j, "skipped")), 1);
	json_decref(j);
	CU_ASSERT_EQUAL(run_in(rd, "log", "--format", "yaml", NULL)->rc, 2);
	/* The second log reads the totals from the cache: the same lines. A cache
	 * that is garbage, or whose entries lie about other blobs, changes nothing. */
	static char first[1 << 16];
	r = run_in(rd, "log", NULL);
	snprintf(first, sizeof(first), "%s", r->out);
	struct stat st;
	CU_ASSERT_EQUAL(stat(path_in(rd, ".git/memguard/log-cache.json"), &st), 0);
	CU_ASSERT_EQUAL(dir_entries(path_in(rd, ".git/memguard")), 1); /* no temporary left */
	CU_ASSERT_STRING_EQUAL(run_in(rd, "log", NULL)->out, first);
	write_file(path_in(rd, ".git/memguard/log-cache.json"), "{not json");
	CU_ASSERT_STRING_EQUAL(run_in(rd, "log", NULL)->out, first);
	write_file(path_in(rd, ".git/memguard/log-cache.json"),
	           "{\"version\":1,\"entries\":{\"0000000000000000000000000000000000000000\":"
	           "[1,2,3,4,5,6,0]}}");
	CU_ASSERT_STRING_EQUAL(run_in(rd, "log", NULL)->out, first);
	/* A new note on HEAD~1 (a new blob) shows at once. */
	const char *big =
	    save_report(mk_report(1, "x64", "s", 0, 2 * GIB, MIB, 0, 0), dir, "b.json");
	CU_ASSERT_EQUAL(run_in(rd, "note", "--commit", "HEAD~1", big, NULL)->rc, 0);
	r = run_in(rd, "log", NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "2.00 GiB"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "3 commits with a note"));
	/* No notes at all: an empty log, not an error. */
	r = run_in(rd, "log", "--ref", "empty", NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "0 commits with a note"));
	git_repository_free(repo);
	cleanup();
}

static void merge_files(void)
{
	const char *dir = setup();
	mg_err err;
	const char *a = save_report(mk_report(1, "x64", "s", 0, GIB, MIB, 0, 0), dir, "a.json");
	const char *b = save_report(mk_report(2, "x64", "s", 0, GIB, MIB, 0, 0), dir, "b.json");
	const char *c = save_report(mk_report(2, "x86", "s", 1, GIB, MIB, 0, 0), dir, "c.json");
	const char *out = path_in(dir, "all.json");
	CU_ASSERT_EQUAL(run_in(dir, "merge", out, a, b, c, NULL)->rc, 0);
	report *r = NULL;
	CU_ASSERT_EQUAL_FATAL(report_load(&r, out, &err), 0);
	CU_ASSERT_EQUAL(r->nshards, 3);
	CU_ASSERT(note_has_shard(r, 1, "x64", 0) && note_has_shard(r, 2, "x64", 0) &&
	          note_has_shard(r, 2, "x86", 0));
	report_free(r);
	CU_ASSERT_EQUAL(run_in(dir, "merge", out, NULL)->rc, 2);
	CU_ASSERT_EQUAL(run_in(dir, "merge", out, path_in(dir, "none.json"), NULL)->rc, 2);
	cleanup();
}

/* One run of my_tests: npass passing tests, ncrash crashed, nnotrun never
 * run (the host died), over two lanes that take wall and wall/2. */
static report *mk_experiment(uint64_t peak_va, uint64_t peak_rss, int npass, int ncrash,
                             int nnotrun, uint32_t recycles, uint32_t kills, double wall)
{
	report *r = report_new();
	r->node_index = r->node_total = 1;
	r->start_time = 1790000000;
	r->wall = wall;
	for (uint32_t lane = 0; lane < 2; lane++) {
		report_shard *s = report_add_shard(r);
		s->node = 1;
		s->index = lane;
		s->arch = report_strdup("x86");
		s->suite = report_strdup("my_tests");
		s->driver = report_strdup("native");
		s->command = report_strdup("./my_tests");
		s->peak_va = lane ? peak_va / 2 : peak_va;
		s->peak_rss = lane ? peak_rss / 2 : peak_rss;
		s->recycles = lane ? 0 : recycles;
		s->kills = lane ? 0 : kills;
		s->wall = lane ? wall / 2 : wall;
		int n = npass + ncrash + nnotrun;
		for (int t = 0; t < n; t++) {
			if ((t % 2) != (int)lane)
				continue;
			report_test *rt = report_shard_add_test(s);
			char name[64];
			snprintf(name, sizeof(name), "my_tests/t%03d", t);
			rt->name = report_strdup(name);
			rt->state = t < npass            ? TEST_PASS
			            : t < npass + ncrash ? TEST_CRASH
			                                 : TEST_NOTRUN;
			rt->duration = 0.1;
		}
	}
	report_finish(r, 10);
	return r;
}

/* The experiment table: a baseline, a fix that lowers peak VA, a change
 * that crashes; every row, cell by cell, in text, Markdown and CSV. */
static void compare_table_three(void)
{
	const char *dir = setup();
	const char *a = save_report(mk_experiment(3584 * MIB, 200 * MIB, 100, 0, 0, 2, 0, 40), dir,
	                            "baseline.json");
	const char *b =
	    save_report(mk_experiment(2 * GIB, 190 * MIB, 100, 0, 0, 0, 0, 31.5), dir, "fix.json");
	const char *c = save_report(mk_experiment(4 * GIB, 210 * MIB, 40, 1, 59, 1, 1, 12.3), dir,
	                            "crash.json");
	run *r = run_in(dir, "compare", "--table", a, b, c, NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_STRING_EQUAL(r->out, "report    suite      peak VA  peak RSS  tests run  pass  "
	                               "fail  other  recycles  kills  "
	                               " wall\n"
	                               "baseline  my_tests  3.50 GiB   200 MiB    100/100   100    "
	                               " 0      0         2      0  "
	                               "40.0s\n"
	                               "fix       my_tests  2.00 GiB   190 MiB    100/100   100    "
	                               " 0      0         0      0  "
	                               "31.5s\n"
	                               "crash     my_tests  4.00 GiB   210 MiB     41/100    40    "
	                               " 1     59         1      1  "
	                               "12.3s\n");
	r = run_in(dir, "compare", "--table", "--format", "markdown", "--label", "base", "--label",
	           "fix", "--label", "crash|x", "--baseline", "1", a, b, c, NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_STRING_EQUAL(
	    r->out,
	    "| report | suite | peak VA | peak RSS | tests run | pass | fail | other | recycles | "
	    "kills | wall | vs base |\n"
	    "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n"
	    "| base | my_tests | 3.50 GiB | 200 MiB | 100/100 | 100 | 0 | 0 | 2 | 0 | 40.0s | "
	    "baseline |\n"
	    "| fix | my_tests | 2.00 GiB | 190 MiB | 100/100 | 100 | 0 | 0 | 0 | 0 | 31.5s | VA "
	    "-1.50 GiB (-42.9%), RSS -10.0 MiB (-5.0%), recycles -2 |\n"
	    "| crash\\|x | my_tests | 4.00 GiB | 210 MiB | 41/100 | 40 | 1 | 59 | 1 | 1 | 12.3s | "
	    "VA +512 MiB (+14.3%), RSS +10.0 MiB (+5.0%), run -59, pass -60, fail +1, other +59, "
	    "recycles -1, kills +1 |\n");
	r = run_in(dir, "compare", "--table", "--format=csv", "--baseline", "baseline", a, b, c,
	           NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_STRING_EQUAL(
	    r->out,
	    "report,arch,suite,peak_va,peak_rss,tests_run,tests_listed,pass,fail,other,recycles,"
	    "kills,wall_s,delta_peak_va,delta_peak_rss,delta_tests_run,delta_fail,delta_kills\n"
	    "baseline,x86,my_tests,3758096384,209715200,100,100,100,0,0,2,0,40.000,0,0,0,0,0\n"
	    "fix,x86,my_tests,2147483648,199229440,100,100,100,0,0,0,0,31.500,-1610612736,"
	    "-10485760,0,0,0\n"
	    "crash,x86,my_tests,4294967296,220200960,41,100,40,1,59,1,1,12.300,536870912,10485760,"
	    "-59,1,1\n");
	/* a report without the suite: an empty row; suites of two arches named by arch */
	const char *o = save_report(mk_report(1, "x64", "other", 0, GIB, MIB, 0, 0), dir, "o.json");
	r = run_in(dir, "compare", "--table", "--format", "csv", a, o, NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "\no,x86,my_tests,,,,,,,,,,\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "\nbaseline,x64,other,,,,,,,,,,\n"));
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(r->out, "\no,x64,other,1073741824,1048576,3,3,3,0,0,0,0,10.000\n"));
	r = run_in(dir, "compare", "--table", "--baseline", "1", a, o, NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "\nbaseline  x86 my_tests  3.50 GiB"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "\no         x64 other     1.00 GiB"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "  new\n"));
	/* errors: a baseline that names no row, an unknown format, too many labels */
	CU_ASSERT_EQUAL(run_in(dir, "compare", "--table", "--baseline", "4", a, b, c, NULL)->rc, 2);
	CU_ASSERT_EQUAL(run_in(dir, "compare", "--table", "--format", "json", a, NULL)->rc, 2);
	CU_ASSERT_EQUAL(
	    run_in(dir, "compare", "--table", "--label", "x", "--label", "y", a, NULL)->rc, 2);
	CU_ASSERT_EQUAL(run_in(dir, "compare", "--table", NULL)->rc, 2);
	cleanup();
}

/* 30 tests over the limit: the text and Markdown lists show 10, then
 * "... and 20 more"; JSON lists all 30. */
static void compare_exceeded_bounded(void)
{
	const char *dir = setup();
	report *rb = mk_experiment(GIB, MIB, 30, 0, 0, 0, 0, 1);
	report *rh = mk_experiment(GIB, MIB, 30, 0, 0, 0, 0, 1);
	for (size_t i = 0; i < rh->nshards; i++)
		for (size_t t = 0; t < rh->shards[i].ntests; t++)
			rh->shards[i].tests[t].va_delta = 16 * MIB;
	const char *b = save_report(rb, dir, "b.json"), *h = save_report(rh, dir, "h.json");
	run *r = run_in(dir, "compare", b, h, NULL);
	CU_ASSERT_EQUAL(r->rc, 4);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "REGRESSION: 30 limits exceeded:\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "\n  \xe2\x80\xa6 and 20 more\n"));
	size_t lines = 0;
	for (const char *p = strstr(r->out, "REGRESSION"); p && *p; p++)
		lines += *p == '\n';
	CU_ASSERT_EQUAL(lines, 1 + 10 + 1);
	r = run_in(dir, "compare", "--format", "markdown", b, h, NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "\n- \xe2\x80\xa6 and 20 more\n"));
	r = run_in(dir, "compare", "--format", "json", b, h, NULL);
	json_t *j = json_loads(r->out, 0, NULL);
	CU_ASSERT_EQUAL(json_array_size(json_object_get(j, "exceeded")), 30);
	json_decref(j);
	cleanup();
}

/* Revisions in the table: each one's note, labelled by its short commit. */
static void compare_table_revisions(void)
{
	const char *dir = setup();
	const char *rd = path_in(dir, "repo");
	git_repository *repo = mk_repo(rd);
	git_oid c[3];
	char sh[3][16];
	commits(repo, 3, c);
	for (int i = 0; i < 3; i++) {
		char name[32], sha[GIT_OID_HEXSZ + 1];
		snprintf(name, sizeof(name), "r%d.json", i);
		const char *rep = save_report(
		    mk_report(1, "x64", "s", 0, (uint64_t)(i + 1) * GIB, MIB, 0, 0), dir, name);
		git_oid_tostr(sha, sizeof(sha), &c[i]);
		CU_ASSERT_EQUAL(run_in(rd, "note", "--commit", sha, rep, NULL)->rc, 0);
		short_of(sh[i], &c[i]);
	}
	run *r =
	    run_in(rd, "compare", "--table", "--format", "csv", "HEAD~2", "HEAD~1", "HEAD", NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	for (int i = 0; i < 3; i++) {
		char line[128];
		snprintf(line, sizeof(line), "\n%s,x64,s,%llu,", sh[i],
		         (unsigned long long)(i + 1) * GIB);
		CU_ASSERT_PTR_NOT_NULL(strstr(r->out, line));
	}
	git_repository_free(repo);
	cleanup();
}

/* Nodes 1 and 3 of 3: merge warns naming both sets and the report records
 * the nodes present; a complete set merges without a warning. */
static void merge_partial_nodes(void)
{
	const char *dir = setup();
	mg_err err;
	report *r1 = mk_report(1, "x64", "s", 0, GIB, MIB, 0, 0);
	report *r2 = mk_report(2, "x64", "s", 0, GIB, MIB, 0, 0);
	report *r3 = mk_report(3, "x64", "s", 0, GIB, MIB, 0, 0);
	r1->node_total = r2->node_total = r3->node_total = 3;
	const char *a = save_report(r1, dir, "n1.json");
	const char *b = save_report(r2, dir, "n2.json");
	const char *c = save_report(r3, dir, "n3.json");
	const char *out = path_in(dir, "partial.json");
	run *m = run_in(dir, "merge", out, c, a, NULL);
	CU_ASSERT_EQUAL(m->rc, 0);
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(m->err, "warning: partial node set: nodes 1, 3 of 3 present, node 2 missing"));
	report *r = NULL;
	CU_ASSERT_EQUAL_FATAL(report_load(&r, out, &err), 0);
	CU_ASSERT_EQUAL_FATAL(r->nnodes_present, 2);
	CU_ASSERT_EQUAL(r->nodes_present[0], 1);
	CU_ASSERT_EQUAL(r->nodes_present[1], 3);
	CU_ASSERT_EQUAL(r->node_total, 3);
	report_free(r);
	/* a merged report merged again keeps the union; now complete */
	const char *all = path_in(dir, "all.json");
	m = run_in(dir, "merge", all, out, b, NULL);
	CU_ASSERT_EQUAL(m->rc, 0);
	CU_ASSERT_PTR_NULL(strstr(m->err, "warning"));
	CU_ASSERT_EQUAL_FATAL(report_load(&r, all, &err), 0);
	CU_ASSERT_EQUAL(r->nnodes_present, 3);
	report_free(r);
	/* one node alone of three: two missing */
	m = run_in(dir, "merge", all, b, NULL);
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(m->err, "partial node set: node 2 of 3 present, nodes 1, 3 missing"));
	cleanup();
}

static void usage(void)
{
	setup();
	static const char *const cmds[] = {"note", "show",        "compare",
	                                   "log",  "notes-merge", "merge"};
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		run *r = run_in(root, cmds[i], "-h", NULL);
		CU_ASSERT_EQUAL(r->rc, 0);
		CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "usage: memguard"));
		CU_ASSERT_PTR_NOT_NULL(strstr(r->out, cmds[i]));
		r = run_in(root, cmds[i], "--bogus", NULL);
		CU_ASSERT_EQUAL(r->rc, 2);
		CU_ASSERT_PTR_NOT_NULL(strstr(r->err, "memguard "));
	}
	CU_ASSERT_EQUAL(run_in(root, "frobnicate", NULL)->rc, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(ci_usage(), "notes-merge"));
	cleanup();
}

/* ---- defects found in review ---- */

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
static void notes_non_note_entries(void)
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
static void notes_merge_rejects_code(void)
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

/* A corrupt note on one side does not block the merge: the side that is a
 * report is kept, with a warning naming the commit, and both clones still
 * converge. */
static void notes_merge_corrupt(void)
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

/* A shallow clone (depth 2) of a repository with 5 noted commits. */
static const char *shallow_clone(git_oid *c)
{
	const char *dir = root;
	const char *da = path_in(dir, "full"), *ds = path_in(dir, "shallow");
	git_repository *a = mk_repo(da);
	commits(a, 5, c);
	for (int i = 0; i < 5; i++) {
		char rev[16], name[16];
		snprintf(rev, sizeof(rev), "HEAD~%d", 4 - i);
		snprintf(name, sizeof(name), "%d.json", i);
		const char *rep = save_report(
		    mk_report(1, "x64", "s", 0, GIB + (uint64_t)i * MIB, MIB, 0, 0), dir, name);
		CU_ASSERT_EQUAL(run_in(da, "note", "--commit", rev, rep, NULL)->rc, 0);
	}
	git_repository_free(a);
	CU_ASSERT_FATAL(sh("git clone -q --depth 2 file://%s %s", da, ds) == 0);
	CU_ASSERT_FATAL(fetch_notes(ds, da, REF) == 0);
	return ds;
}

/* log in a shallow clone: the commits it has, then where history ends. */
static void log_shallow(void)
{
	git_oid c[5];
	setup();
	const char *ds = shallow_clone(c);
	run *r = run_in(ds, "log", NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_EQUAL(count_lines_with(r->out, "  VA "), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "shallow"));
	r = run_in(ds, "log", "--format", "json", NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	json_t *j = json_loads(r->out, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	CU_ASSERT_EQUAL(json_array_size(json_object_get(j, "commits")), 2);
	CU_ASSERT(json_is_true(json_object_get(j, "shallow_boundary")));
	json_decref(j);
	cleanup();
}

/* compare HEAD~1 HEAD in a shallow clone: BASE is on HEAD's first-parent
 * line, so it is the baseline, merge base or not. */
static void compare_shallow(void)
{
	git_oid c[5];
	setup();
	const char *ds = shallow_clone(c);
	run *r = run_in(ds, "compare", "HEAD~1", "HEAD", NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "OK: within limits"));
	CU_ASSERT_EQUAL(run_in(ds, "compare", "HEAD", "HEAD", NULL)->rc, 0);
	cleanup();
}

/* Renames test t of every shard of r. */
static report *rename_test(report *r, size_t t, const char *name)
{
	for (size_t i = 0; i < r->nshards; i++) {
		free(r->shards[i].tests[t].name);
		r->shards[i].tests[t].name = report_strdup(name);
	}
	return r;
}

/* Tests of the same name in two suites are two tests, not one summed. */
static void compare_tests_by_suite(void)
{
	const char *dir = setup();
	mg_err err;
	/* Base: a/t leaked 100 MiB, b/t none; head: the other way round. */
	report *base = rename_test(mk_report(1, "x64", "a", 0, GIB, MIB, 0, 100 * MIB), 0, "t");
	report *bb = rename_test(mk_report(1, "x64", "b", 0, GIB, MIB, 0, 0), 0, "t");
	report *head = rename_test(mk_report(1, "x64", "a", 0, GIB, MIB, 0, 0), 0, "t");
	report *hb = rename_test(mk_report(1, "x64", "b", 0, GIB, MIB, 0, 100 * MIB), 0, "t");
	CU_ASSERT_FATAL(report_merge(base, bb, &err) == 0 && report_merge(head, hb, &err) == 0);
	report_free(bb);
	report_free(hb);
	const char *bp = save_report(base, dir, "base.json");
	const char *hp = save_report(head, dir, "head.json");
	run *r = run_in(dir, "compare", bp, hp, NULL);
	CU_ASSERT_EQUAL(r->rc, 4);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "t (b)"));
	CU_ASSERT_PTR_NULL(strstr(r->out, "t (a)"));
	cleanup();
}

/* Retained VA summed over shards saturates instead of wrapping negative. */
static void compare_saturates(void)
{
	const char *dir = setup();
	report *base = mk_report(1, "x64", "s", 0, GIB, MIB, 0, 0);
	report *head = mk_report(1, "x64", "s", 0, GIB, MIB, 0, INT64_MAX - 8192);
	const char *bp = save_report(base, dir, "base.json");
	const char *hp = save_report(head, dir, "head.json");
	/* Node 2 ran the same tests: its shard added to the file by hand, since
	 * report_merge would overflow summing the suspects (adapters/report.c). */
	json_t *hj = json_load_file(hp, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(hj);
	json_t *sh2 = json_deep_copy(json_array_get(json_object_get(hj, "shards"), 0));
	json_object_set_new(sh2, "node", json_integer(2));
	json_array_append_new(json_object_get(hj, "shards"), sh2);
	CU_ASSERT_FATAL(json_dump_file(hj, hp, 0) == 0);
	json_decref(hj);
	run *r = run_in(dir, "compare", "--format", "json", bp, hp, NULL);
	CU_ASSERT_EQUAL(r->rc, 4);
	json_t *j = json_loads(r->out, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	json_t *t0 = json_array_get(json_object_get(j, "tests"), 0);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(t0, "name")), "s/t0");
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(t0, "head")), INT64_MAX);
	CU_ASSERT(json_integer_value(json_object_get(t0, "delta")) > 0);
	json_decref(j);
	cleanup();
}

/* Labels cut at their size end on a character boundary: JSON keeps every
 * name, and the exceeded lines. */
static void compare_utf8_labels(void)
{
	const char *dir = setup();
	char suite[400] = "x"; /* labels cut at 159 bytes fall inside an "é" */
	for (int i = 0; i < 99; i++)
		strcat(suite, i % 2 ? "é" : "€"); /* 2- and 3-byte characters */
	const char *bp = save_report(mk_report(1, "x64", suite, 0, GIB, MIB, 0, 0), dir, "b.json");
	const char *hp =
	    save_report(mk_report(1, "x64", suite, 0, 2 * GIB, MIB, 0, 64 * MIB), dir, "h.json");
	run *r = run_in(dir, "compare", "--format", "json", bp, hp, NULL);
	CU_ASSERT_EQUAL(r->rc, 4);
	json_t *j = json_loads(r->out, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	const char *sets[] = {"shards", "tests"};
	for (int k = 0; k < 2; k++) {
		json_t *a = json_object_get(j, sets[k]);
		CU_ASSERT(json_array_size(a) > 0);
		for (size_t i = 0; i < json_array_size(a); i++) {
			const char *name =
			    json_string_value(json_object_get(json_array_get(a, i), "name"));
			CU_ASSERT_PTR_NOT_NULL(name);
			CU_ASSERT(name && strlen(name) > 100 && strlen(name) < 160);
		}
	}
	json_t *exc = json_object_get(j, "exceeded");
	CU_ASSERT(json_array_size(exc) >= 2);
	for (size_t i = 0; i < json_array_size(exc); i++)
		CU_ASSERT_PTR_NOT_NULL(json_string_value(json_array_get(exc, i)));
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(j, "result")), "regression");
	json_decref(j);
	cleanup();
}

static const mg_case cases[] = {
    {"identity_plain", identity_plain},
    {"identity_detached", identity_detached},
    {"identity_dirty", identity_dirty},
    {"identity_not_repo", identity_not_repo},
    {"note_show_roundtrip", note_show_roundtrip},
    {"note_git_cli_reads", note_git_cli_reads},
    {"note_git_cli_writes", note_git_cli_writes},
    {"note_two_nodes", note_two_nodes},
    {"show_as_console", show_as_console},
    {"note_over_note_reread", note_over_note_reread},
    {"note_strips_timeline", note_strips_timeline},
    {"note_report_sha", note_report_sha},
    {"note_concurrent_pairs", note_concurrent_pairs},
    {"note_keeps_other_schema", note_keeps_other_schema},
    {"note_keeps_plain_text", note_keeps_plain_text},
    {"note_lock_busy", note_lock_busy},
    {"notes_merge_lock_busy", notes_merge_lock_busy},
    {"notes_merge_converge", notes_merge_converge},
    {"notes_merge_missing_ref", notes_merge_missing_ref},
    {"notes_fanout", notes_fanout},
    {"show_missing", show_missing},
    {"show_corrupt_json", show_corrupt_json},
    {"show_corrupt_schema", show_corrupt_schema},
    {"compare_regression", compare_regression},
    {"compare_unchanged", compare_unchanged},
    {"compare_own_process", compare_own_process},
    {"compare_shards_bounded", compare_shards_bounded},
    {"compare_missing_base", compare_missing_base},
    {"compare_files", compare_files},
    {"compare_bad_threshold", compare_bad_threshold},
    {"compare_markdown", compare_markdown},
    {"compare_merge_base", compare_merge_base},
    {"growth_parse", growth_parse_case},
    {"compare_size_units", compare_size_units},
    {"log_first_parent", log_first_parent},
    {"log_formats", log_formats},
    {"merge_files", merge_files},
    {"merge_partial_nodes", merge_partial_nodes},
    {"log_html", log_html},
    {"compare_table_three", compare_table_three},
    {"compare_exceeded_bounded", compare_exceeded_bounded},
    {"compare_table_revisions", compare_table_revisions},
    {"usage", usage},
    {"notes_non_note_entries", notes_non_note_entries},
    {"notes_merge_rejects_code", notes_merge_rejects_code},
    {"notes_merge_corrupt", notes_merge_corrupt},
    {"log_shallow", log_shallow},
    {"compare_shallow", compare_shallow},
    {"compare_tests_by_suite", compare_tests_by_suite},
    {"compare_saturates", compare_saturates},
    {"compare_utf8_labels", compare_utf8_labels},
};

MG_TEST_MAIN("ci", cases)

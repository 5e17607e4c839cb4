/*
 * test_ci.c - the ci commands against real temporary repositories built
 * with libgit2 under a mkdtemp directory; the git CLI is used only to check
 * that git itself reads and writes the same notes. Commands run through
 * ci_main with stdout and stderr captured. This file holds the helpers and
 * the table of cases; the cases are in one file per command:
 * test_ci_identity.c, test_ci_note.c (note and show), test_ci_notes_merge.c,
 * test_ci_show.c (show's errors), test_ci_compare.c, test_ci_log.c,
 * test_ci_merge.c.
 */
#include "test_ci.h"
#include "adapters.h"
#include "ci.h"
#include "ci_int.h"
#include "mg_test.h"
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

/* ---- temporary directories, each case's own ---- */

char root[256];
char home_cwd[4096];

int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void cleanup(void)
{
	if (home_cwd[0] && chdir(home_cwd) != 0)
		perror("chdir");
	if (root[0])
		nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	root[0] = '\0';
	git_libgit2_shutdown();
}

/* A fresh root directory; every path below lives in it. */
const char *setup(void)
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

char *path_in(const char *dir, const char *name)
{
	static char buf[64][512]; /* a ring: a case keeps at most 64 paths alive */
	static int next;
	char tmp[512];
	char *p = buf[next++ % 64];
	snprintf(tmp, sizeof(tmp), "%s/%s", dir, name); /* dir may be an older slot */
	memcpy(p, tmp, sizeof(tmp));
	return p;
}

void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
}

/* ---- repositories ---- */

git_time_t clock_now = 1790000000;

git_repository *mk_repo(const char *dir)
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
void commit_index(git_repository *repo, const char *update_ref, const git_oid *parent_ids,
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
void commit_file(git_repository *repo, const char *name, const char *content, git_oid *out)
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

void commits(git_repository *repo, int n, git_oid *out)
{
	char content[64];
	for (int i = 0; i < n; i++) {
		snprintf(content, sizeof(content), "change %d\n", i);
		commit_file(repo, "file.txt", content, &out[i]);
	}
}

void sha_of(char buf[GIT_OID_HEXSZ + 1], const git_oid *id)
{
	git_oid_tostr(buf, GIT_OID_HEXSZ + 1, id);
}

void short_of(char buf[16], const git_oid *id)
{
	git_oid_tostr(buf, 8, id);
}

/* ---- reports ---- */

/* One shard with three tests; suite/t0 leaves leak bytes of VA behind. */
report *mk_report(uint32_t node, const char *arch, const char *suite, uint32_t index,
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
		rt->output = report_bytes_new("captured output that notes must drop", 36);
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

const char *save_report(report *r, const char *dir, const char *name)
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
report *read_note(git_repository *repo, const char *ref, const git_oid *target)
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

int note_has_shard(const report *r, uint32_t node, const char *arch, uint64_t peak_va)
{
	for (size_t i = 0; r && i < r->nshards; i++)
		if (r->shards[i].node == node && strcmp(r->shards[i].arch, arch) == 0 &&
		    (peak_va == 0 || r->shards[i].peak_va == peak_va))
			return 1;
	return 0;
}

void slurp(int fd, char *buf, size_t size)
{
	ssize_t n = pread(fd, buf, size - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
}

/* ci_main(cmd, argv = {cmd, args..., NULL}) in dir with stdout/stderr captured. */
run *run_in(const char *dir, const char *cmd, ...)
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

int sh(const char *fmt, ...)
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

size_t count_lines_with(const char *text, const char *needle)
{
	size_t n = 0;
	for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

/* ---- notes-merge ---- */

/* The git CLI fetches, as the CI templates do (libgit2 1.5's anonymous remote
 * leaks pcre2 match data, which would fail the sanitizer build). */
int fetch_notes(const char *into_dir, const char *from_dir, const char *dst_ref)
{
	return sh("git -C %s fetch -q %s +" REF ":%s", into_dir, from_dir, dst_ref);
}

void usage(void)
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

/* A shallow clone (depth 2) of a repository with 5 noted commits. */
const char *shallow_clone(git_oid *c)
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

static const mg_case cases[] = {
    {"gate_lanes_by_key", gate_lanes_by_key},
    {"gate_process_peaks", gate_process_peaks},
    {"gate_history_band", gate_history_band},
    {"gate_near_ceiling", gate_near_ceiling},
    {"identity_plain", identity_plain},
    {"identity_detached", identity_detached},
    {"identity_dirty", identity_dirty},
    {"identity_not_repo", identity_not_repo},
    {"identity_bare_worktree", identity_bare_worktree},
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
    {"notes_merge_ff_corrupt", notes_merge_ff_corrupt},
    {"log_shallow", log_shallow},
    {"compare_shallow", compare_shallow},
    {"compare_tests_by_suite", compare_tests_by_suite},
    {"compare_saturates", compare_saturates},
    {"compare_utf8_labels", compare_utf8_labels},
};

MG_TEST_MAIN("ci", cases)

/*
 * test_ci_identity.c - the commit identity a report is noted under
 * (plain, detached, dirty, not a repository).
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

void identity_plain(void)
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

void identity_detached(void)
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

void identity_dirty(void)
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

void identity_not_repo(void)
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

/*
 * Where libgit2 finds a repository, so does the look that spares a run
 * loading libgit2 outside one (identity.c's repo_may_hold): inside a bare
 * repository, made by the git CLI, and in a linked worktree, whose .git
 * is a file.
 */
void identity_bare_worktree(void)
{
	const char *dir = setup();
	git_repository *repo = mk_repo(path_in(dir, "repo"));
	git_oid c[1];
	char sha[41];
	mg_err err;
	commits(repo, 1, c);
	sha_of(sha, &c[0]);
	CU_ASSERT_FATAL(sh("cd '%s' && git clone -q --bare repo bare.git && "
	                   "git -C repo worktree add -q --detach ../wt",
	                   dir) == 0);
	static const char *const where[] = {"bare.git", "bare.git/refs", "wt"};
	for (size_t i = 0; i < 3; i++) {
		report *r = report_new();
		CU_ASSERT_EQUAL(ci_commit_identity(r, path_in(dir, where[i]), &err), 0);
		CU_ASSERT_STRING_EQUAL(r->sha ? r->sha : "", sha);
		CU_ASSERT_PTR_NULL(r->repo_note);
		report_free(r);
	}
	git_repository_free(repo);
	cleanup();
}

/*
 * identity.c - the commit a report belongs to: sha, branch and dirty state
 * through libgit2. Outside a repository it records why and still succeeds:
 * a report must never be lost because git is not there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ci_int.h"

/* CI variables naming the branch of a detached checkout, most specific first. */
static const char *const branch_env[] = {
    "GITHUB_HEAD_REF",        /* GitHub Actions, pull requests only */
    "GITHUB_REF_NAME",        /* GitHub Actions */
    "CI_COMMIT_REF_NAME",     /* GitLab CI */
    "BUILD_SOURCEBRANCHNAME", /* Azure Pipelines */
    "BUILDKITE_BRANCH",       /* Buildkite */
    "BRANCH_NAME",            /* Jenkins (multibranch), TeamCity when exported */
};

static char *branch_from_env(void)
{
	for (size_t i = 0; i < sizeof(branch_env) / sizeof(branch_env[0]); i++) {
		const char *v = getenv(branch_env[i]);
		if (v && *v)
			return report_strdup(v);
	}
	return NULL;
}

/* Tracked changes in the index or the worktree; untracked files do not count. */
static int is_dirty(git_repository *repo, int *dirty, mg_err *err)
{
	git_status_options opts;
	git_status_list *list = NULL;
	*dirty = 0;
	if (git_repository_is_bare(repo))
		return 0;
	if (git_status_options_init(&opts, GIT_STATUS_OPTIONS_VERSION) < 0)
		return store_git_fail(err, "cannot read the worktree status");
	opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
	opts.flags = GIT_STATUS_OPT_EXCLUDE_SUBMODULES; /* no untracked, no ignored */
	if (git_status_list_new(&list, repo, &opts) < 0)
		return store_git_fail(err, "cannot read the worktree status");
	size_t n = git_status_list_entrycount(list);
	for (size_t i = 0; i < n; i++) {
		const git_status_entry *e = git_status_byindex(list, i);
		if (e->status != GIT_STATUS_CURRENT && !(e->status & GIT_STATUS_IGNORED) &&
		    e->status != GIT_STATUS_WT_NEW) {
			*dirty = 1;
			break;
		}
	}
	git_status_list_free(list);
	return 0;
}

/*
 * Whether a repository may hold dir: some directory from it up to the root
 * has a .git of any kind (a repository's, a worktree's or a submodule's
 * file), or a HEAD (dir inside a bare repository or a git directory). When
 * not, libgit2 (git_repository_open_ext with no flags: GIT_DIR is not read)
 * would find none, and is not loaded: its dlopen and its dependencies'
 * start-up (libcrypto, mbedtls, krb5 and more) were ~18 ms of CPU a run.
 * A path that cannot be resolved may.
 */
static int repo_may_hold(const char *dir)
{
	char *path = realpath(dir, NULL);
	if (!path)
		return 1;
	static const char *const names[] = {".git", "HEAD"};
	size_t n = strlen(path), cap = n + sizeof("/.git");
	char *probe = malloc(cap);
	int found = !probe;
	struct stat st;
	while (!found) {
		/* path[0..n) is the directory: "/" itself has n 1, else no slash after */
		for (size_t i = 0; i < 2 && !found; i++) {
			snprintf(probe, cap, "%.*s/%s", n > 1 ? (int)n : 0, path, names[i]);
			found = lstat(probe, &st) == 0;
		}
		if (n <= 1)
			break;
		while (n > 1 && path[n - 1] != '/')
			n--;
		if (n > 1)
			n--; /* the parent, without its trailing slash */
	}
	free(probe);
	free(path);
	return found;
}

int ci_commit_identity(report *r, const char *dir, mg_err *err)
{
	git_repository *repo = NULL;
	git_reference *head = NULL;
	git_oid id;
	char sha[GIT_OID_HEXSZ + 1];
	int rc = 0;

	free(r->sha);
	free(r->branch);
	free(r->repo_note);
	r->sha = r->branch = r->repo_note = NULL;
	r->dirty = 0;
	if (!repo_may_hold(dir ? dir : ".")) {
		r->repo_note = report_strdup("not a git repository");
		return 0;
	}
	if (ci_git_load(err) < 0)
		return MG_ERROR;
	if (git_libgit2_init() < 0)
		return mg_err_set(err, MG_ERROR, "cannot initialise libgit2");

	int grc = git_repository_open_ext(&repo, dir ? dir : ".", 0, NULL);
	if (grc == GIT_ENOTFOUND) {
		r->repo_note = report_strdup("not a git repository");
		goto out;
	}
	if (grc < 0) {
		rc = store_git_fail(err, "cannot open the repository");
		goto out;
	}
	grc = git_repository_head(&head, repo);
	if (grc == GIT_EUNBORNBRANCH || grc == GIT_ENOTFOUND) {
		r->repo_note = report_strdup("no commit yet (unborn HEAD)");
		goto out;
	}
	if (grc < 0) {
		rc = store_git_fail(err, "cannot read HEAD");
		goto out;
	}
	if (git_reference_name_to_id(&id, repo, "HEAD") < 0) {
		rc = store_git_fail(err, "cannot resolve HEAD");
		goto out;
	}
	git_oid_tostr(sha, sizeof(sha), &id);
	r->sha = report_strdup(sha);
	if (git_reference_is_branch(head))
		r->branch = report_strdup(git_reference_shorthand(head));
	else
		r->branch = branch_from_env();
	rc = is_dirty(repo, &r->dirty, err);
out:
	git_reference_free(head);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return rc;
}

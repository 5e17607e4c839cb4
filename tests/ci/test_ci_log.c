/*
 * test_ci_log.c - log: first parents, formats (html included), shallow
 * clones.
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

void log_first_parent(void)
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
void log_html(void)
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

void log_formats(void)
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

/* log in a shallow clone: the commits it has, then where history ends. */
void log_shallow(void)
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

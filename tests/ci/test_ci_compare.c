/*
 * test_ci_compare.c - compare: regressions and thresholds, files and
 * revisions, shards and tests matched by what they are, its formats.
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

void compare_regression(void)
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
void compare_size_units(void)
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

void compare_unchanged(void)
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

/* compare judges a process-per-test test by its peak VA where both sides
 * know it (t0 +100 MiB: a test growing from 3.4 to 43 MiB under ctest once
 * passed the gate), never the one whose base is unknown (t1) nor a new one
 * (t3); the shard's own peak is memguard's shim's, never shown (issue 23). */
void compare_own_process(void)
{
	const char *dir = setup();
	static const uint64_t base[] = {10, 0, 20}, head[] = {110, 50, 20, 300};
	const char *a = save_report(own_report(base, 3), dir, "a.json");
	const char *b = save_report(own_report(head, 4), dir, "b.json");
	run *r = run_in(dir, "compare", a, b, NULL);
	CU_ASSERT_EQUAL(r->rc, 4);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "ct/t0"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "peak VA "));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "10.0 MiB     110 MiB  +100 MiB"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "a process of its own: its peak VA"));
	CU_ASSERT_PTR_NULL(strstr(r->out, "ct/t1"));
	CU_ASSERT_PTR_NULL(strstr(r->out, "ct/t3"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "ct/t0 peak VA: +100 MiB > 4.00 MiB"));
	CU_ASSERT_PTR_NULL(strstr(r->out, "1.00 GiB")); /* the shim's peak */
	CU_ASSERT_EQUAL(run_in(dir, "compare", "--max-growth", "test=128M", a, b, NULL)->rc, 0);
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

/* A wide run's lanes are one group, (node, arch, suite), never matched by
 * lane index: lanes share one queue, so which lane got which test (and its
 * peak) differs run to run. Lane 35's peak 1 GiB higher is shown, not
 * judged; with one lane on each side it is judged (issue 23). */
void compare_shards_bounded(void)
{
	const char *dir = setup();
	const char *a = save_report(lanes_report(40, UINT32_MAX), dir, "a.json");
	const char *b = save_report(lanes_report(40, 35), dir, "b.json");
	run *r = run_in(dir, "compare", a, b, NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_EQUAL(count_lines_with(r->out, "x64 wide node 1 "), 5);
	CU_ASSERT_PTR_NULL(strstr(r->out, "#35"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "+1.00 GiB (+100.0%)  lanes: not judged"));
	r = run_in(dir, "compare", "--format", "json", a, b, NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_EQUAL(count_lines_with(r->out, "\"judged\": false"), 3);
	const char *c = save_report(lanes_report(1, UINT32_MAX), dir, "c.json");
	const char *d = save_report(lanes_report(1, 0), dir, "d.json");
	r = run_in(dir, "compare", c, d, NULL);
	CU_ASSERT_EQUAL(r->rc, 4);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "x64 wide node 1 peak VA: +100.0% > 5%"));
	cleanup();
}

void compare_missing_base(void)
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

void compare_files(void)
{
	const char *dir = setup();
	const char *a = save_report(mk_report(1, "x64", "s", 0, GIB, MIB, 0, 0), dir, "a.json");
	const char *b = save_report(mk_report(1, "x64", "s", 0, 2 * GIB, MIB, 0, 0), dir, "b.json");
	run *r = run_in(dir, "compare", a, b, NULL);
	CU_ASSERT_EQUAL(r->rc, 4);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "a.json"));
	CU_ASSERT_EQUAL(run_in(dir, "compare", b, a, NULL)->rc, 0);
	CU_ASSERT_EQUAL(run_in(dir, "compare", a, a, NULL)->rc, 0);
	/* Node 1 of 1 against nodes 1 and 2 of 2: node 1 to node 1, node 2 new. */
	report *two = mk_report(1, "x64", "s", 0, GIB, MIB, 0, 0);
	report *other = mk_report(2, "x64", "s", 0, GIB + 10 * MIB, MIB, 0, 0);
	mg_err err;
	CU_ASSERT_FATAL(report_merge(two, other, &err) == 0);
	report_free(other);
	const char *t = save_report(two, dir, "two.json");
	r = run_in(dir, "compare", a, t, NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "x64 s node 2 "));
	/* One node compares alone against both nodes of the base: shard by shard. */
	const char *n2 =
	    save_report(mk_report(2, "x64", "s", 0, 2 * GIB, MIB, 0, 0), dir, "n2.json");
	r = run_in(dir, "compare", t, n2, NULL);
	CU_ASSERT_EQUAL(r->rc, 4); /* node 2: 1.01 GiB -> 2 GiB */
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "x64 s node 2 "));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "1 base shard that head did not run"));
	/* Neither a file nor a revision. */
	r = run_in(dir, "compare", a, path_in(dir, "missing.json"), NULL);
	CU_ASSERT_EQUAL(r->rc, 3); /* not a repository: cannot resolve it */
	cleanup();
}

void compare_bad_threshold(void)
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

void compare_markdown(void)
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

void compare_merge_base(void)
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

void growth_parse_case(void)
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
void compare_table_three(void)
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
void compare_exceeded_bounded(void)
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
	/* 30 tests, and the suite's retained VA (+480 MiB) */
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "REGRESSION: 31 limits exceeded:\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "\n  \xe2\x80\xa6 and 21 more\n"));
	size_t lines = 0;
	for (const char *p = strstr(r->out, "REGRESSION"); p && *p; p++)
		lines += *p == '\n';
	CU_ASSERT_EQUAL(lines, 1 + 10 + 1);
	r = run_in(dir, "compare", "--format", "markdown", b, h, NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "\n- \xe2\x80\xa6 and 21 more\n"));
	r = run_in(dir, "compare", "--format", "json", b, h, NULL);
	json_t *j = json_loads(r->out, 0, NULL);
	CU_ASSERT_EQUAL(json_array_size(json_object_get(j, "exceeded")), 31);
	json_decref(j);
	cleanup();
}

/* Revisions in the table: each one's note, labelled by its short commit. */
void compare_table_revisions(void)
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

/* compare HEAD~1 HEAD in a shallow clone: BASE is on HEAD's first-parent
 * line, so it is the baseline, merge base or not. A commit the clone does
 * not hold, named by its full id: show finds its note, and compare against
 * it says there is no baseline here, exit 1 (before: "unknown revision",
 * exit 2, though git notes show printed it). */
void compare_shallow(void)
{
	git_oid c[5];
	setup();
	const char *ds = shallow_clone(c);
	run *r = run_in(ds, "compare", "HEAD~1", "HEAD", NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, "OK: within limits"));
	CU_ASSERT_EQUAL(run_in(ds, "compare", "HEAD", "HEAD", NULL)->rc, 0);
	char old[GIT_OID_HEXSZ + 1];
	git_oid_tostr(old, sizeof(old), &c[0]);
	r = run_in(ds, "show", old, NULL);
	CU_ASSERT_EQUAL(r->rc, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->out, old));
	r = run_in(ds, "compare", old, "HEAD", NULL);
	CU_ASSERT_EQUAL(r->rc, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->err, "shallow"));
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
void compare_tests_by_suite(void)
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
void compare_saturates(void)
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
void compare_utf8_labels(void)
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

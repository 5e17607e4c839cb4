/*
 * test_report.c - the report model: JSON round trip, load errors, atomic
 * save, merge, finish (counts and suspects), size and duration formatting,
 * and the adapter registry's spec checks.
 * Long on purpose: one case after another, each on its own.
 */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "adapters.h"
#include "fixture.h"
#include "mg_test.h"
#include "report.h"

static char tmpdir[256];

static void make_tmpdir(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "%s/mg_adapters_XXXXXX",
	         getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	CU_ASSERT_FATAL(mkdtemp(tmpdir) != NULL);
}

static void path_in(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", tmpdir, name);
}

static void cleanup_tmpdir(void)
{
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	CU_ASSERT(system(cmd) == 0);
}

static int file_exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0;
}

/* Equality with strings compared after UTF-8 sanitising (what JSON keeps). */
static int str_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	char *sa = report_utf8_sanitize(a, NULL);
	char *sb = report_utf8_sanitize(b, NULL);
	int eq = strcmp(sa, sb) == 0;
	free(sa);
	free(sb);
	return eq;
}

static void assert_reports_equal(const report *a, const report *b)
{
	CU_ASSERT(str_eq(a->tool_version, b->tool_version));
	CU_ASSERT(str_eq(a->sha, b->sha));
	CU_ASSERT(str_eq(a->branch, b->branch));
	CU_ASSERT(str_eq(a->repo_note, b->repo_note));
	CU_ASSERT_EQUAL(a->dirty, b->dirty);
	CU_ASSERT_EQUAL(a->node_index, b->node_index);
	CU_ASSERT_EQUAL(a->node_total, b->node_total);
	CU_ASSERT(str_eq(a->limits_soft, b->limits_soft));
	CU_ASSERT(str_eq(a->limits_hard, b->limits_hard));
	CU_ASSERT_EQUAL(a->has_limit_bytes, b->has_limit_bytes);
	CU_ASSERT(memcmp(&a->soft, &b->soft, sizeof(a->soft)) == 0);
	CU_ASSERT(memcmp(&a->hard, &b->hard, sizeof(a->hard)) == 0);
	CU_ASSERT(a->start_time == b->start_time);
	CU_ASSERT(a->wall == b->wall);
	CU_ASSERT_EQUAL(a->interrupted, b->interrupted);
	CU_ASSERT_EQUAL(a->exit_code, b->exit_code);
	CU_ASSERT_EQUAL_FATAL(a->nshards, b->nshards);
	for (size_t i = 0; i < a->nshards; i++) {
		const report_shard *x = &a->shards[i], *y = &b->shards[i];
		CU_ASSERT_EQUAL(x->node, y->node);
		CU_ASSERT_EQUAL(x->index, y->index);
		CU_ASSERT(str_eq(x->suite, y->suite));
		CU_ASSERT(str_eq(x->arch, y->arch));
		CU_ASSERT(str_eq(x->driver, y->driver));
		CU_ASSERT(str_eq(x->command, y->command));
		CU_ASSERT(memcmp(x->counts, y->counts, sizeof(x->counts)) == 0);
		CU_ASSERT_EQUAL(x->peak_va, y->peak_va);
		CU_ASSERT_EQUAL(x->peak_rss, y->peak_rss);
		CU_ASSERT_EQUAL(x->rss_soft, y->rss_soft);
		CU_ASSERT_EQUAL(x->rss_hard, y->rss_hard);
		CU_ASSERT_EQUAL(x->recycles, y->recycles);
		CU_ASSERT_EQUAL(x->kills, y->kills);
		CU_ASSERT(x->wall == y->wall && x->user == y->user && x->sys == y->sys);
		CU_ASSERT_EQUAL_FATAL(x->ngens, y->ngens);
		for (size_t g = 0; g < x->ngens; g++) {
			const report_generation *p = &x->gens[g], *q = &y->gens[g];
			CU_ASSERT(p->index == q->index && p->pid == q->pid &&
			          p->tests_run == q->tests_run && p->peak_va == q->peak_va &&
			          p->peak_rss == q->peak_rss && p->start == q->start &&
			          p->wall == q->wall);
			CU_ASSERT(str_eq(p->end, q->end));
			CU_ASSERT(str_eq(p->reason, q->reason));
			CU_ASSERT_EQUAL_FATAL(p->nbreakdowns, q->nbreakdowns);
			for (size_t k = 0; k < p->nbreakdowns; k++) {
				const report_breakdown *u = &p->breakdowns[k],
				                       *v = &q->breakdowns[k];
				CU_ASSERT(str_eq(u->when, v->when));
				CU_ASSERT(u->va == v->va && u->largest_gap == v->largest_gap);
				CU_ASSERT_EQUAL_FATAL(u->ncategories, v->ncategories);
				for (size_t c = 0; c < u->ncategories; c++) {
					CU_ASSERT(
					    str_eq(u->categories[c].name, v->categories[c].name));
					CU_ASSERT(u->categories[c].va == v->categories[c].va);
					CU_ASSERT(u->categories[c].rss == v->categories[c].rss);
				}
				CU_ASSERT_EQUAL_FATAL(u->ngroups, v->ngroups);
				for (size_t c = 0; c < u->ngroups; c++) {
					CU_ASSERT(str_eq(u->groups[c].name, v->groups[c].name));
					CU_ASSERT(u->groups[c].count == v->groups[c].count &&
					          u->groups[c].size == v->groups[c].size &&
					          u->groups[c].total == v->groups[c].total);
				}
			}
		}
		CU_ASSERT_EQUAL_FATAL(x->ntests, y->ntests);
		for (size_t t = 0; t < x->ntests; t++) {
			const report_test *p = &x->tests[t], *q = &y->tests[t];
			CU_ASSERT(str_eq(p->name, q->name));
			CU_ASSERT(str_eq(p->message, q->message));
			CU_ASSERT(str_eq(p->output, q->output));
			CU_ASSERT(p->state == q->state && p->generation == q->generation &&
			          p->attempts == q->attempts && p->duration == q->duration &&
			          p->va_after == q->va_after && p->rss_after == q->rss_after &&
			          p->va_delta == q->va_delta && p->rss_delta == q->rss_delta);
		}
		CU_ASSERT_EQUAL_FATAL(x->ntimeline, y->ntimeline);
		for (size_t t = 0; t < x->ntimeline; t++)
			CU_ASSERT(x->timeline[t].t == y->timeline[t].t &&
			          x->timeline[t].va == y->timeline[t].va &&
			          x->timeline[t].rss == y->timeline[t].rss &&
			          x->timeline[t].generation == y->timeline[t].generation);
	}
	CU_ASSERT_EQUAL_FATAL(a->nsuspects, b->nsuspects);
	for (size_t i = 0; i < a->nsuspects; i++) {
		const report_suspect *p = &a->suspects[i], *q = &b->suspects[i];
		CU_ASSERT(str_eq(p->name, q->name));
		CU_ASSERT(p->va_retained == q->va_retained && p->rss_retained == q->rss_retained &&
		          p->grew == q->grew && p->runs == q->runs &&
		          p->alone_over_hard == q->alone_over_hard);
	}
}

static void test_roundtrip(void)
{
	make_tmpdir();
	char path[512];
	path_in(path, sizeof(path), "r.json");
	report *r = fixture_full_report();
	CU_ASSERT_FATAL(r->nsuspects > 0);
	mg_err err = {{0}};
	CU_ASSERT_EQUAL_FATAL(report_save(r, path, &err), 0);
	report *back = NULL;
	CU_ASSERT_EQUAL_FATAL(report_load(&back, path, &err), 0);
	assert_reports_equal(r, back);
	/* the loaded report saves to the same bytes */
	char path2[512];
	path_in(path2, sizeof(path2), "r2.json");
	CU_ASSERT_EQUAL(report_save(back, path2, &err), 0);
	char cmd[1100];
	snprintf(cmd, sizeof(cmd), "cmp -s '%s' '%s'", path, path2);
	CU_ASSERT(system(cmd) == 0);
	report_free(r);
	report_free(back);
	cleanup_tmpdir();
}

/* report_write's pieces make one JSON document, the same as report_to_json. */
static void test_write_is_tree(void)
{
	report *r = fixture_full_report();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(report_write(r, f), 0);
	CU_ASSERT_EQUAL_FATAL(fclose(f), 0);
	json_error_t jerr;
	json_t *streamed = json_loadb(buf, len, 0, &jerr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(streamed);
	json_t *tree = report_to_json(r);
	CU_ASSERT(json_equal(streamed, tree));
	json_decref(streamed);
	json_decref(tree);
	free(buf);
	report_free(r);
}

/* Each test of a /2 tree rewritten as /1 writes it: long keys, every figure. */
static void tests_to_v1(json_t *j)
{
	json_t *shards = json_object_get(j, "shards"), *sh, *t;
	size_t i, k;
	json_object_set_new(j, "schema", json_string(REPORT_SCHEMA_V1));
	json_array_foreach(shards, i, sh)
	{
		json_array_foreach(json_object_get(sh, "tests"), k, t)
		{
			static const char *const from[] = {"n", "s",  "m",   "o",   "g",    "a",
			                                   "d", "va", "rss", "dva", "drss", "pk"};
			static const char *const to[] = {"name",     "state",      "message",
			                                 "output",   "generation", "attempts",
			                                 "duration", "va_after",   "rss_after",
			                                 "va_delta", "rss_delta",  "va_peak"};
			json_t *o = json_object();
			json_object_set_new(o, "state", json_string("pass"));
			json_object_set_new(o, "generation", json_integer(0));
			json_object_set_new(o, "attempts", json_integer(1));
			json_object_set_new(o, "duration", json_real(0));
			json_object_set_new(o, "va_after", json_integer(0));
			json_object_set_new(o, "rss_after", json_integer(0));
			json_object_set_new(o, "va_delta", json_integer(0));
			json_object_set_new(o, "rss_delta", json_integer(0));
			for (size_t f = 0; f < sizeof(from) / sizeof(from[0]); f++)
				if (json_object_get(t, from[f]))
					json_object_set(o, to[f], json_object_get(t, from[f]));
			json_array_set_new(json_object_get(sh, "tests"), k, o);
		}
	}
}

/* A memguard-report/1 file still loads, to the same model (in pieces by
 * report_load, as a tree by report_from_json), and saves as /2. */
static void test_load_v1(void)
{
	make_tmpdir();
	char path[512];
	path_in(path, sizeof(path), "v1.json");
	report *r = fixture_full_report();
	json_t *j = report_to_json(r);
	tests_to_v1(j);
	CU_ASSERT_EQUAL_FATAL(json_dump_file(j, path, JSON_INDENT(2)), 0);
	report *back = NULL, *tree = NULL;
	mg_err err = {{0}};
	CU_ASSERT_EQUAL_FATAL(report_load(&back, path, &err), 0);
	assert_reports_equal(r, back);
	CU_ASSERT_EQUAL_FATAL(report_from_json(&tree, j, &err), 0);
	assert_reports_equal(r, tree);
	path_in(path, sizeof(path), "v2.json");
	CU_ASSERT_EQUAL(report_save(back, path, &err), 0);
	json_t *again = json_load_file(path, 0, NULL);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(again, "schema")), REPORT_SCHEMA);
	json_decref(again);
	json_decref(j);
	report_free(r);
	report_free(back);
	report_free(tree);
	cleanup_tmpdir();
}

/* The piecewise reader does not depend on the writer's key order or
 * spacing: sorted keys (tests before timeline), indented, still the same. */
static void test_load_any_layout(void)
{
	report *r = fixture_full_report();
	json_t *j = report_to_json(r);
	char *text = json_dumps(j, JSON_INDENT(3) | JSON_SORT_KEYS);
	report *back = NULL;
	mg_err err = {{0}};
	CU_ASSERT_EQUAL_FATAL(report_parse(&back, text, strlen(text), &err), 0);
	assert_reports_equal(r, back);
	report_free(back);
	/* trailing text after the document is a syntax error, as for Jansson */
	size_t len = strlen(text);
	char *more = malloc(len + 3);
	memcpy(more, text, len);
	memcpy(more + len, " x", 3);
	CU_ASSERT_EQUAL(report_parse(&back, more, len + 2, &err), MG_EINVAL);
	CU_ASSERT_PTR_NULL(back);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "not valid JSON"));
	free(more);
	free(text);
	json_decref(j);
	report_free(r);
}

/* Not a repository: the note survives, sha stays NULL. */
/* The limits in bytes and each lane's share of an rss budget survive a
 * save and a load; a report without them (older) loads with none. */
static void test_roundtrip_limit_bytes(void)
{
	make_tmpdir();
	char path[512];
	path_in(path, sizeof(path), "r.json");
	report *r = fixture_full_report();
	r->soft = (report_limits){7ull << 29, 6ull << 30, 0, 64ull << 20};
	r->hard = (report_limits){15ull << 28, 8ull << 30, 9ull << 30, 0};
	r->has_limit_bytes = 1;
	r->shards[0].rss_soft = 3ull << 30;
	r->shards[0].rss_hard = 4ull << 30;
	mg_err err = {{0}};
	CU_ASSERT_EQUAL_FATAL(report_save(r, path, &err), 0);
	report *back = NULL;
	CU_ASSERT_EQUAL_FATAL(report_load(&back, path, &err), 0);
	assert_reports_equal(r, back);
	CU_ASSERT_EQUAL(back->hard.cgroup, 9ull << 30);
	CU_ASSERT_EQUAL(back->shards[0].rss_hard, 4ull << 30);
	report_free(back);
	r->has_limit_bytes = 0;
	r->shards[0].rss_soft = r->shards[0].rss_hard = 0;
	CU_ASSERT_EQUAL_FATAL(report_save(r, path, &err), 0);
	CU_ASSERT_EQUAL_FATAL(report_load(&back, path, &err), 0);
	CU_ASSERT_EQUAL(back->has_limit_bytes, 0);
	CU_ASSERT_EQUAL(back->hard.va, 0);
	report_free(back);
	report_free(r);
}

static void test_roundtrip_no_repo(void)
{
	report *r = report_new();
	r->repo_note = report_strdup("not a git repository");
	json_t *j = report_to_json(r);
	report *back = NULL;
	mg_err err = {{0}};
	CU_ASSERT_EQUAL_FATAL(report_from_json(&back, j, &err), 0);
	CU_ASSERT_PTR_NULL(back->sha);
	CU_ASSERT_STRING_EQUAL(back->repo_note, "not a git repository");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(j, "schema")), REPORT_SCHEMA);
	json_decref(j);
	report_free(r);
	report_free(back);
}

/* Invalid UTF-8 becomes U+FFFD, valid multibyte text is kept. */
static void test_utf8_replaced(void)
{
	report *r = report_new();
	report_shard *s = report_add_shard(r);
	report_test *t = report_shard_add_test(s);
	t->name = report_strdup("a\xff"
	                        "b\xc3\xa9"
	                        "c\xed\xa0\x80"
	                        "d\xc0\xaf");
	json_t *j = report_to_json(r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	report *back = NULL;
	mg_err err = {{0}};
	CU_ASSERT_EQUAL_FATAL(report_from_json(&back, j, &err), 0);
	CU_ASSERT_STRING_EQUAL(back->shards[0].tests[0].name,
	                       "a\xef\xbf\xbd"
	                       "b\xc3\xa9"
	                       "c\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
	                       "d\xef\xbf\xbd\xef\xbf\xbd");
	json_decref(j);
	report_free(r);
	report_free(back);
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static void test_load_missing(void)
{
	report *r = (report *)1;
	mg_err err = {{0}};
	CU_ASSERT_EQUAL(report_load(&r, "/nonexistent/memguard/report.json", &err), MG_ENOTFOUND);
	CU_ASSERT_PTR_NULL(r);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "/nonexistent/memguard/report.json"));
}

static void test_load_not_json(void)
{
	make_tmpdir();
	char path[512];
	path_in(path, sizeof(path), "bad.json");
	CU_ASSERT_FATAL(write_file(path, "{\"schema\": \"memguard-report/1\",,}") == 0);
	report *r = NULL;
	mg_err err = {{0}};
	CU_ASSERT_EQUAL(report_load(&r, path, &err), MG_EINVAL);
	CU_ASSERT_PTR_NULL(r);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "not valid JSON"));
	cleanup_tmpdir();
}

/* Loads the full report as JSON, lets edit change it, expects MG_EINVAL with
 * want in the message: from the tree (report_from_json) and from its text
 * read in pieces (report_parse, as report_load and notes read). */
static void expect_invalid(void (*edit)(json_t *), const char *want)
{
	report *r = fixture_full_report();
	json_t *j = report_to_json(r);
	edit(j);
	report *back = NULL;
	mg_err err = {{0}};
	CU_ASSERT_EQUAL(report_from_json(&back, j, &err), MG_EINVAL);
	CU_ASSERT_PTR_NULL(back);
	if (!strstr(err.msg, want))
		fprintf(stderr, "message '%s' lacks '%s'\n", err.msg, want);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want));
	char *text = json_dumps(j, JSON_INDENT(1));
	mg_err perr = {{0}};
	back = (report *)1;
	CU_ASSERT_EQUAL(report_parse(&back, text, strlen(text), &perr), MG_EINVAL);
	CU_ASSERT_PTR_NULL(back);
	if (!strstr(perr.msg, want))
		fprintf(stderr, "pieces: message '%s' lacks '%s'\n", perr.msg, want);
	CU_ASSERT_PTR_NOT_NULL(strstr(perr.msg, want));
	free(text);
	json_decref(j);
	report_free(r);
}

static void edit_schema(json_t *j)
{
	json_object_set_new(j, "schema", json_string("memguard-report/99"));
}

static void test_load_wrong_schema(void)
{
	expect_invalid(edit_schema, "schema: 'memguard-report/99'");
}

static json_t *test_at(json_t *j, size_t shard, size_t test)
{
	return json_array_get(
	    json_object_get(json_array_get(json_object_get(j, "shards"), shard), "tests"), test);
}

static void edit_type(json_t *j)
{
	json_object_set_new(test_at(j, 1, 5), "va", json_string("lots"));
}

static void test_load_wrong_type(void)
{
	expect_invalid(edit_type, "shards[1].tests[5].va: expected an integer");
}

static void edit_state(json_t *j)
{
	json_object_set_new(test_at(j, 1, 5), "s", json_string("zzz"));
}

static void test_load_unknown_state(void)
{
	expect_invalid(edit_state, "shards[1].tests[5].s: unknown state 'zzz'");
}

static void edit_missing(json_t *j)
{
	json_t *gen = json_array_get(
	    json_object_get(json_array_get(json_object_get(j, "shards"), 0), "generations"), 1);
	json_t *bd = json_array_get(json_object_get(gen, "breakdowns"), 0);
	json_object_del(json_array_get(json_object_get(bd, "groups"), 0), "total");
	json_object_set_new(j, "extra", json_true());
}

static void test_load_missing_field(void)
{
	expect_invalid(edit_missing,
	               "shards[0].generations[1].breakdowns[0].groups[0].total: missing");
}

static void edit_timeline(json_t *j)
{
	json_t *tl = json_object_get(json_array_get(json_object_get(j, "shards"), 0), "timeline");
	json_array_append_new(tl, json_pack("[f,i,i]", 1.0, 2, 3));
}

static void test_load_bad_timeline(void)
{
	expect_invalid(edit_timeline, "shards[0].timeline[5]");
}

static void test_save_no_dir(void)
{
	report *r = fixture_full_report();
	mg_err err = {{0}};
	CU_ASSERT(report_save(r, "/nonexistent/memguard/dir/r.json", &err) < 0);
	CU_ASSERT(err.msg[0] != '\0');
	CU_ASSERT(!file_exists("/nonexistent/memguard/dir/r.json.tmp"));
	report_free(r);
}

static char *slurp_text(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *buf = calloc(1, 1 << 20);
	size_t n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* The names in tmpdir other than . and .. (a temporary left behind shows). */
static int tmpdir_entries(void)
{
	DIR *d = opendir(tmpdir);
	int n = 0;
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	for (struct dirent *e; (e = readdir(d)) != NULL;)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/* A save that fails (here: the temporary's name is too long for the file
 * system, even for root) leaves the previous file byte for byte intact. */
static void test_save_failure_keeps_old(void)
{
	make_tmpdir();
	char path[512], name[256];
	memset(name, 'r', 240);
	name[240] = '\0';
	path_in(path, sizeof(path), name);
	CU_ASSERT_FATAL(write_file(path, "previous\n") == 0);
	report *r = fixture_full_report();
	mg_err err = {{0}};
	CU_ASSERT(report_save(r, path, &err) < 0);
	/* the message names the file asked for, not the temporary */
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, path));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "cannot create a temporary file beside it"));
	CU_ASSERT_PTR_NULL(strstr(err.msg, ".tmp."));
	FILE *f = fopen(path, "r");
	char buf[64] = "";
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_PTR_NOT_NULL(fgets(buf, sizeof(buf), f));
	fclose(f);
	CU_ASSERT_STRING_EQUAL(buf, "previous\n");
	CU_ASSERT_EQUAL(tmpdir_entries(), 1);
	/* a save that can succeed replaces a file, leaving no temporary */
	path_in(path, sizeof(path), "r.json");
	CU_ASSERT_FATAL(write_file(path, "previous\n") == 0);
	CU_ASSERT_EQUAL(report_save(r, path, &err), 0);
	CU_ASSERT_EQUAL(tmpdir_entries(), 2);
	report *back = NULL;
	CU_ASSERT_EQUAL(report_load(&back, path, &err), 0);
	report_free(back);
	report_free(r);
	cleanup_tmpdir();
}

/* A symlink planted at the old fixed temporary name (PATH.tmp) is never
 * written through: not by the report, not by an adapter's output. */
static void test_save_symlink_tmp(void)
{
	make_tmpdir();
	char path[512], tmp[600], victim[512], spec[700];
	path_in(victim, sizeof(victim), "victim");
	CU_ASSERT_FATAL(write_file(victim, "victim\n") == 0);
	const char *const targets[] = {"r.json", "console.txt"};
	for (int i = 0; i < 2; i++) {
		path_in(path, sizeof(path), targets[i]);
		snprintf(tmp, sizeof(tmp), "%s.tmp", path);
		CU_ASSERT_FATAL(symlink(victim, tmp) == 0);
		report *r = fixture_full_report();
		mg_err err = {{0}};
		snprintf(spec, sizeof(spec), "console=%s", path);
		CU_ASSERT_EQUAL(
		    i == 0 ? report_save(r, path, &err) : adapters_render(r, spec, &err), 0);
		report_free(r);
		char *text = slurp_text(victim);
		CU_ASSERT_PTR_NOT_NULL_FATAL(text);
		CU_ASSERT_STRING_EQUAL(text, "victim\n");
		free(text);
		struct stat st;
		CU_ASSERT(lstat(tmp, &st) == 0 && S_ISLNK(st.st_mode));
		CU_ASSERT(lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 100);
	}
	CU_ASSERT_EQUAL(tmpdir_entries(), 5); /* victim, two targets, two links */
	cleanup_tmpdir();
}

/* Processes saving the same path at once: every save succeeds and the file
 * is always one whole report (a shared temporary name made one process's
 * rename fail and could interleave two reports). */
static void test_save_concurrent(void)
{
	enum { WRITERS = 4, SAVES = 200 };
	make_tmpdir();
	char path[512];
	path_in(path, sizeof(path), "r.json");
	pid_t pids[WRITERS];
	for (int w = 0; w < WRITERS; w++) {
		pids[w] = fork();
		CU_ASSERT_FATAL(pids[w] >= 0);
		if (pids[w] == 0) {
			report *r = fixture_full_report();
			for (int k = 0; k < w; k++) /* a different size per writer */
				report_shard_add_test(&r->shards[0])->name = report_strdup("x/pad");
			report_finish(r, REPORT_MAX_SUSPECTS);
			int bad = 0;
			for (int i = 0; i < SAVES; i++) {
				mg_err err = {{0}};
				if (report_save(r, path, &err) != 0) {
					if (!bad)
						fprintf(stderr, "writer %d: %s\n", w, err.msg);
					bad++;
				}
			}
			_exit(bad ? 1 : 0);
		}
	}
	for (int w = 0; w < WRITERS; w++) {
		int status = 0;
		CU_ASSERT_EQUAL(waitpid(pids[w], &status, 0), pids[w]);
		CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	report *back = NULL;
	mg_err err = {{0}};
	CU_ASSERT_EQUAL(report_load(&back, path, &err), 0);
	CU_ASSERT(back && back->nshards > 0);
	report_free(back);
	CU_ASSERT_EQUAL(tmpdir_entries(), 1);
	cleanup_tmpdir();
}

/* A FIFO is refused, not opened (an open would block until a reader came):
 * an error naming it, at once, with no reader; it is still a FIFO after. */
static void test_save_to_fifo(void)
{
	make_tmpdir();
	char path[512];
	path_in(path, sizeof(path), "fifo");
	CU_ASSERT_FATAL(mkfifo(path, 0600) == 0);
	report *r = fixture_full_report();
	mg_err err = {{0}};
	CU_ASSERT_EQUAL(report_save(r, path, &err), MG_ERROR);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, path));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "a FIFO, not a regular file"));
	report_free(r);
	struct stat st;
	CU_ASSERT(lstat(path, &st) == 0 && S_ISFIFO(st.st_mode));
	CU_ASSERT_EQUAL(tmpdir_entries(), 1);
	cleanup_tmpdir();
}

static report *node_report(uint32_t node, uint32_t total, uint64_t passes)
{
	report *r = report_new();
	r->node_index = node;
	r->node_total = total;
	r->start_time = 1000 + node;
	r->wall = 10.0 * node;
	r->exit_code = node == 2 ? 1 : 0;
	for (uint32_t lane = 0; lane < 2; lane++) {
		report_shard *s = report_add_shard(r);
		s->node = node;
		s->index = lane;
		s->suite = report_strdup("core");
		s->arch = report_strdup("x86");
		for (uint64_t i = 0; i < passes; i++) {
			report_test *t = report_shard_add_test(s);
			char name[32];
			snprintf(name, sizeof(name), "core/t%llu", (unsigned long long)i);
			t->name = report_strdup(name);
			t->state = i == 0 && node == 2 ? TEST_FAIL : TEST_PASS;
			t->va_delta = 100;
		}
	}
	report_finish(r, 10);
	return r;
}

static void test_merge_counts(void)
{
	report *a = node_report(1, 2, 3), *b = node_report(2, 2, 4);
	a->sha = report_strdup("abc");
	mg_err err = {{0}};
	CU_ASSERT_EQUAL_FATAL(report_merge(a, b, &err), 0);
	CU_ASSERT_EQUAL(a->nshards, 4);
	uint64_t pass = 0, fail = 0;
	for (size_t i = 0; i < a->nshards; i++) {
		pass += a->shards[i].counts[TEST_PASS];
		fail += a->shards[i].counts[TEST_FAIL];
	}
	CU_ASSERT_EQUAL(pass, 2 * 3 + 2 * 3);
	CU_ASSERT_EQUAL(fail, 2);
	CU_ASSERT_STRING_EQUAL(a->sha, "abc");
	CU_ASSERT(a->start_time == 1001);
	CU_ASSERT(a->wall == 20.0);
	CU_ASSERT_EQUAL(a->exit_code, 1);
	/* suspects are recomputed over both nodes: core/t0 ran in 4 shards */
	CU_ASSERT_FATAL(a->nsuspects > 0);
	CU_ASSERT_STRING_EQUAL(a->suspects[0].name, "core/t0");
	CU_ASSERT_EQUAL(a->suspects[0].runs, 4);
	CU_ASSERT_EQUAL(a->suspects[0].va_retained, 400);
	report_free(a);
	report_free(b);
}

static void test_merge_replace(void)
{
	report *a = node_report(1, 2, 3), *b = node_report(1, 2, 5);
	mg_err err = {{0}};
	b->sha = report_strdup("def");
	CU_ASSERT_EQUAL_FATAL(report_merge(a, b, &err), 0);
	CU_ASSERT_EQUAL(a->nshards, 2);
	CU_ASSERT_EQUAL(a->shards[0].ntests, 5);
	CU_ASSERT_EQUAL(a->shards[1].counts[TEST_PASS], 5);
	CU_ASSERT_STRING_EQUAL(a->sha, "def");
	/* a different arch is a different group: b's x64 shard is added, and
	 * its one x86 shard replaces a's whole x86 group (two lanes) */
	free(b->shards[0].arch);
	b->shards[0].arch = report_strdup("x64");
	CU_ASSERT_EQUAL(report_merge(a, b, &err), 0);
	CU_ASSERT_EQUAL(a->nshards, 2);
	report_free(a);
	report_free(b);
}

static char *write_mem(const report *r, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(report_write(r, f), 0);
	CU_ASSERT_EQUAL_FATAL(fclose(f), 0);
	return buf;
}

typedef struct merge_view {
	const report *heads, *from;
} merge_view;

static int keep_unless_replaced(size_t i, void *ctx)
{
	const merge_view *v = ctx;
	return !report_merge_replaces(v->heads, v->from, i);
}

static int keep_no_tests(size_t i, void *ctx)
{
	(void)i;
	(void)ctx;
	return 0;
}

/* A note read for a merge (report_parse_some without the tests the merge
 * replaces) merges into the same document as the note read whole; a group
 * of a later run than from's is kept with its tests. */
static void test_parse_some_merging(void)
{
	report *a = node_report(1, 2, 3), *b = node_report(2, 2, 4);
	mg_err err = {{0}};
	CU_ASSERT_EQUAL_FATAL(report_merge(a, b, &err), 0);
	for (int later = 0; later < 2; later++) {
		report *from = node_report(1, 2, 5);
		if (later) /* node 1's shards in a are from a later run: kept */
			for (size_t i = 0; i < from->nshards; i++)
				from->shards[i].start_time = -1;
		else
			for (size_t i = 0; i < from->nshards; i++)
				from->shards[i].start_time = 5000;
		size_t len = 0;
		char *doc = write_mem(a, &len);
		report *heads = NULL, *part = NULL, *whole = NULL;
		CU_ASSERT_EQUAL_FATAL(
		    report_parse_some(&heads, doc, len, keep_no_tests, NULL, &err), 0);
		CU_ASSERT_EQUAL_FATAL(heads->nshards, 4);
		merge_view v = {heads, from};
		CU_ASSERT_EQUAL_FATAL(
		    report_parse_some(&part, doc, len, keep_unless_replaced, &v, &err), 0);
		CU_ASSERT_EQUAL_FATAL(report_parse(&whole, doc, len, &err), 0);
		size_t dropped = 0;
		for (size_t i = 0; i < part->nshards; i++) {
			CU_ASSERT_EQUAL(heads->shards[i].ntests, 0);
			int replaced = report_merge_replaces(heads, from, i);
			CU_ASSERT_EQUAL(replaced, !later && part->shards[i].node == 1);
			CU_ASSERT_EQUAL(part->shards[i].ntests,
			                replaced ? 0 : whole->shards[i].ntests);
			dropped += replaced;
		}
		CU_ASSERT_EQUAL(dropped, later ? 0 : 2);
		/* the same merge taking from's shards over (from read back: a
		 * second from to give away) */
		size_t lf = 0;
		char *df = write_mem(from, &lf);
		report *taken = NULL, *given = NULL;
		CU_ASSERT_EQUAL_FATAL(
		    report_parse_some(&taken, doc, len, keep_unless_replaced, &v, &err), 0);
		CU_ASSERT_EQUAL_FATAL(report_parse(&given, df, lf, &err), 0);
		CU_ASSERT_EQUAL_FATAL(report_merge(part, from, &err), 0);
		CU_ASSERT_EQUAL_FATAL(report_merge(whole, from, &err), 0);
		CU_ASSERT_EQUAL_FATAL(report_merge_take(taken, given, &err), 0);
		for (size_t i = 0; i < given->nshards; i++) /* moved, not copied */
			CU_ASSERT_EQUAL(given->shards[i].ntests,
			                later ? from->shards[i].ntests : 0);
		size_t lp = 0, lw = 0, lt = 0;
		char *dp = write_mem(part, &lp), *dw = write_mem(whole, &lw),
		     *dt = write_mem(taken, &lt);
		CU_ASSERT(lp == lw && memcmp(dp, dw, lp) == 0);
		CU_ASSERT(lt == lw && memcmp(dt, dw, lt) == 0);
		report_free(taken);
		report_free(given);
		free(df);
		free(dt);
		free(dp);
		free(dw);
		free(doc);
		report_free(heads);
		report_free(part);
		report_free(whole);
		report_free(from);
	}
	report_free(a);
	report_free(b);
}

/* What report_parse_tests gives the reader of its tests' figures. */
typedef struct seen_tests {
	size_t n, stop_at;
	size_t shard[16];
	char name[16][32];
	int64_t va[16];
} seen_tests;

static int see_test(size_t shard, const report_test *t, void *ctx, mg_err *err)
{
	seen_tests *st = ctx;
	if (st->n == st->stop_at)
		return mg_err_set(err, MG_ERROR, "stopped at '%s'", t->name);
	if (st->n < 16) {
		st->shard[st->n] = shard;
		snprintf(st->name[st->n], sizeof(st->name[0]), "%s", t->name);
		st->va[st->n] = t->va_delta;
	}
	st->n++;
	return 0;
}

/* report_parse_tests hands over every test, in document order with its
 * shard's place and figures, keeps none, and keeps the shards' counts; a
 * reader's error ends the read with its message. */
static void test_parse_tests(void)
{
	report *r = node_report(1, 2, 3), *whole = NULL, *heads = NULL;
	r->shards[1].tests[2].va_delta = -4096;
	report_finish(r, REPORT_MAX_SUSPECTS);
	size_t len = 0;
	char *doc = write_mem(r, &len);
	mg_err err = {{0}};
	seen_tests st = {.stop_at = SIZE_MAX};
	CU_ASSERT_EQUAL_FATAL(report_parse(&whole, doc, len, &err), 0);
	CU_ASSERT_EQUAL_FATAL(report_parse_tests(&heads, doc, len, see_test, &st, &err), 0);
	CU_ASSERT_EQUAL_FATAL(st.n, 6);
	for (size_t k = 0, i = 0; i < whole->nshards; i++) {
		CU_ASSERT_EQUAL(heads->shards[i].ntests, 0);
		CU_ASSERT_EQUAL(heads->shards[i].counts[TEST_PASS],
		                whole->shards[i].counts[TEST_PASS]);
		for (size_t t = 0; t < whole->shards[i].ntests; t++, k++) {
			CU_ASSERT_EQUAL(st.shard[k], i);
			CU_ASSERT_STRING_EQUAL(st.name[k], whole->shards[i].tests[t].name);
			CU_ASSERT_EQUAL(st.va[k], whole->shards[i].tests[t].va_delta);
		}
	}
	CU_ASSERT_EQUAL(st.va[5], -4096);
	CU_ASSERT_EQUAL(heads->totals.tests, whole->totals.tests);
	report_free(heads);
	heads = NULL;
	st = (seen_tests){.stop_at = 4};
	CU_ASSERT_EQUAL(report_parse_tests(&heads, doc, len, see_test, &st, &err), MG_ERROR);
	CU_ASSERT_PTR_NULL(heads);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "stopped at '"));
	free(doc);
	report_free(whole);
	report_free(r);
}

/* VA peaks live in the shard's sparse table: set in any order, replaced,
 * removed with 0, copied by a merge and round-tripped by the JSON form. */
static void test_test_peaks(void)
{
	report *r = node_report(1, 1, 6);
	report_shard *s = &r->shards[0];
	report_shard_set_test_peak(s, 4, 4000);
	report_shard_set_test_peak(s, 1, 1000);
	report_shard_set_test_peak(s, 5, 5000);
	report_shard_set_test_peak(s, 1, 1100);
	report_shard_set_test_peak(s, 5, 0);
	CU_ASSERT_EQUAL(s->npeaks, 2);
	CU_ASSERT_EQUAL(report_shard_test_peak(s, 0), 0);
	CU_ASSERT_EQUAL(report_shard_test_peak(s, 1), 1100);
	CU_ASSERT_EQUAL(report_shard_test_peak(s, 4), 4000);
	CU_ASSERT_EQUAL(report_shard_test_peak(s, 5), 0);
	size_t len = 0;
	char *doc = write_mem(r, &len);
	report *back = NULL;
	mg_err err = {{0}};
	CU_ASSERT_EQUAL_FATAL(report_parse(&back, doc, len, &err), 0);
	CU_ASSERT_EQUAL(back->shards[0].npeaks, 2);
	CU_ASSERT_EQUAL(report_shard_test_peak(&back->shards[0], 1), 1100);
	CU_ASSERT_EQUAL(report_shard_test_peak(&back->shards[0], 4), 4000);
	report *m = report_new();
	CU_ASSERT_EQUAL_FATAL(report_merge(m, back, &err), 0);
	CU_ASSERT_EQUAL(report_shard_test_peak(&m->shards[0], 4), 4000);
	free(doc);
	report_free(m);
	report_free(back);
	report_free(r);
}

/* Attempts and generation beyond what a test holds are refused, not cut. */
static void test_load_out_of_range_test(void)
{
	static const char *const docs[] = {
	    "{\"schema\":\"memguard-report/2\",\"shards\":[{\"tests\":[{\"n\":\"a\",\"a\":32}]}]}",
	    "{\"schema\":\"memguard-report/"
	    "2\",\"shards\":[{\"tests\":[{\"n\":\"a\",\"g\":16777216}]}]}"};
	for (size_t i = 0; i < 2; i++) {
		report *r = NULL;
		mg_err err = {{0}};
		CU_ASSERT_EQUAL(report_parse(&r, docs[i], strlen(docs[i]), &err), MG_EINVAL);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "out of range"));
		report_free(r);
	}
}

/* Exit codes of nodes: a node that ran no test (5) is worse only than 0,
 * and beside a node that ran tests the merged run did run tests. */
static void test_merge_exit_codes(void)
{
	static const struct {
		int a, b, merged;
	} rows[] = {{0, 0, 0}, {1, 0, 1}, {0, 3, 3}, {1, 3, 3}, {5, 1, 1},
	            {1, 5, 1}, {3, 5, 3}, {5, 0, 0}, {0, 5, 0}};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		report *a = node_report(1, 2, 3), *b = node_report(2, 2, 3);
		mg_err err = {{0}};
		a->exit_code = rows[i].a;
		b->exit_code = rows[i].b;
		CU_ASSERT_EQUAL_FATAL(report_merge(a, b, &err), 0);
		if (a->exit_code != rows[i].merged)
			fprintf(stderr, "\n  %d + %d: %d (wanted %d)", rows[i].a, rows[i].b,
			        a->exit_code, rows[i].merged);
		CU_ASSERT_EQUAL(a->exit_code, rows[i].merged);
		report_free(a);
		report_free(b);
	}
	/* no node ran a test: still 5 */
	report *a = report_new(), *b = report_new();
	mg_err err = {{0}};
	a->exit_code = b->exit_code = 5;
	CU_ASSERT_EQUAL_FATAL(report_merge(a, b, &err), 0);
	CU_ASSERT_EQUAL(a->exit_code, 5);
	report_free(a);
	report_free(b);
}

/* A re-run with fewer lanes leaves no stale lane behind; an older run
 * merged in later does not replace a newer one. */
static void test_merge_rerun(void)
{
	report *old = node_report(1, 1, 3), *rerun = node_report(1, 1, 4);
	mg_err err = {{0}};
	report_remove_shard(rerun, 1); /* the re-run used one lane, not two */
	for (size_t i = 0; i < old->nshards; i++)
		old->shards[i].start_time = 1000;
	rerun->shards[0].start_time = 2000;
	CU_ASSERT_EQUAL_FATAL(report_merge(old, rerun, &err), 0);
	CU_ASSERT_EQUAL(old->nshards, 1);
	CU_ASSERT_EQUAL(old->shards[0].ntests, 4);

	report *older = node_report(1, 1, 3);
	for (size_t i = 0; i < older->nshards; i++)
		older->shards[i].start_time = 500;
	CU_ASSERT_EQUAL_FATAL(report_merge(old, older, &err), 0);
	CU_ASSERT_EQUAL(old->nshards, 1);
	CU_ASSERT_EQUAL(old->shards[0].ntests, 4);
	CU_ASSERT_EQUAL(old->shards[0].start_time, 2000);
	report_free(old);
	report_free(rerun);
	report_free(older);
}

/* A hostile report's deltas do not wrap when summed. */
static void test_finish_saturates(void)
{
	report *r = report_new();
	report_shard *s = report_add_shard(r);
	for (int i = 0; i < 2; i++) {
		report_test *t = report_shard_add_test(s);
		t->name = report_strdup("a/huge");
		t->va_delta = INT64_MAX;
		t->rss_delta = INT64_MIN;
	}
	report_finish(r, 10);
	CU_ASSERT_EQUAL_FATAL(r->nsuspects, 1);
	CU_ASSERT_EQUAL(r->suspects[0].va_retained, INT64_MAX);
	CU_ASSERT_EQUAL(r->suspects[0].rss_retained, INT64_MIN);
	report_free(r);
}

static void test_finish_suspects(void)
{
	report *r = report_new();
	report_shard *s = report_add_shard(r);
	const char *names[] = {"a/leak", "a/fine", "a/leak", "a/limit", "a/shrink"};
	int64_t deltas[] = {100, 0, 50, -10, -5};
	test_state states[] = {TEST_PASS, TEST_PASS, TEST_FAIL, TEST_MEMLIMIT, TEST_PASS};
	for (int i = 0; i < 5; i++) {
		report_test *t = report_shard_add_test(s);
		t->name = report_strdup(names[i]);
		t->va_delta = deltas[i];
		t->state = states[i];
	}
	report_finish(r, 10);
	CU_ASSERT_EQUAL(s->counts[TEST_PASS], 3);
	CU_ASSERT_EQUAL(s->counts[TEST_FAIL], 1);
	CU_ASSERT_EQUAL(s->counts[TEST_MEMLIMIT], 1);
	CU_ASSERT_EQUAL_FATAL(r->nsuspects, 2);
	CU_ASSERT_STRING_EQUAL(r->suspects[0].name, "a/leak");
	CU_ASSERT_EQUAL(r->suspects[0].va_retained, 150);
	CU_ASSERT_EQUAL(r->suspects[0].grew, 2);
	CU_ASSERT_EQUAL(r->suspects[0].runs, 2);
	CU_ASSERT_STRING_EQUAL(r->suspects[1].name, "a/limit");
	CU_ASSERT(r->suspects[1].alone_over_hard);
	report_finish(r, 1);
	CU_ASSERT_EQUAL(r->nsuspects, 1);
	report_free(r);
}

/* The one definition of a failure, state by state. */
static void test_state_failed(void)
{
	static const struct {
		test_state s;
		int failed;
	} want[] = {
	    {TEST_PASS, 0},    {TEST_FAIL, 1},     {TEST_SKIP, 0},  {TEST_CRASH, 1},
	    {TEST_TIMEOUT, 1}, {TEST_MEMLIMIT, 1}, {TEST_ERROR, 1}, {TEST_NOTRUN, 0},
	};
	CU_ASSERT_EQUAL(sizeof(want) / sizeof(want[0]), TEST_STATE_COUNT);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		if (report_state_failed(want[i].s) != want[i].failed)
			fprintf(stderr, "%s: failed should be %d\n", report_state_name(want[i].s),
			        want[i].failed);
		CU_ASSERT_EQUAL(report_state_failed(want[i].s), want[i].failed);
	}
}

/* report_finish sums the shards once; a loaded report has the same totals. */
static void test_finish_totals(void)
{
	report *r = report_new();
	static const test_state states[] = {TEST_PASS,  TEST_PASS,    TEST_FAIL,
	                                    TEST_CRASH, TEST_TIMEOUT, TEST_MEMLIMIT,
	                                    TEST_ERROR, TEST_SKIP,    TEST_NOTRUN};
	for (uint32_t k = 0; k < 2; k++) {
		report_shard *s = report_add_shard(r);
		s->node = 1;
		s->index = k;
		s->arch = report_strdup("x64");
		s->suite = report_strdup("core");
		s->driver = report_strdup("native");
		s->command = report_strdup("./t");
		s->peak_va = k ? 300 : 700;
		s->peak_rss = k ? 90 : 40;
		s->recycles = 2 + k;
		s->kills = k;
		for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
			report_test *t = report_shard_add_test(s);
			t->name = report_strdup("core/t");
			t->state = states[i];
		}
	}
	report_finish(r, REPORT_MAX_SUSPECTS);
	const report_totals *t = &r->totals;
	CU_ASSERT_EQUAL(t->tests, 18);
	CU_ASSERT_EQUAL(t->counts[TEST_PASS], 4);
	CU_ASSERT_EQUAL(t->failed, 10);
	CU_ASSERT_EQUAL(t->other, 4);
	CU_ASSERT_EQUAL(t->peak_va, 700);
	CU_ASSERT_EQUAL(t->peak_rss, 90);
	CU_ASSERT_EQUAL(t->recycles, 5);
	CU_ASSERT_EQUAL(t->kills, 1);
	report_totals one = adapters_shard_totals(&r->shards[1]);
	CU_ASSERT_EQUAL(one.tests, 9);
	CU_ASSERT_EQUAL(one.failed, 5);
	CU_ASSERT_EQUAL(one.peak_va, 300);

	make_tmpdir();
	char path[512];
	path_in(path, sizeof(path), "r.json");
	mg_err err = {{0}};
	report *back = NULL;
	CU_ASSERT_EQUAL_FATAL(report_save(r, path, &err), 0);
	CU_ASSERT_EQUAL_FATAL(report_load(&back, path, &err), 0);
	CU_ASSERT_EQUAL(memcmp(&back->totals, &r->totals, sizeof(r->totals)), 0);
	report_free(back);
	cleanup_tmpdir();

	/* Sums saturate instead of wrapping. */
	r->shards[0].counts[TEST_FAIL] = UINT64_MAX;
	r->shards[0].recycles = UINT32_MAX;
	report_totals sat = {0};
	report_totals_add(&sat, &r->shards[0]);
	report_totals_add(&sat, &r->shards[1]);
	CU_ASSERT_EQUAL(sat.failed, UINT64_MAX);
	CU_ASSERT_EQUAL(sat.tests, UINT64_MAX);
	CU_ASSERT_EQUAL(sat.recycles, (uint64_t)UINT32_MAX + 3);
	report_free(r);
}

/* The shard key (node, arch, suite, index): one order, two groupings. */
static void test_shard_key(void)
{
	report_shard a = {.node = 1, .index = 0, .arch = "x64", .suite = "core"};
	report_shard b = a, c = a, d = a, e = a;
	b.index = 1;
	c.node = 2;
	d.arch = "x86";
	e.suite = NULL; /* as "" */
	CU_ASSERT_EQUAL(report_shard_cmp(&a, &a), 0);
	CU_ASSERT(report_shard_cmp(&a, &b) < 0 && report_shard_cmp(&b, &a) > 0);
	CU_ASSERT(report_shard_cmp(&b, &c) < 0); /* node before index */
	CU_ASSERT(report_shard_cmp(&c, &d) > 0); /* node before arch */
	CU_ASSERT(report_shard_cmp(&e, &a) < 0);
	CU_ASSERT(report_shard_same_run(&a, &b));
	CU_ASSERT(!report_shard_same_run(&a, &c));
	CU_ASSERT(!report_shard_same_run(&a, &d));
	CU_ASSERT(report_shard_same_suite(&a, &c));
	CU_ASSERT(!report_shard_same_suite(&a, &d));
	CU_ASSERT(!report_shard_same_suite(&a, &e));
}

/* A report with n leaking tests named PREFIX/0.. on its own node. */
static report *leaky_report(uint32_t node, const char *prefix, int n)
{
	report *r = report_new();
	report_shard *s = report_add_shard(r);
	s->node = node;
	s->arch = report_strdup("x64");
	s->suite = report_strdup(prefix);
	for (int i = 0; i < n; i++) {
		char name[64];
		report_test *t = report_shard_add_test(s);
		snprintf(name, sizeof(name), "%s/%d", prefix, i);
		t->name = report_strdup(name);
		t->va_delta = 1000 + i;
	}
	report_finish(r, REPORT_MAX_SUSPECTS);
	return r;
}

/* A merge keeps as many suspects as a run does: not the larger side's count
 * (3 + 3 leaking tests kept 3), not 10 (a run keeps 20). */
static void test_merge_suspects(void)
{
	mg_err err = {{0}};
	report *a = leaky_report(1, "a", 3), *b = leaky_report(2, "b", 3);
	CU_ASSERT_EQUAL(a->nsuspects, 3);
	CU_ASSERT_EQUAL_FATAL(report_merge(a, b, &err), 0);
	CU_ASSERT_EQUAL(a->nsuspects, 6);
	report_free(a);
	report_free(b);
	a = leaky_report(1, "a", 15), b = leaky_report(2, "b", 15);
	CU_ASSERT_EQUAL(a->nsuspects, 15);
	CU_ASSERT_EQUAL_FATAL(report_merge(a, b, &err), 0);
	CU_ASSERT_EQUAL(a->nsuspects, REPORT_MAX_SUSPECTS);
	CU_ASSERT_EQUAL(a->totals.tests, 30);
	report_free(a);
	report_free(b);
	a = leaky_report(1, "a", 30);
	CU_ASSERT_EQUAL(a->nsuspects, REPORT_MAX_SUSPECTS);
	report_free(a);
}

static void expect_size(uint64_t bytes, const char *want)
{
	char buf[32];
	report_format_size(buf, sizeof(buf), bytes);
	if (strcmp(buf, want) != 0)
		fprintf(stderr, "%llu: '%s' != '%s'\n", (unsigned long long)bytes, buf, want);
	CU_ASSERT_STRING_EQUAL(buf, want);
}

static void test_format_size(void)
{
	expect_size(0, "0 B");
	expect_size(12, "12 B");
	expect_size(1023, "1023 B");
	expect_size(4096, "4.0 KiB");
	expect_size(1536, "1.5 KiB");
	expect_size(222298112, "212 MiB");
	expect_size(3747563520ull, "3.49 GiB");
	expect_size(3758096384ull, "3.50 GiB");
	expect_size(10ull << 20, "10.0 MiB");
	expect_size((1ull << 30) - 1, "1.00 GiB");
	expect_size(UINT64_MAX, "16.0 EiB");
	/* The signed form, shared by show and compare. */
	char buf[32];
	report_format_size_signed(buf, sizeof(buf), -222298112);
	CU_ASSERT_STRING_EQUAL(buf, "-212 MiB");
	report_format_size_signed(buf, sizeof(buf), 4096);
	CU_ASSERT_STRING_EQUAL(buf, "4.0 KiB");
	report_format_size_signed(buf, sizeof(buf), INT64_MIN);
	CU_ASSERT_STRING_EQUAL(buf, "-8.00 EiB");
}

static void expect_duration(double s, const char *want)
{
	char buf[32];
	report_format_duration(buf, sizeof(buf), s);
	if (strcmp(buf, want) != 0)
		fprintf(stderr, "%g: '%s' != '%s'\n", s, buf, want);
	CU_ASSERT_STRING_EQUAL(buf, want);
}

static void test_format_duration(void)
{
	expect_duration(0.85, "850ms");
	expect_duration(0, "0ms");
	expect_duration(12.34, "12.3s");
	expect_duration(252, "4m12s");
	expect_duration(3720, "1h02m");
	expect_duration(59.99, "1m00s");
	expect_duration(-1, "-");
}

/* A start_time no time_t holds (a report read back may carry any number):
 * no cast that is undefined (clang's float-cast-overflow stops on 1e19),
 * the JSON's ISO time empty, JUnit's timestamp the epoch, the page a '?'. */
static void test_start_time_out_of_range(void)
{
	static const double bad[] = {1e19, -1, 253402300800.0 /* year 10000 */, INFINITY, NAN};
	char buf[64];
	CU_ASSERT_EQUAL(report_format_time(buf, sizeof(buf), 0, "%Y-%m-%d"), 0);
	CU_ASSERT_STRING_EQUAL(buf, "1970-01-01");
	CU_ASSERT_EQUAL(report_format_time(buf, sizeof(buf), 1790000000.7, "%H:%M:%S"), 0);
	CU_ASSERT_STRING_EQUAL(buf, "14:13:20");
	make_tmpdir();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CU_ASSERT_EQUAL(report_format_time(buf, sizeof(buf), bad[i], "%Y"), -1);
		CU_ASSERT_STRING_EQUAL(buf, "");
		report *r = fixture_full_report();
		r->start_time = bad[i];
		json_t *j = report_to_json(r);
		CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(j, "start_time_iso")), "");
		json_decref(j);
		char path[512], spec[600], text[1 << 16];
		path_in(path, sizeof(path), "j.xml");
		snprintf(spec, sizeof(spec), "junit=%s", path);
		CU_ASSERT_EQUAL(adapters_render(r, spec, &(mg_err){{0}}), 0);
		FILE *f = fopen(path, "r");
		size_t n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
		text[n] = 0;
		if (f)
			fclose(f);
		CU_ASSERT_PTR_NOT_NULL(strstr(text, "timestamp=\"1970-01-01T00:00:00\""));
		path_in(path, sizeof(path), "p.html");
		snprintf(spec, sizeof(spec), "html=%s", path);
		CU_ASSERT_EQUAL(adapters_render(r, spec, &(mg_err){{0}}), 0);
		report_free(r);
	}
}

static void test_check_spec(void)
{
	mg_err err = {{0}};
	CU_ASSERT_EQUAL(adapters_check("console", &err), 0);
	CU_ASSERT_EQUAL(adapters_check("console=out.txt", &err), 0);
	CU_ASSERT_EQUAL(adapters_check("jnuit=x.xml", &err), MG_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'jnuit'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "console"));
	CU_ASSERT_EQUAL(adapters_check("", &err), MG_EINVAL);
	CU_ASSERT_EQUAL(adapters_check("junit:all=x.xml", &err), 0);
	CU_ASSERT_EQUAL(adapters_check("teamcity:none", &err), 0);
	CU_ASSERT_EQUAL(adapters_check("junit:informative", &err), 0);
	CU_ASSERT_EQUAL(adapters_check("junit:most=x.xml", &err), MG_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "unknown detail 'most'"));
	CU_ASSERT_EQUAL(adapters_check("console:all", &err), MG_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "takes no detail"));
	CU_ASSERT_EQUAL(adapters_check("jnuit:all", &err), MG_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'jnuit'"));
}

static size_t count_in(const char *text, const char *what)
{
	size_t n = 0;
	for (const char *p = text; p && (p = strstr(p, what)) != NULL; p += strlen(what))
		n++;
	return n;
}

/* junit and teamcity write a test's memory for every test (:all), for none
 * (:none), or by default for the informative ones only: failed, retried, or
 * left >= ADAPTERS_INFORMATIVE_BYTES behind. junit as a line (testcase
 * properties only with :properties). */
static void test_adapter_detail(void)
{
	make_tmpdir();
	report *r = fixture_full_report();
	size_t ntests = 0, informative = 0;
	for (size_t i = 0; i < r->nshards; i++)
		for (size_t t = 0; t < r->shards[i].ntests; t++) {
			ntests++;
			informative += adapters_test_informative(&r->shards[i].tests[t]);
		}
	CU_ASSERT(informative > 0 && informative < ntests);
	static const char *const details[] = {"", ":all", ":none", ":informative"};
	const size_t want[] = {informative, ntests, 0, informative};
	for (int k = 0; k < 4; k++) {
		char path[512], spec[700];
		path_in(path, sizeof(path), "out");
		mg_err err = {{0}};
		snprintf(spec, sizeof(spec), "junit%s=%s", details[k], path);
		CU_ASSERT_EQUAL_FATAL(adapters_render(r, spec, &err), 0);
		char *text = slurp_text(path);
		CU_ASSERT_EQUAL(count_in(text, "memguard: state="), want[k]);
		CU_ASSERT_EQUAL(count_in(text, "<property name=\"va_after\""), 0);
		CU_ASSERT_EQUAL(count_in(text, "[[PROPERTY|"), 0);
		CU_ASSERT_EQUAL(count_in(text, "<testcase "), ntests);
		free(text);
		snprintf(spec, sizeof(spec), "teamcity%s=%s", details[k], path);
		CU_ASSERT_EQUAL_FATAL(adapters_render(r, spec, &err), 0);
		text = slurp_text(path);
		CU_ASSERT_EQUAL(count_in(text, "name='va_after'"), want[k]);
		CU_ASSERT_EQUAL(count_in(text, "##teamcity[testStarted "), ntests);
		free(text);
	}
	/* junit:properties: every test's memory inside its testcase, no lines;
	 * teamcity takes no such detail. */
	char path[512], spec[700];
	path_in(path, sizeof(path), "out");
	mg_err err = {{0}};
	snprintf(spec, sizeof(spec), "junit:properties=%s", path);
	CU_ASSERT_EQUAL_FATAL(adapters_render(r, spec, &err), 0);
	char *text = slurp_text(path);
	CU_ASSERT_EQUAL(count_in(text, "<property name=\"va_after\""), ntests);
	CU_ASSERT_EQUAL(count_in(text, "memguard: state="), 0);
	free(text);
	CU_ASSERT_EQUAL(adapters_check("teamcity:properties", &err), MG_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "known: informative, all, none)"));
	CU_ASSERT_EQUAL(adapters_check("junit:propertie", &err), MG_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "none, properties)"));
	report_free(r);
	cleanup_tmpdir();
}

static void test_console_to_file(void)
{
	make_tmpdir();
	char path[512];
	path_in(path, sizeof(path), "console.txt");
	report *r = fixture_full_report();
	mg_err err = {{0}};
	char spec[600];
	snprintf(spec, sizeof(spec), "console=%s", path);
	CU_ASSERT_EQUAL(adapters_render(r, spec, &err), 0);
	CU_ASSERT(file_exists(path));
	CU_ASSERT(adapters_render(r, "console=/nonexistent/memguard/c.txt", &err) < 0);
	CU_ASSERT(!file_exists("/nonexistent/memguard/c.txt.tmp"));
	report_free(r);
	cleanup_tmpdir();
}

/* Tests that were processes of their own (ctest) leave nothing behind: the
 * console lists the largest by their own VA, largest first, five at most,
 * and none of another driver's (whose VA is its host's). */
static void test_console_largest(void)
{
	static const unsigned mib[] = {5, 70, 30, 0, 90, 10, 60};
	report *r = report_new();
	report_shard *s = report_add_shard(r);
	s->suite = report_strdup("suite");
	s->arch = report_strdup("x64");
	s->driver = report_strdup("ctest");
	for (size_t i = 0; i < sizeof(mib) / sizeof(mib[0]); i++) {
		report_test *t = report_shard_add_test(s);
		char name[16];
		snprintf(name, sizeof(name), "t%u", mib[i]);
		t->name = report_strdup(name);
		t->va_after = (uint64_t)mib[i] << 20;
	}
	s = report_add_shard(r);
	s->suite = report_strdup("host");
	s->arch = report_strdup("x64");
	s->driver = report_strdup("native");
	report_test *t = report_shard_add_test(s);
	t->name = report_strdup("native500");
	t->va_after = 500u << 20;
	report_finish(r, REPORT_MAX_SUSPECTS);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(console_write(r, f), 0);
	fclose(f);
	const char *sec = strstr(text, "largest tests (each a process of its own: its peak VA):\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(sec);
	CU_ASSERT_PTR_NOT_NULL(strstr(sec, "   90.0 MiB  t90\n   70.0 MiB  t70\n   60.0 MiB  t60\n"
	                                   "   30.0 MiB  t30\n   10.0 MiB  t10\n"));
	CU_ASSERT_PTR_NULL(strstr(sec, "t5\n"));
	CU_ASSERT_PTR_NULL(strstr(sec, "native500"));
	free(text);
	report_free(r);
}

static void test_auto_env(void)
{
	static const char *const vars[] = {"GITHUB_ACTIONS",   "GITLAB_CI", "TF_BUILD",
	                                   "TEAMCITY_VERSION", "BUILDKITE", "JENKINS_URL",
	                                   "CIRCLECI"};
	static const char *const want[] = {"github",    "gitlab", "azure", "teamcity",
	                                   "buildkite", "junit",  "junit"};
	const char *names[4];
	for (size_t i = 0; i < 7; i++)
		unsetenv(vars[i]);
	CU_ASSERT_EQUAL(adapters_auto(names, 4), 1);
	CU_ASSERT_STRING_EQUAL(names[0], "console");
	for (size_t i = 0; i < 7; i++) {
		setenv(vars[i], "true", 1);
		size_t n = adapters_auto(names, 4);
		CU_ASSERT(n >= 1);
		CU_ASSERT_STRING_EQUAL(names[0], want[i]);
		if (i == 0) {
			CU_ASSERT_EQUAL(n, 2);
			CU_ASSERT_STRING_EQUAL(names[1], "junit");
		}
		unsetenv(vars[i]);
	}
	/* an empty variable does not count */
	setenv("GITLAB_CI", "", 1);
	CU_ASSERT_EQUAL(adapters_auto(names, 4), 1);
	CU_ASSERT_STRING_EQUAL(names[0], "console");
	unsetenv("GITLAB_CI");
}

/* Writing to /dev/null (or any non-regular file) writes to it: the
 * atomic rename must never replace a device with a file. */
static void test_save_to_device(void)
{
	report *r = report_new();
	mg_err err = {{0}};
	struct stat st;
	CU_ASSERT_EQUAL(report_save(r, "/dev/null", &err), 0);
	CU_ASSERT_EQUAL(adapters_render(r, "console=/dev/null", &err), 0);
	CU_ASSERT_EQUAL(adapters_render(r, "junit=/dev/null", &err), 0);
	CU_ASSERT_EQUAL_FATAL(stat("/dev/null", &st), 0);
	CU_ASSERT(S_ISCHR(st.st_mode));
	CU_ASSERT_NOT_EQUAL(access("/dev/null.tmp", F_OK), 0);
	report_free(r);
}

/* An html file that cannot be written is an error naming its path. */
static void test_html_bad_path(void)
{
	report *r = report_new();
	mg_err err = {{0}};
	CU_ASSERT_EQUAL(adapters_check("html=x.html", &err), 0);
	CU_ASSERT(adapters_render(r, "html=/nonexistent/x.html", &err) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "/nonexistent/x.html"));
	report_free(r);
}

/* A fake buildkite-agent on PATH gets the arguments and the Markdown on
 * stdin; a failing agent is an error. */
static void test_buildkite_agent(void)
{
	make_tmpdir();
	char agent[512], args[512], body[512], cmd[2048];
	path_in(agent, sizeof(agent), "buildkite-agent");
	path_in(args, sizeof(args), "args");
	path_in(body, sizeof(body), "body");
	FILE *f = fopen(agent, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fprintf(f, "#!/bin/sh\necho \"$@\" > '%s'\ncat > '%s'\nexit ${FAKE_AGENT_RC:-0}\n", args,
	        body);
	fclose(f);
	CU_ASSERT_EQUAL_FATAL(chmod(agent, 0755), 0);
	char *old_path = report_strdup(getenv("PATH"));
	snprintf(cmd, sizeof(cmd), "%s:%s", tmpdir, old_path ? old_path : "/usr/bin:/bin");
	setenv("PATH", cmd, 1);

	report *r = fixture_full_report();
	mg_err err = {{0}};
	CU_ASSERT_EQUAL(adapters_render(r, "buildkite", &err), 0);
	char *a = slurp_text(args), *b = slurp_text(body);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_STRING_EQUAL(a, "annotate --context memguard-node-2 --style error\n");
	CU_ASSERT_PTR_NOT_NULL(strstr(b, "| shard | arch |"));
	free(a);
	free(b);
	setenv("FAKE_AGENT_RC", "3", 1);
	CU_ASSERT(adapters_render(r, "buildkite", &err) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "status 3"));
	unsetenv("FAKE_AGENT_RC");
	if (old_path)
		setenv("PATH", old_path, 1);
	free(old_path);
	report_free(r);
	cleanup_tmpdir();
}

/* github appends to the step summary and GITHUB_OUTPUT (never replaces). */
static void test_github_files(void)
{
	make_tmpdir();
	char summary[512], output[512];
	path_in(summary, sizeof(summary), "summary.md");
	path_in(output, sizeof(output), "output");
	CU_ASSERT_FATAL(write_file(summary, "earlier step\n") == 0);
	setenv("GITHUB_STEP_SUMMARY", summary, 1);
	setenv("GITHUB_OUTPUT", output, 1);
	report *r = fixture_full_report();
	mg_err err = {{0}};
	fflush(stdout);
	CU_ASSERT_EQUAL(adapters_render(r, "github", &err), 0);
	char *s = slurp_text(summary), *o = slurp_text(output);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	CU_ASSERT(strncmp(s, "earlier step\n### memguard", 25) == 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(o, "memguard_peak_va=3747563521\n"));
	free(s);
	free(o);
	unsetenv("GITHUB_STEP_SUMMARY");
	unsetenv("GITHUB_OUTPUT");
	report_free(r);
	cleanup_tmpdir();
}

static void test_clean_text(void)
{
	int cut = 0;
	char *c = adapters_clean("a\x01\tb\xff\xef\xbf\xbe", 0, ADAPTERS_XML, &cut);
	CU_ASSERT_STRING_EQUAL(c, "a\\x01\tb\xef\xbf\xbd\xef\xbf\xbd");
	CU_ASSERT_EQUAL(cut, 0);
	free(c);
	c = adapters_clean("line\nnext", 4, ADAPTERS_ONELINE, &cut);
	CU_ASSERT_STRING_EQUAL(c, "line...");
	CU_ASSERT_EQUAL(cut, 1);
	free(c);
	c = adapters_clean("x\ny", 0, ADAPTERS_ONELINE, NULL);
	CU_ASSERT_STRING_EQUAL(c, "x y");
	free(c);
}

/* The shared summary stays within its limit, cut at a line, and says so. */
static void test_markdown_truncated(void)
{
	report *r = fixture_full_report();
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_EQUAL(markdown_summary(r, m, 1500), 0);
	fclose(m);
	CU_ASSERT(len <= 1500);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "summary truncated to fit 1500 bytes"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "| shard | arch |"));
	free(buf);
	buf = NULL;
	m = open_memstream(&buf, &len);
	CU_ASSERT_EQUAL(markdown_summary(r, m, 1 << 20), 0);
	fclose(m);
	CU_ASSERT_PTR_NULL(strstr(buf, "truncated"));
	free(buf);
	report_free(r);
}

static const mg_case cases[] = {
    {"roundtrip", test_roundtrip},
    {"roundtrip_limit_bytes", test_roundtrip_limit_bytes},
    {"roundtrip_no_repo", test_roundtrip_no_repo},
    {"write_is_tree", test_write_is_tree},
    {"load_v1", test_load_v1},
    {"load_any_layout", test_load_any_layout},
    {"utf8_replaced", test_utf8_replaced},
    {"load_missing", test_load_missing},
    {"load_not_json", test_load_not_json},
    {"load_wrong_schema", test_load_wrong_schema},
    {"load_wrong_type", test_load_wrong_type},
    {"load_unknown_state", test_load_unknown_state},
    {"load_missing_field", test_load_missing_field},
    {"load_bad_timeline", test_load_bad_timeline},
    {"save_no_dir", test_save_no_dir},
    {"save_failure_keeps_old", test_save_failure_keeps_old},
    {"save_symlink_tmp", test_save_symlink_tmp},
    {"save_concurrent", test_save_concurrent},
    {"save_to_fifo", test_save_to_fifo},
    {"merge_counts", test_merge_counts},
    {"merge_replace", test_merge_replace},
    {"parse_some_merging", test_parse_some_merging},
    {"parse_tests", test_parse_tests},
    {"test_peaks", test_test_peaks},
    {"load_out_of_range_test", test_load_out_of_range_test},
    {"merge_exit_codes", test_merge_exit_codes},
    {"merge_rerun", test_merge_rerun},
    {"finish_suspects", test_finish_suspects},
    {"finish_saturates", test_finish_saturates},
    {"finish_totals", test_finish_totals},
    {"state_failed", test_state_failed},
    {"shard_key", test_shard_key},
    {"merge_suspects", test_merge_suspects},
    {"format_size", test_format_size},
    {"format_duration", test_format_duration},
    {"start_time_out_of_range", test_start_time_out_of_range},
    {"check_spec", test_check_spec},
    {"adapter_detail", test_adapter_detail},
    {"console_to_file", test_console_to_file},
    {"console_largest", test_console_largest},
    {"auto_env", test_auto_env},
    {"html_bad_path", test_html_bad_path},
    {"save_to_device", test_save_to_device},
    {"buildkite_agent", test_buildkite_agent},
    {"github_files", test_github_files},
    {"clean_text", test_clean_text},
    {"markdown_truncated", test_markdown_truncated},
};

MG_TEST_MAIN("adapters", cases)

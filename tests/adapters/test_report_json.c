/*
 * test_report_json.c - the report's JSON form: round trips (/2 and /1,
 * any layout), load errors naming the bad field, UTF-8, the streaming reader.
 */
#include "adapters.h"
#include "fixture.h"
#include "mg_test.h"
#include "report.h"
#include "test_report.h"
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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
	CU_ASSERT(str_eq(a->seed, b->seed));
	CU_ASSERT_EQUAL_FATAL(a->nshards, b->nshards);
	for (size_t i = 0; i < a->nshards; i++) {
		const report_shard *x = &a->shards[i], *y = &b->shards[i];
		CU_ASSERT_EQUAL(x->node, y->node);
		CU_ASSERT_EQUAL(x->index, y->index);
		CU_ASSERT(str_eq(x->suite, y->suite));
		CU_ASSERT(str_eq(x->arch, y->arch));
		CU_ASSERT(str_eq(x->driver, y->driver));
		CU_ASSERT(str_eq(x->command, y->command));
		CU_ASSERT(str_eq(x->approximate, y->approximate));
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
			CU_ASSERT_EQUAL(p->end, q->end);
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
			CU_ASSERT(bytes_eq(p->output, q->output));
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

void test_roundtrip(void)
{
	make_tmpdir();
	char path[512];
	path_in(path, sizeof(path), "r.json");
	report *r = fixture_full_report();
	CU_ASSERT_FATAL(r->nsuspects > 0);
	r->shards[1].approximate = report_strdup("a static executable (no LD_PRELOAD, no probe)");
	mg_err err = {{0}};
	CU_ASSERT_EQUAL_FATAL(report_save(r, path, &err), 0);
	report *back = NULL;
	CU_ASSERT_EQUAL_FATAL(report_load(&back, path, &err), 0);
	assert_reports_equal(r, back);
	CU_ASSERT(back->shards[1].approximate && !back->shards[0].approximate);
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
void test_write_is_tree(void)
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
void test_load_v1(void)
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
void test_load_any_layout(void)
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
void test_roundtrip_limit_bytes(void)
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

void test_roundtrip_no_repo(void)
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
void test_utf8_replaced(void)
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

void test_load_missing(void)
{
	report *r = (report *)1;
	mg_err err = {{0}};
	CU_ASSERT_EQUAL(report_load(&r, "/nonexistent/memguard/report.json", &err), MG_ENOTFOUND);
	CU_ASSERT_PTR_NULL(r);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "/nonexistent/memguard/report.json"));
}

void test_load_not_json(void)
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

void test_load_wrong_schema(void)
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

void test_load_wrong_type(void)
{
	expect_invalid(edit_type, "shards[1].tests[5].va: expected an integer");
}

static void edit_state(json_t *j)
{
	json_object_set_new(test_at(j, 1, 5), "s", json_string("zzz"));
}

void test_load_unknown_state(void)
{
	expect_invalid(edit_state, "shards[1].tests[5].s: unknown state 'zzz'");
}

/* How a host ended is an enum in the schema: an unknown word is refused,
 * named (it was a free string before). */
static void edit_end(json_t *j)
{
	json_t *gen = json_array_get(
	    json_object_get(json_array_get(json_object_get(j, "shards"), 1), "generations"), 0);
	json_object_set_new(gen, "end", json_string("exploded"));
}

void test_load_unknown_end(void)
{
	expect_invalid(edit_end, "shards[1].generations[0].end: unknown end 'exploded'");
}

/* A shard's "approximate" says why: an empty one is refused, as the
 * schema's minLength (found by review: it rendered "SUITE: : ..."). */
static void edit_approximate(json_t *j)
{
	json_object_set_new(json_array_get(json_object_get(j, "shards"), 0), "approximate",
	                    json_string(""));
}

void test_load_empty_approximate(void)
{
	expect_invalid(edit_approximate, "shards[0].approximate: empty");
}

/* Each renderer says a shard's figures are approximate, and why, once per
 * suite and reason however many lanes have it; JUnit as a property. */
void test_approximate_said(void)
{
	report *r = fixture_full_report();
	const char *why = "a static executable (no LD_PRELOAD, no probe)";
	free(r->shards[1].suite);
	r->shards[1].suite = report_strdup(r->shards[0].suite); /* two lanes of one suite */
	for (size_t i = 0; i < 2; i++)
		r->shards[i].approximate = report_strdup(why);
	char *buf;
	size_t len;
	for (int form = 0; form < 4; form++) {
		FILE *f = open_memstream(&buf, &len);
		mg_err err = {{0}};
		int rc = form == 0   ? console_write(r, f)
		         : form == 1 ? markdown_summary(r, f, 1 << 20)
		         : form == 2 ? junit_write_detail(r, f, ADAPTERS_INFORMATIVE, &err)
		                     : 0;
		CU_ASSERT_EQUAL(rc, 0);
		fclose(f);
		if (form == 3) { /* html writes a file */
			char path[512];
			make_tmpdir();
			path_in(path, sizeof(path), "r.html");
			CU_ASSERT_EQUAL(html_render(r, path, &err), 0);
			free(buf);
			buf = NULL;
			FILE *h = fopen(path, "r");
			CU_ASSERT_FATAL(h != NULL);
			f = open_memstream(&buf, &len);
			int c;
			while ((c = fgetc(h)) != EOF)
				fputc(c, f);
			fclose(h);
			fclose(f);
			cleanup_tmpdir();
		}
		size_t n = 0; /* its start: Markdown escapes LD_PRELOAD's _ */
		for (const char *p = buf; (p = strstr(p, "a static executable")) != NULL; p++)
			n++;
		/* JUnit: a property of each lane's testsuite; the others: one line */
		CU_ASSERT_EQUAL(n, form == 2 ? 2u : 1u);
		if (n != (form == 2 ? 2u : 1u))
			fprintf(stderr, "form %d: said %zu times\n%s\n", form, n, buf);
		CU_ASSERT(form == 2 || strstr(buf, ADAPTERS_APPROXIMATE) != NULL);
		free(buf);
	}
	report_free(r);
}

static void edit_missing(json_t *j)
{
	json_t *gen = json_array_get(
	    json_object_get(json_array_get(json_object_get(j, "shards"), 0), "generations"), 1);
	json_t *bd = json_array_get(json_object_get(gen, "breakdowns"), 0);
	json_object_del(json_array_get(json_object_get(bd, "groups"), 0), "total");
	json_object_set_new(j, "extra", json_true());
}

void test_load_missing_field(void)
{
	expect_invalid(edit_missing,
	               "shards[0].generations[1].breakdowns[0].groups[0].total: missing");
}

static void edit_timeline(json_t *j)
{
	json_t *tl = json_object_get(json_array_get(json_object_get(j, "shards"), 0), "timeline");
	json_array_append_new(tl, json_pack("[f,i,i]", 1.0, 2, 3));
}

void test_load_bad_timeline(void)
{
	expect_invalid(edit_timeline, "shards[0].timeline[5]");
}

/* What report_parse_tests gives the reader of its tests' figures. */
typedef struct seen_tests {
	size_t n, stop_at;
	size_t shard[16];
	char name[16][32];
	int64_t va[16];
} seen_tests;

static int see_test(size_t shard, const report_test *t, uint64_t va_peak,
                    const report_test_sites *sites, void *ctx, mg_err *err)
{
	(void)sites;
	(void)va_peak;
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
void test_parse_tests(void)
{
	report *r = node_report(1, 2, 3), *whole = NULL, *heads = NULL;
	r->shards[1].tests[2].va_delta = -4096;
	report_finish(r, REPORT_MAX_SUSPECTS);
	size_t len = 0;
	char *doc = readback_mem(r, &len);
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
void test_test_peaks(void)
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
	char *doc = readback_mem(r, &len);
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
void test_load_out_of_range_test(void)
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

/* A start_time no time_t holds (a report read back may carry any number):
 * no cast that is undefined (clang's float-cast-overflow stops on 1e19),
 * the JSON's ISO time empty, JUnit's timestamp the epoch, the page a '?'. */
void test_start_time_out_of_range(void)
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

/*
 * test_sites.c - allocation sites in the report (issue 25): the model's
 * sparse table, the JSON form both ways (whole and in pieces, merged,
 * handed to a test reader), bad sites refused naming the field.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "adapters.h"
#include "fixture.h"
#include "mg_test.h"
#include "readback.h"
#include "report.h"

static int same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Every site of every shard of a and b is the same, field by field. */
static void assert_sites_equal(const report *a, const report *b)
{
	CU_ASSERT_EQUAL_FATAL(a->nshards, b->nshards);
	for (size_t i = 0; i < a->nshards; i++) {
		const report_shard *x = &a->shards[i], *y = &b->shards[i];
		CU_ASSERT_EQUAL_FATAL(x->nsites, y->nsites);
		for (size_t k = 0; k < x->nsites; k++) {
			const report_test_sites *p = &x->sites[k], *q = &y->sites[k];
			CU_ASSERT_EQUAL(p->test, q->test);
			CU_ASSERT_EQUAL_FATAL(p->nsites, q->nsites);
			for (size_t s = 0; s < p->nsites; s++) {
				const report_site *u = &p->sites[s], *v = &q->sites[s];
				CU_ASSERT(same(u->kind, v->kind));
				CU_ASSERT(u->bytes == v->bytes && u->count == v->count);
				CU_ASSERT_EQUAL_FATAL(u->nframes, v->nframes);
				for (size_t f = 0; f < u->nframes; f++) {
					const report_frame *m = &u->frames[f], *n = &v->frames[f];
					CU_ASSERT(same(m->function, n->function));
					CU_ASSERT(same(m->file, n->file));
					CU_ASSERT(same(m->module, n->module));
					CU_ASSERT(same(m->build_id, n->build_id));
					CU_ASSERT(m->line == n->line && m->offset == n->offset);
				}
				CU_ASSERT_EQUAL_FATAL(u->npins, v->npins);
				for (size_t n = 0; n < u->npins; n++)
					CU_ASSERT(same(u->pins[n], v->pins[n]));
			}
		}
	}
}

/* A shard of 6 tests; tests 4 and 1 (added in that order) have sites. */
static report *sites_report(void)
{
	report *r = fixture_cache_report("x64", 6, 4, 16 << 20);
	report_shard *s = &r->shards[0];
	report_site *site = fixture_add_site(s, 4, "mmap", 2, 16u << 20);
	fixture_add_frame(site, "block_new", "storage.c", 49);
	fixture_add_frame(site, "cache_put", "cache.c", 115);
	report_frame *unknown = report_site_add_frame(site); /* nothing known */
	(void)unknown;
	report_site_add_pin(site, "item 17 (Cache/3)");
	site = fixture_add_site(s, 1, "new", 1, 2u << 20);
	report_frame *f = report_site_add_frame(site);
	f->function = report_strdup("make_cache");
	f->line = 31; /* no file: the line alone */
	report_finish(r, 10);
	return r;
}

/* The table is sparse and ascending by test, whatever the order of adds;
 * a second add for a test returns its entry. */
static void test_model(void)
{
	report *r = sites_report();
	report_shard *s = &r->shards[0];
	CU_ASSERT_EQUAL_FATAL(s->nsites, 2);
	CU_ASSERT_EQUAL(s->sites[0].test, 1);
	CU_ASSERT_EQUAL(s->sites[1].test, 4);
	CU_ASSERT_PTR_NULL(report_shard_test_sites(s, 0));
	CU_ASSERT_PTR_NULL(report_shard_test_sites(s, 5));
	const report_test_sites *ts = report_shard_test_sites(s, 4);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ts);
	CU_ASSERT_EQUAL(ts->nsites, 1);
	CU_ASSERT_STRING_EQUAL(ts->sites[0].kind, "mmap");
	CU_ASSERT_EQUAL(ts->sites[0].nframes, 3);
	CU_ASSERT_PTR_EQUAL(report_shard_add_test_sites(s, 4), ts);
	CU_ASSERT_EQUAL(s->nsites, 2);
	report_shard_add_test_sites(s, 2);
	CU_ASSERT_EQUAL(s->nsites, 3);
	CU_ASSERT_EQUAL(s->sites[1].test, 2);
	report_free(r);
}

static const char *const want_json =
    "\"sites\":[{\"kind\":\"mmap\",\"bytes\":16777216,\"count\":2,\"frames\":["
    "{\"function\":\"block_new\",\"file\":\"storage.c\",\"line\":49,"
    "\"module\":\"/opt/items/libitems.so\",\"build_id\":\"4f0c2a9e\",\"offset\":4709},"
    "{\"function\":\"cache_put\",\"file\":\"cache.c\",\"line\":115,"
    "\"module\":\"/opt/items/libitems.so\",\"build_id\":\"4f0c2a9e\",\"offset\":4775},"
    "{}],\"pins\":[\"item 17 (Cache/3)\"]}]";

/* Written in pieces and as a tree (the same text), read back in pieces and
 * as a tree (the same sites), written again to the same bytes; the unknown
 * fields of a frame and an empty pins are left out. */
static void test_roundtrip(void)
{
	report *r = sites_report();
	size_t len = 0;
	char *doc = readback_mem(r, &len);
	CU_ASSERT_PTR_NOT_NULL(strstr(doc, want_json));
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(doc, "\"sites\":[{\"kind\":\"new\",\"bytes\":2097152,\"count\":1,\"frames\":"
	                "[{\"function\":\"make_cache\",\"line\":31}]}]"));
	json_error_t jerr;
	json_t *streamed = json_loadb(doc, len, 0, &jerr), *tree = report_to_json(r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(streamed);
	CU_ASSERT(json_equal(streamed, tree));
	report *back = NULL, *fromtree = NULL;
	mg_err err = {{0}};
	CU_ASSERT_EQUAL_FATAL(report_parse(&back, doc, len, &err), 0);
	CU_ASSERT_EQUAL_FATAL(report_from_json(&fromtree, tree, &err), 0);
	assert_sites_equal(r, back);
	assert_sites_equal(r, fromtree);
	size_t len2 = 0;
	char *again = readback_mem(back, &len2);
	CU_ASSERT(len == len2 && memcmp(doc, again, len) == 0);
	free(again);
	json_decref(streamed);
	json_decref(tree);
	free(doc);
	report_free(fromtree);
	report_free(back);
	report_free(r);
}

/* The full fixture (hostile strings in every field of a site) round-trips
 * through a file; a merge copies the sites, and a merge that takes the
 * shards moves them. */
static void test_fixture_merge(void)
{
	report *r = fixture_full_report();
	CU_ASSERT_FATAL(r->shards[1].nsites == 1);
	size_t len = 0;
	char *doc = readback_mem(r, &len);
	report *back = NULL, *m = report_new(), *t = report_new();
	mg_err err = {{0}};
	CU_ASSERT_EQUAL_FATAL(report_parse(&back, doc, len, &err), 0);
	size_t len2 = 0;
	char *again = readback_mem(back, &len2);
	CU_ASSERT(len == len2 && memcmp(doc, again, len) == 0);
	CU_ASSERT_EQUAL_FATAL(report_merge(m, back, &err), 0);
	assert_sites_equal(back, m);
	CU_ASSERT_EQUAL_FATAL(report_merge_take(t, back, &err), 0);
	assert_sites_equal(m, t);
	free(again);
	free(doc);
	report_free(t);
	report_free(m);
	report_free(back);
	report_free(r);
}

typedef struct seen_sites {
	size_t tests, with;
	char fn[2][32];
} seen_sites;

static int see(size_t shard, const report_test *t, uint64_t va_peak, const report_test_sites *sites,
               void *ctx, mg_err *err)
{
	(void)shard;
	(void)va_peak;
	(void)err;
	seen_sites *s = ctx;
	int want = strcmp(t->name, "Cache/1") == 0 || strcmp(t->name, "Cache/4") == 0;
	CU_ASSERT_EQUAL(!!sites, want);
	if (sites && s->with < 2) {
		CU_ASSERT_EQUAL(sites->test, 0);
		snprintf(s->fn[s->with], sizeof(s->fn[0]), "%s",
		         sites->sites[0].frames[0].function);
		s->with++;
	}
	s->tests++;
	return 0;
}

/* A reader of tests one at a time (compare) is handed each test's sites
 * with it; a test without any gets NULL; the shards keep none. */
static void test_handed_to_reader(void)
{
	report *r = sites_report();
	size_t len = 0;
	char *doc = readback_mem(r, &len);
	report *heads = NULL;
	mg_err err = {{0}};
	seen_sites s = {0};
	CU_ASSERT_EQUAL_FATAL(report_parse_tests(&heads, doc, len, see, &s, &err), 0);
	CU_ASSERT_EQUAL(s.tests, 6);
	CU_ASSERT_EQUAL(s.with, 2);
	CU_ASSERT_STRING_EQUAL(s.fn[0], "make_cache");
	CU_ASSERT_STRING_EQUAL(s.fn[1], "block_new");
	CU_ASSERT_EQUAL(heads->shards[0].nsites, 0);
	report_free(heads);
	free(doc);
	report_free(r);
}

/* The JSON tree of sites_report with test t's "sites" replaced by the
 * JSON text sites (NULL: removed). */
static json_t *tree_with_sites(size_t t, const char *sites)
{
	report *r = sites_report();
	json_t *tree = report_to_json(r);
	report_free(r);
	json_t *tests =
	    json_object_get(json_array_get(json_object_get(tree, "shards"), 0), "tests");
	json_t *o = json_array_get(tests, t);
	if (!sites) {
		json_object_del(o, "sites");
		return tree;
	}
	json_error_t jerr;
	json_t *v = json_loads(sites, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	json_object_set_new(o, "sites", v);
	return tree;
}

/* Each bad site refused with the field named, by both readers. */
static void test_refused(void)
{
	static const struct {
		const char *sites, *want;
	} bad[] = {
	    {"{}", "shards[0].tests[4].sites: expected an array"},
	    {"[1]", "shards[0].tests[4].sites[0]: expected an object"},
	    {"[{\"bytes\":1,\"count\":1,\"frames\":[]}]", "tests[4].sites[0].kind: missing"},
	    {"[{\"kind\":7,\"bytes\":1,\"count\":1,\"frames\":[]}]",
	     "tests[4].sites[0].kind: expected a string"},
	    {"[{\"kind\":\"mmap\",\"bytes\":-1,\"count\":1,\"frames\":[]}]",
	     "tests[4].sites[0].bytes: -1 out of range"},
	    {"[{\"kind\":\"mmap\",\"bytes\":1,\"frames\":[]}]", "tests[4].sites[0].count: missing"},
	    {"[{\"kind\":\"mmap\",\"bytes\":1,\"count\":1}]", "tests[4].sites[0].frames: missing"},
	    {"[{\"kind\":\"mmap\",\"bytes\":1,\"count\":1,\"frames\":[\"f\"]}]",
	     "tests[4].sites[0].frames[0]: expected an object"},
	    {"[{\"kind\":\"mmap\",\"bytes\":1,\"count\":1,\"frames\":[{\"line\":4294967296}]}]",
	     "tests[4].sites[0].frames[0].line: 4294967296 out of range"},
	    {"[{\"kind\":\"mmap\",\"bytes\":1,\"count\":1,\"frames\":[{\"function\":null}]}]",
	     "tests[4].sites[0].frames[0].function: expected a string"},
	    {"[{\"kind\":\"mmap\",\"bytes\":1,\"count\":1,\"frames\":[{\"file\":\"a\\u0000b\"}]}]",
	     "tests[4].sites[0].frames[0].file: holds a NUL byte"},
	    {"[{\"kind\":\"mmap\",\"bytes\":1,\"count\":1,\"frames\":[{\"offset\":-5}]}]",
	     "tests[4].sites[0].frames[0].offset: -5 out of range"},
	    {"[{\"kind\":\"mmap\",\"bytes\":1,\"count\":1,\"frames\":[],\"pins\":\"x\"}]",
	     "tests[4].sites[0].pins: expected an array"},
	    {"[{\"kind\":\"mmap\",\"bytes\":1,\"count\":1,\"frames\":[],\"pins\":[3]}]",
	     "tests[4].sites[0].pins[0]: expected a string"},
	    {"[{\"kind\":\"mmap\",\"bytes\":1,\"count\":1,\"frames\":[],\"pins\":[\"\\u0000\"]}]",
	     "tests[4].sites[0].pins[0]: holds a NUL byte"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_t *tree = tree_with_sites(4, bad[i].sites);
		report *r = NULL;
		mg_err err = {{0}};
		CU_ASSERT_EQUAL(report_from_json(&r, tree, &err), MG_EINVAL);
		CU_ASSERT_PTR_NULL(r);
		if (!strstr(err.msg, bad[i].want))
			fprintf(stderr, "tree: '%s' lacks '%s'\n", err.msg, bad[i].want);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, bad[i].want));
		char *doc = json_dumps(tree, 0);
		mg_err perr = {{0}};
		CU_ASSERT_EQUAL(report_parse(&r, doc, strlen(doc), &perr), MG_EINVAL);
		CU_ASSERT_PTR_NULL(r);
		if (!strstr(perr.msg, bad[i].want))
			fprintf(stderr, "pieces: '%s' lacks '%s'\n", perr.msg, bad[i].want);
		CU_ASSERT_PTR_NOT_NULL(strstr(perr.msg, bad[i].want));
		free(doc);
		json_decref(tree);
	}
}

/* A test of a /2 tree in /1's long keys, every figure present. */
static void test_to_v1(json_t *o)
{
	static const char *const keys[][2] = {
	    {"n", "name"},         {"s", "state"},     {"g", "generation"},  {"a", "attempts"},
	    {"d", "duration"},     {"va", "va_after"}, {"rss", "rss_after"}, {"dva", "va_delta"},
	    {"drss", "rss_delta"}, {"m", "message"},   {"o", "output"},
	};
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		json_t *v = json_object_get(o, keys[k][0]);
		if (v) {
			json_object_set(o, keys[k][1], v);
			json_object_del(o, keys[k][0]);
		}
	}
	if (!json_object_get(o, "state"))
		json_object_set_new(o, "state", json_string("pass"));
	if (!json_object_get(o, "attempts"))
		json_object_set_new(o, "attempts", json_integer(1));
	if (!json_object_get(o, "duration"))
		json_object_set_new(o, "duration", json_real(0));
	static const char *const zero[] = {"generation", "va_after", "rss_after", "va_delta",
	                                   "rss_delta"};
	for (size_t k = 0; k < sizeof(zero) / sizeof(zero[0]); k++)
		if (!json_object_get(o, zero[k]))
			json_object_set_new(o, zero[k], json_integer(0));
}

/* An empty "sites" is no sites, by both readers; a /1 test holds them
 * under the same key. */
static void test_empty_and_v1(void)
{
	json_t *tree = tree_with_sites(1, "[]");
	report *r = NULL;
	mg_err err = {{0}};
	CU_ASSERT_EQUAL_FATAL(report_from_json(&r, tree, &err), 0);
	CU_ASSERT_EQUAL(r->shards[0].nsites, 1);
	CU_ASSERT_PTR_NULL(report_shard_test_sites(&r->shards[0], 1));
	report_free(r);
	r = NULL;
	char *doc = json_dumps(tree, 0);
	CU_ASSERT_EQUAL_FATAL(report_parse(&r, doc, strlen(doc), &err), 0);
	CU_ASSERT_EQUAL(r->shards[0].nsites, 1);
	CU_ASSERT_PTR_NULL(report_shard_test_sites(&r->shards[0], 1));
	report_free(r);
	r = NULL;
	free(doc);

	json_t *tests =
	    json_object_get(json_array_get(json_object_get(tree, "shards"), 0), "tests");
	for (size_t t = 0; t < json_array_size(tests); t++)
		test_to_v1(json_array_get(tests, t));
	json_object_set_new(tree, "schema", json_string(REPORT_SCHEMA_V1));
	CU_ASSERT_EQUAL_FATAL(report_from_json(&r, tree, &err), 0);
	CU_ASSERT_EQUAL(r->shards[0].nsites, 1);
	const report_test_sites *ts = report_shard_test_sites(&r->shards[0], 4);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ts);
	CU_ASSERT_STRING_EQUAL(ts->sites[0].frames[1].function, "cache_put");
	CU_ASSERT_STRING_EQUAL(ts->sites[0].pins[0], "item 17 (Cache/3)");
	json_decref(tree);
	report_free(r);
}

/* The page lists a suspect's sites under its row, what pins each on a line
 * of its own, and under a recycle's breakdown the tests its host ran with
 * theirs; a function name is text, never markup. */
static void test_html(void)
{
	report *r = sites_report();
	report_site *site = fixture_add_site(&r->shards[0], 4, "malloc", 1, 4096);
	report_frame *f = report_site_add_frame(site);
	f->function = report_strdup("<script>alert(1)</script>");
	fixture_add_recycle(&r->shards[0], NULL);
	report_finish(r, 10);
	const char *page = readback_render(r, "html");
	/* under the recycle's breakdown, the tests its host ran, most first */
	CU_ASSERT_PTR_NOT_NULL(strstr(
	    page, "<p>allocated by the tests it ran:</p>\n<ul><li>16.0 MiB in Cache/4<ul><li>2 "
	          "\u00d7 8.00 MiB mmap at block_new (storage.c:49) \u2190 cache_put (cache.c:115)"
	          "<br>pinned by: item 17 (Cache/3)</li><li>4.0 KiB malloc at "
	          "&lt;script&gt;alert(1)&lt;/script&gt;</li></ul></li><li>2.00 MiB in Cache/1<ul>"
	          "<li>2.00 MiB new at make_cache (:31)</li></ul></li></ul>\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(
	    page, "<tr><td></td><td colspan=\"4\" class=\"name\"><ul><li>2 \u00d7 8.00 MiB mmap at "
	          "block_new (storage.c:49) \u2190 cache_put (cache.c:115)<br>pinned by: item 17 "
	          "(Cache/3)</li><li>4.0 KiB malloc at &lt;script&gt;alert(1)&lt;/script&gt;</li>"
	          "</ul></td></tr>"));
	CU_ASSERT_PTR_NULL(strstr(page, "<script>alert"));
	/* Cache/1 left nothing: no suspect, its sites listed only under the
	 * breakdown */
	CU_ASSERT_PTR_NULL(strstr(strstr(page, "id=\"suspects\""), "make_cache"));
	report_free(r);
}

/* The console lists the top 3 sites of a suspect by bytes, and how many
 * more; each under the first recycle's breakdown too, by the test that
 * host ran. */
static void test_console(void)
{
	report *r = sites_report();
	report_shard *s = &r->shards[0];
	for (int i = 0; i < 3; i++)
		fixture_add_site(s, 4, "malloc", 1, 1000u * (unsigned)(i + 1));
	fixture_add_recycle(s, "va 3.51 GiB >= recycle 3.50 GiB");
	report_finish(r, 10);
	const char *text = readback_render(r, "console");
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(text, "   16.0 MiB  Cache/4  (grew in 1 of 1 runs)\n"
	                 "             2 \u00d7 8.00 MiB mmap at block_new (storage.c:49) \u2190 "
	                 "cache_put (cache.c:115)\n"
	                 "               pinned by: item 17 (Cache/3)\n"
	                 "             2.9 KiB malloc\n"
	                 "             2.0 KiB malloc\n"
	                 "             \u2026 and 1 more site\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "at the first recycle (shard 0, host 0):\n"
	                                    "  allocated by the tests it ran:\n"
	                                    "    16.0 MiB in Cache/4:\n"
	                                    "      2 \u00d7 8.00 MiB mmap at block_new"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "    2.00 MiB in Cache/1:\n"
	                                    "      2.00 MiB new at make_cache (:31)\n"));
	report_free(r);
}

static const mg_case cases[] = {
    {"html", test_html},
    {"console", test_console},
    {"model", test_model},
    {"roundtrip", test_roundtrip},
    {"fixture_merge", test_fixture_merge},
    {"handed_to_reader", test_handed_to_reader},
    {"refused", test_refused},
    {"empty_and_v1", test_empty_and_v1},
};

MG_TEST_MAIN("adapters_sites", cases)

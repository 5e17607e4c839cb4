/*
 * test_held_view.c - held blocks in the report (issue 25, the original crash
 * case): a block an earlier test allocated that a later test's live items
 * keep mapped. Its one-line form, its JSON both ways (items, in, by), a bad
 * one refused naming the field, and where the outputs show it: under a
 * suspect, the later tests that hold its blocks; under a recycle, the tests
 * whose items hold earlier tests' blocks (console, markdown, HTML).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "adapters.h"
#include "fixture.h"
#include "mg_test.h"
#include "readback.h"
#include "report.h"

/* Cache/1 maps an 8 MiB block (a suspect); Cache/7 keeps 3 items in it. */
static report *held_report(void)
{
	report *r = fixture_cache_report("x86", 8, 1, 8 << 20);
	report_shard *s = &r->shards[0];
	report_site *site = fixture_add_site(s, 1, "mmap", 1, 8u << 20);
	fixture_add_frame(site, "block_new", "storage.c", 49);
	site = fixture_add_site(s, 7, "mmap", 1, 8u << 20);
	fixture_add_frame(site, "block_new", "storage.c", 49);
	site->items = 3;
	site->in = report_strdup("Cache/1");
	report_frame *f = report_site_add_by(site);
	f->function = report_strdup("item_new");
	f->file = report_strdup("src/cache.c");
	f->line = 80;
	f = report_site_add_by(site);
	f->module = report_strdup("/usr/bin/items_tests");
	f->offset = 0x4a10;
	report_site_add_pin(site, "entry 5 (Cache/7)");
	return r;
}

static void test_format(void)
{
	report *r = held_report();
	char line[512];
	report_format_site(line, sizeof(line), &r->shards[0].sites[1].sites[0], 2);
	CU_ASSERT_STRING_EQUAL(line, "8.00 MiB mmap block at block_new (storage.c:49), allocated "
	                             "in Cache/1, held by 3 items this test placed at item_new "
	                             "(cache.c:80) \u2190 items_tests+0x4a10");
	free(r->shards[0].sites[1].sites[0].in);
	r->shards[0].sites[1].sites[0].in = NULL;
	r->shards[0].sites[1].sites[0].items = 1;
	report_format_site(line, sizeof(line), &r->shards[0].sites[1].sites[0], 1);
	CU_ASSERT_STRING_EQUAL(line, "8.00 MiB mmap block at block_new (storage.c:49), allocated "
	                             "by an earlier test, held by 1 item this test placed at "
	                             "item_new (cache.c:80)");
	report_format_site(line, sizeof(line), &r->shards[0].sites[0].sites[0], 2);
	CU_ASSERT_STRING_EQUAL(line, "8.00 MiB mmap at block_new (storage.c:49)");
	report_free(r);
}

/* Written and read back: items, in and by kept; a site of the test's own
 * has none of them. */
static void test_roundtrip(void)
{
	report *r = held_report();
	size_t len;
	char *buf = readback_mem(r, &len);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"items\":3,\"in\":\"Cache/1\",\"by\":[{"));
	report *back = NULL;
	mg_err err = {{0}};
	CU_ASSERT_EQUAL_FATAL(report_parse(&back, buf, len, &err), 0);
	const report_site *h = &back->shards[0].sites[1].sites[0];
	CU_ASSERT_EQUAL(h->items, 3);
	CU_ASSERT_STRING_EQUAL(h->in, "Cache/1");
	CU_ASSERT_EQUAL_FATAL(h->nby, 2);
	CU_ASSERT_STRING_EQUAL(h->by[0].function, "item_new");
	CU_ASSERT_EQUAL(h->by[0].line, 80);
	CU_ASSERT_STRING_EQUAL(h->by[1].module, "/usr/bin/items_tests");
	CU_ASSERT_EQUAL(h->by[1].offset, 0x4a10);
	const report_site *own = &back->shards[0].sites[0].sites[0];
	CU_ASSERT(own->items == 0 && own->in == NULL && own->nby == 0);
	/* the copy a reader hands out keeps them too */
	report_test_sites copy;
	report_test_sites_copy(&copy, &back->shards[0].sites[1]);
	CU_ASSERT_STRING_EQUAL(copy.sites[0].in, "Cache/1");
	CU_ASSERT_STRING_EQUAL(copy.sites[0].by[0].function, "item_new");
	report_test_sites_clear(&copy);
	report_free(back);
	free(buf);
	report_free(r);
}

/* A bad items, in or by is refused, naming the field. */
static void test_refused(void)
{
	report *r = held_report();
	size_t len;
	char *buf = readback_mem(r, &len);
	static const struct {
		const char *from, *to, *names;
	} bad[] = {
	    {"\"items\":3", "\"items\":\"3\"", "items"},
	    {"\"in\":\"Cache/1\"", "\"in\":7", ".in"},
	    {"\"by\":[{", "\"by\":[7,{", "by"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *at = strstr(buf, bad[i].from);
		CU_ASSERT_FATAL(at != NULL);
		size_t fl = strlen(bad[i].from), tl = strlen(bad[i].to);
		char *mod = malloc(len + tl + 1);
		CU_ASSERT_FATAL(mod != NULL);
		size_t pre = (size_t)(at - buf);
		memcpy(mod, buf, pre);
		memcpy(mod + pre, bad[i].to, tl);
		memcpy(mod + pre + tl, at + fl, len - pre - fl);
		size_t mlen = len - fl + tl;
		mod[mlen] = '\0';
		report *back = NULL;
		mg_err err = {{0}};
		CU_ASSERT(report_parse(&back, mod, mlen, &err) != 0);
		if (!strstr(err.msg, bad[i].names))
			fprintf(stderr, "%s: %s\n", bad[i].to, err.msg);
		CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, bad[i].names));
		report_free(back);
		free(mod);
	}
	free(buf);
	report_free(r);
}

static report *recycled(void)
{
	report *r = held_report();
	fixture_add_recycle(&r->shards[0], "va 3.51 GiB >= recycle 3.50 GiB");
	report_finish(r, 10);
	return r;
}

/* The suspect Cache/1 names the later test holding its block; the recycle
 * lists Cache/1 under what the tests allocated and Cache/7 under what they
 * hold, each with those sites only. */
static void test_console(void)
{
	report *r = recycled();
	const char *text = readback_render(r, "console");
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(text, "Cache/1  (grew in 1 of 1 runs)\n"
	                 "             8.00 MiB mmap at block_new (storage.c:49)\n"
	                 "               its blocks held since by: 3 items of Cache/7\n"));
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(text, "  allocated by the tests it ran:\n"
	                 "    8.00 MiB in Cache/1:\n"
	                 "      8.00 MiB mmap at block_new (storage.c:49)\n"
	                 "  earlier tests' blocks held by the items of:\n"
	                 "    8.00 MiB in Cache/7:\n"
	                 "      8.00 MiB mmap block at block_new (storage.c:49), allocated in "
	                 "Cache/1, held by 3 items this test placed at item_new (cache.c:80) "
	                 "\u2190 items_tests+0x4a10\n"
	                 "        pinned by: entry 5 (Cache/7)\n"));
	report_free(r);
}

static void test_markdown_html(void)
{
	report *r = recycled();
	const char *md = readback_render(r, "github");
	CU_ASSERT_PTR_NOT_NULL(strstr(md, "- Cache/1\n"
	                                  "  - 8.00 MiB mmap at block\\_new (storage.c:49)\n"
	                                  "    - its blocks held since by: 3 items of Cache/7\n"));
	const char *page = readback_render(r, "html");
	CU_ASSERT_PTR_NOT_NULL(strstr(page, "its blocks held since by: 3 items of Cache/7"));
	CU_ASSERT_PTR_NOT_NULL(strstr(page, "<p>earlier tests' blocks held by the items of:</p>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(page, "allocated in Cache/1, held by 3 items"));
	report_free(r);
}

static const mg_case cases[] = {
    {"format", test_format},   {"roundtrip", test_roundtrip},         {"refused", test_refused},
    {"console", test_console}, {"markdown_html", test_markdown_html},
};

MG_TEST_MAIN("adapters_held", cases)

/*
 * test_held.c - held blocks end to end (issue 25, the original crash case):
 * held_host.c's bump allocator under the real memguard binary, x64 and x86.
 * A block an earlier test allocated that a later test's live items keep
 * mapped is reported under the later test, with the test that allocated
 * it, how many items hold it, where the first was placed and their labels;
 * a test whose items were all freed, or that holds only its own block,
 * reports none; a block held 5,001 tests after it was mapped (before the
 * program's first pin) still names its test, and the first test that pins
 * leaves only its own memory (far_host.c). Also the `held`, `heldin` and `heldby` lines' round trip
 * through mg_proto.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "mg_proto.h"
#include "mg_run.h"

/* The held blocks of test, one string each: "BYTES KIND FUNCTION in TEST
 * items N by FUNCTION < FUNCTION: PIN|PIN|;" (all of them concatenated). */
static void held_of(json_t *raw, const char *test, char *buf, size_t cap)
{
	size_t i, k, len = 0;
	json_t *s, *p;
	buf[0] = '\0';
	json_array_foreach(mg_sites_of(raw, test), i, s)
	{
		if (!json_object_get(s, "items"))
			continue;
		json_t *by = json_object_get(s, "by");
		len += (size_t)snprintf(
		    buf + len, cap - len, "%lld %s %s in %s items %lld by %s < %s:",
		    (long long)json_integer_value(json_object_get(s, "bytes")),
		    json_string_value(json_object_get(s, "kind")),
		    json_string_value(json_object_get(
		        json_array_get(json_object_get(s, "frames"), 0), "function")),
		    json_string_value(json_object_get(s, "in")),
		    (long long)json_integer_value(json_object_get(s, "items")),
		    json_string_value(json_object_get(json_array_get(by, 0), "function")),
		    json_string_value(json_object_get(json_array_get(by, 1), "function")));
		json_array_foreach(json_object_get(s, "pins"), k, p) len +=
		    (size_t)snprintf(buf + len, cap - len, " %s|", json_string_value(p));
		len += (size_t)snprintf(buf + len, cap - len, ";");
	}
}

static void expect_held(json_t *raw, const char *test, const char *want)
{
	char buf[2048];
	held_of(raw, test, buf, sizeof(buf));
	if (strcmp(buf, want))
		fprintf(stderr, "%s held: '%s'\n   want: '%s'\n", test, buf, want);
	CU_ASSERT_STRING_EQUAL(buf, want);
}

static void held_run(const char *prog)
{
	outcome o;
	mg(&o, ARGV("run", "-j", "1", "--report", "report.json", "--", prog), ENV("X=1"), 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 7);
	json_t *raw = mg_raw_report(&o);
	CU_ASSERT_FATAL(raw != NULL);
	expect_held(raw, "Cache/1", ""); /* its own block, nothing kept */
	expect_held(raw, "Cache/2",
	            "8388608 mmap block_new in Cache/1 items 1 by item_new < transient:"
	            " c2 item 0 (Cache/2)|;");
	expect_held(raw, "Cache/3",
	            "8388608 mmap block_new in Cache/1 items 2 by item_new < transient:"
	            " c3 item 0 (Cache/3)| c3 item 1 (Cache/3)|;");
	expect_held(raw, "Cache/4",
	            "8388608 mmap block_new in Cache/1 items 3 by item_new < transient:"
	            " c4 item 0 (Cache/4)| c4 item 1 (Cache/4)| c4 item 2 (Cache/4)|;");
	expect_held(raw, "Cache/5", ""); /* its item is in its own block: a site's pin */
	expect_held(raw, "Cache/6",
	            "8388608 mmap block_new in Cache/5 items 3 by item_new < transient:"
	            " c6 item 0 (Cache/6)| c6 item 1 (Cache/6)| c6 item 2 (Cache/6)|;");
	expect_held(raw, "Cache/7", ""); /* all its items freed */
	CU_ASSERT(mg_sites_of(raw, "Cache/7") == NULL);
	json_decref(raw);
	done(&o);
}

static void x64(void)
{
	held_run(HELD_HOST64);
}

static void x86(void)
{
	held_run(HELD_HOST32);
}

/*
 * far_host.c: the first test that pins leaves exactly its own 8 MiB behind
 * (memguard's tables were mapped before the first test), and a block mapped
 * before the first pin, held 5,001 tests later, still names its test.
 */
static void far_run(const char *prog)
{
	outcome o;
	mg(&o, ARGV("run", "-j", "1", "--report", "report.json", "--", prog), ENV("X=1"), 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 5003);
	json_t *pin = find_test(o.report, "Far/pin");
	CU_ASSERT_FATAL(pin != NULL);
	json_int_t left = json_integer_value(json_object_get(pin, "va_delta"));
	if (left != 8 << 20)
		fprintf(stderr, "Far/pin left %lld bytes\n", (long long)left);
	CU_ASSERT_EQUAL(left, 8 << 20);
	json_t *raw = mg_raw_report(&o);
	CU_ASSERT_FATAL(raw != NULL);
	json_t *held = NULL, *s;
	size_t i;
	json_array_foreach(mg_sites_of(raw, "Far/hold"), i, s) if (json_object_get(s, "items"))
	    held = s;
	CU_ASSERT_FATAL(held != NULL);
	const char *in = json_string_value(json_object_get(held, "in"));
	if (in == NULL || strcmp(in, "Far/map"))
		fprintf(stderr, "Far/hold's block: in %s\n", in ? in : "(none)");
	CU_ASSERT(in != NULL && !strcmp(in, "Far/map"));
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(held, "items")), 1);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(held, "bytes")), 8 << 20);
	const char *fn = json_string_value(
	    json_object_get(json_array_get(json_object_get(held, "frames"), 0), "function"));
	CU_ASSERT(fn != NULL && !strcmp(fn, "block_map"));
	json_decref(raw);
	done(&o);
}

static void far_x64(void)
{
	far_run(FAR_HOST64);
}

static void far_x86(void)
{
	far_run(FAR_HOST32);
}

/* Started directly (no memguard, no tables): every test passes, exit 0. */
static void direct_x64(void)
{
	static const char *const progs[] = {HELD_HOST64, FAR_HOST64};
	mg_direct_passes(progs, 2);
}

static void direct_x86(void)
{
	static const char *const progs[] = {HELD_HOST32, FAR_HOST32};
	mg_direct_passes(progs, 2);
}

/* held, heldin, heldby: written, parsed back; malformed ones refused. */
static void proto(void)
{
	char line[256];
	mg_frame fr[2] = {{0, 0x4a10}, {1, 0x20}};
	mg_msg h = {.kind = MG_MSG_HELD,
	            .bytes = 8388608,
	            .count = 3,
	            .site_kind = MG_SITE_MMAP,
	            .frames = fr,
	            .nframes = 2};
	size_t n = mg_proto_put(line, sizeof(line), &h);
	CU_ASSERT_FATAL(n == 32);
	CU_ASSERT(!memcmp(line, "held 8388608 3 mmap 0+4a10 1+20\n", n));
	mg_msg back;
	CU_ASSERT_FATAL(mg_proto_parse(&back, line, n - 1) == 0);
	CU_ASSERT_EQUAL(back.kind, MG_MSG_HELD);
	CU_ASSERT(back.bytes == 8388608 && back.count == 3 && back.site_kind == MG_SITE_MMAP);
	CU_ASSERT_EQUAL(back.nframes, 2);

	mg_msg b = {.kind = MG_MSG_HELDBY, .frames = fr, .nframes = 2};
	n = mg_proto_put(line, sizeof(line), &b);
	CU_ASSERT_FATAL(n == 19);
	CU_ASSERT(!memcmp(line, "heldby 0+4a10 1+20\n", n));
	CU_ASSERT_FATAL(mg_proto_parse(&back, line, n - 1) == 0);
	CU_ASSERT_EQUAL(back.kind, MG_MSG_HELDBY);
	CU_ASSERT_EQUAL(back.nframes, 2);
	const char *p = back.text, *end = back.text + back.text_len;
	mg_frame f;
	CU_ASSERT(mg_proto_frame_next(&p, end, &f) && f.module == 0 && f.offset == 0x4a10);
	CU_ASSERT(mg_proto_frame_next(&p, end, &f) && f.module == 1 && f.offset == 0x20);
	CU_ASSERT(!mg_proto_frame_next(&p, end, &f));

	mg_msg i = {.kind = MG_MSG_HELDIN, .text = "Cache/1 a\\b", .text_len = 11};
	n = mg_proto_put(line, sizeof(line), &i);
	CU_ASSERT_FATAL(n == 20);
	CU_ASSERT(!memcmp(line, "heldin Cache/1 a\\\\b\n", n));
	CU_ASSERT_FATAL(mg_proto_parse(&back, line, n - 1) == 0);
	CU_ASSERT_EQUAL(back.kind, MG_MSG_HELDIN);
	CU_ASSERT(back.text_len == 11 && !memcmp(back.text, "Cache/1 a\\b", 11));

	static const char *const bad[] = {
	    "held",   "held 1 1 mmap", "held 1 1 brk 0+1",  "held 1 mmap 0+1",
	    "heldby", "heldby ",       "heldby 0+",         "heldby x+1",
	    "heldin", "heldin ",       "held 1 1 mmap 0+1 "};
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		size_t len = strlen(bad[k]);
		memcpy(line, bad[k], len);
		if (mg_proto_parse(&back, line, len) == 0)
			fprintf(stderr, "parsed: %s\n", bad[k]);
		CU_ASSERT(mg_proto_parse(&back, line, len) < 0);
	}
}

static const mg_case cases[] = {
    {"x64", x64},     {"x86", x86},         {"direct_x64", direct_x64}, {"direct_x86", direct_x86},
    {"proto", proto}, {"far_x64", far_x64}, {"far_x86", far_x86},
};

MG_TEST_MAIN("sites_held", cases)

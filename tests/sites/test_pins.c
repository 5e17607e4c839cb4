/*
 * test_pins.c - the pinning API end to end (issue 25): pins_host.c's bump
 * allocator under the real memguard binary, x64 and x86. The site of each
 * 8 MiB block a test left names the live items pinned in it, labelled with
 * the test that placed them, and nothing unpinned; a block whose items were
 * all freed names none. With --sites off and started directly the calls are
 * harmless. Also the `pin` line's round trip through mg_proto.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "mg_proto.h"
#include "mg_run.h"

/* The pins of test's mmap site of at least 8 MiB, as one string
 * ("a|b|"): "" when it has none, NULL when there is no such site. */
static const char *block_pins(json_t *raw, const char *test, char *buf, size_t cap)
{
	size_t i, k;
	json_t *s, *p;
	json_array_foreach(mg_sites_of(raw, test), i, s)
	{
		const char *kind = json_string_value(json_object_get(s, "kind"));
		if (!kind || strcmp(kind, "mmap") ||
		    json_integer_value(json_object_get(s, "bytes")) < (json_int_t)(8u << 20))
			continue;
		buf[0] = '\0';
		json_array_foreach(json_object_get(s, "pins"), k, p)
		{
			size_t len = strlen(buf);
			snprintf(buf + len, cap - len, "%s|", json_string_value(p));
		}
		return buf;
	}
	fprintf(stderr, "%s: no 8 MiB mmap site\n", test);
	return NULL;
}

static void pins_run(const char *prog)
{
	outcome o;
	mg(&o, ARGV("run", "-j", "1", "--report", "report.json", "--", prog), ENV("X=1"), 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 3);
	char buf[1024];
	json_t *raw = mg_raw_report(&o);
	CU_ASSERT_FATAL(raw != NULL);
	const char *p = block_pins(raw, "Cache/1", buf, sizeof(buf));
	CU_ASSERT_FATAL(p != NULL);
	if (strcmp(p, "entry 1 (Cache/1)|"))
		fprintf(stderr, "Cache/1 pins: %s\n", p);
	CU_ASSERT_STRING_EQUAL(p, "entry 1 (Cache/1)|"); /* the scratch items unpinned */
	p = block_pins(raw, "Cache/2", buf, sizeof(buf));
	CU_ASSERT_FATAL(p != NULL);
	if (strcmp(p, "entry 2 (Cache/2)|"))
		fprintf(stderr, "Cache/2 pins: %s\n", p);
	CU_ASSERT_STRING_EQUAL(p, "entry 2 (Cache/2)|"); /* its block's, not Cache/1's */
	p = block_pins(raw, "Cache/3", buf, sizeof(buf));
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT_STRING_EQUAL(p, ""); /* its only item freed */
	json_decref(raw);
	done(&o);
}

static void x64(void)
{
	pins_run(PINS_HOST64);
}

static void x86(void)
{
	pins_run(PINS_HOST32);
}

/* --sites off: the calls do nothing, every test passes, no sites. */
static void off(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "1", "--sites", "off", "--report", "report.json", "--", PINS_HOST64),
	   ENV("X=1"), 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 3);
	json_t *raw = mg_raw_report(&o);
	CU_ASSERT_FATAL(raw != NULL);
	CU_ASSERT(mg_sites_of(raw, "Cache/1") == NULL);
	json_decref(raw);
	done(&o);
}

/* Started directly (no memguard, no tables): every test passes, exit 0. */
static void direct_x64(void)
{
	static const char *const progs[] = {PINS_HOST64};
	mg_direct_passes(progs, 1);
}

static void direct_x86(void)
{
	static const char *const progs[] = {PINS_HOST32};
	mg_direct_passes(progs, 1);
}

/* `pin TEXT`: written, parsed back (escapes kept); empty text refused. */
static void proto(void)
{
	char line[128];
	mg_msg m = {.kind = MG_MSG_PIN, .text = "entry\n1 (C\\3)", .text_len = 13};
	size_t n = mg_proto_put(line, sizeof(line), &m);
	CU_ASSERT_FATAL(n == 20);
	CU_ASSERT(!memcmp(line, "pin entry\\n1 (C\\\\3)\n", n));
	mg_msg back;
	CU_ASSERT_FATAL(mg_proto_parse(&back, line, n - 1) == 0);
	CU_ASSERT_EQUAL(back.kind, MG_MSG_PIN);
	CU_ASSERT(back.text_len == 13 && !memcmp(back.text, "entry\n1 (C\\3)", 13));
	static const char *const bad[] = {"pin", "pin ", "pin a\\x"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t len = strlen(bad[i]);
		memcpy(line, bad[i], len);
		CU_ASSERT(mg_proto_parse(&back, line, len) < 0);
	}
}

static const mg_case cases[] = {
    {"x64", x64},
    {"x86", x86},
    {"off", off},
    {"direct_x64", direct_x64},
    {"direct_x86", direct_x86},
    {"proto", proto},
};

MG_TEST_MAIN("sites_pins", cases)

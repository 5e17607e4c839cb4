/*
 * test_sites_proto.c - the allocation sites' protocol lines (PROTOCOL.md
 * 6d): module, site and nomem written by mg_proto_put and parsed back, the
 * frames read with mg_proto_frame_next, and malformed lines refused.
 */
#include <string.h>

#include "mg_proto.h"
#include "mg_test.h"

static void sites_roundtrip(void)
{
	char line[512], id[] = "0123456789abcdef0123456789abcdef01234567";
	mg_msg m = {.kind = MG_MSG_MODULE,
	            .count = 3,
	            .build_id = id,
	            .build_id_len = 40,
	            .text = "/lib/with space.so",
	            .text_len = 18};
	size_t n = mg_proto_put(line, sizeof(line), &m);
	CU_ASSERT_EQUAL(n, strlen("module 3 ") + 40 + 1 + 18 + 1);
	mg_msg back;
	CU_ASSERT_EQUAL_FATAL(mg_proto_parse(&back, line, n - 1), 0);
	CU_ASSERT_EQUAL(back.kind, MG_MSG_MODULE);
	CU_ASSERT_EQUAL(back.count, 3);
	CU_ASSERT(back.build_id_len == 40 && !memcmp(back.build_id, id, 40));
	CU_ASSERT(back.text_len == 18 && !memcmp(back.text, "/lib/with space.so", 18));

	mg_frame fr[3] = {{0, 0x2783}, {1, 0xffffffffffull}, {2, 0}};
	mg_msg s = {.kind = MG_MSG_SITE,
	            .bytes = 8u << 20,
	            .count = 2,
	            .site_kind = MG_SITE_NEW,
	            .frames = fr,
	            .nframes = 3};
	n = mg_proto_put(line, sizeof(line), &s);
	line[n] = '\0';
	CU_ASSERT_STRING_EQUAL(line, "site 8388608 2 new 0+2783 1+ffffffffff 2+0\n");
	CU_ASSERT_EQUAL_FATAL(mg_proto_parse(&back, line, n - 1), 0);
	CU_ASSERT_EQUAL(back.kind, MG_MSG_SITE);
	CU_ASSERT_EQUAL(back.bytes, 8u << 20);
	CU_ASSERT_EQUAL(back.count, 2);
	CU_ASSERT_EQUAL(back.site_kind, MG_SITE_NEW);
	CU_ASSERT_EQUAL(back.nframes, 3);
	const char *p = back.text, *end = back.text + back.text_len;
	mg_frame f;
	for (int i = 0; i < 3; i++) {
		CU_ASSERT_FATAL(mg_proto_frame_next(&p, end, &f) == 1);
		CU_ASSERT(f.module == fr[i].module && f.offset == fr[i].offset);
	}
	CU_ASSERT_EQUAL(mg_proto_frame_next(&p, end, &f), 0);

	mg_msg nm = {.kind = MG_MSG_NOMEM, .count = 4};
	n = mg_proto_put(line, sizeof(line), &nm);
	CU_ASSERT(n == 8 && !memcmp(line, "nomem 4\n", 8));
}

static void sites_malformed(void)
{
	static const char *const bad[] = {
	    "site 1 1 mmap",           /* no frame */
	    "site 1 1 heap 0+1",       /* unknown kind */
	    "site 1 1 mmap 0+",        /* no offset */
	    "site 1 1 mmap 0+1 ",      /* trailing space */
	    "site 1 1 mmap  0+1",      /* two spaces */
	    "site 1 1 mmap 0+1g",      /* not hex */
	    "site 1 1 mmap 0+A",       /* upper case */
	    "site 1 1 mmap 0x1",       /* no + */
	    "site 1 mmap 0+1",         /* no count */
	    "module 0 abc /x",         /* odd build-id */
	    "module 0 xyz0 /x",        /* not hex */
	    "module 0 - ",             /* empty path */
	    "module 99999999999 - /x", /* ID over 32 bits */
	    "nomem",                   /* no count */
	    "nomem 1 2",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char line[64];
		size_t n = strlen(bad[i]);
		memcpy(line, bad[i], n);
		mg_msg m;
		if (mg_proto_parse(&m, line, n) == 0)
			fprintf(stderr, "accepted: '%s'\n", bad[i]);
		CU_ASSERT_EQUAL(mg_proto_parse(&m, line, n), -1);
	}
}

static const mg_case cases[] = {
    {"sites_roundtrip", sites_roundtrip},
    {"sites_malformed", sites_malformed},
};

MG_TEST_MAIN("host_sites_proto", cases)

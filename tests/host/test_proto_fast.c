/*
 * test_proto_fast.c - the protocol writer's and parser's short paths
 * (issue 24): a short text scanned eight bytes a step for the bytes an
 * escape takes, numbers read without an overflow check up to 19 digits and
 * written 32 bits at a time below 2^32, a line's word looked for among
 * those of its first letter. Each is checked against a plain
 * byte-by-byte reference at every position and boundary, so the short
 * path and the long one agree.
 */
#include "mg_proto.h"
#include "mg_test.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The escape, byte by byte: the reference the short path must equal. */
static size_t ref_escape(char *dst, const char *src, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		char c = src[i];
		if (c == '\\' || c == '\n' || c == '\r') {
			dst[n++] = '\\';
			dst[n++] = c == '\\' ? '\\' : c == '\n' ? 'n' : 'r';
		} else {
			dst[n++] = c;
		}
	}
	return n;
}

/* Every length up to 80 (the short path ends at 64), each of the three
 * bytes at every position, and bytes next to them in value. */
static void escape_short(void)
{
	static const char special[] = {'\\', '\n', '\r'};
	static const char near[] = {'\t', '\v', '\f', 14, '[', ']', 0x7f, (char)0xdc, (char)0x8a};
	char src[80], got[200], want[200];
	for (size_t len = 1; len <= sizeof(src); len++) {
		for (size_t i = 0; i < len; i++)
			src[i] = (char)('a' + i % 26);
		size_t n = mg_proto_escape(got, sizeof(got), src, len);
		CU_ASSERT_EQUAL_FATAL(n, len);
		CU_ASSERT_EQUAL(memcmp(got, src, len), 0);
		for (size_t pos = 0; pos < len; pos++) {
			for (size_t k = 0; k < sizeof(special) + sizeof(near); k++) {
				char c =
				    k < sizeof(special) ? special[k] : near[k - sizeof(special)];
				char keep = src[pos];
				src[pos] = c;
				size_t w = ref_escape(want, src, len);
				n = mg_proto_escape(got, sizeof(got), src, len);
				if (n != w || memcmp(got, want, w)) {
					char msg[96];
					snprintf(msg, sizeof(msg), "len %zu, byte 0x%02x at %zu",
					         len, (unsigned char)c, pos);
					CU_FAIL(msg);
				}
				/* sized without a buffer: the same length */
				CU_ASSERT_EQUAL(mg_proto_escape(NULL, 0, src, len), w);
				src[pos] = keep;
			}
		}
	}
}

/* A short text copied into a buffer shorter than it: its first cap bytes. */
static void escape_short_truncates(void)
{
	char dst[16];
	memset(dst, '#', sizeof(dst));
	CU_ASSERT_EQUAL(mg_proto_escape(dst, 5, "abcdefghij", 10), 10);
	CU_ASSERT_EQUAL(memcmp(dst, "abcde#", 6), 0);
}

/* Numbers of every length to 20 digits, the largest, one past it, and a
 * non-digit at each place: what the parser reads or refuses. */
static void numbers_read(void)
{
	char line[64];
	mg_msg m;
	uint64_t v = 0;
	for (int digits = 1; digits <= 20; digits++) {
		v = v * 10 + (uint64_t)(digits % 10);
		snprintf(line, sizeof(line), "peak %" PRIu64, v);
		CU_ASSERT_EQUAL_FATAL(mg_proto_parse(&m, line, strlen(line)), 0);
		CU_ASSERT_EQUAL(m.va, v);
		/* a letter at each place of it: refused */
		for (int at = 0; at < digits; at++) {
			snprintf(line, sizeof(line), "peak %" PRIu64, v);
			line[5 + at] = 'x';
			CU_ASSERT_EQUAL(mg_proto_parse(&m, line, strlen(line)), -1);
		}
	}
	strcpy(line, "peak 18446744073709551615");
	CU_ASSERT_EQUAL_FATAL(mg_proto_parse(&m, line, strlen(line)), 0);
	CU_ASSERT_EQUAL(m.va, UINT64_MAX);
	strcpy(line, "peak 18446744073709551616");
	CU_ASSERT_EQUAL(mg_proto_parse(&m, line, strlen(line)), -1);
	strcpy(line, "peak 99999999999999999999");
	CU_ASSERT_EQUAL(mg_proto_parse(&m, line, strlen(line)), -1);
	strcpy(line, "peak 000000000000000000000000042"); /* leading zeros: no overflow */
	CU_ASSERT_EQUAL_FATAL(mg_proto_parse(&m, line, strlen(line)), 0);
	CU_ASSERT_EQUAL(m.va, 42);
	strcpy(line, "pass 1 2 3 ");
	CU_ASSERT_EQUAL(mg_proto_parse(&m, line, strlen(line)), -1);
}

/* Numbers written and read back around each power of ten and 2^32. */
static void numbers_written(void)
{
	uint64_t vals[200];
	size_t n = 0;
	uint64_t p = 1;
	for (int k = 0; k < 20; k++, p *= 10) {
		vals[n++] = p;
		vals[n++] = p - 1;
		vals[n++] = p + 1;
	}
	vals[n++] = UINT32_MAX;
	vals[n++] = (uint64_t)UINT32_MAX + 1;
	vals[n++] = (uint64_t)UINT32_MAX - 1;
	vals[n++] = UINT64_MAX;
	vals[n++] = 0;
	for (size_t i = 0; i < n; i++) {
		char line[128], want[64];
		mg_msg w = {.kind = MG_MSG_PASS, .usec = vals[i], .va = vals[i] / 3, .rss = 7};
		size_t len = mg_proto_put(line, sizeof(line), &w);
		snprintf(want, sizeof(want), "pass %" PRIu64 " %" PRIu64 " 7\n", vals[i],
		         vals[i] / 3);
		CU_ASSERT_EQUAL(len, strlen(want));
		CU_ASSERT_EQUAL(memcmp(line, want, len), 0);
		/* sized without room: the same length, nothing written past cap */
		char small[8];
		memset(small, '#', sizeof(small));
		CU_ASSERT_EQUAL(mg_proto_put(small, 6, &w), len);
		CU_ASSERT_EQUAL(memcmp(small, want, 6), 0);
		CU_ASSERT_EQUAL(small[6], '#');
	}
}

/* The line's word, looked for among the words of its first letter only:
 * each kind's line, as the writer puts it, parses back as that kind, and a
 * word one byte off (cut, lengthened, capitalised, a neighbour's letter
 * first) is no word. */
static void words_by_letter(void)
{
	for (int k = 0; k <= MG_MSG_NEEDS; k++) {
		int frames = k == MG_MSG_SITE || k == MG_MSG_HELD || k == MG_MSG_HELDBY;
		mg_msg w = {.kind = (mg_msg_kind)k,
		            .text = frames ? "0+1" : "a",
		            .text_len = frames ? 3 : 1,
		            .name_len = 1,
		            .version = 1,
		            .arch = "x64",
		            .sig = 9,
		            .count = 1};
		char line[256], bad[256];
		size_t len = mg_proto_put(line, sizeof(line), &w);
		CU_ASSERT_FATAL(len > 1 && len < sizeof(line) && line[len - 1] == '\n');
		line[--len] = 0;
		mg_msg m;
		int ok = mg_proto_parse(&m, line, len) == 0 && m.kind == (mg_msg_kind)k;
		if (!ok)
			fprintf(stderr, "kind %d: '%s' did not parse back\n", k, line);
		CU_ASSERT(ok);
		size_t wl = strcspn(line, " ");
		/* cut by its last letter, one letter more, capitalised, and its
		 * first letter a neighbour's ('a' and 'z' around the table) */
		for (int v = 0; v < 5; v++) {
			size_t bl = 0;
			memcpy(bad, line, wl);
			bl = wl;
			if (v == 0)
				bl--;
			else if (v == 1)
				bad[bl++] = 'x';
			else if (v == 2)
				bad[0] = (char)(bad[0] - 'a' + 'A');
			else
				bad[0] = (char)(bad[0] + (v == 3 ? 1 : -1));
			memcpy(bad + bl, line + wl, len - wl);
			bl += len - wl;
			bad[bl] = 0;
			mg_msg b;
			int r = mg_proto_parse(&b, bad, bl);
			/* a neighbour's letter may make another word ("pass" ->
			 * "qass" is none; "end" -> "fnd" none): only a real one
			 * parses, as the kind whose word it is */
			if (r == 0)
				CU_ASSERT_EQUAL(memcmp(bad, line, bl) == 0 && bl == len, 1);
		}
	}
}

static const mg_case cases[] = {
    {"escape_short", escape_short},       {"escape_short_truncates", escape_short_truncates},
    {"numbers_read", numbers_read},       {"numbers_written", numbers_written},
    {"words_by_letter", words_by_letter},
};

MG_TEST_MAIN("host_fast", cases)

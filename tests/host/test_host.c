/*
 * test_host.c - the protocol parser (v1 and v2) and escaper (good and malformed lines, a
 * fixed-seed fuzz loop) and the host library driven as a real process:
 * standalone exit codes, and host mode through pipes on fds 3/4.
 * Long on purpose: one case after another, each on its own.
 */
#include "mg_proto.h"
#include "mg_test.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- parser helpers ---- */

static char linebuf[MG_PROTO_LINE_MAX + 16];

/* Parses a copy of s (len bytes, may hold NUL). */
static int parse_n(mg_msg *m, const char *s, size_t len)
{
	memcpy(linebuf, s, len);
	return mg_proto_parse(m, linebuf, len);
}

static int parse(mg_msg *m, const char *s)
{
	return parse_n(m, s, strlen(s));
}

static int text_is(const mg_msg *m, const char *s)
{
	return m->text != NULL && m->text_len == strlen(s) && memcmp(m->text, s, m->text_len) == 0;
}

static void parse_hello(void)
{
	mg_msg m;
	CU_ASSERT_EQUAL_FATAL(parse(&m, "hello 1 x86 4242 123456789 2101248"), 0);
	CU_ASSERT_EQUAL(m.kind, MG_MSG_HELLO);
	CU_ASSERT_EQUAL(m.version, 1);
	CU_ASSERT_STRING_EQUAL(m.arch, "x86");
	CU_ASSERT_EQUAL(m.pid, 4242);
	CU_ASSERT_EQUAL(m.va, 123456789);
	CU_ASSERT_EQUAL(m.rss, 2101248);
	CU_ASSERT_EQUAL_FATAL(parse(&m, "hello 1 x64 1 0 18446744073709551615"), 0);
	CU_ASSERT_STRING_EQUAL(m.arch, "x64");
	CU_ASSERT_EQUAL(m.rss, UINT64_MAX);
}

static void parse_names(void)
{
	mg_msg m;
	CU_ASSERT_EQUAL_FATAL(parse(&m, "test suite/a b\\\\c\\nd\\re"), 0);
	CU_ASSERT_EQUAL(m.kind, MG_MSG_TEST);
	CU_ASSERT(text_is(&m, "suite/a b\\c\nd\re"));
	CU_ASSERT_EQUAL_FATAL(parse(&m, "start x"), 0);
	CU_ASSERT_EQUAL(m.kind, MG_MSG_START);
	CU_ASSERT(text_is(&m, "x"));
	CU_ASSERT_EQUAL_FATAL(parse(&m, "run  two spaces "), 0);
	CU_ASSERT_EQUAL(m.kind, MG_CMD_RUN);
	CU_ASSERT(text_is(&m, " two spaces "));
	CU_ASSERT_EQUAL_FATAL(parse(&m, "end 10000"), 0);
	CU_ASSERT_EQUAL(m.kind, MG_MSG_END);
	CU_ASSERT_EQUAL(m.count, 10000);
	CU_ASSERT_EQUAL(m.bytes, 0);
	CU_ASSERT_EQUAL(parse(&m, "end 7 ordered"), -1); /* no longer a form */
	/* a driver shim's word on its listing (MG_LIST_*), never 0 written */
	CU_ASSERT_EQUAL_FATAL(parse(&m, "end 3 1"), 0);
	CU_ASSERT_EQUAL(m.kind, MG_MSG_END);
	CU_ASSERT_EQUAL(m.count, 3);
	CU_ASSERT_EQUAL(m.bytes, MG_LIST_CLEAN);
	CU_ASSERT_EQUAL(parse(&m, "end 3 0"), -1);
	CU_ASSERT_EQUAL(parse(&m, "end 3 "), -1);
	CU_ASSERT_EQUAL(parse(&m, "end 3 1 2"), -1);
	/* the ctest shim's listing of tests that wait for others */
	CU_ASSERT_EQUAL_FATAL(parse(&m, "after 7"), 0);
	CU_ASSERT_EQUAL(m.kind, MG_MSG_AFTER);
	CU_ASSERT_EQUAL(m.count, 7);
	CU_ASSERT_EQUAL_FATAL(parse(&m, "needs 0 db fixture\\\\x"), 0);
	CU_ASSERT_EQUAL(m.kind, MG_MSG_NEEDS);
	CU_ASSERT_EQUAL(m.count, 0);
	CU_ASSERT(text_is(&m, "db fixture\\x"));
	CU_ASSERT_EQUAL(parse(&m, "after"), -1);
	CU_ASSERT_EQUAL(parse(&m, "after 7 "), -1);
	CU_ASSERT_EQUAL(parse(&m, "after 7 x"), -1);
	CU_ASSERT_EQUAL(parse(&m, "after -1"), -1);
	CU_ASSERT_EQUAL(parse(&m, "needs 3"), -1);  /* no fixture */
	CU_ASSERT_EQUAL(parse(&m, "needs 3 "), -1); /* an empty one */
	CU_ASSERT_EQUAL(parse(&m, "needs x db"), -1);
	/* the ctest shim's word that its next test waits for a lock (6e) */
	CU_ASSERT_EQUAL_FATAL(parse(&m, "wait RESOURCE_LOCK db\\\\x"), 0);
	CU_ASSERT_EQUAL(m.kind, MG_MSG_WAIT);
	CU_ASSERT(text_is(&m, "RESOURCE_LOCK db\\x"));
	CU_ASSERT_EQUAL(parse(&m, "wait"), -1);
	CU_ASSERT_EQUAL(parse(&m, "wait "), -1);
	/* the gtest shim's word of its program's memory as its first test starts (6f) */
	CU_ASSERT_EQUAL_FATAL(parse(&m, "base 15441920 11923456"), 0);
	CU_ASSERT_EQUAL(m.kind, MG_MSG_BASE);
	CU_ASSERT_EQUAL(m.va, 15441920);
	CU_ASSERT_EQUAL(m.rss, 11923456);
	CU_ASSERT_EQUAL(parse(&m, "base"), -1);
	CU_ASSERT_EQUAL(parse(&m, "base 1"), -1);
	CU_ASSERT_EQUAL(parse(&m, "base 1 2 3"), -1);
	CU_ASSERT_EQUAL(parse(&m, "base 1 x"), -1);
	char w[64];
	int wn = mg_proto_put(w, sizeof(w), &(mg_msg){.kind = MG_MSG_AFTER, .count = 7});
	CU_ASSERT(wn == 8 && !memcmp(w, "after 7\n", 8));
	wn = mg_proto_put(w, sizeof(w), &(mg_msg){.kind = MG_MSG_END, .count = 3});
	CU_ASSERT(wn == 6 && !memcmp(w, "end 3\n", 6));
	wn = mg_proto_put(w, sizeof(w),
	                  &(mg_msg){.kind = MG_MSG_END, .count = 3, .bytes = MG_LIST_UNCLEAN});
	CU_ASSERT(wn == 8 && !memcmp(w, "end 3 2\n", 8));
	wn = mg_proto_put(
	    w, sizeof(w),
	    &(mg_msg){.kind = MG_MSG_NEEDS, .count = 12, .text = "a\nb", .text_len = 3});
	CU_ASSERT(wn == 14 && !memcmp(w, "needs 12 a\\nb\n", 14));
	CU_ASSERT_EQUAL_FATAL(parse(&m, "list"), 0);
	CU_ASSERT_EQUAL(m.kind, MG_CMD_LIST);
	CU_ASSERT_EQUAL_FATAL(parse(&m, "quit"), 0);
	CU_ASSERT_EQUAL(m.kind, MG_CMD_QUIT);
	CU_ASSERT_EQUAL_FATAL(parse(&m, "out line one\\n"), 0);
	CU_ASSERT_EQUAL(m.kind, MG_MSG_OUT);
	CU_ASSERT(text_is(&m, "line one\n"));
}

static void parse_results(void)
{
	mg_msg m;
	CU_ASSERT_EQUAL_FATAL(parse(&m, "pass 12 3 4"), 0);
	CU_ASSERT_EQUAL(m.kind, MG_MSG_PASS);
	CU_ASSERT_EQUAL(m.usec, 12);
	CU_ASSERT_EQUAL(m.va, 3);
	CU_ASSERT_EQUAL(m.rss, 4);
	CU_ASSERT_EQUAL_FATAL(parse(&m, "fail 7 8 9 expected 1\\ngot 2"), 0);
	CU_ASSERT_EQUAL(m.kind, MG_MSG_FAIL);
	CU_ASSERT_EQUAL(m.usec, 7);
	CU_ASSERT(text_is(&m, "expected 1\ngot 2"));
	CU_ASSERT_EQUAL_FATAL(parse(&m, "fail 7 8 9"), 0);
	CU_ASSERT(text_is(&m, ""));
	CU_ASSERT_EQUAL_FATAL(parse(&m, "fail 7 8 9 "), 0);
	CU_ASSERT(text_is(&m, ""));
	CU_ASSERT_EQUAL_FATAL(parse(&m, "skip 0 0 0 no GPU"), 0);
	CU_ASSERT_EQUAL(m.kind, MG_MSG_SKIP);
	CU_ASSERT(text_is(&m, "no GPU"));
	/* a driver shim's error result and extra entry (PROTOCOL.md 6c) */
	CU_ASSERT_EQUAL_FATAL(parse(&m, "error 1 2 3 GoogleTest did not run it"), 0);
	CU_ASSERT_EQUAL(m.kind, MG_MSG_ERROR);
	CU_ASSERT(text_is(&m, "GoogleTest did not run it"));
	CU_ASSERT_EQUAL_FATAL(parse(&m, "extra fail 23 Suite.TearDownTestSuitea.cc:3: Failure\\n"),
	                      0);
	CU_ASSERT_EQUAL(m.kind, MG_MSG_EXTRA);
	CU_ASSERT_EQUAL(m.state, MG_MSG_FAIL);
	CU_ASSERT_EQUAL(m.name_len, 23);
	CU_ASSERT(text_is(&m, "Suite.TearDownTestSuitea.cc:3: Failure\n"));
	CU_ASSERT_EQUAL_FATAL(parse(&m, "extra error 14 <program exit>"), 0);
	CU_ASSERT_EQUAL(m.state, MG_MSG_ERROR);
	CU_ASSERT_EQUAL(m.name_len, 14);
	CU_ASSERT_EQUAL(parse(&m, "extra pass 3 abc"), -1); /* fail or error only */
	CU_ASSERT_EQUAL(parse(&m, "extra fail 0 abc"), -1); /* a name is not empty */
	CU_ASSERT_EQUAL(parse(&m, "extra fail 4 abc"), -1); /* longer than the text */
	CU_ASSERT_EQUAL(parse(&m, "extra fail 3"), -1);     /* no text */
	CU_ASSERT_EQUAL(parse(&m, "extra fail x abc"), -1); /* not a number */
	CU_ASSERT_EQUAL_FATAL(parse(&m, "recycle 3758096384 1000"), 0);
	CU_ASSERT_EQUAL(m.kind, MG_MSG_RECYCLE);
	CU_ASSERT_EQUAL(m.va, 3758096384u);
	CU_ASSERT_EQUAL(m.rss, 1000);
	CU_ASSERT_EQUAL_FATAL(parse(&m, "bye 5 6"), 0);
	CU_ASSERT_EQUAL(m.kind, MG_MSG_BYE);
	CU_ASSERT_EQUAL(m.va, 5);
	CU_ASSERT_EQUAL(m.rss, 6);
	CU_ASSERT_EQUAL_FATAL(parse(&m, "pass 007 0 0"), 0); /* leading zeros are fine */
	CU_ASSERT_EQUAL(m.usec, 7);
}

/* Protocol v2: a recycle says why; dying carries the memory at death. */
static void parse_v2(void)
{
	mg_msg m;
	CU_ASSERT_EQUAL_FATAL(parse(&m, "recycle 10 20"), 0); /* v1: no reason */
	CU_ASSERT_EQUAL(m.why, MG_WHY_NONE);
	CU_ASSERT_EQUAL_FATAL(parse(&m, "recycle 10 20 va"), 0);
	CU_ASSERT_EQUAL(m.why, MG_WHY_VA);
	CU_ASSERT_EQUAL_FATAL(parse(&m, "recycle 10 20 rss"), 0);
	CU_ASSERT_EQUAL(m.why, MG_WHY_RSS);
	CU_ASSERT_EQUAL_FATAL(parse(&m, "recycle 10 20 growth 524288000"), 0);
	CU_ASSERT_EQUAL(m.why, MG_WHY_GROWTH);
	CU_ASSERT_EQUAL(m.bytes, 524288000);
	CU_ASSERT_EQUAL_FATAL(parse(&m, "recycle 10 20 gap 67108864"), 0);
	CU_ASSERT_EQUAL(m.why, MG_WHY_GAP);
	CU_ASSERT_EQUAL(m.va, 10);
	CU_ASSERT_EQUAL(m.bytes, 67108864);
	CU_ASSERT_EQUAL_FATAL(parse(&m, "dying 11 4100000000 5000 4190000000"), 0);
	CU_ASSERT_EQUAL(m.kind, MG_MSG_DYING);
	CU_ASSERT_EQUAL(m.sig, 11);
	CU_ASSERT_EQUAL(m.va, 4100000000u);
	CU_ASSERT_EQUAL(m.rss, 5000);
	CU_ASSERT_EQUAL(m.bytes, 4190000000u);
	CU_ASSERT_EQUAL_FATAL(parse(&m, "peak 3900000000"), 0);
	CU_ASSERT_EQUAL(m.kind, MG_MSG_PEAK);
	CU_ASSERT_EQUAL(m.va, 3900000000u);
	CU_ASSERT_EQUAL_FATAL(parse(&m, "expect 629145600 8388608"), 0);
	CU_ASSERT_EQUAL(m.kind, MG_CMD_EXPECT);
	CU_ASSERT_EQUAL(m.va, 629145600);
	CU_ASSERT_EQUAL(m.bytes, 8388608);
	CU_ASSERT_EQUAL_FATAL(parse(&m, "fed"), 0);
	CU_ASSERT_EQUAL(m.kind, MG_CMD_FED);
	CU_ASSERT_EQUAL_FATAL(parse(&m, "recycle 1 2 peak 629145600"), 0);
	CU_ASSERT_EQUAL(m.why, MG_WHY_PEAK);
	CU_ASSERT_EQUAL_FATAL(parse(&m, "recycle 1 2 rise 381681664"), 0);
	CU_ASSERT_EQUAL(m.why, MG_WHY_RISE);
	CU_ASSERT_EQUAL(m.bytes, 381681664);
	static const char *const bad[] = {
	    "recycle 10 20 ",      "recycle 10 20 vaa",  "recycle 10 20 growth",
	    "recycle 10 20 gap x", "recycle 10 20 va 5", "recycle 10 20 growth 5 6",
	    "dying 11 1 2",        "dying 0 1 2 3",      "dying 65 1 2 3",
	    "dying 11 1 2 3 4",    "dying SEGV 1 2 3",   "fed 1",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse(&m, bad[i]) == 0)
			fprintf(stderr, "\n  accepted: '%s'\n", bad[i]);
		CU_ASSERT_EQUAL(parse(&m, bad[i]), -1);
	}
}

/* v4: "expect RISE GROWTH known", history knows the test's own rise (count
 * 1); the writer puts the word back; anything else after the figures is
 * refused. */
static void parse_v4(void)
{
	mg_msg m;
	char line[64];
	CU_ASSERT_EQUAL_FATAL(parse(&m, "expect 1048576 0 known"), 0);
	CU_ASSERT_EQUAL(m.kind, MG_CMD_EXPECT);
	CU_ASSERT_EQUAL(m.va, 1048576);
	CU_ASSERT_EQUAL(m.bytes, 0);
	CU_ASSERT_EQUAL(m.count, 1);
	CU_ASSERT_EQUAL_FATAL(parse(&m, "expect 1048576 0"), 0);
	CU_ASSERT_EQUAL(m.count, 0);
	mg_msg e = {.kind = MG_CMD_EXPECT, .va = 7, .bytes = 3, .count = 1};
	size_t n = mg_proto_put(line, sizeof(line), &e);
	CU_ASSERT_EQUAL_FATAL(n, strlen("expect 7 3 known\n"));
	CU_ASSERT_EQUAL(memcmp(line, "expect 7 3 known\n", n), 0);
	e.count = 0;
	n = mg_proto_put(line, sizeof(line), &e);
	CU_ASSERT_EQUAL_FATAL(n, strlen("expect 7 3\n"));
	CU_ASSERT_EQUAL(memcmp(line, "expect 7 3\n", n), 0);
	static const char *const bad[] = {
	    "expect 1 2 ",        "expect 1 2 Known",
	    "expect 1 2 known ",  "expect 1 2 known known",
	    "expect 1 2 knownx",  "expect 1 2  known",
	    "expect 1 known",     "expect 1 2 3",
	    "expect 1 2 unknown", "expect known 1 2",
	    "expect 1 2 known\r",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse(&m, bad[i]) == 0)
			fprintf(stderr, "\n  accepted: '%s'\n", bad[i]);
		CU_ASSERT_EQUAL(parse(&m, bad[i]), -1);
	}
}

static void parse_malformed(void)
{
	static const char *const bad[] = {
	    "",
	    " ",
	    "hi",
	    "PASS 1 2 3",
	    "pass",
	    "pass 1 2",
	    "pass 1 2 3 4",
	    "pass 1 2 3 ",
	    "pass  1 2 3",
	    " pass 1 2 3",
	    "pass 1  2 3",
	    "pass -1 2 3",
	    "pass +1 2 3",
	    "pass 1 2 0x3",
	    "pass 1 2 3.0",
	    "pass 18446744073709551616 2 3",
	    "pass 99999999999999999999 2 3",
	    "pass 1 2 ",
	    "pass\t1 2 3",
	    "fail 1 2",
	    "fail 1 2 3x message",
	    "fail 1 2 3 bad \\x escape",
	    "fail 1 2 3 trailing \\",
	    "skip -0 1 1 msg",
	    "hello 1 x86 4242 1",
	    "hello 1 x86 4242 1 2 3",
	    "hello 1 arm 4242 1 2",
	    "hello 1 x866 4242 1 2",
	    "hello 4294967296 x86 4242 1 2",
	    "hello 1 x86 -4 1 2",
	    "hello 1 x86 99999999999999999999 1 2",
	    "test",
	    "test ",
	    "start",
	    "start ",
	    "run",
	    "run ",
	    "run \\",
	    "run a\\tb",
	    "end",
	    "end 1 0", /* no flags are written as none ("end 1 2": MG_LIST_UNCLEAN) */
	    "end 1 2 3",
	    "end -1",
	    "end ",
	    "recycle 1",
	    "recycle 1 2 3",
	    "bye 1",
	    "out",
	    "out ",
	    "bye 1 2 x",
	    "list ",
	    "list x",
	    "quit now",
	    "quit\r",
	    "pass 1 2 3\r",
	    "unknown word",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		mg_msg m;
		int r = parse(&m, bad[i]);
		if (r != -1)
			fprintf(stderr, "accepted malformed line '%s'\n", bad[i]);
		CU_ASSERT_EQUAL(r, -1);
	}
}

static void parse_nul_and_newline(void)
{
	mg_msg m;
	CU_ASSERT_EQUAL(parse_n(&m, "test a\0b", 8), -1);
	CU_ASSERT_EQUAL(parse_n(&m, "pass 1 2 3\0", 11), -1);
	CU_ASSERT_EQUAL(parse_n(&m, "test a\nb", 8), -1);
	CU_ASSERT_EQUAL(parse_n(&m, "quit\n", 5), -1);
	CU_ASSERT_EQUAL(parse_n(&m, "test a\rb", 8), 0); /* a raw CR is "any other byte" */
	CU_ASSERT_EQUAL(mg_proto_parse(&m, NULL, 0), -1);
}

static void parse_line_limit(void)
{
	mg_msg m;
	/* len + newline == MG_PROTO_LINE_MAX: the longest line accepted */
	size_t len = MG_PROTO_LINE_MAX - 1;
	memcpy(linebuf, "test ", 5);
	memset(linebuf + 5, 'a', len - 5);
	CU_ASSERT_EQUAL(mg_proto_parse(&m, linebuf, len), 0);
	CU_ASSERT_EQUAL(m.text_len, len - 5);
	memcpy(linebuf, "test ", 5);
	memset(linebuf + 5, 'a', len + 1 - 5);
	CU_ASSERT_EQUAL(mg_proto_parse(&m, linebuf, len + 1), -1);
	CU_ASSERT_EQUAL(mg_proto_parse(&m, linebuf, (size_t)-1), -1);
}

static void escape_roundtrip(void)
{
	char src[255];
	for (int i = 0; i < 255; i++)
		src[i] = (char)(i + 1);
	char esc[600];
	size_t n = mg_proto_escape(esc, sizeof(esc), src, sizeof(src));
	CU_ASSERT_EQUAL_FATAL(n, 255 + 3); /* \ LF CR take two bytes */
	CU_ASSERT_PTR_NULL(memchr(esc, '\n', n));
	CU_ASSERT_PTR_NULL(memchr(esc, '\r', n));
	char line[700];
	memcpy(line, "skip 1 2 3 ", 11);
	memcpy(line + 11, esc, n);
	mg_msg m;
	CU_ASSERT_EQUAL_FATAL(mg_proto_parse(&m, line, 11 + n), 0);
	CU_ASSERT_EQUAL(m.kind, MG_MSG_SKIP);
	CU_ASSERT_EQUAL_FATAL(m.text_len, 255);
	CU_ASSERT_EQUAL(memcmp(m.text, src, 255), 0);
	/* each byte alone */
	for (int i = 1; i < 256; i++) {
		char c = (char)i, e[2];
		size_t k = mg_proto_escape(e, sizeof(e), &c, 1);
		memcpy(line, "run ", 4);
		memcpy(line + 4, e, k);
		CU_ASSERT_EQUAL(mg_proto_parse(&m, line, 4 + k), 0);
		CU_ASSERT(m.text_len == 1 && m.text[0] == c);
	}
}

static void escape_truncates(void)
{
	char dst[8];
	memset(dst, '#', sizeof(dst));
	CU_ASSERT_EQUAL(mg_proto_escape(dst, 4, "ab\ncd", 5), 6);
	CU_ASSERT_EQUAL(memcmp(dst, "ab\\n##", 6), 0);
	memset(dst, '#', sizeof(dst));
	CU_ASSERT_EQUAL(mg_proto_escape(dst, 3, "ab\ncd", 5), 6);
	CU_ASSERT_EQUAL(memcmp(dst, "ab\\#", 4), 0); /* first cap bytes, nothing after */
	CU_ASSERT_EQUAL(mg_proto_escape(NULL, 0, "\\\\", 2), 4);
	CU_ASSERT_EQUAL(mg_proto_escape(dst, sizeof(dst), "", 0), 0);
}

/* ---- fuzz ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 11);
}

/* Writes m back as a line in canonical form; returns its length. */
static size_t format_msg(char *dst, size_t cap, const mg_msg *m)
{
	/* indexed by mg_msg_kind */
	static const char *const words[] = {"hello", "test",   "end",     "start", "pass",
	                                    "fail",  "skip",   "recycle", "bye",   "out",
	                                    "dying", "peak",   "timeout", "list",  "run",
	                                    "quit",  "expect", "fed",     "error", "extra"};
	static const char *const whys[] = {"",    "va",   "rss",       "growth",
	                                   "gap", "peak", "rssgrowth", "rise"};
	int n = 0;
	switch (m->kind) {
	case MG_MSG_HELLO:
		n = snprintf(dst, cap, "hello %u %s %ld %" PRIu64 " %" PRIu64, m->version, m->arch,
		             m->pid, m->va, m->rss);
		break;
	case MG_MSG_END:
		n = snprintf(dst, cap, "end %" PRIu64, m->count);
		break;
	case MG_MSG_EXTRA:
		n = snprintf(dst, cap, "extra %s %zu ", m->state == MG_MSG_FAIL ? "fail" : "error",
		             m->name_len);
		break;
	case MG_MSG_PASS:
	case MG_MSG_FAIL:
	case MG_MSG_SKIP:
	case MG_MSG_ERROR:
	case MG_MSG_TIMEOUT:
		n = snprintf(dst, cap, "%s %" PRIu64 " %" PRIu64 " %" PRIu64, words[m->kind],
		             m->usec, m->va, m->rss);
		if (m->kind != MG_MSG_PASS && m->text_len > 0)
			dst[n++] = ' ';
		break;
	case MG_MSG_RECYCLE:
		n = snprintf(dst, cap, "recycle %" PRIu64 " %" PRIu64 "%s%s", m->va, m->rss,
		             m->why ? " " : "", whys[m->why]);
		if (m->why == MG_WHY_GROWTH || m->why == MG_WHY_GAP || m->why == MG_WHY_PEAK ||
		    m->why == MG_WHY_RSSGROWTH || m->why == MG_WHY_RISE)
			n += snprintf(dst + n, cap - (size_t)n, " %" PRIu64, m->bytes);
		break;
	case MG_MSG_BYE:
		n = snprintf(dst, cap, "bye %" PRIu64 " %" PRIu64, m->va, m->rss);
		break;
	case MG_MSG_BASE:
		n = snprintf(dst, cap, "base %" PRIu64 " %" PRIu64, m->va, m->rss);
		break;
	case MG_MSG_DYING:
		n = snprintf(dst, cap, "dying %d %" PRIu64 " %" PRIu64 " %" PRIu64, m->sig, m->va,
		             m->rss, m->bytes);
		break;
	case MG_MSG_PEAK:
		n = snprintf(dst, cap, "peak %" PRIu64, m->va);
		break;
	case MG_CMD_EXPECT:
		n = snprintf(dst, cap, "expect %" PRIu64 " %" PRIu64 "%s", m->va, m->bytes,
		             m->count ? " known" : "");
		break;
	case MG_MSG_TEST:
	case MG_MSG_START:
	case MG_MSG_OUT:
	case MG_CMD_RUN:
		n = snprintf(dst, cap, "%s ", words[m->kind]);
		break;
	case MG_CMD_LIST:
	case MG_CMD_QUIT:
	case MG_CMD_FED:
		n = snprintf(dst, cap, "%s", words[m->kind]);
		break;
	case MG_MSG_MODULE:
		n = snprintf(dst, cap, "module %" PRIu64 " %.*s ", m->count,
		             m->build_id_len ? (int)m->build_id_len : 1,
		             m->build_id_len ? m->build_id : "-");
		break;
	case MG_MSG_SITE: /* the frames' text has nothing to escape */
		n = snprintf(dst, cap, "site %" PRIu64 " %" PRIu64 " %s ", m->bytes, m->count,
		             mg_proto_site_word(m->site_kind));
		break;
	case MG_MSG_NOMEM:
		n = snprintf(dst, cap, "nomem %" PRIu64, m->count);
		break;
	case MG_MSG_AFTER:
		n = snprintf(dst, cap, "after %" PRIu64, m->count);
		break;
	case MG_MSG_NEEDS:
		n = snprintf(dst, cap, "needs %" PRIu64 " ", m->count);
		break;
	case MG_MSG_PIN:
		n = snprintf(dst, cap, "pin ");
		break;
	case MG_MSG_HELD: /* as a site */
		n = snprintf(dst, cap, "held %" PRIu64 " %" PRIu64 " %s ", m->bytes, m->count,
		             mg_proto_site_word(m->site_kind));
		break;
	case MG_MSG_HELDIN:
		n = snprintf(dst, cap, "heldin ");
		break;
	case MG_MSG_WAIT:
		n = snprintf(dst, cap, "wait ");
		break;
	case MG_MSG_HELDBY:
		n = snprintf(dst, cap, "heldby ");
		break;
	}
	size_t len = (size_t)n;
	if (m->text_len > 0 && m->kind != MG_MSG_PASS)
		len += mg_proto_escape(dst + len, cap - len, m->text, m->text_len);
	return len;
}

static void fuzz(void)
{
	static const char *const seeds[] = {
	    "hello 1 x86 4242 123456789 2101248",
	    "test suite/a b\\\\c\\nd",
	    "end 40",
	    "after 3",
	    "needs 2 db",
	    "wait RESOURCE_LOCK db",
	    "base 123456789 2101248",
	    "start fault/t001",
	    "pass 12 3 4",
	    "fail 7 8 9 expected 1\\ngot 2 \\r\\\\",
	    "skip 0 0 0 no GPU",
	    "error 1 2 3 did not run",
	    "extra fail 23 Suite.TearDownTestSuitea.cc:3: Failure",
	    "recycle 3758096384 1000",
	    "bye 5 6",
	    "list",
	    "run demo/item_0001",
	    "quit",
	    "expect 629145600 8388608 known",
	};
	static const char interesting[] = " \\nr0123456789\n\r\0x-+";
	static char line[512], copy[512], again[2048];
	static char text[512];
	size_t nseeds = sizeof(seeds) / sizeof(seeds[0]);
	unsigned accepted = 0;
	for (unsigned iter = 0; iter < 200000; iter++) {
		const char *seed = seeds[rng() % nseeds];
		size_t len = strlen(seed);
		memcpy(line, seed, len);
		unsigned edits = 1 + rng() % 4;
		for (unsigned e = 0; e < edits; e++) {
			size_t pos = len ? rng() % (len + 1) : 0;
			char c = rng() % 2 ? (char)(rng() % 256)
			                   : interesting[rng() % (sizeof(interesting) - 1)];
			switch (rng() % 5) {
			case 0: /* replace */
				if (pos < len)
					line[pos] = c;
				break;
			case 1: /* insert */
				if (len < sizeof(line) - 1) {
					memmove(line + pos + 1, line + pos, len - pos);
					line[pos] = c;
					len++;
				}
				break;
			case 2: /* delete */
				if (pos < len) {
					memmove(line + pos, line + pos + 1, len - pos - 1);
					len--;
				}
				break;
			case 3: /* truncate */
				len = pos;
				break;
			default: /* duplicate a slice */
				if (pos < len && len * 2 < sizeof(line)) {
					size_t k = rng() % (len - pos) + 1;
					memmove(line + pos + k, line + pos, len - pos);
					len += k;
				}
				break;
			}
		}
		memcpy(copy, line, len);
		mg_msg m;
		if (mg_proto_parse(&m, copy, len) != 0)
			continue;
		accepted++;
		CU_ASSERT_PTR_NULL(memchr(line, '\0', len));
		CU_ASSERT(m.text == NULL || m.text_len == 0 ||
		          (m.text >= copy && m.text + m.text_len <= copy + len));
		/* what was accepted writes back canonically and parses to the same */
		mg_msg first = m;
		if (m.text_len > 0) {
			memcpy(text, m.text, m.text_len);
			first.text = text;
		}
		size_t n = format_msg(again, sizeof(again), &first);
		mg_msg second;
		if (mg_proto_parse(&second, again, n) != 0) {
			CU_FAIL("accepted line does not re-escape to a valid line");
			fprintf(stderr, "line: '%.*s'\n", (int)len, line);
			continue;
		}
		CU_ASSERT_EQUAL(second.kind, first.kind);
		CU_ASSERT_EQUAL(second.usec, first.usec);
		CU_ASSERT_EQUAL(second.va, first.va);
		CU_ASSERT_EQUAL(second.rss, first.rss);
		CU_ASSERT_EQUAL(second.count, first.count);
		CU_ASSERT_EQUAL(second.pid, first.pid);
		CU_ASSERT_EQUAL(second.version, first.version);
		CU_ASSERT_EQUAL(second.text_len, first.text_len);
		if (second.text_len == first.text_len && first.text_len > 0)
			CU_ASSERT_EQUAL(memcmp(second.text, first.text, first.text_len), 0);
	}
	/* the mutations must keep a fair share valid, or the loop tests nothing */
	CU_ASSERT(accepted > 20000);
	printf("fuzz: %u of 200000 mutated lines accepted\n", accepted);
}

/* ---- processes ---- */

/* Runs path standalone with the extra env (NAME=VALUE, NULL-terminated). */
static int run_standalone(const char *path, const char *const *env)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		unsetenv("MEMGUARD_HOST");
		for (; env != NULL && *env != NULL; env++)
			putenv((char *)*env);
		int devnull = open("/dev/null", O_WRONLY);
		dup2(devnull, 1);
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	int status = -1;
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

static void standalone_exit_codes(void)
{
	static const char *const planted[] = {"MG_FAULT=fail@3", NULL};
	static const char *const clean[] = {"MG_FAULT=", NULL};
	static const char *const crash[] = {"MG_FAULT=abort@1", NULL};
	int st = run_standalone(FAULT_HOST64, planted);
	CU_ASSERT_FATAL(WIFEXITED(st));
	CU_ASSERT_EQUAL(WEXITSTATUS(st), 1);
	st = run_standalone(FAULT_HOST64, clean);
	CU_ASSERT_FATAL(WIFEXITED(st));
	CU_ASSERT_EQUAL(WEXITSTATUS(st), 0);
	st = run_standalone(FAULT_HOST64, crash);
	CU_ASSERT_FATAL(WIFSIGNALED(st));
	CU_ASSERT_EQUAL(WTERMSIG(st), SIGABRT);
}

typedef struct hostproc {
	pid_t pid;
	int cmd, reply;
	char buf[1 << 17];
	size_t start, len;
	char line[MG_PROTO_LINE_MAX + 1];
} hostproc;

static hostproc hp;

/* Starts path in host mode with pipes on 3/4; env as for run_standalone. */
static int host_start(hostproc *h, const char *path, const char *const *env)
{
	int cmd[2], reply[2];
	if (pipe2(cmd, O_CLOEXEC) < 0 || pipe2(reply, O_CLOEXEC) < 0)
		return -1;
	fflush(NULL);
	h->pid = fork();
	if (h->pid == 0) {
		int c = fcntl(cmd[0], F_DUPFD, 10), r = fcntl(reply[1], F_DUPFD, 10);
		if (c < 0 || r < 0 || dup2(c, 3) < 0 || dup2(r, 4) < 0)
			_exit(126);
		setenv("MEMGUARD_HOST", "1", 1);
		setenv("MEMGUARD_CMD_FD", "3", 1);
		setenv("MEMGUARD_REPLY_FD", "4", 1);
		unsetenv("MEMGUARD_RECYCLE_VA");
		unsetenv("MEMGUARD_RECYCLE_RSS");
		for (; env != NULL && *env != NULL; env++)
			putenv((char *)*env);
		int devnull = open("/dev/null", O_WRONLY);
		dup2(devnull, 1);
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	close(cmd[0]);
	close(reply[1]);
	h->cmd = cmd[1];
	h->reply = reply[0];
	h->start = h->len = 0;
	return h->pid > 0 ? 0 : -1;
}

static void host_send(hostproc *h, const char *s)
{
	size_t n = strlen(s);
	CU_ASSERT_EQUAL(write(h->cmd, s, n), (ssize_t)n);
}

/* The next reply line without its newline, or NULL at EOF / after 10 s. */
static const char *host_line(hostproc *h)
{
	for (;;) {
		char *nl = memchr(h->buf + h->start, '\n', h->len);
		if (nl != NULL) {
			size_t n = (size_t)(nl - (h->buf + h->start));
			memcpy(h->line, h->buf + h->start, n);
			h->line[n] = '\0';
			h->start += n + 1;
			h->len -= n + 1;
			return h->line;
		}
		memmove(h->buf, h->buf + h->start, h->len);
		h->start = 0;
		struct pollfd p = {h->reply, POLLIN, 0};
		if (poll(&p, 1, 10000) <= 0)
			return NULL;
		ssize_t r = read(h->reply, h->buf + h->len, sizeof(h->buf) - h->len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return NULL;
		h->len += (size_t)r;
	}
}

/* Expects a reply line of kind; returns the parsed message in *m. */
static int expect(hostproc *h, mg_msg_kind kind, mg_msg *m)
{
	const char *l = host_line(h);
	if (l == NULL) {
		fprintf(stderr, "expected a reply, got EOF\n");
		return -1;
	}
	static char copy[MG_PROTO_LINE_MAX + 1];
	strcpy(copy, l);
	if (mg_proto_parse(m, copy, strlen(copy)) != 0 || m->kind != kind) {
		fprintf(stderr, "unexpected reply '%s'\n", l);
		return -1;
	}
	return 0;
}

static int host_wait(hostproc *h)
{
	close(h->cmd);
	int status = -1;
	for (int i = 0; i < 1000; i++) {
		pid_t r = waitpid(h->pid, &status, WNOHANG);
		if (r == h->pid)
			break;
		struct timespec ts = {0, 10000000};
		nanosleep(&ts, NULL);
		if (i == 999) {
			kill(h->pid, SIGKILL);
			waitpid(h->pid, &status, 0);
		}
	}
	close(h->reply);
	return status;
}

static void hostmode_pipeline(void)
{
	static const char *const env[] = {"MG_BENCH_TESTS=50", NULL};
	hostproc *h = &hp;
	mg_msg m;
	CU_ASSERT_EQUAL_FATAL(host_start(h, BENCH_HOST64, env), 0);
	CU_ASSERT_EQUAL_FATAL(expect(h, MG_MSG_HELLO, &m), 0);
	CU_ASSERT_EQUAL(m.version, 1);
	CU_ASSERT_STRING_EQUAL(m.arch, "x64");
	CU_ASSERT_EQUAL(m.pid, h->pid);
	CU_ASSERT(m.va > 0 && m.rss > 0);

	host_send(h, "list\n");
	for (int i = 0; i < 50; i++) {
		char want[32];
		snprintf(want, sizeof(want), "bench/t%05d", i);
		CU_ASSERT_EQUAL_FATAL(expect(h, MG_MSG_TEST, &m), 0);
		CU_ASSERT(text_is(&m, want));
	}
	CU_ASSERT_EQUAL_FATAL(expect(h, MG_MSG_END, &m), 0);
	CU_ASSERT_EQUAL(m.count, 50);

	/* three run lines in one write: answered in order */
	host_send(h, "run bench/t00007\nrun bench/t00003\nrun bench/t00049\n");
	static const char *const order[] = {"bench/t00007", "bench/t00003", "bench/t00049"};
	for (int i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL_FATAL(expect(h, MG_MSG_START, &m), 0);
		CU_ASSERT(text_is(&m, order[i]));
		CU_ASSERT_EQUAL_FATAL(expect(h, MG_MSG_PASS, &m), 0);
		CU_ASSERT(m.va > 0 && m.rss > 0);
	}
	/* an unknown name still pairs start with a result */
	host_send(h, "run no/such\\ntest\n");
	CU_ASSERT_EQUAL_FATAL(expect(h, MG_MSG_START, &m), 0);
	CU_ASSERT(text_is(&m, "no/such\ntest"));
	CU_ASSERT_EQUAL_FATAL(expect(h, MG_MSG_FAIL, &m), 0);
	CU_ASSERT(text_is(&m, "unknown test 'no/such\ntest'"));

	host_send(h, "quit\n");
	CU_ASSERT_EQUAL_FATAL(expect(h, MG_MSG_BYE, &m), 0);
	CU_ASSERT(m.va > 0 && m.rss > 0);
	CU_ASSERT_PTR_NULL(host_line(h));
	int st = host_wait(h);
	CU_ASSERT_FATAL(WIFEXITED(st));
	CU_ASSERT_EQUAL(WEXITSTATUS(st), 0);
}

/* After recycle the host waits for quit, still holding its memory: alive,
 * not exited. Then quit gets its bye. */
static void recycle_then_quit(hostproc *h, mg_msg *m)
{
	int st;
	struct timespec ts = {0, 50 * 1000 * 1000};
	nanosleep(&ts, NULL);
	CU_ASSERT_EQUAL(waitpid(h->pid, &st, WNOHANG), 0);
	host_send(h, "quit\n");
	CU_ASSERT_EQUAL_FATAL(expect(h, MG_MSG_BYE, m), 0);
}

static void hostmode_recycle(void)
{
	static const char *const env[] = {"MEMGUARD_RECYCLE_VA=4096", NULL};
	hostproc *h = &hp;
	mg_msg m;
	CU_ASSERT_EQUAL_FATAL(host_start(h, BENCH_HOST64, env), 0);
	CU_ASSERT_EQUAL_FATAL(expect(h, MG_MSG_HELLO, &m), 0);
	host_send(h, "run bench/t00000\nrun bench/t00001\nrun bench/t00002\n");
	CU_ASSERT_EQUAL_FATAL(expect(h, MG_MSG_START, &m), 0);
	CU_ASSERT(text_is(&m, "bench/t00000"));
	CU_ASSERT_EQUAL_FATAL(expect(h, MG_MSG_PASS, &m), 0);
	uint64_t va = m.va;
	CU_ASSERT_EQUAL_FATAL(expect(h, MG_MSG_RECYCLE, &m), 0);
	CU_ASSERT_EQUAL(m.va, va);
	recycle_then_quit(h, &m);
	CU_ASSERT(m.va >= va);
	CU_ASSERT_PTR_NULL(host_line(h)); /* nothing after bye */
	int st = host_wait(h);
	CU_ASSERT_FATAL(WIFEXITED(st));
	CU_ASSERT_EQUAL(WEXITSTATUS(st), 0);
}

static void hostmode_eof_and_garbage(void)
{
	hostproc *h = &hp;
	mg_msg m;
	/* runner gone: EOF on the command fd ends the host quietly */
	CU_ASSERT_EQUAL_FATAL(host_start(h, BENCH_HOST64, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(expect(h, MG_MSG_HELLO, &m), 0);
	int st = host_wait(h);
	CU_ASSERT_FATAL(WIFEXITED(st));
	CU_ASSERT_EQUAL(WEXITSTATUS(st), 0);

	/* a command outside the grammar: exit 3 without bye */
	CU_ASSERT_EQUAL_FATAL(host_start(h, BENCH_HOST64, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(expect(h, MG_MSG_HELLO, &m), 0);
	host_send(h, "run bench/t00000\nrun\n");
	CU_ASSERT_EQUAL_FATAL(expect(h, MG_MSG_START, &m), 0);
	CU_ASSERT_EQUAL_FATAL(expect(h, MG_MSG_PASS, &m), 0);
	CU_ASSERT_PTR_NULL(host_line(h));
	st = host_wait(h);
	CU_ASSERT_FATAL(WIFEXITED(st));
	CU_ASSERT_EQUAL(WEXITSTATUS(st), 3);
}

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* 10,000 tests with up to 32 run lines queued: the cost per test, printed. */
static void hostmode_throughput(void)
{
	hostproc *h = &hp;
	mg_msg m;
	const int total = 10000, window = 32;
	CU_ASSERT_EQUAL_FATAL(host_start(h, BENCH_HOST64, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(expect(h, MG_MSG_HELLO, &m), 0);
	double t0 = now_us();
	int sent = 0, done = 0;
	char cmd[64];
	while (done < total) {
		while (sent < total && sent - done < window) {
			snprintf(cmd, sizeof(cmd), "run bench/t%05d\n", sent++);
			host_send(h, cmd);
		}
		CU_ASSERT_EQUAL_FATAL(expect(h, MG_MSG_START, &m), 0);
		CU_ASSERT_EQUAL_FATAL(expect(h, MG_MSG_PASS, &m), 0);
		done++;
	}
	double per = (now_us() - t0) / total;
	host_send(h, "quit\n");
	CU_ASSERT_EQUAL_FATAL(expect(h, MG_MSG_BYE, &m), 0);
	int st = host_wait(h);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	printf("host mode: %.1f us per ~1 us test, pipelined (window %d)\n", per, window);
	CU_ASSERT(per < 200.0); /* a sanity bound; the goal is < 10 us added */
}

/* Run directly, the demo dies of address-space exhaustion before the end. */
static void demo_exhausts_standalone(void)
{
	int st = run_standalone(DEMO64, NULL);
	CU_ASSERT_FATAL(WIFSIGNALED(st));
	CU_ASSERT_EQUAL(WTERMSIG(st), SIGABRT);
}

/* A minimal runner: generations of the demo with a 3.5 GiB recycle limit,
 * run lines queued 8 ahead, queued tests handed to the next generation. */
static void demo_recycles_in_host_mode(void)
{
	static const char *const env[] = {"MEMGUARD_RECYCLE_VA=3758096384", NULL};
	const int total = 1200;
	hostproc *h = &hp;
	mg_msg m;
	int done = 0, generations = 0, recycles = 0;
	char cmd[64], want[32];
	while (done < total && generations < 10) {
		CU_ASSERT_EQUAL_FATAL(host_start(h, DEMO64, env), 0);
		CU_ASSERT_EQUAL_FATAL(expect(h, MG_MSG_HELLO, &m), 0);
		generations++;
		int sent = done;
		for (;;) {
			while (sent < total && sent - done < 8) {
				snprintf(cmd, sizeof(cmd), "run demo/item_%04d\n", ++sent);
				host_send(h, cmd);
			}
			if (done == total) {
				host_send(h, "quit\n");
				CU_ASSERT_EQUAL_FATAL(expect(h, MG_MSG_BYE, &m), 0);
				break;
			}
			const char *l = host_line(h);
			CU_ASSERT_PTR_NOT_NULL_FATAL(l);
			static char copy[MG_PROTO_LINE_MAX + 1];
			strcpy(copy, l);
			CU_ASSERT_EQUAL_FATAL(mg_proto_parse(&m, copy, strlen(copy)), 0);
			if (m.kind == MG_MSG_RECYCLE) {
				CU_ASSERT(m.va >= 3758096384u);
				recycles++;
				recycle_then_quit(h, &m);
				break;
			}
			CU_ASSERT_EQUAL_FATAL(m.kind, MG_MSG_START);
			snprintf(want, sizeof(want), "demo/item_%04d", done + 1);
			CU_ASSERT_FATAL(text_is(&m, want));
			CU_ASSERT_EQUAL_FATAL(expect(h, MG_MSG_PASS, &m), 0);
			CU_ASSERT(m.va < ((uint64_t)4 << 30));
			done++;
		}
		int st = host_wait(h);
		CU_ASSERT_FATAL(WIFEXITED(st));
		CU_ASSERT_EQUAL(WEXITSTATUS(st), 0);
	}
	CU_ASSERT_EQUAL(done, total);
	CU_ASSERT(recycles >= 2);
	printf("demo: %d tests passed in %d generations (%d recycles)\n", done, generations,
	       recycles);
}

/* The CUnit binding: CUnit's own runner standalone, the registry as a host. */
static void cunit_standalone(void)
{
	int st = run_standalone(CUNIT_HOST64, NULL);
	CU_ASSERT_FATAL(WIFEXITED(st));
	CU_ASSERT_EQUAL(WEXITSTATUS(st), 1); /* failing/wrong */
}

static void cunit_hostmode(void)
{
	static const char *const env[] = {"MG_CUNIT_LEAK_MB=512", "MEMGUARD_RECYCLE_VA=1073741824",
	                                  NULL};
	hostproc *h = &hp;
	mg_msg m;
	CU_ASSERT_EQUAL_FATAL(host_start(h, CUNIT_HOST64, env), 0);
	CU_ASSERT_EQUAL_FATAL(expect(h, MG_MSG_HELLO, &m), 0);
	host_send(h, "list\n");
	static const char *const names[] = {"basic/add",         "basic/string",
	                                    "withinit/init_ran", "withinit/init_ran_again",
	                                    "failing/wrong",     "leaking/leak"};
	for (int i = 0; i < 6; i++) {
		CU_ASSERT_EQUAL_FATAL(expect(h, MG_MSG_TEST, &m), 0);
		CU_ASSERT(text_is(&m, names[i]));
	}
	CU_ASSERT_EQUAL_FATAL(expect(h, MG_MSG_END, &m), 0);
	/* init runs again when the host comes back to the suite */
	host_send(h, "run withinit/init_ran\nrun basic/add\nrun withinit/init_ran_again\n"
	             "run failing/wrong\nrun leaking/leak\nrun leaking/leak\nrun basic/add\n");
	for (int i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL_FATAL(expect(h, MG_MSG_START, &m), 0);
		CU_ASSERT_EQUAL_FATAL(expect(h, MG_MSG_PASS, &m), 0);
	}
	CU_ASSERT_EQUAL_FATAL(expect(h, MG_MSG_START, &m), 0);
	CU_ASSERT_EQUAL_FATAL(expect(h, MG_MSG_FAIL, &m), 0);
	static const char tail[] = "cunit_host.c:44: CU_ASSERT_EQUAL(answer,42)";
	CU_ASSERT(m.text_len > sizeof(tail) - 1 &&
	          memcmp(m.text + m.text_len - (sizeof(tail) - 1), tail, sizeof(tail) - 1) == 0);
	/* two 512 MiB leaks cross the 1 GiB soft limit: recycle, no third test */
	CU_ASSERT_EQUAL_FATAL(expect(h, MG_MSG_START, &m), 0);
	CU_ASSERT_EQUAL_FATAL(expect(h, MG_MSG_PASS, &m), 0);
	uint64_t va1 = m.va;
	CU_ASSERT_EQUAL_FATAL(expect(h, MG_MSG_START, &m), 0);
	CU_ASSERT_EQUAL_FATAL(expect(h, MG_MSG_PASS, &m), 0);
	CU_ASSERT(m.va >= va1 + (512u << 20));
	CU_ASSERT_EQUAL_FATAL(expect(h, MG_MSG_RECYCLE, &m), 0);
	recycle_then_quit(h, &m);
	CU_ASSERT_PTR_NULL(host_line(h));
	int st = host_wait(h);
	CU_ASSERT_FATAL(WIFEXITED(st));
	CU_ASSERT_EQUAL(WEXITSTATUS(st), 0);
}

/* The line reader: lines split across reads, NUL-terminated in place, a
 * partial line kept, the limit on a line's length, the end of the file. */
static void lines_reader(void)
{
	int fds[2];
	CU_ASSERT_FATAL(pipe(fds) == 0);
	static char buf[64];
	mg_lines r;
	char *line;
	size_t len;
	mg_lines_init(&r, buf, sizeof(buf), 16);
	CU_ASSERT_EQUAL(mg_lines_next(&r, &line, &len), 0);
	CU_ASSERT(write(fds[1], "run a\nrun b", 11) == 11);
	CU_ASSERT_EQUAL(mg_lines_fill(&r, fds[0]), 11);
	CU_ASSERT_EQUAL(mg_lines_next(&r, &line, &len), 1);
	CU_ASSERT_EQUAL(len, 5);
	CU_ASSERT_STRING_EQUAL(line, "run a");
	CU_ASSERT_EQUAL(mg_lines_next(&r, &line, &len), 0); /* "run b" has no newline yet */
	CU_ASSERT_EQUAL(mg_lines_pending(&r), 5);
	CU_ASSERT(write(fds[1], "\n\nquit\n", 7) == 7);
	CU_ASSERT_EQUAL(mg_lines_fill(&r, fds[0]), 7);
	CU_ASSERT(mg_lines_next(&r, &line, &len) == 1 && !strcmp(line, "run b"));
	CU_ASSERT(mg_lines_next(&r, &line, &len) == 1 && len == 0); /* an empty line */
	CU_ASSERT(mg_lines_next(&r, &line, &len) == 1 && !strcmp(line, "quit"));
	CU_ASSERT_EQUAL(mg_lines_pending(&r), 0);
	/* 15 bytes and a newline fit a limit of 16; 16 without one do not */
	CU_ASSERT(write(fds[1], "123456789012345\n1234567890123456", 32) == 32);
	CU_ASSERT_EQUAL(mg_lines_fill(&r, fds[0]), 32);
	CU_ASSERT(mg_lines_next(&r, &line, &len) == 1 && len == 15);
	CU_ASSERT_EQUAL(mg_lines_next(&r, &line, &len), 0);
	CU_ASSERT_EQUAL(mg_lines_fill(&r, fds[0]), MG_LINES_LONG);
	/* the end of the file, with a partial line left */
	mg_lines_init(&r, buf, sizeof(buf), 16);
	CU_ASSERT(write(fds[1], "tail", 4) == 4);
	close(fds[1]);
	CU_ASSERT_EQUAL(mg_lines_fill(&r, fds[0]), 4);
	CU_ASSERT_EQUAL(mg_lines_fill(&r, fds[0]), 0);
	CU_ASSERT_EQUAL(mg_lines_next(&r, &line, &len), 0);
	CU_ASSERT_EQUAL(mg_lines_pending(&r), 4);
	close(fds[0]);
}

static const mg_case cases[] = {
    {"parse_hello", parse_hello},
    {"parse_names", parse_names},
    {"parse_results", parse_results},
    {"parse_malformed", parse_malformed},
    {"parse_nul_and_newline", parse_nul_and_newline},
    {"parse_line_limit", parse_line_limit},
    {"escape_roundtrip", escape_roundtrip},
    {"escape_truncates", escape_truncates},
    {"fuzz", fuzz},
    {"standalone_exit_codes", standalone_exit_codes},
    {"hostmode_pipeline", hostmode_pipeline},
    {"hostmode_recycle", hostmode_recycle},
    {"hostmode_eof_and_garbage", hostmode_eof_and_garbage},
    {"hostmode_throughput", hostmode_throughput},
    {"demo_exhausts_standalone", demo_exhausts_standalone},
    {"demo_recycles_in_host_mode", demo_recycles_in_host_mode},
    {"cunit_standalone", cunit_standalone},
    {"cunit_hostmode", cunit_hostmode},
    {"lines_reader", lines_reader},
    {"parse_v2", parse_v2},
    {"parse_v4", parse_v4},
};

MG_TEST_MAIN("host", cases)

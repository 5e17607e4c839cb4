/*
 * mg_proto.c - the wire (PROTOCOL.md, v1 to v3) in one place: the line parser and, beside it, the
 * writer of every line, the text escaper, the stream marks and their whole write, the line reader.
 * libc only, built for -m32 too. Never allocates; the parser unescapes in place and rejects
 * anything outside the grammar; the writers are async-signal-safe.
 */
#include "mg_proto.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* A cursor over the fields of one line. */
typedef struct cursor {
	char *p;
	char *end;
} cursor;

/* Reads 1*DIGIT up to a space or the end of the line; fails on overflow
 * (checked from the 20th digit on: 19 digits always fit). */
static int take_number(cursor *c, uint64_t *out)
{
	uint64_t v = 0;
	char *p = c->p, *end = c->end;
	/* 19 digits always fit: no overflow check up to there */
	char *easy = end - p > 19 ? p + 19 : end;
	if (p == end || (unsigned)(*p - '0') > 9)
		return -1;
	for (; p < easy; p++) {
		unsigned d = (unsigned)(*p - '0');
		if (d > 9)
			break;
		v = v * 10 + d;
	}
	for (; p < end && *p != ' '; p++) {
		unsigned d = (unsigned)(*p - '0');
		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	c->p = p;
	*out = v;
	return 0;
}

/* Consumes exactly one separating space. */
static int take_space(cursor *c)
{
	if (c->p == c->end || *c->p != ' ')
		return -1;
	c->p++;
	return 0;
}

static int at_end(const cursor *c)
{
	return c->p == c->end ? 0 : -1;
}

/* " NUMBER" */
static int take_field(cursor *c, uint64_t *out)
{
	if (take_space(c) < 0)
		return -1;
	return take_number(c, out);
}

/*
 * Unescapes the rest of the line in place into out->text. An empty text is
 * accepted here; callers that need a name check text_len.
 */
static int take_text(cursor *c, mg_msg *out)
{
	char *r = c->p, *w = c->p;
	out->text = c->p;
	/* most text has no escape: up to the first backslash it stays where it is */
	char *bs = memchr(r, '\\', (size_t)(c->end - r));
	if (bs == NULL) {
		out->text_len = (size_t)(c->end - c->p);
		c->p = c->end;
		return 0;
	}
	r = w = bs;
	while (r < c->end) {
		char ch = *r++;
		if (ch == '\\') {
			if (r == c->end)
				return -1;
			char e = *r++;
			if (e == '\\')
				ch = '\\';
			else if (e == 'n')
				ch = '\n';
			else if (e == 'r')
				ch = '\r';
			else
				return -1;
		}
		*w++ = ch;
	}
	out->text_len = (size_t)(w - c->p);
	c->p = c->end;
	return 0;
}

static int take_name(cursor *c, mg_msg *out)
{
	if (take_space(c) < 0 || take_text(c, out) < 0)
		return -1;
	return out->text_len > 0 ? 0 : -1;
}

/* usec va rss [ SP message ] */
static int take_result(cursor *c, mg_msg *out, int with_message)
{
	if (take_field(c, &out->usec) < 0 || take_field(c, &out->va) < 0 ||
	    take_field(c, &out->rss) < 0)
		return -1;
	if (!with_message)
		return at_end(c);
	out->text = "";
	out->text_len = 0;
	if (c->p == c->end)
		return 0;
	if (take_space(c) < 0)
		return -1;
	return take_text(c, out);
}

static int take_hello(cursor *c, mg_msg *out)
{
	uint64_t version, pid;
	if (take_field(c, &version) < 0 || version > UINT_MAX)
		return -1;
	out->version = (unsigned)version;
	if (take_space(c) < 0 || c->end - c->p < 3)
		return -1;
	if (memcmp(c->p, "x86", 3) != 0 && memcmp(c->p, "x64", 3) != 0)
		return -1;
	memcpy(out->arch, c->p, 3);
	out->arch[3] = '\0';
	c->p += 3;
	if (take_field(c, &pid) < 0 || pid > (uint64_t)LONG_MAX)
		return -1;
	out->pid = (long)pid;
	if (take_field(c, &out->va) < 0 || take_field(c, &out->rss) < 0)
		return -1;
	return at_end(c);
}

static const struct {
	const char *word;
	size_t len;
	mg_msg_kind kind;
} words[] = {
    /* in mg_msg_kind's order: words[kind] is kind's word */
    {"hello", 5, MG_MSG_HELLO},     {"test", 4, MG_MSG_TEST},       {"end", 3, MG_MSG_END},
    {"start", 5, MG_MSG_START},     {"pass", 4, MG_MSG_PASS},       {"fail", 4, MG_MSG_FAIL},
    {"skip", 4, MG_MSG_SKIP},       {"recycle", 7, MG_MSG_RECYCLE}, {"bye", 3, MG_MSG_BYE},
    {"out", 3, MG_MSG_OUT},         {"dying", 5, MG_MSG_DYING},     {"peak", 4, MG_MSG_PEAK},
    {"timeout", 7, MG_MSG_TIMEOUT}, {"list", 4, MG_CMD_LIST},       {"run", 3, MG_CMD_RUN},
    {"quit", 4, MG_CMD_QUIT},       {"expect", 6, MG_CMD_EXPECT},   {"fed", 3, MG_CMD_FED},
    {"error", 5, MG_MSG_ERROR},     {"extra", 5, MG_MSG_EXTRA},     {"module", 6, MG_MSG_MODULE},
    {"site", 4, MG_MSG_SITE},       {"nomem", 5, MG_MSG_NOMEM},     {"pin", 3, MG_MSG_PIN},
    {"held", 4, MG_MSG_HELD},       {"heldin", 6, MG_MSG_HELDIN},   {"heldby", 6, MG_MSG_HELDBY},
    {"after", 5, MG_MSG_AFTER},     {"needs", 5, MG_MSG_NEEDS},     {"wait", 4, MG_MSG_WAIT},
    {"base", 4, MG_MSG_BASE},
};

/* words[]'s indexes by first letter ('a' + i), up to four, WORD_NONE after
 * the last: a line's word is compared with those only (the shim parses a
 * run line a test, the runner a start and a result line) */
#define WORD_NONE 0xff
static const unsigned char by_letter[26][4] = {
    ['a' - 'a'] = {MG_MSG_AFTER, WORD_NONE, WORD_NONE, WORD_NONE},
    ['b' - 'a'] = {MG_MSG_BYE, MG_MSG_BASE, WORD_NONE, WORD_NONE},
    ['d' - 'a'] = {MG_MSG_DYING, WORD_NONE, WORD_NONE, WORD_NONE},
    ['e' - 'a'] = {MG_MSG_END, MG_CMD_EXPECT, MG_MSG_ERROR, MG_MSG_EXTRA},
    ['f' - 'a'] = {MG_MSG_FAIL, MG_CMD_FED, WORD_NONE, WORD_NONE},
    ['h' - 'a'] = {MG_MSG_HELLO, MG_MSG_HELD, MG_MSG_HELDIN, MG_MSG_HELDBY},
    ['l' - 'a'] = {MG_CMD_LIST, WORD_NONE, WORD_NONE, WORD_NONE},
    ['m' - 'a'] = {MG_MSG_MODULE, WORD_NONE, WORD_NONE, WORD_NONE},
    ['n' - 'a'] = {MG_MSG_NOMEM, MG_MSG_NEEDS, WORD_NONE, WORD_NONE},
    ['o' - 'a'] = {MG_MSG_OUT, WORD_NONE, WORD_NONE, WORD_NONE},
    ['p' - 'a'] = {MG_MSG_PASS, MG_MSG_PEAK, MG_MSG_PIN, WORD_NONE},
    ['q' - 'a'] = {MG_CMD_QUIT, WORD_NONE, WORD_NONE, WORD_NONE},
    ['r' - 'a'] = {MG_CMD_RUN, MG_MSG_RECYCLE, WORD_NONE, WORD_NONE},
    ['s' - 'a'] = {MG_MSG_START, MG_MSG_SKIP, MG_MSG_SITE, WORD_NONE},
    ['t' - 'a'] = {MG_MSG_TEST, MG_MSG_TIMEOUT, WORD_NONE, WORD_NONE},
    ['w' - 'a'] = {MG_MSG_WAIT, WORD_NONE, WORD_NONE, WORD_NONE},
};
_Static_assert(sizeof(words) / sizeof(words[0]) == 31 && MG_MSG_BASE < WORD_NONE,
               "a new word goes into by_letter too (and words_by_letter's last kind)");

static const char *const site_words[] = {"mmap", "malloc", "new"};

const char *mg_proto_site_word(mg_site_kind kind)
{
	return (unsigned)kind < 3 ? site_words[kind] : "malloc";
}

static int hex_digit(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	return -1;
}

int mg_proto_frame_next(const char **p, const char *end, mg_frame *out)
{
	const char *s = *p;
	uint64_t id = 0, off = 0;
	if (s < end && *s == ' ')
		s++;
	if (s >= end || *s < '0' || *s > '9')
		return 0;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		if (id > (UINT32_MAX - 9) / 10)
			return 0;
		id = id * 10 + (uint64_t)(*s - '0');
	}
	if (s >= end || *s != '+' || ++s >= end || hex_digit(*s) < 0)
		return 0;
	for (; s < end && hex_digit(*s) >= 0; s++) {
		if (off >> 60)
			return 0;
		off = off << 4 | (uint64_t)hex_digit(*s);
	}
	if (s < end && *s != ' ')
		return 0;
	out->module = (uint32_t)id;
	out->offset = off;
	*p = s;
	return 1;
}

/* module SP ID SP (BUILDID / "-") SP PATH */
static int take_module(cursor *c, mg_msg *out)
{
	if (take_field(c, &out->count) < 0 || out->count > UINT32_MAX || take_space(c) < 0)
		return -1;
	char *b = c->p;
	while (c->p < c->end && *c->p != ' ')
		c->p++;
	size_t n = (size_t)(c->p - b);
	if (n == 1 && *b == '-') {
		n = 0;
	} else {
		if (n == 0 || n > MG_PROTO_BUILD_ID_MAX || n % 2)
			return -1;
		for (size_t i = 0; i < n; i++)
			if (hex_digit(b[i]) < 0)
				return -1;
	}
	out->build_id = n ? b : NULL;
	out->build_id_len = n;
	return take_name(c, out);
}

static int take_frames(cursor *c, mg_msg *out);

/* site (held) SP BYTES SP COUNT SP KIND 1*(SP FRAME) */
static int take_site(cursor *c, mg_msg *out)
{
	if (take_field(c, &out->bytes) < 0 || take_field(c, &out->count) < 0 || take_space(c) < 0)
		return -1;
	size_t k, wl = 0;
	while (c->p + wl < c->end && c->p[wl] != ' ')
		wl++;
	for (k = 0; k < 3; k++)
		if (strlen(site_words[k]) == wl && !memcmp(site_words[k], c->p, wl))
			break;
	if (k == 3)
		return -1;
	out->site_kind = (mg_site_kind)k;
	c->p += wl;
	return take_frames(c, out);
}

/* 1*(SP FRAME) to the end: out->text their text, out->nframes their count */
static int take_frames(cursor *c, mg_msg *out)
{
	if (c->p == c->end)
		return -1;
	out->text = c->p + 1;
	out->text_len = (size_t)(c->end - c->p - 1);
	const char *p = c->p;
	mg_frame f;
	while (p < c->end && *p == ' ' && p + 1 < c->end && p[1] != ' ')
		if (!mg_proto_frame_next(&p, c->end, &f))
			return -1;
		else
			out->nframes++;
	c->p = (char *)p;
	if (out->nframes == 0)
		return -1;
	return at_end(c);
}

/* extra STATE NAMELEN TEXT: the state word, the name's length (unescaped),
 * then the name and the message as one text field. */
static int take_extra(cursor *c, mg_msg *out)
{
	uint64_t nl;
	if (take_space(c) < 0)
		return -1;
	if (c->end - c->p >= 5 && !memcmp(c->p, "fail ", 5)) {
		out->state = MG_MSG_FAIL;
		c->p += 4;
	} else if (c->end - c->p >= 6 && !memcmp(c->p, "error ", 6)) {
		out->state = MG_MSG_ERROR;
		c->p += 5;
	} else if (c->end - c->p >= 5 && !memcmp(c->p, "skip ", 5)) {
		out->state = MG_MSG_SKIP;
		c->p += 4;
	} else {
		return -1;
	}
	if (take_field(c, &nl) < 0 || take_name(c, out) < 0 || nl == 0 || nl > out->text_len)
		return -1;
	out->name_len = (size_t)nl;
	return 0;
}

/* The words of recycle's why, and whether a figure follows. */
static const struct {
	const char *word;
	mg_why why;
	int bytes;
} whys[] = {{"va", MG_WHY_VA, 0},    {"rss", MG_WHY_RSS, 0},   {"growth", MG_WHY_GROWTH, 1},
            {"gap", MG_WHY_GAP, 1},  {"peak", MG_WHY_PEAK, 1}, {"rssgrowth", MG_WHY_RSSGROWTH, 1},
            {"rise", MG_WHY_RISE, 1}};

/* WHY [SP BYTES] up to the end of the line. */
static int take_why_words(cursor *c, mg_why *why, uint64_t *bytes)
{
	size_t wl = 0;
	while (c->p + wl < c->end && c->p[wl] != ' ')
		wl++;
	for (size_t i = 0; i < sizeof(whys) / sizeof(whys[0]); i++) {
		if (strlen(whys[i].word) != wl || memcmp(whys[i].word, c->p, wl) != 0)
			continue;
		c->p += wl;
		*why = whys[i].why;
		if (whys[i].bytes && take_field(c, bytes) < 0)
			return -1;
		return at_end(c);
	}
	return -1;
}

/* [SP WHY [SP BYTES]] after "recycle VA RSS": v1 hosts say nothing more. */
static int take_why(cursor *c, mg_msg *out)
{
	if (c->p == c->end)
		return 0;
	if (take_space(c) < 0)
		return -1;
	return take_why_words(c, &out->why, &out->bytes);
}

int mg_proto_parse_why(const char *s, size_t len, mg_why *why, uint64_t *bytes)
{
	cursor c = {(char *)s, (char *)s + len};
	*why = MG_WHY_NONE;
	*bytes = 0;
	if (memchr(s, '\0', len) != NULL)
		return -1;
	return take_why_words(&c, why, bytes);
}

/*
 * O(len): one pass for NUL/LF, one for the fields. On failure *out holds
 * partial results and line may be partly unescaped.
 */
int mg_proto_parse(mg_msg *out, char *line, size_t len)
{
	memset(out, 0, sizeof(*out));
	if (line == NULL || len + 1 > MG_PROTO_LINE_MAX)
		return -1;
	if (memchr(line, '\0', len) != NULL || memchr(line, '\n', len) != NULL)
		return -1;

	size_t wl = 0;
	while (wl < len && line[wl] != ' ')
		wl++;
	if (wl == 0)
		return -1;
	unsigned char l = (unsigned char)(line[0] - 'a'), i = WORD_NONE;
	for (size_t k = 0; l < 26 && k < 4 && by_letter[l][k] != WORD_NONE; k++)
		if (words[by_letter[l][k]].len == wl &&
		    memcmp(words[by_letter[l][k]].word, line, wl) == 0) {
			i = by_letter[l][k];
			break;
		}
	if (i == WORD_NONE)
		return -1;
	out->kind = words[i].kind;

	cursor c = {line + wl, line + len};
	switch (out->kind) {
	case MG_MSG_HELLO:
		return take_hello(&c, out);
	case MG_MSG_TEST:
	case MG_MSG_START:
	case MG_CMD_RUN:
		return take_name(&c, out);
	case MG_MSG_OUT:
	case MG_MSG_PIN:
	case MG_MSG_HELDIN:
	case MG_MSG_WAIT:
		return take_name(&c, out); /* non-empty text, escaped like a name */
	case MG_MSG_END:                   /* a shim may add its MG_LIST_* flags */
		if (take_field(&c, &out->count) < 0)
			return -1;
		if (c.p != c.end && (take_field(&c, &out->bytes) < 0 || !out->bytes))
			return -1;
		return at_end(&c);
	case MG_MSG_AFTER:
		if (take_field(&c, &out->count) < 0)
			return -1;
		return at_end(&c);
	case MG_MSG_NEEDS:
		if (take_field(&c, &out->count) < 0)
			return -1;
		return take_name(&c, out);
	case MG_MSG_PASS:
		return take_result(&c, out, 0);
	case MG_MSG_FAIL:
	case MG_MSG_SKIP:
	case MG_MSG_ERROR:
	case MG_MSG_TIMEOUT:
		return take_result(&c, out, 1);
	case MG_MSG_EXTRA:
		return take_extra(&c, out);
	case MG_MSG_MODULE:
		return take_module(&c, out);
	case MG_MSG_SITE:
	case MG_MSG_HELD:
		return take_site(&c, out);
	case MG_MSG_HELDBY:
		return take_frames(&c, out);
	case MG_MSG_NOMEM:
		if (take_field(&c, &out->count) < 0)
			return -1;
		return at_end(&c);
	case MG_MSG_RECYCLE:
		if (take_field(&c, &out->va) < 0 || take_field(&c, &out->rss) < 0)
			return -1;
		return take_why(&c, out);
	case MG_MSG_BYE:
	case MG_MSG_BASE:
		if (take_field(&c, &out->va) < 0 || take_field(&c, &out->rss) < 0)
			return -1;
		return at_end(&c);
	case MG_MSG_PEAK:
		if (take_field(&c, &out->va) < 0)
			return -1;
		return at_end(&c);
	case MG_CMD_EXPECT: /* [SP "known"]: v4 */
		if (take_field(&c, &out->va) < 0 || take_field(&c, &out->bytes) < 0)
			return -1;
		if (c.end - c.p == 6 && !memcmp(c.p, " known", 6)) {
			out->count = 1;
			c.p += 6;
		}
		return at_end(&c);
	case MG_MSG_DYING: {
		uint64_t sig;
		if (take_field(&c, &sig) < 0 || sig == 0 || sig > 64)
			return -1;
		out->sig = (int)sig;
		if (take_field(&c, &out->va) < 0 || take_field(&c, &out->rss) < 0 ||
		    take_field(&c, &out->bytes) < 0)
			return -1;
		return at_end(&c);
	}
	case MG_CMD_LIST:
	case MG_CMD_QUIT:
	case MG_CMD_FED:
		return at_end(&c);
	}
	return -1;
}

/* ---- writers: every line, the parser's inverse ---- */

/* A writer's cursor: bytes past cap are counted, not written. */
typedef struct put {
	char *dst;
	size_t cap, len;
} put;

static inline void put_bytes(put *w, const char *s, size_t n)
{
	size_t room = w->len < w->cap ? w->cap - w->len : 0;
	if (n <= 24 && n <= room) { /* a word, a number, a space: no call */
		char *d = w->dst + w->len;
		for (size_t i = 0; i < n; i++)
			d[i] = s[i];
	} else if (room) { /* a sizing writer's dst may be NULL */
		memcpy(w->dst + w->len, s, n < room ? n : room);
	}
	w->len += n;
}

static void put_str(put *w, const char *s)
{
	put_bytes(w, s, strlen(s));
}

/* NUMBER in decimal, after a space when spaced: one copy into the line */
static void put_digits(put *w, uint64_t v, int spaced)
{
	static const char pairs[] = "00010203040506070809101112131415161718192021222324"
	                            "25262728293031323334353637383940414243444546474849"
	                            "50515253545556575859606162636465666768697071727374"
	                            "75767778798081828384858687888990919293949596979899";
	char tmp[24];
	size_t n = 0;
	for (; v > UINT32_MAX; v /= 100) { /* two digits a division */
		tmp[sizeof(tmp) - ++n] = pairs[2 * (v % 100) + 1];
		tmp[sizeof(tmp) - ++n] = pairs[2 * (v % 100)];
	}
	/* the rest in 32 bits, where a division by 100 is a shorter multiply */
	uint32_t u = (uint32_t)v;
	for (; u >= 100; u /= 100) {
		tmp[sizeof(tmp) - ++n] = pairs[2 * (u % 100) + 1];
		tmp[sizeof(tmp) - ++n] = pairs[2 * (u % 100)];
	}
	if (u >= 10)
		tmp[sizeof(tmp) - ++n] = pairs[2 * u + 1];
	tmp[sizeof(tmp) - ++n] = u >= 10 ? pairs[2 * u] : (char)('0' + u);
	if (spaced)
		tmp[sizeof(tmp) - ++n] = ' ';
	put_bytes(w, tmp + sizeof(tmp) - n, n);
}

/* NUMBER */
static void put_number(put *w, uint64_t v)
{
	put_digits(w, v, 0);
}

/* " NUMBER" */
static void put_field(put *w, uint64_t v)
{
	put_digits(w, v, 1);
}

/* Escaped text (a sizing writer's dst may be NULL: no room, no pointer). */
static void put_text(put *w, const char *s, size_t n)
{
	size_t room = w->len < w->cap ? w->cap - w->len : 0;
	w->len += mg_proto_escape(room ? w->dst + w->len : NULL, room, s, n);
}

static const char *kind_word(mg_msg_kind kind)
{
	if ((size_t)kind < sizeof(words) / sizeof(words[0]) && words[kind].kind == kind)
		return words[kind].word;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) /* out of order */
		if (words[i].kind == kind)
			return words[i].word;
	return NULL;
}

static int why_has_bytes(mg_why why)
{
	for (size_t i = 0; i < sizeof(whys) / sizeof(whys[0]); i++)
		if (whys[i].why == why)
			return whys[i].bytes;
	return 0;
}

const char *mg_proto_why_word(mg_why why)
{
	for (size_t i = 0; i < sizeof(whys) / sizeof(whys[0]); i++)
		if (whys[i].why == why)
			return whys[i].word;
	return NULL;
}

size_t mg_proto_put(char *dst, size_t cap, const mg_msg *m)
{
	put w = {dst, cap, 0};
	const char *word = kind_word(m->kind);
	if (word == NULL)
		return 0;
	put_bytes(&w, word, words[m->kind].kind == m->kind ? words[m->kind].len : strlen(word));
	switch (m->kind) {
	case MG_MSG_HELLO:
		put_field(&w, m->version);
		put_bytes(&w, " ", 1);
		put_str(&w, m->arch);
		put_field(&w, (uint64_t)m->pid);
		put_field(&w, m->va);
		put_field(&w, m->rss);
		break;
	case MG_MSG_TEST:
	case MG_MSG_START:
	case MG_MSG_OUT:
	case MG_MSG_PIN:
	case MG_MSG_HELDIN:
	case MG_MSG_WAIT:
	case MG_CMD_RUN:
		put_bytes(&w, " ", 1);
		put_text(&w, m->text, m->text_len);
		break;
	case MG_MSG_END:
		put_field(&w, m->count);
		if (m->bytes)
			put_field(&w, m->bytes);
		break;
	case MG_MSG_AFTER:
		put_field(&w, m->count);
		break;
	case MG_MSG_NEEDS:
		put_field(&w, m->count);
		put_bytes(&w, " ", 1);
		put_text(&w, m->text, m->text_len);
		break;
	case MG_MSG_PASS:
	case MG_MSG_FAIL:
	case MG_MSG_SKIP:
	case MG_MSG_TIMEOUT:
	case MG_MSG_ERROR:
		put_field(&w, m->usec);
		put_field(&w, m->va);
		put_field(&w, m->rss);
		if (m->kind != MG_MSG_PASS && m->text_len) {
			put_bytes(&w, " ", 1);
			put_text(&w, m->text, m->text_len);
		}
		break;
	case MG_MSG_EXTRA:
		put_bytes(&w, " ", 1);
		put_str(&w, m->state == MG_MSG_ERROR  ? "error"
		            : m->state == MG_MSG_SKIP ? "skip"
		                                      : "fail");
		put_field(&w, (uint64_t)m->name_len);
		put_bytes(&w, " ", 1);
		put_text(&w, m->text, m->text_len);
		break;
	case MG_MSG_RECYCLE:
		put_field(&w, m->va);
		put_field(&w, m->rss);
		if (m->why != MG_WHY_NONE) {
			put_bytes(&w, " ", 1);
			put_str(&w, mg_proto_why_word(m->why));
			if (why_has_bytes(m->why))
				put_field(&w, m->bytes);
		}
		break;
	case MG_MSG_BYE:
	case MG_MSG_BASE:
		put_field(&w, m->va);
		put_field(&w, m->rss);
		break;
	case MG_MSG_PEAK:
		put_field(&w, m->va);
		break;
	case MG_CMD_EXPECT:
		put_field(&w, m->va);
		put_field(&w, m->bytes);
		if (m->count)
			put_str(&w, " known");
		break;
	case MG_MSG_DYING:
		put_field(&w, (uint64_t)m->sig);
		put_field(&w, m->va);
		put_field(&w, m->rss);
		put_field(&w, m->bytes);
		break;
	case MG_MSG_MODULE:
		put_field(&w, m->count);
		put_bytes(&w, " ", 1);
		if (m->build_id_len)
			put_bytes(&w, m->build_id, m->build_id_len);
		else
			put_bytes(&w, "-", 1);
		put_bytes(&w, " ", 1);
		put_text(&w, m->text, m->text_len);
		break;
	case MG_MSG_SITE:
	case MG_MSG_HELD:
	case MG_MSG_HELDBY:
		if (m->kind != MG_MSG_HELDBY) {
			put_field(&w, m->bytes);
			put_field(&w, m->count);
			put_bytes(&w, " ", 1);
			put_str(&w, mg_proto_site_word(m->site_kind));
		}
		if (m->frames == NULL && m->text_len) { /* a parsed site: its frames' text */
			put_bytes(&w, " ", 1);
			put_bytes(&w, m->text, m->text_len);
		}
		for (size_t i = 0; m->frames && i < m->nframes; i++) {
			char hex[17];
			size_t n = 0;
			uint64_t v = m->frames[i].offset;
			do
				hex[sizeof(hex) - ++n] = "0123456789abcdef"[v & 15];
			while ((v >>= 4) != 0);
			put_field(&w, m->frames[i].module);
			put_bytes(&w, "+", 1);
			put_bytes(&w, hex + sizeof(hex) - n, n);
		}
		break;
	case MG_MSG_NOMEM:
		put_field(&w, m->count);
		break;
	case MG_CMD_LIST:
	case MG_CMD_QUIT:
	case MG_CMD_FED:
		break;
	}
	put_bytes(&w, "\n", 1);
	return w.len;
}

/* ---- stream marks ---- */

void mg_proto_mark_secret(char *secret, unsigned version)
{
	const char *s = version >= 3 ? getenv(MG_ENV_MARK) : NULL;
	size_t n = 0;
	while (s && n < MG_MARK_SECRET_LEN &&
	       ((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f')))
		n++;
	if (s == NULL || n != MG_MARK_SECRET_LEN || s[n] != '\0')
		n = 0;
	memcpy(secret, s ? s : "", n);
	secret[n] = '\0';
}

size_t mg_proto_put_mark(char *dst, const char *secret, uint64_t ordinal)
{
	put w = {dst, MG_MARK_MAX, 0};
	put_str(&w, MG_MARK_HEAD);
	put_str(&w, secret);
	put_number(&w, ordinal);
	put_bytes(&w, (const char[]){MG_MARK_TAIL}, 1);
	return w.len;
}

int mg_proto_write_all(int fd, const void *buf, size_t n, uint64_t *writes)
{
	const char *p = buf;
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w > 0) {
			if (writes)
				(*writes)++;
			p += w;
			n -= (size_t)w;
		} else if (w < 0 && errno == EAGAIN) {
			struct pollfd pf = {fd, POLLOUT, 0};
			poll(&pf, 1, -1); /* EINTR, POLLERR: the write says what it is */
		} else if (!(w < 0 && errno == EINTR)) {
			if (w == 0)
				errno = EPIPE;
			return -1;
		}
	}
	return 0;
}

void mg_proto_mark_streams(const char *secret, uint64_t ordinal, uint64_t *writes)
{
	char mark[MG_MARK_MAX];
	size_t n = mg_proto_put_mark(mark, secret, ordinal);
	mg_proto_write_all(1, mark, n, writes);
	mg_proto_write_all(2, mark, n, writes);
}

/* The next of the three bytes an escape takes at or after p (end: none),
 * each found by memchr once per occurrence: O(len) for any text. */
static const char *escape_next(const char *const at[3])
{
	const char *q = at[0];
	if (at[1] < q)
		q = at[1];
	if (at[2] < q)
		q = at[2];
	return q;
}

static const char *find_or_end(const char *p, const char *end, char ch)
{
	const char *q = p < end ? memchr(p, ch, (size_t)(end - p)) : NULL;
	return q ? q : end;
}

/* 1 when x (eight bytes) holds '\\', '\n' or '\r' (a zero byte of x ^ the
 * byte repeated is a match). */
static int escape_in_word(uint64_t x)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	uint64_t a = x ^ (ones * '\\'), b = x ^ (ones * '\n'), c = x ^ (ones * '\r');
	return (((a - ones) & ~a & highs) | ((b - ones) & ~b & highs) |
	        ((c - ones) & ~c & highs)) != 0;
}

/* 1 when one of the len bytes at p is '\\', '\n' or '\r': eight bytes a
 * step (the last eight overlapping the step before), for short texts where
 * three memchr calls cost more than the look itself. */
static int escape_any(const char *p, size_t len)
{
	uint64_t x;
	if (len < 8) {
		for (size_t i = 0; i < len; i++)
			if (p[i] == '\\' || p[i] == '\n' || p[i] == '\r')
				return 1;
		return 0;
	}
	for (size_t i = 0; i + 8 <= len; i += 8) {
		memcpy(&x, p + i, 8);
		if (escape_in_word(x))
			return 1;
	}
	memcpy(&x, p + len - 8, 8);
	return escape_in_word(x);
}

/* O(len). When the result is larger than cap, dst holds its first cap bytes
 * (which may end in half an escape: callers size dst from the return value). */
size_t mg_proto_escape(char *dst, size_t cap, const char *src, size_t len)
{
	static const char from[3] = {'\\', '\n', '\r'}, to[3] = {'\\', 'n', 'r'};
	const char *p = src, *end = src + len, *at[3];
	size_t need = 0;
	if (len <= 64 && !escape_any(src, len)) { /* a name: nothing to escape, copied whole */
		if (cap)
			memcpy(dst, src, len < cap ? len : cap);
		return len;
	}
	for (int k = 0; k < 3; k++)
		at[k] = find_or_end(p, end, from[k]);
	for (;;) {
		/* the run up to the next byte to escape is copied whole */
		const char *q = escape_next(at);
		size_t n = (size_t)(q - p), room = need < cap ? cap - need : 0;
		if (n && room)
			memcpy(dst + need, p, n < room ? n : room);
		need += n;
		if (q == end)
			break;
		int k = *q == from[0] ? 0 : *q == from[1] ? 1 : 2;
		if (need < cap)
			dst[need] = '\\';
		if (need + 1 < cap)
			dst[need + 1] = to[k];
		need += 2;
		p = q + 1;
		at[k] = find_or_end(p, end, from[k]);
	}
	return need;
}

void mg_lines_init(mg_lines *r, char *buf, size_t cap, size_t max)
{
	r->buf = buf;
	r->cap = cap;
	r->max = max;
	r->start = r->len = 0;
}

int mg_lines_next(mg_lines *r, char **line, size_t *len)
{
	if (r->len == 0)
		return 0; /* also: no buffer yet, and memchr(NULL, ..., 0) is UB */
	char *s = r->buf + r->start;
	char *nl = memchr(s, '\n', r->len);
	if (!nl)
		return 0;
	*nl = 0;
	*line = s;
	*len = (size_t)(nl - s);
	r->start += *len + 1;
	r->len -= *len + 1;
	return 1;
}

long mg_lines_fill(mg_lines *r, int fd)
{
	if (r->len >= r->max)
		return MG_LINES_LONG;
	if (r->start) {
		memmove(r->buf, r->buf + r->start, r->len);
		r->start = 0;
	}
	ssize_t n = read(fd, r->buf + r->len, r->cap - r->len);
	if (n > 0)
		r->len += (size_t)n;
	return (long)n;
}

size_t mg_lines_pending(const mg_lines *r)
{
	return r->len;
}

/* ---- the reply ring ---- */

mg_ring *mg_ring_attach(int fd)
{
	struct stat st;
	/* not the runner's ring: not ours to close either */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size != (off_t)MG_RING_MAP)
		return NULL;
	void *p = mmap(NULL, MG_RING_MAP, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return NULL;
	mg_ring *r = p;
	if (r->magic != MG_RING_MAGIC || r->size != MG_RING_SIZE) {
		munmap(p, MG_RING_MAP);
		return NULL;
	}
	__atomic_store_n(&r->attached, 1, __ATOMIC_SEQ_CST);
	return r;
}

/* FUTEX_WAIT (0) or FUTEX_WAKE (1), shared between processes; a 32-bit
 * build with a 64-bit time_t needs the time64 call for its timespec. */
static int ring_futex(uint32_t *word, int op, uint32_t val, const struct timespec *t)
{
#ifdef SYS_futex_time64
	if (sizeof(t->tv_sec) > sizeof(long))
		return (int)syscall(SYS_futex_time64, word, op, val, t, NULL, 0);
#endif
	return (int)syscall(SYS_futex, word, op, val, t, NULL, 0);
}

int mg_ring_put(mg_ring *r, int wake_fd, const void *buf, size_t n, uint64_t *writes)
{
	const char *p = buf;
	char *data = (char *)r + MG_RING_DATA;
	uint32_t head = r->head;
	while (n) {
		uint32_t tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
		uint32_t room = MG_RING_SIZE - (head - tail);
		if (room > MG_RING_SIZE) /* the runner broke it: stop here */
			return -1;
		if (room == 0) {
			/* full: the runner is told (whether it asked or not) and
			 * wakes us when it has taken some (FUTEX_WAIT on tail; a
			 * timeout in case a wake is lost to a signal) */
			__atomic_store_n(&r->waiting, 1, __ATOMIC_SEQ_CST);
			if (__atomic_load_n(&r->tail, __ATOMIC_SEQ_CST) != tail)
				continue;
			if (mg_proto_write_all(wake_fd, "\n", 1, writes) < 0)
				return -1;
			struct timespec t = {0, 10 * 1000 * 1000};
			ring_futex(&r->tail, 0, tail, &t);
			__atomic_store_n(&r->waiting, 0, __ATOMIC_SEQ_CST);
			continue;
		}
		size_t k = n < room ? n : room;
		size_t at = head & (MG_RING_SIZE - 1), first = MG_RING_SIZE - at;
		if (first > k)
			first = k;
		memcpy(data + at, p, first);
		memcpy(data, p + first, k - first);
		head += (uint32_t)k;
		p += k;
		n -= k;
		/* published, then the runner's request read: it either sees the
		 * bytes before it sleeps or asked in time for a wake byte */
		__atomic_store_n(&r->head, head, __ATOMIC_SEQ_CST);
	}
	if (__atomic_load_n(&r->wake, __ATOMIC_SEQ_CST) &&
	    __atomic_exchange_n(&r->wake, 0, __ATOMIC_SEQ_CST))
		return mg_proto_write_all(wake_fd, "\n", 1, writes);
	return 0;
}

uint32_t mg_ring_avail(const mg_ring *r)
{
	return __atomic_load_n(&r->head, __ATOMIC_ACQUIRE) - r->tail;
}

uint32_t mg_ring_arm(mg_ring *r)
{
	__atomic_store_n(&r->wake, 1, __ATOMIC_SEQ_CST);
	return __atomic_load_n(&r->head, __ATOMIC_SEQ_CST) - r->tail;
}

long mg_lines_fill_ring(mg_lines *l, mg_ring *r)
{
	if (l->len >= l->max)
		return MG_LINES_LONG;
	if (l->start) {
		memmove(l->buf, l->buf + l->start, l->len);
		l->start = 0;
	}
	uint32_t avail = mg_ring_avail(r), tail = r->tail;
	if (avail > MG_RING_SIZE)
		return -1;
	size_t k = l->cap - l->len < avail ? l->cap - l->len : avail;
	const char *data = (const char *)r + MG_RING_DATA;
	size_t at = tail & (MG_RING_SIZE - 1), first = MG_RING_SIZE - at;
	if (first > k)
		first = k;
	memcpy(l->buf + l->len, data + at, first);
	memcpy(l->buf + l->len + first, data, k - first);
	l->len += k;
	__atomic_store_n(&r->tail, tail + (uint32_t)k, __ATOMIC_SEQ_CST);
	if (k && __atomic_load_n(&r->waiting, __ATOMIC_SEQ_CST))
		ring_futex(&r->tail, 1, 1, NULL);
	return (long)k;
}

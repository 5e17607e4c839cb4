/*
 * mg_proto.c - the protocol line parser (v1 and v2), the text escaper and the line reader
 * (PROTOCOL.md). libc only, built for -m32 too. Never allocates; the parser unescapes in place and
 * rejects anything outside the grammar.
 */
#include "mg_proto.h"

#include <limits.h>
#include <string.h>
#include <unistd.h>

/* A cursor over the fields of one line. */
typedef struct cursor {
	char *p;
	char *end;
} cursor;

/* Reads 1*DIGIT up to a space or the end of the line; fails on overflow. */
static int take_number(cursor *c, uint64_t *out)
{
	uint64_t v = 0;
	char *p = c->p;
	if (p == c->end || *p < '0' || *p > '9')
		return -1;
	for (; p < c->end && *p != ' '; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		unsigned d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
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
    {"hello", 5, MG_MSG_HELLO},   {"test", 4, MG_MSG_TEST},       {"end", 3, MG_MSG_END},
    {"start", 5, MG_MSG_START},   {"pass", 4, MG_MSG_PASS},       {"fail", 4, MG_MSG_FAIL},
    {"skip", 4, MG_MSG_SKIP},     {"recycle", 7, MG_MSG_RECYCLE}, {"bye", 3, MG_MSG_BYE},
    {"out", 3, MG_MSG_OUT},       {"list", 4, MG_CMD_LIST},       {"run", 3, MG_CMD_RUN},
    {"quit", 4, MG_CMD_QUIT},     {"dying", 5, MG_MSG_DYING},     {"peak", 4, MG_MSG_PEAK},
    {"expect", 6, MG_CMD_EXPECT}, {"fed", 3, MG_CMD_FED},         {"timeout", 7, MG_MSG_TIMEOUT},
};

/* [SP WHY [SP BYTES]] after "recycle VA RSS": v1 hosts say nothing more. */
static int take_why(cursor *c, mg_msg *out)
{
	static const struct {
		const char *word;
		mg_why why;
		int bytes;
	} whys[] = {{"va", MG_WHY_VA, 0},         {"rss", MG_WHY_RSS, 0},
	            {"growth", MG_WHY_GROWTH, 1}, {"gap", MG_WHY_GAP, 1},
	            {"peak", MG_WHY_PEAK, 1},     {"rssgrowth", MG_WHY_RSSGROWTH, 1}};
	if (c->p == c->end)
		return 0;
	if (take_space(c) < 0)
		return -1;
	size_t wl = 0;
	while (c->p + wl < c->end && c->p[wl] != ' ')
		wl++;
	for (size_t i = 0; i < sizeof(whys) / sizeof(whys[0]); i++) {
		if (strlen(whys[i].word) != wl || memcmp(whys[i].word, c->p, wl) != 0)
			continue;
		c->p += wl;
		out->why = whys[i].why;
		if (whys[i].bytes && take_field(c, &out->bytes) < 0)
			return -1;
		return at_end(c);
	}
	return -1;
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
	size_t i, n = sizeof(words) / sizeof(words[0]);
	for (i = 0; i < n; i++)
		if (words[i].len == wl && memcmp(words[i].word, line, wl) == 0)
			break;
	if (i == n)
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
		return take_name(&c, out); /* non-empty text, escaped like a name */
	case MG_MSG_END:
		if (take_field(&c, &out->count) < 0)
			return -1;
		return at_end(&c);
	case MG_MSG_PASS:
		return take_result(&c, out, 0);
	case MG_MSG_FAIL:
	case MG_MSG_SKIP:
	case MG_MSG_TIMEOUT:
		return take_result(&c, out, 1);
	case MG_MSG_RECYCLE:
		if (take_field(&c, &out->va) < 0 || take_field(&c, &out->rss) < 0)
			return -1;
		return take_why(&c, out);
	case MG_MSG_BYE:
		if (take_field(&c, &out->va) < 0 || take_field(&c, &out->rss) < 0)
			return -1;
		return at_end(&c);
	case MG_MSG_PEAK:
		if (take_field(&c, &out->va) < 0)
			return -1;
		return at_end(&c);
	case MG_CMD_EXPECT:
		if (take_field(&c, &out->va) < 0 || take_field(&c, &out->bytes) < 0)
			return -1;
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

/* O(len). When the result is larger than cap, dst holds its first cap bytes
 * (which may end in half an escape: callers size dst from the return value). */
size_t mg_proto_escape(char *dst, size_t cap, const char *src, size_t len)
{
	size_t need = 0;
	for (size_t i = 0; i < len; i++) {
		char e = 0;
		char ch = src[i];
		if (ch == '\\')
			e = '\\';
		else if (ch == '\n')
			e = 'n';
		else if (ch == '\r')
			e = 'r';
		if (e) {
			if (need < cap)
				dst[need] = '\\';
			if (need + 1 < cap)
				dst[need + 1] = e;
			need += 2;
		} else {
			if (need < cap)
				dst[need] = ch;
			need++;
		}
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

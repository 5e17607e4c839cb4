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
    {"error", 5, MG_MSG_ERROR},   {"extra", 5, MG_MSG_EXTRA},
};

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
	case MG_MSG_ERROR:
	case MG_MSG_TIMEOUT:
		return take_result(&c, out, 1);
	case MG_MSG_EXTRA:
		return take_extra(&c, out);
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

/* ---- writers: every line, the parser's inverse ---- */

/* A writer's cursor: bytes past cap are counted, not written. */
typedef struct put {
	char *dst;
	size_t cap, len;
} put;

static void put_bytes(put *w, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++, w->len++)
		if (w->len < w->cap)
			w->dst[w->len] = s[i];
}

static void put_str(put *w, const char *s)
{
	put_bytes(w, s, strlen(s));
}

/* NUMBER, in decimal */
static void put_number(put *w, uint64_t v)
{
	char tmp[24];
	size_t n = 0;
	do
		tmp[sizeof(tmp) - ++n] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	put_bytes(w, tmp + sizeof(tmp) - n, n);
}

/* " NUMBER" */
static void put_field(put *w, uint64_t v)
{
	put_bytes(w, " ", 1);
	put_number(w, v);
}

/* Escaped text (a sizing writer's dst may be NULL: no room, no pointer). */
static void put_text(put *w, const char *s, size_t n)
{
	size_t room = w->len < w->cap ? w->cap - w->len : 0;
	w->len += mg_proto_escape(room ? w->dst + w->len : NULL, room, s, n);
}

static const char *kind_word(mg_msg_kind kind)
{
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
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
	put_str(&w, word);
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
	case MG_CMD_RUN:
		put_bytes(&w, " ", 1);
		put_text(&w, m->text, m->text_len);
		break;
	case MG_MSG_END:
		put_field(&w, m->count);
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
		put_str(&w, m->state == MG_MSG_ERROR ? "error" : "fail");
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
		put_field(&w, m->va);
		put_field(&w, m->rss);
		break;
	case MG_MSG_PEAK:
		put_field(&w, m->va);
		break;
	case MG_CMD_EXPECT:
		put_field(&w, m->va);
		put_field(&w, m->bytes);
		break;
	case MG_MSG_DYING:
		put_field(&w, (uint64_t)m->sig);
		put_field(&w, m->va);
		put_field(&w, m->rss);
		put_field(&w, m->bytes);
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

/*
 * mg_proto.h - the protocol (v2, compatible with v1) between the runner and a host: line grammar,
 * escaping and the parser both sides use. libc only (built for -m32 too).
 * The grammar is written down in PROTOCOL.md; keep the two in step.
 * The parser never allocates: it unescapes in place and points into the line.
 */
#ifndef MG_PROTO_H
#define MG_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define MG_PROTO_VERSION 2
/* Longest line either side may send, newline included. Longer is an error. */
#define MG_PROTO_LINE_MAX 65536
/* The descriptors a host finds its pipes on (also named in the env). */
#define MG_PROTO_CMD_FD   3
#define MG_PROTO_REPLY_FD 4

/* Environment the runner sets for a host. */
#define MG_ENV_HOST        "MEMGUARD_HOST"        /* the runner's protocol version, "2" */
#define MG_ENV_CMD_FD      "MEMGUARD_CMD_FD"      /* "3" */
#define MG_ENV_REPLY_FD    "MEMGUARD_REPLY_FD"    /* "4" */
#define MG_ENV_RECYCLE_VA  "MEMGUARD_RECYCLE_VA"  /* soft VA limit, bytes; absent: none */
#define MG_ENV_RECYCLE_RSS "MEMGUARD_RECYCLE_RSS" /* soft RSS limit, bytes; absent: none */
#define MG_ENV_RECYCLE_GAP "MEMGUARD_RECYCLE_GAP" /* v2: the free block that must fit, bytes */
#define MG_ENV_KILL_VA     "MEMGUARD_KILL_VA"     /* v2: hard VA limit, bytes (admission) */
#define MG_ENV_KILL_RSS    "MEMGUARD_KILL_RSS"    /* v2: hard RSS limit (its share), bytes */

/*
 * v2: the boundary mark a host writes to its stdout and to its stderr after
 * each test's output (flushed first): MG_MARK_HEAD, the test's ordinal in
 * this host (0 for the first run line it answered), MG_MARK_TAIL. Every
 * byte before mark N on a stream is test N's; the runner strips the marks.
 */
#define MG_MARK_HEAD "\036\037mg:"
#define MG_MARK_TAIL '\036'

/* Why a v2 host recycles (the word after "recycle VA RSS"). */
typedef enum mg_why {
	MG_WHY_NONE,   /* v1: not said */
	MG_WHY_VA,     /* va: MEMGUARD_RECYCLE_VA reached */
	MG_WHY_RSS,    /* rss: MEMGUARD_RECYCLE_RSS reached */
	MG_WHY_GROWTH, /* growth BYTES: VA + the expected growth of a test reaches the kill limit */
	MG_WHY_GAP,    /* gap BYTES: no free block of BYTES is left */
	MG_WHY_PEAK,   /* peak BYTES: the next test's expected peak (history) would reach the kill
	                  limit */
	MG_WHY_RSSGROWTH, /* rssgrowth BYTES: RSS + the expected RSS growth reaches
	                     MEMGUARD_KILL_RSS */
} mg_why;

typedef enum mg_msg_kind {
	/* host -> runner */
	MG_MSG_HELLO,   /* hello VERSION ARCH PID VA RSS */
	MG_MSG_TEST,    /* test NAME            (one per test, answer to list) */
	MG_MSG_END,     /* end COUNT            (closes a list) */
	MG_MSG_START,   /* start NAME */
	MG_MSG_PASS,    /* pass USEC VA RSS */
	MG_MSG_FAIL,    /* fail USEC VA RSS MESSAGE */
	MG_MSG_SKIP,    /* skip USEC VA RSS MESSAGE */
	MG_MSG_RECYCLE, /* recycle VA RSS [WHY [BYTES]] (soft limit crossed: no more tests) */
	MG_MSG_BYE,     /* bye PEAKVA PEAKRSS   (last line before a clean exit) */
	MG_MSG_OUT,     /* out TEXT             (output of the started test; optional) */
	MG_MSG_DYING,   /* dying SIG VA RSS PEAKVA (v2: written at a fatal signal, then it dies) */
	MG_MSG_PEAK,    /* peak VA  (v2: VmPeak rose to VA during the started test, >= 1 ms) */
	MG_MSG_TIMEOUT, /* timeout USEC VA RSS MESSAGE (the host ended the test at a time
	                 * limit it keeps itself: the ctest driver's TIMEOUT) */
	/* runner -> host */
	MG_CMD_LIST,   /* list */
	MG_CMD_RUN,    /* run NAME */
	MG_CMD_QUIT,   /* quit */
	MG_CMD_EXPECT, /* expect RISE GROWTH (v2: what history says of the next run line) */
	MG_CMD_FED,    /* fed (to a gtest or catch2 shim only: the run lines before it are
	                * all it is given until results go back) */
} mg_msg_kind;

typedef struct mg_msg {
	mg_msg_kind kind;
	unsigned version; /* hello */
	char arch[8];     /* hello: "x86" or "x64" */
	long pid;         /* hello */
	uint64_t usec;    /* pass/fail/skip: the test's duration */
	uint64_t va, rss; /* hello, pass/fail/skip (after the test), recycle; bye: peaks;
	                   * peak: va; expect: va = the rise above the test's start */
	uint64_t count;   /* end */
	mg_why why;       /* recycle (v2) */
	uint64_t bytes;   /* recycle growth/gap/peak: the figure; dying: VmPeak; expect: growth */
	int sig;          /* dying: the signal */
	const char *text; /* test/start/run: the name; fail/skip: the message (may be empty) */
	size_t text_len;  /* text may hold any byte but NUL... and NUL is excluded */
} mg_msg;

/*
 * Parses one line (without its newline) in place: escapes in the name or
 * message are undone inside line, and out->text points into it. Returns 0,
 * or -1 for anything not in the grammar (unknown word, missing field,
 * number out of range, bad escape, NUL byte). Never allocates.
 */
int mg_proto_parse(mg_msg *out, char *line, size_t len);

/*
 * Escapes src (len bytes, any byte but NUL) for a line: "\\" -> "\\\\",
 * LF -> "\\n", CR -> "\\r". Writes at most cap bytes to dst (no NUL
 * terminator) and returns the length the escaped text needs, which may be
 * larger than cap (then dst holds a truncated prefix).
 */
size_t mg_proto_escape(char *dst, size_t cap, const char *src, size_t len);

/*
 * A line reader over a caller's buffer, for either end of the protocol:
 * mg_lines_fill reads once from an fd into the buffer's free end,
 * mg_lines_next hands out the complete lines buffered (NUL-terminated in
 * place, valid until the next fill). Never allocates.
 */
typedef struct mg_lines {
	char *buf;
	size_t cap;   /* size of buf */
	size_t max;   /* a longer line (without its newline) is an error */
	size_t start; /* unread bytes: buf[start, start + len) */
	size_t len;
} mg_lines;

/* Returned by mg_lines_fill for a line of max bytes or more. */
#define MG_LINES_LONG (-2)

/* A reader over buf (cap bytes; cap > max). */
void mg_lines_init(mg_lines *r, char *buf, size_t cap, size_t max);

/* 1 and the next complete line (without its newline), 0 when no complete
 * line is buffered. O(line length). */
int mg_lines_next(mg_lines *r, char **line, size_t *len);

/*
 * One read(2) of fd (after moving the unread bytes to the front): the
 * number of bytes read, 0 at end of file, -1 with errno (EINTR and EAGAIN
 * included), or MG_LINES_LONG when the unread bytes hold max or more with
 * no newline. Call when mg_lines_next has no line.
 */
long mg_lines_fill(mg_lines *r, int fd);

/* The bytes of a partial line still unread (at end of file: what came
 * after the last newline). */
size_t mg_lines_pending(const mg_lines *r);

#endif

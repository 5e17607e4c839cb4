/*
 * mg_proto.h - protocol v1 between the runner and a host: line grammar,
 * escaping and the parser both sides use. libc only (built for -m32 too).
 * The grammar is written down in PROTOCOL.md; keep the two in step.
 * The parser never allocates: it unescapes in place and points into the line.
 */
#ifndef MG_PROTO_H
#define MG_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define MG_PROTO_VERSION 1
/* Longest line either side may send, newline included. Longer is an error. */
#define MG_PROTO_LINE_MAX 65536
/* The descriptors a host finds its pipes on (also named in the env). */
#define MG_PROTO_CMD_FD   3
#define MG_PROTO_REPLY_FD 4

/* Environment the runner sets for a host. */
#define MG_ENV_HOST        "MEMGUARD_HOST"        /* protocol version, "1" */
#define MG_ENV_CMD_FD      "MEMGUARD_CMD_FD"      /* "3" */
#define MG_ENV_REPLY_FD    "MEMGUARD_REPLY_FD"    /* "4" */
#define MG_ENV_RECYCLE_VA  "MEMGUARD_RECYCLE_VA"  /* soft VA limit, bytes; absent: none */
#define MG_ENV_RECYCLE_RSS "MEMGUARD_RECYCLE_RSS" /* soft RSS limit, bytes; absent: none */

typedef enum mg_msg_kind {
	/* host -> runner */
	MG_MSG_HELLO,   /* hello VERSION ARCH PID VA RSS */
	MG_MSG_TEST,    /* test NAME            (one per test, answer to list) */
	MG_MSG_END,     /* end COUNT            (closes a list) */
	MG_MSG_START,   /* start NAME */
	MG_MSG_PASS,    /* pass USEC VA RSS */
	MG_MSG_FAIL,    /* fail USEC VA RSS MESSAGE */
	MG_MSG_SKIP,    /* skip USEC VA RSS MESSAGE */
	MG_MSG_RECYCLE, /* recycle VA RSS       (soft limit crossed: no more tests) */
	MG_MSG_BYE,     /* bye PEAKVA PEAKRSS   (last line before a clean exit) */
	MG_MSG_OUT,     /* out TEXT             (output of the started test; optional) */
	/* runner -> host */
	MG_CMD_LIST, /* list */
	MG_CMD_RUN,  /* run NAME */
	MG_CMD_QUIT, /* quit */
} mg_msg_kind;

typedef struct mg_msg {
	mg_msg_kind kind;
	unsigned version; /* hello */
	char arch[8];     /* hello: "x86" or "x64" */
	long pid;         /* hello */
	uint64_t usec;    /* pass/fail/skip: the test's duration */
	uint64_t va, rss; /* hello, pass/fail/skip (after the test), recycle; bye: peaks */
	uint64_t count;   /* end */
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

#endif

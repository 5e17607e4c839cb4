/*
 * mg_err.h - the caller-owned error object every layer reports through.
 * Fixed size, so the error path never allocates. Header only, no code
 * dependencies: it is the one header every folder may include. Running out
 * of memory is not an expected failure: mg_xrealloc says so and aborts.
 */
#ifndef MG_ERR_H
#define MG_ERR_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* Return codes: 0 is success, an expected failure is one of these. */
enum {
	MG_OK = 0,
	MG_ERROR = -1,     /* anything else; the message says what */
	MG_EGONE = -2,     /* the process has exited or been reaped */
	MG_EINVAL = -3,    /* malformed input: the message names the bad token */
	MG_ENOTFOUND = -4, /* a file, commit or note that does not exist */
	MG_EPROTO = -5,    /* a host broke the protocol */
};

typedef struct mg_err {
	char msg[512];
} mg_err;

/* Sets err's message (if err is not NULL) and returns code, so a failure is
 * reported in one line: return mg_err_set(err, MG_EINVAL, "bad '%s'", tok); */
static inline int mg_err_set(mg_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline int mg_err_set(mg_err *err, int code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return code;
}

/* realloc that never returns NULL: out of memory, it says so on stderr and
 * aborts (a run cannot go on without its queue or report). n 0 is 1. */
static inline void *mg_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q) {
		fputs("memguard: out of memory\n", stderr);
		abort();
	}
	return q;
}

#endif

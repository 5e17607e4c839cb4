/*
 * adapters.h - rendering a report for a CI system or a person. An adapter
 * spec is NAME or NAME=PATH; every adapter renders from the report model
 * only (report.h) and never calls runner or guard code.
 */
#ifndef MG_ADAPTERS_H
#define MG_ADAPTERS_H

#include <stdio.h>

#include "mg_err.h"
#include "report.h"

/* 0 if spec names a known adapter (NAME or NAME=PATH); MG_EINVAL naming the
 * unknown one and listing the known ones otherwise. Does not touch files. */
int adapters_check(const char *spec, mg_err *err);

/* Renders r as spec says. Files are written atomically (PATH.tmp, then
 * rename) unless the adapter appends by nature (GitHub step summary). */
int adapters_render(const report *r, const char *spec, mg_err *err);

/* The adapters "auto" picks from the environment, most important first:
 * up to cap names (static strings) in names; returns how many there are
 * (which may be more than cap). Never 0: "console" when no CI is detected. */
size_t adapters_auto(const char **names, size_t cap);

/* The known adapter names, NULL-terminated. */
const char *const *adapters_names(void);

/*
 * Output helper every adapter uses: path NULL or "-" means stdout (nothing
 * to commit); otherwise PATH.tmp is written and renamed over PATH by
 * adapters_out_close(ok=1). With ok=0, or on any write error, the tmp is
 * removed and PATH is untouched.
 */
typedef struct adapters_out {
	FILE *f;
	char *tmp; /* NULL for stdout */
	char *path;
} adapters_out;

int adapters_out_open(adapters_out *o, const char *path, mg_err *err);
int adapters_out_close(adapters_out *o, int ok, mg_err *err);

/* Writes s to f with control bytes (and DEL) shown as \xNN and at most max
 * bytes of s (then "..."): for people reading a terminal or log. */
void adapters_put_printable(FILE *f, const char *s, size_t max);

/* The adapters. path may be NULL (each says what that means). */
int console_render(const report *r, const char *path, mg_err *err);
int console_write(const report *r, FILE *f);

#endif

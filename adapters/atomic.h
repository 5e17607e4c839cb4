/*
 * atomic.h - writing a file other programs read (a report, an adapter's
 * output, a cache): whole or not at all. The one copy of "temporary file,
 * fsync, rename" in memguard; adapters, ci and the runner write through it.
 */
#ifndef MG_ATOMIC_H
#define MG_ATOMIC_H

#include <stdio.h>

#include "mg_err.h"

/* One file being written; owns its stream and its temporary file. */
typedef struct atomic_file atomic_file;

/*
 * Opens path for writing. When path is a regular file, or does not exist,
 * the data goes to a temporary file next to it, PATH.tmp.PID.RANDOM, created
 * exclusively (O_CREAT|O_EXCL|O_NOFOLLOW: never through a symlink someone
 * planted, never shared with another process writing the same path), mode
 * 0666 less the umask; atomic_close renames it over path. /dev/null is
 * written in place (O_NOFOLLOW|O_NONBLOCK). Anything else at path (a
 * symlink, a FIFO, a device, a directory) is refused, MG_ERROR naming it:
 * opening a FIFO would block, renaming over a device would replace it, and
 * a symlink is never followed nor replaced.
 * MG_ENOTFOUND when the directory does not exist, MG_ERROR otherwise; the
 * message names the file that could not be created.
 */
int atomic_open(atomic_file **out, const char *path, mg_err *err);

/*
 * 0 when atomic_open would accept path (a regular file, /dev/null, or
 * nothing there yet); MG_ERROR naming what is there otherwise. For checking
 * every output path before a run starts. Costs one lstat.
 */
int atomic_check(const char *path, mg_err *err);
/* 0 when path exists, or the directory it would be written in exists, is
 * one and can be written; else MG_ENOTFOUND (no such directory) or
 * MG_ERROR naming it. Not for a path whose directories the writer makes
 * (a framework's own report file, as the framework would). */
int atomic_check_parent(const char *path, mg_err *err);
/* Both: a path a run writes at its end, checked before it (--report, an
 * adapter's file). */
int atomic_check_file(const char *path, mg_err *err);

/*
 * Opens path to append to (a file another program owns, such as GitHub's
 * step summary: it cannot be replaced), created 0666 less the umask when
 * missing. Never through a symlink, never blocking on a FIFO: anything but
 * a regular file or /dev/null is refused. NULL with err set on failure.
 */
FILE *atomic_append(const char *path, mg_err *err);

/* The stream to write to; valid until atomic_close. */
FILE *atomic_stream(const atomic_file *a);

/*
 * Ends the write and frees a. With ok, checks the stream, fsyncs, closes and
 * renames the temporary over path (then fsyncs the directory, best effort):
 * 0, or MG_ERROR naming the step that failed. Without ok, or when any step
 * fails, the temporary is removed and path is untouched; without ok the
 * return is MG_ERROR (or the error of a step). NULL returns 0.
 */
int atomic_close(atomic_file *a, int ok, mg_err *err);

#endif

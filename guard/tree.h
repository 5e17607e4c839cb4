/*
 * tree.h - the memory of a process tree: kept-open statm samplers of a
 * root's descendants, opened when a process appears and closed when it
 * goes, and each process's arch, read when it appears and again when it
 * execs (its statm code size changes). Used by the runner for a host's
 * children and by a driver shim for its program's tree.
 */
#ifndef MG_TREE_H
#define MG_TREE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "mg_err.h"
#include "mg_limits.h"

/* One reading of a tree. The root itself is not in it, nor a process still
 * running memguard's own executable (forked and not yet exec'd: not the
 * program under test yet). */
typedef struct tree_sample {
	uint64_t rss;    /* summed over the processes */
	uint64_t va_max; /* the largest VA of one process */
	pid_t va_max_pid;
	uint64_t va_of[3]; /* the largest VA per arch (index mg_arch; UNKNOWN: not read) */
	pid_t va_of_pid[3];
	size_t n; /* processes read */
} tree_sample;

/* Opaque: owns up to max kept-open statm fds. */
typedef struct tree tree;

/* A tree of at most max processes (more are not followed). The only
 * allocation: scans and reads allocate nothing. */
int tree_new(tree **out, size_t max, mg_err *err);

/* exe is memguard's too (the driver shim, memguard-driver; a shim's
 * spawner, memguard-spawner): a process running it is never counted, as
 * one running memguard itself is not. Up to TREE_OURS_MAX of them; a path
 * that is not there is ignored. */
#define TREE_OURS_MAX 4
void tree_ours(tree *t, const char *exe);

/* Whether pid runs memguard's own executable or the one tree_ours named:
 * a stat of /proc/PID/exe, so only when its image changed (a new text
 * size: proc_sampler_text), as tree_read does for each descendant. The
 * runner asks it of a host itself too (a shim, a pytest host before its
 * exec of pytest). */
int tree_is_ours(const tree *t, pid_t pid);

/*
 * Finds root's descendants (by the children files kept open for each
 * process, proc_kids, while their fds are in the lower half of the fd
 * table; a /proc scan where the kernel has none), keeps the
 * samplers of those still there, opens the new ones, and reads them all
 * into out. Costs an fstat and two preads per one-thread process, plus
 * three opens and a 20-byte read for a process that is new or exec'd.
 */
void tree_scan(tree *t, pid_t root, tree_sample *out);

/*
 * Whether a process's image may have changed since it was last judged
 * (text and va now, seen_text and seen_va then; statm's code size and VA):
 * an exec changes the code size, and one still memguard's (ours: forked
 * and not yet exec'd, or a spawner) is asked again when its VA changes
 * too, since an exec into a program of as many code pages (a test binary
 * and /bin/sh: 19 each) keeps the code size, and it would stay ours, its
 * memory never counted. Ours ones idle, so the VA costs no extra check.
 */
static inline int tree_image_changed(uint64_t text, uint64_t va, uint64_t seen_text,
                                     uint64_t seen_va, int ours)
{
	return text != seen_text || (ours && va != seen_va);
}

/* Reads the processes of the last scan again (a pread each), no search. */
void tree_read(tree *t, tree_sample *out);

/* Closes every fd. NULL is a no-op. */
void tree_free(tree *t);

#endif

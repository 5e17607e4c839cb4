/*
 * guard_test.h - helpers shared by the guard test files: temp trees and
 * files, and the assertion that an error message names a token.
 */
#ifndef GUARD_TEST_H
#define GUARD_TEST_H

#include <CUnit/CUnit.h>
#include <stddef.h>
#include <string.h>
#include <sys/types.h>

/* Asserts that haystack contains needle, printing both when not. */
#define GT_ASSERT_CONTAINS(haystack, needle)                                                       \
	do {                                                                                       \
		const char *h_ = (haystack), *n_ = (needle);                                       \
		int ok_ = strstr(h_, n_) != NULL;                                                  \
		if (!ok_)                                                                          \
			fprintf(stderr, "\n  '%s' does not contain '%s'\n", h_, n_);               \
		CU_ASSERT_TRUE(ok_);                                                               \
	} while (0)

/* Makes a fresh directory under $TMPDIR or /tmp; path must hold 256 bytes. */
void gt_tmpdir(char *path);
/* Removes a tree made by gt_tmpdir. */
void gt_rmtree(const char *path);
/* Writes text to dir/name, making parent directories. */
void gt_write(const char *dir, const char *name, const char *text);
/* Forks a child whose stdin is the pipe in (the parent writes in[1]) and
 * whose stdout is the pipe out (the parent reads out[0]); returns 0 in the
 * child, its pid in the parent, which keeps only in[1] and out[0]. */
pid_t gt_fork_piped(int in[2], int out[2]);

#endif

/*
 * rm_tree.h - removes a directory memguard made and all that was written
 * in it, depth first, following no symbolic link (a link is removed, never
 * its target). Header only: the runner and the ctest shim share it.
 */
#ifndef MG_RM_TREE_H
#define MG_RM_TREE_H

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

static inline int rm_tree_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* 0, or -1 (errno) at the first entry that could not be removed. */
static inline int rm_tree(const char *dir)
{
	return nftw(dir, rm_tree_entry, 16, FTW_DEPTH | FTW_PHYS);
}

#endif

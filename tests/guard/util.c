/* util.c - temp trees for the guard tests. */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "guard_test.h"

void gt_tmpdir(char *path)
{
	const char *t = getenv("TMPDIR");
	snprintf(path, 256, "%s/mg-guard-XXXXXX", t && *t ? t : "/tmp");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(path));
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

void gt_rmtree(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

void gt_write(const char *dir, const char *name, const char *text)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	for (char *s = path + strlen(dir) + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		if (mkdir(path, 0755) != 0 && errno != EEXIST)
			CU_FAIL("mkdir");
		*s = '/';
	}
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	CU_ASSERT_EQUAL(fclose(f), 0);
}

pid_t gt_fork_piped(int in[2], int out[2])
{
	CU_ASSERT_FATAL(pipe(in) == 0 && pipe(out) == 0);
	fflush(NULL);
	pid_t pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		return 0;
	}
	close(in[0]);
	close(out[1]);
	return pid;
}

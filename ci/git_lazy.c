/*
 * git_lazy.c - loads libgit2 for ci/ (see git_lazy.h): dlopen of the
 * SONAME CMake read off the library pkg-config names, once a process
 * (pthread_once: the identity thread and a history lookup may both ask).
 */
#define CI_GIT_TABLE
#include "ci_int.h"

#include <pthread.h>
#include <stdlib.h>

#include "mg_exit.h"

static ci_git_fns fns;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *fail; /* NULL: loaded */
static char why[512];

static const char *const names[] = {CI_GIT_FNS(MG_DL_NAME)};

static void load(void)
{
	if (mg_dl_load(MG_LIBGIT2_SONAME, names, fns.slot, sizeof(names) / sizeof(names[0]), why,
	               sizeof(why)) < 0)
		fail = why;
}

int ci_git_load(mg_err *err)
{
	pthread_once(&once, load);
	if (fail)
		return mg_err_set(err, MG_ERROR, "cannot load libgit2 (" MG_LIBGIT2_SONAME "): %s",
		                  fail);
	return 0;
}

const ci_git_fns *ci_git(void)
{
	mg_err err;
	if (ci_git_load(&err) < 0) {
		fprintf(stderr, "memguard: %s\n", err.msg);
		exit(MG_EXIT_INFRA);
	}
	return &fns;
}

/*
 * atomic.c - whole-or-nothing file writes: an exclusive temporary next to the
 * target, fsync, rename, fsync of the directory; and the one check of what a
 * path memguard writes may be. Must never follow a symlink (at the target or
 * the temporary name), never block opening something that is not a regular
 * file, never leave a temporary behind, and never replace a device.
 */
#include "atomic.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

struct atomic_file {
	FILE *f;
	char *path;
	char *tmp; /* NULL: written in place */
};

#define TMP_TRIES 16

/* 32 bits that another process is unlikely to pick: getrandom, else the
 * clock mixed with a counter (the exclusive create catches a collision). */
static uint32_t tmp_random(void)
{
	static uint32_t counter;
	uint32_t r;
	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) == (ssize_t)sizeof(r))
		return r;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint32_t)ts.tv_nsec ^ ((uint32_t)ts.tv_sec << 16) ^ (++counter * 2654435761u);
}

/* Creates PATH.tmp.PID.RANDOM exclusively; its name in *tmp_out. */
static int tmp_create(int *fd_out, char **tmp_out, const char *path, mg_err *err)
{
	size_t size = strlen(path) + 40;
	char *tmp = malloc(size);
	if (!tmp)
		abort();
	int fd = -1;
	for (int i = 0; i < TMP_TRIES && fd < 0; i++) {
		snprintf(tmp, size, "%s.tmp.%ld.%08" PRIx32, path, (long)getpid(), tmp_random());
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		int rc = mg_err_set(err, errno == ENOENT ? MG_ENOTFOUND : MG_ERROR,
		                    "%s: cannot create a temporary file beside it: %s", path,
		                    strerror(errno));
		free(tmp);
		return rc;
	}
	*fd_out = fd;
	*tmp_out = tmp;
	return 0;
}

/* What a file that is not a regular one is, for the message. */
static const char *kind_name(mode_t mode)
{
	if (S_ISLNK(mode))
		return "a symbolic link (not followed)";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return "a device";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a regular file";
}

/* 1 for the null device: the one non-regular file written to (in place). */
static int is_devnull(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && major(st->st_rdev) == 1 && minor(st->st_rdev) == 3;
}

int atomic_check_parent(const char *path, mg_err *err)
{
	struct stat st;
	if (lstat(path, &st) == 0)
		return 0;
	/* the directory of "out/" (a folder to make) is ".", as of "out" */
	size_t n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	const char *slash = memrchr(path, '/', n);
	char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	if (!dir)
		abort();
	int rc = 0;
	if (stat(dir, &st) != 0) /* a path that names no file, as tmp_create says it */
		rc =
		    mg_err_set(err, errno == ENOENT || errno == ENOTDIR ? MG_ENOTFOUND : MG_ERROR,
		               "%s: its directory %s: %s: not written", path, dir, strerror(errno));
	else if (!S_ISDIR(st.st_mode))
		rc = mg_err_set(err, MG_ENOTFOUND, "%s: %s is not a directory: not written", path,
		                dir);
	else if (access(dir, W_OK | X_OK) != 0)
		rc = mg_err_set(err, MG_ERROR, "%s: its directory %s: %s: not written", path, dir,
		                strerror(errno));
	free(dir);
	return rc;
}

int atomic_check(const char *path, mg_err *err)
{
	struct stat st;
	if (lstat(path, &st) != 0 || S_ISREG(st.st_mode) || is_devnull(&st))
		return 0;
	return mg_err_set(err, MG_ERROR, "%s: %s, not a regular file: not written", path,
	                  kind_name(st.st_mode));
}

int atomic_check_file(const char *path, mg_err *err)
{
	int rc = atomic_check(path, err);
	return rc < 0 ? rc : atomic_check_parent(path, err);
}

/* Opens the null device in place: never through a symlink, never blocking
 * (the path could have become a FIFO since it was looked at). */
static int devnull_open(int *fd_out, const char *path, mg_err *err)
{
	struct stat st;
	int fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return mg_err_set(err, MG_ERROR, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) != 0 || !is_devnull(&st)) {
		close(fd);
		return mg_err_set(err, MG_ERROR, "%s: changed while it was opened: not written",
		                  path);
	}
	*fd_out = fd;
	return 0;
}

int atomic_open(atomic_file **out, const char *path, mg_err *err)
{
	int rc, fd = -1;
	struct stat st;
	atomic_file *a = calloc(1, sizeof(*a));
	if (!a)
		abort();
	*out = NULL;
	a->path = strdup(path);
	if (!a->path)
		abort();
	if ((rc = atomic_check(path, err)) < 0)
		goto fail;
	if (lstat(path, &st) == 0 && is_devnull(&st)) {
		if ((rc = devnull_open(&fd, path, err)) < 0)
			goto fail;
	} else if ((rc = tmp_create(&fd, &a->tmp, path, err)) < 0) {
		goto fail;
	}
	a->f = fdopen(fd, "w");
	if (!a->f) {
		rc = mg_err_set(err, MG_ERROR, "%s: %s", path, strerror(errno));
		goto fail;
	}
	*out = a;
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	if (a->tmp)
		unlink(a->tmp);
	free(a->tmp);
	free(a->path);
	free(a);
	return rc;
}

FILE *atomic_append(const char *path, mg_err *err)
{
	struct stat st;
	int fd = open(
	    path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
	    0666);
	if (fd < 0) {
		int e = errno;
		if (e == ELOOP && lstat(path, &st) == 0)
			mg_err_set(err, MG_ERROR, "%s: %s, not a regular file: not written", path,
			           kind_name(st.st_mode));
		else
			mg_err_set(err, MG_ERROR, "%s: %s", path, strerror(e));
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !(S_ISREG(st.st_mode) || is_devnull(&st))) {
		mg_err_set(err, MG_ERROR, "%s: %s, not a regular file: not written", path,
		           kind_name(st.st_mode));
		close(fd);
		return NULL;
	}
	/* a regular file: blocking writes, as stdio expects */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	FILE *f = fdopen(fd, "a");
	if (!f) {
		mg_err_set(err, MG_ERROR, "%s: %s", path, strerror(errno));
		close(fd);
	}
	return f;
}

FILE *atomic_stream(const atomic_file *a)
{
	return a->f;
}

/* Best effort: makes the rename durable. A failure here cannot undo it, so
 * it is not reported. */
static void sync_parent(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	if (!dir)
		return;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(dir);
}

int atomic_close(atomic_file *a, int ok, mg_err *err)
{
	int rc = 0;
	if (!a)
		return 0;
	/* errors name the file the user asked for; its old content stays */
	const char *kept = a->tmp ? " (not replaced)" : "";
	errno = 0;
	if (ok && (ferror(a->f) || fflush(a->f) != 0 || (a->tmp && fsync(fileno(a->f)) != 0)))
		rc = mg_err_set(err, MG_ERROR, "%s: %s%s", a->path,
		                errno ? strerror(errno) : "write failed", kept);
	if (fclose(a->f) != 0 && ok && !rc)
		rc = mg_err_set(err, MG_ERROR, "%s: close: %s%s", a->path, strerror(errno), kept);
	if (a->tmp && ok && !rc) {
		if (rename(a->tmp, a->path) != 0)
			rc = mg_err_set(err, MG_ERROR, "rename %s: %s", a->path, strerror(errno));
		else
			sync_parent(a->path);
	}
	if (a->tmp && (!ok || rc))
		unlink(a->tmp);
	free(a->tmp);
	free(a->path);
	free(a);
	return ok ? rc : (rc ? rc : MG_ERROR);
}

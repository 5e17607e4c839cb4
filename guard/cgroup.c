/*
 * cgroup.c - finds the memory cgroup of a process (v1 or v2) and reads its
 * usage, limit and peak. A few small reads; not for every sample.
 */
#include "cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_ROOT "/sys/fs/cgroup"

/* v1 reports "no limit" as the largest page-aligned long, 9223372036854771712;
 * anything from 2^62 up is treated as that. */
#define V1_UNLIMITED (1ULL << 62)
/* v2: memory.max "max" and, in the root group, its absence mean no limit. */

static int file_exists(const char *dir, const char *name)
{
	char path[PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

/* Does the comma list [s, s + len) hold the word "memory"? */
static int list_has_memory(const char *s, size_t len)
{
	const char *end = s + len;
	while (s < end) {
		const char *comma = memchr(s, ',', (size_t)(end - s));
		const char *stop = comma ? comma : end;
		if (stop - s == 6 && memcmp(s, "memory", 6) == 0)
			return 1;
		s = stop + 1;
	}
	return 0;
}

/* Joins root, sub ("memory" or "") and the cgroup path into out->dir,
 * without a trailing slash for the root group. */
static int set_dir(cgroup_mem *out, const char *root, const char *sub, const char *path,
                   size_t path_len, mg_err *err)
{
	size_t root_len = strlen(root);
	while (path_len > 0 && path[path_len - 1] == '/')
		path_len--;
	while (root_len > 1 && root[root_len - 1] == '/')
		root_len--;
	int n = snprintf(out->dir, sizeof(out->dir), "%.*s%s%s%.*s", (int)root_len, root,
	                 *sub ? "/" : "", sub, (int)path_len, path);
	if (n < 0 || (size_t)n >= sizeof(out->dir))
		return mg_err_set(err, MG_EINVAL, "cgroup path too long: '%s%s%s%.*s'", root,
		                  *sub ? "/" : "", sub, (int)path_len, path);
	return 0;
}

/*
 * In a container without a cgroup namespace, /proc/self/cgroup names the
 * group as the host sees it ("/docker/abc") while the container's mount
 * shows that group as its root. If the named directory is missing but the
 * controller root has the usage file, the root is the group.
 */
static void fall_back_to_root(cgroup_mem *out, const char *controller_root, const char *usage)
{
	if (!file_exists(out->dir, usage) && file_exists(controller_root, usage))
		snprintf(out->dir, sizeof(out->dir), "%s", controller_root);
}

int cgroup_find_in(cgroup_mem *out, const char *proc_cgroup_text, const char *root, mg_err *err)
{
	const char *p = proc_cgroup_text;
	const char *v2_path = NULL;
	size_t v2_len = 0;
	char controller_root[PATH_MAX];
	while (*p) {
		const char *nl = strchr(p, '\n');
		const char *eol = nl ? nl : p + strlen(p);
		/* "ID:CONTROLLERS:PATH"; PATH may itself hold ':'. */
		const char *c1 = memchr(p, ':', (size_t)(eol - p));
		const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(eol - c1 - 1)) : NULL;
		if (c2) {
			const char *ctl = c1 + 1, *path = c2 + 1;
			size_t ctl_len = (size_t)(c2 - ctl), path_len = (size_t)(eol - path);
			if (list_has_memory(ctl, ctl_len)) {
				out->version = 1;
				int rc = set_dir(out, root, "memory", path, path_len, err);
				if (rc)
					return rc;
				snprintf(controller_root, sizeof(controller_root), "%s/memory",
				         root);
				fall_back_to_root(out, controller_root, "memory.usage_in_bytes");
				return 0;
			}
			if (c1 - p == 1 && p[0] == '0' && ctl_len == 0) {
				v2_path = path;
				v2_len = path_len;
			}
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	/* A v1 memory controller takes precedence: in a hybrid layout the
	 * "0::" line exists but the v2 tree holds no memory controller. */
	if (v2_path && file_exists(root, "cgroup.controllers")) {
		out->version = 2;
		int rc = set_dir(out, root, "", v2_path, v2_len, err);
		if (rc)
			return rc;
		fall_back_to_root(out, root, "memory.current");
		return 0;
	}
	return mg_err_set(err, MG_ENOTFOUND, "no memory cgroup controller under '%s'", root);
}

int cgroup_find(cgroup_mem *out, pid_t pid, mg_err *err)
{
	char path[64], text[4096];
	const char *root = getenv("MEMGUARD_CGROUP_ROOT");
	if (!root || !*root)
		root = DEFAULT_ROOT;
	if (pid == 0)
		snprintf(path, sizeof(path), "/proc/self/cgroup");
	else
		snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		return mg_err_set(err, e == ENOENT || e == ESRCH ? MG_EGONE : MG_ERROR,
		                  "open %s: %s", path, strerror(e));
	}
	size_t len = 0;
	for (;;) {
		ssize_t n = read(fd, text + len, sizeof(text) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		if (len == sizeof(text) - 1)
			break;
	}
	close(fd);
	text[len] = '\0';
	return cgroup_find_in(out, text, root, err);
}

/*
 * Reads dir/name (at most cap - 1 bytes, NUL-terminated) into buf; its path
 * in path. 1: read; 0: optional and the file does not exist (buf empty).
 */
static int read_small(char *buf, size_t cap, char *path, size_t path_cap, const char *dir,
                      const char *name, int optional, mg_err *err)
{
	snprintf(path, path_cap, "%s/%s", dir, name);
	buf[0] = '\0';
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		if (optional && e == ENOENT)
			return 0;
		return mg_err_set(err, e == ENOENT ? MG_ENOTFOUND : MG_ERROR, "open %s: %s", path,
		                  strerror(e));
	}
	ssize_t n;
	do
		n = read(fd, buf, cap - 1);
	while (n < 0 && errno == EINTR);
	int e = errno;
	close(fd);
	if (n < 0)
		return mg_err_set(err, MG_ERROR, "read %s: %s", path, strerror(e));
	buf[n] = '\0';
	return 1;
}

/*
 * Reads one number from dir/name. "max" reads as 0 (unlimited). If optional
 * and the file does not exist, *out is 0 and the result 0.
 */
static int read_number(uint64_t *out, const char *dir, const char *name, int optional, mg_err *err)
{
	char path[PATH_MAX + 64], buf[64];
	*out = 0;
	int rc = read_small(buf, sizeof(buf), path, sizeof(path), dir, name, optional, err);
	if (rc <= 0)
		return rc;
	buf[strcspn(buf, "\n")] = '\0';
	if (strcmp(buf, "max") == 0)
		return 0;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(buf, &end, 10);
	if (buf[0] < '0' || buf[0] > '9' || *end != '\0' || errno)
		return mg_err_set(err, MG_EINVAL, "%s: bad number '%s'", path, buf);
	*out = v;
	return 0;
}

int cgroup_read(const cgroup_mem *cg, cgroup_usage *out, mg_err *err)
{
	cgroup_usage u = {0};
	int rc;
	if (cg->version == 1) {
		if ((rc = read_number(&u.usage, cg->dir, "memory.usage_in_bytes", 0, err)) ||
		    (rc = read_number(&u.limit, cg->dir, "memory.limit_in_bytes", 0, err)) ||
		    (rc = read_number(&u.peak, cg->dir, "memory.max_usage_in_bytes", 1, err)))
			return rc;
		if (u.limit >= V1_UNLIMITED)
			u.limit = 0;
	} else if (cg->version == 2) {
		if ((rc = read_number(&u.usage, cg->dir, "memory.current", 0, err)) ||
		    (rc = read_number(&u.limit, cg->dir, "memory.max", 1, err)) ||
		    (rc = read_number(&u.peak, cg->dir, "memory.peak", 1, err)))
			return rc;
	} else {
		return mg_err_set(err, MG_EINVAL, "cgroup version %d is not 1 or 2", cg->version);
	}
	*out = u;
	return 0;
}

int cgroup_oom_kills(const cgroup_mem *cg, uint64_t *out, mg_err *err)
{
	char path[PATH_MAX + 64], buf[1024];
	*out = 0;
	int rc = read_small(buf, sizeof(buf), path, sizeof(path), cg->dir,
	                    cg->version == 1 ? "memory.oom_control" : "memory.events", 1, err);
	if (rc <= 0)
		return rc;
	for (const char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, "oom_kill ", 9)) {
			*out = strtoull(p + 9, NULL, 10);
			break;
		}
	return 0;
}

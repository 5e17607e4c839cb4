/*
 * cgroup.h - the memory controller of the cgroup a process is in, v1
 * (memory.usage_in_bytes / memory.limit_in_bytes / memory.max_usage_in_bytes)
 * or v2 (memory.current / memory.max / memory.peak). The root may be moved
 * (tests point it at a fake tree): MEMGUARD_CGROUP_ROOT, default /sys/fs/cgroup.
 */
#ifndef MG_CGROUP_H
#define MG_CGROUP_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#include "mg_err.h"

typedef struct cgroup_mem {
	int version;        /* 1 or 2 */
	char dir[PATH_MAX]; /* the controller directory of the group */
} cgroup_mem;

/*
 * Finds the memory cgroup from the text of /proc/PID/cgroup and a root.
 * MG_ENOTFOUND if there is no memory controller.
 */
int cgroup_find_in(cgroup_mem *out, const char *proc_cgroup_text, const char *root, mg_err *err);

/* Same, reading /proc/PID/cgroup (pid 0: self) and the root from the env. */
int cgroup_find(cgroup_mem *out, pid_t pid, mg_err *err);

typedef struct cgroup_usage {
	uint64_t usage; /* bytes now */
	uint64_t limit; /* bytes; 0 when unlimited ("max" or v1's huge value) */
	uint64_t peak;  /* bytes; 0 when the kernel does not keep it */
} cgroup_usage;

/* Reads the usage files (two or three small reads). */
int cgroup_read(const cgroup_mem *cg, cgroup_usage *out, mg_err *err);

/*
 * How many processes the kernel's OOM killer has killed in the group: the
 * "oom_kill" line of v2 memory.events or v1 memory.oom_control (one small
 * read). 0 when the kernel does not count them. A count that went up while
 * a host died of SIGKILL says the kernel, not someone else, killed it.
 */
int cgroup_oom_kills(const cgroup_mem *cg, uint64_t *out, mg_err *err);

#endif

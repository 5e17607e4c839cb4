/*
 * maps.h - a breakdown of a process's address space by category, its largest
 * mapping groups and its largest free gap, from /proc/PID/maps (or smaps for
 * resident sizes). For diagnosis at recycle, kill and peak; never the hot
 * path: these readers allocate and cost O(mappings).
 */
#ifndef MG_MAPS_H
#define MG_MAPS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "mg_err.h"

/*
 * The categories, always all seven, in this order (cats[MAPS_HEAP] ...):
 * - heap:     [heap]
 * - stack:    [stack], [stack:TID], and thread stacks: an anonymous rw
 *             mapping right above a 4096-byte anonymous ---p guard page (the
 *             guard itself counts as reserved)
 * - shm:      shared memory: any mapping with 's' in its perms, and
 *             /dev/shm/..., /memfd:..., /SYSV..., [anon_shmem:...] whatever
 *             their perms
 * - file:     file-backed mappings without x (data, relro, ---p gaps of a
 *             library)
 * - code:     file-backed mappings with x, and [vdso], [vvar], [vsyscall]
 * - reserved: anonymous ---p: address space reserved, nothing usable
 * - anon:     other anonymous mappings (malloc arenas, mmap'd blocks,
 *             [anon:NAME])
 */
enum {
	MAPS_HEAP,
	MAPS_STACK,
	MAPS_SHM,
	MAPS_FILE,
	MAPS_CODE,
	MAPS_RESERVED,
	MAPS_ANON,
	MAPS_NCATS
};

typedef struct maps_category {
	const char *name; /* "heap", "stack", ...: static strings */
	uint64_t va;      /* bytes of address space */
	uint64_t rss;     /* resident bytes; 0 unless read from smaps */
} maps_category;

/* Mappings with the same name and the same size, e.g. 525 x 8 MiB of
 * "/memfd:blocks". " (deleted)" is stripped; anonymous ones are "[anon]";
 * names longer than 127 bytes are cut. */
typedef struct maps_group {
	char name[128];
	uint64_t size;  /* bytes of one mapping */
	uint64_t count; /* how many mappings */
} maps_group;

typedef struct maps_breakdown {
	uint64_t va;          /* the sum of all mappings below the ceiling */
	uint64_t largest_gap; /* largest free range in [0x10000, ceiling) */
	maps_category cats[7];
	size_t ncats;         /* always MAPS_NCATS */
	maps_group groups[8]; /* the largest by size * count, largest first */
	size_t ngroups;
} maps_breakdown;

/*
 * Parses the text of /proc/PID/maps, or of /proc/PID/smaps (then the Rss:
 * lines fill each category's rss). ceiling is the top of the address space
 * (limits_arch_ceiling: 4 GiB for x86, 2^47 for x64); mappings at or above
 * it ([vsyscall] of a 64-bit process) are not counted, as VmSize does not
 * count them. The gap ignores the kernel's stack guard gap (1 MiB below
 * the main stack, where mmap does not place).
 * Returns 0, or MG_EINVAL if a line is malformed (*out is then undefined),
 * MG_ERROR if out of memory. Allocates one array of O(mappings) for the
 * groups; O(mappings log mappings).
 */
int maps_parse(maps_breakdown *out, const char *text, size_t len, uint64_t ceiling);

/*
 * Reads /proc/PID/maps (pid 0: self) and parses it: ~0.3 ms for 500
 * mappings. rss stays 0 (see maps_read_smaps). MG_EGONE if the process has
 * gone (no maps file, or an empty one: a zombie). Allocates the text.
 */
int maps_read(maps_breakdown *out, pid_t pid, uint64_t ceiling, mg_err *err);

/*
 * Like maps_read, from /proc/PID/smaps, so rss per category is filled.
 * Expensive: 50 ms for a 3.75 GiB resident 32-bit host, and it stalls the
 * target's mmap calls while it runs. Only for a host that is being recycled
 * or killed, never periodically.
 */
int maps_read_smaps(maps_breakdown *out, pid_t pid, uint64_t ceiling, mg_err *err);

/* Only the largest free gap of /proc/PID/maps (cost as maps_read, without
 * the grouping). MG_EGONE if the process has gone. */
int maps_largest_gap(uint64_t *out, pid_t pid, uint64_t ceiling, mg_err *err);

#endif

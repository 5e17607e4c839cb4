/*
 * mg_limits.h - the limit grammar ("va=3.5G,rss=80%,gap=64M") shared by
 * flags and the config file, arch defaults, and evaluation against a
 * reading (limits.c). Pure computation: no I/O, no allocation. Prefixed so
 * that it never stands in for the C library's <limits.h>.
 */
#ifndef MG_LIMITS_H
#define MG_LIMITS_H

#include <stddef.h>
#include <stdint.h>

#include "mg_err.h"

typedef enum mg_arch {
	MG_ARCH_UNKNOWN = 0,
	MG_ARCH_X86,
	MG_ARCH_X64,
} mg_arch;

/* "x86", "x64" or "unknown"; never NULL. */
const char *limits_arch_name(mg_arch arch);
/* Parses "x86"/"i386"/"32" and "x64"/"x86_64"/"amd64"/"64"; MG_EINVAL else. */
int limits_arch_parse(mg_arch *out, const char *text, mg_err *err);

/* The address-space ceiling of an arch: 4 GiB for x86, 2^47 for x64. */
uint64_t limits_arch_ceiling(mg_arch arch);

/* One parsed value: either bytes or a percentage still to be resolved. */
typedef struct limit_value {
	uint64_t bytes; /* 0 and percent 0: no limit */
	double percent; /* > 0: a share of the base the key names */
	int given;      /* the user's text named the key ("none" too): defaults yield */
} limit_value;

/* What the user wrote, before the arch and machine are known. */
typedef struct limits_spec {
	limit_value va;     /* VmSize of each process: % of the arch ceiling */
	limit_value rss;    /* resident set of the host's process tree: % of cgroup limit or RAM */
	limit_value cgroup; /* usage of the cgroup: % of its limit */
	limit_value gap;    /* largest free VA gap falls below (x86 only): bytes */
} limits_spec;

/* Resolved limits in bytes; 0 means "no limit". */
typedef struct limits {
	uint64_t va;
	uint64_t rss;
	uint64_t cgroup;
	uint64_t gap;
} limits;

/* Which limit a reading crossed (a bit set). */
enum {
	LIMIT_VA = 1 << 0,
	LIMIT_RSS = 1 << 1,
	LIMIT_CGROUP = 1 << 2,
	LIMIT_GAP = 1 << 3,
};

/*
 * Parses a size: plain bytes; K, M, G, T and KiB, MiB, GiB, TiB as powers of
 * 1024; KB, MB, GB, TB as powers of 1000; either case; a decimal fraction
 * ("3.5G"). MG_EINVAL with a message naming the token otherwise.
 */
int limits_parse_size(uint64_t *out, const char *token, mg_err *err);

/*
 * Parses a comma-separated list of key=value ("va=3.5G,rss=80%"). Keys not
 * named keep what *out held, so a flag can be layered over a config file
 * value. Empty text is an error. MG_EINVAL names the bad token.
 *
 * Details of the grammar (limits.c):
 * - keys: va, rss, cgroup, gap, in either case; a key given twice in one
 *   text is an error; so are empty items (",,", a leading or trailing ',');
 * - blanks (space, tab) around keys, values and units are ignored:
 *   " va = 3.5 G , rss=80% " is va=3.5G,rss=80%; "3. 5G" is not a size;
 * - a value is a size (limits_parse_size), a percentage in (0, 100] ("80%",
 *   "12.5%"; not for gap), or "none"/"off"/"0" to clear a layered value;
 * - sizes with a fraction are truncated to whole bytes ("0.1K" is 102);
 *   a plain byte count takes no fraction ("1.5" is an error); "512B" is
 *   accepted as bytes; up to 9 fraction digits count;
 * - on error *out is left exactly as it was.
 */
int limits_parse(limits_spec *out, const char *text, mg_err *err);

/* The defaults of an arch: x86 recycles at va=87.5% and kills at
 * va=93.75% of its 4 GiB (3.5 and 3.75 GiB); x64 recycles at rss=80% and
 * kills at rss=95% (of the cgroup limit, or RAM). limits_settle adds the
 * ones that depend on the machine. */
void limits_default(limits_spec *soft, limits_spec *hard, mg_arch arch);

/*
 * Turns a spec into bytes. ram is physical memory, cgroup_limit the cgroup's
 * limit (0 if none). rss% is of cgroup_limit when set, else of ram; va% of
 * the arch's ceiling.
 */
void limits_resolve(limits *out, const limits_spec *spec, mg_arch arch, uint64_t ram,
                    uint64_t cgroup_limit);

/* What the limits of one arch are measured against. */
typedef struct limits_base {
	mg_arch arch;
	uint64_t va_ceiling;   /* the address space a process has: the arch's, or a smaller cap */
	uint64_t ram;          /* physical memory */
	uint64_t cgroup_limit; /* the memory cgroup's limit; 0: none */
	int capped;            /* va_ceiling is a cap, not the arch's: LIMITS_CAP_* */
} limits_base;

/* limits_base.capped: where the cap came from */
enum {
	LIMITS_CAP_GIVEN = 1 /* --address-space */,
	LIMITS_CAP_INHERITED /* RLIMIT_AS: ulimit -v */
};

/*
 * The soft and hard limits in force: what the user wrote (a key with
 * .given) over the defaults of the arch, resolved against base. Beyond
 * limits_default: a capped address space gets the va defaults of x86 (87.5%
 * and 93.75% of the cap, x64 too), and an x86 host in a cgroup with a limit
 * gets x64's rss defaults, so the kernel's OOM killer is not the first to act.
 *
 * MG_EINVAL, naming the values, when the user's limits contradict each other
 * or the machine: a soft limit at or above the hard one of the same key
 * (a default soft limit instead moves below a hard one the user set, to
 * 15/16 of it), a va limit above the address space, a cgroup percentage with
 * no cgroup limit. With err NULL nothing is an error: what would be is left
 * to the defaults (the limits of a second arch in a tree, judged leniently).
 */
int limits_settle(limits *soft, limits *hard, const limits_spec *user_soft,
                  const limits_spec *user_hard, const limits_base *base, mg_err *err);

/* Returns the LIMIT_* bits that the reading reaches (>=) or, for gap, falls
 * below. A reading of 0 for gap means "not measured" and never trips. */
unsigned limits_check(const limits *l, uint64_t va, uint64_t rss, uint64_t cgroup, uint64_t gap);

/* Writes "va=3.50GiB,rss=6.00GiB" (or "none") into buf. */
void limits_format(char *buf, size_t size, const limits *l);

#endif

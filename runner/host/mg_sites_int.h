/*
 * mg_sites_int.h - what the two halves of allocation sites share (mg_sites.c:
 * the interposer, its stacks and its table of live records; mg_sites_put.c:
 * the pin table and a test's end), nothing a user of the library sees
 * (hidden). Not installed.
 */
#ifndef MG_SITES_INT_H
#define MG_SITES_INT_H

#include <stddef.h>
#include <stdint.h>

#include "mg_sites.h"

#pragma GCC visibility push(hidden)

/* The state the two files share, prefixed mgs_ (a program linking the
 * static host library may have globals of the plain names). */

#define MG_TLS __attribute__((tls_model("initial-exec")))

typedef struct rec {
	size_t bytes;   /* what it stands for: its size, or the sampling interval */
	uint32_t stack; /* index in stacks, +1; 0: none */
	uint32_t tk;    /* test serial << 2 | kind */
} rec;

#define WAYS      8 /* records per set: one cache line of keys on x64 */
#define KEY_BUSY  1 /* a slot being written */
#define SERIAL(x) ((x)&0x3fffffffu)

/*
 * The caller's return address, then up the frame-pointer chain while each
 * frame lies on this thread's known stack, above the last and within 8 MiB
 * of it. A macro: the frame it starts from is the interposed function's.
 */
#define WALK(out, n)                                                                               \
	do {                                                                                       \
		(out)[0] = (uintptr_t)__builtin_return_address(0);                                 \
		(n) = 1;                                                                           \
		uintptr_t fp_ = (uintptr_t)__builtin_frame_address(0);                             \
		uintptr_t hi_ = mgs_t_hi;                                                          \
		if (hi_ == 0 || fp_ < mgs_t_lo || fp_ >= hi_)                                      \
			break;                                                                     \
		for (;;) {                                                                         \
			uintptr_t nx_ = ((uintptr_t *)fp_)[0];                                     \
			if ((n) >= MG_SITES_DEPTH || nx_ <= fp_ ||                                 \
			    nx_ + 2 * sizeof(uintptr_t) > hi_ ||                                   \
			    (nx_ & (sizeof(uintptr_t) - 1)) || nx_ - fp_ > (8u << 20))             \
				break;                                                             \
			uintptr_t ra_ = ((uintptr_t *)nx_)[1];                                     \
			if (ra_ < 4096)                                                            \
				break;                                                             \
			(out)[(n)++] = ra_;                                                        \
			fp_ = nx_;                                                                 \
		}                                                                                  \
	} while (0)

extern int mgs_enabled;        /* tracking: mg_sites_init ran, and not a forked copy */
extern uint64_t mgs_min_bytes; /* a test leaving less sends no sites */
extern uintptr_t *mgs_keys;    /* nsets * WAYS addresses; 0 free, KEY_BUSY being written */
extern rec *mgs_recs;
extern size_t mgs_nsets;
extern uintptr_t (*mgs_stacks)[MG_SITES_DEPTH]; /* frames of each stack, 0-terminated */
extern uint32_t mgs_serial;                     /* the running test */
extern int64_t mgs_test_live; /* bytes the running test's records stand for, still live */
extern uint64_t mgs_nomem;    /* failed allocations since the test started */
extern char mgs_exe_path[4096];
extern __thread int mgs_t_busy MG_TLS; /* this thread is inside the interposer */
extern __thread uintptr_t mgs_t_lo MG_TLS, mgs_t_hi MG_TLS; /* this thread's stack; 0: not known */
extern int (*mgs_real_munmap)(void *, size_t);

/* The stack's index + 1, added when new; 0 when the table is full. */
uint32_t mg_sites_stack_id(const uintptr_t *f, unsigned n);
/* bytes of fresh zeroed memory (the real mmap, never recorded); NULL: none */
void *mg_sites_map(size_t bytes);
/* the same, its pages present now (MAP_POPULATE: the kernel touches them) */
void *mg_sites_map_touched(size_t bytes);
/* The set of the live-record table an address falls in. */
size_t mg_sites_set_of(uintptr_t p);
/* mg_sites_put.c's tables, mapped at mg_sites_init (before the first test). */
void mg_sites_put_init(void);

#pragma GCC visibility pop

#endif

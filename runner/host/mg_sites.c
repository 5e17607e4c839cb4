/*
 * mg_sites.c - allocation sites (mg_sites.h): the interposer of mmap, the
 * malloc family and C++ operator new/delete, its frame-pointer stacks, the
 * table of live records and the boundary's grouping into protocol lines.
 * In a sanitized program, the sanitizer's malloc/free hooks instead of the
 * malloc family's interposers. Compiled into the host library and the
 * probe. The allocation path never takes a lock, never allocates, never
 * calls into libc beyond the real function (stack bounds are taken at load
 * and at thread start, never inside malloc; only a sanitized program's
 * mapping may be unwound by glibc's backtrace, loaded at start); it must be
 * built with frame pointers and unwind tables (-fno-omit-frame-pointer
 * -fexceptions: operator new may throw through it).
 */
/* mmap is interposed under its own name, and mmap64 beside it on x86: not
 * the one sys/mman.h would rename it to */
#undef _FILE_OFFSET_BITS
/* dl_iterate_phdr, mremap's flags, off64_t: whoever compiles the file (a
 * user's own build of the host library's sources too) */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "mg_sites.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "mg_proto.h"
#include "mg_sites_int.h"

#ifdef MG_SITES_NONE
/* The pytest plugin's shared library: no interposer, no sites. */
void mg_sites_init(unsigned lvl, uint64_t min)
{
	(void)lvl;
	(void)min;
}
void mg_sites_test_start(const char *name, size_t len)
{
	(void)name;
	(void)len;
}
void memguard_pin(const void *block, const void *item, const char *label)
{
	(void)block;
	(void)item;
	(void)label;
}
void memguard_unpin(const void *block, const void *item)
{
	(void)block;
	(void)item;
}
uint64_t mg_sites_nomem(void)
{
	return 0;
}
size_t mg_sites_put(char *dst, size_t cap)
{
	(void)dst;
	(void)cap;
	return 0;
}
#else

/* Weak: a runtime that defines these too (a statically linked sanitizer)
 * keeps its own, and this file then sees nothing of them (a sanitizer's
 * allocator is then seen through its hooks, below). In their own section, so
 * that a sanitizer's allocation stack can leave out their frames. */
#define MG_HOOK __attribute__((weak, visibility("default"), section("mg_sites_hooks")))
extern char __start_mg_sites_hooks[] __attribute__((visibility("hidden")));
extern char __stop_mg_sites_hooks[] __attribute__((visibility("hidden")));

/* ---- the real functions ---- */

static void *(*real_malloc)(size_t);
static void (*real_free)(void *);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void *(*real_reallocarray)(void *, size_t, size_t);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);
static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
int (*mgs_real_munmap)(void *, size_t);
static void *(*real_mremap)(void *, size_t, size_t, int, ...);
static int (*real_pthread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
/* operator new/delete: plain, nothrow, aligned, aligned nothrow (new);
 * plain, sized, aligned, sized aligned, nothrow, aligned nothrow (delete) */
static void *(*real_new[2][4])(size_t, ...);
static void (*real_delete[2][6])(void *, ...);

/* dlsym may allocate before the real malloc is known: from here (never freed) */
static char boot[16384] __attribute__((aligned(16)));
static size_t boot_used;
static volatile int resolving, resolved;

static void *boot_alloc(size_t n)
{
	n = (n + 15) & ~(size_t)15;
	size_t at = __atomic_fetch_add(&boot_used, n, __ATOMIC_RELAXED);
	return at + n <= sizeof(boot) ? boot + at : NULL;
}

static int is_boot(const void *p)
{
	return (const char *)p >= boot && (const char *)p < boot + sizeof(boot);
}

#if UINTPTR_MAX == 0xffffffffu
#define SZ "j" /* size_t in a mangled name: unsigned int */
#else
#define SZ "m" /* unsigned long */
#endif

/* operator new: plain, nothrow, aligned, aligned nothrow; of one, of an array */
static const char *const news[2][4] = {
    {"_Znw" SZ, "_Znw" SZ "RKSt9nothrow_t", "_Znw" SZ "St11align_val_t",
     "_Znw" SZ "St11align_val_tRKSt9nothrow_t"},
    {"_Zna" SZ, "_Zna" SZ "RKSt9nothrow_t", "_Zna" SZ "St11align_val_t",
     "_Zna" SZ "St11align_val_tRKSt9nothrow_t"}};

static void *next(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

static void resolve(void)
{
	if (resolved)
		return;
	resolving = 1;
	*(void **)&real_malloc = next("malloc");
	*(void **)&real_free = next("free");
	*(void **)&real_calloc = next("calloc");
	*(void **)&real_realloc = next("realloc");
	*(void **)&real_reallocarray = next("reallocarray");
	*(void **)&real_posix_memalign = next("posix_memalign");
	*(void **)&real_aligned_alloc = next("aligned_alloc");
	*(void **)&real_memalign = next("memalign");
	*(void **)&real_mmap = next("mmap");
	*(void **)&mgs_real_munmap = next("munmap");
	*(void **)&real_mremap = next("mremap");
	*(void **)&real_pthread_create = next("pthread_create");
	static const char *const dels[2][6] = {
	    {"_ZdlPv", "_ZdlPv" SZ, "_ZdlPvSt11align_val_t", "_ZdlPv" SZ "St11align_val_t",
	     "_ZdlPvRKSt9nothrow_t", "_ZdlPvSt11align_val_tRKSt9nothrow_t"},
	    {"_ZdaPv", "_ZdaPv" SZ, "_ZdaPvSt11align_val_t", "_ZdaPv" SZ "St11align_val_t",
	     "_ZdaPvRKSt9nothrow_t", "_ZdaPvSt11align_val_tRKSt9nothrow_t"}};
	for (int a = 0; a < 2; a++) {
		for (int i = 0; i < 4; i++)
			*(void **)&real_new[a][i] = next(news[a][i]);
		for (int i = 0; i < 6; i++)
			*(void **)&real_delete[a][i] = next(dels[a][i]);
	}
	resolving = 0;
	__atomic_store_n(&resolved, 1, __ATOMIC_RELEASE);
}

/* ---- state ---- */

static unsigned level; /* 0 until mg_sites_init: pass everything through */
int mgs_enabled;       /* level > 0, and not a forked copy */
/* the malloc family and new/delete are recorded by their interposers: enabled,
 * and no sanitizer's hooks do it (san_hooks) */
static int alloc_on;
uint64_t mgs_min_bytes; /* a test leaving less sends no sites */
uintptr_t *mgs_keys;    /* nsets * WAYS addresses; 0 free, KEY_BUSY being written */
rec *mgs_recs;
static uint8_t *used; /* per set: its slots taken (a free's fast path: 0, none) */
size_t mgs_nsets;
uintptr_t (*mgs_stacks)[MG_SITES_DEPTH]; /* frames of each stack, 0-terminated */
static uint32_t *stack_hash;             /* 0 free, 1 being written, else hash | 2 */
static size_t nstacks;
uint32_t mgs_serial;     /* the running test */
int64_t mgs_test_live;   /* bytes the running test's records stand for, still live */
uint64_t mgs_nomem;      /* failed allocations since the test started */
static uint64_t dropped; /* records that found no room (a full set) */
char mgs_exe_path[4096];

__thread int mgs_t_busy MG_TLS;                      /* this thread is inside the interposer */
__thread uintptr_t mgs_t_lo MG_TLS, mgs_t_hi MG_TLS; /* this thread's stack; 0: not known */
static __thread int64_t t_countdown MG_TLS;          /* bytes until the next sample */
static __thread uint32_t t_rand MG_TLS;

/* ---- stacks ---- */

static uint32_t hash_frames(const uintptr_t *f, unsigned n)
{
	uint64_t h = 1469598103934665603ull;
	for (unsigned i = 0; i < n; i++)
		h = (h ^ f[i]) * 1099511628211ull;
	return (uint32_t)(h ^ h >> 32);
}

/* The stack's index + 1, added when new; 0 when the table is full. */
uint32_t mg_sites_stack_id(const uintptr_t *f, unsigned n)
{
	uint32_t h = hash_frames(f, n) | 2;
	for (size_t i = 0, at = h; i < 32; i++, at++) {
		size_t s = at & (nstacks - 1);
		uint32_t cur = __atomic_load_n(&stack_hash[s], __ATOMIC_ACQUIRE);
		if (cur == 0 && __atomic_compare_exchange_n(&stack_hash[s], &cur, 1, 0,
		                                            __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			memcpy(mgs_stacks[s], f, n * sizeof(uintptr_t));
			if (n < MG_SITES_DEPTH)
				mgs_stacks[s][n] = 0;
			__atomic_store_n(&stack_hash[s], h, __ATOMIC_RELEASE);
			return (uint32_t)s + 1;
		}
		if (cur == h && !memcmp(mgs_stacks[s], f, n * sizeof(uintptr_t)) &&
		    (n == MG_SITES_DEPTH || mgs_stacks[s][n] == 0))
			return (uint32_t)s + 1;
	}
	return 0;
}

/* ---- the table of live records ---- */

size_t mg_sites_set_of(uintptr_t p)
{
	uint64_t h = (uint64_t)(p >> 4) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 32) & (mgs_nsets - 1);
}

static void record(uintptr_t p, size_t bytes, mg_site_kind kind, uint32_t stack)
{
	uintptr_t *k = mgs_keys + mg_sites_set_of(p) * WAYS;
	uint32_t s = __atomic_load_n(&mgs_serial, __ATOMIC_RELAXED);
	for (int w = 0; w < WAYS; w++) {
		uintptr_t cur = __atomic_load_n(&k[w], __ATOMIC_RELAXED);
		if (cur == p) { /* a record whose free was not seen: replaced */
			rec *r = &mgs_recs[(size_t)(k - mgs_keys) + (size_t)w];
			if (SERIAL(r->tk >> 2) == s)
				__atomic_fetch_sub(&mgs_test_live, (int64_t)r->bytes,
				                   __ATOMIC_RELAXED);
			r->bytes = bytes;
			r->stack = stack;
			r->tk = s << 2 | (uint32_t)kind;
			__atomic_fetch_add(&mgs_test_live, (int64_t)bytes, __ATOMIC_RELAXED);
			return;
		}
	}
	for (int w = 0; w < WAYS; w++) {
		uintptr_t zero = 0;
		if (__atomic_compare_exchange_n(&k[w], &zero, KEY_BUSY, 0, __ATOMIC_ACQ_REL,
		                                __ATOMIC_RELAXED)) {
			__atomic_fetch_add(&used[mg_sites_set_of(p)], 1, __ATOMIC_RELAXED);
			rec *r = &mgs_recs[(size_t)(k - mgs_keys) + (size_t)w];
			r->bytes = bytes;
			r->stack = stack;
			r->tk = s << 2 | (uint32_t)kind;
			__atomic_fetch_add(&mgs_test_live, (int64_t)bytes, __ATOMIC_RELAXED);
			__atomic_store_n(&k[w], p, __ATOMIC_RELEASE);
			return;
		}
	}
	__atomic_fetch_add(&dropped, 1, __ATOMIC_RELAXED);
}

/* Removes p's record: 1 and a copy of it at out (when not NULL), 0 when p
 * has none. */
static int forget(uintptr_t p, rec *out)
{
	size_t set = mg_sites_set_of(p);
	if (__atomic_load_n(&used[set], __ATOMIC_RELAXED) == 0)
		return 0; /* most frees: nothing recorded near p */
	uintptr_t *k = mgs_keys + set * WAYS;
	for (int w = 0; w < WAYS; w++) {
		uintptr_t cur = p;
		if (__atomic_load_n(&k[w], __ATOMIC_RELAXED) == p &&
		    __atomic_compare_exchange_n(&k[w], &cur, KEY_BUSY, 0, __ATOMIC_ACQ_REL,
		                                __ATOMIC_RELAXED)) {
			rec *r = &mgs_recs[(size_t)(k - mgs_keys) + (size_t)w];
			if (SERIAL(r->tk >> 2) == __atomic_load_n(&mgs_serial, __ATOMIC_RELAXED))
				__atomic_fetch_sub(&mgs_test_live, (int64_t)r->bytes,
				                   __ATOMIC_RELAXED);
			if (out)
				*out = *r;
			__atomic_store_n(&k[w], 0, __ATOMIC_RELEASE);
			__atomic_fetch_sub(&used[set], 1, __ATOMIC_RELAXED);
			return 1;
		}
	}
	return 0;
}

/* xorshift32: the next sampling interval, uniform in [1, 2 * MG_SITES_LARGE] */
static int64_t interval(void)
{
	uint32_t x = t_rand;
	if (x == 0)
		x = (uint32_t)(uintptr_t)&t_rand ^ 0x9e3779b9u;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	t_rand = x;
	return (int64_t)(x % (2u * MG_SITES_LARGE)) + 1;
}

/* The countdown ran out (or was never set): the next interval; this
 * allocation is recorded, standing for the mean interval. */
static __attribute__((noinline)) size_t weigh_sample(void)
{
	int first = t_rand == 0;
	t_countdown += interval();
	if (first || t_countdown <= 0)
		t_countdown = interval();
	return first ? 0 : MG_SITES_LARGE;
}

/*
 * Whether an allocation of n bytes is recorded, and what it stands for:
 * every one at MG_SITES_ALL; at the default level every large one, and a
 * smaller one when this thread's countdown runs out (it then stands for
 * the mean interval, so a test's sum estimates what it left).
 */
static inline size_t weigh(size_t n)
{
	if (__builtin_expect(level == MG_SITES_ALL || n >= MG_SITES_LARGE, 0))
		return n;
	t_countdown -= (int64_t)n;
	if (__builtin_expect(t_countdown > 0, 1))
		return 0;
	return weigh_sample();
}

static unsigned san_nmap; /* a sanitizer's mmap interceptors known (san_rewalk) */
static unsigned san_rewalk(uintptr_t *fr, unsigned nf);

#define TRACK(p, bytes, kind)                                                                      \
	do {                                                                                       \
		uintptr_t fr_[MG_SITES_DEPTH];                                                     \
		unsigned nf_;                                                                      \
		WALK(fr_, nf_);                                                                    \
		if ((kind) == MG_SITE_MMAP && __builtin_expect(san_nmap != 0, 0))                  \
			nf_ = san_rewalk(fr_, nf_);                                                \
		record((uintptr_t)(p), (bytes), (kind), mg_sites_stack_id(fr_, nf_));              \
	} while (0)

static void failed(void)
{
	__atomic_fetch_add(&mgs_nomem, 1, __ATOMIC_RELAXED);
}

/*
 * The tail of every allocating hook but mremap's and operator new's: after
 * the real call, a failed one (fail) counted when nomem_ (the caller's test
 * of errno, or of the result), else p recorded as n bytes of kind (weighed,
 * but a mapping) with the stack of the hook it is inlined into: always
 * inline, so WALK's frame and return address are the hook's.
 */
#define MG_INLINE static inline __attribute__((always_inline))
MG_INLINE void took(void *p, int fail, int nomem_, size_t n, mg_site_kind kind)
{
	if (!mgs_enabled || mgs_t_busy)
		return;
	if (fail) {
		if (nomem_)
			failed();
		return;
	}
	if (kind != MG_SITE_MMAP && !alloc_on)
		return; /* a sanitizer's hook records it */
	size_t w = kind == MG_SITE_MMAP ? n : weigh(n);
	if (w) {
		mgs_t_busy = 1;
		TRACK(p, w, kind);
		mgs_t_busy = 0;
	}
}

/* ---- the malloc family ---- */

MG_HOOK void *malloc(size_t n)
{
	if (__builtin_expect(!resolved, 0)) {
		if (resolving)
			return boot_alloc(n);
		resolve();
	}
	void *p = real_malloc(n);
	took(p, p == NULL, p == NULL && errno == ENOMEM, n, MG_SITE_MALLOC);
	return p;
}

MG_HOOK void free(void *p)
{
	if (p == NULL || is_boot(p))
		return;
	if (__builtin_expect(!resolved, 0))
		resolve();
	if (alloc_on)
		forget((uintptr_t)p, NULL);
	real_free(p);
}

MG_HOOK void *calloc(size_t n, size_t size)
{
	if (__builtin_expect(!resolved, 0)) {
		if (resolving) {
			void *b = n && size > SIZE_MAX / n ? NULL : boot_alloc(n * size);
			return b; /* boot is zeroed and never reused */
		}
		resolve();
	}
	void *p = real_calloc(n, size);
	took(p, p == NULL, p == NULL && errno == ENOMEM, n * size, MG_SITE_MALLOC);
	return p;
}

MG_HOOK void *realloc(void *old, size_t n)
{
	if (__builtin_expect(!resolved, 0))
		resolve();
	if (is_boot(old)) { /* never freed: copied out */
		void *p = malloc(n);
		if (p)
			memcpy(p, old,
			       n < (size_t)(boot + sizeof(boot) - (char *)old)
			           ? n
			           : (size_t)(boot + sizeof(boot) - (char *)old));
		return p;
	}
	if (alloc_on && old)
		forget((uintptr_t)old, NULL);
	void *p = real_realloc(old, n);
	took(p, p == NULL, p == NULL && n && errno == ENOMEM, n, MG_SITE_MALLOC);
	return p;
}

MG_HOOK void *reallocarray(void *old, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(old, n * size);
}

/* The aligned ones: the real call, then the record as malloc's. */
MG_HOOK int posix_memalign(void **out, size_t align, size_t n)
{
	if (__builtin_expect(!resolved, 0))
		resolve();
	int r = real_posix_memalign(out, align, n);
	took(r == 0 ? *out : NULL, r != 0, r == ENOMEM, n, MG_SITE_MALLOC);
	return r;
}

MG_HOOK void *aligned_alloc(size_t align, size_t n)
{
	if (__builtin_expect(!resolved, 0))
		resolve();
	void *p = real_aligned_alloc(align, n);
	took(p, p == NULL, p == NULL && errno == ENOMEM, n, MG_SITE_MALLOC);
	return p;
}

MG_HOOK void *memalign(size_t align, size_t n)
{
	if (__builtin_expect(!resolved, 0))
		resolve();
	void *p = real_memalign(align, n);
	took(p, p == NULL, p == NULL && errno == ENOMEM, n, MG_SITE_MALLOC);
	return p;
}

/* ---- mappings ---- */

MG_HOOK void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (__builtin_expect(!resolved, 0))
		resolve();
	void *p = real_mmap(addr, len, prot, flags, fd, off);
	took(p, p == MAP_FAILED, p == MAP_FAILED && errno == ENOMEM, len, MG_SITE_MMAP);
	return p;
}

/* programs built with _FILE_OFFSET_BITS=64 call mmap64 (x64 too) */
MG_HOOK void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
	static void *(*real_mmap64)(void *, size_t, int, int, int, off64_t);
	if (__builtin_expect(!resolved, 0))
		resolve();
	if (real_mmap64 == NULL)
		*(void **)&real_mmap64 = next("mmap64");
	void *p = real_mmap64(addr, len, prot, flags, fd, off);
	took(p, p == MAP_FAILED, p == MAP_FAILED && errno == ENOMEM, len, MG_SITE_MMAP);
	return p;
}

/* A record of a mapping at p: unmapped whole when len covers it; from its
 * start, the rest stays recorded at its new start; else kept. */
MG_HOOK int munmap(void *p, size_t len)
{
	if (__builtin_expect(!resolved, 0))
		resolve();
	if (mgs_enabled) {
		rec r;
		if (forget((uintptr_t)p, &r) && len < r.bytes && (r.tk & 3) == MG_SITE_MMAP) {
			size_t cut = (len + 4095) & ~(size_t)4095;
			if (cut < r.bytes)
				record((uintptr_t)p + cut, r.bytes - cut, MG_SITE_MMAP, r.stack);
		}
	}
	return mgs_real_munmap(p, len);
}

MG_HOOK void *mremap(void *old, size_t old_len, size_t len, int flags, ...)
{
	void *want = NULL;
	if (flags & MREMAP_FIXED) {
		va_list ap;
		va_start(ap, flags);
		want = va_arg(ap, void *);
		va_end(ap);
	}
	if (__builtin_expect(!resolved, 0))
		resolve();
	rec r0;
	int r = mgs_enabled && forget((uintptr_t)old, &r0);
	uint32_t stack = r ? r0.stack : 0;
	void *p = real_mremap(old, old_len, len, flags, want);
	if (!mgs_enabled || mgs_t_busy)
		return p;
	if (p == MAP_FAILED) {
		if (errno == ENOMEM)
			failed();
		if (r)
			record((uintptr_t)old, old_len, MG_SITE_MMAP, stack);
		return p;
	}
	if (r) {
		record((uintptr_t)p, len, MG_SITE_MMAP, stack);
	} else {
		mgs_t_busy = 1;
		TRACK(p, len, MG_SITE_MMAP);
		mgs_t_busy = 0;
	}
	return p;
}

/* ---- C++ operator new and delete ---- */

/* Clears the guard when a throwing operator new leaves through this frame
 * (the allocation failed: counted). */
typedef struct guard {
	int done;
} guard;

static void guard_end(guard *g)
{
	if (!g->done)
		failed();
	mgs_t_busy = 0;
}

/* A C program or a static C++ runtime has no operator new to call: malloc,
 * and a failure ends the program (it cannot throw from here). */
static void *new_fallback(size_t n, size_t align, int nothrow)
{
	void *p = NULL;
	if (align > sizeof(void *)) {
		if (real_posix_memalign(&p, align, n ? n : 1) != 0)
			p = NULL;
	} else {
		p = real_malloc(n ? n : 1);
	}
	if (p == NULL && !nothrow)
		abort();
	return p;
}

#define NEW_BODY(arr, i, call, n, align, nothrow)                                                  \
	do {                                                                                       \
		if (__builtin_expect(!resolved, 0))                                                \
			resolve();                                                                 \
		void *(*f_)(size_t, ...) = real_new[arr][i];                                       \
		if (!alloc_on || mgs_t_busy)                                                       \
			return f_ ? call : new_fallback(n, align, nothrow);                        \
		guard g_ __attribute__((cleanup(guard_end))) = {0};                                \
		mgs_t_busy = 1;                                                                    \
		void *p_ = f_ ? call : new_fallback(n, align, nothrow);                            \
		g_.done = p_ != NULL;                                                              \
		size_t w_ = p_ ? weigh(n) : 0;                                                     \
		if (w_)                                                                            \
			TRACK(p_, w_, MG_SITE_NEW);                                                \
		return p_;                                                                         \
	} while (0)

#define NEW_SET(arr, plain, nothrow_, aligned, aligned_nothrow)                                    \
	MG_HOOK void *plain(size_t n)                                                              \
	{                                                                                          \
		NEW_BODY(arr, 0, f_(n), n, 0, 0);                                                  \
	}                                                                                          \
	MG_HOOK void *nothrow_(size_t n, const void *nt)                                           \
	{                                                                                          \
		NEW_BODY(arr, 1, f_(n, nt), n, 0, 1);                                              \
	}                                                                                          \
	MG_HOOK void *aligned(size_t n, size_t al)                                                 \
	{                                                                                          \
		NEW_BODY(arr, 2, f_(n, al), n, al, 0);                                             \
	}                                                                                          \
	MG_HOOK void *aligned_nothrow(size_t n, size_t al, const void *nt)                         \
	{                                                                                          \
		NEW_BODY(arr, 3, f_(n, al, nt), n, al, 1);                                         \
	}

#if UINTPTR_MAX == 0xffffffffu
NEW_SET(0, _Znwj, _ZnwjRKSt9nothrow_t, _ZnwjSt11align_val_t, _ZnwjSt11align_val_tRKSt9nothrow_t)
NEW_SET(1, _Znaj, _ZnajRKSt9nothrow_t, _ZnajSt11align_val_t, _ZnajSt11align_val_tRKSt9nothrow_t)
#else
NEW_SET(0, _Znwm, _ZnwmRKSt9nothrow_t, _ZnwmSt11align_val_t, _ZnwmSt11align_val_tRKSt9nothrow_t)
NEW_SET(1, _Znam, _ZnamRKSt9nothrow_t, _ZnamSt11align_val_t, _ZnamSt11align_val_tRKSt9nothrow_t)
#endif

#define DELETE_BODY(arr, i, call)                                                                  \
	do {                                                                                       \
		if (p == NULL)                                                                     \
			return;                                                                    \
		if (__builtin_expect(!resolved, 0))                                                \
			resolve();                                                                 \
		if (alloc_on)                                                                      \
			forget((uintptr_t)p, NULL);                                                \
		void (*f_)(void *, ...) = real_delete[arr][i];                                     \
		if (f_)                                                                            \
			call;                                                                      \
		else                                                                               \
			real_free(p);                                                              \
	} while (0)

#define DELETE_SET(arr, plain, sized, aligned, sized_aligned, nothrow_, aligned_nothrow)           \
	MG_HOOK void plain(void *p)                                                                \
	{                                                                                          \
		DELETE_BODY(arr, 0, f_(p));                                                        \
	}                                                                                          \
	MG_HOOK void sized(void *p, size_t n)                                                      \
	{                                                                                          \
		DELETE_BODY(arr, 1, f_(p, n));                                                     \
	}                                                                                          \
	MG_HOOK void aligned(void *p, size_t al)                                                   \
	{                                                                                          \
		DELETE_BODY(arr, 2, f_(p, al));                                                    \
	}                                                                                          \
	MG_HOOK void sized_aligned(void *p, size_t n, size_t al)                                   \
	{                                                                                          \
		DELETE_BODY(arr, 3, f_(p, n, al));                                                 \
	}                                                                                          \
	MG_HOOK void nothrow_(void *p, const void *nt)                                             \
	{                                                                                          \
		DELETE_BODY(arr, 4, f_(p, nt));                                                    \
	}                                                                                          \
	MG_HOOK void aligned_nothrow(void *p, size_t al, const void *nt)                           \
	{                                                                                          \
		DELETE_BODY(arr, 5, f_(p, al, nt));                                                \
	}

#if UINTPTR_MAX == 0xffffffffu
DELETE_SET(0, _ZdlPv, _ZdlPvj, _ZdlPvSt11align_val_t, _ZdlPvjSt11align_val_t, _ZdlPvRKSt9nothrow_t,
           _ZdlPvSt11align_val_tRKSt9nothrow_t)
DELETE_SET(1, _ZdaPv, _ZdaPvj, _ZdaPvSt11align_val_t, _ZdaPvjSt11align_val_t, _ZdaPvRKSt9nothrow_t,
           _ZdaPvSt11align_val_tRKSt9nothrow_t)
#else
DELETE_SET(0, _ZdlPv, _ZdlPvm, _ZdlPvSt11align_val_t, _ZdlPvmSt11align_val_t, _ZdlPvRKSt9nothrow_t,
           _ZdlPvSt11align_val_tRKSt9nothrow_t)
DELETE_SET(1, _ZdaPv, _ZdaPvm, _ZdaPvSt11align_val_t, _ZdaPvmSt11align_val_t, _ZdaPvRKSt9nothrow_t,
           _ZdaPvSt11align_val_tRKSt9nothrow_t)
#endif

/* ---- threads: their stack bounds, taken as they start ---- */

typedef struct start {
	void *(*fn)(void *);
	void *arg;
	size_t size;
	int taken; /* a slot of starts: claimed by pthread_create, freed by the thread */
} start;

/* The start of threads being created: fixed slots, so that a new thread
 * touches no allocator before its own code (a free there would make glibc
 * give it an arena, 64 MiB of address space, at a moment the program did not
 * choose). More at once than slots: those start unwrapped. */
#define NSTARTS    64
static start starts[NSTARTS];

static void *thread_start(void *v)
{
	start *sp = v;
	start s = *sp;
	__atomic_store_n(&sp->taken, 0, __ATOMIC_RELEASE);
	mgs_t_hi = (uintptr_t)__builtin_frame_address(0);
	mgs_t_lo = mgs_t_hi > s.size ? mgs_t_hi - s.size : 0;
	return s.fn(s.arg);
}

MG_HOOK int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	if (__builtin_expect(!resolved, 0))
		resolve();
	start *sp = NULL;
	for (int i = 0; i < NSTARTS && sp == NULL; i++) {
		int zero = 0;
		if (__atomic_compare_exchange_n(&starts[i].taken, &zero, 1, 0, __ATOMIC_ACQ_REL,
		                                __ATOMIC_RELAXED))
			sp = &starts[i];
	}
	if (sp == NULL)
		return real_pthread_create(t, attr, fn, arg);
	size_t size = 8u << 20;
	if (attr)
		pthread_attr_getstacksize(attr, &size);
	sp->fn = fn;
	sp->arg = arg;
	sp->size = size;
	int r = real_pthread_create(t, attr, thread_start, sp);
	if (r != 0)
		__atomic_store_n(&sp->taken, 0, __ATOMIC_RELEASE);
	return r;
}

/* ---- a sanitizer's allocator: its hooks instead of the interposers ---- */

/*
 * A program built with AddressSanitizer allocates through the runtime's
 * malloc and operator new, which clang links into the program itself, where
 * no interposer reaches them. Its runtime calls hooks after each allocation
 * and before each free (__sanitizer_install_malloc_and_free_hooks); the
 * runtime is built without frame pointers, so the stack is the one it took
 * itself at its entry (__asan_get_alloc_stack), less that entry (its first
 * frame) and the interposers' frames (mg_sites_hooks: a shared runtime is
 * called through them). Then only the hooks record the malloc family and
 * new (alloc_on 0): nothing twice.
 */
typedef size_t (*san_stack_fn)(void *, void **, size_t, int *);
typedef int (*san_install_fn)(void (*)(const volatile void *, size_t),
                              void (*)(const volatile void *));
static san_stack_fn san_alloc_stack;
#define NEW_RANGES 16 /* the runtime's operator new functions: a record's kind */
static uintptr_t new_lo[NEW_RANGES], new_hi[NEW_RANGES];
static unsigned nnew;

/* Whether a lies in this file's interposers (their section). */
static int san_ours(const void *a)
{
	return (const char *)a >= __start_mg_sites_hooks && (const char *)a < __stop_mg_sites_hooks;
}

static int san_is_new(uintptr_t a)
{
	for (unsigned i = 0; i < nnew; i++)
		if (a >= new_lo[i] && a < new_hi[i])
			return 1;
	return 0;
}

static void san_malloc_hook(const volatile void *vp, size_t n)
{
	if (!mgs_enabled || mgs_t_busy || vp == NULL)
		return;
	size_t w = weigh(n);
	if (w == 0)
		return;
	mgs_t_busy = 1;
	void *tr[MG_SITES_DEPTH + 4];
	int tid;
	size_t nt = san_alloc_stack((void *)(uintptr_t)vp, tr, sizeof(tr) / sizeof(tr[0]), &tid);
	size_t i = 1; /* tr[0]: the runtime's allocating entry */
	while (i < nt && san_ours(tr[i]))
		i++;
	uintptr_t fr[MG_SITES_DEPTH];
	unsigned nf = 0;
	for (; i < nt && nf < MG_SITES_DEPTH; i++)
		fr[nf++] = (uintptr_t)tr[i];
	mg_site_kind kind = nt && san_is_new((uintptr_t)tr[0]) ? MG_SITE_NEW : MG_SITE_MALLOC;
	record((uintptr_t)vp, w, kind, nf ? mg_sites_stack_id(fr, nf) : 0);
	mgs_t_busy = 0;
}

static void san_free_hook(const volatile void *vp)
{
	if (mgs_enabled && vp != NULL)
		forget((uintptr_t)vp, NULL);
}

/* The extent of function f (a symbol with its size) added to ranges lo/hi
 * at *n (of at most max). */
static void san_range(void *f, uintptr_t *lo, uintptr_t *hi, unsigned *n, unsigned max)
{
	Dl_info di;
	const ElfW(Sym) *sym = NULL;
	if (f == NULL || *n == max || !dladdr1(f, &di, (void **)&sym, RTLD_DL_SYMENT) ||
	    sym == NULL || sym->st_size == 0 || di.dli_saddr != f)
		return;
	lo[*n] = (uintptr_t)f;
	hi[(*n)++] = (uintptr_t)f + sym->st_size;
}

static void san_new_range(void *f)
{
	san_range(f, new_lo, new_hi, &nnew, NEW_RANGES);
}

/*
 * A sanitizer's runtime intercepts mmap and calls the interposer from its
 * interceptor, which may keep no frame pointer (clang's 32-bit one): the
 * walk then ends in the interceptor. Such a stack is taken again by glibc's
 * backtrace (the unwinder reads the runtime's unwind tables), less this
 * file's frames and the interceptor's. Rare (a mapping, in a sanitized
 * program), so the unwinder's cost is affordable; it was loaded at start.
 */
#define SAN_MAPS   3
static uintptr_t san_map_lo[SAN_MAPS], san_map_hi[SAN_MAPS];
static int (*real_backtrace)(void **, int);

static int san_in_map(uintptr_t a)
{
	for (unsigned i = 0; i < san_nmap; i++)
		if (a >= san_map_lo[i] && a < san_map_hi[i])
			return 1;
	return 0;
}

static __attribute__((noinline, section("mg_sites_hooks"))) unsigned san_rewalk(uintptr_t *fr,
                                                                                unsigned nf)
{
	if (nf == 0 || !san_in_map(fr[0]))
		return nf;
	void *bt[MG_SITES_DEPTH + 8];
	int n = real_backtrace(bt, (int)(sizeof(bt) / sizeof(bt[0])));
	int i = 0;
	while (i < n && (san_ours(bt[i]) || san_in_map((uintptr_t)bt[i])))
		i++;
	if (i == n)
		return nf; /* the unwinder found no caller: the interceptor, as walked */
	unsigned k = 0;
	for (; i < n && k < MG_SITES_DEPTH; i++)
		fr[k++] = (uintptr_t)bt[i];
	return k;
}

/* The runtime's mmap interceptors, when they come before the interposer (a
 * runtime linked into the program), and then the unwinder loaded (it
 * allocates the first time: now, not inside an mmap; and only then: a
 * loader's allocation made through the interposer is one LeakSanitizer
 * does not recognise as the loader's). */
static void san_maps(void)
{
	static const char *const maps[SAN_MAPS] = {"mmap", "mmap64", "mremap"};
	unsigned n = 0;
	for (int i = 0; i < SAN_MAPS; i++) {
		void *f = dlsym(RTLD_DEFAULT, maps[i]);
		if (f != NULL && !san_ours(f))
			san_range(f, san_map_lo, san_map_hi, &n, SAN_MAPS);
	}
	if (n == 0)
		return;
	*(void **)&real_backtrace = next("backtrace");
	if (real_backtrace == NULL)
		return;
	void *bt[4];
	real_backtrace(bt, 4);
	san_nmap = n;
}

/* Whether a sanitizer's hooks now record the malloc family and new. Once,
 * from mg_sites_init (the runtime wants it before other threads start). */
static int san_hooks(void)
{
	san_install_fn inst;
	*(void **)&inst = dlsym(RTLD_DEFAULT, "__sanitizer_install_malloc_and_free_hooks");
	*(void **)&san_alloc_stack = dlsym(RTLD_DEFAULT, "__asan_get_alloc_stack");
	if (inst != NULL)
		san_maps();
	if (inst == NULL || san_alloc_stack == NULL)
		return 0; /* no sanitizer, or one that keeps no allocation stacks */
	for (int a = 0; a < 2; a++)
		for (int i = 0; i < 4; i++) {
			san_new_range(dlsym(RTLD_DEFAULT, news[a][i])); /* the program's */
			san_new_range(*(void **)&real_new[a][i]);       /* a shared runtime's */
		}
	return inst(san_malloc_hook, san_free_hook) > 0;
}

/* ---- the boundary ---- */

static void sites_atfork_child(void)
{
	mgs_enabled = 0; /* a forked copy (a death test) sends nothing */
	alloc_on = 0;
}

void *mg_sites_map(size_t bytes)
{
	void *p = real_mmap(NULL, bytes, PROT_READ | PROT_WRITE,
	                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void *mg_sites_map_touched(size_t bytes)
{
	void *p = real_mmap(NULL, bytes, PROT_READ | PROT_WRITE,
	                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void mg_sites_init(unsigned lvl, uint64_t min)
{
	if (lvl == MG_SITES_OFF || level)
		return;
	resolve();
	if (real_malloc == NULL || real_free == NULL || real_mmap == NULL)
		return; /* not interposed (a sanitizer's runtime defines these) */
	mgs_nsets = lvl == MG_SITES_ALL ? (1u << 17) : (1u << 12);
	nstacks = lvl == MG_SITES_ALL ? (1u << 14) : (1u << 12);
	mgs_keys = mg_sites_map(mgs_nsets * WAYS * sizeof(*mgs_keys));
	mgs_recs = mg_sites_map(mgs_nsets * WAYS * sizeof(*mgs_recs));
	used = mg_sites_map(mgs_nsets);
	mgs_stacks = mg_sites_map(nstacks * sizeof(*mgs_stacks));
	stack_hash = mg_sites_map(nstacks * sizeof(*stack_hash));
	if (!mgs_keys || !mgs_recs || !used || !mgs_stacks || !stack_hash)
		return;
	extern void *__libc_stack_end;
	struct rlimit rl;
	size_t size = 8u << 20;
	if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < (rlim_t)SIZE_MAX / 2)
		size = (size_t)rl.rlim_cur;
	mgs_t_hi = (uintptr_t)__libc_stack_end;
	mgs_t_lo = mgs_t_hi > size ? mgs_t_hi - size : 0;
	ssize_t n = readlink("/proc/self/exe", mgs_exe_path, sizeof(mgs_exe_path) - 1);
	mgs_exe_path[n > 0 ? n : 0] = '\0';
	pthread_atfork(NULL, NULL, sites_atfork_child);
	mgs_min_bytes = min ? min : MG_SITES_MIN;
	level = lvl;
	alloc_on = !san_hooks();
	__atomic_store_n(&mgs_enabled, 1, __ATOMIC_RELEASE);
	mg_sites_put_init();
}

#endif /* MG_SITES_NONE */

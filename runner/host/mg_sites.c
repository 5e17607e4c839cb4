/*
 * mg_sites.c - allocation sites (mg_sites.h): the interposer of mmap, the
 * malloc family and C++ operator new/delete, its frame-pointer stacks, the
 * table of live records and the boundary's grouping into protocol lines.
 * Compiled into the host library and the probe. The allocation path never
 * takes a lock, never allocates, never calls into libc beyond the real
 * function (stack bounds are taken at load and at thread start, never
 * inside malloc); it must be built with frame pointers and unwind tables
 * (-fno-omit-frame-pointer -fexceptions: operator new may throw through it).
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
 * keeps its own, and this file then sees nothing, which is safe. */
#define MG_HOOK __attribute__((weak, visibility("default")))
#define MG_TLS  __attribute__((tls_model("initial-exec")))

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
static int (*real_munmap)(void *, size_t);
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
	*(void **)&real_munmap = next("munmap");
	*(void **)&real_mremap = next("mremap");
	*(void **)&real_pthread_create = next("pthread_create");
	static const char *const news[2][4] = {
	    {"_Znw" SZ, "_Znw" SZ "RKSt9nothrow_t", "_Znw" SZ "St11align_val_t",
	     "_Znw" SZ "St11align_val_tRKSt9nothrow_t"},
	    {"_Zna" SZ, "_Zna" SZ "RKSt9nothrow_t", "_Zna" SZ "St11align_val_t",
	     "_Zna" SZ "St11align_val_tRKSt9nothrow_t"}};
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

typedef struct rec {
	size_t bytes;   /* what it stands for: its size, or the sampling interval */
	uint32_t stack; /* index in stacks, +1; 0: none */
	uint32_t tk;    /* test serial << 2 | kind */
} rec;

#define WAYS      8 /* records per set: one cache line of keys on x64 */
#define KEY_BUSY  1 /* a slot being written */
#define SERIAL(x) ((x)&0x3fffffffu)

static unsigned level;     /* 0 until mg_sites_init: pass everything through */
static int enabled;        /* level > 0, and not a forked copy */
static uint64_t min_bytes; /* a test leaving less sends no sites */
static uintptr_t *keys;    /* nsets * WAYS addresses; 0 free, KEY_BUSY being written */
static rec *recs;
static uint8_t *used; /* per set: its slots taken (a free's fast path: 0, none) */
static size_t nsets;
static uintptr_t (*stacks)[MG_SITES_DEPTH]; /* frames of each stack, 0-terminated */
static uint32_t *stack_hash;                /* 0 free, 1 being written, else hash | 2 */
static size_t nstacks;
static uint32_t serial;   /* the running test */
static int64_t test_live; /* bytes the running test's records stand for, still live */
static uint64_t nomem;    /* failed allocations since the test started */
static uint64_t dropped;  /* records that found no room (a full set) */
static char exe_path[4096];

/* The names of the last NAMES tests by serial, for `heldin` (the test that
 * allocated a block a later test's items hold): mapped at init, its pages
 * touched one test name at a time. */
#define NAMES     4096
typedef struct name_slot {
	uint32_t serial;
	char name[MG_SITES_PIN_TEXT / 2];
} name_slot;
static name_slot *names;

static __thread int t_busy MG_TLS;                  /* this thread is inside the interposer */
static __thread uintptr_t t_lo MG_TLS, t_hi MG_TLS; /* this thread's stack; 0: not known */
static __thread int64_t t_countdown MG_TLS;         /* bytes until the next sample */
static __thread uint32_t t_rand MG_TLS;

/* ---- stacks ---- */

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
		uintptr_t hi_ = t_hi;                                                              \
		if (hi_ == 0 || fp_ < t_lo || fp_ >= hi_)                                          \
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

static uint32_t hash_frames(const uintptr_t *f, unsigned n)
{
	uint64_t h = 1469598103934665603ull;
	for (unsigned i = 0; i < n; i++)
		h = (h ^ f[i]) * 1099511628211ull;
	return (uint32_t)(h ^ h >> 32);
}

/* The stack's index + 1, added when new; 0 when the table is full. */
static uint32_t stack_id(const uintptr_t *f, unsigned n)
{
	uint32_t h = hash_frames(f, n) | 2;
	for (size_t i = 0, at = h; i < 32; i++, at++) {
		size_t s = at & (nstacks - 1);
		uint32_t cur = __atomic_load_n(&stack_hash[s], __ATOMIC_ACQUIRE);
		if (cur == 0 && __atomic_compare_exchange_n(&stack_hash[s], &cur, 1, 0,
		                                            __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			memcpy(stacks[s], f, n * sizeof(uintptr_t));
			if (n < MG_SITES_DEPTH)
				stacks[s][n] = 0;
			__atomic_store_n(&stack_hash[s], h, __ATOMIC_RELEASE);
			return (uint32_t)s + 1;
		}
		if (cur == h && !memcmp(stacks[s], f, n * sizeof(uintptr_t)) &&
		    (n == MG_SITES_DEPTH || stacks[s][n] == 0))
			return (uint32_t)s + 1;
	}
	return 0;
}

/* ---- the table of live records ---- */

static size_t set_of(uintptr_t p)
{
	uint64_t h = (uint64_t)(p >> 4) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 32) & (nsets - 1);
}

static void record(uintptr_t p, size_t bytes, mg_site_kind kind, uint32_t stack)
{
	uintptr_t *k = keys + set_of(p) * WAYS;
	uint32_t s = __atomic_load_n(&serial, __ATOMIC_RELAXED);
	for (int w = 0; w < WAYS; w++) {
		uintptr_t cur = __atomic_load_n(&k[w], __ATOMIC_RELAXED);
		if (cur == p) { /* a record whose free was not seen: replaced */
			rec *r = &recs[(size_t)(k - keys) + (size_t)w];
			if (SERIAL(r->tk >> 2) == s)
				__atomic_fetch_sub(&test_live, (int64_t)r->bytes, __ATOMIC_RELAXED);
			r->bytes = bytes;
			r->stack = stack;
			r->tk = s << 2 | (uint32_t)kind;
			__atomic_fetch_add(&test_live, (int64_t)bytes, __ATOMIC_RELAXED);
			return;
		}
	}
	for (int w = 0; w < WAYS; w++) {
		uintptr_t zero = 0;
		if (__atomic_compare_exchange_n(&k[w], &zero, KEY_BUSY, 0, __ATOMIC_ACQ_REL,
		                                __ATOMIC_RELAXED)) {
			__atomic_fetch_add(&used[set_of(p)], 1, __ATOMIC_RELAXED);
			rec *r = &recs[(size_t)(k - keys) + (size_t)w];
			r->bytes = bytes;
			r->stack = stack;
			r->tk = s << 2 | (uint32_t)kind;
			__atomic_fetch_add(&test_live, (int64_t)bytes, __ATOMIC_RELAXED);
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
	size_t set = set_of(p);
	if (__atomic_load_n(&used[set], __ATOMIC_RELAXED) == 0)
		return 0; /* most frees: nothing recorded near p */
	uintptr_t *k = keys + set * WAYS;
	for (int w = 0; w < WAYS; w++) {
		uintptr_t cur = p;
		if (__atomic_load_n(&k[w], __ATOMIC_RELAXED) == p &&
		    __atomic_compare_exchange_n(&k[w], &cur, KEY_BUSY, 0, __ATOMIC_ACQ_REL,
		                                __ATOMIC_RELAXED)) {
			rec *r = &recs[(size_t)(k - keys) + (size_t)w];
			if (SERIAL(r->tk >> 2) == __atomic_load_n(&serial, __ATOMIC_RELAXED))
				__atomic_fetch_sub(&test_live, (int64_t)r->bytes, __ATOMIC_RELAXED);
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

#define TRACK(p, bytes, kind)                                                                      \
	do {                                                                                       \
		uintptr_t fr_[MG_SITES_DEPTH];                                                     \
		unsigned nf_;                                                                      \
		WALK(fr_, nf_);                                                                    \
		record((uintptr_t)(p), (bytes), (kind), stack_id(fr_, nf_));                       \
	} while (0)

static void failed(void)
{
	__atomic_fetch_add(&nomem, 1, __ATOMIC_RELAXED);
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
	if (!enabled || t_busy)
		return;
	if (fail) {
		if (nomem_)
			failed();
		return;
	}
	size_t w = kind == MG_SITE_MMAP ? n : weigh(n);
	if (w) {
		t_busy = 1;
		TRACK(p, w, kind);
		t_busy = 0;
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
	if (enabled)
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
	if (enabled && old)
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
	if (enabled) {
		rec r;
		if (forget((uintptr_t)p, &r) && len < r.bytes && (r.tk & 3) == MG_SITE_MMAP) {
			size_t cut = (len + 4095) & ~(size_t)4095;
			if (cut < r.bytes)
				record((uintptr_t)p + cut, r.bytes - cut, MG_SITE_MMAP, r.stack);
		}
	}
	return real_munmap(p, len);
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
	int r = enabled && forget((uintptr_t)old, &r0);
	uint32_t stack = r ? r0.stack : 0;
	void *p = real_mremap(old, old_len, len, flags, want);
	if (!enabled || t_busy)
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
		t_busy = 1;
		TRACK(p, len, MG_SITE_MMAP);
		t_busy = 0;
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
	t_busy = 0;
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
		if (!enabled || t_busy)                                                            \
			return f_ ? call : new_fallback(n, align, nothrow);                        \
		guard g_ __attribute__((cleanup(guard_end))) = {0};                                \
		t_busy = 1;                                                                        \
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
		if (enabled)                                                                       \
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
#define NSTARTS 64
static start starts[NSTARTS];

static void *thread_start(void *v)
{
	start *sp = v;
	start s = *sp;
	__atomic_store_n(&sp->taken, 0, __ATOMIC_RELEASE);
	t_hi = (uintptr_t)__builtin_frame_address(0);
	t_lo = t_hi > s.size ? t_hi - s.size : 0;
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

/* ---- the boundary ---- */

static void sites_atfork_child(void)
{
	enabled = 0; /* a forked copy (a death test) sends nothing */
}

static void *map_table(size_t bytes)
{
	void *p = real_mmap(NULL, bytes, PROT_READ | PROT_WRITE,
	                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void mg_sites_init(unsigned lvl, uint64_t min)
{
	if (lvl == MG_SITES_OFF || level)
		return;
	resolve();
	if (real_malloc == NULL || real_free == NULL || real_mmap == NULL)
		return; /* not interposed (a sanitizer's runtime defines these) */
	nsets = lvl == MG_SITES_ALL ? (1u << 17) : (1u << 12);
	nstacks = lvl == MG_SITES_ALL ? (1u << 14) : (1u << 12);
	keys = map_table(nsets * WAYS * sizeof(*keys));
	recs = map_table(nsets * WAYS * sizeof(*recs));
	used = map_table(nsets);
	stacks = map_table(nstacks * sizeof(*stacks));
	stack_hash = map_table(nstacks * sizeof(*stack_hash));
	names = map_table(NAMES * sizeof(*names)); /* none: held blocks name no test */
	if (!keys || !recs || !used || !stacks || !stack_hash)
		return;
	extern void *__libc_stack_end;
	struct rlimit rl;
	size_t size = 8u << 20;
	if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < (rlim_t)SIZE_MAX / 2)
		size = (size_t)rl.rlim_cur;
	t_hi = (uintptr_t)__libc_stack_end;
	t_lo = t_hi > size ? t_hi - size : 0;
	ssize_t n = readlink("/proc/self/exe", exe_path, sizeof(exe_path) - 1);
	exe_path[n > 0 ? n : 0] = '\0';
	pthread_atfork(NULL, NULL, sites_atfork_child);
	min_bytes = min ? min : MG_SITES_MIN;
	level = lvl;
	__atomic_store_n(&enabled, 1, __ATOMIC_RELEASE);
}

/* ---- pins: the items an allocator placed in its blocks (memguard_pin) ---- */

#define PIN_SETS 512 /* sets of WAYS slots, keyed by the item */

typedef struct pin {
	uintptr_t block;              /* as its allocator returned it */
	uint32_t seq;                 /* placement order: the first placed are sent */
	uint32_t serial;              /* the test that placed it */
	uint32_t stack;               /* where it was placed (memguard_pin's caller), +1; 0 none */
	char text[MG_SITES_PIN_TEXT]; /* "LABEL (TEST)", NUL-terminated */
} pin;

typedef struct pin_table {
	uintptr_t keys[PIN_SETS * WAYS]; /* the items; 0 free, KEY_BUSY being written */
	pin pins[PIN_SETS * WAYS];
} pin_table;

static pin_table *pin_tab; /* mapped at the first pin: a program that pins nothing pays nothing */
static uint32_t pin_seq;
static uint64_t pins_dropped;                 /* pins that found no room (a full set) */
static char test_name[MG_SITES_PIN_TEXT / 2]; /* the running test's, cut to fit */
static uint32_t test_pins;                    /* pins the running test placed, not yet unpinned */

static size_t pin_set(uintptr_t p)
{
	uint64_t h = (uint64_t)(p >> 3) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 32) & (PIN_SETS - 1);
}

static pin_table *pin_table_get(void)
{
	pin_table *t = __atomic_load_n(&pin_tab, __ATOMIC_ACQUIRE);
	if (t != NULL)
		return t;
	t = map_table(sizeof(*t));
	if (t == NULL)
		return NULL;
	pin_table *none = NULL;
	if (!__atomic_compare_exchange_n(&pin_tab, &none, t, 0, __ATOMIC_ACQ_REL,
	                                 __ATOMIC_ACQUIRE)) {
		real_munmap(t, sizeof(*t)); /* another thread mapped it first */
		return none;
	}
	return t;
}

/* Copies at most n bytes of s (up to its NUL) to dst at *at, leaving room
 * for the NUL within cap. */
static void pin_copy(char *dst, size_t *at, size_t cap, const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i] && *at + 1 < cap; i++)
		dst[(*at)++] = s[i];
}

/* "LABEL (TEST)": the label cut to half the text, the test's name to the rest;
 * no label: the item's address. */
static void pin_text(char *dst, const void *item, const char *label)
{
	size_t at = 0, cap = MG_SITES_PIN_TEXT;
	if (label != NULL && *label) {
		pin_copy(dst, &at, cap, label, cap / 2);
	} else {
		char hex[2 + 2 * sizeof(uintptr_t)];
		size_t n = sizeof(hex);
		uintptr_t v = (uintptr_t)item;
		do
			hex[--n] = "0123456789abcdef"[v & 15];
		while ((v >>= 4) != 0);
		hex[--n] = 'x';
		hex[--n] = '0';
		pin_copy(dst, &at, cap, "item at ", 8);
		pin_copy(dst, &at, cap, hex + n, sizeof(hex) - n);
	}
	if (test_name[0]) {
		pin_copy(dst, &at, cap - 1, " (", 2);
		pin_copy(dst, &at, cap - 1, test_name, sizeof(test_name));
		pin_copy(dst, &at, cap, ")", 1);
	}
	dst[at] = '\0';
}

void memguard_pin(const void *block, const void *item, const char *label)
{
	uintptr_t key = (uintptr_t)item;
	if (!__atomic_load_n(&enabled, __ATOMIC_ACQUIRE) || block == NULL || key <= KEY_BUSY)
		return;
	pin_table *t = pin_table_get();
	if (t == NULL)
		return;
	uintptr_t *k = t->keys + pin_set(key) * WAYS;
	int slot = -1, again;
	for (int w = 0; w < WAYS && slot < 0; w++) { /* pinned again: replaced */
		uintptr_t cur = key;
		if (__atomic_load_n(&k[w], __ATOMIC_RELAXED) == key &&
		    __atomic_compare_exchange_n(&k[w], &cur, KEY_BUSY, 0, __ATOMIC_ACQ_REL,
		                                __ATOMIC_RELAXED))
			slot = w;
	}
	again = slot >= 0;
	for (int w = 0; w < WAYS && slot < 0; w++) {
		uintptr_t zero = 0;
		if (__atomic_compare_exchange_n(&k[w], &zero, KEY_BUSY, 0, __ATOMIC_ACQ_REL,
		                                __ATOMIC_RELAXED))
			slot = w;
	}
	if (slot < 0) {
		__atomic_fetch_add(&pins_dropped, 1, __ATOMIC_RELAXED);
		return;
	}
	pin *p = &t->pins[(size_t)(k - t->keys) + (size_t)slot];
	uint32_t s = __atomic_load_n(&serial, __ATOMIC_RELAXED);
	if (again && p->serial == s) /* replaced: counted once */
		__atomic_fetch_sub(&test_pins, 1, __ATOMIC_RELAXED);
	uintptr_t fr[MG_SITES_DEPTH];
	unsigned nf;
	int was = t_busy;
	t_busy = 1;
	WALK(fr, nf);
	p->stack = stack_id(fr, nf);
	t_busy = was;
	p->block = (uintptr_t)block;
	p->serial = s;
	p->seq = __atomic_fetch_add(&pin_seq, 1, __ATOMIC_RELAXED);
	pin_text(p->text, item, label);
	__atomic_fetch_add(&test_pins, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&k[slot], key, __ATOMIC_RELEASE);
}

void memguard_unpin(const void *block, const void *item)
{
	uintptr_t key = (uintptr_t)item;
	if (!__atomic_load_n(&enabled, __ATOMIC_ACQUIRE) || key <= KEY_BUSY)
		return;
	pin_table *t = __atomic_load_n(&pin_tab, __ATOMIC_ACQUIRE);
	if (t == NULL)
		return;
	uintptr_t *k = t->keys + pin_set(key) * WAYS;
	for (int w = 0; w < WAYS; w++) {
		uintptr_t cur = key;
		if (__atomic_load_n(&k[w], __ATOMIC_RELAXED) == key &&
		    __atomic_compare_exchange_n(&k[w], &cur, KEY_BUSY, 0, __ATOMIC_ACQ_REL,
		                                __ATOMIC_RELAXED)) {
			pin *p = &t->pins[(size_t)(k - t->keys) + (size_t)w];
			/* the item's pin in another block stays: its address was reused there */
			int mine = p->block == (uintptr_t)block;
			if (mine && p->serial == __atomic_load_n(&serial, __ATOMIC_RELAXED))
				__atomic_fetch_sub(&test_pins, 1, __ATOMIC_RELAXED);
			__atomic_store_n(&k[w], mine ? 0 : key, __ATOMIC_RELEASE);
			return;
		}
	}
}

void mg_sites_test_start(const char *name, size_t len)
{
	if (!enabled)
		return;
	size_t n = len < sizeof(test_name) - 1 ? len : sizeof(test_name) - 1;
	if (name == NULL)
		n = 0;
	memcpy(test_name, name ? name : "", n);
	test_name[n] = '\0';
	uint32_t s = SERIAL(serial + 1);
	if (names != NULL) {
		name_slot *ns = &names[s & (NAMES - 1)];
		ns->serial = s;
		memcpy(ns->name, test_name, n + 1);
	}
	__atomic_store_n(&serial, s, __ATOMIC_RELAXED);
	__atomic_store_n(&test_pins, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&test_live, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&nomem, 0, __ATOMIC_RELAXED);
}

uint64_t mg_sites_nomem(void)
{
	return __atomic_load_n(&nomem, __ATOMIC_RELAXED);
}

/* A group: the test's records of one stack. */
typedef struct group {
	uint32_t stack; /* index + 1 */
	uint32_t kind;
	uint64_t bytes, count;
} group;

#define NGROUPS 512
static group groups[NGROUPS]; /* mg_sites_put's, the boundary's only */

/* The modules of the frames being sent (dl_iterate_phdr's callback). */
typedef struct modscan {
	uintptr_t *addr; /* the frames, in order */
	int *module;     /* their module's ID, -1 none yet */
	uintptr_t *base; /* their module's load bias */
	size_t n;
	char *dst; /* the module lines */
	size_t cap, len;
	uint32_t nmods;
} modscan;

/* The GNU build-id of a loaded object, from its PT_NOTE segments in memory:
 * its length (hex digits written at hex), 0 when it has none. */
static size_t build_id(const struct dl_phdr_info *info, char *hex)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		const char *end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)(const void *)p;
			const char *name = p + sizeof(*nh);
			const unsigned char *desc =
			    (const unsigned char *)name + ((nh->n_namesz + 3) & ~3u);
			if ((const char *)desc + nh->n_descsz > end)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(name, "GNU", 4) && nh->n_descsz * 2 <= MG_PROTO_BUILD_ID_MAX) {
				for (size_t b = 0; b < nh->n_descsz; b++) {
					hex[2 * b] = "0123456789abcdef"[desc[b] >> 4];
					hex[2 * b + 1] = "0123456789abcdef"[desc[b] & 15];
				}
				return nh->n_descsz * 2;
			}
			p = (const char *)desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
	return 0;
}

static int modscan_one(struct dl_phdr_info *info, size_t size, void *v)
{
	(void)size;
	modscan *m = v;
	int id = -1;
	for (size_t f = 0; f < m->n; f++) {
		if (m->module[f] >= 0)
			continue;
		uintptr_t a = m->addr[f];
		for (int i = 0; i < info->dlpi_phnum; i++) {
			const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
			uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
			if (ph->p_type != PT_LOAD || a < lo || a - lo >= ph->p_memsz)
				continue;
			if (id < 0) {
				char hex[MG_PROTO_BUILD_ID_MAX];
				const char *path = info->dlpi_name && *info->dlpi_name
				                       ? info->dlpi_name
				                       : exe_path;
				mg_msg mm = {.kind = MG_MSG_MODULE,
				             .count = m->nmods,
				             .text = path,
				             .text_len = strlen(path),
				             .build_id = hex};
				mm.build_id_len = build_id(info, hex);
				size_t need = mg_proto_put(NULL, 0, &mm);
				if (mm.text_len == 0 || m->len + need > m->cap)
					return 0; /* no room or no name: its frames are left out */
				mg_proto_put(m->dst + m->len, need, &mm);
				m->len += need;
				id = (int)m->nmods++;
			}
			m->module[f] = id;
			m->base[f] = info->dlpi_addr;
			break;
		}
	}
	return 0;
}

/* The record of the allocation at p, NULL when none is. */
static const rec *rec_at(uintptr_t p)
{
	uintptr_t *k = keys + set_of(p) * WAYS;
	for (int w = 0; w < WAYS; w++)
		if (__atomic_load_n(&k[w], __ATOMIC_ACQUIRE) == p)
			return &recs[(size_t)(k - keys) + (size_t)w];
	return NULL;
}

#define PIN_NONE 0xff
#define PIN_HELD 0x80 /* pin_group: held block h is PIN_HELD + h */
static uint8_t pin_group[PIN_SETS * WAYS]; /* each pin's group being sent, PIN_NONE */

/* A block an earlier test allocated that live items the running test
 * placed in it hold (what keeps it mapped): sent as `held`. */
typedef struct held {
	uintptr_t block;
	uint64_t bytes;     /* the block's record: its size, */
	uint32_t stack, tk; /* stack, test and kind */
	uint32_t items;     /* the test's live items in it */
	uint32_t seq, by;   /* the first placed: its order and stack */
} held;
static held helds[MG_SITES_TOP];

/*
 * Which of the first nsites groups (of test s) each live pin's block is a
 * record of; and the blocks of earlier tests that test s's live pins hold
 * (at most MG_SITES_TOP, in helds): their number. A pin of an earlier test
 * in an earlier test's block is neither.
 */
static size_t pins_group(uint32_t s, size_t nsites)
{
	pin_table *t = __atomic_load_n(&pin_tab, __ATOMIC_ACQUIRE);
	if (t == NULL)
		return 0;
	size_t nh = 0;
	for (size_t i = 0; i < PIN_SETS * WAYS; i++) {
		pin_group[i] = PIN_NONE;
		if (__atomic_load_n(&t->keys[i], __ATOMIC_ACQUIRE) <= KEY_BUSY)
			continue;
		const pin *p = &t->pins[i];
		if (nsites == 0 && p->serial != s)
			continue;
		size_t h = 0;
		while (h < nh && helds[h].block != p->block)
			h++;
		if (h == nh) {
			const rec *r = rec_at(p->block);
			if (r == NULL)
				continue;
			if (SERIAL(r->tk >> 2) == s) { /* a block of the test's own sites */
				for (size_t g = 0; g < nsites; g++)
					if (groups[g].stack == r->stack &&
					    groups[g].kind == (r->tk & 3))
						pin_group[i] = (uint8_t)g;
				continue;
			}
			if (p->serial != s || nh == MG_SITES_TOP)
				continue;
			helds[nh++] = (held){p->block, r->bytes, r->stack, r->tk, 0, UINT32_MAX, 0};
		}
		helds[h].items++;
		if (p->seq < helds[h].seq) {
			helds[h].seq = p->seq;
			helds[h].by = p->stack;
		}
		pin_group[i] = (uint8_t)(PIN_HELD + h);
	}
	return nh;
}

/* The `pin` lines of group g (a site's index, PIN_HELD + a held block's),
 * the MG_PROTO_PINS_MAX placed first, at dst: their length (those that do
 * not fit in cap left out whole). */
static size_t pins_put(size_t g, char *dst, size_t cap)
{
	pin_table *t = __atomic_load_n(&pin_tab, __ATOMIC_ACQUIRE);
	if (t == NULL)
		return 0;
	size_t first[MG_PROTO_PINS_MAX], n = 0;
	for (size_t i = 0; i < PIN_SETS * WAYS; i++) {
		if (pin_group[i] != g || __atomic_load_n(&t->keys[i], __ATOMIC_ACQUIRE) <= KEY_BUSY)
			continue;
		uint32_t seq = t->pins[i].seq;
		if (n == MG_PROTO_PINS_MAX && seq >= t->pins[first[n - 1]].seq)
			continue;
		size_t j = n < MG_PROTO_PINS_MAX ? n++ : n - 1; /* insertion, by seq */
		for (; j > 0 && t->pins[first[j - 1]].seq > seq; j--)
			first[j] = first[j - 1];
		first[j] = i;
	}
	size_t len = 0;
	for (size_t j = 0; j < n; j++) {
		const char *text = t->pins[first[j]].text;
		mg_msg pm = {.kind = MG_MSG_PIN, .text = text, .text_len = strlen(text)};
		size_t need = mg_proto_put(NULL, 0, &pm);
		if (pm.text_len == 0 || len + need > cap)
			break;
		mg_proto_put(dst + len, need, &pm);
		len += need;
	}
	return len;
}

static void sort_groups(group *g, size_t n)
{
	for (size_t i = 1; i < n; i++) /* insertion: n is small */
		for (size_t j = i; j > 0 && g[j].bytes > g[j - 1].bytes; j--) {
			group t = g[j];
			g[j] = g[j - 1];
			g[j - 1] = t;
		}
}

#define NFRAMES (MG_SITES_TOP * 3 * MG_SITES_DEPTH) /* the sites'; held blocks' and items' */
static uintptr_t fr_addr[NFRAMES], fr_base[NFRAMES];
static int fr_module[NFRAMES];

/* The frames of stack id (+1; 0: none) appended to fr_addr at *nf. */
static void frames_take(uint32_t id, size_t *nf)
{
	for (size_t d = 0; id && d < MG_SITES_DEPTH && stacks[id - 1][d]; d++)
		fr_addr[(*nf)++] = stacks[id - 1][d];
}

/* The frames of stack id from fr_addr at *f0 (moved past them) whose module
 * is known, at out: their number. */
static size_t frames_give(uint32_t id, size_t *f0, mg_frame *out)
{
	size_t n = 0;
	for (size_t d = 0; id && d < MG_SITES_DEPTH && stacks[id - 1][d]; d++, (*f0)++)
		if (fr_module[*f0] >= 0)
			out[n++] =
			    (mg_frame){(uint32_t)fr_module[*f0], fr_addr[*f0] - fr_base[*f0]};
	return n;
}

/* The line m at dst + *len when it fits in cap: 1, else 0. */
static int line_put(char *dst, size_t cap, size_t *len, const mg_msg *m)
{
	size_t need = mg_proto_put(NULL, 0, m);
	if (*len + need > cap)
		return 0;
	mg_proto_put(dst + *len, need, m);
	*len += need;
	return 1;
}

/* The `held`, `heldin`, `heldby` and `pin` lines of the nh held blocks. */
static void held_put(size_t nh, size_t *f0, char *dst, size_t cap, size_t *len)
{
	static mg_frame frames[MG_SITES_DEPTH], by[MG_SITES_DEPTH];
	for (size_t h = 0; h < nh; h++) {
		const held *b = &helds[h];
		size_t n = frames_give(b->stack, f0, frames);
		size_t nb = frames_give(b->by, f0, by);
		mg_msg hm = {.kind = MG_MSG_HELD,
		             .bytes = b->bytes,
		             .count = b->items,
		             .site_kind = (mg_site_kind)(b->tk & 3),
		             .frames = frames,
		             .nframes = n};
		if (n == 0 || !line_put(dst, cap, len, &hm))
			continue;
		uint32_t bs = SERIAL(b->tk >> 2);
		const name_slot *ns = names ? &names[bs & (NAMES - 1)] : NULL;
		if (bs && ns && ns->serial == bs && ns->name[0]) {
			mg_msg im = {
			    .kind = MG_MSG_HELDIN, .text = ns->name, .text_len = strlen(ns->name)};
			line_put(dst, cap, len, &im);
		}
		if (nb) {
			mg_msg bm = {.kind = MG_MSG_HELDBY, .frames = by, .nframes = nb};
			line_put(dst, cap, len, &bm);
		}
		*len += pins_put(PIN_HELD + h, dst + *len, cap - *len);
	}
}

size_t mg_sites_put(char *dst, size_t cap)
{
	static mg_frame frames[MG_SITES_DEPTH];
	if (!enabled)
		return 0;
	int want_sites = __atomic_load_n(&test_live, __ATOMIC_RELAXED) >= (int64_t)min_bytes;
	if (!want_sites && __atomic_load_n(&test_pins, __ATOMIC_RELAXED) == 0)
		return 0; /* nothing left, nothing held: most tests */
	int was = t_busy;
	t_busy = 1; /* dl_iterate_phdr may take the loader's lock: nothing of ours inside */
	uint32_t s = __atomic_load_n(&serial, __ATOMIC_RELAXED);
	size_t ng = 0, nslots = nsets * WAYS;
	for (size_t i = 0; want_sites && i < nslots; i++) {
		uintptr_t k = __atomic_load_n(&keys[i], __ATOMIC_ACQUIRE);
		if (k <= KEY_BUSY || SERIAL(recs[i].tk >> 2) != s)
			continue;
		uint32_t st = recs[i].stack, kind = recs[i].tk & 3;
		size_t g;
		for (g = 0; g < ng; g++)
			if (groups[g].stack == st && groups[g].kind == kind)
				break;
		if (g == ng) {
			if (ng == NGROUPS)
				continue;
			groups[ng++] = (group){st, kind, 0, 0};
		}
		groups[g].bytes += recs[i].bytes;
		groups[g].count++;
	}
	sort_groups(groups, ng);
	size_t nsites = 0, nf = 0;
	for (size_t g = 0; g < ng && nsites < MG_SITES_TOP; g++) {
		if (groups[g].stack == 0)
			continue;
		frames_take(groups[g].stack, &nf);
		groups[nsites++] = groups[g];
	}
	size_t nh = pins_group(s, nsites);
	for (size_t h = 0; h < nh; h++) {
		frames_take(helds[h].stack, &nf);
		frames_take(helds[h].by, &nf);
	}
	for (size_t f = 0; f < nf; f++)
		fr_module[f] = -1;
	modscan m = {fr_addr, fr_module, fr_base, nf, dst, cap, 0, 0};
	if (nf)
		dl_iterate_phdr(modscan_one, &m);
	size_t len = m.len, f0 = 0;
	int full = 0;
	for (size_t g = 0; g < nsites && !full; g++) {
		size_t n = frames_give(groups[g].stack, &f0, frames);
		mg_msg sm = {.kind = MG_MSG_SITE,
		             .bytes = groups[g].bytes,
		             .count = groups[g].count,
		             .site_kind = (mg_site_kind)groups[g].kind,
		             .frames = frames,
		             .nframes = n};
		if (n == 0)
			continue;
		full = !line_put(dst, cap, &len, &sm);
		if (!full)
			len += pins_put(g, dst + len, cap - len);
	}
	if (!full)
		held_put(nh, &f0, dst, cap, &len);
	t_busy = was;
	return len;
}

#endif /* MG_SITES_NONE */

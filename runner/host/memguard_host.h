/*
 * memguard_host.h - make a test program a memguard host with one call.
 * libc only; builds for x86 (-m32) and x64. Started by memguard (the env has
 * MEMGUARD_HOST), the program serves the memguard protocol (v2) on fds 3/4; started
 * directly, it runs its tests itself and exits non-zero on a failure.
 */
#ifndef MEMGUARD_HOST_H
#define MEMGUARD_HOST_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mg_result {
	MG_PASS = 0,
	MG_FAIL = 1,
	MG_SKIP = 2,
} mg_result;

typedef mg_result (*mg_test_fn)(void);

typedef struct mg_test {
	const char *name; /* "suite/test" */
	mg_test_fn fn;
} mg_test;

/* Sets the message reported with the current test's fail or skip (copied,
 * bounded). Call from inside a test before returning MG_FAIL or MG_SKIP. */
void mg_message(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The one call. In host mode serves list/run/quit until told to quit or the
 * soft limit is crossed, then returns 0 (the caller returns it from main).
 * Standalone: with no arguments runs every test in order and prints one line
 * per test and a summary; "--list" prints the names; names as arguments run
 * only those. Returns 0 when all ran passed or skipped, 1 otherwise.
 */
int mg_host_main(const mg_test *tests, size_t count, int argc, char **argv);

/*
 * The general form, for bindings whose tests are not a static array (the
 * CUnit binding). name(i) returns test i's name; run(i, msg, cap) runs it and
 * may write a NUL-terminated message into msg.
 */
typedef struct mg_host_ops {
	size_t (*count)(void *ctx);
	const char *(*name)(void *ctx, size_t i);
	mg_result (*run)(void *ctx, size_t i, char *msg, size_t cap);
} mg_host_ops;

int mg_host_serve(const mg_host_ops *ops, void *ctx, int argc, char **argv);

/*
 * For a host that serves the protocol itself (memguard's pytest plugin,
 * through ctypes): at a fatal signal whose disposition is still the
 * default (SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL), write
 * "dying SIG VA RSS PEAKVA" to reply_fd (PROTOCOL.md 7a), VA and RSS from
 * the kept-open /proc/self/statm statm_fd, then die of the same signal.
 * mg_host_main does this itself.
 */
void mg_host_dying(int reply_fd, int statm_fd);

/*
 * Pinning, for an allocator that packs items into blocks (a bump allocator's
 * 8 MiB mappings): say which item it placed in which block, and when the
 * item is freed, so that a block a test left behind names the live items
 * that pin it in memguard's report ("pinned by: item 17 (Cache/3)").
 * block: the block's address as malloc, mmap or new returned it (the
 * allocation memguard recorded); item: the item's address; label: what the
 * report calls it (copied, cut to 64 bytes; NULL: its address), followed by
 * the name of the test running when it was placed. Pinning an item again
 * moves it. memguard_unpin removes the item's pin in that block.
 * Thread-safe, lock-free, no allocation; no-ops (a load and a branch) unless
 * memguard runs the program with allocation sites on (--sites default or
 * all). At most 4,096 items are pinned at a time, 8 per hash set (more are
 * not named); at most 16 per block are sent, the first placed.
 */
void memguard_pin(const void *block, const void *item, const char *label);
void memguard_unpin(const void *block, const void *item);

/* The marker embedded in every binary that links this library, so
 * "memguard run --driver auto" can tell a host without running it. */
#define MG_HOST_MARKER "memguard-host-protocol-v1"

#ifdef __cplusplus
}
#endif

#endif

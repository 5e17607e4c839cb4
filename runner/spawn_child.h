/*
 * spawn_child.h - the child's side of runner/spawn.c: what a forked (or
 * vforked, or cloned) child does before its exec, and the spawner's loop,
 * which clones children on request. Shared by spawn.c and by
 * memguard-spawner (spawner_main.c), a small libc-only executable that is
 * never sanitized: the memory a child copies from it before its exec is
 * what the kernel counts in the child's ru_maxrss besides its own.
 * Internal to runner/.
 */
#ifndef MG_SPAWN_CHILD_H
#define MG_SPAWN_CHILD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "spawn.h"

/* The child's end of each fd it gets, and where: fds[i] becomes targets[i]
 * (up to six of spawn_options', and stdin, stdout, stderr from the spawner). */
#define CHILD_FDS_MAX 9
typedef struct child_fds {
	int fds[CHILD_FDS_MAX], targets[CHILD_FDS_MAX];
	int n;
	int cwd; /* the spawner's child: enters this directory first; -1: stays */
} child_fds;

/*
 * One request: this header, carrying the fds (SCM_RIGHTS: the status
 * pipe's end, our working directory, then the child's nfds in order), then
 * len bytes: path, argv's argc strings, envp's envc strings, each ending
 * in a NUL. The reply: a spawner_reply.
 */
typedef struct spawner_req {
	unsigned flags;
	int pdeathsig;
	uint64_t as_limit;
	pid_t parent;
	int nfds;
	int targets[CHILD_FDS_MAX];
	uint32_t argc, envc;
	uint64_t len;
} spawner_req;

typedef struct spawner_reply {
	pid_t pid; /* -1: clone failed with err */
	int err;
} spawner_reply;

#define SPAWNER_FDS      (2 + CHILD_FDS_MAX)
#define SPAWNER_SOCK_MIN 10

/*
 * The child: async-signal-safe calls only (it may share its parent's
 * memory). Enters cf->cwd, its own group (SPAWN_OWN_GROUP), enter() when
 * given (contain_child_enter), the parent-death signal, the RLIMIT_AS; sets
 * every signal to its default and unblocks them; moves its fds to their
 * targets, closes the rest but the status pipe, and execs. A failure is
 * written on status_w (errno; execve's negated) before _exit(127).
 */
void spawn_child_exec(const char *path, char *const argv[], const spawn_options *o, child_fds *cf,
                      int status_w, pid_t parent, void (*enter)(void)) __attribute__((noreturn));

/* All n bytes over the spawner's socket, either way (no SIGPIPE). -1 when
 * the peer has gone. */
int spawn_child_io(int fd, void *p, size_t n, int writing);

/*
 * The spawner's loop on sock (its parent, parent, asks): each request
 * becomes a child cloned with CLONE_PARENT, so it is the parent's child,
 * which waits for it and reads its rusage, running spawn_child_exec; the
 * reply is its pid. Leaves (_exit 0) when the parent does or the socket
 * ends. Blocks every signal; keeps no fd but sock (0-2: /dev/null).
 */
void spawn_child_spawner(int sock, pid_t parent) __attribute__((noreturn));

#endif

/*
 * spawn.h - starting a host process: fork + exec with the protocol pipes on
 * fds 3/4, stdout/stderr captured, stdin from /dev/null, its own process
 * group and a parent-death signal. Follows git's run-command: a close-on-exec
 * status pipe tells whether exec worked; the child only makes
 * async-signal-safe calls and leaves with _exit.
 */
#ifndef MG_SPAWN_H
#define MG_SPAWN_H

#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "mg_err.h"

/* Opaque: owns the pid (until reaped) and the parent's ends of four pipes. */
typedef struct spawn_proc spawn_proc;

/*
 * Starts path with argv and envp (both NULL-terminated; envp complete).
 * as_limit, when not 0, becomes the child's RLIMIT_AS (an address-space
 * ceiling, e.g. 4 GiB to make a 64-bit build fail like a 32-bit one).
 * Call only from the main thread (PR_SET_PDEATHSIG fires when the forking
 * thread exits). On success the parent ends are non-blocking and
 * close-on-exec. On failure nothing is left open or running, and err says
 * why (exec's errno included): MG_ENOTFOUND when exec failed with ENOENT or
 * EACCES, MG_ERROR otherwise.
 */
int spawn_start(spawn_proc **out, const char *path, char *const argv[], char *const envp[],
                uint64_t as_limit, mg_err *err);

pid_t spawn_pid(const spawn_proc *p);
int spawn_cmd_fd(const spawn_proc *p);   /* write: runner -> host, -1 once closed */
int spawn_reply_fd(const spawn_proc *p); /* read: host -> runner */
int spawn_out_fd(const spawn_proc *p);   /* read: the host's stdout */
int spawn_err_fd(const spawn_proc *p);   /* read: the host's stderr */

/* Closes one of the parent's ends (they are set to -1). */
void spawn_close_cmd(spawn_proc *p);
void spawn_close_reply(spawn_proc *p);
void spawn_close_out(spawn_proc *p);
void spawn_close_err(spawn_proc *p);

/* Signals the host's whole process group. No-op once reaped. */
void spawn_signal(spawn_proc *p, int sig);

/*
 * waitpid on this pid only. Returns 1 and fills status/usage once it has
 * exited (reaped: the pid is forgotten), 0 if still running (nohang), or
 * MG_ERROR. After reaping, the group is sent SIGKILL so nothing it left in
 * its group survives it.
 */
int spawn_wait(spawn_proc *p, int nohang, int *status, struct rusage *usage);

/* 1 once reaped. */
int spawn_reaped(const spawn_proc *p);

/* Closes the parent's fds. If the process was not reaped, its group is
 * killed and it is reaped (blocking): _free never leaves a zombie or an
 * orphan. NULL is a no-op. */
void spawn_free(spawn_proc *p);

/* Resolves a command name like execvp would (PATH search when it has no
 * slash) into buf. MG_ENOTFOUND naming the command when nothing runnable. */
int spawn_resolve(char *buf, size_t size, const char *cmd, mg_err *err);

#endif

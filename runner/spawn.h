/*
 * spawn.h - starting a child: fork + exec, for a host (protocol pipes on
 * fds 3/4, stdout/stderr captured, stdin from /dev/null, its own process
 * group, a parent-death signal), a driver's program or bisect's run alike. Follows git's
 * run-command: a close-on-exec status pipe tells whether exec worked; the child only makes
 * async-signal-safe calls and leaves with _exit.
 */
#ifndef MG_SPAWN_H
#define MG_SPAWN_H

#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "mg_err.h"
#include "mg_exit.h"

/* Opaque: owns the pid (until reaped) and the parent's ends of four pipes. */
typedef struct spawn_proc spawn_proc;

/*
 * Opaque: a small fork of ours (its socket and pid) that starts children
 * for us (spawn_options.spawner). A child's memory at its exec is a copy of
 * its forker's, and the kernel keeps that copy's peak RSS in the child's
 * ru_maxrss (exec records the old memory's high-water mark): a child forked
 * by the spawner, made while we were small, has a copy of that small
 * process's, not of ours as we grew. It is still our child (clone with
 * CLONE_PARENT): we wait for it and read its rusage as for one we forked.
 */
typedef struct spawn_spawner spawn_spawner;

/* What the child gets (flags of spawn_options). */
enum {
	SPAWN_PROTOCOL = 1 << 0,    /* command and reply pipes on fds 3 and 4 */
	SPAWN_CAPTURE_OUT = 1 << 1, /* stdout into a pipe (spawn_out_fd) */
	SPAWN_CAPTURE_ERR = 1 << 2, /* stderr into a pipe (spawn_err_fd) */
	SPAWN_OWN_GROUP = 1 << 3,   /* its own process group, signalled as a group */
	SPAWN_NULL_STDIN = 1 << 4,  /* stdin from /dev/null (else inherited) */
	/* fork, not vfork: the child's ru_maxrss is then its own and what it
	 * copied of ours (an exec records the old memory's peak there, and a
	 * vfork's old memory is all of ours): for a caller that reads it */
	SPAWN_FORK = 1 << 5,
	/* with SPAWN_CAPTURE_OUT and not _ERR: stderr into the same pipe, one
	 * stream in the order written (as ctest reads a test's output) */
	SPAWN_ERR_TO_OUT = 1 << 6,
};

/*
 * How to start a child, libgit2 style: declare with SPAWN_OPTIONS_INIT (a
 * host: protocol pipes, both streams captured, its own group, stdin from
 * /dev/null, SIGKILL when we die) and change what differs.
 */
typedef struct spawn_options {
	unsigned flags;
	char *const *envp; /* complete environment; NULL: ours */
	uint64_t as_limit; /* its RLIMIT_AS when not 0 (a 64-bit build failing like a 32-bit one) */
	int stdout_fd;     /* not captured: this fd becomes its stdout; -1: ours */
	int stderr_fd;     /* likewise for stderr */
	int pdeathsig;     /* sent to it when we die (PR_SET_PDEATHSIG); 0: none */
	int extra_fd;      /* one more fd the child gets (the caller keeps it); -1: none */
	int extra_target;  /* ... as this fd number (above 2; not 3/4 with SPAWN_PROTOCOL) */
	int extra_fd2;     /* a second one (the gtest shim's quit word); -1: none */
	int extra_target2; /* ... as this fd number */
	/* started by this spawner (spawn_spawner_new) rather than by a fork of
	 * ours: it starts in our working directory, with our stdin, stdout and
	 * stderr as they are now; NULL (SPAWN_OPTIONS_INIT): fork or vfork here */
	spawn_spawner *spawner;
} spawn_options;

#define SPAWN_OPTIONS_INIT                                                                         \
	{                                                                                          \
		SPAWN_PROTOCOL | SPAWN_CAPTURE_OUT | SPAWN_CAPTURE_ERR | SPAWN_OWN_GROUP |         \
		    SPAWN_NULL_STDIN,                                                              \
		    NULL, 0, -1, -1, SIGKILL, -1, -1, -1, -1, NULL                                 \
	}

/*
 * Starts path (no PATH search: see spawn_resolve) with argv (NULL-
 * terminated). Returns once exec has happened, so the first sample sees the
 * program, not a copy of us. Every fd of ours above 2 is closed in the
 * child but its pipes (and stdout_fd/stderr_fd/extra_fd/extra_fd2, which the caller keeps).
 * With a pdeathsig, call only from the main thread (PR_SET_PDEATHSIG fires
 * when the forking thread exits). On success the parent ends are
 * non-blocking and close-on-exec. On failure nothing is left open or
 * running, and err says why (exec's errno included): MG_ENOTFOUND when exec
 * failed with ENOENT or EACCES, MG_ERROR otherwise.
 */
int spawn_start(spawn_proc **out, const char *path, char *const argv[], const spawn_options *opts,
                mg_err *err);

/*
 * Forks the spawner, which execs memguard-spawner (spawn_spawner_path; a
 * libc-only executable, never sanitized: a few pages) when it is there, else
 * stays a fork of ours: call early, while we are small (what it holds is
 * what every child it starts copies). Our end of its socket is an fd of 10 or
 * more (never one a protocol numbers); it holds no fd of ours but its own
 * end (stdin, stdout and stderr are /dev/null), blocks every signal, and
 * leaves when we do (parent-death SIGKILL, or its socket's end). Call from
 * the main thread, before any other thread exists; it is our child, so a
 * wait for any child of ours may reap it (a spawn through it then falls
 * back to a fork of ours). MG_ERROR when it cannot be made.
 */
int spawn_spawner_new(spawn_spawner **out, mg_err *err);

/* memguard-spawner's path beside the executable beside (NULL: ours) into
 * buf: 0 when it is there and executable, else -1. Its processes (the
 * spawner) are memguard's own, never a test's (tree_ours). */
int spawn_spawner_path(char *buf, size_t size, const char *beside);

/* Ends the spawner (closes its socket, kills and reaps it). NULL is a no-op. */
void spawn_spawner_free(spawn_spawner *sp);

/* The child's pid, for signals and waits; spawn_proc_pid: the same as /proc
 * names it, for readings (they differ inside a contained run's host). Both
 * -1 once reaped. */
pid_t spawn_pid(const spawn_proc *p);
pid_t spawn_proc_pid(const spawn_proc *p);
int spawn_cmd_fd(const spawn_proc *p);   /* write: runner -> host, -1 once closed */
int spawn_reply_fd(const spawn_proc *p); /* read: host -> runner */
int spawn_out_fd(const spawn_proc *p);   /* read: the host's stdout */
int spawn_err_fd(const spawn_proc *p);   /* read: the host's stderr */

/* A child's whole output: reads fd (made blocking) to its end into *out
 * (malloc'ed, NUL-terminated after *len bytes). -1 when memory ran out:
 * what fit is in *out (or it is NULL), the rest is read and dropped, so
 * the child is never left blocked on a full pipe. */
int spawn_read_all(int fd, char **out, size_t *len);

/* Closes one of the parent's ends (they are set to -1). */
void spawn_close_cmd(spawn_proc *p);
void spawn_close_reply(spawn_proc *p);
void spawn_close_out(spawn_proc *p);
void spawn_close_err(spawn_proc *p);

/* Signals the child (its whole group with SPAWN_OWN_GROUP). No-op once reaped. */
void spawn_signal(spawn_proc *p, int sig);

/*
 * waitpid on this pid only. Returns 1 and fills end (how it ended, decoded
 * here) and usage once it has exited (reaped: the pid is forgotten), 0 if
 * still running (nohang), or MG_ERROR. end and usage may be NULL. After reaping, its own group
 * (SPAWN_OWN_GROUP) is sent SIGKILL so nothing it left in its group survives it.
 */
int spawn_wait(spawn_proc *p, int nohang, mg_exit_end *end, struct rusage *usage);

/* 1 once reaped. */
int spawn_reaped(const spawn_proc *p);

/* Closes the parent's fds. If the process was not reaped, it (and its own
 * group) is killed and reaped (blocking): _free never leaves a zombie or an
 * orphan. NULL is a no-op. */
void spawn_free(spawn_proc *p);

/* Hands the child over to a caller that reaps it itself (a subreaper
 * waiting on every pid): returns its pid, *out_fd its captured stdout (or
 * -1), and frees p without killing or waiting. The other ends are closed. */
pid_t spawn_release(spawn_proc *p, int *out_fd);

/* Resolves a command name like execvp would (PATH search when it has no
 * slash) into buf. MG_ENOTFOUND naming the command when nothing runnable. */
int spawn_resolve(char *buf, size_t size, const char *cmd, mg_err *err);

/* Whether the kernel would execute path (resolved), checked as execve does
 * without running it: an ELF file, or a "#!" line whose interpreter exists
 * and is executable. MG_ENOTFOUND with the kernel's reason otherwise
 * ("Exec format error: neither an ELF executable nor a #! script", "its
 * interpreter '/usr/bin/python9' (#! line): No such file or directory").
 * One read of 256 bytes; a race with a file changed meanwhile is execve's
 * to report. */
int spawn_check_exec(const char *path, mg_err *err);

/* "SIGSEGV", "SIGUSR1", ... or "signal N" for a number without a name:
 * the one way memguard names a signal. Not reentrant (a static buffer). */
const char *spawn_signal_name(int sig);

/*
 * Our environment without the variables whose names start with prefix
 * ("MEMGUARD_": the protocol's, which a child must get fresh or not at
 * all), as a malloc'd NULL-terminated array of pointers into environ with
 * room for extra more entries; *n is how many it holds. NULL when out of
 * memory.
 */
char **spawn_env_without(const char *prefix, size_t extra, size_t *n);

#endif

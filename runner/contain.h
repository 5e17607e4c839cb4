/*
 * contain.h - no process of a run outlives it (issue: reliability).
 *
 * Where the kernel allows, every process the runner starts after
 * contain_start lives in a PID namespace of its own, whose init is a small
 * fork of the runner that dies with it (parent-death signal, and a pipe only
 * the runner holds): when a namespace's init dies the kernel kills every
 * process in it, so even a runner killed by SIGKILL leaves no survivor. The
 * runner keeps seeing its hosts by the pids /proc knows (fork's).
 * Without root the process started stays as a reaper, the parent of the
 * runner: whatever the runner leaves when it ends (SIGKILL too) comes to
 * it, and it ends it all (contain.c's reaper_start). A user namespace (the
 * caller's uid and gid mapped to themselves) only when asked for: a test
 * can tell it. Where none is allowed, process groups, the parent-death
 * signal and the subreaper are all there is (see README).
 */
#ifndef MG_CONTAIN_H
#define MG_CONTAIN_H

#include "mg_err.h"

typedef enum contain_kind {
	CONTAIN_PROCESS_GROUP, /* no namespace: what can escape, see README */
	CONTAIN_PID_NS,        /* a PID namespace */
	CONTAIN_USER_NS,       /* a PID namespace inside a user namespace */
	CONTAIN_REAPER,        /* no namespace: the process started stays as reaper */
} contain_kind;

/*
 * mode: "auto" (a PID namespace, then a reaper, else process groups),
 * "pid", "user" or "reaper" (that one or MG_ERROR), "none" (process groups).
 * Once per process, before the first child it must hold; a reaper forks:
 * the caller goes on in the child (its pid changes), and the process that
 * called never returns. MG_EINVAL for an unknown mode, naming it.
 */
int contain_start(const char *mode, mg_err *err);
/* What holds now: "pid-namespace", "user-namespace", "reaper" or
 * "process-group". */
const char *contain_name(void);
contain_kind contain_kind_now(void);
/* Why the namespaces were not used (NULL when one is). */
const char *contain_why_not(void);
/* Kills every process left in the namespace (its init first), and waits for
 * the init. No child can be started after it. A no-op without one. */
void contain_end(void);
/* Around every fork of a child that must be contained (runner/spawn.c):
 * the next child goes into the namespace, then the runner's own is its
 * children's again. No-ops without a namespace. */
void contain_fork_begin(void);
void contain_fork_end(void);
/* In the child, before exec: a /proc of the namespace (see contain.c). */
void contain_child_enter(void);
/* 1 for a valid mode name. */
int contain_mode_valid(const char *mode);

#endif

/*
 * proc.h - readers of /proc/PID files. The statm sampler is the hot path:
 * one pread on a kept-open fd, no allocation, no syscall besides pread.
 * Everything else here is for test boundaries or rarer.
 */
#ifndef MG_PROC_H
#define MG_PROC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "mg_err.h"

/* Parses statm text ("size resident shared ...") into pages. -1 if malformed. */
int proc_parse_statm(const char *buf, size_t len, uint64_t *size_pages, uint64_t *resident_pages);

typedef struct proc_status {
	uint64_t vm_peak; /* bytes; 0 when the line is absent (kernel thread, zombie) */
	uint64_t vm_size;
	uint64_t vm_hwm;
	uint64_t vm_rss;
	pid_t ppid;
} proc_status;

/* Parses /proc/PID/status text. Missing lines leave fields 0. -1 if malformed. */
int proc_parse_status(const char *buf, size_t len, proc_status *out);

/* Reads /proc/PID/status (6-9 us). MG_EGONE if the process is gone.
 * pid 0 reads the calling process (/proc/self), here and in proc_sampler_open. */
int proc_read_status(proc_status *out, pid_t pid, mg_err *err);

/* Opaque: owns the kept-open fd of /proc/PID/statm. */
typedef struct proc_sampler proc_sampler;

/* Opens /proc/PID/statm. MG_EGONE if the process is gone already. */
int proc_sampler_open(proc_sampler **out, pid_t pid, mg_err *err);

/* One pread + parse (~1.5 us): VA and RSS in bytes. MG_EGONE once the process
 * has exited (reads return 0 bytes or ESRCH), never a reading of 0. */
int proc_sampler_read(proc_sampler *s, uint64_t *va, uint64_t *rss);

/* The code size (statm's text, bytes) seen by the last successful read; 0
 * before one. It changes when the process execs another program: the cue
 * to read its arch again (elf_arch_of_pid), at no cost per sample. */
uint64_t proc_sampler_text(const proc_sampler *s);

/* Closes the fd. NULL is a no-op. */
void proc_sampler_free(proc_sampler *s);

/*
 * Lists the descendants of pid (children, grandchildren, ...) into out, at
 * most cap of them; returns how many were found (may exceed cap: only cap
 * were written). Uses /proc/PID/task/TID/children where the kernel has it,
 * else scans /proc. O(processes); not for every sample.
 */
size_t proc_descendants(pid_t pid, pid_t *out, size_t cap);

/* The children of pid (of all its threads) into out, at most cap of them;
 * returns how many there were. Needs /proc/PID/task/TID/children
 * (CONFIG_PROC_CHILDREN): 0 without it, or when pid is gone. O(threads +
 * children). */
size_t proc_children(pid_t pid, pid_t *out, size_t cap);

/* Whether this kernel has the children files (CONFIG_PROC_CHILDREN); asked
 * of /proc once a process. */
int proc_has_children_files(void);

/*
 * A process's children by kept-open files (tree.c keeps one a process of
 * the tree): its task directory, whose link count is 2 + its threads, and
 * its main thread's children file. A read of a one-thread process is an
 * fstat and a pread, where proc_children opens, lists and closes nine
 * times a process; with more threads it is proc_children. Needs the
 * children files (proc_has_children_files).
 */
typedef struct proc_kids {
	pid_t pid;
	int task_fd, kids_fd; /* -1: not open */
} proc_kids;

/* Opens pid's files; -1 (k's fds -1) when it is gone. */
int proc_kids_open(proc_kids *k, pid_t pid);

/* pid's children into out, at most cap of them; returns how many there
 * were (0: none, or gone). */
size_t proc_kids_read(const proc_kids *k, pid_t *out, size_t cap);

/* Closes its fds; a no-op on closed ones. */
void proc_kids_close(proc_kids *k);

/* The /proc scan behind proc_descendants, always used where the children
 * files are missing; exposed so both ways can be tested. O(processes). */
size_t proc_descendants_scan(pid_t pid, pid_t *out, size_t cap);

/* Parses the parent pid out of /proc/PID/stat text. The command name may hold
 * anything, ") " included: the fields after it follow the last ')'.
 * -1 if malformed. */
int proc_parse_stat_ppid(const char *buf, size_t len, pid_t *ppid);

/* What /proc/PID/stat says of a process' progress: its state letter ('R',
 * 'S', 'D', 'T' stopped, 't' stopped by a debugger, 'Z' ...) and its CPU
 * time (user + system) in clock ticks. */
typedef struct proc_run {
	char state;
	uint64_t cpu_ticks;
} proc_run;

/* Parses /proc/PID/stat text (the command name may hold ") "). -1 if
 * malformed. */
int proc_parse_stat_run(const char *buf, size_t len, proc_run *out);

/* Reads pid's stat: 0, MG_EGONE when it has gone, MG_ERROR. One small read. */
int proc_read_run(pid_t pid, proc_run *out);

/*
 * PID namespaces. A contained run's hosts live in a PID namespace of their
 * own while /proc stays the one of the runner's namespace, so inside a host
 * getpid() and fork()'s pids are not the numbers /proc knows them by.
 * proc_self_pid: our pid as /proc names it (getpid() when /proc is our
 * namespace's). proc_child_pid: the /proc pid of our child pid (as fork
 * returned it), by the NSpid lines of our children; pid itself when /proc is
 * our namespace's; -1 when no child of ours has it.
 */
pid_t proc_self_pid(void);
pid_t proc_child_pid(pid_t pid);
/* The pids of an "NSpid:" line of /proc/PID/status text, outermost first,
 * into out (at most cap); returns how many there were, 0 when none. */
size_t proc_parse_nspid(const char *buf, size_t len, pid_t *out, size_t cap);

/* Physical memory in bytes (sysconf). */
uint64_t proc_ram_bytes(void);

/* Page size in bytes. */
uint64_t proc_page_size(void);

#endif

/*
 * shim.h - the protocol side every non-native driver shares. A shim speaks
 * protocol v1 on fds 3/4 (PROTOCOL.md) for a program that does not: it
 * queues run lines, owns the one child it drives (the real program, in the
 * shim's process group, with PR_SET_PDEATHSIG), reports the child's memory
 * in result lines, stops at test boundaries on quit or a soft limit, and
 * mirrors a child's death by a signal mid-test so the runner records crash.
 * The shim always leaves with _exit: its buffers go out with write(), and
 * what it still holds dies with it (no atexit work, no leak report).
 *
 * A driver (gtest.c, exec.c, wrap.c) fills a shim_ops and calls shim_main.
 * Everything here runs in the shim process, single-threaded.
 */
#ifndef MG_SHIM_H
#define MG_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "mg_exit.h"
#include "mg_proto.h"

typedef struct shim shim;

/* How a driver measures "the memory after the test" for result lines. */
typedef enum shim_measure {
	SHIM_MEASURE_CHILD, /* the child's statm at the boundary (gtest: a live process) */
	SHIM_MEASURE_TREE,  /* the largest VA / summed RSS of the shim's descendants,
	                       sampled while the test ran (exec, wrap: the process is gone
	                       by the boundary) */
} shim_measure;

typedef struct shim_ops {
	shim_measure measure;
	/* Honour MEMGUARD_RECYCLE_VA/RSS at boundaries (kill the child, recycle, bye). */
	int self_recycle;
	/* Answer "list": shim_test() per name. 0, or <0 after a message on stderr. */
	int (*list)(shim *s);
	/* No child runs and run lines are queued: start work for the head (or a batch
	 * from the head), or answer the head at once (shim_start + shim_result). */
	void (*begin)(shim *s);
	/* One line of the child's stdout, without its newline (only when the child was
	 * spawned with a piped stdout). line is writable and NUL-terminated. */
	void (*line)(shim *s, char *line, size_t len);
	/* The child has exited (how: status) and its piped stdout has been drained. */
	void (*exited)(shim *s, mg_exit_end status, const struct rusage *ru);
	/* Not the spawner first thing: the driver calls shim_spawner_start once
	 * it knows its host runs tests (a host that only lists needs none), or
	 * the first program it measures starts it. */
	int spawner_late;
	/* Optional, before hello: the memory hello reports (untouched: the shim's). */
	void (*hello)(shim *s, uint64_t *va, uint64_t *rss);
	/* Optional, before hello: the arch hello names ("x86", "x64"), the
	 * tests' rather than the command's; NULL: the command's ELF class. */
	const char *(*arch)(shim *s);
	/* Optional: after every wake-up of the loop while a child runs (at least
	 * every 5 ms with SHIM_MEASURE_TREE): a driver's own deadline. */
	void (*tick)(shim *s);
	/* NAME, VALUE pairs (NULL-terminated) set in the children's environment. */
	const char *const *env;
	/* The child's stderr goes through the shim (passed on at once, unchanged),
	 * which keeps its last bytes (shim_stderr_tail): what a program printed
	 * after its last test (a LeakSanitizer summary). With SHIM_OUT_MERGED
	 * the driver keeps them from its one stream (shim_tail_keep). */
	int tail_stderr;
	/* Optional: at quit with a child running and no test started, 1 when the
	 * child is finishing on its own (its batch is answered): it is waited
	 * for, and ops->exited judges how it ended, before bye. */
	int (*finishing)(shim *s);
	/* After shim_stop, at quit: the child stopped itself at the boundary
	 * (SIGSTOP, so the runner reads its memory there) and finishes on its
	 * own once continued (what its framework does after its last test, up
	 * to where its probe ends it): the shim continues it, follows its lines
	 * and judges its exit (ops->exited, shim_stopped) before bye. */
	int finish_stopped;
	/* Optional: at quit (a recycle or an end the runner decided), a child
	 * with tests of its batch still to run is asked to end where its next
	 * test would start, after what its framework does after the tests it
	 * ran (the probe's park); 1 when asked: the shim answers the test it
	 * runs now, waits for its end and judges it (ops->exited,
	 * shim_parking) before bye, as after a stop. */
	int (*park)(shim *s);
	/* The child's piped output is read to its end, as ctest reads a test's:
	 * a process it left running that holds the pipe keeps the test
	 * running after the child's exit (ops->tick still called, no next test
	 * begun) until the pipe closes or the driver gives up on it
	 * (shim_output_abandon); ops->exited then. 0: what is in the pipe when
	 * the child exits is read, and the test ends. */
	int wait_output_eof;
} shim_ops;

/* Runs the protocol until quit, a recycle or EOF. cmd is the program's argv
 * (NULL-terminated, ncmd elements). Returns the exit status for the shim. */
int shim_main(const shim_ops *ops, void *ctx, char **cmd, int ncmd);

void *shim_ctx(shim *s);
char **shim_cmd(shim *s, int *ncmd);
/* The environment for children: ours without MEMGUARD_*, plus ops->env. */
char **shim_env(shim *s);

/* Listing: one "test NAME" line (answers are written at the end of list). */
void shim_test(shim *s, const char *name, size_t len);
/* After shim_test: that test runs only after the index-th test listed
 * (an earlier one) ended, in whichever lane; with a fixture, it is that
 * fixture's setup and a failure of it means the test is not run (CTest's
 * DEPENDS and FIXTURES_REQUIRED: "after" and "needs" lines). */
void shim_test_after(shim *s, size_t index, const char *fixture);
/* The driver's word on the listing it answers list with (MG_LIST_*, in
 * its end line), set during its list op: lanes' shims get it in the run's
 * listing (catch2 v3: no listing of their own to check it). */
void shim_list_flags(shim *s, uint64_t flags);

/* The queue of run lines not answered yet; index 0 is the head. */
size_t shim_queued(const shim *s);
const char *shim_queue_name(const shim *s, size_t i, size_t *len);
int shim_head_started(const shim *s);
/* The results this shim sent that are no pass nor skip. */
unsigned shim_failed(const shim *s);
/*
 * Reads the run lines the runner is still sending, up to its last "fed"
 * (PROTOCOL.md 6b), or until quit came: for a driver that gives its program
 * every queued name at its start. Waits only while a burst is unfinished.
 */
void shim_take_pending(shim *s);
/* In ops->line: 1 when line is a piece of a longer line (over 1 MiB, or
 * the last bytes without a newline), not a whole line. */
/* on: a result sent now does not end the shim at a pending quit (the
 * driver's exited hook sends one and goes on: the loop ends it after) */
void shim_defer_finish(shim *s, int on);
int shim_line_cut(const shim *s);

/* shim_spawn's pipe_out: SHIM_OUT_MERGED pipes stderr with stdout, one
 * stream (with tail_stderr, the driver keeps the tail: shim_tail_keep). */
enum { SHIM_OUT_PIPE = 1, SHIM_OUT_MERGED = 2 };

/*
 * Spawns argv (execvp) as the child: same process group, stdin/stderr
 * inherited, stdout piped to the shim when pipe_out (lines go to ops->line)
 * else inherited, PR_SET_PDEATHSIG, signals reset. 0, or -1 after a message
 * on stderr (exec failure shows as exit status 127 through ops->exited).
 */
int shim_spawn(shim *s, char *const argv[], int pipe_out);
/* Starts the spawner that starts every program whose figures count, if not
 * yet started (runner/spawn.h, spawn_spawner_new; none: each is forked). */
void shim_spawner_start(shim *s);
/* shim_spawn, and fd becomes the child's fd target (the caller keeps fd). */
int shim_spawn_fd(shim *s, char *const argv[], int pipe_out, int fd, int target);
pid_t shim_child(const shim *s);
/* 1 while the child has exited and its output is still held open
 * (ops->wait_output_eof). */
int shim_output_held(const shim *s);
/* Stops reading a held output (ctest's timeout drops its read handle):
 * the child's exit is judged next (ops->exited). */
void shim_output_abandon(shim *s);
/* Kills the running child and every process under it, as ctest's timeout
 * does (kwsys kills the tree); it is reaped as any exit is. */
void shim_child_kill_tree(shim *s);

/*
 * Runs argv to its end (blocking), its stdout collected into *out (malloc'd,
 * NUL-terminated, *len bytes) and how it ended into *status; stderr
 * inherited. For listing: no test's figures, so a vfork, not the spawner's
 * clone. 0, or -1 after a message on stderr.
 */
int shim_capture(shim *s, char *const argv[], char **out, size_t *len, mg_exit_end *status);
/* One line on stderr: "memguard: WHAT exited with status N" (or "was killed
 * by signal N"), WHAT formatted from fmt: a listing command that failed. */
void shim_say_failed(mg_exit_end status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* shim_capture, and fd becomes the child's fd target (the caller keeps fd). */
int shim_capture_fd(shim *s, char *const argv[], char **out, size_t *len, mg_exit_end *status,
                    int fd, int target);

/* A name's hash (FNV-1a): the name tables' here and the listing's uniqueness check. */
size_t shim_name_hash(const char *p, size_t len);
/* A set of names in insertion order with O(1) lookup (listing, batching). */
typedef struct shim_names shim_names;
shim_names *shim_names_new(void);
/* Adds a copy; returns its index, or -1 when the name is there already. */
long shim_names_add(shim_names *t, const char *name, size_t len);
/* Room for n names in all, sized once (a listing says how many): no table
 * doubled and filled again on the way (each doubling fresh pages, a fault each). */
void shim_names_reserve(shim_names *t, size_t n);
/* The index of name, or -1. */
long shim_names_find(const shim_names *t, const char *name, size_t len);
size_t shim_names_count(const shim_names *t);
const char *shim_names_at(const shim_names *t, size_t i, size_t *len);
void shim_names_free(shim_names *t);

/* Writes bytes to the shim's stdout ahead of the next reply (the runner
 * attributes them to the running test). */
void shim_output(shim *s, const char *buf, size_t len);

/* "start HEAD": the head test runs from now. */
void shim_start(shim *s);
/* Before a program's first start: its memory then (PROTOCOL.md 6f), the
 * base of that test's growth; also the shim's last reading. */
void shim_base(shim *s, uint64_t va, uint64_t rss);
/*
 * Before the head starts: it waits for what (a lock another lane holds). The
 * replies so far go out, then "wait WHAT" (PROTOCOL.md 6e), so the runner
 * does not time the wait (the head's start goes out with the replies the
 * loop writes before it waits for the test).
 */
void shim_wait(shim *s, const char *what);
/* The replies so far go out now (not when the loop next waits). */
void shim_flush(shim *s);
/*
 * The head's result (MG_MSG_PASS/FAIL/SKIP, msg may be NULL), with the
 * memory of the measure chosen; pops the head. At this boundary a pending
 * quit or a crossed soft limit ends the shim (does not return).
 */
void shim_result(shim *s, mg_msg_kind kind, const char *msg, size_t len);
/* The next result's figures are the last reading's: a test that did not
 * run has nothing of its own to read (a sample now would be what later
 * tests did). */
void shim_figures_last(shim *s);
/*
 * The child measured itself at the head's boundary (gtest's probe): the
 * next shim_result reports va/rss instead of the driver's measure; the
 * peaks (0: not read) count for bye.
 */
void shim_figures(shim *s, uint64_t va, uint64_t rss, uint64_t peak_va, uint64_t peak_rss);
/* Protocol lines the child wrote of the running test (module, site, nomem:
 * whole lines, newlines included), passed on before its result. */
void shim_lines(shim *s, const char *p, size_t n);
/* The running child measures itself and takes the soft verdicts: the shim
 * neither samples it per read nor recycles on its figures (until the next
 * shim_spawn). */
void shim_probed(shim *s);
/*
 * The child stopped itself at a boundary (after the last result): sends
 * "recycle VA RSS [WHY]" (WHY as protocol v2 words: "va", "growth BYTES"),
 * answers nothing more and ends the child at quit, so its memory is still
 * there for the runner's breakdown.
 */
void shim_stop(shim *s, const char *why);
/* 1 after shim_stop: the child's lines and exit belong to no queued test. */
int shim_stopped(const shim *s);
/* 1 after ops->park asked the child to end at its next test (quit came):
 * what it does between tests is its finish, as after shim_stop. */
int shim_parking(const shim *s);
/* An fd every later child gets as target (the gtest probe's quit word),
 * besides the one shim_spawn_fd passes; -1: none. */
void shim_pass_fd(shim *s, int fd, int target);
/*
 * An entry outside the listed tests (PROTOCOL.md 6c), between two tests:
 * kind MG_MSG_FAIL, MG_MSG_ERROR or MG_MSG_SKIP (said, not failing), its
 * name and message (may be empty).
 */
void shim_extra(shim *s, mg_msg_kind kind, const char *name, size_t nlen, const char *msg,
                size_t mlen);
/* The last bytes the running (or last) program wrote on stderr (with
 * SHIM_OUT_MERGED, in its one stream: shim_tail_keep), from the start of
 * a line (tail_stderr only; empty otherwise). */
const char *shim_stderr_tail(shim *s, size_t *len);
/* With tail_stderr and SHIM_OUT_MERGED: n bytes of the one stream (and a
 * newline when nl) kept in that tail, as ops->line sees what the program
 * wrote (the driver leaves out lines of its own making). */
void shim_tail_keep(shim *s, const char *p, size_t n, int nl);

/* The child's stderr split by the probe's marks (MG_PROBE_MARK SECRET
 * " err"; mark: MG_PROBE_MARK SECRET): its bytes are kept until a mark says
 * they are the ending test's (shim_err_take, at an end the probe says it
 * marked), else given to the running test after a grace, or at the child's
 * end; between tests, passed on as they were. */
void shim_err_split(shim *s, const char *mark, size_t len);
/* At the end of a test whose stderr the probe marked: the bytes in front
 * of the mark are its output (read, not waited for: the mark precedes the
 * end); ours 0: a test that is no test of ours (one the framework runs
 * again), whose bytes are passed on. */
void shim_err_take(shim *s, int ours);
/* Sets (value) or removes (NULL) a variable of the children's environment. */
void shim_setenv(shim *s, const char *name, const char *value);
/* shim_result with a formatted message. */
void shim_resultf(shim *s, mg_msg_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The child died of sig mid-test: flush everything, then die of the same
 * signal (no core dump), so the runner records crash for the started head. */
void shim_die_of(shim *s, int sig) __attribute__((noreturn));
/* The child ended (status) before any test of it started: flush
 * everything, then end as it did (its signal, no core dump; or its exit
 * status), no test started, so the runner blames none. */
void shim_end_as(shim *s, mg_exit_end status) __attribute__((noreturn));

/* ---- the drivers (one file each) ---- */

typedef struct shim_args {
	const char *list_cmd;  /* exec: --list-cmd */
	const char *list_file; /* exec: --list-file */
	int shell;             /* exec: --shell */
	int skip_code;         /* exec: --skip-code's exit status, +1 (0: none) */
	int asan;              /* gtest, catch2: --asan 0|1, the runner's reading; -1 */
	int catch2_v3;         /* catch2: --catch2-v3 0|1, the runner's reading; -1 */
	char **cmd;            /* the program or template, NULL-terminated */
	int ncmd;
} shim_args;

int gtest_main(const shim_args *a);
int exec_main(const shim_args *a);
int wrap_main(const shim_args *a);
int ctest_main(const shim_args *a);
int catch2_main(const shim_args *a);

/*
 * gtest: parses --gtest_list_tests output (len bytes) into names as
 * --gtest_filter wants them ("Suite.Test", "Prefix/Suite.Test/0",
 * "Suite/0.Test"), calling add for each. Comments ("# GetParam() = ...",
 * "# TypeParam = int") are dropped. Returns the count.
 */
size_t gtest_parse_list(const char *buf, size_t len,
                        void (*add)(void *ctx, const char *name, size_t n), void *ctx);

/*
 * gtest: if line is "[ TAG ] NAME" followed by nothing, " (N ms)" or ", where
 * ...", returns 1 and the name's start and length. tag is the bracketed
 * part, e.g. "[       OK ]".
 */
int gtest_match(const char *line, size_t len, const char *tag, const char **name, size_t *n);

/*
 * exec: the argv for one test from the template (NULL-terminated, malloc'd,
 * free with exec_argv_free). Without shell: every "{}" inside an element
 * becomes the name, the element stays one argument; no "{}" anywhere appends
 * the name as the last argument. With shell: sh -c SCRIPT sh NAME, where
 * SCRIPT is the template joined by spaces with each "{}" replaced by "$1"
 * (the name is never pasted into script text).
 */
char **exec_argv(char *const tmpl[], int ntmpl, int shell, const char *name);
void exec_argv_free(char **argv);
/* exec and wrap: exit 0 passes, exit N fails "exit status N", a signal is the
 * test's crash (mirrored). */
void exec_exited(shim *s, mg_exit_end status, const struct rusage *ru);

/* wrap: the single test's name: "wrap/" and the command line (control
 * bytes as spaces, at most ~200 bytes) into buf. */
void wrap_name(char *buf, size_t size, char *const cmd[], int ncmd);

#endif

/*
 * driver.h - running test programs that do not speak protocol v1. A driver
 * is a protocol shim: the runner starts "memguard __driver NAME [options]
 * -- COMMAND..." as the host, and the shim speaks v1 on fds 3/4 while it
 * drives the real program (GoogleTest by its flags and output, one process
 * per test, or one wrapped command). The real program is the shim's child,
 * in the same process group, so the guard's tree sampling and group kill
 * cover it.
 */
#ifndef MG_DRIVER_H
#define MG_DRIVER_H

#include <stddef.h>

#include "mg_err.h"

/*
 * gtest, catch2: the run's listing, handed to every host the runner starts
 * after it (listing_handoff) as this fd, a memfd named MG_LISTING_NAME
 * holding "VA RSS ASAN\n" (the listing host's hello: a fresh program's
 * memory; ASAN 1 for an ASan build) and the names as listed, one a line. A recycled generation's
 * shim takes it instead of listing the program again (a recycle costs a program start, not a
 * listing).
 */
#define MG_LISTING_FD   5
#define MG_LISTING_NAME "memguard-listing"

typedef enum driver_kind {
	DRIVER_NATIVE, /* the program links the host library */
	DRIVER_GTEST,
	DRIVER_EXEC,
	DRIVER_WRAP,
	DRIVER_CTEST,  /* ctest's own tests, one process each */
	DRIVER_CATCH2, /* a Catch2 program, followed through its XML reporter */
	DRIVER_PYTEST, /* pytest with memguard's plugin: the pytest process is the host */
} driver_kind;

/*
 * Why the probe cannot enter a gtest or Catch2 program (then the shim reads
 * the program's memory from outside, at or after each test's end: its
 * boundaries are approximate). Sent in the listing's end line
 * (MG_LIST_NOPROBE) and said in the report (its shards' "approximate").
 */
typedef enum driver_noprobe {
	DRIVER_PROBE_OK,
	DRIVER_NOPROBE_NOT_ELF,   /* not an x86/x64 ELF executable (a script...) */
	DRIVER_NOPROBE_STATIC,    /* a static executable: no LD_PRELOAD */
	DRIVER_NOPROBE_NOT_FOUND, /* the probe library is not installed */
	DRIVER_NOPROBE_PATH,      /* its path has a space or a colon */
	DRIVER_NOPROBES
} driver_noprobe;
/* The reason's words; NULL for DRIVER_PROBE_OK or a code out of range. */
const char *driver_noprobe_why(unsigned code);

/* "native", "gtest", "exec", "wrap", "ctest", "catch2", "pytest"; MG_EINVAL naming the
 * token else. */
int driver_parse(driver_kind *out, const char *name, mg_err *err);
const char *driver_name(driver_kind k);

/*
 * 1 when the host process itself speaks the protocol (native, and pytest,
 * whose plugin serves it inside pytest): it reports its own memory, marks
 * its streams and judges its own soft limits. 0 for a shim of memguard's
 * own in front of the program.
 */
int driver_serves_protocol(driver_kind k);

/* The strings memguard looks for in a program file (driver_has_mark) */
typedef enum driver_mark {
	DRIVER_MARK_HOST,      /* the host library's (MG_HOST_MARKER) */
	DRIVER_MARK_GTEST,     /* GoogleTest's flag name gtest_list_tests */
	DRIVER_MARK_CATCH2,    /* Catch2 v2's option list-test-names-only */
	DRIVER_MARK_CATCH2_V3, /* Catch2 v3's help line " is a Catch2 v" */
	DRIVER_MARK_ASAN,      /* AddressSanitizer's __asan_init */
	DRIVER_MARKS
} driver_mark;

/* 1 when path's file holds marker m outside its debug sections, 0 when
 * not, <0 when it cannot be read. Every marker is read in one pass, kept
 * for the same file (path, device, inode, size, mtime): one stat a call
 * after the first. */
int driver_has_mark(const char *path, driver_mark m);

/*
 * Decides the driver for an executable without running it: the host
 * library's marker → native; GoogleTest's → gtest; Catch2's → catch2 (in
 * the program, else in a shared library it needs: elf_needed_contains); a
 * program named ctest → ctest; otherwise wrap, with a
 * one-line note saying so written to note (empty when none).
 */
driver_kind driver_detect(const char *path, char *note, size_t size);

/* The same for a whole command line (path: argv[0] resolved): a pytest
 * command (pytest, py.test, python -m pytest) → pytest, else as
 * driver_detect(path). */
driver_kind driver_detect_command(const char *path, char *const *argv, int argc, char *note,
                                  size_t size);

/* The command's arguments that contradict driver k (pytest: xdist's -n;
 * gtest: --gtest_repeat or GTEST_REPEAT other than 1; ctest: --repeat):
 * MG_EINVAL naming the token, with what to do instead; 0 else. */
int driver_check_args(driver_kind k, char *const *argv, int argc, mg_err *err);
/* memguard run's: -1 (MG_EINVAL, err says which) when the command runs no
 * test (ctest's -N, --show-only; GoogleTest's --gtest_list_tests; Catch2's
 * -l, --list-*, -h, --libidentify); memguard list lists them as it is. */
int driver_runs_none(driver_kind k, char *const *argv, int argc, mg_err *err);

/* gtest and catch2 shims list their program before hello: hello's figures
 * are that listing program's, no reading of the host (its program's come
 * as `base`, PROTOCOL.md 6f). */
static inline int driver_lists_for_hello(driver_kind k)
{
	return k == DRIVER_GTEST || k == DRIVER_CATCH2;
}

/*
 * An explicit --driver gtest or catch2 against the executable's own
 * markers (the ones driver_detect reads): MG_EINVAL naming what path is
 * when they contradict it. A file that is not an ELF (a script that starts
 * the program) is not judged, nor a program without either framework's
 * marker whose arguments (argv, NULL-terminated, argv[0] the command) name
 * an executable with the driver's (a wrapper: env, taskset, valgrind).
 * 0 for every other driver.
 */
int driver_check(driver_kind k, const char *path, char *const argv[], mg_err *err);

/* 1 when the command cmd (resolved on PATH) is a Catch2 v3 program: one
 * without v2's --list-test-names-only (its names are listed by
 * --list-tests -v quiet; it exits 4 when every test it ran was skipped). */
int driver_catch2_v3(const char *cmd);

/* 1 when a Catch2 command line has the user's --allow-running-no-tests
 * (Catch2 v3 then exits 0 for a run of no test or of skipped tests only:
 * the runner takes it for --allow-no-tests). */
int driver_catch2_allows_none(char *const *argv, int argc);

/*
 * What the framework's own run exits with when it runs no test (README
 * "Exit codes"): 0 where it passes such a run (GoogleTest; ctest without
 * the user's --no-tests=error; Catch2 v2 unless the user's -w NoTests saw
 * a test spec match nothing; a memguard host listing none, as its
 * standalone run), MG_EXIT_NO_TESTS where it fails one (Catch2 v3, which
 * exits 2; pytest, 5) or has no convention of its own (exec, wrap, a
 * native host's tests all left out by memguard's selection). selected:
 * the host listed tests and the user's --filter, --tests-from or --node
 * kept none. *who names the framework for the console (NULL: none).
 * Catch2's costs a read of the program (v2 or v3); the rest is argv only.
 */
int driver_no_tests_exit(driver_kind k, char *const *argv, int argc, int selected,
                         const char **who);

/*
 * The user's fail-fast for a gtest or catch2 program: Catch2's -a/--abort
 * (1) or -x/--abortx N (the last one given), GoogleTest's
 * --gtest_fail_fast[=BOOL] (the last one; else its GTEST_FAIL_FAST
 * variable, anything but "0"; else Bazel's TESTBRIDGE_TEST_RUNNER_FAIL_FAST
 * "1"): 1 failure. A direct run stops after limit failures; memguard counts
 * the run's, in every lane and generation (lane.c), and a shim's program
 * is given what is left of it (MG_ENV_FAIL_LEFT).
 */
typedef struct driver_fail_fast {
	unsigned limit; /* 0: none */
	char opt[48];   /* as the user gave it: "-x 2", "--gtest_fail_fast", "GTEST_FAIL_FAST=1" */
} driver_fail_fast;

/* gtest, catch2: the host's failures the run has left before its limit, in
 * decimal (set only under a fail-fast; a shim gives Catch2 no more). */
#define MG_ENV_FAIL_LEFT "MEMGUARD_FAIL_LEFT"

/* ctest and Catch2 v3, with more than one lane: "LANE/LANES/RUN" (LANE
 * from 0, RUN the runner's pid): ctest's the slots a test of PROCESSORS
 * P takes P of; Catch2 v3's the --shard-count of its shares. */
#define MG_ENV_LANE "MEMGUARD_LANE"

/* A directory of the run's own (0700, under TMPDIR), removed with what is
 * in it when every host has ended, interrupted or not: where a shim puts
 * what it writes for its program (a batch's filter or input file, ctest's
 * lock files), so that none is left behind by a shim the runner ended. */
#define MG_ENV_RUN_DIR "MEMGUARD_RUN_DIR"

/* The fail-fast of command argv (argc words, argv[0] the program) for
 * driver k, the environment read with getenv; limit 0 for none, or for
 * another driver. */
void driver_fail_fast_of(driver_fail_fast *out, driver_kind k, char *const *argv, int argc);

/*
 * A GoogleTest command with each --gtest_flagfile=F in it replaced by F's
 * lines, as GoogleTest loads it (in place: a flag after it wins, one
 * before it loses); a file that cannot be read, or has a line that is no
 * GoogleTest flag, stays as given (GoogleTest then fails, or prints its
 * help, as in a direct run). argv[0] and the user's words are shared with
 * the command given; the rest is owned (gtest_cmd_free). -1 out of memory.
 */
typedef struct gtest_cmd {
	char **argv; /* NULL-terminated */
	int argc;
	char **texts; /* the flag files read */
	int ntexts;
} gtest_cmd;
int gtest_cmd_expand(gtest_cmd *out, char *const *argv, int argc);
void gtest_cmd_free(gtest_cmd *c);
/* c without its --gtest_output= words (memguard writes that file). */
void gtest_cmd_drop_output(gtest_cmd *c);

/*
 * The report file the user asked the framework for, which every program of
 * a run (lanes, recycles) would write over: GoogleTest's --gtest_output
 * (the last given, flag files read; else GTEST_OUTPUT) "xml[:PATH]" (PATH
 * as GoogleTest makes it, DIR/ as DIR/PROGRAM.xml or the first free
 * PROGRAM_N.xml) or "json[:PATH]"; Catch2's -r junit -o FILE (also
 * --reporter, --out, "-r=junit"). The shims keep it from the program; the
 * runner writes the whole run's there.
 */
typedef enum driver_output_form {
	DRIVER_OUTPUT_NONE,
	DRIVER_OUTPUT_GTEST_XML,
	DRIVER_OUTPUT_CATCH2_JUNIT,
	DRIVER_OUTPUT_GTEST_JSON,
	DRIVER_OUTPUT_UNWRITTEN,   /* Catch2's other reporters' -o FILE, ctest's --output-log:
	                            * said, not written */
	DRIVER_OUTPUT_CTEST_JUNIT, /* ctest's --output-junit FILE (in the test directory) */
	DRIVER_OUTPUT_STDOUT,      /* Catch2's junit, xml, sonarqube, tap, teamcity, automake or
	                            * JSON reporter to stdout (no file), which memguard's own
	                            * output is on: refused before the run */
} driver_output_form;
typedef struct driver_output {
	driver_output_form form;
	char path[4096];
	char opt[256];  /* as the user gave it, for messages */
	char dir[4096]; /* ctest's test directory (--test-dir, else ".") */
} driver_output;
/* catch2_v3: a Catch2 v3 program, which matches reporter names in any case
 * (v2 only as written). */
void driver_output_of(driver_output *out, driver_kind k, int catch2_v3, char *const *argv,
                      int argc);
/* 1 for Catch2's "-o=F", "--out:F", "-r=X", "--reporter:X" (one word). */
int catch2_is_output_opt(const char *a);

/*
 * The order the user's program runs its tests in, as the framework reads
 * its flags. GoogleTest: --gtest_shuffle[=BOOL] (the last one, flag files
 * read in place; else GTEST_SHUFFLE, anything but "0") with
 * --gtest_random_seed=N (else GTEST_RANDOM_SEED; 0, or none: a seed from
 * the time, each program its own), N made 1..99999 as gtest.cc's
 * GetRandomSeedFromFlag does. Catch2: --order decl|lex|rand (kept in the
 * shim's listing and runs: its order is then the listing's) and --rng-seed
 * time|random-device|N (v3 without one: std::random_device, each program
 * its own; v2 without one: 0). A seed the program would draw itself is
 * drawn once by the runner (driver_order_seed) and given to every program
 * of the run, its listing too (MG_ENV_SEED), so that GoogleTest's shuffle
 * (subset-stable: all registered tests are shuffled, the filter only says
 * which run) and Catch2's rand order (a hash of name and seed) put every
 * program's tests in the one order a direct run with that seed has, and
 * Catch2's random generators see that seed.
 */
typedef struct driver_order {
	int shuffled;       /* gtest: --gtest_shuffle; catch2: --order rand */
	int draws;          /* the program draws its seed: the runner gives it one */
	unsigned long seed; /* the user's (gtest: made 1..99999), when !draws */
	char opt[64];       /* the option as the user gave it, for messages */
} driver_order;

/* The seed for the run's programs, when the runner drew it (decimal). */
#define MG_ENV_SEED "MEMGUARD_SEED"

/* The order of command argv (argc words, argv[0] the program) for driver
 * k (catch2_v3: v3's defaults), the environment read with getenv; all 0
 * for another driver. */
void driver_order_of(driver_order *out, driver_kind k, int catch2_v3, char *const *argv, int argc);
/* A seed drawn for a run (getrandom, else the time): 1..99999 for
 * GoogleTest (the range its own seeds have), 1..2^32-1 for Catch2. */
unsigned long driver_order_seed(driver_kind k);
/* The option that gives a program seed, in out ("--gtest_random_seed=7",
 * "--rng-seed 7"). */
void driver_order_opt(driver_kind k, unsigned long seed, char *out, size_t n);

/* The message of a test not run for it, in out: "not run: Catch2 aborted
 * the run after its failures, as -x 2 asks". */
void driver_fail_fast_why(const driver_fail_fast *ff, driver_kind k, char *out, size_t n);

/* The hidden subcommand: memguard __driver NAME [options] -- COMMAND...
 * Returns the process exit code. */
int driver_main(int argc, char **argv);

struct shim_args;
/* pytest.c: "memguard __driver pytest -- COMMAND": execs COMMAND with the
 * plugin; returns only when it could not (the exit status). */
int pytest_main(const struct shim_args *a);
/* pytest.c: the index of pytest's own first argument in argv (after
 * "pytest" or "python -m pytest"), or -1 when argv is no pytest command. */
int pytest_args_at(char *const *argv, int argc);
/* pytest.c: MG_EINVAL for a command that is no pytest, or with xdist's
 * -n/--numprocesses/--dist/--tx (the lanes are memguard's -j). */
int pytest_check_args(char *const *argv, int argc, mg_err *err);
/* ctest.c: the ctest command cmd's CTestCustom.cmake CTEST_CUSTOM_PRE_TEST
 * (post 0) or _POST_TEST (post 1) commands, run once by ctest itself as it
 * runs them (in its test directory; their output and ctest's words on one
 * that failed to stderr; ctest runs the shim's listings without them).
 * 0 when they passed or there are none (or ran at the listing: --preset);
 * 1 when one failed, its command in failed (size bytes); -1 when ctest
 * could not be run, failed says why. */
int ctest_custom_run(char *const *cmd, int ncmd, int post, char *failed, size_t size);
/* ctest.c: ctest's Testing/Temporary/LastTestsFailed.log in the test
 * directory of the ctest command cmd, as ctest writes it after a run with
 * failures ("NUMBER:NAME" a line, NUMBER the test's in ctest's whole list,
 * from its -N): the n failed tests' names (sorted here), for a later
 * --rerun-failed. Nothing is written when n is 0 (ctest keeps the last
 * file then too). 0, or -1 with msg (size bytes) saying why not. */
int ctest_failed_log(char *const *cmd, int ncmd, char **failed, size_t n, char *msg, size_t size);
/* ctest.c: MG_EINVAL for ctest's --repeat MODE:N or --repeat-until-fail N
 * on the command line with N over 1, or no number, naming the option
 * (memguard runs each test once and judges that run: before, it said so
 * on stderr and ran each once, exit 0 where ctest's repeat until a
 * failure exits 8); 0 else. A test preset's execution.repeat is not read. */
int ctest_check_args(char *const *cmd, int ncmd, mg_err *err);

#endif

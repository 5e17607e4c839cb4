/*
 * options.h - everything "memguard run" and "memguard list" can be told,
 * from the config file (memguard.json, or --config PATH) and then the
 * command line, which overrides it. A bad flag, key or value is a usage
 * error (exit 2) whose message names it.
 */
#ifndef MG_OPTIONS_H
#define MG_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "mg_err.h"
#include "mg_limits.h"

#define OPTIONS_MAX_ADAPTERS 16

/* --no-progress's default, seconds: a test stopped (T state) or using no
 * CPU this long without a result is ended as a timeout. Long enough for a
 * test that waits on a slow service, short against a CI job's hour. */
#define OPTIONS_NO_PROGRESS 300.0

typedef struct run_options {
	mg_arch arch; /* MG_ARCH_UNKNOWN: from the ELF header */
	/* Limit texts in the order they apply: config file first, then flags,
	 * over the arch defaults. Validated when read; see options_limits. */
	const char *recycle_at[2];
	const char *kill_at[2];
	unsigned jobs;          /* lanes; 0: number of CPUs */
	double timeout;         /* seconds per test; 0: none */
	double deadline;        /* seconds for the whole run; 0: none */
	double no_progress;     /* seconds a test may be stopped or use no CPU; 0: never
	                         * ended for it */
	double interval;        /* base sampling interval, seconds */
	unsigned pipeline;      /* run lines kept in flight per host */
	unsigned max_restarts;  /* consecutive failed host starts before a lane gives up */
	uint64_t output_limit;  /* captured bytes kept per test: head and tail */
	uint64_t output_head;   /* of them, the head (the rest is the tail) */
	uint64_t address_space; /* RLIMIT_AS for hosts; 0: none */
	const char *report;     /* path or NULL */
	const char *adapters[OPTIONS_MAX_ADAPTERS];
	size_t nadapters;
	const char *suite;      /* NULL: basename of the host */
	const char *driver;     /* "auto" (default), "native", "gtest", "exec", "wrap" */
	const char *list_cmd;   /* exec driver: a command that prints the test names */
	const char *list_file;  /* exec driver: a file of test names */
	int shell;              /* exec driver: run the template with sh -c */
	int skip_code;          /* exec driver: the exit status that means skip; -1 none */
	const char *tests_from; /* run exactly these names (one a line), in order */
	const char *history; /* an earlier report, "auto" (the nearest noted ancestor), or NULL */
	int order_history;   /* --order history: the longest tests first */
	const char *filter;  /* fnmatch pattern on test names, NULL: all */
	uint32_t node_index; /* 1-based; 0: from the CI env, else 1/1 */
	uint32_t node_total;
	int quiet;
	int lane_tmpdir;     /* --lane-tmpdir: each lane's processes their own TEST_TMPDIR */
	int allow_no_tests;  /* no test to run is exit 0, whatever the framework exits */
	int fail_no_tests;   /* no test to run is MG_EXIT_NO_TESTS, whatever the framework exits */
	const char *contain; /* contain_start's mode: "auto" (NULL), "pid", "user", "none" */
	unsigned sites;      /* allocation sites: MG_SITES_OFF, _DEFAULT (the default), _ALL */
	char **host_argv;    /* after "--" */
	int host_argc;
} run_options;

/* Fills the defaults (no file, no flags). */
void options_init(run_options *o);

/*
 * Applies a config file: PATH if given (must exist), else ./memguard.json if
 * it exists. Strings point into a Jansson value kept until options_free.
 */
int options_load_config(run_options *o, const char *path, mg_err *err);

/* The same from len bytes of JSON text in memory (no NUL needed); NAME
 * stands for the file in messages. For the fuzz harness and tests. */
int options_load_config_buffer(run_options *o, const char *buf, size_t len, const char *name,
                               mg_err *err);

/*
 * Parses argv (argv[0] is the subcommand) over what o holds. --config is
 * handled first, so flags override the file. MG_EINVAL names the bad flag.
 */
int options_parse(run_options *o, int argc, char **argv, mg_err *err);

/* Parses "60s", "1.5m", "2h", "250ms", "90" (seconds). */
int options_parse_duration(double *out, const char *text, mg_err *err);

/* Reads the node from --node I/N, else the CI env: CI_NODE_INDEX/TOTAL
 * (1-based), CIRCLE_NODE_INDEX/TOTAL, BUILDKITE_PARALLEL_JOB/_COUNT
 * (0-based), SYSTEM_JOBPOSITIONINPHASE/TOTALJOBSINPHASE (1-based). */
int options_parse_node(uint32_t *index, uint32_t *total, const char *text, mg_err *err);
void options_node_from_env(uint32_t *index, uint32_t *total);

/* The soft and hard limit specs the user wrote: the config file's texts,
 * then the flags' (keys not named keep the earlier value). Keys named in
 * neither are not .given: limits_settle fills them with the arch defaults. */
void options_limits(const run_options *o, limits_spec *soft, limits_spec *hard);

void options_free(run_options *o);

const char *options_usage(void);

#endif

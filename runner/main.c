/*
 * main.c - the memguard command: dispatches subcommands. run and list live
 * in run.c, report rendering here, the per-commit commands in ci/.
 */
#include <stdio.h>
#include <string.h>

#include "adapters.h"
#include "bisect.h"
#include "ci.h"
#include "driver.h"
#include "report.h"
#include "run.h"

static const char usage[] =
    "usage: memguard <command> [options]\n"
    "\n"
    "  run [options] -- HOST...     run a test host's tests under the guard\n"
    "  list -- HOST...              list the host's tests\n"
    "  bisect [--report R.json] -- HOST...  name the test that makes a later one crash\n"
    "  report --adapter NAME[=PATH]... REPORT.json\n"
    "                               render a saved report (console, junit, github, ...)\n"
    "  merge OUT.json IN.json...    combine node reports into one\n"
    "  note REPORT.json             attach a report to a commit (git notes)\n"
    "  show [REV]                   a commit's per-shard table\n"
    "  compare BASE HEAD            memory of two commits or report files\n"
    "  log [-n N] [REV]             memory per commit, first-parent history\n"
    "  notes-merge OTHER_REF        merge another notes ref into ours\n"
    "  version                      print the version\n"
    "\n"
    "'memguard help COMMAND' (or 'memguard COMMAND -h') shows a command's\n"
    "options. Exit codes: 0 all passed, 1 a test did not pass, 2 usage or config\n"
    "error, 3 infrastructure error, 4 memory regression, 5 no tests ran, 130/143\n"
    "interrupted.\n";

/* memguard report [--adapter NAME[=PATH]]... REPORT.json */
static int report_main(int argc, char **argv)
{
	const char *specs[32];
	size_t n = 0;
	const char *path = NULL;
	mg_err err;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs("usage: memguard report [--adapter NAME[=PATH]]... REPORT.json\n",
			      stdout);
			return 0;
		}
		if (!strcmp(a, "--adapter") || !strncmp(a, "--adapter=", 10)) {
			const char *v = a[9] == '=' ? a + 10 : (i + 1 < argc ? argv[++i] : NULL);
			if (!v) {
				fputs("memguard report: option '--adapter' needs a value\n",
				      stderr);
				return MG_EXIT_USAGE;
			}
			if (n == sizeof(specs) / sizeof(specs[0])) {
				fputs("memguard report: too many adapters\n", stderr);
				return MG_EXIT_USAGE;
			}
			if (adapters_check(v, &err) < 0) {
				fprintf(stderr, "memguard report: %s\n", err.msg);
				return MG_EXIT_USAGE;
			}
			specs[n++] = v;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "memguard report: unknown option '%s'\n", a);
			return MG_EXIT_USAGE;
		} else if (path) {
			fprintf(stderr, "memguard report: more than one report given ('%s')\n", a);
			return MG_EXIT_USAGE;
		} else {
			path = a;
		}
	}
	if (!path) {
		fputs("memguard report: no report given\n", stderr);
		return MG_EXIT_USAGE;
	}
	report *r = NULL;
	int rc = report_load(&r, path, &err);
	if (rc < 0) {
		fprintf(stderr, "memguard report: %s\n", err.msg);
		return report_load_exit(rc);
	}
	int code = 0;
	if (!n)
		specs[n++] = "console";
	for (size_t i = 0; i < n; i++)
		if (adapters_render(r, specs[i], &err) < 0) {
			fprintf(stderr, "memguard report: %s: %s\n", specs[i], err.msg);
			code = MG_EXIT_INFRA;
		}
	report_free(r);
	return code;
}

static int is_command(const char *cmd)
{
	static const char *const cmds[] = {"run",         "list",  "bisect",  "report",
	                                   "note",        "show",  "compare", "log",
	                                   "notes-merge", "merge", "version"};
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(cmd, cmds[i]))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    (!strcmp(argv[1], "help") && argc == 2)) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? MG_EXIT_USAGE : 0;
	}
	/* memguard help COMMAND: what 'memguard COMMAND --help' prints */
	static char help_flag[] = "--help";
	char *help_argv[4];
	if (!strcmp(argv[1], "help")) {
		if (argc > 3 || !is_command(argv[2])) {
			fprintf(stderr, "memguard help: %s\n\n%s",
			        argc > 3 ? "one command at a time" : "unknown command", usage);
			return MG_EXIT_USAGE;
		}
		if (!strcmp(argv[2], "version")) {
			puts("usage: memguard version\n  Prints the version.");
			return 0;
		}
		help_argv[0] = argv[0];
		help_argv[1] = argv[2];
		help_argv[2] = help_flag;
		help_argv[3] = NULL;
		argv = help_argv;
		argc = 3;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "run")) {
		static const run_hooks hooks = {ci_commit_identity, ci_history};
		return run_main(argc - 1, argv + 1, &hooks);
	}
	if (!strcmp(cmd, "bisect"))
		return bisect_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "list"))
		return run_list_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "__driver"))
		return driver_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "report"))
		return report_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
		printf("memguard %s\n", MEMGUARD_VERSION);
		return 0;
	}
	static const char *const ci_cmds[] = {"note", "show",        "compare",
	                                      "log",  "notes-merge", "merge"};
	for (size_t i = 0; i < sizeof(ci_cmds) / sizeof(ci_cmds[0]); i++)
		if (!strcmp(cmd, ci_cmds[i]))
			return ci_main(cmd, argc - 1, argv + 1);
	fprintf(stderr, "memguard: unknown command '%s'\n\n%s", cmd, usage);
	return MG_EXIT_USAGE;
}

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
#include "mg_suggest.h"
#include "report.h"
#include "run.h"

/* The commands: their names for dispatch, help and "did you mean", and the
 * overview's lines (synopsis, summary). */
static const struct {
	const char *name;
	const char *synopsis;
	const char *summary;
} commands[] = {
    {"run", "run [options] -- HOST...", "run a test host's tests under the guard"},
    {"list", "list -- HOST...", "list the host's tests"},
    {"bisect", "bisect [--report R.json] -- HOST...", "name the test that makes a later one crash"},
    {"report", "report --adapter NAME[=PATH]... REPORT.json",
     "render a saved report (console, junit, html, ...)"},
    {"merge", "merge OUT.json IN.json...", "combine node reports into one"},
    {"note", "note REPORT.json", "attach a report to a commit (git notes)"},
    {"show", "show [REV]", "a commit's per-shard table"},
    {"compare", "compare BASE HEAD", "memory of two commits or report files"},
    {"log", "log [-n N] [REV]", "memory per commit, first-parent history"},
    {"notes-merge", "notes-merge OTHER_REF", "merge another notes ref into ours"},
    {"version", "version", "print the version"},
    {"help", "help [COMMAND]", "this overview, or a command's options"},
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void main_usage(FILE *f)
{
	fputs("usage: memguard <command> [options]\n\n", f);
	for (size_t i = 0; i < NCOMMANDS; i++) {
		if (strlen(commands[i].synopsis) < 28)
			fprintf(f, "  %-29s%s\n", commands[i].synopsis, commands[i].summary);
		else
			fprintf(f, "  %s\n  %29s%s\n", commands[i].synopsis, "",
			        commands[i].summary);
	}
	fputs("\n'memguard help COMMAND' (or 'memguard COMMAND -h') shows a command's\n"
	      "options. Exit codes: 0 all passed, 1 a test did not pass, 2 usage or config\n"
	      "error, 3 infrastructure error, 4 memory regression, 5 no tests ran, 130/143\n"
	      "interrupted.\n",
	      f);
}

static const char help_usage[] =
    "usage: memguard help [COMMAND]\n"
    "  Without COMMAND: the commands and the exit codes. With one: that command's\n"
    "  options, what 'memguard COMMAND --help' prints (the man pages memguard(1)\n"
    "  and memguard-COMMAND(1) are made from the same text). Exit 2: an unknown\n"
    "  command (the closest one is suggested).\n";

static const char version_usage[] = "usage: memguard version\n"
                                    "  Prints the version ('memguard --version' too).\n";

static void report_usage(FILE *f)
{
	fputs("usage: memguard report [--adapter NAME[:DETAIL][=PATH]]... REPORT.json\n"
	      "  Renders a report that 'memguard run --report' saved, with the same\n"
	      "  adapters as run's --adapter (repeatable; default console). Exit 0; 2: bad\n"
	      "  arguments or a path that names no file; 3: the report cannot be read\n"
	      "  (corrupt, truncated, not a memguard report) or an adapter's file cannot\n"
	      "  be written.\n"
	      "\n",
	      f);
	adapters_usage(f);
}

/* The command closest to a typo, or NULL. */
static const char *main_suggest(const char *typed)
{
	const char *names[NCOMMANDS];
	for (size_t i = 0; i < NCOMMANDS; i++)
		names[i] = commands[i].name;
	return suggest_word(typed, names, NCOMMANDS);
}

/* "memguard: unknown command 'rnu'; did you mean 'run'?" and the overview. */
static int main_unknown(const char *who, const char *cmd)
{
	const char *near = main_suggest(cmd);
	fprintf(stderr, "%s: unknown command '%s'", who, cmd);
	if (near)
		fprintf(stderr, "; did you mean '%s'?", near);
	fputs("\n\n", stderr);
	main_usage(stderr);
	return MG_EXIT_USAGE;
}

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
			report_usage(stdout);
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
			char near[64];
			fprintf(stderr, "memguard report: unknown option '%s'", a);
			if (suggest_option(near, sizeof(near), a, "--adapter --help") == 0)
				fprintf(stderr, "; did you mean '%s'?", near);
			fputc('\n', stderr);
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
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(cmd, commands[i].name))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    (!strcmp(argv[1], "help") && argc == 2)) {
		main_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? MG_EXIT_USAGE : 0;
	}
	/* memguard help COMMAND: what 'memguard COMMAND --help' prints */
	static char help_flag[] = "--help";
	char *help_argv[4];
	if (!strcmp(argv[1], "help")) {
		if (argc > 3) {
			fputs("memguard help: one command at a time\n\n", stderr);
			main_usage(stderr);
			return MG_EXIT_USAGE;
		}
		if (!is_command(argv[2]))
			return main_unknown("memguard help", argv[2]);
		if (!strcmp(argv[2], "version") || !strcmp(argv[2], "help")) {
			fputs(argv[2][0] == 'v' ? version_usage : help_usage, stdout);
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
	return main_unknown("memguard", cmd);
}

/*
 * ci.c - the entry point of the ci subcommands: dispatch, help texts,
 * option scanning without getopt's global state (ci_main may run many times
 * in one process), and the report totals the commands share.
 */
#include <stdarg.h>
#include <string.h>

#include "ci_int.h"
#include "mg_suggest.h"

static const struct {
	const char *cmd;
	int (*fn)(int, char **);
	const char *usage;
} commands[] = {
    {"note", note_main,
     "usage: memguard note [--ref REF] [--commit REV] [--keep-timeline] REPORT.json\n"
     "  Stores the report as the git note of REV (default: the report's own commit\n"
     "  when it is in this repository, else HEAD) under refs/notes/memguard.\n"
     "  The note is compact JSON without timelines (unless --keep-timeline) or\n"
     "  captured test output. A note already there is merged by shard key (node,\n"
     "  arch, suite, index): the same key is replaced, other shards are kept.\n"
     "  A note that is not a memguard report is left as it is (exit 3).\n"},
    {"notes-merge", notes_merge_main,
     "usage: memguard notes-merge [--ref REF] OTHER_REF\n"
     "  Merges the notes of OTHER_REF (e.g. refs/notes/memguard-remote, fetched with\n"
     "  +refs/notes/memguard:refs/notes/memguard-remote) into REF: every commit's two\n"
     "  notes are merged by shard key, and REF gets a notes commit with both parents\n"
     "  (or moves to OTHER_REF when that holds all of REF's history). Where one side's\n"
     "  note is not a memguard report, the side that is one is kept, with a warning\n"
     "  (at a fast-forward, a later memguard's report, of a schema this one does not\n"
     "  read, is taken).\n"
     "  OTHER_REF must be under refs/notes/ (NAME is short for refs/notes/NAME); a\n"
     "  branch or revision is a usage error. A missing OTHER_REF merges nothing and\n"
     "  exits 0.\n"},
    {"show", show_main,
     "usage: memguard show [--ref REF] [--tests] [REV]\n"
     "  Prints the per-shard table of the note on REV (default HEAD); --tests also\n"
     "  lists the tests that left the most memory behind.\n"
     "  Exit 1: REV has no memguard note; 3: the note is not a memguard report.\n"},
    {"compare", compare_main,
     "usage: memguard compare [--ref REF] [--max-growth LIMITS] [--history N]\n"
     "                        [--format text|markdown|json] BASE HEAD\n"
     "  BASE and HEAD are revisions or report files; when both are revisions, BASE\n"
     "  is replaced by merge-base(BASE, HEAD) and the output says so. Shards are\n"
     "  matched by what they are, (node, arch, suite): a run's lanes are one\n"
     "  group, never matched by lane index; tests by arch, name and suite.\n"
     "  Judged by default: figures that do not depend on which lane ran which\n"
     "  test - each test's retained VA and RSS and its rise (VmPeak above its\n"
     "  start), the suite's retained VA and largest rise, and a process-per-test\n"
     "  driver's tests' peak VA (its shim's own peak is not shown). The lanes'\n"
     "  peak VA, peak RSS and recycles are shown, judged only when each side ran\n"
     "  the group in one lane.\n"
     "  LIMITS: comma-separated METRIC=N% or METRIC=SIZE, METRIC one of va, rss,\n"
     "  recycles (one lane's; va also a process-per-test test's peak), test (VA\n"
     "  or RSS one test left behind; a process of its own: its peak VA), rise\n"
     "  (a test's, and the suite's largest), retained (the suite's, summed); a\n"
     "  metric may have both; either one exceeded fails. SIZE: 512K, 64M, 1.5G;\n"
     "  K, M, G, T and KiB, MiB, GiB, TiB are powers of 1024, KB, MB, GB, TB\n"
     "  powers of 1000 (as in run's limits). Relative limits apply when the base\n"
     "  is above 0. 'none': no limits.\n"
     "  Default: va=5%,rss=10%,test=4M,rise=16M,retained=16M.\n"
     "  --history N: BASE a revision; each figure is judged against the top of\n"
     "  the band it spanned over the last N noted commits of BASE's first-parent\n"
     "  line (BASE included), widened by its limit; the output shows the band.\n"
     "  Exit 0: within limits; 1: no note on BASE or HEAD, or the merge base is\n"
     "  missing (shallow clone) - nothing was compared; 2: bad arguments;\n"
     "  3: repository or note error; 4: a limit was exceeded (the first 10 listed,\n"
     "  then how many more; --format json lists all). Text and Markdown show 60\n"
     "  shard rows at most (every exceeded one among them) and the 10 tests that\n"
     "  grew most; --format json has every row.\n"
     "\n"
     "       memguard compare --table [--ref REF] [--label NAME]...\n"
     "                        [--baseline N|LABEL] [--format text|markdown|csv]\n"
     "                        REPORT...\n"
     "  The experiment table: one row per report per (arch, suite) - peak VA, peak\n"
     "  RSS, tests run (of listed), pass, fail, other (skip, not-run), recycles,\n"
     "  kills, wall (the longest lane). REPORT is a report file or a revision\n"
     "  whose note is read (no merge base). Rows are labelled by --label, in order,\n"
     "  else by the file name without .json or the short commit. --baseline adds a\n"
     "  column of differences against that report (its row number from 1, or its\n"
     "  label). Exit 0; 1: a revision has no note; 2: bad arguments; 3: a bad report.\n"},
    {"log", log_main,
     "usage: memguard log [--ref REF] [-n N] [--format text|json|csv|html]\n"
     "                    [--test NAME] [-o FILE] [REV | A..B]\n"
     "  One line per commit with a note, following first parents from REV\n"
     "  (default HEAD; A..B stops at A's history), newest first, at most N lines\n"
     "  (default 20): peak VA, peak RSS, recycles, tests, result, and a sparkline\n"
     "  of peak VA. Commits without\n"
     "  a note are skipped and counted in the footer.\n"
     "  --format html: one self-contained page (inline SVG and CSS, no script, no\n"
     "  request): per (arch, suite) peak VA and peak RSS per commit, recycles and\n"
     "  kills marked, each point linked to that commit's table further down; -n\n"
     "  defaults to 100. --test NAME charts that test's retained VA/RSS and its\n"
     "  duration instead. -o FILE writes the page atomically (default stdout).\n"},
    {"merge", merge_main,
     "usage: memguard merge OUT.json IN.json...\n"
     "  Combines the reports of several nodes into one (shards keyed by node, arch,\n"
     "  suite, index; a later file's shard replaces an earlier one with the same\n"
     "  key), written atomically.\n"},
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

const char *ci_usage(void)
{
	return "memguard ci commands (per-commit reports in git notes, refs/notes/memguard):\n"
	       "  memguard note [--ref REF] [--commit REV] [--keep-timeline] REPORT.json\n"
	       "  memguard notes-merge [--ref REF] OTHER_REF\n"
	       "  memguard show [--ref REF] [--tests] [REV]\n"
	       "  memguard compare [--ref REF] [--max-growth LIMITS] [--format text|markdown|json]"
	       " BASE HEAD\n"
	       "  memguard compare --table [--label NAME]... [--baseline N|LABEL]"
	       " [--format text|markdown|csv] REPORT...\n"
	       "  memguard log [--ref REF] [-n N] [--format text|json|csv|html] [--test NAME]"
	       " [-o FILE] [REV | A..B]\n"
	       "  memguard merge OUT.json IN.json...\n"
	       "REF defaults to $MEMGUARD_NOTES_REF, else refs/notes/memguard.\n"
	       "Exit codes: 0 ok; 1 no note (show) or no baseline (compare); 2 usage;\n"
	       "3 repository, libgit2 or corrupt note; 4 memory regression (compare).\n"
	       "'memguard CMD -h' describes each.\n";
}

int ci_cmd_usage(const char *cmd, FILE *to, int code)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].cmd, cmd) == 0)
			fputs(commands[i].usage, to);
	return code;
}

int ci_fail(const char *cmd, int code, const char *fmt, ...)
{
	va_list ap;
	fflush(stdout);
	fprintf(stderr, "memguard %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

int ci_unknown_option(const char *cmd, const char *arg)
{
	char near[64];
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].cmd, cmd) == 0 &&
		    suggest_option(near, sizeof(near), arg, commands[i].usage) == 0)
			return ci_fail(cmd, MG_EXIT_USAGE,
			               "unknown option '%s'; did you mean '%s'?", arg, near);
	return ci_fail(cmd, MG_EXIT_USAGE, "unknown option '%s'", arg);
}

int ci_is_help(const char *arg)
{
	return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

int ci_opt(const char *cmd, int argc, char **argv, int *i, const char *name, const char **val)
{
	const char *a = argv[*i];
	size_t len = strlen(name);
	if (strncmp(a, name, len) != 0)
		return 0;
	if (a[len] == '\0') {
		if (*i + 1 >= argc)
			return -ci_fail(cmd, MG_EXIT_USAGE, "%s needs a value", name);
		*val = argv[++*i];
		return 1;
	}
	if (name[1] == '-' && a[len] == '=') { /* --ref=X */
		*val = a + len + 1;
		return 1;
	}
	if (name[1] != '-') { /* -n5 */
		*val = a + len;
		return 1;
	}
	return 0;
}

const char *ci_result(int interrupted, const report_totals *t)
{
	if (interrupted)
		return "interrupted";
	return t->failed ? "fail" : "pass";
}

static const char *nz(const char *s)
{
	return s ? s : "?";
}

int ci_suite_has(const ci_suite *k, const report_shard *s)
{
	return strcmp(nz(s->arch), k->arch) == 0 && strcmp(nz(s->suite), k->suite) == 0;
}

void ci_suites_add(ci_suite **v, size_t *n, size_t *cap, const report *r,
                   int (*keep)(const report *r, const ci_suite *k, void *ctx), void *ctx)
{
	for (size_t i = 0; r && i < r->nshards; i++) {
		const report_shard *s = &r->shards[i];
		size_t j = 0;
		while (j < *n && !ci_suite_has(&(*v)[j], s))
			j++;
		ci_suite k = {nz(s->arch), nz(s->suite)};
		if (j < *n || (keep && !keep(r, &k, ctx)))
			continue;
		if (*n == *cap) {
			*cap = *cap ? 2 * *cap : 8;
			*v = mg_xrealloc(*v, *cap * sizeof(**v));
		}
		(*v)[(*n)++] = k;
	}
}

int ci_suite_sum(const report *r, const ci_suite *k, report_totals *t, double *wall)
{
	int present = 0;
	memset(t, 0, sizeof(*t));
	*wall = 0;
	for (size_t i = 0; r && i < r->nshards; i++) {
		const report_shard *s = &r->shards[i];
		if (!ci_suite_has(k, s))
			continue;
		present = 1;
		report_totals_add(t, s);
		*wall = s->wall > *wall ? s->wall : *wall;
	}
	return present;
}

int ci_main(const char *cmd, int argc, char **argv)
{
	int rc = MG_EXIT_USAGE;
	if (!cmd) {
		fputs(ci_usage(), stderr);
		return MG_EXIT_USAGE;
	}
	for (size_t i = 0; i < NCOMMANDS; i++) {
		if (strcmp(commands[i].cmd, cmd) != 0)
			continue;
		mg_err err;
		if (ci_git_load(&err) < 0)
			return ci_fail(cmd, MG_EXIT_INFRA, "%s", err.msg);
		if (git_libgit2_init() < 0)
			return ci_fail(cmd, MG_EXIT_INFRA, "cannot initialise libgit2");
		rc = commands[i].fn(argc, argv);
		git_libgit2_shutdown();
		fflush(stdout);
		return rc;
	}
	fprintf(stderr, "memguard: unknown command '%s'\n%s", cmd, ci_usage());
	return MG_EXIT_USAGE;
}

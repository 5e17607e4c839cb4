/*
 * compare_table.c - "memguard compare --table R1 R2 R3...": the experiment
 * table of any number of reports (files, or revisions whose note is read),
 * one row per report per suite, in text, Markdown or CSV, with an optional
 * column of differences against a baseline row. Compares, never gates: the
 * exit code says nothing about memory.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ci_int.h"

#define CMD "compare"

enum { TFMT_TEXT, TFMT_MARKDOWN, TFMT_CSV };

/* One report of the table. */
typedef struct table_src {
	const char *arg;
	char label[128];
	report *r;
} table_src;

/* One (report, suite) cell group: the totals of its shards. */
typedef struct table_row {
	int present; /* 0: the report did not run this suite */
	report_totals t;
	uint64_t run; /* tests that ran: every state but not-run */
	double wall;  /* the longest of its shards: lanes run side by side */
} table_row;

static int is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The (arch, suite) groups of all reports, in order of first appearance;
 * *multi_arch when they are of more than one arch. */
static size_t collect_suites(ci_suite **out, const table_src *srcs, size_t nsrc, int *multi_arch)
{
	size_t n = 0, cap = 0;
	ci_suite *v = NULL;
	for (size_t k = 0; k < nsrc; k++)
		ci_suites_add(&v, &n, &cap, srcs[k].r, NULL, NULL);
	*multi_arch = 0;
	for (size_t j = 1; j < n; j++)
		if (strcmp(v[0].arch, v[j].arch) != 0)
			*multi_arch = 1;
	*out = v;
	return n;
}

static table_row row_of(const report *r, const ci_suite *k)
{
	table_row w;
	memset(&w, 0, sizeof(w));
	w.present = ci_suite_sum(r, k, &w.t, &w.wall);
	w.run = w.t.tests - w.t.counts[TEST_NOTRUN];
	return w;
}

static int64_t diff_u64(uint64_t a, uint64_t b)
{
	if (a >= b)
		return a - b > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)(a - b);
	return b - a > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)(b - a);
}

/* "-1.50 GiB (-42.9%)": head - base as a size, with the percentage of base. */
static size_t put_size_delta(char *buf, size_t size, uint64_t base, uint64_t head)
{
	char v[32];
	int64_t d = diff_u64(head, base);
	report_format_size(v, sizeof(v), d < 0 ? (uint64_t)0 - (uint64_t)d : (uint64_t)d);
	if (base)
		return (size_t)snprintf(buf, size, "%s%s (%+.1f%%)", d < 0 ? "-" : "+", v,
		                        100.0 * ((double)head - (double)base) / (double)base);
	return (size_t)snprintf(buf, size, "%s%s", d < 0 ? "-" : "+", v);
}

/* The difference column: VA always, then RSS and each count that changed. */
static void delta_text(char *buf, size_t size, const table_row *b, const table_row *w, int is_base)
{
	size_t len = 0;
	if (is_base) {
		snprintf(buf, size, "baseline");
		return;
	}
	if (!b->present || !w->present) {
		snprintf(buf, size, "%s", w->present ? "new" : "-");
		return;
	}
	len += (size_t)snprintf(buf + len, size - len, "VA ");
	len += put_size_delta(buf + len, size - len, b->t.peak_va, w->t.peak_va);
	if (w->t.peak_rss != b->t.peak_rss && len < size) {
		len += (size_t)snprintf(buf + len, size - len, ", RSS ");
		len += put_size_delta(buf + len, size - len, b->t.peak_rss, w->t.peak_rss);
	}
	static const char *const names[] = {"run", "pass", "fail", "other", "recycles", "kills"};
	const uint64_t bv[] = {b->run,     b->t.counts[TEST_PASS], b->t.failed,
	                       b->t.other, b->t.recycles,          b->t.kills};
	const uint64_t wv[] = {w->run,     w->t.counts[TEST_PASS], w->t.failed,
	                       w->t.other, w->t.recycles,          w->t.kills};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && len < size; i++)
		if (bv[i] != wv[i])
			len += (size_t)snprintf(buf + len, size - len, ", %s %+lld", names[i],
			                        (long long)diff_u64(wv[i], bv[i]));
}

#define NCOLS 12

/* The cells of one row for text and Markdown (human units). */
static void human_cells(char cells[NCOLS][192], const table_src *src, const ci_suite *k,
                        int multi_arch, const table_row *w)
{
	snprintf(cells[0], sizeof(cells[0]), "%s", src->label);
	if (multi_arch)
		snprintf(cells[1], sizeof(cells[1]), "%s %s", k->arch, k->suite);
	else
		snprintf(cells[1], sizeof(cells[1]), "%s", k->suite);
	if (!w->present) {
		for (int c = 2; c < NCOLS - 1; c++)
			snprintf(cells[c], sizeof(cells[c]), "-");
		return;
	}
	report_format_size(cells[2], sizeof(cells[2]), w->t.peak_va);
	report_format_size(cells[3], sizeof(cells[3]), w->t.peak_rss);
	snprintf(cells[4], sizeof(cells[4]), "%llu/%llu", (unsigned long long)w->run,
	         (unsigned long long)w->t.tests);
	snprintf(cells[5], sizeof(cells[5]), "%llu", (unsigned long long)w->t.counts[TEST_PASS]);
	snprintf(cells[6], sizeof(cells[6]), "%llu", (unsigned long long)w->t.failed);
	snprintf(cells[7], sizeof(cells[7]), "%llu", (unsigned long long)w->t.other);
	snprintf(cells[8], sizeof(cells[8]), "%llu", (unsigned long long)w->t.recycles);
	snprintf(cells[9], sizeof(cells[9]), "%llu", (unsigned long long)w->t.kills);
	report_format_duration(cells[10], sizeof(cells[10]), w->wall);
}

/* A CSV field: quoted when it holds a comma, a quote or a line break. */
static void csv_field(const char *s, int last)
{
	if (strpbrk(s, ",\"\r\n")) {
		putchar('"');
		for (const char *p = s; *p; p++) {
			if (*p == '"')
				putchar('"');
			putchar(*p);
		}
		putchar('"');
	} else {
		fputs(s, stdout);
	}
	putchar(last ? '\n' : ',');
}

/* A Markdown cell: pipes escaped, line breaks never occur (labels are one line). */
static void md_cell(const char *s)
{
	fputs("| ", stdout);
	for (const char *p = s; *p; p++) {
		if (*p == '|')
			putchar('\\');
		putchar(*p);
	}
	putchar(' ');
}

static void output_csv(const table_src *srcs, size_t nsrc, const ci_suite *suites, size_t nsuites,
                       long base)
{
	fputs("report,arch,suite,peak_va,peak_rss,tests_run,tests_listed,pass,fail,other,"
	      "recycles,kills,wall_s",
	      stdout);
	if (base >= 0)
		fputs(",delta_peak_va,delta_peak_rss,delta_tests_run,delta_fail,delta_kills",
		      stdout);
	putchar('\n');
	for (size_t si = 0; si < nsuites; si++) {
		table_row b = base >= 0 ? row_of(srcs[base].r, &suites[si]) : (table_row){0};
		for (size_t k = 0; k < nsrc; k++) {
			table_row w = row_of(srcs[k].r, &suites[si]);
			csv_field(srcs[k].label, 0);
			csv_field(suites[si].arch, 0);
			csv_field(suites[si].suite, 0);
			if (w.present)
				printf("%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%.3f",
				       (unsigned long long)w.t.peak_va,
				       (unsigned long long)w.t.peak_rss, (unsigned long long)w.run,
				       (unsigned long long)w.t.tests,
				       (unsigned long long)w.t.counts[TEST_PASS],
				       (unsigned long long)w.t.failed,
				       (unsigned long long)w.t.other,
				       (unsigned long long)w.t.recycles,
				       (unsigned long long)w.t.kills, w.wall);
			else
				fputs(",,,,,,,,,", stdout);
			if (base >= 0) {
				if (w.present && b.present)
					printf(",%lld,%lld,%lld,%lld,%lld",
					       (long long)diff_u64(w.t.peak_va, b.t.peak_va),
					       (long long)diff_u64(w.t.peak_rss, b.t.peak_rss),
					       (long long)diff_u64(w.run, b.run),
					       (long long)diff_u64(w.t.failed, b.t.failed),
					       (long long)diff_u64(w.t.kills, b.t.kills));
				else
					fputs(",,,,,", stdout);
			}
			putchar('\n');
		}
	}
}

static void output_human(int md, const table_src *srcs, size_t nsrc, const ci_suite *suites,
                         size_t nsuites, int multi_arch, long base)
{
	char head[NCOLS][192] = {"report", "suite", "peak VA",  "peak RSS", "tests run", "pass",
	                         "fail",   "other", "recycles", "kills",    "wall",      ""};
	int ncols = base >= 0 ? NCOLS : NCOLS - 1;
	size_t nrows = nsuites * nsrc;
	char(*cells)[NCOLS][192] = calloc(nrows ? nrows : 1, sizeof(*cells));
	if (!cells)
		abort();
	if (base >= 0)
		snprintf(head[NCOLS - 1], sizeof(head[0]), "vs %s", srcs[base].label);
	for (size_t si = 0; si < nsuites; si++) {
		table_row b = base >= 0 ? row_of(srcs[base].r, &suites[si]) : (table_row){0};
		for (size_t k = 0; k < nsrc; k++) {
			table_row w = row_of(srcs[k].r, &suites[si]);
			char(*c)[192] = cells[si * nsrc + k];
			human_cells(c, &srcs[k], &suites[si], multi_arch, &w);
			if (base >= 0)
				delta_text(c[NCOLS - 1], sizeof(c[0]), &b, &w, (long)k == base);
		}
	}
	if (md) {
		for (int c = 0; c < ncols; c++)
			md_cell(head[c]);
		puts("|");
		for (int c = 0; c < ncols; c++)
			fputs(c >= 2 && c <= 10 ? "| ---: " : "| --- ", stdout);
		puts("|");
		for (size_t i = 0; i < nrows; i++) {
			for (int c = 0; c < ncols; c++)
				md_cell(cells[i][c]);
			puts("|");
		}
		free(cells);
		return;
	}
	/* text: columns as wide as their widest cell (bytes; labels are short) */
	size_t width[NCOLS];
	for (int c = 0; c < ncols; c++) {
		width[c] = strlen(head[c]);
		for (size_t i = 0; i < nrows; i++)
			width[c] = strlen(cells[i][c]) > width[c] ? strlen(cells[i][c]) : width[c];
	}
	for (size_t i = 0; i <= nrows; i++) {
		char(*row)[192] = i ? cells[i - 1] : head;
		for (int c = 0; c < ncols; c++) {
			int left = c < 2 || c == NCOLS - 1;
			int lastcol = c == ncols - 1;
			if (left && lastcol)
				printf("%s", row[c]);
			else
				printf(left ? "%-*s" : "%*s", (int)width[c], row[c]);
			if (!lastcol)
				fputs("  ", stdout);
		}
		putchar('\n');
	}
	free(cells);
}

/* The default label: a file's name without directory and ".json", a
 * revision's short commit. */
static void default_label(char *buf, size_t size, const char *arg, const git_oid *commit)
{
	char sha[16];
	if (commit) {
		snprintf(buf, size, "%s", store_short(sha, commit));
		return;
	}
	const char *base = strrchr(arg, '/');
	base = base ? base + 1 : arg;
	size_t len = strlen(base);
	if (len > 5 && strcmp(base + len - 5, ".json") == 0)
		len -= 5;
	snprintf(buf, size, "%.*s", (int)len, base);
}

int compare_table_main(int argc, char **argv)
{
	const char *ref = NULL, *format = "text", *baseline = NULL, *val;
	const char **labels = calloc((size_t)argc, sizeof(char *));
	table_src *srcs = calloc((size_t)argc, sizeof(*srcs));
	size_t nlabels = 0, nsrc = 0, nsuites = 0;
	ci_suite *suites = NULL;
	store s = {0};
	notes n = {0};
	mg_err err;
	int fmt, rc, o, multi_arch = 0, loaded = 0;
	long base = -1;

	if (!labels || !srcs)
		abort();
	for (int i = 1; i < argc; i++) {
		if (ci_is_help(argv[i])) {
			rc = ci_cmd_usage(CMD, stdout, MG_EXIT_OK);
			goto out;
		}
		if (strcmp(argv[i], "--table") == 0)
			continue;
		if ((o = ci_opt(CMD, argc, argv, &i, "--ref", &ref)) ||
		    (o = ci_opt(CMD, argc, argv, &i, "--format", &format)) ||
		    (o = ci_opt(CMD, argc, argv, &i, "--baseline", &baseline))) {
			if (o < 0) {
				rc = -o;
				goto out;
			}
		} else if ((o = ci_opt(CMD, argc, argv, &i, "--label", &val))) {
			if (o < 0) {
				rc = -o;
				goto out;
			}
			labels[nlabels++] = val;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			rc = ci_fail(CMD, MG_EXIT_USAGE, "unknown option '%s' with --table%s",
			             argv[i],
			             strcmp(argv[i], "--max-growth") == 0
			                 ? " (the table compares, it does not gate)"
			                 : "");
			goto out;
		} else {
			srcs[nsrc++].arg = argv[i];
		}
	}
	if (nsrc == 0) {
		rc = ci_fail(CMD, MG_EXIT_USAGE, "--table needs at least one report or revision");
		goto out;
	}
	if (nlabels > nsrc) {
		rc = ci_fail(CMD, MG_EXIT_USAGE, "%zu --label for %zu report%s", nlabels, nsrc,
		             nsrc == 1 ? "" : "s");
		goto out;
	}
	if (strcmp(format, "text") == 0)
		fmt = TFMT_TEXT;
	else if (strcmp(format, "markdown") == 0 || strcmp(format, "md") == 0)
		fmt = TFMT_MARKDOWN;
	else if (strcmp(format, "csv") == 0)
		fmt = TFMT_CSV;
	else {
		rc = ci_fail(CMD, MG_EXIT_USAGE,
		             "unknown format '%s' with --table (text, markdown, csv)", format);
		goto out;
	}
	for (size_t k = 0; k < nsrc; k++) {
		table_src *sd = &srcs[k];
		if (is_file(sd->arg)) {
			if ((rc = report_load_tests(&sd->r, sd->arg, NULL, NULL, &err)) < 0) {
				rc = ci_fail(CMD, report_load_exit(rc), "%s", err.msg);
				goto out;
			}
			default_label(sd->label, sizeof(sd->label), sd->arg, NULL);
		} else {
			git_oid commit;
			if (!s.repo && (rc = store_open(&s, ref, &err)) < 0) {
				rc = ci_fail(CMD, rc == MG_EINVAL ? MG_EXIT_USAGE : MG_EXIT_INFRA,
				             "'%s' is not a file, and %s", sd->arg, err.msg);
				goto out;
			}
			if (!loaded++ && (rc = notes_load(&n, s.repo, s.ref, &err)) < 0) {
				rc = ci_fail(CMD, MG_EXIT_INFRA, "%s", err.msg);
				goto out;
			}
			if ((rc = store_resolve(&commit, &s, sd->arg, &err)) < 0) {
				rc =
				    ci_fail(CMD, rc == MG_ENOTFOUND ? MG_EXIT_USAGE : MG_EXIT_INFRA,
				            "'%s' is neither a report file nor a revision (%s)",
				            sd->arg, err.msg);
				goto out;
			}
			rc = store_read_note_tests(&sd->r, &s, &n, &commit, NULL, NULL, &err);
			if (rc == MG_ENOTFOUND) {
				char sha[16];
				rc = ci_fail(CMD, MG_EXIT_FAILED,
				             "no memguard note on %s (%s) in %s",
				             store_short(sha, &commit), sd->arg, s.ref);
				goto out;
			}
			if (rc < 0) {
				rc = ci_fail(CMD, MG_EXIT_INFRA, "%s", err.msg);
				goto out;
			}
			default_label(sd->label, sizeof(sd->label), sd->arg, &commit);
		}
		if (k < nlabels)
			snprintf(sd->label, sizeof(sd->label), "%s", labels[k]);
	}
	if (baseline) {
		char *end;
		long v = strtol(baseline, &end, 10);
		if (*baseline && !*end && v >= 1 && (size_t)v <= nsrc)
			base = v - 1;
		for (size_t k = 0; base < 0 && k < nsrc; k++)
			if (strcmp(srcs[k].label, baseline) == 0)
				base = (long)k;
		if (base < 0) {
			rc = ci_fail(CMD, MG_EXIT_USAGE,
			             "--baseline '%s' is neither a row number (1-%zu) nor a label",
			             baseline, nsrc);
			goto out;
		}
	}
	nsuites = collect_suites(&suites, srcs, nsrc, &multi_arch);
	if (fmt == TFMT_CSV)
		output_csv(srcs, nsrc, suites, nsuites, base);
	else
		output_human(fmt == TFMT_MARKDOWN, srcs, nsrc, suites, nsuites, multi_arch, base);
	rc = MG_EXIT_OK;
out:
	for (size_t k = 0; k < nsrc; k++)
		report_free(srcs[k].r);
	free(srcs);
	free(labels);
	free(suites);
	notes_free(&n);
	store_close(&s);
	return rc;
}

/*
 * adapters.h - rendering a report for a CI system or a person. An adapter
 * spec is NAME or NAME=PATH; every adapter renders from the report model
 * only (report.h) and never calls runner or guard code.
 */
#ifndef MG_ADAPTERS_H
#define MG_ADAPTERS_H

#include <stdint.h>
#include <stdio.h>

#include "mg_err.h"
#include "report.h"

/*
 * How much of each test's memory junit and teamcity write: spec
 * NAME:DETAIL[=PATH]. informative (the default): only for a test that is
 * informative (adapters_test_informative); all: every test; none: no test.
 * properties (junit only): every test, as <properties> inside its
 * <testcase>, the form Jenkins' keepProperties reads (not valid under
 * junit-10.xsd or the windyroad JUnit.xsd). Shards' figures are always
 * written.
 */
typedef enum adapters_detail {
	ADAPTERS_INFORMATIVE,
	ADAPTERS_ALL,
	ADAPTERS_NONE,
	ADAPTERS_PROPERTIES,
} adapters_detail;

/* What a test must have left behind (VA or RSS, bytes) to be informative. */
#define ADAPTERS_INFORMATIVE_BYTES (1 << 20)

/* 1 when t's memory is worth showing per test: it failed (fail, crash,
 * timeout, memory-limit, error), was retried, or left at least ADAPTERS_INFORMATIVE_BYTES
 * of VA or RSS behind. */
int adapters_test_informative(const report_test *t);
/* 1 when detail d writes t's memory. */
int adapters_test_detailed(const report_test *t, adapters_detail d);

/* 0 if spec names a known adapter (NAME, NAME=PATH, or NAME:DETAIL[=PATH]
 * for an adapter that takes a detail); MG_EINVAL naming the
 * unknown one and listing the known ones otherwise. Does not touch files. */
int adapters_check(const char *spec, mg_err *err);
/* The file (or gitlab's folder) spec's =PATH names, checked as the run's
 * report is before the suite runs: MG_ERROR when it could not be written
 * there (atomic_check; a folder whose parent is missing). */
int adapters_check_path(const char *spec, mg_err *err);

/* Renders r as spec says. Files are written atomically (atomic.h: a private
 * temporary, then rename) unless the adapter appends by nature (GitHub step
 * summary). */
int adapters_render(const report *r, const char *spec, mg_err *err);

/* The adapters "auto" picks from the environment, most important first:
 * up to cap names (static strings) in names; returns how many there are
 * (which may be more than cap). Never 0: "console" when no CI is detected. */
size_t adapters_auto(const char **names, size_t cap);

/* 1 if spec writes the console table to stdout ("console", "console=-", or
 * "auto" where it picks console): the runner then does not add the job-log
 * table a second time. */
int adapters_console_on_stdout(const char *spec);

/* The known adapter names, NULL-terminated. */
const char *const *adapters_names(void);

/* Help: every adapter, what it writes and its default target, and the
 * details; `memguard help report` and the man page print it. */
void adapters_usage(FILE *f);

/*
 * Output helper every adapter uses: path NULL or "-" means stdout (nothing
 * to commit); otherwise the file is written through atomic_open (a private
 * temporary renamed over PATH by adapters_out_close(ok=1); a device or FIFO
 * in place). With ok=0, or on any write error, the temporary is removed and
 * PATH is untouched.
 */
typedef struct adapters_out {
	FILE *f;
	struct atomic_file *file; /* NULL for stdout */
} adapters_out;

int adapters_out_open(adapters_out *o, const char *path, mg_err *err);
int adapters_out_close(adapters_out *o, int ok, mg_err *err);

/* Writes s to f with control bytes (and DEL) shown as \xNN, invalid UTF-8
 * as U+FFFD, and at most max bytes of s (then "..."): for people reading a
 * terminal or log. */
void adapters_put_printable(FILE *f, const char *s, size_t max);

enum {
	ADAPTERS_ONELINE = 1, /* tab, CR and LF become spaces */
	ADAPTERS_XML = 2,     /* also replace U+FFFE and U+FFFF (not XML chars) */
};

/*
 * A malloc'd copy of s that any output can carry: bytes that are not valid
 * UTF-8 become U+FFFD, control bytes other than tab, CR and LF (and DEL)
 * become the text \xNN; at most max bytes of s are taken (0: all), then
 * "..." is appended. *truncated (may be NULL) says whether s was cut.
 */
char *adapters_clean(const char *s, size_t max, unsigned flags, int *truncated);
/* The same for len bytes at s, which may hold NUL (shown as \x00, as every
 * control byte): a test's output (report_bytes). */
char *adapters_clean_n(const char *s, size_t len, size_t max, unsigned flags, int *truncated);

/* Writes s cleaned (adapters_clean, at most 4096 bytes), each byte found
 * in chars replaced by the string at the same index of with: the escaping
 * of the CI logging-command formats (GitHub, Azure), one table each. */
void adapters_put_escaped(FILE *f, const char *s, const char *chars, const char *const *with);

/* s cleaned (one line, at most max bytes) and escaped for HTML text and
 * quoted attribute values alike (& < > " '). NULL writes nothing. */
void adapters_put_html(FILE *f, const char *s, size_t max);
/* The same with its line ends kept (tabs, CR and LF stay): text for a
 * <pre> (a program's last output). */
void adapters_put_html_lines(FILE *f, const char *s, size_t max);

/* "0", or "node.index" when the report holds shards of several nodes. */
void adapters_shard_label(const report *r, const report_shard *s, char *buf, size_t size);
/*
 * How hosts' ends are listed (console, markdown, github, azure): recycles,
 * kills, and the soft-limit warnings of drivers that cannot recycle. Every
 * adapter that picks ends out asks adapters_ending_of, so all list the same
 * set.
 */
typedef enum adapters_ending {
	ADAPTERS_RECYCLE,
	ADAPTERS_KILL,
	ADAPTERS_WARNING,
	ADAPTERS_ENDING_COUNT
} adapters_ending;

/* 1 when generation g is listed under kind; then *text (text may be NULL)
 * is what it says: the reason of a recycle or kill, or the warning; NULL
 * when the host gave no reason. */
int adapters_ending_of(const report_generation *g, adapters_ending kind, const char **text);
/* "recycled", "killed", "warned". */
const char *adapters_ending_verb(adapters_ending kind);
/* The totals of one shard (report_totals_add), for a row of a table. */
report_totals adapters_shard_totals(const report_shard *s);

/* Shards whose figures are approximate (report_shard.approximate): the
 * first at index i or after whose suite and reason no earlier shard has,
 * so each is said once; r->nshards when none is left. */
size_t adapters_approximate_next(const report *r, size_t i);
/* A line for each (adapters_approximate_next): open, the suite and the
 * reason as put writes text in the adapter's form, ADAPTERS_APPROXIMATE,
 * close. */
void adapters_approximate_lines(const report *r, FILE *f, const char *open, const char *close,
                                void (*put)(FILE *f, const char *s, size_t max));
/* What an approximate shard's figures are, after its reason. */
#define ADAPTERS_APPROXIMATE                                                                       \
	"its tests' memory was read from outside the program, at or after each test's end, "       \
	"not at its boundary"

/* The directory PATH names, created if missing (one level). */
int adapters_mkdir(const char *path, mg_err *err);
/* The full path of an executable named name on $PATH into buf; 0 if found. */
int adapters_which(const char *name, char *buf, size_t size);

/* The adapters, one file each. path may be NULL (each says what it means). */
int console_render(const report *r, const char *path, mg_err *err);
int console_write(const report *r, FILE *f);
int junit_render(const report *r, const char *path, mg_err *err);
int junit_write(const report *r, FILE *f, mg_err *err);
int junit_write_detail(const report *r, FILE *f, adapters_detail d, mg_err *err);
int junit_render_detail(const report *r, const char *path, adapters_detail d, mg_err *err);
/*
 * The whole run in the shape of the framework's own report, for the file
 * the user asked the framework for (its programs are kept from writing
 * it): GoogleTest's --gtest_output=xml (<testsuites name="AllTests">, a
 * <testsuite> per test suite in the order its first test appears, status
 * and result on each <testcase>) or Catch2's -r junit (one <testsuite>
 * named prog, classname PROG.global, its timestamp UTC with a Z as
 * Catch2's own; v3's with a skipped count). A failure's text is the test's
 * message; a memguard state that is no fail (crash, timeout, killed) is an
 * <error> of that type. JUNIT_GTEST_JSON: the same as GoogleTest's
 * --gtest_output=json (Jansson; a state that is no fail is a failure of
 * that type, counted in errors). JUNIT_CTEST: ctest --output-junit's
 * (one <testsuite> root named prog, statuses run, fail, notrun and
 * disabled). path written atomically (atomic_open).
 */
typedef enum junit_framework {
	JUNIT_GTEST,
	JUNIT_CATCH2,    /* v2's */
	JUNIT_CATCH2_V3, /* v3's: a skipped count too */
	JUNIT_GTEST_JSON,
	JUNIT_CTEST /* ctest --output-junit's: one <testsuite> root, prog its name */
} junit_framework;
int junit_framework_write(const report *r, FILE *f, junit_framework fw, const char *prog,
                          mg_err *err);
int junit_framework_json_write(const report *r, FILE *f, const char *prog, mg_err *err);
int junit_framework_render(const report *r, const char *path, junit_framework fw, const char *prog,
                           mg_err *err);
int teamcity_render_detail(const report *r, const char *path, adapters_detail d, mg_err *err);
int github_render(const report *r, const char *path, mg_err *err);
int gitlab_render(const report *r, const char *path, mg_err *err);
int gitlab_write_metrics(const report *r, FILE *f);
int azure_render(const report *r, const char *path, mg_err *err);
int teamcity_render(const report *r, const char *path, mg_err *err);
int buildkite_render(const report *r, const char *path, mg_err *err);
int html_render(const report *r, const char *path, mg_err *err);

/* markdown.c: the summary the github, azure and buildkite adapters share,
 * at most limit bytes (cut at a line, with a truncation line). */
int markdown_summary(const report *r, FILE *f, size_t limit);
/* The lines a test's allocation sites show as, one definition for every
 * output: its top REPORT_SITES_SHOWN sites by bytes (report_format_site,
 * level 0), the items that pin each below it (report_format_pins, level
 * 1), and "… and N more sites" (level 2) for the rest. fn gets raw text
 * (function names and paths are the program's): it escapes. ts NULL: none. */
typedef void (*adapters_line_fn)(FILE *f, int level, const char *text, void *ctx);
void adapters_site_lines(FILE *f, const report_test_sites *ts, adapters_line_fn fn, void *ctx);
/* A suspect's: the site lines of test `name` (report_find_test_sites), then
 * (level 1) the later tests whose live items hold the blocks it allocated
 * ("its blocks held since by: 3 items of Cache/7"; the pinning API). */
void adapters_suspect_site_lines(FILE *f, const report *r, const char *name, adapters_line_fn fn,
                                 void *ctx);
/* The same of which of ts's sites only (its own, the blocks it holds). */
void adapters_site_lines_of(FILE *f, const report_test_sites *ts, report_sites_which which,
                            adapters_line_fn fn, void *ctx);
/* The adapters_line_fn of an HTML list (the html adapter, ci's log page):
 * a site (levels 0 and 2) opens an item (<li>, closing the one before),
 * the items pinning it (level 1) follow on a line of their own (<br>); the
 * text escaped (adapters_put_html), at most max bytes. ctx is an
 * adapters_html_list, open 0 at first: 1 once an item is open (the caller
 * closes it). */
typedef struct adapters_html_list {
	int open;
	size_t max;
} adapters_html_list;
void adapters_html_site_item(FILE *f, int level, const char *text, void *ctx);

/* The tests host generation g of s ran last (a test records the host that
 * ran it last) that have allocation sites: the max with the most bytes
 * (their sites summed, in bytes[]) into out, most first; how many. which:
 * REPORT_SITES_OWN ranks by what they allocated (held blocks left out),
 * REPORT_SITES_HELD by the blocks of earlier tests they hold (tests that
 * hold none left out). */
size_t adapters_generation_sites(const report_shard *s, const report_generation *g,
                                 report_sites_which which, const report_test_sites **out,
                                 uint64_t *bytes, size_t max);

/* s escaped for a Markdown table cell or paragraph (one line). */
void markdown_put(FILE *f, const char *s, size_t max);

#endif

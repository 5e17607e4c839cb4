/*
 * compare_int.h - what compare.c (matching the two sides, the --history
 * bands, the gate) and compare_out.c (the text, Markdown and JSON forms)
 * share: the row table and the sides. Internal to ci/.
 */
#ifndef MEMGUARD_CI_COMPARE_INT_H
#define MEMGUARD_CI_COMPARE_INT_H

#include <stdint.h>

#include "ci_int.h"

#define CMD          "compare"
#define TOP_TESTS    10
#define TOP_SHARDS   60 /* rows of the shard table: 20 shards' three metrics */
#define TOP_EXCEEDED 10 /* lines of the text and Markdown list of exceeded limits */

enum { FMT_TEXT, FMT_MARKDOWN, FMT_JSON };

/* A test as compare keeps it, 32 bytes and its name: a report's tests are
 * never held as the model (64 bytes a test), only as this. */
typedef struct ctest {
	uint32_t shard : 30; /* in the side's report */
	/* va is the test's own VA (va_after), its va_delta being 0: what a test
	 * that is a process of its own (exec, ctest, wrap) is compared by */
	uint32_t own : 1;
	uint32_t near_ceiling : 1; /* its first attempt failed near the memory ceiling */
	uint32_t name;             /* offset in the table's names */
	int64_t va;                /* VA left behind, or with own its own VA */
	int64_t rss;               /* RSS left behind, or with own its own RSS */
	int64_t rise;              /* VA above its start (VmPeak), at least what it kept */
} ctest;

/* The allocation sites of a test that has any (few do), as the lines
 * adapters_site_lines makes of them, cleaned to one line each: a level
 * digit ('0' a site, '1' what pins it), the text, a newline. By the test's
 * name offset, which only grows: the table is sorted by it. */
typedef struct csites {
	uint32_t name;
	uint64_t bytes; /* summed over its sites */
	char *lines;
} csites;

typedef struct ctests {
	ctest *v;
	size_t n, cap;
	char *names;
	size_t len, names_cap;
	csites *sites;
	size_t nsites, sites_cap;
} ctests;

/* One side of the comparison. */
typedef struct side {
	const char *arg; /* as given */
	int is_file;
	git_oid commit; /* when a revision */
	report *r;      /* without tests: they are in t */
	ctests t;
} side;

/* A compared quantity: one metric of one shard (or group), or one test. */
typedef struct row {
	char label[160];
	const char *metric; /* "peak VA", "peak RSS", "recycles", "retained VA" */
	const char *sites;  /* a test's in head (csites.lines); NULL: none */
	growth_metric m;
	int has_base, has_head;
	int64_t base, head;
	int shown_only;    /* lanes that ran different tests: shown, never judged */
	size_t band_n;     /* --history: base commits whose figure is known */
	int64_t lo, hi;    /* and the band they spanned */
	char exceeded[96]; /* why, or "" */
} row;

typedef struct rows {
	row *v;
	size_t n, cap;
} rows;

/* The tests that failed near the memory ceiling in head (names, the first
 * TOP_TESTS, and how many). */
typedef struct nearlist {
	char names[TOP_TESTS][160];
	size_t n;
} nearlist;

/* The JSON string of s; invalid UTF-8 (from a hand-made report) replaced, never dropped. */
json_t *compare_jstr(const char *s);
/* snprintf into a label, cut on a character boundary. */
void compare_label_fmt(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The rows whose limit was exceeded. */
size_t compare_count_exceeded(const rows *rs);
/* a - b clamped to the int64_t range. */
int64_t compare_sat_sub(int64_t a, int64_t b);

/* Prints the comparison in fmt (FMT_TEXT, FMT_MARKDOWN, FMT_JSON). */
void compare_out_print(int fmt, const side *base, const side *head, const char *base_what,
                       const rows *shards, const rows *tests, const growth_limits *lim,
                       size_t left_out, const nearlist *near, size_t band);

#endif

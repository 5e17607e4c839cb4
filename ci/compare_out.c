/*
 * compare_out.c - how "memguard compare" says what it found: the shard and
 * test tables with their bands, the exceeded limits, the sites of the tests
 * that grew and the near-ceiling list, as text, Markdown or JSON.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters.h"
#include "compare_int.h"
#include "defuse.h"

static void fmt_value(char *buf, size_t size, growth_metric m, int64_t v)
{
	if (m == GROWTH_RECYCLES) {
		snprintf(buf, size, "%lld", (long long)v);
		return;
	}
	report_format_size_signed(buf, size, v);
}

static void fmt_delta(char *buf, size_t size, const row *w)
{
	char v[32];
	if (!w->has_base || !w->has_head) {
		snprintf(buf, size, "%s", w->has_head ? "new" : "gone");
		return;
	}
	int64_t d = compare_sat_sub(w->head, w->base);
	fmt_value(v, sizeof(v), w->m, d < 0 ? compare_sat_sub(0, d) : d);
	if (w->base > 0)
		snprintf(buf, size, "%s%s (%+.1f%%)", d < 0 ? "-" : "+", v,
		         100.0 * (double)d / (double)w->base);
	else
		snprintf(buf, size, "%s%s", d < 0 ? "-" : "+", v);
}

static void describe_limits(char *buf, size_t size, const growth_limits *l)
{
	size_t len = 0;
	buf[0] = '\0';
	for (int m = 0; m < GROWTH_COUNT; m++) {
		char v[32];
		if (l->has_pct[m] && len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s=%g%%", len ? "," : "",
			                        growth_metric_name(m), l->pct[m]);
		if (l->has_abs[m] && len < size) {
			fmt_value(v, sizeof(v), m, (int64_t)l->abs[m]);
			len += (size_t)snprintf(buf + len, size - len, "%s%s=%s", len ? "," : "",
			                        growth_metric_name(m), v);
		}
	}
	if (!len)
		snprintf(buf, size, "none");
}

static void side_name(char *buf, size_t size, const side *sd, const char *what)
{
	char sha[16];
	if (sd->is_file)
		snprintf(buf, size, "%s", sd->arg);
	else if (what)
		snprintf(buf, size, "%s (%s)", store_short(sha, &sd->commit), what);
	else
		snprintf(buf, size, "%s (%s)", store_short(sha, &sd->commit), sd->arg);
}

/* The band a row's figure spanned over the base commits (--history), or "". */
static void fmt_band(char *buf, size_t size, const row *w)
{
	char lo[32], hi[32];
	if (w->band_n < 2) {
		snprintf(buf, size, "%s", w->band_n ? "1 commit" : "-");
		return;
	}
	fmt_value(lo, sizeof(lo), w->m, w->lo);
	fmt_value(hi, sizeof(hi), w->m, w->hi);
	snprintf(buf, size, "%s..%s (%zu)", lo, hi, w->band_n);
}

/* At most limit rows of rs, in their order: the exceeded ones first chosen,
 * then the others from the top; how many more were left out. The JSON form
 * has every row. band: a column of the base band (--history). */
static void print_table(const rows *rs, size_t limit, int md, const char *first, int band)
{
	char b[32], h[32], d[64], bd[80];
	size_t nexc = compare_count_exceeded(rs), room = limit > nexc ? limit - nexc : 0;
	if (md) {
		printf("| %s | metric | base |%s head | change | |\n", first,
		       band ? " base band (commits) |" : "");
		printf("| --- | --- | ---: |%s ---: | ---: | --- |\n", band ? " ---: |" : "");
	} else if (band) {
		printf("  %-44s %-15s %11s %26s %11s %20s\n", first, "metric", "base", "base band",
		       "head", "change");
	} else {
		printf("  %-44s %-15s %11s %11s %20s\n", first, "metric", "base", "head", "change");
	}
	for (size_t i = 0, shown = 0, others = 0; i < rs->n && shown < limit; i++) {
		const row *w = &rs->v[i];
		if (!w->exceeded[0] && others++ >= room)
			continue;
		shown++;
		if (w->has_base)
			fmt_value(b, sizeof(b), w->m, w->base);
		else
			snprintf(b, sizeof(b), "-");
		if (w->has_head)
			fmt_value(h, sizeof(h), w->m, w->head);
		else
			snprintf(h, sizeof(h), "-");
		fmt_delta(d, sizeof(d), w);
		fmt_band(bd, sizeof(bd), w);
		const char *note = w->shown_only ? "lanes: not judged" : "";
		if (md && band)
			printf("| %s | %s | %s | %s | %s | %s | %s%s%s |\n", w->label, w->metric, b,
			       bd, h, d, w->exceeded[0] ? ":x: " : "", w->exceeded, note);
		else if (md)
			printf("| %s | %s | %s | %s | %s | %s%s%s |\n", w->label, w->metric, b, h,
			       d, w->exceeded[0] ? ":x: " : "", w->exceeded, note);
		else if (band)
			printf("  %-44s %-15s %11s %26s %11s %20s%s%s%s%s\n", w->label, w->metric,
			       b, bd, h, d, w->exceeded[0] ? "  EXCEEDED " : "", w->exceeded,
			       note[0] ? "  " : "", note);
		else
			printf("  %-44s %-15s %11s %11s %20s%s%s%s%s\n", w->label, w->metric, b, h,
			       d, w->exceeded[0] ? "  EXCEEDED " : "", w->exceeded,
			       note[0] ? "  " : "", note);
	}
	if (rs->n > limit)
		printf(md ? "\n%zu more not shown.\n" : "  (%zu more not shown)\n", rs->n - limit);
}

/* The first TOP_EXCEEDED exceeded limits (shards first, then tests by
 * growth), then "... and K more": a thousand regressions stay readable.
 * The JSON form lists every one. */
static void print_exceeded(const rows *sets[2], int md, size_t nexc)
{
	size_t shown = 0;
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < sets[k]->n && shown < TOP_EXCEEDED; i++) {
			const row *w = &sets[k]->v[i];
			if (!w->exceeded[0])
				continue;
			printf(md ? "- %s %s: %s\n" : "  %s %s: %s\n", w->label, w->metric,
			       w->exceeded);
			shown++;
		}
	if (nexc > shown)
		printf(md ? "- \xe2\x80\xa6 and %zu more\n" : "  \xe2\x80\xa6 and %zu more\n",
		       nexc - shown);
}

/* A test's site lines (csites.lines) as JSON: [{"site": TEXT, "pins": TEXT}]
 * (the sites not shown left out). */
static json_t *sites_json(const char *lines)
{
	json_t *a = json_array(), *last = NULL;
	for (const char *p = lines; *p;) {
		size_t len = strcspn(p, "\n");
		char *text = strndup(p + 1, len ? len - 1 : 0);
		if (!text)
			abort();
		if (*p == '1' && last) {
			json_object_set_new(last, "pins", compare_jstr(text));
		} else if (*p == '0') {
			last = json_object();
			json_object_set_new(last, "site", compare_jstr(text));
			json_array_append_new(a, last);
		}
		free(text);
		p += len + (p[len] == '\n');
	}
	return a;
}

/* Where the tests of the table's first limit rows that grew in retained VA
 * allocated (their sites in head): "+16.0 MiB in Cache/3: 2 × 8.00 MiB mmap
 * at block_new (storage.c:49) ← cache_put (cache.c:115)", further sites and
 * what pins each below. Names and frames are the program's: Markdown
 * escaped (markdown_put), control bytes shown as \xNN in text, and the
 * lines defused for the CI's log scanner (defuse.h): a function named
 * "##vso[..." is no command of the job log. */
static void print_sites(const rows *rs, size_t limit, int md)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		abort();
	int any = 0;
	for (size_t i = 0; i < rs->n && i < limit; i++) {
		const row *w = &rs->v[i];
		if (!w->sites)
			continue;
		if (!any++)
			fprintf(
			    f,
			    md ? "\nWhere they allocated (head; sites live at the test's end):\n\n"
			       : "\nWhere they allocated (head; sites live at the test's end):\n");
		char grew[32];
		report_format_size(grew, sizeof(grew), (uint64_t)compare_sat_sub(w->head, w->base));
		size_t nsite = 0;
		for (const char *p = w->sites; *p;) {
			size_t n = strcspn(p, "\n");
			char *text = strndup(p + 1, n ? n - 1 : 0);
			if (!text)
				abort();
			int level = *p - '0';
			nsite += level == 0;
			/* the first site on the test's line, the others below it, what
			 * pins a site below it (Markdown: on its line) */
			if (nsite == 1 && level == 0) {
				fprintf(f, md ? "- +%s in " : "  +%s in ", grew);
				if (md)
					markdown_put(f, w->label, sizeof(w->label));
				else
					adapters_put_printable(f, w->label, sizeof(w->label));
				fputs(": ", f);
			} else if (md) {
				fputs(level == 1 ? " \u2014 " : "\n  - ", f);
			} else {
				fputs(level == 1 ? "        " : "      ", f);
			}
			if (md)
				markdown_put(f, text, 512);
			else
				adapters_put_printable(f, text, 512);
			if (!md)
				fputc('\n', f);
			free(text);
			p += n + (p[n] == '\n');
		}
		if (md)
			fputc('\n', f);
	}
	if (fclose(f) != 0)
		abort();
	defuse_write(stdout, buf, len, defuse_scanners());
	free(buf);
}

static json_t *rows_json(const rows *rs, size_t limit)
{
	json_t *a = json_array();
	for (size_t i = 0; i < rs->n && i < limit; i++) {
		const row *w = &rs->v[i];
		json_t *o = json_object();
		json_object_set_new(o, "name", compare_jstr(w->label));
		json_object_set_new(o, "metric", json_string(growth_metric_name(w->m)));
		json_object_set_new(o, "base", w->has_base ? json_integer(w->base) : json_null());
		json_object_set_new(o, "head", w->has_head ? json_integer(w->head) : json_null());
		if (w->has_base && w->has_head) {
			int64_t d = compare_sat_sub(w->head, w->base);
			json_object_set_new(o, "delta", json_integer(d));
			json_object_set_new(o, "percent",
			                    w->base > 0
			                        ? json_real(100.0 * (double)d / (double)w->base)
			                        : json_null());
		}
		json_object_set_new(o, "judged", json_boolean(!w->shown_only));
		if (w->band_n) {
			json_t *band = json_object();
			json_object_set_new(band, "low", json_integer(w->lo));
			json_object_set_new(band, "high", json_integer(w->hi));
			json_object_set_new(band, "commits", json_integer((json_int_t)w->band_n));
			json_object_set_new(o, "band", band);
		}
		json_object_set_new(o, "exceeded",
		                    w->exceeded[0] ? compare_jstr(w->exceeded) : json_null());
		if (w->sites)
			json_object_set_new(o, "sites", sites_json(w->sites));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *side_json(const side *sd)
{
	char sha[GIT_OID_HEXSZ + 1];
	json_t *o = json_object();
	json_object_set_new(o, "arg", compare_jstr(sd->arg));
	if (sd->is_file) {
		json_object_set_new(o, "file", compare_jstr(sd->arg));
	} else {
		git_oid_tostr(sha, sizeof(sha), &sd->commit);
		json_object_set_new(o, "commit", json_string(sha));
	}
	return o;
}

void compare_out_print(int fmt, const side *base, const side *head, const char *base_what,
                       const rows *shards, const rows *tests, const growth_limits *lim,
                       size_t left_out, const nearlist *near, size_t band)
{
	char bn[256], hn[256], limits[256];
	size_t nexc = compare_count_exceeded(shards) + compare_count_exceeded(tests);
	const rows *sets[2] = {shards, tests};
	side_name(bn, sizeof(bn), base, base_what);
	side_name(hn, sizeof(hn), head, NULL);
	describe_limits(limits, sizeof(limits), lim);
	if (fmt == FMT_JSON) {
		json_t *o = json_object();
		json_object_set_new(o, "base", side_json(base));
		if (base_what)
			json_object_set_new(json_object_get(o, "base"), "used",
			                    compare_jstr(base_what));
		json_object_set_new(o, "head", side_json(head));
		json_object_set_new(o, "limits", compare_jstr(limits));
		json_object_set_new(o, "shards", rows_json(shards, shards->n));
		json_object_set_new(o, "base_shards_not_in_head",
		                    json_integer((json_int_t)left_out));
		json_object_set_new(o, "tests", rows_json(tests, TOP_TESTS));
		json_t *exc = json_array();
		for (int k = 0; k < 2; k++)
			for (size_t i = 0; i < sets[k]->n; i++)
				if (sets[k]->v[i].exceeded[0]) {
					char line[320];
					compare_label_fmt(line, sizeof(line), "%s %s: %s",
					                  sets[k]->v[i].label, sets[k]->v[i].metric,
					                  sets[k]->v[i].exceeded);
					json_array_append_new(exc, compare_jstr(line));
				}
		json_object_set_new(o, "exceeded", exc);
		json_t *nc = json_array();
		for (size_t i = 0; i < near->n && i < TOP_TESTS; i++)
			json_array_append_new(nc, compare_jstr(near->names[i]));
		json_object_set_new(o, "near_ceiling", nc);
		json_object_set_new(o, "near_ceiling_count", json_integer((json_int_t)near->n));
		json_object_set_new(o, "history_commits", json_integer((json_int_t)band));
		json_object_set_new(o, "result", json_string(nexc ? "regression" : "pass"));
		json_dumpf(o, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
		json_decref(o);
		return;
	}
	int md = fmt == FMT_MARKDOWN;
	if (md) {
		printf("### memguard: memory %s\n\n",
		       nexc ? "regression" : "unchanged within limits");
		printf("Base **%s**, head **%s**. Limits: `%s`.\n\n", bn, hn, limits);
		if (band)
			printf("A figure is judged against the top of the band it spanned over the "
			       "%zu noted base commits (base band), widened by the limit.\n\n",
			       band);
	} else {
		printf("base: %s\nhead: %s\nlimits: %s\n", bn, hn, limits);
		if (band)
			printf(
			    "band: the top of each figure over %zu noted base commits, widened by "
			    "the limit\n",
			    band);
		printf("\n");
	}
	print_table(shards, TOP_SHARDS, md, "shard", band > 0);
	if (left_out)
		printf(
		    md ? "\n%zu base shard%s that head did not run (other nodes) not compared.\n"
		       : "  (%zu base shard%s that head did not run (other nodes) not compared)\n",
		    left_out, left_out == 1 ? "" : "s");
	printf("\n");
	if (tests->n) {
		printf("Tests whose memory grew most (retained VA and RSS, rise; a process of "
		       "its own: its peak VA):\n%s",
		       md ? "\n" : "");
		print_table(tests, TOP_TESTS, md, "test", band > 0);
		print_sites(tests, TOP_TESTS, md);
	} else {
		printf("No test retained or rose more than on the base.\n");
	}
	printf("\n");
	if (near->n) {
		printf(md ? "**%zu test%s " REPORT_NEAR_CEILING "** in head and ran again alone in "
		            "a fresh host:\n\n"
		          : "%zu test%s " REPORT_NEAR_CEILING " in head and ran again alone in a "
		            "fresh host:\n",
		       near->n, near->n == 1 ? "" : "s");
		for (size_t i = 0; i < near->n && i < TOP_TESTS; i++)
			printf(md ? "- %s\n" : "  %s\n", near->names[i]);
		if (near->n > TOP_TESTS)
			printf(md ? "- \xe2\x80\xa6 and %zu more\n"
			          : "  \xe2\x80\xa6 and %zu more\n",
			       near->n - TOP_TESTS);
		printf("\n");
	}
	if (nexc) {
		printf(md ? "**%zu limit%s exceeded:**\n\n" : "REGRESSION: %zu limit%s exceeded:\n",
		       nexc, nexc == 1 ? "" : "s");
		print_exceeded(sets, md, nexc);
	} else {
		printf(md ? "All within limits.\n" : "OK: within limits.\n");
	}
}

/*
 * markdown.c - the Markdown summary the github, azure and buildkite adapters
 * share: the per-shard table, top suspects, tests that did not pass,
 * recycles, kills and soft-limit warnings. Every report string is escaped
 * (markdown_put); the whole summary is bounded, cut at a line with a clear
 * truncation line.
 */
#include <stdlib.h>
#include <string.h>

#include "adapters.h"

#define MAX_SUSPECTS    10
#define MAX_NOT_PASSING 50
#define MAX_ENDINGS     20

/* Whether the three bytes before p (not before start) are "www", any case. */
static int after_www(const char *start, const char *p)
{
	if (p - start < 3)
		return 0;
	for (int i = 1; i <= 3; i++)
		if (p[-i] != 'w' && p[-i] != 'W')
			return 0;
	return 1;
}

/*
 * One line, with the characters that could start markup, a link, a code
 * span or a new table cell escaped, so a name can neither break the table
 * nor inject HTML (never at a line start, so - + # need nothing). GitHub's
 * extras are disarmed too, each way checked with cmark-gfm's autolink
 * extension (tests/adapters/hostile_names.py): "://" and "www." autolinks by
 * an entity for ':' and '.' (the extension looks at the raw bytes); '@' (an
 * e-mail autolink, a mention) in a <span> (an entity is not enough: the
 * extension reads the decoded text); '$' (MathJax's $...$, $$...$$ and
 * $`...`$, which a backslash does not stop) in a <span>, as GitHub's
 * "Writing mathematical expressions" says.
 */
void markdown_put(FILE *f, const char *s, size_t max)
{
	char *clean = adapters_clean(s ? s : "", max, ADAPTERS_ONELINE, NULL);
	for (const char *p = clean; *p; p++) {
		switch (*p) {
		case '$':
			fputs("<span>$</span>", f);
			break;
		case '@':
			fputs("<span>@</span>", f);
			break;
		case ':':
			fputs(p[1] == '/' && p[2] == '/' ? "&#58;" : ":", f);
			break;
		case '.':
			fputs(after_www(clean, p) ? "&#46;" : ".", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '\\':
		case '`':
		case '*':
		case '_':
		case '[':
		case ']':
		case '|':
		case '~':
			fputc('\\', f);
			fputc(*p, f);
			break;
		default:
			fputc(*p, f);
		}
	}
	free(clean);
}

static void size_cell(FILE *f, uint64_t v)
{
	char buf[16];
	report_format_size(buf, sizeof(buf), v);
	fprintf(f, " %s |", buf);
}

static void row(FILE *f, const char *label, const char *arch, const report_totals *t, double wall)
{
	char w[16];
	report_format_duration(w, sizeof(w), wall);
	fprintf(f, "| %s | ", label);
	markdown_put(f, arch, 16);
	fprintf(f, " | %llu | %llu | %llu | %llu |", (unsigned long long)t->tests,
	        (unsigned long long)t->counts[TEST_PASS], (unsigned long long)t->failed,
	        (unsigned long long)t->other);
	size_cell(f, t->peak_va);
	size_cell(f, t->peak_rss);
	fprintf(f, " %llu | %llu | %s |\n", (unsigned long long)t->recycles,
	        (unsigned long long)t->kills, w);
}

static void table(const report *r, FILE *f)
{
	fputs("| shard | arch | tests | passed | failed | other | peak VA | peak RSS | recycles | "
	      "kills | wall |\n",
	      f);
	fputs("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n", f);
	for (size_t i = 0; i < r->nshards; i++) {
		const report_shard *s = &r->shards[i];
		char label[32];
		adapters_shard_label(r, s, label, sizeof(label));
		report_totals t = adapters_shard_totals(s);
		row(f, label, s->arch, &t, s->wall);
	}
	if (r->nshards > 1)
		row(f, "**total**", "", &r->totals, r->wall);
}

static void suspects(const report *r, FILE *f)
{
	if (r->nsuspects == 0)
		return;
	fputs("\n**Top suspects** (VA left behind, summed over runs)\n\n"
	      "| VA left | test | grew in | note |\n|--:|---|--:|---|\n",
	      f);
	for (size_t i = 0; i < r->nsuspects && i < MAX_SUSPECTS; i++) {
		const report_suspect *s = &r->suspects[i];
		char va[16];
		/* a test listed for the limit alone may have left nothing behind
		 * (killed before its end, or a process of its own): not "0 B" */
		if (s->va_retained > 0)
			report_format_size(va, sizeof(va), (uint64_t)s->va_retained);
		else
			snprintf(va, sizeof(va), "-");
		fprintf(f, "| %s | ", va);
		markdown_put(f, s->name, 200);
		fprintf(f, " | %u of %u runs | %s |\n", s->grew, s->runs,
		        s->alone_over_hard ? "over the hard limit alone" : "");
	}
}

/* A site as an item of the suspect's list (the items that pin it one level
 * deeper). */
static void site_item(FILE *f, int level, const char *text, void *ctx)
{
	(void)ctx;
	fputs(level == 1 ? "    - " : "  - ", f);
	markdown_put(f, text, 512);
	fputc('\n', f);
}

/* Where the suspects allocated what they left (their top sites), under
 * the table; nothing when none has sites. */
static void suspect_sites(const report *r, FILE *f)
{
	int any = 0;
	for (size_t i = 0; i < r->nsuspects && i < MAX_SUSPECTS; i++) {
		const report_test_sites *ts = report_find_test_sites(r, r->suspects[i].name, NULL);
		if (!ts)
			continue;
		if (!any++)
			fputs("\n**Where the suspects allocated** (live at the test's end)\n\n", f);
		fputs("- ", f);
		markdown_put(f, r->suspects[i].name, 200);
		fputc('\n', f);
		adapters_suspect_site_lines(f, r, r->suspects[i].name, site_item, NULL);
	}
}

static void not_passing(const report *r, FILE *f)
{
	size_t total = 0, shown = 0;
	for (size_t i = 0; i < r->nshards; i++)
		total += r->shards[i].ntests - r->shards[i].counts[TEST_PASS];
	if (total == 0)
		return;
	fputs("\n**Not passing**\n\n| state | test | message |\n|---|---|---|\n", f);
	for (size_t i = 0; i < r->nshards; i++)
		for (size_t t = 0; t < r->shards[i].ntests && shown < MAX_NOT_PASSING; t++) {
			const report_test *x = &r->shards[i].tests[t];
			if (x->state == TEST_PASS)
				continue;
			shown++;
			fprintf(f, "| %s | ", report_state_name(x->state));
			markdown_put(f, x->name, 200);
			fputs(" | ", f);
			markdown_put(f, x->message, 200);
			fputs(" |\n", f);
		}
	if (total > shown)
		fprintf(f, "\n… and %zu more not passing.\n", total - shown);
}

/* The tests whose first attempt failed near the memory ceiling. */
static void near_ceiling(const report *r, FILE *f)
{
	size_t total = 0;
	for (size_t i = 0; i < r->nshards; i++)
		for (size_t t = 0; t < r->shards[i].ntests; t++) {
			const report_test *x = &r->shards[i].tests[t];
			if (!x->near_ceiling)
				continue;
			if (total++ == 0)
				fputs("\n**" REPORT_NEAR_CEILING
				      "**, then ran alone in a fresh host\n\n"
				      "| state | test | message |\n|---|---|---|\n",
				      f);
			if (total > MAX_NOT_PASSING)
				continue;
			fprintf(f, "| %s | ", report_state_name(x->state));
			markdown_put(f, x->name, 200);
			fputs(" | ", f);
			/* a pass's: its first attempt's failure */
			markdown_put(f, x->message, 200);
			fputs(" |\n", f);
		}
	if (total > MAX_NOT_PASSING)
		fprintf(f, "\n… and %zu more.\n", total - MAX_NOT_PASSING);
}

/* The hosts recycled or killed, in the order they ended, under one heading;
 * the soft-limit warnings under another. */
static void endings(const report *r, FILE *f, int warnings)
{
	size_t shown = 0, total = 0;
	for (size_t i = 0; i < r->nshards; i++)
		for (size_t g = 0; g < r->shards[i].ngens; g++) {
			const report_generation *gen = &r->shards[i].gens[g];
			const char *text = NULL;
			adapters_ending kind = warnings ? ADAPTERS_WARNING
			                       : adapters_ending_of(gen, ADAPTERS_KILL, NULL)
			                           ? ADAPTERS_KILL
			                           : ADAPTERS_RECYCLE;
			if (!adapters_ending_of(gen, kind, &text))
				continue;
			if (total++ == 0)
				fputs(warnings ? "\n**Soft-limit warnings**\n\n"
				               : "\n**Recycles and kills**\n\n",
				      f);
			if (shown >= MAX_ENDINGS)
				continue;
			shown++;
			char label[32];
			adapters_shard_label(r, &r->shards[i], label, sizeof(label));
			if (warnings)
				fprintf(f, "- shard %s, generation %u: ", label, gen->index);
			else
				fprintf(f, "- shard %s, generation %u: %s after %u test%s: ", label,
				        gen->index, adapters_ending_verb(kind), gen->tests_run,
				        gen->tests_run == 1 ? "" : "s");
			markdown_put(f, text ? text : "no reason given", 200);
			fputc('\n', f);
		}
	if (total > shown)
		fprintf(f, "- … and %zu more\n", total - shown);
}

static void write_all(const report *r, FILE *f)
{
	fprintf(f, "### memguard: node %u of %u%s\n\n", r->node_index, r->node_total,
	        r->interrupted ? " (interrupted: partial report)" : "");
	adapters_approximate_lines(r, f, "> **approximate:** ", "\n\n", markdown_put);
	table(r, f);
	suspects(r, f);
	suspect_sites(r, f);
	not_passing(r, f);
	near_ceiling(r, f);
	endings(r, f, 0);
	endings(r, f, 1);
}

int markdown_summary(const report *r, FILE *f, size_t limit)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	if (!mem)
		return MG_ERROR;
	write_all(r, mem);
	if (fclose(mem) != 0) {
		free(buf);
		return MG_ERROR;
	}
	static const char note[] = "\n**memguard: summary truncated to fit %zu bytes (%zu bytes "
	                           "omitted); the full report is in the JSON report.**\n";
	if (len > limit) {
		size_t keep = limit > 256 ? limit - 256 : 0;
		while (keep > 0 && buf[keep - 1] != '\n')
			keep--;
		fwrite(buf, 1, keep, f);
		fprintf(f, note, limit, len - keep);
	} else {
		fwrite(buf, 1, len, f);
	}
	free(buf);
	return ferror(f) ? MG_ERROR : 0;
}

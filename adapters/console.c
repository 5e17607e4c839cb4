/*
 * console.c - the per-shard table for people: one row per shard (plus a
 * total), the top suspects, the tests that did not pass, and why hosts were
 * recycled or killed. Plain text, no colour; control bytes are shown as \xNN.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "adapters.h"
#include "defuse.h"

#define ROW_FMT           "%-5s %-4s %5s %6s %6s %5s  %-8s  %-8s  %8s %5s %5s\n"
#define MAX_SUSPECTS      5
#define MAX_NOT_PASSING   20
#define MAX_MESSAGE_LINES 12 /* of one test's message */

/* One row of the table: the model's totals ("failed" and "other" as
 * report_state_failed has them). */
static void row(FILE *f, const char *label, const char *arch, const report_totals *t, double wall)
{
	char tests[24], passed[24], failed[24], other[24], va[16], rss[16], rec[24], kil[24], w[16];
	snprintf(tests, sizeof(tests), "%llu", (unsigned long long)t->tests);
	snprintf(passed, sizeof(passed), "%llu", (unsigned long long)t->counts[TEST_PASS]);
	snprintf(failed, sizeof(failed), "%llu", (unsigned long long)t->failed);
	snprintf(other, sizeof(other), "%llu", (unsigned long long)t->other);
	report_format_size(va, sizeof(va), t->peak_va);
	report_format_size(rss, sizeof(rss), t->peak_rss);
	snprintf(rec, sizeof(rec), "%llu", (unsigned long long)t->recycles);
	snprintf(kil, sizeof(kil), "%llu", (unsigned long long)t->kills);
	report_format_duration(w, sizeof(w), wall);
	fprintf(f, ROW_FMT, label, arch, tests, passed, failed, other, va, rss, rec, kil, w);
}

/* Shards are labelled by lane index, or node.index when they come from
 * more than one node (a merged report): adapters_shard_label. */
static void table(const report *r, FILE *f)
{
	fprintf(f, ROW_FMT, "shard", "arch", "tests", "passed", "failed", "other", "peak VA",
	        "peak RSS", "recycles", "kills", "wall");
	for (size_t i = 0; i < r->nshards; i++) {
		const report_shard *s = &r->shards[i];
		char label[32], arch[16];
		adapters_shard_label(r, s, label, sizeof(label));
		snprintf(arch, sizeof(arch), "%s", s->arch ? s->arch : "?");
		for (char *p = arch; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				*p = '?';
		report_totals t = adapters_shard_totals(s);
		row(f, label, arch, &t, s->wall);
	}
	if (r->nshards > 1)
		row(f, "total", "", &r->totals, r->wall);
}

/* A site line under a suspect or a test, indented by ctx's spaces (the
 * items that pin it two more). */
static void site_line(FILE *f, int level, const char *text, void *ctx)
{
	fprintf(f, "%*s", *(const int *)ctx + (level == 1 ? 2 : 0), "");
	adapters_put_printable(f, text, 512);
	fputc('\n', f);
}

static void sites_of(FILE *f, const report_test_sites *ts, report_sites_which which, int indent)
{
	adapters_site_lines_of(f, ts, which, site_line, &indent);
}

static void suspects(const report *r, FILE *f)
{
	if (r->nsuspects == 0)
		return;
	fputs("\ntop suspects (VA left behind, summed over runs):\n", f);
	for (size_t i = 0; i < r->nsuspects && i < MAX_SUSPECTS; i++) {
		const report_suspect *s = &r->suspects[i];
		char va[16];
		/* a test listed for the limit alone may have left nothing behind
		 * (killed before its end, or a process of its own): not "0 B" */
		if (s->va_retained > 0)
			report_format_size(va, sizeof(va), (uint64_t)s->va_retained);
		else
			snprintf(va, sizeof(va), "-");
		fprintf(f, "  %9s  ", va);
		adapters_put_printable(f, s->name, 200);
		fprintf(f, "  (grew in %u of %u runs%s)\n", s->grew, s->runs,
		        s->alone_over_hard ? "; over the hard limit alone" : "");
		int indent = 13;
		adapters_suspect_site_lines(f, r, s->name, site_line, &indent);
	}
}

/* Tests that were processes of their own leave nothing behind: the largest
 * of them by their own VA instead (at most MAX_SUSPECTS, largest first). */
static void largest(const report *r, FILE *f)
{
	const report_test *top[MAX_SUSPECTS];
	size_t n = 0;
	for (size_t i = 0; i < r->nshards; i++) {
		const report_shard *s = &r->shards[i];
		for (size_t t = 0; report_shard_own_process(s) && t < s->ntests; t++) {
			const report_test *x = &s->tests[t];
			if (!x->va_after ||
			    (n == MAX_SUSPECTS && x->va_after <= top[n - 1]->va_after))
				continue;
			size_t k = n < MAX_SUSPECTS ? n++ : n - 1;
			while (k > 0 && top[k - 1]->va_after < x->va_after) {
				top[k] = top[k - 1];
				k--;
			}
			top[k] = x;
		}
	}
	if (n == 0)
		return;
	fputs("\nlargest tests (each a process of its own: its peak VA):\n", f);
	for (size_t i = 0; i < n; i++) {
		char va[16];
		report_format_size(va, sizeof(va), top[i]->va_after);
		fprintf(f, "  %9s  ", va);
		adapters_put_printable(f, top[i]->name ? top[i]->name : "", 200);
		fputc('\n', f);
	}
}

/* A test's message: its first line after the name, each further line (a
 * GoogleTest "Expected equality of these values:") indented below it,
 * MAX_MESSAGE_LINES at most; a CR before a newline is dropped, other
 * control bytes shown as \xNN; an empty line is not indented, and the
 * empty lines at its end are left out (GoogleTest's skip message ends in
 * one). */
static void message(FILE *f, const char *m)
{
	const char *end = m + strlen(m);
	while (end > m && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	for (size_t lines = 0; m < end; lines++) {
		if (lines == MAX_MESSAGE_LINES) {
			size_t more = 1;
			for (const char *p = m; p < end; p++)
				more += *p == '\n' && p + 1 < end;
			fprintf(f, "\n      ... %zu more line%s", more, more == 1 ? "" : "s");
			return;
		}
		size_t len = strcspn(m, "\n");
		size_t shown = len - (len && m[len - 1] == '\r');
		if (lines)
			fputs(shown ? "\n      " : "\n", f);
		char *one = strndup(m, shown);
		if (!one)
			abort();
		adapters_put_printable(f, one, 200);
		free(one);
		m += len + (m[len] == '\n');
	}
}

static void not_passing(const report *r, FILE *f)
{
	size_t total = 0, shown = 0;
	for (size_t i = 0; i < r->nshards; i++)
		for (size_t t = 0; t < r->shards[i].ntests; t++) {
			const report_test *x = &r->shards[i].tests[t];
			if (x->state == TEST_PASS)
				continue;
			if (total++ == 0)
				fputs("\nnot passing:\n", f);
			if (shown >= MAX_NOT_PASSING)
				continue;
			shown++;
			fprintf(f, "  %-12s ", report_state_name(x->state));
			adapters_put_printable(f, x->name ? x->name : "", 200);
			if (x->message) {
				fputs(": ", f);
				message(f, x->message);
			}
			fputc('\n', f);
		}
	if (total > shown)
		fprintf(f, "  ... and %zu more\n", total - shown);
}

/* The tests whose first attempt failed near the memory ceiling: how the
 * second, alone in a fresh host, ended. */
static void near_ceiling(const report *r, FILE *f)
{
	size_t total = 0;
	for (size_t i = 0; i < r->nshards; i++)
		for (size_t t = 0; t < r->shards[i].ntests; t++) {
			const report_test *x = &r->shards[i].tests[t];
			if (!x->near_ceiling)
				continue;
			if (total++ == 0)
				fputs("\n" REPORT_NEAR_CEILING
				      ", then ran alone in a fresh host:\n",
				      f);
			if (total > MAX_NOT_PASSING)
				continue;
			fprintf(f, "  %-12s ", report_state_name(x->state));
			adapters_put_printable(f, x->name ? x->name : "", 200);
			fputc('\n', f);
			if (x->state == TEST_PASS && x->message) { /* its first attempt's failure */
				fputs("      ", f);
				message(f, x->message);
				fputc('\n', f);
			}
		}
	if (total > MAX_NOT_PASSING)
		fprintf(f, "  ... and %zu more\n", total - MAX_NOT_PASSING);
}

/* The kind of an early end's reason, as the tally names it: the limit's
 * key a reason starts with ("va 3.6 GiB >= recycle ...", "rss pool ..."),
 * else a word for the runner's own reasons (a retry that runs alone, a
 * failure near the ceiling, a rise history or the run foresaw); else the
 * reason's first word. */
static void ending_kind(const char *reason, char *kind, size_t size)
{
	static const struct {
		const char *has, *kind;
		int at_start;
	} kinds[] = {{"va ", "va", 1},
	             {"peak va ", "va", 1},
	             {"host crossed its soft limit", "soft limit", 1},
	             {"rss ", "rss", 1},
	             {"gap", "gap", 1},
	             {"cgroup", "cgroup", 1},
	             {"history:", "history", 1},
	             {"largest rise", "rise", 0},
	             {"near the memory ceiling", "near ceiling", 0},
	             {"retry", "retry", 0},
	             {"over a soft limit", "soft limit", 0}};
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (kinds[i].at_start ? !strncmp(reason, kinds[i].has, strlen(kinds[i].has))
		                      : strstr(reason, kinds[i].has) != NULL) {
			snprintf(kind, size, "%s", kinds[i].kind);
			return;
		}
	size_t len = strcspn(reason, " ");
	snprintf(kind, size, "%.*s", (int)(len < size - 1 ? len : size - 1), reason);
}

/*
 * One line per way hosts ended early: how many, grouped by the kind of the
 * reason ("va", "rss", "retry", ...: ending_kind), and the last reason in
 * full.
 */
static void endings(const report *r, FILE *f, adapters_ending which, const char *label)
{
	enum { MAX_KINDS = 8 };
	char kinds[MAX_KINDS][16];
	size_t counts[MAX_KINDS] = {0}, nkinds = 0, total = 0;
	const char *last = NULL;
	for (size_t i = 0; i < r->nshards; i++)
		for (size_t g = 0; g < r->shards[i].ngens; g++) {
			const report_generation *gen = &r->shards[i].gens[g];
			const char *text = NULL;
			if (!adapters_ending_of(gen, which, &text))
				continue;
			total++;
			const char *reason = text ? text : "unknown";
			last = reason;
			char kind[16];
			ending_kind(reason, kind, sizeof(kind));
			size_t k = 0;
			while (k < nkinds && strcmp(kinds[k], kind) != 0)
				k++;
			if (k == nkinds && nkinds < MAX_KINDS)
				memcpy(kinds[nkinds++], kind, sizeof(kind));
			if (k < nkinds)
				counts[k]++;
		}
	if (total == 0)
		return;
	fprintf(f, "%s: %zu (", label, total);
	for (size_t k = 0; k < nkinds; k++) {
		fputs(k ? ", " : "", f);
		adapters_put_printable(f, kinds[k], 15);
		fprintf(f, ": %zu", counts[k]);
	}
	fputs("); last: ", f);
	adapters_put_printable(f, last, 200);
	fputc('\n', f);
}

/* Where the tests a host ran (its last tests: a test records the host that
 * ran it last) allocated what they left: the tests with sites, most bytes
 * first, each with its top sites; then the tests whose live items hold the
 * most of earlier tests' blocks (the pinning API), each with those blocks. */
static void generation_sites(const report_shard *s, const report_generation *gen, FILE *f)
{
	static const char *const head[] = {"  allocated by the tests it ran:\n",
	                                   "  earlier tests' blocks held by the items of:\n"};
	for (int held = 0; held < 2; held++) {
		report_sites_which which = held ? REPORT_SITES_HELD : REPORT_SITES_OWN;
		const report_test_sites *top[REPORT_SITES_SHOWN];
		uint64_t bytes[REPORT_SITES_SHOWN];
		size_t n = adapters_generation_sites(s, gen, which, top, bytes, REPORT_SITES_SHOWN);
		if (n)
			fputs(head[held], f);
		for (size_t i = 0; i < n; i++) {
			char size[16];
			report_format_size(size, sizeof(size), bytes[i]);
			fprintf(f, "    %s in ", size);
			const char *name = s->tests[top[i]->test].name;
			adapters_put_printable(f, name ? name : "", 200);
			fputs(":\n", f);
			sites_of(f, top[i], which, 6);
		}
	}
}

/* What the address space held at the first recycle or kill: the categories
 * that matter, the largest groups of mappings, and (x86) the largest gap. */
static void first_breakdown(const report *r, FILE *f)
{
	for (size_t i = 0; i < r->nshards; i++) {
		const report_shard *s = &r->shards[i];
		for (size_t g = 0; g < s->ngens; g++) {
			const report_generation *gen = &s->gens[g];
			for (size_t b = 0; b < gen->nbreakdowns; b++) {
				const report_breakdown *bd = &gen->breakdowns[b];
				if (!bd->when ||
				    (strcmp(bd->when, "recycle") && strcmp(bd->when, "kill")))
					continue;
				char size[32];
				fprintf(f, "at the first %s (shard %u, host %u):", bd->when,
				        s->index, gen->index);
				/* categories, largest first, those of 1 MiB or more */
				int used[64] = {0};
				size_t shown = 0;
				for (size_t n = 0; n < bd->ncategories && n < 64 && shown < 4;
				     n++) {
					size_t best = SIZE_MAX;
					for (size_t c = 0; c < bd->ncategories && c < 64; c++)
						if (!used[c] && (best == SIZE_MAX ||
						                 bd->categories[c].va >
						                     bd->categories[best].va))
							best = c;
					if (best == SIZE_MAX ||
					    bd->categories[best].va < (1u << 20))
						break;
					used[best] = 1;
					report_format_size(size, sizeof(size),
					                   bd->categories[best].va);
					fprintf(f, "%s %s ", shown++ ? "," : "", size);
					adapters_put_printable(f, bd->categories[best].name, 32);
				}
				fputc('\n', f);
				for (size_t k = 0; k < bd->ngroups && k < 2; k++) {
					const report_group *gr = &bd->groups[k];
					char one[32];
					report_format_size(one, sizeof(one), gr->size);
					report_format_size(size, sizeof(size), gr->total);
					fprintf(f, "  %llu x %s ", (unsigned long long)gr->count,
					        one);
					adapters_put_printable(f, gr->name, 100);
					fprintf(f, " = %s\n", size);
				}
				if (s->arch && !strcmp(s->arch, "x86")) {
					report_format_size(size, sizeof(size), bd->largest_gap);
					fprintf(f, "  largest free gap: %s\n", size);
				}
				generation_sites(s, gen, f);
				return;
			}
		}
	}
}

/* What planning from history changed (memguard run --history). */
static void history(const report *r, FILE *f)
{
	const report_history *h = &r->history;
	if (!h->source)
		return;
	fputs("\nhistory (", f);
	adapters_put_printable(f, h->source, 200);
	fprintf(f,
	        "): %u tests known; %u recycles before a test that would not have fit by its "
	        "history; %zu started alone\n",
	        h->known, h->avoided, h->nalone);
	for (size_t i = 0; i < h->ngrew; i++) {
		char a[16], b[16];
		report_format_size(a, sizeof(a), h->grew[i].then);
		report_format_size(b, sizeof(b), h->grew[i].now);
		fprintf(f, "  rose %9s, was %9s  ", b, a);
		adapters_put_printable(f, h->grew[i].name, 200);
		fputc('\n', f);
	}
}

int console_write(const report *r, FILE *f)
{
	table(r, f);
	suspects(r, f);
	largest(r, f);
	not_passing(r, f);
	near_ceiling(r, f);
	int any = 0;
	for (size_t i = 0; i < r->nshards; i++)
		any |= r->shards[i].recycles || r->shards[i].kills;
	if (any)
		fputc('\n', f);
	endings(r, f, ADAPTERS_RECYCLE, "recycles");
	endings(r, f, ADAPTERS_KILL, "kills");
	endings(r, f, ADAPTERS_WARNING, "soft-limit warnings");
	first_breakdown(r, f);
	history(r, f);
	adapters_approximate_lines(r, f, "\napproximate: ", "\n", adapters_put_printable);
	if (r->interrupted)
		fputs("\ninterrupted: this is a partial report\n", f);
	return ferror(f) ? MG_ERROR : 0;
}

/* path NULL: stdout, defused for the CI's log scanner (defuse.h): a test's
 * name or message never becomes a command of the job log. */
int console_render(const report *r, const char *path, mg_err *err)
{
	adapters_out o;
	int rc = adapters_out_open(&o, path, err);
	if (rc)
		return rc;
	unsigned scanners = o.file ? 0 : defuse_scanners();
	if (!scanners)
		return adapters_out_close(&o, console_write(r, o.f) == 0, err);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		abort();
	int ok = console_write(r, m) == 0;
	if (fclose(m) != 0)
		abort();
	defuse_write(o.f, buf, len, scanners);
	free(buf);
	return adapters_out_close(&o, ok, err);
}

/*
 * github.c - GitHub Actions: the Markdown summary appended to the step
 * summary, ::warning/::error workflow commands on stdout for recycles, kills
 * and memory-limit tests, and key figures appended to $GITHUB_OUTPUT.
 * Escaping follows @actions/core (toolkit command.ts).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "adapters.h"
#include "atomic.h"
#include "defuse.h"

#define SUMMARY_LIMIT (1024 * 1024 - 1024) /* GitHub's step summary cap is 1 MiB */
#define MAX_PER_KIND  10

/* escapeData: % CR LF; escapeProperty also : and , (the actions toolkit) */
static void put_escaped(FILE *f, const char *s, int property)
{
	static const char *const with[] = {"%25", "%0D", "%0A", "%3A", "%2C"};
	adapters_put_escaped(f, s, property ? "%\r\n:," : "%\r\n", with);
}

/* ::level title=TITLE::MESSAGE */
static void command(FILE *f, const char *level, const char *title, const char *message)
{
	fprintf(f, "::%s title=", level);
	put_escaped(f, title, 1);
	fputs("::", f);
	put_escaped(f, message, 0);
	fputc('\n', f);
}

static void shard_title(char *buf, size_t size, const report *r, const report_shard *s,
                        const char *what)
{
	char label[32];
	adapters_shard_label(r, s, label, sizeof(label));
	snprintf(buf, size, "memguard %s: %.200s [%.16s] shard %s", what, s->suite ? s->suite : "",
	         s->arch ? s->arch : "", label);
}

/* Recycles and soft-limit warnings are warnings, kills errors: up to
 * MAX_PER_KIND each, then one line saying how many were left out. */
static void endings(const report *r, FILE *f, adapters_ending kind, const char *level,
                    const char *what)
{
	size_t n = 0;
	for (size_t i = 0; i < r->nshards; i++)
		for (size_t g = 0; g < r->shards[i].ngens; g++) {
			const report_generation *gen = &r->shards[i].gens[g];
			const char *text = NULL;
			if (!adapters_ending_of(gen, kind, &text) || n++ >= MAX_PER_KIND)
				continue;
			char title[300], msg[600];
			shard_title(title, sizeof(title), r, &r->shards[i], what);
			if (kind == ADAPTERS_WARNING)
				snprintf(msg, sizeof(msg), "host generation %u (pid %ld): %.400s",
				         gen->index, gen->pid, text);
			else
				snprintf(msg, sizeof(msg),
				         "host generation %u (pid %ld) %s after %u test%s: %.400s",
				         gen->index, gen->pid, adapters_ending_verb(kind),
				         gen->tests_run, gen->tests_run == 1 ? "" : "s",
				         text ? text : "no reason given");
			command(f, level, title, msg);
		}
	if (n > MAX_PER_KIND) {
		char msg[128];
		snprintf(msg, sizeof(msg), "%zu more %ss not shown (see the step summary)",
		         n - MAX_PER_KIND, what);
		command(f, level, "memguard", msg);
	}
}

static void memlimits(const report *r, FILE *f)
{
	size_t n = 0;
	for (size_t i = 0; i < r->nshards; i++)
		for (size_t t = 0; t < r->shards[i].ntests; t++) {
			const report_test *x = &r->shards[i].tests[t];
			if (x->state != TEST_MEMLIMIT || n++ >= MAX_PER_KIND)
				continue;
			char title[300];
			shard_title(title, sizeof(title), r, &r->shards[i], "memory-limit");
			char *msg = NULL;
			size_t len = 0;
			FILE *m = open_memstream(&msg, &len);
			if (!m)
				continue;
			fprintf(m, "%s: over the hard limit alone in a fresh host",
			        x->name ? x->name : "");
			if (x->message)
				fprintf(m, ": %s", x->message);
			fclose(m);
			command(f, "error", title, msg);
			free(msg);
		}
	if (n > MAX_PER_KIND) {
		char msg[128];
		snprintf(msg, sizeof(msg), "%zu more memory-limit tests not shown",
		         n - MAX_PER_KIND);
		command(f, "error", "memguard", msg);
	}
}

/* name=value lines for later steps (steps.ID.outputs.peak_va ...). */
static int outputs(const report *r, const char *path, mg_err *err)
{
	mg_err why;
	FILE *f = atomic_append(path, &why);
	if (!f)
		return mg_err_set(err, MG_ERROR, "GITHUB_OUTPUT %s", why.msg);
	const report_totals *t = &r->totals;
	fprintf(f,
	        "memguard_peak_va=%llu\nmemguard_peak_rss=%llu\nmemguard_recycles=%llu\n"
	        "memguard_kills=%llu\nmemguard_tests=%llu\nmemguard_passed=%llu\n"
	        "memguard_failed=%llu\n",
	        (unsigned long long)t->peak_va, (unsigned long long)t->peak_rss,
	        (unsigned long long)t->recycles, (unsigned long long)t->kills,
	        (unsigned long long)t->tests, (unsigned long long)t->counts[TEST_PASS],
	        (unsigned long long)t->failed);
	if (fclose(f) != 0)
		return mg_err_set(err, MG_ERROR, "GITHUB_OUTPUT %s: %s", path, strerror(errno));
	return 0;
}

/*
 * path: the step summary file (appended to); NULL: $GITHUB_STEP_SUMMARY, or
 * stdout when that is not set; "-": stdout. The summary is appended in one write, so a
 * failure leaves at most a partial append (the file is GitHub's, shared by
 * every step: it cannot be replaced).
 */
int github_render(const report *r, const char *path, mg_err *err)
{
	const char *summary = path ? path : getenv("GITHUB_STEP_SUMMARY");
	if (summary && (!*summary || (path && !strcmp(path, "-"))))
		summary = NULL;
	int rc = 0;
	if (summary) {
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);
		if (!m || markdown_summary(r, m, SUMMARY_LIMIT) != 0 || fclose(m) != 0)
			abort();
		mg_err why;
		FILE *f = atomic_append(summary, &why);
		if (!f) {
			rc = mg_err_set(err, MG_ERROR, "step summary %s", why.msg);
		} else {
			size_t put = fwrite(buf, 1, len, f);
			if (fclose(f) != 0 || put != len)
				rc = mg_err_set(err, MG_ERROR, "step summary %s: write failed",
				                summary);
		}
		free(buf);
	} else { /* the job log: no line of it a workflow command (defuse.h) */
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);
		if (!m || markdown_summary(r, m, SUMMARY_LIMIT) != 0 || fclose(m) != 0)
			abort();
		defuse_write(stdout, buf, len, defuse_scanners() | DEFUSE_GITHUB);
		free(buf);
		if (ferror(stdout))
			rc = mg_err_set(err, MG_ERROR, "stdout: write failed");
	}
	endings(r, stdout, ADAPTERS_RECYCLE, "warning", "recycle");
	endings(r, stdout, ADAPTERS_KILL, "error", "kill");
	endings(r, stdout, ADAPTERS_WARNING, "warning", "soft-limit warning");
	memlimits(r, stdout);
	const char *out = getenv("GITHUB_OUTPUT");
	if (rc == 0 && out && *out)
		rc = outputs(r, out, err);
	if (fflush(stdout) != 0 && rc == 0)
		rc = mg_err_set(err, MG_ERROR, "stdout: %s", strerror(errno));
	return rc;
}

/*
 * azure.c - Azure Pipelines logging commands on stdout: task.logissue for
 * recycles, kills, soft-limit warnings and memory-limit tests, a Markdown
 * summary file attached with task.uploadsummary, and task.setvariable for
 * the key figures.
 * Escaping follows azure-pipelines-task-lib (taskcommand.ts).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "adapters.h"

#define SUMMARY_LIMIT (1024 * 1024)
#define MAX_PER_KIND  10

/* Data: % CR LF. Properties: also ; and ]. (azure-pipelines-task-lib) */
static void put_escaped(FILE *f, const char *s, int property)
{
	static const char *const with[] = {"%AZP25", "%0D", "%0A", "%3B", "%5D"};
	adapters_put_escaped(f, s, property ? "%\r\n;]" : "%\r\n", with);
}

/* ##vso[area.action key=value;...]data; props is NULL-terminated pairs. */
static void command(FILE *f, const char *action, const char *const *props, const char *data)
{
	fprintf(f, "##vso[%s", action);
	for (size_t i = 0; props && props[i]; i += 2) {
		fputc(i ? ';' : ' ', f);
		fprintf(f, "%s=", props[i]);
		put_escaped(f, props[i + 1], 1);
	}
	fputc(']', f);
	put_escaped(f, data, 0);
	fputc('\n', f);
}

static void issue(FILE *f, const char *type, const char *message)
{
	const char *props[] = {"type", type, NULL};
	command(f, "task.logissue", props, message);
}

/* Recycles and soft-limit warnings are warnings, kills errors (as GitHub
 * shows them): up to MAX_PER_KIND each, then one line saying how many more. */
static void endings(const report *r, FILE *f, adapters_ending kind, const char *type,
                    const char *what)
{
	size_t n = 0;
	for (size_t i = 0; i < r->nshards; i++)
		for (size_t g = 0; g < r->shards[i].ngens; g++) {
			const report_shard *s = &r->shards[i];
			const report_generation *gen = &s->gens[g];
			const char *text = NULL;
			if (!adapters_ending_of(gen, kind, &text) || n++ >= MAX_PER_KIND)
				continue;
			char label[32], msg[800];
			adapters_shard_label(r, s, label, sizeof(label));
			if (kind == ADAPTERS_WARNING)
				snprintf(msg, sizeof(msg),
				         "memguard: %.200s [%.16s] shard %s: host generation %u: "
				         "%.400s",
				         s->suite ? s->suite : "", s->arch ? s->arch : "", label,
				         gen->index, text);
			else
				snprintf(msg, sizeof(msg),
				         "memguard: %.200s [%.16s] shard %s: host generation %u %s "
				         "after %u test%s: %.400s",
				         s->suite ? s->suite : "", s->arch ? s->arch : "", label,
				         gen->index, adapters_ending_verb(kind), gen->tests_run,
				         gen->tests_run == 1 ? "" : "s",
				         text ? text : "no reason given");
			issue(f, type, msg);
		}
	if (n > MAX_PER_KIND) {
		char msg[128];
		snprintf(msg, sizeof(msg), "memguard: %zu more %ss not shown", n - MAX_PER_KIND,
		         what);
		issue(f, type, msg);
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
			char *msg = NULL;
			size_t len = 0;
			FILE *m = open_memstream(&msg, &len);
			if (!m)
				abort();
			fprintf(m, "memguard: %s: over the hard limit alone in a fresh host%s%s",
			        x->name ? x->name : "", x->message ? ": " : "",
			        x->message ? x->message : "");
			fclose(m);
			issue(f, "error", msg);
			free(msg);
		}
	if (n > MAX_PER_KIND) {
		char msg[128];
		snprintf(msg, sizeof(msg), "memguard: %zu more memory-limit tests not shown",
		         n - MAX_PER_KIND);
		issue(f, "error", msg);
	}
}

static void variable(FILE *f, const char *name, uint64_t value)
{
	char v[32];
	snprintf(v, sizeof(v), "%llu", (unsigned long long)value);
	const char *props[] = {"variable", name, "isOutput", "true", NULL};
	command(f, "task.setvariable", props, v);
}

/*
 * path: the summary Markdown file; NULL: memguard-summary-node-N.md in
 * $AGENT_TEMPDIRECTORY (or the current directory). The upload command names
 * the file as given, made absolute when it is relative (the agent needs that).
 */
int azure_render(const report *r, const char *path, mg_err *err)
{
	char def[PATH_MAX];
	if (!path) {
		const char *tmp = getenv("AGENT_TEMPDIRECTORY");
		snprintf(def, sizeof(def), "%s/memguard-summary-node-%u.md",
		         tmp && *tmp ? tmp : ".", r->node_index);
		path = def;
	}
	adapters_out o;
	int rc = adapters_out_open(&o, path, err);
	if (rc)
		return rc;
	int ok = markdown_summary(r, o.f, SUMMARY_LIMIT) == 0;
	rc = adapters_out_close(&o, ok, err);
	if (rc)
		return rc;

	FILE *f = stdout;
	endings(r, f, ADAPTERS_RECYCLE, "warning", "recycle");
	endings(r, f, ADAPTERS_KILL, "error", "kill");
	endings(r, f, ADAPTERS_WARNING, "warning", "soft-limit warning");
	memlimits(r, f);
	char abs[PATH_MAX];
	if (path[0] != '/' && realpath(path, abs))
		path = abs;
	command(f, "task.uploadsummary", NULL, path);
	variable(f, "memguard.peak_va", r->totals.peak_va);
	variable(f, "memguard.peak_rss", r->totals.peak_rss);
	variable(f, "memguard.recycles", r->totals.recycles);
	variable(f, "memguard.kills", r->totals.kills);
	variable(f, "memguard.failed", r->totals.failed);
	if (fflush(f) != 0)
		return mg_err_set(err, MG_ERROR, "stdout: %s", strerror(errno));
	return 0;
}

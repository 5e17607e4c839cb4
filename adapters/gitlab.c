/*
 * gitlab.c - GitLab CI: an OpenMetrics text file (artifacts:reports:metrics)
 * with one gauge family per figure, labelled by shard, and the JUnit file
 * (artifacts:reports:junit). Label values are escaped per the exposition
 * format; `promtool check metrics` accepts the output (a CTest checks it).
 */
#include <stdlib.h>
#include <string.h>

#include "adapters.h"

/* Label values: backslash, double quote and newline escaped, CR a space;
 * valid UTF-8, at most 256 bytes of the value. '#' becomes U+FF03 (＃):
 * GitLab's parser (Gitlab::Ci::Parsers::Metrics::Generic) deletes from the
 * first '#' of a line to its end, quotes or not, then shellsplits the rest,
 * so a '#' in a value leaves an unmatched quote and the whole report is
 * dropped; the format has no escape for it. The escapes above are also
 * shellsplit's own inside double quotes (\\ and \"), so the key GitLab
 * shows keeps the value. */
static void label(FILE *f, const char *name, const char *value, int first)
{
	char *clean = adapters_clean(value ? value : "", 256, 0, NULL);
	fprintf(f, "%s%s=\"", first ? "" : ",", name);
	for (const char *p = clean; *p; p++) {
		if (*p == '\\')
			fputs("\\\\", f);
		else if (*p == '"')
			fputs("\\\"", f);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\r')
			fputc(' ', f); /* the format has no escape for it */
		else if (*p == '#')
			fputs("\xef\xbc\x83", f); /* U+FF03 FULLWIDTH NUMBER SIGN */
		else
			fputc(*p, f);
	}
	fputc('"', f);
	free(clean);
}

static void labels(FILE *f, const report_shard *s, const char *state)
{
	char buf[16];
	fputc('{', f);
	snprintf(buf, sizeof(buf), "%u", s->index);
	label(f, "shard", buf, 1);
	label(f, "arch", s->arch, 0);
	snprintf(buf, sizeof(buf), "%u", s->node);
	label(f, "node", buf, 0);
	label(f, "suite", s->suite, 0);
	if (state)
		label(f, "state", state, 0);
	fputc('}', f);
}

static void header(FILE *f, const char *name, const char *help, const char *unit)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
	if (unit)
		fprintf(f, "# UNIT %s %s\n", name, unit);
}

static void shard_u64(FILE *f, const report *r, const char *name, const char *help,
                      const char *unit, size_t offset)
{
	header(f, name, help, unit);
	for (size_t i = 0; i < r->nshards; i++) {
		const report_shard *s = &r->shards[i];
		uint64_t v;
		memcpy(&v, (const char *)s + offset, sizeof(v));
		fputs(name, f);
		labels(f, s, NULL);
		fprintf(f, " %llu\n", (unsigned long long)v);
	}
}

static void shard_u32(FILE *f, const report *r, const char *name, const char *help, size_t offset)
{
	header(f, name, help, NULL);
	for (size_t i = 0; i < r->nshards; i++) {
		const report_shard *s = &r->shards[i];
		uint32_t v;
		memcpy(&v, (const char *)s + offset, sizeof(v));
		fputs(name, f);
		labels(f, s, NULL);
		fprintf(f, " %u\n", v);
	}
}

static void shard_seconds(FILE *f, const report *r, const char *name, const char *help,
                          size_t offset)
{
	header(f, name, help, "seconds");
	for (size_t i = 0; i < r->nshards; i++) {
		const report_shard *s = &r->shards[i];
		double v;
		memcpy(&v, (const char *)s + offset, sizeof(v));
		fputs(name, f);
		labels(f, s, NULL);
		fprintf(f, " %.3f\n", v);
	}
}

int gitlab_write_metrics(const report *r, FILE *f)
{
	shard_u64(f, r, "memguard_peak_va_bytes",
	          "Peak virtual address space of the shard's hosts.", "bytes",
	          offsetof(report_shard, peak_va));
	shard_u64(f, r, "memguard_peak_rss_bytes", "Peak resident set size of the shard's hosts.",
	          "bytes", offsetof(report_shard, peak_rss));
	shard_u32(f, r, "memguard_recycles", "Hosts recycled at a test boundary (soft limit).",
	          offsetof(report_shard, recycles));
	shard_u32(f, r, "memguard_kills", "Hosts killed mid-test (hard limit).",
	          offsetof(report_shard, kills));
	shard_seconds(f, r, "memguard_wall_seconds", "Wall time of the shard.",
	              offsetof(report_shard, wall));
	shard_seconds(f, r, "memguard_cpu_user_seconds", "User CPU time of the shard's hosts.",
	              offsetof(report_shard, user));
	shard_seconds(f, r, "memguard_cpu_system_seconds", "System CPU time of the shard's hosts.",
	              offsetof(report_shard, sys));
	header(f, "memguard_tests", "Tests of the shard by result state.", NULL);
	for (size_t i = 0; i < r->nshards; i++)
		for (int k = 0; k < TEST_STATE_COUNT; k++) {
			fputs("memguard_tests", f);
			labels(f, &r->shards[i], report_state_name((test_state)k));
			fprintf(f, " %llu\n", (unsigned long long)r->shards[i].counts[k]);
		}
	fputs("# EOF\n", f);
	return ferror(f) ? MG_ERROR : 0;
}

/* path: a directory (created if missing, one level) that gets metrics.txt
 * and junit.xml; NULL: "memguard-gitlab". Each file is written atomically. */
int gitlab_render(const report *r, const char *path, mg_err *err)
{
	const char *dir = path ? path : "memguard-gitlab";
	int rc = adapters_mkdir(dir, err);
	if (rc)
		return rc;
	size_t len = strlen(dir) + 16;
	char *file = malloc(len);
	if (!file)
		abort();
	snprintf(file, len, "%s/metrics.txt", dir);
	adapters_out o;
	rc = adapters_out_open(&o, file, err);
	if (rc == 0) {
		int ok = gitlab_write_metrics(r, o.f) == 0;
		rc = adapters_out_close(&o, ok, err);
		if (!ok && rc)
			mg_err_set(err, rc, "%s: write failed", file);
	}
	if (rc == 0) {
		snprintf(file, len, "%s/junit.xml", dir);
		rc = junit_render(r, file, err);
	}
	free(file);
	return rc;
}

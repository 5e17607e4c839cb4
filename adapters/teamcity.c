/*
 * teamcity.c - TeamCity service messages: buildStatisticValue per shard
 * figure, and the tests (testStarted/testFailed/testIgnored/testFinished,
 * testMetadata for their memory: by default only for informative tests, so
 * a passing test is two lines) with one flowId per shard. Values use
 * TeamCity's escaping: || |' |[ |] |n |r, non-ASCII as |0xNNNN (UTF-16 units).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "adapters.h"

#define OUTPUT_MAX (64 * 1024)

/* Decodes the (valid, cleaned) UTF-8 sequence at p into *cp; its length. */
static size_t decode(const unsigned char *p, unsigned *cp)
{
	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	size_t n = p[0] >= 0xF0 ? 4 : p[0] >= 0xE0 ? 3 : 2;
	unsigned v = p[0] & (0x7F >> n);
	for (size_t i = 1; i < n; i++)
		v = (v << 6) | (p[i] & 0x3F);
	*cp = v;
	return n;
}

static void put_value(FILE *f, const char *s, size_t max)
{
	char *clean = adapters_clean(s ? s : "", max, 0, NULL);
	const unsigned char *p = (const unsigned char *)clean;
	while (*p) {
		unsigned cp;
		p += decode(p, &cp);
		switch (cp) {
		case '|':
			fputs("||", f);
			break;
		case '\'':
			fputs("|'", f);
			break;
		case '[':
			fputs("|[", f);
			break;
		case ']':
			fputs("|]", f);
			break;
		case '\n':
			fputs("|n", f);
			break;
		case '\r':
			fputs("|r", f);
			break;
		default:
			if (cp < 0x80) {
				fputc((int)cp, f);
			} else if (cp < 0x10000) {
				fprintf(f, "|0x%04X", cp);
			} else { /* TeamCity is Java: a UTF-16 surrogate pair */
				cp -= 0x10000;
				fprintf(f, "|0x%04X|0x%04X", 0xD800 + (cp >> 10),
				        0xDC00 + (cp & 0x3FF));
			}
		}
	}
	free(clean);
}

/* ##teamcity[NAME k='v' ...]; attrs is NULL-terminated pairs. */
static void message(FILE *f, const char *name, const char *const *attrs)
{
	fprintf(f, "##teamcity[%s", name);
	for (size_t i = 0; attrs[i]; i += 2) {
		fprintf(f, " %s='", attrs[i]);
		put_value(f, attrs[i + 1], strcmp(attrs[i], "out") == 0 ? OUTPUT_MAX : 8192);
		fputc('\'', f);
	}
	fputs("]\n", f);
}

static void statistic(FILE *f, const char *prefix, const char *key, const char *value)
{
	char k[128];
	snprintf(k, sizeof(k), "%s.%s", prefix, key);
	const char *attrs[] = {"key", k, "value", value, NULL};
	message(f, "buildStatisticValue", attrs);
}

static void statistic_u64(FILE *f, const char *prefix, const char *key, uint64_t v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	statistic(f, prefix, key, buf);
}

/* A byte count as test metadata: type 'bytes', one of the numeric types
 * TeamCity graphs (number, ms, bytes, percent: "Reporting Test Metadata"),
 * so its axis reads as sizes. */
static void metadata_bytes(FILE *f, const char *flow, const char *test, const char *name,
                           long long v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%lld", v);
	const char *attrs[] = {"testName", test, "name",   name, "type", "bytes",
	                       "value",    buf,  "flowId", flow, NULL};
	message(f, "testMetadata", attrs);
}

typedef struct site_meta {
	const char *flow, *test;
	unsigned n; /* sites so far */
} site_meta;

/* A detailed test's allocation sites as text metadata (TeamCity's default
 * type): site1, site1_pinned_by, ..., sites_more. */
static void site_metadata(FILE *f, int level, const char *text, void *ctx)
{
	site_meta *m = ctx;
	char name[32];
	m->n += level == 0;
	if (level == 2)
		snprintf(name, sizeof(name), "sites_more");
	else
		snprintf(name, sizeof(name), "site%u%s", m->n, level ? "_pinned_by" : "");
	const char *attrs[] = {"testName", m->test,  "name",  name, "value",
	                       text,       "flowId", m->flow, NULL};
	message(f, "testMetadata", attrs);
}

static void test(FILE *f, const char *flow, const report_shard *s, size_t i, adapters_detail d)
{
	const report_test *t = &s->tests[i];
	const char *name = t->name ? t->name : "";
	const char *start[] = {"name", name, "flowId", flow, NULL};
	message(f, "testStarted", start);
	if (adapters_test_detailed(t, d)) {
		metadata_bytes(f, flow, name, "va_after", (long long)t->va_after);
		metadata_bytes(f, flow, name, "rss_after", (long long)t->rss_after);
		metadata_bytes(f, flow, name, "va_delta", (long long)t->va_delta);
		metadata_bytes(f, flow, name, "rss_delta", (long long)t->rss_delta);
		site_meta m = {flow, name, 0};
		adapters_site_lines(f, report_shard_test_sites(s, i), site_metadata, &m);
	}
	if (t->output) {
		/* with a NUL in it, cleaned first: it shows as \x00, not as the end */
		const report_bytes *o = t->output;
		char *text = memchr(o->data, '\0', o->len)
		                 ? adapters_clean_n(o->data, o->len, 0, 0, NULL)
		                 : NULL;
		const char *out[] = {"name",   name, "out", text ? text : o->data,
		                     "flowId", flow, NULL};
		message(f, "testStdOut", out);
		free(text);
	}
	const char *msg = t->message ? t->message : "";
	if (t->state == TEST_SKIP || t->state == TEST_NOTRUN) {
		const char *ign[] = {
		    "name",    name,
		    "message", t->state == TEST_NOTRUN ? "not run: the run was interrupted" : msg,
		    "flowId",  flow,
		    NULL};
		message(f, "testIgnored", ign);
	} else if (report_state_failed(t->state)) {
		char *m = adapters_clean(t->message ? t->message : "", 200, ADAPTERS_ONELINE, NULL);
		char *summary = NULL;
		if (asprintf(&summary, "%s%s%s", report_state_name(t->state), *m ? ": " : "", m) <
		    0)
			abort();
		const char *failed[] = {"name", name,     "message", summary, "details",
		                        msg,    "flowId", flow,      NULL};
		message(f, "testFailed", failed);
		free(summary);
		free(m);
	}
	char ms[32];
	snprintf(ms, sizeof(ms), "%lld", (long long)(t->duration * 1000.0 + 0.5));
	const char *fin[] = {"name", name, "duration", ms, "flowId", flow, NULL};
	message(f, "testFinished", fin);
}

static int write_all(const report *r, FILE *f, adapters_detail d)
{
	for (size_t i = 0; i < r->nshards; i++) {
		const report_shard *s = &r->shards[i];
		char label[32], flow[48], prefix[64], suite[512];
		adapters_shard_label(r, s, label, sizeof(label));
		snprintf(flow, sizeof(flow), "memguard-shard-%s", label);
		snprintf(prefix, sizeof(prefix), "memguard.shard%s", label);
		snprintf(suite, sizeof(suite), "%.400s [%.16s] shard %s", s->suite ? s->suite : "",
		         s->arch ? s->arch : "", label);
		const char *ss[] = {"name", suite, "flowId", flow, NULL};
		message(f, "testSuiteStarted", ss);
		for (size_t t = 0; t < s->ntests; t++)
			test(f, flow, s, t, d);
		message(f, "testSuiteFinished", ss);
		statistic_u64(f, prefix, "peak_va", s->peak_va);
		statistic_u64(f, prefix, "peak_rss", s->peak_rss);
		statistic_u64(f, prefix, "recycles", s->recycles);
		statistic_u64(f, prefix, "kills", s->kills);
		report_totals tot = adapters_shard_totals(s);
		statistic_u64(f, prefix, "tests", tot.tests);
		statistic_u64(f, prefix, "failed", tot.failed);
		char wall[32];
		snprintf(wall, sizeof(wall), "%.3f", s->wall);
		statistic(f, prefix, "wall", wall);
	}
	return ferror(f) ? MG_ERROR : 0;
}

/* path NULL: stdout (TeamCity reads service messages from the build log). */
int teamcity_render(const report *r, const char *path, mg_err *err)
{
	return teamcity_render_detail(r, path, ADAPTERS_INFORMATIVE, err);
}

int teamcity_render_detail(const report *r, const char *path, adapters_detail d, mg_err *err)
{
	adapters_out o;
	int rc = adapters_out_open(&o, path, err);
	if (rc)
		return rc;
	int ok = write_all(r, o.f, d) == 0;
	rc = adapters_out_close(&o, ok, err);
	if (rc && !ok)
		return mg_err_set(err, rc, "teamcity: write failed: %s", strerror(errno));
	return rc;
}

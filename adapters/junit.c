/*
 * junit.c - JUnit XML (the Jenkins/Ant dialect, see junit.xsd) written with
 * libxml2's xmlTextWriter: one <testsuite> per shard, one <testcase> per
 * test, with its memory as properties when the detail asks for it (by
 * default only for informative tests: a passing test is one short line). Never pastes XML by hand:
 * every text goes through adapters_clean (valid XML 1.0 characters) and the writer.
 */
#include <libxml/xmlwriter.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "adapters.h"

#define OUTPUT_MAX (64 * 1024)

typedef struct junit_w {
	xmlTextWriterPtr w;
	int failed; /* a writer call returned < 0 */
	adapters_detail detail;
} junit_w;

static const xmlChar *X(const char *s)
{
	return (const xmlChar *)s;
}

static void start(junit_w *j, const char *name)
{
	j->failed |= xmlTextWriterStartElement(j->w, X(name)) < 0;
}

static void end(junit_w *j)
{
	j->failed |= xmlTextWriterEndElement(j->w) < 0;
}

/* Any bytes: cleaned to XML characters before the writer escapes them. */
static void attr(junit_w *j, const char *name, const char *value)
{
	char *clean = adapters_clean(value ? value : "", 0, ADAPTERS_XML, NULL);
	j->failed |= xmlTextWriterWriteAttribute(j->w, X(name), X(clean)) < 0;
	free(clean);
}

static void attr_u64(junit_w *j, const char *name, uint64_t v)
{
	j->failed |=
	    xmlTextWriterWriteFormatAttribute(j->w, X(name), "%llu", (unsigned long long)v) < 0;
}

static void attr_time(junit_w *j, const char *name, double seconds)
{
	j->failed |= xmlTextWriterWriteFormatAttribute(j->w, X(name), "%.3f",
	                                               seconds > 0 ? seconds : 0.0) < 0;
}

static void text(junit_w *j, const char *s)
{
	char *clean = adapters_clean(s, 0, ADAPTERS_XML, NULL);
	j->failed |= xmlTextWriterWriteString(j->w, X(clean)) < 0;
	free(clean);
}

static void property(junit_w *j, const char *name, const char *value)
{
	start(j, "property");
	attr(j, "name", name);
	attr(j, "value", value);
	end(j);
}

static void property_u64(junit_w *j, const char *name, uint64_t v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	property(j, name, buf);
}

static void property_i64(junit_w *j, const char *name, int64_t v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%lld", (long long)v);
	property(j, name, buf);
}

/* classname is the suite part of "suite/test"; a name without '/' belongs
 * to the shard's suite. */
static void split_name(const report_shard *s, const char *full, char **classname, char **name)
{
	const char *slash = strchr(full, '/');
	if (slash) {
		*classname = report_strndup(full, (size_t)(slash - full));
		*name = report_strdup(slash + 1);
	} else {
		*classname = report_strdup(s->suite ? s->suite : "");
		*name = report_strdup(full);
	}
}

/* A failure other than fail is a JUnit error, typed by its state. */
static const char *error_type(test_state s)
{
	return report_state_failed(s) && s != TEST_FAIL ? report_state_name(s) : NULL;
}

/* The bounded output, with [[PROPERTY|...]] lines first (Jenkins reads
 * them as test properties) when the test's memory is written; nothing for
 * a test with neither. */
static void system_out(junit_w *j, const report_test *t, int detailed)
{
	char head[256];
	if (!detailed && !t->output)
		return;
	snprintf(head, sizeof(head),
	         "[[PROPERTY|va_after=%llu]]\n[[PROPERTY|rss_after=%llu]]\n"
	         "[[PROPERTY|va_delta=%lld]]\n[[PROPERTY|rss_delta=%lld]]\n",
	         (unsigned long long)t->va_after, (unsigned long long)t->rss_after,
	         (long long)t->va_delta, (long long)t->rss_delta);
	start(j, "system-out");
	if (detailed)
		text(j, head);
	if (t->output) {
		size_t len = strlen(t->output);
		char *clean = adapters_clean(t->output, OUTPUT_MAX, ADAPTERS_XML, NULL);
		j->failed |= xmlTextWriterWriteString(j->w, X(clean)) < 0;
		free(clean);
		if (len > OUTPUT_MAX) {
			char note[128];
			snprintf(note, sizeof(note),
			         "\n[memguard: output truncated: %d of %zu bytes shown]\n",
			         OUTPUT_MAX, len);
			text(j, note);
		}
	}
	end(j);
}

static void testcase(junit_w *j, const report_shard *s, const report_test *t)
{
	char *classname, *name;
	split_name(s, t->name ? t->name : "", &classname, &name);
	start(j, "testcase");
	attr(j, "classname", classname);
	attr(j, "name", name);
	attr_time(j, "time", t->duration);
	free(classname);
	free(name);

	int detailed = adapters_test_detailed(t, j->detail);
	if (detailed) {
		start(j, "properties");
		property(j, "state", report_state_name(t->state));
		property_u64(j, "va_after", t->va_after);
		property_u64(j, "rss_after", t->rss_after);
		property_i64(j, "va_delta", t->va_delta);
		property_i64(j, "rss_delta", t->rss_delta);
		property_u64(j, "generation", t->generation);
		property_u64(j, "attempts", t->attempts);
		end(j);
	}

	const char *msg = t->message ? t->message : "";
	const char *type = error_type(t->state);
	if (type) {
		start(j, "error");
		attr(j, "type", type);
		attr(j, "message", msg);
		text(j, msg);
		end(j);
	} else if (t->state == TEST_FAIL) {
		start(j, "failure");
		attr(j, "type", "fail");
		attr(j, "message", msg);
		text(j, msg);
		end(j);
	} else if (t->state == TEST_SKIP || t->state == TEST_NOTRUN) {
		start(j, "skipped");
		attr(j, "message",
		     t->state == TEST_NOTRUN ? "not run: the run was interrupted" : msg);
		end(j);
	}
	system_out(j, t, detailed);
	end(j);
}

static void testsuite(junit_w *j, const report *r, const report_shard *s, const char *timestamp)
{
	char label[32], name[512];
	adapters_shard_label(r, s, label, sizeof(label));
	snprintf(name, sizeof(name), "%.400s [%.16s] shard %s", s->suite ? s->suite : "",
	         s->arch ? s->arch : "", label);
	start(j, "testsuite");
	attr(j, "name", name);
	report_totals t = adapters_shard_totals(s);
	attr_u64(j, "tests", t.tests);
	attr_u64(j, "failures", t.counts[TEST_FAIL]);
	attr_u64(j, "errors", t.failed - t.counts[TEST_FAIL]);
	attr_u64(j, "skipped", t.other);
	attr_time(j, "time", s->wall);
	attr(j, "timestamp", timestamp);
	attr(j, "id", label);

	start(j, "properties");
	property(j, "arch", s->arch);
	property(j, "driver", s->driver);
	property(j, "command", s->command);
	property_u64(j, "node", s->node);
	property_u64(j, "peak_va", s->peak_va);
	property_u64(j, "peak_rss", s->peak_rss);
	property_u64(j, "recycles", s->recycles);
	property_u64(j, "kills", s->kills);
	property_u64(j, "generations", s->ngens);
	end(j);
	for (size_t i = 0; i < s->ntests; i++)
		testcase(j, s, &s->tests[i]);
	end(j);
}

int junit_write(const report *r, FILE *f, mg_err *err)
{
	return junit_write_detail(r, f, ADAPTERS_INFORMATIVE, err);
}

int junit_write_detail(const report *r, FILE *f, adapters_detail d, mg_err *err)
{
	xmlOutputBufferPtr out = xmlOutputBufferCreateFile(f, NULL);
	if (!out)
		return mg_err_set(err, MG_ERROR, "junit: cannot create the XML output");
	junit_w j = {.w = xmlNewTextWriter(out), .failed = 0, .detail = d};
	if (!j.w) {
		xmlOutputBufferClose(out);
		return mg_err_set(err, MG_ERROR, "junit: cannot create the XML writer");
	}
	xmlTextWriterSetIndent(j.w, 1);
	xmlTextWriterSetIndentString(j.w, X("  "));

	char timestamp[32];
	if (report_format_time(timestamp, sizeof(timestamp), r->start_time, "%Y-%m-%dT%H:%M:%S") <
	    0)
		snprintf(timestamp, sizeof(timestamp), "1970-01-01T00:00:00");
	const report_totals *tot = &r->totals;

	j.failed |= xmlTextWriterStartDocument(j.w, "1.0", "UTF-8", NULL) < 0;
	start(&j, "testsuites");
	attr(&j, "name", "memguard");
	attr_u64(&j, "tests", tot->tests);
	attr_u64(&j, "failures", tot->counts[TEST_FAIL]);
	attr_u64(&j, "errors", tot->failed - tot->counts[TEST_FAIL]);
	attr_u64(&j, "skipped", tot->other);
	attr_time(&j, "time", r->wall);
	for (size_t i = 0; i < r->nshards; i++)
		testsuite(&j, r, &r->shards[i], timestamp);
	end(&j);
	j.failed |= xmlTextWriterEndDocument(j.w) < 0;
	xmlFreeTextWriter(j.w); /* flushes and frees out; f stays open */
	if (j.failed || ferror(f))
		return mg_err_set(err, MG_ERROR, "junit: writing the XML failed");
	return 0;
}

/* path NULL: memguard-junit.xml in the current directory. */
int junit_render(const report *r, const char *path, mg_err *err)
{
	return junit_render_detail(r, path, ADAPTERS_INFORMATIVE, err);
}

int junit_render_detail(const report *r, const char *path, adapters_detail d, mg_err *err)
{
	adapters_out o;
	int rc = adapters_out_open(&o, path ? path : "memguard-junit.xml", err);
	if (rc)
		return rc;
	rc = junit_write_detail(r, o.f, d, err);
	int crc = adapters_out_close(&o, rc == 0, err);
	return rc ? rc : crc;
}

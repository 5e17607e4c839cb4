/*
 * junit.c - JUnit XML written with libxml2's xmlTextWriter: one <testsuite>
 * per shard, one <testcase> per test. The default form is valid under
 * Jenkins xunit's junit-10.xsd and the windyroad JUnit.xsd (and junit.xsd):
 * the shard's figures are suite properties, a detailed test's memory is a
 * readable line (in its failure text, or the suite's <system-out>); a
 * passing test is one short line. :properties puts every test's memory in
 * <properties> inside its <testcase> instead (not valid under those two).
 * Never pastes XML by hand: every text goes through adapters_clean (valid
 * XML 1.0 characters) and the writer. Also the run in the framework's own
 * shape (junit_framework_*), and its JSON twin, GoogleTest's json output.
 */
#include <jansson.h>
#include <libxml/xmlwriter.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "adapters.h"
#include "mg_dl.h"

#define OUTPUT_MAX (64 * 1024)

/*
 * libxml2 is loaded when a JUnit file is first written (xml_load), not
 * linked: every other run of memguard starts without it and the ICU and C++
 * runtimes it needs (measured here: an executable linking it starts in 1.6
 * ms of CPU against 0.5). Its functions are called through xl.
 */
#define XML_FNS(X)                                                                                 \
	X(xmlOutputBufferCreateFile)                                                               \
	X(xmlOutputBufferClose)                                                                    \
	X(xmlNewTextWriter)                                                                        \
	X(xmlFreeTextWriter)                                                                       \
	X(xmlTextWriterSetIndent)                                                                  \
	X(xmlTextWriterSetIndentString)                                                            \
	X(xmlTextWriterStartDocument)                                                              \
	X(xmlTextWriterEndDocument)                                                                \
	X(xmlTextWriterStartElement)                                                               \
	X(xmlTextWriterEndElement)                                                                 \
	X(xmlTextWriterWriteAttribute)                                                             \
	X(xmlTextWriterWriteFormatAttribute)                                                       \
	X(xmlTextWriterWriteString)

static MG_DL_TABLE(XML_FNS) xl;
static const char *const xl_names[] = {XML_FNS(MG_DL_NAME)};

/* 0 once libxml2's writer functions are in xl; <0 (err naming the
 * library and why) when it cannot be loaded. Tried once a process. */
static int xml_load(mg_err *err)
{
	static int state; /* 0 not tried, 1 loaded, -1 failed */
	static char why[512];
	if (state == 0)
		state = mg_dl_load(MG_LIBXML2_SONAME, xl_names, xl.slot,
		                   sizeof(xl_names) / sizeof(xl_names[0]), why, sizeof(why)) < 0
		            ? -1
		            : 1;
	if (state < 0)
		return mg_err_set(err, MG_ERROR,
		                  "junit: cannot load libxml2 (" MG_LIBXML2_SONAME "), which "
		                  "writes XML: %s",
		                  why);
	return 0;
}

typedef struct junit_w {
	xmlTextWriterPtr w;
	int failed; /* a writer call returned < 0 */
	adapters_detail detail;
	/* the node ids of the run's pytest teardown errors, sorted: the
	 * passed or skipped entry of one of them, in any shard, is merged
	 * into it (pytest_merged) */
	const char **torn;
	size_t ntorn;
} junit_w;

static const xmlChar *X(const char *s)
{
	return (const xmlChar *)s;
}

static void start(junit_w *j, const char *name)
{
	j->failed |= xl.xmlTextWriterStartElement(j->w, X(name)) < 0;
}

static void end(junit_w *j)
{
	j->failed |= xl.xmlTextWriterEndElement(j->w) < 0;
}

/* Any bytes: cleaned to XML characters before the writer escapes them. */
static void attr(junit_w *j, const char *name, const char *value)
{
	char *clean = adapters_clean(value ? value : "", 0, ADAPTERS_XML, NULL);
	j->failed |= xl.xmlTextWriterWriteAttribute(j->w, X(name), X(clean)) < 0;
	free(clean);
}

static void attr_u64(junit_w *j, const char *name, uint64_t v)
{
	j->failed |=
	    xl.xmlTextWriterWriteFormatAttribute(j->w, X(name), "%llu", (unsigned long long)v) < 0;
}

static void attr_time(junit_w *j, const char *name, double seconds)
{
	j->failed |=
	    xl.xmlTextWriterWriteFormatAttribute(
	        j->w, X(name), "%.3f", isfinite(seconds) && seconds > 0 ? seconds : 0.0) < 0;
}

static void text(junit_w *j, const char *s)
{
	char *clean = adapters_clean(s, 0, ADAPTERS_XML, NULL);
	j->failed |= xl.xmlTextWriterWriteString(j->w, X(clean)) < 0;
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

/*
 * A test's JUnit identity as its framework writes it itself, so a team
 * moving from the framework's XML keeps its history (Jenkins, GitLab and
 * Azure key tests by classname and name):
 *   gtest:  "Suite.Test" -> classname Suite, name Test, as
 *           --gtest_output=xml ("Small/Square.Works/0" -> Small/Square,
 *           Works/0: a suite holds no '.', a parameterized one a '/');
 *   catch2: classname SUITE.global (the program's name: Catch2's own
 *           "--reporter junit"), name the whole test name ('/' included)
 *           without white space at its ends (Catch2 trims it there: a
 *           TEST_CASE("basic async test ") is "basic async test");
 *   pytest: its own --junitxml (mangle_test_address): the node id's path
 *           with '/' as '.' and without ".py", then its classes, joined by
 *           '.'; the name its last "::" part, parameters included
 *           ("pkg/test_a.py::TestX::test_y[1]" -> pkg.test_a.TestX, test_y[1]);
 *           a module's own entry (a collection error, a module skipped at
 *           collection: "pkg/test_b.py") has classname "" and the dotted
 *           path as its name (pkg.test_b);
 *   ctest:  classname and name both the test's name, '/' and all, as
 *           ctest --output-junit (a second test of one name is memguard's
 *           "same#2", where ctest writes "same" twice);
 *   else:   classname the suite part of "suite/test"; a name without '/'
 *           belongs to the shard's suite.
 */
static int split_pytest(const char *full, char **classname, char **name)
{
	const char *bracket = strchr(full, '[');
	const char *end = bracket ? bracket : full + strlen(full), *last = NULL;
	for (const char *p = full; p + 1 < end; p++)
		if (p[0] == ':' && p[1] == ':')
			last = p;
	if (!last && end - full > 3 && !memcmp(end - 3, ".py", 3)) {
		/* a module: classname "", name its dotted path */
		size_t n = strlen(full), k = 0;
		char *m = mg_xrealloc(NULL, n + 1);
		for (const char *p = full; p < end - 3; p++)
			m[k++] = *p == '/' ? '.' : *p;
		memcpy(m + k, end, n - (size_t)(end - full) + 1);
		*classname = report_strdup("");
		*name = m;
		return 0;
	}
	if (!last)
		return -1;
	size_t path = (size_t)(strstr(full, "::") - full), n = (size_t)(last - full);
	size_t keep = path >= 3 && !memcmp(full + path - 3, ".py", 3) ? path - 3 : path;
	char *c = mg_xrealloc(NULL, n + 1);
	size_t k = 0;
	for (size_t i = 0; i < keep; i++)
		c[k++] = full[i] == '/' ? '.' : full[i];
	for (size_t i = path; i < n;) /* its classes */
		if (full[i] == ':' && full[i + 1] == ':') {
			c[k++] = '.';
			i += 2;
		} else {
			c[k++] = full[i++];
		}
	c[k] = '\0';
	*classname = c;
	*name = report_strdup(last + 2);
	return 0;
}

/* A Catch2 test's name as Catch2's reporters write it: without white space
 * at its ends (its trim: space, tab, CR, LF). */
static char *catch2_name(const char *full)
{
	size_t from = strspn(full, " \t\r\n"), to = strlen(full);
	while (to > from && strchr(" \t\r\n", full[to - 1]))
		to--;
	return report_strndup(full + from, to - from);
}

static void split_name(const report_shard *s, const char *full, char **classname, char **name)
{
	const char *driver = s->driver ? s->driver : "";
	const char *suite = s->suite ? s->suite : "";
	if (!strcmp(driver, "pytest") && split_pytest(full, classname, name) == 0)
		return;
	const char *dot = strchr(full, '.');
	if (!strcmp(driver, "gtest") && dot && dot > full && dot[1]) {
		*classname = report_strndup(full, (size_t)(dot - full));
		*name = report_strdup(dot + 1);
		return;
	}
	if (!strcmp(driver, "ctest")) {
		*classname = report_strdup(full);
		*name = report_strdup(full);
		return;
	}
	if (!strcmp(driver, "catch2")) {
		size_t len = strlen(suite) + sizeof(".global");
		*classname = malloc(len);
		if (!*classname)
			abort();
		snprintf(*classname, len, "%s.global", suite);
		*name = catch2_name(full);
		return;
	}
	const char *slash = strchr(full, '/');
	if (slash) {
		*classname = report_strndup(full, (size_t)(slash - full));
		*name = report_strdup(slash + 1);
	} else {
		*classname = report_strdup(suite);
		*name = report_strdup(full);
	}
}

/* A failure other than fail is a JUnit error, typed by its state. */
static const char *error_type(test_state s)
{
	return report_state_failed(s) && s != TEST_FAIL ? report_state_name(s) : NULL;
}

static int is_pytest(const report_shard *s)
{
	return s->driver && !strcmp(s->driver, "pytest");
}

/* A pytest entry that is an error outside the test's call (its setup's,
 * its teardown's, its module's collection): pytest's --junitxml writes
 * an <error> for those, a <failure> for the call's. */
static int pytest_error(const report_shard *s, const report_test *t)
{
	static const char *const words[] = {"error at setup", "error at teardown",
	                                    "error collecting"};
	if (!is_pytest(s) || t->state != TEST_FAIL || !t->message)
		return 0;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strncmp(t->message, words[i], strlen(words[i])))
			return 1;
	return 0;
}

static int pytest_torn(const report_shard *s, const report_test *t)
{
	return t->name && pytest_error(s, t) && !strncmp(t->message, "error at teardown", 17);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* j->torn: the node ids of the run's pytest teardown errors. */
static void torn_collect(junit_w *j, const report *r)
{
	for (int pass = 0; pass < 2; pass++) {
		size_t n = 0;
		for (size_t k = 0; k < r->nshards; k++)
			for (size_t i = 0; i < r->shards[k].ntests; i++)
				if (pytest_torn(&r->shards[k], &r->shards[k].tests[i])) {
					if (pass)
						j->torn[n] = r->shards[k].tests[i].name;
					n++;
				}
		if (!n)
			return;
		if (!pass)
			j->torn = mg_xrealloc(NULL, n * sizeof(*j->torn));
		j->ntorn = n;
	}
	qsort(j->torn, j->ntorn, sizeof(*j->torn), by_name);
}

/* Entry i of a pytest shard that a teardown error of its node id stands
 * for: passed or skipped, the error next to it or, where the run's lanes
 * tore the scope down elsewhere (a module's fixture in another lane's
 * program, at its recycle or end), in any shard. pytest's --junitxml
 * writes them as one testcase, with the error (after a failed call, as
 * two: the failure and the error, which memguard writes too); before, the
 * error of another shard was a testcase of its own beside the pass. */
static int pytest_merged(const junit_w *j, const report_shard *s, size_t i)
{
	const report_test *t = &s->tests[i];
	if (!is_pytest(s) || !t->name || (t->state != TEST_PASS && t->state != TEST_SKIP))
		return 0;
	if (i + 1 < s->ntests && pytest_torn(s, &s->tests[i + 1]) &&
	    !strcmp(t->name, s->tests[i + 1].name))
		return 1;
	return j->ntorn && bsearch(&t->name, j->torn, j->ntorn, sizeof(*j->torn), by_name);
}

/* The element that says how t (of s) ended (error, failure, skipped);
 * NULL for a test that passed. */
static const char *outcome(const report_shard *s, const report_test *t)
{
	if (error_type(t->state) || pytest_error(s, t))
		return "error";
	if (t->state == TEST_FAIL)
		return "failure";
	if (t->state == TEST_SKIP || t->state == TEST_NOTRUN)
		return "skipped";
	return NULL;
}

/* t's output, cleaned and bounded to OUTPUT_MAX with a note saying so. */
static void output_text(junit_w *j, const report_test *t)
{
	size_t len = t->output->len;
	char *clean = adapters_clean_n(t->output->data, len, OUTPUT_MAX, ADAPTERS_XML, NULL);
	j->failed |= xl.xmlTextWriterWriteString(j->w, X(clean)) < 0;
	free(clean);
	if (len > OUTPUT_MAX) {
		char note[128];
		snprintf(note, sizeof(note),
		         "\n[memguard: output truncated: %d of %zu bytes shown]\n", OUTPUT_MAX,
		         len);
		text(j, note);
	}
}

/* A site line of a detailed test: "memguard: site TEXT" on a line of its
 * own ("memguard: pinned by: ..." for what pins it). */
static void site_line(FILE *f, int level, const char *line, void *ctx)
{
	(void)f;
	(void)level;
	junit_w *j = ctx;
	text(j, "\nmemguard: ");
	text(j, level == 0 ? "site " : "");
	char *clean = adapters_clean(line, 512, ADAPTERS_ONELINE, NULL);
	text(j, clean);
	free(clean);
}

/* One readable line of t (test i of s)'s memory, "key=value", then a line
 * for each of its top allocation sites; no newline at the end. */
static void memory_line(junit_w *j, const report_shard *s, const report_test *t)
{
	char line[256];
	snprintf(line, sizeof(line),
	         "memguard: state=%s attempts=%u generation=%u va_after=%llu rss_after=%llu "
	         "va_delta=%lld rss_delta=%lld",
	         report_state_name(t->state), (unsigned)t->attempts, (unsigned)t->generation,
	         (unsigned long long)t->va_after, (unsigned long long)t->rss_after,
	         (long long)t->va_delta, (long long)t->rss_delta);
	text(j, line);
	if (t->near_ceiling)
		text(j, " (first attempt " REPORT_NEAR_CEILING ")");
	adapters_site_lines(NULL, report_shard_test_sites(s, (size_t)(t - s->tests)), site_line, j);
}

/* The properties form: t's memory as <properties> inside its testcase,
 * its output in the testcase's <system-out>. */
static void testcase_properties(junit_w *j, const report_test *t)
{
	start(j, "properties");
	property(j, "state", report_state_name(t->state));
	property_u64(j, "va_after", t->va_after);
	property_u64(j, "rss_after", t->rss_after);
	property_i64(j, "va_delta", t->va_delta);
	property_i64(j, "rss_delta", t->rss_delta);
	property_u64(j, "generation", t->generation);
	property_u64(j, "attempts", t->attempts);
	if (t->near_ceiling)
		property(j, "near_ceiling", "true");
	end(j);
}

/*
 * A testcase with at most one child, error, failure or skipped, whose text
 * is the message (never empty for a skip: GitLab shows an empty one as a
 * hash), then, in the default form, the test's memory line when it is
 * detailed and its output. That is all junit-10.xsd and the windyroad
 * schema both allow; a passing test's memory and output go to the suite's
 * <system-out> (suite_out).
 */
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

	int props = j->detail == ADAPTERS_PROPERTIES;
	if (props)
		testcase_properties(j, t);
	const char *what = outcome(s, t);
	if (what) {
		const char *msg = t->message ? t->message : "";
		if (t->state == TEST_NOTRUN)
			msg = "not run: the run was interrupted";
		else if (t->state == TEST_SKIP && !*msg)
			msg = "skipped";
		start(j, what);
		if (strcmp(what, "skipped") != 0)
			attr(j, "type",
			     error_type(t->state) ? error_type(t->state)
			     : pytest_error(s, t) ? "error"
			                          : "fail");
		attr(j, "message", msg);
		text(j, msg);
		int any = *msg != '\0';
		if (!props && adapters_test_detailed(t, j->detail)) {
			text(j, any ? "\n" : "");
			memory_line(j, s, t);
			any = 1;
		}
		if (!props && t->output) {
			text(j, any ? "\n" : "");
			output_text(j, t);
		}
		end(j);
	}
	if (props && t->output) {
		start(j, "system-out");
		output_text(j, t);
		end(j);
	}
	end(j);
}

/* The suite's <system-out> in the default form: for each passing test, its
 * memory line when detailed and its output, each headed by the test's
 * name. Empty when there is none (both schemas require the element). */
static void suite_out(junit_w *j, const report_shard *s)
{
	start(j, "system-out");
	for (size_t i = 0; j->detail != ADAPTERS_PROPERTIES && i < s->ntests; i++) {
		const report_test *t = &s->tests[i];
		if (outcome(s, t))
			continue;
		const char *name = t->name ? t->name : "";
		if (adapters_test_detailed(t, j->detail)) {
			text(j, name);
			text(j, ": ");
			memory_line(j, s, t);
			text(j, "\n");
		}
		if (t->output) {
			text(j, "--- output of ");
			text(j, name);
			text(j, " ---\n");
			output_text(j, t);
			text(j, "\n");
		}
	}
	end(j);
}

/* Attributes and children in the order and types the windyroad schema
 * requires (its aggregated form: package and an integer id from 0) and
 * junit-10.xsd allows; the shard's label is in the name. */
static void testsuite(junit_w *j, const report *r, size_t index, const char *timestamp)
{
	const report_shard *s = &r->shards[index];
	char label[32], name[512];
	adapters_shard_label(r, s, label, sizeof(label));
	snprintf(name, sizeof(name), "%.400s [%.16s] shard %s", s->suite ? s->suite : "",
	         s->arch ? s->arch : "", label);
	start(j, "testsuite");
	attr(j, "name", name);
	/* the testcases written: counted by their elements */
	uint64_t tests = 0, failures = 0, errors = 0, skipped = 0;
	for (size_t i = 0; i < s->ntests; i++) {
		if (pytest_merged(j, s, i))
			continue;
		const char *what = outcome(s, &s->tests[i]);
		tests++;
		failures += what && !strcmp(what, "failure");
		errors += what && !strcmp(what, "error");
		skipped += what && !strcmp(what, "skipped");
	}
	attr_u64(j, "tests", tests);
	attr_u64(j, "failures", failures);
	attr_u64(j, "errors", errors);
	attr_u64(j, "skipped", skipped);
	attr_time(j, "time", s->wall);
	attr(j, "timestamp", timestamp);
	attr(j, "hostname", "localhost"); /* the report has no host name; the node is a property */
	attr_u64(j, "id", index);
	attr(j, "package", s->suite && *s->suite ? s->suite : "memguard");

	start(j, "properties");
	property(j, "arch", s->arch);
	property(j, "driver", s->driver);
	property(j, "command", s->command);
	if (s->approximate)
		property(j, "approximate", s->approximate);
	property(j, "shard", label);
	property_u64(j, "node", s->node);
	property_u64(j, "peak_va", s->peak_va);
	property_u64(j, "peak_rss", s->peak_rss);
	property_u64(j, "recycles", s->recycles);
	property_u64(j, "kills", s->kills);
	property_u64(j, "generations", s->ngens);
	end(j);
	for (size_t i = 0; i < s->ntests; i++)
		if (!pytest_merged(j, s, i))
			testcase(j, s, &s->tests[i]);
	suite_out(j, s);
	start(j, "system-err");
	end(j);
	end(j);
}

int junit_write(const report *r, FILE *f, mg_err *err)
{
	return junit_write_detail(r, f, ADAPTERS_INFORMATIVE, err);
}

int junit_write_detail(const report *r, FILE *f, adapters_detail d, mg_err *err)
{
	int loaded = xml_load(err);
	if (loaded < 0)
		return loaded;
	xmlOutputBufferPtr out = xl.xmlOutputBufferCreateFile(f, NULL);
	if (!out)
		return mg_err_set(err, MG_ERROR, "junit: cannot create the XML output");
	junit_w j = {.w = xl.xmlNewTextWriter(out), .failed = 0, .detail = d};
	if (!j.w) {
		xl.xmlOutputBufferClose(out);
		return mg_err_set(err, MG_ERROR, "junit: cannot create the XML writer");
	}
	xl.xmlTextWriterSetIndent(j.w, 1);
	xl.xmlTextWriterSetIndentString(j.w, X("  "));

	char timestamp[32];
	if (report_format_time(timestamp, sizeof(timestamp), r->start_time, "%Y-%m-%dT%H:%M:%S") <
	    0)
		snprintf(timestamp, sizeof(timestamp), "1970-01-01T00:00:00");

	j.failed |= xl.xmlTextWriterStartDocument(j.w, "1.0", "UTF-8", NULL) < 0;
	/* No attributes: the windyroad schema allows none on <testsuites>
	 * (junit-10.xsd no skipped); readers add the suites up. */
	torn_collect(&j, r);
	start(&j, "testsuites");
	for (size_t i = 0; i < r->nshards; i++)
		testsuite(&j, r, i, timestamp);
	end(&j);
	free(j.torn);
	j.failed |= xl.xmlTextWriterEndDocument(j.w) < 0;
	xl.xmlFreeTextWriter(j.w); /* flushes and frees out; f stays open */
	if (j.failed || ferror(f))
		return mg_err_set(err, MG_ERROR, "junit: writing the XML failed");
	return 0;
}

/* One test of the run in the framework's shape (junit_framework_write). */
typedef struct fw_test {
	const report_shard *s;
	const report_test *t;
	char *classname, *name;
	size_t idx, first; /* its place in the run; its suite's first test's */
} fw_test;

static int fw_by_class(const void *a, const void *b)
{
	const fw_test *x = a, *y = b;
	int c = strcmp(x->classname, y->classname);
	return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

static int fw_by_first(const void *a, const void *b)
{
	const fw_test *x = a, *y = b;
	if (x->first != y->first)
		return (x->first > y->first) - (x->first < y->first);
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* GoogleTest's disabled test (status notrun, result suppressed). */
static int fw_disabled(const fw_test *f)
{
	return f->t->state == TEST_SKIP &&
	       (!strncmp(f->name, "DISABLED_", 9) || !strncmp(f->classname, "DISABLED_", 9));
}

/* A test GoogleTest itself counts passed that memguard reports skip (its
 * global environment's set-up skipped it): completed in its shape. */
static int fw_env_skipped(const fw_test *f)
{
	return f->t->state == TEST_SKIP && f->t->message &&
	       !strcmp(f->t->message, REPORT_ENV_SKIPPED);
}

/* outcome() in the framework's shape: NULL for that test too. */
static const char *fw_outcome(const fw_test *f)
{
	return fw_env_skipped(f) ? NULL : outcome(f->s, f->t);
}

/* GoogleTest's result of a test (what: fw_outcome's, disabled: fw_disabled's),
 * as its XML writes it ("completed") or, upper, its JSON ("COMPLETED"). */
static const char *fw_result(const fw_test *f, const char *what, int disabled, int upper)
{
	static const char *const results[2][3] = {{"completed", "skipped", "suppressed"},
	                                          {"COMPLETED", "SKIPPED", "SUPPRESSED"}};
	int k = disabled || (what && f->t->state == TEST_NOTRUN) ? 2
	        : what && f->t->state == TEST_SKIP               ? 1
	                                                         : 0;
	return results[upper != 0][k];
}

static int fw_catch2(junit_framework fw)
{
	return fw == JUNIT_CATCH2 || fw == JUNIT_CATCH2_V3;
}

/* A test the framework's own file leaves out: one its fail-fast kept from
 * running (ctest's --stop-on-failure, Catch2's -a/-x; GoogleTest's file has
 * them, skipped). */
static int fw_left_out(junit_framework fw, const report_test *t)
{
	const char *why = fw == JUNIT_CTEST ? REPORT_FAIL_FAST_CTEST
	                  : fw_catch2(fw)   ? REPORT_FAIL_FAST_CATCH2
	                                    : NULL;
	return why && t->state == TEST_SKIP && t->message && !strncmp(t->message, why, strlen(why));
}

static void fw_testcase(junit_w *j, junit_framework fw, const fw_test *f, const char *timestamp)
{
	const report_test *t = f->t;
	const char *what = fw_outcome(f);
	start(j, "testcase");
	if (fw_catch2(fw)) {
		attr(j, "classname", f->classname);
		attr(j, "name", f->name);
		attr_time(j, "time", t->duration);
		attr(j, "status", "run");
	} else {
		int disabled = fw_disabled(f);
		attr(j, "name", f->name);
		attr(j, "status", disabled ? "notrun" : "run");
		attr(j, "result", fw_result(f, what, disabled, 0));
		attr_time(j, "time", t->duration);
		attr(j, "timestamp", timestamp);
		attr(j, "classname", f->classname);
		if (disabled)
			what = NULL;
	}
	if (what) {
		const char *msg = t->message ? t->message : "";
		if (t->state == TEST_NOTRUN)
			msg = "not run: the run was interrupted";
		start(j, what);
		attr(j, "message", msg);
		if (strcmp(what, "skipped") != 0)
			attr(j, "type", error_type(t->state) ? error_type(t->state) : "");
		text(j, msg);
		end(j);
	}
	end(j);
}

/* The counts of tests [from, to) of v: tests, failures, errors, disabled, skipped. */
static void fw_counts(const fw_test *v, size_t from, size_t to, uint64_t c[5])
{
	memset(c, 0, 5 * sizeof(uint64_t));
	for (size_t i = from; i < to; i++) {
		const char *what = fw_outcome(&v[i]);
		c[0]++;
		if (fw_disabled(&v[i]))
			c[3]++;
		else if (what && !strcmp(what, "failure"))
			c[1]++;
		else if (what && !strcmp(what, "error"))
			c[2]++;
		else if (what)
			c[4]++;
	}
}

static double fw_time(const fw_test *v, size_t from, size_t to)
{
	double sum = 0;
	for (size_t i = from; i < to; i++)
		sum += isfinite(v[i].t->duration) ? v[i].t->duration : 0;
	return sum;
}

/* Every test of r in the framework's shape, each suite in the order its
 * first test appears, its tests in theirs; *np of them (fw_free). NULL
 * out of memory. */
static fw_test *fw_collect(const report *r, junit_framework fw, const char *prog, size_t *np)
{
	size_t n = 0, k = 0;
	for (size_t i = 0; i < r->nshards; i++)
		for (size_t t = 0; t < r->shards[i].ntests; t++)
			n += !fw_left_out(fw, &r->shards[i].tests[t]);
	fw_test *v = calloc(n ? n : 1, sizeof(*v));
	*np = n;
	if (!v)
		return NULL;
	for (size_t i = 0; i < r->nshards; i++)
		for (size_t t = 0; t < r->shards[i].ntests; t++) {
			if (fw_left_out(fw, &r->shards[i].tests[t]))
				continue;
			fw_test *e = &v[k];
			e->s = &r->shards[i];
			e->t = &r->shards[i].tests[t];
			e->idx = k++;
			if (fw_catch2(fw)) {
				size_t len = strlen(prog) + sizeof(".global");
				e->classname = mg_xrealloc(NULL, len);
				snprintf(e->classname, len, "%s.global", prog);
				e->name = catch2_name(e->t->name ? e->t->name : "");
			} else {
				split_name(e->s, e->t->name ? e->t->name : "", &e->classname,
				           &e->name);
			}
		}
	qsort(v, n, sizeof(*v), fw_by_class);
	for (size_t i = 0; i < n; i++)
		v[i].first =
		    i && !strcmp(v[i].classname, v[i - 1].classname) ? v[i - 1].first : v[i].idx;
	qsort(v, n, sizeof(*v), fw_by_first);
	return v;
}

static void fw_free(fw_test *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].classname);
		free(v[i].name);
	}
	free(v);
}

/* GoogleTest's shuffle seed of the run (its XML's and JSON's random_seed,
 * written when it shuffled): the report's "--gtest_random_seed=N"; 0: none. */
static unsigned long fw_gtest_seed(const report *r)
{
	static const char opt[] = "--gtest_random_seed=";
	if (!r->seed || strncmp(r->seed, opt, sizeof(opt) - 1))
		return 0;
	return strtoul(r->seed + sizeof(opt) - 1, NULL, 10);
}

/*
 * ctest --output-junit's shape (CMake's cmCTestTestHandler, 3.25): one
 * <testsuite> root named prog (ctest's BuildName, "(empty)" without one),
 * its tests, failures, disabled and skipped, hostname ""; each testcase
 * named and classed by the test's whole name, its status run, fail,
 * notrun (a skip, or ctest's Not Run: a missing REQUIRED_FILES file) or
 * disabled, a <failure> or <skipped> with memguard's message, and its
 * output in <system-out>.
 */
static const char *ct_status(const report_test *t)
{
	const char *m = t->message ? t->message : "";
	if (t->state == TEST_PASS)
		return "run";
	if (t->state == TEST_SKIP)
		return !strncmp(m, "disabled (CTest property DISABLED)", 34) ? "disabled"
		                                                             : "notrun";
	if (t->state == TEST_FAIL && !strncmp(m, "not run: ", 9))
		return "notrun";
	return "fail";
}

static void ctest_write(const report *r, junit_w *j, const char *prog, const char *timestamp)
{
	uint64_t n = 0, failures = 0, disabled = 0, skipped = 0;
	for (size_t i = 0; i < r->nshards; i++)
		for (size_t t = 0; t < r->shards[i].ntests; t++) {
			if (fw_left_out(JUNIT_CTEST, &r->shards[i].tests[t]))
				continue;
			const char *st = ct_status(&r->shards[i].tests[t]);
			n++;
			failures += !strcmp(st, "fail");
			disabled += !strcmp(st, "disabled");
			skipped += !strcmp(st, "notrun");
		}
	start(j, "testsuite");
	attr(j, "name", prog);
	attr_u64(j, "tests", n);
	attr_u64(j, "failures", failures);
	attr_u64(j, "disabled", disabled);
	attr_u64(j, "skipped", skipped);
	attr(j, "hostname", "");
	attr_time(j, "time", r->wall);
	attr(j, "timestamp", timestamp);
	for (size_t i = 0; i < r->nshards; i++)
		for (size_t k = 0; k < r->shards[i].ntests; k++) {
			const report_test *t = &r->shards[i].tests[k];
			if (fw_left_out(JUNIT_CTEST, t))
				continue;
			const char *st = ct_status(t);
			start(j, "testcase");
			attr(j, "name", t->name ? t->name : "");
			attr(j, "classname", t->name ? t->name : "");
			attr_time(j, "time", t->duration);
			attr(j, "status", st);
			if (!strcmp(st, "fail") || !strcmp(st, "notrun")) {
				start(j, strcmp(st, "fail") ? "skipped" : "failure");
				attr(j, "message", t->message ? t->message : "");
				end(j);
			}
			start(j, "system-out");
			if (t->output)
				output_text(j, t);
			end(j);
			end(j);
		}
	end(j);
}

int junit_framework_write(const report *r, FILE *f, junit_framework fw, const char *prog,
                          mg_err *err)
{
	int loaded = xml_load(err);
	if (loaded < 0)
		return loaded;
	size_t n;
	fw_test *v = fw_collect(r, fw, prog, &n);
	if (!v)
		return mg_err_set(err, MG_ERROR, "junit: out of memory");
	int rc = 0;
	xmlOutputBufferPtr out = xl.xmlOutputBufferCreateFile(f, NULL);
	junit_w j = {.w = out ? xl.xmlNewTextWriter(out) : NULL, .failed = 0};
	if (!j.w) {
		if (out)
			xl.xmlOutputBufferClose(out);
		rc = mg_err_set(err, MG_ERROR, "junit: cannot create the XML writer");
		goto done;
	}
	xl.xmlTextWriterSetIndent(j.w, 1);
	xl.xmlTextWriterSetIndentString(j.w, X("  "));
	/* UTC, as Catch2's own (its getCurrentTimestamp: gmtime, a Z) */
	char timestamp[32];
	if (report_format_time(timestamp, sizeof(timestamp), r->start_time,
	                       fw_catch2(fw) ? "%Y-%m-%dT%H:%M:%SZ" : "%Y-%m-%dT%H:%M:%S") < 0)
		snprintf(timestamp, sizeof(timestamp), "%s",
		         fw_catch2(fw) ? "1970-01-01T00:00:00Z" : "1970-01-01T00:00:00");
	uint64_t c[5];
	j.failed |= xl.xmlTextWriterStartDocument(j.w, "1.0", "UTF-8", NULL) < 0;
	if (fw == JUNIT_CTEST) {
		ctest_write(r, &j, prog, timestamp);
		goto written;
	}
	start(&j, "testsuites");
	if (fw == JUNIT_GTEST) {
		fw_counts(v, 0, n, c);
		attr_u64(&j, "tests", c[0]);
		attr_u64(&j, "failures", c[1]);
		attr_u64(&j, "disabled", c[3]);
		attr_u64(&j, "errors", c[2]);
		attr_time(&j, "time", r->wall);
		attr(&j, "timestamp", timestamp);
		if (fw_gtest_seed(r))
			attr_u64(&j, "random_seed", fw_gtest_seed(r));
		attr(&j, "name", "AllTests");
	}
	for (size_t i = 0; i < n;) {
		size_t e = i + 1;
		while (e < n && v[e].first == v[i].first)
			e++;
		fw_counts(v, i, e, c);
		start(&j, "testsuite");
		if (fw_catch2(fw)) {
			attr(&j, "name", prog);
			attr_u64(&j, "errors", c[2]);
			attr_u64(&j, "failures", c[1]);
			if (fw == JUNIT_CATCH2_V3)
				attr_u64(&j, "skipped", c[4]);
			attr_u64(&j, "tests", c[0]);
			attr(&j, "hostname", "tbd");
			attr_time(&j, "time", fw_time(v, i, e));
			attr(&j, "timestamp", timestamp);
		} else {
			attr(&j, "name", v[i].classname);
			attr_u64(&j, "tests", c[0]);
			attr_u64(&j, "failures", c[1]);
			attr_u64(&j, "disabled", c[3]);
			attr_u64(&j, "skipped", c[4]);
			attr_u64(&j, "errors", c[2]);
			attr_time(&j, "time", fw_time(v, i, e));
			attr(&j, "timestamp", timestamp);
		}
		for (size_t t = i; t < e; t++)
			fw_testcase(&j, fw, &v[t], timestamp);
		if (fw_catch2(fw)) {
			start(&j, "system-out");
			end(&j);
			start(&j, "system-err");
			end(&j);
		}
		end(&j);
		i = e;
	}
	end(&j);
written:
	j.failed |= xl.xmlTextWriterEndDocument(j.w) < 0;
	xl.xmlFreeTextWriter(j.w);
	if (j.failed || ferror(f))
		rc = mg_err_set(err, MG_ERROR, "junit: writing the XML failed");
done:
	fw_free(v, n);
	return rc;
}

/* GoogleTest's "0.001s". */
static json_t *gt_seconds(double seconds)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%.3fs", isfinite(seconds) && seconds > 0 ? seconds : 0.0);
	return json_string(buf);
}

/* Any bytes, as valid UTF-8 text (NULL: ""). */
static json_t *gt_text(const char *s)
{
	char *clean = adapters_clean(s ? s : "", 0, ADAPTERS_XML, NULL);
	json_t *j = json_string(clean);
	free(clean);
	return j;
}

static void gt_counts(json_t *o, const fw_test *v, size_t from, size_t to)
{
	uint64_t c[5];
	fw_counts(v, from, to, c);
	json_object_set_new(o, "tests", json_integer((json_int_t)c[0]));
	json_object_set_new(o, "failures", json_integer((json_int_t)c[1]));
	json_object_set_new(o, "disabled", json_integer((json_int_t)c[3]));
	json_object_set_new(o, "errors", json_integer((json_int_t)c[2]));
}

static json_t *gt_testcase(const fw_test *f, const char *timestamp)
{
	const report_test *t = f->t;
	int disabled = fw_disabled(f);
	const char *what = fw_outcome(f);
	const char *result = fw_result(f, what, disabled, 1);
	json_t *o = json_object();
	json_object_set_new(o, "name", gt_text(f->name));
	json_object_set_new(o, "status", json_string(disabled ? "NOTRUN" : "RUN"));
	json_object_set_new(o, "result", json_string(result));
	json_object_set_new(o, "timestamp", json_string(timestamp));
	json_object_set_new(o, "time", gt_seconds(t->duration));
	json_object_set_new(o, "classname", gt_text(f->classname));
	if (!disabled && what && strcmp(what, "skipped") != 0) {
		json_t *fail = json_object(), *list = json_array();
		json_object_set_new(fail, "failure", gt_text(t->message));
		json_object_set_new(fail, "type",
		                    json_string(error_type(t->state) ? error_type(t->state) : ""));
		json_array_append_new(list, fail);
		json_object_set_new(o, "failures", list);
	}
	return o;
}

int junit_framework_json_write(const report *r, FILE *f, const char *prog, mg_err *err)
{
	size_t n;
	fw_test *v = fw_collect(r, JUNIT_GTEST, prog, &n);
	if (!v)
		return mg_err_set(err, MG_ERROR, "json: out of memory");
	char timestamp[32];
	if (report_format_time(timestamp, sizeof(timestamp), r->start_time, "%Y-%m-%dT%H:%M:%SZ") <
	    0)
		snprintf(timestamp, sizeof(timestamp), "1970-01-01T00:00:00Z");
	json_t *root = json_object(), *suites = json_array();
	gt_counts(root, v, 0, n);
	if (fw_gtest_seed(r)) /* before the timestamp in GoogleTest's JSON, after it in its XML */
		json_object_set_new(root, "random_seed",
		                    json_integer((json_int_t)fw_gtest_seed(r)));
	json_object_set_new(root, "timestamp", json_string(timestamp));
	json_object_set_new(root, "time", gt_seconds(r->wall));
	json_object_set_new(root, "name", json_string("AllTests"));
	for (size_t i = 0; i < n;) {
		size_t e = i + 1;
		while (e < n && v[e].first == v[i].first)
			e++;
		json_t *suite = json_object(), *tests = json_array();
		json_object_set_new(suite, "name", gt_text(v[i].classname));
		gt_counts(suite, v, i, e);
		json_object_set_new(suite, "timestamp", json_string(timestamp));
		json_object_set_new(suite, "time", gt_seconds(fw_time(v, i, e)));
		for (size_t t = i; t < e; t++)
			json_array_append_new(tests, gt_testcase(&v[t], timestamp));
		json_object_set_new(suite, "testsuite", tests);
		json_array_append_new(suites, suite);
		i = e;
	}
	json_object_set_new(root, "testsuites", suites);
	int bad = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) < 0 ||
	          fputc('\n', f) == EOF || ferror(f);
	json_decref(root);
	fw_free(v, n);
	return bad ? mg_err_set(err, MG_ERROR, "json: writing failed") : 0;
}

int junit_framework_render(const report *r, const char *path, junit_framework fw, const char *prog,
                           mg_err *err)
{
	adapters_out o;
	int rc = adapters_out_open(&o, path, err);
	if (rc)
		return rc;
	rc = fw == JUNIT_GTEST_JSON ? junit_framework_json_write(r, o.f, prog, err)
	                            : junit_framework_write(r, o.f, fw, prog, err);
	int crc = adapters_out_close(&o, rc == 0, err);
	return rc ? rc : crc;
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

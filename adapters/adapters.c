/*
 * adapters.c - the adapter registry: spec parsing, dispatch, "auto" by the
 * CI's environment, and the output every adapter writes through (stdout, or
 * a file by atomic.c).
 * Never renders anything itself.
 */
#include "adapters.h"

#include "atomic.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef int (*render_fn)(const report *r, const char *path, mg_err *err);
typedef int (*detail_fn)(const report *r, const char *path, adapters_detail d, mg_err *err);

typedef struct adapter {
	const char *name;
	render_fn render;
	detail_fn render_detail; /* NULL: the adapter takes no :DETAIL */
	int properties;          /* takes :properties (testcase properties) */
	const char *what;        /* help: what it writes, where without =PATH */
} adapter;

static int auto_render(const report *r, const char *path, mg_err *err);

static const adapter adapters[] = {
    {"console", console_render, NULL, 0,
     "the per-shard table and the tests that did not pass; default:\n"
     "stdout"},
    {"junit", junit_render, junit_render_detail, 1,
     "JUnit XML (Jenkins, GitLab, Azure, CircleCI); default:\n"
     "memguard-junit.xml"},
    {"github", github_render, NULL, 0,
     "the job summary (default: $GITHUB_STEP_SUMMARY, else stdout),\n"
     "::warning and ::error annotations for recycles and kills, step\n"
     "outputs in $GITHUB_OUTPUT"},
    {"gitlab", gitlab_render, NULL, 0,
     "a folder with metrics.txt (OpenMetrics) and junit.xml; default:\n"
     "memguard-gitlab/"},
    {"azure", azure_render, NULL, 0,
     "summary Markdown (default: memguard-summary-node-N.md in\n"
     "$AGENT_TEMPDIRECTORY, else in ./), ##vso[] issues, the summary\n"
     "upload and output variables"},
    {"teamcity", teamcity_render, teamcity_render_detail, 0,
     "##teamcity[] service messages (tests, build statistics) on\n"
     "stdout"},
    {"buildkite", buildkite_render, NULL, 0,
     "an annotation through buildkite-agent when it is on PATH, else\n"
     "Markdown on stdout; =PATH writes the Markdown there"},
    {"html", html_render, NULL, 0,
     "one self-contained page of the run (no script); default:\n"
     "memguard-report.html"},
    {"auto", auto_render, NULL, 0,
     "the CI's own, from its environment: github (and junit), gitlab,\n"
     "azure, teamcity, buildkite, junit (Jenkins, CircleCI), else\n"
     "console; =PATH is ignored"},
};

/* Indexed by adapters_detail. */
static const char *const detail_names[] = {"informative", "all", "none", "properties"};
#define NDETAILS (sizeof(detail_names) / sizeof(detail_names[0]))

#define NADAPTERS (sizeof(adapters) / sizeof(adapters[0]))

static const char *const names[] = {
    "console", "junit", "github", "gitlab", "azure", "teamcity", "buildkite", "html", "auto", NULL,
};

const char *const *adapters_names(void)
{
	return names;
}

void adapters_usage(FILE *f)
{
	fputs("adapters (NAME[:DETAIL][=PATH]; PATH - is stdout, but for gitlab's folder):\n", f);
	for (size_t i = 0; i < NADAPTERS; i++) {
		const char *w = adapters[i].what;
		fprintf(f, "  %-11s", adapters[i].name);
		for (const char *nl; (nl = strchr(w, '\n')) != NULL; w = nl + 1)
			fprintf(f, "%.*s\n%13s", (int)(nl - w), w, "");
		fprintf(f, "%s\n", w);
	}
	fputs("details (junit and teamcity): which tests get their memory written\n", f);
	fputs("  informative  (default) a test that failed, was retried or left 1 MiB or\n"
	      "               more behind\n"
	      "  all          every test\n"
	      "  none         no test (the suites' figures only)\n"
	      "  properties   junit only: every test's memory as testcase <properties>\n"
	      "               (Jenkins keepProperties; not valid under junit-10.xsd)\n",
	      f);
}

/* NAME[:DETAIL][=PATH]: the adapter, its path (NULL: none) and its detail
 * (NULL: none given; else not NUL-terminated, *detail_len bytes). */
static const adapter *find_detail(const char *spec, const char **path, const char **detail,
                                  size_t *detail_len)
{
	const char *eq = strchr(spec, '=');
	size_t len = eq ? (size_t)(eq - spec) : strlen(spec);
	const char *colon = memchr(spec, ':', len);
	*path = eq ? eq + 1 : NULL;
	*detail = colon ? colon + 1 : NULL;
	*detail_len = colon ? len - (size_t)(colon + 1 - spec) : 0;
	if (colon)
		len = (size_t)(colon - spec);
	for (size_t i = 0; i < sizeof(adapters) / sizeof(adapters[0]); i++)
		if (strlen(adapters[i].name) == len && memcmp(adapters[i].name, spec, len) == 0)
			return &adapters[i];
	return NULL;
}

/* The detail named by (s, len); -1 for none of them. */
static int detail_parse(const char *s, size_t len)
{
	for (int i = 0; i < (int)NDETAILS; i++)
		if (strlen(detail_names[i]) == len && memcmp(detail_names[i], s, len) == 0)
			return i;
	return -1;
}

int adapters_check_path(const char *spec, mg_err *err)
{
	const char *path, *detail;
	size_t dlen;
	const adapter *a = find_detail(spec, &path, &detail, &dlen);
	if (!a || !path || !*path || !strcmp(a->name, "auto") || !strcmp(path, "-")) /* stdout */
		return 0;
	if (a->render == gitlab_render) /* a folder it makes, one level */
		return atomic_check_parent(path, err);
	return atomic_check_file(path, err);
}

int adapters_check(const char *spec, mg_err *err)
{
	const char *path, *detail;
	size_t dlen;
	const adapter *a;
	if (!spec || !*spec)
		return mg_err_set(err, MG_EINVAL, "adapter: empty name");
	if ((a = find_detail(spec, &path, &detail, &dlen)) != NULL) {
		if (detail && !a->render_detail)
			return mg_err_set(
			    err, MG_EINVAL,
			    "adapter '%s' takes no detail (only junit and teamcity do)", a->name);
		int d = detail ? detail_parse(detail, dlen) : ADAPTERS_INFORMATIVE;
		if (d < 0 || (d == ADAPTERS_PROPERTIES && !a->properties))
			return mg_err_set(
			    err, MG_EINVAL,
			    "adapter '%s': unknown detail '%.*s' (known: informative, "
			    "all, none%s)",
			    a->name, dlen > 64 ? 64 : (int)dlen, detail,
			    a->properties ? ", properties" : "");
		if (path && !*path)
			return mg_err_set(err, MG_EINVAL, "adapter '%s': empty path", spec);
		if (path && !strcmp(path, "-") && a->render == gitlab_render)
			return mg_err_set(
			    err, MG_EINVAL,
			    "adapter 'gitlab' writes a folder (metrics.txt, junit.xml): "
			    "'-' (stdout) is none; give the folder's path");
		return 0;
	}
	char known[256] = "";
	for (size_t i = 0; names[i]; i++) {
		strncat(known, i ? ", " : "", sizeof(known) - strlen(known) - 1);
		strncat(known, names[i], sizeof(known) - strlen(known) - 1);
	}
	const char *eq = strchr(spec, '=');
	int len = eq ? (int)(eq - spec) : (int)strlen(spec);
	const char *colon = memchr(spec, ':', (size_t)len);
	if (colon)
		len = (int)(colon - spec);
	return mg_err_set(err, MG_EINVAL, "unknown adapter '%.*s' (known: %s)", len > 64 ? 64 : len,
	                  spec, known);
}

int adapters_render(const report *r, const char *spec, mg_err *err)
{
	int rc = adapters_check(spec, err);
	if (rc)
		return rc;
	const char *path, *detail;
	size_t dlen;
	const adapter *a = find_detail(spec, &path, &detail, &dlen);
	if (detail)
		return a->render_detail(r, path, (adapters_detail)detail_parse(detail, dlen), err);
	return a->render(r, path, err);
}

int adapters_test_informative(const report_test *t)
{
	return report_state_failed(t->state) || t->attempts > 1 ||
	       t->va_delta >= ADAPTERS_INFORMATIVE_BYTES ||
	       t->rss_delta >= ADAPTERS_INFORMATIVE_BYTES;
}

int adapters_test_detailed(const report_test *t, adapters_detail d)
{
	return d == ADAPTERS_ALL || d == ADAPTERS_PROPERTIES ||
	       (d == ADAPTERS_INFORMATIVE && adapters_test_informative(t));
}

/* ---- auto ------------------------------------------------------------------ */

static int env_set(const char *name)
{
	const char *v = getenv(name);
	return v && *v;
}

/* GitHub gets the JUnit file too (for test-report actions); Jenkins and
 * CircleCI read JUnit only. Everything else has its own adapter. */
size_t adapters_auto(const char **out, size_t cap)
{
	const char *picked[2];
	size_t n = 0;
	if (env_set("GITHUB_ACTIONS")) {
		picked[n++] = "github";
		picked[n++] = "junit";
	} else if (env_set("GITLAB_CI")) {
		picked[n++] = "gitlab";
	} else if (env_set("TF_BUILD")) {
		picked[n++] = "azure";
	} else if (env_set("TEAMCITY_VERSION")) {
		picked[n++] = "teamcity";
	} else if (env_set("BUILDKITE")) {
		picked[n++] = "buildkite";
	} else if (env_set("JENKINS_URL") || env_set("CIRCLECI")) {
		picked[n++] = "junit";
	} else {
		picked[n++] = "console";
	}
	for (size_t i = 0; i < n && i < cap; i++)
		out[i] = picked[i];
	return n;
}

int adapters_console_on_stdout(const char *spec)
{
	if (!strcmp(spec, "console") || !strcmp(spec, "console=-"))
		return 1;
	if (strcmp(spec, "auto") != 0 && strncmp(spec, "auto=", 5) != 0)
		return 0;
	const char *picked[8] = {NULL};
	size_t n = adapters_auto(picked, 8);
	for (size_t i = 0; i < n && i < 8; i++)
		if (!strcmp(picked[i], "console"))
			return 1;
	return 0;
}

/* auto ignores a path: every picked adapter uses its own default target. */
static int auto_render(const report *r, const char *path, mg_err *err)
{
	const char *picked[8];
	size_t n = adapters_auto(picked, 8);
	(void)path;
	for (size_t i = 0; i < n && i < 8; i++) {
		int rc = adapters_render(r, picked[i], err);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- output ---------------------------------------------------------------- */

int adapters_out_open(adapters_out *o, const char *path, mg_err *err)
{
	o->f = NULL;
	o->file = NULL;
	if (!path || strcmp(path, "-") == 0) {
		o->f = stdout;
		return 0;
	}
	int rc = atomic_open(&o->file, path, err);
	if (rc < 0)
		return rc;
	o->f = atomic_stream(o->file);
	return 0;
}

int adapters_out_close(adapters_out *o, int ok, mg_err *err)
{
	int rc = 0;
	if (!o->f)
		return 0;
	if (!o->file) { /* stdout: flushed, never closed */
		if (fflush(o->f) != 0 || ferror(o->f))
			rc = mg_err_set(err, MG_ERROR, "stdout: %s", strerror(errno));
		o->f = NULL;
		return ok ? rc : (rc ? rc : MG_ERROR);
	}
	rc = atomic_close(o->file, ok, err);
	o->file = NULL;
	o->f = NULL;
	return rc;
}

void adapters_put_escaped(FILE *f, const char *s, const char *chars, const char *const *with)
{
	char *clean = adapters_clean(s ? s : "", 4096, 0, NULL);
	for (const char *p = clean; *p; p++) {
		const char *hit = strchr(chars, *p);
		if (hit)
			fputs(with[hit - chars], f);
		else
			fputc(*p, f);
	}
	free(clean);
}

void adapters_put_printable(FILE *f, const char *s, size_t max)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len = strlen(s), i = 0;
	while (i < len && i < max) {
		size_t n = report_utf8_valid_len(u + i, len - i);
		if (n == 0) {
			fputs("\xEF\xBF\xBD", f);
			n = 1;
		} else if (u[i] < 0x20 || u[i] == 0x7f) {
			fprintf(f, "\\x%02x", u[i]);
		} else {
			fwrite(u + i, 1, n, f);
		}
		i += n;
	}
	if (i < len)
		fputs("...", f);
}

/* ---- helpers shared by the adapters --------------------------------------- */

/* s cleaned with flags (at most max bytes) and escaped for HTML. */
static void put_html(FILE *f, const char *s, size_t max, unsigned flags)
{
	static const char chars[] = "&<>\"'";
	static const char *const with[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&#39;"};
	if (!s)
		return;
	char *c = adapters_clean(s, max, flags, NULL);
	for (const char *p = c; *p; p++) {
		const char *hit = strchr(chars, *p);
		if (hit)
			fputs(with[hit - chars], f);
		else
			fputc(*p, f);
	}
	free(c);
}

void adapters_put_html(FILE *f, const char *s, size_t max)
{
	put_html(f, s, max, ADAPTERS_ONELINE | ADAPTERS_XML);
}

void adapters_put_html_lines(FILE *f, const char *s, size_t max)
{
	put_html(f, s, max, ADAPTERS_XML);
}

char *adapters_clean(const char *s, size_t max, unsigned flags, int *truncated)
{
	return adapters_clean_n(s, strlen(s), max, flags, truncated);
}

char *adapters_clean_n(const char *s, size_t len, size_t max, unsigned flags, int *truncated)
{
	int cut = max && len > max;
	if (cut)
		len = max;
	/* worst case: a control byte becomes 4 bytes (\xNN) */
	char *d = malloc(len * 4 + 4);
	if (!d)
		abort();
	size_t o = 0;
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < len;) {
		unsigned char c = u[i];
		size_t n = report_utf8_valid_len(u + i, len - i);
		if (n == 0) {
			memcpy(d + o, "\xEF\xBF\xBD", 3);
			o += 3;
			i++;
			continue;
		}
		if (c == '\t' || c == '\n' || c == '\r') {
			d[o++] = (flags & ADAPTERS_ONELINE) ? ' ' : (char)c;
		} else if (c < 0x20 || c == 0x7f) {
			o += (size_t)sprintf(d + o, "\\x%02x", c);
		} else if ((flags & ADAPTERS_XML) && n == 3 && c == 0xEF && u[i + 1] == 0xBF &&
		           (u[i + 2] == 0xBE || u[i + 2] == 0xBF)) {
			memcpy(d + o, "\xEF\xBF\xBD", 3);
			o += 3;
		} else {
			memcpy(d + o, u + i, n);
			o += n;
		}
		i += n;
	}
	if (cut) {
		memcpy(d + o, "...", 3);
		o += 3;
	}
	d[o] = '\0';
	if (truncated)
		*truncated = cut;
	return d;
}

void adapters_shard_label(const report *r, const report_shard *s, char *buf, size_t size)
{
	int several = 0;
	for (size_t i = 1; i < r->nshards; i++)
		several |= r->shards[i].node != r->shards[0].node;
	if (several)
		snprintf(buf, size, "%u.%u", s->node, s->index);
	else
		snprintf(buf, size, "%u", s->index);
}

int adapters_ending_of(const report_generation *g, adapters_ending kind, const char **text)
{
	const char *says = NULL;
	int listed = 0;
	switch (kind) {
	case ADAPTERS_RECYCLE:
	case ADAPTERS_KILL:
		listed = g->end == (kind == ADAPTERS_KILL ? REPORT_END_KILL : REPORT_END_RECYCLE);
		says = g->reason;
		break;
	case ADAPTERS_WARNING:
		listed = g->warning != NULL;
		says = g->warning;
		break;
	default:
		break;
	}
	if (listed && text)
		*text = says;
	return listed;
}

const char *adapters_ending_verb(adapters_ending kind)
{
	return kind == ADAPTERS_KILL ? "killed" : kind == ADAPTERS_RECYCLE ? "recycled" : "warned";
}

static int same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

size_t adapters_approximate_next(const report *r, size_t i)
{
	for (; i < r->nshards; i++) {
		const report_shard *s = &r->shards[i];
		if (!s->approximate)
			continue;
		size_t k = 0;
		while (k < i && !(same_str(r->shards[k].approximate, s->approximate) &&
		                  same_str(r->shards[k].suite, s->suite)))
			k++;
		if (k == i)
			return i;
	}
	return r->nshards;
}

void adapters_approximate_lines(const report *r, FILE *f, const char *open, const char *close,
                                void (*put)(FILE *f, const char *s, size_t max))
{
	for (size_t i = 0; (i = adapters_approximate_next(r, i)) < r->nshards; i++) {
		const report_shard *s = &r->shards[i];
		fputs(open, f);
		put(f, s->suite ? s->suite : "", 200);
		fputs(": ", f);
		put(f, s->approximate, 200);
		fprintf(f, ": %s%s", ADAPTERS_APPROXIMATE, close);
	}
}

report_totals adapters_shard_totals(const report_shard *s)
{
	report_totals t = {0};
	report_totals_add(&t, s);
	return t;
}

int adapters_mkdir(const char *path, mg_err *err)
{
	if (mkdir(path, 0777) == 0 || errno == EEXIST)
		return 0;
	return mg_err_set(err, errno == ENOENT ? MG_ENOTFOUND : MG_ERROR, "%s: %s", path,
	                  strerror(errno));
}

int adapters_which(const char *name, char *buf, size_t size)
{
	const char *path = getenv("PATH");
	if (!path || !*path)
		return -1;
	while (*path) {
		size_t len = strcspn(path, ":");
		if (len > 0 &&
		    (size_t)snprintf(buf, size, "%.*s/%s", (int)len, path, name) < size &&
		    access(buf, X_OK) == 0)
			return 0;
		path += len;
		if (*path == ':')
			path++;
	}
	return -1;
}

void adapters_site_lines(FILE *f, const report_test_sites *ts, adapters_line_fn fn, void *ctx)
{
	adapters_site_lines_of(f, ts, REPORT_SITES_ALL, fn, ctx);
}

void adapters_site_lines_of(FILE *f, const report_test_sites *ts, report_sites_which which,
                            adapters_line_fn fn, void *ctx)
{
	const report_site *top[REPORT_SITES_SHOWN];
	size_t n = report_test_sites_top(ts, which, top, REPORT_SITES_SHOWN);
	size_t all = 0;
	for (size_t k = 0; ts && k < ts->nsites; k++)
		all += which == REPORT_SITES_ALL ||
		       (which == REPORT_SITES_HELD) == !!ts->sites[k].items;
	char line[512];
	for (size_t k = 0; k < n; k++) {
		report_format_site(line, sizeof(line), top[k], REPORT_SITE_FRAMES);
		fn(f, 0, line, ctx);
		report_format_pins(line, sizeof(line), top[k], 5);
		if (*line)
			fn(f, 1, line, ctx);
	}
	if (all > n) {
		snprintf(line, sizeof(line), "\u2026 and %zu more site%s", all - n,
		         all - n == 1 ? "" : "s");
		fn(f, 2, line, ctx);
	}
}

void adapters_html_site_item(FILE *f, int level, const char *text, void *ctx)
{
	adapters_html_list *list = ctx;
	if (level == 1) {
		fputs("<br>", f);
	} else {
		fputs(list->open ? "</li><li>" : "<li>", f);
		list->open = 1;
	}
	adapters_put_html(f, text, list->max);
}

/* "its blocks held since by: 1 item of Cache/2, 3 items of Cache/4 and 2
 * more tests": the later tests of shard s whose live items hold a block
 * test `name` allocated (their held sites that name it); "" when none. */
static void held_later(char *buf, size_t size, const report_shard *s, const char *name)
{
	size_t len = 0, n = 0;
	buf[0] = '\0';
	for (size_t k = 0; k < s->nsites; k++) {
		const report_test_sites *ts = &s->sites[k];
		uint64_t items = 0;
		for (size_t i = 0; i < ts->nsites; i++)
			if (ts->sites[i].items && ts->sites[i].in && !strcmp(ts->sites[i].in, name))
				items += ts->sites[i].items;
		if (!items || ts->test >= s->ntests)
			continue;
		if (n++ < 5) {
			int w = snprintf(buf + len, size - len, "%s%llu item%s of %s",
			                 n > 1 ? ", " : "its blocks held since by: ",
			                 (unsigned long long)items, items == 1 ? "" : "s",
			                 s->tests[ts->test].name ? s->tests[ts->test].name : "");
			len = w > 0 && (size_t)w < size - len ? len + (size_t)w : size - 1;
		}
	}
	if (n > 5)
		snprintf(buf + len, size - len, " and %zu more test%s", n - 5,
		         n - 5 == 1 ? "" : "s");
}

void adapters_suspect_site_lines(FILE *f, const report *r, const char *name, adapters_line_fn fn,
                                 void *ctx)
{
	const report_shard *s = NULL;
	const report_test_sites *ts = report_find_test_sites(r, name, &s);
	adapters_site_lines(f, ts, fn, ctx);
	char line[512];
	if (ts && s) {
		held_later(line, sizeof(line), s, name);
		if (*line)
			fn(f, 1, line, ctx);
	}
}

size_t adapters_generation_sites(const report_shard *s, const report_generation *g,
                                 report_sites_which which, const report_test_sites **out,
                                 uint64_t *bytes, size_t max)
{
	size_t n = 0;
	for (size_t k = 0; k < s->nsites && max; k++) {
		const report_test_sites *ts = &s->sites[k];
		if (ts->test >= s->ntests || s->tests[ts->test].generation != g->index)
			continue;
		uint64_t b = 0;
		for (size_t i = 0; i < ts->nsites; i++)
			if ((which == REPORT_SITES_HELD) == !!ts->sites[i].items)
				b = ts->sites[i].bytes > UINT64_MAX - b ? UINT64_MAX
				                                        : b + ts->sites[i].bytes;
		if (b == 0) /* none of which */
			continue;
		if (n == max && b <= bytes[n - 1])
			continue;
		size_t at = n < max ? n++ : n - 1;
		while (at > 0 && bytes[at - 1] < b) {
			out[at] = out[at - 1];
			bytes[at] = bytes[at - 1];
			at--;
		}
		out[at] = ts;
		bytes[at] = b;
	}
	return n;
}

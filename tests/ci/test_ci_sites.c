/*
 * test_ci_sites.c - memguard compare shows where a grown test allocated
 * (issue 25): the head's sites of each test in the table that grew in
 * retained VA, as text, Markdown and JSON, escaped and defused; a head
 * without sites prints nothing more.
 */
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ci.h"
#include "mg_test.h"
#include "report.h"

static char dir[64];
static char out[65536];

/* A report of one shard: Cache/3 left va_left, with sites when sites. */
static void save(const char *name, int64_t va_left, int sites, const char *evil)
{
	report *r = report_new();
	report_shard *s = report_add_shard(r);
	s->node = 1;
	s->suite = report_strdup("items");
	s->arch = report_strdup("x64");
	s->driver = report_strdup("gtest");
	report_test *t = report_shard_add_test(s);
	t->name = report_strdup("Cache/2");
	t = report_shard_add_test(s);
	t->name = report_strdup("Cache/3");
	t->va_delta = va_left;
	if (sites) {
		report_test_sites *ts = report_shard_add_test_sites(s, 1);
		report_site *site = report_test_sites_add(ts);
		site->kind = report_strdup("mmap");
		site->count = 2;
		site->bytes = 16u << 20;
		report_frame *f = report_site_add_frame(site);
		f->function = report_strdup("block_new");
		f->file = report_strdup("/src/storage.c");
		f->line = 49;
		f = report_site_add_frame(site);
		f->function = report_strdup("cache_put");
		f->file = report_strdup("cache.c");
		f->line = 115;
		f = report_site_add_frame(site); /* a third frame: not shown */
		f->function = report_strdup("main");
		report_site_add_pin(site, "item 17 (Cache/3)");
		site = report_test_sites_add(ts);
		site->kind = report_strdup("malloc");
		site->count = 1;
		site->bytes = 1u << 20;
		f = report_site_add_frame(site);
		f->function = report_strdup(evil);
	}
	report_finish(r, REPORT_MAX_SUSPECTS);
	char path[128];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	mg_err err;
	CU_ASSERT_FATAL(report_save(r, path, &err) == 0);
	report_free(r);
}

/* memguard CMD ARGS... (argv NULL-terminated, argv[0] CMD) in dir: its
 * exit code, stdout in out. */
static int ci(char **argv)
{
	char outp[128], cwd[4096];
	int argc = 0;
	while (argv[argc])
		argc++;
	snprintf(outp, sizeof(outp), "%s/out.txt", dir);
	if (!getcwd(cwd, sizeof(cwd)) || chdir(dir) != 0)
		abort();
	fflush(NULL);
	int fd = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0600), so = dup(1);
	if (fd < 0 || so < 0)
		abort();
	dup2(fd, 1);
	int rc = ci_main(argv[0], argc, argv);
	fflush(NULL);
	dup2(so, 1);
	close(so);
	close(fd);
	if (chdir(cwd) != 0)
		abort();
	FILE *f = fopen(outp, "r");
	size_t n = f ? fread(out, 1, sizeof(out) - 1, f) : 0;
	out[n] = '\0';
	if (f)
		fclose(f);
	if (getenv("MG_TEST_VERBOSE"))
		fputs(out, stderr);
	return rc;
}

/* memguard compare --format fmt base.json head.json */
static int compare(const char *fmt)
{
	char base[128], head[128];
	snprintf(base, sizeof(base), "%s/base.json", dir);
	snprintf(head, sizeof(head), "%s/head.json", dir);
	char *argv[] = {"compare", "--format", (char *)fmt, base, head, NULL};
	return ci(argv);
}

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/mg-ci-sites-XXXXXX");
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	unsetenv("TF_BUILD");
	unsetenv("TEAMCITY_VERSION");
	unsetenv("GITHUB_ACTIONS");
}

static void cleanup(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CU_ASSERT(system(cmd) == 0);
}

#define EVIL "x ##vso[task.complete]|<b>$a@b\n::error::y"

/* The grown test's sites under the table, in the form; a third
 * frame not shown; a function name with CI commands and markup shown as
 * text, its newline as a space. */
static void test_text(void)
{
	setup();
	save("base.json", 0, 0, NULL);
	save("head.json", 17 << 20, 1, EVIL);
	CU_ASSERT_EQUAL(compare("text"), 4); /* +17 MiB > 4 MiB a test: a regression */
	CU_ASSERT_PTR_NOT_NULL(strstr(
	    out, "Where they allocated (head; sites live at the test's end):\n"
	         "  +17.0 MiB in Cache/3: 2 \u00d7 8.00 MiB mmap at block_new (storage.c:49) "
	         "\u2190 cache_put (cache.c:115)\n"
	         "        pinned by: item 17 (Cache/3)\n"
	         "      1.00 MiB malloc at x ##vso[task.complete]|<b>$a@b ::error::y\n"));
	CU_ASSERT_PTR_NULL(strstr(out, "main"));
	/* under Azure, the function's command is broken */
	setenv("TF_BUILD", "True", 1);
	CU_ASSERT_EQUAL(compare("text"), 4);
	unsetenv("TF_BUILD");
	CU_ASSERT_PTR_NULL(strstr(out, "##vso["));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "malloc at x ##vso [task.complete]"));
	cleanup();
}

static void test_markdown(void)
{
	setup();
	save("base.json", 0, 0, NULL);
	save("head.json", 17 << 20, 1, EVIL);
	CU_ASSERT_EQUAL(compare("markdown"), 4);
	CU_ASSERT_PTR_NOT_NULL(strstr(
	    out, "|\n\nWhere they allocated (head; sites live at the test's end):\n\n"
	         "- +17.0 MiB in Cache/3: 2 \u00d7 8.00 MiB mmap at block\\_new "
	         "(storage.c:49) \u2190 cache\\_put (cache.c:115) \u2014 pinned by: item 17 "
	         "(Cache/3)\n"
	         "  - 1.00 MiB malloc at x ##vso\\[task.complete\\]\\|&lt;b&gt;<span>$</span>a"
	         "<span>@</span>b ::error::y\n\n"));
	cleanup();
}

static void test_json(void)
{
	setup();
	save("base.json", 0, 0, NULL);
	save("head.json", 17 << 20, 1, "make_cache");
	CU_ASSERT_EQUAL(compare("json"), 4);
	json_error_t jerr;
	json_t *o = json_loads(out, 0, &jerr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	/* one row has them: Cache/3's retained VA (its rise has none) */
	json_t *tests = json_object_get(o, "tests"), *sites = NULL;
	size_t with = 0;
	for (size_t i = 0; i < json_array_size(tests); i++) {
		json_t *row = json_array_get(tests, i), *s = json_object_get(row, "sites");
		if (!s)
			continue;
		with++;
		sites = s;
		CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(row, "name")), "Cache/3");
	}
	CU_ASSERT_EQUAL_FATAL(with, 1);
	CU_ASSERT_EQUAL(json_array_size(sites), 2);
	CU_ASSERT_STRING_EQUAL(
	    json_string_value(json_object_get(json_array_get(sites, 0), "site")),
	    "2 \u00d7 8.00 MiB mmap at block_new (storage.c:49) \u2190 cache_put (cache.c:115)");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_array_get(sites, 0), "pins")),
	                       "pinned by: item 17 (Cache/3)");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_array_get(sites, 1), "site")),
	                       "1.00 MiB malloc at make_cache");
	json_decref(o);
	cleanup();
}

/* A head without sites: no section, no "sites" in JSON. */
static void test_none(void)
{
	setup();
	save("base.json", 0, 0, NULL);
	save("head.json", 17 << 20, 0, NULL);
	CU_ASSERT_EQUAL(compare("text"), 4);
	CU_ASSERT_PTR_NULL(strstr(out, "Where they allocated"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "Cache/3"));
	CU_ASSERT_EQUAL(compare("json"), 4);
	CU_ASSERT_PTR_NULL(strstr(out, "\"sites\""));
	cleanup();
}

/* memguard show of a noted report lists a suspect's sites as the console
 * does: the note's tests are read one at a time and show keeps the sites of
 * those it keeps. */
static void test_show(void)
{
	setup();
	save("head.json", 17 << 20, 1, "make_cache");
	char cmd[256];
	snprintf(cmd, sizeof(cmd),
	         "cd '%s' && git init -q . && git -c user.name=t -c user.email=t@e commit -q "
	         "--allow-empty -m x",
	         dir);
	CU_ASSERT_FATAL(system(cmd) == 0);
	char *note[] = {"note", "head.json", NULL};
	CU_ASSERT_EQUAL_FATAL(ci(note), 0);
	char *show[] = {"show", NULL};
	CU_ASSERT_EQUAL(ci(show), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(
	    out, "   17.0 MiB  Cache/3  (grew in 1 of 1 runs)\n"
	         "             2 \u00d7 8.00 MiB mmap at block_new (storage.c:49) \u2190 cache_put "
	         "(cache.c:115)\n"
	         "               pinned by: item 17 (Cache/3)\n"
	         "             1.00 MiB malloc at make_cache\n"));
	cleanup();
}

/* memguard log --format html --test NAME shows the test's sites under its
 * row in each commit (the note's tests are read one at a time: the picked
 * test keeps its sites); markup in a function name is text. */
static void test_log_html(void)
{
	setup();
	save("head.json", 17 << 20, 1, "<b>make_cache</b>");
	char cmd[256];
	snprintf(cmd, sizeof(cmd),
	         "cd '%s' && git init -q . && git -c user.name=t -c user.email=t@e commit -q "
	         "--allow-empty -m x",
	         dir);
	CU_ASSERT_FATAL(system(cmd) == 0);
	char *note[] = {"note", "head.json", NULL};
	CU_ASSERT_EQUAL_FATAL(ci(note), 0);
	char *log[] = {"log", "--format", "html", "--test", "Cache/3", "-o", "t.html", NULL};
	CU_ASSERT_EQUAL_FATAL(ci(log), 0);
	char path[128];
	snprintf(path, sizeof(path), "%s/t.html", dir);
	FILE *f = fopen(path, "r");
	CU_ASSERT_FATAL(f != NULL);
	size_t n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "<li>2 \u00d7 8.00 MiB mmap at block_new (storage.c:49) "
	                                   "\u2190 cache_put (cache.c:115)<br>pinned by: item 17 "
	                                   "(Cache/3)</li><li>1.00 MiB malloc at "
	                                   "&lt;b&gt;make_cache&lt;/b&gt;</li>"));
	CU_ASSERT_PTR_NULL(strstr(out, "<b>make_cache"));
	/* another test of the same note: none of Cache/3's sites */
	char *log2[] = {"log", "--format", "html", "--test", "Cache/2", "-o", "t.html", NULL};
	CU_ASSERT_EQUAL_FATAL(ci(log2), 0);
	f = fopen(path, "r");
	CU_ASSERT_FATAL(f != NULL);
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	fclose(f);
	CU_ASSERT_PTR_NULL(strstr(out, "block_new"));
	cleanup();
}

static const mg_case cases[] = {
    {"log_html", test_log_html}, {"show", test_show}, {"text", test_text},
    {"markdown", test_markdown}, {"json", test_json}, {"none", test_none},
};

MG_TEST_MAIN("ci_sites", cases)

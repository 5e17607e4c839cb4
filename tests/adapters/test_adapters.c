/*
 * test_adapters.c - the adapter registry (specs, DETAIL, auto) and
 * single adapters' files and edge cases (console, html, buildkite, github,
 * markdown, text cleaning).
 */
#include "adapters.h"
#include "fixture.h"
#include "mg_test.h"
#include "report.h"
#include "test_report.h"
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

void test_check_spec(void)
{
	mg_err err = {{0}};
	CU_ASSERT_EQUAL(adapters_check("console", &err), 0);
	CU_ASSERT_EQUAL(adapters_check("console=out.txt", &err), 0);
	CU_ASSERT_EQUAL(adapters_check("jnuit=x.xml", &err), MG_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'jnuit'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "console"));
	CU_ASSERT_EQUAL(adapters_check("", &err), MG_EINVAL);
	CU_ASSERT_EQUAL(adapters_check("junit:all=x.xml", &err), 0);
	CU_ASSERT_EQUAL(adapters_check("teamcity:none", &err), 0);
	CU_ASSERT_EQUAL(adapters_check("junit:informative", &err), 0);
	CU_ASSERT_EQUAL(adapters_check("junit:most=x.xml", &err), MG_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "unknown detail 'most'"));
	CU_ASSERT_EQUAL(adapters_check("console:all", &err), MG_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "takes no detail"));
	CU_ASSERT_EQUAL(adapters_check("jnuit:all", &err), MG_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'jnuit'"));
}

static size_t count_in(const char *text, const char *what)
{
	size_t n = 0;
	for (const char *p = text; p && (p = strstr(p, what)) != NULL; p += strlen(what))
		n++;
	return n;
}

/* junit and teamcity write a test's memory for every test (:all), for none
 * (:none), or by default for the informative ones only: failed, retried, or
 * left >= ADAPTERS_INFORMATIVE_BYTES behind. junit as a line (testcase
 * properties only with :properties). */
void test_adapter_detail(void)
{
	make_tmpdir();
	report *r = fixture_full_report();
	size_t ntests = 0, informative = 0;
	for (size_t i = 0; i < r->nshards; i++)
		for (size_t t = 0; t < r->shards[i].ntests; t++) {
			ntests++;
			informative += adapters_test_informative(&r->shards[i].tests[t]);
		}
	CU_ASSERT(informative > 0 && informative < ntests);
	static const char *const details[] = {"", ":all", ":none", ":informative"};
	const size_t want[] = {informative, ntests, 0, informative};
	for (int k = 0; k < 4; k++) {
		char path[512], spec[700];
		path_in(path, sizeof(path), "out");
		mg_err err = {{0}};
		snprintf(spec, sizeof(spec), "junit%s=%s", details[k], path);
		CU_ASSERT_EQUAL_FATAL(adapters_render(r, spec, &err), 0);
		char *text = slurp_text(path);
		CU_ASSERT_EQUAL(count_in(text, "memguard: state="), want[k]);
		CU_ASSERT_EQUAL(count_in(text, "<property name=\"va_after\""), 0);
		CU_ASSERT_EQUAL(count_in(text, "[[PROPERTY|"), 0);
		CU_ASSERT_EQUAL(count_in(text, "<testcase "), ntests);
		free(text);
		snprintf(spec, sizeof(spec), "teamcity%s=%s", details[k], path);
		CU_ASSERT_EQUAL_FATAL(adapters_render(r, spec, &err), 0);
		text = slurp_text(path);
		CU_ASSERT_EQUAL(count_in(text, "name='va_after'"), want[k]);
		CU_ASSERT_EQUAL(count_in(text, "##teamcity[testStarted "), ntests);
		free(text);
	}
	/* junit:properties: every test's memory inside its testcase, no lines;
	 * teamcity takes no such detail. */
	char path[512], spec[700];
	path_in(path, sizeof(path), "out");
	mg_err err = {{0}};
	snprintf(spec, sizeof(spec), "junit:properties=%s", path);
	CU_ASSERT_EQUAL_FATAL(adapters_render(r, spec, &err), 0);
	char *text = slurp_text(path);
	CU_ASSERT_EQUAL(count_in(text, "<property name=\"va_after\""), ntests);
	CU_ASSERT_EQUAL(count_in(text, "memguard: state="), 0);
	free(text);
	CU_ASSERT_EQUAL(adapters_check("teamcity:properties", &err), MG_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "known: informative, all, none)"));
	CU_ASSERT_EQUAL(adapters_check("junit:propertie", &err), MG_EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "none, properties)"));
	report_free(r);
	cleanup_tmpdir();
}

void test_console_to_file(void)
{
	make_tmpdir();
	char path[512];
	path_in(path, sizeof(path), "console.txt");
	report *r = fixture_full_report();
	mg_err err = {{0}};
	char spec[600];
	snprintf(spec, sizeof(spec), "console=%s", path);
	CU_ASSERT_EQUAL(adapters_render(r, spec, &err), 0);
	CU_ASSERT(file_exists(path));
	CU_ASSERT(adapters_render(r, "console=/nonexistent/memguard/c.txt", &err) < 0);
	CU_ASSERT(!file_exists("/nonexistent/memguard/c.txt.tmp"));
	report_free(r);
	cleanup_tmpdir();
}

/* The console's text of r, finished here (free it). */
static char *console_text(report *r)
{
	char *text = NULL;
	size_t len = 0;
	report_finish(r, REPORT_MAX_SUSPECTS);
	FILE *f = open_memstream(&text, &len);
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(console_write(r, f), 0);
	fclose(f);
	return text;
}

/* Tests that were processes of their own (ctest) leave nothing behind: the
 * console lists the largest by their own VA, largest first, five at most,
 * and none of another driver's (whose VA is its host's). */
void test_console_largest(void)
{
	static const unsigned mib[] = {5, 70, 30, 0, 90, 10, 60};
	report *r = report_new();
	report_shard *s = report_add_shard(r);
	s->suite = report_strdup("suite");
	s->arch = report_strdup("x64");
	s->driver = report_strdup("ctest");
	for (size_t i = 0; i < sizeof(mib) / sizeof(mib[0]); i++) {
		report_test *t = report_shard_add_test(s);
		char name[16];
		snprintf(name, sizeof(name), "t%u", mib[i]);
		t->name = report_strdup(name);
		t->va_after = (uint64_t)mib[i] << 20;
	}
	s = report_add_shard(r);
	s->suite = report_strdup("host");
	s->arch = report_strdup("x64");
	s->driver = report_strdup("native");
	report_test *t = report_shard_add_test(s);
	t->name = report_strdup("native500");
	t->va_after = 500u << 20;
	char *text = console_text(r);
	const char *sec = strstr(text, "largest tests (each a process of its own: its peak VA):\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(sec);
	CU_ASSERT_PTR_NOT_NULL(strstr(sec, "   90.0 MiB  t90\n   70.0 MiB  t70\n   60.0 MiB  t60\n"
	                                   "   30.0 MiB  t30\n   10.0 MiB  t10\n"));
	CU_ASSERT_PTR_NULL(strstr(sec, "t5\n"));
	CU_ASSERT_PTR_NULL(strstr(sec, "native500"));
	free(text);
	report_free(r);
}

/* A message's lines under its test: an empty line is not indented, and
 * the empty lines a message ends in (GoogleTest's skip message ends in
 * one) are left out (before: a line of six spaces, and one at the end). */
void test_console_message_lines(void)
{
	report *r = report_new();
	report_shard *s = report_add_shard(r);
	s->suite = report_strdup("suite");
	s->arch = report_strdup("x64");
	s->driver = report_strdup("gtest");
	report_test *t = report_shard_add_test(s);
	t->name = report_strdup("S.Skipped");
	t->state = TEST_SKIP;
	t->message = report_strdup("f.cc:28: Skipped\nnot supported.\n\nlast\r\n\n\n");
	char *text = console_text(r);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "  skip         S.Skipped: f.cc:28: Skipped\n"
	                                    "      not supported.\n\n      last\n"));
	CU_ASSERT_PTR_NULL(strstr(text, "  \n"));
	free(text);
	report_free(r);
}

/* A Catch2 test's JUnit name is its name without white space at its ends,
 * as Catch2's own --reporter junit writes it (spdlog's
 * TEST_CASE("basic async test ", ...)); its classname PROGRAM.global. */
void test_junit_catch2_trimmed(void)
{
	static const char *const names[] = {"basic async test ", " \tboth ends\n", "inner  space"};
	static const char *const want[] = {"name=\"basic async test\"", "name=\"both ends\"",
	                                   "name=\"inner  space\""};
	report *r = report_new();
	report_shard *s = report_add_shard(r);
	s->suite = report_strdup("spdlog-utests");
	s->arch = report_strdup("x64");
	s->driver = report_strdup("catch2");
	for (size_t i = 0; i < 3; i++) {
		report_test *t = report_shard_add_test(s);
		t->name = report_strdup(names[i]);
	}
	report_finish(r, REPORT_MAX_SUSPECTS);
	char dir[] = "/tmp/mg-junit-c2-XXXXXX", path[64], spec[80];
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/j.xml", dir);
	snprintf(spec, sizeof(spec), "junit=%s", path);
	mg_err err = {{0}};
	CU_ASSERT_EQUAL_FATAL(adapters_render(r, spec, &err), 0);
	char *xml = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "r");
	CU_ASSERT_FATAL(f != NULL);
	char buf[4096];
	size_t got;
	FILE *m = open_memstream(&xml, &len);
	while ((got = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, got, m);
	fclose(f);
	fclose(m);
	for (size_t i = 0; i < 3; i++)
		CU_ASSERT_PTR_NOT_NULL(strstr(xml, want[i]));
	CU_ASSERT_PTR_NULL(strstr(xml, "name=\"basic async test \""));
	CU_ASSERT_PTR_NOT_NULL(strstr(xml, "classname=\"spdlog-utests.global\""));
	free(xml);
	unlink(path);
	rmdir(dir);
	report_free(r);
}

void test_auto_env(void)
{
	static const char *const vars[] = {"GITHUB_ACTIONS",   "GITLAB_CI", "TF_BUILD",
	                                   "TEAMCITY_VERSION", "BUILDKITE", "JENKINS_URL",
	                                   "CIRCLECI"};
	static const char *const want[] = {"github",    "gitlab", "azure", "teamcity",
	                                   "buildkite", "junit",  "junit"};
	const char *names[4];
	for (size_t i = 0; i < 7; i++)
		unsetenv(vars[i]);
	CU_ASSERT_EQUAL(adapters_auto(names, 4), 1);
	CU_ASSERT_STRING_EQUAL(names[0], "console");
	for (size_t i = 0; i < 7; i++) {
		setenv(vars[i], "true", 1);
		size_t n = adapters_auto(names, 4);
		CU_ASSERT(n >= 1);
		CU_ASSERT_STRING_EQUAL(names[0], want[i]);
		if (i == 0) {
			CU_ASSERT_EQUAL(n, 2);
			CU_ASSERT_STRING_EQUAL(names[1], "junit");
		}
		unsetenv(vars[i]);
	}
	/* an empty variable does not count */
	setenv("GITLAB_CI", "", 1);
	CU_ASSERT_EQUAL(adapters_auto(names, 4), 1);
	CU_ASSERT_STRING_EQUAL(names[0], "console");
	unsetenv("GITLAB_CI");
}

/* An html file that cannot be written is an error naming its path. */
void test_html_bad_path(void)
{
	report *r = report_new();
	mg_err err = {{0}};
	CU_ASSERT_EQUAL(adapters_check("html=x.html", &err), 0);
	CU_ASSERT(adapters_render(r, "html=/nonexistent/x.html", &err) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "/nonexistent/x.html"));
	report_free(r);
}

/* A fake buildkite-agent on PATH gets the arguments and the Markdown on
 * stdin; a failing agent is an error. */
void test_buildkite_agent(void)
{
	make_tmpdir();
	char agent[512], args[512], body[512], cmd[2048];
	path_in(agent, sizeof(agent), "buildkite-agent");
	path_in(args, sizeof(args), "args");
	path_in(body, sizeof(body), "body");
	FILE *f = fopen(agent, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fprintf(f, "#!/bin/sh\necho \"$@\" > '%s'\ncat > '%s'\nexit ${FAKE_AGENT_RC:-0}\n", args,
	        body);
	fclose(f);
	CU_ASSERT_EQUAL_FATAL(chmod(agent, 0755), 0);
	char *old_path = report_strdup(getenv("PATH"));
	snprintf(cmd, sizeof(cmd), "%s:%s", tmpdir, old_path ? old_path : "/usr/bin:/bin");
	setenv("PATH", cmd, 1);

	report *r = fixture_full_report();
	mg_err err = {{0}};
	CU_ASSERT_EQUAL(adapters_render(r, "buildkite", &err), 0);
	char *a = slurp_text(args), *b = slurp_text(body);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_STRING_EQUAL(a, "annotate --context memguard-node-2 --style error\n");
	CU_ASSERT_PTR_NOT_NULL(strstr(b, "| shard | arch |"));
	free(a);
	free(b);
	setenv("FAKE_AGENT_RC", "3", 1);
	CU_ASSERT(adapters_render(r, "buildkite", &err) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "status 3"));
	unsetenv("FAKE_AGENT_RC");
	if (old_path)
		setenv("PATH", old_path, 1);
	free(old_path);
	report_free(r);
	cleanup_tmpdir();
}

/* github appends to the step summary and GITHUB_OUTPUT (never replaces). */
void test_github_files(void)
{
	make_tmpdir();
	char summary[512], output[512];
	path_in(summary, sizeof(summary), "summary.md");
	path_in(output, sizeof(output), "output");
	CU_ASSERT_FATAL(write_file(summary, "earlier step\n") == 0);
	setenv("GITHUB_STEP_SUMMARY", summary, 1);
	setenv("GITHUB_OUTPUT", output, 1);
	report *r = fixture_full_report();
	mg_err err = {{0}};
	fflush(stdout);
	CU_ASSERT_EQUAL(adapters_render(r, "github", &err), 0);
	char *s = slurp_text(summary), *o = slurp_text(output);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	CU_ASSERT(strncmp(s, "earlier step\n### memguard", 25) == 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(o, "memguard_peak_va=3747563521\n"));
	free(s);
	free(o);
	unsetenv("GITHUB_STEP_SUMMARY");
	unsetenv("GITHUB_OUTPUT");
	report_free(r);
	cleanup_tmpdir();
}

void test_clean_text(void)
{
	int cut = 0;
	char *c = adapters_clean("a\x01\tb\xff\xef\xbf\xbe", 0, ADAPTERS_XML, &cut);
	CU_ASSERT_STRING_EQUAL(c, "a\\x01\tb\xef\xbf\xbd\xef\xbf\xbd");
	CU_ASSERT_EQUAL(cut, 0);
	free(c);
	c = adapters_clean("line\nnext", 4, ADAPTERS_ONELINE, &cut);
	CU_ASSERT_STRING_EQUAL(c, "line...");
	CU_ASSERT_EQUAL(cut, 1);
	free(c);
	c = adapters_clean("x\ny", 0, ADAPTERS_ONELINE, NULL);
	CU_ASSERT_STRING_EQUAL(c, "x y");
	free(c);
}

/* The shared summary stays within its limit, cut at a line, and says so. */
void test_markdown_truncated(void)
{
	report *r = fixture_full_report();
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_EQUAL(markdown_summary(r, m, 1500), 0);
	fclose(m);
	CU_ASSERT(len <= 1500);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "summary truncated to fit 1500 bytes"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "| shard | arch |"));
	free(buf);
	buf = NULL;
	m = open_memstream(&buf, &len);
	CU_ASSERT_EQUAL(markdown_summary(r, m, 1 << 20), 0);
	fclose(m);
	CU_ASSERT_PTR_NULL(strstr(buf, "truncated"));
	free(buf);
	report_free(r);
}

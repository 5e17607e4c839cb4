/*
 * test_endings.c - every adapter that lists how hosts ended (console,
 * markdown: github, azure and buildkite summaries; github's and azure's
 * commands) lists the same set: recycles, kills and soft-limit warnings.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "adapters.h"
#include "fixture.h"
#include "mg_test.h"
#include "report.h"
#include "test_report.h"

#define WARNING "rss 6.10 GiB >= recycle 6.00 GiB (the exec driver does not recycle)"
#define RECYCLE "va 3.51 GiB >= recycle 3.50 GiB"
#define KILL    "va 4.00 GiB >= kill 4.00 GiB"

/* The full fixture plus a host that crossed a soft limit its driver cannot
 * recycle at: it quit at the end with a warning. */
static report *with_warning(void)
{
	report *r = fixture_full_report();
	for (size_t i = 0; i < r->nshards; i++)
		for (size_t k = 0; k < r->shards[i].ngens; k++)
			if (r->shards[i].gens[k].end == REPORT_END_KILL) {
				free(r->shards[i].gens[k].reason);
				r->shards[i].gens[k].reason = report_strdup(KILL);
			}
	report_generation *g = report_shard_add_generation(&r->shards[0]);
	g->index = (uint32_t)(r->shards[0].ngens - 1);
	g->pid = 4321;
	g->tests_run = 3;
	g->end = REPORT_END_QUIT;
	g->warning = report_strdup(WARNING);
	return r;
}

/* What spec writes to stdout, with the file it writes (file_path, may be
 * NULL) appended: one string to search. */
static char *render(const report *r, const char *spec, const char *file_path)
{
	char out[512];
	path_in(out, sizeof(out), "stdout");
	fflush(stdout);
	int saved = dup(1);
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CU_ASSERT_FATAL(saved >= 0 && fd >= 0);
	dup2(fd, 1);
	close(fd);
	mg_err err = {{0}};
	int rc = adapters_render(r, spec, &err);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	CU_ASSERT_EQUAL(rc, 0);
	char *text = slurp_text(out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	if (file_path) {
		char *file = slurp_text(file_path);
		CU_ASSERT_PTR_NOT_NULL_FATAL(file);
		size_t a = strlen(text), b = strlen(file);
		text = realloc(text, a + b + 1);
		memcpy(text + a, file, b + 1);
		free(file);
	}
	return text;
}

static void expect_all(const char *what, const char *text)
{
	/* the ends of the reasons: Markdown writes > as &gt; */
	const char *want[] = {strchr(WARNING, '=') + 1, strchr(RECYCLE, '=') + 1,
	                      strchr(KILL, '=') + 1};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		if (!strstr(text, want[i]))
			fprintf(stderr, "%s: no '%s' in:\n%s\n", what, want[i], text);
		CU_ASSERT_PTR_NOT_NULL(strstr(text, want[i]));
	}
}

void test_endings_same_set(void)
{
	make_tmpdir();
	report *r = with_warning();
	char path[512], spec[600];

	path_in(path, sizeof(path), "console.txt");
	snprintf(spec, sizeof(spec), "console=%s", path);
	char *t = render(r, spec, path);
	expect_all("console", t);
	free(t);

	path_in(path, sizeof(path), "summary.md");
	setenv("GITHUB_STEP_SUMMARY", path, 1);
	unsetenv("GITHUB_OUTPUT");
	t = render(r, "github", path);
	unsetenv("GITHUB_STEP_SUMMARY");
	expect_all("github", t);
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "::warning title=memguard soft-limit warning"));
	free(t);

	/* azure: its commands on stdout (a warning issue, as GitHub's ::warning),
	 * and its summary file */
	path_in(path, sizeof(path), "azure.md");
	snprintf(spec, sizeof(spec), "azure=%s", path);
	t = render(r, spec, NULL);
	expect_all("azure commands", t);
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "##vso[task.logissue type=warning]memguard: "));
	free(t);
	t = slurp_text(path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	expect_all("azure summary", t);
	free(t);

	path_in(path, sizeof(path), "buildkite.md");
	snprintf(spec, sizeof(spec), "buildkite=%s", path);
	t = render(r, spec, path);
	expect_all("buildkite", t);
	free(t);

	report_free(r);
	cleanup_tmpdir();
}

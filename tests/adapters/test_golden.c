/*
 * test_golden.c - the data-driven adapter tests: CASE_DIR holds report.json
 * and expected.<adapter> for each adapter it covers; each is rendered and
 * compared byte for byte. MG_REGENERATE=1 rewrites the expected files
 * (for an intentional change; review the diff before committing).
 * Usage: test_golden CASE_DIR [ADAPTER...]
 *        test_golden --resave IN OUT   (load and save again: the schema check)
 *        test_golden --full OUT        (save the in-code full fixture)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "adapters.h"
#include "fixture.h"
#include "report.h"

static const char *const all_adapters[] = {"console"};

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	size_t got;
	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap)
			buf = realloc(buf, cap *= 2);
	}
	fclose(f);
	*len = n;
	return buf;
}

/* Renders adapter into out_path; 0 on success. */
static int render(const report *r, const char *adapter, const char *out_path)
{
	mg_err err = {{0}};
	char spec[4200];
	snprintf(spec, sizeof(spec), "%s=%s", adapter, out_path);
	int rc = adapters_render(r, spec, &err);
	if (rc)
		fprintf(stderr, "%s: %s\n", adapter, err.msg);
	return rc;
}

static int run_adapter(const report *r, const char *dir, const char *adapter, int regenerate)
{
	char expected[4096], actual[4096];
	snprintf(expected, sizeof(expected), "%s/expected.%s", dir, adapter);
	if (!regenerate && access(expected, F_OK) != 0)
		return 0; /* this case does not cover this adapter */
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	snprintf(actual, sizeof(actual), "%s/mg_golden_%d.%s", tmp, (int)getpid(), adapter);
	if (render(r, adapter, actual) != 0)
		return 1;
	if (regenerate) {
		if (rename(actual, expected) != 0) {
			fprintf(stderr, "%s: %s\n", expected, strerror(errno));
			return 1;
		}
		printf("regenerated %s\n", expected);
		return 0;
	}
	size_t na = 0, ne = 0;
	char *a = slurp(actual, &na), *e = slurp(expected, &ne);
	int same = a && e && na == ne && memcmp(a, e, na) == 0;
	if (!same) {
		char cmd[9000];
		fprintf(stderr, "%s: output differs from %s\n", adapter, expected);
		snprintf(cmd, sizeof(cmd), "diff -u '%s' '%s' | head -60 >&2", expected, actual);
		if (system(cmd) < 0)
			perror("diff");
	} else {
		printf("%s: ok\n", adapter);
	}
	free(a);
	free(e);
	unlink(actual);
	return !same;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s CASE_DIR [ADAPTER...]\n", argv[0]);
		return 2;
	}
	if (strcmp(argv[1], "--resave") == 0 || strcmp(argv[1], "--full") == 0) {
		int full = strcmp(argv[1], "--full") == 0;
		if (argc != (full ? 3 : 4))
			return 2;
		report *r = NULL;
		mg_err err = {{0}};
		int rc = 0;
		if (full)
			r = fixture_full_report();
		else
			rc = report_load(&r, argv[2], &err);
		if (rc == 0)
			rc = report_save(r, argv[full ? 2 : 3], &err);
		if (rc)
			fprintf(stderr, "%s\n", err.msg);
		report_free(r);
		return rc ? 1 : 0;
	}
	const char *dir = argv[1];
	int regenerate = getenv("MG_REGENERATE") && strcmp(getenv("MG_REGENERATE"), "1") == 0;
	char path[4096];
	snprintf(path, sizeof(path), "%s/report.json", dir);
	report *r = NULL;
	mg_err err = {{0}};
	if (report_load(&r, path, &err) != 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	int failed = 0, covered = 0;
	size_t n = sizeof(all_adapters) / sizeof(all_adapters[0]);
	for (size_t i = 0; i < n; i++) {
		int listed = argc == 2;
		for (int k = 2; k < argc; k++)
			listed |= strcmp(argv[k], all_adapters[i]) == 0;
		if (!listed)
			continue;
		snprintf(path, sizeof(path), "%s/expected.%s", dir, all_adapters[i]);
		covered += regenerate || access(path, F_OK) == 0;
		failed |= run_adapter(r, dir, all_adapters[i], regenerate);
	}
	report_free(r);
	if (covered == 0) {
		fprintf(stderr, "%s: no expected.<adapter> file\n", dir);
		return 1;
	}
	return failed;
}

/*
 * test_golden.c - the data-driven adapter tests. A case folder holds the
 * report (report.json, or a file "fixture" naming a report built in code,
 * for bytes JSON cannot carry) and expected.<adapter> for each adapter it
 * covers. Each adapter renders into a fresh directory with its stdout
 * captured and the CI's files pointed there; everything it wrote is joined
 * ("=== name ===" per file, the directory shown as @TMP@) and compared byte
 * for byte. Every case covers every adapter of the table: a missing
 * expected file, or one named for no adapter, fails the case.
 * MG_REGENERATE=1 rewrites the expected files of every adapter (for an
 * intentional change: review the diff before committing).
 *
 * Usage: test_golden CASE_DIR [ADAPTER...]
 *        test_golden --render CASE_DIR SPEC     (render one spec, for tool checks)
 *        test_golden --resave IN OUT            (load and save again)
 *        test_golden --full OUT                 (save the in-code full fixture)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "adapters.h"
#include "fixture.h"
#include "report.h"

/* The adapters golden cases cover, and the spec each renders with: "@"
 * stands for the case's temporary directory. */
static const char *const golden[][2] = {
    {"console", "console=@/out.txt"},
    {"junit", "junit=@/junit.xml"},
    {"github", "github"}, /* summary via $GITHUB_STEP_SUMMARY */
    {"gitlab", "gitlab=@/gitlab"},
    {"azure", "azure=@/summary.md"},
    {"teamcity", "teamcity"}, /* stdout */
    {"buildkite", "buildkite=@/annotation.md"},
};

/* snprintf for paths: a path too long for the buffer is just cut. */
static void pathf(char *dst, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void pathf(char *dst, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dst, size, fmt, ap);
	va_end(ap);
}

typedef struct buf {
	char *data;
	size_t len;
} buf;

static int slurp(const char *path, buf *b)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	size_t cap = 1 << 16;
	b->data = malloc(cap);
	b->len = 0;
	size_t got;
	while ((got = fread(b->data + b->len, 1, cap - b->len, f)) > 0) {
		b->len += got;
		if (b->len == cap)
			b->data = realloc(b->data, cap *= 2);
	}
	fclose(f);
	return 0;
}

static int load_case(const char *dir, report **out)
{
	char path[4096];
	mg_err err = {{0}};
	pathf(path, sizeof(path), "%s/fixture", dir);
	buf name = {0};
	if (slurp(path, &name) == 0) {
		name.data[name.len] = '\0';
		name.data[strcspn(name.data, "\n")] = '\0';
		*out = fixture_by_name(name.data);
		if (!*out)
			fprintf(stderr, "%s: no fixture named '%s'\n", path, name.data);
		free(name.data);
		return *out ? 0 : -1;
	}
	pathf(path, sizeof(path), "%s/report.json", dir);
	if (report_load(out, path, &err) != 0) {
		fprintf(stderr, "%s\n", err.msg);
		return -1;
	}
	return 0;
}

static void expand(char *dst, size_t size, const char *spec, const char *tmp)
{
	const char *at = strchr(spec, '@');
	if (at)
		pathf(dst, size, "%.*s%s%s", (int)(at - spec), spec, tmp, at + 1);
	else
		pathf(dst, size, "%s", spec);
}

/* Renders spec with stdout going to tmp/stdout; 0 on success. */
static int render_captured(const report *r, const char *spec, const char *tmp)
{
	char path[4096];
	pathf(path, sizeof(path), "%s/stdout", tmp);
	fflush(stdout);
	int saved = dup(1);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (saved < 0 || fd < 0)
		return -1;
	dup2(fd, 1);
	close(fd);
	mg_err err = {{0}};
	int rc = adapters_render(r, spec, &err);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	if (rc)
		fprintf(stderr, "%s: %s\n", spec, err.msg);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends every non-empty file under dir (sorted, recursive) to out. */
static void collect(FILE *out, const char *root, const char *rel)
{
	char dir[4096];
	pathf(dir, sizeof(dir), "%s%s%s", root, *rel ? "/" : "", rel);
	DIR *d = opendir(dir);
	if (!d)
		return;
	char *names[256];
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d)) && n < 256)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			names[n++] = strdup(e->d_name);
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		char sub[4096], path[8192];
		pathf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", names[i]);
		pathf(path, sizeof(path), "%s/%s", root, sub);
		struct stat st;
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			collect(out, root, sub);
		} else if (stat(path, &st) == 0 && st.st_size > 0) {
			buf b = {0};
			if (slurp(path, &b) == 0) {
				fprintf(out, "=== %s ===\n", sub);
				fwrite(b.data, 1, b.len, out);
				if (b.len && b.data[b.len - 1] != '\n')
					fputs("\n=== (no newline at end) ===\n", out);
				free(b.data);
			}
		}
		free(names[i]);
	}
}

/* s with every occurrence of tmp replaced by @TMP@. */
static buf mask(const buf *in, const char *tmp)
{
	buf out = {malloc(in->len + 1), 0};
	size_t tl = strlen(tmp);
	for (size_t i = 0; i < in->len;) {
		if (i + tl <= in->len && memcmp(in->data + i, tmp, tl) == 0) {
			out.data = realloc(out.data, out.len + (in->len - i) + 8);
			memcpy(out.data + out.len, "@TMP@", 5);
			out.len += 5;
			i += tl;
		} else {
			out.data[out.len++] = in->data[i++];
		}
	}
	return out;
}

static int rm_rf(const char *dir)
{
	char cmd[4200];
	pathf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static int run_adapter(const report *r, const char *dir, size_t which, int regenerate)
{
	const char *name = golden[which][0];
	char expected[4096], tmp[4096], spec[8192], path[8192];
	pathf(expected, sizeof(expected), "%s/expected.%s", dir, name);
	if (!regenerate && access(expected, F_OK) != 0) {
		fprintf(stderr,
		        "%s: missing (every case covers every adapter; MG_REGENERATE=1 "
		        "writes it)\n",
		        expected);
		return 1;
	}
	pathf(tmp, sizeof(tmp), "%s/mg_golden_XXXXXX",
	      getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmp))
		return 1;
	expand(spec, sizeof(spec), golden[which][1], tmp);
	pathf(path, sizeof(path), "%s/step_summary.md", tmp);
	setenv("GITHUB_STEP_SUMMARY", path, 1);
	pathf(path, sizeof(path), "%s/github_output", tmp);
	setenv("GITHUB_OUTPUT", path, 1);
	unsetenv("AGENT_TEMPDIRECTORY");
	int failed = render_captured(r, spec, tmp) != 0;

	buf raw = {0};
	FILE *m = open_memstream(&raw.data, &raw.len);
	collect(m, tmp, "");
	fclose(m);
	buf actual = mask(&raw, tmp);
	free(raw.data);
	rm_rf(tmp);
	if (failed) {
		free(actual.data);
		return 1;
	}
	if (regenerate) {
		FILE *f = fopen(expected, "wb");
		if (!f || fwrite(actual.data, 1, actual.len, f) != actual.len || fclose(f) != 0) {
			fprintf(stderr, "%s: %s\n", expected, strerror(errno));
			failed = 1;
		} else {
			printf("regenerated %s\n", expected);
		}
		free(actual.data);
		return failed;
	}
	buf want = {0};
	slurp(expected, &want);
	int same =
	    want.data && want.len == actual.len && memcmp(want.data, actual.data, actual.len) == 0;
	if (!same) {
		char got[4200], cmd[9000];
		pathf(got, sizeof(got), "%s.actual", tmp);
		FILE *f = fopen(got, "wb");
		if (f) {
			fwrite(actual.data, 1, actual.len, f);
			fclose(f);
		}
		fprintf(stderr, "%s: output differs from %s (actual kept in %s)\n", name, expected,
		        got);
		pathf(cmd, sizeof(cmd), "diff -u '%s' '%s' | head -40 >&2", expected, got);
		if (system(cmd) < 0)
			perror("diff");
	} else {
		printf("%s: ok\n", name);
	}
	free(want.data);
	free(actual.data);
	return !same;
}

static int special(int argc, char **argv)
{
	report *r = NULL;
	mg_err err = {{0}};
	int rc = 0;
	if (strcmp(argv[1], "--full") == 0 && argc == 3) {
		r = fixture_full_report();
		rc = report_save(r, argv[2], &err);
	} else if (strcmp(argv[1], "--resave") == 0 && argc == 4) {
		rc = report_load(&r, argv[2], &err);
		if (rc == 0)
			rc = report_save(r, argv[3], &err);
	} else if (strcmp(argv[1], "--render") == 0 && argc == 4) {
		rc = load_case(argv[2], &r);
		if (rc == 0)
			rc = adapters_render(r, argv[3], &err);
	} else {
		fprintf(stderr, "bad arguments\n");
		return 2;
	}
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	report_free(r);
	return rc ? 1 : 0;
}

/* 1 (after naming it) when dir holds an expected.NAME for no adapter of
 * the table: a misspelt file would otherwise be checked by nothing. */
static int stray_expected(const char *dir)
{
	DIR *d = opendir(dir);
	int stray = 0;
	if (!d)
		return 1;
	for (struct dirent *e; (e = readdir(d)) != NULL;) {
		if (strncmp(e->d_name, "expected.", 9) != 0)
			continue;
		int known = 0;
		for (size_t i = 0; i < sizeof(golden) / sizeof(golden[0]); i++)
			known |= strcmp(e->d_name + 9, golden[i][0]) == 0;
		if (!known) {
			fprintf(stderr, "%s/%s: no adapter named '%s' is checked\n", dir, e->d_name,
			        e->d_name + 9);
			stray = 1;
		}
	}
	closedir(d);
	return stray;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s CASE_DIR [ADAPTER...]\n", argv[0]);
		return 2;
	}
	if (argv[1][0] == '-')
		return special(argc, argv);
	const char *dir = argv[1];
	int regenerate = getenv("MG_REGENERATE") && strcmp(getenv("MG_REGENERATE"), "1") == 0;
	report *r = NULL;
	if (load_case(dir, &r) != 0)
		return 1;
	int failed = stray_expected(dir), covered = 0;
	for (size_t i = 0; i < sizeof(golden) / sizeof(golden[0]); i++) {
		int listed = argc == 2;
		for (int k = 2; k < argc; k++)
			listed |= strcmp(argv[k], golden[i][0]) == 0;
		if (!listed)
			continue;
		covered++;
		failed |= run_adapter(r, dir, i, regenerate);
	}
	report_free(r);
	if (covered == 0) {
		fprintf(stderr, "%s: no adapter named on the command line is known\n", dir);
		return 1;
	}
	return failed;
}

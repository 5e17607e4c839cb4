/*
 * user_flags.c - the user's own framework flags as the framework reads them,
 * for the runner and the shims alike: GoogleTest's --gtest_flagfile (its
 * lines in place of it, as gtest.cc loads it), and the file the user asked
 * the framework to write its report to (--gtest_output, GTEST_OUTPUT;
 * Catch2's -r junit -o FILE), which memguard writes for the whole run.
 * Reads a flag file; never writes.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

#define FLAGFILE_OPT "--gtest_flagfile="
#define OUTPUT_OPT   "--gtest_output="
#define FLAGFILE_MAX (1024 * 1024)

/* The whole of path, NUL-terminated; NULL when it cannot be read. */
static char *read_text(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0;
	if (!f)
		return NULL;
	buf = malloc(FLAGFILE_MAX + 1);
	if (buf)
		len = fread(buf, 1, FLAGFILE_MAX + 1, f);
	if (!buf || ferror(f) || len > FLAGFILE_MAX) {
		free(buf);
		buf = NULL;
	} else {
		buf[len] = 0;
	}
	fclose(f);
	return buf;
}

/* text's lines, as gtest.cc's LoadFlagsFromFile takes them (split at '\n'
 * only, empty ones left out), cut in place; their count, or -1 when one is
 * no GoogleTest flag (GoogleTest then prints its help and runs nothing:
 * the argument stays as it is, for the program to do the same). */
static int flag_lines(char *text, char **out)
{
	int n = 0;
	for (char *p = text; *p;) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = 0;
		if (*p) {
			if (strncmp(p, "--gtest_", 8) || !strncmp(p, "--gtest_flagfile", 16))
				return -1;
			if (out)
				out[n] = p;
			n++;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return n;
}

int gtest_cmd_expand(gtest_cmd *out, char *const *argv, int argc)
{
	memset(out, 0, sizeof(*out));
	int cap = argc + 1;
	out->argv = calloc((size_t)cap, sizeof(char *));
	out->texts = calloc((size_t)argc + 1, sizeof(char *));
	if (!out->argv || !out->texts)
		goto fail;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		char *text = NULL;
		int n = -1;
		if (i > 0 && !strncmp(a, FLAGFILE_OPT, sizeof(FLAGFILE_OPT) - 1) &&
		    (text = read_text(a + sizeof(FLAGFILE_OPT) - 1)) != NULL) {
			char *copy = strdup(text);
			n = copy ? flag_lines(copy, NULL) : -1;
			free(copy);
		}
		if (n < 0) { /* not a flag file, or one GoogleTest refuses: as given */
			free(text);
			out->argv[out->argc++] = argv[i];
			continue;
		}
		out->texts[out->ntexts++] = text;
		if (n > 1) {
			char **more = realloc(out->argv, (size_t)(cap + n - 1) * sizeof(char *));
			if (!more)
				goto fail;
			out->argv = more;
			cap += n - 1;
		}
		out->argc += flag_lines(text, out->argv + out->argc);
	}
	out->argv[out->argc] = NULL;
	return 0;
fail:
	gtest_cmd_free(out);
	return -1;
}

void gtest_cmd_free(gtest_cmd *c)
{
	for (int i = 0; i < c->ntexts; i++)
		free(c->texts[i]);
	free(c->texts);
	free(c->argv);
	memset(c, 0, sizeof(*c));
}

void gtest_cmd_drop_output(gtest_cmd *c)
{
	int k = 1;
	for (int i = 1; i < c->argc; i++)
		if (strncmp(c->argv[i], OUTPUT_OPT, sizeof(OUTPUT_OPT) - 1))
			c->argv[k++] = c->argv[i];
	if (c->argc)
		c->argc = k;
	if (c->argv)
		c->argv[c->argc] = NULL;
}

/* The last name in base (a path), for GoogleTest's DIR/NAME.xml. */
static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* GoogleTest's output setting (gtest.cc's UnitTestOptions::GetOutputFormat
 * and GetAbsolutePathToOutputFile): "xml" or "json" before the first ':',
 * the path after it ("test_detail.xml" when there is no ':'); a path ending
 * in '/' (or none after the ':': the working directory) is a directory: PROGRAM.xml in it, or
 * PROGRAM_N.xml for the first N that does not exist. */
static void gtest_output(driver_output *out, const char *prog, const char *value)
{
	const char *colon = strchr(value, ':');
	size_t flen = colon ? (size_t)(colon - value) : strlen(value);
	snprintf(out->opt, sizeof(out->opt), "%s", value);
	if (flen == 3 && !memcmp(value, "xml", 3))
		out->form = DRIVER_OUTPUT_GTEST_XML;
	else if (flen == 4 && !memcmp(value, "json", 4))
		out->form = DRIVER_OUTPUT_GTEST_JSON;
	else
		return; /* GoogleTest writes nothing for another format */
	if (!colon) {
		snprintf(out->path, sizeof(out->path), "test_detail.%s",
		         out->form == DRIVER_OUTPUT_GTEST_XML ? "xml" : "json");
		return;
	}
	const char *path = colon[1] ? colon + 1 : "./"; /* "xml:": the directory it runs in */
	if (path[strlen(path) - 1] != '/') {
		snprintf(out->path, sizeof(out->path), "%s", path);
		return;
	}
	const char *ext = out->form == DRIVER_OUTPUT_GTEST_XML ? "xml" : "json";
	for (int n = 0; n < 100000; n++) {
		FILE *f;
		if (n == 0)
			snprintf(out->path, sizeof(out->path), "%s%s.%s", path, base_name(prog),
			         ext);
		else
			snprintf(out->path, sizeof(out->path), "%s%s_%d.%s", path, base_name(prog),
			         n, ext);
		if ((f = fopen(out->path, "re")) == NULL)
			break;
		fclose(f);
	}
}

/* Catch2 (Clara): "-r X", "-r=X", "-r:X" ("--reporter" alike); the value
 * of option a (short, long) at argv[*i], moving *i past it; NULL when a is
 * not that option. */
static const char *c2_value(char *const *argv, int argc, int *i, const char *shrt, const char *lng)
{
	const char *a = argv[*i];
	const char *names[] = {shrt, lng};
	for (int k = 0; k < 2; k++) {
		size_t n = strlen(names[k]);
		if (strncmp(a, names[k], n))
			continue;
		if (!a[n] && *i + 1 < argc)
			return argv[++*i];
		if (a[n] == '=' || a[n] == ':' || a[n] == ' ')
			return a + n + 1;
	}
	return NULL;
}

void driver_output_of(driver_output *out, driver_kind k, int catch2_v3, char *const *argv, int argc)
{
	memset(out, 0, sizeof(*out));
	if (k == DRIVER_GTEST) {
		gtest_cmd c;
		const char *value = getenv("GTEST_OUTPUT");
		if (gtest_cmd_expand(&c, argv, argc) < 0)
			return;
		for (int i = 1; i < c.argc; i++)
			if (!strncmp(c.argv[i], OUTPUT_OPT, sizeof(OUTPUT_OPT) - 1))
				value = c.argv[i] + sizeof(OUTPUT_OPT) - 1;
		if (value && *value)
			gtest_output(out, argv[0], value);
		gtest_cmd_free(&c);
		return;
	}
	if (k == DRIVER_CTEST) {
		/* --output-junit FILE, relative to the test directory (ctest's
		 * --test-dir, else here); under --preset that directory is the
		 * preset's: said, not written (ct_select says -O's log is not) */
		const char *dir = NULL, *junit = NULL;
		int preset = 0;
		for (int i = 1; i < argc; i++) {
			if (!strcmp(argv[i], "--test-dir") && i + 1 < argc)
				dir = argv[++i];
			else if (!strcmp(argv[i], "--output-junit") && i + 1 < argc)
				junit = argv[++i];
			else if (!strncmp(argv[i], "--test-dir=", 11))
				dir = argv[i] + 11;
			else
				preset |= !strcmp(argv[i], "--preset") ||
				          !strncmp(argv[i], "--preset=", 9);
		}
		if (!junit || !*junit)
			return;
		out->form = junit[0] == '/' || !preset ? DRIVER_OUTPUT_CTEST_JUNIT
		                                       : DRIVER_OUTPUT_UNWRITTEN;
		int in_dir = junit[0] != '/' && dir;
		snprintf(out->path, sizeof(out->path), "%s%s%s", in_dir ? dir : "",
		         in_dir ? "/" : "", junit);
		snprintf(out->opt, sizeof(out->opt), "--output-junit %.200s", junit);
		snprintf(out->dir, sizeof(out->dir), "%s", dir ? dir : ".");
		return;
	}
	if (k != DRIVER_CATCH2)
		return;
	/* v2: one -r NAME, its file -o PATH; v3: -r given again adds a
	 * reporter, each NAME[::out=PATH][::key=value...] (the one without
	 * ::out= writes to -o PATH or stdout; an empty PATH is stdout, and in
	 * v3 "-" and "%stdout" too). Names as Catch2 matches them: v3 in any
	 * case, v2 as written. A
	 * machine's format to stdout first (refused: memguard's output is
	 * there), else the junit one, else the first other with a file. */
	enum { REPORTERS = 16 };
	struct {
		char name[48];
		const char *file; /* its ::out=, NULL: none */
		size_t len;
	} rep[REPORTERS];
	size_t nrep = 0;
	const char *path = NULL, *v;
	for (int i = 1; i < argc; i++) {
		if ((v = c2_value(argv, argc, &i, "-r", "--reporter")) != NULL) {
			if (nrep == REPORTERS)
				continue;
			const char *sep = strstr(v, "::"), *o = v;
			size_t nl = sep ? (size_t)(sep - v) : strlen(v);
			rep[nrep].file = NULL;
			rep[nrep].len = 0;
			snprintf(rep[nrep].name, sizeof(rep[nrep].name), "%.*s",
			         (int)(nl < 40 ? nl : 40), v);
			for (char *c = rep[nrep].name; catch2_v3 && *c; c++)
				*c = (char)tolower((unsigned char)*c);
			while ((o = strstr(o, "::")) != NULL) {
				o += 2;
				if (!strncmp(o, "out=", 4)) {
					const char *e = strstr(o + 4, "::");
					rep[nrep].file = o + 4;
					rep[nrep].len = e ? (size_t)(e - (o + 4)) : strlen(o + 4);
				}
			}
			nrep++;
		} else if ((v = c2_value(argv, argc, &i, "-o", "--out")) != NULL) {
			path = v;
		}
	}
	static const char *const machine[] = {"junit",    "xml",      "sonarqube", "tap",
	                                      "teamcity", "automake", "json"};
	int junit = -1, other = -1;
	for (size_t r = 0; r < nrep; r++) {
		const char *file = rep[r].file ? rep[r].file : path;
		size_t len = rep[r].file ? rep[r].len : path ? strlen(path) : 0;
		int to_stdout = !file || !len ||
		                (catch2_v3 && ((len == 1 && *file == '-') ||
		                               (len == 7 && !strncmp(file, "%stdout", 7))));
		int is_machine = 0;
		for (size_t k = 0; k < sizeof(machine) / sizeof(*machine); k++)
			is_machine |= !strcmp(rep[r].name, machine[k]);
		if (is_machine && to_stdout) {
			out->form = DRIVER_OUTPUT_STDOUT;
			snprintf(out->opt, sizeof(out->opt), "-r %.40s", rep[r].name);
			return;
		}
		if (!strcmp(rep[r].name, "junit") && junit < 0 && !to_stdout)
			junit = (int)r;
		else if (other < 0 && !to_stdout)
			other = (int)r;
	}
	if (junit >= 0) {
		out->form = DRIVER_OUTPUT_CATCH2_JUNIT;
		if (rep[junit].file) {
			snprintf(out->path, sizeof(out->path), "%.*s", (int)rep[junit].len,
			         rep[junit].file);
			snprintf(out->opt, sizeof(out->opt), "-r junit::out=%.200s", out->path);
		} else {
			snprintf(out->path, sizeof(out->path), "%s", path);
			snprintf(out->opt, sizeof(out->opt), "-r junit -o %.200s", path);
		}
	} else if (other >= 0 || (!nrep && path && *path && strcmp(path, "-"))) {
		out->form = DRIVER_OUTPUT_UNWRITTEN;
		const char *name = other >= 0 ? rep[other].name : "console";
		if (other >= 0 && rep[other].file) {
			snprintf(out->path, sizeof(out->path), "%.*s", (int)rep[other].len,
			         rep[other].file);
			snprintf(out->opt, sizeof(out->opt), "-r %.40s::out=%.200s", name,
			         out->path);
		} else {
			snprintf(out->path, sizeof(out->path), "%s", path);
			snprintf(out->opt, sizeof(out->opt), "-r %.40s -o %.200s", name, path);
		}
	}
}

int catch2_is_output_opt(const char *a)
{
	static const char *const opts[] = {"-o", "--out", "-r", "--reporter"};
	for (size_t k = 0; k < sizeof(opts) / sizeof(opts[0]); k++) {
		size_t n = strlen(opts[k]);
		if (!strncmp(a, opts[k], n) && (a[n] == '=' || a[n] == ':' || a[n] == ' '))
			return 1;
	}
	return 0;
}

/*
 * ctest.c - the CTest driver: lists with "ctest --show-only=json-v1" and the
 * user's selecting arguments (parsed with Jansson), then runs each CTest
 * test's own command as an exec-style child (one process per test, its
 * working directory and environment: ENVIRONMENT, ENVIRONMENT_MODIFICATION),
 * honouring WILL_FAIL, DISABLED, REQUIRED_FILES, TIMEOUT, TIMEOUT_AFTER_MATCH,
 * SKIP_RETURN_CODE, PASS/FAIL/SKIP_REGULAR_EXPRESSION (on stdout and stderr),
 * RUN_SERIAL and RESOURCE_LOCK, and ctest's default timeout, as ctest judges
 * them; CTestCustom.cmake's commands around the run (ctest_custom_run).
 * Never runs ctest itself per test.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <regex.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "atomic.h"
#include "driver.h"
#include "mg_elf.h"
#include "rm_tree.h"
#include "shim.h"
#include "spawn.h"

/* ctest's options that choose tests or where they are: kept for listing.
 * The ones with a value take the next argument. */
static const char *const select_with_value[] = {"-R",
                                                "--tests-regex",
                                                "-E",
                                                "--exclude-regex",
                                                "-L",
                                                "--label-regex",
                                                "-LE",
                                                "--label-exclude",
                                                "--test-dir",
                                                "-C",
                                                "--build-config",
                                                "-I",
                                                "--tests-information",
                                                "-FA",
                                                "--fixture-exclude-any",
                                                "-FS",
                                                "--fixture-exclude-setup",
                                                "-FC",
                                                "--fixture-exclude-cleanup",
                                                "--preset",
                                                NULL};
/* --rerun-failed: the tests the last run failed (ctest's
 * Testing/Temporary/LastTestsFailed.log, which memguard's runs write too:
 * ctest_failed_log), as its --show-only lists them. */
static const char *const select_flags[] = {"-U", "--union", "--rerun-failed", NULL};
/* ctest's options with a value that are dropped (ours, or output only). */
static const char *const drop_with_value[] = {"-j",
                                              "--parallel",
                                              "-O",
                                              "--output-log",
                                              "--output-junit",
                                              "--timeout",
                                              "--repeat",
                                              "--repeat-until-fail",
                                              "--test-load",
                                              "--resource-spec-file",
                                              "-T",
                                              "--test-action",
                                              "-M",
                                              "--test-model",
                                              "-S",
                                              "--script",
                                              "-D",
                                              NULL};

typedef struct ct_test {
	char *name;
	char **argv; /* NULL: ctest found no executable */
	char *cwd;
	char **env;          /* ENVIRONMENT: "NAME=VALUE" (a NAME alone unsets it) */
	char **envmod;       /* ENVIRONMENT_MODIFICATION: "NAME=OP:VALUE", in order */
	char **required;     /* REQUIRED_FILES (relative ones in its WORKING_DIRECTORY) */
	char **tam_re;       /* TIMEOUT_AFTER_MATCH's regexes, NULL: none */
	double tam;          /* ... and its seconds */
	int resource_groups; /* it has RESOURCE_GROUPS */
	char **locks;
	char **pass_re, **fail_re, **skip_re; /* NULL: none */
	int skip_code;                        /* SKIP_RETURN_CODE, -1: none */
	int will_fail, disabled, serial;
	int processors;  /* PROCESSORS: the lanes it takes (0: one) */
	double timeout;  /* seconds, 0: none */
	int has_timeout; /* TIMEOUT given (0 too) */
	/* DEPENDS (ctest's listing adds a fixture's setup and cleanup order to
	 * it), FIXTURES_SETUP, FIXTURES_REQUIRED; NULL: none */
	char **depends, **fx_setup, **fx_required;
} ct_test;

/* A lock directory's path (TMPDIR, up to PATH_MAX, and its name), and a
 * lock file's (the directory's and the file's 38). */
#define LOCK_DIR_MAX  (4096 + 64)
#define LOCK_PATH_MAX (LOCK_DIR_MAX + 64)

typedef struct ctest_drv {
	const shim_args *a; /* first, as in exec.c's context: exec_exited reads a->shell */
	ct_test *v;
	size_t n;
	shim_names *names;
	int listed;
	int env_set; /* ctest's own variables are in the tests' environment (ct_own_env) */
	/* the running test */
	long cur;
	struct timespec t0; /* its start, or when TIMEOUT_AFTER_MATCH matched */
	double timeout;     /* its TIMEOUT, or TIMEOUT_AFTER_MATCH's once matched; 0: none */
	int timed_out;
	regex_t *tam; /* its TIMEOUT_AFTER_MATCH regexes until one matches */
	size_t ntam;
	int tam_hit;  /* one did: d->timeout is TIMEOUT_AFTER_MATCH's */
	int held_out; /* it timed out after its exit, its output held open */
	int judged;   /* a regex judges it: its output is kept in out */
	int held[64];
	char held_path[64][LOCK_PATH_MAX];
	int nheld;
	int serial_fd;
	char serial_path[LOCK_PATH_MAX];
	uint64_t lock_hash; /* of the test directory and the run; 0: not known yet */
	int lock_none;      /* the run has one lane: its tests run one after another */
	int lock_try;       /* which lock directory name is ours */
	int lock_waited;    /* the runner was told this test waits (lock_wait) */
	/* PROCESSORS: the run's lanes (0: one, or no test takes more than one),
	 * this lane, the run (ct_slots) */
	unsigned slots, slot;
	long slot_run;
	char lock_err[512];
	unsigned fail_left; /* MG_ENV_FAIL_LEFT: after as many failures, skip (0: none) */
	char fail_why[160];
	char *out; /* the running test's stdout, when a regex judges it */
	size_t out_len, out_cap;
	size_t gt;          /* tests that run one GoogleTest case (the listing's hint) */
	const char *gt_bin; /* ... the last one's program */
	char *aside;        /* what CTestCustom.cmake's commands printed around the listing */
	size_t aside_len;
	int refused; /* a run memguard cannot judge as ctest would (said once) */
	double cli_timeout, dart_timeout; /* ctest's --timeout, TimeOut (ct_default_timeout) */
	const char *timeout_from;         /* the running test's timeout: whose */
} ctest_drv;

static int in_list(const char *const *list, const char *a)
{
	for (size_t i = 0; list[i]; i++)
		if (!strcmp(list[i], a))
			return 1;
	return 0;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* A NULL-terminated copy of a JSON array of strings. */
static char **str_array(json_t *a)
{
	size_t n = json_is_array(a) ? json_array_size(a) : 0, k = 0;
	char **v = calloc(n + 1, sizeof(char *));
	for (size_t i = 0; v && i < n; i++) {
		const char *s = json_string_value(json_array_get(a, i));
		if (s)
			v[k++] = strdup(s);
	}
	return v;
}

static void prop(ct_test *t, const char *name, json_t *val)
{
	if (!strcmp(name, "WORKING_DIRECTORY"))
		t->cwd = dup_or_null(json_string_value(val));
	else if (!strcmp(name, "ENVIRONMENT"))
		t->env = str_array(val);
	else if (!strcmp(name, "ENVIRONMENT_MODIFICATION"))
		t->envmod = str_array(val);
	else if (!strcmp(name, "REQUIRED_FILES"))
		t->required = str_array(val);
	else if (!strcmp(name, "TIMEOUT_AFTER_MATCH") &&
	         json_is_number(json_object_get(val, "timeout"))) {
		t->tam = json_number_value(json_object_get(val, "timeout"));
		t->tam_re = str_array(json_object_get(val, "regex"));
	} else if (!strcmp(name, "RESOURCE_GROUPS"))
		t->resource_groups = json_array_size(val) > 0;
	else if (!strcmp(name, "WILL_FAIL"))
		t->will_fail = json_is_true(val);
	else if (!strcmp(name, "DISABLED"))
		t->disabled = json_is_true(val);
	else if (!strcmp(name, "RUN_SERIAL"))
		t->serial = json_is_true(val);
	else if (!strcmp(name, "RESOURCE_LOCK"))
		t->locks = str_array(val);
	else if (!strcmp(name, "PROCESSORS") && json_is_integer(val))
		t->processors = (int)json_integer_value(val);
	else if (!strcmp(name, "TIMEOUT") && json_is_number(val))
		t->timeout = json_number_value(val), t->has_timeout = 1;
	else if (!strcmp(name, "SKIP_RETURN_CODE") && json_is_integer(val))
		t->skip_code = (int)json_integer_value(val);
	else if (!strcmp(name, "PASS_REGULAR_EXPRESSION"))
		t->pass_re = str_array(val);
	else if (!strcmp(name, "FAIL_REGULAR_EXPRESSION"))
		t->fail_re = str_array(val);
	else if (!strcmp(name, "SKIP_REGULAR_EXPRESSION"))
		t->skip_re = str_array(val);
	else if (!strcmp(name, "DEPENDS"))
		t->depends = str_array(val);
	else if (!strcmp(name, "FIXTURES_SETUP"))
		t->fx_setup = str_array(val);
	else if (!strcmp(name, "FIXTURES_REQUIRED"))
		t->fx_required = str_array(val);
}

/* 1 when argv runs one GoogleTest case (what gtest_discover_tests writes). */
static int gtest_one_case(char **argv)
{
	for (size_t i = 1; argv && argv[i]; i++)
		if (!strncmp(argv[i], "--gtest_filter=", 15) && !strpbrk(argv[i] + 15, "*?:-"))
			return 1;
	return 0;
}

/*
 * ctest's json-v1 document in what --show-only printed: ctest runs the
 * project's CTEST_CUSTOM_PRE_TEST and _POST_TEST commands (CTestCustom.cmake)
 * at a listing too, and their output comes before and after the document
 * (CLI11's prints its build information). The document is the first object
 * that starts a line and says "kind": "ctestInfo"; what is around it is the
 * commands' own output, which the listing host passes to stderr (ct_say),
 * where ctest's user would have seen it: kept in d->aside. NULL and je's
 * error when there is none.
 */
static json_t *ct_document(ctest_drv *d, const char *text, size_t len, json_error_t *je)
{
	json_error_t first;
	int tried = 0;
	for (size_t at = 0; at < len; at++) {
		if (text[at] != '{' || (at && text[at - 1] != '\n'))
			continue;
		json_t *root = json_loadb(text + at, len - at, JSON_DISABLE_EOF_CHECK, je);
		const char *kind = json_string_value(json_object_get(root, "kind"));
		if (kind && !strcmp(kind, "ctestInfo")) {
			size_t end = at + je->position;
			free(d->aside);
			d->aside = malloc(at + (len - end) + 1);
			d->aside_len = 0;
			if (d->aside) {
				memcpy(d->aside, text, at);
				memcpy(d->aside + at, text + end, len - end);
				d->aside_len = at + (len - end);
			}
			return root;
		}
		json_decref(root);
		if (!tried++)
			first = *je;
	}
	if (tried)
		*je = first;
	else
		snprintf(je->text, sizeof(je->text), "no line starts a JSON object");
	return NULL;
}

/* name, added to names, as this listing's own: the name itself, or for
 * its k-th test of that name NAME#k (the first k from 2 on free); a copy
 * to free, or NULL (out of memory) */
static char *ct_dup_name(shim_names *names, const char *name)
{
	size_t len = strlen(name);
	if (shim_names_add(names, name, len) >= 0)
		return strdup(name);
	if (shim_names_find(names, name, len) < 0)
		return NULL;
	for (unsigned k = 2; k; k++) {
		char *own = NULL;
		if (asprintf(&own, "%s#%u", name, k) < 0)
			return NULL;
		if (shim_names_add(names, own, strlen(own)) >= 0)
			return own;
		long taken = shim_names_find(names, own, strlen(own));
		free(own);
		if (taken < 0) /* not added, not there: out of memory */
			return NULL;
	}
	return NULL;
}

/*
 * Parses ctest's json-v1 document into d->v, and counts the tests that are
 * single GoogleTest cases (ct_say's hint). 0, or -1 after a message on
 * stderr.
 */
static int ct_parse(ctest_drv *d, const char *text, size_t len)
{
	json_error_t je;
	json_t *root = ct_document(d, text, len, &je);
	json_t *tests = json_object_get(root, "tests");
	size_t i;
	json_t *t;
	if (!json_is_array(tests)) {
		fprintf(stderr, "memguard: ctest --show-only=json-v1 gave no test list: %s\n",
		        root ? "no \"tests\" array" : je.text);
		json_decref(root);
		return -1;
	}
	d->v = calloc(json_array_size(tests) + 1, sizeof(ct_test));
	d->names = shim_names_new();
	json_array_foreach(tests, i, t)
	{
		const char *name = json_string_value(json_object_get(t, "name"));
		if (!name || !*name)
			continue;
		/* CMake lets two directories add a test of one name, and ctest runs
		 * both: the k-th of a name is NAME#k here (ct_dup_name), as in
		 * ctest_failed_log */
		char *own = ct_dup_name(d->names, name);
		if (!own)
			continue;
		ct_test *c = &d->v[d->n++];
		c->name = own;
		c->skip_code = -1;
		json_t *cmd = json_object_get(t, "command");
		c->argv = json_is_array(cmd) && json_array_size(cmd) ? str_array(cmd) : NULL;
		size_t k;
		json_t *p;
		json_array_foreach(json_object_get(t, "properties"), k, p)
		{
			const char *pn = json_string_value(json_object_get(p, "name"));
			if (pn)
				prop(c, pn, json_object_get(p, "value"));
		}
		/* a hand-written one that judges its case as ctest does (an
		 * expected failure, a regex on its output) is not one the gtest
		 * driver would judge alike */
		if (gtest_one_case(c->argv) && !c->will_fail && !c->pass_re && !c->fail_re &&
		    !c->skip_re && c->skip_code < 0) {
			d->gt++;
			d->gt_bin = c->argv[0];
		}
	}
	json_decref(root);
	return 0;
}

/* The user's ctest arguments that choose tests, into argv (from argv[1]);
 * with argv NULL, a line on stderr for each one left out. Returns how many. */
static int ct_select(char **cmd, int ncmd, char **argv)
{
	int k = 0;
	for (int i = 1; i < ncmd; i++) {
		if (in_list(select_with_value, cmd[i]) && i + 1 < ncmd) {
			if (argv)
				argv[k] = cmd[i], argv[k + 1] = cmd[i + 1];
			k += 2;
			i++;
		} else if (in_list(select_flags, cmd[i]) || !strncmp(cmd[i], "--test-dir=", 11) ||
		           !strncmp(cmd[i], "--preset=", 9)) {
			if (argv)
				argv[k] = cmd[i];
			k++;
		} else if (in_list(drop_with_value, cmd[i]) && i + 1 < ncmd) {
			if (!argv && (!strcmp(cmd[i], "-O") || !strcmp(cmd[i], "--output-log")))
				fprintf(
				    stderr,
				    "memguard: ctest's '%s %s' is not written: memguard runs the "
				    "tests, not ctest (--report and its adapters have them)\n",
				    cmd[i], cmd[i + 1]);
			i++; /* a --repeat of other than 1 was refused (ctest_check_args) */
		} else if (!strncmp(cmd[i], "-j", 2) || !strncmp(cmd[i], "--parallel", 10)) {
			/* -j4 / --parallel=4: memguard's -j runs lanes */
		} else if (!strcmp(cmd[i], "--stop-on-failure")) {
			/* the runner's fail-fast (driver_fail_fast_of) */
		} else if (!argv) {
			fprintf(stderr, "memguard: ctest's '%s' does not choose tests: left out\n",
			        cmd[i]);
		}
	}
	return k;
}

/* The listing host's notes (its stderr is the user's): arguments left out,
 * and one hint line when tests are single GoogleTest cases. */
static void ct_say(shim *s, const ctest_drv *d)
{
	int ncmd;
	char **cmd = shim_cmd(s, &ncmd);
	ct_select(cmd, ncmd, NULL);
	if (d->aside_len && fwrite(d->aside, 1, d->aside_len, stderr) != d->aside_len)
		clearerr(stderr);
	if (d->gt)
		fprintf(
		    stderr,
		    "memguard: %zu CTest test%s run%s one GoogleTest case (gtest_discover_tests): "
		    "'memguard run --driver gtest -- %s' runs them in one program per lane with "
		    "in-process boundaries\n",
		    d->gt, d->gt == 1 ? "" : "s", d->gt == 1 ? "s" : "", d->gt_bin);
}

/* The test directory of the ctest command cmd (4096 bytes): --test-dir's,
 * resolved, else the current one. -1 (dir still set) when --preset may name
 * another (memguard does not read presets). */
static int test_dir_of(char *const *cmd, int ncmd, char *dir)
{
	const char *td = NULL;
	int preset = 0;
	for (int i = 1; i < ncmd; i++)
		if (!strcmp(cmd[i], "--test-dir") && i + 1 < ncmd)
			td = cmd[i + 1];
		else if (!strncmp(cmd[i], "--test-dir=", 11))
			td = cmd[i] + 11;
		else if (!strcmp(cmd[i], "--preset") || !strncmp(cmd[i], "--preset=", 9))
			preset = 1;
	if ((!td || !realpath(td, dir)) && !getcwd(dir, 4096))
		dir[0] = 0;
	return preset && !td ? -1 : 0;
}

static void ct_test_dir(shim *s, char *dir)
{
	int ncmd;
	char **cmd = shim_cmd(s, &ncmd);
	test_dir_of(cmd, ncmd, dir);
}

/* ---- CTestCustom.cmake's CTEST_CUSTOM_PRE_TEST and _POST_TEST commands:
 * ctest runs them at a listing too, so the shim lists from a directory of
 * its own whose CTestTestfile.cmake names the test directory (subdirs) and
 * whose CTestCustom.cmake reads the project's and then empties both lists
 * (CTEST_CUSTOM_TESTS_IGNORE and the rest still hold); the runner has ctest
 * run them once before the listing and once after the tests
 * (ctest_custom_run), from such a directory with no test that keeps one of
 * the lists, each command prefixed by "env -C DIR" (ctest runs them in its
 * test directory), so ctest itself splits and runs them as it would. ---- */

#define CUSTOM_ENV "/usr/bin/env"

/* The project's custom file in dir, as ctest reads it (CTestCustom.cmake,
 * else CTestCustom.ctest), into path (4200 bytes); -1 when there is none
 * (nothing to run, nothing to keep from a listing). */
static int custom_file(const char *dir, char *path)
{
	snprintf(path, 4200, "%s/CTestCustom.cmake", dir);
	if (access(path, F_OK) == 0)
		return 0;
	snprintf(path, 4200, "%s/CTestCustom.ctest", dir);
	return access(path, F_OK) == 0 ? 0 : -1;
}

/* s inside a CMake quoted argument (\, " and $ escaped). */
static void cmake_escaped(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"' || *s == '$')
			fputc('\\', f);
		fputc(*s, f);
	}
}

static void cmake_quoted(FILE *f, const char *s)
{
	fputc('"', f);
	cmake_escaped(f, s);
	fputc('"', f);
}

/* Removes what custom_dir made (and ctest wrote in it: Testing/). */
static void custom_dir_remove(const char *tmp)
{
	if (*tmp && rm_tree(tmp) < 0)
		fprintf(stderr, "memguard: cannot remove %s: %s\n", tmp, strerror(errno));
}

/* The test directory dir's logs of the tests its last run failed
 * (Testing/Temporary/LastTestsFailed*.log, what --rerun-failed reads: ctest
 * takes the newest) copied into tmp's, with their times, so a listing from
 * tmp chooses what one in dir would. Best effort: a log not copied is one
 * ctest does not find, as in a directory that has none. */
static void custom_failed_logs(const char *tmp, const char *dir)
{
	char from[4200], to[4200];
	snprintf(from, sizeof(from), "%s/Testing/Temporary", dir);
	DIR *d = opendir(from);
	if (!d)
		return;
	snprintf(to, sizeof(to), "%s/Testing", tmp);
	int made = mkdir(to, 0700) == 0;
	snprintf(to, sizeof(to), "%s/Testing/Temporary", tmp);
	made = made && mkdir(to, 0700) == 0;
	for (struct dirent *e; made && (e = readdir(d)) != NULL;) {
		size_t n = strlen(e->d_name);
		if (strncmp(e->d_name, "LastTestsFailed", 15) || n < 19 ||
		    strcmp(e->d_name + n - 4, ".log"))
			continue;
		snprintf(from, sizeof(from), "%s/Testing/Temporary/%s", dir, e->d_name);
		snprintf(to, sizeof(to), "%s/Testing/Temporary/%s", tmp, e->d_name);
		int in = open(from, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		int out = in < 0 ? -1 : open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		char buf[8192];
		ssize_t r = 0;
		while (out >= 0 && (r = read(in, buf, sizeof(buf))) > 0)
			if (write(out, buf, (size_t)r) != r)
				break;
		struct stat st;
		if (out >= 0 && fstat(in, &st) == 0)
			futimens(out, (struct timespec[]){st.st_atim, st.st_mtim});
		if (out >= 0)
			close(out);
		if (in >= 0)
			close(in);
	}
	closedir(d);
}

/*
 * A directory for ctest (its path into tmp, 4096 bytes, under TMPDIR, made
 * 0700) reading the test directory dir's custom file: with keep NULL, the
 * listing's (subdirs(dir), no custom command); else one with no test that
 * keeps the commands of keep ("CTEST_CUSTOM_PRE_TEST" or "_POST_TEST"), each
 * run in dir. 0, or -1 (errno; nothing left).
 */
static int custom_dir(char *tmp, const char *dir, const char *file, const char *keep)
{
	const char *base = getenv("TMPDIR");
	char path[4200];
	snprintf(tmp, 4096, "%s/memguard-ctlist-XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(tmp))
		return tmp[0] = 0, -1;
	snprintf(path, sizeof(path), "%s/CTestTestfile.cmake", tmp);
	FILE *f = fopen(path, "wx");
	int ok = f && fputs("# memguard: ctest reads the tests of\n", f) >= 0;
	if (ok && !keep) {
		fputs("subdirs(", f);
		cmake_quoted(f, dir);
		fputs(")\n", f);
		custom_failed_logs(tmp, dir); /* --rerun-failed */
	}
	ok = f && fclose(f) == 0 && ok;
	snprintf(path, sizeof(path), "%s/CTestCustom.cmake", tmp);
	f = ok ? fopen(path, "wx") : NULL;
	ok = f != NULL;
	if (ok) {
		fputs("include(", f);
		cmake_quoted(f, file);
		fputs(")\n", f);
		if (keep) {
			fprintf(f,
			        "set(_memguard_kept \"\")\nforeach(_memguard_c IN LISTS %s)\n"
			        "  if(NOT _memguard_c STREQUAL \"\")\n"
			        "    list(APPEND _memguard_kept \"" CUSTOM_ENV " -C \\\"",
			        keep);
			cmake_escaped(f, dir);
			fprintf(f,
			        "\\\" ${_memguard_c}\")\n  endif()\nendforeach()\n"
			        "set(%s \"${_memguard_kept}\")\n",
			        keep);
		}
		if (!keep || strcmp(keep, "CTEST_CUSTOM_PRE_TEST"))
			fputs("set(CTEST_CUSTOM_PRE_TEST \"\")\n", f);
		if (!keep || strcmp(keep, "CTEST_CUSTOM_POST_TEST"))
			fputs("set(CTEST_CUSTOM_POST_TEST \"\")\n", f);
		ok = fclose(f) == 0;
	}
	if (!ok) {
		int e = errno;
		custom_dir_remove(tmp);
		tmp[0] = 0;
		errno = e;
		return -1;
	}
	return 0;
}

/* 1 when the test directory of cmd can be listed from a directory of ours
 * (its path has no '"': ctest's command parsing could not quote it). */
static int custom_listable(const char *dir)
{
	return !strchr(dir, '"');
}

/* What ctest printed around running the commands, less its own lines, to
 * stderr ("env -C DIR" taken out of its "Problem running command: ...");
 * the last such line's command into failed (size bytes). */
static void custom_say(char *text, const char *dir, char *failed, size_t size)
{
	static const char *const own[] = {"Internal ctest changing into directory: ",
	                                  "Test project ",
	                                  "No tests were found!!!",
	                                  "Errors while running CTest",
	                                  "Output from these tests are in: ",
	                                  "Use \"--rerun-failed",
	                                  "Total Test time",
	                                  NULL};
	char prefix[4200];
	snprintf(prefix, sizeof(prefix), CUSTOM_ENV " -C \"%s\" ", dir);
	for (char *line = text, *next; line && *line; line = next) {
		char *nl = strchr(line, '\n');
		next = nl ? nl + 1 : NULL;
		if (nl)
			*nl = 0;
		size_t k = 0;
		while (own[k] && strncmp(line, own[k], strlen(own[k])))
			k++;
		if (own[k])
			continue;
		const char *problem = "Problem running command: ";
		if (!strncmp(line, problem, strlen(problem))) {
			char *cmd = line + strlen(problem);
			if (!strncmp(cmd, prefix, strlen(prefix)))
				cmd += strlen(prefix);
			snprintf(failed, size, "%s", cmd);
			fprintf(stderr, "%s%s\n", problem, cmd);
			continue;
		}
		fprintf(stderr, "%s\n", line);
	}
}

int ctest_check_args(char *const *cmd, int ncmd, mg_err *err)
{
	for (int i = 1; i + 1 < ncmd; i++) {
		int until_fail = !strcmp(cmd[i], "--repeat-until-fail");
		if (!until_fail && strcmp(cmd[i], "--repeat"))
			continue;
		const char *v = cmd[++i], *colon = strchr(v, ':');
		const char *n = until_fail ? v : colon ? colon + 1 : "";
		char *end;
		errno = 0;
		long count = strtol(n, &end, 10);
		if (*n && !*end && !errno && count <= 1)
			continue; /* once, as ctest runs a count of 1 or less: what memguard does */
		size_t mode = until_fail ? 10 : colon ? (size_t)(colon - v) : strlen(v);
		return mg_err_set(err, MG_EINVAL,
		                  "ctest's '%s %.40s': memguard runs each test once and judges "
		                  "that run, where ctest would run each up to %.20s times (%.*s): "
		                  "drop it, and run memguard again to repeat",
		                  cmd[i - 1], v, *n ? n : "N", mode > 20 ? 20 : (int)mode,
		                  until_fail ? "until-fail" : v);
	}
	return 0;
}

int ctest_custom_run(char *const *cmd, int ncmd, int post, char *failed, size_t size)
{
	char dir[4096], file[4200], tmp[4096], path[4096];
	const char *keep = post ? "CTEST_CUSTOM_POST_TEST" : "CTEST_CUSTOM_PRE_TEST";
	failed[0] = 0;
	if (ncmd < 1 || test_dir_of(cmd, ncmd, dir) < 0 || !custom_listable(dir) ||
	    custom_file(dir, file) < 0)
		return 0; /* none, or they ran at the listing */
	if (custom_dir(tmp, dir, file, keep) < 0) {
		snprintf(failed, size, "cannot write a directory for ctest under TMPDIR: %s",
		         strerror(errno));
		return -1;
	}
	mg_err err = {0};
	spawn_proc *p = NULL;
	char *argv[] = {cmd[0], "--test-dir", tmp, NULL};
	spawn_options o = SPAWN_OPTIONS_INIT;
	o.flags = SPAWN_CAPTURE_OUT | SPAWN_ERR_TO_OUT | SPAWN_NULL_STDIN;
	int rc = -1;
	char *text = NULL;
	size_t len = 0;
	if (spawn_resolve(path, sizeof(path), cmd[0], &err) < 0 ||
	    spawn_start(&p, path, argv, &o, &err) < 0) {
		snprintf(failed, size, "%s", err.msg);
		goto out;
	}
	spawn_read_all(spawn_out_fd(p), &text, &len); /* out of memory: what came */
	mg_exit_end end;
	if (spawn_wait(p, 0, &end, NULL) < 0) {
		snprintf(failed, size, "cannot wait for ctest");
		goto out;
	}
	if (text)
		custom_say(text, dir, failed, size);
	rc = mg_exit_ok(end) ? 0 : 1;
	if (rc && !failed[0])
		snprintf(failed, size, "ctest %s %d",
		         end.signo ? "died of signal" : "exited with status",
		         end.signo ? end.signo : end.status);
out:
	free(text);
	spawn_free(p);
	custom_dir_remove(tmp);
	return rc;
}

static int str_cmp(const void *a, const void *b);
static int ct_list_argv(char *const *cmd, int ncmd, char **argv, char *tmp, char *last);

/* "  Test #12: NAME" (ctest -N's line; the number padded by spaces) into
 * *index and its name; 0 when line is not one. */
static int numbered_test(char *line, long *index, char **name)
{
	char *p = line;
	while (*p == ' ')
		p++;
	if (strncmp(p, "Test", 4))
		return 0;
	for (p += 4; *p == ' '; p++)
		;
	if (*p != '#' || !isdigit((unsigned char)p[1]))
		return 0;
	*index = strtol(p + 1, &p, 10);
	if (p[0] != ':' || p[1] != ' ')
		return 0;
	*name = p + 2;
	return 1;
}

int ctest_failed_log(char *const *cmd, int ncmd, char **failed, size_t n, char *msg, size_t size)
{
	char dir[4096], tmp[4096] = "", path[4200], prog[4096];
	msg[0] = 0;
	if (!n || ncmd < 1)
		return 0;
	if (test_dir_of(cmd, ncmd, dir) < 0) {
		snprintf(msg, size,
		         "not written (under --preset: memguard does not know the "
		         "preset's test directory)");
		return -1;
	}
	if (!dir[0]) {
		snprintf(msg, size, "not written (no test directory: %s)", strerror(errno));
		return -1;
	}
	char **argv = calloc((size_t)ncmd + 4, sizeof(char *));
	spawn_proc *p = NULL;
	spawn_options o = SPAWN_OPTIONS_INIT;
	atomic_file *f = NULL;
	mg_exit_end end;
	char *text = NULL;
	size_t len = 0, found = 0;
	int rc = -1;
	mg_err err = {0};
	shim_names *names = NULL;
	if (!argv || ct_list_argv(cmd, ncmd, argv, tmp, "-N") < 0) {
		snprintf(msg, size, "cannot write a directory for ctest under TMPDIR: %s",
		         strerror(errno));
		goto out;
	}
	o.flags = SPAWN_CAPTURE_OUT | SPAWN_NULL_STDIN;
	if (spawn_resolve(prog, sizeof(prog), cmd[0], &err) < 0 ||
	    spawn_start(&p, prog, argv, &o, &err) < 0) {
		snprintf(msg, size, "%s", err.msg);
		goto out;
	}
	spawn_read_all(spawn_out_fd(p), &text, &len);
	if (spawn_wait(p, 0, &end, NULL) < 0 || !mg_exit_ok(end) || !text) {
		snprintf(msg, size, "'%s -N' did not list the tests", cmd[0]);
		goto out;
	}
	/* ctest's numbers are its whole list's (what --rerun-failed reads),
	 * not the chosen tests' */
	qsort(failed, n, sizeof(*failed), str_cmp);
	static const char *const made[] = {"/Testing", "/Testing/Temporary",
	                                   "/Testing/Temporary/LastTestsFailed.log"};
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s%s", dir, made[i]);
		if (i < 2 && mkdir(path, 0777) < 0 && errno != EEXIST) {
			snprintf(msg, size, "cannot make %s: %s", path, strerror(errno));
			goto out;
		}
	}
	if (atomic_open(&f, path, &err) < 0) {
		snprintf(msg, size, "%s", err.msg);
		goto out;
	}
	names = shim_names_new();
	for (char *line = text, *next; line; line = next) {
		char *nl = memchr(line, '\n', len - (size_t)(line - text));
		next = nl ? nl + 1 : NULL;
		if (nl)
			*nl = 0;
		long index;
		char *name, *own;
		if (!numbered_test(line, &index, &name))
			continue;
		/* the listing's name of it: NAME#k for the k-th of a name */
		if (names && (own = ct_dup_name(names, name)) != NULL) {
			if (bsearch(&own, failed, n, sizeof(*failed), str_cmp)) {
				fprintf(atomic_stream(f), "%ld:%s\n", index, name);
				found++;
			}
			free(own);
		}
	}
	rc = atomic_close(f, found > 0, &err);
	if (!found)
		rc = 0; /* none of them is ctest's (CTEST_CUSTOM_POST_TEST): as it was */
	else if (rc < 0)
		snprintf(msg, size, "%s", err.msg);
out:
	if (names)
		shim_names_free(names);
	free(text);
	spawn_free(p);
	custom_dir_remove(tmp);
	free(argv);
	return rc;
}

/* The value of KEY in the test directory dir's DartConfiguration.tcl
 * ("KEY: VALUE", what CTest's configure wrote) into buf (4096 bytes), or
 * NULL when it has none or an empty one. */
static const char *dart_value(const char *dir, const char *key, char *buf)
{
	char line[4200];
	size_t kl = strlen(key);
	snprintf(line, sizeof(line), "%s/DartConfiguration.tcl", dir);
	FILE *f = fopen(line, "r");
	const char *value = NULL;
	while (f && !value && fgets(line, sizeof(line), f)) {
		char *v = line + kl + 1, *end;
		if (strncmp(line, key, kl) || line[kl] != ':')
			continue;
		while (*v == ' ' || *v == '\t')
			v++;
		end = v + strlen(v);
		while (end > v && isspace((unsigned char)end[-1]))
			*--end = 0;
		if (*v)
			value = (snprintf(buf, 4096, "%s", v), buf);
	}
	if (f)
		fclose(f);
	return value;
}

/*
 * The timeout ctest gives a test without a TIMEOUT of its own (tmo 0 when
 * none): its --timeout, else the test directory's DartConfiguration.tcl's
 * TimeOut (CTest's configure writes 1500 s); and a TIMEOUT of 0 still gets
 * --timeout's (not TimeOut's), as ctest 3.25 does.
 */
static void ct_default_timeout(shim *s, ctest_drv *d)
{
	int ncmd;
	char **cmd = shim_cmd(s, &ncmd), dir[4096], buf[4096];
	for (int i = 1; i < ncmd; i++)
		if (!strcmp(cmd[i], "--timeout") && i + 1 < ncmd)
			d->cli_timeout = strtod(cmd[i + 1], NULL);
	ct_test_dir(s, dir);
	if (dart_value(dir, "TimeOut", buf))
		d->dart_timeout = strtod(buf, NULL);
}

/*
 * The resource specification ctest would use: --resource-spec-file's, else
 * the test directory's DartConfiguration.tcl's ResourceSpecFile
 * (CTEST_RESOURCE_SPEC_FILE); NULL when none. Into buf (4096 bytes).
 */
static const char *ct_resource_spec(shim *s, char *buf)
{
	int ncmd;
	char **cmd = shim_cmd(s, &ncmd), dir[4096];
	for (int i = 1; i < ncmd; i++)
		if (!strcmp(cmd[i], "--resource-spec-file") && i + 1 < ncmd)
			return snprintf(buf, 4096, "%s", cmd[i + 1]), buf;
	ct_test_dir(s, dir);
	return dart_value(dir, "ResourceSpecFile", buf);
}

/*
 * With a resource specification ctest hands each test with RESOURCE_GROUPS
 * its share of the resources (CTEST_RESOURCE_GROUP_* variables) and Not
 * Runs one the specification cannot satisfy; memguard does not allocate
 * them, so it refuses such a run rather than judge those tests another
 * way (without one, ctest ignores RESOURCE_GROUPS, and so does memguard).
 * 0, or -1 after saying so.
 */
static int ct_resources(shim *s, const ctest_drv *d)
{
	char spec[4096];
	size_t n = 0, first = 0;
	for (size_t i = d->n; i-- > 0;)
		if (d->v[i].resource_groups)
			n++, first = i;
	if (!n || !ct_resource_spec(s, spec))
		return 0;
	fprintf(stderr,
	        "memguard: ctest's resource specification %s gives %zu test%s with "
	        "RESOURCE_GROUPS ('%s'%s) resources, which memguard does not allocate: run "
	        "them without it (ctest then ignores RESOURCE_GROUPS too), leave them out "
	        "(-E), or run them with ctest itself\n",
	        spec, n, n == 1 ? "" : "s", d->v[first].name, n > 1 ? " ..." : "");
	return -1;
}

/* ctest with the user's selecting arguments and --show-only=json-v1. */
/*
 * PROCESSORS: ctest's -j N counts processors, not tests, so a test of
 * PROCESSORS P runs only beside tests of N - P more. Here a lane is a
 * processor: when some listed test takes more than one and the run has
 * lanes (MG_ENV_LANE), each test holds its lane's slot, one of P holds P
 * (locks_acquire).
 */
/* MG_ENV_LANE's LANE/LANES/RUN: 0 without it (a run of one lane) or when
 * malformed. */
static int ct_lane(unsigned *slot, unsigned *slots, long *run)
{
	const char *lane = getenv(MG_ENV_LANE);
	int used = 0;
	return lane && sscanf(lane, "%u/%u/%ld%n", slot, slots, run, &used) == 3 && !lane[used] &&
	       *slots >= 2 && *slot < *slots;
}

static void ct_slots(ctest_drv *d)
{
	unsigned slot, slots;
	long run;
	d->slots = 0;
	if (!ct_lane(&slot, &slots, &run))
		return;
	for (size_t i = 0; i < d->n; i++)
		if (d->v[i].processors > 1) {
			d->slots = slots, d->slot = slot, d->slot_run = run;
			return;
		}
}

/*
 * The listing's command into argv (ncmd + 4 slots): cmd[0], the user's
 * arguments that choose tests, then last. From a directory of ours when the
 * project has custom commands, where ctest runs none (the runner has it run
 * them: ctest_custom_run): its path into tmp (4096 bytes, "" when none; the
 * caller removes it, custom_dir_remove). Returns the count, or -1 (errno)
 * when that directory cannot be made.
 */
static int ct_list_argv(char *const *cmd, int ncmd, char **argv, char *tmp, char *last)
{
	char dir[4096], file[4200];
	int k = 0;
	tmp[0] = 0;
	argv[k++] = cmd[0];
	k += ct_select((char **)cmd, ncmd, argv + 1);
	if (test_dir_of(cmd, ncmd, dir) == 0 && custom_listable(dir) &&
	    custom_file(dir, file) == 0) {
		if (custom_dir(tmp, dir, file, NULL) < 0)
			return -1;
		int w = 1; /* the user's --test-dir left out, ours given */
		for (int i = 1; i < k; i++) {
			if (!strcmp(argv[i], "--test-dir") && i + 1 < k)
				i++;
			else if (strncmp(argv[i], "--test-dir=", 11))
				argv[w++] = argv[i];
		}
		k = w;
		argv[k++] = "--test-dir";
		argv[k++] = tmp;
	}
	argv[k++] = last;
	argv[k] = NULL;
	return k;
}

static int ct_load(shim *s, ctest_drv *d)
{
	int ncmd;
	mg_exit_end status;
	char **cmd = shim_cmd(s, &ncmd);
	char **argv = calloc((size_t)ncmd + 4, sizeof(char *));
	char *out = NULL;
	size_t len = 0;
	int rc = -1;
	if (!argv || d->refused) {
		free(argv);
		return -1;
	}
	char tmp[4096] = "";
	if (ct_list_argv(cmd, ncmd, argv, tmp, "--show-only=json-v1") < 0) {
		fprintf(stderr, "memguard: cannot write a directory to list under TMPDIR: %s\n",
		        strerror(errno));
		goto out;
	}
	if (shim_capture(s, argv, &out, &len, &status) < 0)
		goto out;
	if (!mg_exit_ok(status)) {
		/* said once: the arch check and the listing both load (ct_arch) */
		shim_say_failed(status, "'%s --show-only=json-v1'", cmd[0]);
		if (!len) /* ctest says nothing of a --test-dir that is none (what it
		           * printed on stderr, if anything, went out above) */
			fprintf(stderr, "memguard: ctest printed no listing: is the directory it "
			                "runs in (its --test-dir) a CTest build tree?\n");
		d->refused = 1;
		goto out;
	}
	rc = ct_parse(d, out, len);
	ct_default_timeout(s, d);
	if (rc == 0 && ct_resources(s, d) < 0)
		rc = -1, d->refused = 1;
	d->listed = rc == 0;
	ct_slots(d);
out:
	if (tmp[0])
		custom_dir_remove(tmp);
	free(out);
	free(argv);
	return rc;
}

/*
 * The tests in an order where each comes after what it DEPENDS on (ctest's
 * listing puts a fixture's order there too: a test requiring it after its
 * setup tests, its cleanup tests after both), otherwise in ctest's order:
 * the earliest test whose listed dependencies are placed comes next.
 * Dependencies on tests not listed (not selected) do not hold one back.
 * *order: d->n indexes. A test's listed dependencies are dep[first[i]] ...
 * dep[first[i + 1] - 1]. Returns -1, or the first test left when the rest
 * wait for each other in a cycle (then in list order).
 */
static long ct_order(ctest_drv *d, size_t *order)
{
	long cycle = -1;
	char *placed = calloc(d->n ? d->n : 1, 1);
	long *dep = NULL;
	size_t *first = calloc(d->n + 1, sizeof(size_t)), ndep = 0, k = 0;
	if (!placed || !first) {
		free(placed);
		free(first);
		for (size_t i = 0; i < d->n; i++)
			order[i] = i;
		return -1;
	}
	for (size_t i = 0; i < d->n; i++) {
		first[i] = ndep;
		for (size_t j = 0; d->v[i].depends && d->v[i].depends[j]; j++) {
			const char *nm = d->v[i].depends[j];
			long at = shim_names_find(d->names, nm, strlen(nm));
			if (at < 0 || (size_t)at == i)
				continue;
			long *grown = realloc(dep, (ndep + 1) * sizeof(long));
			if (!grown)
				continue;
			dep = grown;
			dep[ndep++] = at;
		}
	}
	first[d->n] = ndep;
	while (k < d->n && !ndep) /* nothing to keep: ctest's order */
		order[k] = k, k++;
	while (k < d->n) {
		size_t pick = d->n;
		for (size_t i = 0; i < d->n && pick == d->n; i++) {
			if (placed[i])
				continue;
			size_t j = first[i];
			while (j < first[i + 1] && placed[dep[j]])
				j++;
			if (j == first[i + 1])
				pick = i;
		}
		if (pick == d->n) { /* a cycle: the rest as listed */
			for (pick = 0; placed[pick]; pick++)
				;
			if (cycle < 0)
				cycle = (long)pick;
		}
		placed[pick] = 1;
		order[k++] = pick;
	}
	free(placed);
	free(first);
	free(dep);
	return cycle;
}

/* After test t's line (at position k of the listing): what it waits for,
 * by position (pos: a test's position), among the tests listed before it
 * (so a cycle cannot hold the run): each setup test of a fixture it
 * requires ("needs": it is not run when that failed, as ctest's "Failed
 * test dependencies"), then its DEPENDS, where ctest's listing has put
 * its fixtures' setups and, for a cleanup test, the fixture's users. */
static void ct_list_deps(shim *s, const ctest_drv *d, const ct_test *t, const size_t *pos, size_t k)
{
	for (size_t f = 0; t->fx_required && t->fx_required[f]; f++)
		for (size_t i = 0; i < d->n; i++)
			if (&d->v[i] != t && pos[i] < k && d->v[i].fx_setup &&
			    in_list((const char *const *)d->v[i].fx_setup, t->fx_required[f]))
				shim_test_after(s, pos[i],
				                *t->fx_required[f] ? t->fx_required[f] : NULL);
	for (size_t j = 0; t->depends && t->depends[j]; j++) {
		const char *nm = t->depends[j];
		long at = shim_names_find(d->names, nm, strlen(nm));
		if (at >= 0 && pos[at] < k)
			shim_test_after(s, pos[at], NULL);
	}
}

static int ct_list(shim *s)
{
	ctest_drv *d = shim_ctx(s);
	if (!d->listed && ct_load(s, d) < 0)
		return -1;
	ct_say(s, d);
	size_t *order = malloc((d->n ? d->n : 1) * sizeof(size_t));
	size_t *pos = malloc((d->n ? d->n : 1) * sizeof(size_t));
	if (!order || !pos) {
		free(order);
		free(pos);
		fprintf(stderr, "memguard: out of memory ordering the CTest tests\n");
		return -1;
	}
	long cycle = ct_order(d, order);
	for (size_t k = 0; k < d->n; k++)
		pos[order[k]] = k;
	if (cycle >= 0) /* as ctest: says so and runs no test (and exits 0) */
		fprintf(stderr,
		        "memguard: a cycle exists in the test dependency graph (DEPENDS) of the "
		        "CTest tests, from \"%s\" on: ctest runs no test then, nor does memguard\n",
		        d->v[cycle].name);
	for (size_t k = 0; cycle < 0 && k < d->n; k++) {
		const ct_test *t = &d->v[order[k]];
		shim_test(s, t->name, strlen(t->name));
		ct_list_deps(s, d, t, pos, k);
	}
	free(order);
	free(pos);
	return 0;
}

/* ---- serial and locked tests: flock(2) on files every lane's shim of this
 * test directory opens, so they hold across lanes (and across runs). They
 * live in a directory of this user's own, TMPDIR/memguard-ctest-UID (0700,
 * checked: a directory, not a link, ours, no one else may write it; when
 * another user took that name first, -1 ... -7 after it): no other user can
 * plant a link there, nor hold a lock to block the run. A lock file is
 * removed by whoever holds it exclusively when done, the directory when it
 * is empty; a lock is taken again when its file was replaced meanwhile. ---- */

#define LOCK_DIR_TRIES 8
#define LOCK_SERIAL    "\001serial" /* the serial lock's name: no test's RESOURCE_LOCK */
#define LOCK_SLOT      "\001slot "  /* a lane's slot's, then "RUN SLOT" */

static uint64_t fnv1a(const char *p)
{
	uint64_t h = 1469598103934665603ull;
	for (; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	return h;
}

/* The lock directory's path (made and checked by lock_dir_make) and the
 * hash of the test directory and the run that prefixes every lock file's
 * name: the run is MG_ENV_LANE's RUN (the runner's pid), so another
 * memguard run of the same directory takes locks of its own, as another
 * ctest does (a ctest's locks hold among its own tests; before, a second
 * run waited for the first's, and its wait was timed as a test's). A run
 * of one lane (no MG_ENV_LANE) takes none. */
static void lock_base(shim *s, ctest_drv *d)
{
	char dir[4096];
	unsigned slot, slots;
	long run = 0;
	d->lock_none = !ct_lane(&slot, &slots, &run);
	ct_test_dir(s, dir);
	d->lock_hash = (fnv1a(dir) ^ ((uint64_t)run * 0x9e3779b97f4a7c15ull)) | 1;
}

/* Makes (0700) or checks the lock directory: an fd of it, or -1 with errno
 * (EPERM when it is not this user's own, private directory). */
static int lock_dir_open(const char *path)
{
	struct stat st;
	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		return -1;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ELOOP || errno == ENOTDIR)
			errno = EPERM; /* a link or a file: not ours to use */
		return -1;
	}
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 077)) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

/* Waits for fd's lock (how): tried first without blocking; when another
 * lane holds it, the runner is told the head waits (shim_wait: it times
 * no test meanwhile, as ctest starts a test only once its locks are free),
 * once a test, and then the lock is waited for. */
static void lock_wait(shim *s, ctest_drv *d, int fd, const char *what, int how)
{
	if (flock(fd, how | LOCK_NB) == 0)
		return;
	if (errno == EWOULDBLOCK && !d->lock_waited) {
		char why[300];
		if (!strcmp(what, LOCK_SERIAL))
			snprintf(why, sizeof(why), "RUN_SERIAL: the other lanes' tests");
		else if (!strncmp(what, LOCK_SLOT, strlen(LOCK_SLOT)))
			snprintf(why, sizeof(why), "PROCESSORS: another lane's test");
		else
			snprintf(why, sizeof(why), "RESOURCE_LOCK %.200s", what);
		d->lock_waited = 1;
		shim_wait(s, why);
	}
	while (flock(fd, how) < 0 && errno == EINTR)
		;
}

/* Opens and locks (how: LOCK_SH or LOCK_EX) the lock file of what; its path
 * in d->lock_path[slot]. -1 with d->lock_err set when no lock directory of
 * ours could be had. Waits while another process of this user holds it
 * (lock_wait). */
static int lock_hold(shim *s, ctest_drv *d, const char *what, int how, char *path, size_t size)
{
	const char *tmp = getenv("TMPDIR"), *run = getenv(MG_ENV_RUN_DIR);
	tmp = tmp && *tmp ? tmp : "/tmp";
	path[0] = 0;
	for (int tries = 0; tries < 100; tries++) {
		char dir[LOCK_DIR_MAX];
		int k = d->lock_try;
		if (k >= LOCK_DIR_TRIES) {
			snprintf(
			    d->lock_err, sizeof(d->lock_err),
			    "no lock directory of this user's own: %.300s/memguard-ctest-%ld (and "
			    "-1 to -%d after it) belong to another user or are not private "
			    "directories",
			    tmp, (long)geteuid(), LOCK_DIR_TRIES - 1);
			return -1;
		}
		if (k == 0 && run && *run) /* the run's own: the runner removes it at its end */
			snprintf(dir, sizeof(dir), "%s/ctest-locks", run);
		else if (k == 0)
			snprintf(dir, sizeof(dir), "%s/memguard-ctest-%ld", tmp, (long)geteuid());
		else
			snprintf(dir, sizeof(dir), "%s/memguard-ctest-%ld-%d", tmp, (long)geteuid(),
			         k);
		int dfd = lock_dir_open(dir);
		if (dfd < 0) {
			if (errno != EPERM && errno != ENOENT) {
				snprintf(d->lock_err, sizeof(d->lock_err),
				         "lock directory %.400s: %s", dir, strerror(errno));
				return -1;
			}
			if (errno == EPERM)
				d->lock_try++; /* someone else's: the next name */
			continue;
		}
		char name[64];
		snprintf(name, sizeof(name), "%016llx-%016llx.lock",
		         (unsigned long long)d->lock_hash, (unsigned long long)fnv1a(what));
		snprintf(path, size, "%s/%s", dir, name);
		int fd =
		    openat(dfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600);
		if (fd >= 0) {
			lock_wait(s, d, fd, what, how);
			/* still the file at its name (its holder removes it when done)? */
			struct stat held, now;
			if (fstat(fd, &held) == 0 &&
			    fstatat(dfd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
			    held.st_ino == now.st_ino && held.st_dev == now.st_dev) {
				close(dfd);
				return fd;
			}
			close(fd);
		}
		/* the directory or the file was removed meanwhile: again */
		close(dfd);
	}
	snprintf(d->lock_err, sizeof(d->lock_err), "lock %.400s keeps being replaced", path);
	return -1;
}

/* Removes a lock file held exclusively, then its directory if empty. */
static void lock_remove(const char *path)
{
	unlink(path);
	char dir[LOCK_PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash) {
		*slash = 0;
		rmdir(dir); /* fails while another lock is in it: fine */
	}
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every test holds the serial lock shared, a RUN_SERIAL one exclusive; a
 * RESOURCE_LOCK name is an exclusive lock taken in name order (no
 * deadlock between two tests sharing two names). Blocks. -1 (d->lock_err
 * says why) when the locks cannot be had. */
static int locks_acquire(shim *s, ctest_drv *d, ct_test *t)
{
	if (!d->lock_hash)
		lock_base(s, d);
	if (d->lock_none)
		return 0;
	/* the serial lock is taken afresh per test: its file may be removed
	 * between tests by another run that ended */
	d->lock_waited = 0;
	d->serial_fd = lock_hold(s, d, LOCK_SERIAL, t->serial ? LOCK_EX : LOCK_SH, d->serial_path,
	                         sizeof(d->serial_path));
	if (d->serial_fd < 0)
		return -1;
	/* then its lanes' slots, in slot order (ct_slots): its own, and for
	 * PROCESSORS P the P - 1 after it (at most every lane, as ctest caps P
	 * at -j); a test waiting for a slot holds none */
	unsigned take = d->slots ? 1 : 0;
	if (t->processors > 1 && d->slots)
		take = (unsigned)t->processors < d->slots ? (unsigned)t->processors : d->slots;
	for (unsigned k = 0; k < d->slots && take && d->nheld < 32; k++) {
		if ((k + d->slots - d->slot) % d->slots >= take)
			continue; /* not one of its */
		char what[64];
		snprintf(what, sizeof(what), LOCK_SLOT "%ld %u", d->slot_run, k);
		int fd =
		    lock_hold(s, d, what, LOCK_EX, d->held_path[d->nheld], sizeof(d->held_path[0]));
		if (fd < 0)
			return -1;
		d->held[d->nheld++] = fd;
	}
	size_t n = 0;
	while (t->locks && t->locks[n])
		n++;
	if (n > 1)
		qsort(t->locks, n, sizeof(char *), str_cmp);
	for (size_t i = 0; i < n && d->nheld < (int)(sizeof(d->held) / sizeof(d->held[0])); i++) {
		int fd = lock_hold(s, d, t->locks[i], LOCK_EX, d->held_path[d->nheld],
		                   sizeof(d->held_path[0]));
		if (fd < 0)
			return -1;
		d->held[d->nheld++] = fd;
	}
	return 0;
}

/* Lets the locks go; the files of exclusive ones are removed, and the
 * serial one's when no one else holds it. */
static void locks_release(ctest_drv *d)
{
	while (d->nheld) {
		d->nheld--;
		lock_remove(d->held_path[d->nheld]);
		close(d->held[d->nheld]);
	}
	if (d->serial_fd >= 0) {
		if (flock(d->serial_fd, LOCK_EX | LOCK_NB) == 0)
			lock_remove(d->serial_path);
		close(d->serial_fd);
		d->serial_fd = -1;
	}
}

/* Lets the locks go once the result before is out: a lane waiting for one
 * starts its test only after the runner can have read this result (before,
 * a failure under --stop-on-failure could still be in this shim's buffer
 * when the waiter's start came, and the waiter ran). */
static void locks_release_after(shim *s, ctest_drv *d)
{
	if (d->nheld || d->serial_fd >= 0)
		shim_flush(s);
	locks_release(d);
}

/* ---- running ---- */

static char *regex_from_cmake(const char *cm);

/* The first of t's REQUIRED_FILES that is not there (ctest: not readable,
 * a relative one in its WORKING_DIRECTORY), or NULL. */
static const char *required_missing(const ct_test *t)
{
	for (size_t i = 0; t->required && t->required[i]; i++) {
		const char *f = t->required[i];
		char path[8192];
		if (*f != '/' && t->cwd)
			snprintf(path, sizeof(path), "%s/%s", t->cwd, f);
		else
			snprintf(path, sizeof(path), "%s", f);
		if (!*f || access(path, R_OK) < 0)
			return f;
	}
	return NULL;
}

static void tam_free(ctest_drv *d)
{
	for (size_t i = 0; i < d->ntam; i++)
		regfree(&d->tam[i]);
	free(d->tam);
	d->tam = NULL;
	d->ntam = 0;
}

/* t's TIMEOUT_AFTER_MATCH regexes, compiled for the lines of its output
 * (one that does not compile never matches, as a bad regex does not in
 * ctest). */
static void tam_compile(ctest_drv *d, const ct_test *t)
{
	size_t n = 0;
	tam_free(d);
	while (t->tam_re && t->tam_re[n])
		n++;
	d->tam = n ? calloc(n, sizeof(regex_t)) : NULL;
	for (size_t i = 0; d->tam && i < n; i++) {
		char *ere = regex_from_cmake(t->tam_re[i]);
		if (ere && regcomp(&d->tam[d->ntam], ere, REG_EXTENDED | REG_NOSUB) == 0)
			d->ntam++;
		free(ere);
	}
	if (!d->ntam) {
		free(d->tam);
		d->tam = NULL;
	}
}

/* As ctest, after each line of its output: when one of them matches the
 * output so far (each line with its newline: "^" is the output's start,
 * "$" its end), the test's timeout is TIMEOUT_AFTER_MATCH's seconds from
 * now, once. */
static void tam_match(ctest_drv *d, const char *out)
{
	for (size_t i = 0; i < d->ntam; i++)
		if (regexec(&d->tam[i], out, 0, NULL, 0) == 0) {
			clock_gettime(CLOCK_MONOTONIC, &d->t0);
			d->timeout = d->v[d->cur].tam;
			d->tam_hit = 1;
			tam_free(d);
			break;
		}
}

/*
 * A test's environment as ctest makes it (cmSystemTools::EnvDiff): its
 * ENVIRONMENT first ("NAME=VALUE" sets, a NAME alone unsets), then its
 * ENVIRONMENT_MODIFICATION's "NAME=OP:VALUE" in order, as one diff over
 * that: reset drops what the diff had for NAME (back to ENVIRONMENT's or
 * ctest's own value), set, unset, and the appends and prepends, which
 * extend the diff's value, or when it has none (also after an unset: as
 * ctest does) the value the environment has then; path lists join with
 * ':', CMake lists with ';', neither when the value is empty.
 */
typedef struct ct_var {
	char *name;
	char *value; /* NULL: unset */
	char *saved; /* the shim's value before (NULL: none), put back after */
} ct_var;

typedef struct ct_env {
	ct_var *v;
	size_t n;
} ct_env;

/* NAME's value in env ("NAME=VALUE" entries), or NULL. */
static const char *env_value(char *const *env, const char *name, size_t nl)
{
	for (size_t i = 0; env && env[i]; i++)
		if (!strncmp(env[i], name, nl) && env[i][nl] == '=')
			return env[i] + nl + 1;
	return NULL;
}

static long env_find(const ct_env *e, const char *name, size_t nl)
{
	for (size_t i = 0; i < e->n; i++)
		if (strlen(e->v[i].name) == nl && !strncmp(e->v[i].name, name, nl))
			return (long)i;
	return -1;
}

/* Sets NAME (nl bytes) to value (NULL: unset) in e. -1: out of memory. */
static int env_put(ct_env *e, const char *name, size_t nl, const char *value)
{
	long i = env_find(e, name, nl);
	char *v = value ? strdup(value) : NULL;
	if (value && !v)
		return -1;
	if (i < 0) {
		ct_var *grown = realloc(e->v, (e->n + 1) * sizeof(ct_var));
		char *n = strndup(name, nl);
		if (!grown || !n) {
			if (grown)
				e->v = grown;
			free(n);
			free(v);
			return -1;
		}
		e->v = grown;
		i = (long)e->n++;
		e->v[i].name = n;
		e->v[i].saved = NULL;
	} else {
		free(e->v[i].value);
	}
	e->v[i].value = v;
	return 0;
}

static void env_free(ct_env *e)
{
	for (size_t i = 0; i < e->n; i++) {
		free(e->v[i].name);
		free(e->v[i].value);
		free(e->v[i].saved);
	}
	free(e->v);
	e->v = NULL;
	e->n = 0;
}

/* One ENVIRONMENT_MODIFICATION entry applied to diff over env (the
 * ENVIRONMENT's changes over the shim's). 0; -1 with err set (ctest's
 * words) when it is not one; -2 out of memory. */
static int env_modify(shim *s, const ct_env *env, ct_env *diff, const char *mod, char *err,
                      size_t errsz)
{
	static const char *const ops[] = {"reset",
	                                  "set",
	                                  "unset",
	                                  "string_append",
	                                  "string_prepend",
	                                  "path_list_append",
	                                  "path_list_prepend",
	                                  "cmake_list_append",
	                                  "cmake_list_prepend",
	                                  NULL};
	const char *eq = strchr(mod, '='), *colon = eq ? strchr(eq + 1, ':') : NULL;
	if (!eq) {
		snprintf(err, errsz, "Missing `=` after the variable name in: %.300s", mod);
		return -1;
	}
	if (!colon) {
		snprintf(err, errsz, "Missing `:` after the operation in: %.300s", mod);
		return -1;
	}
	size_t nl = (size_t)(eq - mod), ol = (size_t)(colon - eq - 1), op = 0;
	const char *value = colon + 1;
	while (ops[op] && (strlen(ops[op]) != ol || strncmp(ops[op], eq + 1, ol)))
		op++;
	if (!ops[op]) {
		snprintf(err, errsz, "Unrecognized environment manipulation argument: %.*s",
		         (int)(ol > 200 ? 200 : ol), eq + 1);
		return -1;
	}
	long at = env_find(diff, mod, nl);
	if (op == 0) { /* reset */
		if (at >= 0) {
			free(diff->v[at].name);
			free(diff->v[at].value);
			diff->v[at] = diff->v[--diff->n];
		}
		return 0;
	}
	if (op <= 2)
		return env_put(diff, mod, nl, op == 1 ? value : NULL) < 0 ? -2 : 0;
	/* the value now: the diff's, else the environment's at this point */
	const char *cur = at >= 0 ? diff->v[at].value : NULL;
	if (!cur) {
		long e = env_find(env, mod, nl);
		cur = e >= 0 ? env->v[e].value : env_value(shim_env(s), mod, nl);
	}
	cur = cur ? cur : "";
	const char *sep = op == 5 || op == 6 ? ":" : op == 7 || op == 8 ? ";" : "";
	if (!*cur)
		sep = "";
	int append = op == 3 || op == 5 || op == 7;
	size_t len = strlen(cur) + strlen(sep) + strlen(value) + 1;
	char *out = malloc(len);
	if (!out)
		return -2;
	snprintf(out, len, "%s%s%s", append ? cur : value, sep, append ? value : cur);
	int rc = env_put(diff, mod, nl, out);
	free(out);
	return rc < 0 ? -2 : 0;
}

/* t's changes to the shim's environment into out. 0; -1 with err set when
 * an ENVIRONMENT_MODIFICATION entry is not one (ctest: Not Run). */
static int env_build(shim *s, const ct_test *t, ct_env *out, char *err, size_t errsz)
{
	ct_env diff = {0};
	int rc = 0;
	for (size_t i = 0; t->env && t->env[i] && rc == 0; i++) {
		const char *eq = strchr(t->env[i], '=');
		rc = env_put(out, t->env[i], eq ? (size_t)(eq - t->env[i]) : strlen(t->env[i]),
		             eq ? eq + 1 : NULL);
	}
	for (size_t i = 0; t->envmod && t->envmod[i] && rc == 0; i++)
		rc = env_modify(s, out, &diff, t->envmod[i], err, errsz);
	for (size_t i = 0; i < diff.n && rc == 0; i++)
		rc = env_put(out, diff.v[i].name, strlen(diff.v[i].name), diff.v[i].value);
	env_free(&diff);
	if (rc == -2 || (rc < 0 && !err[0]))
		snprintf(err, errsz, "out of memory");
	return rc < 0 ? -1 : 0;
}

/* Puts e's values in the children's environment, keeping the shim's own
 * (restore 0), or puts those back (restore 1). */
static void env_apply(shim *s, ct_env *e, int restore)
{
	for (size_t i = 0; i < e->n; i++) {
		ct_var *v = &e->v[i];
		if (restore) {
			shim_setenv(s, v->name, v->saved);
			continue;
		}
		const char *was = env_value(shim_env(s), v->name, strlen(v->name));
		free(v->saved);
		v->saved = was ? strdup(was) : NULL;
		shim_setenv(s, v->name, v->value);
	}
}

/* Whether ctest runs cmd's tests in its interactive mode: not in a
 * dashboard's run (-M MODEL, --test-model MODEL, -D DASHBOARD: a -D whose
 * value has no '=' is one, not a variable's definition), unless
 * --interactive-debug-mode says; the last of them counts, and only the
 * forms with the value apart, as ctest reads them. */
static int ct_interactive(char *const *cmd, int ncmd)
{
	static const char *const on[] = {"1", "ON", "YES", "TRUE", "Y", NULL};
	int yes = 1;
	for (int i = 1; i + 1 < ncmd; i++) {
		const char *a = cmd[i], *v = cmd[i + 1];
		if (!strcmp(a, "-M") || !strcmp(a, "--test-model"))
			yes = 0;
		else if ((!strcmp(a, "-D") || !strcmp(a, "--dashboard")) && !strchr(v, '='))
			yes = 0;
		else if (!strcmp(a, "--interactive-debug-mode")) {
			yes = 0;
			for (size_t k = 0; on[k]; k++)
				yes |= !strcasecmp(v, on[k]);
			yes |= isdigit((unsigned char)*v) && atoi(v) != 0;
		} else
			continue;
		i++;
	}
	return yes;
}

/* What ctest puts in each test's environment (as cmCTestRunTest does), set
 * once, before the first test: no CTEST_RESOURCE_GROUP_COUNT it did not
 * allocate (memguard refuses a resource spec); CTEST_INTERACTIVE_DEBUG_MODE=1
 * in its interactive mode, else DART_TEST_FROM_DART=1 and
 * DASHBOARD_TEST_FROM_CTEST, its version (from `ctest --version`, only
 * then). */
static void ct_own_env(shim *s, ctest_drv *d)
{
	char *out = NULL, *argv[] = {d->a->cmd[0], "--version", NULL}, version[64] = "";
	size_t len = 0;
	mg_exit_end status;
	d->env_set = 1;
	shim_setenv(s, "CTEST_RESOURCE_GROUP_COUNT", NULL);
	if (ct_interactive(d->a->cmd, d->a->ncmd)) {
		shim_setenv(s, "CTEST_INTERACTIVE_DEBUG_MODE", "1");
		return;
	}
	if (shim_capture(s, argv, &out, &len, &status) == 0 && out) {
		const char *p = memmem(out, len, "version ", 8);
		size_t n = 0;
		for (p = p ? p + 8 : NULL; p && p + n < out + len &&
		                           !isspace((unsigned char)p[n]) && n + 1 < sizeof(version);
		     n++)
			;
		if (p)
			snprintf(version, sizeof(version), "%.*s", (int)n, p);
	}
	free(out);
	shim_setenv(s, "DART_TEST_FROM_DART", "1");
	shim_setenv(s, "DASHBOARD_TEST_FROM_CTEST", version);
}

static void ct_begin(shim *s)
{
	ctest_drv *d = shim_ctx(s);
	size_t n;
	const char *name = shim_queue_name(s, 0, &n);
	if (!d->listed && ct_load(s, d) < 0) {
		shim_start(s);
		shim_resultf(s, MG_MSG_FAIL, "cannot list the CTest tests");
		return;
	}
	long i = shim_names_find(d->names, name, n);
	if (i < 0) {
		shim_start(s);
		shim_resultf(s, MG_MSG_FAIL, "unknown CTest test '%.1000s'", name);
		return;
	}
	if (!d->env_set)
		ct_own_env(s, d);
	/* --stop-on-failure: what the runner gave before its failure came back
	 * is not run, as ctest runs none after */
	if (d->fail_left && shim_failed(s) >= d->fail_left) {
		shim_start(s);
		shim_resultf(s, MG_MSG_SKIP, "%s", d->fail_why);
		return;
	}
	ct_test *t = &d->v[i];
	if (t->disabled) {
		shim_start(s);
		shim_resultf(s, MG_MSG_SKIP, "disabled (CTest property DISABLED)");
		return;
	}
	const char *missing = required_missing(t);
	if (missing) {
		shim_start(s);
		shim_resultf(s, MG_MSG_FAIL,
		             "not run: unable to find required file: %.1000s (REQUIRED_FILES; "
		             "ctest: Not Run)",
		             missing);
		return;
	}
	if (!t->argv) {
		shim_start(s);
		shim_resultf(s, MG_MSG_FAIL, "ctest found no executable for this test (Not Run)");
		return;
	}
	ct_env env = {0};
	char err[512] = "";
	if (env_build(s, t, &env, err, sizeof(err)) < 0) {
		env_free(&env);
		shim_start(s);
		shim_resultf(s, MG_MSG_FAIL,
		             "not run: ENVIRONMENT_MODIFICATION: %s (ctest: Not Run, BAD_COMMAND)",
		             err);
		return;
	}
	if (locks_acquire(s, d, t) < 0) {
		env_free(&env);
		shim_start(s);
		shim_resultf(s, MG_MSG_FAIL, "cannot take its CTest locks: %s", d->lock_err);
		locks_release_after(s, d);
		return;
	}
	int back = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t->cwd && chdir(t->cwd) < 0) {
		int e = errno;
		env_free(&env);
		if (back >= 0)
			close(back);
		shim_start(s);
		shim_resultf(s, MG_MSG_FAIL, "cannot enter its WORKING_DIRECTORY %s: %s", t->cwd,
		             strerror(e));
		locks_release_after(s, d);
		return;
	}
	env_apply(s, &env, 0);
	d->out_len = 0;
	tam_compile(d, t);
	/* a test's output is its stdout and stderr in one stream, read to its
	 * end as ctest reads it (a process the test left running that holds
	 * it holds the test: ops->wait_output_eof); a judged test's is kept
	 * for its regexes (a PASS_REGULAR_EXPRESSION may match either) */
	d->judged = t->pass_re || t->fail_re || t->skip_re || d->ntam;
	int rc = shim_spawn(s, t->argv, SHIM_OUT_MERGED);
	env_apply(s, &env, 1);
	env_free(&env);
	if (back >= 0) {
		if (fchdir(back) < 0)
			fprintf(stderr, "memguard: cannot return to the driver's directory\n");
		close(back);
	}
	d->cur = i;
	d->timed_out = 0;
	d->timeout = t->timeout;
	d->timeout_from = "its TIMEOUT";
	if (t->timeout <= 0 && d->cli_timeout > 0)
		d->timeout = d->cli_timeout, d->timeout_from = "ctest's --timeout";
	else if (!t->has_timeout && d->dart_timeout > 0)
		d->timeout = d->dart_timeout, d->timeout_from = "DartConfiguration.tcl's TimeOut";
	d->tam_hit = 0;
	clock_gettime(CLOCK_MONOTONIC, &d->t0);
	shim_start(s);
	if (rc < 0) {
		shim_resultf(s, MG_MSG_FAIL, "cannot start %s", t->argv[0]);
		locks_release_after(s, d);
	}
}

/* While the test runs (every 1-5 ms): its TIMEOUT (or TIMEOUT_AFTER_MATCH's). */
static void ct_tick(shim *s)
{
	ctest_drv *d = shim_ctx(s);
	struct timespec now;
	if (d->cur < 0 || (!shim_child(s) && !shim_output_held(s)) || d->timeout <= 0)
		return;
	if (d->timed_out) {
		/* killed at its timeout, and ctest drops its read handle there:
		 * a process the kill did not reach holding the output is not
		 * waited for */
		shim_output_abandon(s);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	double el =
	    (double)(now.tv_sec - d->t0.tv_sec) + (double)(now.tv_nsec - d->t0.tv_nsec) / 1e9;
	if (el >= d->timeout) {
		d->timed_out = 1;
		/* exited, a process it left holding its output: ctest stops
		 * reading and times the test out, that process left running */
		d->held_out = shim_output_held(s);
		if (d->held_out)
			shim_output_abandon(s);
		else /* its processes too, as ctest's kill (kwsys) takes the tree */
			shim_child_kill_tree(s);
	}
}

/* A test's output (stdout and stderr): passed on as its output; a judged
 * test's kept for its regexes, and the output so far matched by its
 * TIMEOUT_AFTER_MATCH starts its new timeout. */
static void ct_line(shim *s, char *line, size_t len)
{
	ctest_drv *d = shim_ctx(s);
	if (!d->judged) {
		shim_output(s, line, len);
		if (!shim_line_cut(s))
			shim_output(s, "\n", 1);
		return;
	}
	if (d->out_len + len + 2 > d->out_cap && d->out_len + len + 2 <= (16u << 20)) {
		size_t cap = 2 * (d->out_len + len + 2);
		char *p = realloc(d->out, cap);
		if (p) {
			d->out = p;
			d->out_cap = cap;
		}
	}
	if (d->out_len + len + 2 <= d->out_cap) {
		memcpy(d->out + d->out_len, line, len);
		d->out_len += len;
		if (!shim_line_cut(s))
			d->out[d->out_len++] = '\n';
		d->out[d->out_len] = 0;
	}
	if (d->ntam && d->cur >= 0 && d->out)
		tam_match(d, d->out);
	shim_output(s, line, len);
	if (!shim_line_cut(s))
		shim_output(s, "\n", 1);
}

/*
 * A CMake regular expression (cmsys, Henry Spencer's syntax) as a POSIX
 * extended one: the same but for braces, literal in CMake ("-3{3}" is those
 * five characters, not "-333"), and a backslash, which makes any character
 * literal in CMake where glibc gives "\w", "\s", "\b", "\1" ... meanings.
 * A bracket expression is copied as it is (neither has escapes in it).
 * malloc'd, or NULL.
 */
static char *regex_from_cmake(const char *cm)
{
	size_t n = strlen(cm);
	char *o = malloc(2 * n + 1), *w = o;
	if (!o)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		char c = cm[i];
		if (c == '[') {
			size_t j = i + 1;
			if (j < n && cm[j] == '^')
				j++;
			if (j < n && cm[j] == ']')
				j++;
			while (j < n && cm[j] != ']')
				j++;
			if (j == n) /* unclosed: regcomp says so */
				j = n - 1;
			memcpy(w, cm + i, j - i + 1);
			w += j - i + 1;
			i = j;
		} else if (c == '{' || c == '}') {
			*w++ = '\\';
			*w++ = c;
		} else if (c == '\\' && i + 1 < n) {
			c = cm[++i];
			if (!isalnum((unsigned char)c) && !strchr("<>`'", c))
				*w++ = '\\';
			*w++ = c;
		} else {
			*w++ = c;
		}
	}
	*w = 0;
	return o;
}

/* The first of res (CMake's syntax, on the whole output: '^' is its start,
 * '.' matches a newline too, as in CMake) that matches, or NULL. */
static const char *regex_first(char **res, const char *text)
{
	for (size_t i = 0; res && res[i]; i++) {
		regex_t re;
		char *ere = regex_from_cmake(res[i]);
		int bad = !ere || regcomp(&re, ere, REG_EXTENDED | REG_NOSUB);
		free(ere);
		if (bad)
			continue;
		int hit = regexec(&re, text, 0, NULL, 0) == 0;
		regfree(&re);
		if (hit)
			return res[i];
	}
	return NULL;
}

/* The ended test's verdict, as ctest judges it. */
static void ct_judge(shim *s, ctest_drv *d, ct_test *t, mg_exit_end status, const struct rusage *ru)
{
	tam_free(d);
	if (d->timed_out) {
		if (d->tam_hit)
			shim_resultf(
			    s, MG_MSG_TIMEOUT,
			    "over its TIMEOUT_AFTER_MATCH of %g s after its output matched "
			    "(killed)",
			    d->timeout);
		else if (d->held_out)
			shim_resultf(s, MG_MSG_TIMEOUT,
			             "over %s of %g s: it exited (%s %d), and a process it left "
			             "running held its output open",
			             d->timeout_from, d->timeout,
			             status.signo ? "signal" : "status",
			             status.signo ? status.signo : status.status);
		else
			shim_resultf(s, MG_MSG_TIMEOUT, "over %s of %g s (killed)", d->timeout_from,
			             d->timeout);
		return;
	}
	if (!status.signo && (t->skip_code >= 0 || t->pass_re || t->fail_re || t->skip_re)) {
		/* as ctest judges: a skip first, then the pass regexes (the exit
		 * status does not count then), a fail regex, WILL_FAIL last */
		const char *text = d->out ? d->out : "", *hit;
		int code = status.status, ok;
		if (code == t->skip_code) {
			shim_resultf(s, MG_MSG_SKIP, "SKIP_RETURN_CODE %d", code);
			return;
		}
		if ((hit = regex_first(t->skip_re, text))) {
			shim_resultf(s, MG_MSG_SKIP, "SKIP_REGULAR_EXPRESSION [%s] found", hit);
			return;
		}
		char why[1200];
		if (t->pass_re) {
			ok = regex_first(t->pass_re, text) != NULL;
			snprintf(why, sizeof(why),
			         "no PASS_REGULAR_EXPRESSION found in its output");
		} else {
			ok = code == 0;
			snprintf(why, sizeof(why), "exit status %d", code);
		}
		if (ok && (hit = regex_first(t->fail_re, text))) {
			ok = 0;
			snprintf(why, sizeof(why), "FAIL_REGULAR_EXPRESSION [%.1000s] found", hit);
		}
		if (t->will_fail)
			ok = !ok;
		if (ok)
			shim_result(s, MG_MSG_PASS, NULL, 0);
		else
			shim_resultf(s, MG_MSG_FAIL, "%s%s", why,
			             t->will_fail ? " (WILL_FAIL)" : "");
		return;
	}
	if (t->will_fail && !status.signo) {
		if (status.status)
			shim_result(s, MG_MSG_PASS, NULL, 0);
		else
			shim_resultf(s, MG_MSG_FAIL, "exit status 0 of a WILL_FAIL test");
		return;
	}
	exec_exited(s, status, ru);
}

static void ct_exited(shim *s, mg_exit_end status, const struct rusage *ru)
{
	ctest_drv *d = shim_ctx(s);
	ct_test *t = d->cur >= 0 ? &d->v[d->cur] : NULL;
	d->cur = -1;
	if (shim_head_started(s) && t)
		ct_judge(s, d, t, status, ru);
	locks_release_after(s, d);
}

/*
 * hello's arch: the tests' when every test's program is an ELF executable
 * of one class (a suite of 32-bit programs is x86 and gets x86's limits,
 * whatever ctest itself is); NULL (ctest's own) when they differ, a test
 * runs a script or nothing, or the listing failed (listed again, and said,
 * at list). Lists first: a stat and a 20-byte read per test.
 */
static const char *ct_arch(shim *s)
{
	ctest_drv *d = shim_ctx(s);
	mg_arch arch = MG_ARCH_UNKNOWN;
	char path[4096];
	if (!d->listed && ct_load(s, d) < 0)
		return NULL;
	for (size_t i = 0; i < d->n; i++) {
		mg_arch a;
		if (!d->v[i].argv || spawn_resolve(path, sizeof(path), d->v[i].argv[0], NULL) < 0 ||
		    elf_arch(&a, path, NULL) < 0 || (arch != MG_ARCH_UNKNOWN && a != arch))
			return NULL;
		arch = a;
	}
	return arch == MG_ARCH_X86 ? "x86" : arch == MG_ARCH_X64 ? "x64" : NULL;
}

int ctest_main(const shim_args *a)
{
	static const shim_ops ops = {
	    .measure = SHIM_MEASURE_TREE,
	    .self_recycle = 0, /* every test is a fresh process already */
	    .list = ct_list,
	    .arch = ct_arch,
	    .begin = ct_begin,
	    .exited = ct_exited,
	    .tick = ct_tick,
	    .line = ct_line,
	    /* a judged test's output, read as ctest reads it: to its end */
	    .wait_output_eof = 1,
	};
	static ctest_drv d;
	d.a = a;
	d.cur = -1;
	d.serial_fd = -1;
	/* --stop-on-failure: the failures the run has left (the runner's, set
	 * only under it), read once, as gtest.c's */
	const char *left = getenv(MG_ENV_FAIL_LEFT);
	d.fail_left = left && *left >= '1' && *left <= '9' ? (unsigned)strtoul(left, NULL, 10) : 0;
	if (d.fail_left) {
		driver_fail_fast ff;
		driver_fail_fast_of(&ff, DRIVER_CTEST, a->cmd, a->ncmd);
		driver_fail_fast_why(&ff, DRIVER_CTEST, d.fail_why, sizeof(d.fail_why));
	}
	return shim_main(&ops, &d, a->cmd, a->ncmd);
}

/*
 * driver.c - choosing a driver, and the __driver entry point that hands
 * over to the shim for that kind (see driver.h). Detection reads files and
 * runs nothing.
 */
#include "driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gtest_driver.h"
#include "memguard_host.h"
#include "mg_elf.h"
#include "mg_exit.h"
#include "report.h"
#include "shim.h"
#include "spawn.h"

/*
 * Every GoogleTest binary carries its flag names (gtest.cc parses them from
 * the command line); "gtest_list_tests" is one no other program would.
 */
#define GTEST_MARKER "gtest_list_tests"

/* Catch2 carries its command line's help text: v2 this option name of its
 * own, v3 (which has no such option) the line its -? starts with ("NAME is
 * a Catch2 v3.7.1 host application."; v2 says "a Catch v2..."). */
#define CATCH2_MARKER    "list-test-names-only"
#define CATCH2_V3_MARKER " is a Catch2 v"

static const char *const names[] = {"native", "gtest", "exec", "wrap", "ctest", "catch2", "pytest"};

/* driver_mark's strings, in its order */
static const char *const marks[DRIVER_MARKS] = {MG_HOST_MARKER, GTEST_MARKER, CATCH2_MARKER,
                                                CATCH2_V3_MARKER, "__asan_init"};

/*
 * The markers of path's file into found: what is loaded at run time (its
 * data, .dynstr), and, only when that shows AddressSanitizer's runtime
 * linked in (its messages, without __asan_init in .dynstr: gcc's
 * -static-libasan), its symbol names for __asan_init. A C++ program's
 * symbol names were most of what was read (2.5 of Catch2's UsageTests'
 * 5.9 MB: ~1 ms before its listing, at every run).
 */
static int marks_read(const char *path, int *found)
{
	const char *each[DRIVER_MARKS + 1];
	int got[DRIVER_MARKS + 1];
	memcpy(each, marks, sizeof(marks));
	each[DRIVER_MARKS] = "AddressSanitizer";
	int rc = elf_contains_each_in(path, each, DRIVER_MARKS + 1, got, ELF_SCAN_LOADED, NULL);
	if (rc == 0 && !got[DRIVER_MARK_ASAN] && got[DRIVER_MARKS])
		rc = elf_contains_each_in(path, &marks[DRIVER_MARK_ASAN], 1, &got[DRIVER_MARK_ASAN],
		                          ELF_SCAN_SYMBOL_NAMES, NULL);
	memcpy(found, got, DRIVER_MARKS * sizeof(int));
	return rc;
}

/*
 * Every marker of the file last asked about, read in one pass
 * (elf_contains_each) and kept while the file is the same one (device,
 * inode, size, modification time): detection, the explicit driver's
 * check, Catch2's version and the ASan check each asked for the whole file
 * again (a program without the host library's marker was read to its end
 * for each).
 */
int driver_has_mark(const char *path, driver_mark m)
{
	static struct {
		char path[4096];
		dev_t dev;
		ino_t ino;
		off_t size;
		struct timespec mtime;
		int rc;
		int found[DRIVER_MARKS];
	} last;
	struct stat st;
	if ((unsigned)m >= DRIVER_MARKS || stat(path, &st) < 0)
		return -1;
	if (strcmp(last.path, path) || last.dev != st.st_dev || last.ino != st.st_ino ||
	    last.size != st.st_size || last.mtime.tv_sec != st.st_mtim.tv_sec ||
	    last.mtime.tv_nsec != st.st_mtim.tv_nsec) {
		last.rc = marks_read(path, last.found);
		last.path[0] = 0;
		if (strlen(path) < sizeof(last.path))
			memcpy(last.path, path, strlen(path) + 1);
		last.dev = st.st_dev;
		last.ino = st.st_ino;
		last.size = st.st_size;
		last.mtime = st.st_mtim;
	}
	return last.rc < 0 ? last.rc : last.found[m];
}

int driver_parse(driver_kind *out, const char *name, mg_err *err)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i])) {
			*out = (driver_kind)i;
			return 0;
		}
	return mg_err_set(err, MG_EINVAL,
	                  "unknown driver '%s' (known: native, gtest, exec, wrap, ctest, catch2, "
	                  "pytest)",
	                  name);
}

const char *driver_name(driver_kind k)
{
	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "unknown";
}

const char *driver_noprobe_why(unsigned code)
{
	static const char *const why[DRIVER_NOPROBES] = {
	    [DRIVER_NOPROBE_NOT_ELF] = "not an x86/x64 ELF executable (no probe)",
	    [DRIVER_NOPROBE_STATIC] = "a static executable (no LD_PRELOAD, no probe)",
	    [DRIVER_NOPROBE_NOT_FOUND] = "the probe library libmemguard_probe.so was not found",
	    [DRIVER_NOPROBE_PATH] = "the probe library's path has a space or a colon (LD_PRELOAD)",
	};
	return code < DRIVER_NOPROBES ? why[code] : NULL;
}

int driver_serves_protocol(driver_kind k)
{
	return k == DRIVER_NATIVE || k == DRIVER_PYTEST;
}

driver_kind driver_detect_command(const char *path, char *const *argv, int argc, char *note,
                                  size_t size)
{
	note[0] = 0;
	return pytest_args_at(argv, argc) >= 0 ? DRIVER_PYTEST : driver_detect(path, note, size);
}

driver_kind driver_detect(const char *path, char *note, size_t size)
{
	const char *base = strrchr(path, '/');
	note[0] = 0;
	if (!strcmp(base ? base + 1 : path, "ctest"))
		return DRIVER_CTEST;
	if (driver_has_mark(path, DRIVER_MARK_HOST) == 1)
		return DRIVER_NATIVE;
	if (driver_has_mark(path, DRIVER_MARK_GTEST) == 1)
		return DRIVER_GTEST;
	if (driver_has_mark(path, DRIVER_MARK_CATCH2) == 1 ||
	    driver_has_mark(path, DRIVER_MARK_CATCH2_V3) == 1)
		return DRIVER_CATCH2;
	/* the framework (or the host library) linked as a shared library the
	 * program needs: libCatch2.so, libgtest.so */
	char lib[4096];
	if (elf_needed_contains(path, MG_HOST_MARKER, lib, sizeof(lib), NULL) == 1)
		return DRIVER_NATIVE;
	if (elf_needed_contains(path, GTEST_MARKER, lib, sizeof(lib), NULL) == 1)
		return DRIVER_GTEST;
	if (elf_needed_contains(path, CATCH2_V3_MARKER, lib, sizeof(lib), NULL) == 1)
		return DRIVER_CATCH2;
	snprintf(note, size,
	         "%s does not carry the memguard host library: running it whole with "
	         "--driver wrap (no per-test results)",
	         path);
	return DRIVER_WRAP;
}

/* check on a GoogleTest command with its flag files read in place (their
 * flags count where they are), or as given when they cannot be read. */
static int gtest_expanded(int (*check)(char *const *, int, mg_err *), char *const *argv, int argc,
                          mg_err *err)
{
	gtest_cmd c;
	if (gtest_cmd_expand(&c, argv, argc) < 0)
		return check(argv, argc, err);
	int rc = check(c.argv, c.argc, err);
	gtest_cmd_free(&c);
	return rc;
}

int driver_check_args(driver_kind k, char *const *argv, int argc, mg_err *err)
{
	if (k == DRIVER_PYTEST)
		return pytest_check_args(argv, argc, err);
	if (k == DRIVER_CTEST)
		return ctest_check_args(argv, argc, err);
	return k == DRIVER_GTEST ? gtest_expanded(gtest_check_args, argv, argc, err) : 0;
}

int driver_runs_none(driver_kind k, char *const *argv, int argc, mg_err *err)
{
	if (k == DRIVER_CATCH2)
		return catch2_runs_none(argv, argc, err);
	if (k == DRIVER_GTEST)
		return gtest_expanded(gtest_runs_none, argv, argc, err);
	if (k != DRIVER_CTEST)
		return 0;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-N") || !strcmp(argv[i], "--show-only") ||
		    !strncmp(argv[i], "--show-only=", 12))
			/* before: left out with a note, and the whole suite ran */
			return mg_err_set(err, MG_EINVAL,
			                  "ctest's '%s' runs no test: 'memguard list' lists them "
			                  "(or run ctest %s itself)",
			                  argv[i], argv[i]);
	return 0;
}

/* What an executable is, in words, for a contradicted --driver. */
static const char *detected_what(driver_kind k)
{
	return k == DRIVER_NATIVE   ? "a memguard host (--driver native)"
	       : k == DRIVER_GTEST  ? "a GoogleTest program (--driver gtest)"
	       : k == DRIVER_CATCH2 ? "a Catch2 program (--driver catch2)"
	       : k == DRIVER_CTEST  ? "ctest (--driver ctest)"
	                            : "neither a GoogleTest nor a Catch2 program (--driver wrap "
	                              "or exec)";
}

/* 1 when path, or a library it needs, carries the markers of a k program
 * (Catch2: v2's or v3's; v2 is header-only). */
static int driver_marked(driver_kind k, const char *path)
{
	char lib[4096];
	if (k == DRIVER_GTEST)
		return driver_has_mark(path, DRIVER_MARK_GTEST) == 1 ||
		       elf_needed_contains(path, GTEST_MARKER, lib, sizeof(lib), NULL) == 1;
	return driver_has_mark(path, DRIVER_MARK_CATCH2) == 1 ||
	       driver_has_mark(path, DRIVER_MARK_CATCH2_V3) == 1 ||
	       elf_needed_contains(path, CATCH2_V3_MARKER, lib, sizeof(lib), NULL) == 1;
}

/* 1 when path is an ELF file carrying a k program's markers. */
static int elf_marked(driver_kind k, const char *path)
{
	mg_arch arch;
	return elf_arch(&arch, path, NULL) == 0 && driver_marked(k, path);
}

int driver_check(driver_kind k, const char *path, char *const argv[], mg_err *err)
{
	char note[512], arg[4096];
	mg_arch arch;
	int framework = k == DRIVER_GTEST || k == DRIVER_CATCH2;
	if (!framework && k != DRIVER_CTEST && k != DRIVER_NATIVE)
		return 0;
	/* a script (or anything not an ELF) may start either: it cannot be told */
	if (elf_arch(&arch, path, NULL) < 0)
		return 0;
	if (framework && driver_marked(k, path))
		return 0;
	driver_kind is = driver_detect(path, note, sizeof(note));
	if (!framework) {
		/* a framework's program under ctest or native runs its whole suite
		 * for the listing (GoogleTest ignores --show-only=json-v1), twice
		 * for ctest, then fails the run: what it is is said instead */
		if (is == k || (is != DRIVER_GTEST && is != DRIVER_CATCH2 && is != DRIVER_NATIVE))
			return 0;
	} else {
		/* a wrapper (env, taskset, valgrind) that starts the program it names */
		for (int i = 1; is == DRIVER_WRAP && argv && argv[i]; i++)
			if (spawn_resolve(arg, sizeof(arg), argv[i], NULL) == 0 &&
			    elf_marked(k, arg))
				return 0;
	}
	return mg_err_set(err, MG_EINVAL, "--driver %s: '%s' is %s", driver_name(k), path,
	                  detected_what(is));
}

void driver_fail_fast_of(driver_fail_fast *out, driver_kind k, char *const *argv, int argc)
{
	out->limit = 0;
	out->opt[0] = 0;
	if (k == DRIVER_GTEST) {
		gtest_cmd c; /* its flag files' flags count where they are */
		if (gtest_cmd_expand(&c, argv, argc) == 0) {
			gtest_fail_fast(out, c.argv, c.argc);
			gtest_cmd_free(&c);
		}
	} else if (k == DRIVER_CATCH2) {
		catch2_fail_fast(out, argv, argc);
	} else if (k == DRIVER_CTEST) {
		for (int i = 1; i < argc; i++)
			if (!strcmp(argv[i], "--stop-on-failure")) {
				out->limit = 1;
				snprintf(out->opt, sizeof(out->opt), "%s", argv[i]);
			}
	}
}

void driver_order_of(driver_order *out, driver_kind k, int catch2_v3, char *const *argv, int argc)
{
	memset(out, 0, sizeof(*out));
	if (k == DRIVER_GTEST) {
		gtest_cmd c; /* its flag files' flags count where they are */
		if (gtest_cmd_expand(&c, argv, argc) == 0) {
			gtest_order_read(out, c.argv, c.argc);
			gtest_cmd_free(&c);
		}
	} else if (k == DRIVER_CATCH2) {
		catch2_order(out, catch2_v3, argv, argc);
	}
}

unsigned long driver_order_seed(driver_kind k)
{
	uint32_t r;
	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		struct timespec t;
		clock_gettime(CLOCK_REALTIME, &t);
		r = (uint32_t)t.tv_nsec ^ (uint32_t)t.tv_sec ^ ((uint32_t)getpid() << 16);
	}
	if (k == DRIVER_GTEST)
		return r % 99999u + 1;
	return r ? r : 1;
}

void driver_order_opt(driver_kind k, unsigned long seed, char *out, size_t n)
{
	if (k == DRIVER_GTEST)
		snprintf(out, n, "--gtest_random_seed=%lu", seed);
	else
		snprintf(out, n, "--rng-seed %lu", seed);
}

void driver_fail_fast_why(const driver_fail_fast *ff, driver_kind k, char *out, size_t n)
{
	if (k == DRIVER_CATCH2)
		snprintf(out, n, REPORT_FAIL_FAST_CATCH2 "%s, as %s asks",
		         !strcmp(ff->opt, "-a") || !strcmp(ff->opt, "--abort") ? "" : "s", ff->opt);
	else if (k == DRIVER_CTEST)
		snprintf(out, n, REPORT_FAIL_FAST_CTEST ", as %s asks", ff->opt);
	else
		snprintf(out, n, "not run: GoogleTest stopped the run after a failure, as %s asks",
		         ff->opt);
}

static int usage_error(const char *what, const char *tok)
{
	fprintf(stderr, "memguard __driver: %s '%s' (this command is started by memguard run)\n",
	        what, tok);
	return 2;
}

int driver_main(int argc, char **argv)
{
	shim_args a = {.asan = -1, .catch2_v3 = -1};
	driver_kind k = DRIVER_WRAP;
	int i = 2;
	if (argc < 2 || driver_parse(&k, argv[1], NULL) < 0 || k == DRIVER_NATIVE)
		return usage_error(
		    "needs a driver: gtest, exec, wrap, ctest, catch2 or pytest, not",
		    argc > 1 ? argv[1] : "");
	for (; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--shell")) {
			a.shell = 1;
		} else if (!strcmp(argv[i], "--skip-code") && i + 1 < argc) {
			a.skip_code = atoi(argv[++i]) + 1;
		} else if ((!strcmp(argv[i], "--asan") || !strcmp(argv[i], "--catch2-v3")) &&
		           i + 1 < argc &&
		           (!strcmp(argv[i + 1], "0") || !strcmp(argv[i + 1], "1"))) {
			*(argv[i][2] == 'a' ? &a.asan : &a.catch2_v3) = argv[i + 1][0] == '1';
			i++;
		} else if ((!strcmp(argv[i], "--list-cmd") || !strcmp(argv[i], "--list-file")) &&
		           i + 1 < argc) {
			*(argv[i][7] == 'c' ? &a.list_cmd : &a.list_file) = argv[i + 1];
			i++;
		} else {
			return usage_error("unknown option", argv[i]);
		}
	}
	if (i + 1 >= argc)
		return usage_error("no command after", "--");
	a.cmd = argv + i + 1;
	a.ncmd = argc - i - 1;
	if (k == DRIVER_EXEC && !a.list_cmd && !a.list_file)
		return usage_error("the exec driver needs --list-cmd or --list-file, got", "");
	return k == DRIVER_GTEST    ? gtest_main(&a)
	       : k == DRIVER_EXEC   ? exec_main(&a)
	       : k == DRIVER_CTEST  ? ctest_main(&a)
	       : k == DRIVER_CATCH2 ? catch2_main(&a)
	       : k == DRIVER_PYTEST ? pytest_main(&a)
	                            : wrap_main(&a);
}

int driver_catch2_allows_none(char *const *argv, int argc)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--allow-running-no-tests"))
			return 1;
	return 0;
}

int driver_no_tests_exit(driver_kind k, char *const *argv, int argc, int selected, const char **who)
{
	int spec = 0;
	*who = NULL;
	switch (k) {
	case DRIVER_GTEST: /* 1.12: "[  PASSED  ] 0 tests.", also for a filter or shard of none */
		*who = "GoogleTest";
		return MG_EXIT_OK;
	case DRIVER_CTEST: /* "No tests were found!!!", exit 0; --no-tests=error: 8 */
		*who = "ctest";
		for (int i = argc - 1; i > 0; i--)
			if (!strncmp(argv[i], "--no-tests=", 11))
				return strcmp(argv[i] + 11, "error") ? MG_EXIT_OK
				                                     : MG_EXIT_NO_TESTS;
		return MG_EXIT_OK;
	case DRIVER_CATCH2:
		if (argc < 1 || driver_catch2_v3(argv[0])) {
			*who = "Catch2 v3"; /* "No tests ran", exit 2 */
			return MG_EXIT_NO_TESTS;
		}
		*who = "Catch2 v2"; /* "No tests ran", exit 0; with -w NoTests, a spec of none 2 */
		return catch2_warns_no_tests(argv, argc, &spec) && (selected || spec)
		           ? MG_EXIT_NO_TESTS
		           : MG_EXIT_OK;
	case DRIVER_NATIVE: /* standalone: "0 passed, 0 failed, 0 skipped", exit 0 */
		*who = "the memguard host";
		return selected ? MG_EXIT_NO_TESTS : MG_EXIT_OK;
	case DRIVER_PYTEST:
		*who = "pytest"; /* exit 5 */
		return MG_EXIT_NO_TESTS;
	default: /* exec, wrap: no framework's word; memguard's own (pytest's) */
		return MG_EXIT_NO_TESTS;
	}
}

int driver_catch2_v3(const char *cmd)
{
	char path[4096];
	return !(spawn_resolve(path, sizeof(path), cmd, NULL) == 0 &&
	         driver_has_mark(path, DRIVER_MARK_CATCH2) == 1);
}

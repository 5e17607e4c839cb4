/*
 * test_parse.c - the drivers' pure parts: GoogleTest's list and result
 * lines, the exec template (a name is one argument, never shell text), the
 * wrap test name, and driver detection by marker.
 */
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "mg_test.h"
#include "shim.h"

typedef struct names {
	char v[32][64];
	size_t n;
} names;

static void add(void *ctx, const char *name, size_t n)
{
	names *l = ctx;
	if (l->n < 32 && n < 64) {
		memcpy(l->v[l->n], name, n);
		l->v[l->n++][n] = 0;
	}
}

static void gtest_list(void)
{
	static const char out[] = "Running main() from gtest_main.cc\n"
	                          "Basic.\n"
	                          "  Adds\n"
	                          "  DISABLED_Off\n"
	                          "Typed/0.  # TypeParam = int\n"
	                          "  Works\n"
	                          "Small/Square.\n"
	                          "  Works/0  # GetParam() = 1\n"
	                          "  Works/1  # GetParam() = \"a  # b\"\n"
	                          "Last.\r\n"
	                          "  Passes\r\n"
	                          "  NoNewline";
	names l = {0};
	CU_ASSERT_EQUAL(gtest_parse_list(out, sizeof(out) - 1, add, &l), 7);
	CU_ASSERT_STRING_EQUAL(l.v[0], "Basic.Adds");
	CU_ASSERT_STRING_EQUAL(l.v[1], "Basic.DISABLED_Off");
	CU_ASSERT_STRING_EQUAL(l.v[2], "Typed/0.Works");
	CU_ASSERT_STRING_EQUAL(l.v[3], "Small/Square.Works/0");
	CU_ASSERT_STRING_EQUAL(l.v[4], "Small/Square.Works/1");
	CU_ASSERT_STRING_EQUAL(l.v[5], "Last.Passes");
	CU_ASSERT_STRING_EQUAL(l.v[6], "Last.NoNewline");
}

static int match(const char *line, const char *tag, char *name)
{
	const char *p;
	size_t n;
	if (!gtest_match(line, strlen(line), tag, &p, &n))
		return 0;
	memcpy(name, p, n);
	name[n] = 0;
	return 1;
}

static void gtest_lines(void)
{
	char n[128];
	CU_ASSERT(match("[ RUN      ] Basic.Adds", "[ RUN      ]", n));
	CU_ASSERT_STRING_EQUAL(n, "Basic.Adds");
	CU_ASSERT(match("[       OK ] Basic.Adds (0 ms)", "[       OK ]", n));
	CU_ASSERT_STRING_EQUAL(n, "Basic.Adds");
	CU_ASSERT(match("[  FAILED  ] Small/Square.Works/1, where GetParam() = 2 (1 ms)",
	                "[  FAILED  ]", n));
	CU_ASSERT_STRING_EQUAL(n, "Small/Square.Works/1");
	CU_ASSERT(match("[  FAILED  ] Typed/0.Works, where TypeParam = int", "[  FAILED  ]", n));
	CU_ASSERT_STRING_EQUAL(n, "Typed/0.Works");
	CU_ASSERT(match("[  SKIPPED ] Basic.Skips (0 ms)", "[  SKIPPED ]", n));
	/* the recap's count line and other tags are not results */
	CU_ASSERT(!match("[  FAILED  ] 1 test, listed below:", "[  FAILED  ]", n));
	CU_ASSERT(!match("[       OK ] Basic.Adds", "[  FAILED  ]", n));
	CU_ASSERT(!match("[  FAILED  ] ", "[  FAILED  ]", n));
}

static void exec_template(void)
{
	const char *hostile = "it's a \"test\" with $HOME; rm -rf / `x` {}";
	char *t1[] = {"./t.sh", "{}"};
	char **a = exec_argv(t1, 2, 0, hostile);
	CU_ASSERT_STRING_EQUAL(a[0], "./t.sh");
	CU_ASSERT_STRING_EQUAL(a[1], hostile);
	CU_ASSERT_PTR_NULL(a[2]);
	exec_argv_free(a);

	char *t2[] = {"./prog", "--gtest_filter={}", "-v"};
	a = exec_argv(t2, 3, 0, "A.b");
	CU_ASSERT_STRING_EQUAL(a[1], "--gtest_filter=A.b");
	CU_ASSERT_STRING_EQUAL(a[2], "-v");
	exec_argv_free(a);

	char *t3[] = {"./prog", "--run"}; /* no {}: the name comes last */
	a = exec_argv(t3, 2, 0, "x y");
	CU_ASSERT_STRING_EQUAL(a[2], "x y");
	CU_ASSERT_PTR_NULL(a[3]);
	exec_argv_free(a);

	char *t4[] = {"./t.sh", "--name", "{}", "|", "tee", "log"};
	a = exec_argv(t4, 6, 1, hostile);
	CU_ASSERT_STRING_EQUAL(a[0], "/bin/sh");
	CU_ASSERT_STRING_EQUAL(a[1], "-c");
	CU_ASSERT_STRING_EQUAL(a[2], "./t.sh --name \"$1\" | tee log");
	CU_ASSERT_STRING_EQUAL(a[3], "sh");
	CU_ASSERT_STRING_EQUAL(a[4], hostile);
	CU_ASSERT_PTR_NULL(a[5]);
	exec_argv_free(a);

	char *t5[] = {"./t.sh"};
	a = exec_argv(t5, 1, 1, "n");
	CU_ASSERT_STRING_EQUAL(a[2], "./t.sh \"$1\"");
	exec_argv_free(a);
}

static void wrap_names(void)
{
	char b[256];
	char *c1[] = {"make", "check"};
	wrap_name(b, sizeof(b), c1, 2);
	CU_ASSERT_STRING_EQUAL(b, "wrap/make check");
	char *c2[] = {"sh", "-c", "a\nb"};
	wrap_name(b, sizeof(b), c2, 3);
	CU_ASSERT_STRING_EQUAL(b, "wrap/sh -c a b");
	char longer[600];
	memset(longer, 'x', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = 0;
	char *c3[] = {longer};
	wrap_name(b, sizeof(b), c3, 1);
	CU_ASSERT(strlen(b) < 200);
	CU_ASSERT(strstr(b, "...") != NULL);
}

static void detect(void)
{
	char note[512];
	CU_ASSERT_EQUAL(driver_detect(GTEST_SAMPLE, note, sizeof(note)), DRIVER_GTEST);
	CU_ASSERT_STRING_EQUAL(note, "");
	CU_ASSERT_EQUAL(driver_detect(NATIVE_HOST, note, sizeof(note)), DRIVER_NATIVE);
	CU_ASSERT_EQUAL(driver_detect("/bin/sh", note, sizeof(note)), DRIVER_WRAP);
	CU_ASSERT(strstr(note, "--driver wrap") != NULL);
	CU_ASSERT(strchr(note, '\n') == NULL);
	/* ctest by its name, wherever it is; Catch2 by its option text */
	CU_ASSERT_EQUAL(driver_detect(CTEST_BIN, note, sizeof(note)), DRIVER_CTEST);
	CU_ASSERT_EQUAL(driver_detect("/nowhere/ctest", note, sizeof(note)), DRIVER_CTEST);
	CU_ASSERT_EQUAL(driver_detect(CMAKE_BIN, note, sizeof(note)), DRIVER_WRAP);
#ifdef CATCH2_LEAKS
	CU_ASSERT_EQUAL(driver_detect(CATCH2_LEAKS, note, sizeof(note)), DRIVER_CATCH2);
	CU_ASSERT_STRING_EQUAL(note, "");
#endif
	driver_kind k;
	CU_ASSERT_EQUAL(driver_parse(&k, "ctest", NULL), 0);
	CU_ASSERT_EQUAL(k, DRIVER_CTEST);
	CU_ASSERT_EQUAL(driver_parse(&k, "catch2", NULL), 0);
	CU_ASSERT_EQUAL(k, DRIVER_CATCH2);
}

/* An ASan build is told by __asan_init: in .dynstr for gcc's shared
 * runtime and clang's linked-in one, only among the symbol names for gcc's
 * -static-libasan (read only when the loaded data shows the runtime's
 * messages); a program of neither is none. */
static void asan_mark(void)
{
	CU_ASSERT_EQUAL(driver_has_mark(GTEST_LEAKS_ASAN, DRIVER_MARK_ASAN), 1);
	CU_ASSERT_EQUAL(driver_has_mark(ASAN_TINY, DRIVER_MARK_ASAN), 1);
	CU_ASSERT_EQUAL(driver_has_mark(GTEST_SAMPLE, DRIVER_MARK_ASAN), 0);
	CU_ASSERT_EQUAL(driver_has_mark(GTEST_SAMPLE, DRIVER_MARK_GTEST), 1);
	CU_ASSERT_EQUAL(driver_has_mark(NATIVE_HOST, DRIVER_MARK_ASAN), 0);
	CU_ASSERT_EQUAL(driver_has_mark(NATIVE_HOST, DRIVER_MARK_HOST), 1);
}

static const mg_case cases[] = {
    {"gtest_list", gtest_list}, {"gtest_lines", gtest_lines}, {"exec_template", exec_template},
    {"wrap_name", wrap_names},  {"detect", detect},           {"asan_mark", asan_mark},
};

MG_TEST_MAIN("drivers", cases)

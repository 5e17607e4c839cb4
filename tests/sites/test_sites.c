/*
 * test_sites.c - allocation sites end to end (issue 25): real programs with
 * planted leaks under the real memguard binary, for the host library
 * (sites_host.c) and the probe (sites_gtest.cc), x64 and x86; the report
 * must name the function and line of each leak (found in the source by its
 * SITE:<kind> marker), the gtest ones in each of 10 separate runs. Also: no sites for a test that
 * freed what it took, no deadlock with threads, fork and exec, a failure of an allocation that
 * failed retried as one near the ceiling, a program without frame pointers
 * (the immediate caller), ASan builds (this build's compiler's, and clang's
 * for x64 and x86, whose allocator only its hooks see), and --sites off.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mg_run.h"

/* The line of source holding "SITE:kind" (0: none). */
static int site_line(const char *source, const char *kind)
{
	char want[64], buf[512];
	snprintf(want, sizeof(want), "SITE:%s", kind);
	FILE *f = fopen(source, "r");
	int n = 0, found = 0;
	while (f && fgets(buf, sizeof(buf), f)) {
		n++;
		if (strstr(buf, want)) {
			found = n;
			break;
		}
	}
	if (f)
		fclose(f);
	return found;
}

/*
 * The test's largest site: allocated with kind, at least bytes, its first
 * frame (full: every frame) in function fn at the line of source marked
 * SITE:marker, a file name ending in base.
 */
static void expect_site(json_t *raw, const char *test, const char *kind, uint64_t bytes,
                        const char *fn, const char *source, const char *marker, int exact_line)
{
	json_t *sites = mg_sites_of(raw, test);
	json_t *s = json_array_get(sites, 0);
	if (!s)
		fprintf(stderr, "%s: no sites\n", test);
	CU_ASSERT_FATAL(s != NULL);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(s, "kind")), kind);
	CU_ASSERT(json_integer_value(json_object_get(s, "bytes")) >= (json_int_t)bytes);
	json_t *f = json_array_get(json_object_get(s, "frames"), 0);
	CU_ASSERT_FATAL(f != NULL);
	const char *got = json_string_value(json_object_get(f, "function"));
	const char *file = json_string_value(json_object_get(f, "file"));
	json_int_t line = json_integer_value(json_object_get(f, "line"));
	int want = site_line(source, marker);
	if (!got || strcmp(got, fn) || line != want) {
		char *d = json_dumps(s, JSON_COMPACT);
		fprintf(stderr, "%s: wanted %s at line %d: %s\n", test, fn, want, d);
		free(d);
	}
	CU_ASSERT(got && !strcmp(got, fn));
	const char *base = strrchr(source, '/') + 1;
	CU_ASSERT(file && strlen(file) >= strlen(base) &&
	          !strcmp(file + strlen(file) - strlen(base), base));
	if (exact_line)
		CU_ASSERT_EQUAL(line, want);
	CU_ASSERT(json_string_value(json_object_get(f, "module")) != NULL);
	CU_ASSERT(json_string_value(json_object_get(f, "build_id")) != NULL);
}

/* The host library: mmap, malloc and sampled small leaks named; nothing
 * for a test that freed all; threads, fork and exec fine; the failed
 * allocation's failure retried as one near the ceiling. */
static void host_run(const char *prog)
{
	outcome o;
	mg(&o, ARGV("run", "-j", "1", "--report", "report.json", "--", prog), ENV("X=1"), 0);
	CU_ASSERT(exited_with(&o, 1)); /* nomem fails */
	CU_ASSERT_FATAL(o.report != NULL);
	json_t *raw = mg_raw_report(&o);
	CU_ASSERT_FATAL(raw != NULL);
	expect_site(raw, "leak/mmap", "mmap", 8u << 20, "leak_mmap", SITES_HOST_SRC, "mmap", 1);
	expect_site(raw, "leak/malloc", "malloc", 3u << 20, "leak_malloc", SITES_HOST_SRC, "malloc",
	            1);
	/* 4096 x 1 KiB: sampled, one per 512 KiB on average (at least 3 samples) */
	expect_site(raw, "leak/small", "malloc", 3 * 512 * 1024, "leak_small", SITES_HOST_SRC,
	            "small", 1);
	CU_ASSERT(mg_sites_of(raw, "freed") == NULL);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "threads"), "pass");
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "fork"), "pass");
	json_t *t = find_test(o.report, "nomem");
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "nomem"), "fail");
	CU_ASSERT(t && json_is_true(json_object_get(t, "near_ceiling")));
	CU_ASSERT(t && json_integer_value(json_object_get(t, "attempts")) == 2);
	json_decref(raw);
	done(&o);
}

static void host_x64(void)
{
	host_run(SITES_HOST64);
}

static void host_x86(void)
{
	host_run(SITES_HOST32);
}

/* --sites off: no sites, and no retry for the failed allocation. */
static void host_off(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "1", "--sites", "off", "--report", "report.json", "--", SITES_HOST64),
	   ENV("X=1"), 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	json_t *raw = mg_raw_report(&o);
	CU_ASSERT_FATAL(raw != NULL);
	CU_ASSERT(mg_sites_of(raw, "leak/mmap") == NULL);
	CU_ASSERT(mg_sites_of(raw, "leak/malloc") == NULL);
	json_t *t = find_test(o.report, "nomem");
	CU_ASSERT(t && !json_is_true(json_object_get(t, "near_ceiling")));
	json_decref(raw);
	done(&o);
}

/* A bad level is a usage error naming it. */
static void option_bad(void)
{
	outcome o;
	mg(&o, ARGV("run", "--sites", "most", "--", SITES_HOST64), ENV("X=1"), 0);
	CU_ASSERT(exited_with(&o, 2));
	CU_ASSERT(strstr(o.err, "sites: 'most' is not off, default or all") != NULL);
	done(&o);
}

/* One run of the gtest program prog: mmap and malloc named (new too when
 * with_new), at their marked line when exact. */
static void gtest_run_prog(const char *prog, int exact, int with_new)
{
	outcome o;
	mg(&o, ARGV("run", "-j", "1", "--driver", "gtest", "--report", "report.json", "--", prog),
	   ENV("X=1"), 0);
	CU_ASSERT(exited_with(&o, 1)); /* Nomem.Fails */
	CU_ASSERT_FATAL(o.report != NULL);
	json_t *raw = mg_raw_report(&o);
	CU_ASSERT_FATAL(raw != NULL);
	expect_site(raw, "Leak.Mmap", "mmap", 8u << 20, "leak_mmap", SITES_GTEST_SRC, "mmap",
	            exact);
	/* the probe's nomem, through the driver: a failure near the ceiling */
	json_t *t = find_test(o.report, "Nomem.Fails");
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "Nomem.Fails"), "fail");
	CU_ASSERT(t && json_is_true(json_object_get(t, "near_ceiling")));
	CU_ASSERT(t && json_integer_value(json_object_get(t, "attempts")) == 2);
	expect_site(raw, "Leak.Malloc", "malloc", 3u << 20, "leak_malloc", SITES_GTEST_SRC,
	            "malloc", exact);
	CU_ASSERT(mg_sites_of(raw, "Clean.Frees") == NULL);
	/* C++ names as written: demangled, the parameters and return type cut */
	expect_site(raw, "Leak.Method", "malloc", 5u << 20, "store::Pool::grow", SITES_GTEST_SRC,
	            "method", exact);
	expect_site(raw, "Leak.Template", "malloc", 4u << 20, "store::fill<int>", SITES_GTEST_SRC,
	            "template", exact);
	/* new through the shared libstdc++: the probe's operator new sees it */
	if (with_new)
		expect_site(raw, "Leak.New", "new", 2u << 20, "leak_new", SITES_GTEST_SRC, "new",
		            exact);
	json_decref(raw);
	done(&o);
}

/* The "10 runs of 10": each planted leak named right in every one
 * of 10 separate runs (sampling is per run, the stacks and symbols too). */
#define GTEST_RUNS 10

static void gtest_x64(void)
{
	for (int i = 0; i < GTEST_RUNS; i++)
		gtest_run_prog(SITES_GTEST64, 1, 1);
}

#ifdef SITES_GTEST32
/* new's caller is hidden by the static libstdc++ it is linked with (README) */
static void gtest_x86(void)
{
	for (int i = 0; i < GTEST_RUNS; i++)
		gtest_run_prog(SITES_GTEST32, 1, 0);
}
#endif

/* Built with -fomit-frame-pointer: the immediate caller still (its line). */
static void gtest_no_fp(void)
{
	gtest_run_prog(SITES_GTEST_NOFP, 1, 0);
}

/* The test's largest site: count allocations of exactly bytes (so not
 * recorded twice, by an interposer and a sanitizer's hook). */
static void expect_once(json_t *raw, const char *test, uint64_t bytes)
{
	json_t *s = json_array_get(mg_sites_of(raw, test), 0);
	CU_ASSERT_FATAL(s != NULL);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(s, "count")), 1);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(s, "bytes")), (json_int_t)bytes);
}

/*
 * An ASan build of the gtest program: malloc and new named at their lines
 * (GCC's shared runtime through the interposers' way in, clang's runtime
 * linked into the program through its hooks), each once; the mmap too
 * (clang's 32-bit interceptor of it keeps no frame pointer: unwound).
 */
static void asan_run(const char *prog)
{
	outcome o;
	mg(&o, ARGV("run", "-j", "1", "--driver", "gtest", "--report", "report.json", "--", prog),
	   ENV("ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1"), 0);
	CU_ASSERT(exited_with(&o, 1)); /* Nomem.Fails */
	CU_ASSERT_FATAL(o.report != NULL);
	json_t *raw = mg_raw_report(&o);
	CU_ASSERT_FATAL(raw != NULL);
	expect_site(raw, "Leak.Mmap", "mmap", 8u << 20, "leak_mmap", SITES_GTEST_SRC, "mmap", 1);
	expect_site(raw, "Leak.Malloc", "malloc", 3u << 20, "leak_malloc", SITES_GTEST_SRC,
	            "malloc", 1);
	expect_once(raw, "Leak.Malloc", 3u << 20);
	expect_site(raw, "Leak.New", "new", 2u << 20, "leak_new", SITES_GTEST_SRC, "new", 1);
	expect_once(raw, "Leak.New", 2u << 20);
	expect_site(raw, "Leak.Method", "malloc", 5u << 20, "store::Pool::grow", SITES_GTEST_SRC,
	            "method", 1);
	expect_site(raw, "Leak.Template", "malloc", 4u << 20, "store::fill<int>", SITES_GTEST_SRC,
	            "template", 1);
	CU_ASSERT(mg_sites_of(raw, "Clean.Frees") == NULL);
	json_decref(raw);
	done(&o);
}

/* built with this build's C++ compiler (GCC: libasan.so; clang: static) */
static void gtest_asan(void)
{
	asan_run(SITES_GTEST_ASAN);
}

#ifdef SITES_GTEST_CLANG_ASAN64
static void gtest_asan_clang_x64(void)
{
	asan_run(SITES_GTEST_CLANG_ASAN64);
}
#endif

#ifdef SITES_GTEST_CLANG_ASAN32
static void gtest_asan_clang_x86(void)
{
	asan_run(SITES_GTEST_CLANG_ASAN32);
}
#endif

static const mg_case cases[] = {
    {"option_bad", option_bad},
    {"host_x64", host_x64},
    {"host_x86", host_x86},
    {"host_off", host_off},
    {"gtest_x64", gtest_x64},
    {"gtest_no_fp", gtest_no_fp},
    {"gtest_asan", gtest_asan},
#ifdef SITES_GTEST32
    {"gtest_x86", gtest_x86},
#endif
#ifdef SITES_GTEST_CLANG_ASAN64
    {"gtest_asan_clang_x64", gtest_asan_clang_x64},
#endif
#ifdef SITES_GTEST_CLANG_ASAN32
    {"gtest_asan_clang_x86", gtest_asan_clang_x86},
#endif
};

MG_TEST_MAIN("sites", cases)

/*
 * test_gtestflagfile.c - the user's own GoogleTest/Catch2 settings that a
 * run of several processes (lanes, recycles) must not let through as they
 * are (issue 23), each checked against the program's direct run under the
 * real memguard binary: a --gtest_flagfile's --gtest_filter and
 * --gtest_fail_fast (GoogleTest loads the file in place of the flag, after
 * GTEST_FILTER; before: its filter beat the batch's, every lane ran every
 * test, "Basic.Fails#2", and with a recycle the program stopped in a test
 * not its own until the no-progress timeout), and the report file the user
 * asks the framework for (--gtest_output=xml:F, json:F,
 * GTEST_OUTPUT=xml:DIR/, Catch2's -r junit -o F; before: each program
 * wrote over it, so it held the last program's tests, or for Catch2 was
 * not written at all).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mg_run.h"

#define NAMES 64

/* The tests of a framework's JUnit/XML file (GoogleTest's, Catch2's, or
 * memguard's in their shape): "Suite.Name" (Catch2: the name) and its state
 * (pass, fail, skip; GoogleTest's notrun is skip). */
typedef struct xml_tests {
	char name[NAMES][200];
	char state[NAMES][8];
	int n;
} xml_tests;

static const char *attr_of(const char *tag, const char *end, const char *key, char *out, size_t cap)
{
	char pat[32];
	snprintf(pat, sizeof(pat), " %s=\"", key);
	const char *p = strstr(tag, pat);
	out[0] = 0;
	if (!p || p > end)
		return NULL;
	p += strlen(pat);
	const char *q = strchr(p, '"');
	size_t n = (size_t)(q - p) < cap - 1 ? (size_t)(q - p) : cap - 1;
	memcpy(out, p, n);
	out[n] = 0;
	return out;
}

static void xml_read(const char *path, xml_tests *x, int catch2)
{
	static char buf[1 << 20];
	memset(x, 0, sizeof(*x));
	slurp(path, buf, sizeof(buf));
	for (const char *p = strstr(buf, "<testcase "); p && x->n < NAMES;) {
		const char *next = strstr(p + 1, "<testcase ");
		const char *end = strchr(p, '>');
		char name[96], cls[96], status[16], result[16];
		attr_of(p, end, "name", name, sizeof(name));
		attr_of(p, end, "classname", cls, sizeof(cls));
		attr_of(p, end, "status", status, sizeof(status));
		attr_of(p, end, "result", result, sizeof(result));
		if (catch2)
			snprintf(x->name[x->n], sizeof(x->name[0]), "%s", name);
		else
			snprintf(x->name[x->n], sizeof(x->name[0]), "%s.%s", cls, name);
		const char *fail = strstr(p, "<failure");
		const char *skip = strstr(p, "<skipped");
		if (fail && (!next || fail < next))
			strcpy(x->state[x->n], "fail");
		else if (!strcmp(status, "notrun") || !strcmp(result, "skipped") ||
		         (skip && (!next || skip < next)))
			strcpy(x->state[x->n], "skip");
		else
			strcpy(x->state[x->n], "pass");
		x->n++;
		p = next;
	}
}

/* b holds the tests of a with their states (in any order), and no other. */
static void xml_same(const xml_tests *a, const xml_tests *b)
{
	CU_ASSERT_EQUAL(a->n, b->n);
	for (int i = 0; i < a->n; i++) {
		int found = 0;
		for (int k = 0; k < b->n; k++)
			if (!strcmp(a->name[i], b->name[k])) {
				found = 1;
				if (strcmp(a->state[i], b->state[k]))
					fprintf(stderr, "%s: %s, wanted %s\n", a->name[i],
					        b->state[k], a->state[i]);
				CU_ASSERT_STRING_EQUAL(b->state[k], a->state[i]);
			}
		if (!found)
			fprintf(stderr, "%s: missing\n", a->name[i]);
		CU_ASSERT(found);
	}
}

/* memguard's report has exactly the tests of x, in x's states. */
static void report_same(json_t *report, const xml_tests *x)
{
	CU_ASSERT_FATAL(report != NULL);
	for (int i = 0; i < x->n; i++)
		expect_state(report, x->name[i], x->state[i]);
	json_int_t total = 0;
	const char *states[] = {"pass", "fail", "skip", "error", "crash", "timeout", "killed"};
	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++)
		total += count(report, states[i]);
	CU_ASSERT_EQUAL(total, x->n);
}

/* A directory of the test's own, with a flag file of lines (NULL-ended). */
static void flagfile(char *dir, size_t cap, char *path, size_t pcap, const char *const *lines)
{
	snprintf(dir, cap, "/tmp/mg-ff-XXXXXX");
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(path, pcap, "%s/flags", dir);
	FILE *f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	for (size_t i = 0; lines && lines[i]; i++)
		fprintf(f, "%s\n", lines[i]);
	CU_ASSERT_FATAL(fclose(f) == 0);
}

static void rm_dir(const char *dir)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CU_ASSERT(system(cmd) == 0);
}

/* The direct run of GTEST_SAMPLE with args (at most 4) and its own XML in
 * DIR/direct.xml: its exit status and tests. */
static int gtest_direct(const char *dir, const char *const *args, xml_tests *x)
{
	char out[4200];
	const char *argv[6] = {0};
	int n = 0;
	snprintf(out, sizeof(out), "--gtest_output=xml:%s/direct.xml", dir);
	for (; args[n] && n < 4; n++)
		argv[n] = args[n];
	argv[n] = out;
	int st = mg_direct_argv(GTEST_SAMPLE, argv, NULL);
	snprintf(out, sizeof(out), "%s/direct.xml", dir);
	xml_read(out, x, 0);
	CU_ASSERT(x->n > 0);
	return st;
}

/* The flag file's filter selects; each lane's batch is still its own, at
 * -j1, -j2, and with a recycle at every test. */
static void gtest_flagfile_filter(void)
{
	char dir[64], ff[96], arg[128];
	flagfile(dir, sizeof(dir), ff, sizeof(ff),
	         (const char *[]){"--gtest_filter=Basic.*:Small/Square.*", NULL});
	snprintf(arg, sizeof(arg), "--gtest_flagfile=%s", ff);
	xml_tests d;
	CU_ASSERT_EQUAL(gtest_direct(dir, (const char *[]){arg, NULL}, &d), 1);
	CU_ASSERT_EQUAL(d.n, 8);
	const char *lanes[] = {"1", "2", "2"};
	for (int i = 0; i < 3; i++) {
		outcome o;
		if (i < 2)
			mg(&o,
			   ARGV("run", "-j", lanes[i], "--driver", "gtest", "--report",
			        "report.json", "--", GTEST_SAMPLE, arg),
			   NULL, 0);
		else /* the no-progress bound only ends the old code's stopped program */
			mg(&o,
			   ARGV("run", "-j", lanes[i], "--recycle-at", "va=1M", "--no-progress",
			        "20s", "--driver", "gtest", "--report", "report.json", "--",
			        GTEST_SAMPLE, arg),
			   NULL, 0);
		CU_ASSERT(exited_with(&o, 1));
		report_same(o.report, &d);
		done(&o);
	}
	rm_dir(dir);
}

/* GTEST_SAMPLE given a0 a1: the direct run exits want with n tests, and
 * memguard -j 2 (env added to its environment) gives each its state and
 * the same verdict. */
static void same_as_direct(const char *dir, const char *a0, const char *a1, const char *const *env,
                           int want, int n)
{
	xml_tests d;
	CU_ASSERT_EQUAL(gtest_direct(dir, (const char *[]){a0, a1, NULL}, &d), want);
	CU_ASSERT_EQUAL(d.n, n);
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "2", "--driver", "gtest", "--report", "report.json", "--",
	        GTEST_SAMPLE, a0, a1),
	   env, 0);
	CU_ASSERT(exited_with(&o, want));
	report_same(o.report, &d);
	done(&o);
}

/* GoogleTest's precedence: GTEST_FILTER < the flags in command-line order,
 * a flag file's where the flag file is. */
static void gtest_flagfile_precedence(void)
{
	char dir[64], ff[96], arg[128];
	flagfile(dir, sizeof(dir), ff, sizeof(ff),
	         (const char *[]){"", "--gtest_filter=Small/Square.*", NULL});
	snprintf(arg, sizeof(arg), "--gtest_flagfile=%s", ff);
	/* the flag file after the command line's filter: the file's (and
	 * memguard's GTEST_FILTER given too, which both beat) */
	same_as_direct(dir, "--gtest_filter=Basic.*", arg, ENV("GTEST_FILTER=Last.*"), 0, 3);
	/* a filter after the flag file: that one */
	same_as_direct(dir, arg, "--gtest_filter=Basic.*", NULL, 1, 5);
	rm_dir(dir);
}

/* The flag file's --gtest_fail_fast stops the run at its first failure in
 * every lane and generation, as the direct run stops; its shuffle, brief
 * and color are overridden as on the command line (a repeat count other
 * than 1 there is refused: drivers__gtest_flag_repeat). */
static void gtest_flagfile_failfast(void)
{
	char dir[64], ff[96], arg[128];
	flagfile(dir, sizeof(dir), ff, sizeof(ff),
	         (const char *[]){"--gtest_filter=Basic.*:Small/Square.*:Last.*",
	                          "--gtest_fail_fast", "--gtest_shuffle", "--gtest_random_seed=7",
	                          "--gtest_repeat=1", "--gtest_brief=1", "--gtest_color=yes",
	                          NULL});
	snprintf(arg, sizeof(arg), "--gtest_flagfile=%s", ff);
	int st = mg_direct_argv(GTEST_SAMPLE, (const char *[]){arg, NULL}, NULL);
	CU_ASSERT_EQUAL(st, 1);
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "2", "--recycle-at", "va=1M", "--no-progress", "20s", "--driver",
	        "gtest", "--report", "report.json", "--", GTEST_SAMPLE, arg),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	expect_state(o.report, "Basic.Fails", "fail");
	CU_ASSERT_EQUAL(count(o.report, "fail"), 1);
	CU_ASSERT_EQUAL(count(o.report, "error"), 0);
	done(&o);
	rm_dir(dir);
}

/* --gtest_output=xml:F: F holds the whole run, as GoogleTest's own of the
 * direct run (every test, its state, the failure's text), valid XML, at
 * two lanes and a recycle at every test; F's missing directory is made. */
static void gtest_output_file(void)
{
	char dir[64], ff[96], arg[4200], path[128];
	flagfile(dir, sizeof(dir), ff, sizeof(ff), NULL);
	xml_tests d, m;
	const char *filter = "--gtest_filter=Basic.*:Small/Square.*:Typed/*";
	CU_ASSERT_EQUAL(gtest_direct(dir, (const char *[]){filter, NULL}, &d), 1);
	CU_ASSERT_EQUAL(d.n, 10);
	snprintf(path, sizeof(path), "%s/sub/user.xml", dir); /* made, as GoogleTest makes it */
	snprintf(arg, sizeof(arg), "--gtest_output=xml:%s", path);
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "2", "--recycle-at", "va=1M", "--driver", "gtest", "--report",
	        "report.json", "--", GTEST_SAMPLE, filter, arg),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	report_same(o.report, &d);
	xml_read(path, &m, 0);
	xml_same(&d, &m);
	static char buf[1 << 16];
	slurp(path, buf, sizeof(buf));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "arithmetic is broken"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "name=\"AllTests\""));
	if (*MG_XMLLINT) {
		char cmd[512];
		snprintf(cmd, sizeof(cmd), "'%s' --noout '%s'", MG_XMLLINT, path);
		CU_ASSERT_EQUAL(system(cmd), 0);
	}
	done(&o);
	rm_dir(dir);
}

/* GTEST_OUTPUT=xml:DIR/ and a flag file's --gtest_output: one file,
 * DIR/gtest_sample.xml, as GoogleTest names it, with the whole run (no
 * listing's, no file of each program); a symlink at the path is not
 * followed (memguard exits 3 before the suite runs, the link's target
 * untouched). */
static void gtest_output_dir(void)
{
	char dir[64], ff[96], env[256], out[128], file[200], arg[128];
	flagfile(dir, sizeof(dir), ff, sizeof(ff),
	         (const char *[]){"--gtest_filter=Basic.*:Small/Square.*", NULL});
	snprintf(arg, sizeof(arg), "--gtest_flagfile=%s", ff);
	xml_tests d, m;
	CU_ASSERT_EQUAL(gtest_direct(dir, (const char *[]){arg, NULL}, &d), 1);
	snprintf(out, sizeof(out), "%s/out", dir);
	CU_ASSERT_FATAL(mkdir(out, 0700) == 0);
	snprintf(env, sizeof(env), "GTEST_OUTPUT=xml:%s/", out);
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "2", "--recycle-at", "va=1M", "--no-progress", "20s", "--driver",
	        "gtest", "--report", "report.json", "--", GTEST_SAMPLE, arg),
	   ENV(env), 0);
	CU_ASSERT(exited_with(&o, 1));
	done(&o);
	snprintf(file, sizeof(file), "%s/gtest_sample.xml", out);
	xml_read(file, &m, 0);
	xml_same(&d, &m);
	snprintf(file, sizeof(file), "%s/gtest_sample_1.xml", out);
	CU_ASSERT(access(file, F_OK) != 0);
	/* in the flag file, over a symlink */
	char target[160], ff2[160], arg2[192], link[160];
	snprintf(target, sizeof(target), "%s/target", dir);
	snprintf(link, sizeof(link), "%s/link.xml", dir);
	FILE *t = fopen(target, "w");
	CU_ASSERT_FATAL(t && fputs("mine\n", t) >= 0 && fclose(t) == 0);
	CU_ASSERT_FATAL(symlink(target, link) == 0);
	snprintf(ff2, sizeof(ff2), "%s/flags2", dir);
	t = fopen(ff2, "w");
	CU_ASSERT_FATAL(t != NULL);
	fprintf(t, "--gtest_filter=Basic.*\n--gtest_output=xml:%s\n", link);
	CU_ASSERT_FATAL(fclose(t) == 0);
	snprintf(arg2, sizeof(arg2), "--gtest_flagfile=%s", ff2);
	mg(&o,
	   ARGV("run", "-j", "2", "--driver", "gtest", "--report", "report.json", "--",
	        GTEST_SAMPLE, arg2),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 3));
	CU_ASSERT(o.report == NULL); /* refused before the suite ran */
	CU_ASSERT_PTR_NOT_NULL(strstr(o.err, "link.xml"));
	char buf[64];
	CU_ASSERT_STRING_EQUAL(slurp(target, buf, sizeof(buf)), "mine\n");
	done(&o);
	rm_dir(dir);
}

/* GoogleTest's JSON file (tests, status, result, failures) as a sorted
 * "Suite.Name STATUS RESULT FAILURES" list, with its totals first. */
static void json_tests(const char *path, char *out, size_t cap)
{
	json_error_t je;
	json_t *r = json_load_file(path, 0, &je), *suite, *t;
	size_t i, k, len = 0;
	char lines[NAMES][200];
	int n = 0;
	out[0] = 0;
	CU_ASSERT_FATAL(r != NULL);
	len += (size_t)snprintf(out, cap, "%lld %lld %lld %lld\n",
	                        json_integer_value(json_object_get(r, "tests")),
	                        json_integer_value(json_object_get(r, "failures")),
	                        json_integer_value(json_object_get(r, "disabled")),
	                        json_integer_value(json_object_get(r, "errors")));
	json_array_foreach(json_object_get(r, "testsuites"), i, suite)
	{
		json_array_foreach(json_object_get(suite, "testsuite"), k, t)
		{
			if (n < NAMES)
				snprintf(lines[n++], sizeof(lines[0]), "%s.%s %s %s %zu",
				         json_string_value(json_object_get(suite, "name")),
				         json_string_value(json_object_get(t, "name")),
				         json_string_value(json_object_get(t, "status")),
				         json_string_value(json_object_get(t, "result")),
				         json_array_size(json_object_get(t, "failures")));
		}
	}
	qsort(lines, (size_t)n, sizeof(lines[0]), (int (*)(const void *, const void *))strcmp);
	for (int l = 0; l < n && len < cap; l++)
		len += (size_t)snprintf(out + len, cap - len, "%s\n", lines[l]);
	json_decref(r);
}

/* --gtest_output=json:F: F holds the whole run as the direct run's own
 * (totals, each test's status, result and failures). */
static void gtest_output_json(void)
{
	char dir[64], ff[96], arg[160], path[128], direct[128];
	static char want[8192], got[8192];
	flagfile(dir, sizeof(dir), ff, sizeof(ff), NULL);
	snprintf(path, sizeof(path), "%s/user.json", dir);
	snprintf(direct, sizeof(direct), "--gtest_output=json:%s/direct.json", dir);
	const char *filter = "--gtest_filter=Basic.*:Small/Square.*";
	CU_ASSERT_EQUAL(mg_direct_argv(GTEST_SAMPLE, (const char *[]){filter, direct, NULL}, NULL),
	                1);
	snprintf(direct, sizeof(direct), "%s/direct.json", dir);
	json_tests(direct, want, sizeof(want));
	snprintf(arg, sizeof(arg), "--gtest_output=json:%s", path);
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "2", "--recycle-at", "va=1M", "--driver", "gtest", "--report",
	        "report.json", "--", GTEST_SAMPLE, filter, arg),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	json_tests(path, got, sizeof(got));
	if (strcmp(want, got))
		fprintf(stderr, "want:\n%s\ngot:\n%s\n", want, got);
	CU_ASSERT_STRING_EQUAL(got, want);
	done(&o);
	rm_dir(dir);
}

#ifdef CATCH2_ABORT
/* Catch2's -r junit -o F (and --reporter=junit --out=F): F holds every test
 * case of the run, as Catch2's own of the direct run, its suite the same
 * attributes (the timestamp UTC with a Z: before, without); the console
 * reporter's -o F is not written, said on stderr. */
static void catch2_junit_out(void)
{
	char dir[64], ff[96], path[128], direct[128], opt[160];
	flagfile(dir, sizeof(dir), ff, sizeof(ff), NULL);
	snprintf(direct, sizeof(direct), "%s/direct.xml", dir);
	snprintf(path, sizeof(path), "%s/user.xml", dir);
	CU_ASSERT_EQUAL(
	    mg_direct_argv(CATCH2_ABORT, (const char *[]){"-r", "junit", "-o", direct, NULL}, NULL),
	    2);
	xml_tests d, m;
	xml_read(direct, &d, 1);
	CU_ASSERT_EQUAL(d.n, 5);
	/* the suite's attributes Catch2's own, its timestamp UTC with a Z */
	char dattrs[160], dstamp[32], mattrs[160], mstamp[32];
	CU_ASSERT_EQUAL_FATAL(mg_junit_suite_attrs(direct, dattrs, sizeof(dattrs), dstamp), 0);
	CU_ASSERT_STRING_EQUAL(dattrs, "name errors failures tests hostname time timestamp");
	CU_ASSERT(strlen(dstamp) == 20 && dstamp[19] == 'Z');
	for (int form = 0; form < 2; form++) {
		outcome o;
		snprintf(opt, sizeof(opt), "--out=%s", path);
		if (form == 0)
			mg(&o,
			   ARGV("run", "-j", "2", "--recycle-at", "va=1M", "--driver", "catch2",
			        "--report", "report.json", "--", CATCH2_ABORT, "-r", "junit", "-o",
			        path),
			   NULL, 0);
		else
			mg(&o,
			   ARGV("run", "-j", "2", "--recycle-at", "va=1M", "--driver", "catch2",
			        "--report", "report.json", "--", CATCH2_ABORT, "--reporter=junit",
			        opt),
			   NULL, 0);
		CU_ASSERT(exited_with(&o, 1));
		report_same(o.report, &d);
		xml_read(path, &m, 1);
		xml_same(&d, &m);
		CU_ASSERT_EQUAL(mg_junit_suite_attrs(path, mattrs, sizeof(mattrs), mstamp), 0);
		CU_ASSERT_STRING_EQUAL(mattrs, dattrs);
		CU_ASSERT(strlen(mstamp) == 20 && mstamp[19] == 'Z');
		CU_ASSERT_EQUAL(unlink(path), 0);
		done(&o);
	}
	/* -a: Catch2's file holds the test cases that ran, and so does
	 * memguard's (before: the others too, skipped "not run") */
	CU_ASSERT_EQUAL(mg_direct_argv(CATCH2_ABORT,
	                               (const char *[]){"-a", "-r", "junit", "-o", direct, NULL},
	                               NULL),
	                1);
	xml_tests da, ma;
	xml_read(direct, &da, 1);
	CU_ASSERT_EQUAL(da.n, 2);
	{
		outcome o;
		mg(&o,
		   ARGV("run", "-j", "1", "--driver", "catch2", "--report", "report.json", "--",
		        CATCH2_ABORT, "-a", "-r", "junit", "-o", path),
		   NULL, 0);
		CU_ASSERT(exited_with(&o, 1));
		xml_read(path, &ma, 1);
		xml_same(&da, &ma);
		CU_ASSERT_EQUAL(count(o.report, "skip"), 3); /* memguard's report has them */
		CU_ASSERT_EQUAL(unlink(path), 0);
		done(&o);
	}
	/* another reporter's -o F: not written, and said so */
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "2", "--driver", "catch2", "--report", "report.json", "--",
	        CATCH2_ABORT, "-o", path),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT(access(path, F_OK) != 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(o.err, "not written"));
	done(&o);
	/* -o in a directory that is not there: Catch2 refuses it at its start,
	 * and memguard before the suite runs (before: once every test had run) */
	snprintf(path, sizeof(path), "%s/no/such/user.xml", dir);
	CU_ASSERT_NOT_EQUAL(
	    mg_direct_argv(CATCH2_ABORT, (const char *[]){"-r", "junit", "-o", path, NULL}, NULL),
	    0);
	mg(&o,
	   ARGV("run", "-j", "2", "--driver", "catch2", "--report", "report.json", "--",
	        CATCH2_ABORT, "-r", "junit", "-o", path),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 3));
	CU_ASSERT_PTR_NULL(o.report);
	CU_ASSERT_PTR_NOT_NULL(strstr(o.err, "-r junit -o "));
	CU_ASSERT_PTR_NOT_NULL(strstr(o.err, "No such file or directory: not written"));
	done(&o);
	/* a machine's reporter to stdout, where memguard's own output is: refused
	 * before the run, saying what to give (before: dropped without a word, a
	 * CI's "> out.xml" got memguard's table); a console one runs */
	const char *said[][2] = {{"junit", "give '-r junit -o FILE'"},
	                         {"tap", "writes no report in that form"}};
	for (size_t i = 0; i < 2; i++) {
		mg(&o,
		   ARGV("run", "-j", "2", "--driver", "catch2", "--report", "report.json", "--",
		        CATCH2_ABORT, "-r", said[i][0]),
		   NULL, 0);
		CU_ASSERT(exited_with(&o, 2));
		CU_ASSERT_PTR_NULL(o.report);
		CU_ASSERT_PTR_NOT_NULL(strstr(o.err, "writes its report to stdout"));
		CU_ASSERT_PTR_NOT_NULL(strstr(o.err, said[i][1]));
		done(&o);
	}
	/* an empty -o is stdout in v2 too; a name as written (v2 has no JUnit,
	 * and "-" is a file: catch2v3_junit_out has v3's spellings) */
	mg(&o,
	   ARGV("run", "--driver", "catch2", "--report", "report.json", "--", CATCH2_ABORT, "-r",
	        "junit", "-o", ""),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 2));
	CU_ASSERT_PTR_NOT_NULL(strstr(o.err, "writes its report to stdout"));
	done(&o);
	mg(&o,
	   ARGV("run", "-j", "2", "--driver", "catch2", "--report", "report.json", "--",
	        CATCH2_ABORT, "-r", "compact"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_PTR_NOT_NULL(o.report);
	done(&o);
	rm_dir(dir);
}
#endif

static const mg_case cases[] = {
    {"gtest_flagfile_filter", gtest_flagfile_filter},
    {"gtest_flagfile_precedence", gtest_flagfile_precedence},
    {"gtest_flagfile_failfast", gtest_flagfile_failfast},
    {"gtest_output_file", gtest_output_file},
    {"gtest_output_dir", gtest_output_dir},
    {"gtest_output_json", gtest_output_json},
#ifdef CATCH2_ABORT
    {"catch2_junit_out", catch2_junit_out},
#endif
};

MG_TEST_MAIN("drivers_gtestflagfile", cases)

/*
 * integration_hosts.c - hosts of each arch and driver: lanes, node
 * splits, CUnit hosts, exact output, planted leaks.
 */
#include "cgroup.h"
#include "integration.h"
#include "mg_run.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* --node I/N: for N = 1..5 the nodes together run every test exactly once,
 * their sizes differ by at most one, and merging the node reports gives the
 * counts of a single-node run. */
void node_split(void)
{
	enum { TESTS = 23 };
	for (int n = 1; n <= 5; n++) {
		char seen[TESTS] = {0};
		size_t min = TESTS, max = 0;
		char merged[96], files[1024] = "";
		size_t off = 0;
		for (int i = 1; i <= n; i++) {
			outcome o;
			char node[16];
			snprintf(node, sizeof(node), "%d/%d", i, n);
			mg(&o,
			   ARGV("run", "-q", "--node", node, "--report", "report.json", "--",
			        FAULT64),
			   ENV("MG_FAULT_TESTS=23"), 0);
			CU_ASSERT(exited_with(&o, 0));
			CU_ASSERT_FATAL(o.report != NULL);
			CU_ASSERT_EQUAL(json_integer_value(json_object_get(
			                    json_object_get(o.report, "node"), "index")),
			                i);
			size_t here = 0, si, k;
			json_t *s, *t;
			json_array_foreach(json_object_get(o.report, "shards"), si, s)
			    json_array_foreach(json_object_get(s, "tests"), k, t)
			{
				int idx = -1;
				sscanf(json_string_value(json_object_get(t, "name")), "fault/t%d",
				       &idx);
				CU_ASSERT_FATAL(idx >= 0 && idx < TESTS);
				seen[idx]++;
				here++;
			}
			min = here < min ? here : min;
			max = here > max ? here : max;
			/* keep the node reports for the merge */
			char keep[96];
			snprintf(keep, sizeof(keep), "/tmp/mg-node-%d-%d-%d.json", (int)getpid(), n,
			         i);
			json_dump_file(o.report, keep, 0);
			off += (size_t)snprintf(files + off, sizeof(files) - off, " %s", keep);
			done(&o);
		}
		for (int t = 0; t < TESTS; t++)
			CU_ASSERT_EQUAL(seen[t], 1);
		CU_ASSERT(max - min <= 1);
		snprintf(merged, sizeof(merged), "/tmp/mg-merged-%d-%d.json", (int)getpid(), n);
		char full[1200];
		snprintf(full, sizeof(full), "%s merge %s%s >/dev/null", MEMGUARD_BIN, merged,
		         files);
		CU_ASSERT_EQUAL(system(full), 0);
		json_error_t je;
		json_t *m = json_load_file(merged, 0, &je);
		CU_ASSERT_FATAL(m != NULL);
		mg_report_expand(m);
		CU_ASSERT_EQUAL(count(m, "pass"), TESTS);
		CU_ASSERT_EQUAL(count(m, "fail") + count(m, "crash") + count(m, "error"), 0);
		json_decref(m);
		unlink(merged);
		for (int i = 1; i <= n; i++) {
			char keep[96];
			snprintf(keep, sizeof(keep), "/tmp/mg-node-%d-%d-%d.json", (int)getpid(), n,
			         i);
			unlink(keep);
		}
	}
}

/* Three planted leaks of distinct kinds among clean tests: the top suspects
 * are exactly those three, and the breakdown at the first recycle names the
 * dominant category (shm) and the largest group (32 x 8 MiB memfd blocks). */
static void planted_leaks(const char *host, const char *arch)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "1", "--arch", arch, "--recycle-at", "va=200M", "--report",
	        "report.json", "--", host),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	json_t *sus = json_object_get(o.report, "suspects");
	CU_ASSERT_FATAL(json_array_size(sus) >= 3);
	int planted = 0;
	for (size_t i = 0; i < 3; i++) {
		const char *n = json_string_value(json_object_get(json_array_get(sus, i), "name"));
		planted += !strcmp(n, "leak/shm_blocks") || !strcmp(n, "leak/heap") ||
		           !strcmp(n, "leak/threads");
	}
	CU_ASSERT_EQUAL(planted, 3);
	for (size_t i = 3; i < json_array_size(sus); i++)
		CU_ASSERT(json_integer_value(json_object_get(json_array_get(sus, i),
		                                             "va_retained")) < (json_int_t)4 << 20);
	/* the first generation ended in a recycle, with its breakdown */
	json_t *gen = json_array_get(
	    json_object_get(json_array_get(json_object_get(o.report, "shards"), 0), "generations"),
	    0);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(gen, "end")), "recycle");
	json_t *b = json_array_get(json_object_get(gen, "breakdowns"), 0);
	CU_ASSERT_FATAL(b != NULL);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(b, "when")), "recycle");
	const char *top = "";
	json_int_t topva = -1;
	size_t i;
	json_t *cat;
	json_array_foreach(json_object_get(b, "categories"), i, cat)
	{
		if (json_integer_value(json_object_get(cat, "va")) > topva) {
			topva = json_integer_value(json_object_get(cat, "va"));
			top = json_string_value(json_object_get(cat, "name"));
		}
	}
	CU_ASSERT_STRING_EQUAL(top, "shm");
	json_t *g0 = json_array_get(json_object_get(b, "groups"), 0);
	CU_ASSERT(strstr(json_string_value(json_object_get(g0, "name")), "memfd:blocks") != NULL);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(g0, "count")), 32);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(g0, "size")), 8 << 20);
	done(&o);
}

void planted_leaks_x64(void)
{
	planted_leaks(LEAK64, "x64");
}

void planted_leaks_x86(void)
{
	planted_leaks(LEAK32, "x86");
}

/* The boundary contract, output: n fast tests that each print their own
 * name (with and without a newline) and fail; the host marks its streams
 * at every boundary, so each test's output is exactly its own, however far
 * stdout, stderr and the replies run apart. x64 runs 50,000; x86 10,000
 * (its output still fills the pipes ten times over: under emulation, in
 * the x86 VM, 50,000 took 83 s of the case's 120). */
static void output_exact(const char *host, unsigned n)
{
	static const char *const kinds[] = {"MG_FAULT=name@*,fail@*", "MG_FAULT=namenonl@*,fail@*"};
	char tests_env[40];
	snprintf(tests_env, sizeof(tests_env), "MG_FAULT_TESTS=%u", n);
	for (size_t k = 0; k < 2; k++) {
		outcome o;
		mg(&o, ARGV("run", "-q", "--report", "report.json", "--", host),
		   ENV(kinds[k], tests_env), 0);
		CU_ASSERT(exited_with(&o, 1));
		CU_ASSERT_FATAL(o.report != NULL);
		CU_ASSERT_EQUAL(count(o.report, "fail"), (json_int_t)n);
		size_t i, j, wrong = 0, seen = 0;
		json_t *sh, *t;
		json_array_foreach(json_object_get(o.report, "shards"), i, sh)
		    json_array_foreach(json_object_get(sh, "tests"), j, t)
		{
			const char *name = json_string_value(json_object_get(t, "name"));
			const char *out = json_string_value(json_object_get(t, "output"));
			size_t nl = strlen(name);
			int ok = out && strncmp(out, name, nl) == 0 &&
			         strcmp(out + nl, k == 0 ? "\n" : "") == 0;
			if (!ok && wrong++ < 3)
				fprintf(stderr, "\n  %s: output '%s'\n", name,
				        out ? out : "(none)");
			seen++;
		}
		CU_ASSERT_EQUAL(seen, n);
		CU_ASSERT_EQUAL(wrong, 0);
		done(&o);
	}
	/* both streams: three stdout lines and a stderr line each, nothing else */
	outcome o;
	mg(&o, ARGV("run", "-q", "--report", "report.json", "--", host),
	   ENV("MG_FAULT=print@*", "MG_FAULT_TESTS=2000"), 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	size_t i, j, wrong = 0;
	json_t *sh, *t;
	json_array_foreach(json_object_get(o.report, "shards"), i, sh)
	    json_array_foreach(json_object_get(sh, "tests"), j, t)
	{
		const char *name = json_string_value(json_object_get(t, "name"));
		const char *out = json_string_value(json_object_get(t, "output"));
		char want[4][96];
		size_t len = 0;
		for (int k = 0; k < 3; k++)
			len += (size_t)snprintf(want[k], sizeof(want[k]), "%s: stdout line %d\n",
			                        name, k + 1);
		len += (size_t)snprintf(want[3], sizeof(want[3]), "%s: stderr line\n", name);
		int ok = out && strlen(out) == len;
		for (int k = 0; k < 4 && ok; k++)
			ok = strstr(out, want[k]) != NULL;
		wrong += !ok;
	}
	CU_ASSERT_EQUAL(wrong, 0);
	done(&o);
}

/* A host marks only the tests that wrote: the output of a test after a run
 * of silent ones is still its own, the silent ones have none, and what a
 * test wrote before it crashed (stderr: unbuffered) is the crashed test's,
 * though the tests before it wrote nothing and were never marked. */
static void output_sparse(const char *host)
{
	outcome o;
	mg(&o, ARGV("run", "-q", "-j", "1", "--report", "report.json", "--", host),
	   ENV("MG_FAULT=name@%97,print@3001,segv@3001", "MG_FAULT_TESTS=5000"), 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "fault/t3001"), "crash");
	size_t i, j, wrong = 0, seen = 0;
	json_t *sh, *t;
	json_array_foreach(json_object_get(o.report, "shards"), i, sh)
	    json_array_foreach(json_object_get(sh, "tests"), j, t)
	{
		const char *name = json_string_value(json_object_get(t, "name"));
		const char *out = json_string_value(json_object_get(t, "output"));
		unsigned k = (unsigned)strtoul(name + strlen("fault/t"), NULL, 10);
		char want[64];
		if (k == 3001)
			snprintf(want, sizeof(want), "%s: stderr line\n", name);
		else if (k % 97 == 96) /* KIND@%N: every Nth, the first at N - 1 */
			snprintf(want, sizeof(want), "%s\n", name);
		else
			want[0] = '\0';
		int ok = k == 3001 ? out && strstr(out, want) != NULL
		                   : strcmp(out ? out : "", want) == 0;
		if (!ok && wrong++ < 3)
			fprintf(stderr, "\n  %s: output '%s'\n", name, out ? out : "(none)");
		seen++;
	}
	CU_ASSERT_EQUAL(seen, 5000);
	CU_ASSERT_EQUAL(wrong, 0);
	done(&o);
}

void output_sparse_x64(void)
{
	output_sparse(FAULT64);
}

void output_sparse_x86(void)
{
	output_sparse(FAULT32);
}

void output_exact_x64(void)
{
	output_exact(FAULT64, 50000);
}

void output_exact_x86(void)
{
	output_exact(FAULT32, 10000);
}

/* A real CUnit program through the CUnit binding: every test by its
 * suite/test name, a failing assertion with its file and line, and a leaky
 * test (600 MiB), the last, over the recycle limit. */
static void cunit_program(const char *host, const char *arch)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "1", "--arch", arch, "--recycle-at", "va=500M", "--report",
	        "report.json", "--", host),
	   ENV("MG_CUNIT_LEAK_MB=600"), 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	static const char *const pass[] = {"basic/add", "basic/string", "withinit/init_ran",
	                                   "withinit/init_ran_again", "leaking/leak"};
	for (size_t i = 0; i < sizeof(pass) / sizeof(pass[0]); i++)
		CU_ASSERT_STRING_EQUAL(state_of(o.report, pass[i]), "pass");
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "failing/wrong"), "fail");
	json_t *t = find_test(o.report, "failing/wrong");
	const char *msg = t ? json_string_value(json_object_get(t, "message")) : NULL;
	CU_ASSERT(msg && strstr(msg, "cunit_host.c:") && strstr(msg, "CU_ASSERT_EQUAL"));
	/* the leak is the last test: its 600 MiB are its figure, and its host
	 * over the limit quits with the run (no recycle after the last test) */
	t = find_test(o.report, "leaking/leak");
	CU_ASSERT(t && json_integer_value(json_object_get(t, "va_delta")) >= (json_int_t)600 << 20);
	CU_ASSERT_EQUAL(shard_sum(o.report, "recycles"), 0);
	done(&o);
}

void cunit_x64(void)
{
	cunit_program(CUNIT64, "x64");
}

void cunit_x86(void)
{
#ifdef CUNIT32
	cunit_program(CUNIT32, "x86");
#else
	CU_FAIL("cunit_host32 was not built (no 32-bit CUnit library)");
#endif
}

/* 8. -j 2: both lanes used, every test exactly once. */
void two_lanes(void)
{
	outcome o;
	mg(&o, ARGV("run", "-j", "2", "--report", "report.json", "--", FAULT64),
	   ENV("MG_FAULT=slow@0,slow@1", "MG_FAULT_TESTS=200"), 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	json_t *shards = json_object_get(o.report, "shards");
	CU_ASSERT_EQUAL_FATAL(json_array_size(shards), 2);
	char seen[200] = {0};
	size_t i, k;
	json_t *s, *t;
	json_array_foreach(shards, i, s)
	{
		CU_ASSERT(json_array_size(json_object_get(s, "tests")) > 0);
		json_array_foreach(json_object_get(s, "tests"), k, t)
		{
			int n = -1;
			sscanf(json_string_value(json_object_get(t, "name")), "fault/t%d", &n);
			CU_ASSERT_FATAL(n >= 0 && n < 200);
			seen[n]++;
		}
	}
	for (int n = 0; n < 200; n++)
		CU_ASSERT_EQUAL(seen[n], 1);
	done(&o);
}

/* 9. An x64 host passes as an x86 one does. */
static void bench_host_passes(const char *host, const char *arch)
{
	outcome o;
	mg(&o, ARGV("run", "--report", "report.json", "--", host), ENV("MG_BENCH_TESTS=2000"), 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 2000);
	json_t *s = json_array_get(json_object_get(o.report, "shards"), 0);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(s, "arch")), arch);
	done(&o);
}

void host_x64(void)
{
	bench_host_passes(BENCH64, "x64");
}

void host_x86(void)
{
	bench_host_passes(BENCH32, "x86");
}

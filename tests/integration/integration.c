/*
 * integration.c - memguard run against real hosts (x86 and x64), asserting
 * on the exit status and on the JSON report read back with Jansson. Each
 * case is its own CTest entry (run__CASE).
 * Long on purpose: one case after another, each on its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <dirent.h>
#include <stdint.h>

#include "cgroup.h"
#include "mg_run.h"

/* 1. The demo dies run directly, and passes every test under memguard. */
static void demo_direct_dies(void)
{
	outcome o;
	mg(&o, (const char *const[]){DEMO32, NULL}, NULL, 0);
	/* abort() when the 32-bit address space is full */
	CU_ASSERT(!(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0));
	CU_ASSERT(strstr(o.err, "out of memory") != NULL || WIFSIGNALED(o.status));
	done(&o);
}

static void check_demo_report(outcome *o, const char *arch);

static void demo_recycles(void)
{
	outcome o;
	mg(&o, ARGV("run", "--report", "report.json", "--", DEMO32), NULL, 0);
	check_demo_report(&o, "x86");
	done(&o);
}

/* The same failure on a 64-bit build: a 4 GiB RLIMIT_AS is the ceiling. */
static void demo_direct_dies_capped(void)
{
	outcome o;
	mg(&o, (const char *const[]){"/bin/sh", "-c", "ulimit -v 4194304 && exec " DEMO64, NULL},
	   NULL, 0);
	CU_ASSERT(!(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0));
	CU_ASSERT(strstr(o.err, "out of memory") != NULL);
	done(&o);
}

static void demo_recycles_capped(void)
{
	outcome o;
	mg(&o, ARGV("run", "--address-space", "4G", "--report", "report.json", "--", DEMO64), NULL,
	   0);
	check_demo_report(&o, "x64");
	done(&o);
}

static void check_demo_report(outcome *o, const char *arch)
{
	CU_ASSERT(exited_with(o, 0));
	CU_ASSERT_FATAL(o->report != NULL);
	json_int_t pass = count(o->report, "pass");
	CU_ASSERT(pass >= 1000);
	size_t total = 0, i0;
	json_t *s0;
	json_array_foreach(json_object_get(o->report, "shards"), i0, s0) total +=
	    json_array_size(json_object_get(s0, "tests"));
	CU_ASSERT_EQUAL((size_t)pass, total);
	CU_ASSERT_EQUAL(count(o->report, "fail") + count(o->report, "crash") +
	                    count(o->report, "error") + count(o->report, "memory-limit"),
	                0);
	CU_ASSERT(shard_sum(o->report, "recycles") >= 1);
	/* recycled at 3.5 GiB before the kill at 3.75 GiB ever acted: in a
	 * 4 GiB space "below 4 GiB" alone would hold for a dying host too */
	CU_ASSERT_EQUAL(shard_sum(o->report, "kills"), 0);
	size_t i, g;
	json_t *s, *gen;
	json_array_foreach(json_object_get(o->report, "shards"), i, s)
	{
		CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(s, "arch")), arch);
		json_array_foreach(json_object_get(s, "generations"), g, gen)
		{
			json_int_t peak = json_integer_value(json_object_get(gen, "peak_va"));
			CU_ASSERT(peak < (json_int_t)15 << 28); /* 3.75 GiB */
			const char *end = json_string_value(json_object_get(gen, "end"));
			CU_ASSERT(end && (!strcmp(end, "recycle") || !strcmp(end, "quit")));
		}
	}
}

/* 2. A segfault in test 5: crash; the others pass. */
static void crash(void)
{
	outcome o;
	mg(&o, ARGV("run", "-j", "1", "--report", "report.json", "--", FAULT64),
	   ENV("MG_FAULT=segv@5", "MG_FAULT_TESTS=20"), 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "fault/t005"), "crash");
	json_t *t = find_test(o.report, "fault/t005");
	CU_ASSERT(t && strstr(json_string_value(json_object_get(t, "message")), "SIGSEGV"));
	CU_ASSERT_EQUAL(count(o.report, "pass"), 19);
	done(&o);
}

/* 3. A test that hangs: timeout; the rest run. */
static void timeout(void)
{
	outcome o;
	mg(&o, ARGV("run", "-j", "1", "--timeout", "1s", "--report", "report.json", "--", FAULT64),
	   ENV("MG_FAULT=hang@3", "MG_FAULT_TESTS=12"), 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "fault/t003"), "timeout");
	CU_ASSERT_EQUAL(count(o.report, "pass"), 11);
	done(&o);
}

/* 4. Garbage on the reply pipe: error; the rest run. */
static void garbage(void)
{
	outcome o;
	mg(&o, ARGV("run", "-j", "1", "--report", "report.json", "--", FAULT64),
	   ENV("MG_FAULT=garbage@4", "MG_FAULT_TESTS=12"), 0);
	CU_ASSERT(exited_with(&o, 3));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "fault/t004"), "error");
	json_t *t = find_test(o.report, "fault/t004");
	CU_ASSERT(t && strstr(json_string_value(json_object_get(t, "message")), "protocol"));
	CU_ASSERT_EQUAL(count(o.report, "pass"), 11);
	done(&o);
}

/* 5. 3 GiB reserved (in 256 MiB pieces, as a 32-bit process must) in one test: killed, retried
 * alone, memory-limit. */
static void reserve(const char *host)
{
	outcome o;
	mg(&o, ARGV("run", "-j", "1", "--kill-at", "va=2G", "--report", "report.json", "--", host),
	   ENV("MG_FAULT=reserve@2", "MG_FAULT_TESTS=8"), 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "fault/t002"), "memory-limit");
	json_t *t = find_test(o.report, "fault/t002");
	CU_ASSERT(t && json_integer_value(json_object_get(t, "attempts")) == 2);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 7);
	CU_ASSERT(shard_sum(o.report, "kills") >= 2);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "fault/t007"), "pass");
	done(&o);
}

static void reserve_x86(void)
{
	reserve(FAULT32);
}

static void reserve_x64(void)
{
	reserve(FAULT64);
}

/* 3 GiB reserved and released within a test: no sample can see it, the
 * VmPeak read at the test's boundary does; killed, retried, memory-limit. */
static void spike(const char *host)
{
	outcome o;
	mg(&o, ARGV("run", "-j", "1", "--kill-at", "va=2G", "--report", "report.json", "--", host),
	   ENV("MG_FAULT=spike@2", "MG_FAULT_TESTS=6"), 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "fault/t002"), "memory-limit");
	json_t *t = find_test(o.report, "fault/t002");
	const char *msg = t ? json_string_value(json_object_get(t, "message")) : NULL;
	CU_ASSERT(msg && strstr(msg, "peak va") != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 5);
	done(&o);
}

static void spike_x64(void)
{
	spike(FAULT64);
}

static void spike_x86(void)
{
	spike(FAULT32);
}

/* --node I/N: for N = 1..5 the nodes together run every test exactly once,
 * their sizes differ by at most one, and merging the node reports gives the
 * counts of a single-node run. */
static void node_split(void)
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

static void planted_leaks_x64(void)
{
	planted_leaks(LEAK64, "x64");
}

static void planted_leaks_x86(void)
{
	planted_leaks(LEAK32, "x86");
}

/*
 * A memory cgroup limited to 512 MiB, as in a CI container: run directly,
 * a host that keeps 64 MiB per test is killed by the kernel's OOM killer;
 * under memguard the x64 defaults (recycle at 80% of the cgroup's limit)
 * recycle it first and every test passes. Needs a writable cgroup tree
 * (root): v1's memory controller or v2's; skipped (77) otherwise.
 */
static char cg_dir[128], cg_procs[160];

static int write_file(const char *dir, const char *file, const char *text)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	int ok = fputs(text, f) >= 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

static int cgroup_make(uint64_t limit)
{
	char lim[32];
	snprintf(lim, sizeof(lim), "%llu\n", (unsigned long long)limit);
	snprintf(cg_dir, sizeof(cg_dir), "/sys/fs/cgroup/memory/memguard-it-%d", (int)getpid());
	if (mkdir(cg_dir, 0755) == 0) {
		if (write_file(cg_dir, "memory.limit_in_bytes", lim) < 0)
			return -1;
	} else {
		/* v2: the memory controller must be on for the root's children */
		snprintf(cg_dir, sizeof(cg_dir), "/sys/fs/cgroup/memguard-it-%d", (int)getpid());
		if (access("/sys/fs/cgroup/cgroup.controllers", F_OK) != 0 ||
		    write_file("/sys/fs/cgroup", "cgroup.subtree_control", "+memory") < 0 ||
		    mkdir(cg_dir, 0755) < 0)
			return -1;
		if (write_file(cg_dir, "memory.max", lim) < 0 ||
		    write_file(cg_dir, "memory.swap.max", "0") < 0)
			return -1;
	}
	snprintf(cg_procs, sizeof(cg_procs), "%s/cgroup.procs", cg_dir);
	return 0;
}

static void cgroup_oom_in(const char *host)
{
	static const char *const leaks =
	    "MG_FAULT=leakrss@0,leakrss@1,leakrss@2,leakrss@3,leakrss@4,leakrss@5,leakrss@6,"
	    "leakrss@7,leakrss@8,leakrss@9";
	outcome o;
	mg_run_cgroup_procs = cg_procs;
	mg(&o, (const char *const[]){host, NULL}, ENV(leaks, "MG_FAULT_TESTS=12"), 0);
	/* the kernel's OOM killer: SIGKILL */
	CU_ASSERT(WIFSIGNALED(o.status) && WTERMSIG(o.status) == SIGKILL);
	done(&o);

	mg(&o, ARGV("run", "-j", "1", "--report", "report.json", "--", host),
	   ENV(leaks, "MG_FAULT_TESTS=12"), 0);
	mg_run_cgroup_procs = NULL;
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 12);
	CU_ASSERT(shard_sum(o.report, "recycles") >= 1);
	CU_ASSERT_EQUAL(shard_sum(o.report, "kills"), 0);
	json_t *gen = json_array_get(
	    json_object_get(json_array_get(json_object_get(o.report, "shards"), 0), "generations"),
	    0);
	const char *why = json_string_value(json_object_get(gen, "reason"));
	CU_ASSERT(why && !strncmp(why, "rss ", 4));
	done(&o);
}

static void cgroup_oom(void)
{
	cgroup_oom_in(FAULT64);
}

/* x86's defaults are va limits; in a limited cgroup they get rss ones too,
 * or the kernel's OOM killer would end the 32-bit host first. */
static void cgroup_oom_x86(void)
{
	cgroup_oom_in(FAULT32);
}

/* A 32-bit host leaking 8 MiB blocks under a 2 GiB address space: the x86
 * limits scale with the cap (1.75 / 1.875 GiB), so it recycles, not dies. */
static void address_space_x86(void)
{
	outcome o;
	mg(&o, ARGV("run", "--address-space", "2G", "--report", "report.json", "--", DEMO32), NULL,
	   0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "crash") + count(o.report, "fail") +
	                    count(o.report, "memory-limit"),
	                0);
	CU_ASSERT(count(o.report, "pass") >= 1000);
	CU_ASSERT(shard_sum(o.report, "recycles") >= 2);
	size_t i, g;
	json_t *s, *gen;
	json_array_foreach(json_object_get(o.report, "shards"), i, s)
	{
		CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(s, "arch")), "x86");
		json_array_foreach(json_object_get(s, "generations"), g, gen) CU_ASSERT(
		    json_integer_value(json_object_get(gen, "peak_va")) < (json_int_t)2 << 30);
	}
	const char *hard =
	    json_string_value(json_object_get(json_object_get(o.report, "limits"), "hard"));
	CU_ASSERT(hard && strstr(hard, "va=1.88GiB"));
	done(&o);
}

/* A test directory with a script: hog.sh runs the 32-bit hog, which maps
 * MB MiB, as its child (not exec: the shell stays, a 64-bit parent). */
static void script_dir(char *dir, size_t n, const char *body)
{
	snprintf(dir, n, "/tmp/mg-script-XXXXXX");
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	char path[128];
	snprintf(path, sizeof(path), "%s/hog.sh", dir);
	FILE *f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	chmod(path, 0755);
	snprintf(path, sizeof(path), "%s/list", dir);
	f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs("small\nbig\nlast\n", f);
	fclose(f);
}

static void script_dir_free(const char *dir)
{
	char cmd[160];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CU_ASSERT(system(cmd) == 0);
}

/* The exec driver runs a shell script per test; the script's 32-bit child
 * maps 3.86 GiB. The guard reads each process's arch from the process, so
 * x86's kill limit (3.75 GiB) applies to it, not x64's (none): killed,
 * retried once, memory-limit; the other tests pass. */
static void exec_script_hog_x86(void)
{
	char dir[64], script[160], list[96];
	script_dir(dir, sizeof(dir),
	           "case \"$1\" in big) HOG_MODE=reserve " HOG32 " 3950 3000 ;;\n"
	           "*) HOG_MODE=reserve " HOG32 " 64 10 ;; esac");
	snprintf(script, sizeof(script), "%s/hog.sh", dir);
	snprintf(list, sizeof(list), "%s/list", dir);
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "1", "--driver", "exec", "--list-file", list, "--report",
	        "report.json", "--", script, "{}"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "big"), "memory-limit");
	CU_ASSERT(message_of(o.report, "big") && strstr(message_of(o.report, "big"), "32-bit"));
	json_t *t = find_test(o.report, "big");
	CU_ASSERT(t && json_integer_value(json_object_get(t, "attempts")) == 2);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "small"), "pass");
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "last"), "pass");
	done(&o);
	script_dir_free(dir);
}

/* The same under wrap: one command, the hard limit kills its tree. */
static void wrap_script_hog_x86(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "--driver", "wrap", "--report", "report.json", "--", "/bin/sh", "-c",
	        "HOG_MODE=reserve " HOG32 " 3950 3000; echo went on | tr a-z A-Z"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 0);
	CU_ASSERT(shard_sum(o.report, "kills") >= 1);
	/* the kill took the whole tree: the shell did not go on */
	json_t *t = json_array_get(
	    json_object_get(json_array_get(json_object_get(o.report, "shards"), 0), "tests"), 0);
	const char *out = json_string_value(json_object_get(t, "output"));
	CU_ASSERT(!out || !strstr(out, "WENT ON"));
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(t, "state")), "memory-limit");
	const char *msg = json_string_value(json_object_get(t, "message"));
	CU_ASSERT(msg && strstr(msg, "32-bit"));
	done(&o);
}

/* --shell: the script's child dies of SIGSEGV and the shell exits 139.
 * That is a crash with SIGSEGV, not a failure with "exit status 139"; a
 * script's own non-zero exit stays a failure. */
static void shell_segv(void)
{
	char dir[64], list[96];
	script_dir(dir, sizeof(dir), "");
	snprintf(list, sizeof(list), "%s/list", dir);
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "1", "--driver", "exec", "--list-file", list, "--report",
	        "report.json", "--shell",
	        "case {} in big) HOG_MODE=segv " HOG64
	        " 1 0 /dev/null; exit $? ;; *) exit 3 ;; esac"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "big"), "crash");
	CU_ASSERT(message_of(o.report, "big") && strstr(message_of(o.report, "big"), "SIGSEGV"));
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "small"), "fail");
	CU_ASSERT(message_of(o.report, "small") &&
	          strstr(message_of(o.report, "small"), "exit status 3"));
	done(&o);
	script_dir_free(dir);
}

/* A test's rss_delta is between its own boundary readings: a host keeping
 * 64 MiB touched per test shows 64 MiB for every test, however often the
 * guard samples in between (a sample inside a test once moved the base). */
static void rss_delta_exact(const char *host)
{
	static const char *const intervals[] = {"1ms", "5ms", "50ms"};
	for (size_t k = 0; k < 3; k++) {
		outcome o;
		mg(&o,
		   ARGV("run", "-j", "1", "--interval", intervals[k], "--report", "report.json",
		        "--", host),
		   ENV("MG_FAULT=leakrss@0,leakrss@1,leakrss@2,leakrss@3,leakrss@4,leakrss@5,"
		       "leakrss@6,leakrss@7,leakrss@8,leakrss@9,leakrss@10,leakrss@11",
		       "MG_FAULT_TESTS=12"),
		   0);
		CU_ASSERT(exited_with(&o, 0));
		CU_ASSERT_FATAL(o.report != NULL);
		json_t *tests = json_object_get(
		    json_array_get(json_object_get(o.report, "shards"), 0), "tests");
		CU_ASSERT_EQUAL(json_array_size(tests), 12);
		size_t i;
		json_t *t;
		json_array_foreach(tests, i, t)
		{
			json_int_t d = json_integer_value(json_object_get(t, "rss_delta"));
			if (d < (63 << 20) || d > (65 << 20))
				fprintf(stderr, "\n  --interval %s: %s rss_delta %lld\n",
				        intervals[k], json_string_value(json_object_get(t, "name")),
				        (long long)d);
			CU_ASSERT(d >= (63 << 20) && d <= (65 << 20));
		}
		done(&o);
	}
}

static void rss_delta_exact_x64(void)
{
	rss_delta_exact(FAULT64);
}

static void rss_delta_exact_x86(void)
{
	rss_delta_exact(FAULT32);
}

/* Every generation of the report's first shard: each check(gen) must hold;
 * returns how many there were. */
static size_t gens_of(json_t *report, json_t **out, size_t cap)
{
	json_t *gens =
	    json_object_get(json_array_get(json_object_get(report, "shards"), 0), "generations");
	size_t n = json_array_size(gens);
	for (size_t i = 0; i < n && i < cap; i++)
		out[i] = json_array_get(gens, i);
	return n < cap ? n : cap;
}

/* The boundary contract, admission: a host keeping 500 MiB per test, with
 * the default limits and pipeline. The host itself refuses the next test
 * when VA + the growth it expects would reach the kill limit, so every test
 * passes and no host is killed mid-test. */
static void growth_admission(const char *host, const char *const *extra)
{
	outcome o;
	const char *argv[16] = {MEMGUARD_BIN, "run", "-j", "1", "--report", "report.json"};
	size_t k = 6;
	for (size_t i = 0; extra && extra[i]; i++)
		argv[k++] = extra[i];
	argv[k++] = "--";
	argv[k++] = host;
	argv[k] = NULL;
	mg(&o, argv, ENV("MG_FAULT=bigleak@*", "MG_FAULT_TESTS=20"), 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 20);
	CU_ASSERT_EQUAL(shard_sum(o.report, "kills"), 0);
	CU_ASSERT(shard_sum(o.report, "recycles") >= 2);
	json_t *gens[16];
	size_t n = gens_of(o.report, gens, 16);
	for (size_t i = 0; i + 1 < n; i++) {
		const char *why = json_string_value(json_object_get(gens[i], "reason"));
		CU_ASSERT(why && strstr(why, "expected growth 500 MiB"));
		CU_ASSERT(json_integer_value(json_object_get(gens[i], "peak_va")) < (json_int_t)15
		                                                                        << 28);
	}
	done(&o);
}

static void growth_admission_x86(void)
{
	growth_admission(FAULT32, NULL);
}

static void growth_admission_capped(void)
{
	growth_admission(FAULT64, (const char *const[]){"--address-space", "4G", NULL});
}

/* The boundary contract, gap: a host that maps 14 MiB per test and keeps
 * KEEP of it fragments its 32-bit space (run directly it dies of SIGSEGV
 * when no 14 MiB block is left). With gap=64M the host asks at every
 * boundary whether a 64 MiB block still fits: no crash, recycles named
 * "gap" - also far below half the space (KEEP 1: the runner's own check,
 * past 2 GiB only, never saw it). */
static void gap_fragments(const char *keep, json_int_t peak_below)
{
	outcome o;
	char keep_env[64];
	snprintf(keep_env, sizeof(keep_env), "MG_FAULT_FRAG_KEEP_MB=%s", keep);
	mg(&o,
	   ARGV("run", "-j", "1", "--recycle-at", "gap=64M", "--report", "report.json", "--",
	        FAULT32),
	   ENV("MG_FAULT=frag@*", "MG_FAULT_TESTS=1000", keep_env), 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 1000);
	CU_ASSERT_EQUAL(count(o.report, "crash"), 0);
	json_t *gens[64];
	size_t n = gens_of(o.report, gens, 64), gap_recycles = 0;
	for (size_t i = 0; i < n; i++) {
		const char *why = json_string_value(json_object_get(gens[i], "reason"));
		gap_recycles += why && !strncmp(why, "gap", 3);
		CU_ASSERT(json_integer_value(json_object_get(gens[i], "peak_va")) < peak_below);
	}
	CU_ASSERT(gap_recycles >= 1);
	done(&o);
}

static void gap_fragments_x86(void)
{
	gap_fragments("8", (json_int_t)7 << 29); /* recycled by gap before va's 3.5 GiB */
}

static void gap_below_half_x86(void)
{
	gap_fragments("1", (json_int_t)1 << 30); /* never near half the space */
}

/* The boundary contract, death: a test maps 64 MiB pieces until the space
 * is full, then crashes (faster than any sample). The host says at the
 * fatal signal what it held, so the death is known as out of memory:
 * retried once alone, memory-limit, and the generation's peak is the real
 * one, not the few MiB the last sample saw. */
static void oom_crash(const char *host, const char *const *extra, int must_die)
{
	outcome o;
	const char *argv[16] = {MEMGUARD_BIN, "run", "-j", "1", "--report", "report.json"};
	size_t k = 6;
	for (size_t i = 0; extra && extra[i]; i++)
		argv[k++] = extra[i];
	argv[k++] = "--";
	argv[k++] = host;
	argv[k] = NULL;
	mg(&o, argv, ENV("MG_FAULT=oomcrash@3", "MG_FAULT_TESTS=6"), 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "fault/t003"), "memory-limit");
	json_t *t = find_test(o.report, "fault/t003");
	CU_ASSERT(t && json_integer_value(json_object_get(t, "attempts")) == 2);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 5);
	json_t *gens[8];
	size_t n = gens_of(o.report, gens, 8);
	CU_ASSERT_FATAL(n >= 2);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(gens[0], "end")), "kill");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(gens[1], "end")), "kill");
	CU_ASSERT(json_integer_value(json_object_get(gens[0], "peak_va")) >= (json_int_t)7 << 29);
	/* each attempt either died (known from what it said as it died: "out
	 * of memory") or, where the machine is slow enough (an emulated x86),
	 * was caught first by a sample at the kill limit; a death taken for a
	 * plain crash would be neither. With must_die no sample can come first
	 * (the kill limit is the whole space): both attempts died. */
	for (size_t g = 0; g < 2; g++) {
		const char *why = json_string_value(json_object_get(gens[g], "reason"));
		int died = why && strstr(why, "out of memory") != NULL;
		CU_ASSERT(died || (!must_die && why && strstr(why, ">= kill")));
	}
	done(&o);
}

static void oom_crash_x86(void)
{
	oom_crash(FAULT32, NULL, 0);
}

/* The same with the kill limit at the whole 4 GiB: only the host's own
 * word at its death can say it was out of memory. */
static void oom_death_x86(void)
{
	oom_crash(FAULT32, (const char *const[]){"--kill-at", "va=4G", NULL}, 1);
}

static void oom_crash_capped(void)
{
	oom_crash(FAULT64, (const char *const[]){"--address-space", "4G", NULL}, 0);
}

/* The boundary contract, output: 50,000 fast tests that each print their
 * own name (with and without a newline) and fail; the host marks its
 * streams at every boundary, so each test's output is exactly its own,
 * however far stdout, stderr and the replies run apart. */
static void output_exact(const char *host)
{
	static const char *const kinds[] = {"MG_FAULT=name@*,fail@*", "MG_FAULT=namenonl@*,fail@*"};
	for (size_t k = 0; k < 2; k++) {
		outcome o;
		mg(&o, ARGV("run", "-q", "--report", "report.json", "--", host),
		   ENV(kinds[k], "MG_FAULT_TESTS=50000"), 0);
		CU_ASSERT(exited_with(&o, 1));
		CU_ASSERT_FATAL(o.report != NULL);
		CU_ASSERT_EQUAL(count(o.report, "fail"), 50000);
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
		CU_ASSERT_EQUAL(seen, 50000);
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

static void output_exact_x64(void)
{
	output_exact(FAULT64);
}

static void output_exact_x86(void)
{
	output_exact(FAULT32);
}

/* Planning from history: every 50th of 1,000 tests maps 700 MiB for 20 ms
 * while the host keeps 8 MiB per test. Without history the run remembers
 * the largest rise it has seen (issue 23; before, the big test that came
 * late in a host was killed mid-way and retried); with the first run's
 * report as --history the host refuses it where it would not fit (it knows
 * its peak) and a fresh host runs it: no kill, no failure. */
static const char *const transient_env[] = {"MG_FAULT=leak8@*,transient@%50", "MG_FAULT_TESTS=1000",
                                            "MG_FAULT_TRANSIENT_MB=700", NULL};

static void history_transient(const char *host, const char *cap)
{
	char first[96];
	outcome o;
	mg(&o,
	   cap ? ARGV("run", "-q", "-j", "1", "--address-space", cap, "--report", "report.json",
	              "--", host)
	       : ARGV("run", "-q", "-j", "1", "--report", "report.json", "--", host),
	   transient_env, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	/* the first big test comes at ~0.4 GiB: its rise is remembered, and no
	 * later one is started where it would reach the kill limit */
	CU_ASSERT_EQUAL(shard_sum(o.report, "kills"), 0);
	snprintf(first, sizeof(first), "/tmp/mg-history-%d.json", (int)getpid());
	CU_ASSERT_EQUAL_FATAL(json_dump_file(o.report, first, 0), 0);
	done(&o);
	mg(&o,
	   cap ? ARGV("run", "-j", "1", "--address-space", cap, "--history", first, "--report",
	              "report.json", "--", host)
	       : ARGV("run", "-j", "1", "--history", first, "--report", "report.json", "--", host),
	   transient_env, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 1000);
	CU_ASSERT_EQUAL(shard_sum(o.report, "kills"), 0);
	CU_ASSERT(strstr(o.err, "history: 1000 of 1000 tests known") != NULL);
	json_t *gens[32];
	size_t n = gens_of(o.report, gens, 32), by_history = 0;
	for (size_t i = 0; i < n; i++) {
		const char *why = json_string_value(json_object_get(gens[i], "reason"));
		by_history += why && !strncmp(why, "history: the next test rises", 28);
	}
	CU_ASSERT(by_history >= 1);
	/* the report says what history changed */
	json_t *hs = json_object_get(o.report, "history");
	CU_ASSERT(json_integer_value(json_object_get(hs, "known")) == 1000);
	CU_ASSERT(json_integer_value(json_object_get(hs, "avoided")) == (json_int_t)by_history);
	CU_ASSERT_EQUAL(json_array_size(json_object_get(hs, "grew")), 0); /* same sizes as then */
	CU_ASSERT(strstr(o.out, "recycles before a test that would not have fit") != NULL);
	done(&o);
	/* a test that now rises more than its history said is named, with both */
	mg(&o,
	   cap ? ARGV("run", "-q", "-j", "1", "--address-space", cap, "--history", first,
	              "--report", "report.json", "--", host)
	       : ARGV("run", "-q", "-j", "1", "--history", first, "--report", "report.json", "--",
	              host),
	   (const char *const[]){"MG_FAULT=leak8@*,transient@%50", "MG_FAULT_TESTS=1000",
	                         "MG_FAULT_TRANSIENT_MB=800", NULL},
	   0);
	CU_ASSERT_FATAL(o.report != NULL);
	json_t *g0 =
	    json_array_get(json_object_get(json_object_get(o.report, "history"), "grew"), 0);
	CU_ASSERT(g0 && json_integer_value(json_object_get(g0, "now")) >=
	                    json_integer_value(json_object_get(g0, "then")) + (90 << 20));
	CU_ASSERT(g0 && strstr(json_string_value(json_object_get(g0, "name")), "fault/t"));
	done(&o);
	unlink(first);
}

static void history_transient_x86(void)
{
	history_transient(FAULT32, NULL);
}

static void history_transient_capped(void)
{
	history_transient(FAULT64, "4G");
}

/* A history that cannot help is one line, never an error: a missing file,
 * a file that is not a report, a report of another suite. */
static void history_unusable(void)
{
	char bad[96], other[96];
	snprintf(bad, sizeof(bad), "/tmp/mg-history-bad-%d.json", (int)getpid());
	snprintf(other, sizeof(other), "/tmp/mg-history-other-%d.json", (int)getpid());
	FILE *f = fopen(bad, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs("{ not json", f);
	fclose(f);
	outcome o;
	mg(&o, ARGV("run", "-q", "--suite", "elsewhere", "--report", "report.json", "--", FAULT64),
	   ENV("MG_FAULT_TESTS=5"), 0);
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL_FATAL(json_dump_file(o.report, other, 0), 0);
	done(&o);
	const char *paths[] = {"/nonexistent/history.json", bad, other};
	const char *says[] = {"/nonexistent/history.json", bad, "holds no test of suite"};
	for (int i = 0; i < 3; i++) {
		mg(&o,
		   ARGV("run", "-q", "--history", paths[i], "--report", "report.json", "--",
		        FAULT64),
		   ENV("MG_FAULT_TESTS=5"), 0);
		CU_ASSERT(exited_with(&o, 0));
		CU_ASSERT(o.report && count(o.report, "pass") == 5);
		const char *line = strstr(o.err, "memguard: history: ");
		CU_ASSERT(line && strstr(line, says[i]) && strstr(line, "planning without it"));
		done(&o);
	}
	unlink(bad);
	unlink(other);
}

/* --history auto: the note of the nearest noted ancestor, in a real git
 * repository: run, note the report on the commit, commit again, run with
 * auto. */
static void history_auto(void)
{
	outcome o;
	static const char script[] =
	    "set -e; git init -q; git config user.email t@example.com; git config user.name t; "
	    "git commit -q --allow-empty -m base; "
	    "\"$MG\" run -q -j 1 --report first.json -- \"$HOST\" >/dev/null || true; "
	    "\"$MG\" note first.json >/dev/null; git commit -q --allow-empty -m next; "
	    "\"$MG\" run -j 1 --history auto --report report.json -- \"$HOST\"";
	mg(&o, (const char *const[]){"/bin/sh", "-c", script, NULL},
	   (const char *const[]){"MG=" MEMGUARD_BIN, "HOST=" FAULT64,
	                         "MG_FAULT=leak8@*,transient@%50", "MG_FAULT_TESTS=1000",
	                         "MG_FAULT_TRANSIENT_MB=700", "MEMGUARD_NOTES_REF=", NULL},
	   0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT(
	    strstr(o.err, "history: 1000 of 1000 tests known from the nearest noted ancestor") !=
	    NULL);
	done(&o);
}

/* --node I/N with history: four 200 ms tests at positions 0, 4, 8, 12 of
 * 40 (round-robin gives all four to node 1 of 4) are dealt one to each
 * node by their durations; every node computes the same split (each test
 * runs on exactly one node), and no node's planned wall is over 1.2 x the
 * mean. */
static void node_split_history(void)
{
	static const char *const env[] = {"MG_FAULT=slow@0,slow@4,slow@8,slow@12",
	                                  "MG_FAULT_TESTS=40", NULL};
	char hist[96];
	outcome o;
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--node", "1/1", "--report", "report.json", "--", FAULT64),
	   env, 0);
	CU_ASSERT_FATAL(o.report != NULL);
	snprintf(hist, sizeof(hist), "/tmp/mg-node-history-%d.json", (int)getpid());
	CU_ASSERT_EQUAL_FATAL(json_dump_file(o.report, hist, 0), 0);
	done(&o);
	char seen[40] = {0};
	double wall[4], sum = 0, max = 0;
	int slow_on[4] = {0};
	for (int i = 1; i <= 4; i++) {
		char node[8];
		snprintf(node, sizeof(node), "%d/4", i);
		mg(&o,
		   ARGV("run", "-q", "-j", "1", "--node", node, "--history", hist, "--report",
		        "report.json", "--", FAULT64),
		   env, 0);
		CU_ASSERT(exited_with(&o, 0));
		CU_ASSERT_FATAL(o.report != NULL);
		size_t s, t;
		json_t *sh, *x;
		json_array_foreach(json_object_get(o.report, "shards"), s, sh)
		    json_array_foreach(json_object_get(sh, "tests"), t, x)
		{
			int k = atoi(json_string_value(json_object_get(x, "name")) + 7);
			CU_ASSERT(k >= 0 && k < 40 && !seen[k]);
			seen[k] = 1;
			slow_on[i - 1] += k < 16 && k % 4 == 0;
		}
		/* the plan's walls, not the measured ones: a loaded machine moves
		 * those, and the split is what is under test */
		wall[i - 1] = json_real_value(json_object_get(o.report, "expected_wall"));
		CU_ASSERT(wall[i - 1] >= 0.15);
		sum += wall[i - 1];
		max = wall[i - 1] > max ? wall[i - 1] : max;
		done(&o);
	}
	for (int k = 0; k < 40; k++)
		CU_ASSERT(seen[k]);
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(slow_on[i], 1);
	CU_ASSERT(max <= 1.2 * sum / 4);
	unlink(hist);
}

/* --history auto on a pull request starts from the merge-base with its
 * target branch (GITHUB_BASE_REF): the branch's own newer note (another
 * suite's) is passed over; without the variable it is the nearest, and is
 * said to hold no test of this suite. A corrupt note is one line too. */
static void history_auto_pr(void)
{
	outcome o;
	static const char script[] =
	    "set -e; git init -q -b main; git config user.email t@example.com; "
	    "git config user.name t; git commit -q --allow-empty -m base; "
	    "\"$MG\" run -q -j 1 --report first.json -- \"$HOST\" >/dev/null || true; "
	    "\"$MG\" note first.json >/dev/null; git checkout -q -b feature; "
	    "git commit -q --allow-empty -m mine; "
	    "MG_FAULT_TESTS=3 \"$MG\" run -q --suite elsewhere --report other.json -- \"$HOST\" "
	    ">/dev/null; \"$MG\" note other.json >/dev/null; git commit -q --allow-empty -m head; "
	    "echo '== pr'; GITHUB_BASE_REF=main \"$MG\" run -j 1 --history auto --report "
	    "pr.json -- \"$HOST\" >/dev/null; "
	    "echo '== push'; \"$MG\" run -j 1 --history auto --report report.json -- "
	    "\"$HOST\" >/dev/null; "
	    "git notes --ref=memguard add -f -m 'not a report' HEAD; "
	    "echo '== corrupt'; \"$MG\" run -j 1 --history auto --report corrupt.json -- "
	    "\"$HOST\" >/dev/null";
	mg(&o, (const char *const[]){"/bin/sh", "-c", script, NULL},
	   (const char *const[]){"MG=" MEMGUARD_BIN, "HOST=" FAULT64, "MG_FAULT_TESTS=20",
	                         "GITHUB_BASE_REF=", NULL},
	   0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(strstr(o.out, "== corrupt") != NULL); /* every step ran */
	/* stderr in order: the pull request's run knew every test (the base's
	 * note), the push's found the branch's note of another suite, the
	 * corrupt note was one line as well */
	const char *k1 =
	    strstr(o.err, "history: 20 of 20 tests known from the nearest noted ancestor");
	const char *k2 = strstr(o.err, "holds no test of suite 'fault_host64'");
	CU_ASSERT(k1 != NULL);
	CU_ASSERT(k2 != NULL && k1 && k2 > k1);
	const char *k3 = k2 ? strstr(k2 + 1, "memguard: history: ") : NULL;
	CU_ASSERT(k3 && strstr(k3, "planning without it"));
	done(&o);
}

/* --order history: with a history the longest tests start first (here two
 * 200 ms tests near the end of the list), the rest keep list order; an
 * unknown order is a usage error naming it. */
static void order_history(void)
{
	static const char *const env[] = {"MG_FAULT=slow@30,slow@35", "MG_FAULT_TESTS=40", NULL};
	char hist[96];
	outcome o;
	mg(&o, ARGV("run", "-q", "-j", "1", "--report", "report.json", "--", FAULT64), env, 0);
	CU_ASSERT_FATAL(o.report != NULL);
	snprintf(hist, sizeof(hist), "/tmp/mg-order-history-%d.json", (int)getpid());
	CU_ASSERT_EQUAL_FATAL(json_dump_file(o.report, hist, 0), 0);
	done(&o);
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--history", hist, "--order", "history", "--report",
	        "report.json", "--", FAULT64),
	   env, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	json_t *tests =
	    json_object_get(json_array_get(json_object_get(o.report, "shards"), 0), "tests");
	CU_ASSERT_FATAL(json_array_size(tests) == 40);
	const char *n0 = json_string_value(json_object_get(json_array_get(tests, 0), "name"));
	const char *n1 = json_string_value(json_object_get(json_array_get(tests, 1), "name"));
	CU_ASSERT((!strcmp(n0, "fault/t030") && !strcmp(n1, "fault/t035")) ||
	          (!strcmp(n0, "fault/t035") && !strcmp(n1, "fault/t030")));
	const char *n2 = json_string_value(json_object_get(json_array_get(tests, 2), "name"));
	CU_ASSERT_STRING_EQUAL(n2, "fault/t000");
	done(&o);
	mg(&o, ARGV("run", "--order", "sideways", "--", FAULT64), NULL, 0);
	CU_ASSERT(exited_with(&o, 2));
	CU_ASSERT(strstr(o.err, "sideways") != NULL);
	done(&o);
	unlink(hist);
}

/* Limits that contradict each other or the machine: exit 2, both named. */
static void contradicts(const char *host, const char *flag1, const char *v1, const char *flag2,
                        const char *v2, const char *want1, const char *want2)
{
	outcome o;
	if (flag2)
		mg(&o, ARGV("run", flag1, v1, flag2, v2, "--", host), NULL, 0);
	else
		mg(&o, ARGV("run", flag1, v1, "--", host), NULL, 0);
	CU_ASSERT(exited_with(&o, 2));
	if (!strstr(o.err, want1) || (want2 && !strstr(o.err, want2))) {
		fprintf(stderr, "\n  stderr '%s' lacks '%s' / '%s'\n", o.err, want1,
		        want2 ? want2 : "");
		CU_FAIL("the message does not name both");
	}
	CU_ASSERT(o.report == NULL);
	done(&o);
}

static void contradictory_limits(void)
{
	contradicts(FAULT64, "--recycle-at", "rss=2G", "--kill-at", "rss=1G",
	            "recycle-at rss=2.00GiB", "kill-at rss=1.00GiB");
	contradicts(FAULT64, "--recycle-at", "va=1G", "--kill-at", "va=1G", "recycle-at va=1.00GiB",
	            "kill-at va=1.00GiB");
	contradicts(FAULT64, "--address-space", "1G", "--kill-at", "va=2G", "kill-at va=2.00GiB",
	            "address space (1.00GiB");
	/* this machine's cgroup has no limit (a test that makes one is below) */
	cgroup_usage u = {0, 0, 0};
	cgroup_mem cg;
	if (cgroup_find(&cg, 0, NULL) < 0 || cgroup_read(&cg, &u, NULL) < 0 || !u.limit)
		contradicts(FAULT64, "--recycle-at", "cgroup=80%", NULL, NULL,
		            "recycle-at cgroup=80%", "no limit");
}

static void contradictory_limits_x86(void)
{
	contradicts(FAULT32, "--kill-at", "va=5G", NULL, NULL, "kill-at va=5.00GiB",
	            "x86 address space (4.00GiB)");
	contradicts(FAULT32, "--recycle-at", "va=3.9G", NULL, NULL, "recycle-at va=3.90GiB",
	            "default kill-at va=3.75GiB");
}

/* --arch that contradicts the program: a warning naming both. */
static void arch_contradiction_x86(void)
{
	outcome o;
	mg(&o, ARGV("run", "--arch", "x64", "--", FAULT32), ENV("MG_FAULT_TESTS=3"), 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT(strstr(o.err, "--arch x64") && strstr(o.err, "32-bit (x86)"));
	done(&o);
}

/* The kernel's OOM killer with memguard's own limits off: in the 512 MiB
 * cgroup a host that keeps 64 MiB per test is SIGKILLed by the kernel. The
 * cgroup's oom_kill count says so: an out-of-memory death, retried alone in
 * a fresh host (where it passes), not a crash. */
static void cgroup_oom_killer(void)
{
	static const char *const leaks =
	    "MG_FAULT=leakrss@0,leakrss@1,leakrss@2,leakrss@3,leakrss@4,leakrss@5,leakrss@6,"
	    "leakrss@7,leakrss@8,leakrss@9";
	outcome o;
	mg_run_cgroup_procs = cg_procs;
	mg(&o,
	   ARGV("run", "-j", "1", "--recycle-at", "rss=none", "--kill-at", "rss=none", "--report",
	        "report.json", "--", FAULT64),
	   ENV(leaks, "MG_FAULT_TESTS=12"), 0);
	mg_run_cgroup_procs = NULL;
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "crash"), 0);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 12);
	CU_ASSERT(shard_sum(o.report, "kills") >= 1);
	json_t *gen = json_array_get(
	    json_object_get(json_array_get(json_object_get(o.report, "shards"), 0), "generations"),
	    0);
	const char *why = json_string_value(json_object_get(gen, "reason"));
	CU_ASSERT(why && strstr(why, "OOM killer") && strstr(why, "out of memory"));
	done(&o);
}

/* In a 512 MiB cgroup, -j 2 and the x64 defaults: the two lanes share one
 * budget; each host admits its next test only while its rss plus the growth
 * it expects stays below its share of the kill limit, so no host is killed
 * mid-test (with the budget split and no admission there were 6 kills). */
static void cgroup_oom_two_lanes(void)
{
	outcome o;
	mg_run_cgroup_procs = cg_procs;
	mg(&o, ARGV("run", "-j", "2", "--report", "report.json", "--", FAULT64),
	   ENV("MG_FAULT=leakrss@*", "MG_FAULT_TESTS=24"), 0);
	mg_run_cgroup_procs = NULL;
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 24);
	CU_ASSERT_EQUAL(shard_sum(o.report, "kills"), 0);
	CU_ASSERT(shard_sum(o.report, "recycles") >= 2);
	done(&o);
}

/* One rss budget for all lanes: with -j 2 and rss=512M, each host judges
 * its share of the pool (256 MiB) at its boundaries and the runner the pool
 * (512 MiB); every rss recycle says which, and the limits say "pool". */
static void rss_pool_two_lanes(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "2", "--recycle-at", "rss=512M", "--kill-at", "rss=2G", "--report",
	        "report.json", "--", FAULT64),
	   ENV("MG_FAULT=leakrss@*", "MG_FAULT_TESTS=40"), 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 40);
	CU_ASSERT_EQUAL(shard_sum(o.report, "kills"), 0);
	CU_ASSERT(shard_sum(o.report, "recycles") >= 2);
	const char *soft =
	    json_string_value(json_object_get(json_object_get(o.report, "limits"), "soft"));
	CU_ASSERT(soft && strstr(soft, "one pool for 2 lanes"));
	size_t i, g, rss_recycles = 0;
	json_t *sh, *gen;
	json_array_foreach(json_object_get(o.report, "shards"), i, sh)
	    json_array_foreach(json_object_get(sh, "generations"), g, gen)
	{
		const char *why = json_string_value(json_object_get(gen, "reason"));
		if (!why || strncmp(why, "rss ", 4))
			continue;
		rss_recycles++;
		int pool = !strncmp(why, "rss pool ", 9);
		/* the runner: the pool at 512 MiB or more; the host: its share */
		CU_ASSERT(
		    pool ? atof(why + 9) >= 512 && strstr(why, ">= recycle 512 MiB")
		         : strstr(why, ">= recycle 256 MiB (its share of the pool's 512 MiB)") ||
		               strstr(why, "(its share of the pool)"));
	}
	CU_ASSERT(rss_recycles >= 2);
	done(&o);
}

/* wrap cannot recycle: a soft limit is a warning in the report and the
 * console, not a recycle, and the command runs once, whole. The program
 * holds 128 MiB for 200 ms, so the samples see it. */
static void wrap_soft_warning(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "--driver", "wrap", "--recycle-at", "va=100M", "--report", "report.json",
	        "--", FAULT64),
	   ENV("MG_FAULT=leak@0,leak@1,slow@2", "MG_FAULT_TESTS=4"), 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 1);
	CU_ASSERT_EQUAL(shard_sum(o.report, "recycles"), 0);
	json_t *gen = json_array_get(
	    json_object_get(json_array_get(json_object_get(o.report, "shards"), 0), "generations"),
	    0);
	const char *w = json_string_value(json_object_get(gen, "warning"));
	CU_ASSERT(w && !strncmp(w, "va ", 3) && strstr(w, "wrap"));
	CU_ASSERT(strstr(o.out, "soft-limit warnings: 1") != NULL);
	CU_ASSERT(strstr(o.err, "warning") != NULL);
	done(&o);
}

static int pid_alive(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	char buf[512];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] != 'Z'; /* a zombie is not alive */
}

/* A run stopped by sig after ms: memguard dies of sig once every host is
 * ended and the partial report written (interrupted, exit_code 128 + sig,
 * tests not run), and no host is left. */
static void interrupted_by(int sig, int ms)
{
	outcome o;
	mg_run_signal = sig;
	mg(&o, ARGV("run", "-j", "2", "--report", "report.json", "--", FAULT64),
	   ENV("MG_FAULT=hang@30,hang@31", "MG_FAULT_TESTS=60"), ms);
	mg_run_signal = 0;
	CU_ASSERT(killed_by(&o, sig));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT(json_is_true(json_object_get(o.report, "interrupted")));
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(o.report, "exit_code")), 128 + sig);
	CU_ASSERT(count(o.report, "not-run") >= 1);
	size_t i, g;
	json_t *s, *gen;
	int hosts = 0;
	json_array_foreach(json_object_get(o.report, "shards"), i, s)
	    json_array_foreach(json_object_get(s, "generations"), g, gen)
	{
		pid_t pid = (pid_t)json_integer_value(json_object_get(gen, "pid"));
		CU_ASSERT(pid > 0 && !pid_alive(pid));
		hosts++;
	}
	CU_ASSERT(hosts >= 2);
	done(&o);
}

/* 6. SIGTERM mid-run: no host left, a valid partial report, and memguard
 * ends by SIGTERM itself (a shell shows 143). */
static void sigterm(void)
{
	interrupted_by(SIGTERM, 1500);
}

/* SIGHUP (a closed terminal, a dropped ssh session), SIGQUIT, SIGUSR1 and
 * SIGUSR2 stop a run as SIGTERM does. */
static void stop_signals(void)
{
	static const int sigs[] = {SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
	for (size_t k = 0; k < sizeof(sigs) / sizeof(sigs[0]); k++)
		interrupted_by(sigs[k], 800);
}

/* A host that answers every run line with two results breaks the protocol
 * between tests: each such host ends as error (the generations say so),
 * every test passes in a fresh host, and the run is exit 3 saying so (it
 * exited 0 before). */
static void protocol_break_between_tests(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-q", "--driver", "native", "--report", "report.json", "--", TWO_RESULTS),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 3));
	CU_ASSERT(strstr(o.err, "broke the protocol") != NULL);
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(o.report, "exit_code")), 3);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 3);
	json_t *gens[8];
	size_t n = gens_of(o.report, gens, 8), errors = 0;
	for (size_t g = 0; g < n && g < 8; g++) {
		const char *why = json_string_value(json_object_get(gens[g], "reason"));
		errors += why && strstr(why, "protocol error: unexpected 'pass") != NULL;
	}
	CU_ASSERT(errors >= 1);
	done(&o);
}

/* 1 if a live (non-zombie) process is in process group pgid. */
static int group_alive(pid_t pgid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int alive = 0;
	while (d && (e = readdir(d)) && !alive) {
		char path[300], buf[512];
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = 0;
		char *p = strrchr(buf, ')'), state;
		int ppid, pgrp;
		if (p && sscanf(p + 2, "%c %d %d", &state, &ppid, &pgrp) == 3 && pgrp == pgid &&
		    state != 'Z')
			alive = 1;
	}
	if (d)
		closedir(d);
	return alive;
}

/* A host crashes while a child it forked (no exec) still holds its reply
 * pipe: no EOF comes, yet the crash is seen (SIGCHLD), the test is a
 * crash, the rest run, and the child, in the host's process group, does
 * not outlive the run. Broken, this case hangs until CTest's timeout. */
static void crash_child_holds_pipe(void)
{
	outcome o;
	mg(&o, ARGV("run", "-j", "1", "--report", "report.json", "--", FAULT64),
	   ENV("MG_FAULT=forkcrash@3", "MG_FAULT_TESTS=8"), 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "fault/t003"), "crash");
	CU_ASSERT_EQUAL(count(o.report, "pass"), 7);
	json_t *gen = json_array_get(
	    json_object_get(json_array_get(json_object_get(o.report, "shards"), 0), "generations"),
	    0);
	pid_t host = (pid_t)json_integer_value(json_object_get(gen, "pid"));
	CU_ASSERT(host > 0 && !pid_alive(host));
	CU_ASSERT(!group_alive(host)); /* the forked child went with its host */
	done(&o);
}

/* SIGTERM while the host is still starting (listing): ended by SIGTERM at
 * once, a report that says so (exit_code 143), and the host is gone. */
static void sigterm_while_listing(void)
{
	outcome o;
	mg(&o, ARGV("run", "--report", "report.json", "--", FAULT64),
	   ENV("MG_FAULT_START_MS=20000"), 500);
	CU_ASSERT(killed_by(&o, SIGTERM));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT(json_is_true(json_object_get(o.report, "interrupted")));
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(o.report, "exit_code")), 143);
	CU_ASSERT(strstr(o.err, "interrupted") != NULL);
	done(&o);
}

/* A real CUnit program through the CUnit binding: every test by its
 * suite/test name, a failing assertion with its file and line, and a leaky
 * test (600 MiB) that makes the host recycle. */
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
	CU_ASSERT_EQUAL(shard_sum(o.report, "recycles"), 1);
	done(&o);
}

static void cunit_x64(void)
{
	cunit_program(CUNIT64, "x64");
}

static void cunit_x86(void)
{
#ifdef CUNIT32
	cunit_program(CUNIT32, "x86");
#else
	CU_FAIL("cunit_host32 was not built (no 32-bit CUnit library)");
#endif
}

/* 7. Usage errors name the problem; a missing host is exit 3. */
static void bad_limit(void)
{
	outcome o;
	mg(&o, ARGV("run", "--recycle-at", "va=3.5Q", "--", FAULT64), NULL, 0);
	CU_ASSERT(exited_with(&o, 2));
	CU_ASSERT(strstr(o.err, "3.5Q") != NULL);
	CU_ASSERT(o.report == NULL);
	done(&o);
}

static void unknown_flag(void)
{
	outcome o;
	mg(&o, ARGV("run", "--frobnicate", "--", FAULT64), NULL, 0);
	CU_ASSERT(exited_with(&o, 2));
	CU_ASSERT(strstr(o.err, "--frobnicate") != NULL);
	done(&o);
}

/* A number past its type is a usage error naming it, not a wrapped value
 * (--node 1/4294967298 once ran as node 1 of 2). */
static void bad_numbers(void)
{
	static const char *const bad[][2] = {
	    {"--node", "1/4294967298"}, {"-j", "99999999999999999999"}, {"--pipeline", "0x10"}};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		outcome o;
		mg(&o,
		   ARGV("run", "-q", bad[i][0], bad[i][1], "--report", "report.json", "--",
		        FAULT64),
		   NULL, 0);
		CU_ASSERT(exited_with(&o, 2));
		CU_ASSERT(strstr(o.err, bad[i][1]) != NULL);
		CU_ASSERT(o.report == NULL);
		done(&o);
	}
}

static void missing_host(void)
{
	outcome o;
	mg(&o, ARGV("run", "--report", "report.json", "--", "/nonexistent/host-xyz"), NULL, 0);
	CU_ASSERT(exited_with(&o, 3));
	CU_ASSERT(strstr(o.err, "/nonexistent/host-xyz") != NULL);
	CU_ASSERT(o.report == NULL);
	done(&o);
}

static void bad_config(void)
{
	outcome o;
	char cfg[160];
	FILE *f;
	mg(&o, ARGV("version"), NULL, 0); /* only for the temp dir */
	snprintf(cfg, sizeof(cfg), "%s/bad.json", o.dir);
	f = fopen(cfg, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs("{\"recycle_at\": \"va=3G\", \"colour\": \"blue\"}\n", f);
	fclose(f);
	outcome p;
	mg(&p, ARGV("run", "--config", cfg, "--", FAULT64), NULL, 0);
	CU_ASSERT(exited_with(&p, 2));
	CU_ASSERT(strstr(p.err, "colour") != NULL);
	done(&p);
	done(&o);
}

/* 8. -j 2: both lanes used, every test exactly once. */
static void two_lanes(void)
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

static void host_x64(void)
{
	bench_host_passes(BENCH64, "x64");
}

static void host_x86(void)
{
	bench_host_passes(BENCH32, "x86");
}

/* A leaking x64 host recycles at a soft VA limit and loses no test. */
static void recycle_x64(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "1", "--recycle-at", "va=1G", "--report", "report.json", "--",
	        FAULT64),
	   ENV("MG_FAULT=leak@0,leak@1,leak@2,leak@3,leak@4,leak@5,leak@6,leak@7,leak@8,leak@9,"
	       "leak@10,leak@11,leak@12,leak@13,leak@14,leak@15,leak@16,leak@17,leak@18,leak@19",
	       "MG_FAULT_TESTS=30"),
	   0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 30);
	CU_ASSERT(shard_sum(o.report, "recycles") >= 1);
	done(&o);
}

/* list prints every name. */
static void list(void)
{
	outcome o;
	mg(&o, ARGV("list", "--", FAULT64), ENV("MG_FAULT_TESTS=7"), 0);
	CU_ASSERT(exited_with(&o, 0));
	int lines = 0;
	for (char *p = o.out; *p; p++)
		lines += *p == '\n';
	CU_ASSERT_EQUAL(lines, 7);
	CU_ASSERT(strstr(o.out, "fault/t006\n") != NULL);
	done(&o);
}

/* A filter matching nothing: no test ran, exit 5 (pytest's convention),
 * and the report is still written, with no tests and exit_code 5; with
 * --allow-no-tests (or the config key allow_no_tests) that is exit 0. */
static void no_tests(void)
{
	outcome o;
	mg(&o, ARGV("run", "-q", "--filter", "nomatch*", "--report", "report.json", "--", FAULT64),
	   ENV("MG_FAULT_TESTS=5"), 0);
	CU_ASSERT(exited_with(&o, 5));
	CU_ASSERT(strstr(o.err, "memguard run: no tests ran") != NULL);
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(o.report, "exit_code")), 5);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 0);
	done(&o);
}

static void no_tests_allowed(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-q", "--allow-no-tests", "--filter", "nomatch*", "--report", "report.json",
	        "--", FAULT64),
	   ENV("MG_FAULT_TESTS=5"), 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT(strstr(o.err, "no tests ran") == NULL);
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(o.report, "exit_code")), 0);
	done(&o);
	/* the config key, and "filter": "" (which matches no name) */
	mg(&o,
	   (const char *const[]){"/bin/sh", "-c",
	                         "echo '{\"filter\": \"\", \"allow_no_tests\": true}' "
	                         "> memguard.json && exec \"$MG\" run -q -- \"$HOST\"",
	                         NULL},
	   (const char *const[]){"MG=" MEMGUARD_BIN, "HOST=" FAULT64, "MG_FAULT_TESTS=5", NULL}, 0);
	CU_ASSERT(exited_with(&o, 0));
	done(&o);
	mg(&o,
	   (const char *const[]){"/bin/sh", "-c",
	                         "echo '{\"filter\": \"\"}' > memguard.json && "
	                         "exec \"$MG\" run -q -- \"$HOST\"",
	                         NULL},
	   (const char *const[]){"MG=" MEMGUARD_BIN, "HOST=" FAULT64, "MG_FAULT_TESTS=5", NULL}, 0);
	CU_ASSERT(exited_with(&o, 5));
	done(&o);
}

/* A host that never answers "list" (a script reading nothing, asleep):
 * the listing obeys --timeout (or --deadline), memguard run and memguard
 * list exit 3 saying so, and the host's group (the script and its sleep) is
 * gone: killed at the timeout, not only with memguard's PID namespace at
 * exit (--contain none: the pid the script writes is then the test's too).
 * Not a timed test: CTest's TIMEOUT bounds a hang. */
static void mute_lister(const char *cmd, const char *flag, const char *needle, int report)
{
	char script[512];
	snprintf(script, sizeof(script),
	         "printf '#!/bin/sh\\nread p _ < /proc/self/stat\\necho $p > pid\\nsleep 1000\\n' "
	         "> mute.sh && "
	         "chmod +x mute.sh && exec \"$MG\" %s %s 1s --contain none --driver native%s -- "
	         "./mute.sh",
	         cmd, flag, report ? " --report report.json" : "");
	outcome o;
	mg(&o, (const char *const[]){"/bin/sh", "-c", script, NULL},
	   (const char *const[]){"MG=" MEMGUARD_BIN, NULL}, 0);
	CU_ASSERT(exited_with(&o, 3));
	CU_ASSERT(strstr(o.err, needle) != NULL);
	if (report) {
		CU_ASSERT_FATAL(o.report != NULL);
		CU_ASSERT_EQUAL(json_integer_value(json_object_get(o.report, "exit_code")), 3);
	}
	char path[128], buf[32];
	snprintf(path, sizeof(path), "%s/pid", o.dir);
	pid_t pid = (pid_t)atoi(slurp(path, buf, sizeof(buf)));
	CU_ASSERT_FATAL(pid > 0);
	/* SIGKILL to the group is sent before memguard exits; let it land */
	for (int i = 0; i < 200 && group_alive(pid); i++)
		nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
	CU_ASSERT(!pid_alive(pid));
	CU_ASSERT(!group_alive(pid)); /* its sleep went with it */
	done(&o);
}

static void listing_timeout(void)
{
	mute_lister("run", "--timeout", "memguard run: listing timed out after 1 s", 1);
	mute_lister("list", "--timeout", "memguard list: listing timed out after 1 s", 0);
}

static void listing_deadline(void)
{
	mute_lister("run", "--deadline", "memguard run: listing timed out after", 1);
}

/* Issue 13, item 9: a hello in a protocol version memguard does not speak
 * is refused at listing, naming the version sent and those spoken: exit 3
 * for run (the report says 3) and for list. */
static void unknown_hello_version(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-q", "--driver", "native", "--report", "report.json", "--", BAD_VERSION),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 3));
	CU_ASSERT(strstr(o.err, "bad_version.sh' said hello in protocol version 9; memguard "
	                        "speaks versions 1 to 2") != NULL);
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(o.report, "exit_code")), 3);
	done(&o);
	mg(&o, ARGV("list", "--driver", "native", "--", BAD_VERSION), NULL, 0);
	CU_ASSERT(exited_with(&o, 3));
	CU_ASSERT(strstr(o.err, "memguard list: host '" BAD_VERSION "' said hello in protocol "
	                        "version 9") != NULL);
	CU_ASSERT(o.out[0] == 0);
	done(&o);
	/* version 1 while listing, 9 in the lane: each host is refused as a
	 * protocol error, the lane gives up, the test is `error` */
	mg(&o,
	   ARGV("run", "-q", "--driver", "native", "--report", "report.json", "--", BAD_VERSION),
	   ENV("LATE=1"), 0);
	CU_ASSERT(exited_with(&o, 3));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "error"), 1);
	json_t *gens[8];
	size_t n = gens_of(o.report, gens, 8), refused = 0;
	for (size_t g = 0; g < n && g < 8; g++) {
		const char *why = json_string_value(json_object_get(gens[g], "reason"));
		refused += why && strstr(why, "hello in protocol version 9; memguard speaks "
		                              "versions 1 to 2") != NULL;
	}
	CU_ASSERT(refused >= 1);
	done(&o);
}

/* A host listing a name twice is refused at listing (the host's fault:
 * exit 3), naming the test; a --tests-from file naming one twice runs it
 * once, with a warning. */
static void duplicate_names(void)
{
	outcome o;
	mg(&o, ARGV("run", "-q", "--driver", "native", "--report", "report.json", "--", DUP_NAMES),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 3));
	CU_ASSERT(strstr(o.err, "listed the test 'a/t1' more than once") != NULL);
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(o.report, "exit_code")), 3);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 0);
	done(&o);
	mg(&o, ARGV("list", "--driver", "native", "--", DUP_NAMES), NULL, 0);
	CU_ASSERT(exited_with(&o, 3));
	CU_ASSERT(strstr(o.err, "memguard list: host '" DUP_NAMES "' listed the test 'a/t1' "
	                        "more than once") != NULL);
	done(&o);
	mg(&o,
	   (const char *const[]){"/bin/sh", "-c",
	                         "printf 'fault/t001\\nfault/t003\\nfault/t001\\n' > names && "
	                         "exec \"$MG\" run -q --tests-from names --report report.json "
	                         "-- \"$HOST\"",
	                         NULL},
	   (const char *const[]){"MG=" MEMGUARD_BIN, "HOST=" FAULT64, "MG_FAULT_TESTS=5", NULL}, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT(strstr(o.err, "--tests-from names names 'fault/t001' more than once: it runs "
	                        "once") != NULL);
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 2);
	done(&o);
}

/* A host that starts a test, closes its reply pipe and keeps running (the
 * first host only): after DYING_DEADLINE memguard kills it and records it
 * as `error` "closed its reply pipe" (it said "crash", "killed by signal 9":
 * its own SIGKILL); the test is retried in a fresh host and passes, no test
 * is lost, and the protocol break makes the run exit 3. */
static void closed_reply_pipe(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-q", "--driver", "native", "-j", "1", "--report", "report.json", "--",
	        CLOSE_REPLY),
	   ENV("MARK=mark"), 0);
	CU_ASSERT(exited_with(&o, 3));
	CU_ASSERT(strstr(o.err, "1 host broke the protocol") != NULL);
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(o.report, "exit_code")), 3);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 3);
	json_t *gens[8];
	size_t n = gens_of(o.report, gens, 8), closed = 0, crashes = 0;
	for (size_t g = 0; g < n && g < 8; g++) {
		const char *end = json_string_value(json_object_get(gens[g], "end"));
		const char *why = json_string_value(json_object_get(gens[g], "reason"));
		closed += end && !strcmp(end, "error") && why &&
		          strstr(why, "closed its reply pipe") != NULL;
		crashes += end && !strcmp(end, "crash");
	}
	CU_ASSERT_EQUAL(closed, 1);
	CU_ASSERT_EQUAL(crashes, 0);
	done(&o);
}

/* memguard list with a filter matching nothing: exit 5 with a message, as
 * run; --allow-no-tests makes it 0. */
static void list_no_tests(void)
{
	outcome o;
	mg(&o, ARGV("list", "--filter", "nomatch*", "--", FAULT64), ENV("MG_FAULT_TESTS=5"), 0);
	CU_ASSERT(exited_with(&o, 5));
	CU_ASSERT(strstr(o.err, "memguard list: no tests: the filter 'nomatch*' matches none of "
	                        "the 5 listed") != NULL);
	CU_ASSERT(o.out[0] == 0);
	done(&o);
	mg(&o, ARGV("list", "--allow-no-tests", "--filter", "nomatch*", "--", FAULT64),
	   ENV("MG_FAULT_TESTS=5"), 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT(strstr(o.err, "no tests") == NULL);
	done(&o);
}

/* Out of file descriptors at spawn (pipe2 in memguard, or the child's setup
 * before execve): the message says "too many open files" and `ulimit -n`,
 * never "cannot execute" (the child's errno came from its setup, not from
 * execve), exit 3. The fds memguard holds vary, so the limit is walked up;
 * some limit lands in the child's setup. */
static void out_of_fds(void)
{
	outcome o;
	mg(&o,
	   (const char *const[]){"/bin/sh", "-c",
	                         "for n in $(seq 4 40); do (ulimit -n $n; exec \"$MG\" list -- "
	                         "\"$HOST\"); rc=$?; echo \"rc=$rc\" >&2; done",
	                         NULL},
	   (const char *const[]){"MG=" MEMGUARD_BIN, "HOST=" FAULT64, "MG_FAULT_TESTS=2", NULL}, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT(strstr(o.err, "cannot execute") == NULL);
	CU_ASSERT(strstr(o.err, "cannot set up the child for") != NULL);
	CU_ASSERT(strstr(o.err, "too many open files in memguard: raise its limit, e.g. "
	                        "`ulimit -n`") != NULL);
	CU_ASSERT(strstr(o.err, "rc=3") != NULL);
	CU_ASSERT(strstr(o.err, "rc=0") != NULL); /* enough fds at last */
	int other = 0;
	for (char *p = strstr(o.err, "rc="); p; p = strstr(p + 3, "rc="))
		other += p[3] != '0' && p[3] != '3' && strncmp(p, "rc=127", 6); /* 127: ld.so */
	CU_ASSERT_EQUAL(other, 0);
	if (other)
		fprintf(stderr, "stderr:\n%s\n", o.err);
	done(&o);
}

/* The streamed report renders as the run did: memguard report --adapter
 * console of the report a run wrote prints what that run printed (issue 14:
 * the report round-trips). Two lanes, a crash, a retry, planted leaks. */
static void report_console_same(const char *host, const char *const *env)
{
	outcome run, again;
	mg(&run, ARGV("run", "-q", "-j", "2", "--report", "report.json", "--", host), env, 0);
	CU_ASSERT_FATAL(run.report != NULL);
	CU_ASSERT(strstr(run.out, "shard") != NULL);
	char path[128];
	snprintf(path, sizeof(path), "%s/report.json", run.dir);
	mg(&again, ARGV("report", "--adapter", "console", path), NULL, 0);
	CU_ASSERT(exited_with(&again, 0));
	if (strcmp(run.out, again.out) != 0)
		fprintf(stderr, "in the run:\n%s\nfrom the report:\n%s\n", run.out, again.out);
	CU_ASSERT_STRING_EQUAL(run.out, again.out);
	done(&again);
	done(&run);
}

static void report_console_roundtrip(void)
{
	report_console_same(FAULT64, ENV("MG_FAULT=segv@5", "MG_FAULT_TESTS=40"));
}

static void report_console_roundtrip_leaks(void)
{
	report_console_same(LEAK64, NULL);
}

static const mg_case cases[] = {
    {"unknown_hello_version", unknown_hello_version},
    {"duplicate_names", duplicate_names},
    {"closed_reply_pipe", closed_reply_pipe},
    {"list_no_tests", list_no_tests},
    {"out_of_fds", out_of_fds},
    {"demo_direct_dies_x86", demo_direct_dies},
    {"report_console_roundtrip", report_console_roundtrip},
    {"report_console_roundtrip_leaks", report_console_roundtrip_leaks},
    {"demo_recycles_x86", demo_recycles},
    {"demo_direct_dies_capped", demo_direct_dies_capped},
    {"demo_recycles_capped", demo_recycles_capped},
    {"crash", crash},
    {"timeout", timeout},
    {"garbage", garbage},
    {"reserve_x86", reserve_x86},
    {"reserve_x64", reserve_x64},
    {"sigterm", sigterm},
    {"stop_signals", stop_signals},
    {"protocol_break_between_tests", protocol_break_between_tests},
    {"bad_limit", bad_limit},
    {"unknown_flag", unknown_flag},
    {"missing_host", missing_host},
    {"bad_config", bad_config},
    {"two_lanes", two_lanes},
    {"host_x64", host_x64},
    {"host_x86", host_x86},
    {"recycle_x64", recycle_x64},
    {"list", list},
    {"node_split", node_split},
    {"planted_leaks_x64", planted_leaks_x64},
    {"planted_leaks_x86", planted_leaks_x86},
    {"cgroup_oom", cgroup_oom},
    {"wrap_soft_warning", wrap_soft_warning},
    {"crash_child_holds_pipe", crash_child_holds_pipe},
    {"sigterm_while_listing", sigterm_while_listing},
    {"cunit_x64", cunit_x64},
    {"cunit_x86", cunit_x86},
    {"spike_x64", spike_x64},
    {"spike_x86", spike_x86},
    {"address_space_x86", address_space_x86},
    {"exec_script_hog_x86", exec_script_hog_x86},
    {"wrap_script_hog_x86", wrap_script_hog_x86},
    {"shell_segv", shell_segv},
    {"cgroup_oom_x86", cgroup_oom_x86},
    {"cgroup_oom_killer", cgroup_oom_killer},
    {"rss_pool_two_lanes", rss_pool_two_lanes},
    {"cgroup_oom_two_lanes", cgroup_oom_two_lanes},
    {"contradictory_limits", contradictory_limits},
    {"contradictory_limits_x86", contradictory_limits_x86},
    {"arch_contradiction_x86", arch_contradiction_x86},
    {"rss_delta_exact_x64", rss_delta_exact_x64},
    {"rss_delta_exact_x86", rss_delta_exact_x86},
    {"growth_admission_x86", growth_admission_x86},
    {"growth_admission_capped", growth_admission_capped},
    {"gap_fragments_x86", gap_fragments_x86},
    {"gap_below_half_x86", gap_below_half_x86},
    {"oom_crash_x86", oom_crash_x86},
    {"oom_death_x86", oom_death_x86},
    {"oom_crash_capped", oom_crash_capped},
    {"output_exact_x64", output_exact_x64},
    {"output_exact_x86", output_exact_x86},
    {"history_transient_x86", history_transient_x86},
    {"history_transient_capped", history_transient_capped},
    {"history_unusable", history_unusable},
    {"history_auto", history_auto},
    {"node_split_history", node_split_history},
    {"history_auto_pr", history_auto_pr},
    {"order_history", order_history},
    {"no_tests", no_tests},
    {"no_tests_allowed", no_tests_allowed},
    {"bad_numbers", bad_numbers},
    {"listing_timeout", listing_timeout},
    {"listing_deadline", listing_deadline},
};

int main(int argc, char **argv)
{
	/* x86 cases where the kernel refuses 32-bit programs: skipped (77) */
	if (argc > 1 && strstr(argv[1], "x86") && mg_exec_refused(BENCH32, "--list", argv[1], NULL))
		return 77;
	if (argc > 1 && !strncmp(argv[1], "cgroup_oom", 10)) {
		if (cgroup_make(512u << 20) < 0) {
			printf("SKIP run__%s: cannot make a memory cgroup (%s)\n", argv[1],
			       strerror(errno));
			rmdir(cg_dir);
			return 77;
		}
		int rc = mg_test_main("run", cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
		/* empty once the kernel has let go of the last exited process */
		for (int i = 0; i < 100 && rmdir(cg_dir) < 0 && errno == EBUSY; i++)
			nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
		return rc;
	}
	return mg_test_main("run", cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}

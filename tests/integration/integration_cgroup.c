/*
 * integration_cgroup.c - cgroup limits and the kernel's OOM killer, one
 * lane or two, and the RSS pool shared by lanes.
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

void cgroup_oom(void)
{
	cgroup_oom_in(FAULT64);
}

/* x86's defaults are va limits; in a limited cgroup they get rss ones too,
 * or the kernel's OOM killer would end the 32-bit host first. */
void cgroup_oom_x86(void)
{
	cgroup_oom_in(FAULT32);
}

/* The kernel's OOM killer with memguard's own limits off: in the 512 MiB
 * cgroup a host that keeps 64 MiB per test is SIGKILLed by the kernel. The
 * cgroup's oom_kill count says so: an out-of-memory death, retried alone in
 * a fresh host (where it passes), not a crash. */
void cgroup_oom_killer(void)
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
void cgroup_oom_two_lanes(void)
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
void rss_pool_two_lanes(void)
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

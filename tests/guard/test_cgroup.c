/* test_cgroup.c - v1 and v2 on fake trees, and the real cgroup of this test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"
#include "guard_test.h"

#define MI (1024ULL * 1024)

static const char v1_text[] = "9:name=systemd:/\n"
                              "5:cpu,cpuacct:/ci/job\n"
                              "4:memory:/ci/job\n"
                              "1:pids:/\n"
                              "0::/\n";

void test_cgroup_v1_unlimited(void)
{
	char root[256], want[512];
	cgroup_mem cg;
	cgroup_usage u = {1, 1, 1};
	mg_err err = {{0}};
	gt_tmpdir(root);
	gt_write(root, "memory/ci/job/memory.usage_in_bytes", "104857600\n");
	gt_write(root, "memory/ci/job/memory.limit_in_bytes", "9223372036854771712\n");
	gt_write(root, "memory/ci/job/memory.max_usage_in_bytes", "209715200\n");
	CU_ASSERT_EQUAL_FATAL(cgroup_find_in(&cg, v1_text, root, &err), 0);
	CU_ASSERT_EQUAL(cg.version, 1);
	snprintf(want, sizeof(want), "%s/memory/ci/job", root);
	CU_ASSERT_STRING_EQUAL(cg.dir, want);
	CU_ASSERT_EQUAL(cgroup_read(&cg, &u, &err), 0);
	CU_ASSERT_EQUAL(u.usage, 100 * MI);
	CU_ASSERT_EQUAL(u.limit, 0);
	CU_ASSERT_EQUAL(u.peak, 200 * MI);
	gt_rmtree(root);
}

void test_cgroup_v1_limited(void)
{
	char root[256], want[512];
	cgroup_mem cg;
	cgroup_usage u = {0};
	mg_err err = {{0}};
	gt_tmpdir(root);
	/* memory inside a comma list of controllers; a path with ':' in it */
	const char text[] = "3:cpu,memory,blkio:/a:b/c/\n0::/\n";
	gt_write(root, "memory/a:b/c/memory.usage_in_bytes", "1048576");
	gt_write(root, "memory/a:b/c/memory.limit_in_bytes", "2147483648\n");
	CU_ASSERT_EQUAL_FATAL(cgroup_find_in(&cg, text, root, &err), 0);
	CU_ASSERT_EQUAL(cg.version, 1);
	snprintf(want, sizeof(want), "%s/memory/a:b/c", root);
	CU_ASSERT_STRING_EQUAL(cg.dir, want);
	CU_ASSERT_EQUAL(cgroup_read(&cg, &u, &err), 0);
	CU_ASSERT_EQUAL(u.usage, MI);
	CU_ASSERT_EQUAL(u.limit, 2048 * MI);
	CU_ASSERT_EQUAL(u.peak, 0); /* no max_usage file */
	/* a root given with a trailing slash names the same directory */
	char slashed[300];
	snprintf(slashed, sizeof(slashed), "%s/", root);
	CU_ASSERT_EQUAL_FATAL(cgroup_find_in(&cg, text, slashed, &err), 0);
	CU_ASSERT_STRING_EQUAL(cg.dir, want);
	gt_rmtree(root);
}

void test_cgroup_v1_container_root(void)
{
	/* The group named in /proc/self/cgroup is not under the mount (no
	 * cgroup namespace): the controller root is the group. */
	char root[256], want[512];
	cgroup_mem cg;
	mg_err err = {{0}};
	gt_tmpdir(root);
	gt_write(root, "memory/memory.usage_in_bytes", "5\n");
	gt_write(root, "memory/memory.limit_in_bytes", "10\n");
	CU_ASSERT_EQUAL_FATAL(cgroup_find_in(&cg, v1_text, root, &err), 0);
	snprintf(want, sizeof(want), "%s/memory", root);
	CU_ASSERT_STRING_EQUAL(cg.dir, want);
	/* cgroup_find reads this process's real /proc/self/cgroup and the
	 * root from the environment. */
	setenv("MEMGUARD_CGROUP_ROOT", root, 1);
	int rc = cgroup_find(&cg, 0, &err);
	unsetenv("MEMGUARD_CGROUP_ROOT");
	if (rc == 0) {
		cgroup_usage u = {0};
		CU_ASSERT_EQUAL(cgroup_read(&cg, &u, &err), 0);
		CU_ASSERT_EQUAL(u.usage, 5);
		CU_ASSERT_EQUAL(u.limit, 10);
	} else {
		/* a v2-only machine: the fake v1 tree has no cgroup.controllers */
		CU_ASSERT_EQUAL(rc, MG_ENOTFOUND);
	}
	gt_rmtree(root);
}

void test_cgroup_v2_unlimited(void)
{
	char root[256], want[512];
	cgroup_mem cg;
	cgroup_usage u = {1, 1, 1};
	mg_err err = {{0}};
	gt_tmpdir(root);
	gt_write(root, "cgroup.controllers", "cpuset cpu io memory pids\n");
	gt_write(root, "user.slice/job.scope/memory.current", "52428800\n");
	gt_write(root, "user.slice/job.scope/memory.max", "max\n");
	CU_ASSERT_EQUAL_FATAL(cgroup_find_in(&cg, "0::/user.slice/job.scope\n", root, &err), 0);
	CU_ASSERT_EQUAL(cg.version, 2);
	snprintf(want, sizeof(want), "%s/user.slice/job.scope", root);
	CU_ASSERT_STRING_EQUAL(cg.dir, want);
	CU_ASSERT_EQUAL(cgroup_read(&cg, &u, &err), 0);
	CU_ASSERT_EQUAL(u.usage, 50 * MI);
	CU_ASSERT_EQUAL(u.limit, 0);
	CU_ASSERT_EQUAL(u.peak, 0); /* memory.peak absent: older kernel */
	gt_rmtree(root);
}

void test_cgroup_v2_limited(void)
{
	char root[256];
	cgroup_mem cg;
	cgroup_usage u = {0};
	mg_err err = {{0}};
	gt_tmpdir(root);
	gt_write(root, "cgroup.controllers", "memory\n");
	gt_write(root, "ci/memory.current", "1073741824\n");
	gt_write(root, "ci/memory.max", "4294967296\n");
	gt_write(root, "ci/memory.peak", "2147483648\n");
	CU_ASSERT_EQUAL_FATAL(cgroup_find_in(&cg, "0::/ci", root, &err), 0);
	CU_ASSERT_EQUAL(cg.version, 2);
	CU_ASSERT_EQUAL(cgroup_read(&cg, &u, &err), 0);
	CU_ASSERT_EQUAL(u.usage, 1024 * MI);
	CU_ASSERT_EQUAL(u.limit, 4096 * MI);
	CU_ASSERT_EQUAL(u.peak, 2048 * MI);
	/* A malformed number is named with its file. */
	gt_write(root, "ci/memory.max", "lots\n");
	CU_ASSERT_EQUAL(cgroup_read(&cg, &u, &err), MG_EINVAL);
	GT_ASSERT_CONTAINS(err.msg, "'lots'");
	GT_ASSERT_CONTAINS(err.msg, "memory.max");
	gt_rmtree(root);
}

void test_cgroup_not_found(void)
{
	char root[256];
	cgroup_mem cg;
	mg_err err = {{0}};
	gt_tmpdir(root);
	/* v2 line, but the root is not a v2 mount (no cgroup.controllers) */
	CU_ASSERT_EQUAL(cgroup_find_in(&cg, "0::/ci\n", root, &err), MG_ENOTFOUND);
	GT_ASSERT_CONTAINS(err.msg, root);
	/* v1 without a memory controller ("memoryx" is not "memory") */
	CU_ASSERT_EQUAL(cgroup_find_in(&cg, "3:cpu,memoryx:/a\n1:pids:/\n", root, &err),
	                MG_ENOTFOUND);
	CU_ASSERT_EQUAL(cgroup_find_in(&cg, "", root, &err), MG_ENOTFOUND);
	/* a found group whose files are missing */
	gt_write(root, "cgroup.controllers", "memory\n");
	CU_ASSERT_EQUAL_FATAL(cgroup_find_in(&cg, "0::/gone", root, &err), 0);
	cgroup_usage u;
	CU_ASSERT_EQUAL(cgroup_read(&cg, &u, &err), MG_ENOTFOUND);
	GT_ASSERT_CONTAINS(err.msg, "memory.current");
	gt_rmtree(root);
}

void test_cgroup_real(void)
{
	cgroup_mem cg;
	cgroup_usage u = {0};
	mg_err err = {{0}};
	unsetenv("MEMGUARD_CGROUP_ROOT");
	int rc = cgroup_find(&cg, 0, &err);
	if (rc)
		fprintf(stderr, "\n  cgroup_find: %s\n", err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	rc = cgroup_read(&cg, &u, &err);
	if (rc)
		fprintf(stderr, "\n  cgroup_read: %s\n", err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	fprintf(stderr, "\n  v%d %s: usage %llu limit %llu peak %llu\n", cg.version, cg.dir,
	        (unsigned long long)u.usage, (unsigned long long)u.limit,
	        (unsigned long long)u.peak);
	CU_ASSERT(u.usage > 0);
	CU_ASSERT(u.limit == 0 || u.limit >= u.usage / 2);
}

/* The OOM-kill count of either version; 0 where the kernel has no file. */
void test_cgroup_oom_kills(void)
{
	char root[256];
	cgroup_mem cg;
	uint64_t n = 99;
	mg_err err = {{0}};
	gt_tmpdir(root);
	gt_write(root, "cgroup.controllers", "memory\n");
	gt_write(root, "ci/memory.current", "1\n");
	CU_ASSERT_EQUAL_FATAL(cgroup_find_in(&cg, "0::/ci", root, &err), 0);
	CU_ASSERT_EQUAL(cgroup_oom_kills(&cg, &n, &err), 0);
	CU_ASSERT_EQUAL(n, 0); /* no memory.events */
	gt_write(root, "ci/memory.events",
	         "low 0\nhigh 0\nmax 12\noom 3\noom_kill 2\noom_group_kill 0\n");
	CU_ASSERT_EQUAL(cgroup_oom_kills(&cg, &n, &err), 0);
	CU_ASSERT_EQUAL(n, 2);
	char root1[256];
	gt_tmpdir(root1);
	gt_write(root1, "memory/job/memory.usage_in_bytes", "1");
	gt_write(root1, "memory/job/memory.oom_control",
	         "oom_kill_disable 0\nunder_oom 0\noom_kill 7\n");
	CU_ASSERT_EQUAL_FATAL(cgroup_find_in(&cg, "4:memory:/job\n", root1, &err), 0);
	CU_ASSERT_EQUAL(cgroup_oom_kills(&cg, &n, &err), 0);
	CU_ASSERT_EQUAL(n, 7);
}

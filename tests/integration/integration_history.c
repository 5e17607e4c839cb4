/*
 * integration_history.c - runs planned from an earlier run's history
 * (--history: a file or the notes).
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
	/* every recycle is a refusal by an expected rise, worded by its source:
	 * here the host's own (it saw a 700 MiB test; history says the next one
	 * rises 8 MiB); only history's own refusals are kills it avoided
	 * (admission__rise_history has one) */
	json_t *gens[32];
	size_t n = gens_of(o.report, gens, 32), by_history = 0, by_rise = 0;
	for (size_t i = 0; i < n; i++) {
		const char *why = json_string_value(json_object_get(gens[i], "reason"));
		by_history += why && !strncmp(why, "history: the next test rises", 28);
		by_rise += why && (!strncmp(why, "this host's largest rise", 24) ||
		                   !strncmp(why, "this run's largest rise", 23));
	}
	CU_ASSERT(n >= 2);
	CU_ASSERT_EQUAL((json_int_t)(by_history + by_rise), shard_sum(o.report, "recycles"));
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

void history_transient_x86(void)
{
	history_transient(FAULT32, NULL);
}

void history_transient_capped(void)
{
	history_transient(FAULT64, "4G");
}

/* The same second run with one run line in flight (--pipeline 1): the
 * runner, which feeds a drained host, refuses the big tests before the
 * host can. Its refusal is worded by its source and counted as history's
 * avoided kill, as the host's is: before, it said "va ... + expected growth
 * ... would reach the kill limit" and history avoided nothing (the case
 * above failed so under load, when the runner happened to refuse first). */
void history_transient_runner(void)
{
	char first[96];
	outcome o;
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--address-space", "4G", "--report", "report.json", "--",
	        FAULT64),
	   transient_env, 0);
	CU_ASSERT_FATAL(o.report != NULL);
	snprintf(first, sizeof(first), "/tmp/mg-history-r-%d.json", (int)getpid());
	CU_ASSERT_EQUAL_FATAL(json_dump_file(o.report, first, 0), 0);
	done(&o);
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--pipeline", "1", "--address-space", "4G", "--history",
	        first, "--report", "report.json", "--", FAULT64),
	   transient_env, 0);
	unlink(first);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 1000);
	CU_ASSERT_EQUAL(shard_sum(o.report, "kills"), 0);
	json_t *gens[32];
	size_t n = gens_of(o.report, gens, 32), by_history = 0;
	for (size_t i = 0; i < n; i++) {
		const char *why = json_string_value(json_object_get(gens[i], "reason"));
		by_history += why && !strncmp(why, "history: the next test rises", 28);
	}
	CU_ASSERT(by_history >= 1);
	CU_ASSERT_EQUAL((json_int_t)by_history, shard_sum(o.report, "recycles"));
	json_t *hs = json_object_get(o.report, "history");
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(hs, "avoided")), (json_int_t)by_history);
	done(&o);
}

/* A history that cannot help is one line, never an error: a missing file,
 * a file that is not a report, a report of another suite. */
void history_unusable(void)
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
void history_auto(void)
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

/*
 * A run outside any repository does not load libgit2 (its dlopen and its
 * dependencies' start-up were ~18 ms of CPU a run): ld.so, asked by
 * LD_DEBUG, names no libgit2 there, and names it in a repository, where
 * the report still has the commit; nor does a run in a repository that
 * writes no report and shows only the console table, which has no commit.
 */
void identity_lazy(void)
{
	outcome o;
	static const char script[] =
	    "LD_DEBUG=files \"$MG\" run -q -j 1 --report a.json -- \"$HOST\" >/dev/null 2>a.err "
	    "|| exit 11; "
	    "grep -q 'file=libc[.]so' a.err || exit 12; " /* LD_DEBUG was heard */
	    "grep -q libgit2 a.err && exit 13; "
	    "git init -q && git config user.email t@example.com && git config user.name t && "
	    "git commit -q --allow-empty -m base || exit 14; "
	    "LD_DEBUG=files \"$MG\" run -q -j 1 --report report.json -- \"$HOST\" >/dev/null "
	    "2>b.err || exit 15; "
	    "grep -q 'file=libgit2' b.err || exit 16; "
	    "LD_DEBUG=files \"$MG\" run -q -j 1 -- \"$HOST\" >/dev/null 2>c.err || exit 18; "
	    "grep -q libgit2 c.err && exit 19; "
	    "grep -q 'not a git repository' a.json || exit 17";
	mg(&o, (const char *const[]){"/bin/sh", "-c", script, NULL},
	   (const char *const[]){"MG=" MEMGUARD_BIN, "HOST=" FAULT64, "MG_FAULT_TESTS=3", NULL}, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	const char *sha =
	    json_string_value(json_object_get(json_object_get(o.report, "commit"), "sha"));
	CU_ASSERT(sha && strlen(sha) == 40);
	done(&o);
}

/*
 * The first run's report made a history whose durations are exact: the
 * tests slow() names (each slept 200 ms: measured at least that) 0.2 s,
 * every other one 1 ms. Measured as they were, a fast test that the
 * machine's load held up for a while (100 ms under load 20 on two cores)
 * outranked another fast one or a node's share, and what is under test is
 * the plan made from a history, not the machine's timing.
 */
static void history_exact(json_t *report, int (*slow)(int k))
{
	size_t s, t;
	json_t *sh, *x;
	json_array_foreach(json_object_get(report, "shards"), s, sh)
	    json_array_foreach(json_object_get(sh, "tests"), t, x)
	{
		int k = atoi(json_string_value(json_object_get(x, "name")) + 7);
		if (slow(k))
			CU_ASSERT(json_real_value(json_object_get(x, "duration")) >= 0.2);
		json_object_set_new(x, "duration", json_real(slow(k) ? 0.2 : 0.001));
	}
}

static int slow_split(int k)
{
	return k < 16 && k % 4 == 0;
}

/* --node I/N with history: four 200 ms tests at positions 0, 4, 8, 12 of
 * 40 (round-robin gives all four to node 1 of 4) are dealt one to each
 * node by their durations; every node computes the same split (each test
 * runs on exactly one node), and no node's planned wall is over 1.2 x the
 * mean. */
void node_split_history(void)
{
	static const char *const env[] = {"MG_FAULT=slow@0,slow@4,slow@8,slow@12",
	                                  "MG_FAULT_TESTS=40", NULL};
	char hist[96];
	outcome o;
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--node", "1/1", "--report", "report.json", "--", FAULT64),
	   env, 0);
	CU_ASSERT_FATAL(o.report != NULL);
	history_exact(o.report, slow_split);
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
			slow_on[i - 1] += slow_split(k);
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
void history_auto_pr(void)
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

static int slow_order(int k)
{
	return k == 30 || k == 35;
}

/* --order history: with a history the longest tests start first (here two
 * 200 ms tests near the end of the list), equal ones (the rest) keep list
 * order; an unknown order is a usage error naming it. */
void order_history(void)
{
	static const char *const env[] = {"MG_FAULT=slow@30,slow@35", "MG_FAULT_TESTS=40", NULL};
	char hist[96];
	outcome o;
	mg(&o, ARGV("run", "-q", "-j", "1", "--report", "report.json", "--", FAULT64), env, 0);
	CU_ASSERT_FATAL(o.report != NULL);
	history_exact(o.report, slow_order);
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
	/* t030, t035, then t000 ... t039 without them: the whole order */
	int order[40] = {30, 35}, n = 2;
	for (int k = 0; k < 40; k++)
		if (!slow_order(k))
			order[n++] = k;
	for (int i = 0; i < 40; i++) {
		char want[16];
		snprintf(want, sizeof(want), "fault/t%03d", order[i]);
		const char *got =
		    json_string_value(json_object_get(json_array_get(tests, i), "name"));
		CU_ASSERT_STRING_EQUAL(got, want);
	}
	done(&o);
	mg(&o, ARGV("run", "--order", "sideways", "--", FAULT64), NULL, 0);
	CU_ASSERT(exited_with(&o, 2));
	CU_ASSERT(strstr(o.err, "sideways") != NULL);
	done(&o);
	unlink(hist);
}

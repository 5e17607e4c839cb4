/*
 * admission.c - a host refusing the next test by its expected rise says
 * where that rise came from (issue 23): history's figures for the test,
 * the largest rise this run has seen, or the largest rise the host saw of
 * its own tests. Only history's refusals are history's kills avoided.
 * Real x64 fault hosts, real memguard runs, a fixed kill limit.
 */
#include "mg_run.h"

/* Every test keeps 64 MiB; test I maps 300 MiB more for 20 ms: its rise is
 * 364 MiB. All 30 run lines go to a host at once (--pipeline 64). */
#define RUN_ARGS(...)                                                                              \
	ARGV("run", "-q", "-j", "1", "--pipeline", "64", "--kill-at", "va=1000M", __VA_ARGS__,     \
	     "--", FAULT64)

static const char *reason(json_t *report, size_t gen)
{
	json_t *g = json_array_get(
	    json_object_get(json_array_get(json_object_get(report, "shards"), 0), "generations"),
	    gen);
	const char *r = json_string_value(json_object_get(g, "reason"));
	return r ? r : "";
}

static int starts(const char *s, const char *prefix)
{
	if (strncmp(s, prefix, strlen(prefix)) == 0)
		return 1;
	fprintf(stderr, "\n  '%s' does not start with '%s'\n", s, prefix);
	return 0;
}

/* Without history: the first host had every run line before any result,
 * so no expect came with them, and it refuses by the rise it saw itself;
 * the second host's run lines came with the run's largest rise. Neither
 * is history's word. */
static void rise_sources(void)
{
	outcome o;
	mg(&o, RUN_ARGS("--report", "report.json"),
	   ENV("MG_FAULT=transient@1,leak@*", "MG_FAULT_TESTS=30", "MG_FAULT_TRANSIENT_MB=300"), 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 30);
	CU_ASSERT_EQUAL(shard_sum(o.report, "kills"), 0);
	CU_ASSERT(starts(reason(o.report, 0), "this host's largest rise 364 MiB: from va "));
	CU_ASSERT(starts(reason(o.report, 1), "this run's largest rise 364 MiB: from va "));
	CU_ASSERT_PTR_NULL(strstr(o.err, "history:"));
	CU_ASSERT_PTR_NULL(json_object_get(o.report, "history"));
	done(&o);
}

/* With history: test 10 rises 364 MiB from 643 MiB, past the kill limit.
 * The first run learns it (a kill, then a retry alone); with its report as
 * --history the first host refuses test 10 by history's figure, one kill
 * history avoided. */
static void rise_history(void)
{
	static const char *const env[] = {"MG_FAULT=transient@10,leak@*", "MG_FAULT_TESTS=30",
	                                  "MG_FAULT_TRANSIENT_MB=300", NULL};
	char hist[96];
	outcome o;
	mg(&o, RUN_ARGS("--report", "report.json"), env, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	snprintf(hist, sizeof(hist), "/tmp/mg-admission-history-%d.json", (int)getpid());
	CU_ASSERT_EQUAL_FATAL(json_dump_file(o.report, hist, 0), 0);
	done(&o);
	mg(&o, RUN_ARGS("--history", hist, "--report", "report.json"), env, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 30);
	CU_ASSERT_EQUAL(shard_sum(o.report, "kills"), 0);
	CU_ASSERT(starts(reason(o.report, 0), "history: the next test rises 364 MiB, from va "));
	json_t *hs = json_object_get(o.report, "history");
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(hs, "avoided")), 1);
	done(&o);
	unlink(hist);
}

static const mg_case cases[] = {
    {"rise_sources", rise_sources},
    {"rise_history", rise_history},
};

int main(int argc, char **argv)
{
	return mg_test_main("admission", cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}

/*
 * known_rise.c - a test whose own rise history knows is admitted by that
 * figure alone (protocol v4, `expect RISE GROWTH known`; issue 23, item 3):
 * a host where one big transient test ran does not recycle before every
 * later test history knows rises little, while a test history does not
 * know still needs the largest rise the host saw. Real fault hosts of each
 * arch driven by hand (the host library's side), a sh host that logs what
 * it is sent (the runner sends `known` only to a host that said version 4),
 * and real memguard runs of the 32-bit transient suite.
 */
#include <stdint.h>

#include "mg_run.h"

#define MIB ((uint64_t)1 << 20)

/* What a host driven by hand answered: its version, the tests it started,
 * and the recycle it ended with (why "" when none). */
typedef struct answers {
	unsigned version;
	int starts, recycles;
	char why[16];
	uint64_t bytes;
} answers;

/*
 * Runs host (a fault host: fault/t000 maps 600 MiB for 20 ms, the others
 * nothing) with MEMGUARD_HOST=version and a kill VA limit of 400 MiB on the
 * command lines cmds (quit appended), and reads its replies.
 */
static void drive(const char *host, const char *version, const char *cmds, answers *a)
{
	char host_env[4200], ver_env[32], cmd_env[1024], path[160], replies[8192];
	snprintf(host_env, sizeof(host_env), "HOST=%s", host);
	snprintf(ver_env, sizeof(ver_env), "MEMGUARD_HOST=%s", version);
	snprintf(cmd_env, sizeof(cmd_env), "CMDS=%squit\n", cmds);
	outcome o;
	mg(&o,
	   (const char *const[]){"/bin/sh", "-c",
	                         "printf '%s' \"$CMDS\" > cmds && exec \"$HOST\" 3<cmds 4>replies",
	                         NULL},
	   (const char *const[]){host_env, ver_env, cmd_env, "MG_FAULT=transient@0",
	                         "MG_FAULT_TESTS=4", "MG_FAULT_TRANSIENT_MB=600",
	                         "MEMGUARD_KILL_VA=419430400", "MEMGUARD_CMD_FD=3",
	                         "MEMGUARD_REPLY_FD=4", NULL},
	   0);
	CU_ASSERT(exited_with(&o, 0));
	snprintf(path, sizeof(path), "%s/replies", o.dir);
	slurp(path, replies, sizeof(replies));
	memset(a, 0, sizeof(*a));
	sscanf(replies, "hello %u", &a->version);
	for (char *p = replies; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		unsigned long long va, rss, bytes = 0;
		char why[16] = "";
		if (!strncmp(p, "start ", 6))
			a->starts++;
		else if (sscanf(p, "recycle %llu %llu %15s %llu", &va, &rss, why, &bytes) >= 2) {
			a->recycles++;
			snprintf(a->why, sizeof(a->why), "%s", why);
			a->bytes = bytes;
		}
	}
	if (a->recycles != 1 || a->starts < 1)
		fprintf(stderr, "\n  replies:\n%s", replies);
	done(&o);
}

/*
 * After fault/t000 rose 600 MiB, from ~10 MiB any test the host expects to
 * rise as much would reach the 400 MiB kill limit. History knows t001 and
 * t002 rise 1 MiB: both start here (before, the host's 600 MiB overrode
 * history and it recycled before t001); t003's 1 MiB is not history's own
 * figure (no `known`): the host's largest rise counts, a recycle by `rise`.
 * A test history knows rises 600 MiB is still refused, by its own figure.
 */
static void host_known(const char *host)
{
	answers a;
	drive(host, "4",
	      "run fault/t000\n"
	      "expect 1048576 0 known\nrun fault/t001\n"
	      "expect 1048576 0 known\nrun fault/t002\n"
	      "expect 1048576 0\nrun fault/t003\n",
	      &a);
	CU_ASSERT_EQUAL(a.version, 4);
	CU_ASSERT_EQUAL(a.starts, 3);
	CU_ASSERT_EQUAL(a.recycles, 1);
	CU_ASSERT_STRING_EQUAL(a.why, "rise");
	CU_ASSERT(a.bytes >= 600 * MIB);
	/* an unknown test with no expect at all: the same */
	drive(host, "4", "run fault/t000\nrun fault/t001\n", &a);
	CU_ASSERT_EQUAL(a.starts, 1);
	CU_ASSERT_STRING_EQUAL(a.why, "rise");
	/* history knows t001 rises 600 MiB: refused by history's figure */
	drive(host, "4", "run fault/t000\nexpect 629145600 0 known\nrun fault/t001\n", &a);
	CU_ASSERT_EQUAL(a.starts, 1);
	CU_ASSERT_EQUAL(a.recycles, 1);
	CU_ASSERT_STRING_EQUAL(a.why, "peak");
	CU_ASSERT_EQUAL(a.bytes, 600 * MIB);
}

static void host_known_x64(void)
{
	host_known(FAULT64);
}

static void host_known_x86(void)
{
	host_known(FAULT32);
}

/* Under a version 3 runner the host speaks 3 and admits as version 3 did:
 * the host's largest rise counts, whatever an expect says. */
static void host_v3(const char *host)
{
	answers a;
	drive(host, "3", "run fault/t000\nexpect 1048576 0 known\nrun fault/t001\n", &a);
	CU_ASSERT_EQUAL(a.version, 3);
	CU_ASSERT_EQUAL(a.starts, 1);
	CU_ASSERT_EQUAL(a.recycles, 1);
	CU_ASSERT_STRING_EQUAL(a.why, "rise");
}

static void host_v3_x64(void)
{
	host_v3(FAULT64);
}

static void host_v3_x86(void)
{
	host_v3(FAULT32);
}

/* The expect lines a sh host that says version v (3 or 4) was sent in a
 * run planned from history (its first run's report): 3 tests pass; *known
 * gets how many of them were the v4 form. */
static int runner_sent(const char *v, int *known)
{
	char hello[32], log_env[64], hist[96], path[160], log[4096];
	int expects = 0;
	snprintf(hello, sizeof(hello), "MG_HELLO=%s", v);
	snprintf(log_env, sizeof(log_env), "MG_CMD_LOG=cmds.log");
	snprintf(hist, sizeof(hist), "/tmp/mg-known-%s-%d.json", v, (int)getpid());
	outcome o;
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--driver", "native", "--report", "report.json", "--",
	        EXPECT_LOG),
	   ENV(hello, log_env), 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 3);
	CU_ASSERT_EQUAL_FATAL(json_dump_file(o.report, hist, 0), 0);
	done(&o);
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--driver", "native", "--history", hist, "--report",
	        "report.json", "--", EXPECT_LOG),
	   ENV(hello, log_env), 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 3);
	CU_ASSERT_EQUAL(shard_sum(o.report, "recycles"), 0);
	snprintf(path, sizeof(path), "%s/cmds.log", o.dir);
	slurp(path, log, sizeof(log));
	*known = 0;
	for (char *p = log; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, "expect ", 7))
			continue;
		expects++;
		char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		*known += len > 6 && !memcmp(p + len - 6, " known", 6);
	}
	if (expects != 3)
		fprintf(stderr, "\n  commands:\n%s", log);
	done(&o);
	unlink(hist);
	return expects;
}

/* The runner sends `known` to a host that said version 4, and the version
 * 2 form to one that said 3 (which refuses a third field, exit 3). */
static void runner_forms(void)
{
	int known;
	CU_ASSERT_EQUAL(runner_sent("4", &known), 3);
	CU_ASSERT_EQUAL(known, 3);
	CU_ASSERT_EQUAL(runner_sent("3", &known), 3);
	CU_ASSERT_EQUAL(known, 0);
}

/* The generations of report's first shard that ended by a refusal for a
 * rise that was not the next test's own (the run's or the host's largest). */
static int by_largest_rise(json_t *report)
{
	json_t *g, *gens = json_object_get(json_array_get(json_object_get(report, "shards"), 0),
	                                   "generations");
	size_t i;
	int n = 0;
	json_array_foreach(gens, i, g)
	{
		const char *r = json_string_value(json_object_get(g, "reason"));
		n += r && strstr(r, "largest rise") != NULL;
	}
	return n;
}

/*
 * Through memguard: 40 tests keep 8 MiB each, the second also maps 600
 * MiB for 20 ms; the kill limit is 700 MiB. Without history the run learns
 * that rise from fault/t001 and expects it of every test it does not know:
 * a host recycles from ~92 MiB on, before an 8 MiB test (no kill). With
 * that run as history every test's own rise is known: one host runs all
 * 40 (ending at ~320 MiB), 0 recycles (before: the host's own 608 MiB
 * counted for every test after t001, 1 recycle).
 */
static void runner_known(const char *host)
{
	static const char *const env[] = {"MG_FAULT=transient@1,leak8@*", "MG_FAULT_TESTS=40",
	                                  "MG_FAULT_TRANSIENT_MB=600", NULL};
	char hist[96];
	outcome o;
	snprintf(hist, sizeof(hist), "/tmp/mg-known-runner-%d.json", (int)getpid());
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--kill-at", "va=700M", "--report", "report.json", "--",
	        host),
	   env, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 40);
	CU_ASSERT_EQUAL(shard_sum(o.report, "kills"), 0);
	CU_ASSERT(shard_sum(o.report, "recycles") >= 1);
	CU_ASSERT(by_largest_rise(o.report) >= 1);
	json_int_t first = shard_sum(o.report, "recycles");
	CU_ASSERT_EQUAL_FATAL(json_dump_file(o.report, hist, 0), 0);
	done(&o);
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--kill-at", "va=700M", "--history", hist, "--report",
	        "report.json", "--", host),
	   env, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 40);
	CU_ASSERT_EQUAL(shard_sum(o.report, "kills"), 0);
	CU_ASSERT_EQUAL(shard_sum(o.report, "recycles"), 0);
	CU_ASSERT_EQUAL(by_largest_rise(o.report), 0);
	printf("\n  recycles: %lld without history, %lld with it\n", (long long)first,
	       (long long)shard_sum(o.report, "recycles"));
	done(&o);
	unlink(hist);
}

static void runner_known_x64(void)
{
	runner_known(FAULT64);
}

static void runner_known_x86(void)
{
	runner_known(FAULT32);
}

/* The 600 MiB tests of a ceiling_host32 run that failed, and those that
 * started so high that their rise reached x86's default kill limit (3.75
 * GiB): admission should have kept each from that host. */
static size_t transient_failed(json_t *report, size_t *too_high)
{
	const json_int_t kill = (json_int_t)3840 << 20, transient = (json_int_t)600 << 20;
	size_t i, k, failed = 0;
	json_t *s, *t;
	*too_high = 0;
	json_array_foreach(json_object_get(report, "shards"), i, s)
	    json_array_foreach(json_object_get(s, "tests"), k, t)
	{
		const char *name = json_string_value(json_object_get(t, "name"));
		if (!name || (atoi(name + 6) + 1) % 50)
			continue;
		json_int_t start = json_integer_value(json_object_get(t, "va_after")) -
		                   json_integer_value(json_object_get(t, "va_delta"));
		*too_high += start + transient >= kill;
		failed += strcmp(json_string_value(json_object_get(t, "state")), "pass") != 0;
	}
	return failed;
}

/*
 * The figure: 1,000 x86 tests keep 7 MiB each, every 50th maps 600
 * MiB in one block for 20 ms (tests/hosts/ceiling_host.c), default limits.
 * The first run knows no test: after the first 600 MiB test every host
 * expects that rise of each test (0 failures). The second, planned from the
 * first's report, knows every test's own rise: a host recycles before a
 * 600 MiB test that would not fit, never before a 7 MiB one for another's
 * rise. 0 failures, 0 kills both times.
 */
static void transient_x86(void)
{
	static const char *const env[] = {"MG_CEIL_LEAK_MB=7", NULL};
	char hist[96];
	size_t too_high;
	outcome o;
	snprintf(hist, sizeof(hist), "/tmp/mg-known-transient-%d.json", (int)getpid());
	mg(&o, ARGV("run", "-q", "-j", "1", "--report", "report.json", "--", CEIL32), env, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 1000);
	CU_ASSERT_EQUAL(transient_failed(o.report, &too_high), 0);
	CU_ASSERT_EQUAL(too_high, 0);
	CU_ASSERT_EQUAL(shard_sum(o.report, "kills"), 0);
	json_int_t first = shard_sum(o.report, "recycles");
	CU_ASSERT_EQUAL_FATAL(json_dump_file(o.report, hist, 0), 0);
	done(&o);
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--history", hist, "--report", "report.json", "--", CEIL32),
	   env, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 1000);
	CU_ASSERT_EQUAL(transient_failed(o.report, &too_high), 0);
	CU_ASSERT_EQUAL(too_high, 0);
	CU_ASSERT_EQUAL(shard_sum(o.report, "kills"), 0);
	json_int_t second = shard_sum(o.report, "recycles");
	printf("\n  recycles: %lld without history, %lld with it\n", (long long)first,
	       (long long)second);
	/* every test known: no host recycled for another test's rise */
	CU_ASSERT_EQUAL(by_largest_rise(o.report), 0);
	done(&o);
	unlink(hist);
}

static const mg_case cases[] = {
    {"host_known", host_known_x64},
    {"host_known_x86", host_known_x86},
    {"host_v3", host_v3_x64},
    {"host_v3_x86", host_v3_x86},
    {"runner_forms", runner_forms},
    {"runner_known", runner_known_x64},
    {"runner_known_x86", runner_known_x86},
    {"transient_x86", transient_x86},
};

int main(int argc, char **argv)
{
	/* x86 cases where the kernel refuses 32-bit programs: skipped (77) */
	if (argc > 1 && strstr(argv[1], "x86") && mg_exec_refused(FAULT32, "--list", argv[1], NULL))
		return 77;
	return mg_test_main("known", cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}

/*
 * integration_cli.c - the command line: bad limits, flags, numbers and
 * config, missing hosts, listing, no tests, report read back.
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

/* 7. Usage errors name the problem; a missing host is exit 3. */
void bad_limit(void)
{
	outcome o;
	mg(&o, ARGV("run", "--recycle-at", "va=3.5Q", "--", FAULT64), NULL, 0);
	CU_ASSERT(exited_with(&o, 2));
	CU_ASSERT(strstr(o.err, "3.5Q") != NULL);
	CU_ASSERT(o.report == NULL);
	done(&o);
}

void unknown_flag(void)
{
	outcome o;
	mg(&o, ARGV("run", "--frobnicate", "--", FAULT64), NULL, 0);
	CU_ASSERT(exited_with(&o, 2));
	CU_ASSERT(strstr(o.err, "--frobnicate") != NULL);
	done(&o);
}

/* A number past its type is a usage error naming it, not a wrapped value
 * (--node 1/4294967298 once ran as node 1 of 2). */
void bad_numbers(void)
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

void missing_host(void)
{
	outcome o;
	mg(&o, ARGV("run", "--report", "report.json", "--", "/nonexistent/host-xyz"), NULL, 0);
	CU_ASSERT(exited_with(&o, 3));
	CU_ASSERT(strstr(o.err, "/nonexistent/host-xyz") != NULL);
	CU_ASSERT(o.report == NULL);
	done(&o);
}

void bad_config(void)
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

/* list prints every name. */
void list(void)
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

/* A filter matching nothing of a native host's: no test ran, exit 5 (pytest's convention),
 * and the report is still written, with no tests and exit_code 5; with
 * --allow-no-tests (or the config key allow_no_tests) that is exit 0. */
void no_tests(void)
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

void no_tests_allowed(void)
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

/* memguard list with a filter matching nothing: exit 5 with a message, as
 * run; --allow-no-tests makes it 0. */
void list_no_tests(void)
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

void report_console_roundtrip(void)
{
	report_console_same(FAULT64, ENV("MG_FAULT=segv@5", "MG_FAULT_TESTS=40"));
}

void report_console_roundtrip_leaks(void)
{
	report_console_same(LEAK64, NULL);
}

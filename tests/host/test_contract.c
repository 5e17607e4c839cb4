/*
 * test_contract.c - the boundary contract's stream marks under the real
 * memguard binary, with a native host of each arch (tests/hosts/
 * contract_host.c): a test's output stays on that test when stdout is
 * non-blocking and full at the boundary, and when the output holds the
 * bytes of a mark; and, with a host driven by hand, that the host library
 * marks only the tests that wrote, with the run's secret.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mg_run.h"

/* Test name's output in report (NULL when none), and its length. */
static const char *output_len_of(json_t *report, const char *name, size_t *len)
{
	json_t *t = find_test(report, name);
	json_t *o = t ? json_object_get(t, "output") : NULL;
	*len = o ? json_string_length(o) : 0;
	return o ? json_string_value(o) : NULL;
}

/*
 * 50 tests, stdout made O_NONBLOCK by the first; each writes 96 KiB of its
 * own pattern and then fills the pipe, so the host library's mark meets
 * EAGAIN: every test's output is exactly the bytes it wrote, no more, no
 * less (a lost mark moves every later byte onto the wrong test).
 */
static void marks_nonblocking(const char *host)
{
	outcome o;
	char log[160], buf[8192];
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--output-limit", "4M", "--report", "report.json", "--",
	        host),
	   ENV("MG_CH=nonblock", "MG_CH_LOG=written.log"), 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 50);
	snprintf(log, sizeof(log), "%s/written.log", o.dir);
	slurp(log, buf, sizeof(buf));
	int exact = 0, logged = 0;
	for (char *p = buf; *p;) {
		char name[8];
		size_t want;
		if (sscanf(p, "%7s %zu", name, &want) != 2)
			break;
		logged++;
		size_t len;
		const char *out = output_len_of(o.report, name, &len);
		int ok = out && len == want;
		for (size_t j = 0; ok && j < len; j++)
			ok = out[j] == (j % 4 == 3 ? '.' : name[j % 4]);
		if (!ok)
			fprintf(stderr, "%s: wrote %zu bytes, the report has %zu%s\n", name, want,
			        len, out && len ? "" : " (none)");
		exact += ok;
		char *nl = strchr(p, '\n');
		p = nl ? nl + 1 : p + strlen(p);
	}
	CU_ASSERT_EQUAL(logged, 50);
	CU_ASSERT_EQUAL(exact, 50);
	done(&o);
}

static void marks_nonblocking_x64(void)
{
	marks_nonblocking(CONTRACT_HOST64);
}

static void marks_nonblocking_x86(void)
{
	marks_nonblocking(CONTRACT_HOST32);
}

/*
 * 20 tests whose output holds the 7 bytes of a version 2 mark naming a
 * later test ("\036\037mg:N\036"): the output stays on the test that wrote
 * it, mark bytes and all, and no test gets another's.
 */
static void marks_forged(const char *host)
{
	outcome o;
	mg(&o, ARGV("run", "-q", "-j", "1", "--report", "report.json", "--", host),
	   ENV("MG_CH=forge"), 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 20);
	int exact = 0;
	for (int i = 0; i < 20; i++) {
		char name[8], want[64];
		snprintf(name, sizeof(name), "c%02d", i);
		snprintf(want, sizeof(want), "%s-a \036\037mg:%d\036 %s-b\n", name, i + 2, name);
		size_t len;
		const char *out = output_len_of(o.report, name, &len);
		int ok = out && len == strlen(want) && !memcmp(out, want, len);
		if (!ok)
			fprintf(stderr, "%s: output '%s'\n", name, out ? out : "(none)");
		exact += ok;
	}
	CU_ASSERT_EQUAL(exact, 20);
	done(&o);
}

static void marks_forged_x64(void)
{
	marks_forged(CONTRACT_HOST64);
}

static void marks_forged_x86(void)
{
	marks_forged(CONTRACT_HOST32);
}

/*
 * A fault host driven by hand (version 3, a secret, 20 run lines from a
 * file, then quit): only the tests that wrote (every 5th prints its name)
 * are marked, each on both streams with the secret, and nothing else is
 * on them. The library's own writes (a reply write before every test, the
 * marks) are not the tests' writes: counted wrong, every test is marked.
 */
static void marks_silent(const char *host)
{
	static const char secret[] = "0123456789abcdef";
	char host_env[4200], want_out[512] = "", want_err[512] = "";
	snprintf(host_env, sizeof(host_env), "HOST=%s", host);
	outcome o;
	mg(&o,
	   (const char *const[]){"/bin/sh", "-c",
	                         "(for i in $(seq 0 19); do printf 'run fault/t%03d\\n' $i; done; "
	                         "echo quit) > cmds && exec \"$HOST\" 3<cmds 4>replies",
	                         NULL},
	   (const char *const[]){host_env, "MG_FAULT=name@%5", "MG_FAULT_TESTS=20",
	                         "MEMGUARD_HOST=3", "MEMGUARD_CMD_FD=3", "MEMGUARD_REPLY_FD=4",
	                         "MEMGUARD_MARK=0123456789abcdef", NULL},
	   0);
	CU_ASSERT(exited_with(&o, 0));
	for (int k = 4; k < 20; k += 5) { /* name@%5: the first at 4 */
		char mark[64];
		snprintf(mark, sizeof(mark), "\036\037mg:%s%d\036", secret, k);
		snprintf(want_out + strlen(want_out), sizeof(want_out) - strlen(want_out),
		         "fault/t%03d\n%s", k, mark);
		snprintf(want_err + strlen(want_err), sizeof(want_err) - strlen(want_err), "%s",
		         mark);
	}
	CU_ASSERT_STRING_EQUAL(o.out, want_out);
	CU_ASSERT_STRING_EQUAL(o.err, want_err);
	char path[128], replies[8192];
	snprintf(path, sizeof(path), "%s/replies", o.dir);
	slurp(path, replies, sizeof(replies));
	int passed = 0;
	for (char *p = replies; (p = strstr(p, "\npass ")) != NULL; p++)
		passed++;
	CU_ASSERT_EQUAL(passed, 20);
	CU_ASSERT(strncmp(replies, "hello 3 ", 8) == 0);
	done(&o);
}

static void marks_silent_x64(void)
{
	marks_silent(FAULT_HOST64);
}

static void marks_silent_x86(void)
{
	marks_silent(FAULT_HOST32);
}

static const mg_case cases[] = {
    {"marks_nonblocking", marks_nonblocking_x64}, {"marks_nonblocking_x86", marks_nonblocking_x86},
    {"marks_forged", marks_forged_x64},           {"marks_forged_x86", marks_forged_x86},
    {"marks_silent", marks_silent_x64},           {"marks_silent_x86", marks_silent_x86},
};

MG_TEST_MAIN("host_contract", cases)

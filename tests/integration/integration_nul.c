/*
 * integration_nul.c - output is bytes: a test that prints "a\0b" keeps all
 * three bytes in the report (\u0000 in its JSON), and the outputs that
 * cannot hold a NUL show it visibly (\x00 in JUnit and TeamCity), when the
 * run writes them and when `memguard report` renders the report read back.
 * Never a silent cut at the first NUL.
 */
#include "integration.h"

/* The output of the one test of the report at path, read with NUL allowed;
 * its length in *len. NULL when there is none. */
static char *output_in(const char *path, size_t *len)
{
	json_error_t je;
	json_t *r = json_load_file(path, JSON_ALLOW_NUL, &je);
	if (!r)
		fprintf(stderr, "%s: %s\n", path, je.text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	json_t *t = json_array_get(
	    json_object_get(json_array_get(json_object_get(r, "shards"), 0), "tests"), 0);
	json_t *o = json_object_get(t, "o");
	char *out = NULL;
	if (json_is_string(o)) {
		*len = json_string_length(o);
		out = malloc(*len + 1);
		memcpy(out, json_string_value(o), *len + 1);
	}
	json_decref(r);
	return out;
}

static int file_has(const char *path, const char *what)
{
	char buf[1 << 16];
	slurp(path, buf, sizeof(buf));
	if (!strstr(buf, what))
		fprintf(stderr, "%s lacks '%s':\n%s\n", path, what, buf);
	return strstr(buf, what) != NULL;
}

static void output_nul(const char *host)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-q", "--report", "report.json", "--adapter", "junit=junit.xml", "--", host),
	   ENV("MG_FAULT=nul@*,fail@*", "MG_FAULT_TESTS=1"), 0);
	CU_ASSERT(exited_with(&o, 1)); /* the test failed: still a failure */
	char path[160], junit[160], again[160];
	snprintf(path, sizeof(path), "%s/report.json", o.dir);
	snprintf(junit, sizeof(junit), "%s/junit.xml", o.dir);
	CU_ASSERT(file_has(path, "\"a\\u0000b\\n"));
	size_t len = 0;
	char *out = output_in(path, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_EQUAL(len, 4);
	CU_ASSERT(len == 4 && memcmp(out, "a\0b\n", 4) == 0);
	free(out);
	CU_ASSERT(file_has(junit, "a\\x00b"));
	/* read back: the reader keeps the NUL, the adapters show it */
	outcome r;
	snprintf(again, sizeof(again), "junit=%s/again.xml", o.dir);
	mg(&r, ARGV("report", "--adapter", again, "--adapter", "teamcity", path), NULL, 0);
	CU_ASSERT(exited_with(&r, 0));
	CU_ASSERT(file_has(again + 6, "a\\x00b"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "testStdOut name='fault/t000' out='a\\x00b"));
	done(&r);
	done(&o);
}

void output_nul_x64(void)
{
	output_nul(FAULT64);
}

void output_nul_x86(void)
{
	output_nul(FAULT32);
}

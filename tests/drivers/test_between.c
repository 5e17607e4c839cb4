/*
 * test_between.c - what a GoogleTest program prints between two tests
 * (a suite's set-up or tear-down, no test running) is the output of the
 * entry its failure makes (`Suite.TearDownTestSuite`,
 * `Suite.SetUpTestSuite`), never of a passing test's, under the real
 * memguard binary with one lane (no recycle: one program runs them all).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mg_run.h"

#define OUTSIDE(n) GTEST_OUTSIDE_DIR "/gtest_outside" #n

/* No test whose state is state carries text in its output. */
static void none_carries(json_t *report, const char *state, const char *text)
{
	size_t i, k;
	json_t *s, *t;
	json_array_foreach(json_object_get(report, "shards"), i, s)
	{
		json_array_foreach(json_object_get(s, "tests"), k, t)
		{
			const char *st = json_string_value(json_object_get(t, "state"));
			const char *out = json_string_value(json_object_get(t, "output"));
			if (st && !strcmp(st, state) && out && strstr(out, text)) {
				fprintf(stderr, "%s (%s) carries '%s':\n%s\n",
				        json_string_value(json_object_get(t, "name")), st, text,
				        out);
				CU_FAIL("a test carries text printed outside it");
			}
		}
	}
}

/* A TearDownTestSuite that fails: its text is the entry's message, and
 * neither its suite's last test nor the next suite's test has it. */
static void between_teardown(void)
{
	outcome o;
	mg_driver_run(&o, "gtest", OUTSIDE(1), "1", NULL, NULL);
	CU_ASSERT(exited_with(&o, 1));
	expect_state(o.report, "Suite.TearDownTestSuite", "fail");
	expect_message(o.report, "Suite.TearDownTestSuite", "the suite's tear-down failed");
	expect_state(o.report, "Other.Passes", "pass");
	none_carries(o.report, "pass", "the suite's tear-down failed");
	CU_ASSERT(strstr(output_of(o.report, "Other.Passes"), "tear-down") == NULL);
	done(&o);
}

/* A SetUpTestSuite that fails: its text is the entry's, not its suite's
 * first (skipped) test's, nor any passing test's. */
static void between_setup(void)
{
	outcome o;
	mg_driver_run(&o, "gtest", OUTSIDE(2), "1", NULL, NULL);
	CU_ASSERT(exited_with(&o, 1));
	expect_state(o.report, "Suite.SetUpTestSuite", "fail");
	expect_message(o.report, "Suite.SetUpTestSuite", "the suite's set-up failed");
	none_carries(o.report, "pass", "the suite's set-up failed");
	none_carries(o.report, "skip", "the suite's set-up failed");
	done(&o);
}

/* A global environment's TearDown that fails, after the last test. */
static void between_global_env(void)
{
	outcome o;
	mg_driver_run(&o, "gtest", OUTSIDE(3), "1", NULL, NULL);
	CU_ASSERT(exited_with(&o, 1));
	expect_message(o.report, "<global environment>",
	               "the global environment's tear-down failed");
	none_carries(o.report, "pass", "the global environment's tear-down failed");
	done(&o);
}

static const mg_case cases[] = {
    {"between_teardown", between_teardown},
    {"between_setup", between_setup},
    {"between_global_env", between_global_env},
};

MG_TEST_MAIN("drivers_between", cases)

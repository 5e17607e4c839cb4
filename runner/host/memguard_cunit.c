/*
 * memguard_cunit.c - the CUnit binding of the host library: one mg_host_ops
 * over the CUnit registry. Names are built once at start; running a test
 * goes through CU_run_test so CUnit's assertions, setjmp and setup/teardown
 * behave as in CUnit's own runners.
 */
#include "memguard_cunit.h"
#include "memguard_host.h"

#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cunit_test {
	CU_pSuite suite;
	CU_pTest test;
	char *name; /* "suite/test" */
} cunit_test;

typedef struct cunit_ctx {
	cunit_test *tests;
	size_t count;
	CU_pSuite inited; /* the suite whose init ran and whose cleanup is due */
	int init_failed;
} cunit_ctx;

static size_t ctx_count(void *ctx)
{
	return ((cunit_ctx *)ctx)->count;
}

static const char *ctx_name(void *ctx, size_t i)
{
	return ((cunit_ctx *)ctx)->tests[i].name;
}

static void suite_leave(cunit_ctx *c)
{
	if (c->inited != NULL && !c->init_failed && c->inited->pCleanupFunc != NULL)
		c->inited->pCleanupFunc();
	c->inited = NULL;
	c->init_failed = 0;
}

static void suite_enter(cunit_ctx *c, CU_pSuite s)
{
	if (c->inited == s)
		return;
	suite_leave(c);
	c->inited = s;
	c->init_failed = s->pInitializeFunc != NULL && s->pInitializeFunc() != 0;
}

/* Runs one test through CU_run_test with the suite's init/cleanup held back
 * (they run once per suite, in suite_enter/suite_leave). */
static mg_result ctx_run(void *ctx, size_t i, char *msg, size_t cap)
{
	cunit_ctx *c = ctx;
	cunit_test *t = &c->tests[i];
	if (!t->suite->fActive || !t->test->fActive) {
		snprintf(msg, cap, "inactive in the CUnit registry");
		return MG_SKIP;
	}
	suite_enter(c, t->suite);
	if (c->init_failed) {
		snprintf(msg, cap, "suite '%s' initialization failed", t->suite->pName);
		return MG_FAIL;
	}
	CU_InitializeFunc init = t->suite->pInitializeFunc;
	CU_CleanupFunc cleanup = t->suite->pCleanupFunc;
	t->suite->pInitializeFunc = NULL;
	t->suite->pCleanupFunc = NULL;
	CU_ErrorCode e = CU_run_test(t->suite, t->test);
	t->suite->pInitializeFunc = init;
	t->suite->pCleanupFunc = cleanup;
	if (e != CUE_SUCCESS) {
		snprintf(msg, cap, "CUnit could not run the test: %s", CU_get_error_msg());
		return MG_FAIL;
	}
	CU_pFailureRecord f = CU_get_failure_list();
	if (f == NULL)
		return MG_PASS;
	unsigned more = 0;
	for (CU_pFailureRecord g = f->pNext; g != NULL; g = g->pNext)
		more++;
	int n = snprintf(msg, cap, "%s:%u: %s", f->strFileName ? f->strFileName : "?",
	                 f->uiLineNumber, f->strCondition ? f->strCondition : "?");
	if (more > 0 && n >= 0 && (size_t)n < cap)
		snprintf(msg + n, cap - (size_t)n, " (+%u more)", more);
	return MG_FAIL;
}

/* Builds the "suite/test" list; -1 when the registry is missing or on ENOMEM. */
static int ctx_build(cunit_ctx *c)
{
	CU_pTestRegistry reg = CU_get_registry();
	if (reg == NULL)
		return -1;
	size_t n = 0;
	for (CU_pSuite s = reg->pSuite; s != NULL; s = s->pNext)
		for (CU_pTest t = s->pTest; t != NULL; t = t->pNext)
			n++;
	c->tests = calloc(n ? n : 1, sizeof(*c->tests));
	if (c->tests == NULL)
		return -1;
	for (CU_pSuite s = reg->pSuite; s != NULL; s = s->pNext) {
		for (CU_pTest t = s->pTest; t != NULL; t = t->pNext) {
			size_t len = strlen(s->pName) + strlen(t->pName) + 2;
			cunit_test *ct = &c->tests[c->count];
			ct->name = malloc(len);
			if (ct->name == NULL)
				return -1;
			snprintf(ct->name, len, "%s/%s", s->pName, t->pName);
			ct->suite = s;
			ct->test = t;
			c->count++;
		}
	}
	return 0;
}

static void ctx_free(cunit_ctx *c)
{
	for (size_t i = 0; i < c->count; i++)
		free(c->tests[i].name);
	free(c->tests);
}

int mg_cunit_main(int argc, char **argv)
{
	if (getenv("MEMGUARD_HOST") == NULL && argc <= 1) {
		CU_basic_set_mode(CU_BRM_VERBOSE);
		if (CU_basic_run_tests() != CUE_SUCCESS)
			return 3;
		return CU_get_number_of_failures() + CU_get_number_of_tests_failed() ? 1 : 0;
	}
	static const mg_host_ops ops = {ctx_count, ctx_name, ctx_run};
	cunit_ctx c = {NULL, 0, NULL, 0};
	int status = 3;
	if (ctx_build(&c) == 0)
		status = mg_host_serve(&ops, &c, argc, argv);
	else
		fprintf(stderr, "memguard cunit: no CUnit registry or out of memory\n");
	suite_leave(&c);
	ctx_free(&c);
	return status;
}

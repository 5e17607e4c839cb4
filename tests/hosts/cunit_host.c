/*
 * cunit_host.c - a CUnit program served through the CUnit binding: passing
 * tests, one failing assertion, a suite with init/cleanup, and a test that
 * leaks MG_CUNIT_LEAK_MB MiB (untouched mmap; 0 or unset: none) each run.
 */
#include "memguard_cunit.h"

#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <sys/mman.h>

static int suite_ready;

static int init_counted(void)
{
	suite_ready++;
	return 0;
}

static int cleanup_counted(void)
{
	suite_ready--;
	return 0;
}

static void test_add(void)
{
	CU_ASSERT_EQUAL(2 + 2, 4);
}

static void test_string(void)
{
	CU_ASSERT_STRING_EQUAL("memguard", "memguard");
}

static void test_init_ran(void)
{
	CU_ASSERT_EQUAL(suite_ready, 1);
}

static void test_wrong(void)
{
	int answer = 41;
	CU_ASSERT_EQUAL(answer, 42);
}

static void test_leak(void)
{
	const char *mb = getenv("MG_CUNIT_LEAK_MB");
	size_t size = (mb != NULL ? (size_t)strtoul(mb, NULL, 10) : 0) << 20;
	if (size == 0)
		return;
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(p != MAP_FAILED);
}

int main(int argc, char **argv)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 3;
	CU_pSuite basic = CU_add_suite("basic", NULL, NULL);
	CU_add_test(basic, "add", test_add);
	CU_add_test(basic, "string", test_string);
	CU_pSuite withinit = CU_add_suite("withinit", init_counted, cleanup_counted);
	CU_add_test(withinit, "init_ran", test_init_ran);
	CU_add_test(withinit, "init_ran_again", test_init_ran);
	CU_pSuite failing = CU_add_suite("failing", NULL, NULL);
	CU_add_test(failing, "wrong", test_wrong);
	CU_pSuite leaking = CU_add_suite("leaking", NULL, NULL);
	CU_add_test(leaking, "leak", test_leak);
	int status = mg_cunit_main(argc, argv);
	CU_cleanup_registry();
	return status;
}

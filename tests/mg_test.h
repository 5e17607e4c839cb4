/*
 * mg_test.h - the one CUnit driver every test program uses. A test file
 * lists its cases in MG_TEST_CASES; CTest runs one case per entry
 * ("prog case"), or all with no argument. Exit 0 only if no assert failed.
 * "prog --cases" prints the case names, one a line: CTest's NAME__case_list
 * (tests/case_list.cmake) compares them with the cases CMake registers.
 * A case of 32-bit programs exits 77 where this kernel refuses them
 * (mg_x86.h).
 */
#ifndef MG_TEST_H
#define MG_TEST_H

#include "mg_x86.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <string.h>

typedef struct mg_case {
	const char *name;
	void (*fn)(void);
} mg_case;

static inline int mg_test_main(const char *suite, const mg_case *cases, size_t n, int argc,
                               char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--cases") == 0) {
		for (size_t i = 0; i < n; i++)
			printf("%s\n", cases[i].name);
		return fflush(stdout) == 0 ? 0 : 2;
	}
	if (argc > 1 && mg_x86_refused(argv[1]))
		return 77;
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	CU_pSuite s = CU_add_suite(suite, NULL, NULL);
	size_t added = 0;
	for (size_t i = 0; i < n; i++) {
		if (argc > 1 && strcmp(argv[1], cases[i].name) != 0)
			continue;
		CU_add_test(s, cases[i].name, cases[i].fn);
		added++;
	}
	if (added == 0) {
		fprintf(stderr, "%s: no case named '%s'\n", suite, argc > 1 ? argv[1] : "");
		CU_cleanup_registry();
		return 2;
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}

#define MG_TEST_MAIN(suite, cases)                                                                 \
	int main(int argc, char **argv)                                                            \
	{                                                                                          \
		return mg_test_main(suite, cases, sizeof(cases) / sizeof(cases[0]), argc, argv);   \
	}

#endif

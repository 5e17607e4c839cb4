// gtest_empty_exit.cc - a GoogleTest program with no TEST whose main checks
// something after RUN_ALL_TESTS and fails (a handle left open, a leak
// check): "[  PASSED  ] 0 tests." and then exit 3. Its listing is clean.
// With MG_EMPTY_HANG=FILE it makes FILE and hangs there instead.
#include <cstdio>
#include <cstdlib>
#include <gtest/gtest.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	::testing::InitGoogleTest(&argc, argv);
	int r = RUN_ALL_TESTS();
	if (::testing::GTEST_FLAG(list_tests))
		return r;
	if (const char *hang = std::getenv("MG_EMPTY_HANG")) {
		std::fclose(std::fopen(hang, "w"));
		for (;;)
			pause();
	}
	std::fprintf(stderr, "teardown check failed: 1 handle left open\n");
	return 3;
}

// gtest_outside.cc - GoogleTest programs whose verdict is decided outside
// their test bodies, one per MG_OUTSIDE value (each its own executable):
//   1 a TearDownTestSuite that fails      2 a SetUpTestSuite that fails
//   3 a global environment that fails     4 two fixtures of one name in
//   two namespaces, one test name in both 5 a leak (built with ASan: its
//   LeakSanitizer fails the program at exit)
//   6 a TearDownTestSuite that exits 3 (the next suite never runs)
// Every test body passes; each program run directly exits non-zero.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#ifndef MG_OUTSIDE
#error "MG_OUTSIDE selects the case"
#endif

#if MG_OUTSIDE == 4
namespace first
{
class Fixture : public ::testing::Test
{
};
TEST_F(Fixture, Same)
{
	SUCCEED();
}
} // namespace first
namespace second
{
class Fixture : public ::testing::Test
{
};
TEST_F(Fixture, Same)
{
	SUCCEED();
}
} // namespace second
#else
class Suite : public ::testing::Test
{
      protected:
	static void SetUpTestSuite()
	{
#if MG_OUTSIDE == 2
		ADD_FAILURE() << "the suite's set-up failed";
#endif
	}
	static void TearDownTestSuite()
	{
#if MG_OUTSIDE == 1
		ADD_FAILURE() << "the suite's tear-down failed";
#elif MG_OUTSIDE == 6
		std::fflush(stdout);
		std::exit(3);
#endif
	}
};

TEST_F(Suite, First)
{
	SUCCEED();
}

TEST_F(Suite, Second)
{
#if MG_OUTSIDE == 5
	static volatile char *lost;
	lost = static_cast<char *>(std::malloc(4096));
	lost[0] = 1;
	lost = nullptr; /* nothing points at it now: LeakSanitizer's at exit */
#endif
	SUCCEED();
}
#endif

TEST(Other, Passes)
{
	SUCCEED();
}

#if MG_OUTSIDE == 3
class FailingEnvironment : public ::testing::Environment
{
      public:
	void TearDown() override
	{
		ADD_FAILURE() << "the global environment's tear-down failed";
	}
};
static ::testing::Environment *const env =
    ::testing::AddGlobalTestEnvironment(new FailingEnvironment);
#endif

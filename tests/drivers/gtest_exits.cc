// gtest_exits.cc - a GoogleTest program one of whose tests ends the program
// (std::exit(1) mid-test, as a CHECK that exits does; std::exit(0) with
// MG_EXITS_STATUS=0, as gmock_leak_test_ does): run directly, the program
// exits so there and its later tests never run. With MG_EXITS_HANG set,
// suite Between's TearDownTestSuite hangs (between Between.One and
// Tail.Last); with MG_EXITS_TEARDOWN=N it calls exit(N).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

TEST(Exits, First)
{
	SUCCEED();
}

TEST(Exits, Leaves)
{
	const char *st = std::getenv("MG_EXITS_STATUS");
	std::printf("leaving\n");
	std::exit(st ? std::atoi(st) : 1);
}

TEST(Exits, After)
{
	SUCCEED();
}

TEST(Exits, FailsAfter)
{
	EXPECT_EQ(1, 2);
}

struct Between : testing::Test {
	static void TearDownTestSuite()
	{
		if (std::getenv("MG_EXITS_HANG"))
			for (;;)
				pause();
		if (const char *st = std::getenv("MG_EXITS_TEARDOWN"))
			std::exit(std::atoi(st));
	}
};

TEST_F(Between, One)
{
	SUCCEED();
}

TEST(Tail, Last)
{
	SUCCEED();
}

// gtest_exits.cc - a GoogleTest program one of whose tests ends the program
// (std::exit(1) mid-test, as a CHECK that exits does): run directly, the
// program exits 1 there and its later tests never run.
#include <gtest/gtest.h>

#include <cstdlib>

TEST(Exits, First)
{
	SUCCEED();
}

TEST(Exits, Leaves)
{
	std::exit(1);
}

TEST(Exits, After)
{
	SUCCEED();
}

TEST(Exits, FailsAfter)
{
	EXPECT_EQ(1, 2);
}

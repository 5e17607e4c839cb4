// gtest_repeat.cc - a GoogleTest program with a test that passes when run
// once and fails when run again in the same program (it keeps state between
// runs: what --gtest_repeat exists to find; yaml-cpp's tests with such a
// test planted exit 1 under --gtest_repeat=2), and one that always passes.
#include <gtest/gtest.h>

TEST(Repeat, Passes)
{
	EXPECT_EQ(1 + 1, 2);
}

TEST(Repeat, FailsWhenRunAgain)
{
	static int runs;
	EXPECT_EQ(runs++, 0) << "this program ran the test before";
}

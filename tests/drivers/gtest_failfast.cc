// gtest_failfast.cc - a GoogleTest program for --gtest_fail_fast across
// lanes and generations (test_failfast.c): Mixed has passing and failing
// tests in turn, AllFail only failing ones.
#include <gtest/gtest.h>

TEST(Mixed, A)
{
}
TEST(Mixed, B)
{
	FAIL() << "B fails";
}
TEST(Mixed, C)
{
}
TEST(Mixed, D)
{
	FAIL() << "D fails";
}
TEST(Mixed, E)
{
}

TEST(AllFail, F1)
{
	FAIL() << "F1 fails";
}
TEST(AllFail, F2)
{
	FAIL() << "F2 fails";
}
TEST(AllFail, F3)
{
	FAIL() << "F3 fails";
}
TEST(AllFail, F4)
{
	FAIL() << "F4 fails";
}
TEST(AllFail, F5)
{
	FAIL() << "F5 fails";
}
TEST(AllFail, F6)
{
	FAIL() << "F6 fails";
}
TEST(AllFail, F7)
{
	FAIL() << "F7 fails";
}
TEST(AllFail, F8)
{
	FAIL() << "F8 fails";
}

int main(int argc, char **argv)
{
	testing::InitGoogleTest(&argc, argv);
	return RUN_ALL_TESTS();
}

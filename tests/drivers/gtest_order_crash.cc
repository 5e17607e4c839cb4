// gtest_order_crash.cc - an unchanged GoogleTest program whose
// State.Crashes aborts only after State.Sets ran in the same program
// (test_order.c: memguard bisect of a shuffled run names State.Sets when it
// runs the crashed host's tests in that host's order).
#include <gtest/gtest.h>

#include <cstdlib>

static bool g_set;

TEST(State, Sets)
{
	g_set = true;
}

TEST(State, Crashes)
{
	if (g_set)
		std::abort();
}

TEST(Other, One)
{
}

TEST(Other, Two)
{
}

TEST(Other, Three)
{
}

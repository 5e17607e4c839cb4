// gtest_order.cc - an unchanged GoogleTest program whose verdict depends on
// the order its tests run in (test_order.c): State.Reads passes only after
// State.Sets in the same program, and every test prints the seed the
// program has (UnitTest::random_seed). Suites of several sizes and a death
// test suite (GoogleTest keeps those first, and shuffles them apart).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

static bool g_set;

// With MG_ORDER_NO_FULL_LIST set, a listing of every test
// (--gtest_list_tests --gtest_filter=*) fails: a program whose whole
// listing memguard cannot take.
static int g_no_full_list = [] {
	if (!std::getenv("MG_ORDER_NO_FULL_LIST"))
		return 0;
	char buf[8192];
	FILE *f = std::fopen("/proc/self/cmdline", "r");
	size_t n = f ? std::fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		std::fclose(f);
	buf[n] = 0;
	bool list = false, all = false;
	for (size_t i = 0; i < n; i += std::strlen(buf + i) + 1) {
		list = list || !std::strcmp(buf + i, "--gtest_list_tests");
		all = all || !std::strcmp(buf + i, "--gtest_filter=*");
	}
	if (list && all)
		std::exit(1);
	return 1;
}();

static void say_seed()
{
	std::printf("seed %d\n", testing::UnitTest::GetInstance()->random_seed());
}

TEST(OrderDeathTest, Aborts)
{
	say_seed();
	EXPECT_DEATH(std::abort(), "");
}

TEST(OrderDeathTest, Exits)
{
	say_seed();
	EXPECT_EXIT(std::exit(3), testing::ExitedWithCode(3), "");
}

TEST(State, Sets)
{
	say_seed();
	g_set = true;
}

TEST(State, Reads)
{
	say_seed();
	EXPECT_TRUE(g_set) << "State.Sets did not run before it in this program";
}

TEST(State, Other)
{
	say_seed();
}

TEST(Alpha, One)
{
	say_seed();
}

TEST(Alpha, Two)
{
	say_seed();
}

TEST(Alpha, Three)
{
	say_seed();
}

TEST(Alpha, Four)
{
	say_seed();
}

TEST(Beta, One)
{
	say_seed();
}

TEST(Beta, Two)
{
	say_seed();
}

TEST(Gamma, One)
{
	say_seed();
}

TEST(Delta, One)
{
	say_seed();
}

TEST(Delta, Two)
{
	say_seed();
}

TEST(Delta, Three)
{
	say_seed();
}

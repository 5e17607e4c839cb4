// catch2v3_order.cpp - a Catch2 v3 program (its amalgamated library) whose
// verdict depends on the order its test cases run in (test_order.c):
// "state reads" passes only after "state sets" in the same program, and
// every test case prints the seed Catch2 has (v3 draws one from
// std::random_device when none is given).
#include <catch_amalgamated.hpp>

#include <cstdio>

static bool g_set;

static void say_seed()
{
	std::printf("seed %u\n", Catch::getSeed());
}

TEST_CASE("state sets")
{
	say_seed();
	g_set = true;
	SUCCEED();
}

TEST_CASE("state reads")
{
	say_seed();
	CHECK(g_set);
}

TEST_CASE("alpha one")
{
	say_seed();
	SUCCEED();
}

TEST_CASE("alpha two")
{
	say_seed();
	SUCCEED();
}

TEST_CASE("beta one")
{
	say_seed();
	SUCCEED();
}

TEST_CASE("beta two")
{
	say_seed();
	SUCCEED();
}

TEST_CASE("gamma one")
{
	say_seed();
	SUCCEED();
}

TEST_CASE("gamma two")
{
	say_seed();
	SUCCEED();
}

// catch2_order.cpp - an unchanged Catch2 program whose verdict depends on
// the order its test cases run in (test_order.c): "state reads" passes
// only after "state sets" in the same program, and every test case prints
// the seed Catch2 has. Built twice: against Debian's Catch2 v2, and with
// MG_CATCH2_V3 against v3's amalgamated library (v3 draws a seed from
// std::random_device when none is given).
#ifdef MG_CATCH2_V3
#include <catch_amalgamated.hpp>
#define MG_CATCH2_SEED Catch::getSeed()
#else
#include <catch2/catch.hpp>
#define MG_CATCH2_SEED Catch::rngSeed()
#endif

#include <cstdio>

static bool g_set;

static void say_seed()
{
	std::printf("seed %u\n", MG_CATCH2_SEED);
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

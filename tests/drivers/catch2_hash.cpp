// catch2_hash.cpp - Catch2 v2 tests whose names start with '#' (an issue
// number, as in Catch2's own SelfTest): its --list-test-names-only quotes
// them. One of them fails.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

TEST_CASE("#1234 fails")
{
	int broken = 1;
	REQUIRE(broken == 2);
}

TEST_CASE("#12 passes")
{
	REQUIRE(1 == 1);
}

TEST_CASE("plain passes")
{
	REQUIRE(2 == 2);
}

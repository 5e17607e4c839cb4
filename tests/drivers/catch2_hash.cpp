// catch2_hash.cpp - Catch2 v2 tests whose names start with '#' (an issue
// number, as in Catch2's own SelfTest): its --list-test-names-only quotes
// them. One of them fails. And names that end in white space.
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

// Names with white space at their end (spdlog's "basic async test "):
// Catch2 lists and runs them as they are, and its XML reporter writes them
// trimmed.
TEST_CASE("ends in a space ")
{
	REQUIRE(3 == 3);
}

TEST_CASE("fails, ends in a tab\t")
{
	int broken = 1;
	REQUIRE(broken == 3);
}

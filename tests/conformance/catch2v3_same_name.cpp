// Two Catch2 v3 test cases of one name, told apart by their tags (v3 allows
// it; its spec by name runs both, one after the other), the second failing;
// and one more test. Directly: exit 42, "same" passed and failed.
#include "catch_amalgamated.hpp"

TEST_CASE("same", "[first]")
{
	REQUIRE(1 + 1 == 2);
}
TEST_CASE("same", "[second]")
{
	REQUIRE(1 + 1 == 3);
}
TEST_CASE("other", "[first]")
{
	REQUIRE(true);
}

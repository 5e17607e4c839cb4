// A Catch2 v3 program with one name registered twice (v3 allows it when
// the tags differ, as its SelfTest's "Same test name but with different
// tags is fine"): it lists the name twice and runs both for it; the second
// fails. And [!shouldfail] tests that pass (a failure) and fail (a pass).
#include "catch_amalgamated.hpp"

TEST_CASE("a passes")
{
	CHECK(true);
}
TEST_CASE("b same name", "[x]")
{
	CHECK(true);
}
TEST_CASE("b same name", "[y]")
{
	CHECK(1 == 2);
}
TEST_CASE("c passes")
{
	CHECK(true);
}
TEST_CASE("d should fail but passes", "[!shouldfail]")
{
	CHECK(true);
}
TEST_CASE("e should fail and does", "[!shouldfail]")
{
	CHECK(1 == 2);
}
TEST_CASE("f should fail but warns", "[!shouldfail]")
{
	WARN("careful here");
	CHECK(true);
}

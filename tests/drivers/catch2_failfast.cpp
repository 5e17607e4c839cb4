// catch2_failfast.cpp - a Catch2 v2 program for -x N across lanes and
// generations (test_failfast.c): [mixed] has passing and failing test
// cases in turn, [allfail] only failing ones.
#include <catch2/catch.hpp>

TEST_CASE("a passes", "[mixed]")
{
	REQUIRE(1 == 1);
}
TEST_CASE("b fails", "[mixed]")
{
	REQUIRE(1 == 2);
}
TEST_CASE("c passes", "[mixed]")
{
	REQUIRE(1 == 1);
}
TEST_CASE("d fails", "[mixed]")
{
	REQUIRE(1 == 2);
}
TEST_CASE("e passes", "[mixed]")
{
	REQUIRE(1 == 1);
}

TEST_CASE("f1 fails", "[allfail]")
{
	REQUIRE(1 == 2);
}
TEST_CASE("f2 fails", "[allfail]")
{
	REQUIRE(1 == 2);
}
TEST_CASE("f3 fails", "[allfail]")
{
	REQUIRE(1 == 2);
}
TEST_CASE("f4 fails", "[allfail]")
{
	REQUIRE(1 == 2);
}
TEST_CASE("f5 fails", "[allfail]")
{
	REQUIRE(1 == 2);
}
TEST_CASE("f6 fails", "[allfail]")
{
	REQUIRE(1 == 2);
}
TEST_CASE("f7 fails", "[allfail]")
{
	REQUIRE(1 == 2);
}
TEST_CASE("f8 fails", "[allfail]")
{
	REQUIRE(1 == 2);
}

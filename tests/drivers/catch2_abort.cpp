// catch2_abort.cpp - a Catch2 v2 program with two failing test cases among
// passing ones, for the user's -a / -x N (Catch2 aborts its run after that
// many failures), and with text printed outside every test case: a static
// constructor's (before main, also when Catch2 lists its tests: a line
// that is no test's name) and a listener's at each
// test case's start (Catch2's XML writer puts it behind its open tags).
// A listener outside the file of CATCH_CONFIG_MAIN needs Catch2's external
// interfaces (its docs: event-listeners.md).
#define CATCH_CONFIG_EXTERNAL_INTERFACES
#include <catch2/catch.hpp>

#include <cstdio>

struct Loud {
	Loud()
	{
		std::printf("static constructor says hello\n");
		std::fflush(stdout);
	}
} loud;

struct Listener : Catch::TestEventListenerBase {
	using TestEventListenerBase::TestEventListenerBase;
	void testCaseStarting(Catch::TestCaseInfo const &info) override
	{
		std::printf("listener: starting %s\n", info.name.c_str());
		std::fflush(stdout);
	}
};
CATCH_REGISTER_LISTENER(Listener)

TEST_CASE("a passes")
{
	REQUIRE(1 == 1);
}

TEST_CASE("b fails")
{
	REQUIRE(1 == 2);
}

TEST_CASE("c passes")
{
	REQUIRE(1 == 1);
}

TEST_CASE("d fails")
{
	CHECK(1 == 2);
}

TEST_CASE("e passes")
{
	REQUIRE(1 == 1);
}

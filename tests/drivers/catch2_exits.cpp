// catch2_exits.cpp - a Catch2 v2 program whose second test case calls
// exit(MG_C2_EXIT) (unset: it returns): the direct run ends there with
// that status, while under its XML reporter (the catch2 driver's) the same
// exit dies of SIGSEGV (the reporter's redirect of cout, never undone,
// is flushed after its buffer is gone).
#include <catch2/catch.hpp>

#include <cstdlib>

TEST_CASE("a first")
{
	CHECK(true);
}

TEST_CASE("b exits midway")
{
	CHECK(true);
	if (const char *v = std::getenv("MG_C2_EXIT"))
		std::exit(std::atoi(v));
}

TEST_CASE("c after")
{
	CHECK(true);
}

// a name Catch2 reads as "every test but 'me'" in a spec, quoted or not
TEST_CASE("exclude:me")
{
	CHECK(true);
}

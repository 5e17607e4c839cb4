// catch2_start.cpp - a Catch2 program (v2, its own main) that dies before
// its first test case when MG_START_DIE is set (abort, after a line on
// stderr), as gtest_start.cc does for GoogleTest. Listing never dies.
// With MG_START_LOG=FILE each start appends its arguments to FILE, a line;
// with MG_START_BANNER set, main prints a line before Catch2 runs (a
// custom main's banner, in the listing too).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>

TEST_CASE("first passes")
{
	REQUIRE(1 == 1);
}

TEST_CASE("second passes")
{
	REQUIRE(2 == 2);
}

int main(int argc, char **argv)
{
	bool listing = false;
	for (int i = 1; i < argc; i++)
		listing |= !std::strncmp(argv[i], "--list", 6);
	if (const char *log = std::getenv("MG_START_LOG")) {
		if (std::FILE *f = std::fopen(log, "a")) {
			for (int i = 1; i < argc; i++)
				std::fprintf(f, "%s%s", i > 1 ? " " : "", argv[i]);
			std::fputc('\n', f);
			std::fclose(f);
		}
	}
	if (std::getenv("MG_START_BANNER"))
		std::printf("catch2_start: a banner\n");
	if (!listing && std::getenv("MG_START_DIE")) {
		std::fprintf(stderr, "catch2_start: dies before its tests\n");
		std::fflush(stderr);
		std::abort();
	}
	return Catch::Session().run(argc, argv);
}

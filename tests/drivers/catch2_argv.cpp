// catch2_argv.cpp - an unchanged Catch2 program whose test cases each
// append the program's own command line to the file $C2_ARGV_LOG (one
// line: the test's name, then the arguments, each after a space): what
// memguard gave the program that ran it (test_catch2v3.c); and each run of
// it that lists (--list-tests, --list-test-names-only) appends a line to
// $C2_LIST_LOG. "b fails" fails. With C2_NOISE set, a static constructor
// prints a line on stdout, in front of a listing too. Built with
// MG_CATCH2_V3 against v3's amalgamated library.
#ifdef MG_CATCH2_V3
#include <catch_amalgamated.hpp>
#else
#include <catch2/catch.hpp>
#endif

#include <cstdio>
#include <cstdlib>
#include <cstring>

static void log_argv(const char *test)
{
	const char *path = std::getenv("C2_ARGV_LOG");
	if (!path)
		return;
	std::FILE *in = std::fopen("/proc/self/cmdline", "rb");
	std::FILE *out = std::fopen(path, "a");
	if (in && out) {
		std::fprintf(out, "%s:", test);
		int c, sep = 1;
		while ((c = std::fgetc(in)) != EOF) {
			if (sep)
				std::fputc(' ', out);
			sep = c == 0;
			if (c)
				std::fputc(c, out);
		}
		std::fputc('\n', out);
	}
	if (in)
		std::fclose(in);
	if (out)
		std::fclose(out);
}

static int noise = [] {
	if (!std::getenv("C2_NOISE"))
		return 0;
	std::printf("catch2_argv: a static constructor's line\n");
	return 1;
}();

// a listing, counted from a static initializer (a file, not stdout: no
// line of the listing)
static int listed = [] {
	const char *path = std::getenv("C2_LIST_LOG");
	std::FILE *in = path ? std::fopen("/proc/self/cmdline", "rb") : nullptr;
	if (!in)
		return 0;
	char buf[4096];
	size_t n = std::fread(buf, 1, sizeof(buf) - 1, in);
	std::fclose(in);
	int lists = 0;
	for (size_t i = 0; i < n; i += std::strlen(buf + i) + 1) {
		buf[n] = 0;
		/* --list-tests (v3), --list-test-names-only (v2): not that
		 * one's whole name, which would make memguard take this v3
		 * build for v2 (driver_catch2_v3 reads the program for it) */
		lists |= !std::strncmp(buf + i, "--list-test", 11);
	}
	std::FILE *out = lists ? std::fopen(path, "a") : nullptr;
	if (out) {
		std::fputs("listed\n", out);
		std::fclose(out);
	}
	return lists;
}();

TEST_CASE("a passes")
{
	log_argv("a passes");
	CHECK(1 == 1);
}
TEST_CASE("b fails")
{
	log_argv("b fails");
	CHECK(1 == 2);
}
TEST_CASE("#c hash name")
{
	log_argv("#c hash name");
	CHECK(true);
}
TEST_CASE("d passes", "[d]")
{
	log_argv("d passes");
	CHECK(true);
}
TEST_CASE("e passes", "[e]")
{
	log_argv("e passes");
	CHECK(true);
}

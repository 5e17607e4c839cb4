// gtest_start.cc - a GoogleTest program whose main may die before
// RUN_ALL_TESTS, as Debian's leveldb db_test does when two copies collide
// on its fixed /tmp path. MG_START_DIR names a directory where each start
// that would run tests counts itself (the file "starts"); MG_START_DIE
// lists the starts that die (1-based, e.g. "1" or "1,2"), or "all";
// MG_START_HOW "exit" makes them exit with status 4, else they abort
// (SIGABRT). Each dying start says so on stderr first. Listing
// (--gtest_list_tests) never dies. Every test passes.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

TEST(Start, One)
{
	SUCCEED();
}
TEST(Start, Two)
{
	SUCCEED();
}
TEST(Later, Three)
{
	SUCCEED();
}

// This start's number (1 for the first), counted in MG_START_DIR/starts.
static int start_number(const char *dir)
{
	std::string path = std::string(dir) + "/starts";
	int n = 0;
	if (FILE *f = std::fopen(path.c_str(), "r")) {
		if (std::fscanf(f, "%d", &n) != 1)
			n = 0;
		std::fclose(f);
	}
	n++;
	if (FILE *f = std::fopen(path.c_str(), "w")) {
		std::fprintf(f, "%d\n", n);
		std::fclose(f);
	}
	return n;
}

static bool dies(const char *list, int n)
{
	if (!std::strcmp(list, "all"))
		return true;
	for (const char *p = list; *p;) {
		char *e;
		long v = std::strtol(p, &e, 10);
		if (e == p)
			break;
		if (v == n)
			return true;
		p = *e == ',' ? e + 1 : e;
	}
	return false;
}

int main(int argc, char **argv)
{
	bool listing = false;
	for (int i = 1; i < argc; i++)
		listing |= !std::strcmp(argv[i], "--gtest_list_tests");
	const char *dir = std::getenv("MG_START_DIR"), *die = std::getenv("MG_START_DIE");
	if (!listing && dir && die) {
		int n = start_number(dir);
		if (dies(die, n)) {
			const char *how = std::getenv("MG_START_HOW");
			bool exit4 = how && !std::strcmp(how, "exit");
			std::fprintf(stderr, "gtest_start: start %d dies before its tests (%s)\n",
			             n, exit4 ? "exit 4" : "abort");
			std::fflush(stderr);
			if (exit4)
				std::exit(4);
			std::abort();
		}
	}
	::testing::InitGoogleTest(&argc, argv);
	return RUN_ALL_TESTS();
}

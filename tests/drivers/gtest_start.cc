// gtest_start.cc - a GoogleTest program whose main may die before
// RUN_ALL_TESTS, as Debian's leveldb db_test does when two copies collide
// on its fixed /tmp path. MG_START_DIR names a directory where each start
// that would run tests counts itself (a file start.N); MG_START_DIE
// lists the starts that die (1-based, e.g. "1" or "1,2"), or "all";
// MG_START_HOW "exit" makes them exit with status 4, else they abort
// (SIGABRT). Each dying start says so on stderr first. Listing
// (--gtest_list_tests) never dies. Every test passes. MG_TEARDOWN_ABORT=N:
// the Start suite's TearDownTestSuite writes N + 1 lines on stderr and
// aborts (a death between tests).
// MG_START_LOCK=PATH: a start that would run tests takes PATH (O_EXCL) and
// aborts when another copy holds it (two copies starting at once collide,
// as db_test's do), leaving a file PATH.tried.N for its N-th try. The
// holder keeps PATH until a copy has tried (at most 20 s: the collision
// happens) and then until a second try or 3 s, whichever first: a copy
// that tries again at once collides again; one that waits for the holder's
// first test does not.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

class Start : public ::testing::Test
{
      protected:
	static void TearDownTestSuite()
	{
		if (const char *lines = std::getenv("MG_TEARDOWN_ABORT")) {
			/* N lines of 46 bytes before its last words (30: 1.3 KiB,
			 * after GoogleTest's lines in the 2 KiB kept; 60: past it) */
			int n = std::atoi(lines);
			for (int i = 0; i < n; i++)
				std::fprintf(stderr,
				             "gtest_start: tear-down line %02d of %d, filling\n", i,
				             n);
			std::fprintf(stderr, "gtest_start: the Start suite's tear-down aborts\n");
			std::fflush(stderr);
			std::abort();
		}
	}
};
TEST_F(Start, One)
{
	SUCCEED();
}
TEST_F(Start, Two)
{
	SUCCEED();
}
TEST(Later, Three)
{
	SUCCEED();
}

// This start's number (1 for the first): the first N whose file
// MG_START_DIR/start.N this start creates (O_EXCL: two programs starting
// at once never get one number).
static int start_number(const char *dir)
{
	for (int n = 1;; n++) {
		std::string path = std::string(dir) + "/start." + std::to_string(n);
		int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
		if (fd >= 0) {
			close(fd);
			return n;
		}
		if (errno != EEXIST)
			return n;
	}
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
	const char *lock = std::getenv("MG_START_LOCK");
	if (!listing && lock) {
		int fd = open(lock, O_WRONLY | O_CREAT | O_EXCL, 0600);
		if (fd < 0) {
			mkdir((std::string(lock) + ".tried").c_str(), 0700);
			int n = start_number((std::string(lock) + ".tried").c_str());
			std::fprintf(stderr,
			             "gtest_start: %s is held: another copy is starting (try %d)\n",
			             lock, n);
			std::fflush(stderr);
			std::abort();
		}
		close(fd);
		std::string dir = std::string(lock) + ".tried";
		mkdir(dir.c_str(), 0700);
		auto tried = [&](int n) {
			return access((dir + "/start." + std::to_string(n)).c_str(), F_OK) == 0;
		};
		for (int ms = 0; ms < 20000 && !tried(1); ms += 10)
			usleep(10000);
		for (int ms = 0; ms < 3000 && !tried(2); ms += 10)
			usleep(10000);
		unlink(lock);
	}
	const char *dir = std::getenv("MG_START_DIR"), *die = std::getenv("MG_START_DIE");
	if (!listing && dir && die) {
		int n = start_number(dir);
		if (dies(die, n)) {
			const char *how = std::getenv("MG_START_HOW");
			bool exit4 = how && !std::strcmp(how, "exit");
			/* the why first: a line the console's one line leaves out */
			std::fprintf(stderr, "gtest_start: cannot open its database (locked)\n");
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

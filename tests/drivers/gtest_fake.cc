// gtest_fake.cc - tests that print lines that look like GoogleTest's own
// result lines ("[  FAILED  ] Fake.Name (0 ms)"), as a test of a tool that
// reads GoogleTest's output may: run directly, each test's verdict is
// GoogleTest's, whatever it printed (exit 1: FakeOk fails). With
// MG_FAKE_OWN_PRINTER set, GoogleTest's printer gives way to one of the
// program's own that prints no "[ RUN      ]" line (as GoogleTest's
// sample9 does with --terse_output). With MG_FAKE_LINEBUF set, stdout is
// line-buffered: each line leaves as it is printed, so the memguard probe
// sees no result line at GoogleTest's flush. With MG_FAKE_RUN_NONE set, its main
// runs none of the tests it lists (a filter of its own, "-*"): GoogleTest's
// printer then says only that 0 tests ran.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <unistd.h>

// passes, having printed its own name as failed
TEST(Fake, Failed)
{
	std::printf("[  FAILED  ] Fake.Failed (0 ms)\n");
}

// fails, having printed its own name as passed, and tput sgr0's reset on the
// line GoogleTest's failure then starts (as a logger leaves it)
TEST(Fake, Ok)
{
	std::printf("[       OK ] Fake.Ok (0 ms)\n\033(B\033[0m");
	EXPECT_EQ(1, 2) << "Fake.Ok's real failure";
}

// passes, having printed another test's name as failed and skipped
TEST(Fake, Other)
{
	std::printf("[  FAILED  ] Other.Name (0 ms)\n[  SKIPPED ] Fake.Other (0 ms)\n");
}

// with MG_FAKE_LONG set: fails with a message of 20,000 bytes
TEST(Fake, Long)
{
	if (std::getenv("MG_FAKE_LONG"))
		FAIL() << std::string(20000 - 9, 'x') << "the-tail.";
}

// with MG_FAKE_EXIT set ("ok" or "failed"): prints its own name as passed
// or failed (and with MG_FAKE_EXIT_MORE a line after it), then exits with
// status MG_FAKE_EXIT_CODE (0 when unset) mid-test; the direct run exits so
// there, without running Fake.Last
TEST(Fake, ExitZero)
{
	if (const char *e = std::getenv("MG_FAKE_EXIT")) {
		std::printf("%s Fake.ExitZero (0 ms)\n",
		            std::strcmp(e, "ok") ? "[  FAILED  ]" : "[       OK ]");
		if (std::getenv("MG_FAKE_EXIT_MORE"))
			std::printf("and a line after it\n");
		const char *code = std::getenv("MG_FAKE_EXIT_CODE");
		std::exit(code ? std::atoi(code) : 0);
	}
}

TEST(Fake, Last)
{
	SUCCEED();
}

// A suite whose test prints MG_FAKE_TAIL bytes (its result line then
// crosses stdout's 4 KiB buffer: the probe sees no whole result line) and
// whose tear-down, with MG_FAKE_TEARDOWN, exits 1 ("exit1") or sleeps 3 s
// ("sleep3") after it. Without them, a test that passes.
struct Tail : testing::Test {
	static void TearDownTestSuite()
	{
		const char *t = std::getenv("MG_FAKE_TEARDOWN");
		if (t && !std::strcmp(t, "exit1"))
			std::exit(1);
		if (t && !std::strcmp(t, "sleep3"))
			sleep(3);
	}
};

TEST_F(Tail, Print)
{
	if (const char *k = std::getenv("MG_FAKE_TAIL"))
		std::printf("%s\n", std::string((size_t)std::atoi(k) - 1, 'y').c_str());
}

// The program's own printer: a line at each test's end, no more.
class OwnPrinter : public testing::EmptyTestEventListener
{
	void OnTestEnd(const testing::TestInfo &t) override
	{
		std::printf("*** %s.%s ended\n", t.test_suite_name(), t.name());
	}
};

int main(int argc, char **argv)
{
	bool listing = false;
	for (int i = 1; i < argc; i++)
		listing = listing || !std::strcmp(argv[i], "--gtest_list_tests");
	if (std::getenv("MG_FAKE_LINEBUF")) /* the probe then sees no end line */
		std::setvbuf(stdout, nullptr, _IOLBF, 0);
	testing::InitGoogleTest(&argc, argv);
	if (std::getenv("MG_FAKE_RUN_NONE") && !listing)
		GTEST_FLAG_SET(filter, "-*");
	if (std::getenv("MG_FAKE_OWN_PRINTER")) {
		testing::TestEventListeners &l = testing::UnitTest::GetInstance()->listeners();
		delete l.Release(l.default_result_printer());
		l.Append(new OwnPrinter);
	}
	return RUN_ALL_TESTS();
}

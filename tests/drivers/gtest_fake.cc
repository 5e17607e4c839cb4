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

// passes, having printed its own name as failed
TEST(Fake, Failed)
{
	std::printf("[  FAILED  ] Fake.Failed (0 ms)\n");
}

// fails, having printed its own name as passed
TEST(Fake, Ok)
{
	std::printf("[       OK ] Fake.Ok (0 ms)\n");
	EXPECT_EQ(1, 2) << "Fake.Ok's real failure";
}

// passes, having printed another test's name as failed and skipped
TEST(Fake, Other)
{
	std::printf("[  FAILED  ] Other.Name (0 ms)\n[  SKIPPED ] Fake.Other (0 ms)\n");
}

// with MG_FAKE_EXIT set: prints its own name as passed ("ok") or failed
// ("failed"), then exits 0 mid-test (the direct run exits 0 there, not
// running Fake.Last)
TEST(Fake, ExitZero)
{
	if (const char *e = std::getenv("MG_FAKE_EXIT")) {
		std::printf("%s Fake.ExitZero (0 ms)\n",
		            std::strcmp(e, "ok") ? "[  FAILED  ]" : "[       OK ]");
		std::exit(0);
	}
}

// with MG_FAKE_LONG set: fails with a message of 20,000 bytes
TEST(Fake, Long)
{
	if (std::getenv("MG_FAKE_LONG"))
		FAIL() << std::string(20000 - 9, 'x') << "the-tail.";
}

TEST(Fake, Last)
{
	SUCCEED();
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

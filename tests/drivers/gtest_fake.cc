// gtest_fake.cc - tests that print lines that look like GoogleTest's own
// result lines ("[  FAILED  ] Fake.Name (0 ms)"), as a test of a tool that
// reads GoogleTest's output may: run directly, each test's verdict is
// GoogleTest's, whatever it printed (exit 1: FakeOk fails).
#include <gtest/gtest.h>

#include <cstdio>

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

TEST(Fake, Last)
{
	SUCCEED();
}

// gtest_sample.cc - an ordinary GoogleTest program, unchanged for memguard:
// plain, parameterised and typed tests, a failing, a skipped, a disabled, a
// crashing and a leaking test. MG_GT_LEAK_MB sets what each Leak test keeps
// (default 0); MG_GT_LOG names a file that gets one line per finished test,
// so a test can check the order the tests really ran in.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace
{

TEST(Basic, Adds)
{
	EXPECT_EQ(2, 1 + 1);
}

TEST(Basic, Prints)
{
	std::printf("hello from Basic.Prints\n");
	SUCCEED();
}

TEST(Basic, Fails)
{
	EXPECT_EQ(3, 1 + 1) << "arithmetic is broken";
}

TEST(Basic, Skips)
{
	GTEST_SKIP() << "not on this machine";
}

TEST(Basic, DISABLED_Off)
{
}

class Square : public ::testing::TestWithParam<int>
{
};

TEST_P(Square, Works)
{
	int n = GetParam();
	EXPECT_EQ(n * n / n, n);
}

INSTANTIATE_TEST_SUITE_P(Small, Square, ::testing::Values(1, 2, 3));

template <typename T> class Typed : public ::testing::Test
{
};
using TypedTypes = ::testing::Types<int, long>;
TYPED_TEST_SUITE(Typed, TypedTypes);

TYPED_TEST(Typed, Works)
{
	TypeParam v = 7;
	EXPECT_EQ(v + 1, 8);
}

TEST(Crash, Segv)
{
	std::raise(SIGSEGV);
}

TEST(After, Crash)
{
	EXPECT_TRUE(true);
}

class Leak : public ::testing::TestWithParam<int>
{
};

TEST_P(Leak, Step)
{
	const char *mb = std::getenv("MG_GT_LEAK_MB");
	size_t n = mb ? std::strtoul(mb, nullptr, 10) << 20 : 0;
	if (n) {
		char *p = static_cast<char *>(std::malloc(n));
		ASSERT_NE(p, nullptr);
		std::memset(p, 1, n); /* kept: the leak */
		/* like a real test, it takes a moment: the shim reads the program's
		 * memory when it sees the test's result line, and a program that
		 * raced to its end first would leave nothing to read */
		std::this_thread::sleep_for(std::chrono::milliseconds(30));
	}
}

INSTANTIATE_TEST_SUITE_P(Many, Leak, ::testing::Range(0, 8));

TEST(Last, Passes)
{
	EXPECT_TRUE(true);
}

class Log : public ::testing::EmptyTestEventListener
{
	void OnTestEnd(const ::testing::TestInfo &t) override
	{
		const char *path = std::getenv("MG_GT_LOG");
		if (!path)
			return;
		FILE *f = std::fopen(path, "a");
		if (f) {
			std::fprintf(f, "%s.%s\n", t.test_suite_name(), t.name());
			std::fclose(f);
		}
	}
};

} // namespace

int main(int argc, char **argv)
{
	::testing::InitGoogleTest(&argc, argv);
	::testing::UnitTest::GetInstance()->listeners().Append(new Log);
	return RUN_ALL_TESTS();
}

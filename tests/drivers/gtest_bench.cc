// gtest_bench.cc - the bench suite as a GoogleTest program: MG_BENCH_TESTS
// (default 10,000) tests Bench.tNNNNN registered at start, each doing the
// same ~1 us of work as bench_host's tests.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

namespace
{

class One : public ::testing::Test
{
      public:
	explicit One(unsigned i) : i_(i)
	{
	}
	void TestBody() override
	{
		volatile unsigned acc = i_;
		for (unsigned k = 0; k < 400; k++)
			acc = acc * 2654435761u + k;
	}

      private:
	unsigned i_;
};

} // namespace

int main(int argc, char **argv)
{
	::testing::InitGoogleTest(&argc, argv);
	const char *n = std::getenv("MG_BENCH_TESTS");
	unsigned count = n && *n ? static_cast<unsigned>(std::strtoul(n, nullptr, 10)) : 10000;
	for (unsigned i = 0; i < count; i++) {
		char name[32];
		std::snprintf(name, sizeof(name), "t%05u", i);
		::testing::RegisterTest("Bench", name, nullptr, nullptr, __FILE__, __LINE__,
		                        [i]() -> ::testing::Test * { return new One(i); });
	}
	return RUN_ALL_TESTS();
}

// gtest_leaks.cc - an unchanged GoogleTest program for the probe's tests:
// 200 tests Leaks/Step.Run/N that allocate, touch and free, three of which
// keep memory (N = 37: 64 MiB, 101: 16 MiB, 163: 4 MiB, touched). No test
// waits: the figures must come from the boundary itself.
// MG_GT_EACH_MB=M: every test keeps M MiB more (a suite leaking toward its
// limit; with MG_GT_UNTOUCHED=1 that memory is mapped, not touched: fast
// tests, so the runner's pipeline rules for slow tests stay out of the
// way). MG_GT_LOG=FILE: one line per test body run ("body NAME"), and a
// first line saying whether the probe is loaded and the ASAN_OPTIONS seen,
// and "start PID" for each start that runs tests (not --gtest_list_tests).
// MG_GT_FAIL=NAME: that test fails. MG_GT_MORE=N: test N keeps 8 MiB more
// (touched): one test's leak growing, for compare's gate.
// MG_GT_HANG=NAME: that test never ends (it waits in pause()).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace
{

std::vector<char *> kept; // reachable: what a test keeps stays

char *touched(size_t n)
{
	char *p = static_cast<char *>(std::malloc(n));
	if (p)
		std::memset(p, 1, n);
	return p;
}

void log_line(const char *what, const char *name)
{
	const char *path = std::getenv("MG_GT_LOG");
	if (!path)
		return;
	FILE *f = std::fopen(path, "a");
	if (f) {
		std::fprintf(f, "%s %s\n", what, name);
		std::fclose(f);
	}
}

class Step : public ::testing::TestWithParam<int>
{
};

TEST_P(Step, Run)
{
	const ::testing::TestInfo *t = ::testing::UnitTest::GetInstance()->current_test_info();
	char name[256];
	std::snprintf(name, sizeof(name), "%s.%s", t->test_suite_name(), t->name());
	log_line("body", name);
	// what every test does: allocate, use, free
	char *big = touched(2 << 20);
	ASSERT_NE(big, nullptr);
	std::vector<int> v(1000, GetParam());
	EXPECT_EQ(v[999], GetParam());
	std::free(big);
	size_t keep = 0;
	switch (GetParam()) {
	case 37:
		keep = 64u << 20;
		break;
	case 101:
		keep = 16u << 20;
		break;
	case 163:
		keep = 4u << 20;
		break;
	}
	const char *fail = std::getenv("MG_GT_FAIL");
	EXPECT_TRUE(!fail || std::strcmp(fail, name)) << "asked to fail";
	const char *each = std::getenv("MG_GT_EACH_MB");
	if (each && std::getenv("MG_GT_UNTOUCHED")) {
		void *p = std::malloc(std::strtoul(each, nullptr, 10) << 20);
		ASSERT_NE(p, nullptr);
		kept.push_back(static_cast<char *>(p));
	} else if (each) {
		keep += std::strtoul(each, nullptr, 10) << 20;
	}
	const char *hang = std::getenv("MG_GT_HANG"); // a test that never ends
	while (hang && !std::strcmp(hang, name))
		pause();
	const char *more = std::getenv("MG_GT_MORE");
	if (more && std::atoi(more) == GetParam())
		keep += 8u << 20;
	if (keep) {
		char *p = touched(keep);
		ASSERT_NE(p, nullptr);
		kept.push_back(p);
	}
}

INSTANTIATE_TEST_SUITE_P(Leaks, Step, ::testing::Range(0, 200));

// Whether the probe is in this process, as /proc/self/maps shows it.
bool probe_loaded()
{
	FILE *f = std::fopen("/proc/self/maps", "r");
	char line[4096];
	bool found = false;
	while (f && std::fgets(line, sizeof(line), f))
		found = found || std::strstr(line, "libmemguard_probe") != nullptr;
	if (f)
		std::fclose(f);
	return found;
}

} // namespace

int main(int argc, char **argv)
{
	::testing::InitGoogleTest(&argc, argv);
	const char *asan = std::getenv("ASAN_OPTIONS");
	log_line(probe_loaded() ? "probe yes" : "probe no", asan ? asan : "-");
	if (!GTEST_FLAG_GET(list_tests))
		log_line("start", std::to_string(static_cast<long>(getpid())).c_str());
	return RUN_ALL_TESTS();
}

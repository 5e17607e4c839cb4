// gtest_bench.cc - the bench suite as a GoogleTest program: MG_BENCH_TESTS
// (default 10,000) tests Bench.tNNNNN registered at start, each doing the
// same ~1 us of work as bench_host's tests.
// MG_BENCH_NAME_LEN=N: names padded to N characters (a filter far over the
// 128 KiB an argument may hold). MG_BENCH_STARTS=FILE: each start that runs
// tests (not --gtest_list_tests) appends "start PID" to FILE.
// MG_BENCH_LOG=FILE: each test body run appends "body NAME" to FILE.
// MG_BENCH_TEMPDIR=FILE: each start that runs tests appends "tempdir PPID DIR"
// (its parent's pid; testing::TempDir(), without its last slash) to FILE, and writes a file
// DIR/bench-PID there (the line ends " unwritable" when it cannot); with
// MG_BENCH_LINK=PATH also a symbolic link DIR/link-PID to PATH.
// MG_BENCH_SLOW=I:MS: each test from the I-th on (t0000I, ...) sleeps MS
// milliseconds too, as long as a history may say it takes.
// MG_BENCH_HOLD=BYTES: each test body maps BYTES of memory it never touches
// nor unmaps (the VA grows BYTES a test, the RSS not at all), so that
// --recycle-at va=START+N*BYTES recycles the program every ~N tests
// (tests/bench/recycle-bench).
// MG_BENCH_BURST=I:BYTES: test I (t0000I) maps BYTES and unmaps them before
// it ends (its VmPeak rises by BYTES, its VA at its end does not).
// MG_BENCH_FILL=N: the suite's set-up prints N bytes with no newline, so
// stdout's buffer is that full when the first RUN line is flushed.
// MG_BENCH_TUNABLES=FILE: each start appends "list VALUE" (a
// --gtest_list_tests) or "run VALUE", VALUE its GLIBC_TUNABLES ("-": unset).
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace
{

FILE *body_log;
size_t hold;
unsigned slow_from = ~0u, slow_ms;
unsigned burst_at = ~0u;
size_t burst;

class One : public ::testing::Test
{
      public:
	explicit One(unsigned i) : i_(i)
	{
	}
	static void SetUpTestSuite()
	{
		const char *fill = std::getenv("MG_BENCH_FILL");
		for (unsigned long n = fill ? std::strtoul(fill, nullptr, 10) : 0; n; n--)
			std::putchar('x');
	}
	void TestBody() override
	{
		if (body_log) {
			const ::testing::TestInfo *t =
			    ::testing::UnitTest::GetInstance()->current_test_info();
			std::fprintf(body_log, "body %s.%s\n", t->test_suite_name(), t->name());
			std::fflush(body_log);
		}
		if (hold)
			mmap(nullptr, hold, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			     0);
		if (i_ == burst_at && burst) {
			void *p = mmap(nullptr, burst, PROT_READ | PROT_WRITE,
			               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (p != MAP_FAILED)
				munmap(p, burst);
		}
		if (i_ >= slow_from)
			usleep(slow_ms * 1000);
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
	const char *pad = std::getenv("MG_BENCH_NAME_LEN");
	size_t len = pad && *pad ? std::strtoul(pad, nullptr, 10) : 0;
	const char *starts = std::getenv("MG_BENCH_STARTS");
	if (starts && !GTEST_FLAG_GET(list_tests)) {
		FILE *f = std::fopen(starts, "a");
		if (f) {
			std::fprintf(f, "start %ld\n", static_cast<long>(getpid()));
			std::fclose(f);
		}
	}
	const char *tun_log = std::getenv("MG_BENCH_TUNABLES");
	if (tun_log) {
		const char *tun = std::getenv("GLIBC_TUNABLES");
		FILE *f = std::fopen(tun_log, "a");
		if (f) {
			std::fprintf(f, "%s %s\n", GTEST_FLAG_GET(list_tests) ? "list" : "run",
			             tun ? tun : "-");
			std::fclose(f);
		}
	}
	const char *slow = std::getenv("MG_BENCH_SLOW");
	if (slow && std::strchr(slow, ':')) {
		slow_from = static_cast<unsigned>(std::strtoul(slow, nullptr, 10));
		slow_ms =
		    static_cast<unsigned>(std::strtoul(std::strchr(slow, ':') + 1, nullptr, 10));
	}
	const char *b = std::getenv("MG_BENCH_BURST");
	if (b && std::strchr(b, ':')) {
		burst_at = static_cast<unsigned>(std::strtoul(b, nullptr, 10));
		burst = std::strtoul(std::strchr(b, ':') + 1, nullptr, 10);
	}
	const char *h = std::getenv("MG_BENCH_HOLD");
	hold = h && *h ? std::strtoul(h, nullptr, 10) : 0;
	const char *tmp_log = std::getenv("MG_BENCH_TEMPDIR");
	if (tmp_log && !GTEST_FLAG_GET(list_tests)) {
		std::string dir = ::testing::TempDir();
		if (dir.size() > 1 && dir.back() == '/')
			dir.pop_back();
		std::string mine = dir + "/bench-" + std::to_string(getpid());
		FILE *w = std::fopen(mine.c_str(), "w");
		int wrote = w && std::fputs("bench\n", w) >= 0;
		if (w)
			wrote &= std::fclose(w) == 0;
		const char *to = std::getenv("MG_BENCH_LINK");
		if (to)
			symlink(to, (dir + "/link-" + std::to_string(getpid())).c_str());
		FILE *f = std::fopen(tmp_log, "a");
		if (f) {
			std::fprintf(f, "tempdir %ld %s%s\n", static_cast<long>(getppid()),
			             dir.c_str(), wrote ? "" : " unwritable");
			std::fclose(f);
		}
	}
	const char *log = std::getenv("MG_BENCH_LOG");
	if (log && !GTEST_FLAG_GET(list_tests))
		body_log = std::fopen(log, "a");
	for (unsigned i = 0; i < count; i++) {
		char num[32];
		std::snprintf(num, sizeof(num), "t%05u", i);
		std::string name(num);
		if (name.size() < len)
			name.append(len - name.size(), 'x');
		::testing::RegisterTest("Bench", name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
		                        [i]() -> One * { return new One(i); });
	}
	return RUN_ALL_TESTS();
}

// catch2_bench.cpp - the bench suite as a Catch2 v2 program: MG_BENCH_TESTS
// (default 10,000) test cases "Bench tNNNNN" registered at start, each doing
// the same ~1 us of work as bench_host's tests and gtest_bench's
// (tests/bench/modes.d/drivers.sh's catch2 modes). MG_BENCH_SLOW_MS=N: each
// sleeps N milliseconds too.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace
{

void one()
{
	static unsigned i;
	static const char *slow = std::getenv("MG_BENCH_SLOW_MS");
	if (slow)
		usleep(static_cast<useconds_t>(std::strtoul(slow, nullptr, 10) * 1000));
	volatile unsigned acc = i++;
	for (unsigned k = 0; k < 400; k++)
		acc = acc * 2654435761u + k;
}

struct Register {
	std::vector<std::string> names; // Catch2 keeps a StringRef to each
	Register()
	{
		const char *n = std::getenv("MG_BENCH_TESTS");
		unsigned count = n ? (unsigned)std::strtoul(n, nullptr, 10) : 10000;
		names.reserve(count);
		for (unsigned i = 0; i < count; i++) {
			char name[32];
			std::snprintf(name, sizeof(name), "Bench t%05u", i);
			names.emplace_back(name);
			Catch::AutoReg reg(Catch::makeTestInvoker(&one), CATCH_INTERNAL_LINEINFO,
			                   Catch::StringRef(),
			                   Catch::NameAndTags{names.back(), Catch::StringRef()});
		}
	}
} registered;

} // namespace

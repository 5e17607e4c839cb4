// catch2_leaks.cpp - an unchanged Catch2 v2 program for the catch2 driver's
// tests: 120 test cases "step N" that allocate, touch and free, three of
// which keep memory (N = 17: 64 MiB, 55: 16 MiB, 91: 4 MiB, touched); one
// name with a comma, brackets and a star ("odd, [name] *") to check specs.
// MG_C2_EACH_MB=M: every test keeps M MiB more, mapped and untouched (a
// suite leaking toward its limit). MG_C2_LOG=FILE: "body NAME" per body run.
// MG_C2_FAIL=N: step N fails. MG_C2_CRASH=N: step N dies of SIGSEGV (of signal
// MG_C2_SIG when set).
// MG_C2_LONG=N: step N fails with a message of 5,009 bytes (MG_C2_LONG_LEN + 9).
// MG_C2_LONGEXP=N: step N fails three CHECKs, each expanded to two lines of 5,002 bytes.
// MG_C2_PRINT=1: every test printf()s a line without its newline, and
// writes "<&>" to std::cout (which Catch2 captures into its XML).
// MG_C2_WORDS=1: every test printf()s the reporter's element names in a
// sentence, and "<b>" without a newline last.
// MG_C2_FAKE=1: every test printf()s look-alikes of the XML reporter's
// verdict and end tag, the opposite of its own verdict, an XML declaration and "<root a="1">".
#include <catch2/catch.hpp>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

namespace
{

std::vector<void *> kept; // reachable: what a test keeps stays

void log_body(const std::string &name)
{
	const char *path = std::getenv("MG_C2_LOG");
	if (!path)
		return;
	FILE *f = std::fopen(path, "a");
	if (f) {
		std::fprintf(f, "body %s\n", name.c_str());
		std::fclose(f);
	}
}

void step(int n)
{
	log_body("step " + std::to_string(n));
	char *big = static_cast<char *>(std::malloc(2 << 20));
	REQUIRE(big != nullptr);
	std::memset(big, 1, 2 << 20);
	std::free(big);
	size_t keep = n == 17 ? 64u << 20 : n == 55 ? 16u << 20 : n == 91 ? 4u << 20 : 0;
	if (keep) {
		char *p = static_cast<char *>(std::malloc(keep));
		REQUIRE(p != nullptr);
		std::memset(p, 1, keep);
		kept.push_back(p);
	}
	if (const char *each = std::getenv("MG_C2_EACH_MB"))
		kept.push_back(std::malloc(std::strtoul(each, nullptr, 10) << 20));
	if (std::getenv("MG_C2_PRINT")) {
		std::printf("no newline %d", n);
		std::cout << "<&>" << n << "\n";
	}
	const char *crash = std::getenv("MG_C2_CRASH");
	if (crash && std::atoi(crash) == n) {
		const char *sig = std::getenv("MG_C2_SIG");
		std::raise(sig ? std::atoi(sig) : SIGSEGV);
	}
	const char *fail = std::getenv("MG_C2_FAIL");
	if (std::getenv("MG_C2_WORDS"))
		std::printf("note: <Failure> is a word, <Info> too\nsecond line\n<b>");
	const char *fake = std::getenv("MG_C2_FAKE");
	if (fake)
		std::printf("<?xml version=\"1.0\"?>\n<OverallResult "
		            "success=\"%s\"/>\n</TestCase>\n<root a=\"1\">\n",
		            fail && std::atoi(fail) == n ? "true" : "false");
	CHECK((!fail || std::atoi(fail) != n));
	const char *lexp = std::getenv("MG_C2_LONGEXP");
	if (lexp && std::atoi(lexp) == n) {
		const std::string a(5000, 'a'), b(5000, 'b');
		for (int k = 0; k < 3; k++)
			CHECK(a == b);
	}
	const char *lng = std::getenv("MG_C2_LONG");
	const char *lng_len = std::getenv("MG_C2_LONG_LEN");
	if (lng && std::atoi(lng) == n)
		FAIL(std::string(lng_len ? std::atoi(lng_len) : 5000, 'x') + "the-tail.");
}

} // namespace

#define STEP(n)                                                                                    \
	TEST_CASE("step " #n)                                                                      \
	{                                                                                          \
		step(n);                                                                           \
	}
#define TEN(d)                                                                                     \
	STEP(d##0)                                                                                 \
	STEP(d##1)                                                                                 \
	STEP(d##2) STEP(d##3) STEP(d##4) STEP(d##5) STEP(d##6) STEP(d##7) STEP(d##8) STEP(d##9)

STEP(0)
STEP(1)
STEP(2)
STEP(3)
STEP(4)
STEP(5)
STEP(6)
STEP(7)
STEP(8)
STEP(9) TEN(1) TEN(2) TEN(3) TEN(4) TEN(5) TEN(6) TEN(7) TEN(8) TEN(9) TEN(10) TEN(11)

    TEST_CASE("odd, [name] *")
{
	log_body("odd, [name] *");
	CHECK(1 + 1 == 2);
}

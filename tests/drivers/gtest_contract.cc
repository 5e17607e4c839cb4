// gtest_contract.cc - an unchanged GoogleTest program that checks the probe
// leaves no trace in it (tests/drivers/test_contract.c). Its tests run in
// order; each passes when run directly, so under memguard they must too:
// - Trace.Set leaves a state behind (floating-point exception flags
//   cleared, rounding upward, errno EXDEV, SIGUSR1 blocked, stdout fully
//   buffered with its error flag clear); Trace.Kept, the next test, finds it
//   as it was, the probe's boundary in between;
// - Child.Environment: a child process sees no MEMGUARD_* variable, no
//   probe in LD_PRELOAD, none of the GTEST_* settings the driver made, and
//   the user's own GTEST_COLOR (MG_GC_USER_COLOR says what it was, "-":
//   none);
// - Child.RunsAll: another GoogleTest program (MG_GC_CHILD) started from
//   a test runs all its MG_GC_CHILD_TESTS tests.
#include <gtest/gtest.h>

#include <cerrno>
#include <cfenv>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace
{

std::string run_child(const char *cmd)
{
	std::string out;
	FILE *p = popen(cmd, "r");
	if (!p)
		return out;
	char buf[4096];
	size_t n;
	while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0)
		out.append(buf, n);
	pclose(p);
	return out;
}

TEST(Trace, Set)
{
	std::feclearexcept(FE_ALL_EXCEPT);
	std::fesetround(FE_UPWARD);
	sigset_t usr1;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	ASSERT_EQ(sigprocmask(SIG_BLOCK, &usr1, nullptr), 0);
	std::clearerr(stdout);
	errno = EXDEV; // the last thing the test does
}

TEST(Trace, Kept)
{
	int err = errno;
	int flags = std::fetestexcept(FE_ALL_EXCEPT);
	int round = std::fegetround();
	std::fesetround(FE_TONEAREST);
	sigset_t now;
	ASSERT_EQ(sigprocmask(SIG_BLOCK, nullptr, &now), 0);
	EXPECT_EQ(flags, 0) << "floating-point exception flags raised between tests";
	EXPECT_EQ(round, FE_UPWARD) << "rounding mode changed between tests";
	EXPECT_EQ(err, EXDEV) << "errno changed between tests";
	EXPECT_TRUE(sigismember(&now, SIGUSR1)) << "signal mask changed between tests";
	EXPECT_EQ(std::ferror(stdout), 0) << "stdout's error flag set between tests";
	sigset_t usr1;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_UNBLOCK, &usr1, nullptr);
}

TEST(Child, Environment)
{
	std::string env = "\n" + run_child("env");
	ASSERT_GT(env.size(), 1u);
	EXPECT_EQ(env.find("\nMEMGUARD_"), std::string::npos) << env;
	EXPECT_EQ(env.find("libmemguard_probe"), std::string::npos) << env;
	for (const char *driver_set :
	     {"\nGTEST_FILTER=", "\nGTEST_BRIEF=", "\nGTEST_SHUFFLE=", "\nGTEST_REPEAT="})
		EXPECT_EQ(env.find(driver_set), std::string::npos) << driver_set << " in\n" << env;
	const char *user = std::getenv("MG_GC_USER_COLOR");
	if (user && std::strcmp(user, "-") != 0)
		EXPECT_NE(env.find(std::string("\nGTEST_COLOR=") + user + "\n"), std::string::npos)
		    << env;
	else
		EXPECT_EQ(env.find("\nGTEST_COLOR="), std::string::npos) << env;
}

TEST(Child, RunsAll)
{
	const char *child = std::getenv("MG_GC_CHILD");
	const char *tests = std::getenv("MG_GC_CHILD_TESTS");
	if (!child || !tests)
		GTEST_SKIP() << "MG_GC_CHILD and MG_GC_CHILD_TESTS name the program";
	std::string out = run_child((std::string(child) + " 2>&1").c_str());
	std::string want = std::string(tests) + " tests from"; // colours or not
	EXPECT_NE(out.find(want), std::string::npos)
	    << out.substr(out.size() > 2000 ? out.size() - 2000 : 0);
}

} // namespace

int main(int argc, char **argv)
{
	::testing::InitGoogleTest(&argc, argv);
	return RUN_ALL_TESTS();
}

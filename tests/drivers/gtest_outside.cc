// gtest_outside.cc - GoogleTest programs whose verdict is decided outside
// their test bodies, one per MG_OUTSIDE value (each its own executable):
//   1 a TearDownTestSuite that fails      2 a SetUpTestSuite that fails
//   3 a global environment that fails     4 two fixtures of one name in
//   two namespaces, one test name in both 5 a leak (built with ASan: its
//   LeakSanitizer fails the program at exit)
//   6 a TearDownTestSuite that exits 3 (the next suite never runs)
//   7 a TearDownTestSuite that fails, in a suite whose SetUpTestSuite starts
//   a helper process holding 48 MiB (a server a fixture starts): the
//   host's tree holds it, the program's own RSS does not, so the runner,
//   not the probe, recycles the program (--recycle-at rss=32M)
//   9 5's leak (ASan-built), and a test that fails in another suite
//   8 a TearDownTestSuite that fails after a wait: MG_TEARDOWN_WAIT seconds
//   (none when unset; -1: forever, a hung tear-down)
// Every test body passes; each program run directly exits non-zero.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#if MG_OUTSIDE == 7 || MG_OUTSIDE == 8
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t helper;
#endif

#ifndef MG_OUTSIDE
#error "MG_OUTSIDE selects the case"
#endif

#if MG_OUTSIDE == 4
namespace first
{
class Fixture : public ::testing::Test
{
};
TEST_F(Fixture, Same)
{
	SUCCEED();
}
} // namespace first
namespace second
{
class Fixture : public ::testing::Test
{
};
TEST_F(Fixture, Same)
{
	SUCCEED();
}
} // namespace second
#else
class Suite : public ::testing::Test
{
      protected:
	static void SetUpTestSuite()
	{
#if MG_OUTSIDE == 2
		ADD_FAILURE() << "the suite's set-up failed";
#elif MG_OUTSIDE == 7
		int ready[2];
		char c;
		ASSERT_EQ(pipe(ready), 0);
		helper = fork();
		if (helper == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			size_t n = 48u << 20;
			static char *volatile held;
			held = static_cast<char *>(std::malloc(n));
			std::memset(held, 1, n); /* resident, and kept (volatile) */
			c = held[n - 1];
			if (write(ready[1], &c, 1) != 1)
				_exit(1);
			for (;;)
				pause();
		}
		ASSERT_GT(helper, 0);
		ASSERT_EQ(read(ready[0], &c, 1), 1); /* its 48 MiB are resident */
		close(ready[0]);
		close(ready[1]);
#endif
	}
	static void TearDownTestSuite()
	{
#if MG_OUTSIDE == 8
		const char *wait = std::getenv("MG_TEARDOWN_WAIT");
		int secs = wait ? std::atoi(wait) : 0;
		if (secs < 0)
			for (;;)
				pause();
		if (secs > 0)
			sleep(static_cast<unsigned>(secs));
#endif
#if MG_OUTSIDE == 1 || MG_OUTSIDE == 7 || MG_OUTSIDE == 8
#if MG_OUTSIDE == 7
		kill(helper, SIGKILL);
		waitpid(helper, nullptr, 0);
#endif
		ADD_FAILURE() << "the suite's tear-down failed";
#elif MG_OUTSIDE == 6
		std::fflush(stdout);
		std::exit(3);
#endif
	}
};

#if MG_OUTSIDE == 7
/* The guard samples the tree every few ms: it has seen the helper by the
 * end of First, and reads First's result while Second still runs (the
 * program runs ahead of the runner; without the wait its tear-down could
 * end the helper first). Neither test is timed: the samples are. */
#define GUARD_LOOKS() usleep(500 * 1000)
#else
#define GUARD_LOOKS()
#endif

TEST_F(Suite, First)
{
	GUARD_LOOKS();
	SUCCEED();
}

TEST_F(Suite, Second)
{
	GUARD_LOOKS();
#if MG_OUTSIDE == 5 || MG_OUTSIDE == 9
	static volatile char *lost;
	lost = static_cast<char *>(std::malloc(4096));
	lost[0] = 1;
	lost = nullptr; /* nothing points at it now: LeakSanitizer's at exit */
#endif
	SUCCEED();
}
#endif

TEST(Other, Passes)
{
	SUCCEED();
}

#if MG_OUTSIDE == 9
TEST(Other, Fails)
{
	ADD_FAILURE() << "a plain failure";
}
#endif

#if MG_OUTSIDE == 3
class FailingEnvironment : public ::testing::Environment
{
      public:
	void TearDown() override
	{
		ADD_FAILURE() << "the global environment's tear-down failed";
	}
};
static ::testing::Environment *const env =
    ::testing::AddGlobalTestEnvironment(new FailingEnvironment);
#endif

/*
 * test_order.c - the order a program runs its tests in, under memguard as
 * directly (issue #23): GoogleTest's --gtest_shuffle with a seed
 * (gtest_order.cc), Catch2's --order rand with a seed (catch2_order.cpp,
 * built for v2 and v3), and a seed the program would draw itself
 * (GTEST_SHUFFLE=1 alone, --rng-seed time, v3's default random device):
 * memguard draws one for every program of the run and says it. Each
 * program's "state reads" passes only after its "state sets" in the same
 * program, so the order is the verdict. Before: memguard ran GoogleTest
 * unshuffled and Catch2 in declaration order (exit 0 where the program
 * exits 1), and each program drew its own seed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mg_run.h"

#define MAX_NAMES 32

typedef struct names {
	char v[MAX_NAMES][64];
	size_t n;
} names;

/*
 * Runs prog directly with args (NULL-terminated) and env (one NAME=VALUE or
 * NULL): its exit code (asserted: no signal), and in out the tests it ran
 * in order, from GoogleTest's "[ RUN      ] NAME" lines or Catch2's XML
 * reporter's <TestCase name="NAME" (the caller asks for -r xml).
 */
static int direct_order(const char *prog, const char *const *args, const char *env, names *out)
{
	const char *argv[16] = {prog};
	int p[2];
	for (int i = 0; args[i] && i < 14; i++)
		argv[i + 1] = args[i];
	CU_ASSERT_FATAL(pipe(p) == 0);
	fflush(NULL);
	pid_t pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		if (!freopen("/dev/null", "w", stderr))
			_exit(126);
		if (env)
			putenv((char *)env);
		execv(prog, (char *const *)argv);
		_exit(127);
	}
	close(p[1]);
	static char buf[1 << 16];
	size_t len = 0;
	ssize_t r;
	while (len < sizeof(buf) - 1 && (r = read(p[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)r;
	buf[len] = 0;
	close(p[0]);
	int st = -1;
	CU_ASSERT_FATAL(waitpid(pid, &st, 0) == pid);
	CU_ASSERT_FATAL(WIFEXITED(st));
	out->n = 0;
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		const char *name = NULL;
		size_t n = 0;
		char *q;
		if (!strncmp(line, "[ RUN      ] ", 13)) {
			name = line + 13;
			n = strlen(name);
		} else if ((q = strstr(line, "<TestCase name=\"")) != NULL) {
			name = q + 16;
			char *e = strchr(name, '"');
			n = e ? (size_t)(e - name) : strlen(name);
		}
		if (name && out->n < MAX_NAMES && n < sizeof(out->v[0]))
			snprintf(out->v[out->n++], sizeof(out->v[0]), "%.*s", (int)n, name);
	}
	return WEXITSTATUS(st);
}

static long index_of(const names *d, const char *name)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->v[i], name))
			return (long)i;
	return -1;
}

/*
 * The report's tests against the direct run's order d: every test of d is
 * there once, and each program (a shard's generation) ran its tests in d's
 * order; with whole set, each shard's tests are d's in d's order (one
 * lane: the run's order is the direct run's).
 */
static void expect_order(json_t *report, const names *d, int whole)
{
	size_t i, k, seen = 0;
	json_t *s, *t;
	json_array_foreach(json_object_get(report, "shards"), i, s)
	{
		long prev = -1, prev_gen = -1;
		size_t at = 0;
		json_array_foreach(json_object_get(s, "tests"), k, t)
		{
			const char *name = json_string_value(json_object_get(t, "name"));
			long gen = (long)json_integer_value(json_object_get(t, "generation"));
			long pos = index_of(d, name);
			if (pos < 0) {
				fprintf(stderr, "not run directly: %s\n", name);
				CU_FAIL("a test the direct run did not run");
				continue;
			}
			seen++;
			if (gen == prev_gen && pos <= prev) {
				fprintf(stderr,
				        "%s (direct #%ld) after direct #%ld in one program\n", name,
				        pos, prev);
				CU_FAIL("a program ran its tests out of the direct run's order");
			}
			if (whole && (at >= d->n || strcmp(d->v[at], name))) {
				fprintf(stderr, "#%zu: %s where the direct run has %s\n", at, name,
				        at < d->n ? d->v[at] : "nothing");
				CU_FAIL("the run's order is not the direct run's");
			}
			at++;
			prev = pos;
			prev_gen = gen;
		}
	}
	CU_ASSERT_EQUAL(seen, d->n);
}

/* Every test's output says "seed SEED" (the seed its program had). */
static void expect_seed_seen(json_t *report, const char *seed)
{
	char want[64];
	size_t i, k;
	json_t *s, *t;
	snprintf(want, sizeof(want), "seed %s\n", seed);
	json_array_foreach(json_object_get(report, "shards"), i, s)
	{
		json_array_foreach(json_object_get(s, "tests"), k, t)
		{
			const char *out = json_string_value(json_object_get(t, "output"));
			if (!out || !strstr(out, want)) {
				fprintf(stderr, "%s: '%s', not '%s'\n",
				        json_string_value(json_object_get(t, "name")),
				        out ? out : "(no output)", want);
				CU_FAIL("a program had another seed");
			}
		}
	}
}

/* The seed memguard drew, from the report's "seed" (the option that gives
 * it: "--gtest_random_seed=N", "--rng-seed N"), in out; "" when none. */
static void report_seed(json_t *report, char *out, size_t n)
{
	const char *opt = json_string_value(json_object_get(report, "seed"));
	const char *v = opt ? strpbrk(opt, "= ") : NULL;
	snprintf(out, n, "%s", v ? v + 1 : "");
}

/* --gtest_shuffle --gtest_random_seed=1, whose order runs State.Reads
 * before State.Sets (exit 1): one lane, a recycle at every boundary, two
 * lanes; the order of each program is the direct run's, every program has
 * seed 1, and the --gtest_output file memguard writes says random_seed="1"
 * as GoogleTest's own does. Before: exit 0, in declaration order. */
static void order_gtest_seed(void)
{
	names d;
	const char *const args[] = {"--gtest_shuffle", "--gtest_random_seed=1", NULL};
	CU_ASSERT_EQUAL_FATAL(direct_order(GTEST_ORDER, args, NULL, &d), 1);
	CU_ASSERT_EQUAL_FATAL(d.n, 15);
	CU_ASSERT(index_of(&d, "State.Reads") < index_of(&d, "State.Sets"));
	const char *const *runs[] = {
	    ARGV("run", "-j", "1", "--driver", "gtest", "--report", "report.json", "--",
	         GTEST_ORDER, "--gtest_shuffle", "--gtest_random_seed=1",
	         "--gtest_output=xml:mine.xml"),
	    ARGV("run", "-j", "1", "--driver", "gtest", "--recycle-at", "va=1M", "--report",
	         "report.json", "--", GTEST_ORDER, "--gtest_shuffle", "--gtest_random_seed=1"),
	    ARGV("run", "-j", "2", "--driver", "gtest", "--report", "report.json", "--",
	         GTEST_ORDER, "--gtest_shuffle", "--gtest_random_seed=1"),
	};
	for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		outcome o;
		mg(&o, runs[r], NULL, 0);
		CU_ASSERT(exited_with(&o, 1));
		CU_ASSERT_FATAL(o.report != NULL);
		expect_state(o.report, "State.Reads", "fail");
		expect_state(o.report, "State.Sets", "pass");
		CU_ASSERT_EQUAL(count(o.report, "fail"), 1);
		CU_ASSERT_EQUAL(count(o.report, "error"), 0);
		expect_order(o.report, &d, r < 2);
		expect_seed_seen(o.report, "1");
		if (r == 0) {
			char path[128], xml[1 << 14];
			snprintf(path, sizeof(path), "%s/mine.xml", o.dir);
			CU_ASSERT_PTR_NOT_NULL(
			    strstr(slurp(path, xml, sizeof(xml)), " random_seed=\"1\""));
		}
		/* the user's seed: none drawn, none said, the report's */
		CU_ASSERT_PTR_NULL(strstr(o.err, "shuffles the tests with seed"));
		const char *kept = json_string_value(json_object_get(o.report, "seed"));
		CU_ASSERT_PTR_NOT_NULL(kept);
		CU_ASSERT(kept && !strcmp(kept, "--gtest_random_seed=1"));
		done(&o);
	}
}

/* GTEST_SHUFFLE=1 without a seed (GoogleTest takes one from the time,
 * each program its own): memguard draws one, says it (stderr, the
 * report's seed), every program has it, and the direct run with that seed
 * runs the tests in the run's order, with its verdict (one program; with
 * a recycle at every boundary State.Reads runs alone and fails, the
 * recycle's doing). Before: unshuffled, each program its own seed, none
 * said. */
static void order_gtest_drawn(void)
{
	for (int recycle = 0; recycle < 2; recycle++) {
		outcome o;
		if (recycle)
			mg(&o,
			   ARGV("run", "-j", "1", "--driver", "gtest", "--recycle-at", "va=1M",
			        "--report", "report.json", "--", GTEST_ORDER),
			   ENV("GTEST_SHUFFLE=1"), 0);
		else
			mg(&o,
			   ARGV("run", "-j", "1", "--driver", "gtest", "--report", "report.json",
			        "--", GTEST_ORDER),
			   ENV("GTEST_SHUFFLE=1"), 0);
		CU_ASSERT_FATAL(o.report != NULL);
		char seed[32], opt[64];
		report_seed(o.report, seed, sizeof(seed));
		CU_ASSERT_FATAL(seed[0] != 0);
		long v = atol(seed);
		CU_ASSERT(v >= 1 && v <= 99999);
		snprintf(opt, sizeof(opt), "--gtest_random_seed=%s", seed);
		CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(o.report, "seed")), opt);
		CU_ASSERT_PTR_NOT_NULL(strstr(o.err, "GoogleTest shuffles the tests with seed"));
		CU_ASSERT_PTR_NOT_NULL(strstr(o.err, opt));
		CU_ASSERT_EQUAL(count(o.report, "error"), 0);
		expect_seed_seen(o.report, seed);
		names d;
		const char *const args[] = {"--gtest_shuffle", opt, NULL};
		int direct = direct_order(GTEST_ORDER, args, NULL, &d);
		CU_ASSERT_EQUAL(d.n, 15);
		CU_ASSERT(exited_with(&o, recycle || direct ? 1 : 0));
		expect_order(o.report, &d, 1);
		done(&o);
	}
}

/* Two CI nodes (--node 1/2, 2/2), each drawing its own seed for
 * GTEST_SHUFFLE=1: their shares still make the whole program once (split
 * by name, which both list alike, not by the place in each one's own
 * shuffled list), and each runs its share in its own seed's order. */
static void order_gtest_nodes(void)
{
	int seen[MAX_NAMES] = {0};
	names all;
	const char *const plain[] = {NULL};
	direct_order(GTEST_ORDER, plain, NULL, &all);
	CU_ASSERT_EQUAL_FATAL(all.n, 15);
	for (int node = 1; node <= 2; node++) {
		outcome o;
		mg(&o,
		   ARGV("run", "-j", "1", "--driver", "gtest", "--node", node == 1 ? "1/2" : "2/2",
		        "--report", "report.json", "--", GTEST_ORDER),
		   ENV("GTEST_SHUFFLE=1"), 0);
		CU_ASSERT_FATAL(o.report != NULL);
		CU_ASSERT_EQUAL(count(o.report, "error"), 0);
		char seed[32], opt[64];
		report_seed(o.report, seed, sizeof(seed));
		CU_ASSERT_FATAL(seed[0] != 0);
		expect_seed_seen(o.report, seed);
		snprintf(opt, sizeof(opt), "--gtest_random_seed=%s", seed);
		names d;
		const char *const args[] = {"--gtest_shuffle", opt, NULL};
		direct_order(GTEST_ORDER, args, NULL, &d);
		size_t i, k;
		json_t *sh, *t;
		json_array_foreach(json_object_get(o.report, "shards"), i, sh)
		{
			long prev = -1;
			json_array_foreach(json_object_get(sh, "tests"), k, t)
			{
				const char *name = json_string_value(json_object_get(t, "name"));
				long at = index_of(&all, name), pos = index_of(&d, name);
				CU_ASSERT_FATAL(at >= 0 && pos >= 0);
				seen[at]++;
				CU_ASSERT(pos > prev); /* one program: its seed's order */
				prev = pos;
			}
		}
		done(&o);
	}
	for (size_t i = 0; i < all.n; i++)
		if (seen[i] != 1) {
			fprintf(stderr, "%s: run %d times by the two nodes\n", all.v[i], seen[i]);
			CU_FAIL("the nodes' shares are not the whole once");
		}
}

/* memguard bisect of a shuffled run: the report's seed (the run's, as a
 * drawn one is kept there; here a run with seed 1, whose order crashes
 * State.Crashes after State.Sets) is given to each of
 * bisect's runs, over the environment's GTEST_RANDOM_SEED=2 (whose order
 * runs State.Crashes first): the crash comes again and State.Sets is
 * named. Before: each run shuffled by the environment's seed, "not
 * reproducible", exit 1. */
static void order_bisect_seed(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "1", "--driver", "gtest", "--report", "report.json", "--",
	        GTEST_ORDER_CRASH, "--gtest_shuffle", "--gtest_random_seed=1"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	expect_state(o.report, "State.Crashes", "crash");
	char path[128];
	snprintf(path, sizeof(path), "%s/drawn.json", o.dir);
	json_object_set_new(o.report, "seed", json_string("--gtest_random_seed=1"));
	CU_ASSERT_FATAL(json_dump_file(o.report, path, 0) == 0);
	outcome b;
	mg(&b, ARGV("bisect", "--report", path, "--driver", "gtest", "--", GTEST_ORDER_CRASH),
	   ENV("GTEST_SHUFFLE=1", "GTEST_RANDOM_SEED=2"), 0);
	CU_ASSERT(exited_with(&b, 0));
	CU_ASSERT_PTR_NOT_NULL(strstr(b.out, "State.Sets"));
	done(&b);
	done(&o);
}

/* The user's filter leaves tests out: GoogleTest shuffles every registered
 * test all the same (the filter says which run), so the order of those
 * that run is the unfiltered shuffle's; memguard's listing is put in that
 * order from a listing of every test. */
static void order_gtest_filter(void)
{
	names d;
	const char *const args[] = {"--gtest_shuffle", "--gtest_random_seed=5",
	                            "--gtest_filter=-Alpha.Two:Delta.*:OrderDeathTest.Exits", NULL};
	CU_ASSERT_EQUAL_FATAL(direct_order(GTEST_ORDER, args, NULL, &d), 1);
	CU_ASSERT_EQUAL_FATAL(d.n, 10);
	for (int lanes = 1; lanes <= 2; lanes++) {
		outcome o;
		mg(&o,
		   ARGV("run", "-j", lanes == 1 ? "1" : "2", "--driver", "gtest", "--report",
		        "report.json", "--", GTEST_ORDER, "--gtest_shuffle",
		        "--gtest_filter=-Alpha.Two:Delta.*:OrderDeathTest.Exits",
		        "--gtest_random_seed=5"),
		   NULL, 0);
		CU_ASSERT(exited_with(&o, 1));
		CU_ASSERT_FATAL(o.report != NULL);
		CU_ASSERT_EQUAL(count(o.report, "error"), 0);
		expect_state(o.report, "State.Reads", "fail");
		expect_order(o.report, &d, lanes == 1);
		done(&o);
	}
}

/* With a filter of the user's, the shuffled order needs the program's
 * whole listing (--gtest_filter=*); where that listing fails, memguard
 * says why and runs no test (exit 3): before, each program still shuffled
 * against an unshuffled list, and the tests it passed over were errors
 * ("did not run it") beside a failure the direct run does not have. */
static void order_gtest_no_full_list(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "1", "--driver", "gtest", "--report", "report.json", "--", GTEST_ORDER,
	        "--gtest_shuffle", "--gtest_filter=-Alpha.Two:Delta.*:OrderDeathTest.Exits",
	        "--gtest_random_seed=5"),
	   (const char *const[]){"MG_ORDER_NO_FULL_LIST=1", NULL}, 0);
	CU_ASSERT(exited_with(&o, 3));
	CU_ASSERT(strstr(o.err, "cannot work out the order --gtest_shuffle runs the tests in") !=
	          NULL);
	if (o.report) {
		CU_ASSERT_EQUAL(count(o.report, "error"), 0);
		CU_ASSERT_EQUAL(count(o.report, "fail"), 0);
	}
	done(&o);
}

#if defined(CATCH2_ORDER) || defined(CATCH2V3_ORDER)
/* A Catch2 run under memguard with the seed it drew (--order rand, one
 * lane, a recycle at every boundary or none): no error, every program saw
 * the seed, and the direct run with it has the run's order and (one
 * program) verdict. Ends o. */
static void drawn_seed_agrees(outcome *o, const char *prog, const char *seed, int recycle)
{
	CU_ASSERT_EQUAL(count(o->report, "error"), 0);
	expect_seed_seen(o->report, seed);
	names d;
	const char *const args[] = {"--order", "rand", "--rng-seed", seed, "-r", "xml", NULL};
	int direct = direct_order(prog, args, NULL, &d);
	CU_ASSERT_EQUAL(d.n, 8);
	CU_ASSERT(exited_with(o, recycle || direct ? 1 : 0));
	expect_order(o->report, &d, 1);
	done(o);
}
#endif

#ifdef CATCH2_ORDER
/* Catch2 v2's --order rand --rng-seed 4 runs "state reads" before "state
 * sets" (exit 1); each program under memguard runs in the direct run's
 * order (the listing in it too), seed 4. Before: --order decl, exit 0. */
static void order_catch2_rand(void)
{
	names d;
	const char *const args[] = {"--order", "rand", "--rng-seed", "4", "-r", "xml", NULL};
	CU_ASSERT_EQUAL_FATAL(direct_order(CATCH2_ORDER, args, NULL, &d), 1);
	CU_ASSERT_EQUAL_FATAL(d.n, 8);
	CU_ASSERT(index_of(&d, "state reads") < index_of(&d, "state sets"));
	const char *const *runs[] = {
	    ARGV("run", "-j", "1", "--driver", "catch2", "--report", "report.json", "--",
	         CATCH2_ORDER, "--order", "rand", "--rng-seed", "4"),
	    ARGV("run", "-j", "1", "--driver", "catch2", "--recycle-at", "va=1M", "--report",
	         "report.json", "--", CATCH2_ORDER, "--order", "rand", "--rng-seed", "4"),
	    ARGV("run", "-j", "2", "--driver", "catch2", "--report", "report.json", "--",
	         CATCH2_ORDER, "--order=rand", "--rng-seed", "4"),
	};
	for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		outcome o;
		mg(&o, runs[r], NULL, 0);
		CU_ASSERT(exited_with(&o, 1));
		CU_ASSERT_FATAL(o.report != NULL);
		expect_state(o.report, "state reads", "fail");
		CU_ASSERT_EQUAL(count(o.report, "fail"), 1);
		CU_ASSERT_EQUAL(count(o.report, "error"), 0);
		expect_order(o.report, &d, r < 2);
		expect_seed_seen(o.report, "4");
		CU_ASSERT_PTR_NULL(json_object_get(o.report, "seed"));
		done(&o);
	}
}

/* --rng-seed given twice is Catch2's usage error (directly: exit 255);
 * memguard draws no seed in place of both, so the listing is refused as
 * the direct run is: Catch2's words, then memguard's usage error (exit 2;
 * exit 3 before e43565f). Before, both were replaced by a drawn seed and
 * the suite ran. */
static void order_catch2_seed_twice(void)
{
	CU_ASSERT_NOT_EQUAL(mg_direct_argv(CATCH2_ORDER,
	                                   (const char *[]){"--order", "rand", "--rng-seed", "5",
	                                                    "--rng-seed", "time", NULL},
	                                   NULL),
	                    0);
	outcome o;
	mg(&o,
	   ARGV("run", "--driver", "catch2", "--", CATCH2_ORDER, "--order", "rand", "--rng-seed",
	        "5", "--rng-seed", "time"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 2));
	CU_ASSERT(strstr(o.err, "Unrecognised token: --rng-seed") != NULL);
	CU_ASSERT(strstr(o.err, "memguard run: Catch2 refused its command line") != NULL);
	CU_ASSERT(strstr(o.err, "Catch2's random seed is") == NULL);
	done(&o);
}

/* Catch2 v2's --rng-seed time (each program its own): memguard draws one
 * for the run, in place of the user's (Clara takes the option once), says
 * it, and the direct run with it has the run's order and (one program)
 * verdict (memguard exits 1 where Catch2 exits with its count of failures,
 * v3 42). */
static void order_catch2_time(void)
{
	for (int recycle = 0; recycle < 2; recycle++) {
		outcome o;
		mg(&o,
		   ARGV("run", "-j", "1", "--driver", "catch2", "--recycle-at",
		        recycle ? "va=1M" : "va=1T", "--report", "report.json", "--", CATCH2_ORDER,
		        "--rng-seed", "time", "--order", "rand"),
		   NULL, 0);
		CU_ASSERT_FATAL(o.report != NULL);
		char seed[32];
		report_seed(o.report, seed, sizeof(seed));
		CU_ASSERT_FATAL(seed[0] != 0);
		CU_ASSERT_PTR_NOT_NULL(strstr(o.err, "Catch2's random seed is"));
		drawn_seed_agrees(&o, CATCH2_ORDER, seed, recycle);
	}
}
#endif

#ifdef CATCH2V3_ORDER
/* Catch2 v3 without --rng-seed draws one from std::random_device in each
 * program: memguard draws one for the run (every program, a recycle at
 * every boundary, sees it), and with --order rand the direct run with that
 * seed has the run's order (and, one program, its verdict). Before: each
 * program its own seed, and declaration order. */
static void order_catch2v3_drawn(void)
{
	for (int recycle = 0; recycle < 2; recycle++) {
		outcome o;
		mg(&o,
		   ARGV("run", "-j", "1", "--driver", "catch2", "--recycle-at",
		        recycle ? "va=1M" : "va=1T", "--report", "report.json", "--",
		        CATCH2V3_ORDER, "--order", "rand"),
		   NULL, 0);
		CU_ASSERT_FATAL(o.report != NULL);
		char seed[32], opt[64];
		report_seed(o.report, seed, sizeof(seed));
		CU_ASSERT_FATAL(seed[0] != 0);
		snprintf(opt, sizeof(opt), "--rng-seed %s", seed);
		CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(o.report, "seed")), opt);
		CU_ASSERT_PTR_NOT_NULL(strstr(o.err, opt));
		drawn_seed_agrees(&o, CATCH2V3_ORDER, seed, recycle);
	}
}
#endif

static const mg_case cases[] = {
    {"order_gtest_seed", order_gtest_seed},
    {"order_gtest_drawn", order_gtest_drawn},
    {"order_gtest_filter", order_gtest_filter},
    {"order_gtest_no_full_list", order_gtest_no_full_list},
    {"order_gtest_nodes", order_gtest_nodes},
    {"order_bisect_seed", order_bisect_seed},
#ifdef CATCH2_ORDER
    {"order_catch2_rand", order_catch2_rand},
    {"order_catch2_time", order_catch2_time},
    {"order_catch2_seed_twice", order_catch2_seed_twice},
#endif
#ifdef CATCH2V3_ORDER
    {"order_catch2v3_drawn", order_catch2v3_drawn},
#endif
};

MG_TEST_MAIN("drivers_order", cases)

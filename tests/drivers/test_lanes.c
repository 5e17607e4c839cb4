/*
 * test_lanes.c - a GoogleTest program recycled at every boundary in two
 * lanes (gtest_bench, 100 tests, --recycle-at va=1M): each lane's program
 * takes its share of what is left, so both lanes run tests to the end and
 * no program is started for nothing; and each recycle's breakdown is of the
 * program's address space, never of memguard's own shim.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mg_run.h"

/* Runs gtest_bench's 100 tests in lanes with a recycle at every boundary. */
static void run_recycled(outcome *o, const char *lanes)
{
	mg_driver_run(o, "gtest", GTEST_BENCH, lanes, "va=1M", ENV("MG_BENCH_TESTS=100"));
	CU_ASSERT(exited_with(o, 0));
	CU_ASSERT_EQUAL(count(o->report, "pass"), 100);
}

/* Two lanes share what is left: before, a lane's program took the whole
 * queue after a recycle, and the other lane started programs that found
 * nothing to run (about one in four of the run's programs: 25 of 100
 * here) while the first ran the rest alone. Now only at the end can a
 * lane's program find the queue empty (the last tests went to the other
 * lane while it started: a few at most, as a slow start can lose that
 * race more than once), and each lane runs a fair part of the tests. */
static void lanes_share_recycled(void)
{
	outcome o;
	run_recycled(&o, "2");
	size_t i, g, idle = 0;
	json_t *sh, *gen;
	CU_ASSERT_EQUAL(json_array_size(json_object_get(o.report, "shards")), 2);
	json_array_foreach(json_object_get(o.report, "shards"), i, sh)
	{
		json_array_foreach(json_object_get(sh, "generations"), g, gen) idle +=
		    json_integer_value(json_object_get(gen, "tests_run")) == 0;
		CU_ASSERT(json_array_size(json_object_get(sh, "tests")) >= 25);
	}
	CU_ASSERT(idle <= 4);
	done(&o);
}

/* The breakdown at each recycle is the program's: before, about half were
 * of the shim (memguard-driver's own maps), read when the runner had not
 * yet seen the program of a fresh burst. */
static void recycle_breakdown_program(void)
{
	outcome o;
	run_recycled(&o, "1");
	size_t i, g, k, j, recycle_views = 0;
	json_t *sh, *gen, *b, *grp;
	json_array_foreach(json_object_get(o.report, "shards"), i, sh)
	    json_array_foreach(json_object_get(sh, "generations"), g, gen)
	        json_array_foreach(json_object_get(gen, "breakdowns"), k, b)
	{
		const char *when = json_string_value(json_object_get(b, "when"));
		recycle_views += when && !strcmp(when, "recycle");
		json_array_foreach(json_object_get(b, "groups"), j, grp)
		{
			const char *name = json_string_value(json_object_get(grp, "name"));
			CU_ASSERT(name && !strstr(name, "memguard-driver"));
		}
	}
	/* 99 recycles: a breakdown missing for the odd one whose program had
	 * already gone is allowed, not for most */
	CU_ASSERT(recycle_views >= 75);
	done(&o);
}

static const mg_case cases[] = {
    {"lanes_share_recycled", lanes_share_recycled},
    {"recycle_breakdown_program", recycle_breakdown_program},
};

MG_TEST_MAIN("drivers_lanes", cases)

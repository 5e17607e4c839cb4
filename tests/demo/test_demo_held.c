/*
 * test_demo_held.c - the demo names who keeps its blocks (issue 25, the
 * original crash case): each test's kept item lands in the block the test
 * before it mapped, so under memguard (one lane, x86 and the 64-bit build
 * under a 4 GiB cap) the console's suspects say which later test's items
 * hold their blocks, and the first recycle lists the tests whose items hold
 * earlier tests' blocks, each block with the test that allocated it and
 * where its items were placed.
 */
#include <stdio.h>
#include <string.h>

#include "mg_run.h"

static void expect_out(const outcome *o, const char *want)
{
	if (strstr(o->out, want) == NULL)
		fprintf(stderr, "not in the console output:\n%s\n---\n%s\n", want, o->out);
	CU_ASSERT_PTR_NOT_NULL(strstr(o->out, want));
}

static void demo_held(const char *const *argv)
{
	outcome o;
	mg(&o, argv, NULL, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "fail") + count(o.report, "crash"), 0);
	/* its two blocks are one site (2 x) where the build inlines the
	 * demo's allocator, two where it does not (the sanitizer build's -O0:
	 * their stacks differ below item_alloc) */
	expect_out(&o, "  demo/item_0001  (grew in 1 of 1 runs)\n             ");
	CU_ASSERT(strstr(o.out,
	                 "  demo/item_0001  (grew in 1 of 1 runs)\n"
	                 "             2 \u00d7 8.00 MiB mmap at block_new (memguard_demo.c:") ||
	          strstr(o.out, "  demo/item_0001  (grew in 1 of 1 runs)\n"
	                        "             8.00 MiB mmap at block_new (memguard_demo.c:"));
	expect_out(&o, "               pinned by: kept item (demo/item_0001)\n");
	expect_out(&o, "               its blocks held since by: 1 item of demo/item_0002\n");
	expect_out(&o, "  earlier tests' blocks held by the items of:\n"
	               "    8.00 MiB in demo/item_0002:\n"
	               "      8.00 MiB mmap block at block_new (memguard_demo.c:");
	expect_out(&o, "), allocated in demo/item_0001, held by 1 item this test placed at "
	               "item_alloc (memguard_demo.c:");
	expect_out(&o, "        pinned by: kept item (demo/item_0002)\n");
	done(&o);
}

static void x86(void)
{
	demo_held(ARGV("run", "-j", "1", "--report", "report.json", "--", DEMO32));
}

static void x64(void)
{
	demo_held(ARGV("run", "-j", "1", "--address-space", "4G", "--report", "report.json", "--",
	               DEMO64));
}

static const mg_case cases[] = {
    {"x86", x86},
    {"x64", x64},
};

MG_TEST_MAIN("demo_held", cases)

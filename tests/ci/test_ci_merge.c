/*
 * test_ci_merge.c - merge: node reports combined into one file.
 */
#include "adapters.h"
#include "ci.h"
#include "ci_int.h"
#include "mg_test.h"
#include "test_ci.h"
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <git2.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

void merge_files(void)
{
	const char *dir = setup();
	mg_err err;
	const char *a = save_report(mk_report(1, "x64", "s", 0, GIB, MIB, 0, 0), dir, "a.json");
	const char *b = save_report(mk_report(2, "x64", "s", 0, GIB, MIB, 0, 0), dir, "b.json");
	const char *c = save_report(mk_report(2, "x86", "s", 1, GIB, MIB, 0, 0), dir, "c.json");
	const char *out = path_in(dir, "all.json");
	CU_ASSERT_EQUAL(run_in(dir, "merge", out, a, b, c, NULL)->rc, 0);
	report *r = NULL;
	CU_ASSERT_EQUAL_FATAL(report_load(&r, out, &err), 0);
	CU_ASSERT_EQUAL(r->nshards, 3);
	CU_ASSERT(note_has_shard(r, 1, "x64", 0) && note_has_shard(r, 2, "x64", 0) &&
	          note_has_shard(r, 2, "x86", 0));
	report_free(r);
	CU_ASSERT_EQUAL(run_in(dir, "merge", out, NULL)->rc, 2);
	CU_ASSERT_EQUAL(run_in(dir, "merge", out, path_in(dir, "none.json"), NULL)->rc, 2);
	cleanup();
}

/* Nodes 1 and 3 of 3: merge warns naming both sets and the report records
 * the nodes present; a complete set merges without a warning. */
void merge_partial_nodes(void)
{
	const char *dir = setup();
	mg_err err;
	report *r1 = mk_report(1, "x64", "s", 0, GIB, MIB, 0, 0);
	report *r2 = mk_report(2, "x64", "s", 0, GIB, MIB, 0, 0);
	report *r3 = mk_report(3, "x64", "s", 0, GIB, MIB, 0, 0);
	r1->node_total = r2->node_total = r3->node_total = 3;
	const char *a = save_report(r1, dir, "n1.json");
	const char *b = save_report(r2, dir, "n2.json");
	const char *c = save_report(r3, dir, "n3.json");
	const char *out = path_in(dir, "partial.json");
	run *m = run_in(dir, "merge", out, c, a, NULL);
	CU_ASSERT_EQUAL(m->rc, 0);
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(m->err, "warning: partial node set: nodes 1, 3 of 3 present, node 2 missing"));
	report *r = NULL;
	CU_ASSERT_EQUAL_FATAL(report_load(&r, out, &err), 0);
	CU_ASSERT_EQUAL_FATAL(r->nnodes_present, 2);
	CU_ASSERT_EQUAL(r->nodes_present[0], 1);
	CU_ASSERT_EQUAL(r->nodes_present[1], 3);
	CU_ASSERT_EQUAL(r->node_total, 3);
	report_free(r);
	/* a merged report merged again keeps the union; now complete */
	const char *all = path_in(dir, "all.json");
	m = run_in(dir, "merge", all, out, b, NULL);
	CU_ASSERT_EQUAL(m->rc, 0);
	CU_ASSERT_PTR_NULL(strstr(m->err, "warning"));
	CU_ASSERT_EQUAL_FATAL(report_load(&r, all, &err), 0);
	CU_ASSERT_EQUAL(r->nnodes_present, 3);
	report_free(r);
	/* one node alone of three: two missing */
	m = run_in(dir, "merge", all, b, NULL);
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(m->err, "partial node set: node 2 of 3 present, nodes 1, 3 missing"));
	cleanup();
}

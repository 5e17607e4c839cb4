/*
 * ci_tool.c - a stand-in for the memguard binary in the push race test:
 * "ci_tool fixture NODE PATH" writes a one-shard report of node NODE,
 * "ci_tool nodes PATH" prints the node of each shard of a report, any
 * "ci_tool trend I PATH" writes the report of commit I of the trend page
 * test (log_html_chromium.sh; the script knows what each I holds), any
 * other first argument runs that ci subcommand through ci_main.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ci.h"

#define MIB (1ull << 20)

/*
 * Commit i of 100: x86 my_tests on every commit, peak VA a saw-tooth about
 * 3 GiB that a fix lowers by 1 GiB from commit 60 (commit 80 800 MiB over
 * it, peak RSS of commit 90 100 MiB over its line: regressions past
 * compare's default gate), the x86 limits, 2 recycles when i % 7 == 0,
 * a kill (and a crashed test) when i % 25 == 24, and a test my_tests/leaky
 * that retains (i + 1) MiB; x64 big from commit 30 on.
 */
static int trend(int i, const char *path)
{
	mg_err err;
	report *r = report_new();
	r->node_index = r->node_total = 1;
	r->start_time = 1790000000 + i * 3600;
	r->wall = 30;
	r->has_limit_bytes = 1; /* the x86 defaults: recycle at 3.5G, kill at 3.75G */
	r->soft.va = 3584 * MIB;
	r->hard.va = 3840 * MIB;
	report_shard *s = report_add_shard(r);
	s->node = 1;
	s->arch = report_strdup("x86");
	s->suite = report_strdup("my_tests");
	s->driver = report_strdup("native");
	s->peak_va = 3000 * MIB + (uint64_t)(i % 10) * 40 * MIB - (i >= 60 ? 1024 * MIB : 0) +
	             (i == 80 ? 800 * MIB : 0); /* a regression past compare's gate */
	s->peak_rss = 200 * MIB + (uint64_t)i * MIB + (i == 90 ? 100 * MIB : 0); /* another */
	s->recycles = i % 7 == 0 ? 2 : 0;
	s->kills = i % 25 == 24 ? 1 : 0;
	s->wall = 20 + i * 0.1;
	for (int t = 0; t < 20; t++) {
		report_test *rt = report_shard_add_test(s);
		char name[64];
		snprintf(name, sizeof(name), t ? "my_tests/t%02d" : "my_tests/leaky", t);
		rt->name = report_strdup(name);
		rt->state = t == 19 && s->kills ? TEST_CRASH : TEST_PASS;
		rt->duration = t ? 0.5 : 0.1 + i * 0.01;
		rt->va_delta = t ? 4096 : (int64_t)((uint64_t)(i + 1) * MIB);
		rt->rss_delta = t ? 0 : (int64_t)((uint64_t)(i + 1) * MIB / 4);
	}
	if (i >= 30) {
		s = report_add_shard(r);
		s->node = 1;
		s->arch = report_strdup("x64");
		s->suite = report_strdup("big");
		s->driver = report_strdup("gtest");
		s->peak_va = 1024 * MIB + (uint64_t)i * 8 * MIB;
		s->peak_rss = 300 * MIB;
		s->wall = 12;
		report_test *rt = report_shard_add_test(s);
		rt->name = report_strdup("Big.Test");
		rt->state = TEST_PASS;
		rt->duration = 2;
	}
	report_finish(r, 10);
	int rc = report_save(r, path, &err);
	if (rc)
		fprintf(stderr, "ci_tool: %s\n", err.msg);
	report_free(r);
	return rc ? 3 : 0;
}

int main(int argc, char **argv)
{
	mg_err err;
	if (argc < 2)
		return 2;
	if (strcmp(argv[1], "nodes") == 0 && argc == 3) {
		report *r = NULL;
		if (report_load(&r, argv[2], &err) < 0) {
			fprintf(stderr, "ci_tool: %s\n", err.msg);
			return 3;
		}
		for (size_t i = 0; i < r->nshards; i++)
			printf("%u\n", r->shards[i].node);
		report_free(r);
		return 0;
	}
	if (strcmp(argv[1], "trend") == 0 && argc == 4)
		return trend(atoi(argv[2]), argv[3]);
	if (strcmp(argv[1], "fixture") != 0)
		return ci_main(argv[1], argc - 1, argv + 1);
	if (argc != 4)
		return 2;
	report *r = report_new();
	uint32_t node = (uint32_t)atoi(argv[2]);
	r->node_index = node;
	r->node_total = 4;
	report_shard *s = report_add_shard(r);
	s->node = node;
	s->arch = report_strdup("x86");
	s->suite = report_strdup("my_tests");
	s->peak_va = (3ull << 30) + node * (1ull << 20);
	s->peak_rss = 100ull << 20;
	report_test *t = report_shard_add_test(s);
	t->name = report_strdup("suite/test");
	t->va_delta = 4096;
	report_finish(r, 10);
	int rc = report_save(r, argv[3], &err);
	if (rc)
		fprintf(stderr, "ci_tool: %s\n", err.msg);
	report_free(r);
	return rc ? 3 : 0;
}

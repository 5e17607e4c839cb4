/*
 * ci_tool.c - a stand-in for the memguard binary in the push race test:
 * "ci_tool fixture NODE PATH" writes a one-shard report of node NODE,
 * "ci_tool nodes PATH" prints the node of each shard of a report, any
 * other first argument runs that ci subcommand through ci_main.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ci.h"

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

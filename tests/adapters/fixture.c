/*
 * fixture.c - reports built in code for the adapter tests: every field set,
 * hostile strings included (see fixture.h).
 */
#include "fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fixture_add_frame(report_site *site, const char *function, const char *file, uint32_t line)
{
	report_frame *f = report_site_add_frame(site);
	f->function = report_strdup(function);
	f->file = report_strdup(file);
	f->line = line;
	f->module = report_strdup("/opt/items/libitems.so");
	f->build_id = report_strdup("4f0c2a9e");
	f->offset = 0x1234 + line;
}

report_site *fixture_add_site(report_shard *s, size_t test, const char *kind, uint64_t count,
                              uint64_t bytes)
{
	report_site *site = report_test_sites_add(report_shard_add_test_sites(s, test));
	site->kind = report_strdup(kind);
	site->count = count;
	site->bytes = bytes;
	return site;
}

report *fixture_cache_report(const char *arch, int ntests, int grown, int64_t va_delta)
{
	report *r = report_new();
	report_shard *s = report_add_shard(r);
	s->suite = report_strdup("items");
	s->arch = report_strdup(arch);
	for (int i = 0; i < ntests; i++) {
		report_test *t = report_shard_add_test(s);
		char name[32];
		snprintf(name, sizeof(name), "Cache/%d", i);
		t->name = report_strdup(name);
		t->va_delta = i == grown ? va_delta : 0;
	}
	return r;
}

void fixture_add_recycle(report_shard *s, const char *reason)
{
	report_generation *g = report_shard_add_generation(s);
	g->end = REPORT_END_RECYCLE;
	if (reason)
		g->reason = report_strdup(reason);
	report_generation_add_breakdown(g)->when = report_strdup("recycle");
}

/* Test 3 of each shard (hostile name) left two sites: 2 x 8 MiB mapped at
 * block_new <- cache_put <- a frame known by its module only, pinned by two
 * items; a hostile malloc site. */
static void full_sites(report_shard *s)
{
	report_site *site = fixture_add_site(s, 3, "mmap", 2, 16u << 20);
	fixture_add_frame(site, "block_new", "src/storage.c", 49);
	fixture_add_frame(site, "cache_put", "src/cache.c", 115);
	report_frame *f = report_site_add_frame(site);
	f->module = report_strdup("/usr/bin/items_tests");
	f->offset = 0x4a10;
	report_site_add_pin(site, "item 17 (Cache/3)");
	report_site_add_pin(site, "item " HOSTILE);
	site = fixture_add_site(s, 3, "malloc", 1, 1u << 20);
	fixture_add_frame(site, "fn_" HOSTILE, "dir/" HOSTILE ".c", 7);
}

/* A report with every field set, hostile strings included. */
report *fixture_full_report(void)
{
	report *r = report_new();
	free(r->tool_version);
	r->tool_version = report_strdup("9.8.7");
	r->sha = report_strdup("0123456789abcdef0123456789abcdef01234567");
	r->branch = report_strdup("feature/" HOSTILE);
	r->dirty = 1;
	r->node_index = 2;
	r->node_total = 3;
	r->limits_soft = report_strdup("va=3.5GiB");
	r->limits_hard = report_strdup("va=3.9GiB");
	r->start_time = 1790000000.25;
	r->wall = 252.5;
	r->interrupted = 1;
	r->exit_code = 3;
	r->seed = report_strdup("--gtest_random_seed=7");
	for (int si = 0; si < 2; si++) {
		report_shard *s = report_add_shard(r);
		s->node = 2;
		s->index = (uint32_t)si;
		s->suite = report_strdup(si ? "suite" HOSTILE : "core");
		s->arch = report_strdup(si ? "x64" : "x86");
		s->driver = report_strdup("native");
		s->command = report_strdup("'./host' --x \"a b\"\n");
		s->peak_va = 3747563520ull + (uint64_t)si;
		s->peak_rss = 222298112;
		s->recycles = 7;
		s->kills = 1;
		s->wall = 252.125;
		s->user = 100.5;
		s->sys = 3.0625;
		for (int g = 0; g < 2; g++) {
			report_generation *gen = report_shard_add_generation(s);
			gen->index = (uint32_t)g;
			gen->pid = 1234 + g;
			gen->tests_run = 100;
			gen->peak_va = 3000000000ull;
			gen->peak_rss = 100000000;
			gen->end = g ? REPORT_END_KILL : REPORT_END_RECYCLE;
			gen->reason = g ? NULL : report_strdup("va 3.51 GiB >= recycle 3.50 GiB");
			gen->start = 1.5 * g;
			gen->wall = 0.1 + g;
			report_breakdown *b = report_generation_add_breakdown(gen);
			b->when = report_strdup("recycle");
			b->va = 3000000000ull;
			b->largest_gap = 12345678;
			report_category *c = report_breakdown_add_category(b);
			c->name = report_strdup("heap");
			c->va = 1000;
			c->rss = 900;
			c = report_breakdown_add_category(b);
			c->name = report_strdup("anon");
			c->va = 2000;
			report_group *gr = report_breakdown_add_group(b);
			gr->name = report_strdup("/memfd:blocks" HOSTILE);
			gr->count = 525;
			gr->size = 8 << 20;
			gr->total = 525ull * (8 << 20);
		}
		for (int t = 0; t < TEST_STATE_COUNT; t++) {
			report_test *x = report_shard_add_test(s);
			char name[64];
			snprintf(name, sizeof(name), "suite%d/test%d", si, t);
			x->name = report_strdup(t == 3 ? "suite/" HOSTILE : name);
			x->state = (test_state)t;
			x->message = t % 2 ? report_strdup("msg " HOSTILE) : NULL;
			x->output = t % 3
			                ? report_bytes_new("out\n" HOSTILE, strlen("out\n" HOSTILE))
			                : NULL;
			x->generation = (uint32_t)(t % 2);
			x->attempts = t == TEST_MEMLIMIT ? 2 : 1;
			x->duration = 0.001 * t + 1e-9;
			x->va_after = 1000000ull * (uint64_t)t;
			x->rss_after = 500000ull * (uint64_t)t;
			x->va_delta = t % 2 ? 4096 * t : -4096;
			x->rss_delta = -(int64_t)t;
		}
		full_sites(s);
		for (int p = 0; p < 5; p++) {
			report_point *pt = report_shard_add_point(s);
			pt->t = p * 0.5;
			pt->va = 1000000ull * (uint64_t)p;
			pt->rss = 100ull * (uint64_t)p;
			pt->generation = (uint32_t)(p / 3);
		}
	}
	report_finish(r, 10);
	return r;
}

/* The full report plus what stresses the adapters' bounds: a test with 10 MB
 * of output (hostile bytes included), a shard with 12 recycles and 12
 * memory-limit tests (more than any adapter lists one by one). */
static report *hostile_report(void)
{
	report *r = fixture_full_report();
	report_shard *s = report_add_shard(r);
	s->node = 2;
	s->index = 7;
	s->suite = report_strdup("many'|[x]");
	s->arch = report_strdup("x86;]");
	s->driver = report_strdup("exec");
	s->command = report_strdup("./many");
	s->recycles = 12;
	s->peak_va = 4000000000ull;
	for (uint32_t g = 0; g < 12; g++) {
		report_generation *gen = report_shard_add_generation(s);
		gen->index = g;
		gen->pid = 100 + g;
		gen->tests_run = 3;
		gen->end = REPORT_END_RECYCLE;
		gen->reason = report_strdup("va 3.51 GiB >= recycle 3.50 GiB; 100% full: [x],y");
	}
	for (int i = 0; i < 12; i++) {
		report_test *t = report_shard_add_test(s);
		char name[64];
		snprintf(name, sizeof(name), "many/limit%02d", i);
		t->name = report_strdup(name);
		t->state = TEST_MEMLIMIT;
		t->message = report_strdup("va 4.00 GiB >= hard 3.90 GiB");
		t->va_delta = 1 << 20;
	}
	report_test *big = report_shard_add_test(s);
	big->name = report_strdup("many/" HOSTILE "/big_output");
	big->state = TEST_FAIL;
	big->message = report_strdup("line1\nline2 %0A ::error::injected\n##vso[task.complete]x");
	size_t size = 10u << 20;
	big->output = malloc(sizeof(report_bytes) + size + 1);
	big->output->len = size;
	static const char chunk[] = "log line: all fine \xff\x01 <x> & ]] |' %\n";
	for (size_t i = 0; i < size; i++)
		big->output->data[i] = chunk[i % (sizeof(chunk) - 1)];
	big->output->data[size] = '\0';
	report_finish(r, 10);
	return r;
}

report *fixture_by_name(const char *name)
{
	if (strcmp(name, "full") == 0)
		return fixture_full_report();
	if (strcmp(name, "hostile") == 0)
		return hostile_report();
	return NULL;
}

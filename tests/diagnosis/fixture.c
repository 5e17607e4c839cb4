/*
 * fixture.c - the diagnosis tests' reports (see fixture.h), and, built as
 * diag_fixture, a program that saves one as JSON for the shell-driven tests.
 */
#include "fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MiB (1024ull * 1024)
#define GiB (1024ull * MiB)

static void add_breakdown(report_generation *g, const char *when, uint64_t va)
{
	report_breakdown *b = report_generation_add_breakdown(g);
	b->when = report_strdup(when);
	b->va = va;
	b->largest_gap = 12 * MiB;
	static const char *const cats[] = {"heap", "anon", "stack",   "shm",
	                                   "file", "code", "reserved"};
	static const unsigned share[] = {6, 10, 1, 70, 5, 3, 5}; /* percent */
	for (int i = 0; i < 7; i++) {
		report_category *c = report_breakdown_add_category(b);
		c->name = report_strdup(cats[i]);
		c->va = va / 100 * share[i];
		c->rss = c->va / 4;
	}
	report_group *gr = report_breakdown_add_group(b);
	gr->name = report_strdup("/memfd:blocks");
	gr->count = 525;
	gr->size = 8 * MiB;
	gr->total = 525 * 8 * MiB;
	gr = report_breakdown_add_group(b);
	gr->name = report_strdup("/memfd:" DIAG_HOSTILE);
	gr->count = 3;
	gr->size = 64 * MiB;
	gr->total = 192 * MiB;
}

static report_test *add_test(report_shard *s, const char *name, test_state st, uint32_t gen,
                             int64_t delta)
{
	report_test *t = report_shard_add_test(s);
	t->name = report_strdup(name);
	t->state = st;
	t->generation = gen;
	t->duration = 0.01;
	t->va_after = 1 * GiB;
	t->va_delta = delta;
	t->rss_delta = delta / 2;
	if (st != TEST_PASS)
		t->message = report_strdup("why: " DIAG_HOSTILE);
	return t;
}

/* A saw-tooth: VA climbs to the recycle limit within each generation. */
static void timeline(report_shard *s, double wall, unsigned npoints)
{
	for (unsigned i = 0; i < npoints; i++) {
		report_point *p = report_shard_add_point(s);
		p->t = wall * i / npoints;
		uint32_t g = 0;
		while (g + 1 < s->ngens && s->gens[g + 1].start <= p->t)
			g++;
		double into = (p->t - s->gens[g].start) / (s->gens[g].wall ? s->gens[g].wall : 1);
		p->va = (uint64_t)(40 * MiB + into * (double)(3500 * MiB - 40 * MiB));
		p->rss = p->va / 20;
		p->generation = g;
	}
}

static void generation(report_shard *s, const char *end, const char *reason, double start,
                       double wall, uint32_t tests)
{
	report_generation *g = report_shard_add_generation(s);
	g->index = (uint32_t)(s->ngens - 1);
	g->pid = 4000 + (long)s->index * 100 + g->index;
	g->tests_run = tests;
	g->peak_va = 3500 * MiB;
	g->peak_rss = 175 * MiB;
	g->end = (report_end)report_end_parse(end);
	g->reason = reason ? report_strdup(reason) : NULL;
	g->start = start;
	g->wall = wall;
	if (!strcmp(end, "recycle") || !strcmp(end, "kill") || !strcmp(end, "crash"))
		add_breakdown(g, end, 3500 * MiB);
}

report *diag_fixture_report(void)
{
	report *r = report_new();
	r->sha = report_strdup("0123456789abcdef0123456789abcdef01234567");
	r->branch = report_strdup("main");
	r->node_index = 1;
	r->node_total = 1;
	r->limits_soft = report_strdup("va=3.50GiB,rss=6.00GiB");
	r->limits_hard = report_strdup("va=3.75GiB,rss=8.00GiB (address space capped at 4.00 GiB)");
	r->start_time = 1790000000;
	r->wall = 30;
	r->exit_code = 1;
	for (uint32_t si = 0; si < 2; si++) {
		report_shard *s = report_add_shard(r);
		s->node = 1;
		s->index = si;
		s->suite = report_strdup(si ? "suite " DIAG_HOSTILE : "core_tests");
		s->arch = report_strdup("x64");
		s->driver = report_strdup("native");
		s->command = report_strdup("./host --flag \"a b\" " DIAG_HOSTILE);
		s->peak_va = 3500 * MiB + si;
		s->peak_rss = 175 * MiB;
		s->wall = 30;
		s->user = 20;
		s->sys = 2;
		s->recycles = 1;
		s->kills = si ? 0 : 1;
		generation(s, "recycle", "va 3.51 GiB >= recycle 3.50 GiB " DIAG_HOSTILE, 0.1, 10,
		           20);
		generation(s, si ? "crash" : "kill",
		           si ? "SIGSEGV" : "va 3.80 GiB >= kill 3.75 GiB", 10.2, 9.8, 20);
		generation(s, "quit", "no tests left", 20.1, 9.9, 20);
		timeline(s, 30, 300);
		char name[64];
		for (uint32_t g = 0; g < 3; g++)
			for (int k = 0; k < 20; k++) {
				snprintf(name, sizeof(name), "core/s%u_g%u_t%02d", si, g, k);
				add_test(s, name, TEST_PASS, g, k == 7 ? (int64_t)(8 * MiB) : 0);
			}
		add_test(s, si ? "suite/" DIAG_HOSTILE : "core/leaks_a_lot", TEST_PASS, 0,
		         (int64_t)(700 * MiB));
		if (si == 0) {
			report_test *t = add_test(s, "core/too_big_alone", TEST_MEMLIMIT, 1,
			                          (int64_t)(3800 * MiB));
			t->attempts = 2;
		} else {
			add_test(s, "core/crashes_here", TEST_CRASH, 1, 0);
		}
	}
	report_finish(r, 20);
	return r;
}

report *diag_fixture_large(size_t ntests, size_t nshards)
{
	report *r = report_new();
	r->node_index = 1;
	r->node_total = 1;
	r->limits_soft = report_strdup("va=3.50GiB");
	r->limits_hard = report_strdup("va=3.75GiB");
	r->wall = 3600;
	for (size_t si = 0; si < nshards; si++) {
		report_shard *s = report_add_shard(r);
		s->node = 1;
		s->index = (uint32_t)si;
		s->suite = report_strdup("big");
		s->arch = report_strdup("x86");
		s->driver = report_strdup("native");
		s->command = report_strdup("./big");
		size_t per = ntests / nshards;
		size_t ngens = per / 400 + 1;
		double gw = 3600.0 / (double)ngens;
		for (size_t g = 0; g < ngens; g++)
			generation(s, g + 1 < ngens ? "recycle" : "quit",
			           "va 3.51 GiB >= recycle 3.50 GiB", (double)g * gw, gw, 400);
		s->recycles = (uint32_t)(ngens - 1);
		timeline(s, 3600, 4096);
		char name[64];
		for (size_t i = 0; i < per; i++) {
			snprintf(name, sizeof(name), "big/s%zu_t%06zu", si, i);
			add_test(s, name, i % 1000 == 999 ? TEST_FAIL : TEST_PASS,
			         (uint32_t)(i / 400), i % 97 == 0 ? (int64_t)(8 * MiB) : 0);
		}
	}
	report_finish(r, 200);
	return r;
}

#ifdef DIAG_FIXTURE_MAIN
/* diag_fixture OUT.json [large]: saves the fixture report. */
int main(int argc, char **argv)
{
	mg_err err;
	if (argc < 2) {
		fputs("usage: diag_fixture OUT.json [large]\n", stderr);
		return 2;
	}
	report *r = argc > 2 && !strcmp(argv[2], "large") ? diag_fixture_large(100000, 4)
	                                                  : diag_fixture_report();
	int rc = report_save(r, argv[1], &err);
	if (rc < 0)
		fprintf(stderr, "diag_fixture: %s\n", err.msg);
	report_free(r);
	return rc < 0 ? 1 : 0;
}
#endif

/*
 * progress.c - live progress (see progress.h). Called on every test and
 * sample: it only counts, and prints when the redraw interval has passed.
 */
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct progress {
	unsigned lanes;
	size_t total, done, bad;
	int tty, quiet;
	double last_draw, last_beat, t0;
	uint64_t *va, *peak;
};

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

progress *progress_new(unsigned lanes, size_t total, int quiet)
{
	progress *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->lanes = lanes;
	p->total = total;
	p->quiet = quiet;
	const char *ci = getenv("CI");
	p->tty = isatty(2) && !(ci && *ci) && getenv("TERM") && strcmp(getenv("TERM"), "dumb");
	p->va = calloc(lanes, sizeof(uint64_t));
	p->peak = calloc(lanes, sizeof(uint64_t));
	p->t0 = p->last_beat = mono();
	return p;
}

static void draw(progress *p, double t)
{
	char line[512], a[32], b[32];
	int n = snprintf(line, sizeof(line), "memguard: %zu/%zu tests", p->done, p->total);
	if (p->bad)
		n += snprintf(line + n, sizeof(line) - (size_t)n, " (%zu not passed)", p->bad);
	for (unsigned i = 0; i < p->lanes && n < 400; i++) {
		report_format_size(a, sizeof(a), p->va[i]);
		report_format_size(b, sizeof(b), p->peak[i]);
		n += snprintf(line + n, sizeof(line) - (size_t)n, " | %u: %s (peak %s)", i, a, b);
	}
	fprintf(stderr, "\r\033[K%s", line);
	p->last_draw = t;
}

static void tick(progress *p)
{
	if (!p || p->quiet)
		return;
	double t = mono();
	if (p->tty) {
		if (t - p->last_draw >= 0.1)
			draw(p, t);
	} else if (t - p->last_beat >= 30) {
		fprintf(stderr, "memguard: %zu/%zu tests done after %.0fs\n", p->done, p->total,
		        t - p->t0);
		p->last_beat = t;
	}
}

void progress_test_done(progress *p, unsigned lane, test_state st)
{
	(void)lane;
	if (!p)
		return;
	p->done++;
	if (st != TEST_PASS && st != TEST_SKIP)
		p->bad++;
	tick(p);
}

void progress_sample(progress *p, unsigned lane, uint64_t va, uint64_t peak)
{
	if (!p)
		return;
	p->va[lane] = va;
	if (peak > p->peak[lane])
		p->peak[lane] = peak;
	tick(p);
}

static void event(progress *p, unsigned lane, uint32_t gen, pid_t pid, const char *what,
                  uint32_t tests_run, const char *why)
{
	if (!p || p->quiet)
		return;
	if (p->tty)
		fputs("\r\033[K", stderr);
	fprintf(stderr, "memguard: lane %u: host %u (pid %ld) %s after %u tests%s%s\n", lane, gen,
	        (long)pid, what, tests_run, why && *why ? ": " : "", why ? why : "");
	if (p->tty)
		draw(p, mono());
}

void progress_event(progress *p, unsigned lane, uint32_t gen, pid_t pid, report_end end,
                    uint32_t tests_run, const char *why)
{
	event(p, lane, gen, pid,
	      end == REPORT_END_RECYCLE ? "recycled"
	      : end == REPORT_END_KILL  ? "killed"
	                                : report_end_name(end),
	      tests_run, why);
}

void progress_warning(progress *p, unsigned lane, uint32_t gen, pid_t pid, uint32_t tests_run,
                      const char *why)
{
	event(p, lane, gen, pid, "warning", tests_run, why);
}

void progress_end(progress *p)
{
	if (p && p->tty && !p->quiet)
		fputs("\r\033[K", stderr);
}

void progress_free(progress *p)
{
	if (!p)
		return;
	free(p->va);
	free(p->peak);
	free(p);
}

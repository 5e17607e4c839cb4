/*
 * progress.c - live progress (see progress.h). Called on every test and
 * sample: it only counts, and prints when the redraw interval has passed.
 * Never wraps a terminal line: every line is cut to the terminal's width.
 */
#include "progress.h"

#include "defuse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define PLAIN_EVERY 30.0 /* seconds between the plain status lines */

struct progress {
	unsigned lanes;
	size_t total, done, bad;
	int tty, quiet;
	unsigned drawn; /* live lines on the screen (the cursor on the first) */
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

/* "1m02s"; "-" when unknown. */
static void dur(char *buf, size_t size, double s)
{
	if (s < 0)
		snprintf(buf, size, "-");
	else if (s < 60)
		snprintf(buf, size, "%.0fs", s);
	else if (s < 3600)
		snprintf(buf, size, "%dm%02ds", (int)s / 60, (int)s % 60);
	else
		snprintf(buf, size, "%dh%02dm", (int)s / 3600, (int)s / 60 % 60);
}

void progress_format(char *buf, size_t size, size_t done, size_t total, size_t bad, double elapsed,
                     const uint64_t *va, const uint64_t *peak, unsigned lanes, unsigned width)
{
	char el[16], eta[16], now[32], pk[32];
	uint64_t vmax = 0, pmax = 0;
	unsigned pct = total ? (unsigned)(done * 100 / total) : 0;
	if (width < 20)
		width = 20;
	if (width >= size)
		width = (unsigned)size - 1;
	for (unsigned i = 0; i < lanes; i++) {
		if (va[i] > vmax)
			vmax = va[i];
		if (peak[i] > pmax)
			pmax = peak[i];
	}
	dur(el, sizeof(el), elapsed);
	dur(eta, sizeof(eta),
	    done && done < total ? elapsed * (double)(total - done) / (double)done : -1);
	report_format_size(now, sizeof(now), vmax);
	report_format_size(pk, sizeof(pk), pmax);
	char line[1024];
	int n = snprintf(line, sizeof(line), "[%3u%%] %zu/%zu tests", pct, done, total);
	if (bad)
		n += snprintf(line + n, sizeof(line) - (size_t)n, ", %zu not passed", bad);
	n += snprintf(line + n, sizeof(line) - (size_t)n, " | %s, ETA %s | VA %s, peak %s", el,
	              done >= total ? "0s" : eta, now, pk);
	char of[32];
	snprintf(of, sizeof(of), " (largest of %u lanes)", lanes);
	if (lanes > 1 && (unsigned)n + strlen(of) <= width) /* a remark: only where it fits */
		n += snprintf(line + n, sizeof(line) - (size_t)n, "%s", of);
	if ((unsigned)n > width) { /* never wraps: cut, and say so */
		line[width - 1] = '>';
		line[width] = 0;
	}
	snprintf(buf, size, "%s", line);
}

/* The terminal's columns and rows (stderr), else $COLUMNS, else 80x24. */
static void term_size(unsigned *cols, unsigned *rows)
{
	struct winsize ws;
	*cols = 80;
	*rows = 24;
	if (ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col) {
		*cols = ws.ws_col;
		*rows = ws.ws_row ? ws.ws_row : 24;
		return;
	}
	const char *c = getenv("COLUMNS");
	if (c && atoi(c) > 0)
		*cols = (unsigned)atoi(c);
}

/* Blanks the live lines one by one (each "\033[K"; never an erase of the
 * screen, which tmux and others move into the scrollback) and leaves the
 * cursor on the first. */
static void wipe(progress *p)
{
	if (!p->drawn)
		return;
	for (unsigned i = 0; i < p->drawn; i++)
		fputs(i ? "\n\033[K" : "\r\033[K", stderr);
	if (p->drawn > 1)
		fprintf(stderr, "\033[%uA", p->drawn - 1);
	fputc('\r', stderr);
	p->drawn = 0;
}

/* The status line, and one line per lane when the screen has the rows
 * (leaving 3 for the output above); each line one column short of the
 * width, so no terminal wraps it. Each line overwrites the one drawn there
 * before; the cursor goes back to the first. */
static void draw(progress *p, double t)
{
	unsigned cols, rows;
	char line[1024];
	term_size(&cols, &rows);
	if (cols > sizeof(line))
		cols = sizeof(line);
	/* "memguard " and the status: one column short of the width */
	progress_format(line, sizeof(line), p->done, p->total, p->bad, t - p->t0, p->va, p->peak,
	                p->lanes, cols > 30 ? cols - 10 : 20);
	fprintf(stderr, "\rmemguard %s\033[K", line);
	unsigned lines = 1;
	if (p->lanes > 1 && p->lanes + 3 <= rows) {
		for (unsigned i = 0; i < p->lanes; i++) {
			char a[32], b[32], l[96];
			report_format_size(a, sizeof(a), p->va[i]);
			report_format_size(b, sizeof(b), p->peak[i]);
			int n = snprintf(l, sizeof(l), "  lane %u: VA %s, peak %s", i, a, b);
			if ((unsigned)n >= cols)
				l[cols > 1 ? cols - 1 : 0] = 0;
			fprintf(stderr, "\n%s\033[K", l);
		}
		lines += p->lanes;
	}
	for (unsigned i = lines; i < p->drawn; i++) /* fewer lines than before */
		fputs("\n\033[K", stderr);
	unsigned down = (lines > p->drawn ? lines : p->drawn) - 1;
	if (down)
		fprintf(stderr, "\033[%uA", down);
	fputc('\r', stderr);
	fflush(stderr);
	p->drawn = lines;
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
	} else if (t - p->last_beat >= PLAIN_EVERY) {
		char line[512];
		progress_format(line, sizeof(line), p->done, p->total, p->bad, t - p->t0, p->va,
		                p->peak, p->lanes, sizeof(line) - 1);
		fprintf(stderr, "memguard: %s\n", line);
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
		wipe(p);
	char line[1024]; /* why may hold a test's text: defused for the CI */
	int n = snprintf(line, sizeof(line),
	                 "memguard: lane %u: host %u (pid %ld) %s after %u test%s%s%s\n", lane, gen,
	                 (long)pid, what, tests_run, tests_run == 1 ? "" : "s",
	                 why && *why ? ": " : "", why ? why : "");
	if (n >= (int)sizeof(line))
		memcpy(line + sizeof(line) - 5, "...\n", 5);
	defuse_puts(stderr, line, defuse_scanners());
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

void progress_note(progress *p, unsigned lane, const char *line)
{
	if (p && p->tty && !p->quiet)
		fputs("\r\033[K", stderr);
	fprintf(stderr, "memguard: lane %u: %s\n", lane, line);
	if (p && p->tty && !p->quiet)
		draw(p, mono());
}

void progress_clear(progress *p)
{
	if (p && p->tty && !p->quiet) {
		wipe(p);
		fflush(stderr);
	}
}

void progress_end(progress *p)
{
	if (p && p->tty && !p->quiet)
		wipe(p);
}

void progress_free(progress *p)
{
	if (!p)
		return;
	free(p->va);
	free(p->peak);
	free(p);
}

/*
 * progress.h - what the runner says while it runs. On a terminal: a live
 * status line ("[ 55%] 550/1000 tests | 1m02s, ETA 51s | VA now 1.20 GiB,
 * peak 3.41 GiB") cut to the terminal's width so it never wraps, and under
 * it one line per lane with that lane's VA when the terminal has the rows
 * (else the lanes' largest), redrawn at most 10 times a second. Otherwise
 * (CI, a file): no cursor tricks; a line per recycle or kill and the same
 * status as a plain line every 30 s.
 */
#ifndef MG_PROGRESS_H
#define MG_PROGRESS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "report.h"

typedef struct progress progress;

progress *progress_new(unsigned lanes, size_t total, int quiet);
void progress_test_done(progress *p, unsigned lane, test_state st);
void progress_sample(progress *p, unsigned lane, uint64_t va, uint64_t peak);
/* A host ended other than by a plain quit. */
void progress_event(progress *p, unsigned lane, uint32_t gen, pid_t pid, report_end end,
                    uint32_t tests_run, const char *why);
/* A soft limit crossed where the driver cannot recycle. */
void progress_warning(progress *p, unsigned lane, uint32_t gen, pid_t pid, uint32_t tests_run,
                      const char *why);
/* A line about a lane that must be seen, -q or not (a stopped host). */
void progress_note(progress *p, unsigned lane, const char *line);
/* Clears the live lines for other output (they come back at the next
 * redraw); nothing off a terminal. p may be NULL. */
void progress_clear(progress *p);
/* Clears the live lines. */
void progress_end(progress *p);
void progress_free(progress *p);

/* The status line's text for done of total tests (bad not passed) after
 * elapsed seconds, the lanes' current and peak VA, cut to width columns
 * (at least 20); with lanes set, one segment per lane while they fit.
 * Pure: the live line and the plain one are both this. */
void progress_format(char *buf, size_t size, size_t done, size_t total, size_t bad, double elapsed,
                     const uint64_t *va, const uint64_t *peak, unsigned lanes, unsigned width);

#endif

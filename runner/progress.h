/*
 * progress.h - what the runner says while it runs. On a terminal: one live
 * line (tests done/total, and per lane the current and peak VA), redrawn at
 * most 10 times a second. Otherwise (CI, a file): no cursor tricks; a line
 * per recycle or kill and a heartbeat every 30 s.
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
/* Clears the live line. */
void progress_end(progress *p);
void progress_free(progress *p);

#endif

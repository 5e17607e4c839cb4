/*
 * readback.h - what the adapter unit tests read back: a report as the
 * writer writes it, and an adapter's output as it renders it to a file.
 * One definition for every test program of tests/adapters (readback.c).
 */
#ifndef MG_TEST_READBACK_H
#define MG_TEST_READBACK_H

#include <stddef.h>

#include "report.h"

/* r as report_write writes it, in memory (malloc'd; its length in *len). */
char *readback_mem(const report *r, size_t *len);
/* What adapter writes for r (adapters_render to a file in a temporary
 * directory, read back and removed): a static buffer of at most 1 MiB,
 * overwritten by the next call. */
char *readback_render(const report *r, const char *adapter);

#endif

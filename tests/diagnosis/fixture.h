/*
 * fixture.h - reports built in code for the diagnosis tests: two shards with
 * recycles, kills, a crash, breakdowns and hostile names, and a large one.
 */
#ifndef MG_DIAG_FIXTURE_H
#define MG_DIAG_FIXTURE_H

#include "report.h"

/* A name no page may show raw: markup, quotes, ampersand, invalid UTF-8. */
#define DIAG_HOSTILE "<script>alert(\"x\")</script> 'q' & \xff\xfe<b>"

/* Two shards: shard 0 recycles once and is killed once (memory-limit test);
 * shard 1 recycles once and crashes once. Breakdowns at every recycle and
 * kill; limits va=3.50GiB (soft) and va=3.75GiB (hard). */
report *diag_fixture_report(void);

/* A run of ntests tests over nshards lanes, a recycle every 400 tests, a
 * full timeline (4096 points per lane) and 200 suspects. */
report *diag_fixture_large(size_t ntests, size_t nshards);

#endif

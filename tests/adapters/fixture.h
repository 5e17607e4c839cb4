/*
 * fixture.h - reports built in code for the adapter tests.
 */
#ifndef MG_TEST_FIXTURE_H
#define MG_TEST_FIXTURE_H

#include "report.h"

/* Bytes every output must survive: quotes, backslash, newlines, control
 * bytes, XML and CI escape characters, invalid UTF-8 (a lone 0xff, a
 * truncated sequence, an encoded surrogate) and valid UTF-8. */
#define HOSTILE                                                                                    \
	"we\"ird\\ na\nme\r\t\x01\x1f\x7f <&>'%:,];| \xff\xfe\xc3(\xed\xa0\x80 ok \xc3\xa9 "       \
	"\xf0\x9f\x98\x80"

/* A report with every field set, hostile strings included; finished. */
report *fixture_full_report(void);
/* "full", or "hostile" (full plus 10 MB of output and more recycles and
 * memory-limit tests than adapters list); NULL for another name. */
report *fixture_by_name(const char *name);

/* A site of test `test` of s (appended to its sites), and a frame of it
 * with every field set (module, build-id and offset made up). */
report_site *fixture_add_site(report_shard *s, size_t test, const char *kind, uint64_t count,
                              uint64_t bytes);
void fixture_add_frame(report_site *site, const char *function, const char *file, uint32_t line);
/* A report of one shard (suite "items", arch) of ntests tests named
 * Cache/0.., test `grown` with va_delta grew; not finished. */
report *fixture_cache_report(const char *arch, int ntests, int grown, int64_t va_delta);
/* A recycle of s (reason may be NULL) with its breakdown ("recycle"). */
void fixture_add_recycle(report_shard *s, const char *reason);

#endif

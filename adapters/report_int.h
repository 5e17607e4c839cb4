/*
 * report_int.h - what the report model's own files (report*.c) share and
 * nobody else may include: allocation, the model's internal copies and
 * totals (report.c), the writer's checked set (report_write.c) and the
 * field-by-field readers the streaming parser calls (report_read.c).
 * Adapters and ci use report.h only.
 */
#ifndef MG_REPORT_INT_H
#define MG_REPORT_INT_H

#include "report.h"

#include <jansson.h>
#include <stddef.h>

/* report.c */
extern const char *const report_state_names[TEST_STATE_COUNT];
/* realloc that aborts on out of memory (n 0 allocates 1 byte) */
/* a zeroed array of n elements with room to append (see array_append in report.c) */
void *report_array_alloc(size_t n, size_t elem);
/* d becomes a deep copy of s */
void report_shard_copy(report_shard *d, const report_shard *s);
/* frees the shard's sites table (its tests stay) */
void report_shard_drop_sites(report_shard *s);
/* r->totals from its shards */
void report_totals_compute(report *r);

/* report_write.c: json_object_set_new that aborts on out of memory */
void report_write_set(json_t *o, const char *key, json_t *v);

/* report_read.c */
/* snprintf for field paths: truncating a long path is fine */
void report_read_pathf(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int report_read_schema_version(json_t *o);
int report_read_from_json(report *r, json_t *o, int with_shards, mg_err *err);
int report_read_shard(report_shard *s, json_t *o, int version, int with_tests, const char *p,
                      mg_err *err);
int report_read_test(report_shard *s, size_t i, json_t *o, int version, const char *p, mg_err *err);

#endif

/*
 * report_read.c - the report's JSON form, in, field by field: each lookup
 * names the bad field ("shards[2].tests[5].state: ..."), both schemas
 * (memguard-report/1 and /2). Used whole by report_from_json and per object
 * by the streaming parser (report_parse.c). Never trusts the input.
 */
#include "report_int.h"

#include "atomic.h"
#include "mg_exit.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- from JSON ------------------------------------------------------------- */

/* Field lookups that name the bad field: "shards[2].tests[5].state: ...". */
enum { OPT = 1, NULLABLE = 2 };

static json_t *field(json_t *o, const char *path, const char *key, int flags, mg_err *err, int *rc)
{
	json_t *v = json_object_get(o, key);
	if (!v && !(flags & OPT))
		*rc = mg_err_set(err, MG_EINVAL, "%s%s%s: missing", path, *path ? "." : "", key);
	return v;
}

static int bad_type(mg_err *err, const char *path, const char *key, const char *want)
{
	return mg_err_set(err, MG_EINVAL, "%s%s%s: expected %s", path, *path ? "." : "", key, want);
}

static int get_str(json_t *o, const char *path, const char *key, int flags, char **out, mg_err *err)
{
	int rc = 0;
	json_t *v = field(o, path, key, flags, err, &rc);
	if (rc)
		return rc;
	if (!v || (json_is_null(v) && (flags & NULLABLE))) {
		*out = NULL;
		return 0;
	}
	if (!json_is_string(v))
		return bad_type(err, path, key,
		                (flags & NULLABLE) ? "a string or null" : "a string");
	/* the reader takes \u0000 (a test's output may hold NUL): any other
	 * string must not */
	if (memchr(json_string_value(v), '\0', json_string_length(v)))
		return mg_err_set(err, MG_EINVAL, "%s%s%s: holds a NUL byte (\\u0000)", path,
		                  *path ? "." : "", key);
	*out = report_strndup(json_string_value(v), json_string_length(v));
	return 0;
}

/* A string that may hold NUL (a test's output), or NULL when absent or null. */
static int get_bytes(json_t *o, const char *path, const char *key, report_bytes **out, mg_err *err)
{
	int rc = 0;
	json_t *v = field(o, path, key, OPT | NULLABLE, err, &rc);
	if (rc)
		return rc;
	if (!v || json_is_null(v)) {
		*out = NULL;
		return 0;
	}
	if (!json_is_string(v))
		return bad_type(err, path, key, "a string or null");
	*out = report_bytes_new(json_string_value(v), json_string_length(v));
	return 0;
}

static int get_int(json_t *o, const char *path, const char *key, int64_t min, int64_t max,
                   int64_t *out, mg_err *err)
{
	int rc = 0;
	json_t *v = field(o, path, key, 0, err, &rc);
	if (rc)
		return rc;
	if (!json_is_integer(v))
		return bad_type(err, path, key, "an integer");
	json_int_t i = json_integer_value(v);
	if (i < min || i > max)
		return mg_err_set(err, MG_EINVAL, "%s%s%s: %lld out of range", path,
		                  *path ? "." : "", key, (long long)i);
	*out = i;
	return 0;
}

static int get_u64(json_t *o, const char *path, const char *key, uint64_t *out, mg_err *err)
{
	int64_t v = 0;
	int rc = get_int(o, path, key, 0, INT64_MAX, &v, err);
	*out = (uint64_t)v;
	return rc;
}

static int get_u32(json_t *o, const char *path, const char *key, uint32_t *out, mg_err *err)
{
	int64_t v = 0;
	int rc = get_int(o, path, key, 0, UINT32_MAX, &v, err);
	*out = (uint32_t)v;
	return rc;
}

static int get_real(json_t *o, const char *path, const char *key, double *out, mg_err *err)
{
	int rc = 0;
	json_t *v = field(o, path, key, 0, err, &rc);
	if (rc)
		return rc;
	if (!json_is_number(v))
		return bad_type(err, path, key, "a number");
	*out = json_number_value(v);
	return 0;
}

static int get_bool(json_t *o, const char *path, const char *key, int *out, mg_err *err)
{
	int rc = 0;
	json_t *v = field(o, path, key, 0, err, &rc);
	if (rc)
		return rc;
	if (!json_is_boolean(v))
		return bad_type(err, path, key, "a boolean");
	*out = json_is_true(v);
	return 0;
}

static int get_obj(json_t *o, const char *path, const char *key, json_t **out, mg_err *err)
{
	int rc = 0;
	json_t *v = field(o, path, key, 0, err, &rc);
	if (rc)
		return rc;
	if (!json_is_object(v))
		return bad_type(err, path, key, "an object");
	*out = v;
	return 0;
}

static int get_arr(json_t *o, const char *path, const char *key, json_t **out, mg_err *err)
{
	int rc = 0;
	json_t *v = field(o, path, key, 0, err, &rc);
	if (rc)
		return rc;
	if (!json_is_array(v))
		return bad_type(err, path, key, "an array");
	*out = v;
	return 0;
}

static int limits_from_json(json_t *o, const char *path, report_limits *l, mg_err *err)
{
	int rc;
	if ((rc = get_u64(o, path, "va", &l->va, err)) < 0 ||
	    (rc = get_u64(o, path, "rss", &l->rss, err)) < 0 ||
	    (rc = get_u64(o, path, "cgroup", &l->cgroup, err)) < 0 ||
	    (rc = get_u64(o, path, "gap", &l->gap, err)) < 0)
		return rc;
	return 0;
}

/* snprintf for field paths: truncating a long path is fine. */
void report_read_pathf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

/* path of element i of array key under path, and checks it is an object */
static int elem(json_t *arr, size_t i, const char *path, const char *key, char *sub, size_t subsize,
                json_t **out, mg_err *err)
{
	report_read_pathf(sub, subsize, "%s%s%s[%zu]", path, *path ? "." : "", key, i);
	*out = json_array_get(arr, i);
	if (!json_is_object(*out))
		return mg_err_set(err, MG_EINVAL, "%s: expected an object", sub);
	return 0;
}

#define TRY(x)                                                                                     \
	do {                                                                                       \
		if ((rc = (x)) != 0)                                                               \
			return rc;                                                                 \
	} while (0)

static int breakdown_from_json(report_breakdown *b, json_t *o, const char *p, mg_err *err)
{
	int rc;
	json_t *arr, *e;
	char sub[256];
	TRY(get_str(o, p, "when", 0, &b->when, err));
	TRY(get_u64(o, p, "va", &b->va, err));
	TRY(get_u64(o, p, "largest_gap", &b->largest_gap, err));
	TRY(get_arr(o, p, "categories", &arr, err));
	b->categories = report_array_alloc(json_array_size(arr), sizeof(report_category));
	for (size_t i = 0; i < json_array_size(arr); i++) {
		report_category *c = &b->categories[b->ncategories++];
		TRY(elem(arr, i, p, "categories", sub, sizeof(sub), &e, err));
		TRY(get_str(e, sub, "name", 0, &c->name, err));
		TRY(get_u64(e, sub, "va", &c->va, err));
		TRY(get_u64(e, sub, "rss", &c->rss, err));
	}
	TRY(get_arr(o, p, "groups", &arr, err));
	b->groups = report_array_alloc(json_array_size(arr), sizeof(report_group));
	for (size_t i = 0; i < json_array_size(arr); i++) {
		report_group *g = &b->groups[b->ngroups++];
		TRY(elem(arr, i, p, "groups", sub, sizeof(sub), &e, err));
		TRY(get_str(e, sub, "name", 0, &g->name, err));
		TRY(get_u64(e, sub, "count", &g->count, err));
		TRY(get_u64(e, sub, "size", &g->size, err));
		TRY(get_u64(e, sub, "total", &g->total, err));
	}
	return 0;
}

static int generation_from_json(report_generation *g, json_t *o, const char *p, mg_err *err)
{
	int rc;
	int64_t pid;
	json_t *arr, *e;
	char sub[256];
	TRY(get_u32(o, p, "index", &g->index, err));
	TRY(get_int(o, p, "pid", INT32_MIN, INT32_MAX, &pid, err));
	g->pid = (long)pid;
	TRY(get_u32(o, p, "tests_run", &g->tests_run, err));
	TRY(get_u64(o, p, "peak_va", &g->peak_va, err));
	TRY(get_u64(o, p, "peak_rss", &g->peak_rss, err));
	char *end = NULL;
	TRY(get_str(o, p, "end", 0, &end, err));
	int how = report_end_parse(end);
	if (how < 0) {
		rc = mg_err_set(err, MG_EINVAL, "%s.end: unknown end '%.64s'", p, end);
		free(end);
		return rc;
	}
	free(end);
	g->end = (report_end)how;
	TRY(get_str(o, p, "reason", OPT | NULLABLE, &g->reason, err));
	TRY(get_str(o, p, "warning", OPT | NULLABLE, &g->warning, err));
	TRY(get_str(o, p, "last_output", OPT | NULLABLE, &g->last_output, err));
	TRY(get_real(o, p, "start", &g->start, err));
	TRY(get_real(o, p, "wall", &g->wall, err));
	TRY(get_arr(o, p, "breakdowns", &arr, err));
	g->breakdowns = report_array_alloc(json_array_size(arr), sizeof(report_breakdown));
	for (size_t i = 0; i < json_array_size(arr); i++) {
		TRY(elem(arr, i, p, "breakdowns", sub, sizeof(sub), &e, err));
		TRY(breakdown_from_json(&g->breakdowns[g->nbreakdowns++], e, sub, err));
	}
	return 0;
}

/* An optional field: absent means the default (test_to_json). */
#define IF_SET(o, key, x)                                                                          \
	do {                                                                                       \
		if (json_object_get(o, key))                                                       \
			TRY(x);                                                                    \
	} while (0)

/* The frames at key of o (an array of objects whose fields are each
 * optional, absent: unknown), appended to site's frames, or ("by") to its by. */
static int frames_from_json(json_t *o, const char *p, const char *key, report_site *site,
                            mg_err *err)
{
	int rc;
	json_t *frames, *fe;
	char fsub[320];
	TRY(get_arr(o, p, key, &frames, err));
	for (size_t f = 0; f < json_array_size(frames); f++) {
		report_frame *x =
		    *key == 'b' ? report_site_add_by(site) : report_site_add_frame(site);
		TRY(elem(frames, f, p, key, fsub, sizeof(fsub), &fe, err));
		TRY(get_str(fe, fsub, "function", OPT, &x->function, err));
		TRY(get_str(fe, fsub, "file", OPT, &x->file, err));
		IF_SET(fe, "line", get_u32(fe, fsub, "line", &x->line, err));
		TRY(get_str(fe, fsub, "module", OPT, &x->module, err));
		TRY(get_str(fe, fsub, "build_id", OPT, &x->build_id, err));
		IF_SET(fe, "offset", get_u64(fe, fsub, "offset", &x->offset, err));
	}
	return 0;
}

/* A test's allocation sites ("sites", both schemas; absent or []: none):
 * each site's kind, bytes and count are required, its frames an array of
 * objects whose fields are each optional (absent: unknown), its pins an
 * optional array of strings. */
static int sites_from_json(report_shard *sh, size_t i, json_t *o, const char *p, mg_err *err)
{
	int rc;
	json_t *arr, *e, *pins;
	char sub[256];
	if (!json_object_get(o, "sites"))
		return 0;
	TRY(get_arr(o, p, "sites", &arr, err));
	if (json_array_size(arr) == 0)
		return 0;
	report_test_sites *ts = report_shard_add_test_sites(sh, i);
	for (size_t k = 0; k < json_array_size(arr); k++) {
		report_site *site = report_test_sites_add(ts);
		TRY(elem(arr, k, p, "sites", sub, sizeof(sub), &e, err));
		TRY(get_str(e, sub, "kind", 0, &site->kind, err));
		TRY(get_u64(e, sub, "bytes", &site->bytes, err));
		TRY(get_u64(e, sub, "count", &site->count, err));
		TRY(frames_from_json(e, sub, "frames", site, err));
		IF_SET(e, "items", get_u64(e, sub, "items", &site->items, err));
		TRY(get_str(e, sub, "in", OPT, &site->in, err));
		if (json_object_get(e, "by"))
			TRY(frames_from_json(e, sub, "by", site, err));
		if (!json_object_get(e, "pins"))
			continue;
		TRY(get_arr(e, sub, "pins", &pins, err));
		for (size_t q = 0; q < json_array_size(pins); q++) {
			json_t *v = json_array_get(pins, q);
			if (!json_is_string(v))
				return mg_err_set(err, MG_EINVAL, "%s.pins[%zu]: expected a string",
				                  sub, q);
			if (memchr(json_string_value(v), '\0', json_string_length(v)))
				return mg_err_set(err, MG_EINVAL,
				                  "%s.pins[%zu]: holds a NUL byte (\\u0000)", sub,
				                  q);
			report_site_add_pin(site, json_string_value(v));
		}
	}
	return 0;
}

/* A test of memguard-report/1: long keys, every figure present. */
/* What a test's JSON holds beyond its strings, read at full width and then
 * stored (test_store): a report whose attempts or generation do not fit a
 * report_test is refused, naming the field, rather than cut. */
typedef struct test_wide {
	uint32_t generation, attempts;
	int near_ceiling;
	double duration;
	uint64_t va_peak;
} test_wide;

static int test_store(report_shard *s, size_t i, const test_wide *w, const char *p,
                      const char *gkey, const char *akey, mg_err *err)
{
	report_test *t = &s->tests[i];
	if (w->generation > REPORT_MAX_GENERATION)
		return mg_err_set(err, MG_EINVAL, "%s.%s: %lu out of range (at most %u)", p, gkey,
		                  (unsigned long)w->generation, REPORT_MAX_GENERATION);
	if (w->attempts > REPORT_MAX_ATTEMPTS)
		return mg_err_set(err, MG_EINVAL, "%s.%s: %lu out of range (at most %u)", p, akey,
		                  (unsigned long)w->attempts, REPORT_MAX_ATTEMPTS);
	t->generation = w->generation;
	t->attempts = w->attempts;
	t->near_ceiling = w->near_ceiling != 0;
	t->duration = (float)w->duration;
	report_shard_set_test_peak(s, i, w->va_peak);
	return 0;
}

static int test_from_json_v1(report_shard *sh, size_t i, json_t *o, const char *p, mg_err *err)
{
	int rc;
	report_test *t = &sh->tests[i];
	test_wide w = {0};
	char *state = NULL;
	TRY(get_str(o, p, "name", 0, &t->name, err));
	TRY(get_str(o, p, "state", 0, &state, err));
	int s = report_state_parse(state);
	if (s < 0) {
		rc = mg_err_set(err, MG_EINVAL, "%s.state: unknown state '%.64s'", p, state);
		free(state);
		return rc;
	}
	free(state);
	t->state = (unsigned)s;
	TRY(get_str(o, p, "message", OPT | NULLABLE, &t->message, err));
	TRY(get_bytes(o, p, "output", &t->output, err));
	TRY(get_u32(o, p, "generation", &w.generation, err));
	TRY(get_u32(o, p, "attempts", &w.attempts, err));
	TRY(get_real(o, p, "duration", &w.duration, err));
	TRY(get_u64(o, p, "va_after", &t->va_after, err));
	TRY(get_u64(o, p, "rss_after", &t->rss_after, err));
	TRY(get_int(o, p, "va_delta", INT64_MIN, INT64_MAX, &t->va_delta, err));
	TRY(get_int(o, p, "rss_delta", INT64_MIN, INT64_MAX, &t->rss_delta, err));
	if (json_object_get(o, "va_peak"))
		TRY(get_u64(o, p, "va_peak", &w.va_peak, err));
	if (json_object_get(o, "near_ceiling"))
		TRY(get_bool(o, p, "near_ceiling", &w.near_ceiling, err));
	TRY(test_store(sh, i, &w, p, "generation", "attempts", err));
	return sites_from_json(sh, i, o, p, err);
}

/* A test of memguard-report/2 (test_to_json): short keys, defaults left out. */
static int test_from_json_v2(report_shard *sh, size_t i, json_t *o, const char *p, mg_err *err)
{
	int rc;
	report_test *t = &sh->tests[i];
	test_wide w = {.attempts = 1};
	char *state = NULL;
	TRY(get_str(o, p, "n", 0, &t->name, err));
	TRY(get_str(o, p, "s", OPT, &state, err));
	int s = state ? report_state_parse(state) : TEST_PASS;
	if (s < 0) {
		rc = mg_err_set(err, MG_EINVAL, "%s.s: unknown state '%.64s'", p, state);
		free(state);
		return rc;
	}
	free(state);
	t->state = (unsigned)s;
	TRY(get_str(o, p, "m", OPT | NULLABLE, &t->message, err));
	TRY(get_bytes(o, p, "o", &t->output, err));
	IF_SET(o, "g", get_u32(o, p, "g", &w.generation, err));
	IF_SET(o, "a", get_u32(o, p, "a", &w.attempts, err));
	IF_SET(o, "d", get_real(o, p, "d", &w.duration, err));
	IF_SET(o, "va", get_u64(o, p, "va", &t->va_after, err));
	IF_SET(o, "rss", get_u64(o, p, "rss", &t->rss_after, err));
	IF_SET(o, "dva", get_int(o, p, "dva", INT64_MIN, INT64_MAX, &t->va_delta, err));
	IF_SET(o, "drss", get_int(o, p, "drss", INT64_MIN, INT64_MAX, &t->rss_delta, err));
	IF_SET(o, "pk", get_u64(o, p, "pk", &w.va_peak, err));
	IF_SET(o, "nc", get_bool(o, p, "nc", &w.near_ceiling, err));
	TRY(test_store(sh, i, &w, p, "g", "a", err));
	return sites_from_json(sh, i, o, p, err);
}

/* Test i of shard s (already appended) from o. version: 1 or 2 (the
 * schema); 0 when the schema was not read yet (a document with its shards
 * before it): then by the keys the test has. */
int report_read_test(report_shard *s, size_t i, json_t *o, int version, const char *p, mg_err *err)
{
	if (version == 0)
		version = json_object_get(o, "name") ? 1 : 2;
	return version == 1 ? test_from_json_v1(s, i, o, p, err)
	                    : test_from_json_v2(s, i, o, p, err);
}

static int point_from_json(report_point *pt, json_t *a, const char *p, mg_err *err)
{
	if (!json_is_array(a) || json_array_size(a) != 4)
		return mg_err_set(err, MG_EINVAL, "%s: expected [t, va, rss, generation]", p);
	json_t *t = json_array_get(a, 0), *va = json_array_get(a, 1), *rss = json_array_get(a, 2),
	       *gen = json_array_get(a, 3);
	if (!json_is_number(t) || !json_is_integer(va) || json_integer_value(va) < 0 ||
	    !json_is_integer(rss) || json_integer_value(rss) < 0 || !json_is_integer(gen) ||
	    json_integer_value(gen) < 0 || json_integer_value(gen) > UINT32_MAX)
		return mg_err_set(err, MG_EINVAL,
		                  "%s: expected [t, va, rss, generation] of numbers >= 0", p);
	pt->t = json_number_value(t);
	pt->va = (uint64_t)json_integer_value(va);
	pt->rss = (uint64_t)json_integer_value(rss);
	pt->generation = (uint32_t)json_integer_value(gen);
	return 0;
}

/* version as test_from_json; with_tests 0: the tests were read in pieces
 * (report_parse) and o holds no "tests". */
int report_read_shard(report_shard *s, json_t *o, int version, int with_tests, const char *p,
                      mg_err *err)
{
	int rc;
	json_t *counts, *arr, *e;
	char sub[256];
	TRY(get_u32(o, p, "node", &s->node, err));
	if (json_object_get(o, "start_time")) /* absent in reports before it existed */
		TRY(get_real(o, p, "start_time", &s->start_time, err));
	TRY(get_u32(o, p, "index", &s->index, err));
	TRY(get_str(o, p, "suite", 0, &s->suite, err));
	TRY(get_str(o, p, "arch", 0, &s->arch, err));
	TRY(get_str(o, p, "driver", 0, &s->driver, err));
	TRY(get_str(o, p, "command", 0, &s->command, err));
	if (json_object_get(o, "approximate")) { /* only when the figures are */
		TRY(get_str(o, p, "approximate", 0, &s->approximate, err));
		if (!*s->approximate)
			return mg_err_set(err, MG_EINVAL,
			                  "%s.approximate: empty (say why or leave it out)", p);
	}
	TRY(get_obj(o, p, "counts", &counts, err));
	report_read_pathf(sub, sizeof(sub), "%s.counts", p);
	const char *key;
	json_t *v;
	json_object_foreach(counts, key, v)
	{
		if (report_state_parse(key) < 0)
			return mg_err_set(err, MG_EINVAL, "%s: unknown state '%.64s'", sub, key);
	}
	for (int i = 0; i < TEST_STATE_COUNT; i++)
		if (json_object_get(counts, report_state_names[i]))
			TRY(get_u64(counts, sub, report_state_names[i], &s->counts[i], err));
	TRY(get_u64(o, p, "peak_va", &s->peak_va, err));
	TRY(get_u64(o, p, "peak_rss", &s->peak_rss, err));
	if (json_object_get(o, "rss_soft") || json_object_get(o, "rss_hard")) {
		TRY(get_u64(o, p, "rss_soft", &s->rss_soft, err));
		TRY(get_u64(o, p, "rss_hard", &s->rss_hard, err));
	}
	TRY(get_u32(o, p, "recycles", &s->recycles, err));
	TRY(get_u32(o, p, "kills", &s->kills, err));
	TRY(get_real(o, p, "wall", &s->wall, err));
	TRY(get_real(o, p, "user", &s->user, err));
	TRY(get_real(o, p, "sys", &s->sys, err));
	TRY(get_arr(o, p, "generations", &arr, err));
	s->gens = report_array_alloc(json_array_size(arr), sizeof(report_generation));
	for (size_t i = 0; i < json_array_size(arr); i++) {
		TRY(elem(arr, i, p, "generations", sub, sizeof(sub), &e, err));
		TRY(generation_from_json(&s->gens[s->ngens++], e, sub, err));
	}
	if (with_tests) {
		TRY(get_arr(o, p, "tests", &arr, err));
		report_shard_tests_alloc(s, json_array_size(arr));
		for (size_t i = 0; i < json_array_size(arr); i++) {
			TRY(elem(arr, i, p, "tests", sub, sizeof(sub), &e, err));
			s->ntests++;
			TRY(report_read_test(s, s->ntests - 1, e, version, sub, err));
		}
	}
	TRY(get_arr(o, p, "timeline", &arr, err));
	s->timeline = report_array_alloc(json_array_size(arr), sizeof(report_point));
	for (size_t i = 0; i < json_array_size(arr); i++) {
		report_read_pathf(sub, sizeof(sub), "%s.timeline[%zu]", p, i);
		TRY(point_from_json(&s->timeline[s->ntimeline++], json_array_get(arr, i), sub,
		                    err));
	}
	return 0;
}

/* 1 or 2 for the schemas this reader knows, 0 for any other. */
int report_read_schema_version(json_t *o)
{
	const char *s = json_string_value(json_object_get(o, "schema"));
	return !s                                 ? 0
	       : strcmp(s, REPORT_SCHEMA_V1) == 0 ? 1
	       : strcmp(s, REPORT_SCHEMA) == 0    ? 2
	                                          : 0;
}

/* with_shards 0: the shards were read in pieces into r (report_parse) and o
 * holds no "shards". */
int report_read_from_json(report *r, json_t *o, int with_shards, mg_err *err)
{
	int rc;
	json_t *commit, *node, *limits, *arr, *e;
	char *schema = NULL;
	char sub[256];
	int64_t exit_code;
	if (!json_is_object(o))
		return mg_err_set(err, MG_EINVAL, "report: expected a JSON object");
	TRY(get_str(o, "", "schema", 0, &schema, err));
	int version = report_read_schema_version(o);
	if (version == 0) {
		rc = mg_err_set(err, MG_EINVAL, "schema: '%.64s' is not '%s' (nor '%s')", schema,
		                REPORT_SCHEMA, REPORT_SCHEMA_V1);
		free(schema);
		return rc;
	}
	free(schema);
	free(r->tool_version);
	r->tool_version = NULL;
	TRY(get_str(o, "", "tool_version", 0, &r->tool_version, err));
	TRY(get_obj(o, "", "commit", &commit, err));
	if (json_object_get(commit, "sha")) {
		TRY(get_str(commit, "commit", "sha", 0, &r->sha, err));
		TRY(get_str(commit, "commit", "branch", OPT | NULLABLE, &r->branch, err));
		TRY(get_bool(commit, "commit", "dirty", &r->dirty, err));
	} else {
		TRY(get_str(commit, "commit", "note", NULLABLE, &r->repo_note, err));
	}
	TRY(get_obj(o, "", "node", &node, err));
	TRY(get_u32(node, "node", "index", &r->node_index, err));
	TRY(get_u32(node, "node", "total", &r->node_total, err));
	if (json_object_get(o, "nodes_present")) {
		json_t *present, *v;
		size_t i;
		TRY(get_arr(o, "", "nodes_present", &present, err));
		r->nodes_present = calloc(json_array_size(present) + 1, sizeof(uint32_t));
		if (!r->nodes_present)
			abort();
		json_array_foreach(present, i, v)
		{
			json_int_t n = json_integer_value(v);
			if (!json_is_integer(v) || n < 0 || n > UINT32_MAX)
				return bad_type(err, "", "nodes_present",
				                "an array of node numbers");
			r->nodes_present[r->nnodes_present++] = (uint32_t)n;
		}
	}
	TRY(get_obj(o, "", "limits", &limits, err));
	TRY(get_str(limits, "limits", "soft", NULLABLE, &r->limits_soft, err));
	TRY(get_str(limits, "limits", "hard", NULLABLE, &r->limits_hard, err));
	json_t *lb;
	if (json_object_get(limits, "soft_bytes") || json_object_get(limits, "hard_bytes")) {
		TRY(get_obj(limits, "limits", "soft_bytes", &lb, err));
		TRY(limits_from_json(lb, "limits.soft_bytes", &r->soft, err));
		TRY(get_obj(limits, "limits", "hard_bytes", &lb, err));
		TRY(limits_from_json(lb, "limits.hard_bytes", &r->hard, err));
		r->has_limit_bytes = 1;
	}
	TRY(get_real(o, "", "start_time", &r->start_time, err));
	TRY(get_real(o, "", "wall", &r->wall, err));
	if (json_object_get(o, "expected_wall"))
		TRY(get_real(o, "", "expected_wall", &r->expected_wall, err));
	TRY(get_bool(o, "", "interrupted", &r->interrupted, err));
	TRY(get_int(o, "", "exit_code", INT32_MIN, INT32_MAX, &exit_code, err));
	r->exit_code = (int)exit_code;
	if (json_object_get(o, "containment"))
		TRY(get_str(o, "", "containment", 0, &r->containment, err));
	if (json_object_get(o, "seed"))
		TRY(get_str(o, "", "seed", 0, &r->seed, err));
	if (with_shards) {
		TRY(get_arr(o, "", "shards", &arr, err));
		r->shards = report_array_alloc(json_array_size(arr), sizeof(report_shard));
		for (size_t i = 0; i < json_array_size(arr); i++) {
			TRY(elem(arr, i, "", "shards", sub, sizeof(sub), &e, err));
			TRY(report_read_shard(&r->shards[r->nshards++], e, version, 1, sub, err));
		}
	}
	TRY(get_arr(o, "", "suspects", &arr, err));
	r->suspects = report_array_alloc(json_array_size(arr), sizeof(report_suspect));
	for (size_t i = 0; i < json_array_size(arr); i++) {
		report_suspect *s = &r->suspects[r->nsuspects++];
		TRY(elem(arr, i, "", "suspects", sub, sizeof(sub), &e, err));
		TRY(get_str(e, sub, "name", 0, &s->name, err));
		TRY(get_int(e, sub, "va_retained", INT64_MIN, INT64_MAX, &s->va_retained, err));
		TRY(get_int(e, sub, "rss_retained", INT64_MIN, INT64_MAX, &s->rss_retained, err));
		TRY(get_u32(e, sub, "grew", &s->grew, err));
		TRY(get_u32(e, sub, "runs", &s->runs, err));
		TRY(get_bool(e, sub, "alone_over_hard", &s->alone_over_hard, err));
	}
	json_t *ho;
	if (json_object_get(o, "history")) {
		report_history *h = &r->history;
		TRY(get_obj(o, "", "history", &ho, err));
		TRY(get_str(ho, "history", "source", 0, &h->source, err));
		TRY(get_u32(ho, "history", "known", &h->known, err));
		TRY(get_u32(ho, "history", "avoided", &h->avoided, err));
		TRY(get_arr(ho, "history", "alone", &arr, err));
		h->alone = report_array_alloc(json_array_size(arr), sizeof(char *));
		for (size_t i = 0; i < json_array_size(arr); i++) {
			if (!json_is_string(json_array_get(arr, i)))
				return mg_err_set(err, MG_EINVAL,
				                  "history.alone[%zu]: not a string", i);
			h->alone[h->nalone++] =
			    report_strdup(json_string_value(json_array_get(arr, i)));
		}
		TRY(get_arr(ho, "history", "grew", &arr, err));
		h->grew = report_array_alloc(json_array_size(arr), sizeof(report_history_test));
		for (size_t i = 0; i < json_array_size(arr); i++) {
			report_history_test *g = &h->grew[h->ngrew++];
			TRY(elem(arr, i, "history", "grew", sub, sizeof(sub), &e, err));
			TRY(get_str(e, sub, "name", 0, &g->name, err));
			TRY(get_u64(e, sub, "then", &g->then, err));
			TRY(get_u64(e, sub, "now", &g->now, err));
		}
	}
	return 0;
}

int report_from_json(report **out, void *json, mg_err *err)
{
	*out = NULL;
	report *r = report_new();
	if (!r)
		return mg_err_set(err, MG_ERROR, "out of memory");
	int rc = report_read_from_json(r, json, 1, err);
	if (rc) {
		report_free(r);
		return rc;
	}
	report_totals_compute(r);
	*out = r;
	return 0;
}

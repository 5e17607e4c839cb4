/*
 * report_parse.c - reading a report document in pieces (one test at a time,
 * never a tree of the whole) and the files: report_save, report_load.
 */
#include "report_int.h"

#include "atomic.h"
#include "mg_bulk.h"
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

/* ---- reading in pieces ---------------------------------------------------- */

/*
 * report_parse reads a document without a tree of it: the objects of the
 * report and of each shard are read key by key, each value with Jansson
 * (json_loadb with JSON_DISABLE_EOF_CHECK; error.position says where it
 * stopped), except the shards and the tests arrays, which are read one
 * element at a time: a test becomes a report_test and its Jansson object is
 * freed before the next is read. Peak memory is the model plus the input.
 */
typedef struct pieces {
	const char *data;
	size_t len, pos;
	size_t released; /* with mapped: bytes before this are given back */
	int mapped;      /* data is a private file mapping (report_load) */
	int version;     /* the schema once read; 0 before */
	report *r;
	mg_err *err;
	int json_error;                  /* the error is in the JSON, not in the model */
	report_keep_tests_fn keep_tests; /* NULL: every shard's tests are kept */
	void *keep_ctx;
	report_test_fn each; /* with keep_tests: given each test not kept */
	void *each_ctx;
} pieces;

static void pieces_ws(pieces *pc)
{
	while (pc->pos < pc->len && (pc->data[pc->pos] == ' ' || pc->data[pc->pos] == '\t' ||
	                             pc->data[pc->pos] == '\n' || pc->data[pc->pos] == '\r'))
		pc->pos++;
}

/* "not valid JSON" at byte offset at, as line:column (1-based) like Jansson. */
static int pieces_syntax(pieces *pc, size_t at, const char *text)
{
	/* memchr: a fuzzed input is mostly errors, each counted from the start */
	int line = 1;
	size_t col0 = 0, upto = at < pc->len ? at : pc->len;
	const char *nl;
	while (col0 < upto && (nl = memchr(pc->data + col0, '\n', upto - col0)) != NULL) {
		line++;
		col0 = (size_t)(nl - pc->data) + 1;
	}
	pc->json_error = 1;
	return mg_err_set(pc->err, MG_EINVAL, "%d:%d: not valid JSON: %s", line,
	                  (int)(at - col0 + 1), text);
}

/* A file mapping's pages already read are dropped every 1 MiB (at most 2 MiB
 * of it resident), so a large
 * report is never resident twice (the model and its text). */
static void pieces_release(pieces *pc)
{
	const size_t step = (size_t)1 << 20;
	if (!pc->mapped || pc->pos - pc->released < 2 * step)
		return;
	size_t upto = (pc->pos - step) & ~(step - 1);
	if (upto > pc->released) {
		madvise((char *)pc->data + pc->released, upto - pc->released, MADV_DONTNEED);
		pc->released = upto;
	}
}

/*
 * The scalars a report is mostly made of, read without Jansson (a json_loadb
 * per value cost more than the value): a string of printable ASCII without
 * escapes, an integer of at most 18 digits (no leading zero, no fraction or
 * exponent after it), true, false, null. Exactly the value Jansson would
 * give and the bytes it would take; NULL, pos unmoved, for anything else,
 * which Jansson then reads (and judges).
 */
static json_t *pieces_plain_scalar(pieces *pc)
{
	const char *d = pc->data + pc->pos, *end = pc->data + pc->len;
	size_t n = 0;
	if (d >= end)
		return NULL;
	if (*d == '"') {
		while (d + 1 + n < end && d[1 + n] >= 0x20 && d[1 + n] < 0x7f && d[1 + n] != '"' &&
		       d[1 + n] != '\\')
			n++;
		if (d + 1 + n >= end || d[1 + n] != '"')
			return NULL;
		pc->pos += n + 2;
		return json_stringn_nocheck(d + 1, n);
	}
	if (*d == '-' || (*d >= '0' && *d <= '9')) {
		size_t sign = *d == '-';
		while (d + sign + n < end && d[sign + n] >= '0' && d[sign + n] <= '9')
			n++;
		const char *after = d + sign + n;
		if (n == 0 || n > 18 || (n > 1 && d[sign] == '0') ||
		    (after < end && (*after == '.' || *after == 'e' || *after == 'E')))
			return NULL;
		json_int_t v = 0;
		for (size_t i = 0; i < n; i++)
			v = v * 10 + (d[sign + i] - '0');
		pc->pos += sign + n;
		return json_integer(sign ? -v : v);
	}
	static const char *const words[] = {"true", "false", "null"};
	for (int w = 0; w < 3; w++) {
		size_t len = strlen(words[w]);
		if ((size_t)(end - d) >= len && !memcmp(d, words[w], len) &&
		    !(d + len < end &&
		      ((d[len] >= 'a' && d[len] <= 'z') || (d[len] >= 'A' && d[len] <= 'Z')))) {
			pc->pos += len;
			return w == 0 ? json_true() : w == 1 ? json_false() : json_null();
		}
	}
	return NULL;
}

/* The value at pos (any JSON value), read with Jansson; NULL with the error set. */
static json_t *pieces_value(pieces *pc)
{
	json_error_t jerr;
	pieces_ws(pc);
	json_t *plain = pieces_plain_scalar(pc);
	if (plain)
		return plain;
	json_t *v = json_loadb(pc->data + pc->pos, pc->len - pc->pos,
	                       JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK | JSON_ALLOW_NUL, &jerr);
	if (!v) {
		pieces_syntax(pc, pc->pos + (jerr.position > 0 ? (size_t)jerr.position : 0),
		              jerr.text);
		return NULL;
	}
	pc->pos += (size_t)jerr.position;
	return v;
}

/* Expects the byte c at pos (after white space) and steps over it. */
static int pieces_expect(pieces *pc, char c)
{
	pieces_ws(pc);
	if (pc->pos >= pc->len || pc->data[pc->pos] != c) {
		char text[64];
		snprintf(text, sizeof(text), "'%c' expected", c);
		return pieces_syntax(pc, pc->pos, text);
	}
	pc->pos++;
	return 0;
}

/* 1 when the next byte (after white space) is c, which is then stepped over. */
static int pieces_next_is(pieces *pc, char c)
{
	pieces_ws(pc);
	if (pc->pos < pc->len && pc->data[pc->pos] == c) {
		pc->pos++;
		return 1;
	}
	return 0;
}

/*
 * A key at pos (its opening quote) of printable ASCII without escapes, as
 * every key memguard writes is: copied into buf (size bytes) and stepped
 * over, with no Jansson call (a json_loadb per key was half the cost of a
 * small report's read). NULL, pos unmoved, for any other key: Jansson reads
 * it, so what is accepted and how it reads stays Jansson's.
 */
static const char *pieces_plain_key(pieces *pc, char *buf, size_t size)
{
	size_t i = pc->pos + 1;
	while (i < pc->len && i - pc->pos - 1 < size - 1 && pc->data[i] >= 0x20 &&
	       pc->data[i] < 0x7f && pc->data[i] != '"' && pc->data[i] != '\\')
		i++;
	if (i >= pc->len || pc->data[i] != '"' || i - pc->pos - 1 >= size)
		return NULL;
	memcpy(buf, pc->data + pc->pos + 1, i - pc->pos - 1);
	buf[i - pc->pos - 1] = 0;
	pc->pos = i + 1;
	return buf;
}

/* so_far: the object's keys read before the piece. */
typedef int (*pieces_fn)(pieces *pc, void *ctx, const char *path, json_t *so_far);

/*
 * The object at pos into *out, key by key; the value of the key named piece
 * is not read into it but handed to on_piece (pos at the value; at most once:
 * a repeated piece key is an error). path names the object in errors.
 */
static int pieces_object(pieces *pc, const char *path, const char *piece, pieces_fn on_piece,
                         void *ctx, int *seen, json_t **out)
{
	int rc = 0;
	json_t *o = json_object(), *k = NULL, *v = NULL;
	char plain[64];
	*out = NULL;
	pieces_ws(pc);
	if (pc->pos >= pc->len || pc->data[pc->pos] != '{') {
		rc = mg_err_set(pc->err, MG_EINVAL, "%s: expected an object",
		                *path ? path : "report");
		goto out;
	}
	pc->pos++;
	if (pieces_next_is(pc, '}'))
		goto done;
	for (;;) {
		pieces_ws(pc);
		if (pc->pos >= pc->len || pc->data[pc->pos] != '"') {
			rc = pieces_syntax(pc, pc->pos, "string or '}' expected");
			goto out;
		}
		const char *key = pieces_plain_key(pc, plain, sizeof(plain));
		if (!key) {
			if (!(k = pieces_value(pc))) {
				rc = MG_EINVAL;
				goto out;
			}
			key = json_string_value(k);
		}
		if ((rc = pieces_expect(pc, ':')) != 0)
			goto out;
		if (piece && strcmp(key, piece) == 0) {
			if ((*seen)++) {
				rc = mg_err_set(pc->err, MG_EINVAL, "%s%s%s: given twice", path,
				                *path ? "." : "", piece);
				goto out;
			}
			pieces_ws(pc);
			if ((rc = on_piece(pc, ctx, path, o)) != 0)
				goto out;
		} else {
			if (!(v = pieces_value(pc))) {
				rc = MG_EINVAL;
				goto out;
			}
			report_write_set(o, key, v);
			v = NULL;
		}
		json_decref(k);
		k = NULL;
		if (pieces_next_is(pc, '}'))
			break;
		if ((rc = pieces_expect(pc, ',')) != 0)
			goto out;
	}
done:
	*out = o;
	o = NULL;
out:
	json_decref(k);
	json_decref(o);
	return rc;
}

/* The array at pos, one element at a time: on_elem(pc, ctx, index). */
static int pieces_array(pieces *pc, const char *what, int (*on_elem)(pieces *, void *, size_t),
                        void *ctx)
{
	int rc;
	pieces_ws(pc);
	if (pc->pos >= pc->len || pc->data[pc->pos] != '[')
		return mg_err_set(pc->err, MG_EINVAL, "%s: expected an array", what);
	pc->pos++;
	if (pieces_next_is(pc, ']'))
		return 0;
	for (size_t i = 0;; i++) {
		if ((rc = on_elem(pc, ctx, i)) != 0)
			return rc;
		pieces_release(pc);
		if (pieces_next_is(pc, ']'))
			return 0;
		if ((rc = pieces_expect(pc, ',')) != 0)
			return rc;
	}
}

typedef struct shard_ctx {
	report_shard *s;
	size_t index;         /* its place in the document's shards */
	const char *path;     /* "shards[3]" */
	int drop;             /* its tests are read (and checked) into scratch, then dropped */
	report_shard scratch; /* one test at a time */
} shard_ctx;

static int piece_test(pieces *pc, void *ctx, size_t i)
{
	shard_ctx *sc = ctx;
	char sub[256];
	report_read_pathf(sub, sizeof(sub), "%s.tests[%zu]", sc->path, i);
	json_t *o = pieces_value(pc);
	if (!o)
		return MG_EINVAL;
	report_test *t = NULL;
	report_shard *into = sc->drop ? &sc->scratch : sc->s;
	int rc = json_is_object(o)
	             ? (t = report_shard_add_test(into),
	                report_read_test(into, into->ntests - 1, o, pc->version, sub, pc->err))
	             : mg_err_set(pc->err, MG_EINVAL, "%s: expected an object", sub);
	if (t && sc->drop) {
		if (rc == 0 && pc->each)
			rc = pc->each(sc->index, t, report_shard_test_peak(into, 0),
			              report_shard_test_sites(into, 0), pc->each_ctx, pc->err);
		free(t->name);
		free(t->message);
		free(t->output);
		report_shard_drop_sites(into);
		into->ntests = into->npeaks = 0;
	} else if (t && t->name) { /* into the shard's blocks */
		char *packed = report_names_add(&sc->s->names, t->name, strlen(t->name));
		free(t->name);
		t->name = packed;
	}
	json_decref(o);
	return rc;
}

static int piece_tests(pieces *pc, void *ctx, const char *path, json_t *so_far)
{
	(void)so_far;
	char what[256];
	report_read_pathf(what, sizeof(what), "%s.tests", path);
	return pieces_array(pc, what, piece_test, ctx);
}

static int piece_shard(pieces *pc, void *ctx, size_t i)
{
	(void)ctx;
	char sub[256];
	json_t *o = NULL;
	int seen = 0;
	report_read_pathf(sub, sizeof(sub), "shards[%zu]", i);
	report_shard *s = report_add_shard(pc->r);
	shard_ctx sc = {s, i, sub, pc->keep_tests && !pc->keep_tests(i, pc->keep_ctx), {0}};
	int rc = pieces_object(pc, sub, "tests", piece_tests, &sc, &seen, &o);
	mg_bulk_free(sc.scratch.tests, sc.scratch.tests_cap * sizeof(report_test));
	free(sc.scratch.peaks);
	report_shard_drop_sites(&sc.scratch);
	if (rc == 0 && !seen)
		rc = mg_err_set(pc->err, MG_EINVAL, "%s.tests: missing", sub);
	if (rc == 0)
		rc = report_read_shard(s, o, pc->version, 0, sub, pc->err);
	json_decref(o);
	return rc;
}

static int piece_shards(pieces *pc, void *ctx, const char *path, json_t *so_far)
{
	(void)path;
	(void)ctx;
	pc->version = report_read_schema_version(so_far); /* 0 when the schema comes later */
	return pieces_array(pc, "shards", piece_shard, NULL);
}

static int parse_pieces(report *r, pieces *pc)
{
	int seen = 0, rc;
	pieces_ws(pc);
	if (pc->pos >= pc->len || pc->data[pc->pos] != '{') {
		/* not an object: Jansson says what it is, or why it is not JSON */
		json_error_t jerr;
		json_t *j = json_loadb(pc->data, pc->len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
		if (!j)
			return pieces_syntax(pc, jerr.position > 0 ? (size_t)jerr.position : 0,
			                     jerr.text);
		json_decref(j);
		return mg_err_set(pc->err, MG_EINVAL, "report: expected a JSON object");
	}
	json_t *o = NULL;
	rc = pieces_object(pc, "", "shards", piece_shards, NULL, &seen, &o);
	if (rc == 0) {
		pieces_ws(pc);
		if (pc->pos != pc->len)
			rc = pieces_syntax(pc, pc->pos, "end of file expected");
	}
	if (rc == 0 && !seen)
		rc = mg_err_set(pc->err, MG_EINVAL, "shards: missing");
	if (rc == 0)
		rc = report_read_from_json(r, o, 0, pc->err);
	json_decref(o);
	return rc;
}

static int parse_into(report **out, pieces *pc)
{
	*out = NULL;
	report *r = report_new();
	if (!r)
		return mg_err_set(pc->err, MG_ERROR, "out of memory");
	pc->r = r;
	int rc = parse_pieces(r, pc);
	if (rc) {
		report_free(r);
		return rc;
	}
	report_totals_compute(r);
	*out = r;
	return 0;
}

int report_parse(report **out, const char *data, size_t len, mg_err *err)
{
	return report_parse_some(out, data, len, NULL, NULL, err);
}

int report_parse_some(report **out, const char *data, size_t len, report_keep_tests_fn keep,
                      void *ctx, mg_err *err)
{
	pieces pc = {.data = data, .len = len, .err = err, .keep_tests = keep, .keep_ctx = ctx};
	return parse_into(out, &pc);
}

static int keep_no_tests(size_t shard, void *ctx)
{
	(void)shard;
	(void)ctx;
	return 0;
}

int report_parse_tests(report **out, const char *data, size_t len, report_test_fn fn, void *ctx,
                       mg_err *err)
{
	pieces pc = {.data = data,
	             .len = len,
	             .err = err,
	             .keep_tests = keep_no_tests,
	             .each = fn,
	             .each_ctx = ctx};
	return parse_into(out, &pc);
}

/* ---- files ----------------------------------------------------------------- */

/* Through atomic_open: a temporary next to PATH, fsynced, renamed over it;
 * on any failure PATH is untouched. */
int report_save(const report *r, const char *path, mg_err *err)
{
	atomic_file *a = NULL;
	int rc = atomic_open(&a, path, err);
	if (rc < 0)
		return rc;
	int ok = report_write(r, atomic_stream(a)) == 0;
	if (!ok)
		mg_err_set(err, MG_ERROR, "%s: write failed: %s", path, strerror(errno));
	return atomic_close(a, ok, ok ? err : NULL);
}

/* The file at path read through pc (its data, len, mapped and err are set
 * here): a regular file is mapped (and its pages dropped as they are read);
 * any other file (a FIFO, /dev/stdin) is read into memory. */
static int load_pieces(report **out, const char *path, pieces *pc, mg_err *err)
{
	*out = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return mg_err_set(err, errno == ENOENT ? MG_ENOTFOUND : MG_ERROR, "%s: %s", path,
		                  strerror(errno));
	struct stat st;
	char *data = NULL;
	size_t len = 0, cap = 0;
	int mapped = 0, rc;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		len = (size_t)st.st_size;
		data = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
		mapped = data != MAP_FAILED;
		if (!mapped)
			data = NULL;
	}
	if (!mapped) {
		len = 0;
		for (;;) {
			if (len == cap)
				data = mg_xrealloc(data, cap = cap ? cap * 2 : 65536);
			ssize_t n = read(fd, data + len, cap - len);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				rc = mg_err_set(err, MG_ERROR, "%s: %s", path, strerror(errno));
				free(data);
				close(fd);
				return rc;
			}
			if (n == 0)
				break;
			len += (size_t)n;
		}
	}
	close(fd);
	mg_err inner = {{0}};
	pc->data = data ? data : "";
	pc->len = len;
	pc->mapped = mapped;
	pc->err = &inner;
	rc = parse_into(out, pc);
	if (mapped)
		munmap(data, len);
	else
		free(data);
	if (rc)
		return mg_err_set(err, rc, pc->json_error ? "%s:%s" : "%s: %s", path, inner.msg);
	return 0;
}

int report_load(report **out, const char *path, mg_err *err)
{
	pieces pc = {0};
	return load_pieces(out, path, &pc, err);
}

int report_load_tests(report **out, const char *path, report_test_fn fn, void *ctx, mg_err *err)
{
	pieces pc = {.keep_tests = keep_no_tests, .each = fn, .each_ctx = ctx};
	return load_pieces(out, path, &pc, err);
}

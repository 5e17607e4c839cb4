/*
 * logcache.c - what "memguard log" needs of each note (totals, result and
 * each (arch, suite)'s peak VA),
 * cached by the note's blob id in GITDIR/memguard/log-cache.json. A blob
 * never changes, so an entry never goes stale; parsing a large note is what
 * makes log slow, and this parses each note once. Best effort: a missing,
 * unreadable or unwritable cache only costs time, never a wrong answer.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic.h"
#include "ci_int.h"

#define CACHE_VERSION 2 /* 2: each note's (arch, suite) peaks too */

struct logcache {
	char *path; /* NULL: no cache (bare path too long, ...) */
	json_t *entries;
	int dirty;
};

logcache *logcache_open(git_repository *repo)
{
	logcache *c = calloc(1, sizeof(*c));
	if (!c)
		abort();
	const char *gitdir = git_repository_path(repo);
	size_t len = strlen(gitdir) + sizeof("memguard/log-cache.json") + 1;
	c->path = malloc(len);
	if (!c->path)
		abort();
	snprintf(c->path, len, "%smemguard/log-cache.json", gitdir);
	json_t *doc = json_load_file(c->path, 0, NULL);
	json_t *entries = json_object_get(doc, "entries");
	if (json_integer_value(json_object_get(doc, "version")) == CACHE_VERSION &&
	    json_is_object(entries))
		c->entries = json_incref(entries);
	else
		c->entries = json_object();
	json_decref(doc);
	return c;
}

int logcache_get(logcache *c, const git_oid *blob, report_totals *t, int *interrupted,
                 json_t **suites)
{
	char key[GIT_OID_HEXSZ + 1];
	uint64_t *fields[] = {&t->peak_va, &t->peak_rss, &t->recycles,
	                      &t->kills,   &t->tests,    &t->failed};
	git_oid_tostr(key, sizeof(key), blob);
	json_t *a = json_object_get(c->entries, key);
	if (!json_is_array(a) || json_array_size(a) != 8 || !json_is_array(json_array_get(a, 7)))
		return 0;
	for (size_t i = 0; i < 7; i++)
		if (!json_is_integer(json_array_get(a, i)) ||
		    json_integer_value(json_array_get(a, i)) < 0)
			return 0;
	for (size_t i = 0; i < 6; i++)
		*fields[i] = (uint64_t)json_integer_value(json_array_get(a, i));
	*interrupted = (int)json_integer_value(json_array_get(a, 6));
	*suites = json_incref(json_array_get(a, 7));
	return 1;
}

void logcache_put(logcache *c, const git_oid *blob, const report_totals *t, int interrupted,
                  json_t *suites)
{
	char key[GIT_OID_HEXSZ + 1];
	git_oid_tostr(key, sizeof(key), blob);
	json_t *a = json_pack("[IIIIIIiO]", (json_int_t)t->peak_va, (json_int_t)t->peak_rss,
	                      (json_int_t)t->recycles, (json_int_t)t->kills, (json_int_t)t->tests,
	                      (json_int_t)t->failed, interrupted, suites);
	if (a && json_object_set_new(c->entries, key, a) == 0)
		c->dirty = 1;
}

/* Keeps the entries of blobs still in n (old ones go), written atomically. */
void logcache_save(logcache *c, const notes *n)
{
	char key[GIT_OID_HEXSZ + 1];
	if (!c->dirty)
		return;
	json_t *keep = json_object();
	for (size_t i = 0; i < n->n; i++) {
		git_oid_tostr(key, sizeof(key), &n->v[i].blob);
		json_t *e = json_object_get(c->entries, key);
		if (e)
			json_object_set(keep, key, e);
	}
	json_t *doc = json_pack("{s:i,s:o}", "version", CACHE_VERSION, "entries", keep);
	char *dir = strdup(c->path);
	if (!dir)
		abort();
	*strrchr(dir, '/') = '\0';
	mkdir(dir, 0777);
	free(dir);
	atomic_file *a = NULL;
	if (doc && atomic_open(&a, c->path, NULL) == 0) {
		int ok = json_dumpf(doc, atomic_stream(a), JSON_COMPACT) == 0;
		if (atomic_close(a, ok, NULL) == 0)
			c->dirty = 0;
	}
	json_decref(doc);
}

void logcache_free(logcache *c)
{
	if (!c)
		return;
	json_decref(c->entries);
	free(c->path);
	free(c);
}

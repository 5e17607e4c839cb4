/*
 * log.c - "memguard log": the memory trend along first parents, one line per
 * commit that has a note. The notes tree is read once into a sorted set, so
 * a commit without a note costs a binary search, never an object read; each
 * note is parsed once and its totals cached by blob id (logcache.c).
 * Notes are read without their tests (their totals and shards are what a
 * line shows); --format html keeps each shown note's shards (and with
 * --test that test's records) and writes log_html.c's page.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atomic.h"
#include "ci_int.h"

#define CMD       "log"
#define SPARK_MAX 80 /* characters of the footer's sparkline */

enum { FMT_TEXT, FMT_JSON, FMT_CSV, FMT_HTML };

typedef struct entry {
	git_oid commit;
	git_time_t when;
	report_totals t;
	const char *result; /* static */
	json_t *suites;     /* [[arch, suite, peak VA], ...] (owned; text only) */
} entry;

static const char *const bars[8] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};

static const char *bar_for(uint64_t v, uint64_t lo, uint64_t hi)
{
	if (hi <= lo)
		return bars[3];
	return bars[(size_t)((double)(v - lo) * 7.0 / (double)(hi - lo) + 0.5)];
}

static void fmt_date(char *buf, size_t size, git_time_t when)
{
	time_t t = (time_t)when;
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, size, "%Y-%m-%d", &tm);
}

/* A note's (arch, suite) peak VAs: [[arch, suite, peak VA], ...]. */
static json_t *suite_peaks(const report *r)
{
	json_t *a = json_array();
	for (size_t i = 0; i < r->nshards; i++) {
		const report_shard *s = &r->shards[i];
		const char *arch = s->arch ? s->arch : "?", *suite = s->suite ? s->suite : "?";
		size_t k;
		json_t *e;
		json_array_foreach(a, k, e)
		{
			if (!strcmp(json_string_value(json_array_get(e, 0)), arch) &&
			    !strcmp(json_string_value(json_array_get(e, 1)), suite))
				break;
		}
		if (k == json_array_size(a))
			json_array_append_new(a, json_pack("[ssI]", arch, suite, (json_int_t)0));
		e = json_array_get(a, k);
		if ((uint64_t)json_integer_value(json_array_get(e, 2)) < s->peak_va)
			json_array_set_new(e, 2, json_integer((json_int_t)s->peak_va));
	}
	return a;
}

/* The footer's sparkline of one (arch, suite) over v (newest first): its
 * own scale, a blank where a commit did not run it. */
static void suite_spark(const entry *v, size_t shown, const char *arch, const char *suite)
{
	uint64_t lo = UINT64_MAX, hi = 0, val[SPARK_MAX];
	int has[SPARK_MAX];
	for (size_t i = 0; i < shown; i++) {
		size_t k;
		json_t *e;
		has[i] = 0;
		json_array_foreach(v[i].suites, k, e)
		{
			if (strcmp(json_string_value(json_array_get(e, 0)), arch) ||
			    strcmp(json_string_value(json_array_get(e, 1)), suite))
				continue;
			has[i] = 1;
			val[i] = (uint64_t)json_integer_value(json_array_get(e, 2));
			lo = val[i] < lo ? val[i] : lo;
			hi = val[i] > hi ? val[i] : hi;
		}
	}
	printf("peak VA of %s %s, oldest to newest: ", arch, suite);
	for (size_t i = shown; i-- > 0;)
		fputs(has[i] ? bar_for(val[i], lo, hi) : " ", stdout);
	printf("\n");
}

/* shallow: the walk stopped at the boundary of a shallow clone. */
static void print_entries(int fmt, const entry *v, size_t n, size_t skipped, const char *ref,
                          int shallow)
{
	char sha[GIT_OID_HEXSZ + 1], date[32], va[32], rss[32];
	uint64_t lo = UINT64_MAX, hi = 0;
	for (size_t i = 0; i < n; i++) {
		lo = v[i].t.peak_va < lo ? v[i].t.peak_va : lo;
		hi = v[i].t.peak_va > hi ? v[i].t.peak_va : hi;
	}
	if (fmt == FMT_JSON) {
		json_t *a = json_array();
		for (size_t i = 0; i < n; i++) {
			json_t *o = json_object();
			git_oid_tostr(sha, sizeof(sha), &v[i].commit);
			fmt_date(date, sizeof(date), v[i].when);
			json_object_set_new(o, "commit", json_string(sha));
			json_object_set_new(o, "date", json_string(date));
			json_object_set_new(o, "peak_va", json_integer((json_int_t)v[i].t.peak_va));
			json_object_set_new(o, "peak_rss",
			                    json_integer((json_int_t)v[i].t.peak_rss));
			json_object_set_new(o, "recycles",
			                    json_integer((json_int_t)v[i].t.recycles));
			json_object_set_new(o, "tests", json_integer((json_int_t)v[i].t.tests));
			json_object_set_new(o, "result", json_string(v[i].result));
			json_array_append_new(a, o);
		}
		json_t *o = json_object();
		json_object_set_new(o, "commits", a);
		json_object_set_new(o, "skipped", json_integer((json_int_t)skipped));
		json_object_set_new(o, "shallow_boundary", json_boolean(shallow));
		json_dumpf(o, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
		json_decref(o);
		return;
	}
	if (fmt == FMT_CSV) {
		printf("commit,date,peak_va,peak_rss,recycles,tests,result\n");
		for (size_t i = 0; i < n; i++) {
			git_oid_tostr(sha, sizeof(sha), &v[i].commit);
			fmt_date(date, sizeof(date), v[i].when);
			printf("%s,%s,%llu,%llu,%llu,%llu,%s\n", sha, date,
			       (unsigned long long)v[i].t.peak_va,
			       (unsigned long long)v[i].t.peak_rss,
			       (unsigned long long)v[i].t.recycles,
			       (unsigned long long)v[i].t.tests, v[i].result);
		}
		if (shallow)
			fprintf(stderr, "memguard " CMD ": history ends at the shallow clone's "
			                "boundary (git fetch --unshallow for more)\n");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		store_short(sha, &v[i].commit);
		fmt_date(date, sizeof(date), v[i].when);
		report_format_size(va, sizeof(va), v[i].t.peak_va);
		report_format_size(rss, sizeof(rss), v[i].t.peak_rss);
		printf("%s  %s  VA %10s  RSS %10s  recycles %4llu  tests %7llu  %-11s %s\n", sha,
		       date, va, rss, (unsigned long long)v[i].t.recycles,
		       (unsigned long long)v[i].t.tests, v[i].result,
		       bar_for(v[i].t.peak_va, lo, hi));
	}
	/* one sparkline per (arch, suite) when the notes hold more than one: a
	 * single line of the largest would mix them */
	json_t *keys = json_array();
	size_t shown = n < SPARK_MAX ? n : SPARK_MAX;
	for (size_t i = shown; i-- > 0;) {
		size_t k, j;
		json_t *e, *x;
		json_array_foreach(v[i].suites, k, e)
		{
			json_array_foreach(keys, j, x)
			{
				if (json_equal(json_array_get(x, 0), json_array_get(e, 0)) &&
				    json_equal(json_array_get(x, 1), json_array_get(e, 1)))
					break;
			}
			if (j == json_array_size(keys))
				json_array_append(keys, e);
		}
	}
	if (n && json_array_size(keys) > 1) {
		if (n > shown)
			printf("peak VA sparklines of the newest %zu commits:\n", shown);
		size_t k;
		json_t *x;
		json_array_foreach(keys, k, x)
		    suite_spark(v, shown, json_string_value(json_array_get(x, 0)),
		                json_string_value(json_array_get(x, 1)));
	} else if (n) {
		printf("peak VA, oldest to newest%s: ", n > shown ? " (the newest 80)" : "");
		for (size_t i = shown; i-- > 0;)
			fputs(bar_for(v[i].t.peak_va, lo, hi), stdout);
		printf("\n");
	}
	json_decref(keys);
	printf("%zu commit%s with a note in %s; %zu without a note skipped\n", n, n == 1 ? "" : "s",
	       ref, skipped);
	if (shallow)
		printf("history ends at the shallow clone's boundary (git fetch --unshallow for "
		       "more)\n");
}

/*
 * --format html --test NAME: the tests named NAME, picked as a note is read
 * (report_parse_tests), into shards of their own by index; pick_keep then
 * gives them to the note's shards. A note is held as its shards and these
 * tests, never as its million tests.
 */
typedef struct test_pick {
	const char *name;
	report *into; /* shards by index; only their tests are set */
} test_pick;

static int pick_test(size_t shard, const report_test *t, uint64_t va_peak,
                     const report_test_sites *sites, void *ctx, mg_err *err)
{
	(void)va_peak;
	test_pick *p = ctx;
	(void)err;
	if (!t->name || strcmp(t->name, p->name) != 0)
		return 0;
	while (p->into->nshards <= shard)
		report_add_shard(p->into);
	report_shard *into = &p->into->shards[shard];
	report_test *d = report_shard_add_test(into);
	*d = *t;
	d->name = report_strdup(t->name);
	d->message = report_strdup(t->message);
	d->output = NULL;
	if (sites && sites->nsites) { /* its allocation sites, the page's to show */
		report_test_sites *ds = report_shard_add_test_sites(into, into->ntests - 1);
		report_test_sites_copy(ds, sites);
		ds->test = into->ntests - 1;
	}
	return 0;
}

static void pick_keep(report *r, report *picked)
{
	for (size_t i = 0; i < picked->nshards && i < r->nshards; i++) {
		report_shard *d = &r->shards[i], *p = &picked->shards[i];
		report_test *tests = d->tests;
		size_t n = d->ntests, cap = d->tests_cap;
		d->tests = p->tests;
		d->ntests = p->ntests;
		d->tests_cap = p->tests_cap;
		p->tests = tests; /* none: d's were dropped */
		p->ntests = n;
		p->tests_cap = cap;
		report_test_sites *sites = d->sites; /* the picked tests' sites, by their index */
		n = d->nsites;
		d->sites = p->sites;
		d->nsites = p->nsites;
		p->sites = sites;
		p->nsites = n;
	}
}

/* A note for the page: its shards, and with test its tests of that name. */
static int read_for_page(report **out, store *s, const git_oid *blob, const git_oid *id,
                         const char *test, mg_err *err)
{
	if (!test)
		return store_read_tests(out, s->repo, blob, id, NULL, NULL, err);
	test_pick p = {test, report_new()};
	if (!p.into)
		abort();
	int rc = store_read_tests(out, s->repo, blob, id, pick_test, &p, err);
	if (rc == 0)
		pick_keep(*out, p.into);
	report_free(p.into);
	return rc;
}

int log_main(int argc, char **argv)
{
	const char *ref = NULL, *rev = NULL, *count = NULL, *format = "text", *test = NULL,
	           *output = NULL;
	long limit = 20;
	int fmt, rc, o, shallow = 0;
	store s = {0};
	notes n = {0};
	git_revwalk *walk = NULL;
	entry *v = NULL;
	log_commit *hv = NULL; /* --format html: the notes parsed whole */
	atomic_file *af = NULL;
	logcache *cache = NULL;
	size_t nv = 0, skipped = 0;
	mg_err err;
	git_oid start, id;

	for (int i = 1; i < argc; i++) {
		if (ci_is_help(argv[i]))
			return ci_cmd_usage(CMD, stdout, MG_EXIT_OK);
		if ((o = ci_opt(CMD, argc, argv, &i, "--ref", &ref)) ||
		    (o = ci_opt(CMD, argc, argv, &i, "--format", &format)) ||
		    (o = ci_opt(CMD, argc, argv, &i, "--max-count", &count)) ||
		    (o = ci_opt(CMD, argc, argv, &i, "-n", &count)) ||
		    (o = ci_opt(CMD, argc, argv, &i, "--test", &test)) ||
		    (o = ci_opt(CMD, argc, argv, &i, "--output", &output)) ||
		    (o = ci_opt(CMD, argc, argv, &i, "-o", &output))) {
			if (o < 0)
				return -o;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			ci_unknown_option(CMD, argv[i]);
			return ci_cmd_usage(CMD, stderr, MG_EXIT_USAGE);
		} else if (rev) {
			return ci_fail(CMD, MG_EXIT_USAGE, "one revision at a time ('%s')",
			               argv[i]);
		} else {
			rev = argv[i];
		}
	}
	if (strcmp(format, "html") == 0 && !count)
		limit = 100; /* a page holds more than a terminal */
	if (count) {
		char *end;
		limit = strtol(count, &end, 10);
		if (*count == '\0' || *end || limit <= 0)
			return ci_fail(CMD, MG_EXIT_USAGE, "-n '%s' is not a positive number",
			               count);
	}
	if (strcmp(format, "text") == 0)
		fmt = FMT_TEXT;
	else if (strcmp(format, "json") == 0)
		fmt = FMT_JSON;
	else if (strcmp(format, "csv") == 0)
		fmt = FMT_CSV;
	else if (strcmp(format, "html") == 0)
		fmt = FMT_HTML;
	else
		return ci_fail(CMD, MG_EXIT_USAGE, "unknown format '%s' (text, json, csv, html)",
		               format);
	if (fmt != FMT_HTML && (test || output))
		return ci_fail(CMD, MG_EXIT_USAGE, "%s is for --format html",
		               test ? "--test" : "-o");

	if ((rc = store_open(&s, ref, &err)) < 0)
		return ci_fail(CMD, rc == MG_EINVAL ? MG_EXIT_USAGE : MG_EXIT_INFRA, "%s", err.msg);
	/* REV, or a range A..B (B's first parents that are not A's ancestors). */
	const char *range = rev ? strstr(rev, "..") : NULL;
	if (!range && (rc = store_resolve(&start, &s, rev ? rev : "HEAD", &err)) < 0) {
		rc =
		    ci_fail(CMD, rc == MG_ENOTFOUND ? MG_EXIT_USAGE : MG_EXIT_INFRA, "%s", err.msg);
		goto out;
	}
	if ((rc = notes_load(&n, s.repo, s.ref, &err)) < 0) {
		rc = ci_fail(CMD, MG_EXIT_INFRA, "%s", err.msg);
		goto out;
	}
	if (git_revwalk_new(&walk, s.repo) < 0 || git_revwalk_simplify_first_parent(walk) < 0) {
		store_git_fail(&err, "cannot walk the history");
		rc = ci_fail(CMD, MG_EXIT_INFRA, "%s", err.msg);
		goto out;
	}
	if (range ? git_revwalk_push_range(walk, rev) < 0 : git_revwalk_push(walk, &start) < 0) {
		rc = ci_fail(CMD, range ? MG_EXIT_USAGE : MG_EXIT_INFRA, "cannot walk '%s': %s",
		             rev ? rev : "HEAD",
		             git_error_last() ? git_error_last()->message : "libgit2 error");
		goto out;
	}
	cache = logcache_open(s.repo);
	v = calloc(((size_t)limit < n.n ? (size_t)limit : n.n) + 1, sizeof(*v));
	hv = calloc(((size_t)limit < n.n ? (size_t)limit : n.n) + 1, sizeof(*hv));
	if (!v || !hv)
		abort();
	/*
	 * Stops at the limit, or once every note has been seen. In a shallow
	 * clone the walk fails at the boundary (libgit2 reads the missing
	 * parents of a graft before it returns the graft itself): the first
	 * parents are then followed by hand, up to the last commit there is.
	 */
	int manual = 0, walked = 0;
	git_oid last;
	while (nv < (size_t)limit && nv < n.n) {
		if (!manual) {
			rc = git_revwalk_next(&id, walk);
			if (rc == GIT_ITEROVER)
				break;
			if (rc < 0) {
				if (git_repository_is_shallow(s.repo) != 1)
					break;
				git_error_clear();
				shallow = 1;
				rc = 0;
				if (range) /* no hand walk that would honour the range */
					break;
				manual = 1;
				if (!walked) {
					git_oid_cpy(&id, &start);
					goto have_id;
				}
			}
		}
		if (manual) {
			git_commit *lc = NULL, *pc = NULL;
			int ok = git_commit_lookup(&lc, s.repo, &last) == 0 &&
			         git_commit_parentcount(lc) > 0 &&
			         git_commit_parent(&pc, lc, 0) == 0;
			if (ok)
				git_oid_cpy(&id, git_commit_id(pc));
			git_commit_free(pc);
			git_commit_free(lc);
			if (!ok) {
				git_error_clear();
				break;
			}
		}
	have_id:
		git_oid_cpy(&last, &id);
		walked = 1;
		const note_entry *e = notes_find(&n, &id);
		git_commit *c = NULL;
		report *r = NULL;
		if (!e) {
			skipped++;
			continue;
		}
		int interrupted = 0;
		if (fmt == FMT_HTML) {
			if ((rc = read_for_page(&hv[nv].r, &s, &e->blob, &id, test, &err)) < 0) {
				rc = ci_fail(CMD, MG_EXIT_INFRA, "%s", err.msg);
				goto out;
			}
			v[nv].t = hv[nv].r->totals;
			interrupted = hv[nv].r->interrupted;
		} else if (!logcache_get(cache, &e->blob, &v[nv].t, &interrupted, &v[nv].suites)) {
			if ((rc = store_read_tests(&r, s.repo, &e->blob, &id, NULL, NULL, &err)) <
			    0) {
				rc = ci_fail(CMD, MG_EXIT_INFRA, "%s", err.msg);
				goto out;
			}
			v[nv].t = r->totals;
			v[nv].suites = suite_peaks(r);
			interrupted = r->interrupted;
			logcache_put(cache, &e->blob, &v[nv].t, interrupted, v[nv].suites);
			report_free(r);
		}
		if ((rc = git_commit_lookup(&c, s.repo, &id)) < 0) {
			store_git_fail(&err, "cannot read a commit");
			rc = ci_fail(CMD, MG_EXIT_INFRA, "%s", err.msg);
			goto out;
		}
		git_oid_cpy(&v[nv].commit, &id);
		v[nv].when = git_commit_time(c);
		v[nv].result = ci_result(interrupted, &v[nv].t);
		git_oid_cpy(&hv[nv].commit, &id);
		hv[nv].when = v[nv].when;
		hv[nv].result = v[nv].result;
		snprintf(hv[nv].summary, sizeof(hv[nv].summary), "%s",
		         git_commit_summary(c) ? git_commit_summary(c) : "");
		nv++;
		git_commit_free(c);
	}
	if (rc < 0 && rc != GIT_ITEROVER) {
		store_git_fail(&err, "cannot walk the history");
		rc = ci_fail(CMD, MG_EXIT_INFRA, "%s", err.msg);
		goto out;
	}
	if (fmt == FMT_HTML) {
		FILE *f = stdout;
		if (output && (rc = atomic_open(&af, output, &err)) < 0) {
			rc = ci_fail(CMD, rc == MG_ENOTFOUND ? MG_EXIT_USAGE : MG_EXIT_INFRA, "%s",
			             err.msg);
			goto out;
		}
		if (af)
			f = atomic_stream(af);
		log_html_write(f, hv, nv, s.ref, test);
		if (af) {
			rc = atomic_close(af, 1, &err);
			af = NULL;
			if (rc < 0) {
				rc = ci_fail(CMD, MG_EXIT_INFRA, "%s", err.msg);
				goto out;
			}
			printf("%zu commit%s with a note written to %s; %zu without a note "
			       "skipped%s\n",
			       nv, nv == 1 ? "" : "s", output, skipped,
			       shallow ? " (history ends at the shallow clone's boundary)" : "");
		}
	} else {
		print_entries(fmt, v, nv, skipped, s.ref, shallow);
		logcache_save(cache, &n);
	}
	rc = MG_EXIT_OK;
out:
	atomic_close(af, 0, NULL);
	for (size_t i = 0; hv && i < nv + 1; i++)
		report_free(hv[i].r);
	free(hv);
	logcache_free(cache);
	for (size_t i = 0; v && i < nv + 1; i++)
		json_decref(v[i].suites);
	free(v);
	git_revwalk_free(walk);
	notes_free(&n);
	store_close(&s);
	return rc;
}

/*
 * bench_notes_log.c - how long "memguard log -n 1000" takes over 1,000 noted
 * commits, against walking the same 1,000 commits without notes, and against
 * looking notes up one by one with git_note_read. Not a test: prints figures.
 * Usage: bench_notes_log [COMMITS [TESTS_PER_SHARD]]   (default 1000 50)
 */
#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "ci_int.h"

#define RUNS 5

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v)
{
	qsort(v, RUNS, sizeof(*v), cmp_double);
	return v[RUNS / 2];
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void die(const char *what)
{
	const git_error *e = git_error_last();
	fprintf(stderr, "bench_notes_log: %s: %s\n", what, e ? e->message : "failed");
	exit(1);
}

static report *make_report(int i, int ntests)
{
	report *r = report_new();
	char name[64];
	r->start_time = 1790000000 + i; /* every note distinct, as real runs are */
	for (int sh = 0; sh < 2; sh++) {
		report_shard *s = report_add_shard(r);
		s->node = 1;
		s->index = (uint32_t)sh;
		s->arch = report_strdup(sh ? "x64" : "x86");
		s->suite = report_strdup("my_tests");
		s->driver = report_strdup("native");
		s->command = report_strdup("./build32/my_tests");
		s->peak_va = (3ull << 30) + (uint64_t)(i % 17) * (16u << 20);
		s->peak_rss = 200u << 20;
		s->recycles = (uint32_t)(i % 3);
		for (int t = 0; t < ntests; t++) {
			report_test *rt = report_shard_add_test(s);
			snprintf(name, sizeof(name), "suite%d/test_%d", t / 10, t);
			rt->name = report_strdup(name);
			rt->state = TEST_PASS;
			rt->attempts = 1;
			rt->duration = 0.01;
			rt->va_after = 1u << 30;
			rt->va_delta = (t * 7919 + i) % 3 ? 0 : 65536;
		}
	}
	report_finish(r, 10);
	return r;
}

int main(int argc, char **argv)
{
	int ncommits = argc > 1 ? atoi(argv[1]) : 1000;
	int ntests = argc > 2 ? atoi(argv[2]) : 50;
	char dir[] = "/tmp/mg-bench-notes.XXXXXX", cwd[4096];
	git_repository *repo = NULL;
	git_signature *sig = NULL;
	git_treebuilder *tb = NULL;
	git_tree *tree = NULL;
	git_oid tree_id, *commits = calloc((size_t)ncommits, sizeof(git_oid));
	notes n = {0};
	store s = {0};
	mg_err err;
	double t_log[RUNS], t_warm[RUNS], t_walk[RUNS], t_read[RUNS], t_blob[RUNS], t_json[RUNS];

	if (ncommits <= 0 || ntests < 0 || !commits || !mkdtemp(dir) || !getcwd(cwd, sizeof(cwd)))
		return 2;
	git_libgit2_init();
	if (git_repository_init(&repo, dir, 0) < 0)
		die("init");
	if (git_treebuilder_new(&tb, repo, NULL) < 0 || git_treebuilder_write(&tree_id, tb) < 0 ||
	    git_tree_lookup(&tree, repo, &tree_id) < 0)
		die("tree");
	double t0 = now();
	for (int i = 0; i < ncommits; i++) {
		git_commit *parent = NULL;
		char msg[32];
		snprintf(msg, sizeof(msg), "commit %d", i);
		if (git_signature_new(&sig, "Bench", "bench@example.com", 1790000000 + i, 0) < 0)
			die("signature");
		if (i && git_commit_lookup(&parent, repo, &commits[i - 1]) < 0)
			die("parent");
		if (git_commit_create(&commits[i], repo, "HEAD", sig, sig, NULL, msg, tree,
		                      i ? 1 : 0, (const git_commit **)&parent) < 0)
			die("commit");
		git_commit_free(parent);
		git_signature_free(sig);
	}
	/* One notes commit holding every note (as 1,000 CI runs would leave it). */
	if (chdir(dir) != 0 || store_open(&s, NULL, &err) < 0)
		die("store");
	size_t bytes = 0;
	for (int i = 0; i < ncommits; i++) {
		git_oid blob;
		report *r = make_report(i, ntests);
		if (store_write_blob(&blob, repo, r, &err) < 0)
			die(err.msg);
		if (i == 0) {
			git_blob *b = NULL;
			git_blob_lookup(&b, repo, &blob);
			bytes = (size_t)git_blob_rawsize(b);
			git_blob_free(b);
		}
		report_free(r);
		notes_set(&n, &commits[i], &blob);
	}
	git_oid nc;
	if (store_commit(&nc, &s, &n, NULL, 0, NULL, "bench notes", &err) < 0)
		die(err.msg);
	notes_free(&n);
	printf("repository: %d commits, %d notes of %zu bytes (2 shards x %d tests), built in "
	       "%.2f s\n",
	       ncommits, ncommits, bytes, ntests, now() - t0);

	char count[16];
	snprintf(count, sizeof(count), "%d", ncommits);
	char *largv[] = {"log", "-n", count, NULL};
	int devnull = open("/dev/null", O_WRONLY), saved = dup(1);
	for (int run = 0; run < RUNS; run++) {
		/* memguard log -n N, output to /dev/null: cold (no cache), then warm. */
		char cache[4200];
		snprintf(cache, sizeof(cache), "%s/.git/memguard/log-cache.json", dir);
		for (int warm = 0; warm < 2; warm++) {
			if (!warm)
				unlink(cache);
			fflush(stdout);
			dup2(devnull, 1);
			double a = now();
			int rc = ci_main("log", 3, largv);
			fflush(stdout);
			(warm ? t_warm : t_log)[run] = now() - a;
			dup2(saved, 1);
			if (rc != 0)
				die("memguard log failed");
		}
		double a;

		/* Baseline: the same first-parent walk, reading each commit, no notes. */
		git_revwalk *w = NULL;
		git_oid id;
		size_t seen = 0;
		a = now();
		if (git_revwalk_new(&w, repo) < 0 || git_revwalk_push_head(w) < 0 ||
		    git_revwalk_simplify_first_parent(w) < 0)
			die("walk");
		while (git_revwalk_next(&id, w) == 0) {
			git_commit *c = NULL;
			if (git_commit_lookup(&c, repo, &id) < 0)
				die("lookup");
			seen += git_commit_time(c) > 0;
			git_commit_free(c);
		}
		git_revwalk_free(w);
		t_walk[run] = now() - a;
		if (seen != (size_t)ncommits)
			die("walk count");

		/* The alternative: git_note_read per commit (lookup only, no JSON parse). */
		a = now();
		if (git_revwalk_new(&w, repo) < 0 || git_revwalk_push_head(w) < 0)
			die("walk");
		while (git_revwalk_next(&id, w) == 0) {
			git_note *note = NULL;
			if (git_note_read(&note, repo, CI_NOTES_REF, &id) < 0)
				die("note read");
			git_note_free(note);
		}
		git_revwalk_free(w);
		t_read[run] = now() - a;

		/* Where log's time goes: reading the note blobs, then parsing them. */
		notes all;
		if (notes_load(&all, repo, CI_NOTES_REF, &err) < 0)
			die(err.msg);
		for (int parse = 0; parse < 2; parse++) {
			a = now();
			for (size_t i = 0; i < all.n; i++) {
				git_blob *b = NULL;
				if (git_blob_lookup(&b, repo, &all.v[i].blob) < 0)
					die("blob");
				if (parse) {
					json_t *j =
					    json_loadb(git_blob_rawcontent(b),
					               (size_t)git_blob_rawsize(b), 0, NULL);
					if (!j)
						die("json");
					json_decref(j);
				}
				git_blob_free(b);
			}
			(parse ? t_json : t_blob)[run] = now() - a;
		}
		notes_free(&all);
	}
	close(devnull);
	close(saved);
	double ml = median(t_log), mw = median(t_walk), mr = median(t_read);
	printf("memguard log -n %d, cold cache (parses every note):   median %.1f ms\n", ncommits,
	       ml * 1e3);
	printf("memguard log -n %d, warm cache (totals by blob id):  median %.1f ms\n", ncommits,
	       median(t_warm) * 1e3);
	printf("walk %d commits, no notes (baseline):                     median %.1f ms\n",
	       ncommits, mw * 1e3);
	printf("ratio log / walk: cold %.1fx, warm %.1fx\n", ml / mw, median(t_warm) / mw);
	printf("for comparison, git_note_read per commit (no parse):        median %.1f ms\n",
	       mr * 1e3);
	printf("  of which: reading the %d note blobs                     median %.1f ms\n",
	       ncommits, median(t_blob) * 1e3);
	printf("            reading + json_loadb (no report_from_json)     median %.1f ms\n",
	       median(t_json) * 1e3);
	printf("medians of %d runs\n", RUNS);

	store_close(&s);
	git_tree_free(tree);
	git_treebuilder_free(tb);
	git_repository_free(repo);
	git_libgit2_shutdown();
	free(commits);
	if (chdir(cwd) != 0)
		return 1;
	if (getenv("BENCH_KEEP"))
		printf("kept %s\n", dir);
	else
		nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}

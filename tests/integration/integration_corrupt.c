/*
 * integration_corrupt.c - one exit code for a report that cannot be read:
 * the same corrupt file given to every command that reads a report file
 * (report, compare, merge, note, bisect) ends each with exit 3 and a
 * message naming the file, and nothing is written; a path that names no
 * file is 2 (a bad argument) for each.
 */
#include "integration.h"

/* A directory of bad reports: truncated JSON, a foreign schema, a file that
 * is not there, a test's allocation site with a negative size. */
static char bad_dir[64];

static void bad_files(const char **paths, size_t n)
{
	snprintf(bad_dir, sizeof(bad_dir), "/tmp/mg-corrupt-XXXXXX");
	CU_ASSERT_FATAL(mkdtemp(bad_dir) != NULL);
	static char p[4][128];
	snprintf(p[0], sizeof(p[0]), "%s/truncated.json", bad_dir);
	snprintf(p[1], sizeof(p[1]), "%s/foreign.json", bad_dir);
	snprintf(p[2], sizeof(p[2]), "%s/missing.json", bad_dir);
	snprintf(p[3], sizeof(p[3]), "%s/bad_sites.json", bad_dir);
	CU_ASSERT_FATAL(write_file(bad_dir, "truncated.json",
	                           "{\"schema\": \"memguard-report/2\", \"shards\": [{\"node\"") ==
	                0);
	CU_ASSERT_FATAL(write_file(bad_dir, "foreign.json", "{\"schema\": \"other/1\"}\n") == 0);
	CU_ASSERT_FATAL(write_file(bad_dir, "bad_sites.json",
	                           "{\"schema\":\"memguard-report/2\",\"shards\":[{\"tests\":[{"
	                           "\"n\":\"a\",\"sites\":[{\"kind\":\"mmap\",\"bytes\":-1,"
	                           "\"count\":1,\"frames\":[]}]}]}]}\n") == 0);
	for (size_t i = 0; i < n; i++)
		paths[i] = p[i];
}

void corrupt_report_exit(void)
{
	const char *bad[4];
	bad_files(bad, 4);
	char out[128];
	snprintf(out, sizeof(out), "%s/merged.json", bad_dir);
	for (size_t i = 0; i < 4; i++) {
		const char *const *cmds[] = {
		    ARGV("report", "--adapter", "console", bad[i]),
		    ARGV("compare", bad[i], GOOD_REPORT),
		    ARGV("compare", GOOD_REPORT, bad[i]),
		    ARGV("merge", out, GOOD_REPORT, bad[i]),
		    ARGV("note", bad[i]),
		    ARGV("bisect", "--report", bad[i], "--", "/bin/true"),
		};
		int missing = i == 2;
		for (size_t k = 0; k < sizeof(cmds) / sizeof(cmds[0]); k++) {
			/* compare takes what is not a file for a revision: outside a
			 * repository that is 3, a case of its own (test_ci) */
			if (missing && !strcmp(cmds[k][1], "compare"))
				continue;
			outcome o;
			mg(&o, cmds[k], NULL, 0);
			if (!exited_with(&o, missing ? 2 : 3))
				fprintf(stderr, "memguard %s ... %s\n", cmds[k][1], bad[i]);
			CU_ASSERT(exited_with(&o, missing ? 2 : 3));
			CU_ASSERT_PTR_NOT_NULL(strstr(o.err, strrchr(bad[i], '/') + 1));
			if (i == 3) /* the bad field named */
				CU_ASSERT_PTR_NOT_NULL(strstr(o.err, "sites[0].bytes"));
			done(&o);
		}
		struct stat st;
		CU_ASSERT(stat(out, &st) < 0 && errno == ENOENT); /* merge wrote nothing */
	}
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", bad_dir);
	CU_ASSERT(system(cmd) == 0);
}

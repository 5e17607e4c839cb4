/*
 * test_faults.c - the files memguard writes, under faults: two runs that
 * share one --report path (a retried CI step, two jobs in one workspace),
 * and symlinks planted at temporary names. The real memguard binary and a
 * real host; every round checks exit codes and the file left behind.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mg_test.h"

#define ROUNDS 100

/* Starts memguard with argv in dir, output to dir/NAME.out. */
static pid_t start(const char *dir, const char *name, const char *const *argv)
{
	char out[256];
	snprintf(out, sizeof(out), "%s/%s.out", dir, name);
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0 || chdir(dir) < 0)
			_exit(126);
		unsetenv("CI");
		setenv("MG_BENCH_TESTS", "200", 1);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	return pid;
}

static int exit_code(pid_t pid)
{
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Files in dir whose name starts with prefix. */
static int count_prefixed(const char *dir, const char *prefix)
{
	int n = 0;
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d)) != NULL)
		n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
	if (d)
		closedir(d);
	return n;
}

/* 1 if path holds one XML document whose last bytes close the root. */
static int junit_whole(const char *path)
{
	static const char end[] = "</testsuites>\n";
	char head[64] = {0}, tail[sizeof(end)] = {0};
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	int ok = fread(head, 1, sizeof(head) - 1, f) > 0 && strstr(head, "<?xml") == head &&
	         fseek(f, -(long)(sizeof(end) - 1), SEEK_END) == 0 &&
	         fread(tail, 1, sizeof(end) - 1, f) == sizeof(end) - 1 && !strcmp(tail, end);
	fclose(f);
	return ok;
}

static void rm_rf(const char *dir)
{
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

/*
 * 100 rounds of two runs (suites A and B) started together with the same
 * --report and --adapter junit= paths: both exit 0 every round, and what is
 * left is always one whole, valid report of one of them (A or B, never a
 * mix), the JUnit file too, and no temporary behind.
 */
void test_shared_report_path(void)
{
	char dir[64] = "/tmp/mg-faults-XXXXXX";
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	const char *a[] = {MEMGUARD_BIN,      "run", "-q",       "-j",          "1",
	                   "--suite",         "A",   "--report", "report.json", "--adapter",
	                   "junit=junit.xml", "--",  BENCH64,    NULL};
	const char *b[] = {MEMGUARD_BIN,      "run", "-q",       "-j",          "1",
	                   "--suite",         "B",   "--report", "report.json", "--adapter",
	                   "junit=junit.xml", "--",  BENCH64,    NULL};
	int bad_exit = 0, bad_json = 0, bad_junit = 0, left = 0, seen_a = 0, seen_b = 0;
	char path[128];
	for (int r = 0; r < ROUNDS; r++) {
		pid_t pa = start(dir, "a", a), pb = start(dir, "b", b);
		bad_exit += exit_code(pa) != 0;
		bad_exit += exit_code(pb) != 0;
		snprintf(path, sizeof(path), "%s/report.json", dir);
		json_error_t je;
		json_t *rep = json_load_file(path, 0, &je);
		/* every shard of a run carries its suite */
		const char *suite = json_string_value(
		    json_object_get(json_array_get(json_object_get(rep, "shards"), 0), "suite"));
		size_t i;
		json_t *sh;
		json_array_foreach(json_object_get(rep, "shards"), i,
		                   sh) if (!suite ||
		                           strcmp(json_string_value(json_object_get(sh, "suite")),
		                                  suite)) suite = "mixed";
		if (suite && !strcmp(suite, "A"))
			seen_a++;
		else if (suite && !strcmp(suite, "B"))
			seen_b++;
		else
			bad_json++;
		json_decref(rep);
		/* the JUnit file: one whole document (its root element closed at its end) */
		snprintf(path, sizeof(path), "%s/junit.xml", dir);
		bad_junit += !junit_whole(path);
		left +=
		    count_prefixed(dir, "report.json.tmp") + count_prefixed(dir, "junit.xml.tmp");
	}
	fprintf(stderr, "\n  %d rounds: report of A %d, of B %d\n", ROUNDS, seen_a, seen_b);
	CU_ASSERT_EQUAL(bad_exit, 0);
	CU_ASSERT_EQUAL(bad_json, 0);
	CU_ASSERT_EQUAL(seen_a + seen_b, ROUNDS);
	CU_ASSERT_EQUAL(bad_junit, 0);
	CU_ASSERT_EQUAL(left, 0);
	rm_rf(dir);
}

/*
 * Symlinks planted where a temporary could be looked for (PATH.tmp, and the
 * name of this very process' next temporary cannot be guessed): their
 * targets are never written, and the report and JUnit file are regular
 * files afterwards.
 */
void test_tmp_symlink_not_followed(void)
{
	char dir[64] = "/tmp/mg-faults-XXXXXX";
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	char victim[128], link[160];
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	FILE *v = fopen(victim, "w");
	CU_ASSERT_FATAL(v != NULL);
	fputs("untouched\n", v);
	fclose(v);
	const char *names[] = {"report.json.tmp", "junit.xml.tmp", "report.json.tmp.1",
	                       "junit.xml.tmp.1"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(link, sizeof(link), "%s/%s", dir, names[i]);
		CU_ASSERT_FATAL(symlink(victim, link) == 0);
	}
	const char *argv[] = {
	    MEMGUARD_BIN,      "run", "-q",    "--report", "report.json", "--adapter",
	    "junit=junit.xml", "--",  BENCH64, NULL};
	CU_ASSERT_EQUAL(exit_code(start(dir, "run", argv)), 0);
	char buf[64] = {0};
	v = fopen(victim, "r");
	CU_ASSERT_FATAL(v != NULL);
	CU_ASSERT(fgets(buf, sizeof(buf), v) != NULL);
	fclose(v);
	CU_ASSERT_STRING_EQUAL(buf, "untouched\n");
	struct stat st;
	snprintf(link, sizeof(link), "%s/report.json", dir);
	CU_ASSERT(lstat(link, &st) == 0 && S_ISREG(st.st_mode));
	snprintf(link, sizeof(link), "%s/junit.xml", dir);
	CU_ASSERT(lstat(link, &st) == 0 && S_ISREG(st.st_mode));
	/* the planted links are still there, and no temporary of ours is */
	CU_ASSERT_EQUAL(count_prefixed(dir, "report.json.tmp"), 2);
	CU_ASSERT_EQUAL(count_prefixed(dir, "junit.xml.tmp"), 2);
	rm_rf(dir);
}

static const mg_case cases[] = {
    {"shared_report_path", test_shared_report_path},
    {"tmp_symlink_not_followed", test_tmp_symlink_not_followed},
};

int main(int argc, char **argv)
{
	return mg_test_main("faults", cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}

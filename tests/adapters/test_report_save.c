/*
 * test_report_save.c - saving a report atomically: failures keep the old
 * file, no symlink followed, concurrent writers, FIFOs and devices.
 */
#include "adapters.h"
#include "fixture.h"
#include "mg_test.h"
#include "report.h"
#include "test_report.h"
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

void test_save_no_dir(void)
{
	report *r = fixture_full_report();
	mg_err err = {{0}};
	CU_ASSERT(report_save(r, "/nonexistent/memguard/dir/r.json", &err) < 0);
	CU_ASSERT(err.msg[0] != '\0');
	CU_ASSERT(!file_exists("/nonexistent/memguard/dir/r.json.tmp"));
	report_free(r);
}

/* The names in tmpdir other than . and .. (a temporary left behind shows). */
static int tmpdir_entries(void)
{
	DIR *d = opendir(tmpdir);
	int n = 0;
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	for (struct dirent *e; (e = readdir(d)) != NULL;)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/* A save that fails (here: the temporary's name is too long for the file
 * system, even for root) leaves the previous file byte for byte intact. */
void test_save_failure_keeps_old(void)
{
	make_tmpdir();
	char path[512], name[256];
	memset(name, 'r', 240);
	name[240] = '\0';
	path_in(path, sizeof(path), name);
	CU_ASSERT_FATAL(write_file(path, "previous\n") == 0);
	report *r = fixture_full_report();
	mg_err err = {{0}};
	CU_ASSERT(report_save(r, path, &err) < 0);
	/* the message names the file asked for, not the temporary */
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, path));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "cannot create a temporary file beside it"));
	CU_ASSERT_PTR_NULL(strstr(err.msg, ".tmp."));
	FILE *f = fopen(path, "r");
	char buf[64] = "";
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_PTR_NOT_NULL(fgets(buf, sizeof(buf), f));
	fclose(f);
	CU_ASSERT_STRING_EQUAL(buf, "previous\n");
	CU_ASSERT_EQUAL(tmpdir_entries(), 1);
	/* a save that can succeed replaces a file, leaving no temporary */
	path_in(path, sizeof(path), "r.json");
	CU_ASSERT_FATAL(write_file(path, "previous\n") == 0);
	CU_ASSERT_EQUAL(report_save(r, path, &err), 0);
	CU_ASSERT_EQUAL(tmpdir_entries(), 2);
	report *back = NULL;
	CU_ASSERT_EQUAL(report_load(&back, path, &err), 0);
	report_free(back);
	report_free(r);
	cleanup_tmpdir();
}

/* A symlink planted at the old fixed temporary name (PATH.tmp) is never
 * written through: not by the report, not by an adapter's output. */
void test_save_symlink_tmp(void)
{
	make_tmpdir();
	char path[512], tmp[600], victim[512], spec[700];
	path_in(victim, sizeof(victim), "victim");
	CU_ASSERT_FATAL(write_file(victim, "victim\n") == 0);
	const char *const targets[] = {"r.json", "console.txt"};
	for (int i = 0; i < 2; i++) {
		path_in(path, sizeof(path), targets[i]);
		snprintf(tmp, sizeof(tmp), "%s.tmp", path);
		CU_ASSERT_FATAL(symlink(victim, tmp) == 0);
		report *r = fixture_full_report();
		mg_err err = {{0}};
		snprintf(spec, sizeof(spec), "console=%s", path);
		CU_ASSERT_EQUAL(
		    i == 0 ? report_save(r, path, &err) : adapters_render(r, spec, &err), 0);
		report_free(r);
		char *text = slurp_text(victim);
		CU_ASSERT_PTR_NOT_NULL_FATAL(text);
		CU_ASSERT_STRING_EQUAL(text, "victim\n");
		free(text);
		struct stat st;
		CU_ASSERT(lstat(tmp, &st) == 0 && S_ISLNK(st.st_mode));
		CU_ASSERT(lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 100);
	}
	CU_ASSERT_EQUAL(tmpdir_entries(), 5); /* victim, two targets, two links */
	cleanup_tmpdir();
}

/* Processes saving the same path at once: every save succeeds and the file
 * is always one whole report (a shared temporary name made one process's
 * rename fail and could interleave two reports). */
void test_save_concurrent(void)
{
	enum { WRITERS = 4, SAVES = 200 };
	make_tmpdir();
	char path[512];
	path_in(path, sizeof(path), "r.json");
	pid_t pids[WRITERS];
	for (int w = 0; w < WRITERS; w++) {
		pids[w] = fork();
		CU_ASSERT_FATAL(pids[w] >= 0);
		if (pids[w] == 0) {
			report *r = fixture_full_report();
			for (int k = 0; k < w; k++) /* a different size per writer */
				report_shard_add_test(&r->shards[0])->name = report_strdup("x/pad");
			report_finish(r, REPORT_MAX_SUSPECTS);
			int bad = 0;
			for (int i = 0; i < SAVES; i++) {
				mg_err err = {{0}};
				if (report_save(r, path, &err) != 0) {
					if (!bad)
						fprintf(stderr, "writer %d: %s\n", w, err.msg);
					bad++;
				}
			}
			_exit(bad ? 1 : 0);
		}
	}
	for (int w = 0; w < WRITERS; w++) {
		int status = 0;
		CU_ASSERT_EQUAL(waitpid(pids[w], &status, 0), pids[w]);
		CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	report *back = NULL;
	mg_err err = {{0}};
	CU_ASSERT_EQUAL(report_load(&back, path, &err), 0);
	CU_ASSERT(back && back->nshards > 0);
	report_free(back);
	CU_ASSERT_EQUAL(tmpdir_entries(), 1);
	cleanup_tmpdir();
}

/* A FIFO is refused, not opened (an open would block until a reader came):
 * an error naming it, at once, with no reader; it is still a FIFO after. */
void test_save_to_fifo(void)
{
	make_tmpdir();
	char path[512];
	path_in(path, sizeof(path), "fifo");
	CU_ASSERT_FATAL(mkfifo(path, 0600) == 0);
	report *r = fixture_full_report();
	mg_err err = {{0}};
	CU_ASSERT_EQUAL(report_save(r, path, &err), MG_ERROR);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, path));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "a FIFO, not a regular file"));
	report_free(r);
	struct stat st;
	CU_ASSERT(lstat(path, &st) == 0 && S_ISFIFO(st.st_mode));
	CU_ASSERT_EQUAL(tmpdir_entries(), 1);
	cleanup_tmpdir();
}

/* Writing to /dev/null (or any non-regular file) writes to it: the
 * atomic rename must never replace a device with a file. */
void test_save_to_device(void)
{
	report *r = report_new();
	mg_err err = {{0}};
	struct stat st;
	CU_ASSERT_EQUAL(report_save(r, "/dev/null", &err), 0);
	CU_ASSERT_EQUAL(adapters_render(r, "console=/dev/null", &err), 0);
	CU_ASSERT_EQUAL(adapters_render(r, "junit=/dev/null", &err), 0);
	CU_ASSERT_EQUAL_FATAL(stat("/dev/null", &st), 0);
	CU_ASSERT(S_ISCHR(st.st_mode));
	CU_ASSERT_NOT_EQUAL(access("/dev/null.tmp", F_OK), 0);
	report_free(r);
}

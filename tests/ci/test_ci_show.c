/*
 * test_ci_show.c - show's errors: no note, a corrupt or foreign note.
 */
#include "adapters.h"
#include "ci.h"
#include "ci_int.h"
#include "mg_test.h"
#include "test_ci.h"
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <git2.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

void show_missing(void)
{
	const char *dir = setup();
	const char *rd = path_in(dir, "repo");
	git_repository *repo = mk_repo(rd);
	git_oid c[1];
	char sh7[16];
	commits(repo, 1, c);
	run *r = run_in(rd, "show", NULL);
	CU_ASSERT_EQUAL(r->rc, 1);
	short_of(sh7, &c[0]);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->err, "no memguard note on"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->err, sh7));
	CU_ASSERT_EQUAL(run_in(rd, "show", "nosuchrev", NULL)->rc, 2);
	CU_ASSERT_EQUAL(run_in(dir, "show", NULL)->rc, 3); /* not a repository */
	git_repository_free(repo);
	cleanup();
}

static void corrupt_case(const char *content)
{
	const char *dir = setup();
	const char *rd = path_in(dir, "repo");
	git_repository *repo = mk_repo(rd);
	git_oid c[2], note_id;
	git_signature *sig = NULL;
	char sh7[16];
	commits(repo, 2, c);
	git_signature_now(&sig, "Test", "test@example.com");
	CU_ASSERT_FATAL(git_note_create(&note_id, repo, REF, sig, sig, &c[0], content, 0) == 0);
	git_signature_free(sig);
	short_of(sh7, &c[0]);
	run *r = run_in(rd, "show", "HEAD~1", NULL);
	CU_ASSERT_EQUAL(r->rc, 3);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->err, sh7));
	/* compare and log say the same; note refuses to merge into it. */
	const char *rep = save_report(mk_report(1, "x64", "s", 0, GIB, MIB, 0, 0), dir, "m.json");
	CU_ASSERT_EQUAL(run_in(rd, "note", "--commit", "HEAD", rep, NULL)->rc, 0);
	r = run_in(rd, "compare", "HEAD~1", "HEAD", NULL);
	CU_ASSERT_EQUAL(r->rc, 3);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->err, sh7));
	r = run_in(rd, "log", NULL);
	CU_ASSERT_EQUAL(r->rc, 3);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->err, sh7));
	/* note leaves the note that is not a report as it is, naming the commit. */
	r = run_in(rd, "note", "--commit", "HEAD~1", rep, NULL);
	CU_ASSERT_EQUAL(r->rc, 3);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->err, sh7));
	CU_ASSERT_PTR_NULL(strstr(r->err, "(null)"));
	git_note *gn = NULL;
	CU_ASSERT_FATAL(git_note_read(&gn, repo, REF, &c[0]) == 0);
	CU_ASSERT_STRING_EQUAL(git_note_message(gn), content);
	git_note_free(gn);
	CU_ASSERT_EQUAL(run_in(rd, "show", "HEAD~1", NULL)->rc, 3);
	git_repository_free(repo);
	cleanup();
}

void show_corrupt_json(void)
{
	corrupt_case("this is not JSON\n");
}

void show_corrupt_schema(void)
{
	corrupt_case("{\"schema\": \"someone-else/2\", \"shards\": []}\n");
}

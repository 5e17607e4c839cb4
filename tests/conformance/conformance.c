/*
 * conformance.c - one real program nobody here wrote (GoogleTest's own
 * tests, built from Debian's sources), run directly and under memguard:
 * per test, the state memguard reports must be the framework's own (from
 * its --gtest_output=xml), and the two exit codes must agree (0 and 0, or
 * a failure and 1 or 3); under gtest the run is given --gtest_output=xml
 * too, and the file memguard writes must hold each test GoogleTest's own
 * holds, in its state. Prints each disagreement; exits 1 on any.
 *
 *   conformance gtest PROGRAM LANES [RECYCLE_VA]   the gtest driver
 *   conformance catch2 PROGRAM LANES RECYCLE_VA|0 [SPEC...]   the catch2
 *       driver on a Catch2 program run with those test specs (its own
 *       --reporter xml is the framework's verdict)
 *   conformance ctest CTEST DIR LANES              the ctest driver over a
 *       CTest directory whose tests are such programs: each test's state
 *       must be its program's direct verdict
 */
#include "mg_x86.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* One test: its name as memguard names it, the framework's state. */
typedef struct expect {
	char *name;
	const char *state;
} expect;

static expect *want;
static size_t nwant, capwant;
static int disagreements;

/* A name GoogleTest ran before in this program (two fixtures of one name
 * register one test name twice): memguard reports its nth run as
 * "NAME#n" when it fails, and nothing more when it passes. */
static void want_add(const char *name, const char *state);

static void want_add_gtest(const char *name, const char *state)
{
	unsigned nth = 1;
	for (size_t k = 0; k < nwant; k++)
		if (!strcmp(want[k].name, name))
			nth++;
	if (nth == 1) {
		want_add(name, state);
		return;
	}
	if (strcmp(state, "fail"))
		return;
	char again[8300];
	snprintf(again, sizeof(again), "%s#%u", name, nth);
	want_add(again, state);
}

static void want_add(const char *name, const char *state)
{
	if (nwant == capwant) {
		capwant = capwant ? 2 * capwant : 256;
		want = realloc(want, capwant * sizeof(*want));
		if (!want)
			abort();
	}
	want[nwant].name = strdup(name);
	want[nwant++].state = state;
}

/* Runs argv with stdout and stderr into DIR/NAME.out; its wait status. */
static int run(char *const argv[], const char *dir, const char *name)
{
	char out[4096];
	snprintf(out, sizeof(out), "%s/%s.out", dir, name);
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0 || chdir(dir) < 0)
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return st;
}

/* The attribute's value, a copy the caller frees with xmlFree; NULL: none. */
static char *attr(xmlNode *n, const char *name)
{
	return (char *)xmlGetProp(n, (const xmlChar *)name);
}

/* GoogleTest's XML: <testcase classname= name= status= result=> with
 * <failure>/<skipped> children. A test that did not run (DISABLED_) is
 * status="notrun": memguard reports it as skip. */
static int load_gtest_xml(const char *path)
{
	xmlDoc *doc = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_HUGE);
	if (!doc) {
		fprintf(stderr, "conformance: cannot read %s\n", path);
		return -1;
	}
	for (xmlNode *ts = xmlDocGetRootElement(doc)->children; ts; ts = ts->next) {
		if (ts->type != XML_ELEMENT_NODE || strcmp((const char *)ts->name, "testsuite"))
			continue;
		for (xmlNode *tc = ts->children; tc; tc = tc->next) {
			if (tc->type != XML_ELEMENT_NODE ||
			    strcmp((const char *)tc->name, "testcase"))
				continue;
			char *cls = attr(tc, "classname"), *nm = attr(tc, "name");
			char *status = attr(tc, "status"), *result = attr(tc, "result");
			const char *state = "pass";
			for (xmlNode *c = tc->children; c; c = c->next)
				if (c->type == XML_ELEMENT_NODE &&
				    !strcmp((const char *)c->name, "failure"))
					state = "fail";
			if (strcmp(state, "fail") && ((status && !strcmp(status, "notrun")) ||
			                              (result && !strcmp(result, "skipped"))))
				state = "skip";
			if (cls && nm) {
				char name[8192];
				/* a failure outside every test suite (a global environment's):
				 * GoogleTest's "NonTestSuiteFailure", memguard's entry of that name
				 */
				char *suite = attr(ts, "name");
				if (!*cls && !*nm && suite && !strcmp(suite, "NonTestSuiteFailure"))
					snprintf(name, sizeof(name), "<global environment>");
				else
					snprintf(name, sizeof(name), "%s.%s", cls, nm);
				want_add_gtest(name, state);
				xmlFree(suite);
			}
			xmlFree(cls);
			xmlFree(nm);
			xmlFree(status);
			xmlFree(result);
		}
	}
	xmlFreeDoc(doc);
	return 0;
}

/* 1 when a test case's element holds a failed assertion (a false
 * Expression, a Failure, an Exception), at any depth (its sections). */
static int c2_assert_failed(xmlNode *n)
{
	for (xmlNode *c = n->children; c; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		const char *nm = (const char *)c->name;
		if (!strcmp(nm, "Failure") || !strcmp(nm, "Exception"))
			return 1;
		if (!strcmp(nm, "Expression")) {
			char *ok = attr(c, "success");
			int bad = ok && !strcmp(ok, "false");
			xmlFree(ok);
			if (bad)
				return 1;
		}
		if (c2_assert_failed(c))
			return 1;
	}
	return 0;
}

/* One <TestCase> of Catch2's XML reporter: as Catch2 counts a test case
 * (Totals::delta): its OverallResult success false is fail; true with
 * skips (v3's SKIP()) and no failed assertion is skip (a failed one makes
 * it "failed as expected" under [!shouldfail]/[!mayfail]); else pass. */
static void c2_case(xmlNode *tc, size_t *skips)
{
	char *nm = attr(tc, "name");
	const char *state = "fail";
	for (xmlNode *c = tc->children; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE &&
		    !strcmp((const char *)c->name, "OverallResult")) {
			char *ok = attr(c, "success"), *sk = attr(c, "skips");
			if (ok && !strcmp(ok, "true"))
				state = sk && strcmp(sk, "0") && !c2_assert_failed(tc) ? "skip"
				                                                       : "pass";
			xmlFree(ok);
			xmlFree(sk);
		}
	*skips += !strcmp(state, "skip");
	if (nm) /* v3: two test cases of one name, told apart by their tags */
		want_add_gtest(nm, state);
	xmlFree(nm);
}

/* Catch2's XML reporter: v2's <Catch><Group><TestCase name=...>, v3's
 * <Catch2TestRun><TestCase ...>. The skips counted must be v3's own
 * total (<OverallResultsCases skips=...>), so this reading is Catch2's. */
static int load_catch2_xml(const char *path)
{
	xmlDoc *doc = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_HUGE);
	size_t skips = 0;
	long total = -1;
	if (!doc) {
		fprintf(stderr, "conformance: cannot read %s\n", path);
		return -1;
	}
	for (xmlNode *gr = xmlDocGetRootElement(doc)->children; gr; gr = gr->next) {
		if (gr->type != XML_ELEMENT_NODE)
			continue;
		if (!strcmp((const char *)gr->name, "TestCase"))
			c2_case(gr, &skips);
		if (!strcmp((const char *)gr->name, "OverallResultsCases")) {
			char *sk = attr(gr, "skips");
			total = sk ? atol(sk) : -1;
			xmlFree(sk);
		}
		if (strcmp((const char *)gr->name, "Group"))
			continue;
		for (xmlNode *tc = gr->children; tc; tc = tc->next)
			if (tc->type == XML_ELEMENT_NODE &&
			    !strcmp((const char *)tc->name, "TestCase"))
				c2_case(tc, &skips);
	}
	xmlFreeDoc(doc);
	if (total >= 0 && (size_t)total != skips) {
		fprintf(stderr,
		        "conformance: %s: %zu test cases read as skipped, Catch2 says %ld\n", path,
		        skips, total);
		return -1;
	}
	return 0;
}

/* The report's tests (the /2 layout has short keys: "n" name, "s" state
 * with "pass" left out; /1 has "name" and "state"). */
static const char *test_state(json_t *t, const char **name)
{
	json_t *n = json_object_get(t, "name"), *s = json_object_get(t, "state");
	if (!n)
		n = json_object_get(t, "n");
	if (!s)
		s = json_object_get(t, "s");
	*name = json_string_value(n);
	return s ? json_string_value(s) : "pass";
}

static json_t *report_tests(json_t *report)
{
	json_t *all = json_array(), *s;
	size_t i;
	json_array_foreach(json_object_get(report, "shards"), i, s)
	    json_array_extend(all, json_object_get(s, "tests"));
	return all;
}

/* Catch2's corpus: a '#' is part of many test names, never memguard's. */
static int catch2_mode;

/* An entry memguard adds for a failure outside the listed tests. */
static int is_extra(const char *name)
{
	size_t n = strlen(name);
	if (catch2_mode)
		return name[0] == '<';
	return name[0] == '<' || strchr(name, '#') ||
	       (n > 15 && !strcmp(name + n - 15, ".SetUpTestSuite")) ||
	       (n > 18 && !strcmp(name + n - 18, ".TearDownTestSuite"));
}

static void disagree(const char *prog, const char *fmt, const char *a, const char *b, const char *c)
{
	fprintf(stderr, "DISAGREE %s: ", prog);
	fprintf(stderr, fmt, a, b, c);
	fputc('\n', stderr);
	disagreements++;
}

/* Every expected test has its state in the report, the report has nothing
 * else but entries for failures outside tests (only in a failed run). */
static void compare(const char *prog, json_t *report, int direct_failed)
{
	json_t *tests = report_tests(report), *t;
	size_t i, matched = 0;
	char *seen = calloc(nwant + 1, 1);
	json_array_foreach(tests, i, t)
	{
		const char *name, *st = test_state(t, &name);
		size_t k;
		for (k = 0; k < nwant && strcmp(want[k].name, name); k++)
			;
		if (k == nwant) {
			if (!is_extra(name) || !direct_failed)
				disagree(prog, "'%s' (%s%s) is not one of the framework's tests",
				         name, st, "");
			continue;
		}
		if (seen[k]++)
			disagree(prog, "'%s' is in the report twice%s%s", name, "", "");
		/* a test a global environment's GTEST_SKIP() kept from running:
		 * GoogleTest counts it passed, memguard says skip (and why) */
		const char *m = json_string_value(json_object_get(t, "message"));
		if (!m)
			m = json_string_value(json_object_get(t, "m"));
		int env_skip = !strcmp(st, "skip") && !strcmp(want[k].state, "pass") && m &&
		               strstr(m, "skipped by a global environment's set-up");
		if (strcmp(st, want[k].state) && !env_skip)
			disagree(prog, "'%s': memguard says %s, the framework %s", name, st,
			         want[k].state);
		matched++;
	}
	for (size_t k = 0; k < nwant; k++)
		if (!seen[k])
			disagree(prog, "'%s' (%s) is missing from the report%s", want[k].name,
			         want[k].state, "");
	free(seen);
	json_decref(tests);
	printf("%s: %zu tests, %zu compared\n", prog, nwant, matched);
}

/* The direct run's order: each test's first place in it. GoogleTest's
 * "[ RUN      ] NAME" lines (its XML lists suites in registration order
 * even when shuffled); Catch2's XML (want), written as it ran. */
static char **order;
static size_t norder;

static void order_add(const char *name, size_t n)
{
	order = realloc(order, (norder + 1) * sizeof(*order));
	if (!order || !(order[norder] = strndup(name, n)))
		abort();
	norder++;
}

static void order_from_gtest(const char *dir)
{
	char path[4096], line[8192];
	snprintf(path, sizeof(path), "%s/direct.out", dir);
	FILE *f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, "[ RUN      ] ");
		if (!p)
			continue;
		p += 13;
		order_add(p, strcspn(p, "\r\n"));
	}
	if (f)
		fclose(f);
}

static long order_of(const char *name)
{
	for (size_t i = 0; i < norder; i++)
		if (!strcmp(order[i], name))
			return (long)i;
	return -1;
}

/* Each program memguard started (a shard's generation) ran its tests in
 * the direct run's order (its shuffle, its seed, its --order). */
static void order_agrees(const char *prog, json_t *report)
{
	size_t i, k;
	json_t *s, *t;
	json_array_foreach(json_object_get(report, "shards"), i, s)
	{
		long prev = -1;
		json_int_t prev_gen = -1;
		const char *prev_name = "";
		json_array_foreach(json_object_get(s, "tests"), k, t)
		{
			const char *name;
			test_state(t, &name);
			json_t *g = json_object_get(t, "g");
			json_int_t gen =
			    json_integer_value(g ? g : json_object_get(t, "generation"));
			long pos = name ? order_of(name) : -1;
			if (pos < 0)
				continue;
			if (gen == prev_gen && pos < prev)
				disagree(prog,
				         "'%s' ran after '%s' in one program, %s the direct run",
				         name, prev_name, "before it in");
			prev = pos;
			prev_gen = gen;
			prev_name = name;
		}
	}
}

static json_t *load_report(const char *dir)
{
	char path[4096];
	json_error_t je;
	snprintf(path, sizeof(path), "%s/report.json", dir);
	json_t *r = json_load_file(path, 0, &je);
	if (!r)
		fprintf(stderr, "conformance: no report %s: %s\n", path, je.text);
	return r;
}

static int exit_code(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The file memguard wrote for the run's --gtest_output=xml (path): every
 * test of GoogleTest's own file (want) in it with GoogleTest's state (its
 * suite-level and global entries, named "." there, left out). */
static void user_xml_agrees(const char *prog, const char *path)
{
	expect *direct = want;
	size_t ndirect = nwant, capdirect = capwant;
	want = NULL;
	nwant = capwant = 0;
	if (load_gtest_xml(path) < 0)
		disagree(prog, "memguard wrote no --gtest_output file %s%s%s", path, "", "");
	for (size_t i = 0; i < ndirect; i++) {
		const char *dot = strchr(direct[i].name, '.');
		if (!dot || dot == direct[i].name || !dot[1] || direct[i].name[0] == '<')
			continue;
		size_t k;
		for (k = 0; k < nwant && strcmp(want[k].name, direct[i].name); k++)
			;
		if (k == nwant)
			disagree(prog, "'%s' is not in memguard's --gtest_output file%s%s",
			         direct[i].name, "", "");
		else if (strcmp(want[k].state, direct[i].state))
			disagree(prog,
			         "'%s': memguard's --gtest_output file says %s, GoogleTest's %s",
			         direct[i].name, want[k].state, direct[i].state);
	}
	for (size_t k = 0; k < nwant; k++)
		free(want[k].name);
	free(want);
	want = direct;
	nwant = ndirect;
	capwant = capdirect;
}

static void codes_agree(const char *prog, int direct, int under)
{
	char a[32], b[32];
	snprintf(a, sizeof(a), "%d", direct);
	snprintf(b, sizeof(b), "%d", under);
	/* memguard: 1 for a failed test, 3 for an error entry (a program's exit
	 * that no test explains, a test it listed but did not run) */
	if ((direct == 0) != (under == 0) || (under != 0 && under != 1 && under != 3))
		disagree(prog, "the program exits %s, memguard %s%s", a, b, "");
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/mg-conformance-XXXXXX", xml[4200], opt[4300];
	if (argc < 4 ||
	    (strcmp(argv[1], "gtest") && strcmp(argv[1], "ctest") && strcmp(argv[1], "catch2")) ||
	    (!strcmp(argv[1], "catch2") && (argc < 5 || argc > 40))) {
		fprintf(stderr, "usage: conformance gtest PROGRAM LANES [RECYCLE_VA] | "
		                "conformance catch2 PROGRAM LANES RECYCLE_VA|0 [SPEC...] | "
		                "conformance ctest CTEST DIR LANES\n");
		return 2;
	}
	if (mg_x86_refused(argv[2]))
		return 77;
	if (!mkdtemp(dir))
		return 3;
	/* The programs' temporary files go in this run's folder: GoogleTest's
	 * TempDir() is $TMPDIR, else /tmp/, and googletest-filepath-test's
	 * DirectoryCreationTest makes and removes TempDir()/PROGRAM_directory_
	 * creation/test/ there, so its __j1, __j2 and __recycle runs, which
	 * CTest runs at once, removed each other's folders (the direct run then
	 * failed and wrote no XML). */
	if (setenv("TMPDIR", dir, 1) != 0)
		return 3;
	int direct_code;
	json_t *report = NULL;
	const char *prog = argv[2];
	if (!strcmp(argv[1], "gtest")) {
		snprintf(xml, sizeof(xml), "%s/direct.xml", dir);
		snprintf(opt, sizeof(opt), "--gtest_output=xml:%s", xml);
		char *direct[] = {argv[2], opt, NULL};
		direct_code = exit_code(run(direct, dir, "direct"));
		if (load_gtest_xml(xml) < 0)
			return 3;
		order_from_gtest(dir);
		char recycle[64] = "";
		if (argc > 4)
			snprintf(recycle, sizeof(recycle), "va=%s", argv[4]);
		char *mg[16] = {MEMGUARD_BIN, "run",   "-j",       argv[3],
		                "--driver",   "gtest", "--report", "report.json"};
		char user[4200], user_opt[4300];
		int k = 8;
		snprintf(user, sizeof(user), "%s/memguard.xml", dir);
		snprintf(user_opt, sizeof(user_opt), "--gtest_output=xml:%s", user);
		if (argc > 4) {
			mg[k++] = "--recycle-at";
			mg[k++] = recycle;
		}
		mg[k++] = "--";
		mg[k++] = argv[2];
		mg[k++] = user_opt; /* the user's own XML file: memguard's, whole */
		mg[k] = NULL;
		int code = exit_code(run(mg, dir, "memguard"));
		codes_agree(prog, direct_code, code);
		user_xml_agrees(prog, user);
		report = load_report(dir);
	} else if (!strcmp(argv[1], "catch2")) {
		catch2_mode = 1;
		char *direct[48], *mg[64];
		int d = 0, k = 0;
		snprintf(xml, sizeof(xml), "%s/direct.xml", dir);
		direct[d++] = argv[2];
		for (int i = 5; i < argc; i++)
			direct[d++] = argv[i];
		direct[d++] = "--reporter";
		direct[d++] = "xml";
		direct[d++] = "--out";
		direct[d++] = xml;
		direct[d] = NULL;
		direct_code = exit_code(run(direct, dir, "direct"));
		if (load_catch2_xml(xml) < 0)
			return 3;
		for (size_t k = 0; k < nwant; k++)
			order_add(want[k].name, strlen(want[k].name));
		char recycle[64];
		snprintf(recycle, sizeof(recycle), "va=%s", argv[4]);
		char *head[] = {MEMGUARD_BIN, "run",    "-j",       argv[3],
		                "--driver",   "catch2", "--report", "report.json"};
		for (size_t i = 0; i < sizeof(head) / sizeof(head[0]); i++)
			mg[k++] = head[i];
		if (strcmp(argv[4], "0")) {
			mg[k++] = "--recycle-at";
			mg[k++] = recycle;
		}
		mg[k++] = "--";
		for (int i = 2; i < argc; i++)
			if (i == 2 || i >= 5)
				mg[k++] = argv[i];
		mg[k] = NULL;
		int code = exit_code(run(mg, dir, "memguard"));
		codes_agree(prog, direct_code, code);
		report = load_report(dir);
	} else {
		if (argc < 5)
			return 2;
		/* the framework's verdict of each CTest test: ctest's own run */
		char *direct[] = {argv[2], "--test-dir", argv[3], "--output-junit", xml, NULL};
		snprintf(xml, sizeof(xml), "%s/ctest.xml", dir);
		direct_code = exit_code(run(direct, dir, "direct"));
		xmlDoc *doc = xmlReadFile(xml, NULL, XML_PARSE_NONET);
		if (!doc)
			return 3;
		for (xmlNode *tc = xmlDocGetRootElement(doc)->children; tc; tc = tc->next) {
			if (tc->type != XML_ELEMENT_NODE ||
			    strcmp((const char *)tc->name, "testcase"))
				continue;
			char *st = attr(tc, "status"), *nm = attr(tc, "name");
			if (nm)
				want_add(nm, st && !strcmp(st, "run")        ? "pass"
				             : st && !strcmp(st, "disabled") ? "skip"
				             : st && !strcmp(st, "notrun")   ? "skip"
				                                             : "fail");
			xmlFree(st);
			xmlFree(nm);
		}
		xmlFreeDoc(doc);
		char *mg[] = {MEMGUARD_BIN, "run",         "-j", argv[4],
		              "--report",   "report.json", "--", argv[2],
		              "--test-dir", argv[3],       NULL};
		int code = exit_code(run(mg, dir, "memguard"));
		codes_agree(prog, direct_code, code);
		report = load_report(dir);
		prog = argv[3];
	}
	if (!report)
		return 1;
	compare(prog, report, direct_code != 0);
	order_agrees(prog, report);
	json_decref(report);
	if (disagreements) {
		fprintf(stderr, "conformance: %d disagreement(s); outputs kept in %s\n",
		        disagreements, dir);
		return 1;
	}
	char rm[200];
	snprintf(rm, sizeof(rm), "rm -rf '%s'", dir);
	if (system(rm) != 0)
		fprintf(stderr, "conformance: could not remove %s\n", dir);
	printf("all states equal, exit codes agree (the program exits %d)\n", direct_code);
	return 0;
}

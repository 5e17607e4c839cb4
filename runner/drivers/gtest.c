/*
 * gtest.c - the GoogleTest driver: lists with --gtest_list_tests, runs the
 * queued run lines as one batch (--gtest_filter=A:B:C) and follows the
 * "[ RUN      ]" / "[       OK ]" / "[  FAILED  ]" / "[  SKIPPED ]" lines
 * to know which test runs. Never hides gtest's lines (no --gtest_brief) and
 * keeps the user's GTEST_* settings except those that would reorder,
 * repeat, colour or hide the lines it follows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "shim.h"

/* An argv element is limited to 128 KiB (MAX_ARG_STRLEN): keep the filter below. */
#define FILTER_MAX (120 * 1024)
#define FAIL_TEXT  (8 * 1024)

typedef struct gtest {
	shim_names *list; /* NULL until listed; gives each name its gtest order */
	size_t batch;     /* queue entries (from the head) the running program was given */
	int started_any;  /* a test of this batch has started */
	int summary;      /* past "[==========] N tests ... ran.": the rest is gtest's recap */
	char text[FAIL_TEXT];
	size_t text_len; /* the running test's output: a failure's message */
} gtest;

size_t gtest_parse_list(const char *buf, size_t len,
                        void (*add)(void *ctx, const char *name, size_t n), void *ctx)
{
	char name[4096];
	size_t suite = 0, count = 0; /* suite: its length in name, 0 when none */
	const char *end = buf + len;
	for (const char *p = buf; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		const char *q = p;
		int indented = *q == ' ';
		while (q < e && *q == ' ')
			q++;
		/* the comment after two spaces: "  # GetParam() = 3", "  # TypeParam = int" */
		const char *c = q;
		while (c < e && !(c + 1 < e && c[0] == ' ' && c[1] == ' ') && *c != '#')
			c++;
		while (c > q && (c[-1] == ' ' || c[-1] == '\r'))
			c--;
		size_t n = (size_t)(c - q);
		if (!indented) {
			/* a suite line ends with '.'; anything else (a banner) is not one */
			suite = n && q[n - 1] == '.' && n < sizeof(name) ? n : 0;
			if (suite)
				memcpy(name, q, n);
		} else if (suite && n && suite + n < sizeof(name)) {
			memcpy(name + suite, q, n);
			add(ctx, name, suite + n);
			count++;
		}
		p = nl ? nl + 1 : end;
	}
	return count;
}

int gtest_match(const char *line, size_t len, const char *tag, const char **name, size_t *n)
{
	size_t tl = strlen(tag);
	if (len < tl + 2 || memcmp(line, tag, tl) || line[tl] != ' ')
		return 0;
	const char *p = line + tl + 1, *e = line + len, *q = p;
	while (q < e && *q != ' ' && *q != ',')
		q++;
	if (q == p)
		return 0;
	if (q < e && !(e - q >= 2 && q[0] == ' ' && q[1] == '(') &&
	    !(e - q >= 7 && !memcmp(q, ", where", 7)))
		return 0;
	*name = p;
	*n = (size_t)(q - p);
	return 1;
}

static void add_name(void *ctx, const char *name, size_t n)
{
	shim_names_add(ctx, name, n);
}

/* Runs PROG --gtest_list_tests into g->list. -1 after a message on stderr. */
static int load_list(shim *s, gtest *g)
{
	int ncmd, status;
	char **cmd = shim_cmd(s, &ncmd);
	char **argv = calloc((size_t)ncmd + 2, sizeof(char *));
	char *out = NULL;
	size_t len = 0;
	int rc = -1;
	if (!argv)
		return -1;
	memcpy(argv, cmd, (size_t)ncmd * sizeof(char *));
	argv[ncmd] = "--gtest_list_tests";
	if (shim_capture(s, argv, &out, &len, &status) < 0)
		goto out;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "memguard: '%s --gtest_list_tests' %s %d\n", cmd[0],
		        WIFEXITED(status) ? "exited with status" : "was killed by signal",
		        WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		goto out;
	}
	shim_names_free(g->list);
	g->list = shim_names_new();
	gtest_parse_list(out, len, add_name, g->list);
	rc = 0;
out:
	free(out);
	free(argv);
	return rc;
}

static int g_list(shim *s)
{
	gtest *g = shim_ctx(s);
	if (load_list(s, g) < 0)
		return -1;
	for (size_t i = 0; i < shim_names_count(g->list); i++) {
		size_t n;
		const char *name = shim_names_at(g->list, i, &n);
		shim_test(s, name, n);
	}
	return 0;
}

/* A result for the head, which belongs to the batch. May not return (quit, recycle). */
static void g_result(shim *s, gtest *g, mg_msg_kind kind, const char *msg, size_t len)
{
	if (g->batch)
		g->batch--;
	shim_result(s, kind, msg, len);
}

static void not_run(shim *s, gtest *g)
{
	size_t n;
	const char *name = shim_queue_name(s, 0, &n);
	static const char disabled[] = "disabled (GoogleTest runs it with "
	                               "--gtest_also_run_disabled_tests)";
	static const char other[] = "GoogleTest did not run it";
	shim_start(s);
	if (strstr(name, "DISABLED_"))
		g_result(s, g, MG_MSG_SKIP, disabled, sizeof(disabled) - 1);
	else
		g_result(s, g, MG_MSG_SKIP, other, sizeof(other) - 1);
}

static void g_begin(shim *s)
{
	gtest *g = shim_ctx(s);
	size_t n;
	const char *name = shim_queue_name(s, 0, &n);
	if (!g->list && load_list(s, g) < 0) {
		shim_start(s);
		shim_resultf(s, MG_MSG_FAIL, "cannot list the program's tests");
		return;
	}
	/* The batch: queued names in gtest's own order, so its run order is ours. */
	size_t k, flen = 0;
	long prev = -1;
	for (k = 0; k < shim_queued(s); k++) {
		name = shim_queue_name(s, k, &n);
		long idx = shim_names_find(g->list, name, n);
		if (idx < 0 && k == 0) {
			shim_start(s);
			shim_resultf(s, MG_MSG_FAIL, "unknown test '%.1000s'", name);
			return;
		}
		if (idx <= prev || flen + n + 1 > FILTER_MAX)
			break;
		prev = idx;
		flen += n + 1;
	}
	int ncmd;
	char **cmd = shim_cmd(s, &ncmd);
	char **argv = calloc((size_t)ncmd + 2, sizeof(char *));
	char *filter = malloc(flen + 16);
	if (!argv || !filter) {
		free(argv);
		free(filter);
		shim_start(s);
		shim_resultf(s, MG_MSG_FAIL, "out of memory");
		return;
	}
	char *p = filter + sprintf(filter, "--gtest_filter=");
	for (size_t i = 0; i < k; i++) {
		name = shim_queue_name(s, i, &n);
		memcpy(p, name, n);
		p += n;
		*p++ = i + 1 < k ? ':' : 0;
	}
	memcpy(argv, cmd, (size_t)ncmd * sizeof(char *));
	argv[ncmd] = filter;
	g->batch = k;
	g->started_any = 0;
	g->summary = 0;
	g->text_len = 0;
	int rc = shim_spawn(s, argv, 1);
	free(filter);
	free(argv);
	if (rc < 0) {
		g->batch = 0;
		shim_start(s);
		shim_resultf(s, MG_MSG_FAIL, "cannot start %s", cmd[0]);
	}
}

static int head_is(shim *s, const char *name, size_t n)
{
	size_t hn;
	const char *h;
	if (!shim_queued(s))
		return 0;
	h = shim_queue_name(s, 0, &hn);
	return hn == n && !memcmp(h, name, n);
}

static void on_run(shim *s, gtest *g, const char *name, size_t n)
{
	size_t k;
	if (shim_head_started(s))
		return; /* not a line gtest writes mid-test; leave the head to its result */
	for (k = 0; k < g->batch; k++) {
		size_t qn;
		const char *q = shim_queue_name(s, k, &qn);
		if (qn == n && !memcmp(q, name, n))
			break;
	}
	if (k == g->batch)
		return;
	/* gtest runs in list order: what it passed over, it will not run */
	while (k--)
		not_run(s, g);
	shim_start(s);
	g->started_any = 1;
	g->text_len = 0;
}

/* Where a gtest tag ("[ RUN      ]", "[       OK ]", ...) starts in line:
 * a test that printed without a final newline leaves its output in front
 * of gtest's next line. len when there is none. */
static size_t tag_at(const char *line, size_t len)
{
	static const char *const tags[] = {"[ RUN      ]", "[       OK ]", "[  FAILED  ]",
	                                   "[  SKIPPED ]"};
	size_t best = len;
	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		const char *hit = memmem(line, len, tags[i], 12);
		if (hit && (size_t)(hit - line) < best)
			best = (size_t)(hit - line);
	}
	return best;
}

static void g_line(shim *s, char *line, size_t len);

/* The running test's output, kept for a failure's message; nl: the line
 * ended there (a prefix cut off a gtest tag did not). */
static void g_output(shim *s, gtest *g, const char *line, size_t len, int nl)
{
	if (shim_head_started(s)) {
		size_t room = sizeof(g->text) - g->text_len;
		size_t take = len + (size_t)nl < room ? len + (size_t)nl : room;
		if (take) {
			memcpy(g->text + g->text_len, line, take - (size_t)nl);
			if (nl)
				g->text[g->text_len + take - 1] = '\n';
			g->text_len += take;
		}
	}
	shim_output(s, line, len);
	if (nl)
		shim_output(s, "\n", 1);
}

static void g_line(shim *s, char *line, size_t len)
{
	gtest *g = shim_ctx(s);
	size_t cut = len && line[0] != '[' ? tag_at(line, len) : len;
	if (cut && cut < len && !g->summary) {
		g_output(s, g, line, cut, 0);
		g_line(s, line + cut, len - cut);
		return;
	}
	const char *name;
	size_t n;
	if (g->summary)
		return;
	if (len >= 12 && line[0] == '[' && line[11] == ']') {
		if (gtest_match(line, len, "[ RUN      ]", &name, &n)) {
			on_run(s, g, name, n);
		} else if (gtest_match(line, len, "[       OK ]", &name, &n)) {
			if (shim_head_started(s) && head_is(s, name, n))
				g_result(s, g, MG_MSG_PASS, NULL, 0);
		} else if (gtest_match(line, len, "[  FAILED  ]", &name, &n)) {
			if (shim_head_started(s) && head_is(s, name, n))
				g_result(s, g, MG_MSG_FAIL, g->text, g->text_len);
		} else if (gtest_match(line, len, "[  SKIPPED ]", &name, &n)) {
			if (shim_head_started(s) && head_is(s, name, n))
				g_result(s, g, MG_MSG_SKIP, g->text, g->text_len);
		} else if (!strncmp(line, "[==========]", 12) && strstr(line, " ran.")) {
			g->summary = 1;
		}
		return; /* gtest's own framing: the report says it better */
	}
	if (!strncmp(line, "Note: Google Test filter = ", 27) || (!len && !shim_head_started(s)))
		return; /* the filter we gave, and the blank lines between suites */
	g_output(s, g, line, len, 1);
}

static void g_exited(shim *s, int status, const struct rusage *ru)
{
	gtest *g = shim_ctx(s);
	char **cmd = shim_cmd(s, NULL);
	(void)ru;
	if (shim_head_started(s)) {
		/* it died mid-test: that test's crash (mirrored), or its exit */
		if (WIFSIGNALED(status))
			shim_die_of(s, WTERMSIG(status));
		shim_resultf(s, MG_MSG_FAIL, "%.*s%s exited with status %d during the test",
		             (int)g->text_len, g->text, cmd[0], WEXITSTATUS(status));
		if (g->batch)
			g->batch--;
	}
	if (!g->batch)
		return;
	if (WIFSIGNALED(status) && !g->summary) {
		/* between tests or before the first: the next test is the one it hit
		 * (after gtest's summary line it died on its way out: the tests left
		 * in the batch were never going to run, DISABLED_ ones say) */
		shim_start(s);
		shim_die_of(s, WTERMSIG(status));
	}
	if (!g->started_any && WEXITSTATUS(status) != 0) {
		shim_start(s);
		g->batch--;
		shim_resultf(s, MG_MSG_FAIL, "%s exited with status %d before running the test",
		             cmd[0], WEXITSTATUS(status));
		g->batch = 0; /* the rest run in a fresh batch, one failure at a time */
		return;
	}
	while (g->batch)
		not_run(s, g);
}

/* The lines followed here, plainly, once, in gtest's order; the rest of the
 * user's GTEST_* environment is kept. */
static const char *const gtest_env[] = {
    "GTEST_COLOR", "no", "GTEST_BRIEF", "0", "GTEST_SHUFFLE", "0", "GTEST_REPEAT", "1", NULL};

int gtest_main(const shim_args *a)
{
	static const shim_ops ops = {
	    .measure = SHIM_MEASURE_CHILD,
	    .self_recycle = 1,
	    .list = g_list,
	    .begin = g_begin,
	    .line = g_line,
	    .exited = g_exited,
	    .env = gtest_env,
	};
	static gtest g;
	return shim_main(&ops, &g, a->cmd, a->ncmd);
}

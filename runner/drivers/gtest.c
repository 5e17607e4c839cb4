/*
 * gtest.c - the GoogleTest driver: lists with --gtest_list_tests, runs the
 * queued run lines as one batch (--gtest_filter=A:B:C) and follows the
 * "[ RUN      ]" / "[       OK ]" / "[  FAILED  ]" / "[  SKIPPED ]" lines
 * to know which test runs. Never hides gtest's lines (no --gtest_brief) and
 * keeps the user's GTEST_* settings except those that would reorder,
 * repeat, colour or hide the lines it follows. The program gets the probe
 * (../probe/) with LD_PRELOAD: each test's memory, read by the program at
 * its own boundary, comes on the probe pipe ahead of the test's result line,
 * and a soft verdict there stops the program before its next test.
 * catch2_main is the same driver for a Catch2 program: its names by
 * --list-test-names-only (v2) or --list-tests -v quiet (v3), the batch as
 * an --input-file of names, its XML reporter's <TestCase> elements as the
 * lines followed (and the probe's boundaries, MEMGUARD_PROBE_FORMAT).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mg_elf.h"
#include "shim.h"
#include "spawn.h"

/* An argv element or a variable is limited to 128 KiB (MAX_ARG_STRLEN):
 * without the probe, batches keep the filter below. With it a longer filter
 * is a file the probe gives GoogleTest as GTEST_FILTER (the names as in
 * ../probe/memguard_probe.c). */
#define FILTER_MAX       (120 * 1024)
#define ENV_PROBE_FILTER "MEMGUARD_PROBE_FILTER"
#define FILTER_UNREAD    "-*"
#define FILTER_OPT       "--gtest_filter="
#define FAIL_TEXT        (8 * 1024)
/* The probe pipe: the child's fd, and the longest line it writes. */
#define PROBE_TARGET_FD 3
#define PROBE_LINE      (8 * 1024)
#define PROBE_PIPE_SIZE (1 << 20)
#ifndef MEMGUARD_PROBE_INSTALL_DIR
#define MEMGUARD_PROBE_INSTALL_DIR "/usr/local/lib/memguard"
#endif
#define PROBE_FILE "libmemguard_probe.so"

typedef struct sname {
	const char *p;
	size_t len, idx; /* idx: in the list */
} sname;

typedef struct gtest {
	int catch2;        /* a Catch2 program (catch2_main) */
	int catch2_v3;     /* ... without v2's --list-test-names-only */
	int c2_ok;         /* the running test case's OverallResult success */
	int c2_fatal;      /* ... it hit a FatalErrorCondition (a signal Catch2 caught) */
	char c2_enc[4096]; /* its name as the XML has it (the probe's end line) */
	size_t c2_enc_len;
	shim_names *list; /* NULL until listed; gives each name its gtest order */
	size_t batch;     /* queue entries (from the head) the running program was given */
	int started_any;  /* a test of this batch has started */
	int summary;      /* past "[==========] N tests ... ran.": the rest is gtest's recap */
	char text[FAIL_TEXT];
	size_t text_len; /* the running test's output: a failure's message */

	int probe_state;          /* 0: not looked for yet, 1: found, -1: none */
	const char *probe_why;    /* why there is none */
	char probe_preload[8192]; /* LD_PRELOAD for the program: the probe first */
	int probe_rd;             /* the probe pipe's read end, -1 when none */
	int probe_seen;           /* the running program's probe said hello */
	char probe_in[2 * PROBE_LINE];
	mg_lines probe_lines;
	char stop_why[64]; /* a "stop" for the result being handled */

	int by_file;            /* the running program has its filter from a file (the probe) */
	char filter_path[4096]; /* that file until removed, "" when none */
	int in_note;            /* in the pieces of gtest's long "Note: ... filter" line */

	/* The list sorted by name, for filters by prefix ("Suite.*", "Suite.t1*");
	 * nsorted 0 when memory was short (then names only). */
	struct sname *sorted;
	size_t nsorted;
	size_t *want_before; /* sorted index -> wanted names before it (scratch) */
	unsigned char *mark; /* list index -> in the batch (scratch) */
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

/* ---- the probe ---- */

/* The probe for arch: next to this executable in the build tree
 * (runner/probe/x64/, x86/), in the install tree (lib/memguard/x64/, x86/),
 * or where it was installed. Each arch in a folder of its own: a shared
 * object right under lib/memguard/ makes CPack's package run ldconfig in
 * postinst and postrm, for a library no linker looks up. 0 and the path in
 * out, or -1. */
static int probe_find(char *out, size_t size, mg_arch arch)
{
	char exe[2048];
	const char *sub = arch == MG_ARCH_X86 ? "x86/" : "x64/";
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		char *slash = strrchr(exe, '/');
		if (slash)
			*slash = 0;
		snprintf(out, size, "%s/probe/%s" PROBE_FILE, exe, sub);
		if (access(out, R_OK) == 0)
			return 0;
		snprintf(out, size, "%s/../lib/memguard/%s" PROBE_FILE, exe, sub);
		if (access(out, R_OK) == 0)
			return 0;
	}
	snprintf(out, size, MEMGUARD_PROBE_INSTALL_DIR "/%s" PROBE_FILE, sub);
	return access(out, R_OK) == 0 ? 0 : -1;
}

static void pass_env(shim *s, const char *name)
{
	const char *v = getenv(name);
	if (v && *v)
		shim_setenv(s, name, v);
}

/*
 * Once per shim: whether the program can take the probe and, if so, its
 * environment (LD_PRELOAD with the probe first, the limits, and for an
 * ASan program verify_asan_link_order=0 added to the user's ASAN_OPTIONS).
 * When it cannot and say is set (the listing host, whose stderr is the
 * user's), one line on stderr says the boundaries are approximate; a lane's
 * host says nothing (its stderr is a test's output).
 */
static void probe_setup(shim *s, gtest *g, int say)
{
	char path[4096], probe[4096];
	const char *why = NULL;
	mg_arch arch = MG_ARCH_X64;
	char **cmd = shim_cmd(s, NULL);
	g->probe_state = -1;
	if (spawn_resolve(path, sizeof(path), cmd[0], NULL) < 0 || elf_arch(&arch, path, NULL) < 0)
		why = "not an x86/x64 ELF executable (no probe)";
	else if (elf_dynamic(path, NULL) != 1)
		why = "a static executable (no LD_PRELOAD, no probe)";
	else if (probe_find(probe, sizeof(probe), arch) < 0)
		why = "the probe library " PROBE_FILE " was not found";
	else if (strpbrk(probe, ": "))
		why = "the probe library's path has a space or a colon (LD_PRELOAD)";
	g->probe_why = why;
	if (why && say)
		fprintf(stderr,
		        "memguard: %s: %s: per-test memory is read by the driver, boundaries are "
		        "approximate\n",
		        cmd[0], why);
	if (why)
		return;
	const char *user = getenv("LD_PRELOAD");
	snprintf(g->probe_preload, sizeof(g->probe_preload), "%s%s%s", probe,
	         user && *user ? ":" : "", user && *user ? user : "");
	shim_setenv(s, "LD_PRELOAD", g->probe_preload);
	if (elf_contains(path, "__asan_init", NULL) == 1) {
		static char asan[8192];
		const char *u = getenv("ASAN_OPTIONS");
		snprintf(asan, sizeof(asan), "%s%sverify_asan_link_order=0", u && *u ? u : "",
		         u && *u ? ":" : "");
		shim_setenv(s, "ASAN_OPTIONS", asan);
	}
	char fd[16];
	snprintf(fd, sizeof(fd), "%d", PROBE_TARGET_FD);
	shim_setenv(s, "MEMGUARD_PROBE_FD", fd);
	if (g->catch2)
		shim_setenv(s, "MEMGUARD_PROBE_FORMAT", "catch2");
	pass_env(s, MG_ENV_RECYCLE_VA);
	pass_env(s, MG_ENV_RECYCLE_RSS);
	pass_env(s, MG_ENV_KILL_VA);
	pass_env(s, MG_ENV_RECYCLE_GAP);
	g->probe_state = 1;
}

static void probe_close(gtest *g)
{
	if (g->probe_rd >= 0)
		close(g->probe_rd);
	g->probe_rd = -1;
	g->probe_seen = 0;
}

/* A fresh probe pipe for the next program: its write end (the caller
 * passes it to the child and closes it), or -1 without the probe. */
static int probe_open(shim *s, gtest *g)
{
	int p[2];
	probe_close(g);
	if (!g->probe_state)
		probe_setup(s, g, 0);
	if (g->probe_state < 0 || pipe2(p, O_CLOEXEC) < 0)
		return -1;
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	fcntl(p[1], F_SETPIPE_SZ, PROBE_PIPE_SIZE); /* best effort: 64 KiB will do too */
	g->probe_rd = p[0];
	mg_lines_init(&g->probe_lines, g->probe_in, sizeof(g->probe_in), PROBE_LINE);
	g->stop_why[0] = 0;
	return p[1];
}

static uint64_t next_u64(const char **p)
{
	uint64_t v = 0;
	while (**p == ' ')
		(*p)++;
	while (**p >= '0' && **p <= '9')
		v = v * 10 + (uint64_t)(*(*p)++ - '0');
	return v;
}

/*
 * Reads what the probe wrote (non-blocking: it was written before the line
 * being handled left the program) up to the "end" line of name: 1 and the
 * figures given to the shim, g->stop_why set when a verdict stopped the
 * program there. End lines of tests not handled are dropped. name NULL: only
 * the probe's hello is looked for. 0 when the probe said nothing of it.
 */
static int probe_take(shim *s, gtest *g, const char *name, size_t n)
{
	char why[sizeof(g->stop_why)] = "";
	if (g->probe_rd < 0)
		return 0;
	for (;;) {
		char *line;
		size_t len;
		while (mg_lines_next(&g->probe_lines, &line, &len)) {
			if (!strncmp(line, "probe ", 6)) {
				g->probe_seen = 1;
				shim_probed(s);
				if (!name)
					return 1;
			} else if (!strncmp(line, "stop ", 5)) {
				snprintf(why, sizeof(why), "%s", line + 5);
			} else if (!strncmp(line, "end ", 4) && name) {
				const char *p = line + 4;
				uint64_t va = next_u64(&p), rss = next_u64(&p);
				uint64_t pva = next_u64(&p), prss = next_u64(&p);
				if (*p == ' ')
					p++;
				size_t pn = len - (size_t)(p - line);
				if ((pn == n || (pn >= 4000 && pn < n)) && !memcmp(p, name, pn)) {
					shim_figures(s, va, rss, pva, prss);
					memcpy(g->stop_why, why, sizeof(why));
					return 1;
				}
				why[0] = 0; /* another test's */
			}
		}
		long r = mg_lines_fill(&g->probe_lines, g->probe_rd);
		if (r == MG_LINES_LONG) {
			mg_lines_init(&g->probe_lines, g->probe_in, sizeof(g->probe_in),
			              PROBE_LINE);
			continue;
		}
		if (r <= 0)
			return 0;
	}
}

/* The listing program's "exit VA RSS" (written by the probe as it ended). */
static void probe_exit(gtest *g, uint64_t *va, uint64_t *rss)
{
	char *line;
	size_t len;
	while (mg_lines_fill(&g->probe_lines, g->probe_rd) > 0)
		;
	while (mg_lines_next(&g->probe_lines, &line, &len))
		if (!strncmp(line, "exit ", 5)) {
			const char *p = line + 5;
			*va = next_u64(&p);
			*rss = next_u64(&p);
		}
}

static int sname_cmp(const void *a, const void *b)
{
	const sname *x = a, *y = b;
	int c = memcmp(x->p, y->p, x->len < y->len ? x->len : y->len);
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* g->sorted for g->list (O(N log N), once per listing); nsorted 0 when
 * memory is short. */
static void names_sort(gtest *g)
{
	size_t n = shim_names_count(g->list);
	free(g->sorted);
	free(g->want_before);
	free(g->mark);
	g->sorted = malloc((n + 1) * sizeof(sname));
	g->want_before = malloc((n + 1) * sizeof(size_t));
	g->mark = calloc(n + 1, 1);
	g->nsorted = 0;
	if (!g->sorted || !g->want_before || !g->mark)
		return;
	for (size_t i = 0; i < n; i++) {
		g->sorted[i].p = shim_names_at(g->list, i, &g->sorted[i].len);
		g->sorted[i].idx = i;
	}
	qsort(g->sorted, n, sizeof(sname), sname_cmp);
	g->nsorted = n;
}

/* Catch2's options that take a value (v2 and v3), to tell them from test specs. */
static const char *const c2_valued[] = {"-o",
                                        "--out",
                                        "-r",
                                        "--reporter",
                                        "-n",
                                        "--name",
                                        "-w",
                                        "--warn",
                                        "-d",
                                        "--durations",
                                        "-D",
                                        "--min-duration",
                                        "-f",
                                        "--input-file",
                                        "-c",
                                        "--section",
                                        "-x",
                                        "--abortx",
                                        "--order",
                                        "--rng-seed",
                                        "--use-colour",
                                        "--colour-mode",
                                        "--wait-for-keypress",
                                        "--benchmark-samples",
                                        "--benchmark-resamples",
                                        "--benchmark-confidence-interval",
                                        "--benchmark-warmup-time",
                                        "-v",
                                        "--verbosity",
                                        "--shard-count",
                                        "--shard-index",
                                        NULL};
/* ... and those the driver sets itself (dropped from the user's). */
static const char *const c2_ours[] = {
    "-o", "--out",       "-r",           "--reporter",    "-f", "--input-file", "--order",
    "-d", "--durations", "--use-colour", "--colour-mode", "-v", "--verbosity",  NULL};

static int c2_in(const char *const *list, const char *a)
{
	for (size_t i = 0; list[i]; i++)
		if (!strcmp(list[i], a))
			return 1;
	return 0;
}

/*
 * The Catch2 program's argv into out (room for ncmd + 8): the user's
 * options less the ones the driver sets (and, to run, less the user's
 * test specs: the batch is the specs then), plus the listing or reporter
 * options. Returns the index of the listing flag (listing) or the count.
 */
static int c2_args(char **cmd, int ncmd, char **out, int listing, int v3)
{
	int k = 0;
	out[k++] = cmd[0];
	for (int i = 1; i < ncmd; i++) {
		const char *a = cmd[i];
		int valued = c2_in(c2_valued, a) && i + 1 < ncmd;
		if (c2_in(c2_ours, a) || !strcmp(a, "-s") || !strcmp(a, "--success") ||
		    !strncmp(a, "--list", 6) || !strcmp(a, "-l") || !strcmp(a, "-t")) {
			i += valued;
			continue;
		}
		if (a[0] != '-' && !listing)
			continue; /* a test spec */
		out[k++] = cmd[i];
		if (valued)
			out[k++] = cmd[++i];
	}
	if (listing) {
		if (v3) {
			out[k] = "--list-tests";
			out[k + 1] = "--verbosity";
			out[k + 2] = "quiet";
			out[k + 3] = NULL;
		} else {
			out[k] = "--list-test-names-only";
			out[k + 1] = NULL;
		}
		return k;
	}
	out[k] = NULL;
	return k;
}

/* Catch2's name listing: one name a line (v3's quiet listing too). */
static void catch2_parse_list(const char *buf, size_t len,
                              void (*add)(void *ctx, const char *name, size_t n), void *ctx)
{
	for (const char *p = buf, *end = buf + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		size_t n = (size_t)(e - p);
		if (n && p[n - 1] == '\r')
			n--;
		if (n)
			add(ctx, p, n);
		p = nl ? nl + 1 : end;
	}
}

static void add_name(void *ctx, const char *name, size_t n)
{
	shim_names_add(ctx, name, n);
}

/* Runs PROG --gtest_list_tests into g->list; with the probe, va and rss get
 * the listing program's memory as it ended (a fresh program's, before its
 * first test), else untouched. -1 after a message on stderr. */
static int load_list(shim *s, gtest *g, uint64_t *va, uint64_t *rss)
{
	int ncmd;
	mg_exit_end status;
	char **cmd = shim_cmd(s, &ncmd);
	char **argv = calloc((size_t)ncmd + 8, sizeof(char *));
	char *out = NULL;
	size_t len = 0;
	int rc = -1;
	if (!argv)
		return -1;
	memcpy(argv, cmd, (size_t)ncmd * sizeof(char *));
	argv[ncmd] = "--gtest_list_tests";
	if (g->catch2)
		ncmd = c2_args(cmd, ncmd, argv, 1, g->catch2_v3);
	int probe_w = probe_open(s, g);
	rc = shim_capture_fd(s, argv, &out, &len, &status, probe_w, PROBE_TARGET_FD);
	if (probe_w >= 0)
		close(probe_w);
	if (rc == 0)
		probe_exit(g, va, rss);
	probe_close(g);
	rc = -1;
	if (!out)
		goto out;
	/* Catch2 v2's listing exits with the number of tests it listed */
	if (status.signo || (status.status != 0 && !g->catch2)) {
		shim_say_failed(status, "'%s %s'", cmd[0], argv[ncmd]);
		goto out;
	}
	shim_names_free(g->list);
	g->list = shim_names_new();
	if (g->catch2)
		catch2_parse_list(out, len, add_name, g->list);
	else
		gtest_parse_list(out, len, add_name, g->list);
	names_sort(g);
	rc = 0;
out:
	free(out);
	free(argv);
	return rc;
}

static int g_list(shim *s)
{
	gtest *g = shim_ctx(s);
	uint64_t va, rss;
	if (g->probe_state < 0) /* the listing host: its stderr is the user's */
		fprintf(stderr,
		        "memguard: %s: %s: per-test memory is read by the driver, boundaries are "
		        "approximate\n",
		        shim_cmd(s, NULL)[0], g->probe_why);
	if (!g->list && load_list(s, g, &va, &rss) < 0)
		return -1;
	for (size_t i = 0; i < shim_names_count(g->list); i++) {
		size_t n;
		const char *name = shim_names_at(g->list, i, &n);
		shim_test(s, name, n);
	}
	return 0;
}

/* Before hello: the list, by a program run with the probe, so that hello
 * carries a fresh program's memory (the base of the first test's delta),
 * not the shim's. */
static void g_hello(shim *s, uint64_t *va, uint64_t *rss)
{
	gtest *g = shim_ctx(s);
	if (!g->probe_state)
		probe_setup(s, g, 0);
	if (g->probe_state > 0)
		load_list(s, g, va, rss);
}

/* A result for the head, which belongs to the batch. May not return (quit, recycle). */
static void g_result(shim *s, gtest *g, mg_msg_kind kind, const char *msg, size_t len)
{
	if (g->batch)
		g->batch--;
	shim_result(s, kind, msg, len);
}

/* The head's result line from gtest: with the probe's figures for it, and
 * the program's stop at this boundary when a verdict said so. */
static void g_end(shim *s, gtest *g, mg_msg_kind kind, const char *msg, size_t len)
{
	size_t n;
	const char *name = shim_queue_name(s, 0, &n);
	g->stop_why[0] = 0;
	if (g->catch2) {
		name = g->c2_enc;
		n = g->c2_enc_len;
	}
	if (g->probe_seen)
		probe_take(s, g, name, n);
	g_result(s, g, kind, msg, len);
	if (g->stop_why[0])
		shim_stop(s, g->stop_why);
}

static void not_run(shim *s, gtest *g)
{
	size_t n;
	const char *name = shim_queue_name(s, 0, &n);
	static const char disabled[] = "disabled (GoogleTest runs it with "
	                               "--gtest_also_run_disabled_tests)";
	static const char other[] = "GoogleTest did not run it";
	static const char c2[] = "Catch2 did not run it";
	shim_start(s);
	if (g->catch2)
		g_result(s, g, MG_MSG_SKIP, c2, sizeof(c2) - 1);
	else if (strstr(name, "DISABLED_"))
		g_result(s, g, MG_MSG_SKIP, disabled, sizeof(disabled) - 1);
	else
		g_result(s, g, MG_MSG_SKIP, other, sizeof(other) - 1);
}

/* The filter file is gone (the probe removes it once read; this is for a
 * program that never read it). */
static void filter_remove(gtest *g)
{
	if (g->filter_path[0])
		unlink(g->filter_path);
	g->filter_path[0] = 0;
}

/* Writes text to a new file of its own (created exclusively, mode 0600) in
 * $TMPDIR or /tmp; 0 and its path in g->filter_path, or -1. */
static int filter_write(gtest *g, const char *text, size_t len)
{
	const char *dir = getenv("TMPDIR");
	snprintf(g->filter_path, sizeof(g->filter_path), "%s/memguard-gtest-filter-XXXXXX",
	         dir && *dir ? dir : "/tmp");
	int fd = mkstemp(g->filter_path);
	size_t done = 0;
	if (fd < 0 && strcmp(g->filter_path, "/tmp")) { /* an unusable TMPDIR */
		snprintf(g->filter_path, sizeof(g->filter_path),
		         "/tmp/memguard-gtest-filter-XXXXXX");
		fd = mkstemp(g->filter_path);
	}
	if (fd < 0) {
		g->filter_path[0] = 0;
		return -1;
	}
	while (done < len) {
		ssize_t w = write(fd, text + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		done += (size_t)w;
	}
	if (close(fd) < 0 || done < len) {
		filter_remove(g);
		return -1;
	}
	return 0;
}

/* How many queued names from the head are in gtest's order and fit in
 * limit bytes of filter (at least the head); 0 when the head is not one of
 * the program's tests. */
static size_t batch_len(shim *s, gtest *g, size_t limit)
{
	size_t k, n, flen = 0;
	long prev = -1;
	for (k = 0; k < shim_queued(s); k++) {
		const char *name = shim_queue_name(s, k, &n);
		long idx = shim_names_find(g->list, name, n);
		if (idx < 0 && k == 0)
			return 0;
		if (idx <= prev || (k && flen + n + 1 > limit))
			break;
		prev = idx;
		flen += n + 1;
	}
	return k;
}

/* "PREFIX" and the first k queued names joined by ':' (malloc'd, NUL-
 * terminated, *len bytes), or NULL. */
static char *filter_build(shim *s, size_t k, const char *prefix, size_t *len)
{
	size_t n, total = strlen(prefix) + 1;
	for (size_t i = 0; i < k; i++)
		total += (shim_queue_name(s, i, &n), n) + 1;
	char *f = malloc(total);
	if (!f)
		return NULL;
	char *p = f + strlen(prefix);
	memcpy(f, prefix, strlen(prefix));
	for (size_t i = 0; i < k; i++) {
		const char *name = shim_queue_name(s, i, &n);
		if (i)
			*p++ = ':';
		memcpy(p, name, n);
		p += n;
	}
	*p = 0;
	*len = (size_t)(p - f);
	return f;
}

/* The user's own filter: the last --gtest_filter= of the command, else
 * GTEST_FILTER, else NULL (GoogleTest's own precedence). */
static const char *user_filter(shim *s)
{
	int ncmd;
	char **cmd = shim_cmd(s, &ncmd);
	const char *f = NULL;
	for (int i = 1; i < ncmd; i++)
		if (!strncmp(cmd[i], FILTER_OPT, sizeof(FILTER_OPT) - 1))
			f = cmd[i] + sizeof(FILTER_OPT) - 1;
	if (!f)
		f = getenv("GTEST_FILTER");
	return f;
}

/* A growing string (the filter). */
typedef struct fbuf {
	char *p;
	size_t len, cap;
	int bad; /* out of memory */
} fbuf;

static void fb_add(fbuf *b, const char *p, size_t n)
{
	if (b->bad)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = 2 * (b->len + n + 1) + 256;
		char *q = realloc(b->p, cap);
		if (!q) {
			b->bad = 1;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = 0;
}

/* Adds one pattern, after a ':' unless first; star: "P*" (a prefix). */
static void fb_pattern(fbuf *b, int *first, const char *p, size_t n, int star)
{
	if (!*first)
		fb_add(b, ":", 1);
	*first = 0;
	fb_add(b, p, n);
	if (star)
		fb_add(b, "*", 1);
}

/*
 * Patterns for the names of g->sorted[lo, hi) whose mark is want: the
 * range is every listed name starting with its first depth bytes. With
 * prefixes, a range all wanted is "PREFIX*" (one name: the name), else
 * it is split by the next byte; without, the names themselves. O(length of
 * the names) at most, ~O(patterns) when they compress.
 */
static void cover(gtest *g, fbuf *b, int *first, size_t lo, size_t hi, size_t depth, int want,
                  int prefixes)
{
	const sname *v = g->sorted;
	size_t wanted = g->want_before[hi] - g->want_before[lo];
	if (!want)
		wanted = (hi - lo) - wanted;
	if (!wanted)
		return;
	if (prefixes && wanted == hi - lo) {
		if (hi - lo == 1)
			fb_pattern(b, first, v[lo].p, v[lo].len, 0);
		else
			fb_pattern(b, first, v[lo].p, depth, 1);
		return;
	}
	size_t i = lo;
	if (!prefixes) {
		for (; i < hi; i++)
			if (g->mark[v[i].idx] == want)
				fb_pattern(b, first, v[i].p, v[i].len, 0);
		return;
	}
	for (; i < hi && v[i].len == depth; i++) /* the name that is the prefix itself */
		if (g->mark[v[i].idx] == want)
			fb_pattern(b, first, v[i].p, v[i].len, 0);
	while (i < hi) {
		size_t j = i;
		while (j < hi && v[j].p[depth] == v[i].p[depth])
			j++;
		cover(g, b, first, i, j, depth + 1, want, prefixes);
		i = j;
	}
}

/*
 * The filter for the first k queued names (the batch, in list order) as
 * short as GoogleTest's filter syntax allows: every Test object copies the
 * filter flag twice (its flag saver), so a filter of every name costs each
 * test its length in copies. Two forms, the shorter wins:
 *   the names themselves, a prefix whose every listed name is in the batch
 *   as "PREFIX*" (only without a user filter: the list is then every test);
 *   the user's filter P-N (none: "*") with the listed names not in the
 *   batch added to its negatives, by prefix too (safe: what the user's
 *   filter did not list it excludes anyway).
 * user is the user's filter or NULL. NULL when memory is short.
 */
static char *filter_compose(shim *s, gtest *g, size_t k, const char *user, size_t *len)
{
	size_t nl = g->nsorted, n;
	fbuf a = {0}, b = {0};
	int first = 1;
	if (!nl)
		return filter_build(s, k, "", len);
	memset(g->mark, 0, nl);
	for (size_t i = 0; i < k; i++) {
		const char *name = shim_queue_name(s, i, &n);
		g->mark[shim_names_find(g->list, name, n)] = 1;
	}
	g->want_before[0] = 0;
	for (size_t i = 0; i < nl; i++)
		g->want_before[i + 1] = g->want_before[i] + g->mark[g->sorted[i].idx];
	/* a: the batch, by prefix when the list is every test */
	cover(g, &a, &first, 0, nl, 0, 1, !user);
	/* b: the user's filter less what is listed but not in the batch */
	const char *f = user ? user : "*";
	const char *dash = strchr(f, '-');
	fb_add(&b, f, strlen(f));
	if (k < nl && !dash)
		fb_add(&b, "-", 1); /* "P" becomes "P-X" ("P-N": "P-N:X") */
	first = !dash || !dash[1];
	cover(g, &b, &first, 0, nl, 0, 0, 1);
	if (a.bad || b.bad || !a.p) {
		free(a.p);
		free(b.p);
		return filter_build(s, k, "", len);
	}
	fbuf *win = b.len < a.len ? &b : &a, *lose = win == &a ? &b : &a;
	free(lose->p);
	*len = win->len;
	return win->p;
}

/* A Catch2 test spec matching exactly name: quoted, its special bytes
 * escaped (Catch2 takes '\\' as an escape everywhere, ',' as a separator
 * even within quotes, '*' at either end as a wildcard). */
static void c2_spec(fbuf *b, const char *name, size_t n)
{
	fb_add(b, "\"", 1);
	for (size_t i = 0; i < n; i++) {
		if (strchr("\\,\"*[]", name[i]))
			fb_add(b, "\\", 1);
		fb_add(b, name + i, 1);
	}
	fb_add(b, "\"\n", 2);
}

/* Starts the program for a batch of k names (argv built by the caller):
 * the batch's reading state afresh, the probe's pipe as PROBE_TARGET_FD;
 * shim_spawn_fd's result. gtest and catch2 alike. */
static int batch_spawn(shim *s, gtest *g, char **argv, size_t k, int by_file)
{
	g->batch = k;
	g->by_file = by_file;
	g->started_any = 0;
	g->summary = 0;
	g->text_len = 0;
	g->in_note = 0;
	int probe_w = probe_open(s, g);
	int rc = shim_spawn_fd(s, argv, 1, probe_w, PROBE_TARGET_FD);
	if (probe_w >= 0)
		close(probe_w);
	return rc;
}

/* The program of a batch did not start: its head fails saying so. */
static void batch_failed(shim *s, gtest *g, const char *prog)
{
	filter_remove(g);
	g->batch = 0;
	shim_start(s);
	shim_resultf(s, MG_MSG_FAIL, "cannot start %s", prog);
}

/* Catch2: the first k queued names (in its order) as an --input-file, the
 * XML reporter on stdout, declaration order. */
static void c2_begin(shim *s, gtest *g, size_t k)
{
	fbuf b = {0};
	int ncmd;
	char **cmd = shim_cmd(s, &ncmd);
	char **argv = calloc((size_t)ncmd + 12, sizeof(char *));
	for (size_t i = 0; i < k; i++) {
		size_t n;
		const char *name = shim_queue_name(s, i, &n);
		c2_spec(&b, name, n);
	}
	if (!argv || b.bad || !b.p || filter_write(g, b.p, b.len) < 0) {
		free(argv);
		free(b.p);
		shim_start(s);
		shim_resultf(s, MG_MSG_FAIL, "cannot write the test list for %s", cmd[0]);
		return;
	}
	free(b.p);
	int argc = c2_args(cmd, ncmd, argv, 0, g->catch2_v3);
	argv[argc++] = "--reporter";
	argv[argc++] = "xml";
	argv[argc++] = "--order";
	argv[argc++] = "decl";
	argv[argc++] = "--input-file";
	argv[argc++] = g->filter_path;
	argv[argc] = NULL;
	int rc = batch_spawn(s, g, argv, k, 0);
	free(argv);
	if (rc < 0)
		batch_failed(s, g, cmd[0]);
}

/*
 * Starts the program for the queued names from the head that are in
 * gtest's own order (so its run order is ours). With the probe: every
 * such name (one program for the lane's whole share), the filter in
 * GTEST_FILTER, or when it is FILTER_MAX or longer in a file the probe
 * gives GoogleTest as GTEST_FILTER (the variable itself is then
 * FILTER_UNREAD); the user's --gtest_filter leaves argv (it chose what was
 * listed; in argv it would override ours). Without the probe: an argument
 * of at most FILTER_MAX after the user's (which it overrides).
 */
static void g_begin(shim *s)
{
	gtest *g = shim_ctx(s);
	size_t n, flen;
	const char *name = shim_queue_name(s, 0, &n);
	uint64_t va, rss;
	if (!g->list && load_list(s, g, &va, &rss) < 0) {
		shim_start(s);
		shim_resultf(s, MG_MSG_FAIL, "cannot list the program's tests");
		return;
	}
	if (!g->probe_state)
		probe_setup(s, g, 0);
	int by_env = g->probe_state > 0, by_file = 0;
	shim_take_pending(s);
	size_t k = batch_len(s, g, by_env ? (size_t)-1 : FILTER_MAX);
	if (!k) {
		shim_start(s);
		shim_resultf(s, MG_MSG_FAIL, "unknown test '%.1000s'", name);
		return;
	}
	if (g->catch2) {
		c2_begin(s, g, k);
		return;
	}
	char *filter = NULL;
	if (by_env) {
		filter = filter_compose(s, g, k, user_filter(s), &flen);
		by_file = filter && flen >= FILTER_MAX;
		if (!filter || (by_file && filter_write(g, filter, flen) < 0)) {
			by_env = by_file = 0; /* no file: an argument this time */
			k = batch_len(s, g, FILTER_MAX);
			free(filter);
			filter = NULL;
		}
	}
	if (!by_env)
		filter = filter_build(s, k, FILTER_OPT, &flen);
	int ncmd, argc = 0;
	char **cmd = shim_cmd(s, &ncmd);
	char **argv = calloc((size_t)ncmd + 2, sizeof(char *));
	if (!argv || !filter) {
		filter_remove(g);
		free(argv);
		free(filter);
		shim_start(s);
		shim_resultf(s, MG_MSG_FAIL, "out of memory");
		return;
	}
	for (int i = 0; i < ncmd; i++)
		if (!by_env || strncmp(cmd[i], FILTER_OPT, sizeof(FILTER_OPT) - 1))
			argv[argc++] = cmd[i];
	if (!by_env)
		argv[argc++] = filter;
	const char *user = getenv("GTEST_FILTER");
	if (by_env)
		shim_setenv(s, "GTEST_FILTER", by_file ? FILTER_UNREAD : filter);
	if (by_file)
		shim_setenv(s, ENV_PROBE_FILTER, g->filter_path);
	int rc = batch_spawn(s, g, argv, k, by_file);
	if (by_env) { /* the listing, and a later fallback, see the user's own */
		shim_setenv(s, ENV_PROBE_FILTER, NULL);
		shim_setenv(s, "GTEST_FILTER", user);
	}
	free(filter);
	free(argv);
	if (rc < 0)
		batch_failed(s, g, cmd[0]);
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
	if (!g->started_any)
		filter_remove(g); /* GoogleTest has its flags by its first test */
	/* the probe says hello before main: by the first RUN line it has, or it
	 * is not there (then the driver's own readings stand) */
	if (!g->started_any && g->probe_rd >= 0 && !probe_take(s, g, NULL, 0)) {
		probe_close(g);
		g->probe_state = -1;
		shim_setenv(s, "LD_PRELOAD", getenv("LD_PRELOAD"));
	}
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

/* XML text (an attribute's value) decoded into out (at most cap - 1 bytes,
 * NUL-terminated): the entities Catch2's XmlEncode writes. Its length. */
static size_t xml_decode(const char *p, size_t n, char *out, size_t cap)
{
	size_t o = 0;
	for (size_t i = 0; i < n && o + 1 < cap; i++) {
		if (p[i] == '&') {
			static const struct {
				const char *ent;
				char c;
			} ents[] = {{"&amp;", '&'},
			            {"&lt;", '<'},
			            {"&gt;", '>'},
			            {"&quot;", '"'},
			            {"&apos;", '\''}};
			size_t k;
			for (k = 0; k < sizeof(ents) / sizeof(ents[0]); k++) {
				size_t el = strlen(ents[k].ent);
				if (n - i >= el && !memcmp(p + i, ents[k].ent, el)) {
					out[o++] = ents[k].c;
					i += el - 1;
					break;
				}
			}
			if (k < sizeof(ents) / sizeof(ents[0]))
				continue;
			if (n - i > 3 && p[i + 1] == '#') {
				char *e;
				int hex = p[i + 2] == 'x';
				unsigned long v = strtoul(p + i + 2 + hex, &e, hex ? 16 : 10);
				if (*e == ';' && v && v < 256) {
					out[o++] = (char)v;
					i = (size_t)(e - p);
					continue;
				}
			}
		}
		out[o++] = p[i];
	}
	out[o] = 0;
	return o;
}

/* Catch2's XML reporter, a line at a time: a test case's start tag, its
 * OverallResult, its end tag; inside a test case the rest is kept for a
 * failure's message, and text that is not XML (the program's own printf
 * output) is the test's output. */
static void c2_line(shim *s, gtest *g, char *line, size_t len)
{
	static const char *const marks[] = {"<TestCase name=\"", "<OverallResult success=\"",
	                                    "</TestCase>", "<FatalErrorCondition"};
	const char *p = line, *e = line + len;
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	size_t n = (size_t)(e - p);
	if (g->summary)
		return;
	/* a test's printf output without a final newline is in front of the
	 * reporter's next element: it is the test's, the element is read on */
	if (n && *p != '<') {
		const char *cut = e;
		for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
			const char *hit = memmem(p, n, marks[i], strlen(marks[i]));
			if (hit && hit < cut)
				cut = hit;
		}
		if (cut < e) {
			const char *te = cut; /* without the element's indentation */
			while (te > p && (te[-1] == ' ' || te[-1] == '\t'))
				te--;
			g_output(s, g, line, (size_t)(te - line), 1);
			c2_line(s, g, (char *)cut, (size_t)(e - cut));
			return;
		}
	}
	if (n > 16 && !memcmp(p, "<TestCase name=\"", 16)) {
		const char *nm = p + 16, *q = memchr(nm, '"', (size_t)(e - nm));
		size_t en = q ? (size_t)(q - nm) : (size_t)(e - nm);
		char name[4096];
		g->c2_enc_len = en < 4000 ? en : 4000;
		memcpy(g->c2_enc, nm, g->c2_enc_len);
		size_t dn = xml_decode(nm, en, name, sizeof(name));
		g->c2_ok = 0;
		g->c2_fatal = 0;
		on_run(s, g, name, dn);
		return;
	}
	if (!shim_head_started(s)) {
		if (n > 15 && !memcmp(p, "<OverallResults", 15))
			g->summary = 1; /* the group's totals: the tests have run */
		return;
	}
	if (n >= 30 && !memcmp(p, "<OverallResult success=\"", 24)) {
		g->c2_ok = !memcmp(p + 24, "true\"", 5);
		return;
	}
	if (n > 20 && !memcmp(p, "<FatalErrorCondition", 20))
		g->c2_fatal = 1;
	if (n >= 11 && !memcmp(p, "</TestCase>", 11)) {
		/* after a fatal signal Catch2 closes its XML and re-raises it: the
		 * test stays started, so the program's death is its crash (and the
		 * tests after it run in a fresh program) */
		if (g->c2_fatal)
			return;
		g_end(s, g, g->c2_ok ? MG_MSG_PASS : MG_MSG_FAIL, g->text, g->text_len);
		return;
	}
	if (n && *p != '<') { /* the program's printf, or captured text (XML-encoded) */
		char text[4096];
		size_t tn = xml_decode(line, len < sizeof(text) ? len : sizeof(text) - 1, text,
		                       sizeof(text));
		g_output(s, g, text, tn, 1);
		return;
	}
	size_t room = sizeof(g->text) - g->text_len;
	if (n + 1 < room) { /* the XML of a failure: its expression, its message */
		memcpy(g->text + g->text_len, p, n);
		g->text_len += n;
		g->text[g->text_len++] = '\n';
	}
}

static void g_line(shim *s, char *line, size_t len)
{
	gtest *g = shim_ctx(s);
	if (g->catch2) {
		c2_line(s, g, line, len);
		return;
	}
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
				g_end(s, g, MG_MSG_PASS, NULL, 0);
		} else if (gtest_match(line, len, "[  FAILED  ]", &name, &n)) {
			if (shim_head_started(s) && head_is(s, name, n))
				g_end(s, g, MG_MSG_FAIL, g->text, g->text_len);
		} else if (gtest_match(line, len, "[  SKIPPED ]", &name, &n)) {
			if (shim_head_started(s) && head_is(s, name, n))
				g_end(s, g, MG_MSG_SKIP, g->text, g->text_len);
		} else if (!strncmp(line, "[==========]", 12) && strstr(line, " ran.")) {
			g->summary = 1;
		}
		return; /* gtest's own framing: the report says it better */
	}
	if (g->in_note) { /* the rest of a filter line over 1 MiB */
		g->in_note = shim_line_cut(s);
		return;
	}
	if (!strncmp(line, "Note: Google Test filter = ", 27)) {
		g->in_note = shim_line_cut(s);
		return; /* the filter we gave */
	}
	if (!len && !shim_head_started(s))
		return; /* the blank lines between suites */
	g_output(s, g, line, len, 1);
}

static void g_exited(shim *s, mg_exit_end status, const struct rusage *ru)
{
	gtest *g = shim_ctx(s);
	char **cmd = shim_cmd(s, NULL);
	(void)ru;
	/* the probe removes the file as GoogleTest reads it */
	int unread = g->by_file && g->filter_path[0] && access(g->filter_path, F_OK) == 0;
	filter_remove(g);
	if (unread && !g->started_any && g->batch) {
		/* no probe read it (not loaded, or loaded into a wrapper that then
		 * started the program), so GoogleTest had FILTER_UNREAD and ran no
		 * test: the same names again, in batches given as arguments */
		probe_close(g);
		g->probe_state = -1;
		g->probe_why = "the probe was not loaded";
		shim_setenv(s, "LD_PRELOAD", getenv("LD_PRELOAD"));
		g->batch = 0;
		return;
	}
	probe_close(g);
	if (shim_head_started(s)) {
		/* it died mid-test: that test's crash (mirrored), or its exit */
		if (status.signo)
			shim_die_of(s, status.signo);
		shim_resultf(s, MG_MSG_FAIL, "%.*s%s exited with status %d during the test",
		             (int)g->text_len, g->text, cmd[0], status.status);
		if (g->batch)
			g->batch--;
	}
	if (!g->batch)
		return;
	if (status.signo && !g->summary) {
		/* between tests or before the first: the next test is the one it hit
		 * (after gtest's summary line it died on its way out: the tests left
		 * in the batch were never going to run, DISABLED_ ones say) */
		shim_start(s);
		shim_die_of(s, status.signo);
	}
	if (!g->started_any && status.status != 0) {
		shim_start(s);
		g->batch--;
		shim_resultf(s, MG_MSG_FAIL, "%s exited with status %d before running the test",
		             cmd[0], status.status);
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

/* gtest and catch2: one program a batch, its own boundaries through the
 * probe; environment: the variables set for the program (NULL: none). */
#define GTEST_LIKE_OPS(environment)                                                                \
	{                                                                                          \
		.measure = SHIM_MEASURE_CHILD, .self_recycle = 1, .hello = g_hello,                \
		.list = g_list, .begin = g_begin, .line = g_line, .exited = g_exited,              \
		.env = (environment),                                                              \
	}

int catch2_main(const shim_args *a)
{
	static const shim_ops ops = GTEST_LIKE_OPS(NULL);
	static gtest g;
	char path[4096];
	g.probe_rd = -1;
	g.catch2 = 1;
	/* v3 has no --list-test-names-only (its name listing is -v quiet) */
	g.catch2_v3 = !(spawn_resolve(path, sizeof(path), a->cmd[0], NULL) == 0 &&
	                elf_contains(path, "list-test-names-only", NULL) == 1);
	return shim_main(&ops, &g, a->cmd, a->ncmd);
}

int gtest_main(const shim_args *a)
{
	static const shim_ops ops = GTEST_LIKE_OPS(gtest_env);
	static gtest g;
	g.probe_rd = -1;
	return shim_main(&ops, &g, a->cmd, a->ncmd);
}

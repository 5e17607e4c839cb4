/*
 * gtest.c - the GoogleTest driver: lists with --gtest_list_tests, runs the
 * queued run lines as one batch (the filter from gtest_filter.c) and follows
 * the "[ RUN      ]" / "[       OK ]" / "[  FAILED  ]" / "[  SKIPPED ]"
 * lines to know which test runs. Never hides gtest's lines (no --gtest_brief)
 * and keeps the user's GTEST_* settings except those that would repeat,
 * colour or hide the lines it follows; the user's shuffle runs with one seed
 * in every program, the listing in its order (gtest_order.c). The program gets the probe
 * (../probe/) with LD_PRELOAD: each test's memory, read by the program at
 * its own boundary, comes on the probe pipe ahead of the test's result line,
 * and a soft verdict there stops the program before its next test. The same
 * machinery drives a Catch2 program (catch2.c); what happens outside
 * tests (fixtures' set-ups and tear-downs, the global environment, the
 * program's end) is gtest_outside.c's. Over 900 lines: the probe, the
 * listing, the batches and the line follower read one state.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver.h"
#include "gtest_driver.h"
#include "mg_bulk.h"
#include "mg_contract.h"
#include "mg_elf.h"
#include "mg_exit.h"
#include "report.h"
#include "spawn.h"

/* The probe pipe's size (best effort). */
#define PROBE_PIPE_SIZE (1 << 20)
#ifndef MEMGUARD_PROBE_INSTALL_DIR
#define MEMGUARD_PROBE_INSTALL_DIR "/usr/local/lib/memguard"
#endif
#define PROBE_FILE "libmemguard_probe.so"

size_t gtest_parse_suites(const char *buf, size_t len,
                          void (*add)(void *ctx, const char *name, size_t n),
                          void (*suite_at)(void *ctx, const char *name, size_t n), void *ctx)
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
			if (suite && suite_at)
				suite_at(ctx, q, n - 1);
		} else if (suite && n && suite + n < sizeof(name)) {
			memcpy(name + suite, q, n);
			add(ctx, name, suite + n);
			count++;
		}
		p = nl ? nl + 1 : end;
	}
	return count;
}

size_t gtest_parse_list(const char *buf, size_t len,
                        void (*add)(void *ctx, const char *name, size_t n), void *ctx)
{
	return gtest_parse_suites(buf, len, add, NULL, ctx);
}

/* gtest_match for a tag of tl bytes: inlined where tl is a constant (the
 * tag compared in two loads, not a call). */
static inline __attribute__((always_inline)) int
match_tag(const char *line, size_t len, const char *tag, size_t tl, const char **name, size_t *n)
{
	if (len < tl + 2 || memcmp(line, tag, tl) || line[tl] != ' ')
		return 0;
	const char *p = line + tl + 1, *e = line + len, *q = p;
	/* the name ends at a space or a comma: eight bytes a step, as in
	 * mg_proto's escape_any */
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	while (e - q >= 8) {
		uint64_t x, a, b;
		memcpy(&x, q, 8);
		a = x ^ (ones * ' ');
		b = x ^ (ones * ',');
		if (((a - ones) & ~a & highs) | ((b - ones) & ~b & highs))
			break;
		q += 8;
	}
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

int gtest_match(const char *line, size_t len, const char *tag, const char **name, size_t *n)
{
	return match_tag(line, len, tag, strlen(tag), name, n);
}

/* gtest_match of a string literal tag */
#define MATCH(line, len, tag, name, n) match_tag(line, len, tag, sizeof(tag) - 1, name, n)

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
		/* memguard-driver, installed in lib/memguard/ beside x64/, x86/ */
		snprintf(out, size, "%s/%s" PROBE_FILE, exe, sub);
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

static uint64_t next_u64(const char **p)
{
	uint64_t v = 0;
	const char *q = *p; /* a local cursor: one store, not one a digit */
	while (*q == ' ')
		q++;
	for (unsigned d; (d = (unsigned)(*q - '0')) <= 9; q++)
		v = v * 10 + d;
	*p = q;
	return v;
}

/* "VA RSS" (p): the program's memory as its first test starts, the base
 * the shim sends before that test's start (gtest_on_run). */
static void base_take(gtest *g, const char *p)
{
	g->base_va = next_u64(&p);
	g->base_rss = next_u64(&p);
	g->base_pending = 1;
}

/* Whether a name the probe wrote (p, pn: cut at MG_PROBE_NAME_MAX, as the
 * probe cuts it) is name's. */
static int probe_named(const char *p, size_t pn, const char *name, size_t n)
{
	return (pn == n || (pn >= MG_PROBE_NAME_MAX && pn < n)) && !memcmp(p, name, pn);
}

/* The probe's pipe line "end VA RSS PEAKVA PEAKRSS NAME" (line, len: no
 * newline; fig NULL: the figures not wanted): 1 when it ends the test
 * name. */
static int probe_end_of(const char *line, size_t len, const char *name, size_t n, uint64_t fig[4])
{
	if (len <= 4 || memcmp(line, "end ", 4))
		return 0;
	const char *p = line + 4, *e = line + len;
	for (int i = 0; i < 4; i++) {
		uint64_t v = next_u64(&p);
		if (fig)
			fig[i] = v;
	}
	if (p < e && *p == ' ')
		p++;
	return p <= e && probe_named(p, (size_t)(e - p), name, n);
}

/* GoogleTest: a secret of this shim's own (16 hex digits), so that a
 * test's end comes in the program's stdout (MG_PROBE_MARK SECRET), which no
 * test's own output can be taken for; none (the pipe) without randomness. */
static void stream_secret(shim *s, gtest *g)
{
	unsigned char r[8];
	char hex[17];
	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return;
	for (int i = 0; i < 8; i++)
		snprintf(hex + 2 * i, 3, "%02x", r[i]);
	shim_setenv(s, MG_PROBE_ENV_SECRET, hex);
	g->smark_len = (size_t)snprintf(g->smark, sizeof(g->smark), MG_PROBE_MARK "%s", hex);
}

/* A line (or its tail) the probe put in the stream: MG_PROBE_MARK SECRET
 * " stop WHY [BYTES]" or " end VA RSS PEAKVA PEAKRSS SITES", for the end tag
 * that follows. 1 when p (n bytes) is one (then taken). */
static int probe_stream(gtest *g, const char *p, size_t n)
{
	if (n < g->smark_len + 1 || memcmp(p, g->smark, g->smark_len) || p[g->smark_len] != ' ')
		return 0;
	p += g->smark_len + 1;
	n -= g->smark_len + 1;
	if (n > 5 && !memcmp(p, MG_PROBE_STOP, 5)) {
		snprintf(g->fig_why, sizeof(g->fig_why), "%.*s", (int)(n - 5), p + 5);
	} else if (n > 4 && !memcmp(p, MG_PROBE_END, 4)) {
		p += 4;
		for (int i = 0; i < 4; i++)
			g->fig[i] = next_u64(&p);
		/* SITES: 0 when the probe wrote no sites block for it (no pipe read) */
		g->fig_sites = *p == ' ' ? next_u64(&p) != 0 : 1;
		/* ERR: 1 when it marked stderr (shim_err_take) */
		g->fig_err = *p == ' ' ? next_u64(&p) != 0 : 0;
		g->fig_pending = 1;
		g->ends_marked = 1;
	} else if (n >= 4 && !memcmp(p, MG_PROBE_SEEN, 4)) {
		g->ends_marked = 1;       /* its ends come in the stream */
		if (n > 5 && p[4] == ' ') /* " VA RSS": the program as its first test starts */
			base_take(g, p + 4);
	} else if (n >= 3 && !memcmp(p, MG_PROBE_OWN, 3)) {
		g->own_next = 1; /* the test's look-alike, before its exit */
	}
	return 1;
}

/* The quit word (MG_PROBE_ENV_QUIT): a page shared with every program
 * this shim starts, set at the runner's quit (g_park). Without it (no
 * memfd) a quit ends the program at its next boundary, unfinished. */
static void quit_word_open(shim *s, gtest *g)
{
	int fd = memfd_create("memguard-quit", MFD_CLOEXEC);
	void *p = fd >= 0 && ftruncate(fd, 4096) == 0
	              ? mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
	              : MAP_FAILED;
	if (p == MAP_FAILED) {
		if (fd >= 0)
			close(fd);
		return;
	}
	g->quit_word = p;
	shim_pass_fd(s, fd, PROBE_QUIT_FD);
	char num[16];
	snprintf(num, sizeof(num), "%d", PROBE_QUIT_FD);
	shim_setenv(s, MG_PROBE_ENV_QUIT, num);
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
	driver_noprobe no = DRIVER_PROBE_OK;
	mg_arch arch = MG_ARCH_X64;
	char **cmd = shim_cmd(s, NULL);
	g->probe_state = -1;
	if (spawn_resolve(path, sizeof(path), cmd[0], NULL) < 0 || elf_arch(&arch, path, NULL) < 0)
		no = DRIVER_NOPROBE_NOT_ELF;
	else if (elf_dynamic(path, NULL) != 1)
		no = DRIVER_NOPROBE_STATIC;
	else if (probe_find(probe, sizeof(probe), arch) < 0)
		no = DRIVER_NOPROBE_NOT_FOUND;
	else if (strpbrk(probe, ": "))
		no = DRIVER_NOPROBE_PATH;
	const char *why = driver_noprobe_why(no);
	g->probe_no = no;
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
	if (g->asan < 0)
		g->asan = driver_has_mark(path, DRIVER_MARK_ASAN) == 1;
	if (g->asan) {
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
	/* GoogleTest's ends in the stream; Catch2's stderr's marks (GoogleTest's
	 * stderr is in its stdout's stream: gtest_batch_spawn) */
	stream_secret(s, g);
	if (g->smark_len && g->catch2)
		shim_err_split(s, g->smark, g->smark_len);
	for (size_t i = 0; i < MG_CONTRACT_NLIMITS; i++) /* the verdict's, all of them */
		pass_env(s, mg_contract_limits[i].env);
	quit_word_open(s, g);
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
	g->sites_len = 0;
	g->sites_ready = 0;
	return p[1];
}

/* A module, site or nomem line of the probe (allocation sites, PROTOCOL.md
 * 6d), or the "sites NAME" that ends a test's: 1 and kept, 0 when line is
 * neither. */
static int sites_add(gtest *g, const char *line, size_t len)
{
	if (!strncmp(line, MG_PROBE_SITES, sizeof(MG_PROBE_SITES) - 1)) {
		size_t k = len - (sizeof(MG_PROBE_SITES) - 1);
		if (k > MG_PROBE_NAME_MAX)
			k = MG_PROBE_NAME_MAX;
		memcpy(g->sites_name, line + sizeof(MG_PROBE_SITES) - 1, k);
		g->sites_name_len = k;
		g->sites_ready = 1;
		return 1;
	}
	if (strncmp(line, "module ", 7) && strncmp(line, "site ", 5) && strncmp(line, "nomem ", 6))
		return 0;
	if (g->sites_len + len + 1 <= sizeof(g->sites)) {
		memcpy(g->sites + g->sites_len, line, len);
		g->sites[g->sites_len + len] = '\n';
		g->sites_len += len + 1;
	}
	return 1;
}

/* The kept block, passed on with the result of name when it is name's
 * (the probe cuts names as the end line does); dropped when it is not and
 * drop is set. */
static void sites_give(shim *s, gtest *g, const char *name, size_t n, int drop)
{
	size_t pn = g->sites_name_len;
	int mine = g->sites_ready && probe_named(g->sites_name, pn, name, n);
	if (mine)
		shim_lines(s, g->sites, g->sites_len);
	if (mine || drop) {
		g->sites_len = 0;
		g->sites_ready = 0;
	}
}

/*
 * The probe's site lines of a test whose end came in the stream: the probe
 * wrote them to the pipe, ended by "sites NAME", before the flush that
 * carried that end, so they are there now (non-blocking reads). Reads up to
 * the end of one block; a later test's is kept for it (blocks come in the
 * tests' order, so a test whose block is not next had none).
 */
static void probe_sites(shim *s, gtest *g, const char *name, size_t n)
{
	while (g->fig_sites && g->probe_rd >= 0 && !g->sites_ready) {
		char *line;
		size_t len;
		while (!g->sites_ready && mg_lines_next(&g->probe_lines, &line, &len))
			sites_add(g, line, len);
		if (g->sites_ready)
			break;
		long r = mg_lines_fill(&g->probe_lines, g->probe_rd);
		if (r == MG_LINES_LONG) {
			mg_lines_init(&g->probe_lines, g->probe_in, sizeof(g->probe_in),
			              PROBE_LINE);
			continue;
		}
		if (r <= 0)
			break;
	}
	sites_give(s, g, name, n, 0);
}

/*
 * Reads what the probe wrote (non-blocking: it was written before the line
 * being handled left the program) up to the "end" line of name: 1 and the
 * figures given to the shim, g->stop_why set when a verdict stopped the
 * program there. End lines of tests not handled are dropped. name NULL: up
 * to the probe's hello, or its base line (g->base_*), whichever comes
 * first: nothing after it is read. 0 when the probe said nothing of it.
 */
static int probe_take(shim *s, gtest *g, const char *name, size_t n)
{
	char why[sizeof(g->stop_why)] = "";
	int err = 0;
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
			} else if (!strncmp(line, MG_PROBE_BASE, sizeof(MG_PROBE_BASE) - 1)) {
				/* Catch2's first test starts: sent as base before its start */
				base_take(g, line + sizeof(MG_PROBE_BASE) - 1);
				if (!name) /* asked for it: what follows is later tests' */
					return 1;
			} else if (len == sizeof(MG_PROBE_ERR) - 1 &&
			           !memcmp(line, MG_PROBE_ERR, len)) {
				err = 1;
			} else if (sites_add(g, line, len)) {
				/* kept for this end; its "end" line follows */
			} else if (!strncmp(line, "end ", 4) && name) {
				uint64_t fig[4];
				if (probe_end_of(line, len, name, n, fig)) {
					sites_give(s, g, name, n, 1);
					shim_figures(s, fig[0], fig[1], fig[2], fig[3]);
					memcpy(g->stop_why, why, sizeof(why));
					g->fig_err = err;
					return 1;
				}
				why[0] = 0; /* another test's */
				if (err) /* its stderr, passed on: the mark is not the next end's */
					shim_err_take(s, 0);
				err = 0;
				g->sites_len = 0;
				g->sites_ready = 0;
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

/* A program stopped at a boundary ended where its next test would have
 * started: 1 when its probe's "park 1" says LeakSanitizer found leaks
 * there (its report is on stderr). */
static int probe_park_leaked(gtest *g)
{
	char *line;
	size_t len;
	int leaked = 0;
	if (g->probe_rd < 0)
		return 0;
	while (mg_lines_fill(&g->probe_lines, g->probe_rd) > 0)
		;
	while (mg_lines_next(&g->probe_lines, &line, &len))
		if (len > sizeof(MG_PROBE_PARK) - 1 &&
		    !memcmp(line, MG_PROBE_PARK, sizeof(MG_PROBE_PARK) - 1))
			leaked = line[sizeof(MG_PROBE_PARK) - 1] == '1';
	return leaked;
}

/* The status a Catch2 program asked for with exit() during a test (the
 * probe's MG_PROBE_CALLED_EXIT), or -1 when it did not. */
static int probe_called_exit(gtest *g)
{
	char *line;
	size_t len;
	int status = -1;
	if (g->probe_rd < 0)
		return -1;
	while (mg_lines_fill(&g->probe_lines, g->probe_rd) > 0)
		;
	while (mg_lines_next(&g->probe_lines, &line, &len))
		if (len > sizeof(MG_PROBE_CALLED_EXIT) - 1 &&
		    !memcmp(line, MG_PROBE_CALLED_EXIT, sizeof(MG_PROBE_CALLED_EXIT) - 1))
			status = atoi(line + sizeof(MG_PROBE_CALLED_EXIT) - 1);
	return status;
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

static void add_name(void *ctx, const char *name, size_t n)
{
	shim_names_add(ctx, name, n);
}

/* GoogleTest's DISABLED_ rule (a suite's or a test's name that starts
 * with DISABLED_, or has it after a slash): 1 when name ("Suite.Test") is
 * disabled. */
static int gtest_disabled(const char *name, size_t n)
{
	const char *dot = memchr(name, '.', n);
	if (!dot)
		return 0;
	size_t sn = (size_t)(dot - name), tn = n - sn - 1;
	return (sn >= 9 && !memcmp(name, "DISABLED_", 9)) || memmem(name, sn, "/DISABLED_", 10) ||
	       (tn >= 9 && !memcmp(dot + 1, "DISABLED_", 9)) ||
	       memmem(dot + 1, tn, "/DISABLED_", 10);
}

/* The program runs unsharded what it is given: the list is the shard's
 * (shard_select), in the listing host and in every lane's (g_hello). */
static void unshard(shim *s)
{
	shim_setenv(s, "GTEST_TOTAL_SHARDS", NULL);
	shim_setenv(s, "GTEST_SHARD_INDEX", NULL);
}

/*
 * GoogleTest's sharding (GTEST_TOTAL_SHARDS, GTEST_SHARD_INDEX, as a CI
 * splits a suite over machines): --gtest_list_tests lists every test, a run
 * runs its shard's. The list keeps the shard's tests (GoogleTest's rule:
 * the Nth runnable test, DISABLED_ ones not counted, is shard N % TOTAL's),
 * and the program then runs unsharded what it is given, as our filter says
 * (GTEST_SHARD_STATUS_FILE is touched here, as GoogleTest would). Invalid
 * values are left to GoogleTest, which refuses them.
 */
/* The user's shard (GTEST_TOTAL_SHARDS, GTEST_SHARD_INDEX): 1 when both are
 * valid, into total and index. */
static int shard_of(long *total, long *index)
{
	const char *tv = getenv("GTEST_TOTAL_SHARDS"), *iv = getenv("GTEST_SHARD_INDEX");
	char *e1, *e2;
	if (!tv || !iv || !*tv || !*iv)
		return 0;
	*total = strtol(tv, &e1, 10);
	*index = strtol(iv, &e2, 10);
	return !*e1 && !*e2 && *total >= 1 && *index >= 0 && *index < *total;
}

static void shard_select(shim *s, gtest *g)
{
	long total, index;
	if (!shard_of(&total, &index))
		return;
	g->sharded = 1;
	shim_names *keep = shim_names_new();
	size_t runnable = 0, n;
	for (size_t i = 0; i < shim_names_count(g->list); i++) {
		const char *name = shim_names_at(g->list, i, &n);
		if ((long)(runnable % (size_t)total) == index)
			shim_names_add(keep, name, n);
		runnable += !gtest_disabled(name, n);
	}
	shim_names_free(g->list);
	g->list = keep;
	unshard(s);
	const char *status = getenv("GTEST_SHARD_STATUS_FILE");
	int fd = status && *status ? open(status, O_WRONLY | O_CREAT | O_CLOEXEC, 0644) : -1;
	if (fd >= 0)
		close(fd);
}

/*
 * The listing program's heap in 2 MiB pages (glibc's malloc.hugetlb
 * tunable, appended to the user's GLIBC_TUNABLES unless it names it): a
 * GoogleTest or Catch2 program allocates as it registers each test, and on
 * this machine class each first touch of a 4 KiB page is a fault of ~10
 * us, a tenth of a fault a test (Catch2's listing: a sixth), which the
 * listing pays on top of the run. Only with the probe: its figures as it
 * ends are then no base of a test's growth (each program's probe says its
 * own as its first test starts, `base`); a lane's program keeps the
 * user's, its figures are the run's.
 * on 0: the user's back.
 */
static void list_tunables(shim *s, int on)
{
	static const char tun[] = "glibc.malloc.hugetlb";
	const char *user = getenv("GLIBC_TUNABLES");
	char v[4096];
	if (on && !(user && strstr(user, tun)) &&
	    (size_t)snprintf(v, sizeof(v), "%s%s%s=1", user ? user : "", user && *user ? ":" : "",
	                     tun) < sizeof(v))
		shim_setenv(s, "GLIBC_TUNABLES", v);
	else
		shim_setenv(s, "GLIBC_TUNABLES", user);
}

/* Runs PROG --gtest_list_tests into g->list; with the probe, va and rss get
 * the listing program's memory as it ended (a fresh program's, before its
 * first test), else untouched. -1 after a message on stderr. */
static int load_list(shim *s, gtest *g, uint64_t *va, uint64_t *rss)
{
	int ncmd;
	mg_exit_end status;
	char **cmd = shim_cmd(s, &ncmd);
	char **argv = calloc((size_t)ncmd + 10, sizeof(char *));
	char *out = NULL;
	size_t len = 0;
	int rc = -1;
	if (!argv)
		return -1;
	memcpy(argv, cmd, (size_t)ncmd * sizeof(char *));
	argv[ncmd] = "--gtest_list_tests";
	if (g->catch2)
		ncmd = catch2_args(cmd, ncmd, argv, 1, g->catch2_v3);
	int probe_w = probe_open(s, g);
	int tunables = probe_w >= 0 && g->smark_len;
	if (tunables)
		list_tunables(s, 1);
	rc = shim_capture_fd(s, argv, &out, &len, &status, probe_w, PROBE_TARGET_FD);
	if (tunables)
		list_tunables(s, 0);
	if (probe_w >= 0)
		close(probe_w);
	if (rc == 0)
		probe_exit(g, va, rss);
	probe_close(g);
	rc = -1;
	if (!out)
		goto out;
	/* Catch2 v2's listing exits with the number of tests it listed; a
	 * GoogleTest main may judge its run after RUN_ALL_TESTS, and a listing
	 * is no run (googletest-listener-test exits 1): its names count, and
	 * the listing host says so (g_list) */
	if (status.signo) {
		shim_say_failed(status, "'%s %s'", cmd[0], argv[ncmd]);
		goto out;
	}
	shim_names_free(g->list);
	g->list = shim_names_new();
	/* nothing listed, nothing to skip: no second start, which would print
	 * a refusal of the user's options on stderr once more */
	size_t skip = g->catch2 && len ? catch2_list_noise(s, g->catch2_v3, out, len, status) : 0;
	size_t got =
	    g->catch2 ? (catch2_parse_list(out + skip, len - skip, g->catch2_v3, add_name, g->list),
	                 shim_names_count(g->list))
	              : gtest_parse_list(out, len, add_name, g->list);
	g->list_status = g->catch2 ? 0 : status.status;
	if (g->catch2 && !got && status.status) {
		/* a listing of no test exits 0 (v2: the count listed; v3: 0):
		 * Catch2 refused the command line (its words are on stderr),
		 * as the direct run does (before: "no tests ran", exit 5 on v3,
		 * 0 with --allow-no-tests, where the direct run exits 1) */
		shim_say_failed(status, "'%s %s'", cmd[0],
		                g->catch2_v3 ? "--list-tests" : "--list-test-names-only");
		g->list_refused = 1; /* the listing host's hello listed: g_list fails */
		goto out;
	}
	/* said in the listing host's end line, so no lane's shim lists again
	 * to check it (catch2_begin) */
	if (g->catch2_v3)
		g->c2_listed = !skip && !status.status && catch2_out_is_list(g, out, len)
		                   ? MG_LIST_CLEAN
		                   : MG_LIST_UNCLEAN;
	if (g->list_status && !got) {
		shim_say_failed(status, "'%s %s'", cmd[0], argv[ncmd]);
		goto out;
	}
	if (!g->catch2)
		shard_select(s, g);
	/* the order the programs shuffle to, or no run: a list in another order
	 * would leave the tests a program passed over behind */
	if (!g->catch2 && g->seed && gtest_order_shuffle(s, g, argv, ncmd, out, len) < 0) {
		shim_names_free(g->list);
		g->list = NULL;
		goto out;
	}
	gtest_filter_sort(g);
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
		        shim_cmd(s, NULL)[0], driver_noprobe_why(g->probe_no));
	if (g->list_refused || (!g->list && load_list(s, g, &va, &rss) < 0))
		return -1;
	if (g->list_status)
		fprintf(stderr,
		        "memguard: '%s --gtest_list_tests' exited with status %d after listing "
		        "%zu tests: they are run\n",
		        shim_cmd(s, NULL)[0], g->list_status, shim_names_count(g->list));
	for (size_t i = 0; i < shim_names_count(g->list); i++) {
		size_t n;
		const char *name = shim_names_at(g->list, i, &n);
		shim_test(s, name, n);
	}
	/* the runner says in the report why the boundaries are approximate */
	shim_list_flags(s, g->c2_listed | (uint64_t)g->probe_no << MG_LIST_NOPROBE_SHIFT);
	return 0;
}

/*
 * The run's listing as the runner hands it to a lane's host (driver.h,
 * MG_LISTING_FD): the names the listing host listed (its shard's, unquoted)
 * and that host's hello, a fresh program's memory. 0 and g->list, or -1
 * when there is none (the listing host itself). The runner's memfd is
 * closed (the program does not inherit it); any other fd 5 is the shim's
 * own (its SIGCHLD pipe, in the listing host) and is left alone.
 */
static int listing_handed(void)
{
	char link[64], path[32];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", MG_LISTING_FD);
	ssize_t ln = readlink(path, link, sizeof(link) - 1);
	if (ln <= 0)
		return 0;
	link[ln] = 0;
	/* only the runner's memfd: "/memfd:memguard-listing (deleted)" */
	return !strncmp(link, "/memfd:" MG_LISTING_NAME " ", sizeof("/memfd:" MG_LISTING_NAME));
}

static int listing_take(gtest *g)
{
	struct stat st;
	if (!listing_handed())
		return -1;
	if (fstat(MG_LISTING_FD, &st) < 0 || st.st_size < 4) {
		close(MG_LISTING_FD);
		return -1;
	}
	size_t size = (size_t)st.st_size, got = 0;
	char *buf = mg_bulk_realloc(NULL, 0, size + 1);
	while (got < size) {
		ssize_t r = pread(MG_LISTING_FD, buf + got, size - got, (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(MG_LISTING_FD);
	if (got != size) {
		mg_bulk_free(buf, size + 1);
		return -1;
	}
	buf[size] = 0;
	const char *p = buf;
	g->listed_va = next_u64(&p);
	g->listed_rss = next_u64(&p);
	while (*p == ' ')
		p++;
	if (*p == '0' || *p == '1')
		g->asan = *p++ == '1';
	uint64_t flags = next_u64(&p) & MG_LIST_HOW; /* the listing host's end line's */
	if (flags == MG_LIST_CLEAN || flags == MG_LIST_UNCLEAN)
		g->c2_listed = (unsigned)flags;
	const char *nl = memchr(p, '\n', size - (size_t)(p - buf));
	shim_names_free(g->list);
	g->list = shim_names_new();
	size_t count = 0; /* a name a line */
	for (const char *q = nl; q && (q = memchr(q + 1, '\n', size - (size_t)(q + 1 - buf)));)
		count++;
	shim_names_reserve(g->list, count + 1);
	for (p = nl ? nl + 1 : buf + size; p < buf + size;) {
		const char *e = memchr(p, '\n', size - (size_t)(p - buf));
		if (!e)
			e = buf + size;
		shim_names_add(g->list, p, (size_t)(e - p));
		p = e + 1;
	}
	mg_bulk_free(buf, size + 1);
	g->list_status = 0; /* said by the listing host */
	gtest_filter_sort(g);
	g->listed = 1;
	return 0;
}

/* Before hello: the list, by a program run with the probe, so that hello
 * carries a fresh program's memory (the base of the first test's delta),
 * not the shim's; a lane's host takes the run's listing instead (the
 * same program's: listing_take). */
static void g_hello(shim *s, uint64_t *va, uint64_t *rss)
{
	gtest *g = shim_ctx(s);
	/* a lane's host, handed the run's listing, runs tests: its spawner
	 * starts now, while we are small; the listing host starts none */
	if (listing_handed())
		shim_spawner_start(s);
	listing_take(g); /* first: it says whether the program is an ASan build */
	if (g->listed && !g->catch2) {
		long total, index;
		g->sharded = shard_of(&total, &index); /* the handed list is the shard's */
		unshard(s); /* before, each program sharded the shard again */
	}
	if (!g->probe_state)
		probe_setup(s, g, 0);
	if (g->listed && g->probe_state > 0) {
		*va = g->listed_va;
		*rss = g->listed_rss;
	} else if (g->probe_state > 0) {
		load_list(s, g, va, rss);
	}
}

/* A result for the head, which belongs to the batch. May not return (quit, recycle). */
static void g_result(shim *s, gtest *g, mg_msg_kind kind, const char *msg, size_t len)
{
	if (g->batch)
		g->batch--;
	if (kind == MG_MSG_FAIL)
		g->fails_sent++;
	shim_result(s, kind, msg, len);
}

/* GoogleTest's bool flag NAME as gtest.cc reads it: "--gtest_NAME" or
 * "--gtest_NAME=V" (false when V starts with 0, f or F), the last one given
 * winning over the environment's (env: anything but "0" is true; NULL:
 * unset). said gets how it was given ("" when not at all). */
static int gtest_bool_flag(char *const *cmd, int ncmd, const char *name, const char *env_name,
                           const char *env, char *said, size_t n)
{
	char flag[64];
	size_t fl = (size_t)snprintf(flag, sizeof(flag), "--gtest_%s", name);
	int on = env && strcmp(env, "0") != 0;
	if (env)
		snprintf(said, n, "%s=%.20s", env_name, env);
	else
		said[0] = 0;
	for (int i = 1; i < ncmd; i++) {
		const char *a = cmd[i];
		if (strncmp(a, flag, fl) || (a[fl] && a[fl] != '='))
			continue;
		const char *v = a[fl] ? a + fl + 1 : "";
		on = !(*v == '0' || *v == 'f' || *v == 'F');
		snprintf(said, n, "%.40s", a);
	}
	return on;
}

/* GoogleTest's fail-fast: its flag, GTEST_FAIL_FAST, or Bazel's
 * TESTBRIDGE_TEST_RUNNER_FAIL_FAST ("1") where GTEST_FAIL_FAST is unset, as
 * gtest.cc reads them. cmd has its flag files read in place (gtest_cmd_expand). */
void gtest_fail_fast(driver_fail_fast *out, char *const *cmd, int ncmd)
{
	const char *name = "GTEST_FAIL_FAST", *env = getenv(name);
	const char *bazel = getenv("TESTBRIDGE_TEST_RUNNER_FAIL_FAST");
	if (!env && bazel) { /* Bazel's is true only as "1" */
		name = "TESTBRIDGE_TEST_RUNNER_FAIL_FAST";
		env = strcmp(bazel, "1") ? "0" : "1";
	}
	out->limit = (unsigned)gtest_bool_flag(cmd, ncmd, "fail_fast", name, env, out->opt,
	                                       sizeof(out->opt));
	if (!out->limit)
		out->opt[0] = 0;
}

/* GoogleTest's repeat count as gtest.cc reads it: the last
 * "--gtest_repeat=N" of the command, else GTEST_REPEAT; a value that is no
 * whole number is ignored there (the count stays 1), and here. */
int gtest_check_args(char *const *cmd, int ncmd, mg_err *err)
{
	static const char flag[] = "--gtest_repeat=";
	const char *env = getenv("GTEST_REPEAT"), *v = env, *said = "GTEST_REPEAT=";
	for (int i = 1; i < ncmd; i++)
		if (!strncmp(cmd[i], flag, sizeof(flag) - 1)) {
			v = cmd[i] + sizeof(flag) - 1;
			said = flag;
		}
	if (!v || !*v)
		return 0;
	char *end;
	errno = 0;
	long n = strtol(v, &end, 10);
	if (end == v || *end || errno || n == 1)
		return 0;
	char times[32];
	snprintf(times, sizeof(times), "%ld times", n);
	return mg_err_set(err, MG_EINVAL,
	                  "GoogleTest's %s%.20s: memguard runs each test once, where "
	                  "GoogleTest would run the list %s in one program (a test that "
	                  "fails only when run again fails it there): drop it, and run "
	                  "memguard again to repeat",
	                  said, v,
	                  n < 0    ? "for ever"
	                  : n == 0 ? "not at all"
	                           : times);
}

/* GoogleTest's --gtest_list_tests lists and runs no test: refused, as
 * ctest's -N (before: every queued test was an error "saw no result of
 * it", exit 3, where the direct run exits 0). GoogleTest reads no variable
 * for it (gtest.cc's list_tests has no environment default). cmd has its
 * flag files read in place. */
int gtest_runs_none(char *const *cmd, int ncmd, mg_err *err)
{
	char said[64];
	if (!gtest_bool_flag(cmd, ncmd, "list_tests", NULL, NULL, said, sizeof(said)))
		return 0;
	return mg_err_set(err, MG_EINVAL,
	                  "GoogleTest's %s lists the tests and runs none: 'memguard list' "
	                  "lists them (or run the program itself with it)",
	                  said);
}

/* The head's result line from gtest: with the probe's figures for it, and
 * the program's stop at this boundary when a verdict said so. */
void gtest_end(shim *s, gtest *g, mg_msg_kind kind, const char *msg, size_t len)
{
	size_t n;
	const char *name = shim_queue_name(s, 0, &n);
	g->stop_why[0] = 0;
	if (g->catch2) {
		name = g->c2_enc;
		n = g->c2_enc_len;
	}
	if (g->fig_pending) { /* in the stream, in front of this end line */
		probe_sites(s, g, name, n);
		shim_figures(s, g->fig[0], g->fig[1], g->fig[2], g->fig[3]);
		memcpy(g->stop_why, g->fig_why, sizeof(g->stop_why));
		g->fig_pending = 0;
		g->fig_why[0] = 0;
	} else if (g->probe_seen) {
		probe_take(s, g, name, n);
	}
	if (g->fig_err) /* what it wrote on stderr: its output, before its result */
		shim_err_take(s, 1);
	g->fig_err = 0;
	if (kind == MG_MSG_FAIL)
		g->failed_any = 1;
	/* stopped here: the rest of the batch is the runner's again, and the
	 * program, continued at quit, finishes on its own (g_finishing) */
	if (g->stop_why[0])
		g->batch = 1;
	g_result(s, g, kind, msg, len);
	if (g->stop_why[0])
		shim_stop(s, g->stop_why);
}

/* 1 when the framework itself leaves name out (GoogleTest's DISABLED_
 * tests; it reports them as such): a skip, not an error. */
int gtest_framework_skips(const gtest *g, const char *name, size_t n)
{
	return !g->catch2 && memmem(name, n, "DISABLED_", 9);
}

/* The head was listed but the program did not run it: an error naming
 * why (why: what the program did instead; NULL: it ran others after it),
 * never a skip, unless the framework itself leaves it out (DISABLED_, a
 * global environment's GTEST_SKIP, Catch2 aborting as -a/-x asked). */
static void not_run(shim *s, gtest *g, const char *why)
{
	size_t n;
	const char *name = shim_queue_name(s, 0, &n);
	static const char disabled[] = "disabled (GoogleTest runs it with "
	                               "--gtest_also_run_disabled_tests)";
	shim_start(s);
	/* it ran nothing: the figures of the boundary it was passed over at
	 * (the last reading: before the program's first test its base, which
	 * shim_base made the last; else the last end's), not a reading now, which would hold what
	 * the tests after it did (a disabled first test: up to the whole run's growth) */
	shim_figures_last(s);
	static const char env[] = REPORT_ENV_SKIPPED;
	if (gtest_framework_skips(g, name, n)) {
		g_result(s, g, MG_MSG_SKIP, disabled, sizeof(disabled) - 1);
		return;
	}
	if (g->env_skipped) {
		g_result(s, g, MG_MSG_SKIP, env, sizeof(env) - 1);
		return;
	}
	if (g->c2_abort[0]) { /* the user's -a/-x: Catch2 stopped as asked */
		g_result(s, g, MG_MSG_SKIP, g->c2_abort, strlen(g->c2_abort));
		return;
	}
	if (g->batch)
		g->batch--;
	shim_resultf(s, MG_MSG_ERROR, "%s%s%s",
	             g->unseen   ? "memguard saw no result of it"
	             : g->catch2 ? "Catch2 did not run it"
	                         : "GoogleTest did not run it",
	             why ? ": " : " (it ran the tests after it)", why ? why : "");
}

/* How many queued names from the head are in gtest's order and fit in
 * limit bytes of filter (at least the head); 0 when the head is not one of
 * the program's tests. */
static size_t batch_len(shim *s, gtest *g, size_t limit)
{
	size_t k, n, flen = 0;
	long prev = -1;
	g->bidx_n = 0;
	for (k = 0; k < shim_queued(s); k++) {
		const char *name = shim_queue_name(s, k, &n);
		long idx = shim_names_find(g->list, name, n);
		if (idx < 0 && k == 0)
			return 0;
		if (idx <= prev || (k && flen + n + 1 > limit))
			break;
		if (k == g->bidx_cap) {
			size_t cap = g->bidx_cap ? 2 * g->bidx_cap : 1024;
			long *b = realloc(g->bidx, cap * sizeof(long));
			if (b) {
				g->bidx = b;
				g->bidx_cap = cap;
			}
		}
		if (k < g->bidx_cap && g->bidx_n == k)
			g->bidx[g->bidx_n++] = idx;
		prev = idx;
		flen += n + 1;
	}
	return k;
}

/* Starts the program for a batch of k names (argv built by the caller):
 * the batch's reading state afresh, the probe's pipe as PROBE_TARGET_FD;
 * shim_spawn_fd's result. gtest and catch2 alike. */
int gtest_batch_spawn(shim *s, gtest *g, char **argv, size_t k, int by_file)
{
	g->batch = k;
	g->by_file = by_file;
	g->ends_marked = 0;
	g->base_pending = 0;
	g->own_next = 0;
	g->started_any = 0;
	g->saw_run = 0;
	g->summary = 0;
	g->text_len = 0;
	g->in_note = 0;
	g->phase = GT_PH_NONE;
	g->suite_len = 0;
	g->suite_ran = 0;
	g->outside_failed = 0;
	g->outside_len = 0;
	g->failed_any = 0;
	g->c2_unskipped = 0;
	g->env_skipped = 0;
	g->dup_running = 0;
	g->dup_len = 0;
	int probe_w = probe_open(s, g);
	/* GoogleTest's stderr in the one pipe with its stdout: every byte in the
	 * order it was written, so a test's own are between its RUN and its end
	 * line, no mark needed (gt_line). Catch2's XML cannot take stray bytes:
	 * its stderr is a pipe apart, split by the probe's marks. */
	int rc = shim_spawn_fd(s, argv, g->catch2 ? SHIM_OUT_PIPE : SHIM_OUT_MERGED, probe_w,
	                       PROBE_TARGET_FD);
	if (probe_w >= 0)
		close(probe_w);
	return rc;
}

/* The program of a batch did not start: its head fails saying so. */
void gtest_batch_failed(shim *s, gtest *g, const char *prog)
{
	gtest_filter_remove(g);
	g->batch = 0;
	shim_start(s);
	shim_resultf(s, MG_MSG_FAIL, "cannot start %s", prog);
}

/* The lines followed here, plainly, once, in gtest's order; the rest of the
 * user's GTEST_* environment is kept. The same settings as flags go after
 * the user's arguments: GoogleTest takes a flag over its variable and the
 * last of a flag given twice, so a --gtest_brief=1 in the user's command
 * (fmt's tests pass with it) does not hide the lines either, and a
 * --gtest_shuffle runs with the run's seed (gtest_seed_set). */
#define GTEST_SETTINGS 5
static const char *gtest_env[2 * GTEST_SETTINGS + 1] = {
    "GTEST_COLOR", "no", "GTEST_BRIEF", "0", "GTEST_SHUFFLE", "0", "GTEST_REPEAT", "1", NULL};
/* 4, or 5 under the user's shuffle: GTEST_SHUFFLE 1 and GTEST_RANDOM_SEED
 * the run's seed (gtest_seed_set) */
static size_t gtest_nsettings = 4;

/* The user's --gtest_shuffle: every program shuffles with the run's seed
 * (the user's, or the one the runner drew for all of them: MG_ENV_SEED),
 * and the listing is put in that order (gtest_order_shuffle). Without a seed (a
 * shim started by hand) the tests run unshuffled, as before. */
static void gtest_seed_set(gtest *g, char *const *cmd, int ncmd)
{
	static char seed[16];
	driver_order o;
	gtest_order_read(&o, cmd, ncmd);
	const char *drawn = getenv(MG_ENV_SEED);
	unsigned long v = o.draws && drawn ? strtoul(drawn, NULL, 10) : o.seed;
	if (!o.shuffled || !v || v > 99999)
		return;
	g->seed = v;
	snprintf(seed, sizeof(seed), "%lu", v);
	gtest_env[5] = "1";
	gtest_env[8] = "GTEST_RANDOM_SEED";
	gtest_env[9] = seed;
	gtest_env[10] = NULL;
	gtest_nsettings = 5;
}

/* gtest_env's settings as GoogleTest's flags: GTEST_COLOR no is
 * --gtest_color=no (made once, gtest_flags_make). */
static char gtest_flags[GTEST_SETTINGS][32];

static void gtest_flags_make(void)
{
	for (size_t i = 0; i < gtest_nsettings; i++) {
		const char *name = gtest_env[2 * i] + sizeof("GTEST_") - 1;
		char *f = gtest_flags[i];
		size_t k = (size_t)snprintf(f, sizeof(gtest_flags[i]), "--gtest_");
		for (; *name && k < sizeof(gtest_flags[i]) - 1; name++)
			f[k++] = (char)tolower((unsigned char)*name);
		snprintf(f + k, sizeof(gtest_flags[i]) - k, "=%s", gtest_env[2 * i + 1]);
	}
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
		catch2_begin(s, g, k);
		return;
	}
	char *filter = NULL;
	if (by_env) {
		filter = gtest_filter_compose(s, g, k, gtest_filter_user(s), &flen);
		by_file = filter && flen >= FILTER_MAX;
		if (!filter || (by_file && gtest_filter_write(g, filter, flen) < 0)) {
			by_env = by_file = 0; /* no file: an argument this time */
			k = batch_len(s, g, FILTER_MAX);
			free(filter);
			filter = NULL;
		}
	}
	if (!by_env)
		filter = gtest_filter_build(s, k, FILTER_OPT, &flen);
	int ncmd, argc = 0;
	char **cmd = shim_cmd(s, &ncmd);
	char **argv = calloc((size_t)ncmd + GTEST_SETTINGS + 2, sizeof(char *));
	if (!argv || !filter) {
		gtest_filter_remove(g);
		free(argv);
		free(filter);
		shim_start(s);
		shim_resultf(s, MG_MSG_FAIL, "out of memory");
		return;
	}
	for (int i = 0; i < ncmd; i++)
		if (!by_env || strncmp(cmd[i], FILTER_OPT, sizeof(FILTER_OPT) - 1))
			argv[argc++] = cmd[i];
	if (!gtest_flags[0][0])
		gtest_flags_make();
	for (size_t i = 0; i < gtest_nsettings; i++) /* after the user's: the last one counts */
		argv[argc++] = gtest_flags[i];
	if (!by_env)
		argv[argc++] = filter;
	const char *user = getenv("GTEST_FILTER");
	if (by_env)
		shim_setenv(s, "GTEST_FILTER", by_file ? FILTER_UNREAD : filter);
	if (by_file)
		shim_setenv(s, ENV_PROBE_FILTER, g->filter_path);
	int rc = gtest_batch_spawn(s, g, argv, k, by_file);
	if (by_env) { /* the listing, and a later fallback, see the user's own */
		shim_setenv(s, ENV_PROBE_FILTER, NULL);
		shim_setenv(s, "GTEST_FILTER", user);
	}
	free(filter);
	free(argv);
	if (rc < 0)
		gtest_batch_failed(s, g, cmd[0]);
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

void gtest_on_run(shim *s, gtest *g, const char *name, size_t n)
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
		gtest_filter_remove(g); /* GoogleTest has its flags by its first test */
	/* the probe says hello before main: by the first RUN line it has, or it
	 * is not there (then the driver's own readings stand) */
	if (!g->started_any && g->probe_rd >= 0 && !probe_take(s, g, NULL, 0)) {
		probe_close(g);
		g->probe_state = -1;
		shim_setenv(s, "LD_PRELOAD", getenv("LD_PRELOAD"));
	} else if (!g->started_any && !g->base_pending && g->probe_rd >= 0) {
		/* its base line on the pipe (Catch2's; GoogleTest's when the seen
		 * mark had no room), which the probe wrote before this start left
		 * the program and before any line of a later test: read up to it */
		probe_take(s, g, NULL, 0);
	}
	/* the program's base first: the tests it passed over are answered
	 * below, before this one starts (PROTOCOL.md 6f) */
	if (g->base_pending)
		shim_base(s, g->base_va, g->base_rss);
	g->base_pending = 0;
	/* gtest runs in list order: what it passed over, it will not run */
	while (k--)
		not_run(s, g, NULL);
	if (g->fig_err) /* an end that was no test's: its stderr passed on */
		shim_err_take(s, 0);
	g->fig_err = 0;
	shim_start(s);
	g->started_any = 1;
	g->text_len = 0;
	g->text_header = 0;
	g->fig_pending = 0;
	g->fig_why[0] = 0;
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

/* Where the probe's line (MG_PROBE_MARK SECRET) starts in line, or NULL:
 * the whole mark is looked for, not its first byte, which a test's own
 * output may hold before it. */
static const char *probe_mark_at(const gtest *g, const char *line, size_t len)
{
	const char *e = line + len;
	if (!g->smark_len)
		return NULL;
	/* each of its first bytes compared in place (memmem's set-up cost more
	 * than the line: the mark starts the probe's own line) */
	for (const char *m = line; (m = memchr(m, MG_PROBE_MARK[0], (size_t)(e - m))); m++)
		if ((size_t)(e - m) >= g->smark_len && !memcmp(m, g->smark, g->smark_len))
			return m;
	return NULL;
}

/* GoogleTest's header of a test part's result, "FILE:LINE: Failure" (or
 * "unknown file: Failure"), "FILE:LINE: Skipped" (PrintTestPartResult). */
static int part_header(const char *line, size_t len)
{
	return len >= 9 &&
	       (!memcmp(line + len - 9, ": Failure", 9) || !memcmp(line + len - 9, ": Skipped", 9));
}

/* The running test's output, kept for a failure's message from GoogleTest's
 * first Failure or Skipped header on (what the test wrote before it, on
 * stdout or stderr, a log of any length, is its output, not its message:
 * GoogleTest's XML has the same); before one, all of it (a crash's or an
 * exit's context). nl: the line ended there (a prefix cut off a gtest tag
 * did not). */
/* The terminal escapes line starts with: what the program left on the
 * line, unterminated, before GoogleTest's header (a logger's colour
 * reset), which no path starts with. A control sequence (ESC '[', digits
 * and ';', a letter: "\033[0m", "\033[1;31m") or a character set's
 * ("\033(B", as tput sgr0 writes it); anything else ends them. */
static size_t csi_prefix(const char *line, size_t len)
{
	size_t at = 0;
	while (at + 2 < len && line[at] == '\033') {
		size_t k = at + 2;
		if (line[at + 1] == '(' || line[at + 1] == ')') {
			if (!isalnum((unsigned char)line[k]))
				break;
			at = k + 1;
			continue;
		}
		if (line[at + 1] != '[')
			break;
		while (k < len && (isdigit((unsigned char)line[k]) || line[k] == ';'))
			k++;
		if (k == len || !isalpha((unsigned char)line[k]))
			break;
		at = k + 1;
	}
	return at;
}

void gtest_output(shim *s, gtest *g, const char *line, size_t len, int nl)
{
	const char *text = line;
	size_t tlen = len;
	if (shim_head_started(s)) {
		if (!g->text_header && nl && part_header(line, len)) {
			g->text_header = 1;
			g->text_len = 0;
			/* the message from the header on, as GoogleTest's XML has it */
			size_t skip = csi_prefix(line, len);
			text += skip;
			tlen -= skip;
		}
		/* past FAIL_TEXT the message says where it was cut (the test's
		 * output has all of it) */
		static const char cut[] = "\n[memguard: the message is cut here, at 8 KiB; "
		                          "the test's output has the whole of it]\n";
		size_t cap = sizeof(g->text) - (sizeof(cut) - 1);
		if (g->text_len <= cap) {
			size_t want = tlen + (size_t)nl, room = cap - g->text_len;
			size_t take = want < room ? want : room;
			memcpy(g->text + g->text_len, text, take < tlen ? take : tlen);
			if (nl && take == want)
				g->text[g->text_len + take - 1] = '\n';
			g->text_len += take;
			if (take < want) {
				memcpy(g->text + g->text_len, cut, sizeof(cut) - 1);
				g->text_len += sizeof(cut) - 1;
			}
		}
	}
	shim_output(s, line, len);
	if (nl)
		shim_output(s, "\n", 1);
}

/* 1 when name is one of the running batch's. O(batch). */
static int in_batch(shim *s, gtest *g, const char *name, size_t n)
{
	for (size_t k = 0; k < g->batch && k < shim_queued(s); k++) {
		size_t qn;
		const char *q = shim_queue_name(s, k, &qn);
		if (qn == n && !memcmp(q, name, n))
			return 1;
	}
	return 0;
}

int gtest_dup_run(shim *s, gtest *g, const char *name, size_t n)
{
	if (in_batch(s, g, name, n) || shim_names_find(g->list, name, n) < 0 || n >= sizeof(g->dup))
		return 0;
	g->dup_nth = g->dup_len == n && !memcmp(g->dup, name, n) ? g->dup_nth + 1 : 2;
	memcpy(g->dup, name, n);
	g->dup_len = n;
	g->dup_running = 1;
	g->outside_len = 0;
	return 1;
}

/* The result line of a name run again: its failure is "NAME#nth", fail.
 * 1 when line was that result. */
static int dup_end(shim *s, gtest *g, const char *line, size_t len)
{
	const char *name;
	size_t n;
	int failed = gtest_match(line, len, "[  FAILED  ]", &name, &n);
	if (!failed && !gtest_match(line, len, "[       OK ]", &name, &n) &&
	    !gtest_match(line, len, "[  SKIPPED ]", &name, &n))
		return 0;
	if (n != g->dup_len || memcmp(name, g->dup, n))
		return 0;
	if (failed) {
		char entry[1100];
		int en = snprintf(entry, sizeof(entry), "%.*s#%u", (int)n, name, g->dup_nth);
		shim_extra(s, MG_MSG_FAIL, entry, (size_t)en, g->outside, g->outside_len);
		g->failed_any = 1;
	} else if (g->outside_len) {
		shim_output(s, g->outside, g->outside_len);
	}
	g->dup_running = 0;
	g->outside_len = 0;
	g->outside_failed = 0;
	g->fig_pending = 0; /* its end's figures: no test's of ours */
	g->fig_why[0] = 0;
	if (g->fig_err) /* nor its stderr: passed on, so its mark is no later end's */
		shim_err_take(s, 0);
	g->fig_err = 0;
	return 1;
}

/* Whether the probe's end record for name waits on its pipe (where the
 * stdio buffer had no room for it in the stream): read on, not taken
 * (probe_take takes it at the end). */
static int probe_has_end(gtest *g, const char *name, size_t n)
{
	long r;
	if (g->probe_rd < 0)
		return 0;
	while ((r = mg_lines_fill(&g->probe_lines, g->probe_rd)) > 0)
		;
	if (r == MG_LINES_LONG)
		return 1; /* not all read: it may be there (the program stopped at it) */
	const char *l = g->probe_lines.buf + g->probe_lines.start;
	const char *e = l + g->probe_lines.len, *nl;
	for (; l < e && (nl = memchr(l, '\n', (size_t)(e - l))); l = nl + 1)
		if (probe_end_of(l, (size_t)(nl - l), name, n, NULL))
			return 1;
	return 0;
}

/* The head's end at GoogleTest's result line of kind: a fail's or a
 * skip's message is the test's text since its first Failure header. */
static void result_line_end(shim *s, gtest *g, mg_msg_kind kind)
{
	if (kind == MG_MSG_PASS)
		gtest_end(s, g, kind, NULL, 0);
	else
		gtest_end(s, g, kind, g->text, g->text_len);
}

/* Keeps a line in the hold: 0 when it has no room for it. */
static int hold_put(gtest *g, const char *line, size_t len)
{
	uint32_t n = (uint32_t)len;
	if (sizeof(g->hold) - g->hold_len < sizeof(n) + len)
		return 0;
	memcpy(g->hold + g->hold_len, &n, sizeof(n));
	memcpy(g->hold + g->hold_len + sizeof(n), line, len);
	g->hold_len += sizeof(n) + len;
	return 1;
}

/*
 * The head's result line (of kind), when it is to be held: the probe puts
 * its ends in the stream and none came in front of this line (nor waits
 * on its pipe, where the buffer had no room). A test that prints a
 * look-alike of its own result line ("[  FAILED  ] Its.Name (0 ms)") gets
 * GoogleTest's verdict, not the look-alike's: GoogleTest's line is the
 * test's last, after whatever the test printed. 1 when held.
 */
static int hold_begin(gtest *g, mg_msg_kind kind, const char *line, size_t len, const char *name,
                      size_t n)
{
	if (g->catch2 || !g->ends_marked || g->fig_pending || probe_has_end(g, name, n))
		return 0;
	g->hold_len = 0;
	if (!hold_put(g, line, len))
		return 0;
	g->held = (int)kind + 1;
	return 1;
}

static void g_text(shim *s, gtest *g, char *line, size_t len, const char *m);

/* Ends the hold: verdict 1, the held line was GoogleTest's (the test's
 * result, and the lines after it come after the test); 0, it was the
 * test's own look-alike (its output, and so are the lines after it). */
static void hold_end(shim *s, gtest *g, int verdict)
{
	static char lines[sizeof(g->hold)];
	size_t len = g->hold_len;
	mg_msg_kind kind = (mg_msg_kind)(g->held - 1);
	memcpy(lines, g->hold, len);
	g->held = 0;
	g->hold_len = 0;
	for (size_t at = 0; at < len;) {
		uint32_t n;
		memcpy(&n, lines + at, sizeof(n));
		char *l = lines + at + sizeof(n);
		if (at > 0)
			g_text(s, g, l, n, NULL);
		else if (!verdict)
			gtest_output(s, g, l, n, 1);
		else
			result_line_end(s, g, kind);
		at += sizeof(n) + n;
	}
}

/* A line that comes while a result is held: 1 when kept in the hold, 0
 * when it ended the hold (and is to be read as any line). */
static int g_hold_line(shim *s, gtest *g, const char *line, size_t len, const char *m)
{
	if (m) { /* the probe's end, in front of GoogleTest's own end line */
		hold_end(s, g, 0);
		return 0;
	}
	size_t t = len && line[0] != '[' ? tag_at(line, len) : 0;
	const char *tag = line + t, *name;
	size_t tl = len - t, n;
	if (tl >= 12 && tag[0] == '[' && tag[11] == ']') {
		if (MATCH(tag, tl, "[       OK ]", &name, &n) ||
		    MATCH(tag, tl, "[  FAILED  ]", &name, &n) ||
		    MATCH(tag, tl, "[  SKIPPED ]", &name, &n)) {
			if (head_is(s, name, n)) { /* a later one: the last is GoogleTest's */
				hold_end(s, g, 0);
				return 0;
			}
		} else if (MATCH(tag, tl, "[ RUN      ]", &name, &n) ||
		           (!t && (!memcmp(tag, "[----------]", 12) ||
		                   !memcmp(tag, "[==========]", 12)))) {
			hold_end(s, g, 1); /* GoogleTest goes on after the test */
			return 0;
		}
	}
	if (!shim_line_cut(s) && hold_put(g, line, len))
		return 1;
	hold_end(s, g, 1); /* no room to wait: taken, as before the hold */
	return 0;
}

/* A line of GoogleTest's, m where the probe's line starts in it (NULL:
 * none): the probe's end lines, cut off what the test left before. */
static void g_text(shim *s, gtest *g, char *line, size_t len, const char *m)
{
	if (m && probe_stream(g, m, len - (size_t)(m - line))) {
		if (m > line)
			gtest_output(s, g, line, (size_t)(m - line), 0);
		return;
	}
	size_t cut = len && line[0] != '[' ? tag_at(line, len) : len;
	if (cut && cut < len && !g->summary) {
		if (shim_head_started(s))
			gtest_output(s, g, line, cut, 0);
		else
			gtest_outside_between(s, g, line, cut, 0);
		char *rest = line + cut;
		g_text(s, g, rest, len - cut,
		       m && m < rest ? probe_mark_at(g, rest, len - cut) : m);
		return;
	}
	const char *name;
	size_t n;
	if (g->summary)
		return;
	if (len >= 12 && line[0] == '[' && line[11] == ']') {
		if (MATCH(line, len, "[ RUN      ]", &name, &n)) {
			g->saw_run = 1;
			if (!shim_head_started(s)) {
				gtest_outside_flush(s, g); /* before it: its suite's set-up */
				g->suite_ran = 1;
				if (gtest_dup_run(s, g, name, n))
					return;
			}
			gtest_on_run(s, g, name, n);
		} else if (g->dup_running && dup_end(s, g, line, len)) {
			return;
		} else if (MATCH(line, len, "[       OK ]", &name, &n) ||
		           MATCH(line, len, "[  FAILED  ]", &name, &n) ||
		           MATCH(line, len, "[  SKIPPED ]", &name, &n)) {
			if (!shim_head_started(s))
				return;
			if (!head_is(s, name, n) || g->own_next) { /* printed by the test */
				g->own_next = 0;
				gtest_output(s, g, line, len, 1);
				return;
			}
			mg_msg_kind kind = line[3] == 'F'   ? MG_MSG_FAIL
			                   : line[3] == 'S' ? MG_MSG_SKIP
			                                    : MG_MSG_PASS;
			if (!hold_begin(g, kind, line, len, name, n))
				result_line_end(s, g, kind);
		} else if (!shim_head_started(s)) {
			gtest_outside_frame(s, g, line, len);
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
	if (g->seed && !strncmp(line, "Note: Randomizing tests' orders with a seed of ", 47))
		return; /* each program's; the runner says the run's seed once */
	if (!len && !shim_head_started(s))
		return; /* the blank lines between suites */
	if (!shim_head_started(s))
		gtest_outside_between(s, g, line, len, 1);
	else
		gtest_output(s, g, line, len, 1);
}

/* Each line of a program's stdout: Catch2's XML, or GoogleTest's one stream
 * (its stderr and stdout, gtest_batch_spawn), each line of which is kept in
 * the tail of its last words (shim_stderr_tail), the probe's line left out. */
static void g_line(shim *s, char *line, size_t len)
{
	gtest *g = shim_ctx(s);
	if (g->catch2) {
		catch2_line(s, g, line, len);
		return;
	}
	const char *m = probe_mark_at(g, line, len);
	shim_tail_keep(s, line, m ? (size_t)(m - line) : len, !m && !shim_line_cut(s));
	if (g->held && g_hold_line(s, g, line, len, m))
		return;
	g_text(s, g, line, len, m);
}

static void g_exited(shim *s, mg_exit_end status, const struct rusage *ru)
{
	gtest *g = shim_ctx(s);
	char **cmd = shim_cmd(s, NULL);
	char why[256];
	(void)ru;
	/* a held result line and then the program's end, nothing of
	 * GoogleTest's after it: GoogleTest's (its tear-down, a park at the
	 * runner's quit, ended the program after it; a look-alike then an exit
	 * in the test reads the same), the verdict; the shim goes on with the
	 * program's end below, not to its own (a quit waits for it) */
	if (g->held) {
		shim_defer_finish(s, 1);
		hold_end(s, g, 1);
		shim_defer_finish(s, 0);
	}
	/* the probe removes the file as GoogleTest reads it */
	int unread = g->by_file && g->filter_path[0] && access(g->filter_path, F_OK) == 0;
	gtest_filter_remove(g);
	if (unread && !g->started_any && g->batch && mg_exit_ok(status)) {
		/* no probe read it (not loaded, or loaded into a wrapper that then
		 * started the program), so GoogleTest had FILTER_UNREAD and ran no
		 * test: the same names again, in batches given as arguments */
		probe_close(g);
		g->probe_state = -1;
		shim_setenv(s, "LD_PRELOAD", getenv("LD_PRELOAD"));
		g->batch = 0;
		return;
	}
	if (shim_stopped(s) || (shim_parking(s) && !shim_head_started(s))) {
		/* recycled at a boundary (stopped there, or asked at the runner's
		 * quit to end at its next test), then finished as its framework would: its
		 * tear-downs' failures, its exit status and trailing output count as
		 * a direct run's would (each entry once a run: record_extra) */
		int leaked = probe_park_leaked(g);
		probe_close(g);
		gtest_outside_flush(s, g);
		g->batch = 0;
		if (leaked && mg_exit_ok(status))
			gtest_outside_exit_leaked(s, g);
		else
			gtest_outside_exit_unexplained(s, g, status);
		return;
	}
	/* the XML reporter's death in exit is a SIGSEGV; another signal there
	 * (an atexit handler's abort) is the program's, the direct run's too */
	int asked = g->catch2 && status.signo == SIGSEGV && shim_head_started(s)
	                ? probe_called_exit(g)
	                : -1;
	probe_close(g);
	if (shim_head_started(s)) {
		/* it died mid-test: that test's crash (mirrored), or its exit: a
		 * fail, and the rest of the batch runs in a fresh program, as after
		 * a crash (before, each was an error "did not run it", exit 3 where
		 * the direct run exits 1) */
		if (asked >= 0) {
			/* exit() in a Catch2 test, then a signal in the exit of the XML
			 * reporter memguard runs it with: the status it asked for, as
			 * the direct run ends (drivers__catch2_exit_mid_test) */
			char said[200];
			int n =
			    snprintf(said, sizeof(said),
			             "memguard: the test called exit(%d); Catch2's XML reporter, "
			             "which memguard runs it with, then died of signal %d in "
			             "its exit: the direct run exits %d\n",
			             asked, status.signo, asked);
			shim_output(s, said, (size_t)n);
			status.signo = status.core = 0;
			status.status = asked;
		}
		if (g->catch2)
			catch2_died(s, g, status);
		if (status.signo)
			shim_die_of(s, status.signo);
		if (g->batch)
			g->batch--;
		if (!status.signo && status.status == 0) {
			/* exit(0) mid-test: the test never ended, and the direct run
			 * exits 0 there, a pass (GoogleTest's own gmock_leak_test
			 * counts on it with --gmock_catch_leaked_mocks=0): a pass,
			 * said in its output */
			static const char said[] = "memguard: the program exited with status 0 "
			                           "during this test, before the test ended: a "
			                           "pass, as the direct run's exit status says";
			gtest_output(s, g, said, sizeof(said) - 1, 1);
			shim_result(s, MG_MSG_PASS, NULL, 0);
			gtest_outside_flush(s, g);
			g->batch = 0;
			return;
		}
		g->failed_any = 1;
		shim_resultf(s, MG_MSG_FAIL, "%.*s%s exited with status %d during the test",
		             (int)g->text_len, g->text, cmd[0], status.status);
		gtest_outside_flush(s, g);
		g->batch = 0;
		return;
	}
	if (shim_parking(s))
		g->batch = 0;      /* quit came: the tests after it are the runner's again */
	gtest_outside_flush(s, g); /* a global tear-down's failure, when it got no further */
	if (!g->batch) {
		gtest_outside_exit_unexplained(s, g, status);
		return;
	}
	if (!g->started_any && !g->summary && !mg_exit_ok(status))
		gtest_outside_start_died(s, g, status);
	if ((status.signo || (!g->catch2 && g->started_any)) && !g->summary) {
		/* between tests: no test is blamed (after gtest's summary line it
		 * died on its way out: the tests left in the batch were never
		 * going to run, DISABLED_ ones say); an exit() there too (a suite's
		 * tear-down's: before, the tests left were errors "did not run
		 * it", exit 3, even for exit(0)) */
		gtest_outside_between_died(s, g, status);
	}
	gtest_outside_exit_unexplained(s, g, status);
	g->unseen = !status.signo && !g->saw_run && !g->summary && !g->catch2;
	if (status.signo)
		snprintf(why, sizeof(why), "the program was killed by signal %d before it",
		         status.signo);
	else if (g->unseen)
		/* it ran, or not, without saying so as GoogleTest's printer says it
		 * (no test's start, no summary): a listener of its own in place of
		 * that printer (GoogleTest's sample9 with --terse_output), whose
		 * output memguard cannot read */
		snprintf(why, sizeof(why),
		         "the program exited with status %d having printed no \"[ RUN      ]\" "
		         "line (a result printer of its own in place of GoogleTest's? memguard "
		         "reads GoogleTest's)",
		         status.status);
	else
		snprintf(why, sizeof(why), "the program exited with status %d before it",
		         status.status);
	if (g->catch2)
		catch2_aborted(s, g, status);
	while (g->batch)
		not_run(s, g, why);
	g->unseen = 0;
}

/* At quit: a program whose batch is answered is finishing on its own. */
static int g_finishing(shim *s)
{
	gtest *g = shim_ctx(s);
	return g->batch == 0;
}

/* At the runner's quit with tests of the batch still to run: the program
 * (its probe) ends where its next test would start, after what the
 * framework does before it (a suite's tear-down, a name run again, a leak
 * check at the park). 1 when asked. */
static int g_park(shim *s)
{
	gtest *g = shim_ctx(s);
	if (!g->quit_word || g->probe_rd < 0)
		return 0;
	__atomic_store_n(g->quit_word, 1, __ATOMIC_RELEASE);
	return 1;
}

/* gtest and catch2: one program a batch, its own boundaries through the
 * probe; GoogleTest gets gtest_env in its environment. */
int gtest_run(const shim_args *a, int catch2, int catch2_v3)
{
	static const shim_ops ops = {
	    .measure = SHIM_MEASURE_CHILD,
	    .spawner_late = 1,
	    .self_recycle = 1,
	    .hello = g_hello,
	    .list = g_list,
	    .begin = g_begin,
	    .line = g_line,
	    .exited = g_exited,
	    .env = gtest_env,
	    .tail_stderr = 1,
	    .finishing = g_finishing,
	    .finish_stopped = 1,
	    .park = g_park,
	};
	static const shim_ops c2_ops = {
	    .measure = SHIM_MEASURE_CHILD,
	    .spawner_late = 1,
	    .self_recycle = 1,
	    .hello = g_hello,
	    .list = g_list,
	    .begin = g_begin,
	    .line = g_line,
	    .exited = g_exited,
	    .tail_stderr = 1,
	    .finishing = g_finishing,
	    .finish_stopped = 1,
	    .park = g_park,
	};
	static gtest g;
	g.probe_rd = -1;
	g.asan = a->asan; /* the runner's; -1 (read here) if it did not say */
	g.catch2 = catch2;
	g.catch2_v3 = catch2_v3;
	const char *left = getenv(MG_ENV_FAIL_LEFT);
	if (left && *left >= '1' && *left <= '9')
		g.fail_left = (unsigned)strtoul(left, NULL, 10);
	if (catch2)
		return shim_main(&c2_ops, &g, a->cmd, a->ncmd);
	/* the program runs its flag files' flags where they are, as it would,
	 * so that its filter is the user's, and ours after it wins; its report
	 * file is the runner's to write, for the whole run (driver_output_of) */
	gtest_cmd c;
	if (gtest_cmd_expand(&c, a->cmd, a->ncmd) < 0) {
		fprintf(stderr, "memguard __driver: out of memory\n");
		return MG_EXIT_INFRA;
	}
	gtest_cmd_drop_output(&c);
	unsetenv("GTEST_OUTPUT");
	gtest_seed_set(&g, c.argv, c.argc);
	int rc = shim_main(&ops, &g, c.argv, c.argc);
	gtest_cmd_free(&c);
	return rc;
}

int gtest_main(const shim_args *a)
{
	return gtest_run(a, 0, 0);
}

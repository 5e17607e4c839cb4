/*
 * memguard_host.c - makes a test program a memguard host (the protocol on
 * fds 3/4, PROTOCOL.md) or, started directly, a plain test runner. libc
 * only, built for -m32 too. The per-test path never allocates (a host near
 * its address-space limit cannot). A silent test costs two preads (statm,
 * and /proc/self/io for whether it wrote) and, where the runner offers the
 * reply ring, no write: its result goes to shared memory and a wake byte
 * only when the runner sleeps on it. Every soft verdict is taken here, at
 * the boundary (the contract).
 */
#include "memguard_host.h"
#include "mg_contract.h"
#include "mg_proto.h"
#include "mg_sites.h"
#include "mg_verdict.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* Found by scanning the file: "memguard run --driver auto" tells a host by it. */
__attribute__((used)) const char mg_host_marker[] = MG_HOST_MARKER;

#define MSG_CAP 4096
#define IN_CAP  (2 * MG_PROTO_LINE_MAX)
#define OUT_CAP (3 * MG_PROTO_LINE_MAX)
/* Longest test name quoted in an "unknown test" message. */
#define UNKNOWN_NAME_MAX 1024
#define NO_INDEX         ((size_t)-1)
/* Return value of a step that wants the serve loop to go on. */
#define STEP_MORE (-1)

/* Where mg_message writes: the running test's buffer, or a spare one. */
static char msg_spare[MSG_CAP];
static char *msg_buf = msg_spare;
static size_t msg_cap = MSG_CAP;

void mg_message(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg_buf, msg_cap, fmt, ap);
	va_end(ap);
}

typedef struct mem {
	uint64_t va, rss;
} mem;

typedef struct host {
	const mg_host_ops *ops;
	void *ctx;
	size_t count;
	/* name -> index: open addressing over indices; NULL falls back to a scan */
	size_t *slots;
	size_t nslots;
	size_t guess; /* the index after the last one looked up */

	int cmd_fd, reply_fd, statm_fd;
	mg_ring *ring; /* v3: replies go here (the pipe: wake bytes), NULL: the pipe */
	/* /proc/self/io (fd -1: unread, every test is marked): whether a test
	 * wrote beyond our own writes (mg_contract_wrote, mark_streams) */
	mg_wrote io;
	uint64_t own_writes;
	uint64_t page;
	unsigned version;   /* the protocol spoken: the lower of ours and the runner's */
	mg_verdict verdict; /* the limits it was given, and the growth of its last tests */
	uint64_t ordinal;   /* run lines answered: the mark of the next test */
	char secret[MG_MARK_SECRET_LEN + 1]; /* v3: the run's, in every mark */
	/* v2: what history says of the next run line (expect RISE GROWTH); v4:
	 * whether it knows the test's own rise ("known": its figure alone counts) */
	uint64_t expect_rise, expect_growth;
	int expect_known;
	uint64_t peak_seen; /* VmPeak at the last boundary that read it */
	/* the reading at the last boundary, and the largest rise above it a test of this
	 * host made (VmPeak): the next test is admitted only if that rise fits,
	 * though its run line came before the runner knew of such a test */
	mem boundary;
	uint64_t max_rise;

	char in[IN_CAP];
	mg_lines lines; /* over in */
	char out[OUT_CAP];
	size_t out_len;
	char msg[MSG_CAP];
	char sites[16384]; /* the module and site lines of the test just ended */
} host;

/* Static: 400 KiB of buffers that must not come from a heap near its limit. */
static host the_host;

/* ---- name lookup ---- */

static size_t hash_name(const char *s, size_t len)
{
	uint64_t h = 14695981039346656037ull;
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return (size_t)(h ^ (h >> 32));
}

static int name_is(host *h, size_t i, const char *name, size_t len)
{
	const char *n = h->ops->name(h->ctx, i);
	return strncmp(n, name, len) == 0 && n[len] == '\0';
}

/* Builds the index once; O(N). On allocation failure lookups scan instead. */
static void index_build(host *h)
{
	size_t n = 16;
	while (n < 2 * h->count)
		n *= 2;
	h->slots = malloc(n * sizeof(*h->slots));
	if (h->slots == NULL)
		return;
	h->nslots = n;
	for (size_t i = 0; i < n; i++)
		h->slots[i] = NO_INDEX;
	for (size_t i = 0; i < h->count; i++) {
		const char *name = h->ops->name(h->ctx, i);
		size_t s = hash_name(name, strlen(name)) & (n - 1);
		while (h->slots[s] != NO_INDEX)
			s = (s + 1) & (n - 1);
		h->slots[s] = i;
	}
}

/* Expected O(1): the next index is tried first (runners send list order). */
static size_t index_find(host *h, const char *name, size_t len)
{
	size_t found = NO_INDEX;
	if (h->guess < h->count && name_is(h, h->guess, name, len)) {
		found = h->guess;
	} else if (h->slots != NULL) {
		size_t s = hash_name(name, len) & (h->nslots - 1);
		for (; h->slots[s] != NO_INDEX; s = (s + 1) & (h->nslots - 1)) {
			if (name_is(h, h->slots[s], name, len)) {
				found = h->slots[s];
				break;
			}
		}
	} else {
		for (size_t i = 0; i < h->count && found == NO_INDEX; i++)
			if (name_is(h, i, name, len))
				found = i;
	}
	if (found != NO_INDEX)
		h->guess = found + 1;
	return found;
}

/* ---- memory ---- */

/* ~1.5 us: one pread of the kept-open statm. Zeros when it cannot be read. */
static mem mem_now(host *h)
{
	mem m;
	mg_contract_statm(h->statm_fd, h->page, &m.va, &m.rss);
	return m;
}

/* 6-9 us: VmPeak and VmHWM from /proc/self/status (after tests of 1 ms or
 * more, and at bye). */
static mem mem_peak(void)
{
	mem m;
	mg_contract_status(-1, &m.va, &m.rss);
	return m;
}

/* ---- output: whole lines gathered in h->out, one write per flush ---- */

static int out_flush(host *h)
{
	int rc = h->ring ? mg_ring_put(h->ring, h->reply_fd, h->out, h->out_len, &h->own_writes)
	                 : mg_proto_write_all(h->reply_fd, h->out, h->out_len, &h->own_writes);
	h->out_len = 0;
	return rc;
}

/* Makes room for n bytes (n <= OUT_CAP), flushing if needed. */
static int out_room(host *h, size_t n)
{
	if (h->out_len + n > OUT_CAP)
		return out_flush(h);
	return 0;
}

/* Appends m's line (mg_proto_put, sized first: O(text)); the caller bounds
 * its text so the line stays within the protocol's limit. */
static int out_msg(host *h, const mg_msg *m)
{
	size_t n = mg_proto_put(NULL, 0, m);
	if (n == 0 || n > OUT_CAP || out_room(h, n) < 0)
		return -1;
	mg_proto_put(h->out + h->out_len, n, m);
	h->out_len += n;
	return 0;
}

static int out_bye(host *h)
{
	mem peak = mem_peak();
	mg_msg m = {.kind = MG_MSG_BYE, .va = peak.va, .rss = peak.rss};
	return out_msg(h, &m);
}

/* recycle VA RSS [WHY [BYTES]] (no why in version 1) */
static int out_recycle(host *h, mem at, mg_why why, uint64_t bytes)
{
	mg_msg m = {.kind = MG_MSG_RECYCLE, .va = at.va, .rss = at.rss, .bytes = bytes};
	m.why = h->version >= 2 ? why : MG_WHY_NONE;
	return out_msg(h, &m);
}

/* ---- input: the command fd, a line at a time ---- */

/*
 * 1 and a line (valid until the next call), 0 at end of file, -1 on a read
 * error or a line over MG_PROTO_LINE_MAX.
 */
static int line_read(host *h, char **line, size_t *len)
{
	for (;;) {
		if (mg_lines_next(&h->lines, line, len))
			return 1;
		long n = mg_lines_fill(&h->lines, h->cmd_fd);
		if (n == -1 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			return 0;
	}
}

/* ---- serving ---- */

static int is_word(const char *line, size_t len, const char *word)
{
	size_t n = strlen(word);
	return len == n && memcmp(line, word, n) == 0;
}

static int is_run(const char *line, size_t len)
{
	return len >= 4 && memcmp(line, "run ", 4) == 0;
}

static int is_expect(const char *line, size_t len)
{
	return len >= 7 && memcmp(line, "expect ", 7) == 0;
}

static int bad_command(const char *line, size_t len)
{
	fprintf(stderr, "memguard host: not a protocol command: '%.*s'\n",
	        (int)(len > 200 ? 200 : len), line);
	return 3;
}

/* ---- dying: the memory at a fatal signal (v2) ---- */

static int dying_fd = -1;
static mg_ring *dying_ring;
static int dying_statm = -1;
static uint64_t dying_page = 4096;

/*
 * At SIGSEGV, SIGBUS, SIGABRT, SIGFPE or SIGILL, on its own stack: writes
 * "dying SIG VA RSS PEAKVA" to the reply pipe with async-signal-safe calls
 * only (pread of the kept statm, open/read of status), then dies of the
 * same signal (SA_RESETHAND restored the default). A death near the limit
 * that no sample saw is then still known for what it was.
 */
static void on_fatal(int sig)
{
	char line[128];
	uint64_t peak, hwm;
	mg_msg m = {.kind = MG_MSG_DYING, .sig = sig};
	mg_contract_statm(dying_statm, dying_page, &m.va, &m.rss);
	mg_contract_status(-1, &peak, &hwm);
	m.bytes = peak > m.va ? peak : m.va;
	size_t n = mg_proto_put(line, sizeof(line), &m);
	if (n <= sizeof(line) && dying_ring)
		mg_ring_put(dying_ring, dying_fd, line, n, NULL);
	else if (n <= sizeof(line))
		mg_proto_write_all(dying_fd, line, n, NULL);
	raise(sig);
}

/* Installs on_fatal on an alternate stack (a stack overflow or a full
 * address space leaves no room on the test's own), for the fatal signals
 * whose disposition is still the default. */
static void dying_install(int reply_fd, mg_ring *ring, int statm_fd, uint64_t page)
{
	static char stack[64 * 1024];
	static const int sigs[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};
	stack_t ss = {.ss_sp = stack, .ss_size = sizeof(stack), .ss_flags = 0};
	dying_fd = reply_fd;
	dying_ring = ring;
	dying_statm = statm_fd;
	dying_page = page;
	if (sigaltstack(&ss, NULL) < 0)
		return;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old, sa;
		if (sigaction(sigs[i], NULL, &old) < 0 || old.sa_handler != SIG_DFL)
			continue; /* the test program has its own */
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_fatal;
		sa.sa_flags = SA_ONSTACK | SA_RESETHAND | SA_NODEFER;
		sigemptyset(&sa.sa_mask);
		sigaction(sigs[i], &sa, NULL);
	}
}

void mg_host_dying(int reply_fd, int statm_fd)
{
	dying_install(reply_fd, NULL, statm_fd, mg_contract_page());
}

/* Runs test i with the message buffer in place; flushes stdout and stderr. */
static mg_result run_one(host *h, size_t i, uint64_t *usec)
{
	struct timespec t0, t1;
	h->msg[0] = '\0';
	msg_buf = h->msg;
	msg_cap = sizeof(h->msg);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	mg_result r = h->ops->run(h->ctx, i, h->msg, sizeof(h->msg));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fflush(stdout);
	fflush(stderr);
	msg_buf = msg_spare;
	msg_cap = sizeof(msg_spare);
	h->msg[sizeof(h->msg) - 1] = '\0';
	int64_t ns = (int64_t)(t1.tv_sec - t0.tv_sec) * 1000000000 + (t1.tv_nsec - t0.tv_nsec);
	*usec = ns > 0 ? (uint64_t)ns / 1000 : 0;
	if (r != MG_PASS && r != MG_FAIL && r != MG_SKIP) {
		snprintf(h->msg, sizeof(h->msg), "test returned %d, not a mg_result", (int)r);
		r = MG_FAIL;
	}
	return r;
}

/*
 * v2: after a test's output (flushed by run_one), its mark on stdout and on
 * stderr, so the runner gives every byte to the test that wrote it however
 * far the pipes run apart (two small writes, ~1 us; whole, however full a
 * pipe the test made non-blocking is). Only a test that wrote is marked:
 * bytes after mark M and before mark N are N's, the tests between wrote
 * nothing, and a silent test costs no write. A stream that is gone is left
 * alone.
 */
static void mark_streams(host *h)
{
	if (!mg_contract_wrote(&h->io, h->own_writes)) {
		h->ordinal++;
		return;
	}
	mg_proto_mark_streams(h->secret, h->ordinal++, &h->own_writes);
}

static int serve_line(host *h, char *line, size_t len);

/*
 * After a recycle: stay alive, running nothing, until the runner's quit, so
 * the runner can read this process's maps for its breakdown while it still
 * holds its memory. Run lines still queued are dropped (the runner re-queues
 * them). EOF: the runner has gone; leave quietly.
 */
static int await_quit(host *h)
{
	char *line;
	size_t len;
	while (line_read(h, &line, &len) == 1)
		if (is_word(line, len, "quit")) {
			if (out_bye(h) == 0)
				out_flush(h);
			return 0;
		}
	return 0;
}

/*
 * Serves the run line in line and every run line already buffered behind
 * it: each result goes out in the same write as the next test's start.
 */
static int serve_runs(host *h, char *line, size_t len)
{
	for (;;) {
		/* history's word on this test: would its peak reach the kill limit
		 * from where this host stands? Then not here: a fresh host runs it.
		 * A test history knows needs its own rise; any other, at least the
		 * largest this host saw */
		if ((h->expect_rise || h->expect_growth || (h->max_rise && !h->expect_known)) &&
		    h->verdict.kill_va) {
			/* nothing ran since the last boundary: its reading stands */
			mem now = h->boundary.va ? h->boundary : mem_now(h);
			uint64_t need = 0;
			mg_why why =
			    mg_verdict_admit(&h->verdict, now.va, h->expect_rise, h->expect_growth,
			                     h->expect_known, h->max_rise, &need);
			if (why != MG_WHY_NONE) {
				if (out_recycle(h, now, why, need) < 0 || out_flush(h) < 0)
					return 0;
				return await_quit(h);
			}
		}
		h->expect_rise = h->expect_growth = 0;
		h->expect_known = 0;
		mg_msg m;
		if (mg_proto_parse(&m, line, len) < 0 || m.kind != MG_CMD_RUN) {
			out_flush(h); /* the previous result still goes out */
			return bad_command(line, len);
		}
		mg_msg start = {.kind = MG_MSG_START, .text = m.text, .text_len = m.text_len};
		if (out_msg(h, &start) < 0)
			return 0;
		size_t i = index_find(h, m.text, m.text_len);
		mg_result r = MG_FAIL;
		uint64_t usec = 0;
		if (i != NO_INDEX) {
			if (out_flush(h) < 0)
				return 0;
			mg_sites_test_start(m.text, m.text_len);
			r = run_one(h, i, &usec);
		} else {
			size_t n = m.text_len > UNKNOWN_NAME_MAX ? UNKNOWN_NAME_MAX : m.text_len;
			snprintf(h->msg, sizeof(h->msg), "unknown test '%.*s'", (int)n, m.text);
		}
		if (h->version >= 2)
			mark_streams(h);
		/* a test of 1 ms or more may hide a burst no sample sees: VmPeak
		 * (6-9 us, under 1% of such a test) says whether it rose in it */
		if (h->version >= 2 && usec >= 1000) {
			mem peak = mem_peak();
			if (peak.va > h->peak_seen) {
				h->peak_seen = peak.va;
				if (h->boundary.va && peak.va - h->boundary.va > h->max_rise)
					h->max_rise = peak.va - h->boundary.va;
				mg_msg pm = {.kind = MG_MSG_PEAK, .va = peak.va};
				if (out_msg(h, &pm) < 0)
					return 0;
			}
		}
		/* who allocated what it left, and allocations that failed: before its result */
		size_t ns = mg_sites_put(h->sites, sizeof(h->sites));
		if (ns) {
			if (out_room(h, ns) < 0)
				return 0;
			memcpy(h->out + h->out_len, h->sites, ns);
			h->out_len += ns;
		}
		mg_msg nm = {.kind = MG_MSG_NOMEM, .count = mg_sites_nomem()};
		if (nm.count && out_msg(h, &nm) < 0)
			return 0;
		mem after = mem_now(h);
		h->boundary = after;
		static const mg_msg_kind kinds[] = {MG_MSG_PASS, MG_MSG_FAIL, MG_MSG_SKIP};
		mg_msg res = {.kind = kinds[r], .usec = usec, .va = after.va, .rss = after.rss};
		res.text = h->msg;
		res.text_len = r != MG_PASS ? strlen(h->msg) : 0;
		if (out_msg(h, &res) < 0)
			return 0;
		uint64_t bytes = 0;
		mg_why why = mg_verdict_end(&h->verdict, after.va, after.rss, &bytes);
		if (why != MG_WHY_NONE) {
			if (out_recycle(h, after, why, bytes) < 0 || out_flush(h) < 0)
				return 0;
			return await_quit(h);
		}
		if (!mg_lines_next(&h->lines, &line, &len))
			return out_flush(h) < 0 ? 0 : STEP_MORE;
		while (is_expect(line, len)) { /* for the run line that follows */
			mg_msg e;
			if (mg_proto_parse(&e, line, len) < 0)
				return bad_command(line, len);
			h->expect_rise = e.va;
			h->expect_growth = e.bytes;
			h->expect_known = h->version >= 4 && e.count;
			if (!mg_lines_next(&h->lines, &line, &len))
				return out_flush(h) < 0 ? 0 : STEP_MORE;
		}
		if (!is_run(line, len)) {
			if (is_word(line, len, "quit")) {
				if (out_bye(h) == 0)
					out_flush(h);
				return 0;
			}
			if (out_flush(h) < 0)
				return 0;
			return serve_line(h, line, len);
		}
	}
}

static int serve_list(host *h)
{
	for (size_t i = 0; i < h->count; i++) {
		const char *name = h->ops->name(h->ctx, i);
		mg_msg m = {.kind = MG_MSG_TEST, .text = name, .text_len = strlen(name)};
		if (out_msg(h, &m) < 0)
			return 0;
	}
	mg_msg end = {.kind = MG_MSG_END, .count = h->count};
	if (out_msg(h, &end) < 0 || out_flush(h) < 0)
		return 0;
	return STEP_MORE;
}

/* One command. STEP_MORE to go on, else the status to exit with. */
static int serve_line(host *h, char *line, size_t len)
{
	if (is_run(line, len))
		return serve_runs(h, line, len);
	mg_msg m;
	if (mg_proto_parse(&m, line, len) < 0)
		return bad_command(line, len);
	switch (m.kind) {
	case MG_CMD_EXPECT:
		h->expect_rise = m.va;
		h->expect_growth = m.bytes;
		h->expect_known = h->version >= 4 && m.count;
		return STEP_MORE;
	case MG_CMD_LIST:
		return serve_list(h);
	case MG_CMD_QUIT:
		if (out_bye(h) == 0)
			out_flush(h);
		return 0;
	default:
		return bad_command(line, len);
	}
}

static int env_fd(const char *name, int fallback)
{
	uint64_t v;
	if (mg_contract_env_u64(name, &v) && v < 1024)
		return (int)v;
	return fallback;
}

static int host_mode(host *h)
{
	h->cmd_fd = env_fd(MG_ENV_CMD_FD, MG_PROTO_CMD_FD);
	mg_lines_init(&h->lines, h->in, sizeof(h->in), MG_PROTO_LINE_MAX);
	h->reply_fd = env_fd(MG_ENV_REPLY_FD, MG_PROTO_REPLY_FD);
	uint64_t runner_version = 1;
	mg_contract_env_u64(MG_ENV_HOST, &runner_version);
	/* the lower of ours and the runner's (a runner of version 0 is a 1) */
	h->version = runner_version >= MG_PROTO_VERSION ? MG_PROTO_VERSION
	             : runner_version >= 1              ? (unsigned)runner_version
	                                                : 1;
	mg_contract_read_limits(&h->verdict, h->version);
	mg_sites_init((unsigned)h->verdict.sites, h->verdict.sites_min);
	/* a program a test runs is not this host: it tracks nothing */
	unsetenv(MG_ENV_SITES);
	unsetenv(MG_ENV_SITES_MIN);
	mg_proto_mark_secret(h->secret, h->version);
	/* processes the tests spawn must not hold the protocol pipes open */
	fcntl(h->cmd_fd, F_SETFD, FD_CLOEXEC);
	fcntl(h->reply_fd, F_SETFD, FD_CLOEXEC);
	h->statm_fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	h->page = mg_contract_page();
	h->io.fd = open("/proc/self/io", O_RDONLY | O_CLOEXEC);
	/* the reply ring, where the runner offers one: attached before the
	 * first reply (hello), so every reply goes there */
	uint64_t ring_fd;
	if (h->version >= 3 && mg_contract_env_u64(MG_ENV_RING_FD, &ring_fd) && ring_fd < 1024)
		h->ring = mg_ring_attach((int)ring_fd);
	unsetenv(MG_ENV_RING_FD); /* taken or not: no process a test starts is offered it */
	mg_contract_wrote(&h->io,
	                  h->own_writes); /* the base: what was written before the first test */

	for (size_t i = 0; i < h->count; i++) {
		const char *name = h->ops->name(h->ctx, i);
		size_t need = name == NULL ? 0 : mg_proto_escape(NULL, 0, name, strlen(name));
		if (need == 0 || need + 6 > MG_PROTO_LINE_MAX) {
			fprintf(stderr, "memguard host: test %zu has an empty or over-long name\n",
			        i);
			return 3;
		}
	}

	if (h->version >= 2)
		dying_install(h->reply_fd, h->ring, h->statm_fd, h->page);
	mem m = mem_now(h);
	mg_verdict_start(&h->verdict, m.va, m.rss);
	h->peak_seen = m.va;
	h->boundary = m; /* the first test's start: its rise counts too */
	mg_msg hello = {.kind = MG_MSG_HELLO,
	                .version = h->version,
	                .pid = (long)getpid(),
	                .va = m.va,
	                .rss = m.rss};
	memcpy(hello.arch, sizeof(void *) == 4 ? "x86" : "x64", 4);
	if (out_msg(h, &hello) < 0 || out_flush(h) < 0)
		return 0;

	for (;;) {
		char *line;
		size_t len;
		int r = line_read(h, &line, &len);
		if (r == 0)
			return 0; /* the runner has gone */
		if (r < 0) {
			fprintf(stderr, "memguard host: command over %d bytes or unreadable\n",
			        MG_PROTO_LINE_MAX);
			return 3;
		}
		int status = serve_line(h, line, len);
		if (status != STEP_MORE)
			return status;
	}
}

/* ---- standalone ---- */

static void usage(const char *prog)
{
	printf("usage: %s [--list | TEST...]\n"
	       "  no arguments: run every test; --list: print the test names;\n"
	       "  TEST...: run only those. Under memguard (MEMGUARD_HOST set) it\n"
	       "  serves the memguard protocol on fds 3/4 instead.\n",
	       prog);
}

static void standalone_one(host *h, size_t i, size_t counts[3])
{
	uint64_t usec;
	const char *name = h->ops->name(h->ctx, i);
	mg_result r = run_one(h, i, &usec);
	counts[r]++;
	if (r == MG_PASS)
		printf("PASS %s\n", name);
	else if (h->msg[0] != '\0')
		printf("%s %s: %s\n", r == MG_FAIL ? "FAIL" : "SKIP", name, h->msg);
	else
		printf("%s %s\n", r == MG_FAIL ? "FAIL" : "SKIP", name);
	fflush(stdout);
}

static int standalone(host *h, int argc, char **argv)
{
	const char *prog = argc > 0 ? argv[0] : "host";
	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		usage(prog);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "--list") == 0) {
		if (argc > 2) {
			usage(prog);
			return 2;
		}
		for (size_t i = 0; i < h->count; i++)
			printf("%s\n", h->ops->name(h->ctx, i));
		return 0;
	}
	for (int a = 1; a < argc; a++) {
		if (strncmp(argv[a], "--", 2) == 0) {
			fprintf(stderr, "%s: unknown option '%s'\n", prog, argv[a]);
			usage(prog);
			return 2;
		}
		if (index_find(h, argv[a], strlen(argv[a])) == NO_INDEX) {
			fprintf(stderr, "%s: unknown test '%s' (--list shows the names)\n", prog,
			        argv[a]);
			return 2;
		}
	}
	size_t counts[3] = {0, 0, 0};
	if (argc > 1) {
		for (int a = 1; a < argc; a++)
			standalone_one(h, index_find(h, argv[a], strlen(argv[a])), counts);
	} else {
		for (size_t i = 0; i < h->count; i++)
			standalone_one(h, i, counts);
	}
	printf("%zu passed, %zu failed, %zu skipped\n", counts[MG_PASS], counts[MG_FAIL],
	       counts[MG_SKIP]);
	fflush(stdout);
	return counts[MG_FAIL] ? 1 : 0;
}

int mg_host_serve(const mg_host_ops *ops, void *ctx, int argc, char **argv)
{
	host *h = &the_host;
	memset(h, 0, sizeof(*h));
	h->ops = ops;
	h->ctx = ctx;
	h->count = ops->count(ctx);
	h->cmd_fd = h->reply_fd = h->statm_fd = h->io.fd = -1;
	index_build(h);
	int status = getenv(MG_ENV_HOST) != NULL ? host_mode(h) : standalone(h, argc, argv);
	if (h->statm_fd >= 0)
		close(h->statm_fd);
	if (h->io.fd >= 0)
		close(h->io.fd);
	free(h->slots);
	h->slots = NULL;
	return status;
}

/* ---- the static-array form ---- */

typedef struct array_ctx {
	const mg_test *tests;
	size_t count;
} array_ctx;

static size_t array_count(void *ctx)
{
	return ((array_ctx *)ctx)->count;
}

static const char *array_name(void *ctx, size_t i)
{
	return ((array_ctx *)ctx)->tests[i].name;
}

static mg_result array_run(void *ctx, size_t i, char *msg, size_t cap)
{
	(void)msg; /* mg_message writes into it */
	(void)cap;
	return ((array_ctx *)ctx)->tests[i].fn();
}

int mg_host_main(const mg_test *tests, size_t count, int argc, char **argv)
{
	static const mg_host_ops ops = {array_count, array_name, array_run};
	array_ctx ctx = {tests, count};
	return mg_host_serve(&ops, &ctx, argc, argv);
}

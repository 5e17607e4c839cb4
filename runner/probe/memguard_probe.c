/*
 * memguard_probe.c - the boundary contract inside an unchanged GoogleTest
 * program, injected by the gtest driver with LD_PRELOAD. GoogleTest's
 * printer flushes stdout after each "[ RUN      ]" line and each test's
 * "[       OK ]" / "[  FAILED  ]" / "[  SKIPPED ]" line: this library
 * interposes fflush, and at a test's end line it reads the program's own
 * memory and writes it to the driver's probe pipe before that line leaves,
 * then takes the host library's soft verdicts (memguard_host.c). For a
 * Catch2 program (MEMGUARD_PROBE_FORMAT=catch2) the boundaries are its XML
 * reporter's flushes: "<TestCase name=..." starts, "</TestCase>" ends.
 * libc only, built for x64 and x86, never sanitized; the per-test path
 * never allocates (static buffers) and costs one pread (its figures go out
 * in the flush of the end line itself, stream_end; else one write). It
 * leaves no trace in the program: no floating point (its exception flags
 * and rounding are the program's), errno kept across its work, no signal
 * mask or stdio state of its own; and from the program's first test its
 * children see the user's environment, not the driver's.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "mg_contract.h"
#include "mg_sites.h"

/* The run's filter when over 128 KiB (gtest.c): a file the driver wrote
 * (MG_PROBE_ENV_FILTER), its content is what getenv("GTEST_FILTER")
 * answers; the real GTEST_FILTER is MG_PROBE_FILTER_UNREAD, so a program
 * without the probe (or one a wrapper the probe was loaded into started)
 * runs no test, never ones it was not given. */
#define NAME_MAX_OUT MG_PROBE_NAME_MAX
#define HIGH_FD      200 /* the probe fd is moved up here, out of the program's way */
#define TAG_LEN      13  /* "[ RUN      ] " */

static int (*real_fflush)(FILE *);

static int probe_fd = -1;  /* -1: inactive (not under the driver, or a forked copy) */
static int statm_fd = -1;  /* kept open: one pread per test */
static int status_fd = -1; /* kept open: read after tests of 1 ms or more */
static uint64_t page = 4096;

static mg_verdict verdict; /* the limits the driver passed, the recent growths */
static int running;        /* between a RUN line and its end line */
static struct timespec t_run;
static int started_any; /* a test has started: the environment is the user's again */
static int have_prev;   /* the first test's start was read: a test's growth is from
                         * the previous boundary from then on */

static char line[NAME_MAX_OUT + 128];
static char mark[sizeof(MG_PROBE_MARK) + 16]; /* MG_PROBE_MARK SECRET (stream_end) */
static size_t mark_len;                       /* 0: the pipe only */

/* Whether a test wrote on stderr, so the driver gives those bytes to it
 * (stderr is a pipe of its own, read apart from stdout: its bytes carry no
 * order with the test boundaries). As the host library's: the kernel's
 * syscw in /proc/self/io rose by more than the writes that are not the
 * test's (the probe's own, stdout's flushes it passes on); one pread at a
 * test's end. Calls counted as ours only where they write, so a miscount
 * errs towards a mark too many, never a missing one (mg_contract_wrote).
 * fd -1: no marks. */
static mg_wrote io = {.fd = -1};
static uint64_t own_writes;

/* After a stop: the program runs no further test but finishes as the
 * framework would (park_at). The names ended in the running suite (hashes,
 * the last DONE_MAX): GoogleTest runs a name again when two fixtures of one
 * name register it, always within that one suite, and such a run is not
 * a further test of the generation but the framework's own. */
#define DONE_MAX 1024
static int stopping;
static uint64_t done_hash[DONE_MAX];
static size_t done_n;
static char stop_suite[NAME_MAX_OUT + 1]; /* the suite of the test that stopped it */
static size_t stop_suite_len;
static int stop_suite_due; /* quit seen mid-test: its suite at its end */
static int catch2;         /* the program is Catch2 with -r xml */
/* the driver's quit word (MG_PROBE_ENV_QUIT): 1 when the runner ended this
 * program's run of tests (a recycle or an end it decided itself): it
 * finishes as after a stop, without one (no boundary of its own said so) */
static const volatile uint32_t *quit_word;
static char done_suite[256]; /* the suite of the last test that ended */
static size_t done_slen;
static char c2_name[NAME_MAX_OUT + 1]; /* the running test case's name, XML-encoded */
static size_t c2_len;

static char *(*real_getenv)(const char *);
static pthread_mutex_t filter_lock = PTHREAD_MUTEX_INITIALIZER;
static int filter_state; /* 0: not looked for, 1: a file is named, -1: none */
static char filter_path[4096];
static char *filter_text; /* the file's content, read at the first GTEST_FILTER */

static void write_all(const char *p, size_t n)
{
	if (mg_proto_write_all(probe_fd, p, n, &own_writes) < 0)
		probe_fd = -1; /* the driver has gone: stay out of the way */
}

/* VmSize and VmRSS: one pread of the kept statm (~1.5 us). */
static void mem_now(uint64_t *va, uint64_t *rss)
{
	mg_contract_statm(statm_fd, page, va, rss);
}

/* At a test's end, before its end line leaves: MG_PROBE_MARK SECRET
 * " err\n" on stderr when the test wrote, so the driver knows the bytes in
 * front of it are that test's (and says so with the end: 1). One write,
 * counted as ours. */
static int err_mark(void)
{
	if (io.fd < 0 || !mg_contract_wrote(&io, own_writes))
		return 0;
	char m[sizeof(mark) + 8];
	memcpy(m, mark, mark_len);
	memcpy(m + mark_len, " " MG_PROBE_ERR "\n", sizeof(MG_PROBE_ERR) + 1);
	return mg_proto_write_all(2, m, mark_len + sizeof(MG_PROBE_ERR) + 1, &own_writes) == 0;
}

/*
 * A fatal signal's handler is running: Catch2 reports the test it ends
 * from one (its XML written and flushed there), then raises the signal
 * again; the signal is blocked while its handler runs. A stop there would
 * wait for the runner's quit, which comes after the test's result, and the
 * program dies before it gives one: it stayed stopped until --no-progress
 * (a timeout, where the direct run crashes). No stop there: it dies as it
 * would. Asked only when the boundary would stop (two system calls).
 */
static int in_fatal_handler(void)
{
	static const int fatal[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
	/* Catch2 (v2, v3) runs its handlers, SIGTERM's and SIGINT's too, on an
	 * alternate stack */
	stack_t ss;
	if (sigaltstack(NULL, &ss) == 0 && (ss.ss_flags & SS_ONSTACK))
		return 1;
	sigset_t cur;
	if (pthread_sigmask(SIG_BLOCK, NULL, &cur) != 0)
		return 0;
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		if (sigismember(&cur, fatal[i]) == 1)
			return 1;
	return 0;
}

/* Whether 1 ms has passed since t0: integers only (a division in floating
 * point would raise the program's FE_INEXACT flag). */
static int ms_passed(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	int64_t ns = (int64_t)(t.tv_sec - t0->tv_sec) * 1000000000 + (t.tv_nsec - t0->tv_nsec);
	return ns >= 1000000;
}

/* FNV-1a: a name's hash for done_hash (integers only). */
static uint64_t name_hash(const char *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
	return h;
}

/* The suite part of "Suite.Test" (all of it when there is no dot). */
static size_t suite_len(const char *name, size_t n)
{
	const char *dot = memchr(name, '.', n);
	return dot ? (size_t)(dot - name) : n;
}

/* A test of the running suite ended: kept for done_find (a ring). */
static void done_note(const char *name, size_t n)
{
	size_t sl = suite_len(name, n);
	if (sl != done_slen || sl > sizeof(done_suite) || memcmp(done_suite, name, sl)) {
		done_n = 0; /* another suite: its names are not this one's */
		done_slen = sl <= sizeof(done_suite) ? sl : sizeof(done_suite) + 1;
		if (sl <= sizeof(done_suite))
			memcpy(done_suite, name, sl);
	}
	done_hash[done_n++ % DONE_MAX] = name_hash(name, n);
}

/* Whether name ended before in the running suite. */
static int done_find(const char *name, size_t n)
{
	uint64_t h = name_hash(name, n);
	for (size_t i = 0; i < done_n && i < DONE_MAX; i++)
		if (done_hash[i] == h)
			return 1;
	return 0;
}

/*
 * GoogleTest, with the driver's secret (MG_PROBE_ENV_SECRET): the end's
 * lines go in the program's own stdout, in front of the end tag at, as
 * MG_PROBE_MARK SECRET " stop WHY [BYTES]\n" and " end VA RSS PEAKVA
 * PEAKRSS\n" (the tag's line names the test): the flush about to happen
 * carries them, so a test's end costs no write of the probe's own. 0 when
 * the buffer has no room for them (the pipe then).
 */
static int stream_end(FILE *f, char *at, const char *why, uint64_t bytes, const uint64_t fig[4],
                      int sites, int err)
{
	char buf[2 * (sizeof(mark) + 24) + 4 * 21 + 4];
	char *p = buf;
	if (why) {
		memcpy(p, mark, mark_len);
		p += mark_len;
		*p++ = ' ';
		memcpy(p, MG_PROBE_STOP, sizeof(MG_PROBE_STOP) - 1);
		p += sizeof(MG_PROBE_STOP) - 1;
		size_t wl = strlen(why);
		memcpy(p, why, wl < 16 ? wl : 16);
		p += wl < 16 ? wl : 16;
		if (bytes) {
			*p++ = ' ';
			p = mg_put_u64(p, bytes);
		}
		*p++ = '\n';
	}
	memcpy(p, mark, mark_len);
	p += mark_len;
	*p++ = ' ';
	memcpy(p, MG_PROBE_END, sizeof(MG_PROBE_END) - 1);
	p += sizeof(MG_PROBE_END) - 1;
	for (int i = 0; i < 4; i++) {
		p = mg_put_u64(p, fig[i]);
		*p++ = ' ';
	}
	/* whether a sites block went to the pipe: without one the driver does
	 * not read the pipe (a system call a test) */
	*p++ = sites ? '1' : '0';
	*p++ = ' '; /* whether it marked stderr (err_mark) */
	*p++ = err ? '1' : '0';
	*p++ = '\n';
	size_t len = (size_t)(p - buf);
	if (f->_IO_buf_end - f->_IO_write_ptr < (ptrdiff_t)len)
		return 0;
	memmove(at + len, at, (size_t)(f->_IO_write_ptr - at));
	memcpy(at, buf, len);
	f->_IO_write_ptr += len;
	return 1;
}

/* "VA RSS\n" at p; the end of it. */
static char *put_va_rss(char *p, uint64_t va, uint64_t rss)
{
	p = mg_put_u64(p, va);
	*p++ = ' ';
	p = mg_put_u64(p, rss);
	*p++ = '\n';
	return p;
}

/* In front of the first RUN line it sees (at): MG_PROBE_MARK SECRET
 * " seen VA RSS", so the driver knows this program's ends come in the
 * stream, and has the program's own memory as its first test starts (the
 * base of that test's growth: the driver's hello has a listing program's;
 * the reading the verdict starts from, test_start's). 0 when the buffer
 * has no room for it. */
static int stream_seen(FILE *f, char *at, uint64_t va, uint64_t rss)
{
	char buf[sizeof(mark) + sizeof(" " MG_PROBE_SEEN " ") + 2 * 20 + 1];
	char *p = buf;
	memcpy(p, mark, mark_len);
	p += mark_len;
	memcpy(p, " " MG_PROBE_SEEN " ", sizeof(" " MG_PROBE_SEEN " ") - 1);
	size_t len = (size_t)(put_va_rss(p + sizeof(" " MG_PROBE_SEEN " ") - 1, va, rss) - buf);
	if (f->_IO_buf_end - f->_IO_write_ptr < (ptrdiff_t)len)
		return 0;
	memmove(at + len, at, (size_t)(f->_IO_write_ptr - at));
	memcpy(at, buf, len);
	f->_IO_write_ptr += len;
	return 1;
}

/* "base VA RSS" on the probe pipe: the program's memory as its first test
 * starts, where the stream cannot carry it (Catch2; a seen mark with no
 * room). Written before the start's flush, so the driver has it when it
 * reads the start. */
static void base_to_pipe(uint64_t va, uint64_t rss)
{
	memcpy(line, MG_PROBE_BASE, sizeof(MG_PROBE_BASE) - 1);
	write_all(line, (size_t)(put_va_rss(line + sizeof(MG_PROBE_BASE) - 1, va, rss) - line));
}

/*
 * A test's end: "end VA RSS PEAKVA PEAKRSS NAME" to the probe pipe (peaks 0
 * when not read), after "stop WHY [BYTES]" when a verdict ends the program
 * here (one write, so the driver has both when it has the end); or both in
 * the stream in front of the end tag at (stream_end: "end VA RSS PEAKVA
 * PEAKRSS SITES", SITES 1 when a sites block went to the pipe). Returns 1 when the
 * program must stop at this boundary.
 */
static int test_end(const char *name, size_t n, FILE *f, char *at)
{
	static char sites[16384 + NAME_MAX_OUT + 16];
	uint64_t va, rss, peak_va = 0, peak_rss = 0, bytes = 0;
	/* who allocated what it left, and allocations that failed: before its end */
	int wrote_sites = 0;
	size_t ns = mg_sites_put(sites, sizeof(sites));
	mg_msg nm = {.kind = MG_MSG_NOMEM, .count = mg_sites_nomem()};
	size_t need = nm.count ? mg_proto_put(NULL, 0, &nm) : 0;
	if (need && ns + need <= sizeof(sites))
		ns += mg_proto_put(sites + ns, need, &nm);
	if (ns) { /* then "sites NAME": the driver may read past this test's end */
		size_t k = n > NAME_MAX_OUT ? NAME_MAX_OUT : n;
		if (ns + sizeof(MG_PROBE_SITES) + k <= sizeof(sites)) {
			memcpy(sites + ns, MG_PROBE_SITES, sizeof(MG_PROBE_SITES) - 1);
			ns += sizeof(MG_PROBE_SITES) - 1;
			memcpy(sites + ns, name, k);
			ns += k;
			sites[ns++] = '\n';
			write_all(sites, ns);
			wrote_sites = 1;
		}
	}
	/* stderr's mark first: it is in the pipe when the end is read */
	int err = err_mark();
	if (ms_passed(&t_run))
		mg_contract_status(status_fd, &peak_va, &peak_rss);
	mem_now(&va, &rss);
	if (n > NAME_MAX_OUT)
		n = NAME_MAX_OUT;
	char *p = line;
	const char *why = mg_proto_why_word(mg_verdict_end(&verdict, va, rss, &bytes));
	/* once: it is finishing; never in a fatal signal's handler */
	int stop = why != NULL && probe_fd >= 0 && !stopping && !in_fatal_handler();
	if (!stop)
		why = NULL; /* a name run again while it finishes: its figures only */
	if (!catch2)
		done_note(name, n); /* before the stream's bytes move */
	if (stop || stop_suite_due) {
		stop_suite_len = catch2 ? 0 : suite_len(name, n);
		memcpy(stop_suite, name, stop_suite_len);
		stop_suite_due = 0;
	}
	if (mark_len && at &&
	    stream_end(f, at, why, bytes, (uint64_t[4]){va, rss, peak_va, peak_rss}, wrote_sites,
	               err))
		goto out;
	if (err) {
		memcpy(p, MG_PROBE_ERR "\n", sizeof(MG_PROBE_ERR));
		p += sizeof(MG_PROBE_ERR);
	}
	if (why) {
		size_t wl = strlen(why);
		memcpy(p, MG_PROBE_STOP, sizeof(MG_PROBE_STOP) - 1);
		p += sizeof(MG_PROBE_STOP) - 1;
		memcpy(p, why, wl);
		p += wl;
		if (bytes) {
			*p++ = ' ';
			p = mg_put_u64(p, bytes);
		}
		*p++ = '\n';
	}
	memcpy(p, MG_PROBE_END, sizeof(MG_PROBE_END) - 1);
	p = mg_put_u64(p + sizeof(MG_PROBE_END) - 1, va);
	*p++ = ' ';
	p = mg_put_u64(p, rss);
	*p++ = ' ';
	p = mg_put_u64(p, peak_va);
	*p++ = ' ';
	p = mg_put_u64(p, peak_rss);
	*p++ = ' ';
	memcpy(p, name, n);
	p += n;
	*p++ = '\n';
	write_all(line, (size_t)(p - line));
out:
	return stop;
}

static void env_restore(void);

/* Mark the start of a test (RUN line, <TestCase>). */
static uint64_t base_va, base_rss; /* the program as its first test starts */

/* A test starts: its clock, and at the first one (1 returned) the user's
 * environment back and the reading the verdict, and the first test's
 * growth, start from (base_va, base_rss). */
static int test_start(void)
{
	int first = !have_prev;
	running = 1;
	mg_sites_test_start(NULL, 0);
	if (!started_any) {
		started_any = 1;
		env_restore();
	}
	if (first) {
		mem_now(&base_va, &base_rss);
		mg_verdict_start(&verdict, base_va, base_rss);
		have_prev = 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t_run);
	return first;
}

/* The name after a tag: up to a space or a comma (", where GetParam() = 3"). */
static size_t name_len(const char *p, const char *e)
{
	const char *q = p;
	while (q < e && *q != ' ' && *q != ',')
		q++;
	return (size_t)(q - p);
}

/* Whether the program is finishing: after a stop, or once the driver set
 * the quit word (one load a boundary). The suite whose tear-down may
 * follow is the last ended test's (or, mid-test, the running one's, at
 * its end). */
static int finishing(void)
{
	if (stopping || !quit_word || !*quit_word)
		return stopping;
	stopping = 1;
	if (running) {
		stop_suite_due = 1;
	} else if (!catch2 && done_slen <= sizeof(done_suite)) {
		stop_suite_len = done_slen;
		memcpy(stop_suite, done_suite, done_slen);
	}
	return 1;
}

/* What a flush is to the probe. */
enum { B_NONE, B_STOP /* stop after it */, B_PARK /* end before its last line */ };

/* After a stop, whether the line [ls, e) starts work of a further test:
 * its "[ RUN      ] NAME" (not a name run again in its suite), or the
 * opening line of another suite ("[----------] N tests from SUITE", whose
 * SetUpTestSuite follows; without --gtest_print_time the closing line of
 * the stopping test's suite reads the same, and is not one). */
static int starts_work(const char *ls, const char *e)
{
	static const char frame[] = "[----------] ";
	if (e - ls > TAG_LEN && !memcmp(ls, "[ RUN      ] ", TAG_LEN)) {
		const char *name = ls + TAG_LEN;
		return !done_find(name, name_len(name, e));
	}
	const char *from;
	if (e - ls <= (long)sizeof(frame) || memcmp(ls, frame, sizeof(frame) - 1) ||
	    !(ls[sizeof(frame) - 1] >= '0' && ls[sizeof(frame) - 1] <= '9') ||
	    !(from = memmem(ls, (size_t)(e - ls), " from ", 6)))
		return 0;
	const char *suite = from + 6;
	size_t n = name_len(suite, e);
	return !(n == stop_suite_len && !memcmp(suite, stop_suite, n));
}

/*
 * Looks at the bytes about to be flushed: GoogleTest's tag, at the start of
 * the last line (or after output a test left without a newline). Called
 * with stdout locked. B_STOP when the program must stop after this flush;
 * B_PARK (after a stop) when the last line, from *park, starts a test.
 */
static int boundary(FILE *f, const char **park)
{
	const char *b = f->_IO_write_base, *e = f->_IO_write_ptr;
	if (e - b < TAG_LEN + 1 || e[-1] != '\n')
		return B_NONE;
	e--; /* the line without its newline */
	const char *ls = memrchr(b, '\n', (size_t)(e - b));
	ls = ls ? ls + 1 : b;
	if (finishing() && starts_work(ls, e)) {
		*park = ls;
		return B_PARK;
	}
	for (const char *t = memchr(ls, '[', (size_t)(e - ls)); t && e - t > TAG_LEN;
	     t = memchr(t + 1, '[', (size_t)(e - t - 1))) {
		const char *name = t + TAG_LEN;
		if (!memcmp(t, "[ RUN      ] ", TAG_LEN)) {
			if (test_start() &&
			    !(mark_len && stream_seen(f, (char *)t, base_va, base_rss)))
				base_to_pipe(base_va, base_rss);
			return B_NONE;
		}
		if (running &&
		    (!memcmp(t, "[       OK ] ", TAG_LEN) || !memcmp(t, "[  FAILED  ] ", TAG_LEN) ||
		     !memcmp(t, "[  SKIPPED ] ", TAG_LEN))) {
			running = 0;
			return test_end(name, name_len(name, e), f, (char *)t) ? B_STOP : B_NONE;
		}
	}
	return B_NONE;
}

/*
 * Catch2's XML reporter flushes after each start tag it closes and after
 * each end tag: "</TestCase>" is the end of a test case (after its
 * OverallResult and captured output), "<TestCase name=\"N\"" a start. The
 * name is kept as encoded (the driver compares it so). B_STOP when the
 * program must stop after this flush, B_PARK (after a stop) at a start.
 */
static int boundary_catch2(FILE *f, const char **park)
{
	const char *b = f->_IO_write_base, *e = f->_IO_write_ptr;
	int stop = 0;
	const char *end = memmem(b, (size_t)(e - b), "</TestCase>", 11);
	const char *start = memmem(b, (size_t)(e - b), "<TestCase name=\"", 16);
	if (end && running && (!start || end < start)) {
		running = 0;
		stop = test_end(c2_name, c2_len, f, NULL);
	}
	/* v3 runs each test case of a name its spec names, one after the
	 * other when declared so (two of one name, told apart by their tags):
	 * the name's second is no further test, it runs (as GoogleTest's name
	 * run again: the driver's gtest_dup_run) */
	const char *sn = start ? start + 16 : NULL;
	int again =
	    sn && (size_t)(e - sn) > c2_len && !memcmp(sn, c2_name, c2_len) && sn[c2_len] == '"';
	if (start && !stop && finishing() && !again) {
		*park = start;
		return B_PARK;
	}
	if (start && !stop) {
		const char *n = start + 16, *q = memchr(n, '"', (size_t)(e - n));
		c2_len = q ? (size_t)(q - n) : (size_t)(e - n);
		if (c2_len > NAME_MAX_OUT)
			c2_len = NAME_MAX_OUT;
		memcpy(c2_name, n, c2_len);
		if (test_start())
			base_to_pipe(base_va, base_rss);
	}
	return stop ? B_STOP : B_NONE;
}

/*
 * After a stop the program waits, stopped (SIGSTOP), until the driver has
 * the runner's quit (the runner reads its memory map at the boundary). The
 * driver then continues it, and it finishes what the framework does after
 * that test (the suite's TearDownTestSuite when it was the suite's last;
 * when it was the program's last, everything to its exit) until a further
 * test would start: there it ends (park_at).
 */
static void stop_here(void)
{
	int saved = errno;
	raise(SIGSTOP);
	stopping = 1;
	errno = saved;
}

/*
 * A further test would start after a stop: the program ends here, before
 * that line leaves (its tests are the next generation's). Its output before
 * the line goes out; a LeakSanitizer build checks for leaks now, as its
 * exit would (what the tests run so far left unreachable stays so), and
 * "park LEAKED" (1 when it found some; the report is on stderr) tells the
 * driver. No exit handlers: the program is in the middle of its run.
 */
static void __attribute__((noreturn)) park_at(FILE *f, const char *at)
{
	const char *b = f->_IO_write_base;
	for (size_t done = 0, n = (size_t)(at - b); done < n;) {
		ssize_t w = write(fileno(f), b + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		done += (size_t)w;
	}
	int (*leak_check)(void) =
	    (int (*)(void))dlsym(RTLD_DEFAULT, "__lsan_do_recoverable_leak_check");
	int leaked = leak_check ? leak_check() != 0 : 0;
	write_all(leaked ? MG_PROBE_PARK "1\n" : MG_PROBE_PARK "0\n", sizeof(MG_PROBE_PARK) + 1);
	_exit(0);
}

/* The environment read directly: while dlsym runs (were it to ask), or
 * if it found no getenv. */
static char *getenv_environ(const char *name)
{
	extern char **environ;
	size_t n = strlen(name);
	for (char **e = environ; e && *e; e++)
		if (!strncmp(*e, name, n) && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

/* The real getenv (the next definition: libc's, or another preload's). */
static char *getenv_next(const char *name)
{
	static int resolving;
	if (!real_getenv && !resolving) {
		resolving = 1;
		real_getenv = (char *(*)(const char *))dlsym(RTLD_NEXT, "getenv");
		resolving = 0;
	}
	return real_getenv ? real_getenv(name) : getenv_environ(name);
}

/* Whether the driver named a filter file; the path is kept, as the
 * constructor removes the variable (GoogleTest may ask before or after it
 * ran: a shared libgtest's flags are initialised before this library's
 * constructor may run). Called with filter_lock held. */
static void filter_locate(void)
{
	if (filter_state)
		return;
	const char *v = getenv_next(MG_PROBE_ENV_FILTER);
	size_t n = v ? strlen(v) : 0;
	filter_state = n && n < sizeof(filter_path) ? 1 : -1;
	if (filter_state > 0)
		memcpy(filter_path, v, n + 1);
}

/* The filter file's content, read once (it is then removed: it was written
 * for this one read), or NULL when it cannot be read. Lock held. */
static char *filter_read(void)
{
	int fd = open(filter_path, O_RDONLY | O_CLOEXEC);
	off_t size = fd < 0 ? -1 : lseek(fd, 0, SEEK_END);
	char *text = size >= 0 ? malloc((size_t)size + 1) : NULL;
	size_t got = 0;
	while (text && got < (size_t)size) {
		ssize_t r = pread(fd, text + got, (size_t)size - got, (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	if (fd >= 0)
		close(fd);
	unlink(filter_path);
	if (text && got != (size_t)size) {
		free(text);
		text = NULL;
	}
	if (text)
		text[got] = '\0';
	return text;
}

/*
 * GoogleTest reads GTEST_FILTER with getenv when its flags are initialised:
 * under the driver that is the run's filter, which may be far over the
 * 128 KiB an argument or a variable may hold. When the file cannot be read,
 * MG_PROBE_FILTER_UNREAD: the program runs no test (never ones it was not given).
 * Every other name is the real getenv's.
 */
__attribute__((visibility("default"))) char *getenv(const char *name)
{
	if (name[0] == 'G' && !strcmp(name, "GTEST_FILTER")) {
		pthread_mutex_lock(&filter_lock);
		filter_locate();
		if (filter_state > 0 && !filter_text)
			filter_text = filter_read();
		char *v = filter_state > 0
		              ? (filter_text ? filter_text : (char *)MG_PROBE_FILTER_UNREAD)
		              : NULL;
		pthread_mutex_unlock(&filter_lock);
		if (v)
			return v;
	}
	return getenv_next(name);
}

/* The filter file's name leaves the environment the program's children
 * see (GTEST_FILTER stays MG_PROBE_FILTER_UNREAD for those of a wrapper;
 * the program's own get the user's at its first test, env_restore). */
static void filter_forget(void)
{
	pthread_mutex_lock(&filter_lock);
	filter_locate();
	pthread_mutex_unlock(&filter_lock);
	if (filter_state > 0)
		unsetenv(MG_PROBE_ENV_FILTER);
}

/*
 * At the program's first test (its settings read, GTEST_* by GoogleTest's
 * flags): the environment its tests' children inherit gets the user's own
 * value of each variable the driver set for the program (MG_PROBE_ENV_SET;
 * the user's in MG_PROBE_ENV_USER NAME, or none), without the verdict's
 * limits. Not at load: a wrapper the probe was loaded into (env, a shell)
 * never starts a test, so the program it starts keeps the driver's
 * settings (MG_PROBE_FILTER_UNREAD: no test rather than tests not given).
 * Once; allocates (setenv), outside the per-test path.
 */
static void env_restore(void)
{
	static char names[4096];
	char user[sizeof(MG_PROBE_ENV_USER) + 256];
	const char *set = getenv_next(MG_PROBE_ENV_SET);
	size_t n = set ? strlen(set) : 0;
	if (n && n < sizeof(names)) {
		memcpy(names, set, n + 1);
		for (char *p = names, *colon; p; p = colon ? colon + 1 : NULL) {
			colon = strchr(p, ':');
			if (colon)
				*colon = '\0';
			if (!*p || strlen(p) > 255)
				continue;
			snprintf(user, sizeof(user), MG_PROBE_ENV_USER "%.255s", p);
			const char *u = getenv_next(user);
			if (u)
				setenv(p, u, 1);
			else
				unsetenv(p);
			unsetenv(user);
		}
	}
	unsetenv(MG_PROBE_ENV_SET);
	for (size_t i = 0; i < MG_CONTRACT_NLIMITS; i++)
		unsetenv(mg_contract_limits[i].env);
}

/*
 * The program called exit (a test, mid-test, or its main): the flushes
 * that follow (libstdc++'s of cout at exit flushes stdout) are no
 * boundaries, whatever line the buffer ends with. A result line still in
 * the buffer while a test runs is no line of GoogleTest's (it flushes its
 * own at once): the test's look-alike, printed before its exit, gets
 * MG_PROBE_MARK SECRET " own" in front, so the driver takes it for the
 * test's output, and the exit for the test's.
 */
static int exiting;
static void (*real_exit)(int);

static void mark_own(FILE *f)
{
	static const char *const tags[] = {"[       OK ] ", "[  FAILED  ] ", "[  SKIPPED ] "};
	size_t len = mark_len + sizeof(" " MG_PROBE_OWN "\n") - 1;
	char *l = f->_IO_write_base;
	while (l < f->_IO_write_ptr) {
		char *nl = memchr(l, '\n', (size_t)(f->_IO_write_ptr - l));
		if (!nl)
			break;
		int tag = 0;
		for (int i = 0; i < 3 && nl - l > TAG_LEN; i++)
			tag |= !memcmp(l, tags[i], TAG_LEN);
		if (tag && f->_IO_buf_end - f->_IO_write_ptr >= (ptrdiff_t)len) {
			memmove(l + len, l, (size_t)(f->_IO_write_ptr - l));
			memcpy(l, mark, mark_len);
			memcpy(l + mark_len, " " MG_PROBE_OWN "\n", len - mark_len);
			f->_IO_write_ptr += len;
			nl += len;
		}
		l = nl + 1;
	}
}

__attribute__((visibility("default"), noreturn)) void exit(int status)
{
	if (probe_fd >= 0 && mark_len && !catch2 && running && !exiting) {
		flockfile(stdout);
		mark_own(stdout);
		funlockfile(stdout);
	}
	if (probe_fd >= 0 && catch2 && running && !exiting) {
		/* Catch2's XML reporter (the driver's, not the user's) redirects
		 * cout into a buffer its exit frees before cout's last flush: a
		 * SIGSEGV the direct run does not have. The status asked for is
		 * the test's end. */
		char *p = line;
		memcpy(p, MG_PROBE_CALLED_EXIT, sizeof(MG_PROBE_CALLED_EXIT) - 1);
		p = mg_put_u64(p + sizeof(MG_PROBE_CALLED_EXIT) - 1,
		               (uint64_t)(unsigned)status & 0xff);
		*p++ = '\n';
		write_all(line, (size_t)(p - line));
	}
	exiting = 1;
	if (!real_exit)
		*(void **)&real_exit = dlsym(RTLD_NEXT, "exit");
	real_exit(status);
	__builtin_unreachable();
}

__attribute__((visibility("default"))) int fflush(FILE *f)
{
	if (!real_fflush)
		real_fflush = (int (*)(FILE *))dlsym(RTLD_NEXT, "fflush");
	if (probe_fd < 0 || exiting || f != stdout || !f || f->_IO_write_ptr <= f->_IO_write_base)
		return real_fflush(f);
	flockfile(f);
	int saved = errno; /* the boundary's reads and writes are not the program's */
	const char *at = NULL;
	int what = catch2 ? boundary_catch2(f, &at) : boundary(f, &at);
	errno = saved;
	if (what == B_PARK)
		park_at(f, at);
	own_writes++; /* the flush's write: the framework's, not the test's */
	int rc = real_fflush(f);
	funlockfile(f);
	if (what == B_STOP && catch2) {
		/* Catch2 ends "</TestCase>" with its newline only at the next
		 * element: the driver reads lines, so it gets one now */
		own_writes++;
		ssize_t w = write(1, "\n", 1);
		(void)w;
	}
	if (what == B_STOP)
		stop_here();
	return rc;
}

/* "exit VA RSS" as the program ends (the driver's listing run: a fresh
 * program's memory, the base of its first test). */
__attribute__((destructor)) static void probe_fini(void)
{
	uint64_t va, rss;
	if (probe_fd < 0)
		return;
	int saved = errno;
	mem_now(&va, &rss);
	char *p = line;
	memcpy(p, MG_PROBE_EXIT, sizeof(MG_PROBE_EXIT) - 1);
	p = mg_put_u64(p + sizeof(MG_PROBE_EXIT) - 1, va);
	*p++ = ' ';
	p = mg_put_u64(p, rss);
	*p++ = '\n';
	write_all(line, (size_t)(p - line));
	errno = saved;
}

/* A forked copy (a death test) is not the host: it stays silent. */
static void on_fork_child(void)
{
	probe_fd = -1;
}

/* LD_PRELOAD without this library, so the program's own children (a 32-bit
 * one, a re-executed death test) do not load it. */
static void preload_forget(void)
{
	const char *v = getenv("LD_PRELOAD");
	if (!v)
		return;
	static char rest[4096];
	size_t n = 0;
	for (const char *p = v; *p;) {
		size_t len = strcspn(p, ": ");
		if (len && !memmem(p, len, "libmemguard_probe", 17) && n + len + 1 < sizeof(rest)) {
			if (n)
				rest[n++] = ':';
			memcpy(rest + n, p, len);
			n += len;
		}
		p += len;
		p += *p != '\0';
	}
	rest[n] = '\0';
	if (n)
		setenv("LD_PRELOAD", rest, 1);
	else
		unsetenv("LD_PRELOAD");
}

__attribute__((constructor)) static void probe_init(void)
{
	int saved = errno; /* the program's, from its first instruction */
	real_fflush = (int (*)(FILE *))dlsym(RTLD_NEXT, "fflush");
	*(void **)&real_exit = dlsym(RTLD_NEXT, "exit");
	const char *v = getenv_next(MG_PROBE_ENV_FD);
	const char *fmt = getenv_next(MG_PROBE_ENV_FORMAT);
	const char *secret = getenv_next(MG_PROBE_ENV_SECRET);
	const char *quit = getenv_next(MG_PROBE_ENV_QUIT);
	if (secret && strlen(secret) == 16 && strspn(secret, "0123456789abcdef") == 16) {
		memcpy(mark, MG_PROBE_MARK, sizeof(MG_PROBE_MARK) - 1);
		memcpy(mark + sizeof(MG_PROBE_MARK) - 1, secret, 16);
		mark_len = sizeof(MG_PROBE_MARK) - 1 + 16;
	}
	catch2 = fmt && !strcmp(fmt, "catch2");
	int fd = v && *v && real_fflush ? (int)mg_parse_u64(&v) : -1;
	int qfd = quit && *quit ? (int)mg_parse_u64(&quit) : -1;
	/* every limit of the one list, as the host library reads them, before
	 * the environment loses them */
	mg_contract_read_limits(&verdict, MG_PROTO_VERSION);
	preload_forget();
	filter_forget();
	unsetenv(MG_PROBE_ENV_FD);
	unsetenv(MG_PROBE_ENV_FORMAT);
	unsetenv(MG_PROBE_ENV_SECRET);
	unsetenv(MG_PROBE_ENV_QUIT);
	if (fd < 0 || fcntl(fd, F_GETFD) < 0) {
		if (qfd > 2)
			close(qfd);
		errno = saved;
		return;
	}
	if (qfd > 2) { /* the page stays mapped; the fd goes, out of the program's way */
		void *q = mmap(NULL, 4096, PROT_READ, MAP_SHARED, qfd, 0);
		if (q != MAP_FAILED)
			quit_word = q;
		close(qfd);
	}
	int high = fcntl(fd, F_DUPFD_CLOEXEC, HIGH_FD);
	if (high >= 0) {
		close(fd);
		fd = high;
	} else {
		fcntl(fd, F_SETFD, FD_CLOEXEC);
	}
	page = mg_contract_page();
	statm_fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	status_fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	/* stderr's marks, Catch2's only (GoogleTest's stderr shares its stdout's
	 * pipe: its bytes come in order), need the secret: no output can forge one */
	if (mark_len && catch2) {
		io.fd = open("/proc/self/io", O_RDONLY | O_CLOEXEC);
		if (io.fd >= 0) /* the base: what was written before the first test */
			mg_contract_wrote(&io, own_writes);
	}
	pthread_atfork(NULL, NULL, on_fork_child);
	probe_fd = fd;
	mg_sites_init((unsigned)verdict.sites, verdict.sites_min);
	write_all(MG_PROBE_HELLO, sizeof(MG_PROBE_HELLO) - 1);
	errno = saved;
}

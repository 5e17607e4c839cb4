/*
 * ring.c - the reply ring (PROTOCOL.md "The reply ring"): a native host's
 * replies through shared memory keep every figure, verdict and output byte
 * where the pipe put them, and what is not a wake byte on a ring host's
 * pipe is still a protocol error for the test in front. Real hosts
 * (tests/hosts/fault_host.c, x64 and x86), real memguard runs.
 */
#include "mg_proto.h"
#include "mg_run.h"

#include <sys/mman.h>

#define TESTS 20000

/* A run of the fault host (TESTS silent tests, every 997th printing),
 * through the ring or (no_ring) its pipe. */
static void figures_run(outcome *o, const char *host, int no_ring)
{
	char tests[64];
	snprintf(tests, sizeof(tests), "MG_FAULT_TESTS=%d", TESTS);
	mg(o, ARGV("run", "-q", "-j", "1", "--report", "report.json", "--", host),
	   ENV("MG_FAULT=print@%997", tests, no_ring ? "MG_FAULT_NO_RING=1" : "MG_FAULT_X=1"), 0);
}

static json_t *tests_of(const outcome *o)
{
	return json_object_get(json_array_get(json_object_get(o->report, "shards"), 0), "tests");
}

/* The lines of output that came from one stream (stderr's name the stream,
 * "…: stderr line"), in their order: stdout and stderr are two pipes, so
 * how their lines interleave is a matter of timing whatever the transport;
 * each stream's own order is not. */
static void stream_lines(const char *out, int err, char *buf, size_t n)
{
	size_t k = 0;
	buf[0] = '\0';
	while (out && *out) {
		const char *nl = strchr(out, '\n');
		size_t len = nl ? (size_t)(nl - out + 1) : strlen(out);
		int is_err = memmem(out, len, ": stderr", 8) != NULL;
		if (is_err == err && k + len < n) {
			memcpy(buf + k, out, len);
			buf[k += len] = '\0';
		}
		out += len;
	}
}

/* Whether two kept outputs hold the same lines of each stream in order. */
static int same_output(const json_t *x, const json_t *y)
{
	if (!x || !y)
		return !x && !y;
	char a[4096], b[4096];
	for (int err = 0; err <= 1; err++) {
		stream_lines(json_string_value(x), err, a, sizeof(a));
		stream_lines(json_string_value(y), err, b, sizeof(b));
		if (strcmp(a, b) != 0)
			return 0;
	}
	return 1;
}

/*
 * Through the ring (its 256 KiB wrap around several times) every test has
 * the state and the output it has through the pipe, and every silent test
 * after the first leaves no va or rss figure: the ring's pages are the
 * host's before its hello (a page of it first touched in a test would be
 * that test's rss). The first test and the printing ones (stdio's buffer)
 * move rss by a page or two whatever the transport, so only the silent
 * ones are held to zero. (Through the pipe, a 32-bit host's 17th test
 * shows 64 KiB of rss now and then: not the ring's, so not judged here.)
 */
static void figures(const char *host)
{
	outcome r, p;
	figures_run(&r, host, 0);
	figures_run(&p, host, 1);
	CU_ASSERT(exited_with(&r, 0));
	CU_ASSERT(exited_with(&p, 0));
	CU_ASSERT_FATAL(r.report != NULL && p.report != NULL);
	json_t *rt = tests_of(&r), *pt = tests_of(&p);
	CU_ASSERT_FATAL(json_array_size(rt) == TESTS && json_array_size(pt) == TESTS);
	static const char *const same[] = {"name", "state", "output"};
	static const char *const zero[] = {"va_delta", "rss_delta"};
	size_t wrong = 0, printed = 0;
	for (size_t i = 0; i < TESTS; i++) {
		json_t *a = json_array_get(rt, i), *b = json_array_get(pt, i);
		for (size_t f = 0; f < sizeof(same) / sizeof(same[0]); f++) {
			json_t *x = json_object_get(a, same[f]), *y = json_object_get(b, same[f]);
			int eq = strcmp(same[f], "output") == 0
			             ? same_output(x, y)
			             : (!x && !y) || (x && y && json_equal(x, y));
			if (!eq && wrong++ < 3)
				fprintf(stderr, "\n  test %zu: %s differs: ring %s, pipe %s\n", i,
				        same[f], x ? json_dumps(x, JSON_ENCODE_ANY) : "none",
				        y ? json_dumps(y, JSON_ENCODE_ANY) : "none");
		}
		const char *out = json_string_value(json_object_get(a, "output"));
		printed += out && *out;
		if (i == 0 || i % 997 == 996) /* KIND@%N: the first at N - 1 */
			continue;
		for (size_t f = 0; f < sizeof(zero) / sizeof(zero[0]); f++) {
			json_int_t x = json_integer_value(json_object_get(a, zero[f]));
			if (x && wrong++ < 3)
				fprintf(stderr, "\n  test %zu: %s %lld through the ring\n", i,
				        zero[f], (long long)x);
		}
	}
	CU_ASSERT_EQUAL(wrong, 0);
	CU_ASSERT_EQUAL(printed, TESTS / 997);
	done(&r);
	done(&p);
}

static void figures_x64(void)
{
	figures(FAULT64);
}

static void figures_x86(void)
{
	figures(FAULT32);
}

/* A test of a ring host writes garbage to the reply pipe, then hangs: the
 * pipe carries only wake bytes, so that is a protocol error for it (not a
 * timeout: --timeout 60 would say so), and the rest run in a new host. */
static void garbage(void)
{
	outcome o;
	mg(&o, ARGV("run", "-j", "1", "--timeout", "60", "--report", "report.json", "--", FAULT64),
	   ENV("MG_FAULT=garbage@4,hang@4", "MG_FAULT_TESTS=12"), 0);
	CU_ASSERT(exited_with(&o, 3));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "fault/t004"), "error");
	const char *m = message_of(o.report, "fault/t004");
	CU_ASSERT(m && strstr(m, "protocol error: not a wake byte"));
	CU_ASSERT_EQUAL(count(o.report, "pass"), 11);
	done(&o);
}

/*
 * The ring itself when it fills: a child attaches as a host does and puts
 * 8 MiB of numbered lines (32 times the ring) as fast as it can; the parent
 * takes them with pauses, so the child waits for room again and again
 * (FUTEX_WAIT, woken by the taker), and its pipe brings wake bytes only.
 * Every line arrives, once, in order.
 */
static void full(void)
{
	int fd = memfd_create("ring-test", MFD_CLOEXEC), wake[2];
	CU_ASSERT_FATAL(fd >= 0 && ftruncate(fd, MG_RING_MAP) == 0 && pipe(wake) == 0);
	mg_ring *r = mmap(NULL, MG_RING_MAP, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CU_ASSERT_FATAL(r != MAP_FAILED);
	r->magic = MG_RING_MAGIC;
	r->size = MG_RING_SIZE;
	enum { LINES = 200000 };
	pid_t pid = fork();
	if (pid == 0) {
		close(wake[0]);
		mg_ring *h = mg_ring_attach(fd);
		if (!h)
			_exit(2);
		char line[64];
		for (int i = 0; i < LINES; i++) {
			int n =
			    snprintf(line, sizeof(line), "pass %d 4096 4096 and some more\n", i);
			if (mg_ring_put(h, wake[1], line, (size_t)n, NULL) < 0)
				_exit(3);
		}
		_exit(0);
	}
	close(fd);
	close(wake[1]);
	static char buf[2 * MG_PROTO_LINE_MAX];
	mg_lines l;
	mg_lines_init(&l, buf, sizeof(buf), MG_PROTO_LINE_MAX);
	int next = 0, bad = 0, loops = 0;
	size_t wakes = 0, other = 0;
	while (next < LINES && loops++ < 10000000) {
		long k = mg_lines_fill_ring(&l, r);
		CU_ASSERT_FATAL(k >= 0);
		char *line;
		size_t len;
		while (mg_lines_next(&l, &line, &len)) {
			char want[64];
			int n =
			    snprintf(want, sizeof(want), "pass %d 4096 4096 and some more", next);
			bad += (size_t)n != len || memcmp(want, line, len) != 0;
			next++;
		}
		if (loops % 64 == 0) { /* a runner busy elsewhere: the ring fills */
			struct timespec t = {0, 2000000};
			nanosleep(&t, NULL);
		}
	}
	char b[4096];
	ssize_t n;
	while ((n = read(wake[0], b, sizeof(b))) > 0)
		for (ssize_t i = 0; i < n; i++)
			b[i] == '\n' ? wakes++ : other++;
	int st = 0;
	waitpid(pid, &st, 0);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CU_ASSERT_EQUAL(next, LINES);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(mg_ring_avail(r), 0);
	CU_ASSERT(wakes > 0); /* it was full, and said so */
	CU_ASSERT_EQUAL(other, 0);
	munmap(r, MG_RING_MAP);
	close(wake[0]);
}

/* A descriptor where the ring should be that is not one (a program's own
 * file or pipe, when the runner offered none): not taken, and left open. */
static void foreign_fd(void)
{
	char path[] = "/tmp/mg-ring-XXXXXX";
	int fd = mkstemp(path), p[2];
	CU_ASSERT_FATAL(fd >= 0 && write(fd, "not a ring", 10) == 10 && pipe(p) == 0);
	unlink(path);
	CU_ASSERT_PTR_NULL(mg_ring_attach(fd));
	CU_ASSERT(fcntl(fd, F_GETFD) >= 0);
	CU_ASSERT_PTR_NULL(mg_ring_attach(p[1]));
	CU_ASSERT(fcntl(p[1], F_GETFD) >= 0);
	close(fd);
	close(p[0]);
	close(p[1]);
}

static const mg_case cases[] = {
    {"foreign_fd", foreign_fd},   {"full", full},       {"figures_x64", figures_x64},
    {"figures_x86", figures_x86}, {"garbage", garbage},
};

int main(int argc, char **argv)
{
	/* x86 cases where the kernel refuses 32-bit programs: skipped (77) */
	if (argc > 1 && strstr(argv[1], "x86") && mg_exec_refused(FAULT32, "--list", argv[1], NULL))
		return 77;
	return mg_test_main("ring", cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}

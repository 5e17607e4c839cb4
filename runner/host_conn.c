/*
 * host_conn.c - the runner's end of one host: its environment, the command
 * lines written to its command pipe (written here, with the protocol's one
 * writer, mg_proto_put; taken back here when not yet sent), the replies read
 * from its reply pipe (handed to the lane a line at a time) and its output
 * captured.
 */
#include "run_int.h"

#include "mg_bulk.h"

#include "mg_sites.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

static void set_env(run_ctx *c, size_t slot, const char *name, uint64_t value)
{
	char buf[128];
	snprintf(buf, sizeof(buf), "%s=%llu", name, (unsigned long long)value);
	free(c->env_store[slot]);
	c->env_store[slot] = report_strdup(buf);
}

/*
 * The run's mark secret (v3), chosen once: MG_MARK_SECRET_LEN hex digits
 * from the kernel's random source, so no test's output can hold a mark by
 * chance or on purpose (the time and pid mixed in where it will not say).
 */
static void mark_secret_choose(run_ctx *c)
{
	unsigned char r[MG_MARK_SECRET_LEN / 2];
	if (c->mark_secret[0])
		return;
	if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		struct timespec t;
		clock_gettime(CLOCK_MONOTONIC, &t);
		uint64_t x = (uint64_t)t.tv_nsec ^ ((uint64_t)t.tv_sec << 32) ^
		             ((uint64_t)getpid() << 16) ^ (uint64_t)(uintptr_t)c;
		for (size_t i = 0; i < sizeof(r); i++, x = x * 6364136223846793005ull + 1)
			r[i] = (unsigned char)(x >> 56);
	}
	for (size_t i = 0; i < sizeof(r); i++) {
		c->mark_secret[2 * i] = "0123456789abcdef"[r[i] >> 4];
		c->mark_secret[2 * i + 1] = "0123456789abcdef"[r[i] & 15];
	}
	c->mark_secret[MG_MARK_SECRET_LEN] = '\0';
}

/* Builds the host environment: ours without MEMGUARD_*, plus the protocol's. */
void conn_build_env(run_ctx *c, int with_limits, const lane *l)
{
	size_t k = 0;
	free(c->envp);
	c->envp = spawn_env_without("MEMGUARD_", ENV_SLOTS, &k);
	if (!c->envp) {
		fputs("memguard: out of memory\n", stderr);
		abort();
	}
	set_env(c, 0, MG_ENV_HOST, MG_PROTO_VERSION);
	set_env(c, 1, MG_ENV_CMD_FD, MG_PROTO_CMD_FD);
	set_env(c, 2, MG_ENV_REPLY_FD, MG_PROTO_REPLY_FD);
	for (size_t i = 0; i < 3; i++)
		c->envp[k++] = c->env_store[i];
	mark_secret_choose(c);
	free(c->env_store[8]);
	c->env_store[8] = mg_xrealloc(NULL, sizeof(MG_ENV_MARK "=") + MG_MARK_SECRET_LEN);
	snprintf(c->env_store[8], sizeof(MG_ENV_MARK "=") + MG_MARK_SECRET_LEN, "%s=%s",
	         MG_ENV_MARK, c->mark_secret);
	c->envp[k++] = c->env_store[8];
	/* a native host's replies come through a ring (lane_start made it) */
	if (l && l->h.ring) {
		set_env(c, 9, MG_ENV_RING_FD, MG_PROTO_RING_FD);
		c->envp[k++] = c->env_store[9];
	}
	if (with_limits && c->soft.va) {
		set_env(c, 3, MG_ENV_RECYCLE_VA, c->soft.va);
		c->envp[k++] = c->env_store[3];
	}
	/* the host judges its own rss at each boundary against its share of the
	 * pool (it cannot see the other lanes, and runs ahead of the runner);
	 * the runner judges the pool */
	if (with_limits && l && c->soft.rss) {
		set_env(c, 4, MG_ENV_RECYCLE_RSS, c->soft.rss / c->nlanes);
		c->envp[k++] = c->env_store[4];
	}
	/* v2: the host admits the next test only if its expected growth stays
	 * below the kill limit, and (32-bit) only while a gap-sized block fits */
	if (with_limits && c->hard.va) {
		set_env(c, 5, MG_ENV_KILL_VA, c->hard.va);
		c->envp[k++] = c->env_store[5];
	}
	if (with_limits && c->hard.rss) { /* its share of the pool's kill limit */
		set_env(c, 7, MG_ENV_KILL_RSS, c->hard.rss / c->nlanes);
		c->envp[k++] = c->env_store[7];
	}
	uint64_t gap = c->soft.gap > c->hard.gap ? c->soft.gap : c->hard.gap;
	if (with_limits && gap && c->arch == MG_ARCH_X86) {
		set_env(c, 6, MG_ENV_RECYCLE_GAP, gap);
		c->envp[k++] = c->env_store[6];
	}
	/* allocation sites (--sites): the host library and the probe interpose
	 * the allocator and send who allocated what a test left */
	if (c->o->sites != MG_SITES_OFF) {
		set_env(c, 10, MG_ENV_SITES, c->o->sites);
		c->envp[k++] = c->env_store[10];
		set_env(c, 11, MG_ENV_SITES_MIN, MG_SITES_MIN);
		c->envp[k++] = c->env_store[11];
	}
	/* gtest, catch2 under the user's fail-fast: what the run has left of
	 * it (a shim gives Catch2 no more: catch2_begin) */
	if (c->fail_limit && c->failures < c->fail_limit) {
		set_env(c, 12, MG_ENV_FAIL_LEFT, c->fail_limit - c->failures);
		c->envp[k++] = c->env_store[12];
	}
	/* gtest, catch2: the seed of every program of the run (its order) */
	if (c->seed) {
		set_env(c, 14, MG_ENV_SEED, c->seed);
		c->envp[k++] = c->env_store[14];
	}
	/* ctest's PROCESSORS: which lane of how many, in which run; Catch2
	 * v3's: how many lanes, whose shares are its shards' (catch2_begin) */
	if ((c->driver == DRIVER_CTEST || c->catch2_v3) && l && c->nlanes > 1) {
		char buf[96];
		snprintf(buf, sizeof(buf), "%s=%u/%u/%ld", MG_ENV_LANE, (unsigned)(l - c->lanes),
		         (unsigned)c->nlanes, (long)getpid());
		free(c->env_store[13]);
		c->env_store[13] = report_strdup(buf);
		c->envp[k++] = c->env_store[13];
	}
	/* lanes running copies of one program: each its own TEST_TMPDIR */
	if (l && c->lane_tmp) {
		char buf[4200];
		snprintf(buf, sizeof(buf), "TEST_TMPDIR=%s/lane-%u", c->lane_tmp,
		         (unsigned)(l - c->lanes));
		free(c->env_store[15]);
		c->env_store[15] = report_strdup(buf);
		c->envp[k++] = c->env_store[15];
	}
	/* what the shims write for their programs, and pytest's -x/--maxfail
	 * across the run's processes: in a directory of the run's (run.c),
	 * removed at its end */
	if (c->run_dir) {
		char buf[4200];
		snprintf(buf, sizeof(buf), MG_ENV_RUN_DIR "=%s", c->run_dir);
		free(c->env_store[16]);
		c->env_store[16] = report_strdup(buf);
		c->envp[k++] = c->env_store[16];
	}
	c->envp[k] = NULL;
}

/* Queues the command line m for the host (written by conn_flush); a run
 * line's name is the runner's listed one, well within a line. */
/* Room for the queue to take `need` more bytes. */
static void conn_outq_reserve(host *h, size_t need)
{
	if (h->outq_len + need > h->outq_cap) {
		size_t cap = 2 * (h->outq_len + need);
		h->outq = mg_bulk_realloc(h->outq, h->outq_cap, cap);
		h->outq_cap = cap;
	}
}

void conn_send(host *h, const mg_msg *m)
{
	/* Written once, into room enough for a command line (its word, two
	 * numbers, its text with every byte escaped, the newline): no sizing
	 * pass that escapes the name a second time. A longer line is written
	 * again into the room it said it needs. */
	size_t room = 64 + 2 * m->text_len;
	conn_outq_reserve(h, room);
	size_t n = mg_proto_put(h->outq + h->outq_len, room, m);
	if (n > room) {
		conn_outq_reserve(h, n);
		n = mg_proto_put(h->outq + h->outq_len, n, m);
	}
	if (h->outq_nlines == h->outq_caplines) {
		size_t cap = h->outq_caplines ? 2 * h->outq_caplines : 16;
		h->outq_lines =
		    mg_bulk_realloc(h->outq_lines, h->outq_caplines * sizeof(*h->outq_lines),
		                    cap * sizeof(*h->outq_lines));
		h->outq_caplines = cap;
	}
	h->outq_len += n;
	h->outq_lines[h->outq_nlines++] = (struct outq_line){h->outq_len, m->kind == MG_CMD_RUN};
}

/* The first w queued bytes were written: drop them and the lines they
 * complete. */
static void outq_drop(host *h, size_t w)
{
	size_t done = 0;
	while (done < h->outq_nlines && h->outq_lines[done].end <= w)
		done++;
	size_t written_end = done ? h->outq_lines[done - 1].end : 0;
	if (done == h->outq_nlines)
		h->outq_mid = 0;
	else if (w > written_end) /* the next line is partly written */
		h->outq_mid = 1;
	else if (done)
		h->outq_mid = 0;
	memmove(h->outq_lines, h->outq_lines + done,
	        (h->outq_nlines - done) * sizeof(*h->outq_lines));
	h->outq_nlines -= done;
	for (size_t i = 0; i < h->outq_nlines; i++)
		h->outq_lines[i].end -= w;
	memmove(h->outq, h->outq + w, h->outq_len - w);
	h->outq_len -= w;
}

void conn_flush(run_ctx *c, lane *l)
{
	host *h = &l->h;
	while (h->outq_len) {
		ssize_t w = write(spawn_cmd_fd(h->proc), h->outq, h->outq_len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return;
			/* EPIPE: the host is gone; its EOF and exit status tell the rest. */
			h->outq_len = h->outq_nlines = 0;
			return;
		}
		outq_drop(h, (size_t)w);
	}
	(void)c;
}

/* Takes back the run lines not yet written to the host: returns how many
 * (their tests are the last of the flight, for the lane to put back), so a
 * host being ended runs only what it was already sent. A line partly
 * written stays, to be finished. */
size_t conn_unfeed(host *h)
{
	size_t keep = h->outq_mid && h->outq_nlines ? 1 : 0, runs = 0;
	for (size_t i = keep; i < h->outq_nlines; i++)
		runs += h->outq_lines[i].run; /* run lines, not their expect lines */
	h->outq_nlines = keep;
	h->outq_len = keep ? h->outq_lines[0].end : 0;
	return runs;
}

int conn_ring_open(host *h)
{
	int fd = memfd_create("memguard-ring", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	void *p = MAP_FAILED;
	if (ftruncate(fd, MG_RING_MAP) == 0)
		p = mmap(NULL, MG_RING_MAP, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		close(fd);
		return -1;
	}
	h->ring = p;
	h->ring->magic = MG_RING_MAGIC;
	h->ring->size = MG_RING_SIZE;
	return fd;
}

void conn_ring_close(host *h)
{
	if (h->ring)
		munmap(h->ring, MG_RING_MAP);
	h->ring = NULL;
	h->ring_on = 0;
}

/* Whether the host took its ring (before its first reply). */
static int ring_taken(const host *h)
{
	return h->ring && (h->ring_on || __atomic_load_n(&h->ring->attached, __ATOMIC_ACQUIRE));
}

/* Armed before the host has taken it too: its hello is its first publish. */
int conn_ring_arm(host *h)
{
	return h->ring && mg_ring_arm(h->ring) != 0 && ring_taken(h);
}

void conn_ring_disarm(host *h)
{
	if (h->ring)
		__atomic_store_n(&h->ring->wake, 0, __ATOMIC_RELAXED);
}

int conn_ring_ready(const host *h)
{
	return ring_taken(h) && mg_ring_avail(h->ring) != 0;
}

/* Whether n bytes from a ring host's pipe are all wake bytes (LF). */
static int all_wake(const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i] != '\n')
			return 0;
	return 1;
}

/*
 * A ring host's replies: what its ring holds, moved into the line buffer;
 * its pipe is read only when poll found it readable, for the wake bytes
 * (dropped; any other byte is CONN_GARBAGE) and its end (the host has
 * exited: after what it published). The pipe is read once the ring is
 * empty: what a test wrote there is blamed on the test in front then.
 */
static int conn_fill_ring(host *h)
{
	long k = mg_lines_fill_ring(&h->lines, h->ring);
	if (k == MG_LINES_LONG)
		return CONN_LONG;
	if (k < 0)
		return CONN_BROKEN;
	if (mg_ring_avail(h->ring))
		return CONN_MORE;
	if (!h->reply_ready)
		return CONN_DRAINED;
	h->reply_ready = 0;
	char wake[512];
	for (;;) {
		ssize_t n = read(spawn_reply_fd(h->proc), wake, sizeof(wake));
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0 && !k && !mg_ring_avail(h->ring)) {
			spawn_close_reply(h->proc);
			return CONN_EOF;
		}
		if (n == 0) { /* the lines first; the next fill sees the end again */
			h->reply_ready = 1;
			return CONN_MORE;
		}
		if (n > 0 && !all_wake(wake, (size_t)n))
			return CONN_GARBAGE;
		if (n < (ssize_t)sizeof(wake))
			return CONN_DRAINED;
	}
}

int conn_fill(host *h)
{
	if (h->ring && !h->ring_on && __atomic_load_n(&h->ring->attached, __ATOMIC_ACQUIRE)) {
		/* it took the ring before its first reply: what its pipe
		 * brought is wake bytes */
		h->ring_on = 1;
		int wake = all_wake(h->lines.buf + h->lines.start, h->lines.len);
		h->lines.start = h->lines.len = 0;
		if (!wake)
			return CONN_GARBAGE;
	}
	if (h->ring_on)
		return conn_fill_ring(h);
	for (;;) {
		size_t want = h->lines.cap - h->lines.len;
		long n = mg_lines_fill(&h->lines, spawn_reply_fd(h->proc));
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return CONN_DRAINED;
		if (n == MG_LINES_LONG)
			return CONN_LONG;
		if (n <= 0) {
			spawn_close_reply(h->proc);
			return CONN_EOF;
		}
		if (h->ring && __atomic_load_n(&h->ring->attached, __ATOMIC_ACQUIRE))
			return conn_fill(h); /* it took the ring: these were wake bytes */
		/* a pipe read returns less than asked only when the pipe is empty,
		 * so the read that would say EAGAIN is not made */
		return (size_t)n < want ? CONN_DRAINED : CONN_MORE;
	}
}

int conn_next_line(host *h, char **line, size_t *len)
{
	return mg_lines_next(&h->lines, line, len);
}

/* The test whose output ordinal n is (v2), or NULL; forgets the tests
 * both streams are past. A host marks only the tests that wrote, so a
 * stream's ordinal can stand still for long: the tests more than two
 * pipelines behind the host's results are past too (a mark is read at most
 * a loop turn after the result it came before, and a turn brings at most a
 * pipeline of results). */
static rtest *sent_test(run_ctx *c, host *h, uint64_t n)
{
	uint64_t low = h->out_seq[0] < h->out_seq[1] ? h->out_seq[0] : h->out_seq[1];
	uint64_t done = h->sent_base + h->nsent - h->nflight,
	         lag = 2 * (uint64_t)c->o->pipeline + 2;
	if (done > lag && done - lag > low)
		low = done - lag;
	if (low > h->sent_base + 1024 && low - h->sent_base <= h->nsent) {
		size_t drop = (size_t)(low - h->sent_base);
		memmove(h->sent, h->sent + drop, (h->nsent - drop) * sizeof(*h->sent));
		h->nsent -= drop;
		h->sent_base = low;
	}
	if (n < h->sent_base || n - h->sent_base >= h->nsent)
		return NULL;
	return &c->tests[h->sent[n - h->sent_base]];
}

/* Keeps n bytes of stream k until its next mark says whose they are (they
 * are streamed now): the first output_head, past them the last bytes in a
 * ring, as record_output keeps a test's; what falls between is counted. */
static void pend_add(run_ctx *c, host *h, int k, const char *buf, size_t n)
{
	record_stream(c, buf, n);
	size_t head = c->o->output_head;
	size_t room = head > h->out_npend[k] ? head - h->out_npend[k] : 0;
	size_t take = n < room ? n : room;
	if (h->out_npend[k] + take > h->out_cappend[k]) {
		h->out_cappend[k] = 2 * (h->out_npend[k] + take);
		h->out_pend[k] = mg_xrealloc(h->out_pend[k], h->out_cappend[k]);
	}
	if (take) { /* nothing kept yet may mean no buffer yet */
		memcpy(h->out_pend[k] + h->out_npend[k], buf, take);
		h->out_npend[k] += take;
	}
	h->out_pend_dropped[k] += record_tail_keep(c, &h->out_pend_tail[k], buf + take, n - take);
}

/* Gives stream k's kept bytes to rt (NULL: dropped): head, then the tail. */
static void pend_give(run_ctx *c, host *h, int k, rtest *rt)
{
	rtail *t = h->out_pend_tail[k];
	if (rt) {
		if (h->out_npend[k])
			record_output(c, rt, h->out_pend[k], h->out_npend[k]);
		if (t) {
			const char *p0, *p1;
			size_t n0, n1;
			record_tail_pieces(t, &p0, &n0, &p1, &n1);
			record_output(c, rt, p0, n0);
			record_output(c, rt, p1, n1);
		}
		rt->out_dropped += h->out_pend_dropped[k];
	}
	if (t)
		t->len = t->at = 0;
	h->out_npend[k] = 0;
	h->out_pend_dropped[k] = 0;
}

void conn_output_to(run_ctx *c, lane *l, rtest *rt)
{
	host *h = &l->h;
	if (!conn_output_marked(c, h))
		return;
	for (int k = 0; k < 2; k++) {
		conn_read_output(c, l, k);
		if (h->mark_npend[k]) /* it was output after all */
			pend_add(c, h, k, h->mark_pend[k], h->mark_npend[k]);
		h->mark_npend[k] = 0;
		pend_give(c, h, k, rt);
	}
}

/*
 * v2: splits what a stream brought at the host's marks. Bytes are kept
 * until a mark "HEAD N TAIL" says they are test N's (the tests since the
 * last mark wrote nothing); the stream moves to ordinal N + 1 and the mark
 * is dropped (HEAD: MG_MARK_HEAD and, from version 3, the run's secret). A
 * mark cut by the end of a read waits in mark_pend for the next. Bytes that
 * only look like the start of a mark are output.
 */
static void split_marked(run_ctx *c, host *h, int k, const char *buf, size_t n)
{
	char mark_head[sizeof(MG_MARK_HEAD) + MG_MARK_SECRET_LEN];
	size_t head = (size_t)snprintf(mark_head, sizeof(mark_head), "%s%s", MG_MARK_HEAD,
	                               h->version >= 3 ? c->mark_secret : "");
	char joined[sizeof(h->mark_pend[0]) + 65536];
	if (h->mark_npend[k]) { /* a mark cut short: it continues here */
		memcpy(joined, h->mark_pend[k], h->mark_npend[k]);
		memcpy(joined + h->mark_npend[k], buf, n);
		n += h->mark_npend[k];
		buf = joined;
		h->mark_npend[k] = 0;
	}
	size_t from = 0, i = 0;
	while (i < n) {
		const char *p = memchr(buf + i, MG_MARK_HEAD[0], n - i);
		if (!p)
			break;
		i = (size_t)(p - buf);
		size_t j = i, avail = n - i;
		/* the head, digits, the tail: complete, cut short, or not a mark */
		size_t m = 0;
		while (m < head && m < avail && buf[j + m] == mark_head[m])
			m++;
		if (m < head && m < avail) {
			i++;
			continue;
		}
		size_t d = head;
		uint64_t ord = 0;
		while (d < avail && d < head + 20 && buf[j + d] >= '0' && buf[j + d] <= '9')
			ord = ord * 10 + (uint64_t)(buf[j + d++] - '0');
		if (d == avail || (m == avail && m < head)) {
			if (avail < sizeof(h->mark_pend[k])) { /* cut short: keep it */
				pend_add(c, h, k, buf + from, i - from);
				memcpy(h->mark_pend[k], buf + i, avail);
				h->mark_npend[k] = avail;
				return;
			}
			i++;
			continue;
		}
		if (d == head || buf[j + d] != MG_MARK_TAIL) {
			i++;
			continue;
		}
		pend_add(c, h, k, buf + from, i - from);
		pend_give(c, h, k, sent_test(c, h, ord));
		h->out_seq[k] = ord + 1;
		i = j + d + 1;
		from = i;
	}
	pend_add(c, h, k, buf + from, n - from);
}

int conn_output_marked(const run_ctx *c, const host *h)
{
	return h->version >= 2 && (driver_serves_protocol(c->driver) || policy_process_per_test(c));
}

void conn_read_output(run_ctx *c, lane *l, int err_stream)
{
	host *h = &l->h;
	char buf[65536];
	for (;;) {
		int fd = err_stream ? spawn_err_fd(h->proc) : spawn_out_fd(h->proc);
		if (fd < 0)
			return;
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return;
		if (n == 0) {
			/* marked output still kept waits for the host's end
			 * (conn_output_to): its test is known only then */
			if (!conn_output_marked(c, h)) {
				rtest *rt = sent_test(c, h, h->out_seq[err_stream]);
				if (rt && h->mark_npend[err_stream]) {
					record_stream(c, h->mark_pend[err_stream],
					              h->mark_npend[err_stream]);
					record_output(c, rt, h->mark_pend[err_stream],
					              h->mark_npend[err_stream]);
				}
				h->mark_npend[err_stream] = 0;
			}
			if (err_stream)
				spawn_close_err(h->proc);
			else
				spawn_close_out(h->proc);
			return;
		}
		if (conn_output_marked(c, h))
			split_marked(c, h, err_stream, buf, (size_t)n);
		else if (h->nflight) { /* v1: the test in front when the bytes are read */
			record_stream(c, buf, (size_t)n);
			record_output(c, &c->tests[flight_at(h, 0, c->o->pipeline)], buf,
			              (size_t)n);
		} else { /* v1, none in front: the test that ended last in this
			  * host, if any (not the last sent: one it was sent but did
			  * not start goes back to the queue, to run in another host,
			  * and a recycled program's leak report was its output) */
			record_stream(c, buf, (size_t)n);
			if (h->last_ended)
				record_output(c, &c->tests[h->last_ended - 1], buf, (size_t)n);
		}
		if ((size_t)n < sizeof(buf)) /* drained: no read just for EAGAIN */
			return;
	}
}

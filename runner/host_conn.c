/*
 * host_conn.c - the runner's end of one host: its environment, the run
 * lines written to its command pipe, the replies read from its reply pipe
 * (handed to the lane a line at a time) and its output captured.
 */
#include "run_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void set_env(run_ctx *c, size_t slot, const char *name, uint64_t value)
{
	char buf[128];
	snprintf(buf, sizeof(buf), "%s=%llu", name, (unsigned long long)value);
	free(c->env_store[slot]);
	c->env_store[slot] = report_strdup(buf);
}

/* Builds the host environment: ours without MEMGUARD_*, plus the protocol's. */
void conn_build_env(run_ctx *c, int with_limits, const lane *l)
{
	size_t k = 0;
	free(c->envp);
	c->envp = spawn_env_without("MEMGUARD_", 8, &k);
	if (!c->envp) {
		fputs("memguard: out of memory\n", stderr);
		abort();
	}
	set_env(c, 0, MG_ENV_HOST, MG_PROTO_VERSION);
	set_env(c, 1, MG_ENV_CMD_FD, MG_PROTO_CMD_FD);
	set_env(c, 2, MG_ENV_REPLY_FD, MG_PROTO_REPLY_FD);
	for (size_t i = 0; i < 3; i++)
		c->envp[k++] = c->env_store[i];
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
	c->envp[k] = NULL;
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
			h->outq_len = 0;
			return;
		}
		if (w > 0)
			h->outq_mid = h->outq[w - 1] != '\n';
		memmove(h->outq, h->outq + w, h->outq_len - (size_t)w);
		h->outq_len -= (size_t)w;
	}
	(void)c;
}

/* Takes back the run lines not yet written to the host: returns how many
 * (their tests are the last of the flight, for the lane to put back), so a
 * host being ended runs only what it was already sent. */
size_t conn_unfeed(host *h)
{
	size_t keep = 0, lines = 0;
	if (h->outq_mid) {
		char *nl = memchr(h->outq, '\n', h->outq_len);
		keep = nl ? (size_t)(nl - h->outq) + 1 : h->outq_len;
	}
	for (size_t i = keep; i < h->outq_len; i++) /* run lines, not their expect lines */
		lines += h->outq[i] == 'r' && (i == 0 || h->outq[i - 1] == '\n');
	h->outq_len = keep;
	return lines;
}

/* Reads the reply pipe; returns after EOF handling or EAGAIN. */
void conn_read_replies(run_ctx *c, lane *l)
{
	host *h = &l->h;
	for (;;) {
		long n = mg_lines_fill(&h->lines, spawn_reply_fd(h->proc));
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return;
		if (n == MG_LINES_LONG) {
			lane_protocol_error(c, l, "line longer than the protocol allows");
			return;
		}
		if (n <= 0) {
			spawn_close_reply(h->proc);
			lane_fire(c, l, EV_EOF);
			return;
		}
		char *line;
		size_t len;
		/* a line can end the host (its buffer goes with it): check first */
		while (h->state != HOST_NONE && h->state != HOST_DYING &&
		       mg_lines_next(&h->lines, &line, &len))
			lane_line(c, l, line, len);
		if (h->state == HOST_NONE || h->state == HOST_DYING)
			return;
	}
}

/* The test whose output ordinal n is (v2), or NULL; forgets the tests
 * both streams are past. */
static rtest *sent_test(run_ctx *c, host *h, uint64_t n)
{
	uint64_t low = h->out_seq[0] < h->out_seq[1] ? h->out_seq[0] : h->out_seq[1];
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

/*
 * v2: splits what a stream brought at the host's marks. Bytes go to the
 * test of the stream's current ordinal; a mark "HEAD N TAIL" moves the
 * stream to ordinal N + 1 and is dropped. A mark cut by the end of a read
 * waits in mark_pend for the next. Bytes that only look like the start of a
 * mark are output.
 */
static void split_marked(run_ctx *c, host *h, int k, const char *buf, size_t n)
{
	static const size_t head = sizeof(MG_MARK_HEAD) - 1;
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
		while (m < head && m < avail && buf[j + m] == MG_MARK_HEAD[m])
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
				rtest *rt = sent_test(c, h, h->out_seq[k]);
				if (rt && i > from)
					record_output(c, rt, buf + from, i - from);
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
		rtest *rt = sent_test(c, h, h->out_seq[k]);
		if (rt && i > from)
			record_output(c, rt, buf + from, i - from);
		h->out_seq[k] = ord + 1;
		i = j + d + 1;
		from = i;
	}
	rtest *rt = sent_test(c, h, h->out_seq[k]);
	if (rt && n > from)
		record_output(c, rt, buf + from, n - from);
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
			rtest *rt = sent_test(c, h, h->out_seq[err_stream]);
			if (rt && h->mark_npend[err_stream]) /* it was output after all */
				record_output(c, rt, h->mark_pend[err_stream],
				              h->mark_npend[err_stream]);
			h->mark_npend[err_stream] = 0;
			if (err_stream)
				spawn_close_err(h->proc);
			else
				spawn_close_out(h->proc);
			return;
		}
		if (h->version >= 2 &&
		    (driver_serves_protocol(c->driver) || policy_process_per_test(c)))
			split_marked(c, h, err_stream, buf, (size_t)n);
		else if (h->nflight) /* v1: the test in front when the bytes are read */
			record_output(c, &c->tests[flight_at(h, 0, c->o->pipeline)], buf,
			              (size_t)n);
	}
}

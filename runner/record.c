/*
 * record.c - the only writer of the report during a run: a test's final
 * state and figures, a generation's start, warning, end and breakdown, a
 * lane's CPU time; recycles and kills are counted from the ends, once.
 * Reads /proc/PID/maps only for a breakdown (recycle, kill, end): never per sample.
 */
#include "run_int.h"

#include "defuse.h"
#include "progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

report_shard *record_shard(run_ctx *c, lane *l)
{
	return &c->rep->shards[l->shard];
}

report_generation *record_gen(run_ctx *c, lane *l)
{
	return &record_shard(c, l)->gens[l->h.gen];
}

/* Gives test t its final state, in lane l's shard. */
void record_test(run_ctx *c, lane *l, size_t t, test_state st, const char *msg, size_t msg_len,
                 double duration, uint64_t va, uint64_t rss, int64_t dva, int64_t drss)
{
	rtest *rt = &c->tests[t];
	report_shard *sh = record_shard(c, l);
	report_test *r = report_shard_add_test(sh);
	/* in the shard's name blocks, as the listing's are in its own: no
	 * malloc and free a test */
	r->name = report_names_add(&sh->names, rt->name, rt->len);
	r->state = st;
	r->message = msg ? report_strndup(msg, msg_len) : NULL;
	if (rt->near_ceiling && st == TEST_PASS && !msg_len)
		for (size_t i = 0; i < c->nnear_first; i++)
			if (c->near_first[i].t == t) {
				free(r->message);
				r->message = c->near_first[i].msg; /* the report's now */
				c->near_first[i] = c->near_first[--c->nnear_first];
				break;
			}
	/* its output is attached at the end of the run (record_finish): with
	 * marked streams, the last of it may come after the result */
	rt->recorded = 1;
	rt->rec_shard = l->shard;
	rt->rec_index = record_shard(c, l)->ntests - 1;
	uint32_t gen = l->h.state != HOST_NONE ? (uint32_t)record_gen(c, l)->index : 0;
	/* saturated: 16.7 million hosts in one lane is beyond any run's memory */
	r->generation = gen < REPORT_MAX_GENERATION ? gen : REPORT_MAX_GENERATION;
	r->attempts = rt->attempts < REPORT_MAX_ATTEMPTS ? rt->attempts : REPORT_MAX_ATTEMPTS;
	r->near_ceiling = rt->near_ceiling;
	r->duration = (float)duration;
	r->va_after = va;
	r->rss_after = rss;
	r->va_delta = dva;
	r->rss_delta = drss;
	rt->done = 1;
	rt->failed = st != TEST_PASS && st != TEST_SKIP;
	rt->fw_failed = st == TEST_FAIL || st == TEST_CRASH || st == TEST_TIMEOUT;
	c->wait_epoch++; /* a test waiting for it may go */
	c->remaining--;
	c->failures += (unsigned)policy_fail_counts(st, 0);
	progress_test_done(c->prog, l->index, st);
}

/* The first attempt's message kept for the retry's pass: its first 2 KiB
 * (a pass says why it ran twice, not the whole failure). */
#define NEAR_FIRST_MAX 2048

void record_near_first(run_ctx *c, size_t t, const char *why, const char *msg, size_t msg_len)
{
	struct near_first *n =
	    realloc(c->near_first, (c->nnear_first + 1) * sizeof(*c->near_first));
	if (!n)
		return; /* the retry's pass is still a pass, without the why */
	c->near_first = n;
	int cut = msg_len > NEAR_FIRST_MAX;
	char *m = NULL;
	if (asprintf(&m,
	             "passed alone in a fresh host; its first attempt failed near the "
	             "memory ceiling (%s)%s%.*s%s",
	             why, msg_len ? ": " : "", (int)(cut ? NEAR_FIRST_MAX : msg_len),
	             msg ? msg : "", cut ? " [cut]" : "") < 0)
		return;
	n[c->nnear_first++] = (struct near_first){t, m};
}

/* The VA peak of the test lane l recorded last (only a test whose peak rose
 * above where it started and ended has one). */
void record_test_peak(run_ctx *c, lane *l, uint64_t va_peak)
{
	report_shard *s = record_shard(c, l);
	report_shard_set_test_peak(s, s->ntests - 1, va_peak);
}

/* A host refused a test its history said would not fit (a recycle before
 * it: a kill avoided). */
void record_avoided(run_ctx *c)
{
	c->rep->history.avoided++;
}

void record_testf(run_ctx *c, lane *l, size_t t, test_state st, double duration, const char *fmt,
                  ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(msg))
		n = sizeof(msg) - 1;
	record_test(c, l, t, st, msg, (size_t)n, duration, l->h.va_last, l->h.rss_last, 0, 0);
}

/*
 * An entry outside the listed tests that a driver shim found (a failed
 * TearDownTestSuite, the program's exit status) or the pytest plugin (a
 * fixture's teardown error after a host's last test, named as pytest names
 * it: the test it follows): recorded once in lane l's shard, by name among
 * the extras (every program that ran the suite reports it; the suite run
 * directly reports it once). O(extras) per call: such entries are rare.
 */
void record_extra(run_ctx *c, lane *l, test_state st, const char *name, size_t nlen,
                  const char *msg, size_t mlen)
{
	for (size_t i = 0; i < c->nextras; i++) {
		const report_test *r =
		    &c->rep->shards[c->extras[2 * i]].tests[c->extras[2 * i + 1]];
		if (strlen(r->name) == nlen && !memcmp(r->name, name, nlen))
			return;
	}
	report_shard *s = record_shard(c, l);
	report_test *r = report_shard_add_test(s);
	c->extras = mg_xrealloc(c->extras, (c->nextras + 1) * 2 * sizeof(*c->extras));
	c->extras[2 * c->nextras] = l->shard;
	c->extras[2 * c->nextras + 1] = s->ntests - 1;
	c->nextras++;
	r->name = report_strndup(name, nlen);
	r->state = st;
	r->message = report_strndup(msg, mlen);
	uint32_t gen = l->h.state != HOST_NONE ? (uint32_t)record_gen(c, l)->index : 0;
	r->generation = gen < REPORT_MAX_GENERATION ? gen : REPORT_MAX_GENERATION;
	r->attempts = 1;
	r->va_after = l->h.va_last;
	r->rss_after = l->h.rss_last;
	c->failures += (unsigned)policy_fail_counts(st, 1);
	progress_test_done(c->prog, l->index, st);
}

/* wrap's output, whole lines, to stdout defused for the CI's scanner (a
 * test's text never a CI command), the progress line cleared first. */
static void stream_lines(run_ctx *c, const char *buf, size_t n)
{
	while (n) {
		const char *nl = memchr(buf, '\n', n);
		size_t take = nl ? (size_t)(nl - buf) + 1 : n;
		size_t room = sizeof(c->stream_pend) - c->stream_npend;
		if (take > room)
			take = room;
		memcpy(c->stream_pend + c->stream_npend, buf, take);
		c->stream_npend += take;
		buf += take;
		n -= take;
		if ((nl && buf == nl + 1) || c->stream_npend == sizeof(c->stream_pend))
			record_stream_flush(c);
	}
}

void record_stream_flush(run_ctx *c)
{
	if (!c->stream_npend)
		return;
	progress_clear(c->prog);
	defuse_write(stdout, c->stream_pend, c->stream_npend, defuse_scanners());
	if (c->stream_pend[c->stream_npend - 1] != '\n' && c->stream_npend < sizeof(c->stream_pend))
		fputc('\n', stdout); /* the end of a last line without one */
	fflush(stdout);
	c->stream_npend = 0;
}

void record_stream(run_ctx *c, const char *buf, size_t n)
{
	if (c->stream)
		stream_lines(c, buf, n);
}

size_t record_tail_keep(const run_ctx *c, rtail **tail, const char *buf, size_t n)
{
	size_t cap = c->o->output_limit - c->o->output_head;
	if (!n)
		return 0;
	if (!cap)
		return n;
	if (!*tail) {
		*tail = mg_xrealloc(NULL, sizeof(rtail) + cap);
		(*tail)->cap = cap;
		(*tail)->len = (*tail)->at = 0;
	}
	rtail *t = *tail;
	size_t cut = t->len + n > t->cap ? t->len + n - t->cap : 0;
	if (n > t->cap) { /* only the last cap bytes can stay */
		memcpy(t->buf, buf + n - t->cap, t->cap);
		t->len = t->cap;
		t->at = 0;
		return cut;
	}
	size_t first = t->cap - t->at < n ? t->cap - t->at : n;
	memcpy(t->buf + t->at, buf, first);
	memcpy(t->buf, buf + first, n - first);
	t->at = (t->at + n) % t->cap;
	t->len = t->len + n > t->cap ? t->cap : t->len + n;
	return cut;
}

void record_tail_pieces(const rtail *t, const char **p0, size_t *n0, const char **p1, size_t *n1)
{
	size_t start = t->len < t->cap ? 0 : t->at;
	*p0 = t->buf + start;
	*n0 = t->len < t->cap ? t->len : t->cap - t->at;
	*p1 = t->buf;
	*n1 = t->len - *n0;
}

/* The head keeps output_head bytes; past it a ring keeps the last
 * output_limit - output_head; what the ring overwrites is counted as cut. */
void record_output(run_ctx *c, rtest *rt, const char *buf, size_t n)
{
	size_t head = c->o->output_head;
	size_t room = head > rt->out_len ? head - rt->out_len : 0;
	size_t take = n < room ? n : room;
	if (take) {
		rt->out = mg_xrealloc(rt->out, rt->out_len + take);
		memcpy(rt->out + rt->out_len, buf, take);
		rt->out_len += take;
	}
	rt->out_dropped += record_tail_keep(c, &rt->tail, buf + take, n - take);
}

/* A generation for the host lane l just started (its pid known): running
 * until record_host_end says how it ended. */
void record_host_start(run_ctx *c, lane *l)
{
	host *h = &l->h;
	report_shard *s = record_shard(c, l);
	report_generation *g = report_shard_add_generation(s);
	g->index = (uint32_t)(s->ngens - 1);
	g->pid = h->pid;
	g->start = now(c);
	g->end = REPORT_END_RUNNING;
	h->gen = s->ngens - 1;
	h->t_start = g->start;
	if (s->ngens == 1)
		l->first_start = g->start;
}

/* The soft-limit warning of a host whose driver cannot recycle. */
void record_warning(run_ctx *c, lane *l, const char *warning)
{
	report_generation *g = record_gen(c, l);
	free(g->warning);
	g->warning = report_strdup(warning);
}

void record_host_end(run_ctx *c, lane *l, host_end end, const char *why)
{
	report_generation *g = record_gen(c, l);
	host *h = &l->h;
	double t = now(c);
	free(g->reason);
	g->end = end;
	g->reason = why && *why ? report_strdup(why) : NULL;
	g->tests_run = h->tests_run;
	if (h->peak_va > g->peak_va)
		g->peak_va = h->peak_va;
	if (h->peak_rss > g->peak_rss)
		g->peak_rss = h->peak_rss;
	g->wall = t - g->start;
	l->last_end = t;
}

/*
 * Records a breakdown of the host's address space (by category, the largest
 * groups of mappings, the largest free gap) in its generation. Reads
 * /proc/PID/maps: ~0.2 ms for 500 mappings. Only at a recycle, a kill or a
 * host's end, never per sample. A host already gone leaves no breakdown, and
 * so does a shim with no program (its own maps are memguard's, not the
 * suite's).
 */
void record_breakdown(run_ctx *c, lane *l, const char *when)
{
	maps_breakdown b;
	/* the layout's ceiling: a capped 64-bit host still maps high */
	pid_t pid = sample_maps_pid(c, &l->h, now(c));
	if (!pid || maps_read(&b, pid, limits_arch_ceiling(c->arch), NULL) < 0)
		return;
	report_breakdown *rb = report_generation_add_breakdown(record_gen(c, l));
	rb->when = report_strdup(when);
	rb->va = b.va;
	rb->largest_gap = b.largest_gap;
	for (size_t i = 0; i < b.ncats; i++) {
		report_category *rc = report_breakdown_add_category(rb);
		rc->name = report_strdup(b.cats[i].name);
		rc->va = b.cats[i].va;
		rc->rss = b.cats[i].rss;
	}
	for (size_t i = 0; i < b.ngroups; i++) {
		report_group *g = report_breakdown_add_group(rb);
		g->name = report_strdup(b.groups[i].name);
		g->count = b.groups[i].count;
		g->size = b.groups[i].size;
		g->total = b.groups[i].count * b.groups[i].size;
	}
}

void record_usage(run_ctx *c, size_t lane_idx, const struct rusage *ru)
{
	lane *l = &c->lanes[lane_idx];
	l->user += (double)ru->ru_utime.tv_sec + (double)ru->ru_utime.tv_usec / 1e6;
	l->sys += (double)ru->ru_stime.tv_sec + (double)ru->ru_stime.tv_usec / 1e6;
}

/* The limits in force, as the report shows them. */
void record_limits(run_ctx *c)
{
	char s[128], h[128];
	limits_format(s, sizeof(s), &c->soft);
	limits_format(h, sizeof(h), &c->hard);
	if (c->o->address_space || (c->as_inherited && c->as_cap < limits_arch_ceiling(c->arch))) {
		char as[32];
		size_t hl = strlen(h);
		report_format_size(as, sizeof(as), c->as_cap);
		snprintf(h + hl, sizeof(h) - hl, " (address space capped at %s%s)", as,
		         c->as_inherited ? " by the inherited ulimit -v" : "");
	}
	if (c->nlanes > 1 && (c->soft.rss || c->hard.rss)) {
		/* one rss budget for all lanes (lanes exist by now: record_limits
		 * follows lane_init_all) */
		char pool[48];
		snprintf(pool, sizeof(pool), " (rss: one pool for %u lanes)", c->nlanes);
		size_t sl = strlen(s), hl = strlen(h);
		snprintf(s + sl, sizeof(s) - sl, "%s", pool);
		snprintf(h + hl, sizeof(h) - hl, "%s", pool);
	}
	c->rep->limits_soft = report_strdup(s);
	c->rep->limits_hard = report_strdup(h);
	c->rep->soft = (report_limits){c->soft.va, c->soft.rss, c->soft.cgroup, c->soft.gap};
	c->rep->hard = (report_limits){c->hard.va, c->hard.rss, c->hard.cgroup, c->hard.gap};
	c->rep->has_limit_bytes = 1;
}

/* One shard per lane, before the run: the lane's tests and hosts go there. */
void record_shards(run_ctx *c, const char *suite, const char *cmdline)
{
	for (unsigned i = 0; i < c->nlanes; i++) {
		lane *l = &c->lanes[i];
		report_shard *s = report_add_shard(c->rep);
		l->shard = c->rep->nshards - 1;
		s->node = c->o->node_index;
		s->start_time = c->rep->start_time;
		s->index = i;
		s->suite = report_strdup(suite);
		s->arch = report_strdup(limits_arch_name(c->arch));
		s->driver = report_strdup(driver_name(c->driver));
		s->command = report_strdup(cmdline);
		s->approximate = report_strdup(c->approx_why);
		/* one pool for all lanes: no lane has a limit of its own */
		s->rss_soft = s->rss_hard = 0;
	}
}

/*
 * After the loop: the tests still queued end as not-run when the run was
 * interrupted or reached its deadline, else as error when a lane gave up
 * (no other lane could run them), saying why.
 */
void record_unrun(run_ctx *c)
{
	if (c->signo || c->deadline_hit) {
		const char *why = c->signo ? "interrupted" : "run deadline reached";
		/* never started: no figures (before, lane 0's host's last, and
		 * the summary listed them among the largest tests) */
		while (c->qlen || c->rqlen) {
			size_t t = c->rqlen ? plan_retry_pop(c) : plan_pop(c);
			record_test(c, &c->lanes[0], t, TEST_NOTRUN, why, strlen(why), 0, 0, 0, 0,
			            0);
		}
		c->rep->interrupted = 1;
	}
	for (unsigned i = 0; i < c->nlanes; i++)
		if (c->lanes[i].gave_up) {
			fprintf(stderr,
			        "memguard run: lane %u gave up after %u failed host starts: %s\n",
			        i, c->lanes[i].failed_starts, c->lanes[i].gave_up_why);
			while (c->qlen || c->rqlen) {
				size_t t = c->rqlen ? plan_retry_pop(c) : plan_pop(c);
				record_testf(c, &c->lanes[i], t, TEST_ERROR, 0,
				             "host could not start: %s", c->lanes[i].gave_up_why);
			}
		}
}

/*
 * After the hosts ended: each shard's timeline, peaks, wall and CPU time;
 * lanes that ran nothing are no shard; the run's wall time; the model's
 * totals and suspects (report_finish).
 */
/* Each recorded test's captured output into its report entry (bounded, a
 * note saying how much was dropped). */
static void attach_outputs(run_ctx *c)
{
	for (size_t t = 0; t < c->ntests; t++) {
		rtest *rt = &c->tests[t];
		if (rt->recorded && (rt->out_len || rt->tail)) {
			/* head, what was cut, tail in order */
			rtail *tl = rt->tail;
			char note[128];
			int n = 0;
			if (rt->out_dropped)
				n = snprintf(
				    note, sizeof(note),
				    "\n[memguard: %zu bytes cut here; kept the first %zu and "
				    "the last %zu]\n",
				    rt->out_dropped, rt->out_len, tl ? tl->len : 0);
			size_t tlen = tl ? tl->len : 0;
			rt->out = mg_xrealloc(rt->out, rt->out_len + (size_t)n + tlen + 1);
			memcpy(rt->out + rt->out_len, note, (size_t)n);
			rt->out_len += (size_t)n;
			if (tl) {
				const char *p0, *p1;
				size_t n0, n1;
				record_tail_pieces(tl, &p0, &n0, &p1, &n1);
				memcpy(rt->out + rt->out_len, p0, n0);
				memcpy(rt->out + rt->out_len + n0, p1, n1);
				rt->out_len += n0 + n1;
			}
			report_test *r = &c->rep->shards[rt->rec_shard].tests[rt->rec_index];
			r->output = report_bytes_new(rt->out, rt->out_len);
		}
		free(rt->out);
		free(rt->tail);
		rt->out = NULL;
		rt->tail = NULL;
		rt->out_len = rt->out_dropped = 0;
	}
}

/* The tests whose VA rose most above what their history said (at most 10,
 * most first), for the report's history section. */
static void history_grew(run_ctx *c)
{
	report_history *rh = &c->rep->history;
	if (!rh->source)
		return;
	for (size_t t = 0; t < c->ntests; t++) {
		const rtest *rt = &c->tests[t];
		if (!rt->recorded || !rt->exp_rise)
			continue;
		const report_test *x = &c->rep->shards[rt->rec_shard].tests[rt->rec_index];
		uint64_t start = x->va_after - (uint64_t)x->va_delta;
		uint64_t peak =
		    report_shard_test_peak(&c->rep->shards[rt->rec_shard], rt->rec_index);
		uint64_t now = peak > start ? peak - start : 0;
		if (now <= rt->exp_rise)
			continue;
		uint64_t d = now - rt->exp_rise;
		size_t k = rh->ngrew;
		while (k > 0 && rh->grew[k - 1].now - rh->grew[k - 1].then < d)
			k--;
		if (k >= 10)
			continue;
		if (rh->ngrew < 10)
			rh->grew = mg_xrealloc(rh->grew, (++rh->ngrew) * sizeof(*rh->grew));
		else
			free(rh->grew[9].name);
		memmove(&rh->grew[k + 1], &rh->grew[k], (rh->ngrew - 1 - k) * sizeof(*rh->grew));
		rh->grew[k] =
		    (report_history_test){report_strndup(rt->name, rt->len), rt->exp_rise, now};
	}
}

/*
 * A gtest/catch2 program's exit that no failure of that program explained
 * (MG_EXTRA_PROGRAM_EXIT `error`: a leak LeakSanitizer found, a bad exit
 * status after tests that passed) is explained by a failure anywhere in
 * the run: run directly the suite is one program, whose failures explain
 * its exit (the shim's rule, gtest_outside_exit_unexplained, lifted from one program to
 * the run's generations). The entry stays, state `fail`: the run exits 1
 * as the direct run does, never 3 because recycles put the leak and the
 * failures in different programs.
 */
static void explain_exits(run_ctx *c)
{
	int failed = 0;
	for (size_t s = 0; s < c->rep->nshards && !failed; s++)
		for (size_t t = 0; t < c->rep->shards[s].ntests; t++) {
			test_state st = c->rep->shards[s].tests[t].state;
			if (st == TEST_FAIL || st == TEST_CRASH) {
				failed = 1;
				break;
			}
		}
	for (size_t i = 0; failed && i < c->nextras; i++) {
		report_test *r = &c->rep->shards[c->extras[2 * i]].tests[c->extras[2 * i + 1]];
		if (r->state == TEST_ERROR && !strcmp(r->name, MG_EXTRA_PROGRAM_EXIT))
			r->state = TEST_FAIL;
	}
}

void record_finish(run_ctx *c)
{
	attach_outputs(c);
	explain_exits(c);
	history_grew(c);
	for (unsigned i = 0; i < c->nlanes; i++) {
		lane *l = &c->lanes[i];
		report_shard *s = record_shard(c, l);
		timeline_flush_to(&l->tl, s);
		for (size_t g = 0; g < s->ngens; g++) {
			if (s->gens[g].peak_va > s->peak_va)
				s->peak_va = s->gens[g].peak_va;
			if (s->gens[g].peak_rss > s->peak_rss)
				s->peak_rss = s->gens[g].peak_rss;
		}
		report_shard_count_ends(s); /* recycles and kills, from the ends */
		s->wall = l->last_end > l->first_start ? l->last_end - l->first_start : 0;
		s->user = l->user;
		s->sys = l->sys;
	}
	/* A lane whose host started after the others had taken every test ran
	 * nothing: it is not a shard of the run. One whose host ended otherwise
	 * stays, though its tests are recorded elsewhere: a program that died
	 * before its first test (lane_start_died), a host killed (the lanes'
	 * shared pool: its test's retry ran alone in another lane) or recycled;
	 * its generation's end is where the report says so, and its kill counts. */
	for (size_t i = c->rep->nshards; i-- > 0 && c->rep->nshards > 1;) {
		const report_shard *sh = &c->rep->shards[i];
		int ended = 0;
		for (size_t g = 0; g < sh->ngens; g++)
			ended |= sh->gens[g].end != REPORT_END_QUIT &&
			         sh->gens[g].end != REPORT_END_RUNNING &&
			         sh->gens[g].end != REPORT_END_INTERRUPTED;
		if (!sh->ntests && !ended)
			report_remove_shard(c->rep, i);
	}
	/* every host is gone: the allocation sites' frames get names */
	sites_symbolize(c->rep);
	c->rep->wall = now(c);
	c->rep->expected_wall = c->expected_wall;
	report_finish(c->rep, REPORT_MAX_SUSPECTS);
}

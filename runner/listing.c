/*
 * listing.c - one host answers "list": the names of its tests. Blocking,
 * with a deadline; a host that breaks the protocol or dies is an error naming it.
 * For ctest, CTestCustom.cmake's pre-test commands before it and the
 * post-test ones after the lanes (listing_custom).
 */
#include "memguard_host.h"
#include "mg_bulk.h"
#include "run_int.h"
#include "shim.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static int listing_same(const name_list *nl, size_t i, size_t j)
{
	return nl->lens[i] == nl->lens[j] && !memcmp(nl->names[i], nl->names[j], nl->lens[i]);
}

/* Names are unique (PROTOCOL.md, Ordering 2): a host listing one twice is
 * refused, naming it (the first in list order). O(n): a hash set of the
 * indexes, open addressing at most half full. */
static int listing_check_unique(const run_ctx *c, const name_list *nl, mg_err *err)
{
	if (nl->n < 2)
		return 0;
	size_t nslots = 64;
	while (nslots < 2 * nl->n)
		nslots *= 2;
	size_t mask = nslots - 1;
	/* index + 1; 0 empty */
	size_t *slots = mg_bulk_realloc(NULL, 0, nslots * sizeof(size_t));
	memset(slots, 0, nslots * sizeof(size_t));
	size_t dup = nl->n; /* the duplicate listed first */
	for (size_t k = 0; k < nl->n; k++) {
		size_t i = shim_name_hash(nl->names[k], nl->lens[k]) & mask;
		while (slots[i] && !listing_same(nl, slots[i] - 1, k))
			i = (i + 1) & mask;
		if (!slots[i])
			slots[i] = k + 1;
		else if (slots[i] - 1 < dup)
			dup = slots[i] - 1;
	}
	mg_bulk_free(slots, nslots * sizeof(size_t));
	if (dup == nl->n)
		return 0;
	return mg_err_set(err, MG_EPROTO,
	                  "host '%s' listed the test '%.200s' more than once (test names "
	                  "must be unique)",
	                  c->o->host_argv[0], nl->names[dup]);
}

/* The last bytes a listing host wrote (its stdout and stderr, passed on to
 * ours): what it said when it ended before listing. */
typedef struct said_tail {
	char buf[4096];
	size_t len;
} said_tail;

static void said_keep(said_tail *t, const char *p, size_t n)
{
	if (n >= sizeof(t->buf)) {
		p += n - sizeof(t->buf);
		n = sizeof(t->buf);
	}
	if (t->len + n > sizeof(t->buf)) {
		size_t drop = t->len + n - sizeof(t->buf);
		memmove(t->buf, t->buf + drop, t->len - drop);
		t->len -= drop;
	}
	memcpy(t->buf + t->len, p, n);
	t->len += n;
}

/* Whether a listing host's last words hold one of words (NULL-ended): the
 * framework's own usage error */
static int said_any(const said_tail *t, const char *const *words)
{
	for (; *words; words++)
		if (memmem(t->buf, t->len, *words, strlen(*words)))
			return 1;
	return 0;
}

/* pytest's usage error: argparse's words, or a path or node id not found
 * (a conftest that fails to import also exits 4) */
static const char *const pytest_usage_words[] = {
    "error: unrecognized arguments", "file or directory not found",
    "ERROR: not found:", "ERROR: usage:", "error: argument ",
    /* a -k or -m expression it cannot parse (its UsageError) */
    "ERROR: Wrong expression passed to '",
    /* memguard's plugin's own refusals
       (pytest_cmdline_main) */
    "ERROR: memguard: ", NULL};
/* Catch2's command line refused (Clara's words, v2 and v3) */
static const char *const catch2_usage_words[] = {"Error(s) in input:", NULL};

/*
 * Runs one host for "list" and collects the names. Blocking with a deadline:
 * --timeout if given (the listing is timed like a test), else
 * LISTING_TIMEOUT, and never past the run's --deadline. On expiry the host
 * and its process group are killed (spawn_free).
 */
double listing_limit(const run_ctx *c)
{
	return c->o->timeout > 0 ? c->o->timeout : LISTING_TIMEOUT;
}

int listing_run(run_ctx *c, name_list *out, mg_err *err)
{
	spawn_proc *p = NULL;
	char *buf = mg_xrealloc(NULL, 2 * MG_PROTO_LINE_MAX);
	mg_lines lines;
	int rc = MG_ERROR, got_hello = 0;
	said_tail said = {.len = 0};
	double start = now_mono();
	double limit = listing_limit(c);
	int by_deadline = 0;
	if (c->o->deadline > 0 && c->t0 + c->o->deadline < start + limit) {
		limit = c->t0 + c->o->deadline - start;
		by_deadline = 1;
	}
	double deadline = start + (limit > 0 ? limit : 0);

	conn_build_env(c, 0, NULL);
	spawn_options so = SPAWN_OPTIONS_INIT;
	so.envp = c->envp;
	so.as_limit = c->o->address_space;
	mg_lines_init(&lines, buf, 2 * MG_PROTO_LINE_MAX, MG_PROTO_LINE_MAX);
	rc = spawn_start(&p, c->path, c->argv, &so, err);
	if (rc < 0) {
		free(buf);
		return rc;
	}
	rc = MG_ERROR;
	/* a host that is gone already (it refused to start) is judged by how
	 * it ended, below, not by the list command it could not take */
	char cmd[8];
	size_t n = mg_proto_put(cmd, sizeof(cmd), &(mg_msg){.kind = MG_CMD_LIST});
	int sent = write(spawn_cmd_fd(p), cmd, n) == (ssize_t)n;
	for (;;) {
		struct pollfd pf[4] = {{spawn_reply_fd(p), POLLIN, 0},
		                       {spawn_out_fd(p), POLLIN, 0},
		                       {spawn_err_fd(p), POLLIN, 0},
		                       {c->sigfd[0], POLLIN, 0}}; /* -1 for list: ignored */
		double left = deadline - now_mono();
		if (left <= 0) {
			char secs[32];
			double l = limit > 0 ? limit : 0;
			snprintf(secs, sizeof(secs), l < 1000 ? "%.3g" : "%.0f", l);
			mg_err_set(err, MG_EPROTO,
			           "listing timed out after %s s: host '%s' did not list its tests "
			           "(%s)",
			           secs, c->o->host_argv[0],
			           by_deadline         ? "the run's --deadline"
			           : c->o->timeout > 0 ? "--timeout"
			                               : "the default listing timeout; --timeout "
			                                 "sets it");
			goto done;
		}
		if (poll(pf, 4, supervise_poll_ms(left) + 1) < 0 && errno != EINTR)
			goto done;
		if (pf[3].revents) {
			/* only a stop signal counts here: reaping (SIGCHLD) would
			 * take the listing host's exit status from spawn_wait */
			supervise_stop_pending(c);
			if (c->signo) {
				mg_err_set(err, MG_ERROR, "interrupted while listing the tests");
				goto done;
			}
		}
		char tmp[65536];
		for (int k = 1; k < 3; k++) {
			/* Standalone output while listing goes to our stderr. */
			ssize_t n = pf[k].fd >= 0 ? read(pf[k].fd, tmp, sizeof(tmp)) : -1;
			if (n > 0) {
				ssize_t w = write(2, tmp, (size_t)n);
				(void)w;
				said_keep(&said, tmp, (size_t)n);
			} else if (n == 0) {
				if (k == 1)
					spawn_close_out(p);
				else
					spawn_close_err(p);
			}
		}
		long n = mg_lines_fill(&lines, spawn_reply_fd(p));
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n == MG_LINES_LONG) {
			mg_err_set(err, MG_EPROTO, "host '%s' sent a line over the protocol limit",
			           c->o->host_argv[0]);
			goto done;
		}
		if (n <= 0) {
			mg_exit_end st = {0, 0, 0};
			spawn_wait(p, 0, &st, NULL);
			/* what it said before it ended (why it refused to start) is
			 * shown before our line */
			for (int k = 1; k < 3; k++) {
				int fd = k == 1 ? spawn_out_fd(p) : spawn_err_fd(p);
				struct pollfd one = {fd, POLLIN, 0};
				ssize_t got;
				while (fd >= 0 && poll(&one, 1, 0) > 0 &&
				       (got = read(fd, tmp, sizeof(tmp))) > 0) {
					ssize_t w = write(2, tmp, (size_t)got);
					(void)w;
					said_keep(&said, tmp, (size_t)got);
				}
			}
			if (!got_hello && c->driver == DRIVER_PYTEST && !st.signo &&
			    st.status == 4 && said_any(&said, pytest_usage_words))
				/* pytest's usage error (its exit 4 is also a conftest
				 * that fails to import: not the command line's) */
				rc = mg_err_set(
				    err, MG_EINVAL,
				    "pytest refused its command line (exit 4: its message "
				    "above says why)");
			else if (c->driver == DRIVER_CATCH2 && !st.signo && st.status &&
			         said_any(&said, catch2_usage_words))
				/* its listing refused (the shim ends as it did) */
				rc =
				    mg_err_set(err, MG_EINVAL,
				               "Catch2 refused its command line (its message above "
				               "says why)");
			else if (!got_hello && elf_contains(c->path, MG_HOST_MARKER, NULL) == 1)
				/* a host that refused to start (an over-long test name):
				 * its own message, on stderr above, says why */
				mg_err_set(err, MG_EPROTO,
				           "host '%s' %s %d before it started (its message "
				           "above says why)",
				           c->o->host_argv[0],
				           st.signo ? "was killed by signal" : "exited with status",
				           st.signo ? st.signo : st.status);
			else if (!got_hello)
				mg_err_set(err, MG_EPROTO,
				           "'%s' is not a memguard host: it %s without a greeting "
				           "(link it with the host library, or use --driver)",
				           c->o->host_argv[0],
				           st.signo ? "was killed by a signal" : "exited");
			else if (!sent)
				mg_err_set(err, MG_EPROTO,
				           "host '%s' did not take the list command",
				           c->o->host_argv[0]);
			else
				mg_err_set(err, MG_EPROTO, "host '%s' ended before its list ended",
				           c->o->host_argv[0]);
			goto done;
		}
		char *line;
		size_t ll;
		while (mg_lines_next(&lines, &line, &ll)) {
			mg_msg m;
			if (mg_proto_parse(&m, line, ll) < 0 ||
			    (!got_hello && m.kind != MG_MSG_HELLO) ||
			    (got_hello && m.kind != MG_MSG_TEST && m.kind != MG_MSG_END &&
			     m.kind != MG_MSG_AFTER && m.kind != MG_MSG_NEEDS &&
			     (m.kind != MG_MSG_EXTRA || c->driver == DRIVER_NATIVE)) ||
			    /* after and needs name a test listed before the one they follow */
			    ((m.kind == MG_MSG_AFTER || m.kind == MG_MSG_NEEDS) &&
			     (out->n < 2 || m.count > (uint64_t)out->n - 2))) {
				mg_err_set(err, MG_EPROTO,
				           "host '%s' broke the protocol while listing: '%.60s'",
				           c->o->host_argv[0], line);
				goto done;
			}
			if (m.kind == MG_MSG_HELLO) {
				if (m.version < 1 || m.version > MG_PROTO_VERSION) {
					mg_err_set(err, MG_EPROTO,
					           "host '%s' said hello in protocol version %u; "
					           "memguard speaks versions 1 to %d",
					           c->o->host_argv[0], m.version, MG_PROTO_VERSION);
					goto done;
				}
				got_hello = 1;
				snprintf(out->arch, sizeof(out->arch), "%s", m.arch);
				out->va = m.va;
				out->rss = m.rss;
			} else if (m.kind == MG_MSG_TEST) {
				if (out->n == out->cap) {
					size_t cap = out->cap ? 2 * out->cap : 256;
					out->names =
					    mg_bulk_realloc(out->names, out->cap * sizeof(char *),
					                    cap * sizeof(char *));
					out->lens =
					    mg_bulk_realloc(out->lens, out->cap * sizeof(size_t),
					                    cap * sizeof(size_t));
					out->cap = cap;
				}
				out->names[out->n] =
				    report_names_add(&out->text, m.text, m.text_len);
				out->lens[out->n++] = m.text_len;
			} else if (m.kind == MG_MSG_EXTRA) {
				out->extras = mg_xrealloc(out->extras, (out->nextras + 1) *
				                                           sizeof(*out->extras));
				out->extras[out->nextras++] = (list_extra){
				    record_extra_state(m.state), report_strndup(m.text, m.name_len),
				    report_strndup(m.text + m.name_len, m.text_len - m.name_len)};
			} else if (m.kind == MG_MSG_AFTER || m.kind == MG_MSG_NEEDS) {
				if (out->ndeps == out->capdeps) {
					out->capdeps = out->capdeps ? 2 * out->capdeps : 64;
					out->deps = mg_xrealloc(out->deps,
					                        out->capdeps * sizeof(*out->deps));
				}
				out->deps[out->ndeps++] = (list_dep){
				    out->n - 1, (size_t)m.count,
				    m.kind == MG_MSG_NEEDS ? report_strndup(m.text, m.text_len)
				                           : NULL};
			} else {
				if (m.count != out->n) {
					mg_err_set(err, MG_EPROTO,
					           "host '%s' listed %zu tests but said %llu",
					           c->o->host_argv[0], out->n,
					           (unsigned long long)m.count);
					goto done;
				}
				if (listing_check_unique(c, out, err) < 0)
					goto done;
				out->list_flags = m.bytes; /* end: a shim's word on its listing */
				if (c->driver == DRIVER_GTEST || c->driver == DRIVER_CATCH2)
					c->approx_why =
					    driver_noprobe_why(MG_LIST_NOPROBE(m.bytes));
				c->listing_wall = now_mono() - start;
				n = mg_proto_put(cmd, sizeof(cmd), &(mg_msg){.kind = MG_CMD_QUIT});
				if (write(spawn_cmd_fd(p), cmd, n) < 0) {
					/* it may have gone: the wait below reaps it */
				}
				rc = 0;
				goto done;
			}
		}
	}
done:
	if (p && rc == 0) {
		/* It says bye and exits: wait for its reply pipe to close (up to
		 * a second), then reap it; spawn_free kills what lingers. */
		spawn_close_cmd(p);
		char tmp[4096];
		struct pollfd pf = {spawn_reply_fd(p), POLLIN, 0};
		while (poll(&pf, 1, 1000) > 0 && read(pf.fd, tmp, sizeof(tmp)) > 0)
			;
		for (int i = 0; i < 1000 && spawn_wait(p, 1, NULL, NULL) == 0; i++)
			poll(NULL, 0, 1);
	}
	spawn_free(p);
	free(buf);
	return rc;
}

/* The listing's entries outside its tests (a collection error: PROTOCOL.md
 * 6c), recorded once a run's report exists. Every node of a --node split
 * lists alike: node 1 records them (a merge of the nodes' reports then
 * counts each once, and fails as the whole run does) and the others say
 * so; where the error left no test to run (pytest without
 * --continue-on-collection-errors) they fail as node 1 does (before: exit
 * 5 "no tests ran", or 0 with --allow-no-tests, where pytest exits 2). */
void listing_extras(run_ctx *c, const name_list *nl)
{
	if (c->rep->node_index > 1) {
		/* a module pytest skipped is node 1's to record, and said by none */
		size_t failing = 0, first = 0;
		for (size_t i = nl->nextras; i-- > 0;)
			if (nl->extras[i].state != TEST_SKIP)
				failing++, first = i;
		if (!failing)
			return;
		c->extras_stopped = !c->nlisted;
		fprintf(stderr,
		        "memguard: %zu entr%s outside the listed tests (the first: %s) %s node 1's "
		        "to record, not node %u's%s\n",
		        failing, failing == 1 ? "y" : "ies", nl->extras[first].name,
		        failing == 1 ? "is" : "are", (unsigned)c->rep->node_index,
		        c->extras_stopped ? "; no test ran for it, so this node fails too (exit 1)"
		                          : "");
		return;
	}
	for (size_t i = 0; i < nl->nextras; i++) {
		const list_extra *x = &nl->extras[i];
		record_extra(c, &c->lanes[0], x->state, x->name, strlen(x->name), x->message,
		             strlen(x->message));
	}
}

int listing_custom(run_ctx *c, int post, mg_err *err)
{
	char failed[400];
	if (c->driver != DRIVER_CTEST || (post && (c->signo || c->deadline_hit || !c->nlanes)))
		return 0;
	int rc = ctest_custom_run(c->o->host_argv, c->o->host_argc, post, failed, sizeof(failed));
	if (rc == 0)
		return 0;
	if (!post) {
		mg_err_set(err, MG_ERROR, "%s: %s",
		           rc > 0
		               ? "a CTEST_CUSTOM_PRE_TEST command failed (ctest runs no test then)"
		               : "cannot run the CTEST_CUSTOM_PRE_TEST commands",
		           failed);
		return rc > 0 ? MG_EXIT_FAILED : MG_EXIT_INFRA;
	}
	static const char name[] = "<CTEST_CUSTOM_POST_TEST>";
	char msg[600];
	int n = snprintf(msg, sizeof(msg), "%s: %s",
	                 rc > 0 ? "a post-test command failed (ctest: \"Problem executing "
	                          "post-test command(s).\", exit 8)"
	                        : "cannot run the post-test commands",
	                 failed);
	record_extra(c, &c->lanes[0], rc > 0 ? TEST_FAIL : TEST_ERROR, name, sizeof(name) - 1, msg,
	             n < 0                     ? 0
	             : (size_t)n < sizeof(msg) ? (size_t)n
	                                       : sizeof(msg) - 1);
	return 0;
}

/*
 * ctest's Testing/Temporary/LastTestsFailed.log, as ctest leaves it after a
 * run with failures, so that "ctest --rerun-failed" (under memguard or not)
 * runs what this run failed. A run that ended early writes none (nor does
 * ctest); not writing it is said, and is not the run's failure.
 */
void listing_ctest_failed(run_ctx *c)
{
	if (c->driver != DRIVER_CTEST || c->signo || c->deadline_hit)
		return;
	size_t n = 0;
	for (size_t i = 0; i < c->rep->nshards; i++)
		for (size_t k = 0; k < c->rep->shards[i].ntests; k++)
			n += report_state_failed(c->rep->shards[i].tests[k].state);
	if (!n)
		return;
	char **failed = mg_xrealloc(NULL, n * sizeof(char *)), msg[600];
	n = 0;
	for (size_t i = 0; i < c->rep->nshards; i++)
		for (size_t k = 0; k < c->rep->shards[i].ntests; k++)
			if (report_state_failed(c->rep->shards[i].tests[k].state))
				failed[n++] = c->rep->shards[i].tests[k].name;
	if (ctest_failed_log(c->o->host_argv, c->o->host_argc, failed, n, msg, sizeof(msg)) < 0)
		fprintf(stderr, "memguard run: ctest's Testing/Temporary/LastTestsFailed.log: %s\n",
		        msg);
	free(failed);
}

void listing_all_skipped(run_ctx *c)
{
	size_t ran = 0, skipped = 0;
	/* --allow-no-tests, or the user's --allow-running-no-tests (run.c):
	 * Catch2 v3 passes such a run then */
	if (c->driver != DRIVER_CATCH2 || c->signo || c->o->host_argc < 1 || c->o->allow_no_tests)
		return;
	for (size_t i = 0; i < c->rep->nshards; i++) { /* counted only at record_finish */
		ran += c->rep->shards[i].ntests;
		for (size_t t = 0; t < c->rep->shards[i].ntests; t++)
			skipped += c->rep->shards[i].tests[t].state == TEST_SKIP;
	}
	if (!ran || skipped != ran || !driver_catch2_v3(c->o->host_argv[0]))
		return;
	static const char name[] = MG_EXTRA_PROGRAM_EXIT;
	char msg[160];
	int n = snprintf(msg, sizeof(msg),
	                 "every test of the run was skipped (%zu): Catch2 v3 exits 4 then (its "
	                 "AllTestsSkippedExitCode), a failure as a direct run's",
	                 ran);
	record_extra(c, &c->lanes[0], TEST_FAIL, name, sizeof(name) - 1, msg,
	             n < 0                     ? 0
	             : (size_t)n < sizeof(msg) ? (size_t)n
	                                       : sizeof(msg) - 1);
}

/*
 * The output of p (its stdout and stderr, one pipe) read to its end into
 * buf (its last size - 1 bytes, NUL-terminated, *len of them), while the
 * run's stop signals and --timeout hold: either kills p's group. 1 when p
 * ran to its end, 0 when it was killed for a stop signal (c->signo), -1
 * past --timeout.
 */
static int no_tests_read(run_ctx *c, spawn_proc *p, char *buf, size_t size, size_t *len)
{
	struct pollfd pf[2] = {{.fd = spawn_out_fd(p), .events = POLLIN},
	                       {.fd = c->sigfd[0], .events = POLLIN}};
	double until = c->o->timeout > 0 ? now(c) + c->o->timeout : 0;
	*len = 0;
	for (;;) {
		int ms = -1;
		if (until > 0) {
			double left = until - now(c);
			if (left <= 0) {
				spawn_signal(p, SIGKILL);
				return -1;
			}
			ms = (int)(left * 1000) + 1;
		}
		int r = poll(pf, pf[1].fd >= 0 ? 2 : 1, ms);
		if (r < 0 && errno != EINTR)
			break;
		if (r > 0 && pf[1].revents && supervise_stop_pending(c)) {
			spawn_signal(p, SIGKILL);
			return 0;
		}
		if (r <= 0 || !pf[0].revents)
			continue;
		if (*len + 4096 >= size) { /* keep the last half */
			size_t keep = size / 2;
			memmove(buf, buf + *len - keep, keep);
			*len = keep;
		}
		ssize_t n = read(pf[0].fd, buf + *len, size - 1 - *len);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			break;
		if (n > 0)
			*len += (size_t)n;
	}
	buf[*len] = 0;
	return 1;
}

/*
 * A gtest/catch2 run of no test that memguard would pass (the framework's
 * own run of none exits 0) is checked once: the program run as given,
 * directly, as the user's CI would have run it. Its exit then is the floor
 * of the verdict (a main that returns non-zero after RUN_ALL_TESTS, a
 * leak at exit): a bad one is the entry <program exit>, error, with its
 * last output. Only where the program listed none; one program start,
 * ended by the run's stop signals and held to its --timeout.
 */
void listing_no_tests_run(run_ctx *c)
{
	if ((c->driver != DRIVER_GTEST && c->driver != DRIVER_CATCH2) || c->signo ||
	    c->o->host_argc < 1 || c->nlisted || policy_no_tests_exit(c, NULL))
		return; /* a program that listed tests memguard's selection left out is not run */
	for (size_t i = 0; i < c->rep->nshards; i++)
		if (c->rep->shards[i].ntests)
			return;
	char path[4096], text[16384], msg[4096];
	size_t len = 0;
	mg_err err = {0};
	spawn_proc *p = NULL;
	spawn_options o = SPAWN_OPTIONS_INIT;
	o.flags = SPAWN_CAPTURE_OUT | SPAWN_ERR_TO_OUT | SPAWN_NULL_STDIN | SPAWN_OWN_GROUP;
	o.pdeathsig = SIGKILL;
	mg_exit_end end = {0};
	int n;
	if (spawn_resolve(path, sizeof(path), c->o->host_argv[0], &err) < 0 ||
	    spawn_start(&p, path, c->o->host_argv, &o, &err) < 0) {
		n = snprintf(msg, sizeof(msg), "no test ran, and %s", err.msg);
	} else {
		int ran = no_tests_read(c, p, text, sizeof(text), &len);
		if (spawn_wait(p, 0, &end, NULL) < 0)
			end.signo = SIGKILL;
		static const char help[] = "This program contains tests written using Google Test";
		const char *h =
		    c->driver == DRIVER_GTEST ? memmem(text, len, help, sizeof(help) - 1) : NULL;
		if (ran > 0 && mg_exit_ok(end) && h) {
			/* GoogleTest's help (for a --gtest_ flag it does not know,
			 * answered with exit 0 and no test run), as the direct run
			 * shows it; the listing's stdout was read, not shown */
			fprintf(
			    stderr,
			    "memguard: no test ran; %s, run once as given, printed GoogleTest's "
			    "help:\n",
			    c->o->host_argv[0]);
			fwrite(h, 1, len - (size_t)(h - text), stderr);
			if (text[len - 1] != '\n')
				fputc('\n', stderr);
		}
		if (!ran || (ran > 0 && mg_exit_ok(end)))
			goto out; /* stopped: the run is interrupted, as it says */
		size_t keep = len < 3000 ? len : 3000;
		if (ran < 0)
			n = snprintf(msg, sizeof(msg),
			             "no test ran, and %s did not end within %.3gs (--timeout; run "
			             "once as given, as directly): killed%s%.*s",
			             c->o->host_argv[0], c->o->timeout, keep ? ":\n" : "",
			             (int)keep, text + (len - keep));
		else
			n = snprintf(
			    msg, sizeof(msg),
			    "no test ran, and %s %s %d (run once as given, as directly)%s%.*s",
			    c->o->host_argv[0],
			    end.signo ? "was killed by signal" : "exited with status",
			    end.signo ? end.signo : end.status, keep ? ":\n" : " (no output)",
			    (int)keep, text + (len - keep));
	}
	static const char name[] = MG_EXTRA_PROGRAM_EXIT;
	record_extra(c, &c->lanes[0], TEST_ERROR, name, sizeof(name) - 1, msg,
	             n < 0                     ? 0
	             : (size_t)n < sizeof(msg) ? (size_t)n
	                                       : sizeof(msg) - 1);
out:
	spawn_free(p);
}

void listing_explain(const run_ctx *c, const mg_err *err)
{
	if (c->arch == MG_ARCH_X86 && strstr(err->msg, strerror(ENOEXEC)))
		fprintf(stderr,
		        "memguard: this kernel cannot execute 32-bit programs; a 64-bit build "
		        "of the tests run with --address-space 4G fails at the same "
		        "ceiling\n");
}

int listing_asan(const run_ctx *c)
{
	char prog[PATH_MAX];
	if (c->driver != DRIVER_GTEST && c->driver != DRIVER_CATCH2)
		return 0;
	return c->o->host_argc > 0 &&
	       spawn_resolve(prog, sizeof(prog), c->o->host_argv[0], NULL) == 0 &&
	       driver_has_mark(prog, DRIVER_MARK_ASAN) == 1;
}

int listing_handoff(const run_ctx *c, const name_list *nl)
{
	if (c->driver != DRIVER_GTEST && c->driver != DRIVER_CATCH2)
		return -1;
	int fd = memfd_create(MG_LISTING_NAME, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -1;
	size_t size = 64;
	for (size_t i = 0; i < nl->n; i++)
		size += nl->lens[i] + 1;
	char *buf = mg_xrealloc(NULL, size);
	/* whether the program is an ASan build (its probe's environment): read
	 * once a run (listing_asan), not by every shim */
	size_t len = (size_t)snprintf(buf, 64, "%llu %llu %d %llu\n", (unsigned long long)nl->va,
	                              (unsigned long long)nl->rss, c->program_asan,
	                              (unsigned long long)nl->list_flags);
	for (size_t i = 0; i < nl->n; i++) {
		memcpy(buf + len, nl->names[i], nl->lens[i]);
		len += nl->lens[i];
		buf[len++] = '\n';
	}
	int ok = mg_proto_write_all(fd, buf, len, NULL) == 0;
	free(buf);
	/* sealed: no host can change what the next one reads */
	if (!ok ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

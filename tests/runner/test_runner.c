/*
 * test_runner.c - the host state machine edge by edge, and the option
 * parsing that decides exit 2 (durations, nodes, flags, config keys); the
 * shims' name table across mg_bulk's line.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lane.h"
#include "mg_test.h"
#include "options.h"
#include "shim.h"
#include "sites.h"
#include "spawn.h"
#include "timeline.h"

/* The legal edges, written out independently of the table in lane.c. */
static const struct {
	host_state from;
	host_event ev;
	host_state to;
} legal[] = {
    {HOST_NONE, EV_SPAWNED, HOST_STARTING},     {HOST_STARTING, EV_HELLO, HOST_READY},
    {HOST_STARTING, EV_KILL, HOST_NONE},        {HOST_STARTING, EV_EOF, HOST_DYING},
    {HOST_READY, EV_FED, HOST_RUNNING},         {HOST_READY, EV_QUIT, HOST_QUITTING},
    {HOST_READY, EV_RECYCLE, HOST_QUITTING},    {HOST_READY, EV_KILL, HOST_NONE},
    {HOST_READY, EV_EOF, HOST_DYING},           {HOST_RUNNING, EV_FED, HOST_RUNNING},
    {HOST_RUNNING, EV_DRAINED, HOST_READY},     {HOST_RUNNING, EV_QUIT, HOST_QUITTING},
    {HOST_RUNNING, EV_RECYCLE, HOST_QUITTING},  {HOST_RUNNING, EV_KILL, HOST_NONE},
    {HOST_RUNNING, EV_EOF, HOST_DYING},         {HOST_QUITTING, EV_DRAINED, HOST_QUITTING},
    {HOST_QUITTING, EV_RECYCLE, HOST_QUITTING}, {HOST_QUITTING, EV_BYE, HOST_NONE},
    {HOST_QUITTING, EV_KILL, HOST_NONE},        {HOST_QUITTING, EV_EOF, HOST_DYING},
    {HOST_DYING, EV_KILL, HOST_NONE},           {HOST_DYING, EV_EXITED, HOST_NONE},
};

static void transitions_legal(void)
{
	for (size_t i = 0; i < sizeof(legal) / sizeof(legal[0]); i++)
		CU_ASSERT_EQUAL(lane_next(legal[i].from, legal[i].ev), legal[i].to);
}

/* The action of every edge: the ones that end a host detach it, no other
 * does, and an edge that cannot happen has none. */
static void transitions_actions(void)
{
	for (int st = 0; st < HOST_STATE_COUNT; st++)
		for (int e = 0; e < EV_COUNT; e++) {
			host_action want = ACT_NONE;
			int ends = lane_next((host_state)st, (host_event)e) == HOST_NONE;
			if (ends && (e == EV_KILL || e == EV_BYE || e == EV_EXITED))
				want = ACT_DETACH;
			if (lane_action((host_state)st, (host_event)e) != want)
				fprintf(stderr, "\n  %s x %s\n", lane_state_name((host_state)st),
				        lane_event_name((host_event)e));
			CU_ASSERT_EQUAL(lane_action((host_state)st, (host_event)e), want);
		}
	/* every way to HOST_NONE but a fresh lane's detaches */
	CU_ASSERT_EQUAL(lane_action(HOST_QUITTING, EV_BYE), ACT_DETACH);
	CU_ASSERT_EQUAL(lane_action(HOST_DYING, EV_EXITED), ACT_DETACH);
	CU_ASSERT_EQUAL(lane_action(HOST_STARTING, EV_KILL), ACT_DETACH);
	CU_ASSERT_EQUAL(lane_action(HOST_RUNNING, EV_EOF), ACT_NONE);
	CU_ASSERT_EQUAL(lane_action(HOST_STATE_COUNT, EV_KILL), ACT_NONE);
}

/* Every pair not listed above is refused. */
static void transitions_illegal(void)
{
	for (int s = 0; s < HOST_STATE_COUNT; s++)
		for (int e = 0; e < EV_COUNT; e++) {
			int listed = 0;
			for (size_t i = 0; i < sizeof(legal) / sizeof(legal[0]); i++)
				listed |=
				    legal[i].from == (host_state)s && legal[i].ev == (host_event)e;
			if (!listed &&
			    lane_next((host_state)s, (host_event)e) != HOST_STATE_COUNT) {
				fprintf(stderr, "unexpected edge %s --%s-->\n", lane_state_name(s),
				        lane_event_name(e));
				CU_FAIL("an illegal edge is accepted");
			}
		}
	CU_ASSERT_EQUAL(lane_next(HOST_STATE_COUNT, EV_HELLO), HOST_STATE_COUNT);
	CU_ASSERT_EQUAL(lane_next(HOST_NONE, EV_COUNT), HOST_STATE_COUNT);
}

/* A whole life: spawn, hello, feed, results, recycle, bye. */
static void transitions_lifecycle(void)
{
	host_state s = HOST_NONE;
	host_event life[] = {EV_SPAWNED, EV_HELLO, EV_FED,     EV_FED,
	                     EV_DRAINED, EV_FED,   EV_RECYCLE, EV_BYE};
	for (size_t i = 0; i < sizeof(life) / sizeof(life[0]); i++) {
		s = lane_next(s, life[i]);
		CU_ASSERT_NOT_EQUAL_FATAL(s, HOST_STATE_COUNT);
	}
	CU_ASSERT_EQUAL(s, HOST_NONE);
	CU_ASSERT_STRING_EQUAL(lane_state_name(HOST_QUITTING), "quitting");
	CU_ASSERT_STRING_EQUAL(lane_event_name(EV_BYE), "bye");
}

static int parse(run_options *o, const char *const *args, mg_err *err)
{
	int argc = 0;
	while (args[argc])
		argc++;
	options_init(o);
	return options_parse(o, argc, (char **)args, err);
}

static void options_flags(void)
{
	run_options o;
	mg_err err;
	const char *args[] = {"run",     "-j",           "3",       "--timeout=90s", "--kill-at",
	                      "va=3.6G", "--recycle-at", "va=3.2G", "--adapter",     "junit=x.xml",
	                      "--node",  "2/4",          "--",      "./t",           "-v",
	                      NULL};
	CU_ASSERT_EQUAL_FATAL(parse(&o, args, &err), 0);
	CU_ASSERT_EQUAL(o.jobs, 3);
	CU_ASSERT_DOUBLE_EQUAL(o.timeout, 90, 1e-9);
	CU_ASSERT_STRING_EQUAL(o.kill_at[1], "va=3.6G");
	CU_ASSERT_STRING_EQUAL(o.recycle_at[1], "va=3.2G");
	CU_ASSERT_EQUAL(o.nadapters, 1);
	CU_ASSERT_EQUAL(o.node_index, 2);
	CU_ASSERT_EQUAL(o.node_total, 4);
	CU_ASSERT_EQUAL(o.host_argc, 2);
	CU_ASSERT_STRING_EQUAL(o.host_argv[1], "-v");
	limits_spec soft, hard;
	options_limits(&o, &soft, &hard);
	CU_ASSERT_EQUAL(hard.va.bytes, (uint64_t)(3.6 * (1ull << 30)));
	CU_ASSERT(hard.va.given && soft.va.given && !hard.rss.given);
	options_free(&o);
}

/* One size grammar: 1MB is 10^6 bytes and 1MiB (or 1M) 2^20, in
 * --recycle-at and --kill-at as in --max-growth (tests/ci pins that one). */
static void options_size_units(void)
{
	run_options o;
	mg_err err;
	const char *args[] = {"run", "--recycle-at", "rss=1MB", "--kill-at", "rss=1MiB,va=2M",
	                      "--",  "./t",          NULL};
	CU_ASSERT_EQUAL_FATAL(parse(&o, args, &err), 0);
	limits_spec us, uh;
	options_limits(&o, &us, &uh);
	limits_base b = {MG_ARCH_X64, 1ULL << 47, 1ULL << 34, 0, 0};
	limits soft, hard;
	CU_ASSERT_EQUAL_FATAL(limits_settle(&soft, &hard, &us, &uh, &b, &err), 0);
	CU_ASSERT_EQUAL(soft.rss, 1000000);
	CU_ASSERT_EQUAL(hard.rss, 1048576);
	CU_ASSERT_EQUAL(hard.va, 2097152);
	options_free(&o);
}

static void options_errors(void)
{
	static const struct {
		const char *args[6];
		const char *needle;
	} bad[] = {
	    {{"run", "--frob", "x", NULL}, "--frob"},
	    {{"run", "-j", "0", NULL}, "'0'"},
	    {{"run", "-j", "many", NULL}, "'many'"},
	    {{"run", "--timeout", "5 parsecs", NULL}, "5 parsecs"},
	    {{"run", "--recycle-at", "va=3.5Q", NULL}, "3.5Q"},
	    {{"run", "--kill-at", "vm=3G", NULL}, "vm"},
	    {{"run", "--node", "5/4", NULL}, "5/4"},
	    {{"run", "--node", "0/4", NULL}, "0/4"},
	    {{"run", "--driver", "magic", NULL}, "magic"},
	    {{"run", "--timeout", NULL}, "--timeout"},
	    {{"run", "--output-limit", "1K+", NULL}, "'1K+'"},
	    {{"run", "--output-limit", "+5K", NULL}, "'+5K'"},
	    {{"run", "-x", NULL}, "-x"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		run_options o;
		mg_err err = {{0}};
		CU_ASSERT_EQUAL(parse(&o, bad[i].args, &err), MG_EINVAL);
		if (!strstr(err.msg, bad[i].needle)) {
			fprintf(stderr, "message '%s' does not name '%s'\n", err.msg,
			        bad[i].needle);
			CU_FAIL("message does not name the bad token");
		}
		options_free(&o);
	}
}

/* Numbers past the target type are refused, never wrapped into range
 * (1/4294967298 once read as 1/2), and so are signs, spaces and hex. */
static void options_numbers(void)
{
	static const struct {
		const char *flag, *val;
	} bad[] = {
	    {"--node", "1/4294967298"},
	    {"--node", "4294967297/4294967298"},
	    {"--node", "1/18446744073709551617"},
	    {"--node", "1/10001"},
	    {"--node", "+1/4"},
	    {"--node", "1/ 4"},
	    {"--node", "1/4x"},
	    {"-j", "99999999999999999999"},
	    {"-j", "4294967297"},
	    {"-j", "-1"},
	    {"-j", " 2"},
	    {"--pipeline", "0x10"},
	    {"--pipeline", "18446744073709551616"},
	    {"--max-restarts", "4294967297"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		run_options o;
		mg_err err = {{0}};
		const char *args[] = {"run", bad[i].flag, bad[i].val, "--", "./t", NULL};
		CU_ASSERT_EQUAL(parse(&o, args, &err), MG_EINVAL);
		if (!strstr(err.msg, bad[i].val)) {
			fprintf(stderr, "%s %s: message '%s' does not name it\n", bad[i].flag,
			        bad[i].val, err.msg);
			CU_FAIL("message does not name the bad token");
		}
		options_free(&o);
	}
	run_options o;
	mg_err err;
	const char *good[] = {"run",     "--node",         "10000/10000", "-j", "256", "--pipeline",
	                      "1000000", "--max-restarts", "1000",        "--", "./t", NULL};
	CU_ASSERT_EQUAL_FATAL(parse(&o, good, &err), 0);
	CU_ASSERT(o.node_index == 10000 && o.node_total == 10000);
	CU_ASSERT(o.jobs == 256 && o.pipeline == 1000000 && o.max_restarts == 1000);
	options_free(&o);
	/* the CI's env: an overflowing total is ignored, not wrapped */
	uint32_t ni, nt;
	setenv("CI_NODE_INDEX", "1", 1);
	setenv("CI_NODE_TOTAL", "4294967298", 1);
	options_node_from_env(&ni, &nt);
	CU_ASSERT(ni == 1 && nt == 1);
	unsetenv("CI_NODE_INDEX");
	unsetenv("CI_NODE_TOTAL");
}

static void durations(void)
{
	double d;
	CU_ASSERT_EQUAL(options_parse_duration(&d, "250ms", NULL), 0);
	CU_ASSERT_DOUBLE_EQUAL(d, 0.25, 1e-12);
	CU_ASSERT_EQUAL(options_parse_duration(&d, "1.5m", NULL), 0);
	CU_ASSERT_DOUBLE_EQUAL(d, 90, 1e-12);
	CU_ASSERT_EQUAL(options_parse_duration(&d, "2h", NULL), 0);
	CU_ASSERT_DOUBLE_EQUAL(d, 7200, 1e-12);
	CU_ASSERT_EQUAL(options_parse_duration(&d, "7", NULL), 0);
	CU_ASSERT_DOUBLE_EQUAL(d, 7, 1e-12);
	CU_ASSERT_EQUAL(options_parse_duration(&d, "-1s", NULL), MG_EINVAL);
	CU_ASSERT_EQUAL(options_parse_duration(&d, "1d", NULL), MG_EINVAL);
	CU_ASSERT_EQUAL(options_parse_duration(&d, "", NULL), MG_EINVAL);
	/* decimal only: strtod would take each of these */
	static const char *const odd[] = {"0x10", "0x1p3s", "1e3", "1e3s", " 7",    "+7",
	                                  "inf",  "nan",    ".5s", "5.s",  "1.2.3s"};
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		mg_err e;
		CU_ASSERT_EQUAL(options_parse_duration(&d, odd[i], &e), MG_EINVAL);
		CU_ASSERT(strstr(e.msg, odd[i]) != NULL);
	}
	CU_ASSERT_EQUAL(options_parse_duration(&d, "0.25s", NULL), 0);
	CU_ASSERT_DOUBLE_EQUAL(d, 0.25, 1e-12);
}

static void nodes_from_env(void)
{
	uint32_t i, n;
	setenv("CI_NODE_INDEX", "3", 1);
	setenv("CI_NODE_TOTAL", "4", 1);
	options_node_from_env(&i, &n);
	CU_ASSERT(i == 3 && n == 4); /* GitLab: 1-based */
	unsetenv("CI_NODE_INDEX");
	unsetenv("CI_NODE_TOTAL");
	setenv("CIRCLE_NODE_INDEX", "0", 1);
	setenv("CIRCLE_NODE_TOTAL", "2", 1);
	options_node_from_env(&i, &n);
	CU_ASSERT(i == 1 && n == 2); /* CircleCI: 0-based */
	unsetenv("CIRCLE_NODE_INDEX");
	unsetenv("CIRCLE_NODE_TOTAL");
	setenv("BUILDKITE_PARALLEL_JOB", "4", 1);
	setenv("BUILDKITE_PARALLEL_JOB_COUNT", "5", 1);
	options_node_from_env(&i, &n);
	CU_ASSERT(i == 5 && n == 5);
	setenv("BUILDKITE_PARALLEL_JOB", "5", 1); /* out of range: ignored */
	options_node_from_env(&i, &n);
	CU_ASSERT(i == 1 && n == 1);
	unsetenv("BUILDKITE_PARALLEL_JOB");
	unsetenv("BUILDKITE_PARALLEL_JOB_COUNT");
	setenv("SYSTEM_JOBPOSITIONINPHASE", "2", 1);
	setenv("SYSTEM_TOTALJOBSINPHASE", "3", 1);
	options_node_from_env(&i, &n);
	CU_ASSERT(i == 2 && n == 3); /* Azure: 1-based */
	unsetenv("SYSTEM_JOBPOSITIONINPHASE");
	unsetenv("SYSTEM_TOTALJOBSINPHASE");
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
}

/* The file sets values, flags override them, a bad key is named. */
static void config_file(void)
{
	char dir[] = "/tmp/mg-cfg-XXXXXX", path[64];
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/memguard.json", dir);
	write_file(path, "{\"jobs\": 4, \"timeout\": \"30s\", \"recycle_at\": \"va=3G\","
	                 " \"adapters\": [\"console\", \"junit=a.xml\"]}");
	run_options o;
	mg_err err;
	const char *args[] = {"run", "--config", path, "-j", "2", "--", "./t", NULL};
	CU_ASSERT_EQUAL_FATAL(parse(&o, args, &err), 0);
	CU_ASSERT_EQUAL(o.jobs, 2);
	CU_ASSERT_DOUBLE_EQUAL(o.timeout, 30, 1e-9);
	CU_ASSERT_STRING_EQUAL(o.recycle_at[0], "va=3G");
	CU_ASSERT_EQUAL(o.nadapters, 2);
	options_free(&o);

	write_file(path, "{\"jobs\": 2, \"recycle_at\": \"va=3X\"}");
	const char *args2[] = {"run", "--config", path, "--", "./t", NULL};
	CU_ASSERT_EQUAL(parse(&o, args2, &err), MG_EINVAL);
	CU_ASSERT(strstr(err.msg, "recycle_at") && strstr(err.msg, "3X"));
	options_free(&o);

	write_file(path, "{\"colour\": \"blue\"}");
	CU_ASSERT_EQUAL(parse(&o, args2, &err), MG_EINVAL);
	CU_ASSERT(strstr(err.msg, "colour") != NULL);
	options_free(&o);

	write_file(path, "{\"jobs\": ");
	CU_ASSERT_EQUAL(parse(&o, args2, &err), MG_EINVAL);
	CU_ASSERT(strstr(err.msg, path) != NULL);
	options_free(&o);
	unlink(path);
	rmdir(dir);
}

/* A million samples fit the bound, and the peak survives downsampling. */
static void timeline_bounded(void)
{
	timeline tl;
	report *r = report_new();
	report_shard *s = report_add_shard(r);
	CU_ASSERT_EQUAL_FATAL(timeline_init(&tl, 256), 0);
	for (uint64_t i = 0; i < 1000000; i++)
		timeline_add(&tl, (double)i / 1000, i == 777777 ? 999999999 : i, i / 2, 0);
	timeline_flush_to(&tl, s);
	CU_ASSERT(s->ntimeline <= 256 && s->ntimeline >= 128);
	uint64_t peak = 0;
	for (size_t i = 0; i < s->ntimeline; i++)
		if (s->timeline[i].va > peak)
			peak = s->timeline[i].va;
	CU_ASSERT_EQUAL(peak, 999999999);
	for (size_t i = 1; i < s->ntimeline; i++)
		CU_ASSERT(s->timeline[i].t > s->timeline[i - 1].t);
	timeline_free(&tl);
	report_free(r);
}

/* Reads fd to its end into buf (NUL-terminated). */
static void read_all(int fd, char *buf, size_t cap)
{
	size_t len = 0;
	ssize_t n;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	while (len + 1 < cap && (n = read(fd, buf + len, cap - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = 0;
}

/* What the child sees of its fds and group: "3 4 PGID" ("x" for a closed fd). */
static const char probe[] = "for f in 3 4 9; do if [ -e /proc/self/fd/$f ]; then printf '%s ' $f; "
                            "else printf 'x '; fi; done; cut -d' ' -f5 /proc/$$/stat";

/* SPAWN_OPTIONS_INIT is a host: protocol fds 3 and 4, stdout captured, its
 * own process group, nothing else of ours (fd 9) inherited. */
static void spawn_host(void)
{
	int stray = open("/dev/null", O_RDONLY); /* not close-on-exec: must not leak */
	CU_ASSERT_FATAL(dup2(stray, 9) == 9);
	spawn_proc *p = NULL;
	mg_err err;
	char *argv[] = {"/bin/sh", "-c", (char *)probe, NULL};
	spawn_options so = SPAWN_OPTIONS_INIT;
	CU_ASSERT_EQUAL_FATAL(spawn_start(&p, "/bin/sh", argv, &so, &err), 0);
	CU_ASSERT(spawn_cmd_fd(p) >= 0 && spawn_reply_fd(p) >= 0 && spawn_err_fd(p) >= 0);
	char out[256], want[64];
	read_all(spawn_out_fd(p), out, sizeof(out));
	snprintf(want, sizeof(want), "3 4 x %d\n", (int)spawn_pid(p));
	CU_ASSERT_STRING_EQUAL(out, want);
	mg_exit_end st = {-1, -1, -1};
	CU_ASSERT_EQUAL(spawn_wait(p, 0, &st, NULL), 1);
	CU_ASSERT(st.signo == 0 && st.status == 0 && st.core == 0);
	spawn_free(p);
	close(9);
	close(stray);
}

/* No protocol, stdout into a file of ours, our own process group kept. */
static void spawn_plain(void)
{
	char path[] = "/tmp/mg-spawn-XXXXXX";
	int fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	spawn_proc *p = NULL;
	mg_err err;
	char *argv[] = {"/bin/sh", "-c", (char *)probe, NULL};
	spawn_options so = SPAWN_OPTIONS_INIT;
	so.flags = 0;
	so.stdout_fd = fd;
	CU_ASSERT_EQUAL_FATAL(spawn_start(&p, "/bin/sh", argv, &so, &err), 0);
	CU_ASSERT(spawn_cmd_fd(p) < 0 && spawn_out_fd(p) < 0 && spawn_err_fd(p) < 0);
	mg_exit_end st = {-1, -1, -1};
	CU_ASSERT_EQUAL(spawn_wait(p, 0, &st, NULL), 1);
	CU_ASSERT(st.signo == 0 && st.status == 0 && st.core == 0);
	spawn_free(p);
	char out[256], want[64];
	lseek(fd, 0, SEEK_SET);
	read_all(fd, out, sizeof(out));
	snprintf(want, sizeof(want), "x x x %d\n", (int)getpgrp());
	CU_ASSERT_STRING_EQUAL(out, want);
	close(fd);
	unlink(path);
}

/* exec fails: the error names the file and why, nothing is left running. */
static void spawn_exec_fails(void)
{
	spawn_proc *p = (spawn_proc *)1;
	mg_err err;
	char *argv[] = {"/nonexistent/prog", NULL};
	spawn_options so = SPAWN_OPTIONS_INIT;
	CU_ASSERT_EQUAL(spawn_start(&p, "/nonexistent/prog", argv, &so, &err), MG_ENOTFOUND);
	CU_ASSERT(p == NULL);
	CU_ASSERT(strstr(err.msg, "/nonexistent/prog") && strstr(err.msg, "No such file"));
	CU_ASSERT_EQUAL(waitpid(-1, NULL, WNOHANG), -1); /* no child left */
}

/* spawn_release hands the pid over: not killed, ours to reap. */
static void spawn_release_keeps(void)
{
	spawn_proc *p = NULL;
	mg_err err;
	char *argv[] = {"/bin/sh", "-c", "echo hi; exit 7", NULL};
	spawn_options so = SPAWN_OPTIONS_INIT;
	so.flags = SPAWN_CAPTURE_OUT;
	CU_ASSERT_EQUAL_FATAL(spawn_start(&p, "/bin/sh", argv, &so, &err), 0);
	int out = -1;
	pid_t pid = spawn_release(p, &out);
	CU_ASSERT(pid > 0 && out >= 0);
	char buf[64];
	read_all(out, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "hi\n");
	int st = 0;
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 7);
	close(out);
}

/* spawn_read_all: a child's whole output, past one read and past the
 * pipe's buffer (the child blocks until it is read), NUL-terminated; and
 * an empty one. */
static void spawn_read_whole(void)
{
	static const struct {
		const char *script;
		size_t len;
	} runs[] = {{"head -c 200000 /dev/zero | tr '\\0' x; printf end", 200003}, {"true", 0}};
	for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		spawn_proc *p = NULL;
		mg_err err;
		char *argv[] = {"/bin/sh", "-c", (char *)runs[r].script, NULL};
		spawn_options so = SPAWN_OPTIONS_INIT;
		so.flags = SPAWN_CAPTURE_OUT;
		CU_ASSERT_EQUAL_FATAL(spawn_start(&p, "/bin/sh", argv, &so, &err), 0);
		char *out;
		size_t len;
		CU_ASSERT_EQUAL(spawn_read_all(spawn_out_fd(p), &out, &len), 0);
		CU_ASSERT_EQUAL(len, runs[r].len);
		CU_ASSERT_FATAL(out != NULL);
		CU_ASSERT_EQUAL(out[len], 0);
		CU_ASSERT_EQUAL(strlen(out), len);
		if (len)
			CU_ASSERT(out[0] == 'x' && !strcmp(out + len - 3, "end"));
		mg_exit_end end;
		CU_ASSERT_EQUAL(spawn_wait(p, 0, &end, NULL), 1); /* reaped */
		CU_ASSERT(end.status == 0 && end.signo == 0);
		free(out);
		spawn_free(p);
	}
}

/* The shims' name table, grown name by name and reserved at once, past the
 * size where its arrays and name chunks become huge-page blocks (mg_bulk.h:
 * every block freed with the size it was made with; a size on the wrong
 * side of the line would free() a mapping or munmap malloc's memory, which
 * ASan and the allocator catch): every name found at its index and held
 * whole, a second add of one refused. 100,000 names: the index and hash arrays 2.4 MiB,
 * the slots 2 MiB, the names' bytes ~1.2 MiB in growing chunks. */
static void names_bulk(void)
{
	enum { N = 100000 };
	char name[64];
	for (int reserve = 0; reserve < 2; reserve++) {
		shim_names *t = shim_names_new();
		if (reserve)
			shim_names_reserve(t, N);
		for (long i = 0; i < N; i++) {
			int n = snprintf(name, sizeof(name), "Suite%ld.test_%ld", i % 97, i);
			CU_ASSERT_EQUAL_FATAL(shim_names_add(t, name, (size_t)n), i);
		}
		CU_ASSERT_EQUAL(shim_names_count(t), (size_t)N);
		CU_ASSERT_EQUAL(shim_names_add(t, "Suite5.test_5", 13), -1);
		int bad = 0;
		for (long i = 0; i < N; i++) {
			int n = snprintf(name, sizeof(name), "Suite%ld.test_%ld", i % 97, i);
			size_t len;
			const char *at = shim_names_at(t, (size_t)i, &len);
			bad += shim_names_find(t, name, (size_t)n) != i || len != (size_t)n ||
			       memcmp(at, name, len) || at[len];
		}
		CU_ASSERT_EQUAL(bad, 0);
		CU_ASSERT_EQUAL(shim_names_find(t, "Suite0.test_100000", 18), -1);
		shim_names_free(t);
	}
}

/* A frame's C++ name as a reader writes it (sites_cxx_name): demangled,
 * the parameters, qualifiers, clone suffix and a template's return type
 * cut, what brackets the name itself holds kept (operators, an anonymous
 * namespace, a lambda's local scope, an ABI tag). The mangled names are
 * g++'s for these declarations; anything else passes as it is. */
static void cxx_names(void)
{
	static const char *const cases[][2] = {
	    {"_ZN2ns4Pool4growEi", "ns::Pool::grow"},                    /* (int) */
	    {"_ZNK2ns4Pool4growEi", "ns::Pool::grow"},                   /* (int) const */
	    {"_ZN2ns4fillIiEESt6vectorIT_SaIS2_EES2_", "ns::fill<int>"}, /* returns a template */
	    {"_ZN2ns5countINSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEEEEmT_",
	     "ns::count<std::__cxx11::basic_string<char, std::char_traits<char>, "
	     "std::allocator<char> > >"},                         /* unsigned long */
	    {"_ZSt3minImERKT_S2_S2_", "std::min<unsigned long>"}, /* unsigned long const& */
	    {"_ZSt10__distanceIPKcENSt15iterator_traitsIT_E15difference_typeES3_S3_St26random_"
	     "access_iterator_tag",
	     "std::__distance<char const*>"},
	    {"_ZN12_GLOBAL__N_16hiddenEc", "(anonymous namespace)::hidden"},
	    {"_ZZ3lamvENKUliE_clEi", "lam()::{lambda(int)#1}::operator()"},
	    {"_ZN2ns4PoolclEv", "ns::Pool::operator()"},
	    {"_ZN2ns4PoollsEi", "ns::Pool::operator<<"},
	    {"_ZNK2ns4PoolltERKS0_", "ns::Pool::operator<"},
	    {"_ZNK2ns4PoolcvbEv", "ns::Pool::operator bool"},
	    {"_Znami", "operator new[]"},
	    {"_Z6taggedB5cxx11v", "tagged[abi:cxx11]"},
	    {"_ZL9leak_mmapv", "leak_mmap"}, /* static */
	    {"_Z3foov.cold", "foo"},         /* a [clone .cold] */
	    {"_ZN7testing8internal35HandleExceptionsInMethodIfSupportedINS_4TestEvEET0_PT_MS4_FS3_"
	     "vEPKc",
	     "testing::internal::HandleExceptionsInMethodIfSupported<testing::Test, void>"},
	    {"_ZN2nslsIiEERNS_4SinkES2_RKT_", "ns::operator<< <int>"},
	    {"_ZN2nsltIiEEbRKNS_1AERKT_", "ns::operator< <int>"},
	    {"_ZN2ns3addIiEEDTplfp_fp0_ET_S2_", "ns::add<int>"}, /* decltype (...) */
	    {"_ZN2nsli3_kbEy", "ns::operator\"\" _kb"},
	    /* returns a function pointer: the whole signature */
	    {"_ZN2ns6getfptIiEEPFvT_Ev", "void (*ns::getfpt<int>())(int)"},
	    {"leak_mmap", "leak_mmap"}, /* C */
	    {"_Zbogus", "_Zbogus"},     /* refused by the demangler */
	    {"_Z", "_Z"},
	    {"", ""},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = sites_cxx_name(cases[i][0]);
		if (strcmp(got, cases[i][1]))
			fprintf(stderr, "%s: wanted '%s', got '%s'\n", cases[i][0], cases[i][1],
			        got);
		CU_ASSERT_STRING_EQUAL(got, cases[i][1]);
		free(got);
	}
}

static const mg_case cases[] = {
    {"transitions_legal", transitions_legal},
    {"transitions_actions", transitions_actions},
    {"transitions_illegal", transitions_illegal},
    {"transitions_lifecycle", transitions_lifecycle},
    {"options_flags", options_flags},
    {"options_errors", options_errors},
    {"options_size_units", options_size_units},
    {"options_numbers", options_numbers},
    {"durations", durations},
    {"nodes_from_env", nodes_from_env},
    {"config_file", config_file},
    {"timeline_bounded", timeline_bounded},
    {"spawn_host", spawn_host},
    {"spawn_plain", spawn_plain},
    {"spawn_exec_fails", spawn_exec_fails},
    {"spawn_release_keeps", spawn_release_keeps},
    {"spawn_read_whole", spawn_read_whole},
    {"names_bulk", names_bulk},
    {"cxx_names", cxx_names},
};

MG_TEST_MAIN("runner", cases)

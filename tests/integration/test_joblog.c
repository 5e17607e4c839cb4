/*
 * test_joblog.c - what a CI job log shows of a run: nothing test-controlled
 * becomes a command of the CI's log scanner (a hostile suite under Azure,
 * TeamCity and GitHub, each agent's rule applied to every line memguard
 * prints: only memguard's own commands); failure messages as indented
 * lines; a host the kernel cannot execute is exit 3 with the reason; kept
 * output is head and tail (also held for a host's marks); wrap streams its command's output while
 * it runs.
 */
#include <poll.h>
#include <strings.h>

#include "mg_run.h"

/* The agents' rules, applied to stdout and stderr together. */

/* Azure (Command.TryParse): the first "##vso[" anywhere in a line,
 * case-insensitive. Counts lines that hold one; *own those where it starts
 * the line as one of memguard's azure adapter's commands. */
static size_t azure_commands(const char *log, size_t *own)
{
	size_t n = 0;
	*own = 0;
	for (const char *l = log; *l;) {
		size_t len = strcspn(l, "\n");
		for (size_t i = 0; i + 6 <= len; i++)
			if (!strncasecmp(l + i, "##vso[", 6)) {
				n++;
				if (i == 0 &&
				    (!strncmp(l, "##vso[task.logissue ", 20) ||
				     !strncmp(l, "##vso[task.uploadsummary]", 25) ||
				     !strncmp(l, "##vso[task.setvariable variable=memguard.", 41)))
					(*own)++;
				break;
			}
		l += len + (l[len] == '\n');
	}
	return n;
}

/* TeamCity: every "##teamcity[" in a line is a service message. *own:
 * those that start a line (memguard's adapter writes one a line). */
static size_t teamcity_commands(const char *log, size_t *own)
{
	size_t n = 0;
	*own = 0;
	for (const char *p = log; (p = strstr(p, "##teamcity[")) != NULL; p++) {
		n++;
		if (p == log || p[-1] == '\n')
			(*own)++;
	}
	return n;
}

/* GitHub (ActionCommand.TryParseV2, then TryParse): a line that starts
 * with "::" after leading blanks, or holds "##[". */
static size_t github_commands(const char *log)
{
	size_t n = 0;
	for (const char *l = log; *l;) {
		size_t len = strcspn(l, "\n");
		size_t i = strspn(l, " \t");
		int v1 = 0;
		for (size_t k = 0; k + 3 <= len; k++)
			v1 |= !strncmp(l + k, "##[", 3);
		if ((i + 2 <= len && l[i] == ':' && l[i + 1] == ':') || v1) {
			fprintf(stderr, "github command: %.*s\n", (int)len, l);
			n++;
		}
		l += len + (l[len] == '\n');
	}
	return n;
}

static void run_hostile(outcome *o, const char *const *env, const char *adapter)
{
	if (adapter)
		mg(o,
		   ARGV("run", "-j", "2", "--driver", "native", "--adapter", "console", "--adapter",
		        adapter, "--", HOSTILE),
		   env, 0);
	else
		mg(o, ARGV("run", "-j", "2", "--driver", "native", "--", HOSTILE), env, 0);
	CU_ASSERT(exited_with(o, 1)); /* every test failed: 1, as the suite says */
	CU_ASSERT(strstr(o->out, "not passing:") != NULL);
}

static char *both(const outcome *o)
{
	size_t a = strlen(o->out), b = strlen(o->err);
	char *s = malloc(a + b + 2);
	CU_ASSERT_FATAL(s != NULL);
	memcpy(s, o->out, a);
	s[a] = '\n';
	memcpy(s + a + 1, o->err, b + 1);
	return s;
}

static void hostile_azure(void)
{
	outcome o;
	run_hostile(&o, ENV("TF_BUILD=True"), "azure");
	char *log = both(&o);
	size_t own, n = azure_commands(log, &own);
	if (n != own)
		fprintf(stderr, "%s\n", log);
	CU_ASSERT_EQUAL(n, own); /* 0 commands but memguard's own */
	CU_ASSERT(own >= 5);     /* its output variables */
	/* the names are there, defused */
	CU_ASSERT(strstr(log, "h/x ##vso [task.setvariable variable=pwned]1") != NULL);
	free(log);
	done(&o);
	run_hostile(&o, ENV("TF_BUILD=True"), NULL); /* console only */
	log = both(&o);
	CU_ASSERT_EQUAL(azure_commands(log, &own), 0);
	free(log);
	done(&o);
}

static void hostile_teamcity(void)
{
	outcome o;
	run_hostile(&o, ENV("TEAMCITY_VERSION=2024.1"), "teamcity");
	char *log = both(&o);
	size_t own, n = teamcity_commands(log, &own);
	if (n != own)
		fprintf(stderr, "%s\n", log);
	CU_ASSERT_EQUAL(n, own);
	CU_ASSERT(own >= 6 * 3); /* testStarted, testFailed, testFinished per test */
	free(log);
	done(&o);
}

static void hostile_github(void)
{
	outcome o;
	run_hostile(&o, ENV("GITHUB_ACTIONS=true"), NULL);
	char *log = both(&o);
	CU_ASSERT_EQUAL(github_commands(log), 0); /* no recycle or kill: none of its own */
	CU_ASSERT(strstr(log, ": :error file=x::pwned") != NULL);
	free(log);
	done(&o);
	/* the github adapter's summary on stdout (no $GITHUB_STEP_SUMMARY) */
	run_hostile(&o, ENV("GITHUB_ACTIONS=true"), "github");
	log = both(&o);
	CU_ASSERT_EQUAL(github_commands(log), 0);
	free(log);
	done(&o);
}

/* Outside a CI nothing is rewritten: the same text, its lines indented. */
static void message_lines(void)
{
	outcome o;
	run_hostile(&o, NULL, NULL);
	CU_ASSERT(strstr(o.out, ": Expected equality of these values:\n"
	                        "        ::error file=x::pwned\n"
	                        "      ##vso[task.logissue type=error]pwned\n") != NULL);
	CU_ASSERT(strstr(o.out, "\\x0a") == NULL);
	done(&o);
}

static void write_script(const char *path, const char *body)
{
	FILE *f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs(body, f);
	CU_ASSERT_FATAL(fclose(f) == 0);
	CU_ASSERT_FATAL(chmod(path, 0755) == 0);
}

/* A host the kernel refuses: exit 3 and its reason, whatever the driver. */
static void cannot_execute(void)
{
	char dir[] = "/tmp/mg-joblog-XXXXXX", a[96], b[96], c[96];
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(a, sizeof(a), "%s/no-shebang", dir);
	snprintf(b, sizeof(b), "%s/no-interpreter", dir);
	snprintf(c, sizeof(c), "%s/garbage", dir);
	write_script(a, "echo hi\n");
	write_script(b, "#!/nonexistent/python9\nprint(1)\n");
	write_script(c, "\x01\x02\x03\x04 not a program\n");
	static const char *const drivers[] = {"auto", "wrap", "exec", "native"};
	const char *hosts[] = {a, b, c};
	for (size_t h = 0; h < 3; h++)
		for (size_t d = 0; d < 4; d++) {
			outcome o;
			mg(&o,
			   ARGV("run", "-q", "--driver", drivers[d], "--list-file", "/dev/null",
			        "--", hosts[h]),
			   NULL, 0);
			if (strcmp(drivers[d], "exec")) { /* --list-file goes with exec only */
				done(&o);
				mg(&o, ARGV("run", "-q", "--driver", drivers[d], "--", hosts[h]),
				   NULL, 0);
			}
			CU_ASSERT(exited_with(&o, 3));
			CU_ASSERT(strstr(o.err, "cannot execute") != NULL);
			CU_ASSERT(strstr(o.err, h == 1 ? "interpreter '/nonexistent/python9'"
			                               : "Exec format error") != NULL);
			done(&o);
		}
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CU_ASSERT(system(cmd) == 0);
}

/* 600 KB of output with --output-limit 1K: the first 512 bytes, what was
 * cut, the last 512 (where make says what failed). */
static void output_head_tail(void)
{
	char dir[] = "/tmp/mg-joblog-XXXXXX", s[96];
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(s, sizeof(s), "%s/loud", dir);
	write_script(s, "#!/bin/sh\necho FIRST\nseq 1 100000\necho 'make: *** [all] Error 1'\n"
	                "exit 2\n");
	outcome o;
	mg(&o,
	   ARGV("run", "-q", "--driver", "wrap", "--output-limit", "1K", "--report", "report.json",
	        "--", s),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	json_t *t = json_array_get(
	    json_object_get(json_array_get(json_object_get(o.report, "shards"), 0), "tests"), 0);
	const char *out = json_string_value(json_object_get(t, "output"));
	CU_ASSERT_FATAL(out != NULL);
	CU_ASSERT(!strncmp(out, "FIRST\n1\n2\n", 10));
	CU_ASSERT(strstr(out, "bytes cut here; kept the first 512 and the last 512]") != NULL);
	size_t len = strlen(out);
	CU_ASSERT(len > 30 && !strcmp(out + len - 24, "make: *** [all] Error 1\n"));
	done(&o);
	/* 3000 small writes, HEAD+TAIL sizes: the ring's every path; the kept
	 * bytes are exactly the output's first HEAD and last TAIL */
	snprintf(s, sizeof(s), "%s/small", dir);
	write_script(s, "#!/bin/sh\ni=0\nwhile [ $i -lt 3000 ]; do echo \"line $i\"; "
	                "i=$((i+1)); done\n");
	static const char *const limits[] = {"100+100", "0+77", "1000+1", "37+0"};
	static const size_t heads[] = {100, 0, 1000, 37}, tails[] = {100, 77, 1, 0};
	size_t full = 0; /* "line 0\n" .. "line 2999\n" */
	for (int i = 0; i < 3000; i++)
		full += (size_t)snprintf(NULL, 0, "line %d\n", i);
	for (size_t k = 0; k < 4; k++) {
		mg(&o,
		   ARGV("run", "-q", "--driver", "wrap", "--output-limit", limits[k], "--report",
		        "report.json", "--", s),
		   NULL, 0);
		CU_ASSERT(exited_with(&o, 0));
		t = json_array_get(
		    json_object_get(json_array_get(json_object_get(o.report, "shards"), 0),
		                    "tests"),
		    0);
		out = json_string_value(json_object_get(t, "output"));
		CU_ASSERT_FATAL(out != NULL);
		char note[160];
		snprintf(note, sizeof(note),
		         "\n[memguard: %zu bytes cut here; kept the first %zu and the last %zu]\n",
		         full - heads[k] - tails[k], heads[k], tails[k]);
		const char *at = strstr(out, note);
		if (!at)
			fprintf(stderr, "%s: %.300s\n", limits[k], out);
		CU_ASSERT_FATAL(at != NULL);
		CU_ASSERT_EQUAL((size_t)(at - out), heads[k]);
		CU_ASSERT(!strncmp(out, "line 0\nline 1\n", heads[k] < 14 ? heads[k] : 14));
		CU_ASSERT_EQUAL(strlen(at + strlen(note)), tails[k]);
		static const char last[] = "line 2999\n"; /* the tail ends as the output does */
		size_t n = tails[k] < sizeof(last) - 1 ? tails[k] : sizeof(last) - 1;
		CU_ASSERT(!strcmp(out + strlen(out) - n, last + sizeof(last) - 1 - n));
		done(&o);
	}
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CU_ASSERT(system(cmd) == 0);
}

/* The same HEAD+TAIL through a native host, whose output the runner holds
 * until the host's mark names its test (the host marks only tests that
 * wrote): 3000 writes in the middle test of three, the neighbours silent.
 * The kept bytes are the first HEAD and the last TAIL of the test's, not of
 * what the runner held. */
static void output_head_tail_marked(const char *host)
{
	static const char *const limits[] = {"100+100", "0+77", "1000+1", "37+0", "64K"};
	static const size_t heads[] = {100, 0, 1000, 37, 32768}, tails[] = {100, 77, 1, 0, 0};
	char full[32768];
	size_t nfull = 0; /* "line 0\n" .. "line 2999\n" */
	for (int i = 0; i < 3000; i++)
		nfull += (size_t)snprintf(full + nfull, sizeof(full) - nfull, "line %d\n", i);
	for (size_t k = 0; k < sizeof(limits) / sizeof(limits[0]); k++) {
		outcome o;
		mg(&o,
		   ARGV("run", "-q", "-j", "1", "--output-limit", limits[k], "--report",
		        "report.json", "--", host),
		   ENV("MG_FAULT=loud@1,fail@1", "MG_FAULT_TESTS=3"), 0);
		CU_ASSERT(exited_with(&o, 1));
		CU_ASSERT_FATAL(o.report != NULL);
		json_t *tests = json_object_get(
		    json_array_get(json_object_get(o.report, "shards"), 0), "tests");
		CU_ASSERT_EQUAL_FATAL(json_array_size(tests), 3);
		for (size_t i = 0; i < 3; i += 2)
			CU_ASSERT_PTR_NULL(json_object_get(json_array_get(tests, i), "output"));
		const char *out =
		    json_string_value(json_object_get(json_array_get(tests, 1), "output"));
		CU_ASSERT_FATAL(out != NULL);
		if (heads[k] + tails[k] >= nfull) { /* all kept */
			CU_ASSERT(strlen(out) == nfull && !memcmp(out, full, nfull));
			done(&o);
			continue;
		}
		char note[160];
		snprintf(note, sizeof(note),
		         "\n[memguard: %zu bytes cut here; kept the first %zu and the last %zu]\n",
		         nfull - heads[k] - tails[k], heads[k], tails[k]);
		const char *at = strstr(out, note);
		if (!at)
			fprintf(stderr, "%s: %.300s\n", limits[k], out);
		CU_ASSERT_FATAL(at != NULL);
		CU_ASSERT_EQUAL((size_t)(at - out), heads[k]);
		CU_ASSERT(!memcmp(out, full, heads[k]));
		const char *tail = at + strlen(note);
		CU_ASSERT_EQUAL(strlen(tail), tails[k]);
		CU_ASSERT(!memcmp(tail, full + nfull - tails[k], tails[k]));
		done(&o);
	}
}

static void output_head_tail_marked_x64(void)
{
	output_head_tail_marked(FAULT64);
}

static void output_head_tail_marked_x86(void)
{
	output_head_tail_marked(FAULT32);
}

/* wrap prints its command's output while the command runs: the command
 * prints a line and then waits for a FIFO that the test opens only once it
 * has read that line from memguard's stdout. */
static void wrap_streams(void)
{
	char dir[] = "/tmp/mg-joblog-XXXXXX", s[96], fifo[96], body[512];
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(s, sizeof(s), "%s/step", dir);
	snprintf(fifo, sizeof(fifo), "%s/go", dir);
	CU_ASSERT_FATAL(mkfifo(fifo, 0600) == 0);
	snprintf(body, sizeof(body),
	         "#!/bin/sh\necho 'step 1 of 2: ##vso[task.complete]x'\nread x < '%s'\n"
	         "echo 'step 2 of 2'\n",
	         fifo);
	write_script(s, body);
	int p[2];
	CU_ASSERT_FATAL(pipe(p) == 0);
	pid_t pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		setenv("TF_BUILD", "True", 1);
		unsetenv("CI");
		execl(MEMGUARD_BIN, MEMGUARD_BIN, "run", "--driver", "wrap", "--", s, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	char got[4096];
	size_t n = 0;
	int seen = 0;
	while (!seen && n < sizeof(got) - 1) {
		struct pollfd pf = {p[0], POLLIN, 0};
		if (poll(&pf, 1, 60000) <= 0) /* a bound, not a timing: the line never came */
			break;
		ssize_t r = read(p[0], got + n, sizeof(got) - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
		got[n] = 0;
		seen = strstr(got, "step 1 of 2: ##vso [task.complete]x\n") != NULL;
	}
	CU_ASSERT(seen); /* before the command ended: it still waits on the FIFO */
	int fd = open(fifo, O_WRONLY);
	CU_ASSERT(fd >= 0 && write(fd, "go\n", 3) == 3);
	close(fd);
	for (ssize_t r; n < sizeof(got) - 1 && (r = read(p[0], got + n, sizeof(got) - 1 - n)) > 0;)
		n += (size_t)r;
	got[n] = 0;
	close(p[0]);
	int st;
	CU_ASSERT(waitpid(pid, &st, 0) == pid);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CU_ASSERT(strstr(got, "step 2 of 2\n") != NULL);
	CU_ASSERT(strstr(got, "passed") != NULL); /* the table after it */
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CU_ASSERT(system(cmd) == 0);
}

static const mg_case cases[] = {
    {"hostile_azure", hostile_azure},
    {"hostile_teamcity", hostile_teamcity},
    {"hostile_github", hostile_github},
    {"message_lines", message_lines},
    {"cannot_execute", cannot_execute},
    {"output_head_tail", output_head_tail},
    {"output_head_tail_marked_x64", output_head_tail_marked_x64},
    {"output_head_tail_marked_x86", output_head_tail_marked_x86},
    {"wrap_streams", wrap_streams},
};

MG_TEST_MAIN("joblog", cases)

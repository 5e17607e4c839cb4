/*
 * integration_faults.c - hosts that crash, hang, talk garbage, break the
 * protocol or hold pipes; signals to memguard; listing that never ends.
 */
#include "cgroup.h"
#include "integration.h"
#include "mg_run.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* 2. A segfault in test 5: crash; the others pass. Also an abort() under
 * a recycle limit below a fresh host's own size (--recycle-at va=1M: the
 * host is past it from its start): a crash, not an out-of-memory death
 * (before: memory-limit "near its limit ... out of memory", after a retry
 * alone that was past the limit as well). */
void crash(void)
{
	static const char *const faults[] = {"MG_FAULT=segv@5", "MG_FAULT=abort@5"};
	static const char *const sigs[] = {"SIGSEGV", "SIGABRT"};
	for (int i = 0; i < 2; i++) {
		outcome o;
		if (i)
			mg(&o,
			   ARGV("run", "-j", "1", "--recycle-at", "va=1M", "--report",
			        "report.json", "--", FAULT64),
			   ENV(faults[i], "MG_FAULT_TESTS=20"), 0);
		else
			mg(&o, ARGV("run", "-j", "1", "--report", "report.json", "--", FAULT64),
			   ENV(faults[i], "MG_FAULT_TESTS=20"), 0);
		CU_ASSERT(exited_with(&o, 1));
		CU_ASSERT_FATAL(o.report != NULL);
		CU_ASSERT_STRING_EQUAL(state_of(o.report, "fault/t005"), "crash");
		const char *m = message_of(o.report, "fault/t005");
		CU_ASSERT(m && strstr(m, sigs[i]) && strstr(m, "during the test"));
		CU_ASSERT_EQUAL(count(o.report, "pass"), 19);
		CU_ASSERT_EQUAL(count(o.report, "memory-limit"), 0);
		done(&o);
	}
}

/* A failing test under a recycle limit below a fresh host's own size
 * (--recycle-at rss=1K: past it from its start) fails once: not a failure
 * near the memory ceiling, retried alone (before: every failure was, and a
 * flaky test's retry could pass a suite that fails run directly). */
void fail_below_start(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "1", "--recycle-at", "rss=1K", "--report", "report.json", "--",
	        FAULT64),
	   ENV("MG_FAULT=fail@2", "MG_FAULT_TESTS=5"), 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "fault/t002"), "fail");
	json_t *t = find_test(o.report, "fault/t002");
	CU_ASSERT(t && json_integer_value(json_object_get(t, "attempts")) == 1);
	CU_ASSERT(t && !json_is_true(json_object_get(t, "near_ceiling")));
	CU_ASSERT_EQUAL(count(o.report, "pass"), 4);
	done(&o);
}

/* 3. A test that hangs: timeout; the rest run. */
void timeout(void)
{
	outcome o;
	mg(&o, ARGV("run", "-j", "1", "--timeout", "1s", "--report", "report.json", "--", FAULT64),
	   ENV("MG_FAULT=hang@3", "MG_FAULT_TESTS=12"), 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "fault/t003"), "timeout");
	CU_ASSERT_EQUAL(count(o.report, "pass"), 11);
	done(&o);
}

/* 4. Garbage on the reply pipe of a host that replies there (no ring: a
 * ring host's is run__ring_garbage): error; the rest run. */
void garbage(void)
{
	outcome o;
	mg(&o, ARGV("run", "-j", "1", "--report", "report.json", "--", FAULT64),
	   ENV("MG_FAULT=garbage@4", "MG_FAULT_TESTS=12", "MG_FAULT_NO_RING=1"), 0);
	CU_ASSERT(exited_with(&o, 3));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "fault/t004"), "error");
	json_t *t = find_test(o.report, "fault/t004");
	CU_ASSERT(t && strstr(json_string_value(json_object_get(t, "message")), "protocol"));
	CU_ASSERT_EQUAL(count(o.report, "pass"), 11);
	done(&o);
}

/* A test directory with a script: hog.sh runs the 32-bit hog, which maps
 * MB MiB, as its child (not exec: the shell stays, a 64-bit parent). */
static void script_dir(char *dir, size_t n, const char *body)
{
	snprintf(dir, n, "/tmp/mg-script-XXXXXX");
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	char path[128];
	snprintf(path, sizeof(path), "%s/hog.sh", dir);
	FILE *f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	chmod(path, 0755);
	snprintf(path, sizeof(path), "%s/list", dir);
	f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs("small\nbig\nlast\n", f);
	fclose(f);
}

static void script_dir_free(const char *dir)
{
	char cmd[160];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CU_ASSERT(system(cmd) == 0);
}

/* The exec driver runs a shell script per test; the script's 32-bit child
 * maps 3.86 GiB. The guard reads each process's arch from the process, so
 * x86's kill limit (3.75 GiB) applies to it, not x64's (none): killed,
 * retried once, memory-limit; the other tests pass. */
void exec_script_hog_x86(void)
{
	char dir[64], script[160], list[96];
	script_dir(dir, sizeof(dir),
	           "case \"$1\" in big) HOG_MODE=reserve " HOG32 " 3950 3000 ;;\n"
	           "*) HOG_MODE=reserve " HOG32 " 64 10 ;; esac");
	snprintf(script, sizeof(script), "%s/hog.sh", dir);
	snprintf(list, sizeof(list), "%s/list", dir);
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "1", "--driver", "exec", "--list-file", list, "--report",
	        "report.json", "--", script, "{}"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "big"), "memory-limit");
	CU_ASSERT(message_of(o.report, "big") && strstr(message_of(o.report, "big"), "32-bit"));
	json_t *t = find_test(o.report, "big");
	CU_ASSERT(t && json_integer_value(json_object_get(t, "attempts")) == 2);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "small"), "pass");
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "last"), "pass");
	done(&o);
	script_dir_free(dir);
}

/* The same under wrap: one command, the hard limit kills its tree. */
void wrap_script_hog_x86(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "--driver", "wrap", "--report", "report.json", "--", "/bin/sh", "-c",
	        "HOG_MODE=reserve " HOG32 " 3950 3000; echo went on | tr a-z A-Z"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 0);
	CU_ASSERT(shard_sum(o.report, "kills") >= 1);
	/* the kill took the whole tree: the shell did not go on */
	json_t *t = json_array_get(
	    json_object_get(json_array_get(json_object_get(o.report, "shards"), 0), "tests"), 0);
	const char *out = json_string_value(json_object_get(t, "output"));
	CU_ASSERT(!out || !strstr(out, "WENT ON"));
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(t, "state")), "memory-limit");
	const char *msg = json_string_value(json_object_get(t, "message"));
	CU_ASSERT(msg && strstr(msg, "32-bit"));
	done(&o);
}

/* --shell: the script's child dies of SIGSEGV and the shell exits 139.
 * That is a crash with SIGSEGV, not a failure with "exit status 139"; a
 * script's own non-zero exit stays a failure. */
void shell_segv(void)
{
	char dir[64], list[96];
	script_dir(dir, sizeof(dir), "");
	snprintf(list, sizeof(list), "%s/list", dir);
	outcome o;
	mg(&o,
	   ARGV("run", "-j", "1", "--driver", "exec", "--list-file", list, "--report",
	        "report.json", "--shell",
	        "case {} in big) HOG_MODE=segv " HOG64
	        " 1 0 /dev/null; exit $? ;; *) exit 3 ;; esac"),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "big"), "crash");
	CU_ASSERT(message_of(o.report, "big") && strstr(message_of(o.report, "big"), "SIGSEGV"));
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "small"), "fail");
	CU_ASSERT(message_of(o.report, "small") &&
	          strstr(message_of(o.report, "small"), "exit status 3"));
	done(&o);
	script_dir_free(dir);
}

static int pid_alive(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	char buf[512];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] != 'Z'; /* a zombie is not alive */
}

/* A run stopped by sig ms after it reached its hanging test (the host's
 * mark: a fixed delay alone raced a loaded machine's start-up):
 * memguard dies of sig once every host is ended and the partial report
 * written (interrupted, exit_code 128 + sig, tests not run, without
 * figures), and no host is left. */
static void interrupted_by(int sig, int ms)
{
	outcome o;
	mg_run_signal = sig;
	mg_run_signal_marks = 1;
	mg(&o, ARGV("run", "-j", "2", "--report", "report.json", "--", FAULT64),
	   ENV("MG_FAULT=hang@30,hang@31", "MG_FAULT_TESTS=60"), ms);
	mg_run_signal = 0;
	mg_run_signal_marks = 0;
	CU_ASSERT(killed_by(&o, sig));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT(json_is_true(json_object_get(o.report, "interrupted")));
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(o.report, "exit_code")), 128 + sig);
	CU_ASSERT(count(o.report, "not-run") >= 1);
	size_t i, g;
	json_t *s, *gen, *t;
	int hosts = 0;
	/* a test that never started has no figures (before: its host's last,
	 * for those it had been given, and the summary listed them among the
	 * largest tests) */
	json_array_foreach(json_object_get(o.report, "shards"), i, s)
	    json_array_foreach(json_object_get(s, "tests"), g, t)
	{
		if (!strcmp(json_string_value(json_object_get(t, "state")), "not-run"))
			CU_ASSERT(json_integer_value(json_object_get(t, "va_after")) == 0 &&
			          json_integer_value(json_object_get(t, "rss_after")) == 0);
	}
	json_array_foreach(json_object_get(o.report, "shards"), i, s)
	    json_array_foreach(json_object_get(s, "generations"), g, gen)
	{
		pid_t pid = (pid_t)json_integer_value(json_object_get(gen, "pid"));
		CU_ASSERT(pid > 0 && !pid_alive(pid));
		hosts++;
	}
	CU_ASSERT(hosts >= 2);
	done(&o);
}

/* 6. SIGTERM mid-run: no host left, a valid partial report, and memguard
 * ends by SIGTERM itself (a shell shows 143). */
void sigterm(void)
{
	interrupted_by(SIGTERM, 100);
}

/* SIGHUP (a closed terminal, a dropped ssh session), SIGQUIT, SIGUSR1 and
 * SIGUSR2 stop a run as SIGTERM does. */
void stop_signals(void)
{
	static const int sigs[] = {SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
	for (size_t k = 0; k < sizeof(sigs) / sizeof(sigs[0]); k++)
		interrupted_by(sigs[k], 100);
}

/* SIGINT, and the same SIGINT again while the report is written, as
 * timeout(1) sends it to memguard and then to its process group (on a
 * loaded machine the second came while memguard wrote its outputs): one
 * stop, so the console's table and the JUnit file are written too (before:
 * the report only, stdout empty, no JUnit). 50,000 tests, most of them
 * not run: a report that takes a while to write. */
void sigint_again(void)
{
	outcome o;
	mg_run_signal = SIGINT;
	mg_run_signal_marks = 1;
	mg_run_signal_again = 1;
	mg(&o,
	   ARGV("run", "-j", "2", "--report", "report.json", "--adapter", "junit=junit.xml", "--",
	        FAULT64),
	   ENV("MG_FAULT=hang@30,hang@31", "MG_FAULT_TESTS=50000"), 50);
	mg_run_signal = 0;
	mg_run_signal_marks = 0;
	mg_run_signal_again = 0;
	CU_ASSERT(killed_by(&o, SIGINT));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT(json_is_true(json_object_get(o.report, "interrupted")));
	CU_ASSERT(strstr(o.out, "interrupted: this is a partial report") != NULL);
	char path[128];
	struct stat st;
	snprintf(path, sizeof(path), "%s/junit.xml", o.dir);
	CU_ASSERT(stat(path, &st) == 0 && st.st_size > 1000000);
	done(&o);
}

/* A host that answers every run line with two results breaks the protocol
 * between tests: each such host ends as error (the generations say so),
 * every test passes in a fresh host, and the run is exit 3 saying so (it
 * exited 0 before). */
void protocol_break_between_tests(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-q", "--driver", "native", "--report", "report.json", "--", TWO_RESULTS),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 3));
	CU_ASSERT(strstr(o.err, "broke the protocol") != NULL);
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(o.report, "exit_code")), 3);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 3);
	json_t *gens[8];
	size_t n = gens_of(o.report, gens, 8), errors = 0;
	for (size_t g = 0; g < n && g < 8; g++) {
		const char *why = json_string_value(json_object_get(gens[g], "reason"));
		errors += why && strstr(why, "protocol error: unexpected 'pass") != NULL;
	}
	CU_ASSERT(errors >= 1);
	done(&o);
}

/* A v1 host's output (no marks) read when no test is in flight: after its
 * last result it is the last test's. Before: dropped ("farewell text" was
 * nowhere in the report). */
void v1_output_between(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-q", "-j", "1", "--driver", "native", "--report", "report.json", "--",
	        BYE_TEXT),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 2);
	json_t *t = find_test(o.report, "a/t1");
	const char *out = t ? json_string_value(json_object_get(t, "output")) : NULL;
	if (!out || !strstr(out, "farewell text"))
		fprintf(stderr, "\n  a/t1's output: %s\n", out ? out : "(none)");
	CU_ASSERT(out && strstr(out, "farewell text") != NULL);
	done(&o);
}

/* 1 if a live (non-zombie) process is in process group pgid. */
static int group_alive(pid_t pgid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int alive = 0;
	while (d && (e = readdir(d)) && !alive) {
		char path[300], buf[512];
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = 0;
		char *p = strrchr(buf, ')'), state;
		int ppid, pgrp;
		if (p && sscanf(p + 2, "%c %d %d", &state, &ppid, &pgrp) == 3 && pgrp == pgid &&
		    state != 'Z')
			alive = 1;
	}
	if (d)
		closedir(d);
	return alive;
}

/* A host crashes while a child it forked (no exec) still holds its reply
 * pipe: no EOF comes, yet the crash is seen (SIGCHLD), the test is a
 * crash, the rest run, and the child, in the host's process group, does
 * not outlive the run. Broken, this case hangs until CTest's timeout. */
void crash_child_holds_pipe(void)
{
	outcome o;
	mg(&o, ARGV("run", "-j", "1", "--report", "report.json", "--", FAULT64),
	   ENV("MG_FAULT=forkcrash@3", "MG_FAULT_TESTS=8"), 0);
	CU_ASSERT(exited_with(&o, 1));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_STRING_EQUAL(state_of(o.report, "fault/t003"), "crash");
	CU_ASSERT_EQUAL(count(o.report, "pass"), 7);
	json_t *gen = json_array_get(
	    json_object_get(json_array_get(json_object_get(o.report, "shards"), 0), "generations"),
	    0);
	pid_t host = (pid_t)json_integer_value(json_object_get(gen, "pid"));
	CU_ASSERT(host > 0 && !pid_alive(host));
	CU_ASSERT(!group_alive(host)); /* the forked child went with its host */
	done(&o);
}

/* SIGTERM while the host is still starting (listing; sent once the host
 * says it sleeps): ended by SIGTERM at once, a report that says so
 * (exit_code 143), and the host is gone. */
void sigterm_while_listing(void)
{
	outcome o;
	mg_run_signal_marks = 1;
	mg(&o, ARGV("run", "--report", "report.json", "--", FAULT64),
	   ENV("MG_FAULT_START_MS=20000"), 100);
	mg_run_signal_marks = 0;
	CU_ASSERT(killed_by(&o, SIGTERM));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT(json_is_true(json_object_get(o.report, "interrupted")));
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(o.report, "exit_code")), 143);
	CU_ASSERT(strstr(o.err, "interrupted") != NULL);
	done(&o);
}

/* A host that never answers "list" (a script reading nothing, asleep):
 * the listing obeys --timeout (or --deadline), memguard run and memguard
 * list exit 3 saying so, and the host's group (the script and its sleep) is
 * gone: killed at the timeout, not only with memguard's PID namespace at
 * exit (--contain none: the pid the script writes is then the test's too).
 * Not a timed test: CTest's TIMEOUT bounds a hang. */
static void mute_lister(const char *cmd, const char *flag, const char *needle, int report)
{
	char script[512];
	snprintf(script, sizeof(script),
	         "printf '#!/bin/sh\\nread p _ < /proc/self/stat\\necho $p > pid\\nsleep 1000\\n' "
	         "> mute.sh && "
	         "chmod +x mute.sh && exec \"$MG\" %s %s 1s --contain none --driver native%s -- "
	         "./mute.sh",
	         cmd, flag, report ? " --report report.json" : "");
	outcome o;
	mg(&o, (const char *const[]){"/bin/sh", "-c", script, NULL},
	   (const char *const[]){"MG=" MEMGUARD_BIN, NULL}, 0);
	CU_ASSERT(exited_with(&o, 3));
	CU_ASSERT(strstr(o.err, needle) != NULL);
	if (report) {
		CU_ASSERT_FATAL(o.report != NULL);
		CU_ASSERT_EQUAL(json_integer_value(json_object_get(o.report, "exit_code")), 3);
	}
	char path[128], buf[32];
	snprintf(path, sizeof(path), "%s/pid", o.dir);
	pid_t pid = (pid_t)atoi(slurp(path, buf, sizeof(buf)));
	CU_ASSERT_FATAL(pid > 0);
	/* SIGKILL to the group is sent before memguard exits; let it land */
	for (int i = 0; i < 200 && group_alive(pid); i++)
		nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
	CU_ASSERT(!pid_alive(pid));
	CU_ASSERT(!group_alive(pid)); /* its sleep went with it */
	done(&o);
}

void listing_timeout(void)
{
	mute_lister("run", "--timeout", "memguard run: listing timed out after 1 s", 1);
	mute_lister("list", "--timeout", "memguard list: listing timed out after 1 s", 0);
}

void listing_deadline(void)
{
	mute_lister("run", "--deadline", "memguard run: listing timed out after", 1);
}

/* Issue 13, item 9: a hello in a protocol version memguard does not speak
 * is refused at listing, naming the version sent and those spoken: exit 3
 * for run (the report says 3) and for list. */
void unknown_hello_version(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-q", "--driver", "native", "--report", "report.json", "--", BAD_VERSION),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 3));
	CU_ASSERT(strstr(o.err, "bad_version.sh' said hello in protocol version 9; memguard "
	                        "speaks versions 1 to 4") != NULL);
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(o.report, "exit_code")), 3);
	done(&o);
	mg(&o, ARGV("list", "--driver", "native", "--", BAD_VERSION), NULL, 0);
	CU_ASSERT(exited_with(&o, 3));
	CU_ASSERT(strstr(o.err, "memguard list: host '" BAD_VERSION "' said hello in protocol "
	                        "version 9") != NULL);
	CU_ASSERT(o.out[0] == 0);
	done(&o);
	/* version 1 while listing, 9 in the lane: each host is refused as a
	 * protocol error, the lane gives up, the test is `error` */
	mg(&o,
	   ARGV("run", "-q", "--driver", "native", "--report", "report.json", "--", BAD_VERSION),
	   ENV("LATE=1"), 0);
	CU_ASSERT(exited_with(&o, 3));
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "error"), 1);
	json_t *gens[8];
	size_t n = gens_of(o.report, gens, 8), refused = 0;
	for (size_t g = 0; g < n && g < 8; g++) {
		const char *why = json_string_value(json_object_get(gens[g], "reason"));
		refused += why && strstr(why, "hello in protocol version 9; memguard speaks "
		                              "versions 1 to 4") != NULL;
	}
	CU_ASSERT(refused >= 1);
	done(&o);
}

/* A host listing a name twice is refused at listing (the host's fault:
 * exit 3), naming the test; a --tests-from file naming one twice runs it
 * once, with a warning. */
void duplicate_names(void)
{
	outcome o;
	mg(&o, ARGV("run", "-q", "--driver", "native", "--report", "report.json", "--", DUP_NAMES),
	   NULL, 0);
	CU_ASSERT(exited_with(&o, 3));
	CU_ASSERT(strstr(o.err, "listed the test 'a/t1' more than once") != NULL);
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(o.report, "exit_code")), 3);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 0);
	done(&o);
	mg(&o, ARGV("list", "--driver", "native", "--", DUP_NAMES), NULL, 0);
	CU_ASSERT(exited_with(&o, 3));
	CU_ASSERT(strstr(o.err, "memguard list: host '" DUP_NAMES "' listed the test 'a/t1' "
	                        "more than once") != NULL);
	done(&o);
	mg(&o,
	   (const char *const[]){"/bin/sh", "-c",
	                         "printf 'fault/t001\\nfault/t003\\nfault/t001\\n' > names && "
	                         "exec \"$MG\" run -q --tests-from names --report report.json "
	                         "-- \"$HOST\"",
	                         NULL},
	   (const char *const[]){"MG=" MEMGUARD_BIN, "HOST=" FAULT64, "MG_FAULT_TESTS=5", NULL}, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT(strstr(o.err, "--tests-from names names 'fault/t001' more than once: it runs "
	                        "once") != NULL);
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 2);
	done(&o);
}

/* A host that starts a test, closes its reply pipe and keeps running (the
 * first host only): after DYING_DEADLINE memguard kills it and records it
 * as `error` "closed its reply pipe" (it said "crash", "killed by signal 9":
 * its own SIGKILL); the test is retried in a fresh host and passes, no test
 * is lost, and the protocol break makes the run exit 3. */
void closed_reply_pipe(void)
{
	outcome o;
	mg(&o,
	   ARGV("run", "-q", "--driver", "native", "-j", "1", "--report", "report.json", "--",
	        CLOSE_REPLY),
	   ENV("MARK=mark"), 0);
	CU_ASSERT(exited_with(&o, 3));
	CU_ASSERT(strstr(o.err, "1 host broke the protocol") != NULL);
	CU_ASSERT_FATAL(o.report != NULL);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(o.report, "exit_code")), 3);
	CU_ASSERT_EQUAL(count(o.report, "pass"), 3);
	json_t *gens[8];
	size_t n = gens_of(o.report, gens, 8), closed = 0, crashes = 0;
	for (size_t g = 0; g < n && g < 8; g++) {
		const char *end = json_string_value(json_object_get(gens[g], "end"));
		const char *why = json_string_value(json_object_get(gens[g], "reason"));
		closed += end && !strcmp(end, "error") && why &&
		          strstr(why, "closed its reply pipe") != NULL;
		crashes += end && !strcmp(end, "crash");
	}
	CU_ASSERT_EQUAL(closed, 1);
	CU_ASSERT_EQUAL(crashes, 0);
	done(&o);
}

/* Out of file descriptors at spawn (pipe2 in memguard, or the child's setup
 * before execve): the message says "too many open files" and `ulimit -n`,
 * never "cannot execute" (the child's errno came from its setup, not from
 * execve), exit 3. The fds memguard holds vary, so the limit is walked up;
 * some limit lands in the child's setup. */
void out_of_fds(void)
{
	outcome o;
	mg(&o,
	   (const char *const[]){"/bin/sh", "-c",
	                         "for n in $(seq 4 40); do (ulimit -n $n; exec \"$MG\" list -- "
	                         "\"$HOST\"); rc=$?; echo \"rc=$rc\" >&2; done",
	                         NULL},
	   (const char *const[]){"MG=" MEMGUARD_BIN, "HOST=" FAULT64, "MG_FAULT_TESTS=2", NULL}, 0);
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT(strstr(o.err, "cannot execute") == NULL);
	CU_ASSERT(strstr(o.err, "cannot set up the child for") != NULL);
	CU_ASSERT(strstr(o.err, "too many open files in memguard: raise its limit, e.g. "
	                        "`ulimit -n`") != NULL);
	CU_ASSERT(strstr(o.err, "rc=3") != NULL);
	CU_ASSERT(strstr(o.err, "rc=0") != NULL); /* enough fds at last */
	int other = 0;
	for (char *p = strstr(o.err, "rc="); p; p = strstr(p + 3, "rc="))
		other += p[3] != '0' && p[3] != '3' && strncmp(p, "rc=127", 6); /* 127: ld.so */
	CU_ASSERT_EQUAL(other, 0);
	if (other)
		fprintf(stderr, "stderr:\n%s\n", o.err);
	done(&o);
}

/*
 * buildkite.c - a Buildkite annotation: the shared Markdown summary, given
 * to `buildkite-agent annotate` on stdin (posix_spawn, no shell) when the
 * agent is on PATH, else written to a file or stdout. The style is error
 * when a test failed or a host was killed, warning on recycles, else info.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "adapters.h"
#include "mg_exit.h"

#define ANNOTATION_LIMIT (1024 * 1024) /* Buildkite's annotation body cap */

static const char *style(const report *r)
{
	if (r->totals.failed || r->totals.kills)
		return "error";
	return r->totals.recycles ? "warning" : "info";
}

/*
 * Runs the agent with body on its stdin. Adapters may not call the
 * runner's spawner (runner/spawn.c: hosts, namespaces, process groups), so
 * the child is libc's posix_spawn: no code of ours runs between fork and
 * exec, and a failed exec is its return value, not a child to decode.
 */
static int annotate(const char *agent, const report *r, const char *body, size_t len, mg_err *err)
{
	char context[64];
	snprintf(context, sizeof(context), "memguard-node-%u", r->node_index);
	char *argv[] = {(char *)agent, "annotate",       "--context", context,
	                "--style",     (char *)style(r), NULL};
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0)
		return mg_err_set(err, MG_ERROR, "buildkite: pipe: %s", strerror(errno));
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t dfl;
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE); /* ours may be ignored: the agent gets the default */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[0], 0); /* fd 0 loses close-on-exec */
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigdefault(&attr, &dfl);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
	fflush(NULL);
	pid_t pid;
	int e = posix_spawn(&pid, agent, &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	close(fds[0]);
	if (e != 0) {
		close(fds[1]);
		return mg_err_set(err, MG_ERROR, "buildkite: cannot run %s: %s", agent,
		                  strerror(e));
	}
	void (*old)(int) = signal(SIGPIPE, SIG_IGN);
	int rc = 0;
	for (size_t off = 0; off < len;) {
		ssize_t n = write(fds[1], body + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = mg_err_set(err, MG_ERROR, "buildkite: writing to %s: %s", agent,
			                strerror(errno));
			break;
		}
		off += (size_t)n;
	}
	close(fds[1]);
	signal(SIGPIPE, old);
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return mg_err_set(err, MG_ERROR, "buildkite: waitpid: %s", strerror(errno));
	mg_exit_end end = mg_exit_decode(status);
	if (rc == 0 && !mg_exit_ok(end))
		rc = mg_err_set(err, MG_ERROR, "buildkite: %s annotate failed (status %d)", agent,
		                mg_exit_shell(end));
	return rc;
}

/* path: write the annotation Markdown there (atomically). NULL: run
 * buildkite-agent when it is on PATH, else print the Markdown on stdout. */
int buildkite_render(const report *r, const char *path, mg_err *err)
{
	char agent[4096];
	if (!path && adapters_which("buildkite-agent", agent, sizeof(agent)) == 0) {
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);
		if (!m || markdown_summary(r, m, ANNOTATION_LIMIT) != 0 || fclose(m) != 0)
			abort();
		int rc = annotate(agent, r, buf, len, err);
		free(buf);
		return rc;
	}
	adapters_out o;
	int rc = adapters_out_open(&o, path, err);
	if (rc)
		return rc;
	int ok = markdown_summary(r, o.f, ANNOTATION_LIMIT) == 0;
	return adapters_out_close(&o, ok, err);
}

/*
 * buildkite.c - a Buildkite annotation: the shared Markdown summary, given
 * to `buildkite-agent annotate` on stdin (fork/exec, no shell) when the
 * agent is on PATH, else written to a file or stdout. The style is error
 * when a test failed or a host was killed, warning on recycles, else info.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "adapters.h"

#define ANNOTATION_LIMIT (1024 * 1024) /* Buildkite's annotation body cap */

static const char *style(const report *r)
{
	if (r->totals.failed || r->totals.kills)
		return "error";
	return r->totals.recycles ? "warning" : "info";
}

/* Runs the agent with body on its stdin; the child only dup2s and execs. */
static int annotate(const char *agent, const report *r, const char *body, size_t len, mg_err *err)
{
	char context[64];
	snprintf(context, sizeof(context), "memguard-node-%u", r->node_index);
	char *argv[] = {(char *)agent, "annotate",       "--context", context,
	                "--style",     (char *)style(r), NULL};
	int fds[2];
	if (pipe(fds) != 0)
		return mg_err_set(err, MG_ERROR, "buildkite: pipe: %s", strerror(errno));
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(fds[0]);
		close(fds[1]);
		return mg_err_set(err, MG_ERROR, "buildkite: fork: %s", strerror(e));
	}
	if (pid == 0) {
		dup2(fds[0], 0);
		close(fds[0]);
		close(fds[1]);
		signal(SIGPIPE, SIG_DFL);
		execv(agent, argv);
		_exit(127);
	}
	close(fds[0]);
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
	if (rc == 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		rc = mg_err_set(err, MG_ERROR, "buildkite: %s annotate failed (status %d)", agent,
		                WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
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

/*
 * exec.c - the exec driver: one process per test from a command template.
 * Names come from --list-cmd (run by sh -c, one name a line) or
 * --list-file. A name reaches the test as one argv element, never as shell
 * text: with --shell the script sees it as "$1".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "shim.h"
#include "spawn.h"

static char *replace_all(const char *s, const char *with)
{
	size_t n = 0, wl = strlen(with);
	for (const char *p = s; (p = strstr(p, "{}")); p += 2)
		n++;
	char *out = malloc(strlen(s) + n * wl + 1), *o = out;
	if (!out)
		return NULL;
	for (const char *p = s, *q; *p; p = q + 2) {
		q = strstr(p, "{}");
		if (!q) {
			strcpy(o, p);
			return out;
		}
		memcpy(o, p, (size_t)(q - p));
		o += q - p;
		memcpy(o, with, wl);
		o += wl;
		if (!q[2])
			break;
	}
	*o = 0;
	return out;
}

void exec_argv_free(char **argv)
{
	if (!argv)
		return;
	for (size_t i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
}

/*
 * For --shell: every {} in the script becomes a reference to $1, quoted to
 * fit where it stands, so the name is never part of the script's text:
 * outside quotes "$1", inside double quotes $1, inside single quotes '"$1"'.
 * malloc'd; NULL on out of memory.
 */
static char *shell_subst(const char *script)
{
	char *out = malloc(strlen(script) * 4 + 1), *o = out;
	int sq = 0, dq = 0;
	if (!out)
		return NULL;
	for (const char *p = script; *p; p++) {
		if (p[0] == '{' && p[1] == '}') {
			o += sprintf(o, "%s", sq ? "'\"$1\"'" : dq ? "$1" : "\"$1\"");
			p++;
			continue;
		}
		if (*p == '\\' && !sq && p[1]) { /* an escaped character stays as it is */
			*o++ = *p++;
			*o++ = *p;
			continue;
		}
		if (*p == '\'' && !dq)
			sq = !sq;
		else if (*p == '"' && !sq)
			dq = !dq;
		*o++ = *p;
	}
	*o = 0;
	return out;
}

char **exec_argv(char *const tmpl[], int ntmpl, int shell, const char *name)
{
	int has = 0;
	for (int i = 0; i < ntmpl; i++)
		has |= strstr(tmpl[i], "{}") != NULL;
	char **argv = calloc((size_t)ntmpl + 6, sizeof(char *));
	if (!argv)
		return NULL;
	if (shell) {
		size_t len = 16;
		for (int i = 0; i < ntmpl; i++)
			len += strlen(tmpl[i]) + 1;
		char *joined = malloc(len), *j = joined;
		if (!joined)
			goto fail;
		for (int i = 0; i < ntmpl; i++)
			j += sprintf(j, "%s%s", i ? " " : "", tmpl[i]);
		if (!has)
			strcpy(j, " {}");
		argv[0] = strdup("/bin/sh");
		argv[1] = strdup("-c");
		argv[2] = shell_subst(joined);
		argv[3] = strdup("sh");
		argv[4] = strdup(name);
		free(joined);
		for (int i = 0; i < 5; i++)
			if (!argv[i])
				goto fail;
		return argv;
	}
	for (int i = 0; i < ntmpl; i++)
		if (!(argv[i] = replace_all(tmpl[i], name)))
			goto fail;
	if (!has && !(argv[ntmpl] = strdup(name)))
		goto fail;
	return argv;
fail:
	for (int i = 0; i < ntmpl + 6; i++)
		free(argv[i]);
	free(argv);
	return NULL;
}

typedef struct exec_drv {
	const shim_args *a;
} exec_drv;

static int e_list(shim *s)
{
	exec_drv *d = shim_ctx(s);
	char *text = NULL;
	size_t len = 0;
	mg_exit_end status;
	if (d->a->list_file) {
		FILE *f = fopen(d->a->list_file, "r");
		if (!f) {
			fprintf(stderr, "memguard: cannot read the test list '%s': %s\n",
			        d->a->list_file, strerror(errno));
			return -1;
		}
		char tmp[65536];
		size_t n;
		while ((n = fread(tmp, 1, sizeof(tmp), f)) > 0) {
			char *t = realloc(text, len + n + 1);
			if (!t) {
				fclose(f);
				free(text);
				return -1;
			}
			text = t;
			memcpy(text + len, tmp, n);
			len += n;
		}
		fclose(f);
	} else {
		char *argv[] = {"/bin/sh", "-c", (char *)d->a->list_cmd, NULL};
		if (shim_capture(s, argv, &text, &len, &status) < 0)
			return -1;
		if (!mg_exit_ok(status)) {
			shim_say_failed(status, "the list command '%s'", d->a->list_cmd);
			free(text);
			return -1;
		}
	}
	shim_names *seen = shim_names_new();
	size_t again = 0, first = 0, first_len = 0;
	for (size_t off = 0; off < len;) {
		char *nl = memchr(text + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - (text + off)) : len - off;
		size_t k = n;
		if (k && text[off + k - 1] == '\r')
			k--;
		/* an empty line is no test; a repeated name is the same test */
		if (k && !memchr(text + off, 0, k)) {
			if (shim_names_add(seen, text + off, k) >= 0)
				shim_test(s, text + off, k);
			else if (again++ == 0)
				first = off, first_len = k;
		}
		off += n + 1;
	}
	if (again) /* said, not refused: a list of names, each a test */
		fprintf(stderr,
		        "memguard: the test list names %zu test%s again (the first: '%.*s'): "
		        "each name runs once\n",
		        again, again == 1 ? "" : "s", first_len > 200 ? 200 : (int)first_len,
		        text + first);
	shim_names_free(seen);
	free(text);
	return 0;
}

static void e_begin(shim *s)
{
	exec_drv *d = shim_ctx(s);
	const char *name = shim_queue_name(s, 0, NULL);
	char **argv = exec_argv(d->a->cmd, d->a->ncmd, d->a->shell, name);
	int rc = argv ? shim_spawn(s, argv, 0) : -1;
	exec_argv_free(argv);
	shim_start(s);
	if (rc < 0)
		shim_resultf(s, MG_MSG_FAIL, "cannot start the test's command");
}

/* 1 if path (found on PATH) is a shell or a script a shell runs. */
static int is_shell(const char *cmd)
{
	static const char *const shells[] = {"sh",  "bash", "dash", "ash",
	                                     "ksh", "mksh", "zsh",  "busybox"};
	char path[4096], head[2];
	const char *base = strrchr(cmd, '/');
	base = base ? base + 1 : cmd;
	for (size_t i = 0; i < sizeof(shells) / sizeof(shells[0]); i++)
		if (!strcmp(base, shells[i]))
			return 1;
	if (spawn_resolve(path, sizeof(path), cmd, NULL) < 0)
		return 0;
	FILE *f = fopen(path, "rb");
	int script = f && fread(head, 1, 2, f) == 2 && head[0] == '#' && head[1] == '!';
	if (f)
		fclose(f);
	return script;
}

/*
 * exec and wrap: the exit status is the result; a signal is a crash. A
 * shell whose child died of signal N exits 128 + N: when the command is a
 * shell (--shell, sh/bash/..., or a #! script), that is a crash with N too.
 * With --skip-code N an exit status N is skip (a runner's "skipped", as
 * automake's 77). (wrap's shim has no context; exec's holds its arguments.)
 */
void exec_exited(shim *s, mg_exit_end status, const struct rusage *ru)
{
	(void)ru;
	if (!shim_head_started(s))
		return;
	if (status.signo)
		shim_die_of(s, status.signo);
	int code = status.status;
	exec_drv *d = shim_ctx(s);
	if (code > 128 && code < 128 + 32) {
		int ncmd;
		char **cmd = shim_cmd(s, &ncmd);
		/* the program this test ran: ./{} is the test's own */
		char *prog = ncmd > 0 && shim_queued(s)
		                 ? replace_all(cmd[0], shim_queue_name(s, 0, NULL))
		                 : NULL;
		int shell = (d && d->a->shell) || (prog && is_shell(prog));
		free(prog);
		if (shell)
			shim_die_of(s, code - 128);
	}
	if (code == 0)
		shim_result(s, MG_MSG_PASS, NULL, 0);
	else if (d && d->a->skip_code && code == d->a->skip_code - 1)
		shim_resultf(s, MG_MSG_SKIP, "exit status %d (--skip-code)", code);
	else
		shim_resultf(s, MG_MSG_FAIL, "exit status %d", code);
}

int exec_main(const shim_args *a)
{
	static const shim_ops ops = {
	    .measure = SHIM_MEASURE_TREE,
	    .self_recycle = 0, /* every test is a fresh process already */
	    .list = e_list,
	    .begin = e_begin,
	    .exited = exec_exited,
	};
	exec_drv d = {a};
	return shim_main(&ops, &d, a->cmd, a->ncmd);
}

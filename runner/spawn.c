/*
 * spawn.c - vfork + exec (SPAWN_FORK: fork + exec) of a child with its pipes (see spawn.h).
 * The child side runs in the parent's memory until its exec (vfork: no
 * copy of the runner's page tables, the most of a recycle's spawn), so it
 * must stay async-signal-safe and write nothing the parent reads: no
 * malloc, no stdio, _exit, every signal blocked until its handlers are
 * the defaults.
 */
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "contain.h"
#include "mg_proto.h"
#include "proc.h"

struct spawn_proc {
	pid_t pid;      /* -1 once reaped */
	pid_t proc_pid; /* the same as /proc names it (see proc_child_pid) */
	int own_group;
	int cmd, reply, out, err;
};

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static int set_flags(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -1;
	return fcntl(fd, F_SETFD, FD_CLOEXEC);
}

/* What to raise when a spawn ran out of file descriptors ("" otherwise). */
static const char *fd_hint(int e)
{
	if (e == EMFILE)
		return " (too many open files in memguard: raise its limit, e.g. `ulimit -n`)";
	if (e == ENFILE)
		return " (too many open files in the system: raise fs.file-max)";
	return "";
}

/* Child: report errno on the status pipe and leave (execve's own error
 * negated, so the parent tells it from a setup error). */
static void __attribute__((noreturn)) child_fail(int status_fd, int code)
{
	ssize_t w = write(status_fd, &code, sizeof(code));
	(void)w;
	_exit(127);
}

/* The child's end of each fd it gets, and where: fds[i] becomes targets[i]. */
typedef struct child_fds {
	int fds[6], targets[6];
	int n;
} child_fds;

/*
 * Child side: async-signal-safe calls only. Moves its fds above every
 * target first so that dup2 never clobbers one that is still needed, then
 * closes everything else but the status pipe (close-on-exec).
 */
static void __attribute__((noreturn))
child_exec(const char *path, char *const argv[], const spawn_options *o, child_fds *cf,
           int status_w, pid_t parent)
{
	extern char **environ;
	sigset_t all;
	struct sigaction dfl;

	if (o->flags & SPAWN_OWN_GROUP)
		setpgid(0, 0);
	contain_child_enter();
	if (o->pdeathsig) {
		prctl(PR_SET_PDEATHSIG, o->pdeathsig);
		/* the parent died before the prctl took effect: we were reparented.
		 * 0 is a parent alive outside our PID namespace (a contained run). */
		pid_t pp = getppid();
		if (pp != parent && pp != 0)
			_exit(127);
	}
	if (o->as_limit) {
		struct rlimit rl = {(rlim_t)o->as_limit, (rlim_t)o->as_limit};
		if (setrlimit(RLIMIT_AS, &rl) < 0)
			child_fail(status_w, errno);
	}

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	for (int sig = 1; sig < NSIG; sig++)
		sigaction(sig, &dfl, NULL); /* fails harmlessly for KILL/STOP */
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);

	for (int i = 0; i < cf->n; i++) {
		int hi = fcntl(cf->fds[i], F_DUPFD, 10);
		if (hi < 0)
			child_fail(status_w, errno);
		cf->fds[i] = hi;
	}
	if (status_w < 10) {
		int hi = fcntl(status_w, F_DUPFD_CLOEXEC, 10);
		if (hi < 0)
			child_fail(status_w, errno);
		status_w = hi;
	}
	if (o->flags & SPAWN_NULL_STDIN) {
		int devnull = open("/dev/null", O_RDONLY);
		if (devnull < 0 || dup2(devnull, 0) < 0)
			child_fail(status_w, errno);
	}
	int top = 2;
	for (int i = 0; i < cf->n; i++) {
		if (dup2(cf->fds[i], cf->targets[i]) < 0)
			child_fail(status_w, errno);
		if (cf->targets[i] > top)
			top = cf->targets[i];
	}
	/* Everything else above the targets goes, except the status pipe. */
	if (close_range((unsigned)top + 1, (unsigned)status_w - 1, 0) < 0 ||
	    close_range((unsigned)status_w + 1, ~0u, 0) < 0) {
		for (int fd = top + 1; fd < 1024; fd++) /* before Linux 5.9 */
			if (fd != status_w)
				close(fd);
	}
	execve(path, argv, o->envp ? o->envp : environ);
	child_fail(status_w, -errno); /* negative: execve's own error, not the setup's */
}

/* The vfork (SPAWN_FORK: a fork), in a frame of its own: the child never returns from it
 * (child_exec execs or _exits), and no local of spawn_start is live across
 * it. */
static __attribute__((noinline)) pid_t spawn_vfork(const char *path, char *const argv[],
                                                   const spawn_options *o, child_fds *cf,
                                                   int status_w, pid_t parent)
{
	pid_t pid = o->flags & SPAWN_FORK ? fork() : vfork();
	if (pid == 0)
		child_exec(path, argv, o, cf, status_w, parent);
	return pid;
}

int spawn_start(spawn_proc **out, const char *path, char *const argv[], const spawn_options *o,
                mg_err *err)
{
	int cmd[2] = {-1, -1}, reply[2] = {-1, -1}, po[2] = {-1, -1}, pe[2] = {-1, -1};
	int status[2] = {-1, -1};
	spawn_proc *p = NULL;
	int rc = MG_ERROR;
	unsigned f = o->flags;

	*out = NULL;
	if (((f & SPAWN_PROTOCOL) && (pipe2(cmd, O_CLOEXEC) < 0 || pipe2(reply, O_CLOEXEC) < 0)) ||
	    ((f & SPAWN_CAPTURE_OUT) && pipe2(po, O_CLOEXEC) < 0) ||
	    ((f & SPAWN_CAPTURE_ERR) && pipe2(pe, O_CLOEXEC) < 0) || pipe2(status, O_CLOEXEC) < 0) {
		mg_err_set(err, MG_ERROR, "cannot create pipes: %s%s", strerror(errno),
		           fd_hint(errno));
		goto done;
	}
	/* A feed of run lines up to 1 MiB lands in one write the host reads
	 * whole (a pipe write that fits is copied under the pipe's lock): a
	 * batching driver sees every line of a burst before it starts its
	 * program. Best effort (fs.pipe-max-size may be lower). */
	if (f & SPAWN_PROTOCOL)
		fcntl(cmd[1], F_SETPIPE_SZ, 1 << 20);
	p = calloc(1, sizeof(*p));
	if (!p) {
		mg_err_set(err, MG_ERROR, "out of memory");
		goto done;
	}
	p->pid = -1;
	p->own_group = (f & SPAWN_OWN_GROUP) != 0;
	p->cmd = p->reply = p->out = p->err = -1;

	child_fds cf = {.n = 0};
	if (f & SPAWN_PROTOCOL) {
		cf.fds[cf.n] = cmd[0], cf.targets[cf.n++] = MG_PROTO_CMD_FD;
		cf.fds[cf.n] = reply[1], cf.targets[cf.n++] = MG_PROTO_REPLY_FD;
	}
	int out_w = f & SPAWN_CAPTURE_OUT ? po[1] : o->stdout_fd;
	int err_w = f & SPAWN_CAPTURE_ERR                               ? pe[1]
	            : (f & SPAWN_ERR_TO_OUT) && (f & SPAWN_CAPTURE_OUT) ? po[1]
	                                                                : o->stderr_fd;
	if (out_w >= 0)
		cf.fds[cf.n] = out_w, cf.targets[cf.n++] = 1;
	if (err_w >= 0)
		cf.fds[cf.n] = err_w, cf.targets[cf.n++] = 2;
	if (o->extra_fd >= 0 && o->extra_target > 2)
		cf.fds[cf.n] = o->extra_fd, cf.targets[cf.n++] = o->extra_target;
	if (o->extra_fd2 >= 0 && o->extra_target2 > 2)
		cf.fds[cf.n] = o->extra_fd2, cf.targets[cf.n++] = o->extra_target2;

	pid_t parent = getpid();
	sigset_t block, old;
	fflush(NULL);
	/* No handler of ours may run in the child while it shares our memory:
	 * every signal blocked until child_exec has set the defaults. */
	sigfillset(&block);
	pthread_sigmask(SIG_SETMASK, &block, &old);
	contain_fork_begin();
	pid_t pid = spawn_vfork(path, argv, o, &cf, status[1], parent);
	int fork_errno = errno;
	contain_fork_end();
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (pid < 0) {
		mg_err_set(err, MG_ERROR, "cannot fork: %s", strerror(fork_errno));
		goto done;
	}

	if (p->own_group)
		setpgid(pid, pid); /* also in the child: whichever runs first wins the race */
	p->pid = pid;
	p->proc_pid = proc_child_pid(pid);
	if (p->proc_pid <= 0)
		p->proc_pid = pid;
	close_fd(&status[1]);
	close_fd(&cmd[0]);
	close_fd(&reply[1]);
	close_fd(&po[1]);
	close_fd(&pe[1]);

	int child_errno = 0;
	ssize_t n;
	do
		n = read(status[0], &child_errno, sizeof(child_errno));
	while (n < 0 && errno == EINTR);
	if (n > 0) {
		int st;
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		p->pid = -1;
		if (child_errno > 0) /* before execve: its fds, limits, group */
			rc = mg_err_set(err, MG_ERROR, "cannot set up the child for '%s': %s%s",
			                path, strerror(child_errno), fd_hint(child_errno));
		else
			rc = mg_err_set(err,
			                -child_errno == ENOENT || -child_errno == EACCES
			                    ? MG_ENOTFOUND
			                    : MG_ERROR,
			                "cannot execute '%s': %s%s", path, strerror(-child_errno),
			                fd_hint(-child_errno));
		goto done;
	}
	p->cmd = cmd[1];
	p->reply = reply[0];
	p->out = po[0];
	p->err = pe[0];
	cmd[1] = reply[0] = po[0] = pe[0] = -1;
	int *mine[] = {&p->cmd, &p->reply, &p->out, &p->err};
	for (size_t i = 0; i < sizeof(mine) / sizeof(mine[0]); i++)
		if (*mine[i] >= 0 && set_flags(*mine[i]) < 0) {
			mg_err_set(err, MG_ERROR, "cannot set pipe flags: %s", strerror(errno));
			goto done;
		}
	*out = p;
	p = NULL;
	rc = 0;
done:
	spawn_free(p);
	int *all[] = {&cmd[0], &cmd[1], &reply[0], &reply[1],  &po[0],
	              &po[1],  &pe[0],  &pe[1],    &status[0], &status[1]};
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		close_fd(all[i]);
	return rc;
}

pid_t spawn_pid(const spawn_proc *p)
{
	return p->pid;
}
pid_t spawn_proc_pid(const spawn_proc *p)
{
	return p->pid > 0 ? p->proc_pid : -1;
}
int spawn_cmd_fd(const spawn_proc *p)
{
	return p->cmd;
}
int spawn_reply_fd(const spawn_proc *p)
{
	return p->reply;
}
int spawn_out_fd(const spawn_proc *p)
{
	return p->out;
}
int spawn_err_fd(const spawn_proc *p)
{
	return p->err;
}
void spawn_close_cmd(spawn_proc *p)
{
	close_fd(&p->cmd);
}
void spawn_close_reply(spawn_proc *p)
{
	close_fd(&p->reply);
}
void spawn_close_out(spawn_proc *p)
{
	close_fd(&p->out);
}
void spawn_close_err(spawn_proc *p)
{
	close_fd(&p->err);
}

void spawn_signal(spawn_proc *p, int sig)
{
	if (p->pid > 0)
		kill(p->own_group ? -p->pid : p->pid, sig);
}

int spawn_wait(spawn_proc *p, int nohang, mg_exit_end *end, struct rusage *usage)
{
	if (p->pid <= 0)
		return MG_ERROR;
	for (;;) {
		int status = 0;
		pid_t r = wait4(p->pid, &status, nohang ? WNOHANG : 0, usage);
		if (r == p->pid) {
			if (end)
				*end = mg_exit_decode(status);
			if (p->own_group)
				kill(-p->pid, SIGKILL); /* whatever it left in its group */
			p->pid = -1;
			return 1;
		}
		if (r == 0)
			return 0;
		if (errno != EINTR)
			return MG_ERROR;
	}
}

int spawn_reaped(const spawn_proc *p)
{
	return p->pid <= 0;
}

void spawn_free(spawn_proc *p)
{
	if (!p)
		return;
	close_fd(&p->cmd);
	close_fd(&p->reply);
	close_fd(&p->out);
	close_fd(&p->err);
	if (p->pid > 0) {
		int st;
		if (p->own_group)
			kill(-p->pid, SIGKILL);
		kill(p->pid, SIGKILL);
		while (waitpid(p->pid, &st, 0) < 0 && errno == EINTR)
			;
	}
	free(p);
}

pid_t spawn_release(spawn_proc *p, int *out_fd)
{
	pid_t pid = p->pid;
	*out_fd = p->out;
	p->out = -1;
	p->pid = -1;
	close_fd(&p->cmd);
	close_fd(&p->reply);
	close_fd(&p->err);
	free(p);
	return pid;
}

int spawn_resolve(char *buf, size_t size, const char *cmd, mg_err *err)
{
	struct stat st;
	if (!cmd || !*cmd)
		return mg_err_set(err, MG_EINVAL, "no host command given");
	if (strchr(cmd, '/')) {
		if (stat(cmd, &st) < 0)
			return mg_err_set(err, MG_ENOTFOUND, "cannot run '%s': %s", cmd,
			                  strerror(errno));
		if (S_ISDIR(st.st_mode) || access(cmd, X_OK) < 0)
			return mg_err_set(err, MG_ENOTFOUND, "cannot run '%s': not executable",
			                  cmd);
		snprintf(buf, size, "%s", cmd);
		return 0;
	}
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *colon = strchrnul(path, ':');
		int n = (int)(colon - path);
		snprintf(buf, size, "%.*s%s%s", n, n ? path : ".", "/", cmd);
		if (stat(buf, &st) == 0 && !S_ISDIR(st.st_mode) && access(buf, X_OK) == 0)
			return 0;
		path = *colon ? colon + 1 : colon;
	}
	return mg_err_set(err, MG_ENOTFOUND, "cannot run '%s': not found in PATH", cmd);
}

int spawn_check_exec(const char *path, mg_err *err)
{
	char head[256];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return mg_err_set(err, MG_ENOTFOUND, "cannot execute '%s': %s", path,
		                  strerror(errno));
	ssize_t n = read(fd, head, sizeof(head) - 1);
	close(fd);
	if (n < 0)
		return mg_err_set(err, MG_ENOTFOUND, "cannot execute '%s': %s", path,
		                  strerror(errno));
	head[n] = 0;
	if (n >= 4 && !memcmp(head, "\177ELF", 4))
		return 0;
	if (n < 2 || head[0] != '#' || head[1] != '!')
		return mg_err_set(err, MG_ENOTFOUND,
		                  "cannot execute '%s': %s: neither an ELF executable nor a "
		                  "script with a #! line",
		                  path, strerror(ENOEXEC));
	/* the interpreter: after "#!" and blanks, up to a blank or the line's end */
	char *interp = head + 2;
	interp += strspn(interp, " \t");
	interp[strcspn(interp, " \t\r\n")] = 0;
	if (!*interp)
		return mg_err_set(err, MG_ENOTFOUND,
		                  "cannot execute '%s': %s: its #! line names no interpreter", path,
		                  strerror(ENOEXEC));
	if (access(interp, X_OK) < 0)
		return mg_err_set(err, MG_ENOTFOUND,
		                  "cannot execute '%s': its interpreter '%s' (#! line): %s", path,
		                  interp, strerror(errno));
	return 0;
}

const char *spawn_signal_name(int sig)
{
	static char name[32];
	const char *abbrev = sigabbrev_np(sig);
	if (abbrev)
		snprintf(name, sizeof(name), "SIG%s", abbrev);
	else
		snprintf(name, sizeof(name), "signal %d", sig);
	return name;
}

char **spawn_env_without(const char *prefix, size_t extra, size_t *n)
{
	extern char **environ;
	size_t total = 0, len = strlen(prefix);
	while (environ[total])
		total++;
	char **env = malloc((total + extra + 1) * sizeof(char *));
	if (!env)
		return NULL;
	*n = 0;
	for (size_t i = 0; i < total; i++)
		if (strncmp(environ[i], prefix, len))
			env[(*n)++] = environ[i];
	env[*n] = NULL;
	return env;
}

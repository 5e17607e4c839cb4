/*
 * spawn.c - vfork + exec (SPAWN_FORK: fork + exec) of a child with its pipes (see spawn.h),
 * or a clone by the spawner (memguard-spawner, or a fork of ours, that
 * starts children as ours: spawn_spawner_new). The child's side is
 * spawn_child.c. The child side runs in the parent's memory
 * until its exec (vfork: no copy of the runner's page tables, the most of
 * a recycle's spawn), so it must stay async-signal-safe and write nothing
 * the parent reads: no malloc, no stdio, _exit, every signal blocked until
 * its handlers are the defaults.
 */
#include "spawn.h"
#include "spawn_child.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
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

/* The vfork (SPAWN_FORK: a fork), in a frame of its own: the child never returns from it
 * (spawn_child_exec execs or _exits), and no local of spawn_start is live across
 * it. */
static __attribute__((noinline)) pid_t spawn_vfork(const char *path, char *const argv[],
                                                   const spawn_options *o, child_fds *cf,
                                                   int status_w, pid_t parent)
{
	pid_t pid = o->flags & SPAWN_FORK ? fork() : vfork();
	if (pid == 0)
		spawn_child_exec(path, argv, o, cf, status_w, parent, contain_child_enter);
	return pid;
}

/* ---- the spawner ---- */

struct spawn_spawner {
	int sock; /* requests out, replies in; -1 once it has gone */
	pid_t pid;
};

int spawn_spawner_path(char *buf, size_t size, const char *beside)
{
	char self[4096];
	if (!beside) {
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n < 0)
			return -1;
		self[n] = 0;
		beside = self;
	}
	const char *slash = strrchr(beside, '/');
	int dir = slash ? (int)(slash - beside) : 0;
	int n = snprintf(buf, size, "%.*s%smemguard-spawner", dir, beside, slash ? "/" : "");
	if (n < 0 || (size_t)n >= size || access(buf, X_OK) < 0)
		return -1;
	return 0;
}

int spawn_spawner_new(spawn_spawner **out, mg_err *err)
{
	int sv[2];
	char helper[4096], fd_arg[16], parent_arg[24];
	/* memguard-spawner's exec only where our own copy would not be small:
	 * a dynamic build (its libraries' data, an ASan runtime's shadow); a
	 * static one (the shim, -static: no ld.so, so no AT_BASE) is as small
	 * at its start as the spawner, and its fork serves without the exec */
	int have_helper =
	    getauxval(AT_BASE) != 0 && spawn_spawner_path(helper, sizeof(helper), NULL) == 0;
	*out = NULL;
	spawn_spawner *sp = calloc(1, sizeof(*sp));
	if (!sp)
		return mg_err_set(err, MG_ERROR, "out of memory");
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		free(sp);
		return mg_err_set(err, MG_ERROR, "cannot create the spawner's socket: %s%s",
		                  strerror(errno), fd_hint(errno));
	}
	pid_t parent = getpid();
	snprintf(parent_arg, sizeof(parent_arg), "%ld", (long)parent);
	fflush(NULL);
	sp->pid = fork();
	if (sp->pid == 0) {
		close(sv[0]);
		/* memguard-spawner: a fresh small image, so what its children
		 * copy is its few pages (and never an ASan runtime's); without
		 * it, this fork of ours is the spawner */
		int fd = have_helper ? fcntl(sv[1], F_DUPFD, 3) : -1;
		if (fd >= 0) {
			char *const argv[] = {"memguard-spawner", fd_arg, parent_arg, NULL};
			char *const envp[] = {NULL};
			snprintf(fd_arg, sizeof(fd_arg), "%d", fd);
			execve(helper, argv, envp);
			close(fd);
		}
		spawn_child_spawner(sv[1], parent);
	}
	int e = errno;
	close(sv[1]);
	/* above the fixed fds a host's protocol gives numbers to (3, 4, 5:
	 * MG_LISTING_FD, which a shim closes when it has no listing) */
	sp->sock = sp->pid < 0 ? -1 : fcntl(sv[0], F_DUPFD_CLOEXEC, SPAWNER_SOCK_MIN);
	e = sp->pid < 0 ? e : errno;
	close(sv[0]);
	if (sp->sock < 0) {
		if (sp->pid > 0) {
			kill(sp->pid, SIGKILL);
			while (waitpid(sp->pid, NULL, 0) < 0 && errno == EINTR)
				;
		}
		free(sp);
		return mg_err_set(err, MG_ERROR, "cannot start the spawner: %s%s", strerror(e),
		                  fd_hint(e));
	}
	*out = sp;
	return 0;
}

void spawn_spawner_free(spawn_spawner *sp)
{
	if (!sp)
		return;
	if (sp->sock >= 0)
		close(sp->sock); /* it leaves at the socket's end */
	kill(sp->pid, SIGKILL);
	while (waitpid(sp->pid, NULL, 0) < 0 && errno == EINTR)
		;
	free(sp);
}

static size_t strings_len(char *const *v, uint32_t *count)
{
	size_t len = 0;
	*count = 0;
	for (; v && *v; v++, (*count)++)
		len += strlen(*v) + 1;
	return len;
}

/*
 * Asks the spawner for the child (spawn_start's fork). 0 with *pid and
 * *fork_errno as a fork would set them; -1 when the spawner cannot serve
 * (it has gone, or our directory cannot be passed): the caller forks.
 */
static int spawner_start(spawn_spawner *sp, const char *path, char *const argv[],
                         const spawn_options *o, const child_fds *cf, int status_w, pid_t *pid,
                         int *fork_errno)
{
	extern char **environ;
	char *const *envp = o->envp ? o->envp : environ;
	spawner_req rq = {.flags = o->flags,
	                  .pdeathsig = o->pdeathsig,
	                  .as_limit = o->as_limit,
	                  .parent = getpid()};
	int fds[SPAWNER_FDS], n = 0, rc = -1;
	if (sp->sock < 0)
		return -1;
	int cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cwd < 0)
		return -1;
	fds[n++] = status_w;
	fds[n++] = cwd;
	for (int i = 0; i < cf->n; i++)
		fds[n++] = cf->fds[i], rq.targets[rq.nfds++] = cf->targets[i];
	/* what a fork would have inherited: our stdin, stdout, stderr as they are now */
	for (int t = 0; t < 3; t++) {
		int given = t == 0 && (o->flags & SPAWN_NULL_STDIN);
		for (int i = 0; i < cf->n; i++)
			given |= cf->targets[i] == t;
		if (!given && fcntl(t, F_GETFD) >= 0)
			fds[n++] = t, rq.targets[rq.nfds++] = t;
	}
	rq.len = strlen(path) + 1 + strings_len(argv, &rq.argc) + strings_len(envp, &rq.envc);
	char *buf = malloc(rq.len);
	if (!buf)
		goto done;
	char *p = stpcpy(buf, path) + 1;
	for (char *const *v = argv; *v; v++)
		p = stpcpy(p, *v) + 1;
	for (char *const *v = envp; *v; v++)
		p = stpcpy(p, *v) + 1;

	union {
		char buf[CMSG_SPACE(SPAWNER_FDS * sizeof(int))];
		struct cmsghdr align;
	} u;
	memset(&u, 0, sizeof(u));
	struct iovec iov = {&rq, sizeof(rq)};
	struct msghdr m = {.msg_iov = &iov,
	                   .msg_iovlen = 1,
	                   .msg_control = u.buf,
	                   .msg_controllen = CMSG_SPACE((size_t)n * sizeof(int))};
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN((size_t)n * sizeof(int));
	memcpy(CMSG_DATA(c), fds, (size_t)n * sizeof(int));
	ssize_t w;
	do
		w = sendmsg(sp->sock, &m, MSG_NOSIGNAL);
	while (w < 0 && errno == EINTR);
	spawner_reply rp;
	if (w < 0 || spawn_child_io(sp->sock, (char *)&rq + w, sizeof(rq) - (size_t)w, 1) < 0 ||
	    spawn_child_io(sp->sock, buf, rq.len, 1) < 0 ||
	    spawn_child_io(sp->sock, &rp, sizeof(rp), 0) < 0) {
		/* it has gone (killed, reaped by a wait for any child): fork here */
		close(sp->sock);
		sp->sock = -1;
		goto done;
	}
	*pid = rp.pid;
	*fork_errno = rp.err;
	rc = 0;
done:
	free(buf);
	close(cwd);
	return rc;
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

	child_fds cf = {.n = 0, .cwd = -1};
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
	pid_t pid = -1;
	int fork_errno = 0;
	fflush(NULL);
	if (!o->spawner ||
	    spawner_start(o->spawner, path, argv, o, &cf, status[1], &pid, &fork_errno) < 0) {
		sigset_t block, old;
		/* No handler of ours may run in the child while it shares our memory:
		 * every signal blocked until spawn_child_exec has set the defaults. */
		sigfillset(&block);
		pthread_sigmask(SIG_SETMASK, &block, &old);
		contain_fork_begin();
		pid = spawn_vfork(path, argv, o, &cf, status[1], parent);
		fork_errno = errno;
		contain_fork_end();
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
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
int spawn_read_all(int fd, char **out, size_t *len)
{
	size_t cap = 0;
	int rc = 0;
	char sink[4096];
	*out = NULL;
	*len = 0;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	for (;;) {
		if (!rc && cap - *len < sizeof(sink) + 1) {
			size_t want = 2 * cap + 65536;
			char *grown = realloc(*out, want);
			if (grown)
				*out = grown, cap = want;
			else
				rc = -1;
		}
		ssize_t n =
		    rc ? read(fd, sink, sizeof(sink)) : read(fd, *out + *len, cap - *len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (!rc)
			*len += (size_t)n;
	}
	if (*out)
		(*out)[*len] = 0;
	return rc;
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

/*
 * spawn_child.c - the child's side of a spawn (see spawn_child.h): before
 * exec, only async-signal-safe calls, _exit on failure; and the spawner's
 * loop. Links with libc alone (memguard-spawner is built from it).
 */
#include "spawn_child.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

/* Child: report errno on the status pipe and leave (execve's own error
 * negated, so the parent tells it from a setup error). */
static void __attribute__((noreturn)) child_fail(int status_fd, int code)
{
	ssize_t w = write(status_fd, &code, sizeof(code));
	(void)w;
	_exit(127);
}

/*
 * Child side: async-signal-safe calls only. Moves its fds above every
 * target first so that dup2 never clobbers one that is still needed, then
 * closes everything else but the status pipe (close-on-exec).
 */
void spawn_child_exec(const char *path, char *const argv[], const spawn_options *o, child_fds *cf,
                      int status_w, pid_t parent, void (*enter)(void))
{
	extern char **environ;
	sigset_t all;
	struct sigaction dfl;

	if (cf->cwd >= 0 && fchdir(cf->cwd) < 0)
		child_fail(status_w, errno);
	if (o->flags & SPAWN_OWN_GROUP)
		setpgid(0, 0);
	if (enter)
		enter();
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

/* All n bytes over the spawner's socket (no SIGPIPE when its peer has gone). */
int spawn_child_io(int fd, void *p, size_t n, int writing)
{
	char *c = p;
	while (n) {
		ssize_t r = writing ? send(fd, c, n, MSG_NOSIGNAL) : recv(fd, c, n, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		c += r;
		n -= (size_t)r;
	}
	return 0;
}

/* The spawner: reads a request's header and its fds. -1 at the socket's end. */
static int spawner_recv(int sock, spawner_req *rq, int *fds, int *nfds)
{
	union {
		char buf[CMSG_SPACE(SPAWNER_FDS * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {rq, sizeof(*rq)};
	struct msghdr m = {.msg_iov = &iov,
	                   .msg_iovlen = 1,
	                   .msg_control = u.buf,
	                   .msg_controllen = sizeof(u.buf)};
	ssize_t r;
	do
		r = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
	while (r < 0 && errno == EINTR);
	if (r <= 0)
		return -1;
	*nfds = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			int n = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
			for (int i = 0; i < n; i++) {
				int fd;
				memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
				if (*nfds < SPAWNER_FDS)
					fds[(*nfds)++] = fd;
				else
					close(fd);
			}
		}
	return spawn_child_io(sock, (char *)rq + r, sizeof(*rq) - (size_t)r, 0);
}

/* The strings of a request: path, then argv's and envp's arrays (NULL-
 * terminated, pointing into buf). -1 for a malformed one. */
static int spawner_strings(const spawner_req *rq, char *buf, char **argv, char **envp)
{
	char *p = buf, *end = buf + rq->len;
	for (uint64_t i = 0; i < 1 + (uint64_t)rq->argc + rq->envc; i++) {
		char *nul = memchr(p, 0, (size_t)(end - p));
		if (!nul)
			return -1;
		if (i > 0 && i <= rq->argc)
			argv[i - 1] = p;
		else if (i > rq->argc)
			envp[i - 1 - rq->argc] = p;
		p = nul + 1;
	}
	argv[rq->argc] = NULL;
	envp[rq->envc] = NULL;
	return 0;
}

/* A request's child: what spawn_child_exec is called with. */
typedef struct spawner_child {
	const char *path;
	char **argv;
	const spawn_options *o;
	child_fds *cf;
	int status_w;
	pid_t parent;
} spawner_child;

static int spawner_child_main(void *arg)
{
	spawner_child *ch = arg;
	spawn_child_exec(ch->path, ch->argv, ch->o, ch->cf, ch->status_w, ch->parent, NULL);
}

/*
 * The child, our parent's (CLONE_PARENT: it waits for it and reads its
 * rusage), in our memory until its exec (CLONE_VM | CLONE_VFORK, as
 * posix_spawn: no address space of its own to build and tear down, the
 * most of a fork's cost, and we wait meanwhile), on a stack of its own
 * (ours stays as it is under the clone call). What its exec counts in its
 * ru_maxrss is our peak, as a fork's copy of us counted our pages.
 */
static pid_t spawner_clone(spawner_child *ch)
{
	enum { STACK = 64 * 1024 };
	static char *stack;
	if (!stack) {
		void *m = mmap(NULL, STACK, PROT_READ | PROT_WRITE,
		               MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
		if (m == MAP_FAILED)
			return -1;
		stack = m;
	}
	return clone(spawner_child_main, stack + STACK,
	             CLONE_VM | CLONE_VFORK | CLONE_PARENT | SIGCHLD, ch);
}

/*
 * The spawner's loop: each request becomes a child (spawner_clone) that
 * runs spawn_child_exec as a fork of ours would; the reply is its pid.
 * The memory it counts is this small process's, not the parent's.
 */
void spawn_child_spawner(int sock, pid_t parent)
{
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent && getppid() != 0)
		_exit(0);
	int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	for (int fd = 0; fd < 3 && devnull >= 0; fd++)
		if (fd != sock && fd != devnull)
			dup2(devnull, fd);
	if (sock < 3) {
		int hi = fcntl(sock, F_DUPFD_CLOEXEC, 3);
		if (hi < 0)
			_exit(0);
		sock = hi;
	}
	/* nothing of the parent's stays open here: a pipe's reader must see its
	 * end when the parent's copy closes */
	if (close_range(3, (unsigned)sock - 1, 0) < 0 ||
	    close_range((unsigned)sock + 1, ~0u, 0) < 0)
		for (int fd = 3; fd < 1024; fd++)
			if (fd != sock)
				close(fd);
	for (;;) {
		spawner_req rq;
		int fds[SPAWNER_FDS], nfds = 0;
		if (spawner_recv(sock, &rq, fds, &nfds) < 0)
			_exit(0);
		spawner_reply rp = {-1, EINVAL};
		char *buf = NULL, **argv = NULL, **envp = NULL;
		if (rq.len > (1u << 30) || rq.argc > (1u << 24) || rq.envc > (1u << 24))
			_exit(0); /* not our parent's request: stop */
		buf = malloc(rq.len + 1);
		argv = malloc((rq.argc + 1) * sizeof(char *));
		envp = malloc((rq.envc + 1) * sizeof(char *));
		if (!buf || !argv || !envp || spawn_child_io(sock, buf, rq.len, 0) < 0)
			_exit(0);
		if (rq.argc >= 1 && rq.nfds >= 0 && rq.nfds <= CHILD_FDS_MAX &&
		    nfds == 2 + rq.nfds && spawner_strings(&rq, buf, argv, envp) == 0) {
			child_fds cf = {.n = rq.nfds, .cwd = fds[1]};
			for (int i = 0; i < rq.nfds; i++)
				cf.fds[i] = fds[2 + i], cf.targets[i] = rq.targets[i];
			spawn_options o = SPAWN_OPTIONS_INIT;
			o.flags = rq.flags;
			o.pdeathsig = rq.pdeathsig;
			o.as_limit = rq.as_limit;
			o.envp = envp;
			spawner_child ch = {buf, argv, &o, &cf, fds[0], rq.parent};
			pid_t pid = spawner_clone(&ch);
			rp.pid = pid;
			rp.err = pid < 0 ? errno : 0;
		}
		for (int i = 0; i < nfds; i++)
			close(fds[i]);
		free(buf);
		free(argv);
		free(envp);
		if (spawn_child_io(sock, &rp, sizeof(rp), 1) < 0)
			_exit(0);
	}
}

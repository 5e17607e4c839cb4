/*
 * contain.c - the run's PID namespace and its init (see contain.h).
 */
#include "contain.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"

static contain_kind kind = CONTAIN_PROCESS_GROUP;
static pid_t init_pid = -1;
static int alive_w = -1; /* only the runner holds it: EOF tells init we died */
/* The namespaces our children are forked into, by setns around each fork
 * (contain_fork_begin/end): between forks ours is our own again, so the
 * runner can still make threads (LeakSanitizer's tracer is one). -1: not
 * switched (a user namespace cannot return to the outer one: there every
 * child goes in, and the runner makes no thread). */
static int ns_children = -1, ns_self = -1;
static char why_not[160];
static uid_t saved_uid;
static gid_t saved_gid;

static const char *const modes[] = {"auto", "pid", "user", "reaper", "none"};

int contain_mode_valid(const char *mode)
{
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(mode, modes[i]))
			return 1;
	return 0;
}

/*
 * The namespace's init (pid 1 there): reaps the orphans that come to it and
 * leaves when the runner does. Async-signal-safe calls only (a fork without
 * exec). Every signal stays blocked: from outside only SIGKILL reaches it,
 * and that is how it ends.
 */
static void init_main(int alive_r)
{
	sigset_t all, chld;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	prctl(PR_SET_NAME, "memguard-init");
	/* the runner may have died before the prctl: its pipe end tells */
	struct pollfd pf = {.fd = alive_r, .events = POLLIN};
	if (poll(&pf, 1, 0) != 0)
		_exit(0);
	/* every fd but the pipe, however high (one call, not one per fd) */
	if (alive_r > 0)
		close_range(0, (unsigned)alive_r - 1, 0);
	close_range((unsigned)alive_r + 1, ~0u, 0);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	for (;;) {
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		struct timespec ts = {1, 0};
		sigtimedwait(&chld, NULL, &ts);
		if (poll(&pf, 1, 0) != 0) /* the runner is gone */
			_exit(0);
	}
}

/* "deny" into setgroups, "ID ID 1" into uid_map or gid_map. */
static int write_proc(const char *name, const char *text)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/%s", name);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, text, strlen(text));
	int e = errno;
	close(fd);
	errno = e;
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* Just after unshare(CLONE_NEWUSER): our uid and gid mapped to themselves
 * (taken before it: until the maps are written geteuid() is the overflow
 * uid). */
static int map_ids(void)
{
	char map[64];
	uid_t uid = saved_uid;
	gid_t gid = saved_gid;
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)uid, (unsigned)uid);
	if (write_proc("uid_map", map) < 0)
		return -1;
	if (write_proc("setgroups", "deny") < 0 && errno != ENOENT)
		return -1;
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)gid, (unsigned)gid);
	return write_proc("gid_map", map);
}

/*
 * A user namespace tried in a child first: where a policy lets unshare
 * succeed but not the mapping (AppArmor's restriction of unprivileged user
 * namespaces), the runner itself would be left in one it cannot use or
 * leave. 0 when the child could, else its errno.
 */
static int user_ns_tried(void)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) < 0)
		return errno;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(fds[0]);
		close(fds[1]);
		return e;
	}
	if (pid == 0) {
		int e = 0;
		if (unshare(CLONE_NEWUSER | CLONE_NEWPID) < 0 || map_ids() < 0)
			e = errno ? errno : EPERM;
		ssize_t w = write(fds[1], &e, sizeof(e));
		(void)w;
		_exit(0);
	}
	close(fds[1]);
	int e = EPERM;
	ssize_t n;
	do
		n = read(fds[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(fds[0]);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return n == (ssize_t)sizeof(e) ? e : EPERM;
}

/* The first fork after unshare(CLONE_NEWPID) is the namespace's init;
 * alive is the pipe made before (nothing may fail between unshare and it). */
static int start_init(int alive[2], mg_err *err)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(alive[0]);
		close(alive[1]);
		return mg_err_set(err, MG_ERROR, "cannot start the namespace's init: %s",
		                  strerror(e));
	}
	if (pid == 0) {
		close(alive[1]);
		init_main(alive[0]);
	}
	close(alive[0]);
	alive_w = alive[1];
	init_pid = pid;
	return 0;
}

/*
 * Without root (no PID namespace), a user namespace would hold every process
 * too, but a test could tell: only our own ids are mapped there, so a chown
 * or setuid to another id fails with EINVAL where a plain run gets EPERM,
 * and root's files show as owned by 65534 (libuv's fs_chown and spawn_setuid
 * tests fail there and pass directly). So the default is a reaper instead:
 * the process the user started stays, as a child subreaper, the parent of
 * the one that runs the tests. Every process of the run descends from it,
 * and an orphan goes to the nearest subreaper above it, so when the runner
 * ends -- by SIGKILL too -- whatever it left comes to the reaper, which
 * kills it all and then ends as the runner did (its exit code, or its
 * signal). Only a SIGKILL of both at once (of their process group) leaves
 * the hosts' children behind: see README's "No survivor".
 */

/* Kills every process below us until none is left. */
static void reaper_sweep(void)
{
	sigset_t chld;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	for (;;) {
		pid_t kids[256];
		size_t n = proc_descendants(getpid(), kids, 256);
		for (size_t i = 0; i < n && i < 256; i++)
			kill(kids[i], SIGKILL);
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (n == 0 && waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD)
			return;
		struct timespec ts = {0, 10 * 1000 * 1000};
		sigtimedwait(&chld, NULL, &ts);
	}
}

/* Ends as the runner ended: its exit status, or its signal (no core). */
static _Noreturn void reaper_leave(int status)
{
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		struct rlimit no_core = {0, 0};
		setrlimit(RLIMIT_CORE, &no_core);
		signal(sig, SIG_DFL);
		sigset_t one;
		sigemptyset(&one);
		sigaddset(&one, sig);
		sigprocmask(SIG_UNBLOCK, &one, NULL);
		kill(getpid(), sig);
		_exit(128 + sig);
	}
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

/*
 * The reaper's life: every signal blocked and taken by sigwaitinfo. A
 * signal some process sent (kill, timeout, CI's cancel) goes on to the
 * runner, which ends the run as it would have; one from the terminal
 * (Ctrl-C: the kernel's) reached the runner already, in the same process
 * group. A runner stopped (Ctrl-Z) stops the reaper too, so the shell
 * sees the job stop; SIGCONT continues both.
 */
static _Noreturn void reaper_main(pid_t runner)
{
	sigset_t all;
	sigfillset(&all); /* blocked since before the fork (reaper_start) */
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			signal(s, SIG_DFL);
	prctl(PR_SET_NAME, "memguard-reaper");
	close_range(0, 1, 0); /* every fd but stderr, however high */
	close_range(3, ~0u, 0);
	for (;;) {
		siginfo_t si;
		int s = sigwaitinfo(&all, &si);
		if (s < 0)
			continue;
		if (s != SIGCHLD) {
			if (si.si_code <= 0) /* SI_USER, SI_QUEUE, SI_TKILL: sent */
				kill(runner, s);
			continue;
		}
		int st;
		pid_t p;
		while ((p = waitpid(-1, &st, WNOHANG | WUNTRACED | WCONTINUED)) > 0) {
			if (p != runner)
				continue; /* an orphan that came to us and ended */
			if (WIFSTOPPED(st))
				kill(getpid(), SIGSTOP);
			else if (WIFCONTINUED(st))
				;
			else {
				reaper_sweep();
				reaper_leave(st);
			}
		}
	}
}

/*
 * Forks the runner off the process the user started, which stays as its
 * reaper and never returns here. 0 in the runner; -1 with errno where no
 * reaper can be (no children files in /proc, or fork failed), and then
 * nothing changed.
 */
static int reaper_start(void)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/children", (long)getpid(), (long)getpid());
	if (access(path, R_OK) < 0)
		return -1;
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		return -1;
	/* blocked across the fork: no handler of the runner's (its self-pipe
	 * is shared until the reaper closes it) ever runs in the reaper, and a
	 * runner that ends at once is still seen (SIGCHLD stays pending) */
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	fflush(NULL);
	pid_t reaper = getpid();
	pid_t pid = fork();
	if (pid > 0)
		reaper_main(pid);
	int e = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (pid < 0) {
		errno = e;
		return -1;
	}
	/* the runner: our parent's death is the end of the run (SIGTERM: the
	 * runner's own orderly stop); orphans still come to us first */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != reaper)
		raise(SIGTERM);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	return 0;
}

int contain_start(const char *mode, mg_err *err)
{
	if (!mode)
		mode = "auto";
	if (!contain_mode_valid(mode))
		return mg_err_set(err, MG_EINVAL,
		                  "--contain: unknown mode '%s' (auto, pid, user, reaper, none)",
		                  mode);
	if (!strcmp(mode, "none")) {
		snprintf(why_not, sizeof(why_not), "--contain none");
		return 0;
	}
	if (!strcmp(mode, "reaper")) {
		if (reaper_start() < 0)
			return mg_err_set(err, MG_ERROR, "--contain reaper: %s", strerror(errno));
		kind = CONTAIN_REAPER;
		return 0;
	}
	saved_uid = geteuid();
	saved_gid = getegid();
	/* What can fail (fds) is made first: once unshared, the next fork must
	 * be the init, and only a PID namespace can be left again (setns). */
	int alive[2];
	if (pipe2(alive, O_CLOEXEC) < 0)
		return mg_err_set(err, MG_ERROR, "cannot create a pipe: %s", strerror(errno));
	ns_self = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
	if (ns_self < 0) {
		int e = errno;
		close(alive[0]);
		close(alive[1]);
		return mg_err_set(err, MG_ERROR, "cannot open /proc/self/ns/pid: %s", strerror(e));
	}
	int pid_err = 0, user_err = 0, mapped = 1;
	if (strcmp(mode, "user")) {
		if (unshare(CLONE_NEWPID) == 0)
			kind = CONTAIN_PID_NS;
		else
			pid_err = errno;
	}
	/* a user namespace only when asked for: a test can tell it (reaper_start's
	 * comment); and not for want of memory or fds, as what fails after its
	 * unshare cannot be undone */
	if (!strcmp(mode, "user")) {
		if ((user_err = user_ns_tried()) != 0)
			; /* refused in a child: we are as we were */
		else if (unshare(CLONE_NEWUSER | CLONE_NEWPID) < 0)
			user_err = errno;
		else if (map_ids() < 0)
			mapped = 0;
		else
			kind = CONTAIN_USER_NS;
	}
	if (!mapped) {
		int e = errno;
		close(alive[0]);
		close(alive[1]);
		return mg_err_set(err, MG_ERROR,
		                  "cannot map our uid and gid in a user namespace: %s",
		                  strerror(e));
	}
	if (kind != CONTAIN_PID_NS && ns_self >= 0) {
		close(ns_self);
		ns_self = -1;
	}
	if (kind == CONTAIN_PROCESS_GROUP) {
		close(alive[0]);
		close(alive[1]);
		snprintf(why_not, sizeof(why_not), "no %s namespace: %s%s",
		         pid_err ? "PID" : "user", strerror(pid_err ? pid_err : user_err),
		         pid_err == EPERM && saved_uid != 0
		             ? " (without root, only in a user namespace: --contain user; auto "
		               "keeps a reaper)"
		             : "");
		if (strcmp(mode, "auto"))
			return mg_err_set(err, MG_ERROR, "--contain %s: %s", mode, why_not);
		if (reaper_start() == 0) {
			kind = CONTAIN_REAPER;
			return 0;
		}
		size_t len = strlen(why_not);
		snprintf(why_not + len, sizeof(why_not) - len, "; no reaper: %s", strerror(errno));
		return 0;
	}
	if (start_init(alive, err) < 0) {
		/* without an init nothing can start in the namespace: leave it */
		if (ns_self >= 0) {
			setns(ns_self, CLONE_NEWPID);
			close(ns_self);
			ns_self = -1;
		}
		kind = CONTAIN_PROCESS_GROUP;
		return MG_ERROR;
	}
	if (kind == CONTAIN_PID_NS) {
		ns_children = open("/proc/self/ns/pid_for_children", O_RDONLY | O_CLOEXEC);
		if (ns_children < 0 || setns(ns_self, CLONE_NEWPID) < 0) {
			/* every child goes in, as in a user namespace */
			if (ns_children >= 0)
				close(ns_children);
			close(ns_self);
			ns_children = ns_self = -1;
		}
	}
	return 0;
}

/*
 * In a child just forked into the namespace (async-signal-safe): a mount
 * namespace of its own with a /proc of the PID namespace, so that inside a
 * host getpid(), fork()'s pids and /proc agree, as they do outside memguard
 * (a test reading /proc/<its pid>). The runner's own /proc is untouched.
 * Where mounting is refused (a container's masked /proc) the host keeps the
 * outer /proc: the pids differ there, which guard/proc.h translates.
 */
void contain_child_enter(void)
{
	if (init_pid <= 0)
		return;
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0)
		return;
	mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
}

void contain_fork_begin(void)
{
	if (init_pid > 0 && ns_children >= 0)
		setns(ns_children, CLONE_NEWPID);
}

void contain_fork_end(void)
{
	if (init_pid > 0 && ns_self >= 0)
		setns(ns_self, CLONE_NEWPID);
}

const char *contain_name(void)
{
	switch (kind) {
	case CONTAIN_PID_NS:
		return "pid-namespace";
	case CONTAIN_USER_NS:
		return "user-namespace";
	case CONTAIN_REAPER:
		return "reaper";
	default:
		return "process-group";
	}
}

contain_kind contain_kind_now(void)
{
	return kind;
}

const char *contain_why_not(void)
{
	return kind == CONTAIN_PROCESS_GROUP && why_not[0] ? why_not : NULL;
}

/*
 * Kills the namespace's init and waits for it. An init leaves only once
 * every process of its namespace is gone, and a host is our child, not its:
 * a host still dying (a large one takes a while to tear down) is reaped
 * here too, or neither would ever end (each waits for the other). So this
 * reaps any child of ours until the init is among them.
 */
void contain_end(void)
{
	if (init_pid <= 0)
		return;
	kill(init_pid, SIGKILL);
	for (;;) {
		pid_t p = waitpid(-1, NULL, 0);
		if (p == init_pid || (p < 0 && errno == ECHILD))
			break;
		if (p < 0 && errno != EINTR) {
			perror("memguard: waitpid");
			break;
		}
	}
	init_pid = -1;
	close(alive_w);
	alive_w = -1;
	if (ns_children >= 0) {
		close(ns_children);
		close(ns_self);
		ns_children = ns_self = -1;
	}
}

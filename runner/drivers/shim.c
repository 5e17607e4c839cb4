/*
 * shim.c - protocol v1 for a program that does not speak it (see shim.h).
 * One poll loop serves the runner's commands, the child's stdout and a
 * SIGCHLD self-pipe. Never leaves a child behind: the child gets
 * PR_SET_PDEATHSIG and is killed on quit, recycle, EOF and protocol errors.
 * Over 1,000 lines on purpose: the loop, the child, its memory, its stderr's
 * tail and the protocol share one state; the drivers are apart.
 */
#include "shim.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mg_bulk.h"
#include "mg_contract.h"
#include "mg_elf.h"
#include "proc.h"
#include "spawn.h"
#include "tree.h"

#define IN_MAX       (2 * MG_PROTO_LINE_MAX)
#define OUT_FLUSH    (64 * 1024)
#define CHILD_LINE   (1 << 20) /* longer child lines are passed on in pieces */
#define MSG_MAX      (16 * 1024)
#define MAX_TREE     256
#define TREE_FAST_MS 1 /* first samples of a test: short tests end quickly */
/* A probed child (it measures itself at its boundaries: nothing here
 * depends on when its lines are read) is read at most every PACE_US while
 * its lines stream in: a wake-up, a read and a reply write per batch of
 * tests, not per line (the runner gets a result that much later; its own
 * reads of a busy host's replies are REPLY_WAIT, 1 ms, apart too). A read
 * that fills its buffer is followed by the next at once: a program writing
 * more than a pipe holds a pace is not held up. */
#define PACE_US  1000
#define TREE_MS  5
#define ERR_TAIL 2048 /* the last bytes of a program's stderr kept */
/* how long stderr bytes wait for the probe's mark before they are given
 * to the running test (err_grace) */
#define ERR_GRACE_MS 50

typedef struct qent {
	char *name;
	size_t len;
} qent;

/* The queue's names are kept in chunks of QCHUNK bytes, not a malloc a
 * name: a chunk goes when the last of its names is answered. */
#define QCHUNK (64 * 1024)
typedef struct qchunk {
	size_t used, cap, live; /* live: its names still queued */
	char b[];
} qchunk;

typedef struct qitem {
	char *name;
	size_t len;
	qchunk *c;
} qitem;

typedef struct buf {
	char *p;
	size_t len, cap;
} buf;

struct shim {
	const shim_ops *ops;
	void *ctx;
	char **cmd;
	int ncmd;
	char **env;
	size_t nenv;

	char in[IN_MAX];
	mg_lines lines; /* the runner's commands, over in */
	int cmd_fd, reply_fd;
	int quit_pending;
	int defer_finish; /* a result now does not end the shim at a quit (shim_defer_finish) */

	qitem *q;
	size_t qhead, qlen, qcap;
	qchunk *qcur; /* the chunk queue_push fills */
	int started;
	/* the running test's start line is not written yet (reply_add writes
	 * it before any other line): a result that comes first implies it,
	 * and it is never written (PROTOCOL.md, rule 3) */
	int start_unsent;
	struct timespec t0;

	buf reply, out, line;
	buf between; /* the program's output between tests: the next test's */
	size_t listed;

	pid_t child; /* for signals and waits */
	/* ops->wait_output_eof: the child has exited and its output is still
	 * open; how it ended, for ops->exited once the output has */
	int exit_held;
	mg_exit_end held_st;
	struct rusage held_ru;
	pid_t child_proc; /* the same as /proc names it (proc_child_pid) */
	int child_out;
	int child_err;           /* tail_stderr: the child's stderr, passed on by us */
	char err_tail[ERR_TAIL]; /* a ring: the oldest byte at err_tail_at once full */
	size_t err_tail_len, err_tail_at;
	/* shim_err_split: the child's stderr kept until the probe's mark says
	 * whose it is (MG_PROBE_MARK SECRET " err\n", err_mark) */
	char err_mark[48];
	size_t err_mark_len;
	char *err_held;
	size_t err_held_len, err_held_cap;
	struct timespec err_held_t0; /* when the held bytes began to wait */
	proc_sampler *child_mem;
	uint64_t last_va, last_rss; /* the last reading of the measure chosen */
	tree *tree;                 /* TREE: the program's process tree */
	pid_t tree_root;            /* TREE: our pid as /proc names it (its root) */
	uint64_t tree_va, tree_rss; /* TREE: maxima since the head started */
	int tree_samples;           /* since the child started: sets the interval */
	uint64_t peak_va, peak_rss; /* for bye */
	uint64_t recycle_va, recycle_rss;
	int probed;      /* the child reports its own figures (shim_probed) */
	unsigned failed; /* results sent that are no pass nor skip (shim_failed) */
	int has_figures; /* shim_figures gave the next result's memory */
	uint64_t fig_va, fig_rss;
	/* VmPeak as the program's probe read it (after a test of 1 ms or more):
	 * the highest of this program's, and the running test's when it rose
	 * in it (sent as its peak, PROTOCOL.md 6a) */
	uint64_t vmpeak_seen, test_vmpeak;
	int stopped;              /* recycled at a boundary: the child is parked until quit */
	int resumed;              /* ... and continued after quit to finish (ops->finish_stopped) */
	int parking;              /* asked at quit to end at its next test (ops->park) */
	int pass_fd, pass_target; /* shim_pass_fd: every child gets it */
	int line_cut;             /* the line given to ops->line is a piece of a longer one */
	int pipe_big;             /* the command pipe was enlarged (shim_take_pending) */
	uint64_t ordinal;         /* TREE: results sent, the next mark's number */
	unsigned version;         /* the protocol spoken: the lower of ours and the runner's */
	char secret[MG_MARK_SECRET_LEN + 1]; /* v3: the run's, in every mark */
	char **set_names; /* variables (not MEMGUARD_*) set or removed for children */
	size_t nset;

	size_t unfed;        /* run lines read since the runner's last "fed" */
	uint64_t list_flags; /* MG_LIST_*: the driver's word on its listing (end) */
	/* starts every child whose figures count: made first, while we are
	 * small, so that a test's ru_maxrss is its own, not the copy of us a
	 * fork would give it (shim_spawner_start); a listing host makes none */
	spawn_spawner *spawner;
	int spawner_tried;
};

static int sigchld_pipe[2] = {-1, -1};

static void env_set(shim *s, const char *name, const char *value);
static char **env_for_child(shim *s);
static void env_for_child_free(shim *s, char **envp);
static void drain_err(shim *s);

static void on_sigchld(int sig)
{
	int saved = errno;
	(void)sig;
	ssize_t w = write(sigchld_pipe[1], "c", 1);
	(void)w;
	errno = saved;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fputs("memguard __driver: out of memory\n", stderr);
		_exit(3);
	}
	return p;
}

static void *xrealloc_(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fputs("memguard __driver: out of memory\n", stderr);
		_exit(3);
	}
	return p;
}

/* b's room grown to cap (huge pages once large: mg_bulk.h; a buf is never
 * freed) */
static void buf_grow(buf *b, size_t cap)
{
	b->p = mg_bulk_realloc(b->p, b->cap, cap);
	b->cap = cap;
}

static void buf_add(buf *b, const void *p, size_t n)
{
	if (!n)
		return; /* p may be NULL then */
	if (b->len + n > b->cap)
		buf_grow(b, 2 * (b->len + n) + 256);
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

/* Appends m's line (mg_proto_put, the one writer); a text is cut to
 * MSG_MAX raw bytes so the line stays in the limit. */
static void buf_add_msg(buf *b, const mg_msg *m)
{
	mg_msg cut = *m;
	if (cut.text_len > MSG_MAX)
		cut.text_len = MSG_MAX;
	/* written once into room enough for a start, result or out line (the
	 * word, its numbers, the text with every byte escaped, the newline);
	 * a longer one (site frames) again into the room it said it needs */
	size_t room = 128 + 2 * cut.text_len;
	for (;;) {
		if (b->len + room > b->cap)
			buf_grow(b, 2 * (b->len + room) + 256);
		size_t n = mg_proto_put(b->p + b->len, room, &cut);
		if (n <= room) {
			b->len += n;
			return;
		}
		room = n;
	}
}

/* The running test's start line, when not written yet: before any line
 * but its result, which implies it (PROTOCOL.md, rule 3). */
static void reply_start(shim *s)
{
	if (!s->start_unsent)
		return;
	s->start_unsent = 0;
	const qitem *e = &s->q[s->qhead];
	mg_msg m = {.kind = MG_MSG_START, .text = e->name, .text_len = e->len};
	buf_add_msg(&s->reply, &m);
}

/* A reply line other than a result: after the running test's start. */
static void reply_add(shim *s, const mg_msg *m)
{
	reply_start(s);
	buf_add_msg(&s->reply, m);
}

/* Writes all of b to fd, whole (mg_proto_write_all). -1 when the reader
 * has gone (EPIPE). */
static int buf_flush(buf *b, int fd)
{
	int rc = mg_proto_write_all(fd, b->p, b->len, NULL);
	b->len = 0;
	return rc;
}

static double elapsed_us(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	double us = (double)(t.tv_sec - t0->tv_sec) * 1e6 + (double)(t.tv_nsec - t0->tv_nsec) / 1e3;
	return us < 0 ? 0 : us;
}

/* ---- memory ---- */

static void peak_note(shim *s, uint64_t va, uint64_t rss)
{
	if (va > s->peak_va)
		s->peak_va = va;
	if (rss > s->peak_rss)
		s->peak_rss = rss;
}

/* TREE: every descendant's statm through guard's tree (kept-open fds: a
 * pread each, files opened only for new processes): largest VA, summed RSS. */
static void sample_program_tree(shim *s)
{
	tree_sample ts = {0};
	if (s->tree)
		tree_scan(s->tree, s->tree_root, &ts);
	uint64_t va_max = ts.va_max, rss_sum = ts.rss;
	s->tree_samples++;
	if (va_max > s->tree_va)
		s->tree_va = va_max;
	if (rss_sum > s->tree_rss)
		s->tree_rss = rss_sum;
	peak_note(s, va_max, rss_sum);
}

/*
 * CHILD: the child's statm (~1.5 us). The program does not wait for us at a
 * boundary, so a fast one may have moved on, or exited, by the time its line
 * is read: the reading is the latest one we could take, never a zero.
 */
static void child_sample(shim *s)
{
	uint64_t v, r;
	if (s->child_mem && proc_sampler_read(s->child_mem, &v, &r) == 0) {
		s->last_va = v;
		s->last_rss = r;
		peak_note(s, v, r);
	}
}

/* The memory a result line reports: the child's own figures when it gave
 * them (shim_figures), else per the driver's measure. */
static void measure(shim *s, uint64_t *va, uint64_t *rss)
{
	if (s->has_figures) {
		s->has_figures = 0;
		s->last_va = s->fig_va;
		s->last_rss = s->fig_rss;
	} else if (s->ops->measure == SHIM_MEASURE_CHILD) {
		child_sample(s);
	} else {
		if (s->child)
			sample_program_tree(s);
		s->last_va = s->tree_va;
		s->last_rss = s->tree_rss;
	}
	*va = s->last_va;
	*rss = s->last_rss;
	peak_note(s, *va, *rss);
}

/* ---- the child ---- */

static void err_give_all(shim *s);

static void child_forget(shim *s)
{
	s->child = 0;
	if (s->err_held_len) /* its last words, whose they are: the running test's */
		err_give_all(s);
	proc_sampler_free(s->child_mem);
	s->child_mem = NULL;
	if (s->child_out >= 0)
		close(s->child_out);
	s->child_out = -1;
	if (s->child_err >= 0)
		close(s->child_err);
	s->child_err = -1;
	s->line.len = 0;
}

/* Reaps our child (and orphans we adopted as subreaper). Returns 1 and fills
 * end (decoded here, where wait4 returns) and ru when the child was among them, -1 when there is no
 * child left to wait for (ECHILD), 0 otherwise. */
static int reap(shim *s, int hang, mg_exit_end *end, struct rusage *ru)
{
	int st, got = 0;
	struct rusage r;
	pid_t p;
	while ((p = wait4(-1, &st, got || !hang ? WNOHANG : 0, &r)) > 0 ||
	       (p < 0 && errno == EINTR)) {
		if (p == s->child && s->child) {
			*end = mg_exit_decode(st);
			*ru = r;
			got = 1;
		}
	}
	if (got && (uint64_t)ru->ru_maxrss * 1024 > s->peak_rss)
		s->peak_rss = (uint64_t)ru->ru_maxrss * 1024;
	if (!got && p < 0 && errno == ECHILD)
		return -1;
	return got;
}

static void child_kill(shim *s)
{
	mg_exit_end st;
	struct rusage ru;
	if (!s->child)
		return;
	proc_status ps;
	if (proc_read_status(&ps, s->child_proc, NULL) == 0)
		peak_note(s, ps.vm_peak, ps.vm_hwm);
	kill(s->child, SIGKILL);
	while (s->child && reap(s, 1, &st, &ru) == 0)
		;
	child_forget(s);
}

/*
 * Starts argv (found on PATH) with runner/spawn: in our process group (the
 * guard samples and kills the tree as one), stdout piped when asked, stderr
 * ours, killed if we die; returns once exec has happened, or -1 with a
 * message on stderr. The child is then ours to reap (we are a subreaper).
 * *out_fd: its piped stdout or -1.
 */
static pid_t fork_child(shim *s, char *const argv[], int pipe_out, int *out_fd, int *err_fd,
                        int extra_fd, int extra_target, int measured)
{
	char path[4096];
	mg_err err;
	spawn_proc *p;
	spawn_options so = SPAWN_OPTIONS_INIT;
	char **envp = env_for_child(s);
	/* measured: the spawner's clone (else a fork): the child's ru_maxrss is
	 * a figure here (reap), and it holds the peak RSS of the memory the
	 * child had before its exec: a vfork'd child's would be all of our own,
	 * a fork's the copy of ours, the spawner's the copy of a process that
	 * stays small. A listing (shim_capture) is no test's: a vfork, with no
	 * round trip through the spawner */
	so.flags = (pipe_out ? SPAWN_CAPTURE_OUT : 0) | (err_fd ? SPAWN_CAPTURE_ERR : 0) |
	           (measured ? SPAWN_FORK : 0) |
	           (pipe_out == SHIM_OUT_MERGED && !err_fd ? SPAWN_ERR_TO_OUT : 0);
	so.envp = envp;
	so.extra_fd = extra_fd;
	so.extra_target = extra_target;
	so.extra_fd2 = s->pass_fd;
	so.extra_target2 = s->pass_target;
	if (measured)
		shim_spawner_start(s);
	so.spawner = measured ? s->spawner : NULL;
	*out_fd = -1;
	int rc = spawn_resolve(path, sizeof(path), argv[0], &err) < 0 ||
	                 spawn_start(&p, path, argv, &so, &err) < 0
	             ? -1
	             : 0;
	env_for_child_free(s, envp);
	if (rc < 0) {
		fprintf(stderr, "memguard: %s\n", err.msg);
		return -1;
	}
	if (err_fd) /* spawn_release closes it: a copy of our own */
		*err_fd = fcntl(spawn_err_fd(p), F_DUPFD_CLOEXEC, 3);
	return spawn_release(p, out_fd);
}

void shim_spawner_start(shim *s)
{
	if (s->spawner_tried)
		return;
	s->spawner_tried = 1;
	if (spawn_spawner_new(&s->spawner, NULL) < 0)
		s->spawner = NULL; /* each child then forked here */
}

int shim_spawn(shim *s, char *const argv[], int pipe_out)
{
	return shim_spawn_fd(s, argv, pipe_out, -1, -1);
}

int shim_spawn_fd(shim *s, char *const argv[], int pipe_out, int fd, int target)
{
	int out, err = -1;
	int merged = pipe_out == SHIM_OUT_MERGED;
	pid_t pid = fork_child(s, argv, pipe_out, &out,
	                       s->ops->tail_stderr && !merged ? &err : NULL, fd, target, 1);
	if (pid < 0)
		return -1;
	if (out >= 0)
		fcntl(out, F_SETFL, fcntl(out, F_GETFL) | O_NONBLOCK);
	s->child_err = err;
	s->err_tail_len = s->err_tail_at = 0;
	s->child = pid;
	s->child_proc = proc_child_pid(pid);
	if (s->child_proc <= 0)
		s->child_proc = pid;
	s->child_out = out;
	s->tree_samples = 0;
	s->probed = 0;
	s->vmpeak_seen = s->test_vmpeak = 0; /* a program's own */
	if (proc_sampler_open(&s->child_mem, s->child_proc, NULL) < 0)
		s->child_mem = NULL;
	return 0;
}

void shim_say_failed(mg_exit_end status, const char *fmt, ...)
{
	va_list ap;
	fputs("memguard: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " %s %d\n", status.signo ? "was killed by signal" : "exited with status",
	        status.signo ? status.signo : status.status);
}

int shim_capture(shim *s, char *const argv[], char **out, size_t *len, mg_exit_end *status)
{
	return shim_capture_fd(s, argv, out, len, status, -1, -1);
}

int shim_capture_fd(shim *s, char *const argv[], char **out, size_t *len, mg_exit_end *status,
                    int extra, int target)
{
	int fd;
	*out = NULL;
	pid_t pid = fork_child(s, argv, 1, &fd, NULL, extra, target, 0);
	if (pid < 0)
		return -1;
	if (spawn_read_all(fd, out, len) < 0) {
		fputs("memguard: out of memory\n", stderr);
		abort(); /* as xrealloc_ */
	}
	close(fd);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	*status = mg_exit_decode(st);
	return 0;
}

/* ---- names ---- */

/* The names' bytes, in chunks that never move (a malloc a name cost as
 * much as the rest of adding it). */
typedef struct names_chunk {
	struct names_chunk *next;
	size_t used, cap;
	char b[];
} names_chunk;
#define NAMES_CHUNK 65536

struct shim_names {
	qent *v;
	names_chunk *chunks; /* the newest first */
	size_t *hash; /* v[k]'s shim_name_hash: a probe compares names only when it matches */
	size_t n, cap;
	long *slots; /* open addressing; -1 empty */
	size_t nslots;
};

size_t shim_name_hash(const char *p, size_t len)
{
	/* eight bytes a multiply (names are tens of bytes; the last eight
	 * overlap the step before), the length mixed in */
	uint64_t h = 1469598103934665603ull ^ (uint64_t)len, x = 0;
	if (len < 8) {
		for (size_t k = 0; k < len; k++)
			x |= (uint64_t)(unsigned char)p[k] << (8 * k);
		h = (h ^ x) * 0x9e3779b97f4a7c15ull;
	} else {
		size_t i = 0;
		for (; i + 8 <= len; i += 8) {
			memcpy(&x, p + i, 8);
			h = (h ^ x) * 0x9e3779b97f4a7c15ull;
			h ^= h >> 29;
		}
		if (i < len) {
			memcpy(&x, p + len - 8, 8);
			h = (h ^ x) * 0x9e3779b97f4a7c15ull;
		}
	}
	h ^= h >> 29;
	h *= 1099511628211ull;
	return (size_t)(h ^ (h >> 32));
}

shim_names *shim_names_new(void)
{
	shim_names *t = xmalloc(sizeof(*t));
	memset(t, 0, sizeof(*t));
	return t;
}

/* The slot of name (hash h): its index there, or -1 and the empty slot. */
static long names_slot(const shim_names *t, const char *name, size_t len, size_t h, size_t *slot)
{
	size_t mask = t->nslots - 1;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		long k = t->slots[i];
		if (k < 0 ||
		    (t->hash[k] == h && t->v[k].len == len && !memcmp(t->v[k].name, name, len))) {
			*slot = i;
			return k;
		}
	}
}

long shim_names_find(const shim_names *t, const char *name, size_t len)
{
	size_t slot;
	return t->nslots ? names_slot(t, name, len, shim_name_hash(name, len), &slot) : -1;
}

/* The slots rebuilt, nslots of them, for the names held. */
static void names_rehash(shim_names *t, size_t nslots)
{
	mg_bulk_free(t->slots, t->nslots * sizeof(long));
	t->nslots = nslots;
	t->slots = mg_bulk_realloc(NULL, 0, t->nslots * sizeof(long));
	for (size_t i = 0; i < t->nslots; i++)
		t->slots[i] = -1;
	size_t mask = t->nslots - 1;
	for (size_t k = 0; k < t->n; k++) { /* unique: the first empty slot */
		size_t i = t->hash[k] & mask;
		while (t->slots[i] >= 0)
			i = (i + 1) & mask;
		t->slots[i] = (long)k;
	}
}

/* v and hash for cap names (a listing's are huge pages once large: mg_bulk.h) */
static void names_grow(shim_names *t, size_t cap)
{
	t->v = mg_bulk_realloc(t->v, t->cap * sizeof(qent), cap * sizeof(qent));
	t->hash = mg_bulk_realloc(t->hash, t->cap * sizeof(size_t), cap * sizeof(size_t));
	t->cap = cap;
}

void shim_names_reserve(shim_names *t, size_t n)
{
	if (n > t->cap)
		names_grow(t, n);
	size_t nslots = t->nslots ? t->nslots : 64;
	while (nslots < 2 * n)
		nslots *= 2;
	if (nslots > t->nslots)
		names_rehash(t, nslots);
}

long shim_names_add(shim_names *t, const char *name, size_t len)
{
	size_t slot, h = shim_name_hash(name, len);
	if (2 * (t->n + 1) > t->nslots)
		names_rehash(t, t->nslots ? 2 * t->nslots : 64);
	if (names_slot(t, name, len, h, &slot) >= 0)
		return -1;
	if (t->n == t->cap)
		names_grow(t, t->cap ? 2 * t->cap : 64);
	names_chunk *c = t->chunks;
	if (!c || c->cap - c->used < len + 1) {
		/* each chunk as large as the ones before it together: few of
		 * them, the large ones in huge pages */
		size_t cap = c && c->cap > NAMES_CHUNK / 2 ? 2 * c->cap : NAMES_CHUNK;
		if (cap < len + 1)
			cap = len + 1;
		c = mg_bulk_realloc(NULL, 0, sizeof(*c) + cap);
		c->next = t->chunks;
		c->used = 0;
		c->cap = cap;
		t->chunks = c;
	}
	char *p = c->b + c->used;
	c->used += len + 1;
	memcpy(p, name, len);
	p[len] = 0;
	t->v[t->n] = (qent){p, len};
	t->hash[t->n] = h;
	t->slots[slot] = (long)t->n;
	return (long)t->n++;
}

size_t shim_names_count(const shim_names *t)
{
	return t->n;
}

const char *shim_names_at(const shim_names *t, size_t i, size_t *len)
{
	if (len)
		*len = t->v[i].len;
	return t->v[i].name;
}

void shim_names_free(shim_names *t)
{
	if (!t)
		return;
	while (t->chunks) {
		names_chunk *c = t->chunks;
		t->chunks = c->next;
		mg_bulk_free(c, sizeof(*c) + c->cap);
	}
	mg_bulk_free(t->v, t->cap * sizeof(qent));
	mg_bulk_free(t->hash, t->cap * sizeof(size_t));
	mg_bulk_free(t->slots, t->nslots * sizeof(long));
	free(t);
}

pid_t shim_child(const shim *s)
{
	return s->child;
}

/* ---- replies ---- */

static void reply_flush(shim *s);

/* The output held for the next test, when none will start (the shim ends):
 * to stdout, the runner's for the test in front. */
static void between_release(shim *s)
{
	if (s->between.len)
		buf_add(&s->out, s->between.p, s->between.len);
	s->between.len = 0;
}

/* The last replies, the held output before them. */
static void reply_flush_last(shim *s)
{
	between_release(s);
	reply_flush(s);
}

static void reply_flush(shim *s)
{
	reply_start(s);
	if (s->out.len && buf_flush(&s->out, 1) < 0)
		s->out.len = 0;
	if (s->reply.len && buf_flush(&s->reply, s->reply_fd) < 0) {
		/* the runner has gone */
		child_kill(s);
		_exit(0);
	}
}

/* Ends the shim at a boundary: kill the child, recycle (when why), bye. */
static void __attribute__((noreturn)) finish(shim *s, int recycle)
{
	uint64_t va = s->last_va, rss = s->last_rss;
	child_kill(s);
	if (recycle) {
		mg_msg m = {.kind = MG_MSG_RECYCLE, .va = va, .rss = rss};
		m.why = s->version < 2                         ? MG_WHY_NONE
		        : s->recycle_va && va >= s->recycle_va ? MG_WHY_VA
		                                               : MG_WHY_RSS;
		reply_add(s, &m);
	}
	mg_msg bye = {.kind = MG_MSG_BYE, .va = s->peak_va, .rss = s->peak_rss};
	reply_add(s, &bye);
	reply_flush_last(s);
	_exit(0);
}

void shim_defer_finish(shim *s, int on)
{
	s->defer_finish = on;
}

void shim_output(shim *s, const char *p, size_t len)
{
	if (!shim_head_started(s)) {
		/* between tests: the next test's, in the reply stream after its
		 * start (shim_start), so that it is in order with the results
		 * before it whichever of our pipes the runner reads first
		 * (before, it went to stdout, to the test in front when the
		 * runner read it: under load a program's "Running main()" was a
		 * later test's output); past OUT_FLUSH, to stdout as it comes */
		buf_add(&s->between, p, len);
		if (s->between.len >= OUT_FLUSH) {
			between_release(s);
			if (buf_flush(&s->out, 1) < 0)
				s->out.len = 0;
		}
		return;
	}
	/* the running test's output goes in the reply stream as "out" lines,
	 * so it stays in order with the test's start and result */
	while (len) {
		size_t take = len < 512 ? len : 512;
		mg_msg m = {.kind = MG_MSG_OUT, .text = p, .text_len = take};
		reply_add(s, &m);
		p += take;
		len -= take;
	}
}

void shim_test(shim *s, const char *name, size_t len)
{
	mg_msg m = {.kind = MG_MSG_TEST, .text = name, .text_len = len};
	reply_add(s, &m);
	s->listed++;
}

void shim_test_after(shim *s, size_t index, const char *fixture)
{
	mg_msg m = {.kind = fixture ? MG_MSG_NEEDS : MG_MSG_AFTER,
	            .count = index,
	            .text = fixture,
	            .text_len = fixture ? strlen(fixture) : 0};
	reply_add(s, &m);
}

size_t shim_queued(const shim *s)
{
	return s->qlen;
}

const char *shim_queue_name(const shim *s, size_t i, size_t *len)
{
	const qitem *e = &s->q[s->qhead + i];
	if (len)
		*len = e->len;
	return e->name;
}

unsigned shim_failed(const shim *s)
{
	return s->failed;
}

int shim_head_started(const shim *s)
{
	return s->started;
}

void shim_start(shim *s)
{
	if (s->out.len) {
		/* between-test output goes after the results before it (batched in
		 * s->reply until the loop waits) */
		if (s->reply.len)
			reply_flush(s);
		if (buf_flush(&s->out, 1) < 0)
			s->out.len = 0;
	}
	s->start_unsent = 1; /* written by the next line that is no result */
	s->started = 1;
	if (s->between.len) {
		size_t n = s->between.len;
		s->between.len = 0; /* shim_output may not add to it now */
		shim_output(s, s->between.p, n);
	}
	s->tree_va = s->tree_rss = 0;
	clock_gettime(CLOCK_MONOTONIC, &s->t0);
}

void shim_flush(shim *s)
{
	reply_flush(s);
}

void shim_base(shim *s, uint64_t va, uint64_t rss)
{
	assert(!s->started && !s->start_unsent);
	mg_msg m = {.kind = MG_MSG_BASE, .va = va, .rss = rss};
	buf_add_msg(&s->reply, &m);
	s->last_va = va; /* the program's latest reading (shim_figures_last) */
	s->last_rss = rss;
	if (va > s->vmpeak_seen) /* a rise is over the first test's start, as a host's */
		s->vmpeak_seen = va;
}

void shim_wait(shim *s, const char *what)
{
	assert(!s->started && !s->start_unsent);
	mg_msg m = {.kind = MG_MSG_WAIT, .text = what, .text_len = strlen(what)};
	buf_add_msg(&s->reply, &m);
	reply_flush(s);
}

/*
 * TREE: the test's mark on stdout and stderr (PROTOCOL.md, version 2), which
 * its program shares with us: the program has exited, so every byte it
 * wrote is in the pipes before the mark, and the runner gives each byte to
 * the test that wrote it however far the pipes run apart. (What a process
 * it left running writes later goes to a later test.)
 */
static void mark_streams(shim *s)
{
	/* whole, even where the program made the pipe non-blocking */
	mg_proto_mark_streams(s->secret, s->ordinal++, NULL);
}

void shim_result(shim *s, mg_msg_kind kind, const char *msg, size_t len)
{
	uint64_t va, rss;
	assert(kind == MG_MSG_PASS || kind == MG_MSG_FAIL || kind == MG_MSG_SKIP ||
	       kind == MG_MSG_TIMEOUT || kind == MG_MSG_ERROR);
	double us = elapsed_us(&s->t0);
	measure(s, &va, &rss);
	/* a probed child's stderr is read with each batch of its lines (the
	 * loop reads it first), not with a poll per result */
	if (!s->probed)
		drain_err(s);
	/* output first: the runner attributes it to the test still in flight */
	if (s->out.len && buf_flush(&s->out, 1) < 0)
		s->out.len = 0;
	if (s->ops->measure == SHIM_MEASURE_TREE)
		mark_streams(s);
	mg_msg m = {.kind = kind, .usec = (uint64_t)us, .va = va, .rss = rss};
	s->failed += kind != MG_MSG_PASS && kind != MG_MSG_SKIP;
	if (kind != MG_MSG_PASS && msg) {
		m.text = msg;
		m.text_len = len;
	}
	/* VmPeak rose in it: its peak before its result (the start first) */
	if (s->test_vmpeak) {
		mg_msg pm = {.kind = MG_MSG_PEAK, .va = s->test_vmpeak};
		reply_add(s, &pm);
		s->test_vmpeak = 0;
	}
	/* its start, not written yet, is implied by the result that follows
	 * it at once: one line a silent test, not two */
	s->start_unsent = 0;
	buf_add_msg(&s->reply, &m);
	/* the reply goes out when the loop would wait, several results a write */
	if (s->reply.len >= OUT_FLUSH)
		reply_flush(s);
	int probed = s->probed;
	qchunk *c = s->q[s->qhead].c;
	if (--c->live == 0) { /* none of its names is queued any more */
		if (c == s->qcur)
			c->used = 0;
		else
			free(c);
	}
	s->qhead++;
	s->qlen--;
	s->started = 0;
	/* a child finishing on its own (its batch answered, or stopped here by
	 * its probe: gtest_end) is waited for by the loop */
	if (s->quit_pending && !s->defer_finish &&
	    !(s->child && ((s->ops->finishing && s->ops->finishing(s)) || s->parking)))
		finish(s, 0);
	if (s->ops->self_recycle && !probed &&
	    ((s->recycle_va && va >= s->recycle_va) || (s->recycle_rss && rss >= s->recycle_rss)))
		finish(s, 1);
}

void shim_figures_last(shim *s)
{
	s->has_figures = 1;
	s->fig_va = s->last_va;
	s->fig_rss = s->last_rss;
}

void shim_figures(shim *s, uint64_t va, uint64_t rss, uint64_t peak_va, uint64_t peak_rss)
{
	s->has_figures = 1;
	s->fig_va = va;
	s->fig_rss = rss;
	peak_note(s, va > peak_va ? va : peak_va, rss > peak_rss ? rss : peak_rss);
	if (peak_va > s->vmpeak_seen) { /* 0: not read (a test under 1 ms) */
		if (s->vmpeak_seen)
			s->test_vmpeak = peak_va;
		s->vmpeak_seen = peak_va;
	}
}

void shim_lines(shim *s, const char *p, size_t n)
{
	reply_start(s);
	buf_add(&s->reply, p, n);
}

void shim_probed(shim *s)
{
	s->probed = 1;
}

void shim_stop(shim *s, const char *why)
{
	if (s->stopped)
		return;
	mg_msg m = {.kind = MG_MSG_RECYCLE, .va = s->last_va, .rss = s->last_rss};
	if (why == NULL || s->version < 2 ||
	    mg_proto_parse_why(why, strlen(why), &m.why, &m.bytes) < 0)
		m.why = MG_WHY_NONE; /* not a word of the protocol: the runner's own words */
	reply_add(s, &m);
	reply_flush(s);
	s->stopped = 1;
}

int shim_stopped(const shim *s)
{
	return s->stopped;
}

int shim_parking(const shim *s)
{
	return s->parking;
}

void shim_pass_fd(shim *s, int fd, int target)
{
	s->pass_fd = fd;
	s->pass_target = target;
}

/* At quit, a child stopped at a boundary that finishes on its own
 * (ops->finish_stopped): continued once (it stopped itself), then waited
 * for like a finishing one. 1 while it runs. */
static int resume(shim *s)
{
	siginfo_t si;
	if (s->resumed)
		return 1;
	/* it stops itself just after the line that ended its test: that stop
	 * first (a SIGCONT before it would be lost); an end is reaped as usual */
	memset(&si, 0, sizeof(si));
	while (waitid(P_PID, (id_t)s->child, &si, WSTOPPED | WEXITED | WNOWAIT) < 0 &&
	       errno == EINTR)
		;
	if (si.si_code == CLD_STOPPED)
		kill(s->child, SIGCONT);
	s->resumed = 1;
	return 1;
}

void shim_setenv(shim *s, const char *name, const char *value)
{
	env_set(s, name, value);
}

void shim_resultf(shim *s, mg_msg_kind kind, const char *fmt, ...)
{
	char m[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	shim_result(s, kind, m, n < 0 ? 0 : (size_t)n < sizeof(m) ? (size_t)n : sizeof(m) - 1);
}

void shim_die_of(shim *s, int sig)
{
	reply_flush_last(s);
	struct rlimit none = {0, 0};
	setrlimit(RLIMIT_CORE, &none);
#ifdef __SANITIZE_ADDRESS__
	/* ASan keeps its own SIGSEGV/SIGBUS/SIGFPE handlers whatever signal() asks:
	 * reset the disposition with the raw system call (x86-64 kernel layout) */
	struct {
		void (*handler)(int);
		unsigned long flags;
		void (*restorer)(void);
		uint64_t mask;
	} dfl = {SIG_DFL, 0, NULL, 0};
	syscall(SYS_rt_sigaction, sig, &dfl, NULL, sizeof(dfl.mask));
#else
	signal(sig, SIG_DFL);
#endif
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	/* a signal whose default is not to terminate cannot have killed the child */
	_exit(128 + sig);
}

void shim_end_as(shim *s, mg_exit_end status)
{
	if (status.signo)
		shim_die_of(s, status.signo);
	reply_flush_last(s);
	_exit(status.status);
}

/* ---- env ---- */

/* A variable the driver sets or removes for its children, other than its
 * own MEMGUARD_* ones, is remembered (once): the probe gives the program's
 * children the user's value back (env_for_child). */
static void env_note_set(shim *s, const char *name)
{
	if (!strncmp(name, "MEMGUARD_", 9))
		return;
	for (size_t i = 0; i < s->nset; i++)
		if (!strcmp(s->set_names[i], name))
			return;
	s->set_names = xrealloc_(s->set_names, (s->nset + 1) * sizeof(char *));
	s->set_names[s->nset] = xmalloc(strlen(name) + 1);
	strcpy(s->set_names[s->nset++], name);
}

/*
 * The environment a child starts with: s->env, and when it takes the probe
 * (MG_PROBE_ENV_FD set, the probe in LD_PRELOAD) the names of the variables set for it
 * (MG_PROBE_ENV_SET, colon-separated) and the user's own value of each
 * (MG_PROBE_ENV_USER NAME=VALUE), so the probe can give the program's own
 * children the user's environment back. Free with env_for_child_free.
 */
static char **env_for_child(shim *s)
{
	int fd = 0, preload = 0;
	for (size_t i = 0; i < s->nenv; i++) {
		fd |= !strncmp(s->env[i], MG_PROBE_ENV_FD "=", sizeof(MG_PROBE_ENV_FD));
		preload |= !strncmp(s->env[i], "LD_PRELOAD=", 11) &&
		           strstr(s->env[i], "libmemguard_probe") != NULL;
	}
	if (!fd || !preload || !s->nset)
		return s->env;
	char **envp = xmalloc((s->nenv + s->nset + 2) * sizeof(char *));
	size_t n = s->nenv, len = sizeof(MG_PROBE_ENV_SET "=");
	memcpy(envp, s->env, n * sizeof(char *));
	for (size_t i = 0; i < s->nset; i++)
		len += strlen(s->set_names[i]) + 1;
	char *set = xmalloc(len);
	strcpy(set, MG_PROBE_ENV_SET "=");
	for (size_t i = 0; i < s->nset; i++) {
		const char *user = getenv(s->set_names[i]);
		if (i)
			strcat(set, ":");
		strcat(set, s->set_names[i]);
		if (!user)
			continue;
		char *e =
		    xmalloc(sizeof(MG_PROBE_ENV_USER) + strlen(s->set_names[i]) + strlen(user) + 1);
		sprintf(e, MG_PROBE_ENV_USER "%s=%s", s->set_names[i], user);
		envp[n++] = e;
	}
	envp[n++] = set;
	envp[n] = NULL;
	return envp;
}

static void env_for_child_free(shim *s, char **envp)
{
	if (envp == s->env)
		return;
	for (size_t i = s->nenv; envp[i]; i++)
		free(envp[i]);
	free(envp);
}

static void env_set(shim *s, const char *name, const char *value)
{
	size_t nl = strlen(name);
	env_note_set(s, name);
	for (size_t i = 0; i < s->nenv;)
		if (!strncmp(s->env[i], name, nl) && s->env[i][nl] == '=') {
			free(s->env[i]); /* each entry is ours (env_init) */
			s->env[i] = s->env[--s->nenv];
		} else
			i++;
	if (value) {
		char *e = xmalloc(nl + strlen(value) + 2);
		sprintf(e, "%s=%s", name, value);
		s->env = xrealloc_(s->env, (s->nenv + 2) * sizeof(char *));
		s->env[s->nenv++] = e;
	}
	s->env[s->nenv] = NULL;
}

char **shim_env(shim *s)
{
	return s->env;
}

void *shim_ctx(shim *s)
{
	return s->ctx;
}

char **shim_cmd(shim *s, int *ncmd)
{
	if (ncmd)
		*ncmd = s->ncmd;
	return s->cmd;
}

static void env_init(shim *s)
{
	s->env = spawn_env_without("MEMGUARD_", 0, &s->nenv);
	if (!s->env)
		abort();
	/* copies, so env_set frees what it replaces: a ctest shim sets a test's
	 * ENVIRONMENT and puts it back at every test */
	for (size_t i = 0; i < s->nenv; i++) {
		char *e = xmalloc(strlen(s->env[i]) + 1);
		s->env[i] = strcpy(e, s->env[i]);
	}
}

static uint64_t env_u64(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? strtoull(v, NULL, 10) : 0;
}

/* ---- commands ---- */

static void __attribute__((noreturn)) violation(shim *s, const char *line)
{
	fprintf(stderr, "memguard __driver: not a command: '%.60s'\n", line);
	child_kill(s);
	_exit(3);
}

void shim_list_flags(shim *s, uint64_t flags)
{
	s->list_flags = flags;
}

static void do_list(shim *s)
{
	s->listed = 0;
	if (s->ops->list(s) < 0) {
		s->reply.len = 0;
		s->start_unsent = 0;
		child_kill(s);
		_exit(3);
	}
	mg_msg end = {.kind = MG_MSG_END, .count = s->listed, .bytes = s->list_flags};
	reply_add(s, &end);
	reply_flush(s);
}

static void queue_push(shim *s, const char *name, size_t len)
{
	if (s->qhead && s->qhead * 2 >= s->qcap) {
		memmove(s->q, s->q + s->qhead, s->qlen * sizeof(qitem));
		s->qhead = 0;
	}
	if (s->qhead + s->qlen == s->qcap) {
		size_t cap = s->qcap ? 2 * s->qcap : 64;
		s->q = mg_bulk_realloc(s->q, s->qcap * sizeof(qitem), cap * sizeof(qitem));
		s->qcap = cap;
	}
	qchunk *c = s->qcur;
	if (!c || c->cap - c->used < len + 1) {
		if (c && !c->live)
			free(c); /* left by no queued name */
		size_t cap = len + 1 > QCHUNK ? len + 1 : QCHUNK;
		c = xmalloc(sizeof(*c) + cap);
		c->used = c->live = 0;
		c->cap = cap;
		s->qcur = c;
	}
	char *p = c->b + c->used;
	c->used += len + 1;
	c->live++;
	memcpy(p, name, len);
	p[len] = 0;
	s->q[s->qhead + s->qlen++] = (qitem){p, len, c};
}

/* Reads what the runner sent. 0 on EOF (the runner has gone). */
static int read_commands(shim *s)
{
	long n = mg_lines_fill(&s->lines, s->cmd_fd);
	if (n == MG_LINES_LONG) {
		char *head = s->in + s->lines.start;
		head[64] = 0;
		violation(s, head);
	}
	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 1 : 0;
	if (n == 0)
		return 0;
	char *line;
	size_t len;
	while (mg_lines_next(&s->lines, &line, &len)) {
		mg_msg m;
		if (mg_proto_parse(&m, line, len) < 0)
			violation(s, line);
		if (m.kind == MG_CMD_RUN) {
			queue_push(s, m.text, m.text_len);
			s->unfed++;
		} else if (m.kind == MG_CMD_FED)
			s->unfed = 0;
		else if (m.kind == MG_CMD_QUIT) {
			s->quit_pending = 1;
			/* a program with tests still to run ends at its next one,
			 * finishing what its framework does before it (asked at
			 * once: the sooner, the fewer tests it starts) */
			if (s->child && !s->stopped && !s->parking && s->ops->park &&
			    !(s->ops->finishing && s->ops->finishing(s)))
				s->parking = s->ops->park(s);
		} else if (m.kind == MG_CMD_LIST)
			do_list(s);
		else
			violation(s, line);
	}
	return 1;
}

void shim_take_pending(shim *s)
{
	struct pollfd pf = {s->cmd_fd, POLLIN, 0};
	if (!s->pipe_big) /* best effort: fewer wake-ups for a long feed */
		fcntl(s->cmd_fd, F_SETPIPE_SZ, 1 << 20);
	s->pipe_big = 1;
	while (!s->quit_pending && s->unfed) {
		int r = poll(&pf, 1, -1);
		if (r < 0 && errno == EINTR) /* SIGCHLD */
			continue;
		if (r <= 0)
			break;
		if (!read_commands(s)) {
			child_kill(s);
			_exit(0);
		}
	}
}

int shim_line_cut(const shim *s)
{
	return s->line_cut;
}

/* ---- the child's stdout, line by line ---- */

/* The lines of s->line (the child's stdout, read in after what was left)
 * to ops->line; at eof, the last one even without its newline. */
static void child_lines(shim *s, int eof)
{
	if (!s->line.len) /* nothing yet (no buffer either: a program silent on stdout) */
		return;
	size_t off = 0;
	char *nl;
	while ((nl = memchr(s->line.p + off, '\n', s->line.len - off))) {
		size_t len = (size_t)(nl - (s->line.p + off));
		*nl = 0;
		s->ops->line(s, s->line.p + off, len);
		off += len + 1;
	}
	if ((eof || s->line.len - off >= CHILD_LINE) && off < s->line.len) {
		buf_add(&s->line, "", 1); /* NUL after the partial line */
		s->line_cut = 1;
		s->ops->line(s, s->line.p + off, s->line.len - 1 - off);
		s->line_cut = 0;
		off = s->line.len;
	}
	memmove(s->line.p, s->line.p + off, s->line.len - off);
	s->line.len -= off;
}

/* The last ERR_TAIL bytes of the program's stderr (or of its one stream:
 * shim_tail_keep), kept in a ring: its last words. */
static void err_tail_keep(shim *s, const char *p, size_t n)
{
	if (n > ERR_TAIL) {
		p += n - ERR_TAIL;
		n = ERR_TAIL;
	}
	size_t first = ERR_TAIL - s->err_tail_at < n ? ERR_TAIL - s->err_tail_at : n;
	memcpy(s->err_tail + s->err_tail_at, p, first);
	memcpy(s->err_tail, p + first, n - first);
	s->err_tail_at = (s->err_tail_at + n) % ERR_TAIL;
	s->err_tail_len = s->err_tail_len + n < ERR_TAIL ? s->err_tail_len + n : ERR_TAIL;
}

/* Reads the child's stdout; 0 at EOF, 2 when the read filled its buffer
 * (more is waiting: no pause before the next), else 1. */
static int read_child(shim *s)
{
	/* read in place after what is left of the last read (no copy) */
	enum { READ_MAX = 65536 };
	buf *b = &s->line;
	if (b->cap - b->len < READ_MAX + 1) /* + 1: child_lines' NUL at EOF */
		buf_grow(b, b->len + READ_MAX + 1 + (b->cap < READ_MAX ? 0 : b->cap / 2));
	char *tmp = b->p + b->len;
	ssize_t n = read(s->child_out, tmp, READ_MAX);
	if (n < 0)
		return errno == EINTR || errno == EAGAIN;
	if (n == 0) {
		child_lines(s, 1);
		close(s->child_out);
		s->child_out = -1;
		return 0;
	}
	if (s->ops->measure == SHIM_MEASURE_CHILD && !s->probed)
		child_sample(s); /* the earliest moment we know of the lines below */
	/* the protocol carries any byte but NUL: a program's NUL becomes '?' */
	for (char *z = memchr(tmp, 0, (size_t)n); z; z = memchr(z, 0, (size_t)(tmp + n - z)))
		*z = '?';
	b->len += (size_t)n;
	child_lines(s, 0);
	return (size_t)n == READ_MAX ? 2 : 1;
}

/* Passes stderr bytes on to ours, whole (as mark_streams writes), keeping
 * the last ERR_TAIL bytes. */
static void err_pass(shim *s, const char *tmp, size_t n)
{
	for (size_t done = 0; done < n;) {
		ssize_t w = write(2, tmp + done, n - done);
		if (w > 0) {
			done += (size_t)w;
		} else if (w < 0 && errno == EAGAIN) {
			struct pollfd pf = {2, POLLOUT, 0};
			poll(&pf, 1, 1000);
		} else if (!(w < 0 && errno == EINTR)) {
			break;
		}
	}
	err_tail_keep(s, tmp, n);
}

/* Held stderr bytes given on: the running test's output (in the reply
 * stream, in order with its result), else ours (between tests). */
static void err_give(shim *s, const char *p, size_t n)
{
	if (!n)
		return;
	if (shim_head_started(s)) {
		shim_output(s, p, n);
		err_tail_keep(s, p, n);
	} else {
		err_pass(s, p, n);
	}
}

/* Where the first whole mark is in the held bytes, or -1. */
static ptrdiff_t err_find_mark(const shim *s)
{
	const char *m = s->err_held_len >= s->err_mark_len
	                    ? memmem(s->err_held, s->err_held_len, s->err_mark, s->err_mark_len)
	                    : NULL;
	return m ? m - s->err_held : -1;
}

/* Everything held given on (the child has ended, or the bytes waited too
 * long for a mark: ERR_GRACE_MS), its marks left out. */
static void err_give_all(shim *s)
{
	ptrdiff_t at;
	while ((at = err_find_mark(s)) >= 0) {
		err_give(s, s->err_held, (size_t)at);
		size_t cut = (size_t)at + s->err_mark_len;
		memmove(s->err_held, s->err_held + cut, s->err_held_len - cut);
		s->err_held_len -= cut;
	}
	err_give(s, s->err_held, s->err_held_len);
	s->err_held_len = 0;
}

/* Passes what the child wrote on stderr on to ours (or, split by the
 * probe's marks, keeps it until it is known whose it is); 0 at EOF or on
 * an error. */
static int read_err(shim *s)
{
	char tmp[16384];
	ssize_t n = read(s->child_err, tmp, sizeof(tmp));
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 1;
	if (n <= 0) {
		close(s->child_err);
		s->child_err = -1;
		return 0;
	}
	if (!s->err_mark_len) {
		err_pass(s, tmp, (size_t)n);
		return 1;
	}
	if (s->err_held_len + (size_t)n > s->err_held_cap) {
		s->err_held_cap = 2 * (s->err_held_len + (size_t)n);
		s->err_held = xrealloc_(s->err_held, s->err_held_cap);
	}
	if (!s->err_held_len)
		clock_gettime(CLOCK_MONOTONIC, &s->err_held_t0);
	memcpy(s->err_held + s->err_held_len, tmp, (size_t)n);
	s->err_held_len += (size_t)n;
	return 1;
}

void shim_err_split(shim *s, const char *mark, size_t len)
{
	int n =
	    snprintf(s->err_mark, sizeof(s->err_mark), "%.*s " MG_PROBE_ERR "\n", (int)len, mark);
	s->err_mark_len = n > 0 && (size_t)n < sizeof(s->err_mark) ? (size_t)n : 0;
}

void shim_err_take(shim *s, int ours)
{
	ptrdiff_t at;
	/* the mark was written before the end was: it is in the pipe (or read
	 * already), so what is there is read, not waited for (a test that left
	 * stderr redirected took its mark elsewhere) */
	while ((at = err_find_mark(s)) < 0 && s->child_err >= 0) {
		struct pollfd pf = {s->child_err, POLLIN, 0};
		if (poll(&pf, 1, 0) <= 0 || !read_err(s))
			break;
	}
	if (at < 0)
		return;
	if (ours)
		err_give(s, s->err_held, (size_t)at);
	else
		err_pass(s, s->err_held, (size_t)at);
	size_t cut = (size_t)at + s->err_mark_len;
	memmove(s->err_held, s->err_held + cut, s->err_held_len - cut);
	s->err_held_len -= cut;
	if (s->err_held_len) /* a later test's: it waits from now */
		clock_gettime(CLOCK_MONOTONIC, &s->err_held_t0);
}

/* Held bytes with no mark after ERR_GRACE_MS: a test that runs on (or hangs:
 * a kill would lose them) or what ran between tests wrote them; given on
 * now, to the running test when there is one. The ms to wait, -1 none. */
static int err_grace(shim *s)
{
	if (!s->err_held_len || err_find_mark(s) >= 0)
		return -1;
	double waited = elapsed_us(&s->err_held_t0) / 1000;
	if (waited < ERR_GRACE_MS)
		return (int)(ERR_GRACE_MS - waited) + 1;
	err_give_all(s);
	return -1;
}

/* What the child has written on stderr so far, passed on (non-blocking). */
static void drain_err(shim *s)
{
	struct pollfd pf = {s->child_err, POLLIN, 0};
	while (s->child_err >= 0 && poll(&pf, 1, 0) > 0 && read_err(s))
		;
}

void shim_tail_keep(shim *s, const char *p, size_t n, int nl)
{
	if (n)
		err_tail_keep(s, p, n);
	if (nl) { /* a line's end, a byte: no call (three lines a test) */
		s->err_tail[s->err_tail_at] = '\n';
		s->err_tail_at = (s->err_tail_at + 1) % ERR_TAIL;
		s->err_tail_len += s->err_tail_len < ERR_TAIL;
	}
}

const char *shim_stderr_tail(shim *s, size_t *len)
{
	if (s->err_tail_len == ERR_TAIL && s->err_tail_at) { /* the ring made straight */
		char tmp[ERR_TAIL];
		memcpy(tmp, s->err_tail + s->err_tail_at, ERR_TAIL - s->err_tail_at);
		memcpy(tmp + ERR_TAIL - s->err_tail_at, s->err_tail, s->err_tail_at);
		memcpy(s->err_tail, tmp, ERR_TAIL);
		s->err_tail_at = 0;
	}
	const char *p = s->err_tail, *e = s->err_tail + s->err_tail_len;
	const char *nl = s->err_tail_len == ERR_TAIL ? memchr(p, '\n', s->err_tail_len) : NULL;
	if (nl) /* the kept bytes start mid-line: from the next one */
		p = nl + 1;
	*len = (size_t)(e - p);
	return p;
}

void shim_extra(shim *s, mg_msg_kind kind, const char *name, size_t nlen, const char *msg,
                size_t mlen)
{
	assert(!s->started && (kind == MG_MSG_FAIL || kind == MG_MSG_ERROR || kind == MG_MSG_SKIP));
	if (nlen > 1024)
		nlen = 1024;
	if (mlen > MSG_MAX - nlen)
		mlen = MSG_MAX - nlen;
	char *text = xrealloc_(NULL, nlen + mlen + 1);
	memcpy(text, name, nlen);
	memcpy(text + nlen, msg, mlen);
	mg_msg m = {.kind = MG_MSG_EXTRA,
	            .state = kind,
	            .name_len = nlen,
	            .text = text,
	            .text_len = nlen + mlen};
	reply_add(s, &m);
	free(text);
}

static void child_exited(shim *s, mg_exit_end status, struct rusage *ru)
{
	/* It is reaped: forget its pid now, so nothing below (a result read from
	 * the pipe can end the host) signals or waits for a pid that is gone. */
	s->child = 0;
	if (s->stopped && !s->ops->finish_stopped) {
		/* after the recycle nothing more is answered: quit is awaited */
		child_forget(s);
		return;
	}
	/* the output it wrote before exiting comes first; a grandchild holding the
	 * pipe open does not keep us waiting (but with ops->wait_output_eof):
	 * read what is there, then stop */
	if (s->child_out >= 0) {
		struct pollfd pf = {s->child_out, POLLIN, 0};
		while (s->child_out >= 0 && poll(&pf, 1, 0) > 0 && read_child(s))
			;
		if (s->child_out >= 0 && s->ops->wait_output_eof) {
			s->exit_held = 1;
			s->held_st = status;
			s->held_ru = *ru;
			return; /* the loop reads on, and comes back at its end */
		}
		if (s->child_out >= 0)
			child_lines(s, 1);
	}
	if (s->child_err >= 0) { /* its last words, all of them: it has exited */
		fcntl(s->child_err, F_SETFL, fcntl(s->child_err, F_GETFL) & ~O_NONBLOCK);
		struct pollfd pf = {s->child_err, POLLIN, 0};
		while (s->child_err >= 0 && poll(&pf, 1, 100) > 0 && read_err(s))
			;
	}
	/* its ru_maxrss: the largest peak RSS of one process of it (the child
	 * or a descendant it waited for), exact where the samples may have
	 * missed a short one; what one process had resident it had mapped, so
	 * it is a floor for the tree's VA too (the summed RSS is not) */
	uint64_t maxrss = (uint64_t)ru->ru_maxrss * 1024;
	if (s->ops->measure == SHIM_MEASURE_TREE) {
		if (maxrss > s->tree_rss)
			s->tree_rss = maxrss;
		if (maxrss > s->tree_va)
			s->tree_va = maxrss;
	}
	child_forget(s);
	s->ops->exited(s, status, ru);
}

int shim_output_held(const shim *s)
{
	return s->exit_held;
}

void shim_output_abandon(shim *s)
{
	if (!s->exit_held || s->child_out < 0)
		return;
	child_lines(s, 1);
	close(s->child_out);
	s->child_out = -1;
}

void shim_child_kill_tree(shim *s)
{
	if (!s->child)
		return;
	/* each stopped before its children are looked for, so none forks a
	 * new one meanwhile; a pass that stops none new is the last. Where
	 * /proc names pids other than ours (another PID namespace's), the
	 * child alone. */
	pid_t tree[MAX_TREE];
	size_t n = 0;
	kill(s->child, SIGSTOP);
	if (proc_self_pid() == getpid()) {
		for (int pass = 0; pass < 4; pass++) {
			pid_t found[MAX_TREE];
			size_t m = proc_descendants(s->child, found, MAX_TREE), fresh = 0;
			for (size_t i = 0; i < m && n < MAX_TREE; i++) {
				size_t k = 0;
				while (k < n && tree[k] != found[i])
					k++;
				if (k == n && found[i] != s->child) {
					kill(found[i], SIGSTOP);
					tree[n++] = found[i];
					fresh++;
				}
			}
			if (!fresh)
				break;
		}
	}
	for (size_t i = 0; i < n; i++)
		kill(tree[i], SIGKILL);
	kill(s->child, SIGKILL);
}

/* A held exit whose output has closed (or was abandoned): judged now. */
static void held_end(shim *s)
{
	if (!s->exit_held || s->child_out >= 0)
		return;
	s->exit_held = 0;
	child_exited(s, s->held_st, &s->held_ru);
}

/* ---- the loop ---- */

static const char *hello_arch(char **cmd)
{
	char path[4096];
	mg_arch a;
	if (spawn_resolve(path, sizeof(path), cmd[0], NULL) == 0 && elf_arch(&a, path, NULL) == 0)
		return a == MG_ARCH_X86 ? "x86" : "x64";
	return sizeof(void *) == 8 ? "x64" : "x86";
}

int shim_main(const shim_ops *ops, void *ctx, char **cmd, int ncmd)
{
	static shim s_;
	shim *s = &s_;
	/* first: its copy of us is what every test's memory starts from; a
	 * driver whose host may only list starts it when it knows */
	if (!ops->spawner_late)
		shim_spawner_start(s);
	s->ops = ops;
	s->ctx = ctx;
	s->cmd = cmd;
	s->ncmd = ncmd;
	s->child_out = -1;
	s->child_err = -1;
	s->pass_fd = -1;
	s->cmd_fd = MG_PROTO_CMD_FD;
	s->reply_fd = MG_PROTO_REPLY_FD;
	mg_lines_init(&s->lines, s->in, sizeof(s->in), MG_PROTO_LINE_MAX);
	if (!getenv(MG_ENV_HOST) || fcntl(s->cmd_fd, F_GETFD) < 0 ||
	    fcntl(s->reply_fd, F_GETFD) < 0) {
		fputs("memguard __driver: started outside memguard run (no protocol pipes)\n",
		      stderr);
		return 2;
	}
	/* the program must not inherit the protocol pipes */
	fcntl(s->cmd_fd, F_SETFD, FD_CLOEXEC);
	fcntl(s->reply_fd, F_SETFD, FD_CLOEXEC);
	uint64_t runner = env_u64(MG_ENV_HOST);
	s->version = runner >= MG_PROTO_VERSION ? MG_PROTO_VERSION
	             : runner >= 1              ? (unsigned)runner
	                                        : 1;
	mg_proto_mark_secret(s->secret, s->version);
	s->tree_root = proc_self_pid();
	if (ops->measure == SHIM_MEASURE_TREE && tree_new(&s->tree, MAX_TREE, NULL) < 0)
		return 3;
	char spawner[4096];
	if (s->tree && spawn_spawner_path(spawner, sizeof(spawner), NULL) == 0)
		tree_ours(s->tree, spawner); /* our spawner is no test's */
	if (ops->self_recycle) {
		s->recycle_va = env_u64(MG_ENV_RECYCLE_VA);
		s->recycle_rss = env_u64(MG_ENV_RECYCLE_RSS);
	}
	env_init(s);
	for (size_t i = 0; ops->env && ops->env[i]; i += 2)
		env_set(s, ops->env[i], ops->env[i + 1]);
	signal(SIGPIPE, SIG_IGN);
	if (pipe2(sigchld_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return 3;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigchld;
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	/* orphans of the program stay ours: sampled with the tree, reaped here */
	prctl(PR_SET_CHILD_SUBREAPER, 1);

	proc_sampler *self;
	uint64_t va = 0, rss = 0;
	/* TREE: the memory under test is the tree's, which holds no test yet
	 * (we are not one: an ASan build of us reserves terabytes) */
	if (ops->measure != SHIM_MEASURE_TREE && proc_sampler_open(&self, 0, NULL) == 0) {
		proc_sampler_read(self, &va, &rss);
		proc_sampler_free(self);
	}
	if (ops->hello)
		ops->hello(s, &va, &rss);
	mg_msg hello = {.kind = MG_MSG_HELLO,
	                .version = s->version,
	                .pid = (long)getpid(),
	                .va = va,
	                .rss = rss};
	const char *arch = ops->arch ? ops->arch(s) : NULL;
	snprintf(hello.arch, sizeof(hello.arch), "%s", arch ? arch : hello_arch(cmd));
	reply_add(s, &hello);
	reply_flush(s);

	for (;;) {
		while (!s->child && !s->exit_held && s->qlen && !s->quit_pending && !s->stopped) {
			size_t before = s->qlen;
			ops->begin(s);
			if (!s->child && s->qlen == before) {
				fputs("memguard __driver: driver made no progress\n", stderr);
				_exit(3);
			}
		}
		/* a program finishing on its own (its suite's tear-down, a leak
		 * check) is waited for: how it ends is part of the run */
		if (s->quit_pending && !s->started &&
		    !(s->child && !s->stopped && ops->finishing && ops->finishing(s)) &&
		    !(s->child && s->stopped && ops->finish_stopped && resume(s)) &&
		    !(s->child && s->parking))
			finish(s, 0);
		reply_flush(s);

		struct pollfd pf[4] = {{s->cmd_fd, POLLIN, 0},
		                       {s->child_out, POLLIN, 0},
		                       {sigchld_pipe[0], POLLIN, 0},
		                       {s->child_err, POLLIN, 0}};
		int timeout = -1;
		if (s->child && ops->measure == SHIM_MEASURE_TREE)
			timeout = s->tree_samples < 10 ? TREE_FAST_MS : TREE_MS;
		if (s->exit_held && (timeout < 0 || timeout > TREE_MS))
			timeout = TREE_MS; /* ops->tick's deadline */
		int grace = err_grace(s);
		if (grace >= 0 && (timeout < 0 || grace < timeout))
			timeout = grace;
		int r = poll(pf, 4, timeout);
		if (r < 0 && errno != EINTR)
			_exit(3);
		if (r == 0 && (s->child || s->exit_held) && ops->measure == SHIM_MEASURE_TREE)
			sample_program_tree(s);
		if (pf[0].revents && !read_commands(s)) {
			/* the runner has gone: quietly, and leave nothing behind */
			child_kill(s);
			_exit(0);
		}
		/* stderr first: what a test wrote there came before its result line */
		if (s->child_err >= 0 && pf[3].revents)
			read_err(s);
		if (s->child_out >= 0 && pf[1].revents && read_child(s) == 1 && s->probed &&
		    s->child && !s->quit_pending) {
			struct timespec pace = {0, PACE_US * 1000};
			nanosleep(&pace, NULL);
		}
		if ((s->child || s->exit_held) && ops->tick)
			ops->tick(s);
		held_end(s);
		if (pf[2].revents) {
			char tmp[64];
			while (read(sigchld_pipe[0], tmp, sizeof(tmp)) > 0)
				;
			mg_exit_end st;
			struct rusage ru;
			if (s->child && reap(s, 0, &st, &ru) == 1)
				child_exited(s, st, &ru);
			else if (!s->child)
				reap(s, 0, &st, &ru); /* adopted orphans only */
		}
	}
}

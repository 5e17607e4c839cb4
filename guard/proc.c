/*
 * proc.c - readers of /proc/PID: the statm sampler (hot path: one pread on a
 * kept-open fd, no allocation), status, and the process tree. Parsers are
 * defensive: malformed text is -1, a process that has gone is MG_EGONE.
 */
#include "proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Reads an unsigned decimal at *p (< end); advances *p. -1 if none or overflow. */
static int scan_u64(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	if (s >= end || *s < '0' || *s > '9')
		return -1;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		unsigned digit = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - digit) / 10)
			return -1;
		v = v * 10 + digit;
	}
	*p = s;
	*out = v;
	return 0;
}

static const char *skip_blanks(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

int proc_parse_statm(const char *buf, size_t len, uint64_t *size_pages, uint64_t *resident_pages)
{
	const char *p = buf, *end = buf + len;
	uint64_t size, resident;
	if (scan_u64(&p, end, &size))
		return -1;
	if (p >= end || *p != ' ')
		return -1;
	p = skip_blanks(p, end);
	if (scan_u64(&p, end, &resident))
		return -1;
	if (p < end && *p != ' ' && *p != '\n')
		return -1;
	*size_pages = size;
	*resident_pages = resident;
	return 0;
}

/* The fourth field of statm (text: the executable's code pages); 0 when
 * it is missing or malformed. */
static uint64_t statm_text(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	uint64_t v = 0;
	for (int field = 0; field < 4; field++) {
		p = skip_blanks(p, end);
		if (scan_u64(&p, end, &v))
			return 0;
	}
	return v;
}

/* Parses the value of a "Key:\t  123 kB" line into bytes (kB) or a number. */
static int status_value(const char *p, const char *end, int kb, uint64_t *out)
{
	uint64_t v;
	p = skip_blanks(p, end);
	if (scan_u64(&p, end, &v))
		return -1;
	p = skip_blanks(p, end);
	if (kb) {
		if (end - p < 2 || p[0] != 'k' || p[1] != 'B')
			return -1;
		p += 2;
		if (v > UINT64_MAX / 1024)
			return -1;
		v *= 1024;
	}
	if (skip_blanks(p, end) != end)
		return -1;
	*out = v;
	return 0;
}

int proc_parse_status(const char *buf, size_t len, proc_status *out)
{
	static const struct {
		const char *key;
		int kb;
	} keys[] = {{"VmPeak:", 1}, {"VmSize:", 1}, {"VmHWM:", 1}, {"VmRSS:", 1}, {"PPid:", 0}};
	proc_status st = {0};
	const char *p = buf, *end = buf + len;
	if (len == 0)
		return -1;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		if (!memchr(p, ':', (size_t)(eol - p)) && eol > p)
			return -1; /* every status line is "Key: value" */
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			size_t kl = strlen(keys[k].key);
			if ((size_t)(eol - p) < kl || memcmp(p, keys[k].key, kl) != 0)
				continue;
			uint64_t v;
			if (status_value(p + kl, eol, keys[k].kb, &v))
				return -1;
			switch (k) {
			case 0:
				st.vm_peak = v;
				break;
			case 1:
				st.vm_size = v;
				break;
			case 2:
				st.vm_hwm = v;
				break;
			case 3:
				st.vm_rss = v;
				break;
			default:
				if (v > INT32_MAX)
					return -1;
				st.ppid = (pid_t)v;
				break;
			}
			break;
		}
		p = eol + 1;
	}
	*out = st;
	return 0;
}

/* "/proc/PID/name", or "/proc/self/name" for pid 0. */
static void proc_path(char *buf, size_t size, pid_t pid, const char *name)
{
	if (pid == 0)
		snprintf(buf, size, "/proc/self/%s", name);
	else
		snprintf(buf, size, "/proc/%d/%s", (int)pid, name);
}

static int gone_errno(int e)
{
	return e == ENOENT || e == ESRCH;
}

/*
 * Reads a small /proc file whole into buf (at most size - 1 bytes, NUL
 * terminated). If the file is larger, the last partial line is dropped.
 * Returns the length, MG_EGONE if the process is gone, MG_ERROR else.
 */
static ssize_t read_small(const char *path, char *buf, size_t size, mg_err *err)
{
	ssize_t total = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		return gone_errno(e) ? mg_err_set(err, MG_EGONE, "%s: process has gone", path)
		                     : mg_err_set(err, MG_ERROR, "open %s: %s", path, strerror(e));
	}
	while ((size_t)total < size - 1) {
		ssize_t n = read(fd, buf + total, size - 1 - (size_t)total);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			total = gone_errno(e)
			            ? mg_err_set(err, MG_EGONE, "%s: process has gone", path)
			            : mg_err_set(err, MG_ERROR, "read %s: %s", path, strerror(e));
			goto out;
		}
		if (n == 0)
			break;
		total += n;
	}
	if ((size_t)total == size - 1) {
		char *nl = memrchr(buf, '\n', (size_t)total);
		total = nl ? nl - buf + 1 : 0;
	}
	buf[total] = '\0';
out:
	close(fd);
	return total;
}

int proc_read_status(proc_status *out, pid_t pid, mg_err *err)
{
	char path[64], buf[8192];
	proc_path(path, sizeof(path), pid, "status");
	ssize_t n = read_small(path, buf, sizeof(buf), err);
	if (n < 0)
		return (int)n;
	if (n == 0)
		return mg_err_set(err, MG_EGONE, "%s: empty, process has gone", path);
	if (proc_parse_status(buf, (size_t)n, out))
		return mg_err_set(err, MG_ERROR, "%s: malformed", path);
	return 0;
}

struct proc_sampler {
	int fd;
	pid_t pid;
	uint64_t page;
	uint64_t text; /* code bytes at the last read: changes when the process execs */
};

int proc_sampler_open(proc_sampler **out, pid_t pid, mg_err *err)
{
	char path[64];
	proc_sampler *s = NULL;
	int fd = -1, rc = 0;
	*out = NULL;
	proc_path(path, sizeof(path), pid, "statm");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		rc = gone_errno(e) ? mg_err_set(err, MG_EGONE, "%s: process has gone", path)
		                   : mg_err_set(err, MG_ERROR, "open %s: %s", path, strerror(e));
		goto fail;
	}
	s = malloc(sizeof(*s));
	if (!s) {
		rc = mg_err_set(err, MG_ERROR, "out of memory");
		goto fail;
	}
	s->fd = fd;
	s->pid = pid;
	s->page = proc_page_size();
	s->text = 0;
	*out = s;
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	free(s);
	return rc;
}

/*
 * The hot path. Cost: one pread syscall (1.5-1.8 us here whatever the size
 * of the target: statm reads counters, it does not walk the mappings) and a
 * parse of ~30 bytes on the stack. The kept fd is bound to the process, not
 * to its pid number: once the process is reaped, reads fail (ESRCH or 0
 * bytes) even if the number is reused. A zombie reads as all zeros; no live
 * user process has a VA size of 0, so that is "gone" too.
 */
int proc_sampler_read(proc_sampler *s, uint64_t *va, uint64_t *rss)
{
	char buf[128];
	uint64_t size, resident;
	ssize_t n;
	do
		n = pread(s->fd, buf, sizeof(buf), 0);
	while (n < 0 && errno == EINTR);
	if (n == 0 || (n < 0 && gone_errno(errno)))
		return MG_EGONE;
	if (n < 0)
		return MG_ERROR;
	if (proc_parse_statm(buf, (size_t)n, &size, &resident))
		return MG_ERROR;
	if (size == 0)
		return MG_EGONE;
	*va = size * s->page;
	*rss = resident * s->page;
	s->text = statm_text(buf, (size_t)n) * s->page;
	return 0;
}

uint64_t proc_sampler_text(const proc_sampler *s)
{
	return s->text;
}

void proc_sampler_free(proc_sampler *s)
{
	if (!s)
		return;
	close(s->fd);
	free(s);
}

int proc_parse_stat_ppid(const char *buf, size_t len, pid_t *ppid)
{
	/* "PID (COMM) S PPID ...": COMM may hold anything, ") " included, so
	 * the state follows the last ')'. */
	const char *end = buf + len;
	const char *rp = memrchr(buf, ')', len);
	uint64_t v;
	if (!rp || memchr(buf, '(', len) == NULL)
		return -1;
	const char *p = rp + 1;
	if (end - p < 4 || p[0] != ' ' || p[2] != ' ')
		return -1;
	p += 3;
	if (scan_u64(&p, end, &v) || v > INT32_MAX)
		return -1;
	*ppid = (pid_t)v;
	return 0;
}

int proc_parse_stat_run(const char *buf, size_t len, proc_run *out)
{
	/* "PID (COMM) S PPID PGRP SESSION TTY TPGID FLAGS MINFLT CMINFLT MAJFLT
	 * CMAJFLT UTIME STIME ...": the state follows the last ')' */
	const char *end = buf + len;
	const char *rp = memrchr(buf, ')', len);
	uint64_t v, utime = 0;
	if (!rp || memchr(buf, '(', len) == NULL)
		return -1;
	const char *p = rp + 1;
	if (end - p < 4 || p[0] != ' ' || p[2] != ' ')
		return -1;
	out->state = p[1];
	p += 3;
	for (int field = 4; field <= 15; field++) {
		while (p < end && *p == ' ')
			p++;
		if (field == 7 || field == 8) { /* tty_nr, tpgid: may be negative */
			if (p < end && *p == '-')
				p++;
		}
		if (scan_u64(&p, end, &v))
			return -1;
		if (field == 14)
			utime = v;
	}
	out->cpu_ticks = utime + v;
	return 0;
}

int proc_read_run(pid_t pid, proc_run *out)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	ssize_t n = read_small(path, buf, sizeof(buf), NULL);
	if (n < 0)
		return (int)n;
	return proc_parse_stat_run(buf, (size_t)n, out) < 0 ? MG_ERROR : 0;
}

/* A growable list of pids; the traversal is not on the hot path. */
typedef struct pid_list {
	pid_t *v;
	size_t n, cap;
} pid_list;

static int pid_list_push(pid_list *l, pid_t pid)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i] == pid)
			return 0; /* a pid seen twice (reuse race): keep one */
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		pid_t *v = realloc(l->v, cap * sizeof(*v));
		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = pid;
	return 0;
}

static int is_pid_name(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

/* Appends the children of pid, listed in /proc/PID/task/TID/children of each
 * of its threads (a child is listed under the thread that forked it). */
static int children_of(pid_list *l, pid_t pid)
{
	char path[320], buf[4096];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return 0; /* gone: no children */
	int rc = 0;
	struct dirent *e;
	while (rc == 0 && (e = readdir(d)) != NULL) {
		if (!is_pid_name(e->d_name))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/children", (int)pid, e->d_name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue; /* the thread exited meanwhile */
		/* "123 456 " read in pieces: a carry keeps a pid that straddles
		 * two reads. */
		size_t have = 0;
		for (;;) {
			ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				n = 0;
			const char *p = buf, *end = buf + have + (size_t)n;
			for (;;) {
				while (p < end && (*p < '0' || *p > '9'))
					p++;
				const char *q = p;
				uint64_t v;
				if (scan_u64(&q, end, &v))
					break;
				if (q == end && n > 0)
					break; /* the number may go on in the next read */
				if (v > 0 && v <= INT32_MAX && pid_list_push(l, (pid_t)v))
					rc = -1;
				p = q;
			}
			have = (size_t)(end - p);
			memmove(buf, p, have);
			if (n == 0)
				break;
		}
		close(fd);
	}
	closedir(d);
	return rc;
}

size_t proc_children(pid_t pid, pid_t *out, size_t cap)
{
	pid_list kids = {0};
	children_of(&kids, pid);
	size_t found = kids.n;
	for (size_t i = 0; i < found && i < cap; i++)
		out[i] = kids.v[i];
	free(kids.v);
	return found;
}

int proc_kids_open(proc_kids *k, pid_t pid)
{
	char path[64];
	k->pid = pid;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	k->task_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)pid);
	k->kids_fd = k->task_fd < 0 ? -1 : open(path, O_RDONLY | O_CLOEXEC);
	if (k->kids_fd < 0) {
		proc_kids_close(k);
		return -1;
	}
	return 0;
}

size_t proc_kids_read(const proc_kids *k, pid_t *out, size_t cap)
{
	struct stat st;
	char buf[4096];
	if (k->kids_fd < 0 || fstat(k->task_fd, &st) != 0)
		return proc_children(k->pid, out, cap);
	if (st.st_nlink != 3) /* 2 + threads: not one thread (or gone: none) */
		return st.st_nlink < 3 ? 0 : proc_children(k->pid, out, cap);
	ssize_t n = pread(k->kids_fd, buf, sizeof(buf), 0);
	if (n < 0)
		return 0; /* gone */
	if ((size_t)n == sizeof(buf))
		return proc_children(k->pid, out, cap); /* more than fit: read in pieces */
	size_t found = 0;
	for (const char *p = buf, *end = buf + n;;) {
		while (p < end && (*p < '0' || *p > '9'))
			p++;
		uint64_t v;
		if (scan_u64(&p, end, &v))
			break;
		if (v > 0 && v <= INT32_MAX) {
			if (found < cap)
				out[found] = (pid_t)v;
			found++;
		}
	}
	return found;
}

void proc_kids_close(proc_kids *k)
{
	if (k->task_fd >= 0)
		close(k->task_fd);
	if (k->kids_fd >= 0)
		close(k->kids_fd);
	k->task_fd = k->kids_fd = -1;
}

/* Copies the first cap entries of all (from index 1: 0 is the root). */
static size_t list_out(const pid_list *all, pid_t *out, size_t cap)
{
	size_t found = all->n - 1;
	for (size_t i = 0; i < found && i < cap; i++)
		out[i] = all->v[i + 1];
	return found;
}

size_t proc_descendants_scan(pid_t pid, pid_t *out, size_t cap)
{
	pid_list procs = {0}, parents = {0}, all = {0};
	size_t found = 0;
	DIR *d = opendir("/proc");
	if (!d)
		goto out;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		char path[300], buf[1024];
		if (!is_pid_name(e->d_name))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		ssize_t n = read_small(path, buf, sizeof(buf), NULL);
		pid_t ppid;
		if (n <= 0 || proc_parse_stat_ppid(buf, (size_t)n, &ppid))
			continue;
		/* procs and parents are parallel arrays: push without dedup. */
		if (procs.n == procs.cap) {
			size_t c = procs.cap ? procs.cap * 2 : 256;
			pid_t *a = realloc(procs.v, c * sizeof(pid_t));
			if (!a)
				goto out;
			procs.v = a;
			pid_t *b = realloc(parents.v, c * sizeof(pid_t));
			if (!b)
				goto out;
			parents.v = b;
			procs.cap = parents.cap = c;
		}
		procs.v[procs.n++] = (pid_t)atoi(e->d_name);
		parents.v[parents.n++] = ppid;
	}
	if (pid_list_push(&all, pid))
		goto out;
	for (size_t i = 0; i < all.n; i++)
		for (size_t j = 0; j < procs.n; j++)
			if (parents.v[j] == all.v[i] && pid_list_push(&all, procs.v[j]))
				goto out;
	found = list_out(&all, out, cap);
out:
	if (d)
		closedir(d);
	free(procs.v);
	free(parents.v);
	free(all.v);
	return found;
}

int proc_has_children_files(void)
{
	/* The children files exist only with CONFIG_PROC_CHILDREN: asked once */
	static int has = -1;
	if (has < 0)
		has = access("/proc/thread-self/children", F_OK) == 0;
	return has;
}

size_t proc_descendants(pid_t pid, pid_t *out, size_t cap)
{
	pid_list all = {0};
	size_t found = 0;
	if (!proc_has_children_files())
		return proc_descendants_scan(pid, out, cap);
	if (pid_list_push(&all, pid))
		goto out;
	for (size_t i = 0; i < all.n; i++)
		if (children_of(&all, all.v[i]))
			break;
	found = list_out(&all, out, cap);
out:
	free(all.v);
	return found;
}

size_t proc_parse_nspid(const char *buf, size_t len, pid_t *out, size_t cap)
{
	const char *end = buf + len, *p = buf;
	while (p < end &&
	       !(end - p >= 6 && !memcmp(p, "NSpid:", 6) && (p == buf || p[-1] == '\n'))) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		p = nl ? nl + 1 : end;
	}
	if (p >= end)
		return 0;
	size_t n = 0;
	for (p += 6; p < end && *p != '\n';) {
		if (*p == ' ' || *p == '\t') {
			p++;
			continue;
		}
		uint64_t v = 0;
		const char *q = p;
		while (p < end && *p >= '0' && *p <= '9' && v <= INT32_MAX)
			v = v * 10 + (uint64_t)(*p++ - '0');
		if (p == q || v > INT32_MAX || (p < end && *p != ' ' && *p != '\t' && *p != '\n'))
			return 0; /* malformed: no namespace view at all */
		if (n < cap)
			out[n] = (pid_t)v;
		n++;
	}
	return n;
}

pid_t proc_self_pid(void)
{
	static pid_t cached_for, self; /* a fork must not keep its parent's */
	pid_t me = getpid();
	if (cached_for != me) {
		char buf[32];
		ssize_t n = readlink("/proc/self", buf, sizeof(buf) - 1);
		long v = 0;
		if (n > 0) {
			buf[n] = 0;
			v = strtol(buf, NULL, 10);
		}
		self = v > 0 && v <= INT32_MAX ? (pid_t)v : me;
		cached_for = me;
	}
	return self;
}

/* The NSpid pids of /proc/PID/status (0: self) into out; how many. */
static size_t nspids(pid_t pid, pid_t *out, size_t cap)
{
	char path[64], buf[8192];
	proc_path(path, sizeof(path), pid, "status");
	ssize_t n = read_small(path, buf, sizeof(buf), NULL);
	return n > 0 ? proc_parse_nspid(buf, (size_t)n, out, cap) : 0;
}

pid_t proc_child_pid(pid_t pid)
{
	pid_t self = proc_self_pid(), mine[32], theirs[33];
	if (self == getpid())
		return pid;
	/* our level: the last of our NSpid pids is getpid() */
	size_t level = nspids(0, mine, 32);
	if (level == 0 || level > 32)
		return -1;
	pid_list kids = {0};
	pid_t found = -1;
	children_of(&kids, self);
	for (size_t i = 0; i < kids.n && found < 0; i++) {
		size_t n = nspids(kids.v[i], theirs, 33);
		if (n >= level && n <= 33 && theirs[level - 1] == pid)
			found = kids.v[i];
	}
	free(kids.v);
	return found;
}

uint64_t proc_ram_bytes(void)
{
	long pages = sysconf(_SC_PHYS_PAGES);
	return pages > 0 ? (uint64_t)pages * proc_page_size() : 0;
}

uint64_t proc_page_size(void)
{
	static uint64_t page;
	if (!page) {
		long p = sysconf(_SC_PAGESIZE);
		page = p > 0 ? (uint64_t)p : 4096;
	}
	return page;
}

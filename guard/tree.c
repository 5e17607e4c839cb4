/*
 * tree.c - kept-open statm samplers of a process tree (see tree.h), and
 * the children files each process is found by. No allocation after
 * tree_new (but for a process of several threads: proc_children): the
 * sampling path only preads, and opens files only for a process it has
 * not seen.
 */
#include "tree.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "mg_elf.h"
#include "proc.h"

struct tree {
	size_t n, max;
	proc_sampler **sampler;
	pid_t *pid;
	mg_arch *arch;   /* read from /proc/PID/exe */
	uint64_t *text;  /* the code size when the arch was read */
	uint64_t *va;    /* and the VA then (an exec's cue for one still ours) */
	char *ours;      /* still memguard's own program (forked, not yet exec'd) */
	proc_kids *kids; /* each one's children files, kept open */
	proc_kids root;  /* the root's (pid 0: none yet) */
	pid_t *found;    /* scratch for the descendants found */
	int kids_fd_cap; /* children files kept only below this fd: half the table */
	dev_t self_dev;  /* memguard's own executable */
	ino_t self_ino;
	/* and its driver shim's and spawner's, when those are others (tree_ours) */
	dev_t other_dev[TREE_OURS_MAX];
	ino_t other_ino[TREE_OURS_MAX];
	int nother;
};

/* Whether pid runs memguard's own executable: a driver shim's child
 * between its fork and its exec (an ASan build of memguard reserves
 * terabytes there), which is not the program under test yet. */
int tree_is_ours(const tree *t, pid_t pid)
{
	char path[64];
	struct stat st;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (!t->self_ino || stat(path, &st) != 0)
		return 0;
	if (st.st_dev == t->self_dev && st.st_ino == t->self_ino)
		return 1;
	for (int i = 0; i < t->nother; i++)
		if (st.st_dev == t->other_dev[i] && st.st_ino == t->other_ino[i])
			return 1;
	return 0;
}

void tree_ours(tree *t, const char *exe)
{
	struct stat st;
	if (exe && t->nother < TREE_OURS_MAX && stat(exe, &st) == 0) {
		t->other_dev[t->nother] = st.st_dev;
		t->other_ino[t->nother++] = st.st_ino;
	}
}

int tree_new(tree **out, size_t max, mg_err *err)
{
	tree *t = calloc(1, sizeof(*t));
	if (t) {
		t->max = max;
		t->sampler = calloc(max ? max : 1, sizeof(*t->sampler));
		t->pid = calloc(max ? max : 1, sizeof(*t->pid));
		t->arch = calloc(max ? max : 1, sizeof(*t->arch));
		t->text = calloc(max ? max : 1, sizeof(*t->text));
		t->va = calloc(max ? max : 1, sizeof(*t->va));
		t->ours = calloc(max ? max : 1, sizeof(*t->ours));
		t->kids = calloc(max ? max : 1, sizeof(*t->kids));
		t->found = calloc(max ? max : 1, sizeof(*t->found));
		t->root = (proc_kids){0, -1, -1};
	}
	if (!t || !t->sampler || !t->pid || !t->arch || !t->text || !t->va || !t->ours ||
	    !t->kids || !t->found) {
		tree_free(t);
		return mg_err_set(err, MG_ERROR, "out of memory");
	}
	struct rlimit nofile;
	t->kids_fd_cap = getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < 2u * INT_MAX
	                     ? (int)(nofile.rlim_cur / 2)
	                     : INT_MAX;
	struct stat st;
	if (stat("/proc/self/exe", &st) == 0) {
		t->self_dev = st.st_dev;
		t->self_ino = st.st_ino;
	}
	*out = t;
	return 0;
}

/* Forgets process k: the last takes its place. */
static void drop(tree *t, size_t k)
{
	proc_sampler_free(t->sampler[k]);
	proc_kids_close(&t->kids[k]);
	t->n--;
	t->sampler[k] = t->sampler[t->n];
	t->kids[k] = t->kids[t->n];
	t->pid[k] = t->pid[t->n];
	t->arch[k] = t->arch[t->n];
	t->text[k] = t->text[t->n];
	t->va[k] = t->va[t->n];
	t->ours[k] = t->ours[t->n];
}

void tree_read(tree *t, tree_sample *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t k = 0; k < t->n; k++) {
		uint64_t va, rss;
		if (proc_sampler_read(t->sampler[k], &va, &rss) < 0) {
			/* gone (its pid may come back as another process: reopen then) */
			drop(t, k--);
			continue;
		}
		uint64_t text = proc_sampler_text(t->sampler[k]);
		if (tree_image_changed(text, va, t->text[k], t->va[k], t->ours[k])) {
			/* a new image (an exec, or first seen): its arch and whether it
			 * is still ours are read from /proc/PID/exe, then its figures
			 * again, so that they are of the image judged (figures read
			 * before our fork's exec and judged after it would count
			 * memguard's own VA); an image that changed meanwhile is judged
			 * at the next read */
			if (elf_arch_of_pid(&t->arch[k], t->pid[k], NULL) < 0)
				t->arch[k] = MG_ARCH_UNKNOWN;
			t->ours[k] = (char)tree_is_ours(t, t->pid[k]);
			if (proc_sampler_read(t->sampler[k], &va, &rss) < 0) {
				drop(t, k--);
				continue;
			}
			if (proc_sampler_text(t->sampler[k]) != text) {
				t->text[k] = 0;
				continue;
			}
			t->text[k] = text;
			t->va[k] = va;
		}
		if (t->ours[k])
			continue;
		out->n++;
		out->rss += rss;
		if (va > out->va_max) {
			out->va_max = va;
			out->va_max_pid = t->pid[k];
		}
		if (va > out->va_of[t->arch[k]]) {
			out->va_of[t->arch[k]] = va;
			out->va_of_pid[t->arch[k]] = t->pid[k];
		}
	}
}

/*
 * root's descendants into t->found (at most t->max; returns how many
 * there were), breadth first as proc_descendants, but by the children
 * files kept open for the root and for each process the tree holds: a
 * steady tree of one-thread processes costs an fstat and a pread a
 * process, not an open, a listing and a close of its task directory and
 * of each thread's file.
 */
static size_t descendants(tree *t, pid_t root)
{
	if (t->root.pid != root) {
		proc_kids_close(&t->root);
		if (proc_kids_open(&t->root, root) < 0)
			t->root.pid = root; /* its fds -1: proc_children each time */
	}
	size_t total = proc_kids_read(&t->root, t->found, t->max);
	size_t n = total < t->max ? total : t->max;
	for (size_t i = 0; i < n; i++) {
		size_t k = 0, room = t->max - n;
		while (k < t->n && t->pid[k] != t->found[i])
			k++;
		size_t got = k < t->n ? proc_kids_read(&t->kids[k], t->found + n, room)
		                      : proc_children(t->found[i], t->found + n, room);
		total += got;
		n += got < room ? got : room;
	}
	return total;
}

void tree_scan(tree *t, pid_t root, tree_sample *out)
{
	size_t n = proc_has_children_files() ? descendants(t, root)
	                                     : proc_descendants(root, t->found, t->max);
	if (n > t->max)
		n = t->max;
	/* drop the samplers of processes that left the tree */
	for (size_t k = 0; k < t->n;) {
		size_t i = 0;
		while (i < n && t->found[i] != t->pid[k])
			i++;
		if (i < n)
			k++;
		else
			drop(t, k);
	}
	/* open the new ones */
	for (size_t i = 0; i < n && t->n < t->max; i++) {
		size_t k = 0;
		while (k < t->n && t->pid[k] != t->found[i])
			k++;
		if (k < t->n || proc_sampler_open(&t->sampler[t->n], t->found[i], NULL) < 0)
			continue;
		/* two fds a process: kept only while half the fd table is free
		 * (a wide tree under a low limit must leave the run its pipes) */
		proc_kids *kk = &t->kids[t->n];
		if (proc_kids_open(kk, t->found[i]) < 0 || kk->kids_fd >= t->kids_fd_cap) {
			proc_kids_close(kk);
			kk->pid = t->found[i]; /* its fds -1: proc_children */
		}
		t->arch[t->n] = MG_ARCH_UNKNOWN;
		t->text[t->n] = 0;
		t->ours[t->n] = 0;
		t->pid[t->n++] = t->found[i];
	}
	tree_read(t, out);
}

void tree_free(tree *t)
{
	if (!t)
		return;
	for (size_t k = 0; k < t->n; k++) {
		proc_sampler_free(t->sampler[k]);
		proc_kids_close(&t->kids[k]);
	}
	proc_kids_close(&t->root);
	free(t->sampler);
	free(t->kids);
	free(t->pid);
	free(t->arch);
	free(t->text);
	free(t->va);
	free(t->ours);
	free(t->found);
	free(t);
}

/*
 * maps.c - the address-space breakdown from /proc/PID/maps or smaps: bytes
 * per category, the largest groups of like mappings, the largest free gap.
 * Diagnosis only: allocates, O(mappings); never call it from the sampler.
 */
#include "maps.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* mmap_min_addr: nothing can be mapped below it. */
#define MAPS_FLOOR 0x10000ULL
#define GUARD_PAGE 4096ULL

static const char *const cat_names[MAPS_NCATS] = {
    [MAPS_HEAP] = "heap", [MAPS_STACK] = "stack",       [MAPS_SHM] = "shm",   [MAPS_FILE] = "file",
    [MAPS_CODE] = "code", [MAPS_RESERVED] = "reserved", [MAPS_ANON] = "anon",
};

/* One mapping as the grouping needs it; name points into the text. */
typedef struct entry {
	const char *name;
	size_t name_len;
	uint64_t size;
} entry;

/* The previous mapping, for thread-stack detection. */
typedef struct prev_map {
	uint64_t start, end;
	int anon_reserved; /* anonymous ---p */
} prev_map;

static int starts_with(const char *s, size_t len, const char *prefix)
{
	size_t pl = strlen(prefix);
	return len >= pl && memcmp(s, prefix, pl) == 0;
}

static int equals(const char *s, size_t len, const char *word)
{
	return strlen(word) == len && memcmp(s, word, len) == 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Reads hex digits at *p; -1 if none or more than 16. */
static int scan_hex(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int n = 0;
	for (; s < end && hexval(*s) >= 0; s++, n++)
		v = v << 4 | (uint64_t)hexval(*s);
	if (n == 0 || n > 16)
		return -1;
	*p = s;
	*out = v;
	return 0;
}

/* Skips one field: non-blanks, then blanks. -1 if the field is empty. */
static int skip_field(const char **p, const char *end)
{
	const char *s = *p;
	while (s < end && *s != ' ')
		s++;
	if (s == *p)
		return -1;
	while (s < end && *s == ' ')
		s++;
	*p = s;
	return 0;
}

/* Is the line a mapping header ("start-end perms ...")? smaps has other
 * lines ("Rss:  12 kB", "VmFlags: rd wr"), none of which is hex then '-'. */
static int is_header(const char *p, const char *eol)
{
	while (p < eol && hexval(*p) >= 0)
		p++;
	return p < eol && *p == '-';
}

/* Is the line an smaps field ("Name: ...", the name of letters, digits
 * and '_', starting with a letter)? */
static int is_field(const char *p, const char *eol)
{
	const char *s = p;
	if (s == eol || !((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z')))
		return 0;
	while (s < eol && ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
	                   (*s >= '0' && *s <= '9') || *s == '_'))
		s++;
	return s < eol && *s == ':';
}

static int is_anon_name(const char *name, size_t len)
{
	return len == 0 || starts_with(name, len, "[anon:");
}

static int category_of(const char *perms, const char *name, size_t len, uint64_t start,
                       const prev_map *prev)
{
	if (equals(name, len, "[heap]"))
		return MAPS_HEAP;
	if (equals(name, len, "[stack]") || starts_with(name, len, "[stack:"))
		return MAPS_STACK;
	if (equals(name, len, "[vdso]") || equals(name, len, "[vvar]") ||
	    equals(name, len, "[vsyscall]") || equals(name, len, "[vvar_vclock]"))
		return MAPS_CODE;
	if (perms[3] == 's' || starts_with(name, len, "/dev/shm/") ||
	    starts_with(name, len, "/memfd:") || starts_with(name, len, "/SYSV") ||
	    starts_with(name, len, "[anon_shmem:"))
		return MAPS_SHM;
	if (!is_anon_name(name, len) && name[0] != '[')
		return perms[2] == 'x' ? MAPS_CODE : MAPS_FILE;
	/* anonymous (and unknown [names]) */
	if (perms[0] == '-' && perms[1] == '-' && perms[2] == '-')
		return MAPS_RESERVED;
	if (perms[0] == 'r' && perms[1] == 'w' && prev->anon_reserved && prev->end == start &&
	    prev->end - prev->start == GUARD_PAGE)
		return MAPS_STACK;
	return MAPS_ANON;
}

static int entry_cmp(const void *a, const void *b)
{
	const entry *x = a, *y = b;
	size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
	int c = memcmp(x->name, y->name, n);
	if (c)
		return c;
	if (x->name_len != y->name_len)
		return x->name_len < y->name_len ? -1 : 1;
	return x->size < y->size ? -1 : x->size > y->size;
}

/* Is group a larger than b (by total, then count, then name)? */
static int group_larger(const maps_group *a, const maps_group *b)
{
	uint64_t ta = a->size * a->count, tb = b->size * b->count;
	if (ta != tb)
		return ta > tb;
	if (a->count != b->count)
		return a->count > b->count;
	return strcmp(a->name, b->name) < 0;
}

/* Keeps the 8 largest groups in out->groups, largest first. */
static void groups_offer(maps_breakdown *out, const entry *e, uint64_t count)
{
	maps_group g;
	snprintf(g.name, sizeof(g.name), "%.*s", (int)e->name_len, e->name);
	g.size = e->size;
	g.count = count;
	size_t cap = sizeof(out->groups) / sizeof(out->groups[0]);
	size_t i = out->ngroups;
	if (i == cap) {
		if (!group_larger(&g, &out->groups[cap - 1]))
			return;
		i = cap - 1;
	} else {
		out->ngroups++;
	}
	while (i > 0 && group_larger(&g, &out->groups[i - 1])) {
		out->groups[i] = out->groups[i - 1];
		i--;
	}
	out->groups[i] = g;
}

static int build_groups(maps_breakdown *out, entry *v, size_t n)
{
	qsort(v, n, sizeof(*v), entry_cmp);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && entry_cmp(&v[i], &v[j]) == 0)
			j++;
		groups_offer(out, &v[i], j - i);
		i = j;
	}
	return 0;
}

/* The parser behind maps_parse; groups only when want_groups. */
static int parse(maps_breakdown *out, const char *text, size_t len, uint64_t ceiling,
                 int want_groups)
{
	const char *p = text, *end = text + len;
	entry *entries = NULL;
	size_t nentries = 0;
	int rc = 0, cur = -1; /* the category of the current mapping, for Rss: */
	prev_map prev = {0, 0, 0};
	uint64_t cursor = MAPS_FLOOR;

	memset(out, 0, sizeof(*out));
	out->ncats = MAPS_NCATS;
	for (int c = 0; c < MAPS_NCATS; c++)
		out->cats[c].name = cat_names[c];
	if (want_groups) {
		/* one entry per mapping: smaps has ~25 lines per mapping */
		size_t headers = 1;
		for (const char *q = text; q < end;) {
			const char *nl = memchr(q, '\n', (size_t)(end - q));
			const char *eol = nl ? nl : end;
			headers += is_header(q, eol);
			q = eol + 1;
		}
		entries = malloc(headers * sizeof(*entries));
		if (!entries)
			return MG_ERROR;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		const char *line = p;
		p = nl ? nl + 1 : end;
		if (eol == line)
			continue;
		if (!is_header(line, eol)) {
			/* an smaps field: only Rss matters */
			if (!is_field(line, eol))
				goto malformed;
			if (starts_with(line, (size_t)(eol - line), "Rss:") && cur >= 0) {
				uint64_t kb = 0;
				const char *q = line + 4;
				while (q < eol && *q == ' ')
					q++;
				if (q == eol || *q < '0' || *q > '9')
					goto malformed;
				for (; q < eol && *q >= '0' && *q <= '9'; q++)
					if (kb < (1ULL << 50))
						kb = kb * 10 + (uint64_t)(*q - '0');
				out->cats[cur].rss += kb * 1024;
			}
			continue;
		}
		uint64_t start, stop;
		const char *q = line;
		if (scan_hex(&q, eol, &start) || q >= eol || *q != '-')
			goto malformed;
		q++;
		if (scan_hex(&q, eol, &stop) || q >= eol || *q != ' ' || stop < start)
			goto malformed;
		q++;
		const char *perms = q;
		if (eol - q < 5 || q[4] != ' ')
			goto malformed;
		/* perms, offset, dev, inode, then the name (may hold blanks) */
		for (int f = 0; f < 4; f++)
			if (skip_field(&q, eol))
				goto malformed;
		const char *name = q;
		size_t name_len = (size_t)(eol - q);
		if (name_len > 10 && memcmp(name + name_len - 10, " (deleted)", 10) == 0)
			name_len -= 10;
		cur = -1;
		if (start >= ceiling)
			continue;
		if (stop > ceiling)
			stop = ceiling;
		uint64_t size = stop - start;
		cur = category_of(perms, name, name_len, start, &prev);
		out->cats[cur].va += size;
		out->va += size;
		prev.start = start;
		prev.end = stop;
		prev.anon_reserved = cur == MAPS_RESERVED && is_anon_name(name, name_len);
		if (start > cursor && start - cursor > out->largest_gap)
			out->largest_gap = start - cursor;
		if (stop > cursor)
			cursor = stop;
		if (want_groups) {
			if (is_anon_name(name, name_len)) {
				name = "[anon]";
				name_len = 6;
			}
			entries[nentries++] = (entry){name, name_len, size};
		}
	}
	if (ceiling > cursor && ceiling - cursor > out->largest_gap)
		out->largest_gap = ceiling - cursor;
	if (want_groups)
		rc = build_groups(out, entries, nentries);
	free(entries);
	return rc;
malformed:
	free(entries);
	return MG_EINVAL;
}

int maps_parse(maps_breakdown *out, const char *text, size_t len, uint64_t ceiling)
{
	return parse(out, text, len, ceiling, 1);
}

/* Reads /proc/PID/NAME whole into a malloc'd buffer. MG_EGONE if the
 * process has gone (or the file is empty: a zombie has no mappings). */
static int read_whole(char **out, size_t *len, pid_t pid, const char *name, mg_err *err)
{
	char path[64];
	char *buf = NULL;
	size_t used = 0, cap = 64 * 1024;
	int fd = -1, rc = 0;
	if (pid == 0)
		snprintf(path, sizeof(path), "/proc/self/%s", name);
	else
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		rc = e == ENOENT || e == ESRCH
		         ? mg_err_set(err, MG_EGONE, "%s: process has gone", path)
		         : mg_err_set(err, MG_ERROR, "open %s: %s", path, strerror(e));
		goto fail;
	}
	buf = malloc(cap);
	if (!buf)
		goto oom;
	for (;;) {
		if (used == cap) {
			char *b = realloc(buf, cap * 2);
			if (!b)
				goto oom;
			buf = b;
			cap *= 2;
		}
		ssize_t n = read(fd, buf + used, cap - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			rc = e == ESRCH
			         ? mg_err_set(err, MG_EGONE, "%s: process has gone", path)
			         : mg_err_set(err, MG_ERROR, "read %s: %s", path, strerror(e));
			goto fail;
		}
		if (n == 0)
			break;
		used += (size_t)n;
	}
	if (used == 0) {
		rc = mg_err_set(err, MG_EGONE, "%s: empty, process has gone", path);
		goto fail;
	}
	close(fd);
	*out = buf;
	*len = used;
	return 0;
oom:
	rc = mg_err_set(err, MG_ERROR, "%s: out of memory", path);
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return rc;
}

static int read_and_parse(maps_breakdown *out, pid_t pid, uint64_t ceiling, const char *name,
                          int want_groups, mg_err *err)
{
	char *text = NULL;
	size_t len = 0;
	int rc = read_whole(&text, &len, pid, name, err);
	if (rc)
		return rc;
	rc = parse(out, text, len, ceiling, want_groups);
	if (rc == MG_EINVAL)
		mg_err_set(err, rc, "/proc/%d/%s: malformed line", (int)pid, name);
	else if (rc)
		mg_err_set(err, rc, "/proc/%d/%s: out of memory", (int)pid, name);
	free(text);
	return rc;
}

int maps_read(maps_breakdown *out, pid_t pid, uint64_t ceiling, mg_err *err)
{
	return read_and_parse(out, pid, ceiling, "maps", 1, err);
}

int maps_read_smaps(maps_breakdown *out, pid_t pid, uint64_t ceiling, mg_err *err)
{
	return read_and_parse(out, pid, ceiling, "smaps", 1, err);
}

int maps_largest_gap(uint64_t *out, pid_t pid, uint64_t ceiling, mg_err *err)
{
	maps_breakdown b;
	int rc = read_and_parse(&b, pid, ceiling, "maps", 0, err);
	if (rc == 0)
		*out = b.largest_gap;
	return rc;
}

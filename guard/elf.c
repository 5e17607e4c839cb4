/*
 * elf.c - reads what a host executable is from its file: the ELF class and
 * machine, whether it is dynamically linked, and whether it holds a marker
 * string. Never executes the file.
 */
#include "mg_elf.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Opens path for reading and checks that it is a regular file. */
static int open_regular(int *out, const char *path, mg_err *err)
{
	struct stat st = {0};
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return mg_err_set(err, MG_ENOTFOUND, "cannot open '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return mg_err_set(err, MG_EINVAL, "'%s' is not a regular file%s", path,
		                  S_ISDIR(st.st_mode) ? " (a directory)" : "");
	}
	*out = fd;
	return 0;
}

static ssize_t read_full(int fd, void *buf, size_t size, off_t offset)
{
	size_t got = 0;
	while (got < size) {
		ssize_t n = pread(fd, (char *)buf + got, size - got, offset + (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

int elf_arch(mg_arch *out, const char *path, mg_err *err)
{
	/* e_ident, e_type and e_machine sit at the same offsets in both classes. */
	unsigned char h[EI_NIDENT + 4];
	int fd = -1;
	int rc = open_regular(&fd, path, err);
	if (rc)
		return rc;
	ssize_t n = read_full(fd, h, sizeof(h), 0);
	int e = errno;
	close(fd);
	if (n < 0)
		return mg_err_set(err, MG_ERROR, "read '%s': %s", path, strerror(e));
	if (n >= 2 && h[0] == '#' && h[1] == '!')
		return mg_err_set(err, MG_EINVAL, "'%s' is a script, not an ELF executable", path);
	if (n >= SELFMAG && memcmp(h, ELFMAG, SELFMAG) != 0)
		return mg_err_set(err, MG_EINVAL, "'%s' is not an ELF file", path);
	if ((size_t)n < sizeof(h))
		return mg_err_set(err, MG_EINVAL, "'%s' is too short to be an ELF file (%zd bytes)",
		                  path, n);
	if (h[EI_DATA] != ELFDATA2LSB)
		return mg_err_set(err, MG_EINVAL, "'%s' is a big-endian ELF, not x86/x64", path);
	unsigned machine = (unsigned)h[EI_NIDENT + 2] | (unsigned)h[EI_NIDENT + 3] << 8;
	if (h[EI_CLASS] == ELFCLASS32 && machine == EM_386) {
		*out = MG_ARCH_X86;
		return 0;
	}
	if (h[EI_CLASS] == ELFCLASS64 && machine == EM_X86_64) {
		*out = MG_ARCH_X64;
		return 0;
	}
	return mg_err_set(err, MG_EINVAL, "'%s' is an ELF%s for machine %u, not x86 or x64", path,
	                  h[EI_CLASS] == ELFCLASS64 ? "64" : "32", machine);
}

int elf_dynamic(const char *path, mg_err *err)
{
	unsigned char eh[64]; /* an ELF64 header (an ELF32 one is 52 bytes) */
	int fd = -1, rc = open_regular(&fd, path, err);
	if (rc)
		return rc;
	ssize_t n = read_full(fd, eh, sizeof(eh), 0);
	if (n != (ssize_t)sizeof(eh) || memcmp(eh, ELFMAG, SELFMAG) != 0) {
		rc = mg_err_set(err, MG_EINVAL, "'%s' is not an ELF file", path);
		goto out;
	}
	/* e_phoff, e_phentsize and e_phnum, little-endian, by class */
	int is64 = eh[EI_CLASS] == ELFCLASS64;
	uint64_t off = 0;
	unsigned entsize, num;
	if (is64) {
		memcpy(&off, eh + 32, 8);
		entsize = (unsigned)(eh[54] | eh[55] << 8);
		num = (unsigned)(eh[56] | eh[57] << 8);
	} else {
		uint32_t o32;
		memcpy(&o32, eh + 28, 4);
		off = o32;
		entsize = (unsigned)(eh[42] | eh[43] << 8);
		num = (unsigned)(eh[44] | eh[45] << 8);
	}
	rc = 0;
	for (unsigned i = 0; i < num && i < 256 && entsize >= 4; i++) {
		uint32_t type;
		if (read_full(fd, &type, 4, (off_t)(off + (uint64_t)i * entsize)) != 4)
			break;
		if (type == PT_INTERP) {
			rc = 1;
			break;
		}
	}
out:
	close(fd);
	return rc;
}

int elf_arch_of_pid(mg_arch *out, pid_t pid, mg_err *err)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	return elf_arch(out, path, err);
}

/* Section i's name, type, flags, offset and size from the section header
 * table tab, in either class. */
static void sh_fields(const unsigned char *tab, unsigned i, int is64, uint32_t *name,
                      uint32_t *type, uint64_t *flags, uint64_t *off, uint64_t *size)
{
	if (is64) {
		Elf64_Shdr sh;
		memcpy(&sh, tab + (size_t)i * sizeof(sh), sizeof(sh));
		*name = sh.sh_name, *type = sh.sh_type, *flags = sh.sh_flags;
		*off = sh.sh_offset, *size = sh.sh_size;
	} else {
		Elf32_Shdr sh;
		memcpy(&sh, tab + (size_t)i * sizeof(sh), sizeof(sh));
		*name = sh.sh_name, *type = sh.sh_type, *flags = sh.sh_flags;
		*off = sh.sh_offset, *size = sh.sh_size;
	}
}

/* 1 for a section that holds no marker: a marker is a string of the
 * program's data or a symbol's name (in a string table), never in its
 * code, its symbol and relocation entries, its unwind tables or its debug
 * information (.debug_*, .zdebug_*: most of a program built with -g). */
static int sh_markerless(const char *name, uint32_t type, uint64_t flags)
{
	static const char *const unwind[] = {".eh_frame", ".eh_frame_hdr", ".gcc_except_table"};
	if (!strncmp(name, ".debug_", 7) || !strncmp(name, ".zdebug_", 8))
		return 1;
	if (flags & SHF_EXECINSTR)
		return 1;
	switch (type) {
	case SHT_SYMTAB:
	case SHT_DYNSYM:
	case SHT_RELA:
	case SHT_REL:
	case SHT_HASH:
	case SHT_GNU_HASH:
	case SHT_GNU_versym:
		return 1;
	default:
		break;
	}
	for (size_t i = 0; i < sizeof(unwind) / sizeof(unwind[0]); i++)
		if (!strcmp(name, unwind[i]))
			return 1;
	return 0;
}

/*
 * The byte ranges of fd's sections that hold no marker (sh_markerless: its
 * code, symbol, relocation and unwind tables, debug information), and with
 * where those it leaves out (ELF_SCAN_LOADED: what is not loaded;
 * ELF_SCAN_SYMBOL_NAMES: all but .strtab), sorted by offset, at most max.
 * 0 when the file is not a little-endian ELF or its section headers do not
 * read: all of it is scanned then.
 */
static size_t skip_ranges(int fd, uint64_t (*out)[2], size_t max, elf_scan where)
{
	unsigned char eh[64];
	uint64_t shoff, stroff = 0, strsize = 0, off, size, flags;
	uint32_t name, type;
	unsigned shentsize, shnum, shstrndx;
	size_t n = 0;
	if (read_full(fd, eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh, ELFMAG, SELFMAG) || eh[EI_DATA] != ELFDATA2LSB)
		return 0;
	int is64 = eh[EI_CLASS] == ELFCLASS64;
	if (is64) {
		Elf64_Ehdr h;
		memcpy(&h, eh, sizeof(h));
		shoff = h.e_shoff, shentsize = h.e_shentsize, shnum = h.e_shnum;
		shstrndx = h.e_shstrndx;
	} else if (eh[EI_CLASS] == ELFCLASS32) {
		Elf32_Ehdr h;
		memcpy(&h, eh, sizeof(h));
		shoff = h.e_shoff, shentsize = h.e_shentsize, shnum = h.e_shnum;
		shstrndx = h.e_shstrndx;
	} else {
		return 0;
	}
	if (shentsize != (is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr)) || !shnum ||
	    shstrndx >= shnum)
		return 0;
	size_t tsize = (size_t)shnum * shentsize;
	unsigned char *tab = malloc(tsize);
	char *names = NULL;
	if (!tab || read_full(fd, tab, tsize, (off_t)shoff) != (ssize_t)tsize)
		goto out;
	sh_fields(tab, shstrndx, is64, &name, &type, &flags, &stroff, &strsize);
	if (!strsize || strsize > (1 << 20) || !(names = malloc((size_t)strsize + 1)) ||
	    read_full(fd, names, (size_t)strsize, (off_t)stroff) != (ssize_t)strsize)
		goto out;
	names[strsize] = 0;
	for (unsigned i = 0; i < shnum && n < max; i++) {
		sh_fields(tab, i, is64, &name, &type, &flags, &off, &size);
		if (type == SHT_NOBITS || !size || name >= strsize)
			continue;
		/* ELF_SCAN_LOADED: a section loaded at run time; ELF_SCAN_SYMBOL_NAMES:
		 * a string table that is not (.strtab) */
		int symbol_names = type == SHT_STRTAB && !(flags & SHF_ALLOC);
		if (where == ELF_SCAN_SYMBOL_NAMES ? symbol_names
		    : where == ELF_SCAN_LOADED
		        ? (flags & SHF_ALLOC) && !sh_markerless(names + name, type, flags)
		        : !sh_markerless(names + name, type, flags))
			continue;
		if (off + size < off) /* a hostile header: no range that wraps */
			continue;
		size_t k = n++; /* kept sorted by offset */
		for (; k > 0 && out[k - 1][0] > off; k--) {
			out[k][0] = out[k - 1][0];
			out[k][1] = out[k - 1][1];
		}
		out[k][0] = off;
		out[k][1] = off + size;
	}
out:
	free(names);
	free(tab);
	return n;
}

/*
 * Streams the file in 64 KiB blocks, its sections that hold no marker
 * skipped (skip_ranges), looking for each of n markers at once; found[i] 1 for
 * each found, and the scan ends when every one is. The last (longest
 * marker - 1) bytes of each block are carried to the front of the next, so
 * a marker that straddles a block boundary is found (not one that
 * straddles a skipped section). O(the size of the sections that may
 * hold one: data and string tables); one allocation per call.
 */
int elf_contains_each(const char *path, const char *const *markers, size_t n, int *found,
                      mg_err *err)
{
	return elf_contains_each_in(path, markers, n, found, ELF_SCAN_ALL, err);
}

int elf_contains_each_in(const char *path, const char *const *markers, size_t n, int *found,
                         elf_scan where, mg_err *err)
{
	enum { BLOCK = 64 * 1024, RANGES = 64 };
	size_t mlen = 0, left = n;
	uint64_t skip[RANGES][2];
	char *buf = NULL;
	int fd = -1, rc;
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(markers[i]);
		if (l == 0)
			return mg_err_set(err, MG_EINVAL, "empty marker");
		mlen = l > mlen ? l : mlen;
		found[i] = 0;
	}
	if (n == 0)
		return 0;
	rc = open_regular(&fd, path, err);
	if (rc)
		return rc;
	buf = malloc(BLOCK + mlen);
	if (!buf) {
		rc = mg_err_set(err, MG_ERROR, "out of memory");
		goto out;
	}
	size_t nskip = skip_ranges(fd, skip, RANGES, where), r = 0;
	size_t keep = 0;
	uint64_t offset = 0;
	rc = 0;
	for (;;) {
		while (r < nskip && skip[r][1] <= offset)
			r++;
		if (r < nskip && skip[r][0] <= offset) { /* a section of no marker: over it */
			offset = skip[r][1];
			keep = 0;
			continue;
		}
		size_t want = BLOCK;
		if (r < nskip && skip[r][0] - offset < want)
			want = (size_t)(skip[r][0] - offset);
		ssize_t got = read_full(fd, buf + keep, want, (off_t)offset);
		if (got < 0) {
			rc = mg_err_set(err, MG_ERROR, "read '%s': %s", path, strerror(errno));
			goto out;
		}
		size_t have = keep + (size_t)got;
		for (size_t i = 0; i < n; i++) {
			size_t l = strlen(markers[i]);
			if (!found[i] && have >= l && memmem(buf, have, markers[i], l)) {
				found[i] = 1;
				left--;
			}
		}
		if (!left || got == 0)
			break;
		offset += (uint64_t)got;
		keep = have < mlen - 1 ? have : mlen - 1;
		memmove(buf, buf + have - keep, keep);
	}
out:
	free(buf);
	close(fd);
	return rc;
}

int elf_contains(const char *path, const char *marker, mg_err *err)
{
	int found = 0;
	int rc = elf_contains_each(path, &marker, 1, &found, err);
	return rc < 0 ? rc : found;
}

/* ---- the libraries a program needs, resolved as the dynamic loader does ---- */

/* An ELF's header fields this file reads, by class (little-endian only). */
typedef struct elf_hdr {
	int is64;
	uint64_t phoff;
	unsigned phentsize, phnum;
} elf_hdr;

static int hdr_read(elf_hdr *h, int fd)
{
	unsigned char eh[64];
	if (read_full(fd, eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh, ELFMAG, SELFMAG) != 0 || eh[EI_DATA] != ELFDATA2LSB)
		return -1;
	h->is64 = eh[EI_CLASS] == ELFCLASS64;
	if (h->is64) {
		memcpy(&h->phoff, eh + 32, 8);
		h->phentsize = (unsigned)(eh[54] | eh[55] << 8);
		h->phnum = (unsigned)(eh[56] | eh[57] << 8);
	} else {
		uint32_t o32;
		memcpy(&o32, eh + 28, 4);
		h->phoff = o32;
		h->phentsize = (unsigned)(eh[42] | eh[43] << 8);
		h->phnum = (unsigned)(eh[44] | eh[45] << 8);
	}
	return h->phentsize >= (h->is64 ? 56u : 32u) ? 0 : -1;
}

/* A field of width 4 or 8 at p, little-endian. */
static uint64_t field(const unsigned char *p, int is64)
{
	uint64_t v = 0;
	if (is64) {
		memcpy(&v, p, 8);
	} else {
		uint32_t v32;
		memcpy(&v32, p, 4);
		v = v32;
	}
	return v;
}

/* One directory of a search path: dir (len bytes, $ORIGIN and ${ORIGIN}
 * replaced by origin) / name, into out; 1 when that is an ELF of class
 * want (the loader skips a library of the other class). */
static int lib_try(char *out, size_t n, const char *dir, size_t len, const char *origin,
                   const char *name, mg_arch want)
{
	size_t k = 0;
	for (size_t i = 0; i < len && k + 1 < n;) {
		size_t skip = !strncmp(dir + i, "${ORIGIN}", 9) && i + 9 <= len ? 9
		              : !strncmp(dir + i, "$ORIGIN", 7) && i + 7 <= len ? 7
		                                                                : 0;
		if (skip) {
			k += (size_t)snprintf(out + k, n - k, "%s", origin);
			i += skip;
		} else {
			out[k++] = dir[i++];
		}
	}
	if (k >= n)
		return 0;
	out[k] = 0;
	if ((size_t)snprintf(out + k, n - k, "%s%s", k ? "/" : "", name) >= n - k)
		return 0;
	mg_arch a;
	return elf_arch(&a, out, NULL) == 0 && a == want;
}

/* The first directory of a colon-separated list holding name. */
static int lib_in_list(char *out, size_t n, const char *list, const char *origin, const char *name,
                       mg_arch want)
{
	while (list && *list) {
		const char *end = strchr(list, ':');
		size_t len = end ? (size_t)(end - list) : strlen(list);
		if (len && lib_try(out, n, list, len, origin, name, want))
			return 1;
		list = end ? end + 1 : NULL;
	}
	return 0;
}

/* name in /etc/ld.so.cache (glibc's format "glibc-ld.so.cache1.1", also
 * after the old one): its path, of class want. One read of the file. */
static int lib_in_cache(char *out, size_t n, const char *name, mg_arch want)
{
	static const char magic[] = "glibc-ld.so.cache1.1";
	int fd = -1, found = 0;
	struct stat st;
	char *buf = NULL;
	if (open_regular(&fd, "/etc/ld.so.cache", NULL) < 0)
		return 0;
	if (fstat(fd, &st) != 0 || st.st_size < 48 || st.st_size > (64 << 20) ||
	    !(buf = malloc((size_t)st.st_size)) ||
	    read_full(fd, buf, (size_t)st.st_size, 0) != (ssize_t)st.st_size)
		goto out;
	size_t size = (size_t)st.st_size;
	const char *c = memmem(buf, size, magic, sizeof(magic) - 1);
	if (!c || (size_t)(c - buf) + 48 > size)
		goto out;
	size_t avail = size - (size_t)(c - buf); /* offsets count from the header */
	uint32_t nlibs;
	memcpy(&nlibs, c + 20, 4);
	for (uint32_t i = 0; i < nlibs && 48 + ((size_t)i + 1) * 24 <= avail && !found; i++) {
		uint32_t key, value;
		memcpy(&key, c + 48 + (size_t)i * 24 + 4, 4);
		memcpy(&value, c + 48 + (size_t)i * 24 + 8, 4);
		if (key >= avail || value >= avail || !memchr(c + key, 0, avail - key) ||
		    !memchr(c + value, 0, avail - value) || strcmp(c + key, name))
			continue;
		mg_arch a;
		if (snprintf(out, n, "%s", c + value) < (int)n && elf_arch(&a, out, NULL) == 0 &&
		    a == want)
			found = 1;
	}
out:
	free(buf);
	close(fd);
	return found;
}

/* The dynamic section's strings the search needs, into the caller's
 * arrays: the DT_NEEDED names (at most max), DT_RPATH, DT_RUNPATH (NULL
 * when absent); all point into *strtab, which the caller frees. Returns the
 * count of names, or -1 when the file is not an ELF or has no dynamic
 * section. Reads the program headers, the section and the string table. */
static int dyn_read(int fd, const char **names, int max, const char **rpath, const char **runpath,
                    char **strtab, mg_arch *arch)
{
	elf_hdr h;
	uint64_t dyn_off = 0, dyn_size = 0;
	uint64_t load_vaddr[16], load_off[16], load_size[16];
	int nload = 0, count = 0;
	*rpath = *runpath = NULL;
	*strtab = NULL;
	if (hdr_read(&h, fd) < 0)
		return -1;
	*arch = h.is64 ? MG_ARCH_X64 : MG_ARCH_X86;
	for (unsigned i = 0; i < h.phnum && i < 256; i++) {
		unsigned char ph[56];
		size_t want = h.is64 ? 56 : 32;
		if (read_full(fd, ph, want, (off_t)(h.phoff + (uint64_t)i * h.phentsize)) !=
		    (ssize_t)want)
			return -1;
		uint32_t type;
		memcpy(&type, ph, 4);
		/* ELF64: type, flags, offset, vaddr, paddr, filesz; ELF32: type,
		 * offset, vaddr, paddr, filesz */
		uint64_t off = field(ph + (h.is64 ? 8 : 4), h.is64);
		uint64_t vaddr = field(ph + (h.is64 ? 16 : 8), h.is64);
		uint64_t filesz = field(ph + (h.is64 ? 32 : 16), h.is64);
		if (type == PT_DYNAMIC) {
			dyn_off = off;
			dyn_size = filesz;
		} else if (type == PT_LOAD && nload < 16) {
			load_vaddr[nload] = vaddr;
			load_off[nload] = off;
			load_size[nload++] = filesz;
		}
	}
	if (!dyn_size || dyn_size > (1 << 20))
		return -1;
	unsigned char *dyn = malloc(dyn_size);
	if (!dyn || read_full(fd, dyn, dyn_size, (off_t)dyn_off) != (ssize_t)dyn_size) {
		free(dyn);
		return -1;
	}
	size_t ent = h.is64 ? 16 : 8, half = ent / 2;
	uint64_t str_vaddr = 0, str_size = 0, rpath_at = UINT64_MAX, runpath_at = UINT64_MAX;
	uint64_t needed_at[64];
	int nneeded = 0;
	for (size_t p = 0; p + ent <= dyn_size; p += ent) {
		uint64_t tag = field(dyn + p, h.is64), val = field(dyn + p + half, h.is64);
		if (tag == DT_NULL)
			break;
		if (tag == DT_NEEDED && nneeded < 64)
			needed_at[nneeded++] = val;
		else if (tag == DT_STRTAB)
			str_vaddr = val;
		else if (tag == DT_STRSZ)
			str_size = val;
		else if (tag == DT_RPATH)
			rpath_at = val;
		else if (tag == DT_RUNPATH)
			runpath_at = val;
	}
	free(dyn);
	/* the string table's file offset: through the PT_LOAD that maps it */
	uint64_t str_off = UINT64_MAX;
	for (int i = 0; i < nload; i++)
		if (str_vaddr >= load_vaddr[i] && str_vaddr - load_vaddr[i] < load_size[i])
			str_off = load_off[i] + (str_vaddr - load_vaddr[i]);
	if (str_off == UINT64_MAX || !str_size || str_size > (16 << 20))
		return -1;
	char *s = malloc(str_size + 1);
	if (!s || read_full(fd, s, str_size, (off_t)str_off) != (ssize_t)str_size) {
		free(s);
		return -1;
	}
	s[str_size] = 0;
	*strtab = s;
	for (int i = 0; i < nneeded && count < max; i++)
		if (needed_at[i] < str_size)
			names[count++] = s + needed_at[i];
	*rpath = rpath_at < str_size ? s + rpath_at : NULL;
	*runpath = runpath_at < str_size ? s + runpath_at : NULL;
	return count;
}

/* The loader's own libraries, never a framework's: not read (each is
 * megabytes, and every C++ program needs them). */
static int lib_of_system(const char *name)
{
	static const char *const sys[] = {
	    "libc.so",  "libm.so",  "libstdc++.so", "libgcc_s.so", "ld-linux",   "libpthread.so",
	    "libdl.so", "librt.so", "linux-vdso",   "linux-gate",  "libasan.so", "libubsan.so"};
	for (size_t i = 0; i < sizeof(sys) / sizeof(sys[0]); i++)
		if (!strncmp(name, sys[i], strlen(sys[i])))
			return 1;
	return 0;
}

int elf_needed_contains(const char *path, const char *marker, char *found, size_t n, mg_err *err)
{
	const char *names[64], *rpath, *runpath;
	char *strtab = NULL, origin[4096], lib[4096];
	mg_arch arch;
	int fd = -1, rc = open_regular(&fd, path, err);
	if (rc)
		return rc;
	int count = dyn_read(fd, names, 64, &rpath, &runpath, &strtab, &arch);
	close(fd);
	if (count < 0) { /* static, or not an ELF: elf_arch says which */
		free(strtab);
		return elf_arch(&arch, path, err) < 0 ? MG_EINVAL : 0;
	}
	/* $ORIGIN: the directory of the program, as it was named */
	const char *slash = strrchr(path, '/');
	snprintf(origin, sizeof(origin), "%.*s", slash ? (int)(slash - path) : 1,
	         slash ? path : ".");
	if (slash == path)
		snprintf(origin, sizeof(origin), "/");
	const char *defaults = arch == MG_ARCH_X64
	                           ? "/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:/lib64:"
	                             "/usr/lib64:/lib:/usr/lib"
	                           : "/lib/i386-linux-gnu:/usr/lib/i386-linux-gnu:/lib32:"
	                             "/usr/lib32:/lib:/usr/lib";
	rc = 0;
	for (int i = 0; i < count && rc == 0; i++) {
		const char *name = names[i];
		int have = 0;
		if (lib_of_system(name))
			continue;
		if (strchr(name, '/'))
			have = snprintf(lib, sizeof(lib), "%s", name) < (int)sizeof(lib);
		else
			have = (!runpath &&
			        lib_in_list(lib, sizeof(lib), rpath, origin, name, arch)) ||
			       lib_in_list(lib, sizeof(lib), getenv("LD_LIBRARY_PATH"), origin,
			                   name, arch) ||
			       lib_in_list(lib, sizeof(lib), runpath, origin, name, arch) ||
			       lib_in_cache(lib, sizeof(lib), name, arch) ||
			       lib_in_list(lib, sizeof(lib), defaults, origin, name, arch);
		if (have && elf_contains(lib, marker, NULL) == 1) {
			snprintf(found, n, "%s", lib);
			rc = 1;
		}
	}
	free(strtab);
	return rc;
}

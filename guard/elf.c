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

/* Section i's name, type, offset and size from the section header table
 * tab, in either class. */
static void sh_fields(const unsigned char *tab, unsigned i, int is64, uint32_t *name,
                      uint32_t *type, uint64_t *off, uint64_t *size)
{
	if (is64) {
		Elf64_Shdr sh;
		memcpy(&sh, tab + (size_t)i * sizeof(sh), sizeof(sh));
		*name = sh.sh_name, *type = sh.sh_type, *off = sh.sh_offset, *size = sh.sh_size;
	} else {
		Elf32_Shdr sh;
		memcpy(&sh, tab + (size_t)i * sizeof(sh), sizeof(sh));
		*name = sh.sh_name, *type = sh.sh_type, *off = sh.sh_offset, *size = sh.sh_size;
	}
}

/*
 * The byte ranges of fd's debug sections (.debug_*, .zdebug_*: most of a
 * program built with -g, and where none of the markers elf_contains is
 * asked for lives: they are strings of its data and names of its symbol
 * tables, which are kept), sorted by offset, at most max. 0 when the file is
 * not a little-endian ELF or its section headers do not read: all of it is
 * scanned then.
 */
static size_t debug_ranges(int fd, uint64_t (*out)[2], size_t max)
{
	unsigned char eh[64];
	uint64_t shoff, stroff = 0, strsize = 0, off, size;
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
	sh_fields(tab, shstrndx, is64, &name, &type, &stroff, &strsize);
	if (!strsize || strsize > (1 << 20) || !(names = malloc((size_t)strsize + 1)) ||
	    read_full(fd, names, (size_t)strsize, (off_t)stroff) != (ssize_t)strsize)
		goto out;
	names[strsize] = 0;
	for (unsigned i = 0; i < shnum && n < max; i++) {
		sh_fields(tab, i, is64, &name, &type, &off, &size);
		if (type == SHT_NOBITS || !size || name >= strsize ||
		    (strncmp(names + name, ".debug_", 7) && strncmp(names + name, ".zdebug_", 8)))
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
 * Streams the file in 64 KiB blocks, its debug sections skipped
 * (debug_ranges). The last marker_len - 1 bytes of each block are carried
 * to the front of the next, so a marker that straddles a block boundary is
 * found (not one that straddles a skipped section). O(file size less its
 * debug information); one allocation per call.
 */
int elf_contains(const char *path, const char *marker, mg_err *err)
{
	enum { BLOCK = 64 * 1024, RANGES = 64 };
	size_t mlen = strlen(marker);
	uint64_t skip[RANGES][2];
	char *buf = NULL;
	int fd = -1, rc;
	if (mlen == 0)
		return mg_err_set(err, MG_EINVAL, "empty marker");
	rc = open_regular(&fd, path, err);
	if (rc)
		return rc;
	buf = malloc(BLOCK + mlen);
	if (!buf) {
		rc = mg_err_set(err, MG_ERROR, "out of memory");
		goto out;
	}
	size_t nskip = debug_ranges(fd, skip, RANGES), r = 0;
	size_t keep = 0;
	uint64_t offset = 0;
	rc = 0;
	for (;;) {
		while (r < nskip && skip[r][1] <= offset)
			r++;
		if (r < nskip && skip[r][0] <= offset) { /* a debug section: over it */
			offset = skip[r][1];
			keep = 0;
			continue;
		}
		size_t want = BLOCK;
		if (r < nskip && skip[r][0] - offset < want)
			want = (size_t)(skip[r][0] - offset);
		ssize_t n = read_full(fd, buf + keep, want, (off_t)offset);
		if (n < 0) {
			rc = mg_err_set(err, MG_ERROR, "read '%s': %s", path, strerror(errno));
			goto out;
		}
		size_t have = keep + (size_t)n;
		if (have >= mlen && memmem(buf, have, marker, mlen)) {
			rc = 1;
			goto out;
		}
		if (n == 0)
			break;
		offset += (uint64_t)n;
		keep = have < mlen - 1 ? have : mlen - 1;
		memmove(buf, buf + have - keep, keep);
	}
out:
	free(buf);
	close(fd);
	return rc;
}

/* test_elf.c - elf_arch on real x86/x64 programs and on what is not one;
 * elf_contains across block boundaries, and not in a program's debug
 * sections. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guard_test.h"
#include "mg_elf.h"

void test_elf_arch_x86(void)
{
	mg_arch a = MG_ARCH_UNKNOWN;
	mg_err err = {{0}};
	int rc = elf_arch(&a, GUARD_TINY_X86, &err);
	if (rc)
		fprintf(stderr, "\n  %s\n", err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_EQUAL(a, MG_ARCH_X86);
}

void test_elf_arch_x64(void)
{
	mg_arch a = MG_ARCH_UNKNOWN;
	mg_err err = {{0}};
	CU_ASSERT_EQUAL(elf_arch(&a, GUARD_TINY_X64, &err), 0);
	CU_ASSERT_EQUAL(a, MG_ARCH_X64);
}

static void arch_fails(const char *path, int code, const char *needle)
{
	mg_arch a = MG_ARCH_UNKNOWN;
	mg_err err = {{0}};
	CU_ASSERT_EQUAL(elf_arch(&a, path, &err), code);
	CU_ASSERT_EQUAL(a, MG_ARCH_UNKNOWN);
	GT_ASSERT_CONTAINS(err.msg, path);
	GT_ASSERT_CONTAINS(err.msg, needle);
}

void test_elf_arch_not_elf(void)
{
	char dir[256], path[512];
	gt_tmpdir(dir);
	gt_write(dir, "script", "#!/bin/sh\necho hi\n");
	snprintf(path, sizeof(path), "%s/script", dir);
	arch_fails(path, MG_EINVAL, "script");
	gt_write(dir, "short", "\177ELF\2");
	snprintf(path, sizeof(path), "%s/short", dir);
	arch_fails(path, MG_EINVAL, "too short");
	gt_write(dir, "empty", "");
	snprintf(path, sizeof(path), "%s/empty", dir);
	arch_fails(path, MG_EINVAL, "too short");
	gt_write(dir, "text", "just some text that is long enough\n");
	snprintf(path, sizeof(path), "%s/text", dir);
	arch_fails(path, MG_EINVAL, "not an ELF");
	/* an ELF64 for aarch64 (e_machine 183) */
	char arm[24] = "\177ELF\2\1\1";
	arm[18] = (char)183;
	snprintf(path, sizeof(path), "%s/arm", dir);
	FILE *f = fopen(path, "wb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fwrite(arm, 1, sizeof(arm), f);
	fclose(f);
	arch_fails(path, MG_EINVAL, "machine 183");
	arch_fails(dir, MG_EINVAL, "directory");
	snprintf(path, sizeof(path), "%s/missing", dir);
	arch_fails(path, MG_ENOTFOUND, "No such file");
	gt_rmtree(dir);
}

void test_elf_contains_program(void)
{
	mg_err err = {{0}};
	CU_ASSERT_EQUAL(elf_contains(GUARD_TINY_X86, "MEMGUARD-TINY-MARKER", &err), 1);
	CU_ASSERT_EQUAL(elf_contains(GUARD_TINY_X64, "MEMGUARD-TINY-MARKER", &err), 1);
	CU_ASSERT_EQUAL(elf_contains(GUARD_TINY_X64, "MEMGUARD-NOT-THERE-MARKER", &err), 0);
	CU_ASSERT_EQUAL(elf_contains("/nonexistent/x", "M", &err), MG_ENOTFOUND);
	GT_ASSERT_CONTAINS(err.msg, "/nonexistent/x");
	CU_ASSERT_EQUAL(elf_contains(GUARD_TINY_X64, "", &err), MG_EINVAL);
}

/* A file of size bytes of 'x' with the marker written at offset at. */
static void write_with_marker(const char *path, size_t size, size_t at, const char *marker)
{
	char *buf = malloc(size + 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	memset(buf, 'x', size);
	if (marker)
		memcpy(buf + at, marker, strlen(marker));
	FILE *f = fopen(path, "wb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(fwrite(buf, 1, size, f), size);
	CU_ASSERT_EQUAL(fclose(f), 0);
	free(buf);
}

void test_elf_contains_boundary(void)
{
	static const char marker[] = "memguard-marker";
	const size_t block = 64 * 1024, mlen = sizeof(marker) - 1;
	char dir[256], path[512];
	mg_err err = {{0}};
	gt_tmpdir(dir);
	snprintf(path, sizeof(path), "%s/blob", dir);
	/* Every split of the marker over the first and the second boundary,
	 * plus the very start and the very end of the file. */
	size_t ats[64], n = 0;
	for (size_t k = 0; k <= mlen; k++) {
		ats[n++] = block - k;
		ats[n++] = 2 * block - k;
	}
	ats[n++] = 0;
	ats[n++] = 3 * block + 100 - mlen;
	for (size_t i = 0; i < n; i++) {
		write_with_marker(path, 3 * block + 100, ats[i], marker);
		int rc = elf_contains(path, marker, &err);
		if (rc != 1)
			fprintf(stderr, "\n  marker at %zu not found (%d)\n", ats[i], rc);
		CU_ASSERT_EQUAL(rc, 1);
	}
	write_with_marker(path, 3 * block + 100, 0, NULL);
	CU_ASSERT_EQUAL(elf_contains(path, marker, &err), 0);
	/* A marker longer than the file, and an empty file. */
	write_with_marker(path, 4, 0, NULL);
	CU_ASSERT_EQUAL(elf_contains(path, marker, &err), 0);
	write_with_marker(path, 0, 0, NULL);
	CU_ASSERT_EQUAL(elf_contains(path, marker, &err), 0);
	CU_ASSERT_EQUAL(elf_contains(dir, marker, &err), MG_EINVAL);
	gt_rmtree(dir);
}

/* The bytes of name are in the file (whatever elf_contains says). */
static int file_has(const char *path, const char *name)
{
	FILE *f = fopen(path, "rb");
	size_t size = 0, got;
	char *buf = NULL, *p;
	int found = 0;
	if (!f)
		return 0;
	while ((p = realloc(buf, size + 65536)) != NULL) {
		buf = p;
		got = fread(buf + size, 1, 65536, f);
		size += got;
		if (got < 65536)
			break;
	}
	fclose(f);
	found = buf && memmem(buf, size, name, strlen(name)) != NULL;
	free(buf);
	return found;
}

/* A program built with -g: a member's name, which only its .debug_*
 * sections hold, is not found (auto detection and the ASan check read no
 * debug information: a 71 MB -g test program was read whole three times a
 * run); its data's marker and a name of its symbol table (.symtab is not a
 * debug section: a static ASan build's __asan_init is there) are. */
void test_elf_contains_debug(void)
{
	mg_err err = {{0}};
	CU_ASSERT_FATAL(file_has(GUARD_TINY_DEBUG, "memguard_tiny_dwarf_only"));
	CU_ASSERT_EQUAL(elf_contains(GUARD_TINY_DEBUG, "memguard_tiny_dwarf_only", &err), 0);
	CU_ASSERT_EQUAL(elf_contains(GUARD_TINY_DEBUG, "MEMGUARD-TINY-MARKER", &err), 1);
	CU_ASSERT_EQUAL(elf_contains(GUARD_TINY_DEBUG, "guard_tiny_debug_var", &err), 1);
}

/* elf_contains_each_in: what is loaded at run time holds the data's
 * marker and not a name only the symbol table has; the symbol names hold
 * that name and not the data's marker. */
void test_elf_contains_where(void)
{
	mg_err err = {{0}};
	const char *const m[] = {"MEMGUARD-TINY-MARKER", "guard_tiny_debug_var"};
	int found[2] = {7, 7};
	CU_ASSERT_EQUAL(elf_contains_each_in(GUARD_TINY_DEBUG, m, 2, found, ELF_SCAN_LOADED, &err),
	                0);
	CU_ASSERT(found[0] == 1 && found[1] == 0);
	CU_ASSERT_EQUAL(
	    elf_contains_each_in(GUARD_TINY_DEBUG, m, 2, found, ELF_SCAN_SYMBOL_NAMES, &err), 0);
	CU_ASSERT(found[0] == 0 && found[1] == 1);
	CU_ASSERT_EQUAL(elf_contains_each_in(GUARD_TINY_DEBUG, m, 2, found, ELF_SCAN_ALL, &err), 0);
	CU_ASSERT(found[0] == 1 && found[1] == 1);
}

/* Code holds no marker: bytes only its executable section has are not
 * found (nor read: a GoogleTest program's .text was a third of what
 * detection read), and several markers are looked for in one pass, each
 * found where it would be alone. */
void test_elf_contains_code(void)
{
	mg_err err = {{0}};
	const char *const m[] = {"MEMGUARD-TINY-MARKER", "MEMGUARD-TINY-IN-CODE",
	                         "memguard_tiny_dwarf_only", "guard_tiny_debug_var",
	                         "memguard-absent-from-every-file"};
	int found[5] = {7, 7, 7, 7, 7};
	CU_ASSERT_FATAL(file_has(GUARD_TINY_DEBUG, "MEMGUARD-TINY-IN-CODE"));
	CU_ASSERT_EQUAL(elf_contains(GUARD_TINY_DEBUG, "MEMGUARD-TINY-IN-CODE", &err), 0);
	CU_ASSERT_EQUAL(elf_contains_each(GUARD_TINY_DEBUG, m, 5, found, &err), 0);
	CU_ASSERT_EQUAL(found[0], 1);
	CU_ASSERT_EQUAL(found[1], 0);
	CU_ASSERT_EQUAL(found[2], 0);
	CU_ASSERT_EQUAL(found[3], 1);
	CU_ASSERT_EQUAL(found[4], 0);
	/* not a regular file: an error, and none found */
	CU_ASSERT(elf_contains_each("/dev/null", m, 5, found, &err) < 0);
	CU_ASSERT_EQUAL(found[0] + found[1] + found[2] + found[3] + found[4], 0);
}

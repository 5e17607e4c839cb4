/* test_elf_needed.c - elf_needed_contains on real programs: a library
 * found through the program's RUNPATH, through LD_LIBRARY_PATH (a
 * library of the other ELF class there skipped, as the loader skips it),
 * through /etc/ld.so.cache,
 * none for a program needing only the C runtime or a static one, and an
 * error for what is not an ELF file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guard_test.h"
#include "mg_elf.h"

static const char marker[] = "MEMGUARD-TINY-LIB-MARKER";

void test_elf_needed_runpath(void)
{
	mg_err err = {{0}};
	char found[4096] = "";
	CU_ASSERT_EQUAL(
	    elf_needed_contains(GUARD_TINY_NEEDS_X64, marker, found, sizeof(found), &err), 1);
	CU_ASSERT_STRING_EQUAL(found, GUARD_TINY_LIB64_DIR "/libguard_tiny_lib.so");
	/* this program's CUnit, from /etc/ld.so.cache (or the default
	 * directories): no RUNPATH names it */
	CU_ASSERT_EQUAL(elf_needed_contains("/proc/self/exe", "CU_initialize_registry", found,
	                                    sizeof(found), &err),
	                1);
	CU_ASSERT(strstr(found, "/libcunit.so") != NULL);
	CU_ASSERT_EQUAL(elf_needed_contains(GUARD_TINY_NEEDS_X64, "MEMGUARD-NOT-THERE-MARKER",
	                                    found, sizeof(found), &err),
	                0);
}

/* No RUNPATH: not found, then found through LD_LIBRARY_PATH; the x86
 * program skips the x64 library listed first. */
void test_elf_needed_ld_library_path(void)
{
	mg_err err = {{0}};
	char found[4096] = "";
	const char *old = getenv("LD_LIBRARY_PATH");
	char *keep = old ? strdup(old) : NULL;
	unsetenv("LD_LIBRARY_PATH");
	CU_ASSERT_EQUAL(
	    elf_needed_contains(GUARD_TINY_NEEDS_NORPATH_X64, marker, found, sizeof(found), &err),
	    0);
	setenv("LD_LIBRARY_PATH", "/nonexistent:" GUARD_TINY_LIB64_DIR ":" GUARD_TINY_LIB32_DIR, 1);
	CU_ASSERT_EQUAL(
	    elf_needed_contains(GUARD_TINY_NEEDS_NORPATH_X64, marker, found, sizeof(found), &err),
	    1);
	CU_ASSERT_STRING_EQUAL(found, GUARD_TINY_LIB64_DIR "/libguard_tiny_lib.so");
	CU_ASSERT_EQUAL(
	    elf_needed_contains(GUARD_TINY_NEEDS_NORPATH_X86, marker, found, sizeof(found), &err),
	    1);
	CU_ASSERT_STRING_EQUAL(found, GUARD_TINY_LIB32_DIR "/libguard_tiny_lib.so");
	if (keep)
		setenv("LD_LIBRARY_PATH", keep, 1);
	else
		unsetenv("LD_LIBRARY_PATH");
	free(keep);
}

void test_elf_needed_none(void)
{
	mg_err err = {{0}};
	char found[4096] = "", dir[256], path[512];
	CU_ASSERT_EQUAL(elf_needed_contains(GUARD_TINY_X64, marker, found, sizeof(found), &err), 0);
	CU_ASSERT_EQUAL(elf_needed_contains(GUARD_TINY_X86, marker, found, sizeof(found), &err), 0);
	CU_ASSERT_EQUAL(elf_needed_contains(GUARD_TINY_STATIC, marker, found, sizeof(found), &err),
	                0);
	gt_tmpdir(dir);
	gt_write(dir, "text", "just some text that is long enough to be a header, and then more\n");
	snprintf(path, sizeof(path), "%s/text", dir);
	CU_ASSERT(elf_needed_contains(path, marker, found, sizeof(found), &err) < 0);
	snprintf(path, sizeof(path), "%s/missing", dir);
	CU_ASSERT_EQUAL(elf_needed_contains(path, marker, found, sizeof(found), &err),
	                MG_ENOTFOUND);
	gt_rmtree(dir);
}

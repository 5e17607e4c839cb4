/* test_elf_dynamic.c - elf_dynamic on real programs: dynamically linked
 * (x86 and x64), static, and what is not an ELF file. */
#include <stdio.h>

#include "guard_test.h"
#include "mg_elf.h"

void test_elf_dynamic(void)
{
	mg_err err = {{0}};
	CU_ASSERT_EQUAL(elf_dynamic(GUARD_TINY_X64, &err), 1);
	CU_ASSERT_EQUAL(elf_dynamic(GUARD_TINY_X86, &err), 1);
	CU_ASSERT_EQUAL(elf_dynamic(GUARD_TINY_STATIC, &err), 0);
	char dir[256], path[512];
	gt_tmpdir(dir);
	gt_write(dir, "text", "just some text that is long enough to be a header, and then more\n");
	snprintf(path, sizeof(path), "%s/text", dir);
	CU_ASSERT_EQUAL(elf_dynamic(path, &err), MG_EINVAL);
	GT_ASSERT_CONTAINS(err.msg, path);
	GT_ASSERT_CONTAINS(err.msg, "not an ELF");
	gt_write(dir, "short", "\177ELF\2");
	snprintf(path, sizeof(path), "%s/short", dir);
	CU_ASSERT_EQUAL(elf_dynamic(path, &err), MG_EINVAL);
	CU_ASSERT_EQUAL(elf_dynamic(dir, &err), MG_EINVAL); /* a directory */
	snprintf(path, sizeof(path), "%s/missing", dir);
	CU_ASSERT_EQUAL(elf_dynamic(path, &err), MG_ENOTFOUND);
	gt_rmtree(dir);
}

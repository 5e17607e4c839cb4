/* test_maps.c - the address-space breakdown: a 32-bit fixture (data/) with
 * 10 x 8 MiB memfd blocks, smaps text, malformed lines, and real x64 and
 * x86 children that map 10 x 8 MiB memfd blocks. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guard_test.h"
#include "maps.h"
#include "mg_limits.h"
#include "proc.h"

#define KI 1024ULL
#define MI (1024ULL * 1024)
#define GI (1024ULL * 1024 * 1024)

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	char *buf = malloc(1 << 20);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	*len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	return buf;
}

static const maps_group *find_group(const maps_breakdown *b, const char *name, uint64_t size)
{
	for (size_t i = 0; i < b->ngroups; i++)
		if (strcmp(b->groups[i].name, name) == 0 && b->groups[i].size == size)
			return &b->groups[i];
	return NULL;
}

void test_maps_fixture_x86(void)
{
	size_t len;
	char *text = slurp(GUARD_DATA_DIR "/maps_x86.txt", &len);
	maps_breakdown b;
	CU_ASSERT_EQUAL_FATAL(maps_parse(&b, text, len, limits_arch_ceiling(MG_ARCH_X86)), 0);
	free(text);
	CU_ASSERT_EQUAL(b.ncats, MAPS_NCATS);
	static const char *const names[] = {"heap", "stack",    "shm", "file",
	                                    "code", "reserved", "anon"};
	for (int c = 0; c < MAPS_NCATS; c++)
		CU_ASSERT_STRING_EQUAL(b.cats[c].name, names[c]);
	CU_ASSERT_EQUAL(b.cats[MAPS_HEAP].va, 0x21000);
	/* the thread stack above its guard page, and [stack] */
	CU_ASSERT_EQUAL(b.cats[MAPS_STACK].va, 8 * MI + 0x21000);
	/* 10 memfd blocks and a /dev/shm file (whose name holds a blank) */
	CU_ASSERT_EQUAL(b.cats[MAPS_SHM].va, 80 * MI + 0x10000);
	/* host32 r--p x2 and rw-p; libc r--p, ---p, r--p, rw-p; ld r--p x3, rw-p */
	CU_ASSERT_EQUAL(b.cats[MAPS_FILE].va, 0x3000 +
	                                          (0x22000 + 0x85000 + 0x1000 + 0x2000 + 0x1000) +
	                                          (0x1000 + 0xe000 + 0x2000 + 0x1000));
	/* host32, libc and ld r-xp, [vvar], [vdso] */
	CU_ASSERT_EQUAL(b.cats[MAPS_CODE].va, 0x1000 + 0x17a000 + 0x23000 + 0x4000 + 0x2000);
	/* the guard page and a 64 MiB reservation */
	CU_ASSERT_EQUAL(b.cats[MAPS_RESERVED].va, 64 * MI + 4 * KI);
	CU_ASSERT_EQUAL(b.cats[MAPS_ANON].va, 1 * MI + 0xa000);
	uint64_t sum = 0;
	for (int c = 0; c < MAPS_NCATS; c++) {
		sum += b.cats[c].va;
		CU_ASSERT_EQUAL(b.cats[c].rss, 0);
	}
	CU_ASSERT_EQUAL(b.va, sum);
	/* between the heap and the first memfd block */
	CU_ASSERT_EQUAL(b.largest_gap, 0xc0000000ULL - 0x57021000ULL);
	CU_ASSERT_EQUAL_FATAL(b.ngroups, 8);
	CU_ASSERT_STRING_EQUAL(b.groups[0].name, "/memfd:blocks");
	CU_ASSERT_EQUAL(b.groups[0].size, 8 * MI);
	CU_ASSERT_EQUAL(b.groups[0].count, 10);
	CU_ASSERT_STRING_EQUAL(b.groups[1].name, "[anon]");
	CU_ASSERT_EQUAL(b.groups[1].size, 64 * MI);
	CU_ASSERT_EQUAL(b.groups[1].count, 1);
	CU_ASSERT_STRING_EQUAL(b.groups[2].name, "[anon]");
	CU_ASSERT_EQUAL(b.groups[2].size, 8 * MI);
	CU_ASSERT_STRING_EQUAL(b.groups[3].name, "/usr/lib32/libc.so.6");
	CU_ASSERT_EQUAL(b.groups[3].size, 0x17a000);
	for (size_t i = 1; i < b.ngroups; i++)
		CU_ASSERT(b.groups[i - 1].size * b.groups[i - 1].count >=
		          b.groups[i].size * b.groups[i].count);
	/* the same text under a 3 GiB ceiling: what lies above is not counted */
	CU_ASSERT_EQUAL(
	    maps_parse(&b, text = slurp(GUARD_DATA_DIR "/maps_x86.txt", &len), len, 3 * GI), 0);
	free(text);
	CU_ASSERT_EQUAL(b.cats[MAPS_SHM].va, 0);
	CU_ASSERT_EQUAL(b.cats[MAPS_HEAP].va, 0x21000);
	CU_ASSERT_EQUAL(b.largest_gap, 3 * GI - 0x57021000ULL);
}

void test_maps_groups_deleted_and_ties(void)
{
	/* " (deleted)" is stripped, so deleted and live copies group together;
	 * same name, different size: different groups. */
	const char text[] = "10000000-10800000 rw-s 00000000 00:01 1 /memfd:a (deleted)\n"
	                    "10800000-11000000 rw-s 00000000 00:01 2 /memfd:a\n"
	                    "11000000-11400000 rw-s 00000000 00:01 3 /memfd:a (deleted)\n"
	                    "20000000-20001000 rw-p 00000000 00:00 0\n";
	maps_breakdown b;
	CU_ASSERT_EQUAL_FATAL(maps_parse(&b, text, strlen(text), 4 * GI), 0);
	CU_ASSERT_EQUAL(b.ngroups, 3);
	const maps_group *g = find_group(&b, "/memfd:a", 8 * MI);
	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	CU_ASSERT_EQUAL(g->count, 2);
	g = find_group(&b, "/memfd:a", 4 * MI);
	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	CU_ASSERT_EQUAL(g->count, 1);
	CU_ASSERT_PTR_NOT_NULL(find_group(&b, "[anon]", 4 * KI));
	/* an rw mapping after a non-adjacent or larger ---p is not a stack */
	const char t2[] = "30000000-30001000 ---p 00000000 00:00 0\n"
	                  "30002000-30003000 rw-p 00000000 00:00 0\n"
	                  "40000000-40002000 ---p 00000000 00:00 0\n"
	                  "40002000-40003000 rw-p 00000000 00:00 0\n";
	CU_ASSERT_EQUAL_FATAL(maps_parse(&b, t2, strlen(t2), 4 * GI), 0);
	CU_ASSERT_EQUAL(b.cats[MAPS_STACK].va, 0);
	CU_ASSERT_EQUAL(b.cats[MAPS_ANON].va, 8 * KI);
	CU_ASSERT_EQUAL(b.cats[MAPS_RESERVED].va, 12 * KI);
	/* empty text: nothing mapped, the whole range is free */
	CU_ASSERT_EQUAL(maps_parse(&b, "", 0, 4 * GI), 0);
	CU_ASSERT_EQUAL(b.va, 0);
	CU_ASSERT_EQUAL(b.ngroups, 0);
	CU_ASSERT_EQUAL(b.largest_gap, 4 * GI - 0x10000);
}

void test_maps_smaps_rss(void)
{
	const char text[] =
	    "00400000-00401000 r-xp 00000000 08:01 12 /bin/host\n"
	    "Size:                  4 kB\n"
	    "Rss:                   4 kB\n"
	    "Pss:                   4 kB\n"
	    "VmFlags: rd ex mr mw me dw\n"
	    "01000000-01100000 rw-p 00000000 00:00 0 [heap]\n"
	    "Size:               1024 kB\n"
	    "Rss:                 512 kB\n"
	    "Anonymous:           512 kB\n"
	    "7f0000000000-7f0000800000 rw-s 00000000 00:01 9 /memfd:blocks (deleted)\n"
	    "Rss:                8192 kB\n"
	    "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0 [vsyscall]\n"
	    "Rss:                   4 kB\n";
	maps_breakdown b;
	CU_ASSERT_EQUAL_FATAL(maps_parse(&b, text, strlen(text), 1ULL << 47), 0);
	CU_ASSERT_EQUAL(b.cats[MAPS_CODE].rss, 4 * KI); /* [vsyscall] is above the ceiling */
	CU_ASSERT_EQUAL(b.cats[MAPS_CODE].va, 4 * KI);
	CU_ASSERT_EQUAL(b.cats[MAPS_HEAP].rss, 512 * KI);
	CU_ASSERT_EQUAL(b.cats[MAPS_SHM].rss, 8 * MI);
	CU_ASSERT_EQUAL(b.va, 4 * KI + 1 * MI + 8 * MI);
	CU_ASSERT_EQUAL(b.largest_gap, 0x7f0000000000ULL - 0x01100000ULL);
}

void test_maps_malformed(void)
{
	static const char *const bad[] = {
	    "zzzz-1000 rw-p 00000000 00:00 0\n",
	    "1000 rw-p 00000000 00:00 0\n",
	    "2000-1000 rw-p 00000000 00:00 0\n",
	    "1000-2000 rw-p\n",
	    "1000-2000 rwp 00000000 00:00 0\n",
	    "1000-2000 rw-p 00000000 00:00\n",
	    "11112222333344445-20000 rw-p 00000000 00:00 0\n",
	    "1000-2000 rw-p 00000000 00:00 0\nnot a line\n",
	    "1000-2000 rw-p 00000000 00:00 0\nRss: lots\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		maps_breakdown b;
		int rc = maps_parse(&b, bad[i], strlen(bad[i]), 4 * GI);
		if (rc != MG_EINVAL)
			fprintf(stderr, "\n  accepted '%s'\n", bad[i]);
		CU_ASSERT_EQUAL(rc, MG_EINVAL);
	}
}

/*
 * Runs `prog blocks` (tiny.c, never sanitized: an ASan process's shadow
 * reservations would crowd the blocks out of the top 8 groups), which maps
 * 10 x 8 MiB memfd blocks, and reads it with every maps reader.
 */
static void check_blocks_child(const char *prog, mg_arch arch)
{
	int out[2], in[2];
	mg_err err = {{0}};
	uint64_t ceiling = limits_arch_ceiling(arch);
	pid_t pid = gt_fork_piped(in, out);
	if (pid == 0) {
		execl(prog, prog, "blocks", (char *)NULL);
		_exit(errno == ENOEXEC ? 126 : 127);
	}
	char c = 0;
	if (read(out[0], &c, 1) != 1) {
		int status = 0;
		CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 126) {
			/* No IA32 emulation in this kernel: CTest counts 77 as a skip
			 * (SKIP_RETURN_CODE in CMakeLists.txt). */
			fprintf(stderr, "\n  skipped: this kernel cannot execute %s\n", prog);
			fflush(NULL);
			_exit(77);
		}
		CU_FAIL_FATAL("the blocks child did not start");
	}

	maps_breakdown b;
	int rc = maps_read(&b, pid, ceiling, &err);
	if (rc)
		fprintf(stderr, "\n  %s\n", err.msg);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_STRING_EQUAL(b.groups[0].name, "/memfd:blocks");
	CU_ASSERT_EQUAL(b.groups[0].size, 8 * MI);
	CU_ASSERT_EQUAL(b.groups[0].count, 10);
	CU_ASSERT(b.cats[MAPS_SHM].va >= 80 * MI);
	CU_ASSERT(b.cats[MAPS_CODE].va > 0);
	CU_ASSERT(b.cats[MAPS_STACK].va > 0);
	CU_ASSERT_EQUAL(b.cats[MAPS_SHM].rss, 0); /* maps has no rss */
	/* The sum of the mappings is VmSize, as statm reports it. */
	proc_sampler *s = NULL;
	uint64_t va = 0, rss = 0;
	CU_ASSERT_EQUAL_FATAL(proc_sampler_open(&s, pid, &err), 0);
	CU_ASSERT_EQUAL(proc_sampler_read(s, &va, &rss), 0);
	CU_ASSERT_EQUAL(b.va, va);
	proc_sampler_free(s);

	uint64_t gap = 0;
	CU_ASSERT_EQUAL(maps_largest_gap(&gap, pid, ceiling, &err), 0);
	CU_ASSERT_EQUAL(gap, b.largest_gap);
	CU_ASSERT(gap > 0 && gap < ceiling - b.va);

	maps_breakdown sm;
	CU_ASSERT_EQUAL(maps_read_smaps(&sm, pid, ceiling, &err), 0);
	CU_ASSERT(sm.cats[MAPS_SHM].rss >= 80 * MI);
	CU_ASSERT_EQUAL(sm.cats[MAPS_SHM].va, b.cats[MAPS_SHM].va);

	close(in[1]);
	int status = 0;
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status));
	CU_ASSERT_EQUAL(WEXITSTATUS(status), 0);
	close(out[0]);
	CU_ASSERT_EQUAL(maps_read(&b, pid, ceiling, &err), MG_EGONE);
	CU_ASSERT_EQUAL(maps_largest_gap(&gap, pid, ceiling, &err), MG_EGONE);
	CU_ASSERT_EQUAL(maps_read_smaps(&sm, pid, ceiling, &err), MG_EGONE);
}

void test_maps_real_child_x64(void)
{
	check_blocks_child(GUARD_TINY_X64, MG_ARCH_X64);
}

void test_maps_real_child_x86(void)
{
	check_blocks_child(GUARD_TINY_X86, MG_ARCH_X86);
}

void test_maps_self(void)
{
	maps_breakdown b;
	mg_err err = {{0}};
	CU_ASSERT_EQUAL_FATAL(maps_read(&b, 0, 1ULL << 47, &err), 0);
	CU_ASSERT(b.cats[MAPS_HEAP].va + b.cats[MAPS_ANON].va > 0);
	CU_ASSERT(b.cats[MAPS_CODE].va > 0);
	CU_ASSERT(b.ngroups > 0);
}

/*
 * tiny.c - a small host-like program built for x86 and x64 (never
 * sanitized), so the tests have a real executable of each arch. With
 * "marker" it prints its marker string; with "blocks" it maps 10 x 8 MiB
 * memfd blocks, touches them, writes "r" to stdout and waits for stdin to
 * close.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

const char guard_tiny_marker[] = "MEMGUARD-TINY-MARKER";
/* A name only a -g build's debug information holds (a member's; the
 * variable's name is in the symbol table too): elf_contains skips it. */
struct guard_tiny_debug {
	int memguard_tiny_dwarf_only;
};
struct guard_tiny_debug guard_tiny_debug_var;
/* Bytes that only the program's code holds (a marker is data or a symbol's
 * name, never code): elf_contains skips executable sections. */
__asm__(".pushsection .text\n.ascii \"MEMGUARD-TINY-IN-CODE\"\n.popsection");

static int blocks(void)
{
	const size_t size = 8 << 20;
	for (int i = 0; i < 10; i++) {
		int fd = memfd_create("blocks", MFD_CLOEXEC);
		if (fd < 0 || ftruncate(fd, (off_t)size) != 0)
			return 3;
		char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED)
			return 4;
		close(fd);
		memset(p, 1, size);
	}
	if (write(1, "r", 1) != 1)
		return 5;
	char c;
	while (read(0, &c, 1) > 0)
		;
	return guard_tiny_debug_var.memguard_tiny_dwarf_only;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "blocks") == 0)
		return blocks();
	if (argc > 1 && strcmp(argv[1], "marker") == 0)
		puts(guard_tiny_marker);
	return guard_tiny_debug_var.memguard_tiny_dwarf_only;
}

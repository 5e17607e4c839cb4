/*
 * tiny_lib.c - a small shared library carrying a marker string, built for
 * x86 and x64 under one name in two directories (lib32/, lib64/), and
 * tiny_needs.c, a program that needs it: elf_needed_contains resolves it
 * as the loader does.
 */
const char guard_tiny_lib_marker[] = "MEMGUARD-TINY-LIB-MARKER";

const char *guard_tiny_lib(void)
{
	return guard_tiny_lib_marker;
}

/* tiny.c - the smallest host-like program, built for x86 and x64 so the ELF
 * tests have a real executable of each arch. Carries a marker string. */
#include <stdio.h>

const char guard_tiny_marker[] = "MEMGUARD-TINY-MARKER";

int main(int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		puts(guard_tiny_marker);
	return 0;
}

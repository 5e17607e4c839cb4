/* tiny_needs.c - a program that needs tiny_lib.c's shared library. */
#include <stdio.h>

const char *guard_tiny_lib(void);

int main(void)
{
	return puts(guard_tiny_lib()) < 0;
}

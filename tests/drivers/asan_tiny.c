/* asan_tiny.c - the smallest AddressSanitizer build: gcc links its
 * runtime here with -static-libasan, which leaves __asan_init only in the
 * symbol names (.strtab), not in .dynstr (test_parse.c's asan_mark). */
#include <stdio.h>

int main(void)
{
	puts("asan");
	return 0;
}

/* x86_check: a static 32-bit program that does nothing. Whether this kernel
 * executes it is whether a case of 32-bit programs (a CTest name ending in
 * _x86) can run here (mg_x86.h). */
int main(void)
{
	return 0;
}

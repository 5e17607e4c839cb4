/* What each program and library of tests/drivers that is not memguard's own
 * code is compiled from in a build that takes them from another build
 * (MEMGUARD_CORPUS_FROM, CMakeLists.txt): the other build's file is copied
 * over the result after its link. */
int main(void)
{
	return 0;
}

/* host.c - the smallest host a user writes: one test, the host library only. */
#include "memguard_host.h"

static mg_result one(void)
{
	return MG_PASS;
}

int main(int argc, char **argv)
{
	static const mg_test tests[] = {{"consumer/one", one}};
	return mg_host_main(tests, 1, argc, argv);
}

/*
 * long_name_host.c - a memguard host whose second test has a 100 KB name
 * (over the protocol's line limit): the host library refuses to start and
 * says why on stderr, for hostile__long_test_name.
 */
#include "memguard_host.h"

#include <string.h>

static mg_result pass(void)
{
	return MG_PASS;
}

int main(int argc, char **argv)
{
	static char name[100 * 1024 + 1];
	memset(name, 'n', sizeof(name) - 1);
	const mg_test tests[] = {{"short", pass}, {name, pass}};
	return mg_host_main(tests, 2, argc, argv);
}

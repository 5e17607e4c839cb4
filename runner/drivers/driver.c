/*
 * driver.c - choosing a driver, and the __driver entry point that hands
 * over to the shim for that kind (see driver.h). Reads files; runs nothing.
 */
#include "driver.h"

#include <stdio.h>
#include <string.h>

#include "elf.h"
#include "memguard_host.h"

static const char *const names[] = {"native", "gtest", "exec", "wrap"};

int driver_parse(driver_kind *out, const char *name, mg_err *err)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i])) {
			*out = (driver_kind)i;
			return 0;
		}
	return mg_err_set(err, MG_EINVAL, "unknown driver '%s' (known: native, gtest, exec, wrap)",
	                  name);
}

const char *driver_name(driver_kind k)
{
	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "unknown";
}

driver_kind driver_detect(const char *path, char *note, size_t size)
{
	note[0] = 0;
	if (elf_contains(path, MG_HOST_MARKER, NULL) == 1)
		return DRIVER_NATIVE;
	snprintf(note, size,
	         "%s does not carry the memguard host library: running it whole with "
	         "--driver wrap (no per-test results)",
	         path);
	return DRIVER_WRAP;
}

int driver_main(int argc, char **argv)
{
	(void)argc;
	fprintf(stderr, "memguard __driver %s: not built yet\n", argc > 1 ? argv[1] : "");
	return 3;
}

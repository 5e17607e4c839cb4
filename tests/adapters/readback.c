/*
 * readback.c - what the adapter unit tests read back: a report written to
 * memory, an adapter's output rendered to a file (readback.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "adapters.h"
#include "mg_test.h"
#include "readback.h"

char *readback_mem(const report *r, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(report_write(r, f), 0);
	CU_ASSERT_EQUAL_FATAL(fclose(f), 0);
	return buf;
}

char *readback_render(const report *r, const char *adapter)
{
	char dir[] = "/tmp/mg-render-XXXXXX", spec[128], path[64];
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/out", dir);
	snprintf(spec, sizeof(spec), "%s=%s", adapter, path);
	mg_err err = {{0}};
	CU_ASSERT_EQUAL_FATAL(adapters_render(r, spec, &err), 0);
	FILE *f = fopen(path, "r");
	CU_ASSERT_FATAL(f != NULL);
	static char buf[1 << 20];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	unlink(path);
	rmdir(dir);
	return buf;
}

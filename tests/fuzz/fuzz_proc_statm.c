/* fuzz_proc_statm.c - the /proc/PID/statm parser (guard/proc.h), on the
 * input's bytes as they are (it takes a length, no NUL). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	uint64_t pages, resident;
	proc_parse_statm(buf, size, &pages, &resident);
	free(buf);
	return 0;
}

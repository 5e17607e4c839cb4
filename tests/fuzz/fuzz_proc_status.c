/* fuzz_proc_status.c - the /proc/PID/status parser and the /proc/PID/stat
 * ppid parser (guard/proc.h), on the input's bytes as they are (both take a
 * length, no NUL). */
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
	proc_status st;
	proc_parse_status(buf, size, &st);
	pid_t ppid;
	proc_parse_stat_ppid(buf, size, &ppid);
	free(buf);
	return 0;
}

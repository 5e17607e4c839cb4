/* fuzz_maps.c - the /proc/PID/maps and smaps parser (guard/maps.h), on the
 * input's bytes as they are (it takes a length, no NUL), against the x86
 * and the x64 ceiling. */
#include <stdint.h>

#include "maps.h"
#include "mg_limits.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* libFuzzer's buffer is exactly size bytes (ASan catches a read past
	 * it): parsed in place, no copy per input */
	maps_breakdown b;
	maps_parse(&b, (const char *)data, size, limits_arch_ceiling(MG_ARCH_X86));
	maps_parse(&b, (const char *)data, size, limits_arch_ceiling(MG_ARCH_X64));
	return 0;
}

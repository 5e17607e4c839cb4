/* fuzz_config.c - the config loader (runner/options.h): the input as the
 * text of memguard.json through options_load_config_buffer, then the limit
 * texts it set through options_limits; nothing is run or opened. */
#include <stdint.h>
#include <stdlib.h>

#include "options.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	run_options o;
	mg_err err;
	options_init(&o);
	if (options_load_config_buffer(&o, (const char *)data, size, "fuzz", &err) == 0) {
		limits_spec soft, hard;
		options_limits(&o, &soft, &hard);
	}
	options_free(&o);
	return 0;
}

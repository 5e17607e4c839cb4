/* fuzz_limits.c - the limit grammar (guard/mg_limits.h): the input as a
 * NUL-terminated text through limits_parse, limits_parse_size and
 * limits_arch_parse; a parsed spec is resolved and formatted for each arch. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mg_limits.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	mg_err err;
	limits_spec spec;
	memset(&spec, 0, sizeof(spec));
	if (limits_parse(&spec, text, &err) == 0) {
		static const mg_arch arches[] = {MG_ARCH_X86, MG_ARCH_X64, MG_ARCH_UNKNOWN};
		for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); i++) {
			limits l, soft, hard;
			char buf[128];
			limits_resolve(&l, &spec, arches[i], 8ULL << 30, 512ULL << 20);
			limits_format(buf, sizeof(buf), &l);
			limits_check(&l, 1, 2, 3, 4);
			limits_base base = {arches[i], limits_arch_ceiling(arches[i]), 8ULL << 30,
			                    (i == 1) ? 0 : 512ULL << 20, 0};
			limits_spec none;
			memset(&none, 0, sizeof(none));
			limits_settle(&soft, &hard, &spec, &none, &base, &err);
			limits_settle(&soft, &hard, &none, &spec, &base, NULL);
			limits_settle(&soft, &hard, &spec, &spec, &base, &err);
		}
	}
	uint64_t bytes;
	limits_parse_size(&bytes, text, &err);
	mg_arch arch;
	limits_arch_parse(&arch, text, &err);
	free(text);
	return 0;
}

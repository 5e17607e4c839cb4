/* fuzz_proto.c - the protocol line parser (runner/host/mg_proto.h) and the
 * escaper: a line of the input's bytes, parsed in place; a parsed name or
 * message is escaped again. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mg_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* exact size, no NUL after it: the parser takes a length */
	char *line = malloc(size ? size : 1);
	if (!line)
		return 0;
	memcpy(line, data, size);
	mg_msg m;
	if (mg_proto_parse(&m, line, size) == 0 && m.text) {
		char small[16];
		size_t need = mg_proto_escape(small, sizeof(small), m.text, m.text_len);
		char *esc = malloc(need ? need : 1);
		if (esc) {
			mg_proto_escape(esc, need, m.text, m.text_len);
			free(esc);
		}
	}
	free(line);
	return 0;
}

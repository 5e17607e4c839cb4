/* fuzz_proto.c - the protocol line parser (runner/host/mg_proto.h), its
 * writer and the escaper: a line of the input's bytes, parsed in place; a
 * parsed line is written again with mg_proto_put and must parse back to the
 * same message (put -> parse round trip), be written the same way again, and
 * a writer given less room must write exactly the line's prefix. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mg_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether a and b are the same message, field by field. */
static int same_msg(const mg_msg *a, const mg_msg *b)
{
	if (a->kind != b->kind || a->version != b->version || strcmp(a->arch, b->arch) ||
	    a->pid != b->pid || a->usec != b->usec || a->va != b->va || a->rss != b->rss ||
	    a->count != b->count || a->why != b->why || a->bytes != b->bytes || a->sig != b->sig ||
	    a->site_kind != b->site_kind || a->nframes != b->nframes ||
	    a->build_id_len != b->build_id_len ||
	    (a->build_id_len && memcmp(a->build_id, b->build_id, a->build_id_len)))
		return 0;
	if (!a->text || !b->text)
		return !a->text && !b->text;
	return a->text_len == b->text_len && !memcmp(a->text, b->text, a->text_len);
}

static void round_trip(const mg_msg *m)
{
	size_t need = mg_proto_put(NULL, 0, m);
	char *line = malloc(need ? need : 1), *again = malloc(need ? need : 1);
	if (!line || !again)
		abort();
	if (mg_proto_put(line, need, m) != need || need == 0 || line[need - 1] != '\n')
		abort();
	char small[16];
	size_t cut = mg_proto_put(small, sizeof(small), m);
	if (cut != need || memcmp(small, line, need < sizeof(small) ? need : sizeof(small)))
		abort(); /* a short writer writes the prefix and says the length */
	mg_msg back;
	memcpy(again, line, need);
	if (need > MG_PROTO_LINE_MAX) { /* the parsed line was within it; escapes grow */
		free(line);
		free(again);
		return;
	}
	if (mg_proto_parse(&back, again, need - 1) < 0 || !same_msg(m, &back))
		abort();
	char *third = malloc(need);
	if (!third)
		abort();
	if (mg_proto_put(third, need, &back) != need || memcmp(third, line, need))
		abort(); /* one way to write a message */
	free(third);
	free(line);
	free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* exact size, no NUL after it: the parser takes a length */
	char *line = malloc(size ? size : 1);
	if (!line)
		return 0;
	memcpy(line, data, size);
	mg_msg m;
	if (mg_proto_parse(&m, line, size) == 0) {
		if (m.text) {
			char small[16];
			size_t need = mg_proto_escape(small, sizeof(small), m.text, m.text_len);
			char *esc = malloc(need ? need : 1);
			if (esc) {
				mg_proto_escape(esc, need, m.text, m.text_len);
				free(esc);
			}
		}
		round_trip(&m);
	}
	free(line);
	return 0;
}

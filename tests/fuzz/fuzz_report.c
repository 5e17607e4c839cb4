/* fuzz_report.c - the report readers (adapters/report.h): the input read in
 * pieces (report_parse, as report_load and notes read it) and as one
 * Jansson tree (report_from_json); a report either accepts is written back
 * (report_write, report_to_json), and when both accept they must hold the
 * same report (the same text written). */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The report as report_write writes it (malloc'd; *len its length). */
static char *written(const report *r, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	if (!f)
		abort();
	if (report_write(r, f) != 0)
		abort();
	fclose(f);
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	mg_err err;
	report *pieces = NULL, *tree = NULL;
	report_parse(&pieces, (const char *)data, size, &err);
	json_error_t jerr;
	json_t *doc = json_loadb((const char *)data, size, 0, &jerr);
	if (doc && report_from_json(&tree, doc, &err) == 0)
		json_decref(report_to_json(tree));
	if (pieces && tree) {
		size_t la, lb;
		char *a = written(pieces, &la), *b = written(tree, &lb);
		if (la != lb || memcmp(a, b, la) != 0)
			abort(); /* the two readers disagree */
		free(a);
		free(b);
	}
	report_free(pieces);
	report_free(tree);
	json_decref(doc);
	return 0;
}

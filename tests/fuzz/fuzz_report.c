/* fuzz_report.c - the report loader (adapters/report.h): the input as JSON
 * text (Jansson, as report_load reads a file) through report_from_json; a
 * report it accepts is written back to JSON. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>

#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_error_t jerr;
	json_t *doc = json_loadb((const char *)data, size, 0, &jerr);
	if (!doc)
		return 0;
	mg_err err;
	report *r = NULL;
	if (report_from_json(&r, doc, &err) == 0) {
		json_t *again = report_to_json(r);
		json_decref(again);
	}
	report_free(r);
	json_decref(doc);
	return 0;
}

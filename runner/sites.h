/*
 * sites.h - allocation sites in the runner (issue 25): the lines a host sends
 * for the test it ran (module, site, pin, nomem; PROTOCOL.md), gathered until its
 * result, moved into the report, and symbolized with libdw when the run ends.
 */
#ifndef SITES_H
#define SITES_H

#include <stddef.h>
#include <stdint.h>

#include "mg_proto.h"
#include "report.h"

#define SITES_MODS_MAX 256 /* module lines of one test */

/* What a host said of its started test before the result. */
typedef struct sites_head {
	struct {
		char *path, *build_id;
	} mods[SITES_MODS_MAX];
	size_t nmods;
	report_test_sites ts; /* frames: module, build_id, offset (not yet symbolized) */
	uint64_t nomem;       /* allocations that failed during the test */
} sites_head;

/* Adds a module, site, pin or nomem line: NULL, or why it is a protocol
 * error (out of order: a site naming a module not yet sent, IDs not counting
 * up, a pin before any site; more than MG_PROTO_PINS_MAX pins for one site). */
const char *sites_head_line(sites_head *sh, const mg_msg *m);

/* Frees what sh gathered (a test not recorded: retried, killed); sh stays usable. */
void sites_head_clear(sites_head *sh);

/* Moves the gathered sites to test `test` of shard s (when any), then clears sh. */
void sites_head_record(sites_head *sh, report_shard *s, size_t test);

/* Every frame of every shard's sites that has a module and no function yet:
 * function, file and line from libdw (one open per module and build-id). */
void sites_symbolize(report *r);

/* name as a reader writes it, malloc'd: a mangled C++ name ("_Z...")
 * demangled (libstdc++'s __cxa_demangle, loaded when first needed) and cut
 * to the function's, its parameters and a template's return type gone
 * ("_ZN2ns4fillIiEEvT_" is "ns::fill<int>"); any other name, or one the
 * demangler refuses, as it is. */
char *sites_cxx_name(const char *name);

typedef struct sites_cache sites_cache;
sites_cache *sites_cache_new(void);
void sites_cache_free(sites_cache *sc);
/* One frame (f->module, f->build_id, f->offset from its load bias). */
void sites_symbolize_frame(sites_cache *sc, report_frame *f);

#endif

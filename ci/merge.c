/*
 * merge.c - "memguard merge OUT IN...": combines the reports of several CI
 * nodes into one with the keyed report merge, written atomically. Touches no
 * repository.
 */
#include <string.h>

#include "ci_int.h"

#define CMD "merge"

int merge_main(int argc, char **argv)
{
	const char *out = NULL;
	report *into = NULL, *from = NULL;
	mg_err err;
	int rc, nin = 0;

	for (int i = 1; i < argc; i++) {
		if (ci_is_help(argv[i]))
			return ci_cmd_usage(CMD, stdout, MG_EXIT_OK);
		if (argv[i][0] == '-' && argv[i][1]) {
			ci_fail(CMD, MG_EXIT_USAGE, "unknown option '%s'", argv[i]);
			return ci_cmd_usage(CMD, stderr, MG_EXIT_USAGE);
		}
	}
	if (argc < 3) {
		ci_fail(CMD, MG_EXIT_USAGE, "needs OUT.json and at least one IN.json");
		return ci_cmd_usage(CMD, stderr, MG_EXIT_USAGE);
	}
	out = argv[1];
	for (int i = 2; i < argc; i++) {
		report **dst = into ? &from : &into;
		rc = report_load(dst, argv[i], &err);
		if (rc < 0) {
			rc = ci_fail(CMD, rc == MG_ENOTFOUND ? MG_EXIT_USAGE : MG_EXIT_INFRA, "%s",
			             err.msg);
			goto out;
		}
		nin++;
		if (dst == &from) {
			if ((rc = report_merge(into, from, &err)) < 0) {
				rc = ci_fail(CMD, MG_EXIT_INFRA, "%s: %s", argv[i], err.msg);
				goto out;
			}
			report_free(from);
			from = NULL;
		}
	}
	store_canonical(into);
	if ((rc = report_save(into, out, &err)) < 0) {
		rc = ci_fail(CMD, MG_EXIT_INFRA, "%s", err.msg);
		goto out;
	}
	printf("merged %d report%s into %s (%zu shards)\n", nin, nin == 1 ? "" : "s", out,
	       into->nshards);
	rc = MG_EXIT_OK;
out:
	report_free(into);
	report_free(from);
	return rc;
}

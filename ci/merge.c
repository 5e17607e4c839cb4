/*
 * merge.c - "memguard merge OUT IN...": combines the reports of several CI
 * nodes into one with the keyed report merge, written atomically. Touches no
 * repository.
 */
#include <stdlib.h>
#include <string.h>

#include "ci_int.h"

#define CMD "merge"

/* Writes "1, 3" to buf: the nodes of 1..total that are (want=1) or are not
 * (want=0) in v, "..." past what fits; returns how many there are. */
static size_t node_list(char *buf, size_t size, const uint32_t *v, size_t n, uint32_t total,
                        int want)
{
	size_t len = 0, count = 0;
	buf[0] = '\0';
	for (uint32_t node = 1; node <= total && node != 0; node++) {
		int in = 0;
		for (size_t i = 0; i < n && !in; i++)
			in = v[i] == node;
		if (in != want)
			continue;
		count++;
		if (len + 16 < size)
			len +=
			    (size_t)snprintf(buf + len, size - len, "%s%u", len ? ", " : "", node);
		else if (len + 4 < size && buf[len - 1] != '.')
			len += (size_t)snprintf(buf + len, size - len, ", ...");
	}
	return count;
}

/*
 * Records which nodes the merged report holds (report.nodes_present: the
 * union report_merge keeps, or the one input's node) and warns on stderr
 * when some of 1..node_total are missing: a merge of a partial node set
 * looks complete otherwise.
 */
static void check_nodes(report *r)
{
	char present[512], missing[512];
	if (!r->nnodes_present) {
		r->nodes_present = malloc(sizeof(uint32_t));
		if (!r->nodes_present)
			abort();
		r->nodes_present[0] = r->node_index;
		r->nnodes_present = 1;
	}
	uint32_t total = r->node_total;
	for (size_t i = 0; i < r->nnodes_present; i++)
		total = r->nodes_present[i] > total ? r->nodes_present[i] : total;
	node_list(present, sizeof(present), r->nodes_present, r->nnodes_present, total, 1);
	size_t nmissing =
	    node_list(missing, sizeof(missing), r->nodes_present, r->nnodes_present, total, 0);
	if (nmissing)
		fprintf(stderr,
		        "memguard " CMD ": warning: partial node set: node%s %s of %u present, "
		        "node%s %s missing\n",
		        r->nnodes_present == 1 ? "" : "s", present, total, nmissing == 1 ? "" : "s",
		        missing);
}

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
			ci_unknown_option(CMD, argv[i]);
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
			rc = ci_fail(CMD, report_load_exit(rc), "%s", err.msg);
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
	check_nodes(into);
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

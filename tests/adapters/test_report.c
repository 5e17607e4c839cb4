/*
 * test_report.c - the adapters' unit tests: the table of cases and the
 * helpers the case files share. The cases are in test_report_json.c,
 * test_report_save.c, test_report_merge.c, test_report_model.c and
 * test_adapters.c.
 */
#include "test_report.h"
#include "adapters.h"
#include "fixture.h"
#include "mg_test.h"
#include "report.h"
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

char tmpdir[256];

void make_tmpdir(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "%s/mg_adapters_XXXXXX",
	         getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	CU_ASSERT_FATAL(mkdtemp(tmpdir) != NULL);
}

void path_in(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", tmpdir, name);
}

void cleanup_tmpdir(void)
{
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	CU_ASSERT(system(cmd) == 0);
}

int file_exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0;
}

/* Equality with strings compared after UTF-8 sanitising (what JSON keeps). */
int str_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	char *sa = report_utf8_sanitize(a, NULL);
	char *sb = report_utf8_sanitize(b, NULL);
	int eq = strcmp(sa, sb) == 0;
	free(sa);
	free(sb);
	return eq;
}

/* Equality of bytes (NUL included) after UTF-8 sanitising, as str_eq. */
int bytes_eq(const report_bytes *a, const report_bytes *b)
{
	if (!a || !b)
		return a == b;
	size_t la, lb;
	char *sa = report_utf8_sanitize_n(a->data, a->len, &la);
	char *sb = report_utf8_sanitize_n(b->data, b->len, &lb);
	int eq = la == lb && memcmp(sa, sb, la) == 0;
	free(sa);
	free(sb);
	return eq;
}

int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

char *slurp_text(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *buf = calloc(1, 1 << 20);
	size_t n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

report *node_report(uint32_t node, uint32_t total, uint64_t passes)
{
	report *r = report_new();
	r->node_index = node;
	r->node_total = total;
	r->start_time = 1000 + node;
	r->wall = 10.0 * node;
	r->exit_code = node == 2 ? 1 : 0;
	for (uint32_t lane = 0; lane < 2; lane++) {
		report_shard *s = report_add_shard(r);
		s->node = node;
		s->index = lane;
		s->suite = report_strdup("core");
		s->arch = report_strdup("x86");
		for (uint64_t i = 0; i < passes; i++) {
			report_test *t = report_shard_add_test(s);
			char name[32];
			snprintf(name, sizeof(name), "core/t%llu", (unsigned long long)i);
			t->name = report_strdup(name);
			t->state = i == 0 && node == 2 ? TEST_FAIL : TEST_PASS;
			t->va_delta = 100;
		}
	}
	report_finish(r, 10);
	return r;
}

static const mg_case cases[] = {
    {"roundtrip", test_roundtrip},
    {"roundtrip_limit_bytes", test_roundtrip_limit_bytes},
    {"roundtrip_no_repo", test_roundtrip_no_repo},
    {"write_is_tree", test_write_is_tree},
    {"load_v1", test_load_v1},
    {"load_any_layout", test_load_any_layout},
    {"utf8_replaced", test_utf8_replaced},
    {"load_missing", test_load_missing},
    {"load_not_json", test_load_not_json},
    {"load_wrong_schema", test_load_wrong_schema},
    {"load_wrong_type", test_load_wrong_type},
    {"load_unknown_state", test_load_unknown_state},
    {"load_missing_field", test_load_missing_field},
    {"load_bad_timeline", test_load_bad_timeline},
    {"save_no_dir", test_save_no_dir},
    {"save_failure_keeps_old", test_save_failure_keeps_old},
    {"save_symlink_tmp", test_save_symlink_tmp},
    {"save_concurrent", test_save_concurrent},
    {"save_to_fifo", test_save_to_fifo},
    {"merge_counts", test_merge_counts},
    {"merge_replace", test_merge_replace},
    {"parse_some_merging", test_parse_some_merging},
    {"parse_tests", test_parse_tests},
    {"test_peaks", test_test_peaks},
    {"load_out_of_range_test", test_load_out_of_range_test},
    {"merge_exit_codes", test_merge_exit_codes},
    {"merge_containment", test_merge_containment},
    {"merge_rerun", test_merge_rerun},
    {"finish_suspects", test_finish_suspects},
    {"finish_saturates", test_finish_saturates},
    {"many_tests", test_many_tests},
    {"finish_totals", test_finish_totals},
    {"state_failed", test_state_failed},
    {"shard_key", test_shard_key},
    {"merge_suspects", test_merge_suspects},
    {"format_size", test_format_size},
    {"format_duration", test_format_duration},
    {"start_time_out_of_range", test_start_time_out_of_range},
    {"check_spec", test_check_spec},
    {"adapter_detail", test_adapter_detail},
    {"console_to_file", test_console_to_file},
    {"console_largest", test_console_largest},
    {"console_message_lines", test_console_message_lines},
    {"junit_catch2_trimmed", test_junit_catch2_trimmed},
    {"auto_env", test_auto_env},
    {"html_bad_path", test_html_bad_path},
    {"save_to_device", test_save_to_device},
    {"buildkite_agent", test_buildkite_agent},
    {"github_files", test_github_files},
    {"clean_text", test_clean_text},
    {"markdown_truncated", test_markdown_truncated},
    {"load_unknown_end", test_load_unknown_end},
    {"load_empty_approximate", test_load_empty_approximate},
    {"approximate_said", test_approximate_said},
    {"endings_same_set", test_endings_same_set},
};

MG_TEST_MAIN("adapters", cases)

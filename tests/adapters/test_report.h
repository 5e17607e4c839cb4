/*
 * test_report.h - what the adapters' unit test files share: a temporary
 * directory per case, report comparison, small file helpers, and the cases
 * (each file holds one concern; test_report.c has the table and main).
 */
#ifndef MG_TEST_REPORT_H
#define MG_TEST_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "readback.h"
#include "report.h"

extern char tmpdir[256];
void make_tmpdir(void);
void path_in(char *buf, size_t size, const char *name);
void cleanup_tmpdir(void);
int file_exists(const char *p);
/* Equality with strings compared after UTF-8 sanitising (what JSON keeps). */
int str_eq(const char *a, const char *b);
int bytes_eq(const report_bytes *a, const report_bytes *b);
int write_file(const char *path, const char *text);
char *slurp_text(const char *path);
report *node_report(uint32_t node, uint32_t total, uint64_t passes);

/* the cases */
void test_roundtrip(void);
void test_write_is_tree(void);
void test_load_v1(void);
void test_load_any_layout(void);
void test_roundtrip_limit_bytes(void);
void test_roundtrip_no_repo(void);
void test_utf8_replaced(void);
void test_load_missing(void);
void test_load_not_json(void);
void test_load_wrong_schema(void);
void test_load_wrong_type(void);
void test_load_unknown_state(void);
void test_load_missing_field(void);
void test_load_bad_timeline(void);
void test_save_no_dir(void);
void test_save_failure_keeps_old(void);
void test_save_symlink_tmp(void);
void test_save_concurrent(void);
void test_save_to_fifo(void);
void test_merge_counts(void);
void test_merge_replace(void);
void test_parse_some_merging(void);
void test_parse_tests(void);
void test_test_peaks(void);
void test_load_out_of_range_test(void);
void test_merge_exit_codes(void);
void test_merge_containment(void);
void test_merge_rerun(void);
void test_finish_saturates(void);
void test_many_tests(void);
void test_finish_suspects(void);
void test_state_failed(void);
void test_finish_totals(void);
void test_shard_key(void);
void test_merge_suspects(void);
void test_format_size(void);
void test_format_duration(void);
void test_start_time_out_of_range(void);
void test_check_spec(void);
void test_adapter_detail(void);
void test_console_to_file(void);
void test_console_largest(void);
void test_console_message_lines(void);
void test_junit_catch2_trimmed(void);
void test_auto_env(void);
void test_save_to_device(void);
void test_html_bad_path(void);
void test_buildkite_agent(void);
void test_github_files(void);
void test_clean_text(void);
void test_markdown_truncated(void);
void test_load_unknown_end(void);
void test_load_empty_approximate(void);
void test_approximate_said(void);
void test_endings_same_set(void);

#endif

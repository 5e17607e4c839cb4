/*
 * test_ci.h - what the ci test files share: each case's temporary
 * directory, real repositories built with libgit2, reports, and running a
 * command through ci_main with stdout and stderr captured.
 */
#ifndef MG_TEST_CI_H
#define MG_TEST_CI_H

#include "adapters.h"
#include "ci.h"
#include "ci_int.h"
#include "mg_test.h"
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <git2.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define REF "refs/notes/memguard"

#define GIB (1024ull * 1024 * 1024)

#define MIB (1024ull * 1024)

typedef struct run {
	int rc;
	char out[1 << 16];
	char err[1 << 14];
} run;

extern char root[256];
extern char home_cwd[4096];
int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw);
void cleanup(void);
/* A fresh root directory; every path below lives in it. */
const char *setup(void);
char *path_in(const char *dir, const char *name);
void write_file(const char *path, const char *text);
extern git_time_t clock_now;
git_repository *mk_repo(const char *dir);
/* A commit of the current index, on update_ref (may be NULL) with parents. */
void commit_index(git_repository *repo, const char *update_ref, const git_oid *parent_ids,
                  size_t np, const char *msg, git_oid *out);
/* Writes name in the worktree, stages it and commits on HEAD. */
void commit_file(git_repository *repo, const char *name, const char *content, git_oid *out);
void commits(git_repository *repo, int n, git_oid *out);
void sha_of(char buf[GIT_OID_HEXSZ + 1], const git_oid *id);
void short_of(char buf[16], const git_oid *id);
/* One shard with three tests; suite/t0 leaves leak bytes of VA behind. */
report *mk_report(uint32_t node, const char *arch, const char *suite, uint32_t index,
                  uint64_t peak_va, uint64_t peak_rss, uint32_t recycles, int64_t leak);
const char *save_report(report *r, const char *dir, const char *name);
/* The note of target parsed as a report, or NULL. */
report *read_note(git_repository *repo, const char *ref, const git_oid *target);
int note_has_shard(const report *r, uint32_t node, const char *arch, uint64_t peak_va);
void slurp(int fd, char *buf, size_t size);
/* ci_main(cmd, argv = {cmd, args..., NULL}) in dir with stdout/stderr captured. */
run *run_in(const char *dir, const char *cmd, ...);
int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
size_t count_lines_with(const char *text, const char *needle);
/* The git CLI fetches, as the CI templates do (libgit2 1.5's anonymous remote
 * leaks pcre2 match data, which would fail the sanitizer build). */
int fetch_notes(const char *into_dir, const char *from_dir, const char *dst_ref);
/* A shallow clone (depth 2) of a repository with 5 noted commits. */
const char *shallow_clone(git_oid *c);

/* the cases */
void identity_plain(void);
void identity_detached(void);
void identity_dirty(void);
void identity_not_repo(void);
void identity_bare_worktree(void);
void note_show_roundtrip(void);
void show_as_console(void);
void note_git_cli_reads(void);
void note_git_cli_writes(void);
void note_two_nodes(void);
void note_over_note_reread(void);
void note_strips_timeline(void);
void note_report_sha(void);
void note_concurrent_pairs(void);
void note_lock_busy(void);
void notes_merge_lock_busy(void);
void note_keeps_other_schema(void);
void note_keeps_plain_text(void);
void notes_merge_converge(void);
void notes_merge_missing_ref(void);
void notes_fanout(void);
void show_missing(void);
void show_corrupt_json(void);
void show_corrupt_schema(void);
void compare_regression(void);
void compare_size_units(void);
void compare_unchanged(void);
void compare_own_process(void);
void compare_shards_bounded(void);
void compare_missing_base(void);
void compare_files(void);
void compare_bad_threshold(void);
void compare_markdown(void);
void compare_merge_base(void);
void growth_parse_case(void);
void log_first_parent(void);
void log_html(void);
void log_formats(void);
void merge_files(void);
void compare_table_three(void);
void compare_exceeded_bounded(void);
void compare_table_revisions(void);
void merge_partial_nodes(void);
void usage(void);
void notes_non_note_entries(void);
void notes_merge_rejects_code(void);
void notes_merge_corrupt(void);
void notes_merge_ff_corrupt(void);
void log_shallow(void);
void compare_shallow(void);
void compare_tests_by_suite(void);
void compare_saturates(void);
void compare_utf8_labels(void);
void gate_lanes_by_key(void);
void gate_process_peaks(void);
void gate_history_band(void);
void gate_near_ceiling(void);

#endif

/*
 * integration.h - what the integration test files share (beside
 * mg_run.h): helpers more than one file uses, and the cases.
 */
#ifndef MG_INTEGRATION_H
#define MG_INTEGRATION_H

#include "cgroup.h"
#include "mg_run.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* 5. 3 GiB reserved (in 256 MiB pieces, as a 32-bit process must) in one test: killed, retried
 * alone, memory-limit. */
void reserve(const char *host);
/*
 * A memory cgroup limited to 512 MiB, as in a CI container: run directly,
 * a host that keeps 64 MiB per test is killed by the kernel's OOM killer;
 * under memguard the x64 defaults (recycle at 80% of the cgroup's limit)
 * recycle it first and every test passes. Needs a writable cgroup tree
 * (root): v1's memory controller or v2's; skipped (77) otherwise.
 */
extern char cg_dir[128], cg_procs[160];
int write_file(const char *dir, const char *file, const char *text);
int cgroup_make(uint64_t limit);
/* Every generation of the report's first shard: each check(gen) must hold;
 * returns how many there were. */
size_t gens_of(json_t *report, json_t **out, size_t cap);
/* Planning from history: every 50th of 1,000 tests maps 700 MiB for 20 ms
 * while the host keeps 8 MiB per test. Without history the big test that
 * comes late in a host is killed mid-way and retried; with the first run's
 * report as --history the host refuses it where it would not fit (it knows
 * its peak) and a fresh host runs it: no kill, no failure. */
extern const char *const transient_env[];

/* the cases */
void demo_direct_dies(void);
void demo_recycles(void);
void demo_direct_dies_capped(void);
void demo_recycles_capped(void);
void demo_recycles_inherited_cap(void);
void crash(void);
void fail_below_start(void);
void timeout(void);
void garbage(void);
void reserve_x86(void);
void reserve_x64(void);
void spike_x64(void);
void spike_x86(void);
void node_split(void);
void planted_leaks_x64(void);
void planted_leaks_x86(void);
void cgroup_oom(void);
void cgroup_oom_x86(void);
void address_space_x86(void);
void exec_script_hog_x86(void);
void wrap_script_hog_x86(void);
void shell_segv(void);
void rss_delta_exact_x64(void);
void rss_delta_exact_x86(void);
void growth_admission_x86(void);
void growth_admission_capped(void);
void gap_fragments_x86(void);
void gap_below_half_x86(void);
void oom_crash_x86(void);
void oom_death_x86(void);
void oom_crash_capped(void);
void output_exact_x64(void);
void output_exact_x86(void);
void output_sparse_x64(void);
void output_sparse_x86(void);
void history_transient_x86(void);
void history_transient_capped(void);
void history_transient_runner(void);
void history_unusable(void);
void history_auto(void);
void identity_lazy(void);
void node_split_history(void);
void history_auto_pr(void);
void order_history(void);
void contradictory_limits(void);
void contradictory_limits_x86(void);
void arch_contradiction_x86(void);
void cgroup_oom_killer(void);
void cgroup_oom_two_lanes(void);
void rss_pool_two_lanes(void);
void wrap_soft_warning(void);
void sigterm(void);
void stop_signals(void);
void sigint_again(void);
void protocol_break_between_tests(void);
void v1_output_between(void);
void crash_child_holds_pipe(void);
void sigterm_while_listing(void);
void cunit_x64(void);
void cunit_x86(void);
void bad_limit(void);
void unknown_flag(void);
void bad_numbers(void);
void missing_host(void);
void bad_config(void);
void two_lanes(void);
void host_x64(void);
void host_x86(void);
void recycle_x64(void);
void list(void);
void no_tests(void);
void no_tests_allowed(void);
void listing_timeout(void);
void listing_deadline(void);
void unknown_hello_version(void);
void duplicate_names(void);
void closed_reply_pipe(void);
void list_no_tests(void);
void out_of_fds(void);
void report_console_roundtrip(void);
void report_console_roundtrip_leaks(void);
void corrupt_report_exit(void);
void output_nul_x64(void);
void output_nul_x86(void);

#endif

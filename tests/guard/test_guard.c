/* test_guard.c - the one CUnit program of the guard tests: lists every case;
 * the cases live in test_limits.c, test_proc.c, test_cgroup.c, test_elf.c
 * and test_maps.c. */
#include "mg_test.h"

void test_limits_units(void);
void test_limits_fractions(void);
void test_limits_plain_bytes(void);
void test_limits_bad_sizes(void);
void test_limits_percentages(void);
void test_limits_multi_key(void);
void test_limits_layering(void);
void test_limits_bad_tokens(void);
void test_limits_arch(void);
void test_limits_defaults(void);
void test_limits_resolve(void);
void test_limits_check(void);
void test_limits_format(void);
void test_proc_statm_parse(void);
void test_proc_status_parse(void);
void test_proc_status_malformed(void);
void test_proc_stat_ppid(void);
void test_proc_read_status_self(void);
void test_proc_read_status_gone(void);
void test_proc_sampler_child(void);
void test_proc_descendants(void);
void test_proc_descendants_scan(void);
void test_proc_descendants_none(void);
void test_proc_ram_page(void);
void test_cgroup_v1_unlimited(void);
void test_cgroup_v1_limited(void);
void test_cgroup_v1_container_root(void);
void test_cgroup_v2_unlimited(void);
void test_cgroup_v2_limited(void);
void test_cgroup_not_found(void);
void test_cgroup_real(void);
void test_elf_arch_x86(void);
void test_elf_arch_x64(void);
void test_elf_arch_not_elf(void);
void test_elf_contains_program(void);
void test_elf_contains_boundary(void);

void test_maps_fixture_x86(void);
void test_maps_groups_deleted_and_ties(void);
void test_maps_smaps_rss(void);
void test_maps_malformed(void);
void test_maps_real_child_x64(void);
void test_maps_real_child_x86(void);
void test_maps_self(void);

static const mg_case cases[] = {
    {"limits_units", test_limits_units},
    {"limits_fractions", test_limits_fractions},
    {"limits_plain_bytes", test_limits_plain_bytes},
    {"limits_bad_sizes", test_limits_bad_sizes},
    {"limits_percentages", test_limits_percentages},
    {"limits_multi_key", test_limits_multi_key},
    {"limits_layering", test_limits_layering},
    {"limits_bad_tokens", test_limits_bad_tokens},
    {"limits_arch", test_limits_arch},
    {"limits_defaults", test_limits_defaults},
    {"limits_resolve", test_limits_resolve},
    {"limits_check", test_limits_check},
    {"limits_format", test_limits_format},
    {"proc_statm_parse", test_proc_statm_parse},
    {"proc_status_parse", test_proc_status_parse},
    {"proc_status_malformed", test_proc_status_malformed},
    {"proc_stat_ppid", test_proc_stat_ppid},
    {"proc_read_status_self", test_proc_read_status_self},
    {"proc_read_status_gone", test_proc_read_status_gone},
    {"proc_sampler_child", test_proc_sampler_child},
    {"proc_descendants", test_proc_descendants},
    {"proc_descendants_scan", test_proc_descendants_scan},
    {"proc_descendants_none", test_proc_descendants_none},
    {"proc_ram_page", test_proc_ram_page},
    {"cgroup_v1_unlimited", test_cgroup_v1_unlimited},
    {"cgroup_v1_limited", test_cgroup_v1_limited},
    {"cgroup_v1_container_root", test_cgroup_v1_container_root},
    {"cgroup_v2_unlimited", test_cgroup_v2_unlimited},
    {"cgroup_v2_limited", test_cgroup_v2_limited},
    {"cgroup_not_found", test_cgroup_not_found},
    {"cgroup_real", test_cgroup_real},
    {"elf_arch_x86", test_elf_arch_x86},
    {"elf_arch_x64", test_elf_arch_x64},
    {"elf_arch_not_elf", test_elf_arch_not_elf},
    {"elf_contains_program", test_elf_contains_program},
    {"elf_contains_boundary", test_elf_contains_boundary},
    {"maps_fixture_x86", test_maps_fixture_x86},
    {"maps_groups_deleted_and_ties", test_maps_groups_deleted_and_ties},
    {"maps_smaps_rss", test_maps_smaps_rss},
    {"maps_malformed", test_maps_malformed},
    {"maps_real_child_x64", test_maps_real_child_x64},
    {"maps_real_child_x86", test_maps_real_child_x86},
    {"maps_self", test_maps_self},
};

MG_TEST_MAIN("guard", cases)

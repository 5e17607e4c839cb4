/* test_limits.c - the limit grammar, defaults, resolve, check and format. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "guard_test.h"
#include "mg_limits.h"

#define KI 1024ULL
#define MI (1024ULL * 1024)
#define GI (1024ULL * 1024 * 1024)
#define TI (1024ULL * 1024 * 1024 * 1024)

static uint64_t size_of(const char *tok)
{
	mg_err err = {{0}};
	uint64_t v = 12345;
	int rc = limits_parse_size(&v, tok, &err);
	if (rc)
		fprintf(stderr, "\n  '%s': %s\n", tok, err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	return v;
}

void test_limits_units(void)
{
	static const struct {
		const char *tok;
		uint64_t bytes;
	} cases[] = {
	    {"1K", KI},
	    {"1k", KI},
	    {"1KiB", KI},
	    {"1kib", KI},
	    {"1KIB", KI},
	    {"1KB", 1000},
	    {"1kb", 1000},
	    {"1kB", 1000},
	    {"2M", 2 * MI},
	    {"2m", 2 * MI},
	    {"2MiB", 2 * MI},
	    {"2MB", 2000000},
	    {"2mb", 2000000},
	    {"3G", 3 * GI},
	    {"3g", 3 * GI},
	    {"3GiB", 3 * GI},
	    {"3gib", 3 * GI},
	    {"3GB", 3000000000ULL},
	    {"3gb", 3000000000ULL},
	    {"1T", TI},
	    {"1t", TI},
	    {"1TiB", TI},
	    {"1TB", 1000000000000ULL},
	    {"1tb", 1000000000000ULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = size_of(cases[i].tok);
		if (v != cases[i].bytes)
			fprintf(stderr, "\n  '%s' -> %llu\n", cases[i].tok, (unsigned long long)v);
		CU_ASSERT_EQUAL(v, cases[i].bytes);
	}
}

void test_limits_fractions(void)
{
	CU_ASSERT_EQUAL(size_of("3.5G"), 7 * GI / 2);
	CU_ASSERT_EQUAL(size_of("3.75G"), 15 * GI / 4);
	CU_ASSERT_EQUAL(size_of("0.5K"), 512);
	CU_ASSERT_EQUAL(size_of("1.25MiB"), 5 * MI / 4);
	CU_ASSERT_EQUAL(size_of("0.1K"), 102); /* 102.4 truncated */
	CU_ASSERT_EQUAL(size_of("1.5GB"), 1500000000ULL);
	CU_ASSERT_EQUAL(size_of("0.000000001T"), 1099); /* 1099.5 bytes */
}

void test_limits_plain_bytes(void)
{
	CU_ASSERT_EQUAL(size_of("1048576"), MI);
	CU_ASSERT_EQUAL(size_of("0"), 0);
	CU_ASSERT_EQUAL(size_of("512B"), 512);
	CU_ASSERT_EQUAL(size_of(" 64M "), 64 * MI); /* blanks around a token */
	CU_ASSERT_EQUAL(size_of("64 M"), 64 * MI);  /* and before the unit */
	CU_ASSERT_EQUAL(size_of("18446744073709551615"), UINT64_MAX);
}

static void bad_size(const char *tok, const char *needle)
{
	mg_err err = {{0}};
	uint64_t v = 7;
	CU_ASSERT_EQUAL(limits_parse_size(&v, tok, &err), MG_EINVAL);
	CU_ASSERT_EQUAL(v, 7);
	GT_ASSERT_CONTAINS(err.msg, needle);
}

void test_limits_bad_sizes(void)
{
	bad_size("3.5Q", "bad size '3.5Q'");
	bad_size("-1G", "negative size '-1G'");
	bad_size("", "empty size");
	bad_size("   ", "empty size");
	bad_size("18446744073709551616", "'18446744073709551616' overflows");
	bad_size("16777216T", "'16777216T' overflows");
	bad_size("1.5", "fraction of a byte");
	bad_size(".5G", "'.5G'");
	bad_size("3.G", "'3.G'");
	bad_size("G", "'G'");
	bad_size("1GG", "'1GG'");
	bad_size("1iB", "'1iB'");
	bad_size("0x10", "'0x10'");
	bad_size("1e9", "'1e9'");
	bad_size("80%", "'80%'");
}

static void parse_ok(limits_spec *spec, const char *text)
{
	mg_err err = {{0}};
	int rc = limits_parse(spec, text, &err);
	if (rc)
		fprintf(stderr, "\n  '%s': %s\n", text, err.msg);
	CU_ASSERT_EQUAL(rc, 0);
}

void test_limits_percentages(void)
{
	limits_spec s;
	memset(&s, 0, sizeof(s));
	parse_ok(&s, "va=80%,rss=12.5%,cgroup=100%");
	CU_ASSERT_DOUBLE_EQUAL(s.va.percent, 80.0, 1e-9);
	CU_ASSERT_EQUAL(s.va.bytes, 0);
	CU_ASSERT_DOUBLE_EQUAL(s.rss.percent, 12.5, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(s.cgroup.percent, 100.0, 1e-9);
	CU_ASSERT_EQUAL(s.gap.bytes, 0);
}

void test_limits_multi_key(void)
{
	limits_spec s;
	memset(&s, 0, sizeof(s));
	parse_ok(&s, "va=3.5G,rss=6G,cgroup=90%,gap=64M");
	CU_ASSERT_EQUAL(s.va.bytes, 7 * GI / 2);
	CU_ASSERT_EQUAL(s.rss.bytes, 6 * GI);
	CU_ASSERT_DOUBLE_EQUAL(s.cgroup.percent, 90.0, 1e-9);
	CU_ASSERT_EQUAL(s.gap.bytes, 64 * MI);
	limits_spec t;
	memset(&t, 0, sizeof(t));
	parse_ok(&t, " VA = 3G ,\trss=1GB ");
	CU_ASSERT_EQUAL(t.va.bytes, 3 * GI);
	CU_ASSERT_EQUAL(t.rss.bytes, 1000000000ULL);
}

void test_limits_layering(void)
{
	limits_spec s;
	memset(&s, 0, sizeof(s));
	parse_ok(&s, "va=3.25G,rss=6G"); /* the config file */
	parse_ok(&s, "rss=80%");         /* a flag over it */
	CU_ASSERT_EQUAL(s.va.bytes, 13 * GI / 4);
	CU_ASSERT_DOUBLE_EQUAL(s.rss.percent, 80.0, 1e-9);
	CU_ASSERT_EQUAL(s.rss.bytes, 0); /* the bytes of the config are replaced */
	parse_ok(&s, "va=none");
	CU_ASSERT_EQUAL(s.va.bytes, 0);
	CU_ASSERT_DOUBLE_EQUAL(s.va.percent, 0.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(s.rss.percent, 80.0, 1e-9);
	parse_ok(&s, "gap=64M");
	parse_ok(&s, "gap=off");
	CU_ASSERT_EQUAL(s.gap.bytes, 0);
}

static void bad_list(const char *text, const char *needle)
{
	mg_err err = {{0}};
	limits_spec s;
	memset(&s, 0, sizeof(s));
	s.va.bytes = 42;
	CU_ASSERT_EQUAL(limits_parse(&s, text, &err), MG_EINVAL);
	CU_ASSERT_EQUAL(s.va.bytes, 42); /* nothing committed on error */
	CU_ASSERT_EQUAL(s.rss.bytes, 0);
	GT_ASSERT_CONTAINS(err.msg, needle);
}

void test_limits_bad_tokens(void)
{
	bad_list("va=3.5Q", "bad size '3.5Q' in 'va=3.5Q'");
	bad_list("vm=3G", "unknown limit 'vm' in 'vm=3G' (known: va, rss, cgroup, gap)");
	bad_list("rss=1G,va=3.5Q", "'3.5Q'"); /* a good item first commits nothing */
	bad_list("va=-1G", "negative size '-1G'");
	bad_list("va=99999999999T", "size '99999999999T' in 'va=99999999999T' overflows");
	bad_list("", "empty limit list");
	bad_list("  ", "empty limit list");
	bad_list("va=3G,,rss=1G", "empty item");
	bad_list("va=3G,", "empty item");
	bad_list(",va=3G", "empty item");
	bad_list("va==3G", "'=3G'");
	bad_list("va", "missing '=' in 'va'");
	bad_list("va=", "missing value in 'va='");
	bad_list("=3G", "missing key in '=3G'");
	bad_list("va=1G,va=2G", "limit 'va' given twice");
	bad_list("gap=10%", "gap takes a size, not a percentage: '10%'");
	bad_list("rss=0%", "'0%'");
	bad_list("rss=101%", "'101%'");
	bad_list("rss=-5%", "negative percentage '-5%'");
	bad_list("rss=abc%", "bad percentage 'abc%'");
	bad_list("rss=%", "bad percentage '%'");
}

void test_limits_arch(void)
{
	mg_arch a = MG_ARCH_UNKNOWN;
	mg_err err = {{0}};
	const char *x86[] = {"x86", "i386", "32", "X86"};
	const char *x64[] = {"x64", "x86_64", "amd64", "64"};
	for (size_t i = 0; i < 4; i++) {
		CU_ASSERT_EQUAL(limits_arch_parse(&a, x86[i], &err), 0);
		CU_ASSERT_EQUAL(a, MG_ARCH_X86);
		CU_ASSERT_EQUAL(limits_arch_parse(&a, x64[i], &err), 0);
		CU_ASSERT_EQUAL(a, MG_ARCH_X64);
	}
	CU_ASSERT_EQUAL(limits_arch_parse(&a, "arm64", &err), MG_EINVAL);
	GT_ASSERT_CONTAINS(err.msg, "'arm64'");
	CU_ASSERT_STRING_EQUAL(limits_arch_name(MG_ARCH_X86), "x86");
	CU_ASSERT_STRING_EQUAL(limits_arch_name(MG_ARCH_X64), "x64");
	CU_ASSERT_STRING_EQUAL(limits_arch_name(MG_ARCH_UNKNOWN), "unknown");
	CU_ASSERT_EQUAL(limits_arch_ceiling(MG_ARCH_X86), 4 * GI);
	CU_ASSERT_EQUAL(limits_arch_ceiling(MG_ARCH_X64), 1ULL << 47);
}

void test_limits_defaults(void)
{
	limits_spec soft, hard;
	limits_default(&soft, &hard, MG_ARCH_X86);
	CU_ASSERT_DOUBLE_EQUAL(soft.va.percent, 87.5, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(hard.va.percent, 93.75, 1e-9);
	CU_ASSERT_EQUAL(soft.rss.bytes, 0);
	CU_ASSERT_DOUBLE_EQUAL(soft.rss.percent, 0.0, 1e-9);
	limits_default(&soft, &hard, MG_ARCH_X64);
	CU_ASSERT_EQUAL(soft.va.bytes, 0);
	CU_ASSERT_DOUBLE_EQUAL(soft.rss.percent, 80.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(hard.rss.percent, 95.0, 1e-9);
}

void test_limits_resolve(void)
{
	limits_spec s;
	memset(&s, 0, sizeof(s));
	limits l;
	parse_ok(&s, "va=50%,rss=80%,cgroup=90%,gap=64M");
	limits_resolve(&l, &s, MG_ARCH_X86, 16 * GI, 0);
	CU_ASSERT_EQUAL(l.va, 2 * GI);
	CU_ASSERT_EQUAL(l.rss, 16 * GI * 4 / 5); /* of RAM: no cgroup limit */
	CU_ASSERT_EQUAL(l.cgroup, 0);            /* no cgroup limit: no limit */
	CU_ASSERT_EQUAL(l.gap, 64 * MI);
	limits_resolve(&l, &s, MG_ARCH_X64, 16 * GI, 10 * GI);
	CU_ASSERT_EQUAL(l.va, (1ULL << 46));
	CU_ASSERT_EQUAL(l.rss, 8 * GI); /* of the cgroup limit */
	CU_ASSERT_EQUAL(l.cgroup, 9 * GI);
	parse_ok(&s, "va=3G,rss=6G");
	limits_resolve(&l, &s, MG_ARCH_X86, 16 * GI, 10 * GI);
	CU_ASSERT_EQUAL(l.va, 3 * GI);
	CU_ASSERT_EQUAL(l.rss, 6 * GI);
}

/* One settle: the user's texts (NULL: none) on a base; returns its rc. */
static int settle(limits *soft, limits *hard, const char *user_soft, const char *user_hard,
                  mg_arch arch, uint64_t cap, uint64_t cgroup_limit, mg_err *err)
{
	limits_spec us, uh;
	memset(&us, 0, sizeof(us));
	memset(&uh, 0, sizeof(uh));
	if (user_soft)
		CU_ASSERT_EQUAL_FATAL(limits_parse(&us, user_soft, NULL), 0);
	if (user_hard)
		CU_ASSERT_EQUAL_FATAL(limits_parse(&uh, user_hard, NULL), 0);
	uint64_t ceiling = limits_arch_ceiling(arch);
	limits_base b = {arch, cap && cap < ceiling ? cap : ceiling, 16 * GI, cgroup_limit,
	                 cap && cap < ceiling};
	memset(soft, 0xaa, sizeof(*soft));
	memset(hard, 0xaa, sizeof(*hard));
	return limits_settle(soft, hard, &us, &uh, &b, err);
}

void test_limits_settle_defaults(void)
{
	limits s, h;
	mg_err err;
	/* x86: 3.5 / 3.75 GiB exactly, no rss limit outside a limited cgroup */
	CU_ASSERT_EQUAL(settle(&s, &h, NULL, NULL, MG_ARCH_X86, 0, 0, &err), 0);
	CU_ASSERT_EQUAL(s.va, 7 * GI / 2);
	CU_ASSERT_EQUAL(h.va, 15 * GI / 4);
	CU_ASSERT_EQUAL(s.rss, 0);
	CU_ASSERT_EQUAL(h.rss, 0);
	CU_ASSERT_EQUAL(s.cgroup, 0);
	/* x86 in a 512 MiB cgroup: x64's rss defaults too */
	CU_ASSERT_EQUAL(settle(&s, &h, NULL, NULL, MG_ARCH_X86, 0, 512 * MI, &err), 0);
	CU_ASSERT_EQUAL(s.va, 7 * GI / 2);
	CU_ASSERT_EQUAL(s.rss, 512 * MI * 80 / 100);
	CU_ASSERT_EQUAL(h.rss, 512 * MI * 95 / 100);
	/* x86 under --address-space 2G: the va defaults scale with the cap */
	CU_ASSERT_EQUAL(settle(&s, &h, NULL, NULL, MG_ARCH_X86, 2 * GI, 0, &err), 0);
	CU_ASSERT_EQUAL(s.va, 2 * GI / 8 * 7);
	CU_ASSERT_EQUAL(h.va, 2 * GI / 16 * 15);
	/* a cap above 4 GiB is no cap for x86 */
	CU_ASSERT_EQUAL(settle(&s, &h, NULL, NULL, MG_ARCH_X86, 8 * GI, 0, &err), 0);
	CU_ASSERT_EQUAL(h.va, 15 * GI / 4);
	/* x64: rss of RAM; a cap brings x86's va proportions */
	CU_ASSERT_EQUAL(settle(&s, &h, NULL, NULL, MG_ARCH_X64, 0, 0, &err), 0);
	CU_ASSERT_EQUAL(s.va, 0);
	CU_ASSERT_EQUAL(s.rss, 16 * GI * 80 / 100);
	CU_ASSERT_EQUAL(settle(&s, &h, NULL, NULL, MG_ARCH_X64, 4 * GI, 0, &err), 0);
	CU_ASSERT_EQUAL(s.va, 7 * GI / 2);
	CU_ASSERT_EQUAL(h.va, 15 * GI / 4);
	/* the user's values win; va% is of the cap; "none" clears a default */
	CU_ASSERT_EQUAL(settle(&s, &h, "va=50%,rss=none", "va=75%", MG_ARCH_X64, 4 * GI, 0, &err),
	                0);
	CU_ASSERT_EQUAL(s.va, 2 * GI);
	CU_ASSERT_EQUAL(h.va, 3 * GI);
	CU_ASSERT_EQUAL(s.rss, 0);
	CU_ASSERT_EQUAL(h.rss, 16 * GI * 95 / 100);
	/* a kill limit below the default recycle: the default moves to 15/16 */
	CU_ASSERT_EQUAL(settle(&s, &h, NULL, "va=2G", MG_ARCH_X86, 0, 0, &err), 0);
	CU_ASSERT_EQUAL(h.va, 2 * GI);
	CU_ASSERT_EQUAL(s.va, 2 * GI / 16 * 15);
}

static void settle_bad(const char *user_soft, const char *user_hard, mg_arch arch, uint64_t cap,
                       uint64_t cgroup_limit, const char *want1, const char *want2)
{
	limits s, h;
	mg_err err = {{0}};
	int rc = settle(&s, &h, user_soft, user_hard, arch, cap, cgroup_limit, &err);
	CU_ASSERT_EQUAL(rc, MG_EINVAL);
	if (!strstr(err.msg, want1) || (want2 && !strstr(err.msg, want2))) {
		fprintf(stderr, "\n  got '%s', want '%s' and '%s'\n", err.msg, want1,
		        want2 ? want2 : "");
		CU_FAIL("message does not name the limits");
	}
	/* judged leniently (a second arch of a tree), nothing is an error */
	CU_ASSERT_EQUAL(settle(&s, &h, user_soft, user_hard, arch, cap, cgroup_limit, NULL), 0);
	CU_ASSERT(!s.va || !h.va || s.va < h.va);
	CU_ASSERT(!s.rss || !h.rss || s.rss < h.rss);
}

void test_limits_settle_contradictions(void)
{
	/* soft at or above hard: both named */
	settle_bad("rss=2G", "rss=1G", MG_ARCH_X64, 0, 0, "recycle-at rss=2.00GiB",
	           "kill-at rss=1.00GiB");
	settle_bad("va=3G", "va=3G", MG_ARCH_X86, 0, 0, "recycle-at va=3.00GiB",
	           "kill-at va=3.00GiB");
	/* a user's recycle over the default kill names the default */
	settle_bad("va=3.8G", NULL, MG_ARCH_X86, 0, 0, "recycle-at va=3.80GiB",
	           "default kill-at va=3.75GiB");
	/* va above the address space */
	settle_bad(NULL, "va=5G", MG_ARCH_X86, 0, 0, "kill-at va=5.00GiB",
	           "x86 address space (4.00GiB)");
	settle_bad("va=3G", NULL, MG_ARCH_X86, 2 * GI, 0, "recycle-at va=3.00GiB",
	           "--address-space");
	/* a cgroup share with no cgroup limit */
	settle_bad("cgroup=80%", NULL, MG_ARCH_X64, 0, 0, "recycle-at cgroup=80%", "no limit");
	settle_bad(NULL, "cgroup=90%", MG_ARCH_X86, 0, 0, "kill-at cgroup=90%", "no limit");
	/* leniently, a va above the space leaves the default */
	limits s, h;
	CU_ASSERT_EQUAL(settle(&s, &h, NULL, "va=5G", MG_ARCH_X86, 0, 0, NULL), 0);
	CU_ASSERT_EQUAL(h.va, 15 * GI / 4);
}

void test_limits_check(void)
{
	limits l = {.va = 3 * GI, .rss = 6 * GI, .cgroup = 9 * GI, .gap = 64 * MI};
	CU_ASSERT_EQUAL(limits_check(&l, 3 * GI - 1, 6 * GI - 1, 9 * GI - 1, 64 * MI), 0);
	CU_ASSERT_EQUAL(limits_check(&l, 3 * GI, 0, 0, 0), LIMIT_VA);
	CU_ASSERT_EQUAL(limits_check(&l, 0, 6 * GI, 0, 0), LIMIT_RSS);
	CU_ASSERT_EQUAL(limits_check(&l, 0, 0, 9 * GI, 0), LIMIT_CGROUP);
	CU_ASSERT_EQUAL(limits_check(&l, 0, 0, 0, 64 * MI - 1), LIMIT_GAP);
	CU_ASSERT_EQUAL(limits_check(&l, 0, 0, 0, 0), 0); /* gap not measured */
	CU_ASSERT_EQUAL(limits_check(&l, 4 * GI, 7 * GI, 10 * GI, 1),
	                LIMIT_VA | LIMIT_RSS | LIMIT_CGROUP | LIMIT_GAP);
	limits none = {0};
	CU_ASSERT_EQUAL(limits_check(&none, UINT64_MAX, UINT64_MAX, UINT64_MAX, 1), 0);
}

void test_limits_format(void)
{
	char buf[128];
	limits l = {.va = 7 * GI / 2, .rss = 6 * GI};
	limits_format(buf, sizeof(buf), &l);
	CU_ASSERT_STRING_EQUAL(buf, "va=3.50GiB,rss=6.00GiB");
	limits none = {0};
	limits_format(buf, sizeof(buf), &none);
	CU_ASSERT_STRING_EQUAL(buf, "none");
	limits all = {.va = 512, .rss = 1536, .cgroup = 2 * TI, .gap = 64 * MI};
	limits_format(buf, sizeof(buf), &all);
	CU_ASSERT_STRING_EQUAL(buf, "va=512B,rss=1.50KiB,cgroup=2.00TiB,gap=64.00MiB");
	/* What format writes, parse reads back. */
	limits_spec s;
	memset(&s, 0, sizeof(s));
	parse_ok(&s, buf);
	CU_ASSERT_EQUAL(s.va.bytes, 512);
	CU_ASSERT_EQUAL(s.cgroup.bytes, 2 * TI);
	/* A short buffer is truncated, still terminated. */
	char small[8];
	limits_format(small, sizeof(small), &l);
	CU_ASSERT_EQUAL(strlen(small), 7);
}

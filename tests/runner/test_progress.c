/*
 * test_progress.c - the status line (progress_format): percentage, tests,
 * elapsed and ETA, VA labelled, and never wider than it is given, at every
 * width from 20 to 200 columns and for any figures.
 */
#include "mg_test.h"
#include "progress.h"

static void format_fields(void)
{
	uint64_t va[2] = {1u << 30, 512u << 20}, peak[2] = {3ull << 30, 1u << 30};
	char s[512];
	progress_format(s, sizeof(s), 550, 1000, 3, 62, va, peak, 2, 200);
	CU_ASSERT_STRING_EQUAL(s, "[ 55%] 550/1000 tests, 3 not passed | 1m02s, ETA 51s | VA 1.00 "
	                          "GiB, peak 3.00 GiB (largest of 2 lanes)");
	progress_format(s, sizeof(s), 0, 10, 0, 0.2, va, peak, 1, 200);
	CU_ASSERT_STRING_EQUAL(s, "[  0%] 0/10 tests | 0s, ETA - | VA 1.00 GiB, peak 3.00 GiB");
	progress_format(s, sizeof(s), 10, 10, 0, 4000, va, peak, 1, 200);
	CU_ASSERT(strstr(s, "[100%] 10/10 tests | 1h06m, ETA 0s") == s);
}

static void format_width(void)
{
	uint64_t va[64], peak[64];
	for (unsigned i = 0; i < 64; i++) {
		va[i] = (uint64_t)i << 32;
		peak[i] = UINT64_MAX - i;
	}
	char s[512];
	for (unsigned w = 20; w <= 200; w++) {
		progress_format(s, sizeof(s), 123456789, 987654321, 12345, 359999, va, peak, 64, w);
		if (strlen(s) > w)
			fprintf(stderr, "width %u: %zu: %s\n", w, strlen(s), s);
		CU_ASSERT(strlen(s) <= w);
		CU_ASSERT(strncmp(s, "[ 12%] 123456789/987654321 tests", w <= 32 ? w - 1 : 32) ==
		          0);
	}
}

static const mg_case cases[] = {
    {"format_fields", format_fields},
    {"format_width", format_width},
};

MG_TEST_MAIN("progress", cases)

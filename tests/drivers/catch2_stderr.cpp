// catch2_stderr.cpp - stderr_tests.inc as a Catch2 v2 program (tNN).
#include <catch2/catch.hpp>

#define MG_TEST(name) TEST_CASE(#name)
#define MG_FAIL(text) FAIL_CHECK(text)
#include "stderr_tests.inc"

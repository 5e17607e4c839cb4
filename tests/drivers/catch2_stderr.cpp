// catch2_stderr.cpp - stderr_tests.inc as a Catch2 v2 program (tNN).
#include <catch2/catch.hpp>

#define MG_TEST(name) TEST_CASE(#name)
#include "stderr_tests.inc"

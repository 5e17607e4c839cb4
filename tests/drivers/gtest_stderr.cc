// gtest_stderr.cc - stderr_tests.inc as a GoogleTest program (Stderr.tNN).
#include <gtest/gtest.h>

#define MG_TEST(name) TEST(Stderr, name)
#define MG_FAIL(text) ADD_FAILURE() << text
#include "stderr_tests.inc"

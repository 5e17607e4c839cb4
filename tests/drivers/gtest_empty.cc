// gtest_empty.cc - a GoogleTest program with no TEST (fmt's compile-fp-test
// is one in the wild): GoogleTest 1.12 runs "0 tests" and exits 0.
#include <gtest/gtest.h>

// catch2_empty.cpp - a Catch2 v2 program with no TEST_CASE: Catch2 2.13
// prints "No tests ran" and exits 0 (with -w NoTests too: no spec).
#include <catch2/catch.hpp>

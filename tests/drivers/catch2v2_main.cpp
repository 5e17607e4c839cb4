// catch2v2_main.cpp - Catch2 v2's implementation and main(), compiled once
// for every Catch2 v2 program of these tests (mg_catch2v2_main), as
// Catch2's own documentation advises: each program is then its own file of
// test cases, as a real suite's are.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

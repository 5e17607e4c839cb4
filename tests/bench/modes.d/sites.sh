# Allocation sites' modes for run-bench (sourced): what the default level
# costs a test in wall and CPU time, against --sites off, on both bench
# programs (compare native with native-sitesoff, gtest with gtest-sitesoff;
# the goal: at most 1 us a test). MG_BENCH_ALLOCS (bench_host only)
# adds small malloc/free pairs to each test.
#   native-sitesoff  bench_host64 under memguard --sites off
#   gtest-sitesoff   gtest_bench under memguard --driver gtest --sites off
names+=(native-sitesoff gtest-sitesoff)
cmd_native-sitesoff() { "$mg" run -q -j 1 --sites off -- "$host"; }
cmd_gtest-sitesoff() { "$mg" run -q -j 1 --driver gtest --sites off -- "$gtest_bench"; }

# The gap check's cost (sourced by run-bench): the 32-bit bench host with
# 500 mappings, under memguard without and with --recycle-at gap=64M (the
# host probes with one mmap of 64 MiB at a boundary where VA grew).
#   x86-500          no gap limit, VA flat
#   x86-500-gap      gap=64M, VA flat: one probe in all
#   x86-grow         no gap limit, every test keeps a page
#   x86-grow-gap     gap=64M, every test keeps a page: a probe at every boundary
host32=$build/tests/hosts/bench_host32
names+=(x86-500 x86-500-gap x86-grow x86-grow-gap)
cmd_x86-500() { MG_BENCH_MAPPINGS=500 "$mg" run -q -j 1 -- "$host32"; }
cmd_x86-500-gap() { MG_BENCH_MAPPINGS=500 "$mg" run -q -j 1 --recycle-at gap=64M -- "$host32"; }
cmd_x86-grow() { MG_BENCH_MAPPINGS=500 MG_BENCH_GROW=1 "$mg" run -q -j 1 -- "$host32"; }
cmd_x86-grow-gap() {
	MG_BENCH_MAPPINGS=500 MG_BENCH_GROW=1 "$mg" run -q -j 1 --recycle-at gap=64M -- "$host32"
}

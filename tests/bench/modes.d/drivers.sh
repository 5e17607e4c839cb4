# Driver modes for run-bench (sourced): the same ~1 us tests, driven three ways.
#   gtest-direct  the suite as a GoogleTest program (tests/drivers/gtest_bench), run directly
#   gtest-pipe    the same, its output into a pipe that cat drains (as a CI runner reads a job)
#   gtest-probe   the program with the driver's probe loaded as memguard loads it (its
#                 statm read a test, its marks in the program's stdout), its output into
#                 a pipe drained as the shim drains it (a read, then 1 ms asleep unless
#                 the read filled its buffer: drain.c, built here): the program's side of
#                 a boundary with no memguard process reading it, so gtest against it is
#                 what the shim, the runner and the listing add
#   gtest         that program under memguard --driver gtest, its defaults: one program
#                 runs the lane's whole share (the probe passes the filter)
#   gtest-batch   the same with --pipeline 1024: batches of 1,024, a program start each
#                 (the driver before one program per generation)
#   gtest-j2      the defaults with -j 2 (the runner feeds each lane its share in refills)
#   gtest-direct-jN  the program on as many processes as CPUs by GoogleTest's own
#                 sharding (each copy the whole program, a shard of its tests: before
#                 stop 59 each copy was a program of 1/N of the tests, which registered
#                 only those, where memguard's lanes each run the whole program)
#   gtest-pipe-jN    the same, each copy's output into a pipe that cat drains
#   gtest-jN      the defaults with -j = CPUs
#   exec-direct   bench_host started once per test by a shell loop (exec's own baseline)
#   exec          bench_host under --driver exec: one process per test (bench_host TEST)
#   base-gtest    (with BASE) gtest with BASE's memguard and probe
# The ratio column is against the native direct run; gtest vs gtest-direct is the
# driver's own cost.
gtest_bench=$build/tests/drivers/gtest_bench
names+=(gtest-direct gtest-pipe gtest-probe gtest gtest-batch gtest-j2 gtest-direct-jN gtest-pipe-jN
	gtest-jN exec-direct exec)
cmd_gtest-direct() { "$gtest_bench"; }
cmd_gtest-pipe() { "$gtest_bench" | cat >/dev/null; }
probe_so=$build/runner/probe/x64/libmemguard_probe.so
export probe_so # for PERF=1, whose bash -c sees exported variables only
drain=$tmp/drain
export drain
cc -O2 -o "$drain" "$here/modes.d/drain.c" || { echo "bench: cannot build drain.c" >&2; exit 1; }
cmd_gtest-probe() {
	MEMGUARD_PROBE_FD=3 MEMGUARD_PROBE_SECRET=0123456789abcdef LD_PRELOAD=$probe_so \
		"$gtest_bench" 3>/dev/null | "$drain"
}
for m in gtest gtest-batch base-gtest; do
	null_base[$m]=gtest-direct pipe_base[$m]=gtest-pipe side_base[$m]=gtest-probe
done
cmd_gtest() { "$mg" run -q -j 1 --driver gtest -- "$gtest_bench"; }
cmd_gtest-j2() { "$mg" run -q -j 2 --driver gtest -- "$gtest_bench"; }
# GoogleTest's own way to run one program on N processes: its sharding
# (GTEST_TOTAL_SHARDS, GTEST_SHARD_INDEX), each copy the whole program (its
# registration of every test included), as memguard's lanes are
in_shards() {
	local k
	for k in $(seq 0 $((cpus - 1))); do
		GTEST_TOTAL_SHARDS=$cpus GTEST_SHARD_INDEX=$k "$@" &
	done
	wait
}
cmd_gtest-direct-jN() { in_shards "$gtest_bench"; }
cmd_gtest-pipe-jN() { in_shards piped "$gtest_bench"; }
cmd_gtest-jN() { "$mg" run -q -j "$cpus" --driver gtest -- "$gtest_bench"; }
null_base[gtest-jN]=gtest-direct-jN pipe_base[gtest-jN]=gtest-pipe-jN
cmd_gtest-batch() { "$mg" run -q -j 1 --driver gtest --pipeline 1024 -- "$gtest_bench"; }
# With BASE (run-bench's other build): base-gtest, that build's memguard and
# probe on the same program, interleaved with gtest: a before/after check.
if [ -n "${BASE:-}" ]; then
	names+=(base-gtest)
	cmd_base-gtest() { "$(cd "$BASE" && pwd)/runner/memguard" run -q -j 1 --driver gtest -- "$gtest_bench"; }
fi
# The same suite as a Catch2 v2 program (tests/drivers/catch2_bench, built
# where Catch2 is found), the driver's XML reporter and probe:
#   catch2-direct  run directly, Catch2's console reporter (as a user runs it)
#   catch2-pipe    catch2-direct into a pipe that cat drains (the added table's
#                  second baseline, as gtest-pipe)
#   catch2-xml     run directly with -r xml, the reporter the driver reads
#                  (Catch2's own cost of it: six writes a test, not two)
#   catch2         under memguard --driver catch2, one lane
#   catch2-direct-jN  as many copies of catch2-direct as CPUs, each 1/N of the tests
#   catch2-jN      the defaults with -j = CPUs
#   base-catch2    (with BASE) catch2 with BASE's memguard and probe
catch2_bench=$build/tests/drivers/catch2_bench
export catch2_bench # for PERF=1, whose bash -c sees exported variables only
if [ -x "$catch2_bench" ]; then
	names+=(catch2-direct catch2-pipe catch2-xml catch2 catch2-direct-jN catch2-jN)
	null_base[catch2]=catch2-direct pipe_base[catch2]=catch2-pipe
	cmd_catch2-direct() { "$catch2_bench"; }
	cmd_catch2-pipe() { "$catch2_bench" | cat >/dev/null; }
	cmd_catch2-xml() { "$catch2_bench" -r xml; }
	cmd_catch2() { "$mg" run -q -j 1 --driver catch2 -- "$catch2_bench"; }
	cmd_catch2-direct-jN() { in_parallel "$catch2_bench"; }
	cmd_catch2-jN() { "$mg" run -q -j "$cpus" --driver catch2 -- "$catch2_bench"; }
	if [ -n "${BASE:-}" ]; then
		names+=(base-catch2)
		null_base[base-catch2]=catch2-direct pipe_base[base-catch2]=catch2-pipe
		cmd_base-catch2() { "$(cd "$BASE" && pwd)/runner/memguard" run -q -j 1 --driver catch2 -- "$catch2_bench"; }
	fi
fi
cmd_exec-direct() { "$host" --list | while read -r t; do "$host" "$t" >/dev/null; done; }
cmd_exec() { "$mg" run -q -j 1 --driver exec --list-cmd "$host --list" -- "$host" {}; }

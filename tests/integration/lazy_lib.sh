# lazy_lib.sh: sourced by the tests that follow memguard with strace to see
# which libraries it opens (junit_lazy.sh, git_lazy.sh, sites/sites_lazy.sh):
# strace or skip (77; ci/setup --test installs it), a temporary directory
# as the working one (removed at exit) in $d, LeakSanitizer off (it cannot
# run under ptrace; spawn_vfork.sh says so too), and fail MESSAGE.
command -v strace >/dev/null 2>&1 || { echo "SKIP: no strace"; exit 77; }
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
cd "$d"
ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0"
export ASAN_OPTIONS
fail() { echo "FAIL: $*" >&2; exit 1; }

#!/bin/sh
# no_test_deps.sh SOURCE_DIR CMAKE: what a user builds needs no test package.
# 1. memguard configured with -DBUILD_TESTING=OFF, GoogleTest made unfindable
#    (CMAKE_DISABLE_FIND_PACKAGE_GTest) and CUnit hidden from pkg-config (a
#    PKG_CONFIG_LIBDIR of every .pc file but cunit.pc), then built and
#    installed: no CUnit binding is built, everything else is.
# 2. A project that links only the libc-only host library (x64 and x86)
#    configures against that install with pkg-config itself unfindable
#    (CMAKE_DISABLE_FIND_PACKAGE_PkgConfig) and its hosts build.
set -eu
src=$1 cmake=$2
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir "$d/pc"
pc_path=$(pkg-config --variable pc_path pkg-config)
IFS=:
for dir in $pc_path; do
	[ -d "$dir" ] || continue
	for f in "$dir"/*.pc; do
		[ -e "$f" ] || continue
		case ${f##*/} in cunit.pc) continue ;; esac
		[ -e "$d/pc/${f##*/}" ] || ln -s "$f" "$d/pc/${f##*/}"
	done
done
unset IFS
export PKG_CONFIG_LIBDIR="$d/pc" PKG_CONFIG_PATH=
pkg-config --exists cunit && fail "cunit.pc is still visible"

# Release, as the README and the GitHub action build it for users: with
# -Werror, a warning only -O3 gives would fail their build, and no other
# build compiles -O3 (the plain build is -O2, the sanitizer build -O0)
"$cmake" -S "$src" -B "$d/b" -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=Release \
	-DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON -DCMAKE_INSTALL_PREFIX="$d/prefix" >"$d/log" 2>&1 ||
	{ cat "$d/log" >&2; fail "configuring with -DBUILD_TESTING=OFF needs a test package"; }
grep -qE "^(GTest_DIR|GTEST_[A-Z_]*):" "$d/b/CMakeCache.txt" && fail "GTest was looked for"
"$cmake" --build "$d/b" -j 2 >"$d/log" 2>&1 || { tail -30 "$d/log" >&2; fail "build"; }
"$cmake" --install "$d/b" >"$d/log" 2>&1 || { cat "$d/log" >&2; fail "install"; }
for f in bin/memguard lib/libmemguard_host.a lib/libmemguard_host32.a \
	lib/pkgconfig/memguard-host.pc lib/pkgconfig/memguard-host32.pc \
	lib/cmake/memguard-host/memguard-hostConfig.cmake include/memguard/memguard_host.h \
	lib/memguard/x64/libmemguard_probe.so lib/memguard/x86/libmemguard_probe.so; do
	[ -e "$d/prefix/$f" ] || fail "not installed: $f"
done
[ -e "$d/prefix/lib/libmemguard_host_cunit.a" ] && fail "the CUnit binding was built without CUnit"
"$d/prefix/bin/memguard" --version >/dev/null || fail "memguard --version"

"$cmake" -S "$(dirname "$0")/consumer" -B "$d/c" -DCMAKE_PREFIX_PATH="$d/prefix" \
	-DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON >"$d/log" 2>&1 ||
	{ cat "$d/log" >&2; fail "find_package(memguard-host) needs pkg-config or CUnit"; }
"$cmake" --build "$d/c" >"$d/log" 2>&1 || { cat "$d/log" >&2; fail "consumer build"; }
"$d/prefix/bin/memguard" list -- "$d/c/host64" >"$d/log" 2>&1 || { cat "$d/log" >&2; fail "list host64"; }
grep -q consumer/one "$d/log" || fail "host64 lists no test"
echo "ok: built, installed and used without GoogleTest, CUnit or pkg-config"

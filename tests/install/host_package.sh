#!/bin/sh
# host_package.sh BUILD_DIR CMAKE HOST_SOURCE: the memguard-host component of
# a build with CUnit, installed to a temporary prefix: find_package with
# COMPONENTS cunit gives the binding; the .pc files say what to link, the
# 32-bit CUnit binding too (memguard-host-cunit32, where it was built), and
# a 32-bit CUnit host links with nothing but what that .pc says.
set -eu
build=$1 cmake=$2 host_src=$3
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
"$cmake" --install "$build" --component memguard-host --prefix "$d/p" >"$d/log" 2>&1 ||
	{ cat "$d/log" >&2; fail "install"; }
"$cmake" -S "$(dirname "$0")/consumer_cunit" -B "$d/c" -DCMAKE_PREFIX_PATH="$d/p" \
	-DHOST_SOURCE="$host_src" >"$d/log" 2>&1 || { cat "$d/log" >&2; fail "find_package COMPONENTS cunit"; }
"$cmake" --build "$d/c" >"$d/log" 2>&1 || { cat "$d/log" >&2; fail "cunit consumer build"; }
export PKG_CONFIG_PATH="$d/p/lib/pkgconfig"
pkg-config --libs memguard-host-cunit | grep -q -- -lmemguard_host_cunit || fail "memguard-host-cunit.pc"
if [ -e "$d/p/lib/libmemguard_host_cunit32.a" ]; then
	[ -e "$d/p/lib/pkgconfig/memguard-host-cunit32.pc" ] || fail "no memguard-host-cunit32.pc"
	flags=$(pkg-config --cflags --libs memguard-host-cunit32)
	case $flags in *-m32*) ;; *) fail "memguard-host-cunit32.pc lacks -m32: $flags" ;; esac
	# shellcheck disable=SC2086
	cc -o "$d/cunit32" "$host_src" $flags >"$d/log" 2>&1 || { cat "$d/log" >&2; fail "cc $flags"; }
	file "$d/cunit32" 2>/dev/null | grep -q 32-bit || [ ! -x /usr/bin/file ] || fail "not 32-bit"
	echo "ok: memguard-host-cunit32.pc: $flags"
else
	echo "note: no 32-bit CUnit in this build (libcunit1-dev:i386): memguard-host-cunit32 not checked"
fi
echo "ok: find_package(memguard-host COMPONENTS cunit) and the .pc files"

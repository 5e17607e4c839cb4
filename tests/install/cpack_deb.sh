#!/bin/sh
# cpack_deb.sh BUILD_DIR: `cpack -G DEB` of this build makes memguard_*.deb;
# dpkg-deb -c lists the binary, the probe (x64, x86), the host libraries
# for x64 and x86, the headers, the pkg-config and CMake files; the control
# file names its dependencies; the extracted memguard runs (--version).
# Skips (77) without cpack or dpkg-deb.
set -u
build=$1
command -v cpack >/dev/null && command -v dpkg-deb >/dev/null ||
	{ echo "SKIP: cpack or dpkg-deb not installed"; exit 77; }
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
(cd "$build" && cpack -G DEB -B "$d") >"$d/log" 2>&1 || { cat "$d/log" >&2; fail "cpack -G DEB"; }
set -- "$d"/memguard_*.deb
[ -e "$1" ] || fail "no memguard_*.deb in $(ls "$d")"
deb=$1
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' >"$d/list"
for f in /usr/bin/memguard /usr/lib/memguard/x64/libmemguard_probe.so \
	/usr/lib/memguard/x86/libmemguard_probe.so /usr/lib/libmemguard_host.a \
	/usr/lib/libmemguard_host32.a /usr/include/memguard/memguard_host.h \
	/usr/include/memguard/mg_proto.h /usr/lib/pkgconfig/memguard-host.pc \
	/usr/lib/pkgconfig/memguard-host32.pc /usr/lib/cmake/memguard-host/memguard-hostConfig.cmake \
	/usr/lib/cmake/memguard-host/memguard-hostTargets.cmake; do
	grep -qx "$f" "$d/list" || fail "$deb lacks $f"
done
dpkg-deb -f "$deb" Package | grep -qx memguard || fail "package name"
dpkg-deb -f "$deb" Depends | grep -q libgit2 || fail "Depends lacks libgit2: $(dpkg-deb -f "$deb" Depends)"
dpkg-deb -x "$deb" "$d/root" || fail "dpkg-deb -x"
v=$("$d/root/usr/bin/memguard" --version) || fail "memguard --version"
echo "ok: $(basename "$deb"): $(wc -l <"$d/list") entries; $v; Depends: $(dpkg-deb -f "$deb" Depends)"

#!/bin/sh
# needs_libc_only.sh MEMGUARD: memguard starts with libc alone
# (runner/CMakeLists.txt: Jansson's archive linked in, --as-needed, no
# libm call): its dynamic section needs libc.so.6 and nothing else, so
# ld.so maps no other library at a run's start (libgit2, libxml2 and libdw
# are loaded where needed: git_lazy.sh, junit_lazy.sh). Registered where
# Jansson's archive exists and the build is not sanitized (a sanitizer's
# runtime brings its own). run__needs_libc_only.
set -eu
mg=$1
needed=$(LC_ALL=C readelf -d "$mg" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p' | tr '\n' ' ')
[ "$needed" = "libc.so.6 " ] || {
	echo "FAIL: memguard needs '$needed', not libc.so.6 alone" >&2
	exit 1
}
echo "needs_libc_only: ok ($needed)"

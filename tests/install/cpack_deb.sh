#!/bin/sh
# cpack_deb.sh BUILD_DIR: `cpack -G DEB` of this build makes memguard_*.deb
# and its memguard-dbgsym_*.ddeb. dpkg-deb -c lists the binary, the probe
# (x64, x86), the host libraries for x64 and x86, the headers, the
# pkg-config and CMake files, a man page per command, bash and zsh
# completion, /usr/share/doc/memguard/{copyright,changelog.gz}; the control
# file names its dependencies, a maintainer and a description, and there
# is no maintainer script (no ldconfig: dpkg -r leaves nothing in 'rc');
# binaries and the probe are stripped, with their debug info (build id) in
# the .ddeb; `man -l` renders memguard-run(1) from the help's text; the
# extracted memguard runs (--version) and finds its pytest plugin; lintian reports nothing but the tags
# lintian-expected explains. Skips (77) without cpack or dpkg-deb; lintian
# and man come with ci/setup --test (missing: fail).
set -u
build=$1
here=$(cd "$(dirname "$0")" && pwd)
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
	/usr/lib/cmake/memguard-host/memguard-hostTargets.cmake \
	/usr/share/doc/memguard/copyright /usr/share/doc/memguard/changelog.gz \
	/usr/share/bash-completion/completions/memguard /usr/share/zsh/vendor-completions/_memguard \
	/usr/share/man/man1/memguard.1.gz /usr/lib/memguard/pytest/memguard_pytest.py \
	/usr/lib/memguard/pytest/libmemguard_host.so /usr/lib/memguard/memguard-driver; do
	grep -qx "$f" "$d/list" || fail "$deb lacks $f"
done
# a man page for every command the overview lists
dpkg-deb -x "$deb" "$d/root" || fail "dpkg-deb -x"
# memguard-spawner beside a dynamic shim only (a static one is its own)
if LC_ALL=C readelf -l "$d/root/usr/lib/memguard/memguard-driver" | grep -q INTERP; then
	grep -qx /usr/lib/memguard/memguard-spawner "$d/list" || fail "$deb lacks memguard-spawner"
else
	! grep -qx /usr/lib/memguard/memguard-spawner "$d/list" ||
		fail "$deb has memguard-spawner beside a static shim"
fi
mg=$d/root/usr/bin/memguard
for c in $("$mg" help | awk '/^  [a-z]/{print $1}'); do
	grep -qx "/usr/share/man/man1/memguard-$c.1.gz" "$d/list" || fail "no man page for $c"
done
dpkg-deb -f "$deb" Package | grep -qx memguard || fail "package name"
# libxml2 is loaded when JUnit is written (dlopen), not linked: dpkg-shlibdeps
# does not see it, and the package names it itself
for dep in libgit2 libxml2; do
	dpkg-deb -f "$deb" Depends | grep -q "$dep" || fail "Depends lacks $dep: $(dpkg-deb -f "$deb" Depends)"
done
maint=$(dpkg-deb -f "$deb" Maintainer)
case $maint in *@localhost* | '') fail "Maintainer: '$maint'" ;; esac
[ "$(dpkg-deb -f "$deb" Description | wc -l)" -ge 5 ] ||
	fail "no extended description: $(dpkg-deb -f "$deb" Description)"
dpkg-deb --ctrl-tarfile "$deb" | tar -t >"$d/ctrl"
grep -Eq 'postinst|postrm|preinst|prerm|triggers' "$d/ctrl" && fail "maintainer scripts: $(cat "$d/ctrl")"
# stripped, debug info in the .ddeb under the same build id
set -- "$d"/memguard-dbgsym_*.ddeb
[ -e "$1" ] || fail "no memguard-dbgsym_*.ddeb"
dpkg-deb -x "$1" "$d/dbg" || fail "dpkg-deb -x ddeb"
for f in usr/bin/memguard usr/lib/memguard/memguard-driver usr/lib/memguard/x64/libmemguard_probe.so \
	usr/lib/memguard/x86/libmemguard_probe.so; do
	file "$d/root/$f" | grep -q ', stripped' || fail "$f not stripped: $(file "$d/root/$f")"
	id=$(readelf -n "$d/root/$f" | awk '/Build ID/{print $3}')
	[ -n "$id" ] || fail "$f: no build id"
	dbg=$d/dbg/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
	readelf -S "$dbg" 2>/dev/null | grep -q debug_info || fail "$f: no debug info at $dbg"
done
for a in usr/lib/libmemguard_host.a usr/lib/libmemguard_host32.a; do
	readelf -S "$d/root/$a" | grep -q debug_info && fail "$a has debug sections"
done
# the man page renders, from the help's text
command -v man >/dev/null || fail "man not installed (ci/setup --test)"
MANWIDTH=80 man -l "$d/root/usr/share/man/man1/memguard-run.1.gz" >"$d/man" 2>"$d/man.err" ||
	fail "man -l memguard-run.1.gz: $(cat "$d/man.err")"
[ ! -s "$d/man.err" ] || fail "man -l warned: $(cat "$d/man.err")"
grep -q 'memguard-run - run a test host' "$d/man" || fail "man page NAME: $(head -5 "$d/man")"
grep -q -- '--recycle-at LIMITS' "$d/man" || fail "man page lacks run's options"
v=$("$mg" --version) || fail "memguard --version"
# the extracted memguard finds its pytest plugin (../lib/memguard/pytest/)
if /usr/bin/python3 -c 'import pytest' 2>/dev/null; then
	mkdir "$d/py" && printf 'def test_one():\n    pass\n' >"$d/py/test_one.py"
	(cd "$d/py" && "$mg" run -q --report r.json -- /usr/bin/python3 -m pytest -p no:cacheprovider \
		test_one.py) >"$d/py.log" 2>&1 || fail "memguard run -- pytest: $(cat "$d/py.log")"
	grep -Eq '"driver": ?"pytest"' "$d/py/r.json" || fail "pytest run: not the pytest driver"
fi
# the extracted memguard's gtest shim is its memguard-driver (../lib/memguard/),
# which finds the probe beside it: a program recycled at every boundary still
# runs its failing TearDownTestSuite (only the probe lets it finish)
g=$build/tests/drivers/gtest_outside1
if [ -x "$g" ]; then
	rc=0
	(cd "$d" && "$mg" run -q -j 1 --driver gtest --recycle-at va=1M --report g.json -- "$g") \
		>"$d/g.log" 2>&1 || rc=$?
	[ "$rc" = 1 ] || fail "memguard run --driver gtest: exit $rc: $(cat "$d/g.log")"
	grep -q 'Suite.TearDownTestSuite' "$d/g.json" || fail "gtest run: no TearDownTestSuite entry"
fi
# the changelog's version is the package's
cv=$(zcat "$d/root/usr/share/doc/memguard/changelog.gz" | sed -n '1s/^memguard (\([^)]*\)).*/\1/p')
[ "$cv" = "$(dpkg-deb -f "$deb" Version)" ] || fail "changelog version '$cv' is not the package's"
# lintian: nothing but what lintian-expected explains
command -v lintian >/dev/null || fail "lintian not installed (ci/setup --test)"
lintian --no-tag-display-limit "$deb" >"$d/lintian" 2>&1
sed -n 's/^[EWIPX]: memguard[^:]*: \([^ ]*\).*/\1/p' "$d/lintian" | sort -u >"$d/tags"
grep -v '^#' "$here/lintian-expected" | awk 'NF{print $1}' | sort -u >"$d/expected"
extra=$(comm -23 "$d/tags" "$d/expected")
[ -z "$extra" ] || { cat "$d/lintian" >&2; fail "lintian tags not explained in lintian-expected: $extra"; }
echo "ok: $(basename "$deb"): $(wc -l <"$d/list") entries; $v; Depends: $(dpkg-deb -f "$deb" Depends)"
echo "lintian: $(wc -l <"$d/lintian") lines: $(tr '\n' ' ' <"$d/tags")"

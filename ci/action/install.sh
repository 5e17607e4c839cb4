#!/bin/sh
# install.sh [--key]: memguard for the action. $MG_DEB (a URL or a path of a
# released .deb) is installed with apt-get; else the .deb is built from the
# action's own sources ($MG_SRC) once: ~/.cache/memguard-deb holds it
# (actions/cache keeps that folder under the sources' hash) and a later run
# installs it without building. --key prints key=HASH of the sources (what
# the cache is keyed by). Needs root or sudo for apt-get.
set -eu
src=${MG_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
if [ "${1:-}" = --key ]; then
	key=$(cd "$src" && find . -path ./build -prune -o -type f \( -name '*.[ch]' -o \
		-name CMakeLists.txt -o -name '*.in' -o -name '*.sh' -o -name '*.cmake' -o \
		-name changelog -o -name LICENSE \) -print | LC_ALL=C sort |
		xargs sha256sum | sha256sum | cut -c1-16)
	echo "key=$key"
	exit 0
fi
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
apt_install() {
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@"
}
cache=${MG_CACHE_DIR:-$HOME/.cache/memguard-deb}
deb=${MG_DEB:-}
case $deb in
http://* | https://*)
	mkdir -p "$cache"
	curl -fsSL -o "$cache/download.deb" "$deb"
	deb=$cache/download.deb
	;;
'')
	set -- "$cache"/memguard_*.deb
	if [ -e "$1" ]; then
		echo "memguard: the cached package $(basename "$1")"
	else
		echo "memguard: building the package from $src (cached for the next run)"
		"$src/ci/setup"
		cmake -S "$src" -B "$cache/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF
		cmake --build "$cache/build" -j "$(nproc)"
		(cd "$cache/build" && cpack -G DEB -B "$cache")
		rm -rf "$cache/build" "$cache/_CPack_Packages"
		set -- "$cache"/memguard_*.deb
	fi
	deb=$1
	;;
esac
$SUDO apt-get update -qq || true
apt_install "$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")"
memguard --version

#!/bin/sh
# templates_build_deps.sh TEMPLATES_DIR: each template runs ci/setup without
# --test, and each configure of memguard (-B build-memguard) has
# -DBUILD_TESTING=OFF (a template that includes another, through that one);
# the GitHub one installs memguard's .deb.
set -u
bad=0
for t in "$1"/*; do
	# a template that includes another of them (gitlab-ci.yml: the
	# component) is checked through the one it includes
	inc=$(sed -n 's|.*local: .*ci/templates/\([^ /]*\)$|\1|p' "$t" | head -1)
	[ -z "$inc" ] || t="$1/$inc"
	if ! grep -q 'ci/setup' "$t"; then
		echo "FAIL: $t does not run ci/setup"
		bad=1
	fi
	if grep 'ci/setup' "$t" | grep -q -- '--test'; then
		echo "FAIL: $t installs the test dependencies (ci/setup --test)"
		bad=1
	fi
	if ! grep -q -- '-B build-memguard' "$t" ||
		grep -- '-B build-memguard' "$t" | grep -vq -- '-DBUILD_TESTING=OFF'; then
		echo "FAIL: $t configures memguard without -DBUILD_TESTING=OFF"
		bad=1
	fi
done
# the GitHub template installs memguard as the Debian package
t="$1/github-actions.yml"
grep -q 'cpack -G DEB' "$t" && grep -q 'apt-get install .*memguard_\*\.deb' "$t" ||
	{ echo "FAIL: $t does not build and install the .deb"; bad=1; }
[ $bad = 0 ] && echo "ok: every template installs and configures for building only"
exit $bad

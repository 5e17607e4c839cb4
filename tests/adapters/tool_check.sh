#!/bin/sh
# tool_check.sh - the external validators of the adapters' output, registered
# whatever is installed: a missing tool is a skip (exit 77) that says what is
# missing, never a check that silently disappears; a tool that finds a fault
# fails (exit 1).
#
#   tool_check.sh schema PYTHON CHECK_SCHEMA_PY DRIVER SCHEMA REPORT...
#   tool_check.sh xsd XMLLINT DRIVER CASE_DIR OUT_DIR XSD
#   tool_check.sh promtool PROMTOOL DRIVER CASE_DIR OUT_DIR
set -u
kind=$1 tool=$2
shift 2

skip() { echo "SKIP: $*"; exit 77; }
command -v "$tool" >/dev/null 2>&1 ||
	skip "$tool not found (ci/setup installs it); the $kind check did not run"

case $kind in
schema)
	"$tool" -c 'import jsonschema' >/dev/null 2>&1 ||
		skip "$tool has no jsonschema module (Debian: python3-jsonschema); the schema check did not run"
	exec "$tool" "$@"
	;;
xsd)
	driver=$1 case=$2 out=$3 xsd=$4
	mkdir -p "$out" && "$driver" --render "$case" "junit=$out/junit.xml" &&
		"$tool" --noout --schema "$xsd" "$out/junit.xml"
	;;
promtool)
	driver=$1 case=$2 out=$3
	mkdir -p "$out" && "$driver" --render "$case" "gitlab=$out/gitlab" &&
		"$tool" check metrics <"$out/gitlab/metrics.txt"
	;;
*)
	echo "tool_check.sh: unknown check '$kind'" >&2
	exit 2
	;;
esac
[ $? = 0 ] || exit 1

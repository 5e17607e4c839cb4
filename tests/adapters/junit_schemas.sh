#!/bin/sh
# junit_schemas.sh - the JUnit adapter's output against the rules of Jenkins
# xunit's junit-10.xsd and the windyroad JUnit.xsd (check_junit_schemas.py;
# with XSD_DIR holding junit-10.xsd / JUnit.xsd, the real schemas by xmllint
# as well).
#
#   junit_schemas.sh valid PYTHON CHECKER DRIVER CASE_DIR OUT_DIR [XSD_DIR XMLLINT]
#       the default form (junit) of the case is valid by both
#   junit_schemas.sh rejects PYTHON CHECKER DRIVER CASE_DIR OUT_DIR [XSD_DIR XMLLINT]
#       junit:properties is rejected by both, and so is each of a list of
#       known faults planted in the default form: the check can fail
set -u
mode=$1 py=$2 checker=$3 driver=$4 case=$5 out=$6
xsd_dir=${7:-} xmllint=${8:-xmllint}
mkdir -p "$out" || exit 1

check() { # SCHEMA FILE
	xsd=
	case $1 in junit-10) xsd=$xsd_dir/junit-10.xsd ;; windyroad) xsd=$xsd_dir/JUnit.xsd ;; esac
	if [ -n "$xsd_dir" ] && [ -f "$xsd" ]; then
		"$py" "$checker" "$1" "$2" --xsd "$xsd" --xmllint "$xmllint"
	else
		"$py" "$checker" "$1" "$2"
	fi
}

fail=0
"$driver" --render "$case" "junit=$out/junit.xml" || exit 1
if [ "$mode" = valid ]; then
	for s in junit-10 windyroad; do
		check $s "$out/junit.xml" || fail=1
	done
	exit $fail
fi

"$driver" --render "$case" "junit:properties=$out/properties.xml" || exit 1
for s in junit-10 windyroad; do
	if check $s "$out/properties.xml" >"$out/log" 2>&1; then
		echo "FAIL: junit:properties passed $s"; fail=1
	elif ! grep -q "properties" "$out/log"; then
		echo "FAIL: $s rejected junit:properties, but not for <properties>:"; cat "$out/log"; fail=1
	fi
done
# sed edit, then the schemas that must reject it
while read -r edit schemas; do
	sed -e "$edit" "$out/junit.xml" >"$out/bad.xml"
	cmp -s "$out/junit.xml" "$out/bad.xml" && { echo "FAIL: '$edit' changed nothing"; fail=1; }
	for s in $schemas; do
		check $s "$out/bad.xml" >/dev/null 2>&1 && { echo "FAIL: $s took '$edit'"; fail=1; }
	done
done <<'EDITS'
s/<testsuites>/<testsuites skipped="1">/ junit-10 windyroad
s/<testsuites>/<testsuites name="m">/ windyroad
s/ hostname="localhost"// windyroad
s/ id="0"/ id="x"/ windyroad
s/ package="[^"]*"// windyroad
s/ failures="[0-9]*"// junit-10 windyroad
s/timestamp="\([0-9]*\)-[0-9]*-/timestamp="\1-13-/ windyroad
s#<system-err/>## windyroad
s#<failure type="fail"#<system-out/><failure type="fail"# windyroad
s/<failure type="fail"/<failure/ windyroad
s#<properties>#<properties><x/>#  junit-10 windyroad
EDITS
[ $fail = 0 ] && echo "junit:properties and every planted fault rejected"
exit $fail

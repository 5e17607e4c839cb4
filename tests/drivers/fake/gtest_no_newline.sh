#!/bin/sh
# fake gtest: a test prints without a final newline before gtest's OK line
case "$*" in *--gtest_list_tests*) printf 'S.\n  A\n  B\n  C\n'; exit 0;; esac
echo "Note: Google Test filter = x"
echo "[==========] Running 3 tests from 1 test suite."
echo "[ RUN      ] S.A"
printf 'partial'
echo "[       OK ] S.A (0 ms)"
echo "[ RUN      ] S.B"
echo "[  FAILED  ] S.B (0 ms)"
echo "[ RUN      ] S.C"
echo "[       OK ] S.C (0 ms)"
echo "[==========] 3 tests from 1 test suite ran. (0 ms total)"
exit 1

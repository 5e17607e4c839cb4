#!/bin/sh
# fake gtest: a test prints a NUL byte
case "$*" in *--gtest_list_tests*) printf 'S.\n  A\n  B\n'; exit 0;; esac
echo "[ RUN      ] S.A"
printf 'bin\000ary\n'
echo "[       OK ] S.A (0 ms)"
echo "[ RUN      ] S.B"
echo "[       OK ] S.B (0 ms)"
echo "[==========] 2 tests from 1 test suite ran. (0 ms total)"
exit 0

/*
 * memguard_cunit.h - the CUnit binding: serves the current CUnit registry as
 * a memguard host (tests named "suite/test"). Needs CUnit (2.1-3); the rest
 * of runner/host is libc only.
 */
#ifndef MEMGUARD_CUNIT_H
#define MEMGUARD_CUNIT_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Call after the suites are registered; the caller keeps the registry (and
 * cleans it up after). Under memguard it serves the registry through
 * mg_host_serve: a suite's init runs before its first test in this host and
 * its cleanup when the host moves to another suite or ends; an inactive suite
 * or test is a skip; CUnit assertion failures make the test fail with
 * "file:line: condition" (the first one, "(+N more)" after it). Started
 * directly with no arguments it runs CUnit's basic runner (verbose) instead;
 * with arguments ("--list", "suite/test" names) it behaves like
 * mg_host_main. Returns 0 when nothing failed, 1 otherwise (2 on a usage
 * error, 3 when the registry cannot be read).
 */
int mg_cunit_main(int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif

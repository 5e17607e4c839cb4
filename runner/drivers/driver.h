/*
 * driver.h - running test programs that do not speak protocol v1. A driver
 * is a protocol shim: the runner starts "memguard __driver NAME [options]
 * -- COMMAND..." as the host, and the shim speaks v1 on fds 3/4 while it
 * drives the real program (GoogleTest by its flags and output, one process
 * per test, or one wrapped command). The real program is the shim's child,
 * in the same process group, so the guard's tree sampling and group kill
 * cover it.
 */
#ifndef MG_DRIVER_H
#define MG_DRIVER_H

#include <stddef.h>

#include "mg_err.h"

typedef enum driver_kind {
	DRIVER_NATIVE, /* the program links the host library */
	DRIVER_GTEST,
	DRIVER_EXEC,
	DRIVER_WRAP,
	DRIVER_CTEST,  /* ctest's own tests, one process each */
	DRIVER_CATCH2, /* a Catch2 program, followed through its XML reporter */
} driver_kind;

/* "native", "gtest", "exec", "wrap", "ctest", "catch2"; MG_EINVAL naming the token else. */
int driver_parse(driver_kind *out, const char *name, mg_err *err);
const char *driver_name(driver_kind k);

/*
 * Decides the driver for an executable without running it: the host
 * library's marker → native; GoogleTest's → gtest; Catch2's → catch2; a
 * program named ctest → ctest; otherwise wrap, with a
 * one-line note saying so written to note (empty when none).
 */
driver_kind driver_detect(const char *path, char *note, size_t size);

/*
 * An explicit --driver gtest or catch2 against the executable's own
 * markers (the ones driver_detect reads): MG_EINVAL naming what path is
 * when they contradict it. A file that is not an ELF (a script that starts
 * the program) is not judged, nor a program without either framework's
 * marker whose arguments (argv, NULL-terminated, argv[0] the command) name
 * an executable with the driver's (a wrapper: env, taskset, valgrind).
 * 0 for every other driver.
 */
int driver_check(driver_kind k, const char *path, char *const argv[], mg_err *err);

/* The hidden subcommand: memguard __driver NAME [options] -- COMMAND...
 * Returns the process exit code. */
int driver_main(int argc, char **argv);

#endif

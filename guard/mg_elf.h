/*
 * mg_elf.h - what a host executable is, read from its file without running
 * it (elf.c): the ELF class (x86 or x64), whether it is dynamically linked,
 * and whether it carries a marker string (the host library's, GoogleTest's). Reads; never executes.
 * Prefixed so that it never stands in for the system's <elf.h>.
 */
#ifndef MG_ELF_H
#define MG_ELF_H

#include <stddef.h>
#include <sys/types.h>

#include "mg_err.h"
#include "mg_limits.h"

/*
 * Reads the ELF header of path: MG_ARCH_X86 for ELFCLASS32 i386,
 * MG_ARCH_X64 for ELFCLASS64 x86-64. MG_ENOTFOUND if the file cannot be
 * opened (message with strerror), MG_EINVAL if it is not an x86/x64 ELF.
 */
int elf_arch(mg_arch *out, const char *path, mg_err *err);

/*
 * The arch of a running process: elf_arch of the file it executes now
 * (/proc/PID/exe, which stays readable when the file is deleted). One open
 * and one 20-byte read; for a new process, or one that exec'd. MG_ENOTFOUND
 * when the process is gone or out of reach.
 */
int elf_arch_of_pid(mg_arch *out, pid_t pid, mg_err *err);

/*
 * 1 when path is a dynamically linked ELF (it has a PT_INTERP program
 * header: the dynamic loader runs, so LD_PRELOAD works), 0 when it is a
 * static one, <0 when it is not an ELF file or cannot be read (err says
 * why). A few small reads: the header and the program headers (at most 256).
 */
int elf_dynamic(const char *path, mg_err *err);

/* 1 if the file contains the bytes of marker in a section that may hold
 * one: a marker is a string of the program's data or a symbol's name, so
 * an ELF's code, symbol and relocation entries, unwind tables and debug
 * information (.debug_*, .zdebug_*) are skipped; 0 if not, <0 on error.
 * Streams the file in blocks: O(its data and string tables); a file that is
 * not an ELF (or whose section headers do not read) is read whole. */
int elf_contains(const char *path, const char *marker, mg_err *err);

/* elf_contains for n markers in one pass: found[i] 1 when markers[i] is
 * there, 0 when not; 0, or <0 on error (found then all 0). The pass ends
 * when every marker is found, else at the file's end. */
int elf_contains_each(const char *path, const char *const *markers, size_t n, int *found,
                      mg_err *err);

/* Which of an ELF's sections elf_contains_each_in reads (a file whose
 * section headers do not read is read whole, whatever the choice). */
typedef enum elf_scan {
	ELF_SCAN_ALL,          /* elf_contains's: data, string tables, symbol names */
	ELF_SCAN_LOADED,       /* what is loaded at run time: data, .dynstr, .rodata */
	ELF_SCAN_SYMBOL_NAMES, /* only the string tables that are not (.strtab) */
} elf_scan;
/* elf_contains_each over the sections where says. The symbol names of a
 * C++ program are most of what elf_contains reads (2.5 of Catch2's
 * UsageTests' 5.9 MB, 2.9 of yaml-cpp-tests' 3.6 MB read). */
int elf_contains_each_in(const char *path, const char *const *markers, size_t n, int *found,
                         elf_scan where, mg_err *err);

/*
 * 1 when a library that path needs carries marker (a framework linked as a
 * shared library: libCatch2.so), its path then in found (size n). Each of
 * path's DT_NEEDED names is resolved as the dynamic loader resolves it:
 * DT_RPATH when there is no DT_RUNPATH, LD_LIBRARY_PATH, DT_RUNPATH
 * ($ORIGIN expanded to path's directory), /etc/ld.so.cache, the default
 * directories, skipping a library of the other ELF class; a name with a
 * '/' as it is. Only path's own needs, not theirs, and never the C and C++
 * runtimes' (libc, libm, libstdc++, libgcc_s, the loader). 0 when none
 * does (or path is static), <0 when path cannot be read or is not an ELF.
 * Cost: path's headers, dynamic section and string table; the cache once
 * for each name not found before it; an elf_contains of each library.
 */
int elf_needed_contains(const char *path, const char *marker, char *found, size_t n, mg_err *err);

#endif

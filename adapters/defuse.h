/*
 * defuse.h - what memguard prints into a CI job log never becomes a command
 * of that CI's log scanner: a test's name, message or output that holds
 * "##vso[" (Azure, anywhere in a line), "##teamcity[" (TeamCity, anywhere)
 * or a GitHub workflow command ("::" at the start of a line after blanks;
 * "##[" anywhere, the runner's older form) is printed with a space breaking
 * the marker: "##vso [", "##teamcity [", ": :", "## [". Only the scanners of
 * the CI memguard runs under are defused (its environment says which);
 * memguard's own commands are written by the adapters, not through here.
 */
#ifndef MG_DEFUSE_H
#define MG_DEFUSE_H

#include <stddef.h>
#include <stdio.h>

enum {
	DEFUSE_AZURE = 1,    /* TF_BUILD: ##vso[ anywhere (case-insensitive) */
	DEFUSE_TEAMCITY = 2, /* TEAMCITY_VERSION: ##teamcity[ anywhere */
	DEFUSE_GITHUB = 4,   /* GITHUB_ACTIONS: ::cmd at line start, ##[ anywhere */
};

/* The scanners of the CI in this process's environment (0: none). */
unsigned defuse_scanners(void);

/* Writes len bytes of text to f with every line defused for the scanners in
 * mask (mask 0: as it is). Text without a marker is written unchanged; a
 * marker split across two calls is not seen, so callers pass whole lines. */
void defuse_write(FILE *f, const char *text, size_t len, unsigned mask);

/* defuse_write of a NUL-terminated string. */
void defuse_puts(FILE *f, const char *text, unsigned mask);

#endif

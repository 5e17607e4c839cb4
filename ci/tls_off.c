/*
 * tls_off.c - keeps libgit2 from reading the system's CA bundle. memguard
 * opens no network connection through libgit2 (users fetch and push notes
 * with git itself), yet git_libgit2_init, built with mbedTLS (Debian's
 * libgit2), parses every certificate of the bundle each time it runs: 56
 * million instructions, a third of the runner's own at 20,000 tests, at
 * every `memguard run` (ci_commit_identity) and every notes command.
 *
 * libgit2 calls mbedTLS through its dynamic symbol table, so this
 * definition in the executable is the one it binds (the linker exports it
 * because libgit2.so refers to it). The CA chain stays empty: a TLS
 * connection, were one ever made, would fail verification, never pass it.
 * A libgit2 built with OpenSSL does not call it, and nothing changes there.
 *
 * Compiled into every program that links mg_ci (an INTERFACE source of it:
 * an archive member nothing refers to would not be linked).
 */
#include "ci.h"

int mbedtls_x509_crt_parse_file(void *chain, const char *path);
int mbedtls_x509_crt_parse_path(void *chain, const char *path);

int mbedtls_x509_crt_parse_file(void *chain, const char *path)
{
	(void)chain;
	(void)path;
	return 0; /* no certificate added, no error */
}

/* the same for a libgit2 whose default location is a directory */
int mbedtls_x509_crt_parse_path(void *chain, const char *path)
{
	(void)chain;
	(void)path;
	return 0;
}

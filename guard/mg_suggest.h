/*
 * mg_suggest.h - "did you mean": the closest of a list of words to a
 * mistyped one (commands, options, adapter names). Pure computation, libc
 * only; the option names come from the help texts, so a typo is matched
 * against exactly what help shows.
 */
#ifndef MG_SUGGEST_H
#define MG_SUGGEST_H

#include <stddef.h>

/* The optimal-string-alignment distance between a and b (insertions,
 * deletions, substitutions and swaps of two neighbours, each 1). Words
 * longer than 63 bytes are compared by their first 63. O(len(a) * len(b)). */
size_t suggest_distance(const char *a, const char *b);

/* The one of words[0..n) closest to typed, if it is close enough to be a
 * typo (distance at most 1 for short words, a third of the length for long
 * ones, or typed is the start of exactly one word); NULL otherwise. A tie
 * between two words at the same distance suggests neither. */
const char *suggest_word(const char *typed, const char *const *words, size_t n);

/* The option of a help text closest to typed ("--recyle-at"): every
 * "--name" in text is a candidate. Writes it to out (size bytes) and
 * returns 0, or returns -1 (out is "") when none is close enough. */
int suggest_option(char *out, size_t size, const char *typed, const char *text);

#endif

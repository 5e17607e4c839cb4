/*
 * suggest.c - "did you mean": edit distance over a word list or the options
 * a help text names. Pure computation; allocates nothing but a fixed
 * candidate table on the stack; never prints.
 */
#include "mg_suggest.h"

#include <string.h>

#define SUGGEST_MAX        63
#define SUGGEST_CANDIDATES 128

size_t suggest_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > SUGGEST_MAX)
		la = SUGGEST_MAX;
	if (lb > SUGGEST_MAX)
		lb = SUGGEST_MAX;
	size_t d[SUGGEST_MAX + 1][SUGGEST_MAX + 1];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < best)
				best = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[la][lb];
}

const char *suggest_word(const char *typed, const char *const *words, size_t n)
{
	size_t len = strlen(typed);
	size_t limit = len < 6 ? 1 : len / 3;
	const char *best = NULL, *prefix = NULL;
	size_t best_d = (size_t)-1, nprefix = 0;
	int tie = 0;
	if (!len)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(typed, words[i]))
			continue; /* the same word is no suggestion */
		if (!strncmp(typed, words[i], len)) {
			prefix = words[i];
			nprefix++;
		}
		size_t d = suggest_distance(typed, words[i]);
		if (d < best_d) {
			best = words[i];
			best_d = d;
			tie = 0;
		} else if (d == best_d && strcmp(best, words[i])) {
			tie = 1;
		}
	}
	if (best && best_d <= limit && !tie)
		return best;
	return nprefix == 1 ? prefix : NULL;
}

int suggest_option(char *out, size_t size, const char *typed, const char *text)
{
	char names[SUGGEST_CANDIDATES][SUGGEST_MAX + 1];
	const char *words[SUGGEST_CANDIDATES];
	size_t n = 0;
	out[0] = '\0';
	for (const char *p = text; (p = strstr(p, "--")) != NULL && n < SUGGEST_CANDIDATES;) {
		const char *s = p;
		p += 2;
		if (s > text && !strchr(" \n[(,'|", s[-1]))
			continue; /* the middle of a word, or "---" */
		size_t len = 2 + strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789-");
		if (len <= 2 || len > SUGGEST_MAX)
			continue;
		memcpy(names[n], s, len);
		names[n][len] = '\0';
		words[n] = names[n];
		n++;
	}
	const char *w = suggest_word(typed, words, n);
	if (!w || strlen(w) >= size)
		return -1;
	strcpy(out, w);
	return 0;
}

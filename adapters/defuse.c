/*
 * defuse.c - breaks the CI log scanners' command markers in text memguard
 * prints (see defuse.h). Each CI's rule as its agent applies it: Azure's
 * agent runs the first "##vso[" found anywhere in a line, TeamCity the
 * "##teamcity[" messages anywhere in a line, GitHub's runner a line whose
 * text after leading blanks starts with "::" (and "##[" anywhere). Never
 * allocates; never changes text without a marker.
 */
#include "defuse.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int env_set(const char *name)
{
	const char *v = getenv(name);
	return v && *v;
}

unsigned defuse_scanners(void)
{
	unsigned m = 0;
	if (env_set("TF_BUILD"))
		m |= DEFUSE_AZURE;
	if (env_set("TEAMCITY_VERSION"))
		m |= DEFUSE_TEAMCITY;
	if (env_set("GITHUB_ACTIONS"))
		m |= DEFUSE_GITHUB;
	return m;
}

/* The markers found anywhere in a line: written up to the split point, a
 * space, then the rest ("##vso" " " "["). */
static const struct {
	unsigned scanner;
	const char *marker;
	size_t split;
} anywhere[] = {
    {DEFUSE_AZURE, "##vso[", 5},
    {DEFUSE_TEAMCITY, "##teamcity[", 10},
    {DEFUSE_GITHUB, "##[", 2},
};

static void line(FILE *f, const char *s, size_t len, unsigned mask)
{
	size_t i = 0;
	if (mask & DEFUSE_GITHUB) {
		while (i < len && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (len - i >= 2 && s[i] == ':' && s[i + 1] == ':') {
			fwrite(s, 1, i + 1, f);
			fputc(' ', f);
			s += i + 1;
			len -= i + 1;
		}
		i = 0;
	}
	size_t from = 0;
	while (i < len) {
		size_t hit = 0;
		for (size_t k = 0; k < sizeof(anywhere) / sizeof(anywhere[0]); k++) {
			size_t ml = strlen(anywhere[k].marker);
			if ((mask & anywhere[k].scanner) && len - i >= ml &&
			    strncasecmp(s + i, anywhere[k].marker, ml) == 0) {
				hit = anywhere[k].split;
				break;
			}
		}
		if (!hit) {
			i++;
			continue;
		}
		fwrite(s + from, 1, i + hit - from, f);
		fputc(' ', f);
		from = i + hit;
		i = from;
	}
	fwrite(s + from, 1, len - from, f);
}

void defuse_write(FILE *f, const char *text, size_t len, unsigned mask)
{
	if (!mask) {
		fwrite(text, 1, len, f);
		return;
	}
	while (len) {
		const char *nl = memchr(text, '\n', len);
		size_t n = nl ? (size_t)(nl - text) + 1 : len;
		/* a CR ends a line for the agents too */
		const char *cr = memchr(text, '\r', n);
		if (cr)
			n = (size_t)(cr - text) + 1;
		line(f, text, n, mask);
		text += n;
		len -= n;
	}
}

void defuse_puts(FILE *f, const char *text, unsigned mask)
{
	defuse_write(f, text, strlen(text), mask);
}

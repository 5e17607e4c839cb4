/*
 * growth.c - the --max-growth thresholds of compare: parsing "va=5%,rss=64M"
 * (sizes in guard's one grammar, limits_parse_size: M = MiB = 2^20, MB =
 * 10^6) and deciding whether a metric grew too much. Pure functions, no
 * allocation.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ci_int.h"
#include "mg_limits.h"

static const char *const metric_names[GROWTH_COUNT] = {"va",   "rss",  "recycles",
                                                       "test", "rise", "retained"};

const char *growth_metric_name(growth_metric m)
{
	return metric_names[m];
}

void growth_defaults(growth_limits *out)
{
	memset(out, 0, sizeof(*out));
	out->has_pct[GROWTH_VA] = 1;
	out->pct[GROWTH_VA] = 5;
	out->has_pct[GROWTH_RSS] = 1;
	out->pct[GROWTH_RSS] = 10;
	out->has_abs[GROWTH_TEST] = 1;
	out->abs[GROWTH_TEST] = 4u << 20;
	out->has_abs[GROWTH_RISE] = 1;
	out->abs[GROWTH_RISE] = 16u << 20;
	out->has_abs[GROWTH_RETAINED] = 1;
	out->abs[GROWTH_RETAINED] = 16u << 20;
}

static int parse_token(growth_limits *out, const char *tok, mg_err *err)
{
	const char *eq = strchr(tok, '=');
	int m = -1;
	if (!eq || eq == tok || eq[1] == '\0')
		return mg_err_set(err, MG_EINVAL, "'%s' is not METRIC=LIMIT", tok);
	for (int i = 0; i < GROWTH_COUNT; i++)
		if (strlen(metric_names[i]) == (size_t)(eq - tok) &&
		    strncmp(tok, metric_names[i], (size_t)(eq - tok)) == 0)
			m = i;
	if (m < 0)
		return mg_err_set(err, MG_EINVAL,
		                  "'%s': unknown metric (va, rss, recycles, test, rise, retained)",
		                  tok);
	const char *val = eq + 1;
	size_t len = strlen(val);
	if (val[len - 1] == '%') {
		char *end;
		errno = 0;
		double p = strtod(val, &end);
		if (errno || end != val + len - 1 || end == val || !isfinite(p) || p < 0 ||
		    !(isdigit((unsigned char)val[0]) || val[0] == '.'))
			return mg_err_set(err, MG_EINVAL, "'%s' is not a percentage", tok);
		out->has_pct[m] = 1;
		out->pct[m] = p;
		return 0;
	}
	mg_err serr;
	if (limits_parse_size(&out->abs[m], val, &serr) < 0)
		return mg_err_set(err, MG_EINVAL, "'%s': %s", tok, serr.msg);
	out->has_abs[m] = 1;
	return 0;
}

int growth_parse(growth_limits *out, const char *spec, mg_err *err)
{
	char tok[128];
	memset(out, 0, sizeof(*out));
	if (strcmp(spec, "none") == 0)
		return 0;
	const char *p = spec;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (len == 0)
			return mg_err_set(err, MG_EINVAL, "empty threshold in '%s'", spec);
		if (len >= sizeof(tok))
			return mg_err_set(err, MG_EINVAL, "threshold '%.*s' is too long", (int)len,
			                  p);
		memcpy(tok, p, len);
		tok[len] = '\0';
		int rc = parse_token(out, tok, err);
		if (rc < 0)
			return rc;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

static void format_abs(char *buf, size_t size, growth_metric m, uint64_t v)
{
	if (m == GROWTH_RECYCLES)
		snprintf(buf, size, "%llu", (unsigned long long)v);
	else
		report_format_size(buf, size, v);
}

int growth_exceeded(const growth_limits *l, growth_metric m, int64_t base, int64_t head, char *why,
                    size_t whysize)
{
	char a[32], b[32];
	if (head <= base)
		return 0;
	uint64_t grew = (uint64_t)head - (uint64_t)base; /* no signed overflow */
	if (l->has_abs[m] && grew > l->abs[m]) {
		format_abs(a, sizeof(a), m, grew);
		format_abs(b, sizeof(b), m, l->abs[m]);
		snprintf(why, whysize, "+%s > %s", a, b);
		return 1;
	}
	if (l->has_pct[m] && base > 0) {
		double pct = 100.0 * (double)grew / (double)base;
		if (pct > l->pct[m]) {
			snprintf(why, whysize, "+%.1f%% > %g%%", pct, l->pct[m]);
			return 1;
		}
	}
	return 0;
}

/*
 * limits.c - the limit grammar, arch defaults and evaluation of a reading.
 * Pure computation: no I/O, no allocation; every error names the bad token.
 */
#include "mg_limits.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#define KIB (1024ULL)
#define GIB (1024ULL * 1024 * 1024)

const char *limits_arch_name(mg_arch arch)
{
	switch (arch) {
	case MG_ARCH_X86:
		return "x86";
	case MG_ARCH_X64:
		return "x64";
	default:
		return "unknown";
	}
}

int limits_arch_parse(mg_arch *out, const char *text, mg_err *err)
{
	static const char *const x86[] = {"x86", "i386", "i686", "32"};
	static const char *const x64[] = {"x64", "x86_64", "amd64", "64"};
	for (size_t i = 0; i < sizeof(x86) / sizeof(x86[0]); i++) {
		if (strcasecmp(text, x86[i]) == 0) {
			*out = MG_ARCH_X86;
			return 0;
		}
	}
	for (size_t i = 0; i < sizeof(x64) / sizeof(x64[0]); i++) {
		if (strcasecmp(text, x64[i]) == 0) {
			*out = MG_ARCH_X64;
			return 0;
		}
	}
	return mg_err_set(err, MG_EINVAL, "unknown arch '%s' (known: x86, x64)", text);
}

uint64_t limits_arch_ceiling(mg_arch arch)
{
	switch (arch) {
	case MG_ARCH_X86:
		return 4 * GIB;
	case MG_ARCH_X64:
		return 1ULL << 47;
	default:
		return 0;
	}
}

/* A token with the surrounding blanks removed: [start, start + len). */
typedef struct span {
	const char *start;
	size_t len;
} span;

static span span_trim(const char *s, size_t len)
{
	while (len > 0 && isblank((unsigned char)*s)) {
		s++;
		len--;
	}
	while (len > 0 && isblank((unsigned char)s[len - 1]))
		len--;
	return (span){s, len};
}

/* Compares a span with a word, ignoring case. */
static int span_is(span s, const char *word)
{
	return strlen(word) == s.len && strncasecmp(s.start, word, s.len) == 0;
}

/* The number part of a token: integer digits and up to 9 fraction digits,
 * kept exact as integers so "3.5G" is exactly 3.5 * 2^30. */
typedef struct decimal {
	uint64_t whole;
	uint64_t frac;     /* the fraction digits as an integer */
	uint64_t frac_div; /* 10^(number of fraction digits, at most 9); 1 if none */
	size_t used;       /* characters consumed */
	int overflow;
} decimal;

static int decimal_scan(decimal *d, span s)
{
	size_t i = 0;
	memset(d, 0, sizeof(*d));
	d->frac_div = 1;
	if (i >= s.len || !isdigit((unsigned char)s.start[i]))
		return -1;
	for (; i < s.len && isdigit((unsigned char)s.start[i]); i++) {
		unsigned digit = (unsigned)(s.start[i] - '0');
		if (d->whole > (UINT64_MAX - digit) / 10)
			d->overflow = 1;
		else
			d->whole = d->whole * 10 + digit;
	}
	if (i < s.len && s.start[i] == '.') {
		i++;
		if (i >= s.len || !isdigit((unsigned char)s.start[i]))
			return -1;
		for (; i < s.len && isdigit((unsigned char)s.start[i]); i++) {
			if (d->frac_div >= 1000000000ULL)
				continue; /* digits past the ninth are ignored */
			d->frac = d->frac * 10 + (unsigned)(s.start[i] - '0');
			d->frac_div *= 10;
		}
	}
	d->used = i;
	return 0;
}

/* The multiplier of a unit suffix, or 0 if the suffix is not one. */
static uint64_t unit_multiplier(span u)
{
	static const struct {
		const char *name;
		uint64_t mult;
	} units[] = {
	    {"", 1},
	    {"b", 1},
	    {"k", KIB},
	    {"kib", KIB},
	    {"kb", 1000ULL},
	    {"m", KIB * KIB},
	    {"mib", KIB * KIB},
	    {"mb", 1000ULL * 1000},
	    {"g", GIB},
	    {"gib", GIB},
	    {"gb", 1000ULL * 1000 * 1000},
	    {"t", GIB * KIB},
	    {"tib", GIB * KIB},
	    {"tb", 1000ULL * 1000 * 1000 * 1000},
	};
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (span_is(u, units[i].name))
			return units[i].mult;
	return 0;
}

/* "in 'va=3.5Q'" when the token came from a list item, else nothing. */
static const char *ctx_pre(const char *item)
{
	return item ? " in '" : "";
}

static const char *ctx_post(const char *item)
{
	return item ? "'" : "";
}

/* Parses a trimmed size token; item (or NULL) is the key=value it came from,
 * quoted in messages. */
static int parse_size_span(uint64_t *out, span tok, const char *item, mg_err *err)
{
	const char *ctx = item ? item : "";
	int tl = (int)tok.len;
	if (tok.len == 0)
		return mg_err_set(err, MG_EINVAL, "empty size%s%s%s", ctx_pre(item), ctx,
		                  ctx_post(item));
	if (tok.start[0] == '-')
		return mg_err_set(err, MG_EINVAL, "negative size '%.*s'%s%s%s", tl, tok.start,
		                  ctx_pre(item), ctx, ctx_post(item));
	decimal d;
	uint64_t mult = 0;
	if (decimal_scan(&d, tok) == 0)
		mult = unit_multiplier(span_trim(tok.start + d.used, tok.len - d.used));
	if (mult == 0)
		return mg_err_set(err, MG_EINVAL,
		                  "bad size '%.*s'%s%s%s (want e.g. 512M, 3.5G, 2GB, 1048576)", tl,
		                  tok.start, ctx_pre(item), ctx, ctx_post(item));
	if (mult == 1 && d.frac != 0)
		return mg_err_set(err, MG_EINVAL, "bad size '%.*s'%s%s%s: a fraction of a byte", tl,
		                  tok.start, ctx_pre(item), ctx, ctx_post(item));
	/* whole * mult + frac * mult / frac_div without 128-bit arithmetic:
	 * frac < frac_div <= 1e9, so each product below fits in 64 bits. The
	 * fraction is truncated to whole bytes. */
	uint64_t q = mult / d.frac_div, r = mult % d.frac_div;
	uint64_t part = d.frac * q + d.frac * r / d.frac_div;
	uint64_t total;
	if (d.overflow || __builtin_mul_overflow(d.whole, mult, &total) ||
	    __builtin_add_overflow(total, part, &total))
		return mg_err_set(err, MG_EINVAL, "size '%.*s'%s%s%s overflows 64 bits", tl,
		                  tok.start, ctx_pre(item), ctx, ctx_post(item));
	*out = total;
	return 0;
}

int limits_parse_size(uint64_t *out, const char *token, mg_err *err)
{
	return parse_size_span(out, span_trim(token, strlen(token)), NULL, err);
}

/* Parses "80%" or "12.5%" into a share in (0, 100]. */
static int parse_percent(double *out, span tok, const char *item, mg_err *err)
{
	int tl = (int)tok.len;
	decimal d;
	span num = span_trim(tok.start, tok.len - 1); /* without the '%' */
	if (num.len > 0 && num.start[0] == '-')
		return mg_err_set(err, MG_EINVAL, "negative percentage '%.*s' in '%s'", tl,
		                  tok.start, item);
	if (decimal_scan(&d, num) != 0 || d.used != num.len || d.overflow)
		return mg_err_set(err, MG_EINVAL, "bad percentage '%.*s' in '%s'", tl, tok.start,
		                  item);
	double p = (double)d.whole + (double)d.frac / (double)d.frac_div;
	if (!(p > 0.0 && p <= 100.0))
		return mg_err_set(err, MG_EINVAL, "percentage '%.*s' in '%s' is not in (0, 100]",
		                  tl, tok.start, item);
	*out = p;
	return 0;
}

/* Parses one "key=value" item (trimmed, non-empty) into spec. seen holds
 * the LIMIT_* bits of keys already given in this text. */
static int parse_item(limits_spec *spec, unsigned *seen, span item, mg_err *err)
{
	char text[256];
	snprintf(text, sizeof(text), "%.*s", (int)item.len, item.start);
	const char *eq = memchr(item.start, '=', item.len);
	if (!eq)
		return mg_err_set(err, MG_EINVAL,
		                  "missing '=' in '%s' (want key=value, e.g. va=3.5G)", text);
	span key = span_trim(item.start, (size_t)(eq - item.start));
	span val = span_trim(eq + 1, item.len - (size_t)(eq - item.start) - 1);
	limit_value *slot;
	unsigned bit;
	if (span_is(key, "va")) {
		slot = &spec->va, bit = LIMIT_VA;
	} else if (span_is(key, "rss")) {
		slot = &spec->rss, bit = LIMIT_RSS;
	} else if (span_is(key, "cgroup")) {
		slot = &spec->cgroup, bit = LIMIT_CGROUP;
	} else if (span_is(key, "gap")) {
		slot = &spec->gap, bit = LIMIT_GAP;
	} else if (key.len == 0) {
		return mg_err_set(err, MG_EINVAL, "missing key in '%s'", text);
	} else {
		return mg_err_set(err, MG_EINVAL,
		                  "unknown limit '%.*s' in '%s' (known: va, rss, cgroup, gap)",
		                  (int)key.len, key.start, text);
	}
	if (*seen & bit)
		return mg_err_set(err, MG_EINVAL, "limit '%.*s' given twice (at '%s')",
		                  (int)key.len, key.start, text);
	*seen |= bit;
	if (val.len == 0)
		return mg_err_set(err, MG_EINVAL, "missing value in '%s'", text);
	if (span_is(val, "none") || span_is(val, "off")) {
		*slot = (limit_value){0, 0.0, 1};
		return 0;
	}
	if (val.start[val.len - 1] == '%') {
		if (bit == LIMIT_GAP)
			return mg_err_set(err, MG_EINVAL,
			                  "gap takes a size, not a percentage: '%.*s' in '%s'",
			                  (int)val.len, val.start, text);
		double p = 0.0;
		int rc = parse_percent(&p, val, text, err);
		if (rc)
			return rc;
		*slot = (limit_value){0, p, 1};
		return 0;
	}
	uint64_t bytes;
	int rc = parse_size_span(&bytes, val, text, err);
	if (rc)
		return rc;
	*slot = (limit_value){bytes, 0.0, 1};
	return 0;
}

int limits_parse(limits_spec *out, const char *text, mg_err *err)
{
	limits_spec spec = *out; /* committed only if the whole text parses */
	unsigned seen = 0;
	size_t len = strlen(text);
	if (span_trim(text, len).len == 0)
		return mg_err_set(err, MG_EINVAL, "empty limit list (want e.g. va=3.5G,rss=80%%)");
	const char *p = text;
	const char *end = text + len;
	for (;;) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *stop = comma ? comma : end;
		span item = span_trim(p, (size_t)(stop - p));
		if (item.len == 0)
			return mg_err_set(err, MG_EINVAL, "empty item at offset %zu in '%s'",
			                  (size_t)(p - text), text);
		int rc = parse_item(&spec, &seen, item, err);
		if (rc)
			return rc;
		if (!comma)
			break;
		p = comma + 1;
	}
	*out = spec;
	return 0;
}

void limits_default(limits_spec *soft, limits_spec *hard, mg_arch arch)
{
	memset(soft, 0, sizeof(*soft));
	memset(hard, 0, sizeof(*hard));
	switch (arch) {
	case MG_ARCH_X86: /* of 4 GiB: 3.5 and 3.75 GiB (DESIGN.md's measured facts) */
		soft->va.percent = 87.5;
		hard->va.percent = 93.75;
		break;
	case MG_ARCH_X64:
		soft->rss.percent = 80.0;
		hard->rss.percent = 95.0;
		break;
	default:
		break;
	}
}

static uint64_t value_resolve(limit_value v, uint64_t base)
{
	if (v.percent > 0.0)
		return (uint64_t)((long double)base * v.percent / 100.0L);
	return v.bytes;
}

void limits_resolve(limits *out, const limits_spec *spec, mg_arch arch, uint64_t ram,
                    uint64_t cgroup_limit)
{
	out->va = value_resolve(spec->va, limits_arch_ceiling(arch));
	out->rss = value_resolve(spec->rss, cgroup_limit ? cgroup_limit : ram);
	out->cgroup = value_resolve(spec->cgroup, cgroup_limit);
	out->gap = spec->gap.bytes;
}

static uint64_t base_of(const limits_base *b, unsigned key)
{
	switch (key) {
	case LIMIT_VA:
		return b->va_ceiling;
	case LIMIT_RSS:
		return b->cgroup_limit ? b->cgroup_limit : b->ram;
	case LIMIT_CGROUP:
		return b->cgroup_limit;
	default:
		return 0; /* gap: bytes only */
	}
}

static const char *key_name(unsigned key)
{
	return key == LIMIT_VA       ? "va"
	       : key == LIMIT_RSS    ? "rss"
	       : key == LIMIT_CGROUP ? "cgroup"
	                             : "gap";
}

static size_t format_one(char *buf, size_t size, size_t used, const char *key, uint64_t v);

/* "va=3.50GiB" */
static const char *show(char *buf, size_t size, unsigned key, uint64_t v)
{
	buf[0] = 0;
	format_one(buf, size, 0, key_name(key), v);
	return buf;
}

/* A user's value that cannot hold on this machine, or 0. */
static int value_invalid(const limit_value *v, unsigned key, const char *flag, const limits_base *b,
                         mg_err *err)
{
	char a[48], c[48];
	if (!v->given)
		return 0;
	if (key == LIMIT_CGROUP && v->percent > 0 && !b->cgroup_limit)
		return mg_err_set(
		    err, MG_EINVAL,
		    "%s cgroup=%g%%: the memory cgroup has no limit to take a share of "
		    "(give a size)",
		    flag, v->percent);
	if (key == LIMIT_VA && v->percent == 0 && v->bytes > b->va_ceiling) {
		show(a, sizeof(a), key, v->bytes);
		show(c, sizeof(c), key, b->va_ceiling);
		return mg_err_set(err, MG_EINVAL, "%s %s is above the %s address space (%s%s)",
		                  flag, a, limits_arch_name(b->arch), c + 3,
		                  b->capped == LIMITS_CAP_GIVEN ? ", the --address-space cap"
		                  : b->capped == LIMITS_CAP_INHERITED
		                      ? ", the RLIMIT_AS the run inherited: ulimit -v"
		                      : "");
	}
	return 0;
}

static const limit_value *spec_slot(const limits_spec *s, unsigned key)
{
	return key == LIMIT_VA       ? &s->va
	       : key == LIMIT_RSS    ? &s->rss
	       : key == LIMIT_CGROUP ? &s->cgroup
	                             : &s->gap;
}

static uint64_t *limits_slot(limits *l, unsigned key)
{
	return key == LIMIT_VA       ? &l->va
	       : key == LIMIT_RSS    ? &l->rss
	       : key == LIMIT_CGROUP ? &l->cgroup
	                             : &l->gap;
}

int limits_settle(limits *soft, limits *hard, const limits_spec *user_soft,
                  const limits_spec *user_hard, const limits_base *b, mg_err *err)
{
	static const unsigned keys[] = {LIMIT_VA, LIMIT_RSS, LIMIT_CGROUP, LIMIT_GAP};
	limits_spec ds, dh;
	limits_default(&ds, &dh, b->arch);
	if (b->capped && !ds.va.percent) {
		ds.va.percent = 87.5;
		dh.va.percent = 93.75;
	}
	if (b->arch == MG_ARCH_X86 && b->cgroup_limit) {
		ds.rss.percent = 80.0;
		dh.rss.percent = 95.0;
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		unsigned key = keys[i];
		const limit_value *us = spec_slot(user_soft, key), *uh = spec_slot(user_hard, key);
		int rc;
		if (err && ((rc = value_invalid(us, key, "recycle-at", b, err)) < 0 ||
		            (rc = value_invalid(uh, key, "kill-at", b, err)) < 0))
			return rc;
		/* a value that cannot hold here (err NULL) leaves the default */
		int soft_given = us->given && value_invalid(us, key, "", b, NULL) == 0;
		int hard_given = uh->given && value_invalid(uh, key, "", b, NULL) == 0;
		uint64_t sv =
		    value_resolve(soft_given ? *us : *spec_slot(&ds, key), base_of(b, key));
		uint64_t hv =
		    value_resolve(hard_given ? *uh : *spec_slot(&dh, key), base_of(b, key));
		/* gap trips when the free block falls below: no order to keep */
		if (key != LIMIT_GAP && sv && hv && sv >= hv) {
			if (err && soft_given) {
				char a[48], c[48];
				show(a, sizeof(a), key, sv);
				show(c, sizeof(c), key, hv);
				return mg_err_set(
				    err, MG_EINVAL,
				    "recycle-at %s is at or above %s %s: the recycle must "
				    "come first (%s)",
				    a, hard_given ? "kill-at" : "the default kill-at", c,
				    hard_given ? "lower --recycle-at or raise --kill-at"
				               : "set --kill-at above it");
			}
			sv = hv - hv / 16;
		}
		*limits_slot(soft, key) = sv;
		*limits_slot(hard, key) = hv;
	}
	return 0;
}

unsigned limits_check(const limits *l, uint64_t va, uint64_t rss, uint64_t cgroup, uint64_t gap)
{
	unsigned hit = 0;
	if (l->va && va >= l->va)
		hit |= LIMIT_VA;
	if (l->rss && rss >= l->rss)
		hit |= LIMIT_RSS;
	if (l->cgroup && cgroup >= l->cgroup)
		hit |= LIMIT_CGROUP;
	if (l->gap && gap && gap < l->gap)
		hit |= LIMIT_GAP;
	return hit;
}

/* Appends ",key=SIZE" (no comma first) in the largest binary unit that is
 * at most the value, e.g. 3.50GiB; below 1 KiB in plain bytes ("512B"). */
static size_t format_one(char *buf, size_t size, size_t used, const char *key, uint64_t v)
{
	static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
	char num[32];
	if (v < KIB) {
		snprintf(num, sizeof(num), "%lluB", (unsigned long long)v);
	} else {
		int u = 0;
		double x = (double)v / KIB;
		while (u < 3 && x >= 1024.0) {
			x /= 1024.0;
			u++;
		}
		snprintf(num, sizeof(num), "%.2f%s", x, units[u]);
	}
	int n = snprintf(buf + used, used < size ? size - used : 0, "%s%s=%s", used ? "," : "", key,
	                 num);
	return used + (n > 0 ? (size_t)n : 0);
}

void limits_format(char *buf, size_t size, const limits *l)
{
	size_t used = 0;
	if (size == 0)
		return;
	buf[0] = '\0';
	if (l->va)
		used = format_one(buf, size, used, "va", l->va);
	if (l->rss)
		used = format_one(buf, size, used, "rss", l->rss);
	if (l->cgroup)
		used = format_one(buf, size, used, "cgroup", l->cgroup);
	if (l->gap)
		used = format_one(buf, size, used, "gap", l->gap);
	if (used == 0)
		snprintf(buf, size, "none");
}

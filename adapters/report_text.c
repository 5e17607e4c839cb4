/*
 * report_text.c - text the report's readers share: sizes, durations and
 * times formatted for people, and UTF-8 checking and cleaning. No JSON here.
 */
#include "report_int.h"

#include "atomic.h"
#include "mg_exit.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ISO_TIME_END 253402300800.0 /* 10000-01-01T00:00:00Z */

/* ---- formatting ------------------------------------------------------------ */

/* snprintf appended at buf+*len, *len kept at most size - 1 (a cut text). */
static void appendf(char *buf, size_t size, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void appendf(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	if (*len + 1 >= size)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf + *len, size - *len, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len = *len + (size_t)n < size ? *len + (size_t)n : size - 1;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash && slash[1] ? slash + 1 : path;
}

/* One frame: "block_new (storage.c:49)", "make_cache (:31)" without a
 * file, "libitems.so+0x4a10" without a function, "?" with nothing known. */
static void frame_text(char *buf, size_t size, size_t *len, const report_frame *f)
{
	if (f->function)
		appendf(buf, size, len, "%s", f->function);
	else if (f->module)
		appendf(buf, size, len, "%s+0x%llx", base_name(f->module),
		        (unsigned long long)f->offset);
	else
		appendf(buf, size, len, "?");
	if (!f->function)
		return;
	if (f->file && f->line)
		appendf(buf, size, len, " (%s:%u)", base_name(f->file), (unsigned)f->line);
	else if (f->file)
		appendf(buf, size, len, " (%s)", base_name(f->file));
	else if (f->line)
		appendf(buf, size, len, " (:%u)", (unsigned)f->line);
}

void report_format_site(char *buf, size_t size, const report_site *s, size_t max_frames)
{
	size_t len = 0;
	char one[16], all[16];
	const char *kind = s->kind && *s->kind ? s->kind : "allocation";
	buf[0] = '\0';
	report_format_size(all, sizeof(all), s->bytes);
	if (s->count > 1 && s->bytes % s->count == 0) {
		report_format_size(one, sizeof(one), s->bytes / s->count);
		appendf(buf, size, &len, "%llu \u00d7 %s %s", (unsigned long long)s->count, one,
		        kind);
	} else if (s->count > 1) {
		appendf(buf, size, &len, "%s in %llu \u00d7 %s", all, (unsigned long long)s->count,
		        kind);
	} else {
		appendf(buf, size, &len, "%s %s", all, kind);
	}
	if (s->items)
		appendf(buf, size, &len, " block");
	for (size_t i = 0; i < s->nframes && i < max_frames; i++) {
		appendf(buf, size, &len, "%s", i ? " \u2190 " : " at ");
		frame_text(buf, size, &len, &s->frames[i]);
	}
	if (!s->items)
		return;
	/* a held block: "8.00 MiB mmap block at block_new (storage.c:49),
	 * allocated in Cache/1, held by 3 items this test placed at item_new
	 * (cache.c:80)" */
	if (s->in)
		appendf(buf, size, &len, ", allocated in %s", s->in);
	else
		appendf(buf, size, &len, ", allocated by an earlier test");
	appendf(buf, size, &len, ", held by %llu item%s this test placed",
	        (unsigned long long)s->items, s->items == 1 ? "" : "s");
	for (size_t i = 0; i < s->nby && i < max_frames; i++) {
		appendf(buf, size, &len, "%s", i ? " \u2190 " : " at ");
		frame_text(buf, size, &len, &s->by[i]);
	}
}

void report_format_pins(char *buf, size_t size, const report_site *s, size_t max)
{
	size_t len = 0;
	buf[0] = '\0';
	if (!s->npins)
		return;
	appendf(buf, size, &len, "pinned by: ");
	for (size_t i = 0; i < s->npins && i < max; i++)
		appendf(buf, size, &len, "%s%s", i ? ", " : "", s->pins[i] ? s->pins[i] : "");
	if (s->npins > max)
		appendf(buf, size, &len, " and %zu more", s->npins - max);
}

/*
 * Binary units, 3 significant digits ("3.49 GiB", "212 MiB"), except KiB
 * which shows at most one decimal ("4.0 KiB"): nobody reads the hundredths
 * of a KiB. A value that would round to 1024 moves to the next unit.
 */
void report_format_size(char *buf, size_t size, uint64_t bytes)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	if (bytes < 1024) {
		snprintf(buf, size, "%u B", (unsigned)bytes);
		return;
	}
	double v = (double)bytes;
	int u = 0;
	while (v >= 1023.5 && u < 6) {
		v /= 1024.0;
		u++;
	}
	int dec;
	if (v < 9.995)
		dec = u == 1 ? 1 : 2;
	else if (v < 99.95)
		dec = 1;
	else
		dec = 0;
	if (u == 1 && v >= 9.95 && v < 99.95)
		dec = 1;
	snprintf(buf, size, "%.*f %s", dec, v, units[u]);
}

void report_format_size_signed(char *buf, size_t size, int64_t bytes)
{
	if (size == 0)
		return;
	size_t sign = bytes < 0 && size > 1;
	buf[0] = '-';
	/* 0 - (uint64_t)v is |v| for every v, INT64_MIN included. */
	report_format_size(buf + sign, size - sign,
	                   bytes < 0 ? 0 - (uint64_t)bytes : (uint64_t)bytes);
}

/* lround for 0 <= x < 2^52 (half away from zero; x less its whole part is
 * exact there), without libm: memguard starts with libc and no more. */
static long round_whole(double x)
{
	long r = (long)x;
	return x - (double)r >= 0.5 ? r + 1 : r;
}

/* "850ms", "12.3s", "4m12s", "1h02m"; negative or not finite shows "-". */
void report_format_duration(char *buf, size_t size, double seconds)
{
	if (!isfinite(seconds) || seconds < 0) {
		snprintf(buf, size, "-");
		return;
	}
	if (seconds < 0.9995) {
		snprintf(buf, size, "%dms", (int)round_whole(seconds * 1000.0));
		return;
	}
	if (seconds < 59.95) {
		snprintf(buf, size, "%.1fs", seconds);
		return;
	}
	/* round_whole is exact below 2^52 s: a longer span shows in whole
	 * hours (a year is 8766h, so these never fit the format anyway). */
	if (seconds >= 1e12) {
		snprintf(buf, size, "%.0fh", seconds / 3600);
		return;
	}
	long s = round_whole(seconds);
	if (s < 3600) {
		snprintf(buf, size, "%ldm%02lds", s / 60, s % 60);
		return;
	}
	long m = (s + 30) / 60;
	snprintf(buf, size, "%ldh%02ldm", m / 60, m % 60);
}

/* ---- UTF-8 ----------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s (strict: no overlongs, no
 * surrogates, nothing above U+10FFFF), or 0 if it is not valid. */
size_t report_utf8_valid_len(const unsigned char *s, size_t avail)
{
	unsigned c = s[0];
	size_t n;
	unsigned cp;
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF) {
		n = 2;
		cp = c & 0x1F;
	} else if (c >= 0xE0 && c <= 0xEF) {
		n = 3;
		cp = c & 0x0F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (avail < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF ||
	    (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return n;
}

char *report_utf8_sanitize(const char *s, size_t *len_out)
{
	return s ? report_utf8_sanitize_n(s, strlen(s), len_out) : NULL;
}

char *report_utf8_sanitize_n(const char *s, size_t len, size_t *len_out)
{
	/* worst case: every byte becomes the 3-byte U+FFFD */
	char *d = mg_xrealloc(NULL, len * 3 + 1);
	size_t o = 0;
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < len;) {
		size_t n = report_utf8_valid_len(u + i, len - i);
		if (n == 0) {
			memcpy(d + o, "\xEF\xBF\xBD", 3);
			o += 3;
			i++;
		} else {
			memcpy(d + o, u + i, n);
			o += n;
			i += n;
		}
	}
	d[o] = '\0';
	if (len_out)
		*len_out = o;
	return d;
}

int report_format_time(char *buf, size_t size, double t, const char *fmt)
{
	if (size)
		buf[0] = 0;
	/* not finite, negative, or so large that casting it to time_t would be
	 * undefined: a report read back may hold any number */
	if (!isfinite(t) || t < 0 || t >= ISO_TIME_END)
		return -1;
	time_t whole = (time_t)t; /* t >= 0: its floor */
	struct tm tm;
	if (!gmtime_r(&whole, &tm) || strftime(buf, size, fmt, &tm) == 0) {
		if (size)
			buf[0] = 0;
		return -1;
	}
	return 0;
}

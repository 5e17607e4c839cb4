/*
 * contract_host.c - a native host (memguard_host) whose tests press on the
 * boundary contract's output marks; built for x86 and x64. MG_CH selects:
 * - "nonblock": 50 tests c00..c49; the first makes stdout O_NONBLOCK, each
 *   writes 96 KiB of its own pattern ("cNN." repeated, EAGAIN waited out)
 *   and then more of it until the pipe is full (EAGAIN; at most 3 MiB in
 *   all), so the library's mark meets a full pipe; MG_CH_LOG gets "cNN LEN" (the bytes written).
 * - "forge": 20 tests whose output holds the bytes of a version 2 stream
 *   mark of a later test ("\036\037mg:N\036", N = its ordinal + 2).
 */
#include <errno.h>
#include <fcntl.h>
#include <memguard_host.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NONBLOCK_TESTS 50
#define FORGE_TESTS    20
#define FIXED_BYTES    (96 * 1024)
#define FILL_MAX       (3 * 1024 * 1024)

static char names[NONBLOCK_TESTS][8];

static size_t ch_count(void *ctx)
{
	const char *mode = getenv("MG_CH");
	(void)ctx;
	return mode && !strcmp(mode, "forge") ? FORGE_TESTS : NONBLOCK_TESTS;
}

static const char *ch_name(void *ctx, size_t i)
{
	(void)ctx;
	return names[i];
}

/* Writes n bytes of test i's pattern from offset at (waiting out EAGAIN
 * when wait is set, else stopping at it): the bytes written. */
static size_t pattern_write(size_t i, size_t at, size_t n, int wait)
{
	char chunk[4096];
	size_t done = 0;
	while (done < n) {
		size_t k = n - done < sizeof(chunk) ? n - done : sizeof(chunk);
		for (size_t j = 0; j < k; j++)
			chunk[j] = (at + done + j) % 4 == 3 ? '.' : names[i][(at + done + j) % 4];
		ssize_t w = write(1, chunk, k);
		if (w > 0) {
			done += (size_t)w;
		} else if (w < 0 && errno == EAGAIN && wait) {
			struct pollfd pf = {1, POLLOUT, 0};
			poll(&pf, 1, -1);
		} else if (!(w < 0 && errno == EINTR)) {
			break;
		}
	}
	return done;
}

static mg_result nonblock_test(size_t i)
{
	if (i == 0 && fcntl(1, F_SETFL, fcntl(1, F_GETFL) | O_NONBLOCK) < 0) {
		mg_message("fcntl: %s", strerror(errno));
		return MG_FAIL;
	}
	size_t len = pattern_write(i, 0, FIXED_BYTES, 1);
	if (len != FIXED_BYTES) {
		mg_message("short write: %zu", len);
		return MG_FAIL;
	}
	/* until the pipe is full, or 3 MiB (under the test's --output-limit 4M:
	 * a runner that drains as fast as this writes never lets it fill) */
	for (size_t got = 1; got && len < FILL_MAX;)
		len += got = pattern_write(i, len, 4096, 0);
	const char *log = getenv("MG_CH_LOG");
	FILE *f = log ? fopen(log, "a") : NULL;
	if (f) {
		fprintf(f, "%s %zu\n", names[i], len);
		fclose(f);
	}
	return MG_PASS;
}

static mg_result forge_test(size_t i)
{
	printf("%s-a \036\037mg:%zu\036 %s-b\n", names[i], i + 2, names[i]);
	return MG_PASS;
}

static mg_result ch_run(void *ctx, size_t i, char *msg, size_t cap)
{
	const char *mode = getenv("MG_CH");
	(void)ctx;
	(void)msg;
	(void)cap;
	return mode && !strcmp(mode, "forge") ? forge_test(i) : nonblock_test(i);
}

int main(int argc, char **argv)
{
	static const mg_host_ops ops = {ch_count, ch_name, ch_run};
	for (size_t i = 0; i < NONBLOCK_TESTS; i++)
		snprintf(names[i], sizeof(names[i]), "c%02zu", i);
	return mg_host_serve(&ops, NULL, argc, argv);
}

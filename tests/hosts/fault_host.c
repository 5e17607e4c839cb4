/*
 * fault_host.c - a host whose tests misbehave on request, for the runner's
 * fault handling. Tests fault/t000..; MG_FAULT_TESTS sets the count (40);
 * MG_FAULT="KIND@INDEX,..." plants faults (KIND@* in every test, KIND@%N in every
 * Nth); MG_FAULT_START_MS delays the start; MG_FAULT_FRAG_KEEP_MB (8) is what frag
 * keeps of its 14 MiB, MG_FAULT_TRANSIENT_MB (600) what transient maps for 20 ms.
 * Plain C: built for x86 and x64. Faults that depend on order (for bisect): poison@K marks the
 * process; crashpoisoned@M crashes (SIGSEGV) at test M only when at least MG_FAULT_POISON_NEED (1)
 * poison tests ran earlier in the same process. family@K leaves a child in the host's group
 * and a setsid double-fork escapee behind, asleep for ten minutes. stop@K stops itself
 * (SIGSTOP: T state) and stays stopped. MG_FAULT_NAME_PAD=N: each name gets "-"
 * and N x's (long reply lines). MG_FAULT_NO_RING=1: it declines the
 * runner's reply ring (as a host library before it did), so its replies
 * and any garbage go down the reply pipe in one order.
 */
#include "memguard_host.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum {
	F_SEGV = 1 << 0,
	F_ABORT = 1 << 1,
	F_HANG = 1 << 2,
	F_GARBAGE = 1 << 3,
	F_RESERVE = 1 << 4,
	F_LEAK = 1 << 5,
	F_FAIL = 1 << 6,
	F_EXIT = 1 << 7,
	F_SLOW = 1 << 8,
	F_PRINT = 1 << 9,
	F_SKIP = 1 << 10,
	F_LEAKRSS = 1 << 11,
	F_POISON = 1 << 12,
	F_CRASHPOISONED = 1 << 13,
	F_FORKCRASH = 1 << 14,
	F_SPIKE = 1 << 15,
	F_BIGLEAK = 1 << 16,
	F_FRAG = 1 << 17,
	F_OOMCRASH = 1 << 18,
	F_NAME = 1 << 19,
	F_NAMENONL = 1 << 20,
	F_TRANSIENT = 1 << 21,
	F_LEAK8 = 1 << 22,
	F_FAMILY = 1 << 23,
	F_STOP = 1 << 24,
	F_NUL = 1 << 25,  /* writes "a\0b\n": output is bytes */
	F_LOUD = 1 << 26, /* writes "line 0\n" .. "line 2999\n", one write each */
};

static const struct {
	const char *name;
	unsigned bit;
} kinds[] = {
    {"segv", F_SEGV},
    {"abort", F_ABORT},
    {"hang", F_HANG},
    {"garbage", F_GARBAGE},
    {"reserve", F_RESERVE},
    {"leak", F_LEAK},
    {"fail", F_FAIL},
    {"exit", F_EXIT},
    {"slow", F_SLOW},
    {"print", F_PRINT},
    {"skip", F_SKIP},
    {"leakrss", F_LEAKRSS},
    {"poison", F_POISON},
    {"crashpoisoned", F_CRASHPOISONED},
    {"forkcrash", F_FORKCRASH},
    {"spike", F_SPIKE},
    {"bigleak", F_BIGLEAK},
    {"frag", F_FRAG},
    {"oomcrash", F_OOMCRASH},
    {"name", F_NAME},
    {"namenonl", F_NAMENONL},
    {"transient", F_TRANSIENT},
    {"leak8", F_LEAK8},
    {"family", F_FAMILY},
    {"nul", F_NUL},
    {"stop", F_STOP},
    {"loud", F_LOUD},
};

#define NAME_LEN 32

typedef struct faults {
	size_t count;
	char (*names)[NAME_LEN];
	char *long_names; /* MG_FAULT_NAME_PAD: the names, each padded */
	size_t long_len;
	unsigned *plan;
	unsigned poisoned;    /* poison tests run so far in this process */
	unsigned poison_need; /* crashpoisoned crashes from this many on */
	size_t frag_keep;     /* MiB of each 14 MiB frag mapping kept */
	size_t transient_mb;  /* what transient maps for 20 ms */
} faults;

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0)
		;
}

/*
 * Reserves 3 GiB of address space the way a 32-bit program has to: in
 * 256 MiB pieces (its space is split around the executable and the
 * libraries, so no single 3 GiB region exists). Returns how many pieces were
 * mapped, stopping at the first failure.
 */
enum { RESERVE_CHUNKS = 12 };
#define RESERVE_CHUNK ((size_t)256 << 20)

static size_t reserve(void **chunks)
{
	size_t n = 0;
	for (; n < RESERVE_CHUNKS; n++) {
		chunks[n] = mmap(NULL, RESERVE_CHUNK, PROT_NONE,
		                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (chunks[n] == MAP_FAILED)
			break;
	}
	return n;
}

static void unreserve(void **chunks, size_t n)
{
	for (size_t i = 0; i < n; i++)
		munmap(chunks[i], RESERVE_CHUNK);
}

static size_t ops_count(void *ctx)
{
	return ((faults *)ctx)->count;
}

static const char *ops_name(void *ctx, size_t i)
{
	faults *f = ctx;
	return f->long_names ? f->long_names + i * f->long_len : f->names[i];
}

/* MG_FAULT_HANG_MARK=DIR: DIR/hang.INDEX says a test is about to hang
 * (INDEX "start": a slow start is about to sleep), so a test can signal the
 * run once it is there. */
static void hang_mark(const char *dir, size_t i)
{
	char path[512];
	if (i == (size_t)-1)
		snprintf(path, sizeof(path), "%s/hang.start", dir);
	else
		snprintf(path, sizeof(path), "%s/hang.%zu", dir, i);
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
}

static mg_result ops_run(void *ctx, size_t i, char *msg, size_t cap)
{
	faults *f = ctx;
	unsigned plan = f->plan[i];
	mg_result r = MG_PASS;
	(void)msg;
	(void)cap;
	if (plan & F_PRINT) {
		for (int k = 1; k <= 3; k++)
			printf("%s: stdout line %d\n", f->names[i], k);
		fprintf(stderr, "%s: stderr line\n", f->names[i]);
	}
	if (plan & F_NAME) /* its own name, a line */
		printf("%s\n", f->names[i]);
	if (plan & F_NAMENONL) /* its own name, no newline after it */
		printf("%s", f->names[i]);
	if (plan & F_NUL) /* a NUL byte in the middle of its output */
		fwrite("a\0b\n", 1, 4, stdout);
	if (plan & F_LOUD) {
		fflush(stdout);
		for (int k = 0; k < 3000; k++) {
			char line[16];
			int n = snprintf(line, sizeof(line), "line %d\n", k);
			if (write(1, line, (size_t)n) != n)
				break;
		}
	}
	if (plan & F_GARBAGE) {
		static const char garbage[] = "\x01\x02 not a protocol line\n";
		const char *fd_env = getenv("MEMGUARD_REPLY_FD");
		int fd = fd_env != NULL ? atoi(fd_env) : 4;
		if (write(fd, garbage, sizeof(garbage) - 1) < 0)
			perror("fault_host: garbage");
	}
	if (plan & F_SLOW)
		sleep_ms(200);
	if (plan & F_SPIKE) {
		/* over 2 GiB reserved and released at once: no sample sees it,
		 * VmPeak does. One mapping, the largest this space takes (a 32-bit
		 * one has no 3 GiB region), so it lives only between two calls. */
		static const size_t sizes[] = {(size_t)3 << 30, (size_t)5 << 29, (size_t)9 << 28,
		                               (size_t)17 << 27};
		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			void *p = mmap(NULL, sizes[k], PROT_NONE,
			               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
			if (p != MAP_FAILED) {
				munmap(p, sizes[k]);
				break;
			}
		}
		sleep_ms(2);
	}
	if (plan & F_FAMILY) {
		/* a host family: a child in our process group and a setsid
		 * double-fork escapee, both asleep for ten minutes with every fd
		 * closed (the test goes on and passes) */
		pid_t kid = fork();
		if (kid == 0) {
			for (int fd = 0; fd < 64; fd++)
				close(fd);
			sleep_ms(600000);
			_exit(0);
		}
		pid_t mid = fork();
		if (mid == 0) {
			setsid();
			if (fork() == 0) {
				for (int fd = 0; fd < 64; fd++)
					close(fd);
				sleep_ms(600000);
			}
			_exit(0);
		}
		if (mid > 0)
			waitpid(mid, NULL, 0);
	}
	if (plan & F_FORKCRASH) {
		/* a child that keeps every inherited fd (the reply pipe too) for
		 * five minutes, then the host crashes: no EOF will come */
		pid_t kid = fork();
		if (kid == 0) {
			sleep_ms(300000);
			_exit(0);
		}
		raise(SIGSEGV);
	}
	if (plan & F_LEAK) {
		if (mmap(NULL, 64u << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		         0) == MAP_FAILED) {
			mg_message("leak: mmap of 64 MiB failed");
			r = MG_FAIL;
		}
	}
	if (plan & F_LEAKRSS) {
		char *p = mmap(NULL, 64u << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		               -1, 0);
		if (p == MAP_FAILED) {
			mg_message("leakrss: mmap of 64 MiB failed");
			r = MG_FAIL;
		} else {
			memset(p, 1, 64u << 20);
		}
	}
	if (plan & F_RESERVE) {
		void *chunks[RESERVE_CHUNKS];
		size_t n = reserve(chunks);
		if (n < RESERVE_CHUNKS * 3 / 4) {
			mg_message("reserve: only %zu MiB of 3 GiB could be mapped", n * 256);
			r = MG_FAIL;
		} else {
			sleep_ms(2000);
		}
		unreserve(chunks, n);
	}
	if (plan & F_BIGLEAK) {
		/* 500 MiB kept, in 64 MiB pieces as a 32-bit program must map it */
		for (int k = 0; k < 8 && r == MG_PASS; k++)
			if (mmap(NULL, k < 7 ? 64u << 20 : 52u << 20, PROT_NONE,
			         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
			         0) == MAP_FAILED) {
				mg_message("bigleak: mmap of 64 MiB failed");
				r = MG_FAIL;
			}
	}
	if (plan & F_FRAG) {
		/* 14 MiB mapped, its first frag_keep MiB kept and the rest given
		 * back: mappings go top-down, so the hole sits between this piece
		 * and the last one and is too small for the next 14 MiB; the space
		 * fragments faster than it fills. A failed mmap is dereferenced, as
		 * code that does not check would. */
		char *p = mmap(NULL, 14u << 20, PROT_READ | PROT_WRITE,
		               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED)
			raise(SIGSEGV);
		munmap(p + (f->frag_keep << 20), (14 - f->frag_keep) << 20);
		p[0] = 1;
	}
	if (plan & F_OOMCRASH) {
		/* 64 MiB pieces until the space is full, then the crash of code
		 * that does not check: faster than any sample */
		while (mmap(NULL, 64u << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		            -1, 0) != MAP_FAILED)
			;
		raise(SIGSEGV);
	}
	if (plan & F_LEAK8) /* 8 MiB kept, untouched */
		if (mmap(NULL, 8u << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
		         0) == MAP_FAILED) {
			mg_message("leak8: mmap of 8 MiB failed");
			r = MG_FAIL;
		}
	if (plan & F_TRANSIENT) {
		/* transient_mb for 20 ms, in 50 MiB pieces, then given back */
		void *p[64];
		size_t want = f->transient_mb / 50, got = 0;
		while (got < want && got < 64 &&
		       (p[got] = mmap(NULL, 50u << 20, PROT_NONE,
		                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)) !=
		           MAP_FAILED)
			got++;
		if (got < want) {
			mg_message("transient: mmap of %zu MiB failed after %zu MiB", want * 50,
			           got * 50);
			r = MG_FAIL;
		}
		sleep_ms(20);
		while (got > 0)
			munmap(p[--got], 50u << 20);
	}
	if (plan & F_POISON)
		f->poisoned++;
	if ((plan & F_SEGV) || ((plan & F_CRASHPOISONED) && f->poisoned >= f->poison_need))
		raise(SIGSEGV);
	if (plan & F_ABORT)
		abort();
	if (plan & F_EXIT)
		_exit(7);
	if (plan & F_HANG) {
		const char *mark = getenv("MG_FAULT_HANG_MARK");
		if (mark)
			hang_mark(mark, i);
		for (;;)
			pause();
	}
	if (plan & F_STOP)
		raise(SIGSTOP); /* until a SIGCONT that never comes */
	if (plan & F_FAIL) {
		mg_message("planted failure");
		r = MG_FAIL;
	}
	if ((plan & F_SKIP) && r == MG_PASS) {
		mg_message("planted skip");
		r = MG_SKIP;
	}
	return r;
}

/* Parses MG_FAULT into f->plan; -1 (with a message) on a bad entry. */
static int plan_faults(faults *f, const char *spec)
{
	char buf[4096];
	if (spec == NULL || *spec == '\0')
		return 0;
	if (strlen(spec) >= sizeof(buf)) {
		fprintf(stderr, "fault_host: MG_FAULT too long\n");
		return -1;
	}
	strcpy(buf, spec);
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		char *at = strchr(tok, '@');
		char *end = NULL;
		int every = at != NULL && strcmp(at + 1, "*") == 0;
		unsigned long step = 0; /* KIND@%N: every Nth test (N-1, 2N-1, ...) */
		if (at != NULL && at[1] == '%') {
			step = strtoul(at + 2, &end, 10);
			every = step > 0 && end != at + 2 && *end == '\0';
		}
		unsigned long idx = at != NULL && !every ? strtoul(at + 1, &end, 10) : 0;
		if (at == NULL || (!every && (end == at + 1 || *end != '\0' || idx >= f->count))) {
			fprintf(stderr,
			        "fault_host: bad MG_FAULT entry '%s' (KIND@INDEX, %zu tests)\n",
			        tok, f->count);
			return -1;
		}
		*at = '\0';
		size_t k, n = sizeof(kinds) / sizeof(kinds[0]);
		for (k = 0; k < n && strcmp(kinds[k].name, tok) != 0; k++)
			;
		if (k == n) {
			fprintf(stderr, "fault_host: unknown fault kind '%s'\n", tok);
			return -1;
		}
		for (size_t i = every ? 0 : idx; i < (every ? f->count : idx + 1); i++)
			if (!step || i % step == step - 1)
				f->plan[i] |= kinds[k].bit;
	}
	return 0;
}

int main(int argc, char **argv)
{
	faults f = {40, NULL, NULL, 0, NULL, 0, 1, 8, 600};
	const char *tmb = getenv("MG_FAULT_TRANSIENT_MB");
	if (tmb != NULL && *tmb != '\0')
		f.transient_mb = (size_t)strtoul(tmb, NULL, 10);
	const char *keep = getenv("MG_FAULT_FRAG_KEEP_MB");
	if (keep != NULL && *keep != '\0')
		f.frag_keep = (size_t)strtoul(keep, NULL, 10);
	if (f.frag_keep < 1 || f.frag_keep > 13)
		f.frag_keep = 8;
	const char *delay = getenv("MG_FAULT_START_MS"); /* a slow start, before the greeting */
	if (delay != NULL && *delay != '\0') {
		if (getenv("MG_FAULT_HANG_MARK"))
			hang_mark(getenv("MG_FAULT_HANG_MARK"), (size_t)-1);
		sleep_ms(strtoul(delay, NULL, 10));
	}
	const char *n = getenv("MG_FAULT_TESTS");
	const char *need = getenv("MG_FAULT_POISON_NEED");
	if (need != NULL && *need != '\0')
		f.poison_need = (unsigned)strtoul(need, NULL, 10);
	if (n != NULL && *n != '\0')
		f.count = (size_t)strtoul(n, NULL, 10);
	f.names = calloc(f.count ? f.count : 1, sizeof(*f.names));
	f.plan = calloc(f.count ? f.count : 1, sizeof(*f.plan));
	if (f.names == NULL || f.plan == NULL)
		return 3;
	for (size_t i = 0; i < f.count; i++)
		snprintf(f.names[i], NAME_LEN, "fault/t%03zu", i);
	if (plan_faults(&f, getenv("MG_FAULT")) < 0)
		return 2;
	const char *pad = getenv("MG_FAULT_NAME_PAD");
	size_t npad = pad ? (size_t)strtoul(pad, NULL, 10) : 0;
	if (npad && npad < 60000) {
		f.long_len = NAME_LEN + 1 + npad + 1;
		f.long_names = malloc(f.long_len * (f.count ? f.count : 1));
		if (f.long_names == NULL)
			return 3;
		for (size_t i = 0; i < f.count; i++) {
			char *p = f.long_names + i * f.long_len;
			size_t k = (size_t)snprintf(p, NAME_LEN + 1, "%s-", f.names[i]);
			memset(p + k, 'x', npad);
			p[k + npad] = '\0';
		}
	}
	const char *no_ring = getenv("MG_FAULT_NO_RING");
	if (no_ring && strcmp(no_ring, "1") == 0)
		unsetenv("MEMGUARD_RING_FD");
	static const mg_host_ops ops = {ops_count, ops_name, ops_run};
	int status = mg_host_serve(&ops, &f, argc, argv);
	free(f.names);
	free(f.long_names);
	free(f.plan);
	return status;
}

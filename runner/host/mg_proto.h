/*
 * mg_proto.h - the protocol (v4, compatible with v1 to v3) between the runner and a host: line
 * grammar, escaping, the parser and the writer of every line, side by side, and the stream marks,
 * for both sides (the host library, the probe, the driver shims, the runner). libc only (built for
 * -m32 too). The grammar is written down in PROTOCOL.md; keep the two in step. Nothing here
 * allocates: the parser unescapes in place and points into the line; the writers are
 * async-signal-safe.
 */
#ifndef MG_PROTO_H
#define MG_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define MG_PROTO_VERSION 4
/* Longest line either side may send, newline included. Longer is an error. */
#define MG_PROTO_LINE_MAX 65536
/* The extra entry (6c) a shim names a program's exit no test explains */
#define MG_EXTRA_PROGRAM_EXIT "<program exit>"
/* ... and a program's death before its first test: held by the runner
 * until the host ends, then judged there (6c) */
#define MG_EXTRA_PROGRAM_START "<program start>"
/* The descriptors a host finds its pipes on (also named in the env). */
#define MG_PROTO_CMD_FD   3
#define MG_PROTO_REPLY_FD 4

/* Environment the runner sets for a host. */
#define MG_ENV_HOST        "MEMGUARD_HOST"        /* the runner's protocol version, "4" */
#define MG_ENV_CMD_FD      "MEMGUARD_CMD_FD"      /* "3" */
#define MG_ENV_REPLY_FD    "MEMGUARD_REPLY_FD"    /* "4" */
#define MG_ENV_RECYCLE_VA  "MEMGUARD_RECYCLE_VA"  /* soft VA limit, bytes; absent: none */
#define MG_ENV_RECYCLE_RSS "MEMGUARD_RECYCLE_RSS" /* soft RSS limit, bytes; absent: none */
#define MG_ENV_RECYCLE_GAP "MEMGUARD_RECYCLE_GAP" /* v2: the free block that must fit, bytes */
#define MG_ENV_KILL_VA     "MEMGUARD_KILL_VA"     /* v2: hard VA limit, bytes (admission) */
#define MG_ENV_KILL_RSS    "MEMGUARD_KILL_RSS"    /* v2: hard RSS limit (its share), bytes */
#define MG_ENV_MARK        "MEMGUARD_MARK"        /* v3: the run's mark secret */
#define MG_ENV_RING_FD     "MEMGUARD_RING_FD"     /* v3, optional: the reply ring's fd, "5" */
#define MG_ENV_SITES       "MEMGUARD_SITES" /* allocation sites: 1 sampled, 2 all; absent: off */
#define MG_ENV_SITES_MIN   "MEMGUARD_SITES_MIN" /* a test leaving less sends no sites, bytes */

/*
 * v2: the boundary mark a host writes to its stdout and to its stderr after
 * each test's output (flushed first): MG_MARK_HEAD, in v3 the run's secret
 * (MG_ENV_MARK: MG_MARK_SECRET_LEN lowercase hex digits the runner chose, so
 * no test output can hold a mark), the test's ordinal in this host (0 for
 * the first run line it answered), MG_MARK_TAIL. Every byte before mark N
 * on a stream is test N's; the runner strips the marks.
 */
#define MG_MARK_HEAD       "\036\037mg:"
#define MG_MARK_TAIL       '\036'
#define MG_MARK_SECRET_LEN 16
/* The longest mark: head, secret, 20 digits, tail. */
#define MG_MARK_MAX (sizeof(MG_MARK_HEAD) - 1 + MG_MARK_SECRET_LEN + 20 + 1)

/* Why a v2 host recycles (the word after "recycle VA RSS"). */
typedef enum mg_why {
	MG_WHY_NONE,   /* v1: not said */
	MG_WHY_VA,     /* va: MEMGUARD_RECYCLE_VA reached */
	MG_WHY_RSS,    /* rss: MEMGUARD_RECYCLE_RSS reached */
	MG_WHY_GROWTH, /* growth BYTES: VA + the expected growth of a test reaches the kill limit */
	MG_WHY_GAP,    /* gap BYTES: no free block of BYTES is left */
	MG_WHY_PEAK,   /* peak BYTES: the next test's expected rise (the runner's expect line)
	                  would reach the kill limit */
	MG_WHY_RSSGROWTH, /* rssgrowth BYTES: RSS + the expected RSS growth reaches
	                     MEMGUARD_KILL_RSS */
	MG_WHY_RISE,      /* rise BYTES: the largest rise this host saw of its own tests would
	                     reach the kill limit (no expect line said as much) */
} mg_why;

typedef enum mg_msg_kind {
	/* host -> runner */
	MG_MSG_HELLO,   /* hello VERSION ARCH PID VA RSS */
	MG_MSG_TEST,    /* test NAME            (one per test, answer to list) */
	MG_MSG_END,     /* end COUNT            (closes a list) */
	MG_MSG_START,   /* start NAME */
	MG_MSG_PASS,    /* pass USEC VA RSS */
	MG_MSG_FAIL,    /* fail USEC VA RSS MESSAGE */
	MG_MSG_SKIP,    /* skip USEC VA RSS MESSAGE */
	MG_MSG_RECYCLE, /* recycle VA RSS [WHY [BYTES]] (soft limit crossed: no more tests) */
	MG_MSG_BYE,     /* bye PEAKVA PEAKRSS   (last line before a clean exit) */
	MG_MSG_OUT,     /* out TEXT             (output of the started test; optional) */
	MG_MSG_DYING,   /* dying SIG VA RSS PEAKVA (v2: written at a fatal signal, then it dies) */
	MG_MSG_PEAK,    /* peak VA  (v2: VmPeak rose to VA during the started test, >= 1 ms) */
	MG_MSG_TIMEOUT, /* timeout USEC VA RSS MESSAGE (the host ended the test at a time
	                 * limit it keeps itself: the ctest driver's TIMEOUT) */
	/* runner -> host */
	MG_CMD_LIST,   /* list */
	MG_CMD_RUN,    /* run NAME */
	MG_CMD_QUIT,   /* quit */
	MG_CMD_EXPECT, /* expect RISE GROWTH [known] (v2: what history says of the next run
	                * line; v4: "known", history knows its own rise: it alone counts) */
	MG_CMD_FED,    /* fed (to a gtest or catch2 shim only: the run lines before it are
	                * all it is given until results go back) */
	/* host -> runner, from a driver shim only (PROTOCOL.md 6c) */
	MG_MSG_ERROR, /* error USEC VA RSS MESSAGE (a driver shim only: the head is an error) */
	MG_MSG_EXTRA, /* extra STATE NAMELEN TEXT (a driver shim only: an entry outside the
	               * listed tests, e.g. a failed TearDownTestSuite; 6c) */
	/* host -> runner, before the started test's result, only when the runner
	 * set MEMGUARD_SITES (PROTOCOL.md 6d) */
	MG_MSG_MODULE, /* module ID BUILDID PATH (a module the next site lines name) */
	MG_MSG_SITE,   /* site BYTES COUNT KIND FRAME... (allocations the test left, one stack) */
	MG_MSG_NOMEM,  /* nomem COUNT (allocations that failed during the test) */
	MG_MSG_PIN,  /* pin TEXT (a live item that pins the block of the site or held before it) */
	MG_MSG_HELD, /* held BYTES ITEMS KIND FRAME... (a block an earlier test allocated that
	              * ITEMS live items the test placed in it keep mapped) */
	MG_MSG_HELDIN, /* heldin NAME (the test that allocated the block of the held before it) */
	MG_MSG_HELDBY, /* heldby FRAME... (where the first of those items was placed) */
	/* host -> runner, in a listing after a test line (a driver shim only:
	 * CTest's DEPENDS and fixtures) */
	MG_MSG_AFTER, /* after INDEX (that test runs after the INDEX-th listed one ended) */
	MG_MSG_NEEDS, /* needs INDEX FIXTURE (... and not at all when that one, the setup of
	               * FIXTURE, failed) */
	/* host -> runner, between a result and the next start (a driver shim
	 * only: the ctest shim's locks) */
	MG_MSG_WAIT, /* wait TEXT (the next test waits for TEXT, a lock another lane holds) */
	/* host -> runner, before a program's first start (a driver shim only:
	 * the gtest shim's probed program) */
	MG_MSG_BASE, /* base VA RSS (that program's memory as its first test starts) */
} mg_msg_kind;

/* What a site allocated with (the word of `site`). */
typedef enum mg_site_kind {
	MG_SITE_MMAP,   /* mmap: mmap or mremap */
	MG_SITE_MALLOC, /* malloc: the malloc family */
	MG_SITE_NEW,    /* new: C++ operator new */
} mg_site_kind;

/* One frame of a site: a return address as a module (an ID of this test's
 * `module` lines) and the offset from that module's load bias (its ELF
 * address). On the wire "ID+HEX". */
typedef struct mg_frame {
	uint32_t module;
	uint64_t offset;
} mg_frame;

#define MG_PROTO_BUILD_ID_MAX 64 /* hex digits of a build-id on the wire */
#define MG_PROTO_PINS_MAX     16 /* pin lines after one site or held line (6d) */

/* A shim's word on its listing, in its end line (driver shims only), bits.
 * Its low two: the program's listing output was the list exactly, one name
 * a line, each once (catch2 v3: its shards are the list's chunks), or it
 * was not. The next three (MG_LIST_NOPROBE): why the probe cannot enter the
 * program (gtest, catch2; a driver_noprobe code, 0: it can), so every
 * test's figures are read from outside it and its boundaries are
 * approximate. */
#define MG_LIST_CLEAN         1u
#define MG_LIST_UNCLEAN       2u
#define MG_LIST_HOW           3u /* the bits of CLEAN and UNCLEAN */
#define MG_LIST_NOPROBE_SHIFT 2
#define MG_LIST_NOPROBE(word) ((unsigned)((word) >> MG_LIST_NOPROBE_SHIFT) & 7u)

/* Mirrored field for field by memguard_pytest.py's _Msg (ctypes): change both. */
typedef struct mg_msg {
	mg_msg_kind kind;
	unsigned version;  /* hello */
	char arch[8];      /* hello: "x86" or "x64" */
	long pid;          /* hello */
	uint64_t usec;     /* pass/fail/skip: the test's duration */
	uint64_t va, rss;  /* hello, pass/fail/skip (after the test), recycle; bye: peaks;
	                    * peak: va; expect: va = the rise above the test's start */
	uint64_t count;    /* end; expect: 1 when "known" (v4); after, needs: the index */
	mg_why why;        /* recycle (v2) */
	uint64_t bytes;    /* recycle growth/gap/peak: the figure; dying: VmPeak; expect: growth;
	                    * end: a shim's MG_LIST_* flags (0: none, not written) */
	int sig;           /* dying: the signal */
	mg_msg_kind state; /* extra: MG_MSG_FAIL, MG_MSG_ERROR or MG_MSG_SKIP */
	size_t name_len;  /* extra: the name is text's first name_len bytes, the message the rest */
	const char *text; /* test/start/run: the name; fail/skip: the message (may be empty);
	                   * module: the path; site (parsed): the frames' text
	                   * (mg_proto_frame_next); needs: the fixture */
	size_t text_len;  /* text may hold any byte but NUL... and NUL is excluded */
	/* module: count is the ID, build_id its hex digits (build_id_len 0: none) */
	const char *build_id;
	size_t build_id_len;
	/* site, held: bytes, count, site_kind; frames (nframes) to write, or
	 * (frames NULL) text, the frames' text as parsed (heldby: frames only) */
	mg_site_kind site_kind;
	const mg_frame *frames;
	size_t nframes;
} mg_msg;

/*
 * The next frame of a parsed site's frames text (*p from m->text, end
 * m->text + m->text_len): 1 and *out, 0 at the end. The parser checked
 * the text, so this never fails on a parsed line.
 */
int mg_proto_frame_next(const char **p, const char *end, mg_frame *out);

/* The word of a site kind ("mmap", "malloc", "new"). */
const char *mg_proto_site_word(mg_site_kind kind);

/*
 * Parses one line (without its newline) in place: escapes in the name or
 * message are undone inside line, and out->text points into it. Returns 0,
 * or -1 for anything not in the grammar (unknown word, missing field,
 * number out of range, bad escape, NUL byte). Never allocates.
 */
int mg_proto_parse(mg_msg *out, char *line, size_t len);

/*
 * Writes m as its line, newline included, at dst: the parser's inverse
 * (mg_proto_parse of the line without its newline gives m back). Returns
 * the line's length, which may be larger than cap (then dst holds a
 * truncated prefix: callers size dst from the return value, or bound the
 * text). The text of test, start, out, run, fail and skip is escaped; a
 * fail or skip without text has no message field; a recycle with MG_WHY_NONE
 * has no why (v1). 0 for a kind with no line. Async-signal-safe: no stdio,
 * no locale, no allocation (the host library writes `dying` with it in a
 * fatal-signal handler).
 */
size_t mg_proto_put(char *dst, size_t cap, const mg_msg *m);

/* The word of why on the wire ("va", "growth", ...), NULL for MG_WHY_NONE. */
const char *mg_proto_why_word(mg_why why);

/*
 * Parses "WHY [BYTES]" (len bytes, the words of recycle after VA RSS): 0 and
 * *why, *bytes, or -1 when it is not one.
 */
int mg_proto_parse_why(const char *s, size_t len, mg_why *why, uint64_t *bytes);

/*
 * The mark secret of this host from the environment (MG_ENV_MARK) when it
 * speaks version 3 or above: secret gets MG_MARK_SECRET_LEN hex digits and
 * a NUL (MG_MARK_SECRET_LEN + 1 bytes), or "" (a version 2 mark) when the
 * version is lower or the variable is absent or malformed.
 */
void mg_proto_mark_secret(char *secret, unsigned version);

/* Writes the mark of ordinal with secret ("" or MG_MARK_SECRET_LEN digits)
 * at dst (MG_MARK_MAX bytes) and returns its length. */
size_t mg_proto_put_mark(char *dst, const char *secret, uint64_t ordinal);

/*
 * Writes all n bytes of buf to fd: EINTR is retried, EAGAIN (a descriptor
 * the program made non-blocking) waits in poll for room and retries. 0, or
 * -1 with errno when the reader has gone or fd is bad. When writes is not
 * NULL, every write call that wrote bytes adds 1 to *writes (the host
 * library tells its own writes from its tests' by them). Async-signal-safe.
 */
int mg_proto_write_all(int fd, const void *buf, size_t n, uint64_t *writes);

/*
 * The boundary mark of ordinal written whole to stdout and to stderr (the
 * caller flushed its stdio first); a stream that is gone is left alone.
 * The one mark writer of the host library and the driver shims; writes as
 * for mg_proto_write_all.
 */
void mg_proto_mark_streams(const char *secret, uint64_t ordinal, uint64_t *writes);

/*
 * Escapes src (len bytes, any byte but NUL) for a line: "\\" -> "\\\\",
 * LF -> "\\n", CR -> "\\r". Writes at most cap bytes to dst (no NUL
 * terminator) and returns the length the escaped text needs, which may be
 * larger than cap (then dst holds a truncated prefix).
 */
size_t mg_proto_escape(char *dst, size_t cap, const char *src, size_t len);

/*
 * A line reader over a caller's buffer, for either end of the protocol:
 * mg_lines_fill reads once from an fd into the buffer's free end,
 * mg_lines_next hands out the complete lines buffered (NUL-terminated in
 * place, valid until the next fill). Never allocates.
 */
typedef struct mg_lines {
	char *buf;
	size_t cap;   /* size of buf */
	size_t max;   /* a longer line (without its newline) is an error */
	size_t start; /* unread bytes: buf[start, start + len) */
	size_t len;
} mg_lines;

/* Returned by mg_lines_fill for a line of max bytes or more. */
#define MG_LINES_LONG (-2)

/* A reader over buf (cap bytes; cap > max). */
void mg_lines_init(mg_lines *r, char *buf, size_t cap, size_t max);

/* 1 and the next complete line (without its newline), 0 when no complete
 * line is buffered. O(line length). */
int mg_lines_next(mg_lines *r, char **line, size_t *len);

/*
 * One read(2) of fd (after moving the unread bytes to the front): the
 * number of bytes read, 0 at end of file, -1 with errno (EINTR and EAGAIN
 * included), or MG_LINES_LONG when the unread bytes hold max or more with
 * no newline. Call when mg_lines_next has no line.
 */
long mg_lines_fill(mg_lines *r, int fd);

/* The bytes of a partial line still unread (at end of file: what came
 * after the last newline). */
size_t mg_lines_pending(const mg_lines *r);

/*
 * The reply ring (v3, optional; PROTOCOL.md "The reply ring"): the runner
 * offers a shared memory file (MG_ENV_RING_FD) and a host that maps it
 * writes its reply lines there after its hello instead of to the reply
 * pipe, so a result costs the host no system call. The pipe then carries
 * only wake bytes: one at a publish when the runner asked (it is about to
 * sleep on the pipe), or when the ring is full. Fixed-width fields, the
 * same for a 32-bit host and a 64-bit runner; head and tail count bytes
 * mod 2^32.
 */
#define MG_PROTO_RING_FD 5
#define MG_RING_MAGIC    0x676e726du                   /* "mrng" */
#define MG_RING_SIZE     (256u * 1024)                 /* data bytes, a power of two */
#define MG_RING_DATA     256u                          /* where the data starts */
#define MG_RING_MAP      (MG_RING_DATA + MG_RING_SIZE) /* the file's size */

typedef struct mg_ring {
	uint32_t magic;    /* MG_RING_MAGIC (the runner's) */
	uint32_t size;     /* MG_RING_SIZE (the runner's) */
	uint32_t attached; /* the host: 1 before its hello; its replies come here */
	uint32_t pad0[13];
	uint32_t head; /* the host: bytes published */
	uint32_t pad1[15];
	uint32_t tail;    /* the runner: bytes taken */
	uint32_t wake;    /* the runner: 1 = a wake byte at the next publish */
	uint32_t waiting; /* the host: 1 = waiting for room (a futex on tail) */
} mg_ring;

/*
 * Host: maps the ring on fd (closing fd) and attaches to it; NULL when fd
 * is not a ring (a descriptor of another size or kind is left open; then
 * the pipe is used). MAP_POPULATE: its pages are the
 * host's from the start, so no test's rss figure holds one of them.
 */
mg_ring *mg_ring_attach(int fd);

/*
 * Host: appends n bytes and publishes them; writes a wake byte to wake_fd
 * when the runner asked for one, and when the ring is full (then waits for
 * room). Counts its write calls in *writes (mg_proto_write_all's rule). 0,
 * or -1 when the runner has gone (the wake write failed). Async-signal-safe.
 */
int mg_ring_put(mg_ring *r, int wake_fd, const void *buf, size_t n, uint64_t *writes);

/* Runner: the bytes published and not yet taken (more than MG_RING_SIZE:
 * the host broke the ring). */
uint32_t mg_ring_avail(const mg_ring *r);

/* Runner: asks for a wake byte at the next publish (it is about to sleep on
 * the reply pipe); returns mg_ring_avail (then it must not sleep). */
uint32_t mg_ring_arm(mg_ring *r);

/*
 * Runner: moves what the ring holds into the line reader (as mg_lines_fill
 * with a read): the bytes taken, or MG_LINES_LONG, or -1 when the ring is
 * broken (more published than it holds). Wakes a host waiting for room.
 */
long mg_lines_fill_ring(mg_lines *l, mg_ring *r);

#endif

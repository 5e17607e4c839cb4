/*
 * ctest.c - the CTest driver: lists with "ctest --show-only=json-v1" and the
 * user's selecting arguments (parsed with Jansson), then runs each CTest
 * test's own command as an exec-style child (one process per test, its
 * working directory and environment), honouring WILL_FAIL, DISABLED,
 * TIMEOUT, SKIP_RETURN_CODE, PASS/FAIL/SKIP_REGULAR_EXPRESSION (on stdout),
 * RUN_SERIAL and RESOURCE_LOCK. Never runs ctest itself per test.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <regex.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mg_elf.h"
#include "shim.h"
#include "spawn.h"

/* ctest's options that choose tests or where they are: kept for listing.
 * The ones with a value take the next argument. */
static const char *const select_with_value[] = {"-R",
                                                "--tests-regex",
                                                "-E",
                                                "--exclude-regex",
                                                "-L",
                                                "--label-regex",
                                                "-LE",
                                                "--label-exclude",
                                                "--test-dir",
                                                "-C",
                                                "--build-config",
                                                "-I",
                                                "--tests-information",
                                                "-FA",
                                                "--fixture-exclude-any",
                                                "-FS",
                                                "--fixture-exclude-setup",
                                                "-FC",
                                                "--fixture-exclude-cleanup",
                                                "--preset",
                                                NULL};
static const char *const select_flags[] = {"-U", "--union", NULL};
/* ctest's options with a value that are dropped (ours, or output only). */
static const char *const drop_with_value[] = {"-j",
                                              "--parallel",
                                              "-O",
                                              "--output-log",
                                              "--output-junit",
                                              "--timeout",
                                              "--repeat",
                                              "--repeat-until-fail",
                                              "--test-load",
                                              "--resource-spec-file",
                                              "-T",
                                              "--test-action",
                                              "-M",
                                              "--test-model",
                                              "-S",
                                              "--script",
                                              "-D",
                                              NULL};

typedef struct ct_test {
	char *name;
	char **argv; /* NULL: ctest found no executable */
	char *cwd;
	char **env; /* "NAME=VALUE", NULL-terminated */
	char **locks;
	char **pass_re, **fail_re, **skip_re; /* NULL: none */
	int skip_code;                        /* SKIP_RETURN_CODE, -1: none */
	int will_fail, disabled, serial;
	double timeout; /* seconds, 0: none */
	/* DEPENDS (ctest's listing adds a fixture's setup and cleanup order to
	 * it), FIXTURES_SETUP, FIXTURES_REQUIRED; NULL: none */
	char **depends, **fx_setup, **fx_required;
} ct_test;

/* A lock directory's path (TMPDIR, up to PATH_MAX, and its name), and a
 * lock file's (the directory's and the file's 38). */
#define LOCK_DIR_MAX  (4096 + 64)
#define LOCK_PATH_MAX (LOCK_DIR_MAX + 64)

typedef struct ctest_drv {
	const shim_args *a; /* first, as in exec.c's context: exec_exited reads a->shell */
	ct_test *v;
	size_t n;
	shim_names *names;
	int listed;
	/* the running test */
	long cur;
	struct timespec t0;
	int timed_out;
	int held[64];
	char held_path[64][LOCK_PATH_MAX];
	int nheld;
	int serial_fd;
	char serial_path[LOCK_PATH_MAX];
	uint64_t lock_hash; /* of the test directory; 0: not known yet */
	int lock_try;       /* which lock directory name is ours */
	char lock_err[512];
	char *out; /* the running test's stdout, when a regex judges it */
	size_t out_len, out_cap;
	size_t gt;          /* tests that run one GoogleTest case (the listing's hint) */
	const char *gt_bin; /* ... the last one's program */
	char *aside;        /* what CTestCustom.cmake's commands printed around the listing */
	size_t aside_len;
} ctest_drv;

static int in_list(const char *const *list, const char *a)
{
	for (size_t i = 0; list[i]; i++)
		if (!strcmp(list[i], a))
			return 1;
	return 0;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* A NULL-terminated copy of a JSON array of strings. */
static char **str_array(json_t *a)
{
	size_t n = json_is_array(a) ? json_array_size(a) : 0, k = 0;
	char **v = calloc(n + 1, sizeof(char *));
	for (size_t i = 0; v && i < n; i++) {
		const char *s = json_string_value(json_array_get(a, i));
		if (s)
			v[k++] = strdup(s);
	}
	return v;
}

static void prop(ct_test *t, const char *name, json_t *val)
{
	if (!strcmp(name, "WORKING_DIRECTORY"))
		t->cwd = dup_or_null(json_string_value(val));
	else if (!strcmp(name, "ENVIRONMENT"))
		t->env = str_array(val);
	else if (!strcmp(name, "WILL_FAIL"))
		t->will_fail = json_is_true(val);
	else if (!strcmp(name, "DISABLED"))
		t->disabled = json_is_true(val);
	else if (!strcmp(name, "RUN_SERIAL"))
		t->serial = json_is_true(val);
	else if (!strcmp(name, "RESOURCE_LOCK"))
		t->locks = str_array(val);
	else if (!strcmp(name, "TIMEOUT") && json_is_number(val))
		t->timeout = json_number_value(val);
	else if (!strcmp(name, "SKIP_RETURN_CODE") && json_is_integer(val))
		t->skip_code = (int)json_integer_value(val);
	else if (!strcmp(name, "PASS_REGULAR_EXPRESSION"))
		t->pass_re = str_array(val);
	else if (!strcmp(name, "FAIL_REGULAR_EXPRESSION"))
		t->fail_re = str_array(val);
	else if (!strcmp(name, "SKIP_REGULAR_EXPRESSION"))
		t->skip_re = str_array(val);
	else if (!strcmp(name, "DEPENDS"))
		t->depends = str_array(val);
	else if (!strcmp(name, "FIXTURES_SETUP"))
		t->fx_setup = str_array(val);
	else if (!strcmp(name, "FIXTURES_REQUIRED"))
		t->fx_required = str_array(val);
}

/* 1 when argv runs one GoogleTest case (what gtest_discover_tests writes). */
static int gtest_one_case(char **argv)
{
	for (size_t i = 1; argv && argv[i]; i++)
		if (!strncmp(argv[i], "--gtest_filter=", 15) && !strpbrk(argv[i] + 15, "*?:-"))
			return 1;
	return 0;
}

/*
 * ctest's json-v1 document in what --show-only printed: ctest runs the
 * project's CTEST_CUSTOM_PRE_TEST and _POST_TEST commands (CTestCustom.cmake)
 * at a listing too, and their output comes before and after the document
 * (CLI11's prints its build information). The document is the first object
 * that starts a line and says "kind": "ctestInfo"; what is around it is the
 * commands' own output, which the listing host passes to stderr (ct_say),
 * where ctest's user would have seen it: kept in d->aside. NULL and je's
 * error when there is none.
 */
static json_t *ct_document(ctest_drv *d, const char *text, size_t len, json_error_t *je)
{
	json_error_t first;
	int tried = 0;
	for (size_t at = 0; at < len; at++) {
		if (text[at] != '{' || (at && text[at - 1] != '\n'))
			continue;
		json_t *root = json_loadb(text + at, len - at, JSON_DISABLE_EOF_CHECK, je);
		const char *kind = json_string_value(json_object_get(root, "kind"));
		if (kind && !strcmp(kind, "ctestInfo")) {
			size_t end = at + je->position;
			free(d->aside);
			d->aside = malloc(at + (len - end) + 1);
			d->aside_len = 0;
			if (d->aside) {
				memcpy(d->aside, text, at);
				memcpy(d->aside + at, text + end, len - end);
				d->aside_len = at + (len - end);
			}
			return root;
		}
		json_decref(root);
		if (!tried++)
			first = *je;
	}
	if (tried)
		*je = first;
	else
		snprintf(je->text, sizeof(je->text), "no line starts a JSON object");
	return NULL;
}

/*
 * Parses ctest's json-v1 document into d->v, and counts the tests that are
 * single GoogleTest cases (ct_say's hint). 0, or -1 after a message on
 * stderr.
 */
static int ct_parse(ctest_drv *d, const char *text, size_t len)
{
	json_error_t je;
	json_t *root = ct_document(d, text, len, &je);
	json_t *tests = json_object_get(root, "tests");
	size_t i;
	json_t *t;
	if (!json_is_array(tests)) {
		fprintf(stderr, "memguard: ctest --show-only=json-v1 gave no test list: %s\n",
		        root ? "no \"tests\" array" : je.text);
		json_decref(root);
		return -1;
	}
	d->v = calloc(json_array_size(tests) + 1, sizeof(ct_test));
	d->names = shim_names_new();
	json_array_foreach(tests, i, t)
	{
		const char *name = json_string_value(json_object_get(t, "name"));
		if (!name || !*name || shim_names_add(d->names, name, strlen(name)) < 0)
			continue;
		ct_test *c = &d->v[d->n++];
		c->name = strdup(name);
		c->skip_code = -1;
		json_t *cmd = json_object_get(t, "command");
		c->argv = json_is_array(cmd) && json_array_size(cmd) ? str_array(cmd) : NULL;
		size_t k;
		json_t *p;
		json_array_foreach(json_object_get(t, "properties"), k, p)
		{
			const char *pn = json_string_value(json_object_get(p, "name"));
			if (pn)
				prop(c, pn, json_object_get(p, "value"));
		}
		if (gtest_one_case(c->argv)) {
			d->gt++;
			d->gt_bin = c->argv[0];
		}
	}
	json_decref(root);
	return 0;
}

/* The user's ctest arguments that choose tests, into argv (from argv[1]);
 * with argv NULL, a line on stderr for each one left out. Returns how many. */
static int ct_select(char **cmd, int ncmd, char **argv)
{
	int k = 0;
	for (int i = 1; i < ncmd; i++) {
		if (in_list(select_with_value, cmd[i]) && i + 1 < ncmd) {
			if (argv)
				argv[k] = cmd[i], argv[k + 1] = cmd[i + 1];
			k += 2;
			i++;
		} else if (in_list(select_flags, cmd[i]) || !strncmp(cmd[i], "--test-dir=", 11) ||
		           !strncmp(cmd[i], "--preset=", 9)) {
			if (argv)
				argv[k] = cmd[i];
			k++;
		} else if (in_list(drop_with_value, cmd[i]) && i + 1 < ncmd) {
			i++;
		} else if (!strncmp(cmd[i], "-j", 2) || !strncmp(cmd[i], "--parallel", 10)) {
			/* -j4 / --parallel=4: memguard's -j runs lanes */
		} else if (!argv) {
			fprintf(stderr, "memguard: ctest's '%s' does not choose tests: left out\n",
			        cmd[i]);
		}
	}
	return k;
}

/* The listing host's notes (its stderr is the user's): arguments left out,
 * and one hint line when tests are single GoogleTest cases. */
static void ct_say(shim *s, const ctest_drv *d)
{
	int ncmd;
	char **cmd = shim_cmd(s, &ncmd);
	ct_select(cmd, ncmd, NULL);
	if (d->aside_len && fwrite(d->aside, 1, d->aside_len, stderr) != d->aside_len)
		clearerr(stderr);
	if (d->gt)
		fprintf(
		    stderr,
		    "memguard: %zu CTest test%s run%s one GoogleTest case (gtest_discover_tests): "
		    "'memguard run --driver gtest -- %s' runs them in one program per lane with "
		    "in-process boundaries\n",
		    d->gt, d->gt == 1 ? "" : "s", d->gt == 1 ? "s" : "", d->gt_bin);
}

/* ctest with the user's selecting arguments and --show-only=json-v1. */
static int ct_load(shim *s, ctest_drv *d)
{
	int ncmd, k = 0;
	mg_exit_end status;
	char **cmd = shim_cmd(s, &ncmd);
	char **argv = calloc((size_t)ncmd + 2, sizeof(char *));
	char *out = NULL;
	size_t len = 0;
	int rc = -1;
	if (!argv)
		return -1;
	argv[k++] = cmd[0];
	k += ct_select(cmd, ncmd, argv + 1);
	argv[k++] = "--show-only=json-v1";
	if (shim_capture(s, argv, &out, &len, &status) < 0)
		goto out;
	if (!mg_exit_ok(status)) {
		shim_say_failed(status, "'%s --show-only=json-v1'", cmd[0]);
		goto out;
	}
	rc = ct_parse(d, out, len);
	d->listed = rc == 0;
out:
	free(out);
	free(argv);
	return rc;
}

/*
 * The tests in an order where each comes after what it DEPENDS on (ctest's
 * listing puts a fixture's order there too: a test requiring it after its
 * setup tests, its cleanup tests after both), otherwise in ctest's order:
 * the earliest test whose listed dependencies are placed comes next.
 * Dependencies on tests not listed (not selected) do not hold one back.
 * *order: d->n indexes. A test's listed dependencies are dep[first[i]] ...
 * dep[first[i + 1] - 1]. Returns -1, or the first test left when the rest
 * wait for each other in a cycle (then in list order).
 */
static long ct_order(ctest_drv *d, size_t *order)
{
	long cycle = -1;
	char *placed = calloc(d->n ? d->n : 1, 1);
	long *dep = NULL;
	size_t *first = calloc(d->n + 1, sizeof(size_t)), ndep = 0, k = 0;
	if (!placed || !first) {
		free(placed);
		free(first);
		for (size_t i = 0; i < d->n; i++)
			order[i] = i;
		return -1;
	}
	for (size_t i = 0; i < d->n; i++) {
		first[i] = ndep;
		for (size_t j = 0; d->v[i].depends && d->v[i].depends[j]; j++) {
			const char *nm = d->v[i].depends[j];
			long at = shim_names_find(d->names, nm, strlen(nm));
			if (at < 0 || (size_t)at == i)
				continue;
			long *grown = realloc(dep, (ndep + 1) * sizeof(long));
			if (!grown)
				continue;
			dep = grown;
			dep[ndep++] = at;
		}
	}
	first[d->n] = ndep;
	while (k < d->n && !ndep) /* nothing to keep: ctest's order */
		order[k] = k, k++;
	while (k < d->n) {
		size_t pick = d->n;
		for (size_t i = 0; i < d->n && pick == d->n; i++) {
			if (placed[i])
				continue;
			size_t j = first[i];
			while (j < first[i + 1] && placed[dep[j]])
				j++;
			if (j == first[i + 1])
				pick = i;
		}
		if (pick == d->n) { /* a cycle: the rest as listed */
			for (pick = 0; placed[pick]; pick++)
				;
			if (cycle < 0)
				cycle = (long)pick;
		}
		placed[pick] = 1;
		order[k++] = pick;
	}
	free(placed);
	free(first);
	free(dep);
	return cycle;
}

/* After test t's line (at position k of the listing): what it waits for,
 * by position (pos: a test's position), among the tests listed before it
 * (so a cycle cannot hold the run): each setup test of a fixture it
 * requires ("needs": it is not run when that failed, as ctest's "Failed
 * test dependencies"), then its DEPENDS, where ctest's listing has put
 * its fixtures' setups and, for a cleanup test, the fixture's users. */
static void ct_list_deps(shim *s, const ctest_drv *d, const ct_test *t, const size_t *pos, size_t k)
{
	for (size_t f = 0; t->fx_required && t->fx_required[f]; f++)
		for (size_t i = 0; i < d->n; i++)
			if (&d->v[i] != t && pos[i] < k && d->v[i].fx_setup &&
			    in_list((const char *const *)d->v[i].fx_setup, t->fx_required[f]))
				shim_test_after(s, pos[i],
				                *t->fx_required[f] ? t->fx_required[f] : NULL);
	for (size_t j = 0; t->depends && t->depends[j]; j++) {
		const char *nm = t->depends[j];
		long at = shim_names_find(d->names, nm, strlen(nm));
		if (at >= 0 && pos[at] < k)
			shim_test_after(s, pos[at], NULL);
	}
}

static int ct_list(shim *s)
{
	ctest_drv *d = shim_ctx(s);
	if (!d->listed && ct_load(s, d) < 0)
		return -1;
	ct_say(s, d);
	size_t *order = malloc((d->n ? d->n : 1) * sizeof(size_t));
	size_t *pos = malloc((d->n ? d->n : 1) * sizeof(size_t));
	if (!order || !pos) {
		free(order);
		free(pos);
		fprintf(stderr, "memguard: out of memory ordering the CTest tests\n");
		return -1;
	}
	long cycle = ct_order(d, order);
	for (size_t k = 0; k < d->n; k++)
		pos[order[k]] = k;
	if (cycle >= 0) /* as ctest: says so and runs no test (and exits 0) */
		fprintf(stderr,
		        "memguard: a cycle exists in the test dependency graph (DEPENDS) of the "
		        "CTest tests, from \"%s\" on: ctest runs no test then, nor does memguard\n",
		        d->v[cycle].name);
	for (size_t k = 0; cycle < 0 && k < d->n; k++) {
		const ct_test *t = &d->v[order[k]];
		shim_test(s, t->name, strlen(t->name));
		ct_list_deps(s, d, t, pos, k);
	}
	free(order);
	free(pos);
	return 0;
}

/* ---- serial and locked tests: flock(2) on files every lane's shim of this
 * test directory opens, so they hold across lanes (and across runs). They
 * live in a directory of this user's own, TMPDIR/memguard-ctest-UID (0700,
 * checked: a directory, not a link, ours, no one else may write it; when
 * another user took that name first, -1 ... -7 after it): no other user can
 * plant a link there, nor hold a lock to block the run. A lock file is
 * removed by whoever holds it exclusively when done, the directory when it
 * is empty; a lock is taken again when its file was replaced meanwhile. ---- */

#define LOCK_DIR_TRIES 8

static uint64_t fnv1a(const char *p)
{
	uint64_t h = 1469598103934665603ull;
	for (; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	return h;
}

/* The lock directory's path (made and checked by lock_dir_make) and the
 * test directory's hash that prefixes every lock file's name. */
static void lock_base(shim *s, ctest_drv *d)
{
	int ncmd;
	char **cmd = shim_cmd(s, &ncmd);
	char cwd[4096] = "", dir[4096];
	const char *td = NULL;
	for (int i = 1; i < ncmd; i++)
		if (!strcmp(cmd[i], "--test-dir") && i + 1 < ncmd)
			td = cmd[i + 1];
		else if (!strncmp(cmd[i], "--test-dir=", 11))
			td = cmd[i] + 11;
	if (!getcwd(cwd, sizeof(cwd)))
		cwd[0] = 0;
	if (!td || !realpath(td, dir))
		snprintf(dir, sizeof(dir), "%s", cwd);
	d->lock_hash = fnv1a(dir);
}

/* Makes (0700) or checks the lock directory: an fd of it, or -1 with errno
 * (EPERM when it is not this user's own, private directory). */
static int lock_dir_open(const char *path)
{
	struct stat st;
	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		return -1;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ELOOP || errno == ENOTDIR)
			errno = EPERM; /* a link or a file: not ours to use */
		return -1;
	}
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 077)) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

/* Opens and locks (how: LOCK_SH or LOCK_EX) the lock file of what; its path
 * in d->lock_path[slot]. -1 with d->lock_err set when no lock directory of
 * ours could be had. Blocks while another process of this user holds it. */
static int lock_hold(ctest_drv *d, const char *what, int how, char *path, size_t size)
{
	const char *tmp = getenv("TMPDIR");
	tmp = tmp && *tmp ? tmp : "/tmp";
	path[0] = 0;
	for (int tries = 0; tries < 100; tries++) {
		char dir[LOCK_DIR_MAX];
		int k = d->lock_try;
		if (k >= LOCK_DIR_TRIES) {
			snprintf(
			    d->lock_err, sizeof(d->lock_err),
			    "no lock directory of this user's own: %.300s/memguard-ctest-%ld (and "
			    "-1 to -%d after it) belong to another user or are not private "
			    "directories",
			    tmp, (long)geteuid(), LOCK_DIR_TRIES - 1);
			return -1;
		}
		if (k == 0)
			snprintf(dir, sizeof(dir), "%s/memguard-ctest-%ld", tmp, (long)geteuid());
		else
			snprintf(dir, sizeof(dir), "%s/memguard-ctest-%ld-%d", tmp, (long)geteuid(),
			         k);
		int dfd = lock_dir_open(dir);
		if (dfd < 0) {
			if (errno != EPERM && errno != ENOENT) {
				snprintf(d->lock_err, sizeof(d->lock_err),
				         "lock directory %.400s: %s", dir, strerror(errno));
				return -1;
			}
			if (errno == EPERM)
				d->lock_try++; /* someone else's: the next name */
			continue;
		}
		char name[64];
		snprintf(name, sizeof(name), "%016llx-%016llx.lock",
		         (unsigned long long)d->lock_hash, (unsigned long long)fnv1a(what));
		snprintf(path, size, "%s/%s", dir, name);
		int fd =
		    openat(dfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600);
		if (fd >= 0) {
			while (flock(fd, how) < 0 && errno == EINTR)
				;
			/* still the file at its name (its holder removes it when done)? */
			struct stat held, now;
			if (fstat(fd, &held) == 0 &&
			    fstatat(dfd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
			    held.st_ino == now.st_ino && held.st_dev == now.st_dev) {
				close(dfd);
				return fd;
			}
			close(fd);
		}
		/* the directory or the file was removed meanwhile: again */
		close(dfd);
	}
	snprintf(d->lock_err, sizeof(d->lock_err), "lock %.400s keeps being replaced", path);
	return -1;
}

/* Removes a lock file held exclusively, then its directory if empty. */
static void lock_remove(const char *path)
{
	unlink(path);
	char dir[LOCK_PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash) {
		*slash = 0;
		rmdir(dir); /* fails while another lock is in it: fine */
	}
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every test holds the serial lock shared, a RUN_SERIAL one exclusive; a
 * RESOURCE_LOCK name is an exclusive lock taken in name order (no
 * deadlock between two tests sharing two names). Blocks. -1 (d->lock_err
 * says why) when the locks cannot be had. */
static int locks_acquire(shim *s, ctest_drv *d, ct_test *t)
{
	if (!d->lock_hash)
		lock_base(s, d);
	/* the serial lock is taken afresh per test: its file may be removed
	 * between tests by another run that ended */
	d->serial_fd = lock_hold(d, "\001serial", t->serial ? LOCK_EX : LOCK_SH, d->serial_path,
	                         sizeof(d->serial_path));
	if (d->serial_fd < 0)
		return -1;
	size_t n = 0;
	while (t->locks && t->locks[n])
		n++;
	if (n > 1)
		qsort(t->locks, n, sizeof(char *), str_cmp);
	for (size_t i = 0; i < n && d->nheld < (int)(sizeof(d->held) / sizeof(d->held[0])); i++) {
		int fd = lock_hold(d, t->locks[i], LOCK_EX, d->held_path[d->nheld],
		                   sizeof(d->held_path[0]));
		if (fd < 0)
			return -1;
		d->held[d->nheld++] = fd;
	}
	return 0;
}

/* Lets the locks go; the files of exclusive ones are removed, and the
 * serial one's when no one else holds it. */
static void locks_release(ctest_drv *d)
{
	while (d->nheld) {
		d->nheld--;
		lock_remove(d->held_path[d->nheld]);
		close(d->held[d->nheld]);
	}
	if (d->serial_fd >= 0) {
		if (flock(d->serial_fd, LOCK_EX | LOCK_NB) == 0)
			lock_remove(d->serial_path);
		close(d->serial_fd);
		d->serial_fd = -1;
	}
}

/* ---- running ---- */

static void env_apply(shim *s, char **env, int restore)
{
	for (size_t i = 0; env && env[i]; i++) {
		char *eq = strchr(env[i], '=');
		if (!eq)
			continue;
		*eq = 0;
		shim_setenv(s, env[i], restore ? getenv(env[i]) : eq + 1);
		*eq = '=';
	}
}

static void ct_begin(shim *s)
{
	ctest_drv *d = shim_ctx(s);
	size_t n;
	const char *name = shim_queue_name(s, 0, &n);
	if (!d->listed && ct_load(s, d) < 0) {
		shim_start(s);
		shim_resultf(s, MG_MSG_FAIL, "cannot list the CTest tests");
		return;
	}
	long i = shim_names_find(d->names, name, n);
	if (i < 0) {
		shim_start(s);
		shim_resultf(s, MG_MSG_FAIL, "unknown CTest test '%.1000s'", name);
		return;
	}
	ct_test *t = &d->v[i];
	if (t->disabled) {
		shim_start(s);
		shim_resultf(s, MG_MSG_SKIP, "disabled (CTest property DISABLED)");
		return;
	}
	if (!t->argv) {
		shim_start(s);
		shim_resultf(s, MG_MSG_FAIL, "ctest found no executable for this test (Not Run)");
		return;
	}
	if (locks_acquire(s, d, t) < 0) {
		locks_release(d);
		shim_start(s);
		shim_resultf(s, MG_MSG_FAIL, "cannot take its CTest locks: %s", d->lock_err);
		return;
	}
	int back = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t->cwd && chdir(t->cwd) < 0) {
		locks_release(d);
		if (back >= 0)
			close(back);
		shim_start(s);
		shim_resultf(s, MG_MSG_FAIL, "cannot enter its WORKING_DIRECTORY %s: %s", t->cwd,
		             strerror(errno));
		return;
	}
	env_apply(s, t->env, 0);
	d->out_len = 0;
	/* a judged test's output is its stdout and stderr in one stream, as
	 * ctest reads it (a PASS_REGULAR_EXPRESSION may match either) */
	int rc =
	    shim_spawn(s, t->argv, t->pass_re || t->fail_re || t->skip_re ? SHIM_OUT_MERGED : 0);
	env_apply(s, t->env, 1);
	if (back >= 0) {
		if (fchdir(back) < 0)
			fprintf(stderr, "memguard: cannot return to the driver's directory\n");
		close(back);
	}
	d->cur = i;
	d->timed_out = 0;
	clock_gettime(CLOCK_MONOTONIC, &d->t0);
	shim_start(s);
	if (rc < 0) {
		locks_release(d);
		shim_resultf(s, MG_MSG_FAIL, "cannot start %s", t->argv[0]);
	}
}

/* While the test runs (every 1-5 ms): its TIMEOUT. */
static void ct_tick(shim *s)
{
	ctest_drv *d = shim_ctx(s);
	struct timespec now;
	if (d->cur < 0 || d->timed_out || !shim_child(s) || d->v[d->cur].timeout <= 0)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	double el =
	    (double)(now.tv_sec - d->t0.tv_sec) + (double)(now.tv_nsec - d->t0.tv_nsec) / 1e9;
	if (el >= d->v[d->cur].timeout) {
		d->timed_out = 1;
		kill(shim_child(s), SIGKILL);
	}
}

/* A judged test's output (stdout and stderr): kept for its regexes, passed
 * on as its output. */
static void ct_line(shim *s, char *line, size_t len)
{
	ctest_drv *d = shim_ctx(s);
	if (d->out_len + len + 2 > d->out_cap && d->out_len + len + 2 <= (16u << 20)) {
		size_t cap = 2 * (d->out_len + len + 2);
		char *p = realloc(d->out, cap);
		if (p) {
			d->out = p;
			d->out_cap = cap;
		}
	}
	if (d->out_len + len + 2 <= d->out_cap) {
		memcpy(d->out + d->out_len, line, len);
		d->out_len += len;
		if (!shim_line_cut(s))
			d->out[d->out_len++] = '\n';
		d->out[d->out_len] = 0;
	}
	shim_output(s, line, len);
	if (!shim_line_cut(s))
		shim_output(s, "\n", 1);
}

/*
 * A CMake regular expression (cmsys, Henry Spencer's syntax) as a POSIX
 * extended one: the same but for braces, literal in CMake ("-3{3}" is those
 * five characters, not "-333"), and a backslash, which makes any character
 * literal in CMake where glibc gives "\w", "\s", "\b", "\1" ... meanings.
 * A bracket expression is copied as it is (neither has escapes in it).
 * malloc'd, or NULL.
 */
static char *regex_from_cmake(const char *cm)
{
	size_t n = strlen(cm);
	char *o = malloc(2 * n + 1), *w = o;
	if (!o)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		char c = cm[i];
		if (c == '[') {
			size_t j = i + 1;
			if (j < n && cm[j] == '^')
				j++;
			if (j < n && cm[j] == ']')
				j++;
			while (j < n && cm[j] != ']')
				j++;
			if (j == n) /* unclosed: regcomp says so */
				j = n - 1;
			memcpy(w, cm + i, j - i + 1);
			w += j - i + 1;
			i = j;
		} else if (c == '{' || c == '}') {
			*w++ = '\\';
			*w++ = c;
		} else if (c == '\\' && i + 1 < n) {
			c = cm[++i];
			if (!isalnum((unsigned char)c) && !strchr("<>`'", c))
				*w++ = '\\';
			*w++ = c;
		} else {
			*w++ = c;
		}
	}
	*w = 0;
	return o;
}

/* The first of res (CMake's syntax, on the whole output: '^' is its start,
 * '.' matches a newline too, as in CMake) that matches, or NULL. */
static const char *regex_first(char **res, const char *text)
{
	for (size_t i = 0; res && res[i]; i++) {
		regex_t re;
		char *ere = regex_from_cmake(res[i]);
		int bad = !ere || regcomp(&re, ere, REG_EXTENDED | REG_NOSUB);
		free(ere);
		if (bad)
			continue;
		int hit = regexec(&re, text, 0, NULL, 0) == 0;
		regfree(&re);
		if (hit)
			return res[i];
	}
	return NULL;
}

static void ct_exited(shim *s, mg_exit_end status, const struct rusage *ru)
{
	ctest_drv *d = shim_ctx(s);
	ct_test *t = d->cur >= 0 ? &d->v[d->cur] : NULL;
	locks_release(d);
	d->cur = -1;
	if (!shim_head_started(s) || !t)
		return;
	if (d->timed_out) {
		shim_resultf(s, MG_MSG_TIMEOUT, "over its TIMEOUT of %g s (killed)", t->timeout);
		return;
	}
	if (!status.signo && (t->skip_code >= 0 || t->pass_re || t->fail_re || t->skip_re)) {
		/* as ctest judges: a skip first, then the pass regexes (the exit
		 * status does not count then), a fail regex, WILL_FAIL last */
		const char *text = d->out ? d->out : "", *hit;
		int code = status.status, ok;
		if (code == t->skip_code) {
			shim_resultf(s, MG_MSG_SKIP, "SKIP_RETURN_CODE %d", code);
			return;
		}
		if ((hit = regex_first(t->skip_re, text))) {
			shim_resultf(s, MG_MSG_SKIP, "SKIP_REGULAR_EXPRESSION [%s] found", hit);
			return;
		}
		char why[1200];
		if (t->pass_re) {
			ok = regex_first(t->pass_re, text) != NULL;
			snprintf(why, sizeof(why),
			         "no PASS_REGULAR_EXPRESSION found in its output");
		} else {
			ok = code == 0;
			snprintf(why, sizeof(why), "exit status %d", code);
		}
		if (ok && (hit = regex_first(t->fail_re, text))) {
			ok = 0;
			snprintf(why, sizeof(why), "FAIL_REGULAR_EXPRESSION [%.1000s] found", hit);
		}
		if (t->will_fail)
			ok = !ok;
		if (ok)
			shim_result(s, MG_MSG_PASS, NULL, 0);
		else
			shim_resultf(s, MG_MSG_FAIL, "%s%s", why,
			             t->will_fail ? " (WILL_FAIL)" : "");
		return;
	}
	if (t->will_fail && !status.signo) {
		if (status.status)
			shim_result(s, MG_MSG_PASS, NULL, 0);
		else
			shim_resultf(s, MG_MSG_FAIL, "exit status 0 of a WILL_FAIL test");
		return;
	}
	exec_exited(s, status, ru);
}

/*
 * hello's arch: the tests' when every test's program is an ELF executable
 * of one class (a suite of 32-bit programs is x86 and gets x86's limits,
 * whatever ctest itself is); NULL (ctest's own) when they differ, a test
 * runs a script or nothing, or the listing failed (listed again, and said,
 * at list). Lists first: a stat and a 20-byte read per test.
 */
static const char *ct_arch(shim *s)
{
	ctest_drv *d = shim_ctx(s);
	mg_arch arch = MG_ARCH_UNKNOWN;
	char path[4096];
	if (!d->listed && ct_load(s, d) < 0)
		return NULL;
	for (size_t i = 0; i < d->n; i++) {
		mg_arch a;
		if (!d->v[i].argv || spawn_resolve(path, sizeof(path), d->v[i].argv[0], NULL) < 0 ||
		    elf_arch(&a, path, NULL) < 0 || (arch != MG_ARCH_UNKNOWN && a != arch))
			return NULL;
		arch = a;
	}
	return arch == MG_ARCH_X86 ? "x86" : arch == MG_ARCH_X64 ? "x64" : NULL;
}

int ctest_main(const shim_args *a)
{
	static const shim_ops ops = {
	    .measure = SHIM_MEASURE_TREE,
	    .self_recycle = 0, /* every test is a fresh process already */
	    .list = ct_list,
	    .arch = ct_arch,
	    .begin = ct_begin,
	    .exited = ct_exited,
	    .tick = ct_tick,
	    .line = ct_line,
	};
	static ctest_drv d;
	d.a = a;
	d.cur = -1;
	d.serial_fd = -1;
	return shim_main(&ops, &d, a->cmd, a->ncmd);
}

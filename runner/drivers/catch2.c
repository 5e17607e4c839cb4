/*
 * catch2.c - the Catch2 driver: the gtest driver's machinery (gtest.c) for a
 * Catch2 program: its names by --list-test-names-only -v high (v2) or
 * --list-tests -v quiet (v3), the batch as an --input-file of names, its XML reporter's
 * <TestCase> elements as the lines followed (and the probe's boundaries,
 * MEMGUARD_PROBE_FORMAT=catch2).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gtest_driver.h"
#include "mg_elf.h"
#include "spawn.h"

/* Catch2's options that take a value (v2 and v3), to tell them from test specs. */
static const char *const c2_valued[] = {"-o",
                                        "--out",
                                        "-r",
                                        "--reporter",
                                        "-n",
                                        "--name",
                                        "-w",
                                        "--warn",
                                        "-d",
                                        "--durations",
                                        "-D",
                                        "--min-duration",
                                        "-f",
                                        "--input-file",
                                        "-c",
                                        "--section",
                                        "-x",
                                        "--abortx",
                                        "--order",
                                        "--rng-seed",
                                        "--use-colour",
                                        "--colour-mode",
                                        "--wait-for-keypress",
                                        "--benchmark-samples",
                                        "--benchmark-resamples",
                                        "--benchmark-confidence-interval",
                                        "--benchmark-warmup-time",
                                        "-v",
                                        "--verbosity",
                                        "--shard-count",
                                        "--shard-index",
                                        NULL};

/* ... and those the driver sets itself (dropped from the user's). The
 * user's --order stays, in the listing and in every run: the listing is
 * then in the order the program runs a batch in (and, with v3's
 * --shard-count, of the shard a direct run has); its --rng-seed too,
 * unless the program would draw one (then the run's: MG_ENV_SEED). */
static const char *const c2_ours[] = {
    "-o",           "--out",         "-r", "--reporter",  "-f", "--input-file", "-d", "--durations",
    "--use-colour", "--colour-mode", "-v", "--verbosity", NULL};

static int c2_in(const char *const *list, const char *a)
{
	for (size_t i = 0; list[i]; i++)
		if (!strcmp(list[i], a))
			return 1;
	return 0;
}

int catch2_runs_none(char *const *cmd, int ncmd, mg_err *err)
{
	static const char *const none[] = {"-l",
	                                   "--list-tests",
	                                   "-t",
	                                   "--list-tags",
	                                   "--list-reporters",
	                                   "--list-listeners",
	                                   "--list-test-names-only",
	                                   "--libidentify",
	                                   "-h",
	                                   "-?",
	                                   "--help",
	                                   NULL};
	/* anywhere: Clara takes no token that starts with '-' for an option's
	 * value ("Expected argument following -n") */
	for (int i = 1; i < ncmd; i++) {
		if (c2_in(none, cmd[i]))
			/* before: the run listed the program with the option, and ran
			 * every test (the listing of -h: its lines, each an error) */
			return mg_err_set(err, MG_EINVAL,
			                  "Catch2's '%s' lists or describes and runs no test: "
			                  "'memguard list' lists them (or run the program itself "
			                  "with it)",
			                  cmd[i]);
	}
	return 0;
}

/* v3's --shard-count / --shard-index, also as --shard-count=N or :N. */
static int c2_shard_opt(const char *a)
{
	static const char *const opts[] = {"--shard-count", "--shard-index"};
	for (size_t i = 0; i < 2; i++) {
		size_t n = strlen(opts[i]);
		if (!strncmp(a, opts[i], n) && (!a[n] || a[n] == '=' || a[n] == ':'))
			return 1;
	}
	return 0;
}

int catch2_warns_no_tests(char *const *cmd, int ncmd, int *spec)
{
	int warns = 0;
	*spec = 0;
	for (int i = 1; i < ncmd; i++) {
		const char *a = cmd[i];
		if ((!strcmp(a, "-w") || !strcmp(a, "--warn")) && i + 1 < ncmd) {
			warns |= !strcmp(cmd[++i], "NoTests");
		} else if (!strncmp(a, "-w=", 3) || !strncmp(a, "-w:", 3) ||
		           !strncmp(a, "--warn=", 7) || !strncmp(a, "--warn:", 7)) {
			warns |= !strcmp(a + (a[1] == 'w' ? 3 : 7), "NoTests");
		} else if (c2_in(c2_valued, a) && i + 1 < ncmd) {
			*spec |= !strcmp(a, "-f") || !strcmp(a, "--input-file");
			i++;
		} else {
			*spec |= a[0] != '-' || !strncmp(a, "-f=", 3) ||
			         !strncmp(a, "--input-file=", 13);
		}
	}
	return warns;
}

/*
 * The Catch2 program's argv into out (room for ncmd + 10): the user's
 * options less the ones the driver sets (and, to run, less the user's
 * test specs: the batch is the specs then), plus the listing or reporter
 * options. Returns the index of the listing flag (listing) or the count.
 * listing 2: a listing of no test (the user's specs out, "exclude:*" in);
 * CATCH2_RUN_LISTED: a run of what the listing lists (its options, the
 * user's specs and shard kept, no listing flag); CATCH2_RUN_SPECS: the
 * same without the user's shard options. Those two return the count.
 */
int catch2_args(char **cmd, int ncmd, char **out, int listing, int v3)
{
	int k = 0;
	/* the seed the runner drew for the run's programs (driver_order_of), in
	 * place of the user's time or random-device: Clara takes an option
	 * once (a second is an "Unrecognised token") */
	char *seed = getenv(MG_ENV_SEED);
	if (seed && !*seed)
		seed = NULL;
	out[k++] = cmd[0];
	for (int i = 1; i < ncmd; i++) {
		const char *a = cmd[i];
		int valued = c2_in(c2_valued, a) && i + 1 < ncmd;
		if (seed && !strncmp(a, "--rng-seed", 10) &&
		    (!a[10] || a[10] == '=' || a[10] == ':')) {
			i += !a[10] && valued;
			continue;
		}
		if (c2_in(c2_ours, a) || catch2_is_output_opt(a) || !strcmp(a, "-s") ||
		    !strcmp(a, "--success") || !strncmp(a, "--list", 6) || !strcmp(a, "-l") ||
		    !strcmp(a, "-t")) {
			i += valued;
			continue;
		}
		if ((listing == 1 || listing == 2) && !v3 &&
		    (!strncmp(a, "-v=", 3) || !strncmp(a, "-v:", 3) ||
		     !strncmp(a, "--verbosity=", 12) || !strncmp(a, "--verbosity:", 12)))
			continue; /* the listing's is "-v high" */
		if ((!listing || listing == CATCH2_RUN_SPECS) && c2_shard_opt(a)) {
			/* v3 lists the user's shard: a batch is run whole */
			i += valued;
			continue;
		}
		if (a[0] != '-' && listing != 1 && listing < CATCH2_RUN_LISTED)
			continue; /* a test spec */
		out[k++] = cmd[i];
		if (valued)
			out[k++] = cmd[++i];
	}
	if (seed) {
		out[k++] = "--rng-seed";
		out[k++] = seed;
	}
	if (listing == 1 || listing == 2) {
		if (v3) {
			out[k] = "--list-tests";
			out[k + 1] = "--verbosity";
			out[k + 2] = "quiet";
			out[k + 3] = NULL;
		} else {
			/* each name followed by "\t@FILE:LINE": no noise looks so
			 * (catch2_list_noise) */
			out[k] = "--list-test-names-only";
			out[k + 1] = "-v";
			out[k + 2] = "high";
			out[k + 3] = NULL;
		}
		if (listing == 2)
			out[k + 3] = "exclude:*", out[k + 4] = NULL;
		return k;
	}
	out[k] = NULL;
	return k;
}

/* Catch2's name listing: one name a line (v3's quiet listing too). Both
 * quote a name that starts with '#' ("\"#1234 ...\"", so that an input
 * file does not take it for a comment): the name is without them, as
 * Catch2 reads it back. */
/* The length of the line p (n bytes) without v2's "\t@FILE:LINE" after
 * the name (-v high), n when it has none. */
static size_t c2_unsuffixed(const char *p, size_t n)
{
	size_t d = n;
	while (d && p[d - 1] >= '0' && p[d - 1] <= '9')
		d--;
	if (d == n || !d || p[d - 1] != ':')
		return n;
	for (size_t at = d - 1; at >= 2; at--)
		if (p[at - 1] == '@' && p[at - 2] == '\t')
			return at + 1 < d ? at - 2 : n; /* a file's name, then ':' */
	return n;
}

void catch2_parse_list(const char *buf, size_t len, int v3,
                       void (*add)(void *ctx, const char *name, size_t n), void *ctx)
{
	for (const char *p = buf, *end = buf + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		size_t n = (size_t)(e - p);
		if (n && p[n - 1] == '\r')
			n--;
		if (!v3)
			n = c2_unsuffixed(p, n);
		if (n >= 3 && p[0] == '"' && p[1] == '#' && p[n - 1] == '"')
			add(ctx, p + 1, n - 2);
		else if (n)
			add(ctx, p, n);
		p = nl ? nl + 1 : end;
	}
}

/*
 * What the program prints on stdout whatever it lists (a static
 * constructor's line, a custom main's banner: Catch2 lists after it, one
 * name a line, so the line would be taken for a test): the bytes at the
 * start of its listing out (which ended listed) that are not names.
 * v2's listing (-v high) ends each name's line with "\t@FILE:LINE": the
 * lines before the first such are the noise, when every line from there
 * is a name and they are as many as the listing's exit status says
 * (2.13: min(255, count); before, the count's low byte); with a Catch2
 * that writes no such suffix, none when the lines are that many. Else
 * (and for v3, whose listing exits 0) the bytes a second listing, of no
 * test, prints too: a program start and a registration of every test
 * more (~5 us a test of a v2 program).
 */
size_t catch2_list_noise(shim *s, int v3, const char *out, size_t len, mg_exit_end listed)
{
	long first = -1; /* v2: the first line with "\t@FILE:LINE" */
	size_t lines = 0, plain = 0;
	for (const char *p = out, *end = out + len; !v3 && p < end; lines++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		if (n && p[n - 1] == '\r')
			n--;
		if (c2_unsuffixed(p, n) < n) {
			if (first < 0)
				first = p - out;
		} else if (first >= 0) {
			plain++; /* a line among the names that is none */
		}
		p = nl ? nl + 1 : end;
	}
	if (!v3 && !listed.signo) {
		/* every line from the first name's on is a name: what is before
		 * it is noise (a Catch2 that does not write the suffix: every
		 * line a name when as many as the exit status says) */
		size_t names = 0;
		for (const char *p = out + (first < 0 ? 0 : first), *end = out + len; p < end;
		     names++) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			p = nl ? nl + 1 : end;
		}
		int counted =
		    listed.status < 255 ? names % 256 == (size_t)listed.status : names >= 255;
		if (first >= 0 && !plain && counted)
			return (size_t)first;
		if (first < 0 && listed.status < 255 && lines == (size_t)listed.status)
			return 0;
	}
	int ncmd;
	char **cmd = shim_cmd(s, &ncmd);
	char **argv = calloc((size_t)ncmd + 10, sizeof(char *));
	char *none = NULL;
	size_t nlen = 0, skip = 0;
	mg_exit_end status;
	if (!argv)
		return 0;
	catch2_args(cmd, ncmd, argv, 2, v3);
	/* all of it: "exclude:*" excluded nothing (a Catch2 that reads it
	 * otherwise), so none of it is known to be noise */
	if (shim_capture(s, argv, &none, &nlen, &status) == 0 && !status.signo && nlen &&
	    nlen < len && !memcmp(none, out, nlen) && none[nlen - 1] == '\n')
		skip = nlen;
	free(none);
	free(argv);
	return skip;
}

/* A Catch2 test spec matching exactly name: quoted, its special bytes
 * escaped (Catch2 takes '\\' as an escape everywhere, ',' as a separator
 * even within quotes, '*' at either end as a wildcard); a name that starts
 * with "exclude:" by a wildcard for its first byte (another listed name
 * that ends as it does would run too). */
static void c2_spec(fbuf *b, const char *name, size_t n)
{
	gtest_filter_add(b, "\"", 1);
	size_t i = 0;
	if (n > 8 && !memcmp(name, "exclude:", 8)) {
		/* Catch2 takes a spec that starts so, quoted or escaped, for every
		 * test but the rest: "*xclude:..." matches the names that end so
		 * (a wildcard at the start; any case) */
		gtest_filter_add(b, "*", 1);
		i = 1;
	}
	for (; i < n; i++) {
		if (strchr("\\,\"*[]", name[i]))
			gtest_filter_add(b, "\\", 1);
		gtest_filter_add(b, name + i, 1);
	}
	gtest_filter_add(b, "\"\n", 2);
}

/* The program's argv (argc words) without the user's -a/-x (the shim
 * gives it what the run has left: catch2_begin), in place; the new count. */
static int c2_drop_abort(char **argv, int argc)
{
	int k = 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-a") || !strcmp(a, "--abort") || !strncmp(a, "-x=", 3) ||
		    !strncmp(a, "-x:", 3) || !strncmp(a, "--abortx=", 9) ||
		    !strncmp(a, "--abortx:", 9))
			continue;
		if ((!strcmp(a, "-x") || !strcmp(a, "--abortx")) && i + 1 < argc) {
			i++;
			continue;
		}
		argv[k++] = argv[i];
		if (c2_in(c2_valued, a) && i + 1 < argc)
			argv[k++] = argv[++i];
	}
	argv[k] = NULL;
	return k;
}

/*
 * Catch2 v3's --shard-index I of --shard-count n whose chunk of t tests
 * (its createShard: t / n each, the first t % n one more) is [from, from
 * + k): 1 and *i; 0 when none is (n < 2: no sharding).
 */
int catch2_chunk_of(size_t t, size_t n, size_t from, size_t k, size_t *i)
{
	size_t size = n ? t / n : 0, left = n ? t % n : 0, start = 0;
	for (size_t c = 0; n >= 2 && c < n && start <= from; c++) {
		size_t chunk = size + (c < left);
		if (start == from && chunk == k && k) {
			*i = c;
			return 1;
		}
		start += chunk;
	}
	return 0;
}

/* The run's lanes (MG_ENV_LANE "LANE/LANES/PID", which the runner gives a
 * v3 shim at -j 2 or more): LANES, or 0. */
static size_t c2_lanes(void)
{
	const char *v = getenv(MG_ENV_LANE), *slash = v ? strchr(v, '/') : NULL;
	char *end;
	unsigned long n = slash ? strtoul(slash + 1, &end, 10) : 0;
	return n && *end == '/' ? (size_t)n : 0;
}

/* 1 when the user's command has v3's --shard-count or --shard-index. */
static int c2_user_shards(char *const *cmd, int ncmd)
{
	for (int i = 1; i < ncmd; i++) {
		if (c2_shard_opt(cmd[i]))
			return 1;
		if (c2_in(c2_valued, cmd[i]))
			i++;
	}
	return 0;
}

/*
 * 1 when a listing's output (v3's quiet --list-tests) is exactly g->list,
 * in its order, one name a line and no other line: Catch2 then counts and
 * orders the tests as the list does, so its shards are the list's chunks.
 * A name of two test cases (v3's same name: g->list has it once), a static
 * constructor's line makes it 0.
 */
int catch2_out_is_list(const gtest *g, const char *out, size_t len)
{
	size_t total = shim_names_count(g->list), i = 0;
	const char *p = out, *end = out + len;
	int ok = out != NULL;
	for (; ok && p < end && i < total; i++) {
		size_t n, ln;
		const char *name = shim_names_at(g->list, i, &n);
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			break;
		ln = (size_t)(nl - p);
		if (ln && p[ln - 1] == '\r')
			ln--;
		if (ln >= 3 && p[0] == '"' && p[1] == '#' && p[ln - 1] == '"')
			ok = ln - 2 == n && !memcmp(p + 1, name, n);
		else
			ok = ln == n && !memcmp(p, name, n);
		p = nl + 1;
	}
	return ok && i == total && p == end;
}

/* catch2_out_is_list of the program run with argv (a CATCH2_RUN_SPECS run,
 * argc words, room for 4 more): a shim's check where the run's listing did
 * not say (g->c2_listed). Listed once a shim (g->c2_shardable). */
static int c2_lists_the_list(shim *s, gtest *g, char **argv, int argc)
{
	char *out = NULL;
	size_t len = 0;
	mg_exit_end status;
	argv[argc] = "--list-tests";
	argv[argc + 1] = "--verbosity";
	argv[argc + 2] = "quiet";
	argv[argc + 3] = NULL;
	int ok = shim_capture(s, argv, &out, &len, &status) == 0 && !status.signo &&
	         !status.status && catch2_out_is_list(g, out, len);
	free(out);
	argv[argc] = NULL;
	return ok;
}

/*
 * Catch2: the first k queued names (in its order), the XML reporter on
 * stdout, in the user's --order (the listing's). Catch2 matches every test
 * case against every name of a spec, so a batch given as names costs
 * tests x names: a batch that is the whole listing runs with the
 * listing's own arguments, one that is a chunk of v3's sharding
 * (policy_depth's shares are) with --shard-count/--shard-index, and only
 * any other batch (after a recycle, a --filter) as an --input-file.
 */
void catch2_begin(shim *s, gtest *g, size_t k)
{
	fbuf b = {0};
	int ncmd;
	char **cmd = shim_cmd(s, &ncmd);
	if (g->c2_abort[0]) { /* the run was aborted: a direct run stops there */
		shim_start(s);
		shim_result(s, MG_MSG_SKIP, g->c2_abort, strlen(g->c2_abort));
		return;
	}
	char **argv = calloc((size_t)ncmd + 20, sizeof(char *));
	size_t n0, nk, total = shim_names_count(g->list), shards = 0, index = 0;
	const char *first = shim_queue_name(s, 0, &n0), *last = shim_queue_name(s, k - 1, &nk);
	long from = shim_names_find(g->list, first, n0), to = shim_names_find(g->list, last, nk);
	/* batch_len: the names are in the list's order, so [from, to] is the
	 * batch when it has k names */
	int contiguous = from >= 0 && to >= from && (size_t)(to - from) + 1 == k;
	int whole = contiguous && from == 0 && k == total;
	int argc = 0, by_shard = 0;
	char shard_n[24], shard_i[24];
	/* the lanes' count: what policy_depth's shares are chunks of (any
	 * other count's chunk would do; this one is the shares before a
	 * recycle, so a shim after one seldom lists for nothing) */
	shards = c2_lanes();
	if (argv && !whole && contiguous && g->catch2_v3 && !c2_user_shards(cmd, ncmd) &&
	    catch2_chunk_of(total, shards, (size_t)from, k, &index)) {
		argc = catch2_args(cmd, ncmd, argv, CATCH2_RUN_SPECS, 1);
		/* the run's listing says (the listing host listed with these
		 * arguments: catch2_args's listing is the specs' run but for the
		 * user's shard options, which leave this out), else one more */
		if (!g->c2_shardable)
			g->c2_shardable = g->c2_listed == MG_LIST_CLEAN         ? 1
			                  : g->c2_listed == MG_LIST_UNCLEAN     ? -1
			                  : c2_lists_the_list(s, g, argv, argc) ? 1
			                                                        : -1;
		by_shard = g->c2_shardable > 0;
		snprintf(shard_n, sizeof(shard_n), "%zu", shards);
		snprintf(shard_i, sizeof(shard_i), "%zu", index);
		argv[argc++] = "--shard-count";
		argv[argc++] = shard_n;
		argv[argc++] = "--shard-index";
		argv[argc++] = shard_i;
		argv[argc] = NULL;
	}
	if (argv && whole) {
		argc = catch2_args(cmd, ncmd, argv, CATCH2_RUN_LISTED, g->catch2_v3);
	} else if (argv && !by_shard) {
		for (size_t i = 0; i < k; i++) {
			size_t n;
			const char *name = shim_queue_name(s, i, &n);
			c2_spec(&b, name, n);
		}
		if (b.bad || !b.p || gtest_filter_write(g, b.p, b.len) < 0) {
			free(argv);
			argv = NULL;
		}
		free(b.p);
	}
	if (!argv) {
		shim_start(s);
		shim_resultf(s, MG_MSG_FAIL, "cannot write the test list for %s", cmd[0]);
		return;
	}
	if (!whole && !by_shard)
		argc = catch2_args(cmd, ncmd, argv, 0, g->catch2_v3);
	/* the run's failures so far (other lanes', earlier generations'): the
	 * program stops at what is left of the user's -x, not at all of it */
	char left[24];
	driver_fail_fast ff;
	catch2_fail_fast(&ff, cmd, ncmd);
	unsigned n = g->fail_left > g->fails_sent ? g->fail_left - g->fails_sent : 1;
	if (ff.limit && g->fail_left && n < ff.limit) {
		snprintf(left, sizeof(left), "%u", n);
		argc = c2_drop_abort(argv, argc);
		argv[argc++] = "--abortx";
		argv[argc++] = left;
	}
	argv[argc++] = "--reporter";
	argv[argc++] = "xml";
	if (!whole && !by_shard) {
		argv[argc++] = "--input-file";
		argv[argc++] = g->filter_path;
	}
	argv[argc] = NULL;
	int rc = gtest_batch_spawn(s, g, argv, k, 0);
	free(argv);
	if (rc < 0)
		gtest_batch_failed(s, g, cmd[0]);
}

/* Catch2's -a/--abort or -x/--abortx N (also as -x=N, --abortx:N): the
 * last one given, as Catch2 takes it (driver.h). A value that is no number
 * of at least 1 is no limit (Catch2 refuses it itself). */
void catch2_fail_fast(driver_fail_fast *out, char *const *cmd, int ncmd)
{
	out->limit = 0;
	out->opt[0] = 0;
	for (int i = 1; i < ncmd; i++) {
		const char *a = cmd[i], *v = NULL;
		if (!strcmp(a, "-a") || !strcmp(a, "--abort")) {
			out->limit = 1;
			snprintf(out->opt, sizeof(out->opt), "%s", a);
			continue;
		}
		if ((!strcmp(a, "-x") || !strcmp(a, "--abortx")) && i + 1 < ncmd) {
			v = cmd[i + 1];
			snprintf(out->opt, sizeof(out->opt), "%s %.20s", a, v);
			i++;
		} else if (!strncmp(a, "-x=", 3) || !strncmp(a, "-x:", 3)) {
			v = a + 3;
			snprintf(out->opt, sizeof(out->opt), "%.30s", a);
		} else if (!strncmp(a, "--abortx=", 9) || !strncmp(a, "--abortx:", 9)) {
			v = a + 9;
			snprintf(out->opt, sizeof(out->opt), "%.30s", a);
		} else if (c2_in(c2_valued, a)) {
			i++; /* its value is no option */
		}
		if (v) {
			char *end;
			unsigned long n = strtoul(v, &end, 10);
			out->limit = *v >= '0' && *v <= '9' && !*end && n >= 1 && n <= 1000000
			                 ? (unsigned)n
			                 : 0;
		}
	}
	if (!out->limit)
		out->opt[0] = 0;
}

/* Clara's "--opt V", "--opt=V", "--opt:V" at cmd[*i]: V (moving *i past
 * it), or NULL when cmd[*i] is not opt. */
static const char *c2_opt_value(char *const *cmd, int ncmd, int *i, const char *opt)
{
	const char *a = cmd[*i];
	size_t n = strlen(opt);
	if (strncmp(a, opt, n))
		return NULL;
	if (!a[n])
		return *i + 1 < ncmd ? cmd[++*i] : NULL;
	return a[n] == '=' || a[n] == ':' ? a + n + 1 : NULL;
}

void catch2_order(driver_order *out, int v3, char *const *cmd, int ncmd)
{
	const char *seed = NULL;
	int seeds = 0;
	memset(out, 0, sizeof(*out));
	for (int i = 1; i < ncmd; i++) {
		const char *v;
		if ((v = c2_opt_value(cmd, ncmd, &i, "--order")) != NULL) {
			/* Catch2's setTestOrder: a prefix of "random" (the last one given) */
			out->shuffled = *v && !strncmp("random", v, strlen(v)) &&
			                strncmp("declared", v, strlen(v)) &&
			                strncmp("lexical", v, strlen(v));
			snprintf(out->opt, sizeof(out->opt), "--order %.40s", v);
		} else if ((v = c2_opt_value(cmd, ncmd, &i, "--rng-seed")) != NULL) {
			seed = v;
			seeds++;
		} else if (c2_in(c2_valued, cmd[i])) {
			i++; /* its value is no option */
		}
	}
	if (!out->shuffled)
		out->opt[0] = 0;
	/* v3 draws from std::random_device by default, v2 takes 0; a seed given
	 * twice is Catch2's usage error ("Unrecognised token"): nothing is
	 * drawn in its place, so the program refuses it under memguard too */
	out->draws = seeds > 1 ? 0
	             : seed    ? !strcmp(seed, "time") || !strcmp(seed, "random-device")
	                       : v3;
}

int catch2_aborted(shim *s, gtest *g, mg_exit_end status)
{
	driver_fail_fast ff;
	int ncmd;
	char **cmd = shim_cmd(s, &ncmd);
	if (!g->summary || !g->failed_any || status.signo || mg_exit_ok(status))
		return 0;
	catch2_fail_fast(&ff, cmd, ncmd);
	if (!ff.limit)
		return 0;
	driver_fail_fast_why(&ff, DRIVER_CATCH2, g->c2_abort, sizeof(g->c2_abort));
	return 1;
}

/* The running test case's program ended: of a signal Catch2 caught
 * (FatalErrorCondition), Catch2's report of it (where, which signal) is in
 * the test's output, the runner's message being how the host died. */
static void c2_message_end(gtest *g);

void catch2_died(shim *s, gtest *g, mg_exit_end status)
{
	c2_message_end(g); /* the message so far is the fail's, or the crash's output */
	if (!status.signo || !g->c2_fatal || !g->text_len)
		return;
	shim_output(s, g->text, g->text_len);
	if (g->text[g->text_len - 1] != '\n')
		shim_output(s, "\n", 1);
}

/* XML text (an attribute's value) decoded into out (at most cap - 1 bytes,
 * NUL-terminated): the entities Catch2's XmlEncode writes. Its length. */
static size_t xml_decode(const char *p, size_t n, char *out, size_t cap)
{
	size_t o = 0;
	for (size_t i = 0; i < n && o + 1 < cap; i++) {
		/* the run up to the next '&' copied whole (a name has none) */
		const char *amp = memchr(p + i, '&', n - i);
		size_t run = amp ? (size_t)(amp - p) - i : n - i;
		if (run > cap - 1 - o)
			run = cap - 1 - o;
		memcpy(out + o, p + i, run);
		o += run;
		i += run;
		if (i >= n || o + 1 >= cap)
			break;
		if (p[i] == '&') {
			static const struct {
				const char *ent;
				char c;
			} ents[] = {{"&amp;", '&'},
			            {"&lt;", '<'},
			            {"&gt;", '>'},
			            {"&quot;", '"'},
			            {"&apos;", '\''}};
			size_t k;
			for (k = 0; k < sizeof(ents) / sizeof(ents[0]); k++) {
				size_t el = strlen(ents[k].ent);
				if (n - i >= el && !memcmp(p + i, ents[k].ent, el)) {
					out[o++] = ents[k].c;
					i += el - 1;
					break;
				}
			}
			if (k < sizeof(ents) / sizeof(ents[0]))
				continue;
			if (n - i > 3 && p[i + 1] == '#') {
				char *e;
				int hex = p[i + 2] == 'x';
				unsigned long v = strtoul(p + i + 2 + hex, &e, hex ? 16 : 10);
				if (*e == ';' && v && v < 256) {
					out[o++] = (char)v;
					i = (size_t)(e - p);
					continue;
				}
			}
		}
		out[o++] = p[i];
	}
	out[o] = 0;
	return o;
}

/*
 * How much of p (n bytes, p[0] '<') is the reporter's element when the
 * program's text follows it on the line: Catch2's XmlWriter leaves a start
 * tag open (`<Group name="x"`, its '>' or "/>" written on its next write)
 * and the newline after an end tag (`</TestCase>`, `.../>`) until then, so
 * what the program prints there lands behind them. n when nothing follows,
 * and for an element ended by '>' (text after it is the element's own).
 */
/* A byte of an XML name as Catch2's reporter writes them (isalnum in the C
 * locale, '_', '-'), without a call. */
static int c2_name_byte(char c)
{
	unsigned char l = (unsigned char)(c | 0x20);
	return (l >= 'a' && l <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

static size_t c2_element(const char *p, size_t n)
{
	size_t i = 1;
	if (i < n && p[i] == '/')
		i++;
	size_t from = i;
	while (i < n && c2_name_byte(p[i]))
		i++;
	if (i == from)
		return n;
	int end_tag = p[1] == '/';
	while (!end_tag && i + 1 < n && p[i] == ' ') { /* name="value" */
		size_t j = i + 1;
		while (j < n && c2_name_byte(p[j]))
			j++;
		if (j == i + 1 || j + 1 >= n || p[j] != '=' || p[j + 1] != '"')
			return n;
		const char *q = memchr(p + j + 2, '"', n - j - 2);
		if (!q)
			return n;
		i = (size_t)(q - p) + 1;
	}
	if (end_tag)
		return i < n && p[i] == '>' ? i + 1 : n;
	if (i + 1 < n && p[i] == '/' && p[i + 1] == '>')
		return i + 2;
	if (i < n && p[i] == '>')
		return n;
	return i;
}

/* Catch2's trim (" \t\n\r"): its XML reporter writes a test case's name trimmed. */
static int c2_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void c2_trim(const char **p, size_t *n)
{
	while (*n && c2_space((*p)[0]))
		(*p)++, (*n)--;
	while (*n && c2_space((*p)[*n - 1]))
		(*n)--;
}

/* The batch's name the reporter's (trimmed) name stands for: itself, or a
 * queued name with white space at its ends ("basic async test " in spdlog's
 * tests, which Catch2 lists and runs as it is and reports trimmed). */
static const char *c2_queued_as(shim *s, gtest *g, const char *name, size_t *n)
{
	for (size_t k = 0; k < g->batch; k++) {
		size_t qn;
		const char *q = shim_queue_name(s, k, &qn);
		if (qn == *n && !memcmp(q, name, qn))
			return name;
	}
	for (size_t k = 0; k < g->batch; k++) {
		size_t qn;
		const char *q = shim_queue_name(s, k, &qn), *t = q;
		size_t tn = qn;
		c2_trim(&t, &tn);
		if (tn == *n && tn != qn && !memcmp(t, name, tn)) {
			*n = qn;
			return q;
		}
	}
	return name;
}

/*
 * A failure's message as Catch2's console reporter says it, from the XML
 * reporter's elements of it (before, the XML itself was the message, and
 * an expression's text the test's output):
 *   FILE:LINE: FAILED:
 *     REQUIRE( a == b )
 *   with expansion:
 *     1 == 2
 *   with messages:
 *     an INFO before it
 *     another
 * an exception's "due to unexpected exception with message:", a FAIL()'s
 * "explicitly with message:", a *_THROWS* that did not throw "because no
 * exception was thrown where one was expected:", a signal's "due to a
 * fatal error condition:", v3's SKIP() "SKIPPED:", a WARN's "warning:"
 * (the labels of Catch2's ConsoleAssertionPrinter; its INFOs, written in
 * front of the assertion, are said after it, as the console does).
 */
enum {
	C2_IN_OUT,      /* outside an assertion: text is the test's output */
	C2_IN_DROP,     /* a passed Expression (-s): none of it said */
	C2_IN_EXPR,     /* a failed Expression, between its parts */
	C2_IN_ORIGINAL, /* ... its Original: the macro's argument */
	C2_IN_EXPANDED, /* ... its Expanded: said when it differs */
	C2_IN_MSG       /* an Info, Exception, Failure, Skip, Warning, FatalErrorCondition */
};
enum {                       /* c2_expr */
       C2_EXPR_OPEN = 1,     /* a failed Expression is open */
       C2_EXPR_THREW = 2,    /* ... it holds an Exception */
       C2_EXPR_FATAL = 4,    /* ... it holds a FatalErrorCondition */
       C2_EXPR_EXPANDED = 8, /* ... its expansion was said */
};

/* The labels said both of an Expression's and of a standalone element. */
static const char c2_threw[] = "due to unexpected exception with message";
static const char c2_fatal[] = "due to a fatal error condition";

/* What a message cut for want of room says: at its end (the message's
 * 8 KiB), after an assertion's texts (their 2 KiB), in a line (4 KiB). The
 * test's output does not have the rest: Catch2 wrote it in its XML only.
 * A message that fits is kept whole: the room for a note is taken back
 * from the text only once it is cut. */
static const char c2_cut_note[] = "\n[memguard: the message is cut here, at 8 KiB]\n";
static const char c2_msgs_note[] = "  [memguard: the texts are cut here, at 2 KiB]\n";
static const char c2_line_note[] = " [memguard: the line is cut here, at 4 KiB]";

/* Appends to the message while it has room. */
static void c2_say(gtest *g, const char *p, size_t n)
{
	size_t room = g->text_len < sizeof(g->text) ? sizeof(g->text) - g->text_len : 0;
	if (n > room) {
		n = room;
		g->c2_cut = 1;
	}
	memcpy(g->text + g->text_len, p, n);
	g->text_len += n;
}

/* The running test case's message ends: where it was cut (c2_say), its end
 * gives way to the note that says so. */
static void c2_message_end(gtest *g)
{
	if (!g->c2_cut)
		return;
	size_t cap = sizeof(g->text) - (sizeof(c2_cut_note) - 1);
	if (g->text_len > cap)
		g->text_len = cap;
	memcpy(g->text + g->text_len, c2_cut_note, sizeof(c2_cut_note) - 1);
	g->text_len += sizeof(c2_cut_note) - 1;
	g->c2_cut = 0;
}

/* The value of attribute name of the tag (p, n), decoded into out ("" when
 * it has none). */
static void c2_attr(const char *p, size_t n, const char *name, char *out, size_t cap)
{
	char pat[32];
	int pn = snprintf(pat, sizeof(pat), " %s=\"", name);
	const char *v = memmem(p, n, pat, (size_t)pn), *e;
	out[0] = 0;
	if (v && (e = memchr(v + pn, '"', (size_t)(p + n - v - pn))) != NULL)
		xml_decode(v + pn, (size_t)(e - v - pn), out, cap);
}

/* "FILE:LINE: what" of the tag's filename and line. */
static void c2_where(gtest *g, const char *p, size_t n, const char *what)
{
	char file[1024], line[24], buf[1100];
	c2_attr(p, n, "filename", file, sizeof(file));
	c2_attr(p, n, "line", line, sizeof(line));
	int k = snprintf(buf, sizeof(buf), "%s%s%s%s%s\n", file, *line ? ":" : "", line,
	                 *file ? ": " : "", what);
	c2_say(g, buf, k < (int)sizeof(buf) ? (size_t)k : sizeof(buf) - 1);
}

/* The assertion's label, "s" after it for more than one message when
 * plural, said when it has messages or always; then its messages. */
static void c2_said(gtest *g, const char *label, int plural, int always)
{
	if (always || g->c2_nmsgs) {
		c2_say(g, label, strlen(label));
		if (plural && g->c2_nmsgs > 1)
			c2_say(g, "s", 1);
		c2_say(g, ":\n", 2);
	}
	size_t keep = g->c2_msgs_len, cap = sizeof(g->c2_msgs) - sizeof(c2_msgs_note);
	if (g->c2_msgs_cut && keep > cap) /* room for the note (and a newline) */
		keep = cap;
	c2_say(g, g->c2_msgs, keep);
	if (g->c2_msgs_cut) {
		if (keep && g->c2_msgs[keep - 1] != '\n')
			c2_say(g, "\n", 1);
		c2_say(g, c2_msgs_note, sizeof(c2_msgs_note) - 1);
	}
	g->c2_msgs_len = 0;
	g->c2_nmsgs = 0;
	g->c2_msgs_cut = 0;
}

/* A *_FALSE macro's Original is "!(X)" (Catch2's getExpression, which its
 * Expanded is compared with), and the console says "CHECK_FALSE( X )" (its
 * getExpressionInMacro): the "!(" and ")" taken out of the text said. */
static void c2_unfalse(gtest *g)
{
	size_t from = g->c2_orig[0], to = g->c2_orig[1];
	if (!strstr(g->c2_macro, "_FALSE") || to - from < 3 || to > g->text_len ||
	    memcmp(g->text + from, "!(", 2) || g->text[to - 1] != ')')
		return;
	memmove(g->text + to - 1, g->text + to, g->text_len - to);
	memmove(g->text + from, g->text + from + 2, g->text_len - 1 - from - 2);
	g->text_len -= 3;
}

/* An element's tag of the running test case's XML (p, n: the line from
 * its '<'): its part of the message, and where c2_in is after it. */
static void c2_tag(gtest *g, const char *p, size_t n)
{
	int end = n > 1 && p[1] == '/';
	const char *nm = p + 1 + end;
	size_t nl = 0;
	while (nm + nl < p + n && !strchr(" />", nm[nl]))
		nl++;
	int closed = !end && n >= 2 && !memcmp(p + n - 2, "/>", 2);
	int open = (g->c2_expr & C2_EXPR_OPEN) != 0; /* inside a failed Expression */
#define C2_IS(tag) (nl == sizeof(tag) - 1 && !memcmp(nm, tag, nl))
	if (C2_IS("Expression") && !end) {
		char ok[8];
		c2_attr(p, n, "success", ok, sizeof(ok));
		g->c2_expr = 0;
		if (strcmp(ok, "false")) { /* a pass, with -s: not said, nor its INFOs */
			g->c2_msgs_len = 0;
			g->c2_nmsgs = 0;
			g->c2_msgs_cut = 0;
			g->c2_in = closed ? C2_IN_OUT : C2_IN_DROP;
			return;
		}
		g->c2_assert_failed = 1; /* maybe as expected ([!shouldfail]): not a skip */
		c2_where(g, p, n, "FAILED:");
		c2_attr(p, n, "type", g->c2_macro, sizeof(g->c2_macro));
		g->c2_expr = C2_EXPR_OPEN;
		g->c2_in = C2_IN_EXPR;
		if (closed)
			c2_tag(g, "</Expression>", 13);
	} else if (C2_IS("Expression")) {
		if (open) {
			c2_unfalse(g);
			if (g->c2_expr & C2_EXPR_THREW)
				c2_said(g, c2_threw, 1, 1);
			else if (g->c2_expr & C2_EXPR_FATAL)
				c2_said(g, c2_fatal, 0, 1);
			else if (strstr(g->c2_macro, "THROWS") && !(g->c2_expr & C2_EXPR_EXPANDED))
				/* failed without an exception or an expansion: did not throw */
				c2_said(g, "because no exception was thrown where one was expected",
				        0, 1);
			else
				c2_said(g, "with message", 1, 0);
		}
		g->c2_expr = 0;
		g->c2_in = C2_IN_OUT;
	} else if (C2_IS("Original") && g->c2_in == C2_IN_EXPR && !end) {
		c2_say(g, "  ", 2);
		if (*g->c2_macro) { /* MACRO( expression ), or the expression alone */
			c2_say(g, g->c2_macro, strlen(g->c2_macro));
			c2_say(g, "( ", 2);
		}
		g->c2_orig[0] = g->c2_orig[1] = g->text_len;
		g->c2_in = C2_IN_ORIGINAL;
	} else if (C2_IS("Original") && g->c2_in == C2_IN_ORIGINAL) {
		g->c2_orig[1] = g->text_len;
		c2_say(g, *g->c2_macro ? " )\n" : "\n", *g->c2_macro ? 3 : 1);
		g->c2_in = C2_IN_EXPR;
	} else if (C2_IS("Expanded") && g->c2_in == C2_IN_EXPR && !end) {
		g->c2_expanded = g->text_len;
		c2_say(g, "with expansion:\n  ", 18);
		g->c2_exp_from = g->text_len;
		g->c2_in = C2_IN_EXPANDED;
	} else if (C2_IS("Expanded") && g->c2_in == C2_IN_EXPANDED) {
		size_t on = g->c2_orig[1] - g->c2_orig[0], en = g->text_len - g->c2_exp_from;
		if (on == en && !memcmp(g->text + g->c2_orig[0], g->text + g->c2_exp_from, on)) {
			g->text_len = g->c2_expanded; /* as the console: only a new text */
		} else {
			c2_say(g, "\n", 1);
			g->c2_expr |= C2_EXPR_EXPANDED;
		}
		g->c2_in = C2_IN_EXPR;
	} else if (C2_IS("Info") || C2_IS("Exception") || C2_IS("FatalErrorCondition") ||
	           C2_IS("Failure") || C2_IS("Skip") || C2_IS("Warning")) {
		int info = C2_IS("Info"), exc = C2_IS("Exception"),
		    fatal = C2_IS("FatalErrorCondition");
		if (!end) {
			if (exc || C2_IS("Failure")) /* a failed assertion: as an Expression's */
				g->c2_assert_failed = 1;
			if (open) /* an Expression's: said at its end */
				g->c2_expr |= exc ? C2_EXPR_THREW : fatal ? C2_EXPR_FATAL : 0;
			else if (!info && !C2_IS("Warning"))
				c2_where(g, p, n, C2_IS("Skip") ? "SKIPPED:" : "FAILED:");
			g->c2_in = C2_IN_MSG;
		}
		if (end || closed) {
			if (open)
				g->c2_in = C2_IN_EXPR;
			else if (info)
				g->c2_in = C2_IN_OUT;
			else {
				if (exc)
					c2_said(g, c2_threw, 1, 1);
				else if (fatal)
					c2_said(g, c2_fatal, 0, 1);
				else if (C2_IS("Warning"))
					c2_said(g, "warning", 0, 1);
				else
					c2_said(g, "explicitly with message", 1, 0);
				g->c2_in = C2_IN_OUT;
			}
		}
	}
	/* else: a Section, its OverallResults, StdOut, StdErr: no message */
#undef C2_IS
}

/* A line of text of the running test case's XML (p, n, indented) inside an
 * assertion's element: its message's; 0 when it is outside them (the
 * test's output). */
static int c2_text(gtest *g, const char *p, size_t n)
{
	if (g->c2_in == C2_IN_OUT)
		return 0;
	while (n && (*p == ' ' || *p == '\t'))
		p++, n--;
	char t[4096];
	int long_line = n >= sizeof(t); /* its end is not said: cut here */
	size_t tn = xml_decode(p, long_line ? sizeof(t) - 1 : n, t, sizeof(t));
	switch (g->c2_in) {
	case C2_IN_ORIGINAL:
	case C2_IN_EXPANDED: /* a text of many lines: each after the first indented */
		if (g->text_len > (g->c2_in == C2_IN_ORIGINAL ? g->c2_orig[0] : g->c2_exp_from))
			c2_say(g, "\n  ", 3);
		c2_say(g, t, tn);
		if (long_line)
			c2_say(g, c2_line_note, sizeof(c2_line_note) - 1);
		if (g->c2_in == C2_IN_ORIGINAL)
			g->c2_orig[1] = g->text_len;
		break;
	case C2_IN_MSG: {
		/* as much as has room, a cut said (c2_said); before, a text too
		 * long for it was dropped whole (FAIL() with 5,000 bytes left
		 * "FILE:LINE: FAILED:" alone), then cut without a word */
		size_t cap = sizeof(g->c2_msgs);
		if (long_line || g->c2_msgs_len + 4 > cap || tn > cap - g->c2_msgs_len - 3)
			g->c2_msgs_cut = 1;
		if (g->c2_msgs_len + 4 <= cap) {
			size_t room = cap - g->c2_msgs_len - 3;
			tn = tn < room ? tn : room;
			memcpy(g->c2_msgs + g->c2_msgs_len, "  ", 2);
			memcpy(g->c2_msgs + g->c2_msgs_len + 2, t, tn);
			g->c2_msgs[g->c2_msgs_len + 2 + tn] = '\n';
			g->c2_msgs_len += tn + 3;
			g->c2_nmsgs++;
		}
		break;
	}
	default: /* a passed Expression's, or between a failed one's parts */
		break;
	}
	return 1;
}

/* A test case's <OverallResult success="..." [skips="N"]/> (p, n): 1 when
 * it is one, its success in c2_ok and v3's skips (SKIP()) in c2_skipped. */
static int c2_overall(gtest *g, const char *p, size_t n)
{
	if (n < 30 || memcmp(p, "<OverallResult success=\"", 24))
		return 0;
	const char *sk = NULL, *e = p + n;
	for (const char *q = p + 24; !sk && (q = memchr(q, ' ', (size_t)(e - q))); q++)
		if (e - q >= 9 && !memcmp(q, " skips=\"", 8))
			sk = q;
	g->c2_ok = !memcmp(p + 24, "true\"", 5);
	g->c2_skipped = sk && sk[8] >= '1' && sk[8] <= '9';
	return 1;
}

/* Whether the rest of a <TestCase name="..." line (from the name's closing
 * quote q to e) has tags="..." holding [!shouldfail] (lowercase: Catch2
 * refuses a program whose special tag is written otherwise). */
static int c2_tagged_shouldfail(const char *q, const char *e)
{
	if (!q)
		return 0;
	const char *t = memmem(q, (size_t)(e - q), " tags=\"", 7);
	if (!t)
		return 0;
	t += 7;
	const char *end = memchr(t, '"', (size_t)(e - t));
	return memmem(t, (size_t)((end ? end : e) - t), "[!shouldfail]", 13) != NULL;
}

/* The test case's end as Catch2 counts it (Totals::delta): failed, failed
 * as expected (a pass), skipped (v3's SKIP()), passed. */
static mg_msg_kind c2_verdict(gtest *g)
{
	int skip = g->c2_ok && g->c2_skipped && !g->c2_assert_failed;
	g->c2_unskipped |= !skip;
	return !g->c2_ok ? MG_MSG_FAIL : skip ? MG_MSG_SKIP : MG_MSG_PASS;
}

/* A line of a test case whose name the batch has answered already
 * (gtest_dup_run): its failure is the entry "NAME#nth", fail (its XML the
 * message); passed or skipped, nothing but that it ran. */
static void c2_dup_line(shim *s, gtest *g, const char *p, size_t n)
{
	if (c2_overall(g, p, n))
		return;
	if (n < 11 || memcmp(p, "</TestCase>", 11)) {
		if (n && *p == '<')
			c2_tag(g, p, n);
		else
			c2_text(g, p, n);
		return;
	}
	c2_message_end(g);
	if (c2_verdict(g) == MG_MSG_FAIL) {
		char entry[1100];
		int en =
		    snprintf(entry, sizeof(entry), "%.*s#%u", (int)g->dup_len, g->dup, g->dup_nth);
		shim_extra(s, MG_MSG_FAIL, entry, (size_t)en, g->text, g->text_len);
		g->failed_any = 1;
	}
	g->dup_running = 0;
	g->text_len = 0;
	g->fig_pending = 0; /* its end's figures: no test's of ours */
	/* its stderr's mark (the probe's err before its end) is consumed when
	 * the pipe's next end is read (probe_take: another test's) */
	g->fig_why[0] = 0;
}

/* A line of the test's own output. Not its failure's message, as in
 * GoogleTest, where the message is what the test printed: Catch2's is its
 * XML's assertions (before, a test that printed "....." before failing had
 * "....." in its message as well as in its output). */
static void c2_output(shim *s, const char *line, size_t len)
{
	shim_output(s, line, len);
	shim_output(s, "\n", 1);
}

/* 1 when the line p..n (p[0] '<') is an element Catch2's XML reporter
 * writes (v2 and v3), by its name; else it is the program's text (before,
 * such a line, "<root>" a test printed, was dropped). Inside a test case
 * its indentation tells the reporter's from the program's (c2_nested). */
static int c2_reporters(const char *p, size_t n)
{
#define C2_NAME(x)                                                                                 \
	{                                                                                          \
		x, sizeof(x) - 1                                                                   \
	}
	static const struct {
		const char *name;
		size_t len;
	} names[] = {/* a test case's own first */
	             C2_NAME("TestCase"),
	             C2_NAME("OverallResult"),
	             C2_NAME("Section"),
	             C2_NAME("Expression"),
	             C2_NAME("Original"),
	             C2_NAME("Expanded"),
	             C2_NAME("Info"),
	             C2_NAME("StdOut"),
	             C2_NAME("StdErr"),
	             C2_NAME("?xml"),
	             C2_NAME("Catch"),
	             C2_NAME("Catch2TestRun"),
	             C2_NAME("Group"),
	             C2_NAME("Exception"),
	             C2_NAME("FatalErrorCondition"),
	             C2_NAME("Warning"),
	             C2_NAME("Failure"),
	             C2_NAME("Skip"),
	             C2_NAME("OverallResults"),
	             C2_NAME("OverallResultsCases"),
	             C2_NAME("Randomness"),
	             C2_NAME("BenchmarkResults"),
	             C2_NAME("mean"),
	             C2_NAME("standardDeviation"),
	             C2_NAME("outliers"),
	             C2_NAME("failed")};
#undef C2_NAME
	size_t from = n > 1 && p[1] == '/' ? 2 : 1, k = from;
	while (k < n && p[k] != ' ' && p[k] != '\t' && p[k] != '/' && p[k] != '>')
		k++;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].len == k - from && !memcmp(p + from, names[i].name, k - from))
			return 1;
	return 0;
}

/* The least indentation the XmlWriter gives the reporter's element p..n
 * (c2_reporters') around the running test case: none for the XML
 * declaration, the test case's own for its start and end tags (2 before
 * the first), two spaces more for everything inside it. */
static size_t c2_depth(const gtest *g, const char *p, size_t n)
{
	if (n >= 5 && !memcmp(p, "<?xml", 5))
		return 0;
	if ((n > 10 && !memcmp(p, "<TestCase ", 10)) || (n >= 11 && !memcmp(p, "</TestCase>", 11)))
		return g->c2_indent ? g->c2_indent : 2;
	return g->c2_indent + 2;
}

/* The first of the reporter's elements in the text p..e that a test's
 * printf output without its newline runs into, or NULL. The XmlWriter
 * indents its element there all the same (its pending newline is what the
 * text took), as deep as it nests (c2_depth), so that the program's own
 * "<Failure>" in a sentence is no element. */
static const char *c2_reporter_at(const gtest *g, const char *p, const char *e)
{
	for (const char *at = p; (at = memchr(at, '<', (size_t)(e - at))) != NULL; at++) {
		const char *b = at;
		while (b > p && (b[-1] == ' ' || b[-1] == '\t'))
			b--;
		size_t n = (size_t)(e - at);
		if (c2_reporters(at, n) && (size_t)(at - b) >= c2_depth(g, at, n))
			return at;
	}
	return NULL;
}

/* 1 when the reporter's element p..n, indented by indent, inside the
 * running test case is where the XmlWriter puts its own (c2_depth): its
 * end tag and OverallResult exactly there (OverallResult deeper after a
 * fatal signal: Catch2 v2 closes no section then), every other element at
 * least there, and no test case's start nor XML declaration. glued: it
 * followed the program's text on its line, whose own trailing blanks may
 * come before its indentation. The program's text that looks like them is no verdict and
 * no message: its output. */
static int c2_nested(const gtest *g, const char *p, size_t n, size_t indent, int glued)
{
	size_t want = c2_depth(g, p, n);
	if ((n > 10 && !memcmp(p, "<TestCase ", 10)) || (n >= 5 && !memcmp(p, "<?xml", 5)))
		return 0;
	int exact = (n >= 11 && !memcmp(p, "</TestCase>", 11)) ||
	            (n > 24 && !memcmp(p, "<OverallResult success=\"", 24) && !g->c2_fatal);
	return exact && !glued ? indent == want : indent >= want;
}

/* Catch2's XML reporter, a line at a time (glued: the line followed the
 * program's text, c2_reporter_at): a test case's start tag, its
 * OverallResult, its end tag; inside a test case the rest is kept for a
 * failure's message, and text that is not XML (the program's own printf
 * output) is the test's output. */
static void c2_line(shim *s, gtest *g, char *line, size_t len, int glued)
{
	const char *p = line, *e = line + len;
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	size_t n = (size_t)(e - p), indent = (size_t)(p - line);
	if ((n == 1 && *p == '>') || (n == 2 && !memcmp(p, "/>", 2)))
		return; /* the reporter closing a tag the program's text came after */
	int ours = n && *p == '<' && c2_reporters(p, n); /* by its name */
	if (ours && g->c2_closed && shim_head_started(s))
		return; /* the totals and end tags Catch2 writes before it re-raises */
	size_t el = ours ? c2_element(p, n) : n;
	if (el < n) { /* the program's text after the reporter's element: read on */
		c2_line(s, g, line, (size_t)(p - line) + el, glued);
		c2_line(s, g, (char *)p + el, n - el, 0);
		return;
	}
	if (g->summary) { /* after the run's totals: the program's own text is kept */
		if (n && *p != '<')
			gtest_outside_between(s, g, line, len, 1);
		return;
	}
	/* a test's printf output without a final newline is in front of the
	 * reporter's next element: it is the test's, the element is read on */
	if (n && !ours) {
		const char *cut = c2_reporter_at(g, p + 1, e);
		if (cut) {
			const char *te = cut; /* without the element's indentation */
			while (te > p && (te[-1] == ' ' || te[-1] == '\t'))
				te--;
			c2_output(s, line, (size_t)(te - line));
			c2_line(s, g, (char *)te, (size_t)(e - te), 1);
			return;
		}
	}
	if (ours && (g->dup_running || shim_head_started(s)) &&
	    !c2_nested(g, p, n, indent, glued)) {
		c2_output(s, line, len); /* the program's look-alike: printed */
		return;
	}
	if (n > 16 && !memcmp(p, "<TestCase name=\"", 16)) {
		const char *nm = p + 16, *q = memchr(nm, '"', (size_t)(e - nm));
		size_t en = q ? (size_t)(q - nm) : (size_t)(e - nm);
		char name[4096];
		g->c2_enc_len = en < 4000 ? en : 4000;
		memcpy(g->c2_enc, nm, g->c2_enc_len);
		size_t dn = xml_decode(nm, en, name, sizeof(name));
		g->c2_ok = 0;
		g->c2_skipped = 0;
		g->c2_assert_failed = 0;
		g->c2_shouldfail = c2_tagged_shouldfail(q, e);
		g->c2_fatal = 0;
		g->c2_closed = 0;
		g->c2_in = C2_IN_OUT;
		g->c2_expr = 0;
		g->c2_msgs_len = 0;
		g->c2_nmsgs = 0;
		g->c2_msgs_cut = 0;
		g->c2_cut = 0;
		g->c2_indent = indent;
		const char *qname = c2_queued_as(s, g, name, &dn);
		if (!shim_head_started(s) && gtest_dup_run(s, g, qname, dn)) {
			g->text_len = 0;
			return;
		}
		gtest_on_run(s, g, qname, dn);
		return;
	}
	if (g->dup_running) {
		c2_dup_line(s, g, p, n);
		return;
	}
	if (!shim_head_started(s)) {
		if (n > 15 && !memcmp(p, "<OverallResults", 15))
			g->summary = 1; /* the group's totals: the tests have run */
		else if (n && !ours)    /* the program's text between test cases (a static
		                         * constructor's, a listener's): as GoogleTest's */
			gtest_outside_between(s, g, line, len, 1);
		return;
	}
	if (c2_overall(g, p, n))
		return;
	if (n > 20 && !memcmp(p, "<FatalErrorCondition", 20))
		g->c2_fatal = 1;
	if (n >= 11 && !memcmp(p, "</TestCase>", 11)) {
		/* after a fatal signal Catch2 closes its XML and re-raises it: the
		 * test stays started, so the program's death is its crash (and the
		 * tests after it run in a fresh program) */
		c2_message_end(g);
		if (g->c2_fatal) {
			g->c2_closed = 1;
			return;
		}
		mg_msg_kind v = c2_verdict(g);
		if (v == MG_MSG_FAIL && !g->c2_assert_failed) {
			/* Catch2 fails a test case none of whose assertions failed
			 * in two ways, neither in its XML: a [!shouldfail] one that
			 * passed, and under -w NoAssertions one (or a section of
			 * one) with no assertion (before: an empty message). Its own
			 * messages (a WARN, an INFO) after the reason. */
			const char *why =
			    g->c2_shouldfail
			        ? "passed, but it is tagged [!shouldfail]: Catch2 counts that as a "
			          "failure"
			        : "no assertion failed: under -w NoAssertions Catch2 fails a test "
			          "case, or a section of one, that has no assertion (its console: "
			          "\"No assertions in ...\")";
			size_t wl = strlen(why), n = wl + (g->text_len ? 2 + g->text_len : 0);
			char *m = malloc(n + 1);
			if (m) {
				memcpy(m, why, wl);
				if (g->text_len) {
					memcpy(m + wl, "; ", 2);
					memcpy(m + wl + 2, g->text, g->text_len);
				}
			}
			gtest_end(s, g, v, m ? m : why, m ? n : wl);
			free(m);
			return;
		}
		gtest_end(s, g, v, g->text, g->text_len);
		return;
	}
	if (n && *p != '<' && c2_text(g, p, n))
		return;          /* an assertion's text: its message's */
	if (n && *p != '<') {    /* the program's printf, or captured text (XML-encoded) */
		char text[4096]; /* a longer line decoded whole (before: cut at 4 KiB
		                  * without a word, and Catch2 had its rest in the XML only) */
		char *t = len < sizeof(text) ? text : malloc(len + 1);
		if (!t) {
			c2_output(s, line, len);
			return;
		}
		c2_output(s, t, xml_decode(line, len, t, len + 1));
		if (t != text)
			free(t);
		return;
	}
	if (!ours) {
		c2_output(s, line, len); /* the program's own "<...>" text */
		return;
	}
	c2_tag(g, p, n); /* an assertion's: its message, as Catch2's console says it */
}

void catch2_line(shim *s, gtest *g, char *line, size_t len)
{
	c2_line(s, g, line, len, 0);
}

int catch2_main(const shim_args *a)
{
	/* the runner's reading of the program (--catch2-v3): not read again */
	return gtest_run(a, 1, a->catch2_v3 >= 0 ? a->catch2_v3 : driver_catch2_v3(a->cmd[0]));
}

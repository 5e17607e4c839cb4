/*
 * test_help.c - memguard's help and "did you mean": every command's help
 * (help help, help version too), help report listing every adapter with its
 * default file and the details, the edit distance, and the suggestion a
 * mistyped command, run option, config key or report option gets. Runs the
 * real binary (MEMGUARD_BIN).
 */
#include "adapters.h"
#include "mg_run.h"
#include "mg_suggest.h"

static void distance(void)
{
	CU_ASSERT_EQUAL(suggest_distance("run", "run"), 0);
	CU_ASSERT_EQUAL(suggest_distance("rnu", "run"), 1); /* a swap */
	CU_ASSERT_EQUAL(suggest_distance("--jbos", "--jobs"), 1);
	CU_ASSERT_EQUAL(suggest_distance("comapre", "compare"), 1);
	CU_ASSERT_EQUAL(suggest_distance("kitten", "sitting"), 3);
	CU_ASSERT_EQUAL(suggest_distance("", "log"), 3);
	static const char *const words[] = {"run", "list", "log", "note", "notes-merge", "show"};
	CU_ASSERT_STRING_EQUAL(suggest_word("rnu", words, 6), "run");
	CU_ASSERT_STRING_EQUAL(suggest_word("notes-mrege", words, 6), "notes-merge");
	CU_ASSERT_STRING_EQUAL(suggest_word("sh", words, 6), "show"); /* the one prefix */
	CU_ASSERT_PTR_NULL(suggest_word("xyzzy", words, 6));
	CU_ASSERT_PTR_NULL(suggest_word("no", words, 6)); /* two prefixes, none at 1 */
	char near[64];
	CU_ASSERT_EQUAL(suggest_option(near, sizeof(near), "--recyle-at",
	                               "  --recycle-at LIMITS  x\n  --kill-at L\n"),
	                0);
	CU_ASSERT_STRING_EQUAL(near, "--recycle-at");
	CU_ASSERT_EQUAL(suggest_option(near, sizeof(near), "--frobnicate", "  --jobs N\n"), -1);
	CU_ASSERT_STRING_EQUAL(near, "");
}

static void help_every_command(void)
{
	outcome o;
	mg(&o, ARGV("help"), NULL, 0);
	CU_ASSERT(exited_with(&o, 0));
	char overview[sizeof(o.out)];
	memcpy(overview, o.out, sizeof(overview));
	done(&o);
	int n = 0;
	for (char *line = strtok(overview, "\n"); line; line = strtok(NULL, "\n")) {
		char cmd[32];
		if (strncmp(line, "  ", 2) || line[2] < 'a' || line[2] > 'z' ||
		    sscanf(line + 2, "%31s", cmd) != 1)
			continue;
		n++;
		outcome h;
		mg(&h, ARGV("help", cmd), NULL, 0);
		CU_ASSERT(exited_with(&h, 0));
		char want[64];
		snprintf(want, sizeof(want), "memguard %s", cmd); /* list shares run's */
		const char *u = strstr(h.out, want);
		int ok =
		    !strncmp(h.out, "usage: memguard ", 16) && u && strchr(" \n", u[strlen(want)]);
		if (!ok)
			fprintf(stderr, "help %s: %.200s\n", cmd, h.out);
		CU_ASSERT(ok);
		CU_ASSERT(strchr(h.out, '\n') != strrchr(h.out, '\n')); /* more than a line */
		for (char *l = h.out; *l;) {                            /* 80 columns */
			size_t len = strcspn(l, "\n");
			if (len > 80)
				fprintf(stderr, "help %s: %zu columns: %.*s\n", cmd, len, (int)len,
				        l);
			CU_ASSERT(len <= 80);
			l += len + (l[len] == '\n');
		}
		done(&h);
	}
	CU_ASSERT(n >= 12); /* run ... version, help */
}

static void help_report_adapters(void)
{
	outcome o;
	mg(&o, ARGV("help", "report"), NULL, 0);
	CU_ASSERT(exited_with(&o, 0));
	for (const char *const *a = adapters_names(); *a; a++) {
		char line[32];
		snprintf(line, sizeof(line), "\n  %s ", *a);
		if (!strstr(o.out, line))
			fprintf(stderr, "help report lacks adapter %s\n", *a);
		CU_ASSERT(strstr(o.out, line) != NULL);
	}
	static const char *const must[] = {"memguard-junit.xml",
	                                   "memguard-gitlab/",
	                                   "memguard-report.html",
	                                   "memguard-summary-node-N.md",
	                                   "informative",
	                                   "properties",
	                                   "none"};
	for (size_t i = 0; i < sizeof(must) / sizeof(must[0]); i++)
		CU_ASSERT(strstr(o.out, must[i]) != NULL);
	done(&o);
	mg(&o, ARGV("report", "--help"), NULL, 0); /* the same text */
	CU_ASSERT(exited_with(&o, 0));
	CU_ASSERT(strstr(o.out, "memguard-junit.xml") != NULL);
	done(&o);
}

static void did_you_mean_command(void)
{
	outcome o;
	mg(&o, ARGV("rnu", "--", "/bin/true"), NULL, 0);
	CU_ASSERT(exited_with(&o, 2));
	CU_ASSERT(strstr(o.err, "unknown command 'rnu'; did you mean 'run'?") != NULL);
	done(&o);
	mg(&o, ARGV("help", "comapre"), NULL, 0);
	CU_ASSERT(exited_with(&o, 2));
	CU_ASSERT(strstr(o.err, "did you mean 'compare'?") != NULL);
	done(&o);
	mg(&o, ARGV("xyzzy"), NULL, 0);
	CU_ASSERT(exited_with(&o, 2));
	CU_ASSERT(strstr(o.err, "unknown command 'xyzzy'") != NULL);
	CU_ASSERT(strstr(o.err, "did you mean") == NULL);
	done(&o);
}

static void did_you_mean_option(void)
{
	outcome o;
	mg(&o, ARGV("run", "--recyle-at", "va=1G", "--", "/bin/true"), NULL, 0);
	CU_ASSERT(exited_with(&o, 2));
	CU_ASSERT(strstr(o.err, "unknown option '--recyle-at'; did you mean '--recycle-at'?") !=
	          NULL);
	done(&o);
	mg(&o, ARGV("run", "--jbos=2", "--", "/bin/true"), NULL, 0);
	CU_ASSERT(exited_with(&o, 2));
	CU_ASSERT(strstr(o.err, "did you mean '--jobs'?") != NULL);
	done(&o);
	mg(&o, ARGV("report", "--adaptr", "junit", "r.json"), NULL, 0);
	CU_ASSERT(exited_with(&o, 2));
	CU_ASSERT(strstr(o.err, "did you mean '--adapter'?") != NULL);
	done(&o);
	mg(&o, ARGV("run", "--frobnicate", "--", "/bin/true"), NULL, 0);
	CU_ASSERT(exited_with(&o, 2));
	CU_ASSERT(strstr(o.err, "unknown option '--frobnicate'") != NULL);
	CU_ASSERT(strstr(o.err, "did you mean") == NULL);
	done(&o);
	/* the per-commit commands: the options of their own help */
	mg(&o, ARGV("compare", "--max-grwth", "va=1%", "a.json", "b.json"), NULL, 0);
	CU_ASSERT(exited_with(&o, 2));
	CU_ASSERT(strstr(o.err, "memguard compare: unknown option '--max-grwth'; did you mean "
	                        "'--max-growth'?") != NULL);
	done(&o);
	mg(&o, ARGV("log", "--fromat", "html"), NULL, 0);
	CU_ASSERT(exited_with(&o, 2));
	CU_ASSERT(strstr(o.err, "did you mean '--format'?") != NULL);
	done(&o);
	/* a config file's key is suggested as a key */
	char cfg[] = "/tmp/mg-help-XXXXXX";
	int fd = mkstemp(cfg);
	CU_ASSERT_FATAL(fd >= 0);
	static const char body[] = "{\"recyle_at\": \"va=1G\"}\n";
	CU_ASSERT(write(fd, body, sizeof(body) - 1) == (ssize_t)(sizeof(body) - 1));
	close(fd);
	mg(&o, ARGV("run", "--config", cfg, "--", "/bin/true"), NULL, 0);
	CU_ASSERT(exited_with(&o, 2));
	CU_ASSERT(strstr(o.err, "key 'recyle_at': unknown option") != NULL);
	CU_ASSERT(strstr(o.err, "did you mean 'recycle-at'?") != NULL);
	done(&o);
	unlink(cfg);
}

/* A value-taking flag right before "--" has no value: a usage error naming
 * it (before: the report went to a file named "--" and the run passed; a
 * filter "--" matched nothing, exit 5). Its "=--" form still means it. */
static void value_before_separator(void)
{
	outcome o;
	static const char *const flags[] = {"--report", "--filter", "-j", "--config"};
	for (size_t k = 0; k < sizeof(flags) / sizeof(flags[0]); k++) {
		mg(&o, ARGV("run", flags[k], "--", "/bin/true"), NULL, 0);
		CU_ASSERT(exited_with(&o, 2));
		char want[128];
		snprintf(want, sizeof(want),
		         "option '%s' needs a value ('--' is where the command starts)", flags[k]);
		CU_ASSERT(strstr(o.err, want) != NULL);
		done(&o);
	}
	mg(&o, ARGV("list", "--filter", "--", "/bin/true"), NULL, 0);
	CU_ASSERT(exited_with(&o, 2));
	CU_ASSERT(strstr(o.err, "option '--filter' needs a value") != NULL);
	done(&o);
	mg(&o, ARGV("run", "-q", "--filter=--", "--", MG_HOST64), NULL, 0);
	CU_ASSERT(exited_with(&o, 5)); /* no test's name matches "--" */
	done(&o);
}

static const mg_case cases[] = {
    {"distance", distance},
    {"value_before_separator", value_before_separator},
    {"every_command", help_every_command},
    {"report_adapters", help_report_adapters},
    {"did_you_mean_command", did_you_mean_command},
    {"did_you_mean_option", did_you_mean_option},
};

MG_TEST_MAIN("help", cases)

/*
 * options.c - the config file and the command line of "memguard run/list"
 * (see options.h). Every error message names the flag, key or token.
 */
#include "options.h"

#include "contain.h"

#include "driver.h"
#include "mg_sites.h"
#include "mg_suggest.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static json_t *config_root; /* keeps the config's strings alive */

void options_init(run_options *o)
{
	memset(o, 0, sizeof(*o));
	o->interval = 0.005;
	o->pipeline = 0; /* per driver: exec, ctest, wrap 2; gtest 1,000,000 */
	o->max_restarts = 3;
	o->skip_code = -1;
	o->output_limit = 64 * 1024;
	o->output_head = 32 * 1024;
	o->driver = "auto";
	o->no_progress = OPTIONS_NO_PROGRESS;
	o->sites = MG_SITES_DEFAULT;
}

int options_parse_duration(double *out, const char *text, mg_err *err)
{
	char *end;
	/* decimal only: strtod alone takes " 7", "0x10", "1e3", "inf" and "nan" */
	size_t digits = strspn(text, "0123456789");
	if (!digits || (text[digits] == '.' && !strspn(text + digits + 1, "0123456789")))
		return mg_err_set(err, MG_EINVAL,
		                  "bad duration '%s' (a decimal number and ms, s, m or h)", text);
	errno = 0;
	double v = strtod(text, &end);
	double unit = 1;
	if (end == text || errno || !isfinite(v) || v < 0 ||
	    strspn(text, "0123456789.") != (size_t)(end - text))
		return mg_err_set(err, MG_EINVAL,
		                  "bad duration '%s' (a decimal number and ms, s, m or h)", text);
	if (!strcmp(end, "ms"))
		unit = 0.001;
	else if (!strcmp(end, "s") || !*end)
		unit = 1;
	else if (!strcmp(end, "m"))
		unit = 60;
	else if (!strcmp(end, "h"))
		unit = 3600;
	else
		return mg_err_set(err, MG_EINVAL, "bad duration '%s' (use ms, s, m or h)", text);
	*out = v * unit;
	return 0;
}

/*
 * A whole decimal number from min to max in all of text (len bytes; -1: up
 * to its end): digits only (no sign, space or 0x; strtoull alone would take
 * "-1" as ULLONG_MAX and " 7"), no overflow (ERANGE), then the bound, so a
 * number past the target type never wraps into range.
 */
static int parse_whole(unsigned long long *out, const char *text, long len, unsigned long long min,
                       unsigned long long max)
{
	char buf[32], *end;
	size_t n = len < 0 ? strlen(text) : (size_t)len;
	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, text, n);
	buf[n] = 0;
	for (size_t i = 0; i < n; i++)
		if (buf[i] < '0' || buf[i] > '9')
			return -1;
	errno = 0;
	unsigned long long v = strtoull(buf, &end, 10);
	if (*end || errno == ERANGE || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int parse_uint(unsigned *out, const char *text, unsigned min, unsigned max, const char *what,
                      mg_err *err)
{
	unsigned long long v;
	if (parse_whole(&v, text, -1, min, max) < 0)
		return mg_err_set(err, MG_EINVAL, "bad %s '%s' (a whole number from %u to %u)",
		                  what, text, min, max);
	*out = (unsigned)v;
	return 0;
}

#define NODE_MAX 10000

int options_parse_node(uint32_t *index, uint32_t *total, const char *text, mg_err *err)
{
	unsigned long long i, n;
	const char *slash = strchr(text, '/');
	if (!slash || parse_whole(&i, text, (long)(slash - text), 1, NODE_MAX) < 0 ||
	    parse_whole(&n, slash + 1, -1, 1, NODE_MAX) < 0 || i > n)
		return mg_err_set(err, MG_EINVAL,
		                  "bad node '%s' (I/N, 1-based, N at most %d: 1/4 is the first "
		                  "of four)",
		                  text, NODE_MAX);
	*index = (uint32_t)i;
	*total = (uint32_t)n;
	return 0;
}

/* Reads one env pair; base is 0 or 1 (the CI's first index). */
static int node_env(uint32_t *index, uint32_t *total, const char *iv, const char *tv, int base)
{
	const char *i = getenv(iv), *t = getenv(tv);
	unsigned long long li, lt;
	if (!i || !t || parse_whole(&li, i, -1, (unsigned long long)base, NODE_MAX) < 0 ||
	    parse_whole(&lt, t, -1, 1, NODE_MAX) < 0 || li - (unsigned long long)base >= lt)
		return 0;
	*index = (uint32_t)(li - (unsigned long long)base + 1);
	*total = (uint32_t)lt;
	return 1;
}

void options_node_from_env(uint32_t *index, uint32_t *total)
{
	*index = 1;
	*total = 1;
	if (node_env(index, total, "CI_NODE_INDEX", "CI_NODE_TOTAL", 1) ||
	    node_env(index, total, "CIRCLE_NODE_INDEX", "CIRCLE_NODE_TOTAL", 0) ||
	    node_env(index, total, "BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT", 0) ||
	    node_env(index, total, "SYSTEM_JOBPOSITIONINPHASE", "SYSTEM_TOTALJOBSINPHASE", 1))
		return;
}

static int check_limits(const char *text, const char *what, mg_err *err)
{
	limits_spec scratch;
	mg_err e;
	memset(&scratch, 0, sizeof(scratch));
	if (limits_parse(&scratch, text, &e) < 0)
		return mg_err_set(err, MG_EINVAL, "%s: %s", what, e.msg);
	return 0;
}

void options_limits(const run_options *o, limits_spec *soft, limits_spec *hard)
{
	memset(soft, 0, sizeof(*soft));
	memset(hard, 0, sizeof(*hard));
	for (int i = 0; i < 2; i++) {
		if (o->recycle_at[i])
			limits_parse(soft, o->recycle_at[i], NULL);
		if (o->kill_at[i])
			limits_parse(hard, o->kill_at[i], NULL);
	}
}

/* "unknown option 'X'", and the closest option run's help names. A config
 * file's key (prefix "") is matched as the flag it stands for (underscores
 * as -) and suggested as a key. */
static int options_unknown(mg_err *err, const char *what, const char *prefix)
{
	char typed[80], near[80];
	snprintf(typed, sizeof(typed), "%s%s", what[0] == '-' ? "" : "--", what);
	for (char *p = typed; *p; p++)
		if (*p == '_')
			*p = '-';
	if (suggest_option(near, sizeof(near), typed, options_usage()) < 0)
		return mg_err_set(err, MG_EINVAL, "unknown option '%s%s'", prefix, what);
	return mg_err_set(err, MG_EINVAL, "unknown option '%s%s'; did you mean '%s'?", prefix, what,
	                  *prefix || what[0] == '-' ? near : near + 2);
}

/* One setting by name, from a flag (layer 1) or a config key (layer 0). */
static int apply(run_options *o, const char *key, const char *val, int layer, mg_err *err)
{
	unsigned u;
	mg_err e;
	if (!strcmp(key, "arch")) {
		if (limits_arch_parse(&o->arch, val, &e) < 0)
			return mg_err_set(err, MG_EINVAL, "arch: %s", e.msg);
	} else if (!strcmp(key, "recycle-at")) {
		if (check_limits(val, "recycle-at", err) < 0)
			return MG_EINVAL;
		o->recycle_at[layer] = val;
	} else if (!strcmp(key, "kill-at")) {
		if (check_limits(val, "kill-at", err) < 0)
			return MG_EINVAL;
		o->kill_at[layer] = val;
	} else if (!strcmp(key, "sites")) {
		static const char *const levels[] = {"off", "default", "all"};
		unsigned k;
		for (k = 0; k < 3 && strcmp(val, levels[k]); k++)
			;
		if (k == 3)
			return mg_err_set(err, MG_EINVAL, "sites: '%s' is not off, default or all",
			                  val);
		o->sites = k; /* MG_SITES_OFF, MG_SITES_DEFAULT, MG_SITES_ALL */
	} else if (!strcmp(key, "jobs")) {
		if (parse_uint(&o->jobs, val, 1, 256, "jobs", err) < 0)
			return MG_EINVAL;
	} else if (!strcmp(key, "no-progress")) {
		double d;
		if (!strcmp(val, "none") || !strcmp(val, "0"))
			d = 0;
		else if (options_parse_duration(&d, val, &e) < 0)
			return mg_err_set(err, MG_EINVAL, "no-progress: %s (or none)", e.msg);
		else if (d < 1)
			return mg_err_set(err, MG_EINVAL,
			                  "no-progress: '%s' is too short (at least 1s, or none)",
			                  val);
		o->no_progress = d;
	} else if (!strcmp(key, "timeout") || !strcmp(key, "deadline") ||
	           !strcmp(key, "interval")) {
		double d;
		if (options_parse_duration(&d, val, &e) < 0)
			return mg_err_set(err, MG_EINVAL, "%s: %s", key, e.msg);
		if (!strcmp(key, "interval") && (d < 0.0005 || d > 1))
			return mg_err_set(err, MG_EINVAL,
			                  "interval: '%s' out of range (0.5ms to 1s)", val);
		*(key[0] == 't' ? &o->timeout : key[0] == 'd' ? &o->deadline : &o->interval) = d;
	} else if (!strcmp(key, "pipeline")) {
		if (parse_uint(&o->pipeline, val, 1, 1000000, "pipeline", err) < 0)
			return MG_EINVAL;
	} else if (!strcmp(key, "max-restarts")) {
		if (parse_uint(&o->max_restarts, val, 1, 1000, "max-restarts", err) < 0)
			return MG_EINVAL;
	} else if (!strcmp(key, "output-limit")) {
		/* SIZE (half head, half tail) or HEAD+TAIL */
		const char *plus = strchr(val, '+');
		char head[64];
		uint64_t tail = 0;
		if (plus && (size_t)(plus - val) >= sizeof(head))
			return mg_err_set(err, MG_EINVAL, "output-limit: '%s' is too long", val);
		if (plus) {
			memcpy(head, val, (size_t)(plus - val));
			head[plus - val] = 0;
		}
		if (limits_parse_size(&o->output_head, plus ? head : val, &e) < 0 ||
		    (plus && limits_parse_size(&tail, plus + 1, &e) < 0))
			return mg_err_set(
			    err, MG_EINVAL,
			    "output-limit: %s in '%s' (SIZE, or HEAD+TAIL: 1M, 256K+768K)", e.msg,
			    val);
		if (plus && o->output_head > UINT64_MAX - tail)
			return mg_err_set(err, MG_EINVAL, "output-limit: '%s' is too large", val);
		o->output_limit = plus ? o->output_head + tail : o->output_head;
		if (!plus)
			o->output_head = o->output_limit / 2;
	} else if (!strcmp(key, "address-space")) {
		if (limits_parse_size(&o->address_space, val, &e) < 0)
			return mg_err_set(err, MG_EINVAL, "address-space: %s", e.msg);
		if (o->address_space < (64u << 20))
			return mg_err_set(err, MG_EINVAL,
			                  "address-space: '%s' is too small (at least 64M)", val);
	} else if (!strcmp(key, "report")) {
		o->report = val;
	} else if (!strcmp(key, "adapter")) {
		if (o->nadapters == OPTIONS_MAX_ADAPTERS)
			return mg_err_set(err, MG_EINVAL, "too many adapters (at most %d)",
			                  OPTIONS_MAX_ADAPTERS);
		o->adapters[o->nadapters++] = val;
	} else if (!strcmp(key, "suite")) {
		o->suite = val;
	} else if (!strcmp(key, "driver")) {
		driver_kind k;
		if (strcmp(val, "auto") && driver_parse(&k, val, err) < 0)
			return MG_EINVAL;
		o->driver = val;
	} else if (!strcmp(key, "list-cmd")) {
		o->list_cmd = val;
	} else if (!strcmp(key, "skip-code")) {
		unsigned code = 0;
		if (parse_uint(&code, val, 1, 255, "skip-code", err) < 0)
			return MG_EINVAL;
		o->skip_code = (int)code;
	} else if (!strcmp(key, "list-file")) {
		o->list_file = val;
	} else if (!strcmp(key, "tests-from")) {
		o->tests_from = val;
	} else if (!strcmp(key, "history")) {
		o->history = val;
	} else if (!strcmp(key, "order")) {
		if (strcmp(val, "list") && strcmp(val, "history"))
			return mg_err_set(err, MG_EINVAL, "order: '%s' is not list or history",
			                  val);
		o->order_history = !strcmp(val, "history");
	} else if (!strcmp(key, "filter")) {
		o->filter = val;
	} else if (!strcmp(key, "contain")) {
		if (!contain_mode_valid(val))
			return mg_err_set(err, MG_EINVAL,
			                  "contain: '%s' is not auto, pid, user, reaper or none",
			                  val);
		o->contain = val;
	} else if (!strcmp(key, "node")) {
		if (options_parse_node(&o->node_index, &o->node_total, val, err) < 0)
			return MG_EINVAL;
	} else {
		return options_unknown(err, key, layer ? "--" : "");
	}
	(void)u;
	return 0;
}

static int config_apply(run_options *o, json_t *root, const char *file, mg_err *err);

int options_load_config(run_options *o, const char *path, mg_err *err)
{
	json_error_t je;
	const char *file = path ? path : "memguard.json";
	if (!path && access(file, F_OK) != 0)
		return 0;
	/* opened here, so a file that cannot be read is said as such (Jansson's
	 * message has line -1 and the path again) */
	FILE *f = fopen(file, "r");
	if (!f)
		return mg_err_set(err, MG_EINVAL, "config %s: %s", file, strerror(errno));
	json_t *root = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
	fclose(f);
	if (!root && je.line < 1)
		return mg_err_set(err, MG_EINVAL, "config %s: %s", file, je.text);
	if (!root)
		return mg_err_set(err, MG_EINVAL, "config %s:%d: %s", file, je.line, je.text);
	return config_apply(o, root, file, err);
}

int options_load_config_buffer(run_options *o, const char *buf, size_t len, const char *name,
                               mg_err *err)
{
	json_error_t je;
	json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		return mg_err_set(err, MG_EINVAL, "config %s:%d: %s", name, je.line, je.text);
	return config_apply(o, root, name, err);
}

/* Applies root (taken: kept alive as config_root, or freed) as config file. */
static int config_apply(run_options *o, json_t *root, const char *file, mg_err *err)
{
	if (!json_is_object(root)) {
		json_decref(root);
		return mg_err_set(err, MG_EINVAL, "config %s: not a JSON object", file);
	}
	json_decref(config_root);
	config_root = root;
	const char *key;
	json_t *v;
	json_object_foreach(root, key, v)
	{
		char name[64], num[64];
		const char *val = NULL;
		snprintf(name, sizeof(name), "%s", key);
		for (char *c = name; *c; c++)
			if (*c == '_')
				*c = '-';
		/* kill_at and kill-at are one key: given both, neither may win */
		const char *other;
		json_t *ov;
		json_object_foreach(root, other, ov)
		{
			if (other == key || !strcmp(other, key))
				break;
			char oname[64];
			snprintf(oname, sizeof(oname), "%s", other);
			for (char *c = oname; *c; c++)
				if (*c == '_')
					*c = '-';
			if (!strcmp(oname, name))
				return mg_err_set(err, MG_EINVAL,
				                  "config %s: duplicate key '%s' (also given as "
				                  "'%s')",
				                  file, key, other);
		}
		if (!strcmp(name, "adapters") || !strcmp(name, "adapter")) {
			size_t i;
			json_t *a;
			if (json_is_string(v)) {
				if (apply(o, "adapter", json_string_value(v), 0, err) < 0)
					return MG_EINVAL;
				continue;
			}
			if (!json_is_array(v))
				return mg_err_set(err, MG_EINVAL,
				                  "config %s: '%s' must be a string or an array "
				                  "of strings",
				                  file, key);
			json_array_foreach(v, i, a)
			{
				if (!json_is_string(a))
					return mg_err_set(err, MG_EINVAL,
					                  "config %s: '%s[%zu]' must be a string",
					                  file, key, i);
				if (apply(o, "adapter", json_string_value(a), 0, err) < 0)
					return MG_EINVAL;
			}
			continue;
		}
		if (!strcmp(name, "quiet") || !strcmp(name, "shell") ||
		    !strcmp(name, "lane-tmpdir") || !strcmp(name, "allow-no-tests") ||
		    !strcmp(name, "fail-no-tests")) {
			if (!json_is_boolean(v))
				return mg_err_set(err, MG_EINVAL,
				                  "config %s: '%s' must be true or false", file,
				                  key);
			*(name[0] == 'q'   ? &o->quiet
			  : name[0] == 's' ? &o->shell
			  : name[0] == 'l' ? &o->lane_tmpdir
			  : name[0] == 'f' ? &o->fail_no_tests
			                   : &o->allow_no_tests) = json_is_true(v);
			if (o->allow_no_tests && o->fail_no_tests)
				return mg_err_set(err, MG_EINVAL,
				                  "config %s: 'allow_no_tests' and 'fail_no_tests' "
				                  "contradict each other: give one",
				                  file);
			continue;
		}
		if (json_is_string(v)) {
			val = json_string_value(v);
		} else if (json_is_integer(v)) {
			snprintf(num, sizeof(num), "%lld", (long long)json_integer_value(v));
			/* numbers need storage that outlives this loop */
			json_t *s = json_string(num);
			json_object_set_new(root, key, s);
			val = json_string_value(s);
		} else {
			return mg_err_set(err, MG_EINVAL, "config %s: '%s' must be a string%s",
			                  file, key, strcmp(name, "jobs") ? "" : " or a number");
		}
		mg_err e;
		if (apply(o, name, val, 0, &e) < 0)
			return mg_err_set(err, MG_EINVAL, "config %s: key '%s': %s", file, key,
			                  e.msg);
	}
	return 0;
}

/* A value-taking flag right before "--" has none: "--" is where the command
 * starts (a report written to a file named "--", a filter matching no test
 * name, before). "--report=--" still means it. */
#define NO_VALUE_SEP " ('--' is where the command starts)"

/* Long flags that take a value, by the key they set. */
static const char *const valued[] = {
    "arch",        "recycle-at", "kill-at",      "jobs",         "timeout",       "deadline",
    "interval",    "pipeline",   "max-restarts", "output-limit", "address-space", "report",
    "adapter",     "suite",      "driver",       "filter",       "node",          "config",
    "list-cmd",    "list-file",  "tests-from",   "history",      "order",         "contain",
    "no-progress", "sites",      "skip-code"};

int options_parse(run_options *o, int argc, char **argv, mg_err *err)
{
	const char *config = NULL;
	int i, no_tests_flags = 0;

	/* --config first, so that every flag overrides the file. */
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strncmp(argv[i], "--config=", 9))
			config = argv[i] + 9;
		else if (!strcmp(argv[i], "--config") && i + 1 < argc && strcmp(argv[i + 1], "--"))
			config = argv[++i];
	}
	if (options_load_config(o, config, err) < 0)
		return MG_EINVAL;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		char key[64];
		const char *val = NULL;
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-')
			break; /* the host command starts here */
		if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			o->quiet = 1;
			continue;
		}
		if (!strcmp(a, "--shell")) {
			o->shell = 1;
			continue;
		}
		if (!strcmp(a, "--lane-tmpdir")) {
			o->lane_tmpdir = 1;
			continue;
		}
		/* either overrides the config file's other; both given is a usage error */
		if (!strcmp(a, "--allow-no-tests") || !strcmp(a, "--fail-no-tests")) {
			no_tests_flags |= a[2] == 'a' ? 1 : 2;
			if (no_tests_flags == 3)
				return mg_err_set(err, MG_EINVAL,
				                  "--allow-no-tests and --fail-no-tests contradict "
				                  "each other: give one");
			o->allow_no_tests = a[2] == 'a';
			o->fail_no_tests = a[2] == 'f';
			continue;
		}
		if (!strcmp(a, "-j")) {
			if (i + 1 >= argc || !strcmp(argv[i + 1], "--"))
				return mg_err_set(err, MG_EINVAL, "option '-j' needs a value%s",
				                  i + 1 < argc ? NO_VALUE_SEP : "");
			if (apply(o, "jobs", argv[++i], 1, err) < 0)
				return MG_EINVAL;
			continue;
		}
		if (!strncmp(a, "-j", 2) && a[2]) {
			if (apply(o, "jobs", a + 2, 1, err) < 0)
				return MG_EINVAL;
			continue;
		}
		if (strncmp(a, "--", 2))
			return options_unknown(err, a, "");
		const char *eq = strchr(a, '=');
		size_t klen = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
		if (klen >= sizeof(key))
			return options_unknown(err, a, "");
		memcpy(key, a + 2, klen);
		key[klen] = 0;
		int known = 0;
		for (size_t k = 0; k < sizeof(valued) / sizeof(valued[0]); k++)
			known |= !strcmp(key, valued[k]);
		if (!known)
			return options_unknown(err, key, "--");
		if (eq) {
			val = eq + 1;
		} else {
			if (i + 1 >= argc || !strcmp(argv[i + 1], "--"))
				return mg_err_set(err, MG_EINVAL, "option '--%s' needs a value%s",
				                  key, i + 1 < argc ? NO_VALUE_SEP : "");
			val = argv[++i];
		}
		if (!strcmp(key, "config"))
			continue;
		if (apply(o, key, val, 1, err) < 0)
			return MG_EINVAL;
	}
	o->host_argv = argv + i;
	o->host_argc = argc - i;
	return 0;
}

void options_free(run_options *o)
{
	(void)o;
	json_decref(config_root);
	config_root = NULL;
}

const char *options_usage(void)
{
	return "usage: memguard run [options] [--] HOST [ARGS...]\n"
	       "       memguard list [--arch A] [--] HOST [ARGS...]\n"
	       "\n"
	       "options (also keys of memguard.json, with - or _):\n"
	       "  --arch x86|x64         the host's arch (default: from its ELF header; ctest:\n"
	       "                         its tests' programs' when all agree)\n"
	       "  --recycle-at LIMITS    soft limits: end the host at the next test boundary\n"
	       "                         (default x86: va=3.5G; x64: rss=80%)\n"
	       "  --kill-at LIMITS       hard limits: kill now, retry the test once\n"
	       "                         (default x86: va=3.75G; x64: rss=95%)\n"
	       "      LIMITS is key=size[,key=size]: va, rss, cgroup (size or N%), gap (size);\n"
	       "      sizes: 123, 4K, 3.5G, 512MiB (1024s), 500MB (1000s)\n"
	       "  -j, --jobs N           lanes in parallel (default: number of CPUs; with\n"
	       "                         --history, only lanes worth their start)\n"
	       "  --timeout D            per-test timeout (60s, 2m, 500ms; default and 0: none),\n"
	       "                         and the host's time to list its tests (default 60s)\n"
	       "  --deadline D           whole-run deadline (listing included); tests not run\n"
	       "                         are 'not-run'\n"
	       "  --no-progress D|none   a test whose processes are stopped, or use no CPU,\n"
	       "                         for D without a result is 'timeout' (default 5m)\n"
	       "  --interval D           base sampling interval (default 5ms; adaptive)\n"
	       "  --pipeline N           run lines in flight per host (default: native, pytest\n"
	       "                         4 ms of its pace, 16 to 4096; exec, ctest 2; gtest\n"
	       "                         1000000)\n"
	       "  --max-restarts N       failed host starts in a row before a lane gives up (3)\n"
	       "  --output-limit SIZE    captured output kept per test: its first and last\n"
	       "                         halves, what was cut said between (default 64K);\n"
	       "                         HEAD+TAIL sizes them (0+64K: the end only)\n"
	       "  --address-space SIZE   cap each host's address space (RLIMIT_AS): a 64-bit\n"
	       "                         build then fails like a 32-bit one (4G); va limits\n"
	       "                         default to 87.5% / 93.75% of it\n"
	       "  --report PATH          write the JSON report (atomically)\n"
	       "  --adapter NAME[=PATH]  render the report (repeatable; default console)\n"
	       "  --suite NAME           the suite's name in reports (default: host basename)\n"
	       "  --filter GLOB          run only tests whose name matches\n"
	       "  --tests-from FILE      run exactly the tests named in FILE (one a line)\n"
	       "  --history PATH|auto    plan from an earlier report (auto: the note of the\n"
	       "                         nearest noted ancestor commit)\n"
	       "  --order list|history   the queue in list order (default), or with --history\n"
	       "                         the longest tests first\n"
	       "  --driver NAME          auto (default), native, gtest, catch2, ctest, exec,\n"
	       "                         pytest, wrap\n"
	       "  --list-cmd CMD         exec driver: command printing one test name a line\n"
	       "  --list-file FILE       exec driver: file of test names\n"
	       "  --skip-code N          exec driver: a test exiting N is skip (automake: 77)\n"
	       "  --shell                exec driver: run the command template with sh -c\n"
	       "  --node I/N             run node I's share of N (default: from the CI env)\n"
	       "  --lane-tmpdir          with 2 or more lanes, each lane's processes get a\n"
	       "                         TEST_TMPDIR of their own (GoogleTest's TempDir()),\n"
	       "                         made under TMPDIR and removed after the run\n"
	       "  --allow-no-tests       no test to run (a filter matching none) is exit 0\n"
	       "                         (default: the framework's exit then; 5 where it\n"
	       "                         fails such a run, or has none of its own)\n"
	       "  --fail-no-tests        no test to run is exit 5, also where the framework\n"
	       "                         passes such a run (GoogleTest, ctest, Catch2 v2)\n"
	       "  --contain MODE         auto (default): hosts in a PID namespace that dies\n"
	       "                         with memguard; without root a reaper (the process\n"
	       "                         started ends what the run left); pid, user (a PID\n"
	       "                         namespace in a user namespace) or reaper: that or\n"
	       "                         exit 3; none: process groups only\n"
	       "  --sites LEVEL          who allocated what a test left (1 MiB or more): off,\n"
	       "                         default (every mapping and allocation of 512K or\n"
	       "                         more, one in 512K of the rest) or all (every\n"
	       "                         allocation: slower, for a re-run of the suspects)\n"
	       "  --config PATH          config file (default ./memguard.json if present)\n"
	       "  -q, --quiet            no progress output\n";
}

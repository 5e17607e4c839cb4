/*
 * pytest.c - the pytest driver: recognises a pytest command line, and as
 * "memguard __driver pytest -- COMMAND..." puts memguard's plugin
 * (memguard_pytest.py, which serves the host protocol inside pytest) and the
 * host library's shared build on the command and execs it, so the pytest
 * process itself is the host. Nothing here stays running: no shim process.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "driver.h"
#include "shim.h"

#ifndef MEMGUARD_PYTEST_INSTALL_DIR
#define MEMGUARD_PYTEST_INSTALL_DIR "/usr/local/lib/memguard/pytest"
#endif

#define PYTEST_PLUGIN "memguard_pytest"
#define PYTEST_LIB    "libmemguard_host.so"

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* "python", "python3", "python3.11", "python3-dbg"... */
static int is_python(const char *name)
{
	if (strncmp(name, "python", 6))
		return 0;
	for (const char *p = name + 6; *p; p++)
		if (!strchr("0123456789.", *p) && strcmp(p, "-dbg"))
			return 0;
	return 1;
}

/* "pytest", "py.test", and Debian's "pytest-3" / "py.test-3". */
static int is_pytest(const char *name)
{
	return !strcmp(name, "pytest") || !strcmp(name, "py.test") || !strcmp(name, "pytest-3") ||
	       !strcmp(name, "py.test-3");
}

int pytest_args_at(char *const *argv, int argc)
{
	if (argc < 1)
		return -1;
	if (is_pytest(base_name(argv[0])))
		return 1;
	if (!is_python(base_name(argv[0])))
		return -1;
	/* interpreter options, then -m pytest (or -mpytest) */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-m"))
			return i + 1 < argc && !strcmp(argv[i + 1], "pytest") ? i + 2 : -1;
		if (!strcmp(argv[i], "-mpytest"))
			return i + 1;
		if (argv[i][0] != '-' || !strcmp(argv[i], "-c") || !strncmp(argv[i], "-m", 2))
			return -1; /* a script, -c code or another module */
		if ((!strcmp(argv[i], "-X") || !strcmp(argv[i], "-W")) && i + 1 < argc)
			i++;
	}
	return -1;
}

/* pytest's options whose value is the next argument, so "-k -n" is not -n. */
static int takes_value(const char *a)
{
	static const char *const opts[] = {"-k",         "-m",         "-p",        "-c",
	                                   "-o",         "-W",         "--rootdir", "--confcutdir",
	                                   "--basetemp", "--deselect", "--ignore",  "--junitxml",
	                                   "--junit-xml"};
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (!strcmp(a, opts[i]))
			return 1;
	return 0;
}

int pytest_check_args(char *const *argv, int argc, mg_err *err)
{
	int at = pytest_args_at(argv, argc);
	if (at < 0)
		return mg_err_set(err, MG_EINVAL,
		                  "--driver pytest needs a pytest command line (pytest, py.test, "
		                  "python -m pytest), not '%s'",
		                  argc > 0 ? argv[0] : "");
	/* python's own options before -m pytest: isolated mode (-I) and -E
	 * ignore PYTHONPATH, through which memguard loads its plugin */
	for (int i = 1; i + 1 < at; i++) {
		const char *a = argv[i];
		if ((!strcmp(a, "-X") || !strcmp(a, "-W")) && i + 2 < at) {
			i++;
			continue;
		}
		if (a[0] == '-' && a[1] != '-' && strpbrk(a + 1, "IE") &&
		    strcspn(a + 1, "XW") > strcspn(a + 1, "IE"))
			return mg_err_set(err, MG_EINVAL,
			                  "python option '%s' (-I, -E) ignores PYTHONPATH, through "
			                  "which memguard loads its pytest plugin: drop it",
			                  a);
	}
	static const char *const runs_none[] = {"--collect-only",
	                                        "--co",
	                                        "--setup-only",
	                                        "--setup-plan",
	                                        "--fixtures",
	                                        "--funcargs",
	                                        "--fixtures-per-test",
	                                        "--markers",
	                                        "--version",
	                                        "-V",
	                                        "--help",
	                                        "-h"};
	for (int i = at; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--"))
			break;
		/* before the value is skipped: --junitxml PATH is refused as
		 * --junitxml=PATH is (before, the plugin refused it, saying it came
		 * from the configuration) */
		int spaced = !strcmp(a, "--junitxml") || !strcmp(a, "--junit-xml");
		if (spaced || !strncmp(a, "--junitxml=", 11) || !strncmp(a, "--junit-xml=", 12)) {
			const char *val = spaced && i + 1 < argc ? argv[i + 1] : "";
			return mg_err_set(
			    err, MG_EINVAL,
			    "pytest option '%s%s%s': under memguard each pytest process "
			    "would write its own file over the others; give memguard "
			    "--adapter junit=PATH instead (every test of every lane)",
			    a, *val ? " " : "", val);
		}
		if (takes_value(a)) {
			i++;
			continue;
		}
		for (size_t k = 0; k < sizeof(runs_none) / sizeof(runs_none[0]); k++)
			if (!strcmp(a, runs_none[k]))
				return mg_err_set(
				    err, MG_EINVAL,
				    "pytest option '%s' runs no test (it lists, plans or "
				    "describes them): run pytest itself for it (memguard "
				    "list lists the tests)",
				    a);
		int xdist = !strncmp(a, "-n", 2) || !strcmp(a, "--numprocesses") ||
		            !strncmp(a, "--numprocesses=", 15) || !strcmp(a, "--dist") ||
		            !strncmp(a, "--dist=", 7) || !strcmp(a, "--tx") ||
		            !strncmp(a, "--tx=", 5);
		if (xdist) {
			const char *val = a[1] == 'n' && !a[2] && i + 1 < argc ? argv[i + 1] : "";
			return mg_err_set(
			    err, MG_EINVAL,
			    "pytest option '%s%s%s' asks pytest-xdist for worker processes; "
			    "under memguard the lanes are the workers (each a pytest "
			    "process memguard recycles and retries): drop it and give "
			    "memguard -j N instead",
			    a, *val ? " " : "", val);
		}
	}
	return 0;
}

/* The folder holding the plugin and the host library's shared build: next
 * to memguard in the build tree (runner/pytest/), in the install tree
 * (lib/memguard/pytest/), or where it was installed. 0, or -1. */
static int plugin_find(char *out, size_t size)
{
	char exe[1024], probe[2300];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		char *slash = strrchr(exe, '/');
		if (slash)
			*slash = 0;
		static const char *const subs[] = {"/pytest", "/../lib/memguard/pytest"};
		for (size_t i = 0; i < 2; i++) {
			snprintf(out, size, "%s%s", exe, subs[i]);
			snprintf(probe, sizeof(probe), "%s/" PYTEST_PLUGIN ".py", out);
			if (access(probe, R_OK) == 0)
				return 0;
		}
	}
	snprintf(out, size, "%s", MEMGUARD_PYTEST_INSTALL_DIR);
	snprintf(probe, sizeof(probe), "%s/" PYTEST_PLUGIN ".py", out);
	return access(probe, R_OK) == 0 ? 0 : -1;
}

/* The start time of process pid (clock ticks since boot, stat field 22;
 * the name may hold ") "), or 0. */
static unsigned long long start_time(long pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	unsigned long long t = 0;
	if (p && sscanf(p + 2,
	                "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d "
	                "%*d %*d %*d %llu",
	                &t) != 1)
		t = 0;
	return t;
}

/*
 * A name every pytest process of this run shares and no other run has
 * (for -x/--maxfail across lanes and generations): the runner's pid and
 * start time when it is our parent, else (a host in the run's PID
 * namespace, its parent outside) the namespace's and its init's.
 */
static void run_identity(char *out, size_t size)
{
	struct stat st;
	unsigned long long ns =
	    stat("/proc/self/ns/pid", &st) == 0 ? (unsigned long long)st.st_ino : 0;
	long root = getppid() > 0 ? (long)getppid() : 1;
	const char *tmp = getenv("TMPDIR");
	snprintf(out, size, "%s/memguard-pytest-%ld-%llu-%ld-%llu", tmp && *tmp ? tmp : "/tmp",
	         (long)getuid(), ns, root, start_time(root));
}

int pytest_main(const shim_args *a)
{
	char dir[2048], lib[2200], path[8192], run[1200];
	int at = pytest_args_at(a->cmd, a->ncmd);
	mg_err err;
	if (pytest_check_args(a->cmd, a->ncmd, &err) < 0) {
		fprintf(stderr, "memguard: %s\n", err.msg);
		return 2;
	}
	if (plugin_find(dir, sizeof(dir)) < 0) {
		fprintf(stderr, "memguard: the pytest plugin " PYTEST_PLUGIN ".py is neither next "
		                "to memguard nor in " MEMGUARD_PYTEST_INSTALL_DIR "\n");
		return 3;
	}
	snprintf(lib, sizeof(lib), "%s/" PYTEST_LIB, dir);
	const char *pp = getenv("PYTHONPATH");
	snprintf(path, sizeof(path), "%s%s%s", dir, pp && *pp ? ":" : "", pp && *pp ? pp : "");
	const char *given = getenv(MG_ENV_RUN_DIR); /* the runner's directory */
	if (given && *given && strlen(given) < sizeof(run) - 4)
		snprintf(run, sizeof(run), "%s/run", given);
	else
		run_identity(run, sizeof(run));
	if (setenv("PYTHONPATH", path, 1) < 0 || setenv("MEMGUARD_PYTEST_LIB", lib, 1) < 0 ||
	    setenv("MEMGUARD_PYTEST_RUN", run, 1) < 0) {
		fprintf(stderr, "memguard: cannot set the pytest plugin's environment: %s\n",
		        strerror(errno));
		return 3;
	}
	/* COMMAND with "-p memguard_pytest" where pytest's own arguments start */
	char **argv = calloc((size_t)a->ncmd + 3, sizeof(char *));
	if (!argv)
		return 3;
	int k = 0;
	for (int i = 0; i < at; i++)
		argv[k++] = a->cmd[i];
	argv[k++] = "-p";
	argv[k++] = PYTEST_PLUGIN;
	for (int i = at; i < a->ncmd; i++)
		argv[k++] = a->cmd[i];
	argv[k] = NULL;
	execvp(argv[0], argv);
	fprintf(stderr, "memguard: cannot start %s: %s\n", argv[0], strerror(errno));
	free(argv);
	return 127;
}

/*
 * wrap.c - the wrap driver: any command, no test granularity. One test
 * named after the command; its exit status is the result, a signal a crash.
 * The guard samples the whole tree; a soft limit must only warn, so this
 * shim never recycles itself.
 */
#include <stdio.h>
#include <string.h>

#include "shim.h"

void wrap_name(char *buf, size_t size, char *const cmd[], int ncmd)
{
	size_t o = (size_t)snprintf(buf, size, "wrap/");
	const size_t max = size < 200 ? size : 200;
	for (int i = 0; i < ncmd && o + 1 < max; i++) {
		for (const char *p = i ? " " : ""; *p && o + 1 < max; p++)
			buf[o++] = *p;
		for (const unsigned char *p = (const unsigned char *)cmd[i]; *p && o + 1 < max; p++)
			buf[o++] = *p < 0x20 || *p == 0x7f ? ' ' : (char)*p;
	}
	if (o + 1 >= max && max > 8)
		memcpy(buf + max - 4, "...", 3), o = max - 1;
	buf[o] = 0;
}

static int w_list(shim *s)
{
	int ncmd;
	char **cmd = shim_cmd(s, &ncmd);
	char name[256];
	wrap_name(name, sizeof(name), cmd, ncmd);
	shim_test(s, name, strlen(name));
	return 0;
}

static void w_begin(shim *s)
{
	int ncmd;
	char **cmd = shim_cmd(s, &ncmd);
	char name[256];
	size_t n;
	const char *head = shim_queue_name(s, 0, &n);
	wrap_name(name, sizeof(name), cmd, ncmd);
	if (n != strlen(name) || memcmp(head, name, n)) {
		shim_start(s);
		shim_resultf(s, MG_MSG_FAIL, "unknown test '%.1000s' (wrap runs '%s')", head, name);
		return;
	}
	int rc = shim_spawn(s, cmd, 0);
	shim_start(s);
	if (rc < 0)
		shim_resultf(s, MG_MSG_FAIL, "cannot start %s", cmd[0]);
}

int wrap_main(const shim_args *a)
{
	static const shim_ops ops = {
	    .measure = SHIM_MEASURE_TREE,
	    .self_recycle = 0, /* a soft limit only warns: nothing to recycle into */
	    .list = w_list,
	    .begin = w_begin,
	    .exited = exec_exited,
	};
	return shim_main(&ops, NULL, a->cmd, a->ncmd);
}

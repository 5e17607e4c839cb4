/*
 * spawner_main.c - memguard-spawner: a driver shim's spawner
 * (spawn_spawner_new) as an executable of its own, libc only and never
 * sanitized, so that what a test copies of it before its exec, which the
 * kernel counts in the test's ru_maxrss, is a few pages: a dynamic shim's
 * (a static one's own fork serves as it is). Started as
 * "memguard-spawner SOCKET_FD PARENT_PID" by the shim's fork; never by a user.
 */
#include <stdio.h>
#include <stdlib.h>

#include "spawn_child.h"

int main(int argc, char **argv)
{
	char *end1 = NULL, *end2 = NULL;
	long fd = argc == 3 ? strtol(argv[1], &end1, 10) : -1;
	long parent = argc == 3 ? strtol(argv[2], &end2, 10) : -1;
	if (argc != 3 || *end1 || *end2 || fd < 3 || parent <= 0) {
		fputs("memguard-spawner: started by memguard's driver shim only\n", stderr);
		return 2;
	}
	spawn_child_spawner((int)fd, (pid_t)parent);
}

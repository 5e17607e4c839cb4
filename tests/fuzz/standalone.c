/*
 * standalone.c - a main for the fuzz harnesses in the normal (gcc) build:
 * runs every file named on the command line, or every file in a directory
 * named there (sorted, not recursive), through LLVMFuzzerTestOneInput once.
 * No mutation: this is the seed-corpus smoke run CTest does (fuzz__NAME).
 * The long run links libFuzzer's own main instead (run-fuzz).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* A harness's set-up, when it has one (libFuzzer calls it the same way). */
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return -1;
	}
	size_t cap = 4096, len = 0;
	uint8_t *buf = malloc(cap);
	for (;;) {
		if (!buf) {
			fprintf(stderr, "%s: out of memory\n", path);
			fclose(f);
			return -1;
		}
		len += fread(buf + len, 1, cap - len, f);
		if (len < cap)
			break;
		uint8_t *b = realloc(buf, cap * 2);
		if (!b)
			free(buf);
		buf = b;
		cap *= 2;
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		fprintf(stderr, "%s: read error\n", path);
		free(buf);
		return -1;
	}
	/* An exact-size copy, so that ASan sees a read past the input's end. */
	uint8_t *copy = malloc(len ? len : 1);
	if (!copy) {
		free(buf);
		return -1;
	}
	memcpy(copy, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(copy, len);
	free(copy);
	return 0;
}

static int run_dir(const char *dir, size_t *count)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);
	if (n < 0) {
		perror(dir);
		return -1;
	}
	int rc = 0;
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		if (name[0] != '.') {
			size_t need = strlen(dir) + strlen(name) + 2;
			char *path = malloc(need);
			struct stat st;
			if (!path)
				rc = -1;
			else {
				snprintf(path, need, "%s/%s", dir, name);
				if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
					if (run_file(path) < 0)
						rc = -1;
					else
						(*count)++;
				}
				free(path);
			}
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	size_t count = 0;
	int rc = 0;
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) != 0) {
			perror(argv[i]);
			rc = 1;
		} else if (S_ISDIR(st.st_mode)) {
			if (run_dir(argv[i], &count) < 0)
				rc = 1;
		} else if (run_file(argv[i]) < 0)
			rc = 1;
		else
			count++;
	}
	printf("%s: %zu inputs run\n", argv[0], count);
	if (count == 0) {
		fprintf(stderr, "%s: no inputs\n", argv[0]);
		rc = 1;
	}
	return rc;
}

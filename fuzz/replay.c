/*
 * replay: runs a libFuzzer target's LLVMFuzzerTestOneInput() over every
 * file of its seed corpus, so that builds without --enable-fuzzers still
 * compile the target and check its corpus (with the sanitizers when
 * configured with --enable-sanitizers). The corpus is
 * $top_srcdir/fuzz/corpus/FUZZ_CORPUS ($top_srcdir defaults to ".").
 * Exits 0 when every input ran (a target aborts on a broken contract).
 */
#include "config.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return -1;
	}
	size_t cap = 4096, len = 0;
	uint8_t *buf = malloc(cap);
	size_t got;
	while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
		len += got;
		if (len == cap) {
			uint8_t *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	fclose(f);
	if (!buf)
		return -1;
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

int main(void)
{
	const char *top = getenv("top_srcdir");
	char dir[4096], path[8192];
	snprintf(dir, sizeof dir, "%s/fuzz/corpus/%s", top && *top ? top : ".",
		 FUZZ_CORPUS);
	DIR *dd = opendir(dir);
	if (!dd) {
		perror(dir);
		return 1;
	}
	struct dirent *e;
	int n = 0, rc = 0;
	while ((e = readdir(dd)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if (run_file(path) < 0)
			rc = 1;
		n++;
	}
	closedir(dd);
	printf("# %s: %d inputs replayed\n", FUZZ_CORPUS, n);
	return rc || n == 0;
}

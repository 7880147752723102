/*
 * fuzz_cfg: libFuzzer target for the config loader (cfg_load_buffer).
 *
 * Besides memory errors and leaks (the build adds ASan and UBSan), it
 * checks the loader's contract: a failed load leaves exactly one line of
 * message, a successful one leaves none. Seeds: fuzz/corpus/cfg/.
 */
#include "config.h"

#include "cfg.h"
#include "fabmond.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	char err[512];
	struct cfg *c = cfg_load_buffer(fabmond_cfg_schema(), "fuzz.yaml",
					(const char *)d, n, err, sizeof err);

	if (c ? err[0] != '\0' : err[0] == '\0' || strchr(err, '\n'))
		abort();
	cfg_free(c);
	return 0;
}

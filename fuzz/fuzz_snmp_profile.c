/*
 * fuzz_snmp_profile: libFuzzer target for the SNMP profile loader
 * (snmp_profile_load_buffer()) and, for every profile it accepts, the
 * row parser and sample conversion its columns drive.
 *
 * Besides memory errors and leaks (the build adds ASan and UBSan), it
 * checks the loader's contract: a failed load leaves exactly one line of
 * message, a successful one none; an accepted profile has columns whose
 * counters exist and whose fallbacks point to earlier columns. Each
 * column then parses the instances of a few fixed rows and converts a
 * Counter64 and an INTEGER through its kind and value map.
 * Seeds: fuzz/corpus/snmp_profile/ (the shipped profiles).
 */
#include "config.h"

#include "counters.h"
#include "snmp_profile.h"
#include "snmp_varbind.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

static void exercise(const struct snmp_column *c)
{
	static const oid suffixes[][3] = {
		{ 1, 0, 0 }, { 17, 3, 0 }, { 5, 0, 3 }, { 0, 9, 1 }
	};
	for (size_t i = 0; i < 4; i++) {
		for (size_t len = 1; len <= 3; len++) {
			oid name[SNMP_PROFILE_MAX_OID + 3];
			memcpy(name, c->oid, c->oid_len * sizeof(oid));
			memcpy(name + c->oid_len, suffixes[i],
			       len * sizeof(oid));
			struct snmp_vb_row row;
			if (snmp_vb_row(c->oid, c->oid_len, name,
					c->oid_len + len, &c->index,
					&row) == 0 &&
			    (row.ifindex == 0 || row.priority > 7))
				abort();
		}
	}
	struct snmp_vb_map map = { c->map_from, c->map_to, c->n_map };
	struct snmp_vb_value v[2] = {
		{ .kind = SNMP_VB_COUNTER64, .u = UINT64_MAX },
		{ .kind = SNMP_VB_INTEGER, .i = 2, .u = 2 },
	};
	for (size_t i = 0; i < 2; i++) {
		struct snmp_vb_sample s;
		if (snmp_vb_sample(&v[i], c->kind, &map, &s) == 0 &&
		    c->kind == SNMP_SAMPLE_COUNTER && s.width != 32 &&
		    s.width != 64)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	char err[512];
	struct snmp_profile *p = snmp_profile_load_buffer(
	    "fuzz.yaml", (const char *)d, n, NULL, err, sizeof err);
	if (!p) {
		if (!err[0] || strchr(err, '\n'))
			abort();
		return 0;
	}
	if (err[0] || p->n_cols == 0)
		abort();
	for (size_t i = 0; i < p->n_cols; i++) {
		const struct snmp_column *c = &p->cols[i];
		if (!fm_counter_info(c->counter) || c->fallback_for >= (int)i ||
		    !(c->scale > 0))
			abort();
		exercise(c);
	}
	snmp_profile_free(p);
	return 0;
}

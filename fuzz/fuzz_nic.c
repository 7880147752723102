/*
 * fuzz_nic: libFuzzer target for the NIC collector's parsers of outside
 * input: `ethtool -S` text (nic_ethtool_parse, as fabsim's files and any
 * writer of ethtool_dir feed it) and sysfs attribute values, states and
 * rates.
 *
 * Contract checked besides memory errors: a parse that succeeds yields
 * names that are NUL-terminated, trimmed and as long as their recorded
 * length; parsing the same text twice yields the same names generation
 * (no churn without a change); every mapped name maps to a valid counter.
 * Seeds: fuzz/corpus/nic/.
 */
#include "config.h"

#include "counters.h"
#include "nic_ethtool.h"
#include "nic_map.h"
#include "nic_sysfs.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	const char *s = (const char *)d;
	uint64_t v;
	unsigned st;
	double g;
	(void)nic_sysfs_parse_value(s, n, &v);
	(void)nic_sysfs_parse_state(s, n, &st);
	(void)nic_sysfs_parse_rate(s, n, &g);

	struct nic_ethtool *e = nic_ethtool_new_text();
	if (nic_ethtool_parse(e, s, n) == 0) {
		uint64_t gen = nic_ethtool_names_gen(e);
		for (size_t i = 0; i < nic_ethtool_count(e); i++) {
			const char *name = nic_ethtool_name(e, i);
			size_t len = nic_ethtool_name_len(e, i);
			if (strlen(name) != len || len == 0 ||
			    name[len - 1] == ' ' || name[0] == ' ')
				abort();
			struct nic_map m;
			if (nic_map_ethtool(name, len, &m) == 0 &&
			    (!fm_counter_info((enum fm_counter)m.counter) ||
			     m.prio > 7))
				abort();
		}
		if (nic_ethtool_parse(e, s, n) != 0 ||
		    nic_ethtool_names_gen(e) != gen)
			abort();
	}
	nic_ethtool_free(e);
	return 0;
}

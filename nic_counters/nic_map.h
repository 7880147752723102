/*
 * nic_map: what each mlx5 counter name means in fabmon's vocabulary.
 *
 * Three name spaces: the IB port counters (ports/<n>/counters/), the
 * driver's hw_counters (port or device level) and the netdev's ethtool
 * statistics. Each known name maps to a canonical counter, a priority
 * (per-priority ethtool names), the native width (q-counters are 32-bit
 * and wrap), the scale to the canonical unit (port_*_data is in 4-byte
 * words, pause durations in microseconds) and the kind of ceiling the
 * store can check deltas against. Names not in the tables are not
 * exported; the collector counts them as unmapped.
 *
 * Pure functions over constant tables: any thread, no state.
 */
#ifndef FABMON_NIC_MAP_H
#define FABMON_NIC_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What bounds a counter's rate, for the store's spike check. */
enum nic_map_ceiling {
	NIC_MAP_CEIL_NONE,    /* unknown (events): no check */
	NIC_MAP_CEIL_BYTES,   /* line rate in bytes/s */
	NIC_MAP_CEIL_WORDS,   /* line rate in 4-byte words/s */
	NIC_MAP_CEIL_PACKETS, /* line rate in minimum-size frames/s */
	NIC_MAP_CEIL_USEC,    /* 1e6 microseconds per second */
};

struct nic_map {
	uint16_t counter; /* enum fm_counter */
	uint8_t prio;	  /* per-priority counters: 0..7; else 0 */
	uint8_t width;	  /* 32 or 64 */
	double scale;	  /* raw unit -> canonical unit */
	enum nic_map_ceiling ceiling;
	/* Only when the port has no ethtool statistics: the IB port
	   counter duplicates an ethtool one that RoCE ports report. */
	bool no_ethtool;
};

/* A file of ports/<n>/counters/ (hw false) or of a hw_counters/
 * directory (hw true): 0 and *out, or -ENOENT if not mapped. */
int nic_map_sysfs(const char *name, bool hw, struct nic_map *out);
/* An ethtool statistic name of len bytes (not NUL-terminated; trailing
 * spaces already trimmed): 0 and *out, or -ENOENT. */
int nic_map_ethtool(const char *name, size_t len, struct nic_map *out);
/* The ceiling of m in raw units per second for a link of gbps Gb/s; 0
 * when unknown (no ceiling, or the speed is not known). */
double nic_map_max_rate(const struct nic_map *m, double gbps);

#endif

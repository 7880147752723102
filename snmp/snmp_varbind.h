/*
 * snmp_varbind: pure conversions from net-snmp varbinds to what the
 * SNMP collector stores: a typed value (snmp_vb_decode), a counter or
 * gauge sample (snmp_vb_sample) and the row a column instance belongs
 * to (snmp_vb_row).
 *
 * Nothing here keeps state, allocates or touches a session, so every
 * function may be called from any thread; the collector calls them from
 * its loop thread on the varbinds of a response, before net-snmp frees
 * the response PDU. Input comes from the network: every type, length
 * and OID shape is checked, and what does not fit is reported, never
 * trusted.
 */
#ifndef FABMON_SNMP_VARBIND_H
#define FABMON_SNMP_VARBIND_H

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum snmp_vb_kind {
	SNMP_VB_COUNTER32,
	SNMP_VB_COUNTER64,
	SNMP_VB_GAUGE32, /* Gauge32 and Unsigned32 */
	SNMP_VB_TIMETICKS,
	SNMP_VB_INTEGER,
	SNMP_VB_UNSIGNED64, /* Opaque-wrapped 64-bit unsigned */
	SNMP_VB_STRING,
	SNMP_VB_OID,
	SNMP_VB_IPADDRESS,
	SNMP_VB_NULL,
	SNMP_VB_NOSUCHOBJECT,
	SNMP_VB_NOSUCHINSTANCE,
	SNMP_VB_ENDOFMIBVIEW,
	SNMP_VB_OTHER, /* a type the collector does not read */
};

struct snmp_vb_value {
	enum snmp_vb_kind kind;
	uint64_t u;	    /* unsigned kinds; INTEGER when >= 0 */
	int64_t i;	    /* INTEGER */
	const uint8_t *str; /* STRING: borrowed from the varbind, not
			       NUL-terminated */
	size_t len;
};

/* Decodes vb's type and value into *out. 0, or -EINVAL for a value
 * whose length does not fit its type (a malformed answer). */
int snmp_vb_decode(const netsnmp_variable_list *vb, struct snmp_vb_value *out);

/* True for the three exceptions that end a column's walk. */
bool snmp_vb_is_exception(enum snmp_vb_kind k);

/* A value map of a gauge column: integer value -> gauge value. */
struct snmp_vb_map {
	const int64_t *from;
	const double *to;
	size_t n;
};

enum snmp_vb_sample_kind { SNMP_SAMPLE_COUNTER, SNMP_SAMPLE_GAUGE };

struct snmp_vb_sample {
	uint64_t raw;  /* counter: the raw value */
	uint8_t width; /* counter: 32 or 64, from the SNMP type */
	double gauge;  /* gauge: the value, before the column's scale */
};

/*
 * Turns a decoded value into a sample of the given kind. Counters take
 * Counter32/Gauge32/TimeTicks/non-negative INTEGER (width 32) and
 * Counter64/Unsigned64 (width 64); gauges take every numeric kind,
 * through map when map->n > 0 (a value the map lacks is refused).
 * Returns 0, or -EINVAL for a value that cannot be such a sample
 * (strings, exceptions, negative counters).
 */
int snmp_vb_sample(const struct snmp_vb_value *v, enum snmp_vb_sample_kind kind,
		   const struct snmp_vb_map *map, struct snmp_vb_sample *out);

/*
 * Whether a counter sample fits a column declared width bits wide (0:
 * any). 0, or -EPROTO for a 32-bit type (Counter32, Gauge32, TimeTicks,
 * INTEGER) in a 64-bit column or a 64-bit one in a 32-bit column: a
 * 32-bit counter read as a 64-bit one turns its wrap into a delta of
 * nearly 2^64, and values of both widths in one series are no counter.
 */
int snmp_vb_check_width(const struct snmp_vb_sample *s, uint8_t width);

/* One element of a column's row index, in OID order. */
enum snmp_vb_idx {
	SNMP_IDX_PORT,	   /* ifIndex */
	SNMP_IDX_PRIORITY, /* 0..7 after subtracting the base */
	SNMP_IDX_ANY,	   /* any value, ignored */
	SNMP_IDX_FIXED,	   /* must equal the element's value */
};

#define SNMP_VB_MAX_INDEX 8

struct snmp_vb_index {
	enum snmp_vb_idx el[SNMP_VB_MAX_INDEX];
	uint32_t fixed[SNMP_VB_MAX_INDEX];
	size_t n;
	uint32_t priority_base; /* 1 for MIBs that number priorities 1..8 */
};

struct snmp_vb_row {
	uint32_t ifindex; /* 0 if the index has no port */
	int priority;	  /* -1 if the index has no priority */
};

/*
 * The row of instance name[0..name_len) of column col[0..col_len):
 * 0 and *row; -ENOENT if name is not inside the column (the walk left
 * it); -EINVAL if it is, but its index does not have the shape idx
 * describes (wrong length, a fixed element that differs, a priority
 * out of range, ifIndex 0): the row is skipped.
 */
int snmp_vb_row(const oid *col, size_t col_len, const oid *name,
		size_t name_len, const struct snmp_vb_index *idx,
		struct snmp_vb_row *row);

#endif

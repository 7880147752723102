/*
 * snmp_profile: data files that map SNMP table columns to canonical
 * counters (core/counters.h), and the choice of a profile by a
 * switch's sysObjectID.
 *
 * A profile is a YAML file etc/profiles/snmp-<name>.yaml (installed
 * under FABMON_PROFILEDIR) listing columns: a numeric OID, the
 * canonical counter it feeds, how its row index splits into ifIndex,
 * priority and ignored or fixed elements, a scale to the canonical unit,
 * a value map for gauges, and optionally the 64-bit column it stands in
 * for when the agent has none ("fallback_for"). "match" lists the
 * sysObjectID prefixes it is chosen for; "include" pulls in the columns
 * of other profiles (one level). doc/snmp-profiles.md is the format.
 *
 * Profiles are loaded on the main thread and are immutable afterwards,
 * so the collector's loop thread reads them without locks; a set is
 * replaced whole on reload.
 */
#ifndef FABMON_SNMP_PROFILE_H
#define FABMON_SNMP_PROFILE_H

#include "counters.h"
#include "snmp_varbind.h"

#include <stddef.h>
#include <stdint.h>

#define SNMP_PROFILE_MAX_BYTES	(256 * 1024)
#define SNMP_PROFILE_MAX_OID	64
#define SNMP_PROFILE_MAX_VALUES 16
/* The profile chosen when no other profile's match fits. */
#define SNMP_PROFILE_DEFAULT "snmp-generic"

struct snmp_column {
	char *name; /* for messages: the name key, else the dotted OID */
	oid oid[SNMP_PROFILE_MAX_OID];
	size_t oid_len;
	enum fm_counter counter;
	enum snmp_vb_sample_kind kind; /* from the counter's kind */
	struct snmp_vb_index index;
	double scale;	 /* raw -> canonical unit (1) */
	double max_rate; /* raw units/s; 0 unknown */
	int64_t map_from[SNMP_PROFILE_MAX_VALUES];
	double map_to[SNMP_PROFILE_MAX_VALUES];
	size_t n_map;
	/* Counters: the width the column is declared with, 32 or 64 (the
	 * width key; 64 for a column another one is the fallback for), 0
	 * when the varbinds' types say. A varbind of the other width is
	 * refused (snmp_walk.c). */
	uint8_t width;
	/* Index in the profile's columns of the column this one replaces
	 * when that one has no rows on the agent; -1 if none. */
	int fallback_for;
};

struct snmp_profile {
	char *name;
	char *description;
	oid (*match)[SNMP_PROFILE_MAX_OID]; /* sysObjectID prefixes */
	size_t *match_len;
	size_t n_match;
	struct snmp_column *cols; /* includes first, then its own */
	size_t n_cols;
};

/* Loads one profile from a file / a buffer (name stands for the file in
 * messages). includes are looked up in dir (NULL: no includes allowed).
 * NULL on error with "file:line:col: key: message" in err. */
struct snmp_profile *snmp_profile_load(const char *path, const char *dir,
				       char *err, size_t errlen);
struct snmp_profile *snmp_profile_load_buffer(const char *name, const char *buf,
					      size_t len, const char *dir,
					      char *err, size_t errlen);
/* Loads <dir>/<name>.yaml. */
struct snmp_profile *snmp_profile_load_named(const char *dir, const char *name,
					     char *err, size_t errlen);
void snmp_profile_free(struct snmp_profile *p);

/* Every snmp-*.yaml profile of a directory, for automatic choice. */
struct snmp_profile_set {
	struct snmp_profile **v;
	size_t n;
};

/* Loads every snmp-*.yaml of dir into *set; a file that fails is left
 * out and reported through report(ctx, message). Returns the number
 * loaded. */
size_t snmp_profile_set_load(struct snmp_profile_set *set, const char *dir,
			     void (*report)(void *ctx, const char *msg),
			     void *ctx);
void snmp_profile_set_clear(struct snmp_profile_set *set);

/* The profile whose match is the longest prefix of sysoid, else the one
 * named SNMP_PROFILE_DEFAULT, else NULL. Borrowed from set. */
const struct snmp_profile *
snmp_profile_choose(const struct snmp_profile_set *set, const oid *sysoid,
		    size_t len);
/* The profile of set named name, or NULL. */
const struct snmp_profile *snmp_profile_find(const struct snmp_profile_set *set,
					     const char *name);

/* Parses a dotted numeric OID ("1.3.6.1.2.1.1.3" or with a leading
 * dot). 0 or -EINVAL. */
int snmp_oid_parse(const char *s, oid *out, size_t max, size_t *len);
/* Formats an OID as dotted decimal into buf; returns buf. */
char *snmp_oid_format(const oid *o, size_t len, char *buf, size_t size);

#endif

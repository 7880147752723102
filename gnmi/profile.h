/*
 * gnmi_profile: data files that map gNMI paths to canonical counters,
 * and the per-target mapper that turns notifications into store
 * updates with them.
 *
 * A profile is a YAML file in etc/profiles/ (installed under
 * FABMON_PROFILEDIR): its default subscriptions, and its mappings from
 * path patterns with captures ({port}, {priority}, {queue}) to a
 * canonical counter (core/counters.h), with the unit conversion
 * (scale), the counter width and, for fields with a value vocabulary
 * (PFC_WD_STATUS "stormed"/"operational"), a value map; and its name
 * maps, through which counters published per object id resolve to a
 * port and index. Adding a switch vendor means adding a profile, not C
 * code. doc/profiles.md describes the format.
 *
 * A mapper belongs to one target's stream (one thread at a time). It
 * walks each notification (gnmi_value.h), matches each leaf, resolves
 * the store series once and caches the result by path, so a steady
 * stream costs a cache lookup and a store update per leaf and no
 * allocation. Leaves no mapping matches are counted and reported once
 * per path through the unmapped callback; they are never exported raw.
 */
#ifndef FABMON_GNMI_PROFILE_H
#define FABMON_GNMI_PROFILE_H

#include "cfg.h"
#include "gnmi.pb-c.h"
#include "gnmi_cfg.h"
#include "path.h"
#include "store.h"
#include "wire.h"

#include <stddef.h>
#include <stdint.h>

struct gnmi_profile;
struct gnmi_mapper;
struct gnmi_objmap;

/* Loads one profile file. NULL on error, with "file:line:col: key:
 * message" in err (the config loader's conventions). */
struct gnmi_profile *gnmi_profile_load(const char *path, char *err,
				       size_t errlen);
/* Loads a profile from len bytes of YAML at buf (need not be
 * NUL-terminated); name stands for the file in messages. NULL on error,
 * with the message in err, as gnmi_profile_load(). */
struct gnmi_profile *gnmi_profile_load_buffer(const char *name, const char *buf,
					      size_t len, char *err,
					      size_t errlen);
/* Loads <dir>/<name>.yaml. */
struct gnmi_profile *gnmi_profile_load_named(const char *dir, const char *name,
					     char *err, size_t errlen);
void gnmi_profile_free(struct gnmi_profile *p);

const char *gnmi_profile_name(const struct gnmi_profile *p);
/* The profile's default subscriptions (used when the target's config
 * lists none) and the prefix target they go with ("" if none). The
 * array lives as long as p. */
const struct cfg_gnmi_sub *
gnmi_profile_subscriptions(const struct gnmi_profile *p, size_t *n,
			   const char **target);

struct gnmi_mapper_opts {
	struct store *store;
	store_label owner;    /* the target: series owner */
	store_label device;   /* the device label of every series */
	uint32_t interval_ms; /* expected sample interval of the series */
	/* Called once per distinct unmapped path (ctx, printed path). */
	void (*unmapped)(void *ctx, const char *path);
	void *ctx;
	/* Offered every leaf and every delete before the mappings (NULL:
	 * none): what they return true for is theirs (a leaf counts as
	 * mapped, never unmapped). The collector reads LLDP this way
	 * (gnmi/lldp.h). Called with ctx. */
	bool (*leaf_hook)(void *ctx, const struct gnmi_view *v,
			  const struct gnmi_scalar *val);
	bool (*delete_hook)(void *ctx, const struct gnmi_view *v);
	/* The switch's name maps (gnmi/objmap.h), borrowed: the fields of
	 * the profile's maps are written there and paths naming a map's
	 * object are resolved through it. NULL: the profile's maps are
	 * not read (their fields and objects are unmapped). */
	struct gnmi_objmap *objmap;
	/* The prefix target of the stream the mapper serves (NULL or "":
	 * none; copied): mappings with a target: take only its updates. */
	const char *target;
};

/* A mapper for one target; p and the store must outlive it. */
struct gnmi_mapper *gnmi_mapper_new(const struct gnmi_profile *p,
				    const struct gnmi_mapper_opts *o);
void gnmi_mapper_free(struct gnmi_mapper *m);

struct gnmi_apply_stats {
	uint64_t mapped;   /* leaves written to the store */
	uint64_t unmapped; /* leaves no mapping matched */
	uint64_t rejected; /* matched but the value was unusable or the
			      store refused it (conflict, out of order) */
	uint64_t deletes;
	uint64_t bad;	       /* bad JSON, too deep, unsupported values */
	uint64_t map_rejected; /* of rejected: name map fields whose name
				  the map's key does not parse, or whose
				  value is not an object id */
	uint64_t bad_values;   /* of rejected: mapped leaves whose value is
				  not a usable number ("n/a", NaN, a negative
				  counter) */
};

/*
 * Applies one notification: every mapped leaf becomes a store sample at
 * the notification's timestamp (0 means now). Deleted paths mark their
 * series discontinuous. Adds to *st. Never fails as a whole: what
 * cannot be used is counted.
 */
void gnmi_mapper_apply(struct gnmi_mapper *m, const Gnmi__Notification *n,
		       struct gnmi_apply_stats *st);
/*
 * Applies one packed SubscribeResponse read in place (gnmi_wire.h):
 * validates it whole, fills *info (may be NULL) with its kind, and if
 * it is an update, maps it exactly as gnmi_mapper_apply() maps the same
 * message decoded. GNMI_WIRE_OK, or a negative gnmi_wire_result for a
 * message refused whole (nothing applied, *st untouched).
 */
int gnmi_mapper_apply_wire(struct gnmi_mapper *m, const uint8_t *data,
			   size_t len, struct gnmi_apply_stats *st,
			   struct gnmi_wire_info *info);
/* Forgets cached handles (after a reload withdrew the owner's series). */
void gnmi_mapper_reset(struct gnmi_mapper *m);

/*
 * Name maps (maps: in the file; gnmi/objmap.h holds what a switch sends
 * for them). gnmi_profile_maps() is their number; map_info() gives map
 * i's name, its own subscription (*sub: the hash of field -> object id)
 * and its per-object subscription template (*objects, whose path has
 * one {name} element), all living as long as p. map_object_path() is
 * the path that template gives for object id (a new path: the caller
 * clears and frees it), built element by element, so an id with ':'
 * or '/' is one element.
 */
size_t gnmi_profile_maps(const struct gnmi_profile *p);
const char *gnmi_profile_map_info(const struct gnmi_profile *p, size_t i,
				  const struct cfg_gnmi_sub **sub,
				  const struct cfg_gnmi_sub **objects);
struct gnmi_path *gnmi_profile_map_object_path(const struct gnmi_profile *p,
					       size_t i, const char *id);

/* The number of mapping entries of p (ignore entries included). */
size_t gnmi_profile_mappings(const struct gnmi_profile *p);

/* Distinct paths a mapper remembers by default (about 100 bytes each
 * plus the path); paths past it are matched every time. */
#define GNMI_MAPPER_CACHE_MAX (1u << 20)

/* Changes m's path cache limit (entries already cached stay). */
void gnmi_mapper_set_cache_limit(struct gnmi_mapper *m, size_t max_entries);

struct gnmi_mapper_stats {
	uint64_t cache_entries;	 /* distinct paths cached */
	uint64_t cache_hits;	 /* leaves found in the cache */
	uint64_t cache_misses;	 /* leaves matched against the patterns */
	uint64_t uncached;	 /* misses that could not be cached */
	uint64_t resolves;	 /* store_series() calls */
	uint64_t unmapped_paths; /* distinct unmapped paths reported */
	uint64_t map_fields;	 /* name map fields accepted */
	uint64_t map_rejected;	 /* name map fields rejected */
	uint64_t memory_bytes;	 /* held by the mapper and its cache */
};

/* A copy of m's counters (for health output, tests and benchmarks). */
void gnmi_mapper_get_stats(const struct gnmi_mapper *m,
			   struct gnmi_mapper_stats *out);

#endif

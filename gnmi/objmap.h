/*
 * gnmi_objmap: the name maps of one switch, as its target sends them
 * (internal to gnmi/: the mapper writes and reads it, the collector
 * subscribes to the objects it lists).
 *
 * A profile's maps (maps: in the file, doc/profiles.md) are hashes
 * whose field names carry labels ("Ethernet0:3": port and priority)
 * and whose values are object ids ("oid:0x1a0000000003ea"); counters
 * are then published per object id. An objmap holds, per map of the
 * profile, the fields received so far with their object id and the
 * labels parsed out of the field name, indexed by field and by id.
 *
 * Two generations tell users what changed: gen moves whenever any
 * field's object or labels change (the mapper re-resolves paths that
 * went through a map), set_gen only when the set of object ids of some
 * map changes (the collector resubscribes to the objects then, not
 * when the same map is sent again).
 *
 * Threads and ownership: an objmap is shared by the streams of one
 * switch, which run on one collector thread; it is not locked. It is
 * reference counted (gnmi_objmap_ref/unref on that thread, or before
 * the streams are handed to it), and strings passed in are copied.
 */
#ifndef FABMON_GNMI_OBJMAP_H
#define FABMON_GNMI_OBJMAP_H

#include <stddef.h>
#include <stdint.h>

#define GNMI_OBJMAP_CAPS 3 /* the profile's captures: port, priority, queue */

struct gnmi_objmap;

/* The labels of one field: cap[c] is NULL when the map does not
 * capture c, else a NUL-terminated string owned by the objmap. */
struct gnmi_objmap_labels {
	const char *cap[GNMI_OBJMAP_CAPS];
};

/* An objmap for n_maps maps, with one reference. */
struct gnmi_objmap *gnmi_objmap_new(size_t n_maps);
void gnmi_objmap_ref(struct gnmi_objmap *om);
/* Drops a reference; the last one frees om. NULL is a no-op. */
void gnmi_objmap_unref(struct gnmi_objmap *om);

/*
 * Sets field (len bytes) of map to object oid (oid_len bytes) with
 * labels (lab->cap[c] of cap_len[c] bytes, or NULL). Returns 1 if
 * anything changed, 0 if the field already had this value, -EINVAL if
 * a piece is empty, too long or has a NUL. now_ns stamps a change of
 * the object set.
 */
int gnmi_objmap_set(struct gnmi_objmap *om, size_t map, const char *field,
		    size_t len, const char *oid, size_t oid_len,
		    const char *const cap[GNMI_OBJMAP_CAPS],
		    const size_t cap_len[GNMI_OBJMAP_CAPS], int64_t now_ns);
/* Removes field (len bytes) of map, or every field when field is NULL.
 * Returns 1 if anything was removed. */
int gnmi_objmap_delete(struct gnmi_objmap *om, size_t map, const char *field,
		       size_t len, int64_t now_ns);

/* The labels of object oid in map, or NULL if no field names it. The
 * pointer is valid until the next set or delete. */
const struct gnmi_objmap_labels *gnmi_objmap_find(const struct gnmi_objmap *om,
						  size_t map, const char *oid,
						  size_t len);

/* Generations (see above) and the time of the last set change (0:
 * none yet). */
uint64_t gnmi_objmap_gen(const struct gnmi_objmap *om);
uint64_t gnmi_objmap_set_gen(const struct gnmi_objmap *om);
int64_t gnmi_objmap_set_changed_ns(const struct gnmi_objmap *om);

/* The object ids of map, sorted (n_out of them, NUL-terminated
 * strings owned by om, valid until the next set or delete). */
const char *const *gnmi_objmap_objects(struct gnmi_objmap *om, size_t map,
				       size_t *n_out);

/* Fields held in map (live ones). */
size_t gnmi_objmap_size(const struct gnmi_objmap *om, size_t map);

#endif

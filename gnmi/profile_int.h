/*
 * profile_int: internal to gnmi/profile.c and gnmi/mapper.c, the two
 * halves of the profile module (its API is gnmi/profile.h): the
 * compiled form of a loaded profile, which profile.c builds and
 * mapper.c matches leaves against. A loaded profile is immutable, so
 * any number of mappers on any threads read these structs at once.
 */
#ifndef FABMON_PROFILE_INT_H
#define FABMON_PROFILE_INT_H

#include "counters.h"
#include "gnmi_cfg.h"
#include "path.h"
#include "value.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LABEL_MAX 256 /* bytes of a captured port or queue label */

/*
 * Compiled patterns.
 */

enum gp_cap { GP_CAP_PORT, GP_CAP_PRIORITY, GP_CAP_QUEUE, GP_CAP_N };

enum gp_part_type { GP_LIT, GP_STAR, GP_CAP };

struct gp_part {
	enum gp_part_type type;
	enum gp_cap cap; /* GP_CAP */
	const char *s;	 /* GP_LIT: into the owning text */
	size_t len;
};

/* How a name or key value matches, from the cheapest case up; OBJ is
 * a whole element naming an object of a name map ({pg}). */
enum gp_text_kind {
	GP_TEXT_LIT,
	GP_TEXT_ANY,
	GP_TEXT_CAP,
	GP_TEXT_GEN,
	GP_TEXT_OBJ
};

struct gp_text {
	enum gp_text_kind kind;
	char *s; /* the pattern text (owned) */
	size_t len;
	enum gp_cap cap; /* GP_TEXT_CAP */
	size_t obj;	 /* GP_TEXT_OBJ: the name map's index */
	struct gp_part *parts;
	size_t n_parts;
};

struct gp_key {
	char *name;
	size_t name_len;
	struct gp_text value;
};

struct gp_elem {
	struct gp_text name;
	struct gp_key *keys;
	size_t n_keys;
};

struct gp_value {
	char *name;
	double value;
};

/* One mapping entry of the file; ignore entries have counter FM_C_NONE. */
struct gp_map {
	enum fm_counter counter;
	const struct fm_counter_info *info;
	double scale;
	uint8_t width;
	double max_rate;
	struct gp_value *values;
	size_t n_values;
	int priority; /* fixed priority, -1 if none */
	char *queue;  /* fixed queue label, NULL if none */
	char *target; /* only a stream with this prefix target; NULL: any */
	unsigned line;
};

struct gp_pattern {
	const struct gp_map *map; /* NULL for an ignore entry */
	size_t map_idx;
	char *origin;	    /* NULL: any origin */
	const char *target; /* its mapping's target (NULL: any stream) */
	struct gp_elem *elem;
	size_t n;
	ptrdiff_t lit_idx; /* an all-literal element checked first, or -1 */
	bool uses_obj;	   /* an element names a name map's object */
};

/*
 * A name map (maps: in the file): a hash subscribed with sub whose
 * fields arrive as leaves sub_path + one element (the field name,
 * matched against key for its labels) with an object id as value; the
 * collector subscribes to objects with element obj_elem replaced by
 * each id, and patterns name the id with {name}.
 */
struct gp_objdef {
	char *name;
	struct gp_text key;
	unsigned key_caps; /* bit per enum gp_cap the key captures */
	struct cfg_gnmi_sub sub;
	struct gnmi_path sub_path;
	struct cfg_gnmi_sub objects;
	struct gnmi_path obj_path;
	size_t obj_elem;
	unsigned line;
};

struct gp_bucket {
	size_t *idx; /* patterns of this element count, in file order */
	size_t n;
};

struct gnmi_profile {
	char *name;
	char *description;
	char *target;
	struct cfg_gnmi_sub *subs;
	size_t n_subs;
	struct gp_map *maps;
	size_t n_maps;
	struct gp_pattern *pats;
	size_t n_pats;
	struct gp_bucket bucket[GNMI_VIEW_MAX + 1];
	struct gp_objdef *objdefs;
	size_t n_objdefs;
};

#endif

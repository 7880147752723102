/*
 * gnmi_objmap: the name maps of one switch (see objmap.h).
 *
 * Each map keeps its fields in an array that only grows (a deleted
 * field keeps its slot with no object, and setting it again revives
 * it), with two open-addressing indexes of entry numbers + 1: by field
 * name and by object id. Names are hashed with FNV-1a. Adding an object
 * inserts it into the id index; removing or replacing one rebuilds that
 * index (maps change when ports are broken out or buffers reconfigured,
 * not per sample). The sorted object list the collector subscribes to
 * is rebuilt when the set generation moved.
 */
#include "config.h"

#include "objmap.h"

#include "mem.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define PIECE_MAX 256 /* bytes of a field name, an id or a label */

struct om_entry {
	char *field;
	char *oid; /* NULL: deleted */
	struct gnmi_objmap_labels lab;
};

struct om_map {
	struct om_entry *ent;
	size_t n_ent, cap_ent, live;
	uint32_t *by_field, *by_oid;
	size_t n_slot; /* a power of two, at least 2 * n_ent */
	const char **sorted;
	size_t n_sorted;
	uint64_t sorted_gen; /* set_gen the list was built at, + 1 */
};

struct gnmi_objmap {
	unsigned refs;
	struct om_map *maps;
	size_t n_maps;
	uint64_t gen, set_gen;
	int64_t set_changed_ns;
};

static uint64_t hash(const char *s, size_t n)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * UINT64_C(0x100000001b3);
	return h;
}

static bool same(const char *a, const char *s, size_t n)
{
	return a && strncmp(a, s, n) == 0 && a[n] == '\0';
}

/* The slot of field (or oid when by_oid) s in its index: the entry's
 * slot if present, else the empty slot where it goes. */
static size_t slot_of(const struct om_map *m, bool by_oid, const char *s,
		      size_t n)
{
	const uint32_t *idx = by_oid ? m->by_oid : m->by_field;
	size_t mask = m->n_slot - 1;
	for (size_t i = (size_t)hash(s, n) & mask;; i = (i + 1) & mask) {
		if (!idx[i])
			return i;
		const struct om_entry *e = &m->ent[idx[i] - 1];
		if (same(by_oid ? e->oid : e->field, s, n))
			return i;
	}
}

static void rebuild(struct om_map *m, size_t n_slot)
{
	free(m->by_field);
	free(m->by_oid);
	m->n_slot = n_slot;
	m->by_field = xcalloc(n_slot, sizeof *m->by_field);
	m->by_oid = xcalloc(n_slot, sizeof *m->by_oid);
	for (size_t e = 0; e < m->n_ent; e++) {
		const struct om_entry *x = &m->ent[e];
		m->by_field[slot_of(m, false, x->field, strlen(x->field))] =
		    (uint32_t)(e + 1);
		if (x->oid)
			m->by_oid[slot_of(m, true, x->oid, strlen(x->oid))] =
			    (uint32_t)(e + 1);
	}
}

struct gnmi_objmap *gnmi_objmap_new(size_t n_maps)
{
	struct gnmi_objmap *om = xcalloc(1, sizeof *om);
	om->refs = 1;
	om->n_maps = n_maps;
	om->maps = xcalloc(n_maps ? n_maps : 1, sizeof *om->maps);
	for (size_t i = 0; i < n_maps; i++)
		rebuild(&om->maps[i], 16);
	return om;
}

void gnmi_objmap_ref(struct gnmi_objmap *om)
{
	om->refs++;
}

static void entry_clear_labels(struct om_entry *e)
{
	for (int c = 0; c < GNMI_OBJMAP_CAPS; c++) {
		free((char *)e->lab.cap[c]);
		e->lab.cap[c] = NULL;
	}
}

void gnmi_objmap_unref(struct gnmi_objmap *om)
{
	if (!om || --om->refs)
		return;
	for (size_t i = 0; i < om->n_maps; i++) {
		struct om_map *m = &om->maps[i];
		for (size_t e = 0; e < m->n_ent; e++) {
			free(m->ent[e].field);
			free(m->ent[e].oid);
			entry_clear_labels(&m->ent[e]);
		}
		free(m->ent);
		free(m->by_field);
		free(m->by_oid);
		free(m->sorted);
	}
	free(om->maps);
	free(om);
}

static bool piece_ok(const char *s, size_t n)
{
	return s && n > 0 && n < PIECE_MAX && !memchr(s, '\0', n);
}

/* Whether e's labels are cap/cap_len. */
static bool labels_equal(const struct om_entry *e,
			 const char *const cap[GNMI_OBJMAP_CAPS],
			 const size_t cap_len[GNMI_OBJMAP_CAPS])
{
	for (int c = 0; c < GNMI_OBJMAP_CAPS; c++) {
		if (!cap[c] != !e->lab.cap[c])
			return false;
		if (cap[c] && !same(e->lab.cap[c], cap[c], cap_len[c]))
			return false;
	}
	return true;
}

static void set_changed(struct gnmi_objmap *om, int64_t now_ns)
{
	om->set_gen++;
	om->set_changed_ns = now_ns ? now_ns : 1;
}

int gnmi_objmap_set(struct gnmi_objmap *om, size_t map, const char *field,
		    size_t len, const char *oid, size_t oid_len,
		    const char *const cap[GNMI_OBJMAP_CAPS],
		    const size_t cap_len[GNMI_OBJMAP_CAPS], int64_t now_ns)
{
	if (map >= om->n_maps || !piece_ok(field, len) ||
	    !piece_ok(oid, oid_len))
		return -EINVAL;
	for (int c = 0; c < GNMI_OBJMAP_CAPS; c++)
		if (cap[c] && !piece_ok(cap[c], cap_len[c]))
			return -EINVAL;
	struct om_map *m = &om->maps[map];
	size_t fs = slot_of(m, false, field, len);
	struct om_entry *e = NULL;
	if (m->by_field[fs]) {
		e = &m->ent[m->by_field[fs] - 1];
		if (same(e->oid, oid, oid_len) && labels_equal(e, cap, cap_len))
			return 0;
	} else {
		if (m->n_ent == m->cap_ent) {
			m->cap_ent = m->cap_ent ? 2 * m->cap_ent : 64;
			m->ent =
			    xreallocarray(m->ent, m->cap_ent, sizeof *m->ent);
		}
		e = &m->ent[m->n_ent++];
		memset(e, 0, sizeof *e);
		e->field = xstrndup(field, len);
		m->by_field[fs] = (uint32_t)m->n_ent;
	}
	/* The object set changes unless another live field already
	 * names this id and the old one stays named. */
	bool had_oid = e->oid != NULL;
	bool new_known = m->by_oid[slot_of(m, true, oid, oid_len)] != 0;
	bool moved = had_oid && !same(e->oid, oid, oid_len);
	if (!had_oid)
		m->live++;
	if (!same(e->oid, oid, oid_len)) {
		/* (the sorted list points at the ids: kept if unchanged) */
		free(e->oid);
		e->oid = xstrndup(oid, oid_len);
	}
	entry_clear_labels(e);
	for (int c = 0; c < GNMI_OBJMAP_CAPS; c++)
		if (cap[c])
			e->lab.cap[c] = xstrndup(cap[c], cap_len[c]);
	om->gen++;
	if (!new_known || moved)
		set_changed(om, now_ns);
	if (moved || 2 * m->n_ent > m->n_slot)
		rebuild(m,
			2 * m->n_ent > m->n_slot ? 2 * m->n_slot : m->n_slot);
	else
		m->by_oid[slot_of(m, true, oid, oid_len)] =
		    (uint32_t)(e - m->ent + 1);
	return 1;
}

int gnmi_objmap_delete(struct gnmi_objmap *om, size_t map, const char *field,
		       size_t len, int64_t now_ns)
{
	if (map >= om->n_maps)
		return 0;
	struct om_map *m = &om->maps[map];
	bool any = false;
	for (size_t i = 0; i < m->n_ent; i++) {
		struct om_entry *e = &m->ent[i];
		if (!e->oid || (field && !same(e->field, field, len)))
			continue;
		free(e->oid);
		e->oid = NULL;
		entry_clear_labels(e);
		m->live--;
		any = true;
	}
	if (!any)
		return 0;
	om->gen++;
	set_changed(om, now_ns);
	rebuild(m, m->n_slot);
	return 1;
}

const struct gnmi_objmap_labels *gnmi_objmap_find(const struct gnmi_objmap *om,
						  size_t map, const char *oid,
						  size_t len)
{
	if (map >= om->n_maps || !len)
		return NULL;
	const struct om_map *m = &om->maps[map];
	uint32_t i = m->by_oid[slot_of(m, true, oid, len)];
	return i ? &m->ent[i - 1].lab : NULL;
}

uint64_t gnmi_objmap_gen(const struct gnmi_objmap *om)
{
	return om->gen;
}

uint64_t gnmi_objmap_set_gen(const struct gnmi_objmap *om)
{
	return om->set_gen;
}

int64_t gnmi_objmap_set_changed_ns(const struct gnmi_objmap *om)
{
	return om->set_changed_ns;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

const char *const *gnmi_objmap_objects(struct gnmi_objmap *om, size_t map,
				       size_t *n_out)
{
	*n_out = 0;
	if (map >= om->n_maps)
		return NULL;
	struct om_map *m = &om->maps[map];
	if (m->sorted_gen != om->set_gen + 1) {
		free(m->sorted);
		m->sorted = xcalloc(m->live ? m->live : 1, sizeof *m->sorted);
		m->n_sorted = 0;
		for (size_t i = 0; i < m->n_ent; i++)
			if (m->ent[i].oid)
				m->sorted[m->n_sorted++] = m->ent[i].oid;
		qsort(m->sorted, m->n_sorted, sizeof *m->sorted, cmp_str);
		/* One path per object even if two fields share it. */
		size_t k = 0;
		for (size_t i = 0; i < m->n_sorted; i++)
			if (k == 0 || strcmp(m->sorted[k - 1], m->sorted[i]))
				m->sorted[k++] = m->sorted[i];
		m->n_sorted = k;
		m->sorted_gen = om->set_gen + 1;
	}
	*n_out = m->n_sorted;
	return m->sorted;
}

size_t gnmi_objmap_size(const struct gnmi_objmap *om, size_t map)
{
	return map < om->n_maps ? om->maps[map].live : 0;
}

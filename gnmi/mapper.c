/*
 * mapper: the per-target half of the profile module (API in profile.h,
 * shared structs in profile_int.h): matches gNMI leaves against a
 * loaded profile's compiled patterns and writes them to the store,
 * with a path cache. Moved out of gnmi/profile.c unchanged.
 *
 * A mapper belongs to one thread at a time (one target's stream). For
 * each leaf it serializes the joined path (origin, element names, keys)
 * into a scratch buffer, hashes it and looks it up in an open-addressing
 * cache; a hit carries the mapping, the store key and the series handle,
 * so the steady state is a hash, a memcmp and a store update, with no
 * allocation. A miss runs the patterns once, interns the labels and
 * caches the outcome, mapped or not (a negative entry is what makes
 * "report each unmapped path once" cheap). The cache stops growing at
 * its limit (GNMI_MAPPER_CACHE_MAX entries by default); paths seen after
 * that are matched every time and unmapped ones are no longer reported.
 * Handles are resolved lazily and again when the store answers -ESTALE
 * (the owner's series were withdrawn) or after gnmi_mapper_reset().
 *
 * A mapper serves one stream, so the prefix target its updates come
 * with is fixed: mappings restricted to another target (target: in the
 * profile, such as APPL_DB's PORT_TABLE on a SONiC switch) are passed
 * over when matching, and cached outcomes stay right.
 *
 * Name maps: with an objmap (gnmi/objmap.h), a leaf directly under a
 * map's path is one of its fields and goes to the objmap (or is
 * rejected), before the cache; an element that names a map's object
 * matches the ids the objmap holds. Cache entries whose outcome
 * depended on a map carry the objmap's generation and are matched again
 * when it moved, so a map change re-resolves them once.
 *
 * Ownership: the mapper owns its cache and key arena, and borrows the
 * profile and the store, which must outlive it.
 */
#include "config.h"

#include "profile.h"

#include "counters.h"
#include "clock.h"
#include "log.h"
#include "mem.h"
#include "objmap.h"
#include "path.h"
#include "profile_int.h"
#include "value.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(GP_CAP_N == GNMI_OBJMAP_CAPS, "objmap labels are captures");

/* Mapper limits. */
#define KEY_MAX	    4096 /* serialized path bytes a cache key may hold */
#define ARENA_CHUNK (64 * 1024)

/* Bytes that separate the pieces of a serialized path. */
#define SEP_ELEM   '\0'
#define SEP_KEY	   '\x01'
#define SEP_VALUE  '\x02'
#define SEP_ORIGIN '\x03'

/*
 * Matching.
 */

struct gp_match {
	const char *cap[GP_CAP_N];
	size_t cap_len[GP_CAP_N];
};

/* Parts from i on against s; captures are the shortest that work. */
static bool parts_match(const struct gp_part *parts, size_t i, size_t n,
			const char *s, size_t len, struct gp_match *mt)
{
	if (i == n)
		return len == 0;
	const struct gp_part *p = &parts[i];
	if (p->type == GP_LIT) {
		if (len < p->len || memcmp(s, p->s, p->len) != 0)
			return false;
		return parts_match(parts, i + 1, n, s + p->len, len - p->len,
				   mt);
	}
	/* A capture or '*': the next part, if any, is literal. */
	const struct gp_part *next = i + 1 < n ? &parts[i + 1] : NULL;
	size_t min = p->type == GP_CAP ? 1 : 0;
	if (!next) {
		if (len < min)
			return false;
		if (p->type == GP_CAP) {
			mt->cap[p->cap] = s;
			mt->cap_len[p->cap] = len;
		}
		return true;
	}
	for (size_t k = min; k + next->len <= len; k++) {
		if (memcmp(s + k, next->s, next->len) != 0)
			continue;
		if (parts_match(parts, i + 1, n, s + k, len - k, mt)) {
			if (p->type == GP_CAP) {
				mt->cap[p->cap] = s;
				mt->cap_len[p->cap] = k;
			}
			return true;
		}
	}
	return false;
}

/* An object id of name map t->obj: its labels become the captures. */
static bool object_match(const struct gp_text *t, const char *s, size_t len,
			 struct gp_match *mt, const struct gnmi_objmap *om)
{
	const struct gnmi_objmap_labels *lab =
	    om ? gnmi_objmap_find(om, t->obj, s, len) : NULL;
	if (!lab)
		return false;
	for (int c = 0; c < GP_CAP_N; c++) {
		if (!lab->cap[c])
			continue;
		mt->cap[c] = lab->cap[c];
		mt->cap_len[c] = strlen(lab->cap[c]);
	}
	return true;
}

static bool text_match(const struct gp_text *t, const char *s, size_t len,
		       struct gp_match *mt, const struct gnmi_objmap *om)
{
	switch (t->kind) {
	case GP_TEXT_LIT:
		return len == t->len && memcmp(s, t->s, len) == 0;
	case GP_TEXT_ANY:
		return true;
	case GP_TEXT_CAP:
		if (len == 0)
			return false;
		mt->cap[t->cap] = s;
		mt->cap_len[t->cap] = len;
		return true;
	case GP_TEXT_OBJ:
		return object_match(t, s, len, mt, om);
	case GP_TEXT_GEN:
		break;
	}
	return parts_match(t->parts, 0, t->n_parts, s, len, mt);
}

static bool pattern_match(const struct gp_pattern *p, const struct gnmi_view *v,
			  struct gp_match *mt, const struct gnmi_objmap *om)
{
	if (p->origin && strcmp(p->origin, v->origin) != 0)
		return false;
	if (p->lit_idx >= 0) {
		const struct gp_text *t = &p->elem[p->lit_idx].name;
		const struct gnmi_view_elem *e = &v->elem[p->lit_idx];
		if (e->name_len != t->len || memcmp(e->name, t->s, t->len))
			return false;
	}
	memset(mt, 0, sizeof *mt);
	for (size_t i = 0; i < p->n; i++) {
		const struct gp_elem *pe = &p->elem[i];
		const struct gnmi_view_elem *e = &v->elem[i];
		if (!text_match(&pe->name, e->name, e->name_len, mt, om))
			return false;
		for (size_t k = 0; k < pe->n_keys; k++) {
			const struct gp_key *pk = &pe->keys[k];
			size_t j;
			for (j = 0; j < e->n_keys; j++)
				if (e->keys[j].name_len == pk->name_len &&
				    !memcmp(e->keys[j].name, pk->name,
					    pk->name_len))
					break;
			if (j == e->n_keys ||
			    !text_match(&pk->value, e->keys[j].value,
					e->keys[j].value_len, mt, NULL))
				return false;
		}
	}
	return true;
}

/* Parses a captured priority: decimal 0..7, else -1. */
static int parse_priority(const char *s, size_t len)
{
	int v = 0;

	if (len == 0 || len > 3)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v <= 7 ? v : -1;
}

/* Captured labels must be usable: a priority 0..7, labels that fit. */
static bool captures_usable(const struct gp_match *mt, int *priority)
{
	*priority = -1;
	for (int c = 0; c < GP_CAP_N; c++)
		if (mt->cap[c] && (mt->cap_len[c] >= LABEL_MAX ||
				   memchr(mt->cap[c], '\0', mt->cap_len[c])))
			return false;
	if (mt->cap[GP_CAP_PRIORITY]) {
		*priority = parse_priority(mt->cap[GP_CAP_PRIORITY],
					   mt->cap_len[GP_CAP_PRIORITY]);
		if (*priority < 0)
			return false;
	}
	return true;
}

/*
 * The first pattern (file order) that matches v, on a stream with prefix
 * target target, with usable captures, or NULL; *priority is the captured
 * priority (or -1). *dep is set if a pattern that names a map's object was
 * tried: the outcome then depends on the map.
 */
static const struct gp_pattern *
profile_match(const struct gnmi_profile *p, const struct gnmi_view *v,
	      const char *target, struct gp_match *mt, int *priority,
	      const struct gnmi_objmap *om, bool *dep)
{
	*priority = -1;
	*dep = false;
	if (v->n > GNMI_VIEW_MAX)
		return NULL;
	const struct gp_bucket *b = &p->bucket[v->n];
	for (size_t i = 0; i < b->n; i++) {
		const struct gp_pattern *pat = &p->pats[b->idx[i]];
		/* Another database's mapping (the stream's target is the
		 * mapper's for good, so its cache stays right). */
		if (pat->target && strcmp(pat->target, target) != 0)
			continue;
		*dep = *dep || pat->uses_obj;
		if (!pattern_match(pat, v, mt, om))
			continue;
		if (!pat->map || captures_usable(mt, priority))
			return pat;
	}
	return NULL;
}

/*
 * The mapper.
 */

struct gm_entry {
	uint64_t hash;
	const char *kb; /* serialized path, in the arena */
	uint32_t key_len;
	bool reported;		  /* unmapped path given to the callback */
	bool obj_dep;		  /* resolved through a name map ... */
	uint64_t obj_gen;	  /* ... at this objmap generation */
	const struct gp_map *map; /* NULL: unmapped or ignored */
	store_handle h;		  /* 0: resolve before use */
	struct store_key key;
};

struct gm_chunk {
	struct gm_chunk *next;
	size_t used, cap;
	char data[];
};

struct gnmi_mapper {
	const struct gnmi_profile *p;
	struct gnmi_mapper_opts o;
	char *target; /* o.target's copy, "" if none */
	size_t cache_max;
	/* The cache: entries, and an index of entry numbers + 1. */
	struct gm_entry *ent;
	size_t n_ent, cap_ent;
	uint32_t *slot;
	size_t n_slot; /* a power of two, at least 2 * n_ent */
	struct gm_chunk *arena;
	size_t arena_bytes;
	bool full_logged;
	/* The notification being applied. */
	int64_t ts;
	int64_t now_ns; /* monotonic, for the objmap's change times */
	struct gnmi_apply_stats *st;
	struct gnmi_mapper_stats ms;
	/* Scratch: a serialized key, a printed path, a label. */
	char kbuf[KEY_MAX];
	char pbuf[KEY_MAX];
	char lbuf[LABEL_MAX];
};

/* Serializes v (origin, names, keys) into buf; -1 if it does not fit. */
static ptrdiff_t key_serialize(const struct gnmi_view *v, char *buf, size_t cap)
{
	size_t n = 0;

#define PUT(src, len)                          \
	do {                                   \
		if ((len) > cap - n)           \
			return -1;             \
		memcpy(buf + n, (src), (len)); \
		n += (len);                    \
	} while (0)
#define PUTC(c)                    \
	do {                       \
		if (n == cap)      \
			return -1; \
		buf[n++] = (c);    \
	} while (0)

	if (v->origin[0]) {
		PUT(v->origin, strlen(v->origin));
		PUTC(SEP_ORIGIN);
	}
	for (size_t i = 0; i < v->n; i++) {
		const struct gnmi_view_elem *e = &v->elem[i];
		PUT(e->name, e->name_len);
		for (size_t k = 0; k < e->n_keys; k++) {
			PUTC(SEP_KEY);
			PUT(e->keys[k].name, e->keys[k].name_len);
			PUTC(SEP_VALUE);
			PUT(e->keys[k].value, e->keys[k].value_len);
		}
		PUTC(SEP_ELEM);
	}
#undef PUT
#undef PUTC
	return (ptrdiff_t)n;
}

/* A 64-bit multiply-xorshift hash over 8-byte words. Not keyed: a
 * target that forged colliding paths would only slow its own mapper. */
static uint64_t key_hash(const char *p, size_t n)
{
	const uint64_t k = UINT64_C(0x9e3779b97f4a7c15);
	uint64_t h = UINT64_C(0x243f6a8885a308d3) ^ (n * k);
	uint64_t w;

	while (n >= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * k;
		h ^= h >> 29;
		p += 8;
		n -= 8;
	}
	if (n) {
		w = 0;
		memcpy(&w, p, n);
		h = (h ^ w) * k;
	}
	h ^= h >> 32;
	h *= UINT64_C(0xd6e8feb86659fd93);
	h ^= h >> 32;
	return h;
}

static struct gm_entry *cache_find(struct gnmi_mapper *m, uint64_t h,
				   const char *key, size_t len)
{
	if (!m->n_slot)
		return NULL;
	size_t mask = m->n_slot - 1;
	for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
		uint32_t s = m->slot[i];
		if (!s)
			return NULL;
		struct gm_entry *e = &m->ent[s - 1];
		if (e->hash == h && e->key_len == len &&
		    memcmp(e->kb, key, len) == 0)
			return e;
	}
}

static void cache_grow_index(struct gnmi_mapper *m)
{
	size_t n = m->n_slot ? 2 * m->n_slot : 1024;
	uint32_t *slot = xcalloc(n, sizeof *slot);
	for (size_t e = 0; e < m->n_ent; e++) {
		size_t i = (size_t)m->ent[e].hash & (n - 1);
		while (slot[i])
			i = (i + 1) & (n - 1);
		slot[i] = (uint32_t)(e + 1);
	}
	free(m->slot);
	m->slot = slot;
	m->n_slot = n;
}

static const char *arena_copy(struct gnmi_mapper *m, const char *s, size_t n)
{
	struct gm_chunk *c = m->arena;
	if (!c || c->cap - c->used < n) {
		size_t cap = n > ARENA_CHUNK ? n : ARENA_CHUNK;
		c = xmalloc(sizeof *c + cap);
		c->next = m->arena;
		c->used = 0;
		c->cap = cap;
		m->arena = c;
		m->arena_bytes += sizeof *c + cap;
	}
	char *d = c->data + c->used;
	memcpy(d, s, n);
	c->used += n;
	return d;
}

/* Adds an entry for key; NULL when the cache is at its limit. */
static struct gm_entry *cache_add(struct gnmi_mapper *m, uint64_t h,
				  const char *key, size_t len)
{
	if (m->n_ent >= m->cache_max) {
		if (!m->full_logged)
			log_warn("gnmi",
				 "%s: path cache full (%zu paths): new paths "
				 "are matched every time",
				 store_label_str(m->o.store, m->o.owner)
				     ? store_label_str(m->o.store, m->o.owner)
				     : "?",
				 m->n_ent);
		m->full_logged = true;
		return NULL;
	}
	if (2 * (m->n_ent + 1) > m->n_slot)
		cache_grow_index(m);
	if (m->n_ent == m->cap_ent) {
		m->cap_ent = m->cap_ent ? 2 * m->cap_ent : 512;
		m->ent = xreallocarray(m->ent, m->cap_ent, sizeof *m->ent);
	}
	struct gm_entry *e = &m->ent[m->n_ent];
	memset(e, 0, sizeof *e);
	e->hash = h;
	e->kb = arena_copy(m, key, len);
	e->key_len = (uint32_t)len;
	size_t mask = m->n_slot - 1, i = (size_t)h & mask;
	while (m->slot[i])
		i = (i + 1) & mask;
	m->slot[i] = (uint32_t)++m->n_ent;
	m->ms.cache_entries = m->n_ent;
	return e;
}

/* Interns a captured label (copied to be NUL-terminated). */
static store_label intern_slice(struct gnmi_mapper *m, const char *s,
				size_t len)
{
	memcpy(m->lbuf, s, len);
	m->lbuf[len] = '\0';
	return store_intern(m->o.store, m->lbuf);
}

/*
 * The outcome of matching v into e: its mapping and store key, or map
 * NULL (no mapping, an ignore entry, or captures that do not make a
 * key). Returns true if a mapping matched (ignored or not).
 */
static bool entry_resolve_match(struct gnmi_mapper *m,
				const struct gnmi_view *v, struct gm_entry *e)
{
	struct gp_match mt;
	int prio;
	bool dep;
	const struct gp_pattern *pat =
	    profile_match(m->p, v, m->target, &mt, &prio, m->o.objmap, &dep);

	e->obj_dep = dep && m->o.objmap;
	e->obj_gen = e->obj_dep ? gnmi_objmap_gen(m->o.objmap) : 0;
	e->map = NULL;
	e->h = 0;
	memset(&e->key, 0, sizeof e->key);
	if (!pat)
		return false;
	if (!pat->map)
		return true;
	const struct gp_map *map = pat->map;
	struct store_key k = { .device = m->o.device,
			       .counter = (uint16_t)map->counter };
	k.port = intern_slice(m, mt.cap[GP_CAP_PORT], mt.cap_len[GP_CAP_PORT]);
	if (map->info->sub == FM_SUB_PRIORITY)
		k.sub = (uint32_t)(map->priority >= 0 ? map->priority : prio);
	else if (map->info->sub == FM_SUB_QUEUE)
		k.sub = map->queue ? store_intern(m->o.store, map->queue)
				   : intern_slice(m, mt.cap[GP_CAP_QUEUE],
						  mt.cap_len[GP_CAP_QUEUE]);
	e->map = map;
	e->key = k;
	return true;
}

static store_handle entry_series(struct gnmi_mapper *m, struct gm_entry *e)
{
	struct store_series_spec spec = {
		.owner = m->o.owner,
		.width = e->map->width,
		.scale = e->map->scale,
		.max_rate = e->map->max_rate,
		.interval_ms = m->o.interval_ms,
	};
	m->ms.resolves++;
	e->h = store_series(m->o.store, &e->key, &spec);
	return e->h;
}

static int gauge_value(const struct gp_map *map, const struct gnmi_scalar *v,
		       double *out)
{
	if (!map->n_values || v->kind != GNMI_SCALAR_STRING)
		return gnmi_scalar_double(v, out);
	for (int pass = 0; pass < 2; pass++) {
		const char *s = v->s;
		size_t len = v->len;
		if (pass == 1) {
			/* An identity may come with its module prefix
			 * ("openconfig-if-types:UP"). */
			const char *c = memrchr(s, ':', len);
			if (!c)
				break;
			len -= (size_t)(c + 1 - s);
			s = c + 1;
		}
		for (size_t i = 0; i < map->n_values; i++)
			if (strlen(map->values[i].name) == len &&
			    memcmp(map->values[i].name, s, len) == 0) {
				*out = map->values[i].value;
				return 0;
			}
	}
	/* JSON_IETF sends numbers as strings too. */
	return gnmi_scalar_double(v, out);
}

/* Writes one value of a mapped entry; 0 or a negative errno. A value
 * that is not a usable number (a string such as "n/a", a negative or
 * fractional counter, NaN) is counted in the stats' bad_values. */
static int entry_write(struct gnmi_mapper *m, struct gm_entry *e,
		       const struct gnmi_scalar *v)
{
	uint64_t raw = 0;
	double d = 0;
	bool gauge = e->map->info->kind == FM_KIND_GAUGE;
	int rc = gauge ? gauge_value(e->map, v, &d) : gnmi_scalar_u64(v, &raw);

	if (!rc && gauge && !isfinite(d))
		rc = -ERANGE;
	if (rc) {
		m->st->bad_values++;
		return rc;
	}
	for (int attempt = 0; attempt < 2; attempt++) {
		if (!e->h && !entry_series(m, e))
			return -EEXIST;
		rc = gauge ? store_set_gauge(m->o.store, e->h, d, m->ts)
			   : store_update(m->o.store, e->h, raw, m->ts);
		if (rc != -ESTALE)
			return rc;
		e->h = 0;
	}
	return rc;
}

static void report_unmapped(struct gnmi_mapper *m, const struct gnmi_view *v)
{
	m->ms.unmapped_paths++;
	if (!m->o.unmapped)
		return;
	gnmi_view_format(v, m->pbuf, sizeof m->pbuf);
	m->o.unmapped(m->o.ctx, m->pbuf);
}

/*
 * Name maps: a leaf directly under a map's path is one of its fields.
 */

/* The name map whose path v is (extra 0) or whose field v is (extra
 * 1), or -1. */
static ptrdiff_t map_of(const struct gnmi_profile *p, const struct gnmi_view *v,
			size_t extra)
{
	for (size_t i = 0; i < p->n_objdefs; i++) {
		const struct gnmi_path *sp = &p->objdefs[i].sub_path;
		bool ok = v->n == sp->n_elem + extra;
		for (size_t k = 0; ok && k < sp->n_elem; k++) {
			const struct gnmi_path_elem *pe = &sp->elem[k];
			const struct gnmi_view_elem *e = &v->elem[k];
			ok = e->name_len == strlen(pe->name) &&
			     !memcmp(e->name, pe->name, e->name_len) &&
			     e->n_keys == pe->n_keys;
			for (size_t j = 0; ok && j < pe->n_keys; j++)
				ok =
				    e->keys[j].name_len ==
					strlen(pe->keys[j].name) &&
				    !memcmp(e->keys[j].name, pe->keys[j].name,
					    e->keys[j].name_len) &&
				    e->keys[j].value_len ==
					strlen(pe->keys[j].value) &&
				    !memcmp(e->keys[j].value, pe->keys[j].value,
					    e->keys[j].value_len);
		}
		if (ok)
			return (ptrdiff_t)i;
	}
	return -1;
}

/* A field of a name map: its labels from the key pattern, its value
 * the object id. A field the key does not parse, or a value that is
 * not an id, is rejected (counted; the map keeps its other fields). */
static bool map_leaf(struct gnmi_mapper *m, const struct gnmi_view *v,
		     const struct gnmi_scalar *val)
{
	ptrdiff_t i = map_of(m->p, v, 1);
	if (i < 0)
		return false;
	const struct gp_objdef *d = &m->p->objdefs[i];
	const struct gnmi_view_elem *f = &v->elem[v->n - 1];
	struct gp_match mt;
	int prio;
	memset(&mt, 0, sizeof mt);
	bool ok = val->kind == GNMI_SCALAR_STRING &&
		  text_match(&d->key, f->name, f->name_len, &mt, NULL) &&
		  captures_usable(&mt, &prio) &&
		  gnmi_objmap_set(m->o.objmap, (size_t)i, f->name, f->name_len,
				  val->s, val->len, mt.cap, mt.cap_len,
				  m->now_ns) >= 0;
	if (ok) {
		m->st->mapped++;
		m->ms.map_fields++;
	} else {
		m->st->rejected++;
		m->st->map_rejected++;
		m->ms.map_rejected++;
	}
	return true;
}

/* A delete of a map's field, or of the whole map. */
static bool map_delete(struct gnmi_mapper *m, const struct gnmi_view *v)
{
	ptrdiff_t i = map_of(m->p, v, 0);
	if (i >= 0) {
		gnmi_objmap_delete(m->o.objmap, (size_t)i, NULL, 0, m->now_ns);
		return true;
	}
	i = map_of(m->p, v, 1);
	if (i < 0)
		return false;
	const struct gnmi_view_elem *f = &v->elem[v->n - 1];
	gnmi_objmap_delete(m->o.objmap, (size_t)i, f->name, f->name_len,
			   m->now_ns);
	return true;
}

static void on_leaf(void *ctx, const struct gnmi_view *v,
		    const struct gnmi_scalar *val)
{
	struct gnmi_mapper *m = ctx;
	struct gm_entry tmp, *e = NULL;

	if (m->o.leaf_hook && m->o.leaf_hook(m->o.ctx, v, val)) {
		m->st->mapped++;
		return;
	}
	if (m->o.objmap && m->p->n_objdefs && map_leaf(m, v, val))
		return;
	ptrdiff_t len = key_serialize(v, m->kbuf, sizeof m->kbuf);
	uint64_t h = 0;

	if (len >= 0) {
		h = key_hash(m->kbuf, (size_t)len);
		e = cache_find(m, h, m->kbuf, (size_t)len);
	}
	if (e && e->obj_dep && e->obj_gen != gnmi_objmap_gen(m->o.objmap)) {
		/* The map changed since: match again (reported stays). */
		m->ms.cache_hits++;
		if (!entry_resolve_match(m, v, e) && !e->reported) {
			e->reported = true;
			report_unmapped(m, v);
		}
	} else if (e) {
		m->ms.cache_hits++;
	} else {
		m->ms.cache_misses++;
		if (len >= 0)
			e = cache_add(m, h, m->kbuf, (size_t)len);
		if (!e) {
			m->ms.uncached++;
			memset(&tmp, 0, sizeof tmp);
			e = &tmp;
		}
		bool matched = entry_resolve_match(m, v, e);
		if (!matched && e != &tmp) {
			e->reported = true;
			report_unmapped(m, v);
		}
	}
	if (!e->map) {
		m->st->unmapped++;
		return;
	}
	if (entry_write(m, e, val) == 0)
		m->st->mapped++;
	else
		m->st->rejected++;
}

static void mark_entry(struct gnmi_mapper *m, struct gm_entry *e)
{
	if (!e->map)
		return;
	if (!e->h)
		e->h = store_lookup(m->o.store, &e->key);
	if (e->h && store_mark_discontinuity(m->o.store, e->h) == -ESTALE)
		e->h = 0;
}

/*
 * A delete names a leaf or a subtree: every cached series under it is
 * marked discontinuous (a scan of the cache: deletes are rare), and a
 * leaf never seen by this mapper is matched against the patterns.
 */
static void on_delete(void *ctx, const struct gnmi_view *v)
{
	struct gnmi_mapper *m = ctx;
	if (m->o.delete_hook && m->o.delete_hook(m->o.ctx, v))
		return;
	if (m->o.objmap && m->p->n_objdefs && map_delete(m, v))
		return;
	ptrdiff_t len = key_serialize(v, m->kbuf, sizeof m->kbuf);
	bool any = false;

	if (len >= 0) {
		for (size_t i = 0; i < m->n_ent; i++) {
			struct gm_entry *e = &m->ent[i];
			if (e->key_len >= (size_t)len &&
			    memcmp(e->kb, m->kbuf, (size_t)len) == 0) {
				mark_entry(m, e);
				any = any || e->map;
			}
		}
	}
	if (!any) {
		struct gm_entry tmp = { 0 };
		if (entry_resolve_match(m, v, &tmp))
			mark_entry(m, &tmp);
	}
}

struct gnmi_mapper *gnmi_mapper_new(const struct gnmi_profile *p,
				    const struct gnmi_mapper_opts *o)
{
	struct gnmi_mapper *m = xcalloc(1, sizeof *m);
	m->p = p;
	m->o = *o;
	m->target = xstrdup(o->target ? o->target : "");
	m->o.target = m->target;
	m->cache_max = GNMI_MAPPER_CACHE_MAX;
	return m;
}

void gnmi_mapper_free(struct gnmi_mapper *m)
{
	if (!m)
		return;
	while (m->arena) {
		struct gm_chunk *c = m->arena;
		m->arena = c->next;
		free(c);
	}
	free(m->ent);
	free(m->slot);
	free(m->target);
	free(m);
}

/* Points the callbacks at st and the timestamp (0 or nonsense: now). */
static void apply_begin(struct gnmi_mapper *m, int64_t timestamp,
			struct gnmi_apply_stats *st)
{
	m->ts = timestamp > 0 ? timestamp : 0;
	m->now_ns = m->o.objmap ? mono_ns() : 0;
	m->st = st;
}

static void apply_end(struct gnmi_mapper *m, const struct gnmi_walk_stats *ws)
{
	m->st->deletes += ws->deletes;
	m->st->bad += ws->bad_json + ws->too_deep + ws->unsupported;
	m->st = NULL;
}

void gnmi_mapper_apply(struct gnmi_mapper *m, const Gnmi__Notification *n,
		       struct gnmi_apply_stats *st)
{
	struct gnmi_apply_stats dummy = { 0 };
	struct gnmi_walk_stats ws = { 0 };

	apply_begin(m, n->timestamp, st ? st : &dummy);
	gnmi_walk_notification(n, on_leaf, on_delete, m, &ws);
	apply_end(m, &ws);
}

int gnmi_mapper_apply_wire(struct gnmi_mapper *m, const uint8_t *data,
			   size_t len, struct gnmi_apply_stats *st,
			   struct gnmi_wire_info *info)
{
	struct gnmi_apply_stats dummy = { 0 };
	struct gnmi_walk_stats ws = { 0 };
	struct gnmi_wire_info local;
	int rc;

	if (!info)
		info = &local;
	rc = gnmi_wire_parse(data, len, info);
	if (rc < 0 || info->kind != GNMI_WIRE_UPDATE)
		return rc;
	apply_begin(m, info->timestamp, st ? st : &dummy);
	gnmi_wire_walk(info, on_leaf, on_delete, m, &ws);
	apply_end(m, &ws);
	return GNMI_WIRE_OK;
}

void gnmi_mapper_reset(struct gnmi_mapper *m)
{
	for (size_t i = 0; i < m->n_ent; i++)
		m->ent[i].h = 0;
}

void gnmi_mapper_set_cache_limit(struct gnmi_mapper *m, size_t max_entries)
{
	m->cache_max =
	    max_entries < UINT32_MAX - 1 ? max_entries : UINT32_MAX - 1;
}

void gnmi_mapper_get_stats(const struct gnmi_mapper *m,
			   struct gnmi_mapper_stats *out)
{
	*out = m->ms;
	out->cache_entries = m->n_ent;
	out->memory_bytes = sizeof *m + m->cap_ent * sizeof *m->ent +
			    m->n_slot * sizeof *m->slot + m->arena_bytes;
}

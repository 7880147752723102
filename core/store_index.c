/*
 * store_index: the counter store's key index (see store.c for its
 * layout and locking): series created and looked up by key, and
 * withdrawn by owner. Everything here runs under index_lock (lock
 * order: index_lock, then a slot lock, then ring_lock); store_update
 * never comes here.
 */
#include "config.h"

#include "store.h"
#include "store_int.h"

#include "counters.h"
#include "mem.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The key index (index_lock held). */

static uint32_t store_key_hash(const struct store_key *k)
{
	uint64_t x = ((uint64_t)k->device << 32 | k->port);
	x ^= ((uint64_t)k->sub << 16 | k->counter) * 0x9e3779b97f4a7c15ull;
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return (uint32_t)(x >> 32);
}

static bool store_key_eq(const struct store_key *a, const struct store_key *b)
{
	return a->device == b->device && a->port == b->port &&
	       a->sub == b->sub && a->counter == b->counter;
}

/* The position of key in the index, or -1. */
static ptrdiff_t store_index_find(const struct store *st,
				  const struct store_key *key, uint32_t h)
{
	size_t mask = st->index_cap - 1;
	for (size_t i = h & mask; st->index[i]; i = (i + 1) & mask) {
		uint64_t e = st->index[i];
		if ((uint32_t)(e >> 32) != h)
			continue;
		if (store_key_eq(&store_slot_at(st, (uint32_t)e - 1)->key, key))
			return (ptrdiff_t)i;
	}
	return -1;
}

void store_hash_grow(struct store *st, uint64_t **tabp, size_t *capp)
{
	size_t old_cap = *capp, cap = old_cap * 2;
	uint64_t *old = *tabp;
	uint64_t *tab = xcalloc(cap, sizeof *tab);
	for (size_t i = 0; i < old_cap; i++)
		if (old[i])
			store_hash_insert(tab, cap, old[i]);
	free(old);
	store_mem_sub(st, old_cap * sizeof *tab);
	store_mem_add(st, cap * sizeof *tab);
	*tabp = tab;
	*capp = cap;
}

/* Backward-shift deletion keeps probe chains intact without tombstones. */
static void store_index_remove_at(struct store *st, size_t i)
{
	size_t mask = st->index_cap - 1;
	size_t j = i;
	for (;;) {
		j = (j + 1) & mask;
		uint64_t e = st->index[j];
		if (!e)
			break;
		size_t home = (size_t)(e >> 32) & mask;
		bool movable =
		    j > i ? (home <= i || home > j) : (home <= i && home > j);
		if (movable) {
			st->index[i] = e;
			i = j;
		}
	}
	st->index[i] = 0;
	st->index_used--;
}

/* A slot for a new series, or UINT32_MAX when the store is full. The
 * slot is not yet visible to readers if it is new (nslots unchanged). */
static uint32_t store_slot_alloc(struct store *st)
{
	if (st->free_head) {
		uint32_t idx = st->free_head - 1;
		st->free_head = store_slot_at(st, idx)->next_free;
		return idx;
	}
	uint32_t n = atomic_load_explicit(&st->nslots, memory_order_relaxed);
	if (n >= STORE_MAX_SLOTS)
		return UINT32_MAX;
	uint32_t c = n >> STORE_CHUNK_SHIFT;
	if (!st->chunks[c]) {
		size_t size = STORE_CHUNK_SLOTS * (sizeof(struct store_slot) +
						   sizeof(struct store_fig) +
						   sizeof(atomic_uint)) +
			      STORE_SLOT_ALIGN;
		char *mem = xcalloc(1, size);
		uintptr_t a = ((uintptr_t)mem + STORE_SLOT_ALIGN - 1) &
			      ~(uintptr_t)(STORE_SLOT_ALIGN - 1);
		st->chunk_mem[c] = mem;
		st->chunks[c] = (struct store_slot *)a;
		store_mem_add(st, size);
	}
	store_slot_at(st, n)->gen = 1;
	return n;
}

/* Port records (index_lock held). */

static uint32_t store_port_hash(store_label device, store_label port)
{
	uint64_t x = ((uint64_t)device << 32 | port) * 0x9e3779b97f4a7c15ull;
	x ^= x >> 29;
	return (uint32_t)(x >> 32);
}

/* The id of the port record of (device, port), made if need be; 0 when
 * the port is unnamed or the records are full (no guard then). */
static uint32_t store_port_get(struct store *st, store_label device,
			       store_label port)
{
	if (!port)
		return 0;
	uint32_t h = store_port_hash(device, port);
	if (!st->phash) {
		st->phash_cap = STORE_INDEX_MIN;
		st->phash = xcalloc(st->phash_cap, sizeof *st->phash);
		store_mem_add(st, st->phash_cap * sizeof *st->phash);
	}
	size_t mask = st->phash_cap - 1;
	for (size_t i = h & mask; st->phash[i]; i = (i + 1) & mask) {
		uint64_t e = st->phash[i];
		if ((uint32_t)(e >> 32) != h)
			continue;
		struct store_port *p = store_port_at(st, (uint32_t)e);
		if (p->device == device && p->port == port)
			return (uint32_t)e;
	}
	if (st->nports >= STORE_MAX_PORT_CHUNKS * STORE_PORT_CHUNK)
		return 0;
	uint32_t c = st->nports >> STORE_PORT_SHIFT;
	if (!st->port_chunks[c]) {
		st->port_chunks[c] =
		    xcalloc(STORE_PORT_CHUNK, sizeof(struct store_port));
		store_mem_add(st, STORE_PORT_CHUNK * sizeof(struct store_port));
	}
	uint32_t id = ++st->nports;
	struct store_port *p = store_port_at(st, id);
	atomic_init(&p->speed, 0);
	p->device = device;
	p->port = port;
	if ((st->nports + 1) * 4 > st->phash_cap * 3)
		store_hash_grow(st, &st->phash, &st->phash_cap);
	store_hash_insert(st->phash, st->phash_cap, (uint64_t)h << 32 | id);
	return id;
}

/* What the port's speed means to a new series of key: the bound of its
 * counter, or the speed itself. */
static enum store_line store_line_of(const struct store_key *key,
				     enum fm_kind kind)
{
	if (key->counter == FM_C_LINK_SPEED)
		return STORE_LINE_SPEED;
	if (kind != FM_KIND_COUNTER)
		return STORE_LINE_NONE;
	switch (fm_counter_line((enum fm_counter)key->counter)) {
	case FM_LINE_BYTES:
		return STORE_LINE_BYTES;
	case FM_LINE_FRAMES:
		return STORE_LINE_FRAMES;
	case FM_LINE_NONE:
		break;
	}
	return STORE_LINE_NONE;
}

struct store_spec_resolved {
	store_label owner;
	uint8_t width;
	double scale;
	double max_rate;
	uint32_t interval_ms;
};

static bool store_resolve_spec(const struct store_series_spec *spec,
			       struct store_spec_resolved *r)
{
	r->owner = 0;
	r->width = 64;
	r->scale = 1;
	r->max_rate = 0;
	r->interval_ms = 0;
	if (!spec)
		return true;
	if (spec->width != 0 && spec->width != 32 && spec->width != 64)
		return false;
	if (!isfinite(spec->scale) || spec->scale < 0)
		return false;
	if (!isfinite(spec->max_rate) || spec->max_rate < 0)
		return false;
	r->owner = spec->owner;
	r->width = spec->width ? spec->width : 64;
	r->scale = spec->scale != 0 ? spec->scale : 1;
	/* Kept as a float: beyond its range is no bound at all. */
	r->max_rate = spec->max_rate < FLT_MAX ? spec->max_rate : 0;
	r->interval_ms = spec->interval_ms;
	return true;
}

/* The counter of a valid key, or NULL. */
static const struct fm_counter_info *
store_key_check(const struct store_key *key)
{
	const struct fm_counter_info *info =
	    fm_counter_info((enum fm_counter)key->counter);
	if (!info)
		return NULL;
	if (info->sub == FM_SUB_PRIORITY && key->sub > 7)
		return NULL;
	if (info->sub == FM_SUB_NONE && key->sub != 0)
		return NULL;
	return info;
}

store_handle store_series(struct store *st, const struct store_key *key,
			  const struct store_series_spec *spec)
{
	const struct fm_counter_info *info = store_key_check(key);
	struct store_spec_resolved r;
	store_handle h = 0;

	if (!info || !store_resolve_spec(spec, &r))
		return 0;
	uint32_t hash = store_key_hash(key);
	int64_t now = st->mono_ns(st->clock_ctx);

	pthread_mutex_lock(&st->index_lock);
	ptrdiff_t pos = store_index_find(st, key, hash);
	if (pos >= 0) {
		uint32_t idx = (uint32_t)st->index[pos] - 1;
		struct store_slot *s = store_slot_at(st, idx);
		if (spec && s->owner != r.owner) {
			atomic_fetch_add_explicit(&st->rejected, 1,
						  memory_order_relaxed);
			goto out;
		}
		if (spec) {
			store_slot_lock(s);
			/* The last raw value may not be comparable. */
			if ((s->width != r.width || s->scale != r.scale) &&
			    (s->flags & STORE_F_HAS_VALUE))
				s->flags |= STORE_F_REBASE;
			/* The total is kept in raw units: restate it in the
			 * new ones so that it does not jump. */
			if (s->kind == FM_KIND_COUNTER && s->scale != r.scale)
				s->acc = (uint64_t)llround((double)s->acc *
							   s->scale / r.scale);
			s->width = r.width;
			s->scale = r.scale;
			s->max_rate = (float)r.max_rate;
			s->interval_ms = r.interval_ms;
			store_fig_publish(st, s, idx);
			store_slot_unlock(s);
		}
		h = store_make_handle(s->gen, idx);
		goto out;
	}

	uint32_t idx = store_slot_alloc(st);
	if (idx == UINT32_MAX)
		goto out;
	enum store_line line = store_line_of(key, info->kind);
	uint32_t port_rec =
	    line ? store_port_get(st, key->device, key->port) : 0;
	struct store_slot *s = store_slot_at(st, idx);
	store_slot_lock(s);
	s->kind = (uint8_t)info->kind;
	s->line = port_rec ? (uint8_t)line : STORE_LINE_NONE;
	s->port_rec = port_rec;
	s->width = r.width;
	s->flags = STORE_F_LIVE;
	s->raw = 0;
	s->ts_ns = 0;
	s->mono_ns = now;
	s->acc = 0;
	s->rate = 0;
	s->scale = r.scale;
	s->max_rate = (float)r.max_rate;
	s->ring = NULL;
	s->ring_cap =
	    (uint16_t)atomic_load_explicit(&st->ring_len, memory_order_relaxed);
	s->ring_head = 0;
	s->ring_n = 0;
	s->key = *key;
	s->owner = r.owner;
	s->interval_ms = r.interval_ms;
	s->next_free = 0;
	store_fig_publish(st, s, idx);
	store_slot_unlock(s);
	if ((st->index_used + 1) * 4 > st->index_cap * 3)
		store_hash_grow(st, &st->index, &st->index_cap);
	store_hash_insert(st->index, st->index_cap,
			  (uint64_t)hash << 32 | (idx + 1));
	st->index_used++;
	if (idx >= atomic_load_explicit(&st->nslots, memory_order_relaxed))
		atomic_store_explicit(&st->nslots, idx + 1,
				      memory_order_release);
	atomic_fetch_add_explicit(&st->live, 1, memory_order_relaxed);
	h = store_make_handle(s->gen, idx);
out:
	pthread_mutex_unlock(&st->index_lock);
	return h;
}

store_handle store_lookup(const struct store *st, const struct store_key *key)
{
	/* The index lock is the store's own state, not the caller's. */
	struct store *mst = (struct store *)st;
	store_handle h = 0;

	if (!store_key_check(key))
		return 0;
	uint32_t hash = store_key_hash(key);
	pthread_mutex_lock(&mst->index_lock);
	ptrdiff_t pos = store_index_find(st, key, hash);
	if (pos >= 0) {
		uint32_t idx = (uint32_t)st->index[pos] - 1;
		h = store_make_handle(store_slot_at(st, idx)->gen, idx);
	}
	pthread_mutex_unlock(&mst->index_lock);
	return h;
}

size_t store_withdraw_owner(struct store *st, store_label owner)
{
	size_t removed = 0;

	pthread_mutex_lock(&st->index_lock);
	/* Before any generation moves (see store_withdrawals). */
	atomic_fetch_add_explicit(&st->withdrawals, 1, memory_order_seq_cst);
	uint32_t n = atomic_load_explicit(&st->nslots, memory_order_relaxed);
	for (uint32_t i = 0; i < n; i++) {
		struct store_slot *s = store_slot_at(st, i);
		store_slot_lock(s);
		if (!(s->flags & STORE_F_LIVE) || s->owner != owner) {
			store_slot_unlock(s);
			continue;
		}
		if (++s->gen == 0)
			s->gen = 1;
		s->flags = 0;
		/* A withdrawn speed bounds nothing any longer. */
		if (s->line == STORE_LINE_SPEED)
			store_port_set_speed(st, s->port_rec, 0);
		if (s->ring)
			store_ring_put(st, s->ring, s->ring_cap);
		s->ring = NULL;
		s->ring_n = 0;
		s->next_free = st->free_head;
		store_fig_publish(st, s, i);
		store_slot_unlock(s);
		/* The key changes only under index_lock, which we hold. */
		ptrdiff_t pos =
		    store_index_find(st, &s->key, store_key_hash(&s->key));
		if (pos >= 0)
			store_index_remove_at(st, (size_t)pos);
		st->free_head = i + 1;
		removed++;
	}
	atomic_fetch_sub_explicit(&st->live, removed, memory_order_relaxed);
	pthread_mutex_unlock(&st->index_lock);
	return removed;
}

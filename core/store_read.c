/*
 * store_read: the counter store's readers (see store.h): copies of a
 * series and its ring, its figures, the key of a slot and the store's
 * statistics. Each takes at most one slot's lock, for a copy; nothing
 * here writes the store.
 */
#include "config.h"

#include "store.h"
#include "store_int.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/* Readers. */

uint32_t store_slots(const struct store *st)
{
	return atomic_load_explicit(&st->nslots, memory_order_acquire);
}

uint32_t store_handle_slot(store_handle h)
{
	return (uint32_t)h;
}

static bool store_is_stale(const struct store *st, int64_t age_ns,
			   uint32_t interval_ms)
{
	unsigned k =
	    atomic_load_explicit(&st->stale_intervals, memory_order_relaxed);
	return (double)age_ns >= (double)k * interval_ms * 1e6;
}

static uint32_t store_interval(const struct store *st, uint32_t interval_ms)
{
	if (interval_ms)
		return interval_ms;
	return atomic_load_explicit(&st->default_interval_ms,
				    memory_order_relaxed);
}

int store_read(const struct store *st, uint32_t slot, struct store_sample *out)
{
	struct store_slot *s = store_slot_get(st, slot);
	struct store_slot c;

	if (!s)
		return -ENOENT;
	int64_t now = st->mono_ns(st->clock_ctx);
	store_slot_lock(s);
	if (!(s->flags & STORE_F_LIVE)) {
		store_slot_unlock(s);
		return -ENOENT;
	}
	c.flags = s->flags;
	c.kind = s->kind;
	c.key = s->key;
	c.owner = s->owner;
	c.value = s->kind == FM_KIND_COUNTER ? store_scaled(s->acc, s->scale)
					     : s->value;
	c.rate = s->rate;
	c.raw = s->raw;
	c.ts_ns = s->ts_ns;
	c.mono_ns = s->mono_ns;
	c.interval_ms = s->interval_ms;
	c.ring_n = s->ring_n;
	store_slot_unlock(s);

	memset(out, 0, sizeof *out);
	out->key = c.key;
	out->owner = c.owner;
	out->kind = c.kind;
	out->has_value = c.flags & STORE_F_HAS_VALUE;
	out->has_rate = c.flags & STORE_F_HAS_RATE;
	out->value = c.value;
	out->rate = out->has_rate ? c.rate : 0;
	out->raw = c.raw;
	out->ts_ns = c.ts_ns;
	out->age_ns = now > c.mono_ns ? now - c.mono_ns : 0;
	out->interval_ms = store_interval(st, c.interval_ms);
	out->stale = store_is_stale(st, out->age_ns, out->interval_ms);
	out->ring_n = c.ring_n;
	return 0;
}

unsigned store_read_ring(const struct store *st, uint32_t slot, float *out,
			 unsigned max)
{
	struct store_slot *s = store_slot_get(st, slot);
	unsigned n = 0;

	if (!s)
		return 0;
	store_slot_lock(s);
	if ((s->flags & STORE_F_LIVE) && s->ring) {
		unsigned cap = s->ring_cap;
		n = s->ring_n < max ? s->ring_n : max;
		unsigned i = (s->ring_head + cap - n) % cap;
		for (unsigned k = 0; k < n; k++) {
			out[k] = s->ring[i];
			if (++i == cap)
				i = 0;
		}
	}
	store_slot_unlock(s);
	return n;
}

void store_get_stats(const struct store *st, struct store_stats *out)
{
	uint32_t n = atomic_load_explicit(&st->nslots, memory_order_acquire);
	int64_t now = st->mono_ns(st->clock_ctx);

	memset(out, 0, sizeof *out);
	out->rejected_total =
	    atomic_load_explicit(&st->rejected, memory_order_relaxed);
	/* Read before the resets it is a part of, so never above them. */
	out->implausible_total =
	    atomic_load_explicit(&st->implausible, memory_order_relaxed);
	/* Per-slot counters survive withdrawal and reuse, so this sum is
	 * monotonic without a lock across the scan. */
	for (uint32_t i = 0; i < n; i++) {
		struct store_slot *s = store_slot_at(st, i);
		store_slot_lock(s);
		out->updates_total += s->updates;
		out->resets_total += s->resets;
		out->rejected_total += s->rejected;
		bool live = s->flags & STORE_F_LIVE;
		int64_t mono = s->mono_ns;
		uint32_t iv = s->interval_ms;
		store_slot_unlock(s);
		if (live &&
		    store_is_stale(st, now - mono, store_interval(st, iv)))
			out->stale_series++;
	}
	out->series = atomic_load_explicit(&st->live, memory_order_relaxed);
	out->labels = atomic_load_explicit(&st->nlabels, memory_order_relaxed);
	out->memory_bytes =
	    atomic_load_explicit(&st->mem_bytes, memory_order_relaxed);
}

uint32_t store_figs(const struct store *st, uint32_t slot,
		    const struct store_fig **out)
{
	uint32_t n = atomic_load_explicit(&st->nslots, memory_order_acquire);

	if (slot >= n)
		return 0;
	uint32_t end = (slot | STORE_CHUNK_MASK) + 1;
	*out = store_fig_at(st, slot);
	return (end < n ? end : n) - slot;
}

int store_slot_key(const struct store *st, uint32_t slot, struct store_key *key,
		   uint32_t *gen)
{
	struct store_slot *s = store_slot_get(st, slot);
	int ret = -ENOENT;

	if (!s)
		return ret;
	store_slot_lock(s);
	if (s->flags & STORE_F_LIVE) {
		*key = s->key;
		/* As the figures carry it (29 bits). */
		*gen = (s->gen << STORE_FIG_GEN_SHIFT) >> STORE_FIG_GEN_SHIFT;
		ret = 0;
	}
	store_slot_unlock(s);
	return ret;
}

int64_t store_mono_now(const struct store *st)
{
	return st->mono_ns(st->clock_ctx);
}

int64_t store_fig_ms(const struct store *st, int64_t mono_ns)
{
	return (int64_t)store_ms_of(st, mono_ns);
}

uint64_t store_withdrawals(const struct store *st)
{
	return atomic_load_explicit(&st->withdrawals, memory_order_seq_cst);
}

float store_fig_value(const struct store *st, uint32_t slot)
{
	if (slot >= atomic_load_explicit(&st->nslots, memory_order_acquire))
		return 0;
	uint32_t u = atomic_load_explicit(store_fig_value_at(st, slot),
					  memory_order_relaxed);
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

void store_stale_rule(const struct store *st, unsigned *intervals,
		      uint32_t *default_interval_ms)
{
	*intervals =
	    atomic_load_explicit(&st->stale_intervals, memory_order_relaxed);
	*default_interval_ms = store_interval(st, 0);
}

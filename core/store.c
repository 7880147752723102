/*
 * store: the counter store (the contract is in store.h).
 *
 * Records. Every series lives in a 128-byte slot (two cache lines,
 * 128-byte aligned so the adjacent-line prefetcher brings both): the
 * first line holds what store_update reads and writes on every sample
 * (lock, generation, flags, raw, timestamps, total, rate, scale), the
 * second the ring pointer, the key, the owner, the spec and the per-slot
 * statistics. Slots live in chunks of 4096 that are never moved or freed
 * before store_free, found through a fixed table of 8192 chunk pointers
 * (at most 32 Mi series). The ring of recent rates (floats) is taken from
 * a slab pool at the first rate of a series and returned when the series
 * is withdrawn. Each chunk also holds the slots' figures (struct
 * store_fig, 16 bytes each, after the 4096 slots, then their 4-byte
 * values). A live series costs
 * 128 bytes of slot and 20 of figures plus 8-byte index entries at a
 * load of 3/8 to 3/4 (about 16 bytes at 1 M series), plus 4 * ring_len
 * bytes once it has a rate. Port records (store_port, 12 bytes per
 * (device, port) that has a bounded counter or a speed, in chunks of
 * 1024 never freed before store_free, found by a hash under index_lock)
 * carry a port's line rate; a slot keeps its record's id and what the
 * record means to it (line), so store_update reads the speed with one
 * load and no lookup. memory_bytes counts every byte
 * the store asked malloc for (slot chunks, index, label chunks and
 * strings, ring slabs, the store itself), not malloc's own headers.
 *
 * Locking. Each slot has a one-word spinlock (atomic exchange to take,
 * release store to drop, yielding after a short spin): writers and
 * readers of one series take it for a few tens of nanoseconds, so a
 * reader's copy is always consistent and no reader ever holds more than
 * one series' lock. The key index (open addressing, linear probing,
 * backward-shift deletion; entries are the 32-bit hash and slot + 1) and
 * the free list are under index_lock, taken by store_series,
 * store_lookup and store_withdraw_owner only; store_update never takes
 * it. Interning has its own mutex and ring slabs theirs. Lock order:
 * index_lock, then a slot lock, then ring_lock. The number of slots is
 * published with a release store after a new slot is initialised, and
 * every access by index or handle is bounds-checked against it with an
 * acquire load, which also makes the chunk pointer visible.
 *
 * Figures. store_fig_publish rewrites a slot's two figure words and its
 * value from its record, under the slot lock, at the end of every
 * change a reader of figures can see (creation, spec, sample,
 * withdrawal): two more cache lines per update (shared by 4 and 16
 * consecutive slots; fetched ahead while the slot lock is taken), a few
 * ns (bench/bench_store). The value lives apart because the rule
 * engine's scan, bound by memory, needs it for few series: 16 bytes a
 * series stream instead of 24 (bench/bench_detect).
 * Each word is stored whole with a relaxed atomic store; no order
 * between the words is promised (store.h), so none is paid for. The
 * figures of a slot never published are zero (not live).
 *
 * Handles are (generation << 32) | slot. Withdrawing a series bumps its
 * slot's generation under the slot lock, so old handles get -ESTALE; the
 * slot goes on a LIFO free list and is reused by the next new series.
 * Statistics are per slot and are not cleared on reuse, so their sum
 * over all slots is monotonic and needs no lock across the scan.
 *
 * Counter semantics. value is a running total in canonical units, kept
 * as a sum of raw units and scaled when read (one rounding, so totals
 * print as short decimals): the first sample sets it to raw, each good
 * delta adds delta, a reset leaves it alone. rate is delta * scale divided
 * by the difference of the source's timestamps in seconds, and each rate
 * is pushed on the ring. A width-32 series keeps its raw value modulo
 * 2^32. When raw decreases, a width-64 series has been reset; a width-32
 * one has wrapped if the wrapped delta is at most max_rate * dt * 1.5 +
 * STORE_RATE_SLACK when max_rate is known, or below 2^31 when it is not,
 * and has been reset otherwise. Independently, when max_rate is known a
 * delta above max_rate * dt * 2 + STORE_RATE_SLACK is a discontinuity.
 * When the series' port has a speed (store_port, set by its
 * FM_C_LINK_SPEED gauge), a delta in canonical units of bytes on the
 * wire above STORE_LINE_MARGIN times what the speed carries in dt, plus
 * STORE_LINE_SLACK_BYTES, or of frames above STORE_LINE_MARGIN times
 * speed / FM_LINE_MIN_FRAME frames a second, plus
 * STORE_LINE_SLACK_FRAMES, is a discontinuity too; both kinds are
 * counted in implausible (one store-wide atomic, bumped only then). A
 * reset or a discontinuity (including one marked by the source, and a
 * change of width or scale through store_series) re-bases the series on
 * the new raw value: no rate (has_rate is cleared until the next good
 * delta), the total does not move, resets_total is bumped. A timestamp
 * older than the last one (or negative) is dropped with -ERANGE and
 * counted in rejected_total. A sample with the same timestamp as the
 * last one gives no rate and cannot be checked against max_rate, so its
 * raw value becomes the new base and the total does not move. Gauges
 * keep value * scale; their raw is 0. A non-finite gauge value is
 * dropped with -EINVAL and counted as rejected.
 *
 * Staleness uses the arrival time of the last sample (or the creation of
 * the series) on the monotonic clock: a series is stale once
 * age >= stale_intervals * interval. The default monotonic clock is
 * CLOCK_MONOTONIC_COARSE (a 4 ms tick, 5 ns to read instead of 20), which
 * is ample for staleness measured in intervals; a timestamp of 0 is
 * replaced by the precise CLOCK_REALTIME since rates depend on it.
 *
 * Options: 0 means the default for each option of store_opts and
 * store_set_opts (ring 64, 5 intervals, 1000 ms); ring_len is capped at
 * STORE_RING_MAX. store_series also returns 0 for an invalid spec (width
 * other than 0, 32 or 64, a scale that is negative or not finite, a
 * max_rate that is negative or not finite) or sub (above 7 for a
 * per-priority counter, not 0 for a counter without a sub label), and
 * when the store is full.
 *
 * Files: this one holds the lifecycle, the ring slabs and the writers;
 * the key index (creation, lookup, withdrawal) is store_index.c, label
 * interning store_label.c, the readers store_read.c, and the layout and
 * the inline helpers they share store_int.h.
 */
#include "config.h"

#include "store.h"
#include "store_int.h"

#include "mem.h"
#include "units.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int64_t store_clock_ns(clockid_t id)
{
	struct timespec t;
	clock_gettime(id, &t);
	return (int64_t)t.tv_sec * NS_PER_S + t.tv_nsec;
}

static int64_t store_default_mono(void *ctx)
{
	(void)ctx;
#ifdef CLOCK_MONOTONIC_COARSE
	return store_clock_ns(CLOCK_MONOTONIC_COARSE);
#else
	return store_clock_ns(CLOCK_MONOTONIC);
#endif
}

static int64_t store_default_real(void *ctx)
{
	(void)ctx;
	return store_clock_ns(CLOCK_REALTIME);
}

static unsigned store_clamp_ring(unsigned n)
{
	if (n == 0)
		return STORE_DEFAULT_RING;
	return n > STORE_RING_MAX ? STORE_RING_MAX : n;
}

struct store *store_new(const struct store_opts *opts)
{
	struct store *st = xcalloc(1, sizeof *st);
	struct store_opts o = { 0 };

	if (opts)
		o = *opts;
	st->mono_ns = o.mono_ns ? o.mono_ns : store_default_mono;
	st->real_ns = o.real_ns ? o.real_ns : store_default_real;
	st->clock_ctx = o.clock_ctx;
	st->mono0 = st->mono_ns(st->clock_ctx);
	atomic_init(&st->ring_len, 0);
	atomic_init(&st->stale_intervals, 0);
	atomic_init(&st->default_interval_ms, 0);
	atomic_init(&st->nslots, 0);
	atomic_init(&st->nlabels, 0);
	atomic_init(&st->live, 0);
	atomic_init(&st->withdrawals, 0);
	atomic_init(&st->mem_bytes, sizeof *st);
	atomic_init(&st->rejected, 0);
	atomic_init(&st->implausible, 0);
	store_set_opts(st, o.ring_len, o.stale_intervals,
		       o.default_interval_ms);
	pthread_mutex_init(&st->index_lock, NULL);
	pthread_mutex_init(&st->label_lock, NULL);
	pthread_mutex_init(&st->ring_lock, NULL);
	st->index_cap = STORE_INDEX_MIN;
	st->index = xcalloc(st->index_cap, sizeof *st->index);
	store_mem_add(st, st->index_cap * sizeof *st->index);
	st->lhash_cap = STORE_INDEX_MIN;
	st->lhash = xcalloc(st->lhash_cap, sizeof *st->lhash);
	store_mem_add(st, st->lhash_cap * sizeof *st->lhash);
	return st;
}

static void store_free_blocks(struct store_block *b)
{
	while (b) {
		struct store_block *next = b->next;
		free(b);
		b = next;
	}
}

void store_free(struct store *st)
{
	if (!st)
		return;
	for (unsigned i = 0; i < STORE_MAX_CHUNKS; i++)
		free(st->chunk_mem[i]);
	for (unsigned i = 0; i < STORE_MAX_LABEL_CHUNKS; i++)
		free(st->label_chunks[i]);
	store_free_blocks(st->arena);
	store_free_blocks(st->slabs);
	for (unsigned i = 0; i < STORE_MAX_PORT_CHUNKS; i++)
		free(st->port_chunks[i]);
	free(st->phash);
	free(st->index);
	free(st->lhash);
	pthread_mutex_destroy(&st->index_lock);
	pthread_mutex_destroy(&st->label_lock);
	pthread_mutex_destroy(&st->ring_lock);
	free(st);
}

void store_set_opts(struct store *st, unsigned ring_len,
		    unsigned stale_intervals, uint32_t default_interval_ms)
{
	atomic_store_explicit(&st->ring_len, store_clamp_ring(ring_len),
			      memory_order_relaxed);
	atomic_store_explicit(&st->stale_intervals,
			      stale_intervals ? stale_intervals
					      : STORE_DEFAULT_STALE,
			      memory_order_relaxed);
	atomic_store_explicit(&st->default_interval_ms,
			      default_interval_ms ? default_interval_ms
						  : STORE_DEFAULT_INTERVAL,
			      memory_order_relaxed);
}

/* A new block of at least size bytes of payload, linked on *list. */
void *store_block_new(struct store *st, struct store_block **list, size_t size,
		      size_t align)
{
	size_t head = sizeof(struct store_block);
	if (head % align)
		head += align - head % align;
	struct store_block *b = xmalloc(head + size);
	b->next = *list;
	b->size = head + size;
	*list = b;
	store_mem_add(st, b->size);
	return (char *)b + head;
}

void *store_block_take(struct store *st, struct store_block **list, char **cur,
		       size_t *left, size_t n, size_t block, size_t align)
{
	if (*left < n) {
		*cur = store_block_new(st, list, block, align);
		*left = block;
	}
	void *r = *cur;
	*cur += n;
	*left -= n;
	return r;
}

/* Rings. */

static unsigned store_ring_class(unsigned cap)
{
	unsigned c = 1;
	while ((1u << c) < cap)
		c++;
	return c;
}

/* A ring of cap floats (slot lock held; takes ring_lock). */
static float *store_ring_get(struct store *st, unsigned cap)
{
	unsigned c = store_ring_class(cap);
	size_t size = (size_t)4 << c;
	struct store_ring_pool *p = &st->rings[c];
	void *r;

	pthread_mutex_lock(&st->ring_lock);
	if (p->free) {
		r = p->free;
		memcpy(&p->free, r, sizeof p->free);
	} else {
		r = store_block_take(st, &st->slabs, &p->cur, &p->left, size,
				     STORE_RING_SLAB, 64);
	}
	pthread_mutex_unlock(&st->ring_lock);
	return r;
}

void store_ring_put(struct store *st, float *r, unsigned cap)
{
	struct store_ring_pool *p = &st->rings[store_ring_class(cap)];

	pthread_mutex_lock(&st->ring_lock);
	memcpy(r, &p->free, sizeof p->free);
	p->free = r;
	pthread_mutex_unlock(&st->ring_lock);
}

/* Writers. */

/* Locks and returns the live slot of h, or NULL with *err set. */
static inline struct store_slot *store_slot_acquire(const struct store *st,
						    store_handle h, int *err)
{
	uint32_t gen = (uint32_t)(h >> 32);
	struct store_slot *s = store_slot_get(st, (uint32_t)h);

	if (!s || gen == 0) {
		*err = -EINVAL;
		return NULL;
	}
	/* The figures are written before the unlock, whose barrier would
	 * wait for their line: start fetching it alongside the slot's. */
	__builtin_prefetch(store_fig_at(st, (uint32_t)h), 1);
	__builtin_prefetch(store_fig_value_at(st, (uint32_t)h), 1);
	store_slot_lock(s);
	if (s->gen != gen || !(s->flags & STORE_F_LIVE)) {
		store_slot_unlock(s);
		*err = -ESTALE;
		return NULL;
	}
	return s;
}

/* The writers' common start: a zero *ts_ns becomes the real clock's
 * now, *now is the monotonic clock's (both read before the lock), then
 * h's slot is locked and returned if it is of kind; else NULL with *err
 * set (-EINVAL for the wrong kind). Inline: on every update. */
static inline struct store_slot *store_slot_acquire_kind(const struct store *st,
							 store_handle h,
							 enum fm_kind kind,
							 int64_t *ts_ns,
							 int64_t *now, int *err)
{
	if (*ts_ns == 0)
		*ts_ns = st->real_ns(st->clock_ctx);
	*now = st->mono_ns(st->clock_ctx);
	struct store_slot *s = store_slot_acquire(st, h, err);
	if (!s)
		return NULL;
	if (s->kind != kind) {
		store_slot_unlock(s);
		*err = -EINVAL;
		return NULL;
	}
	return s;
}

static inline void store_ring_push(struct store *st, struct store_slot *s,
				   double rate)
{
	if (!s->ring)
		s->ring = store_ring_get(st, s->ring_cap);
	s->ring[s->ring_head] = (float)rate;
	if (++s->ring_head == s->ring_cap)
		s->ring_head = 0;
	if (s->ring_n < s->ring_cap)
		s->ring_n++;
}

/* Whether delta raw units in dt seconds are more than the wire of the
 * slot's port carries (false when its speed is unknown). Inline: on
 * every update of a guarded series; one load of the port's record,
 * shared by the port's series, so mostly in cache. */
static inline bool store_line_exceeded(const struct store *st,
				       const struct store_slot *s,
				       uint64_t delta, double dt)
{
	double bps = store_port_speed(st, s->port_rec);
	if (!(bps > 0))
		return false;
	double d = (double)delta * s->scale; /* canonical: bytes or frames */
	if (s->line == STORE_LINE_BYTES)
		return d >
		       bps * dt * STORE_LINE_MARGIN + STORE_LINE_SLACK_BYTES;
	return d > bps / FM_LINE_MIN_FRAME * dt * STORE_LINE_MARGIN +
		       STORE_LINE_SLACK_FRAMES;
}

int store_update(struct store *st, store_handle h, uint64_t raw, int64_t ts_ns)
{
	int err;
	int64_t now;
	struct store_slot *s =
	    store_slot_acquire_kind(st, h, FM_KIND_COUNTER, &ts_ns, &now, &err);

	if (!s)
		return err;
	/* The port's record is read at the end, behind the delta: start
	 * fetching it now, or the wait for it doubles the update's cost
	 * (bench/bench_store). */
	if (s->line)
		__builtin_prefetch(store_port_at(st, s->port_rec), 0);
	/* s->ts_ns is never negative, so this also drops ts_ns < 0. */
	if (ts_ns < s->ts_ns) {
		s->rejected++;
		store_slot_unlock(s);
		return -ERANGE;
	}
	if (s->width == 32)
		raw &= UINT32_MAX;
	s->mono_ns = now;
	s->updates++;

	uint8_t flags = s->flags;
	if (!(flags & STORE_F_HAS_VALUE)) {
		s->acc = raw;
		s->flags =
		    (uint8_t)((flags | STORE_F_HAS_VALUE) & ~STORE_F_REBASE);
		goto base;
	}
	if (flags & STORE_F_REBASE) {
		s->resets++;
		s->flags =
		    (uint8_t)(flags & ~(STORE_F_REBASE | STORE_F_HAS_RATE));
		goto base;
	}
	if (ts_ns == s->ts_ns)
		goto base;

	uint64_t prev = s->raw;
	uint64_t delta = raw - prev;
	double dt = (double)(ts_ns - s->ts_ns) * 1e-9;
	bool ok = true, wild = false;
	if (raw < prev) {
		if (s->width == 32) {
			delta &= UINT32_MAX;
			if (s->max_rate > 0)
				ok = (double)delta <=
				     s->max_rate * dt * 1.5 + STORE_RATE_SLACK;
			else
				ok = delta < (UINT64_C(1) << 31);
		} else {
			ok = false;
		}
	}
	if (ok && s->max_rate > 0 &&
	    (double)delta > s->max_rate * dt * 2 + STORE_RATE_SLACK)
		wild = true;
	if (ok && !wild && s->line && store_line_exceeded(st, s, delta, dt))
		wild = true;
	if (wild)
		ok = false;
	if (!ok) {
		s->resets++;
		if (wild)
			atomic_fetch_add_explicit(&st->implausible, 1,
						  memory_order_relaxed);
		s->flags = (uint8_t)(flags & ~STORE_F_HAS_RATE);
		goto base;
	}
	if (s->acc + delta < s->acc) {
		/* 2^64 raw units summed (centuries of nanoseconds): start
		 * over, which readers see as one counter reset. */
		s->resets++;
		s->acc = 0;
	}
	s->acc += delta;
	s->rate = store_scaled(delta, s->scale) / dt;
	s->flags = (uint8_t)(flags | STORE_F_HAS_RATE);
	store_ring_push(st, s, s->rate);
base:
	/* The new raw value is the base of the next delta, good or not. */
	s->raw = raw;
	s->ts_ns = ts_ns;
	store_fig_publish(st, s, (uint32_t)h);
	store_slot_unlock(s);
	return 0;
}

int store_set_gauge(struct store *st, store_handle h, double value,
		    int64_t ts_ns)
{
	int err;
	int64_t now;
	struct store_slot *s =
	    store_slot_acquire_kind(st, h, FM_KIND_GAUGE, &ts_ns, &now, &err);

	if (!s)
		return err;
	if (!isfinite(value)) {
		s->rejected++;
		store_slot_unlock(s);
		return -EINVAL;
	}
	if (ts_ns < s->ts_ns) {
		s->rejected++;
		store_slot_unlock(s);
		return -ERANGE;
	}
	s->value = value * s->scale;
	if (s->line == STORE_LINE_SPEED)
		store_port_set_speed(st, s->port_rec, s->value);
	s->raw = 0;
	s->ts_ns = ts_ns;
	s->mono_ns = now;
	s->updates++;
	s->flags = (uint8_t)((s->flags | STORE_F_HAS_VALUE) & ~STORE_F_REBASE);
	store_fig_publish(st, s, (uint32_t)h);
	store_slot_unlock(s);
	return 0;
}

int store_mark_discontinuity(struct store *st, store_handle h)
{
	int err;
	struct store_slot *s = store_slot_acquire(st, h, &err);

	if (!s)
		return err;
	if (s->kind == FM_KIND_COUNTER && (s->flags & STORE_F_HAS_VALUE))
		s->flags |= STORE_F_REBASE;
	store_slot_unlock(s);
	return 0;
}

void store_mark_owner_discontinuity(struct store *st, store_label owner)
{
	uint32_t n = atomic_load_explicit(&st->nslots, memory_order_acquire);

	for (uint32_t i = 0; i < n; i++) {
		struct store_slot *s = store_slot_at(st, i);
		store_slot_lock(s);
		if ((s->flags & STORE_F_LIVE) && s->owner == owner &&
		    s->kind == FM_KIND_COUNTER &&
		    (s->flags & STORE_F_HAS_VALUE))
			s->flags |= STORE_F_REBASE;
		store_slot_unlock(s);
	}
}

/*
 * store_int: internal to the counter store (core/store*.c); not an API.
 * The layout of the store and its slots, and the helpers its pieces
 * share:
 *
 *   store.c        lifecycle, ring slabs, the writers (store_update...)
 *   store_index.c  the key index: series creation, lookup, withdrawal,
 *                  and the port records (a port's line rate)
 *   store_label.c  interned label strings
 *   store_read.c   the readers (copies, figures, statistics)
 *
 * The helpers on store_update's path (slot lock, figures, scaling) are
 * static inline here so the hot path stays one translation unit's worth
 * of inlined code (bench/bench_store). Locking and layout: store.c.
 */
#ifndef FABMON_STORE_INT_H
#define FABMON_STORE_INT_H

#include "store.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define STORE_CHUNK_SHIFT 12
#define STORE_CHUNK_SLOTS (1u << STORE_CHUNK_SHIFT)
#define STORE_CHUNK_MASK  (STORE_CHUNK_SLOTS - 1)
#define STORE_MAX_CHUNKS  8192u
#define STORE_MAX_SLOTS	  (STORE_MAX_CHUNKS * STORE_CHUNK_SLOTS)
#define STORE_SLOT_ALIGN  128u

#define STORE_LABEL_SHIFT      10
#define STORE_LABEL_CHUNK      (1u << STORE_LABEL_SHIFT)
#define STORE_MAX_LABEL_CHUNKS 4096u
#define STORE_MAX_LABELS       (STORE_MAX_LABEL_CHUNKS * STORE_LABEL_CHUNK)
#define STORE_ARENA_BLOCK      16384u

#define STORE_RING_MAX	   4096u
#define STORE_RING_CLASSES 13 /* rings of 2^1 .. 2^12 floats */
#define STORE_RING_SLAB	   65536u

#define STORE_INDEX_MIN 1024u

#define STORE_DEFAULT_RING     64u
#define STORE_DEFAULT_STALE    5u
#define STORE_DEFAULT_INTERVAL 1000u

/* Raw units tolerated above the max_rate bounds: rounding of short
 * intervals and counters whose max_rate is a handful per second. */
#define STORE_RATE_SLACK 16.0

/* The line-rate guard (store.c): a delta above STORE_LINE_MARGIN times
 * what the port's wire carries in the interval, plus a slack of a few
 * jumbo frames (bytes) or frames, is a discontinuity. */
#define STORE_LINE_MARGIN	1.5
#define STORE_LINE_SLACK_BYTES	65536.0
#define STORE_LINE_SLACK_FRAMES 64.0

/* Port records: (device, port) -> the port's line rate (store_index.c). */
#define STORE_PORT_SHIFT      10
#define STORE_PORT_CHUNK      (1u << STORE_PORT_SHIFT)
#define STORE_MAX_PORT_CHUNKS 4096u

#define STORE_SPIN_BEFORE_YIELD 64

enum store_slot_flag {
	STORE_F_LIVE = 1u << 0,
	STORE_F_HAS_VALUE = 1u << 1,
	STORE_F_HAS_RATE = 1u << 2,
	STORE_F_REBASE = 1u << 3, /* the next sample re-bases */
};

/* What a slot's port record means to it (store_slot.line). */
enum store_line {
	STORE_LINE_NONE = 0,   /* not bound by the port's speed */
	STORE_LINE_BYTES = 1,  /* a counter of bytes on the wire */
	STORE_LINE_FRAMES = 2, /* a counter of frames on the wire */
	STORE_LINE_SPEED = 3,  /* the gauge that sets the port's speed */
};

/* A port's line rate, shared by every series of one (device, port) that
 * it bounds or sets. speed is float bits in bytes/s, 0 unknown; written
 * by the speed gauge's updates, read by counter updates, both under
 * their own slot locks (relaxed: a bound a sample late is harmless). */
struct store_port {
	atomic_uint speed;
	store_label device, port;
};

struct store_slot {
	/* First cache line: the update path. */
	atomic_uint lock;
	uint32_t gen;
	uint8_t kind;
	uint8_t width;
	uint8_t flags;
	uint8_t line;	 /* enum store_line; port_rec says of which port */
	uint32_t resets; /* per slot, never cleared (see stats) */
	uint64_t raw;
	int64_t ts_ns;
	int64_t mono_ns; /* arrival of the last sample, or creation */
	union {
		uint64_t acc; /* counters: running total in raw units */
		double value; /* gauges: value in canonical units */
	};
	double rate;
	double scale;
	/* Second cache line. */
	float max_rate;	   /* raw units/s, 0 unknown (a bound: float will do) */
	uint32_t port_rec; /* id of the port record, 0 none */
	uint64_t updates;  /* per slot, never cleared */
	float *ring;
	uint16_t ring_cap;
	uint16_t ring_head; /* next write */
	uint16_t ring_n;
	uint16_t pad1;
	struct store_key key;
	store_label owner;
	uint32_t interval_ms; /* as given; 0 = the store's default */
	uint32_t rejected;    /* per slot, never cleared */
	uint32_t next_free;   /* slot + 1 of the next free slot, or 0 */
};

_Static_assert(sizeof(struct store_slot) == 128, "slot is two cache lines");

struct store_label_ent {
	const char *str;
	const char *prom; /* == str when nothing needs escaping */
};

/* Blocks of interned strings and ring slabs, freed by store_free. */
struct store_block {
	struct store_block *next;
	size_t size;
};

struct store_ring_pool {
	void *free; /* rings linked through their first bytes */
	char *cur;
	size_t left;
};

struct store {
	/* Read by every update; written rarely. */
	int64_t (*mono_ns)(void *ctx);
	int64_t (*real_ns)(void *ctx);
	void *clock_ctx;
	int64_t mono0; /* creation: the figures' time origin */
	atomic_uint ring_len;
	atomic_uint stale_intervals;
	atomic_uint default_interval_ms;
	struct store_slot *chunks[STORE_MAX_CHUNKS];

	/* Written now and then: keep them off the lines above and below
	 * (padding, since malloc does not honour _Alignas). */
	char pad0[64];
	atomic_uint nslots;
	atomic_uint nlabels;
	atomic_uint_least64_t live;
	atomic_uint_least64_t mem_bytes;
	atomic_uint_least64_t rejected;	   /* not attributable to a slot */
	atomic_uint_least64_t withdrawals; /* see store_withdrawals */
	atomic_uint_least64_t implausible; /* deltas above a bound */

	char pad1[64];

	/* Under index_lock. */
	pthread_mutex_t index_lock;
	uint64_t *index; /* (hash << 32) | (slot + 1); 0 = empty */
	size_t index_cap;
	size_t index_used;
	uint32_t free_head; /* slot + 1, or 0 */
	void *chunk_mem[STORE_MAX_CHUNKS];
	/* Port records: chunks never moved or freed before store_free;
	 * phash is (hash << 32) | id, 0 empty. */
	struct store_port *port_chunks[STORE_MAX_PORT_CHUNKS];
	uint32_t nports;
	uint64_t *phash;
	size_t phash_cap;

	/* Under label_lock. */
	pthread_mutex_t label_lock;
	struct store_label_ent *label_chunks[STORE_MAX_LABEL_CHUNKS];
	uint64_t *lhash; /* (hash << 32) | id; 0 = empty */
	size_t lhash_cap;
	struct store_block *arena;
	char *arena_cur;
	size_t arena_left;

	/* Under ring_lock. */
	pthread_mutex_t ring_lock;
	struct store_ring_pool rings[STORE_RING_CLASSES];
	struct store_block *slabs;
};

static inline void store_mem_add(struct store *st, size_t n)
{
	atomic_fetch_add_explicit(&st->mem_bytes, n, memory_order_relaxed);
}

static inline void store_mem_sub(struct store *st, size_t n)
{
	atomic_fetch_sub_explicit(&st->mem_bytes, n, memory_order_relaxed);
}

static inline void store_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static inline void store_slot_lock(struct store_slot *s)
{
	while (atomic_exchange_explicit(&s->lock, 1, memory_order_acquire)) {
		unsigned spins = 0;
		while (atomic_load_explicit(&s->lock, memory_order_relaxed)) {
			/* The holder may have been preempted (2 cores). */
			if (++spins < STORE_SPIN_BEFORE_YIELD) {
				store_cpu_relax();
			} else {
				sched_yield();
				spins = 0;
			}
		}
	}
}

static inline void store_slot_unlock(struct store_slot *s)
{
	atomic_store_explicit(&s->lock, 0, memory_order_release);
}

static inline struct store_slot *store_slot_at(const struct store *st,
					       uint32_t idx)
{
	return &st->chunks[idx >> STORE_CHUNK_SHIFT][idx & STORE_CHUNK_MASK];
}

/* The slot of idx if it has ever been published, else NULL. */
static inline struct store_slot *store_slot_get(const struct store *st,
						uint32_t idx)
{
	if (idx >= atomic_load_explicit(&st->nslots, memory_order_acquire))
		return NULL;
	return store_slot_at(st, idx);
}

/* The figures of slot idx: after the slots of its chunk. */
static inline struct store_fig *store_fig_at(const struct store *st,
					     uint32_t idx)
{
	struct store_fig *f =
	    (struct store_fig *)(st->chunks[idx >> STORE_CHUNK_SHIFT] +
				 STORE_CHUNK_SLOTS);
	return f + (idx & STORE_CHUNK_MASK);
}

/* The value figure of slot idx: after the figures of its chunk. */
static inline atomic_uint *store_fig_value_at(const struct store *st,
					      uint32_t idx)
{
	struct store_fig *f =
	    (struct store_fig *)(st->chunks[idx >> STORE_CHUNK_SHIFT] +
				 STORE_CHUNK_SLOTS);
	return (atomic_uint *)(f + STORE_CHUNK_SLOTS) +
	       (idx & STORE_CHUNK_MASK);
}

/* mono_ns on the figures' scale: ms since the store was created. */
static inline uint64_t store_ms_of(const struct store *st, int64_t mono_ns)
{
	return mono_ns > st->mono0 ? (uint64_t)(mono_ns - st->mono0) / 1000000u
				   : 0;
}

static inline uint64_t store_float_word(double x, uint32_t high)
{
	/* Beyond float's range the conversion is undefined: saturate. */
	float f = x > FLT_MAX ? INFINITY : x < -FLT_MAX ? -INFINITY : (float)x;
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	return (uint64_t)high << 32 | u;
}

/* Rewrites the figures of slot idx from its record; under its lock. */
static inline void store_fig_publish(const struct store *st,
				     const struct store_slot *s, uint32_t idx)
{
	struct store_fig *f = store_fig_at(st, idx);
	uint32_t meta = s->gen << STORE_FIG_GEN_SHIFT;
	double x = 0, v = 0;

	if (s->flags & STORE_F_LIVE) {
		meta |= STORE_FIG_LIVE;
		if (s->flags & STORE_F_HAS_VALUE)
			meta |= STORE_FIG_HAS_VALUE;
		if (s->flags & STORE_F_HAS_RATE)
			meta |= STORE_FIG_HAS_RATE;
		if (s->kind == FM_KIND_COUNTER) {
			/* One multiply: the figure is a float anyway. */
			v = (double)s->acc * s->scale;
			if (s->flags & STORE_F_HAS_RATE)
				x = s->rate;
		} else {
			x = v = s->value;
		}
	}
	uint32_t iv = s->interval_ms < (1u << STORE_FIG_IV_BITS)
			  ? s->interval_ms
			  : (1u << STORE_FIG_IV_BITS) - 1;
	atomic_store_explicit(&f->head, store_float_word(x, meta),
			      memory_order_relaxed);
	atomic_store_explicit(
	    &f->stamp, store_ms_of(st, s->mono_ns) << STORE_FIG_IV_BITS | iv,
	    memory_order_relaxed);
	atomic_store_explicit(store_fig_value_at(st, idx),
			      (uint32_t)store_float_word(v, 0),
			      memory_order_relaxed);
}

static inline store_handle store_make_handle(uint32_t gen, uint32_t idx)
{
	return (uint64_t)gen << 32 | idx;
}

/* The port record id (>= 1) of a slot that has one. */
static inline struct store_port *store_port_at(const struct store *st,
					       uint32_t id)
{
	return &st->port_chunks[(id - 1) >> STORE_PORT_SHIFT]
			       [(id - 1) & (STORE_PORT_CHUNK - 1)];
}

/* The line rate of port record id in bytes/s (0 unknown). */
static inline float store_port_speed(const struct store *st, uint32_t id)
{
	uint32_t u = atomic_load_explicit(&store_port_at(st, id)->speed,
					  memory_order_relaxed);
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

/* Sets the line rate of port record id (a non-finite or negative speed
 * is unknown). */
static inline void store_port_set_speed(const struct store *st, uint32_t id,
					double bps)
{
	float f = isfinite(bps) && bps > 0 && bps < FLT_MAX ? (float)bps : 0;
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	atomic_store_explicit(&store_port_at(st, id)->speed, u,
			      memory_order_relaxed);
}

/* Inserts e = (hash << 32) | value in a linear-probing table of 2^k. */
static inline void store_hash_insert(uint64_t *tab, size_t cap, uint64_t e)
{
	size_t mask = cap - 1;
	size_t i = (size_t)(e >> 32) & mask;
	while (tab[i])
		i = (i + 1) & mask;
	tab[i] = e;
}

/* Doubles a linear-probing table (*tabp, *capp entries) of
 * store_hash_insert entries, re-inserting them, and moves the store's
 * memory account. The caller holds the lock that guards the table;
 * store_index.c. */
void store_hash_grow(struct store *st, uint64_t **tabp, size_t *capp);

/*
 * raw * scale, rounded once: a scale below 1 that is the inverse of an
 * integer (1e-6 for µs, 1e-9 for ns) divides by that integer, so that
 * 4500000 ns is 0.0045 s exactly as printed, not 0.0045000000000000005.
 */
static inline double store_scaled(uint64_t raw, double scale)
{
	if (scale < 1) {
		double inv = 1 / scale;
		double r = nearbyint(inv);
		if (fabs(inv - r) <= r * 1e-12)
			return (double)raw / r;
	}
	return (double)raw * scale;
}

/* A new block of at least size bytes of payload, linked on *list
 * (store.c). */
void *store_block_new(struct store *st, struct store_block **list, size_t size,
		      size_t align);
/* n bytes (n <= block) cut from the run *cur, *left bytes long; when
 * fewer than n are left, the run becomes a new block of block bytes
 * (store_block_new, on *list, aligned to align) and the rest of the old
 * one is left unused. Caller holds the lock that guards the run
 * (store.c). */
void *store_block_take(struct store *st, struct store_block **list, char **cur,
		       size_t *left, size_t n, size_t block, size_t align);
/* Returns a ring of cap floats to its pool (store.c; takes ring_lock). */
void store_ring_put(struct store *st, float *r, unsigned cap);

#endif

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
 * bytes once it has a rate. memory_bytes counts every byte
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
 * A reset or a discontinuity (including one marked by the source, and a
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
 */
#include "config.h"

#include "store.h"

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

#define STORE_SPIN_BEFORE_YIELD 64

enum store_slot_flag {
	STORE_F_LIVE = 1u << 0,
	STORE_F_HAS_VALUE = 1u << 1,
	STORE_F_HAS_RATE = 1u << 2,
	STORE_F_REBASE = 1u << 3, /* the next sample re-bases */
};

struct store_slot {
	/* First cache line: the update path. */
	atomic_uint lock;
	uint32_t gen;
	uint8_t kind;
	uint8_t width;
	uint8_t flags;
	uint8_t pad0;
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
	double max_rate;
	uint64_t updates; /* per slot, never cleared */
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

	char pad1[64];

	/* Under index_lock. */
	pthread_mutex_t index_lock;
	uint64_t *index; /* (hash << 32) | (slot + 1); 0 = empty */
	size_t index_cap;
	size_t index_used;
	uint32_t free_head; /* slot + 1, or 0 */
	void *chunk_mem[STORE_MAX_CHUNKS];

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

static void store_mem_add(struct store *st, size_t n)
{
	atomic_fetch_add_explicit(&st->mem_bytes, n, memory_order_relaxed);
}

static void store_mem_sub(struct store *st, size_t n)
{
	atomic_fetch_sub_explicit(&st->mem_bytes, n, memory_order_relaxed);
}

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
static void *store_block_new(struct store *st, struct store_block **list,
			     size_t size, size_t align)
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

/* Labels. */

static uint32_t store_str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 32;
	return (uint32_t)h;
}

static struct store_label_ent *store_label_ent(const struct store *st,
					       store_label id)
{
	uint32_t i = id - 1;
	return &st->label_chunks[i >> STORE_LABEL_SHIFT]
				[i & (STORE_LABEL_CHUNK - 1)];
}

/* Copies n bytes of s into the string arena (label_lock held). */
static char *store_arena_dup(struct store *st, const char *s, size_t n)
{
	char *p;
	if (n > STORE_ARENA_BLOCK / 4) {
		p = store_block_new(st, &st->arena, n, 1);
	} else {
		if (n > st->arena_left) {
			st->arena_cur = store_block_new(st, &st->arena,
							STORE_ARENA_BLOCK, 1);
			st->arena_left = STORE_ARENA_BLOCK;
		}
		p = st->arena_cur;
		st->arena_cur += n;
		st->arena_left -= n;
	}
	memcpy(p, s, n);
	return p;
}

/* The Prometheus-escaped copy of s, or s itself (label_lock held). */
static const char *store_prom_escape(struct store *st, const char *s,
				     size_t len)
{
	size_t extra = 0;
	for (size_t i = 0; i < len; i++)
		if (s[i] == '\\' || s[i] == '"' || s[i] == '\n')
			extra++;
	if (!extra)
		return s;
	char *buf = xmalloc(len + extra + 1);
	char *o = buf;
	for (size_t i = 0; i < len; i++) {
		switch (s[i]) {
		case '\\':
			*o++ = '\\';
			*o++ = '\\';
			break;
		case '"':
			*o++ = '\\';
			*o++ = '"';
			break;
		case '\n':
			*o++ = '\\';
			*o++ = 'n';
			break;
		default:
			*o++ = s[i];
		}
	}
	*o = '\0';
	char *p = store_arena_dup(st, buf, len + extra + 1);
	free(buf);
	return p;
}

/* Inserts e = (hash << 32) | value in a linear-probing table of 2^k. */
static void store_hash_insert(uint64_t *tab, size_t cap, uint64_t e)
{
	size_t mask = cap - 1;
	size_t i = (size_t)(e >> 32) & mask;
	while (tab[i])
		i = (i + 1) & mask;
	tab[i] = e;
}

static void store_lhash_grow(struct store *st)
{
	size_t cap = st->lhash_cap * 2;
	uint64_t *tab = xcalloc(cap, sizeof *tab);
	for (size_t i = 0; i < st->lhash_cap; i++)
		if (st->lhash[i])
			store_hash_insert(tab, cap, st->lhash[i]);
	free(st->lhash);
	store_mem_sub(st, st->lhash_cap * sizeof *tab);
	store_mem_add(st, cap * sizeof *tab);
	st->lhash = tab;
	st->lhash_cap = cap;
}

store_label store_intern(struct store *st, const char *s)
{
	if (!s)
		return 0;
	uint32_t h = store_str_hash(s);
	store_label id = 0;

	pthread_mutex_lock(&st->label_lock);
	size_t mask = st->lhash_cap - 1;
	for (size_t i = h & mask; st->lhash[i]; i = (i + 1) & mask) {
		uint64_t e = st->lhash[i];
		if ((uint32_t)(e >> 32) == h &&
		    strcmp(store_label_ent(st, (store_label)e)->str, s) == 0) {
			id = (store_label)e;
			goto out;
		}
	}
	uint32_t n = atomic_load_explicit(&st->nlabels, memory_order_relaxed);
	if (n >= STORE_MAX_LABELS)
		goto out;
	id = n + 1;
	uint32_t c = n >> STORE_LABEL_SHIFT;
	if (!st->label_chunks[c]) {
		st->label_chunks[c] =
		    xcalloc(STORE_LABEL_CHUNK, sizeof(struct store_label_ent));
		store_mem_add(st, STORE_LABEL_CHUNK *
				      sizeof(struct store_label_ent));
	}
	size_t len = strlen(s);
	struct store_label_ent *ent = store_label_ent(st, id);
	ent->str = store_arena_dup(st, s, len + 1);
	ent->prom = store_prom_escape(st, ent->str, len);
	if ((n + 1) * 4 > st->lhash_cap * 3)
		store_lhash_grow(st);
	store_hash_insert(st->lhash, st->lhash_cap, (uint64_t)h << 32 | id);
	/* Publishes the entry to lock-free store_label_str() callers. */
	atomic_store_explicit(&st->nlabels, id, memory_order_release);
out:
	pthread_mutex_unlock(&st->label_lock);
	return id;
}

const char *store_label_str(const struct store *st, store_label id)
{
	if (id == 0 ||
	    id > atomic_load_explicit(&st->nlabels, memory_order_acquire))
		return NULL;
	return store_label_ent(st, id)->str;
}

const char *store_label_prom(const struct store *st, store_label id)
{
	if (id == 0 ||
	    id > atomic_load_explicit(&st->nlabels, memory_order_acquire))
		return NULL;
	return store_label_ent(st, id)->prom;
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
		if (p->left < size) {
			p->cur = store_block_new(st, &st->slabs,
						 STORE_RING_SLAB, 64);
			p->left = STORE_RING_SLAB;
		}
		r = p->cur;
		p->cur += size;
		p->left -= size;
	}
	pthread_mutex_unlock(&st->ring_lock);
	return r;
}

static void store_ring_put(struct store *st, float *r, unsigned cap)
{
	struct store_ring_pool *p = &st->rings[store_ring_class(cap)];

	pthread_mutex_lock(&st->ring_lock);
	memcpy(r, &p->free, sizeof p->free);
	p->free = r;
	pthread_mutex_unlock(&st->ring_lock);
}

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

static void store_index_grow(struct store *st)
{
	size_t cap = st->index_cap * 2;
	uint64_t *tab = xcalloc(cap, sizeof *tab);
	for (size_t i = 0; i < st->index_cap; i++)
		if (st->index[i])
			store_hash_insert(tab, cap, st->index[i]);
	free(st->index);
	store_mem_sub(st, st->index_cap * sizeof *tab);
	store_mem_add(st, cap * sizeof *tab);
	st->index = tab;
	st->index_cap = cap;
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
	r->max_rate = spec->max_rate;
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
			s->max_rate = r.max_rate;
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
	struct store_slot *s = store_slot_at(st, idx);
	store_slot_lock(s);
	s->kind = (uint8_t)info->kind;
	s->width = r.width;
	s->flags = STORE_F_LIVE;
	s->raw = 0;
	s->ts_ns = 0;
	s->mono_ns = now;
	s->acc = 0;
	s->rate = 0;
	s->scale = r.scale;
	s->max_rate = r.max_rate;
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
		store_index_grow(st);
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

/*
 * raw * scale, rounded once: a scale below 1 that is the inverse of an
 * integer (1e-6 for µs, 1e-9 for ns) divides by that integer, so that
 * 4500000 ns is 0.0045 s exactly as printed, not 0.0045000000000000005.
 */
static double store_scaled(uint64_t raw, double scale)
{
	if (scale < 1) {
		double inv = 1 / scale;
		double r = nearbyint(inv);
		if (fabs(inv - r) <= r * 1e-12)
			return (double)raw / r;
	}
	return (double)raw * scale;
}

int store_update(struct store *st, store_handle h, uint64_t raw, int64_t ts_ns)
{
	int err;

	if (ts_ns == 0)
		ts_ns = st->real_ns(st->clock_ctx);
	int64_t now = st->mono_ns(st->clock_ctx);
	struct store_slot *s = store_slot_acquire(st, h, &err);
	if (!s)
		return err;
	if (s->kind != FM_KIND_COUNTER) {
		store_slot_unlock(s);
		return -EINVAL;
	}
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
	bool ok = true;
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
		ok = false;
	if (!ok) {
		s->resets++;
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

	if (ts_ns == 0)
		ts_ns = st->real_ns(st->clock_ctx);
	int64_t now = st->mono_ns(st->clock_ctx);
	struct store_slot *s = store_slot_acquire(st, h, &err);
	if (!s)
		return err;
	if (s->kind != FM_KIND_GAUGE) {
		store_slot_unlock(s);
		return -EINVAL;
	}
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

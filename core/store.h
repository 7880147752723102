/*
 * store: the counter store, the one place every collector writes and
 * every consumer (exporters, rules, API) reads.
 *
 * A series is one (device, port, canonical counter, priority or queue)
 * with its last raw value, its timestamp, its declared width (32 or 64
 * bits), a scale that converts raw units to the counter's canonical unit
 * (µs -> s is 1e-6, 4-byte words -> bytes is 4), the running total in
 * canonical units, the latest rate and a short ring of recent rates for
 * the rule engine.
 *
 * Counters: deltas are taken modulo the width; a decrease that is not a
 * plausible wrap, a discontinuity signalled by the source, or a delta
 * implying more than the series' max_rate or more than its port's wire
 * carries is a reset: it yields no rate, the total does not move, and
 * resets_total is bumped (implausible_total too for the last two).
 *
 * Line rate: the gauge FM_C_LINK_SPEED of a (device, port), written by
 * any collector, bounds that port's counters of bytes and frames on the
 * wire (fm_counter_line), whichever was created first: a delta above
 * 1.5 times what the speed carries in the interval (bytes, or frames of
 * FM_LINE_MIN_FRAME bytes) is implausible. A speed of 0, or none, bounds
 * nothing; a withdrawn speed series stops bounding. The first sample
 * of a series gives no rate. Rates use the timestamps the source gives;
 * a timestamp of 0 means "now" (CLOCK_REALTIME).
 *
 * Gauges: the value is stored as given (after scale); no rate.
 *
 * Labels (device, port, queue names, owners) are interned: a label id is
 * stable for the life of the store and its string is never freed.
 *
 * Threading: any thread may create series and update them. Each series
 * has its own tiny lock, so writers of different series never contend
 * and a reader copies one series consistently (value, rate and time
 * together). Series creation and lookup take the index lock. Readers
 * never hold a lock across more than one series, so formatting a large
 * response blocks no writer. A reader that scans every series on a tick
 * (the rule engine) reads the lock-free figures instead (store_figs, at
 * the end of this header): 16 bytes a series and no lock.
 *
 * Ownership: each series belongs to one owner (the target, or the local
 * host) that created it. An update through a handle whose series was
 * withdrawn fails with -ESTALE; the collector resolves it again.
 */
#ifndef FABMON_STORE_H
#define FABMON_STORE_H

#include "counters.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct store;

/* Interned label id; 0 means "no label". */
typedef uint32_t store_label;
/* A series handle: slot and generation. 0 is never a valid handle. */
typedef uint64_t store_handle;

struct store_opts {
	unsigned ring_len;	  /* rates kept per series (default 64) */
	unsigned stale_intervals; /* intervals without update -> stale (5) */
	uint32_t default_interval_ms; /* when a series gives none (1000) */
	/* Monotonic clock for staleness and arrival times (tests inject
	 * one); NULL means CLOCK_MONOTONIC_COARSE (4 ms ticks, a quarter
	 * of the cost per update). */
	int64_t (*mono_ns)(void *ctx);
	/* Wall clock used when a sample's timestamp is 0; NULL means
	 * CLOCK_REALTIME. */
	int64_t (*real_ns)(void *ctx);
	void *clock_ctx;
};

struct store_key {
	store_label device;
	store_label port;
	uint32_t sub; /* priority (0..7) or queue label id, per the counter */
	uint16_t counter; /* enum fm_counter */
};

struct store_series_spec {
	store_label owner; /* target (or host) that writes this series */
	uint8_t width;	   /* 32 or 64; counters only (default 64) */
	double scale;	   /* raw unit -> canonical unit (default 1) */
	double max_rate; /* raw units/s that cannot be exceeded; 0 = unknown */
	uint32_t interval_ms; /* expected update interval (0 = default) */
};

/* A copy of one series, as readers see it. */
struct store_sample {
	struct store_key key;
	store_label owner;
	uint8_t kind;	/* enum fm_kind */
	bool has_value; /* at least one sample seen */
	bool has_rate;	/* a rate is known (two good samples) */
	bool stale;	/* not updated for stale_intervals intervals */
	double value;	/* counter: running total; gauge: last value */
	double rate;	/* canonical units per second */
	uint64_t raw;	/* last raw value */
	int64_t ts_ns;	/* source timestamp of the last sample */
	int64_t age_ns; /* monotonic time since the last update */
	uint32_t interval_ms;
	uint32_t ring_n; /* rates in the ring */
};

struct store_stats {
	uint64_t series;       /* live series */
	uint64_t stale_series; /* live series that are stale now */
	uint64_t labels;       /* interned labels */
	uint64_t memory_bytes; /* bytes held by the store */
	uint64_t updates_total;
	uint64_t resets_total; /* counter resets and discontinuities */
	/* Of those, deltas above what the source can carry: the series'
	 * max_rate, or the line rate of its port. */
	uint64_t implausible_total;
	uint64_t rejected_total; /* out-of-order or bad samples dropped */
};

/* A new empty store; opts may be NULL for defaults. Never NULL. */
struct store *store_new(const struct store_opts *opts);
/* Frees everything; every label string and handle becomes invalid. */
void store_free(struct store *st);
/* Changes ring_len and stale_intervals for series created afterwards
 * (ring_len) and for staleness checks from now on (stale_intervals). */
void store_set_opts(struct store *st, unsigned ring_len,
		    unsigned stale_intervals, uint32_t default_interval_ms);

/* Interns s and returns its id (never 0 for a non-NULL s; 0 for NULL). */
store_label store_intern(struct store *st, const char *s);
/* The string of an id; NULL for 0 or an unknown id. Lives as long as st. */
const char *store_label_str(const struct store *st, store_label id);
/* The same string escaped for a Prometheus label value (\\, \", \n). */
const char *store_label_prom(const struct store *st, store_label id);

/*
 * Finds or creates the series of key and returns its handle. spec is
 * used when the series is created (NULL: defaults) and updates width,
 * scale, max_rate and interval of an existing one. Returns 0 if the
 * counter id is invalid, or if the series exists with another owner
 * (two sources for one series would corrupt its rate; the conflict is
 * counted in rejected_total). Also 0 for an invalid sub (above 7 for a
 * per-priority counter, not 0 for one without sub label) or spec (width
 * not 0, 32 or 64; scale or max_rate negative or not finite), and when
 * the store is full (32 Mi series).
 */
store_handle store_series(struct store *st, const struct store_key *key,
			  const struct store_series_spec *spec);
/* The handle of an existing series, or 0. */
store_handle store_lookup(const struct store *st, const struct store_key *key);

/*
 * Records a raw counter sample taken at ts_ns (ns since the epoch, 0 =
 * now). 0, or -ESTALE (handle withdrawn: resolve again), -EINVAL (bad
 * handle, or the series is a gauge), -ERANGE (timestamp older than the
 * last sample: dropped and counted).
 */
int store_update(struct store *st, store_handle h, uint64_t raw, int64_t ts_ns);
/* Records a gauge value (in raw units; scale applies). Same returns. */
int store_set_gauge(struct store *st, store_handle h, double value,
		    int64_t ts_ns);
/* The source saw a discontinuity (counter cleared, device rebooted):
 * the next sample of h gives no rate and does not move the total. */
int store_mark_discontinuity(struct store *st, store_handle h);
/* The same for every series of owner (e.g. sysUpTime went back). */
void store_mark_owner_discontinuity(struct store *st, store_label owner);
/* Removes every series of owner; their handles become stale. Returns
 * the number of series removed. */
size_t store_withdraw_owner(struct store *st, store_label owner);

/*
 * Readers. store_slots() is the number of slots to scan; slots are
 * never reused while a reader scans them in a way that tears a copy.
 * store_read() copies slot i into *out: 0 if it holds a live series,
 * -ENOENT if the slot is free.
 */
uint32_t store_slots(const struct store *st);
int store_read(const struct store *st, uint32_t slot, struct store_sample *out);
/* Copies up to max recent rates of slot, oldest first; returns the count
 * (0 for a free slot or a series without rates). */
unsigned store_read_ring(const struct store *st, uint32_t slot, float *out,
			 unsigned max);
/* The slot of a handle (for callers that keep handles and read). */
uint32_t store_handle_slot(store_handle h);

void store_get_stats(const struct store *st, struct store_stats *out);

/*
 * Lock-free figures, for readers that scan every series on a tick (the
 * rule engine). Besides its locked record each slot has a 16-byte entry
 * in a dense array of two 64-bit words, and a 4-byte value in a second,
 * colder array. Writers store each word whole, under the slot's lock,
 * whenever the series is created, updated, given a new spec or
 * withdrawn; readers load words without any lock, so a word is never
 * torn and is consistent in itself (the figure and the flags that
 * qualify it share one word), while two words of one slot may come from
 * successive samples. A scan of 2 M series reads 32 MB here instead of
 * 256 MB of slots, and takes no lock.
 *
 *   head:	x (float bits) | meta << 32, where meta is the STORE_FIG_
 *		flags | generation << STORE_FIG_GEN_SHIFT; x is a counter's
 *		rate (0 without one) or a gauge's value, in canonical units
 *   stamp:	arrival_ms << 24 | interval_ms: the arrival of the last
 *		sample (or the creation of the series) in milliseconds on
 *		the store's monotonic clock since the store was created
 *		(store_fig_ms gives now on that scale; 40 bits: 34 years),
 *		and the interval as given, 0 meaning the store's default,
 *		saturated at 2^24 - 1 ms (4.6 hours)
 *   value:	(store_fig_value) a counter's running total or a gauge's
 *		value, in canonical units, as float bits; a reader that
 *		needs it for few series reads it only for those
 *
 * The generation (29 bits of the slot's) changes whenever the slot is
 * withdrawn and reused, so a reader that keeps a per-slot
 * classification (what a slot's key means to it) revalidates it only
 * when the generation it recorded differs, using store_slot_key.
 */
struct store_fig {
	_Atomic uint64_t head;
	_Atomic uint64_t stamp;
};

#define STORE_FIG_LIVE	    1u /* the slot holds a series */
#define STORE_FIG_HAS_VALUE 2u /* at least one sample seen */
#define STORE_FIG_HAS_RATE  4u /* a rate is known */
#define STORE_FIG_GEN_SHIFT 3
#define STORE_FIG_IV_BITS   24

/*
 * The figures of slot and of the slots after it in the same block:
 * sets *out to slot's entry and returns how many consecutive entries
 * (slot, slot + 1, ...) may be read from it, 0 when slot >= store_slots.
 * The entries live as long as st; loop with slot += the count.
 */
uint32_t store_figs(const struct store *st, uint32_t slot,
		    const struct store_fig **out);

/* Loads one word of an entry (relaxed atomic loads, no lock). */
static inline uint64_t store_fig_head(const struct store_fig *f)
{
	return atomic_load_explicit(&f->head, memory_order_relaxed);
}

static inline uint64_t store_fig_stamp(const struct store_fig *f)
{
	return atomic_load_explicit(&f->stamp, memory_order_relaxed);
}

/* The parts of a head word. */
static inline uint32_t store_fig_meta(uint64_t head)
{
	return (uint32_t)(head >> 32);
}

static inline uint32_t store_fig_gen(uint64_t head)
{
	return (uint32_t)(head >> 32) >> STORE_FIG_GEN_SHIFT;
}

/* The float in the low half of a head word (x). */
static inline float store_fig_float(uint64_t word)
{
	uint32_t u = (uint32_t)word;
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

/* The parts of a stamp word. */
static inline int64_t store_fig_arrival_ms(uint64_t stamp)
{
	return (int64_t)(stamp >> STORE_FIG_IV_BITS);
}

static inline uint32_t store_fig_interval_ms(uint64_t stamp)
{
	return (uint32_t)(stamp & ((1u << STORE_FIG_IV_BITS) - 1));
}

/* A time of the store's monotonic clock (store_mono_now) on the
 * figures' millisecond scale (truncated; 0 before the store existed). */
int64_t store_fig_ms(const struct store *st, int64_t mono_ns);

/* The value figure of slot (relaxed atomic load, no lock); 0 for a
 * slot never published or out of range. */
float store_fig_value(const struct store *st, uint32_t slot);

/*
 * How many withdrawals have begun. A slot's generation (and key) only
 * changes in one, after this count moved: a reader that scans the
 * figures between two equal readings of it (the second after an
 * acquire fence) saw no slot change keys and need not compare
 * generations.
 */
uint64_t store_withdrawals(const struct store *st);

/*
 * The key of the series in slot and the generation its figures carry,
 * copied together under the slot's lock: 0, or -ENOENT if the slot is
 * free.
 */
int store_slot_key(const struct store *st, uint32_t slot, struct store_key *key,
		   uint32_t *gen);

/* The store's monotonic clock now (the one mono_ns figures use). */
int64_t store_mono_now(const struct store *st);

/*
 * The staleness rule in force: a series is stale once its age is at
 * least *intervals times its interval (the default interval when it
 * gives none), i.e. (double)age_ns >= (double)intervals * interval_ms *
 * 1e6, exactly as store_read decides. On the figures' scale the same
 * rule reads age_ms >= intervals * interval_ms, with both times
 * truncated to the millisecond (within a millisecond of store_read).
 */
void store_stale_rule(const struct store *st, unsigned *intervals,
		      uint32_t *default_interval_ms);

#endif

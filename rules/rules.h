/*
 * rules: the rule engine. On a fixed tick it reads the store's current
 * rates into a compact per-port view, joins ports over the link table
 * into a per-priority pause graph, evaluates the detections of
 * doc/rules.md and keeps incidents: kind, origin, the ports involved
 * with their roles, the evidence at the peak, and a lifecycle
 *
 *   pending --(condition held for the kind's for-duration)--> firing
 *   firing --(condition absent for the clear duration)--> resolved
 *
 * with one incident per (kind, origin). While an incident's origin has
 * no fresh data (a counter reset after a reboot, a lost sample) the
 * incident neither clears nor advances: silence is not health.
 *
 * Threads and ownership. The engine borrows the store, the link table
 * and the health registry (which must outlive it) and owns the rest. A
 * tick runs on the engine's own thread (rules_start) or on the caller's
 * (rules_tick, for tests with an injected clock); one mutex serialises
 * ticks, reconfiguration and snapshots, so readers see a consistent set
 * of incidents. Snapshots are copies the caller frees.
 *
 * Cost: per-port state lives in flat arrays indexed by a stable port id;
 * the graph (peers, ports per device, rails) is rebuilt only when the
 * link table's generation or the set of ports changes; a steady-state
 * tick allocates nothing.
 */
#ifndef FABMON_RULES_H
#define FABMON_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"

struct store;
struct links;
struct health;
struct cfg;

enum rules_kind {
	RULES_PFC_STORM,
	RULES_CONGESTION_SPREADING,
	RULES_PFC_DEADLOCK,
	RULES_INCAST,
	RULES_LOSSLESS_DROP,
	RULES_PAUSE_ON_LOSSY,
	RULES_ECN_AFTER_PFC,
	RULES_ECN_WITHOUT_CNP,
	RULES_LINK_FLAP,
	RULES_TARGET_SILENT,
	RULES_RAIL_MISALIGNMENT,
	RULES_KINDS
};

enum rules_state { RULES_PENDING, RULES_FIRING, RULES_RESOLVED };

/*
 * Roles of the ports an incident involves: its origin; a victim (held
 * paused, throttled, dropped on, cabled wrong); a spreader (a port that
 * relays the pause upstream: it pauses its peer because its own device
 * is paused); a member of a deadlock cycle.
 */
enum rules_role {
	RULES_ROLE_ORIGIN,
	RULES_ROLE_VICTIM,
	RULES_ROLE_SPREADER,
	RULES_ROLE_MEMBER,
	RULES_ROLES
};

/* "pfc_storm", "firing", "origin"...; "?" if out of range. */
const char *rules_kind_name(enum rules_kind k);
const char *rules_state_name(enum rules_state s);
const char *rules_role_name(enum rules_role r);

/* One port (or device, port "") of an incident. parent indexes the
 * subject it hangs from in the pause tree (-1: none, the origin). */
struct rules_subject {
	char *device;
	char *port;   /* "" for a whole device */
	int priority; /* -1: none */
	enum rules_role role;
	int parent;
	unsigned depth; /* hops from the origin in the tree */
};

/* One figure of the evidence, taken at the incident's peak. */
struct rules_evidence {
	char *name;   /* "pause_ratio_tx", "cnp_sent_pps"... */
	char *device; /* whose figure it is */
	char *port;
	double value;
};

/*
 * Who sends what an incident's origin stands for (pfc_storm only; the
 * other kinds are RULES_SENDER_MONITORED). A storm from outside the
 * view: the pausing end is a device fabmond has no fresh data of. When
 * the link table names it, the origin is that device:port (the port
 * that is paused is its victim); when the paused port has no link, the
 * origin is the paused port itself with far_end set: the storm comes
 * from the far end of that device:port, which nothing names.
 */
enum rules_sender {
	RULES_SENDER_MONITORED,	  /* the ordinary case */
	RULES_SENDER_UNMONITORED, /* no fresh data of the pausing end */
};

/* "" (monitored) or "unmonitored". */
const char *rules_sender_name(enum rules_sender s);

struct rules_incident {
	uint64_t id; /* unique for the engine's life */
	enum rules_kind kind;
	enum rules_state state;
	int priority;	     /* -1: none */
	int64_t started_ns;  /* condition first seen (wall clock) */
	int64_t fired_ns;    /* 0 while pending */
	int64_t resolved_ns; /* 0 unless resolved */
	int64_t peak_ns;
	double peak;   /* the kind's score at its peak (e.g. pause ratio) */
	char *summary; /* one line for logs and people */
	/* subjects[0] is the origin. */
	struct rules_subject *subjects;
	size_t n_subjects;
	struct rules_evidence *evidence;
	size_t n_evidence;
	/* The origin (subjects[0]) is the far end of that device:port,
	 * which the link table does not name (see enum rules_sender). */
	bool far_end;
	enum rules_sender sender;
};

/* A derived per-port figure the rules use (what dashboards see). */
struct rules_port_ratio {
	char *device, *port;
	int priority;
	float pause_tx; /* fraction of time this port kept its peer paused */
	float pause_rx; /* fraction of time this port was paused */
};

struct rules_snapshot {
	struct rules_incident *active; /* pending and firing, by id */
	size_t n_active;
	struct rules_incident *recent; /* resolved, newest first */
	size_t n_recent;
	uint64_t fired_total[RULES_KINDS]; /* incidents that fired */
	struct rules_port_ratio *ratios;   /* lossless priorities only */
	size_t n_ratios;
	uint64_t ticks;
	double last_tick_cpu_s;	  /* thread CPU time of the last tick */
	double last_tick_wall_s;  /* wall time of the last tick */
	uint64_t tick_overruns;	  /* ticks over rules.tick, or late by it */
	uint64_t last_tick_reads; /* series read from the store in it */
	size_t ports;		  /* ports in the engine's view */
	/* Times the per-port tables (and the view) were reallocated since
	 * rules_new: a graph rebuild sizes them once for all the ports its
	 * links add, so this stays small however many links arrive. */
	uint64_t port_growths;
};

/* Clocks for tests; NULL members mean the real clocks. */
struct rules_opts {
	int64_t (*real_ns)(void *ctx); /* incident times (epoch ns) */
	void *clock_ctx;
};

/*
 * A new engine over st, l and h (h may be NULL: no target_silent) with
 * the thresholds of c. opts may be NULL. Never NULL.
 */
struct rules *rules_new(struct store *st, struct links *l, struct health *h,
			const struct cfg *c, const struct rules_opts *opts);
/* Stops the thread if running and frees everything; NULL is a no-op. */
void rules_free(struct rules *r);

/* Applies a new config's thresholds, lossless priorities and tick. */
void rules_configure(struct rules *r, const struct cfg *c);

/* Priorities of a port (802.1p). */
#define RULES_PRIOS 8

/* One port's per-second rates over the last tick, as the engine feeds
 * its outputs (NaN or 0: none). Labels are the store's interned ids. */
struct rules_port_rates {
	store_label device, port;
	bool is_nic;
	/* Per priority. pause_*_s are fractions of time (s/s). */
	float pause_tx_s[RULES_PRIOS], pause_rx_s[RULES_PRIOS];
	float frames_tx[RULES_PRIOS], frames_rx[RULES_PRIOS];
	float drops[RULES_PRIOS], ecn[RULES_PRIOS];
	uint8_t has_ecn; /* bit p: the port has an ECN counter on p */
	/* Per port (NICs). */
	float ce, cnp_sent, cnp_handled, cnp_ignored, out_of_buffer;
};

/*
 * An output of the engine (the report's history, the Alertmanager
 * pusher): the hooks it is called through, each with the ctx it was
 * registered with. Any hook may be NULL. All are called on the ticking
 * thread under the engine's lock, so they must not block on I/O.
 */
struct rules_output_ops {
	const char *name;
	/* An incident fired (fired_ns set) or resolved (resolved_ns
	 * set). in and what it points to are borrowed for the call. */
	void (*incident)(void *ctx, const struct rules_incident *in);
	/* Each tick: tick_begin(), then tick_port() for every port with a
	 * figure other than 0, then tick_end(). */
	void (*tick_begin)(void *ctx, int64_t now_ns);
	void (*tick_port)(void *ctx, const struct rules_port_rates *p);
	void (*tick_end)(void *ctx);
};

struct rules_output {
	const struct rules_output_ops *ops;
	void *ctx;
};

/* Outputs an engine feeds at most. */
#define RULES_MAX_OUTPUTS 4

/*
 * Replaces the outputs the engine feeds with the n (at most
 * RULES_MAX_OUTPUTS; more are ignored) of v, copied. Their ctx are
 * borrowed; the hooks are called under the engine's lock, so after this
 * returns the old ones are no longer used and may be freed.
 */
void rules_set_outputs(struct rules *r, const struct rules_output *v, size_t n);

/*
 * New samples are in the store: the tick thread runs a tick soon (when
 * kicks have been quiet for 50 ms, at most 250 ms after the first, so a
 * round of samples is one tick; at least 100 ms, and ten times the last
 * tick's CPU, after the previous one), so detection
 * follows sample arrival instead of waiting for the next periodic tick.
 * Cheap and non-blocking after the first call since the last tick (an
 * atomic flag); safe from any thread. fabmond calls it from the health
 * registry's updated hook, i.e. after every batch a collector stores.
 */
void rules_kick(struct rules *r);

/* Starts the tick thread. 0 or -errno. */
int rules_start(struct rules *r);
/* Stops and joins it (no-op if not running). */
void rules_stop(struct rules *r);

/* One evaluation at wall-clock time now_ns (the thread passes the real
 * clock; tests their own). */
void rules_tick(struct rules *r, int64_t now_ns);

/* The tick interval in use (ns). */
uint64_t rules_tick_ns(struct rules *r);
/* The tick c asks for: rules.tick, else the shortest sample interval of
 * any target or collector, at least 100 ms. */
uint64_t rules_tick_for(const struct cfg *c);

/* A copy of the incidents and derived figures; free with
 * rules_snapshot_free(). with_ratios: also copy the per-port ratios. */
void rules_snapshot(struct rules *r, bool with_ratios,
		    struct rules_snapshot *out);
void rules_snapshot_free(struct rules_snapshot *s);

#endif

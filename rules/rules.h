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
	uint64_t last_tick_reads; /* series read from the store in it */
	size_t ports;		  /* ports in the engine's view */
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

struct report;
struct alert;
/*
 * Outputs the engine feeds (either may be NULL: none): the report's
 * history (report_begin/report_port each tick) and, on every firing and
 * resolution, report_incident() and alert_incident(). Both are borrowed
 * and called under the engine's lock, so after this returns the old
 * ones are no longer used and may be freed.
 */
void rules_set_outputs(struct rules *r, struct report *rep, struct alert *al);
/* The report set by rules_set_outputs (NULL: none); it lives as long as
 * whoever set it keeps it there (fabmond: until after HTTP stops). */
struct report *rules_get_report(struct rules *r);

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

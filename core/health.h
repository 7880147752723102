/*
 * health: fabmond's view of its own state, for /metrics, /api/v1/targets
 * and /healthz: per-target collector health and the daemon's status
 * (start time, config reloads).
 *
 * Collectors get a struct health_target for each (target, protocol) they
 * serve and report on it from their own threads; exporters take
 * snapshots. One mutex guards the registry; updates are a few stores
 * under it and happen at most once per sample batch, never per value.
 */
#ifndef FABMON_HEALTH_H
#define FABMON_HEALTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct health;
struct health_target;

enum health_counter {
	HEALTH_C_UPDATES,	/* values received and stored */
	HEALTH_C_RECONNECTS,	/* sessions re-established */
	HEALTH_C_ERRORS,	/* failed connects, polls, reads */
	HEALTH_C_DECODE_ERRORS, /* messages rejected as malformed */
	HEALTH_C_UNMAPPED,	/* values no profile maps */
	HEALTH_C_TIMEOUTS,	/* requests that timed out */
	HEALTH_C_OVERRUNS,	/* polls that overran their interval */
	HEALTH_C__COUNT
};

/* Prometheus-style snake_case names of the counters ("updates", ...). */
const char *health_counter_name(enum health_counter c);

struct health_target_info {
	char *target;	/* owned by the snapshot */
	char *protocol; /* "gnmi", "snmp", "nic" */
	bool up;
	bool sync_seen; /* gNMI: a sync_response arrived on this stream */
	int64_t last_update_age_ns; /* -1: never */
	double last_duration_s;	    /* last poll/read duration; <0: unknown */
	uint64_t counters[HEALTH_C__COUNT];
	/* Realtime ns the entry was made: its counters count from then. */
	int64_t created_ns;
	char *last_error; /* NULL if none; owned by the snapshot */
};

struct health *health_new(void);
void health_free(struct health *h);

/* Finds or creates the entry; the pointer lives until it is removed by
 * health_remove_target() or health_free(). Starts down, "not started". */
struct health_target *health_target(struct health *h, const char *target,
				    const char *protocol);
/* The setters below do nothing for a NULL entry (a collector's helper
 * stream that reports into the log only). */
/* Down with a reason (copied), or up (reason NULL). */
void health_target_set_up(struct health_target *t, bool up, const char *reason);
/* Down, with the reason printf-formatted (cut at 511 bytes). */
void health_target_set_down(struct health_target *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Data arrived: last update is now; adds n to the updates counter.
 * With n > 0, then calls the registry's updated hook, if any. */
void health_target_updated(struct health_target *t, uint64_t n);
/*
 * fn(ctx) is called after every batch a target stored (from
 * health_target_updated, on the collector's thread, without the
 * registry's lock held): it must be cheap and never block. fabmond
 * hooks rules_kick here so the engine ticks as samples arrive. Set it
 * before collectors start (NULL: none).
 */
void health_set_updated_hook(struct health *h, void (*fn)(void *ctx),
			     void *ctx);
void health_target_count(struct health_target *t, enum health_counter c,
			 uint64_t n);
void health_target_set_sync(struct health_target *t, bool seen);
void health_target_set_duration(struct health_target *t, double seconds);
/* Removes every protocol entry of target (reload dropped it). */
void health_remove_target(struct health *h, const char *target);
/* Removes the entry of one protocol of target. */
void health_remove(struct health *h, const char *target, const char *protocol);

/* A copy of every entry, sorted by target then protocol; the caller
 * frees it with health_snapshot_free(). */
size_t health_snapshot(struct health *h, struct health_target_info **out);
void health_snapshot_free(struct health_target_info *v, size_t n);

/* Daemon status: the outcome and time of the last config load, and the
 * time of the last successful one (the start, until a reload succeeds). */
void health_set_reload(struct health *h, bool ok, int64_t when_realtime_ns);
void health_get_reload(struct health *h, bool *ok, int64_t *when_ns,
		       int64_t *last_success_ns);
int64_t health_start_time_ns(const struct health *h);

#endif

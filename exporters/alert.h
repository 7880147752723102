/*
 * alert: pushes the rule engine's incidents to Alertmanager's v2 API
 * (POST /api/v2/alerts, a JSON array of postable alerts).
 *
 * Each incident becomes one alert whose labels identify it to
 * Alertmanager: alertname (Fabmon + the kind in CamelCase), kind,
 * severity, device, port and priority of the origin, origin
 * ("device:port"), and the static labels of the config (e.g. fabric).
 * Annotations carry the summary and the incident id.
 *
 * Alertmanager expects clients to re-send active alerts: every resend
 * interval (alertmanager.resend, 1 min) each firing alert is posted
 * again with endsAt = now + 4 x resend (as Prometheus does: two missed
 * sends are tolerated). A resolution is posted with endsAt = the time
 * it resolved, and posted again on the next two resend cycles in case
 * an Alertmanager restarted meanwhile.
 *
 * Threads: alert_incident() is called by the engine under its lock and
 * never blocks on the network: it updates a bounded table
 * (alertmanager.max_alerts; when full, the oldest resolved alert is
 * forgotten, else the new one is dropped and counted) and wakes the
 * sender thread. The sender posts batches of at most 256 alerts with
 * libcurl (timeout alertmanager.timeout); a failure retries with
 * exponential backoff from 1 s up to the resend interval, logging once
 * when sending starts failing and once when it recovers.
 *
 * An alert_meter carries the pusher's figures to /metrics
 * (fabmon_alertmanager_*): fabmond makes one for its life and attaches
 * each pusher it starts, so a reload that replaces the pusher does not
 * reset the counters. The counters are the meter's (atomics the sender
 * adds to, no lock); the queue figures are read from the pusher
 * attached at the time. Lock order: the meter's lock, then a pusher's.
 */
#ifndef FABMON_ALERT_H
#define FABMON_ALERT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rules.h"

struct alert;
struct cfg_alert;
struct rules_incident;

struct alert_stats {
	uint64_t posts_ok, posts_failed;
	uint64_t alerts_sent; /* alerts in successful posts */
	uint64_t dropped;     /* incidents not pushed: the table was full */
	size_t pending;	      /* alerts waiting to be (re)sent now */
	size_t tracked;	      /* alerts in the table */
};

/*
 * A pusher for c (c->url must be set); copies what it needs. Does not
 * start sending until alert_start(). Never NULL.
 */
struct alert *alert_new(const struct cfg_alert *c);
/* Stops the thread (after one last attempt to post what is pending,
 * bounded by the timeout) and frees everything; NULL is a no-op. */
void alert_free(struct alert *a);

/* Starts the sender thread. 0 or -errno. */
int alert_start(struct alert *a);

/* An incident fired or resolved (pending ones are ignored). Never
 * blocks on I/O. */
void alert_incident(struct alert *a, const struct rules_incident *in);

/* The pusher as an output of the engine (rules_set_outputs() with ctx
 * the pusher): its incident hook is alert_incident(). */
extern const struct rules_output_ops alert_output_ops;

void alert_get_stats(struct alert *a, struct alert_stats *out);

struct alert_meter;

/* What /metrics shows of the pusher. */
struct alert_meter_stats {
	bool attached; /* a pusher is attached now */
	bool ever;     /* one was at some time (the counters mean something) */
	uint64_t posts_ok;     /* posts Alertmanager accepted (2xx) */
	uint64_t posts_failed; /* transport error, timeout, non-2xx */
	uint64_t retries;      /* posts made after a failed one (backoff) */
	uint64_t alerts_sent;  /* alerts in accepted posts */
	uint64_t dropped;      /* incidents not pushed: the table was full */
	size_t pending;	       /* alerts waiting to be (re)sent now */
	size_t tracked;	       /* alerts in the table */
	double last_ok_age_s;  /* since the last accepted post; < 0: none */
};

/* A meter with nothing attached. Never NULL. It must outlive every
 * pusher attached to it. alert_meter_free(NULL) does nothing. */
struct alert_meter *alert_meter_new(void);
void alert_meter_free(struct alert_meter *m);

/*
 * Makes a (NULL: none, alertmanager was removed) the pusher m shows:
 * from now on a counts its posts in m. A pusher attached before is no
 * longer shown but keeps counting until it is freed (its last posts on
 * the way out are counted too). Call before alert_start(a).
 */
void alert_meter_attach(struct alert_meter *m, struct alert *a);
void alert_meter_get(struct alert_meter *m, struct alert_meter_stats *out);

/* True if a and b push the same way (a reload keeps the pusher). */
bool alert_cfg_equal(const struct cfg_alert *a, const struct cfg_alert *b);

#endif

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
 */
#ifndef FABMON_ALERT_H
#define FABMON_ALERT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

void alert_get_stats(struct alert *a, struct alert_stats *out);

/* True if a and b push the same way (a reload keeps the pusher). */
bool alert_cfg_equal(const struct cfg_alert *a, const struct cfg_alert *b);

#endif

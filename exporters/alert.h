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
 * Every URL of alertmanager.urls gets every alert (Alertmanager asks
 * clients to post to each replica of a cluster, as Prometheus does):
 * the pusher keeps one target per URL, each with its own table, sender
 * thread and backoff, so a dead or slow Alertmanager never delays a
 * live one. Basic auth or an Authorization header and the TLS options
 * of the config apply to every URL.
 *
 * Threads: alert_incident() is called by the engine under its lock and
 * never blocks on the network: it updates each target's bounded table
 * (alertmanager.max_alerts; when full, the oldest resolved alert is
 * forgotten, else the new one is dropped and counted) and wakes its
 * sender thread. A sender posts batches of at most 256 alerts with
 * libcurl (timeout alertmanager.timeout). A transport error, a timeout,
 * a 5xx or a 429 retries with exponential backoff from 1 s up to the
 * resend interval; any other 4xx (bad credentials, a refused body) is
 * not retried: the batch counts as dropped and its firing alerts go
 * again with the next resend. Each target logs once when posting starts
 * failing and once when it works again, naming its URL without
 * credentials (never a secret).
 *
 * An alert_meter carries the pusher's figures to /metrics
 * (fabmon_alertmanager_*, per URL): fabmond makes one for its life and
 * attaches each pusher it starts, so a reload that replaces the pusher
 * does not reset the counters of the URLs it keeps. The counters are
 * the meter's (atomics the senders add to, no lock); the queue figures
 * are read from the pusher attached at the time. Lock order: the
 * meter's lock, then a target's. alert_meter_attach() and alert_free()
 * of one pusher are called from one thread (fabmond's main thread).
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
 * A pusher for c (c->n_urls >= 1); copies what it needs, secrets
 * included (zeroed when freed). Does not start sending until
 * alert_start(). Never NULL.
 */
struct alert *alert_new(const struct cfg_alert *c);
/* Stops the thread (after one last attempt to post what is pending,
 * bounded by the timeout) and frees everything; NULL is a no-op. */
void alert_free(struct alert *a);

/* Starts the sender threads (one per URL). 0 or -errno (then none
 * runs). */
int alert_start(struct alert *a);

/* An incident fired or resolved (pending ones are ignored); telling the
 * same one again is harmless (a new pusher is told what fires already).
 * Any thread. Never blocks on I/O. */
void alert_incident(struct alert *a, const struct rules_incident *in);

/* The pusher as an output of the engine (rules_set_outputs() with ctx
 * the pusher): its incident hook is alert_incident(). */
extern const struct rules_output_ops alert_output_ops;

/* The pusher's figures: counters summed over its URLs, pending the sum
 * of the URLs' queues, tracked the largest of their tables. */
void alert_get_stats(struct alert *a, struct alert_stats *out);

struct alert_meter;

/* URLs a meter shows at once (a reload may hold an old and a new
 * pusher of CFG_ALERT_MAX_URLS each), and the longest shown URL. */
#define ALERT_METER_URLS 32
#define ALERT_URL_LEN	 1040
/* Upper bounds (s) of the post duration histogram's finite buckets. */
#define ALERT_LATENCY_BUCKETS 10
extern const double alert_latency_bounds[ALERT_LATENCY_BUCKETS];

/* What /metrics shows of one URL. */
struct alert_url_stats {
	char url[ALERT_URL_LEN]; /* base URL without credentials */
	bool attached;		 /* the attached pusher posts to it */
	uint64_t posts_ok, posts_failed, retries, alerts_sent, dropped;
	uint64_t latency_count; /* posts timed (every attempt) */
	uint64_t latency_le[ALERT_LATENCY_BUCKETS]; /* cumulative counts */
	double latency_sum_s;
	size_t pending, tracked; /* 0 unless attached */
	double last_ok_age_s;	 /* < 0: no accepted post yet */
};

/* What /metrics shows of the pusher: the sums over its URLs (as one
 * URL showed them before alertmanager.urls), and each URL. */
struct alert_meter_stats {
	bool attached; /* a pusher is attached now */
	bool ever;     /* one was at some time (the counters mean something) */
	uint64_t posts_ok;     /* posts Alertmanager accepted (2xx) */
	uint64_t posts_failed; /* transport error, timeout, non-2xx */
	uint64_t retries;      /* posts made after a failed one (backoff) */
	uint64_t alerts_sent;  /* alerts in accepted posts */
	uint64_t dropped;      /* table full, or rejected with a 4xx */
	size_t pending;	       /* alerts waiting to be (re)sent now */
	size_t tracked;	       /* alerts in the largest table */
	double last_ok_age_s;  /* since the last accepted post; < 0: none */
	size_t n_urls;	       /* every URL ever attached, up to 32 */
	struct alert_url_stats url[ALERT_METER_URLS];
};

/* A meter with nothing attached. Never NULL. It must outlive every
 * pusher attached to it. alert_meter_free(NULL) does nothing. */
struct alert_meter *alert_meter_new(void);
void alert_meter_free(struct alert_meter *m);

/*
 * Makes a (NULL: none, alertmanager was removed) the pusher m shows:
 * from now on a counts its posts in m, each URL in the counters that
 * URL had before (matched by the URL shown). A pusher attached before is
 * no longer shown but keeps counting until it is freed (its last posts
 * on the way out are counted too). A URL that is no longer configured
 * keeps its counters; past ALERT_METER_URLS URLs, the counters of one
 * no pusher uses are reused. Call before alert_start(a).
 */
void alert_meter_attach(struct alert_meter *m, struct alert *a);
/* A copy of m's figures (out is large: about 40 KiB). */
void alert_meter_get(struct alert_meter *m, struct alert_meter_stats *out);

/* True if a and b push the same way (a reload keeps the pusher). */
bool alert_cfg_equal(const struct cfg_alert *a, const struct cfg_alert *b);

#endif

/*
 * prom: the Prometheus text exposition (format 0.0.4) of the store's
 * canonical counters and of fabmond's own health.
 *
 * The renderer is a pure function of the store, the health registry and
 * a few figures the caller keeps (struct prom_self); it writes into a
 * caller-owned buffer, so the HTTP layer renders each request into its
 * own buffer and tests render without HTTP.
 *
 * Threading: any number of renders may run at once, concurrently with
 * the collectors. The store is read one series at a time (each copy
 * takes only that series' lock) and the health registry is copied once,
 * so no lock is held while formatting.
 */
#ifndef FABMON_PROM_H
#define FABMON_PROM_H

#include "buf.h"

#include <stdint.h>

struct store;
struct health;
struct ident_table;
struct alert_meter_stats;

/* The Content-Type of what prom_render() writes. */
#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* Figures the renderer cannot take from the store or the registry. */
struct prom_self {
	/* Duration of the previous render, for
	 * fabmon_scrape_duration_seconds; < 0: none yet (omitted). */
	double scrape_duration_s;
	/* The NIC port identities for fabmon_nic_port_info (ident.h,
	 * borrowed); NULL: the family is left out. */
	struct ident_table *ident;
};

/*
 * Appends the exposition to out: every canonical family that has series
 * (HELP, TYPE, then its series contiguously: series sorted by counter id,
 * the ids of a family being adjacent), then fabmon_nic_port_info (one
 * series per NIC port of self->ident, ident.h), then
 * fabmond's fabmon_* health families. Counters print their running
 * total, gauges their value; stale series and series without a value are
 * left out. self may be NULL.
 * h may be NULL (no per-target families, reload state unknown).
 * 0, or -ENOMEM (out is then incomplete).
 */
int prom_render(struct store *st, struct health *h,
		const struct prom_self *self, struct buf *out);

/*
 * Appends the Alertmanager pusher's families (fabmon_alertmanager_*,
 * rules/alert.h) to an exposition: nothing if no pusher was ever
 * configured. The counters survive reloads; the queue gauges are the
 * current pusher's (0 when alertmanager was removed); the last-success
 * age is left out until a post has succeeded. 0 or -ENOMEM.
 */
int prom_render_alertmanager(const struct alert_meter_stats *st,
			     struct buf *out);

#endif

/*
 * prom: the Prometheus exposition (text format 0.0.4 or OpenMetrics
 * 1.0.0, expfmt.h) of the store's canonical counters, of fabmond's own
 * health and of the process (process_*, as the client libraries).
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
#include "expfmt.h"

#include <stdint.h>

struct store;
struct health;
struct ident_table;
struct alert_meter_stats;
struct procstat;

/* Figures the renderer cannot take from the store or the registry. */
struct prom_self {
	/* Duration of the previous render, for
	 * fabmon_scrape_duration_seconds; < 0: none yet (omitted). */
	double scrape_duration_s;
	/* The NIC port identities for fabmon_nic_port_info (ident.h,
	 * borrowed); NULL: the family is left out. */
	struct ident_table *ident;
	/* The format (0: the text format). */
	enum expfmt format;
	/* The process's figures for the process_* families (procstat.h,
	 * borrowed); NULL: left out. */
	const struct procstat *process;
};

/*
 * Appends the exposition to out in self->format: every canonical family
 * that has series (HELP, TYPE, then its series contiguously: series
 * sorted by counter id, the ids of a family being adjacent), then
 * fabmon_nic_port_info (an info metric: one series per NIC port of
 * self->ident, ident.h), then fabmon_build_info, the process_* families
 * (with self->process) and fabmond's fabmon_* health families. Counters
 * print their running total, gauges their value; stale series and
 * series without a value are left out. self may be NULL (text format).
 * h may be NULL (no per-target families, reload state unknown).
 *
 * In OpenMetrics, _created is given for the counters whose start is
 * known: the store's own (fabmond's start, h), the per-target ones (the
 * target's entry in h, created at the start or the reload that
 * configured it) and process_cpu_seconds_total (the process's start).
 * The device counters get none: their totals run from when fabmond
 * first saw each series, which the store does not keep (8 bytes more
 * per series), and one more line per series would double the largest
 * expositions for a figure Prometheus ignores by default.
 * The caller ends the exposition (expfmt_put_eof).
 * 0, or -ENOMEM (out is then incomplete).
 */
int prom_render(struct store *st, struct health *h,
		const struct prom_self *self, struct buf *out);

/*
 * Appends the Alertmanager pusher's families (fabmon_alertmanager_*,
 * exporters/alert.h) to an exposition in format f: nothing if no pusher
 * was ever configured. The counters survive reloads (created_s: when
 * the meter was made, fabmond's start; < 0: unknown); the queue gauges
 * are the current pusher's (0 when alertmanager was removed); the
 * last-success age is left out until a post has succeeded. 0 or
 * -ENOMEM.
 */
int prom_render_alertmanager(const struct alert_meter_stats *st, enum expfmt f,
			     double created_s, struct buf *out);

#endif

/*
 * report: the history behind /api/v1/report, the fabric validation
 * report an operator runs around a benchmark (doc/api.md). This module
 * keeps the history and answers queries with figures (report_query);
 * exporters/report_api.c parses the request, judges and writes the
 * JSON.
 *
 * What it keeps, for the configured window (report.window, 24 h), in
 * memory bounded at configuration time:
 *
 *  - time buckets of report.step (1 min): fabric-wide sums per priority
 *    (pause frames and seconds rx/tx, drops, ECN marks) and per fabric
 *    (CE received, CNPs sent/handled/ignored, NIC out_of_buffer). One
 *    bucket is ~0.5 KiB, so 24 h at 1 min is ~0.7 MiB.
 *  - per-(port, priority) records of the ports that paused or were
 *    paused on a lossless priority in a bucket (pause seconds both ways,
 *    ECN marks): what the ECN-before-PFC check and the straggler ranking
 *    read. They live in one ring of report.max_records (24 bytes each);
 *    when it is full the oldest buckets lose their records first, and
 *    the report says from when its per-port parts are complete.
 *  - the incidents that fired (report.max_incidents), with their firing
 *    and resolution times, so storms and deadlocks of the whole window
 *    are listed even when the engine's recent list is shorter.
 *
 * Feeding (through report_output_ops, an output of the engine): the
 * rule engine calls report_begin() at each tick, then
 * report_port() for each port with something to say (per-second rates
 * of that tick), then report_end(); and report_incident() on each
 * firing and resolution.
 * Amounts are rate x the time since the previous tick (at most 10 s, so
 * a stopped process does not invent pause time).
 *
 * Threads: one mutex; the engine's thread feeds, HTTP threads read.
 * report_query holds the lock only while it copies the range's buckets,
 * records and incidents (a memcpy, ~10 ms for 1 Mi records); it sums
 * and sorts the copy without it, so a query never stalls a tick.
 * Labels are the store's interned ids, so the store must outlive the
 * report.
 */
#ifndef FABMON_REPORT_H
#define FABMON_REPORT_H

#include "rules.h"
#include "store.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct report;

#define REPORT_PRIOS RULES_PRIOS

/* Defaults of the report: section (fabmon.yaml(5)). */
#define REPORT_DEFAULT_WINDOW_NS (UINT64_C(24) * 3600 * 1000000000)
#define REPORT_DEFAULT_STEP_NS	 (UINT64_C(60) * 1000000000)
#define REPORT_DEFAULT_RECORDS	 (UINT64_C(1) << 20)
#define REPORT_DEFAULT_INCIDENTS 10000u
#define REPORT_MAX_LISTED	 1000u

struct report_opts {
	uint64_t window_ns;   /* history kept */
	uint64_t step_ns;     /* bucket width; divides nothing, >= 1 s */
	uint64_t max_records; /* per-(port, priority) records kept */
	unsigned max_incidents;
	uint8_t lossless_mask;
};

/* A new empty report over st's labels. Never NULL. */
struct report *report_new(const struct store *st, const struct report_opts *o);
/* NULL is a no-op. */
void report_free(struct report *rep);
/* Applies new options. A changed step, window or record bound empties
 * the history (the buckets no longer line up); the lossless set and the
 * incident bound apply from now on. */
void report_configure(struct report *rep, const struct report_opts *o);

/* The start of a tick at wall-clock now_ns: opens a new bucket when the
 * step changed, drops what fell out of the window. Takes the report's
 * lock and keeps it until report_end(), so that the per-port calls of
 * one tick lock once. */
void report_begin(struct report *rep, int64_t now_ns);
/* Adds one port's rates x the tick's duration; between report_begin()
 * and report_end() only. */
void report_port(struct report *rep, const struct rules_port_rates *p);
/* The end of the tick's feed: releases the lock. */
void report_end(struct report *rep);
/* An incident fired (fired_ns set) or resolved (resolved_ns set). */
void report_incident(struct report *rep, const struct rules_incident *in);

/* The report as an output of the engine (rules_set_outputs() with ctx
 * the report): the hooks call report_begin/_port/_end and
 * report_incident. */
extern const struct rules_output_ops report_output_ops;

/* Memory held now and at most (bytes). */
void report_memory(const struct report *rep, size_t *now, size_t *bound);
/* The bound for options o without building a report. */
size_t report_memory_bound(const struct report_opts *o);

/* An incident of the report's range (strings owned by the result). */
struct report_incident_row {
	uint64_t id;
	enum rules_kind kind;
	int prio;		       /* -1: none */
	int64_t fired_ns, resolved_ns; /* resolved_ns 0: still firing */
	double peak;
	char *device, *port, *summary; /* port "": none */
	bool far_end;		       /* see struct rules_incident */
	enum rules_sender sender;
};

/* A port that paused a peer on a lossless priority without its device
 * marking ECN there. Labels are the store's, valid while it lives. */
struct report_port_row {
	const char *device, *port;
	int prio;
	double pause_tx_s;
};

/* A NIC by pause time (labels as above). */
struct report_straggler {
	const char *device;
	double pause_tx_s, pause_rx_s;
};

/* What the report found over a range: the figures behind
 * /api/v1/report (doc/api.md), which exporters/ judges and writes. */
struct report_result {
	int64_t from_ns, to_ns; /* the range, defaults applied */
	int64_t step_ns;
	uint8_t lossless_mask;
	/* Coverage: buckets of the range held, the time they cover
	 * (when buckets > 0), whether they are all there and from when
	 * the per-port detail is complete (0: nowhere). */
	size_t buckets;
	int64_t cov_from_ns, cov_to_ns;
	bool complete;
	int64_t detail_from_ns;
	/* Fabric-wide sums per priority and per fabric. */
	double pause_tx[REPORT_PRIOS], pause_rx[REPORT_PRIOS];
	double frames_tx[REPORT_PRIOS], frames_rx[REPORT_PRIOS];
	double drops[REPORT_PRIOS], ecn[REPORT_PRIOS];
	double ce, cnp_sent, cnp_handled, cnp_ignored, oob;
	/* Incidents firing at some point of the range: per kind, and the
	 * first REPORT_MAX_LISTED (truncated: there were more). */
	size_t counts[RULES_KINDS];
	struct report_incident_row *incidents;
	size_t n_incidents;
	bool truncated;
	/* ECN before PFC: ports checked, and the offenders. */
	size_t ecn_checked;
	struct report_port_row *ecn_bad;
	size_t n_ecn_bad;
	/* The NICs that paused most, heaviest first (at most top). */
	struct report_straggler *stragglers;
	size_t n_stragglers;
};

/*
 * The report of [from_ns, to_ns] at wall-clock now_ns into res (free
 * with report_result_free()). to_ns < 0: now; from_ns < 0: the oldest
 * data kept (or to). top: stragglers listed at most. rep NULL: a report
 * of nothing (every figure 0, coverage empty). 0, or -ERANGE when to
 * is before from (res is then empty).
 */
int report_query(struct report *rep, int64_t from_ns, int64_t to_ns,
		 unsigned top, int64_t now_ns, struct report_result *res);
/* Frees what res holds; it is left empty. */
void report_result_free(struct report_result *res);

#endif

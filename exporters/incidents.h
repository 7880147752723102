/*
 * incidents: what the rule engine and the link table show the outside:
 * the JSON of /api/v1/incidents and /api/v1/topology (doc/api.md) and
 * the engine's Prometheus families (fabmon_incident_active,
 * fabmon_incidents_total, fabmon_pause_ratio, the engine's tick cost).
 *
 * Each function takes one snapshot of the engine or the link table (a
 * copy made under their lock) and formats it without holding any lock,
 * into a caller-owned buffer; any number may run at once, from any
 * thread.
 */
#ifndef FABMON_INCIDENTS_H
#define FABMON_INCIDENTS_H

#include "api.h"
#include "buf.h"
#include "expfmt.h"

struct rules;
struct links;

/*
 * GET /api/v1/incidents: active (pending and firing) and recently
 * resolved incidents with their subjects, pause tree and evidence.
 * Parameters: kind (an incident kind), state (active, recent or all).
 * Returns the HTTP status (200, or 400 with {"error"}) or -ENOMEM;
 * without an engine (r NULL) the lists are empty.
 */
int incidents_api_incidents(struct rules *r, const struct api_param *params,
			    size_t n_params, struct buf *out);

/* GET /api/v1/topology: the effective links and the rails (none if l
 * is NULL). No parameters. Status as above. */
int incidents_api_topology(struct links *l, const struct api_param *params,
			   size_t n_params, struct buf *out);

/* Appends the engine's families to a Prometheus exposition in format f.
 * fabmon_incidents_total counts from created_s (the engine's making,
 * fabmond's start; < 0: unknown), its _created in OpenMetrics. 0 or
 * -ENOMEM. */
int incidents_prom_render(struct rules *r, enum expfmt f, double created_s,
			  struct buf *out);

#endif

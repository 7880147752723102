/*
 * collector: the ops table every collector (gNMI, SNMP, NIC) provides,
 * and the environment fabmond hands it.
 *
 * fabmond keeps a const array of collectors (fabmond.c) and loads the
 * config with their parse hooks (cfg), so each protocol's section is
 * validated with the rest before anything starts. At start each
 * one is given the whole validated config and takes what is its own (a
 * collector with nothing to do returns 0 and stays idle); on reload it
 * is given the new config and must converge to it (start new targets,
 * stop removed ones, restart changed ones) without disturbing the rest;
 * at stop it joins its threads. Collectors write the store and report
 * per-target health; they never read another collector's state.
 */
#ifndef FABMON_COLLECTOR_H
#define FABMON_COLLECTOR_H

#include "cfg.h"
#include "health.h"
#include "links.h"
#include "store.h"

struct ident_table;

/* links: where collectors report LLDP neighbours and NIC MACs
 * (links_report_lldp, links_set_nic_mac); may be NULL in tests.
 * ident: where the NIC collector publishes its ports' identities
 * (ident.h, read by the exporters); may be NULL (nothing published). */
struct collector_env {
	struct store *store;
	struct health *health;
	struct links *links;
	struct ident_table *ident;
};

struct collector_ops {
	const char *name; /* also the log subsystem and health protocol */
	/* Its config hooks (top-level section and/or target block, keyed
	 * by name), or NULL; fabmond puts them in its cfg_schema. */
	const struct cfg_section_ops *cfg;
	/* Starts with cfg; *state is the collector's own. 0 or -errno. */
	int (*start)(const struct collector_env *env, const struct cfg *cfg,
		     void **state);
	/* Converges a running collector to cfg. 0 or -errno (the
	 * collector keeps running with what it could apply). */
	int (*reload)(void *state, const struct cfg *cfg);
	/* Stops threads and frees state. */
	void (*stop)(void *state);
};

#endif

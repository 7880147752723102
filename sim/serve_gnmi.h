/*
 * sim_serve_gnmi: every simulated switch of a fabric as a gNMI target
 * on its own loopback port, serving the paths and encodings its
 * flavour's profile (etc/profiles/{sonic,arista,openconfig}.yaml) reads:
 *
 *   sonic       prefix target COUNTERS_DB, JSON_IETF objects of decimal
 *               strings: COUNTERS/<port> (SAI_PORT_STAT_*, PFC per
 *               priority with pause durations in us), COUNTERS/<port>/
 *               Queues ("<port>:<q>" SAI_QUEUE_STAT_*), COUNTERS/<port>/
 *               Pfcwd (lossless queues), COUNTERS_PORT_NAME_MAP;
 *               and what is APPL_DB's (sonic-gnmi's prefix target
 *               APPL_DB; the tree is one): PORT_TABLE/<port> (speed in
 *               Mb/s, oper_status, the port's configuration) and
 *               LLDP_ENTRY_TABLE/<port>; sample intervals under 1 s
 *               are refused, as sonic-gnmi does.
 *   arista      OpenConfig interface, Ethernet and QoS queue containers
 *               plus Arista's PFC augments (pfc-on-total-rx-time in ns)
 *               and the LLDP neighbour table, as JSON_IETF containers.
 *   openconfig  the same without the PFC augments.
 *
 * Values come from sim_model_read_switch_port() in the units each real
 * device reports. A switch is published (its counters read from the
 * model and its leaves set and ticked) only while a client has a
 * stream open on it, so idle switches cost nothing but their listener.
 *
 * Threads. The targets run on one gnmi_target_loop thread of their own.
 * sim_serve_gnmi_publish() reads the model, so it runs on the model's
 * thread; the other calls may come from that thread too (the fault
 * calls block for up to a second while gRPC closes a listener).
 *
 * Ownership. The topology is borrowed and must outlive the server.
 */
#ifndef FABMON_SIM_SERVE_GNMI_H
#define FABMON_SIM_SERVE_GNMI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "scenario.h"
#include "topo.h"
#include "visibility.h"

struct sim_serve_gnmi_options {
	const char *address; /* host to bind: "127.0.0.1" (default), "::1" */
	/* 0: every switch on a port the kernel picks; else base + the
	 * switch's position among the switches (spines, then leaves). */
	unsigned base_port;
	/* Passed on to every target (gnmi_target_options): non-zero, the
	 * caller publishes each switch about this often, and SAMPLE
	 * subscriptions follow its publishes (a late publish is a late
	 * notification, a skipped one a missing notification); 0, the
	 * targets' timers sample the last publish. */
	uint64_t tick_interval_ns;
	/* NULL: every switch served with its LLDP neighbours. Else
	 * unmonitored switches get no target (port -1), no-LLDP switches
	 * serve no LLDP, and LLDP names only the neighbours it allows
	 * (see visibility.h). Borrowed; must outlive the server. */
	const struct sim_visibility *vis;
	/* Seeds the garbage fault's bytes (with the switch's id). */
	uint64_t seed;
};

/* How long a Subscribe stream lasts under SIM_SCENARIO_TARGET_RESET. */
#define SIM_SERVE_GNMI_RESET_NS 500000000ull

void sim_serve_gnmi_options_init(struct sim_serve_gnmi_options *o);

struct sim_serve_gnmi;

/*
 * Starts one target per (monitored) switch of t. NULL with a one-line message
 * in err if a port cannot be bound (naming the switch and the address).
 */
struct sim_serve_gnmi *
sim_serve_gnmi_new(const struct sim_topo *t,
		   const struct sim_serve_gnmi_options *o, char *err,
		   size_t errlen);
/* Stops every target; NULL is a no-op. */
void sim_serve_gnmi_free(struct sim_serve_gnmi *g);

/* The TCP port of switch node (a node id); -1 for hosts and
 * unmonitored switches. */
int sim_serve_gnmi_port(const struct sim_serve_gnmi *g, size_t node);

/* Open Subscribe streams on switch node (0 for hosts). */
size_t sim_serve_gnmi_streams(const struct sim_serve_gnmi *g, size_t node);

/*
 * Reads the counters of every switch that has a stream open (every
 * switch if all) from m and publishes them with timestamp ts_ns (ns
 * since the epoch). Returns the number of switches published. Model
 * thread only.
 */
size_t sim_serve_gnmi_publish(struct sim_serve_gnmi *g,
			      const struct sim_model *m, int64_t ts_ns,
			      bool all);

/*
 * The same for one switch (a node id): publishes it if it has a stream
 * open (or if all) and returns whether it did; false for hosts and
 * unmonitored switches. Model thread only.
 */
bool sim_serve_gnmi_publish_node(struct sim_serve_gnmi *g,
				 const struct sim_model *m, size_t node,
				 int64_t ts_ns, bool all);

/*
 * Makes switch node's target behave: OK serves; IS_SILENT keeps
 * streams open and sends nothing; REFUSES closes the listener and ends
 * every call, so clients see connections refused; RESET ends the open
 * streams at once and every new one SIM_SERVE_GNMI_RESET_NS after it
 * opens, with UNAVAILABLE, while accepting new ones (a flapping
 * session); GARBAGE replaces every notification by bytes that do not
 * decode (gnmi_target_set_garbage(), seeded by the options' seed and
 * the switch), keeping the streams open; DROP_AFTER_SYNC ends the open
 * streams at once and every new one right after its sync_response,
 * with UNAVAILABLE (gnmi_target_set_end_after_sync()); WRONG_TYPES
 * writes every counter of the JSON objects as the string "n/a" from the
 * next publish on (every port is written again when it comes and when
 * it goes; names, oper-status and PORT_TABLE stay); SLOW concerns SNMP
 * only and serves as OK. 0, -EINVAL for
 * a host or an unknown fault, or a negative errno (the listener could
 * not be reopened).
 */
int sim_serve_gnmi_set_fault(struct sim_serve_gnmi *g, size_t node,
			     enum sim_scenario_target fault);
enum sim_scenario_target sim_serve_gnmi_fault(const struct sim_serve_gnmi *g,
					      size_t node);

/* The profile a switch of flavour f is read with ("sonic"...), and its
 * prefix target ("COUNTERS_DB", or NULL). */
const char *sim_serve_gnmi_profile(enum sim_flavour f);
const char *sim_serve_gnmi_target(enum sim_flavour f);

#endif

/*
 * Internal to fabsim's program (sim/fabsim*.c): not an API. The state
 * of one fabsim run, owned by the run loop's thread (see fabsim.c), and
 * the calls between its pieces: fabsim_run.c (load, serve, the loop),
 * fabsim_ctl.c (control requests), fabsim_conf.c (the fabmond
 * configuration).
 */
#ifndef FABMON_FABSIM_INT_H
#define FABMON_FABSIM_INT_H

#include "fabsim_opts.h"

#include "control.h"
#include "model.h"
#include "nicfs.h"
#include "pubsched.h"
#include "scenario.h"
#include "serve_gnmi.h"
#include "snmp_agent.h"
#include "topo.h"
#include "visibility.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fabsim {
	struct fabsim_opts o;
	struct sim_scenario *scn;
	const struct sim_topo *topo;
	struct sim_scenario_live *live;
	struct sim_model *m;
	struct sim_serve_gnmi *gnmi;
	struct sim_snmp *snmp;
	struct sim_nicfs *nic;
	struct sim_control *ctl;
	struct sim_visibility *vis;	 /* what fabmond can see */
	struct sim_pubsched *sched;	 /* when each switch publishes */
	enum sim_scenario_target *fault; /* per node, as applied */
	uint64_t loop_base_ns;		 /* model time the timeline began */
	unsigned loops;
	bool apply_warned;
	/* figures for -v */
	uint64_t lag_ns, step_ns, pub_ns, n_ticks, n_pubs, n_pub_sw;
};

/* SIGINT/SIGTERM: asks the run loop to stop (async-signal-safe). */
void fabsim_on_signal(int sig);

/* Loads the topology or scenario (or generates the fabric) and makes
 * the model. 0, or an exit status after a message on stderr. */
int fabsim_load(struct fabsim *f);

/* Starts gNMI, SNMP, the NIC trees and the control endpoint as the
 * options ask. 0, or an exit status after a message on stderr. */
int fabsim_start_servers(struct fabsim *f);

/* The run loop, until a signal, the duration or the scenario's end;
 * returns the exit status. */
int fabsim_run(struct fabsim *f);

/* Frees what load and start made (each part may be missing). */
void fabsim_cleanup(struct fabsim *f);

/* Switch node's SNMP port, or -1 without SNMP. */
int fabsim_snmp_port(const struct fabsim *f, size_t node);

/* Applies the target faults due at timeline position pos. */
void fabsim_apply_faults(struct fabsim *f, uint64_t pos);

/* Answers control request c (run loop only) and completes it. */
void fabsim_handle(struct fabsim *f, struct sim_control_cmd *c);

/* Writes the fabmond configuration to f->o.emit; nonzero on error
 * (after a message on stderr). */
int fabsim_write_config(const struct fabsim *f);

#endif

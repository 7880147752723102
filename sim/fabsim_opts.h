/*
 * fabsim_opts: fabsim's command line (see man/fabsim.1). Parsing only;
 * the strings in the options point into argv.
 */
#ifndef FABMON_FABSIM_OPTS_H
#define FABMON_FABSIM_OPTS_H

#include "topo.h"

#include <stdbool.h>
#include <stdint.h>

/* fabsim's exit statuses besides 0. */
#define FABSIM_EXIT_RUNTIME 1
#define FABSIM_EXIT_USAGE   2

/* The share of publishes lost without --sample-loss or
 * --quiet-baseline. */
#define FABSIM_SAMPLE_LOSS 0.005
/* How early or late a publish is, at most, as a share of --publish
 * (without --quiet-baseline). */
#define FABSIM_SAMPLE_JITTER 0.25

struct fabsim_opts {
	const char *topology, *scenario;
	struct sim_topo_gen gen;
	bool generate;
	enum sim_flavour flavours[SIM_TOPO_MAX_FLAVOURS];
	uint64_t seed;
	bool seed_set;
	uint64_t counter_base;
	uint64_t tick_ns, publish_ns, nic_ns, duration_ns;
	double load;
	const char *address;
	bool allow_remote;
	unsigned gnmi_port, snmp_port;
	bool no_snmp;
	const char *community;
	uint64_t slow_delay_ns; /* --slow-delay; 0: the agent's default */
	const char *nic_dir, *nic_hosts;
	const char *control;
	const char *emit, *profiles_dir, *fabmond_listen;
	bool no_static_links;
	/* A quiet baseline: every switch publishes on one grid, none late
	 * or lost (and the model adds no background noise). */
	bool quiet_baseline;
	double sample_loss; /* the share of publishes lost */
	bool sample_loss_set;
	/* Partial visibility (lists of node names, see visibility.h). */
	const char *unmonitored, *no_lldp;
	bool unmonitored_lldp;
	bool loop;
	int verbose;
};

/*
 * Parses argv into o (defaults first). Returns -1 to go on, else the
 * exit status: 0 after --help or --version (printed to stdout),
 * FABSIM_EXIT_USAGE after a message on stderr.
 */
int fabsim_opts_parse(struct fabsim_opts *o, int argc, char **argv);

#endif

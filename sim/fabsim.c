/*
 * fabsim: a simulated RoCE fabric on loopback. Loads a topology (or
 * generates one) and optionally a scenario, runs the counter model in
 * real time, serves every switch over gNMI (sim/serve_gnmi) and SNMP
 * (sim/snmp_agent), writes every host's NIC counters as sysfs and
 * ethtool trees (sim/nicfs), takes commands on a control endpoint
 * (sim/control) and writes a fabmond configuration that points at all
 * of it (--emit-config). See man/fabsim.1.
 *
 * Threads. The run loop (this file's main thread) owns the model, the
 * scenario and its live events: every tick it applies the timeline,
 * steps the model by the real time elapsed (capped at the model's
 * longest tick), drains the control endpoint's queue, applies target
 * faults, publishes counters to the gNMI targets at the publish
 * interval, writes the NIC trees at theirs, and spends the rest of the
 * tick answering SNMP (net-snmp's agent is single-threaded and reads
 * the model directly, so it runs here too). The gNMI targets have the
 * target library's loop thread; the control endpoint has its HTTP
 * thread, which only queues requests for the run loop.
 *
 * This file is the program's main: fabsim_opts.c reads the command
 * line, fabsim_run.c loads, serves and runs the loop, fabsim_ctl.c
 * answers control requests, fabsim_conf.c writes the fabmond
 * configuration.
 */
#include "config.h"

#include "fabsim_int.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	struct fabsim f;
	memset(&f, 0, sizeof f);
	int rc = fabsim_opts_parse(&f.o, argc, argv);
	if (rc >= 0)
		return rc;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = fabsim_on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	rc = fabsim_load(&f);
	if (!rc)
		rc = fabsim_start_servers(&f);
	if (!rc && f.o.emit && fabsim_write_config(&f))
		rc = FABSIM_EXIT_RUNTIME;
	if (!rc) {
		if (f.o.verbose)
			fprintf(stderr, "fabsim: serving %zu switches of %s\n",
				sim_topo_n_tier(f.topo, SIM_NODE_SPINE) +
				    sim_topo_n_tier(f.topo, SIM_NODE_LEAF),
				sim_topo_source(f.topo));
		rc = fabsim_run(&f);
	}
	fabsim_cleanup(&f);
	return rc;
}

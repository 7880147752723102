/*
 * bench_sim_model: the cost of one sim_model_step() (100 ms tick) on the
 * generated 8/64/512/8 benchmark fabric and on a 992-switch fabric of
 * 64-port leaves (32 spines, 960 leaves, 3,840 hosts x 8 NICs), each
 * loaded with a ring all-reduce at 80% of line rate plus a 16-to-1
 * incast and a stalled NIC, so PFC, ECN and DCQCN all do work; then
 * the cost of a link going down and coming back (rerouting). Prints
 * figures (thread CPU time); never fails on time.
 */
#include "config.h"

#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* CPU time of this thread, not wall time: the figure stays meaningful
 * on a machine shared with other work. */
static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void run(unsigned spines, unsigned leaves, unsigned hosts, unsigned nics)
{
	char err[256];
	struct sim_topo_gen g = {
		.spines = spines, .leaves = leaves, .hosts = hosts, .nics = nics
	};
	struct sim_topo *t = sim_topo_generate(&g, err, sizeof err);
	if (!t) {
		fprintf(stderr, "%s\n", err);
		exit(1);
	}
	struct sim_model *m = sim_model_new(t, 1, err, sizeof err);
	size_t n_nic = (size_t)hosts * nics;
	size_t first = sim_topo_tier_node(t, SIM_NODE_HOST, 0)->ports[0].id;
	for (size_t h = 0; h < hosts; h++)
		for (size_t k = 0; k < nics; k++) {
			size_t src = first + h * nics + k;
			size_t dst = first + ((h + 1) % hosts) * nics + k;
			struct sim_model_flow f = {
				src, dst, 3, 320.0, NULL, 0
			};
			sim_model_add_flow(m, &f);
		}
	for (size_t i = 1; i <= 16; i++) {
		struct sim_model_flow f = {
			first + i * 997 % n_nic, first, 3, 400.0, NULL, 0
		};
		if (f.src != f.dst)
			sim_model_add_flow(m, &f);
	}
	struct sim_model_nic_cfg c;
	sim_model_get_nic_cfg(m, first + n_nic / 2, &c);
	c.rx_drain = 0;
	sim_model_set_nic_cfg(m, first + n_nic / 2, &c);
	double t0 = now_s();
	sim_model_step(m, 100000000);
	double t1 = now_s();
	const int steps = 50;
	for (int i = 0; i < steps; i++)
		sim_model_step(m, 100000000);
	double t2 = now_s();
	/* A leaf uplink goes down and comes back: the steps that reroute. */
	const struct sim_node *leaf = sim_topo_tier_node(t, SIM_NODE_LEAF, 0);
	size_t up = leaf->ports[leaf->n_ports - 1].id;
	sim_model_set_link(m, up, false);
	double t3 = now_s();
	sim_model_step(m, 100000000);
	double t4 = now_s();
	sim_model_set_link(m, up, true);
	sim_model_step(m, 100000000);
	double t5 = now_s();
	printf("%u/%u/%u/%u: %zu nodes, %zu ports, %zu flows: first step "
	       "(routing) %.1f ms, step %.3f ms, link down %.1f ms, up "
	       "%.1f ms\n",
	       spines, leaves, hosts, nics, sim_topo_n_nodes(t),
	       sim_topo_n_ports(t), sim_model_n_flows(m), (t1 - t0) * 1e3,
	       (t2 - t1) * 1e3 / steps, (t4 - t3) * 1e3, (t5 - t4) * 1e3);
	sim_model_free(m);
	sim_topo_free(t);
}

int main(void)
{
	run(8, 64, 512, 8);
	run(32, 960, 3840, 8);
	return 0;
}

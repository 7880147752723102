/*
 * sim_snmp_serve: a small fabric served by sim_snmp for manual checks
 * and shell tests. Generates spines/leaves/hosts (flavours round-robin
 * sonic, arista, openconfig), starts one flow from every host's NIC 0
 * to the next host's, steps the model every 100 ms of wall time and
 * serves SNMP in between. Prints "name port" per switch, then "ready",
 * on stdout; runs until SIGTERM/SIGINT or --duration seconds. With
 * --renumber SWITCH,A,B each SIGUSR1 swaps that switch's ifIndex A and
 * B (names and counters follow the ports) and prints "renumbered".
 *
 * Usage: sim_snmp_serve [--spines N] [--leaves N] [--hosts N]
 *        [--base-port P] [--address A] [--community C]
 *        [--v3 user,auth,key[,priv,key]] [--duration S]
 *        [--renumber SWITCH,A,B]
 */
#include "config.h"

#include "snmp_agent.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile sig_atomic_t stop, renumber;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void on_usr1(int sig)
{
	(void)sig;
	renumber = 1;
}

int main(int argc, char **argv)
{
	struct sim_topo_gen g = {
		.spines = 1, .leaves = 2, .hosts = 2, .nics = 1
	};
	static const enum sim_flavour flav[] = { SIM_FLAVOUR_SONIC,
						 SIM_FLAVOUR_ARISTA,
						 SIM_FLAVOUR_OPENCONFIG };
	g.flavours = flav;
	g.n_flavours = 3;
	struct sim_snmp_options o;
	sim_snmp_options_init(&o);
	double duration = 0;
	char *v3 = NULL;
	char ren_sw[64] = "";
	unsigned ren_a = 0, ren_b = 0;
	for (int i = 1; i + 1 < argc; i += 2) {
		const char *k = argv[i], *v = argv[i + 1];
		if (!strcmp(k, "--spines"))
			g.spines = (unsigned)atoi(v);
		else if (!strcmp(k, "--leaves"))
			g.leaves = (unsigned)atoi(v);
		else if (!strcmp(k, "--hosts"))
			g.hosts = (unsigned)atoi(v);
		else if (!strcmp(k, "--base-port"))
			o.base_port = (unsigned)atoi(v);
		else if (!strcmp(k, "--address"))
			o.address = v;
		else if (!strcmp(k, "--community"))
			o.community = v;
		else if (!strcmp(k, "--v3"))
			v3 = strdup(v);
		else if (!strcmp(k, "--duration"))
			duration = atof(v);
		else if (!strcmp(k, "--renumber")) {
			if (sscanf(v, "%63[^,],%u,%u", ren_sw, &ren_a,
				   &ren_b) != 3) {
				fprintf(stderr, "sim_snmp_serve: --renumber "
						"SWITCH,A,B\n");
				return 2;
			}
		} else {
			fprintf(stderr, "sim_snmp_serve: unknown option %s\n",
				k);
			return 2;
		}
	}
	if (v3) {
		o.v3_user = strtok(v3, ",");
		o.v3_auth = strtok(NULL, ",");
		o.v3_auth_key = strtok(NULL, ",");
		o.v3_priv = strtok(NULL, ",");
		o.v3_priv_key = strtok(NULL, ",");
	}
	char err[512];
	struct sim_topo *t = sim_topo_generate(&g, err, sizeof err);
	if (!t) {
		fprintf(stderr, "sim_snmp_serve: %s\n", err);
		return 2;
	}
	struct sim_model *m = sim_model_new(t, 1, err, sizeof err);
	if (!m) {
		fprintf(stderr, "sim_snmp_serve: %s\n", err);
		return 2;
	}
	size_t nh = sim_topo_n_tier(t, SIM_NODE_HOST);
	for (size_t i = 0; nh > 1 && i < nh; i++) {
		const struct sim_node *a =
		    sim_topo_tier_node(t, SIM_NODE_HOST, i);
		const struct sim_node *b =
		    sim_topo_tier_node(t, SIM_NODE_HOST, (i + 1) % nh);
		struct sim_model_flow f = { .src = a->ports[0].id,
					    .dst = b->ports[0].id,
					    .prio = 3,
					    .gbps = 100 };
		sim_model_add_flow(m, &f);
	}
	struct sim_snmp *s = sim_snmp_new(t, m, &o, err, sizeof err);
	if (!s) {
		fprintf(stderr, "sim_snmp_serve: %s\n", err);
		return 1;
	}
	for (size_t i = 0; i < sim_topo_n_nodes(t); i++)
		if (sim_snmp_port(s, i) >= 0)
			printf("%s %d\n", sim_topo_node(t, i)->name,
			       sim_snmp_port(s, i));
	printf("ready\n");
	fflush(stdout);
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	struct sigaction su = { .sa_handler = on_usr1 };
	sigaction(SIGUSR1, &su, NULL);
	size_t ren_node = SIZE_MAX;
	for (size_t i = 0; *ren_sw && i < sim_topo_n_nodes(t); i++)
		if (!strcmp(sim_topo_node(t, i)->name, ren_sw))
			ren_node = i;
	uint64_t steps = 0;
	while (!stop && (duration <= 0 || steps * 0.1 < duration)) {
		if (renumber) {
			renumber = 0;
			int rc =
			    sim_snmp_swap_ifindex(s, ren_node, ren_a, ren_b);
			printf(rc ? "renumber failed\n" : "renumbered\n");
			fflush(stdout);
		}
		sim_model_step(m, 100000000ull);
		steps++;
		if (sim_snmp_poll(s, 100000000ull) < 0)
			break;
	}
	sim_snmp_free(s);
	sim_model_free(m);
	sim_topo_free(t);
	free(v3);
	return 0;
}

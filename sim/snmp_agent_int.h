/*
 * Internal to sim/snmp_agent*.c: not an API. The embedded SNMP agent's
 * state (switches, their sessions and sockets) shared by its two
 * pieces: snmp_agent.c answers the MIB subtrees from the model,
 * snmp_agent_serve.c sets up net-snmp, opens the sessions and polls.
 * Threads as in snmp_agent.c: one agent per process, every call from
 * the model's thread.
 */
#ifndef FABMON_SNMP_AGENT_INT_H
#define FABMON_SNMP_AGENT_INT_H

#include "snmp_agent.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* net-snmp's config header defines autoconf's PACKAGE_* as well. */
#undef PACKAGE_BUGREPORT
#undef PACKAGE_NAME
#undef PACKAGE_STRING
#undef PACKAGE_TARNAME
#undef PACKAGE_URL
#undef PACKAGE_VERSION
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>
#include <net-snmp/library/large_fd_set.h>
#include <net-snmp/library/snmpIPBaseDomain.h>
#include <net-snmp/library/snmpUDPDomain.h>
#include <net-snmp/library/snmpUDPIPv6Domain.h>

#define APP_NAME   "fabsim"
#define MAX_EVENTS 256
#define N(a)	   (sizeof(a) / sizeof((a)[0]))
#define N_SUBTREES 7

struct sw_port {
	const struct sim_port *port;
	uint32_t ifindex;
	/* ifLastChange: link events seen at the last read and the model
	   time they were first seen. */
	uint64_t link_events;
	uint64_t change_ns;
};

struct sw {
	struct sim_snmp *s;
	const struct sim_node *node;
	struct sw_port *ports; /* in ifIndex order */
	size_t n_ports;
	int port; /* UDP */
	enum sim_scenario_target fault;
	netsnmp_session *sess; /* serving: the agent session */
	int sess_fd;	       /* and its socket */
	int silent_fd;	       /* silent, garbage: the raw socket */
	uint64_t garbage_rng;  /* garbage: the datagrams' generator */
	struct held *held;     /* slow: SLOW_MAX requests held, or NULL */
	int inner_port;	       /* slow: where the agent session listens */
};

struct sim_snmp {
	const struct sim_topo *t;
	struct sim_model *m;
	struct sw *sws; /* switches in node order */
	size_t n_sws;
	int *node_sw; /* node id -> index in sws, -1 for hosts */
	const struct sim_visibility *vis;
	size_t n_nodes;
	bool ipv6;
	uint64_t seed;	  /* of the garbage fault's datagrams */
	uint64_t slow_ns; /* the slow fault's delay */
	size_t n_held;	  /* requests held by slow switches */
	char *address;
	char *state_dir;
	bool own_state_dir;
	int epfd;
	netsnmp_handler_registration *regs[N_SUBTREES];
	/* One model read per port per poll: the model does not move while
	   sim_snmp_poll runs. */
	uint64_t gen;
	size_t cache_port;
	uint64_t cache_gen;
	struct sim_model_switch_port cache;
};

/* Numbers switch w's ports (ifIndex by flavour) into w->ports, sorted. */
void snmp_agent_number_ports(struct sw *w);

/*
 * Registers one raw handler per MIB subtree into s->regs (after the
 * library's init, before init_snmp); -1 with err set if net-snmp
 * refuses one. snmp_agent_unregister() undoes what was registered.
 */
int snmp_agent_register(struct sim_snmp *s, char *err, size_t errlen);
void snmp_agent_unregister(struct sim_snmp *s);

#endif

/*
 * sim_visibility: which parts of a simulated fabric fabmond can see. A
 * real fabric is never fully instrumented: some nodes are not targets
 * at all (a switch nobody polls, a host without an agent), some
 * switches do not export their LLDP neighbours, some hosts have no NIC
 * telemetry. fabsim's options (--unmonitored, --no-lldp, --nic-hosts)
 * and a scenario's visibility: block mark the nodes here; the gNMI and
 * SNMP servers, the NIC trees and the emitted fabmond configuration
 * read the marks:
 *
 *   SIM_VIS_UNMONITORED  no gNMI or SNMP serving for a switch, no NIC
 *                        tree for a host, nothing in the emitted
 *                        configuration (no target, no static link to
 *                        any of its ports: its cabling is unknown).
 *   SIM_VIS_NO_LLDP      a switch that exports no LLDP neighbours
 *                        (gNMI LLDP paths, APPL_DB LLDP_ENTRY_TABLE,
 *                        SNMP LLDP-MIB absent). It still runs LLDP on
 *                        its links: its neighbours name it.
 *   SIM_VIS_NO_NIC       a host without NIC telemetry (no NIC tree).
 *   SIM_VIS_NO_PAUSE_TIME a SONiC switch on a platform whose flex
 *                        counters collect no PFC pause durations
 *                        (SAI_PORT_STAT_PFC_<p>_{RX,TX}_PAUSE_DURATION_US
 *                        are collected on Mellanox and VS platforms for
 *                        the PFC watchdog, not on Broadcom's): frames,
 *                        transitions and the watchdog only.
 *   SIM_VIS_NO_APPL_DB   a SONiC switch whose gNMI server exposes
 *                        COUNTERS_DB only (sonic-gnmi limited to the
 *                        counters database): no APPL_DB PORT_TABLE (so
 *                        no port speed) and no LLDP_ENTRY_TABLE.
 *
 * What a monitored switch's LLDP names: every neighbour switch (they
 * all run LLDP, monitored or not) and every host, except unmonitored
 * hosts unless lldp_unmonitored_hosts is set (an unmanaged host is
 * assumed to run no LLDP agent).
 *
 * Ownership: the topology is borrowed and must outlive the marks. A
 * NULL struct sim_visibility means everything visible.
 */
#ifndef FABMON_SIM_VISIBILITY_H
#define FABMON_SIM_VISIBILITY_H

#include "topo.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SIM_VIS_UNMONITORED   1u
#define SIM_VIS_NO_LLDP	      2u
#define SIM_VIS_NO_NIC	      4u
#define SIM_VIS_NO_PAUSE_TIME 8u
#define SIM_VIS_NO_APPL_DB    16u

struct sim_visibility {
	const struct sim_topo *topo;
	uint8_t *flags; /* per node id */
	size_t n;
	bool lldp_unmonitored_hosts;
};

/* Everything visible. */
struct sim_visibility *sim_visibility_new(const struct sim_topo *t);
void sim_visibility_free(struct sim_visibility *v);

/*
 * Marks the nodes named in list ("a,b,c"; spaces around names allowed)
 * with flag. SIM_VIS_NO_LLDP, SIM_VIS_NO_PAUSE_TIME and
 * SIM_VIS_NO_APPL_DB take switches only, SIM_VIS_NO_NIC hosts
 * only. 0, or -EINVAL with a message naming the node in err.
 */
int sim_visibility_mark(struct sim_visibility *v, const char *list,
			unsigned flag, char *err, size_t errlen);

/*
 * The --nic-hosts form: "all" (NULL too) marks nothing, "none" marks
 * every host SIM_VIS_NO_NIC, a list marks every host not in it.
 */
int sim_visibility_nic_hosts(struct sim_visibility *v, const char *hosts,
			     char *err, size_t errlen);

/* The marks of node id (0 with v NULL or an unknown id). */
unsigned sim_visibility_flags(const struct sim_visibility *v, size_t id);

/* Whether a switch's LLDP names its neighbour node peer (see above). */
bool sim_visibility_lldp_names(const struct sim_visibility *v,
			       const struct sim_node *peer);

/* Whether the configuration may carry a static link between p and its
 * peer: both ends monitored. */
bool sim_visibility_link_known(const struct sim_visibility *v,
			       const struct sim_port *p);

/* The hosts that get a NIC tree (neither unmonitored nor marked no
 * NIC) as a --nic-hosts list ("none" if there are none), malloc'd. */
char *sim_visibility_nic_list(const struct sim_visibility *v);

/* Whether anything is marked. */
bool sim_visibility_any(const struct sim_visibility *v);

#endif

/*
 * sim_snmp: fabsim's embedded SNMP agent. Every simulated switch answers
 * SNMP v2c (and v3 USM when configured) on its own loopback UDP port,
 * through net-snmp's agent library running inside fabsim: the system
 * group, IF-MIB ifTable/ifXTable, the PFC MIBs of its flavour
 * (CISCO-PFC-EXT-MIB on SONiC, ARISTA-PFC-MIB on Arista EOS,
 * IEEE8021-PFC-MIB totals on all) and LLDP-MIB, with values computed
 * on demand from the counter model (doc/fabsim-snmp.md lists them).
 *
 * The agent never touches the real system: it opens only the UDP
 * sockets of the switches on the given loopback address, starts no
 * SMUX or AgentX master, sends no traps, reads no configuration from
 * /etc/snmp or ~/.snmp and keeps net-snmp's files in a private state
 * directory.
 *
 * Ownership and threads. net-snmp's agent keeps process-global state
 * that its shutdown does not fully reset, so there is at most one
 * struct sim_snmp per process lifetime (a second sim_snmp_new fails,
 * also after sim_snmp_free), and
 * every call (and every other net-snmp use in the process) must come
 * from one thread: the thread that owns the model, because requests
 * are answered by reading the model inside sim_snmp_poll(). The agent
 * borrows the topology and the model, which must outlive it.
 */
#ifndef FABMON_SIM_SNMP_AGENT_H
#define FABMON_SIM_SNMP_AGENT_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "scenario.h"
#include "topo.h"
#include "visibility.h"

struct sim_snmp_options {
	const char *address; /* "127.0.0.1" (default) or "::1" */
	/* 0: a kernel-chosen port per switch; else base + i for the i-th
	   switch in node order (spines, then leaves). */
	unsigned base_port;
	const char *community; /* v2c, default "public" */
	const char *v3_user;   /* NULL: v3 off */
	const char *v3_auth;   /* "SHA", "SHA-256", "SHA-512" */
	const char *v3_auth_key;
	const char *v3_priv; /* "AES", "AES-256", NULL: authNoPriv */
	const char *v3_priv_key;
	/* Private directory for net-snmp's files; NULL: a temporary one,
	   created here and removed by sim_snmp_free(). */
	const char *state_dir;
	/* NULL: every switch served with LLDP-MIB. Else unmonitored
	   switches get no agent (port -1; the others keep base + their
	   position), no-LLDP switches serve no LLDP-MIB, and lldpRemTable
	   names only the neighbours it allows (see visibility.h).
	   Borrowed; must outlive the agent. */
	const struct sim_visibility *vis;
	/* Seeds the garbage fault's datagrams (with the switch's id). */
	uint64_t seed;
	/* How long the slow fault holds each request; 0: the default,
	   SIM_SNMP_SLOW_DELAY_NS (fabsim's --slow-delay). */
	uint64_t slow_delay_ns;
};

/* The slow fault's default delay: 3 s, longer than fabmond's SNMP
 * timeout (snmp: timeout, 1 s by default) and net-snmp's tools' (1 s),
 * so a request and its retries time out before their answers come. */
#define SIM_SNMP_SLOW_DELAY_NS 3000000000ull

/* Fills o with the defaults above. */
void sim_snmp_options_init(struct sim_snmp_options *o);

/*
 * Starts the agent for every switch of t, reading counters from m.
 * Returns NULL with a one-line message in err when the options are
 * invalid (non-loopback address, empty community, unknown auth/priv,
 * key shorter than 8 bytes), a port cannot be bound, or an agent was
 * already started in this process. Free with sim_snmp_free().
 */
struct sim_snmp *sim_snmp_new(const struct sim_topo *t, struct sim_model *m,
			      const struct sim_snmp_options *o, char *err,
			      size_t errlen);

/* The UDP port switch node (a node id) answers on, -1 for hosts and
 * unknown ids. The port stays the same across faults. */
int sim_snmp_port(const struct sim_snmp *s, size_t node);

/*
 * Serves requests until timeout_ns has passed (0: only those already
 * waiting) and returns the number of responses sent (>= 0), or -errno
 * if waiting failed. Call from the model's thread, between model steps:
 * answers read the model as it is during the call.
 */
int sim_snmp_poll(struct sim_snmp *s, uint64_t timeout_ns);

/*
 * Sets how switch node shows itself: SIM_SCENARIO_TARGET_IS_SILENT
 * reads and drops every request (collectors time out);
 * SIM_SCENARIO_TARGET_REFUSES closes the socket so that the kernel
 * answers ICMP port unreachable; SIM_SCENARIO_TARGET_GARBAGE answers
 * every request, from the switch's port, with one datagram that is
 * not BER (seeded by the options' seed and the switch: the same run
 * gives the same bytes); SIM_SCENARIO_TARGET_OK serves again on the
 * same port, and so do the faults that concern gNMI only (RESET,
 * DROP_AFTER_SYNC). SIM_SCENARIO_TARGET_WRONG_TYPES serves, but with
 * ifXTable's HC counters as Counter32 (ifHCInOctets, ifHCInMulticastPkts,
 * ifHCOutOctets, ifHCOutMulticastPkts: even columns) or as an OCTET
 * STRING of the decimal value (the odd columns 7 to 13), and
 * ifHighSpeed as an OCTET STRING. SIM_SCENARIO_TARGET_SLOW answers each
 * request from the switch's port after the options' slow delay (the
 * agent reads the model when the delay is over), without holding up
 * the other switches; at most 64 requests wait per switch, more are
 * dropped. Ignored for hosts and unknown ids.
 */
void sim_snmp_set_fault(struct sim_snmp *s, size_t node,
			enum sim_scenario_target fault);

/*
 * Renumbers two interfaces of switch node at run time, as some switches
 * do: the ports at ifIndex a and b trade indexes, and their names and
 * counters follow the physical ports (sysUpTime and ifNumber do not
 * move). 0, or -ENOENT for a host, an unknown node or an index the
 * switch does not have. Call from the model's thread.
 */
int sim_snmp_swap_ifindex(struct sim_snmp *s, size_t node, uint32_t a,
			  uint32_t b);

/*
 * The control endpoint's renumber: swaps the ifIndex of switch node's
 * first and third interfaces in ifIndex order (as
 * sim_snmp_swap_ifindex(), names and counters following the physical
 * ports), and stores the two indexes in *a and *b (a < b). Doing it
 * again swaps them back. 0, -ENOENT for a host or an unknown node, or
 * -ERANGE if the switch has fewer than three interfaces. Call from the
 * model's thread.
 */
int sim_snmp_renumber(struct sim_snmp *s, size_t node, uint32_t *a,
		      uint32_t *b);

/* Stops the agent, closes its sockets, removes a temporary state
 * directory; NULL is a no-op. */
void sim_snmp_free(struct sim_snmp *s);

#endif

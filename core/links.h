/*
 * links: the link table, which port is cabled to which.
 *
 * Two sources fill it. The config's `topology:` section gives static
 * links (switch to switch, switch to host NIC) and optionally the rails
 * a rail-optimised fabric is cabled by; collectors report what LLDP
 * says a port's neighbour is (gNMI lldp state, LLDP-MIB). A static link
 * wins over LLDP for the same port; LLDP entries age out when they are
 * not refreshed. The table answers "who is at the other end of
 * device:port", both ways: a link reported by one end only is still
 * known from the other.
 *
 * LLDP port ids: an interfaceName (5) or local (7) port id is the
 * neighbour's port name. A macAddress (3) port id is resolved through
 * the NIC MACs the table knows (links_set_nic_mac: the NIC collector or
 * fabsim's tree report them); until it is known, the link is kept
 * unresolved (listed, but it gives no peer), and it resolves as soon as
 * the MAC is learnt. Other subtypes (interfaceAlias, local...) are
 * taken as the port name as they are (the description is not used:
 * devices fill it with anything).
 *
 * Every change of the effective links bumps a generation number, so
 * the rule engine rebuilds its graph only when something changed; an
 * LLDP refresh that says the same thing changes nothing.
 *
 * Threading: every function may be called from any thread; one mutex
 * guards the table, held for a hash lookup or a rebuild of the
 * effective map, never across a callback. Ownership: strings passed in
 * are copied; snapshots are the caller's (links_snapshot_free).
 */
#ifndef FABMON_LINKS_H
#define FABMON_LINKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct links;
struct cfg_topology;

/* LLDP-MIB LldpPortIdSubtype values used here. */
#define LINKS_LLDP_PORT_ALIAS  1
#define LINKS_LLDP_PORT_MAC    3
#define LINKS_LLDP_PORT_IFNAME 5
#define LINKS_LLDP_PORT_LOCAL  7

/* LLDP entries not refreshed for this long are dropped (the default
 * LLDP TTL is 120 s: 4 x the 30 s transmit interval). */
#define LINKS_DEFAULT_LLDP_TTL_NS (120 * INT64_C(1000000000))

enum links_source { LINKS_SRC_STATIC, LINKS_SRC_LLDP };

/* One link as a snapshot shows it. Strings are owned by the snapshot. */
struct links_entry {
	char *a_device, *a_port; /* the reporting end for LLDP */
	char *b_device, *b_port; /* b_port: the raw port id if unresolved */
	enum links_source source;
	bool resolved;	 /* b_port is a port name (always for static) */
	bool overridden; /* LLDP disagrees with a static link of an end */
	char *reporter;	 /* LLDP: the collector that reported it */
	int64_t age_ns;	 /* LLDP: since the last report; static: 0 */
};

/* One declared rail: the leaves of rail index and the NIC port names
 * that belong to it. Owned by the snapshot. */
struct links_rail {
	char **leaves;
	size_t n_leaves;
	char **nics;
	size_t n_nics;
};

struct links_snapshot {
	struct links_entry *links;
	size_t n_links;
	struct links_rail *rails;
	size_t n_rails;
	uint64_t generation;
};

/* A new empty table; mono_ns is its clock for ages (NULL:
 * CLOCK_MONOTONIC), ctx its argument. Never NULL. */
struct links *links_new(int64_t (*mono_ns)(void *ctx), void *ctx);
void links_free(struct links *l);

/*
 * Replaces the static links and rails with those of t (NULL: none).
 * LLDP entries are kept. Bumps the generation if anything changed.
 */
void links_set_static(struct links *l, const struct cfg_topology *t);

/*
 * An LLDP neighbour seen on local_device:local_port: the neighbour's
 * system name, port id (with its LldpPortIdSubtype) and port
 * description (may be NULL), as reported by source (a collector name)
 * at now_ns on the table's clock (0: now). Replaces the earlier report
 * for that local port. 0, or -EINVAL for a missing name or id.
 */
int links_report_lldp(struct links *l, const char *local_device,
		      const char *local_port, const char *remote_sysname,
		      const char *remote_port_id, int port_id_subtype,
		      const char *remote_port_desc, const char *source,
		      int64_t now_ns);

/* The neighbour of local_device:local_port is gone (LLDP withdrew it). */
void links_forget_lldp(struct links *l, const char *local_device,
		       const char *local_port);

/*
 * device:port (a host NIC) has MAC mac ("02:1a:2b:3c:4d:5e", any case,
 * '-' or ':' separators). LLDP port ids of subtype macAddress resolve
 * through these. 0, or -EINVAL for a malformed MAC.
 */
int links_set_nic_mac(struct links *l, const char *device, const char *port,
		      const char *mac);

/* Drops LLDP entries older than ttl_ns at now_ns (0: now). Returns how
 * many were dropped. */
size_t links_expire(struct links *l, int64_t now_ns, int64_t ttl_ns);

/*
 * The peer of device:port: copies its device and port names into the
 * buffers (truncated to their sizes) and returns true, or returns false
 * if the port has no known peer.
 */
bool links_peer(struct links *l, const char *device, const char *port,
		char *peer_device, size_t dlen, char *peer_port, size_t plen);

/* Changes with every change of the effective links or rails. */
uint64_t links_generation(struct links *l);

/*
 * The effective links (each once: static ones, then resolved and
 * unresolved LLDP ones not covered by a static link) and the rails.
 * Free with links_snapshot_free().
 */
void links_snapshot(struct links *l, struct links_snapshot *out);
void links_snapshot_free(struct links_snapshot *s);

#endif

/*
 * sim_topo: the fabric fabsim simulates. Spines, leaves and hosts with
 * NICs; every port with its cable (peer port), speed, name in its
 * node's flavour (SONiC Ethernet0, Arista Ethernet1/1, OpenConfig eth1,
 * host NIC mlx5_0 / ens0np0) and the LLDP identity it announces. A
 * topology is loaded from a YAML file (doc/fabsim-topology.md) or
 * generated from counts, and can be written back as YAML that loads
 * into the same fabric.
 *
 * Order. Nodes come spines first, then leaves, then hosts, each tier in
 * file order; a node's ports in front-panel order; the fabric's ports
 * node by node. sim_node.id and sim_port.id are positions in that
 * order (0-based, dense), so later modules may keep per-node and
 * per-port state in plain arrays indexed by them.
 *
 * Ownership and threads. A struct sim_topo owns every node, port and
 * string it hands out: they are read-only, borrowed, and live until
 * sim_topo_free(). A topology never changes after construction, so any
 * number of threads may read one at once without locks; loads and
 * generations share nothing (no globals).
 */
#ifndef FABMON_SIM_TOPO_H
#define FABMON_SIM_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Bounds: libyaml has none of its own, and fabsim must not be made to
 * allocate without limit by a file. */
#define SIM_TOPO_MAX_FILE_BYTES (4 * 1024 * 1024)
#define SIM_TOPO_MAX_DEPTH	8
#define SIM_TOPO_MAX_NODES	65536 /* in the whole fabric */
#define SIM_TOPO_MAX_PORTS	1024  /* on one switch */
#define SIM_TOPO_MAX_NICS	16    /* per host */
#define SIM_TOPO_MAX_FLAVOURS	8     /* in a round-robin flavour mix */
#define SIM_TOPO_NAME_MAX	64    /* bytes of a node name */

enum sim_node_kind { SIM_NODE_SPINE, SIM_NODE_LEAF, SIM_NODE_HOST };
#define SIM_NODE_KINDS 3

/*
 * How a node names its ports and (later) which paths and MIBs it
 * serves. Switches are SONiC, Arista EOS or OpenConfig; hosts are
 * always SIM_FLAVOUR_MLX5 (ConnectX NICs seen through sysfs).
 */
enum sim_flavour {
	SIM_FLAVOUR_SONIC,	/* Ethernet0, Ethernet4... (first lane) */
	SIM_FLAVOUR_ARISTA,	/* Ethernet1/1, Ethernet2/1... */
	SIM_FLAVOUR_OPENCONFIG, /* eth1, eth2... */
	SIM_FLAVOUR_MLX5,	/* mlx5_0 port 1 = ens0np0, ... */
};

/* LLDP-MIB subtypes of the identities announced (IEEE 802.1AB). */
#define SIM_LLDP_CHASSIS_MAC 4 /* LldpChassisIdSubtype macAddress */
enum sim_lldp_port_subtype {
	SIM_LLDP_PORT_MAC = 3,	  /* LldpPortIdSubtype macAddress */
	SIM_LLDP_PORT_IFNAME = 5, /* LldpPortIdSubtype interfaceName */
};

struct sim_port;

struct sim_node {
	const char *name; /* unique in the fabric; the LLDP system name */
	enum sim_node_kind kind;
	enum sim_flavour flavour;
	size_t id;	   /* position among all nodes */
	size_t tier_index; /* position among the nodes of its kind */
	int pod;	   /* rail wiring: leaves' and hosts' pod, else -1 */
	int rail;	   /* rail wiring: a leaf's rail, else -1 */
	unsigned speed;	   /* Gb/s of its ports unless a link says */
	const struct sim_port *ports; /* n_ports, in front-panel order */
	size_t n_ports;
	/* LLDP chassis: a locally administered MAC derived from the name
	   (subtype SIM_LLDP_CHASSIS_MAC), and the system description. */
	uint8_t chassis_mac[6];
	const char *chassis_id; /* chassis_mac as "02:1a:2b:3c:4d:5e" */
	const char *sys_desc;
};

struct sim_port {
	const struct sim_node *node;
	const struct sim_port *peer; /* the far end of its cable, or NULL */
	size_t id;		     /* position among all ports */
	unsigned index;		     /* position on its node, 0-based */
	unsigned speed;		     /* Gb/s: 100, 200, 400 or 800 */
	const char *name;	     /* in its node's flavour */
	bool explicit_link; /* cabled by the file's links:, not generated */
	/* LLDP: the port's MAC (NICs: their own, derived from host and
	   device name; switch ports: the chassis MAC), port id and
	   description. Switches send the port name (interfaceName), NICs
	   their MAC; the description of a switch port names its peer as
	   "node:port" ("" when uncabled), a NIC's is its netdev. */
	uint8_t mac[6];
	enum sim_lldp_port_subtype port_id_subtype;
	const char *port_id;
	const char *port_desc;
	/* Host NICs only (NULL, 0 and -1 on switch ports). */
	const char *rdma_dev; /* "mlx5_<k>" (the same as name) */
	unsigned rdma_port;   /* 1 */
	const char *netdev;   /* "ens<k>np0" */
	int rail;	      /* k: NIC k of every host is on rail k */
};

struct sim_topo;

/*
 * Loads and validates a topology file. On success returns the topology
 * (free with sim_topo_free); on failure returns NULL and writes one line
 * "file:line:col: key.path: message" (or "file: message" when there is
 * no position) into err, as fabmon.yaml errors read.
 */
struct sim_topo *sim_topo_load(const char *path, char *err, size_t errlen);
/* The same from a buffer; name is used in messages. */
struct sim_topo *sim_topo_load_buffer(const char *name, const char *buf,
				      size_t len, char *err, size_t errlen);

/*
 * A generated fabric: the same as a file with counted spines, leaves and
 * hosts named spine<i>, leaf<i>, host<i> (0-based) and rail wiring.
 */
struct sim_topo_gen {
	unsigned spines, leaves, hosts; /* each at least 1 */
	unsigned nics;			/* per host, 1..16, at most leaves, and
					   leaves a multiple of it */
	unsigned speed;			/* Gb/s of switch ports; 0: 400 */
	unsigned host_speed;		/* Gb/s of NIC ports; 0: speed */
	/* Switch flavours, handed out round-robin within each tier (spine
	   i gets flavours[i % n_flavours]); n_flavours 0: all SONiC. Host
	   flavours are not allowed. */
	const enum sim_flavour *flavours;
	size_t n_flavours;
	uint8_t lossless_mask; /* bit p: priority p is lossless; 0: {3} */
};

/*
 * Builds g's fabric. Returns NULL with a one-line message in err (no
 * file or position: "nics (9) must not exceed leaves (8) ...") when g
 * is out of range.
 */
struct sim_topo *sim_topo_generate(const struct sim_topo_gen *g, char *err,
				   size_t errlen);

/*
 * Writes t as a topology file: counted tiers stay counted, listed nodes
 * are listed, explicit links are written in their order with port names
 * in canonical form. Loading the output gives a fabric equal to t node
 * for node and port for port, and writing that again gives the same
 * bytes. Returns 0, or -EIO if f reports an error.
 */
int sim_topo_write_yaml(const struct sim_topo *t, FILE *f);

/* Frees t and everything it handed out; sim_topo_free(NULL) is a no-op. */
void sim_topo_free(struct sim_topo *t);

/* The file t was loaded from, or "generated". */
const char *sim_topo_source(const struct sim_topo *t);
/* Bit p set: priority p is lossless (PFC-enabled) everywhere. */
uint8_t sim_topo_lossless_mask(const struct sim_topo *t);
/* NICs per host (= rails). */
unsigned sim_topo_nics(const struct sim_topo *t);
/* Pods of the rail wiring (leaves / nics), 0 if the file turned the
 * generated wiring off. */
unsigned sim_topo_pods(const struct sim_topo *t);

/* Iteration in the stable order above; NULL past the end. */
size_t sim_topo_n_nodes(const struct sim_topo *t);
const struct sim_node *sim_topo_node(const struct sim_topo *t, size_t id);
size_t sim_topo_n_ports(const struct sim_topo *t);
const struct sim_port *sim_topo_port(const struct sim_topo *t, size_t id);
/* The nodes of one tier: sim_topo_tier_node(t, SIM_NODE_HOST, i) is the
 * i-th host. */
size_t sim_topo_n_tier(const struct sim_topo *t, enum sim_node_kind kind);
const struct sim_node *sim_topo_tier_node(const struct sim_topo *t,
					  enum sim_node_kind kind, size_t i);

/* Lookups (constant time); NULL if there is no such node or port. */
const struct sim_node *sim_topo_find_node(const struct sim_topo *t,
					  const char *name);
/* A port of n by its name in n's flavour; host NICs also answer to their
 * netdev name ("ens1np0" is "mlx5_1"). */
const struct sim_port *sim_topo_node_port(const struct sim_node *n,
					  const char *name);
/* A port by node and port name. */
const struct sim_port *sim_topo_find_port(const struct sim_topo *t,
					  const char *node, const char *port);
/* A port written "node:port", as links: and port descriptions write it. */
const struct sim_port *sim_topo_find_endpoint(const struct sim_topo *t,
					      const char *endpoint);

/* Names as the file writes them ("spine", "sonic"...), "?" if invalid. */
const char *sim_topo_kind_name(enum sim_node_kind kind);
const char *sim_topo_flavour_name(enum sim_flavour flavour);
/* A switch flavour by name (sonic, arista, openconfig): 0 or -EINVAL. */
int sim_topo_parse_flavour(const char *s, enum sim_flavour *flavour);
/* A link speed "100G", "200G", "400G" or "800G" to Gb/s: 0 or -EINVAL. */
int sim_topo_parse_speed(const char *s, unsigned *gbps);

#endif

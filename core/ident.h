/*
 * nic_ident: the identity of every NIC port the NIC collector follows
 * (issue #6: "port = RDMA device/port and netdev"), for the exporters:
 * fabmon_nic_port_info in /metrics and the netdev, rdma_device and
 * rdma_port fields of NIC rows in /api/v1/ports. The counter store is
 * numeric only, so the names that let users join by netdev live here.
 *
 * One table per process, as there is one NIC collector: each host
 * (nic_host) publishes the ports of its last scan under its own owner
 * token, replacing what it published before (ports that went are
 * withdrawn with it), and withdraws everything when it is freed (the
 * host left the config at a reload, or fabmond stops). The owner token
 * keeps two hosts of the same name (tests) from withdrawing each
 * other's entries.
 *
 * Threads: every function may be called from any thread; one mutex
 * guards the table, and readers get a copy they own, so formatting
 * holds no lock.
 */
#ifndef FABMON_NIC_IDENT_H
#define FABMON_NIC_IDENT_H

#include <stdbool.h>
#include <stddef.h>

struct nic_ident {
	const char *device;	 /* the host's label ("host0") */
	const char *port;	 /* the series' port label ("mlx5_0") */
	const char *rdma_device; /* "mlx5_0" */
	unsigned rdma_port;	 /* from 1 */
	const char *netdev;	 /* "ens1f0np0"; "" if none */
	const char *link_layer;	 /* "Ethernet" (RoCE) or "InfiniBand" */
};

/*
 * Replaces every entry owner published with the n entries of ports (n
 * may be 0; the strings are copied). owner is any pointer unique to the
 * publisher (a nic_host).
 */
void nic_ident_publish(const void *owner, const struct nic_ident *ports,
		       size_t n);
/* Withdraws every entry owner published; a no-op if there is none. */
void nic_ident_withdraw(const void *owner);

/*
 * A copy of the table sorted by device then port (byte order), for a
 * reader: *out is NULL when the table is empty. Returns the count. Free
 * with nic_ident_list_free(). Never fails (abort on out of memory).
 */
size_t nic_ident_list(struct nic_ident **out);
void nic_ident_list_free(struct nic_ident *list, size_t n);
/* The entry of (device, port) in a sorted list, or NULL. */
const struct nic_ident *nic_ident_find(const struct nic_ident *list, size_t n,
				       const char *device, const char *port);

#endif

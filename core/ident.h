/*
 * ident: a table of port identities, for the exporters: what each NIC
 * port label stands for (issue #6: "port = RDMA device/port and
 * netdev"), shown as fabmon_nic_port_info in /metrics and as the
 * netdev, rdma_device and rdma_port fields of NIC rows in
 * /api/v1/ports. The counter store is numeric only, so the names that
 * let users join by netdev live here.
 *
 * fabmond owns one table (ident_table_new/free), hands it to the NIC
 * collector (struct collector_env), which fills it (nic_counters/), and
 * to the HTTP server, whose /metrics and API renderers read it. Each
 * publisher (a NIC host) publishes the ports of its last scan under its
 * own owner token, replacing what it published before (ports that went
 * are withdrawn with it), and withdraws everything when it is freed
 * (the host left the config at a reload, or fabmond stops). The owner
 * token keeps two hosts of the same name (tests) from withdrawing each
 * other's entries. Tables are independent: two of them share nothing.
 *
 * Threads: every function may be called from any thread at once, except
 * ident_table_free(), which must come after every publisher and reader
 * is done. One mutex per table guards its entries; it is held only
 * while entries are copied in or out, and readers get a copy they own,
 * so formatting holds no lock.
 */
#ifndef FABMON_IDENT_H
#define FABMON_IDENT_H

#include <stdbool.h>
#include <stddef.h>

struct ident_port {
	const char *device;	 /* the host's label ("host0") */
	const char *port;	 /* the series' port label ("mlx5_0") */
	const char *rdma_device; /* "mlx5_0" */
	unsigned rdma_port;	 /* from 1 */
	const char *netdev;	 /* "ens1f0np0"; "" if none */
	const char *link_layer;	 /* "Ethernet" (RoCE) or "InfiniBand" */
};

struct ident_table;

/* An empty table. Never NULL. */
struct ident_table *ident_table_new(void);
/* Frees the table and its entries; NULL is a no-op. */
void ident_table_free(struct ident_table *t);

/*
 * Replaces every entry owner published in t with the n entries of ports
 * (n may be 0; the strings are copied). owner is any pointer unique to
 * the publisher (a nic_host).
 */
void ident_publish(struct ident_table *t, const void *owner,
		   const struct ident_port *ports, size_t n);
/* Withdraws every entry owner published; a no-op if there is none. */
void ident_withdraw(struct ident_table *t, const void *owner);

/*
 * A copy of t sorted by device then port (byte order), for a reader:
 * *out is NULL when the table is empty or t is NULL. Returns the count.
 * Free with ident_list_free(). Never fails (abort on out of memory).
 */
size_t ident_list(struct ident_table *t, struct ident_port **out);
void ident_list_free(struct ident_port *list, size_t n);
/* The entry of (device, port) in a sorted list, or NULL. */
const struct ident_port *ident_find(const struct ident_port *list, size_t n,
				    const char *device, const char *port);

#endif

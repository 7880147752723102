/*
 * nic_host: one host's NIC counters, read in cycles and written to the
 * store. A host is a sysfs root (its RDMA devices and ports) and an
 * ethtool source (the ioctl, or a directory of plain files named after
 * the netdevs).
 *
 * A scan lists the ports (nic_sysfs), opens every mapped counter file of
 * each port once (ports/<n>/counters, ports/<n>/hw_counters, and the
 * device-level hw_counters of a one-port device) and keeps the
 * descriptors; a cycle then costs one pread per counter, one per port
 * state, and one ethtool read per netdev. Scans repeat every rescan
 * interval, and sooner (at most once a second) after a read failed, so
 * devices, ports and files that come or go are followed; the ethtool
 * readers (and their name mappings) survive scans for ports that stay.
 *
 * Series: device = the host's label, port = the RDMA device ("mlx5_0")
 * for a one-port device (every RoCE function, and fabsim's NICs, whose
 * topology names them so), "<rdma_dev>/<port>" ("mlx5_0/2") on a
 * multi-port one; the netdev shows in logs and, with the RDMA device
 * and port, in the process's identity table (nic_ident.h: the
 * exporters' fabmon_nic_port_info and /api/v1/ports fields), and its MAC
 * (class/net/<netdev>/address) goes to the link table so that LLDP
 * neighbours naming the NIC by MAC resolve to device:port. Owner =
 * "nic/<device>" (so that removing a gNMI/SNMP target of the same name
 * never withdraws NIC series). Values keep their native width (32-bit
 * q-counters wrap without a spike in the store) and are scaled to the
 * canonical unit by the store (4-byte words, microseconds); rates are
 * capped by the link speed where one is known.
 *
 * Threads: a host is used by one thread at a time (the collector's
 * worker, or a test's or benchmark's); it writes the store and its
 * health entry, which are thread-safe, through a gate that
 * nic_host_detach() closes from any thread.
 *
 * Files: every file is opened O_NONBLOCK and must be a regular file
 * (lib/rfile.h), so a FIFO planted in a tree never blocks. A counter or
 * state file that is there but cannot be opened (EACCES, a FIFO, a
 * device) is counted in errors at every scan, the first of the last
 * scan is the health entry's last_error (the host stays up while other
 * counters read), and each path is logged once.
 */
#ifndef FABMON_NIC_HOST_H
#define FABMON_NIC_HOST_H

#include "health.h"
#include "ident.h"
#include "links.h"
#include "store.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nic_host_opts {
	struct store *store;
	struct health_target *health; /* NULL: not reported */
	struct links *links;	      /* NULL: NIC MACs not reported */
	struct ident_table *ident;    /* NULL: identities not published */
	const char *device;	      /* the device label */
	const char *sysfs_root;	      /* "/sys" or a tree laid out like it */
	const char *ethtool_dir;      /* NULL: the SIOCETHTOOL ioctl */
	bool no_ethtool;	      /* read no ethtool statistics at all */
	uint32_t interval_ms;	      /* expected cycle interval */
	int64_t rescan_ns;	      /* 0: 10 cycles, within 1 s..10 s */
};

struct nic_host;

/* A host; the options' strings are copied. Nothing is read until the
 * first nic_host_poll(). Never NULL. */
struct nic_host *nic_host_new(const struct nic_host_opts *o);
/* Frees h and closes its files; its series stay in the store, its
 * identity entries are withdrawn. */
void nic_host_free(struct nic_host *h);

/*
 * One read cycle (with a scan first when one is due). Returns the
 * number of values written to the store (0 when the host has no RDMA
 * port), or -errno when nothing could be read.
 */
int nic_host_poll(struct nic_host *h);
/* Ports found by the last scan. */
size_t nic_host_n_ports(const struct nic_host *h);
/* The port label ("mlx5_0", or "mlx5_0/2" on a multi-port device),
 * netdev ("" if none) and MAC ("" if unknown) of port i. */
const char *nic_host_port_label(const struct nic_host *h, size_t i);
const char *nic_host_port_netdev(const struct nic_host *h, size_t i);
const char *nic_host_port_mac(const struct nic_host *h, size_t i);
/* Counter files kept open (for the benchmark's figures). */
size_t nic_host_n_files(const struct nic_host *h);
/* Makes the next poll scan again. */
void nic_host_rescan(struct nic_host *h);
/*
 * Cuts h off from the world: its identities are withdrawn and, once
 * this returns, h writes nothing more to the store, its health entry or
 * the link and identity tables, even from a poll still running on
 * another thread (one stuck in a read that the collector gave up on).
 * Any thread; h must still be freed, by the one that polls it.
 */
void nic_host_detach(struct nic_host *h);

#endif

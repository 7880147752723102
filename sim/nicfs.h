/*
 * sim_nicfs: fabsim's NIC tree writer. For each simulated host it keeps
 * a directory laid out like the kernel's sysfs and an `ethtool -S` file
 * per netdev, and rewrites them from the counter model every tick, so
 * that fabmond's NIC collector (nic_counters/) reads a simulated host
 * exactly as it reads a real one:
 *
 *   DIR/<host>/sys/class/infiniband/<rdma_dev>/ports/1/counters/<name>
 *   DIR/<host>/sys/class/infiniband/<rdma_dev>/ports/1/hw_counters/<name>
 *   DIR/<host>/sys/class/infiniband/<rdma_dev>/ports/1/{state,phys_state,
 *       rate,link_layer,gid_attrs/ndevs/<i>,gid_attrs/types/<i>}
 *   DIR/<host>/sys/class/infiniband/<rdma_dev>/{hw_counters/lifespan,
 *       device/net/<netdev>/,node_guid,fw_ver,hca_type,board_id}
 *   DIR/<host>/sys/class/net/<netdev>/{operstate,carrier,speed,mtu,
 *       address}
 *   DIR/<host>/ethtool/<netdev>
 *
 * The agreed forms (doc/nic-counters.md): a counter file holds its value
 * right-aligned in 20 characters and a newline, rewritten in place with
 * one pwrite at offset 0 (never truncated or replaced), so a reader that
 * keeps it open and preads always sees a whole value; state files are
 * padded the same way. Values and units are the kernel's: port_*_data in
 * 4-byte words, q-counters 32-bit and wrapping, pause durations in µs.
 * The ethtool file is the exact text of `ethtool -S`, replaced
 * atomically (write <netdev>.tmp, rename) each tick; PFC lines appear
 * for the lossless priorities, and for any other priority once it has
 * seen pause (as mlx5 adds them when PFC is enabled on it).
 *
 * Ownership and threads: the writer borrows the topology (which must
 * outlive it) and keeps its counter files open (about 20 per NIC; the
 * soft RLIMIT_NOFILE is raised towards the hard one when that needs
 * more). One thread at a time, the model's: sim_nicfs_write() reads the
 * model. Put DIR on a tmpfs for large fabrics: replacing the ethtool
 * files costs ~14 µs per NIC there and several times that on ext4.
 */
#ifndef FABMON_SIM_NICFS_H
#define FABMON_SIM_NICFS_H

#include <stddef.h>

#include "model.h"
#include "topo.h"

struct sim_nicfs;

/*
 * Creates (or takes over) the trees of the chosen hosts under dir and
 * writes every file once with zero counters and links up. hosts: NULL
 * or "all" for every host, "none" for none, or a comma-separated list
 * of host names ("h1,h2"). Returns NULL with a one-line message in err
 * (an unknown or non-host name, a directory that cannot be made).
 */
struct sim_nicfs *sim_nicfs_new(const struct sim_topo *t, const char *dir,
				const char *hosts, char *err, size_t errlen);
/* One tick: rewrites every counter, state and ethtool file from m.
 * 0, or the first -errno (the other files are still written). */
int sim_nicfs_write(struct sim_nicfs *w, const struct sim_model *m);
/* The hosts written, in topology order. */
size_t sim_nicfs_n_hosts(const struct sim_nicfs *w);
const struct sim_node *sim_nicfs_host(const struct sim_nicfs *w, size_t i);
/* Closes the files and frees w (the files stay); NULL is a no-op. */
void sim_nicfs_free(struct sim_nicfs *w);

#endif

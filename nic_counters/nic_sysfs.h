/*
 * nic_sysfs: the RDMA side of a host as the kernel lays it out under a
 * sysfs root (ROOT/class/infiniband/<dev>/ports/<n>/...): listing the
 * devices and ports, mapping each port to its netdev, and reading one
 * value from an open attribute file.
 *
 * Values are decimal text: the kernel writes "123\n", fabsim writes the
 * same right-aligned in 20 characters so that it can rewrite the file in
 * place; "N/A (no PMA)" and similar mean "not available". Port state is
 * "4: ACTIVE", rate "400 Gb/sec (4X NDR)".
 *
 * Enumeration uses libibverbs (rdma-core) when the root is the live
 * "/sys" and verbs lists devices; otherwise, or when verbs has no
 * provider for a device, the directory tree alone. Functions here keep
 * no state: any thread, and the caller owns what they return.
 */
#ifndef FABMON_NIC_SYSFS_H
#define FABMON_NIC_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NIC_SYSFS_NAME_MAX 64

struct nic_sysfs_port {
	char dev[NIC_SYSFS_NAME_MAX];	 /* "mlx5_0" */
	unsigned num;			 /* port number, from 1 */
	char netdev[NIC_SYSFS_NAME_MAX]; /* "ens1np0"; "" if none */
	bool ethernet;			 /* link_layer Ethernet (RoCE) */
	bool from_verbs;		 /* listed by libibverbs */
	unsigned dev_ports;		 /* ports of its device */
};

/*
 * Lists every (device, port) under root, sorted by device then port.
 * *out is NULL when there is none. Returns the count, or -errno when
 * root/class/infiniband cannot be read (-ENOENT: no RDMA subsystem).
 * use_verbs asks libibverbs first (only meaningful for the live /sys).
 */
int nic_sysfs_list_ports(const char *root, bool use_verbs,
			 struct nic_sysfs_port **out);

/*
 * Parses an attribute's text: leading blanks, decimal digits, an
 * optional newline and trailing blanks. 0 and *v; -ENODATA for "N/A..."
 * (the driver has no value); -EINVAL for anything else, -ERANGE past
 * 64 bits.
 */
int nic_sysfs_parse_value(const char *buf, size_t len, uint64_t *v);
/* Reads an open attribute file from offset 0 and parses it: the same
 * returns, or -errno from pread. */
int nic_sysfs_read_value(int fd, uint64_t *v);
/* "4: ACTIVE" -> 4, "5: LinkUp" -> 5: the leading number; -EINVAL. */
int nic_sysfs_parse_state(const char *buf, size_t len, unsigned *state);
/* "400 Gb/sec (4X NDR)" -> 400 (Gb/s; fractions kept: "2.5 Gb/sec");
 * -EINVAL. */
int nic_sysfs_parse_rate(const char *buf, size_t len, double *gbps);

#endif

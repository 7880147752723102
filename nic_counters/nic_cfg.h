/*
 * nic_cfg: the nic: section of fabmon.yaml (struct cfg_nic), parsed by
 * the hooks of nic_cfg_section in the same load as the rest of the file
 * (core/cfg.h). The struct belongs to the struct cfg it came from; read
 * it with nic_cfg_of().
 */
#ifndef FABMON_NIC_CFG_H
#define FABMON_NIC_CFG_H

#include "cfg.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One host of the nic section's list form (simulation, tests): a
 * device label with its own sysfs tree and ethtool files. */
struct cfg_nic_host {
	char *device;	   /* device label; unique in the list */
	char *sysfs_root;  /* required */
	char *ethtool_dir; /* NULL: the SIOCETHTOOL ioctl */
};

/*
 * The NIC collector. Either the single-host form (device, sysfs_root,
 * ethtool_dir: this machine) or the list form (hosts: each a device
 * with its own trees, as fabsim writes them); a hosts list turns the
 * collector on unless enabled is false, and the single-host keys are
 * errors next to it.
 */
struct cfg_nic {
	bool enabled;
	char *device;	      /* device label (default: the host name) */
	char *sysfs_root;     /* default "/sys" */
	char *ethtool_dir;    /* plain-file ethtool stats (tests, fabsim); NULL:
				 ioctl */
	uint64_t interval_ns; /* 0: the global interval */
	struct cfg_nic_host *hosts; /* list form; NULL with n_hosts 0 */
	size_t n_hosts;
};

/* The nic: hooks (a top-level section only). */
extern const struct cfg_section_ops nic_cfg_section;

/* c's nic: section (every default if absent). Borrowed from c. */
struct cfg_nic *nic_cfg_of(const struct cfg *c);

#endif

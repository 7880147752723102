/*
 * nic_cfg: the nic: section of fabmon.yaml (see nic_cfg.h). The parser
 * moved here from core/cfg.c unchanged; it runs inside cfg_load()
 * through nic_cfg_section's hooks, on the loading thread.
 */
#include "config.h"

#include "nic_cfg.h"

#include "mem.h"
#include "ytree.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
	NIC_K_ENABLED,
	NIC_K_DEVICE,
	NIC_K_SYSFS,
	NIC_K_ETHTOOL,
	NIC_K_INTERVAL,
	NIC_K_HOSTS,
	NIC_K_N
};
static const char *const nic_keys[NIC_K_N] = {
	[NIC_K_ENABLED] = "enabled",   [NIC_K_DEVICE] = "device",
	[NIC_K_SYSFS] = "sysfs_root",  [NIC_K_ETHTOOL] = "ethtool_dir",
	[NIC_K_INTERVAL] = "interval", [NIC_K_HOSTS] = "hosts",
};

enum { NICH_K_DEVICE, NICH_K_SYSFS, NICH_K_ETHTOOL, NICH_K_N };
static const char *const nic_host_keys[NICH_K_N] = {
	[NICH_K_DEVICE] = "device",
	[NICH_K_SYSFS] = "sysfs_root",
	[NICH_K_ETHTOOL] = "ethtool_dir",
};

static int parse_nic_host(struct ytree_ctx *x, struct cfg_nic_host *h,
			  const struct ytree_node *n,
			  const struct ytree_node **name)
{
	struct ytree_fields f;
	int rc = ytree_fields_get(x, n, nic_host_keys, NICH_K_N, &f);
	if (rc || (rc = ytree_need(x, &f, NICH_K_DEVICE)) ||
	    (rc = ytree_need(x, &f, NICH_K_SYSFS)) ||
	    (rc = ytree_opt_str(x, &f, NICH_K_DEVICE, &h->device)))
		return rc;
	size_t saved = ytree_path_key(x, "device");
	if ((rc = cfg_want_name(x, f.val[NICH_K_DEVICE])))
		return rc;
	ytree_path_cut(x, saved);
	*name = f.val[NICH_K_DEVICE];
	if ((rc = ytree_opt_str(x, &f, NICH_K_SYSFS, &h->sysfs_root)) ||
	    (rc = ytree_opt_str(x, &f, NICH_K_ETHTOOL, &h->ethtool_dir)))
		return rc;
	if (h->sysfs_root[0] == '\0')
		return ytree_fail_key(x, &f, NICH_K_SYSFS, "must not be empty");
	if (h->ethtool_dir && h->ethtool_dir[0] == '\0')
		return ytree_fail_key(x, &f, NICH_K_ETHTOOL,
				      "must not be empty");
	return 0;
}

/* nic.hosts: a list of hosts with unique device labels. */
static int parse_nic_hosts(struct ytree_ctx *x, struct cfg_nic *nic,
			   const struct ytree_node *n)
{
	size_t count;
	int rc = ytree_want_seq(x, n, &count);
	if (rc)
		return rc;
	if (count == 0)
		return ytree_fail(x, n, "needs at least one host");
	const struct ytree_node **names = xcalloc(count, sizeof *names);
	nic->hosts = xcalloc(count, sizeof *nic->hosts);
	for (size_t i = 0; i < count && rc == 0; i++) {
		size_t saved = ytree_path_index(x, i);
		nic->n_hosts++;
		rc = parse_nic_host(x, &nic->hosts[i], n->kids[i], &names[i]);
		for (size_t j = 0; j < i && rc == 0; j++) {
			if (strcmp(names[j]->str, names[i]->str) != 0)
				continue;
			ytree_path_key(x, "device");
			rc = ytree_fail(x, names[i],
					"duplicate nic host \"%s\" (first at "
					"%u:%u)",
					names[i]->str, names[j]->line,
					names[j]->col);
		}
		if (rc == 0)
			ytree_path_cut(x, saved);
	}
	free(names);
	return rc;
}

static int parse_nic(struct ytree_ctx *x, struct cfg_nic *nic,
		     const struct ytree_node *n)
{
	struct ytree_fields f;
	int rc = ytree_fields_get(x, n, nic_keys, NIC_K_N, &f);
	if (rc)
		return rc;
	if ((rc = ytree_opt_bool(x, &f, NIC_K_ENABLED, &nic->enabled)) ||
	    (rc = ytree_opt_str(x, &f, NIC_K_DEVICE, &nic->device)))
		return rc;
	if (f.val[NIC_K_DEVICE]) {
		size_t saved = ytree_path_key(x, "device");
		if ((rc = cfg_want_name(x, f.val[NIC_K_DEVICE])))
			return rc;
		ytree_path_cut(x, saved);
	}
	if ((rc = ytree_opt_str(x, &f, NIC_K_SYSFS, &nic->sysfs_root)) ||
	    (rc = ytree_opt_str(x, &f, NIC_K_ETHTOOL, &nic->ethtool_dir)) ||
	    (rc = ytree_opt_duration(x, &f, NIC_K_INTERVAL, CFG_INTERVAL_MIN,
				     CFG_INTERVAL_MAX, false,
				     &nic->interval_ns)))
		return rc;
	if (nic->sysfs_root[0] == '\0')
		return ytree_fail_key(x, &f, NIC_K_SYSFS, "must not be empty");
	if (nic->ethtool_dir && nic->ethtool_dir[0] == '\0')
		return ytree_fail_key(x, &f, NIC_K_ETHTOOL,
				      "must not be empty");
	if (!f.val[NIC_K_HOSTS])
		return 0;
	/* The list form names every tree itself: a single-host key next
	 * to it would be silently ignored, so it is refused. */
	static const size_t single[] = { NIC_K_DEVICE, NIC_K_SYSFS,
					 NIC_K_ETHTOOL };
	for (size_t i = 0; i < sizeof single / sizeof single[0]; i++)
		if (f.val[single[i]])
			return ytree_fail_key(
			    x, &f, single[i],
			    "not allowed with hosts (set it per host)");
	size_t saved = ytree_path_key(x, "hosts");
	if ((rc = parse_nic_hosts(x, nic, f.val[NIC_K_HOSTS])))
		return rc;
	ytree_path_cut(x, saved);
	if (!f.val[NIC_K_ENABLED])
		nic->enabled = true;
	return 0;
}

static char *host_name(void)
{
	char buf[256];
	if (gethostname(buf, sizeof buf) != 0 || buf[0] == '\0')
		return xstrdup("localhost");
	buf[sizeof buf - 1] = '\0';
	return xstrdup(buf);
}

static void *nic_section_init(struct cfg *c)
{
	struct cfg_nic *nic = xcalloc(1, sizeof *nic);
	(void)c;
	nic->device = host_name();
	nic->sysfs_root = xstrdup("/sys");
	return nic;
}

static int nic_section_parse(struct ytree_ctx *x, struct cfg *c, void *data,
			     const struct ytree_node *n)
{
	(void)c;
	return parse_nic(x, data, n);
}

static void nic_section_fini(struct cfg *c, void *data)
{
	struct cfg_nic *nic = data;
	(void)c;
	free(nic->device);
	free(nic->sysfs_root);
	free(nic->ethtool_dir);
	for (size_t i = 0; i < nic->n_hosts; i++) {
		free(nic->hosts[i].device);
		free(nic->hosts[i].sysfs_root);
		free(nic->hosts[i].ethtool_dir);
	}
	free(nic->hosts);
	free(nic);
}

static uint64_t nic_section_interval(const struct cfg *c, const void *data)
{
	const struct cfg_nic *nic = data;
	(void)c;
	return nic->enabled ? nic->interval_ns : 0;
}

const struct cfg_section_ops nic_cfg_section = {
	.key = "nic",
	.init = nic_section_init,
	.parse = nic_section_parse,
	.fini = nic_section_fini,
	.interval = nic_section_interval,
};

struct cfg_nic *nic_cfg_of(const struct cfg *c)
{
	return cfg_section(c, nic_cfg_section.key);
}

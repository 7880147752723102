/*
 * fabsim's fabmond configuration (--emit-config): the collectors that
 * point at every simulated switch (gNMI, SNMP) and host (NIC trees),
 * the topology as fabmond's static links, written as YAML that fabmond
 * loads. Unmonitored nodes (--unmonitored) are left out, and so is
 * every cable to one of their ports. The size limit is fabmond's own
 * (core/cfg.h).
 */
#include "config.h"

#include "fabsim_int.h"

#include "cfg.h"
#include "units.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- The fabmond configuration ---- */

static void yaml_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void host_port(char *buf, size_t len, const char *host, int port)
{
	snprintf(buf, len, strchr(host, ':') ? "[%s]:%d" : "%s:%d", host, port);
}

/*
 * The cabling as fabmond's static links (each cable once, switch end
 * first) and the rails the leaves are wired for: what an operator
 * declares from the cabling plan. A NIC cabled to another rail's leaf
 * (sim/topologies/miswired.yaml) stays as cabled, so fabmond sees it.
 */
static void emit_topology(const struct sim_topo *t,
			  const struct sim_visibility *vis, FILE *out)
{
	unsigned nics = sim_topo_nics(t);
	bool any_rail = false;
	for (size_t i = 0; i < sim_topo_n_tier(t, SIM_NODE_LEAF); i++)
		if (sim_topo_tier_node(t, SIM_NODE_LEAF, i)->rail >= 0)
			any_rail = true;
	fprintf(out, "topology:\n");
	if (any_rail && nics) {
		fprintf(out, "  rails:\n");
		for (unsigned k = 0; k < nics; k++) {
			bool first = true;
			for (size_t i = 0;
			     i < sim_topo_n_tier(t, SIM_NODE_LEAF); i++) {
				const struct sim_node *n =
				    sim_topo_tier_node(t, SIM_NODE_LEAF, i);
				if (n->rail != (int)k ||
				    (sim_visibility_flags(vis, n->id) &
				     SIM_VIS_UNMONITORED))
					continue;
				fprintf(out, first ? "    - {leaves: [" : ", ");
				yaml_str(out, n->name);
				first = false;
			}
			if (!first)
				fprintf(out, "], nics: [\"mlx5_%u\"]}\n", k);
		}
	}
	fprintf(out, "  links:\n");
	for (size_t id = 0; id < sim_topo_n_ports(t); id++) {
		const struct sim_port *p = sim_topo_port(t, id);
		const struct sim_port *q = p->peer;
		/* An unmonitored node's cabling is unknown to fabmond. */
		if (!q || !sim_visibility_link_known(vis, p))
			continue;
		/* Once per cable: from the end with the smaller id. */
		if (q->id < p->id)
			continue;
		char a[2 * SIM_TOPO_NAME_MAX + 2], b[2 * SIM_TOPO_NAME_MAX + 2];
		snprintf(a, sizeof a, "%s:%s", p->node->name, p->name);
		snprintf(b, sizeof b, "%s:%s", q->node->name, q->name);
		fprintf(out, "    - {a: ");
		yaml_str(out, a);
		fprintf(out, ", b: ");
		yaml_str(out, b);
		fprintf(out, "}\n");
	}
}

static void emit_config(const struct fabsim *f, FILE *out)
{
	const struct sim_topo *t = f->topo;
	const struct fabsim_opts *o = &f->o;
	char addr[128], iv[32];
	uint64_t every = o->publish_ns > NS_PER_S ? o->publish_ns : NS_PER_S;
	units_format_duration(every, iv, sizeof iv);
	fprintf(out,
		"# fabmond configuration written by fabsim %s for the fabric "
		"of\n# %s (%zu switches, %zu hosts)%s%s.\n",
		PACKAGE_VERSION, sim_topo_source(t),
		sim_topo_n_tier(t, SIM_NODE_SPINE) +
		    sim_topo_n_tier(t, SIM_NODE_LEAF),
		sim_topo_n_tier(t, SIM_NODE_HOST),
		o->scenario ? ", scenario " : "",
		o->scenario ? o->scenario : "");
	if (f->ctl) {
		host_port(addr, sizeof addr,
			  strchr(o->control, '[') ? "::1" : "127.0.0.1",
			  sim_control_port(f->ctl));
		fprintf(out, "# fabsim control: http://%s\n", addr);
	}
	fprintf(out, "listen: [");
	yaml_str(out, o->fabmond_listen);
	fprintf(out, "]\ninterval: %s\n", iv);
	uint8_t mask = sim_topo_lossless_mask(t);
	if (mask) {
		fprintf(out, "lossless_priorities: [");
		bool first = true;
		for (unsigned p = 0; p < 8; p++)
			if (mask & (1u << p)) {
				fprintf(out, first ? "%u" : ", %u", p);
				first = false;
			}
		fprintf(out, "]\n");
	}
	if (o->profiles_dir && *o->profiles_dir) {
		fprintf(out, "profiles_dir: ");
		yaml_str(out, o->profiles_dir);
		fputc('\n', out);
	}
	fprintf(out, "targets:\n");
	for (size_t id = 0; id < sim_topo_n_nodes(t); id++) {
		const struct sim_node *n = sim_topo_node(t, id);
		if (n->kind == SIM_NODE_HOST ||
		    (sim_visibility_flags(f->vis, id) & SIM_VIS_UNMONITORED))
			continue;
		fprintf(out, "  - name: ");
		yaml_str(out, n->name);
		host_port(addr, sizeof addr, o->address,
			  sim_serve_gnmi_port(f->gnmi, id));
		fprintf(out,
			"\n    gnmi:\n      address: \"%s\"\n      insecure: "
			"true\n      profile: %s\n      interval: %s\n",
			addr, sim_serve_gnmi_profile(n->flavour), iv);
		if (sim_serve_gnmi_target(n->flavour))
			fprintf(out, "      target: %s\n",
				sim_serve_gnmi_target(n->flavour));
		/* fabsim's SONiC tables sit under COUNTERS/<port>, so the
		 * profile's first subscription already streams Queues
		 * and Pfcwd: subscribing to them again would send them
		 * twice. The LLDP neighbours and the port table (the
		 * ports' speeds) are APPL_DB's, on a stream of their own
		 * (sonic-gnmi: one database per Subscribe), as the
		 * profile subscribes to them. */
		if (n->flavour == SIM_FLAVOUR_SONIC)
			fprintf(out, "      subscriptions:\n        - path: "
				     "/COUNTERS/Ethernet*\n          mode: "
				     "sample\n        - path: "
				     "/LLDP_ENTRY_TABLE\n          mode: "
				     "on_change\n          target: APPL_DB\n"
				     "        - path: /PORT_TABLE/Ethernet*\n"
				     "          mode: sample\n"
				     "          sample_interval: 10s\n"
				     "          target: APPL_DB\n");
		int sp = fabsim_snmp_port(f, id);
		if (sp > 0) {
			host_port(addr, sizeof addr, o->address, sp);
			fprintf(out,
				"    snmp:\n      address: \"udp%s:%s\"\n      "
				"version: 2c\n      community: ",
				strchr(o->address, ':') ? "6" : "", addr);
			yaml_str(out, o->community);
			fprintf(out, "\n      interval: %s\n", iv);
		}
	}
	if (!o->no_static_links)
		emit_topology(t, f->vis, out);
	if (f->nic && sim_nicfs_n_hosts(f->nic)) {
		fprintf(out, "nic:\n  interval: %s\n  hosts:\n", iv);
		for (size_t i = 0; i < sim_nicfs_n_hosts(f->nic); i++) {
			const char *h = sim_nicfs_host(f->nic, i)->name;
			char *p;
			fprintf(out, "    - device: ");
			yaml_str(out, h);
			fprintf(out, "\n      sysfs_root: ");
			if (asprintf(&p, "%s/%s/sys", o->nic_dir, h) > 0) {
				yaml_str(out, p);
				free(p);
			}
			fprintf(out, "\n      ethtool_dir: ");
			if (asprintf(&p, "%s/%s/ethtool", o->nic_dir, h) > 0) {
				yaml_str(out, p);
				free(p);
			}
			fputc('\n', out);
		}
	}
}

/* Writes the config to o->emit through a temporary file and a rename,
 * so a reader sees nothing or all of it. */
int fabsim_write_config(const struct fabsim *f)
{
	const char *path = f->o.emit;
	if (strcmp(path, "-") == 0) {
		emit_config(f, stdout);
		return fflush(stdout) ? -errno : 0;
	}
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
	FILE *out = fopen(tmp, "w");
	if (!out) {
		fprintf(stderr, "fabsim: --emit-config %s: %s\n", tmp,
			strerror(errno));
		return -errno;
	}
	emit_config(f, out);
	int rc = 0;
	if (fflush(out) || fsync(fileno(out)))
		rc = -errno;
	/* fabmond refuses a bigger file: say so here rather than leave a
	 * caller waiting for a fabmond that exited at once. */
	long size = ftell(out);
	if (!rc && size > (long)CFG_MAX_FILE_BYTES)
		fprintf(stderr,
			"fabsim: warning: --emit-config %s: %ld bytes, more "
			"than fabmond loads (%ld)%s\n",
			path, size, (long)CFG_MAX_FILE_BYTES,
			f->o.no_static_links
			    ? ""
			    : "; --no-static-links leaves the cabling out");
	if (fclose(out) && !rc)
		rc = -errno;
	if (!rc && rename(tmp, path))
		rc = -errno;
	if (rc) {
		fprintf(stderr, "fabsim: --emit-config %s: %s\n", path,
			strerror(-rc));
		unlink(tmp);
	}
	return rc;
}

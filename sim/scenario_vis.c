/*
 * A scenario's visibility: block (see doc/fabsim-scenarios.md): which
 * nodes fabmond cannot see, as fabsim's --unmonitored, --no-lldp,
 * --nic-hosts and --unmonitored-lldp say it, which win over it, and
 * the SONiC switches that collect no PFC pause durations (no_pause_time)
 * or serve no APPL_DB (no_appl_db), both scenario only. The
 * names are checked against the scenario's topology here and kept as
 * the options' comma-separated lists (sim/visibility.c reads them).
 */
#include "config.h"

#include "scenario_int.h"

#include "mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends name to the comma-separated list *out. */
static void append(char **out, const char *name)
{
	char *s = *out ? xasprintf("%s,%s", *out, name) : xstrdup(name);
	free(*out);
	*out = s;
}

/* A list of node names (switches only for no_lldp, hosts only for
 * nic_hosts) into *out. */
static int node_list(struct ytree_ctx *x, const struct sim_topo *t,
		     const struct ytree_node *n, enum sim_scenario_vis which,
		     char **out)
{
	size_t count;
	int rc = scenario_want_list(x, n, SIM_TOPO_MAX_NODES, "nodes", &count);
	/* An empty list says something too: nobody (none). */
	if (!rc && !count)
		append(out, which == SIM_SCENARIO_VIS_NIC_HOSTS ? "none" : "");
	for (size_t i = 0; !rc && i < count; i++) {
		const struct sim_node *nd;
		char q[YTREE_QUOTE_BUF];
		size_t si = ytree_path_index(x, i);
		rc = scenario_node_node(
		    x, t, n->kids[i],
		    which == SIM_SCENARIO_VIS_NO_LLDP ||
			which == SIM_SCENARIO_VIS_NO_PAUSE_TIME ||
			which == SIM_SCENARIO_VIS_NO_APPL_DB,
		    &nd);
		if (!rc && which == SIM_SCENARIO_VIS_NIC_HOSTS &&
		    nd->kind != SIM_NODE_HOST)
			rc = ytree_fail(x, n->kids[i],
					"%s is a switch, not a host",
					ytree_quote(n->kids[i], q, sizeof q));
		if (!rc)
			append(out, nd->name);
		ytree_path_cut(x, si);
	}
	return rc;
}

int scenario_parse_visibility(struct ytree_ctx *x, struct sim_scenario *s,
			      const struct ytree_node *n)
{
	static const char *const keys[] = { "unmonitored", "no_lldp",
					    "nic_hosts",   "no_pause_time",
					    "no_appl_db",  "unmonitored_lldp" };
	static const enum sim_scenario_vis which[] = {
		SIM_SCENARIO_VIS_UNMONITORED, SIM_SCENARIO_VIS_NO_LLDP,
		SIM_SCENARIO_VIS_NIC_HOSTS,   SIM_SCENARIO_VIS_NO_PAUSE_TIME,
		SIM_SCENARIO_VIS_NO_APPL_DB,
	};
	struct ytree_fields f;
	int rc = scenario_want_map(x, n, keys, 6, &f);
	for (size_t i = 0; !rc && i < 5; i++) {
		if (!f.val[i])
			continue;
		size_t saved = ytree_path_key(x, keys[i]);
		const struct ytree_node *v = f.val[i];
		if (i == 2 && v->kind == YTREE_SCALAR && !v->null &&
		    (strcmp(v->str, "all") == 0 || strcmp(v->str, "none") == 0))
			append(&s->vis[which[i]], v->str);
		else
			rc = node_list(x, s->topo, v, which[i],
				       &s->vis[which[i]]);
		ytree_path_cut(x, saved);
	}
	if (!rc)
		rc = ytree_opt_bool(x, &f, 5, &s->vis_lldp_hosts);
	return rc;
}

const char *sim_scenario_visibility(const struct sim_scenario *s,
				    enum sim_scenario_vis which)
{
	return which < SIM_SCENARIO_VIS_N ? s->vis[which] : NULL;
}

bool sim_scenario_unmonitored_lldp(const struct sim_scenario *s)
{
	return s->vis_lldp_hosts;
}

/*
 * sim_visibility: the marks of the parts of a fabric fabmond cannot see
 * (see visibility.h). Lists are parsed here once; the servers only read
 * the per-node flags.
 */
#include "config.h"

#include "visibility.h"

#include "mem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sim_visibility *sim_visibility_new(const struct sim_topo *t)
{
	struct sim_visibility *v = xcalloc(1, sizeof *v);
	v->topo = t;
	v->n = sim_topo_n_nodes(t);
	v->flags = xcalloc(v->n ? v->n : 1, sizeof *v->flags);
	return v;
}

void sim_visibility_free(struct sim_visibility *v)
{
	if (!v)
		return;
	free(v->flags);
	free(v);
}

/* Calls fn on each name of list (trimmed); stops at its first error. */
static int each_name(struct sim_visibility *v, const char *list,
		     int (*fn)(struct sim_visibility *, const struct sim_node *,
			       unsigned, char *, size_t),
		     unsigned flag, char *err, size_t errlen)
{
	const char *s = list;
	while (*s) {
		while (*s == ' ' || *s == ',')
			s++;
		if (!*s)
			break;
		size_t len = strcspn(s, ",");
		size_t end = len;
		while (end && s[end - 1] == ' ')
			end--;
		char name[SIM_TOPO_NAME_MAX + 1];
		if (end > SIM_TOPO_NAME_MAX) {
			snprintf(err, errlen, "%.*s...: no such node", 32, s);
			return -EINVAL;
		}
		memcpy(name, s, end);
		name[end] = '\0';
		const struct sim_node *n = sim_topo_find_node(v->topo, name);
		if (!n) {
			snprintf(err, errlen, "%s: no such node", name);
			return -EINVAL;
		}
		int rc = fn(v, n, flag, err, errlen);
		if (rc)
			return rc;
		s += len;
	}
	return 0;
}

static int mark_one(struct sim_visibility *v, const struct sim_node *n,
		    unsigned flag, char *err, size_t errlen)
{
	bool host = n->kind == SIM_NODE_HOST;
	if ((flag == SIM_VIS_NO_LLDP || flag == SIM_VIS_NO_PAUSE_TIME ||
	     flag == SIM_VIS_NO_APPL_DB) &&
	    host) {
		snprintf(err, errlen, "%s is a host, not a switch", n->name);
		return -EINVAL;
	}
	if (flag == SIM_VIS_NO_APPL_DB && !host &&
	    n->flavour != SIM_FLAVOUR_SONIC) {
		snprintf(err, errlen, "%s is not a SONiC switch", n->name);
		return -EINVAL;
	}
	if (flag == SIM_VIS_NO_NIC && !host) {
		snprintf(err, errlen, "%s is a switch, not a host", n->name);
		return -EINVAL;
	}
	v->flags[n->id] |= (uint8_t)flag;
	return 0;
}

int sim_visibility_mark(struct sim_visibility *v, const char *list,
			unsigned flag, char *err, size_t errlen)
{
	return list ? each_name(v, list, mark_one, flag, err, errlen) : 0;
}

/* Clears the mark (the host is named in --nic-hosts). */
static int unmark_one(struct sim_visibility *v, const struct sim_node *n,
		      unsigned flag, char *err, size_t errlen)
{
	if (n->kind != SIM_NODE_HOST) {
		snprintf(err, errlen, "%s is a switch, not a host", n->name);
		return -EINVAL;
	}
	v->flags[n->id] &= (uint8_t)~flag;
	return 0;
}

int sim_visibility_nic_hosts(struct sim_visibility *v, const char *hosts,
			     char *err, size_t errlen)
{
	if (!hosts || strcmp(hosts, "all") == 0)
		return 0;
	for (size_t id = 0; id < v->n; id++)
		if (sim_topo_node(v->topo, id)->kind == SIM_NODE_HOST)
			v->flags[id] |= SIM_VIS_NO_NIC;
	if (strcmp(hosts, "none") == 0)
		return 0;
	return each_name(v, hosts, unmark_one, SIM_VIS_NO_NIC, err, errlen);
}

unsigned sim_visibility_flags(const struct sim_visibility *v, size_t id)
{
	return v && id < v->n ? v->flags[id] : 0;
}

bool sim_visibility_lldp_names(const struct sim_visibility *v,
			       const struct sim_node *peer)
{
	if (!v || peer->kind != SIM_NODE_HOST)
		return true;
	return !(v->flags[peer->id] & SIM_VIS_UNMONITORED) ||
	       v->lldp_unmonitored_hosts;
}

bool sim_visibility_link_known(const struct sim_visibility *v,
			       const struct sim_port *p)
{
	return !p->peer || !((sim_visibility_flags(v, p->node->id) |
			      sim_visibility_flags(v, p->peer->node->id)) &
			     SIM_VIS_UNMONITORED);
}

char *sim_visibility_nic_list(const struct sim_visibility *v)
{
	size_t cap = 16, len = 0;
	char *s = xcalloc(1, cap);
	for (size_t id = 0; id < sim_topo_n_nodes(v->topo); id++) {
		const struct sim_node *n = sim_topo_node(v->topo, id);
		if (n->kind != SIM_NODE_HOST ||
		    (sim_visibility_flags(v, id) &
		     (SIM_VIS_UNMONITORED | SIM_VIS_NO_NIC)))
			continue;
		size_t nl = strlen(n->name);
		if (len + nl + 2 > cap) {
			while (len + nl + 2 > cap)
				cap *= 2;
			s = xrealloc(s, cap);
		}
		if (len)
			s[len++] = ',';
		memcpy(s + len, n->name, nl + 1);
		len += nl;
	}
	if (!len) {
		free(s);
		return xstrdup("none");
	}
	return s;
}

bool sim_visibility_any(const struct sim_visibility *v)
{
	for (size_t i = 0; v && i < v->n; i++)
		if (v->flags[i])
			return true;
	return false;
}

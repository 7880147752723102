/*
 * snmp_lldp: the LLDP-MIB neighbours the SNMP collector reads (see
 * snmp_int.h and snmp_poller.h): each index walk turns a target's
 * remote table into neighbours on its local ports, which replace the
 * target's in the poller's copy (read by snmp_poller_lldp() on any
 * thread, under lldp_lock) and are reported to the link table (and
 * re-reported within its TTL by the cycle).
 *
 * Threads: the loop thread, except snmp_poller_lldp() and
 * snmp_lldp_free() (any thread).
 */
#include "config.h"

#include "snmp_int.h"

#include "clock.h"
#include "links.h"
#include "log.h"
#include "mem.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void snmp_lldp_free_one(struct snmp_lldp_neighbor *v)
{
	free(v->device);
	free(v->port);
	free(v->neighbor_device);
	free(v->neighbor_port);
	free(v->neighbor_port_desc);
}

static struct snmp_lldp_neighbor *lldp_dup(const struct snmp_lldp_neighbor *s,
					   size_t n)
{
	struct snmp_lldp_neighbor *v = xcalloc(n ? n : 1, sizeof *v);
	for (size_t i = 0; i < n; i++)
		v[i] = (struct snmp_lldp_neighbor){
			xstrdup(s[i].device),
			xstrdup(s[i].port),
			xstrdup(s[i].neighbor_device),
			xstrdup(s[i].neighbor_port),
			s[i].neighbor_port_subtype,
			xstrdup(s[i].neighbor_port_desc),
		};
	return v;
}

static void free_strv(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/*
 * Hands the target's neighbours to the link table (the rule engine's
 * topology): each local port once (the first neighbour of a port wins;
 * the table keeps one per port), and forgets the ports reported before
 * that no longer have one. Neighbours without a system name or port ID
 * (hosts that send neither) cannot be placed and are left out.
 */
void snmp_lldp_report(struct starget *t)
{
	struct links *l = t->p->links;
	if (!l)
		return;
	char **now = xcalloc(t->nnb ? t->nnb : 1, sizeof *now);
	size_t nnow = 0;
	for (size_t i = 0; i < t->nnb; i++) {
		const struct snmp_lldp_neighbor *n = &t->nb[i];
		bool dup = false;
		for (size_t j = 0; j < nnow && !dup; j++)
			dup = strcmp(now[j], n->port) == 0;
		if (dup || !*n->neighbor_device || !*n->neighbor_port)
			continue;
		if (links_report_lldp(
			l, t->name, n->port, n->neighbor_device,
			n->neighbor_port, n->neighbor_port_subtype,
			*n->neighbor_port_desc ? n->neighbor_port_desc : NULL,
			"snmp", 0) == 0)
			now[nnow++] = xstrdup(n->port);
	}
	for (size_t i = 0; i < t->n_rep; i++) {
		bool kept = false;
		for (size_t j = 0; j < nnow && !kept; j++)
			kept = strcmp(now[j], t->rep_ports[i]) == 0;
		if (!kept)
			links_forget_lldp(l, t->name, t->rep_ports[i]);
	}
	free_strv(t->rep_ports, t->n_rep);
	t->rep_ports = now;
	t->n_rep = nnow;
	t->lldp_reported = mono_ns();
}

void snmp_lldp_free(struct snmp_lldp_neighbor *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		snmp_lldp_free_one(&v[i]);
	free(v);
}

/* Replaces the neighbours of device with nb[0..n) (taken over). */
static void lldp_replace(struct poller *p, const char *device,
			 struct snmp_lldp_neighbor *nb, size_t n)
{
	pthread_mutex_lock(&p->lldp_lock);
	size_t k = 0;
	for (size_t i = 0; i < p->nlldp; i++) {
		if (strcmp(p->lldp[i].device, device) == 0)
			snmp_lldp_free_one(&p->lldp[i]);
		else
			p->lldp[k++] = p->lldp[i];
	}
	p->lldp = xreallocarray(p->lldp, k + n + 1, sizeof *p->lldp);
	if (n)
		memcpy(&p->lldp[k], nb, n * sizeof *nb);
	p->nlldp = k + n;
	atomic_store(&p->lldp_count, p->nlldp);
	pthread_mutex_unlock(&p->lldp_lock);
	free(nb);
}

/* Forgets the target's neighbours: the poller's copy, the ports it
 * reported to the link table and its own list. */
void snmp_lldp_target_free(struct starget *t)
{
	lldp_replace(t->p, t->name, NULL, 0);
	if (t->p->links)
		for (size_t i = 0; i < t->n_rep; i++)
			links_forget_lldp(t->p->links, t->name,
					  t->rep_ports[i]);
	free_strv(t->rep_ports, t->n_rep);
	snmp_lldp_free(t->nb, t->nnb);
}

static const char *port_of(struct starget *t, uint32_t locnum)
{
	const struct lldp_loc *l = NULL;
	for (size_t i = 0; i < t->nloc && !l; i++)
		if (t->loc[i].num == locnum)
			l = &t->loc[i];
	/* lldpRemLocalPortNum is an LldpPortNumber, often the ifIndex but
	 * not always: prefer a local port ID or description that names
	 * one of our interfaces. */
	if (l) {
		for (size_t i = 0; i < t->nifs; i++) {
			const char *n =
			    store_label_str(t->p->store, t->ifs[i].port);
			if ((l->id && strcmp(l->id, n) == 0) ||
			    (l->desc && strcmp(l->desc, n) == 0))
				return n;
		}
	}
	struct ifent *e = snmp_find_if(t->ifs, t->nifs, locnum);
	if (e)
		return store_label_str(t->p->store, e->port);
	if (l && l->id && *l->id)
		return l->id;
	return NULL;
}

/*
 * The index walk finished: the target's LLDP neighbours from its remote
 * table, each on the local port it names (port_of), replace those it
 * had, here and in the link table. Returns their count.
 */
size_t snmp_lldp_index_done(struct starget *t)
{
	char buf[32];
	struct snmp_lldp_neighbor *nb =
	    xcalloc(t->nrem ? t->nrem : 1, sizeof *nb);
	size_t nn = 0;
	for (size_t i = 0; i < t->nrem; i++) {
		const struct lldp_rem *r = &t->rem[i];
		const char *lp = port_of(t, r->locnum);
		const char *rp =
		    r->portid && *r->portid ? r->portid : r->portdesc;
		if (!lp) {
			snprintf(buf, sizeof buf, "lldpPort%u", r->locnum);
			lp = buf;
		}
		nb[nn++] = (struct snmp_lldp_neighbor){
			.device = xstrdup(t->name),
			.port = xstrdup(lp),
			.neighbor_device =
			    xstrdup(r->sysname ? r->sysname : ""),
			.neighbor_port = xstrdup(rp ? rp : ""),
			.neighbor_port_subtype = r->subtype,
			.neighbor_port_desc =
			    xstrdup(r->portdesc ? r->portdesc : ""),
		};
	}
	snmp_lldp_free(t->nb, t->nnb);
	t->nb = nb;
	t->nnb = nn;
	lldp_replace(t->p, t->name, lldp_dup(nb, nn), nn);
	snmp_lldp_report(t);
	return nn;
}

size_t snmp_poller_lldp(void *state, struct snmp_lldp_neighbor **out)
{
	struct poller *p = state;
	pthread_mutex_lock(&p->lldp_lock);
	size_t n = p->nlldp;
	struct snmp_lldp_neighbor *v = xcalloc(n ? n : 1, sizeof *v);
	for (size_t i = 0; i < n; i++) {
		const struct snmp_lldp_neighbor *s = &p->lldp[i];
		v[i] = (struct snmp_lldp_neighbor){
			xstrdup(s->device),
			xstrdup(s->port),
			xstrdup(s->neighbor_device),
			xstrdup(s->neighbor_port),
			s->neighbor_port_subtype,
			xstrdup(s->neighbor_port_desc),
		};
	}
	pthread_mutex_unlock(&p->lldp_lock);
	*out = v;
	return n;
}

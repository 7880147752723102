/*
 * The counter model's routes and segment layout (see model.c for the
 * model): each flow's path (ECMP by hash over the shortest up paths, or
 * its explicit one), its segments (one per hop), the queues and
 * ingresses they pass, ranked so the step serves downstream first, and
 * the backlog carried over from the layout before.
 *
 * model_rebuild() runs from the step when the model is dirty, on the
 * model's one thread; it only reads the topology.
 */
#include "config.h"

#include "model_int.h"

#include "mem.h"

#include <stdlib.h>
#include <string.h>

/*
 * Hop distances from node dst over up links between switches, as far as
 * the routes need them: the search stops once the last of the pending
 * source nodes (marked want[node] == stamp) has its distance. A path
 * from a source at distance D only looks at nodes closer than D, and
 * those are all settled by then, so the routes are the same as with
 * every distance known; nodes not reached keep -1.
 */
static void bfs_from(struct sim_model *m, size_t dst, size_t pending,
		     unsigned stamp)
{
	for (size_t i = 0; i < m->n_nodes; i++)
		m->dist[i] = -1;
	size_t head = 0, tail = 0;
	m->dist[dst] = 0;
	m->bfs[tail++] = dst;
	if (m->want[dst] == stamp && --pending == 0)
		return;
	while (head < tail) {
		const struct sim_node *n = sim_topo_node(m->t, m->bfs[head++]);
		for (size_t j = 0; j < n->n_ports; j++) {
			const struct sim_port *p = &n->ports[j];
			if (!p->peer || !m->up[p->id] ||
			    !is_switch(p->peer->node))
				continue;
			size_t o = p->peer->node->id;
			if (m->dist[o] < 0) {
				m->dist[o] = m->dist[n->id] + 1;
				m->bfs[tail++] = o;
				if (m->want[o] == stamp && --pending == 0)
					return;
			}
		}
	}
}

/* Routes flow fi with m->dist computed from its dst leaf; sets hops. */
static void route_flow(struct sim_model *m, size_t fi)
{
	struct flow *f = &m->flows[fi];
	f->hops = 0;
	const struct sim_port *s = port_of(m, f->src);
	const struct sim_port *d = port_of(m, f->dst);
	if (f->xpath) {
		for (size_t k = 0; k < f->xlen; k++)
			if (!m->up[f->xpath[k]])
				return;
		memcpy(f->path, f->xpath, f->xlen * sizeof(size_t));
		f->hops = f->xlen;
		return;
	}
	if (!s->peer || !d->peer || !m->up[s->id] || !m->up[d->id])
		return;
	const struct sim_node *n = s->peer->node;
	const struct sim_node *last = d->peer->node;
	if (!is_switch(n) || !is_switch(last) || m->dist[n->id] < 0)
		return;
	size_t h = 0;
	f->path[h++] = s->id;
	while (n != last && h < MAX_HOPS - 1) {
		size_t cand[SIM_TOPO_MAX_PORTS], nc = 0;
		for (size_t j = 0; j < n->n_ports; j++) {
			const struct sim_port *p = &n->ports[j];
			if (p->peer && m->up[p->id] &&
			    is_switch(p->peer->node) &&
			    m->dist[p->peer->node->id] == m->dist[n->id] - 1)
				cand[nc++] = p->id;
		}
		if (!nc)
			return;
		uint64_t hsh =
		    splitmix(m->seed ^ splitmix(fi * 0x100000001b3ull + n->id));
		size_t e = cand[hsh % nc];
		f->path[h++] = e;
		n = port_of(m, e)->peer->node;
	}
	if (n != last)
		return;
	f->path[h++] = d->peer->id;
	f->hops = h;
}

static int cmp_pair(const void *x, const void *y)
{
	const size_t *a = x, *b = y;
	if (a[0] != b[0])
		return a[0] < b[0] ? -1 : 1;
	return a[1] < b[1] ? -1 : a[1] > b[1];
}

static int cmp_queue(const void *x, const void *y)
{
	const struct queue *a = x, *b = y;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	if (a->rx != b->rx)
		return a->rx ? 1 : -1;
	if (a->port != b->port)
		return a->port < b->port ? -1 : 1;
	return a->prio < b->prio ? -1 : a->prio > b->prio;
}

/* Which queue key a hop is at: egress (port, prio) or RX (dst, prio). */
static size_t qkey(const struct sim_model *m, const struct flow *f, size_t h)
{
	if (h < f->hops)
		return f->path[h] * P + f->prio;
	return m->n_ports * P + f->dst * P + f->prio;
}

/* Ingress port of hop h (NONE at the src NIC). */
static size_t ingress_port(const struct sim_model *m, const struct flow *f,
			   size_t h)
{
	if (h == 0)
		return NONE;
	return port_of(m, f->path[h - 1])->peer->id;
}

void model_free_segments(struct sim_model *m)
{
	free(m->seg_flow);
	free(m->seg_q);
	free(m->seg_g);
	free(m->seg_hop);
	free(m->b);
	free(m->a);
	free(m->d);
	free(m->pb);
	free(m->q);
	free(m->qsegs);
	free(m->g);
	free(m->gsegs);
	m->gsegs = NULL;
}

/* What a rebuild keeps of the old layout: backlog and PFC state. */
struct old_layout {
	size_t n, ng;
	size_t *q, *f, *key, *gkey;
	unsigned *hop;
	double *b, *phi;
	struct queue *oq;
};

/* Takes the old layout out of m and clears its queue and ingress maps. */
static void save_old(struct sim_model *m, struct old_layout *o)
{
	o->n = m->n_segs;
	o->q = m->seg_q;
	o->f = m->seg_flow;
	o->hop = m->seg_hop;
	o->b = m->b;
	o->oq = m->q;
	m->seg_q = NULL;
	m->seg_flow = NULL;
	m->seg_hop = NULL;
	m->b = NULL;
	m->q = NULL;
	/* Old queue keys, to clear gauges and map old segments. */
	o->key = xmalloc((m->n_q ? m->n_q : 1) * sizeof(size_t));
	for (size_t i = 0; i < m->n_q; i++) {
		o->key[i] = (o->oq[i].rx ? m->n_ports * P : 0) +
			    o->oq[i].port * P + o->oq[i].prio;
		m->qmap[o->key[i]] = -1;
		if (!o->oq[i].rx)
			m->occ[o->oq[i].port * P + o->oq[i].prio] = 0;
	}
	for (size_t i = 0; i < m->n_g; i++)
		m->gmap[m->g[i].port * P + m->g[i].prio] = -1;
	o->phi = xcalloc(m->n_g ? m->n_g : 1, sizeof(double));
	o->gkey = xcalloc(m->n_g ? m->n_g : 1, sizeof(size_t));
	for (size_t i = 0; i < m->n_g; i++) {
		o->phi[i] = m->g[i].phi_prev;
		o->gkey[i] = m->g[i].port * P + m->g[i].prio;
	}
	o->ng = m->n_g;
	model_free_segments(m);
	m->seg_q = NULL;
}

/* Routes, grouped by destination leaf so each BFS serves many. */
static void route_all(struct sim_model *m)
{
	size_t *order =
	    xmalloc((m->n_flows ? m->n_flows : 1) * 2 * sizeof(size_t));
	for (size_t i = 0; i < m->n_flows; i++) {
		const struct sim_port *d = port_of(m, m->flows[i].dst);
		order[2 * i] = d->peer ? d->peer->node->id : 0;
		order[2 * i + 1] = i;
	}
	qsort(order, m->n_flows, 2 * sizeof(size_t), cmp_pair);
	size_t last_leaf = NONE;
	for (size_t k = 0; k < m->n_flows; k++) {
		struct flow *f = &m->flows[order[2 * k + 1]];
		const struct sim_port *d = port_of(m, f->dst);
		if (!f->xpath && d->peer && is_switch(d->peer->node) &&
		    d->peer->node->id != last_leaf) {
			last_leaf = d->peer->node->id;
			/* The source leaves of this destination's routed
			   flows (the rest of its group). */
			size_t pending = 0;
			m->stamp++;
			for (size_t j = k;
			     j < m->n_flows && order[2 * j] == order[2 * k];
			     j++) {
				const struct flow *g =
				    &m->flows[order[2 * j + 1]];
				const struct sim_port *sp = port_of(m, g->src);
				if (g->xpath || !sp->peer ||
				    !is_switch(sp->peer->node) ||
				    m->want[sp->peer->node->id] == m->stamp)
					continue;
				m->want[sp->peer->node->id] = m->stamp;
				pending++;
			}
			if (pending)
				bfs_from(m, last_leaf, pending, m->stamp);
		}
		route_flow(m, order[2 * k + 1]);
	}
	free(order);
}

/* The queue of hop h of flow f (at segment s), made on first use. */
static void hop_queue(struct sim_model *m, const struct flow *f, size_t h,
		      size_t s)
{
	size_t key = qkey(m, f, h);
	if (m->qmap[key] < 0) {
		struct queue *q = &m->q[m->n_q];
		memset(q, 0, sizeof *q);
		q->rx = h == f->hops;
		q->src = h == 0;
		q->port = q->rx ? f->dst : f->path[h];
		q->prio = f->prio;
		const struct sim_port *qp = port_of(m, q->port);
		q->rate = rate_Bps(qp);
		q->node = qp->node->id;
		q->inj = lossless(m, q->prio) && qp->peer
			     ? qp->peer->id * P + q->prio
			     : NONE;
		m->qmap[key] = (int32_t)m->n_q++;
	}
	struct queue *q = &m->q[m->qmap[key]];
	if ((int)h > q->rank)
		q->rank = (int)h;
	m->seg_q[s] = (size_t)m->qmap[key];
}

/* The ingress of hop h of flow f (at segment s), made on first use. */
static void hop_ingress(struct sim_model *m, const struct flow *f, size_t h,
			size_t s)
{
	size_t in = ingress_port(m, f, h);
	m->seg_g[s] = NONE;
	if (in == NONE)
		return;
	size_t gk = in * P + f->prio;
	if (m->gmap[gk] < 0) {
		struct ingress *g = &m->g[m->n_g];
		memset(g, 0, sizeof *g);
		g->port = in;
		g->prio = f->prio;
		g->upq = m->seg_q[s - 1];
		const struct sim_port *gp = port_of(m, in);
		g->up = gp->peer->id;
		g->node = gp->node->id;
		g->nic = is_nic(m, in);
		g->up_rate = rate_Bps(gp->peer);
		g->up_refresh = refresh_rate(gp->peer);
		m->gmap[gk] = (int32_t)m->n_g++;
	}
	m->seg_g[s] = (size_t)m->gmap[gk];
}

/* Segments (one per hop of each routed flow), their queues and ingresses. */
static void make_segments(struct sim_model *m)
{
	size_t ns = 0;
	for (size_t i = 0; i < m->n_flows; i++)
		if (m->flows[i].hops)
			ns += m->flows[i].hops + 1;
	size_t nsa = ns ? ns : 1;
	m->n_segs = ns;
	m->seg_flow = xmalloc(nsa * sizeof(size_t));
	m->seg_q = xmalloc(nsa * sizeof(size_t));
	m->seg_g = xmalloc(nsa * sizeof(size_t));
	m->seg_hop = xmalloc(nsa * sizeof(unsigned));
	m->b = xcalloc(nsa, sizeof(double));
	m->a = xcalloc(nsa, sizeof(double));
	m->d = xcalloc(nsa, sizeof(double));
	m->pb = xcalloc(nsa, sizeof(double));
	m->q = xmalloc(nsa * sizeof(struct queue));
	m->g = xmalloc(nsa * sizeof(struct ingress));
	m->n_q = 0;
	m->n_g = 0;
	size_t s = 0;
	for (size_t i = 0; i < m->n_flows; i++) {
		struct flow *f = &m->flows[i];
		f->seg0 = s;
		if (!f->hops)
			continue;
		for (size_t h = 0; h <= f->hops; h++, s++) {
			m->seg_flow[s] = i;
			m->seg_hop[s] = (unsigned)h;
			hop_queue(m, f, h, s);
			hop_ingress(m, f, h, s);
		}
	}
}

/* Ranks (longest path, bounded so cycles terminate), then queues sorted
 * by them and renumbered. */
static void rank_queues(struct sim_model *m)
{
	size_t ns = m->n_segs;
	for (int it = 0; it < MAX_HOPS; it++) {
		bool changed = false;
		for (size_t i = 0; i < ns; i++) {
			if (!m->seg_hop[i])
				continue;
			struct queue *q = &m->q[m->seg_q[i]];
			int r = m->q[m->seg_q[i - 1]].rank + 1;
			if (r > q->rank && r < 4 * MAX_HOPS) {
				q->rank = r;
				changed = true;
			}
		}
		if (!changed)
			break;
	}
	size_t *perm = xmalloc((m->n_q ? m->n_q : 1) * sizeof(size_t));
	for (size_t i = 0; i < m->n_q; i++)
		m->q[i].first = i; /* remember the old index */
	qsort(m->q, m->n_q, sizeof *m->q, cmp_queue);
	for (size_t i = 0; i < m->n_q; i++) {
		perm[m->q[i].first] = i;
		size_t key = (m->q[i].rx ? m->n_ports * P : 0) +
			     m->q[i].port * P + m->q[i].prio;
		m->qmap[key] = (int32_t)i;
	}
	for (size_t i = 0; i < ns; i++)
		m->seg_q[i] = perm[m->seg_q[i]];
	for (size_t i = 0; i < m->n_g; i++)
		m->g[i].upq = perm[m->g[i].upq];
	free(perm);
}

/* CSR of segments per queue and per ingress; ingresses downstream first;
 * the priorities sharing each port's capacity. */
static void index_segments(struct sim_model *m)
{
	size_t ns = m->n_segs;
	size_t nsa = ns ? ns : 1;
	m->qsegs = xmalloc(nsa * sizeof(size_t));
	m->gsegs = xmalloc(nsa * sizeof(size_t));
	size_t *cnt =
	    xcalloc((m->n_q > m->n_g ? m->n_q : m->n_g) + 1, sizeof(size_t));
	for (size_t i = 0; i < ns; i++)
		cnt[m->seg_q[i]]++;
	for (size_t i = 0, acc = 0; i < m->n_q; i++) {
		m->q[i].first = acc;
		m->q[i].n = 0;
		acc += cnt[i];
	}
	for (size_t i = 0; i < ns; i++) {
		struct queue *q = &m->q[m->seg_q[i]];
		m->qsegs[q->first + q->n++] = i;
	}
	memset(cnt, 0, (m->n_g + 1) * sizeof(size_t));
	for (size_t i = 0; i < ns; i++)
		if (m->seg_g[i] != NONE)
			cnt[m->seg_g[i]]++;
	for (size_t i = 0, acc = 0; i < m->n_g; i++) {
		m->g[i].first = acc;
		m->g[i].n = 0;
		acc += cnt[i];
	}
	for (size_t i = 0; i < ns; i++)
		if (m->seg_g[i] != NONE) {
			struct ingress *g = &m->g[m->seg_g[i]];
			m->gsegs[g->first + g->n++] = i;
		}
	free(cnt);
	/* Ingresses downstream first: queue indices grow with rank, so by
	   decreasing upstream queue index. */
	free(m->gorder);
	m->occ_valid = false;
	m->gorder = xmalloc((m->n_g ? m->n_g : 1) * 2 * sizeof(size_t));
	for (size_t i = 0; i < m->n_g; i++) {
		m->gorder[2 * i] = m->n_q - m->g[i].upq;
		m->gorder[2 * i + 1] = i;
	}
	qsort(m->gorder, m->n_g, 2 * sizeof(size_t), cmp_pair);
	/* Priorities sharing a port's capacity. */
	for (size_t i = 0; i < m->n_q; i++) {
		unsigned k = 0;
		for (unsigned p = 0; p < P; p++)
			if (m->qmap[m->q[i].port * P + p] >= 0)
				k++;
		m->q[i].share = m->q[i].rx || !k ? 1.0 : 1.0 / k;
	}
}

/* Carries backlog and PFC state over from o, then frees o. */
static void carry_over(struct sim_model *m, struct old_layout *o)
{
	for (size_t i = 0; i < o->ng; i++) {
		int32_t gi = m->gmap[o->gkey[i]];
		if (gi >= 0)
			m->g[gi].phi_prev = o->phi[i];
	}
	for (size_t i = 0; i < o->n; i++) {
		if (o->b[i] <= 0)
			continue;
		struct flow *f = &m->flows[o->f[i]];
		size_t key = o->key[o->q[i]];
		bool kept = false;
		for (size_t h = 1; f->hops && h <= f->hops; h++) {
			if (qkey(m, f, h) == key) {
				m->b[f->seg0 + h] += o->b[i];
				kept = true;
				break;
			}
		}
		if (!kept) {
			const struct queue *q = &o->oq[o->q[i]];
			drop_backlog(m, q->port, q->prio, q->rx, o->b[i]);
		}
	}
	free(o->key);
	free(o->phi);
	free(o->gkey);
	free(o->q);
	free(o->f);
	free(o->hop);
	free(o->b);
	free(o->oq);
}

void model_rebuild(struct sim_model *m)
{
	struct old_layout o;
	save_old(m, &o);
	route_all(m);
	make_segments(m);
	rank_queues(m);
	index_segments(m);
	carry_over(m, &o);
	m->dirty = false;
}

/*
 * sim_model: a fluid model of a lossless RoCE fabric that keeps the
 * counters real devices keep. Not a packet simulator: bytes move as
 * rates integrated over a tick of dt seconds, and the sub-tick dynamics
 * of PFC and DCQCN (microseconds) are replaced by their tick averages.
 *
 * State. A flow f (src NIC, dst NIC, priority, demand) has a path of
 * egress ports e_0 (the src NIC) .. e_{H-1} (the leaf port to dst) and
 * one segment per hop plus one for dst's receive buffer. Segment s holds
 * b_s, the flow's bytes queued at its hop. A queue (egress port and
 * priority, or a NIC's RX buffer) is the set of segments at it; an
 * ingress (the port where a segment's bytes entered the node, and the
 * priority) is the set of segments whose bytes came in through it, and
 * its occupancy I = sum b_s is what PFC watches. Queues are ranked so
 * that ranks grow along every path (longest path; back edges of a cycle
 * keep a lower rank).
 *
 * One tick:
 *  1. Blocked queues (PFC that never releases). A queue is blocked for
 *     the whole tick when the ingress it feeds is PFC-enabled and holds
 *     at least Xon bytes that sit in blocked queues or a stalled NIC's
 *     RX buffer: the greatest such set, by iteration. A stalled NIC
 *     blocks its leaf, that blocks the spines feeding it, and so on; a
 *     cyclic buffer dependency blocks itself (deadlock).
 *  2. Forward pass, queues by rank: arrivals a_s (the previous hop's
 *     departures this tick; at e_0 the offered r_f dt), capacity
 *     C dt (1 - injected pause) / (active priorities of the port), 0
 *     if blocked, and at a NIC's RX buffer C dt rx_drain. A queue serves
 *     min(capacity, sum(b + a)) shared in proportion to b + a (FIFO on
 *     average): d_s = (b_s + a_s) ratio, b_s += a_s - d_s (bytes on a
 *     cycle's back edge reach a queue already served, and wait). Bytes the
 *     src NIC could not send are not queued (the QP waits). A lossy
 *     switch queue tail-drops above lossy_limit.
 *  3. Backward pass, ingresses from the last rank back (PFC). A lossless
 *     ingress above Xoff returns the excess E = min(I - Xoff, A) of this
 *     tick's arrivals A to the upstream segments (the upstream sent that
 *     much less): the upstream egress was paused for phi = E / A of the
 *     tick (1 if blocked, 1 if nothing came but I >= Xoff). Returned
 *     bytes raise the upstream node's ingresses, processed later in the
 *     same pass: the pause spreads hop by hop up the paths. Pause time
 *     is phi dt <= dt. Frames: R phi dt XOFF refreshes, with R = link
 *     rate / (65535 quanta x 512 bit) (11,921/s at 400G), plus one XON
 *     per XOFF->XON transition: a full pause ending is one, a partial
 *     pause cycles max(1, phi (1 - phi) R dt) times. Each XOFF onset
 *     lets C_up t_reaction bytes land in headroom; beyond headroom they
 *     are dropped on the lossless priority (PG drop, in_discards): they
 *     come out of the bytes pushed back (the upstream sent them after
 *     all), so the queue PFC holds at Xoff stays. A NIC
 *     with PFC off (lossy priority, or stall prevention fired) drops
 *     what exceeds its buffer (rx_prio/phy discards, out_of_buffer).
 *  4. ECN at switch egress queues, after PFC: a departing packet is
 *     marked with p(Q) = 0 below K_min, p_max (Q - K_min) / (K_max -
 *     K_min) up to K_max, 1 above. With K_max < Xoff, marks come before
 *     pause; with K_min above what PFC lets a queue hold, pause comes
 *     with no marks.
 *  5. DCQCN per flow: the receiver (NP) counts CE packets and sends
 *     CNPs, at most one per 4 us (np_enabled), the sender (RP) handles
 *     them and cuts r <- r (1 - alpha / 2) with alpha the marked
 *     fraction this tick, or counts them ignored; a tick without CNPs
 *     raises r by 25% of line rate per second, up to demand. Lost
 *     packets count out_of_sequence at dst, packet_seq_err and
 *     roce_adp_retrans at src, and one in 8 a local_ack_timeout_err.
 *  6. Stall prevention per NIC: while the NIC pauses its leaf for
 *     >= 99% of each tick, continuous pause time grows; past storm_minor_ms one
 *     warning event, past storm_critical_ms one error event and PFC off
 *     until its receive path drains again.
 *  7. PFC watchdog per switch (off by default): a lossless egress queue
 *     paused >= 99% of each tick (by PFC or injected pause) with bytes
 *     queued for 99% of pfcwd_detect_ms is stormed; from the next tick
 *     it drops its backlog and its arrivals and is never blocked (the
 *     pause it receives is still counted), until no pause came for
 *     pfcwd_restore_ms. This is what breaks a deadlock.
 *
 * Counters are kept raw and monotonic (uint64 bytes and ns; fractional
 * events in 1/1024 units) and converted at read: packets = bytes /
 * SIM_MODEL_FRAME_BYTES, frames from pause time, us from ns, mlx5
 * q-counters truncated to 32 bits. A reboot zeroes a switch's ports.
 * A switch's counter base (sim_model_set_counter_base) is added at read
 * to each of its cumulative counters, never to the state the step uses.
 *
 * Ownership: the model borrows the topology and owns all arrays, which
 * are flat and indexed by port id (x SIM_MODEL_PRIOS) or node id. Flows,
 * segments, queues and ingresses are rebuilt when flows or links change,
 * not per step, so a step only touches segments, queues and ingresses
 * in use; what a step needs of the topology (port pointers, NIC flags,
 * rates, the node of a queue or ingress, the upstream port) is cached
 * at construction and rebuild, so the step makes no calls into it. A
 * rebuild routes each destination leaf's flows with one breadth-first
 * search that stops once it has reached their source leaves.
 */
#include "config.h"

#include "model.h"

#include "mem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define P		   SIM_MODEL_PRIOS
#define FP_SHIFT	   10 /* fractional event counters: value * 1024 */
#define FP_ONE		   1024.0
#define NONE		   ((size_t)-1)
#define KIB		   1024ull
#define CNP_MIN_INTERVAL_S 4e-6
#define RP_AI_PER_S	   0.25 /* of line rate per second */
#define RP_MIN_GBPS	   0.1
#define MAX_HOPS	   SIM_MODEL_MAX_PATH
/* A NIC pausing at least this fraction of a tick is stalled (SONiC's
 * pfcwd uses the same 99%). */
#define STORM_PHI 0.99

struct flow {
	size_t src, dst;
	unsigned prio;
	double demand; /* bytes/s */
	double rate;   /* bytes/s, DCQCN */
	size_t *xpath; /* explicit path or NULL */
	size_t xlen;
	size_t *path; /* current path */
	size_t hops;  /* 0: no path */
	size_t seg0;  /* first segment */
	double line;  /* src's line rate, bytes/s */
	double lost;  /* bytes lost this tick */
	double marks; /* CE packets this tick */
};

/* A queue: egress (port, prio) or a NIC's RX buffer (port, prio). */
struct queue {
	size_t port;
	unsigned prio;
	bool rx;
	bool src; /* a NIC's transmit side: nothing is queued */
	int rank;
	size_t first, n; /* in qsegs */
	double share;	 /* of the port's capacity */
	double rate;	 /* the port's, bytes/s */
	size_t node;	 /* the port's */
	size_t inj;	 /* peer port x P + prio if lossless, else NONE */
	bool blocked;
	bool done; /* served this tick */
};

/* An ingress (port, prio) and the upstream queue feeding it. */
struct ingress {
	size_t port;
	unsigned prio;
	size_t upq;		    /* queue index */
	size_t up, node;	    /* upstream port, the port's node */
	bool nic;		    /* the port is a NIC's */
	double up_rate, up_refresh; /* the upstream port's */
	size_t first, n;	    /* in gsegs */
	double phi_prev;
	double arrived, pushed; /* this tick, bytes */
	double occ;		/* occupancy when last summed this tick */
	bool hot;		/* its bytes changed since: sum again */
};

struct nic_state {
	struct sim_model_nic_cfg cfg;
	uint64_t np_ecn, np_cnp, rp_handled, rp_ignored; /* FP */
	uint64_t oob, oos, pse, lat, adp;		 /* FP */
	uint64_t rx_disc_phy, tx_disc_phy;		 /* FP */
	uint64_t thres, warn, err;
	uint64_t storm_ns;
	bool warned, errored;
};

struct injection {
	size_t port;
	unsigned prio;
	double ratio;
};

struct sim_model {
	const struct sim_topo *t;
	uint64_t seed, now_ns;
	size_t n_ports, n_nodes;
	/* The topology's, cached: the step asks for them per segment. */
	const struct sim_port **pt; /* by port id */
	bool *pnic;		    /* port is a host NIC */
	uint8_t lossless_mask;
	unsigned n_wd; /* switches with a PFC watchdog */
	bool wd_any;   /* some queue may still be stormed or timing */

	/* Per port x prio. */
	uint64_t *tx_bytes, *rx_bytes, *tx_pause_ns, *rx_pause_ns;
	uint64_t *xon_tx, *xon_rx, *ecn, *qdrop, *pgdrop; /* FP: last 3 */
	double *occ, *wm;
	/* PFC watchdog per port x prio: time stormed so far (detection),
	   time without pause while stormed (restoration), counts. */
	uint64_t *wd_ns, *wd_quiet_ns, *wd_storms, *wd_restores;
	uint64_t *wd_drops; /* FP */
	bool *wd_on;
	/* Per port. */
	uint64_t *in_disc, *out_disc; /* FP */
	uint64_t *up_events, *down_events;
	bool *up;
	struct nic_state *nic; /* indexed by port; used for NIC ports */
	/* Per node. */
	struct sim_model_switch_cfg *sw;
	unsigned *boots;
	uint64_t *boot_ns;
	uint64_t *cbase; /* counter base, until the switch reboots */

	struct flow *flows;
	size_t n_flows, cap_flows;
	struct injection *inj;
	size_t n_inj;

	/* Rebuilt when dirty. */
	bool dirty;
	bool occ_valid; /* ingresses' occ, unless hot, as of now */
	size_t n_segs;
	size_t *seg_flow, *seg_q, *seg_g;
	unsigned *seg_hop;
	double *b, *a, *d;
	double *pb; /* pushed back by PFC this tick, per segment */
	struct queue *q;
	size_t n_q;
	size_t *qsegs;
	struct ingress *g;
	size_t n_g;
	size_t *gsegs;
	size_t *gorder;	 /* (key, ingress) pairs, downstream first */
	int32_t *qmap;	 /* 2 x n_ports x P -> queue, -1 */
	int32_t *gmap;	 /* n_ports x P -> ingress, -1 */
	double *inj_phi; /* n_ports x P: pause injected by port */
	int *dist;	 /* per node, routing scratch */
	size_t *bfs;
	unsigned *want; /* per node: a source of the routes (== stamp) */
	unsigned stamp;
};

static const struct sim_port *port_of(const struct sim_model *m, size_t id)
{
	return m->pt[id];
}

static bool is_nic(const struct sim_model *m, size_t id)
{
	return m->pnic[id];
}

static bool lossless(const struct sim_model *m, unsigned prio)
{
	return (m->lossless_mask >> prio) & 1;
}

static double rate_Bps(const struct sim_port *p)
{
	return p->speed * 1e9 / 8.0;
}

/* XOFF refreshes per second that hold a priority paused: one per
 * maximum pause of 65535 quanta of 512 bit times. */
static double refresh_rate(const struct sim_port *p)
{
	return p->speed * 1e9 / (65535.0 * 512.0);
}

static void fp_add(uint64_t *c, double x)
{
	if (x > 0)
		*c += (uint64_t)(x * FP_ONE);
}

static uint64_t splitmix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static void default_switch_cfg(struct sim_model_switch_cfg *c)
{
	c->xoff = 512 * KIB;
	c->xon = 480 * KIB;
	c->headroom = 256 * KIB;
	c->ecn_kmin = 100 * KIB;
	c->ecn_kmax = 400 * KIB;
	c->ecn_pmax = 0.2;
	c->lossy_limit = 2048 * KIB;
	c->pfc_reaction_ns = 2000;
	c->pfcwd_detect_ms = 0;
	c->pfcwd_restore_ms = 200;
}

static void default_nic_cfg(struct sim_model_nic_cfg *c)
{
	c->xoff = 256 * KIB;
	c->xon = 224 * KIB;
	c->headroom = 128 * KIB;
	c->rx_drain = 1.0;
	c->np_enabled = true;
	c->rp_ignore_cnp = false;
	c->storm_minor_ms = 6800;
	c->storm_critical_ms = 8000;
}

struct sim_model *sim_model_new(const struct sim_topo *t, uint64_t seed,
				char *err, size_t errlen)
{
	if (!t) {
		snprintf(err, errlen, "sim_model: no topology");
		return NULL;
	}
	struct sim_model *m = xcalloc(1, sizeof *m);
	m->t = t;
	m->seed = seed;
	m->n_ports = sim_topo_n_ports(t);
	m->n_nodes = sim_topo_n_nodes(t);
	size_t np = m->n_ports ? m->n_ports : 1;
	size_t nn = m->n_nodes ? m->n_nodes : 1;
	size_t pp = np * P;
	m->tx_bytes = xcalloc(pp, sizeof(uint64_t));
	m->rx_bytes = xcalloc(pp, sizeof(uint64_t));
	m->tx_pause_ns = xcalloc(pp, sizeof(uint64_t));
	m->rx_pause_ns = xcalloc(pp, sizeof(uint64_t));
	m->xon_tx = xcalloc(pp, sizeof(uint64_t));
	m->xon_rx = xcalloc(pp, sizeof(uint64_t));
	m->ecn = xcalloc(pp, sizeof(uint64_t));
	m->qdrop = xcalloc(pp, sizeof(uint64_t));
	m->pgdrop = xcalloc(pp, sizeof(uint64_t));
	m->occ = xcalloc(pp, sizeof(double));
	m->wm = xcalloc(pp, sizeof(double));
	m->inj_phi = xcalloc(pp, sizeof(double));
	m->wd_ns = xcalloc(pp, sizeof(uint64_t));
	m->wd_quiet_ns = xcalloc(pp, sizeof(uint64_t));
	m->wd_storms = xcalloc(pp, sizeof(uint64_t));
	m->wd_restores = xcalloc(pp, sizeof(uint64_t));
	m->wd_drops = xcalloc(pp, sizeof(uint64_t));
	m->wd_on = xcalloc(pp, sizeof(bool));
	m->in_disc = xcalloc(np, sizeof(uint64_t));
	m->out_disc = xcalloc(np, sizeof(uint64_t));
	m->up_events = xcalloc(np, sizeof(uint64_t));
	m->down_events = xcalloc(np, sizeof(uint64_t));
	m->up = xcalloc(np, sizeof(bool));
	m->nic = xcalloc(np, sizeof *m->nic);
	m->qmap = xmalloc(2 * pp * sizeof(int32_t));
	m->gmap = xmalloc(pp * sizeof(int32_t));
	memset(m->qmap, 0xff, 2 * pp * sizeof(int32_t));
	memset(m->gmap, 0xff, pp * sizeof(int32_t));
	m->sw = xcalloc(nn, sizeof *m->sw);
	m->boots = xcalloc(nn, sizeof(unsigned));
	m->boot_ns = xcalloc(nn, sizeof(uint64_t));
	m->cbase = xcalloc(nn, sizeof(uint64_t));
	m->dist = xcalloc(nn, sizeof(int));
	m->bfs = xcalloc(nn, sizeof(size_t));
	m->want = xcalloc(nn, sizeof(unsigned));
	m->pt = xcalloc(np, sizeof *m->pt);
	m->pnic = xcalloc(np, sizeof *m->pnic);
	m->lossless_mask = sim_topo_lossless_mask(t);
	for (size_t i = 0; i < m->n_ports; i++) {
		m->pt[i] = sim_topo_port(t, i);
		m->pnic[i] = m->pt[i]->node->kind == SIM_NODE_HOST;
		m->up[i] = port_of(m, i)->peer != NULL;
		default_nic_cfg(&m->nic[i].cfg);
	}
	for (size_t i = 0; i < m->n_nodes; i++)
		default_switch_cfg(&m->sw[i]);
	/* The first step builds the (empty) segment arrays it clears. */
	m->dirty = true;
	return m;
}

static void free_segments(struct sim_model *m)
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

void sim_model_free(struct sim_model *m)
{
	if (!m)
		return;
	free_segments(m);
	for (size_t i = 0; i < m->n_flows; i++) {
		free(m->flows[i].xpath);
		free(m->flows[i].path);
	}
	free(m->flows);
	free(m->inj);
	free(m->tx_bytes);
	free(m->rx_bytes);
	free(m->tx_pause_ns);
	free(m->rx_pause_ns);
	free(m->xon_tx);
	free(m->xon_rx);
	free(m->ecn);
	free(m->qdrop);
	free(m->pgdrop);
	free(m->occ);
	free(m->wm);
	free(m->inj_phi);
	free(m->wd_ns);
	free(m->wd_quiet_ns);
	free(m->wd_storms);
	free(m->wd_restores);
	free(m->wd_drops);
	free(m->wd_on);
	free(m->in_disc);
	free(m->out_disc);
	free(m->up_events);
	free(m->down_events);
	free(m->up);
	free(m->nic);
	free(m->qmap);
	free(m->gmap);
	free(m->sw);
	free(m->boots);
	free(m->boot_ns);
	free(m->cbase);
	free(m->dist);
	free(m->bfs);
	free(m->want);
	free(m->gorder);
	free(m->pt);
	free(m->pnic);
	free(m);
}

uint64_t sim_model_now_ns(const struct sim_model *m)
{
	return m->now_ns;
}

/* ---- Routing ---- */

static bool is_switch(const struct sim_node *n)
{
	return n->kind != SIM_NODE_HOST;
}

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

static void drop_backlog(struct sim_model *m, size_t port, unsigned prio,
			 bool rx, double bytes)
{
	if (bytes <= 0)
		return;
	double pk = bytes / SIM_MODEL_FRAME_BYTES;
	if (rx) {
		fp_add(&m->pgdrop[port * P + prio], pk);
		fp_add(&m->nic[port].rx_disc_phy, pk);
	} else {
		fp_add(&m->qdrop[port * P + prio], pk);
		fp_add(&m->out_disc[port], pk);
	}
}

/*
 * Recomputes paths, segments, queues and ingresses. Backlog of a flow
 * stays where the new path still passes; elsewhere it is dropped and
 * counted at the port that held it.
 */
static void rebuild(struct sim_model *m)
{
	size_t old_n = m->n_segs;
	size_t *old_q = m->seg_q, *old_f = m->seg_flow;
	unsigned *old_hop = m->seg_hop;
	double *old_b = m->b;
	struct queue *oq = m->q;
	m->seg_q = NULL;
	m->seg_flow = NULL;
	m->seg_hop = NULL;
	m->b = NULL;
	m->q = NULL;
	/* Old queue keys, to clear gauges and map old segments. */
	size_t *old_key = xmalloc((m->n_q ? m->n_q : 1) * sizeof(size_t));
	for (size_t i = 0; i < m->n_q; i++) {
		old_key[i] = (oq[i].rx ? m->n_ports * P : 0) + oq[i].port * P +
			     oq[i].prio;
		m->qmap[old_key[i]] = -1;
		if (!oq[i].rx)
			m->occ[oq[i].port * P + oq[i].prio] = 0;
	}
	for (size_t i = 0; i < m->n_g; i++)
		m->gmap[m->g[i].port * P + m->g[i].prio] = -1;
	double *old_phi = xcalloc(m->n_g ? m->n_g : 1, sizeof(double));
	size_t *old_gkey = xcalloc(m->n_g ? m->n_g : 1, sizeof(size_t));
	for (size_t i = 0; i < m->n_g; i++) {
		old_phi[i] = m->g[i].phi_prev;
		old_gkey[i] = m->g[i].port * P + m->g[i].prio;
	}
	size_t old_ng = m->n_g;
	free_segments(m);
	m->seg_q = NULL;

	/* Routes, grouped by destination leaf so each BFS serves many. */
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

	/* Segments. */
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
			size_t in = ingress_port(m, f, h);
			m->seg_g[s] = NONE;
			if (in == NONE)
				continue;
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
	}
	/* Ranks: longest path, bounded so cycles terminate. */
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
	/* Sort queues and renumber. */
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
	/* CSR of segments per queue and per ingress. */
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
	/* Carry backlog and PFC state over. */
	for (size_t i = 0; i < old_ng; i++) {
		int32_t gi = m->gmap[old_gkey[i]];
		if (gi >= 0)
			m->g[gi].phi_prev = old_phi[i];
	}
	for (size_t i = 0; i < old_n; i++) {
		if (old_b[i] <= 0)
			continue;
		struct flow *f = &m->flows[old_f[i]];
		size_t key = old_key[old_q[i]];
		bool kept = false;
		for (size_t h = 1; f->hops && h <= f->hops; h++) {
			if (qkey(m, f, h) == key) {
				m->b[f->seg0 + h] += old_b[i];
				kept = true;
				break;
			}
		}
		if (!kept) {
			const struct queue *q = &oq[old_q[i]];
			drop_backlog(m, q->port, q->prio, q->rx, old_b[i]);
		}
	}
	free(old_key);
	free(old_phi);
	free(old_gkey);
	free(old_q);
	free(old_f);
	free(old_hop);
	free(old_b);
	free(oq);
	m->dirty = false;
}

/* ---- Step ---- */

static bool pfc_on(const struct sim_model *m, const struct ingress *g)
{
	if (!lossless(m, g->prio))
		return false;
	if (g->nic)
		return !m->nic[g->port].errored;
	return true;
}

static void thresholds(const struct sim_model *m, const struct ingress *g,
		       double *xoff, double *xon, double *headroom,
		       double *react)
{
	if (g->nic) {
		const struct sim_model_nic_cfg *c = &m->nic[g->port].cfg;
		*xoff = (double)c->xoff;
		*xon = (double)c->xon;
		*headroom = (double)c->headroom;
		*react = 2e-6;
		return;
	}
	const struct sim_model_switch_cfg *c = &m->sw[g->node];
	*xoff = (double)c->xoff;
	*xon = (double)c->xon;
	*headroom = (double)c->headroom;
	*react = c->pfc_reaction_ns * 1e-9;
}

static double group_sum(const struct sim_model *m, const struct ingress *g)
{
	double s = 0;
	for (size_t k = 0; k < g->n; k++)
		s += m->b[m->gsegs[g->first + k]];
	return s;
}

/* Step 1: the greatest set of queues blocked by stuck ingresses. */
static void find_blocked(struct sim_model *m, size_t *cand)
{
	size_t nc = 0;
	for (size_t i = 0; i < m->n_q; i++) {
		struct queue *q = &m->q[i];
		q->blocked = q->rx && m->nic[q->port].cfg.rx_drain <= 0;
	}
	for (size_t i = 0; i < m->n_g; i++) {
		struct ingress *g = &m->g[i];
		const struct queue *up = &m->q[g->upq];
		double xoff, xon, hr, re;
		/* A stormed queue ignores pause: it never blocks. */
		if (!pfc_on(m, g) ||
		    (m->n_wd && m->wd_on[up->port * P + up->prio]))
			continue;
		thresholds(m, g, &xoff, &xon, &hr, &re);
		double I = m->occ_valid && !g->hot ? g->occ : group_sum(m, g);
		if (I >= xon) {
			m->q[g->upq].blocked = true;
			cand[nc++] = i;
		}
	}
	bool changed = true;
	while (changed) {
		changed = false;
		for (size_t c = 0; c < nc; c++) {
			struct ingress *g = &m->g[cand[c]];
			if (!m->q[g->upq].blocked)
				continue;
			double xoff, xon, hr, re, stuck = 0;
			thresholds(m, g, &xoff, &xon, &hr, &re);
			for (size_t k = 0; k < g->n; k++) {
				size_t s = m->gsegs[g->first + k];
				if (m->q[m->seg_q[s]].blocked)
					stuck += m->b[s];
			}
			if (stuck < xon) {
				m->q[g->upq].blocked = false;
				changed = true;
			}
		}
	}
}

/* A stormed queue (watchdog action drop) drops what it holds and what
 * arrives this tick. */
static void wd_drop(struct sim_model *m, struct queue *q)
{
	double lostb = 0;
	for (size_t k = 0; k < q->n; k++) {
		size_t s = m->qsegs[q->first + k];
		double x = m->b[s] + m->a[s];
		m->d[s] = 0;
		m->b[s] = 0;
		m->flows[m->seg_flow[s]].lost += x;
		lostb += x;
	}
	q->done = true;
	drop_backlog(m, q->port, q->prio, false, lostb);
	fp_add(&m->wd_drops[q->port * P + q->prio],
	       lostb / SIM_MODEL_FRAME_BYTES);
}

/* Step 2. */
static void forward(struct sim_model *m, double dt)
{
	for (size_t i = 0; i < m->n_q; i++)
		m->q[i].done = false;
	for (size_t i = 0; i < m->n_q; i++) {
		struct queue *q = &m->q[i];
		double cap;
		if (m->n_wd && !q->rx && m->wd_on[q->port * P + q->prio]) {
			wd_drop(m, q);
			continue;
		}
		if (q->rx)
			cap = q->rate * dt * m->nic[q->port].cfg.rx_drain;
		else if (q->blocked)
			cap = 0;
		else {
			double inj = 0;
			if (m->n_inj && q->inj != NONE)
				inj = m->inj_phi[q->inj];
			cap = q->rate * dt * q->share * (1 - inj);
		}
		double tot = 0;
		for (size_t k = 0; k < q->n; k++) {
			size_t s = m->qsegs[q->first + k];
			tot += m->b[s] + m->a[s];
		}
		if (tot <= 0)
			continue;
		double ratio = cap >= tot ? 1.0 : cap / tot;
		double left = 0;
		for (size_t k = 0; k < q->n; k++) {
			size_t s = m->qsegs[q->first + k];
			double x = (m->b[s] + m->a[s]) * ratio;
			m->d[s] = x;
			m->b[s] = q->src ? 0 : m->b[s] + m->a[s] - x;
			left += m->b[s];
			if (q->rx)
				continue;
			/* On a cycle's back edge the next queue was served
			   already: the bytes wait there for the next tick,
			   and still count as arrivals for PFC. */
			m->a[s + 1] += x;
			if (m->q[m->seg_q[s + 1]].done)
				m->b[s + 1] += x;
		}
		q->done = true;
		/* Lossy switch queue: tail drop above its limit. */
		if (!q->rx && !q->src && !lossless(m, q->prio)) {
			double lim = (double)m->sw[q->node].lossy_limit;
			if (left > lim) {
				double cut = (left - lim) / left;
				double lostb = 0;
				for (size_t k = 0; k < q->n; k++) {
					size_t s = m->qsegs[q->first + k];
					double x = m->b[s] * cut;
					m->b[s] -= x;
					m->flows[m->seg_flow[s]].lost += x;
					lostb += x;
				}
				drop_backlog(m, q->port, q->prio, false, lostb);
			}
		}
	}
}

/* Removes up to want bytes of this tick's arrivals at g still queued
 * there, in proportion to what each segment can give; returns what was
 * removed. push_back returns them to the upstream segments (they were
 * never sent), else they are lost. */
static double take_arrivals(struct sim_model *m, struct ingress *g, double want,
			    bool push_back)
{
	double avail = 0;
	for (size_t k = 0; k < g->n; k++) {
		size_t s = m->gsegs[g->first + k];
		avail += m->a[s] < m->b[s] ? m->a[s] : m->b[s];
	}
	if (avail <= 0 || want <= 0)
		return 0;
	double frac = want >= avail ? 1.0 : want / avail, took = 0;
	for (size_t k = 0; k < g->n; k++) {
		size_t s = m->gsegs[g->first + k];
		double x = (m->a[s] < m->b[s] ? m->a[s] : m->b[s]) * frac;
		if (x <= 0)
			continue;
		m->b[s] -= x;
		m->a[s] -= x;
		took += x;
		if (push_back) {
			m->d[s - 1] -= x;
			m->pb[s] += x;
			if (m->seg_hop[s - 1] > 0) {
				m->b[s - 1] += x;
				m->g[m->seg_g[s - 1]].hot = true;
			}
		} else {
			m->flows[m->seg_flow[s]].lost += x;
		}
	}
	if (!push_back && took > 0)
		g->hot = true;
	return took;
}

/* Headroom overflow: of the bytes g pushed back this tick, lost go out
 * after all and are dropped at g, so the queues behind g stay as PFC
 * left them (at Xoff) and the upstream counts them sent. Returns the
 * bytes dropped. */
static double drop_pushed(struct sim_model *m, const struct ingress *g,
			  double lost)
{
	if (lost <= 0 || g->pushed <= 0)
		return 0;
	double frac = lost >= g->pushed ? 1.0 : lost / g->pushed, took = 0;
	for (size_t k = 0; k < g->n; k++) {
		size_t s = m->gsegs[g->first + k];
		double x = m->pb[s] * frac;
		if (x <= 0)
			continue;
		m->pb[s] -= x;
		m->d[s - 1] += x;
		if (m->seg_hop[s - 1] > 0) {
			m->b[s - 1] -= x;
			m->g[m->seg_g[s - 1]].hot = true;
		}
		m->flows[m->seg_flow[s]].lost += x;
		took += x;
	}
	return took;
}

/* Step 3a: PFC pushback at every lossless ingress, downstream first.
 * Returned bytes can raise an ingress processed earlier only across a
 * cycle's back edge, so a few passes settle it. */
static void pfc_pushback(struct sim_model *m)
{
	for (int pass = 0; pass < 4; pass++) {
		double moved = 0;
		for (size_t i = 0; i < m->n_g; i++) {
			struct ingress *g = &m->g[m->gorder[2 * i + 1]];
			double I;
			if (pass == 0) {
				/* An ingress's arrivals change only when it
				   pushes back itself, so they are summed here
				   with its occupancy. */
				double arrived = 0;
				I = 0;
				for (size_t k = 0; k < g->n; k++) {
					size_t s = m->gsegs[g->first + k];
					arrived += m->a[s];
					I += m->b[s];
				}
				g->arrived = arrived;
				g->pushed = 0;
			} else if (!g->hot) {
				/* Nothing taken last time and nothing changed
				   since: it would take nothing again. */
				continue;
			} else {
				I = group_sum(m, g);
			}
			g->occ = I;
			g->hot = false;
			if (!pfc_on(m, g))
				continue;
			double xoff, xon, headroom, react;
			thresholds(m, g, &xoff, &xon, &headroom, &react);
			if (I > xoff) {
				double x = take_arrivals(m, g, I - xoff, true);
				g->pushed += x;
				moved += x;
				if (x > 0)
					g->hot = true;
			}
		}
		if (moved < 1)
			break;
	}
}

/* The occupancy of g now, without summing again when it is known. */
static double occupancy(const struct sim_model *m, const struct ingress *g)
{
	return g->hot ? group_sum(m, g) : g->occ;
}

/* Step 3b: pause time, frames, transitions and drops of one ingress. */
static void pfc_account(struct sim_model *m, struct ingress *g, double dt,
			uint64_t dt_ns)
{
	size_t in = g->port, up = g->up;
	double xoff, xon, headroom, react;
	thresholds(m, g, &xoff, &xon, &headroom, &react);
	bool nic = g->nic;
	double W = g->arrived;
	double phi = 0;
	if (pfc_on(m, g)) {
		double I = occupancy(m, g);
		if (m->q[g->upq].blocked)
			phi = 1;
		else if (W > 0)
			phi = g->pushed / W;
		else
			phi = I >= xoff ? 1 : 0;
		if (phi > 0.999999)
			phi = 1;
		double R = g->up_refresh;
		double cycles = 0, onsets = 0, xons = 0;
		if (phi >= 1) {
			onsets = g->phi_prev < 1 ? 1 : 0;
		} else if (phi > 0) {
			cycles = phi * (1 - phi) * R * dt;
			if (cycles < 1)
				cycles = 1;
			onsets = cycles;
			xons = cycles;
		}
		if (g->phi_prev >= 1 && phi < 1)
			xons += 1;
		/* Headroom: in-flight bytes after each XOFF. */
		double over = g->up_rate * react - headroom;
		if (onsets > 0 && over > 0) {
			double lost = drop_pushed(m, g, onsets * over);
			double pk = lost / SIM_MODEL_FRAME_BYTES;
			fp_add(&m->pgdrop[in * P + g->prio], pk);
			if (nic)
				fp_add(&m->nic[in].rx_disc_phy, pk);
			else
				fp_add(&m->in_disc[in], pk);
		}
		if (nic && onsets > 0)
			m->nic[in].thres += (uint64_t)(onsets + 0.5);
		uint64_t ns = (uint64_t)(phi * (double)dt_ns + 0.5);
		if (ns > dt_ns)
			ns = dt_ns;
		uint64_t nx = (uint64_t)(xons + 0.5);
		/* Most ingresses never pause: leave their counters alone. */
		if (ns) {
			m->tx_pause_ns[in * P + g->prio] += ns;
			m->rx_pause_ns[up * P + g->prio] += ns;
		}
		if (nx) {
			m->xon_tx[in * P + g->prio] += nx;
			m->xon_rx[up * P + g->prio] += nx;
		}
	} else if (nic) {
		/* No PFC: what exceeds the buffer is dropped. */
		double I = occupancy(m, g);
		double buf = xoff + headroom;
		if (I > buf) {
			double lost = take_arrivals(m, g, I - buf, false);
			double pk = lost / SIM_MODEL_FRAME_BYTES;
			fp_add(&m->pgdrop[in * P + g->prio], pk);
			fp_add(&m->nic[in].rx_disc_phy, pk);
			fp_add(&m->nic[in].oob, pk);
		}
	}
	g->phi_prev = phi;
	/* Received: what arrived (dropped bytes included). */
	double rx = 0;
	for (size_t k = 0; k < g->n; k++)
		rx += m->d[m->gsegs[g->first + k] - 1];
	if (rx > 0)
		m->rx_bytes[in * P + g->prio] += (uint64_t)(rx + 0.5);
}

static double ecn_prob(const struct sim_model_switch_cfg *c, double q)
{
	if (q <= (double)c->ecn_kmin)
		return 0;
	if (q >= (double)c->ecn_kmax)
		return 1;
	return c->ecn_pmax * (q - (double)c->ecn_kmin) /
	       (double)(c->ecn_kmax - c->ecn_kmin);
}

/* Step 4 and transmit counters, per queue. */
static void account_queues(struct sim_model *m)
{
	for (size_t i = 0; i < m->n_q; i++) {
		struct queue *q = &m->q[i];
		if (q->rx)
			continue;
		double sent = 0, occ = 0;
		for (size_t k = 0; k < q->n; k++) {
			size_t s = m->qsegs[q->first + k];
			if (m->d[s] < 0)
				m->d[s] = 0;
			sent += m->d[s];
			occ += m->b[s];
		}
		size_t pi = q->port * P + q->prio;
		if (sent > 0)
			m->tx_bytes[pi] += (uint64_t)(sent + 0.5);
		if (q->src)
			continue;
		m->occ[pi] = occ;
		if (occ > m->wm[pi])
			m->wm[pi] = occ;
		double p = ecn_prob(&m->sw[q->node], occ);
		if (p <= 0 || sent <= 0)
			continue;
		fp_add(&m->ecn[pi], sent * p / SIM_MODEL_FRAME_BYTES);
		for (size_t k = 0; k < q->n; k++) {
			size_t s = m->qsegs[q->first + k];
			m->flows[m->seg_flow[s]].marks +=
			    m->d[s] * p / SIM_MODEL_FRAME_BYTES;
		}
	}
}

/* Step 5. */
static void dcqcn(struct sim_model *m, double dt)
{
	for (size_t i = 0; i < m->n_flows; i++) {
		struct flow *f = &m->flows[i];
		struct nic_state *src = &m->nic[f->src], *dst = &m->nic[f->dst];
		double line = f->line;
		if (!f->hops) {
			if (!m->up[f->src] && f->demand > 0)
				fp_add(&src->tx_disc_phy,
				       f->demand * dt / SIM_MODEL_FRAME_BYTES);
			continue;
		}
		size_t rxs = f->seg0 + f->hops;
		double got = m->a[rxs] / SIM_MODEL_FRAME_BYTES;
		double ce = f->marks < got ? f->marks : got;
		double cnp = 0;
		if (ce > 0) {
			fp_add(&dst->np_ecn, ce);
			if (dst->cfg.np_enabled) {
				double lim = dt / CNP_MIN_INTERVAL_S;
				cnp = ce < lim ? ce : lim;
				fp_add(&dst->np_cnp, cnp);
			}
		}
		if (cnp > 0 && src->cfg.rp_ignore_cnp) {
			fp_add(&src->rp_ignored, cnp);
		} else if (cnp > 0) {
			fp_add(&src->rp_handled, cnp);
			double alpha = got > 0 ? ce / got : 1;
			f->rate *= 1 - alpha / 2;
			if (f->rate < RP_MIN_GBPS * 1e9 / 8)
				f->rate = RP_MIN_GBPS * 1e9 / 8;
		} else {
			f->rate += RP_AI_PER_S * line * dt;
		}
		if (f->rate > f->demand)
			f->rate = f->demand;
		if (f->lost > 0) {
			double pk = f->lost / SIM_MODEL_FRAME_BYTES;
			fp_add(&dst->oos, pk);
			fp_add(&src->pse, pk);
			fp_add(&src->adp, pk);
			fp_add(&src->lat, pk / 8);
		}
		f->lost = 0;
		f->marks = 0;
	}
}

/* Step 7: the switches' PFC watchdogs, from this tick's pause ratio
 * of every lossless egress queue (PFC or injected pause from its
 * peer) and its occupancy. */
static void watchdog(struct sim_model *m, uint64_t dt_ns)
{
	if (!m->n_wd && !m->wd_any)
		return;
	m->wd_any = false;
	for (size_t i = 0; i < m->n_q; i++) {
		const struct queue *q = &m->q[i];
		if (q->rx || q->src || !lossless(m, q->prio))
			continue;
		const struct sim_port *p = port_of(m, q->port);
		const struct sim_model_switch_cfg *c = &m->sw[p->node->id];
		size_t pi = q->port * P + q->prio;
		if (!c->pfcwd_detect_ms) {
			m->wd_on[pi] = false;
			m->wd_ns[pi] = 0;
			continue;
		}
		m->wd_any = true;
		double ratio = 0;
		if (p->peer) {
			size_t peer = p->peer->id * P + q->prio;
			if (m->gmap[peer] >= 0)
				ratio = m->g[m->gmap[peer]].phi_prev;
			if (m->inj_phi[peer] > ratio)
				ratio = m->inj_phi[peer];
		}
		if (m->wd_on[pi]) {
			m->wd_quiet_ns[pi] =
			    ratio > 0 ? 0 : m->wd_quiet_ns[pi] + dt_ns;
			if (m->wd_quiet_ns[pi] >=
			    c->pfcwd_restore_ms * 1000000ull) {
				m->wd_on[pi] = false;
				m->wd_restores[pi]++;
			}
			continue;
		}
		if (ratio >= STORM_PHI && m->occ[pi] > 0)
			m->wd_ns[pi] += dt_ns;
		else
			m->wd_ns[pi] = 0;
		/* Fires past 99% of the detection time, as SONiC's does. */
		if (m->wd_ns[pi] * 100 >= c->pfcwd_detect_ms * 99000000ull) {
			m->wd_on[pi] = true;
			m->wd_storms[pi]++;
			m->wd_ns[pi] = 0;
			m->wd_quiet_ns[pi] = 0;
		}
	}
}

/* Step 6. */
static void storms(struct sim_model *m, uint64_t dt_ns)
{
	for (size_t i = 0; i < m->n_g; i++) {
		struct ingress *g = &m->g[i];
		if (!is_nic(m, g->port) || !lossless(m, g->prio))
			continue;
		struct nic_state *n = &m->nic[g->port];
		if (n->errored) {
			if (n->cfg.rx_drain > 0) {
				n->errored = false;
				n->warned = false;
				n->storm_ns = 0;
			}
			continue;
		}
		if (g->phi_prev < STORM_PHI) {
			n->storm_ns = 0;
			n->warned = false;
			continue;
		}
		n->storm_ns += dt_ns;
		uint64_t minor = n->cfg.storm_minor_ms * 1000000ull;
		uint64_t crit = n->cfg.storm_critical_ms * 1000000ull;
		if (!crit)
			continue;
		if (!n->warned && n->storm_ns >= minor) {
			n->warned = true;
			n->warn++;
		}
		if (n->storm_ns >= crit) {
			n->errored = true;
			n->err++;
		}
	}
}

int sim_model_step(struct sim_model *m, uint64_t dt_ns)
{
	if (!dt_ns || dt_ns > SIM_MODEL_MAX_TICK_NS)
		return -EINVAL;
	if (m->dirty)
		rebuild(m);
	double dt = (double)dt_ns * 1e-9;
	size_t ns = m->n_segs;
	memset(m->a, 0, (ns ? ns : 1) * sizeof(double));
	memset(m->d, 0, (ns ? ns : 1) * sizeof(double));
	memset(m->pb, 0, (ns ? ns : 1) * sizeof(double));
	for (size_t i = 0; i < m->n_flows; i++) {
		struct flow *f = &m->flows[i];
		if (f->hops)
			m->a[f->seg0] = f->rate * dt;
	}
	size_t *cand = xmalloc((m->n_g ? m->n_g : 1) * sizeof(size_t));
	find_blocked(m, cand);
	free(cand);
	forward(m, dt);
	pfc_pushback(m);
	for (size_t i = 0; i < m->n_g; i++)
		pfc_account(m, &m->g[m->gorder[2 * i + 1]], dt, dt_ns);
	account_queues(m);
	/* Injected pause: frames and time beyond what PFC already sent. */
	for (size_t i = 0; i < m->n_inj; i++) {
		const struct injection *j = &m->inj[i];
		const struct sim_port *p = port_of(m, j->port);
		if (!p->peer || !m->up[j->port])
			continue;
		int32_t gi = m->gmap[j->port * P + j->prio];
		double have = gi >= 0 ? m->g[gi].phi_prev : 0;
		double extra = j->ratio - have;
		if (extra <= 0)
			continue;
		uint64_t pns = (uint64_t)(extra * (double)dt_ns + 0.5);
		m->tx_pause_ns[j->port * P + j->prio] += pns;
		m->rx_pause_ns[p->peer->id * P + j->prio] += pns;
	}
	dcqcn(m, dt);
	storms(m, dt_ns);
	watchdog(m, dt_ns);
	m->occ_valid = true;
	m->now_ns += dt_ns;
	return 0;
}

/* ---- Flows ---- */

static int check_path(const struct sim_model *m, const struct sim_model_flow *f)
{
	if (f->path[0] != f->src || f->path_len > MAX_HOPS)
		return -EINVAL;
	for (size_t k = 0; k < f->path_len; k++) {
		if (f->path[k] >= m->n_ports)
			return -EINVAL;
		const struct sim_port *p = port_of(m, f->path[k]);
		if (!p->peer)
			return -EINVAL;
		if (k + 1 < f->path_len) {
			const struct sim_port *n = port_of(m, f->path[k + 1]);
			if (n->node != p->peer->node || !is_switch(n->node))
				return -EINVAL;
		} else if (p->peer->id != f->dst) {
			return -EINVAL;
		}
	}
	return 0;
}

int sim_model_add_flow(struct sim_model *m, const struct sim_model_flow *f)
{
	if (!f || f->src >= m->n_ports || f->dst >= m->n_ports ||
	    f->src == f->dst || !is_nic(m, f->src) || !is_nic(m, f->dst) ||
	    f->prio >= P || !(f->gbps >= 0) || m->n_flows >= INT32_MAX)
		return -EINVAL;
	if (f->path_len && (!f->path || check_path(m, f) < 0))
		return -EINVAL;
	if (m->n_flows == m->cap_flows) {
		m->cap_flows = m->cap_flows ? 2 * m->cap_flows : 64;
		m->flows =
		    xreallocarray(m->flows, m->cap_flows, sizeof *m->flows);
	}
	struct flow *n = &m->flows[m->n_flows];
	memset(n, 0, sizeof *n);
	n->src = f->src;
	n->dst = f->dst;
	n->prio = f->prio;
	n->demand = f->gbps * 1e9 / 8;
	n->rate = n->demand;
	n->line = rate_Bps(port_of(m, f->src));
	n->path = xmalloc(MAX_HOPS * sizeof(size_t));
	if (f->path_len) {
		n->xpath = xmalloc(f->path_len * sizeof(size_t));
		memcpy(n->xpath, f->path, f->path_len * sizeof(size_t));
		n->xlen = f->path_len;
	}
	m->dirty = true;
	return (int)m->n_flows++;
}

int sim_model_set_flow_demand(struct sim_model *m, int flow, double gbps)
{
	if (flow < 0 || (size_t)flow >= m->n_flows || !(gbps >= 0))
		return -EINVAL;
	struct flow *f = &m->flows[flow];
	f->demand = gbps * 1e9 / 8;
	if (f->rate > f->demand)
		f->rate = f->demand;
	return 0;
}

size_t sim_model_n_flows(const struct sim_model *m)
{
	return m->n_flows;
}

double sim_model_flow_rate(const struct sim_model *m, int flow)
{
	if (flow < 0 || (size_t)flow >= m->n_flows)
		return -1;
	return m->flows[flow].rate * 8 / 1e9;
}

int sim_model_flow_path(struct sim_model *m, int flow, const size_t **ports,
			size_t *n)
{
	if (flow < 0 || (size_t)flow >= m->n_flows)
		return -EINVAL;
	if (m->dirty)
		rebuild(m);
	*ports = m->flows[flow].path;
	*n = m->flows[flow].hops;
	return 0;
}

/* ---- Knobs ---- */

static bool switch_node(const struct sim_model *m, size_t node)
{
	return node < m->n_nodes && is_switch(sim_topo_node(m->t, node));
}

int sim_model_get_switch_cfg(const struct sim_model *m, size_t node,
			     struct sim_model_switch_cfg *cfg)
{
	if (!switch_node(m, node))
		return -EINVAL;
	*cfg = m->sw[node];
	return 0;
}

int sim_model_set_switch_cfg(struct sim_model *m, size_t node,
			     const struct sim_model_switch_cfg *cfg)
{
	if (!switch_node(m, node) || cfg->xon >= cfg->xoff ||
	    cfg->ecn_kmin > cfg->ecn_kmax || !(cfg->ecn_pmax > 0) ||
	    cfg->ecn_pmax > 1 ||
	    (cfg->pfcwd_detect_ms && !cfg->pfcwd_restore_ms))
		return -EINVAL;
	if (!m->sw[node].pfcwd_detect_ms != !cfg->pfcwd_detect_ms) {
		if (cfg->pfcwd_detect_ms)
			m->n_wd++;
		else
			m->n_wd--;
		m->wd_any = true; /* clear what the old setting left */
	}
	m->sw[node] = *cfg;
	if (m->sw[node].ecn_kmax == m->sw[node].ecn_kmin)
		m->sw[node].ecn_kmax++;
	return 0;
}

int sim_model_get_nic_cfg(const struct sim_model *m, size_t port,
			  struct sim_model_nic_cfg *cfg)
{
	if (port >= m->n_ports || !is_nic(m, port))
		return -EINVAL;
	*cfg = m->nic[port].cfg;
	return 0;
}

int sim_model_set_nic_cfg(struct sim_model *m, size_t port,
			  const struct sim_model_nic_cfg *cfg)
{
	if (port >= m->n_ports || !is_nic(m, port) || cfg->xon >= cfg->xoff ||
	    !(cfg->rx_drain >= 0 && cfg->rx_drain <= 1) ||
	    (cfg->storm_critical_ms &&
	     cfg->storm_minor_ms > cfg->storm_critical_ms))
		return -EINVAL;
	m->nic[port].cfg = *cfg;
	return 0;
}

int sim_model_set_link(struct sim_model *m, size_t port, bool up)
{
	if (port >= m->n_ports || !port_of(m, port)->peer)
		return -EINVAL;
	size_t peer = port_of(m, port)->peer->id;
	if (m->up[port] == up)
		return 0;
	size_t ends[2] = { port, peer };
	for (int k = 0; k < 2; k++) {
		m->up[ends[k]] = up;
		if (up)
			m->up_events[ends[k]]++;
		else
			m->down_events[ends[k]]++;
	}
	m->dirty = true;
	return 0;
}

bool sim_model_link_up(const struct sim_model *m, size_t port)
{
	return port < m->n_ports && m->up[port];
}

int sim_model_reboot(struct sim_model *m, size_t node)
{
	if (!switch_node(m, node))
		return -EINVAL;
	const struct sim_node *n = sim_topo_node(m->t, node);
	for (size_t j = 0; j < n->n_ports; j++) {
		size_t id = n->ports[j].id, o = id * P;
		size_t sz = P * sizeof(uint64_t);
		memset(&m->tx_bytes[o], 0, sz);
		memset(&m->rx_bytes[o], 0, sz);
		memset(&m->tx_pause_ns[o], 0, sz);
		memset(&m->rx_pause_ns[o], 0, sz);
		memset(&m->xon_tx[o], 0, sz);
		memset(&m->xon_rx[o], 0, sz);
		memset(&m->ecn[o], 0, sz);
		memset(&m->qdrop[o], 0, sz);
		memset(&m->pgdrop[o], 0, sz);
		memset(&m->occ[o], 0, P * sizeof(double));
		memset(&m->wm[o], 0, P * sizeof(double));
		memset(&m->wd_ns[o], 0, sz);
		memset(&m->wd_quiet_ns[o], 0, sz);
		memset(&m->wd_storms[o], 0, sz);
		memset(&m->wd_restores[o], 0, sz);
		memset(&m->wd_drops[o], 0, sz);
		memset(&m->wd_on[o], 0, P * sizeof(bool));
		m->in_disc[id] = m->out_disc[id] = 0;
		m->up_events[id] = m->down_events[id] = 0;
	}
	for (size_t s = 0; s < m->n_segs; s++)
		if (port_of(m, m->q[m->seg_q[s]].port)->node == n)
			m->b[s] = 0;
	m->occ_valid = false;
	m->boots[node]++;
	m->boot_ns[node] = m->now_ns;
	m->cbase[node] = 0;
	return 0;
}

void sim_model_set_counter_base(struct sim_model *m, uint64_t base)
{
	for (size_t i = 0; i < m->n_nodes; i++)
		m->cbase[i] = switch_node(m, i) ? base : 0;
}

uint64_t sim_model_counter_base(const struct sim_model *m, size_t node)
{
	return node < m->n_nodes ? m->cbase[node] : 0;
}

unsigned sim_model_boots(const struct sim_model *m, size_t node)
{
	return node < m->n_nodes ? m->boots[node] : 0;
}

uint64_t sim_model_boot_ns(const struct sim_model *m, size_t node)
{
	return node < m->n_nodes ? m->boot_ns[node] : 0;
}

int sim_model_inject_pause(struct sim_model *m, size_t port, unsigned prio,
			   double ratio)
{
	if (port >= m->n_ports || prio >= P || !(ratio >= 0 && ratio <= 1))
		return -EINVAL;
	m->inj_phi[port * P + prio] = ratio;
	for (size_t i = 0; i < m->n_inj; i++) {
		if (m->inj[i].port == port && m->inj[i].prio == prio) {
			m->inj[i].ratio = ratio;
			return 0;
		}
	}
	m->inj = xreallocarray(m->inj, m->n_inj + 1, sizeof *m->inj);
	m->inj[m->n_inj++] = (struct injection){ port, prio, ratio };
	return 0;
}

/* ---- Reads ---- */

static uint64_t frames(const struct sim_model *m, size_t port, uint64_t ns,
		       uint64_t xons)
{
	return (uint64_t)((double)ns * refresh_rate(port_of(m, port)) * 1e-9) +
	       xons;
}

/* Shifts every cumulative counter of a switch port by base (modulo
 * 2^64, as a 64-bit counter wraps); gauges stay. */
static void add_base(struct sim_model_switch_port *o, uint64_t base)
{
	for (unsigned p = 0; p < P; p++) {
		struct sim_model_switch_prio *q = &o->prio[p];
		uint64_t *c[] = { &q->rx_bytes,		  &q->rx_packets,
				  &q->tx_bytes,		  &q->tx_packets,
				  &q->pfc_rx_frames,	  &q->pfc_tx_frames,
				  &q->pfc_rx_pause_us,	  &q->pfc_tx_pause_us,
				  &q->pfc_rx_transitions, &q->queue_drops,
				  &q->pg_drops,		  &q->ecn_marked,
				  &q->pfcwd_storms,	  &q->pfcwd_restores,
				  &q->pfcwd_drops };
		for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
			*c[i] += base;
	}
	uint64_t *c[] = { &o->in_octets,      &o->in_packets,
			  &o->out_octets,     &o->out_packets,
			  &o->in_discards,    &o->out_discards,
			  &o->link_up_events, &o->link_down_events };
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
		*c[i] += base;
}

int sim_model_read_switch_port(const struct sim_model *m, size_t port,
			       struct sim_model_switch_port *out)
{
	if (port >= m->n_ports || is_nic(m, port))
		return -EINVAL;
	memset(out, 0, sizeof *out);
	for (unsigned p = 0; p < P; p++) {
		size_t i = port * P + p;
		struct sim_model_switch_prio *o = &out->prio[p];
		o->rx_bytes = m->rx_bytes[i];
		o->tx_bytes = m->tx_bytes[i];
		o->rx_packets = o->rx_bytes / SIM_MODEL_FRAME_BYTES;
		o->tx_packets = o->tx_bytes / SIM_MODEL_FRAME_BYTES;
		o->pfc_rx_frames =
		    frames(m, port, m->rx_pause_ns[i], m->xon_rx[i]);
		o->pfc_tx_frames =
		    frames(m, port, m->tx_pause_ns[i], m->xon_tx[i]);
		o->pfc_rx_pause_us = m->rx_pause_ns[i] / 1000;
		o->pfc_tx_pause_us = m->tx_pause_ns[i] / 1000;
		o->pfc_rx_transitions = m->xon_rx[i];
		o->queue_drops = m->qdrop[i] >> FP_SHIFT;
		o->pg_drops = m->pgdrop[i] >> FP_SHIFT;
		o->ecn_marked = m->ecn[i] >> FP_SHIFT;
		o->occupancy_bytes = (uint64_t)m->occ[i];
		o->watermark_bytes = (uint64_t)m->wm[i];
		o->pfcwd_storms = m->wd_storms[i];
		o->pfcwd_restores = m->wd_restores[i];
		o->pfcwd_drops = m->wd_drops[i] >> FP_SHIFT;
		o->pfcwd_stormed = m->wd_on[i];
		out->in_octets += o->rx_bytes;
		out->out_octets += o->tx_bytes;
		out->in_packets += o->rx_packets;
		out->out_packets += o->tx_packets;
	}
	out->in_discards = m->in_disc[port] >> FP_SHIFT;
	out->out_discards = m->out_disc[port] >> FP_SHIFT;
	out->link_up_events = m->up_events[port];
	out->link_down_events = m->down_events[port];
	out->link_up = m->up[port];
	uint64_t base = m->cbase[port_of(m, port)->node->id];
	if (base)
		add_base(out, base);
	return 0;
}

int sim_model_read_nic_port(const struct sim_model *m, size_t port,
			    struct sim_model_nic_port *out)
{
	if (port >= m->n_ports || !is_nic(m, port))
		return -EINVAL;
	const struct nic_state *n = &m->nic[port];
	memset(out, 0, sizeof *out);
	out->np_ecn_marked_roce_packets = n->np_ecn >> FP_SHIFT;
	out->np_cnp_sent = n->np_cnp >> FP_SHIFT;
	out->rp_cnp_handled = n->rp_handled >> FP_SHIFT;
	out->rp_cnp_ignored = n->rp_ignored >> FP_SHIFT;
	out->out_of_buffer = (uint32_t)(n->oob >> FP_SHIFT);
	out->out_of_sequence = (uint32_t)(n->oos >> FP_SHIFT);
	out->packet_seq_err = (uint32_t)(n->pse >> FP_SHIFT);
	out->local_ack_timeout_err = (uint32_t)(n->lat >> FP_SHIFT);
	out->roce_adp_retrans = (uint32_t)(n->adp >> FP_SHIFT);
	uint64_t txb = 0, rxb = 0;
	for (unsigned p = 0; p < P; p++) {
		size_t i = port * P + p;
		out->rx_prio_bytes[p] = m->rx_bytes[i];
		out->tx_prio_bytes[p] = m->tx_bytes[i];
		out->rx_prio_packets[p] =
		    m->rx_bytes[i] / SIM_MODEL_FRAME_BYTES;
		out->tx_prio_packets[p] =
		    m->tx_bytes[i] / SIM_MODEL_FRAME_BYTES;
		out->rx_prio_pause[p] =
		    frames(m, port, m->rx_pause_ns[i], m->xon_rx[i]);
		out->tx_prio_pause[p] =
		    frames(m, port, m->tx_pause_ns[i], m->xon_tx[i]);
		out->rx_prio_pause_duration[p] = m->rx_pause_ns[i] / 1000;
		out->tx_prio_pause_duration[p] = m->tx_pause_ns[i] / 1000;
		out->rx_prio_pause_transition[p] = m->xon_rx[i];
		out->rx_prio_discards[p] = m->pgdrop[i] >> FP_SHIFT;
		txb += m->tx_bytes[i];
		rxb += m->rx_bytes[i];
		out->port_xmit_packets += out->tx_prio_packets[p];
		out->port_rcv_packets += out->rx_prio_packets[p];
	}
	out->port_xmit_data = txb / 4;
	out->port_rcv_data = rxb / 4;
	out->rx_discards_phy = n->rx_disc_phy >> FP_SHIFT;
	out->tx_discards_phy = n->tx_disc_phy >> FP_SHIFT;
	out->rx_buffer_passed_thres_phy = n->thres;
	out->tx_pause_storm_warning_events = n->warn;
	out->tx_pause_storm_error_events = n->err;
	out->link_down_events_phy = m->down_events[port];
	out->link_up = m->up[port];
	return 0;
}

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
 * The background (model_bg.c, off unless set) adds its statistical
 * counts to the same counters after each step.
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

#include "model_int.h"

#include "mem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	m->in_err = xcalloc(np, sizeof(uint64_t));
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

void sim_model_free(struct sim_model *m)
{
	if (!m)
		return;
	model_free_segments(m);
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
	free(m->in_err);
	model_bg_free(m);
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
		model_rebuild(m);
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
	if (m->bg)
		model_bg_step(m, dt_ns);
	return 0;
}

/*
 * The counter model's controls and reads (see model.c for the model):
 * flows and their demand, switch and NIC settings, links, reboots,
 * injected pause, and the counters read back per port, scaled and based
 * the way sim_model_read_*() promise in model.h.
 *
 * Like the rest of the model, one thread at a time; changes that move
 * routes mark the model dirty for the next step's rebuild.
 */
#include "config.h"

#include "model_int.h"

#include "mem.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
		model_rebuild(m);
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
		m->in_err[id] = 0;
		m->up_events[id] = m->down_events[id] = 0;
	}
	for (size_t s = 0; s < m->n_segs; s++)
		if (port_of(m, m->q[m->seg_q[s]].port)->node == n)
			m->b[s] = 0;
	m->occ_valid = false;
	m->boots[node]++;
	m->boot_ns[node] = m->now_ns;
	m->cbase[node] = 0;
	model_bg_reboot(m, node);
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
	uint64_t *c[] = { &o->in_octets,       &o->in_packets,
			  &o->out_octets,      &o->out_packets,
			  &o->in_discards,     &o->out_discards,
			  &o->in_errors,       &o->link_up_events,
			  &o->link_down_events };
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
		o->occupancy_bytes = (uint64_t)m->occ[i] + model_bg_occ(m, i);
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
	out->in_errors = m->in_err[port];
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
	out->rx_crc_errors_phy = n->crc;
	out->rx_buffer_passed_thres_phy = n->thres;
	out->tx_pause_storm_warning_events = n->warn;
	out->tx_pause_storm_error_events = n->err;
	out->link_down_events_phy = m->down_events[port];
	out->link_up = m->up[port];
	return 0;
}

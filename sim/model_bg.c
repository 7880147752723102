/*
 * The counter model's background: what a healthy loaded fabric shows
 * beside the fluid model's physics (model.h, "Background"; the figures
 * and where they come from are in doc/fabsim-scenarios.md, "The
 * background"). A statistical layer: it adds counts to the model's
 * counter arrays (so reads, counter bases and reboots treat them as the
 * model's own) and never moves bytes, so the fluid dynamics stay those
 * of the model without it.
 *
 * Per port and step, O(ports):
 *  - load u: the bytes the port received this step over what its line
 *    could carry (all priorities);
 *  - microburst episodes: a loaded port of a lossless fabric starts one
 *    with probability scale x role weight x u^2 x dt / 60 s, for 2-6 s,
 *    with a pause ratio 10^(-5 + 3 x^2), x uniform: in [1e-5, 1e-2].
 *    Each step of it has Poisson(ratio dt / 35 us) microbursts of 10-60
 *    us pause each: the port (a switch ingress or a NIC) sends XOFF, the
 *    peer receives it; time and one XON per microburst go to both ends,
 *    so frames = time x refresh + XONs as the model's reads count them,
 *    capped at 1% of the step (and at what the physics left unpaused).
 *    The egress queue that feeds the congested receiver marks 1-16
 *    packets per microburst and shows tens of KiB queued; the receiver
 *    NIC counts the marks and sends one CNP per microburst to the
 *    senders of its flows on that priority (round robin), which handle
 *    (or ignore) them.
 *  - receive discards (ACL, unknown destination, TTL, runts) at a steady
 *    rate per chosen switch port, drops on a lossy queue (queue_drops and
 *    out_discards) per chosen switch port, FCS errors at the receiving
 *    end of chosen links in proportion to load: Poisson counts per step.
 * Events, fabric-wide: a flap of one non-critical link (switch to switch,
 * both switches keeping another such link up), down for 100-500 ms,
 * never the same link twice within 60 s; a switch reboot, none in the
 * first 2 minutes. Both go through sim_model_set_link/sim_model_reboot
 * and are logged (sim_model_bg_event).
 *
 * Random numbers: splitmix64 streams, one per port seeded from the
 * model seed and the port id, and one for the events; no wall clock.
 * Ownership and threads: the model's (struct model_bg hangs off
 * struct sim_model, freed with it).
 */
#include "config.h"

#include "model_int.h"

#include "mem.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_S	 1000000000ull
#define MB_BASE_S	 60.0 /* a fully loaded port's mean wait, weight 1 */
#define MB_MIN_S	 2.0  /* episode length */
#define MB_MAX_S	 6.0
#define MB_RATIO_MIN	 1e-5	 /* pause ratio of an episode */
#define MB_RATIO_DECADES 3.0	 /* ... up to 1e-2 */
#define MB_RATIO_CAP	 0.01	 /* of any step */
#define MB_MEAN_NS	 35000.0 /* mean pause of one microburst */
#define MB_MIN_NS	 10000.0
#define MB_SPAN_NS	 50000.0 /* 10..60 us */
#define MB_MIN_LOAD	 0.01
#define MB_MAX_SENDERS	 4
#define DISC_MIN_PPS	 0.01	 /* receive discards, log-uniform */
#define DISC_DECADES	 2.69897 /* log10(5 / 0.01) */
#define LOSSY_MIN_PPS	 0.01	 /* lossy queue drops, log-uniform */
#define LOSSY_DECADES	 2.0	 /* up to 1 pps */
#define ERR_MIN_PS	 0.001	 /* FCS errors at full load */
#define ERR_DECADES	 3.0	 /* up to 1/s */
#define FLAP_MIN_NS	 100000000ull
#define FLAP_SPAN_NS	 400000000ull
#define FLAP_GAP_NS	 (60 * NS_PER_S)
#define REBOOT_AFTER_NS	 (120 * NS_PER_S)
#define PICK_TRIES	 16

enum role { R_NONE, R_NIC, R_DOWN, R_UP, R_SPINE };
/* Microburst weight per role: where queues build under load. */
static const double role_weight[] = { 0, 0.25, 0.5, 1.0, 0.5 };

struct bg_port {
	uint64_t rng;
	uint64_t last_rx; /* received bytes (all priorities) at the last step */
	float disc_pps, lossy_pps, err_ps;
	int32_t ep; /* active episode, -1 */
	uint8_t role;
};

struct episode {
	size_t port, peer; /* XOFF sender, paused upstream */
	size_t q;	   /* egress queue's port that marks, NONE */
	size_t r;	   /* receiving NIC, NONE */
	unsigned prio, n_snd, next_snd;
	size_t snd[MB_MAX_SENDERS];
	uint64_t end_ns;
	double ratio;
};

struct model_bg {
	struct sim_model_background cfg;
	struct bg_port *port;
	uint32_t *occ; /* port x P: bytes queued, gauge */
	struct episode *ep;
	size_t n_ep, cap_ep;
	int lossy_prio; /* -1: none */
	uint64_t rng;	/* events */
	uint64_t next_flap, next_reboot, up_at;
	size_t down_port; /* held down by a flap, NONE */
	struct sim_model_bg_event *ev;
	size_t n_ev, cap_ev;
	uint64_t count[SIM_MODEL_BG_KINDS];
	/* Flows by destination NIC (CSR), rebuilt when flows are added. */
	size_t idx_flows;
	size_t *by_dst_first, *by_dst;
};

/* ---- Random numbers ---- */

static uint64_t next(uint64_t *st)
{
	*st += 0x9e3779b97f4a7c15ull;
	return splitmix(*st);
}

/* Uniform in [0, 1). */
static double unif(uint64_t *st)
{
	return (double)(next(st) >> 11) * 0x1p-53;
}

static double gauss(uint64_t *st)
{
	double a = unif(st), b = unif(st);
	return sqrt(-2 * log(1 - a)) * cos(6.283185307179586 * b);
}

static uint64_t poisson(uint64_t *st, double mean)
{
	if (!(mean > 0))
		return 0;
	if (mean > 30) {
		double x = mean + sqrt(mean) * gauss(st) + 0.5;
		return x < 0 ? 0 : (uint64_t)x;
	}
	double lim = exp(-mean), p = unif(st);
	uint64_t k = 0;
	while (p > lim) {
		k++;
		p *= unif(st);
	}
	return k;
}

/* A per-port trait draw, independent of the stream's position. */
static double trait(const struct sim_model *m, size_t port, uint64_t salt)
{
	uint64_t h = splitmix(splitmix(m->seed ^ salt) + port);
	return (double)(h >> 11) * 0x1p-53;
}

/* ---- Configuration ---- */

void sim_model_background_defaults(struct sim_model_background *b)
{
	b->enabled = true;
	b->microburst_scale = 1;
	b->discard_port_fraction = 0.2;
	b->lossy_drop_port_fraction = 0.1;
	b->error_link_fraction = 0.03;
	b->flap_mean_s = 300;
	b->reboot_mean_s = 1800;
}

static bool frac_ok(double f)
{
	return f >= 0 && f <= 1;
}

static enum role role_of(const struct sim_model *m, size_t i)
{
	const struct sim_port *p = port_of(m, i);
	if (!p->peer)
		return R_NONE;
	if (is_nic(m, i))
		return R_NIC;
	if (p->peer->node->kind == SIM_NODE_HOST)
		return R_DOWN;
	return p->node->kind == SIM_NODE_LEAF ? R_UP : R_SPINE;
}

/* Each port's role and steady rates, from the seed and its id (so they
 * do not depend on when the background was set). */
static void set_traits(struct sim_model *m, struct model_bg *bg)
{
	const struct sim_model_background *c = &bg->cfg;
	for (size_t i = 0; i < m->n_ports; i++) {
		struct bg_port *bp = &bg->port[i];
		const struct sim_port *p = port_of(m, i);
		bp->role = (uint8_t)role_of(m, i);
		bp->disc_pps = bp->lossy_pps = bp->err_ps = 0;
		if (bp->role == R_NONE)
			continue;
		if (!is_nic(m, i) && trait(m, i, 1) < c->discard_port_fraction)
			bp->disc_pps =
			    (float)(DISC_MIN_PPS *
				    pow(10, DISC_DECADES * trait(m, i, 2)));
		if (!is_nic(m, i) && bg->lossy_prio >= 0 &&
		    trait(m, i, 3) < c->lossy_drop_port_fraction)
			bp->lossy_pps =
			    (float)(LOSSY_MIN_PPS *
				    pow(10, LOSSY_DECADES * trait(m, i, 4)));
		/* Per link: decided at its lower id, errors at one end. */
		size_t lo = i < p->peer->id ? i : p->peer->id;
		if (trait(m, lo, 5) < c->error_link_fraction &&
		    (trait(m, lo, 6) < 0.5) == (i == lo))
			bp->err_ps =
			    (float)(ERR_MIN_PS *
				    pow(10, ERR_DECADES * trait(m, lo, 7)));
	}
}

static uint64_t exp_ns(uint64_t *st, double mean_s)
{
	double x = -log(1 - unif(st)) * mean_s * 1e9;
	return x > 1e18 ? (uint64_t)1e18 : (uint64_t)x;
}

static void log_event(struct model_bg *bg, uint64_t at,
		      enum sim_model_bg_kind kind, size_t node, size_t port)
{
	if (bg->n_ev == bg->cap_ev) {
		bg->cap_ev = bg->cap_ev ? 2 * bg->cap_ev : 16;
		bg->ev = xreallocarray(bg->ev, bg->cap_ev, sizeof *bg->ev);
	}
	bg->ev[bg->n_ev++] =
	    (struct sim_model_bg_event){ at, kind, node, port };
	bg->count[kind]++;
}

static void end_episode(struct model_bg *bg, size_t k)
{
	struct episode *e = &bg->ep[k];
	if (e->q != NONE)
		bg->occ[e->q * P + e->prio] = 0;
	bg->port[e->port].ep = -1;
	if (k + 1 < bg->n_ep) {
		bg->ep[k] = bg->ep[bg->n_ep - 1];
		bg->port[bg->ep[k].port].ep = (int32_t)k;
	}
	bg->n_ep--;
}

/* Brings up the link a flap holds down. */
static void release_link(struct sim_model *m, struct model_bg *bg)
{
	if (bg->down_port == NONE)
		return;
	size_t p = bg->down_port;
	bg->down_port = NONE;
	if (m->up[p])
		return;
	sim_model_set_link(m, p, true);
	log_event(bg, m->now_ns, SIM_MODEL_BG_LINK_UP, port_of(m, p)->node->id,
		  p);
}

static struct model_bg *bg_new(struct sim_model *m)
{
	struct model_bg *bg = xcalloc(1, sizeof *bg);
	size_t np = m->n_ports ? m->n_ports : 1;
	bg->port = xcalloc(np, sizeof *bg->port);
	bg->occ = xcalloc(np * P, sizeof *bg->occ);
	bg->down_port = NONE;
	bg->lossy_prio = -1;
	for (unsigned p = 0; p < P; p++)
		if (!lossless(m, p)) {
			bg->lossy_prio = (int)p;
			break;
		}
	bg->rng = splitmix(m->seed ^ 0x6267u);
	for (size_t i = 0; i < m->n_ports; i++) {
		bg->port[i].rng = splitmix(splitmix(m->seed ^ 0x6270u) + i);
		bg->port[i].ep = -1;
	}
	sim_model_background_defaults(&bg->cfg);
	bg->cfg.enabled = false;
	return bg;
}

int sim_model_set_background(struct sim_model *m,
			     const struct sim_model_background *b)
{
	if (!(b->microburst_scale >= 0 && b->microburst_scale <= 100) ||
	    !frac_ok(b->discard_port_fraction) ||
	    !frac_ok(b->lossy_drop_port_fraction) ||
	    !frac_ok(b->error_link_fraction) || !(b->flap_mean_s >= 0) ||
	    !(b->reboot_mean_s >= 0) || !isfinite(b->flap_mean_s) ||
	    !isfinite(b->reboot_mean_s))
		return -EINVAL;
	if (!m->bg)
		m->bg = bg_new(m);
	struct model_bg *bg = m->bg;
	bool was = bg->cfg.enabled;
	bg->cfg = *b;
	set_traits(m, bg);
	if (!b->enabled) {
		while (bg->n_ep)
			end_episode(bg, bg->n_ep - 1);
		release_link(m, bg);
		return 0;
	}
	if (!was) {
		for (size_t i = 0; i < m->n_ports; i++) {
			uint64_t s = 0;
			for (unsigned p = 0; p < P; p++)
				s += m->rx_bytes[i * P + p];
			bg->port[i].last_rx = s;
		}
	}
	uint64_t now = m->now_ns;
	bg->next_flap =
	    b->flap_mean_s > 0 ? now + exp_ns(&bg->rng, b->flap_mean_s) : 0;
	bg->next_reboot = 0;
	if (b->reboot_mean_s > 0) {
		uint64_t from = now > REBOOT_AFTER_NS ? now : REBOOT_AFTER_NS;
		bg->next_reboot = from + exp_ns(&bg->rng, b->reboot_mean_s);
	}
	return 0;
}

void sim_model_get_background(const struct sim_model *m,
			      struct sim_model_background *b)
{
	if (m->bg) {
		*b = m->bg->cfg;
		return;
	}
	sim_model_background_defaults(b);
	b->enabled = false;
}

size_t sim_model_bg_n_events(const struct sim_model *m)
{
	return m->bg ? m->bg->n_ev : 0;
}

const struct sim_model_bg_event *sim_model_bg_event(const struct sim_model *m,
						    size_t i)
{
	return m->bg && i < m->bg->n_ev ? &m->bg->ev[i] : NULL;
}

uint64_t sim_model_bg_count(const struct sim_model *m,
			    enum sim_model_bg_kind kind)
{
	if (!m->bg || (unsigned)kind >= SIM_MODEL_BG_KINDS)
		return 0;
	return m->bg->count[kind];
}

void model_bg_free(struct sim_model *m)
{
	struct model_bg *bg = m->bg;
	if (!bg)
		return;
	free(bg->port);
	free(bg->occ);
	free(bg->ep);
	free(bg->ev);
	free(bg->by_dst_first);
	free(bg->by_dst);
	free(bg);
	m->bg = NULL;
}

uint64_t model_bg_occ(const struct sim_model *m, size_t pi)
{
	return m->bg ? m->bg->occ[pi] : 0;
}

void model_bg_reboot(struct sim_model *m, size_t node)
{
	struct model_bg *bg = m->bg;
	if (!bg)
		return;
	const struct sim_node *n = sim_topo_node(m->t, node);
	for (size_t j = 0; j < n->n_ports; j++)
		memset(&bg->occ[n->ports[j].id * P], 0, P * sizeof *bg->occ);
}

/* ---- Microbursts ---- */

/* Flows by destination, for the senders a receiver's CNPs go to. */
static void index_flows(struct sim_model *m, struct model_bg *bg)
{
	if (bg->by_dst_first && bg->idx_flows == m->n_flows)
		return;
	size_t np = m->n_ports;
	free(bg->by_dst_first);
	free(bg->by_dst);
	bg->by_dst_first = xcalloc(np + 1, sizeof(size_t));
	bg->by_dst = xcalloc(m->n_flows ? m->n_flows : 1, sizeof(size_t));
	for (size_t f = 0; f < m->n_flows; f++)
		bg->by_dst_first[m->flows[f].dst + 1]++;
	for (size_t i = 0; i < np; i++)
		bg->by_dst_first[i + 1] += bg->by_dst_first[i];
	size_t *fill = xcalloc(np ? np : 1, sizeof(size_t));
	for (size_t f = 0; f < m->n_flows; f++) {
		size_t d = m->flows[f].dst;
		bg->by_dst[bg->by_dst_first[d] + fill[d]++] = f;
	}
	free(fill);
	bg->idx_flows = m->n_flows;
}

/* The lossless priority port p received most on (cumulative), -1. */
static int busiest_prio(const struct sim_model *m, size_t p)
{
	int best = -1;
	uint64_t most = 0;
	for (unsigned q = 0; q < P; q++) {
		if (!lossless(m, q))
			continue;
		if (best < 0 || m->rx_bytes[p * P + q] > most) {
			best = (int)q;
			most = m->rx_bytes[p * P + q];
		}
	}
	return best;
}

/* Of node n's cabled, up ports other than skip (host-facing ones only if
 * hosts), the one that sent most on prio; NONE if there is none. */
static size_t busiest_egress(const struct sim_model *m,
			     const struct sim_node *n, size_t skip,
			     unsigned prio, bool hosts)
{
	size_t best = NONE;
	uint64_t most = 0;
	for (size_t j = 0; j < n->n_ports; j++) {
		const struct sim_port *p = &n->ports[j];
		if (p->id == skip || !p->peer || !m->up[p->id])
			continue;
		if (hosts && p->peer->node->kind != SIM_NODE_HOST)
			continue;
		uint64_t b = m->tx_bytes[p->id * P + prio];
		if (best == NONE || b > most) {
			best = p->id;
			most = b;
		}
	}
	return best;
}

/* Where an episode at ingress i marks (the egress queue feeding the
 * congested receiver) and which NIC receives. */
static void congestion_point(const struct sim_model *m, struct episode *e)
{
	const struct sim_port *p = port_of(m, e->port);
	e->q = e->r = NONE;
	if (is_nic(m, e->port)) {
		e->q = e->peer;
		e->r = e->port;
		return;
	}
	const struct sim_node *n = p->node;
	e->q = busiest_egress(m, n, e->port, e->prio, true);
	if (e->q == NONE)
		e->q = busiest_egress(m, n, e->port, e->prio, false);
	if (e->q == NONE)
		return;
	const struct sim_port *qp = port_of(m, e->q);
	if (is_nic(m, qp->peer->id)) {
		e->r = qp->peer->id;
		return;
	}
	size_t d = busiest_egress(m, qp->peer->node, NONE, e->prio, true);
	if (d != NONE)
		e->r = port_of(m, d)->peer->id;
}

static void start_episode(struct sim_model *m, struct model_bg *bg, size_t i)
{
	struct bg_port *bp = &bg->port[i];
	int prio = busiest_prio(m, i);
	if (prio < 0)
		return;
	if (bg->n_ep == bg->cap_ep) {
		bg->cap_ep = bg->cap_ep ? 2 * bg->cap_ep : 16;
		bg->ep = xreallocarray(bg->ep, bg->cap_ep, sizeof *bg->ep);
	}
	struct episode *e = &bg->ep[bg->n_ep];
	memset(e, 0, sizeof *e);
	e->port = i;
	e->peer = port_of(m, i)->peer->id;
	e->prio = (unsigned)prio;
	double len = MB_MIN_S + (MB_MAX_S - MB_MIN_S) * unif(&bp->rng);
	e->end_ns = m->now_ns + (uint64_t)(len * 1e9);
	/* Log-uniform-ish, skewed down: median 10^-4.25, 1 in 11 above
	   10^-2.5. Load makes episodes likelier, not stronger. */
	double x = unif(&bp->rng);
	x *= x;
	e->ratio = MB_RATIO_MIN * pow(10, MB_RATIO_DECADES * x);
	congestion_point(m, e);
	/* A pause with no queue building behind it would have no cause. */
	if (e->q == NONE)
		return;
	if (e->r != NONE) {
		index_flows(m, bg);
		size_t a = bg->by_dst_first[e->r],
		       b = bg->by_dst_first[e->r + 1];
		for (size_t k = a; k < b && e->n_snd < MB_MAX_SENDERS; k++) {
			const struct flow *f = &m->flows[bg->by_dst[k]];
			if (f->prio == e->prio && f->rate > 0)
				e->snd[e->n_snd++] = f->src;
		}
	}
	bp->ep = (int32_t)bg->n_ep++;
	bg->count[SIM_MODEL_BG_MICROBURST]++;
}

/* ECN marks, CNPs and the queue the microbursts of e left this step. */
static void mark(struct sim_model *m, struct model_bg *bg, struct episode *e,
		 uint64_t n)
{
	uint64_t *rng = &bg->port[e->port].rng;
	size_t qi = e->q * P + e->prio;
	if (!n) {
		bg->occ[qi] = 0;
		return;
	}
	uint64_t marks = n + (uint64_t)(unif(rng) * 15.0 * (double)n + 0.5);
	m->ecn[qi] += marks << FP_SHIFT;
	double occ = (8 + 56 * unif(rng)) * KIB;
	bg->occ[qi] = (uint32_t)occ;
	const struct sim_node *qn = port_of(m, e->q)->node;
	/* Marks mean the queue passed Kmin inside the step. */
	double peak = (double)m->sw[qn->id].ecn_kmin + 32 * KIB * unif(rng);
	if (peak < occ)
		peak = occ;
	if (m->occ[qi] + peak > m->wm[qi])
		m->wm[qi] = m->occ[qi] + peak;
	if (e->r == NONE)
		return;
	struct nic_state *r = &m->nic[e->r];
	r->np_ecn += marks << FP_SHIFT;
	if (!r->cfg.np_enabled || !e->n_snd)
		return;
	/* One CNP per microburst, to the senders in turn. */
	r->np_cnp += n << FP_SHIFT;
	for (uint64_t k = 0; k < n; k++) {
		struct nic_state *s = &m->nic[e->snd[e->next_snd]];
		e->next_snd = (e->next_snd + 1) % e->n_snd;
		if (s->cfg.rp_ignore_cnp)
			s->rp_ignored += 1u << FP_SHIFT;
		else
			s->rp_handled += 1u << FP_SHIFT;
	}
}

/* One step of episode k; false when it ended. */
static bool run_episode(struct sim_model *m, struct model_bg *bg, size_t k,
			uint64_t dt_ns)
{
	struct episode *e = &bg->ep[k];
	if (m->now_ns >= e->end_ns || !m->up[e->port] || !m->up[e->peer] ||
	    (e->q != NONE && !m->up[e->q])) {
		end_episode(bg, k);
		return false;
	}
	uint64_t *rng = &bg->port[e->port].rng;
	size_t pi = e->port * P + e->prio;
	/* What the physics paused already this step is left alone. */
	int32_t g = m->gmap[pi];
	double phys = (g >= 0 ? m->g[g].phi_prev : 0) + m->inj_phi[pi];
	uint64_t n = 0, ns = 0;
	if (phys <= 0) {
		double d = MB_MIN_NS + MB_SPAN_NS * unif(rng);
		n = poisson(rng, e->ratio * (double)dt_ns / MB_MEAN_NS);
		double cap = MB_RATIO_CAP * (double)dt_ns;
		double t = (double)n * d;
		ns = (uint64_t)(t < cap ? t : cap);
		if (n && !ns)
			n = 0;
	}
	if (n) {
		m->tx_pause_ns[pi] += ns;
		m->rx_pause_ns[e->peer * P + e->prio] += ns;
		m->xon_tx[pi] += n;
		m->xon_rx[e->peer * P + e->prio] += n;
	}
	if (e->q != NONE)
		mark(m, bg, e, n);
	return true;
}

static void microbursts(struct sim_model *m, struct model_bg *bg, size_t i,
			double u, double dt)
{
	struct bg_port *bp = &bg->port[i];
	if (bp->ep >= 0 || u < MB_MIN_LOAD || !m->lossless_mask)
		return;
	double p = bg->cfg.microburst_scale * role_weight[bp->role] * u * u *
		   dt / MB_BASE_S;
	if (unif(&bp->rng) < p)
		start_episode(m, bg, i);
}

/* ---- Discards and errors ---- */

static void steady(struct sim_model *m, struct model_bg *bg, size_t i, double u,
		   double dt)
{
	struct bg_port *bp = &bg->port[i];
	uint64_t k;
	if (bp->disc_pps > 0 && (k = poisson(&bp->rng, bp->disc_pps * dt)))
		m->in_disc[i] += k << FP_SHIFT;
	if (bp->lossy_pps > 0 && (k = poisson(&bp->rng, bp->lossy_pps * dt))) {
		m->qdrop[i * P + (unsigned)bg->lossy_prio] += k << FP_SHIFT;
		m->out_disc[i] += k << FP_SHIFT;
	}
	if (bp->err_ps > 0 && u > 0 &&
	    (k = poisson(&bp->rng, bp->err_ps * u * dt))) {
		if (is_nic(m, i))
			m->nic[i].crc += k;
		else
			m->in_err[i] += k;
	}
}

/* ---- Events ---- */

/* Up links from switch node n to other switches. */
static unsigned fabric_links(const struct sim_model *m,
			     const struct sim_node *n)
{
	unsigned c = 0;
	for (size_t j = 0; j < n->n_ports; j++) {
		const struct sim_port *p = &n->ports[j];
		c += p->peer && is_switch(p->peer->node) && m->up[p->id];
	}
	return c;
}

static bool flapped_lately(const struct sim_model *m, const struct model_bg *bg,
			   size_t a, size_t b)
{
	for (size_t k = bg->n_ev; k-- > 0;) {
		const struct sim_model_bg_event *e = &bg->ev[k];
		if (e->at_ns + FLAP_GAP_NS <= m->now_ns)
			break;
		if (e->kind == SIM_MODEL_BG_LINK_DOWN &&
		    (e->port == a || e->port == b))
			return true;
	}
	return false;
}

static void flap(struct sim_model *m, struct model_bg *bg)
{
	for (int t = 0; t < PICK_TRIES && m->n_ports; t++) {
		size_t i = (size_t)(unif(&bg->rng) * (double)m->n_ports);
		const struct sim_port *p = port_of(m, i);
		if (is_nic(m, i) || !p->peer || !is_switch(p->peer->node) ||
		    !m->up[i] || fabric_links(m, p->node) < 2 ||
		    fabric_links(m, p->peer->node) < 2 ||
		    flapped_lately(m, bg, i, p->peer->id))
			continue;
		sim_model_set_link(m, i, false);
		log_event(bg, m->now_ns, SIM_MODEL_BG_LINK_DOWN, p->node->id,
			  i);
		bg->down_port = i;
		bg->up_at = m->now_ns + FLAP_MIN_NS +
			    (uint64_t)(unif(&bg->rng) * (double)FLAP_SPAN_NS);
		return;
	}
}

static void reboot(struct sim_model *m, struct model_bg *bg)
{
	for (int t = 0; t < PICK_TRIES && m->n_nodes; t++) {
		size_t n = (size_t)(unif(&bg->rng) * (double)m->n_nodes);
		if (!is_switch(sim_topo_node(m->t, n)))
			continue;
		sim_model_reboot(m, n);
		log_event(bg, m->now_ns, SIM_MODEL_BG_REBOOT, n, NONE);
		return;
	}
}

static void events(struct sim_model *m, struct model_bg *bg)
{
	const struct sim_model_background *c = &bg->cfg;
	uint64_t now = m->now_ns;
	if (bg->down_port != NONE && now >= bg->up_at)
		release_link(m, bg);
	if (c->flap_mean_s > 0 && now >= bg->next_flap) {
		if (bg->down_port == NONE)
			flap(m, bg);
		bg->next_flap = now + exp_ns(&bg->rng, c->flap_mean_s);
	}
	if (c->reboot_mean_s > 0 && now >= bg->next_reboot) {
		reboot(m, bg);
		bg->next_reboot = now + exp_ns(&bg->rng, c->reboot_mean_s);
	}
}

void model_bg_step(struct sim_model *m, uint64_t dt_ns)
{
	struct model_bg *bg = m->bg;
	if (!bg || !bg->cfg.enabled)
		return;
	double dt = (double)dt_ns * 1e-9;
	for (size_t k = 0; k < bg->n_ep;)
		k += run_episode(m, bg, k, dt_ns);
	for (size_t i = 0; i < m->n_ports; i++) {
		struct bg_port *bp = &bg->port[i];
		if (bp->role == R_NONE)
			continue;
		uint64_t s = 0;
		for (unsigned p = 0; p < P; p++)
			s += m->rx_bytes[i * P + p];
		uint64_t d = s >= bp->last_rx ? s - bp->last_rx : s;
		bp->last_rx = s;
		if (!m->up[i])
			continue;
		double u = (double)d / (rate_Bps(port_of(m, i)) * dt);
		if (bg->cfg.microburst_scale > 0)
			microbursts(m, bg, i, u > 1 ? 1 : u, dt);
		steady(m, bg, i, u > 1 ? 1 : u, dt);
	}
	/* Last: a reboot zeroes what this step added on its ports. */
	events(m, bg);
}

/*
 * rules: the rule engine (the contract is in rules.h; the detections
 * and their reasons in doc/rules.md).
 *
 * The view. Every (device, port) the store or the link table knows gets
 * a stable port id; per-port and per-(port, priority) figures live in
 * flat arrays indexed by it (struct-of-arrays, grown only when ports
 * appear); what only lossless priorities use is stored by lane (lix), so
 * a port's figures there sit together. A slot map remembers, per store slot,
 * which port, field and priority a series feeds and the slot generation it was
 * classified at, so a tick is one lock-free pass over the store's dense figures
 * (store_figs: 16 bytes a slot, not the 128-byte records) with no
 * lookups: check the generation still matches, fold the rate into its
 * field (sum or max). A slot whose generation changed (withdrawn and
 * reused) is classified again from its key (store_slot_key, the only
 * locked read). The figures carry the slot's arrival time and interval,
 * so staleness is the store's rule (store_stale_rule) applied here.
 *
 * The pause graph, per lossless priority q. Port x "pauses" its peer y
 * with weight max(tx_ratio(x), rx_ratio(y)): each end's view of the same
 * link, whichever reports. A ratio is the pause time rate (s/s) when a
 * duration counter exists, else frames/s over the refresh rate that
 * holds a priority paused at the link's speed (speed / (512 bits x
 * 0xffff quanta), domain.md 4.1). A device is paused when one of its
 * ports is held paused. A root is a device that pauses a peer while not
 * being paused itself: the pause starts there (a stalled NIC, or a
 * congested egress queue on a switch). From each root a breadth-first
 * walk over "paused port -> its device -> that device's pausing ports ->
 * their peers" gives the pause tree with hop depths. Paused devices no
 * root reaches can only be waiting on each other: a depth-first search
 * among them finds the cycles (deadlock candidates).
 *
 * Incidents. Rules assert (kind, origin) with subjects, evidence and a
 * score every tick the condition holds; the lifecycle pass turns
 * assertions into pending -> firing -> resolved. A condition's first
 * sighting counts the rate's own window (one sample interval), so a
 * for-duration no longer than the interval fires on the first tick:
 * the rate already covers that much time. Where a sample shows one
 * pause still on at its end (pause_tail: its frames are those of one
 * unbroken pause), a storm or deadlock counts from that pause's start
 * instead: a storm fires on the sample that saw it begin, once the
 * pause is storm_for old, rather than one sample later when a whole
 * window is paused.
 *
 * Ports of targets removed from the config (their series withdrawn,
 * their links gone) leave the view (port_present): they are not
 * counted and their incidents clear instead of being held.
 */
#include "config.h"

#include "rules.h"

#include "rules_int.h"

#include "cfg.h"
#include "clock.h"
#include "counters.h"
#include "health.h"
#include "links.h"
#include "log.h"
#include "mem.h"
#include "store.h"
#include "units.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const struct cmap cmaps[FM_C__COUNT] = {
	[FM_C_PFC_TX_PAUSE] = { M_PRIO, F_TX_PAUSE, V_RATE, true },
	[FM_C_PFC_RX_PAUSE] = { M_PRIO, F_RX_PAUSE, V_RATE, true },
	[FM_C_PFC_TX_FRAMES] = { M_PRIO, F_TX_FRAMES, V_RATE, true },
	[FM_C_PFC_RX_FRAMES] = { M_PRIO, F_RX_FRAMES, V_RATE, true },
	[FM_C_PRIO_PACKETS_TX] = { M_PRIO, F_TX_PKTS, V_RATE, false },
	[FM_C_QUEUE_TX_PACKETS] = { M_PRIO, F_TX_PKTS, V_RATE, false },
	[FM_C_PRIO_DISCARDS_RX] = { M_PRIO, F_DROPS, V_RATE, false },
	[FM_C_PG_DROPS] = { M_PRIO, F_DROPS, V_RATE, false },
	[FM_C_QUEUE_DROPS] = { M_PRIO, F_DROPS, V_RATE, false },
	[FM_C_PFC_WD_DROPS_RX] = { M_PRIO, F_DROPS, V_RATE, false },
	[FM_C_PFC_WD_DROPS_TX] = { M_PRIO, F_DROPS, V_RATE, false },
	[FM_C_ECN_MARKED] = { M_PRIO, F_ECN, V_RATE, false },
	[FM_C_QUEUE_OCCUPANCY] = { M_PRIO, F_OCC, V_GAUGE, false },
	[FM_C_PFC_WD_STORMS] = { M_PRIO, F_WD, V_RATE, false },
	[FM_C_PFC_WD_STORMED] = { M_PRIO, F_WD, V_GAUGE, false },
	[FM_C_LINK_SPEED] = { M_PORT, P_SPEED, V_GAUGE, false },
	[FM_C_LINK_UP] = { M_PORT, P_LINK_UP, V_GAUGE, false },
	[FM_C_LINK_DOWN_EVENTS] = { M_PORT, P_DOWN_TOTAL, V_TOTAL, false },
	[FM_C_ROCE_CE_RECEIVED] = { M_PORT, P_CE, V_RATE, false },
	[FM_C_CNP_SENT] = { M_PORT, P_CNP_SENT, V_RATE, false },
	[FM_C_CNP_HANDLED] = { M_PORT, P_CNP_HANDLED, V_RATE, false },
	[FM_C_CNP_IGNORED] = { M_PORT, P_CNP_IGNORED, V_RATE, false },
	[FM_C_NIC_STORM_WARNINGS] = { M_PORT, P_STORM_WARN, V_RATE, false },
	[FM_C_NIC_STORM_ERRORS] = { M_PORT, P_STORM_ERR, V_RATE, false },
	[FM_C_NIC_OUT_OF_BUFFER] = { M_PORT, P_OOB, V_RATE, false },
	[FM_C_RDMA_ACK_TIMEOUTS] = { M_PORT, P_RETRIES, V_RATE, false },
	[FM_C_RDMA_SEQ_ERRORS] = { M_PORT, P_RETRIES, V_RATE, false },
	[FM_C_RDMA_OUT_OF_SEQUENCE] = { M_PORT, P_RETRIES, V_RATE, false },
	[FM_C_RDMA_ADAPTIVE_RETRANS] = { M_PORT, P_RETRIES, V_RATE, false },
	[FM_C_BYTES_TX] = { M_PORT, P_TX_BYTES, V_RATE, false },
	[FM_C_DISCARDS_RX] = { M_PORT, P_DISC_RX, V_RATE, false },
};

static const uint8_t pfield_agg[F_N] = {
	[F_TX_PAUSE] = A_MAX,  [F_RX_PAUSE] = A_MAX, [F_TX_FRAMES] = A_SUM,
	[F_RX_FRAMES] = A_SUM, [F_TX_PKTS] = A_MAX,  [F_DROPS] = A_SUM,
	[F_ECN] = A_SUM,       [F_OCC] = A_MAX,	     [F_WD] = A_MAX,
};

static const uint8_t qfield_agg[P_N] = {
	[P_SPEED] = A_MAX,	 [P_LINK_UP] = A_MAX,
	[P_DOWN_TOTAL] = A_SUM,	 [P_CE] = A_SUM,
	[P_CNP_SENT] = A_SUM,	 [P_CNP_HANDLED] = A_SUM,
	[P_CNP_IGNORED] = A_SUM, [P_STORM_WARN] = A_SUM,
	[P_STORM_ERR] = A_SUM,	 [P_OOB] = A_SUM,
	[P_RETRIES] = A_SUM,	 [P_TX_BYTES] = A_SUM,
	[P_DISC_RX] = A_SUM,
};

static int64_t real_default(void *ctx)
{
	(void)ctx;
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return (int64_t)t.tv_sec * NS_PER_S + t.tv_nsec;
}

uint64_t rules_tick_for(const struct cfg *c)
{
	uint64_t t = c->rules.tick_ns;
	if (!t)
		t = cfg_min_interval(c);
	if (t < 100000000)
		t = 100000000;
	return t;
}

static double thread_cpu_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void size_view(struct rules *r);
static void build_vclasses(struct rules *r);

static void apply_cfg(struct rules *r, const struct cfg *c)
{
	uint8_t old = r->c.lossless;
	r->c.r = c->rules;
	r->c.lossless = c->lossless_mask;
	r->c.nl = (uint8_t)__builtin_popcount(r->c.lossless);
	for (int q = 0; q < PRIOS; q++)
		r->c.lane[q] = (uint8_t)__builtin_popcount(r->c.lossless &
							   ((1u << q) - 1));
	r->c.tick_ns = rules_tick_for(c);
	r->c.lldp_ttl_ns = c->topology.lldp_ttl_ns
			       ? (int64_t)c->topology.lldp_ttl_ns
			       : LINKS_DEFAULT_LLDP_TTL_NS;
	r->c.window_ns =
	    (int64_t)(c->interval_ns ? c->interval_ns : (uint64_t)NS_PER_S);
	if (r->c.window_ns > (int64_t)r->c.tick_ns * 10)
		r->c.window_ns = (int64_t)r->c.tick_ns * 10;
	r->c.silent_ns =
	    c->rules.silent_for_ns
		? (int64_t)c->rules.silent_for_ns
		: (int64_t)(c->store_stale_intervals ? c->store_stale_intervals
						     : 5) *
		      r->c.window_ns;
	/* Which series are read depends on the lossless set, and the
	 * view's layout on how many there are. */
	if (old != r->c.lossless && r->map)
		memset(r->map, 0, r->map_cap * sizeof *r->map);
	size_view(r);
	build_vclasses(r);
}

struct rules *rules_new(struct store *st, struct links *l, struct health *h,
			const struct cfg *c, const struct rules_opts *opts)
{
	struct rules *r = xcalloc(1, sizeof *r);
	r->st = st;
	r->links = l;
	r->health = h;
	r->real_ns = opts && opts->real_ns ? opts->real_ns : real_default;
	r->clock_ctx = opts ? opts->clock_ctx : NULL;
	pthread_mutex_init(&r->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&r->cond, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&r->wake, NULL);
	atomic_init(&r->kick_pending, false);
	atomic_init(&r->last_kick_ns, 0);
	apply_cfg(r, c);
	r->next_id = 1;
	return r;
}

void rules_free(struct rules *r)
{
	if (!r)
		return;
	rules_stop(r);
	free(r->pdev);
	free(r->pname);
	free(r->devi);
	free(r->peer);
	free(r->is_nic);
	free(r->valid);
	free(r->view);
	free(r->rtx);
	free(r->rrx);
	free(r->ttx);
	free(r->trx);
	free(r->pw);
	free(r->dw);
	free(r->pt);
	free(r->dt);
	free(r->down_last);
	free(r->down_seen);
	free(r->link_last);
	free(r->flap_t);
	free(r->down_at);
	free(r->cycle_at);
	free(r->cycle_key);
	free(r->dhold_at);
	free(r->dhold_v);
	free(r->dhold_arr);
	free(r->flap_n);
	free(r->base);
	free(r->pbase);
	free(r->port_idx);
	free(r->port_idx_val);
	free(r->dlabel);
	free(r->dev_first);
	free(r->dev_count);
	free(r->dev_ports);
	free(r->dpaused);
	free(r->dfresh);
	free(r->dseen);
	free(r->dage);
	free(r->div);
	free(r->dlast);
	free(r->donset);
	free(r->dsonset);
	free(r->drelease);
	free(r->dwas_paused);
	free(r->dheld_from);
	free(r->dheld_last);
	free(r->plast);
	free(r->page);
	free(r->piv);
	free(r->dstamp);
	free(r->dcolour);
	free(r->dev_idx);
	free(r->dev_idx_val);
	free(r->queue);
	free(r->qsub);
	free(r->stk_dev);
	free(r->stk_pos);
	free(r->stk_via);
	free(r->map);
	free(r->mgen);
	free(r->qprio);
	free(r->rail_bad);
	for (size_t i = 0; i < r->n_act; i++) {
		free(r->act[i]->subs);
		free(r->act[i]);
	}
	free(r->act);
	for (size_t i = 0; i < r->n_recent; i++)
		rules_free_public(
		    &r->recent[(r->recent_head + i) % r->recent_cap]);
	free(r->recent);
	pthread_cond_destroy(&r->cond);
	pthread_mutex_destroy(&r->wake);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

void rules_configure(struct rules *r, const struct cfg *c)
{
	pthread_mutex_lock(&r->lock);
	apply_cfg(r, c);
	pthread_mutex_unlock(&r->lock);
	/* The thread re-reads the tick. */
	pthread_mutex_lock(&r->wake);
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->wake);
}

uint64_t rules_tick_ns(struct rules *r)
{
	pthread_mutex_lock(&r->lock);
	uint64_t t = r->c.tick_ns;
	pthread_mutex_unlock(&r->lock);
	return t;
}

/* Ports and devices. */

static uint64_t mix64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return k;
}

/* A tiny open-addressing map of 64-bit keys (+1) to uint32 values. */
static bool umap_find(const uint64_t *keys, const uint32_t *vals, size_t cap,
		      uint64_t key, uint32_t *val)
{
	if (!cap)
		return false;
	size_t mask = cap - 1;
	for (size_t i = mix64(key) & mask; keys[i]; i = (i + 1) & mask)
		if (keys[i] == key + 1) {
			*val = vals[i];
			return true;
		}
	return false;
}

static void umap_put(uint64_t **keys, uint32_t **vals, size_t *cap, size_t used,
		     uint64_t key, uint32_t val)
{
	if ((used + 1) * 2 > *cap) {
		size_t ncap = *cap ? *cap * 2 : 1024;
		uint64_t *nk = xcalloc(ncap, sizeof *nk);
		uint32_t *nv = xcalloc(ncap, sizeof *nv);
		for (size_t i = 0; i < *cap; i++) {
			if (!(*keys)[i])
				continue;
			size_t j = mix64((*keys)[i] - 1) & (ncap - 1);
			while (nk[j])
				j = (j + 1) & (ncap - 1);
			nk[j] = (*keys)[i];
			nv[j] = (*vals)[i];
		}
		free(*keys);
		free(*vals);
		*keys = nk;
		*vals = nv;
		*cap = ncap;
	}
	size_t mask = *cap - 1;
	size_t i = mix64(key) & mask;
	while ((*keys)[i])
		i = (i + 1) & mask;
	(*keys)[i] = key + 1;
	(*vals)[i] = val;
}

#define GROW(p, cap, ncap)                                              \
	do {                                                            \
		(p) = xreallocarray((p), (ncap), sizeof *(p));          \
		memset((p) + (cap), 0, ((ncap) - (cap)) * sizeof *(p)); \
	} while (0)

/* Sizes the view for cap_ports ports at the stride the lossless set
 * needs; a new stride starts it over (its blocks only hold one tick). */
static void size_view(struct rules *r)
{
	uint32_t used =
	    VW_PL + (F_N + 2u) * r->c.nl + P_N + F_LANE0 * PRIOS + 1;
	uint32_t stride = (used + VW_LINE - 1) / VW_LINE * VW_LINE;
	r->vpst = VW_PL + F_N * r->c.nl;
	r->vqv = r->vpst + 2u * r->c.nl;
	r->vpnl = r->vqv + P_N;
	r->vdst = r->vpnl + F_LANE0 * PRIOS;
	if (stride != r->vstride) {
		free(r->view);
		r->view = NULL;
		r->view_cap = 0;
		r->vstride = stride;
	}
	if (r->view_cap >= r->cap_ports)
		return;
	size_t bytes = (size_t)r->cap_ports * stride * sizeof *r->view;
	union vword *v = xaligned_zalloc(VW_LINE * sizeof *v, bytes);
	if (r->view)
		memcpy(v, r->view,
		       (size_t)r->view_cap * stride * sizeof *r->view);
	free(r->view);
	r->view = v;
	r->view_cap = r->cap_ports;
}

static void build_vclasses(struct rules *r)
{
	memset(r->vcls, 0, sizeof r->vcls);
	for (int f = 0; f < F_N; f++) {
		for (int q = 0; q < PRIOS; q++) {
			struct vclass *vc = &r->vcls[1 + f * PRIOS + q];
			bool lossless = r->c.lossless & (1u << q);
			if (!lossless && f >= F_LANE0)
				continue; /* never read */
			vc->woff = (uint8_t)pvoff(r, q, f);
			vc->hw = (uint8_t)(VW_PHAS + q / 2);
			vc->hmask = (1u << f) << (q % 2 * 16);
			vc->sum = pfield_agg[f] == A_SUM;
			vc->lossy = !lossless;
			vc->report = f != F_TX_PKTS && f != F_OCC;
			if (lossless && (f == F_TX_PAUSE || f == F_RX_PAUSE))
				vc->pst =
				    (uint8_t)(r->vpst + r->c.lane[q] * 2u +
					      (f == F_RX_PAUSE));
		}
	}
	for (int f = 0; f < P_N; f++) {
		struct vclass *vc = &r->vcls[VCLS_PORT + f];
		vc->woff = (uint8_t)(r->vqv + (uint32_t)f);
		vc->hw = VW_QHAS;
		vc->hmask = 1u << f;
		vc->sum = qfield_agg[f] == A_SUM;
		vc->link = f == P_DOWN_TOTAL || f == P_LINK_UP;
		vc->report = f == P_CE || f == P_CNP_SENT ||
			     f == P_CNP_HANDLED || f == P_CNP_IGNORED ||
			     f == P_OOB;
		/* Receive discards: drop_rules looks at the ports that
		 * have some, and their baselines need the sample's
		 * arrival (rules_base.c). */
		if (f == P_DISC_RX) {
			vc->report = 1;
			vc->pst = (uint8_t)r->vdst;
		}
	}
}

static void grow_ports(struct rules *r, uint32_t need)
{
	if (need <= r->cap_ports)
		return;
	uint32_t cap = r->cap_ports, ncap = cap ? cap : 256;
	while (ncap < need)
		ncap *= 2;
	GROW(r->pdev, cap, ncap);
	GROW(r->pname, cap, ncap);
	GROW(r->devi, cap, ncap);
	GROW(r->plast, cap, ncap);
	GROW(r->page, cap, ncap);
	GROW(r->piv, cap, ncap);
	GROW(r->peer, cap, ncap);
	GROW(r->is_nic, cap, ncap);
	GROW(r->valid, cap, ncap);
	GROW(r->rtx, (size_t)cap * PRIOS, (size_t)ncap * PRIOS);
	GROW(r->rrx, (size_t)cap * PRIOS, (size_t)ncap * PRIOS);
	GROW(r->ttx, (size_t)cap * PRIOS, (size_t)ncap * PRIOS);
	GROW(r->trx, (size_t)cap * PRIOS, (size_t)ncap * PRIOS);
	GROW(r->pw, cap, ncap);
	GROW(r->dw, cap, ncap);
	GROW(r->pt, cap, ncap);
	GROW(r->dt, cap, ncap);
	GROW(r->down_last, cap, ncap);
	GROW(r->down_seen, cap, ncap);
	GROW(r->link_last, cap, ncap);
	GROW(r->flap_t, (size_t)cap * FLAP_RING, (size_t)ncap * FLAP_RING);
	GROW(r->down_at, cap, ncap);
	GROW(r->cycle_at, cap, ncap);
	GROW(r->cycle_key, cap, ncap);
	GROW(r->dhold_at, (size_t)cap * PRIOS, (size_t)ncap * PRIOS);
	GROW(r->dhold_v, (size_t)cap * PRIOS, (size_t)ncap * PRIOS);
	GROW(r->dhold_arr, (size_t)cap * PRIOS, (size_t)ncap * PRIOS);
	GROW(r->flap_n, cap, ncap);
	GROW(r->base, cap, ncap);
	GROW(r->pbase, (size_t)cap * PRIOS, (size_t)ncap * PRIOS);
	GROW(r->queue, cap, ncap);
	GROW(r->qsub, cap, ncap);
	r->cap_ports = ncap;
	r->port_growths++;
	size_view(r);
}

static uint32_t find_dev(struct rules *r, store_label dev)
{
	uint32_t d;
	if (umap_find(r->dev_idx, r->dev_idx_val, r->dev_idx_cap, dev, &d))
		return d;
	if (r->n_devs == r->cap_devs) {
		uint32_t cap = r->cap_devs, ncap = cap ? cap * 2 : 64;
		GROW(r->dlabel, cap, ncap);
		GROW(r->dev_first, cap, ncap);
		GROW(r->dev_count, cap, ncap);
		GROW(r->dpaused, cap, ncap);
		GROW(r->dfresh, cap, ncap);
		GROW(r->dseen, cap, ncap);
		GROW(r->dage, cap, ncap);
		GROW(r->div, cap, ncap);
		GROW(r->dlast, cap, ncap);
		GROW(r->donset, (size_t)cap * PRIOS, (size_t)ncap * PRIOS);
		GROW(r->dsonset, (size_t)cap * PRIOS, (size_t)ncap * PRIOS);
		GROW(r->drelease, (size_t)cap * PRIOS, (size_t)ncap * PRIOS);
		GROW(r->dwas_paused, (size_t)cap * PRIOS, (size_t)ncap * PRIOS);
		GROW(r->dheld_from, (size_t)cap * PRIOS, (size_t)ncap * PRIOS);
		GROW(r->dheld_last, (size_t)cap * PRIOS, (size_t)ncap * PRIOS);
		GROW(r->dstamp, cap, ncap);
		GROW(r->dcolour, cap, ncap);
		GROW(r->stk_dev, cap, ncap);
		GROW(r->stk_pos, cap, ncap);
		GROW(r->stk_via, cap, ncap);
		r->cap_devs = ncap;
	}
	d = r->n_devs++;
	r->dlabel[d] = dev;
	umap_put(&r->dev_idx, &r->dev_idx_val, &r->dev_idx_cap, d, dev, d);
	return d;
}

/* The port id of (dev, port), created if new. */
static uint32_t find_port(struct rules *r, store_label dev, store_label port)
{
	uint64_t key = (uint64_t)dev << 32 | port;
	uint32_t p;
	if (umap_find(r->port_idx, r->port_idx_val, r->port_idx_cap, key, &p))
		return p;
	grow_ports(r, r->n_ports + 1);
	p = r->n_ports++;
	r->pdev[p] = dev;
	r->pname[p] = port;
	r->devi[p] = find_dev(r, dev);
	r->peer[p] = -1;
	r->link_last[p] = -1;
	umap_put(&r->port_idx, &r->port_idx_val, &r->port_idx_cap, p, key, p);
	r->ports_changed = true;
	return p;
}

/* Ports per device (CSR), after ports were added. */
static void index_devices(struct rules *r)
{
	free(r->dev_ports);
	r->dev_ports =
	    xcalloc(r->n_ports ? r->n_ports : 1, sizeof *r->dev_ports);
	memset(r->dev_count, 0, r->n_devs * sizeof *r->dev_count);
	for (uint32_t p = 0; p < r->n_ports; p++)
		r->dev_count[r->devi[p]]++;
	uint32_t at = 0;
	for (uint32_t d = 0; d < r->n_devs; d++) {
		r->dev_first[d] = at;
		at += r->dev_count[d];
		r->dev_count[d] = 0;
	}
	for (uint32_t p = 0; p < r->n_ports; p++) {
		uint32_t d = r->devi[p];
		r->dev_ports[r->dev_first[d] + r->dev_count[d]++] = p;
	}
	r->ports_changed = false;
}

static bool name_in(const char *s, char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(s, v[i]) == 0)
			return true;
	return false;
}

/* The label pairs of a link's ends, interned. */
struct graph_end {
	store_label dev, port;
};

/*
 * Interns both ends of every resolved link of s into e (2 per link, 0
 * for a skipped link) and counts the ends the engine has no port for
 * yet, so the port tables are grown once, not a doubling at a time
 * while the ports arrive (issue #16: 100k links, 200k new ports).
 */
static uint32_t graph_ends(struct rules *r, const struct links_snapshot *s,
			   struct graph_end *e)
{
	uint32_t unknown = 0, p;
	for (size_t i = 0; i < s->n_links; i++) {
		const struct links_entry *l = &s->links[i];
		struct graph_end *x = &e[2 * i];
		x[0] = x[1] = (struct graph_end){ 0, 0 };
		if (!l->resolved || l->overridden)
			continue;
		x[0].dev = store_intern(r->st, l->a_device);
		x[0].port = store_intern(r->st, l->a_port);
		x[1].dev = store_intern(r->st, l->b_device);
		x[1].port = store_intern(r->st, l->b_port);
		for (int k = 0; k < 2; k++)
			unknown += !umap_find(
			    r->port_idx, r->port_idx_val, r->port_idx_cap,
			    (uint64_t)x[k].dev << 32 | x[k].port, &p);
	}
	return unknown;
}

/* Rails: an end of e named as rail k's NIC must face a rail-k leaf;
 * the misaligned (nic port, leaf port) pairs go to rail_bad. */
static void rail_check(struct rules *r, const struct links_snapshot *s,
		       const struct links_entry *e, uint32_t a, uint32_t b)
{
	for (int end = 0; end < 2; end++) {
		const char *nic_port = end ? e->b_port : e->a_port;
		const char *other = end ? e->a_device : e->b_device;
		for (size_t k = 0; k < s->n_rails; k++) {
			const struct links_rail *rl = &s->rails[k];
			if (!name_in(nic_port, rl->nics, rl->n_nics))
				continue;
			if (name_in(other, rl->leaves, rl->n_leaves))
				break;
			if (r->n_rail_bad + 2 > r->cap_rail_bad) {
				r->cap_rail_bad =
				    r->cap_rail_bad ? r->cap_rail_bad * 2 : 64;
				r->rail_bad =
				    xreallocarray(r->rail_bad, r->cap_rail_bad,
						  sizeof *r->rail_bad);
			}
			r->rail_bad[r->n_rail_bad++] = end ? b : a;
			r->rail_bad[r->n_rail_bad++] = end ? a : b;
			break;
		}
	}
}

/* Mirrors the link table: peers and the rail check's findings. */
static void rebuild_graph(struct rules *r)
{
	struct links_snapshot s;
	links_snapshot(r->links, &s);
	for (uint32_t p = 0; p < r->n_ports; p++)
		r->peer[p] = -1;
	r->n_rail_bad = 0;
	struct graph_end *ends =
	    xreallocarray(NULL, s.n_links ? 2 * s.n_links : 1, sizeof *ends);
	uint32_t unknown = graph_ends(r, &s, ends);
	if (unknown)
		grow_ports(r, r->n_ports + unknown);
	for (size_t i = 0; i < s.n_links; i++) {
		const struct links_entry *e = &s.links[i];
		if (!e->resolved || e->overridden)
			continue;
		const struct graph_end *x = &ends[2 * i];
		uint32_t a = find_port(r, x[0].dev, x[0].port);
		uint32_t b = find_port(r, x[1].dev, x[1].port);
		r->peer[a] = (int32_t)b;
		r->peer[b] = (int32_t)a;
		if (s.n_rails)
			rail_check(r, &s, e, a, b);
	}
	free(ends);
	r->links_gen = s.generation;
	links_snapshot_free(&s);
}

/* Reading the store. */

static int queue_prio(struct rules *r, store_label q)
{
	if (q >= r->qprio_cap) {
		uint32_t cap = r->qprio_cap, ncap = cap ? cap : 64;
		while (ncap <= q)
			ncap *= 2;
		r->qprio = xreallocarray(r->qprio, ncap, sizeof *r->qprio);
		memset(r->qprio + cap, -2, ncap - cap);
		r->qprio_cap = ncap;
	}
	if (r->qprio[q] == -2) {
		/* The queue index is the priority (the usual RoCE
		 * mapping): "3", "UC3", "queue3". */
		const char *s = store_label_str(r->st, q);
		int p = -1;
		if (s) {
			size_t n = strlen(s);
			if (n && s[n - 1] >= '0' && s[n - 1] <= '7' &&
			    (n == 1 || s[n - 2] < '0' || s[n - 2] > '9'))
				p = s[n - 1] - '0';
		}
		r->qprio[q] = (int8_t)p;
	}
	return r->qprio[q];
}

static void classify(struct rules *r, struct slot_map *m,
		     const struct store_key *k)
{
	m->kind = M_IGNORE;
	if (k->counter >= FM_C__COUNT)
		return;
	const struct cmap *c = &cmaps[k->counter];
	if (!c->kind)
		return;
	const struct fm_counter_info *info =
	    fm_counter_info((enum fm_counter)k->counter);
	int prio = 0;
	if (c->kind == M_PRIO) {
		prio = info->sub == FM_SUB_QUEUE ? queue_prio(r, k->sub)
						 : (int)k->sub;
		if (prio < 0 || prio >= PRIOS)
			return;
		if (!c->lossy_too && !(r->c.lossless & (1u << prio)))
			return;
	}
	uint32_t port = find_port(r, k->device, k->port);
	if (port >= MAP_MAX_PORTS) {
		if (!r->too_many_ports)
			log_warn("rules",
				 "more than %u ports: the rule engine ignores "
				 "the others",
				 MAP_MAX_PORTS);
		r->too_many_ports = true;
		return;
	}
	m->port = port;
	m->kind = c->kind;
	m->cls = c->kind == M_PRIO ? 1u + c->field * PRIOS + (unsigned)prio
				   : (unsigned)VCLS_PORT + c->field;
	m->vkind = c->vkind;
	m->lossy = c->kind == M_PRIO && !(r->c.lossless & (1u << prio));
	if (c->kind == M_PORT &&
	    (c->field == P_CE || c->field == P_CNP_SENT ||
	     c->field == P_CNP_HANDLED || c->field == P_CNP_IGNORED ||
	     c->field == P_STORM_WARN || c->field == P_OOB))
		r->is_nic[m->port] = 1;
	if (c->kind == M_PORT && c->field == P_DISC_RX)
		rules_base_seed(r, m->port);
}

/* Folds one series' reading (age and interval in ms) into its port's
 * view. */
static void apply(struct rules *r, const struct slot_map *m,
		  const struct vclass *vc, float x, int64_t age_ms,
		  uint32_t iv_ms)
{
	union vword *b = vblk(r, m->port);
	if (b[VW_TICK].u != r->vtick) {
		/* The block's first write this tick. */
		b[VW_TICK].u = r->vtick;
		for (int w = VW_QHAS; w < VW_PL; w++)
			b[w].u = 0;
	}
	uint32_t has = b[vc->hw].u;
	float *v = &b[vc->woff].f;
	if (!(has & vc->hmask))
		*v = x;
	else if (vc->sum)
		*v += x;
	else if (x > *v)
		*v = x;
	b[vc->hw].u = has | vc->hmask;
	if (vc->pst) {
		struct pstamp *ps = &b[vc->pst].ps;
		ps->age_ms = sat16(age_ms);
		ps->iv_ms = sat16(iv_ms);
	}
}

/* New ports start with nothing this tick. */
static void clear_new_ports(struct rules *r, uint32_t before)
{
	memset(r->valid + before, 0, r->n_ports - before);
	for (uint32_t p = before; p < r->n_ports; p++) {
		r->plast[p] = INT64_MIN;
		r->page[p] = INT64_MAX;
		r->piv[p] = UINT32_MAX;
	}
	for (uint32_t d = 0; d < r->n_devs; d++)
		if (!r->dseen[d])
			r->dage[d] = INT64_MAX;
}

/*
 * (Re)classifies slot s, whose figures carry generation gen. False when
 * the figures at hand are not those of the key read (the slot changed
 * in between): they are skipped this tick, the next one reclassifies.
 */
static bool reclassify(struct rules *r, uint32_t s, uint32_t gen)
{
	struct slot_map *m = &r->map[s];
	struct store_key key;
	uint32_t kgen;

	if (store_slot_key(r->st, s, &key, &kgen) < 0) {
		m->kind = M_UNKNOWN;
		return false;
	}
	uint32_t before = r->n_ports;
	classify(r, m, &key);
	r->mgen[s] = kgen;
	if (r->n_ports != before)
		clear_new_ports(r, before);
	return kgen == gen;
}

/* Folds what a run of port p's series said (read_store) into its
 * view. */
static bool port_ratios(struct rules *r, uint32_t p);

/* Folds what a run of port p's series said (read_store) into its view
 * and computes its ratios while its view is in the cache (again, should
 * a later run of the same port add to it). */
static inline void flush_port(struct rules *r, uint32_t p, unsigned valid,
			      int64_t age, int64_t last, uint32_t iv)
{
	if (p == NONE)
		return;
	r->valid[p] |= (uint8_t)valid;
	if (iv < r->piv[p]) {
		r->piv[p] = iv;
		r->page[p] = age;
	} else if (iv == r->piv[p] && age < r->page[p]) {
		r->page[p] = age;
	}
	if (last > r->plast[p])
		r->plast[p] = last;
	if (port_ratios(r, p))
		r->valid[p] |= PV_RATIOS;
}

/* Age in ms from which a series is stale (store_stale_rule on the
 * figures' scale). */
static int64_t stale_after(unsigned intervals, uint32_t interval_ms)
{
	return (int64_t)intervals * interval_ms;
}

/* A new tick: every block's has-bits are old (see vblk), no port has
 * been seen. */
static void reset_view(struct rules *r)
{
	if (++r->vtick == 0)
		r->vtick = 1;
	if (r->n_ports) {
		memset(r->valid, 0, r->n_ports);
		for (uint32_t p = 0; p < r->n_ports; p++) {
			r->plast[p] = INT64_MIN;
			r->page[p] = INT64_MAX;
			r->piv[p] = UINT32_MAX;
		}
	}
}

/* What flap_rules compares with: a link figure x of m's port that
 * differs from the last seen (ports whose link did not move and that
 * flapped in no window are not visited). */
static inline bool link_moved(const struct rules *r, const struct slot_map *m,
			      float x)
{
	return m->cls == VCLS_PORT + P_DOWN_TOTAL
		   ? !r->down_seen[m->port] || x != r->down_last[m->port]
		   : (x > 0.5f) != (r->link_last[m->port] == 1);
}

/*
 * One pass over the store's figures (lock-free, see store.h) into the
 * view; full: compare every slot's generation with its classification.
 * The figures' words are loaded only as needed: the head (flags,
 * generation, rate) for every slot, the arrival time and the tail
 * (interval, value) for the series the rules use. Always true with
 * full; else false (the view is then to be read again, full) when a
 * withdrawal began since wd was read.
 */
static bool scan_store(struct rules *r, uint32_t n, int64_t now,
		       unsigned k_stale, uint32_t def_iv, bool full,
		       uint64_t wd)
{
	uint64_t reads = 0;
	/* The last stamp seen and what it says: the store's staleness
	 * rule, (double)age >= k * interval * 1e6, in integers. */
	uint64_t last_stamp = UINT64_MAX;
	int64_t mono = 0, age = 0;
	uint32_t iv = def_iv, fiv = UINT32_MAX - 1;
	bool stale = true;

	reset_view(r);
	const struct store_fig *fg = NULL;
	uint32_t left = 0;
	/* The port at hand: its series are mostly in a row; what they
	 * say about the port and its device is folded in once per run
	 * (flush_port), not per series, from registers. */
	uint32_t cur = NONE;
	unsigned cval = 0;
	int64_t cage = INT64_MAX, clast = INT64_MIN;
	uint32_t civ = UINT32_MAX;
	for (uint32_t s = 0; s < n; s++, fg++) {
		if (!left) {
			left = store_figs(r->st, s, &fg);
			if (!left)
				break;
		}
		left--;
		/* Two streams the hardware prefetcher loses among the
		 * view's: fetch them ahead. */
		if (left > RULES_PREFETCH)
			__builtin_prefetch(fg + RULES_PREFETCH);
		if (s + RULES_PREFETCH < n)
			__builtin_prefetch(&r->map[s + RULES_PREFETCH]);
		struct slot_map *m = &r->map[s];
		uint64_t head = store_fig_head(fg);
		uint32_t meta = store_fig_meta(head);
		if (!(meta & STORE_FIG_LIVE)) {
			m->kind = M_UNKNOWN;
			continue;
		}
		if ((m->kind == M_UNKNOWN ||
		     (full && r->mgen[s] != store_fig_gen(head))) &&
		    !reclassify(r, s, store_fig_gen(head)))
			continue;
		if (m->kind == M_IGNORE)
			continue;
		if (m->port != cur) {
			flush_port(r, cur, cval, cage, clast, civ);
			cur = m->port;
			cval = 0;
			cage = INT64_MAX;
			clast = INT64_MIN;
			civ = UINT32_MAX;
		}
		reads++;
		/* Half the series: pause figures of lossy priorities, 0,
		 * stamped like the series before them in the port's run.
		 * They add nothing to what the run holds. */
		if (m->lossy && (cval & PV_ALL) == PV_ALL &&
		    (meta & (STORE_FIG_HAS_VALUE | STORE_FIG_HAS_RATE)) ==
			(STORE_FIG_HAS_VALUE | STORE_FIG_HAS_RATE) &&
		    store_fig_float(head) == 0 &&
		    store_fig_stamp(fg) == last_stamp)
			continue;
		cval |= PV_READ;
		if (!(meta & STORE_FIG_HAS_VALUE))
			continue;
		/* A port's series mostly share their stamp (one
		 * notification): its arithmetic is done once. */
		uint64_t stamp = store_fig_stamp(fg);
		if (stamp != last_stamp) {
			last_stamp = stamp;
			mono = store_fig_arrival_ms(stamp);
			age = now > mono ? now - mono : 0;
			iv = store_fig_interval_ms(stamp);
			/* Series without an interval of their own (on
			 * change) never count as a device's fastest. */
			fiv = iv ? iv : UINT32_MAX - 1;
			if (!iv)
				iv = def_iv;
			stale = age >= stale_after(k_stale, iv);
		}
		cval |= PV_SEEN;
		/* The port's age is its fastest series' (a series sampled
		 * every 10 s keeps a silent switch's age down otherwise). */
		if (fiv < civ) {
			civ = fiv;
			cage = age;
		} else if (fiv == civ && age < cage) {
			cage = age;
		}
		if (stale)
			continue;
		/* The newest fresh data (see track_onsets). */
		if (mono > clast)
			clast = mono;
		bool rate = m->vkind == V_RATE;
		if (rate && !(meta & STORE_FIG_HAS_RATE)) {
			/* Fresh, but no rate yet (first sample, reset). */
			cval |= PV_FRESH;
			continue;
		}
		cval |= rate ? PV_FRESH | PV_RATE : PV_FRESH;
		float x = m->vkind == V_TOTAL ? store_fig_value(r->st, s)
					      : store_fig_float(head);
		const struct vclass *vc = &r->vcls[m->cls];
		/* Lossy priorities: 0 is as good as absent (see vblk). */
		if (vc->lossy) {
			if (x == 0)
				continue;
			cval |= PV_LOSSY;
		}
		if (vc->report && x != 0)
			cval |= PV_ACTIVE;
		if (vc->link && link_moved(r, m, x))
			cval |= PV_LINK;
		apply(r, m, vc, x, age, iv);
	}
	flush_port(r, cur, cval, cage, clast, civ);
	r->reads = reads;
	if (full)
		return true;
	atomic_thread_fence(memory_order_acquire);
	return store_withdrawals(r->st) == wd;
}

static void read_store(struct rules *r)
{
	uint32_t n = store_slots(r->st);
	int64_t now_ns = store_mono_now(r->st);
	int64_t now = store_fig_ms(r->st, now_ns);
	unsigned k_stale;
	uint32_t def_iv;

	store_stale_rule(r->st, &k_stale, &def_iv);
	if (n > r->map_cap) {
		uint32_t ncap = r->map_cap ? r->map_cap : 1024;
		while (ncap < n)
			ncap *= 2;
		GROW(r->map, r->map_cap, ncap);
		GROW(r->mgen, r->map_cap, ncap);
		r->map_cap = ncap;
	}
	r->now_ms = now;
	r->def_iv_ms = def_iv;
	/* Generations are compared only when a withdrawal may have given
	 * slots new keys since the last scan that did (or during this
	 * one: it is then done again, comparing). */
	uint64_t wd = store_withdrawals(r->st);
	bool full = !r->withdrawals_known || wd != r->withdrawals;
	while (!scan_store(r, n, now, k_stale, def_iv, full, wd)) {
		atomic_thread_fence(memory_order_acquire);
		uint64_t after = store_withdrawals(r->st);
		if (full || after == wd)
			break;
		wd = after;
		full = true;
	}
	if (full) {
		r->withdrawals = wd;
		r->withdrawals_known = true;
	}
	/* Devices from their ports. */
	for (uint32_t d = 0; d < r->n_devs; d++) {
		r->dfresh[d] = 0;
		r->dage[d] = INT64_MAX;
		r->dlast[d] = INT64_MIN;
		r->div[d] = UINT32_MAX;
	}
	for (uint32_t p = 0; p < r->n_ports; p++) {
		uint8_t v = r->valid[p];
		uint32_t dv = r->devi[p];
		if (v & PV_SEEN) {
			r->dseen[dv] = 1;
			/* The device's age: its fastest series'. */
			int64_t a = r->page[p] * 1000000;
			if (r->piv[p] < r->div[dv]) {
				r->div[dv] = r->piv[p];
				r->dage[dv] = a;
			} else if (r->piv[p] == r->div[dv] && a < r->dage[dv]) {
				r->dage[dv] = a;
			}
		}
		if (v & PV_FRESH) {
			r->dfresh[dv] = 1;
			if (r->plast[p] > r->dlast[dv])
				r->dlast[dv] = r->plast[p];
		}
	}
}

/* Port p's pause ratios and tails on the lossless priorities, from its
 * view. False when it has no speed of its own: its peer's, which the
 * read pass may not have reached yet, counts. */
static bool port_ratios(struct rules *r, uint32_t p)
{
	const union vword *b = vblk(r, p);
	bool now = b[VW_TICK].u == r->vtick;
	double refresh = -1; /* refresh_rate(), when needed */
	for (int q = 0; q < PRIOS; q++) {
		if (!(r->c.lossless & (1u << q)))
			continue;
		size_t i = lix(r, p, q);
		/* The usual case first: both pause times there and 0, no
		 * watchdog: not paused either way, no tail. */
		uint32_t h = now ? b[VW_PHAS + q / 2].u >> (q % 2 * 16) : 0;
		const union vword *lv = &b[VW_PL + r->c.lane[q]];
		uint32_t both = 1u << F_TX_PAUSE | 1u << F_RX_PAUSE;
		if ((h & both) == both && lv[F_TX_PAUSE * r->c.nl].f == 0 &&
		    lv[F_RX_PAUSE * r->c.nl].f == 0 &&
		    !((h & 1u << F_WD) && lv[F_WD * r->c.nl].f > 0)) {
			r->rtx[i] = r->rrx[i] = 0;
			r->ttx[i] = r->trx[i] = 0;
			continue;
		}
		if (refresh < 0)
			refresh = refresh_rate(r, p);
		r->rtx[i] = ratio_of(r, p, q, F_TX_PAUSE, F_TX_FRAMES, refresh);
		r->rrx[i] = ratio_of(r, p, q, F_RX_PAUSE, F_RX_FRAMES, refresh);
		r->ttx[i] =
		    pause_tail(r, p, q, F_TX_PAUSE, F_TX_FRAMES, 0, refresh);
		r->trx[i] =
		    pause_tail(r, p, q, F_RX_PAUSE, F_RX_FRAMES, 1, refresh);
		/* The switch's own watchdog says this queue is
		 * stormed: held paused by the peer. */
		if (pval(r, p, q, F_WD) > 0)
			r->rrx[i] = 1;
	}
	return qhas(r, p, P_SPEED);
}

/* The ratios of the ports the read pass left (see read_store). */
static void compute_ratios(struct rules *r)
{
	for (uint32_t p = 0; p < r->n_ports; p++)
		if (!(r->valid[p] & PV_RATIOS))
			port_ratios(r, p);
}

void rules_tick(struct rules *r, int64_t now)
{
	pthread_mutex_lock(&r->lock);
	double cpu0 = thread_cpu_s();
	/* LLDP neighbours that stopped being reported leave the graph. */
	links_expire(r->links, 0, r->c.lldp_ttl_ns);
	uint64_t gen = links_generation(r->links);
	if (gen != r->links_gen)
		rebuild_graph(r);
	read_store(r);
	if (r->ports_changed)
		index_devices(r);
	compute_ratios(r);
	for (int q = 0; q < PRIOS; q++) {
		if (!(r->c.lossless & (1u << q)))
			continue;
		rules_pause_rules(r, q, now);
		rules_queue_rules(r, q, now);
	}
	rules_lossy_rules(r, now);
	rules_nic_rules(r, now);
	rules_flap_rules(r, now);
	rules_target_rules(r, now);
	rules_rail_rules(r, now);
	rules_base_learn(r, now);
	rules_lifecycle(r, now);
	if (r->feeds)
		rules_feed_outputs(r, now);
	r->ticks++;
	r->last_cpu_s = thread_cpu_s() - cpu0;
	pthread_mutex_unlock(&r->lock);
}

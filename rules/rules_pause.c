/*
 * rules_pause: the per-priority pause graph of the rule engine (part of
 * rules.c's engine; see rules.h, rules_int.h and doc/rules.md). Each
 * port's pausing and paused weights, the pause trees grown from a
 * port that pauses without being paused, the onsets that tell the
 * older end of a link, and the detections read off the graph: PFC
 * storms (from a root, or from outside the view: a port with no link
 * held paused by its far end), congestion spreading and deadlocks
 * (cycles).
 *
 * Runs under the engine's lock, on the ticking thread.
 */
#include "config.h"

#include "rules.h"

#include "rules_int.h"

#include "clock.h"
#include "health.h"
#include "links.h"
#include "log.h"
#include "mem.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The pause graph. */

/* Pausing / paused weights of every port at priority q. */
void rules_weights(struct rules *r, int q)
{
	for (uint32_t p = 0; p < r->n_ports; p++) {
		size_t i = lix(r, p, q);
		float pw = r->rtx[i], dw = r->rrx[i];
		float pt = r->ttx[i], dt = r->trx[i];
		if (has_peer(r, p)) {
			size_t j = lix(r, (uint32_t)r->peer[p], q);
			if (r->rrx[j] > pw)
				pw = r->rrx[j];
			if (r->rtx[j] > dw)
				dw = r->rtx[j];
			if (r->trx[j] > pt)
				pt = r->trx[j];
			if (r->ttx[j] > dt)
				dt = r->ttx[j];
		}
		r->pt[p] = pt;
		r->dt[p] = dt;
		/* A NIC's own pause-storm warning is a storm signal even
		 * when its pause counters lag. */
		if (qval(r, p, P_STORM_WARN) > 0 &&
		    (rules_single_lossless(r) == q ||
		     pw >= r->c.r.pause_ratio) &&
		    pw < r->c.r.storm_ratio)
			pw = (float)r->c.r.storm_ratio;
		r->pw[p] = pw;
		r->dw[p] = dw;
	}
	for (uint32_t d = 0; d < r->n_devs; d++)
		r->dpaused[d] = 0;
	for (uint32_t p = 0; p < r->n_ports; p++) {
		uint32_t d = r->devi[p];
		if (r->dw[p] > r->dpaused[d])
			r->dpaused[d] = r->dw[p];
	}
}

/* The arrival (figures' ms) of the newest data that shows port x
 * pausing its peer at q (pw[x] >= thr): x's own tx ratio, its peer's rx
 * ratio, or (a NIC's storm warning) x's data. */
static int64_t edge_ms(const struct rules *r, uint32_t x, int q, float thr)
{
	int64_t t = 0;
	if (r->rtx[lix(r, x, q)] >= thr && r->plast[x] > t)
		t = r->plast[x];
	if (has_peer(r, x)) {
		uint32_t y = (uint32_t)r->peer[x];
		if (r->rrx[lix(r, y, q)] >= thr && r->plast[y] > t)
			t = r->plast[y];
	}
	if (t <= 0)
		t = r->plast[x] > 0 ? r->plast[x] : r->now_ms;
	return t;
}

/* The arrival of the data that shows c's pause tree (pause_tree) at
 * least hops deep: of the paths that deep, the one shown by the newest
 * data, each path by its oldest edge's. 0: none that deep. */
static int64_t tree_ms(const struct cand *c, unsigned hops)
{
	int64_t t = 0;
	for (size_t i = 0; i < c->n_subs; i++)
		if (c->subs[i].role == RULES_ROLE_VICTIM &&
		    c->subs[i].depth >= hops && c->sub_ms[i] > t)
			t = c->sub_ms[i];
	return t;
}

/*
 * The pausing ports of device e, paused at its port y (subject sy, at
 * depth dy), as spreaders hanging from y into r->cand and the walk's
 * queue at *tail; false when the candidate is full.
 */
static bool add_spreaders(struct rules *r, int q, float thr, uint32_t e,
			  uint32_t y, int sy, unsigned dy, size_t *tail)
{
	struct cand *c = &r->cand;
	r->dstamp[e] = r->stamp;
	for (uint32_t k = 0; k < r->dev_count[e]; k++) {
		uint32_t z = DEV_PORTS(r, e)[k];
		if (z == y || r->pw[z] < thr)
			continue;
		int sz =
		    rules_cand_sub(r, c, z, 0, q, RULES_ROLE_SPREADER, sy, dy);
		if (sz < 0)
			return false;
		int64_t t = edge_ms(r, z, q, thr);
		c->sub_ms[sz] = t < c->sub_ms[sy] ? t : c->sub_ms[sy];
		r->queue[*tail] = z;
		r->qsub[(*tail)++] = (uint32_t)sz;
	}
	return true;
}

/* The walk of a pause tree from the pausing ports queued (r->queue,
 * r->qsub, up to tail): pausing port -> its peer (a victim) -> that
 * device's pausing ports (spreaders). Returns the deepest victim's
 * depth, at least maxdepth. */
static unsigned grow_tree(struct rules *r, int q, float thr, size_t tail,
			  unsigned maxdepth)
{
	struct cand *c = &r->cand;
	size_t head = 0;
	while (head < tail) {
		uint32_t x = r->queue[head];
		int sx = (int)r->qsub[head++];
		unsigned dx = c->subs[sx].depth;
		if (!has_peer(r, x))
			continue;
		uint32_t y = (uint32_t)r->peer[x];
		int sy = rules_cand_sub(r, c, y, 0, q, RULES_ROLE_VICTIM, sx,
					dx + 1);
		if (sy < 0)
			break;
		c->sub_ms[sy] = c->sub_ms[sx];
		if (dx + 1 > maxdepth)
			maxdepth = dx + 1;
		uint32_t e = r->devi[y];
		if (r->dstamp[e] == r->stamp)
			continue;
		if (!add_spreaders(r, q, thr, e, y, sy, dx + 1, &tail))
			break;
	}
	return maxdepth;
}

/* The pause tree from root device d into r->cand; returns its depth in
 * hops. The origin (subject 0) is chosen by the caller. */
unsigned rules_pause_tree(struct rules *r, uint32_t d, int q, uint32_t origin,
			  bool origin_pausing)
{
	struct cand *c = &r->cand;
	float thr = (float)r->c.r.pause_ratio;
	size_t tail = 0;

	rules_cand_sub(r, c, origin, 0, q, RULES_ROLE_ORIGIN, -1, 0);
	c->sub_ms[0] = INT64_MAX;
	r->dstamp[d] = r->stamp;
	/* The root's pausing ports: the origin itself, or spreaders of a
	 * congested egress. */
	for (uint32_t k = 0; k < r->dev_count[d]; k++) {
		uint32_t x = DEV_PORTS(r, d)[k];
		if (r->pw[x] < thr)
			continue;
		int sx = 0;
		if (!(origin_pausing && x == origin))
			sx = rules_cand_sub(r, c, x, 0, q, RULES_ROLE_SPREADER,
					    0, 0);
		if (sx < 0)
			break;
		c->sub_ms[sx] = edge_ms(r, x, q, thr);
		r->queue[tail] = x;
		r->qsub[tail++] = (uint32_t)sx;
	}
	return grow_tree(r, q, thr, tail, 0);
}

/* Whether port a's device:port sorts before b's. */
static bool sorts_before(const struct rules *r, uint32_t a, uint32_t b)
{
	int cmp = strcmp(rules_lbl(r, r->pdev[a]), rules_lbl(r, r->pdev[b]));
	return cmp < 0 || (cmp == 0 && strcmp(rules_lbl(r, r->pname[a]),
					      rules_lbl(r, r->pname[b])) < 0);
}

/*
 * The link whose failure closed the cycle on the stack from..sp-1: the
 * most recent link-down, within DEADLOCK_CAUSE_NS, seen on a port of
 * the cycle's switches or on its peer. Its end that sorts first (the
 * link_flap convention), or NONE.
 */
static uint32_t deadlock_cause(const struct rules *r, size_t from, size_t sp,
			       int64_t now, int64_t *when)
{
	uint32_t best = NONE;
	int64_t best_t = 0;
	for (size_t i = from; i < sp; i++) {
		uint32_t d = r->stk_dev[i];
		for (uint32_t k = 0; k < r->dev_count[d]; k++) {
			uint32_t x = DEV_PORTS(r, d)[k];
			for (int end = 0; end < 2; end++) {
				if (end && !has_peer(r, x))
					break;
				uint32_t z = end ? (uint32_t)r->peer[x] : x;
				int64_t t = r->down_at[z];
				if (t && now - t <= DEADLOCK_CAUSE_NS &&
				    t > best_t) {
					best_t = t;
					best = z;
				}
			}
		}
	}
	if (best != NONE && has_peer(r, best) &&
	    sorts_before(r, (uint32_t)r->peer[best], best))
		best = (uint32_t)r->peer[best];
	*when = best_t;
	return best;
}

/*
 * Whether root device d's port x may be named a storm from its pause
 * tail alone (before a whole window shows it): x is a NIC, and nothing
 * pauses d at all. A switch that holds a peer paused without a break
 * while its own egress drains slowly (paused a little, or just busy) is
 * congestion spreading, not a storm; a NIC that stops draining its
 * receive buffer is the storm (domain.md 4).
 */
static bool tail_root(const struct rules *r, uint32_t d, uint32_t x)
{
	return r->is_nic[x] && !(r->dpaused[d] > 0.01f);
}

/*
 * Sampling skew. Targets sample and deliver on their own phases (and a
 * loaded collector receives them late, one port's update at a time), so
 * at a tick one port's data may be a window newer than its neighbour's:
 * a device whose newer window shows it pausing next to data of an older
 * window that does not show it paused (yet, or any more) looks like a
 * root for a tick, a false storm or spreading origin one hop down the
 * real tree. So each change of a device's pause state (it starts
 * pausing, starts storming, stops being paused while it pauses) is
 * stamped with the arrival of the newest data that showed it, and the
 * device may be named a root only once every port of it and every peer
 * of those has delivered data from that round on (within
 * RULES_KICK_MAX_NS: the same round), i.e. windows that overlap the
 * change, or the older end of a link is outweighed by the newer one
 * (see onset_settled). That waits at most one interval of the slowest
 * of them, and
 * never more than RULES_SKEW_WAIT intervals (a port that stopped
 * reporting goes stale on its own rule).
 */
#define RULES_SKEW_WAIT 2

static void track_onsets(struct rules *r, int q, float thr)
{
	for (uint32_t d = 0; d < r->n_devs; d++) {
		float pw = 0;
		int64_t seen = r->dlast[d];
		for (uint32_t k = 0; k < r->dev_count[d]; k++) {
			uint32_t x = r->dev_ports[r->dev_first[d] + k];
			if (r->pw[x] > pw)
				pw = r->pw[x];
			if (r->peer[x] >= 0 &&
			    r->dlast[r->devi[r->peer[x]]] > seen)
				seen = r->dlast[r->devi[r->peer[x]]];
		}
		if (seen == INT64_MIN || seen == 0)
			seen = r->now_ms ? r->now_ms : 1;
		size_t i = (size_t)d * PRIOS + q;
		bool paused = r->dpaused[d] >= thr;
		if (pw < thr)
			r->donset[i] = 0;
		else if (!r->donset[i])
			r->donset[i] = seen;
		if (pw < (float)r->c.r.storm_ratio)
			r->dsonset[i] = 0;
		else if (!r->dsonset[i])
			r->dsonset[i] = seen;
		if (pw >= thr && !paused && r->dwas_paused[i])
			r->drelease[i] = seen;
		r->dwas_paused[i] = paused;
	}
}

/* Whether the older data of link end a (ports a and b are its two
 * ends) is outweighed by b's newer data: the link's weights (rules_weights())
 * take the greater of the two ends' figures, so a's older figures
 * change nothing when none is above b's. */
static bool outweighed(const struct rules *r, uint32_t a, uint32_t b, int q)
{
	size_t i = lix(r, a, q), j = lix(r, b, q);
	return !(qval(r, a, P_STORM_WARN) > 0) && r->rtx[i] <= r->rrx[j] &&
	       r->rrx[i] <= r->rtx[j] && r->ttx[i] <= r->trx[j] &&
	       r->trx[i] <= r->ttx[j];
}

/*
 * Whether every port of root candidate d and every peer of those has
 * delivered data from the round of its last pause-state change on (see
 * track_onsets), or the older end of a link changes nothing: its
 * figures are outweighed by the other end's newer ones (a host NIC,
 * read on the NIC collector's own phase, is then not waited for once
 * its switch port has shown what the NIC's read would).
 */
static bool onset_settled(const struct rules *r, uint32_t d, int q)
{
	size_t i = (size_t)d * PRIOS + q;
	int64_t t = r->donset[i];
	if (r->dsonset[i] > t)
		t = r->dsonset[i];
	if (r->drelease[i] > t)
		t = r->drelease[i];
	if (!t || r->now_ms - t >= (int64_t)RULES_SKEW_WAIT *
				       (r->def_iv_ms ? r->def_iv_ms : 1000))
		return true;
	int64_t from = t - RULES_KICK_MAX_NS / 1000000;
	for (uint32_t k = 0; k < r->dev_count[d]; k++) {
		uint32_t x = r->dev_ports[r->dev_first[d] + k];
		int32_t y = r->peer[x];
		bool old_x = r->plast[x] != INT64_MIN && r->plast[x] < from;
		bool old_y =
		    y >= 0 && r->plast[y] != INT64_MIN && r->plast[y] < from;
		if (!old_x && !old_y)
			continue;
		if (old_x && old_y)
			return false;
		/* One end is older: the other must be newer, with data. */
		uint32_t a = old_x ? x : (uint32_t)y;
		uint32_t b = old_x ? (uint32_t)y : x;
		if (y < 0 || r->plast[b] == INT64_MIN ||
		    !outweighed(r, a, b, q))
			return false;
	}
	return true;
}

/* The evidence of a root's incident: its strongest pausing port best,
 * the most occupied queue (occ_port, or NONE), whether the pause tail
 * (tail) made it a storm, and the tree's depth. */
static void root_evidence(struct rules *r, int q, uint32_t best,
			  uint32_t occ_port, float occ, bool tail,
			  unsigned depth)
{
	struct cand *c = &r->cand;
	rules_cand_ev(r, c, "pause_ratio_tx", best, r->pw[best]);
	if (has_peer(r, best))
		rules_cand_ev(r, c, "peer_pause_ratio_rx",
			      (uint32_t)r->peer[best],
			      r->rrx[lix(r, (uint32_t)r->peer[best], q)]);
	if (occ_port != NONE)
		rules_cand_ev(r, c, "queue_occupancy_bytes", occ_port, occ);
	if (qhas(r, best, P_STORM_WARN))
		rules_cand_ev(r, c, "nic_pause_storm_warnings_per_s", best,
			      qval(r, best, P_STORM_WARN));
	if (has_peer(r, best) && phas(r, (uint32_t)r->peer[best], q, F_TX_PKTS))
		rules_cand_ev(r, c, "peer_tx_pps", (uint32_t)r->peer[best],
			      pval(r, (uint32_t)r->peer[best], q, F_TX_PKTS));
	if (tail)
		rules_cand_ev(r, c, "paused_for_seconds", best, r->pt[best]);
	rules_cand_ev(r, c, "tree_depth_hops", NONE, depth);
	rules_cand_ev(r, c, "tree_ports", NONE, (double)c->n_subs);
}

/* Roots: ports pausing on q whose device is not paused. A root's pause
 * tree is a PFC storm (the root held paused) or congestion spreading
 * (the tree reaches spreading_hops). */
static void root_rules(struct rules *r, int q, int64_t now, float thr,
		       uint32_t root_stamp)
{
	struct cand *c = &r->cand;
	for (uint32_t p = 0; p < r->n_ports; p++) {
		if (r->pw[p] < thr)
			continue;
		uint32_t d = r->devi[p];
		if (r->dpaused[d] >= thr || r->dstamp[d] == root_stamp)
			continue;
		/* The root's strongest pausing port, and its most
		 * occupied queue (a congested egress). */
		uint32_t best = p, occ_port = NONE;
		float occ = 0;
		for (uint32_t k = 0; k < r->dev_count[d]; k++) {
			uint32_t x = DEV_PORTS(r, d)[k];
			if (r->pw[x] > r->pw[best])
				best = x;
			if (pval(r, x, q, F_OCC) > occ && r->pw[x] < thr) {
				occ = pval(r, x, q, F_OCC);
				occ_port = x;
			}
		}
		/* A storm: held paused for the window (the ratio), or one
		 * pause still on at the sample that began storm_for ago or
		 * more (its tail: the window that saw it begin). */
		bool whole = r->pw[best] >= r->c.r.storm_ratio;
		bool storm =
		    whole || (tail_root(r, d, best) &&
			      r->pt[best] * 1e9 >= r->c.r.storm_for_ns);
		uint32_t origin = storm || occ_port == NONE ? best : occ_port;
		/* Not yet: a neighbour's data may be a window behind (see
		 * track_onsets). */
		/* Held back for skew: a new incident counts from the data
		 * that showed it when first held back (the wait is not the
		 * condition's absence), if it was held back up to the last
		 * interval. */
		size_t hi = (size_t)d * PRIOS + q;
		int64_t iv = r->def_iv_ms ? r->def_iv_ms : 1000;
		bool recent =
		    r->dheld_from[hi] && r->now_ms - r->dheld_last[hi] <= iv;
		if (!onset_settled(r, d, q)) {
			if (!recent)
				r->dheld_from[hi] = edge_ms(r, best, q, thr);
			r->dheld_last[hi] = r->now_ms;
			continue;
		}
		int64_t held_from = recent ? r->dheld_from[hi] : 0;
		r->dheld_from[hi] = 0;
		rules_cand_reset(c);
		unsigned depth =
		    rules_pause_tree(r, d, q, origin, origin == best);
		c->data_ms = storm ? edge_ms(r, best, q, thr)
				   : tree_ms(c, r->c.r.spreading_hops);
		if (held_from && c->data_ms > held_from)
			c->held_ns =
			    (c->data_ms - held_from) * 1000000 + r->c.window_ns;
		if (storm && !whole && r->pt[best] * 1e9 > c->held_ns)
			c->held_ns = (int64_t)(r->pt[best] * 1e9);
		root_evidence(r, q, best, occ_port, occ, storm && !whole,
			      depth);
		/* The root has no fresh data: a storm from outside the
		 * view that the link table names (its peer shows it). */
		if (storm && !r->dfresh[d])
			c->sender = RULES_SENDER_UNMONITORED;
		if (storm)
			rules_assert_inc(r, RULES_PFC_STORM, r->pdev[origin],
					 r->pname[origin], q, r->pw[best], now,
					 c);
		else if (depth >= r->c.r.spreading_hops)
			rules_assert_inc(r, RULES_CONGESTION_SPREADING,
					 r->pdev[origin], r->pname[origin], q,
					 depth, now, c);
	}
}

/*
 * A storm from outside the view: port p, which no link joins to a peer,
 * held paused on q at the ratio of a storm for the window, or by one
 * pause still on at the sample that began storm_for ago or more (its
 * tail, when the window is paused at pause_ratio at least: a trickle's
 * lone pause is no storm), or stormed by the switch's own watchdog
 * (port_ratios: its receive ratio is then 1, no pause counter needed).
 * Its sender is out of fabmond's view, so the origin is p's far end:
 * subject 0 names p (far_end), p is its victim at depth 1, and p's
 * device's pausing ports are spreaders from there. The data that shows
 * it is p's own: with no peer there is no older end to wait for
 * (onset_settled). A port with a link is the graph's (root_rules): a
 * peer named but out of view is a root there; one in view and paused
 * itself is congestion spreading, not a storm from outside.
 */
static void far_end_storm(struct rules *r, int q, int64_t now, float thr,
			  uint32_t p)
{
	struct cand *c = &r->cand;
	size_t i = lix(r, p, q);
	float rx = r->rrx[i];
	bool whole = rx >= r->c.r.storm_ratio;
	bool tail =
	    !whole && rx >= thr && r->trx[i] * 1e9 >= r->c.r.storm_for_ns;
	if (!whole && !tail)
		return;
	rules_cand_reset(c);
	c->far_end = true;
	c->sender = RULES_SENDER_UNMONITORED;
	c->data_ms = r->plast[p] > 0 ? r->plast[p] : r->now_ms;
	if (tail)
		c->held_ns = (int64_t)(r->trx[i] * 1e9);
	rules_cand_sub(r, c, p, 0, q, RULES_ROLE_ORIGIN, -1, 0);
	c->sub_ms[0] = INT64_MAX;
	int sv = rules_cand_sub(r, c, p, 0, q, RULES_ROLE_VICTIM, 0, 1);
	size_t qtail = 0;
	unsigned depth = 1;
	if (sv > 0)
		c->sub_ms[sv] = c->data_ms;
	if (sv > 0 && add_spreaders(r, q, thr, r->devi[p], p, sv, 1, &qtail))
		depth = grow_tree(r, q, thr, qtail, 1);
	rules_cand_ev(r, c, "pause_ratio_rx", p, rx);
	if (phas(r, p, q, F_WD))
		rules_cand_ev(r, c, "pfc_watchdog", p, pval(r, p, q, F_WD));
	if (phas(r, p, q, F_TX_PKTS))
		rules_cand_ev(r, c, "tx_pps", p, pval(r, p, q, F_TX_PKTS));
	if (tail)
		rules_cand_ev(r, c, "paused_for_seconds", p, r->trx[i]);
	rules_cand_ev(r, c, "tree_depth_hops", NONE, depth);
	rules_cand_ev(r, c, "tree_ports", NONE, (double)c->n_subs);
	rules_assert_inc(r, RULES_PFC_STORM, r->pdev[p], r->pname[p], q, rx,
			 now, c);
}

/* Storms from outside the view (far_end_storm) on q: ports with fresh
 * data and no link, held paused. */
static void outside_rules(struct rules *r, int q, int64_t now, float thr)
{
	for (uint32_t p = 0; p < r->n_ports; p++)
		if (!has_peer(r, p) && r->rrx[lix(r, p, q)] >= thr &&
		    (r->valid[p] & PV_FRESH))
			far_end_storm(r, q, now, thr, p);
}

/*
 * A cycle of paused devices is on the DFS stack from from to sp - 1
 * (stk_via: the port of each that pauses the next): marks its members
 * for queue_rules and asserts a deadlock when every member is stuck.
 */
static void on_cycle(struct rules *r, int q, int64_t now, size_t from,
		     size_t sp)
{
	struct cand *c = &r->cand;
	bool stuck = true;
	uint32_t first = r->stk_via[from];
	/* How long every member has been stuck: a window
	 * without progress, or a pause still on at its sample
	 * (its tail: no progress since it began). */
	float held = INFINITY;
	for (size_t i = from; i < sp; i++) {
		uint32_t m = r->stk_via[i];
		bool progress =
		    phas(r, m, q, F_TX_PKTS)
			? pval(r, m, q, F_TX_PKTS) > r->c.r.deadlock_progress
			: r->dw[m] < r->c.r.storm_ratio;
		float mh = progress ? 0 : (float)r->c.window_ns / 1e9f;
		if (r->dt[m] > mh)
			mh = r->dt[m];
		progress = !(mh > 0);
		if (mh > 0 && mh < held)
			held = mh;
		if (progress)
			stuck = false;
		int cmp = strcmp(rules_lbl(r, r->pdev[m]),
				 rules_lbl(r, r->pdev[first]));
		if (cmp < 0 ||
		    (cmp == 0 && strcmp(rules_lbl(r, r->pname[m]),
					rules_lbl(r, r->pname[first])) < 0))
			first = m;
	}
	/* Every cycle's members, stuck or still moving,
	 * for the drops it causes (queue_rules). */
	for (size_t i = from; i < sp; i++) {
		r->cycle_at[r->stk_via[i]] = now;
		r->cycle_key[r->stk_via[i]] = first;
	}
	if (!stuck)
		return;
	/* A cycle forms when rerouting after a link failure
	 * bounces traffic back up (TAGGER's 1-bounce paths):
	 * the most recent link failure on the cycle's
	 * switches is where it started. */
	int64_t down_t = 0;
	uint32_t cause = deadlock_cause(r, from, sp, now, &down_t);
	uint32_t origin = cause != NONE ? cause : first;
	rules_cand_reset(c);
	c->held_ns = (int64_t)(held * 1e9);
	rules_cand_sub(r, c, origin, 0, q, RULES_ROLE_ORIGIN, -1, 0);
	float minw = 1;
	for (size_t i = from; i < sp; i++) {
		uint32_t m = r->stk_via[i];
		if (r->dw[m] < minw)
			minw = r->dw[m];
		if (m != origin)
			rules_cand_sub(r, c, m, 0, q, RULES_ROLE_MEMBER, 0, 1);
		rules_cand_ev(r, c, "pause_ratio_rx", m, r->dw[m]);
	}
	rules_cand_ev(r, c, "cycle_length", NONE, (double)(sp - from));
	if (cause != NONE)
		rules_cand_ev(r, c, "link_down_seconds_ago", cause,
			      (double)(now - down_t) / 1e9);
	rules_assert_inc(r, RULES_PFC_DEADLOCK, r->pdev[origin],
			 r->pname[origin], q, minw, now, c);
}

/* Paused devices no root reached: look for cycles among them (a DFS
 * over the devices, colours white/grey/black). */
static void cycle_rules(struct rules *r, int q, int64_t now, float thr,
			uint32_t root_stamp)
{
	for (uint32_t d = 0; d < r->n_devs; d++)
		r->dcolour[d] = 0;
	for (uint32_t d0 = 0; d0 < r->n_devs; d0++) {
		if (r->dpaused[d0] < thr || r->dstamp[d0] == root_stamp ||
		    r->dcolour[d0])
			continue;
		size_t sp = 0;
		r->stk_dev[sp] = d0;
		r->stk_pos[sp] = 0;
		r->dcolour[d0] = 1;
		sp = 1;
		while (sp) {
			uint32_t d = r->stk_dev[sp - 1];
			uint32_t k = r->stk_pos[sp - 1]++;
			if (k >= r->dev_count[d]) {
				r->dcolour[d] = 2;
				sp--;
				continue;
			}
			uint32_t y = DEV_PORTS(r, d)[k];
			if (r->dw[y] < thr || !has_peer(r, y))
				continue;
			uint32_t e = r->devi[(uint32_t)r->peer[y]];
			if (r->dpaused[e] < thr || r->dstamp[e] == root_stamp ||
			    r->dcolour[e] == 2)
				continue;
			r->stk_via[sp - 1] = y;
			if (r->dcolour[e] == 0) {
				r->dcolour[e] = 1;
				r->stk_dev[sp] = e;
				r->stk_pos[sp] = 0;
				sp++;
				continue;
			}
			/* e is on the stack: the cycle is e .. d. */
			size_t from = sp - 1;
			while (r->stk_dev[from] != e)
				from--;
			on_cycle(r, q, now, from, sp);
		}
	}
}

void rules_pause_rules(struct rules *r, int q, int64_t now)
{
	float thr = (float)r->c.r.pause_ratio;

	rules_weights(r, q);
	track_onsets(r, q, thr);
	r->stamp++;
	if (r->stamp == 0) {
		memset(r->dstamp, 0, r->n_devs * sizeof *r->dstamp);
		r->stamp = 1;
	}
	uint32_t root_stamp = r->stamp;
	root_rules(r, q, now, thr, root_stamp);
	outside_rules(r, q, now, thr);
	cycle_rules(r, q, now, thr, root_stamp);
}

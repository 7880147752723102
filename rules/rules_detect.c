/*
 * rules_detect: the rule engine's detections other than the pause
 * graph's (part of rules.c's engine; see rules.h, rules_int.h and
 * doc/rules.md): the queues (incast, lossless drops, ECN after PFC),
 * PFC on lossy priorities, NICs (ECN without CNP), link flaps, silent
 * targets and rail misalignment.
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

/* Whether port p was on a pause cycle lately: within the clear
 * duration and a sample (the drops that break a cycle come as it
 * dissolves). */
static bool in_cycle(const struct rules *r, uint32_t p, int64_t now)
{
	return r->cycle_at[p] &&
	       now - r->cycle_at[p] <=
		   (int64_t)r->c.r.clear_ns + 2 * r->c.window_ns;
}

/*
 * The egress the traffic of device d at priority q is heading to: the
 * most occupied queue, else the busiest port running at a tenth of its
 * speed or more (a burst may fill only part of a sample); NONE if
 * neither.
 */
static uint32_t busiest_egress(const struct rules *r, uint32_t d, int q)
{
	uint32_t best = NONE, busy = NONE;
	double occ = 0, util = 0.1;
	for (uint32_t k = 0; k < r->dev_count[d]; k++) {
		uint32_t x = DEV_PORTS(r, d)[k];
		if (pval(r, x, q, F_OCC) > occ) {
			occ = pval(r, x, q, F_OCC);
			best = x;
		}
		/* The speed is the port's, else its peer's (SONiC's
		 * counters carry none). */
		double speed = qval(r, x, P_SPEED);
		if (!(speed > 0) && has_peer(r, x))
			speed = qval(r, (uint32_t)r->peer[x], P_SPEED);
		if (qhas(r, x, P_TX_BYTES) && speed > 0) {
			double u = qval(r, x, P_TX_BYTES) / speed;
			if (u >= util) {
				util = u;
				busy = x;
			}
		}
	}
	return best != NONE ? best : busy;
}

/* ecn_after_pfc and lossless_drop at priority q (rules_weights() done). */
/* ECN after PFC: a device that pauses a peer on q while none of its
 * queues marks ECN (its ECN threshold sits above Xoff). */
static void ecn_after_pfc_rules(struct rules *r, int q, int64_t now)
{
	struct cand *c = &r->cand;
	float thr = (float)r->c.r.ecn_pause_ratio;

	for (uint32_t d = 0; d < r->n_devs; d++) {
		if (r->dpaused[d] >= r->c.r.pause_ratio)
			continue;
		/* Nothing to say of a device that pauses no peer (most). */
		bool pausing = false;
		for (uint32_t k = 0; k < r->dev_count[d] && !pausing; k++)
			pausing = r->rtx[lix(r, DEV_PORTS(r, d)[k], q)] >= thr;
		if (!pausing)
			continue;
		bool ecn_known = false, occ_known = false;
		double marks = 0, occ = -1, best_pw = 0;
		uint32_t occ_port = NONE, pause_port = NONE;
		for (uint32_t k = 0; k < r->dev_count[d]; k++) {
			uint32_t x = DEV_PORTS(r, d)[k];
			float own = r->rtx[lix(r, x, q)];
			if (phas(r, x, q, F_ECN)) {
				ecn_known = true;
				marks += pval(r, x, q, F_ECN);
			}
			if (own >= thr) {
				pausing = true;
				if (own > best_pw) {
					best_pw = own;
					pause_port = x;
				}
			}
			if (phas(r, x, q, F_OCC))
				occ_known = true;
			if (phas(r, x, q, F_OCC) &&
			    pval(r, x, q, F_OCC) > occ && own < thr) {
				occ = pval(r, x, q, F_OCC);
				occ_port = x;
			}
		}
		/* Where queue depths are known, a pause with every egress
		 * queue empty comes from the ingress buffers alone (a
		 * headroom fault, seen as drops), not from a queue that
		 * should have marked. */
		if (!ecn_known || !pausing || marks > 0 ||
		    (occ_known && !(occ > 0)))
			continue;
		/* Paused itself, below pause_ratio but at least half as
		 * much as it pauses: it relays the pause it receives (a
		 * spreader as the pause reaches it), which starts where
		 * the tree's root did not mark. */
		if (r->dpaused[d] >= thr && 2 * r->dpaused[d] >= best_pw)
			continue;
		uint32_t origin =
		    occ_port != NONE && occ > 0 ? occ_port : pause_port;
		/* The victims: the pause tree below it (the senders it
		 * holds paused and, hop by hop, those upstream), and every
		 * peer it pauses even lightly. */
		rules_cand_reset(c);
		if (++r->stamp == 0) {
			memset(r->dstamp, 0, r->n_devs * sizeof *r->dstamp);
			r->stamp = 1;
		}
		rules_pause_tree(r, d, q, origin, origin == pause_port);
		for (uint32_t k = 0; k < r->dev_count[d]; k++) {
			uint32_t x = DEV_PORTS(r, d)[k];
			if (r->rtx[lix(r, x, q)] >= thr && has_peer(r, x) &&
			    !rules_cand_has(c, (uint32_t)r->peer[x]))
				rules_cand_sub(r, c, (uint32_t)r->peer[x], 0, q,
					       RULES_ROLE_VICTIM, 0, 1);
		}
		rules_cand_ev(r, c, "pause_ratio_tx", pause_port, best_pw);
		rules_cand_ev(r, c, "ecn_marked_pps", NONE, marks);
		/* Receive discards at the pausing port that are no lossless
		 * drop of their own (drop_rules) still say something. */
		if (qval(r, pause_port, P_DISC_RX) > 0)
			rules_cand_ev(r, c, "rx_discards_pps", pause_port,
				      qval(r, pause_port, P_DISC_RX));
		if (occ_port != NONE)
			rules_cand_ev(r, c, "queue_occupancy_bytes", occ_port,
				      occ);
		rules_assert_inc(r, RULES_ECN_AFTER_PFC, r->pdev[origin],
				 r->pname[origin], q, best_pw, now, c);
	}
}

/*
 * Whether nothing that could still explain drops at switch port p (q,
 * first shown by data that arrived at arr) is yet to come in: no port of
 * p's device is paused by another switch (a pause cycle runs through
 * switches only, so one through the device, forming or breaking, would
 * need one), and the device at the other end of p's link has delivered
 * data that arrived at arr or later, so a link change there
 * (rules_link_near) up to the drops' sample would show. Arrival, not
 * the same round: a sample of the peer taken a moment before the drops'
 * may predate the change that caused them.
 */
static bool drops_settled(const struct rules *r, uint32_t p, int64_t arr)
{
	uint32_t d = r->devi[p];
	float thr = (float)r->c.r.pause_ratio;
	for (uint32_t k = 0; k < r->dev_count[d]; k++) {
		uint32_t x = DEV_PORTS(r, d)[k];
		if (r->dw[x] >= thr && has_peer(r, x) && !r->is_nic[r->peer[x]])
			return false;
	}
	if (!has_peer(r, p))
		return true;
	int64_t seen = r->dlast[r->devi[r->peer[p]]];
	return seen != INT64_MIN && arr != INT64_MIN && seen >= arr;
}

/*
 * A switch's drops wait for the other samples of their interval: targets
 * publish on phases of their own, so what explains drops seen at one
 * switch (a pause cycle the other switches' samples close, a link change
 * another switch reports) may come in up to a sample interval later.
 * Drops off a cycle are held from the tick that first shows them, their
 * peak kept, until what could explain them has come in (drops_settled:
 * at once when it already has) or for a window at most, then judged;
 * while they go on after that they pass at once, until a window without
 * any. Returns whether they still wait; *drops: this tick's, on release
 * the held peak if greater.
 * dhold_at: 0 nothing, > 0 held since, < 0 released (-last seen).
 */
static bool drop_held(struct rules *r, uint32_t p, int q, int64_t now, bool cyc,
		      double *drops)
{
	size_t li = lix(r, p, q);
	int64_t at = r->dhold_at[li];
	if (at < 0) {
		if (now + at <= r->c.window_ns && *drops > 0) {
			r->dhold_at[li] = -now;
			return false;
		}
		r->dhold_at[li] = at = 0;
	}
	if (at > 0 && r->dhold_v[li] > *drops)
		*drops = r->dhold_v[li];
	int64_t arr = at > 0 ? r->dhold_arr[li] : r->plast[p];
	if (cyc || (at > 0 && now - at >= r->c.window_ns) ||
	    ((at > 0 || *drops > 0) && drops_settled(r, p, arr))) {
		if (at > 0)
			r->n_dhold--;
		r->dhold_at[li] = *drops > 0 ? -now : 0;
		return false;
	}
	if (!(*drops > 0))
		return false;
	if (!at) {
		r->dhold_at[li] = now;
		r->dhold_v[li] = 0;
		r->dhold_arr[li] = arr;
		r->n_dhold++;
	}
	if (*drops > r->dhold_v[li])
		r->dhold_v[li] = (float)*drops;
	return true;
}

/* Drops on the lossless priority: a switch is one incident per device,
 * a NIC one per port. */
static void drop_rules(struct rules *r, int q, int64_t now)
{
	struct cand *c = &r->cand;

	for (uint32_t p = 0; p < r->n_ports; p++) {
		/* Drops and discards are figures other than 0 that
		 * PV_ACTIVE marks. */
		if (!(r->valid[p] & PV_ACTIVE) &&
		    !(r->n_dhold && r->dhold_at[lix(r, p, q)] > 0))
			continue;
		/* A link going down or up flushes the port's queues: those
		 * drops are the link's (evidence on its link_flap). */
		if (rules_link_suspect(r, p, now)) {
			size_t li = lix(r, p, q);
			if (r->dhold_at[li] > 0)
				r->n_dhold--;
			r->dhold_at[li] = 0;
			continue;
		}
		double drops = pval(r, p, q, F_DROPS), base = -1;
		bool nic = r->is_nic[p];
		/* NIC buffer drops have no priority: count them once, on
		 * the lowest lossless one. */
		if (nic && q == __builtin_ctz(r->c.lossless | 0x100u))
			drops += qval(r, p, P_OOB);
		/* A switch without per-priority ingress drop counters
		 * (SONiC's gNMI tables have none for priority groups):
		 * receive discards are q's only when the port was really
		 * in XOFF on q (not a trickle of PFC) and they rose clearly
		 * above the port's own background (rules_base.c): its
		 * headroom overflowed. */
		double disc = qval(r, p, P_DISC_RX);
		if (!nic && !(drops > 0) && disc > 0 &&
		    rules_base_xoff(r, p, q) &&
		    rules_base_above(r, p, disc, &base))
			drops = disc;
		bool cyc = !nic && in_cycle(r, p, now);
		if (!nic && drop_held(r, p, q, now, cyc, &drops))
			continue;
		if (!(drops > 0))
			continue;
		/* A link change on the switch or on the one it sends to
		 * reroutes: what was queued for the old routes may be
		 * flushed at the ports around it, a sample before another
		 * switch reports the change or a cycle the new routes
		 * close is seen. Those drops are the link change's unless
		 * they are on a cycle. */
		if (!nic && !cyc && rules_link_near(r, p, now))
			continue;
		rules_cand_reset(c);
		store_label dev = r->pdev[p], port = nic ? r->pname[p] : 0;
		if (cyc) {
			/* Drops on the ports of a pause cycle (its buffers
			 * overflowing as it forms, or the watchdog breaking
			 * it): one incident for the cycle, at its member
			 * that sorts first, the other members its victims. */
			uint32_t o = r->cycle_key[p];
			rules_cand_sub(r, c, o, 0, q, RULES_ROLE_ORIGIN, -1, 0);
			for (uint32_t m = 0; m < r->n_ports; m++)
				if (m != o && r->cycle_key[m] == o &&
				    in_cycle(r, m, now))
					rules_cand_sub(r, c, m, 0, q,
						       RULES_ROLE_VICTIM, 0, 1);
			dev = r->pdev[o];
			port = r->pname[o];
		} else if (nic) {
			rules_cand_sub(r, c, p, 0, q, RULES_ROLE_ORIGIN, -1, 0);
			if (has_peer(r, p))
				rules_cand_sub(r, c, (uint32_t)r->peer[p], 0, q,
					       RULES_ROLE_VICTIM, 0, 1);
		} else {
			rules_cand_sub(r, c, NONE, r->pdev[p], q,
				       RULES_ROLE_ORIGIN, -1, 0);
			rules_cand_sub(
			    r, c, has_peer(r, p) ? (uint32_t)r->peer[p] : p, 0,
			    q, RULES_ROLE_VICTIM, 0, 1);
			uint32_t e = busiest_egress(r, r->devi[p], q);
			if (e != NONE && e != p && has_peer(r, e))
				rules_cand_sub(r, c, (uint32_t)r->peer[e], 0, q,
					       RULES_ROLE_VICTIM, 0, 1);
		}
		rules_cand_ev(r, c, "drops_pps", p, drops);
		if (base >= 0) {
			rules_cand_ev(r, c, "pause_ratio_tx", p,
				      r->rtx[lix(r, p, q)]);
			rules_cand_ev(r, c, "rx_discards_baseline_pps", p,
				      base);
		}
		if (qhas(r, p, P_RETRIES))
			rules_cand_ev(r, c, "transport_retries_per_s", p,
				      qval(r, p, P_RETRIES));
		if (has_peer(r, p) && qhas(r, (uint32_t)r->peer[p], P_RETRIES))
			rules_cand_ev(r, c, "peer_transport_retries_per_s",
				      (uint32_t)r->peer[p],
				      qval(r, (uint32_t)r->peer[p], P_RETRIES));
		rules_assert_inc(r, RULES_LOSSLESS_DROP, dev, port, q, drops,
				 now, c);
	}
}

void rules_queue_rules(struct rules *r, int q, int64_t now)
{
	ecn_after_pfc_rules(r, q, now);
	drop_rules(r, q, now);
}

void rules_lossy_rules(struct rules *r, int64_t now)
{
	struct cand *c = &r->cand;
	/* Port by port: a port's priorities share its view block. */
	for (uint32_t p = 0; p < r->n_ports; p++) {
		if (!(r->valid[p] & PV_LOSSY))
			continue;
		for (int q = 0; q < PRIOS; q++) {
			if (r->c.lossless & (1u << q))
				continue;
			float tx = pval(r, p, q, F_TX_FRAMES) +
				   pval(r, p, q, F_TX_PAUSE) * 1000;
			float rx = pval(r, p, q, F_RX_FRAMES) +
				   pval(r, p, q, F_RX_PAUSE) * 1000;
			uint32_t origin, victim;
			if (tx >= 0.5f) {
				origin = p;
				victim = has_peer(r, p) ? (uint32_t)r->peer[p]
							: NONE;
			} else if (rx >= 0.5f) {
				origin =
				    has_peer(r, p) ? (uint32_t)r->peer[p] : p;
				victim = has_peer(r, p) ? p : NONE;
			} else {
				continue;
			}
			rules_cand_reset(c);
			rules_cand_sub(r, c, origin, 0, q, RULES_ROLE_ORIGIN,
				       -1, 0);
			if (victim != NONE)
				rules_cand_sub(r, c, victim, 0, q,
					       RULES_ROLE_VICTIM, 0, 1);
			rules_cand_ev(r, c, "pfc_tx_fps", origin,
				      pval(r, origin, q, F_TX_FRAMES));
			if (victim != NONE)
				rules_cand_ev(r, c, "peer_pfc_rx_fps", victim,
					      pval(r, victim, q, F_RX_FRAMES));
			rules_assert_inc(r, RULES_PAUSE_ON_LOSSY,
					 r->pdev[origin], r->pname[origin], q,
					 tx > rx ? tx : rx, now, c);
		}
	}
}

void rules_nic_rules(struct rules *r, int64_t now)
{
	struct cand *c = &r->cand;
	int prio = rules_single_lossless(r);
	size_t senders = 0;

	/* Senders: NICs whose reaction point cut its rate. */
	for (uint32_t p = 0; p < r->n_ports; p++)
		if (r->is_nic[p] && qval(r, p, P_CNP_HANDLED) >= 1)
			r->queue[senders++] = p;

	for (uint32_t p = 0; p < r->n_ports; p++) {
		if (!r->is_nic[p])
			continue;
		double ce = qval(r, p, P_CE), cnp = qval(r, p, P_CNP_SENT);
		size_t others = senders;
		for (size_t i = 0; i < senders; i++)
			if (r->queue[i] == p)
				others--;
		/* An incast congests the receiver's last hop: where its
		 * switch port's queue is known, it must mark or hold data
		 * (marks met on a congested fabric link upstream, with the
		 * last hop idle, are not an incast). */
		int32_t y = has_peer(r, p) ? r->peer[p] : -1;
		bool last_hop = y < 0 || prio < 0 ||
				(!phas(r, (uint32_t)y, prio, F_ECN) &&
				 !phas(r, (uint32_t)y, prio, F_OCC)) ||
				pval(r, (uint32_t)y, prio, F_ECN) > 0 ||
				pval(r, (uint32_t)y, prio, F_OCC) > 0;
		/* ... and hold its queue above Kmin: then a good part of
		 * what it sends the receiver is marked. A microburst holds
		 * it there for a pause's tens of microseconds, marking a
		 * few per ten thousand (where the last hop's packets on
		 * the priority are known). */
		double sent = -1;
		if (y >= 0 && prio >= 0 &&
		    phas(r, (uint32_t)y, prio, F_TX_PKTS))
			sent = pval(r, (uint32_t)y, prio, F_TX_PKTS);
		if (sent >= 0 && ce < r->c.r.incast_ce_ratio * sent)
			last_hop = false;
		/* Senders DCQCN does not reach (no marks on their path)
		 * are held by pause instead: the NICs the receiver's
		 * switch pauses count too. */
		size_t paused = 0;
		if (y >= 0 && prio >= 0 && ce > 0 && last_hop) {
			uint32_t d = r->devi[y];
			for (uint32_t k = 0; k < r->dev_count[d]; k++) {
				uint32_t x = DEV_PORTS(r, d)[k];
				if ((int32_t)x == y || !has_peer(r, x))
					continue;
				uint32_t z = (uint32_t)r->peer[x];
				if (!r->is_nic[z] ||
				    r->rtx[lix(r, x, prio)] <
					r->c.r.pause_ratio ||
				    qval(r, z, P_CNP_HANDLED) >= 1)
					continue;
				r->qsub[paused++] = z;
			}
		}
		if (ce > 0 && cnp >= r->c.r.incast_min_cnp && last_hop &&
		    others + paused >= r->c.r.incast_senders) {
			rules_cand_reset(c);
			rules_cand_sub(r, c, p, 0, prio, RULES_ROLE_ORIGIN, -1,
				       0);
			for (size_t i = 0; i < senders; i++)
				if (r->queue[i] != p)
					rules_cand_sub(r, c, r->queue[i], 0,
						       prio, RULES_ROLE_VICTIM,
						       0, 1);
			for (size_t i = 0; i < paused; i++)
				rules_cand_sub(r, c, r->qsub[i], 0, prio,
					       RULES_ROLE_VICTIM, 0, 1);
			others += paused;
			rules_cand_ev(r, c, "roce_ce_pps", p, ce);
			rules_cand_ev(r, c, "cnp_sent_pps", p, cnp);
			rules_cand_ev(r, c, "senders", NONE, (double)others);
			if (sent > 0)
				rules_cand_ev(r, c, "ce_ratio", p, ce / sent);
			if (has_peer(r, p) && prio >= 0 &&
			    phas(r, (uint32_t)r->peer[p], prio, F_ECN))
				rules_cand_ev(
				    r, c, "ecn_marked_pps",
				    (uint32_t)r->peer[p],
				    pval(r, (uint32_t)r->peer[p], prio, F_ECN));
			rules_assert_inc(r, RULES_INCAST, r->pdev[p],
					 r->pname[p], prio, (double)others, now,
					 c);
		}
		bool no_cnp = ce >= r->c.r.ecn_min_ce &&
			      qhas(r, p, P_CNP_SENT) && cnp < 1;
		double ignored = qval(r, p, P_CNP_IGNORED);
		if (no_cnp || ignored >= 1) {
			rules_cand_reset(c);
			rules_cand_sub(r, c, p, 0, prio, RULES_ROLE_ORIGIN, -1,
				       0);
			/* The senders it fails to slow: upstream of its
			 * switch, the peers that switch pauses. */
			if (no_cnp && has_peer(r, p) && prio >= 0) {
				uint32_t d = r->devi[r->peer[p]];
				for (uint32_t k = 0; k < r->dev_count[d]; k++) {
					uint32_t x = DEV_PORTS(r, d)[k];
					if (x != (uint32_t)r->peer[p] &&
					    has_peer(r, x) &&
					    r->rtx[lix(r, x, prio)] >=
						r->c.r.pause_ratio)
						rules_cand_sub(
						    r, c, (uint32_t)r->peer[x],
						    0, prio, RULES_ROLE_VICTIM,
						    0, 1);
				}
			}
			rules_cand_ev(r, c, "roce_ce_pps", p, ce);
			rules_cand_ev(r, c, "cnp_sent_pps", p, cnp);
			rules_cand_ev(r, c, "cnp_ignored_pps", p, ignored);
			rules_assert_inc(r, RULES_ECN_WITHOUT_CNP, r->pdev[p],
					 r->pname[p], prio,
					 no_cnp ? ce : ignored, now, c);
		}
	}
}

/* Port p's drops on the lossless priorities, as a link_flap's
 * evidence. */
static void link_drops_ev(struct rules *r, struct cand *c, uint32_t p)
{
	double drops = 0;
	for (int q = 0; q < PRIOS; q++)
		if (r->c.lossless & (1u << q))
			drops += pval(r, p, q, F_DROPS);
	if (drops > 0)
		rules_cand_ev(r, c, "lossless_drops_pps", p, drops);
}

void rules_flap_rules(struct rules *r, int64_t now)
{
	struct cand *c = &r->cand;
	int64_t window = (int64_t)r->c.r.flap_window_ns;
	for (uint32_t p = 0; p < r->n_ports; p++) {
		if (!(r->valid[p] & PV_LINK) && !r->flap_n[p])
			continue;
		unsigned downs = 0;
		if (qhas(r, p, P_DOWN_TOTAL)) {
			/* Whole events: a total counted in halves (OpenConfig
			 * carrier-transitions) counts a flap once, when the
			 * link is back. */
			double v = qval(r, p, P_DOWN_TOTAL);
			if (r->down_seen[p] && v > r->down_last[p]) {
				rules_link_changed(r, p, now);
				downs =
				    (unsigned)(floor(v + 1e-6) -
					       floor(r->down_last[p] + 1e-6));
				/* When it went down: link_up says better
				 * (a total in halves also moves when the
				 * link comes back). */
				if (!qhas(r, p, P_LINK_UP))
					r->down_at[p] = now;
			}
			r->down_last[p] = v;
			r->down_seen[p] = 1;
		}
		if (qhas(r, p, P_LINK_UP)) {
			int up = qval(r, p, P_LINK_UP) > 0.5;
			if (r->link_last[p] >= 0 && r->link_last[p] != up)
				rules_link_changed(r, p, now);
			if (r->link_last[p] == 1 && !up) {
				if (!qhas(r, p, P_DOWN_TOTAL))
					downs = 1;
				r->down_at[p] = now;
			}
			r->link_last[p] = (int8_t)up;
		}
		int64_t *ring = &r->flap_t[(size_t)p * FLAP_RING];
		for (unsigned i = 0; i < downs && i < FLAP_RING; i++) {
			memmove(ring + 1, ring, (FLAP_RING - 1) * sizeof *ring);
			ring[0] = now;
			if (r->flap_n[p] < FLAP_RING)
				r->flap_n[p]++;
		}
		unsigned recent = 0;
		for (unsigned i = 0; i < r->flap_n[p]; i++)
			if (now - ring[i] < window)
				recent++;
		if (recent < r->c.r.flap_count)
			continue;
		/* One incident per link: the end whose name sorts first. */
		uint32_t origin = p, victim = NONE;
		if (has_peer(r, p)) {
			uint32_t o = (uint32_t)r->peer[p];
			int cmp = strcmp(rules_lbl(r, r->pdev[o]),
					 rules_lbl(r, r->pdev[p]));
			if (cmp < 0 ||
			    (cmp == 0 &&
			     strcmp(rules_lbl(r, r->pname[o]),
				    rules_lbl(r, r->pname[p])) < 0)) {
				origin = o;
				victim = p;
			} else {
				victim = o;
			}
		}
		rules_cand_reset(c);
		rules_cand_sub(r, c, origin, 0, -1, RULES_ROLE_ORIGIN, -1, 0);
		if (victim != NONE)
			rules_cand_sub(r, c, victim, 0, -1, RULES_ROLE_VICTIM,
				       0, 1);
		rules_cand_ev(r, c, "link_down_events_in_window", p, recent);
		/* Drops at its ends are the link's (drop_rules passes them
		 * over): the queues it flushed. */
		link_drops_ev(r, c, origin);
		if (victim != NONE)
			link_drops_ev(r, c, victim);
		rules_assert_inc(r, RULES_LINK_FLAP, r->pdev[origin],
				 r->pname[origin], -1, recent, now, c);
	}
}

/* A device that sent data before and whose fastest series are now all
 * stale (the store's staleness: stale_intervals sample intervals) and
 * older than silent_for. */
void rules_target_rules(struct rules *r, int64_t now)
{
	struct cand *c = &r->cand;
	unsigned k_stale;
	uint32_t def_iv;
	store_stale_rule(r->st, &k_stale, &def_iv);
	for (uint32_t d = 0; d < r->n_devs; d++) {
		if (!r->dseen[d] || r->dage[d] == INT64_MAX ||
		    r->dage[d] < r->c.silent_ns)
			continue;
		/* Its fastest series stale (a slow one, a priority
		 * group's drops every 10 s, does not keep a silent target
		 * alive); a device with no sampled series is silent only
		 * when every series is stale. */
		if (r->div[d] >= UINT32_MAX - 1
			? r->dfresh[d]
			: r->dage[d] < (int64_t)k_stale * r->div[d] * 1000000)
			continue;
		rules_cand_reset(c);
		rules_cand_sub(r, c, NONE, r->dlabel[d], -1, RULES_ROLE_ORIGIN,
			       -1, 0);
		rules_cand_ev(r, c, "seconds_since_data", NONE,
			      (double)r->dage[d] / 1e9);
		rules_assert_inc(r, RULES_TARGET_SILENT, r->dlabel[d], 0, -1,
				 (double)r->dage[d] / 1e9, now, c);
	}
}

void rules_rail_rules(struct rules *r, int64_t now)
{
	struct cand *c = &r->cand;
	for (size_t i = 0; i + 1 < r->n_rail_bad; i += 2) {
		uint32_t nic = r->rail_bad[i], leaf = r->rail_bad[i + 1];
		rules_cand_reset(c);
		rules_cand_sub(r, c, nic, 0, -1, RULES_ROLE_ORIGIN, -1, 0);
		rules_cand_sub(r, c, leaf, 0, -1, RULES_ROLE_VICTIM, 0, 1);
		rules_assert_inc(r, RULES_RAIL_MISALIGNMENT, r->pdev[nic],
				 r->pname[nic], -1, 1, now, c);
	}
}

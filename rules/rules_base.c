/*
 * rules_base: the rule engine's per-port baselines (part of rules.c's
 * engine; see rules_int.h and doc/rules.md, "Baselines"), and the
 * windows in which a port's drops belong to its link.
 *
 * A switch port's receive discards have a background of their own
 * (ACL and TTL drops, unknown destinations): from a hundredth of a
 * packet per second on a quiet port to several on a busy one. They are
 * a lossless drop only when they rise clearly above what is normal for
 * that port, so each port learns its normal: a decayed mean and a
 * decayed mean absolute deviation of its discards, updated once per
 * fresh sample (a held sample is not counted twice: the sample's
 * arrival is its identity), never from a suspect window (the port in
 * XOFF above discard_pause_ratio on a lossless priority, or its link
 * changing), decaying with a time constant of BASE_TAU_S.
 *
 * Cost: a port is visited only in a tick that shows it discarding (a
 * figure other than 0: PV_ACTIVE); the samples in between, whose
 * discards were 0, are counted as zeros when it is next visited, in
 * closed form. A quiet fabric's tick does nothing here. The baselines
 * are an array sized with the ports (grow_ports): nothing is allocated
 * in steady state.
 *
 * Runs under the engine's lock, on the ticking thread.
 */
#include "config.h"

#include "rules.h"

#include "rules_int.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* The baseline's memory: ten minutes, long enough that a burst of a
 * minute moves it little, short enough to follow a new ACL within the
 * hour. */
#define BASE_TAU_S 600.0
/* Samples before a port's baseline is used: fewer say too little of
 * its spread (the Poisson term below covers what they miss). */
#define BASE_WARM 8
/* "Clearly above": the mean plus BASE_K deviations, and at least
 * BASE_FLOOR_PPS; a Poisson background of mean m over a window of T s
 * has a standard deviation of sqrt(m / T) per second, so BASE_K of those
 * too (a short history may underestimate the spread). */
#define BASE_K	       6.0
#define BASE_FLOOR_PPS 5.0
/* Drops within this many sample windows of a link change are the
 * link's: the change's own sample and the next (counters and link state
 * may come from different polls). */
#define LINK_WINDOWS 2

/* A baseline being computed (the stored one, caught up). */
struct est {
	double mean, dev, n;
};

/* The decay of one sample of iv_ms. */
static double alpha_of(double iv_ms)
{
	return 1 - exp(-iv_ms * 1e-3 / BASE_TAU_S);
}

/* One sample x with weight max(a, 1 / (n + 1)): a running mean at
 * first, a decayed one from 1 / a samples on. */
static void est_step(struct est *e, double x, double a)
{
	if (e->n < 1) {
		e->mean = x;
		e->dev = 0;
		e->n = 1;
		return;
	}
	double w = 1 / (e->n + 1);
	if (w < a)
		w = a;
	e->dev += w * (fabs(x - e->mean) - e->dev);
	e->mean += w * (x - e->mean);
	e->n++;
}

/*
 * m samples of 0, in closed form. Running phase (n < 1 / a): the mean
 * scales by n / (n + k); the deviation averages in |0 - mean_i| =
 * mean n / i for i = n .. n + k - 1, a harmonic sum (ln). Decayed
 * phase: mean (1 - a)^m, deviation (1 - a)^m dev + a m (1 - a)^(m-1)
 * mean.
 */
static void est_zeros(struct est *e, double m, double a)
{
	if (!(m >= 1))
		return;
	if (e->n < 1) {
		est_step(e, 0, a);
		m--;
	}
	double run = floor(1 / a) - e->n;
	if (run > 0 && m >= 1) {
		double k = m < run ? m : run, n = e->n;
		double h = log((n + k - 0.5) / (n - 0.5));
		e->dev = (n * e->dev + e->mean * n * h) / (n + k);
		e->mean *= n / (n + k);
		e->n += k;
		m -= k;
	}
	if (m >= 1) {
		double d1 = pow(1 - a, m - 1);
		e->dev = d1 * (1 - a) * e->dev + a * m * d1 * e->mean;
		e->mean *= d1 * (1 - a);
		e->n += m;
	}
}

/* Port p's baseline caught up to its discards' sample at hand; false
 * when that sample cannot be placed (no stamp). *at: its arrival. */
static bool caught_up(const struct rules *r, uint32_t p, struct est *e,
		      int64_t *at, double *iv_ms)
{
	const struct dbase *b = &r->base[p];
	const struct pstamp *ps = &vblk(r, p)[r->vdst].ps;
	if (!b->seeded || ps->age_ms == UINT16_MAX)
		return false;
	*iv_ms = ps->iv_ms ? ps->iv_ms : r->def_iv_ms ? r->def_iv_ms : 1000;
	*at = r->now_ms - ps->age_ms;
	e->mean = b->mean;
	e->dev = b->dev;
	e->n = b->n;
	/* The samples between the last counted and this one showed no
	 * discards (the port would have been visited). */
	if (*at > b->at_ms) {
		double gap = (double)(*at - b->at_ms) / *iv_ms;
		double m = floor(gap + 0.5) - 1;
		est_zeros(e, m > 1e9 ? 1e9 : m, alpha_of(*iv_ms));
	}
	return true;
}

void rules_base_seed(struct rules *r, uint32_t p)
{
	struct dbase *b = &r->base[p];
	if (b->seeded)
		return;
	b->seeded = 1;
	b->at_ms = r->now_ms;
	b->mean = b->dev = 0;
	b->n = 0;
}

bool rules_base_above(const struct rules *r, uint32_t p, double x, double *mean)
{
	struct est e;
	int64_t at;
	double iv_ms;
	*mean = 0;
	if (!caught_up(r, p, &e, &at, &iv_ms))
		return false;
	*mean = e.mean;
	if (e.n < BASE_WARM)
		return false;
	double spread = BASE_K * e.dev;
	double poisson = BASE_K * sqrt(e.mean / (iv_ms * 1e-3));
	if (poisson > spread)
		spread = poisson;
	if (spread < BASE_FLOOR_PPS)
		spread = BASE_FLOOR_PPS;
	return x >= e.mean + spread;
}

/* A window whose discards say nothing of the port's normal: the port
 * held its peer paused on a lossless priority (the discards may be a
 * headroom's), or its link changed. */
static bool suspect(const struct rules *r, uint32_t p, int64_t now)
{
	float thr = (float)r->c.r.discard_pause_ratio;
	for (int q = 0; q < PRIOS; q++)
		if ((r->c.lossless & (1u << q)) && r->rtx[lix(r, p, q)] >= thr)
			return true;
	return rules_link_suspect(r, p, now);
}

void rules_base_learn(struct rules *r, int64_t now)
{
	for (uint32_t p = 0; p < r->n_ports; p++) {
		if (!(r->valid[p] & PV_ACTIVE) || r->is_nic[p] ||
		    !qhas(r, p, P_DISC_RX))
			continue;
		struct dbase *b = &r->base[p];
		struct est e;
		int64_t at;
		double iv_ms;
		if (!caught_up(r, p, &e, &at, &iv_ms) || at <= b->at_ms)
			continue; /* no stamp, or a held sample */
		b->at_ms = at;
		if (!suspect(r, p, now))
			est_step(&e, qval(r, p, P_DISC_RX), alpha_of(iv_ms));
		b->mean = (float)e.mean;
		b->dev = (float)e.dev;
		b->n = e.n >= UINT32_MAX ? UINT32_MAX : (uint32_t)e.n;
	}
}

static bool link_recent(const struct rules *r, uint32_t p, int64_t now)
{
	int64_t t = r->base[p].link_ns;
	return t &&
	       now - t <= LINK_WINDOWS * r->c.window_ns + r->c.window_ns / 4;
}

bool rules_link_suspect(const struct rules *r, uint32_t p, int64_t now)
{
	if (qhas(r, p, P_LINK_UP) && qval(r, p, P_LINK_UP) < 0.5f)
		return true;
	/* Its link state moved this tick (flap_rules, which runs after
	 * the drop rules, has not yet stamped it). */
	if (r->valid[p] & PV_LINK)
		return true;
	if (link_recent(r, p, now))
		return true;
	/* The other end may report the change first. */
	return has_peer(r, p) && link_recent(r, (uint32_t)r->peer[p], now);
}

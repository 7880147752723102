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
 * XOFF on a lossless priority, or its link changing), decaying with a
 * time constant of BASE_TAU_S. "In XOFF" is judged the same way: the
 * port's tx pause ratio on each lossless priority has a baseline too
 * (its PFC trickle ranges from 1e-5 to 1e-2 by port), and a window is
 * in XOFF when the ratio is at least discard_pause_ratio and clearly
 * above that baseline.
 *
 * Cost: a port is visited only in a tick that shows it discarding or
 * pausing (a figure other than 0: PV_ACTIVE); the samples in between,
 * which showed neither, are counted as zeros when it is next visited,
 * in closed form. The baselines are arrays sized with the ports
 * (grow_ports): nothing is allocated in steady state.
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
 * first, a decayed one from 1 / a samples on; slow: weight a only. */
static void est_step(struct est *e, double x, double a, bool slow)
{
	if (e->n < 1 && !slow) {
		e->mean = x;
		e->dev = 0;
		e->n = 1;
		return;
	}
	double w = 1 / (e->n + 1);
	if (w < a || slow)
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
		est_step(e, 0, a, false);
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

/*
 * The samples between the last counted and port p's discards' sample
 * at hand (they showed neither discards nor pause: the port would have
 * been visited) as *m; false when that sample cannot be placed (no
 * stamp). *at: its arrival, *iv_ms: its interval.
 */
static bool gap_of(const struct rules *r, uint32_t p, int64_t *at,
		   double *iv_ms, double *m)
{
	const struct dbase *b = &r->base[p];
	const struct pstamp *ps = &vblk(r, p)[r->vdst].ps;
	if (!b->seeded || ps->age_ms == UINT16_MAX)
		return false;
	*iv_ms = ps->iv_ms ? ps->iv_ms : r->def_iv_ms ? r->def_iv_ms : 1000;
	*at = r->now_ms - ps->age_ms;
	*m = 0;
	if (*at > b->at_ms) {
		double g = floor((double)(*at - b->at_ms) / *iv_ms + 0.5) - 1;
		*m = g > 1e9 ? 1e9 : g;
	}
	return true;
}

/* Port p's discard baseline caught up to its sample at hand. */
static bool disc_est(const struct rules *r, uint32_t p, struct est *e,
		     double *iv_ms)
{
	int64_t at;
	double m;
	if (!gap_of(r, p, &at, iv_ms, &m))
		return false;
	const struct dbase *b = &r->base[p];
	*e = (struct est){ b->mean, b->dev, b->n };
	est_zeros(e, m, alpha_of(*iv_ms));
	return true;
}

/* Port p's pause baseline on lossless priority q, caught up. */
static bool pause_est(const struct rules *r, uint32_t p, int q, struct est *e)
{
	int64_t at;
	double iv_ms, m;
	if (!gap_of(r, p, &at, &iv_ms, &m))
		return false;
	const struct pbase *pb = &r->pbase[lix(r, p, q)];
	*e = (struct est){ pb->mean, pb->dev, r->base[p].pn };
	est_zeros(e, m, alpha_of(iv_ms));
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
	b->n = b->pn = 0;
	for (int q = 0; q < PRIOS; q++)
		if (r->c.lossless & (1u << q))
			r->pbase[lix(r, p, q)] = (struct pbase){ 0, 0 };
}

bool rules_base_above(const struct rules *r, uint32_t p, double x, double *mean)
{
	struct est e;
	double iv_ms;
	*mean = 0;
	if (!disc_est(r, p, &e, &iv_ms))
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

bool rules_base_xoff(const struct rules *r, uint32_t p, int q)
{
	float x = r->rtx[lix(r, p, q)];
	struct est e;
	if (!(x >= r->c.r.discard_pause_ratio) || !pause_est(r, p, q, &e) ||
	    e.n < BASE_WARM)
		return false;
	return x >= e.mean + BASE_K * e.dev;
}

/* A window whose discards say nothing of the port's normal: the port
 * was in XOFF on a lossless priority (the discards may be a
 * headroom's), or its link changed. */
static bool suspect(const struct rules *r, uint32_t p, int64_t now)
{
	for (int q = 0; q < PRIOS; q++)
		if ((r->c.lossless & (1u << q)) && rules_base_xoff(r, p, q))
			return true;
	return rules_link_suspect(r, p, now);
}

static uint32_t sat_n(double n)
{
	return n >= UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* Learns port p's sample at hand: its discards unless the window is
 * suspect, its pause ratios unless its link changed. */
static void learn_port(struct rules *r, uint32_t p, int64_t now)
{
	struct dbase *b = &r->base[p];
	int64_t at;
	double iv_ms, m;
	if (!gap_of(r, p, &at, &iv_ms, &m) || at <= b->at_ms)
		return; /* no stamp, or a held sample */
	double a = alpha_of(iv_ms);
	/* Judged on the baselines before this sample. */
	bool sus = suspect(r, p, now), link = rules_link_suspect(r, p, now);
	struct est e = { b->mean, b->dev, b->n };
	est_zeros(&e, m, a);
	if (!sus)
		est_step(&e, qval(r, p, P_DISC_RX), a, false);
	b->mean = (float)e.mean;
	b->dev = (float)e.dev;
	b->n = sat_n(e.n);
	double pn = b->pn;
	for (int q = 0; q < PRIOS; q++) {
		if (!(r->c.lossless & (1u << q)))
			continue;
		/* A window in XOFF is learned at the slow rate only: a
		 * burst of them barely moves the port's normal (the pauses
		 * of an overflowing headroom stay XOFF while it lasts), a
		 * lasting change is learned within the time constant. */
		bool xoff = rules_base_xoff(r, p, q);
		struct pbase *pb = &r->pbase[lix(r, p, q)];
		struct est pe = { pb->mean, pb->dev, b->pn };
		est_zeros(&pe, m, a);
		float x = r->rtx[lix(r, p, q)];
		if (!link)
			est_step(&pe, x > 0 ? x : 0, a, xoff);
		pb->mean = (float)pe.mean;
		pb->dev = (float)pe.dev;
		pn = pe.n;
	}
	b->pn = sat_n(pn);
	b->at_ms = at;
}

void rules_base_learn(struct rules *r, int64_t now)
{
	for (uint32_t p = 0; p < r->n_ports; p++)
		if ((r->valid[p] & PV_ACTIVE) && !r->is_nic[p] &&
		    qhas(r, p, P_DISC_RX))
			learn_port(r, p, now);
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

/* Whether a port of device d changed its link state lately (this tick
 * included). */
static bool dev_link_recent(const struct rules *r, uint32_t d, int64_t now)
{
	for (uint32_t k = 0; k < r->dev_count[d]; k++) {
		uint32_t x = DEV_PORTS(r, d)[k];
		if ((r->valid[x] & PV_LINK) || link_recent(r, x, now))
			return true;
	}
	return false;
}

bool rules_link_near(const struct rules *r, uint32_t p, int64_t now)
{
	if (dev_link_recent(r, r->devi[p], now))
		return true;
	return has_peer(r, p) && dev_link_recent(r, r->devi[r->peer[p]], now);
}

/*
 * rules_incident: the rule engine's incidents (part of rules.c's
 * engine; see rules.h and rules_int.h). The names of kinds, states and
 * roles; the candidate a detection fills (subjects, evidence); turning
 * a candidate into an incident (one per kind and origin) and the
 * lifecycle pending -> firing -> resolved, held while the origin has no
 * fresh data; the outputs (rules_output_ops) told of each firing and
 * resolution and fed each tick's per-port rates; and the snapshots.
 *
 * Everything here runs under the engine's lock, on the ticking thread,
 * except the name functions (pure) and rules_snapshot (any thread; it
 * takes the lock).
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

static const char *const kind_names[RULES_KINDS] = {
	[RULES_PFC_STORM] = "pfc_storm",
	[RULES_CONGESTION_SPREADING] = "congestion_spreading",
	[RULES_PFC_DEADLOCK] = "pfc_deadlock",
	[RULES_INCAST] = "incast",
	[RULES_LOSSLESS_DROP] = "lossless_drop",
	[RULES_PAUSE_ON_LOSSY] = "pause_on_lossy_priority",
	[RULES_ECN_AFTER_PFC] = "ecn_after_pfc",
	[RULES_ECN_WITHOUT_CNP] = "ecn_without_cnp",
	[RULES_LINK_FLAP] = "link_flap",
	[RULES_TARGET_SILENT] = "target_silent",
	[RULES_RAIL_MISALIGNMENT] = "rail_misalignment",
};

const char *rules_kind_name(enum rules_kind k)
{
	return (unsigned)k < RULES_KINDS ? kind_names[k] : "?";
}

const char *rules_state_name(enum rules_state s)
{
	switch (s) {
	case RULES_PENDING:
		return "pending";
	case RULES_FIRING:
		return "firing";
	case RULES_RESOLVED:
		return "resolved";
	}
	return "?";
}

const char *rules_role_name(enum rules_role r)
{
	switch (r) {
	case RULES_ROLE_ORIGIN:
		return "origin";
	case RULES_ROLE_VICTIM:
		return "victim";
	case RULES_ROLE_SPREADER:
		return "spreader";
	case RULES_ROLE_MEMBER:
		return "member";
	case RULES_ROLES:
		break;
	}
	return "?";
}

const char *rules_sender_name(enum rules_sender s)
{
	return s == RULES_SENDER_UNMONITORED ? "unmonitored" : "";
}

void rules_free_public(struct rules_incident *p)
{
	for (size_t i = 0; i < p->n_subjects; i++) {
		free(p->subjects[i].device);
		free(p->subjects[i].port);
	}
	free(p->subjects);
	for (size_t i = 0; i < p->n_evidence; i++) {
		free(p->evidence[i].name);
		free(p->evidence[i].device);
		free(p->evidence[i].port);
	}
	free(p->evidence);
	free(p->summary);
	memset(p, 0, sizeof *p);
}

/* Incidents. */

int rules_single_lossless(const struct rules *r)
{
	uint8_t m = r->c.lossless;
	if (m && !(m & (m - 1)))
		return __builtin_ctz(m);
	return -1;
}

void rules_cand_reset(struct cand *c)
{
	c->n_subs = 0;
	c->n_ev = 0;
	c->held_ns = 0;
	c->data_ms = 0;
	c->far_end = false;
	c->sender = RULES_SENDER_MONITORED;
}

int rules_cand_sub(struct rules *r, struct cand *c, uint32_t port,
		   store_label dev, int prio, enum rules_role role, int parent,
		   unsigned depth)
{
	if (c->n_subs == MAX_SUBJECTS)
		return -1;
	struct isub *s = &c->subs[c->n_subs];
	s->port = port;
	s->dev = port != NONE ? r->pdev[port] : dev;
	s->prio = (int8_t)prio;
	s->role = (uint8_t)role;
	s->parent = (int16_t)parent;
	s->depth = (uint16_t)depth;
	return (int)c->n_subs++;
}

bool rules_cand_has(const struct cand *c, uint32_t port)
{
	for (size_t i = 0; i < c->n_subs; i++)
		if (c->subs[i].port == port)
			return true;
	return false;
}

void rules_cand_ev(struct rules *r, struct cand *c, const char *name,
		   uint32_t port, double v)
{
	if (c->n_ev == MAX_EVIDENCE)
		return;
	struct iev *e = &c->ev[c->n_ev++];
	e->name = name;
	e->port = port;
	e->dev = port != NONE ? r->pdev[port] : 0;
	e->value = v;
}

const char *rules_lbl(const struct rules *r, store_label l)
{
	const char *s = store_label_str(r->st, l);
	return s ? s : "";
}

static struct inc *find_inc(struct rules *r, enum rules_kind k, store_label dev,
			    store_label port, int prio, bool far_end)
{
	for (size_t i = 0; i < r->n_act; i++) {
		struct inc *in = r->act[i];
		if (in->kind == k && in->dev == dev && in->port == port &&
		    in->prio == prio && in->far_end == far_end)
			return in;
	}
	return NULL;
}

static void describe(struct rules *r, struct inc *in)
{
	size_t victims = in->n_subs ? in->n_subs - 1 : 0;
	const char *unmon = in->sender == RULES_SENDER_UNMONITORED
				? " (sender not monitored)"
				: "";
	char prio[32] = "";
	if (in->far_end) {
		/* The origin's port is also its victim (depth 1). */
		victims = in->n_subs > 2 ? in->n_subs - 2 : 0;
		snprintf(prio, sizeof prio, " priority %d", in->prio);
		snprintf(in->summary, sizeof in->summary,
			 "%s%s: %s:%s held paused by its far end%s, %zu "
			 "other port%s involved, peak %.3g",
			 kind_names[in->kind], in->prio >= 0 ? prio : "",
			 rules_lbl(r, in->dev), rules_lbl(r, in->port), unmon,
			 victims, victims == 1 ? "" : "s", in->peak);
		return;
	}
	if (in->prio >= 0)
		snprintf(prio, sizeof prio, " priority %d", in->prio);
	snprintf(in->summary, sizeof in->summary,
		 "%s at %s%s%s%s%s, %zu other port%s involved, peak %.3g",
		 kind_names[in->kind], rules_lbl(r, in->dev),
		 in->port ? ":" : "", in->port ? rules_lbl(r, in->port) : "",
		 prio, unmon, victims, victims == 1 ? "" : "s", in->peak);
}

/* Whether subjects a and b are the same: port (or device) and priority,
 * an origin apart from the rest (a storm from a far end has its origin's
 * port as a victim too). */
static bool same_sub(const struct isub *a, const struct isub *b)
{
	return a->port == b->port && a->dev == b->dev && a->prio == b->prio &&
	       (a->role == RULES_ROLE_ORIGIN) == (b->role == RULES_ROLE_ORIGIN);
}

/* Merges c's subjects into in (by port or device and role). */
static void merge_subs(struct inc *in, const struct cand *c)
{
	for (size_t i = 0; i < c->n_subs; i++) {
		const struct isub *s = &c->subs[i];
		bool have = false;
		for (size_t k = 0; k < in->n_subs && !have; k++)
			have = same_sub(&in->subs[k], s);
		if (have || in->n_subs >= MAX_SUBJECTS)
			continue;
		if (in->n_subs == in->cap_subs) {
			in->cap_subs = in->cap_subs ? in->cap_subs * 2 : 8;
			in->subs = xreallocarray(in->subs, in->cap_subs,
						 sizeof *in->subs);
		}
		struct isub t = *s;
		/* Parents index c's array; map them into in's. */
		if (t.parent >= 0) {
			const struct isub *ps = &c->subs[t.parent];
			t.parent = -1;
			for (size_t k = 0; k < in->n_subs; k++)
				if (in->subs[k].port == ps->port &&
				    in->subs[k].dev == ps->dev &&
				    (in->subs[k].role == RULES_ROLE_ORIGIN) ==
					(ps->role == RULES_ROLE_ORIGIN)) {
					t.parent = (int16_t)k;
					break;
				}
		}
		in->subs[in->n_subs++] = t;
	}
}

/*
 * The arrival (figures' ms) of the data that shows c's condition: what
 * the rule said, else the origin port's newest, else its peer's or its
 * device's, else this tick.
 */
int64_t rules_data_ms(const struct rules *r, const struct cand *c)
{
	if (c->data_ms > 0)
		return c->data_ms;
	if (c->n_subs && c->subs[0].port != NONE) {
		uint32_t p = c->subs[0].port;
		if (r->plast[p] > 0)
			return r->plast[p];
		if (has_peer(r, p) && r->plast[r->peer[p]] > 0)
			return r->plast[r->peer[p]];
		if (r->dlast[r->devi[p]] > 0)
			return r->dlast[r->devi[p]];
	}
	return r->now_ms;
}

/*
 * The condition of (kind, origin) holds now with score and c's subjects
 * (c->subs[0] must be the origin) and evidence.
 */
void rules_assert_inc(struct rules *r, enum rules_kind k, store_label dev,
		      store_label port, int prio, double score, int64_t now,
		      const struct cand *c)
{
	int64_t seen = rules_data_ms(r, c);
	struct inc *in = find_inc(r, k, dev, port, prio, c->far_end);
	if (!in) {
		if (r->n_act >= MAX_ACTIVE)
			return;
		in = xcalloc(1, sizeof *in);
		in->id = r->next_id++;
		in->kind = k;
		in->state = RULES_PENDING;
		in->dev = dev;
		in->port = port;
		in->prio = prio;
		in->far_end = c->far_end;
		in->started = now;
		in->dfrom_ms =
		    seen -
		    (c->held_ns > 0 ? c->held_ns : r->c.window_ns) / 1000000;
		in->dlast_ms = seen;
		in->peak = -INFINITY;
		if (r->n_act == r->cap_act) {
			r->cap_act = r->cap_act ? r->cap_act * 2 : 16;
			r->act =
			    xreallocarray(r->act, r->cap_act, sizeof *r->act);
		}
		r->act[r->n_act++] = in;
	}
	in->asserted = true;
	in->last_true = now;
	if (in->state == RULES_PENDING)
		in->sender = c->sender;
	if (seen > in->dlast_ms)
		in->dlast_ms = seen;
	merge_subs(in, c);
	if (score >= in->peak) {
		in->peak = score;
		in->peak_ns = now;
		memcpy(in->ev, c->ev, c->n_ev * sizeof *c->ev);
		in->n_ev = c->n_ev;
		describe(r, in);
	}
}

static uint64_t for_ns(const struct rules *r, enum rules_kind k)
{
	const struct cfg_rules *c = &r->c.r;
	switch (k) {
	case RULES_PFC_STORM:
		return c->storm_for_ns;
	case RULES_CONGESTION_SPREADING:
		return c->spreading_for_ns;
	case RULES_PFC_DEADLOCK:
		return c->deadlock_for_ns;
	case RULES_INCAST:
		return c->incast_for_ns;
	case RULES_LOSSLESS_DROP:
		return c->drop_for_ns;
	case RULES_PAUSE_ON_LOSSY:
		return c->lossy_pause_for_ns;
	case RULES_ECN_AFTER_PFC:
		return c->ecn_after_pfc_for_ns;
	case RULES_ECN_WITHOUT_CNP:
		return c->ecn_without_cnp_for_ns;
	case RULES_LINK_FLAP:
	case RULES_TARGET_SILENT:
	case RULES_RAIL_MISALIGNMENT:
	case RULES_KINDS:
		break;
	}
	return 0;
}

static char *dup_label(const struct rules *r, store_label l)
{
	return xstrdup(l ? rules_lbl(r, l) : "");
}

static void to_public(const struct rules *r, const struct inc *in,
		      struct rules_incident *p)
{
	memset(p, 0, sizeof *p);
	p->id = in->id;
	p->kind = in->kind;
	p->state = in->state;
	p->priority = in->prio;
	p->far_end = in->far_end;
	p->sender = (enum rules_sender)in->sender;
	p->started_ns = in->started;
	p->fired_ns = in->fired;
	p->peak_ns = in->peak_ns;
	p->peak = isfinite(in->peak) ? in->peak : 0;
	p->summary = xstrdup(in->summary);
	p->subjects = xcalloc(in->n_subs ? in->n_subs : 1, sizeof *p->subjects);
	for (size_t i = 0; i < in->n_subs; i++) {
		const struct isub *s = &in->subs[i];
		struct rules_subject *o = &p->subjects[i];
		o->device = dup_label(r, s->dev);
		o->port = dup_label(r, s->port != NONE ? r->pname[s->port] : 0);
		o->priority = s->prio;
		o->role = (enum rules_role)s->role;
		o->parent = s->parent;
		o->depth = s->depth;
	}
	p->n_subjects = in->n_subs;
	p->evidence = xcalloc(in->n_ev ? in->n_ev : 1, sizeof *p->evidence);
	for (size_t i = 0; i < in->n_ev; i++) {
		const struct iev *e = &in->ev[i];
		struct rules_evidence *o = &p->evidence[i];
		o->name = xstrdup(e->name);
		o->device = dup_label(r, e->dev);
		o->port = dup_label(r, e->port != NONE ? r->pname[e->port] : 0);
		o->value = e->value;
	}
	p->n_evidence = in->n_ev;
}

static void keep_resolved(struct rules *r, struct inc *in)
{
	size_t cap = r->c.r.keep_resolved;
	if (!cap)
		return;
	if (cap != r->recent_cap) {
		/* (Re)size the ring when first used or the cap changed;
		 * the resolved incidents kept so far are forgotten. */
		for (size_t i = 0; i < r->n_recent; i++)
			rules_free_public(
			    &r->recent[(r->recent_head + i) % r->recent_cap]);
		free(r->recent);
		r->recent = xcalloc(cap, sizeof *r->recent);
		r->n_recent = r->recent_head = 0;
		r->recent_cap = cap;
	}
	size_t slot;
	if (r->n_recent < cap) {
		slot = (r->recent_head + r->n_recent) % cap;
		r->n_recent++;
	} else {
		slot = r->recent_head;
		rules_free_public(&r->recent[slot]);
		r->recent_head = (r->recent_head + 1) % cap;
	}
	to_public(r, in, &r->recent[slot]);
	r->recent[slot].resolved_ns = in->last_true;
}

/* Whether the origin has fresh data (else the incident is held). An
 * origin that left the view counts as having data: its incidents
 * resolve after the clear duration. */
static bool origin_has_data(const struct rules *r, const struct inc *in)
{
	if (in->kind == RULES_TARGET_SILENT ||
	    in->kind == RULES_RAIL_MISALIGNMENT)
		return true;
	if (in->n_subs == 0 || in->subs[0].port == NONE)
		return true;
	uint32_t p = in->subs[0].port;
	if (!port_present(r, p))
		return true;
	/* A storm from outside the view: what shows it is the paused
	 * port's data (the origin's for a far end, else its victim's),
	 * a watchdog's gauge is enough. */
	if (in->sender == RULES_SENDER_UNMONITORED) {
		if (!in->far_end && has_peer(r, p))
			p = (uint32_t)r->peer[p];
		return r->valid[p] & PV_FRESH;
	}
	/* Link state is gauges and totals; the rest needs rates. */
	return r->valid[p] & (in->kind == RULES_LINK_FLAP ? PV_FRESH : PV_RATE);
}

/* Outputs hook: an incident fired or resolved (rules_output_ops). */
static void notify_outputs(struct rules *r, const struct inc *in)
{
	if (!r->n_out)
		return;
	struct rules_incident p;
	to_public(r, in, &p);
	if (in->state == RULES_RESOLVED)
		p.resolved_ns = in->last_true;
	for (size_t i = 0; i < r->n_out; i++)
		if (r->out[i].ops->incident)
			r->out[i].ops->incident(r->out[i].ctx, &p);
	rules_free_public(&p);
}

void rules_lifecycle(struct rules *r, int64_t now)
{
	for (size_t i = 0; i < r->n_act;) {
		struct inc *in = r->act[i];
		bool drop = false;
		if (in->asserted) {
			/* Samples arrive a little early or late: a quarter
			 * of a window's slack, so that two samples make
			 * two windows. */
			int64_t held = (in->dlast_ms - in->dfrom_ms) * 1000000 +
				       r->c.window_ns / 4;
			if (in->state == RULES_PENDING &&
			    held >= (int64_t)for_ns(r, in->kind)) {
				in->state = RULES_FIRING;
				in->fired = now;
				r->fired_total[in->kind]++;
				log_notice("rules", "firing: %s", in->summary);
				notify_outputs(r, in);
			}
		} else if (!origin_has_data(r, in)) {
			/* Held: no data is not a clear signal. Do not let
			 * the clear timer run meanwhile. */
			in->last_true = now;
		} else if (in->state == RULES_PENDING) {
			drop = true;
		} else if (now - in->last_true >= (int64_t)r->c.r.clear_ns) {
			in->state = RULES_RESOLVED;
			log_notice("rules", "resolved: %s", in->summary);
			keep_resolved(r, in);
			notify_outputs(r, in);
			drop = true;
		}
		in->asserted = false;
		if (drop) {
			free(in->subs);
			free(in);
			r->act[i] = r->act[--r->n_act];
			continue;
		}
		i++;
	}
}

/*
 * Outputs hook: this tick's per-port rates into the outputs that take them (the
 * report's history) (ports with nothing to say are skipped). Pause seconds are
 * the ratios the rules use (duration counters, else frames at the link's
 * refresh rate).
 */
void rules_feed_outputs(struct rules *r, int64_t now)
{
	for (size_t i = 0; i < r->n_out; i++)
		if (r->out[i].ops->tick_begin)
			r->out[i].ops->tick_begin(r->out[i].ctx, now);
	struct rules_port_rates rp;
	for (uint32_t p = 0; p < r->n_ports; p++) {
		/* Nothing the report counts is other than 0: it would be
		 * skipped below. */
		if ((r->valid[p] & (PV_RATE | PV_ACTIVE)) !=
		    (PV_RATE | PV_ACTIVE))
			continue;
		memset(&rp, 0, sizeof rp);
		bool any = false;
		double refresh = refresh_rate(r, p);
		for (int q = 0; q < PRIOS; q++) {
			float tx, rx;
			if (r->c.lossless & (1u << q)) {
				tx = r->rtx[lix(r, p, q)];
				rx = r->rrx[lix(r, p, q)];
			} else {
				tx = ratio_of(r, p, q, F_TX_PAUSE, F_TX_FRAMES,
					      refresh);
				rx = ratio_of(r, p, q, F_RX_PAUSE, F_RX_FRAMES,
					      refresh);
			}
			rp.pause_tx_s[q] = tx > 0 ? tx : 0;
			rp.pause_rx_s[q] = rx > 0 ? rx : 0;
			rp.frames_tx[q] = pval(r, p, q, F_TX_FRAMES);
			rp.frames_rx[q] = pval(r, p, q, F_RX_FRAMES);
			rp.drops[q] = pval(r, p, q, F_DROPS);
			rp.ecn[q] = pval(r, p, q, F_ECN);
			if (phas(r, p, q, F_ECN))
				rp.has_ecn |= (uint8_t)(1u << q);
			any |= rp.pause_tx_s[q] > 0 || rp.pause_rx_s[q] > 0 ||
			       rp.frames_tx[q] > 0 || rp.frames_rx[q] > 0 ||
			       rp.drops[q] > 0 || rp.ecn[q] > 0;
		}
		rp.ce = qval(r, p, P_CE);
		rp.cnp_sent = qval(r, p, P_CNP_SENT);
		rp.cnp_handled = qval(r, p, P_CNP_HANDLED);
		rp.cnp_ignored = qval(r, p, P_CNP_IGNORED);
		rp.out_of_buffer = qval(r, p, P_OOB);
		any |= rp.ce > 0 || rp.cnp_sent > 0 || rp.cnp_handled > 0 ||
		       rp.cnp_ignored > 0 || rp.out_of_buffer > 0;
		if (!any)
			continue;
		rp.device = r->pdev[p];
		rp.port = r->pname[p];
		rp.is_nic = r->is_nic[p];
		for (size_t i = 0; i < r->n_out; i++)
			if (r->out[i].ops->tick_port)
				r->out[i].ops->tick_port(r->out[i].ctx, &rp);
	}
	for (size_t i = 0; i < r->n_out; i++)
		if (r->out[i].ops->tick_end)
			r->out[i].ops->tick_end(r->out[i].ctx);
}

void rules_set_outputs(struct rules *r, const struct rules_output *v, size_t n)
{
	if (n > RULES_MAX_OUTPUTS)
		n = RULES_MAX_OUTPUTS;
	pthread_mutex_lock(&r->lock);
	r->n_out = 0;
	r->feeds = false;
	for (size_t i = 0; i < n; i++) {
		if (!v[i].ops)
			continue;
		r->out[r->n_out++] = v[i];
		r->feeds |= v[i].ops->tick_port != NULL;
	}
	pthread_mutex_unlock(&r->lock);
}

/* Snapshots. */

static int cmp_ratio(const void *a, const void *b)
{
	const struct rules_port_ratio *x = a, *y = b;
	int c = strcmp(x->device, y->device);
	if (!c)
		c = strcmp(x->port, y->port);
	return c ? c : x->priority - y->priority;
}

void rules_snapshot(struct rules *r, bool with_ratios,
		    struct rules_snapshot *out)
{
	memset(out, 0, sizeof *out);
	pthread_mutex_lock(&r->lock);
	out->active = xcalloc(r->n_act ? r->n_act : 1, sizeof *out->active);
	for (size_t i = 0; i < r->n_act; i++)
		to_public(r, r->act[i], &out->active[i]);
	out->n_active = r->n_act;
	size_t cap = r->recent_cap;
	out->recent =
	    xcalloc(r->n_recent ? r->n_recent : 1, sizeof *out->recent);
	for (size_t i = 0; i < r->n_recent && r->recent; i++) {
		/* Newest first. */
		size_t slot = (r->recent_head + r->n_recent - 1 - i) % cap;
		const struct rules_incident *src = &r->recent[slot];
		struct rules_incident *o = &out->recent[i];
		*o = *src;
		o->summary = xstrdup(src->summary);
		o->subjects = xcalloc(src->n_subjects ? src->n_subjects : 1,
				      sizeof *o->subjects);
		for (size_t k = 0; k < src->n_subjects; k++) {
			o->subjects[k] = src->subjects[k];
			o->subjects[k].device =
			    xstrdup(src->subjects[k].device);
			o->subjects[k].port = xstrdup(src->subjects[k].port);
		}
		o->evidence = xcalloc(src->n_evidence ? src->n_evidence : 1,
				      sizeof *o->evidence);
		for (size_t k = 0; k < src->n_evidence; k++) {
			o->evidence[k] = src->evidence[k];
			o->evidence[k].name = xstrdup(src->evidence[k].name);
			o->evidence[k].device =
			    xstrdup(src->evidence[k].device);
			o->evidence[k].port = xstrdup(src->evidence[k].port);
		}
	}
	out->n_recent = r->n_recent;
	memcpy(out->fired_total, r->fired_total, sizeof out->fired_total);
	out->ticks = r->ticks;
	out->last_tick_cpu_s = r->last_cpu_s;
	out->last_tick_wall_s = r->last_wall_s;
	out->tick_overruns = r->overruns;
	out->last_tick_reads = r->reads;
	out->port_growths = r->port_growths;
	out->ports = 0;
	for (uint32_t p = 0; p < r->n_ports; p++)
		out->ports += port_present(r, p);
	if (with_ratios) {
		size_t n = 0, cap2 = 0;
		for (uint32_t p = 0; p < r->n_ports; p++) {
			for (int q = 0; q < PRIOS; q++) {
				if (!(r->c.lossless & (1u << q)))
					continue;
				size_t i = lix(r, p, q);
				if (r->rtx[i] < 0 && r->rrx[i] < 0)
					continue;
				if (n == cap2) {
					cap2 = cap2 ? cap2 * 2 : 64;
					out->ratios =
					    xreallocarray(out->ratios, cap2,
							  sizeof *out->ratios);
				}
				struct rules_port_ratio *o = &out->ratios[n++];
				o->device = dup_label(r, r->pdev[p]);
				o->port = dup_label(r, r->pname[p]);
				o->priority = q;
				o->pause_tx = r->rtx[i];
				o->pause_rx = r->rrx[i];
			}
		}
		out->n_ratios = n;
	}
	pthread_mutex_unlock(&r->lock);
	if (out->n_ratios)
		qsort(out->ratios, out->n_ratios, sizeof *out->ratios,
		      cmp_ratio);
}

void rules_snapshot_free(struct rules_snapshot *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_active; i++)
		rules_free_public(&s->active[i]);
	free(s->active);
	for (size_t i = 0; i < s->n_recent; i++)
		rules_free_public(&s->recent[i]);
	free(s->recent);
	for (size_t i = 0; i < s->n_ratios; i++) {
		free(s->ratios[i].device);
		free(s->ratios[i].port);
	}
	free(s->ratios);
	memset(s, 0, sizeof *s);
}

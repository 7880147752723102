/*
 * report: bounded history for /api/v1/report (see report.h).
 *
 * Buckets sit in a ring sized window/step + 1 (the open one included).
 * Per-port records are addressed by an absolute sequence number; record
 * s lives at recs[s % max_records], and a bucket owns the contiguous
 * sequence numbers [rec_first, rec_first + rec_n). Records of the open
 * bucket are found again through a small open-addressing index that is
 * cleared when the bucket closes, so each (port, priority) has at most
 * one record per bucket. Evicting the oldest records (the ring is full)
 * only moves rec_tail: a bucket whose rec_first is below it has lost its
 * per-port detail.
 */
#include "config.h"

#include "report.h"

#include "mem.h"
#include "rules.h"
#include "units.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_DT_NS (10 * NS_PER_S)

enum { RF_NIC = 1 };

struct bucket {
	int64_t start; /* ns; 0: unused */
	double pause_tx[REPORT_PRIOS], pause_rx[REPORT_PRIOS];
	double frames_tx[REPORT_PRIOS], frames_rx[REPORT_PRIOS];
	double drops[REPORT_PRIOS], ecn[REPORT_PRIOS];
	double ce, cnp_sent, cnp_handled, cnp_ignored, oob;
	uint64_t rec_first;
	uint32_t rec_n;
	bool rec_lost; /* records were refused (the ring held only this) */
};

/* One (port, priority) in one bucket: 24 bytes. */
struct rec {
	store_label dev, port;
	uint8_t prio;
	uint8_t flags;	 /* RF_NIC */
	uint8_t has_ecn; /* the port has an ECN counter on prio */
	uint8_t pad;
	float tx, rx, ecn; /* seconds, seconds, marks */
};
_Static_assert(sizeof(struct rec) == 24, "report record size");

struct hinc {
	uint64_t id;
	enum rules_kind kind;
	int prio;
	int64_t fired, resolved;
	double peak;
	char *dev, *port, *summary;
	bool far_end; /* a storm from outside the view (rules.h) */
	enum rules_sender sender;
};

struct report {
	const struct store *st;
	pthread_mutex_t lock;
	struct report_opts o;

	struct bucket *b;
	size_t nb;     /* ring size */
	size_t b_n;    /* buckets in use */
	size_t b_head; /* the open (newest) bucket, if b_n */

	struct rec *recs;
	uint64_t rec_alloc; /* allocated entries (grows up to max_records) */
	uint64_t rec_head, rec_tail;
	uint64_t *idx; /* open bucket: seq + 1, 0 empty */
	size_t idx_cap, idx_used;

	struct hinc *inc;
	size_t inc_n, inc_head;

	int64_t last; /* previous tick */
	double dt_s;  /* this tick's duration */
};

static void clear_history(struct report *rep)
{
	free(rep->b);
	rep->nb = (size_t)(rep->o.window_ns / rep->o.step_ns) + 1;
	rep->b = xcalloc(rep->nb, sizeof *rep->b);
	rep->b_n = rep->b_head = 0;
	free(rep->recs);
	rep->recs = NULL;
	rep->rec_alloc = rep->rec_head = rep->rec_tail = 0;
	free(rep->idx);
	rep->idx = NULL;
	rep->idx_cap = rep->idx_used = 0;
}

static void hinc_free(struct hinc *h)
{
	free(h->dev);
	free(h->port);
	free(h->summary);
	memset(h, 0, sizeof *h);
}

static void clear_incidents(struct report *rep)
{
	for (size_t i = 0; i < rep->inc_n; i++)
		hinc_free(
		    &rep->inc[(rep->inc_head + i) % rep->o.max_incidents]);
	free(rep->inc);
	rep->inc = xcalloc(rep->o.max_incidents ? rep->o.max_incidents : 1,
			   sizeof *rep->inc);
	rep->inc_n = rep->inc_head = 0;
}

static void sanitize(struct report_opts *o)
{
	if (o->step_ns < (uint64_t)NS_PER_S)
		o->step_ns = NS_PER_S;
	if (o->window_ns < o->step_ns)
		o->window_ns = o->step_ns;
	if (o->max_records == 0)
		o->max_records = 1;
	if (o->max_incidents == 0)
		o->max_incidents = 1;
}

struct report *report_new(const struct store *st, const struct report_opts *o)
{
	struct report *rep = xcalloc(1, sizeof *rep);
	rep->st = st;
	pthread_mutex_init(&rep->lock, NULL);
	rep->o = *o;
	sanitize(&rep->o);
	clear_history(rep);
	clear_incidents(rep);
	return rep;
}

void report_free(struct report *rep)
{
	if (!rep)
		return;
	for (size_t i = 0; i < rep->inc_n; i++)
		hinc_free(
		    &rep->inc[(rep->inc_head + i) % rep->o.max_incidents]);
	free(rep->inc);
	free(rep->b);
	free(rep->recs);
	free(rep->idx);
	pthread_mutex_destroy(&rep->lock);
	free(rep);
}

void report_configure(struct report *rep, const struct report_opts *o)
{
	struct report_opts n = *o;
	sanitize(&n);
	pthread_mutex_lock(&rep->lock);
	bool reset = n.step_ns != rep->o.step_ns ||
		     n.window_ns != rep->o.window_ns ||
		     n.max_records != rep->o.max_records;
	bool reinc = n.max_incidents != rep->o.max_incidents;
	if (reinc) {
		/* Keep the newest incidents that fit. */
		struct hinc *old = rep->inc;
		size_t old_n = rep->inc_n, old_head = rep->inc_head,
		       old_cap = rep->o.max_incidents;
		rep->inc = xcalloc(n.max_incidents, sizeof *rep->inc);
		size_t keep = old_n < n.max_incidents ? old_n : n.max_incidents;
		for (size_t i = 0; i < old_n; i++) {
			struct hinc *h = &old[(old_head + i) % old_cap];
			if (i < old_n - keep)
				hinc_free(h);
			else
				rep->inc[i - (old_n - keep)] = *h;
		}
		free(old);
		rep->inc_n = keep;
		rep->inc_head = 0;
	}
	rep->o = n;
	if (reset)
		clear_history(rep);
	pthread_mutex_unlock(&rep->lock);
}

static struct bucket *bucket_at(const struct report *rep, size_t i)
{
	/* i = 0 is the oldest. */
	return &rep->b[(rep->b_head + rep->nb - (rep->b_n - 1) + i) % rep->nb];
}

static void drop_oldest_bucket(struct report *rep)
{
	struct bucket *old = bucket_at(rep, 0);
	uint64_t end = old->rec_first + old->rec_n;
	if (rep->rec_tail < end)
		rep->rec_tail = end;
	old->start = 0;
	rep->b_n--;
}

static void open_bucket(struct report *rep, int64_t start)
{
	if (rep->b_n == rep->nb)
		drop_oldest_bucket(rep);
	rep->b_head = rep->b_n ? (rep->b_head + 1) % rep->nb : 0;
	rep->b_n++;
	struct bucket *b = &rep->b[rep->b_head];
	memset(b, 0, sizeof *b);
	b->start = start;
	b->rec_first = rep->rec_head;
	if (rep->idx_used) {
		memset(rep->idx, 0, rep->idx_cap * sizeof *rep->idx);
		rep->idx_used = 0;
	}
}

static void drop_old_incidents(struct report *rep, int64_t cutoff)
{
	while (rep->inc_n) {
		struct hinc *h = &rep->inc[rep->inc_head];
		if (!h->resolved || h->resolved >= cutoff)
			break;
		hinc_free(h);
		rep->inc_head = (rep->inc_head + 1) % rep->o.max_incidents;
		rep->inc_n--;
	}
}

void report_begin(struct report *rep, int64_t now)
{
	pthread_mutex_lock(&rep->lock);
	int64_t dt = rep->last ? now - rep->last : 0;
	if (dt < 0)
		dt = 0;
	if (dt > MAX_DT_NS)
		dt = MAX_DT_NS;
	rep->dt_s = (double)dt / 1e9;
	rep->last = now;
	int64_t step = (int64_t)rep->o.step_ns;
	int64_t start = now - ((now % step) + step) % step;
	if (!rep->b_n || rep->b[rep->b_head].start != start)
		open_bucket(rep, start);
	int64_t cutoff = now - (int64_t)rep->o.window_ns;
	while (rep->b_n > 1 && bucket_at(rep, 0)->start + step <= cutoff)
		drop_oldest_bucket(rep);
	drop_old_incidents(rep, cutoff);
	/* Held until report_end(): one lock per tick, not per port. */
}

void report_end(struct report *rep)
{
	pthread_mutex_unlock(&rep->lock);
}

static uint64_t mix(uint64_t k)
{
	k ^= k >> 33;
	k *= UINT64_C(0xff51afd7ed558ccd);
	k ^= k >> 33;
	return k;
}

static struct rec *rec_of(struct report *rep, uint64_t seq)
{
	return &rep->recs[seq % rep->o.max_records];
}

static void idx_insert(struct report *rep, uint64_t key, uint64_t seq)
{
	size_t m = rep->idx_cap - 1;
	for (size_t i = mix(key) & m;; i = (i + 1) & m)
		if (!rep->idx[i]) {
			rep->idx[i] = seq + 1;
			rep->idx_used++;
			return;
		}
}

static uint64_t rec_key(store_label dev, store_label port, int prio)
{
	return ((uint64_t)dev << 35) ^ ((uint64_t)port << 3) ^ (uint64_t)prio;
}

/* The open bucket's record of (dev, port, prio), created if need be;
 * NULL when the ring has no room for it. */
static struct rec *find_rec(struct report *rep, store_label dev,
			    store_label port, int prio)
{
	struct bucket *b = &rep->b[rep->b_head];
	uint64_t key = rec_key(dev, port, prio);
	if (rep->idx_cap) {
		size_t m = rep->idx_cap - 1;
		for (size_t i = mix(key) & m; rep->idx[i]; i = (i + 1) & m) {
			struct rec *r = rec_of(rep, rep->idx[i] - 1);
			if (r->dev == dev && r->port == port && r->prio == prio)
				return r;
		}
	}
	uint64_t cap = rep->o.max_records;
	if (rep->rec_head - rep->rec_tail == cap) {
		if (rep->rec_tail >= b->rec_first) {
			b->rec_lost = true;
			return NULL;
		}
		rep->rec_tail++;
	}
	if (rep->rec_head >= rep->rec_alloc && rep->rec_alloc < cap) {
		/* Grows only before the first wrap: seq % cap stays inside. */
		uint64_t n = rep->rec_alloc ? rep->rec_alloc * 2 : 1024;
		if (n > cap)
			n = cap;
		rep->recs = xreallocarray(rep->recs, n, sizeof *rep->recs);
		rep->rec_alloc = n;
	}
	if ((rep->idx_used + 1) * 2 > rep->idx_cap) {
		size_t ncap = rep->idx_cap ? rep->idx_cap * 2 : 256;
		free(rep->idx);
		rep->idx = xcalloc(ncap, sizeof *rep->idx);
		rep->idx_cap = ncap;
		rep->idx_used = 0;
		for (uint64_t s = b->rec_first; s < rep->rec_head; s++) {
			struct rec *r = rec_of(rep, s);
			idx_insert(rep, rec_key(r->dev, r->port, r->prio), s);
		}
	}
	uint64_t seq = rep->rec_head++;
	struct rec *r = rec_of(rep, seq);
	memset(r, 0, sizeof *r);
	r->dev = dev;
	r->port = port;
	r->prio = (uint8_t)prio;
	idx_insert(rep, key, seq);
	b->rec_n++;
	return r;
}

static double amt(float rate, double dt)
{
	return isfinite(rate) && rate > 0 ? rate * dt : 0;
}

void report_port(struct report *rep, const struct rules_port_rates *p)
{
	double dt = rep->dt_s;
	if (dt <= 0 || !rep->b_n)
		return;
	struct bucket *b = &rep->b[rep->b_head];
	for (int q = 0; q < REPORT_PRIOS; q++) {
		double tx = amt(p->pause_tx_s[q], dt);
		double rx = amt(p->pause_rx_s[q], dt);
		double ecn = amt(p->ecn[q], dt);
		b->pause_tx[q] += tx;
		b->pause_rx[q] += rx;
		b->frames_tx[q] += amt(p->frames_tx[q], dt);
		b->frames_rx[q] += amt(p->frames_rx[q], dt);
		b->drops[q] += amt(p->drops[q], dt);
		b->ecn[q] += ecn;
		/* Records: who paused or was paused, and the switch
		 * queues that marked (the ECN-before-PFC check). */
		if (!(rep->o.lossless_mask & (1u << q)) ||
		    (tx <= 0 && rx <= 0 && (ecn <= 0 || p->is_nic)))
			continue;
		struct rec *r = find_rec(rep, p->device, p->port, q);
		if (!r)
			continue;
		r->tx += (float)tx;
		r->rx += (float)rx;
		r->ecn += (float)ecn;
		if (p->is_nic)
			r->flags |= RF_NIC;
		if (p->has_ecn & (1u << q))
			r->has_ecn = 1;
	}
	b->ce += amt(p->ce, dt);
	b->cnp_sent += amt(p->cnp_sent, dt);
	b->cnp_handled += amt(p->cnp_handled, dt);
	b->cnp_ignored += amt(p->cnp_ignored, dt);
	b->oob += amt(p->out_of_buffer, dt);
}

static void set_str(char **dst, const char *s)
{
	free(*dst);
	*dst = xstrdup(s ? s : "");
}

void report_incident(struct report *rep, const struct rules_incident *in)
{
	if (in->state == RULES_PENDING)
		return;
	pthread_mutex_lock(&rep->lock);
	size_t cap = rep->o.max_incidents;
	struct hinc *h = NULL;
	for (size_t i = rep->inc_n; i-- > 0;) {
		struct hinc *c = &rep->inc[(rep->inc_head + i) % cap];
		if (c->id == in->id) {
			h = c;
			break;
		}
	}
	if (!h) {
		if (rep->inc_n == cap) {
			hinc_free(&rep->inc[rep->inc_head]);
			rep->inc_head = (rep->inc_head + 1) % cap;
			rep->inc_n--;
		}
		h = &rep->inc[(rep->inc_head + rep->inc_n++) % cap];
		h->id = in->id;
	}
	h->kind = in->kind;
	h->prio = in->priority;
	h->fired = in->fired_ns;
	h->resolved = in->state == RULES_RESOLVED ? in->resolved_ns : 0;
	if (in->state == RULES_RESOLVED && !h->resolved)
		h->resolved = rep->last ? rep->last : in->fired_ns;
	h->peak = in->peak;
	h->far_end = in->far_end;
	h->sender = in->sender;
	const struct rules_subject *o =
	    in->n_subjects ? &in->subjects[0] : NULL;
	set_str(&h->dev, o ? o->device : "");
	set_str(&h->port, o ? o->port : "");
	set_str(&h->summary, in->summary);
	pthread_mutex_unlock(&rep->lock);
}

static void out_incident(void *ctx, const struct rules_incident *in)
{
	report_incident(ctx, in);
}

static void out_begin(void *ctx, int64_t now_ns)
{
	report_begin(ctx, now_ns);
}

static void out_port(void *ctx, const struct rules_port_rates *p)
{
	report_port(ctx, p);
}

static void out_end(void *ctx)
{
	report_end(ctx);
}

const struct rules_output_ops report_output_ops = {
	.name = "report",
	.incident = out_incident,
	.tick_begin = out_begin,
	.tick_port = out_port,
	.tick_end = out_end,
};

size_t report_memory_bound(const struct report_opts *o)
{
	struct report_opts n = *o;
	sanitize(&n);
	size_t nb = (size_t)(n.window_ns / n.step_ns) + 1;
	size_t idx = 256;
	while (idx < 2 * n.max_records)
		idx *= 2;
	/* An incident: its entry plus device, port and a summary of at most
	 * 256 bytes (the engine's limit), 64 bytes of names assumed. */
	return sizeof(struct report) + nb * sizeof(struct bucket) +
	       (size_t)n.max_records * sizeof(struct rec) +
	       idx * sizeof(uint64_t) +
	       (size_t)n.max_incidents * (sizeof(struct hinc) + 256 + 2 * 64);
}

void report_memory(const struct report *rep, size_t *now, size_t *bound)
{
	struct report *r = (struct report *)rep;
	pthread_mutex_lock(&r->lock);
	size_t m = sizeof *r + r->nb * sizeof(struct bucket) +
		   (size_t)r->rec_alloc * sizeof(struct rec) +
		   r->idx_cap * sizeof(uint64_t) +
		   (size_t)r->o.max_incidents * sizeof(struct hinc);
	for (size_t i = 0; i < r->inc_n; i++) {
		const struct hinc *h =
		    &r->inc[(r->inc_head + i) % r->o.max_incidents];
		m += strlen(h->dev) + strlen(h->port) + strlen(h->summary) + 3;
	}
	if (now)
		*now = m;
	if (bound)
		*bound = report_memory_bound(&r->o);
	pthread_mutex_unlock(&r->lock);
}

/* The query. */

/* A per-port or per-device row of the detail, merged after sorting. */
struct row {
	store_label dev, port;
	int prio;
	double tx, rx;
	bool bad; /* paused in a bucket without ECN marks */
	bool checked;
};

/* The detail rows of a query as they are collected. */
struct rows {
	struct row *v;
	size_t n, cap;
	const struct rec **grp; /* one bucket's switch records */
	size_t cap_grp;
};

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->port != y->port)
		return x->port < y->port ? -1 : 1;
	return x->prio - y->prio;
}

static int cmp_dev_prio(const void *a, const void *b)
{
	const struct rec *x = *(const struct rec *const *)a,
			 *y = *(const struct rec *const *)b;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return (int)x->prio - (int)y->prio;
}

static int cmp_pause(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	double u = x->tx + x->rx, v = y->tx + y->rx;
	return u < v ? 1 : u > v ? -1 : 0;
}

/* Sorts and merges rows with the same key; returns the count left. */
static size_t merge_rows(struct row *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof *v, cmp_row);
	size_t k = 0;
	for (size_t i = 1; i < n; i++) {
		if (cmp_row(&v[k], &v[i]) == 0) {
			v[k].tx += v[i].tx;
			v[k].rx += v[i].rx;
			v[k].bad |= v[i].bad;
			v[k].checked |= v[i].checked;
		} else {
			v[++k] = v[i];
		}
	}
	return k + 1;
}

static const char *lbl(const struct report *rep, store_label l)
{
	const char *s = rep && rep->st ? store_label_str(rep->st, l) : NULL;
	return s ? s : "";
}

static struct row *new_row(struct rows *rs)
{
	if (rs->n + 1 > rs->cap) {
		rs->cap = rs->cap ? rs->cap * 2 : 256;
		rs->v = xreallocarray(rs->v, rs->cap, sizeof *rs->v);
	}
	struct row *w = &rs->v[rs->n++];
	memset(w, 0, sizeof *w);
	return w;
}

static void add_bucket(struct report_result *res, const struct bucket *b)
{
	for (int q = 0; q < REPORT_PRIOS; q++) {
		res->pause_tx[q] += b->pause_tx[q];
		res->pause_rx[q] += b->pause_rx[q];
		res->frames_tx[q] += b->frames_tx[q];
		res->frames_rx[q] += b->frames_rx[q];
		res->drops[q] += b->drops[q];
		res->ecn[q] += b->ecn[q];
	}
	res->ce += b->ce;
	res->cnp_sent += b->cnp_sent;
	res->cnp_handled += b->cnp_handled;
	res->cnp_ignored += b->cnp_ignored;
	res->oob += b->oob;
}

/* The detail rows of one intact bucket: NIC rows per device (the
 * stragglers), and the switch ports that paused a peer, checked for
 * ECN marks per (device, priority). */
static void add_bucket_rows(const struct report *rep, const struct bucket *b,
			    struct rows *rs)
{
	/* Group the bucket's switch records by (device, priority): a
	 * device that paused a peer while none of its queues marked ECN
	 * had its ECN threshold above Xoff. */
	if (b->rec_n > rs->cap_grp) {
		rs->cap_grp = b->rec_n;
		rs->grp = xreallocarray(rs->grp, rs->cap_grp, sizeof *rs->grp);
	}
	const struct rec **grp = rs->grp;
	size_t ng = 0;
	for (uint64_t q = b->rec_first; q < b->rec_first + b->rec_n; q++) {
		const struct rec *r = rec_of((struct report *)rep, q);
		if (!(r->flags & RF_NIC)) {
			grp[ng++] = r;
			continue;
		}
		/* Stragglers: per device, both directions. */
		struct row *w = new_row(rs);
		w->dev = r->dev;
		w->prio = -1;
		w->tx = r->tx;
		w->rx = r->rx;
	}
	if (ng)
		qsort(grp, ng, sizeof *grp, cmp_dev_prio);
	for (size_t g = 0; g < ng;) {
		size_t e = g;
		double ecn = 0, tx = 0;
		bool has = false;
		while (e < ng && grp[e]->dev == grp[g]->dev &&
		       grp[e]->prio == grp[g]->prio) {
			ecn += grp[e]->ecn;
			tx += grp[e]->tx;
			has |= grp[e]->has_ecn;
			e++;
		}
		for (; g < e; g++) {
			if (grp[g]->tx <= 0)
				continue;
			struct row *w = new_row(rs);
			w->dev = grp[g]->dev;
			w->port = grp[g]->port;
			w->prio = grp[g]->prio;
			w->tx = grp[g]->tx;
			w->rx = grp[g]->rx;
			w->checked = has && tx > 0;
			w->bad = w->checked && ecn <= 0;
		}
	}
}

/* Sums the buckets of [from, to] and collects the detail rows of the
 * intact ones (detail restarts after the last incomplete bucket). */
static void sum_buckets(const struct report *rep, struct report_result *res,
			int64_t now, struct rows *rs)
{
	int64_t from = res->from_ns, to = res->to_ns, step = res->step_ns;
	int64_t to_c = to < now ? to : now;
	size_t expected = 0;
	if (to_c >= from)
		expected = (size_t)(to_c / step - from / step + 1);
	for (size_t i = 0; rep && i < rep->b_n; i++) {
		const struct bucket *b = bucket_at(rep, i);
		if (b->start > to || b->start + step <= from)
			continue;
		res->buckets++;
		if (!res->cov_from_ns)
			res->cov_from_ns = b->start;
		res->cov_to_ns = b->start + step < now ? b->start + step : now;
		add_bucket(res, b);
		bool intact = b->rec_first >= rep->rec_tail && !b->rec_lost;
		if (!intact) {
			rs->n = 0;
			res->detail_from_ns = 0;
			continue;
		}
		if (!res->detail_from_ns)
			res->detail_from_ns = b->start;
		add_bucket_rows(rep, b, rs);
	}
	res->complete =
	    res->buckets > 0 && res->buckets == expected && to <= now;
}

/* The incidents firing at some point of [from, to]: counted per kind,
 * the first REPORT_MAX_LISTED listed. */
static void list_incidents(const struct report *rep, struct report_result *res,
			   int64_t now)
{
	size_t n = rep ? rep->inc_n : 0;
	res->incidents = xcalloc(n ? n : 1, sizeof *res->incidents);
	for (size_t i = 0; i < n; i++) {
		const struct hinc *h =
		    &rep->inc[(rep->inc_head + i) % rep->o.max_incidents];
		int64_t end = h->resolved ? h->resolved : now;
		if (!h->fired || h->fired > res->to_ns || end < res->from_ns)
			continue;
		res->counts[h->kind]++;
		if (res->n_incidents == REPORT_MAX_LISTED) {
			res->truncated = true;
			continue;
		}
		struct report_incident_row *o =
		    &res->incidents[res->n_incidents++];
		o->id = h->id;
		o->kind = h->kind;
		o->prio = h->prio;
		o->fired_ns = h->fired;
		o->resolved_ns = h->resolved;
		o->peak = h->peak;
		o->far_end = h->far_end;
		o->sender = h->sender;
		o->device = xstrdup(h->dev);
		o->port = xstrdup(h->port);
		o->summary = xstrdup(h->summary);
	}
}

/* ECN before PFC (the switch rows) and the stragglers (the NIC rows,
 * heaviest first, top of them) out of the merged detail rows. */
static void list_rows(const struct report *rep, struct report_result *res,
		      struct row *rows, size_t n_rows, unsigned top)
{
	res->ecn_bad = xcalloc(n_rows ? n_rows : 1, sizeof *res->ecn_bad);
	for (size_t i = 0; i < n_rows; i++) {
		const struct row *w = &rows[i];
		if (w->prio < 0)
			continue;
		res->ecn_checked += w->checked;
		if (!w->bad)
			continue;
		struct report_port_row *o = &res->ecn_bad[res->n_ecn_bad++];
		o->device = lbl(rep, w->dev);
		o->port = lbl(rep, w->port);
		o->prio = w->prio;
		o->pause_tx_s = w->tx;
	}
	size_t k = 0;
	for (size_t i = 0; i < n_rows; i++)
		if (rows[i].prio < 0)
			rows[k++] = rows[i];
	if (k)
		qsort(rows, k, sizeof *rows, cmp_pause);
	res->stragglers = xcalloc(k ? k : 1, sizeof *res->stragglers);
	for (size_t i = 0; i < k && i < top; i++) {
		struct report_straggler *o =
		    &res->stragglers[res->n_stragglers++];
		o->device = lbl(rep, rows[i].dev);
		o->pause_tx_s = rows[i].tx;
		o->pause_rx_s = rows[i].rx;
	}
}

/* The report of [from, to] out of rep (a snapshot, or NULL). */
static void build(const struct report *rep, struct report_result *res,
		  unsigned top, int64_t now)
{
	struct rows rs;
	memset(&rs, 0, sizeof rs);
	res->lossless_mask = rep ? rep->o.lossless_mask : 0;
	res->step_ns = rep ? (int64_t)rep->o.step_ns : NS_PER_S;
	sum_buckets(rep, res, now, &rs);
	free(rs.grp);
	size_t n_rows = merge_rows(rs.v, rs.n);
	list_incidents(rep, res, now);
	list_rows(rep, res, rs.v, n_rows, top);
	free(rs.v);
}

/*
 * A copy of the buckets of [from, to] (oldest first), the records of
 * the intact ones renumbered from 0, and the incidents, shaped as a
 * report so that build() reads it as it would the live one. Called
 * with rep's lock held.
 */
static struct report *snapshot(const struct report *rep, int64_t from,
			       int64_t to)
{
	struct report *s = xcalloc(1, sizeof *s);
	int64_t step = (int64_t)rep->o.step_ns;
	s->st = rep->st;
	s->o = rep->o;
	size_t nb = 0;
	uint64_t nrec = 0;
	for (size_t i = 0; i < rep->b_n; i++) {
		const struct bucket *b = bucket_at(rep, i);
		if (b->start > to || b->start + step <= from)
			continue;
		nb++;
		if (b->rec_first >= rep->rec_tail && !b->rec_lost)
			nrec += b->rec_n;
	}
	s->b = xcalloc(nb ? nb : 1, sizeof *s->b);
	s->nb = nb ? nb : 1;
	s->b_n = nb;
	s->b_head = nb ? nb - 1 : 0;
	s->recs = xcalloc(nrec ? nrec : 1, sizeof *s->recs);
	s->o.max_records = nrec ? nrec : 1;
	s->rec_alloc = s->o.max_records;
	size_t k = 0;
	uint64_t r = 0;
	for (size_t i = 0; i < rep->b_n; i++) {
		const struct bucket *b = bucket_at(rep, i);
		if (b->start > to || b->start + step <= from)
			continue;
		struct bucket *c = &s->b[k++];
		*c = *b;
		c->rec_first = r;
		if (b->rec_first < rep->rec_tail || b->rec_lost) {
			c->rec_lost = true;
			c->rec_n = 0;
			continue;
		}
		for (uint64_t q = 0; q < b->rec_n; q++)
			s->recs[r++] =
			    *rec_of((struct report *)rep, b->rec_first + q);
	}
	s->rec_head = r;
	s->o.max_incidents = rep->inc_n ? (unsigned)rep->inc_n : 1;
	s->inc = xcalloc(s->o.max_incidents, sizeof *s->inc);
	for (size_t i = 0; i < rep->inc_n; i++) {
		const struct hinc *h =
		    &rep->inc[(rep->inc_head + i) % rep->o.max_incidents];
		struct hinc *c = &s->inc[s->inc_n++];
		*c = *h;
		c->dev = xstrdup(h->dev);
		c->port = xstrdup(h->port);
		c->summary = xstrdup(h->summary);
	}
	return s;
}

static void snapshot_free(struct report *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->inc_n; i++)
		hinc_free(&s->inc[i]);
	free(s->inc);
	free(s->b);
	free(s->recs);
	free(s);
}

int report_query(struct report *rep, int64_t from, int64_t to, unsigned top,
		 int64_t now, struct report_result *res)
{
	memset(res, 0, sizeof *res);
	if (rep)
		pthread_mutex_lock(&rep->lock);
	if (to < 0)
		to = now;
	if (from < 0) {
		from = rep && rep->b_n ? bucket_at(rep, 0)->start : to;
		if (from > to)
			from = to;
	}
	if (to < from) {
		if (rep)
			pthread_mutex_unlock(&rep->lock);
		return -ERANGE;
	}
	/* Copy what the range needs and sum without the lock: a query
	 * over a full window of records takes long enough that the
	 * engine's feed must not wait for it. */
	struct report *snap = rep ? snapshot(rep, from, to) : NULL;
	if (rep)
		pthread_mutex_unlock(&rep->lock);
	res->from_ns = from;
	res->to_ns = to;
	build(snap, res, top, now);
	snapshot_free(snap);
	return 0;
}

void report_result_free(struct report_result *res)
{
	for (size_t i = 0; i < res->n_incidents; i++) {
		free(res->incidents[i].device);
		free(res->incidents[i].port);
		free(res->incidents[i].summary);
	}
	free(res->incidents);
	free(res->ecn_bad);
	free(res->stragglers);
	memset(res, 0, sizeof *res);
}

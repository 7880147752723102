/*
 * api: the JSON API (see api.h and doc/api.md).
 *
 * /ports reads every series once and folds the fresh ones into one row
 * per (device, port) through an open-addressing index keyed by the two
 * label ids; what each counter contributes (a sum, a maximum or a gauge
 * value, and its per-priority share) is the table port_maps below, so a
 * new counter is one row there. Rows are filtered, sorted (qsort_r with
 * the field, nulls last, ties by device and port in natural order) and
 * only the first `limit` become JSON.
 *
 * Threading and ownership: see api.h; everything allocated here lives for
 * one request. Large per-request arrays use plain malloc and fail with
 * -ENOMEM rather than abort, since their size follows the store's.
 */
#include "config.h"

#include "api.h"

#include "counters.h"
#include "health.h"
#include "incidents.h"
#include "json.h"
#include "mem.h"
#include "ident.h"
#include "report_api.h"
#include "rules.h"
#include "store.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Fields of a /ports row, in the order of the JSON object. */
enum api_port_field {
	API_PF_LINK_UP,
	API_PF_SPEED,
	API_PF_RX_BPS,
	API_PF_TX_BPS,
	API_PF_UTIL,
	API_PF_PAUSE_RX,
	API_PF_PAUSE_TX,
	API_PF_PFC_RX_FPS,
	API_PF_PFC_TX_FPS,
	API_PF_ECN,
	API_PF_ROCE_CE,
	API_PF_CNP_SENT,
	API_PF_CNP_HANDLED,
	API_PF_CNP_IGNORED,
	API_PF_DROPS,
	API_PF_ERRORS,
	API_PF_RETRIES,
	API_PF__COUNT,
	/* Accumulators that are not fields: per-priority traffic, used for
	 * rx_bps / tx_bps when the port has no port-wide byte counters. */
	API_PF_PRIO_RX_BPS = API_PF__COUNT,
	API_PF_PRIO_TX_BPS,
	API_PF__ALL
};

static const char *const port_field_names[API_PF__COUNT] = {
	[API_PF_LINK_UP] = "link_up",
	[API_PF_SPEED] = "speed_bps",
	[API_PF_RX_BPS] = "rx_bps",
	[API_PF_TX_BPS] = "tx_bps",
	[API_PF_UTIL] = "utilisation",
	[API_PF_PAUSE_RX] = "pause_ratio_rx",
	[API_PF_PAUSE_TX] = "pause_ratio_tx",
	[API_PF_PFC_RX_FPS] = "pfc_rx_fps",
	[API_PF_PFC_TX_FPS] = "pfc_tx_fps",
	[API_PF_ECN] = "ecn_marked_pps",
	[API_PF_ROCE_CE] = "roce_ce_pps",
	[API_PF_CNP_SENT] = "cnp_sent_pps",
	[API_PF_CNP_HANDLED] = "cnp_handled_pps",
	[API_PF_CNP_IGNORED] = "cnp_ignored_pps",
	[API_PF_DROPS] = "drops_pps",
	[API_PF_ERRORS] = "errors_pps",
	[API_PF_RETRIES] = "retries_pps",
};

/* Per-priority fields of a row, in JSON order. */
enum api_prio_field {
	API_PP_PAUSE_RX,
	API_PP_PAUSE_TX,
	API_PP_PFC_RX,
	API_PP_PFC_TX,
	API_PP_DISCARDS,
	API_PP__COUNT
};

static const char *const prio_field_names[API_PP__COUNT] = {
	[API_PP_PAUSE_RX] = "pause_ratio_rx",
	[API_PP_PAUSE_TX] = "pause_ratio_tx",
	[API_PP_PFC_RX] = "pfc_rx_fps",
	[API_PP_PFC_TX] = "pfc_tx_fps",
	[API_PP_DISCARDS] = "discards_pps",
};

#define API_PRIOS 8

enum api_op { API_OP_SUM, API_OP_MAX, API_OP_SET };

/* What one counter contributes to its port's row. */
struct api_port_map {
	enum fm_counter counter;
	int field;	/* enum api_port_field */
	enum api_op op; /* how it combines with other series of the field */
	int prio_field; /* enum api_prio_field (summed), or -1 */
	bool gauge;	/* use the value, not the rate */
	double scale;	/* bytes/s -> bits/s is 8 */
};

static const struct api_port_map port_maps[] = {
	{ FM_C_LINK_UP, API_PF_LINK_UP, API_OP_SET, -1, true, 1 },
	{ FM_C_LINK_SPEED, API_PF_SPEED, API_OP_SET, -1, true, 8 },
	{ FM_C_BYTES_RX, API_PF_RX_BPS, API_OP_SUM, -1, false, 8 },
	{ FM_C_BYTES_TX, API_PF_TX_BPS, API_OP_SUM, -1, false, 8 },
	{ FM_C_PRIO_BYTES_RX, API_PF_PRIO_RX_BPS, API_OP_SUM, -1, false, 8 },
	{ FM_C_PRIO_BYTES_TX, API_PF_PRIO_TX_BPS, API_OP_SUM, -1, false, 8 },
	{ FM_C_PFC_RX_PAUSE, API_PF_PAUSE_RX, API_OP_MAX, API_PP_PAUSE_RX,
	  false, 1 },
	{ FM_C_PFC_TX_PAUSE, API_PF_PAUSE_TX, API_OP_MAX, API_PP_PAUSE_TX,
	  false, 1 },
	{ FM_C_PFC_RX_FRAMES, API_PF_PFC_RX_FPS, API_OP_SUM, API_PP_PFC_RX,
	  false, 1 },
	{ FM_C_PFC_TX_FRAMES, API_PF_PFC_TX_FPS, API_OP_SUM, API_PP_PFC_TX,
	  false, 1 },
	{ FM_C_ECN_MARKED, API_PF_ECN, API_OP_SUM, -1, false, 1 },
	{ FM_C_ROCE_CE_RECEIVED, API_PF_ROCE_CE, API_OP_SUM, -1, false, 1 },
	{ FM_C_CNP_SENT, API_PF_CNP_SENT, API_OP_SUM, -1, false, 1 },
	{ FM_C_CNP_HANDLED, API_PF_CNP_HANDLED, API_OP_SUM, -1, false, 1 },
	{ FM_C_CNP_IGNORED, API_PF_CNP_IGNORED, API_OP_SUM, -1, false, 1 },
	{ FM_C_DISCARDS_RX, API_PF_DROPS, API_OP_SUM, -1, false, 1 },
	{ FM_C_DISCARDS_TX, API_PF_DROPS, API_OP_SUM, -1, false, 1 },
	{ FM_C_QUEUE_DROPS, API_PF_DROPS, API_OP_SUM, -1, false, 1 },
	{ FM_C_PRIO_DISCARDS_RX, API_PF_DROPS, API_OP_SUM, API_PP_DISCARDS,
	  false, 1 },
	{ FM_C_PG_DROPS, API_PF_DROPS, API_OP_SUM, API_PP_DISCARDS, false, 1 },
	{ FM_C_PFC_WD_DROPS_RX, API_PF_DROPS, API_OP_SUM, API_PP_DISCARDS,
	  false, 1 },
	{ FM_C_PFC_WD_DROPS_TX, API_PF_DROPS, API_OP_SUM, API_PP_DISCARDS,
	  false, 1 },
	{ FM_C_NIC_OUT_OF_BUFFER, API_PF_DROPS, API_OP_SUM, -1, false, 1 },
	{ FM_C_NIC_PCIE_OVERFLOW, API_PF_DROPS, API_OP_SUM, -1, false, 1 },
	{ FM_C_ERRORS_RX, API_PF_ERRORS, API_OP_SUM, -1, false, 1 },
	{ FM_C_ERRORS_TX, API_PF_ERRORS, API_OP_SUM, -1, false, 1 },
	/* NIC transport retries: ACK timeouts and adaptive retransmissions */
	{ FM_C_RDMA_ACK_TIMEOUTS, API_PF_RETRIES, API_OP_SUM, -1, false, 1 },
	{ FM_C_RDMA_ADAPTIVE_RETRANS, API_PF_RETRIES, API_OP_SUM, -1, false,
	  1 },
};

struct api_port_row {
	store_label device;
	store_label port;
	bool stale;	  /* at least one of its series is stale */
	uint32_t has;	  /* bit f: field f has a value */
	uint8_t prio_has; /* bit p: priority p has a value */
	uint8_t prio_field_has[API_PRIOS]; /* bit f: prio field f known */
	double v[API_PF__ALL];
	double prio[API_PRIOS][API_PP__COUNT];
};

/* Rows and the (device, port) -> row index. */
struct api_port_table {
	struct api_port_row *rows;
	size_t n, cap;
	uint64_t *keys; /* device << 32 | port; 0: empty (device != 0) */
	uint32_t *slot_row;
	size_t slots; /* power of two */
};

/* Sort order of a /ports request. */
#define API_SORT_DEVICE (-1)
#define API_SORT_PORT	(-2)

struct api_ports_query {
	int sort; /* enum api_port_field, or API_SORT_* */
	bool desc;
	unsigned limit;
	const char *device; /* filters; NULL: any */
	const char *port;
};

struct api_sort_ctx {
	const struct store *st;
	int sort;
	bool desc;
};

static const char *label_name(const struct store *st, store_label id)
{
	const char *s = store_label_str(st, id);
	return s ? s : "";
}

static int dump_cb(const char *s, size_t n, void *data)
{
	struct buf *b = data;
	buf_append(b, s, n);
	return b->failed ? -1 : 0;
}

int api_put_json(struct buf *out, json_t *j)
{
	if (!j)
		return -ENOMEM;
	int rc = json_dump_callback(j, dump_cb, out,
				    JSON_COMPACT | JSON_REAL_PRECISION(15));
	json_decref(j);
	if (rc < 0 || out->failed)
		return -ENOMEM;
	buf_putc(out, '\n');
	return buf_error(out);
}

void api_put_error(struct buf *out, const char *reason)
{
	json_t *j = json_object();
	json_object_set_new(j, "error", json_str(reason));
	api_put_json(out, j);
}

int api_put_bad_request(struct buf *out, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	api_put_error(out, msg);
	return out->failed ? -ENOMEM : 400;
}

int api_param_once(const struct api_param *p, size_t i, struct buf *out)
{
	for (size_t j = 0; j < i; j++)
		if (strcmp(p[j].key, p[i].key) == 0)
			return api_put_bad_request(
			    out, "parameter '%.64s' given more than once",
			    p[i].key);
	if (!p[i].value || !*p[i].value)
		return api_put_bad_request(
		    out, "parameter '%.64s' has no value", p[i].key);
	return 0;
}

/* A 400 response naming the problem, the reason not cut (it may quote a
 * whole parameter); returns 400 or -ENOMEM. */
static int bad_request(struct buf *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int bad_request(struct buf *out, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *reason = xvasprintf(fmt, ap);
	va_end(ap);
	api_put_error(out, reason);
	free(reason);
	return out->failed ? -ENOMEM : 400;
}

/* 0 if every parameter is one of allowed (NULL-terminated) and appears
 * once; otherwise a 400 response is written and its status returned. */
static int check_params(const struct api_param *p, size_t n,
			const char *const *allowed, struct buf *out)
{
	for (size_t i = 0; i < n; i++) {
		bool known = false;
		for (const char *const *a = allowed; *a; a++)
			if (strcmp(p[i].key, *a) == 0)
				known = true;
		if (!known)
			return bad_request(out, "unknown parameter '%s'",
					   p[i].key);
		int rc = api_param_once(p, i, out);
		if (rc)
			return rc;
	}
	return 0;
}

static double now_realtime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int serve_targets(const struct api_ctx *ctx, struct buf *out)
{
	struct health_target_info *v = NULL;
	size_t n = ctx->h ? health_snapshot(ctx->h, &v) : 0;
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++) {
		json_t *t = json_object();
		json_object_set_new(t, "target", json_str(v[i].target));
		json_object_set_new(t, "protocol", json_str(v[i].protocol));
		json_object_set_new(t, "up", json_boolean(v[i].up));
		json_object_set_new(
		    t, "last_update_age_seconds",
		    v[i].last_update_age_ns >= 0
			? json_num((double)v[i].last_update_age_ns / 1e9)
			: json_null());
		json_object_set_new(t, "last_duration_seconds",
				    v[i].last_duration_s >= 0
					? json_num(v[i].last_duration_s)
					: json_null());
		json_object_set_new(t, "sync_seen",
				    json_boolean(v[i].sync_seen));
		json_object_set_new(t, "last_error",
				    v[i].last_error ? json_str(v[i].last_error)
						    : json_null());
		json_t *c = json_object();
		for (int k = 0; k < HEALTH_C__COUNT; k++)
			json_object_set_new(
			    c, health_counter_name((enum health_counter)k),
			    json_u64(v[i].counters[k]));
		json_object_set_new(t, "counters", c);
		json_array_append_new(arr, t);
	}
	health_snapshot_free(v, n);
	json_t *root = json_object();
	json_object_set_new(root, "targets", arr);
	return api_put_json(out, root) < 0 ? -ENOMEM : 200;
}

static int serve_status(const struct api_ctx *ctx, struct buf *out)
{
	struct store_stats ss;
	store_get_stats(ctx->st, &ss);
	json_t *root = json_object();
	json_object_set_new(root, "version", json_string(PACKAGE_VERSION));
	if (ctx->h) {
		double start_ns = (double)health_start_time_ns(ctx->h);
		json_object_set_new(root, "start_time_seconds",
				    json_num(start_ns / 1e9));
		json_object_set_new(
		    root, "uptime_seconds",
		    json_num((now_realtime_ns() - start_ns) / 1e9));
	}
	json_object_set_new(root, "series", json_u64(ss.series));
	json_object_set_new(root, "stale_series", json_u64(ss.stale_series));
	json_object_set_new(root, "labels", json_u64(ss.labels));
	json_object_set_new(root, "memory_bytes", json_u64(ss.memory_bytes));
	json_object_set_new(root, "updates_total", json_u64(ss.updates_total));
	json_object_set_new(root, "resets_total", json_u64(ss.resets_total));
	json_object_set_new(root, "implausible_total",
			    json_u64(ss.implausible_total));
	json_object_set_new(root, "rejected_total",
			    json_u64(ss.rejected_total));
	if (ctx->h) {
		bool ok;
		int64_t when_ns, success_ns;
		health_get_reload(ctx->h, &ok, &when_ns, &success_ns);
		json_t *r = json_object();
		json_object_set_new(r, "successful", json_boolean(ok));
		json_object_set_new(r, "last_time_seconds",
				    json_num((double)when_ns / 1e9));
		json_object_set_new(r, "last_success_time_seconds",
				    json_num((double)success_ns / 1e9));
		json_object_set_new(root, "reload", r);

		struct health_target_info *v = NULL;
		size_t n = health_snapshot(ctx->h, &v);
		size_t up = 0;
		for (size_t i = 0; i < n; i++)
			up += v[i].up;
		health_snapshot_free(v, n);
		json_object_set_new(root, "targets", json_integer((int)n));
		json_object_set_new(root, "targets_up", json_integer((int)up));
	}
	return api_put_json(out, root) < 0 ? -ENOMEM : 200;
}

static size_t key_hash(uint64_t key, size_t slots)
{
	return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (slots - 1);
}

static int table_grow_index(struct api_port_table *t)
{
	size_t slots = t->slots ? t->slots * 2 : 1024;
	uint64_t *keys = calloc(slots, sizeof *keys);
	uint32_t *slot_row = malloc(slots * sizeof *slot_row);
	if (!keys || !slot_row) {
		free(keys);
		free(slot_row);
		return -ENOMEM;
	}
	for (size_t r = 0; r < t->n; r++) {
		uint64_t key =
		    (uint64_t)t->rows[r].device << 32 | t->rows[r].port;
		size_t i = key_hash(key, slots);
		while (keys[i])
			i = (i + 1) & (slots - 1);
		keys[i] = key;
		slot_row[i] = (uint32_t)r;
	}
	free(t->keys);
	free(t->slot_row);
	t->keys = keys;
	t->slot_row = slot_row;
	t->slots = slots;
	return 0;
}

/* The row of (device, port), created empty if new; NULL on -ENOMEM. */
static struct api_port_row *table_row(struct api_port_table *t,
				      store_label device, store_label port)
{
	uint64_t key = (uint64_t)device << 32 | port;
	/* Keep the load factor under one half. */
	if ((t->n + 1) * 2 > t->slots && table_grow_index(t) < 0)
		return NULL;
	size_t i = key_hash(key, t->slots);
	while (t->keys[i]) {
		if (t->keys[i] == key)
			return &t->rows[t->slot_row[i]];
		i = (i + 1) & (t->slots - 1);
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct api_port_row *rows =
		    realloc(t->rows, cap * sizeof *rows);
		if (!rows)
			return NULL;
		t->rows = rows;
		t->cap = cap;
	}
	struct api_port_row *r = &t->rows[t->n];
	memset(r, 0, sizeof *r);
	r->device = device;
	r->port = port;
	t->keys[i] = key;
	t->slot_row[i] = (uint32_t)t->n++;
	return r;
}

static void table_free(struct api_port_table *t)
{
	free(t->rows);
	free(t->keys);
	free(t->slot_row);
}

static void fold(double *dst, uint32_t *has, unsigned bit, enum api_op op,
		 double v)
{
	if (!(*has & (1u << bit)))
		*dst = v;
	else if (op == API_OP_SUM)
		*dst += v;
	else if (op == API_OP_MAX)
		*dst = fmax(*dst, v);
	else
		*dst = v;
	*has |= 1u << bit;
}

static void row_add(struct api_port_row *r, const struct api_port_map *m,
		    const struct store_sample *s)
{
	if (s->stale) {
		r->stale = true;
		return;
	}
	double v;
	if (m->gauge) {
		if (!s->has_value)
			return;
		v = s->value;
	} else {
		if (!s->has_rate)
			return;
		v = s->rate;
	}
	if (!isfinite(v))
		return;
	v *= m->scale;
	fold(&r->v[m->field], &r->has, (unsigned)m->field, m->op, v);
	if (m->prio_field >= 0 && s->key.sub < API_PRIOS) {
		uint32_t has = r->prio_field_has[s->key.sub];
		fold(&r->prio[s->key.sub][m->prio_field], &has,
		     (unsigned)m->prio_field, API_OP_SUM, v);
		r->prio_field_has[s->key.sub] = (uint8_t)has;
		r->prio_has |= (uint8_t)(1u << s->key.sub);
	}
}

/* Derived fields: traffic from priorities when there is no port-wide
 * counter, utilisation from traffic and speed. */
static void row_finish(struct api_port_row *r)
{
	static const int pairs[2][2] = {
		{ API_PF_RX_BPS, API_PF_PRIO_RX_BPS },
		{ API_PF_TX_BPS, API_PF_PRIO_TX_BPS },
	};
	for (int i = 0; i < 2; i++) {
		uint32_t port_bit = 1u << pairs[i][0];
		uint32_t prio_bit = 1u << pairs[i][1];
		if (!(r->has & port_bit) && (r->has & prio_bit)) {
			r->v[pairs[i][0]] = r->v[pairs[i][1]];
			r->has |= port_bit;
		}
	}
	uint32_t rx = 1u << API_PF_RX_BPS, tx = 1u << API_PF_TX_BPS;
	double speed = r->v[API_PF_SPEED];
	if ((r->has & (1u << API_PF_SPEED)) && speed > 0 &&
	    (r->has & (rx | tx))) {
		double bps = 0;
		if (r->has & rx)
			bps = r->v[API_PF_RX_BPS];
		if ((r->has & tx) && r->v[API_PF_TX_BPS] > bps)
			bps = r->v[API_PF_TX_BPS];
		r->v[API_PF_UTIL] = bps / speed;
		r->has |= 1u << API_PF_UTIL;
	}
}

static int cmp_names(const struct store *st, store_label a, store_label b)
{
	if (a == b)
		return 0;
	return strverscmp(label_name(st, a), label_name(st, b));
}

static int cmp_rows(const void *pa, const void *pb, void *arg)
{
	const struct api_port_row *a = pa, *b = pb;
	const struct api_sort_ctx *c = arg;
	int r = 0;
	if (c->sort == API_SORT_DEVICE || c->sort == API_SORT_PORT) {
		r = c->sort == API_SORT_DEVICE
			? cmp_names(c->st, a->device, b->device)
			: cmp_names(c->st, a->port, b->port);
		if (c->desc)
			r = -r;
	} else {
		uint32_t bit = 1u << c->sort;
		bool ha = a->has & bit, hb = b->has & bit;
		/* Rows without the field go last in either order. */
		if (ha != hb)
			return ha ? -1 : 1;
		if (ha) {
			double x = a->v[c->sort], y = b->v[c->sort];
			r = x < y ? -1 : x > y ? 1 : 0;
			if (c->desc)
				r = -r;
		}
	}
	if (r == 0)
		r = cmp_names(c->st, a->device, b->device);
	if (r == 0)
		r = cmp_names(c->st, a->port, b->port);
	return r;
}

/* id: the port's NIC identity, NULL for a switch port. */
static json_t *row_json(const struct store *st, const struct api_port_row *r,
			const struct ident_port *id)
{
	json_t *j = json_object();
	json_object_set_new(j, "device", json_str(label_name(st, r->device)));
	json_object_set_new(j, "port", json_str(label_name(st, r->port)));
	if (id) {
		json_object_set_new(j, "netdev",
				    id->netdev[0] ? json_str(id->netdev)
						  : json_null());
		json_object_set_new(j, "rdma_device",
				    json_str(id->rdma_device));
		json_object_set_new(j, "rdma_port",
				    json_integer(id->rdma_port));
	}
	for (int f = 0; f < API_PF__COUNT; f++) {
		json_t *v;
		if (!(r->has & (1u << f)))
			v = json_null();
		else if (f == API_PF_LINK_UP)
			v = json_boolean(r->v[f] != 0);
		else
			v = json_num(r->v[f]);
		json_object_set_new(j, port_field_names[f], v);
	}
	json_object_set_new(j, "stale", json_boolean(r->stale));
	json_t *prios = json_object();
	for (int p = 0; p < API_PRIOS; p++) {
		if (!(r->prio_has & (1u << p)))
			continue;
		json_t *o = json_object();
		for (int f = 0; f < API_PP__COUNT; f++)
			json_object_set_new(o, prio_field_names[f],
					    r->prio_field_has[p] & (1u << f)
						? json_num(r->prio[p][f])
						: json_null());
		char name[2] = { (char)('0' + p), '\0' };
		json_object_set_new(prios, name, o);
	}
	json_object_set_new(j, "priorities", prios);
	return j;
}

/* Parses the /ports parameters into q; 0, or a 400 written to out. */
static int parse_ports_query(const struct api_param *p, size_t n,
			     struct api_ports_query *q, struct buf *out)
{
	static const char *const allowed[] = { "sort",	 "order", "limit",
					       "device", "port",  NULL };
	int rc = check_params(p, n, allowed, out);
	if (rc)
		return rc;
	q->sort = API_PF_PAUSE_RX;
	q->desc = true;
	q->limit = API_PORTS_DEFAULT_LIMIT;
	q->device = q->port = NULL;
	const char *order = NULL;
	for (size_t i = 0; i < n; i++) {
		const char *k = p[i].key, *v = p[i].value;
		if (strcmp(k, "sort") == 0) {
			int f = -100;
			if (strcmp(v, "device") == 0)
				f = API_SORT_DEVICE;
			else if (strcmp(v, "port") == 0)
				f = API_SORT_PORT;
			for (int j = 0; j < API_PF__COUNT; j++)
				if (strcmp(v, port_field_names[j]) == 0)
					f = j;
			if (f == -100) {
				struct buf names;
				buf_init(&names);
				buf_puts(&names, "device, port");
				for (int j = 0; j < API_PF__COUNT; j++) {
					buf_append(&names, ", ", 2);
					buf_puts(&names, port_field_names[j]);
				}
				buf_putc(&names, '\0');
				rc = bad_request(
				    out,
				    "sort: unknown field '%s' "
				    "(one of: %s)",
				    v, names.failed ? "?" : names.data);
				buf_fini(&names);
				return rc;
			}
			q->sort = f;
		} else if (strcmp(k, "order") == 0) {
			if (strcmp(v, "asc") != 0 && strcmp(v, "desc") != 0)
				return bad_request(out,
						   "order: '%s' is neither "
						   "'asc' nor 'desc'",
						   v);
			order = v;
		} else if (strcmp(k, "limit") == 0) {
			unsigned long lim = 0;
			size_t len = strlen(v);
			bool ok = len > 0 && len <= 6;
			for (size_t c = 0; ok && c < len; c++) {
				if (v[c] < '0' || v[c] > '9')
					ok = false;
				else
					lim = lim * 10 + (unsigned)(v[c] - '0');
			}
			if (!ok || lim < 1 || lim > API_PORTS_MAX_LIMIT)
				return bad_request(out,
						   "limit: '%s' is not an "
						   "integer from 1 to %d",
						   v, API_PORTS_MAX_LIMIT);
			q->limit = (unsigned)lim;
		} else if (strcmp(k, "device") == 0) {
			q->device = v;
		} else {
			q->port = v;
		}
	}
	/* Names read best A to Z, figures biggest first. */
	if (order)
		q->desc = strcmp(order, "desc") == 0;
	else
		q->desc = q->sort >= 0;
	return 0;
}

static int serve_ports(const struct api_ctx *ctx, const struct api_param *p,
		       size_t n, struct buf *out)
{
	struct api_ports_query q;
	int rc = parse_ports_query(p, n, &q, out);
	if (rc)
		return rc;

	const struct api_port_map *by_counter[FM_C__COUNT] = { NULL };
	for (size_t i = 0; i < sizeof port_maps / sizeof port_maps[0]; i++)
		by_counter[port_maps[i].counter] = &port_maps[i];

	struct api_port_table t = { 0 };
	uint32_t nslots = store_slots(ctx->st);
	for (uint32_t i = 0; i < nslots; i++) {
		struct store_sample s;
		if (store_read(ctx->st, i, &s) != 0 || !s.key.device ||
		    !s.key.port || s.key.counter >= FM_C__COUNT)
			continue;
		struct api_port_row *r =
		    table_row(&t, s.key.device, s.key.port);
		if (!r) {
			table_free(&t);
			return -ENOMEM;
		}
		const struct api_port_map *m = by_counter[s.key.counter];
		if (m)
			row_add(r, m, &s);
		else if (s.stale)
			r->stale = true;
	}

	/* Filter in place, then derive, sort and cut. */
	size_t kept = 0;
	for (size_t i = 0; i < t.n; i++) {
		struct api_port_row *r = &t.rows[i];
		if (q.device &&
		    strcmp(label_name(ctx->st, r->device), q.device) != 0)
			continue;
		if (q.port && strcmp(label_name(ctx->st, r->port), q.port) != 0)
			continue;
		row_finish(r);
		if (kept != i)
			t.rows[kept] = *r;
		kept++;
	}
	struct api_sort_ctx sc = { ctx->st, q.sort, q.desc };
	if (kept > 1)
		qsort_r(t.rows, kept, sizeof *t.rows, cmp_rows, &sc);

	struct ident_port *ids;
	size_t n_ids = ident_list(ctx->ident, &ids);
	json_t *arr = json_array();
	for (size_t i = 0; i < kept && i < q.limit; i++) {
		const struct api_port_row *r = &t.rows[i];
		const struct ident_port *id =
		    n_ids
			? ident_find(ids, n_ids, label_name(ctx->st, r->device),
				     label_name(ctx->st, r->port))
			: NULL;
		json_array_append_new(arr, row_json(ctx->st, r, id));
	}
	ident_list_free(ids, n_ids);
	table_free(&t);
	json_t *root = json_object();
	json_object_set_new(root, "total_ports", json_integer((int64_t)kept));
	json_object_set_new(root, "ports", arr);
	return api_put_json(out, root) < 0 ? -ENOMEM : 200;
}

static const char *const api_paths[] = {
	"/api/v1/targets",   "/api/v1/ports",	 "/api/v1/status",
	"/api/v1/incidents", "/api/v1/topology", "/api/v1/report",
};

bool api_path_known(const char *path)
{
	for (size_t i = 0; i < sizeof api_paths / sizeof api_paths[0]; i++)
		if (strcmp(path, api_paths[i]) == 0)
			return true;
	return false;
}

const char *api_path_at(size_t i)
{
	return i < sizeof api_paths / sizeof api_paths[0] ? api_paths[i] : NULL;
}

int api_serve(const struct api_ctx *ctx, const char *path,
	      const struct api_param *params, size_t n_params, struct buf *out)
{
	static const char *const no_params[] = { NULL };
	int rc;
	if (strcmp(path, "/api/v1/ports") == 0)
		return serve_ports(ctx, params, n_params, out);
	if (strcmp(path, "/api/v1/incidents") == 0)
		return incidents_api_incidents(ctx->rules, params, n_params,
					       out);
	if (strcmp(path, "/api/v1/topology") == 0)
		return incidents_api_topology(ctx->links, params, n_params,
					      out);
	if (strcmp(path, "/api/v1/report") == 0) {
		struct timespec now;
		clock_gettime(CLOCK_REALTIME, &now);
		return report_api_serve(ctx->report, params, n_params, out,
					(int64_t)now.tv_sec * 1000000000 +
					    now.tv_nsec);
	}
	if (strcmp(path, "/api/v1/targets") == 0) {
		if ((rc = check_params(params, n_params, no_params, out)))
			return rc;
		return serve_targets(ctx, out);
	}
	if (strcmp(path, "/api/v1/status") == 0) {
		if ((rc = check_params(params, n_params, no_params, out)))
			return rc;
		return serve_status(ctx, out);
	}
	api_put_error(out, "no such endpoint");
	return out->failed ? -ENOMEM : 404;
}

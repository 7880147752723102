/*
 * prom: Prometheus text exposition of the store and of fabmond's health
 * (see prom.h).
 *
 * One pass copies every live, fresh series into a compact record (24
 * bytes: label ids, counter id, value), counting series per counter id;
 * a counting sort then orders the records by counter id, which makes the
 * series of each family contiguous because the ids of a family are
 * adjacent in the vocabulary. Formatting is memcpy of pre-escaped labels
 * (looked up through a small per-render cache, since a few thousand
 * device and port names repeat across a million series) and integer
 * formatting without printf.
 *
 * Each series is read once, so a series created or withdrawn during a
 * render is either in it or not, never half. Threading and ownership:
 * see prom.h; everything allocated here lives for one render.
 */
#include "config.h"

#include "prom.h"

#include "alert.h"
#include "counters.h"
#include "expfmt.h"
#include "fabmon_revision.h"
#include "health.h"
#include "mem.h"
#include "ident.h"
#include "procstat.h"
#include "store.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A fresh series, as much of it as the exposition needs. */
struct prom_rec {
	store_label device;
	store_label port;
	uint32_t sub;
	uint16_t counter;
	double value;
};

/* Direct-mapped cache of escaped label strings: id -> (string, length). */
#define PROM_LABEL_CACHE 4096

struct prom_label_ent {
	store_label id; /* 0: empty */
	uint32_t len;
	const char *s;
};

struct prom_render_ctx {
	struct store *st;
	struct buf *out;
	enum expfmt fmt;
	struct prom_label_ent *cache;
};

/* The escaped string of label id, or NULL (no such label). */
static const char *label_get(struct prom_render_ctx *c, store_label id,
			     size_t *len)
{
	if (!id)
		return NULL;
	struct prom_label_ent *e = &c->cache[id % PROM_LABEL_CACHE];
	if (e->id != id) {
		const char *s = store_label_prom(c->st, id);
		if (!s)
			return NULL;
		e->id = id;
		e->s = s;
		e->len = (uint32_t)strlen(s);
	}
	*len = e->len;
	return e->s;
}

/* Appends `name="value"`, preceded by '{' for the first label of a line
 * and ',' for the others. value is already escaped. */
static void put_label(struct buf *b, bool *first, const char *name,
		      size_t name_len, const char *value, size_t value_len)
{
	buf_putc(b, *first ? '{' : ',');
	*first = false;
	buf_append(b, name, name_len);
	buf_append(b, "=\"", 2);
	buf_append(b, value, value_len);
	buf_putc(b, '"');
}

#define PUT_LABEL(b, first, lit, v, vlen) \
	put_label(b, first, lit, sizeof lit - 1, v, vlen)

/* A gauge family with one unlabelled sample. */
static void put_gauge(struct buf *b, enum expfmt f, const char *name,
		      const char *help, double v)
{
	expfmt_put_family(b, f, name, "gauge", help);
	buf_puts(b, name);
	buf_putc(b, ' ');
	buf_put_double(b, v);
	buf_putc(b, '\n');
}

/* A counter family with one unlabelled sample, straight from uint64_t
 * (totals above 2^53 stay exact), created at created_s (< 0: unknown). */
static void put_counter(struct buf *b, enum expfmt f, const char *name,
			const char *help, uint64_t v, double created_s)
{
	expfmt_put_family(b, f, name, "counter", help);
	buf_puts(b, name);
	buf_putc(b, ' ');
	buf_put_u64(b, v);
	buf_putc(b, '\n');
	expfmt_put_created(b, f, name, "", created_s);
}

/* A counter family with one unlabelled sample, as a double. */
static void put_counter_double(struct buf *b, enum expfmt f, const char *name,
			       const char *help, double v, double created_s)
{
	expfmt_put_family(b, f, name, "counter", help);
	buf_puts(b, name);
	buf_putc(b, ' ');
	buf_put_double(b, v);
	buf_putc(b, '\n');
	expfmt_put_created(b, f, name, "", created_s);
}

static void put_series(struct prom_render_ctx *c,
		       const struct fm_counter_info *ci, size_t fam_len,
		       const struct prom_rec *r)
{
	struct buf *b = c->out;
	bool first = true;
	const char *s;
	size_t n;

	buf_append(b, ci->family, fam_len);
	if ((s = label_get(c, r->device, &n)))
		PUT_LABEL(b, &first, "device", s, n);
	if ((s = label_get(c, r->port, &n)))
		PUT_LABEL(b, &first, "port", s, n);
	if (ci->sub == FM_SUB_PRIORITY) {
		char tmp[12];
		char *end = tmp + sizeof tmp, *p = end;
		uint32_t v = r->sub;
		do {
			*--p = (char)('0' + v % 10);
			v /= 10;
		} while (v);
		PUT_LABEL(b, &first, "priority", p, (size_t)(end - p));
	} else if (ci->sub == FM_SUB_QUEUE && (s = label_get(c, r->sub, &n))) {
		PUT_LABEL(b, &first, "queue", s, n);
	}
	if (ci->dir != FM_DIR_NONE)
		PUT_LABEL(b, &first, "direction", fm_dir_name(ci->dir), 2);
	if (!first)
		buf_putc(b, '}');
	buf_putc(b, ' ');
	buf_put_double(b, r->value);
	buf_putc(b, '\n');
}

/* The HELP text of the family that id belongs to (on its first id). */
static const char *family_help(int id)
{
	const struct fm_counter_info *ci = fm_counter_info((enum fm_counter)id);
	for (int j = id; j > FM_C_NONE; j--) {
		const struct fm_counter_info *cj =
		    fm_counter_info((enum fm_counter)j);
		if (strcmp(cj->family, ci->family) != 0)
			break;
		if (cj->help)
			return cj->help;
	}
	return ci->name;
}

static int render_store(struct prom_render_ctx *c)
{
	struct store *st = c->st;
	uint32_t nslots = store_slots(st);
	size_t counts[FM_C__COUNT + 1] = { 0 };
	struct prom_rec *recs = NULL;
	uint32_t *order = NULL;
	int rc = 0;

	if (nslots == 0)
		return 0;
	recs = malloc((size_t)nslots * sizeof *recs);
	order = malloc((size_t)nslots * sizeof *order);
	if (!recs || !order) {
		rc = -ENOMEM;
		goto out;
	}

	uint32_t m = 0;
	for (uint32_t i = 0; i < nslots; i++) {
		struct store_sample s;
		if (store_read(st, i, &s) != 0 || s.stale || !s.has_value)
			continue;
		if (s.key.counter <= FM_C_NONE || s.key.counter >= FM_C__COUNT)
			continue;
		struct prom_rec *r = &recs[m++];
		r->device = s.key.device;
		r->port = s.key.port;
		r->sub = s.key.sub;
		r->counter = s.key.counter;
		r->value = s.value;
		counts[s.key.counter + 1]++;
	}

	/* One reservation for the typical line (~120 bytes) instead of a
	 * dozen doublings, each copying everything rendered so far. */
	if (buf_reserve(c->out, (size_t)m * 128 + 65536) < 0) {
		rc = -ENOMEM;
		goto out;
	}

	/* Counting sort: counts[id] becomes the first position of id. */
	for (int id = 1; id <= FM_C__COUNT; id++)
		counts[id] += counts[id - 1];
	for (uint32_t i = 0; i < m; i++)
		order[counts[recs[i].counter]++] = i;
	/* Now counts[id] is the end of id, i.e. the start of id + 1. */

	size_t pos = 0;
	for (int id = FM_C_NONE + 1; id < FM_C__COUNT;) {
		const struct fm_counter_info *ci =
		    fm_counter_info((enum fm_counter)id);
		int last = id;
		while (
		    last + 1 < FM_C__COUNT &&
		    strcmp(fm_counter_info((enum fm_counter)(last + 1))->family,
			   ci->family) == 0)
			last++;
		size_t end = counts[last];
		if (end > pos) {
			/* No _created: see prom.h. */
			expfmt_put_family(c->out, c->fmt, ci->family,
					  ci->kind == FM_KIND_GAUGE ? "gauge"
								    : "counter",
					  family_help(id));
			size_t fam_len = strlen(ci->family);
			for (; pos < end; pos++) {
				const struct prom_rec *r = &recs[order[pos]];
				put_series(c, fm_counter_info(r->counter),
					   fam_len, r);
			}
		}
		id = last + 1;
	}
out:
	free(recs);
	free(order);
	return rc;
}

static double ns_to_s(int64_t ns)
{
	return (double)ns / 1e9;
}

/* HELP of fabmon_target_<name>_total, by enum health_counter. */
static const char *const counter_help[HEALTH_C__COUNT] = {
	[HEALTH_C_UPDATES] = "Values received from the target and stored.",
	[HEALTH_C_RECONNECTS] = "Sessions to the target re-established.",
	[HEALTH_C_ERRORS] = "Failed connects, polls and reads of the target.",
	[HEALTH_C_DECODE_ERRORS] = "Messages from the target rejected as "
				   "malformed.",
	[HEALTH_C_UNMAPPED] = "Values from the target that no profile maps.",
	[HEALTH_C_TIMEOUTS] = "Requests to the target that timed out.",
	[HEALTH_C_OVERRUNS] = "Polls of the target that overran their "
			      "interval.",
};

/* Writes `name{target="..",protocol=".."} ` (value follows). */
static void put_target_labels(struct buf *b, const char *name,
			      const struct health_target_info *t)
{
	buf_puts(b, name);
	buf_append(b, "{target=\"", 9);
	buf_put_label_escaped(b, t->target);
	buf_append(b, "\",protocol=\"", 12);
	buf_put_label_escaped(b, t->protocol);
	buf_append(b, "\"} ", 3);
}

/* The per-target families, one header and one line per target each.
 * The counters start with the target's entry (its first configuration,
 * at the start or the reload that added it): their _created. */
static void render_targets(struct buf *b, enum expfmt f,
			   const struct health_target_info *v, size_t n)
{
	static const struct {
		const char *name, *help;
	} fams[] = {
		{ "fabmon_target_up",
		  "1 if fabmond's collector for the target is connected and "
		  "collecting." },
		{ "fabmon_target_last_update_age_seconds",
		  "Seconds since the target's last data arrived (absent "
		  "before the first)." },
		{ "fabmon_target_last_duration_seconds",
		  "Duration of the target's last poll or read." },
		{ "fabmon_target_sync_seen",
		  "1 once the target's gNMI stream sent its sync_response "
		  "(initial state complete)." },
	};
	for (size_t k = 0; k < sizeof fams / sizeof fams[0]; k++) {
		bool header = false;
		for (size_t i = 0; i < n; i++) {
			double val;
			if (k == 0)
				val = v[i].up ? 1 : 0;
			else if (k == 1 && v[i].last_update_age_ns >= 0)
				val = ns_to_s(v[i].last_update_age_ns);
			else if (k == 2 && v[i].last_duration_s >= 0)
				val = v[i].last_duration_s;
			else if (k == 3 && strcmp(v[i].protocol, "gnmi") == 0)
				val = v[i].sync_seen ? 1 : 0;
			else
				continue;
			if (!header) {
				expfmt_put_family(b, f, fams[k].name, "gauge",
						  fams[k].help);
				header = true;
			}
			put_target_labels(b, fams[k].name, &v[i]);
			buf_put_double(b, val);
			buf_putc(b, '\n');
		}
	}
	if (n == 0)
		return;
	for (int c = 0; c < HEALTH_C__COUNT; c++) {
		const char *help = counter_help[c]
				       ? counter_help[c]
				       : "Collector events for the target.";
		const char *cn = health_counter_name((enum health_counter)c);
		char *fam = xasprintf("fabmon_target_%s_total", cn);
		char *created = xasprintf("fabmon_target_%s_created", cn);
		expfmt_put_family(b, f, fam, "counter", help);
		for (size_t i = 0; i < n; i++) {
			put_target_labels(b, fam, &v[i]);
			buf_put_u64(b, v[i].counters[c]);
			buf_putc(b, '\n');
			if (f != EXPFMT_OPENMETRICS)
				continue;
			put_target_labels(b, created, &v[i]);
			buf_put_double(b, ns_to_s(v[i].created_ns));
			buf_putc(b, '\n');
		}
		free(created);
		free(fam);
	}
}

/* fabmon_nic_port_info: what each NIC port label stands for, so that
 * queries can join the NIC families by netdev or RDMA device. */
static void render_nic_ident(struct ident_table *t, enum expfmt f,
			     struct buf *b)
{
	struct ident_port *v;
	size_t n = ident_list(t, &v);
	if (!n)
		return;
	expfmt_put_family(
	    b, f, "fabmon_nic_port_info", "info",
	    "Identity of a NIC port: its RDMA device and port, netdev "
	    "and link layer; the value is 1.");
	for (size_t i = 0; i < n; i++) {
		buf_puts(b, "fabmon_nic_port_info{device=\"");
		buf_put_label_escaped(b, v[i].device);
		buf_puts(b, "\",port=\"");
		buf_put_label_escaped(b, v[i].port);
		buf_puts(b, "\",rdma_device=\"");
		buf_put_label_escaped(b, v[i].rdma_device);
		buf_puts(b, "\",rdma_port=\"");
		buf_put_u64(b, v[i].rdma_port);
		buf_puts(b, "\",netdev=\"");
		buf_put_label_escaped(b, v[i].netdev);
		buf_puts(b, "\",link_layer=\"");
		buf_put_label_escaped(b, v[i].link_layer);
		buf_puts(b, "\"} 1\n");
	}
	ident_list_free(v, n);
}

/* The process_* families of the Prometheus client libraries. */
static void render_process(const struct procstat *ps, enum expfmt f,
			   struct buf *b)
{
	/* CPU time counts from the process's start. */
	put_counter_double(b, f, "process_cpu_seconds_total",
			   "Total user and system CPU time spent in seconds.",
			   ps->cpu_seconds, ps->start_time_s);
	if (ps->open_fds >= 0)
		put_gauge(b, f, "process_open_fds",
			  "Number of open file descriptors.", ps->open_fds);
	if (ps->max_fds >= 0)
		put_gauge(b, f, "process_max_fds",
			  "Maximum number of open file descriptors.",
			  ps->max_fds);
	put_gauge(b, f, "process_resident_memory_bytes",
		  "Resident memory size in bytes.", ps->resident_bytes);
	put_gauge(b, f, "process_virtual_memory_bytes",
		  "Virtual memory size in bytes.", ps->virtual_bytes);
	if (ps->virtual_max_bytes >= 0)
		put_gauge(b, f, "process_virtual_memory_max_bytes",
			  "Maximum amount of virtual memory available in "
			  "bytes.",
			  ps->virtual_max_bytes);
	put_gauge(b, f, "process_start_time_seconds",
		  "Start time of the process since unix epoch in seconds.",
		  ps->start_time_s);
}

/* The store's own figures. Its counters start with the store, which
 * fabmond creates at its start and keeps across reloads. */
static void render_store_self(struct store *st, double start_s, enum expfmt f,
			      struct buf *b)
{
	struct store_stats ss;
	store_get_stats(st, &ss);
	put_gauge(b, f, "fabmon_store_series",
		  "Series held in the counter store.", (double)ss.series);
	put_gauge(b, f, "fabmon_store_stale_series",
		  "Series not updated for their stale interval (not "
		  "exported).",
		  (double)ss.stale_series);
	put_gauge(b, f, "fabmon_store_labels",
		  "Interned label strings in the counter store.",
		  (double)ss.labels);
	put_gauge(b, f, "fabmon_store_memory_bytes",
		  "Bytes held by the counter store.", (double)ss.memory_bytes);
	put_counter(b, f, "fabmon_store_updates_total",
		    "Samples written to the counter store.", ss.updates_total,
		    start_s);
	put_counter(b, f, "fabmon_series_resets_total",
		    "Counter resets and discontinuities seen (no rate, "
		    "total kept).",
		    ss.resets_total, start_s);
	put_counter(b, f, "fabmon_series_implausible_deltas_total",
		    "Counter deltas above what the source can carry (the "
		    "port's line rate with a margin, or the mapping's "
		    "max_rate): discontinuities, never added to a total; "
		    "also in fabmon_series_resets_total.",
		    ss.implausible_total, start_s);
	put_counter(b, f, "fabmon_store_rejected_samples_total",
		    "Samples dropped as out of order, invalid or "
		    "conflicting.",
		    ss.rejected_total, start_s);
}

static void render_self(struct store *st, struct health *h,
			const struct prom_self *self, enum expfmt f,
			struct buf *b)
{
	double start_s = h ? ns_to_s(health_start_time_ns(h)) : -1;

	expfmt_put_family(b, f, "fabmon_build_info", "info",
			  "fabmond's version and the source revision it was "
			  "built from, as labels; the value is 1.");
	buf_puts(b, "fabmon_build_info{version=\"");
	buf_put_label_escaped(b, PACKAGE_VERSION);
	buf_puts(b, "\",revision=\"");
	buf_put_label_escaped(b, FABMON_REVISION);
	buf_puts(b, "\"} 1\n");
	if (self && self->process)
		render_process(self->process, f, b);
	if (h)
		put_gauge(b, f, "fabmon_start_time_seconds",
			  "Time fabmond started, seconds since the epoch.",
			  start_s);
	if (self && self->scrape_duration_s >= 0)
		put_gauge(b, f, "fabmon_scrape_duration_seconds",
			  "Time the previous /metrics render took.",
			  self->scrape_duration_s);
	render_store_self(st, start_s, f, b);

	if (!h)
		return;
	bool ok;
	int64_t when_ns, success_ns;
	health_get_reload(h, &ok, &when_ns, &success_ns);
	put_gauge(b, f, "fabmon_config_last_reload_successful",
		  "1 if the last configuration load succeeded.", ok ? 1 : 0);
	put_gauge(b, f, "fabmon_config_last_reload_success_timestamp_seconds",
		  "Time of the last successful configuration load, seconds "
		  "since the epoch.",
		  ns_to_s(success_ns));

	struct health_target_info *v = NULL;
	size_t n = health_snapshot(h, &v);
	render_targets(b, f, v, n);
	health_snapshot_free(v, n);
}

int prom_render(struct store *st, struct health *h,
		const struct prom_self *self, struct buf *out)
{
	enum expfmt f = self ? self->format : EXPFMT_TEXT;
	struct prom_render_ctx c = { .st = st, .out = out, .fmt = f };
	c.cache = calloc(PROM_LABEL_CACHE, sizeof *c.cache);
	if (!c.cache)
		return -ENOMEM;
	int rc = render_store(&c);
	free(c.cache);
	if (rc < 0)
		return rc;
	render_nic_ident(self ? self->ident : NULL, f, out);
	render_self(st, h, self, f, out);
	return buf_error(out);
}

/* The header of a fabmon_alertmanager_* family, then one sample per
 * URL of st. */
static void put_am_family(struct buf *b, enum expfmt f, double created_s,
			  const struct alert_meter_stats *st, const char *name,
			  const char *type, const char *help, size_t off,
			  bool is_size)
{
	expfmt_put_family(b, f, name, type, help);
	for (size_t i = 0; i < st->n_urls; i++) {
		const struct alert_url_stats *u = &st->url[i];
		const char *p = (const char *)u + off;
		struct buf lb;
		buf_init(&lb);
		buf_puts(&lb, "{alertmanager=\"");
		buf_put_label_escaped(&lb, u->url);
		buf_puts(&lb, "\"}");
		buf_puts(b, name);
		buf_append(b, lb.data, lb.len);
		buf_putc(b, ' ');
		if (is_size)
			buf_put_double(b, (double)*(const size_t *)p);
		else
			buf_put_u64(b, *(const uint64_t *)p);
		buf_putc(b, '\n');
		if (!is_size && buf_error(&lb) == 0) {
			buf_putc(&lb, '\0');
			if (buf_error(&lb) == 0)
				expfmt_put_created(b, f, name, lb.data,
						   created_s);
		}
		buf_fini(&lb);
	}
}

#define AM_U64(b, st, name, type, help, field)               \
	put_am_family(b, f, created_s, st, name, type, help, \
		      offsetof(struct alert_url_stats, field), false)
#define AM_SIZE(b, st, name, help, field)                       \
	put_am_family(b, f, created_s, st, name, "gauge", help, \
		      offsetof(struct alert_url_stats, field), true)

/* `name{alertmanager="url"` for a sample of a URL, left open. */
static void put_am_sample(struct buf *b, const char *name, const char *url)
{
	buf_puts(b, name);
	buf_puts(b, "{alertmanager=\"");
	buf_put_label_escaped(b, url);
	buf_putc(b, '"');
}

/* The post duration histogram and the last-success age, per URL. */
static void put_am_timing(struct buf *b, enum expfmt f,
			  const struct alert_meter_stats *st)
{
	static const char *const h =
	    "fabmon_alertmanager_post_duration_seconds";
	expfmt_put_family(b, f, h, "histogram",
			  "Time a post to Alertmanager took (every attempt).");
	for (size_t i = 0; i < st->n_urls; i++) {
		const struct alert_url_stats *u = &st->url[i];
		for (size_t k = 0; k <= ALERT_LATENCY_BUCKETS; k++) {
			put_am_sample(b,
				      "fabmon_alertmanager_post_duration_"
				      "seconds_bucket",
				      u->url);
			buf_puts(b, ",le=\"");
			if (k < ALERT_LATENCY_BUCKETS)
				buf_put_double(b, alert_latency_bounds[k]);
			else
				buf_puts(b, "+Inf");
			buf_puts(b, "\"} ");
			buf_put_u64(b, k < ALERT_LATENCY_BUCKETS
					   ? u->latency_le[k]
					   : u->latency_count);
			buf_putc(b, '\n');
		}
		put_am_sample(
		    b, "fabmon_alertmanager_post_duration_seconds_sum", u->url);
		buf_puts(b, "} ");
		buf_put_double(b, u->latency_sum_s);
		buf_putc(b, '\n');
		put_am_sample(b,
			      "fabmon_alertmanager_post_duration_seconds_count",
			      u->url);
		buf_puts(b, "} ");
		buf_put_u64(b, u->latency_count);
		buf_putc(b, '\n');
	}
	bool any = false;
	for (size_t i = 0; i < st->n_urls; i++) {
		const struct alert_url_stats *u = &st->url[i];
		if (u->last_ok_age_s < 0)
			continue;
		if (!any)
			expfmt_put_family(
			    b, f,
			    "fabmon_alertmanager_last_success_age_seconds",
			    "gauge", "Seconds since the last accepted post.");
		any = true;
		put_am_sample(b, "fabmon_alertmanager_last_success_age_seconds",
			      u->url);
		buf_puts(b, "} ");
		buf_put_double(b, u->last_ok_age_s);
		buf_putc(b, '\n');
	}
}

int prom_render_alertmanager(const struct alert_meter_stats *st, enum expfmt f,
			     double created_s, struct buf *out)
{
	if (!st->ever)
		return buf_error(out);
	put_gauge(out, f, "fabmon_alertmanager_configured",
		  "1 while incidents are pushed to an Alertmanager.",
		  st->attached ? 1 : 0);
	AM_U64(out, st, "fabmon_alertmanager_posts_total", "counter",
	       "Posts of alerts Alertmanager accepted (2xx).", posts_ok);
	AM_U64(out, st, "fabmon_alertmanager_post_failures_total", "counter",
	       "Posts that failed: connection, timeout or a non-2xx answer.",
	       posts_failed);
	AM_U64(out, st, "fabmon_alertmanager_retries_total", "counter",
	       "Posts made again after a failed one (with backoff).", retries);
	AM_U64(out, st, "fabmon_alertmanager_alerts_sent_total", "counter",
	       "Alerts in accepted posts (firing, resent and resolved).",
	       alerts_sent);
	AM_U64(out, st, "fabmon_alertmanager_alerts_dropped_total", "counter",
	       "Alerts not delivered: the alert table "
	       "(alertmanager.max_alerts) was full, or Alertmanager "
	       "rejected the post with a 4xx (not retried).",
	       dropped);
	AM_SIZE(out, st, "fabmon_alertmanager_queue_length",
		"Alerts waiting to be sent or resent now.", pending);
	AM_SIZE(out, st, "fabmon_alertmanager_alerts_tracked",
		"Alerts in the pusher's table (firing, and resolutions "
		"still being repeated).",
		tracked);
	put_am_timing(out, f, st);
	return buf_error(out);
}

/*
 * report_api: the JSON of /api/v1/report (see report_api.h).
 *
 * The verdict is the worst level of the reasons found, each section
 * judged on its own: drops on a lossless priority or NIC out_of_buffer
 * fail, PFC on a lossy priority warns, storms, deadlocks and lossless
 * drops among the incidents fail and other incidents warn, ports that
 * paused without marking ECN warn, and so does a range the history
 * covers only in part. Reasons are listed in that order.
 */
#include "config.h"

#include "report_api.h"

#include "json.h"
#include "report.h"
#include "rfc3339.h"
#include "rules.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The verdict so far and its reasons. */
struct judge {
	json_t *reasons;
	int verdict; /* 0 pass, 1 warn, 2 fail */
};

static void add_reason(struct judge *jg, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void add_reason(struct judge *jg, int level, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	json_array_append_new(jg->reasons, json_string(msg));
	if (level > jg->verdict)
		jg->verdict = level;
}

static bool is_fatal_kind(int k)
{
	return k == RULES_PFC_STORM || k == RULES_PFC_DEADLOCK ||
	       k == RULES_LOSSLESS_DROP;
}

static const char *const verdicts[] = { "pass", "warn", "fail" };

static json_t *coverage_json(const struct report_result *res)
{
	bool used = res->buckets > 0;
	json_t *cov = json_object();
	json_object_set_new(cov, "from_seconds",
			    used ? json_secs(res->cov_from_ns) : json_null());
	json_object_set_new(cov, "to_seconds",
			    used ? json_secs(res->cov_to_ns) : json_null());
	json_object_set_new(cov, "complete", json_boolean(res->complete));
	json_object_set_new(cov, "detail_from_seconds",
			    res->detail_from_ns ? json_secs(res->detail_from_ns)
						: json_null());
	json_object_set_new(cov, "step_seconds", json_secs(res->step_ns));
	return cov;
}

/* "priorities", "drops" and "pause_on_lossy" of root. */
static void put_priorities(json_t *root, const struct report_result *s,
			   struct judge *jg)
{
	json_t *prios = json_array();
	double lossless_drops = 0, lossy_frames = 0, lossy_secs = 0;
	for (int q = 0; q < REPORT_PRIOS; q++) {
		bool ll = s->lossless_mask & (1u << q);
		bool any = s->pause_tx[q] > 0 || s->pause_rx[q] > 0 ||
			   s->frames_tx[q] > 0 || s->frames_rx[q] > 0 ||
			   s->drops[q] > 0 || s->ecn[q] > 0;
		if (!ll && !any)
			continue;
		json_t *p = json_object();
		json_object_set_new(p, "priority", json_integer(q));
		json_object_set_new(p, "lossless", json_boolean(ll));
		json_object_set_new(p, "pause_frames_rx",
				    json_num(round(s->frames_rx[q])));
		json_object_set_new(p, "pause_frames_tx",
				    json_num(round(s->frames_tx[q])));
		json_object_set_new(p, "pause_seconds_rx",
				    json_num(s->pause_rx[q]));
		json_object_set_new(p, "pause_seconds_tx",
				    json_num(s->pause_tx[q]));
		json_object_set_new(p, "drops", json_num(round(s->drops[q])));
		json_object_set_new(p, "ecn_marked",
				    json_num(round(s->ecn[q])));
		json_array_append_new(prios, p);
		if (ll && round(s->drops[q]) > 0) {
			lossless_drops += round(s->drops[q]);
			add_reason(jg, 2, "%.0f drops on lossless priority %d",
				   round(s->drops[q]), q);
		}
		if (!ll) {
			lossy_frames += s->frames_rx[q] + s->frames_tx[q];
			lossy_secs += s->pause_rx[q] + s->pause_tx[q];
		}
	}
	json_object_set_new(root, "priorities", prios);

	double oob = round(s->oob);
	if (oob > 0)
		add_reason(jg, 2, "%.0f NIC out_of_buffer drops", oob);
	json_t *drops = json_object();
	json_object_set_new(
	    drops, "verdict",
	    json_string(lossless_drops > 0 || oob > 0 ? "fail" : "pass"));
	json_object_set_new(drops, "lossless", json_num(lossless_drops));
	json_object_set_new(drops, "nic_out_of_buffer", json_num(oob));
	json_object_set_new(root, "drops", drops);

	bool lossy = round(lossy_frames) > 0 || lossy_secs > 0;
	if (lossy)
		add_reason(jg, 1,
			   "PFC on priorities that are not lossless "
			   "(%.0f frames, %.3g s)",
			   round(lossy_frames), lossy_secs);
	json_t *pl = json_object();
	json_object_set_new(pl, "verdict",
			    json_string(lossy ? "warn" : "pass"));
	json_object_set_new(pl, "frames", json_num(round(lossy_frames)));
	json_object_set_new(pl, "seconds", json_num(lossy_secs));
	json_object_set_new(root, "pause_on_lossy", pl);
}

static json_t *incident_json(const struct report_incident_row *h)
{
	json_t *j = json_object();
	json_object_set_new(j, "id", json_integer((json_int_t)h->id));
	json_object_set_new(j, "kind", json_string(rules_kind_name(h->kind)));
	json_object_set_new(
	    j, "state", json_string(h->resolved_ns ? "resolved" : "firing"));
	json_object_set_new(j, "priority",
			    h->prio >= 0 ? json_integer(h->prio) : json_null());
	json_t *o = json_object();
	json_object_set_new(o, "device", json_str(h->device));
	json_object_set_new(o, "port",
			    h->port[0] ? json_str(h->port) : json_null());
	/* A storm from outside the view, as /api/v1/incidents says it. */
	if (h->far_end)
		json_object_set_new(o, "far_end", json_true());
	if (h->sender != RULES_SENDER_MONITORED)
		json_object_set_new(o, "sender",
				    json_string(rules_sender_name(h->sender)));
	json_object_set_new(j, "origin", o);
	json_object_set_new(j, "fired_seconds", json_secs(h->fired_ns));
	json_object_set_new(j, "resolved_seconds",
			    h->resolved_ns ? json_secs(h->resolved_ns)
					   : json_null());
	json_object_set_new(j, "peak", json_num(h->peak));
	json_object_set_new(j, "summary", json_str(h->summary));
	return j;
}

static json_t *incidents_json(const struct report_result *res, struct judge *jg)
{
	json_t *list = json_array();
	for (size_t i = 0; i < res->n_incidents; i++)
		json_array_append_new(list, incident_json(&res->incidents[i]));
	json_t *cj = json_object();
	for (int k = 0; k < RULES_KINDS; k++) {
		json_object_set_new(cj, rules_kind_name(k),
				    json_integer((json_int_t)res->counts[k]));
		if (res->counts[k])
			add_reason(jg, is_fatal_kind(k) ? 2 : 1,
				   "%zu %s incident(s)", res->counts[k],
				   rules_kind_name(k));
	}
	json_t *incs = json_object();
	json_object_set_new(incs, "counts", cj);
	json_object_set_new(incs, "list", list);
	json_object_set_new(incs, "truncated", json_boolean(res->truncated));
	return incs;
}

static json_t *ecn_json(const struct report_result *res, struct judge *jg)
{
	json_t *eports = json_array();
	for (size_t i = 0; i < res->n_ecn_bad; i++) {
		const struct report_port_row *w = &res->ecn_bad[i];
		json_t *j = json_object();
		json_object_set_new(j, "device", json_str(w->device));
		json_object_set_new(j, "port", json_str(w->port));
		json_object_set_new(j, "priority", json_integer(w->prio));
		json_object_set_new(j, "pause_seconds_tx",
				    json_num(w->pause_tx_s));
		json_array_append_new(eports, j);
	}
	size_t bad = res->n_ecn_bad, checked = res->ecn_checked;
	if (bad)
		add_reason(jg, 1,
			   "%zu port(s) paused on a lossless priority "
			   "without marking ECN",
			   bad);
	json_t *ecn = json_object();
	json_object_set_new(ecn, "verdict",
			    json_string(bad	  ? "warn"
					: checked ? "pass"
						  : "unknown"));
	json_object_set_new(ecn, "checked_ports",
			    json_integer((json_int_t)checked));
	json_object_set_new(ecn, "ports", eports);
	return ecn;
}

static json_t *stragglers_json(const struct report_result *res)
{
	json_t *str = json_array();
	for (size_t i = 0; i < res->n_stragglers; i++) {
		const struct report_straggler *w = &res->stragglers[i];
		json_t *j = json_object();
		json_object_set_new(j, "device", json_str(w->device));
		json_object_set_new(j, "pause_seconds_tx",
				    json_num(w->pause_tx_s));
		json_object_set_new(j, "pause_seconds_rx",
				    json_num(w->pause_rx_s));
		json_object_set_new(j, "pause_seconds",
				    json_num(w->pause_tx_s + w->pause_rx_s));
		json_array_append_new(str, j);
	}
	return str;
}

static json_t *report_json(const struct report_result *res)
{
	struct judge jg = { .reasons = json_array(), .verdict = 0 };
	json_t *root = json_object();
	json_object_set_new(root, "from_seconds", json_secs(res->from_ns));
	json_object_set_new(root, "to_seconds", json_secs(res->to_ns));
	json_object_set_new(root, "from", json_time(res->from_ns));
	json_object_set_new(root, "to", json_time(res->to_ns));
	json_object_set_new(root, "coverage", coverage_json(res));
	put_priorities(root, res, &jg);
	json_object_set_new(root, "incidents", incidents_json(res, &jg));
	json_object_set_new(root, "ecn_before_pfc", ecn_json(res, &jg));

	json_t *cnp = json_object();
	json_object_set_new(cnp, "ce_received", json_num(round(res->ce)));
	json_object_set_new(cnp, "sent", json_num(round(res->cnp_sent)));
	json_object_set_new(cnp, "handled", json_num(round(res->cnp_handled)));
	json_object_set_new(cnp, "ignored", json_num(round(res->cnp_ignored)));
	json_object_set_new(root, "cnp", cnp);
	json_object_set_new(root, "stragglers", stragglers_json(res));

	if (!res->complete)
		add_reason(&jg, 1, "the history covers only part of the range");
	json_object_set_new(root, "verdict", json_string(verdicts[jg.verdict]));
	json_object_set_new(root, "reasons", jg.reasons);
	return root;
}

int report_api_serve(struct report *rep, const struct api_param *params,
		     size_t n_params, struct buf *out, int64_t now)
{
	int64_t from = -1, to = -1;
	unsigned top = REPORT_API_TOP_DEFAULT;
	for (size_t i = 0; i < n_params; i++) {
		const char *k = params[i].key, *v = params[i].value;
		int rc = api_param_once(params, i, out);
		if (rc)
			return rc;
		if (strcmp(k, "from") == 0 || strcmp(k, "to") == 0) {
			int64_t t;
			int prc = rfc3339_parse(v, &t);
			if (prc == -ERANGE)
				return api_put_bad_request(
				    out,
				    "%s: '%.64s' is later than "
				    "2262-04-11T23:47:16Z, the last time "
				    "fabmond counts",
				    k, v);
			if (prc < 0)
				return api_put_bad_request(
				    out,
				    "%s: '%.64s' is not an RFC 3339 "
				    "time or seconds since the epoch",
				    k, v);
			*(k[0] == 'f' ? &from : &to) = t;
		} else if (strcmp(k, "top") == 0) {
			char *end;
			unsigned long n = strtoul(v, &end, 10);
			if (*end || v[0] < '0' || v[0] > '9' || n < 1 ||
			    n > REPORT_API_TOP_MAX)
				return api_put_bad_request(
				    out,
				    "top: '%.32s' is not an integer "
				    "from 1 to %d",
				    v, REPORT_API_TOP_MAX);
			top = (unsigned)n;
		} else {
			return api_put_bad_request(
			    out,
			    "unknown parameter '%.32s' (from, to, "
			    "top)",
			    k);
		}
	}
	struct report_result res;
	if (report_query(rep, from, to, top, now, &res) < 0)
		return api_put_bad_request(out, "to: must not be before from");
	json_t *j = report_json(&res);
	report_result_free(&res);
	int rc = api_put_json(out, j);
	return rc < 0 ? rc : 200;
}

/*
 * cfg_alert: the alertmanager: and report: sections (see cfg_alert.h;
 * keys and defaults in fabmon.yaml(5)).
 *
 *   alertmanager:
 *     url: http://127.0.0.1:9093     # base URL; /api/v2/alerts is added
 *     resend: 1m
 *     timeout: 10s
 *     max_alerts: 10000
 *     labels: {fabric: fab1}
 *   report:
 *     window: 24h
 *     step: 1m
 *     max_records: 1048576
 *     max_incidents: 10000
 */
#include "config.h"

#include "cfg_alert.h"

#include "mem.h"
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LABELS 32

void cfg_alert_defaults(struct cfg *c)
{
	c->alert.resend_ns = 60 * NS_PER_S;
	c->alert.timeout_ns = 10 * NS_PER_S;
	c->alert.max_alerts = 10000;
	c->report.window_ns = 24 * 3600 * NS_PER_S;
	c->report.step_ns = 60 * NS_PER_S;
	c->report.max_records = UINT64_C(1) << 20;
	c->report.max_incidents = 10000;
}

void cfg_alert_free(struct cfg_alert *a)
{
	free(a->url);
	for (size_t i = 0; i < a->n_labels; i++) {
		free(a->label_names[i]);
		free(a->label_values[i]);
	}
	free(a->label_names);
	free(a->label_values);
	a->url = NULL;
	a->label_names = a->label_values = NULL;
	a->n_labels = 0;
}

/* http:// or https:// with a host, no spaces, no query or fragment. */
static bool good_url(const char *s)
{
	const char *h;
	if (strncmp(s, "http://", 7) == 0)
		h = s + 7;
	else if (strncmp(s, "https://", 8) == 0)
		h = s + 8;
	else
		return false;
	if (!*h || *h == '/' || *h == ':')
		return false;
	for (const char *p = s; *p; p++)
		if (isspace((unsigned char)*p) || iscntrl((unsigned char)*p) ||
		    *p == '?' || *p == '#')
			return false;
	return true;
}

/* A Prometheus label name: [a-zA-Z_][a-zA-Z0-9_]*, not starting "__". */
static bool good_label(const char *s)
{
	if (!*s || isdigit((unsigned char)*s) || strncmp(s, "__", 2) == 0)
		return false;
	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			return false;
	return true;
}

/* Labels the pusher sets itself. */
static const char *const own_labels[] = { "alertname", "kind", "severity",
					  "device",    "port", "origin",
					  "priority" };

static int parse_labels(struct ytree_ctx *x, struct cfg_alert *a,
			const struct ytree_node *n)
{
	char q[YTREE_QUOTE_BUF];
	if (ytree_is_null(n))
		return 0;
	if (n->kind != YTREE_MAP)
		return ytree_fail(x, n, "expected a mapping of label: value");
	size_t count = n->n / 2;
	if (count > MAX_LABELS)
		return ytree_fail(x, n, "at most %d labels", MAX_LABELS);
	a->label_names = xcalloc(count ? count : 1, sizeof *a->label_names);
	a->label_values = xcalloc(count ? count : 1, sizeof *a->label_values);
	for (size_t i = 0; i < count; i++) {
		const struct ytree_node *k = n->kids[2 * i],
					*v = n->kids[2 * i + 1];
		int rc = ytree_want_scalar(x, k, "a label name");
		if (rc)
			return rc;
		if (strlen(k->str) != k->len || !good_label(k->str))
			return ytree_fail(x, k, "%s is not a label name",
					  ytree_quote(k, q, sizeof q));
		for (size_t j = 0; j < sizeof own_labels / sizeof *own_labels;
		     j++)
			if (strcmp(k->str, own_labels[j]) == 0)
				return ytree_fail(x, k,
						  "%s is set by fabmond itself",
						  ytree_quote(k, q, sizeof q));
		for (size_t j = 0; j < a->n_labels; j++)
			if (strcmp(k->str, a->label_names[j]) == 0)
				return ytree_fail(x, k, "%s given twice",
						  ytree_quote(k, q, sizeof q));
		size_t saved = ytree_path_key(x, k->str);
		char *val = NULL;
		if ((rc = ytree_str(x, v, &val)))
			return rc;
		if (strlen(val) != v->len || !*val) {
			free(val);
			return ytree_fail(x, v, "must be a non-empty string");
		}
		ytree_path_cut(x, saved);
		a->label_names[a->n_labels] = xstrdup(k->str);
		a->label_values[a->n_labels++] = val;
	}
	return 0;
}

enum { A_URL, A_RESEND, A_TIMEOUT, A_MAX, A_LABELS, A_N };
static const char *const alert_keys[A_N] = {
	[A_URL] = "url",	[A_RESEND] = "resend", [A_TIMEOUT] = "timeout",
	[A_MAX] = "max_alerts", [A_LABELS] = "labels",
};

int cfg_parse_alertmanager(struct ytree_ctx *x, struct cfg *c,
			   const struct ytree_node *n)
{
	struct cfg_alert *a = &c->alert;
	struct ytree_fields f;
	char q[YTREE_QUOTE_BUF];
	int rc = ytree_fields_get(x, n, alert_keys, A_N, &f);
	if (rc)
		return rc;
	if ((rc = ytree_need(x, &f, A_URL)) ||
	    (rc = ytree_opt_str(x, &f, A_URL, &a->url)))
		return rc;
	if (strlen(a->url) != f.val[A_URL]->len || strlen(a->url) > 1024 ||
	    !good_url(a->url))
		return ytree_fail_key(x, &f, A_URL,
				      "%s is not an http:// or https:// URL",
				      ytree_quote(f.val[A_URL], q, sizeof q));
	if ((rc = ytree_opt_duration(x, &f, A_RESEND, NS_PER_S, 3600 * NS_PER_S,
				     false, &a->resend_ns)) ||
	    (rc = ytree_opt_duration(x, &f, A_TIMEOUT, NS_PER_S / 10,
				     300 * NS_PER_S, false, &a->timeout_ns)) ||
	    (rc = ytree_opt_uint(x, &f, A_MAX, 1, 1000000, &a->max_alerts)))
		return rc;
	if (f.val[A_LABELS]) {
		size_t saved = ytree_path_key(x, "labels");
		if ((rc = parse_labels(x, a, f.val[A_LABELS])))
			return rc;
		ytree_path_cut(x, saved);
	}
	return 0;
}

enum { P_WINDOW, P_STEP, P_RECORDS, P_INCIDENTS, P_N };
static const char *const report_keys[P_N] = {
	[P_WINDOW] = "window",
	[P_STEP] = "step",
	[P_RECORDS] = "max_records",
	[P_INCIDENTS] = "max_incidents",
};

int cfg_parse_report(struct ytree_ctx *x, struct cfg *c,
		     const struct ytree_node *n)
{
	struct cfg_report *r = &c->report;
	struct ytree_fields f;
	int rc = ytree_fields_get(x, n, report_keys, P_N, &f);
	if (rc)
		return rc;
	if ((rc = ytree_opt_duration(x, &f, P_WINDOW, 60 * NS_PER_S,
				     31 * 24 * 3600 * NS_PER_S, false,
				     &r->window_ns)) ||
	    (rc = ytree_opt_duration(x, &f, P_STEP, NS_PER_S, 3600 * NS_PER_S,
				     false, &r->step_ns)))
		return rc;
	if (f.val[P_RECORDS]) {
		size_t saved = ytree_path_key(x, "max_records");
		if ((rc = ytree_uint(x, f.val[P_RECORDS], 1, UINT64_C(1) << 28,
				     &r->max_records)))
			return rc;
		ytree_path_cut(x, saved);
	}
	if ((rc = ytree_opt_uint(x, &f, P_INCIDENTS, 1, 1000000,
				 &r->max_incidents)))
		return rc;
	if (r->step_ns > r->window_ns)
		return ytree_fail_key(x, &f, P_STEP, "must not exceed window");
	if (r->window_ns / r->step_ns > 1000000)
		return ytree_fail_key(x, &f, P_STEP,
				      "window / step must be at most 1000000 "
				      "buckets");
	return 0;
}

/*
 * The hooks that hand these sections to cfg_load(). The defaults of
 * both go in with the alertmanager: section's init.
 */

static void *alert_init(struct cfg *c)
{
	cfg_alert_defaults(c);
	return NULL;
}

static int alert_parse(struct ytree_ctx *x, struct cfg *c, void *data,
		       const struct ytree_node *n)
{
	(void)data;
	return cfg_parse_alertmanager(x, c, n);
}

static void alert_fini(struct cfg *c, void *data)
{
	(void)data;
	cfg_alert_free(&c->alert);
}

static int report_parse(struct ytree_ctx *x, struct cfg *c, void *data,
			const struct ytree_node *n)
{
	(void)data;
	return cfg_parse_report(x, c, n);
}

const struct cfg_section_ops cfg_alert_section = {
	.key = "alertmanager",
	.init = alert_init,
	.parse = alert_parse,
	.fini = alert_fini,
};

const struct cfg_section_ops cfg_report_section = {
	.key = "report",
	.parse = report_parse,
};

/*
 * cfg_alert: the alertmanager: and report: sections (see cfg_alert.h;
 * keys and defaults in fabmon.yaml(5)).
 *
 *   alertmanager:
 *     urls: [http://am1:9093, https://am2:9093]  # /api/v2/alerts is added
 *     # url: http://127.0.0.1:9093  # the same as a one-element urls
 *     basic_auth: {username: fabmon, password_file: /etc/fabmon/am-pass}
 *     # authorization: {type: Bearer, credentials_file: /etc/fabmon/tok}
 *     tls_config: {ca_file: ..., cert_file: ..., key_file: ...,
 *                  server_name: am.example.net, insecure_skip_verify: false,
 *                  min_version: TLS12}
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
#include "rfile.h"
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

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
	for (size_t i = 0; i < a->n_urls; i++)
		free(a->urls[i]);
	free(a->urls);
	for (size_t i = 0; i < a->n_labels; i++) {
		free(a->label_names[i]);
		free(a->label_values[i]);
	}
	free(a->label_names);
	free(a->label_values);
	free(a->username);
	cfg_free_secret(a->password);
	free(a->auth_type);
	cfg_free_secret(a->credentials);
	free(a->ca_file);
	free(a->cert_file);
	free(a->key_file);
	free(a->server_name);
	a->urls = NULL;
	a->n_urls = 0;
	a->label_names = a->label_values = NULL;
	a->n_labels = 0;
	a->username = a->password = a->auth_type = a->credentials = NULL;
	a->ca_file = a->cert_file = a->key_file = a->server_name = NULL;
	a->insecure_skip_verify = false;
	a->tls_min = CFG_ALERT_TLS_DEFAULT;
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

/* One URL (item n) into a->urls: its shape, and not listed twice. */
static int add_url(struct ytree_ctx *x, struct cfg_alert *a,
		   const struct ytree_node *n)
{
	char q[YTREE_QUOTE_BUF], *u = NULL;
	int rc = ytree_str(x, n, &u);
	if (rc)
		return rc;
	if (strlen(u) != n->len || strlen(u) > 1024 || !good_url(u)) {
		free(u);
		return ytree_fail(x, n, "%s is not an http:// or https:// URL",
				  ytree_quote(n, q, sizeof q));
	}
	size_t len = strlen(u);
	while (len && u[len - 1] == '/')
		u[--len] = '\0';
	for (size_t i = 0; i < a->n_urls; i++)
		if (strcmp(a->urls[i], u) == 0) {
			free(u);
			return ytree_fail(x, n, "%s is listed twice",
					  ytree_quote(n, q, sizeof q));
		}
	a->urls[a->n_urls++] = u;
	return 0;
}

/* url: one URL, or urls: a list of 1..CFG_ALERT_MAX_URLS; not both. */
static int parse_urls(struct ytree_ctx *x, struct cfg_alert *a,
		      const struct ytree_fields *f, size_t k_url, size_t k_urls)
{
	int rc;
	if (f->val[k_url] && f->val[k_urls])
		return ytree_fail_key(x, f, cfg_later(f, k_url, k_urls),
				      "use url or urls, not both");
	if (!f->val[k_url] && !f->val[k_urls])
		return ytree_fail(x, f->map,
				  "missing required key \"urls\" (or \"url\")");
	a->urls = xcalloc(CFG_ALERT_MAX_URLS, sizeof *a->urls);
	if (f->val[k_url]) {
		size_t saved = ytree_path_key(x, f->keys[k_url]);
		if ((rc = add_url(x, a, f->val[k_url])))
			return rc;
		ytree_path_cut(x, saved);
		return 0;
	}
	const struct ytree_node *l = f->val[k_urls];
	size_t saved = ytree_path_key(x, f->keys[k_urls]), count;
	if ((rc = ytree_want_seq(x, l, &count)))
		return rc;
	if (count == 0 || count > CFG_ALERT_MAX_URLS)
		return ytree_fail(x, l, "needs 1 to %d URLs, not %zu",
				  CFG_ALERT_MAX_URLS, count);
	for (size_t i = 0; i < count; i++) {
		size_t s2 = ytree_path_index(x, i);
		if ((rc = add_url(x, a, l->kids[i])))
			return rc;
		ytree_path_cut(x, s2);
	}
	ytree_path_cut(x, saved);
	return 0;
}

/* A secret given inline (key i) or in a file (key j): one is needed. */
static int need_secret(struct ytree_ctx *x, const struct ytree_fields *f,
		       const struct ytree_node *map, size_t i, size_t j,
		       char **out)
{
	int rc = cfg_opt_secret(x, f, i, j, out);
	if (rc == 0 && !*out)
		rc = ytree_fail(x, map, "needs %s or %s", f->keys[i],
				f->keys[j]);
	return rc;
}

enum { B_USER, B_PASS, B_PASS_FILE, B_N };
static const char *const basic_keys[B_N] = {
	[B_USER] = "username",
	[B_PASS] = "password",
	[B_PASS_FILE] = "password_file",
};

static int parse_basic_auth(struct ytree_ctx *x, struct cfg_alert *a,
			    const struct ytree_node *n)
{
	struct ytree_fields f;
	int rc = ytree_fields_get(x, n, basic_keys, B_N, &f);
	if (rc || (rc = ytree_need(x, &f, B_USER)) ||
	    (rc = ytree_opt_str(x, &f, B_USER, &a->username)))
		return rc;
	if (!*a->username || strchr(a->username, ':') ||
	    strlen(a->username) != f.val[B_USER]->len)
		return ytree_fail_key(x, &f, B_USER,
				      "must be a non-empty name without ':'");
	return need_secret(x, &f, n, B_PASS, B_PASS_FILE, &a->password);
}

enum { Z_TYPE, Z_CRED, Z_CRED_FILE, Z_N };
static const char *const authz_keys[Z_N] = {
	[Z_TYPE] = "type",
	[Z_CRED] = "credentials",
	[Z_CRED_FILE] = "credentials_file",
};

static int parse_authorization(struct ytree_ctx *x, struct cfg_alert *a,
			       const struct ytree_node *n)
{
	struct ytree_fields f;
	int rc = ytree_fields_get(x, n, authz_keys, Z_N, &f);
	if (rc || (rc = ytree_opt_str(x, &f, Z_TYPE, &a->auth_type)))
		return rc;
	if (!a->auth_type)
		a->auth_type = xstrdup("Bearer");
	/* An HTTP auth scheme is a token (RFC 9110): no spaces or colons. */
	bool ok = *a->auth_type != '\0';
	for (const char *p = a->auth_type; *p; p++)
		ok = ok && (isalnum((unsigned char)*p) ||
			    strchr("-._~+!#$%&'*^`|", *p));
	if (!ok)
		return ytree_fail_key(x, &f, Z_TYPE,
				      "is not an HTTP auth scheme");
	if (strcasecmp(a->auth_type, "Basic") == 0)
		return ytree_fail_key(x, &f, Z_TYPE,
				      "Basic: use basic_auth instead");
	return need_secret(x, &f, n, Z_CRED, Z_CRED_FILE, &a->credentials);
}

/* A path of tls_config: a regular file fabmond can open now. libcurl
 * reads it at each connection, so a renewed certificate is taken
 * without a reload. */
static int tls_file(struct ytree_ctx *x, const struct ytree_fields *f, size_t i,
		    char **out)
{
	char why[160];
	int rc = ytree_opt_str(x, f, i, out);
	if (rc || !*out)
		return rc;
	int fd = rfile_open(*out, why, sizeof why);
	if (fd < 0) {
		size_t saved = ytree_path_key(x, f->keys[i]);
		rc = ytree_fail(x, f->val[i], "\"%s\": cannot open: %s", *out,
				why);
		ytree_path_cut(x, saved);
		return rc;
	}
	close(fd);
	return 0;
}

enum { T_CA, T_CERT, T_KEY, T_NAME, T_SKIP, T_MIN, T_N };
static const char *const tls_keys[T_N] = {
	[T_CA] = "ca_file",
	[T_CERT] = "cert_file",
	[T_KEY] = "key_file",
	[T_NAME] = "server_name",
	[T_SKIP] = "insecure_skip_verify",
	[T_MIN] = "min_version",
};

static int parse_tls(struct ytree_ctx *x, struct cfg_alert *a,
		     const struct ytree_node *n)
{
	static const char *const versions[] = { "TLS10", "TLS11", "TLS12",
						"TLS13" };
	static const int version_values[] = { CFG_ALERT_TLS10, CFG_ALERT_TLS11,
					      CFG_ALERT_TLS12,
					      CFG_ALERT_TLS13 };
	struct ytree_fields f;
	int min = CFG_ALERT_TLS_DEFAULT;
	int rc = ytree_fields_get(x, n, tls_keys, T_N, &f);
	if (rc || (rc = tls_file(x, &f, T_CA, &a->ca_file)) ||
	    (rc = tls_file(x, &f, T_CERT, &a->cert_file)) ||
	    (rc = tls_file(x, &f, T_KEY, &a->key_file)) ||
	    (rc = ytree_opt_str(x, &f, T_NAME, &a->server_name)) ||
	    (rc = ytree_opt_bool(x, &f, T_SKIP, &a->insecure_skip_verify)) ||
	    (rc = ytree_opt_enum(x, &f, T_MIN, versions, version_values, 4,
				 &min)))
		return rc;
	a->tls_min = (enum cfg_alert_tls)min;
	if (f.val[T_CERT] && !f.val[T_KEY])
		return ytree_fail_key(x, &f, T_CERT,
				      "needs key_file too (they go together)");
	if (f.val[T_KEY] && !f.val[T_CERT])
		return ytree_fail_key(x, &f, T_KEY,
				      "needs cert_file too (they go together)");
	if (a->server_name) {
		/* A DNS name (or an address): it goes into a URL's host. */
		bool ok = *a->server_name &&
			  strlen(a->server_name) == f.val[T_NAME]->len &&
			  strlen(a->server_name) < 254;
		for (const char *p = a->server_name; ok && *p; p++)
			ok = isalnum((unsigned char)*p) || *p == '-' ||
			     *p == '.' || *p == '_';
		if (!ok)
			return ytree_fail_key(x, &f, T_NAME,
					      "is not a host name");
	}
	bool https = false;
	for (size_t i = 0; i < a->n_urls; i++)
		https = https || strncmp(a->urls[i], "https://", 8) == 0;
	if (!https)
		return ytree_fail(x, n, "no url is https://");
	return 0;
}

enum {
	A_URL,
	A_URLS,
	A_RESEND,
	A_TIMEOUT,
	A_MAX,
	A_LABELS,
	A_BASIC,
	A_AUTHZ,
	A_TLS,
	A_N
};
static const char *const alert_keys[A_N] = {
	[A_URL] = "url",	  [A_URLS] = "urls",
	[A_RESEND] = "resend",	  [A_TIMEOUT] = "timeout",
	[A_MAX] = "max_alerts",	  [A_LABELS] = "labels",
	[A_BASIC] = "basic_auth", [A_AUTHZ] = "authorization",
	[A_TLS] = "tls_config",
};

/* basic_auth, authorization (not both) and tls_config, each a mapping. */
static int parse_http_opts(struct ytree_ctx *x, struct cfg_alert *a,
			   const struct ytree_fields *f)
{
	static int (*const parse[])(struct ytree_ctx *, struct cfg_alert *,
				    const struct ytree_node *) = {
		parse_basic_auth, parse_authorization, parse_tls
	};
	static const size_t keys[] = { A_BASIC, A_AUTHZ, A_TLS };
	if (f->val[A_BASIC] && f->val[A_AUTHZ])
		return ytree_fail_key(x, f, cfg_later(f, A_BASIC, A_AUTHZ),
				      "use basic_auth or authorization, not "
				      "both");
	for (size_t i = 0; i < 3; i++) {
		const struct ytree_node *v = f->val[keys[i]];
		if (!v)
			continue;
		size_t saved = ytree_path_key(x, f->keys[keys[i]]);
		if (v->kind != YTREE_MAP)
			return ytree_fail(x, v, "expected a mapping");
		int rc = parse[i](x, a, v);
		if (rc)
			return rc;
		ytree_path_cut(x, saved);
	}
	return 0;
}

int cfg_parse_alertmanager(struct ytree_ctx *x, struct cfg *c,
			   const struct ytree_node *n)
{
	struct cfg_alert *a = &c->alert;
	struct ytree_fields f;
	int rc = ytree_fields_get(x, n, alert_keys, A_N, &f);
	if (rc)
		return rc;
	if ((rc = parse_urls(x, a, &f, A_URL, A_URLS)))
		return rc;
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
	return parse_http_opts(x, a, &f);
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

/*
 * gnmi_cfg: the gnmi: section and target blocks of fabmon.yaml (see
 * gnmi_cfg.h). The parsers moved here from core/cfg.c; they
 * run inside cfg_load() through gnmi_cfg_section's hooks, on the
 * loading thread, and own nothing past the struct they fill.
 */
#include "config.h"

#include "gnmi_cfg.h"

#include "mem.h"
#include "path.h"
#include "units.h"
#include "ytree.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { GCOL_K_THREADS, GCOL_K_MAXCONN, GCOL_K_MAXMSG, GCOL_K_N };
static const char *const gcol_keys[GCOL_K_N] = {
	[GCOL_K_THREADS] = "threads",
	[GCOL_K_MAXCONN] = "max_connecting",
	[GCOL_K_MAXMSG] = "max_message_size",
};

static int parse_gnmi_collector(struct ytree_ctx *x,
				struct cfg_gnmi_collector *g,
				const struct ytree_node *n)
{
	struct ytree_fields f;
	int rc = ytree_fields_get(x, n, gcol_keys, GCOL_K_N, &f);
	if (rc == 0)
		rc = ytree_opt_uint(x, &f, GCOL_K_THREADS, 1, 64, &g->threads);
	if (rc == 0)
		rc = ytree_opt_uint(x, &f, GCOL_K_MAXCONN, 1, 100000,
				    &g->max_connecting);
	if (rc == 0)
		rc = ytree_opt_size(x, &f, GCOL_K_MAXMSG, 64 * 1024,
				    UINT64_C(1) << 30, &g->max_message);
	return rc;
}

enum {
	SUB_K_PATH,
	SUB_K_ORIGIN,
	SUB_K_TARGET,
	SUB_K_MODE,
	SUB_K_SAMPLE,
	SUB_K_HEARTBEAT,
	SUB_K_SUPPRESS,
	SUB_K_N
};
static const char *const sub_keys[SUB_K_N] = {
	[SUB_K_PATH] = "path",
	[SUB_K_ORIGIN] = "origin",
	[SUB_K_TARGET] = "target",
	[SUB_K_MODE] = "mode",
	[SUB_K_SAMPLE] = "sample_interval",
	[SUB_K_HEARTBEAT] = "heartbeat_interval",
	[SUB_K_SUPPRESS] = "suppress_redundant",
};

/*
 * A subscription path: absolute and a valid gNMI path. The parser's
 * message names the column in the path; for a plain one-line scalar the
 * error points at that very column of the file, else at the value.
 */
static int sub_path(struct ytree_ctx *x, const struct ytree_fields *f)
{
	const struct ytree_node *n = f->val[SUB_K_PATH];
	struct gnmi_path gp;
	char perr[160];
	unsigned pc;
	if (n->str[0] != '/')
		return ytree_fail_key(x, f, SUB_K_PATH, "must start with '/'");
	if (gnmi_path_parse(n->str, &gp, perr, sizeof perr) == 0) {
		gnmi_path_clear(&gp);
		return 0;
	}
	if (n->plain && !strchr(n->str, '\n') &&
	    sscanf(perr, "column %u:", &pc) == 1 && pc >= 1 && pc <= n->len) {
		ytree_path_key(x, f->keys[SUB_K_PATH]);
		return ytree_fail_pos(x, n->line, n->col + pc - 1, "%s", perr);
	}
	return ytree_fail_key(x, f, SUB_K_PATH, "%s", perr);
}

int gnmi_cfg_parse_sub(struct ytree_ctx *x, const struct ytree_node *n,
		       uint64_t every, struct cfg_gnmi_sub *s)
{
	static const char *const names[] = { "sample", "on_change",
					     "target_defined" };
	static const int values[] = { CFG_SUB_SAMPLE, CFG_SUB_ON_CHANGE,
				      CFG_SUB_TARGET_DEFINED };
	struct ytree_fields f;
	int mode = CFG_SUB_SAMPLE;
	int rc = ytree_fields_get(x, n, sub_keys, SUB_K_N, &f);
	if (rc)
		return rc;
	s->mode = CFG_SUB_SAMPLE;
	s->sample_interval_ns = every;
	if ((rc = ytree_need(x, &f, SUB_K_PATH)) ||
	    (rc = ytree_opt_str(x, &f, SUB_K_PATH, &s->path)) ||
	    (rc = sub_path(x, &f)) ||
	    (rc = ytree_opt_str(x, &f, SUB_K_ORIGIN, &s->origin)) ||
	    (rc = ytree_opt_str(x, &f, SUB_K_TARGET, &s->target)) ||
	    (rc = ytree_opt_enum(x, &f, SUB_K_MODE, names, values, 3, &mode)) ||
	    (rc = ytree_opt_duration(x, &f, SUB_K_SAMPLE, NS_PER_MS, UINT64_MAX,
				     true, &s->sample_interval_ns)) ||
	    (rc = ytree_opt_duration(x, &f, SUB_K_HEARTBEAT, 0, UINT64_MAX,
				     false, &s->heartbeat_interval_ns)) ||
	    (rc =
		 ytree_opt_bool(x, &f, SUB_K_SUPPRESS, &s->suppress_redundant)))
		return rc;
	s->mode = (enum cfg_sub_mode)mode;
	return 0;
}

void gnmi_cfg_sub_clear(struct cfg_gnmi_sub *s)
{
	free(s->path);
	free(s->origin);
	free(s->target);
	memset(s, 0, sizeof *s);
}

enum {
	GNMI_K_ADDRESS,
	GNMI_K_INSECURE,
	GNMI_K_SKIP_VERIFY,
	GNMI_K_CA,
	GNMI_K_CERT,
	GNMI_K_KEY,
	GNMI_K_SERVER_NAME,
	GNMI_K_USERNAME,
	GNMI_K_PASSWORD,
	GNMI_K_PASSWORD_FILE,
	GNMI_K_MODE,
	GNMI_K_INTERVAL,
	GNMI_K_POLL_INTERVAL,
	GNMI_K_ENCODING,
	GNMI_K_TARGET,
	GNMI_K_PROFILE,
	GNMI_K_UPDATES_ONLY,
	GNMI_K_SUBSCRIPTIONS,
	GNMI_K_N
};
static const char *const gnmi_keys[GNMI_K_N] = {
	[GNMI_K_ADDRESS] = "address",
	[GNMI_K_INSECURE] = "insecure",
	[GNMI_K_SKIP_VERIFY] = "skip_verify",
	[GNMI_K_CA] = "ca",
	[GNMI_K_CERT] = "cert",
	[GNMI_K_KEY] = "key",
	[GNMI_K_SERVER_NAME] = "server_name",
	[GNMI_K_USERNAME] = "username",
	[GNMI_K_PASSWORD] = "password",
	[GNMI_K_PASSWORD_FILE] = "password_file",
	[GNMI_K_MODE] = "mode",
	[GNMI_K_INTERVAL] = "interval",
	[GNMI_K_POLL_INTERVAL] = "poll_interval",
	[GNMI_K_ENCODING] = "encoding",
	[GNMI_K_TARGET] = "target",
	[GNMI_K_PROFILE] = "profile",
	[GNMI_K_UPDATES_ONLY] = "updates_only",
	[GNMI_K_SUBSCRIPTIONS] = "subscriptions",
};

static int gnmi_address(struct ytree_ctx *x, const struct ytree_fields *f)
{
	const struct ytree_node *a = f->val[GNMI_K_ADDRESS];
	char q[YTREE_QUOTE_BUF];
	int rc;
	size_t saved = ytree_path_key(x, "address");

	if (strncmp(a->str, "unix:", 5) == 0) {
		if (a->str[5] != '/' || cfg_has_space(a->str))
			return ytree_fail(x, a,
					  "%s: a unix socket needs an absolute "
					  "path (unix:/path)",
					  ytree_quote(a, q, sizeof q));
	} else {
		rc = cfg_split_hostport(a->str, false, 1, NULL, NULL);
		if (rc == -ERANGE)
			return ytree_fail(
			    x, a, "port must be between 1 and 65535 in %s",
			    ytree_quote(a, q, sizeof q));
		if (rc)
			return ytree_fail(x, a,
					  "%s is not host:port, [v6]:port or "
					  "unix:/path",
					  ytree_quote(a, q, sizeof q));
	}
	ytree_path_cut(x, saved);
	return 0;
}

static int gnmi_subs(struct ytree_ctx *x, struct cfg_gnmi *g,
		     const struct ytree_node *n, uint64_t every)
{
	size_t count;
	int rc = ytree_want_seq(x, n, &count);
	if (rc)
		return rc;
	g->subs = xcalloc(count ? count : 1, sizeof *g->subs);
	for (size_t i = 0; i < count; i++) {
		size_t saved = ytree_path_index(x, i);
		g->n_subs++;
		rc = gnmi_cfg_parse_sub(x, n->kids[i], every, &g->subs[i]);
		if (rc)
			return rc;
		ytree_path_cut(x, saved);
	}
	return 0;
}

/* profile: a name (looked up in profiles_dir when the target starts)
 * or a path, which must not name a FIFO or a device. */
static int gnmi_profile_key(struct ytree_ctx *x, const struct ytree_fields *f,
			    char **out)
{
	const struct ytree_node *v = f->val[GNMI_K_PROFILE];
	if (v && v->str && strchr(v->str, '/'))
		return ytree_opt_file(x, f, GNMI_K_PROFILE,
				      GNMI_PROFILE_MAX_BYTES, out);
	return ytree_opt_str(x, f, GNMI_K_PROFILE, out);
}

static int parse_gnmi(struct ytree_ctx *x, struct cfg_gnmi *g,
		      const struct ytree_node *n, uint64_t global_ns)
{
	static const char *const modes[] = { "stream", "once", "poll" };
	static const int mode_values[] = { CFG_GNMI_STREAM, CFG_GNMI_ONCE,
					   CFG_GNMI_POLL };
	static const char *const encs[] = { "json", "json_ietf", "proto",
					    "auto" };
	static const int enc_values[] = { CFG_GNMI_ENC_JSON,
					  CFG_GNMI_ENC_JSON_IETF,
					  CFG_GNMI_ENC_PROTO,
					  CFG_GNMI_ENC_AUTO };
	struct ytree_fields f;
	int mode = CFG_GNMI_STREAM, enc = CFG_GNMI_ENC_AUTO;
	int rc = ytree_fields_get(x, n, gnmi_keys, GNMI_K_N, &f);
	if (rc)
		return rc;
	g->mode = CFG_GNMI_STREAM;
	g->encoding = CFG_GNMI_ENC_AUTO;
	if ((rc = ytree_need(x, &f, GNMI_K_ADDRESS)) ||
	    (rc = ytree_opt_str(x, &f, GNMI_K_ADDRESS, &g->address)) ||
	    (rc = gnmi_address(x, &f)) ||
	    (rc = ytree_opt_bool(x, &f, GNMI_K_INSECURE, &g->insecure)) ||
	    (rc = ytree_opt_bool(x, &f, GNMI_K_SKIP_VERIFY, &g->skip_verify)) ||
	    (rc = ytree_opt_file(x, &f, GNMI_K_CA, GNMI_PEM_MAX_BYTES,
				 &g->ca)) ||
	    (rc = ytree_opt_file(x, &f, GNMI_K_CERT, GNMI_PEM_MAX_BYTES,
				 &g->cert)) ||
	    (rc = ytree_opt_file(x, &f, GNMI_K_KEY, GNMI_PEM_MAX_BYTES,
				 &g->key)) ||
	    (rc = ytree_opt_str(x, &f, GNMI_K_SERVER_NAME, &g->server_name)) ||
	    (rc = ytree_opt_str(x, &f, GNMI_K_USERNAME, &g->username)) ||
	    (rc = cfg_opt_secret(x, &f, GNMI_K_PASSWORD, GNMI_K_PASSWORD_FILE,
				 &g->password)) ||
	    (rc = ytree_opt_enum(x, &f, GNMI_K_MODE, modes, mode_values, 3,
				 &mode)) ||
	    (rc = ytree_opt_duration(x, &f, GNMI_K_INTERVAL, CFG_INTERVAL_MIN,
				     CFG_INTERVAL_MAX, false,
				     &g->interval_ns)) ||
	    (rc = ytree_opt_duration(x, &f, GNMI_K_POLL_INTERVAL,
				     CFG_INTERVAL_MIN, CFG_INTERVAL_MAX, false,
				     &g->poll_interval_ns)) ||
	    (rc = ytree_opt_enum(x, &f, GNMI_K_ENCODING, encs, enc_values, 4,
				 &enc)) ||
	    (rc = ytree_opt_str(x, &f, GNMI_K_TARGET, &g->target)) ||
	    (rc = gnmi_profile_key(x, &f, &g->profile)) ||
	    (rc = ytree_opt_bool(x, &f, GNMI_K_UPDATES_ONLY, &g->updates_only)))
		return rc;
	g->mode = (enum cfg_gnmi_mode)mode;
	g->encoding = (enum cfg_gnmi_encoding)enc;

	if (g->insecure) {
		static const size_t tls[] = { GNMI_K_CA, GNMI_K_CERT,
					      GNMI_K_KEY };
		for (size_t i = 0; i < 3; i++)
			if (f.val[tls[i]])
				return ytree_fail_key(
				    x, &f, tls[i],
				    "cannot be used with insecure: "
				    "true");
	}
	if (f.val[GNMI_K_CERT] && !f.val[GNMI_K_KEY])
		return ytree_fail_key(
		    x, &f, GNMI_K_CERT,
		    "needs key too (cert and key go together)");
	if (f.val[GNMI_K_KEY] && !f.val[GNMI_K_CERT])
		return ytree_fail_key(
		    x, &f, GNMI_K_KEY,
		    "needs cert too (cert and key go together)");
	if (g->password && !g->username) {
		size_t k = f.val[GNMI_K_PASSWORD] ? GNMI_K_PASSWORD
						  : GNMI_K_PASSWORD_FILE;
		return ytree_fail_key(x, &f, k, "needs username too");
	}
	/* The target's interval, else the global one, is the default. */
	uint64_t every = g->interval_ns ? g->interval_ns : global_ns;
	if (g->mode == CFG_GNMI_POLL && !f.val[GNMI_K_POLL_INTERVAL])
		g->poll_interval_ns = every;
	if (g->mode != CFG_GNMI_POLL && f.val[GNMI_K_POLL_INTERVAL])
		return ytree_fail_key(x, &f, GNMI_K_POLL_INTERVAL,
				      "only applies to mode: poll");
	if (f.val[GNMI_K_SUBSCRIPTIONS]) {
		size_t saved = ytree_path_key(x, "subscriptions");
		rc = gnmi_subs(x, g, f.val[GNMI_K_SUBSCRIPTIONS], every);
		if (rc)
			return rc;
		ytree_path_cut(x, saved);
	}
	return 0;
}

static void gnmi_free(struct cfg_gnmi *g)
{
	if (!g)
		return;
	free(g->address);
	free(g->ca);
	free(g->cert);
	free(g->key);
	free(g->server_name);
	free(g->username);
	cfg_free_secret(g->password);
	free(g->target);
	free(g->profile);
	for (size_t i = 0; i < g->n_subs; i++) {
		free(g->subs[i].path);
		free(g->subs[i].origin);
		free(g->subs[i].target);
	}
	free(g->subs);
	free(g);
}

void cfg_gnmi_free(struct cfg_gnmi *g)
{
	gnmi_free(g);
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

struct cfg_gnmi *cfg_gnmi_dup(const struct cfg_gnmi *g)
{
	if (!g)
		return NULL;
	struct cfg_gnmi *d = xmalloc(sizeof *d);
	*d = *g;
	d->address = dup_or_null(g->address);
	d->ca = dup_or_null(g->ca);
	d->cert = dup_or_null(g->cert);
	d->key = dup_or_null(g->key);
	d->server_name = dup_or_null(g->server_name);
	d->username = dup_or_null(g->username);
	d->password = dup_or_null(g->password);
	d->target = dup_or_null(g->target);
	d->profile = dup_or_null(g->profile);
	d->subs = xcalloc(g->n_subs ? g->n_subs : 1, sizeof *d->subs);
	for (size_t i = 0; i < g->n_subs; i++) {
		d->subs[i] = g->subs[i];
		d->subs[i].path = dup_or_null(g->subs[i].path);
		d->subs[i].origin = dup_or_null(g->subs[i].origin);
		d->subs[i].target = dup_or_null(g->subs[i].target);
	}
	return d;
}

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

bool cfg_gnmi_equal(const struct cfg_gnmi *a, const struct cfg_gnmi *b)
{
	if (!a || !b)
		return a == b;
	if (!str_eq(a->address, b->address) || a->insecure != b->insecure ||
	    a->skip_verify != b->skip_verify || !str_eq(a->ca, b->ca) ||
	    !str_eq(a->cert, b->cert) || !str_eq(a->key, b->key) ||
	    !str_eq(a->server_name, b->server_name) ||
	    !str_eq(a->username, b->username) ||
	    !str_eq(a->password, b->password) || a->mode != b->mode ||
	    a->interval_ns != b->interval_ns ||
	    a->poll_interval_ns != b->poll_interval_ns ||
	    a->encoding != b->encoding || !str_eq(a->target, b->target) ||
	    !str_eq(a->profile, b->profile) ||
	    a->updates_only != b->updates_only || a->n_subs != b->n_subs)
		return false;
	for (size_t i = 0; i < a->n_subs; i++) {
		const struct cfg_gnmi_sub *x = &a->subs[i], *y = &b->subs[i];
		if (!str_eq(x->path, y->path) ||
		    !str_eq(x->origin, y->origin) ||
		    !str_eq(x->target, y->target) || x->mode != y->mode ||
		    x->sample_interval_ns != y->sample_interval_ns ||
		    x->heartbeat_interval_ns != y->heartbeat_interval_ns ||
		    x->suppress_redundant != y->suppress_redundant)
			return false;
	}
	return true;
}

/*
 * The hooks.
 */

static void *gnmi_section_init(struct cfg *c)
{
	struct cfg_gnmi_collector *g = xcalloc(1, sizeof *g);
	(void)c;
	g->threads = 2;
	g->max_connecting = 32;
	g->max_message = UINT64_C(16) << 20;
	return g;
}

static int gnmi_section_parse(struct ytree_ctx *x, struct cfg *c, void *data,
			      const struct ytree_node *n)
{
	(void)c;
	return parse_gnmi_collector(x, data, n);
}

static void gnmi_section_fini(struct cfg *c, void *data)
{
	(void)c;
	free(data);
}

static int gnmi_block_parse(struct ytree_ctx *x, const struct cfg *c,
			    const struct ytree_node *n, void **out)
{
	struct cfg_gnmi *g = xcalloc(1, sizeof *g);
	*out = g;
	return parse_gnmi(x, g, n, c->interval_ns);
}

static void gnmi_block_free(void *data)
{
	gnmi_free(data);
}

static uint64_t min_nz(uint64_t a, uint64_t b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	return a < b ? a : b;
}

static uint64_t gnmi_block_interval(const void *data)
{
	const struct cfg_gnmi *g = data;
	uint64_t t = g->interval_ns;
	for (size_t k = 0; k < g->n_subs; k++)
		t = min_nz(t, g->subs[k].sample_interval_ns);
	return t;
}

const struct cfg_section_ops gnmi_cfg_section = {
	.key = "gnmi",
	.init = gnmi_section_init,
	.parse = gnmi_section_parse,
	.fini = gnmi_section_fini,
	.parse_target = gnmi_block_parse,
	.free_target = gnmi_block_free,
	.target_interval = gnmi_block_interval,
};

struct cfg_gnmi *gnmi_cfg_of(const struct cfg_target *t)
{
	return cfg_target_block(t, gnmi_cfg_section.key);
}

struct cfg_gnmi_collector *gnmi_cfg_collector(const struct cfg *c)
{
	return cfg_section(c, gnmi_cfg_section.key);
}

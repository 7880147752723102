/*
 * cfg: loads fabmon.yaml into a struct cfg (see cfg.h).
 *
 * Two passes. The first is ytree_load() (core/ytree.c): libyaml over a
 * bounded buffer (CFG_MAX_FILE_BYTES, CFG_MAX_DEPTH) into a tree of nodes
 * with their line:column. The second walks the tree section by section
 * with ytree's getters and fills a freshly allocated struct cfg; the
 * first error stops it, is written as one line "file:line:col: key.path:
 * message", and everything allocated so far is freed.
 *
 * Nothing here is global or cached: every call owns its parser, tree and
 * result, so loads may run on any thread. Secrets (inline or read from
 * *_file keys) are never put in a message, and their buffers are zeroed
 * before they are freed.
 */
#include "config.h"

#include "cfg.h"

#include "cfg_alert.h"
#include "cfg_rules.h"

#include "log.h"
#include "mem.h"
#include "units.h"
#include "ytree.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NS_PER_M  (60 * NS_PER_S)
#define NS_PER_H  (60 * NS_PER_M)
#define NS_PER_D  (24 * NS_PER_H)

/* Bounds shared by several keys. */
#define INTERVAL_MIN (100 * NS_PER_MS)
#define INTERVAL_MAX NS_PER_H
#define NAME_MAX_LEN 64
#define SECRET_MAX   65536 /* bytes read from a *_file key */
#define SNMP_KEY_MIN 8	   /* RFC 3414 wants at least 8 characters */

/* The later of keys i and j of f in the file (both present). */
static size_t later(const struct ytree_fields *f, size_t i, size_t j)
{
	const struct ytree_node *a = f->key[i], *b = f->key[j];
	if (a->line != b->line)
		return a->line > b->line ? i : j;
	return a->col > b->col ? i : j;
}

/*
 * Secrets read from files.
 */

/*
 * Reads the secret named by key i of f (a path) into *out, without its
 * trailing newline. Errors name the key and the path, never the content.
 */
static int opt_secret_file(struct ytree_ctx *x, const struct ytree_fields *f,
			   size_t i, char **out)
{
	char *path = NULL, *buf = NULL, eb[128];
	struct stat st;
	size_t len = 0;
	int rc, fd;

	if (!f->val[i])
		return 0;
	size_t saved = ytree_path_key(x, f->keys[i]);
	rc = ytree_str(x, f->val[i], &path);
	if (rc)
		return rc;
	/* O_NONBLOCK: a FIFO or a terminal must not hang the load. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		rc = ytree_fail(x, f->val[i], "cannot open \"%s\": %s", path,
				strerror_r(errno, eb, sizeof eb));
		goto out;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		rc = ytree_fail(x, f->val[i], "\"%s\" is not a regular file",
				path);
		close(fd);
		goto out;
	}
	buf = xmalloc(SECRET_MAX + 1);
	for (;;) {
		ssize_t r = read(fd, buf + len, SECRET_MAX + 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = ytree_fail(x, f->val[i], "cannot read \"%s\": %s",
					path, strerror_r(errno, eb, sizeof eb));
			break;
		}
		if (r == 0)
			break;
		len += (size_t)r;
		if (len > SECRET_MAX) {
			rc = ytree_fail(x, f->val[i],
					"\"%s\" is larger than %d bytes", path,
					SECRET_MAX);
			break;
		}
	}
	close(fd);
	if (rc)
		goto out;
	if (len && buf[len - 1] == '\n')
		len--;
	if (len && buf[len - 1] == '\r')
		len--;
	buf[len] = '\0';
	if (len == 0)
		rc = ytree_fail(x, f->val[i], "\"%s\" is empty", path);
	else if (strlen(buf) != len)
		rc = ytree_fail(x, f->val[i], "\"%s\" contains a NUL byte",
				path);
	if (rc == 0) {
		free(*out);
		*out = xstrdup(buf);
		ytree_path_cut(x, saved);
	}
out:
	if (buf) {
		explicit_bzero(buf, SECRET_MAX + 1);
		free(buf);
	}
	free(path);
	return rc;
}

/*
 * A secret given inline (key i) or in a file (key j), not both. Returns 0
 * with *out untouched if neither is present.
 */
static int opt_secret(struct ytree_ctx *x, const struct ytree_fields *f,
		      size_t i, size_t j, char **out)
{
	if (f->val[i] && f->val[j]) {
		size_t k = later(f, i, j);
		return ytree_fail_key(x, f, k, "use %s or %s, not both",
				      f->keys[i], f->keys[j]);
	}
	if (f->val[i])
		return ytree_opt_str(x, f, i, out);
	return opt_secret_file(x, f, j, out);
}

/*
 * Addresses and names.
 */

static bool has_space(const char *s)
{
	for (; *s; s++)
		if (isspace((unsigned char)*s) || iscntrl((unsigned char)*s))
			return true;
	return false;
}

/* 0 if s is 1..5 digits of a port in [min, 65535]. */
static int parse_port(const char *s, unsigned min, unsigned *port)
{
	bool neg;
	uint64_t v;
	if (!*s || strlen(s) > 5 || ytree_parse_uint(s, &neg, &v) || neg)
		return -EINVAL;
	if (v < min || v > 65535)
		return -ERANGE;
	*port = (unsigned)v;
	return 0;
}

/*
 * Splits "host:port", "[v6]:port" or (any_host) ":port". Returns 0,
 * -EINVAL (shape) or -ERANGE (port out of range).
 */
static int split_hostport(const char *s, bool any_host, unsigned min_port,
			  char **host, char **port)
{
	const char *colon, *h = s;
	size_t hlen;
	unsigned p;

	if (has_space(s))
		return -EINVAL;
	if (*s == '[') {
		const char *end = strchr(s, ']');
		if (!end || end == s + 1 || end[1] != ':')
			return -EINVAL;
		h = s + 1;
		hlen = (size_t)(end - h);
		colon = end + 1;
		if (memchr(h, '[', hlen))
			return -EINVAL;
	} else {
		colon = strchr(s, ':');
		if (!colon || strchr(colon + 1, ':') || strchr(s, ']'))
			return -EINVAL;
		hlen = (size_t)(colon - s);
	}
	if (hlen == 0 && !any_host)
		return -EINVAL;
	int rc = parse_port(colon + 1, min_port, &p);
	if (rc)
		return rc;
	if (host)
		*host = xstrndup(h, hlen);
	if (port)
		*port = xstrdup(colon + 1);
	return 0;
}

static bool valid_name(const char *s)
{
	size_t len = strlen(s);
	if (len == 0 || len > NAME_MAX_LEN)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._:-", *s))
			return false;
	return true;
}

static int want_name(struct ytree_ctx *x, const struct ytree_node *n)
{
	char q[YTREE_QUOTE_BUF];
	if (valid_name(n->str))
		return 0;
	return ytree_fail(
	    x, n,
	    "%s is not a valid name (1 to %d characters of A-Z a-z "
	    "0-9 . _ : -)",
	    ytree_quote(n, q, sizeof q), NAME_MAX_LEN);
}

/*
 * Sections. Each takes its node with the path already pointing at it.
 */

static int parse_listen(struct ytree_ctx *x, struct cfg *c,
			const struct ytree_node *n)
{
	size_t count;
	int rc = ytree_want_seq(x, n, &count);
	if (rc)
		return rc;
	if (count == 0)
		return ytree_fail(x, n, "needs at least one address");
	for (size_t i = 0; i < c->n_listen; i++) {
		free(c->listen[i].host);
		free(c->listen[i].port);
	}
	free(c->listen);
	c->listen = xcalloc(count, sizeof *c->listen);
	c->n_listen = 0;
	for (size_t i = 0; i < count; i++) {
		const struct ytree_node *item = n->kids[i];
		struct cfg_listen *l = &c->listen[i];
		char q[YTREE_QUOTE_BUF];
		size_t saved = ytree_path_index(x, i);
		rc = ytree_want_scalar(x, item, "a string");
		if (rc)
			return rc;
		rc = split_hostport(item->str, true, 0, &l->host, &l->port);
		if (rc == -ERANGE)
			return ytree_fail(
			    x, item, "port must be between 0 and 65535 in %s",
			    ytree_quote(item, q, sizeof q));
		if (rc)
			return ytree_fail(
			    x, item,
			    "%s is not host:port (e.g. 127.0.0.1:%s, "
			    "[::1]:%s, :%s)",
			    ytree_quote(item, q, sizeof q), CFG_DEFAULT_PORT,
			    CFG_DEFAULT_PORT, CFG_DEFAULT_PORT);
		c->n_listen++;
		ytree_path_cut(x, saved);
	}
	return 0;
}

static int parse_priorities(struct ytree_ctx *x, struct cfg *c,
			    const struct ytree_node *n)
{
	size_t count;
	uint8_t mask = 0;
	int rc = ytree_want_seq(x, n, &count);
	if (rc)
		return rc;
	for (size_t i = 0; i < count; i++) {
		uint64_t p;
		size_t saved = ytree_path_index(x, i);
		rc = ytree_uint(x, n->kids[i], 0, 7, &p);
		if (rc)
			return rc;
		if (mask & (1u << p))
			return ytree_fail(x, n->kids[i],
					  "priority %u is listed twice",
					  (unsigned)p);
		mask |= (uint8_t)(1u << p);
		ytree_path_cut(x, saved);
	}
	c->lossless_mask = mask;
	return 0;
}

static bool known_subsystem(const char *s)
{
	if (strcmp(s, "all") == 0)
		return true;
	for (size_t i = 0; log_subsystems[i]; i++)
		if (strcmp(s, log_subsystems[i]) == 0)
			return true;
	return false;
}

enum { LOG_K_LEVEL, LOG_K_DEBUG, LOG_K_N };
static const char *const log_keys[LOG_K_N] = {
	[LOG_K_LEVEL] = "level",
	[LOG_K_DEBUG] = "debug",
};

static int parse_log(struct ytree_ctx *x, struct cfg *c,
		     const struct ytree_node *n)
{
	static const char *const names[] = { "error", "warn", "notice", "info",
					     "debug" };
	static const int values[] = { LOG_LVL_ERR, LOG_LVL_WARN, LOG_LVL_NOTICE,
				      LOG_LVL_INFO, LOG_LVL_DEBUG };
	struct ytree_fields f;
	size_t count;
	int rc = ytree_fields_get(x, n, log_keys, LOG_K_N, &f);
	if (rc)
		return rc;
	rc =
	    ytree_opt_enum(x, &f, LOG_K_LEVEL, names, values, 5, &c->log_level);
	if (rc || !f.val[LOG_K_DEBUG])
		return rc;
	size_t saved_debug = ytree_path_key(x, "debug");
	rc = ytree_want_seq(x, f.val[LOG_K_DEBUG], &count);
	if (rc)
		return rc;
	c->log_debug = xcalloc(count ? count : 1, sizeof *c->log_debug);
	for (size_t i = 0; i < count; i++) {
		const struct ytree_node *t = f.val[LOG_K_DEBUG]->kids[i];
		char q[YTREE_QUOTE_BUF];
		size_t saved = ytree_path_index(x, i);
		rc = ytree_want_scalar(x, t, "a subsystem name");
		if (rc)
			return rc;
		if (!known_subsystem(t->str))
			return ytree_fail(
			    x, t,
			    "%s is not a subsystem (all, core, config, "
			    "store, http, gnmi, snmp, nic, rules, "
			    "topology, sim)",
			    ytree_quote(t, q, sizeof q));
		c->log_debug[c->n_log_debug++] = xstrdup(t->str);
		ytree_path_cut(x, saved);
	}
	ytree_path_cut(x, saved_debug);
	return 0;
}

enum { STORE_K_RING, STORE_K_STALE, STORE_K_N };
static const char *const store_keys[STORE_K_N] = {
	[STORE_K_RING] = "ring",
	[STORE_K_STALE] = "stale_after",
};

static int parse_store(struct ytree_ctx *x, struct cfg *c,
		       const struct ytree_node *n)
{
	struct ytree_fields f;
	int rc = ytree_fields_get(x, n, store_keys, STORE_K_N, &f);
	if (rc == 0)
		rc = ytree_opt_uint(x, &f, STORE_K_RING, 8, 4096,
				    &c->store_ring);
	if (rc == 0)
		rc = ytree_opt_uint(x, &f, STORE_K_STALE, 2, 1000,
				    &c->store_stale_intervals);
	return rc;
}

enum { HTTP_K_THREADS, HTTP_K_MAXCONN, HTTP_K_N };
static const char *const http_keys[HTTP_K_N] = {
	[HTTP_K_THREADS] = "threads",
	[HTTP_K_MAXCONN] = "max_connections",
};

static int parse_http(struct ytree_ctx *x, struct cfg *c,
		      const struct ytree_node *n)
{
	struct ytree_fields f;
	int rc = ytree_fields_get(x, n, http_keys, HTTP_K_N, &f);
	if (rc == 0)
		rc = ytree_opt_uint(x, &f, HTTP_K_THREADS, 1, 64,
				    &c->http_threads);
	if (rc == 0)
		rc = ytree_opt_uint(x, &f, HTTP_K_MAXCONN, 1, 65536,
				    &c->http_max_connections);
	return rc;
}

enum { GCOL_K_THREADS, GCOL_K_MAXCONN, GCOL_K_MAXMSG, GCOL_K_N };
static const char *const gcol_keys[GCOL_K_N] = {
	[GCOL_K_THREADS] = "threads",
	[GCOL_K_MAXCONN] = "max_connecting",
	[GCOL_K_MAXMSG] = "max_message_size",
};

static int parse_gnmi_collector(struct ytree_ctx *x, struct cfg *c,
				const struct ytree_node *n)
{
	struct ytree_fields f;
	int rc = ytree_fields_get(x, n, gcol_keys, GCOL_K_N, &f);
	if (rc == 0)
		rc = ytree_opt_uint(x, &f, GCOL_K_THREADS, 1, 64,
				    &c->gnmi.threads);
	if (rc == 0)
		rc = ytree_opt_uint(x, &f, GCOL_K_MAXCONN, 1, 100000,
				    &c->gnmi.max_connecting);
	if (rc == 0)
		rc = ytree_opt_size(x, &f, GCOL_K_MAXMSG, 64 * 1024,
				    UINT64_C(1) << 30, &c->gnmi.max_message);
	return rc;
}

static int parse_profiles_dir(struct ytree_ctx *x, struct cfg *c,
			      const struct ytree_node *n)
{
	free(c->profiles_dir);
	c->profiles_dir = NULL;
	return ytree_str(x, n, &c->profiles_dir);
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

/* One subscription; every is its default sample interval. */
static int parse_sub(struct ytree_ctx *x, struct cfg_gnmi_sub *s,
		     const struct ytree_node *n, uint64_t every)
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
	    (rc = ytree_opt_str(x, &f, SUB_K_PATH, &s->path)))
		return rc;
	if (s->path[0] != '/')
		return ytree_fail_key(x, &f, SUB_K_PATH, "must start with '/'");
	if ((rc = ytree_opt_str(x, &f, SUB_K_ORIGIN, &s->origin)) ||
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
		if (a->str[5] != '/' || has_space(a->str))
			return ytree_fail(x, a,
					  "%s: a unix socket needs an absolute "
					  "path (unix:/path)",
					  ytree_quote(a, q, sizeof q));
	} else {
		rc = split_hostport(a->str, false, 1, NULL, NULL);
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
		rc = parse_sub(x, &g->subs[i], n->kids[i], every);
		if (rc)
			return rc;
		ytree_path_cut(x, saved);
	}
	return 0;
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
	    (rc = ytree_opt_str(x, &f, GNMI_K_CA, &g->ca)) ||
	    (rc = ytree_opt_str(x, &f, GNMI_K_CERT, &g->cert)) ||
	    (rc = ytree_opt_str(x, &f, GNMI_K_KEY, &g->key)) ||
	    (rc = ytree_opt_str(x, &f, GNMI_K_SERVER_NAME, &g->server_name)) ||
	    (rc = ytree_opt_str(x, &f, GNMI_K_USERNAME, &g->username)) ||
	    (rc = opt_secret(x, &f, GNMI_K_PASSWORD, GNMI_K_PASSWORD_FILE,
			     &g->password)) ||
	    (rc = ytree_opt_enum(x, &f, GNMI_K_MODE, modes, mode_values, 3,
				 &mode)) ||
	    (rc = ytree_opt_duration(x, &f, GNMI_K_INTERVAL, INTERVAL_MIN,
				     INTERVAL_MAX, false, &g->interval_ns)) ||
	    (rc = ytree_opt_duration(x, &f, GNMI_K_POLL_INTERVAL, INTERVAL_MIN,
				     INTERVAL_MAX, false,
				     &g->poll_interval_ns)) ||
	    (rc = ytree_opt_enum(x, &f, GNMI_K_ENCODING, encs, enc_values, 4,
				 &enc)) ||
	    (rc = ytree_opt_str(x, &f, GNMI_K_TARGET, &g->target)) ||
	    (rc = ytree_opt_str(x, &f, GNMI_K_PROFILE, &g->profile)) ||
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

enum {
	SNMP_K_ADDRESS,
	SNMP_K_VERSION,
	SNMP_K_COMMUNITY,
	SNMP_K_COMMUNITY_FILE,
	SNMP_K_USER,
	SNMP_K_AUTH,
	SNMP_K_AUTH_KEY,
	SNMP_K_AUTH_KEY_FILE,
	SNMP_K_PRIV,
	SNMP_K_PRIV_KEY,
	SNMP_K_PRIV_KEY_FILE,
	SNMP_K_INTERVAL,
	SNMP_K_TIMEOUT,
	SNMP_K_RETRIES,
	SNMP_K_MAX_REP,
	SNMP_K_PROFILE,
	SNMP_K_N
};
static const char *const snmp_keys[SNMP_K_N] = {
	[SNMP_K_ADDRESS] = "address",
	[SNMP_K_VERSION] = "version",
	[SNMP_K_COMMUNITY] = "community",
	[SNMP_K_COMMUNITY_FILE] = "community_file",
	[SNMP_K_USER] = "user",
	[SNMP_K_AUTH] = "auth",
	[SNMP_K_AUTH_KEY] = "auth_key",
	[SNMP_K_AUTH_KEY_FILE] = "auth_key_file",
	[SNMP_K_PRIV] = "priv",
	[SNMP_K_PRIV_KEY] = "priv_key",
	[SNMP_K_PRIV_KEY_FILE] = "priv_key_file",
	[SNMP_K_INTERVAL] = "interval",
	[SNMP_K_TIMEOUT] = "timeout",
	[SNMP_K_RETRIES] = "retries",
	[SNMP_K_MAX_REP] = "max_repetitions",
	[SNMP_K_PROFILE] = "profile",
};

/*
 * net-snmp's peer names: an optional udp:, udp6:, tcp: or tcp6:
 * transport, then host, host:port, [v6] or [v6]:port (a bare v6 address
 * has no port).
 */
static bool valid_snmp_address(const char *s)
{
	static const char *const transports[] = { "udp:", "udp6:", "tcp:",
						  "tcp6:" };
	const char *colon;
	unsigned port;

	if (has_space(s))
		return false;
	for (size_t i = 0; i < 4; i++) {
		size_t l = strlen(transports[i]);
		if (strncmp(s, transports[i], l) == 0) {
			s += l;
			break;
		}
	}
	if (*s == '[') {
		const char *end = strchr(s, ']');
		if (!end || end == s + 1)
			return false;
		if (end[1] == '\0')
			return true;
		return end[1] == ':' && parse_port(end + 2, 1, &port) == 0;
	}
	colon = strchr(s, ':');
	if (colon == s || !*s)
		return false;
	if (!colon || strchr(colon + 1, ':'))
		return true; /* a host, or a bare IPv6 address */
	return parse_port(colon + 1, 1, &port) == 0;
}

/* Keys that only one SNMP version takes. */
static int snmp_version_keys(struct ytree_ctx *x, const struct ytree_fields *f,
			     int v)
{
	static const size_t v2[] = { SNMP_K_COMMUNITY, SNMP_K_COMMUNITY_FILE };
	static const size_t v3[] = { SNMP_K_USER,	  SNMP_K_AUTH,
				     SNMP_K_AUTH_KEY,	  SNMP_K_AUTH_KEY_FILE,
				     SNMP_K_PRIV,	  SNMP_K_PRIV_KEY,
				     SNMP_K_PRIV_KEY_FILE };
	if (v == 3) {
		for (size_t i = 0; i < 2; i++)
			if (f->val[v2[i]])
				return ytree_fail_key(
				    x, f, v2[i], "only applies to version 2c");
	} else {
		for (size_t i = 0; i < 7; i++)
			if (f->val[v3[i]])
				return ytree_fail_key(
				    x, f, v3[i], "only applies to version 3");
	}
	return 0;
}

/* The v3 security settings: user, auth and priv with their keys. */
static int snmp_v3(struct ytree_ctx *x, struct cfg_snmp *s,
		   const struct ytree_fields *f)
{
	static const char *const auths[] = { "SHA", "SHA-256", "SHA-512" };
	static const int auth_values[] = { CFG_SNMP_AUTH_SHA,
					   CFG_SNMP_AUTH_SHA256,
					   CFG_SNMP_AUTH_SHA512 };
	static const char *const privs[] = { "AES", "AES-256" };
	static const int priv_values[] = { CFG_SNMP_PRIV_AES,
					   CFG_SNMP_PRIV_AES256 };
	int auth = CFG_SNMP_AUTH_NONE, priv = CFG_SNMP_PRIV_NONE, rc;

	if ((rc = ytree_need(x, f, SNMP_K_USER)) ||
	    (rc = ytree_opt_str(x, f, SNMP_K_USER, &s->user)) ||
	    (rc = ytree_opt_enum(x, f, SNMP_K_AUTH, auths, auth_values, 3,
				 &auth)) ||
	    (rc = opt_secret(x, f, SNMP_K_AUTH_KEY, SNMP_K_AUTH_KEY_FILE,
			     &s->auth_key)) ||
	    (rc = ytree_opt_enum(x, f, SNMP_K_PRIV, privs, priv_values, 2,
				 &priv)) ||
	    (rc = opt_secret(x, f, SNMP_K_PRIV_KEY, SNMP_K_PRIV_KEY_FILE,
			     &s->priv_key)))
		return rc;
	s->auth = (enum cfg_snmp_auth)auth;
	s->priv = (enum cfg_snmp_priv)priv;
	if (s->user[0] == '\0')
		return ytree_fail_key(x, f, SNMP_K_USER, "must not be empty");

	/* Each key goes with its protocol, and priv needs auth. */
	size_t auth_k =
	    f->val[SNMP_K_AUTH_KEY] ? SNMP_K_AUTH_KEY : SNMP_K_AUTH_KEY_FILE;
	size_t priv_k =
	    f->val[SNMP_K_PRIV_KEY] ? SNMP_K_PRIV_KEY : SNMP_K_PRIV_KEY_FILE;
	if (s->auth_key && !f->val[SNMP_K_AUTH])
		return ytree_fail_key(x, f, auth_k, "needs auth too");
	if (f->val[SNMP_K_AUTH] && !s->auth_key)
		return ytree_fail_key(x, f, SNMP_K_AUTH,
				      "needs auth_key or auth_key_file");
	if (s->priv_key && !f->val[SNMP_K_PRIV])
		return ytree_fail_key(x, f, priv_k, "needs priv too");
	if (f->val[SNMP_K_PRIV] && !s->priv_key)
		return ytree_fail_key(x, f, SNMP_K_PRIV,
				      "needs priv_key or priv_key_file");
	if (f->val[SNMP_K_PRIV] && !f->val[SNMP_K_AUTH])
		return ytree_fail_key(x, f, SNMP_K_PRIV,
				      "needs auth too (no privacy without "
				      "authentication)");
	if (s->auth_key && strlen(s->auth_key) < SNMP_KEY_MIN)
		return ytree_fail_key(x, f, auth_k,
				      "must be at least %d characters long",
				      SNMP_KEY_MIN);
	if (s->priv_key && strlen(s->priv_key) < SNMP_KEY_MIN)
		return ytree_fail_key(x, f, priv_k,
				      "must be at least %d characters long",
				      SNMP_KEY_MIN);
	return 0;
}

static int parse_snmp(struct ytree_ctx *x, struct cfg_snmp *s,
		      const struct ytree_node *n)
{
	struct ytree_fields f;
	char q[YTREE_QUOTE_BUF];
	int rc = ytree_fields_get(x, n, snmp_keys, SNMP_K_N, &f);
	if (rc)
		return rc;
	s->version = 2;
	s->timeout_ns = NS_PER_S;
	s->retries = 1;
	s->max_repetitions = 25;
	if ((rc = ytree_need(x, &f, SNMP_K_ADDRESS)) ||
	    (rc = ytree_opt_str(x, &f, SNMP_K_ADDRESS, &s->address)))
		return rc;
	if (!valid_snmp_address(s->address))
		return ytree_fail_key(
		    x, &f, SNMP_K_ADDRESS,
		    "%s is not an SNMP address (host, host:port, "
		    "[v6]:port, optionally after udp: or udp6:)",
		    ytree_quote(f.val[SNMP_K_ADDRESS], q, sizeof q));
	if (f.val[SNMP_K_VERSION]) {
		const struct ytree_node *v = f.val[SNMP_K_VERSION];
		size_t saved = ytree_path_key(x, "version");
		if ((rc = ytree_want_scalar(x, v, "2c or 3")))
			return rc;
		if (strcmp(v->str, "2c") == 0 || strcmp(v->str, "2") == 0)
			s->version = 2;
		else if (strcmp(v->str, "3") == 0)
			s->version = 3;
		else
			return ytree_fail(x, v, "expected 2c or 3, not %s",
					  ytree_quote(v, q, sizeof q));
		ytree_path_cut(x, saved);
	}
	if ((rc = snmp_version_keys(x, &f, s->version)))
		return rc;
	if (s->version == 3) {
		rc = snmp_v3(x, s, &f);
	} else {
		rc = opt_secret(x, &f, SNMP_K_COMMUNITY, SNMP_K_COMMUNITY_FILE,
				&s->community);
		if (rc == 0 && !s->community)
			s->community = xstrdup("public");
	}
	if (rc ||
	    (rc = ytree_opt_duration(x, &f, SNMP_K_INTERVAL, INTERVAL_MIN,
				     INTERVAL_MAX, false, &s->interval_ns)) ||
	    (rc = ytree_opt_duration(x, &f, SNMP_K_TIMEOUT, 10 * NS_PER_MS,
				     60 * NS_PER_S, false, &s->timeout_ns)) ||
	    (rc = ytree_opt_uint(x, &f, SNMP_K_RETRIES, 0, 10, &s->retries)) ||
	    (rc = ytree_opt_uint(x, &f, SNMP_K_MAX_REP, 1, 200,
				 &s->max_repetitions)) ||
	    (rc = ytree_opt_str(x, &f, SNMP_K_PROFILE, &s->profile)))
		return rc;
	return 0;
}

enum { TGT_K_NAME, TGT_K_GNMI, TGT_K_SNMP, TGT_K_N };
static const char *const target_keys[TGT_K_N] = {
	[TGT_K_NAME] = "name",
	[TGT_K_GNMI] = "gnmi",
	[TGT_K_SNMP] = "snmp",
};

/*
 * Parses one target; *name_node gets the node of its name. global_ns is
 * the global interval, the default of the target's.
 */
static int parse_target(struct ytree_ctx *x, struct cfg_target *t,
			const struct ytree_node *n,
			const struct ytree_node **name_node, uint64_t global_ns)
{
	struct ytree_fields f;
	int rc = ytree_fields_get(x, n, target_keys, TGT_K_N, &f);
	if (rc)
		return rc;
	if ((rc = ytree_need(x, &f, TGT_K_NAME)))
		return rc;
	size_t saved = ytree_path_key(x, "name");
	if ((rc = ytree_str(x, f.val[TGT_K_NAME], &t->name)) ||
	    (rc = want_name(x, f.val[TGT_K_NAME])))
		return rc;
	ytree_path_cut(x, saved);
	*name_node = f.val[TGT_K_NAME];
	if (!f.val[TGT_K_GNMI] && !f.val[TGT_K_SNMP])
		return ytree_fail(x, n, "needs gnmi, snmp or both");
	if (f.val[TGT_K_GNMI]) {
		saved = ytree_path_key(x, "gnmi");
		t->gnmi = xcalloc(1, sizeof *t->gnmi);
		if ((rc = parse_gnmi(x, t->gnmi, f.val[TGT_K_GNMI], global_ns)))
			return rc;
		ytree_path_cut(x, saved);
	}
	if (f.val[TGT_K_SNMP]) {
		saved = ytree_path_key(x, "snmp");
		t->snmp = xcalloc(1, sizeof *t->snmp);
		if ((rc = parse_snmp(x, t->snmp, f.val[TGT_K_SNMP])))
			return rc;
		ytree_path_cut(x, saved);
	}
	return 0;
}

/* A target's name and place, sorted by name to find duplicates. */
struct name_ref {
	const struct ytree_node *node;
	size_t index;
};

static int cmp_name_ref(const void *a, const void *b)
{
	const struct name_ref *p = a, *q = b;
	int d = strcmp(p->node->str, q->node->str);
	if (d)
		return d;
	return p->index < q->index ? -1 : p->index > q->index;
}

/*
 * Names must be unique. Sorting keeps this n log n for large fabrics;
 * the reported duplicate is the one that comes first in the file, with
 * the place where its name was first used.
 */
static int unique_names(struct ytree_ctx *x, struct name_ref *refs, size_t n)
{
	const struct name_ref *dup = NULL, *first = NULL;

	qsort(refs, n, sizeof *refs, cmp_name_ref);
	for (size_t i = 1, run = 0; i < n; i++) {
		if (strcmp(refs[i].node->str, refs[run].node->str) != 0) {
			run = i;
			continue;
		}
		if (i == run + 1 && (!dup || refs[i].index < dup->index)) {
			dup = &refs[i];
			first = &refs[run];
		}
	}
	if (!dup)
		return 0;
	ytree_path_index(x, dup->index);
	ytree_path_key(x, "name");
	return ytree_fail(x, dup->node,
			  "duplicate target name \"%s\" (first at %u:%u)",
			  dup->node->str, first->node->line, first->node->col);
}

static int parse_targets(struct ytree_ctx *x, struct cfg *c,
			 const struct ytree_node *n)
{
	struct name_ref *refs;
	size_t count;
	int rc = ytree_want_seq(x, n, &count);
	if (rc || count == 0)
		return rc;
	c->targets = xcalloc(count, sizeof *c->targets);
	refs = xcalloc(count, sizeof *refs);
	for (size_t i = 0; i < count && rc == 0; i++) {
		size_t saved = ytree_path_index(x, i);
		c->n_targets++;
		refs[i].index = i;
		rc = parse_target(x, &c->targets[i], n->kids[i], &refs[i].node,
				  c->interval_ns);
		if (rc == 0)
			ytree_path_cut(x, saved);
	}
	if (rc == 0)
		rc = unique_names(x, refs, count);
	free(refs);
	return rc;
}

enum {
	NIC_K_ENABLED,
	NIC_K_DEVICE,
	NIC_K_SYSFS,
	NIC_K_ETHTOOL,
	NIC_K_INTERVAL,
	NIC_K_HOSTS,
	NIC_K_N
};
static const char *const nic_keys[NIC_K_N] = {
	[NIC_K_ENABLED] = "enabled",   [NIC_K_DEVICE] = "device",
	[NIC_K_SYSFS] = "sysfs_root",  [NIC_K_ETHTOOL] = "ethtool_dir",
	[NIC_K_INTERVAL] = "interval", [NIC_K_HOSTS] = "hosts",
};

enum { NICH_K_DEVICE, NICH_K_SYSFS, NICH_K_ETHTOOL, NICH_K_N };
static const char *const nic_host_keys[NICH_K_N] = {
	[NICH_K_DEVICE] = "device",
	[NICH_K_SYSFS] = "sysfs_root",
	[NICH_K_ETHTOOL] = "ethtool_dir",
};

static int parse_nic_host(struct ytree_ctx *x, struct cfg_nic_host *h,
			  const struct ytree_node *n,
			  const struct ytree_node **name)
{
	struct ytree_fields f;
	int rc = ytree_fields_get(x, n, nic_host_keys, NICH_K_N, &f);
	if (rc || (rc = ytree_need(x, &f, NICH_K_DEVICE)) ||
	    (rc = ytree_need(x, &f, NICH_K_SYSFS)) ||
	    (rc = ytree_opt_str(x, &f, NICH_K_DEVICE, &h->device)))
		return rc;
	size_t saved = ytree_path_key(x, "device");
	if ((rc = want_name(x, f.val[NICH_K_DEVICE])))
		return rc;
	ytree_path_cut(x, saved);
	*name = f.val[NICH_K_DEVICE];
	if ((rc = ytree_opt_str(x, &f, NICH_K_SYSFS, &h->sysfs_root)) ||
	    (rc = ytree_opt_str(x, &f, NICH_K_ETHTOOL, &h->ethtool_dir)))
		return rc;
	if (h->sysfs_root[0] == '\0')
		return ytree_fail_key(x, &f, NICH_K_SYSFS, "must not be empty");
	if (h->ethtool_dir && h->ethtool_dir[0] == '\0')
		return ytree_fail_key(x, &f, NICH_K_ETHTOOL,
				      "must not be empty");
	return 0;
}

/* nic.hosts: a list of hosts with unique device labels. */
static int parse_nic_hosts(struct ytree_ctx *x, struct cfg_nic *nic,
			   const struct ytree_node *n)
{
	size_t count;
	int rc = ytree_want_seq(x, n, &count);
	if (rc)
		return rc;
	if (count == 0)
		return ytree_fail(x, n, "needs at least one host");
	const struct ytree_node **names = xcalloc(count, sizeof *names);
	nic->hosts = xcalloc(count, sizeof *nic->hosts);
	for (size_t i = 0; i < count && rc == 0; i++) {
		size_t saved = ytree_path_index(x, i);
		nic->n_hosts++;
		rc = parse_nic_host(x, &nic->hosts[i], n->kids[i], &names[i]);
		for (size_t j = 0; j < i && rc == 0; j++) {
			if (strcmp(names[j]->str, names[i]->str) != 0)
				continue;
			ytree_path_key(x, "device");
			rc = ytree_fail(x, names[i],
					"duplicate nic host \"%s\" (first at "
					"%u:%u)",
					names[i]->str, names[j]->line,
					names[j]->col);
		}
		if (rc == 0)
			ytree_path_cut(x, saved);
	}
	free(names);
	return rc;
}

static int parse_nic(struct ytree_ctx *x, struct cfg *c,
		     const struct ytree_node *n)
{
	struct cfg_nic *nic = &c->nic;
	struct ytree_fields f;
	int rc = ytree_fields_get(x, n, nic_keys, NIC_K_N, &f);
	if (rc)
		return rc;
	if ((rc = ytree_opt_bool(x, &f, NIC_K_ENABLED, &nic->enabled)) ||
	    (rc = ytree_opt_str(x, &f, NIC_K_DEVICE, &nic->device)))
		return rc;
	if (f.val[NIC_K_DEVICE]) {
		size_t saved = ytree_path_key(x, "device");
		if ((rc = want_name(x, f.val[NIC_K_DEVICE])))
			return rc;
		ytree_path_cut(x, saved);
	}
	if ((rc = ytree_opt_str(x, &f, NIC_K_SYSFS, &nic->sysfs_root)) ||
	    (rc = ytree_opt_str(x, &f, NIC_K_ETHTOOL, &nic->ethtool_dir)) ||
	    (rc = ytree_opt_duration(x, &f, NIC_K_INTERVAL, INTERVAL_MIN,
				     INTERVAL_MAX, false, &nic->interval_ns)))
		return rc;
	if (nic->sysfs_root[0] == '\0')
		return ytree_fail_key(x, &f, NIC_K_SYSFS, "must not be empty");
	if (nic->ethtool_dir && nic->ethtool_dir[0] == '\0')
		return ytree_fail_key(x, &f, NIC_K_ETHTOOL,
				      "must not be empty");
	if (!f.val[NIC_K_HOSTS])
		return 0;
	/* The list form names every tree itself: a single-host key next
	 * to it would be silently ignored, so it is refused. */
	static const size_t single[] = { NIC_K_DEVICE, NIC_K_SYSFS,
					 NIC_K_ETHTOOL };
	for (size_t i = 0; i < sizeof single / sizeof single[0]; i++)
		if (f.val[single[i]])
			return ytree_fail_key(
			    x, &f, single[i],
			    "not allowed with hosts (set it per host)");
	size_t saved = ytree_path_key(x, "hosts");
	if ((rc = parse_nic_hosts(x, nic, f.val[NIC_K_HOSTS])))
		return rc;
	ytree_path_cut(x, saved);
	if (!f.val[NIC_K_ENABLED])
		nic->enabled = true;
	return 0;
}

enum {
	TOP_K_LISTEN,
	TOP_K_INTERVAL,
	TOP_K_LOSSLESS,
	TOP_K_LOG,
	TOP_K_STORE,
	TOP_K_HTTP,
	TOP_K_TARGETS,
	TOP_K_NIC,
	TOP_K_RULES,
	TOP_K_TOPOLOGY,
	TOP_K_GNMI,
	TOP_K_PROFILES_DIR,
	TOP_K_ALERTMANAGER,
	TOP_K_REPORT,
	TOP_K_N
};
static const char *const top_keys[TOP_K_N] = {
	[TOP_K_LISTEN] = "listen",
	[TOP_K_INTERVAL] = "interval",
	[TOP_K_LOSSLESS] = "lossless_priorities",
	[TOP_K_LOG] = "log",
	[TOP_K_STORE] = "store",
	[TOP_K_HTTP] = "http",
	[TOP_K_TARGETS] = "targets",
	[TOP_K_NIC] = "nic",
	[TOP_K_RULES] = "rules",
	[TOP_K_TOPOLOGY] = "topology",
	[TOP_K_GNMI] = "gnmi",
	[TOP_K_PROFILES_DIR] = "profiles_dir",
	[TOP_K_ALERTMANAGER] = "alertmanager",
	[TOP_K_REPORT] = "report",
};

typedef int (*section_fn)(struct ytree_ctx *, struct cfg *,
			  const struct ytree_node *);

/* Runs section parser fn on key i of f, if present. */
static int section(struct ytree_ctx *x, const struct ytree_fields *f, size_t i,
		   struct cfg *c, section_fn fn)
{
	if (!f->val[i])
		return 0;
	size_t saved = ytree_path_key(x, f->keys[i]);
	int rc = fn(x, c, f->val[i]);
	if (rc == 0)
		ytree_path_cut(x, saved);
	return rc;
}

static int parse_top(struct ytree_ctx *x, struct cfg *c,
		     const struct ytree_node *root)
{
	struct ytree_fields f;
	int rc;

	if (root->kind != YTREE_MAP)
		return ytree_fail_at(
		    x, root->line, root->col,
		    "expected a mapping of settings at the top "
		    "level");
	if ((rc = ytree_fields_get(x, root, top_keys, TOP_K_N, &f)))
		return rc;
	/* The interval first: other keys default to it. */
	if ((rc = ytree_opt_duration(x, &f, TOP_K_INTERVAL, INTERVAL_MIN,
				     INTERVAL_MAX, false, &c->interval_ns)))
		return rc;
	if ((rc = section(x, &f, TOP_K_LISTEN, c, parse_listen)) ||
	    (rc = section(x, &f, TOP_K_LOSSLESS, c, parse_priorities)) ||
	    (rc = section(x, &f, TOP_K_LOG, c, parse_log)) ||
	    (rc = section(x, &f, TOP_K_STORE, c, parse_store)) ||
	    (rc = section(x, &f, TOP_K_HTTP, c, parse_http)) ||
	    (rc = section(x, &f, TOP_K_TARGETS, c, parse_targets)) ||
	    (rc = section(x, &f, TOP_K_NIC, c, parse_nic)) ||
	    (rc = section(x, &f, TOP_K_RULES, c, cfg_parse_rules)) ||
	    (rc = section(x, &f, TOP_K_TOPOLOGY, c, cfg_parse_topology)) ||
	    (rc = section(x, &f, TOP_K_GNMI, c, parse_gnmi_collector)) ||
	    (rc = section(x, &f, TOP_K_PROFILES_DIR, c, parse_profiles_dir)) ||
	    (rc = section(x, &f, TOP_K_ALERTMANAGER, c,
			  cfg_parse_alertmanager)) ||
	    (rc = section(x, &f, TOP_K_REPORT, c, cfg_parse_report)))
		return rc;
	return 0;
}

/*
 * The public API.
 */

static char *host_name(void)
{
	char buf[256];
	if (gethostname(buf, sizeof buf) != 0 || buf[0] == '\0')
		return xstrdup("localhost");
	buf[sizeof buf - 1] = '\0';
	return xstrdup(buf);
}

static struct cfg *cfg_new_defaults(void)
{
	struct cfg *c = xcalloc(1, sizeof *c);
	c->listen = xcalloc(1, sizeof *c->listen);
	c->listen[0].host = xstrdup("127.0.0.1");
	c->listen[0].port = xstrdup(CFG_DEFAULT_PORT);
	c->n_listen = 1;
	c->http_threads = 2;
	c->http_max_connections = 256;
	c->gnmi.threads = 2;
	c->gnmi.max_connecting = 32;
	c->gnmi.max_message = UINT64_C(16) << 20;
	c->profiles_dir = xstrdup(FABMON_PROFILEDIR);
	c->interval_ns = NS_PER_S;
	c->lossless_mask = 1u << 3;
	c->log_level = -1;
	c->store_ring = 64;
	c->store_stale_intervals = 5;
	cfg_rules_defaults(c);
	cfg_alert_defaults(c);
	c->nic.device = host_name();
	c->nic.sysfs_root = xstrdup("/sys");
	return c;
}

struct cfg *cfg_default(void)
{
	return cfg_new_defaults();
}

struct cfg *cfg_load_buffer(const char *name, const char *buf, size_t len,
			    char *err, size_t errlen)
{
	struct ytree_ctx x = { .name = name, .err = err, .errlen = errlen };
	struct ytree_node *root = NULL;
	struct cfg *c = NULL;

	if (err && errlen)
		err[0] = '\0';
	if (ytree_load(&x, buf, len, CFG_MAX_FILE_BYTES, CFG_MAX_DEPTH, &root))
		return NULL;
	if (!root || ytree_is_null(root)) {
		ytree_fail_file(&x, "empty configuration file");
		ytree_free(root);
		return NULL;
	}
	c = cfg_new_defaults();
	c->path = xstrdup(name);
	if (parse_top(&x, c, root)) {
		cfg_free(c);
		c = NULL;
	}
	ytree_free(root);
	return c;
}

struct cfg *cfg_load(const char *path, char *err, size_t errlen)
{
	struct ytree_ctx x = { .name = path, .err = err, .errlen = errlen };
	char *buf;
	size_t len = 0;
	struct cfg *c = NULL;

	if (err && errlen)
		err[0] = '\0';
	buf = ytree_read_file(&x, path, CFG_MAX_FILE_BYTES, &len);
	if (!buf)
		return NULL;
	c = cfg_load_buffer(path, buf, len, err, errlen);
	/* The file may hold secrets. */
	explicit_bzero(buf, len);
	free(buf);
	return c;
}

static void free_secret(char *s)
{
	if (s) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
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
	free_secret(g->password);
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

static void snmp_free(struct cfg_snmp *s)
{
	if (!s)
		return;
	free(s->address);
	free_secret(s->community);
	free(s->user);
	free_secret(s->auth_key);
	free_secret(s->priv_key);
	free(s->profile);
	free(s);
}

void cfg_free(struct cfg *c)
{
	if (!c)
		return;
	free(c->path);
	for (size_t i = 0; i < c->n_listen; i++) {
		free(c->listen[i].host);
		free(c->listen[i].port);
	}
	free(c->listen);
	for (size_t i = 0; i < c->n_log_debug; i++)
		free(c->log_debug[i]);
	free(c->log_debug);
	for (size_t i = 0; i < c->n_targets; i++) {
		free(c->targets[i].name);
		gnmi_free(c->targets[i].gnmi);
		snmp_free(c->targets[i].snmp);
	}
	free(c->targets);
	free(c->nic.device);
	free(c->nic.sysfs_root);
	free(c->nic.ethtool_dir);
	for (size_t i = 0; i < c->nic.n_hosts; i++) {
		free(c->nic.hosts[i].device);
		free(c->nic.hosts[i].sysfs_root);
		free(c->nic.hosts[i].ethtool_dir);
	}
	free(c->nic.hosts);
	free(c->profiles_dir);
	cfg_topology_free(&c->topology);
	cfg_alert_free(&c->alert);
	free(c);
}

const struct cfg_target *cfg_find_target(const struct cfg *c, const char *name)
{
	if (!c || !name)
		return NULL;
	for (size_t i = 0; i < c->n_targets; i++)
		if (strcmp(c->targets[i].name, name) == 0)
			return &c->targets[i];
	return NULL;
}

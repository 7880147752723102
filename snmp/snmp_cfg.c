/*
 * snmp_cfg: each target's snmp: block of fabmon.yaml (see snmp_cfg.h).
 * The parser moved here from core/cfg.c unchanged; it runs inside
 * cfg_load() through snmp_cfg_section's hooks, on the loading thread.
 * Secrets are zeroed before they are freed.
 */
#include "config.h"

#include "snmp_cfg.h"

#include "mem.h"
#include "units.h"
#include "ytree.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SNMP_KEY_MIN 8 /* RFC 3414 wants at least 8 characters */

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

	if (cfg_has_space(s))
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
		return end[1] == ':' && cfg_parse_port(end + 2, 1, &port) == 0;
	}
	colon = strchr(s, ':');
	if (colon == s || !*s)
		return false;
	if (!colon || strchr(colon + 1, ':'))
		return true; /* a host, or a bare IPv6 address */
	return cfg_parse_port(colon + 1, 1, &port) == 0;
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
	    (rc = cfg_opt_secret(x, f, SNMP_K_AUTH_KEY, SNMP_K_AUTH_KEY_FILE,
				 &s->auth_key)) ||
	    (rc = ytree_opt_enum(x, f, SNMP_K_PRIV, privs, priv_values, 2,
				 &priv)) ||
	    (rc = cfg_opt_secret(x, f, SNMP_K_PRIV_KEY, SNMP_K_PRIV_KEY_FILE,
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
		rc = cfg_opt_secret(x, &f, SNMP_K_COMMUNITY,
				    SNMP_K_COMMUNITY_FILE, &s->community);
		if (rc == 0 && !s->community)
			s->community = xstrdup("public");
	}
	if (rc ||
	    (rc = ytree_opt_duration(x, &f, SNMP_K_INTERVAL, CFG_INTERVAL_MIN,
				     CFG_INTERVAL_MAX, false,
				     &s->interval_ns)) ||
	    (rc = ytree_opt_duration(x, &f, SNMP_K_TIMEOUT, 10 * NS_PER_MS,
				     60 * NS_PER_S, false, &s->timeout_ns)) ||
	    (rc = ytree_opt_uint(x, &f, SNMP_K_RETRIES, 0, 10, &s->retries)) ||
	    (rc = ytree_opt_uint(x, &f, SNMP_K_MAX_REP, 1, 200,
				 &s->max_repetitions)) ||
	    (rc = ytree_opt_str(x, &f, SNMP_K_PROFILE, &s->profile)))
		return rc;
	return 0;
}

static void snmp_free(struct cfg_snmp *s)
{
	if (!s)
		return;
	free(s->address);
	cfg_free_secret(s->community);
	free(s->user);
	cfg_free_secret(s->auth_key);
	cfg_free_secret(s->priv_key);
	free(s->profile);
	free(s);
}

static int snmp_block_parse(struct ytree_ctx *x, const struct cfg *c,
			    const struct ytree_node *n, void **out)
{
	struct cfg_snmp *s = xcalloc(1, sizeof *s);
	(void)c;
	*out = s;
	return parse_snmp(x, s, n);
}

static void snmp_block_free(void *data)
{
	snmp_free(data);
}

static uint64_t snmp_block_interval(const void *data)
{
	const struct cfg_snmp *s = data;
	return s->interval_ns;
}

const struct cfg_section_ops snmp_cfg_section = {
	.key = "snmp",
	.parse_target = snmp_block_parse,
	.free_target = snmp_block_free,
	.target_interval = snmp_block_interval,
};

struct cfg_snmp *snmp_cfg_of(const struct cfg_target *t)
{
	return cfg_target_block(t, snmp_cfg_section.key);
}

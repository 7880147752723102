/*
 * webcfg: the web configuration file (see webcfg.h).
 *
 * The walk follows the file's three sections; each key's value is
 * checked where it is read so that the message points at it. The PEM
 * checks use GnuTLS's own parsers, the ones libmicrohttpd hands the
 * same bytes to, so a file that passes here also loads there.
 *
 * Threading and ownership: see webcfg.h.
 */
#include "config.h"

#include "webcfg.h"

#include "mem.h"
#include "rfile.h"
#include "ytree.h"

#include <errno.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Nesting of the file: top, section, headers, value. */
#define WEBCFG_MAX_DEPTH 8
#define PRIO_MAX	 2048

enum { TOP_TLS, TOP_HTTP, TOP_USERS, TOP_RATE, TOP_N };
static const char *const top_keys[TOP_N] = {
	[TOP_TLS] = "tls_server_config",
	[TOP_HTTP] = "http_server_config",
	[TOP_USERS] = "basic_auth_users",
	[TOP_RATE] = "rate_limit",
};

enum {
	TLS_CERT_FILE,
	TLS_KEY_FILE,
	TLS_CERT,
	TLS_KEY,
	TLS_AUTH,
	TLS_CA_FILE,
	TLS_CA,
	TLS_SANS,
	TLS_MIN,
	TLS_MAX,
	TLS_CIPHERS,
	TLS_PREFER,
	TLS_CURVES,
	TLS_N
};
static const char *const tls_keys[TLS_N] = {
	[TLS_CERT_FILE] = "cert_file",
	[TLS_KEY_FILE] = "key_file",
	[TLS_CERT] = "cert",
	[TLS_KEY] = "key",
	[TLS_AUTH] = "client_auth_type",
	[TLS_CA_FILE] = "client_ca_file",
	[TLS_CA] = "client_ca",
	[TLS_SANS] = "client_allowed_sans",
	[TLS_MIN] = "min_version",
	[TLS_MAX] = "max_version",
	[TLS_CIPHERS] = "cipher_suites",
	[TLS_PREFER] = "prefer_server_cipher_suites",
	[TLS_CURVES] = "curve_preferences",
};

enum { HTTP_HTTP2, HTTP_HEADERS, HTTP_N };
static const char *const http_keys[HTTP_N] = {
	[HTTP_HTTP2] = "http2",
	[HTTP_HEADERS] = "headers",
};

static const char *const auth_names[] = {
	"NoClientCert",
	"RequestClientCert",
	"RequireAnyClientCert",
	"VerifyClientCertIfGiven",
	"RequireAndVerifyClientCert",
};
static const int auth_values[] = {
	WEBCFG_NO_CLIENT_CERT,
	WEBCFG_REQUEST_CLIENT_CERT,
	WEBCFG_REQUIRE_ANY_CLIENT_CERT,
	WEBCFG_VERIFY_CLIENT_CERT_IF_GIVEN,
	WEBCFG_REQUIRE_AND_VERIFY_CLIENT_CERT,
};

static const char *const version_names[] = { "TLS10", "TLS11", "TLS12",
					     "TLS13" };
static const int version_values[] = { 0, 1, 2, 3 };
static const char *const version_prio[] = { "VERS-TLS1.0", "VERS-TLS1.1",
					    "VERS-TLS1.2", "VERS-TLS1.3" };
#define TLS13 3

/*
 * Go's cipher suite names as GnuTLS parts. GnuTLS picks key exchange,
 * cipher and MAC separately, so a list enables every combination of its
 * suites' parts. TLS 1.3 suites are not configurable in Go: they are
 * accepted and always on while TLS 1.3 is. RC4 is gone from GnuTLS.
 */
struct suite {
	const char *go;
	const char *kx, *cipher, *mac; /* NULL kx: TLS 1.3 */
};
static const struct suite suites[] = {
	{ "TLS_RSA_WITH_3DES_EDE_CBC_SHA", "RSA", "3DES-CBC", "SHA1" },
	{ "TLS_RSA_WITH_AES_128_CBC_SHA", "RSA", "AES-128-CBC", "SHA1" },
	{ "TLS_RSA_WITH_AES_256_CBC_SHA", "RSA", "AES-256-CBC", "SHA1" },
	{ "TLS_RSA_WITH_AES_128_CBC_SHA256", "RSA", "AES-128-CBC", "SHA256" },
	{ "TLS_RSA_WITH_AES_128_GCM_SHA256", "RSA", "AES-128-GCM", "AEAD" },
	{ "TLS_RSA_WITH_AES_256_GCM_SHA384", "RSA", "AES-256-GCM", "AEAD" },
	{ "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "ECDHE-ECDSA", "AES-128-CBC",
	  "SHA1" },
	{ "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", "ECDHE-ECDSA", "AES-256-CBC",
	  "SHA1" },
	{ "TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA", "ECDHE-RSA", "3DES-CBC",
	  "SHA1" },
	{ "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "ECDHE-RSA", "AES-128-CBC",
	  "SHA1" },
	{ "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", "ECDHE-RSA", "AES-256-CBC",
	  "SHA1" },
	{ "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", "ECDHE-ECDSA",
	  "AES-128-CBC", "SHA256" },
	{ "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256", "ECDHE-RSA", "AES-128-CBC",
	  "SHA256" },
	{ "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "ECDHE-RSA", "AES-128-GCM",
	  "AEAD" },
	{ "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "ECDHE-ECDSA",
	  "AES-128-GCM", "AEAD" },
	{ "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "ECDHE-RSA", "AES-256-GCM",
	  "AEAD" },
	{ "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "ECDHE-ECDSA",
	  "AES-256-GCM", "AEAD" },
	{ "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-RSA",
	  "CHACHA20-POLY1305", "AEAD" },
	{ "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-ECDSA",
	  "CHACHA20-POLY1305", "AEAD" },
	{ "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305", "ECDHE-RSA",
	  "CHACHA20-POLY1305", "AEAD" },
	{ "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305", "ECDHE-ECDSA",
	  "CHACHA20-POLY1305", "AEAD" },
	{ "TLS_AES_128_GCM_SHA256", NULL, NULL, NULL },
	{ "TLS_AES_256_GCM_SHA384", NULL, NULL, NULL },
	{ "TLS_CHACHA20_POLY1305_SHA256", NULL, NULL, NULL },
};
#define N_SUITES (sizeof suites / sizeof suites[0])
static const char *const tls13_ciphers[] = { "AES-128-GCM", "AES-256-GCM",
					     "CHACHA20-POLY1305" };

/* Go's curve names (crypto/tls CurveID) as GnuTLS groups. */
static const char *const curve_names[] = { "CurveP256", "CurveP384",
					   "CurveP521", "X25519" };
static const char *const curve_groups[] = { "GROUP-SECP256R1",
					    "GROUP-SECP384R1",
					    "GROUP-SECP521R1", "GROUP-X25519" };
#define N_CURVES (sizeof curve_names / sizeof curve_names[0])

/*
 * The headers the toolkit lets a web config add, with the values it
 * allows (NULL: any). Anything else could break the protocol (framing,
 * auth, caching) and is refused as it is there.
 */
struct allowed_header {
	const char *name;
	const char *values[3];
};
static const struct allowed_header allowed_headers[] = {
	{ "Strict-Transport-Security", { NULL } },
	{ "X-Content-Type-Options", { "nosniff", NULL } },
	{ "X-Frame-Options", { "deny", "sameorigin", NULL } },
	{ "X-XSS-Protection", { NULL } },
	{ "Content-Security-Policy", { NULL } },
};
#define N_ALLOWED (sizeof allowed_headers / sizeof allowed_headers[0])

/* The TLS section's settings while they are read. */
struct tls_in {
	int auth;
	int min, max;
	bool prefer_server;
	char prio_ciphers[512]; /* ":-CIPHER-ALL:+..." or "" */
	char prio_curves[256];
};

bool webcfg_cert_required(enum webcfg_client_auth a)
{
	return a == WEBCFG_REQUIRE_ANY_CLIENT_CERT ||
	       a == WEBCFG_REQUIRE_AND_VERIFY_CLIENT_CERT;
}

bool webcfg_cert_verified(enum webcfg_client_auth a)
{
	return a == WEBCFG_VERIFY_CLIENT_CERT_IF_GIVEN ||
	       a == WEBCFG_REQUIRE_AND_VERIFY_CLIENT_CERT;
}

/* Appends ":+item" to buf unless it is there already. */
static void prio_add(char *buf, size_t size, const char *item)
{
	char tok[64];
	snprintf(tok, sizeof tok, ":+%s", item);
	const char *p = buf;
	size_t n = strlen(tok);
	while ((p = strstr(p, tok))) {
		if (p[n] == '\0' || p[n] == ':')
			return;
		p += n;
	}
	size_t len = strlen(buf);
	snprintf(buf + len, size - len, "%s", tok);
}

/* Reads a PEM: file key fi (relative to dir) or inline key ii. *out
 * stays NULL if neither is set. */
static int read_pem(struct ytree_ctx *x, const struct ytree_fields *f,
		    size_t fi, size_t ii, const char *dir, char **out)
{
	if (f->val[fi] && f->val[ii])
		return ytree_fail_key(x, f, ii, "give %s or %s, not both",
				      f->keys[fi], f->keys[ii]);
	if (f->val[ii]) {
		char *pem = NULL;
		int rc = ytree_opt_str(x, f, ii, &pem);
		*out = pem;
		return rc;
	}
	char *name = NULL;
	int rc = ytree_opt_str(x, f, fi, &name);
	if (rc || !name)
		return rc;
	char *path = name[0] == '/' || !dir ? xstrdup(name)
					    : xasprintf("%s/%s", dir, name);
	char why[160];
	size_t len = 0;
	*out =
	    rfile_load(path, WEBCFG_PEM_MAX_BYTES, &len, why, sizeof why, NULL);
	if (!*out)
		rc = ytree_fail_key(x, f, fi, "\"%s\": %s", path, why);
	free(path);
	free(name);
	return rc;
}

static int check_certs(struct ytree_ctx *x, const struct ytree_fields *f,
		       size_t fi, size_t ii, const char *pem, const char *what)
{
	gnutls_datum_t d = { (unsigned char *)pem, (unsigned)strlen(pem) };
	gnutls_x509_crt_t *crts = NULL;
	unsigned n = 0;
	int g =
	    gnutls_x509_crt_list_import2(&crts, &n, &d, GNUTLS_X509_FMT_PEM, 0);
	if (g < 0 || n == 0)
		return ytree_fail_key(
		    x, f, f->val[fi] ? fi : ii, "no %s in it: %s", what,
		    g < 0 ? gnutls_strerror(g) : "no PEM certificate");
	for (unsigned i = 0; i < n; i++)
		gnutls_x509_crt_deinit(crts[i]);
	gnutls_free(crts);
	return 0;
}

/* The key parses and belongs to the first certificate. */
static int check_key(struct ytree_ctx *x, const struct ytree_fields *f,
		     const char *cert, const char *key)
{
	size_t ki = f->val[TLS_KEY_FILE] ? TLS_KEY_FILE : TLS_KEY;
	gnutls_datum_t kd = { (unsigned char *)key, (unsigned)strlen(key) };
	gnutls_datum_t cd = { (unsigned char *)cert, (unsigned)strlen(cert) };
	gnutls_x509_privkey_t pk;
	if (gnutls_x509_privkey_init(&pk) < 0)
		return ytree_fail_key(x, f, ki, "out of memory");
	int g =
	    gnutls_x509_privkey_import2(pk, &kd, GNUTLS_X509_FMT_PEM, NULL, 0);
	gnutls_x509_privkey_deinit(pk);
	if (g < 0)
		return ytree_fail_key(x, f, ki, "not a usable private key: %s",
				      gnutls_strerror(g));
	gnutls_certificate_credentials_t cred;
	if (gnutls_certificate_allocate_credentials(&cred) < 0)
		return ytree_fail_key(x, f, ki, "out of memory");
	g = gnutls_certificate_set_x509_key_mem2(cred, &cd, &kd,
						 GNUTLS_X509_FMT_PEM, NULL, 0);
	gnutls_certificate_free_credentials(cred);
	if (g < 0)
		return ytree_fail_key(x, f, ki,
				      "does not go with the certificate: %s",
				      gnutls_strerror(g));
	return 0;
}

static int parse_suites(struct ytree_ctx *x, const struct ytree_fields *f,
			struct tls_in *t)
{
	size_t n = 0;
	const struct ytree_node *seq = f->val[TLS_CIPHERS];
	size_t saved = ytree_path_key(x, f->keys[TLS_CIPHERS]);
	int rc = ytree_want_seq(x, seq, &n);
	if (rc || n == 0)
		return rc ? rc : ytree_fail(x, seq, "an empty list");
	char kx[256] = "", ci[256] = "", mac[128] = "";
	for (size_t i = 0; i < n; i++) {
		const struct ytree_node *it = seq->kids[i];
		size_t s2 = ytree_path_index(x, i);
		if ((rc = ytree_want_scalar(x, it, "a cipher suite name")))
			return rc;
		size_t j = 0;
		while (j < N_SUITES && strcmp(suites[j].go, it->str))
			j++;
		if (j == N_SUITES) {
			char q[YTREE_QUOTE_BUF];
			return ytree_fail(
			    x, it,
			    "unknown cipher suite %s (Go's "
			    "names, e.g. "
			    "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"
			    "; RC4 is not supported)",
			    ytree_quote(it, q, sizeof q));
		}
		if (suites[j].kx) {
			prio_add(kx, sizeof kx, suites[j].kx);
			prio_add(ci, sizeof ci, suites[j].cipher);
			prio_add(mac, sizeof mac, suites[j].mac);
		}
		ytree_path_cut(x, s2);
	}
	if (t->max == TLS13)
		for (size_t i = 0; i < 3; i++)
			prio_add(ci, sizeof ci, tls13_ciphers[i]);
	prio_add(mac, sizeof mac, "AEAD");
	if (!kx[0] && t->min < TLS13)
		return ytree_fail(x, seq,
				  "only TLS 1.3 suites, which are not "
				  "configurable: name TLS 1.2 suites, or "
				  "set min_version: TLS13");
	snprintf(t->prio_ciphers, sizeof t->prio_ciphers,
		 ":-CIPHER-ALL%s:-KX-ALL%s:-MAC-ALL%s", ci, kx, mac);
	ytree_path_cut(x, saved);
	return 0;
}

static int parse_curves(struct ytree_ctx *x, const struct ytree_fields *f,
			struct tls_in *t)
{
	size_t n = 0;
	const struct ytree_node *seq = f->val[TLS_CURVES];
	size_t saved = ytree_path_key(x, f->keys[TLS_CURVES]);
	int rc = ytree_want_seq(x, seq, &n);
	if (rc || n == 0)
		return rc ? rc : ytree_fail(x, seq, "an empty list");
	char groups[200] = "";
	int vals[N_CURVES] = { 0, 1, 2, 3 };
	for (size_t i = 0; i < n; i++) {
		size_t s2 = ytree_path_index(x, i);
		int v;
		if ((rc = ytree_enum(x, seq->kids[i], curve_names, vals,
				     N_CURVES, &v)))
			return rc;
		prio_add(groups, sizeof groups, curve_groups[v]);
		ytree_path_cut(x, s2);
	}
	snprintf(t->prio_curves, sizeof t->prio_curves, ":-GROUP-ALL%s",
		 groups);
	ytree_path_cut(x, saved);
	return 0;
}

/* The GnuTLS priority string of t, checked by GnuTLS. */
static int make_priorities(struct ytree_ctx *x, const struct ytree_node *at,
			   const struct tls_in *t, char **out)
{
	char prio[PRIO_MAX];
	int len = snprintf(prio, sizeof prio, "NORMAL%s:-VERS-ALL",
			   t->prefer_server ? ":%SERVER_PRECEDENCE" : "");
	for (int v = t->min; v <= t->max; v++)
		len += snprintf(prio + len, sizeof prio - (size_t)len, ":+%s",
				version_prio[v]);
	snprintf(prio + len, sizeof prio - (size_t)len, "%s%s", t->prio_ciphers,
		 t->prio_curves);
	gnutls_priority_t p;
	const char *errpos = NULL;
	int g = gnutls_priority_init(&p, prio, &errpos);
	if (g < 0)
		return ytree_fail(x, at,
				  "GnuTLS refuses these settings (priority "
				  "string \"%s\", at \"%s\"): %s",
				  prio, errpos ? errpos : "?",
				  gnutls_strerror(g));
	gnutls_priority_deinit(p);
	*out = xstrdup(prio);
	return 0;
}

/* The keys that only make sense with a certificate. */
static bool tls_other_keys(const struct ytree_fields *f)
{
	for (size_t i = TLS_AUTH; i < TLS_N; i++)
		if (f->val[i])
			return true;
	return false;
}

static int check_client_auth(struct ytree_ctx *x, const struct ytree_fields *f,
			     struct webcfg *w)
{
	if (f->val[TLS_SANS])
		return ytree_fail_key(x, f, TLS_SANS,
				      "not supported by fabmond (any "
				      "certificate the CA signed is let in)");
	bool ca = w->ca_pem != NULL;
	if (ca && w->client_auth == WEBCFG_NO_CLIENT_CERT)
		return ytree_fail_key(
		    x, f, f->val[TLS_CA_FILE] ? TLS_CA_FILE : TLS_CA,
		    "client CAs without a client_auth_type "
		    "that asks for a certificate");
	if (!ca && webcfg_cert_verified(w->client_auth))
		return ytree_fail_key(x, f, TLS_AUTH,
				      "%s needs client_ca_file (the CAs "
				      "client certificates are verified "
				      "against)",
				      auth_names[w->client_auth]);
	if (ca)
		return check_certs(x, f, TLS_CA_FILE, TLS_CA, w->ca_pem,
				   "CA certificate");
	return 0;
}

static int parse_tls(struct ytree_ctx *x, const struct ytree_node *n,
		     const char *dir, struct webcfg *w)
{
	struct ytree_fields f;
	struct tls_in t = { .min = 2, .max = TLS13, .prefer_server = true };
	int rc = ytree_fields_get(x, n, tls_keys, TLS_N, &f);
	if (rc)
		return rc;
	bool cert = f.val[TLS_CERT_FILE] || f.val[TLS_CERT];
	bool key = f.val[TLS_KEY_FILE] || f.val[TLS_KEY];
	if (!cert && !key && !tls_other_keys(&f))
		return 0; /* an empty section: plain HTTP, as the toolkit */
	if (!cert || !key)
		return ytree_fail(x, n,
				  "needs cert_file (or cert) and key_file "
				  "(or key)");
	t.auth = WEBCFG_NO_CLIENT_CERT;
	if ((rc =
		 read_pem(x, &f, TLS_CERT_FILE, TLS_CERT, dir, &w->cert_pem)) ||
	    (rc = check_certs(x, &f, TLS_CERT_FILE, TLS_CERT, w->cert_pem,
			      "certificate")) ||
	    (rc = read_pem(x, &f, TLS_KEY_FILE, TLS_KEY, dir, &w->key_pem)) ||
	    (rc = check_key(x, &f, w->cert_pem, w->key_pem)) ||
	    (rc = ytree_opt_enum(x, &f, TLS_AUTH, auth_names, auth_values, 5,
				 &t.auth)) ||
	    (rc = read_pem(x, &f, TLS_CA_FILE, TLS_CA, dir, &w->ca_pem)))
		return rc;
	w->client_auth = (enum webcfg_client_auth)t.auth;
	if ((rc = check_client_auth(x, &f, w)) ||
	    (rc = ytree_opt_enum(x, &f, TLS_MIN, version_names, version_values,
				 4, &t.min)) ||
	    (rc = ytree_opt_enum(x, &f, TLS_MAX, version_names, version_values,
				 4, &t.max)) ||
	    (rc = ytree_opt_bool(x, &f, TLS_PREFER, &t.prefer_server)))
		return rc;
	if (t.min > t.max)
		return ytree_fail_key(x, &f, TLS_MAX, "below min_version %s",
				      version_names[t.min]);
	if ((f.val[TLS_CIPHERS] && (rc = parse_suites(x, &f, &t))) ||
	    (f.val[TLS_CURVES] && (rc = parse_curves(x, &f, &t))))
		return rc;
	w->tls = true;
	return make_priorities(x, n, &t, &w->priorities);
}

static bool has_ctl(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 && s[i] != '\t')
			return true;
		else if (s[i] == 0x7f)
			return true;
	return false;
}

static int check_header(struct ytree_ctx *x, const struct ytree_node *k,
			const struct ytree_node *v)
{
	char q[YTREE_QUOTE_BUF];
	size_t i = 0;
	while (i < N_ALLOWED && strcasecmp(allowed_headers[i].name, k->str))
		i++;
	if (i == N_ALLOWED)
		return ytree_fail(x, k,
				  "header %s cannot be set (only "
				  "Strict-Transport-Security, "
				  "X-Content-Type-Options, X-Frame-Options, "
				  "X-XSS-Protection, Content-Security-Policy)",
				  ytree_quote(k, q, sizeof q));
	int rc = ytree_want_scalar(x, v, "a header value");
	if (rc)
		return rc;
	if (v->len == 0 || has_ctl(v->str, v->len))
		return ytree_fail(x, v,
				  "a header value must be non-empty, on one "
				  "line, without control characters");
	const char *const *ok = allowed_headers[i].values;
	if (!ok[0])
		return 0;
	for (size_t j = 0; ok[j]; j++)
		if (strcasecmp(ok[j], v->str) == 0)
			return 0;
	return ytree_fail(x, v, "%s is not allowed for %s (%s%s%s)",
			  ytree_quote(v, q, sizeof q), allowed_headers[i].name,
			  ok[0], ok[1] ? " or " : "", ok[1] ? ok[1] : "");
}

static int parse_headers(struct ytree_ctx *x, const struct ytree_node *n,
			 struct webcfg *w)
{
	if (ytree_is_null(n))
		return 0;
	if (n->kind != YTREE_MAP)
		return ytree_fail(x, n,
				  "expected a mapping of header: value, "
				  "got %s",
				  ytree_kind_name(n));
	w->headers = xcalloc(n->n / 2 + 1, sizeof *w->headers);
	for (size_t i = 0; i + 1 < n->n; i += 2) {
		const struct ytree_node *k = n->kids[i], *v = n->kids[i + 1];
		if (k->kind != YTREE_SCALAR)
			return ytree_fail(x, k,
					  "a header name must be a "
					  "string");
		for (size_t j = 0; j < w->n_headers; j++)
			if (strcasecmp(w->headers[j].name, k->str) == 0)
				return ytree_fail(x, k, "duplicate header %s",
						  w->headers[j].name);
		size_t saved = ytree_path_key(x, k->str);
		int rc = check_header(x, k, v);
		if (rc)
			return rc;
		ytree_path_cut(x, saved);
		w->headers[w->n_headers].name = xstrdup(k->str);
		w->headers[w->n_headers++].value = xstrdup(v->str);
	}
	return 0;
}

static int parse_http(struct ytree_ctx *x, const struct ytree_node *n,
		      struct webcfg *w)
{
	struct ytree_fields f;
	bool http2 = true;
	int rc = ytree_fields_get(x, n, http_keys, HTTP_N, &f);
	/* http2 is taken and ignored: fabmond speaks HTTP/1.1 only. */
	if (rc == 0)
		rc = ytree_opt_bool(x, &f, HTTP_HTTP2, &http2);
	if (rc == 0 && f.val[HTTP_HEADERS]) {
		size_t saved = ytree_path_key(x, f.keys[HTTP_HEADERS]);
		rc = parse_headers(x, f.val[HTTP_HEADERS], w);
		if (rc == 0)
			ytree_path_cut(x, saved);
	}
	return rc;
}

static bool is_bcrypt64(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '/';
}

/*
 * "$2a$", "$2b$" or "$2y$", a cost of two digits (04..31), "$" and 53
 * characters of bcrypt's base64 (salt and hash). Checked by shape, not
 * by hashing: a load must not cost a bcrypt per user. Anything else
 * (notably what crypt() would take for a DES or yescrypt setting) is
 * refused.
 */
static bool bcrypt_shaped(const char *h, size_t len)
{
	if (len != 60 || h[0] != '$' || h[1] != '2' ||
	    (h[2] != 'a' && h[2] != 'b' && h[2] != 'y') || h[3] != '$' ||
	    h[4] < '0' || h[4] > '3' || h[5] < '0' || h[5] > '9' || h[6] != '$')
		return false;
	int cost = (h[4] - '0') * 10 + (h[5] - '0');
	if (cost < 4 || cost > 31)
		return false;
	for (size_t i = 7; i < 60; i++)
		if (!is_bcrypt64(h[i]))
			return false;
	return true;
}

static int parse_users(struct ytree_ctx *x, const struct ytree_node *n,
		       struct webcfg *w)
{
	if (ytree_is_null(n))
		return 0;
	if (n->kind != YTREE_MAP)
		return ytree_fail(x, n,
				  "expected a mapping of user: bcrypt "
				  "hash, got %s",
				  ytree_kind_name(n));
	w->users = xcalloc(n->n / 2 + 1, sizeof *w->users);
	for (size_t i = 0; i + 1 < n->n; i += 2) {
		const struct ytree_node *k = n->kids[i], *v = n->kids[i + 1];
		if (k->kind != YTREE_SCALAR || k->len == 0 ||
		    strlen(k->str) != k->len || strchr(k->str, ':') ||
		    has_ctl(k->str, k->len))
			return ytree_fail(x, k,
					  "a user name must be a non-empty "
					  "string without ':' or control "
					  "characters");
		for (size_t j = 0; j < w->n_users; j++)
			if (strcmp(w->users[j].name, k->str) == 0)
				return ytree_fail(x, k, "duplicate user");
		size_t saved = ytree_path_key(x, k->str);
		int rc = ytree_want_scalar(x, v, "a bcrypt hash");
		if (rc)
			return rc;
		if (!bcrypt_shaped(v->str, v->len))
			return ytree_fail(x, v,
					  "not a bcrypt hash ($2y$, $2b$ or "
					  "$2a$, cost 04-31, 60 characters; "
					  "htpasswd -nBC 10 makes one)");
		ytree_path_cut(x, saved);
		w->users[w->n_users].name = xstrdup(k->str);
		w->users[w->n_users++].value = xstrdup(v->str);
	}
	return 0;
}

static int parse_top(struct ytree_ctx *x, const struct ytree_node *root,
		     const char *dir, struct webcfg *w)
{
	struct ytree_fields f;
	int rc = ytree_fields_get(x, root, top_keys, TOP_N, &f);
	if (rc)
		return rc;
	if (f.val[TOP_RATE])
		return ytree_fail_key(x, &f, TOP_RATE,
				      "not supported by fabmond (it has "
				      "http.max_connections_per_client)");
	const int order[] = { TOP_TLS, TOP_HTTP, TOP_USERS };
	for (size_t i = 0; i < 3; i++) {
		size_t k = (size_t)order[i];
		if (!f.val[k])
			continue;
		size_t saved = ytree_path_key(x, f.keys[k]);
		rc = k == TOP_TLS    ? parse_tls(x, f.val[k], dir, w)
		     : k == TOP_HTTP ? parse_http(x, f.val[k], w)
				     : parse_users(x, f.val[k], w);
		if (rc)
			return rc;
		ytree_path_cut(x, saved);
	}
	return 0;
}

struct webcfg *webcfg_load_buffer(const char *name, const char *dir,
				  const char *buf, size_t len, char *err,
				  size_t errlen)
{
	struct ytree_ctx x = { .name = name, .err = err, .errlen = errlen };
	struct ytree_node *root = NULL;
	if (err && errlen)
		err[0] = '\0';
	if (ytree_load(&x, buf, len, WEBCFG_MAX_BYTES, WEBCFG_MAX_DEPTH, &root))
		return NULL;
	struct webcfg *w = xcalloc(1, sizeof *w);
	w->path = xstrdup(name);
	/* An empty file is valid: plain HTTP, no auth (as the toolkit). */
	if (root && !ytree_is_null(root) && parse_top(&x, root, dir, w)) {
		webcfg_free(w);
		w = NULL;
	}
	ytree_free(root);
	return w;
}

struct webcfg *webcfg_load(const char *path, char *err, size_t errlen)
{
	struct ytree_ctx x = { .name = path, .err = err, .errlen = errlen };
	size_t len = 0;
	if (err && errlen)
		err[0] = '\0';
	char *buf = ytree_read_file(&x, path, WEBCFG_MAX_BYTES, &len);
	if (!buf)
		return NULL;
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	struct webcfg *w =
	    webcfg_load_buffer(path, slash ? dir : NULL, buf, len, err, errlen);
	free(dir);
	/* It may hold an inline key. */
	explicit_bzero(buf, len);
	free(buf);
	return w;
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

bool webcfg_tls_equal(const struct webcfg *a, const struct webcfg *b)
{
	bool ta = a && a->tls, tb = b && b->tls;
	if (!ta || !tb)
		return ta == tb;
	return a->client_auth == b->client_auth &&
	       same_str(a->cert_pem, b->cert_pem) &&
	       same_str(a->key_pem, b->key_pem) &&
	       same_str(a->ca_pem, b->ca_pem) &&
	       same_str(a->priorities, b->priorities);
}

static void free_secret(char *s)
{
	if (s) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

void webcfg_free(struct webcfg *w)
{
	if (!w)
		return;
	free(w->path);
	free(w->cert_pem);
	free_secret(w->key_pem);
	free(w->ca_pem);
	free(w->priorities);
	for (size_t i = 0; i < w->n_headers; i++) {
		free(w->headers[i].name);
		free(w->headers[i].value);
	}
	free(w->headers);
	for (size_t i = 0; i < w->n_users; i++) {
		free(w->users[i].name);
		free_secret(w->users[i].value);
	}
	free(w->users);
	free(w);
}

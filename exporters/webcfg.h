/*
 * webcfg: the web configuration file of fabmond's HTTP listeners
 * (http.web_config in fabmon.yaml), in the format of the Prometheus
 * exporter-toolkit's web-config.yml: tls_server_config (HTTPS, client
 * certificates), http_server_config (extra response headers) and
 * basic_auth_users (user: bcrypt hash). See fabmon.yaml(5).
 *
 * webcfg_load reads the file (lib/rfile.h: regular files only, never
 * blocking), walks it with core/ytree.h so that every error names
 * file:line:col and the key path, reads the PEM files it names
 * (relative to the web config's own directory, as the toolkit does),
 * checks them with GnuTLS (the certificate chain parses, the key parses
 * and matches the certificate, the CA file holds certificates) and turns
 * the TLS versions, Go cipher suite and curve names into one GnuTLS
 * priority string, which it checks too. What loads is what the server
 * will use: nothing is re-read later.
 *
 * Threading: a loaded webcfg is immutable; any thread may read it.
 * Ownership: the caller owns it (webcfg_free); its key bytes are zeroed
 * when freed.
 */
#ifndef FABMON_WEBCFG_H
#define FABMON_WEBCFG_H

#include <stdbool.h>
#include <stddef.h>

/* Bytes of the web config file, and of each PEM file it names. */
#define WEBCFG_MAX_BYTES     65536
#define WEBCFG_PEM_MAX_BYTES (1024 * 1024)

/* tls_server_config.client_auth_type, the toolkit's (Go's) names. */
enum webcfg_client_auth {
	WEBCFG_NO_CLIENT_CERT,		      /* NoClientCert (default) */
	WEBCFG_REQUEST_CLIENT_CERT,	      /* RequestClientCert */
	WEBCFG_REQUIRE_ANY_CLIENT_CERT,	      /* RequireAnyClientCert */
	WEBCFG_VERIFY_CLIENT_CERT_IF_GIVEN,   /* VerifyClientCertIfGiven */
	WEBCFG_REQUIRE_AND_VERIFY_CLIENT_CERT /* RequireAndVerifyClientCert */
};

struct webcfg_pair {
	char *name;
	char *value;
};

struct webcfg {
	char *path; /* the file it came from */
	/* HTTPS: set when tls_server_config names a certificate. */
	bool tls;
	char *cert_pem; /* NUL-terminated PEM chain, server first */
	char *key_pem;	/* NUL-terminated PEM key (secret) */
	char *ca_pem;	/* client CAs; NULL: none */
	enum webcfg_client_auth client_auth;
	char *priorities; /* GnuTLS priority string */
	/* http_server_config.headers, added to every response. */
	struct webcfg_pair *headers;
	size_t n_headers;
	/* basic_auth_users: name = user, value = bcrypt hash. */
	struct webcfg_pair *users;
	size_t n_users;
};

/*
 * Loads and checks the web config file path. NULL on any error, with
 * one line in err ("file:line:col: key.path: message" for the file's
 * own errors, naming the PEM file and GnuTLS's reason for theirs).
 */
struct webcfg *webcfg_load(const char *path, char *err, size_t errlen);

/*
 * The same for a file already read: name is shown in messages, dir is
 * where relative PEM paths are looked up (NULL: the working directory).
 */
struct webcfg *webcfg_load_buffer(const char *name, const char *dir,
				  const char *buf, size_t len, char *err,
				  size_t errlen);

/* True if a and b serve the same TLS setup (both may be NULL, meaning
 * plain HTTP): certificate, key, CAs, client auth and priorities. */
bool webcfg_tls_equal(const struct webcfg *a, const struct webcfg *b);

/* True if the client auth type makes the client present a certificate,
 * and true if it makes fabmond verify one that is given. */
bool webcfg_cert_required(enum webcfg_client_auth a);
bool webcfg_cert_verified(enum webcfg_client_auth a);

/* Frees (zeroing the key and the hashes); NULL ok. */
void webcfg_free(struct webcfg *w);

#endif

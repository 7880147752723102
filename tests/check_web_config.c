/*
 * check_web_config: the exporter-toolkit web config parser (webcfg) and
 * the basic auth checker (http_auth). Each key is read into its field;
 * each error names file:line:col and the key path. The PEM files and
 * bcrypt hashes are real ones, made at run time (web_pki.h), so the
 * GnuTLS checks (chain, key match, CA) and crypt_rn() run for real.
 */
#include "config.h"

#include "http_auth.h"
#include "webcfg.h"

#include "web_pki.h"

#include <check.h>
#include <crypt.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct web_pki pki;

/* Loads text as "w.yml" with the PKI directory for relative paths. */
static struct webcfg *load(const char *text, char *err, size_t errlen)
{
	return webcfg_load_buffer("w.yml", pki.dir, text, strlen(text), err,
				  errlen);
}

__attribute__((format(printf, 1, 2))) static char *with_hash(const char *fmt,
							     ...)
{
	char *s = NULL;
	va_list ap;
	va_start(ap, fmt);
	ck_assert_int_ge(vasprintf(&s, fmt, ap), 0);
	va_end(ap);
	return s;
}

START_TEST(test_full_config_reads_every_key)
{
	char err[512] = "";
	char *text = with_hash(
	    "tls_server_config:\n"
	    "  cert_file: server.crt\n"
	    "  key_file: server.key\n"
	    "  client_auth_type: RequireAndVerifyClientCert\n"
	    "  client_ca_file: ca.crt\n"
	    "  min_version: TLS12\n"
	    "  max_version: TLS13\n"
	    "  cipher_suites: [TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,\n"
	    "                  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256]\n"
	    "  prefer_server_cipher_suites: false\n"
	    "  curve_preferences: [X25519, CurveP256]\n"
	    "http_server_config:\n"
	    "  http2: false\n"
	    "  headers:\n"
	    "    X-Frame-Options: deny\n"
	    "    Strict-Transport-Security: max-age=31536000\n"
	    "basic_auth_users:\n"
	    "  alice: %s\n",
	    pki.alice);
	struct webcfg *w = load(text, err, sizeof err);
	ck_assert_msg(w, "%s", err);
	ck_assert(w->tls);
	ck_assert_ptr_nonnull(strstr(w->cert_pem, "BEGIN CERTIFICATE"));
	ck_assert_ptr_nonnull(strstr(w->key_pem, "PRIVATE KEY"));
	ck_assert_ptr_nonnull(strstr(w->ca_pem, "BEGIN CERTIFICATE"));
	ck_assert_int_eq(w->client_auth, WEBCFG_REQUIRE_AND_VERIFY_CLIENT_CERT);
	ck_assert_msg(
	    strstr(w->priorities, ":+VERS-TLS1.2:+VERS-TLS1.3") &&
		!strstr(w->priorities, "VERS-TLS1.1") &&
		!strstr(w->priorities, "%SERVER_PRECEDENCE") &&
		strstr(w->priorities, ":-CIPHER-ALL:+AES-128-GCM:+"
				      "CHACHA20-POLY1305") &&
		strstr(w->priorities, ":-KX-ALL:+ECDHE-ECDSA:+ECDHE-RSA") &&
		strstr(w->priorities,
		       ":-GROUP-ALL:+GROUP-X25519:+GROUP-SECP256R1"),
	    "priorities %s", w->priorities);
	ck_assert_uint_eq(w->n_headers, 2);
	ck_assert_str_eq(w->headers[0].name, "X-Frame-Options");
	ck_assert_str_eq(w->headers[0].value, "deny");
	ck_assert_str_eq(w->headers[1].value, "max-age=31536000");
	ck_assert_uint_eq(w->n_users, 1);
	ck_assert_str_eq(w->users[0].name, "alice");
	ck_assert_str_eq(w->users[0].value, pki.alice);
	webcfg_free(w);
	free(text);
}
END_TEST

START_TEST(test_defaults_and_plain_files)
{
	char err[512] = "";
	/* An empty file, and an empty TLS section: plain HTTP, no auth. */
	const char *plain[] = { "", "tls_server_config:\n",
				"http_server_config: {headers: {}}\n" };
	for (size_t i = 0; i < 3; i++) {
		struct webcfg *w = load(plain[i], err, sizeof err);
		ck_assert_msg(w, "%zu: %s", i, err);
		ck_assert(!w->tls);
		ck_assert_uint_eq(w->n_users, 0);
		ck_assert(webcfg_tls_equal(w, NULL));
		webcfg_free(w);
	}
	struct webcfg *w = load("tls_server_config:\n"
				"  cert_file: server.crt\n"
				"  key_file: server.key\n",
				err, sizeof err);
	ck_assert_msg(w, "%s", err);
	ck_assert_int_eq(w->client_auth, WEBCFG_NO_CLIENT_CERT);
	ck_assert_ptr_null(w->ca_pem);
	/* TLS 1.2 and 1.3, the server's order, GnuTLS's default suites. */
	ck_assert_str_eq(w->priorities, "NORMAL:%SERVER_PRECEDENCE:-VERS-ALL:"
					"+VERS-TLS1.2:+VERS-TLS1.3");
	ck_assert(!webcfg_tls_equal(w, NULL));
	ck_assert(webcfg_tls_equal(w, w));
	struct webcfg *w2 = load("tls_server_config:\n"
				 "  cert_file: server2.crt\n"
				 "  key_file: server2.key\n",
				 err, sizeof err);
	ck_assert_msg(w2, "%s", err);
	ck_assert(!webcfg_tls_equal(w, w2));
	webcfg_free(w2);
	webcfg_free(w);
}
END_TEST

START_TEST(test_inline_pem_and_tls10)
{
	char err[512] = "";
	char path[300];
	snprintf(path, sizeof path, "%s/server.crt", pki.dir);
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	char pem[4096];
	size_t n = fread(pem, 1, sizeof pem - 1, f);
	fclose(f);
	pem[n] = '\0';
	/* The certificate inline as a literal block, the key as a file. */
	char *text = NULL;
	char *indented = NULL;
	size_t cap = 0;
	FILE *m = open_memstream(&indented, &cap);
	for (const char *p = pem; *p; p++) {
		if (p == pem || p[-1] == '\n')
			fputs("    ", m);
		fputc(*p, m);
	}
	fclose(m);
	ck_assert_int_ge(asprintf(&text,
				  "tls_server_config:\n"
				  "  cert: |\n%s"
				  "  key_file: server.key\n"
				  "  min_version: TLS10\n",
				  indented),
			 0);
	struct webcfg *w = load(text, err, sizeof err);
	ck_assert_msg(w, "%s", err);
	ck_assert_str_eq(w->cert_pem, pem);
	ck_assert_ptr_nonnull(
	    strstr(w->priorities, "+VERS-TLS1.0:+VERS-TLS1.1:+VERS-TLS1.2"));
	webcfg_free(w);
	free(text);
	free(indented);
}
END_TEST

struct bad {
	const char *text;
	const char *want; /* a part of the message */
};

static const struct bad bad_files[] = {
	{ "tls_server_confg: {}\n",
	  "w.yml:1:1: tls_server_confg: unknown key (did you mean "
	  "\"tls_server_config\"?)" },
	{ "tls_server_config:\n  cert_file: server.crt\n",
	  "w.yml:2:3: tls_server_config: needs cert_file (or cert) and "
	  "key_file (or key)" },
	{ "tls_server_config:\n  client_auth_type: NoClientCert\n",
	  "w.yml:2:3: tls_server_config: needs cert_file" },
	{ "tls_server_config:\n  cert_file: nosuch.crt\n"
	  "  key_file: server.key\n",
	  "w.yml:2:14: tls_server_config.cert_file: \"" },
	{ "tls_server_config:\n  cert_file: server.key\n"
	  "  key_file: server.key\n",
	  "w.yml:2:14: tls_server_config.cert_file: no certificate in it" },
	{ "tls_server_config:\n  cert_file: server.crt\n"
	  "  key_file: server.crt\n",
	  "w.yml:3:13: tls_server_config.key_file: not a usable private key" },
	{ "tls_server_config:\n  cert_file: server.crt\n"
	  "  key_file: client.key\n",
	  "w.yml:3:13: tls_server_config.key_file: does not go with the "
	  "certificate" },
	{ "tls_server_config:\n  cert_file: server.crt\n"
	  "  key_file: server.key\n  cert: x\n",
	  "w.yml:4:9: tls_server_config.cert: give cert_file or cert, not "
	  "both" },
	{ "tls_server_config:\n  cert_file: server.crt\n"
	  "  key_file: server.key\n  client_auth_type: Always\n",
	  "w.yml:4:21: tls_server_config.client_auth_type: " },
	{ "tls_server_config:\n  cert_file: server.crt\n"
	  "  key_file: server.key\n"
	  "  client_auth_type: RequireAndVerifyClientCert\n",
	  "w.yml:4:21: tls_server_config.client_auth_type: "
	  "RequireAndVerifyClientCert needs client_ca_file" },
	{ "tls_server_config:\n  cert_file: server.crt\n"
	  "  key_file: server.key\n  client_ca_file: ca.crt\n",
	  "w.yml:4:19: tls_server_config.client_ca_file: client CAs without "
	  "a client_auth_type" },
	{ "tls_server_config:\n  cert_file: server.crt\n"
	  "  key_file: server.key\n  client_ca_file: server.key\n"
	  "  client_auth_type: VerifyClientCertIfGiven\n",
	  "w.yml:4:19: tls_server_config.client_ca_file: no CA certificate "
	  "in it" },
	{ "tls_server_config:\n  cert_file: server.crt\n"
	  "  key_file: server.key\n  client_allowed_sans: [a]\n",
	  "w.yml:4:24: tls_server_config.client_allowed_sans: not supported" },
	{ "tls_server_config:\n  cert_file: server.crt\n"
	  "  key_file: server.key\n  min_version: TLS14\n",
	  "w.yml:4:16: tls_server_config.min_version: " },
	{ "tls_server_config:\n  cert_file: server.crt\n"
	  "  key_file: server.key\n  min_version: TLS13\n"
	  "  max_version: TLS12\n",
	  "w.yml:5:16: tls_server_config.max_version: below min_version "
	  "TLS13" },
	{ "tls_server_config:\n  cert_file: server.crt\n"
	  "  key_file: server.key\n"
	  "  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, NOPE]\n",
	  "w.yml:4:58: tls_server_config.cipher_suites[1]: unknown cipher "
	  "suite \"NOPE\"" },
	{ "tls_server_config:\n  cert_file: server.crt\n"
	  "  key_file: server.key\n"
	  "  cipher_suites: [TLS_RSA_WITH_RC4_128_SHA]\n",
	  "w.yml:4:19: tls_server_config.cipher_suites[0]: unknown cipher "
	  "suite" },
	{ "tls_server_config:\n  cert_file: server.crt\n"
	  "  key_file: server.key\n  cipher_suites: []\n",
	  "w.yml:4:18: tls_server_config.cipher_suites: an empty list" },
	{ "tls_server_config:\n  cert_file: server.crt\n"
	  "  key_file: server.key\n"
	  "  cipher_suites: [TLS_AES_128_GCM_SHA256]\n",
	  "w.yml:4:18: tls_server_config.cipher_suites: only TLS 1.3 "
	  "suites" },
	{ "tls_server_config:\n  cert_file: server.crt\n"
	  "  key_file: server.key\n  curve_preferences: [CurveP256, X448]\n",
	  "w.yml:4:34: tls_server_config.curve_preferences[1]: " },
	{ "tls_server_config:\n  cert_file: server.crt\n"
	  "  key_file: server.key\n  prefer_server_cipher_suites: maybe\n",
	  "w.yml:4:32: tls_server_config.prefer_server_cipher_suites: " },
	{ "http_server_config:\n  headers:\n    Content-Type: text/html\n",
	  "w.yml:3:5: http_server_config.headers.Content-Type: header "
	  "\"Content-Type\" cannot be set" },
	{ "http_server_config:\n  headers:\n    X-Frame-Options: allow\n",
	  "w.yml:3:22: http_server_config.headers.X-Frame-Options: \"allow\" "
	  "is not allowed for X-Frame-Options (deny or sameorigin)" },
	{ "http_server_config:\n  headers:\n"
	  "    X-Content-Type-Options: sniff\n",
	  "w.yml:3:29: http_server_config.headers.X-Content-Type-Options: "
	  "\"sniff\" is not allowed" },
	{ "http_server_config:\n  headers:\n"
	  "    X-XSS-Protection: \"1\\r\\nSet-Cookie: a=b\"\n",
	  "w.yml:3:23: http_server_config.headers.X-XSS-Protection: a header "
	  "value must be non-empty, on one line" },
	{ "http_server_config:\n  headers:\n    X-Frame-Options: deny\n"
	  "    x-frame-options: deny\n",
	  "w.yml:4:5: http_server_config.headers: duplicate header" },
	{ "http_server_config:\n  headers: [a]\n",
	  "w.yml:2:12: http_server_config.headers: expected a mapping" },
	{ "http_server_config:\n  http3: true\n",
	  "w.yml:2:3: http_server_config.http3: unknown key" },
	{ "basic_auth_users:\n  alice: secret\n",
	  "w.yml:2:10: basic_auth_users.alice: not a bcrypt hash" },
	{ "basic_auth_users:\n  alice: "
	  "$1$abcdefgh$0123456789012345678901\n",
	  "w.yml:2:10: basic_auth_users.alice: not a bcrypt hash" },
	{ "basic_auth_users:\n  \"al:ice\": x\n",
	  "w.yml:2:3: basic_auth_users: a user name must be a non-empty "
	  "string without ':'" },
	{ "basic_auth_users: [alice]\n",
	  "w.yml:1:19: basic_auth_users: expected a mapping of user" },
	{ "rate_limit: {interval: 1s, burst: 5}\n",
	  "w.yml:1:13: rate_limit: not supported by fabmond" },
	{ "[1, 2]\n", "w.yml:1:1: " },
	{ "basic_auth_users:\n  a: &x b\n", "w.yml:2:6: " },
};

START_TEST(test_bad_files_name_line_col_and_key)
{
	const struct bad *b = &bad_files[_i];
	char err[512] = "";
	struct webcfg *w = load(b->text, err, sizeof err);
	ck_assert_msg(!w, "accepted:\n%s", b->text);
	ck_assert_msg(strstr(err, b->want), "for:\n%s\nwant: %s\ngot:  %s",
		      b->text, b->want, err);
}
END_TEST

START_TEST(test_bcrypt_shape_is_checked)
{
	char err[512] = "";
	/* A real hash with one character cut, or its cost made 03. */
	char cut[128], cost[128];
	snprintf(cut, sizeof cut, "%.*s", (int)strlen(pki.alice) - 1,
		 pki.alice);
	snprintf(cost, sizeof cost, "%s", pki.alice);
	cost[4] = '0';
	cost[5] = '3';
	const char *hashes[] = { cut, cost };
	for (size_t i = 0; i < 2; i++) {
		char *text =
		    with_hash("basic_auth_users:\n  alice: '%s'\n", hashes[i]);
		struct webcfg *w = load(text, err, sizeof err);
		ck_assert_msg(!w, "accepted %s", hashes[i]);
		ck_assert_ptr_nonnull(strstr(err, "w.yml:2:10: "
						  "basic_auth_users.alice: "
						  "not a bcrypt hash"));
		free(text);
	}
}
END_TEST

START_TEST(test_load_reads_files_relative_to_the_web_config)
{
	char path[300], err[512] = "";
	snprintf(path, sizeof path, "%s/web.yml", pki.dir);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("tls_server_config:\n  cert_file: server.crt\n"
	      "  key_file: server.key\n",
	      f);
	fclose(f);
	/* From another working directory. */
	char cwd[300];
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
	ck_assert_int_eq(chdir("/"), 0);
	struct webcfg *w = webcfg_load(path, err, sizeof err);
	ck_assert_int_eq(chdir(cwd), 0);
	ck_assert_msg(w, "%s", err);
	ck_assert(w->tls);
	ck_assert_str_eq(w->path, path);
	webcfg_free(w);
	unlink(path);

	/* A FIFO is refused without blocking; a missing file is named. */
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ck_assert_ptr_null(webcfg_load(path, err, sizeof err));
	ck_assert_msg(strstr(err, "not a regular file (fifo)"), "%s", err);
	unlink(path);
	ck_assert_ptr_null(webcfg_load(path, err, sizeof err));
	ck_assert_msg(strstr(err, "cannot open"), "%s", err);
}
END_TEST

static struct webcfg *two_users(void)
{
	char err[512] = "", *text = NULL;
	ck_assert_int_ge(asprintf(&text,
				  "basic_auth_users:\n"
				  "  alice: %s\n"
				  "  bob: %s\n",
				  pki.alice, pki.bob),
			 0);
	struct webcfg *w = load(text, err, sizeof err);
	ck_assert_msg(w, "%s", err);
	free(text);
	return w;
}

START_TEST(test_auth_checks_bcrypt_and_remembers_successes)
{
	struct webcfg *w = two_users();
	struct http_auth *a = http_auth_new(w);
	ck_assert_ptr_nonnull(a);
	unsigned long bc, hits;

	ck_assert(http_auth_check(a, "alice", "alice-pw"));
	ck_assert(http_auth_check(a, "bob", "bob-pw"));
	http_auth_counts(a, &bc, &hits);
	ck_assert_uint_eq(bc, 2);
	ck_assert_uint_eq(hits, 0);
	/* Again: from the table, no bcrypt. */
	for (int i = 0; i < 5; i++)
		ck_assert(http_auth_check(a, "alice", "alice-pw"));
	http_auth_counts(a, &bc, &hits);
	ck_assert_uint_eq(bc, 2);
	ck_assert_uint_eq(hits, 5);

	/* Wrong passwords, the other user's password, an unknown user and
	 * no credentials: refused; all but the last cost a bcrypt. */
	ck_assert(!http_auth_check(a, "alice", "alice-pw "));
	ck_assert(!http_auth_check(a, "alice", "bob-pw"));
	ck_assert(!http_auth_check(a, "carol", "alice-pw"));
	ck_assert(!http_auth_check(a, "alice", ""));
	ck_assert(!http_auth_check(a, NULL, NULL));
	ck_assert(!http_auth_check(a, "alice", NULL));
	http_auth_counts(a, &bc, &hits);
	ck_assert_uint_eq(bc, 6);
	ck_assert_uint_eq(hits, 5);
	http_auth_free(a);
	webcfg_free(w);

	/* No users: no checker, and a NULL checker lets everyone in. */
	char err[256];
	struct webcfg *none = load("", err, sizeof err);
	ck_assert_ptr_null(http_auth_new(none));
	ck_assert(http_auth_check(NULL, NULL, NULL));
	webcfg_free(none);
}
END_TEST

/* A bcrypt hash of pass at cost 4 (fast), made with libxcrypt. */
static void cheap_hash(const char *pass, char *out, size_t len)
{
	char salt[64];
	struct crypt_data cd;
	memset(&cd, 0, sizeof cd);
	ck_assert_ptr_nonnull(
	    crypt_gensalt_rn("$2b$", 4, NULL, 0, salt, sizeof salt));
	const char *h = crypt_rn(pass, salt, &cd, sizeof cd);
	ck_assert_ptr_nonnull(h);
	snprintf(out, len, "%s", h);
}

START_TEST(test_auth_table_is_bounded)
{
	/* One user more than the table holds, each with its password. */
	enum { N = HTTP_AUTH_CACHE + 1 };
	char *text = NULL, hash[128], err[512] = "";
	size_t cap = 0;
	FILE *m = open_memstream(&text, &cap);
	fputs("basic_auth_users:\n", m);
	for (int i = 0; i < N; i++) {
		char pw[32];
		snprintf(pw, sizeof pw, "pw%d", i);
		cheap_hash(pw, hash, sizeof hash);
		fprintf(m, "  u%d: '%s'\n", i, hash);
	}
	fclose(m);
	struct webcfg *w = load(text, err, sizeof err);
	ck_assert_msg(w, "%s", err);
	free(text);
	struct http_auth *a = http_auth_new(w);
	unsigned long bc, hits;
	char user[32], pw[32];
	for (int i = 0; i < N; i++) {
		snprintf(user, sizeof user, "u%d", i);
		snprintf(pw, sizeof pw, "pw%d", i);
		ck_assert(http_auth_check(a, user, pw));
	}
	http_auth_counts(a, &bc, &hits);
	ck_assert_uint_eq(bc, N);
	/* The newest is remembered, the oldest was replaced. */
	ck_assert(http_auth_check(a, "u64", "pw64"));
	http_auth_counts(a, &bc, &hits);
	ck_assert_uint_eq(bc, N);
	ck_assert_uint_eq(hits, 1);
	ck_assert(http_auth_check(a, "u0", "pw0"));
	http_auth_counts(a, &bc, &hits);
	ck_assert_uint_eq(bc, N + 1);
	ck_assert_uint_eq(hits, 1);
	/* A failure is not remembered: it costs a bcrypt every time. */
	ck_assert(!http_auth_check(a, "u1", "nope"));
	ck_assert(!http_auth_check(a, "u1", "nope"));
	http_auth_counts(a, &bc, &hits);
	ck_assert_uint_eq(bc, N + 3);
	http_auth_free(a);
	webcfg_free(w);
}
END_TEST

static Suite *web_config_suite(void)
{
	Suite *s = suite_create("web_config");
	TCase *tc = tcase_create("parse");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_full_config_reads_every_key);
	tcase_add_test(tc, test_defaults_and_plain_files);
	tcase_add_test(tc, test_inline_pem_and_tls10);
	tcase_add_loop_test(tc, test_bad_files_name_line_col_and_key, 0,
			    (int)(sizeof bad_files / sizeof bad_files[0]));
	tcase_add_test(tc, test_bcrypt_shape_is_checked);
	tcase_add_test(tc, test_load_reads_files_relative_to_the_web_config);
	suite_add_tcase(s, tc);
	TCase *ta = tcase_create("auth");
	tcase_set_timeout(ta, 60);
	tcase_add_test(ta, test_auth_checks_bcrypt_and_remembers_successes);
	tcase_add_test(ta, test_auth_table_is_bounded);
	suite_add_tcase(s, ta);
	return s;
}

int main(void)
{
	if (web_pki_make(&pki) < 0) {
		web_pki_remove(&pki);
		return 99; /* a hard error: the tools are in install-deps */
	}
	SRunner *sr = srunner_create(web_config_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	web_pki_remove(&pki);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/*
 * check_https: the HTTP server with a web config, over real TLS on
 * 127.0.0.1 with libcurl (OpenSSL underneath, so GnuTLS on the server
 * meets another implementation). Certificates and bcrypt hashes are made
 * at run time (web_pki.h). Basic auth (right, wrong, unknown, missing),
 * the challenge, the configured headers, /healthz without auth, plain
 * HTTP to the TLS port, each client_auth_type with no, a rogue and a
 * CA-signed client certificate, and reloads: users swapped, a new
 * certificate on the same port, back to plain HTTP. Every server is
 * stopped.
 */
#include "config.h"

#include "health.h"
#include "http.h"
#include "store.h"
#include "webcfg.h"

#include "web_pki.h"

#include <arpa/inet.h>
#include <check.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static struct web_pki pki;
static struct store *st;
static struct health *hl;
static struct http_server *srv;
static unsigned port;

/* A web config file of the text (a printf format), loaded. */
__attribute__((format(printf, 1, 2))) static struct webcfg *web(const char *fmt,
								...)
{
	char path[300], err[512] = "";
	snprintf(path, sizeof path, "%s/web.yml", pki.dir);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	ck_assert_int_eq(fclose(f), 0);
	struct webcfg *w = webcfg_load(path, err, sizeof err);
	ck_assert_msg(w, "%s", err);
	return w;
}

static void start(struct webcfg *w)
{
	char err[256] = "";
	st = store_new(NULL);
	hl = health_new();
	struct http_opts ho = { .threads = 2, .max_connections = 32 };
	srv = http_new(st, hl, &ho);
	http_set_web(srv, w);
	ck_assert_int_eq(
	    http_add_listener(srv, "127.0.0.1", "0", err, sizeof err), 0);
	ck_assert_msg(http_start(srv, err, sizeof err) == 0, "%s", err);
	port = http_listener_port(srv, 0);
}

static void teardown(void)
{
	http_free(srv);
	srv = NULL;
	health_free(hl);
	store_free(st);
}

struct req {
	const char *scheme; /* NULL: https */
	const char *path;   /* NULL: /metrics */
	const char *ca;	    /* file in the PKI dir; NULL: ca.crt */
	const char *cert;   /* client certificate and key base name */
	const char *user;   /* "user:password" */
};

struct resp {
	CURLcode rc;
	long status;
	char head[4096];
	size_t hlen;
	char body[256]; /* the start of it */
	size_t blen;
};

static size_t on_head(char *p, size_t size, size_t n, void *ud)
{
	struct resp *r = ud;
	size_t len = size * n;
	size_t room = sizeof r->head - 1 - r->hlen;
	size_t k = len < room ? len : room;
	memcpy(r->head + r->hlen, p, k);
	r->hlen += k;
	r->head[r->hlen] = '\0';
	return len;
}

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
	struct resp *r = ud;
	size_t len = size * n;
	size_t room = sizeof r->body - 1 - r->blen;
	size_t k = len < room ? len : room;
	memcpy(r->body + r->blen, p, k);
	r->blen += k;
	r->body[r->blen] = '\0';
	return len;
}

static void get(const struct req *q, struct resp *r)
{
	char url[256], ca[300], cert[300], key[300];
	memset(r, 0, sizeof *r);
	snprintf(url, sizeof url, "%s://127.0.0.1:%u%s",
		 q->scheme ? q->scheme : "https", port,
		 q->path ? q->path : "/metrics");
	snprintf(ca, sizeof ca, "%s/%s", pki.dir, q->ca ? q->ca : "ca.crt");
	CURL *c = curl_easy_init();
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CAINFO, ca);
	curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_head);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
	if (q->cert) {
		snprintf(cert, sizeof cert, "%s/%s.crt", pki.dir, q->cert);
		snprintf(key, sizeof key, "%s/%s.key", pki.dir, q->cert);
		curl_easy_setopt(c, CURLOPT_SSLCERT, cert);
		curl_easy_setopt(c, CURLOPT_SSLKEY, key);
	}
	if (q->user) {
		curl_easy_setopt(c, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
		curl_easy_setopt(c, CURLOPT_USERPWD, q->user);
	}
	r->rc = curl_easy_perform(c);
	if (r->rc == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
	curl_easy_cleanup(c);
}

/* The status of a request that must complete. */
static long status_of(const struct req *q, struct resp *r)
{
	get(q, r);
	ck_assert_msg(r->rc == CURLE_OK, "%s: %s", q->path ? q->path : "",
		      curl_easy_strerror(r->rc));
	return r->status;
}

/* A request that must not be answered (the handshake fails). */
static void refused(const struct req *q)
{
	struct resp r;
	get(q, &r);
	ck_assert_msg(r.rc != CURLE_OK, "answered %ld: %s", r.status, r.body);
	ck_assert_uint_eq(r.blen, 0);
}

START_TEST(test_basic_auth_and_headers)
{
	start(web("tls_server_config:\n"
		  "  cert_file: server.crt\n"
		  "  key_file: server.key\n"
		  "http_server_config:\n"
		  "  headers:\n"
		  "    X-Frame-Options: deny\n"
		  "    X-Content-Type-Options: nosniff\n"
		  "basic_auth_users:\n"
		  "  alice: %s\n"
		  "  bob: %s\n",
		  pki.alice, pki.bob));
	struct resp r;
	ck_assert_int_eq(
	    status_of(&(struct req){ .user = "alice:alice-pw" }, &r), 200);
	ck_assert_ptr_nonnull(strstr(r.body, "# HELP"));
	ck_assert_ptr_nonnull(strstr(r.head, "X-Frame-Options: deny\r\n"));
	ck_assert_ptr_nonnull(
	    strstr(r.head, "X-Content-Type-Options: nosniff\r\n"));
	ck_assert_int_eq(status_of(&(struct req){ .user = "bob:bob-pw" }, &r),
			 200);

	const char *bad[] = { "alice:bob-pw", "alice:", "carol:alice-pw",
			      NULL };
	for (size_t i = 0; i < 4; i++) {
		ck_assert_int_eq(status_of(&(struct req){ .user = bad[i] }, &r),
				 401);
		ck_assert_ptr_nonnull(
		    strstr(r.head, "WWW-Authenticate: Basic realm=\"fabmon\""));
		ck_assert_ptr_nonnull(strstr(r.head, "X-Frame-Options: deny"));
		ck_assert_ptr_null(strstr(r.body, "# HELP"));
	}
	/* The API too, with a JSON error. */
	ck_assert_int_eq(
	    status_of(&(struct req){ .path = "/api/v1/targets" }, &r), 401);
	ck_assert_ptr_nonnull(strstr(r.body, "unauthorized"));
	ck_assert_int_eq(status_of(&(struct req){ .path = "/api/v1/targets",
						  .user = "bob:bob-pw" },
				   &r),
			 200);
	/* /healthz needs no password (liveness probes). */
	ck_assert_int_eq(status_of(&(struct req){ .path = "/healthz" }, &r),
			 200);
	ck_assert_str_eq(r.body, "ok\n");
	ck_assert_ptr_nonnull(strstr(r.head, "X-Frame-Options: deny"));
	/* A CA that did not sign the server's certificate: curl refuses. */
	refused(&(struct req){ .ca = "ca2.crt", .user = "alice:alice-pw" });
	teardown();
}
END_TEST

START_TEST(test_plain_http_to_the_tls_port_gets_nothing)
{
	start(web("tls_server_config:\n"
		  "  cert_file: server.crt\n"
		  "  key_file: server.key\n"));
	refused(&(struct req){ .scheme = "http", .path = "/healthz" });
	/* A raw request: no HTTP answer comes back, the connection ends. */
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
	const char rq[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
	ck_assert_int_eq(send(fd, rq, sizeof rq - 1, 0), (int)sizeof rq - 1);
	char buf[512];
	size_t got = 0;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	while (got < sizeof buf - 1 && poll(&p, 1, 20000) == 1) {
		ssize_t n = recv(fd, buf + got, sizeof buf - 1 - got, 0);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	close(fd);
	ck_assert_msg(!strstr(buf, "HTTP/1.") && !strstr(buf, "HELP"),
		      "plain answer: %s", buf);
	teardown();
}
END_TEST

/* The web config with client_auth_type t (and the CA when given). */
static struct webcfg *client_auth(const char *t, bool ca)
{
	return web("tls_server_config:\n"
		   "  cert_file: server.crt\n"
		   "  key_file: server.key\n"
		   "  client_auth_type: %s\n%s",
		   t, ca ? "  client_ca_file: ca.crt\n" : "");
}

START_TEST(test_require_and_verify_client_cert)
{
	start(client_auth("RequireAndVerifyClientCert", true));
	struct resp r;
	refused(&(struct req){ 0 });
	refused(&(struct req){ .cert = "rogue" });
	ck_assert_int_eq(status_of(&(struct req){ .cert = "client" }, &r), 200);
	teardown();
}
END_TEST

START_TEST(test_require_any_client_cert)
{
	start(client_auth("RequireAnyClientCert", false));
	struct resp r;
	refused(&(struct req){ 0 });
	ck_assert_int_eq(status_of(&(struct req){ .cert = "rogue" }, &r), 200);
	ck_assert_int_eq(status_of(&(struct req){ .cert = "client" }, &r), 200);
	teardown();
}
END_TEST

START_TEST(test_verify_client_cert_if_given)
{
	start(client_auth("VerifyClientCertIfGiven", true));
	struct resp r;
	ck_assert_int_eq(status_of(&(struct req){ 0 }, &r), 200);
	refused(&(struct req){ .cert = "rogue" });
	ck_assert_int_eq(status_of(&(struct req){ .cert = "client" }, &r), 200);
	teardown();
}
END_TEST

START_TEST(test_request_client_cert)
{
	start(client_auth("RequestClientCert", false));
	struct resp r;
	ck_assert_int_eq(status_of(&(struct req){ 0 }, &r), 200);
	ck_assert_int_eq(status_of(&(struct req){ .cert = "rogue" }, &r), 200);
	teardown();
}
END_TEST

/* A TLS web config with one user. */
static struct webcfg *one_user(const char *user, const char *hash)
{
	return web("tls_server_config:\n"
		   "  cert_file: server.crt\n"
		   "  key_file: server.key\n"
		   "basic_auth_users:\n"
		   "  %s: %s\n",
		   user, hash);
}

START_TEST(test_reload_swaps_users)
{
	start(one_user("alice", pki.alice));
	struct resp r;
	ck_assert_int_eq(
	    status_of(&(struct req){ .user = "alice:alice-pw" }, &r), 200);
	ck_assert_int_eq(status_of(&(struct req){ .user = "bob:bob-pw" }, &r),
			 401);
	char err[256] = "";
	ck_assert_int_eq(
	    http_reload_web(srv, one_user("bob", pki.bob), err, sizeof err), 0);
	ck_assert_uint_eq(http_listener_port(srv, 0), port);
	ck_assert_int_eq(
	    status_of(&(struct req){ .user = "alice:alice-pw" }, &r), 401);
	ck_assert_int_eq(status_of(&(struct req){ .user = "bob:bob-pw" }, &r),
			 200);
	teardown();
}
END_TEST

START_TEST(test_reload_swaps_the_certificate_and_tls_off)
{
	start(web("tls_server_config:\n"
		  "  cert_file: server.crt\n"
		  "  key_file: server.key\n"));
	struct resp r;
	ck_assert_int_eq(status_of(&(struct req){ .path = "/healthz" }, &r),
			 200);
	/* A new certificate (another CA) on the same port. */
	char err[256] = "";
	ck_assert_int_eq(http_reload_web(srv,
					 web("tls_server_config:\n"
					     "  cert_file: server2.crt\n"
					     "  key_file: server2.key\n"),
					 err, sizeof err),
			 0);
	ck_assert_int_eq(
	    status_of(&(struct req){ .path = "/healthz", .ca = "ca2.crt" }, &r),
	    200);
	refused(&(struct req){ .path = "/healthz" });
	/* Back to plain HTTP. */
	ck_assert_int_eq(http_reload_web(srv, NULL, err, sizeof err), 0);
	ck_assert_int_eq(
	    status_of(&(struct req){ .scheme = "http", .path = "/healthz" },
		      &r),
	    200);
	refused(&(struct req){ .path = "/healthz", .ca = "ca2.crt" });
	teardown();
}
END_TEST

START_TEST(test_tls_versions_are_enforced)
{
	start(web("tls_server_config:\n"
		  "  cert_file: server.crt\n"
		  "  key_file: server.key\n"
		  "  max_version: TLS12\n"));
	char url[128], ca[300];
	snprintf(url, sizeof url, "https://127.0.0.1:%u/healthz", port);
	snprintf(ca, sizeof ca, "%s/ca.crt", pki.dir);
	long versions[] = { CURL_SSLVERSION_TLSv1_2, CURL_SSLVERSION_TLSv1_3 };
	CURLcode want[] = { CURLE_OK, CURLE_SSL_CONNECT_ERROR };
	for (size_t i = 0; i < 2; i++) {
		CURL *c = curl_easy_init();
		struct resp r = { 0 };
		curl_easy_setopt(c, CURLOPT_URL, url);
		curl_easy_setopt(c, CURLOPT_CAINFO, ca);
		curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
		curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
		curl_easy_setopt(c, CURLOPT_WRITEDATA, &r);
		curl_easy_setopt(c, CURLOPT_SSLVERSION, versions[i]);
		CURLcode rc = curl_easy_perform(c);
		curl_easy_cleanup(c);
		if (want[i] == CURLE_OK)
			ck_assert_msg(rc == CURLE_OK, "%s",
				      curl_easy_strerror(rc));
		else
			ck_assert_msg(rc != CURLE_OK, "TLS 1.3 got through");
	}
	teardown();
}
END_TEST

static Suite *https_suite(void)
{
	Suite *s = suite_create("https");
	TCase *tc = tcase_create("https");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_basic_auth_and_headers);
	tcase_add_test(tc, test_plain_http_to_the_tls_port_gets_nothing);
	tcase_add_test(tc, test_require_and_verify_client_cert);
	tcase_add_test(tc, test_require_any_client_cert);
	tcase_add_test(tc, test_verify_client_cert_if_given);
	tcase_add_test(tc, test_request_client_cert);
	tcase_add_test(tc, test_reload_swaps_users);
	tcase_add_test(tc, test_reload_swaps_the_certificate_and_tls_off);
	tcase_add_test(tc, test_tls_versions_are_enforced);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
	if (web_pki_make(&pki) < 0) {
		web_pki_remove(&pki);
		return 99;
	}
	SRunner *sr = srunner_create(https_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	web_pki_remove(&pki);
	curl_global_cleanup();
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

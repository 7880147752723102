/*
 * http: the HTTP server (see http.h).
 *
 * Routing compares exact paths (no prefixes, no trailing slash). Every
 * response is built in a buffer owned by the request and handed to MHD
 * with MHD_RESPMEM_MUST_FREE, so MHD frees it once sent and concurrent
 * requests share nothing but the store and the registry. The only state
 * shared between requests is two atomics: the duration of the previous
 * /metrics response and the last successful config load seen, which the
 * registry forgets when a later reload fails. Connections (not requests)
 * share the header guard's list, under its own lock (http_guard.h), and
 * MHD's log lines share a rate limit under another.
 *
 * Threading and ownership: see http.h.
 */
#include "config.h"

#include "http.h"

#include "alert.h"
#include "api.h"
#include "buf.h"
#include "clock.h"
#include "expfmt.h"
#include "health.h"
#include "home.h"
#include "http_auth.h"
#include "http_guard.h"
#include "incidents.h"
#include "log.h"
#include "mem.h"
#include "procstat.h"
#include "prom.h"
#include "units.h"
#include "webcfg.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <gnutls/gnutls.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/*
 * Internal poll() threads, not epoll. MHD 0.9.75 watches a connection
 * edge-triggered under MHD_USE_EPOLL and, after a recv() shorter than
 * its buffer, takes the socket for drained. A client whose partial
 * request and FIN arrive in one segment train (send half a request,
 * close) leaves its EOF unread: no new edge comes, the connection sits
 * in CLOSE_WAIT holding a slot until the idle timeout. Four such
 * clients against max_connections 4 held /healthz 29.96 s in epoll mode
 * and 0.00 s in poll mode, which sees the pending EOF on its next call
 * (level-triggered). poll() costs O(connections) per wake-up, which at
 * our limits (hundreds of sockets per pool thread) is small. MHD_USE_ITC
 * gives each thread a wake-up channel: without it MHD_stop_daemon cannot
 * interrupt a thread that stopped polling the listening socket (at the
 * connection limit) and waits for the idle timeout before returning.
 */
#define HTTP_MHD_FLAGS \
	(MHD_USE_POLL_INTERNAL_THREAD | MHD_USE_ITC | MHD_USE_ERROR_LOG)

/* Query parameters accepted per request; more is a 400. */
#define HTTP_MAX_PARAMS 32
/* zlib level for /metrics: level 1 is several times faster than the
 * default and exposition text still shrinks about tenfold. */
#define HTTP_GZIP_LEVEL 1

/* The realm of the basic auth challenge. */
#define HTTP_REALM "fabmon"

/*
 * One web config in use: what requests check and add (users, headers)
 * and what a listener's daemon was started with (TLS). Counted: the
 * server holds the current one, each running daemon the one it was
 * started with, each request in the handler the one it began with; the
 * last to let go frees it.
 */
struct http_web {
	struct http_server *s;
	struct webcfg *cfg; /* NULL: plain HTTP, no auth, no headers */
	struct http_auth *auth;
	unsigned refs; /* under s->web_lock */
};

struct http_listener {
	/* Ours until http_free: each daemon gets a duplicate, so a new
	 * daemon can take over the socket on a TLS reload. */
	int fd;
	unsigned port;
	char *name; /* "host:port" as bound, for messages */
	struct MHD_Daemon *daemon;
	struct http_web *web; /* the daemon's (counted); NULL: none */
};

/* What a reply needs of its request. */
struct req {
	struct MHD_Connection *conn;
	const struct http_web *web;
};

struct http_server {
	struct store *st;
	struct health *h;
	struct rules *rules; /* NULL: no engine */
	struct links *links;
	struct report *report;		 /* NULL: none */
	struct alert_meter *alert_meter; /* NULL: none */
	struct ident_table *ident;	 /* NULL: none */
	pthread_mutex_t web_lock;	 /* refs of the webs, the web swap */
	struct http_web *web;		 /* current; never NULL */
	unsigned threads;
	unsigned max_connections;
	unsigned max_per_client;
	int64_t header_timeout_ns;
	struct http_guard *guard; /* from http_start */
	struct http_listener *ls;
	size_t n_ls;
	bool started;
	/* Duration of the previous /metrics response in ns; -1: none. */
	_Atomic int64_t last_render_ns;
	/* MHD's log lines: a token bucket (http_log), under log_lock. */
	pthread_mutex_t log_lock;
	double log_tokens;
	int64_t log_at_ns;
	uint64_t log_dropped;
	/* Realtime ns of the last successful config load seen; 0: none. */
};

enum http_route {
	HTTP_R_NONE,
	HTTP_R_HOME,
	HTTP_R_METRICS,
	HTTP_R_HEALTHZ,
	HTTP_R_API,
};

struct http_server *http_new(struct store *st, struct health *h,
			     const struct http_opts *opts)
{
	struct http_server *s = xcalloc(1, sizeof *s);
	s->st = st;
	s->h = h;
	s->threads =
	    opts && opts->threads ? opts->threads : HTTP_DEFAULT_THREADS;
	s->max_connections = opts && opts->max_connections
				 ? opts->max_connections
				 : HTTP_DEFAULT_MAX_CONNECTIONS;
	s->max_per_client = opts && opts->max_per_client
				? opts->max_per_client
				: HTTP_DEFAULT_MAX_PER_CLIENT;
	s->header_timeout_ns = opts && opts->header_timeout_ns > 0
				   ? opts->header_timeout_ns
				   : HTTP_DEFAULT_HEADER_TIMEOUT_NS;
	atomic_init(&s->last_render_ns, -1);
	pthread_mutex_init(&s->web_lock, NULL);
	s->web = xcalloc(1, sizeof *s->web);
	s->web->s = s;
	s->web->refs = 1;
	pthread_mutex_init(&s->log_lock, NULL);
	s->log_tokens = HTTP_LOG_BURST;
	s->log_at_ns = mono_ns();
	return s;
}

/* A counted web for cfg (taken), with one reference. */
static struct http_web *web_new(struct http_server *s, struct webcfg *cfg)
{
	struct http_web *w = xcalloc(1, sizeof *w);
	w->s = s;
	w->cfg = cfg;
	w->auth = http_auth_new(cfg);
	w->refs = 1;
	return w;
}

/* The current web, counted. */
static struct http_web *web_get(struct http_server *s)
{
	pthread_mutex_lock(&s->web_lock);
	struct http_web *w = s->web;
	w->refs++;
	pthread_mutex_unlock(&s->web_lock);
	return w;
}

static struct http_web *web_ref(struct http_web *w)
{
	pthread_mutex_lock(&w->s->web_lock);
	w->refs++;
	pthread_mutex_unlock(&w->s->web_lock);
	return w;
}

static void web_put(struct http_web *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->s->web_lock);
	bool last = --w->refs == 0;
	pthread_mutex_unlock(&w->s->web_lock);
	if (last) {
		http_auth_free(w->auth);
		webcfg_free(w->cfg);
		free(w);
	}
}

static void format_addr(const struct sockaddr *sa, char *out, size_t len)
{
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned port = 0;
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const void *)sa;
		inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
		port = ntohs(a->sin6_port);
		snprintf(out, len, "[%s]:%u", host, port);
	} else {
		const struct sockaddr_in *a = (const void *)sa;
		inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
		port = ntohs(a->sin_port);
		snprintf(out, len, "%s:%u", host, port);
	}
}

/* A listening socket on ai, or -errno. any: the wildcard address. */
static int open_listener(const struct addrinfo *ai, bool any)
{
	int fd = socket(ai->ai_family,
			ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
			ai->ai_protocol);
	if (fd < 0)
		return -errno;
	int one = 1, v6only = any ? 0 : 1;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0)
		goto fail;
	/* The wildcard [::] also takes IPv4 (mapped); a literal IPv6
	 * address takes only itself, whatever the sysctl default. */
	if (ai->ai_family == AF_INET6 &&
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof v6only) <
		0)
		goto fail;
	if (bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 ||
	    listen(fd, SOMAXCONN) < 0)
		goto fail;
	return fd;
fail:;
	int e = errno;
	close(fd);
	return -e;
}

int http_add_listener(struct http_server *s, const char *host, const char *port,
		      char *err, size_t errlen)
{
	bool any = !host || !*host;
	const char *shown = any ? "*" : host;
	if (s->started) {
		snprintf(err, errlen, "%s:%s: server already started", shown,
			 port);
		return -EBUSY;
	}
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE };
	struct addrinfo *res = NULL;
	int gr = getaddrinfo(any ? NULL : host, port, &hints, &res);
	if (gr != 0) {
		int rc = gr == EAI_SYSTEM ? -errno : -EINVAL;
		snprintf(err, errlen, "%s:%s: %s", shown, port,
			 gr == EAI_SYSTEM ? strerror(errno) : gai_strerror(gr));
		return rc;
	}
	int fd = -EADDRNOTAVAIL;
	/* For the wildcard try IPv6 first: one dual-stack socket serves
	 * both families. Otherwise take the resolver's order. */
	for (int pass = any ? 0 : 1; pass < 2 && fd < 0; pass++) {
		for (const struct addrinfo *ai = res; ai; ai = ai->ai_next) {
			if (pass == 0 && ai->ai_family != AF_INET6)
				continue;
			if (ai->ai_family != AF_INET &&
			    ai->ai_family != AF_INET6)
				continue;
			fd = open_listener(ai, any);
			if (fd >= 0)
				break;
		}
	}
	if (fd < 0) {
		snprintf(err, errlen, "cannot listen on %s:%s: %s", shown, port,
			 strerror(-fd));
		freeaddrinfo(res);
		return fd;
	}
	freeaddrinfo(res);

	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) < 0) {
		int e = errno;
		snprintf(err, errlen, "%s:%s: getsockname: %s", shown, port,
			 strerror(e));
		close(fd);
		return -e;
	}
	char name[INET6_ADDRSTRLEN + 16];
	format_addr((const struct sockaddr *)&ss, name, sizeof name);

	s->ls = xreallocarray(s->ls, s->n_ls + 1, sizeof *s->ls);
	struct http_listener *l = &s->ls[s->n_ls++];
	l->fd = fd;
	l->port = ss.ss_family == AF_INET6
		      ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
		      : ntohs(((struct sockaddr_in *)&ss)->sin_port);
	l->name = xstrdup(name);
	l->daemon = NULL;
	l->web = NULL;
	return 0;
}

size_t http_listener_count(const struct http_server *s)
{
	return s->n_ls;
}

unsigned http_listener_port(const struct http_server *s, size_t i)
{
	return i < s->n_ls ? s->ls[i].port : 0;
}

/*
 * MHD logs every connection it refuses or loses, so a flood of
 * connections (a slowloris, a client over its per-address limit) would
 * write a line per connection: the fault suite's 8 s slowloris wrote
 * 10,000. Its lines pass HTTP_LOG_BURST at once and then one a second
 * (a token bucket); the next line that passes says how many were
 * dropped meanwhile.
 */
__attribute__((format(printf, 2, 0))) static void
http_log(void *cls, const char *fmt, va_list ap)
{
	struct http_server *s = cls;
	int64_t now = mono_ns();
	uint64_t dropped = 0;
	bool pass = false;
	pthread_mutex_lock(&s->log_lock);
	s->log_tokens += (double)(now - s->log_at_ns) / 1e9;
	if (s->log_tokens > HTTP_LOG_BURST)
		s->log_tokens = HTTP_LOG_BURST;
	s->log_at_ns = now;
	if (s->log_tokens >= 1) {
		s->log_tokens -= 1;
		dropped = s->log_dropped;
		s->log_dropped = 0;
		pass = true;
	} else {
		s->log_dropped++;
	}
	pthread_mutex_unlock(&s->log_lock);
	if (!pass)
		return;
	char *msg = xvasprintf(fmt, ap);
	size_t n = strlen(msg);
	while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == '\r'))
		msg[--n] = '\0';
	if (dropped)
		log_warn("http",
			 "%s (%llu more server messages dropped before "
			 "this one)",
			 msg, (unsigned long long)dropped);
	else
		log_warn("http", "%s", msg);
	free(msg);
}

static bool is_ows(char c)
{
	return c == ' ' || c == '\t';
}

/* [p, end) without surrounding optional whitespace (spaces, tabs). */
static void trim(const char **p, const char **end)
{
	while (*p < *end && is_ows(**p))
		(*p)++;
	while (*end > *p && is_ows((*end)[-1]))
		(*end)--;
}

static bool token_is(const char *p, const char *end, const char *word)
{
	size_t n = strlen(word);
	return (size_t)(end - p) == n && strncasecmp(p, word, n) == 0;
}

/* The q of one "coding;param;..." element: 0 if q is zero (0, 0.0,
 * 0.00, 0.000), 1 otherwise (a missing or malformed q means accept). */
static int element_q(const char *p, const char *end)
{
	while ((p = memchr(p, ';', (size_t)(end - p)))) {
		p++;
		const char *ps = p;
		const char *pe = memchr(p, ';', (size_t)(end - p));
		if (!pe)
			pe = end;
		const char *eq = memchr(ps, '=', (size_t)(pe - ps));
		if (eq) {
			const char *ks = ps, *ke = eq, *vs = eq + 1, *ve = pe;
			trim(&ks, &ke);
			trim(&vs, &ve);
			if (token_is(ks, ke, "q")) {
				if (vs == ve)
					return 1;
				for (const char *c = vs; c < ve; c++)
					if (*c != '0' && *c != '.')
						return 1;
				return 0;
			}
		}
		p = pe;
	}
	return 1;
}

bool http_accepts_gzip(const char *ae)
{
	if (!ae)
		return false;
	int gzip = -1, star = -1;
	const char *p = ae;
	while (*p) {
		const char *end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		const char *cs = p;
		const char *ce = memchr(p, ';', (size_t)(end - p));
		if (!ce)
			ce = end;
		trim(&cs, &ce);
		if (token_is(cs, ce, "gzip") || token_is(cs, ce, "x-gzip"))
			gzip = element_q(p, end);
		else if (token_is(cs, ce, "*"))
			star = element_q(p, end);
		p = *end ? end + 1 : end;
	}
	return gzip >= 0 ? gzip > 0 : star > 0;
}

static enum http_route route(const char *url)
{
	if (strcmp(url, "/") == 0)
		return HTTP_R_HOME;
	if (strcmp(url, "/metrics") == 0)
		return HTTP_R_METRICS;
	if (strcmp(url, "/healthz") == 0)
		return HTTP_R_HEALTHZ;
	if (api_path_known(url))
		return HTTP_R_API;
	return HTTP_R_NONE;
}

/* Sends body (taken: emptied) with status and headers: extra, a
 * NULL-terminated list of name, value pairs, and the web config's. */
static enum MHD_Result reply(const struct req *rq, unsigned status,
			     const char *ctype, struct buf *body,
			     const char *const *extra)
{
	size_t len = 0;
	char *data = buf_steal(body, &len);
	struct MHD_Response *resp;
	if (data) {
		resp = MHD_create_response_from_buffer(len, data,
						       MHD_RESPMEM_MUST_FREE);
		if (!resp)
			free(data);
	} else {
		static const char oom[] = "out of memory\n";
		status = MHD_HTTP_INTERNAL_SERVER_ERROR;
		ctype = "text/plain; charset=utf-8";
		extra = NULL;
		resp = MHD_create_response_from_buffer(
		    sizeof oom - 1, (void *)oom, MHD_RESPMEM_PERSISTENT);
	}
	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	for (const char *const *e = extra; e && e[0]; e += 2)
		MHD_add_response_header(resp, e[0], e[1]);
	const struct webcfg *wc = rq->web->cfg;
	for (size_t i = 0; wc && i < wc->n_headers; i++)
		MHD_add_response_header(resp, wc->headers[i].name,
					wc->headers[i].value);
	enum MHD_Result r = MHD_queue_response(rq->conn, status, resp);
	MHD_destroy_response(resp);
	return r;
}

static enum MHD_Result reply_text(const struct req *rq, unsigned status,
				  const char *text, const char *const *extra)
{
	struct buf b;
	buf_init(&b);
	buf_puts(&b, text);
	return reply(rq, status, "text/plain; charset=utf-8", &b, extra);
}

static enum MHD_Result reply_json_error(const struct req *rq, unsigned status,
					const char *reason,
					const char *const *extra)
{
	struct buf b;
	buf_init(&b);
	api_put_error(&b, reason);
	return reply(rq, status, API_CONTENT_TYPE, &b, extra);
}

static enum MHD_Result serve_metrics(struct http_server *s,
				     const struct req *rq)
{
	int64_t t0 = mono_ns();
	int64_t prev = atomic_load(&s->last_render_ns);
	enum expfmt f = expfmt_negotiate(MHD_lookup_connection_value(
	    rq->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT));
	struct procstat ps;
	struct prom_self self = {
		.scrape_duration_s = prev >= 0 ? (double)prev / 1e9 : -1,
		.ident = s->ident,
		.format = f,
		.process = procstat_read(NULL, &ps) == 0 ? &ps : NULL,
	};
	/* The engine and the pusher are made once, at fabmond's start. */
	double start_s = s->h ? (double)health_start_time_ns(s->h) / 1e9 : -1;
	struct buf text;
	buf_init(&text);
	int rc = prom_render(s->st, s->h, &self, &text);
	if (rc == 0 && s->rules)
		rc = incidents_prom_render(s->rules, f, start_s, &text);
	if (rc == 0 && s->alert_meter) {
		struct alert_meter_stats as;
		alert_meter_get(s->alert_meter, &as);
		rc = prom_render_alertmanager(&as, f, start_s, &text);
	}
	expfmt_put_eof(&text, f);
	if (rc == 0)
		rc = buf_error(&text);
	if (rc < 0) {
		buf_fini(&text);
		return reply_text(rq, MHD_HTTP_INTERNAL_SERVER_ERROR,
				  "cannot render metrics: out of memory\n",
				  NULL);
	}
	static const char *const plain_hdrs[] = { MHD_HTTP_HEADER_VARY,
						  "Accept, Accept-Encoding",
						  NULL };
	static const char *const gzip_hdrs[] = {
		MHD_HTTP_HEADER_VARY, "Accept, Accept-Encoding",
		MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip", NULL
	};
	const char *ae = MHD_lookup_connection_value(
	    rq->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING);
	if (!http_accepts_gzip(ae)) {
		atomic_store(&s->last_render_ns, mono_ns() - t0);
		return reply(rq, MHD_HTTP_OK, expfmt_content_type(f), &text,
			     plain_hdrs);
	}
	struct buf z;
	buf_init(&z);
	rc = buf_gzip(text.data, text.len, HTTP_GZIP_LEVEL, &z);
	buf_fini(&text);
	atomic_store(&s->last_render_ns, mono_ns() - t0);
	if (rc < 0) {
		buf_fini(&z);
		return reply_text(rq, MHD_HTTP_INTERNAL_SERVER_ERROR,
				  "cannot compress metrics\n", NULL);
	}
	return reply(rq, MHD_HTTP_OK, expfmt_content_type(f), &z, gzip_hdrs);
}

struct http_params {
	struct api_param v[HTTP_MAX_PARAMS];
	size_t n;
	bool overflow;
};

static enum MHD_Result collect_param(void *cls, enum MHD_ValueKind kind,
				     const char *key, const char *value)
{
	struct http_params *p = cls;
	if (p->n == HTTP_MAX_PARAMS) {
		p->overflow = true;
		return MHD_NO;
	}
	p->v[p->n].key = key;
	p->v[p->n].value = value;
	p->n++;
	return MHD_YES;
}

static enum MHD_Result serve_api(struct http_server *s, const struct req *rq,
				 const char *url)
{
	struct http_params params = { .n = 0 };
	MHD_get_connection_values(rq->conn, MHD_GET_ARGUMENT_KIND,
				  collect_param, &params);
	if (params.overflow)
		return reply_json_error(rq, MHD_HTTP_BAD_REQUEST,
					"too many query parameters", NULL);
	struct api_ctx ctx = {
		.st = s->st,
		.h = s->h,
		.rules = s->rules,
		.links = s->links,
		.ident = s->ident,
		.report = s->report,
	};
	struct buf b;
	buf_init(&b);
	int status = api_serve(&ctx, url, params.v, params.n, &b);
	if (status < 0) {
		buf_fini(&b);
		return reply_text(rq, MHD_HTTP_INTERNAL_SERVER_ERROR,
				  "out of memory\n", NULL);
	}
	static const char *const no_cache[] = { MHD_HTTP_HEADER_CACHE_CONTROL,
						"no-store", NULL };
	return reply(rq, (unsigned)status, API_CONTENT_TYPE, &b, no_cache);
}

/*
 * What *con_cls holds for a request: uri_seen sets one of the first two
 * before the handler's first call, which replaces it with the third.
 */
static char req_target_ok, req_target_nul, req_first_call_seen;

/*
 * MHD's URI log callback sees the request target as sent, before MHD
 * decodes it. A %00 decodes to a NUL that ends the C string MHD hands
 * the handler (the path, or a query value), so "/metrics%00" would be
 * served as "/metrics": remember it and answer 400 instead. Every
 * "%00" in the raw target decodes to a NUL and nothing else does (a
 * '%' is never part of a hex pair).
 */
static void *uri_seen(void *cls, const char *uri, struct MHD_Connection *conn)
{
	(void)cls;
	(void)conn;
	return strstr(uri, "%00") ? &req_target_nul : &req_target_ok;
}

/* MHD_OPTION_NOTIFY_COMPLETED: a request is over, its response sent
 * (or the connection lost). */
static void request_done(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct http_server *s = cls;
	(void)con_cls;
	(void)toe;
	http_guard_request_done(s->guard, conn);
}

/*
 * The client certificate, as the web config's client_auth_type asks.
 * The handshake already refused a missing or unverified one where
 * on_connection could tell GnuTLS to; this is the check that does not
 * depend on it.
 */
static bool client_cert_ok(struct MHD_Connection *conn, const struct webcfg *c)
{
	if (!c || !c->tls ||
	    (!webcfg_cert_required(c->client_auth) &&
	     !webcfg_cert_verified(c->client_auth)))
		return true;
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	if (!ci || !ci->tls_session)
		return false;
	gnutls_session_t ss = ci->tls_session;
	unsigned n = 0;
	if (!gnutls_certificate_get_peers(ss, &n) || n == 0)
		return !webcfg_cert_required(c->client_auth);
	if (!webcfg_cert_verified(c->client_auth))
		return true;
	unsigned status = 0;
	return gnutls_certificate_verify_peers2(ss, &status) == 0 &&
	       status == 0;
}

/* The basic auth credentials of the request, if the web config has
 * users. */
static bool credentials_ok(struct MHD_Connection *conn,
			   const struct http_web *w)
{
	if (!w->auth)
		return true;
	char *pass = NULL;
	char *user = MHD_basic_auth_get_username_password(conn, &pass);
	bool ok = http_auth_check(w->auth, user, pass);
	if (pass) {
		explicit_bzero(pass, strlen(pass));
		MHD_free(pass);
	}
	if (user)
		MHD_free(user);
	return ok;
}

/*
 * The gate in front of every route but /healthz: a client certificate
 * as required (403), then the basic auth credentials (401 with the
 * challenge). /healthz stays open so that a liveness probe needs no
 * password; it tells nothing but "ok" (see fabmon.yaml(5)).
 */
static enum MHD_Result gate(const struct req *rq, enum http_route r, bool api,
			    bool *passed)
{
	*passed = true;
	if (r == HTTP_R_HEALTHZ)
		return MHD_YES;
	if (!client_cert_ok(rq->conn, rq->web->cfg)) {
		*passed = false;
		return api ? reply_json_error(rq, MHD_HTTP_FORBIDDEN,
					      "client certificate required",
					      NULL)
			   : reply_text(rq, MHD_HTTP_FORBIDDEN,
					"client certificate required\n", NULL);
	}
	if (credentials_ok(rq->conn, rq->web))
		return MHD_YES;
	*passed = false;
	static const char *const challenge[] = {
		MHD_HTTP_HEADER_WWW_AUTHENTICATE,
		"Basic realm=\"" HTTP_REALM "\", charset=\"UTF-8\"", NULL
	};
	return api ? reply_json_error(rq, MHD_HTTP_UNAUTHORIZED, "unauthorized",
				      challenge)
		   : reply_text(rq, MHD_HTTP_UNAUTHORIZED, "unauthorized\n",
				challenge);
}

static enum MHD_Result handle_req(struct http_server *s, const struct req *rq,
				  const char *url, const char *method,
				  size_t *upload_data_size, void **con_cls)
{
	if (*con_cls != &req_first_call_seen)
		http_guard_headers_in(s->guard, rq->conn);
	if (*con_cls == &req_target_nul)
		return strncmp(url, "/api/", 5) == 0
			   ? reply_json_error(rq, MHD_HTTP_BAD_REQUEST,
					      "NUL in the request target", NULL)
			   : reply_text(rq, MHD_HTTP_BAD_REQUEST,
					"NUL in the request target\n", NULL);
	enum http_route r = route(url);
	bool api = strncmp(url, "/api/", 5) == 0;
	if (*con_cls != &req_first_call_seen) {
		bool passed;
		enum MHD_Result g = gate(rq, r, api, &passed);
		if (!passed)
			return g;
	}
	bool get = strcmp(method, MHD_HTTP_METHOD_GET) == 0 ||
		   strcmp(method, MHD_HTTP_METHOD_HEAD) == 0;

	if (!get) {
		/* Answered at once, before any request body is read; MHD
		 * then closes the connection instead of reading the body. */
		static const char *const allow[] = { MHD_HTTP_HEADER_ALLOW,
						     "GET, HEAD", NULL };
		if (r == HTTP_R_NONE)
			goto not_found;
		return api ? reply_json_error(rq, MHD_HTTP_METHOD_NOT_ALLOWED,
					      "method not allowed", allow)
			   : reply_text(rq, MHD_HTTP_METHOD_NOT_ALLOWED,
					"method not allowed\n", allow);
	}
	/* MHD calls once when the headers are in, then per piece of body,
	 * then once more. Answering on the first call makes MHD discard
	 * the request and close the connection; answering on the last
	 * keeps it alive for the next scrape. A GET body is ignored. */
	if (*con_cls != &req_first_call_seen) {
		*con_cls = &req_first_call_seen;
		return MHD_YES;
	}
	if (*upload_data_size) {
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (r == HTTP_R_NONE)
		goto not_found;
	switch (r) {
	case HTTP_R_HOME: {
		struct buf b;
		buf_init(&b);
		home_render(&b); /* a failed buffer is answered 500 */
		return reply(rq, MHD_HTTP_OK, HOME_CONTENT_TYPE, &b, NULL);
	}
	case HTTP_R_METRICS:
		return serve_metrics(s, rq);
	case HTTP_R_HEALTHZ:
		return reply_text(rq, MHD_HTTP_OK, "ok\n", NULL);
	case HTTP_R_API:
		return serve_api(s, rq, url);
	case HTTP_R_NONE:
		break;
	}
not_found:
	return api ? reply_json_error(rq, MHD_HTTP_NOT_FOUND,
				      "no such endpoint", NULL)
		   : reply_text(rq, MHD_HTTP_NOT_FOUND, "not found\n", NULL);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn,
			      const char *url, const char *method,
			      const char *version, const char *upload_data,
			      size_t *upload_data_size, void **con_cls)
{
	struct http_server *s = cls;
	(void)version;
	(void)upload_data;
	struct http_web *w = web_get(s);
	struct req rq = { .conn = conn, .web = w };
	enum MHD_Result res =
	    handle_req(s, &rq, url, method, upload_data_size, con_cls);
	web_put(w);
	return res;
}

/* True if fd a is still open on the same socket as fd b. */
static bool same_socket(int a, int b)
{
	struct stat sa, sb;
	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/*
 * GnuTLS's check of the client's certificate chain, in the handshake:
 * none given passes (whether one is required is the request level's
 * business), one given must verify against the trusted CAs.
 */
static int verify_client(gnutls_session_t ss)
{
	unsigned n = 0, status = 0;
	if (!gnutls_certificate_get_peers(ss, &n) || n == 0)
		return 0;
	if (gnutls_certificate_verify_peers2(ss, &status) < 0 || status != 0)
		return GNUTLS_E_CERTIFICATE_VERIFICATION_ERROR;
	return 0;
}

/*
 * MHD_OPTION_NOTIFY_CONNECTION (cls: the daemon's web): before the
 * handshake of a TLS connection, tells GnuTLS what the client auth type
 * asks of the client's certificate, so that a missing or unverified one
 * fails the handshake itself. MHD asks for a certificate only if given
 * CAs, and never requires one. Then the header guard's bookkeeping.
 */
static void on_connection(void *cls, struct MHD_Connection *conn,
			  void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	struct http_web *w = cls;
	const struct webcfg *c = w->cfg;
	if (code == MHD_CONNECTION_NOTIFY_STARTED && c && c->tls &&
	    c->client_auth != WEBCFG_NO_CLIENT_CERT) {
		const union MHD_ConnectionInfo *ci = MHD_get_connection_info(
		    conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);
		if (ci && ci->tls_session) {
			gnutls_session_t ss = ci->tls_session;
			gnutls_certificate_server_set_request(
			    ss, webcfg_cert_required(c->client_auth)
				    ? GNUTLS_CERT_REQUIRE
				    : GNUTLS_CERT_REQUEST);
			if (webcfg_cert_verified(c->client_auth))
				gnutls_session_set_verify_function(
				    ss, verify_client);
		}
	}
	http_guard_on_connection(w->s->guard, conn, socket_context, code);
}

/* The TLS options of w, ending with MHD_OPTION_END (opts holds 5). */
static bool tls_options(const struct http_web *w, struct MHD_OptionItem *opts)
{
	const struct webcfg *c = w->cfg;
	size_t n = 0;
	if (c && c->tls) {
		opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT,
						     0, c->cert_pem };
		opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY,
						     0, c->key_pem };
		opts[n++] =
		    (struct MHD_OptionItem){ MHD_OPTION_HTTPS_PRIORITIES, 0,
					     c->priorities };
		if (c->ca_pem)
			opts[n++] =
			    (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_TRUST,
						     0, c->ca_pem };
	}
	opts[n] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	return c && c->tls;
}

/*
 * Starts a daemon on a duplicate of l's socket, as web w says (the
 * daemon takes a reference on w). NULL on failure, with err.
 */
static struct MHD_Daemon *start_daemon(struct http_server *s,
				       const struct http_listener *l,
				       struct http_web *w, char *err,
				       size_t errlen)
{
	/* MHD splits the limit among its pool threads; below one per
	 * thread it refuses to start. */
	unsigned limit =
	    s->max_connections < s->threads ? s->threads : s->max_connections;
	/* MHD gets a duplicate: whether it closes the socket when it
	 * fails to start depends on where it fails, and a duplicate lets
	 * us tell without risking a double close. */
	int mfd = fcntl(l->fd, F_DUPFD_CLOEXEC, 0);
	if (mfd < 0) {
		snprintf(err, errlen, "cannot start the HTTP server on %s: %s",
			 l->name, strerror(errno));
		return NULL;
	}
	struct MHD_OptionItem tls[5];
	unsigned flags = HTTP_MHD_FLAGS;
	if (tls_options(w, tls))
		flags |= MHD_USE_TLS;
	/* MHD ignores (and logs) a pool of one: a single polling thread
	 * is the same thing. The per-client limit counts a client's
	 * connections over the whole pool; past it MHD accepts and closes
	 * at once, so one client cannot hold every slot (with the limit
	 * below max_connections). */
	struct MHD_Daemon *d = MHD_start_daemon(
	    flags, 0, NULL, NULL, handle, s, MHD_OPTION_EXTERNAL_LOGGER,
	    http_log, (void *)s, MHD_OPTION_URI_LOG_CALLBACK, uri_seen,
	    (void *)s, MHD_OPTION_NOTIFY_CONNECTION, on_connection, (void *)w,
	    MHD_OPTION_NOTIFY_COMPLETED, request_done, (void *)s,
	    MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)s->max_per_client,
	    MHD_OPTION_LISTEN_SOCKET, mfd, MHD_OPTION_CONNECTION_LIMIT,
	    (unsigned int)limit, MHD_OPTION_CONNECTION_TIMEOUT,
	    (unsigned int)HTTP_CONNECTION_TIMEOUT_S, MHD_OPTION_ARRAY, tls,
	    s->threads > 1 ? MHD_OPTION_THREAD_POOL_SIZE : MHD_OPTION_END,
	    (unsigned int)s->threads, MHD_OPTION_END);
	if (!d) {
		if (same_socket(mfd, l->fd))
			close(mfd);
		snprintf(err, errlen, "cannot start the HTTP%s server on %s",
			 flags & MHD_USE_TLS ? "S" : "", l->name);
		return NULL;
	}
	/* MHD owns the duplicate now and closes it when stopped. */
	web_ref(w);
	return d;
}

/*
 * Stops a daemon without touching the listening socket it shares with
 * the listener (and, during a reload, with the next daemon): stopping a
 * pooled daemon shuts its socket down, which would end listening for
 * every descriptor of it. Quiescing first hands the socket back; its
 * descriptor (our duplicate) is closed afterwards.
 */
static void stop_daemon(struct MHD_Daemon **d, struct http_web **w)
{
	if (*d) {
		MHD_socket fd = MHD_quiesce_daemon(*d);
		MHD_stop_daemon(*d);
		if (fd != MHD_INVALID_SOCKET)
			close(fd);
	}
	*d = NULL;
	web_put(*w);
	*w = NULL;
}

/* Stops the first n daemons (after a failed start). */
static void stop_started(struct http_server *s, size_t n)
{
	for (size_t j = 0; j < n; j++)
		stop_daemon(&s->ls[j].daemon, &s->ls[j].web);
}

int http_start(struct http_server *s, char *err, size_t errlen)
{
	if (s->started) {
		snprintf(err, errlen, "http server already started");
		return -EALREADY;
	}
	if (s->n_ls == 0) {
		snprintf(err, errlen, "http server has no listener");
		return -EINVAL;
	}
	s->started = true;
	/* The deadline for a later request on a kept-alive connection is
	 * no shorter than the idle timeout it had before the guard. */
	int64_t later = (int64_t)HTTP_CONNECTION_TIMEOUT_S * NS_PER_S;
	if (later < s->header_timeout_ns)
		later = s->header_timeout_ns;
	s->guard = http_guard_new(s->header_timeout_ns, later);
	int grc = http_guard_start(s->guard);
	if (grc < 0) {
		snprintf(err, errlen, "cannot start the HTTP server: %s",
			 strerror(-grc));
		return grc;
	}
	for (size_t i = 0; i < s->n_ls; i++) {
		struct http_listener *l = &s->ls[i];
		l->daemon = start_daemon(s, l, s->web, err, errlen);
		if (!l->daemon) {
			stop_started(s, i);
			return -EIO;
		}
		l->web = s->web; /* start_daemon's reference */
		/* The line ends with the port: scripts read it there. */
		log_notice("http", "%slistening on %s",
			   s->web->cfg && s->web->cfg->tls ? "HTTPS: " : "",
			   l->name);
	}
	return 0;
}

void http_set_web(struct http_server *s, struct webcfg *w)
{
	struct http_web *old = s->web;
	s->web = web_new(s, w);
	web_put(old);
}

int http_reload_web(struct http_server *s, struct webcfg *w, char *err,
		    size_t errlen)
{
	struct http_web *nw = web_new(s, w);
	if (s->started && !webcfg_tls_equal(s->web->cfg, w)) {
		/* Each new daemon accepts on the socket beside the old one
		 * until the old one stops: the port never stops listening.
		 * Connections of the old daemons are closed. */
		struct MHD_Daemon **nd = xcalloc(s->n_ls, sizeof *nd);
		for (size_t i = 0; i < s->n_ls; i++) {
			nd[i] = start_daemon(s, &s->ls[i], nw, err, errlen);
			if (nd[i])
				continue;
			for (size_t j = 0; j < i; j++) {
				struct http_web *ref = nw;
				stop_daemon(&nd[j], &ref);
			}
			free(nd);
			web_put(nw);
			return -EIO;
		}
		for (size_t i = 0; i < s->n_ls; i++) {
			stop_daemon(&s->ls[i].daemon, &s->ls[i].web);
			s->ls[i].daemon = nd[i];
			s->ls[i].web = nw; /* start_daemon's reference */
		}
		free(nd);
		log_notice("http", "web config: listeners restarted with %s",
			   w && w->tls ? "HTTPS" : "plain HTTP");
	}
	pthread_mutex_lock(&s->web_lock);
	struct http_web *old = s->web;
	s->web = nw;
	pthread_mutex_unlock(&s->web_lock);
	web_put(old);
	return 0;
}

void http_set_rules(struct http_server *s, struct rules *rules,
		    struct links *links)
{
	s->rules = rules;
	s->links = links;
}

void http_set_report(struct http_server *s, struct report *rep)
{
	s->report = rep;
}

void http_set_alert_meter(struct http_server *s, struct alert_meter *m)
{
	s->alert_meter = m;
}

void http_set_ident(struct http_server *s, struct ident_table *ident)
{
	s->ident = ident;
}

void http_free(struct http_server *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_ls; i++) {
		stop_daemon(&s->ls[i].daemon, &s->ls[i].web);
		if (s->ls[i].fd >= 0)
			close(s->ls[i].fd);
		free(s->ls[i].name);
	}
	/* After the daemons: MHD has reported the end of every
	 * connection. */
	http_guard_free(s->guard);
	pthread_mutex_destroy(&s->log_lock);
	free(s->ls);
	web_put(s->web);
	pthread_mutex_destroy(&s->web_lock);
	free(s);
}

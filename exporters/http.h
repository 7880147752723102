/*
 * http: fabmond's HTTP server (libmicrohttpd): /metrics (Prometheus
 * text or OpenMetrics, gzip when the client accepts it), /healthz, the
 * JSON API under /api/v1/ and an index page at / (see doc/api.md).
 *
 * fabmond binds and listens on each socket itself (so that errors name
 * the address and tests can ask for port 0) and hands it to one MHD
 * daemon per socket, each with its own thread pool (poll), connection
 * limit and idle timeout (at the limit MHD stops accepting: further
 * clients wait in the kernel's backlog until a connection closes) and
 * per-client limit (further connections from that address are closed at
 * once). A request-header deadline (http_guard.h) closes connections
 * whose headers do not come in time, however slowly they trickle. MHD's
 * log lines go to log_warn("http", ...), HTTP_LOG_BURST at once and
 * then one a second (MHD logs every connection it refuses or loses: a
 * flood would write thousands of lines a second); the next line that
 * passes counts the ones dropped.
 *
 * Threading: http_new/add_listener/start/free are called by one thread
 * (fabmond's main). The header deadline runs on one thread of its own
 * per server. Requests are served on MHD's threads; each renders
 * into its own buffer, reading the store and the health registry, which
 * are safe to read from any thread. Ownership: the server borrows st and
 * h, which must outlive it; it owns its sockets (closed by http_free).
 */
#ifndef FABMON_HTTP_H
#define FABMON_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct store;
struct health;
struct rules;
struct links;
struct report;
struct alert_meter;
struct ident_table;
struct webcfg;

/* Used when an option is 0. */
#define HTTP_DEFAULT_THREADS	       2
#define HTTP_DEFAULT_MAX_CONNECTIONS   64
#define HTTP_DEFAULT_MAX_PER_CLIENT    16 /* a quarter of the limit */
#define HTTP_DEFAULT_HEADER_TIMEOUT_NS (INT64_C(10) * 1000000000)
/* Seconds a connection may stay idle before MHD closes it. */
#define HTTP_CONNECTION_TIMEOUT_S 30
/* MHD log lines logged at once before the limit of one a second. */
#define HTTP_LOG_BURST 10

struct http_opts {
	unsigned threads;	  /* MHD thread pool size per listener */
	unsigned max_connections; /* concurrent connections per listener */
	/* Concurrent connections per client address, per listener: more
	 * are accepted and closed at once. */
	unsigned max_per_client;
	/* A request's headers must be complete within this of the
	 * connection's opening (for a later request on a kept-alive
	 * connection: within the longer of this and the idle timeout of
	 * the previous response), or the connection is closed. */
	int64_t header_timeout_ns;
};

struct http_server;

/* Borrowed st and h must outlive the server. opts may be NULL (defaults).
 * Never NULL. */
struct http_server *http_new(struct store *st, struct health *h,
			     const struct http_opts *opts);

/*
 * Binds host:port itself, before http_start. host "" (or NULL) is any
 * address: one dual-stack [::] socket, or 0.0.0.0 where IPv6 is absent;
 * otherwise an IPv4 or IPv6 literal or a name, bound to the first of its
 * addresses that binds. port "0" lets the kernel pick (see
 * http_listener_port). Each call adds one listener. 0 or -errno
 * (-EINVAL for a name or port that does not resolve, -EBUSY after
 * http_start), with a message naming the address in err.
 */
int http_add_listener(struct http_server *s, const char *host, const char *port,
		      char *err, size_t errlen);

/*
 * Starts one MHD daemon per listener (MHD thread pool). 0, or -EINVAL
 * without listeners, -EALREADY if started, -EIO if MHD refuses (or
 * -errno if the socket cannot be duplicated for it); err says which
 * listener, the daemons already started are stopped and the server can
 * only be freed.
 */
int http_start(struct http_server *s, char *err, size_t errlen);

/* The number of listeners added. */
size_t http_listener_count(const struct http_server *s);

/* The bound port of listener i (in the order added); 0 if no such. */
unsigned http_listener_port(const struct http_server *s, size_t i);

/*
 * Serves the rule engine's incidents, metrics and the link table too
 * (borrowed; they must outlive the server). Call before http_start.
 */
void http_set_rules(struct http_server *s, struct rules *rules,
		    struct links *links);

/* Serves /api/v1/report from rep (borrowed; it must outlive the
 * server; NULL: a report of nothing). Call before http_start. */
void http_set_report(struct http_server *s, struct report *rep);

/* Shows the Alertmanager pusher's figures (fabmon_alertmanager_*) on
 * /metrics (borrowed; it must outlive the server). Before http_start. */
void http_set_alert_meter(struct http_server *s, struct alert_meter *m);

/* Shows the NIC port identities (fabmon_nic_port_info on /metrics, the
 * NIC fields of /api/v1/ports; borrowed, it must outlive the server).
 * Before http_start. */
void http_set_ident(struct http_server *s, struct ident_table *ident);

/*
 * Serves as web config w says (taken; NULL: plain HTTP, no auth, no
 * extra headers): HTTPS and client certificates, basic auth on every
 * path but /healthz, response headers. Before http_start.
 */
void http_set_web(struct http_server *s, struct webcfg *w);

/*
 * Swaps in web config w (taken; NULL: plain HTTP) on a running server,
 * from the thread that started it. Users and headers apply from the
 * next request on (a request under way keeps the ones it began with).
 * A different TLS setup (certificate, key, CAs, client auth, versions
 * and suites, or HTTPS on or off) starts a new daemon on each
 * listener's socket before the old one stops, so the port never stops
 * listening; connections of the old daemons are closed. 0, or -EIO
 * with err if a new daemon does not start: w is freed and the running
 * setup is kept whole.
 */
int http_reload_web(struct http_server *s, struct webcfg *w, char *err,
		    size_t errlen);

/* Stops the daemons, closes the sockets and frees; NULL ok. */
void http_free(struct http_server *s);

/*
 * True if an Accept-Encoding header value allows gzip: a "gzip" (or
 * "x-gzip") coding, or "*" when gzip is not listed, with q > 0
 * (RFC 9110 12.5.3). NULL (no header) is false.
 */
bool http_accepts_gzip(const char *accept_encoding);

#endif

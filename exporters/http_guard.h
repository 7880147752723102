/*
 * http_guard: the request-header deadline of the HTTP server. MHD's
 * connection timeout is an idle timeout: a client that sends a byte of
 * its request now and then (a slowloris) keeps a slot for ever. The
 * guard keeps a list of the server's connections and closes any whose
 * request headers are not complete in time: first_ns after the
 * connection opened, later_ns after the previous response on a
 * kept-alive connection. Once the headers are in, the request is MHD's
 * business (idle timeout) until its response is done.
 *
 * It closes a late connection by shutting its socket down (the fd stays
 * MHD's); MHD sees the end of stream on its next poll() and closes the
 * connection. The list is locked: MHD tells the guard of a connection's
 * end (MHD_CONNECTION_NOTIFY_CLOSED) before it closes the fd, and the
 * guard unlinks it under the same lock, so it never shuts down an fd
 * that was closed (and perhaps reused).
 *
 * Threading: http_guard_new/start/free from the owner's thread; the
 * hooks from MHD's threads, any number at once; one thread of the
 * guard's own (started by http_guard_start) waits for the next
 * deadline. Ownership: the server owns the guard; it must stop its MHD
 * daemons (which ends every connection) before http_guard_free.
 */
#ifndef FABMON_HTTP_GUARD_H
#define FABMON_HTTP_GUARD_H

#include <microhttpd.h>
#include <stdint.h>

struct http_guard;

/* A guard with the two allowances (ns, > 0). Never NULL. */
struct http_guard *http_guard_new(int64_t first_ns, int64_t later_ns);

/* Starts the deadline thread: 0 or -errno. */
int http_guard_start(struct http_guard *g);

/* Stops the thread and frees; NULL ok. The MHD daemons that reported
 * to it must be stopped first. */
void http_guard_free(struct http_guard *g);

/*
 * MHD_OPTION_NOTIFY_CONNECTION callback (cls: the guard): lists a
 * connection when it starts, its deadline running; unlists it when it
 * ends. Takes *socket_context for its own.
 */
void http_guard_on_connection(void *cls, struct MHD_Connection *conn,
			      void **socket_context,
			      enum MHD_ConnectionNotificationCode code);

/* The request on conn has its headers (the access handler's first
 * call): no deadline until http_guard_request_done. */
void http_guard_headers_in(struct http_guard *g, struct MHD_Connection *conn);

/* The request on conn is over (MHD_OPTION_NOTIFY_COMPLETED): the next
 * request's headers are due within later_ns. */
void http_guard_request_done(struct http_guard *g, struct MHD_Connection *conn);

#endif

/*
 * http_guard: the request-header deadline (see http_guard.h).
 *
 * The connections are an intrusive, circular list under one mutex; the
 * deadline thread walks it at each deadline and sleeps until the next
 * one. A connection listed after the thread went to sleep is due no
 * sooner than first_ns from then, and the thread never sleeps longer
 * than first_ns, so nothing needs to wake it early. The walk is
 * O(connections), bounded by the server's connection limit.
 */
#include "config.h"

#include "http_guard.h"

#include "clock.h"
#include "log.h"
#include "mem.h"
#include "units.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

struct guard_conn {
	struct guard_conn *prev, *next;
	int fd;		/* MHD's; only shut down here, never closed */
	bool busy;	/* headers in, response not yet done: no deadline */
	bool cut;	/* shut down already */
	int64_t due_ns; /* monotonic; when !busy */
};

struct http_guard {
	int64_t first_ns, later_ns;
	pthread_mutex_t mu;
	pthread_cond_t cv;	/* on CLOCK_MONOTONIC */
	struct guard_conn list; /* sentinel */
	bool stop;
	bool started;
	pthread_t thread;
};

struct http_guard *http_guard_new(int64_t first_ns, int64_t later_ns)
{
	struct http_guard *g = xcalloc(1, sizeof *g);
	g->first_ns = first_ns;
	g->later_ns = later_ns;
	g->list.prev = g->list.next = &g->list;
	pthread_mutex_init(&g->mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&g->cv, &ca);
	pthread_condattr_destroy(&ca);
	return g;
}

/* Shuts down every connection past its deadline; returns the next
 * deadline. Called with the lock held. */
static int64_t cut_late(struct http_guard *g, int64_t now)
{
	int64_t next = now + g->first_ns;
	for (struct guard_conn *c = g->list.next; c != &g->list; c = c->next) {
		if (c->busy || c->cut)
			continue;
		if (c->due_ns > now) {
			if (c->due_ns < next)
				next = c->due_ns;
			continue;
		}
		/* MHD reads the end of stream and closes the connection;
		 * until its CLOSED notice (under this lock) the fd is open
		 * and still this connection's. */
		shutdown(c->fd, SHUT_RDWR);
		c->cut = true;
		log_debug("http",
			  "closing a connection whose request headers are "
			  "late");
	}
	return next;
}

static void *guard_main(void *arg)
{
	struct http_guard *g = arg;
	pthread_mutex_lock(&g->mu);
	while (!g->stop) {
		int64_t next = cut_late(g, mono_ns());
		struct timespec ts = { .tv_sec = (time_t)(next / NS_PER_S),
				       .tv_nsec = (long)(next % NS_PER_S) };
		pthread_cond_timedwait(&g->cv, &g->mu, &ts);
	}
	pthread_mutex_unlock(&g->mu);
	return NULL;
}

int http_guard_start(struct http_guard *g)
{
	int rc = pthread_create(&g->thread, NULL, guard_main, g);
	if (rc != 0)
		return -rc;
	g->started = true;
	return 0;
}

void http_guard_free(struct http_guard *g)
{
	if (!g)
		return;
	if (g->started) {
		pthread_mutex_lock(&g->mu);
		g->stop = true;
		pthread_cond_signal(&g->cv);
		pthread_mutex_unlock(&g->mu);
		pthread_join(g->thread, NULL);
	}
	/* Every daemon is stopped: MHD has reported every end. */
	while (g->list.next != &g->list) {
		struct guard_conn *c = g->list.next;
		g->list.next = c->next;
		free(c);
	}
	pthread_cond_destroy(&g->cv);
	pthread_mutex_destroy(&g->mu);
	free(g);
}

void http_guard_on_connection(void *cls, struct MHD_Connection *conn,
			      void **socket_context,
			      enum MHD_ConnectionNotificationCode code)
{
	struct http_guard *g = cls;
	struct guard_conn *c = *socket_context;
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *fi = MHD_get_connection_info(
		    conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		if (!fi)
			return; /* no fd: left to the idle timeout */
		c = xcalloc(1, sizeof *c);
		c->fd = fi->connect_fd;
		pthread_mutex_lock(&g->mu);
		c->due_ns = mono_ns() + g->first_ns;
		c->next = &g->list;
		c->prev = g->list.prev;
		c->prev->next = c;
		g->list.prev = c;
		pthread_mutex_unlock(&g->mu);
		*socket_context = c;
	} else if (code == MHD_CONNECTION_NOTIFY_CLOSED && c) {
		pthread_mutex_lock(&g->mu);
		c->prev->next = c->next;
		c->next->prev = c->prev;
		pthread_mutex_unlock(&g->mu);
		free(c);
		*socket_context = NULL;
	}
}

static struct guard_conn *conn_of(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *i =
	    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return i ? i->socket_context : NULL;
}

void http_guard_headers_in(struct http_guard *g, struct MHD_Connection *conn)
{
	struct guard_conn *c = conn_of(conn);
	if (!c)
		return;
	pthread_mutex_lock(&g->mu);
	c->busy = true;
	pthread_mutex_unlock(&g->mu);
}

void http_guard_request_done(struct http_guard *g, struct MHD_Connection *conn)
{
	struct guard_conn *c = conn_of(conn);
	if (!c)
		return;
	pthread_mutex_lock(&g->mu);
	c->busy = false;
	c->due_ns = mono_ns() + g->later_ns;
	pthread_mutex_unlock(&g->mu);
}

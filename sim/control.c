/*
 * sim_control: fabsim's control endpoint (see control.h).
 *
 * libmicrohttpd runs one internal polling thread on a socket bound
 * here (so the port is known before the first request). The access
 * handler collects the body of a request into its connection state,
 * then queues a command and sleeps on the endpoint's condition
 * variable until the run loop has answered it or the endpoint closes.
 * Requests are therefore served one at a time, in arrival order, which
 * is what a control channel wants.
 */
#include "config.h"

#include "control.h"

#include "mem.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct req {
	struct sim_control_cmd cmd;
	char *method, *url, *body;
	size_t len;
	bool too_large;
	/* the answer */
	bool done;
	unsigned status;
	char *reply;
	struct req *next; /* queue */
};

struct sim_control {
	struct MHD_Daemon *daemon;
	int fd;
	int port;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct req *head, *tail; /* queued, not yet taken */
	bool closing;
};

int sim_control_is_loopback(const char *host)
{
	struct in_addr a4;
	struct in6_addr a6;
	if (strcmp(host, "localhost") == 0)
		return 1;
	if (inet_pton(AF_INET, host, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	if (inet_pton(AF_INET6, host, &a6) == 1)
		return IN6_IS_ADDR_LOOPBACK(&a6);
	return 0;
}

int sim_control_parse_addr(const char *addr, char *host, size_t hostlen,
			   unsigned *port, char *err, size_t errlen)
{
	const char *colon, *h = addr;
	size_t hl;
	if (addr[0] == '[') {
		const char *end = strchr(addr, ']');
		if (!end || end[1] != ':')
			goto bad;
		h = addr + 1;
		hl = (size_t)(end - h);
		colon = end + 1;
	} else {
		colon = strrchr(addr, ':');
		if (!colon || strchr(addr, ':') != colon)
			goto bad;
		hl = (size_t)(colon - addr);
	}
	if (hl == 0 || hl >= hostlen)
		goto bad;
	memcpy(host, h, hl);
	host[hl] = '\0';
	char *end;
	errno = 0;
	unsigned long p = strtoul(colon + 1, &end, 10);
	if (colon[1] == '\0' || *end || errno || p > 65535)
		goto bad;
	*port = (unsigned)p;
	return 0;
bad:
	snprintf(err, errlen, "%s is not host:port (e.g. 127.0.0.1:8080)",
		 addr);
	return -EINVAL;
}

static enum MHD_Result send_reply(struct MHD_Connection *conn, unsigned status,
				  char *json)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
	    strlen(json), json, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(json);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				"application/json");
	enum MHD_Result rc = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn,
			      const char *url, const char *method,
			      const char *version, const char *upload,
			      size_t *upload_size, void **state)
{
	struct sim_control *c = cls;
	struct req *q = *state;
	(void)version;
	if (!q) {
		q = xcalloc(1, sizeof *q);
		q->method = xstrdup(method);
		q->url = xstrdup(url);
		q->body = xstrdup("");
		*state = q;
		return MHD_YES;
	}
	if (*upload_size) {
		if (q->len + *upload_size > SIM_CONTROL_MAX_BODY) {
			q->too_large = true;
		} else {
			q->body = xrealloc(q->body, q->len + *upload_size + 1);
			memcpy(q->body + q->len, upload, *upload_size);
			q->len += *upload_size;
			q->body[q->len] = '\0';
		}
		*upload_size = 0;
		return MHD_YES;
	}
	if (q->too_large)
		return send_reply(conn, 413,
				  xasprintf("{\"error\":\"the body is larger "
					    "than %d bytes\"}",
					    SIM_CONTROL_MAX_BODY));
	q->cmd.method = q->method;
	q->cmd.url = q->url;
	q->cmd.body = q->body;
	q->cmd.body_len = q->len;
	pthread_mutex_lock(&c->mu);
	if (c->closing) {
		q->done = true;
		q->status = MHD_HTTP_SERVICE_UNAVAILABLE;
		q->reply = xstrdup("{\"error\":\"fabsim is stopping\"}");
	} else {
		if (c->tail)
			c->tail->next = q;
		else
			c->head = q;
		c->tail = q;
	}
	while (!q->done)
		pthread_cond_wait(&c->cv, &c->mu);
	pthread_mutex_unlock(&c->mu);
	char *reply = q->reply;
	q->reply = NULL;
	return send_reply(conn, q->status, reply);
}

static void completed(void *cls, struct MHD_Connection *conn, void **state,
		      enum MHD_RequestTerminationCode code)
{
	struct req *q = *state;
	(void)cls;
	(void)conn;
	(void)code;
	if (!q)
		return;
	free(q->method);
	free(q->url);
	free(q->body);
	free(q->reply);
	free(q);
	*state = NULL;
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	fprintf(stderr, "fabsim: control: ");
	vfprintf(stderr, fmt, ap);
}

struct sim_control *sim_control_new(const char *addr, char *err, size_t errlen)
{
	char host[64];
	unsigned port;
	if (sim_control_parse_addr(addr, host, sizeof host, &port, err, errlen))
		return NULL;
	if (!sim_control_is_loopback(host)) {
		snprintf(err, errlen,
			 "control endpoint %s: only loopback addresses "
			 "(127.0.0.1, ::1) are allowed",
			 addr);
		return NULL;
	}
	if (strcmp(host, "localhost") == 0)
		snprintf(host, sizeof host, "127.0.0.1");
	struct sockaddr_storage ss;
	socklen_t sl;
	memset(&ss, 0, sizeof ss);
	bool v6 = strchr(host, ':') != NULL;
	if (v6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		inet_pton(AF_INET6, host, &a->sin6_addr);
		sl = sizeof *a;
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		inet_pton(AF_INET, host, &a->sin_addr);
		sl = sizeof *a;
	}
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int one = 1;
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) ||
	    bind(fd, (struct sockaddr *)&ss, sl) || listen(fd, 16)) {
		snprintf(err, errlen, "control endpoint %s: %s", addr,
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	struct sockaddr_storage bound;
	socklen_t bl = sizeof bound;
	getsockname(fd, (struct sockaddr *)&bound, &bl);
	struct sim_control *c = xcalloc(1, sizeof *c);
	c->fd = fd;
	c->port = ntohs(v6 ? ((struct sockaddr_in6 *)&bound)->sin6_port
			   : ((struct sockaddr_in *)&bound)->sin_port);
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->cv, NULL);
	/* epoll, not select: a fabsim serving a thousand gNMI targets
	 * holds thousands of descriptors, and select() cannot take a
	 * connection numbered past FD_SETSIZE. */
	c->daemon = MHD_start_daemon(
	    MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC |
		MHD_USE_ERROR_LOG | (v6 ? MHD_USE_IPv6 : 0),
	    0, NULL, NULL, handle, c, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, c,
	    MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_NOTIFY_COMPLETED,
	    completed, c, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)10,
	    MHD_OPTION_END);
	if (!c->daemon) {
		snprintf(err, errlen,
			 "control endpoint %s: cannot start the "
			 "HTTP server",
			 addr);
		close(fd);
		pthread_cond_destroy(&c->cv);
		pthread_mutex_destroy(&c->mu);
		free(c);
		return NULL;
	}
	return c;
}

void sim_control_free(struct sim_control *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&c->mu);
	c->closing = true;
	for (struct req *q = c->head; q; q = q->next) {
		q->done = true;
		q->status = MHD_HTTP_SERVICE_UNAVAILABLE;
		q->reply = xstrdup("{\"error\":\"fabsim is stopping\"}");
	}
	c->head = c->tail = NULL;
	pthread_cond_broadcast(&c->cv);
	pthread_mutex_unlock(&c->mu);
	MHD_stop_daemon(c->daemon); /* closes the listening socket */
	pthread_cond_destroy(&c->cv);
	pthread_mutex_destroy(&c->mu);
	free(c);
}

int sim_control_port(const struct sim_control *c)
{
	return c->port;
}

struct sim_control_cmd *sim_control_next(struct sim_control *c)
{
	pthread_mutex_lock(&c->mu);
	struct req *q = c->head;
	if (q) {
		c->head = q->next;
		if (!c->head)
			c->tail = NULL;
		q->next = NULL;
	}
	pthread_mutex_unlock(&c->mu);
	return q ? &q->cmd : NULL;
}

void sim_control_done(struct sim_control *c, struct sim_control_cmd *cmd,
		      unsigned status, char *json)
{
	struct req *q = (struct req *)cmd; /* cmd is the first member */
	pthread_mutex_lock(&c->mu);
	q->status = status;
	q->reply = json;
	q->done = true;
	pthread_cond_broadcast(&c->cv);
	pthread_mutex_unlock(&c->mu);
}

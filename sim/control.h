/*
 * sim_control: fabsim's control endpoint, an HTTP server on a loopback
 * address (libmicrohttpd, one thread of its own) that hands every
 * request to the run loop and sends back what the run loop answers.
 *
 * The endpoint never touches the model: its thread queues the request
 * (method, URL, body) and waits; the run loop takes requests with
 * sim_control_next() once per tick, routes and answers them with
 * sim_control_done(), which wakes the waiting thread. A request waits
 * at most one tick of the run loop (plus the time its command takes).
 *
 * Threads and ownership. sim_control_next()/done() are for the run
 * loop's thread; a command belongs to the endpoint, the run loop only
 * borrows it between next() and done(). sim_control_free() answers
 * what is still queued with 503 and stops the server; call it from the
 * run loop's thread when no command is borrowed.
 */
#ifndef FABMON_SIM_CONTROL_H
#define FABMON_SIM_CONTROL_H

#include <stddef.h>

#define SIM_CONTROL_MAX_BODY (64 * 1024)

struct sim_control_cmd {
	const char *method; /* "GET", "POST", "DELETE"... */
	const char *url;    /* the path, without the query */
	const char *body;   /* NUL-terminated; "" if none */
	size_t body_len;
};

struct sim_control;

/*
 * Listens on addr ("127.0.0.1:8080", "[::1]:0"; port 0: the kernel
 * picks). Only loopback addresses are accepted. NULL with a message in
 * err.
 */
struct sim_control *sim_control_new(const char *addr, char *err, size_t errlen);
void sim_control_free(struct sim_control *c);

/* The bound port. */
int sim_control_port(const struct sim_control *c);

/* The next queued request, or NULL. */
struct sim_control_cmd *sim_control_next(struct sim_control *c);
/* Answers cmd with an HTTP status and a JSON body (taken over: freed
 * by the endpoint). */
void sim_control_done(struct sim_control *c, struct sim_control_cmd *cmd,
		      unsigned status, char *json);

/* Splits "host:port" / "[v6]:port" and says whether host is loopback
 * (127.0.0.0/8, ::1, localhost): 0, or -EINVAL with a message. host
 * gets the address without brackets. */
int sim_control_parse_addr(const char *addr, char *host, size_t hostlen,
			   unsigned *port, char *err, size_t errlen);
/* True for 127.0.0.0/8, ::1 and "localhost". */
int sim_control_is_loopback(const char *host);

#endif

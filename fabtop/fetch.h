/*
 * fetch: fabtop's HTTP client, a thin layer over one libcurl easy
 * handle (kept between requests, so the connection to fabmond is reused).
 *
 * Requests are blocking and bounded by a timeout. One fetch object
 * belongs to one thread. The body of the last answer stays in the object
 * until the next request.
 */
#ifndef FABMON_FABTOP_FETCH_H
#define FABMON_FABTOP_FETCH_H

#include <stdbool.h>
#include <stddef.h>

/* Answers larger than this are refused (a broken or hostile server). */
#define FETCH_MAX_BODY (64u << 20)

struct fetch;

/*
 * A client for base_url ("http://127.0.0.1:9465", a trailing '/' is
 * ignored); timeout_ms bounds each request, connect included. NULL if
 * libcurl could not be set up.
 */
struct fetch *fetch_new(const char *base_url, long timeout_ms);
void fetch_free(struct fetch *f);

/* How to reach a fabmond behind a web config (HTTPS, basic auth). */
struct fetch_auth {
	const char *ca_file;	 /* CAs for fabmond's certificate; NULL:
				  * the system's */
	bool insecure;		 /* do not verify fabmond's certificate */
	const char *client_cert; /* PEM client certificate and key; NULL: */
	const char *client_key;	 /* none */
	const char *user;	 /* basic auth; NULL: none */
	const char *password;	 /* copied */
};

/* Applies a to every later request (strings copied by libcurl). 0, or
 * -1 if libcurl refuses an option (fetch_error says which). */
int fetch_set_auth(struct fetch *f, const struct fetch_auth *a);

/*
 * GETs base_url + path ("/api/v1/ports?limit=10"). Returns the HTTP
 * status (200, 404, ...) with the body in *body / *len (borrowed, valid
 * until the next fetch_get or fetch_free; NUL-terminated), or -1 when no
 * answer came (connection refused, timeout, oversized body), with the
 * reason in fetch_error().
 */
int fetch_get(struct fetch *f, const char *path, const char **body,
	      size_t *len);

/* Why the last fetch_get returned -1 (a sentence, borrowed). */
const char *fetch_error(const struct fetch *f);

/* The base URL as given, without a trailing '/'. */
const char *fetch_base(const struct fetch *f);

/*
 * Percent-encodes s for a query parameter value into a new string the
 * caller frees.
 */
char *fetch_escape(const char *s);

#endif

/*
 * api: the JSON API under /api/v1/ that fabtop and scripts read
 * (targets, ports, status; documented in doc/api.md).
 *
 * The API knows nothing of HTTP: a request is a path and its decoded
 * query parameters, a response is a status code and a JSON body written
 * into a caller-owned buffer. The HTTP layer routes and checks methods;
 * tests call api_serve() directly.
 *
 * Threading: any number of requests may be served at once, concurrently
 * with the collectors. The store is read one series at a time and the
 * health registry is copied once per request, so no lock is held while a
 * response is built.
 */
#ifndef FABMON_API_H
#define FABMON_API_H

#include "buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct store;
struct health;
struct rules;
struct links;
struct ident_table;
struct report;
struct json_t;

#define API_CONTENT_TYPE "application/json"

/* /api/v1/ports: rows returned by default and at most. */
#define API_PORTS_DEFAULT_LIMIT 100
#define API_PORTS_MAX_LIMIT	100000

/* One query parameter, URL-decoded. value is NULL for "?key" without
 * '='. Both are borrowed for the call. */
struct api_param {
	const char *key;
	const char *value;
};

/* What a request reads. All borrowed; rules, links and report may be
 * NULL (their endpoints then list nothing), ident too (NIC rows of
 * /api/v1/ports then have no netdev or RDMA fields). */
struct api_ctx {
	struct store *st;
	struct health *h;
	struct rules *rules;
	struct links *links;
	struct ident_table *ident;
	struct report *report;
};

/* True if path is an API endpoint ("/api/v1/ports"), for 404 vs 405. */
bool api_path_known(const char *path);

/* The i-th API endpoint's path (in doc/api.md's order), NULL past the
 * last: the index page links them. */
const char *api_path_at(size_t i);

/*
 * Serves a GET (or HEAD) of path with params. Appends a JSON body to out
 * and returns the HTTP status: 200; 400 for a bad or unknown parameter,
 * the body being {"error": "<reason naming the parameter>"}; 404 for an
 * unknown path, with {"error": "..."}. -ENOMEM if out could not grow.
 */
int api_serve(const struct api_ctx *ctx, const char *path,
	      const struct api_param *params, size_t n_params, struct buf *out);

/* Appends j (stolen; NULL: jansson ran out of memory) as compact JSON
 * (reals with 15 significant digits) and a newline to out. 0 or
 * -ENOMEM. */
int api_put_json(struct buf *out, struct json_t *j);

/* Appends {"error": reason} to out (reason may hold any bytes). */
void api_put_error(struct buf *out, const char *reason);

/* A 400 response: appends {"error": reason}, reason printf-formatted and
 * cut at 255 bytes, to out. Returns 400, or -ENOMEM if out could not
 * grow. */
int api_put_bad_request(struct buf *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The check every query makes of its parameter p[i]: its key is not one
 * of p[0..i-1] and it has a value. 0, or a 400 response written to out
 * (the key quoted up to 64 bytes) and its status (or -ENOMEM). */
int api_param_once(const struct api_param *p, size_t i, struct buf *out);

#endif

/*
 * app: fetching and parsing one refresh (see app.h).
 *
 * A part whose answer is bad keeps its previous data, so one broken
 * answer never blanks the screen; the first problem of a refresh is the
 * one shown. The origins of active incidents that are not among the
 * ports fetched (a long ports list sorted by another column) are asked
 * for one by one, a few per refresh, so that their sparklines fill.
 */
#include "config.h"

#include "app.h"

#include "mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Targeted port fetches per refresh, at most. */
#define APP_MAX_EXTRA 8

static void note(struct view_state *st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void note(struct view_state *st, const char *fmt, ...)
{
	if (st->error)
		return;
	va_list ap;
	va_start(ap, fmt);
	st->error = xvasprintf(fmt, ap);
	va_end(ap);
}

/* A sentence for a non-200 answer: fabmond's "error" member if any. */
static void http_problem(struct view_state *st, const char *what, int code,
			 const char *body, size_t len)
{
	char *e = model_parse_error(body, len);
	note(st, "%s: HTTP %d%s%s", what, code, e ? ": " : "", e ? e : "");
	free(e);
}

static int get(struct view_state *st, struct fetch *f, const char *path,
	       const char **body, size_t *len)
{
	int code = fetch_get(f, path, body, len);
	if (code < 0) {
		free(st->conn_error);
		st->conn_error = xstrdup(fetch_error(f));
		st->connected = false;
	}
	return code;
}

/* Appends rows of more to st->ports (for followed ports). */
static void add_rows(struct model_ports *dst, struct model_ports *more)
{
	if (!more->n)
		return;
	dst->v = xreallocarray(dst->v, dst->n + more->n, sizeof *dst->v);
	memcpy(dst->v + dst->n, more->v, more->n * sizeof *more->v);
	dst->n += more->n;
	free(more->v);
	memset(more, 0, sizeof *more);
	more->total = -1;
}

static int fetch_followed(struct view_state *st, struct fetch *f)
{
	int extra = 0;
	for (size_t i = 0; i <= st->incidents.n_active; i++) {
		const struct model_incident *in =
		    i < st->incidents.n_active ? &st->incidents.active[i]
		    : st->have_detail	       ? &st->detail
					       : NULL;
		if (!in ||
		    !view_wants_port(st, in->origin_device, in->origin_port))
			continue;
		if (extra++ >= APP_MAX_EXTRA)
			break;
		char *d = fetch_escape(in->origin_device);
		char *p = fetch_escape(in->origin_port);
		char *path = xasprintf("/api/v1/ports?device=%s&port=%s", d, p);
		free(d);
		free(p);
		const char *body;
		size_t len;
		int code = get(st, f, path, &body, &len);
		free(path);
		if (code < 0)
			return -1;
		struct model_ports more;
		if (code == 200 &&
		    model_parse_ports(body, len, &more, NULL, 0) == 0)
			add_rows(&st->ports, &more);
	}
	return 0;
}

int app_refresh(struct view_state *st, struct fetch *f, int port_limit,
		double now)
{
	const char *body;
	size_t len;
	char err[256];
	int code;

	st->now = now;
	free(st->error);
	st->error = NULL;

	code = get(st, f, "/api/v1/status", &body, &len);
	if (code < 0)
		return -1;
	if (code == 200) {
		struct model_status s;
		if (model_parse_status(body, len, &s, err, sizeof err) == 0) {
			model_status_clear(&st->status);
			st->status = s;
			st->have_status = true;
		} else {
			note(st, "%s", err);
		}
	} else {
		http_problem(st, "/api/v1/status", code, body, len);
	}

	code = get(st, f, "/api/v1/targets", &body, &len);
	if (code < 0)
		return -1;
	if (code == 200) {
		struct model_targets t;
		if (model_parse_targets(body, len, &t, err, sizeof err) == 0) {
			model_targets_clear(&st->targets);
			st->targets = t;
			st->have_targets = true;
		} else {
			note(st, "%s", err);
		}
	} else {
		http_problem(st, "/api/v1/targets", code, body, len);
	}

	char *path = xasprintf("/api/v1/ports?sort=%s&limit=%d",
			       view_sort_field(st), port_limit);
	code = get(st, f, path, &body, &len);
	free(path);
	if (code < 0)
		return -1;
	if (code == 200) {
		struct model_ports p;
		if (model_parse_ports(body, len, &p, err, sizeof err) == 0) {
			model_ports_move(&st->ports, &p);
			st->have_ports = true;
		} else {
			note(st, "%s", err);
		}
	} else {
		http_problem(st, "/api/v1/ports", code, body, len);
	}

	code = get(st, f, "/api/v1/incidents", &body, &len);
	if (code < 0)
		return -1;
	if (code == 200) {
		struct model_incidents in;
		if (model_parse_incidents(body, len, &in, err, sizeof err) ==
		    0) {
			model_incidents_clear(&st->incidents);
			st->incidents = in;
			st->incidents_http = 200;
			free(st->incidents_error);
			st->incidents_error = NULL;
		} else {
			note(st, "%s", err);
		}
	} else {
		model_incidents_clear(&st->incidents);
		st->incidents_http = code;
		free(st->incidents_error);
		char *e = model_parse_error(body, len);
		st->incidents_error =
		    xasprintf("/api/v1/incidents: HTTP %d%s%s", code,
			      e ? ": " : "", e ? e : "");
		free(e);
	}

	/* The detail incident follows its live copy while it is listed. */
	if (st->have_detail) {
		for (size_t i = 0;
		     i < st->incidents.n_active + st->incidents.n_recent; i++) {
			const struct model_incident *in =
			    i < st->incidents.n_active
				? &st->incidents.active[i]
				: &st->incidents
				       .recent[i - st->incidents.n_active];
			if (in->id == st->detail_id) {
				model_incident_clear(&st->detail);
				model_incident_copy(&st->detail, in);
				break;
			}
		}
	}

	if (fetch_followed(st, f) < 0)
		return -1;
	view_record_history(st);
	st->connected = true;
	st->ever_connected = true;
	st->last_ok = now;
	return 0;
}

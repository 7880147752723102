/*
 * view: fabtop's state (the last data from fabmond, the current view,
 * cursor, sort and filter) and the five views drawn from it onto a
 * canvas. Pure: no I/O and no curses; the front ends (ui.c for the
 * terminal, batch mode in fabtop.c) feed it data through app.c and keys
 * through view_action, and show the canvas. One thread.
 */
#ifndef FABMON_FABTOP_VIEW_H
#define FABMON_FABTOP_VIEW_H

#include "canvas.h"
#include "fabtop_model.h"

#include <stdbool.h>

enum view_id {
	VIEW_OVERVIEW = 1,
	VIEW_PORTS = 2,
	VIEW_INCIDENT = 3,
	VIEW_HOSTS = 4,
	VIEW_TARGETS = 5,
};

/* Samples of pause ratio kept per port for the sparkline. */
#define VIEW_HIST_LEN	240
#define VIEW_HIST_MAX	256 /* ports followed at most */
#define VIEW_FILTER_MAX 128

struct view_hist {
	char *device;
	char *port;
	float v[VIEW_HIST_LEN]; /* NaN: no value that refresh */
	unsigned n, head;	/* samples held, next slot */
	unsigned seen;		/* refresh count when last asked for */
};

/* The columns the ports view sorts by, in the order s cycles them. */
enum view_sort {
	VIEW_SORT_PAUSE_RX,
	VIEW_SORT_PAUSE_TX,
	VIEW_SORT_PFC_RX,
	VIEW_SORT_ECN,
	VIEW_SORT_CNP,
	VIEW_SORT_DROPS,
	VIEW_SORT_UTIL,
	VIEW_SORT_DEVICE,
	VIEW_SORT_COUNT
};

struct view_state {
	const char *url;
	enum view_id view;
	enum view_id back; /* where Esc goes from the incident view */

	/* Data, replaced on each refresh; kept when a refresh fails. */
	struct model_status status;
	bool have_status;
	struct model_targets targets;
	bool have_targets;
	struct model_ports ports;
	bool have_ports;
	struct model_incidents incidents;
	int incidents_http;    /* 200, 404, 503, ... 0 before the first */
	char *incidents_error; /* why there are no incidents */
	char *error;	       /* the last problem, shown in the status line */
	bool connected;
	bool ever_connected;
	char *conn_error;   /* why the last refresh failed */
	double last_ok;	    /* epoch seconds of the last good refresh */
	double now;	    /* epoch seconds, set by the caller */
	unsigned refreshes; /* good refreshes so far */

	/* The incident shown by the incident view (a copy, kept when it
	 * leaves the API). */
	long long detail_id; /* -1: none */
	struct model_incident detail;
	bool have_detail;

	/* Sparkline history. */
	struct view_hist hist[VIEW_HIST_MAX];
	unsigned n_hist;

	/* Controls. */
	bool paused;
	bool help;
	bool editing; /* typing a filter */
	enum view_sort sort;
	bool sort_reverse;
	int host_sort; /* 0 pause, 1 CNP, 2 retries */
	char filter[VIEW_FILTER_MAX];
	int sel[6], top[6]; /* per view: cursor row and first shown */
	int body_rows;	    /* rows of the last drawn body (for PgUp/PgDn) */
};

void view_init(struct view_state *st, const char *url);
void view_fini(struct view_state *st);

/* What a key does (the front end maps its keys to these). */
enum view_act {
	VA_NONE,
	VA_QUIT,
	VA_HELP,
	VA_UP,
	VA_DOWN,
	VA_PGUP,
	VA_PGDN,
	VA_HOME,
	VA_END,
	VA_ENTER,
	VA_BACK,
	VA_SORT,
	VA_REVERSE,
	VA_FILTER,
	VA_PAUSE,
	VA_VIEW1,
	VA_VIEW2,
	VA_VIEW3,
	VA_VIEW4,
	VA_VIEW5,
};

/* Applies an action; returns false for VA_QUIT. */
bool view_action(struct view_state *st, enum view_act a);
/* While editing the filter: a typed character (a byte of UTF-8), '\b'
 * to delete, '\n' to accept, 27 (Esc) to clear and stop. */
void view_filter_key(struct view_state *st, int ch);

/* The API field the ports view asks fabmond to sort by. */
const char *view_sort_field(const struct view_state *st);

/*
 * Records the pause ratio (max of rx and tx, NaN when unknown) of every
 * port followed for a sparkline: the origins of active incidents and the
 * detail incident's. Call once per good refresh, after the data.
 */
void view_record_history(struct view_state *st);
/* The history of a port, or NULL. */
const struct view_hist *view_history(const struct view_state *st,
				     const char *device, const char *port);
/* Whether the port is followed and has no row in st->ports (app.c then
 * fetches its row on its own). */
bool view_wants_port(const struct view_state *st, const char *device,
		     const char *port);

/* Draws the current view: header, body, status line; fits the canvas. */
void view_draw(struct view_state *st, struct canvas *c);

/*
 * Batch frame: the header, the overview with each active incident's
 * pause tree, the top max_rows ports, the NIC ranking and the targets,
 * from row 0 down (the canvas must be tall enough; c->used tells how
 * much was drawn).
 */
void view_draw_batch(struct view_state *st, struct canvas *c, int max_rows);

/* Formatting helpers, shared with the tests: a rate with k/M/G suffix in at
 * most 6 characters ("-" when NaN), a ratio as a percentage. */
void view_fmt_rate(double v, char *buf, size_t len);
void view_fmt_pct(double v, char *buf, size_t len);

#endif

/*
 * Internal to fabtop/view*.c: not an API. The helpers the pieces of the
 * views share: view.c (state, formatting, header and footer, the
 * overview and ports views, keys), view_sort.c (the filter and the
 * sorted row lists), view_panes.c (the incident, hosts, targets and
 * help views). Pure and single-threaded like the rest of view.
 */
#ifndef FABMON_FABTOP_VIEW_INT_H
#define FABMON_FABTOP_VIEW_INT_H

#include "view.h"

#include <stdbool.h>
#include <stddef.h>

/* A scrolling body of lines on the canvas. */
struct body {
	struct canvas *c;
	int row0, h; /* the body's first row and height */
	int skip;    /* lines scrolled off */
	int line;    /* lines emitted so far */
};

/* The canvas row for the next line, or -1 when it is off the body. */
int view_body_next(struct body *b);

/* Cells: an age ("5s", "3m"), a rate, a percentage, text; each returns
 * the column after it. view_pause_attr is the colour of a pause ratio. */
void view_fmt_age(double secs, char *buf, size_t len);
int view_pause_attr(double r);
int view_rate_cell(struct canvas *c, int row, int col, int w, double v,
		   int attr);
int view_pct_cell(struct canvas *c, int row, int col, int w, double v);
int view_text_cell(struct canvas *c, int row, int col, int w, int attr,
		   const char *s);

/* Incidents: where one started, its state's colour, whether its kind
 * has a pause tree, the tree drawn into a body; the incidents listed
 * and the i-th of them; the cursor kept within n rows of height h. */
const char *view_origin_text(const struct model_incident *in, char *b,
			     size_t len);
int view_state_attr(const char *state);
bool view_is_pause(const struct model_incident *in);
void view_draw_tree(struct canvas *c, struct body *b,
		    const struct model_incident *in, int indent);
size_t view_incident_count(const struct view_state *st);
const struct model_incident *view_incident_at(const struct view_state *st,
					      size_t i);
void view_clamp_sel(struct view_state *st, int n, int h);

/*
 * The filter (view_sort.c): a port matches when every token of filter
 * does; "p3", "prio:3" or "priority=3" needs the port to have priority
 * 3, any other token is a case-insensitive substring of "device:port".
 */
bool view_filter_match(const char *filter, const char *device, const char *port,
		       unsigned prio_mask);

/* Sums and maxima of values that may be NaN (no value). */
double view_sum2(double a, double b);
double view_max2(double a, double b);

/* Port p's value in sort column s. */
double view_sort_value(const struct model_port *p, enum view_sort s);

/* Names in natural order: digit runs compare as numbers. */
int view_natcmp(const char *a, const char *b);

/* The ports rows to show (host NICs only, if nics_only), filtered and
 * sorted; *n their count. The caller frees the array. */
size_t *view_port_list(const struct view_state *st, bool nics_only, size_t *n);

/* The incident, hosts, targets and help views (view_panes.c), drawn
 * from row0 for h rows. */
void view_draw_incident(struct view_state *st, struct canvas *c, int row0,
			int h);
void view_draw_hosts(struct view_state *st, struct canvas *c, int row0, int h);
void view_draw_targets(struct view_state *st, struct canvas *c, int row0,
		       int h);
void view_draw_help(struct canvas *c, int row0, int h);

#endif

/*
 * view: fabtop's five views, drawn from the last data (see view.h).
 *
 * Each view builds the list of what it shows (filtered, sorted indices
 * into the model) at every draw: lists are at most a few thousand rows
 * and a draw happens once per refresh or key, so this costs nothing
 * worth caching and keeps the state to the cursor and scroll position.
 * Long bodies go through a small line cursor (struct body) that skips
 * the lines scrolled off the top and stops at the bottom.
 */
#include "config.h"

#include "view_int.h"

#include "mem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

void view_init(struct view_state *st, const char *url)
{
	memset(st, 0, sizeof *st);
	st->url = url;
	st->view = VIEW_OVERVIEW;
	st->back = VIEW_OVERVIEW;
	st->detail_id = -1;
	st->detail.id = -1;
	model_status_clear(&st->status);
	model_ports_clear(&st->ports);
	model_incidents_clear(&st->incidents);
}

void view_fini(struct view_state *st)
{
	model_status_clear(&st->status);
	model_targets_clear(&st->targets);
	model_ports_clear(&st->ports);
	model_incidents_clear(&st->incidents);
	model_incident_clear(&st->detail);
	free(st->incidents_error);
	free(st->error);
	free(st->conn_error);
	for (unsigned i = 0; i < st->n_hist; i++) {
		free(st->hist[i].device);
		free(st->hist[i].port);
	}
	memset(st, 0, sizeof *st);
}

/* ---- formatting */

void view_fmt_rate(double v, char *buf, size_t len)
{
	static const char suffix[] = " kMGTP";
	if (isnan(v)) {
		snprintf(buf, len, "-");
		return;
	}
	double a = fabs(v);
	int s = 0;
	while (a >= 999.5 && s < 5) {
		a /= 1000;
		v /= 1000;
		s++;
	}
	if (s == 0)
		snprintf(buf, len, "%.0f", v);
	else if (a < 9.95)
		snprintf(buf, len, "%.1f%c", v, suffix[s]);
	else
		snprintf(buf, len, "%.0f%c", v, suffix[s]);
}

void view_fmt_pct(double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (v >= 0.9995)
		snprintf(buf, len, "100%%");
	else
		snprintf(buf, len, "%.1f%%", v * 100);
}

void view_fmt_age(double secs, char *buf, size_t len)
{
	if (isnan(secs) || secs < 0) {
		snprintf(buf, len, "-");
		return;
	}
	if (secs >= 1e9) { /* beyond 30 years: a broken clock or answer */
		snprintf(buf, len, "long");
		return;
	}
	long s = (long)secs;
	if (secs < 10 && secs != floor(secs))
		snprintf(buf, len, "%.1fs", secs);
	else if (s < 60)
		snprintf(buf, len, "%lds", s);
	else if (s < 3600)
		snprintf(buf, len, "%ldm%02lds", s / 60, s % 60);
	else if (s < 86400)
		snprintf(buf, len, "%ldh%02ldm", s / 3600, s % 3600 / 60);
	else
		snprintf(buf, len, "%ldd%02ldh", s / 86400, s % 86400 / 3600);
}

int view_pause_attr(double r)
{
	if (isnan(r))
		return CA_DIM;
	if (r >= 0.5)
		return CA_CRIT | CA_BOLD;
	if (r >= 0.05)
		return CA_WARN;
	return CA_NORMAL;
}

int view_rate_cell(struct canvas *c, int row, int col, int w, double v,
		   int attr)
{
	char b[32];
	view_fmt_rate(v, b, sizeof b);
	char cell[64];
	snprintf(cell, sizeof cell, "%*s", w, b);
	return canvas_putw(c, row, col, w, isnan(v) ? CA_DIM : attr, cell) + 1;
}

int view_pct_cell(struct canvas *c, int row, int col, int w, double v)
{
	char b[32];
	view_fmt_pct(v, b, sizeof b);
	char cell[64];
	snprintf(cell, sizeof cell, "%*s", w, b);
	return canvas_putw(c, row, col, w, view_pause_attr(v), cell) + 1;
}

int view_text_cell(struct canvas *c, int row, int col, int w, int attr,
		   const char *s)
{
	return canvas_putw(c, row, col, w, attr, s ? s : "-") + 1;
}

/* ---- a scrolling body */

/* The canvas row for the next line, or -1 when it is off the body. */
int view_body_next(struct body *b)
{
	int l = b->line++;
	if (l < b->skip || l - b->skip >= b->h)
		return -1;
	return b->row0 + l - b->skip;
}

/* ---- history */

static struct view_hist *hist_find(const struct view_state *st,
				   const char *device, const char *port)
{
	for (unsigned i = 0; i < st->n_hist; i++) {
		const struct view_hist *h = &st->hist[i];
		if (!strcmp(h->device, device) && !strcmp(h->port, port))
			return (struct view_hist *)h;
	}
	return NULL;
}

const struct view_hist *view_history(const struct view_state *st,
				     const char *device, const char *port)
{
	if (!device || !port)
		return NULL;
	return hist_find(st, device, port);
}

static const struct model_port *port_row(const struct view_state *st,
					 const char *device, const char *port)
{
	for (size_t i = 0; i < st->ports.n; i++) {
		const struct model_port *p = &st->ports.v[i];
		if (!strcmp(p->device, device) && !strcmp(p->port, port))
			return p;
	}
	return NULL;
}

static void follow(struct view_state *st, const char *device, const char *port)
{
	if (!device || !port)
		return;
	struct view_hist *h = hist_find(st, device, port);
	if (!h) {
		if (st->n_hist < VIEW_HIST_MAX) {
			h = &st->hist[st->n_hist++];
		} else {
			/* Reuse the one not asked for the longest. */
			h = &st->hist[0];
			for (unsigned i = 1; i < st->n_hist; i++)
				if (st->hist[i].seen < h->seen)
					h = &st->hist[i];
			free(h->device);
			free(h->port);
		}
		memset(h, 0, sizeof *h);
		h->device = xstrdup(device);
		h->port = xstrdup(port);
	}
	if (h->seen == st->refreshes + 1)
		return; /* already sampled this refresh */
	h->seen = st->refreshes + 1;
	const struct model_port *p = port_row(st, device, port);
	double v =
	    p ? view_max2(p->v[MODEL_PF_PAUSE_RX], p->v[MODEL_PF_PAUSE_TX])
	      : NAN;
	/* A ratio: what a broken answer puts beyond [0, 1] is clamped. */
	if (!isnan(v))
		v = v < 0 ? 0 : v > 1 ? 1 : v;
	h->v[h->head] = (float)v;
	h->head = (h->head + 1) % VIEW_HIST_LEN;
	if (h->n < VIEW_HIST_LEN)
		h->n++;
}

void view_record_history(struct view_state *st)
{
	for (size_t i = 0; i < st->incidents.n_active; i++) {
		const struct model_incident *in = &st->incidents.active[i];
		follow(st, in->origin_device, in->origin_port);
	}
	if (st->have_detail)
		follow(st, st->detail.origin_device, st->detail.origin_port);
	st->refreshes++;
}

bool view_wants_port(const struct view_state *st, const char *device,
		     const char *port)
{
	return device && port && !port_row(st, device, port);
}

/* ---- header and footer */

static const char *const view_names[] = {
	"", "Overview", "Ports", "Incident", "Hosts", "Targets",
};

/* "N firing, M pending" at (row, col) when there are any. */
static void draw_firing(struct view_state *st, struct canvas *c, int row,
			int col)
{
	size_t firing = 0, pending = 0;
	for (size_t i = 0; i < st->incidents.n_active; i++) {
		const char *s = st->incidents.active[i].state;
		if (s && !strcmp(s, "firing"))
			firing++;
		else if (s && !strcmp(s, "pending"))
			pending++;
	}
	if (firing)
		col = canvas_putf(c, row, col, CA_CRIT | CA_BOLD,
				  "%zu firing  ", firing);
	if (pending)
		canvas_putf(c, row, col, CA_WARN, "%zu pending", pending);
}

static void draw_summary(struct view_state *st, struct canvas *c, int row,
			 bool with_firing)
{
	double drops = NAN, ecn = NAN, cnp = NAN;
	size_t paused = 0;
	for (size_t i = 0; i < st->ports.n; i++) {
		const struct model_port *p = &st->ports.v[i];
		drops = view_sum2(drops, p->v[MODEL_PF_DROPS]);
		ecn = view_sum2(ecn, p->v[MODEL_PF_ECN]);
		cnp = view_sum2(cnp, p->v[MODEL_PF_CNP_SENT]);
		if (view_max2(p->v[MODEL_PF_PAUSE_RX],
			      p->v[MODEL_PF_PAUSE_TX]) >= 0.001)
			paused++;
	}
	int col = 0;
	double up = st->status.targets_up, all = st->status.targets;
	if (st->have_status && !isnan(up) && !isnan(all)) {
		col = canvas_put(c, row, col, CA_NORMAL, "Targets ");
		col = canvas_putf(c, row, col,
				  up < all ? CA_CRIT | CA_BOLD : CA_OK,
				  "%.0f/%.0f up", up, all);
	} else {
		col = canvas_put(c, row, col, CA_DIM, "Targets ?");
	}
	char a[32], b[32], d[32];
	col = canvas_putf(c, row, col, CA_NORMAL, "  Ports %zu", st->ports.n);
	if (st->ports.total > (long)st->ports.n)
		col = canvas_putf(c, row, col, CA_DIM, "/%ld", st->ports.total);
	col = canvas_putf(c, row, col, paused ? CA_WARN | CA_BOLD : CA_NORMAL,
			  " (%zu paused)", paused);
	view_fmt_rate(drops, a, sizeof a);
	view_fmt_rate(ecn, b, sizeof b);
	view_fmt_rate(cnp, d, sizeof d);
	col = canvas_put(c, row, col, CA_NORMAL, "  Drops ");
	col = canvas_putf(c, row, col,
			  drops > 0 ? CA_CRIT | CA_BOLD : CA_NORMAL, "%s/s", a);
	col = canvas_putf(c, row, col, CA_NORMAL, "  ECN %s/s  CNP %s/s", b, d);
	if (with_firing)
		draw_firing(st, c, row, col + 2);
}

static void draw_header(struct view_state *st, struct canvas *c, int row,
			bool tabs)
{
	char tbuf[64] = "--:--:--";
	time_t t = (time_t)st->now;
	struct tm tm;
	if (localtime_r(&t, &tm))
		strftime(tbuf, sizeof tbuf,
			 tabs ? "%H:%M:%S" : "%Y-%m-%d %H:%M:%S", &tm);
	int col = canvas_putf(c, row, 0, CA_TITLE | CA_BOLD, "fabtop %s  %s",
			      tbuf, st->url ? st->url : "");
	col += 2;
	if (!st->ever_connected && !st->connected)
		col = canvas_putf(c, row, col, CA_CRIT | CA_BOLD,
				  "disconnected, retrying: %s",
				  st->conn_error ? st->conn_error : "");
	else if (!st->connected) {
		char age[32];
		view_fmt_age(st->now - st->last_ok, age, sizeof age);
		col = canvas_putf(c, row, col, CA_CRIT | CA_BOLD,
				  "disconnected, retrying (data %s old): %s",
				  age, st->conn_error ? st->conn_error : "");
	} else if (st->have_status && st->status.version) {
		char up[32];
		view_fmt_age(st->status.uptime_seconds, up, sizeof up);
		col = canvas_putf(c, row, col, CA_OK, "fabmond %s up %s",
				  st->status.version, up);
	}
	if (st->paused)
		canvas_put(c, row, col + 2, CA_WARN | CA_BOLD, "[paused]");
	/* At 80 columns the summary has no room for the incident count:
	 * it goes on the tabs' row. */
	draw_summary(st, c, row + 1, !tabs);
	if (!tabs)
		return;
	col = 0;
	for (int v = 1; v <= 5; v++) {
		char b[32];
		snprintf(b, sizeof b, " %d %s ", v, view_names[v]);
		col = canvas_put(
		    c, row + 2, col,
		    v == (int)st->view ? CA_SELECTED | CA_BOLD : CA_NORMAL, b);
		col++;
	}
	draw_firing(st, c, row + 2, col + 1);
}

static void draw_footer(struct view_state *st, struct canvas *c, int row)
{
	if (st->editing) {
		int col = canvas_put(c, row, 0, CA_BOLD,
				     "Filter (device:port, p3): ");
		col = canvas_put(c, row, col, CA_NORMAL, st->filter);
		canvas_put(c, row, col, CA_SELECTED, " ");
		return;
	}
	if (st->error) {
		canvas_put(c, row, 0, CA_CRIT, st->error);
		return;
	}
	int col = 0;
	if (st->filter[0])
		col = canvas_putf(c, row, 0, CA_WARN | CA_BOLD, "filter: %s  ",
				  st->filter);
	canvas_put(c, row, col, CA_DIM,
		   "h help  q quit  1-5 views  Enter detail  s sort  "
		   "/ filter  p pause");
}

/* ---- overview */

const char *view_origin_text(const struct model_incident *in, char *b,
			     size_t len)
{
	/* A storm from outside the view: "far end of leaf0:Ethernet0
	 * (unmonitored)", "host7:mlx5_0 (unmonitored)". */
	snprintf(b, len, "%s%s%s%s%s", in->origin_far_end ? "far end of " : "",
		 in->origin_device ? in->origin_device : "?",
		 in->origin_port ? ":" : "",
		 in->origin_port ? in->origin_port : "",
		 in->sender_unmonitored ? " (unmonitored)" : "");
	return b;
}

int view_state_attr(const char *state)
{
	if (!state)
		return CA_DIM;
	if (!strcmp(state, "firing"))
		return CA_CRIT | CA_BOLD;
	if (!strcmp(state, "pending"))
		return CA_WARN;
	return CA_DIM;
}

static void incident_row(struct view_state *st, struct canvas *c, int row,
			 const struct model_incident *in)
{
	char b[256], v[64], t[32];
	int col = 0;
	snprintf(b, sizeof b, "%3lld", in->id);
	col = view_text_cell(c, row, col, 3, CA_NORMAL, in->id >= 0 ? b : "?");
	col = view_text_cell(c, row, col, 18, CA_BOLD, in->kind);
	col = view_text_cell(c, row, col, 8, view_state_attr(in->state),
			     in->state);
	/* The origin's column, wider for a storm from outside the view
	 * (its far end, its sender) rather than cut. */
	view_origin_text(in, b, sizeof b);
	int ow = (int)strlen(b);
	col = view_text_cell(
	    c, row, col,
	    ow > 20 && (in->origin_far_end || in->sender_unmonitored) ? ow : 20,
	    CA_NORMAL, b);
	snprintf(b, sizeof b, "%d", in->priority);
	col = view_text_cell(c, row, col, 2, CA_NORMAL,
			     in->priority >= 0 ? b : "-");
	double since = isnan(in->fired) ? in->started : in->fired;
	view_fmt_age(st->now - since, t, sizeof t);
	snprintf(v, sizeof v, "%6s", t);
	col = view_text_cell(c, row, col, 6, CA_NORMAL, v);
	view_fmt_rate(in->peak, t, sizeof t);
	if (!isnan(in->peak) && in->peak < 10 && in->peak != floor(in->peak))
		snprintf(t, sizeof t, "%.2f", in->peak);
	snprintf(v, sizeof v, "%5s", t);
	col = view_text_cell(c, row, col, 5, CA_NORMAL, v);
	for (size_t i = 0; i < in->n_evidence && i < 3; i++) {
		const struct model_evidence *e = &in->evidence[i];
		char r[32];
		view_fmt_rate(e->value, r, sizeof r);
		if (!isnan(e->value) && fabs(e->value) < 10 &&
		    e->value != floor(e->value))
			snprintf(r, sizeof r, "%.2f", e->value);
		/* Value first: what a narrow terminal cuts is the name. */
		col = canvas_putf(c, row, col, CA_DIM, "%s %s  ", r, e->name);
	}
}

/* Kinds whose tree is a pause tree (the others list ports involved). */
bool view_is_pause(const struct model_incident *in)
{
	static const char *const kinds[] = { "pfc_storm",
					     "congestion_spreading",
					     "pfc_deadlock" };
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (in->kind && !strcmp(in->kind, kinds[i]))
			return true;
	return false;
}

void view_draw_tree(struct canvas *c, struct body *b,
		    const struct model_incident *in, int indent)
{
	for (size_t i = 0; i < in->n_tree; i++) {
		const struct model_node *nd = &in->tree[i];
		int row = view_body_next(b);
		if (row < 0)
			continue;
		int col = indent;
		for (int l = 0; l < nd->level; l++) {
			char s = nd->shape[l];
			if (l + 1 < nd->level) {
				col = canvas_put(c, row, col, CA_DIM,
						 s == '|' ? canvas_glyph_pipe(c)
							  : "  ");
				col++;
			} else {
				col =
				    canvas_put(c, row, col, CA_DIM,
					       s == 'L' ? canvas_glyph_corner(c)
							: canvas_glyph_tee(c));
				col++;
			}
		}
		int attr = nd->role == MODEL_ROLE_ORIGIN     ? CA_CRIT | CA_BOLD
			   : nd->role == MODEL_ROLE_SPREADER ? CA_WARN
							     : CA_NORMAL;
		col = canvas_putf(
		    c, row, col, attr, "%s%s%s", nd->device ? nd->device : "?",
		    nd->port ? ":" : "", nd->port ? nd->port : "");
		col = canvas_putf(c, row, col + 1, attr, "%s",
				  model_role_name(nd->role));
		if (nd->priority >= 0)
			col = canvas_putf(c, row, col + 1, CA_DIM, "p%d",
					  nd->priority);
		if (nd->hops > 0)
			canvas_putf(c, row, col + 1, CA_DIM, "(%d hop%s)",
				    nd->hops, nd->hops == 1 ? "" : "s");
	}
	if (in->tree_dropped) {
		int row = view_body_next(b);
		if (row >= 0)
			canvas_putf(c, row, indent, CA_DIM,
				    "... %zu more not shown", in->tree_dropped);
	}
}

size_t view_incident_count(const struct view_state *st)
{
	return st->incidents.n_active + st->incidents.n_recent;
}

const struct model_incident *view_incident_at(const struct view_state *st,
					      size_t i)
{
	if (i < st->incidents.n_active)
		return &st->incidents.active[i];
	i -= st->incidents.n_active;
	return i < st->incidents.n_recent ? &st->incidents.recent[i] : NULL;
}

void view_clamp_sel(struct view_state *st, int n, int h)
{
	int v = st->view;
	if (st->sel[v] >= n)
		st->sel[v] = n - 1;
	if (st->sel[v] < 0)
		st->sel[v] = 0;
	if (h < 1)
		h = 1;
	if (st->top[v] > st->sel[v])
		st->top[v] = st->sel[v];
	if (st->sel[v] >= st->top[v] + h)
		st->top[v] = st->sel[v] - h + 1;
	if (st->top[v] < 0)
		st->top[v] = 0;
}

static void ports_table(struct view_state *st, struct canvas *c, int row, int h,
			bool cursor);

static void draw_overview(struct view_state *st, struct canvas *c, int row0,
			  int h, bool batch, int max_ports)
{
	int row = row0;
	size_t n = view_incident_count(st);
	if (st->incidents_http != 200) {
		const char *msg = st->incidents_http == 404
				      ? "This fabmond has no incidents API "
					"(/api/v1/incidents: 404)."
				  : st->incidents_http == 503
				      ? "fabmond's rule engine is not running."
				      : "Incidents: no answer yet.";
		canvas_put(c, row++, 0, CA_WARN,
			   st->incidents_error && st->incidents_http != 404 &&
				   st->incidents_http != 503
			       ? st->incidents_error
			       : msg);
	} else if (!n) {
		canvas_put(c, row++, 0, CA_OK,
			   "No incidents: the rule engine sees a healthy "
			   "fabric.");
	} else {
		canvas_putf(c, row++, 0, CA_BOLD,
			    "INCIDENTS: %zu active, %zu recent",
			    st->incidents.n_active, st->incidents.n_recent);
		canvas_putw(c, row, 0, c->cols, CA_TITLE,
			    " ID KIND               STATE    ORIGIN"
			    "               P    AGE  PEAK EVIDENCE");
		row++;
		/* Leave room for the top ports below when space allows. */
		int room = batch ? (int)n : h - (row - row0) - 8;
		if (room < 3)
			room = h - (row - row0);
		if (!batch)
			view_clamp_sel(st, (int)n, room);
		int first = batch ? 0 : st->top[VIEW_OVERVIEW];
		for (int i = first; i < (int)n && row < row0 + h; i++) {
			if (!batch && i - first >= room)
				break;
			if (batch && i >= (int)st->incidents.n_active &&
			    i - (int)st->incidents.n_active >= max_ports) {
				canvas_putf(c, row++, 0, CA_DIM,
					    "... and %d older resolved",
					    (int)n - i);
				break;
			}
			const struct model_incident *in =
			    view_incident_at(st, (size_t)i);
			incident_row(st, c, row, in);
			if (!batch && i == st->sel[VIEW_OVERVIEW])
				canvas_row_flags(c, row, CA_SELECTED);
			row++;
			if (batch && i < (int)st->incidents.n_active) {
				struct body b = { c, row, 1 << 20, 0, 0 };
				if (in->summary)
					canvas_putf(c, row + b.line++, 6,
						    CA_DIM, "%s", in->summary);
				canvas_put(
				    c, row + b.line++, 6, CA_NORMAL,
				    view_is_pause(in)
					? "pause tree (origin to victims):"
					: "ports involved (origin first):");
				b.row0 = row;
				b.skip = 0;
				view_draw_tree(c, &b, in, 8);
				row += b.line;
			}
		}
	}
	if (row + 3 > row0 + h)
		return;
	row++;
	canvas_put(c, row++, 0, CA_BOLD, "MOST PAUSED PORTS");
	int ph = row0 + h - row;
	if (ph > max_ports + 1)
		ph = max_ports + 1;
	ports_table(st, c, row, ph, false);
}

/* ---- ports */

/* The sort columns as the ports view's title names them. */
static const char *const sort_titles[VIEW_SORT_COUNT] = {
	[VIEW_SORT_PAUSE_RX] = "pause rx", [VIEW_SORT_PAUSE_TX] = "pause tx",
	[VIEW_SORT_PFC_RX] = "PFC rx/s",   [VIEW_SORT_ECN] = "ECN/s",
	[VIEW_SORT_CNP] = "CNP/s",	   [VIEW_SORT_DROPS] = "drops/s",
	[VIEW_SORT_UTIL] = "utilisation",  [VIEW_SORT_DEVICE] = "device",
};

static void ports_table(struct view_state *st, struct canvas *c, int row, int h,
			bool cursor)
{
	size_t n;
	size_t *idx = view_port_list(st, false, &n);
	int wide = c->cols >= 110;
	int namew = c->cols >= 100 ? 16 : 10;
	int portw = c->cols >= 100 ? 14 : 12;
	int col = 0;
	static const struct {
		const char *title;
		int w;
		enum view_sort s;
	} cols[] = {
		{ "PAUSErx", 8, VIEW_SORT_PAUSE_RX },
		{ "PAUSEtx", 8, VIEW_SORT_PAUSE_TX },
		{ "PFCrx/s", 7, VIEW_SORT_PFC_RX },
		{ "ECN/s", 6, VIEW_SORT_ECN },
		{ "CNP/s", 6, VIEW_SORT_CNP },
		{ "DROP/s", 6, VIEW_SORT_DROPS },
		{ "UTIL", 5, VIEW_SORT_UTIL },
	};
	col = view_text_cell(
	    c, row, col, namew,
	    CA_TITLE | (st->sort == VIEW_SORT_DEVICE ? CA_BOLD : 0),
	    st->sort == VIEW_SORT_DEVICE ? "DEVICE*" : "DEVICE");
	col = view_text_cell(c, row, col, portw, CA_TITLE, "PORT");
	for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++) {
		char t[16];
		snprintf(t, sizeof t, "%*s%s",
			 cols[k].w - (st->sort == cols[k].s), cols[k].title,
			 st->sort == cols[k].s ? "*" : "");
		col = view_text_cell(
		    c, row, col, cols[k].w,
		    CA_TITLE | (st->sort == cols[k].s ? CA_BOLD : 0), t);
	}
	if (wide) {
		col = view_text_cell(c, row, col, 7, CA_TITLE, "  RXbps");
		col = view_text_cell(c, row, col, 7, CA_TITLE, "  TXbps");
		col = view_text_cell(c, row, col, 6, CA_TITLE, " ERR/s");
	}
	canvas_putw(c, row, col, c->cols - col, CA_TITLE, "");
	row++;
	h--;
	if (!n) {
		canvas_put(c, row, 0, CA_DIM,
			   st->have_ports
			       ? (st->filter[0] ? "No port matches the filter."
						: "No ports yet.")
			       : "No data yet.");
		free(idx);
		return;
	}
	int v = st->view;
	if (cursor)
		view_clamp_sel(st, (int)n, h);
	int first = cursor ? st->top[v] : 0;
	for (int i = first; i < (int)n && i - first < h; i++, row++) {
		const struct model_port *p = &st->ports.v[idx[i]];
		col = 0;
		col = view_text_cell(c, row, col, namew, CA_NORMAL, p->device);
		col = view_text_cell(c, row, col, portw,
				     p->link_up == 0 ? CA_CRIT : CA_NORMAL,
				     p->port);
		col = view_pct_cell(c, row, col, 8, p->v[MODEL_PF_PAUSE_RX]);
		col = view_pct_cell(c, row, col, 8, p->v[MODEL_PF_PAUSE_TX]);
		col = view_rate_cell(c, row, col, 7, p->v[MODEL_PF_PFC_RX],
				     CA_NORMAL);
		col = view_rate_cell(c, row, col, 6, p->v[MODEL_PF_ECN],
				     CA_NORMAL);
		col = view_rate_cell(c, row, col, 6,
				     view_sort_value(p, VIEW_SORT_CNP),
				     CA_NORMAL);
		double d = p->v[MODEL_PF_DROPS];
		col = view_rate_cell(c, row, col, 6, d,
				     d > 0 ? CA_CRIT | CA_BOLD : CA_NORMAL);
		char u[16], cell[16];
		view_fmt_pct(p->v[MODEL_PF_UTIL], u, sizeof u);
		snprintf(cell, sizeof cell, "%5s", u);
		col = view_text_cell(
		    c, row, col, 5,
		    isnan(p->v[MODEL_PF_UTIL]) ? CA_DIM : CA_NORMAL, cell);
		if (wide) {
			col = view_rate_cell(c, row, col, 7,
					     p->v[MODEL_PF_RX_BPS], CA_NORMAL);
			col = view_rate_cell(c, row, col, 7,
					     p->v[MODEL_PF_TX_BPS], CA_NORMAL);
			col = view_rate_cell(c, row, col, 6,
					     p->v[MODEL_PF_ERRORS], CA_NORMAL);
		}
		if (p->stale)
			canvas_put(c, row, col, CA_DIM, "stale");
		if (cursor && i == st->sel[v])
			canvas_row_flags(c, row, CA_SELECTED);
	}
	free(idx);
}

static void draw_ports(struct view_state *st, struct canvas *c, int row0, int h)
{
	canvas_putf(c, row0, 0, CA_BOLD, "PORTS by %s%s", sort_titles[st->sort],
		    st->sort_reverse ? " (reversed)" : "");
	if (st->ports.total > (long)st->ports.n)
		canvas_putf(c, row0, 40, CA_DIM, "top %zu of %ld", st->ports.n,
			    st->ports.total);
	ports_table(st, c, row0 + 1, h - 1, true);
}

/* ---- entry points */

void view_draw(struct view_state *st, struct canvas *c)
{
	canvas_clear(c);
	draw_header(st, c, 0, true);
	int row0 = 3, h = c->rows - 4;
	if (h < 1)
		h = 1;
	st->body_rows = h;
	switch (st->view) {
	case VIEW_OVERVIEW:
		draw_overview(st, c, row0, h, false, 1 << 20);
		break;
	case VIEW_PORTS:
		draw_ports(st, c, row0, h);
		break;
	case VIEW_INCIDENT:
		view_draw_incident(st, c, row0, h);
		break;
	case VIEW_HOSTS:
		view_draw_hosts(st, c, row0, h);
		break;
	case VIEW_TARGETS:
		view_draw_targets(st, c, row0, h);
		break;
	}
	if (st->help)
		view_draw_help(c, row0, h);
	if (c->rows >= 4)
		draw_footer(st, c, c->rows - 1);
}

void view_draw_batch(struct view_state *st, struct canvas *c, int max_rows)
{
	/* The views' cursors and sort are the interactive user's: batch
	 * frames draw with their own and put them back. */
	enum view_id saved = st->view;
	enum view_sort saved_sort = st->sort;
	int sel[6], top[6];
	memcpy(sel, st->sel, sizeof sel);
	memcpy(top, st->top, sizeof top);
	memset(st->sel, 0, sizeof st->sel);
	memset(st->top, 0, sizeof st->top);

	canvas_clear(c);
	draw_header(st, c, 0, false);
	int row = 3;
	st->view = VIEW_OVERVIEW;
	st->sort = VIEW_SORT_PAUSE_RX;
	draw_overview(st, c, row, c->rows - row, true, max_rows);
	row = c->used + 1;
	if (st->error)
		canvas_put(c, row++, 0, CA_CRIT, st->error);
	size_t n;
	free(view_port_list(st, true, &n));
	if (n) {
		st->view = VIEW_HOSTS;
		view_draw_hosts(st, c, row,
				(n < (size_t)max_rows ? (int)n : max_rows) + 2);
		row = c->used + 1;
	}
	st->view = VIEW_TARGETS;
	view_draw_targets(st, c, row, (int)st->targets.n + 2);

	st->view = saved;
	st->sort = saved_sort;
	memcpy(st->sel, sel, sizeof sel);
	memcpy(st->top, top, sizeof top);
}

static void move(struct view_state *st, int d)
{
	if (st->view == VIEW_INCIDENT) {
		st->top[VIEW_INCIDENT] += d;
		if (st->top[VIEW_INCIDENT] < 0)
			st->top[VIEW_INCIDENT] = 0;
		return;
	}
	long s = (long)st->sel[st->view] + d;
	if (s < 0)
		s = 0;
	if (s > 1 << 28)
		s = 1 << 28;
	st->sel[st->view] = (int)s; /* the next draw clamps it */
}

static void open_incident(struct view_state *st)
{
	size_t n = view_incident_count(st);
	int sel = st->sel[VIEW_OVERVIEW];
	if (sel < 0 || (size_t)sel >= n)
		return;
	const struct model_incident *in = view_incident_at(st, (size_t)sel);
	model_incident_clear(&st->detail);
	model_incident_copy(&st->detail, in);
	st->have_detail = true;
	st->detail_id = in->id;
	st->top[VIEW_INCIDENT] = 0;
	st->back = st->view;
	st->view = VIEW_INCIDENT;
}

bool view_action(struct view_state *st, enum view_act a)
{
	if (st->help && a != VA_QUIT && a != VA_NONE) {
		st->help = false;
		if (a == VA_BACK || a == VA_HELP)
			return true;
	}
	int page = st->body_rows > 3 ? st->body_rows - 2 : 1;
	switch (a) {
	case VA_QUIT:
		return false;
	case VA_HELP:
		st->help = true;
		break;
	case VA_UP:
		move(st, -1);
		break;
	case VA_DOWN:
		move(st, 1);
		break;
	case VA_PGUP:
		move(st, -page);
		break;
	case VA_PGDN:
		move(st, page);
		break;
	case VA_HOME:
		move(st, -(1 << 28));
		break;
	case VA_END:
		move(st, 1 << 28);
		break;
	case VA_ENTER:
		if (st->view == VIEW_OVERVIEW)
			open_incident(st);
		break;
	case VA_BACK:
		if (st->view == VIEW_INCIDENT)
			st->view = st->back;
		else if (st->filter[0])
			st->filter[0] = '\0';
		break;
	case VA_SORT:
		if (st->view == VIEW_HOSTS)
			st->host_sort = (st->host_sort + 1) % 3;
		else {
			st->sort =
			    (enum view_sort)((st->sort + 1) % VIEW_SORT_COUNT);
			st->sort_reverse = false;
		}
		break;
	case VA_REVERSE:
		st->sort_reverse = !st->sort_reverse;
		break;
	case VA_FILTER:
		st->editing = true;
		break;
	case VA_PAUSE:
		st->paused = !st->paused;
		break;
	case VA_VIEW1:
	case VA_VIEW2:
	case VA_VIEW3:
	case VA_VIEW4:
	case VA_VIEW5: {
		enum view_id v = (enum view_id)(a - VA_VIEW1 + 1);
		if (v == VIEW_INCIDENT && !st->have_detail &&
		    st->incidents.n_active) {
			st->sel[VIEW_OVERVIEW] = 0;
			open_incident(st);
		}
		if (v != VIEW_INCIDENT)
			st->back = v;
		st->view = v;
		break;
	}
	case VA_NONE:
		break;
	}
	return true;
}

void view_filter_key(struct view_state *st, int ch)
{
	size_t n = strlen(st->filter);
	if (ch == 27) {
		st->filter[0] = '\0';
		st->editing = false;
	} else if (ch == '\n' || ch == '\r') {
		st->editing = false;
	} else if (ch == '\b' || ch == 127) {
		/* Delete one UTF-8 character. */
		while (n > 0 &&
		       ((unsigned char)st->filter[n - 1] & 0xc0) == 0x80)
			n--;
		if (n > 0)
			n--;
		st->filter[n] = '\0';
	} else if (ch >= 0x20 && ch < 0x100 && ch != 127 &&
		   n + 1 < sizeof st->filter) {
		st->filter[n] = (char)ch;
		st->filter[n + 1] = '\0';
	}
	for (int v = 0; v < 6; v++)
		st->sel[v] = st->top[v] = 0;
}

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

#include "view.h"

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

static void fmt_age(double secs, char *buf, size_t len)
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

static int pause_attr(double r)
{
	if (isnan(r))
		return CA_DIM;
	if (r >= 0.5)
		return CA_CRIT | CA_BOLD;
	if (r >= 0.05)
		return CA_WARN;
	return CA_NORMAL;
}

static int rate_cell(struct canvas *c, int row, int col, int w, double v,
		     int attr)
{
	char b[32];
	view_fmt_rate(v, b, sizeof b);
	char cell[64];
	snprintf(cell, sizeof cell, "%*s", w, b);
	return canvas_putw(c, row, col, w, isnan(v) ? CA_DIM : attr, cell) + 1;
}

static int pct_cell(struct canvas *c, int row, int col, int w, double v)
{
	char b[32];
	view_fmt_pct(v, b, sizeof b);
	char cell[64];
	snprintf(cell, sizeof cell, "%*s", w, b);
	return canvas_putw(c, row, col, w, pause_attr(v), cell) + 1;
}

static int text_cell(struct canvas *c, int row, int col, int w, int attr,
		     const char *s)
{
	return canvas_putw(c, row, col, w, attr, s ? s : "-") + 1;
}

/* ---- a scrolling body */

struct body {
	struct canvas *c;
	int row0, h; /* the body's first row and height */
	int skip;    /* lines scrolled off */
	int line;    /* lines emitted so far */
};

/* The canvas row for the next line, or -1 when it is off the body. */
static int body_next(struct body *b)
{
	int l = b->line++;
	if (l < b->skip || l - b->skip >= b->h)
		return -1;
	return b->row0 + l - b->skip;
}

/* ---- filter */

static bool token_prio(const char *t, int *prio)
{
	const char *d = NULL;
	if ((t[0] == 'p' || t[0] == 'P') && t[1] >= '0' && t[1] <= '7' && !t[2])
		d = t + 1;
	else if (!strncasecmp(t, "prio:", 5) || !strncasecmp(t, "prio=", 5))
		d = t + 5;
	else if (!strncasecmp(t, "priority:", 9) ||
		 !strncasecmp(t, "priority=", 9))
		d = t + 9;
	if (!d || d[0] < '0' || d[0] > '7' || d[1])
		return false;
	*prio = d[0] - '0';
	return true;
}

/*
 * Whether a row matches the filter: every space-separated token must
 * match; "p3", "prio:3" or "priority=3" needs the port to have priority
 * 3, any other token is a case-insensitive substring of "device:port".
 */
static bool filter_match(const char *filter, const char *device,
			 const char *port, unsigned prio_mask)
{
	if (!filter[0])
		return true;
	char name[512];
	snprintf(name, sizeof name, "%s:%s", device ? device : "",
		 port ? port : "");
	char f[VIEW_FILTER_MAX];
	snprintf(f, sizeof f, "%s", filter);
	char *save = NULL;
	for (char *t = strtok_r(f, " \t", &save); t;
	     t = strtok_r(NULL, " \t", &save)) {
		int p;
		if (token_prio(t, &p)) {
			if (!(prio_mask & (1u << p)))
				return false;
		} else if (!strcasestr(name, t)) {
			return false;
		}
	}
	return true;
}

/* ---- sorting */

static const char *const sort_titles[VIEW_SORT_COUNT] = {
	[VIEW_SORT_PAUSE_RX] = "pause rx", [VIEW_SORT_PAUSE_TX] = "pause tx",
	[VIEW_SORT_PFC_RX] = "PFC rx/s",   [VIEW_SORT_ECN] = "ECN/s",
	[VIEW_SORT_CNP] = "CNP/s",	   [VIEW_SORT_DROPS] = "drops/s",
	[VIEW_SORT_UTIL] = "utilisation",  [VIEW_SORT_DEVICE] = "device",
};

static const char *const sort_fields[VIEW_SORT_COUNT] = {
	[VIEW_SORT_PAUSE_RX] = "pause_ratio_rx",
	[VIEW_SORT_PAUSE_TX] = "pause_ratio_tx",
	[VIEW_SORT_PFC_RX] = "pfc_rx_fps",
	[VIEW_SORT_ECN] = "ecn_marked_pps",
	[VIEW_SORT_CNP] = "cnp_sent_pps",
	[VIEW_SORT_DROPS] = "drops_pps",
	[VIEW_SORT_UTIL] = "utilisation",
	[VIEW_SORT_DEVICE] = "device",
};

const char *view_sort_field(const struct view_state *st)
{
	return sort_fields[st->sort];
}

static double sum2(double a, double b)
{
	if (isnan(a))
		return b;
	if (isnan(b))
		return a;
	return a + b;
}

static double max2(double a, double b)
{
	if (isnan(a))
		return b;
	if (isnan(b))
		return a;
	return a > b ? a : b;
}

static double sort_value(const struct model_port *p, enum view_sort s)
{
	switch (s) {
	case VIEW_SORT_PAUSE_RX:
		return p->v[MODEL_PF_PAUSE_RX];
	case VIEW_SORT_PAUSE_TX:
		return p->v[MODEL_PF_PAUSE_TX];
	case VIEW_SORT_PFC_RX:
		return p->v[MODEL_PF_PFC_RX];
	case VIEW_SORT_ECN:
		return p->v[MODEL_PF_ECN];
	case VIEW_SORT_CNP:
		return sum2(p->v[MODEL_PF_CNP_SENT],
			    p->v[MODEL_PF_CNP_HANDLED]);
	case VIEW_SORT_DROPS:
		return p->v[MODEL_PF_DROPS];
	case VIEW_SORT_UTIL:
		return p->v[MODEL_PF_UTIL];
	default:
		return NAN;
	}
}

/* Names in natural order: digit runs compare as numbers. */
static int natcmp(const char *a, const char *b)
{
	a = a ? a : "";
	b = b ? b : "";
	while (*a && *b) {
		if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
			while (*a == '0')
				a++;
			while (*b == '0')
				b++;
			size_t la = strspn(a, "0123456789");
			size_t lb = strspn(b, "0123456789");
			if (la != lb)
				return la < lb ? -1 : 1;
			int c = strncmp(a, b, la);
			if (c)
				return c;
			a += la;
			b += lb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return *a ? 1 : *b ? -1 : 0;
}

static int name_cmp(const struct model_port *a, const struct model_port *b)
{
	int c = natcmp(a->device, b->device);
	return c ? c : natcmp(a->port, b->port);
}

/* Larger first unless asc; NaN always last; ties by name. */
static int value_cmp(double a, double b, bool asc)
{
	if (isnan(a) || isnan(b))
		return isnan(a) - isnan(b);
	if (a == b)
		return 0;
	return ((a > b) != asc) ? -1 : 1;
}

/* A sort of row indices: the rows, the key and the direction, passed
 * to the comparisons through qsort_r (no process-wide state). */
struct sort_ctx {
	const struct model_port *rows;
	int key;
	bool asc;
};

static int cmp_ports(const void *x, const void *y, void *arg)
{
	const struct sort_ctx *sc = arg;
	const struct model_port *a = &sc->rows[*(const size_t *)x];
	const struct model_port *b = &sc->rows[*(const size_t *)y];
	int c = 0;
	if (sc->key == VIEW_SORT_DEVICE) {
		c = name_cmp(a, b);
		return sc->asc ? c : -c;
	}
	c = value_cmp(sort_value(a, (enum view_sort)sc->key),
		      sort_value(b, (enum view_sort)sc->key), sc->asc);
	return c ? c : name_cmp(a, b);
}

static double host_value(const struct model_port *p, int key)
{
	switch (key) {
	case 1:
		return sum2(p->v[MODEL_PF_CNP_SENT],
			    p->v[MODEL_PF_CNP_HANDLED]);
	case 2:
		return p->v[MODEL_PF_RETRIES];
	default:
		return p->v[MODEL_PF_PAUSE_TX];
	}
}

static int cmp_hosts(const void *x, const void *y, void *arg)
{
	const struct sort_ctx *sc = arg;
	const struct model_port *a = &sc->rows[*(const size_t *)x];
	const struct model_port *b = &sc->rows[*(const size_t *)y];
	int c =
	    value_cmp(host_value(a, sc->key), host_value(b, sc->key), sc->asc);
	/* By pause: the NIC that pauses the fabric (tx) before the ones
	 * it holds (rx). */
	if (!c && sc->key == 0)
		c = value_cmp(a->v[MODEL_PF_PAUSE_RX], b->v[MODEL_PF_PAUSE_RX],
			      sc->asc);
	return c ? c : name_cmp(a, b);
}

/* The ports rows to show, filtered and sorted; *n their count. */
static size_t *port_list(const struct view_state *st, bool nics_only, size_t *n)
{
	size_t *idx = xcalloc(st->ports.n ? st->ports.n : 1, sizeof *idx);
	*n = 0;
	for (size_t i = 0; i < st->ports.n; i++) {
		const struct model_port *p = &st->ports.v[i];
		if (nics_only && !model_port_is_nic(p))
			continue;
		if (!filter_match(st->filter, p->device, p->port, p->prio_mask))
			continue;
		idx[(*n)++] = i;
	}
	struct sort_ctx sc = { .rows = st->ports.v };
	if (nics_only) {
		sc.key = st->host_sort;
		sc.asc = false;
		qsort_r(idx, *n, sizeof *idx, cmp_hosts, &sc);
	} else {
		sc.key = st->sort;
		sc.asc = (st->sort == VIEW_SORT_DEVICE) != st->sort_reverse;
		qsort_r(idx, *n, sizeof *idx, cmp_ports, &sc);
	}
	return idx;
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
	    p ? max2(p->v[MODEL_PF_PAUSE_RX], p->v[MODEL_PF_PAUSE_TX]) : NAN;
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
		drops = sum2(drops, p->v[MODEL_PF_DROPS]);
		ecn = sum2(ecn, p->v[MODEL_PF_ECN]);
		cnp = sum2(cnp, p->v[MODEL_PF_CNP_SENT]);
		if (max2(p->v[MODEL_PF_PAUSE_RX], p->v[MODEL_PF_PAUSE_TX]) >=
		    0.001)
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
		fmt_age(st->now - st->last_ok, age, sizeof age);
		col = canvas_putf(c, row, col, CA_CRIT | CA_BOLD,
				  "disconnected, retrying (data %s old): %s",
				  age, st->conn_error ? st->conn_error : "");
	} else if (st->have_status && st->status.version) {
		char up[32];
		fmt_age(st->status.uptime_seconds, up, sizeof up);
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

static const char *origin_text(const struct model_incident *in, char *b,
			       size_t len)
{
	snprintf(b, len, "%s%s%s", in->origin_device ? in->origin_device : "?",
		 in->origin_port ? ":" : "",
		 in->origin_port ? in->origin_port : "");
	return b;
}

static int state_attr(const char *state)
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
	col = text_cell(c, row, col, 3, CA_NORMAL, in->id >= 0 ? b : "?");
	col = text_cell(c, row, col, 18, CA_BOLD, in->kind);
	col = text_cell(c, row, col, 8, state_attr(in->state), in->state);
	col =
	    text_cell(c, row, col, 20, CA_NORMAL, origin_text(in, b, sizeof b));
	snprintf(b, sizeof b, "%d", in->priority);
	col = text_cell(c, row, col, 2, CA_NORMAL, in->priority >= 0 ? b : "-");
	double since = isnan(in->fired) ? in->started : in->fired;
	fmt_age(st->now - since, t, sizeof t);
	snprintf(v, sizeof v, "%6s", t);
	col = text_cell(c, row, col, 6, CA_NORMAL, v);
	view_fmt_rate(in->peak, t, sizeof t);
	if (!isnan(in->peak) && in->peak < 10 && in->peak != floor(in->peak))
		snprintf(t, sizeof t, "%.2f", in->peak);
	snprintf(v, sizeof v, "%5s", t);
	col = text_cell(c, row, col, 5, CA_NORMAL, v);
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
static bool is_pause(const struct model_incident *in)
{
	static const char *const kinds[] = { "pfc_storm",
					     "congestion_spreading",
					     "pfc_deadlock" };
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (in->kind && !strcmp(in->kind, kinds[i]))
			return true;
	return false;
}

static void draw_tree(struct canvas *c, struct body *b,
		      const struct model_incident *in, int indent)
{
	for (size_t i = 0; i < in->n_tree; i++) {
		const struct model_node *nd = &in->tree[i];
		int row = body_next(b);
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
		int row = body_next(b);
		if (row >= 0)
			canvas_putf(c, row, indent, CA_DIM,
				    "... %zu more not shown", in->tree_dropped);
	}
}

static size_t incident_count(const struct view_state *st)
{
	return st->incidents.n_active + st->incidents.n_recent;
}

static const struct model_incident *incident_at(const struct view_state *st,
						size_t i)
{
	if (i < st->incidents.n_active)
		return &st->incidents.active[i];
	i -= st->incidents.n_active;
	return i < st->incidents.n_recent ? &st->incidents.recent[i] : NULL;
}

static void clamp_sel(struct view_state *st, int n, int h)
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
	size_t n = incident_count(st);
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
			clamp_sel(st, (int)n, room);
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
			    incident_at(st, (size_t)i);
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
				    is_pause(in)
					? "pause tree (origin to victims):"
					: "ports involved (origin first):");
				b.row0 = row;
				b.skip = 0;
				draw_tree(c, &b, in, 8);
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

static void ports_table(struct view_state *st, struct canvas *c, int row, int h,
			bool cursor)
{
	size_t n;
	size_t *idx = port_list(st, false, &n);
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
	col = text_cell(c, row, col, namew,
			CA_TITLE | (st->sort == VIEW_SORT_DEVICE ? CA_BOLD : 0),
			st->sort == VIEW_SORT_DEVICE ? "DEVICE*" : "DEVICE");
	col = text_cell(c, row, col, portw, CA_TITLE, "PORT");
	for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++) {
		char t[16];
		snprintf(t, sizeof t, "%*s%s",
			 cols[k].w - (st->sort == cols[k].s), cols[k].title,
			 st->sort == cols[k].s ? "*" : "");
		col = text_cell(
		    c, row, col, cols[k].w,
		    CA_TITLE | (st->sort == cols[k].s ? CA_BOLD : 0), t);
	}
	if (wide) {
		col = text_cell(c, row, col, 7, CA_TITLE, "  RXbps");
		col = text_cell(c, row, col, 7, CA_TITLE, "  TXbps");
		col = text_cell(c, row, col, 6, CA_TITLE, " ERR/s");
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
		clamp_sel(st, (int)n, h);
	int first = cursor ? st->top[v] : 0;
	for (int i = first; i < (int)n && i - first < h; i++, row++) {
		const struct model_port *p = &st->ports.v[idx[i]];
		col = 0;
		col = text_cell(c, row, col, namew, CA_NORMAL, p->device);
		col = text_cell(c, row, col, portw,
				p->link_up == 0 ? CA_CRIT : CA_NORMAL, p->port);
		col = pct_cell(c, row, col, 8, p->v[MODEL_PF_PAUSE_RX]);
		col = pct_cell(c, row, col, 8, p->v[MODEL_PF_PAUSE_TX]);
		col =
		    rate_cell(c, row, col, 7, p->v[MODEL_PF_PFC_RX], CA_NORMAL);
		col = rate_cell(c, row, col, 6, p->v[MODEL_PF_ECN], CA_NORMAL);
		col = rate_cell(c, row, col, 6, sort_value(p, VIEW_SORT_CNP),
				CA_NORMAL);
		double d = p->v[MODEL_PF_DROPS];
		col = rate_cell(c, row, col, 6, d,
				d > 0 ? CA_CRIT | CA_BOLD : CA_NORMAL);
		char u[16], cell[16];
		view_fmt_pct(p->v[MODEL_PF_UTIL], u, sizeof u);
		snprintf(cell, sizeof cell, "%5s", u);
		col = text_cell(c, row, col, 5,
				isnan(p->v[MODEL_PF_UTIL]) ? CA_DIM : CA_NORMAL,
				cell);
		if (wide) {
			col = rate_cell(c, row, col, 7, p->v[MODEL_PF_RX_BPS],
					CA_NORMAL);
			col = rate_cell(c, row, col, 7, p->v[MODEL_PF_TX_BPS],
					CA_NORMAL);
			col = rate_cell(c, row, col, 6, p->v[MODEL_PF_ERRORS],
					CA_NORMAL);
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

/* ---- incident detail */

static const struct model_incident *find_incident(const struct view_state *st,
						  long long id)
{
	for (size_t i = 0; i < incident_count(st); i++) {
		const struct model_incident *in = incident_at(st, i);
		if (in->id == id)
			return in;
	}
	return NULL;
}

static void draw_sparkline(struct view_state *st, struct canvas *c, int row,
			   const struct model_incident *in)
{
	const struct view_hist *h =
	    view_history(st, in->origin_device, in->origin_port);
	int col = canvas_put(c, row, 0, CA_NORMAL, "Pause ratio at origin: ");
	if (!h || !h->n) {
		canvas_put(c, row, col, CA_DIM, "no samples yet");
		return;
	}
	int width = c->cols - col - 12;
	if (width < 8)
		width = 8;
	unsigned n = h->n < (unsigned)width ? h->n : (unsigned)width;
	for (unsigned k = 0; k < n; k++) {
		unsigned slot =
		    (h->head + VIEW_HIST_LEN - n + k) % VIEW_HIST_LEN;
		float v = h->v[slot];
		if (isnan(v)) {
			canvas_putwc(c, row, col++, CA_DIM, L' ');
			continue;
		}
		int lvl = (int)lrintf(v * 7);
		canvas_putwc(c, row, col++, pause_attr(v),
			     canvas_glyph_spark(c, lvl));
	}
	char p[16];
	view_fmt_pct(h->v[(h->head + VIEW_HIST_LEN - 1) % VIEW_HIST_LEN], p,
		     sizeof p);
	canvas_putf(c, row, col + 1, CA_BOLD, "now %s", p);
}

static void draw_incident(struct view_state *st, struct canvas *c, int row0,
			  int h)
{
	const struct model_incident *live = find_incident(st, st->detail_id);
	const struct model_incident *in = live		    ? live
					  : st->have_detail ? &st->detail
							    : NULL;
	if (!in) {
		canvas_put(c, row0, 0, CA_DIM,
			   "No incident chosen: pick one in the overview (1) "
			   "and press Enter.");
		return;
	}
	struct body b = { c, row0, h, st->top[VIEW_INCIDENT], 0 };
	char o[256], t1[32], t2[32], t3[32];
	int row = body_next(&b);
	if (row >= 0) {
		int col = canvas_putf(c, row, 0, CA_BOLD, "Incident #%lld %s ",
				      in->id, in->kind ? in->kind : "?");
		col = canvas_put(c, row, col, state_attr(in->state),
				 in->state ? in->state : "?");
		if (in->priority >= 0)
			col = canvas_putf(c, row, col, CA_NORMAL,
					  "  priority %d", in->priority);
		if (!live)
			canvas_put(c, row, col + 2, CA_DIM,
				   "(no longer listed by fabmond)");
	}
	if ((row = body_next(&b)) >= 0) {
		int col = canvas_put(c, row, 0, CA_NORMAL, "Started at: ");
		canvas_put(c, row, col, CA_CRIT | CA_BOLD,
			   origin_text(in, o, sizeof o));
	}
	if (in->summary && (row = body_next(&b)) >= 0)
		canvas_put(c, row, 0, CA_DIM, in->summary);
	if ((row = body_next(&b)) >= 0) {
		fmt_age(st->now - in->started, t1, sizeof t1);
		fmt_age(st->now - in->fired, t2, sizeof t2);
		fmt_age(st->now - in->peak_time, t3, sizeof t3);
		char pk[32];
		view_fmt_rate(in->peak, pk, sizeof pk);
		if (!isnan(in->peak) && in->peak < 10 &&
		    in->peak != floor(in->peak))
			snprintf(pk, sizeof pk, "%.3f", in->peak);
		int col =
		    canvas_putf(c, row, 0, CA_NORMAL,
				"Seen %s ago, fired %s ago, peak %s %s ago", t1,
				t2, pk, t3);
		if (!isnan(in->resolved)) {
			fmt_age(st->now - in->resolved, t1, sizeof t1);
			canvas_putf(c, row, col, CA_OK, ", resolved %s ago",
				    t1);
		}
	}
	if ((row = body_next(&b)) >= 0)
		draw_sparkline(st, c, row, in);
	body_next(&b);
	if ((row = body_next(&b)) >= 0)
		canvas_putf(c, row, 0, CA_BOLD, "EVIDENCE (%zu)",
			    in->n_evidence);
	for (size_t i = 0; i < in->n_evidence; i++) {
		if ((row = body_next(&b)) < 0)
			continue;
		const struct model_evidence *e = &in->evidence[i];
		char v[32];
		if (!isnan(e->value) && fabs(e->value) < 10)
			snprintf(v, sizeof v, "%.3g", e->value);
		else
			view_fmt_rate(e->value, v, sizeof v);
		int col = canvas_putw(c, row, 2, 22, CA_NORMAL, e->name);
		col = canvas_putf(c, row, col + 1, CA_BOLD, "%8s", v);
		if (e->device)
			canvas_putf(c, row, col + 2, CA_DIM, "on %s%s%s",
				    e->device, e->port ? ":" : "",
				    e->port ? e->port : "");
	}
	body_next(&b);
	if ((row = body_next(&b)) >= 0)
		canvas_putf(c, row, 0, CA_BOLD,
			    is_pause(in)
				? "PAUSE TREE from the origin to its "
				  "victims (%zu ports)"
				: "PORTS INVOLVED, from the origin (%zu)",
			    in->n_tree);
	if (!in->n_tree && (row = body_next(&b)) >= 0)
		canvas_put(c, row, 2, CA_DIM, "(no tree in the answer)");
	draw_tree(c, &b, in, 2);
	/* Scrolling stops when the last line is in view. */
	int max_top = b.line - h;
	if (st->top[VIEW_INCIDENT] > max_top)
		st->top[VIEW_INCIDENT] = max_top > 0 ? max_top : 0;
}

/* ---- hosts */

static void draw_hosts(struct view_state *st, struct canvas *c, int row0, int h)
{
	static const char *const by[] = { "pause time", "CNP activity",
					  "transport retries" };
	canvas_putf(c, row0, 0, CA_BOLD, "HOSTS: NIC ports by %s",
		    by[st->host_sort]);
	int row = row0 + 1;
	int col = 0;
	int namew = c->cols >= 100 ? 16 : 10;
	col = text_cell(c, row, col, namew, CA_TITLE, "HOST");
	col = text_cell(c, row, col, 10, CA_TITLE, "PORT");
	col = text_cell(c, row, col, 8, CA_TITLE,
			st->host_sort == 0 ? "PAUSEtx*" : " PAUSEtx");
	col = text_cell(c, row, col, 8, CA_TITLE, " PAUSErx");
	col = text_cell(c, row, col, 7, CA_TITLE, "   CE/s");
	col = text_cell(c, row, col, 8, CA_TITLE,
			st->host_sort == 1 ? "CNPtx/s*" : " CNPtx/s");
	col = text_cell(c, row, col, 7, CA_TITLE, "CNPrx/s");
	col = text_cell(c, row, col, 8, CA_TITLE,
			st->host_sort == 2 ? "RETRY/s*" : " RETRY/s");
	col = text_cell(c, row, col, 6, CA_TITLE, "DROP/s");
	canvas_putw(c, row, col, c->cols - col, CA_TITLE, "");
	row++;
	size_t n;
	size_t *idx = port_list(st, true, &n);
	if (!n)
		canvas_put(c, row, 0, CA_DIM,
			   "No NIC ports in fabmond's data.");
	int body = h - 2;
	clamp_sel(st, (int)n, body);
	int first = st->top[VIEW_HOSTS];
	for (int i = first; i < (int)n && i - first < body; i++, row++) {
		const struct model_port *p = &st->ports.v[idx[i]];
		col = text_cell(c, row, 0, namew, CA_NORMAL, p->device);
		col = text_cell(c, row, col, 10, CA_NORMAL, p->port);
		col = pct_cell(c, row, col, 8, p->v[MODEL_PF_PAUSE_TX]);
		col = pct_cell(c, row, col, 8, p->v[MODEL_PF_PAUSE_RX]);
		col = rate_cell(c, row, col, 7, p->v[MODEL_PF_ROCE_CE],
				CA_NORMAL);
		col = rate_cell(c, row, col, 8, p->v[MODEL_PF_CNP_SENT],
				CA_NORMAL);
		col = rate_cell(c, row, col, 7, p->v[MODEL_PF_CNP_HANDLED],
				CA_NORMAL);
		double r = p->v[MODEL_PF_RETRIES];
		col = rate_cell(c, row, col, 8, r, r > 0 ? CA_WARN : CA_NORMAL);
		double d = p->v[MODEL_PF_DROPS];
		rate_cell(c, row, col, 6, d,
			  d > 0 ? CA_CRIT | CA_BOLD : CA_NORMAL);
		if (i == st->sel[VIEW_HOSTS])
			canvas_row_flags(c, row, CA_SELECTED);
	}
	free(idx);
}

/* ---- targets */

static int cmp_targets(const void *x, const void *y)
{
	const struct model_target *a = *(const struct model_target *const *)x;
	const struct model_target *b = *(const struct model_target *const *)y;
	if ((a->up == 1) != (b->up == 1))
		return a->up == 1 ? 1 : -1;
	int c = natcmp(a->target, b->target);
	return c ? c : natcmp(a->protocol, b->protocol);
}

static void draw_targets(struct view_state *st, struct canvas *c, int row0,
			 int h)
{
	size_t up = 0;
	for (size_t i = 0; i < st->targets.n; i++)
		up += st->targets.v[i].up == 1;
	canvas_putf(c, row0, 0, CA_BOLD, "TARGETS: %zu of %zu up", up,
		    st->targets.n);
	int row = row0 + 1, col = 0;
	col = text_cell(c, row, col, 14, CA_TITLE, "TARGET");
	col = text_cell(c, row, col, 5, CA_TITLE, "PROTO");
	col = text_cell(c, row, col, 5, CA_TITLE, "STATE");
	col = text_cell(c, row, col, 7, CA_TITLE, "    AGE");
	col = text_cell(c, row, col, 7, CA_TITLE, "UPDATES");
	col = text_cell(c, row, col, 6, CA_TITLE, "RECONN");
	col = text_cell(c, row, col, 6, CA_TITLE, "ERRORS");
	col = text_cell(c, row, col, 6, CA_TITLE, "DECODE");
	canvas_putw(c, row, col, c->cols - col, CA_TITLE, "LAST ERROR");
	row++;
	const struct model_target **v =
	    xcalloc(st->targets.n ? st->targets.n : 1, sizeof *v);
	size_t n = 0;
	for (size_t i = 0; i < st->targets.n; i++)
		if (filter_match(st->filter, st->targets.v[i].target, "", 0xff))
			v[n++] = &st->targets.v[i];
	qsort(v, n, sizeof *v, cmp_targets);
	if (!n)
		canvas_put(c, row, 0, CA_DIM,
			   st->have_targets ? "No targets." : "No data yet.");
	int body = h - 2;
	clamp_sel(st, (int)n, body);
	int first = st->top[VIEW_TARGETS];
	for (int i = first; i < (int)n && i - first < body; i++, row++) {
		const struct model_target *t = v[i];
		char b[32], cell[32];
		col = text_cell(c, row, 0, 14, CA_NORMAL, t->target);
		col = text_cell(c, row, col, 5, CA_NORMAL, t->protocol);
		col = text_cell(c, row, col, 5,
				t->up == 1   ? CA_OK
				: t->up == 0 ? CA_CRIT | CA_BOLD
					     : CA_DIM,
				t->up == 1   ? "up"
				: t->up == 0 ? "DOWN"
					     : "?");
		fmt_age(t->age_seconds, b, sizeof b);
		snprintf(cell, sizeof cell, "%7s", b);
		col = text_cell(c, row, col, 7,
				t->age_seconds > 5 ? CA_WARN : CA_NORMAL, cell);
		col = rate_cell(c, row, col, 7, t->counters[MODEL_TC_UPDATES],
				CA_NORMAL);
		double r = t->counters[MODEL_TC_RECONNECTS];
		col = rate_cell(c, row, col, 6, r, r > 0 ? CA_WARN : CA_NORMAL);
		double e = t->counters[MODEL_TC_ERRORS];
		col = rate_cell(c, row, col, 6, e, e > 0 ? CA_WARN : CA_NORMAL);
		double d = t->counters[MODEL_TC_DECODE_ERRORS];
		col = rate_cell(c, row, col, 6, d, d > 0 ? CA_WARN : CA_NORMAL);
		if (t->last_error)
			canvas_putw(c, row, col, c->cols - col,
				    t->up == 0 ? CA_CRIT : CA_DIM,
				    t->last_error);
		if (i == st->sel[VIEW_TARGETS])
			canvas_row_flags(c, row, CA_SELECTED);
	}
	free(v);
}

/* ---- help */

static void draw_help(struct canvas *c, int row0, int h)
{
	static const char *const lines[] = {
		"fabtop keys",
		"",
		"  1 2 3 4 5     overview, ports, incident, hosts, targets",
		"  Up Down       move the cursor (j k too)",
		"  PgUp PgDn     a page up or down; Home End",
		"  Enter         open the incident under the cursor",
		"  Esc           back (from the incident), close this help",
		"  s F6          sort by the next column; r reverses",
		"  /             filter on device:port text, p3 for priority",
		"  p space       pause or resume updates",
		"  h ?           this help",
		"  q             quit",
		"",
		"Colours: red firing/down/drops, yellow pending/paused,",
		"green healthy; bold and reverse without colour.",
	};
	int w = 64 < c->cols - 2 ? 64 : c->cols - 2;
	int x = (c->cols - w) / 2;
	int n = (int)(sizeof lines / sizeof lines[0]);
	for (int i = 0; i < n + 2 && i < h; i++) {
		canvas_putw(c, row0 + i, x, w, CA_SELECTED, "");
		if (i >= 1 && i <= n)
			canvas_put(c, row0 + i, x + 1,
				   CA_SELECTED | (i == 1 ? CA_BOLD : 0),
				   lines[i - 1]);
	}
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
		draw_incident(st, c, row0, h);
		break;
	case VIEW_HOSTS:
		draw_hosts(st, c, row0, h);
		break;
	case VIEW_TARGETS:
		draw_targets(st, c, row0, h);
		break;
	}
	if (st->help)
		draw_help(c, row0, h);
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
	free(port_list(st, true, &n));
	if (n) {
		st->view = VIEW_HOSTS;
		draw_hosts(st, c, row,
			   (n < (size_t)max_rows ? (int)n : max_rows) + 2);
		row = c->used + 1;
	}
	st->view = VIEW_TARGETS;
	draw_targets(st, c, row, (int)st->targets.n + 2);

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
	size_t n = incident_count(st);
	int sel = st->sel[VIEW_OVERVIEW];
	if (sel < 0 || (size_t)sel >= n)
		return;
	const struct model_incident *in = incident_at(st, (size_t)sel);
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

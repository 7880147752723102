/*
 * fabtop's incident, hosts, targets and help views (see view.h): drawn
 * from the state onto the canvas like the overview and ports views in
 * view.c, with the helpers of view_int.h. Pure; one thread.
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

/* ---- incident detail */

static const struct model_incident *find_incident(const struct view_state *st,
						  long long id)
{
	for (size_t i = 0; i < view_incident_count(st); i++) {
		const struct model_incident *in = view_incident_at(st, i);
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
		canvas_putwc(c, row, col++, view_pause_attr(v),
			     canvas_glyph_spark(c, lvl));
	}
	char p[16];
	view_fmt_pct(h->v[(h->head + VIEW_HIST_LEN - 1) % VIEW_HIST_LEN], p,
		     sizeof p);
	canvas_putf(c, row, col + 1, CA_BOLD, "now %s", p);
}

void view_draw_incident(struct view_state *st, struct canvas *c, int row0,
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
	int row = view_body_next(&b);
	if (row >= 0) {
		int col = canvas_putf(c, row, 0, CA_BOLD, "Incident #%lld %s ",
				      in->id, in->kind ? in->kind : "?");
		col = canvas_put(c, row, col, view_state_attr(in->state),
				 in->state ? in->state : "?");
		if (in->priority >= 0)
			col = canvas_putf(c, row, col, CA_NORMAL,
					  "  priority %d", in->priority);
		if (!live)
			canvas_put(c, row, col + 2, CA_DIM,
				   "(no longer listed by fabmond)");
	}
	if ((row = view_body_next(&b)) >= 0) {
		int col = canvas_put(c, row, 0, CA_NORMAL, "Started at: ");
		canvas_put(c, row, col, CA_CRIT | CA_BOLD,
			   view_origin_text(in, o, sizeof o));
	}
	if (in->summary && (row = view_body_next(&b)) >= 0)
		canvas_put(c, row, 0, CA_DIM, in->summary);
	if ((row = view_body_next(&b)) >= 0) {
		view_fmt_age(st->now - in->started, t1, sizeof t1);
		view_fmt_age(st->now - in->fired, t2, sizeof t2);
		view_fmt_age(st->now - in->peak_time, t3, sizeof t3);
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
			view_fmt_age(st->now - in->resolved, t1, sizeof t1);
			canvas_putf(c, row, col, CA_OK, ", resolved %s ago",
				    t1);
		}
	}
	if ((row = view_body_next(&b)) >= 0)
		draw_sparkline(st, c, row, in);
	view_body_next(&b);
	if ((row = view_body_next(&b)) >= 0)
		canvas_putf(c, row, 0, CA_BOLD, "EVIDENCE (%zu)",
			    in->n_evidence);
	for (size_t i = 0; i < in->n_evidence; i++) {
		if ((row = view_body_next(&b)) < 0)
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
	view_body_next(&b);
	if ((row = view_body_next(&b)) >= 0)
		canvas_putf(c, row, 0, CA_BOLD,
			    view_is_pause(in)
				? "PAUSE TREE from the origin to its "
				  "victims (%zu ports)"
				: "PORTS INVOLVED, from the origin (%zu)",
			    in->n_tree);
	if (!in->n_tree && (row = view_body_next(&b)) >= 0)
		canvas_put(c, row, 2, CA_DIM, "(no tree in the answer)");
	view_draw_tree(c, &b, in, 2);
	/* Scrolling stops when the last line is in view. */
	int max_top = b.line - h;
	if (st->top[VIEW_INCIDENT] > max_top)
		st->top[VIEW_INCIDENT] = max_top > 0 ? max_top : 0;
}

/* ---- hosts */

void view_draw_hosts(struct view_state *st, struct canvas *c, int row0, int h)
{
	static const char *const by[] = { "pause time", "CNP activity",
					  "transport retries" };
	canvas_putf(c, row0, 0, CA_BOLD, "HOSTS: NIC ports by %s",
		    by[st->host_sort]);
	int row = row0 + 1;
	int col = 0;
	int namew = c->cols >= 100 ? 16 : 10;
	col = view_text_cell(c, row, col, namew, CA_TITLE, "HOST");
	col = view_text_cell(c, row, col, 10, CA_TITLE, "PORT");
	col = view_text_cell(c, row, col, 8, CA_TITLE,
			     st->host_sort == 0 ? "PAUSEtx*" : " PAUSEtx");
	col = view_text_cell(c, row, col, 8, CA_TITLE, " PAUSErx");
	col = view_text_cell(c, row, col, 7, CA_TITLE, "   CE/s");
	col = view_text_cell(c, row, col, 8, CA_TITLE,
			     st->host_sort == 1 ? "CNPtx/s*" : " CNPtx/s");
	col = view_text_cell(c, row, col, 7, CA_TITLE, "CNPrx/s");
	col = view_text_cell(c, row, col, 8, CA_TITLE,
			     st->host_sort == 2 ? "RETRY/s*" : " RETRY/s");
	col = view_text_cell(c, row, col, 6, CA_TITLE, "DROP/s");
	canvas_putw(c, row, col, c->cols - col, CA_TITLE, "");
	row++;
	size_t n;
	size_t *idx = view_port_list(st, true, &n);
	if (!n)
		canvas_put(c, row, 0, CA_DIM,
			   "No NIC ports in fabmond's data.");
	int body = h - 2;
	view_clamp_sel(st, (int)n, body);
	int first = st->top[VIEW_HOSTS];
	for (int i = first; i < (int)n && i - first < body; i++, row++) {
		const struct model_port *p = &st->ports.v[idx[i]];
		col = view_text_cell(c, row, 0, namew, CA_NORMAL, p->device);
		col = view_text_cell(c, row, col, 10, CA_NORMAL, p->port);
		col = view_pct_cell(c, row, col, 8, p->v[MODEL_PF_PAUSE_TX]);
		col = view_pct_cell(c, row, col, 8, p->v[MODEL_PF_PAUSE_RX]);
		col = view_rate_cell(c, row, col, 7, p->v[MODEL_PF_ROCE_CE],
				     CA_NORMAL);
		col = view_rate_cell(c, row, col, 8, p->v[MODEL_PF_CNP_SENT],
				     CA_NORMAL);
		col = view_rate_cell(c, row, col, 7, p->v[MODEL_PF_CNP_HANDLED],
				     CA_NORMAL);
		double r = p->v[MODEL_PF_RETRIES];
		col = view_rate_cell(c, row, col, 8, r,
				     r > 0 ? CA_WARN : CA_NORMAL);
		double d = p->v[MODEL_PF_DROPS];
		view_rate_cell(c, row, col, 6, d,
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
	int c = view_natcmp(a->target, b->target);
	return c ? c : view_natcmp(a->protocol, b->protocol);
}

void view_draw_targets(struct view_state *st, struct canvas *c, int row0, int h)
{
	size_t up = 0;
	for (size_t i = 0; i < st->targets.n; i++)
		up += st->targets.v[i].up == 1;
	canvas_putf(c, row0, 0, CA_BOLD, "TARGETS: %zu of %zu up", up,
		    st->targets.n);
	int row = row0 + 1, col = 0;
	col = view_text_cell(c, row, col, 14, CA_TITLE, "TARGET");
	col = view_text_cell(c, row, col, 5, CA_TITLE, "PROTO");
	col = view_text_cell(c, row, col, 5, CA_TITLE, "STATE");
	col = view_text_cell(c, row, col, 7, CA_TITLE, "    AGE");
	col = view_text_cell(c, row, col, 7, CA_TITLE, "UPDATES");
	col = view_text_cell(c, row, col, 6, CA_TITLE, "RECONN");
	col = view_text_cell(c, row, col, 6, CA_TITLE, "ERRORS");
	col = view_text_cell(c, row, col, 6, CA_TITLE, "DECODE");
	canvas_putw(c, row, col, c->cols - col, CA_TITLE, "LAST ERROR");
	row++;
	const struct model_target **v =
	    xcalloc(st->targets.n ? st->targets.n : 1, sizeof *v);
	size_t n = 0;
	for (size_t i = 0; i < st->targets.n; i++)
		if (view_filter_match(st->filter, st->targets.v[i].target, "",
				      0xff))
			v[n++] = &st->targets.v[i];
	qsort(v, n, sizeof *v, cmp_targets);
	if (!n)
		canvas_put(c, row, 0, CA_DIM,
			   st->have_targets ? "No targets." : "No data yet.");
	int body = h - 2;
	view_clamp_sel(st, (int)n, body);
	int first = st->top[VIEW_TARGETS];
	for (int i = first; i < (int)n && i - first < body; i++, row++) {
		const struct model_target *t = v[i];
		char b[32], cell[32];
		col = view_text_cell(c, row, 0, 14, CA_NORMAL, t->target);
		col = view_text_cell(c, row, col, 5, CA_NORMAL, t->protocol);
		col = view_text_cell(c, row, col, 5,
				     t->up == 1	  ? CA_OK
				     : t->up == 0 ? CA_CRIT | CA_BOLD
						  : CA_DIM,
				     t->up == 1	  ? "up"
				     : t->up == 0 ? "DOWN"
						  : "?");
		view_fmt_age(t->age_seconds, b, sizeof b);
		snprintf(cell, sizeof cell, "%7s", b);
		col = view_text_cell(c, row, col, 7,
				     t->age_seconds > 5 ? CA_WARN : CA_NORMAL,
				     cell);
		col = view_rate_cell(c, row, col, 7,
				     t->counters[MODEL_TC_UPDATES], CA_NORMAL);
		double r = t->counters[MODEL_TC_RECONNECTS];
		col = view_rate_cell(c, row, col, 6, r,
				     r > 0 ? CA_WARN : CA_NORMAL);
		double e = t->counters[MODEL_TC_ERRORS];
		col = view_rate_cell(c, row, col, 6, e,
				     e > 0 ? CA_WARN : CA_NORMAL);
		double d = t->counters[MODEL_TC_DECODE_ERRORS];
		col = view_rate_cell(c, row, col, 6, d,
				     d > 0 ? CA_WARN : CA_NORMAL);
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

void view_draw_help(struct canvas *c, int row0, int h)
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

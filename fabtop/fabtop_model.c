/*
 * model: parsing fabmond's API answers (see fabtop_model.h).
 *
 * jansson parses the body into a tree; the readers below pull members
 * out with a type check each, so a wrong type is the same as a missing
 * member. Strings are copied (the tree is freed before returning).
 */
#include "config.h"

#include "fabtop_model.h"

#include "mem.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const pf_names[MODEL_PF_COUNT] = {
	[MODEL_PF_SPEED] = "speed_bps",
	[MODEL_PF_RX_BPS] = "rx_bps",
	[MODEL_PF_TX_BPS] = "tx_bps",
	[MODEL_PF_UTIL] = "utilisation",
	[MODEL_PF_PAUSE_RX] = "pause_ratio_rx",
	[MODEL_PF_PAUSE_TX] = "pause_ratio_tx",
	[MODEL_PF_PFC_RX] = "pfc_rx_fps",
	[MODEL_PF_PFC_TX] = "pfc_tx_fps",
	[MODEL_PF_ECN] = "ecn_marked_pps",
	[MODEL_PF_ROCE_CE] = "roce_ce_pps",
	[MODEL_PF_CNP_SENT] = "cnp_sent_pps",
	[MODEL_PF_CNP_HANDLED] = "cnp_handled_pps",
	[MODEL_PF_CNP_IGNORED] = "cnp_ignored_pps",
	[MODEL_PF_DROPS] = "drops_pps",
	[MODEL_PF_ERRORS] = "errors_pps",
	[MODEL_PF_RETRIES] = "retries_pps",
};

static const char *const pp_names[MODEL_PP_COUNT] = {
	[MODEL_PP_PAUSE_RX] = "pause_ratio_rx",
	[MODEL_PP_PAUSE_TX] = "pause_ratio_tx",
	[MODEL_PP_PFC_RX] = "pfc_rx_fps",
	[MODEL_PP_PFC_TX] = "pfc_tx_fps",
	[MODEL_PP_DISCARDS] = "discards_pps",
};

static const char *const tc_names[MODEL_TC_COUNT] = {
	[MODEL_TC_UPDATES] = "updates",
	[MODEL_TC_RECONNECTS] = "reconnects",
	[MODEL_TC_ERRORS] = "errors",
	[MODEL_TC_DECODE_ERRORS] = "decode_errors",
	[MODEL_TC_TIMEOUTS] = "timeouts",
};

static const char *const role_names[] = {
	[MODEL_ROLE_UNKNOWN] = "?",	[MODEL_ROLE_ORIGIN] = "origin",
	[MODEL_ROLE_VICTIM] = "victim", [MODEL_ROLE_SPREADER] = "spreader",
	[MODEL_ROLE_MEMBER] = "member",
};

const char *model_pf_name(enum model_pf f)
{
	return (unsigned)f < MODEL_PF_COUNT ? pf_names[f] : NULL;
}

int model_pf_lookup(const char *name)
{
	for (int i = 0; i < MODEL_PF_COUNT; i++)
		if (name && strcmp(name, pf_names[i]) == 0)
			return i;
	return -1;
}

const char *model_role_name(enum model_role r)
{
	return (unsigned)r <= MODEL_ROLE_MEMBER ? role_names[r] : "?";
}

bool model_port_is_nic(const struct model_port *p)
{
	if (p->port && strncmp(p->port, "mlx5_", 5) == 0)
		return true;
	return !isnan(p->v[MODEL_PF_ROCE_CE]) ||
	       !isnan(p->v[MODEL_PF_CNP_SENT]) ||
	       !isnan(p->v[MODEL_PF_CNP_HANDLED]);
}

static void set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	if (!err || !errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* Parses body; returns its top-level object or NULL with err set. */
static json_t *load(const char *body, size_t len, const char *what, char *err,
		    size_t errlen)
{
	json_error_t je;
	if (!body) {
		set_err(err, errlen, "%s: empty answer", what);
		return NULL;
	}
	json_t *root = json_loadb(body, len, JSON_ALLOW_NUL, &je);
	if (!root) {
		set_err(err, errlen, "%s: not JSON (line %d column %d: %s)",
			what, je.line, je.column, je.text);
		return NULL;
	}
	if (!json_is_object(root)) {
		set_err(err, errlen, "%s: the answer is not a JSON object",
			what);
		json_decref(root);
		return NULL;
	}
	return root;
}

static double num(const json_t *o, const char *key)
{
	const json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
	if (json_is_number(v)) {
		double d = json_number_value(v);
		return isfinite(d) ? d : NAN;
	}
	return NAN;
}

/* A copy of a string member, or NULL. NUL bytes cut the copy short. */
static char *str(const json_t *o, const char *key)
{
	const json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
	return json_is_string(v) ? xstrdup(json_string_value(v)) : NULL;
}

static int tristate(const json_t *o, const char *key)
{
	const json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
	return json_is_boolean(v) ? json_is_true(v) : -1;
}

/* An integer member in [lo, hi], else def. */
static long long integer(const json_t *o, const char *key, long long lo,
			 long long hi, long long def)
{
	const json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
	if (!json_is_integer(v))
		return def;
	json_int_t i = json_integer_value(v);
	return i >= lo && i <= hi ? (long long)i : def;
}

static const json_t *array(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);
	return json_is_array(v) ? v : NULL;
}

static size_t bounded(const json_t *arr, size_t max)
{
	size_t n = arr ? json_array_size(arr) : 0;
	return n < max ? n : max;
}

static void fill_nan(double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		v[i] = NAN;
}

static void status_unknown(struct model_status *s)
{
	s->reload_ok = -1;
	s->uptime_seconds = s->series = s->stale_series = NAN;
	s->targets = s->targets_up = NAN;
}

static void parse_port(const json_t *j, struct model_port *p)
{
	memset(p, 0, sizeof *p);
	p->device = str(j, "device");
	p->port = str(j, "port");
	p->link_up = tristate(j, "link_up");
	p->stale = tristate(j, "stale") == 1;
	for (int f = 0; f < MODEL_PF_COUNT; f++)
		p->v[f] = num(j, pf_names[f]);
	for (int q = 0; q < MODEL_PRIORITIES; q++)
		fill_nan(p->prio[q], MODEL_PP_COUNT);
	const json_t *prios = json_object_get(j, "priorities");
	if (!json_is_object(prios))
		return;
	const char *k;
	const json_t *pv;
	json_object_foreach((json_t *)prios, k, pv)
	{
		if (k[0] < '0' || k[0] >= '0' + MODEL_PRIORITIES || k[1] ||
		    !json_is_object(pv))
			continue;
		int prio = k[0] - '0';
		p->prio_mask |= 1u << prio;
		for (int f = 0; f < MODEL_PP_COUNT; f++)
			p->prio[prio][f] = num(pv, pp_names[f]);
	}
}

int model_parse_ports(const char *body, size_t len, struct model_ports *out,
		      char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	out->total = -1;
	json_t *root = load(body, len, "/api/v1/ports", err, errlen);
	if (!root)
		return -EINVAL;
	const json_t *rows = array(root, "ports");
	if (!rows) {
		set_err(err, errlen, "/api/v1/ports: no \"ports\" array");
		json_decref(root);
		return -EINVAL;
	}
	out->total = (long)integer(root, "total_ports", 0, 1LL << 40, -1);
	size_t n = bounded(rows, MODEL_MAX_ROWS);
	out->v = xcalloc(n ? n : 1, sizeof *out->v);
	for (size_t i = 0; i < n; i++) {
		struct model_port *p = &out->v[out->n];
		parse_port(json_array_get(rows, i), p);
		if (!p->device || !p->port) {
			free(p->device);
			free(p->port);
			continue;
		}
		out->n++;
	}
	json_decref(root);
	return 0;
}

int model_parse_targets(const char *body, size_t len, struct model_targets *out,
			char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	json_t *root = load(body, len, "/api/v1/targets", err, errlen);
	if (!root)
		return -EINVAL;
	const json_t *rows = array(root, "targets");
	if (!rows) {
		set_err(err, errlen, "/api/v1/targets: no \"targets\" array");
		json_decref(root);
		return -EINVAL;
	}
	size_t n = bounded(rows, MODEL_MAX_ROWS);
	out->v = xcalloc(n ? n : 1, sizeof *out->v);
	for (size_t i = 0; i < n; i++) {
		const json_t *j = json_array_get(rows, i);
		struct model_target *t = &out->v[out->n];
		t->target = str(j, "target");
		if (!t->target)
			continue;
		t->protocol = str(j, "protocol");
		t->up = tristate(j, "up");
		t->age_seconds = num(j, "last_update_age_seconds");
		t->duration_seconds = num(j, "last_duration_seconds");
		t->last_error = str(j, "last_error");
		const json_t *c = json_object_get(j, "counters");
		for (int k = 0; k < MODEL_TC_COUNT; k++)
			t->counters[k] = num(c, tc_names[k]);
		out->n++;
	}
	json_decref(root);
	return 0;
}

int model_parse_status(const char *body, size_t len, struct model_status *out,
		       char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	json_t *root = load(body, len, "/api/v1/status", err, errlen);
	if (!root) {
		status_unknown(out);
		return -EINVAL;
	}
	out->version = str(root, "version");
	out->uptime_seconds = num(root, "uptime_seconds");
	out->series = num(root, "series");
	out->stale_series = num(root, "stale_series");
	out->targets = num(root, "targets");
	out->targets_up = num(root, "targets_up");
	out->reload_ok =
	    tristate(json_object_get(root, "reload"), "successful");
	json_decref(root);
	return 0;
}

static enum model_role parse_role(const json_t *j)
{
	const json_t *v = json_object_get(j, "role");
	const char *s = json_is_string(v) ? json_string_value(v) : "";
	for (int r = MODEL_ROLE_ORIGIN; r <= MODEL_ROLE_MEMBER; r++)
		if (strcmp(s, role_names[r]) == 0)
			return (enum model_role)r;
	return MODEL_ROLE_UNKNOWN;
}

static void parse_node(const json_t *j, struct model_node *nd)
{
	memset(nd, 0, sizeof *nd);
	nd->device = str(j, "device");
	nd->port = str(j, "port");
	nd->priority = (int)integer(j, "priority", 0, 7, -1);
	nd->role = parse_role(j);
	nd->hops = (int)integer(j, "depth", 0, 1 << 20, -1);
}

struct tree_walk {
	struct model_incident *in;
	size_t cap;
	char shape[MODEL_MAX_LEVEL + 2];
};

/*
 * Appends node j at level with the shape's prefix built so far, then its
 * children. Bounded by MODEL_MAX_LEVEL and MODEL_MAX_SUBJECTS; what is
 * past either bound is counted, not kept.
 */
static void walk_tree(struct tree_walk *w, const json_t *j, int level,
		      bool last)
{
	struct model_incident *in = w->in;
	if (!json_is_object(j))
		return;
	if (level > MODEL_MAX_LEVEL || in->n_tree >= MODEL_MAX_SUBJECTS) {
		in->tree_dropped++;
		return;
	}
	if (in->n_tree == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 16;
		in->tree = xreallocarray(in->tree, w->cap, sizeof *in->tree);
	}
	struct model_node *nd = &in->tree[in->n_tree++];
	parse_node(j, nd);
	nd->level = level;
	if (level > 0)
		w->shape[level - 1] = last ? 'L' : 'T';
	memcpy(nd->shape, w->shape, (size_t)level);
	nd->shape[level] = '\0';
	const json_t *kids = json_object_get(j, "children");
	if (!json_is_array(kids))
		return;
	/* Below this node, its own column continues only if it has later
	 * siblings. */
	if (level > 0)
		w->shape[level - 1] = last ? ' ' : '|';
	size_t n = json_array_size(kids);
	for (size_t i = 0; i < n; i++)
		walk_tree(w, json_array_get(kids, i), level + 1, i + 1 == n);
}

static void parse_incident(const json_t *j, struct model_incident *in)
{
	memset(in, 0, sizeof *in);
	in->id = integer(j, "id", 0, (1LL << 62), -1);
	in->kind = str(j, "kind");
	in->state = str(j, "state");
	in->priority = (int)integer(j, "priority", 0, 7, -1);
	const json_t *org = json_object_get(j, "origin");
	in->origin_device = str(org, "device");
	in->origin_port = str(org, "port");
	in->origin_far_end = json_is_true(json_object_get(org, "far_end"));
	const json_t *snd = json_object_get(org, "sender");
	in->sender_unmonitored = json_is_string(snd) &&
				 !strcmp(json_string_value(snd), "unmonitored");
	in->summary = str(j, "summary");
	in->started = num(j, "started_seconds");
	in->fired = num(j, "fired_seconds");
	in->resolved = num(j, "resolved_seconds");
	in->peak_time = num(j, "peak_seconds");
	in->peak = num(j, "peak");

	const json_t *subs = array(j, "subjects");
	size_t n = bounded(subs, MODEL_MAX_SUBJECTS);
	in->subjects = xcalloc(n ? n : 1, sizeof *in->subjects);
	for (size_t i = 0; i < n; i++) {
		const json_t *s = json_array_get(subs, i);
		if (!json_is_object(s))
			continue;
		parse_node(s, &in->subjects[in->n_subjects++]);
	}

	struct tree_walk w = { .in = in };
	walk_tree(&w, json_object_get(j, "tree"), 0, true);

	const json_t *ev = array(j, "evidence");
	n = bounded(ev, MODEL_MAX_SUBJECTS);
	in->evidence = xcalloc(n ? n : 1, sizeof *in->evidence);
	for (size_t i = 0; i < n; i++) {
		const json_t *e = json_array_get(ev, i);
		struct model_evidence *me = &in->evidence[in->n_evidence];
		me->name = str(e, "name");
		if (!me->name)
			continue;
		me->device = str(e, "device");
		me->port = str(e, "port");
		me->value = num(e, "value");
		in->n_evidence++;
	}
}

static void parse_list(const json_t *root, const char *key,
		       struct model_incident **v, size_t *n)
{
	const json_t *arr = array(root, key);
	size_t cnt = bounded(arr, MODEL_MAX_ROWS);
	*v = xcalloc(cnt ? cnt : 1, sizeof **v);
	*n = 0;
	for (size_t i = 0; i < cnt; i++) {
		const json_t *j = json_array_get(arr, i);
		if (json_is_object(j))
			parse_incident(j, &(*v)[(*n)++]);
	}
}

int model_parse_incidents(const char *body, size_t len,
			  struct model_incidents *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	out->ticks = out->tick_seconds = NAN;
	json_t *root = load(body, len, "/api/v1/incidents", err, errlen);
	if (!root)
		return -EINVAL;
	if (!array(root, "active") && !array(root, "recent")) {
		set_err(err, errlen,
			"/api/v1/incidents: no \"active\" or \"recent\" array");
		json_decref(root);
		return -EINVAL;
	}
	parse_list(root, "active", &out->active, &out->n_active);
	parse_list(root, "recent", &out->recent, &out->n_recent);
	const json_t *eng = json_object_get(root, "engine");
	out->ticks = num(eng, "ticks");
	out->tick_seconds = num(eng, "tick_seconds");
	json_decref(root);
	return 0;
}

char *model_parse_error(const char *body, size_t len)
{
	if (!body)
		return NULL;
	json_t *root = json_loadb(body, len, JSON_ALLOW_NUL, NULL);
	char *e = json_is_object(root) ? str(root, "error") : NULL;
	json_decref(root);
	return e;
}

struct out {
	char *s;
	size_t len, cap;
};

static void out_add(struct out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void out_add(struct out *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *piece = xvasprintf(fmt, ap);
	va_end(ap);
	size_t n = strlen(piece);
	if (o->len + n + 1 > o->cap) {
		o->cap = (o->len + n + 1) * 2;
		o->s = xrealloc(o->s, o->cap);
	}
	memcpy(o->s + o->len, piece, n + 1);
	o->len += n;
	free(piece);
}

static void format_scalar(struct out *o, const json_t *v)
{
	if (json_is_string(v))
		out_add(o, "%s", json_string_value(v));
	else if (json_is_integer(v))
		out_add(o, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		out_add(o, "%.6g", json_real_value(v));
	else if (json_is_true(v))
		out_add(o, "yes");
	else if (json_is_false(v))
		out_add(o, "no");
	else
		out_add(o, "-");
}

static bool is_scalar(const json_t *v)
{
	return !json_is_object(v) && !json_is_array(v);
}

/* jansson bounds the nesting it parses (2048), so this recursion is
 * bounded too; indentation stops growing past 16 levels. */
static void format_value(struct out *o, const json_t *v, int ind)
{
	int pad = (ind < 16 ? ind : 16) * 2;
	if (json_is_object(v)) {
		const char *k;
		const json_t *m;
		json_object_foreach((json_t *)v, k, m)
		{
			out_add(o, "%*s%s:", pad, "", k);
			if (is_scalar(m)) {
				out_add(o, " ");
				format_scalar(o, m);
				out_add(o, "\n");
			} else {
				out_add(o, "\n");
				format_value(o, m, ind + 1);
			}
		}
	} else if (json_is_array(v)) {
		size_t i;
		const json_t *m;
		json_array_foreach(v, i, m)
		{
			if (is_scalar(m)) {
				out_add(o, "%*s- ", pad, "");
				format_scalar(o, m);
				out_add(o, "\n");
			} else {
				out_add(o, "%*s-\n", pad, "");
				format_value(o, m, ind + 1);
			}
		}
	} else {
		out_add(o, "%*s", pad, "");
		format_scalar(o, v);
		out_add(o, "\n");
	}
}

char *model_format_json(const char *body, size_t len)
{
	if (!body)
		return NULL;
	json_t *root =
	    json_loadb(body, len, JSON_ALLOW_NUL | JSON_DECODE_ANY, NULL);
	if (!root)
		return NULL;
	struct out o = { 0 };
	out_add(&o, "%s", "");
	format_value(&o, root, 0);
	json_decref(root);
	return o.s;
}

void model_ports_clear(struct model_ports *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].device);
		free(p->v[i].port);
	}
	free(p->v);
	memset(p, 0, sizeof *p);
	p->total = -1;
}

void model_ports_move(struct model_ports *dst, struct model_ports *src)
{
	model_ports_clear(dst);
	*dst = *src;
	memset(src, 0, sizeof *src);
	src->total = -1;
}

void model_targets_clear(struct model_targets *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].target);
		free(t->v[i].protocol);
		free(t->v[i].last_error);
	}
	free(t->v);
	memset(t, 0, sizeof *t);
}

void model_status_clear(struct model_status *s)
{
	if (!s)
		return;
	free(s->version);
	memset(s, 0, sizeof *s);
	status_unknown(s);
}

static void nodes_free(struct model_node *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].device);
		free(v[i].port);
	}
	free(v);
}

void model_incident_clear(struct model_incident *in)
{
	if (!in)
		return;
	free(in->kind);
	free(in->state);
	free(in->origin_device);
	free(in->origin_port);
	free(in->summary);
	nodes_free(in->subjects, in->n_subjects);
	nodes_free(in->tree, in->n_tree);
	for (size_t i = 0; i < in->n_evidence; i++) {
		free(in->evidence[i].name);
		free(in->evidence[i].device);
		free(in->evidence[i].port);
	}
	free(in->evidence);
	memset(in, 0, sizeof *in);
	in->id = -1;
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static struct model_node *nodes_copy(const struct model_node *v, size_t n)
{
	struct model_node *c = xcalloc(n ? n : 1, sizeof *c);
	for (size_t i = 0; i < n; i++) {
		c[i] = v[i];
		c[i].device = dup_or_null(v[i].device);
		c[i].port = dup_or_null(v[i].port);
	}
	return c;
}

void model_incident_copy(struct model_incident *dst,
			 const struct model_incident *src)
{
	*dst = *src;
	dst->kind = dup_or_null(src->kind);
	dst->state = dup_or_null(src->state);
	dst->origin_device = dup_or_null(src->origin_device);
	dst->origin_port = dup_or_null(src->origin_port);
	dst->summary = dup_or_null(src->summary);
	dst->subjects = nodes_copy(src->subjects, src->n_subjects);
	dst->tree = nodes_copy(src->tree, src->n_tree);
	dst->evidence = xcalloc(src->n_evidence ? src->n_evidence : 1,
				sizeof *dst->evidence);
	for (size_t i = 0; i < src->n_evidence; i++) {
		dst->evidence[i] = src->evidence[i];
		dst->evidence[i].name = dup_or_null(src->evidence[i].name);
		dst->evidence[i].device = dup_or_null(src->evidence[i].device);
		dst->evidence[i].port = dup_or_null(src->evidence[i].port);
	}
}

void model_incidents_clear(struct model_incidents *in)
{
	if (!in)
		return;
	for (size_t i = 0; i < in->n_active; i++)
		model_incident_clear(&in->active[i]);
	for (size_t i = 0; i < in->n_recent; i++)
		model_incident_clear(&in->recent[i]);
	free(in->active);
	free(in->recent);
	memset(in, 0, sizeof *in);
	in->ticks = in->tick_seconds = NAN;
}

/* ---- --report: the validation report as plain text */

/* A number member as text ("-" when missing, null or not a number). */
static const char *rnum(char *buf, size_t cap, const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);
	if (json_is_integer(v))
		snprintf(buf, cap, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v) && fabs(json_real_value(v)) >= 1e6)
		snprintf(buf, cap, "%.0f", json_real_value(v));
	else if (json_is_real(v))
		snprintf(buf, cap, "%.6g", json_real_value(v));
	else
		snprintf(buf, cap, "-");
	return buf;
}

/* An epoch-seconds member as RFC 3339 UTC ("-" when not a number). */
static const char *rtime(char *buf, size_t cap, const json_t *o,
			 const char *key)
{
	const json_t *v = json_object_get(o, key);
	double d = json_is_number(v) ? json_number_value(v) : NAN;
	/* Years 0 to 9999 only: no overflowing cast, four-digit years. */
	bool ok = d >= -62167219200.0 && d < 253402300800.0;
	struct tm tm;
	time_t t = ok ? (time_t)floor(d) : 0;
	if (!ok || !gmtime_r(&t, &tm) ||
	    !strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, cap, "-");
	return buf;
}

static const char *rstr(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "-";
}

static void report_priorities(struct out *o, const json_t *a)
{
	char b[8][32];
	out_add(o, "\nPause and drops per priority\n");
	out_add(o, "  %-4s %-8s %10s %10s %11s %11s %8s %10s\n", "PRIO",
		"LOSSLESS", "PFC-RX", "PFC-TX", "PAUSE-RX s", "PAUSE-TX s",
		"DROPS", "ECN");
	size_t i;
	const json_t *p;
	json_array_foreach(a, i, p)
	{
		const json_t *l = json_object_get(p, "lossless");
		out_add(o, "  %-4s %-8s %10s %10s %11s %11s %8s %10s\n",
			rnum(b[0], 32, p, "priority"),
			json_is_boolean(l) ? (json_is_true(l) ? "yes" : "no")
					   : "-",
			rnum(b[1], 32, p, "pause_frames_rx"),
			rnum(b[2], 32, p, "pause_frames_tx"),
			rnum(b[3], 32, p, "pause_seconds_rx"),
			rnum(b[4], 32, p, "pause_seconds_tx"),
			rnum(b[5], 32, p, "drops"),
			rnum(b[6], 32, p, "ecn_marked"));
	}
	if (!json_array_size(a))
		out_add(o, "  (none)\n");
}

static void report_incidents(struct out *o, const json_t *in)
{
	char b[3][32];
	out_add(o, "\nIncidents:");
	const json_t *counts = json_object_get(in, "counts");
	const char *k;
	const json_t *v;
	int any = 0;
	json_object_foreach((json_t *)counts, k, v)
	{
		if (json_is_number(v) && json_number_value(v) != 0) {
			out_add(o, "%s %s %s", any ? "," : "", k,
				rnum(b[0], 32, counts, k));
			any = 1;
		}
	}
	out_add(o, "%s\n", any ? "" : " none");
	size_t i;
	const json_t *e;
	json_array_foreach(json_object_get(in, "list"), i, e)
	{
		const json_t *org = json_object_get(e, "origin");
		/* A storm from outside the view says so, as the list does. */
		const json_t *snd = json_object_get(org, "sender");
		out_add(o, "  #%s %s %s p%s at %s%s:%s%s: %s\n",
			rnum(b[0], 32, e, "id"), rstr(e, "kind"),
			rstr(e, "state"), rnum(b[1], 32, e, "priority"),
			json_is_true(json_object_get(org, "far_end"))
			    ? "far end of "
			    : "",
			rstr(org, "device"), rstr(org, "port"),
			json_is_string(snd) ? " (unmonitored)" : "",
			rstr(e, "summary"));
	}
	if (json_is_true(json_object_get(in, "truncated")))
		out_add(o, "  (list truncated)\n");
}

static void report_ecn(struct out *o, const json_t *e)
{
	char b[2][32];
	out_add(o, "\nECN before PFC: %s (%s pausing ports checked)\n",
		rstr(e, "verdict"), rnum(b[0], 32, e, "checked_ports"));
	size_t i;
	const json_t *p;
	json_array_foreach(json_object_get(e, "ports"), i, p) out_add(
	    o, "  %s:%s p%s paused its peer %s s without ECN\n",
	    rstr(p, "device"), rstr(p, "port"), rnum(b[0], 32, p, "priority"),
	    rnum(b[1], 32, p, "pause_seconds_tx"));
}

static void report_stragglers(struct out *o, const json_t *a)
{
	char b[3][32];
	out_add(o, "\nStragglers (hosts by pause time)\n");
	size_t i;
	const json_t *h;
	json_array_foreach(a, i, h)
	    out_add(o, "  %-20s %10s s (tx %s s, rx %s s)\n", rstr(h, "device"),
		    rnum(b[0], 32, h, "pause_seconds"),
		    rnum(b[1], 32, h, "pause_seconds_tx"),
		    rnum(b[2], 32, h, "pause_seconds_rx"));
	if (!json_array_size(a))
		out_add(o, "  (none)\n");
}

static void report_coverage(struct out *o, const json_t *root)
{
	char b[4][32];
	const json_t *c = json_object_get(root, "coverage");
	out_add(o, "\nCoverage: %s .. %s, %s, step %s s",
		rtime(b[0], 32, c, "from_seconds"),
		rtime(b[1], 32, c, "to_seconds"),
		json_is_true(json_object_get(c, "complete")) ? "complete"
							     : "incomplete",
		rnum(b[2], 32, c, "step_seconds"));
	const json_t *d = json_object_get(c, "detail_from_seconds");
	if (json_is_null(d))
		out_add(o, "; no per-port detail");
	else if (json_is_number(d))
		out_add(o, "; per-port detail from %s",
			rtime(b[3], 32, c, "detail_from_seconds"));
	out_add(o, "\n");
}

static const char *const report_known[] = {
	"from_seconds", "to_seconds",	  "from",      "to",
	"coverage",	"verdict",	  "reasons",   "priorities",
	"drops",	"pause_on_lossy", "incidents", "ecn_before_pfc",
	"cnp",		"stragglers",
};

char *model_format_report(const char *body, size_t len,
			  enum model_verdict *verdict)
{
	*verdict = MODEL_VERDICT_UNKNOWN;
	if (!body)
		return NULL;
	json_t *root = json_loadb(body, len, JSON_ALLOW_NUL, NULL);
	const char *vd = json_string_value(json_object_get(root, "verdict"));
	if (!vd) {
		json_decref(root);
		return NULL;
	}
	if (!strcmp(vd, "pass"))
		*verdict = MODEL_VERDICT_PASS;
	else if (!strcmp(vd, "warn"))
		*verdict = MODEL_VERDICT_WARN;
	else if (!strcmp(vd, "fail"))
		*verdict = MODEL_VERDICT_FAIL;

	char b[4][32];
	struct out o = { 0 };
	out_add(&o, "Fabric validation report %s .. %s\n", rstr(root, "from"),
		rstr(root, "to"));
	out_add(&o, "Verdict: %s\n", vd);
	size_t i;
	const json_t *v;
	json_array_foreach(json_object_get(root, "reasons"), i, v) out_add(
	    &o, "  - %s\n", json_is_string(v) ? json_string_value(v) : "?");

	const json_t *d = json_object_get(root, "drops");
	if (json_is_object(d))
		out_add(&o, "\nDrops: %s: lossless %s, NIC out_of_buffer %s\n",
			rstr(d, "verdict"), rnum(b[0], 32, d, "lossless"),
			rnum(b[1], 32, d, "nic_out_of_buffer"));
	d = json_object_get(root, "pause_on_lossy");
	if (json_is_object(d))
		out_add(&o, "Pause on lossy priorities: %s: %s frames, %s s\n",
			rstr(d, "verdict"), rnum(b[0], 32, d, "frames"),
			rnum(b[1], 32, d, "seconds"));
	if (json_is_array(json_object_get(root, "priorities")))
		report_priorities(&o, json_object_get(root, "priorities"));
	if (json_is_object(json_object_get(root, "incidents")))
		report_incidents(&o, json_object_get(root, "incidents"));
	if (json_is_object(json_object_get(root, "ecn_before_pfc")))
		report_ecn(&o, json_object_get(root, "ecn_before_pfc"));
	d = json_object_get(root, "cnp");
	if (json_is_object(d))
		out_add(&o,
			"\nCNP: %s CE received, %s sent, %s handled, %s "
			"ignored\n",
			rnum(b[0], 32, d, "ce_received"),
			rnum(b[1], 32, d, "sent"), rnum(b[2], 32, d, "handled"),
			rnum(b[3], 32, d, "ignored"));
	if (json_is_array(json_object_get(root, "stragglers")))
		report_stragglers(&o, json_object_get(root, "stragglers"));
	if (json_is_object(json_object_get(root, "coverage")))
		report_coverage(&o, root);

	/* Members this fabtop does not know, as indented text. */
	const char *k;
	int other = 0;
	json_object_foreach(root, k, v)
	{
		size_t n = sizeof report_known / sizeof *report_known;
		size_t j = 0;
		while (j < n && strcmp(k, report_known[j]))
			j++;
		if (j < n)
			continue;
		if (!other++)
			out_add(&o, "\nOther:\n");
		if (is_scalar(v)) {
			out_add(&o, "  %s: ", k);
			format_scalar(&o, v);
			out_add(&o, "\n");
		} else {
			out_add(&o, "  %s:\n", k);
			format_value(&o, v, 2);
		}
	}
	json_decref(root);
	return o.s;
}

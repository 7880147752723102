/*
 * incidents: JSON and Prometheus views of the rule engine and the link
 * table (see incidents.h).
 *
 * The pause tree of an incident is its subjects linked by parent index:
 * the JSON nests children under their parents, root (the origin) first,
 * so a reader walks it root to leaves. fabmon_incident_active has one
 * series per (kind, device, port, priority, role, sender) of a firing
 * incident: two incidents of one kind sharing a victim port give one
 * series, so lines are sorted and duplicates dropped before they are
 * written.
 */
#include "config.h"

#include "incidents.h"

#include "json.h"
#include "links.h"
#include "mem.h"
#include "rules.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static json_t *jtime(int64_t ns)
{
	return ns ? json_secs(ns) : json_null();
}

static json_t *jprio(int p)
{
	return p >= 0 ? json_integer(p) : json_null();
}

static int put_json(struct buf *out, json_t *j, int status)
{
	int rc = api_put_json(out, j);
	return rc < 0 ? rc : status;
}

static json_t *subject_json(const struct rules_subject *s)
{
	json_t *o = json_object();
	json_object_set_new(o, "device", json_str(s->device));
	json_object_set_new(o, "port",
			    s->port[0] ? json_str(s->port) : json_null());
	json_object_set_new(o, "priority", jprio(s->priority));
	json_object_set_new(o, "role", json_string(rules_role_name(s->role)));
	json_object_set_new(o, "depth", json_integer(s->depth));
	return o;
}

/* The subtree under subject i (children found by parent index). */
static json_t *tree_json(const struct rules_incident *in, size_t i,
			 unsigned depth)
{
	json_t *o = subject_json(&in->subjects[i]);
	json_t *kids = json_array();
	/* Bounded by the subject count; depth guards a malformed chain. */
	if (depth < 64)
		for (size_t k = 0; k < in->n_subjects; k++)
			if (k != i && in->subjects[k].parent == (int)i)
				json_array_append_new(
				    kids, tree_json(in, k, depth + 1));
	json_object_set_new(o, "children", kids);
	return o;
}

static json_t *incident_json(const struct rules_incident *in)
{
	json_t *o = json_object();
	json_object_set_new(o, "id", json_integer((json_int_t)in->id));
	json_object_set_new(o, "kind", json_string(rules_kind_name(in->kind)));
	json_object_set_new(o, "state",
			    json_string(rules_state_name(in->state)));
	json_object_set_new(o, "priority", jprio(in->priority));
	if (in->n_subjects) {
		const struct rules_subject *s = &in->subjects[0];
		json_t *org = json_object();
		json_object_set_new(org, "device", json_str(s->device));
		json_object_set_new(
		    org, "port", s->port[0] ? json_str(s->port) : json_null());
		json_object_set_new(org, "priority", jprio(in->priority));
		/* A storm from outside the view (doc/api.md): only then. */
		if (in->far_end)
			json_object_set_new(org, "far_end", json_true());
		if (in->sender != RULES_SENDER_MONITORED)
			json_object_set_new(
			    org, "sender",
			    json_string(rules_sender_name(in->sender)));
		json_object_set_new(o, "origin", org);
	}
	json_object_set_new(o, "summary", json_str(in->summary));
	json_object_set_new(o, "started_seconds", jtime(in->started_ns));
	json_object_set_new(o, "fired_seconds", jtime(in->fired_ns));
	json_object_set_new(o, "resolved_seconds", jtime(in->resolved_ns));
	json_object_set_new(o, "peak_seconds", jtime(in->peak_ns));
	json_object_set_new(o, "peak", json_num(in->peak));
	json_t *subs = json_array();
	for (size_t i = 0; i < in->n_subjects; i++)
		json_array_append_new(subs, subject_json(&in->subjects[i]));
	json_object_set_new(o, "subjects", subs);
	json_object_set_new(o, "tree",
			    in->n_subjects ? tree_json(in, 0, 0) : json_null());
	json_t *ev = json_array();
	for (size_t i = 0; i < in->n_evidence; i++) {
		const struct rules_evidence *e = &in->evidence[i];
		json_t *j = json_object();
		json_object_set_new(j, "name", json_str(e->name));
		json_object_set_new(j, "device",
				    e->device[0] ? json_str(e->device)
						 : json_null());
		json_object_set_new(
		    j, "port", e->port[0] ? json_str(e->port) : json_null());
		json_object_set_new(j, "value", json_num(e->value));
		json_array_append_new(ev, j);
	}
	json_object_set_new(o, "evidence", ev);
	return o;
}

static int kind_by_name(const char *s)
{
	for (int k = 0; k < RULES_KINDS; k++)
		if (strcmp(s, rules_kind_name((enum rules_kind)k)) == 0)
			return k;
	return -1;
}

int incidents_api_incidents(struct rules *r, const struct api_param *params,
			    size_t n_params, struct buf *out)
{
	int kind = -1;
	bool active = true, recent = true;
	for (size_t i = 0; i < n_params; i++) {
		const char *k = params[i].key, *v = params[i].value;
		int rc = api_param_once(params, i, out);
		if (rc)
			return rc;
		if (strcmp(k, "kind") == 0) {
			if ((kind = kind_by_name(v)) < 0)
				return api_put_bad_request(
				    out, "kind: no incident kind '%.64s'", v);
		} else if (strcmp(k, "state") == 0) {
			if (strcmp(v, "active") == 0)
				recent = false;
			else if (strcmp(v, "recent") == 0)
				active = false;
			else if (strcmp(v, "all") != 0)
				return api_put_bad_request(
				    out,
				    "state: '%.64s' is not active, "
				    "recent or all",
				    v);
		} else {
			return api_put_bad_request(
			    out, "unknown parameter '%.64s'", k);
		}
	}
	/* Without an engine (a test's API context) there is nothing to
	 * list: the same shape, empty. */
	struct rules_snapshot s = { 0 };
	if (r)
		rules_snapshot(r, false, &s);
	json_t *root = json_object();
	json_t *a = json_array(), *rc = json_array();
	for (size_t i = 0; active && i < s.n_active; i++)
		if (kind < 0 || (int)s.active[i].kind == kind)
			json_array_append_new(a, incident_json(&s.active[i]));
	for (size_t i = 0; recent && i < s.n_recent; i++)
		if (kind < 0 || (int)s.recent[i].kind == kind)
			json_array_append_new(rc, incident_json(&s.recent[i]));
	json_object_set_new(root, "active", a);
	json_object_set_new(root, "recent", rc);
	json_t *tot = json_object();
	for (int k = 0; k < RULES_KINDS; k++)
		json_object_set_new(tot, rules_kind_name((enum rules_kind)k),
				    json_integer((json_int_t)s.fired_total[k]));
	json_object_set_new(root, "fired_total", tot);
	json_t *eng = json_object();
	json_object_set_new(eng, "ticks", json_integer((json_int_t)s.ticks));
	json_object_set_new(eng, "ports", json_integer((json_int_t)s.ports));
	json_object_set_new(eng, "last_tick_cpu_seconds",
			    json_num(s.last_tick_cpu_s));
	json_object_set_new(eng, "tick_seconds",
			    r ? json_num((double)rules_tick_ns(r) / 1e9)
			      : json_null());
	json_object_set_new(root, "engine", eng);
	rules_snapshot_free(&s);
	return put_json(out, root, 200);
}

static json_t *end_json(const char *dev, const char *port)
{
	json_t *o = json_object();
	json_object_set_new(o, "device", json_str(dev));
	json_object_set_new(o, "port", json_str(port));
	return o;
}

static json_t *names_json(char *const *v, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_str(v[i]));
	return a;
}

int incidents_api_topology(struct links *l, const struct api_param *params,
			   size_t n_params, struct buf *out)
{
	if (n_params)
		return api_put_bad_request(out, "unknown parameter '%.64s'",
					   params[0].key);
	struct links_snapshot s = { 0 };
	if (l)
		links_snapshot(l, &s);
	json_t *root = json_object();
	json_object_set_new(root, "generation",
			    json_integer((json_int_t)s.generation));
	json_t *arr = json_array();
	for (size_t i = 0; i < s.n_links; i++) {
		const struct links_entry *e = &s.links[i];
		json_t *o = json_object();
		json_object_set_new(o, "a", end_json(e->a_device, e->a_port));
		json_object_set_new(o, "b", end_json(e->b_device, e->b_port));
		json_object_set_new(o, "source",
				    json_string(e->source == LINKS_SRC_STATIC
						    ? "static"
						    : "lldp"));
		json_object_set_new(o, "resolved", json_boolean(e->resolved));
		json_object_set_new(o, "overridden",
				    json_boolean(e->overridden));
		if (e->source == LINKS_SRC_LLDP) {
			json_object_set_new(o, "reporter",
					    json_str(e->reporter));
			json_object_set_new(o, "age_seconds",
					    json_num((double)e->age_ns / 1e9));
		}
		json_array_append_new(arr, o);
	}
	json_object_set_new(root, "links", arr);
	json_t *rails = json_array();
	for (size_t i = 0; i < s.n_rails; i++) {
		json_t *o = json_object();
		json_object_set_new(o, "rail", json_integer((json_int_t)i));
		json_object_set_new(
		    o, "leaves",
		    names_json(s.rails[i].leaves, s.rails[i].n_leaves));
		json_object_set_new(
		    o, "nics", names_json(s.rails[i].nics, s.rails[i].n_nics));
		json_array_append_new(rails, o);
	}
	json_object_set_new(root, "rails", rails);
	links_snapshot_free(&s);
	return put_json(out, root, 200);
}

/* Prometheus. */

static void put_labels(struct buf *b, const char *const *names,
		       const char *const *values, size_t n)
{
	buf_putc(b, '{');
	for (size_t i = 0; i < n; i++) {
		if (i)
			buf_putc(b, ',');
		buf_puts(b, names[i]);
		buf_puts(b, "=\"");
		buf_put_label_escaped(b, values[i]);
		buf_putc(b, '"');
	}
	buf_putc(b, '}');
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One fabmon_incident_active line for subject sb of in (malloc'd), or
 * NULL when out of memory. sender is "" (the same series as no label)
 * but for a storm from an unmonitored sender. */
static char *active_line(const struct rules_incident *in,
			 const struct rules_subject *sb)
{
	char prio[16] = "";
	if (sb->priority >= 0)
		snprintf(prio, sizeof prio, "%d", sb->priority);
	static const char *const names[] = { "kind",	 "device", "port",
					     "priority", "role",   "sender" };
	const char *values[] = { rules_kind_name(in->kind),
				 sb->device,
				 sb->port,
				 prio,
				 rules_role_name(sb->role),
				 rules_sender_name(in->sender) };
	struct buf l;
	buf_init(&l);
	buf_puts(&l, "fabmon_incident_active");
	put_labels(&l, names, values, 6);
	buf_puts(&l, " 1\n");
	size_t len;
	char *line = buf_error(&l) ? NULL : buf_steal(&l, &len);
	buf_fini(&l);
	return line;
}

int incidents_prom_render(struct rules *r, enum expfmt f, double created_s,
			  struct buf *out)
{
	struct rules_snapshot s;
	rules_snapshot(r, true, &s);

	expfmt_put_family(out, f, "fabmon_incident_active", "gauge",
			  "1 for each port a firing incident involves, by the "
			  "port's role (origin, victim, spreader, member); "
			  "sender is unmonitored for a storm from outside the "
			  "view.");
	/* One line per distinct label set, sorted. */
	size_t n = 0, cap = 0;
	char **lines = NULL;
	for (size_t i = 0; i < s.n_active; i++) {
		const struct rules_incident *in = &s.active[i];
		if (in->state != RULES_FIRING)
			continue;
		for (size_t k = 0; k < in->n_subjects; k++) {
			char *line = active_line(in, &in->subjects[k]);
			if (!line) {
				out->failed = true;
				continue;
			}
			if (n == cap) {
				cap = cap ? cap * 2 : 32;
				lines =
				    xreallocarray(lines, cap, sizeof *lines);
			}
			lines[n++] = line;
		}
	}
	if (n)
		qsort(lines, n, sizeof *lines, cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || strcmp(lines[i], lines[i - 1]) != 0)
			buf_puts(out, lines[i]);
	}
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);

	expfmt_put_family(out, f, "fabmon_incidents_total", "counter",
			  "Incidents that fired, by kind.");
	for (int k = 0; k < RULES_KINDS; k++) {
		static const char *const names[] = { "kind" };
		const char *values[] = { rules_kind_name((enum rules_kind)k) };
		buf_puts(out, "fabmon_incidents_total");
		put_labels(out, names, values, 1);
		buf_putc(out, ' ');
		buf_put_u64(out, s.fired_total[k]);
		buf_putc(out, '\n');
		if (f == EXPFMT_OPENMETRICS && created_s >= 0) {
			buf_puts(out, "fabmon_incidents_created");
			put_labels(out, names, values, 1);
			buf_putc(out, ' ');
			buf_put_double(out, created_s);
			buf_putc(out, '\n');
		}
	}

	if (s.n_ratios) {
		expfmt_put_family(out, f, "fabmon_pause_ratio", "gauge",
				  "Fraction of time paused by PFC over the "
				  "last sample, as the rule engine saw it: rx, "
				  "this port was paused; tx, it kept its peer "
				  "paused (from pause time, else frames "
				  "against the link speed's refresh rate).");
		for (size_t i = 0; i < s.n_ratios; i++) {
			const struct rules_port_ratio *pr = &s.ratios[i];
			char prio[16];
			snprintf(prio, sizeof prio, "%d", pr->priority);
			for (int d = 0; d < 2; d++) {
				float v = d ? pr->pause_tx : pr->pause_rx;
				if (v < 0)
					continue;
				static const char *const names[] = {
					"device", "port", "priority",
					"direction"
				};
				const char *values[] = { pr->device, pr->port,
							 prio,
							 d ? "tx" : "rx" };
				buf_puts(out, "fabmon_pause_ratio");
				put_labels(out, names, values, 4);
				buf_putc(out, ' ');
				buf_put_double(out, v);
				buf_putc(out, '\n');
			}
		}
	}

	expfmt_put_family(out, f, "fabmon_rules_tick_cpu_seconds", "gauge",
			  "CPU time of the rule engine's last tick.");
	buf_puts(out, "fabmon_rules_tick_cpu_seconds ");
	buf_put_double(out, s.last_tick_cpu_s);
	buf_putc(out, '\n');
	expfmt_put_family(out, f, "fabmon_rules_tick_duration_seconds", "gauge",
			  "Wall time of the rule engine's last tick.");
	buf_puts(out, "fabmon_rules_tick_duration_seconds ");
	buf_put_double(out, s.last_tick_wall_s);
	buf_putc(out, '\n');
	expfmt_put_family(out, f, "fabmon_rules_tick_interval_seconds", "gauge",
			  "The rule engine's tick period (rules.tick).");
	buf_puts(out, "fabmon_rules_tick_interval_seconds ");
	buf_put_double(out, r ? (double)rules_tick_ns(r) / 1e9 : 0);
	buf_putc(out, '\n');
	expfmt_put_family(out, f, "fabmon_rules_tick_overruns_total", "counter",
			  "Rule engine ticks that took longer than rules.tick "
			  "or started more than rules.tick late.");
	buf_puts(out, "fabmon_rules_tick_overruns_total ");
	buf_put_u64(out, s.tick_overruns);
	buf_putc(out, '\n');
	expfmt_put_created(out, f, "fabmon_rules_tick_overruns_total", "",
			   created_s);
	expfmt_put_family(out, f, "fabmon_rules_ports", "gauge",
			  "Ports in the rule engine's view.");
	buf_puts(out, "fabmon_rules_ports ");
	buf_put_u64(out, s.ports);
	buf_putc(out, '\n');
	rules_snapshot_free(&s);
	return buf_error(out);
}

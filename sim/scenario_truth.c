/*
 * sim_scenario's truth file: the incidents a scenario stages (kind,
 * span, victims), checked against the scenario's topology and events,
 * for the rules' acceptance tests to compare with what fabmond finds.
 * Parsing only; the loaded incidents belong to the scenario.
 */
#include "config.h"

#include "scenario_int.h"

#include "mem.h"
#include "units.h"
#include "ytree.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int parse_span(struct ytree_ctx *x, const struct sim_scenario *s,
		      const struct ytree_fields *f, size_t i, uint64_t *out)
{
	char d1[32], d2[32];
	int rc = ytree_opt_duration(x, f, i, 0, UINT64_MAX, true, out);
	if (!rc && f->val[i] && *out > s->duration) {
		units_format_duration(*out, d1, sizeof d1);
		units_format_duration(s->duration, d2, sizeof d2);
		rc = ytree_fail_key(x, f, i, "%s is beyond the duration (%s)",
				    d1, d2);
	}
	return rc;
}

/* A victim: "node" or "node:port", or a mapping with port (either
 * form), hop (1 to 64) and from (within the incident's span). */
static int parse_victim(struct ytree_ctx *x, const struct sim_scenario *s,
			const struct sim_scenario_incident *in,
			const struct ytree_node *n,
			struct sim_scenario_victim *v)
{
	static const char *const keys[] = { "port", "hop", "from" };
	struct ytree_fields f;
	char d1[32], d2[32], d3[32];
	v->from_ns = in->from_ns;
	if (n->kind != YTREE_MAP)
		return scenario_node_endpoint(x, s->topo, n, true, &v->node,
					      &v->port);
	int rc = ytree_fields_get(x, n, keys, 3, &f);
	if (!rc)
		rc = ytree_need(x, &f, 0);
	if (!rc) {
		size_t sk = ytree_path_key(x, "port");
		rc = scenario_node_endpoint(x, s->topo, f.val[0], true,
					    &v->node, &v->port);
		ytree_path_cut(x, sk);
	}
	if (!rc)
		rc = ytree_opt_uint(x, &f, 1, 1, SIM_MODEL_MAX_PATH, &v->hop);
	if (!rc)
		rc = ytree_opt_duration(x, &f, 2, 0, UINT64_MAX, true,
					&v->from_ns);
	/* A victim may be hit before the incident counts (a port paused
	 * one hop from a congestion that spreads further later), not
	 * after it ends. */
	if (!rc && v->from_ns >= in->to_ns) {
		units_format_duration(v->from_ns, d1, sizeof d1);
		units_format_duration(in->from_ns, d2, sizeof d2);
		units_format_duration(in->to_ns, d3, sizeof d3);
		rc = ytree_fail_key(x, &f, 2,
				    "%s is not before the end of the "
				    "incident's span [%s, %s)",
				    d1, d2, d3);
	}
	return rc;
}

static int parse_incident(struct ytree_ctx *x, struct sim_scenario *s,
			  const struct ytree_node *n, struct incident *in)
{
	static const char *const keys[] = { "kind", "origin", "victims", "from",
					    "to" };
	static const char *const okeys[] = { "device", "port", "priority" };
	int kvals[SIM_SCENARIO_KINDS];
	struct sim_scenario_incident *p = &in->pub;
	struct ytree_fields f, o;
	int kind = 0;
	for (int i = 0; i < SIM_SCENARIO_KINDS; i++)
		kvals[i] = i;
	int rc = scenario_want_map(x, n, keys, 5, &f);
	for (size_t i = 0; !rc && i < 4; i++)
		rc = i == 2 ? 0 : ytree_need(x, &f, i);
	if (!rc)
		rc = ytree_opt_enum(x, &f, 0, scenario_kind_names, kvals,
				    SIM_SCENARIO_KINDS, &kind);
	if (rc)
		return rc;
	p->kind = (enum sim_scenario_kind)kind;
	p->priority = -1;
	size_t saved = ytree_path_key(x, "origin");
	rc = scenario_want_map(x, f.val[1], okeys, 3, &o);
	if (!rc)
		rc = ytree_need(x, &o, 0);
	if (!rc) {
		size_t sk = ytree_path_key(x, "device");
		rc =
		    scenario_node_node(x, s->topo, o.val[0], false, &p->device);
		ytree_path_cut(x, sk);
	}
	if (!rc && o.val[1]) {
		char q[YTREE_QUOTE_BUF];
		size_t sk = ytree_path_key(x, "port");
		rc = ytree_want_scalar(x, o.val[1], "a port name");
		if (!rc) {
			p->port = sim_topo_node_port(p->device, o.val[1]->str);
			if (!p->port)
				rc = ytree_fail(
				    x, o.val[1], "no port %s on %s",
				    ytree_quote(o.val[1], q, sizeof q),
				    p->device->name);
		}
		ytree_path_cut(x, sk);
	}
	if (!rc && o.val[2]) {
		unsigned pr = 0;
		rc = ytree_opt_uint(x, &o, 2, 0, 7, &pr);
		p->priority = (int)pr;
	}
	ytree_path_cut(x, saved);
	if (rc)
		return rc;
	p->to_ns = s->duration;
	rc = parse_span(x, s, &f, 3, &p->from_ns);
	if (!rc)
		rc = parse_span(x, s, &f, 4, &p->to_ns);
	if (!rc && p->to_ns <= p->from_ns)
		rc = ytree_fail_key(x, &f, f.val[4] ? 4 : 3,
				    "the span is empty (to must be after "
				    "from)");
	if (rc)
		return rc;
	size_t nv = 0;
	if (f.val[2]) {
		saved = ytree_path_key(x, "victims");
		rc = ytree_want_seq(x, f.val[2], &nv);
		if (!rc && nv > SIM_SCENARIO_MAX_VICTIMS)
			rc = ytree_fail(x, f.val[2], "more than %d victims",
					SIM_SCENARIO_MAX_VICTIMS);
		if (!rc && nv)
			in->victims = xcalloc(nv, sizeof *in->victims);
		for (size_t i = 0; !rc && i < nv; i++) {
			size_t si = ytree_path_index(x, i);
			rc = parse_victim(x, s, p, f.val[2]->kids[i],
					  &in->victims[i]);
			ytree_path_cut(x, si);
		}
		ytree_path_cut(x, saved);
		if (rc)
			return rc;
	}
	p->victims = in->victims;
	p->n_victims = nv;
	return 0;
}

int scenario_parse_truth(struct ytree_ctx *x, struct sim_scenario *s,
			 const struct ytree_node *root)
{
	static const char *const keys[] = { "incidents" };
	struct ytree_fields f;
	size_t n = 0;
	if (!root)
		return ytree_fail_file(x, "empty file");
	int rc = scenario_want_map(x, root, keys, 1, &f);
	if (!rc)
		rc = ytree_need(x, &f, 0);
	if (rc)
		return rc;
	size_t saved = ytree_path_key(x, "incidents");
	rc = scenario_want_list(x, f.val[0], SIM_SCENARIO_MAX_INCIDENTS,
				"incidents", &n);
	if (!rc && n)
		s->inc = xcalloc(n, sizeof *s->inc);
	for (size_t i = 0; !rc && i < n; i++) {
		size_t si = ytree_path_index(x, i);
		rc = parse_incident(x, s, f.val[0]->kids[i], &s->inc[i]);
		s->n_inc++; /* freed with its victims even on error */
		ytree_path_cut(x, si);
	}
	ytree_path_cut(x, saved);
	return rc;
}

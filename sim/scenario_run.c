/*
 * sim_scenario's replay: the background traffic and the timeline applied
 * to a model as time passes (a cursor over the sorted events), the
 * fault targets seen by the SNMP agent, and live scenarios whose events
 * arrive one by one (fabsim's control endpoint) instead of from a file.
 * One run at a time, from the model's thread.
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

void sim_scenario_rewind(struct sim_scenario *s)
{
	for (size_t i = 0; i < s->n_sets; i++) {
		free(s->sets[i].ids);
		s->sets[i].ids = NULL;
	}
	s->cursor = 0;
	s->started = false;
	s->bg_set = false;
}

void sim_scenario_set_background_override(struct sim_scenario *s, int on)
{
	s->bg_force = on < 0 ? -1 : on > 0;
	s->bg_set = false;
}

void sim_scenario_background(const struct sim_scenario *s,
			     struct sim_model_background *b)
{
	*b = s->bg;
	if (s->bg_force >= 0)
		b->enabled = s->bg_force;
}

/* Ring all-reduce per rail: NIC k of host h sends to NIC k of h + 1. */
static int start_background(struct sim_scenario *s, struct sim_model *m)
{
	const struct sim_topo *t = s->topo;
	size_t hosts = sim_topo_n_tier(t, SIM_NODE_HOST);
	int rc = 0;
	if (s->bg_load <= 0)
		return 0;
	for (size_t h = 0; h < hosts; h++) {
		const struct sim_node *a =
		    sim_topo_tier_node(t, SIM_NODE_HOST, h);
		const struct sim_node *b =
		    sim_topo_tier_node(t, SIM_NODE_HOST, (h + 1) % hosts);
		for (size_t k = 0; k < a->n_ports && k < b->n_ports; k++) {
			struct sim_model_flow f = {
				a->ports[k].id, b->ports[k].id,
				s->bg_prio,	s->bg_load * a->ports[k].speed,
				NULL,		0
			};
			int id = sim_model_add_flow(m, &f);
			if (id < 0)
				rc = id;
		}
	}
	return rc;
}

static int apply_flows(struct sim_model *m, struct flowset *fs, bool on)
{
	int rc = 0;
	if (!fs->ids) {
		if (!on)
			return 0;
		size_t path[SIM_MODEL_MAX_PATH];
		fs->ids = xcalloc(fs->n, sizeof *fs->ids);
		for (size_t i = 0; i < fs->n; i++) {
			struct sim_model_flow f = { fs->src[i], fs->dst,
						    fs->prio,	fs->gbps,
						    NULL,	0 };
			if (fs->path) {
				path[0] = fs->src[i];
				memcpy(&path[1], fs->path,
				       fs->path_len * sizeof *path);
				f.path = path;
				f.path_len = fs->path_len + 1;
			}
			fs->ids[i] = sim_model_add_flow(m, &f);
			if (fs->ids[i] < 0)
				rc = fs->ids[i];
		}
		return rc;
	}
	for (size_t i = 0; i < fs->n; i++)
		if (fs->ids[i] >= 0) {
			int r = sim_model_set_flow_demand(m, fs->ids[i],
							  on ? fs->gbps : 0);
			if (r)
				rc = r;
		}
	return rc;
}

static int apply_event(struct sim_scenario *s, struct sim_model *m,
		       const struct event *e)
{
	int rc;
	switch (e->kind) {
	case EV_FLOWS:
	case EV_STOP:
		return apply_flows(m, &s->sets[e->set], e->kind == EV_FLOWS);
	case EV_NIC: {
		struct sim_model_nic_cfg c;
		if ((rc = sim_model_get_nic_cfg(m, e->port, &c)))
			return rc;
		scenario_set_knobs(e, &c);
		return sim_model_set_nic_cfg(m, e->port, &c);
	}
	case EV_SWITCH: {
		struct sim_model_switch_cfg c;
		if ((rc = sim_model_get_switch_cfg(m, e->node, &c)))
			return rc;
		scenario_set_knobs(e, &c);
		return sim_model_set_switch_cfg(m, e->node, &c);
	}
	case EV_LINK_DOWN:
	case EV_LINK_UP:
		return sim_model_set_link(m, e->port, e->kind == EV_LINK_UP);
	case EV_REBOOT:
		return sim_model_reboot(m, e->node);
	case EV_PAUSE:
		return sim_model_inject_pause(m, e->port, e->prio, e->ratio);
	case EV_TARGET_SILENT:
	case EV_TARGET_REFUSE:
	case EV_TARGET_OK:
	case EV_TARGET_RESET:
	case EV_TARGET_GARBAGE:
	case EV_TARGET_DROP_AFTER_SYNC:
	case EV_TARGET_WRONG_TYPES:
	case EV_TARGET_SLOW:
		return 0; /* the serving layer asks sim_scenario_target() */
	}
	return 0;
}

/* The fault a target_* event sets, or -1 for other events. */
static int event_fault(enum ev_kind k)
{
	switch (k) {
	case EV_TARGET_SILENT:
		return SIM_SCENARIO_TARGET_IS_SILENT;
	case EV_TARGET_REFUSE:
		return SIM_SCENARIO_TARGET_REFUSES;
	case EV_TARGET_OK:
		return SIM_SCENARIO_TARGET_OK;
	case EV_TARGET_RESET:
		return SIM_SCENARIO_TARGET_RESET;
	case EV_TARGET_GARBAGE:
		return SIM_SCENARIO_TARGET_GARBAGE;
	case EV_TARGET_DROP_AFTER_SYNC:
		return SIM_SCENARIO_TARGET_DROP_AFTER_SYNC;
	case EV_TARGET_WRONG_TYPES:
		return SIM_SCENARIO_TARGET_WRONG_TYPES;
	case EV_TARGET_SLOW:
		return SIM_SCENARIO_TARGET_SLOW;
	default:
		return -1;
	}
}

int sim_scenario_apply(struct sim_scenario *s, struct sim_model *m,
		       uint64_t now_ns)
{
	int rc = 0, r;
	if (!s->started) {
		s->started = true;
		rc = start_background(s, m);
	}
	if (!s->bg_set) {
		struct sim_model_background b;
		s->bg_set = true;
		sim_scenario_background(s, &b);
		r = sim_model_set_background(m, &b);
		if (r && !rc)
			rc = r;
	}
	while (s->cursor < s->n_ev && s->ev[s->cursor].at <= now_ns) {
		r = apply_event(s, m, &s->ev[s->cursor++]);
		if (r && !rc)
			rc = r;
	}
	return rc;
}

enum sim_scenario_target sim_scenario_target(const struct sim_scenario *s,
					     size_t node, uint64_t now_ns)
{
	enum sim_scenario_target t = SIM_SCENARIO_TARGET_OK;
	for (size_t i = 0; i < s->n_ev && s->ev[i].at <= now_ns; i++) {
		const struct event *e = &s->ev[i];
		int f = event_fault(e->kind);
		if (e->node == node && f >= 0)
			t = (enum sim_scenario_target)f;
	}
	return t;
}

/*
 * fabsim's run-time control (sim/fabsim.c): a scenario without a file,
 * replay on the same model, and live events. A self-contained block:
 * it only calls the parser and appliers above.
 *
 * A live event is one item of events: given as text; its `at` is
 * ignored (it applies at once). Flow sets it defines join the
 * scenario's, so a later timeline or live `stop` can name them. The
 * live table remembers what each event changed so that stopping it
 * undoes that: flows go to demand 0, NIC and switch knobs return to
 * the settings before the event, a downed link comes up, injected
 * pause stops, a target fault gives the switch back to the timeline.
 */
struct live_event {
	struct event e;
	bool active;
	struct sim_model_nic_cfg old_nic;
	struct sim_model_switch_cfg old_sw;
};

struct sim_scenario_live {
	struct sim_scenario *s;
	struct live_event *ev;
	size_t n_ev;
	signed char *target; /* per node: -1 (the timeline's) or a fault */
};

struct sim_scenario *sim_scenario_new_empty(struct sim_topo *t, uint64_t seed)
{
	struct sim_scenario *s = xcalloc(1, sizeof *s);
	s->topo = t;
	s->seed = seed;
	s->duration = MAX_DURATION_NS;
	s->bg_prio = scenario_default_prio(t);
	sim_model_background_defaults(&s->bg);
	s->bg_force = -1;
	return s;
}

void sim_scenario_restart(struct sim_scenario *s)
{
	s->cursor = 0;
}

struct sim_scenario_live *sim_scenario_live_new(struct sim_scenario *s)
{
	struct sim_scenario_live *l = xcalloc(1, sizeof *l);
	size_t n = sim_topo_n_nodes(s->topo);
	l->s = s;
	l->target = xmalloc(n ? n : 1);
	memset(l->target, -1, n ? n : 1);
	return l;
}

void sim_scenario_live_free(struct sim_scenario_live *l)
{
	if (!l)
		return;
	free(l->ev);
	free(l->target);
	free(l);
}

static struct ytree_node *live_scalar(const struct ytree_node *at,
				      const char *s)
{
	struct ytree_node *n = xcalloc(1, sizeof *n);
	n->kind = YTREE_SCALAR;
	n->line = at->line;
	n->col = at->col;
	n->str = xstrdup(s);
	n->len = strlen(s);
	n->plain = true;
	return n;
}

/* Sets the event's at to 0s, adding the key if it is absent. */
static int live_at_zero(struct ytree_ctx *x, struct ytree_node *root)
{
	for (size_t i = 0; i + 1 < root->n; i += 2) {
		struct ytree_node *k = root->kids[i], *v = root->kids[i + 1];
		if (k->kind != YTREE_SCALAR || strcmp(k->str, "at") != 0)
			continue;
		if (v->kind != YTREE_SCALAR)
			return ytree_fail(x, v, "at: expected a duration");
		free(v->str);
		v->str = xstrdup("0s");
		v->len = 2;
		v->null = false;
		return 0;
	}
	if (root->n + 2 > root->cap) {
		root->cap = root->n + 2;
		root->kids =
		    xreallocarray(root->kids, root->cap, sizeof *root->kids);
	}
	root->kids[root->n++] = live_scalar(root, "at");
	root->kids[root->n++] = live_scalar(root, "0s");
	return 0;
}

int sim_scenario_live_apply(struct sim_scenario_live *l, struct sim_model *m,
			    const char *name, const char *buf, size_t len,
			    char *err, size_t errlen)
{
	struct sim_scenario *s = l->s;
	struct ytree_ctx x = { .name = name, .err = err, .errlen = errlen };
	struct ytree_node *root = NULL;
	struct live_event le = { .active = true };
	if (err && errlen)
		err[0] = '\0';
	int rc = ytree_load(&x, buf, len, SIM_SCENARIO_MAX_FILE_BYTES,
			    SIM_SCENARIO_MAX_DEPTH, &root);
	if (rc)
		return rc;
	if (!root || root->kind != YTREE_MAP)
		rc = root ? ytree_fail(&x, root,
				       "expected one event: a mapping with "
				       "do: and its keys")
			  : ytree_fail_file(&x, "empty event");
	if (!rc)
		rc = live_at_zero(&x, root);
	if (!rc)
		rc = scenario_parse_event(&x, s, root, &le.e);
	ytree_free(root);
	if (rc)
		return rc;
	switch (le.e.kind) {
	case EV_NIC:
		sim_model_get_nic_cfg(m, le.e.port, &le.old_nic);
		break;
	case EV_SWITCH:
		sim_model_get_switch_cfg(m, le.e.node, &le.old_sw);
		break;
	default:
		if (event_fault(le.e.kind) >= 0)
			l->target[le.e.node] =
			    (signed char)event_fault(le.e.kind);
		break;
	}
	rc = apply_event(s, m, &le.e);
	if (rc) {
		snprintf(err, errlen, "%s: the model refused do: %s (%s)", name,
			 scenario_ev_names[le.e.kind], strerror(-rc));
		return rc;
	}
	l->ev = xreallocarray(l->ev, l->n_ev + 1, sizeof *l->ev);
	l->ev[l->n_ev++] = le;
	return (int)l->n_ev;
}

int sim_scenario_live_stop(struct sim_scenario_live *l, struct sim_model *m,
			   int id, char *err, size_t errlen)
{
	if (id < 1 || (size_t)id > l->n_ev) {
		snprintf(err, errlen, "no event %d", id);
		return -ENOENT;
	}
	struct live_event *le = &l->ev[id - 1];
	const struct event *e = &le->e;
	if (!le->active) {
		snprintf(err, errlen, "event %d is already stopped", id);
		return -EALREADY;
	}
	int rc = 0;
	switch (e->kind) {
	case EV_FLOWS:
		rc = apply_flows(m, &l->s->sets[e->set], false);
		break;
	case EV_NIC:
		rc = sim_model_set_nic_cfg(m, e->port, &le->old_nic);
		break;
	case EV_SWITCH:
		rc = sim_model_set_switch_cfg(m, e->node, &le->old_sw);
		break;
	case EV_LINK_DOWN:
		rc = sim_model_set_link(m, e->port, true);
		break;
	case EV_PAUSE:
		rc = sim_model_inject_pause(m, e->port, e->prio, 0);
		break;
	case EV_TARGET_SILENT:
	case EV_TARGET_REFUSE:
	case EV_TARGET_OK:
	case EV_TARGET_RESET:
	case EV_TARGET_GARBAGE:
	case EV_TARGET_DROP_AFTER_SYNC:
	case EV_TARGET_WRONG_TYPES:
	case EV_TARGET_SLOW:
		l->target[e->node] = -1;
		break;
	case EV_STOP:
	case EV_LINK_UP:
	case EV_REBOOT:
		snprintf(err, errlen, "event %d (do: %s) has no end to stop",
			 id, scenario_ev_names[e->kind]);
		return -EOPNOTSUPP;
	}
	if (rc) {
		snprintf(err, errlen, "the model refused to stop event %d (%s)",
			 id, strerror(-rc));
		return rc;
	}
	le->active = false;
	return 0;
}

void sim_scenario_live_set_target(struct sim_scenario_live *l, size_t node,
				  int fault)
{
	if (node < sim_topo_n_nodes(l->s->topo))
		l->target[node] = (signed char)(fault < 0 ? -1 : fault);
}

enum sim_scenario_target
sim_scenario_live_target(const struct sim_scenario_live *l, size_t node,
			 uint64_t now_ns)
{
	if (node < sim_topo_n_nodes(l->s->topo) && l->target[node] >= 0)
		return (enum sim_scenario_target)l->target[node];
	return sim_scenario_target(l->s, node, now_ns);
}

size_t sim_scenario_live_count(const struct sim_scenario_live *l)
{
	return l->n_ev;
}

const char *sim_scenario_live_kind(const struct sim_scenario_live *l, int id,
				   bool *active)
{
	if (id < 1 || (size_t)id > l->n_ev)
		return NULL;
	*active = l->ev[id - 1].active;
	return scenario_ev_names[l->ev[id - 1].e.kind];
}

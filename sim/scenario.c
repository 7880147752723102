/*
 * sim_scenario: loads a scenario file and its truth file into flat
 * arrays checked against the scenario's topology, and replays the
 * timeline onto a model.
 *
 * Loading has two files and one topology. The scenario is parsed first
 * (its topology is loaded as soon as the key is read, so every later
 * node and port name is checked against it, with the scenario's
 * position in the message); then the truth beside it. Events are kept
 * sorted by time, file order breaking ties, so sim_scenario_apply() is
 * a cursor walk. Flow sets are added to the model on their first start
 * and set to demand 0 when stopped; the model's flow ids are kept in
 * the set, which is why a scenario drives one run at a time.
 *
 * This file parses the scenario file; the truth file's incidents are
 * read in scenario_truth.c, the replay and live control are in
 * scenario_run.c (shared declarations: scenario_int.h).
 */
#include "config.h"

#include "scenario_int.h"

#include "mem.h"
#include "units.h"
#include "ytree.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const scenario_ev_names[] = {
	"flows",
	"stop",
	"nic",
	"switch",
	"link_down",
	"link_up",
	"reboot",
	"pause",
	"target_silent",
	"target_refuse",
	"target_ok",
	"target_reset",
	"target_garbage",
	"target_drop_after_sync",
	"target_wrong_types",
	"target_slow",
};
#define N_EV (sizeof scenario_ev_names / sizeof scenario_ev_names[0])

/* Keys of an event; K_* index them. */
enum {
	K_AT,
	K_DO,
	K_NAME,
	K_FROM,
	K_TO,
	K_GBPS,
	K_PRIORITY,
	K_NODE,
	K_PORT,
	K_XOFF,
	K_XON,
	K_HEADROOM,
	K_ECN_KMIN,
	K_ECN_KMAX,
	K_ECN_PMAX,
	K_RX_DRAIN,
	K_NP_ENABLED,
	K_RP_IGNORE_CNP,
	K_STORM_MINOR,
	K_STORM_CRITICAL,
	K_RATIO,
	K_PATH,
	K_PFCWD_DETECT,
	K_PFCWD_RESTORE,
	N_KEYS
};
static const char *const ev_keys[N_KEYS] = {
	"at",		"do",
	"name",		"from",
	"to",		"gbps",
	"priority",	"node",
	"port",		"xoff",
	"xon",		"headroom",
	"ecn_kmin",	"ecn_kmax",
	"ecn_pmax",	"rx_drain",
	"np_enabled",	"rp_ignore_cnp",
	"storm_minor",	"storm_critical",
	"ratio",	"path",
	"pfcwd_detect", "pfcwd_restore",
};

#define B(k)	     (1u << (k))
#define KNOBS_COMMON (B(K_XOFF) | B(K_XON) | B(K_HEADROOM))
/* The keys each event takes besides at and do. */
static const unsigned ev_allowed[N_EV] = {
	[EV_FLOWS] = B(K_NAME) | B(K_FROM) | B(K_TO) | B(K_GBPS) |
		     B(K_PRIORITY) | B(K_PATH),
	[EV_STOP] = B(K_NAME),
	[EV_NIC] = B(K_PORT) | KNOBS_COMMON | B(K_RX_DRAIN) | B(K_NP_ENABLED) |
		   B(K_RP_IGNORE_CNP) | B(K_STORM_MINOR) | B(K_STORM_CRITICAL),
	[EV_SWITCH] = B(K_NODE) | KNOBS_COMMON | B(K_ECN_KMIN) | B(K_ECN_KMAX) |
		      B(K_ECN_PMAX) | B(K_PFCWD_DETECT) | B(K_PFCWD_RESTORE),
	[EV_LINK_DOWN] = B(K_PORT),
	[EV_LINK_UP] = B(K_PORT),
	[EV_REBOOT] = B(K_NODE),
	[EV_PAUSE] = B(K_PORT) | B(K_PRIORITY) | B(K_RATIO),
	[EV_TARGET_SILENT] = B(K_NODE),
	[EV_TARGET_REFUSE] = B(K_NODE),
	[EV_TARGET_OK] = B(K_NODE),
	[EV_TARGET_RESET] = B(K_NODE),
	[EV_TARGET_GARBAGE] = B(K_NODE),
	[EV_TARGET_DROP_AFTER_SYNC] = B(K_NODE),
	[EV_TARGET_WRONG_TYPES] = B(K_NODE),
	[EV_TARGET_SLOW] = B(K_NODE),
};
/* The keys each event needs. */
static const unsigned ev_needed[N_EV] = {
	[EV_FLOWS] = B(K_NAME) | B(K_FROM) | B(K_TO) | B(K_GBPS),
	[EV_STOP] = B(K_NAME),
	[EV_NIC] = B(K_PORT),
	[EV_SWITCH] = B(K_NODE),
	[EV_LINK_DOWN] = B(K_PORT),
	[EV_LINK_UP] = B(K_PORT),
	[EV_REBOOT] = B(K_NODE),
	[EV_PAUSE] = B(K_PORT) | B(K_PRIORITY) | B(K_RATIO),
	[EV_TARGET_SILENT] = B(K_NODE),
	[EV_TARGET_REFUSE] = B(K_NODE),
	[EV_TARGET_OK] = B(K_NODE),
	[EV_TARGET_RESET] = B(K_NODE),
	[EV_TARGET_GARBAGE] = B(K_NODE),
	[EV_TARGET_DROP_AFTER_SYNC] = B(K_NODE),
	[EV_TARGET_WRONG_TYPES] = B(K_NODE),
	[EV_TARGET_SLOW] = B(K_NODE),
};

const char *const scenario_kind_names[SIM_SCENARIO_KINDS] = {
	"pfc_storm",	     "congestion_spreading",
	"pfc_deadlock",	     "incast",
	"lossless_drop",     "pause_on_lossy_priority",
	"ecn_after_pfc",     "ecn_without_cnp",
	"link_flap",	     "switch_reboot",
	"target_silent",     "target_refuse",
	"rail_misalignment",
};

static const char *const target_names[SIM_SCENARIO_TARGETS] = {
	"ok",	   "silent",	      "refuse",	     "reset",
	"garbage", "drop_after_sync", "wrong_types", "slow",
};

const char *sim_scenario_target_name(enum sim_scenario_target fault)
{
	if ((unsigned)fault >= SIM_SCENARIO_TARGETS)
		return "?";
	return target_names[fault];
}

int sim_scenario_target_parse(const char *name)
{
	for (int i = 0; i < SIM_SCENARIO_TARGETS; i++)
		if (strcmp(name, target_names[i]) == 0)
			return i;
	return -1;
}

const char *sim_scenario_kind_name(enum sim_scenario_kind kind)
{
	if ((unsigned)kind >= SIM_SCENARIO_KINDS)
		return "?";
	return scenario_kind_names[kind];
}

/* A list (or null) of at most max items, what they are for the message. */
int scenario_want_list(struct ytree_ctx *x, const struct ytree_node *n,
		       size_t max, const char *what, size_t *count)
{
	int rc = ytree_want_seq(x, n, count);
	if (!rc && *count > max)
		rc = ytree_fail(x, n, "more than %zu %s", max, what);
	return rc;
}

int scenario_want_map(struct ytree_ctx *x, const struct ytree_node *n,
		      const char *const *keys, size_t nk,
		      struct ytree_fields *f)
{
	if (n->kind != YTREE_MAP)
		return ytree_fail(x, n, "expected a mapping, not %s",
				  ytree_kind_name(n));
	return ytree_fields_get(x, n, keys, nk, f);
}

/* A decimal number in [min, max]. */
static int node_double(struct ytree_ctx *x, const struct ytree_node *n,
		       double min, double max, double *out)
{
	char q[YTREE_QUOTE_BUF], *end;
	int rc = ytree_want_scalar(x, n, "a number");
	if (rc)
		return rc;
	errno = 0;
	double v = strtod(n->str, &end);
	if (n->len == 0 || end != n->str + n->len || errno || !isfinite(v) ||
	    v < min || v > max)
		return ytree_fail(x, n,
				  "expected a number from %g to %g, not %s",
				  min, max, ytree_quote(n, q, sizeof q));
	*out = v;
	return 0;
}

static int opt_double(struct ytree_ctx *x, const struct ytree_fields *f,
		      size_t i, double min, double max, double *out)
{
	if (!f->val[i])
		return 0;
	size_t saved = ytree_path_key(x, f->keys[i]);
	int rc = node_double(x, f->val[i], min, max, out);
	ytree_path_cut(x, saved);
	return rc;
}

int scenario_node_node(struct ytree_ctx *x, const struct sim_topo *t,
		       const struct ytree_node *n, bool switch_only,
		       const struct sim_node **out)
{
	char q[YTREE_QUOTE_BUF];
	int rc = ytree_want_scalar(x, n, "a node name");
	if (rc)
		return rc;
	const struct sim_node *nd = sim_topo_find_node(t, n->str);
	if (!nd)
		return ytree_fail(x, n, "no node %s in the topology",
				  ytree_quote(n, q, sizeof q));
	if (switch_only && nd->kind == SIM_NODE_HOST)
		return ytree_fail(x, n, "%s is a host, not a switch",
				  ytree_quote(n, q, sizeof q));
	*out = nd;
	return 0;
}

/* "node:port"; with node_ok, a bare "node" too (*port = NULL). */
int scenario_node_endpoint(struct ytree_ctx *x, const struct sim_topo *t,
			   const struct ytree_node *n, bool node_ok,
			   const struct sim_node **node,
			   const struct sim_port **port)
{
	char q[YTREE_QUOTE_BUF], name[SIM_TOPO_NAME_MAX + 1];
	int rc = ytree_want_scalar(x, n, "node:port");
	if (rc)
		return rc;
	const char *colon = memchr(n->str, ':', n->len);
	size_t nl = colon ? (size_t)(colon - n->str) : n->len;
	if (!colon && !node_ok)
		return ytree_fail(x, n, "expected node:port, not %s",
				  ytree_quote(n, q, sizeof q));
	const struct sim_node *nd = NULL;
	if (nl <= SIM_TOPO_NAME_MAX && strlen(n->str) == n->len) {
		memcpy(name, n->str, nl);
		name[nl] = '\0';
		nd = sim_topo_find_node(t, name);
	}
	if (!nd)
		return ytree_fail(x, n, "no node %s in the topology",
				  ytree_quote(n, q, sizeof q));
	const struct sim_port *p = NULL;
	if (colon) {
		p = sim_topo_node_port(nd, colon + 1);
		if (!p)
			return ytree_fail(x, n, "no port %s on %s",
					  ytree_quote(n, q, sizeof q),
					  nd->name);
	}
	*node = nd;
	*port = p;
	return 0;
}

static int field_port(struct ytree_ctx *x, const struct sim_topo *t,
		      const struct ytree_fields *f, size_t i, size_t *out)
{
	const struct sim_node *nd;
	const struct sim_port *p;
	size_t saved = ytree_path_key(x, f->keys[i]);
	int rc = scenario_node_endpoint(x, t, f->val[i], false, &nd, &p);
	ytree_path_cut(x, saved);
	if (!rc)
		*out = p->id;
	return rc;
}

static int field_node(struct ytree_ctx *x, const struct sim_topo *t,
		      const struct ytree_fields *f, size_t i, size_t *out)
{
	const struct sim_node *nd;
	size_t saved = ytree_path_key(x, f->keys[i]);
	int rc = scenario_node_node(x, t, f->val[i], true, &nd);
	ytree_path_cut(x, saved);
	if (!rc)
		*out = nd->id;
	return rc;
}

/* Traffic's default priority: the lowest lossless one, else 0. */
unsigned scenario_default_prio(const struct sim_topo *t)
{
	uint8_t mask = sim_topo_lossless_mask(t);
	for (unsigned p = 0; p < SIM_MODEL_PRIOS; p++)
		if (mask & (1u << p))
			return p;
	return 0;
}

static int find_set(const struct sim_scenario *s, const char *name)
{
	for (size_t i = 0; i < s->n_sets; i++)
		if (strcmp(s->sets[i].name, name) == 0)
			return (int)i;
	return -1;
}

/*
 * A flow set's explicit path: the switch egress ports from the senders'
 * leaf to the receiver's, each cabled, each on the node the one before
 * leads to; every sender is cabled to the first port's node and the
 * last port to the receiver. The model puts each sender's NIC in front.
 */
static int parse_path(struct ytree_ctx *x, const struct sim_topo *t,
		      const struct ytree_node *seq, struct flowset *fs)
{
	size_t n;
	int rc = ytree_want_seq(x, seq, &n);
	if (!rc && (n == 0 || n > SIM_MODEL_MAX_PATH - 1))
		rc =
		    ytree_fail(x, seq, "expected 1 to %d switch ports, not %zu",
			       SIM_MODEL_MAX_PATH - 1, n);
	if (rc)
		return rc;
	fs->path = xcalloc(n, sizeof *fs->path);
	const struct sim_port *prev = NULL;
	for (size_t i = 0; i < n && !rc; i++) {
		const struct ytree_node *it = seq->kids[i];
		const struct sim_node *nd;
		const struct sim_port *p;
		size_t si = ytree_path_index(x, i);
		rc = scenario_node_endpoint(x, t, it, false, &nd, &p);
		if (!rc && nd->kind == SIM_NODE_HOST)
			rc = ytree_fail(x, it,
					"expected a switch port (the senders' "
					"NICs come first by themselves)");
		if (!rc && !p->peer)
			rc = ytree_fail(x, it, "%s:%s is not cabled", nd->name,
					p->name);
		if (!rc && prev && prev->peer->node != nd)
			rc = ytree_fail(x, it,
					"%s:%s does not continue the path: "
					"%s:%s before it leads to %s",
					nd->name, p->name, prev->node->name,
					prev->name, prev->peer->node->name);
		for (size_t k = 0; !rc && i == 0 && k < fs->n; k++) {
			const struct sim_port *src =
			    sim_topo_port(t, fs->src[k]);
			if (!src->peer || src->peer->node != nd)
				rc = ytree_fail(
				    x, it,
				    "the path starts on %s, but sender "
				    "%s:%s is cabled to %s",
				    nd->name, src->node->name, src->name,
				    src->peer ? src->peer->node->name
					      : "nothing");
		}
		if (!rc && i + 1 == n && p->peer->id != fs->dst) {
			const struct sim_port *d = sim_topo_port(t, fs->dst);
			rc = ytree_fail(x, it,
					"the path ends at %s:%s, not at the "
					"receiver %s:%s",
					p->peer->node->name, p->peer->name,
					d->node->name, d->name);
		}
		if (!rc)
			fs->path[i] = p->id;
		prev = p;
		ytree_path_cut(x, si);
	}
	if (!rc)
		fs->path_len = n;
	return rc;
}

static int parse_flows(struct ytree_ctx *x, struct sim_scenario *s,
		       const struct ytree_fields *f, struct event *e)
{
	char q[YTREE_QUOTE_BUF];
	const struct ytree_node *nm = f->val[K_NAME];
	size_t saved = ytree_path_key(x, "name");
	int rc = ytree_want_scalar(x, nm, "a flow set name");
	if (!rc && (nm->len == 0 || strlen(nm->str) != nm->len))
		rc = ytree_fail(x, nm, "expected a flow set name, not %s",
				ytree_quote(nm, q, sizeof q));
	if (!rc && find_set(s, nm->str) >= 0)
		rc = ytree_fail(x, nm, "flow set %s is already defined",
				ytree_quote(nm, q, sizeof q));
	ytree_path_cut(x, saved);
	if (rc)
		return rc;
	struct flowset fs = { .prio = scenario_default_prio(s->topo) };
	rc = field_port(x, s->topo, f, K_TO, &fs.dst);
	if (!rc && sim_topo_port(s->topo, fs.dst)->node->kind != SIM_NODE_HOST)
		rc = ytree_fail_key(x, f, K_TO, "expected a host NIC");
	if (!rc)
		rc = opt_double(x, f, K_GBPS, 0, 800, &fs.gbps);
	if (!rc)
		rc = ytree_opt_uint(x, f, K_PRIORITY, 0, 7, &fs.prio);
	if (rc)
		return rc;
	size_t n;
	saved = ytree_path_key(x, "from");
	rc = ytree_want_seq(x, f->val[K_FROM], &n);
	if (!rc && (n == 0 || n > SIM_SCENARIO_MAX_FLOWS))
		rc = ytree_fail(x, f->val[K_FROM],
				"expected 1 to %d senders, not %zu",
				SIM_SCENARIO_MAX_FLOWS, n);
	if (rc) {
		ytree_path_cut(x, saved);
		return rc;
	}
	fs.src = xcalloc(n, sizeof *fs.src);
	for (size_t i = 0; i < n && !rc; i++) {
		const struct ytree_node *it = f->val[K_FROM]->kids[i];
		const struct sim_node *nd;
		const struct sim_port *p;
		size_t si = ytree_path_index(x, i);
		rc = scenario_node_endpoint(x, s->topo, it, false, &nd, &p);
		if (!rc && nd->kind != SIM_NODE_HOST)
			rc = ytree_fail(x, it, "expected a host NIC");
		if (!rc && p->id == fs.dst)
			rc = ytree_fail(x, it,
					"a sender cannot be the "
					"receiver");
		if (!rc)
			fs.src[i] = p->id;
		ytree_path_cut(x, si);
	}
	ytree_path_cut(x, saved);
	fs.n = n;
	if (!rc && f->val[K_PATH]) {
		saved = ytree_path_key(x, "path");
		rc = parse_path(x, s->topo, f->val[K_PATH], &fs);
		ytree_path_cut(x, saved);
	}
	if (rc) {
		free(fs.src);
		free(fs.path);
		return rc;
	}
	fs.name = xstrdup(nm->str);
	s->sets = xreallocarray(s->sets, s->n_sets + 1, sizeof *s->sets);
	e->set = s->n_sets;
	s->sets[s->n_sets++] = fs;
	return 0;
}

static int parse_stop(struct ytree_ctx *x, struct sim_scenario *s,
		      const struct ytree_fields *f, struct event *e)
{
	char q[YTREE_QUOTE_BUF];
	const struct ytree_node *nm = f->val[K_NAME];
	size_t saved = ytree_path_key(x, "name");
	int rc = ytree_want_scalar(x, nm, "a flow set name");
	int i = rc ? -1 : find_set(s, nm->str);
	if (!rc && (i < 0 || strlen(nm->str) != nm->len))
		rc = ytree_fail(x, nm, "no flow set %s started before",
				ytree_quote(nm, q, sizeof q));
	ytree_path_cut(x, saved);
	if (!rc)
		e->set = (size_t)i;
	return rc;
}

/*
 * The knobs of a nic or a switch event: the key, how its value reads,
 * and where it goes in the model's configuration. One table per event
 * serves both the parse (in table order, so the first bad knob is the
 * error) and the apply (the knobs given, over the model's current
 * configuration).
 */
enum knob_kind {
	KNOB_BYTES, /* a size up to 1 TiB, uint64_t */
	KNOB_MS,    /* a duration up to 1 h, uint32_t in ms */
	KNOB_BOOL,  /* bool */
	KNOB_RATIO, /* a double from min to 1 */
};

struct knob {
	unsigned key; /* K_* */
	enum knob_kind kind;
	size_t off, size; /* of the field in the configuration struct */
	double min;	  /* KNOB_RATIO */
};

#define KNOB(cfg, k, kind, field, min)                                        \
	{                                                                     \
		(k), (kind), offsetof(cfg, field), sizeof(((cfg *)0)->field), \
		    (min)                                                     \
	}
#define NIC_KNOB(k, kind, field, min) \
	KNOB(struct sim_model_nic_cfg, k, kind, field, min)
#define SWITCH_KNOB(k, kind, field, min) \
	KNOB(struct sim_model_switch_cfg, k, kind, field, min)

static const struct knob nic_knobs[] = {
	NIC_KNOB(K_XOFF, KNOB_BYTES, xoff, 0),
	NIC_KNOB(K_XON, KNOB_BYTES, xon, 0),
	NIC_KNOB(K_HEADROOM, KNOB_BYTES, headroom, 0),
	NIC_KNOB(K_RX_DRAIN, KNOB_RATIO, rx_drain, 0),
	NIC_KNOB(K_NP_ENABLED, KNOB_BOOL, np_enabled, 0),
	NIC_KNOB(K_RP_IGNORE_CNP, KNOB_BOOL, rp_ignore_cnp, 0),
	NIC_KNOB(K_STORM_MINOR, KNOB_MS, storm_minor_ms, 0),
	NIC_KNOB(K_STORM_CRITICAL, KNOB_MS, storm_critical_ms, 0),
};

static const struct knob switch_knobs[] = {
	SWITCH_KNOB(K_XOFF, KNOB_BYTES, xoff, 0),
	SWITCH_KNOB(K_XON, KNOB_BYTES, xon, 0),
	SWITCH_KNOB(K_HEADROOM, KNOB_BYTES, headroom, 0),
	SWITCH_KNOB(K_ECN_KMIN, KNOB_BYTES, ecn_kmin, 0),
	SWITCH_KNOB(K_ECN_KMAX, KNOB_BYTES, ecn_kmax, 0),
	SWITCH_KNOB(K_ECN_PMAX, KNOB_RATIO, ecn_pmax, 0.000001),
	SWITCH_KNOB(K_PFCWD_DETECT, KNOB_MS, pfcwd_detect_ms, 0),
	SWITCH_KNOB(K_PFCWD_RESTORE, KNOB_MS, pfcwd_restore_ms, 0),
};

/* The knob table of e's kind (a nic or a switch event). */
static const struct knob *knobs_of(const struct event *e, size_t *n)
{
	if (e->kind == EV_NIC) {
		*n = sizeof nic_knobs / sizeof nic_knobs[0];
		return nic_knobs;
	}
	*n = sizeof switch_knobs / sizeof switch_knobs[0];
	return switch_knobs;
}

static int parse_knob(struct ytree_ctx *x, const struct ytree_fields *f,
		      const struct knob *k, void *field, unsigned *mask)
{
	uint64_t ns;
	int rc;
	if (!f->val[k->key])
		return 0;
	*mask |= B(k->key);
	switch (k->kind) {
	case KNOB_BYTES:
		return ytree_opt_size(x, f, k->key, 0, 1ull << 40, field);
	case KNOB_MS:
		rc = ytree_opt_duration(x, f, k->key, 0,
					3600ull * 1000000000ull, true, &ns);
		if (!rc)
			*(uint32_t *)field = (uint32_t)(ns / 1000000);
		return rc;
	case KNOB_BOOL:
		return ytree_opt_bool(x, f, k->key, field);
	case KNOB_RATIO:
		return opt_double(x, f, k->key, k->min, 1, field);
	}
	return 0;
}

static int parse_knobs(struct ytree_ctx *x, const struct ytree_fields *f,
		       struct event *e)
{
	size_t n;
	const struct knob *k = knobs_of(e, &n);
	char *cfg = e->kind == EV_NIC ? (char *)&e->nic : (char *)&e->sw;
	for (size_t i = 0; i < n; i++) {
		int rc = parse_knob(x, f, &k[i], cfg + k[i].off, &e->mask);
		if (rc)
			return rc;
	}
	return 0;
}

/* Copies the knobs e gives from its configuration to cfg. */
void scenario_set_knobs(const struct event *e, void *cfg)
{
	size_t n;
	const struct knob *k = knobs_of(e, &n);
	const char *from =
	    e->kind == EV_NIC ? (const char *)&e->nic : (const char *)&e->sw;
	for (size_t i = 0; i < n; i++)
		if (e->mask & B(k[i].key))
			memcpy((char *)cfg + k[i].off, from + k[i].off,
			       k[i].size);
}

int scenario_parse_event(struct ytree_ctx *x, struct sim_scenario *s,
			 const struct ytree_node *n, struct event *e)
{
	struct ytree_fields f;
	char q[YTREE_QUOTE_BUF], d1[32], d2[32];
	int rc = scenario_want_map(x, n, ev_keys, N_KEYS, &f);
	if (rc)
		return rc;
	if ((rc = ytree_need(x, &f, K_AT)) || (rc = ytree_need(x, &f, K_DO)))
		return rc;
	rc = ytree_opt_duration(x, &f, K_AT, 0, UINT64_MAX, true, &e->at);
	if (rc)
		return rc;
	if (e->at > s->duration) {
		units_format_duration(e->at, d1, sizeof d1);
		units_format_duration(s->duration, d2, sizeof d2);
		return ytree_fail_key(x, &f, K_AT,
				      "%s is beyond the duration (%s)", d1, d2);
	}
	size_t saved = ytree_path_key(x, "do");
	rc = ytree_want_scalar(x, f.val[K_DO], "an event");
	size_t k = N_EV;
	for (size_t i = 0; !rc && i < N_EV; i++)
		if (strcmp(f.val[K_DO]->str, scenario_ev_names[i]) == 0 &&
		    strlen(scenario_ev_names[i]) == f.val[K_DO]->len)
			k = i;
	if (!rc && k == N_EV) {
		const char *hint =
		    ytree_closest(f.val[K_DO]->str, scenario_ev_names, N_EV);
		rc = ytree_fail(x, f.val[K_DO], "unknown event %s%s%s%s",
				ytree_quote(f.val[K_DO], q, sizeof q),
				hint ? " (did you mean " : "", hint ? hint : "",
				hint ? "?)" : "");
	}
	ytree_path_cut(x, saved);
	if (rc)
		return rc;
	e->kind = (enum ev_kind)k;
	for (size_t i = K_NAME; i < N_KEYS; i++) {
		if (f.val[i] && !(ev_allowed[k] & B(i)))
			return ytree_fail_pos(x, f.key[i]->line, f.key[i]->col,
					      "%s does not apply to do: %s",
					      ev_keys[i], scenario_ev_names[k]);
		if (!f.val[i] && (ev_needed[k] & B(i)))
			return ytree_fail(x, n, "do: %s needs %s",
					  scenario_ev_names[k], ev_keys[i]);
	}
	switch (e->kind) {
	case EV_FLOWS:
		return parse_flows(x, s, &f, e);
	case EV_STOP:
		return parse_stop(x, s, &f, e);
	case EV_NIC:
		rc = field_port(x, s->topo, &f, K_PORT, &e->port);
		if (!rc && sim_topo_port(s->topo, e->port)->node->kind !=
			       SIM_NODE_HOST)
			rc = ytree_fail_key(x, &f, K_PORT,
					    "expected a host NIC");
		return rc ? rc : parse_knobs(x, &f, e);
	case EV_SWITCH:
		rc = field_node(x, s->topo, &f, K_NODE, &e->node);
		return rc ? rc : parse_knobs(x, &f, e);
	case EV_LINK_DOWN:
	case EV_LINK_UP:
		rc = field_port(x, s->topo, &f, K_PORT, &e->port);
		if (!rc && !sim_topo_port(s->topo, e->port)->peer)
			rc = ytree_fail_key(x, &f, K_PORT,
					    "the port is not cabled");
		return rc;
	case EV_PAUSE:
		rc = field_port(x, s->topo, &f, K_PORT, &e->port);
		rc =
		    rc ? rc : ytree_opt_uint(x, &f, K_PRIORITY, 0, 7, &e->prio);
		return rc ? rc : opt_double(x, &f, K_RATIO, 0, 1, &e->ratio);
	case EV_REBOOT:
	case EV_TARGET_SILENT:
	case EV_TARGET_REFUSE:
	case EV_TARGET_OK:
	case EV_TARGET_RESET:
	case EV_TARGET_GARBAGE:
	case EV_TARGET_DROP_AFTER_SYNC:
	case EV_TARGET_WRONG_TYPES:
	case EV_TARGET_SLOW:
		return field_node(x, s->topo, &f, K_NODE, &e->node);
	}
	return 0;
}

static int cmp_event(const void *a, const void *b)
{
	const struct event *x = a, *y = b;
	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The topology, relative to the scenario's directory. */
static int parse_topology(struct ytree_ctx *x, struct sim_scenario *s,
			  const char *path, const struct ytree_fields *f,
			  size_t i)
{
	char *rel = NULL, *full, terr[1024];
	size_t saved = ytree_path_key(x, f->keys[i]);
	int rc = ytree_str(x, f->val[i], &rel);
	if (rc || s->topo) {
		/* A borrowed topology: only the key's form is checked. */
		ytree_path_cut(x, saved);
		free(rel);
		return rc;
	}
	const char *slash = strrchr(path, '/');
	if (rel[0] == '/' || !slash)
		full = xstrdup(rel);
	else
		full = xasprintf("%.*s/%s", (int)(slash - path), path, rel);
	s->topo = sim_topo_load(full, terr, sizeof terr);
	if (!s->topo)
		rc = ytree_fail(x, f->val[i], "cannot load the topology: %s",
				terr);
	ytree_path_cut(x, saved);
	free(full);
	free(rel);
	return rc;
}

static int parse_traffic(struct ytree_ctx *x, struct sim_scenario *s,
			 const struct ytree_node *n)
{
	static const char *const keys[] = { "pattern", "load", "priority" };
	static const char *const pats[] = { "ring_allreduce", "none" };
	static const int vals[] = { 1, 0 };
	struct ytree_fields f;
	int pat = 0;
	int rc = scenario_want_map(x, n, keys, 3, &f);
	s->bg_prio = scenario_default_prio(s->topo);
	if (!rc)
		rc = ytree_need(x, &f, 0);
	if (!rc)
		rc = ytree_opt_enum(x, &f, 0, pats, vals, 2, &pat);
	if (!rc && pat)
		rc = ytree_need(x, &f, 1);
	if (!rc && pat)
		rc = opt_double(x, &f, 1, 0.000001, 1, &s->bg_load);
	if (!rc)
		rc = ytree_opt_uint(x, &f, 2, 0, 7, &s->bg_prio);
	if (!rc && pat && sim_topo_n_tier(s->topo, SIM_NODE_HOST) < 2)
		rc = ytree_fail(x, n, "ring_allreduce needs 2 hosts or more");
	return rc;
}

/* background: on/off, or a mapping of the knobs (unset ones keep the
 * model's defaults; intervals of 0 disable). */
static int parse_bg(struct ytree_ctx *x, struct sim_scenario *s,
		    const struct ytree_node *n)
{
	static const char *const keys[] = {
		"enabled",	   "microbursts", "discard_ports",
		"lossy_ports",	   "error_links", "flap_interval",
		"reboot_interval",
	};
	struct sim_model_background *b = &s->bg;
	struct ytree_fields f;
	uint64_t flap = (uint64_t)(b->flap_mean_s * 1e9);
	uint64_t boot = (uint64_t)(b->reboot_mean_s * 1e9);
	if (n->kind == YTREE_SCALAR)
		return ytree_bool(x, n, &b->enabled);
	if (n->kind != YTREE_MAP)
		return ytree_fail(x, n, "expected on, off or a mapping, not %s",
				  ytree_kind_name(n));
	int rc = scenario_want_map(x, n, keys, 7, &f);
	if (!rc)
		rc = ytree_opt_bool(x, &f, 0, &b->enabled);
	if (!rc)
		rc = opt_double(x, &f, 1, 0, 100, &b->microburst_scale);
	if (!rc)
		rc = opt_double(x, &f, 2, 0, 1, &b->discard_port_fraction);
	if (!rc)
		rc = opt_double(x, &f, 3, 0, 1, &b->lossy_drop_port_fraction);
	if (!rc)
		rc = opt_double(x, &f, 4, 0, 1, &b->error_link_fraction);
	if (!rc)
		rc = ytree_opt_duration(x, &f, 5, 1000000000ull,
					MAX_DURATION_NS, true, &flap);
	if (!rc)
		rc = ytree_opt_duration(x, &f, 6, 1000000000ull,
					MAX_DURATION_NS, true, &boot);
	b->flap_mean_s = (double)flap * 1e-9;
	b->reboot_mean_s = (double)boot * 1e-9;
	return rc;
}

static int parse_scenario(struct ytree_ctx *x, struct sim_scenario *s,
			  const char *path, const struct ytree_node *root)
{
	static const char *const keys[] = { "topology",	 "seed",   "duration",
					    "traffic",	 "events", "background",
					    "visibility" };
	struct ytree_fields f;
	uint64_t seed = 1;
	size_t n = 0;
	sim_model_background_defaults(&s->bg);
	s->bg_force = -1;
	if (!root)
		return ytree_fail_file(x, "empty file");
	int rc = scenario_want_map(x, root, keys, 7, &f);
	/* topology and duration are required; seed defaults to 1. */
	for (size_t i = 0; !rc && i < 3; i += 2)
		rc = ytree_need(x, &f, i);
	if (!rc)
		rc = parse_topology(x, s, path, &f, 0);
	if (!rc && f.val[1]) {
		size_t saved = ytree_path_key(x, "seed");
		rc = ytree_uint(x, f.val[1], 0, UINT64_MAX, &seed);
		ytree_path_cut(x, saved);
	}
	s->seed = seed;
	if (!rc)
		rc = ytree_opt_duration(x, &f, 2, 1000000, MAX_DURATION_NS,
					false, &s->duration);
	if (!rc && f.val[3]) {
		size_t saved = ytree_path_key(x, "traffic");
		rc = parse_traffic(x, s, f.val[3]);
		ytree_path_cut(x, saved);
	}
	if (!rc && f.val[5]) {
		size_t saved = ytree_path_key(x, "background");
		rc = parse_bg(x, s, f.val[5]);
		ytree_path_cut(x, saved);
	}
	if (!rc && f.val[6]) {
		size_t saved = ytree_path_key(x, "visibility");
		rc = scenario_parse_visibility(x, s, f.val[6]);
		ytree_path_cut(x, saved);
	}
	if (rc || !f.val[4])
		return rc;
	size_t saved = ytree_path_key(x, "events");
	rc = scenario_want_list(x, f.val[4], SIM_SCENARIO_MAX_EVENTS, "events",
				&n);
	if (!rc && n)
		s->ev = xcalloc(n, sizeof *s->ev);
	for (size_t i = 0; !rc && i < n; i++) {
		size_t si = ytree_path_index(x, i);
		s->ev[i].order = i;
		rc = scenario_parse_event(x, s, f.val[4]->kids[i], &s->ev[i]);
		ytree_path_cut(x, si);
		if (!rc)
			s->n_ev++;
	}
	ytree_path_cut(x, saved);
	if (!rc && s->n_ev)
		qsort(s->ev, s->n_ev, sizeof *s->ev, cmp_event);
	return rc;
}

static int load_text(const char *path, const char *buf, size_t len, char *err,
		     size_t errlen, struct sim_scenario *s, bool truth)
{
	struct ytree_ctx x = { .name = path, .err = err, .errlen = errlen };
	struct ytree_node *root = NULL;
	int rc = ytree_load(&x, buf, len, SIM_SCENARIO_MAX_FILE_BYTES,
			    SIM_SCENARIO_MAX_DEPTH, &root);
	if (!rc)
		rc = truth ? scenario_parse_truth(&x, s, root)
			   : parse_scenario(&x, s, path, root);
	ytree_free(root);
	return rc;
}

static int load_one(const char *path, char *err, size_t errlen,
		    struct sim_scenario *s, bool truth)
{
	struct ytree_ctx x = { .name = path, .err = err, .errlen = errlen };
	size_t len;
	char *buf =
	    ytree_read_file(&x, path, SIM_SCENARIO_MAX_FILE_BYTES, &len);
	if (!buf)
		return -EINVAL;
	int rc = load_text(path, buf, len, err, errlen, s, truth);
	free(buf);
	return rc;
}

struct sim_scenario *sim_scenario_load(const char *path, char *err,
				       size_t errlen)
{
	struct sim_scenario *s = xcalloc(1, sizeof *s);
	char *tpath = NULL;
	size_t pl = strlen(path);
	if (err && errlen)
		err[0] = '\0';
	if (load_one(path, err, errlen, s, false))
		goto fail;
	if (pl > 5 && strcmp(path + pl - 5, ".yaml") == 0)
		pl -= 5;
	tpath = xasprintf("%.*s.truth.yaml", (int)pl, path);
	if (load_one(tpath, err, errlen, s, true))
		goto fail;
	free(tpath);
	return s;
fail:
	free(tpath);
	sim_scenario_free(s);
	return NULL;
}

struct sim_scenario *
sim_scenario_load_buffers(const char *name, const char *buf, size_t len,
			  const char *truth_name, const char *truth,
			  size_t truth_len, const struct sim_topo *topo,
			  char *err, size_t errlen)
{
	struct sim_scenario *s = xcalloc(1, sizeof *s);
	if (err && errlen)
		err[0] = '\0';
	/* Never written through: a borrowed topology is only read. */
	s->topo = (struct sim_topo *)topo;
	s->topo_borrowed = topo != NULL;
	if (load_text(name, buf, len, err, errlen, s, false) ||
	    load_text(truth_name, truth, truth_len, err, errlen, s, true)) {
		sim_scenario_free(s);
		return NULL;
	}
	return s;
}

void sim_scenario_free(struct sim_scenario *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_sets; i++) {
		free(s->sets[i].name);
		free(s->sets[i].src);
		free(s->sets[i].path);
		free(s->sets[i].ids);
	}
	for (size_t i = 0; i < s->n_inc; i++)
		free(s->inc[i].victims);
	free(s->sets);
	free(s->inc);
	free(s->ev);
	for (size_t i = 0; i < SIM_SCENARIO_VIS_N; i++)
		free(s->vis[i]);
	if (!s->topo_borrowed)
		sim_topo_free(s->topo);
	free(s);
}

const struct sim_topo *sim_scenario_topo(const struct sim_scenario *s)
{
	return s->topo;
}

uint64_t sim_scenario_seed(const struct sim_scenario *s)
{
	return s->seed;
}

uint64_t sim_scenario_duration_ns(const struct sim_scenario *s)
{
	return s->duration;
}

size_t sim_scenario_n_incidents(const struct sim_scenario *s)
{
	return s->n_inc;
}

const struct sim_scenario_incident *
sim_scenario_incident(const struct sim_scenario *s, size_t i)
{
	return i < s->n_inc ? &s->inc[i].pub : NULL;
}

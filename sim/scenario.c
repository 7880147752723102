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
 */
#include "config.h"

#include "scenario.h"

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

#define MAX_DURATION_NS (24ull * 3600 * 1000000000ull)

enum ev_kind {
	EV_FLOWS,
	EV_STOP,
	EV_NIC,
	EV_SWITCH,
	EV_LINK_DOWN,
	EV_LINK_UP,
	EV_REBOOT,
	EV_PAUSE,
	EV_TARGET_SILENT,
	EV_TARGET_REFUSE,
	EV_TARGET_OK,
};

static const char *const ev_names[] = {
	"flows",	 "stop",	  "nic",       "switch",
	"link_down",	 "link_up",	  "reboot",    "pause",
	"target_silent", "target_refuse", "target_ok",
};
#define N_EV (sizeof ev_names / sizeof ev_names[0])

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
};

struct flowset {
	char *name;
	size_t *src;
	size_t n;
	size_t dst;
	unsigned prio;
	double gbps;
	size_t *path; /* switch egress ports, or NULL: routed */
	size_t path_len;
	int *ids; /* model flow ids once added, else NULL */
};

struct event {
	uint64_t at;
	size_t order; /* file order, for a stable sort */
	enum ev_kind kind;
	size_t set;    /* flows, stop */
	size_t node;   /* switch, reboot, target_* */
	size_t port;   /* nic, link_*, pause */
	unsigned mask; /* B(K_*) of the knobs given */
	struct sim_model_nic_cfg nic;
	struct sim_model_switch_cfg sw;
	unsigned prio;
	double ratio;
};

struct incident {
	struct sim_scenario_incident pub;
	struct sim_scenario_victim *victims;
};

struct sim_scenario {
	struct sim_topo *topo;
	bool topo_borrowed; /* from sim_scenario_load_buffers() */
	uint64_t seed, duration;
	unsigned bg_prio;
	double bg_load; /* 0: no background traffic */
	struct event *ev;
	size_t n_ev;
	struct flowset *sets;
	size_t n_sets;
	struct incident *inc;
	size_t n_inc;
	size_t cursor;
	bool started;
};

static const char *const kind_names[SIM_SCENARIO_KINDS] = {
	"pfc_storm",	     "congestion_spreading",
	"pfc_deadlock",	     "incast",
	"lossless_drop",     "pause_on_lossy_priority",
	"ecn_after_pfc",     "ecn_without_cnp",
	"link_flap",	     "switch_reboot",
	"target_silent",     "target_refuse",
	"rail_misalignment",
};

const char *sim_scenario_kind_name(enum sim_scenario_kind kind)
{
	if ((unsigned)kind >= SIM_SCENARIO_KINDS)
		return "?";
	return kind_names[kind];
}

/* A list (or null) of at most max items, what they are for the message. */
static int want_list(struct ytree_ctx *x, const struct ytree_node *n,
		     size_t max, const char *what, size_t *count)
{
	int rc = ytree_want_seq(x, n, count);
	if (!rc && *count > max)
		rc = ytree_fail(x, n, "more than %zu %s", max, what);
	return rc;
}

static int want_map(struct ytree_ctx *x, const struct ytree_node *n,
		    const char *const *keys, size_t nk, struct ytree_fields *f)
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

static int node_node(struct ytree_ctx *x, const struct sim_topo *t,
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
static int node_endpoint(struct ytree_ctx *x, const struct sim_topo *t,
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
	int rc = node_endpoint(x, t, f->val[i], false, &nd, &p);
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
	int rc = node_node(x, t, f->val[i], true, &nd);
	ytree_path_cut(x, saved);
	if (!rc)
		*out = nd->id;
	return rc;
}

/* Traffic's default priority: the lowest lossless one, else 0. */
static unsigned default_prio(const struct sim_topo *t)
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
		rc = node_endpoint(x, t, it, false, &nd, &p);
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
	struct flowset fs = { .prio = default_prio(s->topo) };
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
		rc = node_endpoint(x, s->topo, it, false, &nd, &p);
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
static void set_knobs(const struct event *e, void *cfg)
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

static int parse_event(struct ytree_ctx *x, struct sim_scenario *s,
		       const struct ytree_node *n, struct event *e)
{
	struct ytree_fields f;
	char q[YTREE_QUOTE_BUF], d1[32], d2[32];
	int rc = want_map(x, n, ev_keys, N_KEYS, &f);
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
		if (strcmp(f.val[K_DO]->str, ev_names[i]) == 0 &&
		    strlen(ev_names[i]) == f.val[K_DO]->len)
			k = i;
	if (!rc && k == N_EV) {
		const char *hint =
		    ytree_closest(f.val[K_DO]->str, ev_names, N_EV);
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
					      ev_keys[i], ev_names[k]);
		if (!f.val[i] && (ev_needed[k] & B(i)))
			return ytree_fail(x, n, "do: %s needs %s", ev_names[k],
					  ev_keys[i]);
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
	int rc = want_map(x, n, keys, 3, &f);
	s->bg_prio = default_prio(s->topo);
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

static int parse_scenario(struct ytree_ctx *x, struct sim_scenario *s,
			  const char *path, const struct ytree_node *root)
{
	static const char *const keys[] = { "topology", "seed", "duration",
					    "traffic", "events" };
	struct ytree_fields f;
	uint64_t seed = 1;
	size_t n = 0;
	if (!root)
		return ytree_fail_file(x, "empty file");
	int rc = want_map(x, root, keys, 5, &f);
	for (size_t i = 0; !rc && i < 3; i++)
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
	if (rc || !f.val[4])
		return rc;
	size_t saved = ytree_path_key(x, "events");
	rc = want_list(x, f.val[4], SIM_SCENARIO_MAX_EVENTS, "events", &n);
	if (!rc && n)
		s->ev = xcalloc(n, sizeof *s->ev);
	for (size_t i = 0; !rc && i < n; i++) {
		size_t si = ytree_path_index(x, i);
		s->ev[i].order = i;
		rc = parse_event(x, s, f.val[4]->kids[i], &s->ev[i]);
		ytree_path_cut(x, si);
		if (!rc)
			s->n_ev++;
	}
	ytree_path_cut(x, saved);
	if (!rc && s->n_ev)
		qsort(s->ev, s->n_ev, sizeof *s->ev, cmp_event);
	return rc;
}

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
		return node_endpoint(x, s->topo, n, true, &v->node, &v->port);
	int rc = ytree_fields_get(x, n, keys, 3, &f);
	if (!rc)
		rc = ytree_need(x, &f, 0);
	if (!rc) {
		size_t sk = ytree_path_key(x, "port");
		rc = node_endpoint(x, s->topo, f.val[0], true, &v->node,
				   &v->port);
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
	int rc = want_map(x, n, keys, 5, &f);
	for (size_t i = 0; !rc && i < 4; i++)
		rc = i == 2 ? 0 : ytree_need(x, &f, i);
	if (!rc)
		rc = ytree_opt_enum(x, &f, 0, kind_names, kvals,
				    SIM_SCENARIO_KINDS, &kind);
	if (rc)
		return rc;
	p->kind = (enum sim_scenario_kind)kind;
	p->priority = -1;
	size_t saved = ytree_path_key(x, "origin");
	rc = want_map(x, f.val[1], okeys, 3, &o);
	if (!rc)
		rc = ytree_need(x, &o, 0);
	if (!rc) {
		size_t sk = ytree_path_key(x, "device");
		rc = node_node(x, s->topo, o.val[0], false, &p->device);
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

static int parse_truth(struct ytree_ctx *x, struct sim_scenario *s,
		       const struct ytree_node *root)
{
	static const char *const keys[] = { "incidents" };
	struct ytree_fields f;
	size_t n = 0;
	if (!root)
		return ytree_fail_file(x, "empty file");
	int rc = want_map(x, root, keys, 1, &f);
	if (!rc)
		rc = ytree_need(x, &f, 0);
	if (rc)
		return rc;
	size_t saved = ytree_path_key(x, "incidents");
	rc =
	    want_list(x, f.val[0], SIM_SCENARIO_MAX_INCIDENTS, "incidents", &n);
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

static int load_text(const char *path, const char *buf, size_t len, char *err,
		     size_t errlen, struct sim_scenario *s, bool truth)
{
	struct ytree_ctx x = { .name = path, .err = err, .errlen = errlen };
	struct ytree_node *root = NULL;
	int rc = ytree_load(&x, buf, len, SIM_SCENARIO_MAX_FILE_BYTES,
			    SIM_SCENARIO_MAX_DEPTH, &root);
	if (!rc)
		rc = truth ? parse_truth(&x, s, root)
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

void sim_scenario_rewind(struct sim_scenario *s)
{
	for (size_t i = 0; i < s->n_sets; i++) {
		free(s->sets[i].ids);
		s->sets[i].ids = NULL;
	}
	s->cursor = 0;
	s->started = false;
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
		set_knobs(e, &c);
		return sim_model_set_nic_cfg(m, e->port, &c);
	}
	case EV_SWITCH: {
		struct sim_model_switch_cfg c;
		if ((rc = sim_model_get_switch_cfg(m, e->node, &c)))
			return rc;
		set_knobs(e, &c);
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
		return 0; /* the serving layer asks sim_scenario_target() */
	}
	return 0;
}

int sim_scenario_apply(struct sim_scenario *s, struct sim_model *m,
		       uint64_t now_ns)
{
	int rc = 0, r;
	if (!s->started) {
		s->started = true;
		rc = start_background(s, m);
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
		if (e->node != node)
			continue;
		if (e->kind == EV_TARGET_SILENT)
			t = SIM_SCENARIO_TARGET_IS_SILENT;
		else if (e->kind == EV_TARGET_REFUSE)
			t = SIM_SCENARIO_TARGET_REFUSES;
		else if (e->kind == EV_TARGET_OK)
			t = SIM_SCENARIO_TARGET_OK;
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
	s->bg_prio = default_prio(t);
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
		rc = parse_event(&x, s, root, &le.e);
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
	case EV_TARGET_SILENT:
		l->target[le.e.node] = SIM_SCENARIO_TARGET_IS_SILENT;
		break;
	case EV_TARGET_REFUSE:
		l->target[le.e.node] = SIM_SCENARIO_TARGET_REFUSES;
		break;
	case EV_TARGET_OK:
		l->target[le.e.node] = SIM_SCENARIO_TARGET_OK;
		break;
	default:
		break;
	}
	rc = apply_event(s, m, &le.e);
	if (rc) {
		snprintf(err, errlen, "%s: the model refused do: %s (%s)", name,
			 ev_names[le.e.kind], strerror(-rc));
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
		l->target[e->node] = -1;
		break;
	case EV_STOP:
	case EV_LINK_UP:
	case EV_REBOOT:
		snprintf(err, errlen, "event %d (do: %s) has no end to stop",
			 id, ev_names[e->kind]);
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
	return ev_names[l->ev[id - 1].e.kind];
}

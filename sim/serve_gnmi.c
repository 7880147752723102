/*
 * sim_serve_gnmi: the switches of a simulated fabric as gNMI targets
 * (see serve_gnmi.h).
 *
 * Leaves are containers, not one leaf per counter: a SONiC port is
 * four JSON objects (port, queues, watchdog, PORT_TABLE entry) and one
 * per PG, an OpenConfig port a dozen (interface counters, oper-status,
 * Ethernet counters, one per queue, Arista's one per priority). That keeps a
 * 64-port switch at a few hundred leaves, so a thousand subscribed switches fit
 * in memory and the target's per-leaf work stays small; the cost is formatting
 * the JSON text, done once per publish into one reused buffer.
 *
 * Leaf handles are created on a switch's first publish (a switch
 * nobody subscribes to has an empty tree) and kept in a flat array per
 * switch, so a publish is: read the port from the model, format, set.
 */
#include "config.h"

#include "serve_gnmi.h"

#include "mem.h"
#include "target.h"
#include "units.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_QUEUES 8

/* Per-port leaves of the OpenConfig flavours, in handle order. */
enum {
	OC_COUNTERS,
	OC_OPER,
	OC_ETH,
	OC_QUEUE0,
	OC_PRIO0 = OC_QUEUE0 + N_QUEUES, /* arista only */
	OC_WD0 = OC_PRIO0 + SIM_MODEL_PRIOS,
	OC_N = OC_WD0 + SIM_MODEL_PRIOS
};
/* SONiC: port object, Queues, Pfcwd, APPL_DB's PORT_TABLE entry, the
 * COUNTERS:oid:0x… hash of each lossless priority's PG (indexed by
 * priority). */
enum {
	SN_PORT,
	SN_QUEUES,
	SN_PFCWD,
	SN_PORT_TABLE,
	SN_PG0,
	SN_N = SN_PG0 + SIM_MODEL_PRIOS
};

struct sw {
	const struct sim_node *node;
	struct gnmi_target *tgt;
	enum sim_scenario_target fault;
	struct gnmi_target_leaf **leaf; /* n_ports * per_port, lazily */
	uint64_t *sig;			/* per port: hash of the last values */
	int8_t *oper; /* SONiC, per port: PORT_TABLE's link state, -1 none */
	unsigned per_port;
	bool pg_map; /* COUNTERS_PG_NAME_MAP published */
	/* Every port at the next publish (the wrong_types fault came or
	 * went: the same counters are written differently). */
	bool republish;
};

struct sim_serve_gnmi {
	const struct sim_topo *topo;
	struct gnmi_target_loop *loop;
	struct sw *sw; /* one per switch, in node order */
	size_t n_sw;
	size_t *by_node; /* node id -> index in sw, SIZE_MAX for hosts */
	const struct sim_visibility *vis;
	uint64_t seed; /* of the garbage fault's bytes */
	uint8_t lossless;
	bool na;   /* the switch being published has wrong_types */
	char *buf; /* the JSON text being formatted */
	size_t len, cap;
	/* ",\"SAI_PORT_STAT_PFC_3_RX_PKTS\":\"" (see struct jkey):
	 * [priority][field] */
	char pfc_key[SIM_MODEL_PRIOS][5][64];
	size_t pfc_key_n[SIM_MODEL_PRIOS][5];
};

static const char *const pfc_suffix[5] = {
	"_RX_PKTS",
	"_TX_PKTS",
	"_RX_PAUSE_DURATION_US",
	"_TX_PAUSE_DURATION_US",
	"_ON2OFF_RX_PKTS",
};

/* ---- A reused text buffer ---- */

static void reserve(struct sim_serve_gnmi *g, size_t n)
{
	if (g->len + n + 1 <= g->cap)
		return;
	while (g->len + n + 1 > g->cap)
		g->cap = g->cap ? g->cap * 2 : 4096;
	g->buf = xrealloc(g->buf, g->cap);
}

static void put(struct sim_serve_gnmi *g, const char *s)
{
	size_t n = strlen(s);
	reserve(g, n);
	memcpy(g->buf + g->len, s, n + 1);
	g->len += n;
}

/* s as the inside of a JSON string (quotes, backslashes and control
 * characters escaped). */
static void put_esc(struct sim_serve_gnmi *g, const char *s)
{
	for (; *s; s++) {
		char e[8] = { *s, 0 };
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			e[0] = '\\', e[1] = (char)c, e[2] = 0;
		else if (c < 0x20)
			snprintf(e, sizeof e, "\\u%04x", c);
		put(g, e);
	}
}

/* Digits of v at p (room for 20), no printf: this runs millions of
 * times a second. Returns the end. */
static char *digits(char *p, uint64_t v)
{
	char tmp[20];
	size_t i = sizeof tmp;
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	memcpy(p, tmp + i, sizeof tmp - i);
	return p + (sizeof tmp - i);
}

static void put_u64(struct sim_serve_gnmi *g, uint64_t v)
{
	reserve(g, 20);
	g->len = (size_t)(digits(g->buf + g->len, v) - g->buf);
	g->buf[g->len] = '\0';
}

/*
 * A JSON member's text up to its value, comma first: ,"name":" -- with
 * its length counted by the compiler (JK) or once at start (the PFC
 * names), so that a field costs two copies and the digits.
 */
struct jkey {
	const char *s;
	size_t n;
};
#define JK(name) \
	((struct jkey){ ",\"" name "\":\"", sizeof(",\"" name "\":\"") - 1 })

static struct jkey pfc_key(const struct sim_serve_gnmi *g, unsigned p,
			   unsigned k)
{
	return (struct jkey){ g->pfc_key[p][k], g->pfc_key_n[p][k] };
}

/* "name":"v", with a comma before unless first: JSON_IETF writes
 * 64-bit integers as strings (RFC 7951), as SONiC and EOS do. */
static void fieldk(struct sim_serve_gnmi *g, bool *first, struct jkey k,
		   uint64_t v)
{
	const char *s = k.s;
	size_t n = k.n;
	if (*first) {
		s++;
		n--;
		*first = false;
	}
	reserve(g, n + 22);
	char *p = g->buf + g->len;
	memcpy(p, s, n);
	if (g->na) { /* the wrong_types fault: not a number */
		memcpy(p + n, "n/a", 3);
		p += n + 3;
	} else {
		p = digits(p + n, v);
	}
	*p++ = '"';
	*p = '\0';
	g->len = (size_t)(p - g->buf);
}

static void begin(struct sim_serve_gnmi *g)
{
	g->len = 0;
	reserve(g, 1);
	g->buf[0] = '\0';
}

/* ---- Flavours ---- */

const char *sim_serve_gnmi_profile(enum sim_flavour f)
{
	switch (f) {
	case SIM_FLAVOUR_SONIC:
		return "sonic";
	case SIM_FLAVOUR_ARISTA:
		return "arista";
	case SIM_FLAVOUR_OPENCONFIG:
		return "openconfig";
	case SIM_FLAVOUR_MLX5:
		break;
	}
	return NULL;
}

const char *sim_serve_gnmi_target(enum sim_flavour f)
{
	return f == SIM_FLAVOUR_SONIC ? "COUNTERS_DB" : NULL;
}

static const struct gnmi_target_model sonic_models[] = {
	{ "sonic-db", "SONiC", "2.0.0" },
	{ "sonic-port", "SONiC", "1.0.0" },
	{ "sonic-queue", "SONiC", "1.0.0" },
};
static const struct gnmi_target_model arista_models[] = {
	{ "openconfig-interfaces", "OpenConfig working group", "3.0.0" },
	{ "openconfig-if-ethernet", "OpenConfig working group", "2.11.0" },
	{ "openconfig-qos", "OpenConfig working group", "0.6.0" },
	{ "openconfig-lldp", "OpenConfig working group", "0.2.1" },
	{ "arista-intf-augments", "Arista Networks, Inc.", "1.6.0" },
};
static const struct gnmi_target_model oc_models[] = {
	{ "openconfig-interfaces", "OpenConfig working group", "3.0.0" },
	{ "openconfig-if-ethernet", "OpenConfig working group", "2.11.0" },
	{ "openconfig-qos", "OpenConfig working group", "0.6.0" },
	{ "openconfig-lldp", "OpenConfig working group", "0.2.1" },
};

void sim_serve_gnmi_options_init(struct sim_serve_gnmi_options *o)
{
	memset(o, 0, sizeof *o);
	o->address = "127.0.0.1";
}

static void free_switches(struct sim_serve_gnmi *g)
{
	for (size_t i = 0; i < g->n_sw; i++) {
		gnmi_target_free(g->sw[i].tgt);
		free(g->sw[i].leaf);
		free(g->sw[i].sig);
		free(g->sw[i].oper);
	}
}

struct sim_serve_gnmi *
sim_serve_gnmi_new(const struct sim_topo *t,
		   const struct sim_serve_gnmi_options *o, char *err,
		   size_t errlen)
{
	struct sim_serve_gnmi_options def;
	if (!o) {
		sim_serve_gnmi_options_init(&def);
		o = &def;
	}
	const char *host = o->address ? o->address : "127.0.0.1";
	bool v6 = strchr(host, ':') != NULL;
	struct sim_serve_gnmi *g = xcalloc(1, sizeof *g);
	g->topo = t;
	g->vis = o->vis;
	g->seed = o->seed;
	g->lossless = sim_topo_lossless_mask(t);
	for (unsigned p = 0; p < SIM_MODEL_PRIOS; p++)
		for (unsigned k = 0; k < 5; k++)
			g->pfc_key_n[p][k] = (size_t)snprintf(
			    g->pfc_key[p][k], sizeof g->pfc_key[p][k],
			    ",\"SAI_PORT_STAT_PFC_%u%s\":\"", p, pfc_suffix[k]);
	size_t nn = sim_topo_n_nodes(t);
	g->by_node = xcalloc(nn ? nn : 1, sizeof *g->by_node);
	g->sw = xcalloc(nn ? nn : 1, sizeof *g->sw);
	g->loop = gnmi_target_loop_new();
	if (!g->loop) {
		snprintf(err, errlen, "cannot start the gNMI target thread");
		goto fail;
	}
	unsigned pos = 0; /* position among the switches */
	for (size_t id = 0; id < nn; id++) {
		const struct sim_node *n = sim_topo_node(t, id);
		g->by_node[id] = SIZE_MAX;
		if (n->kind == SIM_NODE_HOST)
			continue;
		pos++;
		if (sim_visibility_flags(o->vis, id) & SIM_VIS_UNMONITORED)
			continue;
		struct gnmi_target_options to;
		gnmi_target_options_init(&to);
		char addr[128], terr[256];
		unsigned port = o->base_port ? o->base_port + pos - 1 : 0;
		if (port > 65535) {
			snprintf(err, errlen,
				 "gNMI port of %s would be %u, past 65535",
				 n->name, port);
			goto fail;
		}
		snprintf(addr, sizeof addr, v6 ? "[%s]:%u" : "%s:%u", host,
			 port);
		to.address = addr;
		to.default_sample_interval_ns = NS_PER_S;
		to.tick_interval_ns = o->tick_interval_ns;
		switch (n->flavour) {
		case SIM_FLAVOUR_SONIC:
			/* sonic-gnmi: JSON and JSON_IETF, DB paths refuse
			 * intervals under a second. */
			to.encodings =
			    GNMI_TARGET_ENC_JSON | GNMI_TARGET_ENC_JSON_IETF;
			to.min_sample_interval_ns = NS_PER_S;
			to.models = sonic_models;
			to.n_models =
			    sizeof sonic_models / sizeof sonic_models[0];
			break;
		case SIM_FLAVOUR_ARISTA:
			to.encodings =
			    GNMI_TARGET_ENC_JSON | GNMI_TARGET_ENC_JSON_IETF;
			to.models = arista_models;
			to.n_models =
			    sizeof arista_models / sizeof arista_models[0];
			break;
		default:
			to.encodings =
			    GNMI_TARGET_ENC_JSON | GNMI_TARGET_ENC_JSON_IETF;
			to.models = oc_models;
			to.n_models = sizeof oc_models / sizeof oc_models[0];
			break;
		}
		struct sw *s = &g->sw[g->n_sw];
		s->node = n;
		s->per_port = n->flavour == SIM_FLAVOUR_SONIC ? SN_N : OC_N;
		s->tgt = gnmi_target_new(g->loop, &to, terr, sizeof terr);
		if (!s->tgt) {
			snprintf(err, errlen, "gNMI target of %s on %s: %s",
				 n->name, addr, terr);
			goto fail;
		}
		g->by_node[id] = g->n_sw++;
	}
	return g;
fail:
	sim_serve_gnmi_free(g);
	return NULL;
}

void sim_serve_gnmi_free(struct sim_serve_gnmi *g)
{
	if (!g)
		return;
	free_switches(g);
	gnmi_target_loop_free(g->loop);
	free(g->sw);
	free(g->by_node);
	free(g->buf);
	free(g);
}

static struct sw *sw_of(const struct sim_serve_gnmi *g, size_t node)
{
	if (node >= sim_topo_n_nodes(g->topo) || g->by_node[node] == SIZE_MAX)
		return NULL;
	return &g->sw[g->by_node[node]];
}

int sim_serve_gnmi_port(const struct sim_serve_gnmi *g, size_t node)
{
	const struct sw *s = sw_of(g, node);
	return s ? gnmi_target_port(s->tgt) : -1;
}

size_t sim_serve_gnmi_streams(const struct sim_serve_gnmi *g, size_t node)
{
	const struct sw *s = sw_of(g, node);
	return s ? gnmi_target_stream_count(s->tgt) : 0;
}

enum sim_scenario_target sim_serve_gnmi_fault(const struct sim_serve_gnmi *g,
					      size_t node)
{
	const struct sw *s = sw_of(g, node);
	return s ? s->fault : SIM_SCENARIO_TARGET_OK;
}

/* Leaves fault f on switch s's target. */
static int leave_fault(struct sw *s, enum sim_scenario_target f)
{
	switch (f) {
	case SIM_SCENARIO_TARGET_IS_SILENT:
		gnmi_target_set_silent(s->tgt, false);
		break;
	case SIM_SCENARIO_TARGET_REFUSES:
		return gnmi_target_start(s->tgt);
	case SIM_SCENARIO_TARGET_RESET:
		gnmi_target_set_stream_lifetime(s->tgt, 0);
		break;
	case SIM_SCENARIO_TARGET_GARBAGE:
		gnmi_target_set_garbage(s->tgt, false, 0);
		break;
	case SIM_SCENARIO_TARGET_DROP_AFTER_SYNC:
		gnmi_target_set_end_after_sync(s->tgt, false);
		break;
	case SIM_SCENARIO_TARGET_WRONG_TYPES: /* at the next publish */
	case SIM_SCENARIO_TARGET_SLOW:	      /* SNMP only */
	case SIM_SCENARIO_TARGET_OK:
		break;
	}
	return 0;
}

/* Enters fault f on switch s's target. */
static int enter_fault(const struct sim_serve_gnmi *g, struct sw *s,
		       enum sim_scenario_target f)
{
	switch (f) {
	case SIM_SCENARIO_TARGET_IS_SILENT:
		gnmi_target_set_silent(s->tgt, true);
		break;
	case SIM_SCENARIO_TARGET_REFUSES:
		return gnmi_target_stop(s->tgt);
	case SIM_SCENARIO_TARGET_RESET:
		/* The open streams go at once, the next ones after
		 * SIM_SERVE_GNMI_RESET_NS. */
		gnmi_target_set_stream_lifetime(s->tgt,
						SIM_SERVE_GNMI_RESET_NS);
		gnmi_target_end_streams(s->tgt);
		break;
	case SIM_SCENARIO_TARGET_GARBAGE:
		/* Per switch and run: the seed and the switch's id. */
		gnmi_target_set_garbage(s->tgt, true,
					(g->seed + 1) * 0x9e3779b97f4a7c15ull ^
					    (s->node->id + 1));
		break;
	case SIM_SCENARIO_TARGET_DROP_AFTER_SYNC:
		/* The streams open now are past their sync: they end now,
		 * so that their clients resubscribe into the fault. */
		gnmi_target_set_end_after_sync(s->tgt, true);
		gnmi_target_end_streams(s->tgt);
		break;
	case SIM_SCENARIO_TARGET_WRONG_TYPES: /* at the next publish */
	case SIM_SCENARIO_TARGET_SLOW:	      /* SNMP only */
	case SIM_SCENARIO_TARGET_OK:
		break;
	}
	return 0;
}

int sim_serve_gnmi_set_fault(struct sim_serve_gnmi *g, size_t node,
			     enum sim_scenario_target fault)
{
	struct sw *s = sw_of(g, node);
	if (!s || (unsigned)fault >= SIM_SCENARIO_TARGETS)
		return -EINVAL;
	if (s->fault == fault)
		return 0;
	/* Leave the old fault, then enter the new one. */
	int rc = leave_fault(s, s->fault);
	if (rc && rc != -EALREADY)
		return rc;
	rc = enter_fault(g, s, fault);
	if (rc == -EALREADY)
		rc = 0;
	if (s->fault == SIM_SCENARIO_TARGET_WRONG_TYPES ||
	    fault == SIM_SCENARIO_TARGET_WRONG_TYPES)
		s->republish = true;
	s->fault = fault;
	return rc;
}

/* ---- Leaves ---- */

/* Sets leaf l to the JSON text formatted in g's buffer. */
static void set_json(const struct sim_serve_gnmi *g, struct gnmi_target_leaf *l)
{
	gnmi_target_leaf_set_json_len(l, g->buf, g->len);
}

static struct gnmi_target_leaf *leaf_at(struct sw *s, size_t port, unsigned k,
					const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The handle of leaf k of port (port index on the switch), made from
 * the path fmt on first use. */
static struct gnmi_target_leaf *leaf_at(struct sw *s, size_t port, unsigned k,
					const char *fmt, ...)
{
	struct gnmi_target_leaf **slot = &s->leaf[port * s->per_port + k];
	if (!*slot) {
		char path[512];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(path, sizeof path, fmt, ap);
		va_end(ap);
		*slot = gnmi_target_leaf(s->tgt, path);
	}
	return *slot;
}

/*
 * SONiC's LLDP neighbours as lldp_syncd writes them to APPL_DB
 * (LLDP_ENTRY_TABLE:<port>, served by sonic-gnmi with prefix target
 * APPL_DB): every field a string, subtypes as LLDP-MIB numbers.
 */
static void publish_sonic_lldp(struct sim_serve_gnmi *g, struct sw *s)
{
	const struct sim_node *n = s->node;
	for (size_t i = 0; i < n->n_ports; i++) {
		const struct sim_port *p = &n->ports[i];
		if (!p->peer ||
		    !sim_visibility_lldp_names(g->vis, p->peer->node))
			continue;
		const struct sim_port *r = p->peer;
		char path[256];
		begin(g);
		put(g,
		    "{\"lldp_rem_index\":\"1\",\"lldp_rem_time_mark\":\"0\"");
		put(g, ",\"lldp_rem_chassis_id_subtype\":\"4\"");
		put(g, ",\"lldp_rem_chassis_id\":\"");
		put_esc(g, r->node->chassis_id);
		put(g, "\",\"lldp_rem_port_id_subtype\":\"");
		put_u64(g, r->port_id_subtype);
		put(g, "\",\"lldp_rem_port_id\":\"");
		put_esc(g, r->port_id);
		put(g, "\",\"lldp_rem_port_desc\":\"");
		put_esc(g, r->port_desc ? r->port_desc : "");
		put(g, "\",\"lldp_rem_sys_name\":\"");
		put_esc(g, r->node->name);
		put(g, "\",\"lldp_rem_sys_desc\":\"");
		put_esc(g, r->node->sys_desc ? r->node->sys_desc : "");
		put(g, r->node->kind == SIM_NODE_HOST
			   ? "\",\"lldp_rem_sys_cap_supported\":\"01 00\""
			     ",\"lldp_rem_sys_cap_enabled\":\"01 00\"}"
			   : "\",\"lldp_rem_sys_cap_supported\":\"28 00\""
			     ",\"lldp_rem_sys_cap_enabled\":\"28 00\"}");
		snprintf(path, sizeof path, "LLDP_ENTRY_TABLE/%s", p->name);
		gnmi_target_set_json(s->tgt, path, g->buf);
	}
}

/* What never changes: SONiC's port name map, the LLDP neighbours. */
static void publish_static(struct sim_serve_gnmi *g, struct sw *s)
{
	const struct sim_node *n = s->node;
	unsigned vf = sim_visibility_flags(g->vis, n->id);
	bool lldp = !(vf & (SIM_VIS_NO_LLDP | SIM_VIS_NO_APPL_DB));
	if (n->flavour == SIM_FLAVOUR_SONIC) {
		if (lldp)
			publish_sonic_lldp(g, s);
		begin(g);
		put(g, "{");
		for (size_t i = 0; i < n->n_ports; i++) {
			char oid[64];
			snprintf(oid, sizeof oid, "\"oid:0x%llx\"",
				 0x1000000000002ull + n->ports[i].index);
			put(g, i ? ",\"" : "\"");
			put(g, n->ports[i].name);
			put(g, "\":");
			put(g, oid);
		}
		put(g, "}");
		gnmi_target_set_json(s->tgt, "COUNTERS_PORT_NAME_MAP", g->buf);
		return;
	}
	for (size_t i = 0; lldp && i < n->n_ports; i++) {
		const struct sim_port *p = &n->ports[i];
		if (!p->peer ||
		    !sim_visibility_lldp_names(g->vis, p->peer->node))
			continue;
		char path[512];
		begin(g);
		put(g, "{\"system-name\":\"");
		put(g, p->peer->node->name);
		put(g, "\",\"chassis-id\":\"");
		put(g, p->peer->node->chassis_id);
		put(g, "\",\"chassis-id-type\":\"MAC_ADDRESS\",\"port-id\":\"");
		put(g, p->peer->port_id);
		put(g, p->peer->port_id_subtype == SIM_LLDP_PORT_MAC
			   ? "\",\"port-id-type\":\"MAC_ADDRESS\""
			   : "\",\"port-id-type\":\"INTERFACE_NAME\"");
		put(g, ",\"port-description\":\"");
		put(g, p->peer->port_desc);
		put(g, "\"}");
		snprintf(path, sizeof path,
			 "/lldp/interfaces/interface[name=%s]/neighbors/"
			 "neighbor[id=%s]/state",
			 p->name, p->peer->node->chassis_id);
		gnmi_target_set_json(s->tgt, path, g->buf);
	}
}

/*
 * Priority groups as SONiC keeps them in COUNTERS_DB: the name map
 * COUNTERS_PG_NAME_MAP ("<port>:<PG index>" -> "oid:0x…", one field per
 * lossless priority of every port, PG index = priority as SONiC's
 * default PFC_PRIORITY_TO_PRIORITY_GROUP_MAP has it, and only those
 * PGs, as with create_only_config_db_buffers) and one COUNTERS:oid:0x…
 * hash per PG, served as the real path COUNTERS/oid:0x…. The ids are
 * synthetic and stable: 0x1a (SAI's ingress priority group type) in the
 * top byte, then port index * 16 + priority.
 */
static void pg_oid(const struct sim_port *p, unsigned prio, char *buf,
		   size_t len)
{
	snprintf(buf, len, "oid:0x%llx",
		 0x1a000000000000ull + (unsigned long long)p->index * 16u +
		     prio);
}

static void publish_sonic_pg_map(struct sim_serve_gnmi *g, struct sw *s)
{
	const struct sim_node *n = s->node;
	bool any = false;
	char oid[64];
	begin(g);
	put(g, "{");
	for (size_t i = 0; i < n->n_ports; i++) {
		for (unsigned p = 0; p < SIM_MODEL_PRIOS; p++) {
			if (!(g->lossless & (1u << p)))
				continue;
			pg_oid(&n->ports[i], p, oid, sizeof oid);
			put(g, any ? ",\"" : "\"");
			put_esc(g, n->ports[i].name);
			put(g, ":");
			put_u64(g, p);
			put(g, "\":\"");
			put(g, oid);
			put(g, "\"");
			any = true;
		}
	}
	put(g, "}");
	gnmi_target_set_json(s->tgt, "COUNTERS_PG_NAME_MAP", g->buf);
	s->pg_map = true;
}

/* The PG hashes of port i: drops from the model; the watermarks the
 * PG_WATERMARK group adds to the same hash are there as SONiC has
 * them, at 0 (the model keeps no ingress buffer occupancy). */
static void publish_sonic_pgs(struct sim_serve_gnmi *g, struct sw *s, size_t i,
			      const struct sim_model_switch_port *c)
{
	const struct sim_port *port = &s->node->ports[i];
	char oid[64];
	for (unsigned p = 0; p < SIM_MODEL_PRIOS; p++) {
		if (!(g->lossless & (1u << p)))
			continue;
		bool first = true;
		begin(g);
		put(g, "{");
		fieldk(g, &first,
		       JK("SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS"),
		       c->prio[p].pg_drops);
		fieldk(g, &first,
		       JK("SAI_INGRESS_PRIORITY_GROUP_STAT_SHARED_WATERMARK_"
			  "BYTES"),
		       0);
		fieldk(g, &first,
		       JK("SAI_INGRESS_PRIORITY_GROUP_STAT_XOFF_ROOM_WATERMARK_"
			  "BYTES"),
		       0);
		put(g, "}");
		pg_oid(port, p, oid, sizeof oid);
		set_json(g, leaf_at(s, i, SN_PG0 + p, "COUNTERS/%s", oid));
	}
}

/*
 * APPL_DB's PORT_TABLE:<port> as SWSS keeps it (sonic-gnmi serves it as
 * PORT_TABLE/<port> with prefix target APPL_DB): the port's
 * configuration and link state, every field a string, the speed in Mb/s.
 * Alias, index and lanes follow SONiC's port_config.ini conventions
 * (etp<n> from 1; 8 lanes a port from 400G, else 4). Set again when the
 * link state moves; nothing else of it changes.
 */
static void publish_sonic_port_table(struct sim_serve_gnmi *g, struct sw *s,
				     size_t i, bool up)
{
	const struct sim_port *p = &s->node->ports[i];
	unsigned lanes = p->speed >= 400 ? 8 : 4;
	begin(g);
	put(g, "{\"admin_status\":\"up\",\"alias\":\"etp");
	put_u64(g, p->index + 1);
	put(g, "\",\"description\":\"");
	put_esc(g, p->port_desc ? p->port_desc : "");
	put(g, "\",\"fec\":\"rs\",\"index\":\"");
	put_u64(g, p->index);
	put(g, "\",\"lanes\":\"");
	for (unsigned k = 0; k < lanes; k++) {
		if (k)
			put(g, ",");
		put_u64(g, (uint64_t)p->index * lanes + k);
	}
	put(g, "\",\"mtu\":\"9100\",\"oper_status\":\"");
	put(g, up ? "up" : "down");
	put(g, "\",\"pfc_asym\":\"off\",\"speed\":\"");
	put_u64(g, (uint64_t)p->speed * 1000);
	put(g, "\",\"tpid\":\"0x8100\"}");
	set_json(g, leaf_at(s, i, SN_PORT_TABLE, "PORT_TABLE/%s", p->name));
	s->oper[i] = up;
}

static void publish_sonic_port(struct sim_serve_gnmi *g, struct sw *s, size_t i,
			       const struct sim_model_switch_port *c)
{
	const char *name = s->node->ports[i].name;
	bool first = true;
	begin(g);
	put(g, "{");
	fieldk(g, &first, JK("SAI_PORT_STAT_IF_IN_OCTETS"), c->in_octets);
	fieldk(g, &first, JK("SAI_PORT_STAT_IF_IN_UCAST_PKTS"), c->in_packets);
	fieldk(g, &first, JK("SAI_PORT_STAT_IF_IN_DISCARDS"), c->in_discards);
	fieldk(g, &first, JK("SAI_PORT_STAT_IF_IN_ERRORS"), c->in_errors);
	fieldk(g, &first, JK("SAI_PORT_STAT_IF_OUT_OCTETS"), c->out_octets);
	fieldk(g, &first, JK("SAI_PORT_STAT_IF_OUT_UCAST_PKTS"),
	       c->out_packets);
	fieldk(g, &first, JK("SAI_PORT_STAT_IF_OUT_DISCARDS"), c->out_discards);
	fieldk(g, &first, JK("SAI_PORT_STAT_IF_OUT_ERRORS"), 0);
	fieldk(g, &first, JK("SAI_PORT_STAT_PAUSE_RX_PKTS"), 0);
	fieldk(g, &first, JK("SAI_PORT_STAT_PAUSE_TX_PKTS"), 0);
	/* A platform that collects no pause durations (visibility.h)
	 * has no such fields at all. */
	bool durations = !(sim_visibility_flags(g->vis, s->node->id) &
			   SIM_VIS_NO_PAUSE_TIME);
	for (unsigned p = 0; p < SIM_MODEL_PRIOS; p++) {
		const struct sim_model_switch_prio *q = &c->prio[p];
		fieldk(g, &first, pfc_key(g, p, 0), q->pfc_rx_frames);
		fieldk(g, &first, pfc_key(g, p, 1), q->pfc_tx_frames);
		if (durations) {
			fieldk(g, &first, pfc_key(g, p, 2), q->pfc_rx_pause_us);
			fieldk(g, &first, pfc_key(g, p, 3), q->pfc_tx_pause_us);
		}
		fieldk(g, &first, pfc_key(g, p, 4), q->pfc_rx_transitions);
	}
	put(g, "}");
	set_json(g, leaf_at(s, i, SN_PORT, "COUNTERS/%s", name));

	begin(g);
	put(g, "{");
	for (unsigned p = 0; p < N_QUEUES; p++) {
		const struct sim_model_switch_prio *q = &c->prio[p];
		put(g, p ? ",\"" : "\"");
		put(g, name);
		put(g, ":");
		put_u64(g, p);
		put(g, "\":{");
		first = true;
		fieldk(g, &first, JK("SAI_QUEUE_STAT_PACKETS"), q->tx_packets);
		fieldk(g, &first, JK("SAI_QUEUE_STAT_BYTES"), q->tx_bytes);
		fieldk(g, &first, JK("SAI_QUEUE_STAT_DROPPED_PACKETS"),
		       q->queue_drops);
		fieldk(g, &first, JK("SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS"),
		       q->ecn_marked);
		fieldk(g, &first, JK("SAI_QUEUE_STAT_CURR_OCCUPANCY_BYTES"),
		       q->occupancy_bytes);
		fieldk(g, &first, JK("SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES"),
		       q->watermark_bytes);
		put(g, "}");
	}
	put(g, "}");
	set_json(g, leaf_at(s, i, SN_QUEUES, "COUNTERS/%s/Queues", name));

	if (!s->pg_map)
		publish_sonic_pg_map(g, s);
	publish_sonic_pgs(g, s, i, c);
	if (s->oper[i] != (int8_t)c->link_up &&
	    !(sim_visibility_flags(g->vis, s->node->id) & SIM_VIS_NO_APPL_DB))
		publish_sonic_port_table(g, s, i, c->link_up);

	if (!g->lossless)
		return;
	/* The watchdog's entries for the lossless queues, from the model's
	 * PFC watchdog (SONiC's pfcwd, action drop): stormed or
	 * operational, storms and restorations, and the packets its drop
	 * action dropped (counted by SONiC as they leave: TX). A switch
	 * whose watchdog is off stays operational and never fires. */
	begin(g);
	put(g, "{");
	bool any = false;
	for (unsigned p = 0; p < SIM_MODEL_PRIOS; p++) {
		if (!(g->lossless & (1u << p)))
			continue;
		const struct sim_model_switch_prio *q = &c->prio[p];
		char key[96];
		snprintf(key, sizeof key, "%s\"%s:%u\":{", any ? "," : "", name,
			 p);
		any = true;
		put(g, key);
		put(g, "\"PFC_WD_ACTION\":\"drop\",\"PFC_WD_DETECTION_TIME\":"
		       "\"200000\",\"PFC_WD_RESTORATION_TIME\":\"200000\","
		       "\"PFC_WD_STATUS\":");
		put(g, q->pfcwd_stormed ? "\"stormed\"" : "\"operational\"");
		first = false;
		fieldk(g, &first, JK("PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED"),
		       q->pfcwd_storms);
		fieldk(g, &first, JK("PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED"),
		       q->pfcwd_restores);
		fieldk(g, &first, JK("PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS"),
		       q->pfcwd_drops);
		fieldk(g, &first, JK("PFC_WD_QUEUE_STATS_RX_DROPPED_PACKETS"),
		       0);
		put(g, "}");
	}
	put(g, "}");
	set_json(g, leaf_at(s, i, SN_PFCWD, "COUNTERS/%s/Pfcwd", name));
}

static void publish_oc_port(struct sim_serve_gnmi *g, struct sw *s, size_t i,
			    const struct sim_model_switch_port *c,
			    bool first_time)
{
	const char *name = s->node->ports[i].name;
	bool arista = s->node->flavour == SIM_FLAVOUR_ARISTA;
	bool first = true;
	uint64_t in_pkts = c->in_packets, out_pkts = c->out_packets;

	begin(g);
	put(g, "{");
	fieldk(g, &first, JK("in-octets"), c->in_octets);
	fieldk(g, &first, JK("in-pkts"), in_pkts);
	fieldk(g, &first, JK("in-unicast-pkts"), in_pkts);
	fieldk(g, &first, JK("in-discards"), c->in_discards);
	fieldk(g, &first, JK("in-errors"), c->in_errors);
	fieldk(g, &first, JK("out-octets"), c->out_octets);
	fieldk(g, &first, JK("out-pkts"), out_pkts);
	fieldk(g, &first, JK("out-unicast-pkts"), out_pkts);
	fieldk(g, &first, JK("out-discards"), c->out_discards);
	fieldk(g, &first, JK("out-errors"), 0);
	fieldk(g, &first, JK("carrier-transitions"),
	       c->link_up_events + c->link_down_events);
	put(g, "}");
	set_json(g, leaf_at(s, i, OC_COUNTERS,
			    "/interfaces/interface[name=%s]/state/counters",
			    name));
	gnmi_target_leaf_set_string(
	    leaf_at(s, i, OC_OPER,
		    "/interfaces/interface[name=%s]/state/oper-status", name),
	    c->link_up ? "UP" : "DOWN");

	/* No 802.3x pause in a RoCE fabric: these never change. */
	if (first_time) {
		begin(g);
		first = true;
		put(g, "{");
		fieldk(g, &first, JK("in-mac-pause-frames"), 0);
		fieldk(g, &first, JK("out-mac-pause-frames"), 0);
		fieldk(g, &first, JK("in-mac-control-frames"), 0);
		fieldk(g, &first, JK("out-mac-control-frames"), 0);
		put(g, "}");
		set_json(
		    g, leaf_at(s, i, OC_ETH,
			       "/interfaces/interface[name=%s]/ethernet/state/"
			       "counters",
			       name));
	}

	for (unsigned p = 0; p < N_QUEUES; p++) {
		const struct sim_model_switch_prio *q = &c->prio[p];
		begin(g);
		first = true;
		put(g, "{\"name\":\"");
		put_u64(g, p);
		put(g, "\"");
		first = false;
		fieldk(g, &first, JK("transmit-pkts"), q->tx_packets);
		fieldk(g, &first, JK("transmit-octets"), q->tx_bytes);
		fieldk(g, &first, JK("dropped-pkts"), q->queue_drops);
		fieldk(g, &first, JK("ecn-marked-pkts"), q->ecn_marked);
		if (!arista) /* EOS does not support it */
			fieldk(g, &first, JK("max-queue-len"),
			       q->watermark_bytes);
		put(g, "}");
		set_json(g,
			 leaf_at(s, i, OC_QUEUE0 + p,
				 "/qos/interfaces/interface[interface-id=%s]/"
				 "output/queues/queue[name=%u]/state",
				 name, p));
	}
	if (!arista)
		return;
	/* Arista's PFC augments: pfc-on-total-rx-time in nanoseconds. */
	for (unsigned p = 0; p < SIM_MODEL_PRIOS; p++) {
		const struct sim_model_switch_prio *q = &c->prio[p];
		begin(g);
		put(g, "{\"index\":");
		put_u64(g, p);
		first = false;
		fieldk(g, &first, JK("in-frames"), q->pfc_rx_frames);
		fieldk(g, &first, JK("out-frames"), q->pfc_tx_frames);
		fieldk(g, &first, JK("pfc-on-total-rx-time"),
		       q->pfc_rx_pause_us * 1000);
		fieldk(g, &first, JK("rx-transitions"), q->pfc_rx_transitions);
		fieldk(g, &first, JK("dropped-pkts"), q->pg_drops);
		put(g, "}");
		set_json(g,
			 leaf_at(s, i, OC_PRIO0 + p,
				 "/interfaces/interface[name=%s]/ethernet/pfc/"
				 "priorities/priority[index=%u]/state",
				 name, p));
		if (!(g->lossless & (1u << p)))
			continue;
		/* The watchdog's counts, from the model's PFC watchdog. */
		begin(g);
		put(g, "{\"index\":");
		put_u64(g, p);
		put(g, ",\"queue-type\":\"UNICAST\"");
		first = false;
		fieldk(g, &first, JK("stuck-count"), q->pfcwd_storms);
		fieldk(g, &first, JK("recovery-count"), q->pfcwd_restores);
		put(g, "}");
		set_json(g,
			 leaf_at(s, i, OC_WD0 + p,
				 "/interfaces/interface[name=%s]/ethernet/pfc/"
				 "watchdog/tx-queues/tx-queue[index=%u]/state",
				 name, p));
	}
}

/* FNV-1a over the words of a port's counters (zeroed first, so the
 * padding is too). */
static uint64_t signature(const struct sim_model_switch_port *c)
{
	uint64_t h = 14695981039346656037ull, w;
	const unsigned char *p = (const unsigned char *)c;
	for (size_t k = 0; k + 8 <= sizeof *c; k += 8) {
		memcpy(&w, p + k, 8);
		h = (h ^ w) * 1099511628211ull;
	}
	return h;
}

/* Reads switch s's counters from m and publishes them at ts_ns. */
static void publish_switch(struct sim_serve_gnmi *g, struct sw *s,
			   const struct sim_model *m, int64_t ts_ns)
{
	bool first_time = !s->leaf, every = first_time || s->republish;
	s->republish = false;
	g->na = s->fault == SIM_SCENARIO_TARGET_WRONG_TYPES;
	if (first_time) {
		size_t n = s->node->n_ports * s->per_port;
		s->leaf = xcalloc(n ? n : 1, sizeof *s->leaf);
		s->sig = xcalloc(s->node->n_ports + 1, sizeof *s->sig);
		s->oper = xcalloc(s->node->n_ports + 1, sizeof *s->oper);
		memset(s->oper, -1, s->node->n_ports + 1);
		publish_static(g, s);
	}
	for (size_t i = 0; i < s->node->n_ports; i++) {
		struct sim_model_switch_port c;
		memset(&c, 0, sizeof c);
		if (sim_model_read_switch_port(m, s->node->ports[i].id, &c))
			continue;
		/* A port whose counters did not move keeps its leaves: the
		 * targets sample them as they are. */
		uint64_t h = signature(&c);
		if (!every && h == s->sig[i])
			continue;
		s->sig[i] = h;
		if (s->node->flavour == SIM_FLAVOUR_SONIC)
			publish_sonic_port(g, s, i, &c);
		else
			publish_oc_port(g, s, i, &c, every);
	}
	g->na = false;
	gnmi_target_tick(s->tgt, ts_ns);
}

bool sim_serve_gnmi_publish_node(struct sim_serve_gnmi *g,
				 const struct sim_model *m, size_t node,
				 int64_t ts_ns, bool all)
{
	struct sw *s = sw_of(g, node);
	if (!s || (!all && gnmi_target_stream_count(s->tgt) == 0))
		return false;
	publish_switch(g, s, m, ts_ns);
	return true;
}

size_t sim_serve_gnmi_publish(struct sim_serve_gnmi *g,
			      const struct sim_model *m, int64_t ts_ns,
			      bool all)
{
	size_t done = 0;
	for (size_t k = 0; k < g->n_sw; k++) {
		struct sw *s = &g->sw[k];
		if (!all && gnmi_target_stream_count(s->tgt) == 0)
			continue;
		publish_switch(g, s, m, ts_ns);
		done++;
	}
	return done;
}

/*
 * sim_topo: loads, generates and writes fabsim's fabric (see topo.h and
 * doc/fabsim-topology.md).
 *
 * Three stages. A file is parsed by ytree_load() (core/ytree.h) into a
 * private tree (bounded in bytes and depth, no anchors or aliases, one
 * document), the tree is checked into a "spec" (the fabric as written:
 * defaults, tiers counted or listed, explicit links with their places in
 * the file), and the spec is built into the topology: the rail wiring is
 * generated, explicit links override or add cables, ports are named and
 * given their LLDP identities. sim_topo_generate() fills a spec from
 * counts and shares the build. The topology keeps its spec, which is
 * what sim_topo_write_yaml() writes back.
 *
 * Errors stop at the first one and are one line, "file:line:col:
 * key.path: message", in the conventions of core/cfg.c. Everything
 * a load allocates belongs to that load, so loads may run on any thread.
 * The topology's strings live in one arena freed with it.
 *
 * This file holds the build and the public queries; the reader is in
 * topo_parse.c, the generator and writer in topo_gen.c, port and node
 * names in topo_names.c (shared declarations: topo_int.h).
 */
#include "config.h"

#include "topo_int.h"

#include "mem.h"
#include "ytree.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const topo_tier_keys[SIM_NODE_KINDS] = {
	[SIM_NODE_SPINE] = "spines",
	[SIM_NODE_LEAF] = "leaves",
	[SIM_NODE_HOST] = "hosts",
};
const char *const topo_kind_names[SIM_NODE_KINDS] = {
	[SIM_NODE_SPINE] = "spine",
	[SIM_NODE_LEAF] = "leaf",
	[SIM_NODE_HOST] = "host",
};
const char *const topo_flavour_names[SIM_FLAVOUR_MLX5 + 1] = {
	[SIM_FLAVOUR_SONIC] = "sonic",
	[SIM_FLAVOUR_ARISTA] = "arista",
	[SIM_FLAVOUR_OPENCONFIG] = "openconfig",
	[SIM_FLAVOUR_MLX5] = "mlx5",
};
static const char *const sys_descs[] = {
	[SIM_FLAVOUR_SONIC] = "SONiC Software Version: SONiC.fabsim - "
			      "HwSku: fabsim",
	[SIM_FLAVOUR_ARISTA] = "Arista Networks EOS version 4.36.1F running "
			       "on a fabsim switch",
	[SIM_FLAVOUR_OPENCONFIG] = "fabsim OpenConfig switch",
	[SIM_FLAVOUR_MLX5] = "Linux fabsim host with ConnectX (mlx5) NICs",
};
const unsigned topo_speeds[TOPO_N_SPEEDS] = { 100, 200, 400, 800 };

void topo_spec_fini(struct spec *s)
{
	for (size_t i = 0; i < s->n_nodes; i++)
		free(s->nodes[i].name);
	free(s->nodes);
	for (size_t i = 0; i < SIM_NODE_KINDS; i++)
		free(s->tier[i].pattern);
	for (size_t i = 0; i < s->n_links; i++) {
		free(s->links[i].end[0].port);
		free(s->links[i].end[1].port);
	}
	free(s->links);
	memset(s, 0, sizeof *s);
}

void topo_spec_defaults(struct spec *s)
{
	memset(s, 0, sizeof *s);
	s->lossless = 1u << 3;
	s->speed = 400;
	s->nics = 1;
	s->flavour = SIM_FLAVOUR_SONIC;
	s->rail = true;
}

struct spec_node *topo_spec_add_node(struct spec *s)
{
	if (s->n_nodes == s->cap_nodes) {
		s->cap_nodes = s->cap_nodes ? 2 * s->cap_nodes : 16;
		s->nodes =
		    xreallocarray(s->nodes, s->cap_nodes, sizeof *s->nodes);
	}
	struct spec_node *n = &s->nodes[s->n_nodes++];
	memset(n, 0, sizeof *n);
	n->item = NO_ITEM;
	return n;
}

/*
 * The arena of the topology's strings.
 */

static const char *arena_strndup(struct sim_topo *t, const char *s, size_t n)
{
	if (!t->arena || t->arena->used + n + 1 > ARENA_CHUNK) {
		struct chunk *c = xmalloc(sizeof *c);
		c->next = t->arena;
		c->used = 0;
		t->arena = c;
	}
	char *p = t->arena->data + t->arena->used;
	memcpy(p, s, n);
	p[n] = '\0';
	t->arena->used += n + 1;
	return p;
}

__attribute__((format(printf, 2, 3))) static const char *
arena_printf(struct sim_topo *t, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof buf)
		n = sizeof buf - 1;
	return arena_strndup(t, buf, (size_t)n);
}

/*
 * The build: spec to topology.
 */

/* A cable: generated (link NONE) or from links[link]. */
struct wire {
	size_t node[2];
	unsigned port[2];
	unsigned speed;
	size_t link;
	bool dead; /* replaced by an explicit link */
};

struct build {
	struct spec *s;
	size_t *off;	/* first slot of node i */
	unsigned *cap;	/* slots of node i */
	unsigned *used; /* ports of node i so far */
	size_t *cable;	/* slot: wire, or NONE */
	size_t *named;	/* slot: 2 * link + end naming it, or NONE */
	struct wire *wires;
	size_t n_wires;
	unsigned *gen; /* ports the rail wiring gives node i */
};

static unsigned min_speed(const struct spec *s, size_t a, size_t b)
{
	unsigned sa = s->nodes[a].speed, sb = s->nodes[b].speed;
	return sa < sb ? sa : sb;
}

static size_t add_wire(struct build *b, size_t na, unsigned pa, size_t nb,
		       unsigned pb, unsigned speed, size_t link)
{
	struct wire *w = &b->wires[b->n_wires];
	w->node[0] = na;
	w->port[0] = pa;
	w->node[1] = nb;
	w->port[1] = pb;
	w->speed = speed;
	w->link = link;
	w->dead = false;
	b->cable[b->off[na] + pa] = b->n_wires;
	b->cable[b->off[nb] + pb] = b->n_wires;
	return b->n_wires++;
}

/* Host h of n is in pod h * pods / n: contiguous, balanced pods. */
static size_t host_pod(size_t h, size_t n, unsigned pods)
{
	return h * pods / n;
}

/*
 * Ports per node under the rail wiring: a leaf has its pod's hosts then
 * one uplink per spine, a spine one port per leaf, a host its NICs.
 */
static int count_rail_ports(struct ytree_ctx *x, struct build *b, unsigned *hp)
{
	struct spec *s = b->s;
	const struct spec_tier *st = &s->tier[SIM_NODE_SPINE];
	const struct spec_tier *lt = &s->tier[SIM_NODE_LEAF];
	const struct spec_tier *ht = &s->tier[SIM_NODE_HOST];
	unsigned pods = (unsigned)(lt->n_nodes / s->nics);

	for (size_t h = 0; h < ht->n_nodes; h++)
		hp[host_pod(h, ht->n_nodes, pods)]++;
	if (lt->n_nodes > SIM_TOPO_MAX_PORTS) {
		topo_path_tier(x, lt, "leaves");
		return ytree_fail_pos(
		    x, lt->line, lt->col,
		    "%zu leaves need %zu ports on every spine, "
		    "more than %d",
		    lt->n_nodes, lt->n_nodes, SIM_TOPO_MAX_PORTS);
	}
	for (unsigned p = 0; p < pods; p++) {
		if (hp[p] + st->n_nodes <= SIM_TOPO_MAX_PORTS)
			continue;
		topo_path_tier(x, ht, "hosts");
		return ytree_fail_pos(
		    x, ht->line, ht->col,
		    "pod %u has %u hosts: its leaves would need "
		    "%zu ports, more than %d",
		    p, hp[p], hp[p] + st->n_nodes, SIM_TOPO_MAX_PORTS);
	}
	for (size_t i = 0; i < st->n_nodes; i++)
		b->gen[st->first_node + i] = (unsigned)lt->n_nodes;
	for (size_t i = 0; i < lt->n_nodes; i++)
		b->gen[lt->first_node + i] =
		    hp[i / s->nics] + (unsigned)st->n_nodes;
	return 0;
}

static void rail_wires(struct build *b, const unsigned *hp)
{
	struct spec *s = b->s;
	const struct spec_tier *st = &s->tier[SIM_NODE_SPINE];
	const struct spec_tier *lt = &s->tier[SIM_NODE_LEAF];
	const struct spec_tier *ht = &s->tier[SIM_NODE_HOST];
	unsigned pods = (unsigned)(lt->n_nodes / s->nics);
	unsigned *seen = xcalloc(pods, sizeof *seen);

	for (size_t h = 0; h < ht->n_nodes; h++) {
		size_t pod = host_pod(h, ht->n_nodes, pods);
		size_t hn = ht->first_node + h;
		unsigned pos = seen[pod]++;
		for (unsigned k = 0; k < s->nics; k++) {
			size_t ln = lt->first_node + pod * s->nics + k;
			add_wire(b, hn, k, ln, pos, min_speed(s, hn, ln), NONE);
		}
	}
	for (size_t l = 0; l < lt->n_nodes; l++) {
		size_t ln = lt->first_node + l;
		for (size_t i = 0; i < st->n_nodes; i++) {
			size_t sn = st->first_node + i;
			add_wire(b, ln, hp[l / s->nics] + (unsigned)i, sn,
				 (unsigned)l, min_speed(s, ln, sn), NONE);
		}
	}
	free(seen);
}

/* Sets the path to end e of link i. */
static void path_end(struct ytree_ctx *x, const struct spec *s, size_t i,
		     size_t e)
{
	ytree_path_cut(x, 0);
	ytree_path_key(x, "links");
	ytree_path_index(x, i);
	if (s->links[i].map_form)
		ytree_path_key(x, e ? "b" : "a");
	else
		ytree_path_index(x, e);
}

/* "(its 6 ports are Ethernet0, Ethernet4, ... Ethernet20)" */
static void describe_ports(const struct spec_node *sn, unsigned n, char *buf,
			   size_t len)
{
	char a[32], b[32], c[32];
	topo_port_name(sn->flavour, sn->speed, 0, a, sizeof a);
	topo_port_name(sn->flavour, sn->speed, 1, b, sizeof b);
	topo_port_name(sn->flavour, sn->speed, n ? n - 1 : 0, c, sizeof c);
	if (n == 0)
		snprintf(buf, len,
			 "it has none: give it ports, or name only the node "
			 "to add one");
	else if (n == 1)
		snprintf(buf, len, "its only port is %s", a);
	else if (n == 2)
		snprintf(buf, len, "its ports are %s and %s", a, b);
	else if (n == 3)
		snprintf(buf, len, "its ports are %s, %s and %s", a, b, c);
	else
		snprintf(buf, len, "its %u ports are %s, %s, ... %s", n, a, b,
			 c);
}

/* Explicit ends that name a port: reserve it, unplug what was there. */
static int place_named(struct ytree_ctx *x, struct build *b)
{
	struct spec *s = b->s;
	char desc[160], q[YTREE_QUOTE_BUF];

	for (size_t i = 0; i < s->n_links; i++) {
		for (size_t e = 0; e < 2; e++) {
			struct spec_end *end = &s->links[i].end[e];
			const struct spec_node *sn = &s->nodes[end->node];
			unsigned avail = b->used[end->node];
			if (!end->port)
				continue;
			if (!topo_parse_port_name(sn->flavour, sn->speed,
						  end->port, &end->index) ||
			    end->index >= avail) {
				describe_ports(sn, avail, desc, sizeof desc);
				snprintf(q, sizeof q, "%.*s%s", YTREE_QUOTE_MAX,
					 end->port,
					 strlen(end->port) > YTREE_QUOTE_MAX
					     ? "..."
					     : "");
				path_end(x, s, i, e);
				return ytree_fail_pos(
				    x, end->line, end->col,
				    "%s has no port \"%s\" (%s)", sn->name, q,
				    desc);
			}
			size_t slot = b->off[end->node] + end->index;
			if (b->named[slot] != NONE) {
				size_t first = b->named[slot];
				const struct spec_end *fe =
				    &s->links[first / 2].end[first % 2];
				topo_port_name(sn->flavour, sn->speed,
					       end->index, desc, sizeof desc);
				path_end(x, s, i, e);
				return ytree_fail_pos(
				    x, end->line, end->col,
				    "port %s:%s is already cabled "
				    "by links[%zu] "
				    "(at %u:%u)",
				    sn->name, desc, first / 2, fe->line,
				    fe->col);
			}
			b->named[slot] = 2 * i + e;
			size_t w = b->cable[slot];
			if (w != NONE) {
				struct wire *old = &b->wires[w];
				old->dead = true;
				b->cable[b->off[old->node[0]] + old->port[0]] =
				    NONE;
				b->cable[b->off[old->node[1]] + old->port[1]] =
				    NONE;
			}
		}
	}
	return 0;
}

/* The lowest free port of node n, growing a switch with no set count. */
static int free_port(struct ytree_ctx *x, struct build *b, size_t i, size_t e)
{
	struct spec *s = b->s;
	struct spec_end *end = &s->links[i].end[e];
	const struct spec_node *sn = &s->nodes[end->node];
	size_t off = b->off[end->node];

	for (unsigned p = 0; p < b->used[end->node]; p++) {
		if (b->cable[off + p] == NONE && b->named[off + p] == NONE) {
			end->index = p;
			return 0;
		}
	}
	path_end(x, s, i, e);
	if (sn->kind == SIM_NODE_HOST || sn->ports) {
		if (b->used[end->node] == 1)
			return ytree_fail_pos(
			    x, end->line, end->col,
			    "%s has no free port (its only port is "
			    "cabled)",
			    sn->name);
		return ytree_fail_pos(
		    x, end->line, end->col,
		    "%s has no free port (all %u of its ports are "
		    "cabled)",
		    sn->name, b->used[end->node]);
	}
	if (b->used[end->node] >= SIM_TOPO_MAX_PORTS)
		return ytree_fail_pos(x, end->line, end->col,
				      "%s would have more than %d ports",
				      sn->name, SIM_TOPO_MAX_PORTS);
	end->index = b->used[end->node]++;
	return 0;
}

static int place_links(struct ytree_ctx *x, struct build *b)
{
	struct spec *s = b->s;
	int rc = place_named(x, b);
	if (rc)
		return rc;
	for (size_t i = 0; i < s->n_links; i++) {
		struct spec_link *l = &s->links[i];
		for (size_t e = 0; e < 2; e++)
			if (!l->end[e].port && (rc = free_port(x, b, i, e)))
				return rc;
		add_wire(b, l->end[0].node, l->end[0].index, l->end[1].node,
			 l->end[1].index,
			 l->speed
			     ? l->speed
			     : min_speed(s, l->end[0].node, l->end[1].node),
			 i);
	}
	return 0;
}

/*
 * Port counts: a host has its NICs; a switch the ports its generated
 * cabling needs, or its ports setting (which must not be fewer), plus
 * room for the explicit links that name only the node.
 */
static int size_nodes(struct ytree_ctx *x, struct build *b)
{
	struct spec *s = b->s;
	unsigned *extra = xcalloc(s->n_nodes ? s->n_nodes : 1, sizeof *extra);
	size_t total = 0;
	int rc = 0;

	for (size_t i = 0; i < s->n_links; i++)
		for (size_t e = 0; e < 2; e++)
			if (!s->links[i].end[e].port)
				extra[s->links[i].end[e].node]++;
	for (size_t i = 0; i < s->n_nodes && rc == 0; i++) {
		const struct spec_node *sn = &s->nodes[i];
		if (sn->kind == SIM_NODE_HOST) {
			b->used[i] = s->nics;
			b->cap[i] = s->nics;
		} else if (sn->ports) {
			if (sn->ports < b->gen[i]) {
				topo_path_node(x, s, sn, "ports");
				rc = ytree_fail_pos(
				    x, sn->ports_line, sn->ports_col,
				    "%u is fewer than the %u ports "
				    "the wiring of %s needs",
				    sn->ports, b->gen[i], sn->name);
			}
			b->used[i] = sn->ports;
			b->cap[i] = sn->ports;
		} else {
			b->used[i] = b->gen[i];
			b->cap[i] = b->gen[i] + extra[i];
		}
		b->off[i] = total;
		total += b->cap[i];
	}
	free(extra);
	if (rc)
		return rc;
	b->cable = xmalloc((total ? total : 1) * sizeof *b->cable);
	b->named = xmalloc((total ? total : 1) * sizeof *b->named);
	for (size_t i = 0; i < total; i++)
		b->cable[i] = b->named[i] = NONE;
	return 0;
}

static void mac_text(const uint8_t m[6], char *buf, size_t len)
{
	snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2],
		 m[3], m[4], m[5]);
}

/*
 * A locally administered unicast MAC: 02 and 40 bits of the hash of key.
 * On a clash with one already given (about 1 in 10^5 for the 4,680 MACs
 * of the 8/64/512/8 fabric) the key is rehashed with a salt, so MACs
 * stay unique, and deterministic for a given file.
 */
static void unique_mac(uint64_t *set, size_t mask, const char *key,
		       uint8_t mac[6])
{
	for (uint64_t salt = 0;; salt++) {
		uint64_t h = topo_hash_bytes(key, strlen(key), salt);
		uint64_t v =
		    (UINT64_C(0x02) << 40) | (h & UINT64_C(0xffffffffff));
		size_t i =
		    (size_t)topo_hash_bytes((const char *)&v, sizeof v, 0) &
		    mask;
		for (; set[i] && set[i] != v; i = (i + 1) & mask)
			;
		if (set[i] == v)
			continue;
		set[i] = v;
		for (int j = 0; j < 6; j++)
			mac[j] = (uint8_t)(v >> (8 * (5 - j)));
		return;
	}
}

static void materialise(struct sim_topo *t, struct build *b)
{
	struct spec *s = &t->spec;
	size_t n_macs = s->n_nodes, pid = 0;
	char buf[SIM_TOPO_NAME_MAX + 32], mac[24];

	t->n_nodes = s->n_nodes;
	t->nodes = xcalloc(t->n_nodes ? t->n_nodes : 1, sizeof *t->nodes);
	for (size_t i = 0; i < s->n_nodes; i++) {
		t->n_ports += b->used[i];
		if (s->nodes[i].kind == SIM_NODE_HOST)
			n_macs += b->used[i];
	}
	t->ports = xcalloc(t->n_ports ? t->n_ports : 1, sizeof *t->ports);
	size_t set_mask = topo_table_size(n_macs) - 1;
	uint64_t *set = xcalloc(set_mask + 1, sizeof *set);
	unsigned pods =
	    s->rail ? (unsigned)(s->tier[SIM_NODE_LEAF].n_nodes / s->nics) : 0;
	t->pods = pods;

	for (size_t i = 0; i < s->n_nodes; i++) {
		const struct spec_node *sn = &s->nodes[i];
		struct sim_node *n = &t->nodes[i];
		const struct spec_tier *tier = &s->tier[sn->kind];
		size_t ti = i - tier->first_node;
		n->name = sn->name;
		n->kind = sn->kind;
		n->flavour = sn->flavour;
		n->id = i;
		n->tier_index = ti;
		n->pod = n->rail = -1;
		if (pods && sn->kind == SIM_NODE_LEAF) {
			n->pod = (int)(ti / s->nics);
			n->rail = (int)(ti % s->nics);
		} else if (pods && sn->kind == SIM_NODE_HOST) {
			n->pod = (int)host_pod(ti, tier->n_nodes, pods);
		}
		n->speed = sn->speed;
		n->ports = &t->ports[pid];
		n->n_ports = b->used[i];
		unique_mac(set, set_mask, sn->name, n->chassis_mac);
		mac_text(n->chassis_mac, mac, sizeof mac);
		n->chassis_id = arena_strndup(t, mac, strlen(mac));
		n->sys_desc = sys_descs[sn->flavour];
		for (unsigned p = 0; p < b->used[i]; p++, pid++) {
			struct sim_port *sp = &t->ports[pid];
			sp->node = n;
			sp->id = pid;
			sp->index = p;
			sp->speed = sn->speed;
			topo_port_name(sn->flavour, sn->speed, p, buf,
				       sizeof buf);
			sp->name = arena_strndup(t, buf, strlen(buf));
			sp->rail = -1;
			if (sn->kind != SIM_NODE_HOST) {
				memcpy(sp->mac, n->chassis_mac, 6);
				sp->port_id_subtype = SIM_LLDP_PORT_IFNAME;
				sp->port_id = sp->name;
				continue;
			}
			sp->rdma_dev = sp->name;
			sp->rdma_port = 1;
			sp->netdev = arena_printf(t, "ens%unp0", p);
			sp->rail = (int)p;
			snprintf(buf, sizeof buf, "%s/%s", sn->name, sp->name);
			unique_mac(set, set_mask, buf, sp->mac);
			mac_text(sp->mac, mac, sizeof mac);
			sp->port_id_subtype = SIM_LLDP_PORT_MAC;
			sp->port_id = arena_strndup(t, mac, strlen(mac));
			sp->port_desc = sp->netdev;
		}
	}
	free(set);

	for (size_t w = 0; w < b->n_wires; w++) {
		const struct wire *wi = &b->wires[w];
		struct sim_port *end[2];
		if (wi->dead)
			continue;
		for (int e = 0; e < 2; e++)
			end[e] = &t->ports[t->nodes[wi->node[e]].ports -
					   t->ports + wi->port[e]];
		for (int e = 0; e < 2; e++) {
			end[e]->peer = end[1 - e];
			end[e]->speed = wi->speed;
			end[e]->explicit_link = wi->link != NONE;
		}
	}
	for (size_t p = 0; p < t->n_ports; p++) {
		struct sim_port *sp = &t->ports[p];
		if (sp->node->kind == SIM_NODE_HOST)
			continue;
		if (sp->peer)
			sp->port_desc = arena_printf(
			    t, "%s:%s", sp->peer->node->name, sp->peer->name);
		else
			sp->port_desc = "";
	}

	t->slots = topo_index_new(t->n_nodes, &t->mask);
	for (size_t i = 0; i < t->n_nodes; i++) {
		size_t slot;
		topo_index_find(t->slots, t->mask, s->nodes, s->nodes[i].name,
				strlen(s->nodes[i].name), &slot);
		t->slots[slot] = i + 1;
	}
	for (int k = 0; k < SIM_NODE_KINDS; k++) {
		t->tier_first[k] = s->tier[k].first_node;
		t->tier_n[k] = s->tier[k].n_nodes;
	}
}

/* Builds the spec (moved into the topology) or returns NULL. */
struct sim_topo *topo_build(struct ytree_ctx *x, struct spec *s,
			    const char *source)
{
	struct sim_topo *t = xcalloc(1, sizeof *t);
	struct build b = { 0 };
	size_t n = s->n_nodes ? s->n_nodes : 1;
	unsigned *hp = NULL;
	int rc = 0;

	t->spec = *s;
	memset(s, 0, sizeof *s);
	t->source = xstrdup(source);
	s = &t->spec;
	b.s = s;
	b.off = xcalloc(n, sizeof *b.off);
	b.cap = xcalloc(n, sizeof *b.cap);
	b.used = xcalloc(n, sizeof *b.used);
	b.gen = xcalloc(n, sizeof *b.gen);
	if (s->rail) {
		hp = xcalloc(s->tier[SIM_NODE_LEAF].n_nodes / s->nics + 1,
			     sizeof *hp);
		rc = count_rail_ports(x, &b, hp);
	}
	if (rc == 0)
		rc = size_nodes(x, &b);
	if (rc == 0) {
		size_t max = s->n_links;
		if (s->rail)
			max += s->tier[SIM_NODE_HOST].n_nodes * s->nics +
			       s->tier[SIM_NODE_LEAF].n_nodes *
				   s->tier[SIM_NODE_SPINE].n_nodes;
		b.wires = xcalloc(max ? max : 1, sizeof *b.wires);
		if (s->rail)
			rail_wires(&b, hp);
		rc = place_links(x, &b);
	}
	if (rc == 0)
		materialise(t, &b);
	free(hp);
	free(b.off);
	free(b.cap);
	free(b.used);
	free(b.gen);
	free(b.cable);
	free(b.named);
	free(b.wires);
	if (rc) {
		sim_topo_free(t);
		return NULL;
	}
	return t;
}

/*
 * The public API.
 */

struct sim_topo *sim_topo_load_buffer(const char *name, const char *buf,
				      size_t len, char *err, size_t errlen)
{
	struct ytree_ctx x = { .name = name,
			       .err = err,
			       .errlen = errlen,
			       .path_size = TOPO_PATH_SIZE };
	struct ytree_node *root = NULL;
	struct sim_topo *t = NULL;
	struct spec s;

	if (err && errlen)
		err[0] = '\0';
	if (ytree_load(&x, buf, len, SIM_TOPO_MAX_FILE_BYTES,
		       SIM_TOPO_MAX_DEPTH, &root))
		return NULL;
	if (!root || ytree_is_null(root)) {
		ytree_fail_file(&x, "empty topology file");
		ytree_free(root);
		return NULL;
	}
	topo_spec_defaults(&s);
	if (topo_parse_top(&x, &s, root) == 0)
		t = topo_build(&x, &s, name);
	topo_spec_fini(&s);
	ytree_free(root);
	return t;
}

struct sim_topo *sim_topo_load(const char *path, char *err, size_t errlen)
{
	struct ytree_ctx x = { .name = path,
			       .err = err,
			       .errlen = errlen,
			       .path_size = TOPO_PATH_SIZE };
	struct sim_topo *t = NULL;
	char *buf;
	size_t len = 0;

	if (err && errlen)
		err[0] = '\0';
	buf = ytree_read_file(&x, path, SIM_TOPO_MAX_FILE_BYTES, &len);
	if (!buf)
		return NULL;
	t = sim_topo_load_buffer(path, buf, len, err, errlen);
	free(buf);
	return t;
}

void sim_topo_free(struct sim_topo *t)
{
	if (!t)
		return;
	while (t->arena) {
		struct chunk *next = t->arena->next;
		free(t->arena);
		t->arena = next;
	}
	topo_spec_fini(&t->spec);
	free(t->nodes);
	free(t->ports);
	free(t->slots);
	free(t->source);
	free(t);
}

const char *sim_topo_source(const struct sim_topo *t)
{
	return t->source;
}

uint8_t sim_topo_lossless_mask(const struct sim_topo *t)
{
	return t->spec.lossless;
}

unsigned sim_topo_nics(const struct sim_topo *t)
{
	return t->spec.nics;
}

unsigned sim_topo_pods(const struct sim_topo *t)
{
	return t->pods;
}

size_t sim_topo_n_nodes(const struct sim_topo *t)
{
	return t->n_nodes;
}

const struct sim_node *sim_topo_node(const struct sim_topo *t, size_t id)
{
	return id < t->n_nodes ? &t->nodes[id] : NULL;
}

size_t sim_topo_n_ports(const struct sim_topo *t)
{
	return t->n_ports;
}

const struct sim_port *sim_topo_port(const struct sim_topo *t, size_t id)
{
	return id < t->n_ports ? &t->ports[id] : NULL;
}

size_t sim_topo_n_tier(const struct sim_topo *t, enum sim_node_kind kind)
{
	if ((unsigned)kind >= SIM_NODE_KINDS)
		return 0;
	return t->tier_n[kind];
}

const struct sim_node *sim_topo_tier_node(const struct sim_topo *t,
					  enum sim_node_kind kind, size_t i)
{
	if ((unsigned)kind >= SIM_NODE_KINDS || i >= t->tier_n[kind])
		return NULL;
	return &t->nodes[t->tier_first[kind] + i];
}

static const struct sim_node *find_node(const struct sim_topo *t,
					const char *name, size_t len)
{
	size_t i =
	    topo_index_find(t->slots, t->mask, t->spec.nodes, name, len, NULL);
	return i == NONE ? NULL : &t->nodes[i];
}

const struct sim_node *sim_topo_find_node(const struct sim_topo *t,
					  const char *name)
{
	if (!t || !name)
		return NULL;
	return find_node(t, name, strlen(name));
}

const struct sim_port *sim_topo_node_port(const struct sim_node *n,
					  const char *name)
{
	unsigned i;
	if (!n || !name ||
	    !topo_parse_port_name(n->flavour, n->speed, name, &i) ||
	    i >= n->n_ports)
		return NULL;
	return &n->ports[i];
}

const struct sim_port *sim_topo_find_port(const struct sim_topo *t,
					  const char *node, const char *port)
{
	return sim_topo_node_port(sim_topo_find_node(t, node), port);
}

const struct sim_port *sim_topo_find_endpoint(const struct sim_topo *t,
					      const char *endpoint)
{
	if (!t || !endpoint)
		return NULL;
	const char *colon = strchr(endpoint, ':');
	if (!colon)
		return NULL;
	return sim_topo_node_port(
	    find_node(t, endpoint, (size_t)(colon - endpoint)), colon + 1);
}

const char *sim_topo_kind_name(enum sim_node_kind kind)
{
	if ((unsigned)kind >= SIM_NODE_KINDS)
		return "?";
	return topo_kind_names[kind];
}

const char *sim_topo_flavour_name(enum sim_flavour flavour)
{
	if ((unsigned)flavour > SIM_FLAVOUR_MLX5)
		return "?";
	return topo_flavour_names[flavour];
}

int sim_topo_parse_flavour(const char *s, enum sim_flavour *flavour)
{
	for (int f = SIM_FLAVOUR_SONIC; f <= SIM_FLAVOUR_OPENCONFIG; f++) {
		if (s && strcmp(s, topo_flavour_names[f]) == 0) {
			*flavour = (enum sim_flavour)f;
			return 0;
		}
	}
	return -EINVAL;
}

int sim_topo_parse_speed(const char *s, unsigned *gbps)
{
	char buf[8];
	for (size_t i = 0; s && i < sizeof topo_speeds / sizeof *topo_speeds;
	     i++) {
		snprintf(buf, sizeof buf, "%uG", topo_speeds[i]);
		if (strcmp(s, buf) == 0) {
			*gbps = topo_speeds[i];
			return 0;
		}
	}
	return -EINVAL;
}

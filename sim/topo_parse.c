/*
 * sim_topo's file reader: checks a topology file's tree (core/ytree.h)
 * into a spec, the fabric as written: defaults, tiers counted or listed,
 * explicit links with their places in the file. Errors stop at the first
 * one, with the path and place of the key at fault (see topo.c).
 *
 * Everything here works on the caller's ytree context and spec, so
 * parses may run on any thread.
 */
#include "config.h"

#include "topo_int.h"

#include "mem.h"
#include "ytree.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * Reading the tree (core/ytree.h) the way topology files always have.
 */

/* Like ytree_fields_get(), but a null value is not an empty mapping. */
static int map_fields(struct ytree_ctx *x, const struct ytree_node *map,
		      const char *const *keys, size_t n, struct ytree_fields *f)
{
	if (map->kind != YTREE_MAP)
		return ytree_fail(x, map, "expected a mapping");
	return ytree_fields_get(x, map, keys, n, f);
}

static int node_uint(struct ytree_ctx *x, const struct ytree_node *n,
		     unsigned min, unsigned max, unsigned *out)
{
	uint64_t v;
	int rc = ytree_uint(x, n, min, max, &v);
	if (rc == 0)
		*out = (unsigned)v;
	return rc;
}

static int node_speed(struct ytree_ctx *x, const struct ytree_node *n,
		      unsigned *out)
{
	char q[YTREE_QUOTE_BUF];
	int rc = ytree_want_scalar(x, n, "a speed");
	if (rc)
		return rc;
	if (sim_topo_parse_speed(n->str, out) == 0)
		return 0;
	return ytree_fail(
	    x, n, "%s is not a supported speed (100G, 200G, 400G or 800G)",
	    ytree_quote(n, q, sizeof q));
}

static int node_flavour(struct ytree_ctx *x, const struct ytree_node *n,
			enum sim_flavour *f)
{
	char q[YTREE_QUOTE_BUF];
	int rc = ytree_want_scalar(x, n, "a flavour");
	if (rc)
		return rc;
	if (sim_topo_parse_flavour(n->str, f) == 0)
		return 0;
	return ytree_fail(x, n, "expected sonic, arista or openconfig, not %s",
			  ytree_quote(n, q, sizeof q));
}

static int node_name(struct ytree_ctx *x, const struct ytree_node *n)
{
	char q[YTREE_QUOTE_BUF];
	int rc = ytree_want_scalar(x, n, "a node name");
	if (rc)
		return rc;
	if (topo_valid_name(n->str, n->len))
		return 0;
	return ytree_fail(
	    x, n,
	    "%s is not a valid node name (1 to %d characters of A-Z "
	    "a-z 0-9 . _ -)",
	    ytree_quote(n, q, sizeof q), SIM_TOPO_NAME_MAX);
}

/*
 * Getters for key i of f: an absent key leaves *out alone; the path
 * names the key while its value is checked.
 */

static int opt_speed(struct ytree_ctx *x, const struct ytree_fields *f,
		     size_t i, unsigned *out)
{
	if (!f->val[i])
		return 0;
	size_t saved = ytree_path_key(x, f->keys[i]);
	int rc = node_speed(x, f->val[i], out);
	ytree_path_cut(x, saved);
	return rc;
}

static int opt_flavour(struct ytree_ctx *x, const struct ytree_fields *f,
		       size_t i, enum sim_flavour *out)
{
	if (!f->val[i])
		return 0;
	size_t saved = ytree_path_key(x, f->keys[i]);
	int rc = node_flavour(x, f->val[i], out);
	ytree_path_cut(x, saved);
	return rc;
}

/*
 * Sections. Each takes its node with the path already pointing at it.
 */

static int parse_priorities(struct ytree_ctx *x, struct spec *s,
			    const struct ytree_node *n)
{
	uint8_t mask = 0;
	if (ytree_is_null(n)) {
		s->lossless = 0;
		return 0;
	}
	if (n->kind != YTREE_SEQ)
		return ytree_fail(x, n,
				  "expected a list of priorities (0 to 7)");
	for (size_t i = 0; i < n->n; i++) {
		unsigned p;
		size_t saved = ytree_path_index(x, i);
		int rc = node_uint(x, n->kids[i], 0, 7, &p);
		if (rc)
			return rc;
		if (mask & (1u << p))
			return ytree_fail(x, n->kids[i],
					  "priority %u is listed twice", p);
		mask |= (uint8_t)(1u << p);
		ytree_path_cut(x, saved);
	}
	s->lossless = mask;
	return 0;
}

static int parse_wiring(struct ytree_ctx *x, struct spec *s,
			const struct ytree_node *n)
{
	char q[YTREE_QUOTE_BUF];
	int rc = ytree_want_scalar(x, n, "rail or none");
	if (rc)
		return rc;
	if (strcmp(n->str, "rail") == 0)
		s->rail = true;
	else if (strcmp(n->str, "none") == 0)
		s->rail = false;
	else
		return ytree_fail(x, n, "expected rail or none, not %s",
				  ytree_quote(n, q, sizeof q));
	return 0;
}

/* One flavour, or a non-empty list of them handed out round-robin. */
static int parse_flavours(struct ytree_ctx *x, struct spec_tier *t,
			  const struct ytree_node *n)
{
	if (n->kind != YTREE_SEQ) {
		t->n_flavours = 1;
		return node_flavour(x, n, &t->flavours[0]);
	}
	if (n->n == 0 || n->n > SIM_TOPO_MAX_FLAVOURS)
		return ytree_fail(x, n, "expected 1 to %d flavours, not %zu",
				  SIM_TOPO_MAX_FLAVOURS, n->n);
	for (size_t i = 0; i < n->n; i++) {
		size_t saved = ytree_path_index(x, i);
		int rc = node_flavour(x, n->kids[i], &t->flavours[i]);
		if (rc)
			return rc;
		ytree_path_cut(x, saved);
	}
	t->n_flavours = n->n;
	return 0;
}

static int check_total(struct ytree_ctx *x, const struct spec *s,
		       const struct ytree_node *n, size_t more)
{
	if (s->n_nodes + more <= SIM_TOPO_MAX_NODES)
		return 0;
	return ytree_fail(x, n, "the fabric would have more than %d nodes",
			  SIM_TOPO_MAX_NODES);
}

enum { CK_COUNT, CK_NAME, CK_FIRST, CK_FLAVOUR, CK_SPEED, CK_PORTS, CK_N };
static const char *const counted_keys[CK_N] = {
	[CK_COUNT] = "count",	  [CK_NAME] = "name",	[CK_FIRST] = "first",
	[CK_FLAVOUR] = "flavour", [CK_SPEED] = "speed", [CK_PORTS] = "ports",
};
/* Hosts take no flavour or ports; count, name and first have the same
 * indices in both tables. */
static const char *const counted_host_keys[] = { "count", "name", "first",
						 "speed" };
enum { CHK_COUNT, CHK_NAME, CHK_FIRST, CHK_SPEED, CHK_N };

static int parse_counted(struct ytree_ctx *x, struct spec *s,
			 enum sim_node_kind kind, const struct ytree_node *n)
{
	struct spec_tier *t = &s->tier[kind];
	bool host = kind == SIM_NODE_HOST;
	const struct ytree_node *name_val, *count_val;
	struct ytree_fields f;
	char q[YTREE_QUOTE_BUF], buf[128];
	size_t pre;
	unsigned width;
	const char *suffix;
	int rc;

	if (host)
		rc = map_fields(x, n, counted_host_keys, CHK_N, &f);
	else
		rc = map_fields(x, n, counted_keys, CK_N, &f);
	if (rc || (rc = ytree_need(x, &f, CK_COUNT)))
		return rc;
	t->counted = true;
	count_val = f.val[CK_COUNT];
	t->line = count_val->line;
	t->col = count_val->col;
	if ((rc = ytree_opt_uint(x, &f, CK_COUNT, 1, SIM_TOPO_MAX_NODES,
				 &t->count)) ||
	    (rc = ytree_opt_uint(x, &f, CK_FIRST, 0, FIRST_MAX, &t->first)))
		return rc;
	if (host) {
		if ((rc = opt_speed(x, &f, CHK_SPEED, &t->speed)))
			return rc;
	} else {
		if (f.val[CK_FLAVOUR]) {
			size_t saved = ytree_path_key(x, "flavour");
			if ((rc = parse_flavours(x, t, f.val[CK_FLAVOUR])))
				return rc;
			ytree_path_cut(x, saved);
		}
		if ((rc = opt_speed(x, &f, CK_SPEED, &t->speed)) ||
		    (rc = ytree_opt_uint(x, &f, CK_PORTS, 1, SIM_TOPO_MAX_PORTS,
					 &t->ports)))
			return rc;
	}
	name_val = f.val[CK_NAME];
	if (name_val) {
		size_t saved = ytree_path_key(x, "name");
		if ((rc = ytree_want_scalar(x, name_val, "a name pattern")))
			return rc;
		if (!topo_pattern_split(name_val->str, &pre, &width, &suffix))
			return ytree_fail(
			    x, name_val,
			    "%s is not a name pattern (name characters "
			    "around one %%d or %%0<width>d)",
			    ytree_quote(name_val, q, sizeof q));
		t->pattern = xstrdup(name_val->str);
		topo_pattern_expand(t->pattern, t->first + t->count - 1, buf,
				    sizeof buf);
		if (strlen(buf) > SIM_TOPO_NAME_MAX)
			return ytree_fail(
			    x, name_val,
			    "makes names longer than %d characters",
			    SIM_TOPO_NAME_MAX);
		ytree_path_cut(x, saved);
		t->named = true;
	} else {
		t->pattern = xasprintf("%s%%d", topo_kind_names[kind]);
	}
	size_t saved = ytree_path_key(x, "count");
	if ((rc = check_total(x, s, count_val, t->count)))
		return rc;
	ytree_path_cut(x, saved);
	t->first_node = s->n_nodes;
	t->n_nodes = t->count;
	for (unsigned i = 0; i < t->count; i++) {
		struct spec_node *sn = topo_spec_add_node(s);
		topo_pattern_expand(t->pattern, t->first + i, buf, sizeof buf);
		sn->name = xstrdup(buf);
		sn->kind = kind;
		if (host)
			sn->flavour = SIM_FLAVOUR_MLX5;
		else if (t->n_flavours)
			sn->flavour = t->flavours[i % t->n_flavours];
		else
			sn->flavour = s->flavour;
		sn->speed = t->speed ? t->speed : s->speed;
		sn->ports = t->ports;
		sn->line = name_val ? name_val->line : n->line;
		sn->col = name_val ? name_val->col : n->col;
		if (!host && f.val[CK_PORTS]) {
			sn->ports_line = f.val[CK_PORTS]->line;
			sn->ports_col = f.val[CK_PORTS]->col;
		}
	}
	return 0;
}

enum { LK_NAME, LK_FLAVOUR, LK_SPEED, LK_PORTS, LK_N };
static const char *const listed_keys[LK_N] = {
	[LK_NAME] = "name",
	[LK_FLAVOUR] = "flavour",
	[LK_SPEED] = "speed",
	[LK_PORTS] = "ports",
};
static const char *const listed_host_keys[] = { "name", "speed" };
enum { LHK_NAME, LHK_SPEED, LHK_N };

static int parse_item(struct ytree_ctx *x, struct spec *s,
		      enum sim_node_kind kind, const struct ytree_node *item,
		      size_t i)
{
	bool host = kind == SIM_NODE_HOST;
	const struct ytree_node *name_val = item;
	struct ytree_fields f;
	unsigned speed = s->speed, ports = 0;
	enum sim_flavour flavour = host ? SIM_FLAVOUR_MLX5 : s->flavour;
	int rc;

	if ((rc = check_total(x, s, item, 1)))
		return rc;
	if (item->kind == YTREE_MAP) {
		if (host)
			rc = map_fields(x, item, listed_host_keys, LHK_N, &f);
		else
			rc = map_fields(x, item, listed_keys, LK_N, &f);
		if (rc || (rc = ytree_need(x, &f, LK_NAME)))
			return rc;
		name_val = f.val[LK_NAME];
		size_t saved = ytree_path_key(x, "name");
		if ((rc = node_name(x, name_val)))
			return rc;
		ytree_path_cut(x, saved);
		if (host)
			rc = opt_speed(x, &f, LHK_SPEED, &speed);
		else if ((rc = opt_flavour(x, &f, LK_FLAVOUR, &flavour)) == 0 &&
			 (rc = opt_speed(x, &f, LK_SPEED, &speed)) == 0)
			rc = ytree_opt_uint(x, &f, LK_PORTS, 1,
					    SIM_TOPO_MAX_PORTS, &ports);
		if (rc)
			return rc;
	} else if (item->kind == YTREE_SCALAR && !ytree_is_null(item)) {
		if ((rc = node_name(x, item)))
			return rc;
	} else {
		return ytree_fail(
		    x, item,
		    "expected a node name or a mapping with name, not "
		    "%s",
		    ytree_kind_name(item));
	}
	struct spec_node *sn = topo_spec_add_node(s);
	sn->name = xstrdup(name_val->str);
	sn->kind = kind;
	sn->flavour = flavour;
	sn->speed = speed;
	sn->ports = ports;
	sn->line = name_val->line;
	sn->col = name_val->col;
	sn->item = i;
	sn->item_map = item->kind == YTREE_MAP;
	if (ports) {
		sn->ports_line = f.val[LK_PORTS]->line;
		sn->ports_col = f.val[LK_PORTS]->col;
	}
	return 0;
}

static int parse_tier(struct ytree_ctx *x, struct spec *s,
		      enum sim_node_kind kind, const struct ytree_node *n)
{
	struct spec_tier *t = &s->tier[kind];
	if (n->kind == YTREE_MAP)
		return parse_counted(x, s, kind, n);
	if (n->kind != YTREE_SEQ)
		return ytree_fail(
		    x, n, "expected a list of nodes or a mapping with count");
	if (n->n == 0)
		return ytree_fail(x, n, "needs at least one %s",
				  topo_kind_names[kind]);
	t->line = n->line;
	t->col = n->col;
	t->first_node = s->n_nodes;
	for (size_t i = 0; i < n->n; i++) {
		size_t saved = ytree_path_index(x, i);
		int rc = parse_item(x, s, kind, n->kids[i], i);
		if (rc)
			return rc;
		ytree_path_cut(x, saved);
	}
	t->n_nodes = n->n;
	return 0;
}

/* Sets the path to node sn's place in the file (and key, if any). */
void topo_path_node(struct ytree_ctx *x, const struct spec *s,
		    const struct spec_node *sn, const char *key)
{
	ytree_path_cut(x, 0);
	ytree_path_key(x, topo_tier_keys[sn->kind]);
	if (sn->item != NO_ITEM) {
		ytree_path_index(x, sn->item);
		if (key)
			ytree_path_key(x, key);
		else if (sn->item_map)
			ytree_path_key(x, "name");
	} else if (key) {
		ytree_path_key(x, key);
	} else if (s->tier[sn->kind].named) {
		ytree_path_key(x, "name");
	}
}

void topo_path_tier(struct ytree_ctx *x, const struct spec_tier *t,
		    const char *key)
{
	ytree_path_cut(x, 0);
	ytree_path_key(x, key);
	if (t->counted)
		ytree_path_key(x, "count");
}

static bool before(unsigned l1, unsigned c1, unsigned l2, unsigned c2)
{
	return l1 < l2 || (l1 == l2 && c1 < c2);
}

/*
 * Node names are unique across tiers. Of all the clashes, the one
 * reported is the one whose second use comes first in the file.
 */
static int unique_names(struct ytree_ctx *x, struct spec *s)
{
	size_t mask, *slots = topo_index_new(s->n_nodes, &mask);
	const struct spec_node *dup = NULL, *orig = NULL;

	for (size_t i = 0; i < s->n_nodes; i++) {
		const struct spec_node *sn = &s->nodes[i];
		size_t slot;
		size_t j = topo_index_find(slots, mask, s->nodes, sn->name,
					   strlen(sn->name), &slot);
		if (j == NONE) {
			slots[slot] = i + 1;
			continue;
		}
		const struct spec_node *a = &s->nodes[j], *b = sn;
		if (before(b->line, b->col, a->line, a->col)) {
			a = sn;
			b = &s->nodes[j];
		}
		if (!dup || before(b->line, b->col, dup->line, dup->col)) {
			dup = b;
			orig = a;
		}
	}
	free(slots);
	if (!dup)
		return 0;
	topo_path_node(x, s, dup, NULL);
	return ytree_fail_pos(x, dup->line, dup->col,
			      "duplicate node name \"%s\" (first at %u:%u)",
			      dup->name, orig->line, orig->col);
}

/* The rail wiring needs one leaf per rail in every pod. */
static int check_rails(struct ytree_ctx *x, struct spec *s)
{
	const struct spec_tier *lt = &s->tier[SIM_NODE_LEAF];
	size_t leaves = lt->n_nodes;
	if (!s->rail)
		return 0;
	if (s->nics > leaves) {
		ytree_path_cut(x, 0);
		ytree_path_key(x, "nics");
		return ytree_fail_pos(
		    x, s->nics_line, s->nics_col,
		    "%u NICs per host need at least %u leaves (one "
		    "per rail), not %zu",
		    s->nics, s->nics, leaves);
	}
	if (leaves % s->nics) {
		topo_path_tier(x, lt, "leaves");
		return ytree_fail_pos(
		    x, lt->line, lt->col,
		    "%zu leaves do not make pods of %u rails (one "
		    "per NIC); use a multiple of %u",
		    leaves, s->nics, s->nics);
	}
	return 0;
}

enum { EK_A, EK_B, EK_SPEED, EK_N };
static const char *const link_keys[EK_N] = {
	[EK_A] = "a",
	[EK_B] = "b",
	[EK_SPEED] = "speed",
};

/* "node" or "node:port"; the port is checked by the build. */
static int parse_end(struct ytree_ctx *x, const struct spec *s,
		     const size_t *slots, size_t mask,
		     const struct ytree_node *n, struct spec_end *e)
{
	char q[YTREE_QUOTE_BUF];
	int rc = ytree_want_scalar(x, n, "an endpoint (node or node:port)");
	if (rc)
		return rc;
	const char *colon = strchr(n->str, ':');
	size_t len = colon ? (size_t)(colon - n->str) : n->len;
	e->line = n->line;
	e->col = n->col;
	if (colon && colon[1] == '\0')
		return ytree_fail(x, n, "%s: missing port name after ':'",
				  ytree_quote(n, q, sizeof q));
	e->node = topo_index_find(slots, mask, s->nodes, n->str, len, NULL);
	if (e->node == NONE)
		return ytree_fail(
		    x, n, "no node named \"%.*s\"",
		    (int)(len > YTREE_QUOTE_MAX ? YTREE_QUOTE_MAX : len),
		    n->str);
	if (colon)
		e->port = xstrdup(colon + 1);
	return 0;
}

static int parse_link(struct ytree_ctx *x, struct spec *s, const size_t *slots,
		      size_t mask, const struct ytree_node *item,
		      struct spec_link *l)
{
	const struct ytree_node *end[2];
	int rc;

	if (item->kind == YTREE_SEQ) {
		if (item->n != 2)
			return ytree_fail(
			    x, item, "expected two endpoints [a, b], not %zu",
			    item->n);
		for (size_t e = 0; e < 2; e++) {
			size_t saved = ytree_path_index(x, e);
			rc = parse_end(x, s, slots, mask, item->kids[e],
				       &l->end[e]);
			if (rc)
				return rc;
			ytree_path_cut(x, saved);
		}
		end[0] = item->kids[0];
		end[1] = item->kids[1];
	} else if (item->kind == YTREE_MAP) {
		struct ytree_fields f;
		l->map_form = true;
		if ((rc = map_fields(x, item, link_keys, EK_N, &f)) ||
		    (rc = ytree_need(x, &f, EK_A)) ||
		    (rc = ytree_need(x, &f, EK_B)))
			return rc;
		for (size_t e = 0; e < 2; e++) {
			size_t saved = ytree_path_key(x, link_keys[EK_A + e]);
			rc = parse_end(x, s, slots, mask, f.val[EK_A + e],
				       &l->end[e]);
			if (rc)
				return rc;
			ytree_path_cut(x, saved);
		}
		if ((rc = opt_speed(x, &f, EK_SPEED, &l->speed)))
			return rc;
		end[0] = f.val[EK_A];
		end[1] = f.val[EK_B];
		ytree_path_key(x, "b");
	} else {
		return ytree_fail(
		    x, item,
		    "expected [a, b] or a mapping with a and b, not %s",
		    ytree_kind_name(item));
	}
	if (l->end[0].node == l->end[1].node) {
		if (!l->map_form)
			ytree_path_index(x, 1);
		return ytree_fail(x, end[1], "both ends are on %s",
				  s->nodes[l->end[0].node].name);
	}
	return 0;
}

static int parse_links(struct ytree_ctx *x, struct spec *s,
		       const struct ytree_node *n)
{
	size_t mask, *slots;
	int rc = 0;

	if (ytree_is_null(n))
		return 0;
	if (n->kind != YTREE_SEQ)
		return ytree_fail(x, n, "expected a list of links");
	slots = topo_index_new(s->n_nodes, &mask);
	for (size_t i = 0; i < s->n_nodes; i++) {
		size_t slot;
		topo_index_find(slots, mask, s->nodes, s->nodes[i].name,
				strlen(s->nodes[i].name), &slot);
		slots[slot] = i + 1;
	}
	s->links = xcalloc(n->n ? n->n : 1, sizeof *s->links);
	for (size_t i = 0; i < n->n && rc == 0; i++) {
		size_t saved = ytree_path_index(x, i);
		s->n_links++;
		rc = parse_link(x, s, slots, mask, n->kids[i], &s->links[i]);
		if (rc == 0)
			ytree_path_cut(x, saved);
	}
	free(slots);
	return rc;
}

typedef int (*section_fn)(struct ytree_ctx *, struct spec *,
			  const struct ytree_node *);

/* Runs fn on key i of f, if present, with the path naming the key. */
static int section(struct ytree_ctx *x, const struct ytree_fields *f, size_t i,
		   struct spec *s, section_fn fn)
{
	if (!f->val[i])
		return 0;
	size_t saved = ytree_path_key(x, f->keys[i]);
	int rc = fn(x, s, f->val[i]);
	ytree_path_cut(x, saved);
	return rc;
}

enum {
	TK_LOSSLESS,
	TK_SPEED,
	TK_FLAVOUR,
	TK_NICS,
	TK_WIRING,
	TK_SPINES,
	TK_LEAVES,
	TK_HOSTS,
	TK_LINKS,
	TK_N
};
static const char *const top_keys[TK_N] = {
	[TK_LOSSLESS] = "lossless_priorities",
	[TK_SPEED] = "speed",
	[TK_FLAVOUR] = "flavour",
	[TK_NICS] = "nics",
	[TK_WIRING] = "wiring",
	[TK_SPINES] = "spines",
	[TK_LEAVES] = "leaves",
	[TK_HOSTS] = "hosts",
	[TK_LINKS] = "links",
};

int topo_parse_top(struct ytree_ctx *x, struct spec *s,
		   const struct ytree_node *root)
{
	struct ytree_fields f;
	int rc;

	if (root->kind != YTREE_MAP)
		return ytree_fail_at(
		    x, root->line, root->col,
		    "expected a mapping of settings at the top "
		    "level");
	if ((rc = map_fields(x, root, top_keys, TK_N, &f)))
		return rc;
	/* Defaults first: the tiers inherit them. */
	if ((rc = section(x, &f, TK_LOSSLESS, s, parse_priorities)) ||
	    (rc = opt_speed(x, &f, TK_SPEED, &s->speed)) ||
	    (rc = opt_flavour(x, &f, TK_FLAVOUR, &s->flavour)) ||
	    (rc = ytree_opt_uint(x, &f, TK_NICS, 1, SIM_TOPO_MAX_NICS,
				 &s->nics)) ||
	    (rc = section(x, &f, TK_WIRING, s, parse_wiring)))
		return rc;
	if (f.val[TK_NICS]) {
		s->nics_line = f.val[TK_NICS]->line;
		s->nics_col = f.val[TK_NICS]->col;
	}
	for (int k = 0; k < SIM_NODE_KINDS; k++) {
		size_t i = TK_SPINES + (size_t)k;
		if ((rc = ytree_need(x, &f, i)))
			return rc;
		size_t saved = ytree_path_key(x, f.keys[i]);
		if ((rc = parse_tier(x, s, (enum sim_node_kind)k, f.val[i])))
			return rc;
		ytree_path_cut(x, saved);
	}
	if ((rc = unique_names(x, s)) || (rc = check_rails(x, s)))
		return rc;
	ytree_path_cut(x, 0);
	return section(x, &f, TK_LINKS, s, parse_links);
}

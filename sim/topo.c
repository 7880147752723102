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
 */
#include "config.h"

#include "topo.h"

#include "mem.h"
#include "ytree.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FIRST_MAX   1000000 /* largest "first" of a counted tier */
#define NO_ITEM	    SIZE_MAX
#define NONE	    SIZE_MAX
#define ARENA_CHUNK 65536

static const char *const tier_keys[SIM_NODE_KINDS] = {
	[SIM_NODE_SPINE] = "spines",
	[SIM_NODE_LEAF] = "leaves",
	[SIM_NODE_HOST] = "hosts",
};
static const char *const kind_names[SIM_NODE_KINDS] = {
	[SIM_NODE_SPINE] = "spine",
	[SIM_NODE_LEAF] = "leaf",
	[SIM_NODE_HOST] = "host",
};
static const char *const flavour_names[] = {
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
static const unsigned speeds[] = { 100, 200, 400, 800 };

/*
 * The spec: the fabric as written, before it is built.
 */

struct spec_node {
	char *name;
	enum sim_node_kind kind;
	enum sim_flavour flavour;
	unsigned speed;
	unsigned ports;	    /* switches: 0, or the front-panel port count */
	unsigned line, col; /* where it is named; 0 if generated */
	size_t item;	    /* its item in a listed tier, or NO_ITEM */
	bool item_map;	    /* that item is a mapping (with a name key) */
	unsigned ports_line, ports_col;
};

struct spec_tier {
	bool counted;
	char *pattern; /* counted: a name with one %d or %0<w>d */
	unsigned first, count;
	enum sim_flavour flavours[SIM_TOPO_MAX_FLAVOURS];
	size_t n_flavours;  /* 0: the default flavour */
	unsigned speed;	    /* 0: the default speed */
	unsigned ports;	    /* 0: as the cabling needs */
	unsigned line, col; /* count value or list, for errors on the tier */
	bool named;	    /* counted with a name key */
	size_t first_node, n_nodes;
};

struct spec_end {
	size_t node;
	char *port;	/* as written; NULL: the node's first free port */
	unsigned index; /* the port, once the build resolved it */
	unsigned line, col;
};

struct spec_link {
	struct spec_end end[2];
	unsigned speed; /* 0: the slower end's */
	bool map_form;	/* {a:, b:} in the file, not [a, b] (error paths) */
};

struct spec {
	uint8_t lossless;
	unsigned speed, nics;
	enum sim_flavour flavour;
	bool rail; /* generate the rail wiring */
	unsigned nics_line, nics_col;
	struct spec_tier tier[SIM_NODE_KINDS];
	struct spec_node *nodes;
	size_t n_nodes, cap_nodes;
	struct spec_link *links;
	size_t n_links;
};

struct chunk {
	struct chunk *next;
	size_t used;
	char data[ARENA_CHUNK];
};

struct sim_topo {
	char *source;
	struct spec spec;
	struct sim_node *nodes;
	size_t n_nodes;
	struct sim_port *ports;
	size_t n_ports;
	size_t tier_first[SIM_NODE_KINDS], tier_n[SIM_NODE_KINDS];
	unsigned pods;
	size_t *slots; /* name index: node id + 1, 0 for empty */
	size_t mask;
	struct chunk *arena;
};

static void spec_fini(struct spec *s)
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

static void spec_defaults(struct spec *s)
{
	memset(s, 0, sizeof *s);
	s->lossless = 1u << 3;
	s->speed = 400;
	s->nics = 1;
	s->flavour = SIM_FLAVOUR_SONIC;
	s->rail = true;
}

static struct spec_node *spec_add_node(struct spec *s)
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
 * Hashing: FNV-1a with a final mix, for the name index and the MACs.
 */

static uint64_t hash_bytes(const char *s, size_t n, uint64_t salt)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325) ^ salt;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= UINT64_C(0x100000001b3);
	}
	h ^= h >> 33;
	h *= UINT64_C(0xff51afd7ed558ccd);
	h ^= h >> 33;
	h *= UINT64_C(0xc4ceb9fe1a85ec53);
	h ^= h >> 33;
	return h;
}

static size_t table_size(size_t n)
{
	size_t size = 16;
	while (size < 2 * n)
		size *= 2;
	return size;
}

/* An index of names[0..n) by name: slots hold position + 1. */
static size_t *index_new(size_t n, size_t *mask)
{
	size_t size = table_size(n);
	*mask = size - 1;
	return xcalloc(size, sizeof(size_t));
}

/*
 * Finds name in the index; returns its position, or NONE with *slot set
 * to the free slot where it would go.
 */
static size_t index_find(const size_t *slots, size_t mask,
			 const struct spec_node *nodes, const char *name,
			 size_t len, size_t *slot)
{
	size_t i = (size_t)hash_bytes(name, len, 0) & mask;
	for (; slots[i]; i = (i + 1) & mask) {
		const char *have = nodes[slots[i] - 1].name;
		if (strlen(have) == len && memcmp(have, name, len) == 0)
			return slots[i] - 1;
	}
	if (slot)
		*slot = i;
	return NONE;
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
 * Port names. Names depend only on the node's flavour, its speed (for
 * SONiC's lane step) and the port's front-panel position.
 */

/* SONiC names a port after its first lane: 8 lanes per 800G cage. */
static unsigned sonic_step(unsigned node_speed)
{
	return node_speed >= 800 ? 8 : 4;
}

static void port_name(enum sim_flavour f, unsigned node_speed, unsigned i,
		      char *buf, size_t len)
{
	switch (f) {
	case SIM_FLAVOUR_SONIC:
		snprintf(buf, len, "Ethernet%u", i * sonic_step(node_speed));
		break;
	case SIM_FLAVOUR_ARISTA:
		snprintf(buf, len, "Ethernet%u/1", i + 1);
		break;
	case SIM_FLAVOUR_OPENCONFIG:
		snprintf(buf, len, "eth%u", i + 1);
		break;
	case SIM_FLAVOUR_MLX5:
		snprintf(buf, len, "mlx5_%u", i);
		break;
	}
}

/* Reads a canonical decimal (no sign, no leading zero) and advances. */
static bool read_dec(const char **s, unsigned *v)
{
	const char *p = *s;
	unsigned long n = 0;
	if (!isdigit((unsigned char)*p) ||
	    (p[0] == '0' && isdigit((unsigned char)p[1])))
		return false;
	for (; isdigit((unsigned char)*p); p++) {
		n = n * 10 + (unsigned long)(*p - '0');
		if (n > 100000)
			return false;
	}
	*v = (unsigned)n;
	*s = p;
	return true;
}

/* The front-panel position of port name s, or false. */
static bool parse_port_name(enum sim_flavour f, unsigned node_speed,
			    const char *s, unsigned *index)
{
	unsigned v;
	switch (f) {
	case SIM_FLAVOUR_SONIC:
		if (strncmp(s, "Ethernet", 8) != 0)
			return false;
		s += 8;
		if (!read_dec(&s, &v) || *s || v % sonic_step(node_speed))
			return false;
		*index = v / sonic_step(node_speed);
		return true;
	case SIM_FLAVOUR_ARISTA:
		if (strncmp(s, "Ethernet", 8) != 0)
			return false;
		s += 8;
		if (!read_dec(&s, &v) || v == 0 || strcmp(s, "/1") != 0)
			return false;
		*index = v - 1;
		return true;
	case SIM_FLAVOUR_OPENCONFIG:
		if (strncmp(s, "eth", 3) != 0)
			return false;
		s += 3;
		if (!read_dec(&s, &v) || v == 0 || *s)
			return false;
		*index = v - 1;
		return true;
	case SIM_FLAVOUR_MLX5:
		if (strncmp(s, "mlx5_", 5) == 0) {
			s += 5;
			if (!read_dec(&s, &v) || *s)
				return false;
		} else if (strncmp(s, "ens", 3) == 0) {
			s += 3;
			if (!read_dec(&s, &v) || strcmp(s, "np0") != 0)
				return false;
		} else {
			return false;
		}
		*index = v;
		return true;
	}
	return false;
}

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '.' || c == '_' || c == '-';
}

static bool valid_name(const char *s, size_t len)
{
	if (len == 0 || len > SIM_TOPO_NAME_MAX || strlen(s) != len)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!name_char(s[i]))
			return false;
	return true;
}

/*
 * A name pattern: name characters around one "%d" or "%0<w>d" (w 1..9).
 * Returns the length of the part before it, the width and the suffix.
 */
static bool pattern_split(const char *pat, size_t *pre, unsigned *width,
			  const char **suffix)
{
	const char *pct = strchr(pat, '%');
	if (!pct)
		return false;
	*pre = (size_t)(pct - pat);
	const char *p = pct + 1;
	*width = 0;
	if (p[0] == '0' && p[1] >= '1' && p[1] <= '9') {
		*width = (unsigned)(p[1] - '0');
		p += 2;
	}
	if (*p != 'd')
		return false;
	*suffix = p + 1;
	for (const char *q = pat; *q; q++)
		if ((q < pct || q >= *suffix) && !name_char(*q))
			return false;
	return true;
}

static void pattern_expand(const char *pat, unsigned num, char *buf, size_t len)
{
	size_t pre;
	unsigned width;
	const char *suffix;
	if (!pattern_split(pat, &pre, &width, &suffix)) {
		snprintf(buf, len, "%s", pat);
		return;
	}
	snprintf(buf, len, "%.*s%0*u%s", (int)pre, pat, (int)width, num,
		 suffix);
}

/*
 * Reading the tree (core/ytree.h) the way topology files always have.
 */

#define TOPO_PATH_SIZE 256

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
	if (valid_name(n->str, n->len))
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
		if (!pattern_split(name_val->str, &pre, &width, &suffix))
			return ytree_fail(
			    x, name_val,
			    "%s is not a name pattern (name characters "
			    "around one %%d or %%0<width>d)",
			    ytree_quote(name_val, q, sizeof q));
		t->pattern = xstrdup(name_val->str);
		pattern_expand(t->pattern, t->first + t->count - 1, buf,
			       sizeof buf);
		if (strlen(buf) > SIM_TOPO_NAME_MAX)
			return ytree_fail(
			    x, name_val,
			    "makes names longer than %d characters",
			    SIM_TOPO_NAME_MAX);
		ytree_path_cut(x, saved);
		t->named = true;
	} else {
		t->pattern = xasprintf("%s%%d", kind_names[kind]);
	}
	size_t saved = ytree_path_key(x, "count");
	if ((rc = check_total(x, s, count_val, t->count)))
		return rc;
	ytree_path_cut(x, saved);
	t->first_node = s->n_nodes;
	t->n_nodes = t->count;
	for (unsigned i = 0; i < t->count; i++) {
		struct spec_node *sn = spec_add_node(s);
		pattern_expand(t->pattern, t->first + i, buf, sizeof buf);
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
	struct spec_node *sn = spec_add_node(s);
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
				  kind_names[kind]);
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
static void path_node(struct ytree_ctx *x, const struct spec *s,
		      const struct spec_node *sn, const char *key)
{
	ytree_path_cut(x, 0);
	ytree_path_key(x, tier_keys[sn->kind]);
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
	size_t mask, *slots = index_new(s->n_nodes, &mask);
	const struct spec_node *dup = NULL, *orig = NULL;

	for (size_t i = 0; i < s->n_nodes; i++) {
		const struct spec_node *sn = &s->nodes[i];
		size_t slot;
		size_t j = index_find(slots, mask, s->nodes, sn->name,
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
	path_node(x, s, dup, NULL);
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
		ytree_path_cut(x, 0);
		ytree_path_key(x, "leaves");
		if (lt->counted)
			ytree_path_key(x, "count");
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
	e->node = index_find(slots, mask, s->nodes, n->str, len, NULL);
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
	slots = index_new(s->n_nodes, &mask);
	for (size_t i = 0; i < s->n_nodes; i++) {
		size_t slot;
		index_find(slots, mask, s->nodes, s->nodes[i].name,
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

static int parse_top(struct ytree_ctx *x, struct spec *s,
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
		ytree_path_cut(x, 0);
		ytree_path_key(x, "leaves");
		if (lt->counted)
			ytree_path_key(x, "count");
		return ytree_fail_pos(
		    x, lt->line, lt->col,
		    "%zu leaves need %zu ports on every spine, "
		    "more than %d",
		    lt->n_nodes, lt->n_nodes, SIM_TOPO_MAX_PORTS);
	}
	for (unsigned p = 0; p < pods; p++) {
		if (hp[p] + st->n_nodes <= SIM_TOPO_MAX_PORTS)
			continue;
		ytree_path_cut(x, 0);
		ytree_path_key(x, "hosts");
		if (ht->counted)
			ytree_path_key(x, "count");
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
	port_name(sn->flavour, sn->speed, 0, a, sizeof a);
	port_name(sn->flavour, sn->speed, 1, b, sizeof b);
	port_name(sn->flavour, sn->speed, n ? n - 1 : 0, c, sizeof c);
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
			if (!parse_port_name(sn->flavour, sn->speed, end->port,
					     &end->index) ||
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
				port_name(sn->flavour, sn->speed, end->index,
					  desc, sizeof desc);
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
				path_node(x, s, sn, "ports");
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
		uint64_t h = hash_bytes(key, strlen(key), salt);
		uint64_t v =
		    (UINT64_C(0x02) << 40) | (h & UINT64_C(0xffffffffff));
		size_t i =
		    (size_t)hash_bytes((const char *)&v, sizeof v, 0) & mask;
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
	size_t set_mask = table_size(n_macs) - 1;
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
			port_name(sn->flavour, sn->speed, p, buf, sizeof buf);
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

	t->slots = index_new(t->n_nodes, &t->mask);
	for (size_t i = 0; i < t->n_nodes; i++) {
		size_t slot;
		index_find(t->slots, t->mask, s->nodes, s->nodes[i].name,
			   strlen(s->nodes[i].name), &slot);
		t->slots[slot] = i + 1;
	}
	for (int k = 0; k < SIM_NODE_KINDS; k++) {
		t->tier_first[k] = s->tier[k].first_node;
		t->tier_n[k] = s->tier[k].n_nodes;
	}
}

/* Builds the spec (moved into the topology) or returns NULL. */
static struct sim_topo *build(struct ytree_ctx *x, struct spec *s,
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
	spec_defaults(&s);
	if (parse_top(&x, &s, root) == 0)
		t = build(&x, &s, name);
	spec_fini(&s);
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

static bool valid_speed(unsigned gbps)
{
	for (size_t i = 0; i < sizeof speeds / sizeof *speeds; i++)
		if (speeds[i] == gbps)
			return true;
	return false;
}

static int gen_check(struct ytree_ctx *x, const struct sim_topo_gen *g)
{
	const struct {
		const char *what;
		unsigned v;
	} counts[] = { { "spines", g->spines },
		       { "leaves", g->leaves },
		       { "hosts", g->hosts } };
	for (size_t i = 0; i < 3; i++)
		if (counts[i].v < 1 || counts[i].v > SIM_TOPO_MAX_NODES)
			return ytree_fail_file(
			    x, "%s must be between 1 and %d, not %u",
			    counts[i].what, SIM_TOPO_MAX_NODES, counts[i].v);
	if ((size_t)g->spines + g->leaves + g->hosts > SIM_TOPO_MAX_NODES)
		return ytree_fail_file(
		    x, "the fabric would have more than %d nodes",
		    SIM_TOPO_MAX_NODES);
	if (g->nics < 1 || g->nics > SIM_TOPO_MAX_NICS)
		return ytree_fail_file(x,
				       "nics must be between 1 and %d, not %u",
				       SIM_TOPO_MAX_NICS, g->nics);
	if (g->nics > g->leaves)
		return ytree_fail_file(
		    x,
		    "nics (%u) must not exceed leaves (%u): NIC k "
		    "of every host goes to the leaf of rail k",
		    g->nics, g->leaves);
	if (g->leaves % g->nics)
		return ytree_fail_file(
		    x,
		    "leaves (%u) must be a multiple of nics (%u): "
		    "leaves make pods of one leaf per rail",
		    g->leaves, g->nics);
	if (g->speed && !valid_speed(g->speed))
		return ytree_fail_file(
		    x,
		    "speed %u is not supported (100, 200, 400 or "
		    "800 Gb/s)",
		    g->speed);
	if (g->host_speed && !valid_speed(g->host_speed))
		return ytree_fail_file(
		    x,
		    "host speed %u is not supported (100, 200, "
		    "400 or 800 Gb/s)",
		    g->host_speed);
	if (g->n_flavours > SIM_TOPO_MAX_FLAVOURS ||
	    (g->n_flavours && !g->flavours))
		return ytree_fail_file(x, "at most %d flavours, not %zu",
				       SIM_TOPO_MAX_FLAVOURS, g->n_flavours);
	for (size_t i = 0; i < g->n_flavours; i++)
		if (g->flavours[i] != SIM_FLAVOUR_SONIC &&
		    g->flavours[i] != SIM_FLAVOUR_ARISTA &&
		    g->flavours[i] != SIM_FLAVOUR_OPENCONFIG)
			return ytree_fail_file(
			    x,
			    "flavour %d is not a switch flavour "
			    "(sonic, arista or openconfig)",
			    (int)g->flavours[i]);
	return 0;
}

static void gen_tier(struct spec *s, enum sim_node_kind kind, unsigned count,
		     const struct sim_topo_gen *g)
{
	struct spec_tier *t = &s->tier[kind];
	char buf[32];
	t->counted = true;
	t->count = count;
	t->pattern = xasprintf("%s%%d", kind_names[kind]);
	t->first_node = s->n_nodes;
	t->n_nodes = count;
	if (kind == SIM_NODE_HOST) {
		t->speed = g->host_speed && g->host_speed != s->speed
			       ? g->host_speed
			       : 0;
	} else {
		t->n_flavours = g->n_flavours;
		for (size_t i = 0; i < g->n_flavours; i++)
			t->flavours[i] = g->flavours[i];
	}
	for (unsigned i = 0; i < count; i++) {
		struct spec_node *sn = spec_add_node(s);
		snprintf(buf, sizeof buf, "%s%u", kind_names[kind], i);
		sn->name = xstrdup(buf);
		sn->kind = kind;
		sn->speed = t->speed ? t->speed : s->speed;
		if (kind == SIM_NODE_HOST)
			sn->flavour = SIM_FLAVOUR_MLX5;
		else if (t->n_flavours)
			sn->flavour = t->flavours[i % t->n_flavours];
		else
			sn->flavour = s->flavour;
	}
}

struct sim_topo *sim_topo_generate(const struct sim_topo_gen *g, char *err,
				   size_t errlen)
{
	struct ytree_ctx x = { .name = NULL,
			       .err = err,
			       .errlen = errlen,
			       .path_size = TOPO_PATH_SIZE };
	struct sim_topo *t;
	struct spec s;

	if (err && errlen)
		err[0] = '\0';
	if (!g) {
		ytree_fail_file(&x, "no generator settings");
		return NULL;
	}
	if (gen_check(&x, g))
		return NULL;
	spec_defaults(&s);
	if (g->speed)
		s.speed = g->speed;
	if (g->lossless_mask)
		s.lossless = g->lossless_mask;
	s.nics = g->nics;
	gen_tier(&s, SIM_NODE_SPINE, g->spines, g);
	gen_tier(&s, SIM_NODE_LEAF, g->leaves, g);
	gen_tier(&s, SIM_NODE_HOST, g->hosts, g);
	t = build(&x, &s, "generated");
	spec_fini(&s);
	return t;
}

/*
 * Writing.
 */

/* Scalars that would not read back as the same string go in quotes. */
static void put_scalar(FILE *f, const char *s)
{
	bool q = !isalnum((unsigned char)s[0]) || strcmp(s, "null") == 0 ||
		 strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0;
	fprintf(f, q ? "\"%s\"" : "%s", s);
}

static void put_flavours(FILE *f, const struct spec_tier *t)
{
	if (t->n_flavours == 1) {
		fprintf(f, "  flavour: %s\n", flavour_names[t->flavours[0]]);
		return;
	}
	fputs("  flavour: [", f);
	for (size_t i = 0; i < t->n_flavours; i++)
		fprintf(f, "%s%s", i ? ", " : "",
			flavour_names[t->flavours[i]]);
	fputs("]\n", f);
}

static void put_tier(FILE *f, const struct spec *s, enum sim_node_kind kind)
{
	const struct spec_tier *t = &s->tier[kind];
	fprintf(f, "%s:\n", tier_keys[kind]);
	if (t->counted) {
		fprintf(f, "  count: %u\n  name: ", t->count);
		put_scalar(f, t->pattern);
		fputc('\n', f);
		if (t->first)
			fprintf(f, "  first: %u\n", t->first);
		if (t->n_flavours)
			put_flavours(f, t);
		if (t->speed)
			fprintf(f, "  speed: %uG\n", t->speed);
		if (t->ports)
			fprintf(f, "  ports: %u\n", t->ports);
		return;
	}
	for (size_t i = 0; i < t->n_nodes; i++) {
		const struct spec_node *sn = &s->nodes[t->first_node + i];
		bool fl = kind != SIM_NODE_HOST && sn->flavour != s->flavour;
		bool sp = sn->speed != s->speed;
		if (!fl && !sp && !sn->ports) {
			fputs("  - ", f);
			put_scalar(f, sn->name);
			fputc('\n', f);
			continue;
		}
		fputs("  - name: ", f);
		put_scalar(f, sn->name);
		fputc('\n', f);
		if (fl)
			fprintf(f, "    flavour: %s\n",
				flavour_names[sn->flavour]);
		if (sp)
			fprintf(f, "    speed: %uG\n", sn->speed);
		if (sn->ports)
			fprintf(f, "    ports: %u\n", sn->ports);
	}
}

static void put_end(FILE *f, const struct sim_topo *t, const struct spec_end *e)
{
	const struct sim_node *n = &t->nodes[e->node];
	if (!e->port) {
		put_scalar(f, n->name);
		return;
	}
	char buf[SIM_TOPO_NAME_MAX + 32];
	snprintf(buf, sizeof buf, "%s:%s", n->name, n->ports[e->index].name);
	put_scalar(f, buf);
}

int sim_topo_write_yaml(const struct sim_topo *t, FILE *f)
{
	const struct spec *s = &t->spec;

	fputs("# fabsim topology (see doc/fabsim-topology.md)\n", f);
	fputs("lossless_priorities: [", f);
	for (unsigned p = 0, first = 1; p < 8; p++) {
		if (!(s->lossless & (1u << p)))
			continue;
		fprintf(f, "%s%u", first ? "" : ", ", p);
		first = 0;
	}
	fprintf(f, "]\nspeed: %uG\nflavour: %s\nnics: %u\nwiring: %s\n",
		s->speed, flavour_names[s->flavour], s->nics,
		s->rail ? "rail" : "none");
	for (int k = 0; k < SIM_NODE_KINDS; k++)
		put_tier(f, s, (enum sim_node_kind)k);
	if (s->n_links)
		fputs("links:\n", f);
	for (size_t i = 0; i < s->n_links; i++) {
		const struct spec_link *l = &s->links[i];
		fputs(l->speed ? "  - { a: " : "  - [", f);
		put_end(f, t, &l->end[0]);
		fputs(l->speed ? ", b: " : ", ", f);
		put_end(f, t, &l->end[1]);
		if (l->speed)
			fprintf(f, ", speed: %uG }\n", l->speed);
		else
			fputs("]\n", f);
	}
	if (fflush(f) != 0 || ferror(f))
		return -EIO;
	return 0;
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
	spec_fini(&t->spec);
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
	    index_find(t->slots, t->mask, t->spec.nodes, name, len, NULL);
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
	if (!n || !name || !parse_port_name(n->flavour, n->speed, name, &i) ||
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
	return kind_names[kind];
}

const char *sim_topo_flavour_name(enum sim_flavour flavour)
{
	if ((unsigned)flavour > SIM_FLAVOUR_MLX5)
		return "?";
	return flavour_names[flavour];
}

int sim_topo_parse_flavour(const char *s, enum sim_flavour *flavour)
{
	for (int f = SIM_FLAVOUR_SONIC; f <= SIM_FLAVOUR_OPENCONFIG; f++) {
		if (s && strcmp(s, flavour_names[f]) == 0) {
			*flavour = (enum sim_flavour)f;
			return 0;
		}
	}
	return -EINVAL;
}

int sim_topo_parse_speed(const char *s, unsigned *gbps)
{
	char buf[8];
	for (size_t i = 0; s && i < sizeof speeds / sizeof *speeds; i++) {
		snprintf(buf, sizeof buf, "%uG", speeds[i]);
		if (strcmp(s, buf) == 0) {
			*gbps = speeds[i];
			return 0;
		}
	}
	return -EINVAL;
}

/*
 * gnmi_lldp: LLDP neighbours from gNMI into the link table (see lldp.h).
 *
 * A target has a few dozen neighbours at most, so they are a flat array
 * in arrival order (which also says which neighbour of a port is the
 * first), searched linearly; only LLDP leaves come here. Changes mark
 * their local port dirty; a flush reports or forgets each dirty port
 * once, so a neighbour whose four leaves arrive in one notification
 * costs one report.
 */
#include "config.h"

#include "lldp.h"

#include "links.h"
#include "mem.h"

#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

struct nb {
	char *port, *id; /* local port, neighbour id (the list's keys) */
	char *sysname, *port_id, *desc; /* NULL: not (yet) sent */
	int subtype;			/* LldpPortIdSubtype; 0: not sent */
	unsigned epoch;			/* the last sync epoch it was sent in */
};

struct gnmi_lldp {
	struct links *links;
	char *device, *source;
	struct nb *nb;
	size_t n, cap;
	char **dirty; /* local ports changed since the last flush */
	size_t n_dirty, cap_dirty;
	char **rep; /* local ports reported to the table */
	size_t n_rep, cap_rep;
	unsigned epoch;
	int64_t last_full; /* 0: never */
};

enum { F_SYSNAME, F_PORT_ID, F_PORT_TYPE, F_DESC };

static const struct {
	const char *name;
	int subtype;
} port_types[] = {
	{ "INTERFACE_ALIAS", 1 }, { "PORT_COMPONENT", 2 },
	{ "MAC_ADDRESS", 3 },	  { "NETWORK_ADDRESS", 4 },
	{ "INTERFACE_NAME", 5 },  { "AGENT_CIRCUIT_ID", 6 },
	{ "LOCAL", 7 },
};

struct gnmi_lldp *gnmi_lldp_new(struct links *l, const char *device,
				const char *source)
{
	struct gnmi_lldp *g = xcalloc(1, sizeof *g);
	g->links = l;
	g->device = xstrdup(device);
	g->source = xstrdup(source);
	return g;
}

static void nb_clear(struct nb *e)
{
	free(e->port);
	free(e->id);
	free(e->sysname);
	free(e->port_id);
	free(e->desc);
}

void gnmi_lldp_free(struct gnmi_lldp *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->n_rep; i++) {
		if (g->links)
			links_forget_lldp(g->links, g->device, g->rep[i]);
		free(g->rep[i]);
	}
	for (size_t i = 0; i < g->n; i++)
		nb_clear(&g->nb[i]);
	for (size_t i = 0; i < g->n_dirty; i++)
		free(g->dirty[i]);
	free(g->rep);
	free(g->dirty);
	free(g->nb);
	free(g->device);
	free(g->source);
	free(g);
}

size_t gnmi_lldp_count(const struct gnmi_lldp *g)
{
	return g->n;
}

/* A copy of len bytes of s, unescaped as JSON if it has a backslash
 * (kept as it is if that fails). */
static char *text_dup(const char *s, size_t len)
{
	if (memchr(s, '\\', len)) {
		char *buf = xmalloc(len + 1);
		size_t out;
		if (gnmi_json_unescape(s, len, buf, len + 1, &out) == 0)
			return buf;
		free(buf);
	}
	return xstrndup(s, len);
}

/* s[0..len) equals want, or a module-prefixed want ("mod:want"). */
static bool name_is(const char *s, size_t len, const char *want)
{
	size_t w = strlen(want);
	if (len > w && s[len - w - 1] == ':')
		s += len - w, len = w;
	return len == w && memcmp(s, want, w) == 0;
}

static bool elem_is(const struct gnmi_view *v, size_t i, const char *want)
{
	return i < v->n && name_is(v->elem[i].name, v->elem[i].name_len, want);
}

/* The value of key name of element i (true, into s and len), or false
 * if it has none or it is the wildcard "*". */
static bool key_of(const struct gnmi_view *v, size_t i, const char *name,
		   const char **s, size_t *len)
{
	const struct gnmi_view_elem *e = &v->elem[i];
	for (size_t k = 0; k < e->n_keys; k++) {
		const struct gnmi_view_key *key = &e->keys[k];
		if (key->name_len == strlen(name) &&
		    memcmp(key->name, name, key->name_len) == 0) {
			if (key->value_len == 1 && key->value[0] == '*')
				return false;
			*s = key->value;
			*len = key->value_len;
			return true;
		}
	}
	return false;
}

static void mark_dirty(struct gnmi_lldp *g, const char *port)
{
	for (size_t i = 0; i < g->n_dirty; i++)
		if (strcmp(g->dirty[i], port) == 0)
			return;
	if (g->n_dirty == g->cap_dirty) {
		g->cap_dirty = g->cap_dirty ? 2 * g->cap_dirty : 16;
		g->dirty =
		    xreallocarray(g->dirty, g->cap_dirty, sizeof *g->dirty);
	}
	g->dirty[g->n_dirty++] = xstrdup(port);
}

static void remove_at(struct gnmi_lldp *g, size_t i)
{
	mark_dirty(g, g->nb[i].port);
	nb_clear(&g->nb[i]);
	memmove(&g->nb[i], &g->nb[i + 1], (g->n - i - 1) * sizeof *g->nb);
	g->n--;
}

static struct nb *find_or_add(struct gnmi_lldp *g, const char *port,
			      size_t plen, const char *id, size_t ilen)
{
	char *p = text_dup(port, plen), *d = text_dup(id, ilen);
	for (size_t i = 0; i < g->n; i++) {
		struct nb *e = &g->nb[i];
		if (strcmp(e->port, p) == 0 && strcmp(e->id, d) == 0) {
			free(p);
			free(d);
			return e;
		}
	}
	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 16;
		g->nb = xreallocarray(g->nb, g->cap, sizeof *g->nb);
	}
	struct nb *e = &g->nb[g->n++];
	memset(e, 0, sizeof *e);
	e->port = p;
	e->id = d;
	return e;
}

/* Sets *slot to the text of val (NULL: unset); true if it changed. */
static bool set_text(char **slot, const char *s, size_t len)
{
	char *nv = s ? text_dup(s, len) : NULL;
	if (nv && *nv == '\0') {
		free(nv);
		nv = NULL;
	}
	bool same = (!nv && !*slot) || (nv && *slot && strcmp(nv, *slot) == 0);
	if (same) {
		free(nv);
		return false;
	}
	free(*slot);
	*slot = nv;
	return true;
}

static int port_subtype(const char *s, size_t len)
{
	for (size_t i = 0; i < sizeof port_types / sizeof port_types[0]; i++)
		if (name_is(s, len, port_types[i].name))
			return port_types[i].subtype;
	return LINKS_LLDP_PORT_LOCAL;
}

/* Which neighbour state leaf element 6 is, or -1. */
static int state_field(const struct gnmi_view *v)
{
	if (elem_is(v, 6, "system-name"))
		return F_SYSNAME;
	if (elem_is(v, 6, "port-id"))
		return F_PORT_ID;
	if (elem_is(v, 6, "port-id-type"))
		return F_PORT_TYPE;
	if (elem_is(v, 6, "port-description"))
		return F_DESC;
	return -1;
}

/* /lldp/interfaces/interface/neighbors/neighbor/state, as far as the
 * view goes (n elements at least). */
static bool neighbor_shape(const struct gnmi_view *v, size_t n)
{
	static const char *const names[] = { "lldp",	  "interfaces",
					     "interface", "neighbors",
					     "neighbor",  "state" };
	for (size_t i = 0; i < n && i < 6; i++)
		if (!elem_is(v, i, names[i]))
			return false;
	return v->n >= n;
}

/* SONiC's APPL_DB LLDP_ENTRY_TABLE: one neighbour per local port. */
#define SONIC_TABLE "LLDP_ENTRY_TABLE"
#define SONIC_ID    "lldp_entry"

/* Which LLDP_ENTRY_TABLE field element 2 is, or -1. */
static int sonic_field(const struct gnmi_view *v)
{
	if (elem_is(v, 2, "lldp_rem_sys_name"))
		return F_SYSNAME;
	if (elem_is(v, 2, "lldp_rem_port_id"))
		return F_PORT_ID;
	if (elem_is(v, 2, "lldp_rem_port_id_subtype"))
		return F_PORT_TYPE;
	if (elem_is(v, 2, "lldp_rem_port_desc"))
		return F_DESC;
	return -1;
}

/* Sets field f of e from val; true if it changed. A SONiC subtype is
 * the LldpPortIdSubtype's number (sonic: numeric), OpenConfig's its
 * identity name. */
static bool set_field(struct nb *e, int f, const struct gnmi_scalar *val,
		      bool numeric)
{
	switch (f) {
	case F_SYSNAME:
		return set_text(&e->sysname, val->s, val->len);
	case F_PORT_ID:
		return set_text(&e->port_id, val->s, val->len);
	case F_DESC:
		return set_text(&e->desc, val->s, val->len);
	case F_PORT_TYPE: {
		int st = LINKS_LLDP_PORT_LOCAL;
		uint64_t u;
		if (!numeric)
			st = port_subtype(val->s, val->len);
		else if (gnmi_scalar_u64(val, &u) == 0 && u >= 1 && u <= 7)
			st = (int)u;
		bool changed = st != e->subtype;
		e->subtype = st;
		return changed;
	}
	}
	return false;
}

static bool sonic_leaf(struct gnmi_lldp *g, const struct gnmi_view *v,
		       const struct gnmi_scalar *val)
{
	int f;
	if (v->n != 3 || v->elem[1].name_len == 0 || (f = sonic_field(v)) < 0)
		return true;
	if (val->kind != GNMI_SCALAR_STRING &&
	    !(f == F_PORT_TYPE &&
	      (val->kind == GNMI_SCALAR_UINT || val->kind == GNMI_SCALAR_INT ||
	       val->kind == GNMI_SCALAR_NUMBER_TEXT)))
		return true;
	struct nb *e = find_or_add(g, v->elem[1].name, v->elem[1].name_len,
				   SONIC_ID, strlen(SONIC_ID));
	e->epoch = g->epoch;
	if (set_field(e, f, val, true))
		mark_dirty(g, e->port);
	return true;
}

bool gnmi_lldp_leaf(struct gnmi_lldp *g, const struct gnmi_view *v,
		    const struct gnmi_scalar *val)
{
	if (elem_is(v, 0, SONIC_TABLE))
		return sonic_leaf(g, v, val);
	if (!elem_is(v, 0, "lldp"))
		return false;
	const char *port, *id;
	size_t plen, ilen;
	int f;
	if (v->n != 7 || !neighbor_shape(v, 6) || (f = state_field(v)) < 0 ||
	    !key_of(v, 2, "name", &port, &plen) ||
	    !key_of(v, 4, "id", &id, &ilen) || plen == 0 || ilen == 0)
		return true;
	if (val->kind != GNMI_SCALAR_STRING)
		return true;
	struct nb *e = find_or_add(g, port, plen, id, ilen);
	e->epoch = g->epoch;
	if (set_field(e, f, val, false))
		mark_dirty(g, e->port);
	return true;
}

/* Removes the neighbours of port (NULL: all) whose id is id (NULL:
 * any), or with f >= 0, unsets that field of theirs. */
static void remove_matching(struct gnmi_lldp *g, char *p, char *d, int f)
{
	for (size_t i = g->n; i-- > 0;) {
		struct nb *e = &g->nb[i];
		if ((p && strcmp(e->port, p) != 0) ||
		    (d && strcmp(e->id, d) != 0))
			continue;
		if (f < 0) {
			remove_at(g, i);
			continue;
		}
		set_text(f == F_SYSNAME ? &e->sysname : &e->port_id, NULL, 0);
		mark_dirty(g, e->port);
	}
	free(p);
	free(d);
}

/* A delete under LLDP_ENTRY_TABLE: the table, a port's entry, or one
 * of its fields (a deleted name or port id leaves it incomplete). */
static bool sonic_delete(struct gnmi_lldp *g, const struct gnmi_view *v)
{
	if (v->n > 3)
		return true;
	int f = v->n == 3 ? sonic_field(v) : -1;
	if (v->n == 3 && f != F_SYSNAME && f != F_PORT_ID)
		return true;
	char *p =
	    v->n >= 2 ? text_dup(v->elem[1].name, v->elem[1].name_len) : NULL;
	remove_matching(g, p, NULL, f);
	return true;
}

bool gnmi_lldp_delete(struct gnmi_lldp *g, const struct gnmi_view *v)
{
	if (elem_is(v, 0, SONIC_TABLE))
		return sonic_delete(g, v);
	if (!elem_is(v, 0, "lldp"))
		return false;
	size_t n = v->n < 7 ? v->n : 7;
	if (!neighbor_shape(v, n))
		return true;
	/* The scope: a port (or all), a neighbour (or all of the port). */
	const char *port = NULL, *id = NULL;
	size_t plen = 0, ilen = 0;
	if (n >= 3 && !key_of(v, 2, "name", &port, &plen))
		port = NULL;
	if (n >= 5 && !key_of(v, 4, "id", &id, &ilen))
		id = NULL;
	int f = n == 7 ? state_field(v) : -1;
	if (n == 7 && f != F_SYSNAME && f != F_PORT_ID)
		return true; /* a description or type: nothing to undo */
	remove_matching(g, port ? text_dup(port, plen) : NULL,
			id ? text_dup(id, ilen) : NULL, f);
	return true;
}

static ssize_t rep_index(const struct gnmi_lldp *g, const char *port)
{
	for (size_t i = 0; i < g->n_rep; i++)
		if (strcmp(g->rep[i], port) == 0)
			return (ssize_t)i;
	return -1;
}

/* Reports the first complete neighbour of port, or forgets the port. */
static void report_port(struct gnmi_lldp *g, const char *port)
{
	const struct nb *best = NULL;
	for (size_t i = 0; i < g->n && !best; i++) {
		const struct nb *e = &g->nb[i];
		if (strcmp(e->port, port) == 0 && e->sysname && e->port_id)
			best = e;
	}
	ssize_t r = rep_index(g, port);
	if (best && links_report_lldp(
			g->links, g->device, port, best->sysname, best->port_id,
			best->subtype ? best->subtype : LINKS_LLDP_PORT_LOCAL,
			best->desc, g->source, 0) == 0) {
		if (r < 0) {
			if (g->n_rep == g->cap_rep) {
				g->cap_rep = g->cap_rep ? 2 * g->cap_rep : 16;
				g->rep = xreallocarray(g->rep, g->cap_rep,
						       sizeof *g->rep);
			}
			g->rep[g->n_rep++] = xstrdup(port);
		}
		return;
	}
	if (r >= 0) {
		links_forget_lldp(g->links, g->device, port);
		free(g->rep[r]);
		g->rep[r] = g->rep[--g->n_rep];
	}
}

void gnmi_lldp_flush(struct gnmi_lldp *g, int64_t now_ns)
{
	if (!g->last_full || now_ns - g->last_full >= GNMI_LLDP_REFRESH_NS) {
		g->last_full = now_ns ? now_ns : 1;
		for (size_t i = 0; i < g->n; i++)
			mark_dirty(g, g->nb[i].port);
		for (size_t i = 0; i < g->n_rep; i++)
			mark_dirty(g, g->rep[i]);
	}
	for (size_t i = 0; i < g->n_dirty; i++) {
		if (g->links)
			report_port(g, g->dirty[i]);
		free(g->dirty[i]);
	}
	g->n_dirty = 0;
}

void gnmi_lldp_begin_sync(struct gnmi_lldp *g)
{
	g->epoch++;
}

void gnmi_lldp_sync(struct gnmi_lldp *g)
{
	for (size_t i = g->n; i-- > 0;)
		if (g->nb[i].epoch != g->epoch)
			remove_at(g, i);
	g->epoch++;
}

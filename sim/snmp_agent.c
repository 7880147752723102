/*
 * sim_snmp: fabsim's embedded SNMP agent (see snmp_agent.h and
 * doc/fabsim-snmp.md).
 *
 * Shape. net-snmp's agent library (libnetsnmpagent) does the protocol:
 * BER, v2c community and v3 USM, VACM, GETBULK. We add one agent session
 * per switch on its own UDP socket, with the switch in the session's
 * myvoid, so that a handler knows which switch a request is for from
 * reqinfo->asp->session (no address parsing; works for IPv4 and IPv6).
 * A few raw MIB handlers, one per MIB subtree, answer GET and GETNEXT
 * (GETBULK reaches them as GETNEXT passes) by computing the next
 * (column, row) over the switch's sorted index tuples and reading the
 * value from the model at once: nothing is registered per object, so
 * 1,000 switches cost seven registrations. Each table lists its columns
 * (number, ASN.1 type, and where the value comes from: a constant, a
 * port counter by offset, a PFC counter, or a getter), and set_value()
 * encodes any cell from that row of the list.
 *
 * A subtree served only by some flavours (CISCO-PFC-EXT-MIB on SONiC,
 * ARISTA-PFC-MIB on Arista) answers nothing for the others: GETNEXT
 * leaves the varbind alone and the agent moves on to the next
 * registration, GET says noSuchObject, as a device without that MIB.
 *
 * Isolation. The library is told to read no configuration files, load
 * no MIBs, persist nothing and keep its directories in state_dir; SMUX
 * and embedded Perl are not initialised, no AgentX master is started,
 * and the sessions are added without the TCP-wrappers pre-parse hook
 * (which opens /etc/hosts.allow for every request). Configuration
 * (community, USM user, engineID) is given as strings.
 *
 * Faults. A silent switch's session is closed and a plain socket bound
 * to its port reads and drops what comes; a refusing one has no socket,
 * so the kernel answers port unreachable; OK opens the session again on
 * the same port.
 *
 * Threads. net-snmp is built non-reentrant and keeps global state: one
 * agent per process, every call from the model's thread.
 *
 * This file answers the MIB; snmp_agent_serve.c holds the options, the
 * library's setup, the sessions, the poll loop and the lifecycle (shared
 * declarations: snmp_agent_int.h).
 */
#include "config.h"

#include "snmp_agent_int.h"

#include "mem.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TICKS_PER_S 100 /* TimeTicks are 1/100 s */

/* How each table's rows are made. */
enum rows_kind {
	ROWS_SCALAR,	/* one row, index .0 */
	ROWS_PORT,	/* ifIndex, ports in ifIndex order */
	ROWS_PORT_PRIO, /* ifIndex.prio (0..7) */
	ROWS_LLDP_REM,	/* timeMark(0).localPortNum(ifIndex).remIndex(1),
			   cabled ports with link up */
};

#define FLAV_ALL    0xf
#define FLAV(f)	    (1u << (f))
#define TAB_OID_MAX 32

/*
 * A row as the getters see it: the switch, the row's number and port
 * (NULL for scalars), the port's counters (NULL unless the table reads
 * the model), and the node and port its cells describe: the switch and
 * that port, or for lldpRemTable the neighbour at the cable's other end.
 */
struct row {
	struct sim_snmp *s;
	struct sw *w;
	size_t index;
	struct sw_port *sp;
	const struct sim_model_switch_port *c;
	const struct sim_node *node;
	const struct sim_port *port;
};

/* A cell's value: a number, or bytes (an octet string, an OID). */
struct cell {
	uint64_t n;
	const void *p;
	size_t len;
	char buf[128]; /* text made for this cell */
};

typedef void (*cell_fn)(const struct row *r, struct cell *v);

/* Where a column's value comes from. */
enum cell_src {
	CELL_CONST,   /* the number arg */
	CELL_COUNTER, /* the port counter at offset arg */
	CELL_PFC,     /* the counter at offset arg of a priority's (prio) */
	CELL_FN,      /* get() */
};

#define PRIO_ROW (-1) /* CELL_PFC: the row's priority */
#define PRIO_SUM (-2) /* CELL_PFC: the sum over all priorities */

/* One accessible column of a table: its number, type and value. Kept
 * to 16 bytes: GETNEXT scans a table's columns for every varbind. */
struct column {
	unsigned char col;
	u_char type;	   /* ASN_*: how the value is encoded */
	unsigned char src; /* enum cell_src */
	signed char prio;  /* CELL_PFC: a priority, PRIO_ROW or PRIO_SUM */
	unsigned arg;	   /* CELL_CONST: the value; else an offset */
	cell_fn get;	   /* CELL_FN */
};

struct table {
	oid base[TAB_OID_MAX]; /* the entry (columns follow) */
	size_t base_len;
	const struct column *cols; /* accessible columns, ascending */
	size_t n_cols;
	enum rows_kind rows;
	bool model;	   /* its cells read the port's counters */
	unsigned flavours; /* FLAV() bits of the switches serving it */
};

/* One registration: a subtree and its tables in OID order. */
struct subtree {
	const char *name;
	oid root[TAB_OID_MAX];
	size_t root_len;
	const struct table *tables;
	size_t n_tables;
};

/* ---- Index numbering ---- */

static bool parse_uint(const char **p, unsigned long *v)
{
	char *end;
	if (**p < '0' || **p > '9')
		return false;
	errno = 0;
	*v = strtoul(*p, &end, 10);
	if (errno || *v > 100000)
		return false;
	*p = end;
	return true;
}

/*
 * ifIndex as the flavour numbers it: SONiC EthernetN is N + 1, Arista
 * EthernetN/M is N * 1000 + M and EthernetN is N, eth N is N. 0 if the
 * name does not have the flavour's form.
 */
static uint32_t flavour_ifindex(enum sim_flavour f, const char *name)
{
	unsigned long a, b;
	const char *p = name;
	switch (f) {
	case SIM_FLAVOUR_SONIC:
		if (strncmp(p, "Ethernet", 8) != 0)
			return 0;
		p += 8;
		if (!parse_uint(&p, &a) || *p)
			return 0;
		return (uint32_t)a + 1;
	case SIM_FLAVOUR_ARISTA:
		if (strncmp(p, "Ethernet", 8) != 0)
			return 0;
		p += 8;
		if (!parse_uint(&p, &a) || a == 0)
			return 0;
		if (!*p)
			return (uint32_t)a;
		if (*p++ != '/' || !parse_uint(&p, &b) || *p || b == 0 ||
		    b > 999)
			return 0;
		return (uint32_t)(a * 1000 + b);
	case SIM_FLAVOUR_OPENCONFIG:
		if (strncmp(p, "eth", 3) != 0)
			return 0;
		p += 3;
		if (!parse_uint(&p, &a) || *p || a == 0)
			return 0;
		return (uint32_t)a;
	default:
		return 0;
	}
}

static int cmp_sw_port(const void *a, const void *b)
{
	const struct sw_port *x = a, *y = b;
	return x->ifindex < y->ifindex ? -1 : x->ifindex > y->ifindex;
}

/* Numbers n's ports; front-panel position + 1 if the names do not give
 * unique indexes. */
void snmp_agent_number_ports(struct sw *w)
{
	const struct sim_node *n = w->node;
	w->n_ports = n->n_ports;
	w->ports = xcalloc(n->n_ports ? n->n_ports : 1, sizeof *w->ports);
	bool ok = true;
	for (size_t i = 0; i < n->n_ports; i++) {
		w->ports[i].port = &n->ports[i];
		w->ports[i].ifindex =
		    flavour_ifindex(n->flavour, n->ports[i].name);
		if (!w->ports[i].ifindex)
			ok = false;
	}
	qsort(w->ports, w->n_ports, sizeof *w->ports, cmp_sw_port);
	for (size_t i = 1; ok && i < w->n_ports; i++)
		if (w->ports[i].ifindex == w->ports[i - 1].ifindex)
			ok = false;
	if (ok)
		return;
	for (size_t i = 0; i < n->n_ports; i++) {
		w->ports[i].port = &n->ports[i];
		w->ports[i].ifindex = (uint32_t)i + 1;
	}
}

/* ---- Rows ---- */

static size_t n_rows(const struct table *tb, const struct sw *w)
{
	switch (tb->rows) {
	case ROWS_SCALAR:
		return 1;
	case ROWS_PORT:
	case ROWS_LLDP_REM:
		return w->n_ports;
	case ROWS_PORT_PRIO:
		return w->n_ports * SIM_MODEL_PRIOS;
	}
	return 0;
}

static size_t idx_len(const struct table *tb)
{
	switch (tb->rows) {
	case ROWS_SCALAR:
	case ROWS_PORT:
		return 1;
	case ROWS_PORT_PRIO:
		return 2;
	case ROWS_LLDP_REM:
		return 3;
	}
	return 0;
}

/* The index of row r; returns its length. */
static size_t row_index(const struct table *tb, const struct sw *w, size_t r,
			oid *idx)
{
	switch (tb->rows) {
	case ROWS_SCALAR:
		idx[0] = 0;
		return 1;
	case ROWS_PORT:
		idx[0] = w->ports[r].ifindex;
		return 1;
	case ROWS_PORT_PRIO:
		idx[0] = w->ports[r / SIM_MODEL_PRIOS].ifindex;
		idx[1] = r % SIM_MODEL_PRIOS;
		return 2;
	case ROWS_LLDP_REM:
		idx[0] = 0;
		idx[1] = w->ports[r].ifindex;
		idx[2] = 1;
		return 3;
	}
	return 0;
}

/* The sw_port a row describes (NULL for scalars). */
static struct sw_port *row_port(const struct table *tb, struct sw *w, size_t r)
{
	switch (tb->rows) {
	case ROWS_SCALAR:
		return NULL;
	case ROWS_PORT:
	case ROWS_LLDP_REM:
		return &w->ports[r];
	case ROWS_PORT_PRIO:
		return &w->ports[r / SIM_MODEL_PRIOS];
	}
	return NULL;
}

static bool row_exists(const struct table *tb, struct sw *w, size_t r)
{
	if (tb->rows != ROWS_LLDP_REM)
		return true;
	const struct sim_port *p = w->ports[r].port;
	return p->peer && sim_model_link_up(w->s->m, p->id) &&
	       sim_visibility_lldp_names(w->s->vis, p->peer->node);
}

/* Lexicographic OID comparison; a proper prefix sorts first. */
static int cmp_oids(const oid *a, size_t al, const oid *b, size_t bl)
{
	size_t n = al < bl ? al : bl;
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return al < bl ? -1 : al > bl;
}

/* The first row whose index compares > suffix (>= if inclusive). */
static size_t lower_row(const struct table *tb, const struct sw *w,
			const oid *suf, size_t sl, bool inclusive)
{
	size_t lo = 0, hi = n_rows(tb, w);
	oid idx[4];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		size_t il = row_index(tb, w, mid, idx);
		int c = cmp_oids(idx, il, suf, sl);
		if (c > 0 || (c == 0 && inclusive))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* Finds the first existing row at or after r; false if none. */
static bool skip_missing(const struct table *tb, struct sw *w, size_t *r)
{
	size_t n = n_rows(tb, w);
	while (*r < n && !row_exists(tb, w, *r))
		(*r)++;
	return *r < n;
}

/* The first column numbered c or more (n_cols if none). */
static size_t lower_col(const struct table *tb, oid c)
{
	size_t lo = 0, hi = tb->n_cols;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (tb->cols[mid].col < c)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * GETNEXT within one table: the first (column, row) whose OID is after
 * q (or equal, if inclusive). false if q is at or past the table's end.
 */
static bool table_next(const struct table *tb, struct sw *w, const oid *q,
		       size_t ql, bool inclusive, size_t *ci, size_t *row)
{
	size_t bl = tb->base_len, n = ql < bl ? ql : bl;
	int c = 0;
	for (size_t i = 0; i < n && !c; i++)
		if (q[i] != tb->base[i])
			c = q[i] < tb->base[i] ? -1 : 1;
	if (c > 0)
		return false;
	size_t col = 0, r = 0;
	if (c == 0 && ql > bl) {
		oid qc = q[bl];
		col = lower_col(tb, qc);
		if (col == tb->n_cols)
			return false;
		if (tb->cols[col].col == qc)
			r = lower_row(tb, w, q + bl + 1, ql - bl - 1,
				      inclusive);
	}
	for (; col < tb->n_cols; col++, r = 0) {
		if (skip_missing(tb, w, &r)) {
			*ci = col;
			*row = r;
			return true;
		}
	}
	return false;
}

/* GET within one table. 1: found; 0: no such instance of a column of
 * this table; -1: not this table's column. */
static int table_get(const struct table *tb, struct sw *w, const oid *q,
		     size_t ql, size_t *ci, size_t *row)
{
	size_t bl = tb->base_len;
	if (ql <= bl || memcmp(q, tb->base, bl * sizeof(oid)) != 0)
		return -1;
	size_t col = lower_col(tb, q[bl]);
	if (col == tb->n_cols || tb->cols[col].col != q[bl])
		return -1;
	const oid *suf = q + bl + 1;
	size_t sl = ql - bl - 1;
	if (sl != idx_len(tb))
		return 0;
	size_t r = lower_row(tb, w, suf, sl, true);
	oid idx[4];
	if (r >= n_rows(tb, w))
		return 0;
	size_t il = row_index(tb, w, r, idx);
	if (cmp_oids(idx, il, suf, sl) != 0 || !row_exists(tb, w, r))
		return 0;
	*ci = col;
	*row = r;
	return 1;
}

/* ---- Values ---- */

static uint32_t uptime_ticks(struct sim_snmp *s, const struct sw *w,
			     uint64_t at_ns)
{
	uint64_t boot = sim_model_boot_ns(s->m, w->node->id);
	if (at_ns <= boot)
		return 0;
	return (uint32_t)((at_ns - boot) / (1000000000ull / TICKS_PER_S));
}

static const struct sim_model_switch_port *read_port(struct sim_snmp *s,
						     struct sw_port *sp)
{
	size_t id = sp->port->id;
	if (s->cache_gen != s->gen || s->cache_port != id) {
		if (sim_model_read_switch_port(s->m, id, &s->cache) != 0)
			memset(&s->cache, 0, sizeof s->cache);
		s->cache_gen = s->gen;
		s->cache_port = id;
		/* ifLastChange: note when a link event first shows. */
		uint64_t ev =
		    s->cache.link_up_events + s->cache.link_down_events;
		if (ev != sp->link_events) {
			sp->link_events = ev;
			sp->change_ns = sim_model_now_ns(s->m);
		}
	}
	return &s->cache;
}

static void cell_bytes(struct cell *v, const void *p, size_t len)
{
	v->p = p;
	v->len = len;
}

static void cell_text(struct cell *v, const char *s)
{
	cell_bytes(v, s ? s : "", s ? strlen(s) : 0);
}

/* sysObjectID per flavour: the vendor's enterprise subtree. */
static const oid sonic_objid[] = { 1, 3, 6, 1, 4, 1, 8072, 3, 2, 10 };
static const oid arista_objid[] = { 1,	   3, 6,    1,	  4,	1,
				    30065, 1, 3011, 7060, 3282, 64 };
static const oid openconfig_objid[] = { 1, 3, 6, 1, 4, 1, 8072, 3, 2, 10 };

/* LldpSystemCapabilitiesMap: bridge(2) and router(4), or a station. */
static const uint8_t caps_switch[2] = { 0x28, 0x00 };
static const uint8_t caps_station[2] = { 0x01, 0x00 };

static void get_sys_desc(const struct row *r, struct cell *v)
{
	cell_text(v, r->node->sys_desc);
}

static void get_sys_name(const struct row *r, struct cell *v)
{
	cell_text(v, r->node->name);
}

static void get_sys_objid(const struct row *r, struct cell *v)
{
	if (r->node->flavour == SIM_FLAVOUR_SONIC)
		cell_bytes(v, sonic_objid, sizeof sonic_objid);
	else if (r->node->flavour == SIM_FLAVOUR_ARISTA)
		cell_bytes(v, arista_objid, sizeof arista_objid);
	else
		cell_bytes(v, openconfig_objid, sizeof openconfig_objid);
}

static void get_sys_uptime(const struct row *r, struct cell *v)
{
	v->n = uptime_ticks(r->s, r->w, sim_model_now_ns(r->s->m));
}

static void get_sys_contact(const struct row *r, struct cell *v)
{
	(void)r;
	cell_text(v, "fabsim <fabmon>");
}

static void get_sys_location(const struct row *r, struct cell *v)
{
	const struct sim_node *n = r->node;
	const char *kind = sim_topo_kind_name(n->kind);
	if (n->rail >= 0)
		snprintf(v->buf, sizeof v->buf, "fabsim %s, pod %d, rail %d",
			 kind, n->pod, n->rail);
	else if (n->pod >= 0)
		snprintf(v->buf, sizeof v->buf, "fabsim %s, pod %d", kind,
			 n->pod);
	else
		snprintf(v->buf, sizeof v->buf, "fabsim %s", kind);
	cell_text(v, v->buf);
}

static void get_chassis_mac(const struct row *r, struct cell *v)
{
	cell_bytes(v, r->node->chassis_mac, 6);
}

static void get_caps(const struct row *r, struct cell *v)
{
	cell_bytes(
	    v, r->node->kind == SIM_NODE_HOST ? caps_station : caps_switch, 2);
}

static void get_if_number(const struct row *r, struct cell *v)
{
	v->n = r->w->n_ports;
}

static void get_ifindex(const struct row *r, struct cell *v)
{
	v->n = r->sp->ifindex;
}

static void get_port_name(const struct row *r, struct cell *v)
{
	cell_text(v, r->port->name);
}

static void get_port_desc(const struct row *r, struct cell *v)
{
	cell_text(v, r->port->port_desc);
}

static void get_port_mac(const struct row *r, struct cell *v)
{
	cell_bytes(v, r->port->mac, 6);
}

static void get_mtu(const struct row *r, struct cell *v)
{
	switch (r->node->flavour) {
	case SIM_FLAVOUR_SONIC:
		v->n = 9100;
		break;
	case SIM_FLAVOUR_ARISTA:
		v->n = 9214;
		break;
	default:
		v->n = 9216;
		break;
	}
}

/* ifSpeed in b/s, stuck at its maximum past 4.29 Gb/s. */
static void get_speed(const struct row *r, struct cell *v)
{
	uint64_t bps = (uint64_t)r->port->speed * 1000000000ull;
	v->n = bps > 0xffffffffull ? 0xffffffffull : bps;
}

/* ifHighSpeed in Mb/s. */
static void get_high_speed(const struct row *r, struct cell *v)
{
	v->n = (uint64_t)r->port->speed * 1000;
}

/* ifOperStatus: up(1) / down(2). */
static void get_oper_status(const struct row *r, struct cell *v)
{
	v->n = r->c->link_up ? 1 : 2;
}

static void get_last_change(const struct row *r, struct cell *v)
{
	v->n = uptime_ticks(r->s, r->w, r->sp->change_ns);
}

static void get_port_id_subtype(const struct row *r, struct cell *v)
{
	v->n = r->port->port_id_subtype;
}

static void get_port_id(const struct row *r, struct cell *v)
{
	if (r->port->port_id_subtype == SIM_LLDP_PORT_MAC)
		cell_bytes(v, r->port->mac, 6);
	else
		cell_text(v, r->port->port_id);
}

static uint64_t pfc_frames(const struct row *r, const struct column *cd)
{
	const struct sim_model_switch_prio *pr = r->c->prio;
	uint64_t sum = 0, x;
	if (cd->prio != PRIO_SUM) {
		size_t p = cd->prio == PRIO_ROW ? r->index % SIM_MODEL_PRIOS
						: (size_t)cd->prio;
		memcpy(&x, (const char *)&pr[p] + cd->arg, sizeof x);
		return x;
	}
	for (size_t p = 0; p < SIM_MODEL_PRIOS; p++) {
		memcpy(&x, (const char *)&pr[p] + cd->arg, sizeof x);
		sum += x;
	}
	return sum;
}

#define COL_K(c, t, k)                                                 \
	{                                                              \
		.col = (c), .type = (t), .src = CELL_CONST, .arg = (k) \
	}
#define COL_CTR(c, t, f)                                         \
	{                                                        \
		.col = (c), .type = (t), .src = CELL_COUNTER,    \
		.arg = offsetof(struct sim_model_switch_port, f) \
	}
#define COL_PFC(c, t, f, p)                                                   \
	{                                                                     \
		.col = (c), .type = (t), .src = CELL_PFC,                     \
		.arg = offsetof(struct sim_model_switch_prio, f), .prio = (p) \
	}
#define COL_FN(c, t, fn)                                             \
	{                                                            \
		.col = (c), .type = (t), .src = CELL_FN, .get = (fn) \
	}

/* Each table's accessible columns, ascending. */
static const struct column system_cols[] = {
	COL_FN(1, ASN_OCTET_STR, get_sys_desc),
	COL_FN(2, ASN_OBJECT_ID, get_sys_objid),
	COL_FN(3, ASN_TIMETICKS, get_sys_uptime),
	COL_FN(4, ASN_OCTET_STR, get_sys_contact),
	COL_FN(5, ASN_OCTET_STR, get_sys_name),
	COL_FN(6, ASN_OCTET_STR, get_sys_location),
	COL_K(7, ASN_INTEGER, 6), /* sysServices: datalink and network */
};
static const struct column ifnumber_cols[] = {
	COL_FN(1, ASN_INTEGER, get_if_number),
};
static const struct column iftable_cols[] = {
	COL_FN(1, ASN_INTEGER, get_ifindex),
	COL_FN(2, ASN_OCTET_STR, get_port_name),
	COL_K(3, ASN_INTEGER, 6), /* ethernetCsmacd */
	COL_FN(4, ASN_INTEGER, get_mtu),
	COL_FN(5, ASN_GAUGE, get_speed),
	COL_FN(6, ASN_OCTET_STR, get_port_mac),
	COL_K(7, ASN_INTEGER, 1), /* admin up */
	COL_FN(8, ASN_INTEGER, get_oper_status),
	COL_FN(9, ASN_TIMETICKS, get_last_change),
	COL_CTR(10, ASN_COUNTER, in_octets),
	COL_CTR(11, ASN_COUNTER, in_packets),
	COL_CTR(13, ASN_COUNTER, in_discards),
	COL_CTR(14, ASN_COUNTER, in_errors), /* bad FCS (background) */
	COL_K(15, ASN_COUNTER, 0),
	COL_CTR(16, ASN_COUNTER, out_octets),
	COL_CTR(17, ASN_COUNTER, out_packets),
	COL_CTR(19, ASN_COUNTER, out_discards),
	COL_K(20, ASN_COUNTER, 0),
};
static const struct column ifxtable_cols[] = {
	COL_FN(1, ASN_OCTET_STR, get_port_name),
	COL_K(2, ASN_COUNTER, 0), /* multicast and broadcast: RoCE is unicast */
	COL_K(3, ASN_COUNTER, 0),
	COL_K(4, ASN_COUNTER, 0),
	COL_K(5, ASN_COUNTER, 0),
	COL_CTR(6, ASN_COUNTER64, in_octets),
	COL_CTR(7, ASN_COUNTER64, in_packets),
	COL_K(8, ASN_COUNTER64, 0),
	COL_K(9, ASN_COUNTER64, 0),
	COL_CTR(10, ASN_COUNTER64, out_octets),
	COL_CTR(11, ASN_COUNTER64, out_packets),
	COL_K(12, ASN_COUNTER64, 0),
	COL_K(13, ASN_COUNTER64, 0),
	COL_K(14, ASN_INTEGER, 1), /* ifLinkUpDownTrapEnable: enabled */
	COL_FN(15, ASN_GAUGE, get_high_speed),
	COL_K(16, ASN_INTEGER, 2), /* ifPromiscuousMode: false */
	COL_K(17, ASN_INTEGER, 1), /* ifConnectorPresent: true */
	COL_FN(18, ASN_OCTET_STR, get_port_desc),
	/* The only discontinuity is the switch's boot, at sysUpTime 0. */
	COL_K(19, ASN_TIMETICKS, 0),
};
/* SONiC's agent serves the per-interface counters from priority 3 only. */
static const struct column cpfc_if_cols[] = {
	COL_PFC(1, ASN_COUNTER64, pfc_tx_frames, 3),
	COL_PFC(2, ASN_COUNTER64, pfc_rx_frames, 3),
};
static const struct column cpfc_prio_cols[] = {
	COL_PFC(2, ASN_COUNTER64, pfc_tx_frames, PRIO_ROW),
	COL_PFC(3, ASN_COUNTER64, pfc_rx_frames, PRIO_ROW),
};
static const struct column arista_pfc_cols[] = {
	COL_PFC(3, ASN_COUNTER64, pfc_tx_frames, PRIO_ROW),
	COL_PFC(4, ASN_COUNTER64, pfc_rx_frames, PRIO_ROW),
};
static const struct column ieee_pfc_cols[] = {
	COL_PFC(2, ASN_COUNTER, pfc_tx_frames, PRIO_SUM),
	COL_PFC(3, ASN_COUNTER, pfc_rx_frames, PRIO_SUM),
};
static const struct column lldp_loc_cols[] = {
	COL_K(1, ASN_INTEGER, SIM_LLDP_CHASSIS_MAC),
	COL_FN(2, ASN_OCTET_STR, get_chassis_mac),
	COL_FN(3, ASN_OCTET_STR, get_sys_name),
	COL_FN(4, ASN_OCTET_STR, get_sys_desc),
	COL_FN(5, ASN_OCTET_STR, get_caps),
	COL_FN(6, ASN_OCTET_STR, get_caps),
};
static const struct column lldp_locport_cols[] = {
	COL_FN(2, ASN_INTEGER, get_port_id_subtype),
	COL_FN(3, ASN_OCTET_STR, get_port_id),
	COL_FN(4, ASN_OCTET_STR, get_port_desc),
};
/* The same getters, on the neighbour (see struct row). */
static const struct column lldp_rem_cols[] = {
	COL_K(4, ASN_INTEGER, SIM_LLDP_CHASSIS_MAC),
	COL_FN(5, ASN_OCTET_STR, get_chassis_mac),
	COL_FN(6, ASN_INTEGER, get_port_id_subtype),
	COL_FN(7, ASN_OCTET_STR, get_port_id),
	COL_FN(8, ASN_OCTET_STR, get_port_desc),
	COL_FN(9, ASN_OCTET_STR, get_sys_name),
	COL_FN(10, ASN_OCTET_STR, get_sys_desc),
	COL_FN(11, ASN_OCTET_STR, get_caps),
	COL_FN(12, ASN_OCTET_STR, get_caps),
};

#define TABLE(cols_, rows_, model_, flav, ...)                            \
	{                                                                 \
		.base = { __VA_ARGS__ },                                  \
		.base_len = sizeof((oid[]){ __VA_ARGS__ }) / sizeof(oid), \
		.cols = (cols_), .n_cols = N(cols_), .rows = (rows_),     \
		.model = (model_), .flavours = (flav)                     \
	}

static const struct table system_tables[] = {
	TABLE(system_cols, ROWS_SCALAR, false, FLAV_ALL, 1, 3, 6, 1, 2, 1, 1),
};
static const struct table if_tables[] = {
	TABLE(ifnumber_cols, ROWS_SCALAR, false, FLAV_ALL, 1, 3, 6, 1, 2, 1, 2),
	TABLE(iftable_cols, ROWS_PORT, true, FLAV_ALL, 1, 3, 6, 1, 2, 1, 2, 2,
	      1),
};
static const struct table ifx_tables[] = {
	TABLE(ifxtable_cols, ROWS_PORT, true, FLAV_ALL, 1, 3, 6, 1, 2, 1, 31, 1,
	      1, 1),
};
static const struct table cpfc_tables[] = {
	TABLE(cpfc_if_cols, ROWS_PORT, true, FLAV(SIM_FLAVOUR_SONIC), 1, 3, 6,
	      1, 4, 1, 9, 9, 813, 1, 1, 1),
	TABLE(cpfc_prio_cols, ROWS_PORT_PRIO, true, FLAV(SIM_FLAVOUR_SONIC), 1,
	      3, 6, 1, 4, 1, 9, 9, 813, 1, 2, 1),
};
static const struct table arista_tables[] = {
	TABLE(arista_pfc_cols, ROWS_PORT_PRIO, true, FLAV(SIM_FLAVOUR_ARISTA),
	      1, 3, 6, 1, 4, 1, 30065, 3, 11, 1, 1, 1),
};
static const struct table ieee_tables[] = {
	TABLE(ieee_pfc_cols, ROWS_PORT, true, FLAV_ALL, 1, 3, 111, 2, 802, 1, 1,
	      21, 1, 1, 1),
};
static const struct table lldp_tables[] = {
	TABLE(lldp_loc_cols, ROWS_SCALAR, false, FLAV_ALL, 1, 0, 8802, 1, 1, 2,
	      1, 3),
	TABLE(lldp_locport_cols, ROWS_PORT, false, FLAV_ALL, 1, 0, 8802, 1, 1,
	      2, 1, 3, 7, 1),
	TABLE(lldp_rem_cols, ROWS_LLDP_REM, false, FLAV_ALL, 1, 0, 8802, 1, 1,
	      2, 1, 4, 1, 1),
};

#define SUBTREE(name_, tables_, ...)                                      \
	{                                                                 \
		.name = (name_), .root = { __VA_ARGS__ },                 \
		.root_len = sizeof((oid[]){ __VA_ARGS__ }) / sizeof(oid), \
		.tables = (tables_), .n_tables = N(tables_)               \
	}

static const struct subtree subtrees[] = {
	SUBTREE("fabsim-lldp", lldp_tables, 1, 0, 8802, 1, 1, 2, 1),
	SUBTREE("fabsim-system", system_tables, 1, 3, 6, 1, 2, 1, 1),
	SUBTREE("fabsim-interfaces", if_tables, 1, 3, 6, 1, 2, 1, 2),
	SUBTREE("fabsim-ifx", ifx_tables, 1, 3, 6, 1, 2, 1, 31, 1, 1, 1),
	SUBTREE("fabsim-cpfc", cpfc_tables, 1, 3, 6, 1, 4, 1, 9, 9, 813),
	SUBTREE("fabsim-arista-pfc", arista_tables, 1, 3, 6, 1, 4, 1, 30065, 3,
		11),
	SUBTREE("fabsim-ieee-pfc", ieee_tables, 1, 3, 111, 2, 802, 1, 1, 21),
};
_Static_assert(N(subtrees) == N_SUBTREES, "N_SUBTREES counts subtrees");

/*
 * The wrong_types fault on ifXTable: the HC counters (columns 6 to 13)
 * as Counter32 (the low bits: even columns, ifHCInOctets first) or as
 * an OCTET STRING of the decimal value (odd columns, ifHCInUcastPkts
 * first), and ifHighSpeed (15) as an OCTET STRING too, as broken agents
 * answer. The type the value goes out as; v's text is made here.
 */
static u_char wrong_type(const struct column *cd, struct cell *v)
{
	bool text;
	if (cd->type == ASN_COUNTER64)
		text = cd->col % 2 == 1;
	else if (cd->col == 15)
		text = true;
	else
		return cd->type;
	if (!text)
		return ASN_COUNTER;
	int n =
	    snprintf(v->buf, sizeof v->buf, "%llu", (unsigned long long)v->n);
	v->p = v->buf;
	v->len = n > 0 ? (size_t)n : 0;
	return ASN_OCTET_STR;
}

/* The one value handler: column ci of row row of tb, into vb. */
static void set_value(struct sim_snmp *s, struct sw *w, const struct table *tb,
		      size_t ci, size_t row, netsnmp_variable_list *vb)
{
	const struct column *cd = &tb->cols[ci];
	struct row r = { .s = s, .w = w, .index = row, .node = w->node };
	struct cell v;
	v.n = 0;
	v.p = NULL;
	v.len = 0;
	r.sp = row_port(tb, w, row);
	if (r.sp) {
		r.port = r.sp->port;
		/* Every read of a port's row notes its ifLastChange. */
		if (tb->model)
			r.c = read_port(s, r.sp);
		if (tb->rows == ROWS_LLDP_REM) {
			r.port = r.port->peer;
			r.node = r.port->node;
		}
	}
	switch (cd->src) {
	case CELL_CONST:
		v.n = cd->arg;
		break;
	case CELL_COUNTER:
		memcpy(&v.n, (const char *)r.c + cd->arg, sizeof v.n);
		break;
	case CELL_PFC:
		v.n = pfc_frames(&r, cd);
		break;
	case CELL_FN:
		cd->get(&r, &v);
		break;
	}
	u_char type = cd->type;
	if (w->fault == SIM_SCENARIO_TARGET_WRONG_TYPES && tb == ifx_tables)
		type = wrong_type(cd, &v);
	switch (type) {
	case ASN_OCTET_STR:
	case ASN_OBJECT_ID:
		snmp_set_var_typed_value(vb, type, v.p, v.len);
		break;
	case ASN_COUNTER64: {
		struct counter64 c = { .high = (u_long)(v.n >> 32),
				       .low = (u_long)(v.n & 0xffffffffu) };
		snmp_set_var_typed_value(vb, ASN_COUNTER64, &c, sizeof c);
		break;
	}
	default: {
		/* INTEGER, Gauge32, TimeTicks; Counter32 keeps the low bits. */
		long l = (long)(type == ASN_COUNTER ? v.n & 0xffffffffu : v.n);
		snmp_set_var_typed_value(vb, type, &l, sizeof l);
		break;
	}
	}
}

/* ---- The handler ---- */

static bool serves(const struct table *tb, const struct sw *w)
{
	/* A switch marked no-LLDP exports no LLDP-MIB. */
	if (tb >= lldp_tables && tb < lldp_tables + N(lldp_tables) &&
	    (sim_visibility_flags(w->s->vis, w->node->id) & SIM_VIS_NO_LLDP))
		return false;
	return (tb->flavours & FLAV(w->node->flavour)) != 0;
}

static void answer_next(struct sw *w, const struct subtree *st,
			netsnmp_request_info *req)
{
	netsnmp_variable_list *vb = req->requestvb;
	for (size_t i = 0; i < st->n_tables; i++) {
		const struct table *tb = &st->tables[i];
		size_t ci, row;
		if (!serves(tb, w) ||
		    !table_next(tb, w, vb->name, vb->name_length,
				req->inclusive != 0, &ci, &row))
			continue;
		oid name[TAB_OID_MAX + 4];
		size_t bl = tb->base_len;
		memcpy(name, tb->base, bl * sizeof(oid));
		name[bl] = tb->cols[ci].col;
		size_t il = row_index(tb, w, row, name + bl + 1);
		snmp_set_var_objid(vb, name, bl + 1 + il);
		set_value(w->s, w, tb, ci, row, vb);
		return;
	}
	/* Past our end: left alone, the agent tries the next subtree. */
}

static void answer_get(struct sw *w, const struct subtree *st,
		       netsnmp_agent_request_info *reqinfo,
		       netsnmp_request_info *req)
{
	netsnmp_variable_list *vb = req->requestvb;
	int err = SNMP_NOSUCHOBJECT;
	for (size_t i = 0; i < st->n_tables; i++) {
		const struct table *tb = &st->tables[i];
		size_t ci, row;
		if (!serves(tb, w))
			continue;
		int r = table_get(tb, w, vb->name, vb->name_length, &ci, &row);
		if (r > 0) {
			set_value(w->s, w, tb, ci, row, vb);
			return;
		}
		if (r == 0)
			err = SNMP_NOSUCHINSTANCE;
	}
	netsnmp_set_request_error(reqinfo, req, err);
}

static int handle(netsnmp_mib_handler *h, netsnmp_handler_registration *reg,
		  netsnmp_agent_request_info *reqinfo,
		  netsnmp_request_info *requests)
{
	(void)reg;
	const struct subtree *st = h->myvoid;
	struct sw *w = NULL;
	if (reqinfo->asp && reqinfo->asp->session)
		w = reqinfo->asp->session->myvoid;
	for (netsnmp_request_info *req = requests; req; req = req->next) {
		if (req->processed)
			continue;
		if (!w) { /* not one of our sessions: nothing here */
			if (reqinfo->mode == MODE_GET)
				netsnmp_set_request_error(reqinfo, req,
							  SNMP_NOSUCHOBJECT);
			continue;
		}
		switch (reqinfo->mode) {
		case MODE_GET:
			answer_get(w, st, reqinfo, req);
			break;
		case MODE_GETNEXT:
			answer_next(w, st, req);
			break;
		default:
			netsnmp_set_request_error(reqinfo, req,
						  SNMP_ERR_GENERR);
			break;
		}
	}
	return SNMP_ERR_NOERROR;
}

int snmp_agent_register(struct sim_snmp *s, char *err, size_t errlen)
{
	for (size_t i = 0; i < N(subtrees); i++) {
		const struct subtree *st = &subtrees[i];
		netsnmp_handler_registration *reg =
		    netsnmp_create_handler_registration(st->name, handle,
							st->root, st->root_len,
							HANDLER_CAN_RONLY);
		if (!reg) {
			snprintf(err, errlen, "snmp: cannot register %s",
				 st->name);
			return -1;
		}
		reg->handler->myvoid = (void *)st;
		if (netsnmp_register_handler(reg) != MIB_REGISTERED_OK) {
			snprintf(err, errlen, "snmp: cannot register %s",
				 st->name);
			return -1;
		}
		s->regs[i] = reg;
	}
	return 0;
}

void snmp_agent_unregister(struct sim_snmp *s)
{
	for (size_t i = 0; i < N(subtrees); i++)
		if (s->regs[i])
			netsnmp_unregister_handler(s->regs[i]);
}

/*
 * snmp_walk: the SNMP collector's GETBULK walks (see snmp_int.h): the
 * columns of a walk and its next request; the index walk's tables
 * (ifName, ifDescr, ifAlias, the LLDP local and remote rows) built up
 * aside until the walk ends; and the poll's values turned into store
 * samples through the profile (varbind -> sample in snmp_varbind.c,
 * series resolved lazily, per interface and priority).
 *
 * Threads: the loop thread only, called from the session callback.
 */
#include "config.h"

#include "snmp_int.h"

#include "clock.h"
#include "counters.h"
#include "log.h"
#include "mem.h"
#include "snmp_varbind.h"
#include "store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void snmp_ifs_free(struct ifent *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].descr);
		free(v[i].alias);
		free(v[i].h);
	}
	free(v);
}

void snmp_index_tmp_free(struct starget *t)
{
	for (size_t i = 0; i < t->nloc; i++) {
		free(t->loc[i].id);
		free(t->loc[i].desc);
	}
	free(t->loc);
	t->loc = NULL;
	t->nloc = 0;
	for (size_t i = 0; i < t->nrem; i++) {
		free(t->rem[i].portid);
		free(t->rem[i].portdesc);
		free(t->rem[i].sysname);
	}
	free(t->rem);
	t->rem = NULL;
	t->nrem = 0;
	snmp_ifs_free(t->nifs_tmp, t->n_tmp);
	t->nifs_tmp = NULL;
	t->n_tmp = 0;
}

/*
 * Walks.
 */

void snmp_walk_add(struct starget *t, const oid *base, size_t len, int kind)
{
	t->w = xreallocarray(t->w, t->nw + 1, sizeof *t->w);
	struct wcol *c = &t->w[t->nw++];
	memset(c, 0, sizeof *c);
	c->base = base;
	c->base_len = len;
	memcpy(c->cur, base, len * sizeof *base);
	c->cur_len = len;
	c->kind = kind;
}

void snmp_walk_reset(struct starget *t)
{
	t->nw = 0;
	t->pdus = 0;
	t->first_pdu = true;
}

/* Sends the next GETBULK of the walk: every unfinished column (at most
 * 256), plus the non-repeaters on a poll's first request. */
int snmp_walk_send(struct starget *t)
{
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_GETBULK);
	long nonrep = 0;
	if (t->phase == PH_POLL && t->first_pdu) {
		snmp_add_null_var(pdu, OID_SYSUPTIME, OLEN(OID_SYSUPTIME));
		snmp_add_null_var(pdu, OID_IFNUMBER, OLEN(OID_IFNUMBER));
		nonrep = 2;
	}
	t->nsent = 0;
	for (size_t i = 0; i < t->nw && t->nsent < OLEN(t->sent); i++) {
		if (t->w[i].done)
			continue;
		snmp_add_null_var(pdu, t->w[i].cur, t->w[i].cur_len);
		t->sent[t->nsent++] = (int)i;
	}
	unsigned rep = t->max_rep;
	/* net-snmp agents answer at most ~100 varbinds per GETBULK. */
	if (t->nsent && rep * t->nsent > 100 && rep > 1) {
		rep = 100 / (unsigned)t->nsent;
		if (rep < 1)
			rep = 1;
		if (rep > t->max_rep)
			rep = t->max_rep;
	}
	pdu->errstat = nonrep;	   /* non-repeaters */
	pdu->errindex = (long)rep; /* max-repetitions */
	t->nonrep_sent = (size_t)nonrep;
	return snmp_send_pdu(t, pdu);
}

/*
 * A label from an OCTET STRING: printable ASCII as is (trailing NULs
 * dropped), anything else, such as a MAC address sent as 6 raw bytes
 * (LLDP port and chassis IDs), as colon-separated hex.
 */
static char *vb_string(const struct snmp_vb_value *v)
{
	size_t n = v->len > LABEL_MAX ? LABEL_MAX : v->len;
	while (n && v->str[n - 1] == 0)
		n--;
	bool printable = true;
	for (size_t i = 0; i < n && printable; i++)
		printable = v->str[i] >= 0x20 && v->str[i] < 0x7f;
	if (printable)
		return xstrndup((const char *)v->str, n);
	if (n > LABEL_MAX / 3)
		n = LABEL_MAX / 3;
	char *s = xmalloc(3 * n + 1);
	s[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (i)
			snprintf(s + 3 * i - 1, 4, ":%02x", v->str[i]);
		else
			snprintf(s, 3, "%02x", v->str[i]);
	}
	return s;
}

struct ifent *snmp_find_if(struct ifent *v, size_t n, uint32_t ifindex)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (v[mid].ifindex < ifindex)
			lo = mid + 1;
		else if (v[mid].ifindex > ifindex)
			hi = mid;
		else
			return &v[mid];
	}
	return NULL;
}

static struct ifent *tmp_if(struct starget *t, uint32_t ifindex)
{
	struct ifent *e = snmp_find_if(t->nifs_tmp, t->n_tmp, ifindex);
	if (e)
		return e;
	size_t pos = t->n_tmp;
	while (pos && t->nifs_tmp[pos - 1].ifindex > ifindex)
		pos--;
	t->nifs_tmp =
	    xreallocarray(t->nifs_tmp, t->n_tmp + 1, sizeof *t->nifs_tmp);
	memmove(&t->nifs_tmp[pos + 1], &t->nifs_tmp[pos],
		(t->n_tmp - pos) * sizeof *t->nifs_tmp);
	t->n_tmp++;
	e = &t->nifs_tmp[pos];
	memset(e, 0, sizeof *e);
	e->ifindex = ifindex;
	return e;
}

static struct lldp_rem *rem_row(struct starget *t, const oid *sub, size_t n)
{
	/* timeMark.localPortNum.remIndex */
	if (n != 3 || sub[1] > UINT32_MAX || sub[2] > UINT32_MAX)
		return NULL;
	for (size_t i = t->nrem; i-- > 0;)
		if (t->rem[i].locnum == sub[1] && t->rem[i].remidx == sub[2])
			return &t->rem[i];
	t->rem = xreallocarray(t->rem, t->nrem + 1, sizeof *t->rem);
	struct lldp_rem *r = &t->rem[t->nrem++];
	memset(r, 0, sizeof *r);
	r->locnum = (uint32_t)sub[1];
	r->remidx = (uint32_t)sub[2];
	return r;
}

static void index_value(struct starget *t, const struct wcol *c,
			const netsnmp_variable_list *vb,
			const struct snmp_vb_value *v)
{
	const oid *sub = vb->name + c->base_len;
	size_t n = vb->name_length - c->base_len;
	if (c->kind == W_REM_PORTSUB) {
		struct lldp_rem *r = rem_row(t, sub, n);
		if (r && v->kind == SNMP_VB_INTEGER && v->i > 0 && v->i < 256)
			r->subtype = (int)v->i;
		return;
	}
	if (v->kind != SNMP_VB_STRING)
		return;
	switch (c->kind) {
	case W_IFNAME:
	case W_IFDESCR:
	case W_IFALIAS: {
		if (n != 1 || sub[0] == 0 || sub[0] > UINT32_MAX)
			return;
		struct ifent *e = tmp_if(t, (uint32_t)sub[0]);
		char **dst = c->kind == W_IFNAME    ? &e->name
			     : c->kind == W_IFDESCR ? &e->descr
						    : &e->alias;
		free(*dst);
		*dst = vb_string(v);
		return;
	}
	case W_LOC_PORTID:
	case W_LOC_PORTDESC: {
		if (n != 1 || sub[0] > UINT32_MAX)
			return;
		struct lldp_loc *l = NULL;
		for (size_t i = t->nloc; i-- > 0 && !l;)
			if (t->loc[i].num == sub[0])
				l = &t->loc[i];
		if (!l) {
			t->loc =
			    xreallocarray(t->loc, t->nloc + 1, sizeof *t->loc);
			l = &t->loc[t->nloc++];
			memset(l, 0, sizeof *l);
			l->num = (uint32_t)sub[0];
		}
		char **dst = c->kind == W_LOC_PORTID ? &l->id : &l->desc;
		free(*dst);
		*dst = vb_string(v);
		return;
	}
	case W_REM_PORTID:
	case W_REM_PORTDESC:
	case W_REM_SYSNAME: {
		struct lldp_rem *r = rem_row(t, sub, n);
		if (!r)
			return;
		char **dst = c->kind == W_REM_PORTID	 ? &r->portid
			     : c->kind == W_REM_PORTDESC ? &r->portdesc
							 : &r->sysname;
		free(*dst);
		*dst = vb_string(v);
		return;
	}
	default:
		return;
	}
}

static store_handle resolve(struct starget *t, struct ifent *e, size_t col,
			    int prio, uint8_t width)
{
	const struct snmp_column *c = &t->prof->cols[col];
	const struct fm_counter_info *ci = fm_counter_info(c->counter);
	struct store_key key = {
		.device = t->device,
		.port = e->port,
		.sub = prio >= 0 ? (uint32_t)prio : 0,
		.counter = (uint16_t)c->counter,
	};
	struct store_series_spec spec = {
		.owner = t->owner,
		.width = ci->kind == FM_KIND_COUNTER ? width : 0,
		.scale = c->scale,
		.max_rate = c->max_rate,
		.interval_ms = (uint32_t)(t->every_ns / NS_PER_MS),
	};
	return store_series(t->p->store, &key, &spec);
}

void snmp_mark_port_discontinuity(struct starget *t, struct ifent *e)
{
	if (!e->h)
		return;
	for (size_t i = 0; i < t->prof->n_cols * 8; i++)
		if (e->h[i] && e->h[i] != REFUSED)
			store_mark_discontinuity(t->p->store, e->h[i]);
}

/* A change of ifCounterDiscontinuityTime: the port's counters may have
 * been cleared. */
static void write_disc(struct starget *t, struct ifent *e, uint32_t d)
{
	if (e->have_disc && d != e->disc) {
		log_debug("snmp",
			  "%s: %s: ifCounterDiscontinuityTime changed "
			  "(%u -> %u): no rate from this sample",
			  t->name, store_label_str(t->p->store, e->port),
			  e->disc, d);
		snmp_mark_port_discontinuity(t, e);
	}
	e->disc = d;
	e->have_disc = true;
}

void snmp_pend_write(struct starget *t, const struct pend *p)
{
	struct ifent *e = snmp_find_if(t->ifs, t->nifs, p->ifindex);
	if (!e) {
		/* A new interface: pick it up at the next index walk. */
		t->need_index = true;
		if (!t->unknown_if_logged) {
			t->unknown_if_logged = true;
			log_info("snmp",
				 "%s: ifIndex %u is not in the index table; "
				 "refreshing it",
				 t->name, p->ifindex);
		}
		return;
	}
	if (p->col == W_DISC) {
		write_disc(t, e, (uint32_t)p->raw);
		return;
	}
	const struct snmp_column *col = &t->prof->cols[p->col];
	if (!e->h)
		e->h = xcalloc(t->prof->n_cols * 8, sizeof *e->h);
	size_t slot = (size_t)p->col * 8 + (size_t)(p->prio > 0 ? p->prio : 0);
	for (int attempt = 0; attempt < 2; attempt++) {
		if (!e->h[slot])
			e->h[slot] = resolve(t, e, (size_t)p->col, p->prio,
					     p->width ? p->width : 64);
		if (!e->h[slot]) {
			/* Refused: most often another collector (gNMI)
			 * writes this series. Counted once; the next index
			 * walk tries again. */
			e->h[slot] = REFUSED;
			t->rejected++;
			return;
		}
		if (e->h[slot] == REFUSED)
			return;
		int rc = col->kind == SNMP_SAMPLE_GAUGE
			     ? store_set_gauge(t->p->store, e->h[slot],
					       p->gauge, p->ts_ns)
			     : store_update(t->p->store, e->h[slot], p->raw,
					    p->ts_ns);
		if (rc == -ESTALE) {
			e->h[slot] = 0;
			continue;
		}
		if (rc == 0)
			t->values++;
		else
			t->rejected++;
		return;
	}
}

/* A counter of a type other than its column's declared width: a
 * Counter32 or Gauge32 in an HC column (its 32-bit wrap taken for a
 * 64-bit one would be a delta of ~2^64), or a Counter64 in a 32-bit
 * one. Refused, counted as a decode error, logged once per column and
 * index refresh. */
static bool wrong_width(struct starget *t, struct wcol *c,
			const struct snmp_column *col,
			const struct snmp_vb_value *v,
			const struct snmp_vb_sample *s)
{
	if (col->kind != SNMP_SAMPLE_COUNTER ||
	    snmp_vb_check_width(s, col->width) == 0)
		return false;
	c->bad_type++;
	t->bad_type++;
	if (!t->type_logged[c->kind]) {
		t->type_logged[c->kind] = true;
		log_warn("snmp",
			 "%s: %s is a %u-bit column but the agent answers "
			 "%s: values refused",
			 t->name, col->name, col->width,
			 v->kind == SNMP_VB_COUNTER32	? "Counter32"
			 : v->kind == SNMP_VB_GAUGE32	? "Gauge32"
			 : v->kind == SNMP_VB_COUNTER64 ? "Counter64"
							: "another type");
	}
	return true;
}

static void poll_value(struct starget *t, struct wcol *c,
		       const netsnmp_variable_list *vb,
		       const struct snmp_vb_value *v)
{
	if (c->kind == W_IFNAME || c->kind == W_IFDESCR) {
		if (vb->name_length == c->base_len + 1 &&
		    v->kind == SNMP_VB_STRING &&
		    vb->name[c->base_len] <= UINT32_MAX)
			snmp_seen_add(t, (uint32_t)vb->name[c->base_len],
				      vb_string(v));
		return;
	}
	if (c->kind == W_DISC) {
		if (vb->name_length != c->base_len + 1 ||
		    v->kind != SNMP_VB_TIMETICKS ||
		    vb->name[c->base_len] > UINT32_MAX)
			return;
		struct pend *p = snmp_pend_add(t);
		p->col = W_DISC;
		p->ifindex = (uint32_t)vb->name[c->base_len];
		p->raw = v->u;
		return;
	}
	const struct snmp_column *col = &t->prof->cols[c->kind];
	struct snmp_vb_row row;
	if (snmp_vb_row(col->oid, col->oid_len, vb->name, vb->name_length,
			&col->index, &row)) {
		t->rejected++;
		return;
	}
	struct snmp_vb_map map = { col->map_from, col->map_to, col->n_map };
	struct snmp_vb_sample s;
	if (snmp_vb_sample(v, col->kind, &map, &s)) {
		t->rejected++;
		return;
	}
	if (wrong_width(t, c, col, v, &s))
		return;
	struct pend *p = snmp_pend_add(t);
	p->col = c->kind;
	p->ifindex = row.ifindex;
	p->prio = (int8_t)row.priority;
	p->width = s.width;
	p->raw = s.raw;
	p->gauge = s.gauge;
}

static void poll_nonrep(struct starget *t, const netsnmp_variable_list *vb)
{
	struct snmp_vb_value v;
	if (snmp_vb_decode(vb, &v))
		return;
	if (snmp_oid_compare(vb->name, vb->name_length, OID_SYSUPTIME0,
			     OLEN(OID_SYSUPTIME0)) == 0 &&
	    v.kind == SNMP_VB_TIMETICKS) {
		uint32_t up = (uint32_t)v.u;
		if (t->uptime_known && up < t->uptime) {
			log_info("snmp",
				 "%s: sysUpTime went back (%u -> %u "
				 "centiseconds): the agent restarted; no rates "
				 "from this poll, index tables refreshed",
				 t->name, t->uptime, up);
			store_mark_owner_discontinuity(t->p->store, t->owner);
			t->need_index = true;
		}
		t->uptime = up;
		t->uptime_known = true;
	} else if (snmp_oid_compare(vb->name, vb->name_length, OID_IFNUMBER0,
				    OLEN(OID_IFNUMBER0)) == 0 &&
		   v.kind == SNMP_VB_INTEGER) {
		uint32_t n = (uint32_t)v.u;
		if (t->ifnumber_known && n != t->ifnumber) {
			log_info("snmp",
				 "%s: ifNumber changed (%u -> %u): refreshing "
				 "the index tables",
				 t->name, t->ifnumber, n);
			t->need_index = true;
		}
		t->ifnumber = n;
		t->ifnumber_known = true;
	}
}

/* One response of a walk. */
void snmp_walk_response(struct starget *t, netsnmp_pdu *pdu)
{
	netsnmp_variable_list *vb = pdu->variables;
	/* The poll's samples are written when the walk ends, each with the
	 * arrival time of its response (snmp_renum.c). */
	t->pdu_ts = real_ns();
	if (t->phase == PH_POLL && t->first_pdu) {
		for (size_t i = 0; i < t->nonrep_sent && vb; i++) {
			poll_nonrep(t, vb);
			vb = vb->next_variable;
		}
	}
	t->first_pdu = false;
	size_t i = 0;
	bool any = false;
	for (; vb && t->nsent; vb = vb->next_variable, i++) {
		struct wcol *c = &t->w[t->sent[i % t->nsent]];
		if (c->done)
			continue;
		any = true;
		struct snmp_vb_value v;
		if (snmp_vb_decode(vb, &v)) {
			t->rejected++;
			c->done = true;
			continue;
		}
		if (snmp_vb_is_exception(v.kind) ||
		    snmp_oidtree_compare(c->base, c->base_len, vb->name,
					 vb->name_length) != 0 ||
		    snmp_oid_compare(vb->name, vb->name_length, c->cur,
				     c->cur_len) <= 0 ||
		    vb->name_length > MAX_OID_LEN) {
			c->done = true;
			continue;
		}
		memcpy(c->cur, vb->name, vb->name_length * sizeof(oid));
		c->cur_len = vb->name_length;
		c->rows++;
		if (t->phase == PH_INDEX)
			index_value(t, c, vb, &v);
		else
			poll_value(t, c, vb, &v);
	}
	if (!any) {
		/* An empty answer: nothing more will come. */
		for (size_t j = 0; j < t->nw; j++)
			t->w[j].done = true;
	}
	bool more = false;
	for (size_t j = 0; j < t->nw; j++)
		more |= !t->w[j].done;
	if (!more) {
		if (t->phase == PH_POLL)
			snmp_poll_apply(t);
		snmp_phase_end(t, true, NULL);
		return;
	}
	if (++t->pdus > MAX_PDUS_PER_WALK) {
		snmp_phase_end(t, false, "walk did not end after %d requests",
			       MAX_PDUS_PER_WALK);
		return;
	}
	snmp_walk_send(t);
}

void snmp_ident_response(struct starget *t, netsnmp_pdu *pdu)
{
	for (netsnmp_variable_list *vb = pdu->variables; vb;
	     vb = vb->next_variable) {
		if (snmp_oid_compare(vb->name, vb->name_length,
				     OID_SYSOBJECTID0,
				     OLEN(OID_SYSOBJECTID0)) == 0 &&
		    vb->type == ASN_OBJECT_ID && vb->val.objid &&
		    vb->val_len / sizeof(oid) <= MAX_OID_LEN) {
			t->sysoid_len = vb->val_len / sizeof(oid);
			memcpy(t->sysoid, vb->val.objid, vb->val_len);
		} else {
			poll_nonrep(t, vb);
		}
	}
	snmp_phase_end(t, true, NULL);
}

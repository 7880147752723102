/*
 * snmp_renum: the SNMP collector's poll results held until the walk
 * ends, checked against the interface names, then written to the store
 * (see snmp_int.h).
 *
 * A switch may renumber its interfaces at run time (ifIndex 1 and 3
 * swap: names and counters follow the physical ports, sysUpTime and
 * ifNumber do not move). Written as they arrive, Ethernet0's series
 * would take Ethernet8's counters: a delta of the difference of two
 * unrelated counters (a rate of 1e17 b/s), a total moved for good, and
 * each port's traffic under the other's name until the next index walk.
 * So each poll walks the column the port labels come from (ifName, or
 * ifDescr for agents without ifXTable) with the counters, a few bytes a
 * port, and holds every sample (with the arrival time of its response)
 * until the walk has ended. Then, before any sample is written:
 *
 *   - an index whose name differs from the table's is a renumbering:
 *     every interface whose name was seen at another index moves there
 *     with its series, an entry whose index now names an unknown port
 *     is dropped (its values wait for the index walk), and every moved
 *     or dropped port's series is marked as a discontinuity, so that
 *     its next sample is a new base: no rate from it, the total kept
 *     (store.h); one log line says which ports moved; the index tables
 *     (descriptions, LLDP) are read again at the start of the next
 *     cycle;
 *   - the samples are written under the (corrected) table: the right
 *     port's values under the right labels from this poll on.
 *
 * A poll that fails part way writes nothing (its samples are dropped
 * with it), as its names may be missing.
 *
 * Threads: the loop thread only.
 */
#include "config.h"

#include "snmp_int.h"

#include "clock.h"
#include "log.h"
#include "mem.h"
#include "store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RENUM_LOG_MOVES 4 /* moves named in the log line */

void snmp_pend_clear(struct starget *t)
{
	t->npend = 0;
	for (size_t i = 0; i < t->nseen; i++)
		free(t->seen[i].name);
	t->nseen = 0;
}

void snmp_pend_free(struct starget *t)
{
	snmp_pend_clear(t);
	free(t->pend);
	free(t->seen);
	t->pend = NULL;
	t->seen = NULL;
	t->pend_cap = t->seen_cap = 0;
}

struct pend *snmp_pend_add(struct starget *t)
{
	if (t->npend == t->pend_cap) {
		t->pend_cap = t->pend_cap ? 2 * t->pend_cap : 256;
		t->pend = xreallocarray(t->pend, t->pend_cap, sizeof *t->pend);
	}
	struct pend *p = &t->pend[t->npend++];
	memset(p, 0, sizeof *p);
	p->ts_ns = t->pdu_ts;
	return p;
}

void snmp_seen_add(struct starget *t, uint32_t ifindex, char *name)
{
	if (t->nseen == t->seen_cap) {
		t->seen_cap = t->seen_cap ? 2 * t->seen_cap : 64;
		t->seen = xreallocarray(t->seen, t->seen_cap, sizeof *t->seen);
	}
	t->seen[t->nseen].ifindex = ifindex;
	t->seen[t->nseen].name = name;
	t->nseen++;
}

const char *snmp_if_label_src(const struct starget *t, const struct ifent *e)
{
	return t->name_col == W_IFDESCR ? e->descr : e->name;
}

/* The index the poll saw name at, or 0. */
static uint32_t seen_at(const struct starget *t, const char *name)
{
	if (!name || !*name)
		return 0;
	for (size_t i = 0; i < t->nseen; i++)
		if (strcmp(t->seen[i].name, name) == 0)
			return t->seen[i].ifindex;
	return 0;
}

/* The name the poll saw at ifindex, or NULL. */
static const char *seen_name(const struct starget *t, uint32_t ifindex)
{
	for (size_t i = 0; i < t->nseen; i++)
		if (t->seen[i].ifindex == ifindex)
			return t->seen[i].name;
	return NULL;
}

static int cmp_ifent(const void *a, const void *b)
{
	const struct ifent *x = a, *y = b;
	return x->ifindex < y->ifindex ? -1 : x->ifindex > y->ifindex;
}

/* True if some index's name differs from the table's. */
static bool names_differ(const struct starget *t)
{
	for (size_t i = 0; i < t->nseen; i++) {
		const struct ifent *e =
		    snmp_find_if(t->ifs, t->nifs, t->seen[i].ifindex);
		const char *n = e ? snmp_if_label_src(t, e) : NULL;
		if (e && (!n || strcmp(n, t->seen[i].name) != 0))
			return true;
	}
	return false;
}

/* Moves the interfaces to the indexes their names were seen at (see
 * the top of the file). Returns the number of ports moved or dropped. */
static size_t renumber(struct starget *t)
{
	char moves[256];
	size_t nmoved = 0, ndropped = 0, len = 0;
	size_t keep = 0;
	moves[0] = '\0';
	for (size_t i = 0; i < t->nifs; i++) {
		struct ifent *e = &t->ifs[i];
		const char *n = snmp_if_label_src(t, e);
		uint32_t to = seen_at(t, n);
		const char *now = seen_name(t, e->ifindex);
		bool taken = now && (!n || strcmp(now, n) != 0);
		if (!to && taken) {
			/* Its index names another port now, and its own
			 * name is nowhere: it waits for the index walk. */
			snmp_mark_port_discontinuity(t, e);
			ndropped++;
			free(e->name);
			free(e->descr);
			free(e->alias);
			free(e->h);
			continue;
		}
		if (to && to != e->ifindex) {
			snmp_mark_port_discontinuity(t, e);
			if (nmoved < RENUM_LOG_MOVES && len < sizeof moves)
				len += (size_t)snprintf(
				    moves + len, sizeof moves - len,
				    "%s%s %u -> %u", nmoved ? ", " : "",
				    store_label_str(t->p->store, e->port),
				    e->ifindex, to);
			nmoved++;
			e->ifindex = to;
		}
		t->ifs[keep++] = *e;
	}
	t->nifs = keep;
	qsort(t->ifs, t->nifs, sizeof *t->ifs, cmp_ifent);
	/* Two entries on one index (a name seen twice): keep the first. */
	for (size_t i = 1; i < t->nifs;) {
		if (t->ifs[i].ifindex != t->ifs[i - 1].ifindex) {
			i++;
			continue;
		}
		snmp_mark_port_discontinuity(t, &t->ifs[i]);
		free(t->ifs[i].name);
		free(t->ifs[i].descr);
		free(t->ifs[i].alias);
		free(t->ifs[i].h);
		memmove(&t->ifs[i], &t->ifs[i + 1],
			(t->nifs - i - 1) * sizeof *t->ifs);
		t->nifs--;
		ndropped++;
	}
	log_warn("snmp",
		 "%s: interfaces renumbered (ifIndex): %s%s; %zu port(s) "
		 "moved, %zu left until the index walk; their next samples "
		 "are a new base (no rate, totals kept); index tables read "
		 "again",
		 t->name, nmoved ? moves : "none moved",
		 nmoved > RENUM_LOG_MOVES ? ", ..." : "", nmoved, ndropped);
	t->need_index = true;
	return nmoved + ndropped;
}

void snmp_poll_apply(struct starget *t)
{
	if (t->nseen && names_differ(t))
		renumber(t);
	for (size_t i = 0; i < t->npend; i++)
		snmp_pend_write(t, &t->pend[i]);
	snmp_pend_clear(t);
}

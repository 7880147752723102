/*
 * fabtop's row lists (see view_int.h): the filter typed with '/', the
 * sort columns of the ports and hosts views, and the filtered, sorted
 * index lists the views draw. Pure; the sort's state travels in a
 * context given to qsort_r.
 */
#include "config.h"

#include "view_int.h"

#include "mem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* ---- filter */

static bool token_prio(const char *t, int *prio)
{
	const char *d = NULL;
	if ((t[0] == 'p' || t[0] == 'P') && t[1] >= '0' && t[1] <= '7' && !t[2])
		d = t + 1;
	else if (!strncasecmp(t, "prio:", 5) || !strncasecmp(t, "prio=", 5))
		d = t + 5;
	else if (!strncasecmp(t, "priority:", 9) ||
		 !strncasecmp(t, "priority=", 9))
		d = t + 9;
	if (!d || d[0] < '0' || d[0] > '7' || d[1])
		return false;
	*prio = d[0] - '0';
	return true;
}

/*
 * Whether a row matches the filter: every space-separated token must
 * match; "p3", "prio:3" or "priority=3" needs the port to have priority
 * 3, any other token is a case-insensitive substring of "device:port".
 */
bool view_filter_match(const char *filter, const char *device, const char *port,
		       unsigned prio_mask)
{
	if (!filter[0])
		return true;
	char name[512];
	snprintf(name, sizeof name, "%s:%s", device ? device : "",
		 port ? port : "");
	char f[VIEW_FILTER_MAX];
	snprintf(f, sizeof f, "%s", filter);
	char *save = NULL;
	for (char *t = strtok_r(f, " \t", &save); t;
	     t = strtok_r(NULL, " \t", &save)) {
		int p;
		if (token_prio(t, &p)) {
			if (!(prio_mask & (1u << p)))
				return false;
		} else if (!strcasestr(name, t)) {
			return false;
		}
	}
	return true;
}

/* ---- sorting */

static const char *const sort_fields[VIEW_SORT_COUNT] = {
	[VIEW_SORT_PAUSE_RX] = "pause_ratio_rx",
	[VIEW_SORT_PAUSE_TX] = "pause_ratio_tx",
	[VIEW_SORT_PFC_RX] = "pfc_rx_fps",
	[VIEW_SORT_ECN] = "ecn_marked_pps",
	[VIEW_SORT_CNP] = "cnp_sent_pps",
	[VIEW_SORT_DROPS] = "drops_pps",
	[VIEW_SORT_UTIL] = "utilisation",
	[VIEW_SORT_DEVICE] = "device",
};

const char *view_sort_field(const struct view_state *st)
{
	return sort_fields[st->sort];
}

double view_sum2(double a, double b)
{
	if (isnan(a))
		return b;
	if (isnan(b))
		return a;
	return a + b;
}

double view_max2(double a, double b)
{
	if (isnan(a))
		return b;
	if (isnan(b))
		return a;
	return a > b ? a : b;
}

double view_sort_value(const struct model_port *p, enum view_sort s)
{
	switch (s) {
	case VIEW_SORT_PAUSE_RX:
		return p->v[MODEL_PF_PAUSE_RX];
	case VIEW_SORT_PAUSE_TX:
		return p->v[MODEL_PF_PAUSE_TX];
	case VIEW_SORT_PFC_RX:
		return p->v[MODEL_PF_PFC_RX];
	case VIEW_SORT_ECN:
		return p->v[MODEL_PF_ECN];
	case VIEW_SORT_CNP:
		return view_sum2(p->v[MODEL_PF_CNP_SENT],
				 p->v[MODEL_PF_CNP_HANDLED]);
	case VIEW_SORT_DROPS:
		return p->v[MODEL_PF_DROPS];
	case VIEW_SORT_UTIL:
		return p->v[MODEL_PF_UTIL];
	default:
		return NAN;
	}
}

/* Names in natural order: digit runs compare as numbers. */
int view_natcmp(const char *a, const char *b)
{
	a = a ? a : "";
	b = b ? b : "";
	while (*a && *b) {
		if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
			while (*a == '0')
				a++;
			while (*b == '0')
				b++;
			size_t la = strspn(a, "0123456789");
			size_t lb = strspn(b, "0123456789");
			if (la != lb)
				return la < lb ? -1 : 1;
			int c = strncmp(a, b, la);
			if (c)
				return c;
			a += la;
			b += lb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return *a ? 1 : *b ? -1 : 0;
}

static int name_cmp(const struct model_port *a, const struct model_port *b)
{
	int c = view_natcmp(a->device, b->device);
	return c ? c : view_natcmp(a->port, b->port);
}

/* Larger first unless asc; NaN always last; ties by name. */
static int value_cmp(double a, double b, bool asc)
{
	if (isnan(a) || isnan(b))
		return isnan(a) - isnan(b);
	if (a == b)
		return 0;
	return ((a > b) != asc) ? -1 : 1;
}

/* A sort of row indices: the rows, the key and the direction, passed
 * to the comparisons through qsort_r (no process-wide state). */
struct sort_ctx {
	const struct model_port *rows;
	int key;
	bool asc;
};

static int cmp_ports(const void *x, const void *y, void *arg)
{
	const struct sort_ctx *sc = arg;
	const struct model_port *a = &sc->rows[*(const size_t *)x];
	const struct model_port *b = &sc->rows[*(const size_t *)y];
	int c = 0;
	if (sc->key == VIEW_SORT_DEVICE) {
		c = name_cmp(a, b);
		return sc->asc ? c : -c;
	}
	c = value_cmp(view_sort_value(a, (enum view_sort)sc->key),
		      view_sort_value(b, (enum view_sort)sc->key), sc->asc);
	return c ? c : name_cmp(a, b);
}

static double host_value(const struct model_port *p, int key)
{
	switch (key) {
	case 1:
		return view_sum2(p->v[MODEL_PF_CNP_SENT],
				 p->v[MODEL_PF_CNP_HANDLED]);
	case 2:
		return p->v[MODEL_PF_RETRIES];
	default:
		return p->v[MODEL_PF_PAUSE_TX];
	}
}

static int cmp_hosts(const void *x, const void *y, void *arg)
{
	const struct sort_ctx *sc = arg;
	const struct model_port *a = &sc->rows[*(const size_t *)x];
	const struct model_port *b = &sc->rows[*(const size_t *)y];
	int c =
	    value_cmp(host_value(a, sc->key), host_value(b, sc->key), sc->asc);
	/* By pause: the NIC that pauses the fabric (tx) before the ones
	 * it holds (rx). */
	if (!c && sc->key == 0)
		c = value_cmp(a->v[MODEL_PF_PAUSE_RX], b->v[MODEL_PF_PAUSE_RX],
			      sc->asc);
	return c ? c : name_cmp(a, b);
}

/* The ports rows to show, filtered and sorted; *n their count. */
size_t *view_port_list(const struct view_state *st, bool nics_only, size_t *n)
{
	size_t *idx = xcalloc(st->ports.n ? st->ports.n : 1, sizeof *idx);
	*n = 0;
	for (size_t i = 0; i < st->ports.n; i++) {
		const struct model_port *p = &st->ports.v[i];
		if (nics_only && !model_port_is_nic(p))
			continue;
		if (!view_filter_match(st->filter, p->device, p->port,
				       p->prio_mask))
			continue;
		idx[(*n)++] = i;
	}
	struct sort_ctx sc = { .rows = st->ports.v };
	if (nics_only) {
		sc.key = st->host_sort;
		sc.asc = false;
		qsort_r(idx, *n, sizeof *idx, cmp_hosts, &sc);
	} else {
		sc.key = st->sort;
		sc.asc = (st->sort == VIEW_SORT_DEVICE) != st->sort_reverse;
		qsort_r(idx, *n, sizeof *idx, cmp_ports, &sc);
	}
	return idx;
}

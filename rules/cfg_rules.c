/*
 * cfg_rules: the rules: and topology: sections (see cfg_rules.h; the
 * keys and their defaults are documented in fabmon.yaml(5)).
 *
 * Thresholds that are fractions or rates are plain decimal numbers
 * ("0.9", "1e3" is not accepted: strtod's hex and exponent forms would
 * only make typos pass). Endpoints are "device:port", split at the first
 * colon; a port may be linked once, and a leaf be on one rail (both
 * checked through a hash map: linear in the links and leaves).
 */
#include "config.h"

#include "cfg_rules.h"

#include "mem.h"
#include "strmap.h"
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HOUR_NS (3600 * NS_PER_S)

/* Bounds of what the sections accept. */
#define MAX_LINKS	 (1u << 20)
#define MAX_RAILS	 64
#define MAX_RAIL_MEMBERS 4096

void cfg_rules_defaults(struct cfg *c)
{
	struct cfg_rules *r = &c->rules;
	r->tick_ns = 0;
	r->clear_ns = 5 * NS_PER_S;
	r->keep_resolved = 100;
	r->pause_ratio = 0.2;
	r->storm_ratio = 0.9;
	r->storm_for_ns = 200 * NS_PER_MS;
	r->spreading_hops = 2;
	r->spreading_for_ns = 2 * NS_PER_S;
	r->deadlock_for_ns = 1 * NS_PER_S;
	r->deadlock_progress = 1;
	r->incast_senders = 2;
	r->incast_min_cnp = 100;
	r->incast_ce_ratio = 0.005;
	r->incast_for_ns = 1 * NS_PER_S;
	r->drop_for_ns = 0;
	r->discard_pause_ratio = 0.002;
	r->lossy_pause_for_ns = 0;
	r->ecn_pause_ratio = 0.05;
	r->ecn_after_pfc_for_ns = 1 * NS_PER_S;
	r->ecn_min_ce = 100;
	r->ecn_without_cnp_for_ns = 1 * NS_PER_S;
	r->flap_count = 2;
	r->flap_window_ns = 10 * NS_PER_S;
	r->silent_for_ns = 0;
	c->topology.lldp_ttl_ns = 120 * NS_PER_S;
}

/* A plain decimal number ("0.9", "100", ".5") in [min, max]. */
static int opt_number(struct ytree_ctx *x, const struct ytree_fields *f,
		      size_t i, double min, double max, double *out)
{
	const struct ytree_node *n = f->val[i];
	char q[YTREE_QUOTE_BUF];
	if (!n)
		return 0;
	size_t saved = ytree_path_key(x, f->keys[i]);
	int rc = ytree_want_scalar(x, n, "a number");
	if (rc)
		return rc;
	const char *s = n->str;
	bool digits = false;
	size_t dots = 0;
	for (const char *p = s; *p; p++) {
		if (isdigit((unsigned char)*p))
			digits = true;
		else if (*p == '.')
			dots++;
		else
			dots = 2; /* any other byte: not a number */
	}
	if (dots > 1)
		digits = false;
	if (!digits || strlen(s) != n->len || strlen(s) > 32)
		return ytree_fail(x, n, "%s is not a number",
				  ytree_quote(n, q, sizeof q));
	double v = strtod(s, NULL);
	if (!isfinite(v) || v < min || v > max)
		return ytree_fail(x, n, "must be between %g and %g, not %s",
				  min, max, ytree_quote(n, q, sizeof q));
	*out = v;
	ytree_path_cut(x, saved);
	return 0;
}

enum {
	R_TICK,
	R_CLEAR,
	R_KEEP,
	R_PAUSE_RATIO,
	R_STORM_RATIO,
	R_STORM_FOR,
	R_SPREAD_HOPS,
	R_SPREAD_FOR,
	R_DEADLOCK_FOR,
	R_DEADLOCK_PROGRESS,
	R_INCAST_SENDERS,
	R_INCAST_MIN_CNP,
	R_INCAST_CE_RATIO,
	R_INCAST_FOR,
	R_DROP_FOR,
	R_DISCARD_PAUSE_RATIO,
	R_LOSSY_FOR,
	R_ECN_PAUSE_RATIO,
	R_ECN_PFC_FOR,
	R_ECN_MIN_CE,
	R_ECN_CNP_FOR,
	R_FLAP_COUNT,
	R_FLAP_WINDOW,
	R_SILENT_FOR,
	R_N
};
static const char *const rules_keys[R_N] = {
	[R_TICK] = "tick",
	[R_CLEAR] = "clear",
	[R_KEEP] = "keep_resolved",
	[R_PAUSE_RATIO] = "pause_ratio",
	[R_STORM_RATIO] = "storm_ratio",
	[R_STORM_FOR] = "storm_for",
	[R_SPREAD_HOPS] = "spreading_hops",
	[R_SPREAD_FOR] = "spreading_for",
	[R_DEADLOCK_FOR] = "deadlock_for",
	[R_DEADLOCK_PROGRESS] = "deadlock_progress_pps",
	[R_INCAST_SENDERS] = "incast_senders",
	[R_INCAST_MIN_CNP] = "incast_min_cnp_pps",
	[R_INCAST_CE_RATIO] = "incast_ce_ratio",
	[R_INCAST_FOR] = "incast_for",
	[R_DROP_FOR] = "lossless_drop_for",
	[R_DISCARD_PAUSE_RATIO] = "discard_pause_ratio",
	[R_LOSSY_FOR] = "lossy_pause_for",
	[R_ECN_PAUSE_RATIO] = "ecn_pause_ratio",
	[R_ECN_PFC_FOR] = "ecn_after_pfc_for",
	[R_ECN_MIN_CE] = "ecn_min_ce_pps",
	[R_ECN_CNP_FOR] = "ecn_without_cnp_for",
	[R_FLAP_COUNT] = "flap_count",
	[R_FLAP_WINDOW] = "flap_window",
	[R_SILENT_FOR] = "silent_for",
};

_Static_assert(R_N <= YTREE_MAX_FIELDS, "rules: keys fit ytree_fields");

int cfg_parse_rules(struct ytree_ctx *x, struct cfg *c,
		    const struct ytree_node *n)
{
	struct cfg_rules *r = &c->rules;
	struct ytree_fields f;
	int rc = ytree_fields_get(x, n, rules_keys, R_N, &f);
	if (rc)
		return rc;
	if ((rc = ytree_opt_duration(x, &f, R_TICK, 100 * NS_PER_MS, HOUR_NS,
				     true, &r->tick_ns)) ||
	    (rc = ytree_opt_duration(x, &f, R_CLEAR, 0, HOUR_NS, true,
				     &r->clear_ns)) ||
	    (rc =
		 ytree_opt_uint(x, &f, R_KEEP, 0, 100000, &r->keep_resolved)) ||
	    (rc =
		 opt_number(x, &f, R_PAUSE_RATIO, 0.001, 1, &r->pause_ratio)) ||
	    (rc =
		 opt_number(x, &f, R_STORM_RATIO, 0.001, 1, &r->storm_ratio)) ||
	    (rc = ytree_opt_duration(x, &f, R_STORM_FOR, 0, HOUR_NS, true,
				     &r->storm_for_ns)) ||
	    (rc = ytree_opt_uint(x, &f, R_SPREAD_HOPS, 2, 64,
				 &r->spreading_hops)) ||
	    (rc = ytree_opt_duration(x, &f, R_SPREAD_FOR, 0, HOUR_NS, true,
				     &r->spreading_for_ns)) ||
	    (rc = ytree_opt_duration(x, &f, R_DEADLOCK_FOR, 0, HOUR_NS, true,
				     &r->deadlock_for_ns)) ||
	    (rc = opt_number(x, &f, R_DEADLOCK_PROGRESS, 0, 1e12,
			     &r->deadlock_progress)) ||
	    (rc = ytree_opt_uint(x, &f, R_INCAST_SENDERS, 1, 100000,
				 &r->incast_senders)) ||
	    (rc = opt_number(x, &f, R_INCAST_MIN_CNP, 0, 1e12,
			     &r->incast_min_cnp)) ||
	    (rc = opt_number(x, &f, R_INCAST_CE_RATIO, 0, 1,
			     &r->incast_ce_ratio)) ||
	    (rc = ytree_opt_duration(x, &f, R_INCAST_FOR, 0, HOUR_NS, true,
				     &r->incast_for_ns)) ||
	    (rc = ytree_opt_duration(x, &f, R_DROP_FOR, 0, HOUR_NS, true,
				     &r->drop_for_ns)) ||
	    (rc = opt_number(x, &f, R_DISCARD_PAUSE_RATIO, 0.001, 1,
			     &r->discard_pause_ratio)) ||
	    (rc = ytree_opt_duration(x, &f, R_LOSSY_FOR, 0, HOUR_NS, true,
				     &r->lossy_pause_for_ns)) ||
	    (rc = opt_number(x, &f, R_ECN_PAUSE_RATIO, 0.001, 1,
			     &r->ecn_pause_ratio)) ||
	    (rc = ytree_opt_duration(x, &f, R_ECN_PFC_FOR, 0, HOUR_NS, true,
				     &r->ecn_after_pfc_for_ns)) ||
	    (rc = opt_number(x, &f, R_ECN_MIN_CE, 0, 1e12, &r->ecn_min_ce)) ||
	    (rc = ytree_opt_duration(x, &f, R_ECN_CNP_FOR, 0, HOUR_NS, true,
				     &r->ecn_without_cnp_for_ns)) ||
	    (rc = ytree_opt_uint(x, &f, R_FLAP_COUNT, 1, 1000,
				 &r->flap_count)) ||
	    (rc = ytree_opt_duration(x, &f, R_FLAP_WINDOW, 100 * NS_PER_MS,
				     HOUR_NS, false, &r->flap_window_ns)) ||
	    (rc = ytree_opt_duration(x, &f, R_SILENT_FOR, 100 * NS_PER_MS,
				     HOUR_NS, true, &r->silent_for_ns)))
		return rc;
	if (r->pause_ratio > r->storm_ratio)
		return ytree_fail_key(x, &f, R_PAUSE_RATIO,
				      "must not exceed storm_ratio (%g)",
				      r->storm_ratio);
	return 0;
}

/* Splits "device:port" into two new strings; -EINVAL if not that shape. */
static int split_endpoint(const char *s, char **dev, char **port)
{
	const char *colon = strchr(s, ':');
	if (!colon || colon == s || colon[1] == '\0')
		return -EINVAL;
	for (const char *p = s; *p; p++)
		if (isspace((unsigned char)*p) || iscntrl((unsigned char)*p))
			return -EINVAL;
	*dev = xstrndup(s, (size_t)(colon - s));
	*port = xstrdup(colon + 1);
	return 0;
}

static int endpoint(struct ytree_ctx *x, const struct ytree_node *n, char **dev,
		    char **port)
{
	char q[YTREE_QUOTE_BUF];
	int rc = ytree_want_scalar(x, n, "\"device:port\"");
	if (rc)
		return rc;
	if (strlen(n->str) != n->len || strlen(n->str) > 256 ||
	    split_endpoint(n->str, dev, port) < 0)
		return ytree_fail(x, n, "%s is not \"device:port\"",
				  ytree_quote(n, q, sizeof q));
	return 0;
}

enum { L_A, L_B, L_N };
static const char *const link_keys[L_N] = { [L_A] = "a", [L_B] = "b" };

/*
 * -EINVAL with the message if an end of link k (its "device:port"
 * scalars a and b) is an end of an earlier link; else adds both ends to
 * ends (endpoint string -> link index). The endpoint strings are
 * canonical (the device ends at the first colon), so equal strings are
 * the same port. Reports the earliest such link, and the a end if both
 * ends are on it. One hash lookup per end: loading stays linear in the
 * link count (100k links).
 */
static int check_link_unique(struct ytree_ctx *x, const struct cfg_topology *t,
			     size_t k, const struct ytree_node *n,
			     const struct ytree_node *a,
			     const struct ytree_node *b, struct strmap *ends)
{
	const struct cfg_link *l = &t->links[k];
	size_t ia, ib;
	if (strcmp(a->str, b->str) == 0)
		return ytree_fail(x, n, "links %s:%s to itself", l->a_device,
				  l->a_port);
	bool dup_a = strmap_get(ends, a->str, &ia);
	bool dup_b = strmap_get(ends, b->str, &ib);
	if (dup_a && (!dup_b || ia <= ib))
		return ytree_fail(x, n, "%s:%s is already linked by links[%zu]",
				  l->a_device, l->a_port, ia);
	if (dup_b)
		return ytree_fail(x, n, "%s:%s is already linked by links[%zu]",
				  l->b_device, l->b_port, ib);
	strmap_add(ends, a->str, k, NULL);
	strmap_add(ends, b->str, k, NULL);
	return 0;
}

static int parse_link(struct ytree_ctx *x, struct cfg_topology *t,
		      const struct ytree_node *n, struct strmap *ends)
{
	struct cfg_link *l = &t->links[t->n_links];
	const struct ytree_node *a, *b;
	int rc;
	size_t saved;

	if (n->kind == YTREE_SEQ) {
		if (n->n != 2)
			return ytree_fail(x, n,
					  "a link is [a, b] or {a: ..., b: "
					  "...}, with two ends");
		a = n->kids[0];
		b = n->kids[1];
	} else {
		struct ytree_fields f;
		if (n->kind != YTREE_MAP)
			return ytree_fail(x, n,
					  "a link is [a, b] or {a: ..., b: "
					  "...}, not %s",
					  ytree_kind_name(n));
		if ((rc = ytree_fields_get(x, n, link_keys, L_N, &f)) ||
		    (rc = ytree_need(x, &f, L_A)) ||
		    (rc = ytree_need(x, &f, L_B)))
			return rc;
		a = f.val[L_A];
		b = f.val[L_B];
	}
	saved = ytree_path_key(x, "a");
	if ((rc = endpoint(x, a, &l->a_device, &l->a_port)))
		return rc;
	ytree_path_cut(x, saved);
	t->n_links++; /* owns the strings from here */
	saved = ytree_path_key(x, "b");
	if ((rc = endpoint(x, b, &l->b_device, &l->b_port)))
		return rc;
	ytree_path_cut(x, saved);
	return check_link_unique(x, t, t->n_links - 1, n, a, b, ends);
}

/* A list of names into a new array. */
static int name_list(struct ytree_ctx *x, const struct ytree_node *n,
		     char ***out, size_t *count)
{
	size_t k;
	int rc = ytree_want_seq(x, n, &k);
	if (rc)
		return rc;
	if (k > MAX_RAIL_MEMBERS)
		return ytree_fail(x, n, "more than %u names", MAX_RAIL_MEMBERS);
	*out = xcalloc(k ? k : 1, sizeof **out);
	for (size_t i = 0; i < k; i++) {
		size_t saved = ytree_path_index(x, i);
		if ((rc = ytree_str(x, n->kids[i], &(*out)[i])))
			return rc;
		*count = i + 1;
		if ((*out)[i][0] == '\0')
			return ytree_fail(x, n->kids[i], "empty name");
		ytree_path_cut(x, saved);
	}
	return 0;
}

enum { RAIL_LEAVES, RAIL_NICS, RAIL_N };
static const char *const rail_keys[RAIL_N] = {
	[RAIL_LEAVES] = "leaves",
	[RAIL_NICS] = "nics",
};

/*
 * Rail k's leaves must be on no earlier rail (a leaf on two rails would
 * make every NIC on it misaligned): the error names the earliest such
 * rail. leaves maps each leaf of the earlier rails to its rail; k's are
 * added. A leaf listed twice on one rail is let be.
 */
static int check_rail_leaves(struct ytree_ctx *x, const struct cfg_rail *r,
			     size_t k, const struct ytree_fields *f,
			     struct strmap *leaves)
{
	size_t first = k, at = 0, i;
	for (size_t b = 0; b < r->n_leaves; b++)
		if (strmap_get(leaves, r->leaves[b], &i) && i < first) {
			first = i;
			at = b;
		}
	if (first < k)
		return ytree_fail_key(x, f, RAIL_LEAVES,
				      "leaf %s is already on rails[%zu]",
				      r->leaves[at], first);
	for (size_t b = 0; b < r->n_leaves; b++)
		strmap_add(leaves, r->leaves[b], k, NULL);
	return 0;
}

static int parse_rail(struct ytree_ctx *x, struct cfg_topology *t, size_t k,
		      const struct ytree_node *n, struct strmap *leaves)
{
	struct cfg_rail *r = &t->rails[k];
	struct ytree_fields f;
	int rc;
	if ((rc = ytree_fields_get(x, n, rail_keys, RAIL_N, &f)) ||
	    (rc = ytree_need(x, &f, RAIL_LEAVES)))
		return rc;
	size_t saved = ytree_path_key(x, "leaves");
	if ((rc = name_list(x, f.val[RAIL_LEAVES], &r->leaves, &r->n_leaves)))
		return rc;
	ytree_path_cut(x, saved);
	if (f.val[RAIL_NICS]) {
		saved = ytree_path_key(x, "nics");
		if ((rc = name_list(x, f.val[RAIL_NICS], &r->nics, &r->n_nics)))
			return rc;
		ytree_path_cut(x, saved);
	} else {
		r->nics = xcalloc(1, sizeof *r->nics);
		r->nics[0] = xasprintf("mlx5_%zu", k);
		r->n_nics = 1;
	}
	return check_rail_leaves(x, r, k, &f, leaves);
}

/* The links: list (k items) into t. */
static int parse_links(struct ytree_ctx *x, struct cfg_topology *t,
		       const struct ytree_node *ln, size_t count)
{
	int rc = 0;
	if (count > MAX_LINKS)
		return ytree_fail(x, ln, "more than %u links", MAX_LINKS);
	t->links = xcalloc(count ? count : 1, sizeof *t->links);
	struct strmap *ends = strmap_new(2 * count);
	for (size_t i = 0; i < count && !rc; i++) {
		size_t s2 = ytree_path_index(x, i);
		if (!(rc = parse_link(x, t, ln->kids[i], ends)))
			ytree_path_cut(x, s2);
	}
	strmap_free(ends);
	return rc;
}

/* The rails: list (count items) into t. */
static int parse_rails(struct ytree_ctx *x, struct cfg_topology *t,
		       const struct ytree_node *rn, size_t count)
{
	int rc = 0;
	if (count > MAX_RAILS)
		return ytree_fail(x, rn, "more than %u rails", MAX_RAILS);
	t->rails = xcalloc(count ? count : 1, sizeof *t->rails);
	struct strmap *leaves = strmap_new(0);
	for (size_t i = 0; i < count && !rc; i++) {
		size_t s2 = ytree_path_index(x, i);
		t->n_rails = i + 1;
		if (!(rc = parse_rail(x, t, i, rn->kids[i], leaves)))
			ytree_path_cut(x, s2);
	}
	strmap_free(leaves);
	return rc;
}

enum { T_LINKS, T_RAILS, T_LLDP_TTL, T_N };
static const char *const topo_keys[T_N] = {
	[T_LINKS] = "links",
	[T_RAILS] = "rails",
	[T_LLDP_TTL] = "lldp_ttl",
};

int cfg_parse_topology(struct ytree_ctx *x, struct cfg *c,
		       const struct ytree_node *n)
{
	struct cfg_topology *t = &c->topology;
	struct ytree_fields f;
	size_t count, saved;
	int rc = ytree_fields_get(x, n, topo_keys, T_N, &f);
	if (rc)
		return rc;
	if ((rc = ytree_opt_duration(x, &f, T_LLDP_TTL, NS_PER_S, 24 * HOUR_NS,
				     false, &t->lldp_ttl_ns)))
		return rc;
	if (f.val[T_LINKS]) {
		saved = ytree_path_key(x, "links");
		if ((rc = ytree_want_seq(x, f.val[T_LINKS], &count)) ||
		    (rc = parse_links(x, t, f.val[T_LINKS], count)))
			return rc;
		ytree_path_cut(x, saved);
	}
	if (f.val[T_RAILS]) {
		saved = ytree_path_key(x, "rails");
		if ((rc = ytree_want_seq(x, f.val[T_RAILS], &count)) ||
		    (rc = parse_rails(x, t, f.val[T_RAILS], count)))
			return rc;
		ytree_path_cut(x, saved);
	}
	return 0;
}

static void free_names(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void cfg_topology_free(struct cfg_topology *t)
{
	for (size_t i = 0; i < t->n_links; i++) {
		free(t->links[i].a_device);
		free(t->links[i].a_port);
		free(t->links[i].b_device);
		free(t->links[i].b_port);
	}
	free(t->links);
	for (size_t i = 0; i < t->n_rails; i++) {
		free_names(t->rails[i].leaves, t->rails[i].n_leaves);
		free_names(t->rails[i].nics, t->rails[i].n_nics);
	}
	free(t->rails);
	t->links = NULL;
	t->rails = NULL;
	t->n_links = t->n_rails = 0;
}

/*
 * The hooks that hand these sections to cfg_load(). The defaults of
 * both go in with the rules: section's init.
 */

static void *rules_init(struct cfg *c)
{
	cfg_rules_defaults(c);
	return NULL;
}

static int rules_parse(struct ytree_ctx *x, struct cfg *c, void *data,
		       const struct ytree_node *n)
{
	(void)data;
	return cfg_parse_rules(x, c, n);
}

static int topology_parse(struct ytree_ctx *x, struct cfg *c, void *data,
			  const struct ytree_node *n)
{
	(void)data;
	return cfg_parse_topology(x, c, n);
}

static void topology_fini(struct cfg *c, void *data)
{
	(void)data;
	cfg_topology_free(&c->topology);
}

const struct cfg_section_ops cfg_rules_section = {
	.key = "rules",
	.init = rules_init,
	.parse = rules_parse,
};

const struct cfg_section_ops cfg_topology_section = {
	.key = "topology",
	.parse = topology_parse,
	.fini = topology_fini,
};

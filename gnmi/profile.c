/*
 * gnmi_profile: loads mapping profiles (YAML) and maps gNMI leaves to
 * canonical store series with them (see profile.h, doc/profiles.md).
 *
 * A profile has a name, a description, a default prefix target, default
 * subscriptions (the config's keys) and a list of mappings tried in
 * file order: each has one or several path patterns over the full
 * flattened path of a leaf (prefix + path + JSON member names), and
 * either "ignore: true" (drop silently) or a canonical counter with its
 * scale, width, max_rate, a value map for gauges sent as words, and
 * optionally a fixed priority or queue. In a pattern element name or
 * key value, text is literal, '*' is a glob and {port}, {priority} and
 * {queue} capture (shortest match first, literal text required between
 * two of them); key names are literal, and keys a pattern does not name
 * are not looked at. A captured priority must be 0..7, else the next
 * pattern is tried. The notification's timestamp is the sample time
 * (0: now); a delete marks every cached series under the deleted path
 * discontinuous.
 *
 * Loading runs libyaml's event parser over a bounded buffer into a small
 * tree of nodes with their line:column (no anchors, aliases or second
 * documents, nesting at most PROFILE_MAX_DEPTH), then validates it key
 * by key the way core/cfg.c does: the first error stops the load and
 * is written as "file:line:col: key.path: message". Each mapping's path
 * patterns are parsed with gnmi_path_parse() and every element name and
 * key value is compiled into literal text, '*' globs and captures
 * ({port}, {priority}, {queue}). Patterns are bucketed by element count,
 * in file order, so a leaf is only tried against patterns of its own
 * length and the first match wins. A loaded profile is immutable: any
 * number of mappers on any threads may share it. The mapper, which
 * matches leaves against these patterns, is the module's other half,
 * gnmi/mapper.c; the compiled structs both read are in profile_int.h.
 *
 * Name maps (maps:) are read before the mappings: each has a field
 * pattern compiled like an element (captures only), a fixed
 * subscription path and an objects path with one {name} element; a
 * mapping element that is exactly {name} compiles to an object
 * reference (GP_TEXT_OBJ) that brings the map's captures with it.
 *
 * Ownership: the profile owns its patterns, mappings, name maps and
 * default subscriptions; the mapper owns its cache and key arena, and borrows
 * the profile and the store, which must outlive it.
 */
#include "config.h"

#include "profile.h"

#include "counters.h"
#include "gnmi_cfg.h"
#include "log.h"
#include "mem.h"
#include "path.h"
#include "profile_int.h"
#include "value.h"
#include "ytree.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#ifndef FABMON_PROFILEDIR
#define FABMON_PROFILEDIR "/usr/share/fabmon/profiles"
#endif

#define PROFILE_MAX_BYTES GNMI_PROFILE_MAX_BYTES
#define PROFILE_MAX_DEPTH 32
#define NAME_MAX_LEN	  64

static const char *const cap_names[GP_CAP_N] = { "port", "priority", "queue" };

/*
 * Typed values the other loaders do not share.
 */

/* A number in [min, max] as the callers here want it. */
static int node_uint(struct ytree_ctx *x, const struct ytree_node *n,
		     unsigned long min, unsigned long max, unsigned long *out)
{
	uint64_t v;
	int rc = ytree_uint(x, n, min, max, &v);
	if (rc == 0)
		*out = (unsigned long)v;
	return rc;
}

/* Runs a getter on key i of f with the key path extended by its name. */
#define WITH_KEY(x, f, i, call)                                          \
	({                                                               \
		int rc_ = 0;                                             \
		if ((f)->val[i]) {                                       \
			size_t saved_ = ytree_path_key(x, (f)->keys[i]); \
			rc_ = (call);                                    \
			if (rc_ == 0)                                    \
				ytree_path_cut(x, saved_);               \
		}                                                        \
		rc_;                                                     \
	})

/*
 * Patterns: element names and key values compiled into parts.
 */

static void text_clear(struct gp_text *t)
{
	free(t->s);
	free(t->parts);
	memset(t, 0, sizeof *t);
}

static void pattern_clear(struct gp_pattern *p)
{
	for (size_t i = 0; i < p->n; i++) {
		text_clear(&p->elem[i].name);
		for (size_t k = 0; k < p->elem[i].n_keys; k++) {
			free(p->elem[i].keys[k].name);
			text_clear(&p->elem[i].keys[k].value);
		}
		free(p->elem[i].keys);
	}
	free(p->elem);
	free(p->origin);
	memset(p, 0, sizeof *p);
}

/*
 * Compiles s into t. Captures are counted into seen[]; on error, a
 * message for the caller goes into msg.
 */
/* The name map called name (len bytes) of p, or -1. */
static ptrdiff_t objdef_find(const struct gnmi_profile *p, const char *name,
			     size_t len)
{
	for (size_t i = 0; p && i < p->n_objdefs; i++)
		if (strlen(p->objdefs[i].name) == len &&
		    !memcmp(p->objdefs[i].name, name, len))
			return (ptrdiff_t)i;
	return -1;
}

/* A whole-element {name} of one of p's name maps: t becomes an object
 * reference, whose map's key captures count as captured. */
static int text_object(struct gp_text *t, const struct gnmi_profile *p,
		       size_t len, unsigned seen[], char *msg, size_t msglen)
{
	ptrdiff_t d = objdef_find(p, t->s + 1, len - 2);
	const char *close = strchr(t->s, '}');
	if (d < 0 || close != t->s + len - 1) {
		snprintf(msg, msglen,
			 "\"%s\": unknown capture (expected {port}, "
			 "{priority}, {queue} or a map's {name})",
			 t->s);
		return -EINVAL;
	}
	t->kind = GP_TEXT_OBJ;
	t->obj = (size_t)d;
	for (int c = 0; c < GP_CAP_N; c++)
		if (p->objdefs[d].key_caps & (1u << c))
			seen[c]++;
	return 0;
}

static int text_compile(struct gp_text *t, const char *s, unsigned seen[],
			const struct gnmi_profile *prof, char *msg,
			size_t msglen)
{
	size_t len = strlen(s), n = 0;

	memset(t, 0, sizeof *t);
	t->s = xstrdup(s);
	t->len = len;
	if (prof && len > 2 && s[0] == '{' && s[len - 1] == '}' &&
	    objdef_find(prof, s + 1, len - 2) >= 0)
		return text_object(t, prof, len, seen, msg, msglen);
	t->parts = xcalloc(len ? len : 1, sizeof *t->parts);
	for (size_t i = 0; i < len;) {
		struct gp_part *p = &t->parts[n];
		if (s[i] == '*') {
			p->type = GP_STAR;
			i++;
		} else if (s[i] == '{') {
			const char *close = strchr(s + i, '}');
			size_t c;
			if (!close) {
				snprintf(msg, msglen, "\"%s\": '{' without '}'",
					 s);
				return -EINVAL;
			}
			size_t clen = (size_t)(close - (s + i + 1));
			for (c = 0; c < GP_CAP_N; c++)
				if (strlen(cap_names[c]) == clen &&
				    !memcmp(cap_names[c], s + i + 1, clen))
					break;
			if (c == GP_CAP_N &&
			    objdef_find(prof, s + i + 1, clen) >= 0) {
				snprintf(msg, msglen,
					 "\"%s\": {%.*s} names a map's object: "
					 "it must be a whole element",
					 s, (int)clen, s + i + 1);
				return -EINVAL;
			}
			if (c == GP_CAP_N) {
				snprintf(msg, msglen,
					 "\"%s\": unknown capture {%.*s} "
					 "(expected {port}, {priority}%s "
					 "{queue}%s)",
					 s, (int)clen, s + i + 1,
					 prof && prof->n_objdefs ? "," : " or",
					 prof && prof->n_objdefs
					     ? " or a map's {name}"
					     : "");
				return -EINVAL;
			}
			p->type = GP_CAP;
			p->cap = (enum gp_cap)c;
			seen[c]++;
			i += clen + 2;
		} else if (s[i] == '}') {
			snprintf(msg, msglen, "\"%s\": '}' without '{'", s);
			return -EINVAL;
		} else {
			size_t j = i;
			while (j < len && s[j] != '*' && s[j] != '{' &&
			       s[j] != '}')
				j++;
			p->type = GP_LIT;
			p->s = t->s + i;
			p->len = j - i;
			i = j;
		}
		if (n > 0 && p->type != GP_LIT &&
		    t->parts[n - 1].type != GP_LIT) {
			snprintf(msg, msglen,
				 "\"%s\": captures and '*' need literal "
				 "text between them",
				 s);
			return -EINVAL;
		}
		n++;
	}
	t->n_parts = n;
	if (n == 0 || (n == 1 && t->parts[0].type == GP_LIT))
		t->kind = GP_TEXT_LIT;
	else if (n == 1 && t->parts[0].type == GP_STAR)
		t->kind = GP_TEXT_ANY;
	else if (n == 1) {
		t->kind = GP_TEXT_CAP;
		t->cap = t->parts[0].cap;
	} else {
		t->kind = GP_TEXT_GEN;
	}
	return 0;
}

/*
 * Compiles one path pattern of mapping map. Returns 0, or -EINVAL with
 * the reason in msg; seen[] counts each capture's occurrences.
 */
static int pattern_compile(struct gp_pattern *p, const char *s, unsigned seen[],
			   const struct gnmi_profile *prof, char *msg,
			   size_t msglen)
{
	struct gnmi_path gp;
	char perr[160];
	int rc = 0;

	memset(p, 0, sizeof *p);
	p->lit_idx = -1;
	if (gnmi_path_parse(s, &gp, perr, sizeof perr)) {
		snprintf(msg, msglen, "%s", perr);
		return -EINVAL;
	}
	if (gp.n_elem == 0 || gp.n_elem > GNMI_VIEW_MAX) {
		snprintf(msg, msglen, "a pattern needs 1 to %d elements",
			 GNMI_VIEW_MAX);
		rc = -EINVAL;
		goto out;
	}
	if (gp.origin && *gp.origin)
		p->origin = xstrdup(gp.origin);
	p->elem = xcalloc(gp.n_elem, sizeof *p->elem);
	for (size_t i = 0; i < gp.n_elem; i++) {
		const struct gnmi_path_elem *e = &gp.elem[i];
		struct gp_elem *pe = &p->elem[i];
		p->n++;
		if (strcmp(e->name, "...") == 0) {
			snprintf(msg, msglen,
				 "\"...\" is not supported in patterns: "
				 "write each element");
			rc = -EINVAL;
			goto out;
		}
		rc = text_compile(&pe->name, e->name, seen, prof, msg, msglen);
		if (rc)
			goto out;
		if (pe->name.kind == GP_TEXT_OBJ)
			p->uses_obj = true;
		pe->keys = xcalloc(e->n_keys ? e->n_keys : 1, sizeof *pe->keys);
		for (size_t k = 0; k < e->n_keys; k++) {
			struct gp_key *pk = &pe->keys[k];
			pe->n_keys++;
			if (strpbrk(e->keys[k].name, "{}*")) {
				snprintf(msg, msglen,
					 "key name \"%s\": key names must "
					 "be literal",
					 e->keys[k].name);
				rc = -EINVAL;
				goto out;
			}
			pk->name = xstrdup(e->keys[k].name);
			pk->name_len = strlen(pk->name);
			rc = text_compile(&pk->value, e->keys[k].value, seen,
					  NULL, msg, msglen);
			if (rc)
				goto out;
		}
		/* The last all-literal name rejects most candidates at once
		 * (leaf names differ most). */
		if (pe->name.kind == GP_TEXT_LIT)
			p->lit_idx = (ptrdiff_t)i;
	}
out:
	gnmi_path_clear(&gp);
	return rc;
}

/*
 * Profile sections.
 */

static int parse_subs(struct ytree_ctx *x, struct gnmi_profile *p,
		      const struct ytree_node *n)
{
	if (ytree_is_null(n))
		return 0;
	if (n->kind != YTREE_SEQ)
		return ytree_fail(x, n, "expected a list");
	p->subs = xcalloc(n->n ? n->n : 1, sizeof *p->subs);
	for (size_t i = 0; i < n->n; i++) {
		size_t saved = ytree_path_index(x, i);
		p->n_subs++;
		int rc = gnmi_cfg_parse_sub(x, n->kids[i], 0, &p->subs[i]);
		if (rc)
			return rc;
		ytree_path_cut(x, saved);
	}
	return 0;
}

enum {
	MAP_K_PATH,
	MAP_K_COUNTER,
	MAP_K_IGNORE,
	MAP_K_SCALE,
	MAP_K_WIDTH,
	MAP_K_MAX_RATE,
	MAP_K_VALUES,
	MAP_K_PRIORITY,
	MAP_K_QUEUE,
	MAP_K_TARGET,
	MAP_K_N
};
static const char *const map_keys[MAP_K_N] = {
	[MAP_K_PATH] = "path",	   [MAP_K_COUNTER] = "counter",
	[MAP_K_IGNORE] = "ignore", [MAP_K_SCALE] = "scale",
	[MAP_K_WIDTH] = "width",   [MAP_K_MAX_RATE] = "max_rate",
	[MAP_K_VALUES] = "values", [MAP_K_PRIORITY] = "priority",
	[MAP_K_QUEUE] = "queue",   [MAP_K_TARGET] = "target",
};

static int map_counter(struct ytree_ctx *x, const struct ytree_node *n,
		       struct gp_map *m)
{
	const char *names[FM_C__COUNT];
	size_t nn = 0;
	char q[YTREE_QUOTE_BUF];
	int rc = ytree_want_scalar(x, n, "a counter name");
	if (rc)
		return rc;
	m->counter = fm_counter_by_name(n->str);
	m->info = fm_counter_info(m->counter);
	if (m->info)
		return 0;
	for (int i = FM_C_NONE + 1; i < FM_C__COUNT; i++)
		names[nn++] = fm_counter_info((enum fm_counter)i)->name;
	const char *best = ytree_closest(n->str, names, nn);
	if (best)
		return ytree_fail(x, n,
				  "unknown counter %s (did you mean \"%s\"?)",
				  ytree_quote(n, q, sizeof q), best);
	return ytree_fail(x, n, "unknown counter %s (see core/counters.c)",
			  ytree_quote(n, q, sizeof q));
}

static int map_scale(struct ytree_ctx *x, const struct ytree_node *n,
		     double *out, bool zero_ok)
{
	char q[YTREE_QUOTE_BUF];
	int rc = ytree_node_double(x, n, out);
	if (rc)
		return rc;
	if (*out < 0 || (*out == 0 && !zero_ok))
		return ytree_fail(x, n, "must be a %s number, not %s",
				  zero_ok ? "non-negative" : "positive",
				  ytree_quote(n, q, sizeof q));
	return 0;
}

static int map_values(struct ytree_ctx *x, const struct ytree_node *n,
		      struct gp_map *m)
{
	if (n->kind != YTREE_MAP || n->n == 0)
		return ytree_fail(x, n,
				  "expected a mapping of strings to numbers "
				  "(UP: 1)");
	m->values = xcalloc(n->n / 2, sizeof *m->values);
	for (size_t i = 0; i + 1 < n->n; i += 2) {
		const struct ytree_node *k = n->kids[i], *v = n->kids[i + 1];
		int rc = ytree_want_scalar(x, k, "a string");
		if (rc)
			return rc;
		for (size_t j = 0; j < m->n_values; j++)
			if (strcmp(m->values[j].name, k->str) == 0)
				return ytree_fail(
				    x, k, "duplicate value \"%s\"", k->str);
		size_t saved = ytree_path_key(x, k->str);
		struct gp_value *gv = &m->values[m->n_values];
		rc = ytree_node_double(x, v, &gv->value);
		if (rc)
			return rc;
		ytree_path_cut(x, saved);
		gv->name = xstrdup(k->str);
		m->n_values++;
	}
	return 0;
}

/* target: the prefix target of the only stream whose updates the
 * mapping takes (sonic-gnmi's database: APPL_DB). */
static int map_target(struct ytree_ctx *x, const struct ytree_node *n,
		      struct gp_map *m)
{
	int rc = ytree_str(x, n, &m->target);
	if (rc)
		return rc;
	if (!*m->target)
		return ytree_fail(x, n, "must not be empty");
	return 0;
}

/* Checks the captures of one pattern against its mapping's counter. */
static int check_captures(struct ytree_ctx *x, const struct ytree_node *at,
			  const struct gp_map *m, const unsigned seen[])
{
	for (int c = 0; c < GP_CAP_N; c++)
		if (seen[c] > 1)
			return ytree_fail(x, at,
					  "{%s} is captured more than once",
					  cap_names[c]);
	if (!m->info)
		return 0;
	if (!seen[GP_CAP_PORT])
		return ytree_fail(x, at, "the pattern must capture {port}");
	enum fm_sub sub = m->info->sub;
	if (seen[GP_CAP_PRIORITY] && sub != FM_SUB_PRIORITY)
		return ytree_fail(
		    x, at,
		    "counter %s is not per priority: it cannot take "
		    "{priority}",
		    m->info->name);
	if (seen[GP_CAP_QUEUE] && sub != FM_SUB_QUEUE)
		return ytree_fail(x, at,
				  "counter %s is not per queue: it cannot take "
				  "{queue}",
				  m->info->name);
	if (sub == FM_SUB_PRIORITY && !seen[GP_CAP_PRIORITY] && m->priority < 0)
		return ytree_fail(x, at,
				  "counter %s is per priority: capture "
				  "{priority} or set priority",
				  m->info->name);
	if (sub == FM_SUB_PRIORITY && seen[GP_CAP_PRIORITY] && m->priority >= 0)
		return ytree_fail(x, at,
				  "{priority} is captured and also set by "
				  "priority");
	if (sub == FM_SUB_QUEUE && !seen[GP_CAP_QUEUE] && !m->queue)
		return ytree_fail(x, at,
				  "counter %s is per queue: capture {queue} or "
				  "set queue",
				  m->info->name);
	if (sub == FM_SUB_QUEUE && seen[GP_CAP_QUEUE] && m->queue)
		return ytree_fail(x, at,
				  "{queue} is captured and also set by queue");
	return 0;
}

static int add_pattern(struct ytree_ctx *x, struct gnmi_profile *p,
		       const struct ytree_node *n, const struct gp_map *m,
		       size_t map_idx)
{
	unsigned seen[GP_CAP_N] = { 0 };
	char msg[256];
	int rc = ytree_want_scalar(x, n, "a path pattern");
	if (rc)
		return rc;
	p->pats = xreallocarray(p->pats, p->n_pats + 1, sizeof *p->pats);
	struct gp_pattern *pat = &p->pats[p->n_pats++];
	rc = pattern_compile(pat, n->str, seen, p, msg, sizeof msg);
	/* map is set once every mapping is read (index_patterns) */
	pat->map_idx = map_idx;
	if (rc)
		return ytree_fail(x, n, "%s", msg);
	return check_captures(x, n, m, seen);
}

static int parse_map(struct ytree_ctx *x, struct gnmi_profile *p,
		     const struct ytree_node *n, size_t idx)
{
	struct gp_map *m = &p->maps[idx];
	struct ytree_fields f;
	bool ignore = false;
	unsigned long ul;
	int rc = ytree_fields_get(x, n, map_keys, MAP_K_N, &f);
	if (rc)
		return rc;
	m->priority = -1;
	m->scale = 1;
	m->width = 64;
	m->line = n->line;
	if ((rc = ytree_need(x, &f, MAP_K_PATH)) ||
	    (rc = WITH_KEY(x, &f, MAP_K_IGNORE,
			   ytree_bool(x, f.val[MAP_K_IGNORE], &ignore))) ||
	    (rc = WITH_KEY(x, &f, MAP_K_TARGET,
			   map_target(x, f.val[MAP_K_TARGET], m))))
		return rc;
	if (ignore) {
		for (size_t i = 0; i < MAP_K_N; i++) {
			if (i == MAP_K_PATH || i == MAP_K_IGNORE ||
			    i == MAP_K_TARGET || !f.val[i])
				continue;
			ytree_path_key(x, map_keys[i]);
			return ytree_fail(x, f.key[i],
					  "an ignore entry takes only path "
					  "and target");
		}
	} else {
		if ((rc = ytree_need(x, &f, MAP_K_COUNTER)) ||
		    (rc = WITH_KEY(x, &f, MAP_K_COUNTER,
				   map_counter(x, f.val[MAP_K_COUNTER], m))))
			return rc;
	}
	bool gauge = m->info && m->info->kind == FM_KIND_GAUGE;
	if ((rc = WITH_KEY(
		 x, &f, MAP_K_SCALE,
		 map_scale(x, f.val[MAP_K_SCALE], &m->scale, false))) ||
	    (rc = WITH_KEY(
		 x, &f, MAP_K_MAX_RATE,
		 map_scale(x, f.val[MAP_K_MAX_RATE], &m->max_rate, true))))
		return rc;
	if (f.val[MAP_K_WIDTH]) {
		size_t saved = ytree_path_key(x, "width");
		if ((rc = node_uint(x, f.val[MAP_K_WIDTH], 0, ULONG_MAX, &ul)))
			return rc;
		if (ul != 32 && ul != 64)
			return ytree_fail(x, f.val[MAP_K_WIDTH],
					  "must be 32 or 64, not %lu", ul);
		if (gauge)
			return ytree_fail(x, f.val[MAP_K_WIDTH],
					  "applies to counters only (%s is a "
					  "gauge)",
					  m->info->name);
		m->width = (uint8_t)ul;
		ytree_path_cut(x, saved);
	}
	if (f.val[MAP_K_MAX_RATE] && gauge) {
		ytree_path_key(x, "max_rate");
		return ytree_fail(x, f.val[MAP_K_MAX_RATE],
				  "applies to counters only (%s is a gauge)",
				  m->info->name);
	}
	if (f.val[MAP_K_VALUES]) {
		size_t saved = ytree_path_key(x, "values");
		if (!gauge)
			return ytree_fail(
			    x, f.val[MAP_K_VALUES],
			    "applies to gauges only (%s is a counter)",
			    m->info->name);
		if ((rc = map_values(x, f.val[MAP_K_VALUES], m)))
			return rc;
		ytree_path_cut(x, saved);
	}
	if (f.val[MAP_K_PRIORITY]) {
		size_t saved = ytree_path_key(x, "priority");
		if ((rc = node_uint(x, f.val[MAP_K_PRIORITY], 0, 7, &ul)))
			return rc;
		if (m->info->sub != FM_SUB_PRIORITY)
			return ytree_fail(x, f.val[MAP_K_PRIORITY],
					  "counter %s is not per priority",
					  m->info->name);
		m->priority = (int)ul;
		ytree_path_cut(x, saved);
	}
	if (f.val[MAP_K_QUEUE]) {
		size_t saved = ytree_path_key(x, "queue");
		if ((rc = ytree_str(x, f.val[MAP_K_QUEUE], &m->queue)))
			return rc;
		if (m->info->sub != FM_SUB_QUEUE)
			return ytree_fail(x, f.val[MAP_K_QUEUE],
					  "counter %s is not per queue",
					  m->info->name);
		if (strlen(m->queue) >= LABEL_MAX)
			return ytree_fail(x, f.val[MAP_K_QUEUE], "is too long");
		ytree_path_cut(x, saved);
	}

	const struct ytree_node *pn = f.val[MAP_K_PATH];
	size_t saved = ytree_path_key(x, "path");
	if (pn->kind == YTREE_SEQ) {
		if (pn->n == 0)
			return ytree_fail(x, pn,
					  "expected at least one pattern");
		for (size_t i = 0; i < pn->n; i++) {
			size_t s2 = ytree_path_index(x, i);
			if ((rc = add_pattern(x, p, pn->kids[i], m, idx)))
				return rc;
			ytree_path_cut(x, s2);
		}
	} else if ((rc = add_pattern(x, p, pn, m, idx))) {
		return rc;
	}
	ytree_path_cut(x, saved);
	return 0;
}

static int parse_maps(struct ytree_ctx *x, struct gnmi_profile *p,
		      const struct ytree_node *n)
{
	if (n->kind != YTREE_SEQ || n->n == 0)
		return ytree_fail(x, n,
				  "expected a non-empty list of mappings");
	p->maps = xcalloc(n->n, sizeof *p->maps);
	for (size_t i = 0; i < n->n; i++) {
		size_t saved = ytree_path_index(x, i);
		p->n_maps++;
		int rc = parse_map(x, p, n->kids[i], i);
		if (rc)
			return rc;
		ytree_path_cut(x, saved);
	}
	return 0;
}

/*
 * Name maps.
 */

enum { OBJ_K_NAME, OBJ_K_KEY, OBJ_K_SUBSCRIPTION, OBJ_K_OBJECTS, OBJ_K_N };
static const char *const obj_keys[OBJ_K_N] = {
	[OBJ_K_NAME] = "name",
	[OBJ_K_KEY] = "key",
	[OBJ_K_SUBSCRIPTION] = "subscription",
	[OBJ_K_OBJECTS] = "objects",
};

static int objdef_name(struct ytree_ctx *x, struct gnmi_profile *p,
		       const struct ytree_node *n, struct gp_objdef *d)
{
	int rc = ytree_str(x, n, &d->name);
	if (rc)
		return rc;
	bool ok = *d->name && strlen(d->name) <= NAME_MAX_LEN;
	for (const char *c = d->name; *c; c++)
		ok = ok && (islower((unsigned char)*c) ||
			    isdigit((unsigned char)*c) || *c == '_');
	if (!ok)
		return ytree_fail(x, n,
				  "use lowercase letters, digits and '_' (at "
				  "most %d)",
				  NAME_MAX_LEN);
	for (int c = 0; c < GP_CAP_N; c++)
		if (strcmp(d->name, cap_names[c]) == 0)
			return ytree_fail(x, n,
					  "\"%s\" is a capture's name: pick "
					  "another",
					  d->name);
	if (objdef_find(p, d->name, strlen(d->name)) !=
	    (ptrdiff_t)(d - p->objdefs))
		return ytree_fail(x, n, "duplicate map \"%s\"", d->name);
	return 0;
}

static int objdef_key(struct ytree_ctx *x, const struct ytree_node *n,
		      struct gp_objdef *d)
{
	unsigned seen[GP_CAP_N] = { 0 };
	char msg[256];
	int rc = ytree_want_scalar(x, n, "a field pattern");
	if (rc)
		return rc;
	if (text_compile(&d->key, n->str, seen, NULL, msg, sizeof msg))
		return ytree_fail(x, n, "%s", msg);
	for (int c = 0; c < GP_CAP_N; c++) {
		if (seen[c] > 1)
			return ytree_fail(x, n,
					  "{%s} is captured more than once",
					  cap_names[c]);
		if (seen[c])
			d->key_caps |= 1u << c;
	}
	if (!d->key_caps)
		return ytree_fail(x, n,
				  "the key must capture {port}, {priority} "
				  "or {queue}");
	return 0;
}

/* The map's own subscription: a fixed path, whose leaves are its
 * fields. */
static int objdef_sub(struct ytree_ctx *x, const struct ytree_node *n,
		      struct gp_objdef *d)
{
	char err[160];
	int rc = gnmi_cfg_parse_sub(x, n, 0, &d->sub);
	if (rc)
		return rc;
	if (gnmi_path_parse(d->sub.path, &d->sub_path, err, sizeof err) ||
	    gnmi_path_has_wildcards(&d->sub_path) ||
	    strpbrk(d->sub.path, "{}") || d->sub_path.n_elem == 0 ||
	    d->sub_path.n_elem >= GNMI_VIEW_MAX)
		return ytree_fail(x, n,
				  "path %s: a map's path is a fixed path (no "
				  "'*' or captures)",
				  d->sub.path);
	return 0;
}

/* The per-object subscription: one element is exactly {name}. */
static int objdef_objects(struct ytree_ctx *x, const struct ytree_node *n,
			  struct gp_objdef *d)
{
	char err[160], want[NAME_MAX_LEN + 3];
	size_t found = 0;
	int rc = gnmi_cfg_parse_sub(x, n, 0, &d->objects);
	if (rc)
		return rc;
	if (gnmi_path_parse(d->objects.path, &d->obj_path, err, sizeof err))
		return ytree_fail(x, n, "path %s: %s", d->objects.path, err);
	snprintf(want, sizeof want, "{%s}", d->name);
	for (size_t i = 0; i < d->obj_path.n_elem; i++) {
		const struct gnmi_path_elem *e = &d->obj_path.elem[i];
		if (strcmp(e->name, want) == 0 && !e->n_keys) {
			d->obj_elem = i;
			found++;
		}
	}
	if (found != 1 || gnmi_path_has_wildcards(&d->obj_path))
		return ytree_fail(x, n,
				  "path %s: an objects path has no '*' and "
				  "exactly one element %s (the object id)",
				  d->objects.path, want);
	return 0;
}

static int parse_objdef(struct ytree_ctx *x, struct gnmi_profile *p,
			const struct ytree_node *n, struct gp_objdef *d)
{
	struct ytree_fields f;
	int rc = ytree_fields_get(x, n, obj_keys, OBJ_K_N, &f);
	if (rc)
		return rc;
	d->line = n->line;
	if ((rc = ytree_need(x, &f, OBJ_K_NAME)) ||
	    (rc = WITH_KEY(x, &f, OBJ_K_NAME,
			   objdef_name(x, p, f.val[OBJ_K_NAME], d))) ||
	    (rc = ytree_need(x, &f, OBJ_K_KEY)) ||
	    (rc = WITH_KEY(x, &f, OBJ_K_KEY,
			   objdef_key(x, f.val[OBJ_K_KEY], d))) ||
	    (rc = ytree_need(x, &f, OBJ_K_SUBSCRIPTION)) ||
	    (rc = WITH_KEY(x, &f, OBJ_K_SUBSCRIPTION,
			   objdef_sub(x, f.val[OBJ_K_SUBSCRIPTION], d))) ||
	    (rc = ytree_need(x, &f, OBJ_K_OBJECTS)) ||
	    (rc = WITH_KEY(x, &f, OBJ_K_OBJECTS,
			   objdef_objects(x, f.val[OBJ_K_OBJECTS], d))))
		return rc;
	return 0;
}

static int parse_objdefs(struct ytree_ctx *x, struct gnmi_profile *p,
			 const struct ytree_node *n)
{
	if (ytree_is_null(n))
		return 0;
	if (n->kind != YTREE_SEQ)
		return ytree_fail(x, n, "expected a list of maps");
	p->objdefs = xcalloc(n->n ? n->n : 1, sizeof *p->objdefs);
	for (size_t i = 0; i < n->n; i++) {
		size_t saved = ytree_path_index(x, i);
		p->n_objdefs++;
		int rc = parse_objdef(x, p, n->kids[i], &p->objdefs[i]);
		if (rc)
			return rc;
		ytree_path_cut(x, saved);
	}
	return 0;
}

static void sub_clear(struct cfg_gnmi_sub *s)
{
	free(s->path);
	free(s->origin);
	free(s->target);
}

static void objdefs_free(struct gnmi_profile *p)
{
	for (size_t i = 0; i < p->n_objdefs; i++) {
		struct gp_objdef *d = &p->objdefs[i];
		free(d->name);
		text_clear(&d->key);
		sub_clear(&d->sub);
		sub_clear(&d->objects);
		gnmi_path_clear(&d->sub_path);
		gnmi_path_clear(&d->obj_path);
	}
	free(p->objdefs);
}

static bool valid_name(const char *s)
{
	if (!*s || *s == '.' || strlen(s) > NAME_MAX_LEN)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.-", *s))
			return false;
	return true;
}

enum {
	TOP_K_NAME,
	TOP_K_DESCRIPTION,
	TOP_K_TARGET,
	TOP_K_SUBSCRIPTIONS,
	TOP_K_MAPS,
	TOP_K_MAPPINGS,
	TOP_K_N
};
static const char *const top_keys[TOP_K_N] = {
	[TOP_K_NAME] = "name",	   [TOP_K_DESCRIPTION] = "description",
	[TOP_K_TARGET] = "target", [TOP_K_SUBSCRIPTIONS] = "subscriptions",
	[TOP_K_MAPS] = "maps",	   [TOP_K_MAPPINGS] = "mappings",
};

static int parse_top(struct ytree_ctx *x, struct gnmi_profile *p,
		     const struct ytree_node *root)
{
	struct ytree_fields f;
	int rc = ytree_fields_get(x, root, top_keys, TOP_K_N, &f);
	if (rc)
		return rc;
	if ((rc = ytree_need(x, &f, TOP_K_NAME)) ||
	    (rc = WITH_KEY(x, &f, TOP_K_NAME,
			   ytree_str(x, f.val[TOP_K_NAME], &p->name))))
		return rc;
	if (!valid_name(p->name)) {
		ytree_path_key(x, "name");
		return ytree_fail(
		    x, f.val[TOP_K_NAME],
		    "use letters, digits, '_', '.' and '-' (at most "
		    "%d)",
		    NAME_MAX_LEN);
	}
	if ((rc = WITH_KEY(
		 x, &f, TOP_K_DESCRIPTION,
		 ytree_str(x, f.val[TOP_K_DESCRIPTION], &p->description))) ||
	    (rc = WITH_KEY(x, &f, TOP_K_TARGET,
			   ytree_str(x, f.val[TOP_K_TARGET], &p->target))) ||
	    (rc = WITH_KEY(x, &f, TOP_K_SUBSCRIPTIONS,
			   parse_subs(x, p, f.val[TOP_K_SUBSCRIPTIONS]))) ||
	    (rc = WITH_KEY(x, &f, TOP_K_MAPS,
			   parse_objdefs(x, p, f.val[TOP_K_MAPS]))) ||
	    (rc = ytree_need(x, &f, TOP_K_MAPPINGS)) ||
	    (rc = WITH_KEY(x, &f, TOP_K_MAPPINGS,
			   parse_maps(x, p, f.val[TOP_K_MAPPINGS]))))
		return rc;
	return 0;
}

/* Points patterns at their mappings and fills the buckets. */
static void index_patterns(struct gnmi_profile *p)
{
	for (size_t i = 0; i < p->n_pats; i++) {
		struct gp_pattern *pat = &p->pats[i];
		const struct gp_map *m = &p->maps[pat->map_idx];
		pat->map = m->info ? m : NULL;
		pat->target = m->target;
		struct gp_bucket *b = &p->bucket[pat->n];
		b->idx = xreallocarray(b->idx, b->n + 1, sizeof *b->idx);
		b->idx[b->n++] = i;
	}
}

/*
 * Profile API.
 */

struct gnmi_profile *gnmi_profile_load_buffer(const char *name, const char *buf,
					      size_t len, char *err,
					      size_t errlen)
{
	struct ytree_ctx x = {
		.name = name, .err = err, .errlen = errlen, .path_size = 256
	};
	struct ytree_node *root = NULL;
	struct gnmi_profile *p;

	if (err && errlen)
		err[0] = '\0';

	if (ytree_load(&x, buf, len, PROFILE_MAX_BYTES, PROFILE_MAX_DEPTH,
		       &root))
		return NULL;
	if (!root || ytree_is_null(root)) {
		ytree_fail_file(&x, "empty profile");
		ytree_free(root);
		return NULL;
	}
	p = xcalloc(1, sizeof *p);
	if (parse_top(&x, p, root)) {
		gnmi_profile_free(p);
		p = NULL;
	} else {
		index_patterns(p);
	}
	ytree_free(root);
	return p;
}

struct gnmi_profile *gnmi_profile_load(const char *path, char *err,
				       size_t errlen)
{
	struct ytree_ctx x = {
		.name = path, .err = err, .errlen = errlen, .path_size = 256
	};
	struct gnmi_profile *p = NULL;
	char *buf;
	size_t len = 0;

	if (err && errlen)
		err[0] = '\0';
	buf = ytree_read_file(&x, path, PROFILE_MAX_BYTES, &len);
	if (!buf)
		return NULL;
	p = gnmi_profile_load_buffer(path, buf, len, err, errlen);
	free(buf);
	return p;
}

struct gnmi_profile *gnmi_profile_load_named(const char *dir, const char *name,
					     char *err, size_t errlen)
{
	char *path;
	struct gnmi_profile *p;

	if (!name || !valid_name(name)) {
		if (err && errlen)
			snprintf(err, errlen,
				 "profile name \"%.64s\": use letters, "
				 "digits, '_', '.' and '-'",
				 name ? name : "");
		return NULL;
	}
	path = xasprintf("%s/%s.yaml", dir ? dir : FABMON_PROFILEDIR, name);
	p = gnmi_profile_load(path, err, errlen);
	free(path);
	return p;
}

void gnmi_profile_free(struct gnmi_profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_subs; i++) {
		free(p->subs[i].path);
		free(p->subs[i].origin);
		free(p->subs[i].target);
	}
	free(p->subs);
	for (size_t i = 0; i < p->n_maps; i++) {
		for (size_t j = 0; j < p->maps[i].n_values; j++)
			free(p->maps[i].values[j].name);
		free(p->maps[i].values);
		free(p->maps[i].queue);
		free(p->maps[i].target);
	}
	free(p->maps);
	for (size_t i = 0; i < p->n_pats; i++)
		pattern_clear(&p->pats[i]);
	free(p->pats);
	for (size_t i = 0; i <= GNMI_VIEW_MAX; i++)
		free(p->bucket[i].idx);
	objdefs_free(p);
	free(p->name);
	free(p->description);
	free(p->target);
	free(p);
}

const char *gnmi_profile_name(const struct gnmi_profile *p)
{
	return p->name;
}

const struct cfg_gnmi_sub *
gnmi_profile_subscriptions(const struct gnmi_profile *p, size_t *n,
			   const char **target)
{
	if (n)
		*n = p->n_subs;
	if (target)
		*target = p->target ? p->target : "";
	return p->subs;
}

size_t gnmi_profile_mappings(const struct gnmi_profile *p)
{
	return p->n_maps;
}

size_t gnmi_profile_maps(const struct gnmi_profile *p)
{
	return p->n_objdefs;
}

const char *gnmi_profile_map_info(const struct gnmi_profile *p, size_t i,
				  const struct cfg_gnmi_sub **sub,
				  const struct cfg_gnmi_sub **objects)
{
	if (i >= p->n_objdefs)
		return NULL;
	if (sub)
		*sub = &p->objdefs[i].sub;
	if (objects)
		*objects = &p->objdefs[i].objects;
	return p->objdefs[i].name;
}

struct gnmi_path *gnmi_profile_map_object_path(const struct gnmi_profile *p,
					       size_t i, const char *id)
{
	if (i >= p->n_objdefs)
		return NULL;
	const struct gp_objdef *d = &p->objdefs[i];
	struct gnmi_path *out = xcalloc(1, sizeof *out);
	gnmi_path_copy(out, &d->obj_path);
	free(out->elem[d->obj_elem].name);
	out->elem[d->obj_elem].name = xstrdup(id);
	if (d->objects.origin) {
		free(out->origin);
		out->origin = xstrdup(d->objects.origin);
	}
	return out;
}

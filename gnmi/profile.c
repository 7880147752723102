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
 * number of mappers on any threads may share it.
 *
 * A mapper belongs to one thread at a time (one target's stream). For
 * each leaf it serializes the joined path (origin, element names, keys)
 * into a scratch buffer, hashes it and looks it up in an open-addressing
 * cache; a hit carries the mapping, the store key and the series handle,
 * so the steady state is a hash, a memcmp and a store update, with no
 * allocation. A miss runs the patterns once, interns the labels and
 * caches the outcome, mapped or not (a negative entry is what makes
 * "report each unmapped path once" cheap). The cache stops growing at
 * its limit (GNMI_MAPPER_CACHE_MAX entries by default); paths seen after
 * that are matched every time and unmapped ones are no longer reported.
 * Handles are resolved lazily and again when the store answers -ESTALE
 * (the owner's series were withdrawn) or after gnmi_mapper_reset().
 *
 * Ownership: the profile owns its patterns, mappings and default
 * subscriptions; the mapper owns its cache and key arena, and borrows
 * the profile and the store, which must outlive it.
 */
#include "config.h"

#include "profile.h"

#include "counters.h"
#include "gnmi_cfg.h"
#include "log.h"
#include "mem.h"
#include "path.h"
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

#define PROFILE_MAX_BYTES (256 * 1024)
#define PROFILE_MAX_DEPTH 32
/* The wording profile messages have always had (see ytree.h). */
#define PROFILE_YTREE_FLAGS                                               \
	(YTREE_NULL_ANY_CASE | YTREE_NO_SYNTAX_CONTEXT | YTREE_KEY_CSTR | \
	 YTREE_KEY_NO_ELLIPSIS | YTREE_QUOTE_RANGE | YTREE_MINUS_NOT_NUMBER)
#define NAME_MAX_LEN 64

/* Mapper limits. */
#define KEY_MAX	    4096 /* serialized path bytes a cache key may hold */
#define LABEL_MAX   256	 /* bytes of a captured port or queue label */
#define ARENA_CHUNK (64 * 1024)

/* Bytes that separate the pieces of a serialized path. */
#define SEP_ELEM   '\0'
#define SEP_KEY	   '\x01'
#define SEP_VALUE  '\x02'
#define SEP_ORIGIN '\x03'

/*
 * Compiled patterns.
 */

enum gp_cap { GP_CAP_PORT, GP_CAP_PRIORITY, GP_CAP_QUEUE, GP_CAP_N };
static const char *const cap_names[GP_CAP_N] = { "port", "priority", "queue" };

enum gp_part_type { GP_LIT, GP_STAR, GP_CAP };

struct gp_part {
	enum gp_part_type type;
	enum gp_cap cap; /* GP_CAP */
	const char *s;	 /* GP_LIT: into the owning text */
	size_t len;
};

/* How a name or key value matches, from the cheapest case up. */
enum gp_text_kind { GP_TEXT_LIT, GP_TEXT_ANY, GP_TEXT_CAP, GP_TEXT_GEN };

struct gp_text {
	enum gp_text_kind kind;
	char *s; /* the pattern text (owned) */
	size_t len;
	enum gp_cap cap; /* GP_TEXT_CAP */
	struct gp_part *parts;
	size_t n_parts;
};

struct gp_key {
	char *name;
	size_t name_len;
	struct gp_text value;
};

struct gp_elem {
	struct gp_text name;
	struct gp_key *keys;
	size_t n_keys;
};

struct gp_value {
	char *name;
	double value;
};

/* One mapping entry of the file; ignore entries have counter FM_C_NONE. */
struct gp_map {
	enum fm_counter counter;
	const struct fm_counter_info *info;
	double scale;
	uint8_t width;
	double max_rate;
	struct gp_value *values;
	size_t n_values;
	int priority; /* fixed priority, -1 if none */
	char *queue;  /* fixed queue label, NULL if none */
	unsigned line;
};

struct gp_pattern {
	const struct gp_map *map; /* NULL for an ignore entry */
	size_t map_idx;
	char *origin; /* NULL: any origin */
	struct gp_elem *elem;
	size_t n;
	ptrdiff_t lit_idx; /* an all-literal element checked first, or -1 */
};

struct gp_bucket {
	size_t *idx; /* patterns of this element count, in file order */
	size_t n;
};

struct gnmi_profile {
	char *name;
	char *description;
	char *target;
	struct cfg_gnmi_sub *subs;
	size_t n_subs;
	struct gp_map *maps;
	size_t n_maps;
	struct gp_pattern *pats;
	size_t n_pats;
	struct gp_bucket bucket[GNMI_VIEW_MAX + 1];
};

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
static int text_compile(struct gp_text *t, const char *s, unsigned seen[],
			char *msg, size_t msglen)
{
	size_t len = strlen(s), n = 0;

	memset(t, 0, sizeof *t);
	t->s = xstrdup(s);
	t->len = len;
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
			if (c == GP_CAP_N) {
				snprintf(msg, msglen,
					 "\"%s\": unknown capture {%.*s} "
					 "(expected {port}, {priority} or "
					 "{queue})",
					 s, (int)clen, s + i + 1);
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
			   char *msg, size_t msglen)
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
		rc = text_compile(&pe->name, e->name, seen, msg, msglen);
		if (rc)
			goto out;
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
					  msg, msglen);
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
	MAP_K_N
};
static const char *const map_keys[MAP_K_N] = {
	[MAP_K_PATH] = "path",	   [MAP_K_COUNTER] = "counter",
	[MAP_K_IGNORE] = "ignore", [MAP_K_SCALE] = "scale",
	[MAP_K_WIDTH] = "width",   [MAP_K_MAX_RATE] = "max_rate",
	[MAP_K_VALUES] = "values", [MAP_K_PRIORITY] = "priority",
	[MAP_K_QUEUE] = "queue",
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
	rc = pattern_compile(pat, n->str, seen, msg, sizeof msg);
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
			   ytree_bool(x, f.val[MAP_K_IGNORE], &ignore))))
		return rc;
	if (ignore) {
		for (size_t i = 0; i < MAP_K_N; i++) {
			if (i == MAP_K_PATH || i == MAP_K_IGNORE || !f.val[i])
				continue;
			ytree_path_key(x, map_keys[i]);
			return ytree_fail(x, f.key[i],
					  "an ignore entry takes only path");
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
	TOP_K_MAPPINGS,
	TOP_K_N
};
static const char *const top_keys[TOP_K_N] = {
	[TOP_K_NAME] = "name",	       [TOP_K_DESCRIPTION] = "description",
	[TOP_K_TARGET] = "target",     [TOP_K_SUBSCRIPTIONS] = "subscriptions",
	[TOP_K_MAPPINGS] = "mappings",
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
	struct ytree_ctx x = { .name = name,
			       .err = err,
			       .errlen = errlen,
			       .flags = PROFILE_YTREE_FLAGS,
			       .path_size = 256 };
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
	struct ytree_ctx x = { .name = path,
			       .err = err,
			       .errlen = errlen,
			       .flags = PROFILE_YTREE_FLAGS,
			       .path_size = 256 };
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
	}
	free(p->maps);
	for (size_t i = 0; i < p->n_pats; i++)
		pattern_clear(&p->pats[i]);
	free(p->pats);
	for (size_t i = 0; i <= GNMI_VIEW_MAX; i++)
		free(p->bucket[i].idx);
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

/*
 * Matching.
 */

struct gp_match {
	const char *cap[GP_CAP_N];
	size_t cap_len[GP_CAP_N];
};

/* Parts from i on against s; captures are the shortest that work. */
static bool parts_match(const struct gp_part *parts, size_t i, size_t n,
			const char *s, size_t len, struct gp_match *mt)
{
	if (i == n)
		return len == 0;
	const struct gp_part *p = &parts[i];
	if (p->type == GP_LIT) {
		if (len < p->len || memcmp(s, p->s, p->len) != 0)
			return false;
		return parts_match(parts, i + 1, n, s + p->len, len - p->len,
				   mt);
	}
	/* A capture or '*': the next part, if any, is literal. */
	const struct gp_part *next = i + 1 < n ? &parts[i + 1] : NULL;
	size_t min = p->type == GP_CAP ? 1 : 0;
	if (!next) {
		if (len < min)
			return false;
		if (p->type == GP_CAP) {
			mt->cap[p->cap] = s;
			mt->cap_len[p->cap] = len;
		}
		return true;
	}
	for (size_t k = min; k + next->len <= len; k++) {
		if (memcmp(s + k, next->s, next->len) != 0)
			continue;
		if (parts_match(parts, i + 1, n, s + k, len - k, mt)) {
			if (p->type == GP_CAP) {
				mt->cap[p->cap] = s;
				mt->cap_len[p->cap] = k;
			}
			return true;
		}
	}
	return false;
}

static bool text_match(const struct gp_text *t, const char *s, size_t len,
		       struct gp_match *mt)
{
	switch (t->kind) {
	case GP_TEXT_LIT:
		return len == t->len && memcmp(s, t->s, len) == 0;
	case GP_TEXT_ANY:
		return true;
	case GP_TEXT_CAP:
		if (len == 0)
			return false;
		mt->cap[t->cap] = s;
		mt->cap_len[t->cap] = len;
		return true;
	case GP_TEXT_GEN:
		break;
	}
	return parts_match(t->parts, 0, t->n_parts, s, len, mt);
}

static bool pattern_match(const struct gp_pattern *p, const struct gnmi_view *v,
			  struct gp_match *mt)
{
	if (p->origin && strcmp(p->origin, v->origin) != 0)
		return false;
	if (p->lit_idx >= 0) {
		const struct gp_text *t = &p->elem[p->lit_idx].name;
		const struct gnmi_view_elem *e = &v->elem[p->lit_idx];
		if (e->name_len != t->len || memcmp(e->name, t->s, t->len))
			return false;
	}
	memset(mt, 0, sizeof *mt);
	for (size_t i = 0; i < p->n; i++) {
		const struct gp_elem *pe = &p->elem[i];
		const struct gnmi_view_elem *e = &v->elem[i];
		if (!text_match(&pe->name, e->name, e->name_len, mt))
			return false;
		for (size_t k = 0; k < pe->n_keys; k++) {
			const struct gp_key *pk = &pe->keys[k];
			size_t j;
			for (j = 0; j < e->n_keys; j++)
				if (e->keys[j].name_len == pk->name_len &&
				    !memcmp(e->keys[j].name, pk->name,
					    pk->name_len))
					break;
			if (j == e->n_keys ||
			    !text_match(&pk->value, e->keys[j].value,
					e->keys[j].value_len, mt))
				return false;
		}
	}
	return true;
}

/* Parses a captured priority: decimal 0..7, else -1. */
static int parse_priority(const char *s, size_t len)
{
	int v = 0;

	if (len == 0 || len > 3)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v <= 7 ? v : -1;
}

/* Captured labels must be usable: a priority 0..7, labels that fit. */
static bool captures_usable(const struct gp_match *mt, int *priority)
{
	*priority = -1;
	for (int c = 0; c < GP_CAP_N; c++)
		if (mt->cap[c] && (mt->cap_len[c] >= LABEL_MAX ||
				   memchr(mt->cap[c], '\0', mt->cap_len[c])))
			return false;
	if (mt->cap[GP_CAP_PRIORITY]) {
		*priority = parse_priority(mt->cap[GP_CAP_PRIORITY],
					   mt->cap_len[GP_CAP_PRIORITY]);
		if (*priority < 0)
			return false;
	}
	return true;
}

/*
 * The first pattern (file order) that matches v with usable captures,
 * or NULL; *priority is the captured priority (or -1).
 */
static const struct gp_pattern *profile_match(const struct gnmi_profile *p,
					      const struct gnmi_view *v,
					      struct gp_match *mt,
					      int *priority)
{
	*priority = -1;
	if (v->n > GNMI_VIEW_MAX)
		return NULL;
	const struct gp_bucket *b = &p->bucket[v->n];
	for (size_t i = 0; i < b->n; i++) {
		const struct gp_pattern *pat = &p->pats[b->idx[i]];
		if (!pattern_match(pat, v, mt))
			continue;
		if (!pat->map || captures_usable(mt, priority))
			return pat;
	}
	return NULL;
}

/*
 * The mapper.
 */

struct gm_entry {
	uint64_t hash;
	const char *kb; /* serialized path, in the arena */
	uint32_t key_len;
	bool reported;		  /* unmapped path given to the callback */
	const struct gp_map *map; /* NULL: unmapped or ignored */
	store_handle h;		  /* 0: resolve before use */
	struct store_key key;
};

struct gm_chunk {
	struct gm_chunk *next;
	size_t used, cap;
	char data[];
};

struct gnmi_mapper {
	const struct gnmi_profile *p;
	struct gnmi_mapper_opts o;
	size_t cache_max;
	/* The cache: entries, and an index of entry numbers + 1. */
	struct gm_entry *ent;
	size_t n_ent, cap_ent;
	uint32_t *slot;
	size_t n_slot; /* a power of two, at least 2 * n_ent */
	struct gm_chunk *arena;
	size_t arena_bytes;
	bool full_logged;
	/* The notification being applied. */
	int64_t ts;
	struct gnmi_apply_stats *st;
	struct gnmi_mapper_stats ms;
	/* Scratch: a serialized key, a printed path, a label. */
	char kbuf[KEY_MAX];
	char pbuf[KEY_MAX];
	char lbuf[LABEL_MAX];
};

/* Serializes v (origin, names, keys) into buf; -1 if it does not fit. */
static ptrdiff_t key_serialize(const struct gnmi_view *v, char *buf, size_t cap)
{
	size_t n = 0;

#define PUT(src, len)                          \
	do {                                   \
		if ((len) > cap - n)           \
			return -1;             \
		memcpy(buf + n, (src), (len)); \
		n += (len);                    \
	} while (0)
#define PUTC(c)                    \
	do {                       \
		if (n == cap)      \
			return -1; \
		buf[n++] = (c);    \
	} while (0)

	if (v->origin[0]) {
		PUT(v->origin, strlen(v->origin));
		PUTC(SEP_ORIGIN);
	}
	for (size_t i = 0; i < v->n; i++) {
		const struct gnmi_view_elem *e = &v->elem[i];
		PUT(e->name, e->name_len);
		for (size_t k = 0; k < e->n_keys; k++) {
			PUTC(SEP_KEY);
			PUT(e->keys[k].name, e->keys[k].name_len);
			PUTC(SEP_VALUE);
			PUT(e->keys[k].value, e->keys[k].value_len);
		}
		PUTC(SEP_ELEM);
	}
#undef PUT
#undef PUTC
	return (ptrdiff_t)n;
}

/* A 64-bit multiply-xorshift hash over 8-byte words. Not keyed: a
 * target that forged colliding paths would only slow its own mapper. */
static uint64_t key_hash(const char *p, size_t n)
{
	const uint64_t k = UINT64_C(0x9e3779b97f4a7c15);
	uint64_t h = UINT64_C(0x243f6a8885a308d3) ^ (n * k);
	uint64_t w;

	while (n >= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * k;
		h ^= h >> 29;
		p += 8;
		n -= 8;
	}
	if (n) {
		w = 0;
		memcpy(&w, p, n);
		h = (h ^ w) * k;
	}
	h ^= h >> 32;
	h *= UINT64_C(0xd6e8feb86659fd93);
	h ^= h >> 32;
	return h;
}

static struct gm_entry *cache_find(struct gnmi_mapper *m, uint64_t h,
				   const char *key, size_t len)
{
	if (!m->n_slot)
		return NULL;
	size_t mask = m->n_slot - 1;
	for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
		uint32_t s = m->slot[i];
		if (!s)
			return NULL;
		struct gm_entry *e = &m->ent[s - 1];
		if (e->hash == h && e->key_len == len &&
		    memcmp(e->kb, key, len) == 0)
			return e;
	}
}

static void cache_grow_index(struct gnmi_mapper *m)
{
	size_t n = m->n_slot ? 2 * m->n_slot : 1024;
	uint32_t *slot = xcalloc(n, sizeof *slot);
	for (size_t e = 0; e < m->n_ent; e++) {
		size_t i = (size_t)m->ent[e].hash & (n - 1);
		while (slot[i])
			i = (i + 1) & (n - 1);
		slot[i] = (uint32_t)(e + 1);
	}
	free(m->slot);
	m->slot = slot;
	m->n_slot = n;
}

static const char *arena_copy(struct gnmi_mapper *m, const char *s, size_t n)
{
	struct gm_chunk *c = m->arena;
	if (!c || c->cap - c->used < n) {
		size_t cap = n > ARENA_CHUNK ? n : ARENA_CHUNK;
		c = xmalloc(sizeof *c + cap);
		c->next = m->arena;
		c->used = 0;
		c->cap = cap;
		m->arena = c;
		m->arena_bytes += sizeof *c + cap;
	}
	char *d = c->data + c->used;
	memcpy(d, s, n);
	c->used += n;
	return d;
}

/* Adds an entry for key; NULL when the cache is at its limit. */
static struct gm_entry *cache_add(struct gnmi_mapper *m, uint64_t h,
				  const char *key, size_t len)
{
	if (m->n_ent >= m->cache_max) {
		if (!m->full_logged)
			log_warn("gnmi",
				 "%s: path cache full (%zu paths): new paths "
				 "are matched every time",
				 store_label_str(m->o.store, m->o.owner)
				     ? store_label_str(m->o.store, m->o.owner)
				     : "?",
				 m->n_ent);
		m->full_logged = true;
		return NULL;
	}
	if (2 * (m->n_ent + 1) > m->n_slot)
		cache_grow_index(m);
	if (m->n_ent == m->cap_ent) {
		m->cap_ent = m->cap_ent ? 2 * m->cap_ent : 512;
		m->ent = xreallocarray(m->ent, m->cap_ent, sizeof *m->ent);
	}
	struct gm_entry *e = &m->ent[m->n_ent];
	memset(e, 0, sizeof *e);
	e->hash = h;
	e->kb = arena_copy(m, key, len);
	e->key_len = (uint32_t)len;
	size_t mask = m->n_slot - 1, i = (size_t)h & mask;
	while (m->slot[i])
		i = (i + 1) & mask;
	m->slot[i] = (uint32_t)++m->n_ent;
	m->ms.cache_entries = m->n_ent;
	return e;
}

/* Interns a captured label (copied to be NUL-terminated). */
static store_label intern_slice(struct gnmi_mapper *m, const char *s,
				size_t len)
{
	memcpy(m->lbuf, s, len);
	m->lbuf[len] = '\0';
	return store_intern(m->o.store, m->lbuf);
}

/*
 * The outcome of matching v into e: its mapping and store key, or map
 * NULL (no mapping, an ignore entry, or captures that do not make a
 * key). Returns true if a mapping matched (ignored or not).
 */
static bool entry_resolve_match(struct gnmi_mapper *m,
				const struct gnmi_view *v, struct gm_entry *e)
{
	struct gp_match mt;
	int prio;
	const struct gp_pattern *pat = profile_match(m->p, v, &mt, &prio);

	e->map = NULL;
	e->h = 0;
	memset(&e->key, 0, sizeof e->key);
	if (!pat)
		return false;
	if (!pat->map)
		return true;
	const struct gp_map *map = pat->map;
	struct store_key k = { .device = m->o.device,
			       .counter = (uint16_t)map->counter };
	k.port = intern_slice(m, mt.cap[GP_CAP_PORT], mt.cap_len[GP_CAP_PORT]);
	if (map->info->sub == FM_SUB_PRIORITY)
		k.sub = (uint32_t)(map->priority >= 0 ? map->priority : prio);
	else if (map->info->sub == FM_SUB_QUEUE)
		k.sub = map->queue ? store_intern(m->o.store, map->queue)
				   : intern_slice(m, mt.cap[GP_CAP_QUEUE],
						  mt.cap_len[GP_CAP_QUEUE]);
	e->map = map;
	e->key = k;
	return true;
}

static store_handle entry_series(struct gnmi_mapper *m, struct gm_entry *e)
{
	struct store_series_spec spec = {
		.owner = m->o.owner,
		.width = e->map->width,
		.scale = e->map->scale,
		.max_rate = e->map->max_rate,
		.interval_ms = m->o.interval_ms,
	};
	m->ms.resolves++;
	e->h = store_series(m->o.store, &e->key, &spec);
	return e->h;
}

static int gauge_value(const struct gp_map *map, const struct gnmi_scalar *v,
		       double *out)
{
	if (!map->n_values || v->kind != GNMI_SCALAR_STRING)
		return gnmi_scalar_double(v, out);
	for (int pass = 0; pass < 2; pass++) {
		const char *s = v->s;
		size_t len = v->len;
		if (pass == 1) {
			/* An identity may come with its module prefix
			 * ("openconfig-if-types:UP"). */
			const char *c = memrchr(s, ':', len);
			if (!c)
				break;
			len -= (size_t)(c + 1 - s);
			s = c + 1;
		}
		for (size_t i = 0; i < map->n_values; i++)
			if (strlen(map->values[i].name) == len &&
			    memcmp(map->values[i].name, s, len) == 0) {
				*out = map->values[i].value;
				return 0;
			}
	}
	/* JSON_IETF sends numbers as strings too. */
	return gnmi_scalar_double(v, out);
}

/* Writes one value of a mapped entry; 0 or a negative errno. */
static int entry_write(struct gnmi_mapper *m, struct gm_entry *e,
		       const struct gnmi_scalar *v)
{
	uint64_t raw = 0;
	double d = 0;
	bool gauge = e->map->info->kind == FM_KIND_GAUGE;
	int rc = gauge ? gauge_value(e->map, v, &d) : gnmi_scalar_u64(v, &raw);

	if (rc)
		return rc;
	if (gauge && !isfinite(d))
		return -ERANGE;
	for (int attempt = 0; attempt < 2; attempt++) {
		if (!e->h && !entry_series(m, e))
			return -EEXIST;
		rc = gauge ? store_set_gauge(m->o.store, e->h, d, m->ts)
			   : store_update(m->o.store, e->h, raw, m->ts);
		if (rc != -ESTALE)
			return rc;
		e->h = 0;
	}
	return rc;
}

static void report_unmapped(struct gnmi_mapper *m, const struct gnmi_view *v)
{
	m->ms.unmapped_paths++;
	if (!m->o.unmapped)
		return;
	gnmi_view_format(v, m->pbuf, sizeof m->pbuf);
	m->o.unmapped(m->o.ctx, m->pbuf);
}

static void on_leaf(void *ctx, const struct gnmi_view *v,
		    const struct gnmi_scalar *val)
{
	struct gnmi_mapper *m = ctx;
	struct gm_entry tmp, *e = NULL;

	if (m->o.leaf_hook && m->o.leaf_hook(m->o.ctx, v, val)) {
		m->st->mapped++;
		return;
	}
	ptrdiff_t len = key_serialize(v, m->kbuf, sizeof m->kbuf);
	uint64_t h = 0;

	if (len >= 0) {
		h = key_hash(m->kbuf, (size_t)len);
		e = cache_find(m, h, m->kbuf, (size_t)len);
	}
	if (e) {
		m->ms.cache_hits++;
	} else {
		m->ms.cache_misses++;
		if (len >= 0)
			e = cache_add(m, h, m->kbuf, (size_t)len);
		if (!e) {
			m->ms.uncached++;
			memset(&tmp, 0, sizeof tmp);
			e = &tmp;
		}
		bool matched = entry_resolve_match(m, v, e);
		if (!matched && e != &tmp) {
			e->reported = true;
			report_unmapped(m, v);
		}
	}
	if (!e->map) {
		m->st->unmapped++;
		return;
	}
	if (entry_write(m, e, val) == 0)
		m->st->mapped++;
	else
		m->st->rejected++;
}

static void mark_entry(struct gnmi_mapper *m, struct gm_entry *e)
{
	if (!e->map)
		return;
	if (!e->h)
		e->h = store_lookup(m->o.store, &e->key);
	if (e->h && store_mark_discontinuity(m->o.store, e->h) == -ESTALE)
		e->h = 0;
}

/*
 * A delete names a leaf or a subtree: every cached series under it is
 * marked discontinuous (a scan of the cache: deletes are rare), and a
 * leaf never seen by this mapper is matched against the patterns.
 */
static void on_delete(void *ctx, const struct gnmi_view *v)
{
	struct gnmi_mapper *m = ctx;
	if (m->o.delete_hook && m->o.delete_hook(m->o.ctx, v))
		return;
	ptrdiff_t len = key_serialize(v, m->kbuf, sizeof m->kbuf);
	bool any = false;

	if (len >= 0) {
		for (size_t i = 0; i < m->n_ent; i++) {
			struct gm_entry *e = &m->ent[i];
			if (e->key_len >= (size_t)len &&
			    memcmp(e->kb, m->kbuf, (size_t)len) == 0) {
				mark_entry(m, e);
				any = any || e->map;
			}
		}
	}
	if (!any) {
		struct gm_entry tmp = { 0 };
		if (entry_resolve_match(m, v, &tmp))
			mark_entry(m, &tmp);
	}
}

struct gnmi_mapper *gnmi_mapper_new(const struct gnmi_profile *p,
				    const struct gnmi_mapper_opts *o)
{
	struct gnmi_mapper *m = xcalloc(1, sizeof *m);
	m->p = p;
	m->o = *o;
	m->cache_max = GNMI_MAPPER_CACHE_MAX;
	return m;
}

void gnmi_mapper_free(struct gnmi_mapper *m)
{
	if (!m)
		return;
	while (m->arena) {
		struct gm_chunk *c = m->arena;
		m->arena = c->next;
		free(c);
	}
	free(m->ent);
	free(m->slot);
	free(m);
}

/* Points the callbacks at st and the timestamp (0 or nonsense: now). */
static void apply_begin(struct gnmi_mapper *m, int64_t timestamp,
			struct gnmi_apply_stats *st)
{
	m->ts = timestamp > 0 ? timestamp : 0;
	m->st = st;
}

static void apply_end(struct gnmi_mapper *m, const struct gnmi_walk_stats *ws)
{
	m->st->deletes += ws->deletes;
	m->st->bad += ws->bad_json + ws->too_deep + ws->unsupported;
	m->st = NULL;
}

void gnmi_mapper_apply(struct gnmi_mapper *m, const Gnmi__Notification *n,
		       struct gnmi_apply_stats *st)
{
	struct gnmi_apply_stats dummy = { 0 };
	struct gnmi_walk_stats ws = { 0 };

	apply_begin(m, n->timestamp, st ? st : &dummy);
	gnmi_walk_notification(n, on_leaf, on_delete, m, &ws);
	apply_end(m, &ws);
}

int gnmi_mapper_apply_wire(struct gnmi_mapper *m, const uint8_t *data,
			   size_t len, struct gnmi_apply_stats *st,
			   struct gnmi_wire_info *info)
{
	struct gnmi_apply_stats dummy = { 0 };
	struct gnmi_walk_stats ws = { 0 };
	struct gnmi_wire_info local;
	int rc;

	if (!info)
		info = &local;
	rc = gnmi_wire_parse(data, len, info);
	if (rc < 0 || info->kind != GNMI_WIRE_UPDATE)
		return rc;
	apply_begin(m, info->timestamp, st ? st : &dummy);
	gnmi_wire_walk(info, on_leaf, on_delete, m, &ws);
	apply_end(m, &ws);
	return GNMI_WIRE_OK;
}

void gnmi_mapper_reset(struct gnmi_mapper *m)
{
	for (size_t i = 0; i < m->n_ent; i++)
		m->ent[i].h = 0;
}

void gnmi_mapper_set_cache_limit(struct gnmi_mapper *m, size_t max_entries)
{
	m->cache_max =
	    max_entries < UINT32_MAX - 1 ? max_entries : UINT32_MAX - 1;
}

void gnmi_mapper_get_stats(const struct gnmi_mapper *m,
			   struct gnmi_mapper_stats *out)
{
	*out = m->ms;
	out->cache_entries = m->n_ent;
	out->memory_bytes = sizeof *m + m->cap_ent * sizeof *m->ent +
			    m->n_slot * sizeof *m->slot + m->arena_bytes;
}

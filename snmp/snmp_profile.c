/*
 * snmp_profile: SNMP mapping profiles (see snmp_profile.h).
 */
#include "config.h"

#include "snmp_profile.h"

#include "mem.h"
#include "ytree.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROFILE_MAX_DEPTH 16
#define MAX_COLUMNS	  256
#define MAX_MATCH	  64
#define MAX_INCLUDES	  8

int snmp_oid_parse(const char *s, oid *out, size_t max, size_t *len)
{
	size_t n = 0;
	if (*s == '.')
		s++;
	if (!*s)
		return -EINVAL;
	while (*s) {
		if (!isdigit((unsigned char)*s) || n == max)
			return -EINVAL;
		uint64_t v = 0;
		while (isdigit((unsigned char)*s)) {
			v = v * 10 + (uint64_t)(*s++ - '0');
			if (v > UINT32_MAX)
				return -EINVAL;
		}
		out[n++] = (oid)v;
		if (*s == '.') {
			s++;
			if (!*s)
				return -EINVAL;
		} else if (*s) {
			return -EINVAL;
		}
	}
	if (n < 2)
		return -EINVAL;
	*len = n;
	return 0;
}

char *snmp_oid_format(const oid *o, size_t len, char *buf, size_t size)
{
	size_t off = 0;
	if (size)
		buf[0] = '\0';
	for (size_t i = 0; i < len && off < size; i++) {
		int w = snprintf(buf + off, size - off, "%s%lu", i ? "." : "",
				 (unsigned long)o[i]);
		if (w < 0)
			break;
		off += (size_t)w;
	}
	return buf;
}

static int node_oid(struct ytree_ctx *x, const struct ytree_node *n, oid *out,
		    size_t *len)
{
	char q[YTREE_QUOTE_BUF];
	int rc = ytree_want_scalar(x, n, "a numeric OID");
	if (rc)
		return rc;
	if (snmp_oid_parse(n->str, out, SNMP_PROFILE_MAX_OID, len))
		return ytree_fail(x, n,
				  "%s is not a numeric OID (digits and dots, "
				  "at most %d sub-identifiers)",
				  ytree_quote(n, q, sizeof q),
				  SNMP_PROFILE_MAX_OID);
	return 0;
}

static int node_int(struct ytree_ctx *x, const struct ytree_node *n,
		    int64_t *out)
{
	char q[YTREE_QUOTE_BUF];
	bool neg;
	uint64_t v;
	int rc = ytree_want_scalar(x, n, "an integer");
	if (rc)
		return rc;
	if (ytree_parse_uint(n->str, &neg, &v) || v > INT32_MAX)
		return ytree_fail(x, n, "%s is not a 32-bit integer",
				  ytree_quote(n, q, sizeof q));
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

static int parse_counter(struct ytree_ctx *x, const struct ytree_node *n,
			 enum fm_counter *out)
{
	char q[YTREE_QUOTE_BUF];
	const char *names[FM_C__COUNT];
	size_t nn = 0;
	int rc = ytree_want_scalar(x, n, "a counter name");
	if (rc)
		return rc;
	enum fm_counter c = fm_counter_by_name(n->str);
	if (c != FM_C_NONE) {
		*out = c;
		return 0;
	}
	for (int i = 1; i < FM_C__COUNT; i++)
		names[nn++] = fm_counter_info((enum fm_counter)i)->name;
	const char *best = ytree_closest(n->str, names, nn);
	if (best)
		return ytree_fail(x, n,
				  "unknown counter %s (did you mean \"%s\"?)",
				  ytree_quote(n, q, sizeof q), best);
	return ytree_fail(x, n, "unknown counter %s (see core/counters.c)",
			  ytree_quote(n, q, sizeof q));
}

static int parse_index(struct ytree_ctx *x, const struct ytree_node *n,
		       struct snmp_vb_index *idx)
{
	char q[YTREE_QUOTE_BUF];
	size_t count;
	int rc = ytree_want_seq(x, n, &count);
	if (rc)
		return rc;
	if (count == 0 || count > SNMP_VB_MAX_INDEX)
		return ytree_fail(x, n, "must list 1 to %d index elements",
				  SNMP_VB_MAX_INDEX);
	for (size_t i = 0; i < count; i++) {
		const struct ytree_node *e = n->kids[i];
		size_t saved = ytree_path_index(x, i);
		if ((rc = ytree_want_scalar(x, e, "an index element")))
			return rc;
		bool neg;
		uint64_t v;
		if (strcmp(e->str, "port") == 0) {
			idx->el[i] = SNMP_IDX_PORT;
		} else if (strcmp(e->str, "priority") == 0) {
			idx->el[i] = SNMP_IDX_PRIORITY;
		} else if (strcmp(e->str, "*") == 0) {
			idx->el[i] = SNMP_IDX_ANY;
		} else if (ytree_parse_uint(e->str, &neg, &v) == 0 && !neg &&
			   v <= UINT32_MAX) {
			idx->el[i] = SNMP_IDX_FIXED;
			idx->fixed[i] = (uint32_t)v;
		} else {
			return ytree_fail(x, e,
					  "%s is not port, priority, * or a "
					  "number",
					  ytree_quote(e, q, sizeof q));
		}
		for (size_t j = 0; j < i; j++)
			if ((idx->el[i] == SNMP_IDX_PORT ||
			     idx->el[i] == SNMP_IDX_PRIORITY) &&
			    idx->el[j] == idx->el[i])
				return ytree_fail(x, e, "%s appears twice",
						  e->str);
		ytree_path_cut(x, saved);
	}
	idx->n = count;
	return 0;
}

static int parse_values(struct ytree_ctx *x, const struct ytree_node *n,
			struct snmp_column *c)
{
	if (n->kind != YTREE_MAP)
		return ytree_fail(x, n, "expected a map of integer: number");
	if (n->n / 2 > SNMP_PROFILE_MAX_VALUES)
		return ytree_fail(x, n, "at most %d values",
				  SNMP_PROFILE_MAX_VALUES);
	for (size_t i = 0; i + 1 < n->n; i += 2) {
		size_t saved = ytree_path_key(x, n->kids[i]->str);
		int rc;
		if ((rc = node_int(x, n->kids[i], &c->map_from[c->n_map])) ||
		    (rc = ytree_node_double(x, n->kids[i + 1],
					    &c->map_to[c->n_map])))
			return rc;
		c->n_map++;
		ytree_path_cut(x, saved);
	}
	return 0;
}

enum {
	COL_K_OID,
	COL_K_NAME,
	COL_K_COUNTER,
	COL_K_INDEX,
	COL_K_SCALE,
	COL_K_MAX_RATE,
	COL_K_VALUES,
	COL_K_PRIO_BASE,
	COL_K_FALLBACK,
	COL_K_WIDTH,
	COL_K_N
};
static const char *const col_keys[COL_K_N] = {
	[COL_K_OID] = "oid",
	[COL_K_NAME] = "name",
	[COL_K_COUNTER] = "counter",
	[COL_K_INDEX] = "index",
	[COL_K_SCALE] = "scale",
	[COL_K_MAX_RATE] = "max_rate",
	[COL_K_VALUES] = "values",
	[COL_K_PRIO_BASE] = "priority_base",
	[COL_K_FALLBACK] = "fallback_for",
	[COL_K_WIDTH] = "width",
};

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

static bool oid_eq(const oid *a, size_t an, const oid *b, size_t bn)
{
	return an == bn && memcmp(a, b, an * sizeof *a) == 0;
}

/* The width key: 32 or 64, counters only (c->counter is parsed). */
static int parse_width(struct ytree_ctx *x, struct ytree_fields *f,
		       struct snmp_column *c)
{
	uint64_t width = 0;
	if (!f->val[COL_K_WIDTH])
		return 0;
	int rc = WITH_KEY(x, f, COL_K_WIDTH,
			  ytree_uint(x, f->val[COL_K_WIDTH], 32, 64, &width));
	if (rc)
		return rc;
	if (width != 32 && width != 64)
		return ytree_fail_key(x, f, COL_K_WIDTH, "must be 32 or 64");
	const struct fm_counter_info *ci = fm_counter_info(c->counter);
	if (ci->kind == FM_KIND_GAUGE)
		return ytree_fail_key(x, f, COL_K_WIDTH,
				      "only counters take width, and %s is a "
				      "gauge",
				      ci->name);
	c->width = (uint8_t)width;
	return 0;
}

static int parse_column(struct ytree_ctx *x, struct snmp_profile *p,
			struct snmp_column *c, const struct ytree_node *n)
{
	struct ytree_fields f;
	char buf[SNMP_PROFILE_MAX_OID * 11];
	uint64_t base = 0;
	int rc = ytree_fields_get(x, n, col_keys, COL_K_N, &f);
	if (rc)
		return rc;
	c->scale = 1;
	c->fallback_for = -1;
	c->index.n = 1;
	c->index.el[0] = SNMP_IDX_PORT;
	if ((rc = ytree_need(x, &f, COL_K_OID)) ||
	    (rc = ytree_need(x, &f, COL_K_COUNTER)) ||
	    (rc = WITH_KEY(
		 x, &f, COL_K_OID,
		 node_oid(x, f.val[COL_K_OID], c->oid, &c->oid_len))) ||
	    (rc = ytree_opt_str(x, &f, COL_K_NAME, &c->name)) ||
	    (rc = WITH_KEY(
		 x, &f, COL_K_COUNTER,
		 parse_counter(x, f.val[COL_K_COUNTER], &c->counter))) ||
	    (rc = WITH_KEY(x, &f, COL_K_INDEX,
			   parse_index(x, f.val[COL_K_INDEX], &c->index))) ||
	    (rc = WITH_KEY(
		 x, &f, COL_K_SCALE,
		 ytree_node_double(x, f.val[COL_K_SCALE], &c->scale))) ||
	    (rc = WITH_KEY(
		 x, &f, COL_K_MAX_RATE,
		 ytree_node_double(x, f.val[COL_K_MAX_RATE], &c->max_rate))) ||
	    (rc = WITH_KEY(x, &f, COL_K_VALUES,
			   parse_values(x, f.val[COL_K_VALUES], c))) ||
	    (rc = WITH_KEY(
		 x, &f, COL_K_PRIO_BASE,
		 ytree_uint(x, f.val[COL_K_PRIO_BASE], 0, 1, &base))) ||
	    (rc = parse_width(x, &f, c)))
		return rc;
	c->index.priority_base = (uint32_t)base;
	if (!c->name)
		c->name = xstrdup(
		    snmp_oid_format(c->oid, c->oid_len, buf, sizeof buf));
	const struct fm_counter_info *ci = fm_counter_info(c->counter);
	c->kind =
	    ci->kind == FM_KIND_GAUGE ? SNMP_SAMPLE_GAUGE : SNMP_SAMPLE_COUNTER;
	if (!(c->scale > 0))
		return ytree_fail_key(x, &f, COL_K_SCALE,
				      "must be a positive number");
	if (c->max_rate < 0)
		return ytree_fail_key(x, &f, COL_K_MAX_RATE,
				      "must not be negative");
	if (f.val[COL_K_MAX_RATE] && ci->kind == FM_KIND_GAUGE)
		return ytree_fail_key(x, &f, COL_K_MAX_RATE,
				      "only counters take max_rate, and %s "
				      "is a gauge",
				      ci->name);
	if (f.val[COL_K_VALUES] && ci->kind != FM_KIND_GAUGE)
		return ytree_fail_key(x, &f, COL_K_VALUES,
				      "only gauges take values, and %s is a "
				      "counter",
				      ci->name);
	bool has_port = false, has_prio = false;
	for (size_t i = 0; i < c->index.n; i++) {
		has_port |= c->index.el[i] == SNMP_IDX_PORT;
		has_prio |= c->index.el[i] == SNMP_IDX_PRIORITY;
	}
	const struct ytree_node *in =
	    f.val[COL_K_INDEX] ? f.val[COL_K_INDEX] : f.val[COL_K_OID];
	if (ci->sub == FM_SUB_QUEUE)
		return ytree_fail(x, f.val[COL_K_COUNTER],
				  "%s is per queue: queue-indexed SNMP "
				  "columns are not supported yet",
				  ci->name);
	if (!has_port)
		return ytree_fail(x, in, "the index must include port");
	if (ci->sub == FM_SUB_PRIORITY && !has_prio)
		return ytree_fail(x, in,
				  "%s is per priority: the index must include "
				  "priority",
				  ci->name);
	if (ci->sub != FM_SUB_PRIORITY && has_prio)
		return ytree_fail(x, in,
				  "%s has no priority label: the index cannot "
				  "include priority",
				  ci->name);
	for (size_t i = 0; i < p->n_cols; i++)
		if (oid_eq(p->cols[i].oid, p->cols[i].oid_len, c->oid,
			   c->oid_len))
			return ytree_fail(x, f.val[COL_K_OID],
					  "column %s is listed twice",
					  snmp_oid_format(c->oid, c->oid_len,
							  buf, sizeof buf));
	if (f.val[COL_K_FALLBACK]) {
		oid fo[SNMP_PROFILE_MAX_OID];
		size_t fl;
		if ((rc =
			 WITH_KEY(x, &f, COL_K_FALLBACK,
				  node_oid(x, f.val[COL_K_FALLBACK], fo, &fl))))
			return rc;
		for (size_t i = 0; i < p->n_cols; i++)
			if (oid_eq(p->cols[i].oid, p->cols[i].oid_len, fo, fl))
				c->fallback_for = (int)i;
		if (c->fallback_for < 0)
			return ytree_fail_key(x, &f, COL_K_FALLBACK,
					      "no earlier column has this OID");
		if (p->cols[c->fallback_for].counter != c->counter)
			return ytree_fail_key(x, &f, COL_K_FALLBACK,
					      "column %s feeds another counter",
					      p->cols[c->fallback_for].name);
		if (p->cols[c->fallback_for].fallback_for >= 0)
			return ytree_fail_key(x, &f, COL_K_FALLBACK,
					      "column %s is itself a fallback",
					      p->cols[c->fallback_for].name);
		/* A column with a (32-bit) fallback is the 64-bit one. */
		if (!p->cols[c->fallback_for].width)
			p->cols[c->fallback_for].width = 64;
	}
	return 0;
}

static void column_clear(struct snmp_column *c)
{
	free(c->name);
}

static void add_column(struct snmp_profile *p, const struct snmp_column *c)
{
	p->cols = xreallocarray(p->cols, p->n_cols + 1, sizeof *p->cols);
	p->cols[p->n_cols++] = *c;
}

static int parse_includes(struct ytree_ctx *x, struct snmp_profile *p,
			  const struct ytree_node *n, const char *dir)
{
	size_t count;
	char err[512];
	int rc = ytree_want_seq(x, n, &count);
	if (rc)
		return rc;
	if (count > MAX_INCLUDES)
		return ytree_fail(x, n, "at most %d includes", MAX_INCLUDES);
	for (size_t i = 0; i < count; i++) {
		const struct ytree_node *e = n->kids[i];
		size_t saved = ytree_path_index(x, i);
		if ((rc = ytree_want_scalar(x, e, "a profile name")))
			return rc;
		if (!dir || strchr(e->str, '/'))
			return ytree_fail(x, e,
					  "includes name a profile of the "
					  "same directory");
		struct snmp_profile *inc =
		    snmp_profile_load_named(dir, e->str, err, sizeof err);
		if (!inc)
			return ytree_fail(x, e, "cannot include: %s", err);
		/* One level: an included profile has no includes of its
		 * own (they are loaded without a directory). */
		for (size_t j = 0; j < inc->n_cols; j++) {
			struct snmp_column c = inc->cols[j];
			c.name = xstrdup(c.name);
			add_column(p, &c);
		}
		/* Fallback indexes were relative to inc; rebase them. */
		size_t base = p->n_cols - inc->n_cols;
		for (size_t j = base; j < p->n_cols; j++)
			if (inc->cols[j - base].fallback_for >= 0)
				p->cols[j].fallback_for =
				    (int)base +
				    inc->cols[j - base].fallback_for;
		snmp_profile_free(inc);
		ytree_path_cut(x, saved);
	}
	return 0;
}

enum {
	TOP_K_NAME,
	TOP_K_DESCRIPTION,
	TOP_K_MATCH,
	TOP_K_INCLUDE,
	TOP_K_COLUMNS,
	TOP_K_N
};
static const char *const top_keys[TOP_K_N] = {
	[TOP_K_NAME] = "name",	     [TOP_K_DESCRIPTION] = "description",
	[TOP_K_MATCH] = "match",     [TOP_K_INCLUDE] = "include",
	[TOP_K_COLUMNS] = "columns",
};

static int parse_top(struct ytree_ctx *x, struct snmp_profile *p,
		     const struct ytree_node *root, const char *dir)
{
	struct ytree_fields f;
	size_t count;
	int rc = ytree_fields_get(x, root, top_keys, TOP_K_N, &f);
	if (rc)
		return rc;
	if ((rc = ytree_need(x, &f, TOP_K_NAME)) ||
	    (rc = ytree_opt_str(x, &f, TOP_K_NAME, &p->name)) ||
	    (rc = ytree_opt_str(x, &f, TOP_K_DESCRIPTION, &p->description)))
		return rc;
	for (const char *s = p->name; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.-", *s))
			return ytree_fail_key(x, &f, TOP_K_NAME,
					      "use letters, digits, _, . and "
					      "-");
	if (f.val[TOP_K_MATCH]) {
		size_t saved = ytree_path_key(x, "match");
		if ((rc = ytree_want_seq(x, f.val[TOP_K_MATCH], &count)))
			return rc;
		if (count > MAX_MATCH)
			return ytree_fail(x, f.val[TOP_K_MATCH],
					  "at most %d prefixes", MAX_MATCH);
		p->match = xcalloc(count ? count : 1, sizeof *p->match);
		p->match_len = xcalloc(count ? count : 1, sizeof *p->match_len);
		for (size_t i = 0; i < count; i++) {
			size_t s2 = ytree_path_index(x, i);
			if ((rc = node_oid(x, f.val[TOP_K_MATCH]->kids[i],
					   p->match[i], &p->match_len[i])))
				return rc;
			p->n_match = i + 1;
			ytree_path_cut(x, s2);
		}
		ytree_path_cut(x, saved);
	}
	if (f.val[TOP_K_INCLUDE] &&
	    (rc = WITH_KEY(x, &f, TOP_K_INCLUDE,
			   parse_includes(x, p, f.val[TOP_K_INCLUDE], dir))))
		return rc;
	if (f.val[TOP_K_COLUMNS]) {
		const struct ytree_node *cn = f.val[TOP_K_COLUMNS];
		size_t saved = ytree_path_key(x, "columns");
		if ((rc = ytree_want_seq(x, cn, &count)))
			return rc;
		if (p->n_cols + count > MAX_COLUMNS)
			return ytree_fail(x, cn, "at most %d columns",
					  MAX_COLUMNS);
		for (size_t i = 0; i < count; i++) {
			struct snmp_column c = { 0 };
			size_t s2 = ytree_path_index(x, i);
			rc = parse_column(x, p, &c, cn->kids[i]);
			if (rc) {
				column_clear(&c);
				return rc;
			}
			add_column(p, &c);
			ytree_path_cut(x, s2);
		}
		ytree_path_cut(x, saved);
	}
	if (p->n_cols == 0)
		return ytree_fail(x, root,
				  "no columns: list some or include a "
				  "profile that has them");
	return 0;
}

struct snmp_profile *snmp_profile_load_buffer(const char *name, const char *buf,
					      size_t len, const char *dir,
					      char *err, size_t errlen)
{
	struct ytree_ctx x = {
		.name = name, .err = err, .errlen = errlen, .path_size = 256
	};
	struct ytree_node *root = NULL;
	if (err && errlen)
		err[0] = '\0';
	if (ytree_load(&x, buf, len, SNMP_PROFILE_MAX_BYTES, PROFILE_MAX_DEPTH,
		       &root))
		return NULL;
	if (!root || ytree_is_null(root)) {
		ytree_fail_file(&x, "empty profile");
		ytree_free(root);
		return NULL;
	}
	struct snmp_profile *p = xcalloc(1, sizeof *p);
	if (parse_top(&x, p, root, dir)) {
		snmp_profile_free(p);
		p = NULL;
	}
	ytree_free(root);
	return p;
}

struct snmp_profile *snmp_profile_load(const char *path, const char *dir,
				       char *err, size_t errlen)
{
	struct ytree_ctx x = {
		.name = path, .err = err, .errlen = errlen, .path_size = 256
	};
	size_t len = 0;
	if (err && errlen)
		err[0] = '\0';
	char *buf = ytree_read_file(&x, path, SNMP_PROFILE_MAX_BYTES, &len);
	if (!buf)
		return NULL;
	struct snmp_profile *p =
	    snmp_profile_load_buffer(path, buf, len, dir, err, errlen);
	free(buf);
	return p;
}

struct snmp_profile *snmp_profile_load_named(const char *dir, const char *name,
					     char *err, size_t errlen)
{
	char *path = xasprintf("%s/%s.yaml", dir, name);
	/* Included profiles are loaded without a directory: one level. */
	struct snmp_profile *p = snmp_profile_load(path, NULL, err, errlen);
	free(path);
	return p;
}

void snmp_profile_free(struct snmp_profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_cols; i++)
		column_clear(&p->cols[i]);
	free(p->cols);
	free(p->match);
	free(p->match_len);
	free(p->name);
	free(p->description);
	free(p);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t snmp_profile_set_load(struct snmp_profile_set *set, const char *dir,
			     void (*report)(void *ctx, const char *msg),
			     void *ctx)
{
	char err[1024];
	char **names = NULL;
	size_t nn = 0;
	DIR *d = opendir(dir);
	memset(set, 0, sizeof *set);
	if (!d) {
		if (report) {
			snprintf(err, sizeof err, "%s: cannot open: %s", dir,
				 strerror(errno));
			report(ctx, err);
		}
		return 0;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (strncmp(e->d_name, "snmp-", 5) || l < 10 ||
		    strcmp(e->d_name + l - 5, ".yaml"))
			continue;
		names = xreallocarray(names, nn + 1, sizeof *names);
		names[nn++] = xstrndup(e->d_name, l - 5);
	}
	closedir(d);
	qsort(names, nn, sizeof *names, cmp_names);
	for (size_t i = 0; i < nn; i++) {
		char *path = xasprintf("%s/%s.yaml", dir, names[i]);
		struct snmp_profile *p =
		    snmp_profile_load(path, dir, err, sizeof err);
		free(path);
		if (p) {
			set->v =
			    xreallocarray(set->v, set->n + 1, sizeof *set->v);
			set->v[set->n++] = p;
		} else if (report) {
			report(ctx, err);
		}
		free(names[i]);
	}
	free(names);
	return set->n;
}

void snmp_profile_set_clear(struct snmp_profile_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		snmp_profile_free(set->v[i]);
	free(set->v);
	set->v = NULL;
	set->n = 0;
}

const struct snmp_profile *snmp_profile_find(const struct snmp_profile_set *set,
					     const char *name)
{
	for (size_t i = 0; i < set->n; i++)
		if (strcmp(set->v[i]->name, name) == 0)
			return set->v[i];
	return NULL;
}

const struct snmp_profile *
snmp_profile_choose(const struct snmp_profile_set *set, const oid *sysoid,
		    size_t len)
{
	const struct snmp_profile *best = NULL;
	size_t best_len = 0;
	for (size_t i = 0; i < set->n; i++) {
		const struct snmp_profile *p = set->v[i];
		for (size_t m = 0; m < p->n_match; m++) {
			size_t ml = p->match_len[m];
			if (ml <= len && ml > best_len &&
			    memcmp(p->match[m], sysoid, ml * sizeof(oid)) ==
				0) {
				best = p;
				best_len = ml;
			}
		}
	}
	return best ? best : snmp_profile_find(set, SNMP_PROFILE_DEFAULT);
}
